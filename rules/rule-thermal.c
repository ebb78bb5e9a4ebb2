/* SPDX-License-Identifier: MIT */
/* Thermal rules: the card near its warning threshold or over the profile's limit, the CPU or
 * chipset hot, and a temperature that rose past the limit during a probe. */
#include <string.h>

#include "rules/rules-int.h"

struct card_temp {
	double t_c;        /* hottest reading */
	double warn_c;     /* the card's own warning threshold, 0 = none reported */
	const char *path;  /* fact path of the hottest reading */
	const char *wpath; /* fact path of the threshold */
	bool known;
	const char *why;
};

/* The hottest ASIC reading of a card: hwmon/mstreg sensors tied to its functions and MTMP. */
static void card_temp(struct hwc_rule_ctx *c, const json_t *ad, struct card_temp *ct)
{
	memset(ct, 0, sizeof(*ct));
	ct->why = "not_collected: no sensor of the card";
	const json_t **mine;
	size_t ns = hwc_q_adapter_sensors(c->facts, ad, c->a, &mine);
	for (size_t i = 0; i < ns; i++) {
		const json_t *s = mine[i];
		const char *bdf = hwc_q_string(s, "bdf");
		const char *label = hwc_q_string(s, "label");
		/* a transceiver module has its own limits; the ASIC is what throttles */
		if (label && strncasecmp(label, "module", 6) == 0)
			continue;
		double t;
		const char *why;
		const char *key = hwc_q_elem_key(s, c->a);
		const char *path = hwc_arena_printf(c->a, "thermal.sensors[%s]", key ? key : bdf);
		if (!hwc_q_find_num(s, "temp_mdegc", &t, &why, c->a)) {
			if (!ct->known)
				ct->why = why;
			continue;
		}
		if (!ct->known || t / 1000.0 > ct->t_c) {
			ct->t_c = t / 1000.0;
			ct->path = hwc_arena_printf(c->a, "%s.temp_mdegc", path);
		}
		ct->known = true;
		double w;
		if (hwc_q_find_num(s, "crit_mdegc", &w, &why, c->a) && w > 0 && (ct->warn_c == 0 || w / 1000.0 < ct->warn_c)) {
			ct->warn_c = w / 1000.0;
			ct->wpath = hwc_arena_printf(c->a, "%s.crit_mdegc", path);
		}
	}
	double t;
	const char *why;
	if (hwc_q_find_num(ad, "registers.temp_mdegc", &t, &why, c->a)) {
		if (!ct->known || t / 1000.0 > ct->t_c) {
			ct->t_c = t / 1000.0;
			ct->path = hwc_arena_printf(c->a, "%s.registers.temp_mdegc",
						    fv_adapter_path(c, hwc_q_string(ad, "bdf")));
		}
		ct->known = true;
	} else if (!ct->known) {
		ct->why = why;
	}
}

/* The card's temperature; false, and the rule unknown for the card, when none is known. */
static bool card_temp_known(struct hwc_rule_ctx *c, const json_t *ad, const char *bdf,
			    struct card_temp *ct)
{
	card_temp(c, ad, ct);
	if (!ct->known)
		hwc_rule_unknown(c, bdf, "thermal.sensors[].temp_mdegc", ct->why,
				 "the card's ASIC temperature");
	return ct->known;
}

static double warn_of(struct hwc_rule_ctx *c, const struct card_temp *ct)
{
	return ct->warn_c > 0 ? ct->warn_c : hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_WARN_DEFAULT_C);
}

static bool near_warning(struct hwc_rule_ctx *c, const struct card_temp *ct)
{
	return ct->t_c >= warn_of(c, ct) - hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_MARGIN_C);
}

static void eval_near_warning(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		struct card_temp ct;
		if (!card_temp_known(c, ad, bdf, &ct))
			continue;
		if (!near_warning(c, &ct))
			continue;
		double w = warn_of(c, &ct);
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the card is at %s degC, within %s degC of its %s degC warning threshold",
						       fv_fmt_num(c->a, ct.t_c), fv_fmt_num(c->a, hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_MARGIN_C)),
						       fv_fmt_num(c->a, w));
		hwc_evidence_add(fd, c->a, ct.path, hwc_arena_printf(c->a, "%s degC", fv_fmt_num(c->a, ct.t_c)),
				 hwc_arena_printf(c->a, "< %s degC", fv_fmt_num(c->a, w - hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_MARGIN_C))));
		hwc_evidence_add(fd, c->a, ct.wpath ? ct.wpath : "profile.thresholds.card_temp_warning_default_c",
				 hwc_arena_printf(c->a, "%s degC", fv_fmt_num(c->a, w)), NULL);
	}
}

static void eval_over_limit(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	double lim = hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_LIMIT_C);
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		struct card_temp ct;
		if (!card_temp_known(c, ad, bdf, &ct))
			continue;
		/* nearer the card's own threshold, THERMAL_CARD_NEAR_WARNING speaks (harsher) */
		if (ct.t_c <= lim || near_warning(c, &ct))
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the card is at %s degC, above the profile's %s degC limit",
						       fv_fmt_num(c->a, ct.t_c), fv_fmt_num(c->a, lim));
		hwc_evidence_add(fd, c->a, ct.path, hwc_arena_printf(c->a, "%s degC", fv_fmt_num(c->a, ct.t_c)),
				 hwc_arena_printf(c->a, "<= %s degC", fv_fmt_num(c->a, lim)));
	}
}

static bool host_chip(const char *chip)
{
	static const char *const p[] = {"coretemp", "k10temp", "zenpower", "pch_", "x86_pkg_temp", "cpu_thermal", "cpu-thermal", NULL};
	for (int i = 0; chip && p[i]; i++)
		if (!strncmp(chip, p[i], strlen(p[i])))
			return true;
	return false;
}

static void eval_host_hot(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *s;
	double lim = hwc_profile_threshold(c->prof, HWC_T_HOST_TEMP_LIMIT_C);
	double margin = hwc_profile_threshold(c->prof, HWC_T_HOST_TEMP_MARGIN_C);
	const json_t *sensors = hwc_q_list(c->facts, "thermal.sensors");
	if (!json_is_array(sensors)) {
		const json_t *v;
		const char *why;
		hwc_q_find(c->facts, "thermal.sensors", &v, &why, c->a);
		hwc_rule_unknown(c, "host", "thermal.sensors", why, NULL);
		return;
	}
	size_t read = 0;
	json_array_foreach(sensors, i, s) {
		const char *chip = hwc_q_string(s, "chip");
		if (!host_chip(chip) || hwc_q_string(s, "bdf"))
			continue;
		const char *key = hwc_q_elem_key(s, c->a);
		const char *path = hwc_arena_printf(c->a, "thermal.sensors[%s]", key ? key : chip);
		double t, cr = 0, mx = 0;
		const char *why;
		if (!hwc_q_find_num(s, "temp_mdegc", &t, &why, c->a))
			continue; /* one unreadable sensor among many is not a verdict */
		read++;
		hwc_q_find_num(s, "crit_mdegc", &cr, &why, c->a);
		hwc_q_find_num(s, "max_mdegc", &mx, &why, c->a);
		double tc = t / 1000.0;
		double bound = lim;
		const char *bpath = "profile.thresholds.host_temp_limit_c";
		if (cr > 0 && cr / 1000.0 - margin < bound) {
			bound = cr / 1000.0 - margin;
			bpath = hwc_arena_printf(c->a, "%s.crit_mdegc", path);
		}
		if (mx > 0 && mx / 1000.0 < bound) {
			bound = mx / 1000.0;
			bpath = hwc_arena_printf(c->a, "%s.max_mdegc", path);
		}
		if (tc < bound)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, "host", "%s is at %s degC (bound %s degC from %s)", key ? key : chip,
						       fv_fmt_num(c->a, tc), fv_fmt_num(c->a, bound), bpath);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.temp_mdegc", path),
				 hwc_arena_printf(c->a, "%s degC", fv_fmt_num(c->a, tc)),
				 hwc_arena_printf(c->a, "< %s degC", fv_fmt_num(c->a, bound)));
	}
	/* no CPU or chipset reading at all is not a cool host: nothing was looked at */
	if (!read)
		hwc_rule_unknown(c, "host", "thermal.sensors",
				 "no CPU or chipset temperature sensor in hwmon: coretemp, k10temp, x86_pkg_temp "
				 "and cpu_thermal absent (driver not loaded, or a VM)",
				 NULL);
}

static void eval_probe_rise(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *r;
	double lim = hwc_profile_threshold(c->prof, HWC_T_CARD_TEMP_LIMIT_C);
	json_array_foreach(hwc_q_list(c->facts, "probe.results"), i, r) {
		const json_t *ts = hwc_q_get(r, "temp_start_mdegc"), *tm = hwc_q_get(r, "temp_max_mdegc");
		if (!json_is_number(ts) || !json_is_number(tm))
			continue; /* the probe ran without a temperature source: nothing to judge */
		double s = json_number_value(ts) / 1000.0, m = json_number_value(tm) / 1000.0;
		if (m <= lim || s > lim)
			continue;
		const char *subj = hwc_q_string(r, "bdf");
		const char *key = hwc_q_elem_key(r, c->a);
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "the card heated from %s to %s degC during the %s probe, past the %s degC limit",
						       fv_fmt_num(c->a, s), fv_fmt_num(c->a, m),
						       hwc_q_string(r, "op") ? hwc_q_string(r, "op") : "",
						       fv_fmt_num(c->a, lim));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "probe.results[%s].temp_max_mdegc", key ? key : "?"),
				 hwc_arena_printf(c->a, "%s degC", fv_fmt_num(c->a, m)), hwc_arena_printf(c->a, "<= %s degC", fv_fmt_num(c->a, lim)));
	}
}

const struct hwc_rule hwc_rules_thermal[] = {
	{"THERMAL_CARD_NEAR_WARNING", HWC_SEV_ERROR, "thermal", "Card temperature near its warning threshold",
	 "The ASIC is within the profile's margin of the threshold at which the firmware raises a "
	 "high-temperature health event (the hwmon tempN_crit of mlx5, 105 degC on ConnectX-5 when not "
	 "reported); next come throttling and a thermal shutdown.",
	 "Check the airflow over the card (fan speed profile, blanking panels, cable bundles); "
	 "`sensors` (the mlx5 hwmon) or `mstreg -d <BDF> --reg_name MTMP --get --indexes sensor_index=0x0,slot_index=0x0` "
	 "(Debian 12's mstflint 4.21; newer mstflint also has `mstmget_temp -d <BDF>`) to watch it.",
	 eval_near_warning},
	{"THERMAL_CARD_OVER_LIMIT", HWC_SEV_WARN, "thermal", "Card temperature above the profile's limit",
	 "The card runs hotter than the site's limit (card_temp_limit_c): still below its own warning "
	 "threshold, but with little headroom for a warm day or a failed fan.",
	 "Raise the chassis fan profile or improve airflow over the slot; `sensors` (the mlx5 hwmon) or `mstreg -d <BDF> --reg_name MTMP --get --indexes sensor_index=0x0,slot_index=0x0` "
	 "(Debian 12's mstflint 4.21; newer mstflint also has `mstmget_temp -d <BDF>`) to watch it.",
	 eval_over_limit},
	{"THERMAL_HOST_HOT", HWC_SEV_WARN, "thermal", "CPU or chipset hot",
	 "A CPU package or chipset sensor is at or above its max, within the margin of its critical "
	 "threshold, or above the profile's host limit: it will throttle, slowing everything that feeds the card. "
	 "Unknown when hwmon has no CPU or chipset sensor to read (coretemp/k10temp not loaded, a VM).",
	 "Check the CPU cooler and fans; `sensors` shows the readings (`modprobe coretemp` or `k10temp` when there are none).",
	 eval_host_hot},
	{"THERMAL_PROBE_RISE", HWC_SEV_WARN, "thermal", "Card temperature rose past the limit during a probe",
	 "Under load the card went from below to above the profile's limit: cooling that suffices at "
	 "idle does not at line rate.",
	 "Improve airflow over the card, then rerun `hwcheck probe` and watch the temperature.",
	 eval_probe_rise},
	HWC_RULES_END,
};

/* SPDX-License-Identifier: MIT */
/* The transceiver of each port (issue 14), from hwcheck's own decoding of its EEPROM
 * (netdevs[].link.module): readings against the module's own alarm and warning thresholds, the
 * receive power against its low alarm, and the site's list of allowed modules. The readings of a
 * port whose EEPROM is not decoded here come from mstlink -m (rule-link.c): one rule per reading,
 * whichever tool shows it. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules-int.h"

/* The netdev's decoded module; NULL (silently) when the function has none to read (a VF or
 * representor: unsupported), NULL after an unknown when it could not be read. */
static const json_t *module_of(struct hwc_rule_ctx *c, const json_t *nd, const char *name, const char *needed_for)
{
	const json_t *m;
	const char *why = NULL;
	if (hwc_q_find(nd, "link.module", &m, &why, c->a) && json_is_object(m))
		return m;
	/* unsupported: a VF or representor, no module behind it; not_collected: a facts file from
	 * before hwcheck read modules (no link.module at all), which says nothing either way */
	if (why && (strncmp(why, "unsupported", 11) == 0 || strncmp(why, "not_collected", 13) == 0))
		return NULL;
	hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.link.module", fv_netdev_path(c, name)), why, needed_for);
	return NULL;
}

/* Diagnostics that can be judged: a module with DDM that is not a passive cable. */
static bool has_dom(struct hwc_rule_ctx *c, const json_t *m, const char *name, const char *base)
{
	const char *media;
	const char *why;
	if (hwc_q_find_str(m, "media", &media, &why, c->a) && strcmp(media, "passive_copper") == 0)
		return false; /* a DAC: no laser, nothing to judge */
	bool ddm;
	return need_bool(c, name, m, base, "ddm", &ddm) && ddm;
}

/* A dark lane (hwc_q_lane_dark: no bias, no Tx, no Rx power) is not in use (a breakout's idle
 * lane, a down port's lanes): nothing to judge; unless the live link needs it. The lanes the live
 * link needs that read dark: a lane that carries a link has bias and light, so these readings
 * are not measurements (a monitor the module lacks or that is not valid): the
 * rule cannot judge them, one unknown on fact (the module's bias) says which and why. Whether
 * there were any. Either source's module (ethtool -m's decoding, mstlink's Module Info). */
bool hwc_rule_needed_dark(struct hwc_rule_ctx *c, const char *subj, const char *fact, const json_t *m,
			  const struct hwc_q_lanes *l, const char *needed_for)
{
	const char *list = "";
	for (size_t i = 0, n = hwc_q_module_nlanes(m); i < n; i++)
		if (hwc_q_lane_needed_dark(l, m, i))
			list = hwc_arena_printf(c->a, "%s%s%zu", list, *list ? "," : "", i + 1);
	if (!*list)
		return false;
	const char *rate = l->speed_gbps > 0 ? hwc_arena_printf(c->a, " at %sG", fv_fmt_num(c->a, l->speed_gbps)) : "";
	const char *over = hwc_arena_printf(c->a, "%u lane%s (%s)", l->needed, l->needed == 1 ? "" : "s",
					    l->shared ? "a module shared with another netdev: a breakout" : l->basis);
	hwc_rule_unknown(c, subj, fact,
			 hwc_arena_printf(c->a, "invalid: lane%s %s read%s no bias, no Tx and no Rx power while the link is up%s over %s: "
					  "a lane that carries the link has bias and light, so these are not measurements (the "
					  "module does not monitor its lanes, or its monitors are not valid)",
					  strchr(list, ',') ? "s" : "", list, strchr(list, ',') ? "" : "s", rate, over),
			 needed_for);
	return true;
}

/* The same for a netdev's decoded module. */
static bool needed_dark(struct hwc_rule_ctx *c, const char *name, const char *base, const json_t *m,
			const char *needed_for)
{
	struct hwc_q_lanes l;
	hwc_q_module_lanes(c->facts, hwc_q_netdev(c->facts, name), m, &l);
	return hwc_rule_needed_dark(c, name, hwc_arena_printf(c->a, "%s.tx_bias_ma", base), m, &l, needed_for);
}

static const char *fmt_val(struct hwc_rule_ctx *c, const char *key, double v)
{
	if (strstr(key, "power") && v > 0)
		return hwc_arena_printf(c->a, "%.4g mW (%.2f dBm)", v, 10 * log10(v));
	return fv_fmt_num(c->a, v);
}

struct thr {
	double ha, la, hw, lw;
	const char *lw_what, *expect; /* NULL: the module's low warning, its ranges */
};

static bool get_thr(const json_t *t, struct thr *o)
{
	const char *k[] = {"high_alarm", "low_alarm", "high_warning", "low_warning"};
	double *d[] = {&o->ha, &o->la, &o->hw, &o->lw};
	for (int i = 0; i < 4; i++) {
		const json_t *x = hwc_q_get(t, k[i]);
		if (!json_is_number(x))
			return false;
		*d[i] = json_number_value(x);
	}
	return o->ha != 0 || o->la != 0 || o->hw != 0 || o->lw != 0; /* all 0: the module sets none */
}

struct judge {
	struct hwc_rule_ctx *c;
	const char *name, *base;
	const json_t *m; /* the module: its flags */
	struct hwc_finding *fd;
};

/* The names the decoder gives the flags of a reading (hwinfo/module_eeprom.c, add_flag). */
static const char *flag_name(const char *key)
{
	static const char *const k[][2] = {{"temperature_c", "temperature"}, {"voltage_v", "voltage"}, {"tx_bias_ma", "tx bias"},
					   {"tx_power_mw", "tx power"}, {"rx_power_mw", "rx power"}};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(k); i++)
		if (strcmp(key, k[i][0]) == 0)
			return k[i][1];
	return NULL;
}

/* The module's own flag for a reading judged past one of its thresholds (kind: "high alarm"...),
 * where the module implements its alarm and warning flags (SFF-8472: A0h byte 93 bit 7,
 * 'Alarm/warning flags implemented', the flags at A2h bytes 112-117; SFF-8636 and CMIS always
 * have them): *name ("tx bias high alarm") and whether it is on; false where the flags are not
 * implemented or not read, and then nothing is said of them. lane -1 for a reading of the whole
 * module; a lane's flag carries " (lane N)" except on an SFP (one lane, no suffix). */
static bool module_flag(struct judge *j, const char *key, long lane, const char *kind, const char **name, bool *on_out)
{
	const json_t *fl = hwc_q_get(j->m, "flags"), *x;
	const char *what = flag_name(key);
	if (!json_is_array(fl) || !what)
		return false;
	const char *flag = hwc_arena_printf(j->c->a, "%s %s", what, kind);
	const char *laned = lane >= 0 ? hwc_arena_printf(j->c->a, "%s (lane %ld)", flag, lane + 1) : flag;
	size_t i;
	bool on = false;
	json_array_foreach(fl, i, x) {
		const char *f = json_string_value(x);
		on |= f && (strcmp(f, laned) == 0 || (lane <= 0 && strcmp(f, flag) == 0));
	}
	*name = flag;
	*on_out = on;
	return true;
}

/* One reading (lane: its index, -1 for the whole module's) against its thresholds; low_side false
 * leaves the low side to another rule. */
static void judge_one(struct judge *j, const char *key, const char *path, long lane, double v, const struct thr *t, bool low_side)
{
	struct hwc_rule_ctx *c = j->c;
	const char *what = NULL;
	enum hwc_severity sev = HWC_SEV_WARN;
	if (v > t->ha || (low_side && v < t->la))
		what = v > t->ha ? "above its high alarm" : "below its low alarm", sev = c->sev;
	else if (v > t->hw || (low_side && v < t->lw))
		what = v > t->hw ? "above its high warning" : t->lw_what ? t->lw_what : "below its low warning";
	if (!what)
		return;
	/* the module's own flag for it, where the thresholds are the module's (not RX_POWER_LOW's margin) */
	const char *flag = NULL;
	bool on = false, has_flag = !t->expect && module_flag(j, key, lane, strstr(what, "its ") + 4, &flag, &on);
	const char *msg = hwc_arena_printf(c->a, "%s = %s is %s (%s)%s", path + strlen(j->base) + 1, fmt_val(c, key, v), what,
					   fmt_val(c, key, sev == c->sev ? (v > t->ha ? t->ha : t->la) : (v > t->hw ? t->hw : t->lw)),
					   !has_flag ? "" : hwc_arena_printf(c->a, "; the module's own %s flag is %s", flag,
									    on ? "on" : "off: the reading and the flag disagree"));
	if (!j->fd) {
		j->fd = hwc_rule_emit_sev(c, sev, j->name, "transceiver: %s", msg);
	} else if (sev == c->sev && j->fd->severity != c->sev) {
		j->fd->severity = c->sev;
		j->fd->message = hwc_arena_printf(c->a, "transceiver: %s", msg);
	}
	hwc_evidence_add(j->fd, c->a, path, fmt_val(c, key, v), t->expect ? t->expect :
			 hwc_arena_printf(c->a, "within [%s..%s] (warning [%s..%s]), the module's own thresholds", fmt_val(c, key, t->la),
					  fmt_val(c, key, t->ha), fmt_val(c, key, t->lw), fmt_val(c, key, t->hw)));
	if (has_flag)
		hwc_evidence_add(j->fd, c->a, hwc_arena_printf(c->a, "%s.flags", j->base), hwc_arena_printf(c->a, "%s: %s", flag, on ? "on" : "off"),
				 hwc_arena_printf(c->a, "on (the reading is %s)", what));
}

/* Each reading of key (a number or one per lane) against the module's thresholds for it. */
static void judge_key(struct judge *j, const json_t *m, const char *key, bool low_side)
{
	struct hwc_rule_ctx *c = j->c;
	const json_t *t;
	const char *why = NULL;
	if (!hwc_q_find(m, hwc_arena_printf(c->a, "thresholds.%s", key), &t, &why, c->a) || !json_is_object(t)) {
		hwc_rule_unknown(c, j->name, hwc_arena_printf(c->a, "%s.thresholds.%s", j->base, key), why,
				 "the module's own thresholds");
		return;
	}
	struct thr th = {0};
	const json_t *v = hwc_q_get(m, key);
	if (!get_thr(t, &th) || !v)
		return; /* no thresholds set, or a monitor the module lacks */
	if (json_is_number(v)) {
		judge_one(j, key, hwc_arena_printf(c->a, "%s.%s", j->base, key), -1, json_number_value(v), &th, low_side);
		return;
	}
	size_t i;
	const json_t *x;
	json_array_foreach(v, i, x)
		if (json_is_number(x) && !hwc_q_lane_dark(m, i))
			judge_one(j, key, hwc_arena_printf(c->a, "%s.%s[%zu]", j->base, key, i), (long)i, json_number_value(x), &th, low_side);
}

/* LINK_MODULE_RX_POWER_LOW's warning bound: link_module_rx_margin_db above the module's low
 * alarm lo (mW). */
static double rx_warn_mw(struct hwc_rule_ctx *c, double lo)
{
	return lo * pow(10, hwc_profile_threshold(c->prof, HWC_T_LINK_MODULE_RX_MARGIN_DB) / 10);
}

/* An Rx-power low flag on a lane whose reading is low now (where LINK_MODULE_RX_POWER_LOW warns
 * or errs): the present condition, that rule's finding (one wire, one finding). The same flag on a
 * lane that reads well now is this rule's (judge_flags). */
static bool rx_low_now(struct hwc_rule_ctx *c, const json_t *m, const char *flag, size_t lane)
{
	if (strncmp(flag, "rx power low ", 13) != 0)
		return false;
	const json_t *rx = hwc_q_get(m, "rx_power_mw"), *lo = hwc_q_at(m, "thresholds.rx_power_mw.low_alarm");
	const json_t *x = json_is_array(rx) ? json_array_get(rx, lane) : lane == 0 ? rx : NULL;
	return json_is_number(x) && json_is_number(lo) && json_number_value(lo) > 0 &&
	       json_number_value(x) < rx_warn_mw(c, json_number_value(lo));
}

/* A netdev the host switched off (IFF_UP clear): the port's transmitter goes off with it (the
 * driver or the firmware asserts TX_DISABLE), so the laser's bias and Tx power read low by design,
 * not as a fault (a real SFP+ on a port brought down: 0.394 mA and -16 dBm under their low alarms,
 * see tests/link/REAL-DATA.md). Their low side is not judged there. So on a netdev whose card
 * refused the module (hwc_q_netdev_module_refused): the card keeps its laser off, and
 * NET_PORT_DOWN names the refusal. */
static bool tx_switched_off(struct hwc_rule_ctx *c, const char *name)
{
	bool up;
	const char *why;
	const json_t *nd = hwc_q_netdev(c->facts, name);
	return nd && ((hwc_q_find_bool(nd, "admin_up", &up, &why, c->a) == 1 && !up) || hwc_q_netdev_module_refused(nd));
}

static bool tx_low_flag(const char *f)
{
	return strncmp(f, "tx bias low ", 12) == 0 || strncmp(f, "tx power low ", 13) == 0;
}

/* Whether the module's flags are live status rather than latched. SFF-8636 (bytes 4-12) and CMIS
 * (pages 00h/11h, RO/COR) latch theirs: set by the event, cleared when the host reads them, so a
 * flag is an excursion since the last read. SFF-8472 defines A2h bytes 112-117 as status bits
 * "set when" a value is past its threshold, with no latch and no clear on read (its table 9-12);
 * the SFP controllers that implement the map keep them as the last measurement's state (Maxim
 * DS1876, A2h 70h-71h ALARM3/ALARM2: "Last measurement was above threshold setting", cleared by
 * the next measurement within it). */
static bool flags_live(const json_t *m)
{
	const char *spec = hwc_q_string(m, "spec");
	return spec && strcmp(spec, "SFF-8472") == 0;
}

/* A live flag (SFF-8472) against the module's reading of the same value from the same read: the
 * reading's key, its value and the threshold the flag names; false when one is not there. */
static bool live_reading(struct hwc_rule_ctx *c, const json_t *m, const char *f, const char **key, double *v,
			 double *thr, bool *high)
{
	static const char *const keys[] = {"temperature_c", "voltage_v", "tx_bias_ma", "tx_power_mw", "rx_power_mw"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(keys); i++) {
		const char *what = flag_name(keys[i]);
		size_t n = strlen(what);
		if (strncmp(f, what, n) != 0 || f[n] != ' ')
			continue;
		const char *kind = f + n + 1; /* "high alarm" */
		const json_t *x = hwc_q_get(m, keys[i]);
		x = json_is_array(x) ? json_array_get(x, 0) : x; /* an SFP's one lane */
		const json_t *t = hwc_q_at(m, hwc_arena_printf(c->a, "thresholds.%s.%s", keys[i],
							       strncmp(kind, "high", 4) == 0 ? (strstr(kind, "alarm") ? "high_alarm" : "high_warning")
											 : (strstr(kind, "alarm") ? "low_alarm" : "low_warning")));
		if (!json_is_number(x) || !json_is_number(t))
			return false;
		*key = keys[i], *v = json_number_value(x), *thr = json_number_value(t), *high = strncmp(kind, "high", 4) == 0;
		return true;
	}
	return false;
}

/* A flag of the module that is set (a dark lane's are its idleness). Latched (SFF-8636, CMIS):
 * an excursion since the last read, a warning. Live (SFF-8472): the module says the value is
 * past that threshold now; where its reading is past it too, judge_one's finding has said so
 * (the flag on, as evidence); where its reading is within, the flag and the reading disagree,
 * a warning that says so. */
static void judge_flags(struct judge *j, const json_t *m)
{
	struct hwc_rule_ctx *c = j->c;
	size_t k;
	const json_t *x;
	bool live = flags_live(m);
	json_array_foreach(hwc_q_get(m, "flags"), k, x) {
		const char *f = json_string_value(x), *ln = f ? strstr(f, "(lane ") : NULL;
		size_t lane = ln ? (size_t)strtoul(ln + 6, NULL, 10) - 1 : 0;
		if (!f || (ln && hwc_q_lane_dark(m, lane)) || rx_low_now(c, m, f, lane) ||
		    (tx_low_flag(f) && tx_switched_off(c, j->name)))
			continue;
		const char *key = NULL, *path = hwc_arena_printf(c->a, "%s.flags[%zu]", j->base, k);
		double v = 0, thr = 0;
		bool high = false, read = live && live_reading(c, m, f, &key, &v, &thr, &high);
		if (read && (high ? v > thr : v < thr)) {
			if (j->fd) /* judge_one's finding for this reading: the flag agrees */
				hwc_evidence_add(j->fd, c->a, path, f, NULL);
			continue;
		}
		if (!j->fd && !live)
			j->fd = hwc_rule_emit_sev(c, HWC_SEV_WARN, j->name, "transceiver: the module latched %s since the last read", f);
		else if (!j->fd)
			j->fd = hwc_rule_emit_sev(c, HWC_SEV_WARN, j->name,
						  "transceiver: the module's %s flag is on, %s: SFF-8472 flags are live status "
						  "(not latched), so the module's flag and its reading disagree", f,
						  read ? hwc_arena_printf(c->a, "yet its reading %s is within that threshold (%s)", fmt_val(c, key, v),
									  fmt_val(c, key, thr))
						       : "and the module gives no reading and threshold to compare");
		hwc_evidence_add(j->fd, c->a, path, f, live ? "off while the reading is within the threshold (SFF-8472: live status)" : "no flag set");
		if (read)
			hwc_evidence_add(j->fd, c->a, hwc_arena_printf(c->a, "%s.%s", j->base, key), fmt_val(c, key, v),
					 hwc_arena_printf(c->a, "%s %s, as the module's flag says", high ? "above" : "below", fmt_val(c, key, thr)));
	}
}

/* The module of each netdev that has one to judge (with dom: one with diagnostics), to fn with the
 * netdev's name and the module's path. */
typedef void (*module_fn)(struct hwc_rule_ctx *c, const char *name, const char *base, const json_t *m);

static void each_module(struct hwc_rule_ctx *c, const char *needed_for, bool dom, module_fn fn)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		const char *name = hwc_q_string(nd, "name");
		if (dom ? hwc_mst_module_judged(c->facts, name) : hwc_mst_module_named(c->facts, name))
			continue; /* its EEPROM not decoded here: mstlink's Module Info is judged instead */
		const json_t *m = module_of(c, nd, name, needed_for);
		const char *base = hwc_arena_printf(c->a, "%s.link.module", fv_netdev_path(c, name));
		if (m && (!dom || has_dom(c, m, name, base)))
			fn(c, name, base, m);
	}
}

static void thresholds_one(struct hwc_rule_ctx *c, const char *name, const char *base, const json_t *m)
{
	static const char *const keys[] = {"temperature_c", "voltage_v", "tx_bias_ma", "tx_power_mw", "rx_power_mw"};
	struct judge j = {c, name, base, m, NULL};
	bool off = tx_switched_off(c, name);
	for (size_t k = 0; k < HWC_ARRAY_SIZE(keys); k++)
		judge_key(&j, m, keys[k], strcmp(keys[k], "rx_power_mw") != 0 && !(off && strncmp(keys[k], "tx_", 3) == 0));
	judge_flags(&j, m);
	needed_dark(c, name, base, m, "the lane's bias, Tx and Rx power against the module's thresholds");
}

static void eval_thresholds(struct hwc_rule_ctx *c)
{
	each_module(c, "the transceiver's diagnostics", true, thresholds_one);
	hwc_mst_module_readings(c, false);
}

/* Receive power of each lit lane against the module's low alarm: below it the link is losing
 * (error), within link_module_rx_margin_db of it the optical budget is nearly spent (warning). */
static void rx_low_one(struct hwc_rule_ctx *c, const char *name, const char *base, const json_t *m)
{
	double margin = hwc_profile_threshold(c->prof, HWC_T_LINK_MODULE_RX_MARGIN_DB);
	double lo;
	needed_dark(c, name, base, m, "the lane's receive power");
	const json_t *rx;
	if (!need_num(c, name, m, base, "thresholds.rx_power_mw.low_alarm", &lo) ||
	    !hwc_q_find(m, "rx_power_mw", &rx, &(const char *){NULL}, c->a) || lo <= 0)
		return;
	struct judge j = {c, name, base, m, NULL};
	struct thr t = {INFINITY, lo, INFINITY, rx_warn_mw(c, lo),
			hwc_arena_printf(c->a, "within %s dB of its low alarm", fv_fmt_num(c->a, margin)),
			hwc_arena_printf(c->a, ">= %s, %s dB above the module's low alarm %s", fmt_val(c, "rx_power_mw", rx_warn_mw(c, lo)),
					 fv_fmt_num(c->a, margin), fmt_val(c, "rx_power_mw", lo))};
	size_t k;
	const json_t *x;
	json_array_foreach(rx, k, x)
		if (json_is_number(x) && !hwc_q_lane_dark(m, k))
			judge_one(&j, "rx_power_mw", hwc_arena_printf(c->a, "%s.rx_power_mw[%zu]", base, k), (long)k, json_number_value(x), &t, true);
}

static void eval_rx_low(struct hwc_rule_ctx *c)
{
	each_module(c, "the receive power", true, rx_low_one);
	hwc_mst_module_readings(c, true);
}

static bool allowed(const json_t *list, const char *vendor, const char *pn)
{
	size_t i;
	const json_t *e;
	json_array_foreach(list, i, e) {
		const char *pv = hwc_q_string(e, "vendor");
		const char *pp = hwc_q_string(e, "part_number");
		if ((!pv || fnmatch(pv, vendor, 0) == 0) && (!pp || fnmatch(pp, pn, 0) == 0))
			return true;
	}
	return false;
}

static void allowed_one(struct hwc_rule_ctx *c, const char *name, const char *base, const json_t *m)
{
	const char *v, *pn;
	if (!need_str(c, name, m, base, "vendor", &v) || !need_str(c, name, m, base, "part_number", &pn) ||
	    allowed(hwc_profile_allowed_modules(c->prof), v, pn))
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, name, "transceiver %s %s is not on the site's allowed list", v, pn);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.vendor", base), v, "allowed_modules[].vendor");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.part_number", base), pn, "allowed_modules[].part_number");
}

static void eval_allowed(struct hwc_rule_ctx *c)
{
	if (!json_array_size(hwc_profile_allowed_modules(c->prof)))
		return; /* the site keeps no list: nothing to check */
	each_module(c, "whether the transceiver is allowed", false, allowed_one);
	hwc_mst_module_identities(c, "whether the transceiver is allowed", allowed_one);
}

const struct hwc_rule hwc_rules_module[] = {
	{"LINK_MODULE_THRESHOLDS", HWC_SEV_ERROR, "link", "Transceiver readings past the module's own thresholds",
	 "hwcheck's decoding of the module EEPROM (ethtool -m; SFF-8472, SFF-8636, CMIS): temperature, "
	 "supply voltage, per-lane laser bias, Tx power and Rx power (high side) against the alarm and "
	 "warning thresholds the module itself stores (SFF-8472 A2h bytes 0-39, SFF-8636 page 03h, CMIS "
	 "page 02h). Past an alarm is an error, past a warning a warning. Where the module implements "
	 "its alarm and warning flags (SFF-8472: A0h byte 93 bit 7, the flags at A2h bytes 112-117; "
	 "SFF-8636 and CMIS always), such a finding says whether the module's own flag for that "
	 "threshold is on, or off (the reading and the flag disagree: the module's flag logic did not "
	 "raise what its own thresholds call for); where it does not, nothing is said of flags. "
	 "A flag that is set otherwise depends on the standard. SFF-8636 and CMIS latch their flags "
	 "(set by the event, cleared when read): a flag whose reading is fine now is an excursion "
	 "since the last read, a warning. SFF-8472's (A2h bytes 112-117) are live status, the "
	 "module's last measurement against its thresholds, with no latch and no clear on read "
	 "(SFF-8472 table 9-12 'set when ...'; SFP controllers keep them so: Maxim DS1876, A2h "
	 "70h-71h, 'Last measurement was above threshold setting'): a flag whose reading, from the "
	 "same read, is past the threshold is that reading's finding (the flag on, as evidence); one "
	 "whose reading is within is the module's flag and its reading disagreeing (its flag logic, "
	 "or a value at the edge that moved between the two), a warning that says so, never history. "
	 "Passive copper, modules without "
	 "diagnostics, thresholds left at 0 and dark lanes (no bias, no light: 0 mA and at most one "
	 "0.1 uW step of Tx and Rx power, which ethtool prints as 0.0001 mW / -40.00 dBm; an idle "
	 "breakout lane, a down port) have nothing to judge; a dark lane the live link needs (ethtool's Lanes, else "
	 "the fewest of the module's lanes that carry the speed: 100GBASE-SR4 needs all 4) is unknown, "
	 "its readings not measurements (a lane that carries a link has bias and light), and so has a VF (no module behind it) or a facts file older than "
	 "module decoding. Where hwcheck did not decode a port's module EEPROM (an InfiniBand port "
	 "without a netdev, ethtool -m unreadable), mstlink -m's Module Info: each reading against "
	 "the alarm range in brackets, which the firmware reads from the module (PDDR module info "
	 "'Alarm high/low ... threshold'; no warning thresholds there): past it an error, within "
	 "link_module_margin (default 0.1 of the range) of an edge a warning; its dark lanes (bias 0, "
	 "Tx and Rx -40 dBm, how mlxlink prints no light) are judged as above, the lanes a live link "
	 "needs taken from mstlink's Width on a port without a netdev; Module Info not shown "
	 "on a port without a netdev is unknown. One reading, one rule, whichever tool shows it. "
	 "Low Rx power is LINK_MODULE_RX_POWER_LOW's, and so is an Rx-power low flag on a lane "
	 "that reads low now (the same condition); on a lane that reads well now it is judged here "
	 "(latched: history; live: a disagreement). On a netdev the host switched off (admin down) the transmitter goes off with "
	 "the port: bias and Tx power below their low thresholds (and those flags) are by design "
	 "there, not judged; their high side still is. The same on a netdev whose card refused the "
	 "module (the kernel's reason 'Cable issue, Unsupported cable', NET_PORT_DOWN's finding): the "
	 "card keeps that module's laser off (a real ConnectX-4 that refused a Finisar 100G-CWDM4 "
	 "QSFP28: 0 mA of bias on every lane).",
	 "Hot module: check airflow and the fan policy. Bias or Tx power drifting: replace the module. "
	 "Voltage: the host's 3.3 V to the cage. `ethtool -m <netdev>` shows the readings and "
	 "thresholds.",
	 eval_thresholds},
	{"LINK_MODULE_RX_POWER_LOW", HWC_SEV_ERROR, "link", "Receive optical power at or near the module's low alarm",
	 "Per lit lane, the received optical power against the module's own low-alarm threshold: below "
	 "it the receiver is losing the signal (error); within link_module_rx_margin_db (default 3 dB, "
	 "the usual distance of the SFF-8472/8636 low warning from the low alarm) above it the optical "
	 "budget is nearly spent (warning): a dirty or damaged connector, a bent or too long fibre, or a "
	 "weak far-end laser. Where hwcheck did not decode the port's module EEPROM, mstlink -m's Rx "
	 "Power Current [dBm] against the low end of its range (the module's low alarm), with the "
	 "same margin in dB. A dark lane (no bias, no light: as in LINK_MODULE_THRESHOLDS) is not judged; one the live link needs "
	 "is unknown, as in LINK_MODULE_THRESHOLDS.",
	 "Clean both fibre ends and the module's receptacle, check the patch path and its length, then "
	 "the far end's Tx power; `ethtool -m <netdev>` shows the Rx power per lane.",
	 eval_rx_low},
	{"LINK_MODULE_NOT_ALLOWED", HWC_SEV_WARN, "link", "Transceiver not on the site's allowed list",
	 "The profile's allowed_modules list (vendor and part-number patterns, fnmatch) against the "
	 "vendor name and part number in the module's EEPROM. Where hwcheck did not decode a port's "
	 "module EEPROM (an InfiniBand port without a netdev, ethtool -m unreadable), mstlink -m's "
	 "Module Info names the module ('Vendor Name', 'Vendor Part Number'); one module, one "
	 "reading: hwcheck's own decoding goes first. A port without a netdev whose module neither "
	 "tool named is unknown. Without a list in the profile the rule has nothing to check.",
	 "Replace the module with an allowed part, or add it to allowed_modules in the site profile "
	 "after qualifying it.",
	 eval_allowed},
	HWC_RULES_END,
};

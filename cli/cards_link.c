/* SPDX-License-Identifier: MIT */
/* The per-port lines of the physical link (issue 14), in a fixed order: the errors and their
 * rate, the flaps, FEC and BER, the module against its own thresholds, the far end. Each counter
 * since boot gets its rate per hour (host.kernel.uptime_s), and, when the run watched the ports
 * (--watch SEC, facts.watch), its delta over the window. Each line also writes its values into
 * the port's object of the card's "ports" (cards.schema.json), so that JSON holds what text shows.
 * Values only: the verdicts are the rules' (cli/cards.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cards_int.h"
#include "core/json.h"
#include "core/query.h"
#include "rules/rules.h"

#define vput hwc_cards_vput
#define why hwc_cards_why

/* A counter of a line: its key in the facts and the label. An IBA PortCounter saturates at its
 * width (hwc_q_ib_counter_max; other counters have none). */
struct ctr {
	const char *key, *label;
};

/* The windows of a run's counters: since boot (hours; 0 when the uptime is unknown) and the
 * watch window (seconds; 0 without --watch). */
struct span {
	double hours, window_s;
	const char *no_uptime; /* why the uptime is unknown */
	const char *no_window; /* why a watched run has no window (a capture without samples) */
};

static struct span span_of(const struct card_ctx *x)
{
	struct span s = {0, 0, NULL, NULL};
	const json_t *k = hwc_q_get(hwc_q_host(x->facts), "kernel");
	const json_t *up = hwc_q_get(k, "uptime_s");
	if (json_is_number(up) && json_number_value(up) > 0)
		s.hours = json_number_value(up) / 3600.0;
	else
		s.no_uptime = k ? why(k, "uptime_s") : "no host.kernel facts";
	const json_t *watch = hwc_q_get(x->facts, "watch"), *w = hwc_q_get(watch, "window_s");
	if (json_is_number(w) && json_number_value(w) > 0)
		s.window_s = json_number_value(w);
	else if (json_is_object(watch))
		s.no_window = why(watch, "window_s");
	return s;
}

/* The port's netdev facts; for a RoCE LAG member line the member's. */
static const json_t *netdev_of(const struct card_ctx *x, const json_t *p)
{
	return hwc_q_netdev(x->facts, hwc_json_str_or(p, "netdev", NULL));
}

/* The object `key` of the port's JSON in "ports" (created on first use). */
static json_t *out_obj(struct card_ctx *x, const char *key)
{
	json_t *o = x->port_out ? json_object_get(x->port_out, key) : NULL;
	if (!o && x->port_out) {
		o = json_object();
		json_object_set_new(x->port_out, key, o);
	}
	return o;
}

/* A rate per hour, as the rules print it (hwc_fmt_per_hour). */
static void put_rate(struct item_val *v, double per_hour)
{
	char buf[48];
	vput(v, "%s", hwc_fmt_per_hour(buf, sizeof(buf), per_hour));
}

/* Why a window delta is missing, in a word or two: the detail names the counter and both samples. */
static const char *short_why(const json_t *wobj, const char *key)
{
	const char *d = why(wobj, key);
	if (strstr(d, "saturated"))
		return "saturated";
	if (strstr(d, "backwards") || strstr(d, "cleared"))
		return "cleared in the window";
	const char *st = hwc_json_str_or(hwc_q_unavailable(wobj, key), "status", NULL);
	return st ? st : d;
}

/* One counter: "symbol errors 386 (16.1/h; 3 in the window)"; the rate only when it counted
 * something, the window's delta whenever the run watched (but of a 0 that stayed 0). Returns
 * whether it was shown. */
static bool put_ctr(struct item_val *v, const struct span *s, const struct ctr *c, const json_t *n,
		    const json_t *w, const json_t *wobj, size_t *shown, json_t *out)
{
	if (!json_is_number(n))
		return false;
	double val = json_number_value(n);
	vput(v, "%s%s %.0f", (*shown)++ ? ", " : "", c->label, val);
	double max = (double)hwc_q_ib_counter_max(c->key);
	bool sat = max > 0 && val >= max, rate = val > 0 && s->hours > 0;
	/* a counter at 0 that stayed at 0: nothing to say about the window */
	bool win = s->window_s > 0 && (val > 0 || !json_is_number(w) || json_number_value(w) != 0);
	const char *sep = " (";
	if (sat) {
		vput(v, "%ssaturated", sep);
		sep = "; ";
	}
	if (rate) {
		vput(v, "%s", sep);
		put_rate(v, val / s->hours);
		sep = "; ";
	}
	if (win && json_is_number(w))
		vput(v, "%s+%.0f in the window", sep, json_number_value(w));
	else if (win)
		vput(v, "%swindow unknown: %s", sep, short_why(wobj, c->key));
	if (sat || rate || win)
		vput(v, ")");
	if (out)
		json_object_set_new(out, c->key,
				    json_pack("{s:O, s:o, s:O?}", "count", n, "per_hour",
					      s->hours > 0 ? json_real(val / s->hours) : json_null(),
					      "window", json_is_number(w) ? w : NULL));
	return true;
}

/* The counters of table t that obj holds (window deltas in wobj), then how the rates were had. */
static size_t put_ctrs(struct item_val *v, const struct span *s, const struct ctr *t,
		       const json_t *obj, const json_t *wobj, json_t *out, size_t shown)
{
	for (const struct ctr *c = t; c->key; c++)
		put_ctr(v, s, c, hwc_q_get(obj, c->key), hwc_q_get(wobj, c->key), wobj, &shown, out);
	return shown;
}

/* "; rates per hour over the 26.5 h uptime (at least: ...), window 10 s" after the counters that
 * counted something: they count since boot or the last counter clear, so over the uptime the
 * rates are lower bounds. */
static void put_span(struct item_val *v, const struct span *s, bool any)
{
	if (s->no_window)
		vput(v, "; watch window unknown (%s)", s->no_window);
	if (!any && s->window_s <= 0)
		return;
	if (any && s->hours > 0)
		vput(v, "; rates per hour over the %.1f h uptime (at least: counted since boot or the last clear)", s->hours);
	else if (any)
		vput(v, "; rate unknown (no uptime)");
	if (s->window_s > 0)
		vput(v, "%s %.1f s watch window", any ? "," : ";", s->window_s);
}

static bool any_nonzero(const json_t *obj, const struct ctr *t)
{
	for (const struct ctr *c = t; c->key; c++)
		if (json_number_value(hwc_q_get(obj, c->key)) > 0)
			return true;
	return false;
}

static const struct ctr eth_errors[] = {
	{"rx_symbol_err_phy", "symbol errors"},
	{"rx_pcs_symbol_err_phy", "post-FEC bit errors"},
	{"rx_crc_errors_phy", "CRC errors"},
	{NULL, NULL},
};
static const struct ctr ib_errors[] = {
	{"symbol_error", "symbol errors"},
	{"port_rcv_errors", "rcv errors"},
	{"local_link_integrity_errors", "integrity errors"},
	{"excessive_buffer_overrun_errors", "buffer overruns"},
	{"port_rcv_remote_physical_errors", "remote physical errors"},
	{NULL, NULL},
};
static const struct ctr phy_errors[] = {
	{"effective_errors", "effective errors"},
	{"symbol_errors", "symbol errors"},
	{NULL, NULL},
};

/* mstlink's counters run since they were last cleared, not since boot: their own window. */
static void put_phy_ctrs(struct item_val *v, const json_t *phy, const struct ctr *t, json_t *out)
{
	struct span s = {0, 0, NULL, NULL};
	const json_t *tm = hwc_q_get(phy, "time_since_clear_min");
	if (json_is_number(tm) && json_number_value(tm) > 0)
		s.hours = json_number_value(tm) / 60;
	if (!put_ctrs(v, &s, t, phy, NULL, out, 0))
		return;
	if (s.hours > 0)
		vput(v, " (mstlink, since its counters were cleared %.1f h ago)", s.hours);
	else
		vput(v, " (mstlink, since its counters were cleared)");
}

/* Errors and their rate: the netdev's PHY counters (Ethernet), else the RDMA port's (InfiniBand),
 * else mstlink's. */
void hwc_cards_it_errors(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	struct span s = span_of(x);
	const json_t *nd = netdev_of(x, p), *phy = hwc_q_get(p, "phy");
	const json_t *src = nd ? nd : p; /* the netdev's PHY counters, else the RDMA port's */
	const json_t *c = hwc_q_get(src, "counters"), *w = hwc_q_get(src, "counters_window");
	const struct ctr *t = nd ? eth_errors : ib_errors;
	json_t *out = out_obj(x, "errors");
	if (nd)
		vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	size_t start = v->len;
	if (put_ctrs(v, &s, t, c, w, out, 0)) {
		put_span(v, &s, any_nonzero(c, t));
		return;
	}
	put_phy_ctrs(v, phy, phy_errors, out);
	if (v->len > start)
		return;
	v->len = start; /* "p1: " stays: a RoCE LAG port's line names each member */
	v->unknown = true;
	vput(v, "no error counter (%s)",
	     nd ? why(c, "rx_symbol_err_phy") : c ? why(c, "symbol_error") : why(p, "counters"));
}

static const struct ctr eth_flaps[] = {
	{"link_down_events_phy", "link downs"},
	{NULL, NULL},
};
static const struct ctr ib_flaps[] = {
	{"link_downed", "link downed"},
	{"link_error_recovery", "recoveries"},
	{NULL, NULL},
};
static const struct ctr phy_flaps[] = {
	{"link_down_counter", "link downs"},
	{NULL, NULL},
};

/* The netdev's carrier changes (since the netdev was created), with their window delta. */
static bool put_carrier(struct item_val *v, const struct span *s, const json_t *lk, size_t *shown,
			json_t *out)
{
	static const struct ctr cc = {"carrier_changes", "carrier changes"};
	return put_ctr(v, s, &cc, hwc_q_get(lk, "carrier_changes"),
		       hwc_q_get(lk, "carrier_changes_window"), lk, shown, out);
}

/* Flaps: link-down events and carrier changes (Ethernet), link_downed and recoveries (InfiniBand),
 * else mstlink's Link Down Counter. */
void hwc_cards_it_flaps(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	struct span s = span_of(x);
	const json_t *nd = netdev_of(x, p), *lk = hwc_q_netdev_link(nd);
	const json_t *src = nd ? nd : p; /* the netdev's PHY counters, else the RDMA port's */
	const json_t *c = hwc_q_get(src, "counters"), *w = hwc_q_get(src, "counters_window");
	const struct ctr *t = nd ? eth_flaps : ib_flaps;
	json_t *out = out_obj(x, "flaps");
	if (nd)
		vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	size_t start = v->len, shown = put_ctrs(v, &s, t, c, w, out, 0);
	bool any = any_nonzero(c, t);
	if (nd && put_carrier(v, &s, lk, &shown, out))
		any = any || json_number_value(hwc_q_get(lk, "carrier_changes")) > 0;
	if (shown) {
		put_span(v, &s, any);
		return;
	}
	put_phy_ctrs(v, hwc_q_get(p, "phy"), phy_flaps, out);
	if (v->len > start)
		return;
	v->len = start;
	v->unknown = true;
	vput(v, "no link-down counter (%s)",
	     nd ? why(c, "link_down_events_phy") : c ? why(c, "link_downed") : why(p, "counters"));
}

/* A BER as mlxlink's figures go: "2.0e-05"; mlxlink prints 15E-255 where it counted no error.
 * Returns whether it was shown (after sep). */
static bool put_ber(struct item_val *v, const char *sep, const char *label, const json_t *b,
		    json_t *out, const char *key)
{
	if (!json_is_number(b))
		return false;
	double d = json_number_value(b);
	if (d < 1e-200)
		vput(v, "%s%s 0", sep, label);
	else
		vput(v, "%s%s %.1e", sep, label, d);
	if (out)
		json_object_set_new(out, key, json_real(d));
	return true;
}

/* The BER over the watch window (netdevs[].link.ber_window), when the run watched; whether one
 * was shown. */
static bool put_ber_window(struct item_val *v, const struct span *s, const json_t *lk, json_t *out)
{
	if (s->window_s <= 0 || !lk)
		return false;
	const json_t *bw = hwc_q_get(lk, "ber_window");
	const json_t *raw = hwc_q_get(bw, "raw_ber"), *eff = hwc_q_get(bw, "effective_ber");
	if (!json_is_number(raw) && !json_is_number(eff)) {
		vput(v, "; window BER unknown (%s)", bw ? why(bw, "raw_ber") : why(lk, "ber_window"));
		return false;
	}
	json_t *wo = json_object();
	vput(v, "; in the %.1f s window", s->window_s);
	bool r = put_ber(v, " ", "raw BER", raw, wo, "raw_ber");
	put_ber(v, r ? ", " : " ", "effective BER", eff, wo, "effective_ber");
	if (out)
		json_object_set_new(out, "ber_window", wo);
	else
		json_decref(wo);
	return true;
}

/* The line's FEC mode: ethtool's, else mstlink's; NULL with its reason in v when neither. */
static const char *put_fec_mode(struct item_val *v, const json_t *fec, const json_t *phy, json_t *out)
{
	const char *mode = hwc_json_str_or(fec, "active", NULL), *src = "ethtool";
	if (!mode) {
		mode = hwc_json_str_or(phy, "fec", NULL);
		src = "mstlink";
	}
	if (!mode) {
		vput(v, "FEC unknown (%s)", fec ? why(fec, "active") : phy ? why(phy, "fec") : "not collected");
		return NULL;
	}
	vput(v, "FEC %s", mode);
	if (out)
		json_object_set_new(out, "mode", json_pack("{s:s, s:s}", "value", mode, "source", src));
	const json_t *cb = hwc_q_get(fec, "corrected_blocks"), *ub = hwc_q_get(fec, "uncorrectable_blocks");
	if (json_is_number(cb) && json_is_number(ub))
		vput(v, " (blocks corrected %.0f, uncorrectable %.0f)", json_number_value(cb),
		     json_number_value(ub));
	return mode;
}

/* No BER: what the PHY counters say without their window. No bit corrected and none lost is a
 * BER of 0 whatever the window; else the corrected bits, and why there is no ratio. */
static void put_ber_counts(struct item_val *v, const json_t *c, const json_t *ber, const json_t *phy)
{
	const json_t *cb = hwc_q_get(c, "rx_corrected_bits_phy"), *lost = hwc_q_get(c, "rx_pcs_symbol_err_phy");
	const char *no = ber ? why(ber, "raw_ber") : phy ? why(phy, "raw_ber") : "not collected";
	if (json_is_number(cb) && json_is_number(lost) && json_number_value(cb) == 0 && json_number_value(lost) == 0)
		vput(v, ", BER 0 (no bit corrected or lost since boot or the last counter clear)");
	else if (json_is_number(cb))
		vput(v, ", %.0f bits corrected since boot or the last counter clear, BER unknown (%s)", json_number_value(cb), no);
	else
		vput(v, ", BER unknown (%s)", no);
}

/* FEC in use and the BER: ethtool's FEC (mstlink's where ethtool has none), the BER from mstlink
 * (raw and effective, over its counters' window) else ethtool -S's counters over rx_bits_phy,
 * and over the watch window; mstlink's own recommendation when it names an issue. */
void hwc_cards_it_fec(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	struct span s = span_of(x);
	const json_t *nd = netdev_of(x, p), *lk = hwc_q_netdev_link(nd), *phy = hwc_q_get(p, "phy");
	const json_t *ber = hwc_q_get(lk, "ber");
	json_t *out = out_obj(x, "fec");
	if (nd)
		vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	const char *mode = put_fec_mode(v, hwc_q_get(lk, "fec"), phy, out);
	const json_t *raw = hwc_q_get(phy, "raw_ber"), *eff = hwc_q_get(phy, "effective_ber");
	const char *bsrc = "mstlink";
	if (!json_is_number(raw) && !json_is_number(eff)) {
		raw = hwc_q_get(ber, "raw_ber");
		eff = hwc_q_get(ber, "effective_ber");
		bsrc = "ethtool -S";
	}
	bool r = put_ber(v, ", ", "raw BER", raw, out, "raw_ber");
	bool e = put_ber(v, ", ", "effective BER", eff, out, "effective_ber");
	if (r || e)
		vput(v, " (%s)", bsrc);
	else
		put_ber_counts(v, hwc_q_get(nd, "counters"), ber, phy);
	if (out && (r || e))
		json_object_set_new(out, "ber_source", json_string(bsrc));
	bool w = put_ber_window(v, &s, lk, out);
	const char *rec = hwc_json_str_or(phy, "recommendation", NULL);
	if (rec && !strstr(rec, "No issue"))
		vput(v, "; mstlink: %s", rec);
	v->unknown = !mode && !r && !e && !w; /* the text says why each is unknown */
}

/* ---- the module ---------------------------------------------------------------------------- */

/* A reading of the module: its key, its thresholds' key, label, unit, its key in the card's
 * JSON (in the unit shown); mW shown as dBm. */
struct reading {
	const char *key, *th, *label, *unit, *out;
	bool mw;
};

/* The module's "readings" object in the card's JSON. */
static json_t *readings(json_t *out)
{
	json_t *r = json_object_get(out, "readings");
	if (!r && out) {
		r = json_object();
		json_object_set_new(out, "readings", r);
	}
	return r;
}

static double shown_val(double d, bool mw)
{
	return mw ? (d > 0 ? 10 * log10(d) : -INFINITY) : d;
}

/* The lowest and highest of a reading (one number, or one per lane); false when none. */
static bool lane_span(const json_t *r, double *lo, double *hi)
{
	size_t i, n = 0;
	const json_t *e;
	if (json_is_number(r)) {
		*lo = *hi = json_number_value(r);
		return true;
	}
	json_array_foreach(r, i, e) {
		if (!json_is_number(e))
			continue;
		double d = json_number_value(e);
		*lo = n && *lo < d ? *lo : d;
		*hi = n && *hi > d ? *hi : d;
		n++;
	}
	return n > 0;
}

/* min/max (null when not finite: no light), unit and where it stands against the thresholds */
static json_t *reading_json(double lo, double hi, const char *unit, const char *against)
{
	return json_pack("{s:o, s:o, s:s, s:s}", "min", isfinite(lo) ? json_real(lo) : json_null(),
			 "max", isfinite(hi) ? json_real(hi) : json_null(), "unit", unit, "against", against);
}

/* Every lane without bias, Tx and Rx power: dark (hwc_q_lane_dark). */
static bool all_dark(const json_t *m)
{
	size_t n = hwc_q_module_nlanes(m);
	for (size_t i = 0; i < n; i++)
		if (!hwc_q_lane_dark(m, i))
			return false;
	return n > 0;
}

/* The dark lanes, and those of them the live link needs (not measurements: the module rules
 * cannot judge them), as the line says and in the JSON: "lanes 1,2,3,4 dark on the live link". */
static void put_dark(struct item_val *v, const struct hwc_q_lanes *l, const json_t *m, json_t *out)
{
	json_t *dark = json_array(), *unmeasured = json_array();
	size_t n = hwc_q_module_nlanes(m);
	for (size_t i = 0; i < n; i++) {
		if (hwc_q_lane_dark(m, i))
			json_array_append_new(dark, json_integer((json_int_t)i + 1));
		if (hwc_q_lane_needed_dark(l, m, i))
			json_array_append_new(unmeasured, json_integer((json_int_t)i + 1));
	}
	size_t i;
	const json_t *e;
	if (json_array_size(unmeasured)) {
		vput(v, ", %s", json_array_size(unmeasured) == n ? "every lane" : "lanes");
		json_array_foreach(unmeasured, i, e)
			if (json_array_size(unmeasured) < n)
				vput(v, "%s%lld", i ? "," : " ", (long long)json_integer_value(e));
		vput(v, " dark on the live link (no bias, no Tx or Rx power on lanes it needs: not measurements)");
	} else if (json_array_size(dark) && json_array_size(dark) == n) {
		vput(v, ", every lane dark (no bias, no Tx or Rx power: not in use)");
	}
	if (json_array_size(dark))
		json_object_set_new(out, "dark_lanes", dark);
	else
		json_decref(dark);
	if (json_array_size(unmeasured))
		json_object_set_new(out, "unmeasured_lanes", unmeasured);
	else
		json_decref(unmeasured);
}

/* Significant digits of a reading: 3 (41.1 degC, -13.1 dBm), 4 from 1000 on (3230 mV). */
static int prec(double d)
{
	return fabs(d) >= 1000 && isfinite(d) ? 4 : 3;
}

static void put_range(struct item_val *v, const char *label, double lo, double hi, const char *unit)
{
	if (lo == hi)
		vput(v, ", %s %.*g %s", label, prec(lo), lo, unit);
	else
		vput(v, ", %s %.*g..%.*g %s", label, prec(lo), lo, prec(hi), hi, unit);
}

/* Where lo..hi stands against the module's own thresholds (ethtool -m decoding): the alarm or
 * warning it is past, else its warning range. */
static const char *against(char *buf, size_t n, double lo, double hi, const json_t *th, bool mw)
{
	static const struct {
		const char *key, *word;
		bool high;
	} lim[] = {{"high_alarm", "above its high alarm", true}, {"low_alarm", "below its low alarm", false},
		   {"high_warning", "above its high warning", true}, {"low_warning", "below its low warning", false}};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		const json_t *t = hwc_q_get(th, lim[i].key);
		if (!json_is_number(t))
			continue;
		double d = shown_val(json_number_value(t), mw);
		if (lim[i].high ? hi > d : lo < d) {
			snprintf(buf, n, "%s %.*g", lim[i].word, prec(d), d);
			return buf;
		}
	}
	const json_t *lw = hwc_q_get(th, "low_warning"), *hw = hwc_q_get(th, "high_warning");
	if (!json_is_number(lw) || !json_is_number(hw))
		return "no thresholds";
	double l = shown_val(json_number_value(lw), mw), h = shown_val(json_number_value(hw), mw);
	snprintf(buf, n, "warning %.*g..%.*g", prec(l), l, prec(h), h);
	return buf;
}

static void put_eth_readings(struct item_val *v, const struct card_ctx *x, const json_t *nd, const json_t *m, json_t *out)
{
	static const struct reading rd[] = {
		{"temperature_c", "temperature_c", "temperature", "degC", "temperature", false},
		{"voltage_v", "voltage_v", "supply", "V", "supply", false},
		{"tx_bias_ma", "tx_bias_ma", "bias", "mA", "bias", false},
		{"tx_power_mw", "tx_power_mw", "Tx", "dBm", "tx_power", true},
		{"rx_power_mw", "rx_power_mw", "Rx", "dBm", "rx_power", true},
	};
	const json_t *ths = hwc_q_get(m, "thresholds");
	bool dark = all_dark(m);
	for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++) {
		double lo, hi;
		if (!lane_span(hwc_q_get(m, rd[i].key), &lo, &hi) || (dark && i >= 2))
			continue;
		lo = shown_val(lo, rd[i].mw);
		hi = shown_val(hi, rd[i].mw);
		char buf[96];
		const char *a = against(buf, sizeof(buf), lo, hi, hwc_q_get(ths, rd[i].th), rd[i].mw);
		put_range(v, rd[i].label, lo, hi, rd[i].unit);
		vput(v, " (%s)", a);
		json_object_set_new(readings(out), rd[i].out, reading_json(lo, hi, rd[i].unit, a));
	}
	struct hwc_q_lanes l;
	hwc_q_module_lanes(x->facts, nd, m, &l);
	put_dark(v, &l, m, out);
	const json_t *fl = hwc_q_get(m, "flags");
	size_t i, n = json_array_size(fl);
	const json_t *f;
	/* SFF-8636 and CMIS latch their flags (since the last read); SFF-8472's are live status */
	const char *spec = hwc_json_str_or(m, "spec", "");
	json_array_foreach(fl, i, f) {
		if (i < 2)
			vput(v, "%s%s", i ? ", " : strcmp(spec, "SFF-8472") == 0 ? "; flags on now: " : "; latched: ",
			     json_is_string(f) ? json_string_value(f) : "?");
	}
	if (n > 2)
		vput(v, " and %zu more", n - 2);
}

/* mstlink's readings, each with the [low, high] range it prints ([0, 0]: none); the lanes as the
 * decoded module's (put_dark) where the module monitors them. */
static void put_mst_readings(struct item_val *v, const struct card_ctx *x, const json_t *p, const json_t *m, json_t *out)
{
	static const struct reading rd[] = {
		{"temperature_c", "temperature_c_range", "temperature", "degC", "temperature", false},
		{"voltage_mv", "voltage_mv_range", "supply", "mV", "supply", false},
		{"bias_ma", "bias_ma_range", "bias", "mA", "bias", false},
		{"tx_power_dbm", "tx_power_dbm_range", "Tx", "dBm", "tx_power", false},
		{"rx_power_dbm", "rx_power_dbm_range", "Rx", "dBm", "rx_power", false},
	};
	size_t shown = 0;
	double blo = 0, bhi = 0;
	bool monitors = lane_span(hwc_q_get(m, "bias_ma_range"), &blo, &bhi) && blo < bhi, dark = monitors && all_dark(m);
	for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++) {
		double lo, hi, rlo = 0, rhi = 0;
		if (!lane_span(hwc_q_get(m, rd[i].key), &lo, &hi) || (dark && i >= 2))
			continue;
		bool range = lane_span(hwc_q_get(m, rd[i].th), &rlo, &rhi) && (rlo != 0 || rhi != 0);
		if (!range && lo == 0 && hi == 0)
			continue; /* a passive cable's zeros: no diagnostics */
		char buf[96];
		if (range)
			snprintf(buf, sizeof(buf), "%s range %.*g..%.*g", lo < rlo || hi > rhi ? "outside its" : "within its",
				 prec(rlo), rlo, prec(rhi), rhi);
		else
			snprintf(buf, sizeof(buf), "no thresholds");
		put_range(v, rd[i].label, lo, hi, rd[i].unit);
		vput(v, " (%s)", buf);
		json_object_set_new(readings(out), rd[i].out, reading_json(lo, hi, rd[i].unit, buf));
		shown++;
	}
	if (!shown && !dark)
		vput(v, ", no diagnostics");
	if (monitors) {
		struct hwc_q_lanes l;
		hwc_q_port_module_lanes(x->facts, p, m, &l);
		put_dark(v, &l, m, out);
	}
	size_t i;
	const json_t *e;
	size_t los = 0;
	json_array_foreach(hwc_q_get(m, "rx_los"), i, e) {
		if (json_integer_value(e) == 1)
			vput(v, "%s%zu", los++ ? "," : "; Rx LOS latched on lanes ", i + 1);
	}
}

/* "QSFP28" of ethtool's "0x11 (QSFP28)". */
static void put_ident(struct item_val *v, const char *id)
{
	const char *o = id ? strchr(id, '(') : NULL, *c = o ? strchr(o, ')') : NULL;
	if (c)
		vput(v, "%.*s", (int)(c - o - 1), o + 1);
	else
		vput(v, "%s", id ? id : "module");
}

static void put_identity(struct item_val *v, const json_t *m, const char *kind_key, json_t *out)
{
	put_ident(v, hwc_json_str_or(m, "identifier", NULL));
	vput(v, " %s %s", hwc_json_str_or(m, "vendor", "?"), hwc_json_str_or(m, "part_number", "?"));
	const char *kind = hwc_json_str_or(m, kind_key, NULL);
	const json_t *len = hwc_q_get(m, "length_m");
	if (kind)
		vput(v, ", %s", kind);
	if (json_is_number(len) && json_number_value(len) > 0)
		vput(v, ", %g m", json_number_value(len));
	static const char *const keys[] = {"identifier", "vendor", "part_number", NULL};
	for (int k = 0; keys[k]; k++) {
		const json_t *s = hwc_q_get(m, keys[k]);
		json_object_set_new(out, keys[k], json_is_string(s) ? json_deep_copy(s) : json_null());
	}
}

/* The module: its identity and each diagnostic reading against the module's own thresholds:
 * hwcheck's decoding of the EEPROM (ethtool -m), else mstlink's Module Info. */
void hwc_cards_it_module(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const json_t *nd = netdev_of(x, p), *m = hwc_q_netdev_module(nd), *pm = hwc_q_get(p, "module");
	json_t *out = out_obj(x, "module");
	if (nd)
		vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	size_t start = v->len;
	if (json_is_string(hwc_q_get(m, "identifier"))) {
		put_identity(v, m, "media", out);
		json_object_set_new(out, "source", json_string(hwc_json_str_or(m, "source", "ethtool -m")));
		if (json_is_true(hwc_q_get(m, "ddm")))
			put_eth_readings(v, x, nd, m, out);
		else
			vput(v, ", no diagnostics (%s)", json_is_false(hwc_q_get(m, "ddm")) ? "the module has none" : why(m, "ddm"));
		return;
	}
	if (json_is_string(hwc_q_get(pm, "identifier"))) {
		put_identity(v, pm, "cable_type", out);
		json_object_set_new(out, "source", json_string(hwc_json_str_or(hwc_q_get(p, "phy"), "source", "mstlink")));
		put_mst_readings(v, x, p, pm, out);
		return;
	}
	v->len = start;
	v->unknown = true;
	vput(v, "%s", m ? why(m, "identifier") : nd ? why(hwc_q_netdev_link(nd), "module")
						   : pm ? why(pm, "identifier") : why(p, "module"));
}

/* ---- the far end --------------------------------------------------------------------------- */

/* The far end of the cable: the netdev's LLDP neighbour, else the InfiniBand peer with its side's
 * counters (perfquery). Shown, not judged (the link rules name it in their findings); unknown
 * says why (lldpd not running, infiniband-diags absent). */
void hwc_cards_it_far_end(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const json_t *nd = netdev_of(x, p), *lk = hwc_q_netdev_link(nd);
	const json_t *lp = hwc_q_get(lk, "peer"), *ip = hwc_q_get(p, "peer");
	if (json_is_object(lp)) {
		const char *type = hwc_json_str_or(lp, "port_id_type", "");
		const char *port = hwc_json_str_or(lp, "port_id", NULL), *descr = hwc_json_str_or(lp, "port_description", NULL);
		const char *name = hwc_json_str_or(lp, "chassis_name", hwc_json_str_or(lp, "chassis_id", "?"));
		const char *pn = (!port || !strcmp(type, "mac")) && descr ? descr : port ? port : "?";
		vput(v, "<-> %s %s (%s)", name, pn, hwc_json_str_or(lp, "via", "LLDP"));
		const json_t *mfs = hwc_q_get(lp, "max_frame_size");
		if (json_is_integer(mfs))
			vput(v, ", max frame %lld", (long long)json_integer_value(mfs));
		if (x->port_out)
			json_object_set_new(x->port_out, "far_end", json_pack("{s:s, s:s, s:s}", "name", name, "port", pn, "source", "lldp"));
		return;
	}
	if (json_is_object(ip)) {
		const char *name = hwc_json_str_or(ip, "node_description", hwc_json_str_or(ip, "node_guid", "?"));
		const json_t *pn = hwc_q_get(ip, "port"), *lid = hwc_q_get(ip, "lid");
		vput(v, "<-> %s", name);
		if (json_is_integer(pn)) /* no LocalPort: no port to name (never "port 0") */
			vput(v, " port %lld", (long long)json_integer_value(pn));
		vput(v, " (%s", hwc_json_str_or(ip, "node_type", "InfiniBand"));
		if (json_is_integer(lid))
			vput(v, ", LID %lld", (long long)json_integer_value(lid));
		vput(v, ")");
		json_t *o = json_pack("{s:s, s:o, s:s}", "name", name, "port",
				      json_is_integer(pn) ? json_integer(json_integer_value(pn)) : json_null(), "source", "infiniband-diags");
		const json_t *pc = hwc_q_get(ip, "counters");
		struct span none = {0, 0, NULL, NULL};
		size_t at = v->len;
		vput(v, "; its counters: ");
		size_t n = put_ctrs(v, &none, ib_flaps, pc, NULL, NULL, put_ctrs(v, &none, ib_errors, pc, NULL, NULL, 0));
		if (!n) {
			v->len = at;
			vput(v, "; its counters unknown (%s)", why(pc ? pc : ip, pc ? "symbol_error" : "counters"));
		}
		if (x->port_out)
			json_object_set_new(x->port_out, "far_end", o);
		else
			json_decref(o);
		return;
	}
	v->unknown = true;
	vput(v, "%s", nd ? why(lk, "peer") : why(p, "peer"));
}

/* ---- the kernel's own words ---------------------------------------------------------------- */

/* The card's mlx5 events in the kernel log read (since boot where it begins with the boot: its
 * window, hwc_q_klog_window): how many of each kind, and the last one with its time (the rule
 * MLX_KERNEL_EVENTS judges them). */
void hwc_cards_it_kernel_log(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	(void)p;
	const json_t *ev = hwc_q_get(x->ad, "kernel_events"), *e, *last = NULL;
	if (!json_is_array(ev))
		return hwc_cards_unknown(v, x->ad, "kernel_events");
	struct hwc_arena *a = hwc_arena_new();
	const char *since = a ? hwc_q_klog_window(x->facts, a) : "in the kernel log read";
	if (!json_array_size(ev))
		vput(v, "no mlx5 event %s", since);
	else
		vput(v, "%zu mlx5 event%s %s:", json_array_size(ev), json_array_size(ev) == 1 ? "" : "s", since);
	hwc_arena_free(a);
	if (!json_array_size(ev))
		return;
	/* kinds in the order they first appear, each with its count */
	size_t i, j, kinds = 0;
	json_array_foreach(ev, i, e) {
		const char *k = hwc_json_str_or(e, "kind", "?");
		bool seen = false;
		size_t n = 0;
		for (j = 0; j < json_array_size(ev); j++) {
			const char *o = hwc_json_str_or(json_array_get(ev, j), "kind", "?");
			seen = seen || (j < i && !strcmp(o, k));
			n += !strcmp(o, k);
		}
		if (!seen)
			vput(v, "%s %s %zu", kinds++ ? "," : "", k, n);
		last = e;
	}
	const json_t *t = hwc_q_get(last, "time_s");
	vput(v, "; last");
	if (json_is_number(t))
		vput(v, " at %.1f s", json_number_value(t));
	vput(v, ": %s", hwc_json_str_or(last, "message", "?"));
}

/* SPDX-License-Identifier: MIT */
/* The wire side of a ConnectX netdev (issue 14): carrier counters (flaps) from sysfs and the FEC
 * in use with its block counters (ethtool --show-fec, through the runner); and their JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"

static void fail_fec(struct hwc_netdev_fec *fec, const struct hwc_fmeta *m)
{
	fec->configured.m = fec->active.m = *m;
	fec->corrected_blocks.m = fec->uncorrectable_blocks.m = *m;
}

/* The tool's failure as a status: not installed / not in this capture, timeout..., or its own
 * complaint. */
static bool fec_usable(const struct hwc_cmd_result *r, struct hwc_arena *a, const char *cmd,
		       struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK) {
		*why = r->m;
		return false;
	}
	if (r->signal || r->exit_code != 0) {
		size_t n = r->err ? strcspn(r->err, "\n") : 0;
		bool unsup = r->err && (strstr(r->err, "not supported") || strstr(r->err, "Operation not supported"));
		hwc_fmeta_set(why, unsup ? HWC_ST_UNSUPPORTED : HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code,
					       n ? hwc_arena_strndup(a, r->err, n) : "no message"));
		return false;
	}
	return true;
}

/* ethtool -I --show-fec (with the statistics, ethtool >= 5.13); an older ethtool that refuses -I
 * is asked without it. */
static const char *const *fec_argv(struct hwc_arena *a, const char *ifn)
{
	const char **v = hwc_arena_calloc(a, 5, sizeof(*v));
	if (v)
		v[0] = "ethtool", v[1] = "-I", v[2] = "--show-fec", v[3] = ifn;
	return v;
}

void hwc_netdev_link_cmds(struct hwc_arena *a, const char *ifn, const char *const *out[HWC_NETDEV_LINK_CMDS])
{
	out[0] = fec_argv(a, ifn);
	out[1] = hwc_module_argv(a, ifn);
	out[2] = hwc_modes_argv(a, ifn);
}

static void collect_fec(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd)
{
	struct hwc_arena *a = f->arena;
	const char *const *with_i = fec_argv(a, nd->name);
	const char *const plain[] = {"ethtool", "--show-fec", nd->name, NULL};
	const char *const *argv = with_i;
	struct hwc_cmd_result r;
	if (!with_i) {
		struct hwc_fmeta oom = {HWC_ST_UNREADABLE, ENOMEM, "out of memory"};
		fail_fec(&nd->link.fec, &oom);
		return;
	}
	struct hwc_fmeta why;
	hwc_run(e, a, argv, 0, &r);
	bool ok = fec_usable(&r, a, hwc_argv_str(a, argv), &why);
	if (!ok && r.m.st == HWC_ST_OK && why.st != HWC_ST_UNSUPPORTED) {
		argv = plain;
		hwc_run(e, a, argv, 0, &r);
		ok = fec_usable(&r, a, hwc_argv_str(a, argv), &why);
	}
	if (!ok) {
		fail_fec(&nd->link.fec, &why);
		return;
	}
	const char *src = hwc_argv_str(a, argv);
	if (hwc_ethtool_parse_fec(r.out, r.out_len, src, a, &nd->link.fec) < 0)
		hwc_facts_error(f, "netdevs", src, "output not understood (expected 'Active FEC encoding:')");
}

/* ------------------------------------------------------------------ BER from ethtool -S */

/* The counter name of ethtool -S's list in v (the since-boot counters or their window deltas);
 * name is one of hwc_netdev_counter_names. */
static const struct hwc_fu64 *counter(const struct hwc_fu64 v[HWC_NETDEV_NCOUNTERS], const char *name)
{
	for (size_t i = 0; i < HWC_NETDEV_NCOUNTERS; i++)
		if (strcmp(hwc_netdev_counter_names[i], name) == 0)
			return &v[i];
	return NULL;
}

/* Whether bits and num give a ratio; false with the status of the one that does not. A missing
 * window (bits) says so in the caller's words (no_bits). */
static bool ratio_ok(struct hwc_arena *a, const char *no_bits, const struct hwc_fu64 *bits,
		     const struct hwc_fu64 *num, struct hwc_fmeta *why)
{
	if (bits->m.st == HWC_ST_ABSENT && no_bits) {
		hwc_fmeta_set(why, HWC_ST_ABSENT, 0, no_bits);
		return false;
	}
	if (!hwc_ok(*bits)) {
		*why = bits->m;
		return false;
	}
	if (bits->v == 0) {
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      no_bits ? hwc_arena_printf(a, "%s is 0 (no bits received since the counters "
							    "were cleared)", "rx_bits_phy")
				      : "the window holds 0 bits: no ratio");
		return false;
	}
	if (!hwc_ok(*num)) {
		*why = num->m;
		return false;
	}
	return true;
}

/* raw = (corrected + uncorrected bits) / received bits, effective = uncorrected / received, all
 * over the same window: one formula for the counters' own window (since they were last cleared;
 * PRM field descriptions in mstflint's register_access_table.adb; mlx5's counters.rst: "the
 * error rate is rx_pcs_symbol_err_phy divided by rx_bits_phy") and for a --watch window. */
static void ber_ratios(struct hwc_arena *a, const char *no_bits, const struct hwc_fu64 *bits,
		       const struct hwc_fu64 *corr, const struct hwc_fu64 *unc,
		       struct hwc_ff64 *raw, struct hwc_ff64 *eff)
{
	struct hwc_fmeta why;
	if (ratio_ok(a, no_bits, bits, unc, &why))
		HWC_SET(*eff, (double)unc->v / (double)bits->v);
	else
		eff->m = why;
	if (ratio_ok(a, no_bits, bits, corr, &why))
		HWC_SET(*raw, ((double)corr->v + (hwc_ok(*unc) ? (double)unc->v : 0)) / (double)bits->v);
	else
		raw->m = why;
}

void hwc_netdev_ber_since_clear(struct hwc_arena *a, struct hwc_netdev *nd)
{
	struct hwc_netdev_ber *b = &nd->link.ber;
	const struct hwc_fu64 *bits = counter(nd->counters.v, "rx_bits_phy");
	const struct hwc_fu64 *corr = counter(nd->counters.v, "rx_corrected_bits_phy");
	const struct hwc_fu64 *unc = counter(nd->counters.v, "rx_pcs_symbol_err_phy");
	if (!hwc_ok(nd->counters.count)) {
		/* ethtool -S gave nothing: its own status (not installed, timeout, not in this capture) */
		b->source.m = b->raw_ber.m = b->effective_ber.m = nd->counters.count.m;
		return;
	}
	if (corr->m.st == HWC_ST_ABSENT && unc->m.st == HWC_ST_ABSENT)
		HWC_FAIL(b->source, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "ethtool -S %s: no PPCNT physical layer statistical counter "
					     "(rx_corrected_bits_phy, rx_pcs_symbol_err_phy)", nd->name));
	else
		HWC_SET(b->source, hwc_arena_printf(a, "ethtool -S %s: PPCNT physical layer statistical counters, "
						       "since they were last cleared", nd->name));
	ber_ratios(a, hwc_arena_printf(a, "ethtool -S %s: no rx_bits_phy (PPCNT phy_received_bits, not "
					  "exported by mlx5 in the kernels checked): no window for a BER", nd->name),
		   bits, corr, unc, &b->raw_ber, &b->effective_ber);
}

/* The bits a port received in the window: an Ethernet PHY receives at its line rate all the time,
 * idle included, so the nominal rate (sysfs speed, Mb/s) x the window; the signalling rate with
 * its 64b/66b or FEC overhead is a few per cent higher, so the ratio errs high by that much. */
void hwc_netdev_ber_window(struct hwc_arena *a, struct hwc_netdev *nd, double window_s)
{
	struct hwc_netdev_ber_window *b = &nd->link.ber_window;
	const struct hwc_netdev_counters_window *w = &nd->counters_window;
	hwc_fmeta_set(&b->m, HWC_ST_OK, 0, NULL);
	if (!hwc_ok(*w)) {
		b->source.m = b->bits.m = b->raw_ber.m = b->effective_ber.m = w->m;
		return;
	}
	HWC_SET(b->source, hwc_arena_printf(a, "ethtool -S %s: deltas of rx_corrected_bits_phy and "
					       "rx_pcs_symbol_err_phy over the --watch window, over speed x window",
					    nd->name));
	if (!hwc_ok(nd->speed_mbps))
		b->bits.m = nd->speed_mbps.m;
	else if (window_s <= 0)
		HWC_FAIL(b->bits, HWC_ST_INVALID, 0, hwc_arena_printf(a, "window of %g s", window_s));
	else
		HWC_SET(b->bits, (uint64_t)((double)nd->speed_mbps.v * 1e6 * window_s + 0.5));
	ber_ratios(a, NULL, &b->bits, counter(w->v, "rx_corrected_bits_phy"),
		   counter(w->v, "rx_pcs_symbol_err_phy"), &b->raw_ber, &b->effective_ber);
}

void hwc_netdev_read_carrier(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
			     struct hwc_netdev_link *link)
{
	static const char *const files[] = {"carrier_changes", "carrier_up_count", "carrier_down_count"};
	struct hwc_fi64 *dst[] = {&link->carrier_changes, &link->carrier_up_count,
				  &link->carrier_down_count};
	for (size_t i = 0; i < 3; i++) {
		const char *p = hwc_arena_printf(a, "sys/class/net/%s/%s", ifname, files[i]);
		hwc_read_i64(e, p, a, dst[i]);
	}
}

void hwc_netdev_collect_link(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd)
{
	struct hwc_arena *a = f->arena;
	hwc_netdev_read_carrier(e, a, nd->name, &nd->link);
	collect_fec(e, f, nd);
	hwc_netdev_ber_since_clear(a, nd);
	hwc_module_collect(e, f, nd->name, &nd->link.module);
	hwc_netdev_collect_modes(e, f, nd);
}

/* ------------------------------------------------------------------ JSON */

static const struct hwc_jfield fec_f[] = {
	HWC_JF(struct hwc_netdev_fec, configured, HWC_JT_STR),
	HWC_JF(struct hwc_netdev_fec, active, HWC_JT_STR),
	HWC_JF(struct hwc_netdev_fec, corrected_blocks, HWC_JT_U64),
	HWC_JF(struct hwc_netdev_fec, uncorrectable_blocks, HWC_JT_U64),
};
static const struct hwc_jtable fec_t = HWC_JTABLE("netdevs[].link.fec", fec_f, 0);
static const struct hwc_jfield ber_f[] = {
	HWC_JFD(struct hwc_netdev_ber, source, HWC_JT_STR,
		"the counters the ratios come from: ethtool -S IF, PPCNT physical layer statistical counters, "
		"over their own window (since they were last cleared)"),
	HWC_JFD(struct hwc_netdev_ber, raw_ber, HWC_JT_F64,
		"pre-FEC bit error ratio: (rx_corrected_bits_phy + rx_pcs_symbol_err_phy) / rx_bits_phy; null "
		"without rx_bits_phy (no window)"),
	HWC_JFD(struct hwc_netdev_ber, effective_ber, HWC_JT_F64,
		"post-FEC bit error ratio: rx_pcs_symbol_err_phy / rx_bits_phy; null without rx_bits_phy (no "
		"window)"),
};
static const struct hwc_jtable ber_t = HWC_JTABLE("netdevs[].link.ber", ber_f, 0);
static const struct hwc_jfield ber_window_f[] = {
	HWC_JFD(struct hwc_netdev_ber_window, source, HWC_JT_STR,
		"what the ratios come from: the deltas of ethtool -S's PPCNT physical layer statistical "
		"counters between the two --watch samples"),
	HWC_JFD(struct hwc_netdev_ber_window, bits, HWC_JT_U64,
		"the bits the port received in the window: speed_mbps x 1e6 x watch.window_s (an Ethernet "
		"PHY receives at its line rate continuously, idle included; the nominal rate, so the "
		"ratios err high by the line code's overhead, a few per cent); null without a speed"),
	HWC_JFD(struct hwc_netdev_ber_window, raw_ber, HWC_JT_F64,
		"pre-FEC bit error ratio over the window: delta(rx_corrected_bits_phy + "
		"rx_pcs_symbol_err_phy) / bits"),
	HWC_JFD(struct hwc_netdev_ber_window, effective_ber, HWC_JT_F64,
		"post-FEC bit error ratio over the window: delta(rx_pcs_symbol_err_phy) / bits"),
};
static const struct hwc_jtable ber_window_t = HWC_JTABLE("netdevs[].link.ber_window", ber_window_f, 0);
static bool has_carrier_window(const void *base)
{
	return ((const struct hwc_netdev_link *)base)->carrier_changes_window.m.st != HWC_ST_UNSET;
}
static const struct hwc_jfield link_f[] = {
	HWC_JF(struct hwc_netdev_link, carrier_changes, HWC_JT_I64),
	{.key = "carrier_changes_window", .t = HWC_JT_I64,
	 .off = offsetof(struct hwc_netdev_link, carrier_changes_window), .when = has_carrier_window,
	 .doc = "--watch: the increase of carrier_changes between the two samples; null with the "
		"reason where it cannot be had (went backwards); absent without --watch"},
	HWC_JF(struct hwc_netdev_link, carrier_up_count, HWC_JT_I64),
	HWC_JF(struct hwc_netdev_link, carrier_down_count, HWC_JT_I64),
	HWC_JSUB(struct hwc_netdev_link, "fec", fec, HWC_JT_OBJ, fec_t),
	HWC_JSUBD(struct hwc_netdev_link, "ber", ber, HWC_JT_OBJ, ber_t,
		  "bit error ratios from ethtool -S (mlx5's PPCNT counters), where rx_bits_phy gives their window"),
	HWC_JSUBD(struct hwc_netdev_link, "ber_window", ber_window, HWC_JT_GROUP, ber_window_t,
		  "--watch: the bit error ratios over the window between the two samples; absent without --watch"),
	/* the object when the EEPROM was read, else null + why (one reason for the whole module) */
	HWC_JSUB(struct hwc_netdev_link, "module", module, HWC_JT_GROUP, hwc_module_table),
	/* the LLDP neighbour when lldpd heard one, else null + why */
	HWC_JSUB(struct hwc_netdev_link, "peer", peer, HWC_JT_GROUP, hwc_lldp_peer_table),
	/* ethtool IF: the object when it answered, else null + why */
	HWC_JSUB(struct hwc_netdev_link, "modes", modes, HWC_JT_GROUP, hwc_netdev_modes_table),
};
const struct hwc_jtable hwc_netdev_link_table = HWC_JTABLE("netdevs[].link", link_f, 0);

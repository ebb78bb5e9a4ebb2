/* SPDX-License-Identifier: MIT */
/* The physical link (issue 14): symbol errors, flaps and link-integrity errors, judged from the
 * netdev's PHY counters (Ethernet/RoCE) and the IB port counters (InfiniBand), since boot or their
 * last clear. */
#include <math.h>
#include <string.h>

#include "rules/rules-int.h"

/* What the counters count since: ethtool's PPCNT *_phy counters and the IB PortCounters start at
 * the port's last counter clear (perfquery -R, a firmware reset), the netdev's carrier counts at
 * its creation (a driver reload), any of which may come after boot. The uptime is the longest
 * window they can have, so a count over it is the lowest rate they can mean: "at least". */
#define SINCE "since boot or the last counter clear"

/* The uptime in hours, the divisor of the counts' rates; 0 with *why when unknown. */
static double uptime_h(struct hwc_rule_ctx *c, const char **why)
{
	double s = 0;
	int found = hwc_q_find_num(c->facts, "host.kernel.uptime_s", &s, why, c->a);
	if (!found || s <= 0) {
		if (found) /* hwc_q_find leaves "not_collected" in *why on success */
			*why = "invalid: uptime 0";
		return 0;
	}
	return s / 3600.0;
}

/* A rate as the card report prints it ("2731/h", hwc_fmt_per_hour). */
static const char *per_hour(struct hwc_rule_ctx *c, double r)
{
	char buf[48];
	return hwc_arena_strdup(c->a, hwc_fmt_per_hour(buf, sizeof(buf), r));
}

/* "at least 5000/h over the 1 h uptime": the count over the uptime, a lower bound of its rate (SINCE). */
static const char *rate_short(struct hwc_rule_ctx *c, double n, double hours)
{
	if (hours <= 0)
		return "no uptime: rate unknown";
	return hwc_arena_printf(c->a, "at least %s over the %s h uptime", per_hour(c, n / hours),
				fv_fmt_num(c->a, (double)(long long)(hours * 10) / 10));
}

static const char *rate_text(struct hwc_rule_ctx *c, double n, double hours)
{
	if (hours <= 0)
		return "rate unknown (no uptime)";
	return rate_short(c, n, hours);
}

/* The uptime's evidence row: what the rate was divided by, and why that makes it a lower bound. */
static void uptime_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, double hours, const char *upwhy)
{
	hwc_evidence_add(fd, c->a, "host.kernel.uptime_s",
			 hours > 0 ? hwc_arena_printf(c->a, "%s (the rate's divisor: the counters may have been cleared since boot, "
						       "so the rate is at least the count over it)", fv_fmt_num(c->a, hours * 3600))
				   : upwhy,
			 NULL);
}

/* The RDMA ports of every adapter whose link layer is InfiniBand (RoCE ports are judged by
 * their netdev's PHY counters, so that one wire gives one finding). */
#define FOR_IB_PORTS(c, i, ad, j, p)                                                               \
	json_array_foreach(hwc_q_adapters((c)->facts), i, ad) json_array_foreach(                     \
		hwc_q_ports(ad), j, p) if (is_ib(p))

/* Every mlx port that mstlink answered for (without the tool the BER is not known: silent). */
#define FOR_PHY_PORTS(c, i, ad, j, p)                                                              \
	json_array_foreach(hwc_q_adapters((c)->facts), i, ad) json_array_foreach(                     \
		hwc_q_ports(ad), j, p) if (json_is_string(hwc_q_at(p, "phy.source")))

static bool is_ib(const json_t *p)
{
	const char *ll = hwc_q_string(p, "link_layer");
	return ll && strcmp(ll, "InfiniBand") == 0;
}

static const char *ib_subject(struct hwc_rule_ctx *c, const json_t *p)
{
	const json_t *pn = hwc_q_get(p, "port");
	return hwc_arena_printf(c->a, "%s/%lld", hwc_q_string(p, "rdma_device"),
				json_is_integer(pn) ? (long long)json_integer_value(pn) : 1LL);
}

static const char *ib_base(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p)
{
	return hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, hwc_q_string(ad, "bdf")),
				ib_subject(c, p));
}

/* IBA PortCounters saturate at their width (hwc_q_ib_counter_max; 0: a counter of no width). */
static const char *count_text(struct hwc_rule_ctx *c, double v, double max)
{
	return max > 0 && v >= max ? hwc_arena_printf(c->a, "%s (saturated: at least)", fv_fmt_num(c->a, v))
			: fv_fmt_num(c->a, v);
}

/* An evidence row judged against a bound: the row that broke it carries the expectation; one that
 * met it is context beside the rows that failed, and says so instead ("1.67e-14 (meets <= 1e-12)"),
 * so that no passing row reads as a failing one. */
static void evidence_judged(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *fact, const char *observed,
			    const char *expected, bool failed)
{
	if (failed)
		hwc_evidence_add(fd, c->a, fact, observed, expected);
	else
		hwc_evidence_add(fd, c->a, fact, hwc_arena_printf(c->a, "%s (meets %s)", observed, expected), NULL);
}

static bool ib_effective_fires(struct hwc_rule_ctx *c, const json_t *p);

/* The mstlink port of the netdev name that answered key ("phy.raw_ber"), NULL when none did:
 * mstlink comes first, a netdev's ethtool counters judge a port only without it. */
static const json_t *mstlink_port_of(struct hwc_rule_ctx *c, const char *name, const char *key)
{
	const json_t *p = hwc_q_netdev_port(c->facts, name, NULL);
	return p && json_is_number(hwc_q_at(p, key)) ? p : NULL;
}

/* LINK_EFFECTIVE_ERRORS owns the post-FEC errors of an Ethernet port that reports them as bits
 * (mstlink's Effective Physical Errors, ethtool's rx_pcs_symbol_err_phy): one wire, one finding. */
static bool effective_owns(struct hwc_rule_ctx *c, const json_t *nd)
{
	return json_is_number(hwc_q_at(nd, "counters.rx_pcs_symbol_err_phy")) ||
	       mstlink_port_of(c, hwc_q_string(nd, "name"), "phy.effective_errors");
}

static void symbol_netdevs(struct hwc_rule_ctx *c, double hours, const char *upwhy)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		const char *name = hwc_q_string(nd, "name");
		const char *base = fv_netdev_path(c, name);
		double n;
		struct hwc_wnd w;
		if (effective_owns(c, nd))
			continue; /* judged by LINK_EFFECTIVE_ERRORS, with this counter as evidence */
		if (!need_num(c, name, nd, base, "counters.rx_symbol_err_phy", &n))
			continue;
		hwc_wnd_read(c, &w, nd, base, "counters_window.rx_symbol_err_phy", "symbol errors the FEC could not correct");
		/* rx_symbol_err_phy counts what FEC could not correct: frames were lost; any is flagged */
		const struct hwc_wboot b = {
			.fires = n > 0, .rate = hours > 0 ? n / hours : 0,
			.msg = hwc_arena_printf(c->a, "%s symbol errors the FEC could not correct " SINCE " (%s): frames were lost on the wire",
						fv_fmt_num(c->a, n), rate_text(c, n, hours)),
			.text = hwc_arena_printf(c->a, "%s " SINCE " (%s)", fv_fmt_num(c->a, n), rate_short(c, n, hours)),
		};
		struct hwc_finding *fd = hwc_wnd_judge(c, &w, name, 0, &b, NULL);
		if (!fd)
			continue;
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_symbol_err_phy", base), fv_fmt_num(c->a, n), "0");
		uptime_evidence(c, fd, hours, upwhy);
		double cb;
		const char *why;
		if (hwc_q_find_num(nd, "counters.rx_corrected_bits_phy", &cb, &why, c->a))
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_corrected_bits_phy", base), fv_fmt_num(c->a, cb), NULL);
		fv_far_end_netdev(c, fd, nd, base);
	}
}

/* "25 min", "1.5 h": how long ago a counter clear must have been for a count to mean a rate
 * above its limit. */
static const char *ago(struct hwc_rule_ctx *c, double hours)
{
	if (hours < 1)
		return hwc_arena_printf(c->a, "%s min", fv_fmt_num(c->a, ceil(hours * 60)));
	return hwc_arena_printf(c->a, "%s h", fv_fmt_num(c->a, (double)(long long)(hours * 10) / 10));
}

/* Symbol errors whose count over the uptime is within the limit, in a run that did not watch. The
 * count is since boot or the port's last counter clear: over the uptime it is within the limit;
 * over a shorter window (a clear since boot) it is not proven to be. It is above the limit
 * exactly when the clear was less than n / limit hours ago. Not an OK (that would claim a rate
 * nothing measured), not a warning (the common case: nobody cleared them): an info that states the
 * assumption and the window a watch needs to measure the rate. */
static struct hwc_finding *symbol_unproven(struct hwc_rule_ctx *c, const char *subj, double n, double hours, double limit)
{
	if (hours <= 0 || limit <= 0)
		return NULL;
	double need = hwc_wnd_need_s(c, limit);
	struct hwc_finding *fd = hwc_rule_emit_sev(
		c, HWC_SEV_INFO, subj,
		"%s symbol error%s " SINCE ": %s, within %s if nothing cleared the counters since boot, above it if they "
		"were cleared in the last %s (hwcheck reads no time of their last clear)",
		fv_fmt_num(c->a, n), n == 1 ? "" : "s", rate_short(c, n, hours), per_hour(c, limit), ago(c, n / limit));
	fd->fix = hwc_arena_printf(c->a, "None needed where nothing cleared the port's counters since boot (perfquery -R, "
				   "ibdiagnet --pc, mlxlink --pc, a firmware reset). To measure the rate over a known window: "
				   "`hwcheck --watch %s` (or longer).", fv_fmt_num(c->a, need));
	return fd;
}

static void symbol_ib(struct hwc_rule_ctx *c, double hours, const char *upwhy)
{
	double limit = hwc_profile_threshold(c->prof, HWC_T_LINK_SYMBOL_ERRORS_PER_HOUR);
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		double n;
		struct hwc_wnd w;
		if (ib_effective_fires(c, p))
			continue; /* LINK_EFFECTIVE_ERRORS' finding, with this counter (if read) as evidence */
		if (!need_num(c, subj, p, base, "counters.symbol_error", &n))
			continue;
		hwc_wnd_read(c, &w, p, base, "counters_window.symbol_error", "symbol errors");
		const struct hwc_wboot b = {
			.fires = n <= 0 ? 0 : hours <= 0 ? -1 : n / hours > limit, .rate = hours > 0 ? n / hours : 0,
			.msg = hwc_arena_printf(c->a, "%s symbol errors " SINCE ": %s, above %s", count_text(c, n, (double)hwc_q_ib_counter_max("symbol_error")),
						rate_text(c, n, hours), per_hour(c, limit)),
			.text = hwc_arena_printf(c->a, "%s " SINCE " (%s)", count_text(c, n, (double)hwc_q_ib_counter_max("symbol_error")), rate_short(c, n, hours)),
			.unk_fact = "host.kernel.uptime_s", .unk_why = upwhy, .unk_for = "the symbol error rate",
		};
		enum hwc_wact act;
		struct hwc_finding *fd = hwc_wnd_judge(c, &w, subj, limit, &b, &act);
		if (!fd && act == HWC_WA_BOOT && w.s == 0 && b.fires == 0 && n > 0)
			fd = symbol_unproven(c, subj, n, hours, limit);
		if (!fd)
			continue;
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.symbol_error", base), fv_fmt_num(c->a, n),
				 hwc_arena_printf(c->a, "<= %s", per_hour(c, limit)));
		uptime_evidence(c, fd, hours, upwhy);
		fv_far_end_port(c, fd, p, base, "symbol_error");
		if (fd && !hwc_q_string(p, "netdev")) /* an InfiniBand port has no netdev for ethtool -m */
			fd->fix = hwc_fix_subst(c->a, fd->fix, "`ethtool -m <netdev>` / ", "");
	}
}

static void eval_symbol(struct hwc_rule_ctx *c)
{
	const char *upwhy = NULL;
	double hours = uptime_h(c, &upwhy);
	symbol_netdevs(c, hours, upwhy);
	symbol_ib(c, hours, upwhy);
}

/* What the two witnesses of a netdev's flaps count. link_down_events_phy is PPCNT's physical layer
 * link_down_events: "Counts local unintentional drops" (the PRM's phys_layer_cntrs field, as
 * mstflint's tools_layouts/adb/prm/hca/ext/register_access_table.adb has it; Linux's mlx5
 * counters.rst: "the number of times where the link operative state changed to down"): a host's
 * own `ip link set down` is an intended one. The carrier counts every netif_carrier_off/on of
 * the driver: mlx5e_close (ip link set down/up), and mlx5e_switch_priv_channels around an MTU,
 * channel or ring change (ethtool -L/-G) with the link up all along. So the PHY counter is the
 * witness where it is read; the carrier's count only without it, and then it says so. */
#define CARRIER_INCLUDES "it counts host-side restarts too (ip link set down/up, an MTU, channel or ring change); " \
	"no link_down_events_phy here to tell them apart"

/* The fix where only the carrier's count judged (no link_down_events_phy): the drops may be the
 * host's own, so those come first. mlx5_core logs "<netdev>: Link down" only from
 * mlx5e_update_carrier, when the port reports its link down (linux drivers/net/ethernet/mellanox/
 * mlx5/core/en_main.c); mlx5e_close_locked (ip link set down) and mlx5e_switch_priv_channels (an
 * MTU, channel or ring change) drop the carrier without a line, and the open logs "Link up". */
#define CARRIER_FIX                                                                                \
	"First rule out the host's own restarts, which the carrier count includes: the kernel log "  \
	"around the drops (`journalctl -k | grep <netdev>`: mlx5_core logs '<netdev>: Link down' "   \
	"only when the port reported its link down; `ip link set <netdev> down`/`up`, an MTU change " \
	"and `ethtool -L`/`-G` on <netdev> drop the carrier without that line) and what changed the " \
	"netdev's configuration then (a network manager, a container runtime, tuning scripts). "     \
	"The port's own drops: `mstlink -d <BDF> -c` (Link Down Counter). Where the port itself went " \
	"down: check the cable, transceiver and switch port logs; replace the cable if it recurs."

/* The window of a netdev's flaps: the firmware's link-down events, else (unknown) its carrier
 * changes; true when the carrier's. */
static bool flaps_window(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *nd, const char *base)
{
	struct hwc_wnd cc;
	hwc_wnd_read(c, w, nd, base, "counters_window.link_down_events_phy", "link-down events");
	hwc_wnd_read(c, &cc, nd, base, "link.carrier_changes_window", "carrier changes");
	if (!w->why || cc.why)
		return false;
	*w = cc;
	return true;
}

/* Flaps of a netdev: link-down events the firmware counted, else carrier ups after the first. */
static void flaps_netdevs(struct hwc_rule_ctx *c, double max, double hours)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		const char *name = hwc_q_string(nd, "name");
		const char *base = fv_netdev_path(c, name);
		double phy = 0, ups = 0;
		const char *w1 = NULL, *w2 = NULL;
		int k1 = hwc_q_find_num(nd, "counters.link_down_events_phy", &phy, &w1, c->a);
		int k2 = hwc_q_find_num(nd, "link.carrier_up_count", &ups, &w2, c->a);
		if (!k1 && !k2) {
			if (mstlink_port_of(c, name, "phy.link_down_counter"))
				continue; /* judged from mstlink's Link Down Counter (flaps_mstlink) */
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.counters.link_down_events_phy", base), w1,
					 "whether the link went down " SINCE);
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.link.carrier_up_count", base), w2,
					 "whether the link went down " SINCE);
			continue;
		}
		double flaps = k1 ? phy : ups > 1 ? ups - 1 : 0;
		struct hwc_wnd w;
		enum hwc_wact act;
		bool wcarrier = flaps_window(c, &w, nd, base);
		const char *pl = flaps == 1 ? "" : "s";
		const struct hwc_wboot b = {
			.fires = flaps > max, .rate = hours > 0 ? flaps / hours : 0,
			.msg = k1 ? hwc_arena_printf(c->a, "the link went down %s time%s " SINCE, fv_fmt_num(c->a, flaps), pl)
				  : hwc_arena_printf(c->a, "the carrier went down %s time%s since boot or the driver's last load (carrier_up_count after the first; %s)",
						     fv_fmt_num(c->a, flaps), pl, CARRIER_INCLUDES),
			.text = hwc_arena_printf(c->a, "%s %s%s %s (%s)", fv_fmt_num(c->a, flaps), k1 ? "link-down" : "carrier drop", pl,
						 k1 ? SINCE : "since boot or the driver's last load",
						 rate_short(c, flaps, hours)),
		};
		struct hwc_finding *fd = hwc_wnd_judge(c, &w, name, 0, &b, &act);
		if (!fd)
			continue;
		if (act == HWC_WA_LIVE)
			fd->message = wcarrier ? hwc_arena_printf(c->a, "the carrier flapped during the watch: %s (%s)", fd->message, CARRIER_INCLUDES)
					       : hwc_arena_printf(c->a, "the link flapped during the watch: %s", fd->message);
		const char *want = hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, max));
		if (k1)
			evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.counters.link_down_events_phy", base), fv_fmt_num(c->a, phy), want, phy > max);
		if (k2 && k1) /* context: the PHY counter decides */
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.carrier_up_count", base),
					 hwc_arena_printf(c->a, "%s (context: counts host-side restarts too)", fv_fmt_num(c->a, ups)), NULL);
		else if (k2)
			evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.link.carrier_up_count", base), fv_fmt_num(c->a, ups),
					hwc_arena_printf(c->a, "<= %s (the first up is the driver's bring-up)", fv_fmt_num(c->a, max + 1)), ups - 1 > max);
		if (!k1 || (act == HWC_WA_LIVE && wcarrier))
			fd->fix = CARRIER_FIX; /* the carrier judged: the host's own restarts first */
		fv_far_end_netdev(c, fd, nd, base);
	}
}

/* mstlink's Link Down Counter (the port's physical layer link_down_events, PPCNT, since the
 * counters were last cleared: the counter ethtool -S shows as link_down_events_phy) for a port
 * whose flaps no other source counted: no netdev counter, no InfiniBand link_downed. */
static void flaps_mstlink(struct hwc_rule_ctx *c, double max)
{
	size_t i, j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p) {
		double n;
		const char *w = NULL, *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		if (!hwc_q_find_num(p, "phy.link_down_counter", &n, &w, c->a) || n <= max)
			continue;
		if (is_ib(p) && json_is_number(hwc_q_at(p, "counters.link_downed")))
			continue; /* judged from link_downed */
		const json_t *nd = hwc_q_port_netdev(c->facts, p);
		if (json_is_number(hwc_q_at(nd, "counters.link_down_events_phy")) ||
		    json_is_number(hwc_q_at(nd, "link.carrier_up_count")))
			continue; /* judged from the netdev's counters */
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "the link went down %s time%s since its counters were cleared (mstlink Link Down Counter)",
						       fv_fmt_num(c->a, n), n == 1 ? "" : "s");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.link_down_counter", base), fv_fmt_num(c->a, n),
				 hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, max)));
		double t;
		if (hwc_q_find_num(p, "phy.time_since_clear_min", &t, &w, c->a))
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.time_since_clear_min", base), fv_fmt_num(c->a, t), NULL);
		fv_far_end_port(c, fd, p, base, NULL);
	}
}

static void flaps_ib(struct hwc_rule_ctx *c, double max, double hours)
{
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		double n;
		struct hwc_wnd w;
		enum hwc_wact act;
		if (!need_num(c, subj, p, base, "counters.link_downed", &n))
			continue;
		hwc_wnd_read(c, &w, p, base, "counters_window.link_downed", "link_downed events");
		const struct hwc_wboot b = {
			.fires = n > max, .rate = hours > 0 ? n / hours : 0,
			.msg = hwc_arena_printf(c->a, "the link went down %s time%s " SINCE " (link_downed)", count_text(c, n, (double)hwc_q_ib_counter_max("link_downed")), n == 1 ? "" : "s"),
			.text = hwc_arena_printf(c->a, "link_downed %s " SINCE " (%s)", count_text(c, n, (double)hwc_q_ib_counter_max("link_downed")), rate_short(c, n, hours)),
		};
		struct hwc_finding *fd = hwc_wnd_judge(c, &w, subj, 0, &b, &act);
		if (!fd)
			continue;
		if (act == HWC_WA_LIVE)
			fd->message = hwc_arena_printf(c->a, "the link flapped during the watch: %s", fd->message);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.link_downed", base), fv_fmt_num(c->a, n),
				 hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, max)));
		fv_far_end_port(c, fd, p, base, "link_downed");
	}
}

static void eval_flaps(struct hwc_rule_ctx *c)
{
	double max = hwc_profile_threshold(c->prof, HWC_T_LINK_FLAPS_MAX);
	const char *upwhy = NULL;
	double hours = uptime_h(c, &upwhy);
	flaps_netdevs(c, max, hours);
	flaps_mstlink(c, max);
	flaps_ib(c, max, hours);
}

static const char *const integrity_keys[] = {"local_link_integrity_errors", "excessive_buffer_overrun_errors",
					   "link_error_recovery"};

/* What each counter means and what to do about it, in integrity_keys' order (Linux
 * Documentation/ABI/stable/sysfs-class-infiniband, from the IBA PortCounters attribute). */
#define FIX_PHYSICAL "reseat or replace the cable or transceiver of the port, then check the switch port"
static const char *const integrity_fix[][2] = {
	{"local physical errors over the LocalPhyErrors threshold", FIX_PHYSICAL},
	{"a receive buffer overran: a flow-control matter, most often the virtual lanes set up wrong by "
	 "the subnet manager or by hand, rarely hardware or a very poor signal",
	 "check the VL configuration of both ends (the subnet manager's VL and SL settings, VLCap and "
	 "OperationalVLs in `smpquery portinfo`, any manual `ibportstate` change) and the peer port; the "
	 "cable only if symbol errors come with it"},
	{"link retrainings", FIX_PHYSICAL},
};

/* The finding's fix: each counter that counted, its cause and its own fix (one fix said once). */
static void integrity_fix_text(struct hwc_rule_ctx *c, struct hwc_finding *fd, const double *n)
{
	const char *fix = "";
	for (size_t x = 0; x < HWC_ARRAY_SIZE(integrity_keys); x++) {
		if (n[x] <= 0)
			continue;
		bool said = false;
		for (size_t k = 0; k < x; k++)
			said |= n[k] > 0 && integrity_fix[k][1] == integrity_fix[x][1];
		fix = hwc_arena_printf(c->a, "%s%s%s (%s)%s%s", fix, *fix ? "; " : "", integrity_keys[x], integrity_fix[x][0],
				       said ? ": the same" : ": ", said ? "" : integrity_fix[x][1]);
	}
	if (*fix)
		fd->fix = hwc_arena_printf(c->a, "%s. The counters on both ends: `mstlink -d <BDF> -c` here, `perfquery` "
					   "at the peer.", fix);
}

/* The three counters' sum over the window, with the path of the first that moved: unknown when a
 * delta is and none of the known ones moved (a known increase is live whatever the others). */
static void integrity_window(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *p, const char *base)
{
	struct hwc_wnd k;
	const char *why = NULL, *path = NULL, *moved = NULL;
	double sum = 0;
	for (size_t x = 0; x < HWC_ARRAY_SIZE(integrity_keys); x++) {
		hwc_wnd_read(c, &k, p, base, hwc_arena_printf(c->a, "counters_window.%s", integrity_keys[x]), "link integrity errors");
		if (x == 0)
			*w = k;
		if (k.why && !why) {
			why = k.why;
			path = k.path;
		} else if (!k.why) {
			sum += k.d;
			if (k.d > 0 && !moved)
				moved = k.path;
		}
	}
	w->d = sum;
	w->why = moved ? NULL : why;
	w->path = moved ? moved : why ? path : w->path;
}

static void eval_integrity(struct hwc_rule_ctx *c)
{
	const char *upwhy = NULL;
	double hours = uptime_h(c, &upwhy);
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p), *first = NULL, *text = "";
		double n[HWC_ARRAY_SIZE(integrity_keys)] = {0}, sum = 0;
		size_t fi = 0;
		bool known = true;
		for (size_t x = 0; x < HWC_ARRAY_SIZE(integrity_keys); x++) {
			known &= need_num(c, subj, p, base, hwc_arena_printf(c->a, "counters.%s", integrity_keys[x]), &n[x]) != 0;
			if (n[x] <= 0)
				continue;
			sum += n[x];
			text = hwc_arena_printf(c->a, "%s%s%s %s", text, *text ? ", " : "", integrity_keys[x], count_text(c, n[x], (double)hwc_q_ib_counter_max(integrity_keys[x])));
			if (!first) {
				first = integrity_keys[x];
				fi = x;
			}
		}
		struct hwc_wnd w;
		integrity_window(c, &w, p, base);
		const struct hwc_wboot b = {
			.fires = sum > 0 ? 1 : known ? 0 : -1, .rate = hours > 0 ? sum / hours : 0,
			.msg = first ? hwc_arena_printf(c->a, "link integrity errors " SINCE ": %s %s", first,
							count_text(c, n[fi], (double)hwc_q_ib_counter_max(integrity_keys[fi]))) : "",
			.text = hwc_arena_printf(c->a, SINCE ": %s", *text ? text : "none"),
		};
		struct hwc_finding *fd = hwc_wnd_judge(c, &w, subj, 0, &b, NULL);
		if (fd && (fd->severity == HWC_SEV_WARN || fd->severity == HWC_SEV_ERROR))
			integrity_fix_text(c, fd, n);
		for (size_t x = 0; fd && x < HWC_ARRAY_SIZE(integrity_keys); x++)
			if (n[x] > 0)
				hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.%s", base, integrity_keys[x]), fv_fmt_num(c->a, n[x]), "0");
		fv_far_end_port(c, fd, p, base, first);
	}
}

/* ---- FEC and BER (mstlink, ethtool --show-fec) ---------------------------------------------- */

/* The raw (pre-FEC) BER the FEC in use can still correct to the link's target, from the FEC's
 * name as mlxlink prints it; 0 when hwcheck knows no figure for it. */
static double fec_limit(const char *fec, const char **src)
{
	if (strstr(fec, "544")) {
		*src = "RS(544,514) KP4: 2.4e-4 (IEEE 802.3bs/cd PAM4 PMD BER objective at the FEC input)";
		return 2.4e-4;
	}
	if (strstr(fec, "528")) {
		*src = "RS(528,514) KR4: 5e-5 (IEEE 802.3bm 100GBASE-SR4 BER objective with RS-FEC)";
		return 5e-5;
	}
	return 0;
}

/* No FEC a ConnectX runs corrects more raw errors than RS(544,514) (the KP4 code, t = 15 of 544
 * symbols): the RS codes of mlxlink's FEC names have fewer correctable symbols per codeword at
 * the same or shorter length, Firecode corrects one 11-bit burst per 2112-bit block (IEEE 802.3
 * clause 74, the (2112,2080) code ethtool calls BaseR; REAL-DATA.md,
 * "LINK_RAW_BER_HIGH without a figure for the FEC"). */
#define STRONGEST_FEC_LIMIT 2.4e-4

/* The strongest FEC's bound, for a raw BER whose FEC has no figure here (kind: its name as shown)
 * or was not read (kind NULL): one judgement and one wording for mstlink's side (raw_ber_bound)
 * and ethtool's (ber_limits_of). Above margin x STRONGEST_FEC_LIMIT the raw BER is close to the
 * limit of whichever FEC runs (past it above the limit itself); under it only the FEC in use could
 * say more, and without its name that is unknown (bound_unknown_for). */
struct fec_bound {
	double bound; /* margin x STRONGEST_FEC_LIMIT: above it the rule fires */
	const char *kind; /* the FEC's name, or what stands for it when it was not read */
	bool named;
};

static struct fec_bound strongest_bound(const char *kind, double margin)
{
	return (struct fec_bound){STRONGEST_FEC_LIMIT * margin, kind ? kind : "any FEC the port may run", kind != NULL};
}

static bool bound_fires(const struct fec_bound *b, double ber)
{
	return ber > b->bound;
}

/* "past" the FEC's limit itself, "close to" it (past the margin only) */
static const char *ber_how_far(double ber, double limit)
{
	return ber > limit ? "past" : "close to";
}

/* "the limit of LLRS (no figure for it; none corrects more than RS(544,514), 2.4e-4)" */
static const char *bound_limit_text(struct hwc_rule_ctx *c, const struct fec_bound *b)
{
	return hwc_arena_printf(c->a, "the limit of %s (%s; none corrects more than RS(544,514), 2.4e-4)", b->kind,
				b->named ? "no figure for it" : "the FEC in use was not read");
}

/* The evidence's expectation: "<= 2.4e-05 (the strongest FEC, RS(544,514) KP4: 2.4e-4 x margin 0.1)" */
static const char *bound_expect(struct hwc_rule_ctx *c, const struct fec_bound *b, double margin)
{
	return hwc_arena_printf(c->a, "<= %.3g (the strongest FEC, RS(544,514) KP4: 2.4e-4 x margin %s)", b->bound,
				fv_fmt_num(c->a, margin));
}

/* What an unknown under the bound with the FEC not read is needed for, in the profile's margin:
 * "(raw BER 1e-05 is under 2.4e-05, link_raw_ber_margin 0.1 x the strongest FEC's 2.4e-4)". */
static const char *bound_unknown_for(struct hwc_rule_ctx *c, double ber, double margin)
{
	return hwc_arena_printf(c->a, "the limit of the FEC in use (raw BER %.3g is under %.3g, link_raw_ber_margin %s x the strongest "
				"FEC's 2.4e-4)", ber, STRONGEST_FEC_LIMIT * margin, fv_fmt_num(c->a, margin));
}

/* mlxlink's name of an inactive FEC: then the PRM's phy_effective_errors counts every error bit
 * ("not corrected by FEC ... or that FEC is not active") and phy_raw_errors_laneN the same bits
 * (they are the corrected ones only "when FEC is enabled"): raw = effective, LINK_EFFECTIVE_ERRORS'. */
static bool no_fec(const char *fec)
{
	return strstr(fec, "No FEC") || strstr(fec, "No-FEC");
}

/* ---- the same from ethtool -S (netdevs[].link.ber): ports mstlink did not answer for ------- */

/* The limit of ethtool's FEC name at the link's lane rate: RS is RS(544,514) on PAM4 lanes (50G
 * and faster, IEEE 802.3cd/ck) and RS(528,514) on 25G lanes (802.3bm/by); *alt the other one where
 * the lanes are not known and the speed has both (50G: 2x25 or 1x50, 100G: 4x25 or 2x50). */
static double ethtool_fec_limit(const json_t *nd, const char *fec, const char **src, double *alt)
{
	const char *src2;
	double mbps = 0, lanes = 0;
	*alt = 0;
	/* Off/None: every raw error is an effective one (rx_pcs_symbol_err_phy), LINK_EFFECTIVE_ERRORS';
	 * BaseR (Firecode), LLRS: no figure here; ber_limits_of judges them against the strongest FEC's */
	if (strcmp(fec, "RS") != 0 || !json_is_number(hwc_q_get(nd, "speed_mbps")))
		return 0;
	mbps = json_number_value(hwc_q_get(nd, "speed_mbps"));
	if (json_is_number(hwc_q_at(nd, "link.modes.lanes")))
		lanes = json_number_value(hwc_q_at(nd, "link.modes.lanes"));
	double lane = lanes > 0 ? mbps / lanes : (mbps == 25000 ? 25000 : mbps >= 200000 ? 50000 : 0);
	if (lane >= 50000)
		return fec_limit("RS(544,514)", src);
	if (lane > 0)
		return fec_limit("RS(528,514)", src);
	*alt = fec_limit("RS(528,514)", &src2);
	return fec_limit("RS(544,514)", src);
}

/* The limits of a netdev's raw BER (ethtool_fec_limit x margin): lo fires, between lo and hi the
 * lanes decide which RS applies (unknown). A FEC without a figure (BaseR, LLRS) or not read
 * (fec NULL, fwhy why) is judged as on mstlink's side (raw_ber_bound): bound, lo = hi = margin x
 * the strongest FEC's limit. 0 when the FEC is off: every raw error is an effective one. */
struct ber_limits {
	double lo, hi;
	const char *src, *kind, *fec, *fwhy;
	bool bound;
	struct fec_bound sb; /* when bound */
};

static int ber_limits_of(struct hwc_rule_ctx *c, const json_t *nd, double margin, struct ber_limits *l)
{
	double alt = 0, limit = 0;
	*l = (struct ber_limits){0};
	if (!hwc_q_find_str(nd, "link.fec.active", &l->fec, &l->fwhy, c->a))
		l->fec = NULL;
	else if (strcmp(l->fec, "Off") == 0 || strcmp(l->fec, "None") == 0)
		return 0; /* LINK_EFFECTIVE_ERRORS' (rx_pcs_symbol_err_phy) */
	else
		limit = ethtool_fec_limit(nd, l->fec, &l->src, &alt);
	if (limit <= 0) {
		l->bound = true;
		l->sb = strongest_bound(!l->fec ? NULL : strcmp(l->fec, "BaseR") == 0 ? "BaseR (Firecode)" : l->fec, margin);
		l->lo = l->hi = l->sb.bound;
		l->kind = l->sb.kind;
		return 1;
	}
	l->hi = limit * margin;
	l->lo = (alt > 0 && alt < limit ? alt : limit) * margin;
	l->kind = limit >= 2.4e-4 ? "RS(544,514)" : "RS(528,514)";
	return 1;
}

/* "the limit of RS(544,514) (0.00024)", "the limit of LLRS (no figure for it; none corrects ...)" */
static const char *ber_limit_text(struct hwc_rule_ctx *c, const struct ber_limits *l, double margin)
{
	if (!l->bound)
		return hwc_arena_printf(c->a, "the limit of %s (%.3g)", l->kind, l->hi / margin);
	return bound_limit_text(c, &l->sb);
}

/* A BER between the two RS limits while the lanes are unknown: which limit applies is unknown. */
static bool ber_lanes_unknown(struct hwc_rule_ctx *c, const char *name, const char *base, const struct ber_limits *l, double ber)
{
	if (ber <= l->lo || ber > l->hi)
		return false;
	hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.link.modes.lanes", base),
			 "unknown: RS(528,514) on 25G lanes or RS(544,514) on 50G lanes", "which RS FEC's limit applies");
	return true;
}

/* The raw BER of a netdev from its ethtool counters (netdevs[].link.ber, and link.ber_window over
 * a watch), against its FEC. */
static void raw_ber_netdev(struct hwc_rule_ctx *c, const json_t *nd, double margin)
{
	const char *name = hwc_q_string(nd, "name"), *base = fv_netdev_path(c, name), *why;
	double corr, unc = 0, ber = 0, margin_limit;
	struct ber_limits l;
	struct hwc_wnd w;
	enum hwc_wact act;
	if (!json_is_number(hwc_q_at(nd, "counters.rx_corrected_bits_phy")) || mstlink_port_of(c, name, "phy.raw_ber") ||
	    !json_is_number(hwc_q_get(nd, "speed_mbps")))
		return; /* no source, judged from mstlink, or no link */
	corr = json_number_value(hwc_q_at(nd, "counters.rx_corrected_bits_phy"));
	hwc_q_find_num(nd, "counters.rx_pcs_symbol_err_phy", &unc, &why, c->a);
	hwc_wnd_read_ber(c, &w, nd, base, "raw_ber", "raw bit errors");
	bool zero = corr <= 0 && unc <= 0; /* not one bit in error since the clear, whatever its length */
	int kb = zero || hwc_q_find_num(nd, "link.ber.raw_ber", &ber, &why, c->a);
	if (zero && w.s == 0)
		return;
	const char *unk = hwc_arena_printf(c->a, "%s.link.ber.raw_ber", base);
	const char *unk_for = hwc_arena_printf(c->a, "the raw BER of %s corrected bits", fv_fmt_num(c->a, corr));
	if (!kb && w.s == 0) {
		hwc_rule_unknown(c, name, unk, why, unk_for);
		return;
	}
	if (!ber_limits_of(c, nd, margin, &l) || (kb && w.s == 0 && ber_lanes_unknown(c, name, base, &l, ber)) ||
	    (w.s > 0 && !w.why && ber_lanes_unknown(c, name, base, &l, w.d / w.exposure)))
		return;
	if (!l.fec && corr <= 0 && w.s == 0)
		return; /* FEC not read and nothing corrected: every raw error is left, LINK_EFFECTIVE_ERRORS' */
	margin_limit = l.hi / margin;
	double wber = w.s > 0 && !w.why && w.exposure > 0 ? w.d / w.exposure : 0;
	if (l.bound && !l.fec && !(kb && bound_fires(&l.sb, ber)) && !bound_fires(&l.sb, wber) && ((kb && ber > 0) || wber > 0)) {
		/* raw errors under the strongest FEC's bound, since the clear and in any window: the
		 * limit of the FEC in use decides, and it was not read */
		hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.link.fec.active", base), l.fwhy,
				 bound_unknown_for(c, kb && ber > 0 ? ber : wber, margin));
		return;
	}
	bool lanes = kb && ber > l.lo && ber <= l.hi; /* over a watch whose window did not decide */
	if (lanes) {
		unk = hwc_arena_printf(c->a, "%s.link.modes.lanes", base);
		why = "unknown: RS(528,514) on 25G lanes or RS(544,514) on 50G lanes";
		unk_for = "which RS FEC's limit applies";
	}
	const struct hwc_wboot b = {
		.fires = !kb || lanes ? -1 : ber > l.lo, .rate = kb ? ber : 0,
		.msg = hwc_arena_printf(c->a, "raw (pre-FEC) BER %.3g is %s %s", ber, ber_how_far(ber, margin_limit),
					ber_limit_text(c, &l, margin)),
		.text = kb ? hwc_arena_printf(c->a, "raw BER %.3g since the counters were cleared", ber)
			   : hwc_arena_printf(c->a, "raw BER since the counters were cleared unknown (%s)", why),
		.unk_fact = unk, .unk_why = why, .unk_for = unk_for,
	};
	struct hwc_finding *fd = hwc_wnd_judge(c, &w, name, l.lo, &b, &act);
	if (!fd)
		return;
	if (act == HWC_WA_LIVE)
		fd->message = hwc_arena_printf(c->a, "raw (pre-FEC) BER %.3g over the %s s watch window is %s %s", w.d / w.exposure,
					       fv_fmt_num(c->a, w.s), ber_how_far(w.d / w.exposure, margin_limit),
					       ber_limit_text(c, &l, margin));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.ber.raw_ber", base), kb ? hwc_arena_printf(c->a, "%.3g", ber) : why,
			 l.bound ? bound_expect(c, &l.sb, margin)
				 : hwc_arena_printf(c->a, "<= %.3g (%s x margin %s)", l.hi, l.src, fv_fmt_num(c->a, margin)));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_corrected_bits_phy", base), fv_fmt_num(c->a, corr), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.fec.active", base), l.fec ? l.fec : l.fwhy, NULL);
	fv_far_end_netdev(c, fd, nd, base);
}

/* Errors left after FEC on a netdev's ethtool counters: rx_pcs_symbol_err_phy (PPCNT
 * phy_symbol_errors, the bits no FEC corrected), ethtool --show-fec's uncorrectable blocks, the
 * effective BER where rx_bits_phy gives a window; the frames lost (rx_symbol_err_phy) beside. */
static void effective_netdev(struct hwc_rule_ctx *c, const json_t *nd, double max, double hours)
{
	const char *name = hwc_q_string(nd, "name"), *base = fv_netdev_path(c, name), *why = NULL;
	double n, ub = 0, ber = 0, fr = 0, wber;
	struct hwc_wnd w;
	if (!json_is_number(hwc_q_at(nd, "counters.rx_pcs_symbol_err_phy")) || mstlink_port_of(c, name, "phy.effective_errors"))
		return; /* LINK_SYMBOL_ERRORS' (no such counter), or judged from mstlink */
	n = json_number_value(hwc_q_at(nd, "counters.rx_pcs_symbol_err_phy"));
	int has_ub = hwc_q_find_num(nd, "link.fec.uncorrectable_blocks", &ub, &why, c->a);
	int has_ber = hwc_q_find_num(nd, "link.ber.effective_ber", &ber, &why, c->a);
	/* Frames lost to symbol errors are post-FEC errors too, even where the bit counter reads 0
	 * (the two PPCNT groups cleared apart): this rule owns the port, so it must not pass them. */
	const char *frwhy = NULL;
	int has_fr = hwc_q_find_num(nd, "counters.rx_symbol_err_phy", &fr, &frwhy, c->a);
	hwc_wnd_read(c, &w, nd, base, "counters_window.rx_pcs_symbol_err_phy", "bit errors left after FEC");
	const struct hwc_wboot b = {
		.fires = n > 0 || ub > 0 || (has_ber && ber > max) || (has_fr && fr > 0), .rate = hours > 0 ? n / hours : 0,
		.msg = hwc_arena_printf(c->a, "%s bit errors left after FEC (effective BER %s)%s since the port's counters were cleared",
					fv_fmt_num(c->a, n), has_ber ? hwc_arena_printf(c->a, "%.3g", ber) : "unknown: no rx_bits_phy",
					has_fr && fr > 0 ? hwc_arena_printf(c->a, " and %s frames dropped for symbol errors", fv_fmt_num(c->a, fr)) : ""),
		.text = hwc_arena_printf(c->a, "%s since the port's counters were cleared (%s)", fv_fmt_num(c->a, n), rate_short(c, n, hours)),
	};
	struct hwc_finding *fd = hwc_wnd_judge(c, &w, name, 0, &b, NULL);
	if (!fd)
		return;
	const char *bmax = hwc_arena_printf(c->a, "<= %.3g", max);
	evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.counters.rx_pcs_symbol_err_phy", base), fv_fmt_num(c->a, n), "0", n > 0);
	if (has_ber)
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.link.ber.effective_ber", base), hwc_arena_printf(c->a, "%.3g", ber), bmax,
				ber > max);
	else
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.ber.effective_ber", base), why, bmax);
	if (w.s > 0 && hwc_q_find_num(nd, "link.ber_window.effective_ber", &wber, &why, c->a))
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.link.ber_window.effective_ber", base), hwc_arena_printf(c->a, "%.3g", wber),
				bmax, wber > max);
	if (has_ub)
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.link.fec.uncorrectable_blocks", base), fv_fmt_num(c->a, ub), "0", ub > 0);
	if (has_fr && fr > 0)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_symbol_err_phy", base),
				 hwc_arena_printf(c->a, "%s (frames dropped)", fv_fmt_num(c->a, fr)), "0");
	fv_far_end_netdev(c, fd, nd, base);
}

/* A raw BER on a port whose FEC has no figure here (fec: its name) or was not read (fec NULL,
 * fwhy why): past margin x the strongest FEC's limit it is close to the limit of whichever FEC
 * runs; under it, unknown when the FEC was not read, silent for a named one (judged by the
 * effective BER). Without the FEC, an effective BER as high as the raw one says no FEC corrects
 * anything: LINK_EFFECTIVE_ERRORS' finding. */
static void raw_ber_bound(struct hwc_rule_ctx *c, const json_t *p, const char *subj, const char *base,
			  const char *fec, const char *fwhy, double ber, double margin)
{
	double eff = 0;
	const char *ewhy;
	const struct fec_bound sb = strongest_bound(fec, margin);
	int ke = hwc_q_find_num(p, "phy.effective_ber", &eff, &ewhy, c->a);
	if (!bound_fires(&sb, ber)) {
		if (!fec)
			hwc_rule_unknown(c, subj, hwc_arena_printf(c->a, "%s.phy.fec", base), fwhy, bound_unknown_for(c, ber, margin));
		return;
	}
	if (!fec && ke && eff >= ber)
		return; /* nothing corrected: every raw error is left, LINK_EFFECTIVE_ERRORS' */
	struct hwc_finding *fd = hwc_rule_emit(c, subj, "raw (pre-FEC) BER %.3g is %s %s", ber, ber_how_far(ber, STRONGEST_FEC_LIMIT),
					       bound_limit_text(c, &sb));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.raw_ber", base), hwc_arena_printf(c->a, "%.3g", ber),
			 bound_expect(c, &sb, margin));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.fec", base), fec ? fec : fwhy, NULL);
	if (ke)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.effective_ber", base), hwc_arena_printf(c->a, "%.3g", eff), NULL);
	fv_far_end_port(c, fd, p, base, NULL);
}

static void eval_raw_ber(struct hwc_rule_ctx *c)
{
	double margin = hwc_profile_threshold(c->prof, HWC_T_LINK_RAW_BER_MARGIN);
	size_t i, j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p), *fec = NULL, *fwhy = NULL, *src;
		double ber;
		int kf = hwc_q_find_str(p, "phy.fec", &fec, &fwhy, c->a);
		if (!kf && !json_is_number(hwc_q_at(p, "phy.raw_ber"))) {
			need_str(c, subj, p, base, "phy.fec", &fec); /* neither: the FEC's unknown, as ever */
			continue;
		}
		if (!need_num(c, subj, p, base, "phy.raw_ber", &ber) || (kf && no_fec(fec)))
			continue; /* no FEC: judged by LINK_EFFECTIVE_ERRORS */
		double limit = kf ? fec_limit(fec, &src) : 0;
		if (limit <= 0) {
			raw_ber_bound(c, p, subj, base, kf ? fec : NULL, fwhy, ber, margin);
			continue;
		}
		if (ber <= limit * margin)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "raw (pre-FEC) BER %.3g is %s the limit of %s (%.3g)", ber,
						       ber_how_far(ber, limit), fec, limit);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.raw_ber", base), hwc_arena_printf(c->a, "%.3g", ber),
				 hwc_arena_printf(c->a, "<= %.3g (%s x margin %s)", limit * margin, src, fv_fmt_num(c->a, margin)));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.fec", base), fec, NULL);
		fv_far_end_port(c, fd, p, base, NULL);
	}
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd)
		raw_ber_netdev(c, nd, margin);
}

/* The post-FEC errors of an mstlink port: Effective Physical Errors and BER; on a link without
 * FEC the raw errors (per lane) and the raw BER are the same bits (no_fec), and the firmware may
 * leave the effective BER at its zero (15E-255) while the raw one counts them: the larger of the
 * two. 0 when the effective figures are not known. */
struct phy_eff {
	double n, ber, raw_n, raw_ber;
	bool nofec, kn, kb; /* kn, kb: the count, the BER known (an unknown one counts as 0) */
	const char *wn, *wb; /* why the count, the BER is unknown */
};

static int phy_effective(struct hwc_rule_ctx *c, const json_t *p, struct phy_eff *e)
{
	const char *why;
	size_t k;
	const json_t *v;
	memset(e, 0, sizeof(*e));
	e->kn = hwc_q_find_num(p, "phy.effective_errors", &e->n, &e->wn, c->a);
	e->kb = hwc_q_find_num(p, "phy.effective_ber", &e->ber, &e->wb, c->a);
	if (!e->kn && !e->kb)
		return 0;
	const char *fec = hwc_q_string(hwc_q_get(p, "phy"), "fec");
	e->nofec = fec && no_fec(fec);
	if (!e->nofec)
		return 1;
	json_array_foreach(hwc_q_at(p, "phy.raw_errors_per_lane"), k, v)
		e->raw_n += json_is_number(v) ? json_number_value(v) : 0;
	hwc_q_find_num(p, "phy.raw_ber", &e->raw_ber, &why, c->a);
	return 1;
}

static bool phy_effective_fires(const struct phy_eff *e, double max)
{
	return e->n > 0 || e->ber > max || e->raw_n > 0 || e->raw_ber > max;
}

/* An InfiniBand port whose post-FEC errors LINK_EFFECTIVE_ERRORS reports from mstlink: its
 * symbol_error is shown there, and LINK_SYMBOL_ERRORS says nothing more (one wire, one finding). */
static bool ib_effective_fires(struct hwc_rule_ctx *c, const json_t *p)
{
	struct phy_eff e;
	return json_is_string(hwc_q_at(p, "phy.source")) && phy_effective(c, p, &e) &&
	       phy_effective_fires(&e, hwc_profile_threshold(c->prof, HWC_T_LINK_EFFECTIVE_BER_MAX));
}

static void effective_mstlink(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, double max)
{
	const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p), *why;
	double n, ber, sym;
	struct phy_eff e;
	/* either figure past its bound is enough; a clean one beside an unknown one decides nothing */
	if (!phy_effective(c, p, &e) || !phy_effective_fires(&e, max)) {
		if (need_num(c, subj, p, base, "phy.effective_errors", &n))
			need_num(c, subj, p, base, "phy.effective_ber", &ber);
		return;
	}
	n = e.n;
	ber = e.ber;
	bool raw = e.nofec && (e.raw_n > n || e.raw_ber > ber);
	const char *cnt = e.kn || e.raw_n > n ? fv_fmt_num(c->a, e.raw_n > n ? e.raw_n : n) : "an unknown number of";
	struct hwc_finding *fd = hwc_rule_emit(c, subj, "%s errors left after FEC (effective BER %s) since the counters were cleared%s",
					       cnt, e.kb || e.raw_ber > ber ? hwc_arena_printf(c->a, "%.3g", e.raw_ber > ber ? e.raw_ber : ber) : "unknown",
					       e.nofec ? " (no FEC: every raw error is one)" : "");
	const char *bmax = hwc_arena_printf(c->a, "<= %.3g", max);
	if (e.kn)
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.phy.effective_errors", base), fv_fmt_num(c->a, n), "0", n > 0);
	else
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.effective_errors", base), e.wn, "0");
	if (e.kb)
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.phy.effective_ber", base), hwc_arena_printf(c->a, "%.3g", ber), bmax, ber > max);
	else
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.effective_ber", base), e.wb, bmax);
	if (raw) {
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.phy.raw_errors_per_lane", base),
				hwc_arena_printf(c->a, "%s in all", fv_fmt_num(c->a, e.raw_n)), "0", e.raw_n > 0);
		evidence_judged(c, fd, hwc_arena_printf(c->a, "%s.phy.raw_ber", base), hwc_arena_printf(c->a, "%.3g", e.raw_ber), bmax,
				e.raw_ber > max);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.fec", base), hwc_q_string(hwc_q_get(p, "phy"), "fec"), NULL);
	}
	if (fd && is_ib(p) && hwc_q_find_num(p, "counters.symbol_error", &sym, &why, c->a) && sym > 0) {
		fd->message = hwc_arena_printf(c->a, "%s; the port's symbol_error counts %s " SINCE, fd->message,
					       count_text(c, sym, (double)hwc_q_ib_counter_max("symbol_error")));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.symbol_error", base), count_text(c, sym, (double)hwc_q_ib_counter_max("symbol_error")), "0");
	}
	fv_far_end_port(c, fd, p, base, is_ib(p) ? "symbol_error" : NULL);
}

static void eval_effective(struct hwc_rule_ctx *c)
{
	double max = hwc_profile_threshold(c->prof, HWC_T_LINK_EFFECTIVE_BER_MAX);
	size_t i, j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p)
		effective_mstlink(c, ad, p, max);
	const json_t *nd;
	const char *upwhy = NULL;
	double hours = uptime_h(c, &upwhy);
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd)
		effective_netdev(c, nd, max, hours);
}

/* Per-lane rates from 25 Gb/s up need FEC (IEEE 802.3by/cd, IB HDR and faster); 40G (4 x 10G) and
 * 10G do not. */
static bool fec_needed(double mbps)
{
	return mbps >= 25000 && mbps != 40000;
}

static void eval_fec_mode(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		const char *name = hwc_q_string(nd, "name");
		const char *base = fv_netdev_path(c, name), *why, *fec;
		double mbps;
		if (!hwc_q_find_num(nd, "speed_mbps", &mbps, &why, c->a) || !fec_needed(mbps))
			continue; /* no link or a rate without FEC: nothing to judge */
		if (!need_str(c, name, nd, base, "link.fec.active", &fec))
			continue;
		if (strcmp(fec, "Off") != 0 && strcmp(fec, "None") != 0)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, name, "FEC is %s on a %s Mb/s link", fec, fv_fmt_num(c->a, mbps));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.fec.active", base), fec, "RS (or BaseR at 25G)");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.speed_mbps", base), fv_fmt_num(c->a, mbps), NULL);
		fv_far_end_netdev(c, fd, nd, base);
	}
	size_t j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p) {
		const char *fec = hwc_q_string(hwc_q_get(p, "phy"), "fec");
		const char *sp = hwc_q_string(hwc_q_get(p, "phy"), "speed");
		if (!fec || !sp || !strstr(fec, "No FEC") || !(strstr(sp, "HDR") || strstr(sp, "NDR") || strstr(sp, "XDR")))
			continue;
		const char *subj = ib_subject(c, p);
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "no FEC on an %s link", sp);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.fec", ib_base(c, ad, p)), fec, "an RS FEC");
		fv_far_end_port(c, fd, p, ib_base(c, ad, p), NULL);
	}
}

/* The firmware's "no issue" sentence: newer firmware prints it bare, older (a ConnectX-4 of the
 * NVIDIA developer forum, Spectrum switches in the SONiC and Cumulus guides) ends it with a period. */
static bool no_issue(const char *rec)
{
	static const char ok[] = "No issue was observed";
	size_t n = strlen(rec);
	while (n && (rec[n - 1] == '.' || rec[n - 1] == ' '))
		n--;
	return n == sizeof(ok) - 1 && strncmp(rec, ok, n) == 0;
}

static void eval_recommendation(struct hwc_rule_ctx *c)
{
	size_t i, j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p), *rec;
		if (!need_str(c, subj, p, base, "phy.recommendation", &rec) || no_issue(rec))
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "mstlink recommends: %s", rec);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.recommendation", base), rec, "No issue was observed");
		fv_far_end_port(c, fd, p, base, NULL);
	}
}

/* ---- the module's readings as mstlink -m shows them (LINK_MODULE_THRESHOLDS, _RX_POWER_LOW) ---- */

/* mstlink's Module Info of port p when it is the source of the module's readings: hwcheck's own
 * decoding of the netdev's module EEPROM (ethtool -m: alarm and warning thresholds) goes first,
 * mstlink's (the value and the module's alarm range, PDDR module info) serves the rest. */
static const json_t *mst_module(const json_t *facts, const json_t *p)
{
	const json_t *mod = hwc_q_get(p, "module");
	if (!json_is_string(hwc_q_at(p, "phy.source")) || !json_is_object(mod) ||
	    json_is_boolean(hwc_q_get(hwc_q_netdev_module(hwc_q_port_netdev(facts, p)), "ddm")))
		return NULL;
	return mod;
}

/* Module Info to judge: readings, or N/A (unsupported: no DDM, passive copper: nothing to judge). */
static bool mst_judgeable(const json_t *mod)
{
	const char *st = hwc_q_string(hwc_q_unavailable(mod, "temperature_c"), "status");
	return json_is_array(hwc_q_get(mod, "temperature_c")) || (st && strcmp(st, "unsupported") == 0);
}

bool hwc_mst_module_judged(const json_t *facts, const char *netdev)
{
	const json_t *p = hwc_q_netdev_port(facts, netdev, NULL), *mod = p ? mst_module(facts, p) : NULL;
	return mod && mst_judgeable(mod);
}

/* Which sides of a reading's range are judged, and how far inside an edge a warning starts
 * (THRESHOLDS: both sides, a fraction of the range; RX_POWER_LOW: the low side, in dB). */
struct mst_side {
	bool low, high;
	double warn;
	const char *note;
};

static const char *mst_expect(struct hwc_rule_ctx *c, const struct mst_side *sd, double lo, double hi)
{
	if (!sd->high)
		return hwc_arena_printf(c->a, ">= %s dBm, %s dB above the module's low alarm %s", fv_fmt_num(c->a, lo + sd->warn),
					fv_fmt_num(c->a, sd->warn), fv_fmt_num(c->a, lo));
	return hwc_arena_printf(c->a, "within [%s..%s], %s%% of the range inside%s", fv_fmt_num(c->a, lo), fv_fmt_num(c->a, hi),
				fv_fmt_num(c->a, sd->warn * 100), sd->note);
}

static void judge_reading(struct hwc_rule_ctx *c, const char *subj, const char *base, const json_t *mod,
			  const char *key, const struct mst_side *sd, struct hwc_finding **fd)
{
	const json_t *v = hwc_q_get(mod, key);
	const json_t *rg = hwc_q_get(mod, hwc_arena_printf(c->a, "%s_range", key));
	if (!json_is_array(v) || !json_is_array(rg) || json_array_size(rg) != 2)
		return;
	double lo = json_number_value(json_array_get(rg, 0)), hi = json_number_value(json_array_get(rg, 1));
	if (lo >= hi)
		return; /* [0..0]: a module without thresholds (passive copper) */
	double warn = sd->high ? (hi - lo) * sd->warn : sd->warn;
	size_t i;
	const json_t *x;
	bool per_lane = strcmp(key, "temperature_c") != 0 && strcmp(key, "voltage_mv") != 0;
	json_array_foreach(v, i, x) {
		double y = json_number_value(x);
		if (per_lane && hwc_q_lane_dark(mod, i))
			continue; /* not in use; or needed, and then not a measurement (mst_port) */
		bool past = (sd->low && y < lo) || (sd->high && y > hi);
		if (!past && !(sd->low && y < lo + warn) && !(sd->high && y > hi - warn))
			continue;
		const char *what = hwc_arena_printf(c->a, "%s lane %zu = %s, %s the module's alarm range [%s..%s] (mstlink)", key, i,
						    fv_fmt_num(c->a, y), past ? "outside" : "near the edge of", fv_fmt_num(c->a, lo),
						    fv_fmt_num(c->a, hi));
		/* past the range: the rule's severity (error); near an edge: a warning */
		enum hwc_severity sev = past ? c->sev : HWC_SEV_WARN;
		if (!*fd) {
			*fd = hwc_rule_emit_sev(c, sev, subj, "transceiver: %s", what);
		} else if (past && (*fd)->severity != c->sev) {
			(*fd)->severity = c->sev;
			(*fd)->message = hwc_arena_printf(c->a, "transceiver: %s", what);
		}
		hwc_evidence_add(*fd, c->a, hwc_arena_printf(c->a, "%s.module.%s[%zu]", base, key, i), fv_fmt_num(c->a, y),
				 mst_expect(c, sd, lo, hi));
	}
}

/* The readings of one port's Module Info: every one against its range (the Rx power on its high
 * side only) for LINK_MODULE_THRESHOLDS, or the Rx power's low side for LINK_MODULE_RX_POWER_LOW. */
static void mst_port(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, const json_t *mod, bool rx_low)
{
	static const char *const keys[] = {"temperature_c", "voltage_mv", "bias_ma", "tx_power_dbm", "rx_power_dbm"};
	const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
	const json_t *tv;
	if (!mst_judgeable(mod)) {
		/* Module Info not shown (no -m, no module): unknown, unless the port's netdev has
		 * a module EEPROM of its own to say so (its unknown is LINK_MODULE_*'s already) */
		if (!hwc_q_port_netdev(c->facts, p))
			need_val(c, subj, p, base, "module.temperature_c", JSON_ARRAY, NULL, &tv);
		return;
	}
	struct hwc_finding *fd = NULL;
	struct mst_side low = {true, false, hwc_profile_threshold(c->prof, HWC_T_LINK_MODULE_RX_MARGIN_DB), ""};
	const json_t *brg = hwc_q_get(mod, "bias_ma_range");
	if (json_number_value(json_array_get(brg, 0)) < json_number_value(json_array_get(brg, 1))) {
		/* a module with lane monitors (not a passive cable's [0..0]): its dark lanes */
		struct hwc_q_lanes l;
		hwc_q_port_module_lanes(c->facts, p, mod, &l);
		hwc_rule_needed_dark(c, subj, hwc_arena_printf(c->a, "%s.module.bias_ma", base), mod, &l,
				     rx_low ? "the lane's receive power" : "the lane's bias, Tx and Rx power against the module's range");
	}
	if (rx_low)
		judge_reading(c, subj, base, mod, "rx_power_dbm", &low, &fd);
	double margin = hwc_profile_threshold(c->prof, HWC_T_LINK_MODULE_MARGIN);
	for (size_t k = 0; !rx_low && k < HWC_ARRAY_SIZE(keys); k++) {
		bool rx = k + 1 == HWC_ARRAY_SIZE(keys); /* rx_power_dbm: its low side is RX_POWER_LOW's */
		struct mst_side sd = {!rx, true, margin, rx ? " (the low side: LINK_MODULE_RX_POWER_LOW)" : ""};
		judge_reading(c, subj, base, mod, keys[k], &sd, &fd);
	}
	fv_far_end_port(c, fd, p, base, NULL);
}

void hwc_mst_module_readings(struct hwc_rule_ctx *c, bool rx_low)
{
	size_t i, j;
	const json_t *ad, *p, *mod;
	FOR_PHY_PORTS(c, i, ad, j, p)
		if ((mod = mst_module(c->facts, p)))
			mst_port(c, ad, p, mod, rx_low);
}

/* ---- the module's identity as mstlink -m shows it (LINK_MODULE_NOT_ALLOWED) ------------------ */

/* Port p's netdev has a module EEPROM hwcheck decoded (ethtool -m): that decoding names the module. */
static bool ethtool_decoded(const json_t *facts, const json_t *p)
{
	return json_is_object(hwc_q_netdev_module(hwc_q_port_netdev(facts, p)));
}

static bool mst_names(const json_t *mod)
{
	return json_is_string(hwc_q_get(mod, "vendor")) && json_is_string(hwc_q_get(mod, "part_number"));
}

bool hwc_mst_module_named(const json_t *facts, const char *netdev)
{
	const json_t *p = hwc_q_netdev_port(facts, netdev, NULL);
	return p && !ethtool_decoded(facts, p) && mst_names(hwc_q_get(p, "module"));
}

void hwc_mst_module_identities(struct hwc_rule_ctx *c, const char *needed_for, hwc_mst_ident_fn fn)
{
	size_t i, j;
	const json_t *ad, *p, *v;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_foreach(hwc_q_ports(ad), j, p) {
		if (ethtool_decoded(c->facts, p))
			continue;
		const json_t *mod = hwc_q_get(p, "module");
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		if (mst_names(mod))
			fn(c, subj, hwc_arena_printf(c->a, "%s.module", base), mod);
		else if (!hwc_q_port_netdev(c->facts, p) &&
			 need_val(c, subj, p, base, "module.vendor", JSON_STRING, needed_for, &v))
			need_val(c, subj, p, base, "module.part_number", JSON_STRING, needed_for, &v);
	}
}

/* The module's Rx LOS flags (mstlink "Rx LOS [per lane]", read from PDDR's module latched flag
 * info page). They latch (SFF-8636 byte 3, CMIS page 11h byte 147, clear on read): a 1 says the lane lost its input since the flags were last
 * read, not that it has none now. A passive copper cable has no receiver to lose a signal (the
 * corpus' ConnectX-7 NDR DAC reads 1,0,1,1 on a link that then passed ib_send_bw traffic): no
 * meaning. On a port that is down they name the cause (no light or signal from the far end). On
 * an active link they are history that a healthy bring-up leaves too (the same capture), so they
 * say nothing there: flaps are LINK_FLAPS' job, from counters. A port that shuts its own link
 * (self_shut) reports them whatever the far end does: not judged either. Nor a port whose card
 * refused the module (the kernel's 'Cable issue, Unsupported cable'): the cause is named
 * (NET_PORT_DOWN), and the far end may be dark for the same reason (a real ConnectX-4 port that
 * refused its Finisar 100G-CWDM4 received no light, and 0.9 mW on every lane once the author
 * had reprogrammed 'the transceivers' and the card took them: robinchrist in
 * tests/link/REAL-DATA.md), so the flags send no one to the fibre. */
/* The PM FSM states (mstflint mlxlink's names) of a port that keeps its own link shut: disabled,
 * closing, its PLL or receiver off, asleep. Its module reports Rx LOS whatever the far end sends
 * (a real AOC on a port brought down by its own side: Rx LOS on every lane, see
 * tests/link/REAL-DATA.md), so the flags say nothing of the far end there. */
static bool self_shut(const char *st)
{
	static const char *const shut[] = {"Disable", "Close port", "Port PLL Down", "Sleep", "Rx disable"};
	for (size_t i = 0; i < sizeof(shut) / sizeof(shut[0]); i++)
		if (strcmp(st, shut[i]) == 0)
			return true;
	return false;
}

static void judge_los(struct hwc_rule_ctx *c, const char *subj, const char *base, const json_t *p,
		      const json_t *mod)
{
	const char *lanes = "", *ct = hwc_q_string(mod, "cable_type"), *st;
	size_t i;
	const json_t *x;
	json_array_foreach(hwc_q_get(mod, "rx_los"), i, x)
		if (json_integer_value(x) == 1)
			lanes = hwc_arena_printf(c->a, "%s%s%zu", lanes, *lanes ? "," : "", i);
	if (!*lanes || (ct && strstr(ct, "Passive copper")))
		return;
	if (hwc_q_netdev_module_refused(hwc_q_port_netdev(c->facts, p)))
		return; /* the card refused the module: NET_PORT_DOWN's finding, whatever light arrives */
	if (!need_str(c, subj, p, base, "phy.state", &st) || strcmp(st, "Active") == 0 || self_shut(st))
		return;
	struct hwc_finding *fd = hwc_rule_emit_sev(c, HWC_SEV_WARN, subj, "the port is %s and its module reports Rx loss of signal on "
						   "lane %s: no light or signal arrives from the far end (its transmitter, the fibre or cable, "
						   "or this module's receiver)", st, lanes);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.module.rx_los", base),
			 hwc_arena_printf(c->a, "1 on lane %s", lanes), "0 on every lane");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.state", base), st, NULL);
	if (ct)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.module.cable_type", base), ct, NULL);
	fv_far_end_port(c, fd, p, base, NULL);
}

static void eval_module(struct hwc_rule_ctx *c)
{
	size_t i, j;
	const json_t *ad, *p;
	FOR_PHY_PORTS(c, i, ad, j, p) {
		const json_t *mod = hwc_q_get(p, "module");
		if (json_is_object(mod))
			judge_los(c, ib_subject(c, p), ib_base(c, ad, p), p, mod);
	}
}

/* ---- the kernel's mlx5 events since boot ----------------------------------------------------- */

static bool event_counts(const json_t *ev)
{
	const char *kind = hwc_q_string(ev, "kind");
	const char *msg = hwc_q_string(ev, "message");
	if (!kind || strcmp(kind, "module_unplugged") == 0)
		return false; /* a cable pulled for maintenance is not a fault */
	/* failed register reads of a restricted PF come from counter readers, not from the card */
	return !(strcmp(kind, "command_error") == 0 && msg && strstr(msg, "ACCESS_REG(0x805)"));
}

/* Where the kernel log read begins (host.kernel.log_start_s), the window of its events: 0 is the
 * boot's (hwc_q_klog_window's "since boot"). */
static void klog_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd)
{
	double s;
	const char *why = NULL;
	if (hwc_q_find_num(c->facts, "host.kernel.log_start_s", &s, &why, c->a))
		hwc_evidence_add(fd, c->a, "host.kernel.log_start_s", fv_fmt_num(c->a, s),
				 s == 0 ? NULL : "0 (the log holds the boot's first lines)");
	else
		hwc_evidence_add(fd, c->a, "host.kernel.log_start_s", hwc_arena_printf(c->a, "unknown (%s)", why), NULL);
}

static void eval_kernel_events(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		const char *base = fv_adapter_path(c, bdf);
		const json_t *v;
		if (!need_val(c, bdf, ad, base, "kernel_events", JSON_ARRAY, "whether the kernel logged mlx5 faults since boot", &v))
			continue;
		const char *since = hwc_q_klog_window(c->facts, c->a);
		struct hwc_finding *fd = NULL;
		const char *seen = "";
		size_t k;
		const json_t *ev;
		bool fatal = false; /* the card stopped answering: an error, not a warning */
		json_array_foreach(v, k, ev) fatal |= event_counts(ev) && !strcmp(hwc_q_string(ev, "kind"), "fatal");
		json_array_foreach(v, k, ev) {
			const char *kind = hwc_q_string(ev, "kind");
			if (!event_counts(ev) || strstr(seen, kind))
				continue; /* one line of evidence per kind: the first */
			seen = hwc_arena_printf(c->a, "%s%s%s", seen, *seen ? ", " : "", kind);
			if (!fd) {
				fd = hwc_rule_emit_sev(c, fatal ? HWC_SEV_ERROR : HWC_SEV_WARN, bdf, "the kernel logged mlx5 faults %s", since);
				klog_evidence(c, fd);
			}
			const json_t *t = hwc_q_get(ev, "time_s");
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.kernel_events[%zu]", base, k),
					 hwc_arena_printf(c->a, "%s at %s s: %s", kind, json_is_number(t) ? fv_fmt_num(c->a, json_number_value(t)) : "?",
							  hwc_q_string(ev, "message")),
					 "no fault");
		}
		if (fd)
			fd->message = hwc_arena_printf(c->a, "the kernel logged mlx5 faults %s: %s", since, seen);
	}
}

/* What "since boot" means for the counters these rules read (SINCE), in each one's explanation. */
#define COUNTS_SINCE                                                                               \
	"Counts are since boot or the port's last counter clear, which may be later: ethtool's PPCNT " \
	"counters (*_phy) and the IB PortCounters restart at a clear (perfquery -R, a firmware "      \
	"reset), the netdev's carrier counts at a driver reload. A rate divides the count by the "    \
	"uptime (host.kernel.uptime_s), the longest window it can have, so it is a lower bound "      \
	"(\"at least\"); --watch SEC measures one over a known window."

/* How the rate rules judge a `--watch SEC` run (link_window.c), in each one's explanation. */
#define WATCH_TEXT                                                                                 \
	" With --watch SEC the counter's delta over the watch window (facts.watch.window_s) decides: " \
	"any error in the window (a rate above the limit where the rule has one) is live. A window "  \
	"that saw none rules out only the rates it would have seen at link_watch_confidence "         \
	"(default 95 %: -ln(0.05) = 3 errors over the window, the zero-error bound of a BER test, "    \
	"Maxim, J. Redd 2000): a 10 s window sees 1078/h and more. Too short for the limit on ports "   \
	"that are fine since boot (or the last counter clear), it says so once per run (one info, "    \
	"subject host, naming the ports and the window that would do; each port's window is its "      \
	"evidence) and the count since boot decides. A count since boot that fires "                   \
	"while the window would have seen its rate and saw none is history (info), not a warning; "    \
	"when the window is too short to see the rate since boot, the since-boot warning stands and "  \
	"says so. A null delta (a counter cleared or saturated between the samples, a failed sample) " \
	"makes the window unknown, never a pass. Otherwise one finding per port; mstlink's counters "  \
	"are read once, judged since their clear."

const struct hwc_rule hwc_rules_link[] = {
	{"LINK_SYMBOL_ERRORS", HWC_SEV_WARN, "link", "Symbol errors on the wire",
	 "Ethernet/RoCE: rx_symbol_err_phy counts frames dropped for symbols the FEC could not correct, "
	 "so every one is a lost frame (mlx5 counters.rst); any is flagged. A port that also reports "
	 "its post-FEC errors as bits (ethtool's rx_pcs_symbol_err_phy, or mstlink's Effective Physical "
	 "Errors) is left to LINK_EFFECTIVE_ERRORS, which shows this counter beside them: one wire, one "
	 "finding. InfiniBand: symbol_error above "
	 "link_symbol_errors_per_hour (default 120/h: the IBTA 1e-12 BER basis, as used by NVSentinel's "
	 "link counter design and Oracle's InfiniBand documentation). On an InfiniBand port where "
	 "LINK_EFFECTIVE_ERRORS reports mstlink's effective errors, that finding shows symbol_error and "
	 "this rule stays silent: both count the errors the receiver's correction left (NVIDIA's "
	 "ibdiagnet manual: on HDR/NDR the symbol errors, on EDR the effective errors, are the errors "
	 "the application sees after correction), in different units (IBA PortCounters "
	 "SymbolErrorCounter events, 16 bits, since boot or the last clear; PPCNT phy_effective_errors bits, since "
	 "mstlink's counters were cleared); where mstlink shows none, its window may have been "
	 "cleared since, so symbol_error above the rate is still this rule's. Such errors cost NCCL bandwidth "
	 "and grow into flaps. " COUNTS_SINCE WATCH_TEXT " A count whose rate over the uptime is within "
	 "the limit proves nothing about the rate if the counters were cleared since boot: over the "
	 "shorter window since that clear it is above the limit exactly when the clear was less than "
	 "count / limit hours ago. So in a run that did not watch, such a port is not OK but an info "
	 "that states the assumption (within the limit if nothing cleared the counters since boot), "
	 "that bound, and the --watch length that measures the rate (-ln(1 - link_watch_confidence) x "
	 "3600 / limit s: 90 s at the defaults); a count of 0 is 0 over any window, OK. mlx5_ib answers "
	 "the IB PortCounters from the firmware's PPCNT register (drivers/infiniband/hw/mlx5/mad.c, "
	 "process_pma_cmd), keeping no count of its own, so no driver or netdev load time bounds them "
	 "better than the uptime; what clears them (perfquery -R, ibdiagnet --pc, mlxlink --pc, a "
	 "firmware reset) leaves no time hwcheck reads.",
	 "Reseat or replace the cable/transceiver of the port (then the switch port); check the module "
	 "and the counters (`ethtool -m <netdev>` / `mstlink -d <BDF> -m -c`) and watch them again.",
	 eval_symbol},
	{"LINK_FLAPS", HWC_SEV_WARN, "link", "Link went down since boot or the last counter clear",
	 "link_down_events_phy (firmware), else the netdev's carrier ups after the first, or IB "
	 "link_downed above link_flaps_max (default 0): every flap tears down RDMA connections and "
	 "stalls collective jobs. link_down_events_phy is PPCNT's physical layer link_down_events, "
	 "which counts the port's unintended drops only (the PRM field's text in mstflint's register "
	 "layouts): where it is read it decides, and the carrier count is shown beside it. The "
	 "carrier also drops and returns for host-side restarts: mlx5 turns it off and on for ip "
	 "link set down/up and around an MTU, channel or ring change with the link up all along "
	 "(mlx5e_close, mlx5e_switch_priv_channels); where only the carrier is known the finding "
	 "says so, and its fix first rules out the host's own restarts (the kernel log: mlx5_core logs "
	 "the netdev's 'Link down' only when the port reported its link down, mlx5e_update_carrier; ip "
	 "link set down/up, MTU, channel and ring changes drop the carrier without it), then the cable. Where none of these is "
	 "known for a port (no netdev counters, no link_downed), mstlink's Link Down Counter (the "
	 "same PPCNT physical layer link_down_events, counted since its counters were last cleared). "
	 "In the watch window: link_down_events_phy's delta, else carrier_changes' (netdevs[].link."
	 "carrier_changes_window), or link_downed's: any is a live flap. " COUNTS_SINCE WATCH_TEXT,
	 "Check the cable, transceiver and switch port logs; replace the cable if it recurs (the "
	 "port's link-down and error counters: `mstlink -d <BDF> -c`).",
	 eval_flaps},
	{"LINK_INTEGRITY_ERRORS", HWC_SEV_WARN, "link", "InfiniBand link integrity errors",
	 "Three IBA PortCounters, each its own cause (Linux Documentation/ABI/stable/"
	 "sysfs-class-infiniband): local_link_integrity_errors counts the times the port's local "
	 "physical errors passed the LocalPhyErrors threshold and link_error_recovery the link's "
	 "retrainings, both physical-layer faults (cable, module, connector); "
	 "excessive_buffer_overrun_errors counts input buffer overruns, which that text puts on a port "
	 "misconfigured by the subnet manager or by hand first (virtual-lane buffers and credits: a "
	 "flow-control matter, not a cable's), hardware or extremely poor signal integrity second. Any "
	 "since boot or the last counter clear is flagged (NVSentinel's link counter design treats the first two as fatal to a "
	 "running job), and the finding's fix follows the counters that counted. The window judges "
	 "the three deltas' sum. " COUNTS_SINCE WATCH_TEXT,
	 "Per counter: local_link_integrity_errors or link_error_recovery: " FIX_PHYSICAL "; "
	 "excessive_buffer_overrun_errors: check the VL configuration of both ends (the subnet "
	 "manager's VL and SL settings, VLCap and OperationalVLs in `smpquery portinfo`, any manual "
	 "`ibportstate` change) and the peer port, the cable only if symbol errors come with it. The "
	 "counters on both ends: `mstlink -d <BDF> -c` here, `perfquery` at the peer.",
	 eval_integrity},
	{"LINK_RAW_BER_HIGH", HWC_SEV_WARN, "link", "Pre-FEC BER close to the FEC's limit",
	 "The raw physical BER against what the FEC in use can correct, from mstlink's Raw Physical BER, "
	 "or, for an Ethernet port mstlink did not answer for, from ethtool -S: (rx_corrected_bits_phy "
	 "+ rx_pcs_symbol_err_phy) / rx_bits_phy, the PPCNT physical layer statistical counters' "
	 "corrected, uncorrected and received bits over their common window (since they were last "
	 "cleared; mlx5 counters.rst; with FEC on the raw errors are the corrected ones, PRM "
	 "phy_raw_errors_laneN); ethtool's RS is RS(544,514) on 50G-and-faster (PAM4) lanes and "
	 "RS(528,514) on 25G lanes, unknown between the two where the lanes are not known; with FEC "
	 "off (ethtool's Off/None, mlxlink's No FEC) every raw error is an effective one (PRM: "
	 "phy_raw_errors_laneN are the corrected bits only 'when FEC is enabled', phy_effective_errors "
	 "counts the bits 'not corrected by FEC ... or that FEC is not active'), so such a port is "
	 "LINK_EFFECTIVE_ERRORS' (one wire, one finding). Without "
	 "rx_bits_phy (mainline mlx5 exports none) there is no window: unknown, except that no bit "
	 "in error at all is a BER of 0. Limits: RS(544,514) 2.4e-4 "
	 "(IEEE 802.3bs/cd), RS(528,514) 5e-5 (IEEE 802.3bm 100GBASE-SR4); flagged above link_raw_ber_margin (default 0.1: within a decade) of it, before the "
	 "FEC cliff turns it into loss. mstlink's other FECs (the low-latency RS(271,257) and "
	 "RS(272,257+1), Mellanox's RS(277,257) and RS(163,155), Firecode, ZLF), and a port whose FEC "
	 "was not read (an InfiniBand port's mstlink answer without its FEC line, ibdiagnet's BER "
	 "tables), have no published limit; none corrects more than RS(544,514) (t = 15 symbols of "
	 "544; the RS codes' own (n,k) give fewer correctable symbols per codeword at the same or a "
	 "shorter length, and under random errors each fails at a lower raw BER than KP4 at 2.4e-4: "
	 "RS(528,514) 2.2e-5, RS(271,257) and RS(272,257+1) 4e-5, RS(277,257) 1.4e-4, RS(163,155) "
	 "4.9e-6, per bit as often as KP4 at 2.4e-4; Firecode, IEEE 802.3 clause 74's (2112,2080) "
	 "code, corrects one burst of up to 11 bits per 2112-bit block, so under random errors any two "
	 "errors more than 11 bits apart defeat it: it fails as often as KP4 at 2.4e-4 near 4e-10; ZLF's "
	 "code is not published and is assumed no stronger), so a raw BER above the margin "
	 "of RS(544,514)'s 2.4e-4 is close to the limit of whichever runs and warns; under it such a "
	 "port is judged by the effective BER only (a named FEC: silent here; a FEC not read: unknown). "
	 "ethtool's side is judged alike: BaseR (Firecode), LLRS (the low-latency RS(272,257+1)) and a "
	 "FEC that ethtool --show-fec did not give against the same bound, and a FEC not read with not "
	 "one corrected bit leaves its errors to LINK_EFFECTIVE_ERRORS. "
	 "Where the FEC was not read and the effective BER is as high as the raw one, nothing is "
	 "corrected: LINK_EFFECTIVE_ERRORS' finding. Without mstlink and without ethtool's corrected bits the rule cannot see the BER "
	 "and says nothing (LINK_SYMBOL_ERRORS still sees post-FEC loss in ethtool's counters). "
	 "Sources checked: the "
	 "PMD BER of 2.4e-4 is 802.3bs/cd's for RS(544,514) PAM4 PMDs (its designed pre-FEC operating "
	 "point), 5e-5 802.3bm clause 95's for 100GBASE-SR4 with RS(528,514); both FECs deliver 1e-12 "
	 "or better after correction (Intel AN 846 on 802.3bj clause 91 KR4/KP4). With --watch an "
	 "Ethernet port's BER over the window (netdevs[].link.ber_window.raw_ber: the corrected and "
	 "uncorrected bits' delta over line rate x window_s, as mlxlink computes its BER from the "
	 "time since the clear and the lane rate) is judged against the same limits, so the rule no "
	 "longer needs rx_bits_phy; a window that saw no bit in error sees BERs of 3 / its bits and "
	 "more." WATCH_TEXT,
	 "Clean or replace the cable/transceiver (then the switch side); one bad lane points at the "
	 "cable or module (the per-lane errors: `mstlink -d <BDF> -c`).",
	 eval_raw_ber},
	{"LINK_EFFECTIVE_ERRORS", HWC_SEV_WARN, "link", "Errors left after FEC",
	 "Effective (post-FEC) errors: any is flagged, and an effective BER above "
	 "link_effective_ber_max (default 1e-12, the IBTA / IEEE 802.3 link objective, and the "
	 "default BER threshold of NVIDIA's ibdiagnet): these are "
	 "corrupted frames the FEC could not repair. Sources, in order: mstlink's Effective Physical "
	 "Errors and BER (either past its bound is enough, the other may be unknown; a clean one beside "
	 "an unknown one is unknown); else, on an Ethernet port, ethtool -S's rx_pcs_symbol_err_phy (symbols 'not "
	 "corrected by FEC, or FEC not active', mlx5 counters.rst): PPCNT phy_symbol_errors, error "
	 "bits 'not corrected by phy correction mechanisms (FEC + PLR)' (PRM), the very field "
	 "pre-16nm mlxlink prints as Effective Physical Errors; newer mlxlink prints "
	 "phy_effective_errors, bits 'not corrected by FEC or FEC not active': the two differ only "
	 "on a link running physical layer retransmission (the PRM's '+ PLR' FEC modes), where "
	 "phy_symbol_errors counts what FEC and PLR together left. With it, ethtool --show-fec's "
	 "uncorrectable blocks, and the effective BER "
	 "rx_pcs_symbol_err_phy / rx_bits_phy where the driver reports rx_bits_phy (unknown "
	 "otherwise: the count still fires). This rule owns the post-FEC errors of such a port: the "
	 "frames they cost (rx_symbol_err_phy) are its evidence (and fire it alone where the bit "
	 "counter reads 0: the port still dropped frames), and LINK_SYMBOL_ERRORS stays silent "
	 "there (one wire, one finding). Without FEC (mlxlink's No FEC) the raw errors per lane and "
	 "the raw BER are the same bits as the effective ones (PRM phy_effective_errors: 'or that FEC "
	 "is not active'); the larger of the two is judged here, and LINK_RAW_BER_HIGH leaves such a "
	 "port alone. On an InfiniBand port this finding also shows the port's symbol_error, and "
	 "LINK_SYMBOL_ERRORS says nothing more. In the watch window: rx_pcs_symbol_err_phy's delta, with "
	 "link.ber_window.effective_ber beside it." WATCH_TEXT,
	 "Replace the cable/transceiver of the port; check the switch port's counters too.",
	 eval_effective},
	{"LINK_FEC_MODE", HWC_SEV_WARN, "link", "FEC off on a link that needs it",
	 "Links with 25 Gb/s lanes and faster (25/50/100/200/400GbE, IB HDR/NDR/XDR) rely on FEC "
	 "(IEEE 802.3by/cd; IBTA): without it the raw BER of the lanes reaches the host as loss. "
	 "ethtool --show-fec's active encoding (Off/None), or mstlink's No FEC on an HDR-class port.",
	 "`ethtool --set-fec <netdev> encoding auto` (or rs), matching the switch port's FEC setting.",
	 eval_fec_mode},
	{"LINK_TOOL_RECOMMENDATION", HWC_SEV_WARN, "link", "mstlink reports a link issue",
	 "mstlink's Troubleshooting Info: the firmware's own diagnosis of the port (anything but "
	 "\"No issue was observed\", which older firmware ends with a period), e.g. bad signal "
	 "integrity or a cable it does not support.",
	 "Follow the recommendation (the module and the counters: `mstlink -d <BDF> -m -c`).",
	 eval_recommendation},
	{"LINK_MODULE_DIAGNOSTICS", HWC_SEV_WARN, "link", "Transceiver reports Rx loss of signal on a port that is down",
	 "mstlink's Module Info, Rx LOS per lane: the flags latch until read (SFF-8636 byte 3, CMIS 5.2 "
	 "page 11h byte 147 'Latched Rx LOS Flag', clear on read): on a port that is not active a set "
	 "flag names the cause (warn: no light or signal from the far end), unless the port shuts its "
	 "own link (mstlink State Disable, Close port, Port PLL Down, Sleep, Rx disable: a real AOC "
	 "reads Rx LOS on every lane once its own port is brought down, whatever the far end sends) "
	 "or its card refused the module (the kernel's 'Cable issue, Unsupported cable', NET_PORT_DOWN's "
	 "finding: the far end may be dark for the same reason, as a real ConnectX-4 port that refused "
	 "a Finisar 100G-CWDM4 received no light until the modules were reprogrammed and accepted); "
	 "on an active link it is "
	 "history a normal bring-up leaves too, and is not judged (flaps are LINK_FLAPS'); a passive "
	 "copper cable has no receiver, its flags are never judged (a real ConnectX-7 NDR DAC reads "
	 "1,0,1,1 on a link that passes traffic). The module's readings (temperature, voltage, bias, "
	 "Tx and Rx power against its own thresholds) are one wire fact whichever tool shows them: "
	 "LINK_MODULE_THRESHOLDS and LINK_MODULE_RX_POWER_LOW judge them from ethtool -m or from "
	 "mstlink -m alike (this rule used to judge mstlink's, so one reading had a rule id per tool).",
	 "Check the far end's transmitter and the fibre (swap it), then this module (its flags and "
	 "readings: `mstlink -d <device> -m`).",
	 eval_module},
	{"MLX_KERNEL_EVENTS", HWC_SEV_ERROR, "mlx", "mlx5 faults in the kernel log",
	 "mlx5_core's own lines: insufficient slot power, port module errors (powered down, bad or "
	 "shorted cable, bus stuck), high temperature, health syndromes (poll_health, synd 0x..), a "
	 "recovery that failed, failed firmware commands. An event since boot stands even when the "
	 "state has recovered. A warning; an error when the card went fatal (mlx5's 'health recovery "
	 "flow aborted, PCI reads still not working', the device in its error state: it no longer "
	 "answers until a reset or a reboot). Not counted: cable unplugged, and ACCESS_REG(0x805) failures that "
	 "counter readers cause on restricted PFs. Needs the kernel log (root on Debian: "
	 "kernel.dmesg_restrict). The log is a ring buffer (log_buf_len): on a host up long enough, "
	 "or after `dmesg -C`, it no longer begins with the boot. Where its first record is the "
	 "boot's (the kernel's banner 'Linux version', or a record at 0 s) the finding, and the card "
	 "report's 'no mlx5 event', say since boot; otherwise they say the window read: from its first "
	 "record's time ('since 1234 s after boot'), or, where that line carries no timestamp, that "
	 "whether it reaches back to boot is unknown (host.kernel.log_start_s, its evidence row). "
	 "`journalctl -k -b` keeps the whole boot where journald stores the kernel's lines.",
	 "Read the lines in `dmesg | grep mlx5_core`: power -> a slot that grants the card's power; "
	 "temperature -> airflow; health/fatal -> firmware update or a support case with the syndrome.",
	 eval_kernel_events},
	HWC_RULES_END,
};

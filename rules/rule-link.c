/* SPDX-License-Identifier: MIT */
/* The physical link (issue 14): symbol errors, flaps and link-integrity errors, judged from the
 * netdev's PHY counters (Ethernet/RoCE) and the IB port counters (InfiniBand), since boot. */
#include <string.h>

#include "rules/rules-int.h"

/* Counters since boot become rates with the uptime; 0 with *why when unknown. */
static double uptime_h(struct hwc_rule_ctx *c, const char **why)
{
	double s = 0;
	if (!fv_num(c->facts, "host.kernel.uptime_s", &s, why, c->a) || s <= 0) {
		if (s <= 0 && !*why)
			*why = "invalid: uptime 0";
		return 0;
	}
	return s / 3600.0;
}

static const char *rate_text(struct hwc_rule_ctx *c, double n, double hours)
{
	if (hours <= 0)
		return "rate unknown (no uptime)";
	return hwc_arena_printf(c->a, "%s/h over %s h since boot", fv_fmt_num(c->a, n / hours),
				fv_fmt_num(c->a, (double)(long long)(hours * 10) / 10));
}

/* The RDMA ports of every adapter whose link layer is InfiniBand (RoCE ports are judged by
 * their netdev's PHY counters, so that one wire gives one finding). */
#define FOR_IB_PORTS(c, i, ad, j, p)                                                               \
	json_array_foreach(fv_adapters((c)->facts), i, ad) json_array_foreach(                     \
		json_object_get(ad, "ports"), j, p) if (is_ib(p))

static bool is_ib(const json_t *p)
{
	const char *ll = json_string_value(json_object_get(p, "link_layer"));
	return ll && strcmp(ll, "InfiniBand") == 0;
}

static const char *ib_subject(struct hwc_rule_ctx *c, const json_t *p)
{
	const json_t *pn = json_object_get(p, "port");
	return hwc_arena_printf(c->a, "%s/%lld", json_string_value(json_object_get(p, "rdma_device")),
				json_is_integer(pn) ? (long long)json_integer_value(pn) : 1LL);
}

static const char *ib_base(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p)
{
	return hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, json_string_value(json_object_get(ad, "bdf"))),
				ib_subject(c, p));
}

/* IBA PortCounters saturate at their width (16 bits for symbol_error, 8 for link_downed). */
static const char *count_text(struct hwc_rule_ctx *c, double v, double max)
{
	return v >= max ? hwc_arena_printf(c->a, "%s (saturated: at least)", fv_fmt_num(c->a, v))
			: fv_fmt_num(c->a, v);
}

static void symbol_netdevs(struct hwc_rule_ctx *c, double hours, const char *upwhy)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(json_object_get(c->facts, "netdevs"), i, nd) {
		const char *name = json_string_value(json_object_get(nd, "name"));
		const char *base = fv_netdev_path(c, name);
		double n;
		if (!need_num(c, name, nd, base, "counters.rx_symbol_err_phy", &n) || n <= 0)
			continue;
		/* rx_symbol_err_phy counts what FEC could not correct: frames were lost */
		struct hwc_finding *fd = hwc_rule_emit(c, name, "%s symbol errors the FEC could not correct since boot (%s): frames were lost on the wire",
						       fv_fmt_num(c->a, n), rate_text(c, n, hours));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_symbol_err_phy", base), fv_fmt_num(c->a, n), "0");
		hwc_evidence_add(fd, c->a, "host.kernel.uptime_s", hours > 0 ? fv_fmt_num(c->a, hours * 3600) : upwhy, NULL);
		double cb;
		const char *w;
		if (fv_num(nd, "counters.rx_corrected_bits_phy", &cb, &w, c->a))
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_corrected_bits_phy", base), fv_fmt_num(c->a, cb), NULL);
	}
}

static void symbol_ib(struct hwc_rule_ctx *c, double hours, const char *upwhy)
{
	double limit = hwc_profile_threshold(c->prof, HWC_T_LINK_SYMBOL_ERRORS_PER_HOUR);
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		double n;
		if (!need_num(c, subj, p, base, "counters.symbol_error", &n) || n <= 0)
			continue;
		if (hours <= 0) {
			hwc_rule_unknown(c, subj, "host.kernel.uptime_s", upwhy, "the symbol error rate");
			continue;
		}
		if (n / hours <= limit)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "%s symbol errors since boot: %s, above %s/h",
						       count_text(c, n, 65535), rate_text(c, n, hours), fv_fmt_num(c->a, limit));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.symbol_error", base), fv_fmt_num(c->a, n),
				 hwc_arena_printf(c->a, "<= %s/h", fv_fmt_num(c->a, limit)));
		hwc_evidence_add(fd, c->a, "host.kernel.uptime_s", fv_fmt_num(c->a, hours * 3600), NULL);
	}
}

static void eval_symbol(struct hwc_rule_ctx *c)
{
	const char *upwhy = NULL;
	double hours = uptime_h(c, &upwhy);
	symbol_netdevs(c, hours, upwhy);
	symbol_ib(c, hours, upwhy);
}

/* Flaps of a netdev: link-down events the firmware counted, else carrier ups after the first. */
static void flaps_netdevs(struct hwc_rule_ctx *c, double max)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(json_object_get(c->facts, "netdevs"), i, nd) {
		const char *name = json_string_value(json_object_get(nd, "name"));
		const char *base = fv_netdev_path(c, name);
		double phy = 0, ups = 0;
		const char *w1 = NULL, *w2 = NULL;
		int k1 = fv_num(nd, "counters.link_down_events_phy", &phy, &w1, c->a);
		int k2 = fv_num(nd, "link.carrier_up_count", &ups, &w2, c->a);
		if (!k1 && !k2) {
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.counters.link_down_events_phy", base), w1,
					 "whether the link went down since boot");
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.link.carrier_up_count", base), w2,
					 "whether the link went down since boot");
			continue;
		}
		double rec = k2 && ups > 1 ? ups - 1 : 0;
		double flaps = k1 && phy > rec ? phy : rec;
		if (flaps <= max)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, name, "the link went down %s time%s since boot", fv_fmt_num(c->a, flaps),
						       flaps == 1 ? "" : "s");
		const char *want = hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, max));
		if (k1)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.link_down_events_phy", base), fv_fmt_num(c->a, phy), want);
		if (k2)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.carrier_up_count", base), fv_fmt_num(c->a, ups),
					 hwc_arena_printf(c->a, "<= %s (the first up is the boot)", fv_fmt_num(c->a, max + 1)));
	}
}

static void eval_flaps(struct hwc_rule_ctx *c)
{
	double max = hwc_profile_threshold(c->prof, HWC_T_LINK_FLAPS_MAX);
	flaps_netdevs(c, max);
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		double n;
		if (!need_num(c, subj, p, base, "counters.link_downed", &n) || n <= max)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "the link went down %s times since boot (link_downed)", count_text(c, n, 255));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.link_downed", base), fv_fmt_num(c->a, n),
				 hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, max)));
	}
}

static void eval_integrity(struct hwc_rule_ctx *c)
{
	static const struct {
		const char *key;
		double max; /* the counter's saturation */
	} k[] = {{"local_link_integrity_errors", 15}, {"excessive_buffer_overrun_errors", 15}, {"link_error_recovery", 255}};
	size_t i, j;
	const json_t *ad, *p;
	FOR_IB_PORTS(c, i, ad, j, p) {
		const char *subj = ib_subject(c, p), *base = ib_base(c, ad, p);
		struct hwc_finding *fd = NULL;
		for (size_t x = 0; x < HWC_NELEM(k); x++) {
			double n;
			if (!need_num(c, subj, p, base, hwc_arena_printf(c->a, "counters.%s", k[x].key), &n) || n <= 0)
				continue;
			if (!fd)
				fd = hwc_rule_emit(c, subj, "link integrity errors since boot: %s %s", k[x].key, count_text(c, n, k[x].max));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.%s", base, k[x].key), fv_fmt_num(c->a, n), "0");
		}
	}
}

const struct hwc_rule hwc_rules_link[] = {
	{"LINK_SYMBOL_ERRORS", HWC_SEV_WARN, "link", "Symbol errors on the wire",
	 "Ethernet/RoCE: rx_symbol_err_phy counts symbols the FEC could not correct, so every one is a "
	 "lost frame (mlx5 counters.rst); any is flagged. InfiniBand: symbol_error above "
	 "link_symbol_errors_per_hour (default 120/h: the IBTA 1e-12 BER basis, as used by NVSentinel's "
	 "link counter design and Oracle's InfiniBand documentation). Such errors cost NCCL bandwidth "
	 "and grow into flaps. Rates are since boot (the uptime).",
	 "Reseat or replace the cable/transceiver of the port (then the switch port); check the module "
	 "with `ethtool -m <netdev>` / `mlxlink -d <BDF> -m -c` and watch the counter again.",
	 eval_symbol},
	{"LINK_FLAPS", HWC_SEV_WARN, "link", "Link went down since boot",
	 "link_down_events_phy (firmware), the netdev's carrier ups after the first, or IB link_downed "
	 "above link_flaps_max (default 0): every flap tears down RDMA connections and stalls "
	 "collective jobs. An administrator's own ip link down/up counts too.",
	 "Check the cable, transceiver and switch port logs; `mlxlink -d <BDF> -c` shows the link "
	 "down counter and BER; replace the cable if it recurs.",
	 eval_flaps},
	{"LINK_INTEGRITY_ERRORS", HWC_SEV_WARN, "link", "InfiniBand link integrity errors",
	 "local_link_integrity_errors and excessive_buffer_overrun_errors break the lossless contract "
	 "(a packet is dropped), link_error_recovery counts retrainings: any since boot is flagged "
	 "(NVSentinel's link counter design treats the first two as fatal to a running job).",
	 "Replace the cable or transceiver of the port and check the switch port; `mlxlink -d <BDF> "
	 "-c` and `perfquery` show the counters on both ends.",
	 eval_integrity},
};
const size_t hwc_rules_link_n = HWC_NELEM(hwc_rules_link);

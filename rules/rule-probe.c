/* SPDX-License-Identifier: MIT */
/* Probe rules: measured bandwidth against the path ceiling, and read/write asymmetry. Silent
 * when no probe ran (probing is opt-in). */
#include <string.h>

#include "rules/rules-int.h"

/* TCP results name their netdev and direction where RDMA ones name the device and op */
static bool is_tcp(const json_t *r)
{
	const char *op = hwc_q_string(r, "op");
	return op && strcmp(op, "tcp") == 0;
}

static const char *res_path(struct hwc_rule_ctx *c, const json_t *r, size_t i)
{
	bool tcp = is_tcp(r);
	const char *dev = hwc_q_string(r, tcp ? "netdev" : "rdma_device");
	const char *op = hwc_q_string(r, tcp ? "direction" : "op");
	return hwc_arena_printf(c->a, "probe.results[%zu:%s/%s]", i, dev ? dev : "?", op ? op : "?");
}

static const char *res_subject(struct hwc_rule_ctx *c, const json_t *r)
{
	const char *dev = hwc_q_string(r, "rdma_device");
	const json_t *port = hwc_q_get(r, "port");
	if (is_tcp(r) && hwc_q_string(r, "netdev"))
		return hwc_q_string(r, "netdev");
	if (dev)
		return hwc_arena_printf(c->a, "%s/%lld", dev, json_is_integer(port) ? (long long)json_integer_value(port) : 1LL);
	return hwc_q_string(r, "bdf");
}

/* The known tuning problems of the card that explain a shortfall, named in the message. */
static const char *probable_cause(struct hwc_rule_ctx *c, const json_t *r)
{
	const char *bdf = hwc_q_string(r, "bdf");
	const json_t *dev = hwc_q_pci_dev(c->facts, bdf);
	const json_t *ad = hwc_q_adapter_of(c->facts, bdf);
	const char *out = "";
	const char *vendor = hwc_q_string(hwc_q_at(c->facts, "host.cpu"), "vendor");
	const char *wo = json_string_value(hwc_q_fw_value(ad, "PCI_WR_ORDERING", "current"));
	if (vendor && !strcmp(vendor, "AuthenticAMD") && wo && !strncmp(wo, "per_mkey", 8))
		out = hwc_arena_printf(c->a, "%s; PCI_WR_ORDERING is per_mkey on an AMD host", out);
	if (json_is_false(hwc_q_get(dev, "relaxed_ordering")))
		out = hwc_arena_printf(c->a, "%s; Relaxed Ordering is off on the card", out);
	const json_t *mrrs = hwc_q_get(dev, "max_read_request_bytes");
	if (json_is_number(mrrs) && json_number_value(mrrs) < hwc_profile_threshold(c->prof, HWC_T_MRRS_MIN_BYTES))
		out = hwc_arena_printf(c->a, "%s; Max Read Request Size is %s bytes", out, fv_fmt_num(c->a, json_number_value(mrrs)));
	return out;
}

static void eval_below_ceiling(struct hwc_rule_ctx *c)
{
	double min = hwc_profile_threshold(c->prof, HWC_T_PROBE_MIN_RATIO);
	size_t i;
	const json_t *r;
	json_array_foreach(hwc_q_list(c->facts, "probe.results"), i, r) {
		const char *subj = res_subject(c, r), *base = res_path(c, r, i);
		const char *st = hwc_q_string(r, "status");
		if (st && strcmp(st, "ok") != 0) {
			/* a probe that did not run to the end measured nothing to judge */
			const char *reason = hwc_q_string(r, "reason");
			hwc_rule_unknown(c, subj, hwc_arena_printf(c->a, "%s.status", base),
					 hwc_arena_printf(c->a, "probe %s%s%s", st, reason ? ": " : "", reason ? reason : ""), NULL);
			continue;
		}
		double g, ceil;
		if (!need_num(c, subj, r, base, "gbps", &g) || !need_num(c, subj, r, base, "ceiling_gbps", &ceil) || ceil <= 0)
			continue;
		if (g >= ceil * min)
			continue;
		const char *by = hwc_q_string(r, "ceiling_by");
		const char *cb = hwc_q_string(r, "ceiling_bdf");
		const char *detail = hwc_q_string(r, "ceiling_detail");
		const char *op = hwc_q_string(r, "op");
		const char *cause = probable_cause(c, r);
		const char *what = detail ? detail
				   : hwc_arena_printf(c->a, "%s%s%s", by && !strcmp(by, "pcie") ? "PCIe path" : "port rate",
						      cb ? " at " : "", cb ? cb : "");
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "%s bandwidth %s Gb/s is %.0f%% of the %s Gb/s ceiling (%s)%s",
						       op ? op : "measured", fv_fmt_num(c->a, g), 100.0 * g / ceil,
						       fv_fmt_num(c->a, ceil), what, cause);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.gbps", base), fv_fmt_num(c->a, g),
				 hwc_arena_printf(c->a, ">= %s (%.0f%% of the ceiling)", fv_fmt_num(c->a, ceil * min), 100 * min));
		const char *pf = hwc_q_string(r, "finding");
		if (pf)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.finding", base), pf, NULL);
	}
}

/* Ports measured together (--all-ports) are compared with ports measured together. */
static json_int_t concurrent_of(const json_t *r)
{
	const json_t *v = hwc_q_get(r, "concurrent");
	return json_is_integer(v) ? json_integer_value(v) : 1;
}

static void eval_asymmetry(struct hwc_rule_ctx *c)
{
	double maxd = hwc_profile_threshold(c->prof, HWC_T_PROBE_ASYMMETRY_MAX);
	const json_t *res = hwc_q_list(c->facts, "probe.results");
	size_t i, k;
	const json_t *r, *w;
	json_array_foreach(res, i, r) {
		const char *op = hwc_q_string(r, "op");
		if (!op || strcmp(op, "read"))
			continue;
		json_array_foreach(res, k, w) {
			const char *wop = hwc_q_string(w, "op");
			if (!wop || strcmp(wop, "write") || !hwc_q_same(r, w, "rdma_device") ||
			    !hwc_q_same(r, w, "port") || !hwc_q_same(r, w, "msg_bytes") ||
			    concurrent_of(r) != concurrent_of(w))
				continue;
			const json_t *rg = hwc_q_get(r, "gbps"), *wg = hwc_q_get(w, "gbps");
			if (!json_is_number(rg) || !json_is_number(wg) || json_number_value(wg) <= 0)
				continue;
			double rv = json_number_value(rg), wv = json_number_value(wg);
			if (rv >= wv * (1 - maxd))
				continue;
			const char *subj = res_subject(c, r);
			struct hwc_finding *fd = hwc_rule_emit(c, subj, "RDMA read reaches %s Gb/s, write %s Gb/s: reads are %.0f%% slower (write ordering or read request size)",
							       fv_fmt_num(c->a, rv), fv_fmt_num(c->a, wv), 100 * (1 - rv / wv));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.gbps", res_path(c, r, i)), fv_fmt_num(c->a, rv),
					 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, wv * (1 - maxd))));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.gbps", res_path(c, w, k)), fv_fmt_num(c->a, wv), NULL);
		}
	}
}

const struct hwc_rule hwc_rules_probe[] = {
	{"PROBE_BELOW_CEILING", HWC_SEV_WARN, "probe", "Measured bandwidth below the path ceiling",
	 "The RDMA probe moved less than the profile's share (probe_min_ratio) of what the slower of the "
	 "PCIe path and the port allows; the finding names the limiting element and any known cause.",
	 "Look at the other findings for the card (ordering, payload sizes, CPU power, IRQs); rerun "
	 "`hwcheck probe` after each fix.",
	 eval_below_ceiling},
	{"PROBE_RW_ASYMMETRY", HWC_SEV_WARN, "probe", "RDMA read much slower than write",
	 "Reads that lag writes by more than probe_asymmetry_max point at strictly ordered completions "
	 "(PCI_WR_ORDERING per_mkey, Relaxed Ordering off) or a small Max Read Request Size.",
	 "See MLX_WR_ORDERING_PER_MKEY, PCIE_RELAXED_ORDERING_OFF and PCIE_MRRS_SMALL.",
	 eval_asymmetry},
	HWC_RULES_END,
};

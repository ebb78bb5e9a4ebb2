/* SPDX-License-Identifier: MIT */
/* Identical cards configured differently: the performance parameters of the firmware
 * configuration (mstconfig) compared between cards of one product, in one host (the rule
 * MLX_FW_CONFIG_INCONSISTENT) or across hosts (`hwcheck merge`). */
#include <stdio.h>
#include <string.h>

#include "rules/rules-int.h"

/* A performance parameter of the firmware configuration that identical cards must share:
 * mstconfig name, the severity of a difference, what it governs. */
struct hwc_fwc_param {
	const char *name;
	enum hwc_severity sev;
	const char *why;
};

/* The parameters compared (mstconfig names; DATA-SOURCES.md section 4.3 lists their TLVs). A card
 * whose firmware does not print one is not compared on it. PCI_WR_ORDERING is the one a real
 * incident measured (one force_relax card among three per_mkey: 53 instead of 194 GB/s of
 * multi-node NCCL), so a difference in it is an error; the others are warnings. */
static const struct hwc_fwc_param params[] = {
	{"PCI_WR_ORDERING", HWC_SEV_ERROR, "relaxed ordering of the card's PCIe writes"},
	{"ADVANCED_PCI_SETTINGS", HWC_SEV_WARN, "unlocks the advanced PCIe parameters"},
	{"MAX_ACC_OUT_READ", HWC_SEV_WARN, "outstanding PCIe read bytes (read throughput on long paths)"},
	{"PCI_ATOMIC_MODE", HWC_SEV_WARN, "how PCIe atomics are executed"},
	{"P2P_ORDERING_MODE", HWC_SEV_WARN, "peer-to-peer (GPUDirect) ordering"},
	{"ATS_ENABLED", HWC_SEV_WARN, "address translation services (GPUDirect with an IOMMU)"},
	{"CQE_COMPRESSION", HWC_SEV_WARN, "completion compression on a PCIe-bound receive path"},
	{"INT_LOG_MAX_PAYLOAD_SIZE", HWC_SEV_WARN, "internal PCIe burst size"},
	{"ZERO_TOUCH_TUNING_ENABLE", HWC_SEV_WARN, "automatic performance tuning"},
	{"PCI_BUS0_RESTRICT", HWC_SEV_WARN, "firmware-side cap of the card's own PCIe link"},
	{"PCI_BUS0_RESTRICT_SPEED", HWC_SEV_WARN, "firmware-side PCIe speed cap"},
	{"PCI_BUS0_RESTRICT_WIDTH", HWC_SEV_WARN, "firmware-side PCIe width cap"},
	{"PCI_BUS0_RESTRICT_ASPM", HWC_SEV_WARN, "firmware-side ASPM setting"},
	{"NUM_PF_MSIX", HWC_SEV_WARN, "interrupt vectors per PF (caps channels)"},
	{"LOG_MAX_OUTSTANDING_WQE", HWC_SEV_WARN, "outstanding work requests"},
	{"TX_SCHEDULER_BURST", HWC_SEV_WARN, "transmit scheduler burst"},
	{"ROCE_ADAPTIVE_ROUTING_EN", HWC_SEV_WARN, "RoCE adaptive routing"},
	{"RDMA_SELECTIVE_REPEAT_EN", HWC_SEV_WARN, "RDMA selective repeat"},
};

/* The product key of a card: its PSID, else its part number; NULL when neither is known. */
static const char *product_key(const json_t *ad)
{
	const char *k = hwc_q_string(ad, "psid");
	return k ? k : hwc_q_string(ad, "part_number");
}

void hwc_fwc_value_text(const json_t *v, char *buf, size_t bufsz)
{
	if (json_is_string(v))
		snprintf(buf, bufsz, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, bufsz, "%lld", (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, bufsz, "%s", json_is_true(v) ? "True" : "False");
	else
		snprintf(buf, bufsz, "%g", json_number_value(v));
}

json_t *hwc_fwc_vote(json_t *tally, const char *text, json_t *where)
{
	json_t *e = json_object_get(tally, text);
	if (!e) {
		e = json_pack("{s:s, s:I, s:[]}", "value", text, "cards", (json_int_t)0, "where");
		json_object_set_new(tally, text, e);
	}
	json_object_set_new(e, "cards", json_integer(json_integer_value(hwc_q_get(e, "cards")) + 1));
	if (where)
		json_array_append_new(json_object_get(e, "where"), where);
	return e;
}

const json_t *hwc_fwc_top(const json_t *tally, bool *tie)
{
	const char *v;
	json_t *e, *best = NULL;
	*tie = false;
	json_object_foreach((json_t *)tally, v, e) {
		json_int_t n = json_integer_value(hwc_q_get(e, "cards"));
		json_int_t bn = best ? json_integer_value(hwc_q_get(best, "cards")) : -1;
		*tie = n == bn ? true : n > bn ? false : *tie;
		if (n > bn)
			best = e;
	}
	return best;
}

/* A parameter's value on a card: 1 with its text, 0 when the firmware does not offer it, -1
 * when it is unknown (the reason in *why). */
static int param_value(const json_t *ad, const char *name, char *buf, size_t bufsz,
		       const char **why)
{
	const json_t *fc = hwc_q_fw_config(ad);
	*why = NULL;
	if (!fc) {
		*why = hwc_q_string(hwc_q_unavailable(ad, "fw_config"), "status");
		return -1;
	}
	const json_t *p = hwc_q_fw_param(ad, name);
	const json_t *pu = hwc_q_unavailable(fc, name);
	if (!json_is_object(p)) {
		*why = hwc_q_string(pu, "status");
		return pu ? -1 : 0;
	}
	const json_t *v = hwc_q_fw_effective(p);
	if (!v) {
		const json_t *nu = hwc_q_at(p, "unavailable.next_boot");
		const char *st = hwc_q_string(nu, "status");
		const char *d = hwc_q_string(nu, "detail");
		if (st && !strcmp(st, "unsupported") && d && strstr(d, "not printed by mstconfig"))
			return 0;
		*why = st;
		return -1;
	}
	hwc_fwc_value_text(v, buf, bufsz);
	return 1;
}

static json_t *where_of(const json_t *card)
{
	const char *host = hwc_q_string(card, "host");
	const char *bdf = hwc_q_string(hwc_q_get(card, "adapter"), "bdf");
	return json_pack("{s:s?, s:s?}", "host", host, "card", bdf);
}

/* Counts each value of one parameter over the cards of one product; unknowns listed apart. */
static void tally(const json_t *cards, const char *key, const char *name, json_t *values,
		  json_t *unknown)
{
	size_t i;
	const json_t *cd;
	json_array_foreach(cards, i, cd) {
		const json_t *ad = hwc_q_get(cd, "adapter");
		const char *k = product_key(ad);
		char buf[128];
		const char *why;
		if (!k || strcmp(k, key) != 0)
			continue;
		int r = param_value(ad, name, buf, sizeof(buf), &why);
		if (r == 0)
			continue;
		json_t *w = where_of(cd);
		if (r < 0) {
			json_object_set_new(w, "why", json_string(why ? why : "not_collected"));
			json_array_append_new(unknown, w);
			continue;
		}
		hwc_fwc_vote(values, buf, w);
	}
}

/* One product and parameter: NULL when every card that reports it agrees (and none is unknown
 * beside a known one). */
static json_t *spread_one(const json_t *cards, const char *key, const struct hwc_fwc_param *pp)
{
	json_t *values = json_object(), *unknown = json_array();
	tally(cards, key, pp->name, values, unknown);
	size_t nv = json_object_size(values);
	if (nv == 0 || (nv == 1 && json_array_size(unknown) == 0)) {
		json_decref(values);
		json_decref(unknown);
		return NULL;
	}
	bool tie;
	const json_t *best = hwc_fwc_top(values, &tie);
	const char *v;
	json_t *e;
	json_t *vl = json_array(), *minority = json_array();
	json_int_t total = 0;
	json_object_foreach(values, v, e) {
		json_array_append(vl, e);
		total += json_integer_value(hwc_q_get(e, "cards"));
		size_t i;
		json_t *w;
		if (!tie && e == best)
			continue;
		json_array_foreach(hwc_q_get(e, "where"), i, w) {
			json_t *m = json_deep_copy(w);
			json_object_set_new(m, "value", json_string(v));
			json_array_append_new(minority, m);
		}
	}
	json_t *out = json_pack("{s:s, s:s, s:s, s:o, s:b, s:I, s:o, s:o, s:o}", "product", key, "param",
				pp->name, "severity", hwc_severity_name(pp->sev), "majority",
				tie ? json_null() : json_string(hwc_q_string(best, "value")),
				"tie", tie, "cards", total, "values", vl, "minority", minority, "unknown", unknown);
	json_decref(values);
	return out;
}

json_t *hwc_fwc_spread(const json_t *cards)
{
	json_t *out = json_array(), *seen = json_object();
	size_t i;
	const json_t *cd;
	json_array_foreach(cards, i, cd) {
		const char *key = product_key(hwc_q_get(cd, "adapter"));
		if (!key || hwc_q_get(seen, key))
			continue;
		json_object_set_new(seen, key, json_true());
		for (size_t k = 0; k < HWC_ARRAY_SIZE(params); k++) {
			json_t *s = spread_one(cards, key, &params[k]);
			if (s)
				json_array_append_new(out, s);
		}
	}
	json_decref(seen);
	return out;
}

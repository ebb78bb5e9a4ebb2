/* SPDX-License-Identifier: MIT */
/* PCIe rules: link training, slot limits, path bottlenecks, payload sizes, ordering, AER, ASPM,
 * slot power and firmware link restrictions. Each judges the card's function 0 (which carries
 * the link) and the port above it. */
#include <math.h>
#include <string.h>

#include "pci/pci.h"
#include "rules/rules-int.h"

#define FOR_ADAPTERS(c, i, ad) json_array_foreach(hwc_q_adapters((c)->facts), i, ad)

/* Gb/s of the device's link (cap: of its LnkCap) as pci/ computed it (link.gbps, link.cap_gbps),
 * the kernel's figure users compare with ("63.008 Gb/s available PCIe bandwidth"). A facts file
 * written before those keys existed has only speed and width: the same formula from them. */
static double dev_link_gbps(const json_t *dev, bool cap, double speed, double width)
{
	const json_t *g = hwc_q_get(hwc_q_pci_link(dev), cap ? "cap_gbps" : "gbps");
	return json_is_number(g) ? json_number_value(g) : hwc_pci_link_gbps(speed, (int64_t)width);
}

static const char *bdf_of(const json_t *ad)
{
	return hwc_q_string(ad, "bdf");
}

/* The card's function-0 PCI device, or an unknown finding. NULL without a finding for a VF
 * (a VM sees only the VF: its link, payload sizes and slot belong to the PF it cannot see). */
static const json_t *card_dev(struct hwc_rule_ctx *c, const json_t *ad)
{
	const char *bdf = bdf_of(ad);
	const json_t *dev = hwc_q_pci_dev(c->facts, bdf);
	if (json_is_true(hwc_q_get(dev, "is_vf")))
		return NULL;
	if (!dev) {
		const char *why = NULL;
		const json_t *v;
		if (!hwc_q_find(c->facts, "pci.devices", &v, &why, c->a) || !why)
			why = why ? why : "not_collected";
		else
			why = "absent: the adapter's function is not in pci.devices";
		hwc_rule_unknown(c, bdf, fv_pci_path(c, bdf), why, NULL);
	}
	return dev;
}

typedef void (*card_judge)(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev);

/* Runs judge on each adapter whose function-0 device is in the facts: card_dev() has already
 * reported the ones that are not, and skips a VF. */
static void each_card(struct hwc_rule_ctx *c, card_judge judge)
{
	size_t i;
	const json_t *ad;
	FOR_ADAPTERS(c, i, ad) {
		const json_t *dev = card_dev(c, ad);
		if (dev)
			judge(c, ad, dev);
	}
}

struct linkinfo {
	double speed, width, cap_speed, cap_width;
};

static int need_link(struct hwc_rule_ctx *c, const char *subj, const json_t *dev, const char *bdf,
		     struct linkinfo *l)
{
	const char *base = fv_pci_path(c, bdf);
	int ok = need_num(c, subj, dev, base, "link.speed_gts", &l->speed);
	ok &= need_num(c, subj, dev, base, "link.width", &l->width);
	ok &= need_num(c, subj, dev, base, "link.cap_speed_gts", &l->cap_speed);
	ok &= need_num(c, subj, dev, base, "link.cap_width", &l->cap_width);
	return ok;
}

/* The port above the card: its device and capabilities. 1 known, 0 no upstream listed (VF,
 * VM passthrough), -1 unknown (finding emitted). */
static int port_caps(struct hwc_rule_ctx *c, const char *subj, const json_t *dev, double *ps,
		     double *pw, const char **pbdf, bool report)
{
	const char *up = hwc_q_string(dev, "upstream");
	*pbdf = up;
	if (!up)
		return 0;
	const json_t *pd = hwc_q_pci_dev(c->facts, up);
	if (!pd) {
		if (report)
			hwc_rule_unknown(c, subj, fv_pci_path(c, up), "not_collected: the upstream port is not in pci.devices", NULL);
		return -1;
	}
	const char *base = fv_pci_path(c, up);
	if (!report) {
		const char *why;
		return hwc_q_find_num(pd, "link.cap_speed_gts", ps, &why, c->a) &&
				       hwc_q_find_num(pd, "link.cap_width", pw, &why, c->a)
			       ? 1
			       : -1;
	}
	int ok = need_num(c, subj, pd, base, "link.cap_speed_gts", ps);
	ok &= need_num(c, subj, pd, base, "link.cap_width", pw);
	return ok ? 1 : -1;
}

static const char *link_str(struct hwc_arena *a, double s, double w)
{
	return hwc_arena_printf(a, "%s GT/s x%s", fv_fmt_num(a, s), fv_fmt_num(a, w));
}

/* Switch upstream ports on the card's path: their LnkSta is the link to the port above them,
 * which can train down while the card's own link is fine. (A root or downstream port's LnkSta
 * is the link below it, already judged from the other end.) */
static void downgraded_hops(struct hwc_rule_ctx *c, const char *card, const json_t *dev)
{
	size_t k;
	const json_t *h;
	json_array_foreach(hwc_q_get(dev, "path"), k, h) {
		const char *hb = json_string_value(h);
		const json_t *hd = hwc_q_pci_dev(c->facts, hb);
		const char *pt = hwc_q_string(hd, "port_type");
		if (!k || !pt || strcmp(pt, "upstream_port") != 0)
			continue;
		const char *why;
		double s, w, cs, cw, ps, pw;
		const char *up = hwc_q_string(hd, "upstream");
		const json_t *ud = hwc_q_pci_dev(c->facts, up);
		if (!ud || !hwc_q_find_num(hd, "link.speed_gts", &s, &why, c->a) || !hwc_q_find_num(hd, "link.width", &w, &why, c->a) ||
		    !hwc_q_find_num(hd, "link.cap_speed_gts", &cs, &why, c->a) || !hwc_q_find_num(hd, "link.cap_width", &cw, &why, c->a) ||
		    !hwc_q_find_num(ud, "link.cap_speed_gts", &ps, &why, c->a) || !hwc_q_find_num(ud, "link.cap_width", &pw, &why, c->a))
			continue; /* a hop we cannot judge: the path bottleneck still accounts for it */
		double ms = fmin(cs, ps), mw = fmin(cw, pw);
		if (s >= ms && w >= mw)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(
			c, card, "the link above switch port %s on the card's path trained at %s although it and %s can both do %s",
			hb, link_str(c->a, s, w), up, link_str(c->a, ms, mw));
		const char *base = fv_pci_path(c, hb);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.speed_gts", base), fv_fmt_num(c->a, s), fv_fmt_num(c->a, ms));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.width", base), fv_fmt_num(c->a, w), fv_fmt_num(c->a, mw));
		/* the link that trained low is the one below `up`: retrain it from there */
		if (fd)
			fd->fix = hwc_fix_subst(c->a, fd->fix, "<PORT>", up);
	}
}

static void judge_downgraded(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	struct linkinfo l;
	downgraded_hops(c, bdf, dev);
	if (!need_link(c, bdf, dev, bdf, &l))
		return;
	if (l.speed >= l.cap_speed && l.width >= l.cap_width)
		return; /* trained at the card's best: nothing lost on this link */
	double ps, pw;
	const char *pbdf;
	int pr = port_caps(c, bdf, dev, &ps, &pw, &pbdf, true);
	if (pr < 0)
		return;
	const char *base = fv_pci_path(c, bdf);
	if (pr == 0) {
		/* no port above in the facts: the collector's verdict is all we have */
		const char *st = hwc_q_string(dev, "link_status");
		if (st && strcmp(st, "downgraded") == 0) {
			struct hwc_finding *fd = hwc_rule_emit(c, bdf, "link trained at %s, below the card's %s (the collector found it downgraded)",
							       link_str(c->a, l.speed, l.width), link_str(c->a, l.cap_speed, l.cap_width));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link_status", base), st, "ok");
			if (fd) /* the port above is not in the facts: name where to find it */
				fd->fix = "Retrain the link from the port above the card (`lspci -t` shows it; "
					  "`setpci -s` that port `CAP_EXP+10.w=20:20`); if it trains low again, reseat the "
					  "card (and any riser) and check the BIOS PCIe speed setting for the slot.";
		} else if (!st || strcmp(st, "unknown") == 0) {
			hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.upstream", base),
					 "not_collected: no upstream port to compare with", "the port's link capability");
		}
		return;
	}
	double ms = fmin(l.cap_speed, ps), mw = fmin(l.cap_width, pw);
	if (l.speed >= ms && l.width >= mw)
		return; /* slot limited, not downgraded */
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "link trained at %s although the card and port %s can both do %s (%s Gb/s of %s Gb/s)",
		link_str(c->a, l.speed, l.width), pbdf, link_str(c->a, ms, mw),
		fv_fmt_num(c->a, dev_link_gbps(dev, false, l.speed, l.width)),
		fv_fmt_num(c->a, hwc_pci_link_gbps(ms, (int64_t)mw)));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.speed_gts", base),
			 fv_fmt_num(c->a, l.speed), fv_fmt_num(c->a, ms));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.width", base),
			 fv_fmt_num(c->a, l.width), fv_fmt_num(c->a, mw));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.cap_speed_gts", fv_pci_path(c, pbdf)),
			 fv_fmt_num(c->a, ps), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.cap_width", fv_pci_path(c, pbdf)),
			 fv_fmt_num(c->a, pw), NULL);
}

static void eval_downgraded(struct hwc_rule_ctx *c)
{
	each_card(c, judge_downgraded);
}

static void judge_slot_limited(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	struct linkinfo l;
	if (!need_link(c, bdf, dev, bdf, &l))
		return;
	if (l.speed >= l.cap_speed && l.width >= l.cap_width)
		return;
	double ps, pw;
	const char *pbdf;
	int pr = port_caps(c, bdf, dev, &ps, &pw, &pbdf, true);
	if (pr == 0) {
		const char *st = hwc_q_string(dev, "link_status");
		if (st && strcmp(st, "slot_limited") == 0) {
			struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the slot limits the card to %s (capable of %s)",
							       link_str(c->a, l.speed, l.width), link_str(c->a, l.cap_speed, l.cap_width));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link_status", fv_pci_path(c, bdf)), st, "ok");
		}
		return;
	}
	if (pr < 0)
		return;
	double ms = fmin(l.cap_speed, ps), mw = fmin(l.cap_width, pw);
	if (l.speed < ms || l.width < mw)
		return; /* downgraded: the other rule */
	double have = dev_link_gbps(dev, false, l.speed, l.width);
	double could = dev_link_gbps(dev, true, l.cap_speed, l.cap_width);
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "the port %s limits the card to %s: %s Gb/s of the %s Gb/s it could use (%s)",
		pbdf, link_str(c->a, l.speed, l.width), fv_fmt_num(c->a, have),
		fv_fmt_num(c->a, could), link_str(c->a, l.cap_speed, l.cap_width));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.cap_speed_gts", fv_pci_path(c, pbdf)),
			 fv_fmt_num(c->a, ps), fv_fmt_num(c->a, l.cap_speed));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.cap_width", fv_pci_path(c, pbdf)),
			 fv_fmt_num(c->a, pw), fv_fmt_num(c->a, l.cap_width));
}

static void eval_slot_limited(struct hwc_rule_ctx *c)
{
	each_card(c, judge_slot_limited);
}

/* The card's own link alone, when the hops above it were not captured: the path can only be
 * slower, so an own link below the port rate is a bottleneck already. Payload Gb/s with the
 * card's MPS, else the raw figure (payload <= raw). Returns false when it does not decide. */
static bool own_link_below(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev, double rate)
{
	double s, w, mps = 0;
	const char *why;
	if (rate <= 0 || !hwc_q_find_num(dev, "link.speed_gts", &s, &why, c->a) ||
	    !hwc_q_find_num(dev, "link.width", &w, &why, c->a) || s <= 0 || w <= 0)
		return false;
	double raw = dev_link_gbps(dev, false, s, w);
	double g = hwc_q_find_num(dev, "max_payload_bytes", &mps, &why, c->a) && mps > 0
			   ? raw * hwc_pci_tlp_efficiency(s, (int)mps) : raw;
	if (raw <= 0 || g >= rate)
		return false;
	const char *bdf = bdf_of(ad), *src;
	hwc_q_adapter_port_rate(c->facts, ad, &src);
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "the card's own link (%s) carries %s Gb/s%s, below the %s Gb/s port rate; the hops "
		"above it were not captured and can only make the path slower",
		link_str(c->a, s, w), fv_fmt_num(c->a, g),
		g != raw ? hwc_arena_printf(c->a, " of payload (%s Gb/s raw)", fv_fmt_num(c->a, raw)) : " raw",
		fv_fmt_num(c->a, rate));
	const char *base = fv_pci_path(c, bdf);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.speed_gts", base), fv_fmt_num(c->a, s), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.width", base), fv_fmt_num(c->a, w), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.path_bottleneck", base), "unknown (hops above not captured)",
			 hwc_arena_printf(c->a, ">= %s Gb/s", fv_fmt_num(c->a, rate)));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.%s", fv_adapter_path(c, bdf), src),
			 fv_fmt_num(c->a, rate), NULL);
	return true;
}

static void judge_path_bottleneck(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	double g;
	const char *why;
	const char *src;
	double rate = hwc_q_adapter_port_rate(c->facts, ad, &src);
	if (!hwc_q_find_num(dev, "path_bottleneck.gbps", &g, &why, c->a) &&
	    !hwc_q_find_num(dev, "path_bottleneck.raw_gbps", &g, &why, c->a) && own_link_below(c, ad, dev, rate))
		return;
	if (!hwc_q_find_num(dev, "path_bottleneck.gbps", &g, &why, c->a)) {
		/* without root the payload figure (it needs the MPS) is unknown; the raw figure
		 * bounds it: payload <= raw, and payload >= 0.8 x raw (128-byte TLPs with 24
		 * bytes of overhead, or flit mode, are the worst case), so most paths decide */
		double raw;
		bool have_raw = rate > 0 && hwc_q_find_num(dev, "path_bottleneck.raw_gbps", &raw, &why, c->a);
		if (have_raw && raw * 0.8 >= rate)
			return;
		if (!have_raw || raw >= rate) {
			need_num(c, bdf, dev, fv_pci_path(c, bdf), "path_bottleneck.gbps", &g);
			return;
		}
		g = raw;
	}
	if (rate <= 0) {
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.ports[].rate_gbps", fv_adapter_path(c, bdf)),
				 "not_collected: no port rate, netdev speed or product maximum", NULL);
		return;
	}
	if (g >= rate)
		return;
	const json_t *pb = hwc_q_path_bottleneck(dev);
	const char *hop = hwc_q_string(pb, "bdf");
	const json_t *s = hwc_q_get(pb, "speed_gts"), *w = hwc_q_get(pb, "width");
	const char *hl = json_is_number(s) && json_is_number(w)
				 ? link_str(c->a, json_number_value(s), json_number_value(w))
				 : "a narrower link";
	const json_t *raw = hwc_q_get(pb, "raw_gbps");
	const char *rs = json_is_number(raw) && json_number_value(raw) != g
				 ? hwc_arena_printf(c->a, " of payload (%s Gb/s raw)", fv_fmt_num(c->a, json_number_value(raw)))
				 : "";
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "the PCIe path is limited to %s Gb/s%s by %s at %s, below the %s Gb/s port rate",
		fv_fmt_num(c->a, g), rs, hl, hop ? hop : "an unnamed hop", fv_fmt_num(c->a, rate));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.path_bottleneck.gbps", fv_pci_path(c, bdf)),
			 fv_fmt_num(c->a, g), hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, rate)));
	if (hop)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.path_bottleneck.bdf", fv_pci_path(c, bdf)), hop, NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.%s", fv_adapter_path(c, bdf), src),
			 fv_fmt_num(c->a, rate), NULL);
}

static void eval_path_bottleneck(struct hwc_rule_ctx *c)
{
	each_card(c, judge_path_bottleneck);
}

static void eval_below_profile(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	FOR_ADAPTERS(c, i, ad) {
		const json_t *pc = hwc_profile_product_get(c->prof, ad, "pcie");
		if (!pc)
			continue;
		const char *bdf = bdf_of(ad);
		const json_t *dev = card_dev(c, ad);
		double s, w;
		const char *base = fv_pci_path(c, bdf);
		if (!dev || !need_num(c, bdf, dev, base, "link.speed_gts", &s) ||
		    !need_num(c, bdf, dev, base, "link.width", &w))
			continue;
		const json_t *ws = hwc_q_get(pc, "speed_gts"), *ww = hwc_q_get(pc, "width");
		double es = json_is_number(ws) ? json_number_value(ws) : 0;
		double ew = json_is_number(ww) ? json_number_value(ww) : 0;
		if (s >= es && w >= ew)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "link is %s; the profile expects at least %s GT/s x%s for %s",
						       link_str(c->a, s, w), fv_fmt_num(c->a, es), fv_fmt_num(c->a, ew),
						       hwc_q_string(ad, "product") ? hwc_q_string(ad, "product") : "this product");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.speed_gts", base), fv_fmt_num(c->a, s),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, es)));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.width", base), fv_fmt_num(c->a, w),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, ew)));
	}
}

/* Payload checks matter only where the port rate approaches the link's capacity: the card's
 * device (card_dev) when they do, else NULL. */
static const json_t *fast_card(struct hwc_rule_ctx *c, const json_t *ad, double *rate)
{
	const char *src;
	*rate = hwc_q_adapter_port_rate(c->facts, ad, &src);
	return *rate >= hwc_profile_threshold(c->prof, HWC_T_PAYLOAD_CHECK_RATE_GBPS) ? card_dev(c, ad) : NULL;
}

static void eval_mps(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	double min = hwc_profile_threshold(c->prof, HWC_T_MPS_MIN_BYTES);
	FOR_ADAPTERS(c, i, ad) {
		double rate, mps, sup;
		const char *bdf = bdf_of(ad);
		const json_t *dev = fast_card(c, ad, &rate);
		const char *base = fv_pci_path(c, bdf);
		if (!dev || !need_num(c, bdf, dev, base, "max_payload_bytes", &mps) || mps >= min)
			continue;
		if (!need_num(c, bdf, dev, base, "max_payload_supported_bytes", &sup) || sup < min)
			continue;
		/* every hop must support more, else the small MPS is the platform's ceiling */
		const char *limiter = NULL;
		size_t k;
		const json_t *h;
		json_array_foreach(hwc_q_get(dev, "path"), k, h) {
			const json_t *hd = hwc_q_pci_dev(c->facts, json_string_value(h));
			const json_t *hs = hwc_q_get(hd, "max_payload_supported_bytes");
			if (json_is_number(hs) && json_number_value(hs) < min)
				limiter = json_string_value(h);
		}
		if (limiter)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "Max Payload Size is %s bytes on a %s Gb/s port; the card supports %s",
						       fv_fmt_num(c->a, mps), fv_fmt_num(c->a, rate), fv_fmt_num(c->a, sup));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.max_payload_bytes", base), fv_fmt_num(c->a, mps),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, min)));
	}
}

static void eval_mrrs(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	double min = hwc_profile_threshold(c->prof, HWC_T_MRRS_MIN_BYTES);
	FOR_ADAPTERS(c, i, ad) {
		double rate, v;
		const char *bdf = bdf_of(ad);
		const json_t *dev = fast_card(c, ad, &rate);
		const char *base = fv_pci_path(c, bdf);
		if (!dev || !need_num(c, bdf, dev, base, "max_read_request_bytes", &v) || v >= min)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "Max Read Request Size is %s bytes on a %s Gb/s port",
						       fv_fmt_num(c->a, v), fv_fmt_num(c->a, rate));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.max_read_request_bytes", base),
				 fv_fmt_num(c->a, v), hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, min)));
	}
}

/* Root ports whose erratum makes Linux clear Relaxed Ordering on purpose
 * (drivers/pci/quirks.c quirk_relaxedordering_disable: Intel 0x6f01-0x6f0e, 0x2f01-0x2f0e). */
static bool ro_quirk_root(const json_t *root)
{
	const char *v = hwc_q_string(root, "vendor_id");
	const char *d = hwc_q_string(root, "device_id");
	if (!v || !d || strcmp(v, "8086") != 0 || strlen(d) != 4)
		return false;
	return (!strncmp(d, "6f0", 3) || !strncmp(d, "2f0", 3)) && d[3] >= '1' && d[3] <= 'e';
}

static void judge_relaxed_ordering(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	bool ro;
	const char *base = fv_pci_path(c, bdf);
	/* a VF never gets here (each_card()): DevCtl Relaxed Ordering is RsvdP there */
	if (!need_bool(c, bdf, dev, base, "relaxed_ordering", &ro) || ro)
		return;
	const json_t *path = hwc_q_get(dev, "path");
	const json_t *root = json_array_size(path) ? hwc_q_pci_dev(c->facts, json_string_value(json_array_get(path, json_array_size(path) - 1))) : NULL;
	if (ro_quirk_root(root))
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, bdf, "Relaxed Ordering is disabled in the card's Device Control register");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.relaxed_ordering", base), "false", "true");
}

static void eval_relaxed_ordering(struct hwc_rule_ctx *c)
{
	each_card(c, judge_relaxed_ordering);
}

static void judge_aer(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	double cmax = hwc_profile_threshold(c->prof, HWC_T_AER_CORRECTABLE_MAX);
	double ce, nf, fa;
	const char *base = fv_pci_path(c, bdf);
	if (json_is_false(hwc_q_get(dev, "aer_capable")))
		return; /* no AER capability: nothing can count */
	int ok = need_num(c, bdf, dev, base, "aer.correctable", &ce);
	ok &= need_num(c, bdf, dev, base, "aer.nonfatal", &nf);
	ok &= need_num(c, bdf, dev, base, "aer.fatal", &fa);
	if (!ok)
		return;
	if (nf > 0 || fa > 0) {
		struct hwc_finding *fd = hwc_rule_emit_sev(c, HWC_SEV_ERROR, bdf, "uncorrectable PCIe errors counted: %s non-fatal, %s fatal",
							   fv_fmt_num(c->a, nf), fv_fmt_num(c->a, fa));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.aer.nonfatal", base), fv_fmt_num(c->a, nf), "0");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.aer.fatal", base), fv_fmt_num(c->a, fa), "0");
	} else if (ce > cmax) {
		struct hwc_finding *fd = hwc_rule_emit_sev(c, HWC_SEV_WARN, bdf, "%s correctable PCIe errors counted since boot",
							   fv_fmt_num(c->a, ce));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.aer.correctable", base), fv_fmt_num(c->a, ce),
				 hwc_arena_printf(c->a, "<= %s", fv_fmt_num(c->a, cmax)));
	}
}

static void eval_aer(struct hwc_rule_ctx *c)
{
	each_card(c, judge_aer);
}

/* PCIE_LANE_ERRORS at one end of the card's link (the card's function 0, or the port above it:
 * each end's receiver latches its own lanes). Lanes at or past the trained width are not part of
 * the link that carries traffic. */
static void judge_lane_end(struct hwc_rule_ctx *c, const char *card, const json_t *dev,
			   const char *bdf, const char *where)
{
	const char *base = fv_pci_path(c, bdf);
	const char *st = hwc_q_string(hwc_q_unavailable(dev, "lane_errors"), "status");
	/* no Secondary PCI Express capability (a link below 8 GT/s has no such register), or a
	 * facts file from before the fact (pci/ writes it, or its status, for every function) */
	if ((st && strcmp(st, "unsupported") == 0) || !hwc_q_has(dev, "lane_errors"))
		return;
	const json_t *lanes;
	double width;
	if (!need_val(c, card, dev, base, "lane_errors.lanes", JSON_ARRAY, NULL, &lanes) ||
	    !need_num(c, card, dev, base, "link.width", &width))
		return;
	size_t i, n = 0;
	const json_t *l;
	const char *list = "";
	json_array_foreach(lanes, i, l) {
		if (!json_is_integer(l) || json_integer_value(l) >= (json_int_t)width)
			continue;
		list = hwc_arena_printf(c->a, "%s%s%lld", list, n++ ? " " : "",
					(long long)json_integer_value(l));
	}
	if (!n)
		return;
	const char *w = fv_fmt_num(c->a, width);
	struct hwc_finding *fd;
	if (n == (size_t)width)
		fd = hwc_rule_emit_sev(c, HWC_SEV_INFO, card, "every lane of the x%s link has an error latched at %s (Lane Error Status), as link training at power-up can leave them: clear them and look again after load", w, where);
	else
		fd = hwc_rule_emit(c, card, "lane %s of the x%s link latched errors at %s (Lane Error Status), the others did not: a marginal lane (connector, riser, cable) makes the link replay and can make it retrain narrower", list, w, where);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.lane_errors.lanes", base), list, "none");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.width", base), w, NULL);
	fd->fix = hwc_fix_subst(c->a, c->rule->fix, "<END>", bdf);
}

static void judge_lane_errors(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	judge_lane_end(c, bdf, dev, bdf, "the card");
	const char *up = hwc_q_pci_upstream(dev);
	const json_t *pd = up ? hwc_q_pci_dev(c->facts, up) : NULL;
	if (pd)
		judge_lane_end(c, bdf, pd, up, hwc_arena_printf(c->a, "the port above it, %s", up));
}

static void eval_lane_errors(struct hwc_rule_ctx *c)
{
	each_card(c, judge_lane_errors);
}

/* ASPM Control as bits (L0s 1, L1 2); -1 for a name facts never hold. */
static int aspm_bits(const char *s)
{
	static const char *const n[] = {"disabled", "l0s", "l1", "l0s_l1"};
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, n[i]))
			return i;
	return -1;
}

static const char *aspm_text(int bits)
{
	static const char *const n[] = {"disabled", "L0s", "L1", "L0s L1"};
	return n[bits & 3];
}

/* The ASPM of a multi-function card's link, PCIe r5.0 7.5.3.7 (ASPM Control): an ARI Device (every
 * function has the ARI capability) follows function 0's field alone; a non-ARI multi-function
 * device enables only what every function enables. The card's physical functions are those whose
 * link is function 0's (link_from; VFs have no ASPM Control of their own). 1 with *bits and *how
 * (NULL: function 0's field decides), 0 when unknown (*fact, *why). A function without
 * function_aspm (facts from before it) leaves function 0's field to decide, as before. */
struct mf_aspm {
	int bits, and_bits, n, unknown_ctl;
	bool any_non_ari, any_ari_unknown, missing;
	const char *fact, *why;
};

static void mf_add(struct hwc_rule_ctx *c, const json_t *d, struct mf_aspm *m)
{
	const json_t *fa = hwc_q_get(d, "function_aspm");
	const char *bdf = hwc_q_string(d, "bdf"), *why = NULL;
	const json_t *v;
	m->n++;
	if (!hwc_q_has(d, "function_aspm")) {
		m->missing = true;
		return;
	}
	int b = aspm_bits(hwc_q_string(fa, "control"));
	if (b < 0) {
		m->unknown_ctl++;
		hwc_q_find(d, "function_aspm.control", &v, &why, c->a);
		m->fact = hwc_arena_printf(c->a, "%s.function_aspm.control", fv_pci_path(c, bdf));
		m->why = why ? why : "invalid: not an ASPM Control name";
	} else {
		m->and_bits &= b;
	}
	const json_t *ari = hwc_q_get(fa, "ari_capable");
	if (json_is_false(ari))
		m->any_non_ari = true;
	else if (!json_is_true(ari)) {
		m->any_ari_unknown = true;
		hwc_q_find(d, "function_aspm.ari_capable", &v, &why, c->a);
		if (!m->fact || b >= 0) {
			m->fact = hwc_arena_printf(c->a, "%s.function_aspm.ari_capable", fv_pci_path(c, bdf));
			m->why = why ? why : "not_collected";
		}
	}
}

static int link_aspm(struct hwc_rule_ctx *c, const char *bdf, int fn0_bits, int *link_bits,
		     const char **how, const char **fact, const char **why)
{
	struct mf_aspm m = {.and_bits = 3};
	size_t i;
	const json_t *d;
	*how = NULL;
	*link_bits = fn0_bits;
	json_array_foreach(hwc_q_get(hwc_q_get(c->facts, "pci"), "devices"), i, d) {
		const char *lf = hwc_q_string(d, "link_from");
		if (lf && !strcmp(lf, bdf) && !json_is_true(hwc_q_get(d, "is_vf")))
			mf_add(c, d, &m);
	}
	if (m.n < 2 || m.missing || fn0_bits == 0)
		return 1; /* one function, facts from before function_aspm, or off in function 0 (both rules) */
	if (!m.any_non_ari && !m.any_ari_unknown) {
		*how = "an ARI Device: function 0's ASPM Control alone decides (PCIe r5.0 7.5.3.7)";
		return 1;
	}
	/* a function's field unknown while the others leave something on; or ARI unknown and the two
	 * rules disagree (function 0 on, some other function off) */
	if ((m.unknown_ctl && m.and_bits != 0) || (!m.any_non_ari && m.and_bits == 0)) {
		*fact = m.fact, *why = m.why;
		return 0;
	}
	*link_bits = m.and_bits;
	if (m.any_non_ari)
		*how = hwc_arena_printf(c->a, "a non-ARI multi-function device: the link takes only what all %d functions enable (PCIe r5.0 7.5.3.7)",
					m.n);
	else /* ARI not read: function 0's field (ARI) or what all enable (non-ARI); at least the latter */
		*how = hwc_arena_printf(c->a, "ARI or not: the link takes at least what all %d functions enable (PCIe r5.0 7.5.3.7)",
					m.n);
	return 1;
}

static void judge_aspm(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	const char *base = fv_pci_path(c, bdf);
	const json_t *v;
	const char *why, *how, *fact;
	if (!hwc_q_find(dev, "link.aspm", &v, &why, c->a)) {
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.link.aspm", base), why, NULL);
		return;
	}
	const char *s = json_string_value(v);
	int bits = aspm_bits(s), link;
	if (bits < 0)
		bits = json_is_true(v) || (s && *s && strcasecmp(s, "off") && strcasecmp(s, "none") &&
					   strcasecmp(s, "false")) ? 3 : 0;
	if (!link_aspm(c, bdf, bits, &link, &how, &fact, &why)) {
		hwc_rule_unknown(c, bdf, fact, why, "which functions' ASPM Control the multi-function link follows");
		return;
	}
	if (link == 0)
		return; /* off, or a non-ARI device whose other functions keep function 0's setting off */
	struct hwc_finding *fd = hwc_rule_emit(c, bdf, "ASPM %s is enabled on the card's link%s%s: exits from L0s/L1 add latency under bursty load",
					       how ? aspm_text(link) : s ? s : "", how ? ", " : "", how ? how : "");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.aspm", base), s ? s : "true", "disabled");
}

static void eval_aspm(struct hwc_rule_ctx *c)
{
	each_card(c, judge_aspm);
}

static void judge_slot_power(struct hwc_rule_ctx *c, const json_t *ad, const json_t *dev)
{
	const char *bdf = bdf_of(ad);
	const char *base = fv_pci_path(c, bdf);
	double w;
	if (!need_num(c, bdf, dev, base, "slot_power_limit_w", &w))
		return;
	const json_t *min = hwc_profile_product_get(c->prof, ad, "slot_power_min_w");
	if (w == 0) {
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the slot never advertised a power limit to the card (Set_Slot_Power_Limit); ConnectX firmware then caps itself at 25 W");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.slot_power_limit_w", base), "0", "> 0 (advertised)");
	} else if (json_is_number(min) && w < json_number_value(min)) {
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the slot advertises %s W, below the %s W the profile requires for this card",
						       fv_fmt_num(c->a, w), fv_fmt_num(c->a, json_number_value(min)));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.slot_power_limit_w", base), fv_fmt_num(c->a, w),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, json_number_value(min))));
	}
}

static void eval_slot_power(struct hwc_rule_ctx *c)
{
	each_card(c, judge_slot_power);
}

int hwc_fwc_current(struct hwc_rule_ctx *c, const json_t *ad, const char *name, const json_t **val)
{
	const char *bdf = bdf_of(ad);
	const json_t *fc;
	const char *why;
	*val = NULL;
	if (!need_val(c, bdf, ad, fv_adapter_path(c, bdf), "fw_config", JSON_OBJECT, NULL, &fc))
		return -1;
	const json_t *p = hwc_q_fw_param(ad, name);
	if (!p) {
		/* the parameter may be listed as unavailable (read failed) or simply not exist */
		if (hwc_q_unavailable(fc, name) || hwc_q_is_null(fc, name)) {
			hwc_q_find(fc, name, val, &why, c->a);
			hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.fw_config.%s", fv_adapter_path(c, bdf), name), why, NULL);
			return -1;
		}
		return 0;
	}
	const json_t *v = hwc_q_fw_effective(p);
	if (!v) {
		hwc_q_find(p, "next_boot", val, &why, c->a);
		/* mstconfig did not print it: this firmware does not offer the parameter (or it is
		 * hidden behind a switch that is off), which is an answer, not an unknown */
		if (!strncmp(why, "unsupported: not printed by mstconfig", 37))
			return 0;
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.fw_config.%s.current", fv_adapter_path(c, bdf), name), why, NULL);
		return -1;
	}
	*val = v;
	return 1;
}

bool hwc_fwc_true(const json_t *v)
{
	const char *s = json_string_value(v);
	return json_is_true(v) || (json_is_integer(v) && json_integer_value(v) != 0) ||
	       (s && (!strncasecmp(s, "true", 4) || !strcmp(s, "1")));
}

static void eval_fw_restrict(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	FOR_ADAPTERS(c, i, ad) {
		const char *bdf = bdf_of(ad);
		const json_t *v;
		int r = hwc_fwc_current(c, ad, "PCI_BUS0_RESTRICT", &v);
		if (r <= 0 || !hwc_fwc_true(v))
			continue;
		const json_t *sp = hwc_q_fw_value(ad, "PCI_BUS0_RESTRICT_SPEED", "current");
		const json_t *wd = hwc_q_fw_value(ad, "PCI_BUS0_RESTRICT_WIDTH", "current");
		const json_t *as = hwc_q_fw_value(ad, "PCI_BUS0_RESTRICT_ASPM", "current");
		char *what = hwc_arena_printf(c->a, "speed %s, width %s, ASPM %s",
					      json_string_value(sp) ? json_string_value(sp) : "?",
					      json_string_value(wd) ? json_string_value(wd) : "?",
					      json_string_value(as) ? json_string_value(as) : "?");
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the card's firmware restricts its own PCIe link (%s)", what);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.PCI_BUS0_RESTRICT.current", fv_adapter_path(c, bdf)),
				 json_string_value(v) ? json_string_value(v) : "True", "False");
	}
}

/* ---- shared links: rails that pass alone and starve together ------------------------------- */

#define MAX_CARDS 64

static int gen_of(double gts)
{
	return gts == 2.5 ? 1 : gts == 5 ? 2 : gts == 8 ? 3 : gts == 16 ? 4 : gts == 32 ? 5 : gts == 64 ? 6 : 0;
}

/* Each card counts once, at its port rate (what PCIE_PATH_BOTTLENECK weighs its own path
 * against); the link carries at most its payload Gb/s for all of them together. */
static void judge_shared(struct hwc_rule_ctx *c, const struct hwc_pci_shared_link *l,
			 const json_t *const *ads, const char *const *bdfs, size_t n)
{
	double sum = 0, first = 0;
	bool same = true;
	size_t k = 0;
	const char *cards = "";
	for (size_t i = 0; i < n; i++) {
		if (!(l->members & (1ull << i)))
			continue;
		const char *src;
		double r = hwc_q_adapter_port_rate(c->facts, ads[i], &src);
		if (r <= 0) {
			hwc_rule_unknown(c, l->port_bdf, hwc_arena_printf(c->a, "%s.ports[].rate_gbps", fv_adapter_path(c, bdfs[i])),
					 "not_collected: no port rate, netdev speed or product maximum", NULL);
			return;
		}
		same = same && (k == 0 || r == first);
		first = k ? first : r;
		sum += r;
		cards = hwc_arena_printf(c->a, "%s%s%s", cards, k ? ", " : "", bdfs[i]);
		k++;
	}
	const char *lpath = hwc_arena_printf(c->a, "%s.link", fv_pci_path(c, l->port_bdf));
	if (l->speed_gts <= 0 || l->width <= 0) {
		hwc_rule_unknown(c, l->port_bdf, lpath, "not_collected: the shared link's speed or width is unknown", NULL);
		return;
	}
	double g = l->gbps;
	if (g <= 0) { /* an MPS unknown: payload is between 0.8 x raw and raw */
		if (l->raw_gbps * 0.8 >= sum)
			return;
		if (l->raw_gbps >= sum) {
			hwc_rule_unknown(c, l->port_bdf, fv_pci_path(c, bdfs[0]),
					 "not_collected: max_payload_bytes unknown (needs root)", NULL);
			return;
		}
		g = l->raw_gbps;
	}
	if (g >= sum)
		return;
	const char *who = same ? hwc_arena_printf(c->a, "%zu x %s Gb/s ports", k, fv_fmt_num(c->a, first))
			       : hwc_arena_printf(c->a, "%zu ports (%s Gb/s in all)", k, fv_fmt_num(c->a, sum));
	struct hwc_finding *fd = hwc_rule_emit(
		c, l->port_bdf, "%s share a Gen%d x%d %s at %s: %s Gb/s for %s Gb/s (cards %s); each "
		"alone may pass, together they cannot", who, gen_of(l->speed_gts), l->width,
		l->switch_uplink ? "uplink" : "link", l->port_bdf,
		fv_fmt_num(c->a, g), fv_fmt_num(c->a, sum), cards);
	hwc_evidence_add(fd, c->a, lpath,
			 hwc_arena_printf(c->a, "%s, %s Gb/s%s", link_str(c->a, l->speed_gts, l->width),
					  fv_fmt_num(c->a, g), l->gbps > 0 ? " of payload" : " raw"),
			 hwc_arena_printf(c->a, ">= %s Gb/s", fv_fmt_num(c->a, sum)));
	for (size_t i = 0; i < n; i++) {
		const char *src;
		if (l->members & (1ull << i))
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.path", fv_pci_path(c, bdfs[i])),
					 hwc_arena_printf(c->a, "crosses %s at %s Gb/s", l->port_bdf,
							  fv_fmt_num(c->a, hwc_q_adapter_port_rate(c->facts, ads[i], &src))),
					 NULL);
	}
}

static void eval_shared_link(struct hwc_rule_ctx *c)
{
	const char *bdfs[MAX_CARDS];
	const json_t *ads[MAX_CARDS];
	size_t n = 0, i;
	const json_t *ad, *devs;
	const char *why;
	if (json_array_size(hwc_q_adapters(c->facts)) < 2)
		return; /* one card shares its links with no other card */
	if (!hwc_q_find(c->facts, "pci.devices", &devs, &why, c->a)) {
		hwc_rule_unknown(c, "host", "pci.devices", why ? why : "not_collected", NULL);
		return;
	}
	FOR_ADAPTERS(c, i, ad) {
		const json_t *dev = hwc_q_pci_dev(c->facts, bdf_of(ad));
		if (n < MAX_CARDS && dev && !json_is_true(hwc_q_get(dev, "is_vf"))) {
			ads[n] = ad;
			bdfs[n++] = bdf_of(ad);
		}
	}
	struct hwc_pci_shared_link ls[32];
	size_t nl = hwc_pci_shared_links(devs, bdfs, n, ls, HWC_ARRAY_SIZE(ls));
	for (size_t k = 0; k < nl; k++)
		judge_shared(c, &ls[k], ads, bdfs, n);
}

const struct hwc_rule hwc_rules_pci[] = {
	{"PCIE_LINK_DOWNGRADED", HWC_SEV_ERROR, "pci", "PCIe link trained below what both ends support",
	 "The card and the port above it can both run a faster or wider link than the one that trained. "
	 "This is lost bandwidth with no design reason: a dirty or loose connector, a riser, a marginal "
	 "signal, or a BIOS setting forcing a lower speed. Only flagged when both ends can do more (a card "
	 "in a smaller slot is PCIE_LINK_SLOT_LIMITED instead).",
	 "Retrain the link from the port above: `setpci -s <PORT> CAP_EXP+10.w=20:20`; if it trains "
	 "low again, reseat the card (and any riser) and check the BIOS PCIe speed setting for the slot.",
	 eval_downgraded},
	{"PCIE_LINK_SLOT_LIMITED", HWC_SEV_INFO, "pci", "PCIe link limited by the slot",
	 "The card can do more than the port above it (a Gen5 card in a Gen4 slot, an x16 card in an x8 "
	 "slot). The link runs at the best the slot allows, which is correct; the finding states the cost "
	 "in Gb/s so it can be weighed against the port rate (PCIE_PATH_BOTTLENECK flags it when it hurts).",
	 "Move the card to a slot wired for its full speed and width (see the board manual's slot table).",
	 eval_slot_limited},
	{"PCIE_PATH_BOTTLENECK", HWC_SEV_ERROR, "pci", "PCIe path slower than the network port",
	 "The slowest hop between the card and the root port carries fewer Gb/s than the card's port "
	 "rate, so the network link can never be filled (e.g. 100 GbE behind a Gen3 x8 hop: 63 Gb/s). "
	 "The hop is named: the card's own link, a switch or a riser. When the hops above the card were "
	 "not captured (a dump of the card alone, a VM), a card whose own link already carries less than "
	 "the port rate is flagged all the same: the path can only be slower.",
	 "Move the card to a slot whose whole path (root port and any switch) runs at least the card's "
	 "width and speed; for the named hop check its BIOS bifurcation setting.",
	 eval_path_bottleneck},
	{"PCIE_SHARED_LINK_OVERSUBSCRIBED", HWC_SEV_WARN, "pci", "Cards share a PCIe link slower than their ports together",
	 "Rails are used together: cards whose paths cross the same link (a PCIe switch's uplink, the "
	 "link below a root port) share its bandwidth. Each can pass alone and still starve the others "
	 "when all run at once (four 400 Gb/s cards behind one Gen5 x16 uplink get about 120 Gb/s each). "
	 "Each card counts once, at its port rate; the link carries its payload Gb/s (after encoding and "
	 "TLP overhead at the cards' MPS). `hwcheck probe --all-ports` measures it.",
	 "Spread the cards over switches or root ports whose uplinks carry their sum (see the board's "
	 "slot-to-switch map), or accept the shared ceiling and plan traffic for it.",
	 eval_shared_link},
	{"PCIE_LINK_BELOW_PROFILE", HWC_SEV_WARN, "pci", "PCIe link below the profile's expectation for the product",
	 "The site profile says this product should run at least a given PCIe generation and width.",
	 "Install the card in a slot that provides the expected generation and width, or correct the profile.",
	 eval_below_profile},
	{"PCIE_MPS_SMALL", HWC_SEV_WARN, "pci", "PCIe Max Payload Size too small for the port rate",
	 "Each TLP carries about 24 bytes of overhead; at 128-byte payloads that is ~16% of the link, "
	 "which matters at 100 Gb/s and up. The card and every hop support more, so the setting (BIOS or "
	 "kernel) is the limit.",
	 "Set the BIOS 'PCIe Max Payload Size' to Auto/the largest value, or boot with `pci=pcie_bus_perf`.",
	 eval_mps},
	{"PCIE_MRRS_SMALL", HWC_SEV_WARN, "pci", "PCIe Max Read Request Size too small for the port rate",
	 "Small read requests cap the card's DMA read throughput (transmit path and RDMA reads) at high "
	 "port rates; ConnectX cards are tuned for 4096-byte read requests.",
	 "`setpci -s <BDF> CAP_EXP+8.w=5000:7000` (MaxReadReq 4096), persisted with a udev rule or boot "
	 "script; some BIOSes have a 'Max Read Request' setting.",
	 eval_mrrs},
	{"PCIE_RELAXED_ORDERING_OFF", HWC_SEV_WARN, "pci", "Relaxed Ordering disabled on the card",
	 "Without Relaxed Ordering the root complex must complete the card's writes in order, which "
	 "caps DMA throughput on AMD EPYC and many ARM hosts. Linux clears it on purpose only behind "
	 "root ports with a known erratum (those are not flagged); on a VF the bit is reserved.",
	 "Enable it: `setpci -s <BDF> CAP_EXP+8.w=0010:0010`; check the BIOS for a 'Relaxed Ordering' option.",
	 eval_relaxed_ordering},
	{"PCIE_AER_ERRORS", HWC_SEV_ERROR, "pci", "PCIe AER errors counted on the card",
	 "Correctable errors (warn) mean replays that cost bandwidth and usually a marginal link; "
	 "uncorrectable ones (error) corrupt or drop transactions and precede link failures.",
	 "Reseat the card and any riser, check cooling, then watch `/sys/bus/pci/devices/<BDF>/aer_dev_*`; "
	 "replace the riser or move the card if they keep rising.",
	 eval_aer},
	{"PCIE_LANE_ERRORS", HWC_SEV_WARN, "pci", "Lanes of the card's PCIe link latched errors",
	 "Each end of a link of 8 GT/s or more has a Lane Error Status register (Secondary PCI Express "
	 "capability, PCIe Base Specification 7.7.3.3; lspci's LaneErrStat): one bit per lane, set when "
	 "that lane fails its framing, block-alignment or symbol checks, kept until software clears it. "
	 "Some lanes of the trained link flagged and not the others (warn) points at one marginal lane: "
	 "a connector, riser or cable that makes the link replay and can make it retrain narrower. Every "
	 "lane flagged (info) is what training at power-up often leaves: the real capture of a Haswell "
	 "root port above a ConnectX-3 Pro (pciutils tests/cap-aer-root) shows lanes 0-7 of its 8 GT/s "
	 "x8 link flagged with no AER error counted. The card's end (its function 0) and the port above "
	 "it are read; lanes past the trained width are not; a facts file from before lane_errors "
	 "existed is not judged.",
	 "Clear the bits at the named end, `setpci -s <END> ECAP_SECPCI+8.l=ffffffff` (write 1 to "
	 "clear), run traffic and read `lspci -vvv -s <END>` again: lanes that come back are marginal; "
	 "reseat the card and any riser or cable, then move the card to another slot if they persist.",
	 eval_lane_errors},
	{"PCIE_ASPM_ENABLED", HWC_SEV_WARN, "pci", "ASPM enabled on the card's link",
	 "Active State Power Management puts the link into L0s/L1 when idle; the exit latency hurts "
	 "latency-sensitive and bursty traffic. A multi-function card (two PFs on one link) is judged "
	 "as PCIe r5.0 7.5.3.7 (ASPM Control) says: an ARI Device (every function has the ARI "
	 "capability, as every ConnectX lspci capture in the corpus shows) follows function 0's field "
	 "alone; a non-ARI multi-function device enables only what all its functions enable; unknown "
	 "where the two readings differ and the ARI capability was not read (no extended config "
	 "space).",
	 "Boot with `pcie_aspm=off`, or `echo performance > /sys/module/pcie_aspm/parameters/policy`, "
	 "or disable ASPM for the slot in the BIOS.",
	 eval_aspm},
	{"PCIE_SLOT_POWER_LOW", HWC_SEV_WARN, "pci", "Slot power not advertised or below what the card needs",
	 "The slot's Set_Slot_Power_Limit message tells the card how much it may draw. 0 W means it was "
	 "never sent: ConnectX firmware then limits itself to 25 W and may shut network modules down.",
	 "Update the BIOS (slot power is the platform's job), use a slot that advertises power, or see "
	 "MLX_SLOT_POWER_LIMITER for the firmware side.",
	 eval_slot_power},
	{"PCIE_FW_LINK_RESTRICTED", HWC_SEV_WARN, "pci", "Card firmware restricts its own PCIe link",
	 "mlxconfig PCI_BUS0_RESTRICT (with _SPEED, _WIDTH, _ASPM) makes the card train a lower link "
	 "than it and the slot could: a downgraded link that no reseat will fix.",
	 "`mstconfig -d <BDF> set PCI_BUS0_RESTRICT=0` and reboot (or `mstfwreset -d <BDF> reset`).",
	 eval_fw_restrict},
	HWC_RULES_END,
};

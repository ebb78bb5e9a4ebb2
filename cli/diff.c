/* SPDX-License-Identifier: MIT */
/* The diff engine: match cards across two facts documents and name what changed or regressed. */
#include "cli/diff.h"
#include "cli/diff_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json.h"
#include "core/query.h"
#include "core/util.h"

struct cards {
	struct card *v;
	size_t n;
};


static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Is bdf one of the card's functions (a sensor or probe result tied to that function)? */
static bool card_has_function(const struct card *c, const char *bdf)
{
	if (!bdf)
		return false;
	if (c->adapter)
		return hwc_q_adapter_has_function(c->adapter, bdf);
	return streq(c->bdf, bdf);
}

static int add_card(struct cards *cs, const json_t *facts, const json_t *ad, const char *bdf)
{
	struct card *n = realloc(cs->v, (cs->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	cs->v = n;
	struct card *c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	c->bdf = bdf;
	c->adapter = ad;
	c->facts = facts;
	c->pcidev = hwc_q_pci_dev(facts, bdf);
	c->peer = -1;
	c->serial = hwc_q_string(ad, "serial_number");
	if (!c->serial)
		c->serial = hwc_q_string(hwc_q_get(c->pcidev, "vpd"), "serial_number");
	c->product = hwc_q_string(ad, "product");
	if (!c->product)
		c->product = hwc_q_string(hwc_q_get(c->pcidev, "vpd"), "product_name");
	return 0;
}

/* Cards are mlx.adapters[]; a Mellanox PCI function 0 that no adapter names is a card too (the mlx
 * collector may have failed on one side while PCI still saw the card). */
static int collect_cards(const json_t *facts, struct cards *cs)
{
	size_t i;
	const json_t *ad;
	const json_t *ads = hwc_q_adapters(facts);
	json_array_foreach(ads, i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		if (bdf && add_card(cs, facts, ad, bdf) < 0)
			return -1;
	}
	const json_t *d;
	json_array_foreach(hwc_q_pci_devices(facts), i, d) {
		const char *bdf = hwc_q_string(d, "bdf");
		size_t bl = bdf ? strlen(bdf) : 0;
		if (!streq(hwc_q_string(d, "vendor_id"), "15b3") || bl < 2 || strcmp(bdf + bl - 2, ".0") ||
		    json_is_true(hwc_q_get(d, "is_vf")))
			continue;
		const char *cls = hwc_q_string(d, "class");
		if (cls && strncmp(cls, "02", 2) != 0 && strncmp(cls, "0c", 2) != 0)
			continue; /* bridges of a BlueField, not cards */
		bool known = false;
		size_t k;
		const json_t *a2;
		json_array_foreach(ads, k, a2)
			known = known || hwc_q_adapter_has_function(a2, bdf);
		if (!known && add_card(cs, facts, NULL, bdf) < 0)
			return -1;
	}
	return 0;
}

/* Serial first (a card moved to another slot is still itself); then the PCI address, unless both
 * sides know serials and they differ (a card swapped in the same slot is another card). */
static void match_cards(struct cards *b, struct cards *a)
{
	for (size_t i = 0; i < b->n; i++) {
		for (size_t j = 0; j < a->n && b->v[i].serial; j++) {
			if (a->v[j].peer < 0 && streq(b->v[i].serial, a->v[j].serial)) {
				b->v[i].peer = (int)j;
				a->v[j].peer = (int)i;
				b->v[i].match = a->v[j].match = "serial";
				break;
			}
		}
	}
	for (size_t i = 0; i < b->n; i++) {
		if (b->v[i].peer >= 0)
			continue;
		for (size_t j = 0; j < a->n; j++) {
			if (a->v[j].peer >= 0 || !streq(b->v[i].bdf, a->v[j].bdf))
				continue;
			if (b->v[i].serial && a->v[j].serial)
				continue;
			b->v[i].peer = (int)j;
			a->v[j].peer = (int)i;
			b->v[i].match = a->v[j].match = "bdf";
			break;
		}
	}
}

/* ------------------------------------------------------------------ changes */

void hwc_diff_fmt_value(char *buf, size_t sz, const json_t *v)
{
	if (!v || json_is_null(v))
		snprintf(buf, sz, "unknown");
	else if (!hwc_json_scalar_text(buf, sz, v)) {
		char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
		snprintf(buf, sz, "%s", s ? s : "?");
		free(s);
	}
}

json_t *hwc_diff_add(struct ctx *x, const char *kind, const char *item, const json_t *before,
		     const json_t *after, const char *verdict, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_t *c = json_object();
	if (!c)
		return NULL;
	json_object_set_new(c, "kind", json_string(kind));
	json_object_set_new(c, "item", hwc_json_string(item));
	json_object_set_new(c, "before", before ? json_deep_copy(before) : json_null());
	json_object_set_new(c, "after", after ? json_deep_copy(after) : json_null());
	json_object_set_new(c, "verdict", json_string(verdict));
	json_object_set_new(c, "message", hwc_json_string(msg));
	json_array_append_new(x->changes, c);
	if (!strcmp(verdict, "regression"))
		x->n_reg++;
	else if (!strcmp(verdict, "improvement"))
		x->n_imp++;
	else if (!strcmp(verdict, "unknown"))
		x->n_unk++;
	else
		x->n_chg++;
	return c;
}

/* Known on both sides and different: a change; known before and unknown now: visibility lost. */
void hwc_diff_cmp_plain(struct ctx *x, const char *kind, const char *item, const json_t *b,
		      const json_t *a, const char *what)
{
	char bs[128], as[128];
	hwc_diff_fmt_value(bs, sizeof(bs), b);
	hwc_diff_fmt_value(as, sizeof(as), a);
	if (b && a) {
		if (!json_equal(b, a))
			hwc_diff_add(x, kind, item, b, a, "change", "%s: %s -> %s", what, bs, as);
	} else if (b && !a) {
		hwc_diff_add(x, kind, item, b, NULL, "unknown", "%s: was %s, now unknown", what, bs);
	}
}

/* A number where lower is worse: a drop is a regression, a rise an improvement. */
static void cmp_lower_worse(struct ctx *x, const char *kind, const char *item, const json_t *b,
			    const json_t *a, const char *what, const char *unit)
{
	if (!json_is_number(b) || !json_is_number(a)) {
		hwc_diff_cmp_plain(x, kind, item, b, a, what);
		return;
	}
	double bv = json_number_value(b), av = json_number_value(a);
	if (av == bv)
		return;
	hwc_diff_add(x, kind, item, b, a, av < bv ? "regression" : "improvement", "%s: %g%s -> %g%s", what,
	    bv, unit, av, unit);
}

static bool is_active(const char *state)
{
	return state && strcasestr(state, "active") && !strcasestr(state, "inactive");
}

static void diff_ports(struct ctx *x, const json_t *bports, const json_t *aports)
{
	size_t i;
	const json_t *bp;
	json_array_foreach(bports, i, bp) {
		const json_t *pn = hwc_q_get(bp, "port");
		const json_t *ap = NULL, *cand;
		size_t k;
		json_array_foreach(aports, k, cand)
			if (pn && json_equal(hwc_q_get(cand, "port"), pn) &&
			    (!hwc_q_string(bp, "rdma_device") || !hwc_q_string(cand, "rdma_device") ||
			     streq(hwc_q_string(bp, "rdma_device"), hwc_q_string(cand, "rdma_device"))))
				ap = cand;
		char name[96], item[160], what[160];
		long long port = json_integer_value(pn);
		const char *dev = hwc_q_string(bp, "rdma_device");
		if (dev)
			snprintf(name, sizeof(name), "%.64s port %lld", dev, port);
		else
			snprintf(name, sizeof(name), "port %lld", port);
		if (!ap) {
			hwc_diff_add(x, "port", name, NULL, NULL, "unknown", "%s: no longer reported", name);
			continue;
		}
		const char *bs = hwc_q_string(bp, "state"), *as = hwc_q_string(ap, "state");
		snprintf(item, sizeof(item), "%s state", name);
		if (bs && as && strcmp(bs, as) != 0)
			hwc_diff_add(x, "port", item, hwc_q_get(bp, "state"), hwc_q_get(ap, "state"),
			    is_active(bs) && !is_active(as) ? "regression" : "change", "%s: %s -> %s",
			    name, bs, as);
		snprintf(item, sizeof(item), "%s rate_gbps", name);
		snprintf(what, sizeof(what), "%s rate", name);
		cmp_lower_worse(x, "port", item, hwc_q_get(bp, "rate_gbps"), hwc_q_get(ap, "rate_gbps"),
				what, " Gb/s");
		snprintf(item, sizeof(item), "%s active_mtu", name);
		snprintf(what, sizeof(what), "%s MTU", name);
		hwc_diff_cmp_plain(x, "port", item, hwc_q_get(bp, "active_mtu"), hwc_q_get(ap, "active_mtu"), what);
	}
}

static void diff_pci(struct ctx *x, const struct card *b, const struct card *a)
{
	const json_t *bd = b->pcidev, *ad = a->pcidev;
	if (!bd || !ad) {
		if (bd && !ad)
			hwc_diff_add(x, "pcie_link", "pci", NULL, NULL, "unknown",
			    "PCI function %s was seen, now it is not", b->bdf);
		return;
	}
	const json_t *bl = hwc_q_pci_link(bd), *al = hwc_q_pci_link(ad);
	cmp_lower_worse(x, "pcie_link", "link.speed_gts", hwc_q_get(bl, "speed_gts"),
			hwc_q_get(al, "speed_gts"),
		"PCIe link speed", " GT/s");
	cmp_lower_worse(x, "pcie_link", "link.width", hwc_q_get(bl, "width"), hwc_q_get(al, "width"),
			"PCIe link width", " lanes");
	hwc_diff_cmp_plain(x, "pcie_link", "link.cap_speed_gts", hwc_q_get(bl, "cap_speed_gts"),
		  hwc_q_get(al, "cap_speed_gts"), "PCIe link capability speed");
	hwc_diff_cmp_plain(x, "pcie_link", "link.cap_width", hwc_q_get(bl, "cap_width"), hwc_q_get(al, "cap_width"),
		  "PCIe link capability width");
	hwc_diff_cmp_plain(x, "pcie_link", "link_status", hwc_q_get(bd, "link_status"), hwc_q_get(ad, "link_status"),
		  "PCIe link status");
	cmp_lower_worse(x, "pcie_link", "max_payload_bytes", hwc_q_get(bd, "max_payload_bytes"),
		hwc_q_get(ad, "max_payload_bytes"), "PCIe max payload", " bytes");
	cmp_lower_worse(x, "pcie_link", "max_read_request_bytes", hwc_q_get(bd, "max_read_request_bytes"),
		hwc_q_get(ad, "max_read_request_bytes"), "PCIe max read request", " bytes");
	hwc_diff_cmp_plain(x, "pcie_link", "relaxed_ordering", hwc_q_get(bd, "relaxed_ordering"),
		  hwc_q_get(ad, "relaxed_ordering"), "PCIe relaxed ordering enable");
	hwc_diff_cmp_plain(x, "pcie_path", "path", hwc_q_get(bd, "path"), hwc_q_get(ad, "path"),
		  "PCIe path to the root port");
	/* The card's own link already speaks for itself; the bottleneck adds news only upstream. */
	const json_t *bb = hwc_q_path_bottleneck(bd), *ab = hwc_q_path_bottleneck(ad);
	const char *abdf = hwc_q_string(ab, "bdf");
	const json_t *path = hwc_q_get(ad, "path");
	if (abdf && !streq(abdf, a->bdf) && !streq(abdf, hwc_q_pci_upstream(ad)) &&
	    !streq(abdf, json_string_value(json_array_get(path, 1))))
		cmp_lower_worse(x, "pcie_path", "path_bottleneck.gbps", hwc_q_get(bb, "gbps"),
				hwc_q_get(ab, "gbps"),
			"PCIe path bottleneck", " Gb/s");
}

/* Temperatures are kept in m°C and told in °C; a rise beyond the noise is a regression. */
static void cmp_temp(struct ctx *x, const char *item, const json_t *b, const json_t *a)
{
	if (!json_is_number(b) || !json_is_number(a)) {
		hwc_diff_cmp_plain(x, "temperature", item, b, a, item);
		return;
	}
	double bv = json_number_value(b) / 1000.0, av = json_number_value(a) / 1000.0;
	if (fabs(av - bv) <= x->o->temp_noise_degc)
		return;
	hwc_diff_add(x, "temperature", item, b, a, av > bv ? "regression" : "improvement",
	    "temperature %s: %.1f -> %.1f °C (%+.1f, noise %.1f)", item, bv, av, av - bv,
	    x->o->temp_noise_degc);
}

static void diff_temps(struct ctx *x, const struct card *b, const struct card *a)
{
	size_t i, k;
	const json_t *bs, *as;
	json_array_foreach(hwc_q_thermal_sensors(b->facts), i, bs) {
		if (!card_has_function(b, hwc_q_string(bs, "bdf")))
			continue;
		json_array_foreach(hwc_q_thermal_sensors(a->facts), k, as) {
			if (!card_has_function(a, hwc_q_string(as, "bdf")) ||
			    !hwc_q_same(bs, as, "chip") || !hwc_q_same(bs, as, "label") ||
			    !streq(hwc_q_string(bs, "source"), hwc_q_string(as, "source")))
				continue;
			char item[200];
			snprintf(item, sizeof(item), "%.16s %.80s %.80s",
				 hwc_q_string(bs, "source") ? hwc_q_string(bs, "source") : "?",
				 hwc_q_string(bs, "chip") ? hwc_q_string(bs, "chip") : "?",
				 hwc_q_string(bs, "label") ? hwc_q_string(bs, "label") : "");
			cmp_temp(x, item, hwc_q_get(bs, "temp_mdegc"), hwc_q_get(as, "temp_mdegc"));
			break;
		}
	}
	cmp_temp(x, "ASIC (MTMP register)", hwc_q_get(hwc_q_registers(b->adapter), "temp_mdegc"),
		 hwc_q_get(hwc_q_registers(a->adapter), "temp_mdegc"));
}

static bool probe_of_card(const struct card *c, const json_t *r)
{
	if (card_has_function(c, hwc_q_string(r, "bdf")))
		return true;
	const char *dev = hwc_q_string(r, "rdma_device");
	size_t i;
	const json_t *d;
	json_array_foreach(hwc_q_get(c->adapter, "rdma_devices"), i, d)
		if (streq(json_string_value(d), dev))
			return true;
	return false;
}

/* Ports measured together (--all-ports) are compared only with ports measured together; a
 * file from before --all-ports measured each port alone. */
static json_int_t concurrent_of(const json_t *r)
{
	const json_t *c = hwc_q_get(r, "concurrent");
	return json_is_integer(c) ? json_integer_value(c) : 1;
}

static bool same_probe(const json_t *p, const json_t *q)
{
	static const char *const keys[] = {"rdma_device", "port", "op", "mode", "msg_bytes", "qps",
					   "direction", "netdev"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(keys); i++) {
		/* absent from both, or the same in both (null included) */
		if ((hwc_q_has(p, keys[i]) || hwc_q_has(q, keys[i])) && !hwc_q_same(p, q, keys[i]))
			return false;
	}
	return concurrent_of(p) == concurrent_of(q);
}

static void diff_probe(struct ctx *x, const struct card *b, const struct card *a)
{
	size_t i, k;
	const json_t *br, *ar;
	json_array_foreach(hwc_q_probe_results(b->facts), i, br) {
		if (!probe_of_card(b, br))
			continue;
		json_array_foreach(hwc_q_probe_results(a->facts), k, ar) {
			if (!probe_of_card(a, ar) || !same_probe(br, ar))
				continue;
			const json_t *bg = hwc_q_get(br, "gbps"), *ag = hwc_q_get(ar, "gbps");
			char item[160];
			snprintf(item, sizeof(item), "%s %s %lld B x%lld qp",
				 hwc_q_string(br, "op") ? hwc_q_string(br, "op") : "?",
				 hwc_q_string(br, "mode") ? hwc_q_string(br, "mode") : "?",
				 (long long)json_integer_value(hwc_q_get(br, "msg_bytes")),
				 (long long)json_integer_value(hwc_q_get(br, "qps")));
			if (json_is_number(bg) && json_is_number(ag) && json_number_value(bg) > 0) {
				double bv = json_number_value(bg), av = json_number_value(ag);
				double pct = (av - bv) / bv * 100.0;
				if (fabs(pct) > x->o->probe_tol_pct)
					hwc_diff_add(x, "probe", item, bg, ag, pct < 0 ? "regression" : "improvement",
					    "probe %s: %.2f -> %.2f Gb/s (%+.1f %%)", item, bv, av, pct);
			}
			break;
		}
	}
}

static json_t *card_json(const struct card *c, const struct card *other, bool after_side)
{
	json_t *o = json_object();
	const struct card *b = after_side ? other : c, *a = after_side ? c : other;
	json_object_set_new(o, "bdf", json_string(a ? a->bdf : b->bdf));
	json_object_set_new(o, "bdf_before", b ? json_string(b->bdf) : json_null());
	json_object_set_new(o, "bdf_after", a ? json_string(a->bdf) : json_null());
	const char *serial = (a && a->serial) ? a->serial : b ? b->serial : NULL;
	const char *product = (a && a->product) ? a->product : b ? b->product : NULL;
	json_object_set_new(o, "serial_number", serial ? hwc_json_string(serial) : json_null());
	json_object_set_new(o, "product", product ? hwc_json_string(product) : json_null());
	json_object_set_new(o, "matched_by", c->match ? json_string(c->match) : json_null());
	return o;
}

static void diff_card(struct ctx *x, const struct card *b, const struct card *a)
{
	hwc_diff_cmp_plain(x, "firmware", "fw_version", hwc_q_get(b->adapter, "fw_version"),
		  hwc_q_get(a->adapter, "fw_version"), "firmware");
	hwc_diff_cmp_plain(x, "firmware", "fw_version_stored", hwc_q_get(b->adapter, "fw_version_stored"),
		  hwc_q_get(a->adapter, "fw_version_stored"), "firmware on flash");
	hwc_diff_cmp_plain(x, "firmware", "psid", hwc_q_get(b->adapter, "psid"), hwc_q_get(a->adapter, "psid"),
		  "PSID");
	if (!streq(b->bdf, a->bdf))
		hwc_diff_add(x, "pcie_path", "bdf", hwc_q_get(b->adapter ? b->adapter : b->pcidev, "bdf"),
		    hwc_q_get(a->adapter ? a->adapter : a->pcidev, "bdf"), "change",
		    "the card moved: %s -> %s", b->bdf, a->bdf);
	hwc_diff_fw_config(x, b, a);
	diff_pci(x, b, a);
	diff_ports(x, hwc_q_get(b->adapter, "ports"), hwc_q_get(a->adapter, "ports"));
	diff_temps(x, b, a);
	diff_probe(x, b, a);
}

static void diff_host(struct ctx *x, const json_t *bf, const json_t *af)
{
	const json_t *bh = hwc_q_get(bf, "host"), *ah = hwc_q_get(af, "host");
	hwc_diff_cmp_plain(x, "host", "kernel.release", hwc_q_at(bh, "kernel.release"),
		  hwc_q_at(ah, "kernel.release"), "kernel");
	hwc_diff_cmp_plain(x, "host", "dmi.bios_version", hwc_q_at(bh, "dmi.bios_version"),
		  hwc_q_at(ah, "dmi.bios_version"), "BIOS version");
	hwc_diff_cmp_plain(x, "host", "dmi.bios_date", hwc_q_at(bh, "dmi.bios_date"),
		  hwc_q_at(ah, "dmi.bios_date"), "BIOS date");
	hwc_diff_cmp_plain(x, "host", "kernel.cmdline", hwc_q_at(bh, "kernel.cmdline"),
		  hwc_q_at(ah, "kernel.cmdline"), "kernel command line");
}

static const char *card_status(const json_t *changes)
{
	const char *st = "unchanged";
	size_t i;
	const json_t *c;
	json_array_foreach(changes, i, c) {
		const char *v = hwc_q_string(c, "verdict");
		if (streq(v, "regression"))
			return "regressed";
		st = "changed";
	}
	return st;
}

json_t *hwc_diff_facts(const json_t *before, const json_t *after, const struct hwc_diff_opts *o)
{
	struct cards b = {0}, a = {0};
	json_t *out = json_object(), *cards = json_array(), *host = json_object(),
	       *hch = json_array();
	struct ctx x = {.o = o, .a = hwc_arena_new()};
	if (!out || !cards || !host || !hch || !x.a || collect_cards(before, &b) < 0 ||
	    collect_cards(after, &a) < 0)
		goto oom;
	match_cards(&b, &a);
	long long appeared = 0, vanished = 0, matched = 0;
	for (size_t j = 0; j < a.n; j++) {
		const struct card *ac = &a.v[j];
		const struct card *bc = ac->peer >= 0 ? &b.v[ac->peer] : NULL;
		json_t *cj = card_json(ac, bc, true);
		json_t *ch = json_array();
		if (!cj || !ch) {
			json_decref(cj);
			json_decref(ch);
			goto oom;
		}
		x.changes = ch;
		if (bc) {
			matched++;
			diff_card(&x, bc, ac);
			hwc_diff_fw_state(&x, bc, ac, cj);
			json_object_set_new(cj, "status", json_string(card_status(ch)));
		} else {
			appeared++;
			x.n_chg++;
			json_object_set_new(cj, "status", json_string("appeared"));
		}
		json_object_set_new(cj, "changes", ch);
		json_array_append_new(cards, cj);
	}
	for (size_t i = 0; i < b.n; i++) {
		if (b.v[i].peer >= 0)
			continue;
		json_t *cj = card_json(&b.v[i], NULL, false);
		if (!cj)
			goto oom;
		/* A card that no longer enumerates after an update is the worst outcome there is. */
		vanished++;
		x.n_reg++;
		json_object_set_new(cj, "status", json_string("vanished"));
		json_object_set_new(cj, "changes", json_array());
		json_array_append_new(cards, cj);
	}
	x.changes = hch;
	diff_host(&x, before, after);
	json_object_set_new(host, "changes", hch);
	hch = NULL;
	json_object_set_new(out, "cards", cards);
	cards = NULL;
	json_object_set_new(out, "host", host);
	host = NULL;
	json_t *sum = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "regressions",
				(json_int_t)x.n_reg, "changes", (json_int_t)x.n_chg, "improvements",
				(json_int_t)x.n_imp, "unknown", (json_int_t)x.n_unk, "cards_matched",
				(json_int_t)matched, "cards_appeared", (json_int_t)appeared,
				"cards_vanished", (json_int_t)vanished);
	if (!sum)
		goto oom;
	json_object_set_new(out, "summary", sum);
	free(b.v);
	free(a.v);
	hwc_arena_free(x.a);
	return out;
oom:
	hwc_arena_free(x.a);
	json_decref(out);
	json_decref(cards);
	json_decref(host);
	json_decref(hch);
	free(b.v);
	free(a.v);
	return NULL;
}

long long hwc_diff_regressions(const json_t *diff)
{
	return json_integer_value(hwc_q_at(diff, "summary.regressions"));
}

/* SPDX-License-Identifier: MIT */
/* The per-card view: for every ConnectX card, healthy ones too, one block of checked items
 * (product, firmware, PCIe link and path, slot power, temperature, firmware parameters, ports),
 * each with its value and its verdict: ok, the finding that judged it, or unknown and why. Built
 * as JSON ("cards" in the report) from the facts and the findings; the text block is rendered
 * from that JSON, so every value shown is also in the JSON.
 *
 * A new fact gets its line with one entry in `items` below: a key, a label, whether it is per
 * port, a function that writes the value, and the rules that judge it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json.h"
#include "core/query.h"
#include "core/util.h"
#include "cli/cards_int.h"
#include "pci/pci.h"

#define vput hwc_cards_vput
#define why hwc_cards_why
#define unknown(v, obj, key) hwc_cards_unknown(v, obj, key)

/* Built once per report so that each card finds its netdevs, PCI function, sensors and findings
 * by key, not by scanning every card's (linear cost on hosts with thousands of functions). */
/* Netdevs, PCI functions and sensors are looked up through core/query.h's index (built once
 * per report, hwc_q_index_begin); the findings are grouped by card here. */
struct cards_index {
	size_t *by_card;   /* indexes of the findings that name a card, sorted by card then index */
	size_t n_by_card;
};

/* The findings of one card, in report order; claimed[] is indexed like the whole list. */
struct fd_view {
	const struct hwc_findings *fd;
	const size_t *idx;
	size_t n;
	bool *claimed;
};

void hwc_cards_vput(struct item_val *v, const char *fmt, ...)
{
	if (v->len >= sizeof(v->text) - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(v->text + v->len, sizeof(v->text) - v->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		v->len += (size_t)n < sizeof(v->text) - v->len ? (size_t)n : sizeof(v->text) - 1 - v->len;
}

const char *hwc_cards_why(const json_t *obj, const char *key)
{
	const json_t *u = hwc_q_unavailable(obj, key);
	const char *d = hwc_json_str_or(u, "detail", NULL);
	return d ? d : hwc_json_str_or(u, "status", obj ? "not collected" : "not found");
}

/* A scalar as text: "force_relax", "0", "True" (mstconfig's own words are strings). */
static void scalar_text(const json_t *j, char *buf, size_t n)
{
	if (!hwc_json_scalar_text(buf, n, j))
		snprintf(buf, n, "?");
}

void(hwc_cards_unknown)(struct item_val *v, const json_t *obj, const char *key)
{
	v->unknown = true;
	vput(v, "%s", why(obj, key));
}

/* obj[key] when it is of JSON type t (JSON_REAL: any number), else NULL with the line unknown. */
static const json_t *item_need(struct item_val *v, const json_t *obj, const char *key, json_type t)
{
	const json_t *j = hwc_q_get(obj, key);
	if (j && (json_typeof(j) == t || (t == JSON_REAL && json_is_number(j))))
		return j;
	unknown(v, obj, key);
	return NULL;
}

static int gen_of(double gts)
{
	static const double g[] = {2.5, 5, 8, 16, 32, 64};
	for (int i = 0; i < 6; i++)
		if (fabs(gts - g[i]) < 0.01)
			return i + 1;
	return 0;
}

static void put_link(struct item_val *v, const json_t *sp, const json_t *w)
{
	if (json_is_number(sp) && gen_of(json_number_value(sp)))
		vput(v, "Gen%d", gen_of(json_number_value(sp)));
	else if (json_is_number(sp))
		vput(v, "%g GT/s", json_number_value(sp));
	else
		vput(v, "?");
	if (json_is_integer(w))
		vput(v, " x%lld", (long long)json_integer_value(w));
}

/* ------------------------------------------------------------------ items */

static void it_firmware(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const char *fw = hwc_json_str_or(x->ad, "fw_version", NULL);
	if (!fw)
		return unknown(v, x->ad, "fw_version");
	vput(v, "%s", fw);
	const char *st = hwc_json_str_or(x->ad, "fw_version_stored", NULL);
	if (st && strcmp(st, fw) != 0)
		vput(v, ", stored %s (a reset activates it)", st);
	else if (st)
		vput(v, " (stored the same)");
	const json_t *pr = hwc_q_get(x->ad, "fw_pending_reset");
	if (json_is_true(pr))
		vput(v, ", reset pending");
}

static void it_pcie_link(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *l = item_need(v, x->pci, "link", JSON_OBJECT);
	if (!l)
		return;
	const json_t *sp = hwc_q_get(l, "speed_gts"), *w = hwc_q_get(l, "width");
	if (!json_is_number(sp) || !json_is_integer(w))
		return unknown(v, l, json_is_number(sp) ? "width" : "speed_gts");
	static const char *const keys[] = {"speed_gts", "width", "cap_speed_gts", "cap_width", NULL};
	for (int k = 0; keys[k]; k++) {
		const json_t *kv = hwc_q_get(l, keys[k]);
		json_object_set_new(x->pcie, keys[k], kv ? json_deep_copy(kv) : json_null());
	}
	put_link(v, sp, w);
	vput(v, " (%g GT/s), capable ", json_number_value(sp));
	put_link(v, hwc_q_get(l, "cap_speed_gts"), hwc_q_get(l, "cap_width"));
	const json_t *mx = hwc_q_get(x->ad, "pcie_max");
	if (json_is_object(mx)) {
		vput(v, ", card max ");
		put_link(v, hwc_q_get(mx, "speed_gts"), hwc_q_get(mx, "width"));
	}
}

static void it_pcie_path(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *b = item_need(v, x->pci, "path_bottleneck", JSON_OBJECT);
	if (!b)
		return;
	const json_t *g = hwc_q_get(b, "gbps");
	json_object_set_new(x->pcie, "bottleneck", json_deep_copy(b));
	vput(v, "hop %s ", hwc_json_str_or(b, "bdf", "?"));
	put_link(v, hwc_q_get(b, "speed_gts"), hwc_q_get(b, "width"));
	if (json_is_number(g))
		vput(v, " limits it to %.1f Gb/s", json_number_value(g));
	const json_t *pr = hwc_q_get(x->ad, "port_rate_max_gbps");
	if (json_is_number(pr))
		vput(v, " (ports up to %g Gb/s)", json_number_value(pr));
}

static void it_pcie_config(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *mps = item_need(v, x->pci, "max_payload_bytes", JSON_INTEGER);
	const json_t *mrrs = hwc_q_get(x->pci, "max_read_request_bytes");
	const json_t *ro = hwc_q_get(x->pci, "relaxed_ordering");
	if (!mps)
		return;
	vput(v, "MPS %lld B", (long long)json_integer_value(mps));
	if (json_is_integer(mrrs))
		vput(v, ", MRRS %lld B", (long long)json_integer_value(mrrs));
	if (json_is_boolean(ro))
		vput(v, ", relaxed ordering %s", json_is_true(ro) ? "on" : "off");
	const char *aspm = hwc_q_string(hwc_q_pci_link(x->pci), "aspm");
	if (aspm)
		vput(v, ", ASPM %s", aspm);
}

static void it_pcie_aer(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *aer = item_need(v, x->pci, "aer", JSON_OBJECT);
	if (!aer)
		return;
	static const char *const k[] = {"correctable", "nonfatal", "fatal"};
	for (int i = 0; i < 3; i++) {
		const json_t *n = hwc_q_get(aer, k[i]);
		if (json_is_integer(n))
			vput(v, "%s%s %lld", i ? ", " : "", k[i], (long long)json_integer_value(n));
		else
			vput(v, "%s%s unknown", i ? ", " : "", k[i]);
	}
}

static void it_slot_power(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *w = hwc_q_get(x->pci, "slot_power_limit_w");
	const json_t *reg = hwc_q_registers(x->ad);
	const char *ps = hwc_json_str_or(reg, "power_status", NULL);
	const json_t *pw = hwc_q_get(reg, "pci_power_w");
	if (!json_is_number(w) && !ps)
		return unknown(v, x->pci, "slot_power_limit_w");
	json_object_set_new(x->pcie, "slot_power_w",
			    json_is_number(w) ? json_deep_copy(w) : json_null());
	if (json_is_number(w))
		vput(v, "slot grants %g W", json_number_value(w));
	else
		vput(v, "slot limit unknown (%s)", why(x->pci, "slot_power_limit_w"));
	if (ps)
		vput(v, "; card reports power %s", ps);
	else
		vput(v, "; card power status unknown (%s)", why(reg, "power_status"));
	if (json_is_number(pw))
		vput(v, " (%g W)", json_number_value(pw));
}

static void it_temperature(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *t = hwc_q_get(x->sensor, "temp_mdegc");
	if (!json_is_number(t)) {
		if (!x->sensor) {
			/* no hwmon sensor and no register reading: the register's reason says why */
			const json_t *reg = hwc_q_registers(x->ad);
			if (reg)
				return unknown(v, reg, "temp_mdegc");
			v->unknown = true;
			vput(v, "no temperature sensor of this card (thermal.sensors)");
			return;
		}
		return unknown(v, x->sensor, "temp_mdegc");
	}
	double c = json_number_value(t) / 1000.0;
	json_object_set_new(x->card, "temperature_degc", json_real(c));
	vput(v, "%.1f degC (%s %s)", c, hwc_json_str_or(x->sensor, "source", "?"),
	     hwc_json_str_or(x->sensor, "label", "sensor"));
	const json_t *crit = hwc_q_get(x->sensor, "crit_mdegc");
	if (json_is_number(crit))
		vput(v, ", critical at %.0f degC", json_number_value(crit) / 1000.0);
}

static void it_fw_params(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	static const char *const keys[] = {"PCI_WR_ORDERING", "ADVANCED_PCI_SETTINGS",
					   "MAX_ACC_OUT_READ", "PCI_ATOMIC_MODE", "SRIOV_EN",
					   "NUM_OF_VFS", "LINK_TYPE_P1", "LINK_TYPE_P2",
					   "CQE_COMPRESSION", "ATS_ENABLED", NULL};
	if (!item_need(v, x->ad, "fw_config", JSON_OBJECT))
		return;
	size_t shown = 0;
	for (int i = 0; keys[i]; i++) {
		const json_t *p = hwc_q_fw_param(x->ad, keys[i]);
		const json_t *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
		if (!p || hwc_q_is_null(p, "current"))
			continue;
		char cs[64], ns[64];
		scalar_text(cur, cs, sizeof(cs));
		vput(v, "%s%s=%s", shown++ ? " " : "", keys[i], cs);
		if (nb && !json_equal((json_t *)nb, (json_t *)cur)) {
			scalar_text(nb, ns, sizeof(ns));
			vput(v, " (next boot %s)", ns);
		}
	}
	if (!shown)
		vput(v, "none of the key parameters is reported by this firmware");
}

static void it_numa(struct card_ctx *x, const json_t *port, struct item_val *v)
{
	(void)port;
	const json_t *n = item_need(v, x->pci, "numa_node", JSON_INTEGER);
	if (n)
		vput(v, "node %lld", (long long)json_integer_value(n));
}

/* A netdev no RDMA port names: what the netdev says; the port rules need the RDMA port. */
/* The RDMA driver the card needs (its kernel_driver: mlx4_ib for ConnectX to ConnectX-3 Pro,
 * mlx5_ib from Connect-IB on); both names where the facts do not say. */
static const char *ib_driver(const json_t *ad)
{
	const char *drv = hwc_pci_mlx_rdma_driver(hwc_json_str_or(ad, "kernel_driver", NULL));
	return drv ? drv : "mlx5_ib or mlx4_ib";
}

static void it_netdev_port(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const char *name = hwc_json_str_or(p, "netdev", "?");
	const json_t *nd = hwc_q_netdev(x->facts, name);
	const json_t *sp = hwc_q_get(nd, "speed_mbps"), *mtu = hwc_q_get(nd, "mtu");
	vput(v, "%s (no RDMA device): %s", name, hwc_json_str_or(nd, "operstate", "operstate unknown"));
	if (json_is_integer(sp))
		vput(v, ", %g Gb/s", (double)json_integer_value(sp) / 1000);
	if (json_is_integer(mtu))
		vput(v, ", MTU %lld", (long long)json_integer_value(mtu));
	vput(v, "; no RDMA port state (is %s loaded?)", ib_driver(x->ad));
	v->unknown = true;
}

/* The RDMA port has a physical link: not DOWN, its physical state LinkUp where known. Without
 * one the kernel's rate is no link's (the card's best, or 10 Gb/s, 4X SDR, for a down IB port). */
static bool has_link(const json_t *p)
{
	const char *st = hwc_json_str_or(p, "state", NULL), *ph = hwc_json_str_or(p, "phys_state", NULL);
	return st && strcmp(st, "DOWN") != 0 && (!ph || strcmp(ph, "LinkUp") == 0);
}

static void it_port(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	if (!json_is_string(hwc_q_get(p, "rdma_device")) && json_is_string(hwc_q_get(p, "netdev")))
		return it_netdev_port(x, p, v);
	const char *st = hwc_json_str_or(p, "state", NULL);
	const json_t *r = hwc_q_get(p, "rate_gbps"), *mtu = hwc_q_get(p, "netdev_mtu");
	vput(v, "%s %s/%lld: ", hwc_json_str_or(p, "netdev", "(no netdev)"),
	     hwc_json_str_or(p, "rdma_device", "?"), (long long)json_integer_value(hwc_q_get(p, "port")));
	if (!st) {
		v->unknown = true;
		vput(v, "state unknown (%s)", why(p, "state"));
		return;
	}
	/* a field the capture lacks is said in words, never as "?" */
	vput(v, "%s %s, %s", st, hwc_json_str_or(p, "phys_state", "physical state unknown"),
	     hwc_json_str_or(p, "link_layer", "link layer unknown"));
	if (json_is_number(r) && has_link(p))
		vput(v, " %g Gb/s", json_number_value(r));
	if (json_is_integer(mtu))
		vput(v, ", MTU %lld", (long long)json_integer_value(mtu));
	const json_t *am = hwc_q_get(p, "active_mtu"), *mm = hwc_q_get(p, "max_mtu");
	if (json_is_integer(am))
		vput(v, ", RDMA MTU %lld/%lld", (long long)json_integer_value(am),
		     (long long)json_integer_value(mm));
}

static void it_tuning(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const json_t *nd = hwc_q_netdev(x->facts, hwc_json_str_or(p, "netdev", NULL));
	if (!json_is_string(hwc_q_get(p, "netdev"))) {
		v->skip = true; /* an InfiniBand port: no netdev to tune */
		return;
	}
	if (!nd) {
		v->unknown = true;
		vput(v, "no netdev facts for this port");
		return;
	}
	vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	const json_t *rg = hwc_q_get(nd, "rings"), *ch = hwc_q_get(nd, "channels");
	const json_t *rx = hwc_q_get(rg, "rx"), *rxm = hwc_q_get(rg, "rx_max");
	if (json_is_integer(rx))
		vput(v, "rx ring %lld of %lld", (long long)json_integer_value(rx),
		     (long long)json_integer_value(rxm));
	else
		vput(v, "rx ring unknown (%s)", why(rg ? rg : nd, rg ? "rx" : "rings"));
	const json_t *cb = hwc_q_get(ch, "combined");
	if (json_is_integer(cb))
		vput(v, ", %lld %s", (long long)json_integer_value(cb),
		     hwc_cli_noun((long long)json_integer_value(cb), "channel", "channels"));
	const json_t *lro = hwc_q_get(hwc_q_get(nd, "features"), "lro");
	if (json_is_boolean(lro))
		vput(v, ", LRO %s", json_is_true(lro) ? "on" : "off");
	const json_t *il = hwc_q_irq_locality(nd);
	const json_t *out = hwc_q_get(il, "outside_local"), *vec = hwc_q_get(il, "vectors");
	if (json_is_integer(out) && json_is_integer(vec))
		vput(v, ", IRQs %lld of %lld off-node", (long long)json_integer_value(out),
		     (long long)json_integer_value(vec));
}

/* The port's entry in facts.roce.ports (its RDMA port's), NULL for a port without RoCE
 * (InfiniBand); *own: where its QoS is, the entry or, for a RoCE LAG member, its own in the
 * entry's members[] (the bond has none). */
static const json_t *roce_of(const struct card_ctx *x, const json_t *p, const json_t **own)
{
	const char *rd = hwc_json_str_or(p, "rdma_device", NULL), *nd = hwc_json_str_or(p, "netdev", NULL);
	const json_t *pn = hwc_q_get(p, "port"), *rp, *m;
	size_t i, k;
	json_array_foreach(hwc_q_roce_ports(x->facts), i, rp) {
		if (!rd || !pn || strcmp(hwc_json_str_or(rp, "rdma_device", ""), rd) != 0 ||
		    !json_equal(hwc_q_get(rp, "port"), (json_t *)pn))
			continue;
		*own = rp;
		json_array_foreach(hwc_q_get(rp, "members"), k, m) {
			if (nd && !strcmp(hwc_json_str_or(m, "netdev", ""), nd))
				*own = m;
		}
		return rp;
	}
	return NULL;
}

/* The RoCE chain of the port in brief: trust, the priorities with PFC, the RDMA-CM default ToS
 * (the RDMA port's); its rules (rules/rule-roce.c, docs/roce.md) judge the whole chain. */
static void it_roce(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const json_t *own = NULL, *r = roce_of(x, p, &own);
	if (!r) {
		v->skip = true; /* no RoCE on this port (InfiniBand) */
		return;
	}
	const json_t *q = hwc_q_get(own, "qos"), *pfc = hwc_q_get(q, "pfc_enabled"), *e;
	const char *trust = hwc_json_str_or(q, "trust", NULL);
	const char *nd = hwc_json_str_or(p, "netdev", hwc_json_str_or(r, "netdev", NULL));
	if (nd)
		vput(v, "%s: ", nd);
	else /* no netdev found for the RDMA port: name the port */
		vput(v, "%s/%lld: ", hwc_json_str_or(p, "rdma_device", "?"), (long long)json_integer_value(hwc_q_get(p, "port")));
	if (trust)
		vput(v, "trust %s", trust);
	else
		vput(v, "trust unknown (%s)", q ? why(q, "trust") : why(own, "qos"));
	/* without trust and PFC the chain was not read: never ok; unknown where one of its rules
	 * needed it, else shown, not judged (no profile asks for a lossless chain) */
	v->unknown |= !trust || !json_is_array(pfc);
	v->unjudged = true;
	size_t i, on = 0;
	json_array_foreach(pfc, i, e) {
		if (json_is_true(e))
			vput(v, "%s%zu", on++ ? "," : ", PFC on ", i);
	}
	if (!on)
		vput(v, ", PFC %s", json_is_array(pfc) ? "off" : "unknown");
	const json_t *tos = hwc_q_get(r, "default_roce_tos");
	if (json_is_integer(tos))
		vput(v, ", ToS %lld", (long long)json_integer_value(tos));
	else
		vput(v, ", ToS unknown");
}

/* The card's mstflint tools that answered busy and were re-run alone (mlx/collect.c), in the
 * fact's own words: shown, not judged (the facts come from the re-run); no line when none was. */
static void it_tools_rerun(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	(void)p;
	const json_t *rr = hwc_q_get(x->ad, "tools_rerun");
	size_t i;
	const json_t *s;
	json_array_foreach(rr, i, s) {
		if (json_is_string(s))
			vput(v, "%s%s", v->len ? "\n" : "", json_string_value(s));
	}
	v->skip = v->len == 0;
}

/* One end's rate for the "link rate" line: "card 100G", "partner unknown". */
static void put_end(struct item_val *v, const char *label, const json_t *obj, const char *key, double scale)
{
	const json_t *n = hwc_q_get(obj, key);
	if (json_is_number(n))
		vput(v, ", %s %gG", label, json_number_value(n) * scale);
	else
		vput(v, ", %s unknown", label);
}

/* "2.5, 5, 10" of a PortInfo list ("1X, 4X" with suffix "X"); "unknown" when it was not read. */
static void put_list(struct item_val *v, const json_t *l, const char *suffix)
{
	size_t i;
	const json_t *e;
	if (!json_is_array(l)) {
		vput(v, "unknown");
		return;
	}
	json_array_foreach(l, i, e) vput(v, "%s%.10g%s", i ? ", " : "", json_number_value(e), suffix); /* 25.78125, not 25.7812 */
}

/* mstlink's own speeds (the only source on an InfiniBand port without PortInfo, an Ethernet port
 * without a netdev): "mstlink IB-HDR, enabled HDR,EDR,..., cable HDR,EDR,..." */
static void put_mstlink_speeds(const json_t *p, struct item_val *v)
{
	const json_t *phy = hwc_q_get(p, "phy");
	const char *keys[3][2] = {{"speed", "mstlink "}, {"enabled_link_speed", ", enabled "}, {"supported_cable_speed", ", cable "}};
	for (int k = 0; k < 3; k++) {
		const char *t = hwc_json_str_or(phy, keys[k][0], NULL), *open = t ? strrchr(t, '(') : NULL;
		if (!t) {
			v->unknown = true;
			vput(v, "%sunknown (%s)", keys[k][1], why(phy, keys[k][0]));
		} else if (open)
			vput(v, "%s%.*s", keys[k][1], (int)strcspn(open + 1, ")"), open + 1);
		else
			vput(v, "%s%s", keys[k][1], t);
		if (k == 0 && json_is_string(hwc_q_get(phy, "width")))
			vput(v, " %s", json_string_value(hwc_q_get(phy, "width")));
	}
}

/* What one end enables, for the "link rate" line: "enabled here 2.5, 5, 10 x 1X, 4X"; what is not
 * known is said in words, with why ("the speeds and widths the peer enables unknown (...)"), never
 * "unknown x unknown". lead: "enabled here " or "at the peer "; whom: "this port" or "the peer". */
static void put_enabled(struct item_val *v, const json_t *pi, const char *lead, const char *whom)
{
	const json_t *sp = hwc_q_get(pi, "speeds_enabled_gbps"), *wd = hwc_q_get(pi, "widths_enabled");
	if (json_is_array(sp) && json_is_array(wd)) {
		vput(v, "%s", lead);
		put_list(v, sp, "");
		vput(v, " x ");
		put_list(v, wd, "X");
		return;
	}
	v->unknown = true;
	if (json_is_array(sp) || json_is_array(wd)) { /* one of the two */
		vput(v, "%s", lead);
		put_list(v, json_is_array(sp) ? sp : wd, json_is_array(sp) ? "" : "X");
		vput(v, "%s", json_is_array(sp) ? " Gb/s lanes" : "");
		vput(v, ", the %s %s enables unknown (%s)", json_is_array(sp) ? "widths" : "lane rates", whom,
		     why(pi, json_is_array(sp) ? "widths_enabled" : "speeds_enabled_gbps"));
		return;
	}
	const char *ws = why(pi, "speeds_enabled_gbps"), *ww = why(pi, "widths_enabled");
	vput(v, "the speeds and widths %s enables unknown (%s%s%s)", whom, ws, strcmp(ws, ww) ? "; " : "", strcmp(ws, ww) ? ww : "");
}

/* An InfiniBand port: its PortInfo's active lane rate and width, and what each end enables. */
static void it_rate_ib(const json_t *ad, const json_t *p, struct item_val *v)
{
	const json_t *pi = hwc_q_get(p, "portinfo"), *peer = hwc_q_get(hwc_q_get(p, "peer"), "portinfo");
	const char *st = hwc_json_str_or(p, "state", NULL);
	if (!hwc_q_has(p, "portinfo") || !st || strcmp(st, "ACTIVE") != 0) {
		v->skip = true; /* facts from before hwcheck read PortInfo; no link: the port line says so */
		return;
	}
	vput(v, "%s/%lld: ", hwc_json_str_or(p, "rdma_device", "?"), (long long)json_integer_value(hwc_q_get(p, "port")));
	const json_t *sp = hwc_q_get(pi, "speed_active_gbps"), *wd = hwc_q_get(pi, "width_active");
	if (!json_is_number(sp) || !json_is_number(wd)) {
		v->unknown = true;
		vput(v, "PortInfo unknown (%s)", json_is_object(pi) ? why(pi, "speed_active_gbps") : why(p, "portinfo"));
		if (json_is_string(hwc_q_at(p, "phy.speed"))) {
			vput(v, "; ");
			put_mstlink_speeds(p, v);
			/* mstlink's enabled speeds are already narrowed: the card's side is the line's floor */
			const json_t *fl = hwc_q_get(ad, "ib_lane_floor_gbps");
			if (json_is_number(fl))
				vput(v, ", card %.10g Gb/s lanes at least (every InfiniBand %s board)", json_number_value(fl),
				     hwc_json_str_or(ad, "generation", "?"));
		}
		return;
	}
	vput(v, "%gX at %.10g Gb/s a lane; ", json_number_value(wd), json_number_value(sp));
	put_enabled(v, pi, "enabled here ", "this port");
	if (!json_is_object(peer)) {
		v->unknown = true;
		vput(v, "; what the peer enables unknown (%s)", json_is_object(hwc_q_get(p, "peer")) ? why(hwc_q_get(p, "peer"), "portinfo") : why(p, "peer"));
		return;
	}
	vput(v, ", ");
	put_enabled(v, peer, "at the peer ", "the peer");
}

/* Negotiated vs possible (ethtool IF, the module's codes): the speed and what each end allows. */
static void it_rate(struct card_ctx *x, const json_t *p, struct item_val *v)
{
	const char *ll = hwc_json_str_or(p, "link_layer", NULL);
	if (ll && strcmp(ll, "InfiniBand") == 0) {
		it_rate_ib(x->ad, p, v);
		return;
	}
	const json_t *nd = hwc_q_netdev(x->facts, hwc_json_str_or(p, "netdev", NULL));
	const char *op = hwc_json_str_or(nd, "operstate", NULL), *mst = hwc_json_str_or(hwc_q_get(p, "phy"), "state", NULL);
	if (!nd && json_is_string(hwc_q_at(p, "phy.speed")) && has_link(p) && (!mst || strcmp(mst, "Active") == 0)) {
		/* no netdev: mstlink's speeds are the only source (LINK_RATE_LIMITED judges them) */
		vput(v, "%s/%lld (no netdev): ", hwc_json_str_or(p, "rdma_device", "?"), (long long)json_integer_value(hwc_q_get(p, "port")));
		put_mstlink_speeds(p, v);
		return;
	}
	const json_t *lk = hwc_q_netdev_link(nd), *m = hwc_q_get(lk, "modes");
	if (!nd || (json_is_string(hwc_q_get(p, "state")) && !has_link(p)) || (op && strcmp(op, "up") != 0) ||
	    json_is_false(hwc_q_get(nd, "carrier")) || json_is_false(hwc_q_get(m, "link_detected"))) {
		/* no netdev and no PortInfo: nothing to show; no link (ethtool's 'Link detected: no' is
		 * netif_running() && carrier: no link either way): the port line says so, and where the
		 * kernel said why (ethtool's link_ext_state), this line gives it: no rate to judge */
		const char *st = hwc_json_str_or(m, "link_ext_state", NULL), *sub = hwc_json_str_or(m, "link_ext_substate", NULL);
		v->skip = !nd || !st;
		if (!v->skip) {
			v->unknown = v->unjudged = true;
			vput(v, "%s has no link; the kernel's reason: %s%s%s (ethtool's link_ext_state)",
			     hwc_json_str_or(nd, "name", "?"), st, sub ? ", " : "", sub ? sub : "");
		}
		return;
	}
	const json_t *sp = hwc_q_get(m, "speed_mbps");
	vput(v, "%s: ", hwc_json_str_or(nd, "name", "?"));
	if (!json_is_number(sp)) {
		v->unknown = true;
		vput(v, "negotiated rate unknown (%s)", m ? why(m, "speed_mbps") : why(lk, "modes"));
		return;
	}
	vput(v, "%gG", json_number_value(sp) / 1000);
	put_end(v, "card", m, "supported_max_mbps", 0.001);
	double cable = hwc_q_speed_list_gbps(hwc_q_string(hwc_q_get(p, "phy"), "supported_cable_speed"));
	if (!json_is_number(hwc_q_get(hwc_q_netdev_module(nd), "max_gbps")) && cable > 0)
		vput(v, ", module %gG (mstlink)", cable); /* the cable's speeds as the firmware reads them */
	else
		put_end(v, "module", hwc_q_netdev_module(nd), "max_gbps", 1);
	const json_t *mg = hwc_q_get(hwc_q_netdev_module(nd), "max_gbps");
	if (json_is_number(mg) && json_number_value(mg) * 1000 < json_number_value(sp))
		vput(v, " (below the live rate: the module's codes are incomplete)"); /* LINK_RATE_LIMITED */
	put_end(v, "partner", m, "partner_max_mbps", 0.001);
}

typedef void (*item_fn)(struct card_ctx *x, const json_t *port, struct item_val *v);

/* The card's lines, in order. rules: the rules that judge the line (their findings for this card,
 * or for this port's netdev / RDMA device, give its verdict); none: shown, not judged. */
static const struct card_item {
	const char *key, *label;
	bool per_port;
	item_fn fn;
	const char *rules[12];
} items[] = {
	{"firmware", "firmware", false, it_firmware,
	 {"MLX_FW_MISMATCH", "MLX_FW_NOT_ALLOWED", "MLX_FW_RESET_PENDING", "MLX_FW_IMAGE_PSID",
	  "MLX_FW_IMAGE_OLDER", "MLX_FW_IMAGE_NOT_ALLOWED", "MLX_FLASH_RECOVERY"}},
	{"pcie_link", "PCIe link", false, it_pcie_link,
	 {"PCIE_LINK_DOWNGRADED", "PCIE_LINK_SLOT_LIMITED", "PCIE_LINK_BELOW_PROFILE",
	  "PCIE_FW_LINK_RESTRICTED", "PCIE_LANE_ERRORS"}},
	{"pcie_path", "PCIe path", false, it_pcie_path, {"PCIE_PATH_BOTTLENECK"}},
	{"pcie_config", "PCIe config", false, it_pcie_config,
	 {"PCIE_MPS_SMALL", "PCIE_MRRS_SMALL", "PCIE_RELAXED_ORDERING_OFF", "PCIE_ASPM_ENABLED"}},
	{"pcie_aer", "PCIe AER", false, it_pcie_aer, {"PCIE_AER_ERRORS"}},
	{"slot_power", "slot power", false, it_slot_power,
	 {"PCIE_SLOT_POWER_LOW", "MLX_SLOT_POWER_LIMITER"}},
	{"temperature", "temperature", false, it_temperature,
	 {"THERMAL_CARD_NEAR_WARNING", "THERMAL_CARD_OVER_LIMIT"}},
	{"fw_params", "fw params", false, it_fw_params,
	 {"MLX_WR_ORDERING_PER_MKEY", "MLX_CONFIG_PENDING", "MLX_FW_CONFIG_INCONSISTENT",
	  "MLX_FW_CONFIG_AT_RISK", "MLX_FW_CONFIG_NOT_INTENDED"}},
	{"numa", "NUMA", false, it_numa, {"HOST_NUMA_NODE_MISSING"}},
	{"tools_rerun", "tools re-run", false, it_tools_rerun, {NULL}},
	{"kernel_log", "kernel log", false, hwc_cards_it_kernel_log, {"MLX_KERNEL_EVENTS"}},
	{"port", "port", true, it_port,
	 {"NET_PORT_DOWN", "NET_PORT_RATE_LOW", "NET_ROCE_MTU_SMALL", "NET_MTU_NOT_JUMBO",
	  "NET_BOND_MTU_MISMATCH"}},
	{"port_rate", "link rate", true, it_rate, {"LINK_RATE_BELOW_POSSIBLE", "LINK_RATE_LIMITED"}},
	/* issue 14's physical link, one line per item in a fixed order: errors and their rate,
	 * flaps, FEC and BER, the module against its own thresholds, the far end (cli/cards_link.c) */
	{"port_link", "link errors", true, hwc_cards_it_errors,
	 {"LINK_SYMBOL_ERRORS", "LINK_INTEGRITY_ERRORS", "LINK_EFFECTIVE_ERRORS"}},
	{"port_flaps", "flaps", true, hwc_cards_it_flaps, {"LINK_FLAPS"}},
	{"port_fec", "FEC, BER", true, hwc_cards_it_fec,
	 {"LINK_FEC_MODE", "LINK_RAW_BER_HIGH", "LINK_EFFECTIVE_ERRORS", "LINK_TOOL_RECOMMENDATION"}},
	{"port_module", "module", true, hwc_cards_it_module,
	 {"LINK_MODULE_DIAGNOSTICS", "LINK_MODULE_THRESHOLDS", "LINK_MODULE_RX_POWER_LOW",
	  "LINK_MODULE_NOT_ALLOWED"}},
	{"port_far_end", "far end", true, hwc_cards_it_far_end, {NULL}},
	{"port_roce", "RoCE", true, it_roce,
	 {"ROCE_PFC_OFF_LOSSLESS", "ROCE_PFC_UNUSED_PRIO", "ROCE_DSCP_NO_PFC", "ROCE_TOS_OUTSIDE_LOSSLESS",
	  "ROCE_ECN_OFF", "ROCE_CNP_IN_LOSSLESS_CLASS", "ROCE_TRUST_MISMATCH", "ROCE_NO_V2_GID",
	  "ROCE_PAUSE_STORM", "ROCE_LOSSLESS_DROPS", "ROCE_PORTS_DIFFER"}},
	{"port_tuning", "tuning", true, it_tuning,
	 {"NET_RING_SMALL", "NET_CHANNELS_FEW", "NET_LRO_ON", "NET_TSO_OFF", "NET_GRO_OFF",
	  "HOST_IRQ_FAR_NODE"}},
};

/* ------------------------------------------------------------------ findings -> verdicts */

static bool has_rule(const struct card_item *it, const char *id)
{
	for (size_t i = 0; i < sizeof(it->rules) / sizeof(it->rules[0]) && it->rules[i]; i++)
		if (strcmp(it->rules[i], id) == 0)
			return true;
	return false;
}

/* The port's subjects: its netdev, its RDMA device and "rdma/port"; a RoCE LAG port's members. */
static bool port_subject(const struct card_ctx *x, const json_t *p, const char *subj)
{
	const char *nd = hwc_json_str_or(p, "netdev", NULL), *rd = hwc_json_str_or(p, "rdma_device", NULL);
	if ((nd && !strcmp(nd, subj)) || (rd && !strcmp(rd, subj)))
		return true;
	for (size_t k = 0; k < x->n_members; k++)
		if (!strcmp(x->members[k], subj))
			return true;
	char buf[160];
	snprintf(buf, sizeof(buf), "%s/%lld", rd ? rd : "", (long long)json_integer_value(hwc_q_get(p, "port")));
	return rd && strcmp(buf, subj) == 0;
}

static int sev_order(const struct hwc_finding *f)
{
	if (f->waived_reason)
		return 0;
	return f->severity == HWC_SEV_ERROR ? 4 : f->severity == HWC_SEV_WARN ? 3
	       : f->severity == HWC_SEV_INFO ? 2 : 1;
}

static bool finding_of(const struct card_item *it, const struct card_ctx *x, const json_t *port,
		       const struct hwc_finding *f)
{
	return f->card && !strcmp(f->card, x->bdf) && has_rule(it, f->rule_id) &&
	       (!port || port_subject(x, port, f->subject));
}

/* One line's verdict: the worst finding of its rules for this card (or port), else unknown
 * when a rule could not decide or the value could not be read, else ok (not_judged when no rule
 * looks at it). "rules": the findings behind the verdict; "undecided": its rules that could not
 * decide. */
/* No rule of the line runs under this profile: shown, not judged ("ok" means checked). */
static bool judged(const struct card_item *it, const struct hwc_profile *prof)
{
	for (size_t i = 0; i < sizeof(it->rules) / sizeof(it->rules[0]) && it->rules[i]; i++)
		if (hwc_profile_runs_rule(prof, it->rules[i]))
			return true;
	return false;
}

/* Appends the rule id once (a RoCE LAG port's line gathers each member's findings). */
static void append_id(json_t *arr, const char *id)
{
	size_t i;
	const json_t *s;
	json_array_foreach(arr, i, s) if (!strcmp(json_string_value(s), id)) return;
	json_array_append_new(arr, json_string(id));
}

/* Why the line's rules could not decide: the one cause, or, when they differ, each cause with
 * its rules ("absent: mstconfig: ... (PCIE_FW_LINK_RESTRICTED); needs_root: ... (PCIE_LANE_ERRORS)"),
 * never one rule's cause said of another. */
static const char *undecided_causes(const struct card_item *it, const struct card_ctx *x,
				    const json_t *port, const struct fd_view *fv, char *out, size_t size)
{
	enum { MAXC = 8 };
	char cause[MAXC][384], ids[MAXC][256];
	size_t nc = 0;
	for (size_t j = 0; j < fv->n; j++) {
		const struct hwc_finding *f = &fv->fd->items[fv->idx[j]];
		if (!finding_of(it, x, port, f) || f->severity != HWC_SEV_UNKNOWN || f->waived_reason)
			continue;
		char buf[384];
		hwc_unknown_cause(f, buf, sizeof(buf));
		size_t c = 0;
		while (c < nc && strcmp(cause[c], buf) != 0)
			c++;
		if (c == nc && nc == MAXC)
			continue;
		if (c == nc) {
			snprintf(cause[nc], sizeof(cause[nc]), "%s", buf);
			ids[nc++][0] = 0;
		}
		if (!strstr(ids[c], f->rule_id)) {
			size_t l = strlen(ids[c]);
			snprintf(ids[c] + l, sizeof(ids[c]) - l, "%s%s", l ? ", " : "", f->rule_id);
		}
	}
	size_t n = 0, shown = nc > 3 ? 2 : nc; /* the rest: the report's undecided list */
	for (size_t c = 0; c < shown && n < size; c++) {
		n += (size_t)snprintf(out + n, size - n, "%s%s", c ? "; " : "", cause[c]);
		if (nc > 1 && n < size)
			n += (size_t)snprintf(out + n, size - n, " (%s)", ids[c]);
	}
	if (shown < nc && n < size)
		snprintf(out + n, size - n, "; %zu more causes in the undecided list", nc - shown);
	return nc ? out : NULL;
}

/* A per-port line's subject: its netdev, else its RDMA device, with "/port" where that device
 * has more ports on the card (mlx4), so that no two ports' lines share one subject. */
static json_t *line_subject(const struct card_ctx *x, const json_t *port)
{
	const char *nd = hwc_json_str_or(port, "netdev", NULL), *rd = hwc_json_str_or(port, "rdma_device", NULL);
	if (nd || !rd)
		return json_string(nd ? nd : "?");
	size_t i, same = 0;
	const json_t *p;
	json_array_foreach(hwc_q_ports(x->ad), i, p) same += !strcmp(hwc_json_str_or(p, "rdma_device", ""), rd);
	if (same < 2)
		return json_string(rd);
	return json_sprintf("%s/%lld", rd, (long long)json_integer_value(hwc_q_get(port, "port")));
}

static json_t *check_json(const struct card_item *it, const struct card_ctx *x, const json_t *port,
			  const struct fd_view *fv, const struct item_val *v)
{
	const struct hwc_finding *worst = NULL, *unk = NULL;
	json_t *ids = json_array(), *undecided = json_array();
	for (size_t j = 0; j < fv->n; j++) {
		const struct hwc_finding *f = &fv->fd->items[fv->idx[j]];
		if (!finding_of(it, x, port, f))
			continue;
		fv->claimed[fv->idx[j]] = true;
		if (f->severity == HWC_SEV_UNKNOWN && !f->waived_reason) {
			append_id(undecided, f->rule_id);
			unk = unk ? unk : f;
		} else if (!worst || sev_order(f) > sev_order(worst)) {
			worst = f;
		}
	}
	/* the worst findings first, then the line's lesser ones (an error line may also warn);
	 * unknown ones are in "undecided", waived ones only on a line that has nothing else */
	int top = worst ? sev_order(worst) : -1;
	for (int sev = top; sev >= 0 && (sev > 0 || top == 0); sev--)
		for (size_t j = 0; sev != 1 && j < fv->n; j++) {
			const struct hwc_finding *f = &fv->fd->items[fv->idx[j]];
			if (finding_of(it, x, port, f) && sev_order(f) == sev)
				append_id(ids, f->rule_id);
		}
	const char *verdict = "ok", *reason = NULL;
	char buf[2048];
	if (worst) {
		verdict = worst->waived_reason ? "waived" : hwc_severity_name(worst->severity);
		reason = worst->waived_reason ? worst->waived_reason : worst->message;
	} else if (v->unknown && (!it->rules[0] || (v->unjudged && !unk))) {
		verdict = "not_judged"; /* shown, not judged: why it could not be read */
		reason = v->text;
	} else if (unk || v->unknown) {
		verdict = "unknown";
		reason = v->unknown ? v->text : undecided_causes(it, x, port, fv, buf, sizeof(buf));
		json_array_extend(ids, undecided);
	} else if (!judged(it, x->prof)) {
		verdict = "not_judged";
	}
	json_t *o = json_pack("{s:s, s:s}", "item", it->key, "label", it->label);
	if (port)
		json_object_set_new(o, "subject", line_subject(x, port));
	json_object_set_new(o, "value", v->unknown ? json_null() : hwc_json_string(v->text));
	json_object_set_new(o, "verdict", json_string(verdict));
	json_object_set_new(o, "rules", ids);
	json_object_set_new(o, "undecided", undecided);
	json_object_set_new(o, "reason", reason ? hwc_json_string(reason) : json_null());
	return o;
}

/* ------------------------------------------------------------------ one card */

/* The card's ASIC sensor (the first function's first), else any mlx5 sensor of the card. */
static const json_t *card_sensor(const json_t *facts, const json_t *ad, const char *bdf)
{
	const json_t *best = NULL;
	const json_t **ss;
	struct hwc_arena *a = hwc_arena_new();
	size_t n = a ? hwc_q_adapter_sensors(facts, ad, a, &ss) : 0;
	for (size_t j = 0; j < n; j++) {
		const json_t *s = ss[j];
		const char *b = hwc_json_str_or(s, "bdf", NULL);
		if (!b || strcmp(hwc_json_str_or(s, "chip", ""), "mlx5") != 0)
			continue;
		bool asic = strcmp(hwc_json_str_or(s, "label", "asic"), "asic") == 0;
		if (asic && strcmp(b, bdf) == 0) {
			best = s;
			break;
		}
		if (!best || (asic && strcmp(hwc_json_str_or(best, "label", "asic"), "asic") != 0))
			best = s;
	}
	hwc_arena_free(a);
	return best;
}

/* The card's ports: its RDMA ports, then each netdev of the card that no port names (mlx5_ib
 * not loaded, an Ethernet-only function) as a port of its own ({netdev} only), so that its link
 * lines are shown too. A RoCE LAG member is shown under its bond's port. */
static json_t *card_ports(const json_t *facts, const json_t *ad)
{
	json_t *arr = json_array();
	const json_t *ports = hwc_q_ports(ad), *p, *n;
	size_t i, j;
	json_array_foreach(ports, i, p) json_array_append(arr, (json_t *)p);
	json_array_foreach(hwc_q_get(ad, "netdevs"), i, n) {
		const char *name = json_string_value(n);
		const json_t *bd = hwc_q_get(hwc_q_netdev(facts, name), "bond");
		const char *bond = hwc_json_str_or(bd, "name", NULL);
		bool named = !name;
		json_array_foreach(ports, j, p) {
			const char *pn = hwc_json_str_or(p, "netdev", NULL);
			named = named || (pn && (!strcmp(pn, name) || (bond && !strcmp(pn, bond))));
		}
		if (!named)
			json_array_append_new(arr, json_pack("{s:s}", "netdev", name));
	}
	return arr;
}

static json_t *ports_json(const json_t *ports)
{
	json_t *arr = json_array();
	size_t i;
	const json_t *p;
	json_array_foreach(ports, i, p) {
		json_t *o = json_object();
		static const char *const keys[] = {"netdev", "rdma_device", "port", "state",
						   "phys_state", "link_layer", "rate_gbps", NULL};
		for (int k = 0; keys[k]; k++) {
			const json_t *v = hwc_q_get(p, keys[k]);
			json_object_set_new(o, keys[k], v ? json_deep_copy(v) : json_null());
		}
		const json_t *m = hwc_q_get(p, "netdev_mtu");
		json_object_set_new(o, "mtu", m ? json_deep_copy(m) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *card_identity(const json_t *ad, const json_t *pci)
{
	json_t *o = json_object();
	static const char *const keys[] = {"bdf", "product", "part_number", "psid", "fw_version", NULL};
	for (int k = 0; keys[k]; k++) {
		const json_t *v = hwc_q_get(ad, keys[k]);
		json_object_set_new(o, keys[k], json_is_string(v) ? json_deep_copy(v) : json_null());
	}
	const json_t *n = hwc_q_get(pci, "numa_node");
	json_object_set_new(o, "numa_node", json_is_integer(n) ? json_deep_copy(n) : json_null());
	return o;
}

/* A netdev's line (rate, errors, far end, tuning): for a RoCE LAG port, each member's. */
static bool per_member(const struct card_item *it)
{
	return it->per_port && it->fn != it_port;
}

/* The object of a RoCE LAG member in the port's "members" (created on first use): each physical
 * port its own errors, flaps, FEC, module and far end in JSON, as its own part of the text line. */
static json_t *member_out(json_t *port, const char *name)
{
	json_t *arr = json_object_get(port, "members"), *o;
	size_t i;
	if (!port)
		return NULL;
	if (!arr) {
		arr = json_array();
		json_object_set_new(port, "members", arr);
	}
	json_array_foreach(arr, i, o)
		if (!strcmp(hwc_json_str_or(o, "netdev", ""), name))
			return o;
	o = json_pack("{s:s}", "netdev", name);
	json_array_append_new(arr, o);
	return o;
}

/* A RoCE LAG port's netdev line: each member's, "; " between them, unknown when one is. */
static void member_lines(struct card_ctx *x, const struct card_item *it, const json_t *port,
			 struct item_val *v)
{
	bool any = false;
	json_t *port_out = x->port_out;
	for (size_t k = 0; k < x->n_members; k++) {
		x->port_out = member_out(port_out, x->members[k]);
		json_t *mp = json_pack("{s:s, s:O?, s:O?}", "netdev", x->members[k], "rdma_device",
				       hwc_q_get(port, "rdma_device"), "port", hwc_q_get(port, "port"));
		struct item_val mv = {.len = 0};
		mv.text[0] = 0;
		if (mp)
			it->fn(x, mp, &mv);
		json_decref(mp);
		if (!mp || mv.skip)
			continue;
		/* each member's part names it ("eth01: ..."), also where the line's own text does not */
		size_t nl = strlen(x->members[k]);
		bool named = !strncmp(mv.text, x->members[k], nl) && mv.text[nl] == ':';
		vput(v, "%s%s%s%s", any ? "; " : "", named ? "" : x->members[k], named ? "" : ": ", mv.text);
		v->unknown |= mv.unknown;
		v->unjudged |= mv.unjudged;
		any = true;
	}
	x->port_out = port_out;
	v->skip = !any;
}

/* The netdevs enslaved to the port's netdev when it is a bond (RoCE LAG), into x->members. */
static void lag_members(struct card_ctx *x, const json_t *port)
{
	x->n_members = 0;
	const char *nd = port ? hwc_json_str_or(port, "netdev", NULL) : NULL;
	if (!nd || hwc_q_netdev(x->facts, nd))
		return;
	size_t i;
	const json_t *o;
	json_array_foreach(hwc_q_netdevs(x->facts), i, o) {
		const char *bn = hwc_json_str_or(hwc_q_get(o, "bond"), "name", NULL);
		if (bn && !strcmp(bn, nd) && x->n_members < HWC_ARRAY_SIZE(x->members))
			x->members[x->n_members++] = hwc_json_str_or(o, "name", "?");
	}
}

static void add_item(struct card_ctx *x, const struct card_item *it, const json_t *port,
		     const struct fd_view *fv, json_t *checks)
{
	struct item_val v = {.len = 0};
	v.text[0] = 0;
	lag_members(x, port);
	if (per_member(it) && x->n_members)
		member_lines(x, it, port, &v);
	else
		it->fn(x, port, &v);
	if (v.skip)
		return;
	json_array_append_new(checks, check_json(it, x, port, fv, &v));
}

/* Findings of the card no line claimed (rules added since): each its own line. */
static void add_others(const struct fd_view *fv, json_t *checks)
{
	for (size_t j = 0; j < fv->n; j++) {
		const struct hwc_finding *f = &fv->fd->items[fv->idx[j]];
		if (fv->claimed[fv->idx[j]])
			continue;
		char buf[1024];
		bool unk = f->severity == HWC_SEV_UNKNOWN && !f->waived_reason;
		const char *why = unk ? hwc_unknown_cause(f, buf, sizeof(buf)) : f->message;
		/* the line names its subject and rule, undecided ones too (as every line does) */
		json_array_append_new(
			checks, json_pack("{s:s, s:s, s:s, s:o, s:s, s:[s], s:[s*], s:o}", "item", "other",
					  "label", "other", "subject", f->subject, "value", json_null(),
					  "verdict", f->waived_reason ? "waived" : hwc_severity_name(f->severity),
					  "rules", f->rule_id, "undecided", unk ? f->rule_id : NULL,
					  "reason", hwc_json_string(why)));
	}
}

static const char *card_verdict(const json_t *checks)
{
	static const char *const order[] = {"error", "warn", "unknown", NULL};
	static const char *const word[] = {"error", "warn", "incomplete"};
	for (int k = 0; order[k]; k++) {
		size_t i;
		const json_t *ck;
		json_array_foreach(checks, i, ck) {
			if (strcmp(hwc_json_str_or(ck, "verdict", ""), order[k]) == 0)
				return word[k];
		}
	}
	return "ok";
}

/* The port's link values (cli/cards_link.c) that no line could give: null, not {}. */
static void link_nulls(json_t *port)
{
	static const char *const keys[] = {"errors", "flaps", "fec", "module", "far_end", NULL};
	for (int k = 0; keys[k]; k++) {
		const json_t *o = json_object_get(port, keys[k]);
		if (!o || json_object_size(o) == 0)
			json_object_set_new(port, keys[k], json_null());
	}
}


/* The port line of a card with no port: why there is none (a card in flash recovery has no
 * running firmware, so no driver and no port; else the RDMA driver is not loaded, or the ports
 * could not be read), with the port rules' findings of the card (NET_PORT_DOWN's unknown). */
static json_t *no_port_line(struct card_ctx *x, const json_t *ad, const struct fd_view *fv)
{
	const struct card_item *it = NULL;
	for (size_t k = 0; k < HWC_ARRAY_SIZE(items) && !it; k++)
		if (items[k].fn == it_port)
			it = &items[k];
	struct item_val v = {.unknown = true};
	if (json_is_true(hwc_q_get(ad, "flash_recovery")))
		vput(&v, "no port: the card is in flash recovery, its firmware does not run, so no driver "
			 "binds it (MLX_FLASH_RECOVERY)");
	else if (json_is_array(hwc_q_ports(ad)))
		vput(&v, "no RDMA port of this card: no port state (is %s loaded?)", ib_driver(ad));
	else
		vput(&v, "%s", why(ad, "ports"));
	return check_json(it, x, NULL, fv, &v);
}

static json_t *card_json(const json_t *facts, const struct cards_index *ix, const json_t *ad,
			 const struct fd_view *fv, const struct hwc_profile *prof)
{
	const char *bdf = hwc_json_str_or(ad, "bdf", "?");
	const json_t *pci = hwc_q_pci_dev(facts, bdf);
	json_t *card = card_identity(ad, pci);
	json_object_set_new(card, "verdict", json_string("ok"));
	json_t *pcie = json_pack("{s:n, s:n, s:n, s:n, s:n, s:n}", "speed_gts", "width",
				 "cap_speed_gts", "cap_width", "bottleneck", "slot_power_w");
	json_object_set_new(card, "pcie", pcie);
	json_object_set_new(card, "temperature_degc", json_null());
	json_t *ports = card_ports(facts, ad), *pj = ports_json(ports);
	json_object_set_new(card, "ports", pj);
	struct card_ctx x = {.facts = facts, .ix = ix, .ad = ad, .pci = pci, .bdf = bdf, .card = card,
			     .pcie = pcie, .sensor = card_sensor(facts, ad, bdf), .prof = prof};
	json_t *checks = json_array();
	/* the card's lines, then each port's */
	for (size_t k = 0; k < HWC_ARRAY_SIZE(items); k++)
		if (!items[k].per_port)
			add_item(&x, &items[k], NULL, fv, checks);
	size_t i;
	const json_t *p;
	json_array_foreach(ports, i, p) {
		x.port_out = json_array_get(pj, i);
		for (size_t k = 0; k < HWC_ARRAY_SIZE(items); k++)
			if (items[k].per_port)
				add_item(&x, &items[k], p, fv, checks);
		link_nulls(x.port_out);
		size_t m;
		json_t *mo;
		json_array_foreach(json_object_get(x.port_out, "members"), m, mo)
			link_nulls(mo);
	}
	if (json_array_size(ports) == 0)
		json_array_append_new(checks, no_port_line(&x, ad, fv));
	json_decref(ports);
	add_others(fv, checks);
	json_object_set_new(card, "verdict", json_string(card_verdict(checks)));
	json_object_set_new(card, "checks", checks);
	return card;
}

static const struct hwc_findings *sort_fd; /* qsort has no context argument */

static int cmp_by_card(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_fd->items[x].card, sort_fd->items[y].card);
	return c ? c : (x < y ? -1 : x > y);
}

static int index_build(struct cards_index *ix, const struct hwc_findings *fd)
{
	ix->by_card = malloc((fd->n ? fd->n : 1) * sizeof(size_t));
	if (!ix->by_card)
		return -ENOMEM;
	for (size_t i = 0; i < fd->n; i++)
		if (fd->items[i].card)
			ix->by_card[ix->n_by_card++] = i;
	sort_fd = fd;
	qsort(ix->by_card, ix->n_by_card, sizeof(size_t), cmp_by_card);
	return 0;
}

static void index_free(struct cards_index *ix)
{
	free(ix->by_card);
}

/* The card's findings: the run of ix->by_card whose card is bdf. */
static struct fd_view card_findings(const struct cards_index *ix, const struct hwc_findings *fd,
				    bool *claimed, const char *bdf)
{
	size_t lo = 0, hi = ix->n_by_card;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(fd->items[ix->by_card[mid]].card, bdf) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < ix->n_by_card && strcmp(fd->items[ix->by_card[end]].card, bdf) == 0)
		end++;
	return (struct fd_view){.fd = fd, .idx = ix->by_card + lo, .n = end - lo, .claimed = claimed};
}

json_t *hwc_cards_json(const json_t *facts, const struct hwc_findings *fd,
		       const struct hwc_profile *prof)
{
	json_t *arr = json_array();
	struct hwc_findings none = {0};
	fd = fd ? fd : &none;
	bool *claimed = calloc(fd->n ? fd->n : 1, sizeof(bool));
	struct cards_index ix = {0};
	if (!arr || !claimed || index_build(&ix, fd) < 0) {
		index_free(&ix);
		free(claimed);
		return arr;
	}
	size_t i;
	const json_t *ad;
	hwc_q_index_begin(facts);
	json_array_foreach(hwc_q_adapters(facts), i, ad) {
		struct fd_view fv = card_findings(&ix, fd, claimed, hwc_json_str_or(ad, "bdf", "?"));
		json_array_append_new(arr, card_json(facts, &ix, ad, &fv, prof));
	}
	hwc_q_index_end();
	index_free(&ix);
	free(claimed);
	return arr;
}

/* ------------------------------------------------------------------ text */

#define WIDTH 100

/* Writes text after a prefix of `col` columns, wrapped at WIDTH with continuation lines indented
 * to `indent` (a word longer than a line is cut). */
void hwc_wrap_print(FILE *out, int col, int indent, const char *text)
{
	const char *s = text;
	while (*s) {
		int room = WIDTH - col > 1 ? WIDTH - col : 1;
		size_t seg = strcspn(s, "\n");
		if ((int)seg <= room) {
			fwrite(s, 1, seg, out);
			s += seg;
			if (!*s)
				break;
			s++; /* a newline in the text starts a continuation line */
		} else {
			int cut = room;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut <= 0)
				cut = room;
			fwrite(s, 1, (size_t)cut, out);
			s += cut;
		}
		while (*s == ' ')
			s++;
		if (*s)
			fprintf(out, "\n%*s", indent, "");
		col = indent;
	}
	fputc('\n', out);
}

static const char *verdict_color(const char *v)
{
	return !strcmp(v, "error") ? "\033[31m" : !strcmp(v, "warn") ? "\033[33m"
	       : !strcmp(v, "ok") ? "\033[32m" : "\033[2m";
}

static size_t put_ids(char *line, size_t n, size_t size, const json_t *ids, const char *pre)
{
	size_t i;
	const json_t *id;
	json_array_foreach(ids, i, id) {
		if (n < size)
			n += (size_t)snprintf(line + n, size - n, "%s%s", i ? ", " : pre, json_string_value(id));
	}
	return n < size ? n : size - 1;
}

/* "value [RULE, ...]", "value; undecided RULE: why", "unknown (why); undecided RULE" */
static void check_text(const json_t *ck, char *line, size_t size)
{
	const char *v = hwc_json_str_or(ck, "verdict", "?");
	const char *val = hwc_json_str_or(ck, "value", NULL), *reason = hwc_json_str_or(ck, "reason", NULL);
	const json_t *ids = hwc_q_get(ck, "rules"), *und = hwc_q_get(ck, "undecided");
	bool unk = strcmp(v, "unknown") == 0 || (!val && strcmp(v, "not_judged") == 0);
	size_t n = 0;
	if (!strcmp(hwc_json_str_or(ck, "item", ""), "other") && json_is_string(hwc_q_get(ck, "subject")))
		n = (size_t)snprintf(line, size, "%s: ", hwc_json_str_or(ck, "subject", "")); /* whose */
	if (n >= size)
		n = size - 1;
	if (val)
		n += (size_t)snprintf(line + n, size - n, "%s", val);
	else
		n += (size_t)snprintf(line + n, size - n, "%s%s%s", unk ? "unknown (" : "",
				      reason ? reason : "", unk ? ")" : "");
	n = n < size ? n : size - 1;
	if (!unk && json_array_size(ids)) {
		n = put_ids(line, n, size, ids, " [");
		n += (size_t)snprintf(line + n, size - n, "]");
	}
	if (json_array_size(und) && n < size) {
		n = put_ids(line, n, size, und, "; undecided ");
		if (unk && val && reason && n < size)
			snprintf(line + n, size - n, ": %s", reason);
	}
}

static void render_check(FILE *out, const struct hwc_cli *c, const json_t *ck)
{
	const char *v = hwc_json_str_or(ck, "verdict", "?");
	char line[2048];
	check_text(ck, line, sizeof(line));
	fprintf(out, "  %s%-8s%s %-12s ", c->color ? verdict_color(v) : "",
		!strcmp(v, "not_judged") ? "-" : v, c->color ? "\033[0m" : "",
		hwc_json_str_or(ck, "label", "?"));
	hwc_wrap_print(out, 24, 24, line);
}

void hwc_render_cards_text(FILE *out, const struct hwc_cli *c, const json_t *cards)
{
	size_t i;
	const json_t *card;
	json_array_foreach(cards, i, card) {
		char head[512];
		const char *pn = hwc_json_str_or(card, "part_number", NULL);
		const char *psid = hwc_json_str_or(card, "psid", NULL);
		const json_t *numa = hwc_q_get(card, "numa_node");
		int n = snprintf(head, sizeof(head), "card %s: %s", hwc_json_str_or(card, "bdf", "?"),
				 hwc_json_str_or(card, "product", "unknown product"));
		if (pn)
			n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", pn);
		if (psid && n > 0 && (size_t)n < sizeof(head))
			n += snprintf(head + n, sizeof(head) - (size_t)n, ", PSID %s", psid);
		if (json_is_integer(numa) && n > 0 && (size_t)n < sizeof(head))
			snprintf(head + n, sizeof(head) - (size_t)n, ", NUMA node %lld",
				 (long long)json_integer_value(numa));
		char verdict[16];
		snprintf(verdict, sizeof(verdict), "%s", hwc_json_str_or(card, "verdict", "?"));
		for (char *p = verdict; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		size_t hl = strlen(head);
		snprintf(head + hl, sizeof(head) - hl, ": %s", verdict);
		fprintf(out, "\n%s", c->color ? "\033[1m" : "");
		hwc_wrap_print(out, 0, 2, head);
		if (c->color)
			fputs("\033[0m", out);
		size_t k;
		const json_t *ck;
		json_array_foreach(hwc_q_get(card, "checks"), k, ck) render_check(out, c, ck);
	}
}

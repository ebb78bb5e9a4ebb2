/* SPDX-License-Identifier: MIT */
/* Netdev and port rules: ring sizes, channels, MTU, LRO, TSO, GRO, RoCE MTU, port state and rate. */
#include <string.h>
#include <strings.h>

#include "rules/rules-int.h"

#include "core/scan.h"
#include "pci/pci.h"

static const char *port_subject(struct hwc_rule_ctx *c, const json_t *p, const json_t *ad);
static bool bond_mtu_differs(struct hwc_rule_ctx *c, const json_t *nd);

#define FOR_CARD_NETDEVS(c, i, ad, nds, n, k)                                                      \
	json_array_foreach(hwc_q_adapters((c)->facts), i, ad) for (size_t n = hwc_q_adapter_netdevs((c)->facts, ad, nds, 32), k = 0; k < n; k++)

static void eval_rings(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad, *nds[32];
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) {
		const json_t *nd = nds[k];
		const char *name = hwc_q_string(nd, "name");
		const char *base = fv_netdev_path(c, name);
		double rx, mx;
		if (!need_num(c, name, nd, base, "rings.rx", &rx) || !need_num(c, name, nd, base, "rings.rx_max", &mx) || rx >= mx)
			continue;
		double d1 = 0, d2 = 0;
		const char *w1, *w2;
		int k1 = hwc_q_find_num(nd, "counters.rx_discards_phy", &d1, &w1, c->a);
		int k2 = hwc_q_find_num(nd, "counters.rx_out_of_buffer", &d2, &w2, c->a);
		if (!k1 && !k2) {
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.counters.rx_discards_phy", base), w1,
					 "whether the small ring drops packets");
			continue;
		}
		if (d1 <= 0 && d2 <= 0)
			continue; /* small rings that drop nothing are a choice, not a problem */
		struct hwc_finding *fd = hwc_rule_emit(c, name, "receive ring is %s of %s entries while the card discards packets (rx_discards_phy %s, rx_out_of_buffer %s)",
						       fv_fmt_num(c->a, rx), fv_fmt_num(c->a, mx), k1 ? fv_fmt_num(c->a, d1) : "?", k2 ? fv_fmt_num(c->a, d2) : "?");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.rings.rx", base), fv_fmt_num(c->a, rx), fv_fmt_num(c->a, mx));
		if (k1)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_discards_phy", base), fv_fmt_num(c->a, d1), "0");
		if (k2)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.rx_out_of_buffer", base), fv_fmt_num(c->a, d2), "0");
	}
}

static int cpus_in(const char *cpulist)
{
	int64_t n;
	return hwc_cpulist_count(cpulist, &n) < 0 || n > INT32_MAX ? -1 : (int)n;
}

/* CPUs local to the netdev: its irq_locality cpulist, else the host's node list. */
static int local_cpus(struct hwc_rule_ctx *c, const json_t *nd, const char **src)
{
	const json_t *il = hwc_q_irq_locality(nd);
	const char *cl = hwc_q_string(il, "local_cpulist");
	*src = "irq_locality.local_cpulist";
	if (cl)
		return cpus_in(cl);
	const json_t *e = hwc_q_numa_node(c->facts, hwc_q_get(il, "numa_node"));
	if (!e)
		return -1;
	*src = "host.numa.nodes[].cpulist";
	return cpus_in(hwc_q_string(e, "cpulist"));
}

static void eval_channels(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad, *nds[32];
	double want_max = hwc_profile_threshold(c->prof, HWC_T_CHANNELS_MIN);
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) {
		const json_t *nd = nds[k];
		const char *name = hwc_q_string(nd, "name");
		const char *base = fv_netdev_path(c, name);
		double comb, cmax;
		if (!need_num(c, name, nd, base, "channels.combined", &comb) || !need_num(c, name, nd, base, "channels.combined_max", &cmax))
			continue;
		const char *src;
		int cpus = local_cpus(c, nd, &src);
		if (cpus <= 0) {
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.irq_locality.local_cpulist", base),
					 "not_collected: no local CPU list", "how many channels the card's node can serve");
			continue;
		}
		double want = (double)cpus < want_max ? (double)cpus : want_max;
		if (want > cmax)
			want = cmax;
		if (comb >= want)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, name, "%s combined channels for %d local CPUs (up to %s possible)",
						       fv_fmt_num(c->a, comb), cpus, fv_fmt_num(c->a, cmax));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.channels.combined", base), fv_fmt_num(c->a, comb),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, want)));
	}
}

/* The netdev of an InfiniBand port (IPoIB) has its own MTU rules: only Ethernet/RoCE netdevs. */
static bool ib_netdev(const json_t *ad, const char *name)
{
	size_t k;
	const json_t *p;
	json_array_foreach(hwc_q_get(ad, "ports"), k, p) {
		const char *nd = hwc_q_string(p, "netdev");
		const char *ll = hwc_q_string(p, "link_layer");
		if (nd && name && !strcmp(nd, name) && ll && !strcasecmp(ll, "InfiniBand"))
			return true;
	}
	return false;
}

/* No profile MTU: the host's own named ConnectX Ethernet ports say whether the fabric is jumbo. The
 * largest MTU above 1500 among them, with the netdev that has it; 0 when none is jumbo. */
static double fabric_jumbo(struct hwc_rule_ctx *c, const char **who)
{
	size_t i;
	const json_t *ad, *nds[32];
	double best = 0;
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) {
		const char *name = hwc_q_string(nds[k], "name");
		const json_t *m = hwc_q_get(nds[k], "mtu");
		/* a bond member set apart from its bond says nothing about the fabric */
		if (name && json_is_number(m) && json_number_value(m) > 1500 && json_number_value(m) > best &&
		    !ib_netdev(ad, name) && !bond_mtu_differs(c, nds[k])) {
			best = json_number_value(m);
			*who = name;
		}
	}
	return best;
}

/* The bond a netdev is a member of: 1 with its object, 0 when it is in none (no master, or a
 * master that is not a bond), -1 when that is unknown (*why says why). */
static int bond_of(struct hwc_rule_ctx *c, const json_t *nd, const json_t **bond, const char **why)
{
	const json_t *b;
	*bond = NULL;
	if (hwc_q_find(nd, "bond", &b, why, c->a)) {
		*bond = b;
		return json_is_object(b) ? 1 : -1;
	}
	return *why && (!strncmp(*why, "absent", 6) || !strncmp(*why, "unsupported", 11)) ? 0 : -1;
}

/* Where an MTU is set: on the bond for a member (the bonding driver passes the bond's MTU to every
 * member; one set on a member alone leaves the bond and the other members as they were). */
static const char *mtu_target(struct hwc_rule_ctx *c, const json_t *nd)
{
	const json_t *b;
	const char *why;
	const char *bn = bond_of(c, nd, &b, &why) == 1 ? hwc_q_string(b, "name") : NULL;
	return bn ? bn : hwc_q_string(nd, "name");
}

static const char *mtu_fix(struct hwc_rule_ctx *c, const json_t *nd, const char *fix, double mtu)
{
	fix = hwc_fix_subst(c->a, fix, "<netdev>", mtu_target(c, nd));
	return hwc_fix_subst(c->a, fix, "<mtu_min>", fv_fmt_num(c->a, mtu));
}

/* A member whose MTU is not its bond's: the bond has another member set apart from it. */
static bool bond_mtu_differs(struct hwc_rule_ctx *c, const json_t *nd)
{
	const json_t *b;
	const char *why;
	const json_t *bm = bond_of(c, nd, &b, &why) == 1 ? hwc_q_get(b, "mtu") : NULL;
	const json_t *m = hwc_q_get(nd, "mtu");
	return json_is_number(bm) && json_is_number(m) && json_number_value(bm) != json_number_value(m);
}

/* A 1500-byte port on a host whose other ConnectX Ethernet ports (bond members among them) run
 * jumbo frames: the fabric is jumbo and this port is the odd one (RoCE on it gets a 1024-byte
 * active MTU). A member that already differs from its own bond is NET_BOND_MTU_MISMATCH's. */
static void mtu_against_peers(struct hwc_rule_ctx *c, const json_t *ad, const json_t *nd, double peer, const char *who)
{
	const char *name = hwc_q_string(nd, "name");
	double mtu;
	if (!name || !who || !strcmp(name, who) || ib_netdev(ad, name) || bond_mtu_differs(c, nd) ||
	    !need_num(c, name, nd, fv_netdev_path(c, name), "mtu", &mtu) || mtu > 1500)
		return;
	const char *tgt = mtu_target(c, nd);
	struct hwc_finding *fd = hwc_rule_emit(c, name, "MTU is %s%s%s%s while %s on this host runs %s: the fabric is jumbo and this port "
					       "is not (RoCE on it gets a 1024-byte active MTU)",
					       fv_fmt_num(c->a, mtu), strcmp(tgt, name) ? " (its bond " : "", strcmp(tgt, name) ? tgt : "",
					       strcmp(tgt, name) ? " too)" : "", who, fv_fmt_num(c->a, peer));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.mtu", fv_netdev_path(c, name)), fv_fmt_num(c->a, mtu),
			 fv_fmt_num(c->a, peer));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.mtu", fv_netdev_path(c, who)), fv_fmt_num(c->a, peer), NULL);
	if (fd)
		fd->fix = mtu_fix(c, nd, fd->fix, peer);
}

static void eval_mtu(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad, *nds[32];
	const char *who = NULL;
	double peer = fabric_jumbo(c, &who);
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) {
		const json_t *pm = hwc_profile_product_get(c->prof, ad, "mtu_min");
		double want = json_is_number(pm) ? json_number_value(pm) : hwc_profile_host_num(c->prof, "mtu_min");
		if (want <= 0) {
			if (peer > 0)
				mtu_against_peers(c, ad, nds[k], peer, who);
			continue;
		}
		const json_t *nd = nds[k];
		const char *name = hwc_q_string(nd, "name");
		double mtu;
		if (!need_num(c, name, nd, fv_netdev_path(c, name), "mtu", &mtu) || mtu >= want)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, name, "MTU is %s; the profile expects jumbo frames (>= %s)",
						       fv_fmt_num(c->a, mtu), fv_fmt_num(c->a, want));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.mtu", fv_netdev_path(c, name)), fv_fmt_num(c->a, mtu),
				 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, want)));
		if (fd)
			fd->fix = mtu_fix(c, nd, fd->fix, want);
	}
}

/* The active MTU RoCE derives from a netdev MTU: the largest IB MTU that fits once the RoCE v2
 * headers are taken off (include/rdma/ib_addr.h iboe_get_mtu: GRH, UDP, BTH, extended headers
 * and ICRC, 96 bytes): 1500 -> 1024, 4200 or more -> 4096. */
static int roce_mtu_of(double mtu)
{
	static const int ib[] = {4096, 2048, 1024, 512, 256};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(ib); i++)
		if (mtu - 96 >= ib[i])
			return ib[i];
	return 0;
}

/* The RoCE port that runs over the bond (RoCE LAG: its netdev is the bond) or over the member: its
 * active MTU against the one the bond's MTU gives (mlx5 takes a LAG port's from the bond). */
static void bond_roce_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *ad, const char *member,
			       const char *bond, double bond_mtu)
{
	size_t k;
	const json_t *p;
	json_array_foreach(hwc_q_get(ad, "ports"), k, p) {
		const char *pn = hwc_q_string(p, "netdev");
		const char *ll = hwc_q_string(p, "link_layer");
		if (!pn || (strcmp(pn, bond) && strcmp(pn, member)) || (ll && !strcasecmp(ll, "InfiniBand")))
			continue;
		const json_t *am = hwc_q_get(p, "active_mtu");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.ports[%s].active_mtu", fv_adapter_path(c, hwc_q_string(ad, "bdf")), port_subject(c, p, ad)),
				 json_is_number(am) ? fv_fmt_num(c->a, json_number_value(am)) : NULL,
				 hwc_arena_printf(c->a, "%d (RoCE over the bond's MTU %s)", roce_mtu_of(bond_mtu), fv_fmt_num(c->a, bond_mtu)));
	}
}

/* The other members of the bond this host collected, with their MTUs, for the evidence. */
static void bond_peer_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *member, const char *bond, double bond_mtu)
{
	size_t i;
	const json_t *o;
	json_array_foreach(hwc_q_netdevs(c->facts), i, o) {
		const char *on = hwc_q_string(o, "name");
		const json_t *m = hwc_q_get(o, "mtu");
		if (!on || !strcmp(on, member) || !hwc_q_string(hwc_q_get(o, "bond"), "name") ||
		    strcmp(hwc_q_string(hwc_q_get(o, "bond"), "name"), bond))
			continue;
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.mtu", fv_netdev_path(c, on)),
				 json_is_number(m) ? fv_fmt_num(c->a, json_number_value(m)) : NULL, fv_fmt_num(c->a, bond_mtu));
	}
}

static void bond_mismatch_one(struct hwc_rule_ctx *c, const json_t *ad, const json_t *nd)
{
	const char *name = hwc_q_string(nd, "name");
	const char *base = fv_netdev_path(c, name);
	const json_t *b;
	const char *why = NULL;
	int in = bond_of(c, nd, &b, &why);
	if (in < 0) {
		hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.bond", base), why, "whether the port is a bond member with its bond's MTU");
		return;
	}
	double mtu, bm;
	const char *bn;
	if (!in || ib_netdev(ad, name) || !need_str(c, name, nd, base, "bond.name", &bn) || !need_num(c, name, nd, base, "mtu", &mtu) ||
	    !need_num(c, name, nd, base, "bond.mtu", &bm) || mtu == bm)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, name, "MTU is %s while its bond %s runs %s: the members of one bond must carry the same frames "
					       "(%s)", fv_fmt_num(c->a, mtu), bn, fv_fmt_num(c->a, bm),
					       mtu < bm ? "this member drops the bond's larger frames" : "this member's larger MTU is never used by the bond");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.mtu", base), fv_fmt_num(c->a, mtu), fv_fmt_num(c->a, bm));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.bond.mtu", base), fv_fmt_num(c->a, bm), NULL);
	bond_peer_evidence(c, fd, name, bn, bm);
	bond_roce_evidence(c, fd, ad, name, bn, bm);
	if (fd)
		fd->fix = hwc_fix_subst(c->a, hwc_fix_subst(c->a, fd->fix, "<bond>", bn), "<bond_mtu>", fv_fmt_num(c->a, bm));
}

static void eval_bond_mtu(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad, *nds[32];
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) bond_mismatch_one(c, ad, nds[k]);
}

/* An offload in the state the rule flags (LRO on; TSO or GRO off, which mlx5 turns on by default
 * and old tuning scripts turn off). */
static void offload_is(struct hwc_rule_ctx *c, const char *feature, bool bad, const char *what)
{
	size_t i;
	const json_t *ad, *nds[32];
	FOR_CARD_NETDEVS(c, i, ad, nds, n, k) {
		const json_t *nd = nds[k];
		const char *name = hwc_q_string(nd, "name");
		bool on;
		if (!need_bool(c, name, nd, fv_netdev_path(c, name), feature, &on) || on != bad)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, name, "%s is %s", what, bad ? "on" : "off");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.%s", fv_netdev_path(c, name), feature),
				 bad ? "true" : "false", bad ? "false" : "true");
	}
}

static void eval_lro(struct hwc_rule_ctx *c)
{
	offload_is(c, "features.lro", true, "large receive offload (LRO)");
}

static void eval_tso(struct hwc_rule_ctx *c)
{
	offload_is(c, "features.tso", false, "TCP segmentation offload (TSO/LSO)");
}

static void eval_gro(struct hwc_rule_ctx *c)
{
	offload_is(c, "features.gro", false, "generic receive offload (GRO)");
}

static const char *port_subject(struct hwc_rule_ctx *c, const json_t *p, const json_t *ad)
{
	const char *dev = hwc_q_string(p, "rdma_device");
	const json_t *pn = hwc_q_get(p, "port");
	if (dev)
		return hwc_arena_printf(c->a, "%s/%lld", dev, json_is_integer(pn) ? (long long)json_integer_value(pn) : 1LL);
	const char *nd = hwc_q_string(p, "netdev");
	return nd ? nd : hwc_q_string(ad, "bdf");
}

static bool port_active(const json_t *p)
{
	const char *st = hwc_q_string(p, "state");
	return st && strcasestr(st, "active");
}

/* The far end's side of an InfiniBand link MTU: opensm sets each link's NeighborMTU to the
 * smaller MtuCap of its two ports (osm_physp_calc_link_mtu), so a peer capped at the active MTU
 * explains it and one that can do more does not. *pc: the peer's MtuCap, 0 unknown. */
static const char *ib_mtu_peer(struct hwc_rule_ctx *c, const json_t *p, double am, double *pc)
{
	const char *why = NULL;
	if (!hwc_q_find_num(p, "peer.portinfo.mtu_cap", pc, &why, c->a) || *pc <= 0) {
		*pc = 0;
		return hwc_arena_printf(c->a, "the far end's MtuCap was not read (%s); a far end that supports no more "
					      "would explain it",
					why ? why : "invalid");
	}
	if (*pc <= am)
		return hwc_arena_printf(c->a, "the far end supports no more (its MtuCap is %s)", fv_fmt_num(c->a, *pc));
	return hwc_arena_printf(c->a, "the far end supports %s too (its MtuCap): the link was set below both ends",
				fv_fmt_num(c->a, *pc));
}

/* An active InfiniBand port whose link MTU (PortInfo NeighborMTU) is below its own MtuCap. */
static void ib_mtu_small(struct hwc_rule_ctx *c, const json_t *p, const char *subj, const char *base)
{
	double am, mm, pc;
	if (!need_num(c, subj, p, base, "portinfo.neighbor_mtu", &am) || !need_num(c, subj, p, base, "portinfo.mtu_cap", &mm))
		return;
	if (am >= mm || am >= 4096)
		return;
	const char *peer = ib_mtu_peer(c, p, am, &pc);
	struct hwc_finding *fd = hwc_rule_emit(
		c, subj, "InfiniBand link MTU (PortInfo NeighborMTU) is %s of the %s this port supports (MtuCap); the subnet manager sets it to the smaller MtuCap of the link's two ports: %s",
		fv_fmt_num(c->a, am), fv_fmt_num(c->a, mm), peer);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.neighbor_mtu", base), fv_fmt_num(c->a, am), fv_fmt_num(c->a, mm));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.mtu_cap", base), fv_fmt_num(c->a, mm), NULL);
	if (pc > 0)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.peer.portinfo.mtu_cap", base), fv_fmt_num(c->a, pc), NULL);
	double pp = 0;
	const char *w = NULL;
	const char *ask = hwc_q_find_num(p, "peer.port", &pp, &w, c->a)
				  ? hwc_arena_printf(c->a, "`smpquery -D portinfo 0,<port> %g`", pp)
				  : "`smpquery -D portinfo 0,<port> N`, N the far end's port (LocalPort of `smpquery -D nodeinfo 0,<port>`)";
	if (fd)
		fd->fix = hwc_arena_printf(
			c->a,
			"InfiniBand, not `ip link`: read the far end's MtuCap (%s) and bring the lower end to 4096 (the switch "
			"port's or the peer HCA's MTU setting), then let the subnet manager resweep (opensm re-reads MtuCap on a "
			"heavy sweep). Connections use the path MTU the SM hands out (the smallest link MTU on the route, which "
			"its QoS policy may lower; opensm partitions.conf's `mtu=` sets the partition's IPoIB multicast groups), "
			"which no host-side read shows.",
			ask);
	fv_far_end_port(c, fd, p, base, NULL);
}

static void eval_roce_mtu(struct hwc_rule_ctx *c)
{
	size_t i, k;
	const json_t *ad, *p;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_foreach(hwc_q_get(ad, "ports"), k, p) {
		if (!port_active(p))
			continue;
		const char *subj = port_subject(c, p, ad);
		const char *base = hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, hwc_q_string(ad, "bdf")), subj);
		const char *ll = hwc_q_string(p, "link_layer");
		if (ll && !strcasecmp(ll, "InfiniBand")) {
			ib_mtu_small(c, p, subj, base);
			continue;
		}
		double am, mm;
		if (!need_num(c, subj, p, base, "active_mtu", &am) || !need_num(c, subj, p, base, "max_mtu", &mm))
			continue;
		if (am >= mm || am >= 4096)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, subj, "active MTU is %s of a possible %s (RoCE derives it from the netdev MTU)",
						       fv_fmt_num(c->a, am), fv_fmt_num(c->a, mm));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.active_mtu", base), fv_fmt_num(c->a, am), fv_fmt_num(c->a, mm));
	}
}

/* A down RoCE/Ethernet port whose netdev was set down (IFF_UP clear): intended by whoever set
 * it down, so reported at info, not as a fault. */
static void port_admin_down(struct hwc_rule_ctx *c, const char *subj, const char *base,
			    const char *st, const char *ndn)
{
	struct hwc_finding *fd = hwc_rule_emit_sev(
		c, HWC_SEV_INFO, subj, "port is %s because its netdev %s is administratively down (IFF_UP clear); list the port under the profile's unused_ports if it is meant to stay unused",
		st, ndn);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.state", base), st, "ACTIVE");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.admin_up", fv_netdev_path(c, ndn)), "false", "true");
	fd->fix = hwc_arena_printf(c->a, "If the port should carry traffic: `ip link set %s up` (persisted in the network configuration); "
				   "if it is meant to stay unused, list it under `unused_ports` in the site profile (docs/profile.md).", ndn);
}

/* The fix of a down port: what to look at depends on what the port is (placeholders <BDF> and
 * <port> are the card's and the port's, filled in by rules.c). */
/* Evidence of a fact that may be unknown: its value, else "unknown (why)", never a bare null. */
static const char *ev_str(struct hwc_rule_ctx *c, const json_t *o, const char *key)
{
	const char *v = NULL, *why = NULL;
	if (o && hwc_q_find_str(o, key, &v, &why, c->a))
		return v;
	return hwc_arena_printf(c->a, "unknown (%s)", why ? why : "not collected");
}

static const char *ev_bool(struct hwc_rule_ctx *c, int known, bool v, const char *why)
{
	return known ? (v ? "true" : "false") : hwc_arena_printf(c->a, "unknown (%s)", why ? why : "not collected");
}

static const char *port_fix(struct hwc_rule_ctx *c, bool ib, const char *phys, const char *rdma, const char *ndn)
{
	const char *unused = "; a port meant to stay unused goes under `unused_ports` in the site profile (docs/profile.md).";
	/* Disabled (IBA PortPhysicalState 3) is the state of a port switched off, but field captures show
	 * it on ConnectX ports nobody is known to have disabled (an unused second port, seven ports at a
	 * server's bring-up): the module is looked at first, then who disabled the port. */
	if (ib && phys && !strcmp(phys, "Disabled"))
		return hwc_arena_printf(c->a, "First see whether the card sees a module: `mstlink -d <BDF> -p <port> -m` and the kernel log's "
					"'Port module event' lines (no module: seat the cable or transceiver; a module the firmware refused: "
					"one the card supports). With a module seen and accepted, the port was switched off: find who disabled "
					"it, the subnet manager (a port it disabled or isolated: its configuration and log) or a command on this "
					"host (`ibportstate ... disable`, mstlink's --port_state DN); enable it from this host with "
					"`ibportstate -C %s -P <port> -D 0 <port> enable` and watch it go to Polling, then LinkUp "
					"(`ibstat %s <port>`); if it reaches Polling but no further, check the cable, transceiver and switch port%s",
					rdma ? rdma : "<rdma dev>", rdma ? rdma : "<rdma dev>", unused);
	if (ib)
		return hwc_arena_printf(c->a, "Check the cable or transceiver, the switch port and the subnet manager: `mstlink -d <BDF> -p <port>`, `ibstat`%s", unused);
	if (!ndn)
		return hwc_arena_printf(c->a, "Check the cable, transceiver and switch port: `mstlink -d <BDF> -p <port>` (`rdma link show` names the port's netdev)%s", unused);
	return hwc_arena_printf(c->a, "Check the cable, transceiver and switch port: `mstlink -d <BDF> -p <port>` or `ethtool %s`%s", ndn, unused);
}

/* The kernel's reason a netdev has no link: the extended state and substate ethtool prints after
 * "Link detected: no" (netlink LINKSTATE ext_state/ext_substate, Linux >= 5.10; the names are
 * ethtool's, netlink/settings.c, for the kernel's enum ethtool_link_ext_state and its substates,
 * include/uapi/linux/ethtool.h). mlx5 maps the firmware's troubleshooting status (PDDI) onto them
 * (mlx5e_link_ext_state_opcode_map, en_ethtool.c: opcodes 16, 20, 29, 1025, 1029 "Cable issue,
 * Unsupported cable"; 1024 "No cable"; 1030 "Overheat"; 1032 "Power budget exceeded"). What to do
 * for each; a reason this table does not know is still printed, as ethtool gave it. */
static const char *ext_fix(struct hwc_rule_ctx *c, const char *st, const char *sub, const char *ndn)
{
#define S(x) (!strcmp(st, x))
#define SUB(x) (sub && !strcmp(sub, x))
	if (S("No cable"))
		return "the card sees no cable or module in the cage: seat the cable or transceiver, here and at the far end.";
	if (S("Cable issue") && SUB("Unsupported cable"))
		return hwc_arena_printf(c->a, "the card refused the cable or module: read what it is with `ethtool -m %s` (type, vendor, "
					"OUI, part number) and use one the card supports at the speed set (`ethtool %s`: Advertised "
					"link modes; the card's firmware release notes list the cables and modules it was validated "
					"with); a module of another type or vendor may be refused outright.", ndn, ndn);
	if (S("Cable issue"))
		return hwc_arena_printf(c->a, "the card found a fault with the cable: reseat it or try another (`ethtool -m %s` reads the module).", ndn);
	if (S("EEPROM issue"))
		return hwc_arena_printf(c->a, "the card could not read or parse the module's EEPROM: reseat the module and read it "
					"(`ethtool -m %s`: an I/O error is the card's read failing). If the same module reads and "
					"links in another card, the refusal is this card's (a ConnectX-4 Lx on firmware 14.32.1908 and "
					"14.32.1912 refused so a DAC that linked between two HP-OEM ConnectX-4 Lx): try a module its "
					"firmware release notes list before replacing this one.", ndn);
	if (S("Autoneg") && (SUB("No partner detected") || SUB("No partner detected during force mode")))
		return hwc_arena_printf(c->a, "nothing answered at the far end: check that the switch port is up and cabled, and that both "
					"ends agree on auto-negotiation and speed (`ethtool %s`, the switch port's configuration).", ndn);
	if (S("Autoneg"))
		return hwc_arena_printf(c->a, "auto-negotiation did not complete: both ends need auto-negotiation on (or both off at one "
					"speed) with a speed and FEC in common (`ethtool %s`, `ethtool --show-fec %s`, the switch port's "
					"configuration).", ndn, ndn);
	if (S("Link training failure"))
		return hwc_arena_printf(c->a, "link training failed: check the cable (its type and length for the speed) and that both ends "
					"run the same speed, auto-negotiation and FEC (`ethtool %s`, `ethtool --show-fec %s`; a far end "
					"that does not train at the card's speed, such as a 10G SFP+ switch port facing a 25G card, "
					"may need the card's speed set by hand: `ethtool -s %s speed 10000 autoneg off`); try another "
					"cable.",
					ndn, ndn, ndn);
	if (S("Logical mismatch"))
		return hwc_arena_printf(c->a, "the two ends disagree on the coding or the FEC (the PCS or FEC did not lock): set the same FEC "
					"and speed on both ends (`ethtool --show-fec %s`, `ethtool --set-fec %s encoding auto`, the switch "
					"port's FEC).", ndn, ndn);
	if (S("Bad signal integrity") && SUB("Unsupported rate"))
		return hwc_arena_printf(c->a, "the speed set is not one the module or the far end supports: set one both support, or "
					"auto-negotiation (`ethtool %s`, `ethtool -m %s`).", ndn, ndn);
	if (S("Bad signal integrity"))
		return hwc_arena_printf(c->a, "the signal is too poor to hold a link: clean and reseat the optics or replace the cable, and "
					"read the module's Rx power (`ethtool -m %s`).", ndn);
	if (S("Calibration failure"))
		return hwc_arena_printf(c->a, "the PHY failed its calibration: set the netdev down and up (`ip link set %s down`, then up) "
					"and, if it stays down, reseat the module.", ndn);
	if (S("Power budget exceeded"))
		return hwc_arena_printf(c->a, "the card cannot power the module: use one of a power class the card supports (`ethtool -m "
					"%s`: the Extended identifier's power class).", ndn);
	if (S("Overheat"))
		return hwc_arena_printf(c->a, "the module is too hot: check the airflow over the card and the module's temperature against "
					"its own thresholds (`ethtool -m %s`).", ndn);
	if (S("Module"))
		return hwc_arena_printf(c->a, "the module is not ready (a CMIS module not in its ModuleReady state): reseat it and read it "
					"(`ethtool -m %s`).", ndn);
	return "hwcheck has no advice for this reason (a number is a state this ethtool has no name for: the kernel's "
	       "include/uapi/linux/ethtool.h names it).";
#undef S
#undef SUB
}

/* A down netdev's finding gains the kernel's reason, when ethtool printed one: in the message
 * (verbatim), in the evidence, and as the first step of the fix. */
static void ext_reason(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *nd, const char *ndn)
{
	const char *st, *sub, *why;
	if (!fd || !nd || !ndn || !hwc_q_find_str(nd, "link.modes.link_ext_state", &st, &why, c->a))
		return;
	if (!hwc_q_find_str(nd, "link.modes.link_ext_substate", &sub, &why, c->a))
		sub = NULL;
	const char *reason = sub ? hwc_arena_printf(c->a, "%s, %s", st, sub) : st;
	const char *base = hwc_arena_printf(c->a, "%s.link.modes", fv_netdev_path(c, ndn));
	fd->message = hwc_arena_printf(c->a, "%s; the kernel's reason: %s (ethtool's link_ext_state)", fd->message, reason);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link_ext_state", base), st, "none (a link)");
	if (sub)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link_ext_substate", base), sub, "none (a link)");
	fd->fix = hwc_arena_printf(c->a, "The kernel says why (%s): %s Then: %s", reason, ext_fix(c, st, sub, ndn), fd->fix ? fd->fix : "");
}

/* The netdev's carrier: sysfs `carrier`, else, on a netdev that is up, ethtool's "Link detected".
 * ETHTOOL_GLINK and netlink LINKSTATE both answer netif_running() && get_link() (the kernel's
 * __ethtool_get_link, net/ethtool/common.c), and mlx5e and mlx4_en set get_link to
 * ethtool_op_get_link, netif_carrier_ok(): with IFF_UP set (the netdev is running) "no" is no
 * carrier and "yes" a carrier. On a netdev whose IFF_UP is unknown "no" may be a netdev set down,
 * so it is not used. Returns 1 where known; *eth is set when ethtool's word decided. */
static int netdev_carrier(struct hwc_rule_ctx *c, const json_t *nd, int ku, bool up, bool *carrier,
			  const char **cwhy, bool *eth)
{
	*eth = false;
	if (hwc_q_find_bool(nd, "carrier", carrier, cwhy, c->a))
		return 1;
	const char *w;
	if (!ku || !up || !hwc_q_find_bool(nd, "link.modes.link_detected", carrier, &w, c->a))
		return 0;
	*eth = true;
	return 1;
}

/* The evidence of a carrier read from sysfs, or (eth) of ethtool's "Link detected" that stood in
 * for it, with the sysfs read's reason kept. */
static void carrier_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *ndn, int kc,
			     bool carrier, const char *cwhy, bool eth)
{
	const char *path = fv_netdev_path(c, ndn);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.carrier", path), ev_bool(c, eth ? 0 : kc, carrier, cwhy), "true");
	if (eth)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.modes.link_detected", path),
				 hwc_arena_printf(c->a, "%s (ethtool: the netdev is up, so this is its carrier)", carrier ? "true" : "false"),
				 "true");
}

/* The first collected netdev whose bond is `bond`. A RoCE LAG port's netdev is the bond
 * (mlx5_bond_N), which facts.netdevs (ConnectX netdevs) does not list; each ConnectX member
 * carries its bond's own state in netdevs[].bond. */
static const json_t *bond_member(const json_t *facts, const char *bond)
{
	size_t i;
	const json_t *o;
	json_array_foreach(hwc_q_netdevs(facts), i, o) {
		const char *bn = hwc_q_string(hwc_q_get(o, "bond"), "name");
		if (bn && !strcmp(bn, bond))
			return o;
	}
	return NULL;
}

/* "eth01 no carrier, eth02 carrier": the bond's ConnectX members, each with its evidence. */
static const char *bond_members_text(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *bond)
{
	const char *txt = NULL;
	size_t i;
	const json_t *o;
	json_array_foreach(hwc_q_netdevs(c->facts), i, o) {
		const char *n = hwc_q_string(o, "name"), *bn = hwc_q_string(hwc_q_get(o, "bond"), "name"), *why;
		bool up = true, car = false;
		if (!n || !bn || strcmp(bn, bond))
			continue;
		int ku = hwc_q_find_bool(o, "admin_up", &up, &why, c->a);
		int kc = hwc_q_find_bool(o, "carrier", &car, &why, c->a);
		const char *st = ku && !up ? "administratively down" : !kc ? "carrier unknown" : car ? "carrier" : "no carrier";
		txt = txt ? hwc_arena_printf(c->a, "%s, %s %s", txt, n, st) : hwc_arena_printf(c->a, "%s %s", n, st);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.carrier", fv_netdev_path(c, n)), ev_bool(c, kc, car, why), "true");
	}
	return txt ? txt : "none collected";
}

/* A down RoCE LAG port: its state follows the bond's (mlx5 reports the LAG port ACTIVE only while
 * the bond is up with carrier, i.e. while a member has a link), so the bond and its members say
 * why. */
static void lag_port_down(struct hwc_rule_ctx *c, const char *subj, const char *base, const char *st,
			  const char *phys, const char *bond, const json_t *member)
{
	const json_t *b = hwc_q_get(member, "bond");
	const char *bp = hwc_arena_printf(c->a, "%s.bond", fv_netdev_path(c, hwc_q_string(member, "name")));
	bool up = false, car = false;
	const char *why = NULL, *cwhy = NULL;
	int ku = hwc_q_find_bool(b, "admin_up", &up, &why, c->a);
	int kc = hwc_q_find_bool(b, "carrier", &car, &cwhy, c->a);
	struct hwc_finding *fd;
	if (ku && !up)
		fd = hwc_rule_emit_sev(c, HWC_SEV_INFO, subj, "port is %s because its netdev, the bond %s (RoCE LAG), is administratively down (IFF_UP clear); "
				       "list the port under the profile's unused_ports if it is meant to stay unused", st, bond);
	else if (kc && !car)
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s): it is the RoCE LAG port of bond %s, which has no carrier", st, phys, bond);
	else if (!kc)
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s): it is the RoCE LAG port of bond %s, whose carrier is unknown (%s)", st, phys, bond, cwhy);
	else
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s) although its bond %s (RoCE LAG) is up with carrier", st, phys, bond);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.state", base), st, "ACTIVE");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phys_state", base), phys, "LinkUp");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.admin_up", bp), ev_bool(c, ku, up, why), "true");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.carrier", bp), ev_bool(c, kc, car, cwhy), "true");
	const char *members = bond_members_text(c, fd, bond);
	if (!fd)
		return;
	fd->message = hwc_arena_printf(c->a, "%s (members: %s)", fd->message, members);
	fd->fix = ku && !up ? hwc_arena_printf(c->a, "If the port should carry traffic: `ip link set %s up`; if it is meant to stay unused, list it under "
							 "`unused_ports` in the site profile (docs/profile.md).", bond)
			    : hwc_arena_printf(c->a, "Check the cables, transceivers and switch ports of the bond's members (`cat /proc/net/bonding/%s`, "
						     "`mstlink -d <BDF> -p <port>`); a port meant to stay unused goes under `unused_ports` in the site profile (docs/profile.md).", bond);
}

/* Why the port is down, from its netdev: mlx5 and mlx4 report every RoCE port without carrier
 * as DOWN/Disabled (the RoCE port state follows the netdev's running and carrier state), so
 * the RDMA physical state says nothing about intent. */
static void port_down_one(struct hwc_rule_ctx *c, const json_t *p, const char *subj,
			  const char *base, const char *st)
{
	const char *ps = hwc_q_string(p, "phys_state");
	const char *ll = hwc_q_string(p, "link_layer");
	const char *ndn = hwc_q_string(p, "netdev");
	bool ib = ll && !strcasecmp(ll, "InfiniBand");
	const json_t *nd = ib ? NULL : hwc_q_netdev(c->facts, ndn);
	bool up = false, carrier = false;
	const char *why = "not_collected: no netdev in facts.netdevs", *cwhy = NULL;
	int ku = nd ? hwc_q_find_bool(nd, "admin_up", &up, &why, c->a) : 0;
	bool eth = false;
	int kc = nd ? netdev_carrier(c, nd, ku, up, &carrier, &cwhy, &eth) : 0;
	if (ku && !up) {
		port_admin_down(c, subj, base, st, ndn);
		return;
	}
	const char *phys = ps ? ps : "unknown";
	const json_t *member = !ib && !nd && ndn ? bond_member(c->facts, ndn) : NULL;
	if (member) {
		lag_port_down(c, subj, base, st, phys, ndn, member);
		return;
	}
	struct hwc_finding *fd;
	if (ib && !strcmp(phys, "Disabled"))
		fd = hwc_rule_emit(c, subj, "InfiniBand port is %s (physical state Disabled): either the port was switched off (the subnet manager, "
				   "ibportstate, mstlink's port_state) or the card sees no module it accepts (field captures show Disabled on "
				   "ConnectX ports nobody is known to have disabled)", st);
	else if (ib)
		fd = hwc_rule_emit(c, subj, "InfiniBand port is %s (physical state %s): no link to a switch or subnet manager", st, phys);
	else if (!nd)
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s) and its netdev is unknown%s%s: nothing shows it was switched off on purpose",
				   st, phys, ndn ? ", not among the collected netdevs: " : "", ndn ? ndn : "");
	else if (!ku)
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s); whether netdev %s was set down is unknown (%s)", st, phys, ndn, why);
	else if (kc && !carrier)
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s) although netdev %s is up: no carrier%s (cable, transceiver or switch port)", st, phys, ndn,
				   eth ? " (ethtool: 'Link detected: no'; the sysfs carrier was not read)" : "");
	else
		fd = hwc_rule_emit(c, subj, "port is %s (physical state %s) although netdev %s is up (carrier %s)", st, phys, ndn,
				   kc ? "present" : "unknown");
	fd->fix = port_fix(c, ib, phys, hwc_q_string(p, "rdma_device"), ndn);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.state", base), st, "ACTIVE");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phys_state", base), ev_str(c, p, "phys_state"), "LinkUp");
	if (nd) {
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.admin_up", fv_netdev_path(c, ndn)), ev_bool(c, ku, up, why), "true");
		carrier_evidence(c, fd, ndn, kc, carrier, cwhy, eth);
		ext_reason(c, fd, nd, ndn);
	} else if (!ib) {
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.netdev", base), ev_str(c, p, "netdev"), "a netdev in facts.netdevs");
	}
}

/* A card with no port known while a physical function's driver is unknown (an lspci dump given
 * alone, a function no driver is bound to): whether its ports are up cannot be said, and an
 * empty list must not read as "no port is down". A card in flash recovery has no port to say of. */
static void ports_unknown(struct hwc_rule_ctx *c, const json_t *ad)
{
	const char *bdf = hwc_q_string(ad, "bdf");
	size_t i;
	const json_t *fn;
	if (!bdf || json_array_size(hwc_q_get(ad, "ports")) > 0)
		return;
	if (json_is_true(hwc_q_get(ad, "flash_recovery"))) {
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.ports", fv_adapter_path(c, bdf)),
				 "the card is in flash recovery: its firmware does not run, so no driver binds "
				 "it and it has no port (MLX_FLASH_RECOVERY says what to do)",
				 NULL);
		return;
	}
	json_array_foreach(hwc_q_function_map(ad), i, fn) {
		const char *drv, *why;
		if (json_is_true(hwc_q_get(fn, "is_vf")) || hwc_q_find_str(fn, "driver", &drv, &why, c->a))
			continue;
		const char *fb = hwc_q_string(fn, "bdf");
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.ports", fv_adapter_path(c, bdf)),
				 hwc_arena_printf(c->a, "no port is known: the driver of %s is unknown (%s)",
						  fb ? fb : bdf, why),
				 NULL);
		return;
	}
}

/* A card with no RDMA port (mlx5_ib or mlx4_ib not loaded, an Ethernet-only host): its netdevs
 * are its ports, and a netdev without carrier is a port without link all the same. The kernel
 * answers /sys/class/net/<dev>/carrier only while the netdev is up (EINVAL when it is down), so a
 * carrier read as 0 is a netdev that is up without link; operstate "up" needs carrier, and a
 * speed the driver reports needs a link. */
static void netdev_ports_down(struct hwc_rule_ctx *c, const json_t *ad)
{
	const json_t *nds[32];
	if (!json_is_array(hwc_q_get(ad, "ports")) || json_array_size(hwc_q_get(ad, "ports")) > 0)
		return;
	for (size_t n = hwc_q_adapter_netdevs(c->facts, ad, nds, 32), k = 0; k < n; k++) {
		const char *name = hwc_q_string(nds[k], "name");
		const char *base = fv_netdev_path(c, name);
		json_t *pseudo = json_pack("{s:s?}", "netdev", name);
		bool unused = hwc_profile_port_unused(c->prof, c->facts, ad, pseudo) != NULL;
		json_decref(pseudo);
		if (!name || unused)
			continue;
		bool up = false, carrier = false;
		const char *why = NULL, *cwhy = NULL, *op = hwc_q_string(nds[k], "operstate");
		int ku = hwc_q_find_bool(nds[k], "admin_up", &up, &why, c->a);
		bool eth = false;
		int kc = netdev_carrier(c, nds[k], ku, up, &carrier, &cwhy, &eth);
		const char *ib = hwc_pci_mlx_rdma_driver(hwc_q_string(ad, "kernel_driver"));
		if (!ib)
			ib = "mlx5_ib or mlx4_ib";
		struct hwc_finding *fd;
		if (ku && !up) {
			fd = hwc_rule_emit_sev(c, HWC_SEV_INFO, name, "netdev %s is administratively down (IFF_UP clear; the card has no RDMA port: is %s loaded?); "
					       "list it under the profile's unused_ports if it is meant to stay unused", name, ib);
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.admin_up", base), "false", "true");
			if (fd)
				fd->fix = hwc_arena_printf(c->a, "If the port should carry traffic: `ip link set %s up` (persisted in the network configuration); "
							   "if it is meant to stay unused, list it under `unused_ports` in the site profile (docs/profile.md).", name);
			continue;
		}
		double mbps = 0;
		const char *swhy;
		bool speed = hwc_q_find_num(nds[k], "speed_mbps", &mbps, &swhy, c->a) && mbps > 0;
		if ((kc && carrier) || (!kc && ((op && !strcmp(op, "up")) || speed)))
			continue; /* a link: mlx5 and mlx4 report a speed only with one (else -1) */
		if (!kc) {
			hwc_rule_unknown(c, name, hwc_arena_printf(c->a, "%s.carrier", base),
					 hwc_arena_printf(c->a, "%s (operstate %s; the card has no RDMA port whose state would say: is %s loaded?)",
							  cwhy, op ? op : "unknown", ib),
					 NULL);
			continue;
		}
		fd = hwc_rule_emit(c, name, "netdev %s is up without carrier%s: no link (cable, transceiver or switch port); the card has no RDMA port (is %s loaded?), "
				   "so its netdev is the port", name, eth ? " (ethtool: 'Link detected: no'; the sysfs carrier was not read)" : "", ib);
		carrier_evidence(c, fd, name, kc, carrier, cwhy, eth);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.operstate", base), ev_str(c, nds[k], "operstate"), "up");
		const char *fb = hwc_q_string(nds[k], "bdf");
		if (fd)
			fd->fix = hwc_arena_printf(c->a, "Check the cable, transceiver and switch port: `ethtool %s` (Link detected), `ethtool -m %s` (the module's Rx power)%s%s%s; "
						   "a port meant to stay unused goes under `unused_ports` in the site profile (docs/profile.md).",
						   name, name, fb ? ", `mstlink -d " : "", fb ? fb : "", fb ? "`" : "");
		ext_reason(c, fd, nds[k], name);
	}
}

static void eval_port_down(struct hwc_rule_ctx *c)
{
	size_t i, k;
	const json_t *ad, *p;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) ports_unknown(c, ad);
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) netdev_ports_down(c, ad);
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_foreach(hwc_q_get(ad, "ports"), k, p) {
		const char *subj = port_subject(c, p, ad);
		const char *base = hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, hwc_q_string(ad, "bdf")), subj);
		const char *st;
		if (hwc_profile_port_unused(c->prof, c->facts, ad, p))
			continue; /* the site declared it unused */
		if (!need_str(c, subj, p, base, "state", &st) || strcasestr(st, "active"))
			continue;
		port_down_one(c, p, subj, base, st);
	}
}

static void eval_port_rate(struct hwc_rule_ctx *c)
{
	size_t i, k;
	const json_t *ad, *p;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const json_t *want = hwc_profile_product_get(c->prof, ad, "port_rate_gbps");
		if (!json_is_number(want))
			continue;
		json_array_foreach(hwc_q_get(ad, "ports"), k, p) {
			if (!port_active(p))
				continue; /* NET_PORT_DOWN speaks for it */
			const char *subj = port_subject(c, p, ad);
			const char *base = hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, hwc_q_string(ad, "bdf")), subj);
			double r;
			if (!need_num(c, subj, p, base, "rate_gbps", &r) || r >= json_number_value(want))
				continue;
			struct hwc_finding *fd = hwc_rule_emit(c, subj, "port runs at %s Gb/s; the profile expects %s Gb/s", fv_fmt_num(c->a, r),
							       fv_fmt_num(c->a, json_number_value(want)));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.rate_gbps", base), fv_fmt_num(c->a, r),
					 hwc_arena_printf(c->a, ">= %s", fv_fmt_num(c->a, json_number_value(want))));
		}
	}
}

const struct hwc_rule hwc_rules_netdev[] = {
	{"NET_RING_SMALL", HWC_SEV_WARN, "netdev", "Receive ring below maximum while the card discards packets",
	 "rx_discards_phy / rx_out_of_buffer count packets the card dropped because the host did not "
	 "post buffers fast enough; a larger ring absorbs bursts. Small rings with no drops are not flagged.",
	 "`ethtool -G <netdev> rx <rx_max>` (persist it in the distribution's network configuration).",
	 eval_rings},
	{"NET_CHANNELS_FEW", HWC_SEV_WARN, "netdev", "Fewer channels than the card's local cores",
	 "Each channel is a queue pair with its own interrupt; fewer channels than min(local CPUs, "
	 "channels_min) concentrate receive work on a few cores.",
	 "`ethtool -L <netdev> combined <channels>` (at least min(local CPUs, channels_min)).",
	 eval_channels},
	{"NET_MTU_NOT_JUMBO", HWC_SEV_WARN, "netdev", "MTU below the profile's jumbo expectation",
	 "The profile expects jumbo frames on this product's ports; a 1500-byte MTU multiplies per-packet "
	 "costs and limits RoCE to a 1024-byte MTU. Without a profile MTU, a 1500-byte ConnectX Ethernet "
	 "port is flagged when another ConnectX Ethernet port of the host (a bond member, the other port "
	 "of the card) runs jumbo frames: the fabric is jumbo and this port is the odd one. A bond member "
	 "is set through its bond (the fix names the bond); a member whose MTU differs from its own bond's "
	 "is NET_BOND_MTU_MISMATCH's.",
	 "`ip link set <netdev> mtu <mtu_min>` (the profile's value, or the one its peers run; on a bond "
	 "member, the bond; and the switch ports), persisted in the network configuration.",
	 eval_mtu},
	{"NET_BOND_MTU_MISMATCH", HWC_SEV_WARN, "netdev", "Bond member MTU differs from its bond's",
	 "The bonding driver gives every member the bond's MTU when it enslaves it; a member changed "
	 "afterwards (a tuning script, `ip link set <member> mtu`, a network configuration that sets the "
	 "members but not the bond) differs from its bond. A member below the bond's MTU drops the bond's "
	 "larger frames; one above it is never used. RoCE over the bond (RoCE LAG) takes its active MTU "
	 "from the bond's MTU (1500 gives 1024, 4200 and more give 4096), so the evidence names the RoCE "
	 "port's active MTU too. Read from sysfs: the member's master link, the bond's bonding/ directory "
	 "and mtu.",
	 "Set the MTU on the bond, which passes it to every member: `ip link set <bond> mtu <bond_mtu>` "
	 "(or the fabric's jumbo MTU), and persist it on the bond in the network configuration, not on "
	 "the members alone.",
	 eval_bond_mtu},
	{"NET_TSO_OFF", HWC_SEV_WARN, "netdev", "TCP segmentation offload off",
	 "With TSO (LSO) off the CPU cuts every TCP send into MTU-sized segments itself: at 25 GbE and "
	 "above that costs cores and caps single-stream throughput. mlx5 turns it on by default; old "
	 "tuning guides and scripts turn it off.",
	 "`ethtool -K <netdev> tso on` (persist it in the distribution's network configuration).",
	 eval_tso},
	{"NET_GRO_OFF", HWC_SEV_WARN, "netdev", "Generic receive offload off",
	 "With GRO off every received MTU-sized segment climbs the stack alone: many times the per-packet "
	 "work for TCP at high rates. It is on by default; tuning scripts and some XDP guides turn it off.",
	 "`ethtool -K <netdev> gro on` (persist it in the distribution's network configuration); waive the "
	 "rule in the profile where an XDP program needs it off.",
	 eval_gro},
	{"NET_LRO_ON", HWC_SEV_WARN, "netdev", "LRO enabled",
	 "Large receive offload merges segments in a way that breaks forwarding, bridging and "
	 "some captures; hardware GRO gives the gain without the breakage.",
	 "`ethtool -K <netdev> lro off` (and `ethtool -K <netdev> rx-gro-hw on` instead, where the card has it).",
	 eval_lro},
	{"NET_ROCE_MTU_SMALL", HWC_SEV_WARN, "netdev", "RDMA active MTU below what the port supports",
	 "RDMA messages are cut into active-MTU packets: 1024 instead of 4096 quadruples the packet "
	 "rate for the same bandwidth. RoCE takes it from the netdev MTU (>= 4200 gives 4096). An "
	 "InfiniBand port's link MTU is its PortInfo NeighborMTU, set by the subnet manager, against "
	 "its MtuCap (IBA vol. 1 14.2.5.6; read with infiniband-diags `smpquery -D portinfo 0 <port>`, "
	 "the values ibv_query_port reports as active_mtu and max_mtu); opensm sets a link's "
	 "NeighborMTU to the smaller MtuCap of its two ports (osm_physp_calc_link_mtu), so the finding "
	 "says whether the far end's MtuCap, when read, explains it. Unknown when the PortInfo was not "
	 "read (not root, smpquery absent, not in the capture). Out of reach: the path MTU a "
	 "connection uses is the SM's answer to a path query (the smallest link MTU on the route, "
	 "which the SM's QoS policy may lower), and a partition's `mtu=` in opensm partitions.conf "
	 "sets its IPoIB multicast groups (opensm doc/partition-config.txt); hwcheck reads only this "
	 "port's link and does not judge the path.",
	 "RoCE: `ip link set <netdev> mtu 4200` or larger (switch too). InfiniBand: the subnet manager "
	 "sets each link's MTU to the smaller MtuCap of its two ports: bring the far end's MtuCap "
	 "(`smpquery -D portinfo`) to 4096 and let the SM resweep; for IPoIB also the partition's "
	 "`mtu=5` in opensm partitions.conf (its multicast groups' MTU).",
	 eval_roce_mtu},
	{"NET_PORT_DOWN", HWC_SEV_WARN, "netdev", "Port down",
	 "A port of the card has no link. Whether it was switched off on purpose is decided from its "
	 "netdev, not from the RDMA physical state: mlx5 and mlx4 report every RoCE/Ethernet port "
	 "without carrier as DOWN/Disabled, whether or not anyone disabled it. A port whose netdev is "
	 "up without carrier, or unknown, and every down InfiniBand port, is a warning; a port whose "
	 "netdev is administratively down (IFF_UP clear) is info. A RoCE LAG port's netdev is the bond "
	 "(mlx5_bond_N): its bond's admin state and carrier (netdevs[].bond of the members) decide, and "
	 "the finding names the bond and each member's carrier. A card with no RDMA port (mlx5_ib or "
	 "mlx4_ib not loaded) is judged by its netdevs: one up without carrier is a warning (the "
	 "kernel answers carrier only for a netdev that is up), one set down is info, one whose "
	 "carrier was not read, whose operstate is not up and that reports no speed is unknown. "
	 "Where sysfs gave no carrier, ethtool's 'Link detected' stands in for it on a netdev that is up: "
	 "the kernel answers it as netif_running() && get_link() (__ethtool_get_link, net/ethtool/common.c), "
	 "and mlx5e and mlx4_en use ethtool_op_get_link (netif_carrier_ok), so on a running netdev 'no' is no "
	 "carrier; on one whose IFF_UP is unknown 'no' may be a netdev set down, and it is not used. "
	 "Ports the profile lists under unused_ports (by netdev, PCI function or RDMA device and "
	 "port) are not reported. An InfiniBand port whose physical state is Disabled is, by the IBA "
	 "(PortPhysicalState 3), a port switched off (the subnet manager, `ibportstate ... disable` or "
	 "mstlink's port_state DN), but real captures show Disabled on ConnectX ports nobody is known to "
	 "have disabled (the unused second port of a ConnectX-6, seven ConnectX-8 ports at a server's "
	 "bring-up), where no module or a refused one is the likelier cause; the evidence does not "
	 "settle which, so its fix looks at the module first (`mstlink -m`, the kernel's 'Port module "
	 "event' lines), then at who disabled the port and how to enable it. Polling (enabled, no peer "
	 "or no light) keeps the cable, transceiver and switch port. Where `ethtool <netdev>` printed the "
	 "kernel's reason after 'Link detected: no' (the link's extended state and substate, netlink "
	 "LINKSTATE ext_state/ext_substate, Linux >= 5.10, names in include/uapi/linux/ethtool.h and "
	 "ethtool's netlink/settings.c; mlx5 maps its firmware's troubleshooting status onto them, "
	 "mlx5e_link_ext_state_opcode_map), the finding names it verbatim and its fix starts with what "
	 "that reason asks for: 'Cable issue, Unsupported cable', the card refused the module (a ConnectX-4 "
	 "with a third-party 100G-CWDM4 optic forced to 40G, robinchrist/100G-CWDM4-docs); 'No cable'; "
	 "'Autoneg' ('No partner detected': nothing answers at the far end); 'Link training failure' (a "
	 "ConnectX-4 Lx 25G port on a DAC to a 10G SFP+ switch port: 'Remote side is not ready yet', linked "
	 "at 10G after a firmware update and a speed set by hand, a blog note on Proxmox VE 9.2); "
	 "'Logical mismatch' (PCS or FEC lock: the ends disagree on FEC); 'Bad signal integrity'; "
	 "'EEPROM issue' (not always the module's fault: a ConnectX-4 Lx MCX4421A refused a DAC that linked "
	 "between two HP-OEM ConnectX-4 Lx, before and after a firmware update, an investigation note of "
	 "2026-06-15; the fix says both); 'Calibration failure'; 'Power budget exceeded'; 'Overheat'; 'Module'. A reason "
	 "hwcheck has no advice for (a number where ethtool is older than the kernel) is printed as given.",
	 "Where the kernel gave its reason (`ethtool <netdev>`: 'Link detected: no (...)'), first what that "
	 "reason asks for (an unsupported cable: one the card supports at the speed set; no cable: seat one; "
	 "autoneg, link training or a FEC mismatch: the far end's speed, auto-negotiation and FEC). Then "
	 "check the cable, transceiver and switch port: `mstlink -d <BDF> -p <port>` or `ethtool <netdev>`; "
	 "a port meant to stay unused goes under `unused_ports` in the site profile (docs/profile.md).",
	 eval_port_down},
	{"NET_PORT_RATE_LOW", HWC_SEV_WARN, "netdev", "Port rate below the profile's expectation",
	 "The port trained below the rate the site expects for this product (wrong cable, a switch port "
	 "speed setting, auto-negotiation to a lower rate).",
	 "Check the cable and switch port (the negotiated and supported speeds: `mstlink -d <BDF> -p <port>`).",
	 eval_port_rate},
	HWC_RULES_END,
};

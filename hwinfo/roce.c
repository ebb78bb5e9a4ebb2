/* SPDX-License-Identifier: MIT */
/* The RoCE section: for each RoCE port (an Ethernet port of a ConnectX RDMA device) its DCB view
 * (`dcb -j`, else `mlnx_qos -i`), ECN enables (sysfs ecn/), CNP and DCQCN firmware settings,
 * RDMA-CM default ToS (configfs), GID table and counters (hw_counters, ethtool -S). */
#include "hwinfo/roce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/ethtool_io.h"
#include "hwinfo/hwinfo.h"
#include "core/runner.h"
#include "mlx/mlx.h"
#include "core/util.h"

const char *const hwc_roce_hw_names[HWC_ROCE_NHW] = {
	"out_of_sequence",        /* packets that arrived out of order: something was dropped */
	"packet_seq_err",         /* NAKs for sequence errors received */
	"local_ack_timeout_err",  /* retransmits after an ACK timeout */
	"implied_nak_seq_err",
	"np_cnp_sent",            /* CNPs sent as notification point (ECN-marked packets seen) */
	"np_ecn_marked_roce_packets",
	"rp_cnp_handled",         /* CNPs acted on as reaction point (rate cut) */
	"rp_cnp_ignored",
	"roce_adp_retrans",
};

#define MAX_GIDS 1024

/* ------------------------------------------------------------------ DCB */

static const char *const dcb_what[] = {"app", "pfc", "ets", "dcbx", "buffer"};
#define NDCB HWC_ARRAY_SIZE(dcb_what)

/* Why a tool answer cannot be used, or NULL when it can. */
static const char *cmd_problem(struct hwc_arena *a, const struct hwc_cmd_result *r,
			       const char *src, enum hwc_status *st)
{
	if (r->m.st != HWC_ST_OK) {
		*st = r->m.st;
		return r->m.detail ? r->m.detail : hwc_arena_printf(a, "%s: did not run", src);
	}
	if (r->exit_code == 0 && r->signal == 0)
		return NULL;
	size_t n = 0;
	while (r->err && n < r->err_len && n < 160 && r->err[n] != '\n')
		n++;
	*st = HWC_ST_UNSUPPORTED;
	return hwc_arena_printf(a, "%s: exited %d%s%.*s", src, r->exit_code, n ? ": " : "", (int)n,
				r->err ? r->err : "");
}

_Static_assert(NDCB == HWC_ROCE_DCB_CMDS, "one dcb call per dcb_what");

size_t hwc_roce_dcb_cmds(struct hwc_arena *a, const char *nd, struct hwc_cmd *out)
{
	for (size_t i = 0; i < NDCB; i++) {
		const char **argv = hwc_arena_calloc(a, 7, sizeof(*argv));
		if (!argv)
			return 0;
		argv[0] = "dcb", argv[1] = "-j", argv[2] = dcb_what[i], argv[3] = "show";
		argv[4] = "dev", argv[5] = nd;
		out[i] = (struct hwc_cmd){argv, 0};
	}
	return NDCB;
}

size_t hwc_roce_port_dcb_cmds(struct hwc_env *e, struct hwc_arena *a, const char *nd,
			      struct hwc_cmd *out, size_t room)
{
	struct hwc_netdev_bond b = {0};
	hwc_bond_read_slaves(e, a, nd, &b);
	if (b.slaves_m.st == HWC_ST_ABSENT)
		return room >= NDCB ? hwc_roce_dcb_cmds(a, nd, out) : 0;
	size_t n = 0;
	for (size_t i = 0; b.slaves_m.st == HWC_ST_OK && i < b.slaves.n && n + NDCB <= room; i++)
		n += hwc_roce_dcb_cmds(a, b.slaves.items[i], out + n);
	return n;
}

/* All five `dcb -j X show dev ND` at once; true when PFC came back. */
static bool qos_dcb(struct hwc_env *e, struct hwc_facts *f, const char *nd, struct hwc_roce_qos *q)
{
	struct hwc_arena *a = f->arena;
	struct hwc_cmd cmds[NDCB];
	struct hwc_cmd_result res[NDCB];
	if (hwc_roce_dcb_cmds(a, nd, cmds) != NDCB)
		return false;
	hwc_run_many(e, a, NDCB, cmds, res);
	hwc_roce_qos_init(q, a, hwc_arena_printf(a, "dcb -j ... show dev %s", nd));
	bool pfc = false;
	for (size_t i = 0; i < NDCB; i++) {
		const char *src = hwc_argv_str(a, cmds[i].argv);
		enum hwc_status st;
		const char *why = cmd_problem(a, &res[i], src, &st);
		if (why)
			hwc_dcb_fail((enum hwc_dcb_show)i, q, st, why);
		else if (hwc_dcb_parse((enum hwc_dcb_show)i, res[i].out, res[i].out_len, src, a, q) < 0)
			hwc_facts_error(f, "roce", src, "output not understood (expected dcb's JSON)");
		else if (i == HWC_DCB_PFC)
			pfc = true;
		if (!why)
			HWC_SET(q->source, "dcb");
		else if (!hwc_ok(q->source))
			HWC_FAIL(q->source, st, 0, why);
	}
	return pfc;
}

/* MLNX_OFED: `mlnx_qos -i ND`; NULL when it answered, else why not. */
static const char *qos_mlnx(struct hwc_env *e, struct hwc_facts *f, const char *nd,
			    struct hwc_roce_qos *q)
{
	struct hwc_arena *a = f->arena;
	const char *argv[] = {"mlnx_qos", "-i", nd, NULL};
	const char *src = hwc_argv_str(a, argv);
	struct hwc_cmd_result r;
	hwc_run(e, a, argv, 0, &r);
	enum hwc_status st;
	const char *why = cmd_problem(a, &r, src, &st);
	if (why)
		return why;
	struct hwc_roce_qos t;
	hwc_roce_qos_init(&t, a, src);
	if (hwc_mlnx_qos_parse(r.out, r.out_len, src, a, &t) < 0) {
		hwc_facts_error(f, "roce", src, "output not understood (expected mlnx_qos text)");
		return hwc_arena_printf(a, "%s: output not understood", src);
	}
	HWC_SET(t.source, "mlnx_qos");
	*q = t;
	return NULL;
}

/* Every fact of q with status m (no netdev to ask, or one that does not hold them). */
static void qos_fail(struct hwc_arena *a, struct hwc_roce_qos *q, const struct hwc_fmeta *m)
{
	hwc_roce_qos_init(q, a, "no netdev");
	for (int w = HWC_DCB_APP; w <= HWC_DCB_BUFFER; w++)
		hwc_dcb_fail((enum hwc_dcb_show)w, q, m->st, m->detail);
	q->source.m = *m;
}

static void collect_qos(struct hwc_env *e, struct hwc_facts *f, struct hwc_roce_port *p)
{
	struct hwc_arena *a = f->arena;
	if (!hwc_ok(p->netdev)) {
		qos_fail(a, &p->qos, &p->netdev.m);
		return;
	}
	const char *nd = p->netdev.v;
	/* MLNX_OFED keeps the trust state in sysfs, outside the APP table dcb reads */
	struct hwc_fstr trust = {0};
	hwc_read_str(e, hwc_arena_printf(a, "sys/class/net/%s/qos/trust", nd), a, &trust);
	bool dcb = qos_dcb(e, f, nd, &p->qos);
	const char *why = dcb && !hwc_ok(trust) ? "" : qos_mlnx(e, f, nd, &p->qos);
	if (!why)
		return;
	if (!hwc_ok(p->qos.source))
		p->qos.source.m.detail = hwc_arena_printf(a, "%s; %s", p->qos.source.m.detail, why);
	if (!hwc_ok(trust))
		return;
	p->qos.trust = trust;
	if (strcmp(trust.v, "dscp") == 0 && p->qos.dscp2prio.m.st != HWC_ST_OK)
		HWC_FAIL(p->qos.dscp2prio, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "sys/class/net/%s/qos/trust is dscp but neither dcb nor "
					     "mlnx_qos gave the map", nd));
}

/* ------------------------------------------------------------------ ECN, CNP, DCQCN, ToS */

static void collect_ecn(struct hwc_env *e, struct hwc_arena *a, const char *nd, const char *which,
			struct hwc_fslots *r)
{
	hwc_fslots_init(r, HWC_ROCE_NPRIO, true, NULL);
	if (!nd) {
		HWC_FAIL(*r, HWC_ST_ABSENT, 0, "no netdev for the port");
		return;
	}
	const char *dir = hwc_arena_printf(a, "sys/class/net/%s/ecn/%s/enable", nd, which);
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, dir, a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &r->m, a, dir, -rc);
		if (rc == -ENOENT)
			r->m.detail = hwc_arena_printf(a, "%s: absent (the upstream driver has no ecn/ "
							  "tree: the firmware's ROCE_CC_PRIO_MASK decides)", dir);
		return;
	}
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	for (unsigned i = 0; i < HWC_ROCE_NPRIO; i++) {
		struct hwc_fi64 v = {0};
		if (hwc_read_i64(e, hwc_arena_printf(a, "%s/%u", dir, i), a, &v) == 0)
			hwc_fslots_set(r, i, v.v != 0);
	}
}

/* The current (else next boot) value of firmware parameter NAME_P<port>, or NULL with *m. */
static const struct hwc_mlx_cfgval *fw_value(const struct hwc_mlx_adapter *ad, struct hwc_arena *a,
					     const char *full, const struct hwc_fi64 *port,
					     struct hwc_fmeta *m)
{
	if (!ad || !hwc_ok(ad->cfg)) {
		*m = ad ? ad->cfg.m : (struct hwc_fmeta){HWC_ST_ABSENT, 0, "no adapter"};
		return NULL;
	}
	if (!hwc_ok(*port)) {
		*m = port->m;
		return NULL;
	}
	const struct hwc_mlx_cfgparam *pp = hwc_mlx_cfg_find(&ad->cfg, full);
	if (!pp) {
		hwc_fmeta_set(m, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "mstconfig lists no %s", full));
		return NULL;
	}
	const struct hwc_mlx_cfgval *v = pp->current.m.st == HWC_ST_OK ? &pp->current : &pp->next_boot;
	*m = v->m;
	return v->m.st == HWC_ST_OK ? v : NULL;
}

static void fw_param(const struct hwc_mlx_adapter *ad, struct hwc_arena *a, const char *name,
		     const struct hwc_fi64 *port, struct hwc_fi64 *num, struct hwc_fstr *text)
{
	const char *full = hwc_arena_printf(a, "%s_P%lld", name, hwc_ok(*port) ? (long long)port->v : 0LL);
	struct hwc_fmeta m;
	const struct hwc_mlx_cfgval *v = fw_value(ad, a, full, port, &m);
	if (v && num && v->text && !v->has_code)
		hwc_fmeta_set(&m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s is '%s', expected a number", full, v->text));
	else if (v && num)
		HWC_SET(*num, v->num);
	else if (num)
		num->m = m;
	if (v && text)
		HWC_SET(*text, v->text ? v->text : hwc_arena_printf(a, "%lld", (long long)v->num));
	else if (text)
		text->m = m;
	if (num && m.st == HWC_ST_INVALID)
		num->m = m;
}

static void collect_cc(struct hwc_env *e, struct hwc_arena *a, const struct hwc_mlx_adapter *ad,
		       struct hwc_roce_port *p)
{
	fw_param(ad, a, "ROCE_CC_PRIO_MASK", &p->fw_port, &p->cc_prio_mask, NULL);
	fw_param(ad, a, "ROCE_CC_ALGORITHM", &p->fw_port, NULL, &p->cc_algorithm);
	if (hwc_ok(p->netdev)) {
		const char *d = hwc_arena_printf(a, "sys/class/net/%s/ecn/roce_np/params", p->netdev.v);
		hwc_read_i64(e, hwc_arena_printf(a, "%s/cnp_dscp", d), a, &p->cnp_dscp);
		hwc_read_i64(e, hwc_arena_printf(a, "%s/cnp_802p_prio", d), a, &p->cnp_802p_prio);
		if (hwc_ok(p->cnp_dscp) || hwc_ok(p->cnp_802p_prio)) {
			HWC_SET(p->cnp_source, "sysfs");
			return;
		}
	}
	fw_param(ad, a, "CNP_DSCP", &p->fw_port, &p->cnp_dscp, NULL);
	fw_param(ad, a, "CNP_802P_PRIO", &p->fw_port, &p->cnp_802p_prio, NULL);
	if (hwc_ok(p->cnp_dscp) || hwc_ok(p->cnp_802p_prio))
		HWC_SET(p->cnp_source, "mstconfig");
	else
		p->cnp_source.m = p->cnp_dscp.m;
}

static void collect_tos(struct hwc_env *e, struct hwc_arena *a, struct hwc_roce_port *p)
{
	const char *dev = hwc_arena_printf(a, "sys/kernel/config/rdma_cm/%s", p->rdma_device);
	int rc = hwc_read_i64(e, hwc_arena_printf(a, "%s/ports/%lld/default_roce_tos", dev,
						  (long long)p->port), a, &p->default_roce_tos);
	if (rc == 0) {
		HWC_SET(p->default_roce_tos_source, "configfs");
	} else if (p->default_roce_tos.m.st == HWC_ST_ABSENT &&
		   hwc_env_is_dir(e, "sys/kernel/config/rdma_cm") && !hwc_env_is_dir(e, dev)) {
		/* configfs is there but nobody made the device's directory: the kernel's ToS 0 */
		HWC_SET(p->default_roce_tos, 0);
		HWC_SET(p->default_roce_tos_source, "kernel_default");
	} else {
		p->default_roce_tos_source.m = p->default_roce_tos.m;
	}
}

/* ------------------------------------------------------------------ GIDs and counters */

static void collect_gids(struct hwc_env *e, struct hwc_arena *a, struct hwc_roce_port *p)
{
	const char *base = hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%lld", p->rdma_device,
					    (long long)p->port);
	const char *dir = hwc_arena_printf(a, "%s/gids", base);
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, dir, a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &p->gids_m, a, dir, -rc);
		p->roce_v2_gid_index.m = p->gids_m;
		return;
	}
	hwc_fmeta_set(&p->gids_m, HWC_ST_OK, 0, NULL);
	int64_t *idx = hwc_dirlist_numbered(&dl, "", true, a);
	for (size_t i = 0; i < dl.n && i < MAX_GIDS; i++) {
		struct hwc_fstr gid = {0};
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/%s", dir, dl.names[i]), a, &gid) < 0 ||
		    hwc_roce_gid_zero(gid.v))
			continue;
		struct hwc_roce_gid *g = HWC_VEC_PUSH(a, &p->gids);
		if (!g)
			return;
		g->index = idx[i];
		g->gid = gid;
		long long ix = (long long)idx[i];
		hwc_read_str(e, hwc_arena_printf(a, "%s/gid_attrs/types/%lld", base, ix), a, &g->type);
		hwc_read_str(e, hwc_arena_printf(a, "%s/gid_attrs/ndevs/%lld", base, ix), a, &g->ndev);
		if (!hwc_ok(p->roce_v2_gid_index) && hwc_ok(g->type) &&
		    strcmp(g->type.v, "RoCE v2") == 0 && hwc_roce_gid_routable(gid.v))
			HWC_SET(p->roce_v2_gid_index, idx[i]);
	}
	if (!hwc_ok(p->roce_v2_gid_index))
		HWC_FAIL(p->roce_v2_gid_index, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no RoCE v2 GID on an IPv4 or global IPv6 address",
					  dir));
}

static void collect_hw_counters(struct hwc_env *e, struct hwc_arena *a, struct hwc_roce_port *p)
{
	struct hwc_roce_counters *c = &p->counters;
	for (size_t i = 0; i < HWC_ROCE_NHW; i++) {
		struct hwc_fi64 v = {0};
		hwc_read_i64(e, hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%lld/hw_counters/%s",
						 p->rdma_device, (long long)p->port,
						 hwc_roce_hw_names[i]), a, &v);
		c->hw[i].m = v.m;
		if (hwc_ok(v) && v.v < 0)
			HWC_FAIL(c->hw[i], HWC_ST_INVALID, 0, "negative counter");
		else if (hwc_ok(v))
			HWC_SET(c->hw[i], (uint64_t)v.v);
	}
}

/* The netdev's per-priority pause and discard counters, all with status m. */
static void pause_counters_fail(struct hwc_roce_counters *c, const struct hwc_fmeta *m)
{
	struct hwc_fslots *arrs[] = {&c->rx_pause, &c->tx_pause, &c->rx_pause_duration,
				       &c->tx_pause_duration, &c->rx_discards};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(arrs); i++) {
		hwc_fslots_init(arrs[i], HWC_ROCE_NPRIO, false, NULL);
		arrs[i]->m = *m;
	}
	c->pause_storm_warning.m = c->pause_storm_error.m = *m;
}

static void collect_pause_counters(struct hwc_env *e, struct hwc_facts *f, struct hwc_roce_port *p)
{
	struct hwc_arena *a = f->arena;
	struct hwc_roce_counters *c = &p->counters;
	const char *text = NULL;
	size_t len = 0;
	struct hwc_fmeta m = p->netdev.m;
	const char *src = hwc_arena_printf(a, "ethtool -S %s", hwc_ok(p->netdev) ? p->netdev.v : "?");
	if (hwc_ok(p->netdev) &&
	    (hwc_ethtool_get(e, a, p->netdev.v, HWC_ETHTOOL_STATS, &text, &len, &m) == 0 ||
	     m.st == HWC_ST_TRUNCATED)) {
		if (hwc_roce_parse_ethtool(text, len, src, a, c) < 0)
			hwc_facts_error(f, "roce", src, "output not understood (expected counters)");
		return;
	}
	pause_counters_fail(c, &m);
}

/* ------------------------------------------------------------------ ports */

static bool strv_has(const struct hwc_mlx_strv *v, const char *name)
{
	for (size_t k = 0; k < v->n; k++)
		if (strcmp(v->items[k], name) == 0)
			return true;
	return false;
}

/* The PCI function of an RDMA device (netdev NULL) or of a LAG member's netdev and, for the
 * firmware's _P<n>, its physical port: the RDMA port on a multi-port function (mlx4), else the
 * PF's rank on the card (mlx5). */
static void port_identity(const struct hwc_mlx_adapter *ad, struct hwc_arena *a,
			  struct hwc_roce_port *p, const char *netdev)
{
	int pf = 0;
	for (size_t i = 0; i < ad->function_map.n; i++) {
		const struct hwc_mlx_function *fn = &ad->function_map.items[i];
		if (netdev ? strv_has(&fn->netdevs, netdev) : strv_has(&fn->rdma_devices, p->rdma_device)) {
			HWC_SET(p->bdf, fn->bdf);
			if (fn->is_vf)
				HWC_FAIL(p->fw_port, HWC_ST_UNSUPPORTED, 0,
					 "a VF: the firmware's port settings belong to its PF");
			else
				HWC_SET(p->fw_port, p->port > 1 ? p->port : pf + 1);
			return;
		}
		if (!fn->is_vf)
			pf++;
	}
	const char *d = hwc_arena_printf(a, "%s: not among the card's functions",
					 netdev ? netdev : p->rdma_device);
	HWC_FAIL(p->bdf, HWC_ST_ABSENT, 0, d);
	HWC_FAIL(p->fw_port, HWC_ST_ABSENT, 0, d);
}

/* What a port reads from its netdev: QoS, ECN, CNP and DCQCN, pause counters. */
static void collect_netdev_facts(struct hwc_env *e, struct hwc_facts *f,
				 const struct hwc_mlx_adapter *ad, struct hwc_roce_port *p)
{
	struct hwc_arena *a = f->arena;
	collect_qos(e, f, p);
	const char *nd = hwc_ok(p->netdev) ? p->netdev.v : NULL;
	collect_ecn(e, a, nd, "roce_np", &p->ecn_np);
	collect_ecn(e, a, nd, "roce_rp", &p->ecn_rp);
	collect_cc(e, a, ad, p);
	collect_pause_counters(e, f, p);
}

/* The same facts of a LAG port's bond, each with why the bond does not hold them. */
static void lag_port_fail(struct hwc_arena *a, struct hwc_roce_port *p, const char *why)
{
	struct hwc_fmeta m = {HWC_ST_UNSUPPORTED, 0, why};
	qos_fail(a, &p->qos, &m);
	hwc_fslots_init(&p->ecn_np, HWC_ROCE_NPRIO, true, NULL);
	hwc_fslots_init(&p->ecn_rp, HWC_ROCE_NPRIO, true, NULL);
	p->ecn_np.m = p->ecn_rp.m = m;
	p->cnp_dscp.m = p->cnp_802p_prio.m = p->cc_prio_mask.m = m;
	p->cnp_source.m = p->cc_algorithm.m = m;
	pause_counters_fail(&p->counters, &m);
}

/* RoCE LAG (mlx5 joins the card's PFs into one RDMA device, mlx5_bond_<n>, whose port's netdev
 * is their bond; drivers/net/ethernet/mellanox/mlx5/core/lag/): the bond has no DCB, ECN or
 * pause counters of its own, the members (the PFs' netdevs) keep theirs, so each member is
 * collected as a port. False when the port's netdev is not a bond. */
static bool collect_lag(struct hwc_env *e, struct hwc_facts *f, const struct hwc_mlx_adapter *ad,
			struct hwc_roce_port *p)
{
	struct hwc_arena *a = f->arena;
	if (!hwc_ok(p->netdev))
		return false;
	struct hwc_netdev_bond b = {0};
	hwc_bond_read_slaves(e, a, p->netdev.v, &b);
	if (b.slaves_m.st == HWC_ST_ABSENT)
		return false;
	lag_port_fail(a, p, hwc_arena_printf(a, "%s is a bond (RoCE LAG): QoS, ECN, CNP and pause "
						"counters are its members' (members[])", p->netdev.v));
	p->members_m = b.slaves_m;
	for (size_t i = 0; b.slaves_m.st == HWC_ST_OK && i < b.slaves.n; i++) {
		struct hwc_roce_port *m = HWC_VEC_PUSH(a, &p->members);
		if (!m) {
			hwc_fmeta_set(&p->members_m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
			break;
		}
		m->rdma_device = p->rdma_device;
		m->port = p->port;
		HWC_SET(m->netdev, b.slaves.items[i]);
		port_identity(ad, a, m, b.slaves.items[i]);
		collect_netdev_facts(e, f, ad, m);
	}
	return true;
}

static void collect_port(struct hwc_env *e, struct hwc_facts *f, const struct hwc_mlx_adapter *ad,
			 struct hwc_roce_port *p)
{
	struct hwc_arena *a = f->arena;
	port_identity(ad, a, p, NULL);
	if (!collect_lag(e, f, ad, p))
		collect_netdev_facts(e, f, ad, p);
	collect_tos(e, a, p);
	collect_gids(e, a, p);
	collect_hw_counters(e, a, p);
}

int hwc_roce_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	(void)o; /* -d already narrowed the adapters and their ports */
	struct hwc_roce_facts *rf = HWC_FACTS_SECTION(f, roce);
	if (!rf)
		return -ENOMEM;
	if (!f->mlx || f->mlx->m.st != HWC_ST_OK) {
		hwc_fmeta_set(&rf->m, f->mlx ? f->mlx->m.st : HWC_ST_UNSET, 0,
			      "the ConnectX ports are unknown (mlx section)");
		return 0;
	}
	hwc_fmeta_set(&rf->m, HWC_ST_OK, 0, NULL);
	for (size_t i = 0; i < f->mlx->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		for (size_t k = 0; k < ad->ports.n; k++) {
			const struct hwc_mlx_port *mp = &ad->ports.items[k];
			if (!hwc_ok(mp->link_layer) || strcmp(mp->link_layer.v, "Ethernet") != 0)
				continue;
			struct hwc_roce_port *p = HWC_VEC_PUSH(f->arena, &rf->ports);
			if (!p)
				return -ENOMEM;
			p->rdma_device = mp->rdma_device;
			p->port = mp->port;
			p->netdev = mp->netdev;
			collect_port(e, f, ad, p);
		}
	}
	return 0;
}

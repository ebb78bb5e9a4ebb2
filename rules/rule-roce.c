/* SPDX-License-Identifier: MIT */
/* RoCE lossless chain rules over facts.roce.ports[]: each link (PFC, DSCP map, ToS, ECN, CNP,
 * GID, trust) against the profile's fabric choices, or, without them, against the port's own
 * chain; the host's RoCE ports against each other; pause storms and drops on the lossless class. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "rules/rules-int.h"

#define NPRIO 8

/* One port as the rules see it: the chain's derived values, computed once. */
struct rp {
	const json_t *p, *prof;
	const char *subj, *base;
	const json_t *pfc; /* qos.pfc_enabled, NULL when unknown */
	int npfc;
	const char *trust;
	const json_t *map;  /* qos.dscp2prio under DSCP trust */
	int tos, tos_dscp, tos_prio; /* default ToS, its DSCP and priority; -1 unknown */
	int lossless;       /* the lossless priority: profile, else ToS's with PFC, else sole PFC */
	const char *lossless_src;
	bool is_lossless;   /* the port is meant to be lossless */
	const char *bond;   /* a RoCE LAG member: its bond, the LAG port's netdev; else NULL */
	const json_t *member;  /* and its object in members[] */
	const char *port_base; /* the LAG port's path, for what is the RDMA port's (ToS, GIDs) */
};

/* Where a fact of the port sits: a LAG member's own key under its path, else the port's. */
static const char *fact_path(struct hwc_rule_ctx *c, const struct rp *r, const char *dotted)
{
	char first[32];
	size_t n = strcspn(dotted, ".[");
	snprintf(first, sizeof(first), "%.*s", (int)(n < sizeof(first) ? n : sizeof(first) - 1), dotted);
	bool own = !r->member || hwc_q_has(r->member, first);
	return hwc_arena_printf(c->a, "%s.%s", own ? r->base : r->port_base, dotted);
}

static int int_at(const json_t *arr, int i)
{
	const json_t *x = json_array_get(arr, (size_t)i);
	return json_is_integer(x) ? (int)json_integer_value(x) : -1;
}

static bool pfc_on(const struct rp *r, int prio)
{
	return prio >= 0 && json_is_true(json_array_get(r->pfc, (size_t)prio));
}

/* The priority DSCP d lands on, -1 when the port does not trust DSCP or the map is unknown. */
static int map_prio(const struct rp *r, int d)
{
	return d >= 0 && r->map ? int_at(r->map, d) : -1;
}

static int prof_int(const struct rp *r, const char *key)
{
	const json_t *v = hwc_q_get(r->prof, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

static const char *pfc_list(struct hwc_rule_ctx *c, const struct rp *r)
{
	const char *s = "";
	for (int i = 0; i < NPRIO; i++)
		if (pfc_on(r, i))
			s = hwc_arena_printf(c->a, "%s%s%d", s, *s ? "," : "", i);
	return *s ? s : "none";
}

static void rp_lossless(struct rp *r)
{
	const json_t *l = hwc_q_get(r->prof, "lossless");
	r->lossless = prof_int(r, "priority");
	r->lossless_src = "the profile's roce.priority";
	r->is_lossless = json_is_boolean(l) ? json_is_true(l) : (r->lossless >= 0 || r->npfc > 0);
	if (r->lossless >= 0)
		return;
	if (pfc_on(r, r->tos_prio)) {
		r->lossless = r->tos_prio;
		r->lossless_src = "the priority of the default ToS, with PFC";
	} else if (r->npfc == 1) {
		for (int i = 0; i < NPRIO; i++)
			if (pfc_on(r, i))
				r->lossless = i;
		r->lossless_src = "the only priority with PFC";
	}
}

static void rp_init(struct hwc_rule_ctx *c, const json_t *p, struct rp *r)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->prof = hwc_profile_roce(c->prof);
	const char *nd = hwc_q_string(p, "netdev");
	const char *dev = hwc_q_string(p, "rdma_device");
	r->subj = nd ? nd : hwc_arena_printf(c->a, "%s/%lld", dev ? dev : "?",
					      (long long)json_integer_value(hwc_q_get(p, "port")));
	r->base = hwc_arena_printf(c->a, "roce.ports[%s]", r->subj);
	const json_t *q = hwc_q_get(p, "qos");
	const json_t *pfc = hwc_q_get(q, "pfc_enabled");
	r->pfc = json_is_array(pfc) ? pfc : NULL;
	for (int i = 0; i < NPRIO; i++)
		r->npfc += pfc_on(r, i);
	r->trust = hwc_q_string(q, "trust");
	const json_t *m = hwc_q_get(q, "dscp2prio");
	r->map = r->trust && !strcmp(r->trust, "dscp") && json_is_array(m) ? m : NULL;
	const json_t *tos = hwc_q_get(p, "default_roce_tos");
	r->tos = json_is_integer(tos) ? (int)json_integer_value(tos) : -1;
	r->tos_dscp = r->tos >= 0 ? (r->tos >> 2) & 63 : -1;
	r->tos_prio = map_prio(r, r->tos_dscp);
	rp_lossless(r);
}

/* The port's own values in the finding's fix: netdev, RDMA device, PCI function, the firmware's
 * port number and the lossless priority. */
static struct hwc_finding *fix_port(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct rp *r)
{
	if (!fd || !fd->fix)
		return fd;
	const json_t *fw = hwc_q_get(r->p, "fw_port");
	const char *dev = hwc_q_string(r->p, "rdma_device");
	fd->fix = hwc_fix_subst(c->a, fd->fix, "<netdev>", hwc_q_string(r->p, "netdev"));
	fd->fix = hwc_fix_subst(c->a, fd->fix, "<rdma dev>", dev);
	fd->fix = hwc_fix_subst(c->a, fd->fix, "<dev>", dev);
	fd->fix = hwc_fix_subst(c->a, fd->fix, "<BDF>", hwc_q_string(r->p, "bdf"));
	if (json_is_integer(fw))
		fd->fix = hwc_fix_subst(c->a, fd->fix, "<n>", hwc_arena_printf(c->a, "%lld", (long long)json_integer_value(fw)));
	if (r->lossless >= 0)
		fd->fix = hwc_fix_subst(c->a, fd->fix, "<prio>", hwc_arena_printf(c->a, "%d", r->lossless));
	return fd;
}

/* Every finding's last touch: the port's names in its fix and, for a RoCE LAG member, the bond
 * in its message (the LAG is lossless only if each member is). */
static struct hwc_finding *finish(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct rp *r)
{
	if (fd && r->bond)
		fd->message = hwc_arena_printf(c->a, "%s (member of %s, the RoCE LAG of %s)", fd->message, r->bond,
					       hwc_q_string(r->p, "rdma_device"));
	return fix_port(c, fd, r);
}

/* The unknown finding for a fact of the port the rule needs; returns false. */
static bool port_unknown(struct hwc_rule_ctx *c, const struct rp *r, const char *dotted,
			 const char *needed_for)
{
	const json_t *v;
	const char *why = NULL;
	hwc_q_find(r->p, dotted, &v, &why, c->a);
	hwc_rule_unknown(c, r->subj, fact_path(c, r, dotted), why ? why : "not_collected", needed_for);
	return false;
}

static bool need_pfc(struct hwc_rule_ctx *c, const struct rp *r, const char *needed_for)
{
	return r->pfc ? true : port_unknown(c, r, "qos.pfc_enabled", needed_for);
}

/* A finding on the port, its fix filled with the port's names. */
static struct hwc_finding *port_emit(struct hwc_rule_ctx *c, const struct rp *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct hwc_finding *port_emit(struct hwc_rule_ctx *c, const struct rp *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = hwc_arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	return finish(c, hwc_rule_emit(c, r->subj, "%s", msg ? msg : fmt), r);
}

static const char *ev(struct hwc_rule_ctx *c, const struct rp *r, const char *fmt, int i)
{
	return hwc_arena_printf(c->a, "%s.%s[%d]", r->base, fmt, i);
}

/* A RoCE LAG member seen as a port: the LAG port's object (rdma device, ToS, GIDs) with the
 * member's own facts (netdev, QoS, ECN, CNP, counters) over it. A new object; the values stay
 * the facts'. */
static json_t *member_view(const json_t *port, const json_t *m)
{
	json_t *v = json_copy((json_t *)port), *u = json_object();
	if (!v || !u) {
		json_decref(v);
		json_decref(u);
		return NULL;
	}
	json_object_del(v, "members");
	json_object_update(u, (json_t *)hwc_q_get(port, HWC_JSON_UNAVAILABLE));
	json_object_update(u, (json_t *)hwc_q_get(m, HWC_JSON_UNAVAILABLE));
	json_object_update(v, (json_t *)m);
	json_object_set_new(v, HWC_JSON_UNAVAILABLE, u);
	return v;
}

typedef void (*view_fn)(struct hwc_rule_ctx *c, const struct rp *r, void *ctx);

/* Each RoCE port as the chain rules judge it, with its chain's values, to fn: a port, or for a
 * RoCE LAG port (members[]) each member, whose netdev holds the QoS and ECN of its link. */
static void each_view(struct hwc_rule_ctx *c, view_fn fn, void *ctx)
{
	size_t i, k;
	const json_t *p, *m;
	json_array_foreach(hwc_q_roce_ports(c->facts), i, p) {
		struct rp r;
		const json_t *mem = hwc_q_get(p, "members");
		if (!json_array_size(mem)) {
			rp_init(c, p, &r);
			fn(c, &r, ctx);
			continue;
		}
		json_array_foreach(mem, k, m) {
			json_t *v = member_view(p, m);
			if (!v)
				continue;
			rp_init(c, v, &r);
			r.bond = hwc_q_string(p, "netdev");
			r.member = m;
			r.port_base = hwc_arena_printf(c->a, "roce.ports[%s]", r.bond ? r.bond : "?");
			r.base = hwc_arena_printf(c->a, "%s.members[%s]", r.port_base, r.subj);
			fn(c, &r, ctx);
			json_decref(v);
		}
	}
}

struct port_fn {
	void (*fn)(struct hwc_rule_ctx *c, const struct rp *r);
};

static void call_port_fn(struct hwc_rule_ctx *c, const struct rp *r, void *ctx)
{
	((const struct port_fn *)ctx)->fn(c, r);
}

static void each_port(struct hwc_rule_ctx *c, void (*fn)(struct hwc_rule_ctx *c, const struct rp *r))
{
	struct port_fn pf = {fn};
	each_view(c, call_port_fn, &pf);
}

/* ------------------------------------------------------------------ PFC */

static void pfc_lossless_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	int want = prof_int(r, "priority");
	if (!r->is_lossless || !r->prof || !need_pfc(c, r, "whether the lossless priority has PFC"))
		return;
	if (want >= 0 && !pfc_on(r, want)) {
		struct hwc_finding *fd = port_emit(c, r, "PFC is off on priority %d, the fabric's lossless priority (PFC on: %s)",
						       want, pfc_list(c, r));
		hwc_evidence_add(fd, c->a, ev(c, r, "qos.pfc_enabled", want), "false", "true");
	} else if (want < 0 && r->npfc == 0) {
		struct hwc_finding *fd = port_emit(c, r, "no priority has PFC; the profile says the fabric is lossless");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.qos.pfc_enabled", r->base), "none", "PFC on the RoCE priority");
	}
}

static void eval_pfc_lossless(struct hwc_rule_ctx *c)
{
	each_port(c, pfc_lossless_port);
}

static void pfc_unused_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	int want = prof_int(r, "priority");
	if (!r->pfc || (want < 0 && !r->map))
		return; /* without the fabric's priority only a DSCP map can show PFC unused */
	for (int k = 0; k < NPRIO; k++) {
		if (!pfc_on(r, k) || k == want)
			continue;
		int mapped = 0;
		for (int d = 0; r->map && d < 64; d++)
			mapped += map_prio(r, d) == k;
		if (want < 0 && mapped)
			continue;
		struct hwc_finding *fd = want >= 0
			? hwc_rule_emit(c, r->subj, "PFC is on for priority %d; the fabric's lossless priority is %d", k, want)
			: hwc_rule_emit(c, r->subj, "PFC is on for priority %d, which no DSCP maps to", k);
		finish(c, fd, r);
		hwc_evidence_add(fd, c->a, ev(c, r, "qos.pfc_enabled", k), "true", "false");
	}
}

static void eval_pfc_unused(struct hwc_rule_ctx *c)
{
	each_port(c, pfc_unused_port);
}

/* The fabric's RoCE DSCP (profile) must land on the lossless priority, with PFC. */
static void dscp_no_pfc_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	int d = prof_int(r, "dscp");
	if (d < 0 || !r->is_lossless || !r->trust || strcmp(r->trust, "dscp"))
		return; /* PCP trust: ROCE_TRUST_MISMATCH speaks when the profile says DSCP */
	if (!r->map) {
		port_unknown(c, r, "qos.dscp2prio", "the priority of the fabric's RoCE DSCP");
		return;
	}
	if (!need_pfc(c, r, "whether the RoCE DSCP's priority has PFC"))
		return;
	int prio = map_prio(r, d), want = prof_int(r, "priority");
	if (prio < 0 || (want >= 0 && prio == want) || (want < 0 && pfc_on(r, prio)))
		return; /* PFC off on the fabric's own priority is ROCE_PFC_OFF_LOSSLESS */
	struct hwc_finding *fd = want >= 0
		? hwc_rule_emit(c, r->subj, "the fabric's RoCE DSCP %d maps to priority %d, not the lossless priority %d", d, prio, want)
		: hwc_rule_emit(c, r->subj, "the fabric's RoCE DSCP %d maps to priority %d, which has no PFC (PFC on: %s)", d, prio,
				pfc_list(c, r));
	finish(c, fd, r);
	hwc_evidence_add(fd, c->a, ev(c, r, "qos.dscp2prio", d), hwc_arena_printf(c->a, "%d", prio),
			 want >= 0 ? hwc_arena_printf(c->a, "%d", want) : "a priority with PFC");
}

static void eval_dscp_no_pfc(struct hwc_rule_ctx *c)
{
	each_port(c, dscp_no_pfc_port);
}

static void tos_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	int want_d = prof_int(r, "dscp");
	if (!r->is_lossless)
		return;
	if (r->tos < 0) {
		port_unknown(c, r, "default_roce_tos", "the class RDMA-CM traffic is sent in");
		return;
	}
	const char *tos_path = fact_path(c, r, "default_roce_tos");
	if (want_d >= 0 && r->tos_dscp != want_d) {
		struct hwc_finding *fd = port_emit(c, r, "RDMA-CM default ToS %d is DSCP %d; the fabric's RoCE DSCP is %d", r->tos,
						       r->tos_dscp, want_d);
		hwc_evidence_add(fd, c->a, tos_path, hwc_arena_printf(c->a, "%d", r->tos), hwc_arena_printf(c->a, "%d..%d (DSCP %d)", want_d << 2, (want_d << 2) + 3, want_d));
		return;
	}
	if (want_d >= 0)
		return; /* the fabric's DSCP: whether it has PFC is ROCE_DSCP_NO_PFC's */
	if (!r->trust || strcmp(r->trust, "dscp") || !need_pfc(c, r, "whether the ToS's priority has PFC"))
		return;
	if (r->tos_prio < 0) {
		port_unknown(c, r, "qos.dscp2prio", "the priority of the default ToS");
		return;
	}
	if (pfc_on(r, r->tos_prio))
		return;
	struct hwc_finding *fd = port_emit(c, r, "RDMA-CM default ToS %d (DSCP %d) lands on priority %d, which has no PFC (PFC on: %s)",
					       r->tos, r->tos_dscp, r->tos_prio, pfc_list(c, r));
	hwc_evidence_add(fd, c->a, tos_path, hwc_arena_printf(c->a, "%d", r->tos), "a DSCP of the lossless priority");
	hwc_evidence_add(fd, c->a, ev(c, r, "qos.pfc_enabled", r->tos_prio), "false", "true");
}

static void eval_tos(struct hwc_rule_ctx *c)
{
	each_port(c, tos_port);
}

/* ------------------------------------------------------------------ ECN, CNP, trust, GID */

static void ecn_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const json_t *p = r->p;
	if (r->lossless < 0)
		return;
	const json_t *ecn = hwc_q_get(p, "ecn");
	const char *side[] = {"np_enabled", "rp_enabled"};
	const char *what[] = {"notification point (CNP sending)", "reaction point (rate cut)"};
	bool seen = false;
	for (int s = 0; s < 2; s++) {
		const json_t *a = hwc_q_get(ecn, side[s]);
		if (!json_is_array(a))
			continue;
		seen = true;
		if (json_is_true(json_array_get(a, (size_t)r->lossless)))
			continue;
		struct hwc_finding *fd = port_emit(c, r, "ECN %s is off on priority %d, the lossless one (%s)", what[s],
						       r->lossless, r->lossless_src);
		hwc_evidence_add(fd, c->a, ev(c, r, hwc_arena_printf(c->a, "ecn.%s", side[s]), r->lossless), "false", "true");
	}
	const json_t *mask = hwc_q_at(p, "congestion.cc_prio_mask");
	if (seen)
		return;
	if (!json_is_integer(mask)) {
		port_unknown(c, r, "congestion.cc_prio_mask", "whether DCQCN runs on the lossless priority");
		return;
	}
	if (json_integer_value(mask) & (1 << r->lossless))
		return;
	struct hwc_finding *fd = port_emit(c, r, "DCQCN is off on priority %d, the lossless one (ROCE_CC_PRIO_MASK 0x%llx)", r->lossless,
					       (unsigned long long)json_integer_value(mask));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.congestion.cc_prio_mask", r->base),
			 hwc_arena_printf(c->a, "%lld", (long long)json_integer_value(mask)),
			 hwc_arena_printf(c->a, "bit %d set", r->lossless));
}

static void eval_ecn(struct hwc_rule_ctx *c)
{
	each_port(c, ecn_port);
}

static void cnp_finding(struct hwc_rule_ctx *c, const struct rp *r, const char *key, int seen, const char *expected,
			const char *why)
{
	struct hwc_finding *fd = port_emit(c, r, "CNPs are sent with %s %d: %s", strcmp(key, "cnp_dscp") ? "802.1p priority" : "DSCP",
					       seen, why);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.congestion.%s", r->base, key), hwc_arena_printf(c->a, "%d", seen), expected);
}

static void cnp_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const json_t *p = r->p;
	const json_t *cc = hwc_q_get(p, "congestion");
	const json_t *jd = hwc_q_get(cc, "cnp_dscp"), *jp = hwc_q_get(cc, "cnp_802p_prio");
	if (!r->is_lossless || (r->lossless < 0 && prof_int(r, "cnp_dscp") < 0 && prof_int(r, "cnp_priority") < 0))
		return;
	if (!json_is_integer(jd) && !json_is_integer(jp)) {
		port_unknown(c, r, "congestion.cnp_dscp", "the class CNPs are sent in");
		return;
	}
	int d = json_is_integer(jd) ? (int)json_integer_value(jd) : -1;
	int pr = json_is_integer(jp) ? (int)json_integer_value(jp) : -1;
	int wd = prof_int(r, "cnp_dscp"), wp = prof_int(r, "cnp_priority");
	const char *l = hwc_arena_printf(c->a, "not %d (the lossless priority)", r->lossless);
	if (d >= 0 && wd >= 0 && d != wd)
		cnp_finding(c, r, "cnp_dscp", d, hwc_arena_printf(c->a, "%d", wd), "the fabric's CNP DSCP differs");
	else if (d >= 0 && r->lossless >= 0 && map_prio(r, d) == r->lossless)
		cnp_finding(c, r, "cnp_dscp", d, "a DSCP outside the lossless class",
			    hwc_arena_printf(c->a, "it maps to priority %d, the lossless class: CNPs wait behind paused data", r->lossless));
	if (pr >= 0 && wp >= 0 && pr != wp)
		cnp_finding(c, r, "cnp_802p_prio", pr, hwc_arena_printf(c->a, "%d", wp), "the fabric's CNP priority differs");
	else if (pr >= 0 && pr == r->lossless)
		cnp_finding(c, r, "cnp_802p_prio", pr, l, "the lossless class: CNPs wait behind paused data");
}

static void eval_cnp(struct hwc_rule_ctx *c)
{
	each_port(c, cnp_port);
}

static void trust_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const char *want = hwc_q_string(r->prof, "trust");
	if (!want)
		return;
	if (!r->trust) {
		port_unknown(c, r, "qos.trust", "what the port classifies RoCE traffic by");
		return;
	}
	if (!strcmp(r->trust, want))
		return;
	struct hwc_finding *fd = port_emit(c, r, "the port trusts %s; the fabric marks RoCE traffic by %s", r->trust, want);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.qos.trust", r->base), r->trust, want);
}

static void eval_trust(struct hwc_rule_ctx *c)
{
	each_port(c, trust_port);
}

static void gid_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const json_t *p = r->p;
	if (json_is_integer(hwc_q_get(p, "roce_v2_gid_index")))
		return;
	if (!json_is_array(hwc_q_get(p, "gids"))) {
		port_unknown(c, r, "gids", "whether a RoCE v2 GID exists");
		return;
	}
	size_t n = json_array_size(hwc_q_get(p, "gids"));
	struct hwc_finding *fd = port_emit(c, r, "no RoCE v2 GID on an IPv4 or global IPv6 address (%zu GID%s in the table)", n,
					       n == 1 ? "" : "s");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.roce_v2_gid_index", r->base), "none", "a RoCE v2 GID on the port's address");
}

static void eval_gid(struct hwc_rule_ctx *c)
{
	/* the GID table is the RDMA port's: a RoCE LAG port is judged once, not per member */
	size_t i;
	const json_t *p;
	json_array_foreach(hwc_q_roce_ports(c->facts), i, p) {
		struct rp r;
		rp_init(c, p, &r);
		gid_port(c, &r);
	}
}

/* ------------------------------------------------------------------ counters */

static void storm_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const json_t *p = r->p;
	const json_t *ct = hwc_q_get(p, "counters");
	const json_t *e = hwc_q_get(ct, "tx_pause_storm_error_events");
	const json_t *w = hwc_q_get(ct, "tx_pause_storm_warning_events");
	if (!json_is_integer(e) && !json_is_integer(w)) {
		if (r->npfc)
			port_unknown(c, r, "counters.tx_pause_storm_error_events", "whether the port saw a pause storm");
		return;
	}
	long long ne = json_is_integer(e) ? json_integer_value(e) : 0, nw = json_is_integer(w) ? json_integer_value(w) : 0;
	if (!ne && !nw)
		return;
	struct hwc_finding *fd = hwc_rule_emit_sev(c, ne ? HWC_SEV_ERROR : HWC_SEV_WARN, r->subj,
						   "pause storm: %lld warning and %lld error events (the port kept pausing its peer)", nw, ne);
	finish(c, fd, r);
	if (ne)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.tx_pause_storm_error_events", r->base),
				 hwc_arena_printf(c->a, "%lld", ne), "0");
	if (nw)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.counters.tx_pause_storm_warning_events", r->base),
				 hwc_arena_printf(c->a, "%lld", nw), "0");
}

static void eval_storm(struct hwc_rule_ctx *c)
{
	each_port(c, storm_port);
}

static void drops_port(struct hwc_rule_ctx *c, const struct rp *r)
{
	const json_t *p = r->p;
	if (!r->pfc || !r->npfc)
		return;
	const json_t *d = hwc_q_at(p, "counters.rx_prio_discards");
	if (!json_is_array(d)) {
		port_unknown(c, r, "counters.rx_prio_discards", "whether the lossless priority dropped packets");
		return;
	}
	for (int k = 0; k < NPRIO; k++) {
		const json_t *x = json_array_get(d, (size_t)k);
		if (!pfc_on(r, k) || !json_is_integer(x) || json_integer_value(x) <= 0)
			continue;
		struct hwc_finding *fd = port_emit(c, r, "%lld packets dropped on priority %d, which has PFC (lossless)",
						       (long long)json_integer_value(x), k);
		hwc_evidence_add(fd, c->a, ev(c, r, "counters.rx_prio_discards", k), hwc_arena_printf(c->a, "%lld", (long long)json_integer_value(x)),
				 "0");
	}
}

static void eval_drops(struct hwc_rule_ctx *c)
{
	each_port(c, drops_port);
}

/* ------------------------------------------------------------------ consistency */

static const char *const same_keys[] = {
	"qos.trust", "qos.dscp2prio", "qos.pfc_enabled", "qos.prio_tc", "qos.dcbx_mode",
	"ecn.np_enabled", "ecn.rp_enabled", "congestion.cnp_dscp", "congestion.cnp_802p_prio",
	"congestion.cc_prio_mask", "default_roce_tos",
};

const char *const *hwc_rules_roce_keys(size_t *n)
{
	*n = HWC_ARRAY_SIZE(same_keys);
	return same_keys;
}

/* A value for evidence: a bool array as its true indices ("3", "none"), else compact JSON. */
const char *hwc_roce_show_value(struct hwc_arena *a, const json_t *v)
{
	if (json_is_array(v) && json_is_boolean(json_array_get(v, 0))) {
		const char *s = "";
		size_t i;
		const json_t *x;
		json_array_foreach(v, i, x) if (json_is_true(x)) s = hwc_arena_printf(a, "%s%s%zu", s, *s ? "," : "", i);
		return *s ? hwc_arena_printf(a, "on %s", s) : "none";
	}
	return fv_json_text(a, v);
}

#define MAX_SAME 64
/* One key's value on every port (LAG members each), with where it sits and whose it is. */
struct key_vals {
	const char *key;
	const json_t *vals[MAX_SAME];
	const char *base[MAX_SAME], *subj[MAX_SAME], *lag[MAX_SAME], *netdev[MAX_SAME];
	size_t n;
};

static void key_val(struct hwc_rule_ctx *c, const struct rp *r, void *ctx)
{
	struct key_vals *kv = ctx;
	const char *why;
	size_t n = kv->n;
	if (n >= MAX_SAME)
		return;
	kv->vals[n] = NULL;
	hwc_q_find(r->p, kv->key, &kv->vals[n], &why, c->a); /* the facts' own value */
	kv->base[n] = r->base;
	kv->subj[n] = hwc_arena_strdup(c->a, r->subj); /* r's view is freed after the call */
	kv->netdev[n] = hwc_arena_strdup(c->a, hwc_q_string(r->p, "netdev"));
	kv->lag[n] = r->bond ? hwc_arena_printf(c->a, " (member of %s, the RoCE LAG of %s)", r->bond,
						 hwc_q_string(r->p, "rdma_device")) : NULL;
	kv->n++;
}

/* The finding is the port's that differs (its subject, so its card's RoCE line shows it), the
 * value most ports hold beside its own. */
static void differ_emit(struct hwc_rule_ctx *c, const struct key_vals *kv, size_t i, size_t best,
			size_t best_n, size_t known)
{
	const char *want = hwc_roce_show_value(c->a, kv->vals[best]), *got = hwc_roce_show_value(c->a, kv->vals[i]);
	struct hwc_finding *fd = hwc_rule_emit(c, kv->subj[i], "%s differs from the host's other RoCE ports on %s: %s, where %zu of %zu say %s%s",
					       kv->subj[i], kv->key, got, best_n, known, want, kv->lag[i] ? kv->lag[i] : "");
	if (!fd)
		return;
	if (fd->fix)
		fd->fix = hwc_fix_subst(c->a, fd->fix, "<netdev>", kv->netdev[i] ? kv->netdev[i] : kv->subj[i]);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.%s", kv->base[i], kv->key), got, want);
}

static void same_key(struct hwc_rule_ctx *c, const char *key)
{
	struct key_vals kv = {.key = key};
	each_view(c, key_val, &kv);
	size_t n = kv.n, best = 0, best_n = 0, known = 0;
	for (size_t i = 0; i < n; i++) {
		size_t same = 0;
		for (size_t k = 0; k < n; k++)
			same += kv.vals[i] && kv.vals[k] && json_equal((json_t *)kv.vals[i], (json_t *)kv.vals[k]);
		if (same > best_n)
			best = i, best_n = same;
		known += kv.vals[i] != NULL;
	}
	if (known < 2 || best_n == known)
		return;
	for (size_t i = 0; i < n; i++)
		if (kv.vals[i] && !json_equal((json_t *)kv.vals[i], (json_t *)kv.vals[best]))
			differ_emit(c, &kv, i, best, best_n, known);
}

static void eval_ports_differ(struct hwc_rule_ctx *c)
{
	for (size_t k = 0; k < HWC_ARRAY_SIZE(same_keys); k++)
		same_key(c, same_keys[k]);
}

/* ------------------------------------------------------------------ the table */

#define FIX_QOS "MLNX_OFED: `mlnx_qos -i <netdev> --trust dscp --pfc 0,0,0,1,0,0,0,0`; upstream: " \
	"`dcb pfc set dev <netdev> prio-pfc all:off 3:on` and `dcb app add dev <netdev> dscp-prio 26:3` (the fabric's priority and DSCP)."

const struct hwc_rule hwc_rules_roce[] = {
	{"ROCE_PFC_OFF_LOSSLESS", HWC_SEV_ERROR, "roce", "PFC off on the fabric's lossless priority",
	 "The profile names the fabric's lossless priority (roce.priority) or says it is lossless; a port "
	 "without PFC there drops RoCE packets under incast instead of pausing, and the senders recover "
	 "by slow retransmits.",
	 FIX_QOS, eval_pfc_lossless},
	{"ROCE_PFC_UNUSED_PRIO", HWC_SEV_WARN, "roce", "PFC on a priority no RoCE traffic uses",
	 "PFC on a priority other than the lossless one (the profile's, or one no DSCP maps to) spends "
	 "headroom buffer and lets ordinary traffic pause the link.",
	 FIX_QOS, eval_pfc_unused},
	{"ROCE_DSCP_NO_PFC", HWC_SEV_ERROR, "roce", "The fabric's RoCE DSCP maps to a priority without PFC",
	 "With DSCP trust the port puts a received packet on the priority its DSCP maps to; the "
	 "profile's RoCE DSCP (roce.dscp) must map to the lossless priority, or RoCE traffic is lossy.",
	 FIX_QOS, eval_dscp_no_pfc},
	{"ROCE_TOS_OUTSIDE_LOSSLESS", HWC_SEV_WARN, "roce", "RDMA-CM default ToS outside the lossless class",
	 "RDMA-CM applications (NFS/SMB over RDMA, MPI with rdma_cm) send with the port's default ToS "
	 "unless they set one: its DSCP (ToS >> 2) must be the fabric's RoCE DSCP and map to a "
	 "priority with PFC. The kernel's default is 0 (best effort).",
	 "`mkdir -p /sys/kernel/config/rdma_cm/<rdma dev>` then `echo 106 > "
	 "/sys/kernel/config/rdma_cm/<rdma dev>/ports/1/default_roce_tos` (DSCP 26, ECN capable), or "
	 "`cma_roce_tos -d <rdma dev> -t 106` (MLNX_OFED); persist it at boot.",
	 eval_tos},
	{"ROCE_ECN_OFF", HWC_SEV_WARN, "roce", "ECN/DCQCN off on the lossless priority",
	 "DCQCN slows senders on ECN marks before the switch must pause; without it on the lossless "
	 "priority PFC does all the work and spreads congestion (pause storms, head-of-line blocking).",
	 "MLNX_OFED: `echo 1 > /sys/class/net/<netdev>/ecn/roce_np/enable/<prio>` (and roce_rp); "
	 "firmware: `mstconfig -d <BDF> set ROCE_CC_PRIO_MASK_P<n>=255`.",
	 eval_ecn},
	{"ROCE_CNP_IN_LOSSLESS_CLASS", HWC_SEV_WARN, "roce", "CNPs sent in the lossless class (or not where the fabric wants)",
	 "Congestion notifications must overtake the data they throttle: sent on the lossless priority "
	 "they queue behind paused traffic and DCQCN reacts late. Fabrics give them their own class "
	 "(commonly DSCP 48, priority 6, strict).",
	 "MLNX_OFED: `echo 48 > /sys/class/net/<netdev>/ecn/roce_np/params/cnp_dscp` and cnp_802p_prio "
	 "6; firmware: `mstconfig -d <BDF> set CNP_DSCP_P<n>=48 CNP_802P_PRIO_P<n>=6`.",
	 eval_cnp},
	{"ROCE_TRUST_MISMATCH", HWC_SEV_WARN, "roce", "Port trust differs from the fabric's marking",
	 "The profile says how the fabric marks RoCE traffic (roce.trust: dscp for routed RoCE v2, pcp "
	 "with VLAN priority tags); a port trusting the other field classifies every packet as priority 0.",
	 "`mlnx_qos -i <netdev> --trust dscp` (MLNX_OFED), or add the DSCP map with `dcb app add dev "
	 "<netdev> dscp-prio ...` (upstream mlx5 trusts DSCP while the map exists).",
	 eval_trust},
	{"ROCE_NO_V2_GID", HWC_SEV_WARN, "roce", "No RoCE v2 GID on the port's address",
	 "Routed RoCE (v2, UDP) needs a GID of type RoCE v2 on the interface's IPv4/IPv6 address; "
	 "with only v1 or link-local GIDs, applications fall back to RoCE v1 (not routable, no ECN).",
	 "Give the netdev its IP address (the kernel adds v1 and v2 GIDs for it); check "
	 "`cat /sys/class/infiniband/<dev>/ports/1/gid_attrs/types/*`.",
	 eval_gid},
	{"ROCE_PORTS_DIFFER", HWC_SEV_WARN, "roce", "The host's RoCE ports are configured differently",
	 "Without a profile the chain is judged by agreement: every RoCE port of a host (and every "
	 "host of a fabric, see `hwcheck merge`) should trust, map, pause and mark the same way; a port "
	 "that differs is the one most likely misconfigured.",
	 "Give <netdev> the QoS settings of the host's other RoCE ports (mlnx_qos / dcb, ecn/, default "
	 "ToS), or state the fabric's choices in the profile's \"roce\" object.",
	 eval_ports_differ},
	{"ROCE_PAUSE_STORM", HWC_SEV_ERROR, "roce", "Pause storm detected",
	 "The port's pause-storm watchdog fired (tx_pause_storm_*_events): it kept pausing its peer "
	 "because its receive side stalled; error events mean it stopped sending pauses and dropped.",
	 "Find the stalled receiver (host hung, PCIe back-pressure, a slow consumer); check "
	 "`ethtool -S <netdev> | grep -E 'pause|discard'` and the switch's PFC watchdog.",
	 eval_storm},
	{"ROCE_LOSSLESS_DROPS", HWC_SEV_WARN, "roce", "Packets dropped on a lossless priority",
	 "A priority with PFC should never drop: rx_prioN_discards there means the port buffer overran "
	 "before the pause took effect (headroom too small for the cable length, or PFC off at the peer).",
	 "Check the switch's PFC on the same priority and the port's buffer/headroom (buffer sizes: "
	 "`dcb buffer show dev <netdev>`, or `mlnx_qos -i <netdev>` with MLNX_OFED; the cable length); "
	 "then clear counters and watch.",
	 eval_drops},
	HWC_RULES_END,
};

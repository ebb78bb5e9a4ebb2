/* SPDX-License-Identifier: MIT */
/* Two-host --all-ports: the client names one server address per pair of ports
 * (--client ADDR1,ADDR2,...) and routing picks the local port that reaches each. Every pair runs
 * alone first, as a plain two-host run, then all pairs at once, one thread per pair (for RDMA
 * once per op); the shared-link model explains what together lost, as in the loopback
 * --all-ports (allports.c). The server needs no list: it serves each session where it lands and
 * names that port in its answer, so that both ends of every pair are known and checked. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe_int.h"

#define MAX_PAIRS 16


/* "A,B,C" -> peers; NULL, or why the list cannot be paired. */
static const char *split_peers(struct hwc_arena *a, const char *list, struct pr_pair *p, size_t *n)
{
	*n = 0;
	char *s = hwc_arena_strdup(a, list ? list : "");
	for (char *save = NULL, *tok = s ? strtok_r(s, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_PAIRS)
			return hwc_arena_printf(a, "--all-ports --client: at most %d server addresses",
						MAX_PAIRS);
		for (size_t i = 0; i < *n; i++)
			if (strcmp(p[i].peer, tok) == 0)
				return hwc_arena_printf(a, "--all-ports --client: %s is named twice; "
							"give one address per port of the server",
							tok);
		p[(*n)++] = (struct pr_pair){.peer = tok};
	}
	if (*n < 2)
		return hwc_arena_printf(a, "--all-ports --client needs one server address per port, "
					"two or more comma-separated (ADDR1,ADDR2), got '%s'",
					list ? list : "");
	return NULL;
}

/* A failed result for the run as a whole (nothing paired, or nothing ran together). */
static void pairs_fail(struct hwc_facts *f, struct hwc_probe_facts *pf,
		       const struct hwc_probe_opts *o, const char *why)
{
	struct hwc_arena *a = f->arena;
	struct hwc_probe_result *r = HWC_VEC_PUSH(a, &pf->results);
	if (r) {
		struct pr_target t0 = {.dev = "?", .numa_node = -1};
		pr_result_init(a, r, &t0, o, o->ops & -o->ops, "client");
		const char *np = "the ports did not pair";
		if (o->tcp)
			HWC_SET(r->op, "tcp");
		HWC_FAIL(r->rdma_device, HWC_ST_ABSENT, 0, np);
		HWC_FAIL(r->port, HWC_ST_ABSENT, 0, np);
		HWC_FAIL(r->bdf, HWC_ST_ABSENT, 0, np);
		HWC_FAIL(r->netdev, HWC_ST_ABSENT, 0, np);
		pr_result_fail(a, r, "failed", "%s", why);
		hwc_probe_explain(a, r);
	}
	hwc_facts_error(f, "probe", "all-ports", "%s", why);
}

/* The two ends of pair p from its alone results [first, pf->results.n). */
static void pair_ends(struct hwc_arena *a, const struct hwc_probe_facts *pf, size_t first,
		      bool tcp, struct pr_pair *p)
{
	for (size_t i = first; i < pf->results.n; i++) {
		const struct hwc_probe_result *r = &pf->results.items[i];
		if (strcmp(r->status.v, "ok") != 0) {
			if (!p->failed)
				p->failed = hwc_ok(r->reason) ? r->reason.v : "failed";
			continue;
		}
		if (!p->local && tcp && hwc_ok(r->netdev))
			p->local = r->netdev.v;
		else if (!p->local && !tcp && hwc_ok(r->rdma_device))
			p->local = hwc_arena_printf(a, "%s/%lld", r->rdma_device.v,
						    (long long)r->port.v);
		if (!p->remote && hwc_ok(r->peer_port))
			p->remote = r->peer_port.v;
	}
	if (!p->failed && !p->local)
		p->failed = "no result named this host's port";
}

const char *pr_pairs_check(struct hwc_arena *a, const struct pr_pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].failed)
			return hwc_arena_printf(a, "the pair to %s failed alone, so the ports did not "
						"run together: %s", p[i].peer, p[i].failed);
		for (size_t k = 0; k < i; k++) {
			if (strcmp(p[i].local, p[k].local) == 0)
				return hwc_arena_printf(
					a, "%s and %s are both reached through %s here: each address "
					"must be reached through a port of its own (routing picks it; "
					"use one subnet per port)", p[k].peer, p[i].peer, p[i].local);
			if (p[i].remote && p[k].remote && strcmp(p[i].remote, p[k].remote) == 0)
				return hwc_arena_printf(
					a, "%s and %s are both the server's port %s: give one "
					"address per port of the server", p[k].peer, p[i].peer,
					p[i].remote);
		}
	}
	return NULL;
}

struct pjob {
	struct hwc_env *e;
	struct hwc_probe_opts o;
	struct hwc_facts tf; /* the caller's facts with the thread's own arena and errors */
	struct hwc_probe_facts pf;
	pthread_t th;
	bool started;
};

static void *pjob_main(void *arg)
{
	struct pjob *j = arg;
	(j->o.tcp ? pr_tcp_client : pr_cm_client)(j->e, &j->o, &j->tf, &j->pf);
	return NULL;
}

/* Moves a finished job's results of one direction (NULL: all) into the caller's facts. */
static void pjob_results(struct hwc_facts *f, struct hwc_probe_facts *pf, struct pjob *j,
			 const char *direction)
{
	for (size_t k = 0; k < j->pf.results.n; k++) {
		const struct hwc_probe_result *jr = &j->pf.results.items[k];
		if (direction && hwc_ok(jr->direction) && strcmp(jr->direction.v, direction) != 0)
			continue;
		struct hwc_probe_result *r = HWC_VEC_PUSH(f->arena, &pf->results);
		if (!r)
			break;
		*r = *jr;
		pr_result_persist(f->arena, r);
	}
}

/* Every pair at once (ops: the RDMA ops of this round; TCP: both directions). */
static void together(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		     struct hwc_probe_facts *pf, const struct pr_pair *p, size_t n, unsigned ops)
{
	struct pjob *jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		hwc_facts_error(f, "probe", "all-ports", "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct pjob *j = &jobs[i];
		j->e = e;
		j->o = *o;
		j->o.peer = p[i].peer;
		j->o.ops = ops;
		j->o.together = (unsigned)n;
		j->o.more = true;
		j->o.progress = NULL; /* threads do not print */
		j->tf = *f;
		j->tf.arena = hwc_arena_new();
		memset(&j->tf.errors, 0, sizeof(j->tf.errors));
		j->started = j->tf.arena && pthread_create(&j->th, NULL, pjob_main, j) == 0;
		if (!j->started)
			hwc_facts_error(f, "probe", p[i].peer, "cannot start the pair's thread");
	}
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].started)
			continue;
		pthread_join(jobs[i].th, NULL);
		for (size_t k = 0; k < jobs[i].tf.errors.n; k++) {
			const struct hwc_diag *d = &jobs[i].tf.errors.items[k];
			hwc_facts_error(f, d->source, d->subject, "%s", d->message);
		}
	}
	/* TCP runs each direction in turn: the ports that ran at the same time are one direction's */
	static const char *const dirs[] = {"to_peer", "from_peer"};
	for (size_t d = 0; d < (o->tcp ? 2 : 1); d++) {
		size_t first = pf->results.n;
		for (size_t i = 0; i < n; i++)
			if (jobs[i].started)
				pjob_results(f, pf, &jobs[i], o->tcp ? dirs[d] : NULL);
		pr_explain_together(f, pf, first);
	}
	for (size_t i = 0; i < n; i++)
		hwc_arena_free(jobs[i].tf.arena);
	free(jobs);
}

int pr_pairs_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		    struct hwc_probe_facts *pf)
{
	struct hwc_arena *a = f->arena;
	struct pr_pair p[MAX_PAIRS];
	size_t n;
	const char *why = split_peers(a, o->peer, p, &n);
	if (why) {
		pairs_fail(f, pf, o, why);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct hwc_probe_opts oo = *o;
		oo.peer = p[i].peer;
		oo.together = 1;
		oo.more = true;
		size_t first = pf->results.n;
		(o->tcp ? pr_tcp_client : pr_cm_client)(e, &oo, f, pf);
		pair_ends(a, pf, first, o->tcp, &p[i]);
	}
	why = pr_pairs_check(a, p, n);
	if (why)
		pairs_fail(f, pf, o, why);
	else if (o->tcp)
		together(e, o, f, pf, p, n, o->ops);
	else
		for (unsigned op = 1; op <= HWC_PROBE_SEND; op <<= 1)
			if (o->ops & op)
				together(e, o, f, pf, p, n, op);
	/* the server serves until told that the run is over (when a pair ever reached it) */
	for (size_t i = 0; i < n; i++)
		if (p[i].remote) {
			(o->tcp ? pr_tcp_end : pr_cm_end)(o, p[i].peer);
			break;
		}
	return 0;
}

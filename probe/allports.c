/* SPDX-License-Identifier: MIT */
/* --all-ports: every rail at once. Ports that pass alone can starve each other behind a shared
 * switch uplink or root port; this runs them together, one thread per port, and explains the
 * difference with the shared-link model of pci/shared.c. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pci/pci.h"
#include "probe/probe_int.h"

struct job {
	const struct hwc_probe_opts *o;
	const struct pr_port *p;
	unsigned op;
	struct hwc_arena *a; /* the thread's own: the facts arena is not thread-safe */
	struct hwc_probe_result r;
	pthread_t th;
	bool started;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	pr_loopback(j->o, &j->p->t, j->op, j->p->dev, j->a, &j->r, NULL, NULL);
	return NULL;
}

/* Sets up each port's result in the facts arena, then starts its thread bound to the port's
 * NUMA node (a thread inherits its creator's affinity; the creator's is restored after). */
static void jobs_start(struct hwc_env *e, struct hwc_facts *f, struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		pr_result_init(f->arena, &j->r, &j->p->t, j->o, j->op, "loopback");
		HWC_SET(j->r.concurrent, (int64_t)n);
		pr_ceiling_inputs(f, &j->p->t, &j->p->pa, &j->r);
		j->a = hwc_arena_new();
		if (!j->a) {
			pr_result_fail(f->arena, &j->r, "failed", "out of memory");
			continue;
		}
		struct pr_binding b;
		pr_bind(e, f->arena, j->p->t.numa_node, &b, &j->r);
		int rc = pthread_create(&j->th, NULL, job_run, j);
		pr_unbind(&b);
		j->started = rc == 0;
		if (rc)
			pr_result_fail(f->arena, &j->r, "failed", "cannot start a thread: %s",
				       strerror(rc));
	}
}

static void one_op(struct hwc_env *e, struct hwc_facts *f, struct hwc_probe_facts *pf,
		   const struct hwc_probe_opts *o, const struct pr_port *ports, size_t n, unsigned op)
{
	struct job *jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		hwc_facts_error(f, "probe", "all-ports", "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		jobs[i] = (struct job){.o = o, .p = &ports[i], .op = op};
	jobs_start(e, f, jobs, n);
	size_t first = pf->results.n;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].th, NULL);
		pr_result_persist(f->arena, &jobs[i].r);
		hwc_arena_free(jobs[i].a);
		struct hwc_probe_result *r = HWC_VEC_PUSH(f->arena, &pf->results);
		if (r)
			*r = jobs[i].r;
	}
	free(jobs);
	pr_explain_together(f, pf, first);
	for (size_t i = first; i < pf->results.n; i++) {
		const struct hwc_probe_result *r = &pf->results.items[i];
		if (strcmp(r->status.v, "ok") != 0)
			hwc_facts_error(f, "probe", r->rdma_device.v, "%s", r->reason.v);
	}
}

void pr_all_ports(struct hwc_env *e, struct hwc_facts *f, struct hwc_probe_facts *pf,
		  const struct hwc_probe_opts *o, const struct pr_port *ports, size_t n)
{
	if (n < 2) {
		hwc_facts_error(f, "probe", "all-ports", "%zu ACTIVE port%s matched: nothing runs "
				"together", n, n == 1 ? "" : "s");
		return;
	}
	struct hwc_probe_opts oo = *o;
	oo.progress = NULL; /* threads do not print */
	unsigned left = hwc_env_time_left_ms(e);
	for (unsigned op = 1; op <= HWC_PROBE_SEND; op <<= 1) {
		if (!(o->ops & op))
			continue;
		if (left != UINT32_MAX) {
			left = hwc_env_time_left_ms(e);
			double s = left / 1000.0 - 1.0 - o->warmup_s;
			if (s < 0.2) {
				hwc_facts_error(f, "probe", "all-ports",
						"--timeout was reached before the ports ran together");
				return;
			}
			oo.duration_s = s < o->duration_s ? s : o->duration_s;
		}
		one_op(e, f, pf, &oo, ports, n, op);
	}
}

/* ---- the shared-link ceiling ---------------------------------------------------------------- */

static const struct hwc_probe_result *alone_of(const struct hwc_probe_facts *pf, size_t first,
					       const struct hwc_probe_result *r)
{
	for (size_t i = 0; i < first; i++) {
		const struct hwc_probe_result *a = &pf->results.items[i];
		if (!hwc_ok(a->concurrent) || a->concurrent.v != 1 || !hwc_ok(a->gbps) ||
		    !hwc_ok(a->op) || !hwc_ok(r->op) || strcmp(a->op.v, r->op.v) != 0)
			continue;
		if (strcmp(r->op.v, "tcp") == 0) { /* TCP: the same netdev, the same way */
			if (hwc_ok(a->netdev) && hwc_ok(r->netdev) && hwc_ok(a->direction) &&
			    hwc_ok(r->direction) && strcmp(a->netdev.v, r->netdev.v) == 0 &&
			    strcmp(a->direction.v, r->direction.v) == 0)
				return a;
		} else if (hwc_ok(a->rdma_device) && hwc_ok(r->rdma_device) &&
			   strcmp(a->rdma_device.v, r->rdma_device.v) == 0 && a->port.v == r->port.v) {
			return a;
		}
	}
	return NULL;
}

/* The smallest share of a link r's function crosses with the others: link Gb/s (payload, else
 * raw) divided among the ports of this run that cross it. */
static void share_of(struct hwc_arena *a, const struct hwc_pci_shared_link *ls, size_t nl,
		     size_t idx, struct hwc_probe_result *r)
{
	const struct hwc_pci_shared_link *best = NULL;
	double share = 0;
	for (size_t k = 0; k < nl; k++) {
		if (!(ls[k].members & (1ull << idx)))
			continue;
		double g = ls[k].gbps > 0 ? ls[k].gbps : ls[k].raw_gbps;
		double s = g / __builtin_popcountll(ls[k].members);
		if (g > 0 && (!best || s < share))
			best = &ls[k], share = s;
	}
	if (!best) {
		HWC_FAIL(r->shared_gbps, HWC_ST_ABSENT, 0,
			 "no PCIe link shared with the other ports (facts.pci paths)");
		HWC_FAIL(r->shared_bdf, HWC_ST_ABSENT, 0, "no shared PCIe link");
		HWC_FAIL(r->shared_ports, HWC_ST_ABSENT, 0, "no shared PCIe link");
		return;
	}
	HWC_SET(r->shared_gbps, share);
	const char *b = hwc_arena_strdup(a, best->port_bdf);
	if (b)
		HWC_SET(r->shared_bdf, b);
	HWC_SET(r->shared_ports, __builtin_popcountll(best->members));
}

void pr_explain_together(struct hwc_facts *f, struct hwc_probe_facts *pf, size_t first)
{
	struct hwc_arena *a = f->arena;
	size_t n = pf->results.n - first;
	const char **bdfs = hwc_arena_calloc(a, n ? n : 1, sizeof(*bdfs));
	if (!bdfs)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct hwc_probe_result *r = &pf->results.items[first + i];
		bdfs[i] = hwc_ok(r->bdf) ? r->bdf.v : "";
	}
	json_t *pj = f->pci ? hwc_pci_to_json(f) : NULL;
	struct hwc_pci_shared_link ls[32];
	size_t nl = hwc_pci_shared_links(json_object_get(pj, "devices"), bdfs, n, ls, 32);
	for (size_t i = 0; i < n; i++) {
		struct hwc_probe_result *r = &pf->results.items[first + i];
		if (!hwc_ok(r->bdf)) {
			HWC_FAIL(r->shared_gbps, HWC_ST_UNSUPPORTED, 0, "not a PCI device: no PCIe path");
			HWC_FAIL(r->shared_bdf, HWC_ST_UNSUPPORTED, 0, "not a PCI device");
			HWC_FAIL(r->shared_ports, HWC_ST_UNSUPPORTED, 0, "not a PCI device");
		} else {
			share_of(a, ls, nl, i, r);
		}
		const struct hwc_probe_result *al = alone_of(pf, first, r);
		if (al)
			HWC_SET(r->alone_gbps, al->gbps.v);
		else
			HWC_FAIL(r->alone_gbps, HWC_ST_ABSENT, 0, "the port alone gave no rate");
		hwc_probe_explain(a, r);
	}
	json_decref(pj);
}

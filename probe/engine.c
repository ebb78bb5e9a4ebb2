/* SPDX-License-Identifier: MIT */
/* The measurement loop: keep `depth` work requests in flight per QP, time the steady state only. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/probe_int.h"

#define SLICE_S 0.1      /* rate is sampled in slices this long */
#define STABLE_SLICES 5  /* ...and the run may stop once this many agree */
#define STABLE_SPREAD 0.02
#define STABLE_MIN_S 0.5
#define TICK_S 0.25
#define STALL_S 10.0     /* no completion for this long: the peer or the port is gone */
#define POST_BATCH 16

double pr_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pr_verbs_release(struct ibv_mr *mr, void *buf, struct ibv_cq *cq, struct ibv_pd *pd)
{
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

/* xorshift64*: cheap, and a wrong byte anywhere changes the comparison. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

void pr_pattern_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1, w;
	unsigned char *p = buf;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		w = next(&s);
		memcpy(p + i, &w, 8);
	}
	w = next(&s);
	memcpy(p + i, &w, len - i);
}

bool pr_pattern_check(const void *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1, w;
	const unsigned char *p = buf;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		w = next(&s);
		if (memcmp(p + i, &w, 8))
			return false;
	}
	w = next(&s);
	return memcmp(p + i, &w, len - i) == 0;
}

static int post_sends(struct pr_run *r, unsigned qi, bool final_only)
{
	struct pr_qp *q = &r->q[qi];
	struct ibv_sge sge[POST_BATCH];
	struct ibv_send_wr wr[POST_BATCH], *bad = NULL;
	unsigned n = 0;
	while (n < POST_BATCH && q->posted + n - q->done < r->depth) {
		uint64_t seq = q->posted + n;
		bool sig = final_only || (seq % r->cq_mod) == r->cq_mod - 1;
		sge[n] = (struct ibv_sge){.addr = (uintptr_t)q->lbuf, .length = (uint32_t)r->msg_bytes,
					  .lkey = q->lkey};
		memset(&wr[n], 0, sizeof(wr[n]));
		wr[n].wr_id = ((uint64_t)qi << 48) | seq;
		wr[n].sg_list = &sge[n];
		wr[n].num_sge = 1;
		wr[n].send_flags = sig ? IBV_SEND_SIGNALED : 0;
		if (r->op == HWC_PROBE_SEND) {
			wr[n].opcode = IBV_WR_SEND;
		} else {
			wr[n].opcode = r->op == HWC_PROBE_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr[n].wr.rdma.remote_addr = q->raddr;
			wr[n].wr.rdma.rkey = q->rkey;
		}
		if (n)
			wr[n - 1].next = &wr[n];
		q->last_signaled = sig;
		n++;
		if (final_only)
			break;
	}
	if (!n)
		return 0;
	int rc = ibv_post_send(q->qp, wr, &bad);
	if (rc) {
		snprintf(r->err, sizeof(r->err), "ibv_post_send on QP %u: %s", qi, strerror(rc));
		return -EIO;
	}
	q->posted += n;
	return 0;
}

static int post_recv(struct pr_run *r, unsigned qi)
{
	struct pr_rq *q = &r->rq[qi];
	struct ibv_sge sge = {.addr = (uintptr_t)q->buf, .length = (uint32_t)r->msg_bytes,
			      .lkey = q->lkey};
	struct ibv_recv_wr wr = {.wr_id = qi, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = ibv_post_recv(q->qp, &wr, &bad);
	if (rc) {
		snprintf(r->err, sizeof(r->err), "ibv_post_recv on QP %u: %s", qi, strerror(rc));
		return -EIO;
	}
	return 0;
}

static int wc_error(struct pr_run *r, const struct ibv_wc *wc, const char *side)
{
	snprintf(r->err, sizeof(r->err),
		 "%s completion error on QP %u, work request %" PRIu64 ": %s (vendor error 0x%x)",
		 side, (unsigned)(wc->wr_id >> 48), (uint64_t)(wc->wr_id & ((1ULL << 48) - 1)),
		 ibv_wc_status_str(wc->status), wc->vendor_err);
	return -EIO;
}

/* Up to 32 completions of cq into wc: how many, or -EIO (err says which) when the poll or one
 * of the work requests failed (the run ends there). */
static int poll_ok(struct pr_run *r, struct ibv_cq *cq, struct ibv_wc *wc, const char *side)
{
	int n = ibv_poll_cq(cq, 32, wc);
	if (n < 0) {
		snprintf(r->err, sizeof(r->err), "ibv_poll_cq (%s) failed", side);
		return -EIO;
	}
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_error(r, &wc[i], side);
	return n;
}

static int poll_send(struct pr_run *r, uint64_t *total, double *last_progress, double now)
{
	struct ibv_wc wc[32];
	int n = poll_ok(r, r->scq, wc, "send");
	for (int i = 0; i < n; i++) {
		unsigned qi = (unsigned)(wc[i].wr_id >> 48);
		uint64_t seq = wc[i].wr_id & ((1ULL << 48) - 1);
		if (qi >= r->nq)
			continue;
		/* A signaled completion retires every earlier WR of its QP (RC ordering). */
		if (seq + 1 > r->q[qi].done) {
			*total += seq + 1 - r->q[qi].done;
			r->q[qi].done = seq + 1;
		}
	}
	if (n > 0)
		*last_progress = now;
	return n < 0 ? -EIO : 0;
}

static int poll_recv(struct pr_run *r)
{
	struct ibv_wc wc[32];
	int n = poll_ok(r, r->rcq, wc, "receive");
	for (int i = 0; i < n; i++) {
		unsigned qi = (unsigned)wc[i].wr_id;
		if (qi >= r->nq)
			continue;
		r->rq[qi].received++;
		if (wc[i].byte_len != r->msg_bytes)
			r->rq[qi].bad_len = true;
		if (post_recv(r, qi) < 0)
			return -EIO;
	}
	return n < 0 ? -EIO : 0;
}

static bool stable(const double *rates, unsigned n)
{
	_Static_assert(STABLE_SLICES == PR_STEADY_SLICES, "one slice ring");
	if (n < STABLE_SLICES)
		return false;
	double lo = rates[0], hi = rates[0], sum = 0;
	for (unsigned i = 0; i < STABLE_SLICES; i++) {
		double v = rates[(n - 1 - i) % STABLE_SLICES];
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
	}
	return sum > 0 && (hi - lo) / (sum / STABLE_SLICES) <= STABLE_SPREAD;
}

void pr_steady_start(struct pr_steady *s, double now, uint64_t count)
{
	memset(s, 0, sizeof(*s));
	s->t0 = s->slice_t = now;
	s->slice_c = count;
}

bool pr_steady_update(struct pr_steady *s, double now, uint64_t count)
{
	if (now - s->slice_t < SLICE_S)
		return false;
	s->rates[s->n++ % STABLE_SLICES] = (double)(count - s->slice_c) / (now - s->slice_t);
	s->slice_t = now;
	s->slice_c = count;
	return now - s->t0 >= STABLE_MIN_S && stable(s->rates, s->n);
}

int pr_engine(struct pr_run *r)
{
	enum { WARM, MEASURE, DRAIN } phase = WARM;
	double t0 = pr_now(), tm = 0, tick = t0, last_progress = t0, tdrain = 0;
	uint64_t total = 0, total_m = 0;
	struct pr_steady st;
	r->err[0] = '\0';
	r->messages = 0;
	r->measured_s = 0;
	r->stable = false;
	if (r->cq_mod == 0 || r->cq_mod > r->depth)
		r->cq_mod = 1;
	if (r->rq)
		for (unsigned i = 0; i < r->nq; i++)
			for (unsigned k = 0; k < r->depth; k++)
				if (post_recv(r, i) < 0)
					return -EIO;
	for (;;) {
		double now = pr_now();
		if (phase == WARM && now - t0 >= r->warmup_s) {
			phase = MEASURE;
			tm = now;
			total_m = total;
			pr_steady_start(&st, now, total);
		}
		if (phase == MEASURE) {
			bool stop = now - tm >= r->max_s;
			if (pr_steady_update(&st, now, total) && !r->fixed) {
				r->stable = true;
				stop = true;
			}
			if (stop) {
				r->measured_s = now - tm;
				r->messages = total - total_m;
				phase = DRAIN;
				tdrain = now;
			}
		}
		if (now - tick >= TICK_S) {
			tick = now;
			if (r->tick) {
				/* < 0: still warming up; after the interval, its final rate */
				double el = phase == MEASURE ? now - tm : r->measured_s;
				uint64_t m = phase == MEASURE ? total - total_m : r->messages;
				double g = phase == WARM ? -1
					   : el > 0	 ? (double)m * (double)r->msg_bytes * 8 / el / 1e9
							 : 0;
				r->tick(r->tick_ctx, now - t0, g);
			}
			if (r->poll_extra && r->poll_extra(r->extra_ctx, r->err, sizeof(r->err)) < 0)
				return -EIO;
		}
		bool all_done = true;
		for (unsigned i = 0; i < r->nq; i++) {
			struct pr_qp *q = &r->q[i];
			if (phase != DRAIN) {
				if (post_sends(r, i, false) < 0)
					return -EIO;
			} else if (!q->last_signaled && q->posted - q->done < r->depth) {
				/* the tail must end in a signaled WR, or its completion never shows */
				if (post_sends(r, i, true) < 0)
					return -EIO;
			}
			if (q->done != q->posted || !q->last_signaled)
				all_done = false;
		}
		if (poll_send(r, &total, &last_progress, now) < 0)
			return -EIO;
		if (r->rq && poll_recv(r) < 0)
			return -EIO;
		if (phase == DRAIN && all_done)
			return 0;
		if (now - last_progress > STALL_S) {
			snprintf(r->err, sizeof(r->err), "no completion for %.0f s (%s)", STALL_S,
				 phase == DRAIN ? "while draining" : "port or peer stopped answering");
			return -EIO;
		}
		if (phase == DRAIN && now - tdrain > STALL_S) {
			snprintf(r->err, sizeof(r->err), "work requests still outstanding %.0f s after "
				 "the run", STALL_S);
			return -EIO;
		}
	}
}

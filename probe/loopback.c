/* SPDX-License-Identifier: MIT */
/* Loopback on one port: QPs in two device contexts, connected to each other in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe_int.h"

/* Two contexts, not one: mlx5 turns RoCE local loopback on only once a second user transport
 * domain exists on the device (DATA-SOURCES.md 8.2), which a second ibv_open_device() gives. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qp;
	void *buf;     /* nq * msg_bytes */
	size_t len;
	struct ibv_mr *mr;
};

static int side_open(struct ibv_device *dev, unsigned nq, unsigned depth, size_t msg, bool recv,
		     struct side *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ibv_open_device(dev);
	if (!s->ctx) {
		snprintf(err, errlen, "ibv_open_device: %s", strerror(errno));
		return -errno;
	}
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd) {
		snprintf(err, errlen, "ibv_alloc_pd: %s", strerror(errno));
		return -EIO;
	}
	s->cq = ibv_create_cq(s->ctx, (int)(nq * depth * (recv ? 2 : 1) + 16), NULL, NULL, 0);
	if (!s->cq) {
		snprintf(err, errlen, "ibv_create_cq (%u entries): %s", nq * depth, strerror(errno));
		return -EIO;
	}
	s->len = nq * msg;
	/* Page-aligned and touched here, after the thread was bound: first touch places the pages
	 * on the card's node without a libnuma dependency. */
	if (posix_memalign(&s->buf, 4096, s->len)) {
		snprintf(err, errlen, "cannot allocate %zu bytes", s->len);
		s->buf = NULL;
		return -ENOMEM;
	}
	memset(s->buf, 0, s->len);
	s->mr = ibv_reg_mr(s->pd, s->buf, s->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr) {
		snprintf(err, errlen, "ibv_reg_mr (%zu bytes): %s", s->len, strerror(errno));
		return -EIO;
	}
	s->qp = calloc(nq, sizeof(*s->qp));
	if (!s->qp)
		return -ENOMEM;
	for (unsigned i = 0; i < nq; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = s->cq,
			.recv_cq = s->cq,
			.qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = depth, .max_recv_wr = recv ? depth + 1 : 1,
				.max_send_sge = 1, .max_recv_sge = 1},
		};
		s->qp[i] = ibv_create_qp(s->pd, &qa);
		if (!s->qp[i]) {
			snprintf(err, errlen, "ibv_create_qp (depth %u): %s", depth, strerror(errno));
			return -EIO;
		}
	}
	return 0;
}

static void side_close(struct side *s, unsigned nq)
{
	if (s->qp)
		for (unsigned i = 0; i < nq; i++)
			if (s->qp[i])
				ibv_destroy_qp(s->qp[i]);
	free(s->qp);
	pr_verbs_release(s->mr, s->buf, s->cq, s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
}

/* INIT -> RTR -> RTS towards a QP of the same port (rc_pingpong's pp_connect_ctx sequence). */
static int connect_qp(struct ibv_qp *qp, uint32_t dest, unsigned port, const struct ibv_port_attr *pa,
		      int gidx, const union ibv_gid *gid, uint8_t rd, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = (uint8_t)port,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS);
	if (rc) {
		snprintf(err, errlen, "QP to INIT: %s", strerror(rc));
		return -EIO;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pa->active_mtu;
	a.dest_qp_num = dest;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = rd;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = (uint8_t)port;
	if (pa->link_layer == IBV_LINK_LAYER_ETHERNET || gidx >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.sgid_index = (uint8_t)(gidx < 0 ? 0 : gidx);
		a.ah_attr.grh.hop_limit = 1;
	}
	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET)
		a.ah_attr.dlid = pa->lid;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER);
	if (rc) {
		snprintf(err, errlen, "QP to RTR (GID index %d): %s", gidx, strerror(rc));
		return -EIO;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = rd;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc) {
		snprintf(err, errlen, "QP to RTS: %s", strerror(rc));
		return -EIO;
	}
	return 0;
}

void pr_loopback(const struct hwc_probe_opts *o, const struct pr_target *t, unsigned op,
		 struct ibv_device *dev, struct hwc_arena *a, struct hwc_probe_result *r,
		 pr_tick_fn tick, void *tick_ctx)
{
	struct side req = {0}, rsp = {0};
	char err[256] = "";
	unsigned nq = o->qps;
	struct pr_qp *q = NULL;
	struct pr_rq *rq = NULL;
	bool recv = op == HWC_PROBE_SEND;
	if (side_open(dev, nq, o->depth, o->msg_bytes, false, &req, err, sizeof(err)) < 0 ||
	    side_open(dev, nq, o->depth, o->msg_bytes, recv, &rsp, err, sizeof(err)) < 0) {
		pr_result_fail(a, r, "failed", "%s: %s", t->dev, err);
		goto out;
	}
	struct ibv_port_attr pa;
	int rc = ibv_query_port(req.ctx, (uint8_t)t->port, &pa);
	if (rc) {
		pr_result_fail(a, r, "failed", "ibv_query_port %s/%u: %s", t->dev, t->port,
			       strerror(rc));
		goto out;
	}
	HWC_SET(r->mtu_bytes, 128 << pa.active_mtu);
	/* Outstanding RDMA READs per QP: as many as both ends allow, at most 16 (perftest's). */
	struct ibv_device_attr da;
	uint8_t rd = 1;
	if (ibv_query_device(req.ctx, &da) == 0) {
		int m = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom
								    : da.max_qp_init_rd_atom;
		rd = (uint8_t)(m > 16 ? 16 : m < 1 ? 1 : m);
	}
	union ibv_gid gid = {0};
	int gidx = -1;
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (o->gid_index >= 0) {
			gidx = o->gid_index;
			if (ibv_query_gid(req.ctx, (uint8_t)t->port, gidx, &gid)) {
				pr_result_fail(a, r, "failed", "GID index %d of %s/%u cannot be read",
					       gidx, t->dev, t->port);
				goto out;
			}
		} else {
			gidx = pr_pick_gid(req.ctx, t->port, &gid);
			if (gidx < 0) {
				pr_result_fail(a, r, "failed", "%s port %u has no usable RoCE GID "
					       "(is an address or link-local GID on its netdev?)",
					       t->dev, t->port);
				goto out;
			}
		}
		HWC_SET(r->gid_index, gidx);
	}
	for (unsigned i = 0; i < nq; i++)
		if (connect_qp(req.qp[i], rsp.qp[i]->qp_num, t->port, &pa, gidx, &gid, rd, err,
			       sizeof(err)) < 0 ||
		    connect_qp(rsp.qp[i], req.qp[i]->qp_num, t->port, &pa, gidx, &gid, rd, err,
			       sizeof(err)) < 0) {
			pr_result_fail(a, r, "failed", "%s port %u: %s", t->dev, t->port, err);
			goto out;
		}
	q = calloc(nq, sizeof(*q));
	rq = recv ? calloc(nq, sizeof(*rq)) : NULL;
	if (!q || (recv && !rq)) {
		pr_result_fail(a, r, "failed", "out of memory");
		goto out;
	}
	/* The data flows from `src` to `dst`: for READ the requester pulls the responder's
	 * buffer, otherwise it pushes its own. Each QP has its own pattern. */
	struct side *src = op == HWC_PROBE_READ ? &rsp : &req;
	for (unsigned i = 0; i < nq; i++)
		pr_pattern_fill((char *)src->buf + (size_t)i * o->msg_bytes, o->msg_bytes, op * 1000u + i);
	for (unsigned i = 0; i < nq; i++) {
		q[i].qp = req.qp[i];
		q[i].lbuf = (char *)req.buf + (size_t)i * o->msg_bytes;
		q[i].lkey = req.mr->lkey;
		q[i].raddr = (uintptr_t)((char *)rsp.buf + (size_t)i * o->msg_bytes);
		q[i].rkey = rsp.mr->rkey;
		if (rq) {
			rq[i].qp = rsp.qp[i];
			rq[i].buf = (char *)rsp.buf + (size_t)i * o->msg_bytes;
			rq[i].lkey = rsp.mr->lkey;
		}
	}
	struct pr_run run = {
		.op = op, .msg_bytes = o->msg_bytes, .depth = o->depth,
		.cq_mod = o->msg_bytes > 8192 ? 1 : (o->depth >= 64 ? 32 : 1),
		.q = q, .nq = nq, .scq = req.cq, .rq = rq, .rcq = rsp.cq,
		.warmup_s = o->warmup_s, .max_s = o->duration_s, .fixed = o->all_ports,
		.tick = tick, .tick_ctx = tick_ctx,
	};
	if (pr_engine(&run) < 0) {
		pr_result_fail(a, r, "failed", "%s port %u, %s: %s", t->dev, t->port, pr_op_name(op),
			       run.err);
		goto out;
	}
	pr_result_rates(r, &run);
	struct side *dst = op == HWC_PROBE_READ ? &req : &rsp;
	bool ok = true, lens = true;
	for (unsigned i = 0; i < nq; i++) {
		ok = ok && pr_pattern_check((char *)dst->buf + (size_t)i * o->msg_bytes, o->msg_bytes,
					    op * 1000u + i);
		if (rq && (rq[i].bad_len || rq[i].received == 0))
			lens = false;
	}
	HWC_SET(r->data_ok, ok && lens);
	r->data_check.v = hwc_arena_printf(a, "%s buffer of each of the %u QPs compared with the "
					   "pattern after the run%s",
					   op == HWC_PROBE_READ ? "requester's" : "responder's", nq,
					   recv ? "; every receive completion carried a full message" : "");
	r->data_check.m.st = r->data_check.v ? HWC_ST_OK : HWC_ST_UNSET;
	if (!(ok && lens))
		pr_result_fail(a, r, "failed", "%s port %u, %s: the data that arrived differs from "
			       "what was sent", t->dev, t->port, pr_op_name(op));
out:
	free(q);
	free(rq);
	side_close(&rsp, nq);
	side_close(&req, nq);
}

/* SPDX-License-Identifier: MIT */
/* Two hosts: a server and a client connected with librdmacm, for the cable and switch between.
 * The client drives: one rdma_cm connection per QP and op, carrying what to run in the connect
 * request's private data; the server answers with its buffer (address, rkey) in the accept's.
 * The server serves one client's ops, then returns: a bounded run that ends by itself. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/probe_int.h"

#define HELLO_MAGIC 0x68776370u /* "hwcp" */
/* 2: the session id and group in the hello, the server's port in the welcome */
#define CM_VERSION 2
#define ACK_TIMEOUT 14          /* 4.096 us << 14 = 67 ms per retry: a dead peer shows fast */
/* The server's RNR NAK timer, encoding 12 = 0.64 ms (IBTA table 45), perftest's MIN_RNR_TIMER:
 * rdma_cm leaves 0 on the passive side (linux drivers/infiniband/core/cm.c, cm_init_qp_rtr_attr),
 * which encodes 655.36 ms, so a send that finds the receive queue empty for a moment would stall
 * the client for longer than a short run. */
#define MIN_RNR_TIMER 12

struct hello {                  /* client -> server, in the connect request (<= 56 bytes) */
	uint32_t magic;
	uint8_t version, op, last, qp_index; /* op 0: no session, the client's run is over */
	uint32_t nqps, depth;
	uint64_t msg_bytes;
	uint32_t sid;           /* the session the QP belongs to (sessions may run at once) */
	uint16_t group, pad;    /* sessions of the client running together: 1 alone */
} __attribute__((packed));

struct welcome {                /* server -> client, in the accept (<= 196 bytes) */
	uint32_t magic;
	uint32_t rkey;
	uint64_t addr;
	char dev[32];           /* the server's RDMA device and port: the pair's far end */
	uint32_t port;
} __attribute__((packed));

static const char *cm_event_name(enum rdma_cm_event_type t)
{
	return rdma_event_str(t);
}

/* Waits for the next event of the channel; -ETIMEDOUT after timeout_s. */
static int next_event(struct rdma_event_channel *ec, double timeout_s, struct rdma_cm_event **ev)
{
	struct pollfd p = {.fd = ec->fd, .events = POLLIN};
	int rc = poll(&p, 1, (int)(timeout_s * 1000));
	if (rc == 0)
		return -ETIMEDOUT;
	if (rc < 0)
		return -errno;
	return rdma_get_cm_event(ec, ev) ? -errno : 0;
}

static int fd_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static int set_nonblock(struct rdma_event_channel *ec)
{
	return fd_nonblock(ec->fd);
}

/* ---- client ------------------------------------------------------------------------------- */

struct cconn {
	struct rdma_cm_id *id;
	bool established;
};

struct client {
	struct rdma_event_channel *ec;
	struct cconn *c;
	unsigned n;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
	struct ibv_mr *mr;
	double t_run0;
	struct welcome w0;      /* the server's answer to the first QP */
};

static void client_close(struct client *cl)
{
	for (unsigned i = 0; cl->c && i < cl->n; i++) {
		if (!cl->c[i].id)
			continue;
		if (cl->c[i].established)
			rdma_disconnect(cl->c[i].id);
		if (cl->c[i].id->qp)
			rdma_destroy_qp(cl->c[i].id);
	}
	pr_verbs_release(cl->mr, cl->buf, cl->cq, cl->pd);
	for (unsigned i = 0; cl->c && i < cl->n; i++)
		if (cl->c[i].id)
			rdma_destroy_id(cl->c[i].id);
	free(cl->c);
	if (cl->ec)
		rdma_destroy_event_channel(cl->ec);
	memset(cl, 0, sizeof(*cl));
}

/* The CM channel during the run: a DISCONNECTED means the server went away. */
static int client_watch(void *ctx, char *err, size_t errlen)
{
	struct client *cl = ctx;
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(cl->ec, &ev) == 0) {
		enum rdma_cm_event_type t = ev->event;
		rdma_ack_cm_event(ev);
		if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			snprintf(err, errlen, "the peer went away mid-run (%s after %.1f s)",
				 cm_event_name(t), pr_now() - cl->t_run0);
			return -EIO;
		}
	}
	return 0;
}

/* A failed completion often arrives just before the CM's DISCONNECTED when the server is killed
 * (rxe reports "remote invalid request" or "remote operation error" for the work in flight):
 * wait up to 2 s for the CM's word, so that the reason says the peer went away, with the
 * completion that failed first kept in it. false when the peer did not disconnect. */
static bool client_peer_gone(struct client *cl, char *err, size_t errlen)
{
	char cause[256];
	snprintf(cause, sizeof(cause), "%s", err);
	if (strstr(cause, "went away"))
		return true;
	double until = pr_now() + 2.0;
	while (pr_now() < until) {
		struct rdma_cm_event *ev;
		int rc = next_event(cl->ec, until - pr_now(), &ev);
		if (rc == -EAGAIN || rc == -EINTR)
			continue;
		if (rc < 0)
			return false;
		enum rdma_cm_event_type t = ev->event;
		rdma_ack_cm_event(ev);
		if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			snprintf(err, errlen, "the peer went away mid-run (%s after %.1f s; first: %.160s)",
				 cm_event_name(t), pr_now() - cl->t_run0, cause);
			return true;
		}
	}
	return false;
}

/* Says why event t (with its status) is not the one awaited, want. */
static void event_err(enum rdma_cm_event_type t, int status, enum rdma_cm_event_type want,
		      const char *peer, unsigned port, char *err, size_t errlen)
{
	switch (t) {
	case RDMA_CM_EVENT_REJECTED:
		snprintf(err, errlen, "%s:%u rejected the connection (no 'hwcheck probe --server' "
			 "listening there?)", peer, port);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		snprintf(err, errlen, "%s:%u is unreachable over RDMA (%s)", peer, port,
			 strerror(status < 0 ? -status : status));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		snprintf(err, errlen, "no RDMA device routes to %s (%s)", peer,
			 strerror(status < 0 ? -status : status));
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		snprintf(err, errlen, "no RDMA route to %s (%s)", peer,
			 strerror(status < 0 ? -status : status));
		break;
	default:
		snprintf(err, errlen, "%s:%u: %s instead of %s (status %d)", peer, port,
			 cm_event_name(t), cm_event_name(want), status);
	}
}

static int expect(struct rdma_event_channel *ec, enum rdma_cm_event_type want, double timeout_s,
		  const char *peer, unsigned port, struct welcome *w, char *err, size_t errlen)
{
	struct rdma_cm_event *ev;
	int rc = next_event(ec, timeout_s, &ev);
	if (rc == -ETIMEDOUT) {
		snprintf(err, errlen, "%s:%u did not answer within %.0f s (waiting for %s)", peer,
			 port, timeout_s, cm_event_name(want));
		return rc;
	}
	if (rc < 0) {
		snprintf(err, errlen, "rdma_get_cm_event: %s", strerror(-rc));
		return rc;
	}
	enum rdma_cm_event_type t = ev->event;
	int status = ev->status;
	if (t == want && w && ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(*w))
		memcpy(w, ev->param.conn.private_data, sizeof(*w));
	rdma_ack_cm_event(ev);
	if (t == want)
		return 0;
	event_err(t, status, want, peer, port, err, errlen);
	return -EIO;
}

/* The peer's address resolved to a port and a neighbour (its MAC), asked in steps of at most
 * RESOLVE_STEP_MS within the set-up timeout (o->timeout_s, 10 s). The kernel sends the ARP or
 * neighbour solicitation from inside rdma_resolve_addr and only then queues the request that the
 * neighbour's update event wakes (linux drivers/infiniband/core/addr.c: rdma_resolve_ip calls
 * addr_resolve, whose dst_fetch_ha calls neigh_event_send, before queue_req; netevent_callback
 * wakes only queued requests). An answer that lands in between (on another CPU, or while the
 * caller is descheduled) wakes nobody, and the request sleeps to its own timeout although the
 * neighbour is known. Likewise a neighbour that failed (no answer to its solicitations) is asked
 * again only at that timeout. So a step that times out is asked again while the set-up timeout
 * lasts: each re-ask looks the neighbour up afresh and, where it has failed, solicits it again
 * (dst_fetch_ha: any entry not NUD_VALID, FAILED included, is sent neigh_event_send and the
 * request queued with -ENODATA, so a re-ask is never refused at once). A missed answer costs one
 * step, not the whole timeout; the kernel's own resolution for RoCE address handles uses
 * 1000 ms (rdma_addr_find_l2_eth_by_grh). vm_probe_twohost's late_neighbour shows it. */
#define RESOLVE_STEP_MS 1000u

static int resolve_addr(struct rdma_event_channel *ec, struct rdma_cm_id *id,
			const struct hwc_probe_opts *o, const struct addrinfo *ai,
			const struct addrinfo *src, char *err, size_t errlen)
{
	double until = pr_now() + o->timeout_s;
	for (;;) {
		double left = until - pr_now();
		unsigned ms = left * 1000.0 > RESOLVE_STEP_MS ? RESOLVE_STEP_MS
			      : left > 0.001 ? (unsigned)(left * 1000.0) : 1u;
		if (rdma_resolve_addr(id, src ? src->ai_addr : NULL, ai->ai_addr, ms)) {
			snprintf(err, errlen, "rdma_resolve_addr %s: %s", o->peer, strerror(errno));
			return -EIO;
		}
		/* the kernel ends each step itself; a second more is its grace */
		struct rdma_cm_event *ev;
		int rc = next_event(ec, (left > ms / 1000.0 ? left : ms / 1000.0) + 1.0, &ev);
		if (rc == -ETIMEDOUT)
			break;
		if (rc < 0) {
			snprintf(err, errlen, "rdma_get_cm_event: %s", strerror(-rc));
			return rc;
		}
		enum rdma_cm_event_type t = ev->event;
		int status = ev->status;
		rdma_ack_cm_event(ev);
		if (t == RDMA_CM_EVENT_ADDR_RESOLVED)
			return 0;
		bool step_over = t == RDMA_CM_EVENT_ADDR_ERROR && (status == -ETIMEDOUT || status == ETIMEDOUT);
		if (!step_over) {
			event_err(t, status, RDMA_CM_EVENT_ADDR_RESOLVED, o->peer, o->cm_port, err, errlen);
			return -EIO;
		}
		if (pr_now() >= until)
			break;
	}
	snprintf(err, errlen, "%s:%u did not answer within %.0f s (waiting for %s)", o->peer,
		 o->cm_port, o->timeout_s, cm_event_name(RDMA_CM_EVENT_ADDR_RESOLVED));
	return -ETIMEDOUT;
}

/* Connects the QPs of one op; fills q[] with the server's buffers. */
static int client_connect(struct client *cl, const struct hwc_probe_opts *o, unsigned op,
			  bool last, const struct addrinfo *ai, const struct addrinfo *src,
			  struct pr_qp *q, char *err, size_t errlen)
{
	static _Atomic uint32_t sids;
	uint32_t sid = ((uint32_t)getpid() << 12) + ++sids;
	cl->n = o->qps;
	cl->c = calloc(o->qps, sizeof(*cl->c));
	cl->ec = rdma_create_event_channel();
	if (!cl->c || !cl->ec) {
		snprintf(err, errlen, "rdma_create_event_channel: %s (is rdma_ucm loaded?)",
			 strerror(errno));
		return -EIO;
	}
	unsigned tmo = (unsigned)(o->timeout_s * 1000);
	for (unsigned i = 0; i < o->qps; i++) {
		struct cconn *c = &cl->c[i];
		if (rdma_create_id(cl->ec, &c->id, NULL, RDMA_PS_TCP)) {
			snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
			return -EIO;
		}
		if (resolve_addr(cl->ec, c->id, o, ai, src, err, errlen) < 0)
			return -EIO;
		uint8_t at = ACK_TIMEOUT;
		rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &at, sizeof(at));
		if (rdma_resolve_route(c->id, tmo)) {
			snprintf(err, errlen, "rdma_resolve_route %s: %s", o->peer, strerror(errno));
			return -EIO;
		}
		if (expect(cl->ec, RDMA_CM_EVENT_ROUTE_RESOLVED, o->timeout_s, o->peer, o->cm_port,
			   NULL, err, errlen) < 0)
			return -EIO;
		if (i == 0) {
			size_t len = (size_t)o->qps * o->msg_bytes;
			cl->pd = ibv_alloc_pd(c->id->verbs);
			cl->cq = cl->pd ? ibv_create_cq(c->id->verbs, (int)(o->qps * o->depth + 16),
							NULL, NULL, 0)
					: NULL;
			if (!cl->cq || posix_memalign(&cl->buf, 4096, len)) {
				snprintf(err, errlen, "PD/CQ/buffer on %s: %s",
					 ibv_get_device_name(c->id->verbs->device), strerror(errno));
				cl->buf = NULL;
				return -EIO;
			}
			memset(cl->buf, 0, len);
			cl->mr = ibv_reg_mr(cl->pd, cl->buf, len,
					    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ);
			if (!cl->mr) {
				snprintf(err, errlen, "ibv_reg_mr: %s", strerror(errno));
				return -EIO;
			}
		} else if (c->id->verbs != cl->c[0].id->verbs) {
			snprintf(err, errlen, "the route to %s changed device between QPs", o->peer);
			return -EIO;
		}
		struct ibv_qp_init_attr qa = {
			.send_cq = cl->cq, .recv_cq = cl->cq, .qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = o->depth, .max_recv_wr = 1, .max_send_sge = 1,
				.max_recv_sge = 1},
		};
		if (rdma_create_qp(c->id, cl->pd, &qa)) {
			snprintf(err, errlen, "rdma_create_qp (depth %u): %s", o->depth, strerror(errno));
			return -EIO;
		}
		struct hello h = {.magic = htonl(HELLO_MAGIC), .version = CM_VERSION, .op = (uint8_t)op,
				  .last = last, .qp_index = (uint8_t)i, .nqps = htonl(o->qps),
				  .depth = htonl(o->depth), .msg_bytes = htobe64(o->msg_bytes),
				  .sid = htonl(sid),
				  .group = htons((uint16_t)(o->together > 1 ? o->together : 1))};
		struct rdma_conn_param cp = {.private_data = &h, .private_data_len = sizeof(h),
					     .responder_resources = 16, .initiator_depth = 16,
					     .retry_count = 7, .rnr_retry_count = 7};
		if (rdma_connect(c->id, &cp)) {
			snprintf(err, errlen, "rdma_connect %s: %s", o->peer, strerror(errno));
			return -EIO;
		}
		struct welcome w = {0};
		if (expect(cl->ec, RDMA_CM_EVENT_ESTABLISHED, o->timeout_s, o->peer, o->cm_port, &w,
			   err, errlen) < 0)
			return -EIO;
		c->established = true;
		if (ntohl(w.magic) != HELLO_MAGIC) {
			snprintf(err, errlen, "%s:%u is not a hwcheck probe server", o->peer, o->cm_port);
			return -EPROTO;
		}
		if (i == 0)
			cl->w0 = w;
		q[i].qp = c->id->qp;
		q[i].lbuf = (char *)cl->buf + (size_t)i * o->msg_bytes;
		q[i].lkey = cl->mr->lkey;
		q[i].raddr = be64toh(w.addr);
		q[i].rkey = ntohl(w.rkey);
	}
	return set_nonblock(cl->ec);
}

/* After a WRITE run: read the server's buffers back and compare them with what was written. */
static int read_back(struct client *cl, const struct hwc_probe_opts *o, struct pr_qp *q,
		     bool *ok, char *err, size_t errlen)
{
	memset(cl->buf, 0, (size_t)o->qps * o->msg_bytes);
	for (unsigned i = 0; i < o->qps; i++) {
		struct ibv_sge sge = {.addr = (uintptr_t)q[i].lbuf, .length = (uint32_t)o->msg_bytes,
				      .lkey = q[i].lkey};
		struct ibv_send_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1,
					 .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
					 .wr.rdma = {.remote_addr = q[i].raddr, .rkey = q[i].rkey}},
				   *bad;
		if (ibv_post_send(q[i].qp, &wr, &bad)) {
			snprintf(err, errlen, "read-back: ibv_post_send failed");
			return -EIO;
		}
	}
	unsigned got = 0;
	double t0 = pr_now();
	while (got < o->qps) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(cl->cq, 1, &wc);
		if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS)) {
			snprintf(err, errlen, "read-back of the server's buffer failed: %s",
				 n < 0 ? "poll" : ibv_wc_status_str(wc.status));
			return -EIO;
		}
		got += (unsigned)n;
		if (pr_now() - t0 > o->timeout_s) {
			snprintf(err, errlen, "read-back of the server's buffer timed out");
			return -EIO;
		}
	}
	*ok = true;
	for (unsigned i = 0; i < o->qps; i++)
		*ok = *ok && pr_pattern_check(q[i].lbuf, o->msg_bytes, HWC_PROBE_WRITE * 1000u + i);
	return 0;
}

/* The peer's address (and the source's, with --source): 0, or getaddrinfo's error with *bad the
 * name it could not resolve. */
static int client_resolve(const struct hwc_probe_opts *o, struct addrinfo **ai,
			  struct addrinfo **src, const char **bad)
{
	char port[8];
	snprintf(port, sizeof(port), "%u", o->cm_port);
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	*bad = o->peer;
	int gai = getaddrinfo(o->peer, port, &hints, ai);
	if (!gai && o->source) {
		struct addrinfo sh = {.ai_family = (*ai)->ai_family, .ai_socktype = SOCK_STREAM,
				      .ai_flags = AI_NUMERICHOST};
		gai = getaddrinfo(o->source, NULL, &sh, src);
		*bad = o->source;
	}
	return gai;
}

/* After a run: whether the data that arrived is the pattern that was sent. */
static void client_data_check(struct client *cl, const struct hwc_probe_opts *o, unsigned op,
			      struct pr_qp *q, struct hwc_arena *a, struct hwc_probe_result *r)
{
	char err[256] = "";
	bool ok = false;
	if (op == HWC_PROBE_WRITE) {
		if (read_back(cl, o, q, &ok, err, sizeof(err)) < 0) {
			HWC_FAIL(r->data_ok, HWC_ST_UNREADABLE, EIO, hwc_arena_strdup(a, err));
		} else {
			HWC_SET(r->data_ok, ok);
			r->data_check.v = "the server's buffers, read back after the run";
		}
	} else if (op == HWC_PROBE_READ) {
		ok = true;
		for (unsigned i = 0; i < o->qps; i++)
			ok = ok && pr_pattern_check(q[i].lbuf, o->msg_bytes, op * 1000u + i);
		HWC_SET(r->data_ok, ok);
		r->data_check.v = "what was read, compared with the server's pattern";
	} else {
		HWC_FAIL(r->data_ok, HWC_ST_UNSUPPORTED, 0,
			 "a send is checked by its receiver: see the server's result");
		r->data_check.v = "by the server";
	}
	r->data_check.m = (struct hwc_fmeta){.st = HWC_ST_OK};
}

/* One op over connected QPs: bind, run, check the data, close. true when it ran. */
static bool client_run(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		       unsigned op, struct client *cl, struct pr_qp *q, struct hwc_probe_result *r)
{
	struct hwc_arena *a = f->arena;
	struct ibv_context *ctx = cl->c[0].id->verbs;
	struct pr_target t;
	pr_target_init(e, a, ibv_get_device_name(ctx->device), cl->c[0].id->port_num, &t);
	struct hwc_probe_result keep = *r;
	pr_result_init(a, r, &t, o, op, "client");
	r->status = keep.status;
	r->reason = keep.reason;
	struct ibv_port_attr pa;
	bool have_pa = ibv_query_port(ctx, (uint8_t)t.port, &pa) == 0;
	if (have_pa)
		HWC_SET(r->mtu_bytes, 128 << pa.active_mtu);
	struct pr_binding b;
	pr_bind(e, a, t.numa_node, &b, r);
	if (op == HWC_PROBE_WRITE || op == HWC_PROBE_SEND)
		for (unsigned i = 0; i < o->qps; i++)
			pr_pattern_fill(q[i].lbuf, o->msg_bytes, op * 1000u + i);
	struct pr_tick_ctx tc = {.o = o, .label = hwc_arena_printf(a, "probe %s -> %s %s", t.dev,
								  o->peer, pr_op_name(op))};
	tc.s = o->together > 1 ? NULL : pr_sampler_start(e, a, &t); /* ports together: not sampled */
	char far[48];
	snprintf(far, sizeof(far), "%.32s/%u", cl->w0.dev, ntohl(cl->w0.port));
	if (cl->w0.dev[0])
		HWC_SET(r->peer_port, hwc_arena_strdup(a, far));
	struct pr_run run = {
		.op = op, .msg_bytes = o->msg_bytes, .depth = o->depth,
		.cq_mod = o->msg_bytes > 8192 ? 1 : (o->depth >= 64 ? 32 : 1),
		.q = q, .nq = o->qps, .scq = cl->cq, .warmup_s = o->warmup_s,
		.max_s = o->duration_s, .tick = pr_tick, .tick_ctx = &tc,
		.poll_extra = client_watch, .extra_ctx = cl,
		.fixed = o->all_ports, /* --all-ports: the whole duration, so that runs overlap */
	};
	cl->t_run0 = pr_now();
	bool ran = pr_engine(&run) >= 0;
	if (!ran) {
		client_peer_gone(cl, run.err, sizeof(run.err));
		pr_result_fail(a, r, "failed", "%s %s to %s: %s", t.dev, pr_op_name(op), o->peer,
			       run.err);
		hwc_facts_error(f, "probe", o->peer, "%s", r->reason.v);
	} else {
		pr_result_rates(r, &run);
		client_data_check(cl, o, op, q, a, r);
		if (hwc_ok(r->data_ok) && !r->data_ok.v)
			pr_result_fail(a, r, "failed", "%s %s to %s: the data that arrived differs "
				       "from what was sent", t.dev, pr_op_name(op), o->peer);
	}
	pr_sampler_finish(tc.s, r);
	pr_unbind(&b);
	if (have_pa)
		pr_ceiling_inputs(f, &t, &pa, r);
	return ran;
}

/* A result for op before it connects, with what is not known until it does. */
static struct hwc_probe_result *client_result(struct hwc_arena *a, const struct hwc_probe_opts *o,
					      unsigned op, struct hwc_probe_facts *pf)
{
	struct hwc_probe_result *r = HWC_VEC_PUSH(a, &pf->results);
	if (!r)
		return NULL;
	struct pr_target t0 = {.dev = "?", .port = 0, .numa_node = -1};
	pr_result_init(a, r, &t0, o, op, "client");
	HWC_FAIL(r->rdma_device, HWC_ST_ABSENT, 0, "not connected");
	HWC_FAIL(r->port, HWC_ST_ABSENT, 0, "not connected");
	HWC_FAIL(r->bdf, HWC_ST_ABSENT, 0, "not connected");
	HWC_FAIL(r->netdev, HWC_ST_ABSENT, 0, "not connected");
	return r;
}

int pr_cm_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf)
{
	struct hwc_arena *a = f->arena;
	struct addrinfo *ai = NULL, *src = NULL;
	const char *bad;
	int gai = client_resolve(o, &ai, &src, &bad);
	unsigned lastop = 0;
	for (unsigned op = 1; op <= HWC_PROBE_SEND; op <<= 1)
		if (o->ops & op)
			lastop = op;
	int ran = 0;
	for (unsigned op = 1; op <= HWC_PROBE_SEND; op <<= 1) {
		if (!(o->ops & op))
			continue;
		struct hwc_probe_result *r = client_result(a, o, op, pf);
		if (!r)
			break;
		if (gai) {
			pr_result_fail(a, r, "failed", "cannot resolve %s: %s", bad, gai_strerror(gai));
			hwc_facts_error(f, "probe", bad, "%s", r->reason.v);
			hwc_probe_explain(a, r);
			break;
		}
		struct client cl = {0};
		struct pr_qp *q = calloc(o->qps, sizeof(*q));
		char err[256] = "";
		bool last = op == lastop && !o->more;
		if (!q || client_connect(&cl, o, op, last, ai, src, q, err, sizeof(err)) < 0) {
			pr_result_fail(a, r, "failed", "%s", err[0] ? err : "out of memory");
			hwc_facts_error(f, "probe", o->peer, "%s", r->reason.v);
			hwc_probe_explain(a, r);
			free(q);
			client_close(&cl);
			break; /* the next ops would meet the same refusal */
		}
		ran += client_run(e, o, f, op, &cl, q, r);
		hwc_probe_explain(a, r);
		free(q);
		client_close(&cl);
		if (strcmp(r->status.v, "ok") != 0 && strstr(r->reason.v, "went away"))
			break; /* the server is gone: the next ops would only time out */
	}
	if (ai)
		freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
	return ran ? 0 : -EIO;
}

/* ---- server ------------------------------------------------------------------------------- */

struct sconn {
	struct rdma_cm_id *id;
	bool connected, gone;
};

struct session {
	bool active;
	unsigned op, nqps, depth;
	bool last;
	uint32_t sid;
	unsigned group;         /* sessions of the client running together */
	size_t msg;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch; /* sends: the CQ wakes the server's loop */
	void *buf;
	struct ibv_mr *mr;
	struct sconn c[64];
	unsigned accepted, closed;
	uint64_t received;
	bool bad_len;
	double t_first, t_last;
};

static void session_free(struct session *s)
{
	for (unsigned i = 0; i < s->nqps && i < 64; i++) {
		if (!s->c[i].id)
			continue;
		if (s->c[i].id->qp)
			rdma_destroy_qp(s->c[i].id);
		rdma_destroy_id(s->c[i].id);
	}
	pr_verbs_release(s->mr, s->buf, s->cq, s->pd);
	if (s->ch)
		ibv_destroy_comp_channel(s->ch);
	memset(s, 0, sizeof(*s));
}

static int post_srecv(struct session *s, unsigned i)
{
	struct ibv_sge sge = {.addr = (uintptr_t)((char *)s->buf + (size_t)i * s->msg),
			      .length = (uint32_t)s->msg, .lkey = s->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;
	return ibv_post_recv(s->c[i].id->qp, &wr, &bad) ? -EIO : 0;
}

/* A connect request's hello, checked. */
static int hello_parse(const struct rdma_cm_event *ev, struct hello *h, char *err, size_t errlen)
{
	if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(*h)) {
		snprintf(err, errlen, "a connect request without a hwcheck hello (or another version)");
		return -EPROTO;
	}
	memcpy(h, ev->param.conn.private_data, sizeof(*h));
	unsigned nq = ntohl(h->nqps), depth = ntohl(h->depth);
	uint64_t msg = be64toh(h->msg_bytes);
	if (ntohl(h->magic) != HELLO_MAGIC || h->version != CM_VERSION) {
		snprintf(err, errlen, "a connect request that is not a hwcheck probe (or another "
			 "version)");
		return -EPROTO;
	}
	if (h->op == 0)
		return 0; /* the client's run is over */
	if (nq == 0 || nq > 64 || h->qp_index >= nq || depth == 0 || depth > 4096 || msg == 0 ||
	    msg > (1u << 30) ||
	    (h->op != HWC_PROBE_WRITE && h->op != HWC_PROBE_READ && h->op != HWC_PROBE_SEND)) {
		snprintf(err, errlen, "a connect request with a hwcheck hello out of range");
		return -EPROTO;
	}
	return 0;
}

/* The session's PD, CQ and buffer, set up on its first QP's request. */
static int session_setup(struct session *s, const struct hello *h, struct rdma_cm_id *id,
			 char *err, size_t errlen)
{
	unsigned nq = ntohl(h->nqps), depth = ntohl(h->depth);
	uint64_t msg = be64toh(h->msg_bytes);
	s->active = true;
	s->op = h->op;
	s->nqps = nq;
	s->depth = depth;
	s->msg = msg;
	s->last = h->last;
	s->sid = ntohl(h->sid);
	s->group = ntohs(h->group) ? ntohs(h->group) : 1;
	s->ctx = id->verbs;
	s->pd = ibv_alloc_pd(id->verbs);
	/* Sends: the loop sleeps in poll() until a receive completes (a fixed poll period would
	 * let a fast client empty the receive queue between two looks). */
	if (s->op == HWC_PROBE_SEND && (!(s->ch = ibv_create_comp_channel(id->verbs)) ||
					fd_nonblock(s->ch->fd) < 0)) {
		snprintf(err, errlen, "completion channel: %s", strerror(errno));
		return -EIO;
	}
	s->cq = s->pd ? ibv_create_cq(id->verbs, (int)(nq * depth * 2 + 16), NULL, s->ch, 0)
		      : NULL;
	if (s->cq && s->ch && ibv_req_notify_cq(s->cq, 0)) {
		snprintf(err, errlen, "ibv_req_notify_cq: %s", strerror(errno));
		return -EIO;
	}
	if (!s->cq || posix_memalign(&s->buf, 4096, nq * msg)) {
		s->buf = NULL;
		snprintf(err, errlen, "PD/CQ/buffer of %llu bytes: %s",
			 (unsigned long long)(nq * msg), strerror(errno));
		return -ENOMEM;
	}
	memset(s->buf, 0, nq * msg);
	if (s->op == HWC_PROBE_READ)
		for (unsigned i = 0; i < nq; i++)
			pr_pattern_fill((char *)s->buf + (size_t)i * msg, msg,
					HWC_PROBE_READ * 1000u + i);
	s->mr = ibv_reg_mr(s->pd, s->buf, nq * msg,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr) {
		snprintf(err, errlen, "ibv_reg_mr: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* One QP of a session: created, receives posted (send), accepted with the buffer and the
 * server's device and port in the welcome. */
static int session_qp(struct session *s, unsigned qi, struct rdma_cm_id *id, char *err,
		      size_t errlen)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 1, .max_recv_wr = s->depth * 2, .max_send_sge = 1,
			.max_recv_sge = 1},
	};
	if (rdma_create_qp(id, s->pd, &qa)) {
		snprintf(err, errlen, "rdma_create_qp: %s", strerror(errno));
		return -EIO;
	}
	s->c[qi].id = id;
	if (s->op == HWC_PROBE_SEND)
		for (unsigned k = 0; k < s->depth * 2; k++)
			if (post_srecv(s, qi) < 0) {
				snprintf(err, errlen, "ibv_post_recv failed");
				return -EIO;
			}
	struct welcome w = {.magic = htonl(HELLO_MAGIC), .rkey = htonl(s->mr->rkey),
			    .addr = htobe64((uintptr_t)((char *)s->buf + qi * s->msg)),
			    .port = htonl(id->port_num)};
	snprintf(w.dev, sizeof(w.dev), "%s", ibv_get_device_name(id->verbs->device));
	struct rdma_conn_param cp = {.private_data = &w, .private_data_len = sizeof(w),
				     .responder_resources = 16, .initiator_depth = 16,
				     .retry_count = 7, .rnr_retry_count = 7};
	if (rdma_accept(id, &cp)) {
		snprintf(err, errlen, "rdma_accept: %s", strerror(errno));
		return -EIO;
	}
	s->accepted++;
	struct ibv_qp_attr qa2 = {.min_rnr_timer = MIN_RNR_TIMER};
	if (s->op == HWC_PROBE_SEND && ibv_modify_qp(id->qp, &qa2, IBV_QP_MIN_RNR_TIMER)) {
		snprintf(err, errlen, "setting the RNR timer of QP %u: %s", qi, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int server_poll_recv(struct session *s)
{
	struct ibv_wc wc[32];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	unsigned nev = 0;
	while (s->ch && ibv_get_cq_event(s->ch, &ev_cq, &ev_ctx) == 0)
		nev++;
	if (nev) { /* re-armed before the CQ is read, so no completion goes unannounced */
		ibv_ack_cq_events(s->cq, nev);
		ibv_req_notify_cq(s->cq, 0);
	}
	int n = ibv_poll_cq(s->cq, 32, wc);
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			continue; /* flushed when the client disconnects */
		unsigned qi = (unsigned)wc[i].wr_id;
		s->received++;
		if (wc[i].byte_len != s->msg)
			s->bad_len = true;
		double now = pr_now();
		if (!s->t_first)
			s->t_first = now;
		s->t_last = now;
		if (qi < s->nqps && s->c[qi].id && !s->c[qi].gone)
			post_srecv(s, qi);
	}
	return n;
}

/* The session ended: what the server can say about it. */
static void session_result(struct hwc_env *e, struct hwc_facts *f, const struct hwc_probe_opts *o,
			   struct session *s, struct hwc_probe_facts *pf)
{
	struct hwc_arena *a = f->arena;
	if (!s->c[0].id)
		return; /* set-up failed: already reported */
	struct hwc_probe_result *r = HWC_VEC_PUSH(a, &pf->results);
	if (!r)
		return;
	struct pr_target t;
	pr_target_init(e, a, ibv_get_device_name(s->ctx->device), s->c[0].id->port_num, &t);
	struct hwc_probe_opts so = *o;
	so.msg_bytes = s->msg;
	so.qps = s->nqps;
	so.depth = s->depth;
	so.peer = NULL;
	so.together = s->group;
	pr_result_init(a, r, &t, &so, s->op, "server");
	char host[64] = "?";
	struct sockaddr *sa = rdma_get_peer_addr(s->c[0].id);
	if (sa)
		getnameinfo(sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							  : sizeof(struct sockaddr_in),
			    host, sizeof(host), NULL, 0, NI_NUMERICHOST);
	HWC_SET(r->peer, hwc_arena_strdup(a, host));
	const char *one = "one-sided at this end: the client measures the rate";
	HWC_FAIL(r->gbps, HWC_ST_UNSUPPORTED, 0, one);
	HWC_FAIL(r->msgs_per_s, HWC_ST_UNSUPPORTED, 0, one);
	HWC_FAIL(r->duration_s, HWC_ST_UNSUPPORTED, 0, one);
	HWC_FAIL(r->stopped, HWC_ST_UNSUPPORTED, 0, one);
	if (s->op == HWC_PROBE_SEND)
		HWC_SET(r->messages, (int64_t)s->received);
	else
		HWC_FAIL(r->messages, HWC_ST_UNSUPPORTED, 0, one);
	bool ok = true;
	if (s->op == HWC_PROBE_READ) {
		HWC_FAIL(r->data_ok, HWC_ST_UNSUPPORTED, 0, "a read is checked by the client");
		r->data_check.v = "by the client";
	} else {
		for (unsigned i = 0; i < s->nqps; i++)
			ok = ok && pr_pattern_check((char *)s->buf + (size_t)i * s->msg, s->msg,
						    s->op * 1000u + i);
		if (s->op == HWC_PROBE_SEND)
			ok = ok && !s->bad_len && s->received > 0;
		HWC_SET(r->data_ok, ok);
		r->data_check.v = s->op == HWC_PROBE_SEND
					  ? "each QP's receive buffer compared with the pattern; every "
					    "completion carried a full message"
					  : "each QP's buffer compared with the pattern after the client "
					    "disconnected";
	}
	r->data_check.m = (struct hwc_fmeta){.st = HWC_ST_OK};
	HWC_FAIL(r->port_gbps, HWC_ST_ABSENT, 0, one);
	HWC_FAIL(r->pcie_gbps, HWC_ST_ABSENT, 0, one);
	HWC_FAIL(r->ceiling_detail, HWC_ST_ABSENT, 0, one);
	if (!ok)
		pr_result_fail(a, r, "failed", "%s from %s: the data that arrived differs from what "
			       "was sent", pr_op_name(s->op), host);
	hwc_probe_explain(a, r);
}

/* The listening id on every address at o->cm_port: 0, or -1 with err saying why. */
static int server_listen(struct rdma_event_channel *ec, const struct hwc_probe_opts *o,
			 struct rdma_cm_id **lid, char *err, size_t errlen)
{
	if (rdma_create_id(ec, lid, NULL, RDMA_PS_TCP)) {
		snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)o->cm_port),
				   .sin6_addr = IN6ADDR_ANY_INIT};
	if (rdma_bind_addr(*lid, (struct sockaddr *)&any)) {
		/* rdma_cm says EADDRNOTAVAIL for a wildcard port already taken */
		int en = errno;
		snprintf(err, errlen, "cannot listen on RDMA port %u: %s", o->cm_port,
			 en == EADDRINUSE || en == EADDRNOTAVAIL
				 ? "the port is in use (another 'hwcheck probe --server'?)"
				 : strerror(en));
		return -1;
	}
	if (rdma_listen(*lid, 8)) {
		snprintf(err, errlen, "rdma_listen on port %u: %s", o->cm_port, strerror(errno));
		return -1;
	}
	return 0;
}

/* The server's loop: its inputs, the sessions it serves (several at once for a two-host
 * --all-ports client), and how it stands. */
#define MAX_SESS 16

struct server {
	struct hwc_env *e;
	struct hwc_facts *f;
	const struct hwc_probe_opts *o;
	struct hwc_probe_facts *pf;
	struct session *ss;     /* MAX_SESS */
	char err[256];
	int rc;
	bool seen, last_done, end_seen;
	double t_last_event, wait_first;
};

static bool any_active(const struct server *sv)
{
	for (unsigned i = 0; i < MAX_SESS; i++)
		if (sv->ss[i].active)
			return true;
	return false;
}

/* The session a QP's hello belongs to: a free one for its first QP, else the one with its id. */
static struct session *session_for(struct server *sv, const struct hello *h)
{
	for (unsigned i = 0; i < MAX_SESS; i++) {
		struct session *s = &sv->ss[i];
		if (h->qp_index == 0 && !s->active)
			return s;
		if (h->qp_index > 0 && s->active && s->sid == ntohl(h->sid))
			return s;
	}
	return NULL;
}

/* A connect request: the QP joins its session (set up on the first QP), or the client says its
 * run is over (op 0); 0, or -errno with err saying why it was refused. */
static int server_accept(struct server *sv, struct rdma_cm_event *ev, char *err, size_t errlen)
{
	struct hello h;
	struct rdma_cm_id *id = ev->id;
	int rc = hello_parse(ev, &h, err, errlen);
	if (rc < 0)
		return rc;
	if (h.op == 0) {
		sv->end_seen = true;
		snprintf(err, errlen, "%s", ""); /* refused without an error: nothing to serve */
		return -ECANCELED;
	}
	struct session *s = session_for(sv, &h);
	if (!s) {
		snprintf(err, errlen, h.qp_index ? "connect request for QP %u of an unknown session"
						 : "more than %u sessions at once (QP %u)",
			 h.qp_index ? h.qp_index : MAX_SESS, h.qp_index);
		return -EPROTO;
	}
	if (h.qp_index == 0) {
		rc = session_setup(s, &h, id, err, errlen);
		if (rc < 0)
			return rc;
	} else if (h.qp_index >= s->nqps || s->c[h.qp_index].id || id->verbs != s->ctx) {
		snprintf(err, errlen, "connect request for QP %u out of order", h.qp_index);
		return -EPROTO;
	}
	return session_qp(s, h.qp_index, id, err, errlen);
}

/* A client asks to connect one QP of a session: accept it, or reject it and say why. */
static void server_connect_request(struct server *sv, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	sv->seen = true;
	int rc = server_accept(sv, ev, sv->err, sizeof(sv->err));
	if (rc == 0) {
		rdma_ack_cm_event(ev);
		return;
	}
	rdma_reject(id, NULL, 0);
	if (sv->err[0])
		hwc_facts_error(sv->f, "probe", "server", "%s", sv->err);
	sv->err[0] = '\0';
	bool mine = false;
	for (unsigned k = 0; k < MAX_SESS; k++)
		for (unsigned i = 0; i < sv->ss[k].nqps && i < 64; i++)
			mine = mine || sv->ss[k].c[i].id == id;
	rdma_ack_cm_event(ev);
	if (!mine)
		rdma_destroy_id(id);
}

/* A CM event of an established QP; once every QP of its session has closed, its result. */
static void session_event(struct server *sv, struct session *s, struct rdma_cm_id *id,
			  enum rdma_cm_event_type t)
{
	for (unsigned i = 0; i < s->nqps && i < 64; i++) {
		if (s->c[i].id != id)
			continue;
		if (t == RDMA_CM_EVENT_ESTABLISHED) {
			s->c[i].connected = true;
		} else if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			s->c[i].gone = true;
			rdma_disconnect(id);
			s->closed++;
		}
	}
	if (s->active && s->closed == s->nqps && s->accepted == s->nqps) {
		if (s->op == HWC_PROBE_SEND)
			server_poll_recv(s);
		session_result(sv->e, sv->f, sv->o, s, sv->pf);
		sv->last_done = sv->last_done || s->last;
		session_free(s);
		sv->rc = 0;
	}
}

static void server_event(struct server *sv, struct rdma_cm_event *ev)
{
	sv->t_last_event = pr_now();
	enum rdma_cm_event_type t = ev->event;
	struct rdma_cm_id *id = ev->id;
	if (t == RDMA_CM_EVENT_CONNECT_REQUEST) {
		server_connect_request(sv, ev);
		return;
	}
	rdma_ack_cm_event(ev);
	for (unsigned k = 0; k < MAX_SESS; k++)
		if (sv->ss[k].active)
			session_event(sv, &sv->ss[k], id, t);
}

/* Whether a session still receives sends (then the client is not silent). */
static bool receiving(const struct server *sv)
{
	for (unsigned i = 0; i < MAX_SESS; i++) {
		const struct session *s = &sv->ss[i];
		if (s->active && s->op == HWC_PROBE_SEND && s->t_last && pr_now() - s->t_last < 1)
			return true;
	}
	return false;
}

/* Nothing happened for a while: true when the server gives up (no client came, or the client
 * went silent), with err set or the sessions' results failed. */
static bool server_idle(struct server *sv)
{
	const struct hwc_probe_opts *o = sv->o;
	double idle = pr_now() - sv->t_last_event;
	if (!sv->seen && idle > sv->wait_first) {
		snprintf(sv->err, sizeof(sv->err), "no client connected to port %u within %.0f s",
			 o->cm_port, sv->wait_first);
		return true;
	}
	if (!sv->seen || idle <= o->timeout_s || receiving(sv))
		return false;
	bool active = any_active(sv);
	snprintf(sv->err, sizeof(sv->err), "the client went silent for %.0f s%s", o->timeout_s,
		 active ? " in the middle of a run" : " before its last run");
	for (unsigned i = 0; active && i < MAX_SESS; i++) {
		struct session *s = &sv->ss[i];
		if (!s->active)
			continue;
		session_result(sv->e, sv->f, o, s, sv->pf);
		struct hwc_probe_result *r = &sv->pf->results.items[sv->pf->results.n - 1];
		pr_result_fail(sv->f->arena, r, "failed", "%s", sv->err);
		session_free(s);
	}
	if (active) {
		hwc_facts_error(sv->f, "probe", "server", "%s", sv->err);
		sv->err[0] = '\0';
		sv->rc = -EIO;
	}
	return true;
}

/* Polls the receive queues of the sessions that take sends. */
static void poll_sends(struct server *sv)
{
	for (unsigned i = 0; i < MAX_SESS; i++) {
		struct session *s = &sv->ss[i];
		if (!s->active || s->op != HWC_PROBE_SEND)
			continue;
		while (server_poll_recv(s) > 0)
			sv->t_last_event = pr_now();
	}
}

/* What the loop waits on: the CM channel (p[0]), then each send session's completions. */
static nfds_t wait_fds(const struct server *sv, int cm_fd, struct pollfd *p)
{
	nfds_t n = 0;
	p[n++] = (struct pollfd){.fd = cm_fd, .events = POLLIN};
	for (unsigned i = 0; i < MAX_SESS; i++)
		if (sv->ss[i].active && sv->ss[i].ch)
			p[n++] = (struct pollfd){.fd = sv->ss[i].ch->fd, .events = POLLIN};
	return n;
}

/* Serves sessions until the client's last op (or its END) and none is left, or gives up. */
static void server_loop(struct server *sv, struct rdma_event_channel *ec)
{
	/* The first client may take a while to be started; after that, silence means it is gone. */
	sv->wait_first = sv->o->timeout_s * 6;
	sv->t_last_event = pr_now();
	unsigned left = hwc_env_time_left_ms(sv->e); /* --timeout bounds the wait too */
	if (left != UINT32_MAX && left / 1000.0 < sv->wait_first)
		sv->wait_first = left / 1000.0;
	while (!((sv->last_done || sv->end_seen) && !any_active(sv))) {
		struct pollfd p[MAX_SESS + 1];
		int pr = poll(p, wait_fds(sv, ec->fd, p), 100);
		poll_sends(sv);
		if (pr > 0 && (p[0].revents & POLLIN)) {
			struct rdma_cm_event *ev;
			if (rdma_get_cm_event(ec, &ev) == 0)
				server_event(sv, ev);
			continue;
		}
		if (pr > 0)
			continue; /* receives completed */
		if (server_idle(sv))
			return;
	}
	if (sv->end_seen && !sv->last_done && sv->pf->results.n == 0)
		snprintf(sv->err, sizeof(sv->err), "the client ended its run before any session "
			 "(see the client's report)");
}

/* The server could not serve: a failed result that says why. */
static void server_failed(struct server *sv)
{
	struct hwc_arena *a = sv->f->arena;
	struct hwc_probe_result *r = HWC_VEC_PUSH(a, &sv->pf->results);
	if (r) {
		struct pr_target t0 = {.dev = "?", .numa_node = -1};
		pr_result_init(a, r, &t0, sv->o, HWC_PROBE_WRITE, "server");
		HWC_FAIL(r->rdma_device, HWC_ST_ABSENT, 0, "no connection");
		HWC_FAIL(r->port, HWC_ST_ABSENT, 0, "no connection");
		HWC_FAIL(r->op, HWC_ST_ABSENT, 0, "no connection");
		HWC_FAIL(r->bdf, HWC_ST_ABSENT, 0, "no connection");
		HWC_FAIL(r->netdev, HWC_ST_ABSENT, 0, "no connection");
		HWC_FAIL(r->direction, HWC_ST_ABSENT, 0, "no connection");
		pr_result_fail(a, r, "failed", "%s", sv->err);
		hwc_probe_explain(a, r);
	}
	hwc_facts_error(sv->f, "probe", "server", "%s", sv->err);
	sv->rc = -EIO;
}

int pr_cm_server(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf)
{
	struct server sv = {.e = e, .f = f, .o = o, .pf = pf, .rc = -EIO};
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *lid = NULL;
	sv.ss = calloc(MAX_SESS, sizeof(*sv.ss));
	if (!ec || !sv.ss)
		snprintf(sv.err, sizeof(sv.err), "rdma_create_event_channel: %s (is rdma_ucm loaded?)",
			 strerror(errno));
	else if (server_listen(ec, o, &lid, sv.err, sizeof(sv.err)) == 0)
		server_loop(&sv, ec);
	if (sv.err[0])
		server_failed(&sv);
	for (unsigned i = 0; sv.ss && i < MAX_SESS; i++)
		session_free(&sv.ss[i]);
	free(sv.ss);
	if (lid)
		rdma_destroy_id(lid);
	if (ec)
		rdma_destroy_event_channel(ec);
	return sv.rc;
}

/* Tells the server at peer that this client's run is over (two-host --all-ports): a connect
 * request with op 0, which the server refuses after taking note. */
void pr_cm_end(const struct hwc_probe_opts *o, const char *peer)
{
	struct hwc_probe_opts oo = *o;
	oo.peer = peer;
	oo.qps = 1;
	oo.depth = 1;
	oo.msg_bytes = 64;
	struct addrinfo *ai = NULL, *src = NULL;
	const char *bad;
	if (client_resolve(&oo, &ai, &src, &bad) == 0) {
		struct client cl = {0};
		struct pr_qp q = {0};
		char err[256];
		client_connect(&cl, &oo, 0, true, ai, src, &q, err, sizeof(err));
		client_close(&cl);
	}
	if (ai)
		freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
}

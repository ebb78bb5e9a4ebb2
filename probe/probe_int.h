/* SPDX-License-Identifier: MIT */
/* Inside probe/: the measurement engine shared by loopback and two-host runs, and the sampler. */
#ifndef HWC_PROBE_INT_H
#define HWC_PROBE_INT_H

#include <infiniband/verbs.h>
#include <sched.h>
#include <stdint.h>

#include "probe/probe.h"

/* One requester QP and where its messages go. */
struct pr_qp {
	struct ibv_qp *qp;
	uint64_t posted, done;   /* work requests posted / known complete */
	bool last_signaled;      /* the last posted WR asks for a completion */
	void *lbuf;              /* local buffer: source (write, send) or destination (read) */
	uint32_t lkey;
	uint64_t raddr;          /* remote buffer (write, read) */
	uint32_t rkey;
};

/* A receive queue the engine keeps full (loopback send: the responder's side). */
struct pr_rq {
	struct ibv_qp *qp;
	void *buf;
	uint32_t lkey;
	uint64_t received;
	bool bad_len;            /* a completion carried fewer bytes than a message */
};

/* Called from the engine loop every ~250 ms (sampling, progress). */
typedef void (*pr_tick_fn)(void *ctx, double elapsed_s, double gbps_so_far);

struct pr_run {
	/* in */
	unsigned op;             /* one enum hwc_probe_op bit */
	size_t msg_bytes;
	unsigned depth, cq_mod;
	struct pr_qp *q;
	unsigned nq;
	struct ibv_cq *scq;      /* the requester's send CQ */
	struct pr_rq *rq;        /* loopback send only, else NULL */
	struct ibv_cq *rcq;
	double warmup_s, max_s;
	bool fixed;              /* run the whole max_s (ports measured together overlap) */
	pr_tick_fn tick;
	void *tick_ctx;
	/* Optional extra check each turn (two-host: the CM event channel); returns <0 to stop with
	 * the message in err. */
	int (*poll_extra)(void *ctx, char *err, size_t errlen);
	void *extra_ctx;
	/* out */
	double measured_s;
	uint64_t messages;       /* completed inside the measured interval */
	bool stable;             /* stopped early: the last slices agreed */
	char err[256];           /* non-empty when the run failed */
};

/* The steady-state stop shared by the RDMA engine and the TCP probe: the rate in 100 ms slices;
 * steady once the last five agree within 2% after at least 0.5 s. */
#define PR_STEADY_SLICES 5
struct pr_steady {
	double rates[PR_STEADY_SLICES];
	unsigned n;
	double t0, slice_t;
	uint64_t slice_c;
};
void pr_steady_start(struct pr_steady *s, double now, uint64_t count);
/* Feeds the running count; true once the run is steady (then it may stop). */
bool pr_steady_update(struct pr_steady *s, double now, uint64_t count);

/* Posts, polls and times. Returns 0, or -EIO with run->err set. */
int pr_engine(struct pr_run *run);

/* Fill and compare the deterministic pattern of (op, qp). */
void pr_pattern_fill(void *buf, size_t len, uint64_t seed);
bool pr_pattern_check(const void *buf, size_t len, uint64_t seed);

double pr_now(void);

/* A side's memory region, buffer, CQ and PD, released in the reverse order of their set-up; any
 * may be NULL (set-up stopped early). */
void pr_verbs_release(struct ibv_mr *mr, void *buf, struct ibv_cq *cq, struct ibv_pd *pd);

/* Where the run happens and what it found; shared by loopback.c, cm.c and sample.c. */
struct pr_target {
	const char *dev;         /* RDMA device name */
	unsigned port;
	const char *bdf;         /* NULL for a non-PCI device (rxe) */
	const char *netdev;
	int numa_node;           /* -1 unknown */
};

/* Sampler of temperature, hop link states and counters while a run goes. */
struct pr_sampler;
struct pr_sampler *pr_sampler_start(struct hwc_env *e, struct hwc_arena *a,
				    const struct pr_target *t);
void pr_sampler_tick(struct pr_sampler *s);
/* Writes temp/hops/counters into r. */
void pr_sampler_finish(struct pr_sampler *s, struct hwc_probe_result *r);

/* The engine's tick for one run (a pr_tick_fn, ctx a struct pr_tick_ctx): ticks the sampler and
 * reports "<label>: <elapsed>, <Gb/s so far>" through o->progress when one is set. */
struct pr_tick_ctx {
	const struct hwc_probe_opts *o;
	struct pr_sampler *s;
	const char *label;
	char line[160];
};
void pr_tick(void *ctx, double elapsed_s, double gbps_so_far);

/* Loopback on one device port, one op. Fills r (status, numbers, data_ok). */
void pr_loopback(const struct hwc_probe_opts *o, const struct pr_target *t, unsigned op,
		 struct ibv_device *dev, struct hwc_arena *a, struct hwc_probe_result *r,
		 pr_tick_fn tick, void *tick_ctx);

/* TCP between two hosts (probe/tcp.c): results appended to pf->results, one per direction. */
int pr_tcp_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		  struct hwc_probe_facts *pf);
int pr_tcp_server(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		  struct hwc_probe_facts *pf);
/* The PCIe half of the ceiling: facts.pci path_bottleneck of t->bdf into pcie_gbps, ceiling_bdf
 * and ceiling_detail. */
void pr_ceiling_pcie(struct hwc_facts *f, const struct pr_target *t, struct hwc_probe_result *r);
/* Target facts of a netdev (TCP): bdf behind it, numa node. dev is the netdev name. */
void pr_target_netdev(struct hwc_env *e, struct hwc_arena *a, const char *netdev,
		      struct pr_target *t);
/* --all-ports, loopback: every matched ACTIVE port at once, one thread per port, for each op;
 * the results (mode "loopback", concurrent = the number of ports) follow the ports' own. */
struct pr_port {
	struct pr_target t;
	struct ibv_device *dev;
	struct ibv_port_attr pa;
};
void pr_all_ports(struct hwc_env *e, struct hwc_facts *f, struct hwc_probe_facts *pf,
		  const struct hwc_probe_opts *o, const struct pr_port *ports, size_t n);
/* The shared-link ceiling of the results [first, pf->results.n) that ran together, from
 * facts.pci (pci/shared.c), and what limited them next to the same port alone. */
void pr_explain_together(struct hwc_facts *f, struct hwc_probe_facts *pf, size_t first);

/* Two-host: results appended to pf->results (one per op). Returns 0 or -errno when nothing ran. */
int pr_cm_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf);
int pr_cm_server(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf);

/* The ceiling's inputs: the PCIe path from facts.pci, the port rate from verbs or facts.mlx. */
void pr_ceiling_inputs(struct hwc_facts *f, const struct pr_target *t,
		       const struct ibv_port_attr *pa, struct hwc_probe_result *r);

/* The TCP-only numbers of r (streams, bytes, retransmits, CPU time) with one status and reason:
 * unsupported for an RDMA result, absent until a TCP run measures them. */
void pr_result_tcp_unknown(struct hwc_probe_result *r, enum hwc_status st, const char *why);
/* Target facts from sysfs (bdf, netdev, numa) for a device/port. */
void pr_target_init(struct hwc_env *e, struct hwc_arena *a, const char *dev, unsigned port,
		    struct pr_target *t);
/* Common result fields from the target and options. */
void pr_result_init(struct hwc_arena *a, struct hwc_probe_result *r, const struct pr_target *t,
		    const struct hwc_probe_opts *o, unsigned op, const char *mode);
void pr_result_fail(struct hwc_arena *a, struct hwc_probe_result *r, const char *status,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Copies every string of r into a (a result filled in a thread's own arena). */
void pr_result_persist(struct hwc_arena *a, struct hwc_probe_result *r);
/* Fills the rate numbers from a finished engine run. */
void pr_result_rates(struct hwc_probe_result *r, const struct pr_run *run);
const char *pr_op_name(unsigned op);
/* Choose a GID index on a RoCE port (RoCE v2, IPv4-mapped first). -1 when none. */
int pr_pick_gid(struct ibv_context *ctx, unsigned port, union ibv_gid *gid);

/* The environment (core/env) is not thread-safe: threads of a two-host --all-ports run (client
 * pairs, server sessions) read it under this lock. Recursive; pr_target_init, pr_target_netdev,
 * pr_bind, pr_ceiling_inputs and the sampler take it themselves. */
void pr_env_lock(void);
void pr_env_unlock(void);

/* One pair of ports of a two-host --all-ports run, as its alone run found it. */
struct pr_pair {
	const char *peer;   /* the server's address, as given */
	const char *local;  /* this host's port of the pair: "rxec/1", "vc" */
	const char *remote; /* the server's, as it named it (peer_port); NULL when unknown */
	const char *failed; /* why the alone run failed; NULL when it ran */
};
/* NULL when every pair ran alone on a port of its own at both ends; else why the pairs may not
 * run together, naming the two that collide (pure, for tests). */
const char *pr_pairs_check(struct hwc_arena *a, const struct pr_pair *p, size_t n);

/* --all-ports with --client A,B,...: each pair of ports alone, then all together (probe/pairs.c).
 * Returns 0 (failures are results). */
int pr_pairs_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		    struct hwc_probe_facts *pf);
/* Tells the server at peer that the client's run is over (two-host --all-ports). */
void pr_cm_end(const struct hwc_probe_opts *o, const char *peer);
void pr_tcp_end(const struct hwc_probe_opts *o, const char *peer);

/* Pins the calling thread to the NUMA node's CPUs; restore with pr_unbind(). */
struct pr_binding {
	bool bound;
	cpu_set_t old;
};
void pr_bind(struct hwc_env *e, struct hwc_arena *a, int node, struct pr_binding *b,
	     struct hwc_probe_result *r);
void pr_unbind(struct pr_binding *b);

#endif

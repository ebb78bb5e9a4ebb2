/* SPDX-License-Identifier: MIT */
/* RDMA-verbs bandwidth probes and the ceiling that explains them. */
#ifndef HWC_PROBE_H
#define HWC_PROBE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/env.h"
#include "core/facts.h"

enum hwc_probe_op {
	HWC_PROBE_WRITE = 1u << 0,
	HWC_PROBE_READ = 1u << 1,
	HWC_PROBE_SEND = 1u << 2,
};

enum hwc_probe_mode {
	HWC_PROBE_LOOPBACK = 0, /* two contexts on the same port, connected in memory */
	HWC_PROBE_SERVER,       /* rdma_cm listener: serves one client's run, then returns */
	HWC_PROBE_CLIENT,       /* rdma_cm client of a --server on HOST */
};

/* What was asked for. Defaults come from hwc_probe_opts_init(). */
struct hwc_probe_opts {
	unsigned ops;          /* enum hwc_probe_op bits */
	enum hwc_probe_mode mode;
	size_t msg_bytes;      /* 65536 */
	unsigned qps;          /* 1 */
	unsigned depth;        /* 128 outstanding work requests per QP */
	double duration_s;     /* 2.0 measured seconds per op (after the warm-up) */
	double warmup_s;       /* 0.25 */
	const char *peer;      /* client: host name or address of the server */
	const char *source;    /* client: local address to connect from; NULL = routing decides */
	unsigned cm_port;      /* rdma_cm port, 18515 + 1000 */
	int gid_index;         /* -1: choose (RoCE v2, IPv4-mapped first, then any) */
	const char *device;    /* RDMA device to probe; NULL = every device (-d filters too) */
	double timeout_s;      /* two-host: connection set-up and peer silence, 10 */
	bool tcp;              /* --tcp: TCP streams between two hosts instead of RDMA */
	unsigned streams;      /* TCP streams per direction; 0 = from the port rate and local cores */
	bool all_ports;        /* also run every port at once (--all-ports) */
	/* Set by the two-host --all-ports driver (probe/pairs.c), not by an option: */
	unsigned together;     /* sessions of this client running at once; 0 or 1: alone */
	bool more;             /* more sessions of this client's run follow this one */
	/* Called about every 250 ms while a measurement runs, when set (cli/ prints it on a TTY). */
	void (*progress)(void *ctx, const char *line);
	void *progress_ctx;
};

void hwc_probe_opts_init(struct hwc_probe_opts *o);
/* "write,read,send" or "all" -> bits; -EINVAL on anything else. */
int hwc_probe_parse_ops(const char *s, unsigned *ops);

/* What a hop of the PCIe path did while the probe ran. */
struct hwc_probe_hop {
	const char *bdf;
	struct hwc_ff64 speed_gts_idle, speed_gts_min, speed_gts_max, max_speed_gts;
	struct hwc_fi64 width_idle, width_min, width_max, max_width; /* idle: before the run */
	struct hwc_fbool trained_down; /* below its maximum at any sample under load */
};

/* One TCP stream of a run. */
struct hwc_probe_stream {
	struct hwc_ff64 gbps;
	struct hwc_fi64 bytes, retransmits;
	struct hwc_ff64 cpu_busy;
};

/* A counter's change over the run (end - start). */
struct hwc_probe_counter {
	const char *name;   /* "aer_correctable@0000:3b:00.0", "rx_dropped@eth2", "hw:out_of_buffer" */
	struct hwc_fi64 delta;
};

struct hwc_probe_result {
	struct hwc_fstr status;   /* "ok", "failed", "skipped" */
	struct hwc_fstr reason;   /* why not ok; null when ok */
	struct hwc_fstr rdma_device;
	struct hwc_fi64 port;
	struct hwc_fstr bdf;
	struct hwc_fstr netdev;
	struct hwc_fstr op;        /* write, read, send */
	struct hwc_fstr mode;      /* loopback, client, server */
	struct hwc_fstr direction; /* "loopback"; client: "to_peer" / "from_peer" */
	struct hwc_fstr peer;
	struct hwc_fstr peer_port; /* two-host: the server's port that answered ("rxes/1", "vs") */
	struct hwc_fi64 msg_bytes, qps, depth, gid_index, mtu_bytes;
	struct hwc_ff64 warmup_s;
	struct hwc_ff64 duration_s; /* measured interval */
	struct hwc_fi64 messages;   /* completed in the measured interval */
	struct hwc_fstr stopped;    /* "stable" (the last slices agreed) or "duration" */
	struct hwc_ff64 gbps;       /* payload bits / duration / 1e9 */
	struct hwc_ff64 msgs_per_s;
	struct hwc_fbool data_ok;   /* the destination holds the source's pattern */
	struct hwc_fstr data_check; /* what was compared */
	struct hwc_ff64 port_gbps;  /* data rate of the port (active speed x width) */
	struct hwc_ff64 pcie_gbps;  /* effective bandwidth of the PCIe path (pci.path_bottleneck) */
	struct hwc_ff64 ceiling_gbps;
	struct hwc_fstr ceiling_by; /* "pcie" or "port" */
	struct hwc_fstr ceiling_bdf;
	struct hwc_fstr ceiling_detail; /* "PCIe 8 GT/s x8 at 0000:00:03.0" / "port 4X HDR" */
	struct hwc_ff64 ratio;      /* gbps / ceiling_gbps */
	struct hwc_fstr limited_by; /* "pcie", "port", "shared_link", "other" (see host findings) */
	struct hwc_fi64 concurrent; /* ports measured at the same time: 1 alone */
	struct hwc_ff64 alone_gbps; /* together: what the same port and op did alone */
	struct hwc_ff64 shared_gbps;  /* together: this port's share of the slowest shared link */
	struct hwc_fstr shared_bdf;   /* that link, named by the port above it */
	struct hwc_fi64 shared_ports; /* how many of the ports running together cross it */
	struct hwc_fstr finding;    /* one sentence a person reads */
	struct hwc_fi64 temp_start_mdegc, temp_max_mdegc;
	struct hwc_fi64 numa_node;
	struct hwc_fstr cpus;       /* the cpulist the polling thread ran on */
	HWC_VEC(struct hwc_probe_hop) hops;
	HWC_VEC(struct hwc_probe_counter) counters;
	/* TCP (op "tcp") only; null with a reason for RDMA */
	struct hwc_fi64 streams;       /* TCP connections that carried the payload */
	struct hwc_fi64 bytes;         /* payload bytes in the measured interval (server: whole run) */
	struct hwc_fi64 retransmits;   /* segments the sender retransmitted (TCP_INFO), whole run */
	struct hwc_ff64 cpu_user_s, cpu_sys_s; /* getrusage of this process, measured interval */
	struct hwc_ff64 cpu_busy;      /* busiest stream thread here: share of one core */
	struct hwc_ff64 peer_cpu_busy; /* the same at the peer (its own report, whole run) */
	HWC_VEC(struct hwc_probe_stream) per_stream;
};

struct hwc_probe_facts {
	bool requested;          /* false: the section is written as {} */
	struct hwc_fstr status;  /* "ok", "partial" (some failed), "failed", "skipped" */
	struct hwc_fstr reason;
	HWC_VEC(struct hwc_probe_result) results;
};

/* Runs the probes asked for in o->probe (nothing when NULL). Never prints; problems go to
 * hwc_facts_error() and into the results' status. Reads the pci and mlx sections for the
 * ceiling, so it runs after them. */
int hwc_probe_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_probe_to_json(const struct hwc_facts *f);
int hwc_probe_from_json(const json_t *j, struct hwc_facts *f);
/* The field table of facts.probe (core/json.h). */
struct hwc_jtable;
extern const struct hwc_jtable hwc_probe_table;

/* Port data rate in Gb/s from ibv_port_attr active_speed / active_width codes (0 if unknown). */
double hwc_probe_port_gbps(unsigned active_speed, unsigned active_width);
/* TCP streams to run when --probe-streams is not given: one per 25 Gb/s of the port (a core
 * moves about that much TCP), at least 1, at most the card's local cores and 64; 4 when the port
 * rate is unknown (port_gbps <= 0). */
unsigned hwc_probe_tcp_default_streams(double port_gbps, unsigned local_cpus);
/* Picks the ceiling and says what limited the measurement (pure, for tests). */
void hwc_probe_explain(struct hwc_arena *a, struct hwc_probe_result *r);

#endif

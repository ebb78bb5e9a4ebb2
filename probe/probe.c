/* SPDX-License-Identifier: MIT */
/* The probe section: which probes run, the ceiling that explains them, and facts <-> JSON. */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "mlx/mlx.h"
#include "pci/pci.h"
#include "probe/probe_int.h"

static pthread_mutex_t env_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void pr_env_lock(void)
{
	pthread_mutex_lock(&env_mu);
}

void pr_env_unlock(void)
{
	pthread_mutex_unlock(&env_mu);
}

#define AT_CEILING 0.90 /* at or above this share of the ceiling, the ceiling is what limits */

void hwc_probe_opts_init(struct hwc_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ops = HWC_PROBE_WRITE | HWC_PROBE_READ | HWC_PROBE_SEND;
	o->mode = HWC_PROBE_LOOPBACK;
	o->msg_bytes = 65536; /* perftest's default for bandwidth tests */
	o->qps = 1;
	o->depth = 128;       /* perftest's default TX depth */
	o->duration_s = 2.0;
	o->warmup_s = 0.25;
	o->cm_port = 19515;
	o->gid_index = -1;
	o->timeout_s = 10.0;
}

int hwc_probe_parse_ops(const char *s, unsigned *ops)
{
	unsigned v = 0;
	while (s && *s) {
		size_t n = strcspn(s, ",");
		if (n == 5 && strncmp(s, "write", 5) == 0)
			v |= HWC_PROBE_WRITE;
		else if (n == 4 && strncmp(s, "read", 4) == 0)
			v |= HWC_PROBE_READ;
		else if (n == 4 && strncmp(s, "send", 4) == 0)
			v |= HWC_PROBE_SEND;
		else if (n == 3 && strncmp(s, "all", 3) == 0)
			v |= HWC_PROBE_WRITE | HWC_PROBE_READ | HWC_PROBE_SEND;
		else
			return -EINVAL;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!v)
		return -EINVAL;
	*ops = v;
	return 0;
}

const char *pr_op_name(unsigned op)
{
	return op == HWC_PROBE_WRITE ? "write" : op == HWC_PROBE_READ ? "read" : "send";
}

double hwc_probe_port_gbps(unsigned active_speed, unsigned active_width)
{
	/* data rate per lane after line coding (8b/10b up to QDR, 64b/66b from FDR) */
	double lane;
	switch (active_speed) {
	case 1: lane = 2.0; break;     /* SDR */
	case 2: lane = 4.0; break;     /* DDR */
	case 4: lane = 8.0; break;     /* QDR */
	case 8: lane = 10.0; break;    /* FDR10 */
	case 16: lane = 13.64; break;  /* FDR */
	case 32: lane = 25.0; break;   /* EDR */
	case 64: lane = 50.0; break;   /* HDR */
	case 128: lane = 100.0; break; /* NDR */
	default: return 0;
	}
	unsigned lanes;
	switch (active_width) {
	case 1: lanes = 1; break;
	case 2: lanes = 4; break;
	case 4: lanes = 8; break;
	case 8: lanes = 12; break;
	case 16: lanes = 2; break;
	default: return 0;
	}
	return lane * lanes;
}

unsigned hwc_probe_tcp_default_streams(double port_gbps, unsigned local_cpus)
{
	unsigned cap = local_cpus ? local_cpus : 1;
	cap = cap > 64 ? 64 : cap;
	unsigned n = port_gbps > 0 ? (unsigned)ceil(port_gbps / 25.0) : 4;
	n = n ? n : 1;
	return n < cap ? n : cap;
}

static const char *speed_name(unsigned s)
{
	switch (s) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	case 8: return "FDR10";
	case 16: return "FDR";
	case 32: return "EDR";
	case 64: return "HDR";
	case 128: return "NDR";
	default: return "?";
	}
}

static unsigned width_lanes(unsigned w)
{
	return w == 1 ? 1 : w == 2 ? 4 : w == 4 ? 8 : w == 8 ? 12 : w == 16 ? 2 : 0;
}

static void set_str(struct hwc_arena *a, struct hwc_fstr *f, const char *s)
{
	const char *d = s ? hwc_arena_strdup(a, s) : NULL;
	if (d)
		HWC_SET(*f, d);
}

void pr_result_fail(struct hwc_arena *a, struct hwc_probe_result *r, const char *status,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *why = hwc_arena_vprintf(a, fmt, ap);
	va_end(ap);
	set_str(a, &r->status, status);
	if (why)
		HWC_SET(r->reason, why);
}

void pr_result_tcp_unknown(struct hwc_probe_result *r, enum hwc_status st, const char *why)
{
	struct hwc_fmeta *m[] = {&r->streams.m, &r->bytes.m, &r->retransmits.m, &r->cpu_user_s.m,
				 &r->cpu_sys_s.m, &r->cpu_busy.m, &r->peer_cpu_busy.m};
	hwc_fmeta_set_all(m, HWC_ARRAY_SIZE(m), st, why);
}

void pr_result_init(struct hwc_arena *a, struct hwc_probe_result *r, const struct pr_target *t,
		    const struct hwc_probe_opts *o, unsigned op, const char *mode)
{
	set_str(a, &r->status, "ok");
	HWC_FAIL(r->reason, HWC_ST_ABSENT, 0, "the probe ran");
	set_str(a, &r->rdma_device, t->dev);
	HWC_SET(r->port, t->port);
	if (t->bdf)
		set_str(a, &r->bdf, t->bdf);
	else
		HWC_FAIL(r->bdf, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s is not a PCI device (soft-RoCE?)", t->dev));
	if (t->netdev)
		set_str(a, &r->netdev, t->netdev);
	else
		HWC_FAIL(r->netdev, HWC_ST_ABSENT, 0, "no netdev behind GID 0 of the port");
	set_str(a, &r->op, pr_op_name(op));
	set_str(a, &r->mode, mode);
	if (strcmp(mode, "loopback") == 0)
		set_str(a, &r->direction, "loopback");
	else if (strcmp(mode, "client") == 0)
		set_str(a, &r->direction, op == HWC_PROBE_READ ? "from_peer" : "to_peer");
	else
		set_str(a, &r->direction, op == HWC_PROBE_READ ? "to_peer" : "from_peer");
	if (o->peer)
		set_str(a, &r->peer, o->peer);
	else
		HWC_FAIL(r->peer, HWC_ST_ABSENT, 0, "loopback: no peer");
	if (strcmp(mode, "client") == 0)
		HWC_FAIL(r->peer_port, HWC_ST_ABSENT, 0, "the server did not answer");
	else
		HWC_FAIL(r->peer_port, HWC_ST_UNSUPPORTED, 0,
			 strcmp(mode, "loopback") == 0 ? "loopback: no peer"
						       : "the client names no port of its own");
	HWC_SET(r->msg_bytes, (int64_t)o->msg_bytes);
	HWC_SET(r->qps, o->qps);
	HWC_SET(r->depth, o->depth);
	HWC_SET(r->warmup_s, o->warmup_s);
	HWC_FAIL(r->gid_index, HWC_ST_ABSENT, 0, "not chosen (not RoCE, or the run stopped before)");
	/* Every number below is written only once measured; until then it says why not. */
	struct hwc_fmeta *measured[] = {
		&r->mtu_bytes.m, &r->duration_s.m, &r->messages.m, &r->stopped.m, &r->gbps.m,
		&r->msgs_per_s.m, &r->data_ok.m, &r->data_check.m, &r->temp_start_mdegc.m,
		&r->temp_max_mdegc.m, &r->numa_node.m, &r->cpus.m,
	};
	hwc_fmeta_set_all(measured, HWC_ARRAY_SIZE(measured), HWC_ST_ABSENT,
			  "not measured: the run did not complete");
	pr_result_tcp_unknown(r, HWC_ST_UNSUPPORTED, "RDMA: no TCP streams");
	HWC_SET(r->concurrent, o->together > 1 ? o->together : 1);
	struct hwc_fmeta *shared[] = {&r->alone_gbps.m, &r->shared_gbps.m, &r->shared_bdf.m,
				      &r->shared_ports.m};
	hwc_fmeta_set_all(shared, HWC_ARRAY_SIZE(shared), HWC_ST_ABSENT,
			  "measured alone (--all-ports runs the ports together too)");
}

void pr_result_rates(struct hwc_probe_result *r, const struct pr_run *run)
{
	HWC_SET(r->duration_s, run->measured_s);
	HWC_SET(r->messages, (int64_t)run->messages);
	r->stopped.v = run->stable ? "stable" : "duration";
	r->stopped.m = (struct hwc_fmeta){.st = HWC_ST_OK};
	if (run->measured_s > 0) {
		HWC_SET(r->gbps, (double)run->messages * (double)run->msg_bytes * 8.0 /
					 run->measured_s / 1e9);
		HWC_SET(r->msgs_per_s, (double)run->messages / run->measured_s);
	}
}

int pr_pick_gid(struct ibv_context *ctx, unsigned port, union ibv_gid *gid)
{
	struct ibv_gid_entry ent[256];
	ssize_t n = ibv_query_gid_table(ctx, ent, 256, 0);
	int best = -1, rank = 0;
	for (ssize_t i = 0; i < n; i++) {
		if (ent[i].port_num != port)
			continue;
		const uint8_t *g = ent[i].gid.raw;
		static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		bool zero = true;
		for (int k = 0; k < 16; k++)
			zero = zero && !g[k];
		if (zero)
			continue;
		/* RoCE v2 with an IPv4 address routes everywhere; v2 link-local works on one
		 * subnet (rxe on dummy0); v1 last. */
		int rk = ent[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? (memcmp(g, v4, 12) == 0 ? 4 : 3)
		       : ent[i].gid_type == IBV_GID_TYPE_IB	 ? 2
								 : 1;
		if (rk > rank) {
			rank = rk;
			best = (int)ent[i].gid_index;
			*gid = ent[i].gid;
		}
	}
	if (n < 0 && ibv_query_gid(ctx, (uint8_t)port, 0, gid) == 0)
		return 0; /* no gid table query: GID 0 */
	return best;
}

/* ---- ceiling ------------------------------------------------------------------------------ */

static const struct hwc_pci_device *pci_device(const struct hwc_facts *f, const char *bdf)
{
	for (size_t i = 0; f->pci && i < f->pci->devices.n; i++) {
		const struct hwc_pci_device *d = &f->pci->devices.items[i];
		if (hwc_ok(d->bdf) && strcmp(d->bdf.v, bdf) == 0)
			return d;
	}
	return NULL;
}

static const struct hwc_mlx_port *mlx_port(const struct hwc_facts *f, const char *dev,
					   unsigned port)
{
	const struct hwc_mlx_port *found = NULL;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		for (size_t k = 0; k < ad->ports.n; k++) {
			const struct hwc_mlx_port *p = &ad->ports.items[k];
			if (p->rdma_device && strcmp(p->rdma_device, dev) == 0 && p->port == port)
				found = p;
		}
	}
	return found;
}

/* The PCIe path from facts.pci (devices[].path_bottleneck), read from the structs. */
void pr_ceiling_pcie(struct hwc_facts *f, const struct pr_target *t, struct hwc_probe_result *r)
{
	struct hwc_arena *a = f->arena;
	if (!t->bdf) {
		HWC_FAIL(r->pcie_gbps, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "%s is not a PCI device: no PCIe path", t->dev));
		return;
	}
	const struct hwc_pci_device *d = pci_device(f, t->bdf);
	const struct hwc_pci_bottleneck *pb = d ? &d->path_bottleneck : NULL;
	if (!pb || pb->m.st != HWC_ST_OK || !hwc_ok(pb->gbps) || pb->gbps.v <= 0) {
		HWC_FAIL(r->pcie_gbps, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "facts.pci has no path_bottleneck.gbps for %s", t->bdf));
		return;
	}
	HWC_SET(r->pcie_gbps, pb->gbps.v);
	const char *hb = hwc_ok(pb->bdf) ? pb->bdf.v : NULL;
	if (hb)
		set_str(a, &r->ceiling_bdf, hb);
	r->ceiling_detail.v = hwc_arena_printf(
		a, "PCIe %g GT/s x%lld hop at %s, %.1f Gb/s effective",
		hwc_ok(pb->speed_gts) ? pb->speed_gts.v : 0,
		(long long)(hwc_ok(pb->width) ? pb->width.v : 0), hb ? hb : t->bdf, pb->gbps.v);
}

/* The PCIe path, and the port rate from verbs, else from facts.mlx
 * (adapters[].ports[].rate_gbps). */
void pr_ceiling_inputs(struct hwc_facts *f, const struct pr_target *t,
			   const struct ibv_port_attr *pa, struct hwc_probe_result *r)
{
	struct hwc_arena *a = f->arena;
	pr_ceiling_pcie(f, t, r);
	double pg = pa ? hwc_probe_port_gbps(pa->active_speed, pa->active_width) : 0;
	if (pg > 0) {
		HWC_SET(r->port_gbps, pg);
		if (!r->ceiling_detail.v || (hwc_ok(r->pcie_gbps) && pg < r->pcie_gbps.v))
			r->ceiling_detail.v = hwc_arena_printf(a, "port %uX %s, %.1f Gb/s of data",
							       width_lanes(pa->active_width),
							       speed_name(pa->active_speed), pg);
	} else {
		const struct hwc_mlx_port *port = mlx_port(f, t->dev, t->port);
		if (port && hwc_ok(port->rate_gbps) && port->rate_gbps.v > 0)
			HWC_SET(r->port_gbps, port->rate_gbps.v);
		else
			HWC_FAIL(r->port_gbps, HWC_ST_ABSENT, 0,
				 hwc_arena_printf(a, "active speed %u / width %u of %s port %u are not "
						  "known codes, and facts.mlx has no rate_gbps",
						  pa ? pa->active_speed : 0, pa ? pa->active_width : 0,
						  t->dev, t->port));
	}
	r->ceiling_detail.m.st = r->ceiling_detail.v ? HWC_ST_OK : HWC_ST_ABSENT;
}

/* A TCP stream thread at or above this share of a core (here or at the peer) is what limits. */
#define CPU_BUSY 0.90

static bool cpu_bound(const struct hwc_probe_result *r)
{
	return (hwc_ok(r->cpu_busy) && r->cpu_busy.v >= CPU_BUSY) ||
	       (hwc_ok(r->peer_cpu_busy) && r->peer_cpu_busy.v >= CPU_BUSY);
}

void hwc_probe_explain(struct hwc_arena *a, struct hwc_probe_result *r)
{
	bool pcie_na = r->pcie_gbps.m.st == HWC_ST_UNSUPPORTED; /* no PCIe path at all */
	const char *by = NULL;
	if (hwc_ok(r->port_gbps) && (pcie_na || (hwc_ok(r->pcie_gbps) &&
						 r->port_gbps.v <= r->pcie_gbps.v))) {
		HWC_SET(r->ceiling_gbps, r->port_gbps.v);
		by = "port";
		HWC_FAIL(r->ceiling_bdf, HWC_ST_ABSENT, 0, "the port, not a PCIe hop, binds");
	} else if (hwc_ok(r->pcie_gbps) && hwc_ok(r->port_gbps)) {
		HWC_SET(r->ceiling_gbps, r->pcie_gbps.v);
		by = "pcie";
	} else {
		const char *why = !hwc_ok(r->port_gbps) ? r->port_gbps.m.detail : r->pcie_gbps.m.detail;
		why = hwc_arena_printf(a, "unknown: %s", why ? why : "an input is missing");
		HWC_FAIL(r->ceiling_gbps, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(r->ceiling_by, HWC_ST_ABSENT, 0, why);
		if (!hwc_ok(r->ceiling_bdf))
			HWC_FAIL(r->ceiling_bdf, HWC_ST_ABSENT, 0, why);
	}
	if (by && hwc_ok(r->shared_gbps) && r->shared_gbps.v < r->ceiling_gbps.v) {
		/* ports running together: the slowest link they share, divided among them */
		HWC_SET(r->ceiling_gbps, r->shared_gbps.v);
		by = "shared_link";
		HWC_SET(r->ceiling_bdf, r->shared_bdf.v);
		r->ceiling_detail.v = hwc_arena_printf(
			a, "PCIe link at %s shared by %lld ports running together, %.1f Gb/s each",
			r->shared_bdf.v, (long long)r->shared_ports.v, r->shared_gbps.v);
		r->ceiling_detail.m.st = r->ceiling_detail.v ? HWC_ST_OK : HWC_ST_ABSENT;
	}
	if (by)
		HWC_SET(r->ceiling_by, by);
	if (!hwc_ok(r->ceiling_detail))
		HWC_FAIL(r->ceiling_detail, HWC_ST_ABSENT, 0, "no ceiling input known");

	const struct hwc_probe_hop *down = NULL;
	for (size_t i = 0; i < r->hops.n; i++)
		if (hwc_ok(r->hops.items[i].trained_down) && r->hops.items[i].trained_down.v)
			down = &r->hops.items[i];
	if (!hwc_ok(r->gbps)) {
		const char *nm = "no measurement";
		HWC_FAIL(r->ratio, HWC_ST_ABSENT, 0, nm);
		HWC_FAIL(r->limited_by, HWC_ST_ABSENT, 0, nm);
		HWC_FAIL(r->finding, HWC_ST_ABSENT, 0, nm);
		return;
	}
	char temp[48] = "";
	if (hwc_ok(r->temp_max_mdegc))
		snprintf(temp, sizeof(temp), ", card at up to %lld degC",
			 (long long)(r->temp_max_mdegc.v / 1000));
	bool tcp = hwc_ok(r->op) && strcmp(r->op.v, "tcp") == 0;
	/* two-host: the far end of the pair, as the server named it */
	const char *far = hwc_ok(r->peer_port) ? hwc_arena_printf(a, "; server port %s",
								   r->peer_port.v) : "";
	const char *what = tcp ? hwc_arena_printf(a, "%s tcp %s %s (%s%s)", r->mode.v,
						  hwc_ok(r->direction) ? r->direction.v : "?",
						  hwc_ok(r->peer) ? r->peer.v : "?",
						  hwc_ok(r->netdev) ? r->netdev.v : "no netdev", far)
			       : hwc_arena_printf(a, "%s %s %s/%lld%s%s%s", r->mode.v, r->op.v,
						  r->rdma_device.v, (long long)r->port.v,
						  *far ? " (" : "", *far ? far + 2 : "", *far ? ")" : "");
	if (hwc_ok(r->concurrent) && r->concurrent.v > 1)
		what = hwc_arena_printf(a, "%s, %lld ports together%s", what,
					(long long)r->concurrent.v,
					hwc_ok(r->alone_gbps) ? hwc_arena_printf(a, " (alone %.2f Gb/s)",
										 r->alone_gbps.v) : "");
	if (!hwc_ok(r->ceiling_gbps)) {
		HWC_FAIL(r->ratio, HWC_ST_ABSENT, 0, r->ceiling_gbps.m.detail);
		HWC_FAIL(r->limited_by, HWC_ST_ABSENT, 0, r->ceiling_gbps.m.detail);
		r->finding.v = hwc_arena_printf(a, "%s: %.2f Gb/s; the ceiling is %s%s", what,
						r->gbps.v, r->ceiling_gbps.m.detail, temp);
	} else {
		double ratio = r->gbps.v / r->ceiling_gbps.v;
		HWC_SET(r->ratio, ratio);
		const char *lim;
		const char *why;
		if (down) {
			lim = "pcie";
			why = hwc_arena_printf(a, "the PCIe link at %s ran below its %g GT/s x%lld "
					       "maximum under load (%g GT/s x%lld)", down->bdf,
					       down->max_speed_gts.v, (long long)down->max_width.v,
					       down->speed_gts_min.v, (long long)down->width_min.v);
		} else if (ratio >= AT_CEILING) {
			lim = r->ceiling_by.v;
			why = hwc_arena_printf(a, "limited by the %s", r->ceiling_detail.v);
		} else if (cpu_bound(r)) {
			lim = "cpu";
			why = hwc_arena_printf(a, "below %.0f%% of the %s, and a stream thread kept a "
					       "core busy (%.0f%% here, %s at the peer): CPU-bound; "
					       "more streams (--probe-streams) or faster cores",
					       AT_CEILING * 100, r->ceiling_detail.v,
					       hwc_ok(r->cpu_busy) ? r->cpu_busy.v * 100 : 0,
					       hwc_ok(r->peer_cpu_busy)
						       ? hwc_arena_printf(a, "%.0f%%",
									  r->peer_cpu_busy.v * 100)
						       : "unknown");
		} else {
			lim = "other";
			why = hwc_arena_printf(a, "below %.0f%% of the %s: neither the path nor the "
					       "port binds; look at the host findings (NUMA, power "
					       "saving, temperature)", AT_CEILING * 100,
					       r->ceiling_detail.v);
		}
		r->limited_by.v = lim;
		r->limited_by.m = (struct hwc_fmeta){.st = HWC_ST_OK};
		r->finding.v = hwc_arena_printf(a, "%s: %.2f Gb/s of a %.2f Gb/s ceiling (%.0f%%), %s%s",
						what, r->gbps.v, r->ceiling_gbps.v, ratio * 100, why,
						temp);
	}
	r->finding.m = (struct hwc_fmeta){.st = r->finding.v ? HWC_ST_OK : HWC_ST_ABSENT};
}

/* ---- collection --------------------------------------------------------------------------- */

void pr_tick(void *p, double elapsed, double gbps)
{
	struct pr_tick_ctx *t = p;
	pr_sampler_tick(t->s);
	if (t->o->progress) {
		if (gbps >= 0)
			snprintf(t->line, sizeof(t->line), "%s: %.1f s, %.2f Gb/s", t->label, elapsed,
				 gbps);
		else
			snprintf(t->line, sizeof(t->line), "%s: %.1f s, warming up", t->label, elapsed);
		t->o->progress(t->o->progress_ctx, t->line);
	}
}

static bool matches(const struct pr_target *t, const char *want)
{
	if (!want)
		return true;
	return strcmp(want, t->dev) == 0 || (t->bdf && strcmp(want, t->bdf) == 0) ||
	       (t->netdev && strcmp(want, t->netdev) == 0);
}

static void section_status(struct hwc_arena *a, struct hwc_probe_facts *pf, const char *why)
{
	size_t ok = 0, failed = 0;
	const char *first = NULL;
	for (size_t i = 0; i < pf->results.n; i++) {
		const struct hwc_probe_result *r = &pf->results.items[i];
		if (strcmp(r->status.v, "ok") == 0)
			ok++;
		else if (strcmp(r->status.v, "failed") == 0)
			failed++;
		if (!first && strcmp(r->status.v, "ok") != 0 && hwc_ok(r->reason))
			first = r->reason.v;
	}
	const char *st = !pf->results.n ? "skipped"
			 : ok == pf->results.n ? "ok"
			 : ok		       ? "partial"
			 : failed	       ? "failed"
					       : "skipped";
	set_str(a, &pf->status, st);
	if (why)
		set_str(a, &pf->reason, why);
	else if (first)
		set_str(a, &pf->reason, first);
	else
		HWC_FAIL(pf->reason, HWC_ST_ABSENT, 0, "every probe ran");
}

/* Probes one port with every op asked for. */
static void probe_port(struct hwc_env *e, struct hwc_facts *f, struct hwc_probe_facts *pf,
		       const struct hwc_probe_opts *o, struct ibv_device *dev,
		       const struct pr_target *t, const struct ibv_port_attr *pa)
{
	struct hwc_arena *a = f->arena;
	for (unsigned op = 1; op <= HWC_PROBE_SEND; op <<= 1) {
		if (!(o->ops & op))
			continue;
		struct hwc_probe_result *r = HWC_VEC_PUSH(a, &pf->results);
		if (!r)
			return;
		pr_result_init(a, r, t, o, op, "loopback");
		pr_ceiling_inputs(f, t, pa, r);
		if (pa->state != IBV_PORT_ACTIVE) {
			static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
							    "ACTIVE_DEFER"};
			pr_result_fail(a, r, "skipped", "%s port %u is %s, not ACTIVE (link down, or "
				       "no subnet manager on InfiniBand)", t->dev, t->port,
				       (unsigned)pa->state < 6 ? names[pa->state] : "in an unknown state");
			hwc_probe_explain(a, r);
			continue;
		}
		/* --timeout bounds the whole run: a probe gets what is left, or does not start */
		struct hwc_probe_opts oo = *o;
		unsigned left = hwc_env_time_left_ms(e);
		if (left != UINT32_MAX) {
			double s = left / 1000.0 - 1.0 - o->warmup_s;
			if (s < 0.2) {
				pr_result_fail(a, r, "skipped", "--timeout was reached before this probe");
				hwc_probe_explain(a, r);
				continue;
			}
			oo.duration_s = s < o->duration_s ? s : o->duration_s;
		}
		struct pr_binding b;
		pr_bind(e, a, t->numa_node, &b, r);
		struct pr_tick_ctx tc = {.o = &oo, .label = hwc_arena_printf(a, "probe %s/%u %s", t->dev,
									    t->port, pr_op_name(op))};
		tc.s = pr_sampler_start(e, a, t);
		pr_loopback(&oo, t, op, dev, a, r, pr_tick, &tc);
		pr_sampler_finish(tc.s, r);
		pr_unbind(&b);
		hwc_probe_explain(a, r);
		if (strcmp(r->status.v, "ok") != 0)
			hwc_facts_error(f, "probe", t->dev, "%s", r->reason.v);
	}
}

static void loopback_all(struct hwc_env *e, struct hwc_facts *f, struct hwc_probe_facts *pf,
			 const struct hwc_probe_opts *o, const char *filter)
{
	struct hwc_arena *a = f->arena;
	int n = 0;
	errno = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		section_status(a, pf, hwc_arena_printf(
				      a, "no RDMA device (%s); nothing to probe",
				      !list && errno == ENOSYS ? "the kernel has no RDMA verbs support"
				      : !list && errno	       ? strerror(errno)
							       : "ibv_get_device_list found none; is the "
								 "driver loaded?"));
		if (list)
			ibv_free_device_list(list);
		return;
	}
	size_t matched = 0, np = 0;
	struct pr_port ports[64];
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		if (!ctx || ibv_query_device(ctx, &da)) {
			struct pr_target t;
			pr_target_init(e, a, name, 1, &t);
			if (!matches(&t, filter)) {
				if (ctx)
					ibv_close_device(ctx);
				continue;
			}
			matched++;
			struct hwc_probe_result *r = HWC_VEC_PUSH(a, &pf->results);
			if (r) {
				pr_result_init(a, r, &t, o, o->ops & -o->ops, "loopback");
				pr_result_fail(a, r, "failed", "cannot open %s: %s%s", name,
					       strerror(errno), errno == EACCES || errno == EPERM
							       ? " (access to /dev/infiniband/uverbs*)"
							       : "");
				hwc_probe_explain(a, r);
			}
			if (ctx)
				ibv_close_device(ctx);
			continue;
		}
		for (unsigned p = 1; p <= da.phys_port_cnt; p++) {
			struct pr_target t;
			pr_target_init(e, a, name, p, &t);
			if (!matches(&t, filter))
				continue;
			matched++;
			struct ibv_port_attr pa;
			if (ibv_query_port(ctx, (uint8_t)p, &pa)) {
				hwc_facts_error(f, "probe", name, "ibv_query_port %u failed", p);
				continue;
			}
			probe_port(e, f, pf, o, list[i], &t, &pa);
			if (o->all_ports && pa.state == IBV_PORT_ACTIVE && np < HWC_ARRAY_SIZE(ports))
				ports[np++] = (struct pr_port){.t = t, .dev = list[i], .pa = pa};
		}
		ibv_close_device(ctx);
	}
	if (o->all_ports)
		pr_all_ports(e, f, pf, o, ports, np);
	ibv_free_device_list(list);
	section_status(a, pf, matched ? NULL
			      : hwc_arena_printf(a, "no RDMA device or netdev matches '%s'", filter));
}

int hwc_probe_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	const struct hwc_probe_opts *po = o ? o->probe : NULL;
	if (!po)
		return 0;
	struct hwc_probe_facts *pf = hwc_arena_zalloc(f->arena, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	f->probe = pf;
	pf->requested = true;
	if (!hwc_env_is_live(e)) {
		section_status(f->arena, pf, "the probe sends traffic on the live machine; "
			       "--root replays a capture, where nothing can be measured");
		return 0;
	}
	const char *filter = po->device ? po->device : o->device;
	if (po->mode == HWC_PROBE_LOOPBACK && po->tcp) {
		section_status(f->arena, pf, "the TCP probe runs between two hosts: --server on one, "
			       "--client HOST on the other");
	} else if (po->mode == HWC_PROBE_LOOPBACK) {
		loopback_all(e, f, pf, po, filter);
	} else {
		/* failures are in the results; the section's status sums them up */
		if (po->mode == HWC_PROBE_SERVER) /* serves plain and --all-ports clients alike */
			(po->tcp ? pr_tcp_server : pr_cm_server)(e, po, f, pf);
		else if (po->all_ports)
			pr_pairs_client(e, po, f, pf);
		else
			(po->tcp ? pr_tcp_client : pr_cm_client)(e, po, f, pf);
		section_status(f->arena, pf, NULL);
	}
	return 0;
}

/* ---- JSON --------------------------------------------------------------------------------- */

#define F(k, t) HWC_JF(struct hwc_probe_hop, k, t)
static const struct hwc_jfield hop_f[] = {
	HWC_JF(struct hwc_probe_hop, bdf, HWC_JT_KEY_STR),
	F(speed_gts_idle, HWC_JT_F64), F(width_idle, HWC_JT_I64), F(speed_gts_min, HWC_JT_F64),
	F(speed_gts_max, HWC_JT_F64), F(max_speed_gts, HWC_JT_F64), F(width_min, HWC_JT_I64),
	F(width_max, HWC_JT_I64), F(max_width, HWC_JT_I64), F(trained_down, HWC_JT_BOOL),
};
#undef F
static const struct hwc_jtable hop_t = HWC_JTABLE("probe.results[].hops[]", hop_f, 0);
static const struct hwc_jfield counter_f[] = {
	HWC_JF(struct hwc_probe_counter, name, HWC_JT_KEY_STR),
	HWC_JF(struct hwc_probe_counter, delta, HWC_JT_I64),
};
static const struct hwc_jtable counter_t = HWC_JTABLE("probe.results[].counters[]", counter_f, 0);
static const struct hwc_jfield stream_f[] = {
	HWC_JF(struct hwc_probe_stream, gbps, HWC_JT_F64),
	HWC_JF(struct hwc_probe_stream, bytes, HWC_JT_I64),
	HWC_JF(struct hwc_probe_stream, retransmits, HWC_JT_I64),
	HWC_JF(struct hwc_probe_stream, cpu_busy, HWC_JT_F64),
};
static const struct hwc_jtable stream_t = HWC_JTABLE("probe.results[].per_stream[]", stream_f, 0);

#define S(k) HWC_JF(struct hwc_probe_result, k, HWC_JT_STR)
#define I(k) HWC_JF(struct hwc_probe_result, k, HWC_JT_I64)
#define D(k) HWC_JF(struct hwc_probe_result, k, HWC_JT_F64)
static const struct hwc_jfield result_f[] = {
	HWC_JFF(struct hwc_probe_result, "status", status, HWC_JT_STR, HWC_JF_ALWAYS),
	S(reason), S(rdma_device), I(port), S(bdf), S(netdev), S(op), S(mode),
	S(direction), S(peer), S(peer_port), I(msg_bytes), I(qps), I(depth), I(gid_index), I(mtu_bytes),
	D(warmup_s), D(duration_s), I(messages), S(stopped), D(gbps), D(msgs_per_s),
	HWC_JF(struct hwc_probe_result, data_ok, HWC_JT_BOOL), S(data_check), D(port_gbps),
	D(pcie_gbps), D(ceiling_gbps), S(ceiling_by), S(ceiling_bdf), S(ceiling_detail), D(ratio),
	S(limited_by), S(finding), I(temp_start_mdegc), I(temp_max_mdegc), I(numa_node), S(cpus),
	I(streams), I(bytes), I(retransmits), D(cpu_user_s), D(cpu_sys_s), D(cpu_busy),
	D(peer_cpu_busy),
	I(concurrent), D(alone_gbps), D(shared_gbps), S(shared_bdf), I(shared_ports),
	HWC_JVEC(struct hwc_probe_result, "hops", hops, struct hwc_probe_hop, hop_t),
	HWC_JVEC(struct hwc_probe_result, "counters", counters, struct hwc_probe_counter, counter_t),
	HWC_JVEC(struct hwc_probe_result, "per_stream", per_stream, struct hwc_probe_stream,
		 stream_t),
};
#undef S
#undef I
#undef D
static const struct hwc_jtable result_t = HWC_JTABLE("probe.results[]", result_f, 0);
static const struct hwc_jfield probe_f[] = {
	HWC_JF(struct hwc_probe_facts, status, HWC_JT_STR),
	HWC_JF(struct hwc_probe_facts, reason, HWC_JT_STR),
	HWC_JVEC(struct hwc_probe_facts, "results", results, struct hwc_probe_result, result_t),
};
/* facts.probe when a probe was asked for. */
const struct hwc_jtable hwc_probe_table = HWC_JTABLE("probe", probe_f, 0);

void pr_result_persist(struct hwc_arena *a, struct hwc_probe_result *r)
{
	r->hops.items = NULL, r->hops.n = r->hops.cap = 0; /* a thread's run is not sampled */
	r->counters.items = NULL, r->counters.n = r->counters.cap = 0;
	hwc_json_persist_table(r, a, &result_t);
}

json_t *hwc_probe_to_json(const struct hwc_facts *f)
{
	const struct hwc_probe_facts *pf = f->probe;
	if (!pf || !pf->requested)
		return json_object(); /* no probe asked for: an empty section, as before issue 7 */
	return hwc_json_from_table(pf, &hwc_probe_table);
}

int hwc_probe_from_json(const json_t *j, struct hwc_facts *f)
{
	int rc;
	struct hwc_probe_facts *pf = hwc_json_section_from(j, f->arena, sizeof(*pf), NULL, &rc);
	if (!pf)
		return rc;
	f->probe = pf;
	if (json_object_size(j) == 0)
		return 0;
	pf->requested = true;
	return hwc_json_get_table(j, f->arena, pf, &hwc_probe_table);
}

/* SPDX-License-Identifier: MIT */
/* Unit tests of the probe's pure parts: port rates, the ceiling model, options, the data pattern,
 * and the facts <-> JSON round trip of a probe section. */
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "probe/probe.h"
#include "probe/probe_int.h"
#include "test.h"

static struct hwc_probe_result *measured(struct hwc_arena *a, double gbps, double port,
					 double pcie)
{
	struct hwc_probe_result *r = hwc_arena_zalloc(a, sizeof(*r));
	HWC_SET(r->mode, "loopback");
	HWC_SET(r->op, "write");
	HWC_SET(r->rdma_device, "mlx5_0");
	HWC_SET(r->port, 1);
	if (gbps > 0)
		HWC_SET(r->gbps, gbps);
	if (port > 0)
		HWC_SET(r->port_gbps, port);
	if (pcie > 0) {
		HWC_SET(r->pcie_gbps, pcie);
		HWC_SET(r->ceiling_bdf, "0000:00:03.0");
		HWC_SET(r->ceiling_detail, "PCIe 8 GT/s x8 hop at 0000:00:03.0, 62.9 Gb/s effective");
	} else {
		HWC_FAIL(r->pcie_gbps, HWC_ST_ABSENT, 0, "facts.pci has no path_bottleneck.gbps");
	}
	return r;
}

static void test_port_rates(void)
{
	CHECK(fabs(hwc_probe_port_gbps(64, 2) - 200.0) < 1e-9);  /* 4X HDR */
	CHECK(fabs(hwc_probe_port_gbps(32, 2) - 100.0) < 1e-9);  /* 4X EDR */
	CHECK(fabs(hwc_probe_port_gbps(128, 2) - 400.0) < 1e-9); /* 4X NDR */
	CHECK(fabs(hwc_probe_port_gbps(4, 2) - 32.0) < 1e-9);    /* 4X QDR: 40 signalling, 32 data */
	CHECK(fabs(hwc_probe_port_gbps(64, 16) - 100.0) < 1e-9); /* 2X HDR */
	CHECK(fabs(hwc_probe_port_gbps(1, 1) - 2.0) < 1e-9);     /* rxe on a speedless netdev */
	CHECK(hwc_probe_port_gbps(3, 2) == 0);                   /* unknown code: unknown rate */
	CHECK(hwc_probe_port_gbps(64, 3) == 0);
}

static void test_ceiling(struct hwc_arena *a)
{
	/* Gen3 x8 path under a 100G port: the path binds, and at 93% it is what limits */
	struct hwc_probe_result *r = measured(a, 58.5, 100.0, 62.9);
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "pcie");
	CHECK(fabs(r->ceiling_gbps.v - 62.9) < 1e-9);
	CHECK_STR(r->limited_by.v, "pcie");
	CHECK(fabs(r->ratio.v - 58.5 / 62.9) < 1e-12);
	CHECK_STR(r->ceiling_bdf.v, "0000:00:03.0");
	CHECK(strstr(r->finding.v, "58.50 Gb/s of a 62.90 Gb/s ceiling") != NULL);

	/* the port binds but the rate is far below it: something else (host) limits */
	r = measured(a, 40.0, 100.0, 220.0);
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "port");
	CHECK_STR(r->limited_by.v, "other");
	CHECK(r->ceiling_bdf.m.st == HWC_ST_ABSENT);
	CHECK(strstr(r->finding.v, "host findings") != NULL);

	/* a hop trained down under load: the path is named whatever the ratio */
	r = measured(a, 97.0, 100.0, 220.0);
	struct hwc_probe_hop *h = HWC_VEC_PUSH(a, &r->hops);
	h->bdf = "0000:00:01.0";
	HWC_SET(h->trained_down, true);
	HWC_SET(h->max_speed_gts, 16.0);
	HWC_SET(h->max_width, 16);
	HWC_SET(h->speed_gts_min, 8.0);
	HWC_SET(h->width_min, 16);
	hwc_probe_explain(a, r);
	CHECK_STR(r->limited_by.v, "pcie");
	CHECK(strstr(r->finding.v, "0000:00:01.0") != NULL);

	/* PCI device but no path known: the ceiling is unknown, and says why; no ratio */
	r = measured(a, 50.0, 100.0, 0);
	hwc_probe_explain(a, r);
	CHECK(r->ceiling_gbps.m.st == HWC_ST_ABSENT);
	CHECK(r->ratio.m.st == HWC_ST_ABSENT);
	CHECK(r->ceiling_gbps.m.detail && strstr(r->ceiling_gbps.m.detail, "path_bottleneck"));
	CHECK(hwc_ok(r->finding));

	/* soft-RoCE: no PCIe path at all, the port is the ceiling */
	r = measured(a, 1.0, 2.0, 0);
	HWC_FAIL(r->pcie_gbps, HWC_ST_UNSUPPORTED, 0, "rxe0 is not a PCI device: no PCIe path");
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "port");
	CHECK(fabs(r->ratio.v - 0.5) < 1e-12);

	/* nothing measured: no ratio, no finding, whatever the ceiling */
	r = measured(a, 0, 100.0, 62.9);
	hwc_probe_explain(a, r);
	CHECK(hwc_ok(r->ceiling_gbps));
	CHECK(r->ratio.m.st == HWC_ST_ABSENT && r->finding.m.st == HWC_ST_ABSENT);
}

/* One of two ports run together behind a 460.9 Gb/s link: 230.45 Gb/s each. */
static void together(struct hwc_probe_result *r)
{
	HWC_SET(r->concurrent, 2);
	HWC_SET(r->shared_gbps, 230.45);
	HWC_SET(r->shared_bdf, "0000:00:01.0");
	HWC_SET(r->shared_ports, 2);
}

/* --all-ports: a port's share of a link it shares with others becomes its ceiling when lower */
static void test_shared_ceiling(struct hwc_arena *a)
{
	/* two 400G ports behind one 460.9 Gb/s uplink: 230.4 each; at 225 Gb/s the link binds */
	struct hwc_probe_result *r = measured(a, 225.0, 400.0, 460.9);
	together(r);
	HWC_SET(r->alone_gbps, 390.0);
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "shared_link");
	CHECK_STR(r->ceiling_bdf.v, "0000:00:01.0");
	CHECK(fabs(r->ceiling_gbps.v - 230.45) < 1e-9);
	CHECK_STR(r->limited_by.v, "shared_link");
	CHECK(strstr(r->finding.v, "2 ports together (alone 390.00 Gb/s)") != NULL);
	CHECK(strstr(r->finding.v, "shared by 2 ports") != NULL);

	/* a share above the port's own ceiling changes nothing */
	r = measured(a, 90.0, 100.0, 460.9);
	together(r);
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "port");
	CHECK_STR(r->limited_by.v, "port");

	/* together far below the share: neither binds, the host is to blame */
	r = measured(a, 20.0, 400.0, 460.9);
	together(r);
	hwc_probe_explain(a, r);
	CHECK_STR(r->ceiling_by.v, "shared_link");
	CHECK_STR(r->limited_by.v, "other");
}

static void test_ops(void)
{
	unsigned ops = 0;
	CHECK_INT(hwc_probe_parse_ops("write", &ops), 0);
	CHECK_INT(ops, HWC_PROBE_WRITE);
	CHECK_INT(hwc_probe_parse_ops("read,send", &ops), 0);
	CHECK_INT(ops, HWC_PROBE_READ | HWC_PROBE_SEND);
	CHECK_INT(hwc_probe_parse_ops("all", &ops), 0);
	CHECK_INT(ops, 7);
	CHECK_INT(hwc_probe_parse_ops("writ", &ops), -EINVAL);
	CHECK_INT(hwc_probe_parse_ops("", &ops), -EINVAL);
	CHECK_INT(hwc_probe_parse_ops("write,,x", &ops), -EINVAL);
	struct hwc_probe_opts o;
	hwc_probe_opts_init(&o);
	CHECK_INT(o.msg_bytes, 65536);
	CHECK_INT(o.depth, 128);
	CHECK_INT(o.qps, 1);
	CHECK(o.duration_s > 0 && o.warmup_s > 0 && o.warmup_s < o.duration_s);
}

static void test_pattern(void)
{
	static unsigned char buf[4003];
	pr_pattern_fill(buf, sizeof(buf), 1001);
	CHECK(pr_pattern_check(buf, sizeof(buf), 1001));
	CHECK(!pr_pattern_check(buf, sizeof(buf), 1002)); /* another QP's pattern */
	buf[4002] ^= 1;                                    /* the tail counts */
	CHECK(!pr_pattern_check(buf, sizeof(buf), 1001));
	buf[4002] ^= 1;
	buf[17] ^= 0x80;
	CHECK(!pr_pattern_check(buf, sizeof(buf), 1001));
	memset(buf, 0, sizeof(buf));
	CHECK(!pr_pattern_check(buf, sizeof(buf), 1001));
}

static void test_round_trip(void)
{
	struct hwc_facts *f = hwc_facts_new();
	struct hwc_probe_facts *pf = hwc_arena_zalloc(f->arena, sizeof(*pf));
	f->probe = pf;
	json_t *empty = hwc_probe_to_json(f);
	CHECK_INT(json_object_size(empty), 0); /* not requested: {} */
	json_decref(empty);
	pf->requested = true;
	HWC_SET(pf->status, "ok");
	HWC_FAIL(pf->reason, HWC_ST_ABSENT, 0, "every probe ran");
	struct hwc_probe_result *r = HWC_VEC_PUSH(f->arena, &pf->results);
	*r = *measured(f->arena, 58.5, 100.0, 62.9);
	HWC_SET(r->status, "ok");
	HWC_SET(r->data_ok, true);
	HWC_SET(r->messages, 123456);
	struct hwc_probe_counter *c = HWC_VEC_PUSH(f->arena, &r->counters);
	c->name = "aer_dev_correctable@0000:00:03.0";
	HWC_SET(c->delta, 3);
	struct hwc_probe_hop *h = HWC_VEC_PUSH(f->arena, &r->hops);
	h->bdf = "0000:00:03.0";
	HWC_SET(h->speed_gts_min, 8.0);
	HWC_FAIL(h->trained_down, HWC_ST_ABSENT, 0, "needs link samples and maxima");
	/* a TCP stream with one of its numbers unknown */
	struct hwc_probe_stream *st = HWC_VEC_PUSH(f->arena, &r->per_stream);
	HWC_SET(st->gbps, 23.5);
	HWC_SET(st->bytes, 5875000000);
	HWC_FAIL(st->retransmits, HWC_ST_ABSENT, 0, "the peer sent: see retransmits");
	HWC_SET(st->cpu_busy, 0.97);
	HWC_SET(r->retransmits, 12);
	hwc_probe_explain(f->arena, r);
	json_t *j1 = hwc_probe_to_json(f);
	struct hwc_facts *g = hwc_facts_new();
	CHECK_INT(hwc_probe_from_json(j1, g), 0);
	json_t *j2 = hwc_probe_to_json(g);
	char *s1 = hwc_json_dumps(j1, false), *s2 = hwc_json_dumps(j2, false);
	CHECK_STR(s1, s2);
	CHECK(strstr(s1, "\"delta\":3") != NULL);
	CHECK(strstr(s1, "\"per_stream\":[{\"gbps\":23.5") != NULL);
	CHECK(strstr(s1, "\"retransmits\":12") != NULL);
	free(s1);
	free(s2);
	json_decref(j1);
	json_decref(j2);
	/* {} loads as "not requested" and writes back as {} */
	json_t *e = json_object();
	CHECK_INT(hwc_probe_from_json(e, g), 0);
	json_t *e2 = hwc_probe_to_json(g);
	CHECK_INT(json_object_size(e2), 0);
	json_decref(e);
	json_decref(e2);
	/* a wrong type is reported, not trusted */
	json_t *bad = json_pack("{s:s, s:[{s:s}]}", "status", "ok", "results", "gbps", "fast");
	CHECK_INT(hwc_probe_from_json(bad, g), -EINVAL);
	json_decref(bad);
	hwc_facts_free(f);
	hwc_facts_free(g);
}

/* TCP: the default stream count, and CPU-bound told apart from wire-bound and from "other" */
static void test_tcp(struct hwc_arena *a)
{
	CHECK_INT(hwc_probe_tcp_default_streams(100.0, 32), 4);  /* 100G: 4 x 25 */
	CHECK_INT(hwc_probe_tcp_default_streams(400.0, 8), 8);   /* capped by the local cores */
	CHECK_INT(hwc_probe_tcp_default_streams(10.0, 16), 1);   /* veth's 10000 Mb/s */
	CHECK_INT(hwc_probe_tcp_default_streams(0, 16), 4);      /* unknown rate */
	CHECK_INT(hwc_probe_tcp_default_streams(0, 0), 1);       /* no CPU count: 1 */
	CHECK_INT(hwc_probe_tcp_default_streams(4000.0, 512), 64);

	/* 30 of 100 Gb/s with a stream thread at 98% of a core at the peer: CPU-bound */
	struct hwc_probe_result *r = measured(a, 30.0, 100.0, 0);
	HWC_FAIL(r->pcie_gbps, HWC_ST_UNSUPPORTED, 0, "veth0 is not a PCI device");
	HWC_SET(r->op, "tcp");
	HWC_SET(r->mode, "client");
	HWC_SET(r->direction, "to_peer");
	HWC_SET(r->peer, "192.0.2.1");
	HWC_SET(r->netdev, "eth2");
	HWC_SET(r->cpu_busy, 0.45);
	HWC_SET(r->peer_cpu_busy, 0.98);
	hwc_probe_explain(a, r);
	CHECK_STR(r->limited_by.v, "cpu");
	CHECK(strstr(r->finding.v, "client tcp to_peer 192.0.2.1 (eth2): 30.00 Gb/s") != NULL);
	CHECK(strstr(r->finding.v, "45% here, 98% at the peer): CPU-bound") != NULL);
	/* the same rate with idle threads: something else */
	r = measured(a, 30.0, 100.0, 0);
	HWC_FAIL(r->pcie_gbps, HWC_ST_UNSUPPORTED, 0, "not PCI");
	HWC_SET(r->op, "tcp");
	HWC_SET(r->cpu_busy, 0.30);
	HWC_FAIL(r->peer_cpu_busy, HWC_ST_ABSENT, 0, "no summary");
	hwc_probe_explain(a, r);
	CHECK_STR(r->limited_by.v, "other");
	/* at the port's rate a busy core does not matter: the wire binds */
	r = measured(a, 94.0, 100.0, 0);
	HWC_FAIL(r->pcie_gbps, HWC_ST_UNSUPPORTED, 0, "not PCI");
	HWC_SET(r->op, "tcp");
	HWC_SET(r->cpu_busy, 1.0);
	hwc_probe_explain(a, r);
	CHECK_STR(r->limited_by.v, "port");
}

/* The steady-state stop: constant rate stops after 0.5 s, a ramp does not */
static void test_steady(void)
{
	struct pr_steady st;
	pr_steady_start(&st, 0.0, 0);
	bool stop = false;
	double t = 0;
	for (int i = 1; i <= 20 && !stop; i++) {
		t = i * 0.1001; /* slices a little over 100 ms, as a real loop sees them */
		stop = pr_steady_update(&st, t, (uint64_t)(t * 1e6));
	}
	CHECK(stop);
	CHECK(t > 0.5 && t < 0.52); /* the fifth slice, once 0.5 s are measured */
	pr_steady_start(&st, 0.0, 0);
	stop = false;
	for (int i = 1; i <= 20 && !stop; i++) {
		t = i * 0.1001;
		stop = pr_steady_update(&st, t, (uint64_t)(t * t * 1e6)); /* still speeding up */
	}
	CHECK(!stop);
	CHECK(!pr_steady_update(&st, t + 0.01, 5)); /* within a slice: no verdict */
}

/* Two-host --all-ports: pairs that do not pair are named. */
static void test_pairs(struct hwc_arena *a)
{
	struct pr_pair p[3] = {
		{.peer = "192.0.2.1", .local = "vc0", .remote = "vs0"},
		{.peer = "198.51.100.1", .local = "vc1", .remote = "vs1"},
		{.peer = "203.0.113.1", .local = "vc2", .remote = "vs2"},
	};
	CHECK(pr_pairs_check(a, p, 3) == NULL);
	p[2].local = "vc0"; /* two addresses through one local port */
	const char *why = pr_pairs_check(a, p, 3);
	CHECK(why && strstr(why, "192.0.2.1 and 203.0.113.1 are both reached through vc0 here"));
	p[2].local = "vc2";
	p[2].remote = "vs1"; /* two addresses on one port of the server */
	why = pr_pairs_check(a, p, 3);
	CHECK(why && strstr(why, "198.51.100.1 and 203.0.113.1 are both the server's port vs1"));
	p[2].remote = NULL; /* an old server names no port: only the local side is checked */
	CHECK(pr_pairs_check(a, p, 3) == NULL);
	p[1].failed = "198.51.100.1 refused the connection";
	why = pr_pairs_check(a, p, 3);
	CHECK(why && strstr(why, "the pair to 198.51.100.1 failed alone") &&
	      strstr(why, "refused the connection"));
}

int main(void)
{
	struct hwc_arena *a = hwc_arena_new();
	test_port_rates();
	test_ceiling(a);
	test_shared_ceiling(a);
	test_ops();
	test_pattern();
	test_round_trip();
	test_tcp(a);
	test_steady();
	test_pairs(a);
	hwc_arena_free(a);
	TEST_MAIN_END();
}

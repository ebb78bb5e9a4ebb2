/* SPDX-License-Identifier: MIT */
/* hwcheck probe: RDMA bandwidth per port against its ceiling; and the probe options of check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"
#include "core/util.h"
#include "probe/probe.h"

static struct hwc_probe_opts popts;
static bool popts_set;

/* The options only shape the probe; `probe` or --probe (check, facts) asks for it. */
static struct hwc_probe_opts *opts(void)
{
	if (!popts_set) {
		hwc_probe_opts_init(&popts);
		popts_set = true;
	}
	return &popts;
}

/* The options that take a whole number: the bounds each allows. */
static const struct uint_opt {
	int which;
	const char *name;
	unsigned long lo, hi;
} uint_opts[] = {
	{HWC_POPT_SIZE, "--probe-size", 1, 1ul << 30},   {HWC_POPT_QPS, "--probe-qps", 1, 64},
	{HWC_POPT_DEPTH, "--probe-depth", 1, 4096},      {HWC_POPT_PORT, "--probe-port", 1, 65535},
	{HWC_POPT_GID, "--probe-gid", 0, 65535},         {HWC_POPT_STREAMS, "--probe-streams", 1, 64},
};

/* A whole-number option: parsed, bounded and stored; 1 when `which` is none of them, -1 on a
 * bad value (said on stderr). */
static int uint_opt(struct hwc_probe_opts *o, int which, const char *s)
{
	const struct uint_opt *u = NULL;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(uint_opts); i++)
		if (uint_opts[i].which == which)
			u = &uint_opts[i];
	if (!u)
		return 1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < u->lo || v > u->hi) {
		hwc_cli_err("%s: expected a whole number from %lu to %lu, got '%s'", u->name, u->lo,
			    u->hi, s);
		return -1;
	}
	if (which == HWC_POPT_SIZE)
		o->msg_bytes = v;
	else if (which == HWC_POPT_QPS)
		o->qps = (unsigned)v;
	else if (which == HWC_POPT_DEPTH)
		o->depth = (unsigned)v;
	else if (which == HWC_POPT_PORT)
		o->cm_port = (unsigned)v;
	else if (which == HWC_POPT_GID)
		o->gid_index = (int)v;
	else
		o->streams = (unsigned)v;
	return 0;
}

static int duration_opt(struct hwc_probe_opts *o, const char *arg)
{
	char *end;
	errno = 0;
	double d = strtod(arg, &end);
	if (errno || end == arg || *end || !(d >= 0.1 && d <= 3600)) {
		hwc_cli_err("--probe-duration: expected seconds from 0.1 to 3600, got '%s'", arg);
		return -1;
	}
	o->duration_s = d;
	return 0;
}

int hwc_cli_probe_opt(struct hwc_cli *c, int which, const char *arg)
{
	struct hwc_probe_opts *o = opts();
	int r = uint_opt(o, which, arg);
	if (r <= 0)
		return r;
	switch (which) {
	case HWC_POPT_PROBE:
		c->probe = o;
		return 0;
	case HWC_POPT_OP:
		if (hwc_probe_parse_ops(arg, &o->ops) < 0) {
			hwc_cli_err("--probe-op: expected write, read, send (comma-separated) or all, "
				    "got '%s'", arg);
			return -1;
		}
		return 0;
	case HWC_POPT_DURATION:
		return duration_opt(o, arg);
	case HWC_POPT_SERVER:
		o->mode = HWC_PROBE_SERVER;
		return 0;
	case HWC_POPT_CLIENT:
		o->mode = HWC_PROBE_CLIENT;
		o->peer = arg;
		return 0;
	case HWC_POPT_SOURCE:
		o->source = arg;
		return 0;
	case HWC_POPT_ALL_PORTS:
		o->all_ports = true;
		return 0;
	case HWC_POPT_TCP:
		o->tcp = true;
		return 0;
	default:
		return -1;
	}
}

/* One line on stderr, rewritten in place, once the run has lasted a second. */
struct progress {
	double t0;
	bool shown;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void show_progress(void *ctx, const char *line)
{
	struct progress *p = ctx;
	if (mono() - p->t0 < 1.0)
		return;
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p->shown = true;
}

/* -v: the hops under load and the counters that moved */
static void render_detail(const json_t *r)
{
	size_t i;
	const json_t *h;
	json_array_foreach(hwc_q_get(r, "hops"), i, h) {
		const json_t *mn = hwc_q_get(h, "speed_gts_min"), *mx = hwc_q_get(h, "max_speed_gts");
		const json_t *td = hwc_q_get(h, "trained_down");
		printf("  hop %s: ", hwc_json_str_or(h, "bdf", "?"));
		if (json_is_number(mn))
			printf("%g GT/s x%lld at the slowest sample", json_number_value(mn),
			       (long long)json_integer_value(hwc_q_get(h, "width_min")));
		else
			printf("not sampled");
		if (json_is_number(mx))
			printf(", max %g GT/s x%lld", json_number_value(mx),
			       (long long)json_integer_value(hwc_q_get(h, "max_width")));
		printf("%s\n", json_is_true(td) ? ": TRAINED DOWN under load" : "");
	}
	const json_t *c;
	bool any = false;
	json_array_foreach(hwc_q_get(r, "counters"), i, c) {
		json_int_t d = json_integer_value(hwc_q_get(c, "delta"));
		if (!d)
			continue;
		printf("%s %s %+lld", any ? "," : "  counters:", hwc_json_str_or(c, "name", "?"),
		       (long long)d);
		any = true;
	}
	if (any)
		printf("\n");
}

/* A TCP result's second line: the streams, CPU (here and at the peer), retransmits. */
static void render_tcp(const json_t *r)
{
	const json_t *busy = hwc_q_get(r, "cpu_busy"), *pb = hwc_q_get(r, "peer_cpu_busy");
	const json_t *re = hwc_q_get(r, "retransmits");
	long long ns = (long long)json_integer_value(hwc_q_get(r, "streams"));
	printf("  %lld %s, %.0f MB in %.2f s (%s), ", ns, hwc_cli_noun(ns, "stream", "streams"),
	       (double)json_integer_value(hwc_q_get(r, "bytes")) / 1e6,
	       json_number_value(hwc_q_get(r, "duration_s")), hwc_json_str_or(r, "stopped", "?"));
	if (json_is_number(busy))
		printf("busiest thread %.0f%% of a core here, ", json_number_value(busy) * 100);
	if (json_is_number(pb))
		printf("%.0f%% at the peer, ", json_number_value(pb) * 100);
	if (json_is_integer(re))
		printf("%lld %s, ", (long long)json_integer_value(re),
		       hwc_cli_noun((long long)json_integer_value(re), "retransmit", "retransmits"));
	printf("%s\n", json_is_true(hwc_q_get(r, "data_ok")) ? "data verified" : "data NOT verified");
	size_t i;
	const json_t *s;
	json_array_foreach(hwc_q_get(r, "per_stream"), i, s)
		printf("    stream %zu: %.2f Gb/s\n", i, json_number_value(hwc_q_get(s, "gbps")));
}

/* One result: its rate and what verified the data, or why it has none. */
static void render_result(const json_t *r, bool verbose)
{
	const char *rst = hwc_json_str_or(r, "status", "?");
	const char *dev = hwc_json_str_or(r, "rdma_device", NULL);
	const char *peer = hwc_json_str_or(r, "peer", NULL);
	const json_t *ok = hwc_q_get(r, "data_ok");
	bool tcp = strcmp(hwc_json_str_or(r, "op", ""), "tcp") == 0;
	if (tcp && !dev)
		dev = hwc_json_str_or(r, "netdev", NULL);
	const char *data = json_is_true(ok)    ? "data verified"
			   : json_is_false(ok) ? "data MISMATCH"
					       : "data checked at the other end";
	if (strcmp(rst, "ok") != 0) {
		printf("%s %s %s%s: %s: %s\n", hwc_json_str_or(r, "mode", "?"),
		       hwc_json_str_or(r, "op", ""), dev ? "on " : "", dev ? dev : peer ? peer : "",
		       rst, hwc_json_str_or(r, "reason", "?"));
	} else if (tcp && json_is_number(hwc_q_get(r, "gbps"))) {
		printf("%s\n", hwc_json_str_or(r, "finding", "?"));
		render_tcp(r);
		if (verbose)
			render_detail(r);
	} else if (tcp) {
		const json_t *b = hwc_q_get(r, "bytes");
		long long nb = json_is_integer(b) ? (long long)json_integer_value(b) : 0LL;
		long long ns = (long long)json_integer_value(hwc_q_get(r, "streams"));
		printf("server tcp %s %s on %s: %lld %s in %lld %s, %s (the client "
		       "measures the rate)\n", hwc_json_str_or(r, "direction", "?"),
		       peer ? peer : "?", hwc_json_str_or(r, "netdev", "?"), nb, hwc_cli_noun(nb, "byte", "bytes"),
		       ns, hwc_cli_noun(ns, "stream", "streams"), data);
	} else if (json_is_number(hwc_q_get(r, "gbps"))) {
		printf("%s\n", hwc_json_str_or(r, "finding", "?"));
		printf("  %lld x %lld B in %.2f s (%s), %.0f messages/s, %s\n",
		       (long long)json_integer_value(hwc_q_get(r, "messages")),
		       (long long)json_integer_value(hwc_q_get(r, "msg_bytes")),
		       json_number_value(hwc_q_get(r, "duration_s")),
		       hwc_json_str_or(r, "stopped", "?"),
		       json_number_value(hwc_q_get(r, "msgs_per_s")), data);
		if (verbose)
			render_detail(r);
	} else {
		/* the passive end of a two-host run: no rate here, only what arrived */
		const json_t *m = hwc_q_get(r, "messages");
		printf("%s %s on %s from %s: %s", hwc_json_str_or(r, "mode", "?"),
		       hwc_json_str_or(r, "op", "?"), dev ? dev : "?", peer ? peer : "?", data);
		if (json_is_integer(m))
			printf(", %lld %s received", (long long)json_integer_value(m),
			       hwc_cli_noun((long long)json_integer_value(m), "message", "messages"));
		printf(" (the client measures the rate)\n");
	}
}

static void render_text(const json_t *probe, bool verbose)
{
	size_t i;
	const json_t *r;
	json_array_foreach(hwc_q_get(probe, "results"), i, r)
		render_result(r, verbose);
	const char *st = hwc_json_str_or(probe, "status", "?");
	if (strcmp(st, "ok") != 0)
		printf("probe %s: %s\n", st, hwc_json_str_or(probe, "reason", "see above"));
}

int hwc_cmd_probe(struct hwc_cli *c)
{
	if (!hwc_cli_no_args(c, "probe"))
		return HWC_EXIT_USAGE;
	if (c->facts_file) {
		hwc_cli_err("probe: measures the live machine; --facts cannot be probed");
		return HWC_EXIT_USAGE;
	}
	struct hwc_probe_opts *o = opts();
	if (o->all_ports && o->mode == HWC_PROBE_CLIENT && !strchr(o->peer, ',')) {
		hwc_cli_err("probe: --all-ports --client needs one server address per port, two or "
			    "more comma-separated (--client ADDR1,ADDR2), got '%s'", o->peer);
		return HWC_EXIT_USAGE;
	}
	if (!o->all_ports && o->mode == HWC_PROBE_CLIENT && strchr(o->peer, ',')) {
		hwc_cli_err("probe: --client '%s' names several servers: that is --all-ports "
			    "(one address per port)", o->peer);
		return HWC_EXIT_USAGE;
	}
	c->probe = o;
	struct progress pg = {.t0 = mono()};
	if (isatty(STDERR_FILENO)) {
		o->progress = show_progress;
		o->progress_ctx = &pg;
	}
	int ec;
	struct hwc_facts *f = hwc_cli_facts(c, &ec);
	if (pg.shown)
		fputs("\r\033[K", stderr);
	if (!f)
		return ec;
	json_t *facts = hwc_facts_to_json(f);
	const json_t *probe = hwc_q_get(facts, "probe");
	const char *st = hwc_json_str_or(probe, "status", "skipped");
	int rc = 0;
	if (c->json) {
		json_t *rep = hwc_report_json(c, "hwcheck.facts", f, json_incref(facts), NULL);
		rc = rep ? hwc_emit_json(c, rep) : HWC_EXIT_INTERNAL;
		json_decref(rep);
	} else {
		render_text(probe, c->verbose);
	}
	hwc_render_errors(f);
	if (!rc) {
		if (strcmp(st, "ok") == 0)
			rc = HWC_EXIT_OK;
		else if (strcmp(st, "skipped") == 0)
			rc = HWC_EXIT_NOTHING;
		else
			rc = HWC_EXIT_FINDINGS;
		if (rc == HWC_EXIT_NOTHING && c->json)
			hwc_cli_err("probe skipped: %s", hwc_json_str_or(probe, "reason", "?"));
	}
	json_decref(facts);
	hwc_facts_free(f);
	return rc;
}

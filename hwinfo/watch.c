/* SPDX-License-Identifier: MIT */
/* --watch SEC (issue 14): after the main collection, the port counters are read twice, SEC seconds
 * apart, by the main collection's own readers (IB PortCounters + hw_counters, ethtool -S, the
 * carrier counters), and each counter's delta over the measured window becomes a fact. The two
 * samples are kept apart from the main collection by the env's sample index (core/env.h): a
 * snapshot records them under hwcheck/watch/<n>/ with the window at hwcheck/watch/window, and a
 * replay of that capture gives the same facts without waiting. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "core/query.h"
#include "core/wait.h"
#include "mlx/mlx.h"

#define WATCH_SAMPLES 2
/* What the run needs after the wait: the second sample and the report (a few ms; generous). */
#define WATCH_MARGIN_MS 1000u

/* ------------------------------------------------------------------ the window file */

/* A replay: the captured run's window. 1 when the capture has one, 0 when it has none (*why says
 * so), -EINVAL when it is not understood (*why names the file and the field). */
static int recorded_window(struct hwc_env *e, struct hwc_arena *a, struct hwc_watch_window *w,
			   struct hwc_fmeta *why)
{
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	if (hwc_read_bytes(e, HWC_WATCH_WINDOW, 4096, a, &d, &len, &m) < 0) {
		if (m.st == HWC_ST_ABSENT) {
			const char *only = hwc_env_only_input(e);
			hwc_fmeta_set(why, HWC_ST_ABSENT, 0,
				      only ? hwc_arena_printf(a, "--watch: %s holds no samples", only)
					   : hwc_arena_printf(a, "--watch: the capture %s holds no samples (no "
								 "%s: it was taken without --watch)",
							      hwc_env_root(e), HWC_WATCH_WINDOW));
			return 0;
		}
		*why = m;
		return -EINVAL;
	}
	const char *bad;
	if (hwc_watch_parse_window((const char *)d, len, w, &bad) < 0) {
		hwc_fmeta_set(why, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "/%s: %s", HWC_WATCH_WINDOW, bad));
		return -EINVAL;
	}
	return 1;
}

/* ------------------------------------------------------------------ one sample */

struct sample {
	struct hwc_fu64 (*ports)[HWC_MLX_NPORT_COUNTERS]; /* every adapter's ports, in order */
	struct hwc_netdev_counters *nd;
	struct hwc_fi64 *carrier;
	struct hwc_fi64 uptime; /* proc/uptime with the counters: the since-boot window of the last */
	struct timespec t0, t1; /* around its reads */
};

static size_t port_count(const struct hwc_facts *f)
{
	size_t n = 0;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++)
		n += f->mlx->adapters.items[i].ports.n;
	return n;
}

static size_t netdev_count(const struct hwc_facts *f)
{
	return f->netdevs ? f->netdevs->netdevs.n : 0;
}

static bool sample_alloc(struct hwc_arena *a, const struct hwc_facts *f, struct sample *s)
{
	size_t np = port_count(f), nn = netdev_count(f);
	s->ports = np ? hwc_arena_calloc(a, np, sizeof(*s->ports)) : NULL;
	s->nd = nn ? hwc_arena_calloc(a, nn, sizeof(*s->nd)) : NULL;
	s->carrier = nn ? hwc_arena_calloc(a, nn, sizeof(*s->carrier)) : NULL;
	return (!np || s->ports) && (!nn || (s->nd && s->carrier));
}

/* Why the main collection did not read a port's counters (a restricted function): the sample
 * does not read them either. */
static const char *skipped_why(const struct hwc_mlx_port *p)
{
	for (size_t i = 0; i < HWC_MLX_NPORT_COUNTERS; i++)
		if (p->counters[i].m.st == HWC_ST_BLOCKED)
			return p->counters[i].m.detail ? p->counters[i].m.detail : "not read";
	return NULL;
}

static void take_sample(struct hwc_env *e, struct hwc_facts *f, unsigned n, struct sample *s)
{
	struct hwc_arena *a = f->arena;
	hwc_env_set_sample(e, n);
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	size_t k = 0;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		for (size_t j = 0; j < ad->ports.n; j++, k++) {
			const struct hwc_mlx_port *p = &ad->ports.items[j];
			hwc_mlx_read_port_counters(e, a, p->rdma_device, p->port, skipped_why(p),
						   s->ports[k]);
		}
	}
	for (size_t i = 0; i < netdev_count(f); i++) {
		const char *ifn = f->netdevs->netdevs.items[i].name;
		struct hwc_netdev_link link = {0};
		hwc_netdev_read_stats(e, f, ifn, &s->nd[i]);
		hwc_netdev_read_carrier(e, a, ifn, &link);
		s->carrier[i] = link.carrier_changes;
	}
	hwc_host_read_uptime(e, a, &s->uptime);
	clock_gettime(CLOCK_MONOTONIC, &s->t1);
	hwc_env_set_sample(e, 0);
}

/* ------------------------------------------------------------------ deltas */

/* The one delta of two samples of a counter: the status of a sample that failed; unknown when
 * the counter sat at its maximum (max, 0 for none) in either sample or went backwards. */
static void delta(struct hwc_arena *a, const char *name, uint64_t max, const struct hwc_fu64 *x,
		  const struct hwc_fu64 *y, struct hwc_fu64 *out)
{
	if (!hwc_ok(*x) || !hwc_ok(*y)) {
		out->m = hwc_ok(*x) ? y->m : x->m;
		return;
	}
	if (max && (x->v >= max || y->v >= max))
		HWC_FAIL(*out, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "%s was at its maximum %llu in sample %d (%llu, then %llu): "
					     "saturated, the delta over the window is unknown", name,
					  (unsigned long long)max, x->v >= max ? 1 : 2,
					  (unsigned long long)x->v, (unsigned long long)y->v));
	else if (y->v < x->v)
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%s went backwards from %llu to %llu: cleared (or wrapped) "
					     "during the window, the delta is unknown", name,
					  (unsigned long long)x->v, (unsigned long long)y->v));
	else
		HWC_SET(*out, y->v - x->v);
}

static struct hwc_fu64 as_u64(const struct hwc_fi64 *x)
{
	struct hwc_fu64 u = {.m = x->m, .v = hwc_ok(*x) && x->v > 0 ? (uint64_t)x->v : 0};
	return u;
}

static void carrier_delta(struct hwc_arena *a, const struct hwc_fi64 *x, const struct hwc_fi64 *y,
			  struct hwc_fi64 *out)
{
	if (hwc_ok(*x) && hwc_ok(*y) && (x->v < 0 || y->v < 0)) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0, "carrier_changes is negative in a sample");
		return;
	}
	struct hwc_fu64 ux = as_u64(x), uy = as_u64(y), d = {0};
	delta(a, "carrier_changes", 0, &ux, &uy, &d);
	out->m = d.m;
	out->v = (int64_t)d.v;
}

static void netdev_deltas(struct hwc_arena *a, struct hwc_netdev *nd, size_t i,
			  const struct sample *s1, const struct sample *s2, double window_s)
{
	hwc_fmeta_set(&nd->counters_window.m, HWC_ST_OK, 0, NULL);
	for (size_t c = 0; c < HWC_NETDEV_NCOUNTERS; c++)
		delta(a, hwc_netdev_counter_names[c], 0, &s1->nd[i].v[c], &s2->nd[i].v[c],
		      &nd->counters_window.v[c]);
	carrier_delta(a, &s1->carrier[i], &s2->carrier[i], &nd->link.carrier_changes_window);
	hwc_netdev_ber_window(a, nd, window_s);
}

static void all_deltas(struct hwc_facts *f, const struct sample *s1, const struct sample *s2,
		       double window_s)
{
	struct hwc_arena *a = f->arena;
	size_t k = 0;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++) {
		struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		for (size_t j = 0; j < ad->ports.n; j++, k++) {
			struct hwc_mlx_counters_window *w = &ad->ports.items[j].counters_window;
			hwc_fmeta_set(&w->m, HWC_ST_OK, 0, NULL);
			for (size_t c = 0; c < HWC_MLX_NPORT_COUNTERS; c++)
				delta(a, hwc_mlx_port_counter_names[c], hwc_q_ib_counter_max(hwc_mlx_port_counter_names[c]), &s1->ports[k][c],
				      &s2->ports[k][c], &w->v[c]);
		}
	}
	for (size_t i = 0; i < netdev_count(f); i++)
		netdev_deltas(a, &f->netdevs->netdevs.items[i], i, s1, s2, window_s);
}

/* The since-boot figures become the last sample's: the main collection read them before sample
 * 1, so a window's delta could exceed its since-boot count ("0 since boot, +12 in the window").
 * Each counter sample 2 read replaces the main one (one it could not read keeps it), and the BER
 * since the counters' clear follows them. So does the uptime (host.kernel.uptime_s), read with
 * sample 2's counters, so a rate per hour since boot divides them by their own window; a capture
 * whose sample holds no proc/uptime (taken before it was read there) keeps the main one. */
static void since_boot_of_last(struct hwc_facts *f, const struct sample *s2)
{
	size_t k = 0;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++) {
		struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		for (size_t j = 0; j < ad->ports.n; j++, k++)
			for (size_t c = 0; c < HWC_MLX_NPORT_COUNTERS; c++)
				if (hwc_ok(s2->ports[k][c]))
					ad->ports.items[j].counters[c] = s2->ports[k][c];
	}
	for (size_t i = 0; i < netdev_count(f); i++) {
		struct hwc_netdev *nd = &f->netdevs->netdevs.items[i];
		for (size_t c = 0; c < HWC_NETDEV_NCOUNTERS; c++)
			if (hwc_ok(s2->nd[i].v[c]))
				nd->counters.v[c] = s2->nd[i].v[c];
		if (hwc_ok(s2->nd[i].count))
			nd->counters.count = s2->nd[i].count;
		if (hwc_ok(s2->carrier[i]))
			nd->link.carrier_changes = s2->carrier[i];
		hwc_netdev_ber_since_clear(f->arena, nd);
	}
	if (f->host && hwc_ok(s2->uptime))
		f->host->kernel.uptime_s = s2->uptime;
}

/* No window: every per-port window fact says why. */
static void fail_all(struct hwc_facts *f, const struct hwc_fmeta *why)
{
	struct hwc_watch_facts *w = f->watch;
	w->window_s.m = w->samples.m = *why;
	for (size_t i = 0; f->mlx && i < f->mlx->adapters.n; i++)
		for (size_t j = 0; j < f->mlx->adapters.items[i].ports.n; j++)
			f->mlx->adapters.items[i].ports.items[j].counters_window.m = *why;
	for (size_t i = 0; i < netdev_count(f); i++) {
		struct hwc_netdev *nd = &f->netdevs->netdevs.items[i];
		nd->counters_window.m = nd->link.ber_window.m = *why;
		nd->link.carrier_changes_window.m = *why;
	}
}

/* ------------------------------------------------------------------ the live wait */

static double mid_s(const struct sample *s)
{
	return ((double)s->t0.tv_sec + (double)s->t1.tv_sec) / 2 +
	       ((double)s->t0.tv_nsec + (double)s->t1.tv_nsec) / 2e9;
}

/* Sleeps until `at` (CLOCK_MONOTONIC), marked as a wait for the watchdog; a signal that ends the
 * run (SIGINT, SIGTERM) ends it in its handler. */
static void sleep_until(const struct timespec *at)
{
	hwc_wait_begin();
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, at, NULL) == EINTR)
		;
	hwc_wait_end();
}

/* The live samples: sample 1, the wait (start to start: SEC), sample 2; the window is the time
 * between the midpoints of the two samples' reads. Recorded for a snapshot. */
static void live_window(struct hwc_env *e, struct hwc_facts *f, unsigned sec,
			struct sample *s1, struct sample *s2, struct hwc_watch_window *w)
{
	take_sample(e, f, 1, s1);
	struct timespec at = s1->t0;
	at.tv_sec += sec;
	sleep_until(&at);
	take_sample(e, f, 2, s2);
	double us = (mid_s(s2) - mid_s(s1)) * 1e6;
	*w = (struct hwc_watch_window){sec, us < 1 ? 1 : (uint64_t)(us + 0.5), WATCH_SAMPLES};
	if (hwc_env_recording(e)) {
		char text[96];
		int n = snprintf(text, sizeof(text), "requested_s=%u\nwindow_us=%llu\nsamples=%u\n",
				 w->requested_s, (unsigned long long)w->window_us, w->samples);
		hwc_env_capture_blob(e, HWC_WATCH_WINDOW, text, (size_t)n);
	}
}

/* Whether the run's --timeout leaves room for the wait; false with why. */
static bool wait_fits(struct hwc_env *e, struct hwc_arena *a, unsigned sec, struct hwc_fmeta *why)
{
	unsigned left = hwc_env_time_left_ms(e);
	if (left == UINT32_MAX || left >= sec * 1000u + WATCH_MARGIN_MS)
		return true;
	hwc_fmeta_set(why, HWC_ST_TIMEOUT, 0,
		      hwc_arena_printf(a, "--watch %u: the run's --timeout leaves %u ms, not enough for "
					  "the %u s wait and the second sample; not sampled", sec, left, sec));
	return false;
}

int hwc_watch_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_arena *a = f->arena;
	unsigned want = o ? o->watch_s : 0;
	bool replay = hwc_env_mode(e) == HWC_RUN_REPLAY;
	struct hwc_watch_window w = {0};
	struct hwc_fmeta why = {0};
	int have = replay ? recorded_window(e, a, &w, &why) : 0;
	if (!want && have == 0)
		return 0; /* no watch asked, none recorded: the rules judge since boot */
	struct hwc_watch_facts *wf = HWC_FACTS_SECTION(f, watch);
	if (!wf)
		return -ENOMEM;
	hwc_fmeta_set(&wf->m, HWC_ST_OK, 0, NULL);
	HWC_SET(wf->requested_s, have > 0 ? (int64_t)w.requested_s : (int64_t)want);
	if (have < 0)
		hwc_facts_error(f, "watch", HWC_WATCH_WINDOW, "%s", why.detail ? why.detail : "unreadable");
	if (!port_count(f) && !netdev_count(f)) { /* the window runs, but says it sampled nothing */
		const char *opt = hwc_arena_printf(a, "--watch %lld", (long long)wf->requested_s.v);
		hwc_facts_error(f, "watch", opt ? opt : "--watch",
				"no ConnectX port or netdev on this host: the window sampled nothing");
	}
	if (have <= 0 && (replay || !wait_fits(e, a, want, &why))) {
		fail_all(f, &why);
		return 0;
	}
	struct sample s1 = {0}, s2 = {0};
	if (!sample_alloc(a, f, &s1) || !sample_alloc(a, f, &s2))
		return -ENOMEM;
	if (replay) {
		take_sample(e, f, 1, &s1);
		take_sample(e, f, 2, &s2);
	} else {
		live_window(e, f, want, &s1, &s2, &w);
	}
	double window_s = (double)w.window_us / 1e6;
	HWC_SET(wf->window_s, window_s);
	HWC_SET(wf->samples, (int64_t)w.samples);
	all_deltas(f, &s1, &s2, window_s);
	since_boot_of_last(f, &s2);
	return 0;
}

/* ------------------------------------------------------------------ JSON */

static const struct hwc_jfield watch_f[] = {
	HWC_JFD(struct hwc_watch_facts, requested_s, HWC_JT_I64,
		"the SEC of --watch SEC (in a replay: the captured run's)"),
	HWC_JFD(struct hwc_watch_facts, window_s, HWC_JT_F64,
		"seconds between the two samples, measured (CLOCK_MONOTONIC) between the midpoints of "
		"each sample's reads and recorded in a snapshot, so that its replay gives the same; null "
		"with the reason when there is no window (a capture without samples, no room left in "
		"--timeout)"),
	HWC_JFD(struct hwc_watch_facts, samples, HWC_JT_I64,
		"how many samples were taken: 2; the since-boot counters (mlx ports' counters, netdevs' "
		"counters, link.carrier_changes and link.ber) are then the second sample's, never older "
		"than their window's delta"),
};
const struct hwc_jtable hwc_watch_table = HWC_JTABLE("watch", watch_f, 0);

json_t *hwc_watch_to_json(const struct hwc_facts *f)
{
	if (!f->watch || f->watch->m.st == HWC_ST_UNSET)
		return NULL;
	return hwc_json_from_table(f->watch, &hwc_watch_table);
}

int hwc_watch_from_json(const json_t *j, struct hwc_facts *f)
{
	int rc = 0;
	struct hwc_watch_facts *w = hwc_json_section_from(j, f->arena, sizeof(*w), &hwc_watch_table, &rc);
	if (!w)
		return rc;
	hwc_fmeta_set(&w->m, HWC_ST_OK, 0, NULL);
	f->watch = w;
	return rc;
}

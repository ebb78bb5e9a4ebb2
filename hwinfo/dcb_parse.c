/* SPDX-License-Identifier: MIT */
/* Parsers of the DCB views of a RoCE port: iproute2's `dcb -j` JSON (app, pfc, ets, dcbx, buffer)
 * and MLNX_OFED's `mlnx_qos -i` text, into one shape; and the RoCE counters of `ethtool -S`.
 * Formats: iproute2 dcb/dcb_{app,pfc,ets,dcbx,buffer}.c (keys prio_pfc, tc_bw, tc_tsa, prio_tc,
 * dscp_prio as [dscp, prio(, " ")] pairs, dcbx flags as booleans); mlnx-tools python/mlnx_qos
 * (pretty_print). Trust, as mlnx_qos decides it without its sysfs file: DSCP entries in the APP
 * table mean the port trusts DSCP. */
#include "hwinfo/roce.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json.h"
#include "core/scan.h"
#include "core/util.h"

void hwc_roce_qos_init(struct hwc_roce_qos *q, struct hwc_arena *a, const char *src)
{
	const char *d = hwc_arena_printf(a, "%s: not reported", src);
	memset(q, 0, sizeof(*q));
	HWC_FAIL(q->source, HWC_ST_ABSENT, 0, d);
	HWC_FAIL(q->dcbx_mode, HWC_ST_ABSENT, 0, d);
	HWC_FAIL(q->trust, HWC_ST_ABSENT, 0, d);
	hwc_fslots_init(&q->dscp2prio, HWC_ROCE_NDSCP, false, d);
	hwc_fslots_init(&q->pfc_enabled, HWC_ROCE_NPRIO, true, d);
	hwc_fslots_init(&q->prio_tc, HWC_ROCE_NPRIO, false, d);
	hwc_fslots_init(&q->tc_bw, HWC_ROCE_NPRIO, false, d);
	hwc_fslots_init(&q->prio_buffer, HWC_ROCE_NPRIO, false, d);
	hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_ABSENT, 0, d);
}

/* ------------------------------------------------------------------ dcb -j */

/* A JSON array of up to r->n integers (or booleans) in [0, max]. */
static int json_arr(const json_t *j, struct hwc_fslots *r, int64_t max)
{
	if (!json_is_array(j) || json_array_size(j) > r->n)
		return -EINVAL;
	struct hwc_fslots t = *r;
	hwc_fslots_ok(&t);
	size_t i;
	const json_t *x;
	json_array_foreach(j, i, x) {
		int64_t v;
		if (t.is_bool && json_is_boolean(x))
			v = json_is_true(x);
		else if (!t.is_bool && json_is_integer(x) && json_integer_value(x) >= 0 &&
			 json_integer_value(x) <= max)
			v = json_integer_value(x);
		else
			return -EINVAL;
		hwc_fslots_set(&t, (unsigned)i, v);
	}
	*r = t;
	return 0;
}

static int dcb_app(const json_t *j, struct hwc_arena *a, const char *src, struct hwc_roce_qos *q)
{
	const json_t *dp = json_object_get(j, "dscp_prio");
	struct hwc_fslots m = q->dscp2prio;
	hwc_fslots_ok(&m);
	size_t i, n = 0;
	const json_t *e;
	if (dp && !json_is_array(dp))
		return -EINVAL;
	json_array_foreach(dp, i, e) {
		const json_t *d = json_array_get(e, 0), *p = json_array_get(e, 1);
		if (!json_is_integer(d) || !json_is_integer(p) || json_integer_value(d) < 0 ||
		    json_integer_value(d) >= HWC_ROCE_NDSCP || json_integer_value(p) < 0 ||
		    json_integer_value(p) >= HWC_ROCE_NPRIO)
			return -EINVAL;
		hwc_fslots_set(&m, (unsigned)json_integer_value(d), json_integer_value(p));
		n++;
	}
	q->dscp2prio = m;
	/* mlx5 keeps the DSCP entries in the APP table exactly while the port trusts DSCP */
	HWC_SET(q->trust, n ? "dscp" : "pcp");
	if (!n)
		HWC_FAIL(q->dscp2prio, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no dscp_prio entry (the port trusts PCP)", src));
	return 0;
}

static int dcb_ets(const json_t *j, struct hwc_arena *a, struct hwc_roce_qos *q)
{
	struct hwc_fslots tc = q->prio_tc, bw = q->tc_bw;
	if (json_arr(json_object_get(j, "prio_tc"), &tc, HWC_ROCE_NPRIO - 1) < 0 ||
	    json_arr(json_object_get(j, "tc_bw"), &bw, 100) < 0)
		return -EINVAL;
	const json_t *tsa = json_object_get(j, "tc_tsa");
	if (!json_is_array(tsa) || json_array_size(tsa) > HWC_ROCE_NPRIO)
		return -EINVAL;
	const char *names[HWC_ROCE_NPRIO] = {0};
	size_t i;
	const json_t *x;
	json_array_foreach(tsa, i, x) {
		if (!json_is_string(x))
			return -EINVAL;
		names[i] = hwc_arena_strdup(a, json_string_value(x)); /* j is freed after */
	}
	q->prio_tc = tc;
	q->tc_bw = bw;
	memcpy(q->tc_tsa, names, sizeof(names));
	hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_OK, 0, NULL);
	return 0;
}

static int dcb_dispatch(enum hwc_dcb_show what, const json_t *j, struct hwc_arena *a,
			const char *src, struct hwc_roce_qos *q)
{
	struct hwc_fslots r;
	switch (what) {
	case HWC_DCB_APP:
		return dcb_app(j, a, src, q);
	case HWC_DCB_PFC:
		r = q->pfc_enabled;
		if (json_arr(json_object_get(j, "prio_pfc"), &r, 1) < 0)
			return -EINVAL;
		q->pfc_enabled = r;
		return 0;
	case HWC_DCB_ETS:
		return dcb_ets(j, a, q);
	case HWC_DCB_DCBX:
		/* DCB_CAP_DCBX_HOST: the host runs DCBX (or nobody); otherwise the firmware does */
		HWC_SET(q->dcbx_mode, json_is_true(json_object_get(j, "host")) ? "host" : "firmware");
		return 0;
	case HWC_DCB_BUFFER:
		r = q->prio_buffer;
		if (json_arr(json_object_get(j, "prio_buffer"), &r, HWC_ROCE_NPRIO - 1) < 0)
			return -EINVAL;
		q->prio_buffer = r;
		return 0;
	}
	return -EINVAL;
}

void hwc_dcb_fail(enum hwc_dcb_show what, struct hwc_roce_qos *q, enum hwc_status st,
		  const char *d)
{
	/* the facts each dcb section fills */
	struct hwc_fmeta *m[HWC_DCB_BUFFER + 1][3] = {
		[HWC_DCB_APP] = {&q->trust.m, &q->dscp2prio.m},
		[HWC_DCB_PFC] = {&q->pfc_enabled.m},
		[HWC_DCB_ETS] = {&q->prio_tc.m, &q->tc_bw.m, &q->tc_tsa_m},
		[HWC_DCB_DCBX] = {&q->dcbx_mode.m},
		[HWC_DCB_BUFFER] = {&q->prio_buffer.m},
	};
	for (size_t i = 0; (unsigned)what <= HWC_DCB_BUFFER && i < 3 && m[what][i]; i++)
		hwc_fmeta_set(m[what][i], st, 0, d);
}

int hwc_dcb_parse(enum hwc_dcb_show what, const char *buf, size_t len, const char *src,
		  struct hwc_arena *a, struct hwc_roce_qos *q)
{
	json_error_t err;
	json_t *j = buf ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err) : NULL;
	int rc = json_is_object(j) ? dcb_dispatch(what, j, a, src, q) : -EINVAL;
	if (rc < 0)
		hwc_dcb_fail(what, q, HWC_ST_INVALID,
			    j ? hwc_arena_printf(a, "%s: not the JSON dcb prints (unexpected keys or values)", src)
			      : hwc_arena_printf(a, "%s: not JSON: %s (line %d)", src, err.text, err.line));
	json_decref(j);
	return rc;
}

/* ------------------------------------------------------------------ text lines */

struct ln {
	const char *p;
	size_t n;
};

static bool next_ln(const char *buf, size_t len, size_t *pos, struct ln *l)
{
	const char *s;
	size_t n;
	if (!hwc_next_line(buf, len, pos, &s, &n))
		return false;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*l = (struct ln){s, n};
	return true;
}

static bool ln_starts(struct ln l, const char *s, struct ln *rest)
{
	size_t k = strlen(s);
	if (l.n < k || memcmp(l.p, s, k) != 0)
		return false;
	rest->p = l.p + k;
	rest->n = l.n - k;
	while (rest->n && (*rest->p == ' ' || *rest->p == '\t')) {
		rest->p++;
		rest->n--;
	}
	return true;
}

/* The next decimal number of l from *i (skipping non-digits), -1 at the end. */
static int64_t next_num(struct ln l, size_t *i)
{
	while (*i < l.n && (l.p[*i] < '0' || l.p[*i] > '9'))
		(*i)++;
	if (*i >= l.n)
		return -1;
	int64_t v = 0;
	while (*i < l.n && l.p[*i] >= '0' && l.p[*i] <= '9' && v < 100000000)
		v = v * 10 + (l.p[(*i)++] - '0');
	return v;
}

/* ------------------------------------------------------------------ mlnx_qos -i */

struct qos_state {
	int tc;      /* the "tc: N" block the "priority: P" lines belong to, -1 none */
	bool in_map; /* inside "dscp2prio mapping:" */
	unsigned seen;
};

/* "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%" */
static void qos_tc(struct ln rest, struct hwc_arena *a, struct hwc_roce_qos *q,
		   struct qos_state *st)
{
	size_t i = 0;
	int64_t tc = next_num(rest, &i);
	st->tc = tc >= 0 && tc < HWC_ROCE_NPRIO ? (int)tc : -1;
	if (st->tc < 0)
		return;
	const char *t = memmem(rest.p, rest.n, "tsa: ", 5);
	if (t) {
		size_t k = (size_t)(t - rest.p) + 5, e = k;
		while (e < rest.n && rest.p[e] != ',' && rest.p[e] != ' ')
			e++;
		if (q->tc_tsa_m.st != HWC_ST_OK) {
			memset(q->tc_tsa, 0, sizeof(q->tc_tsa));
			hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_OK, 0, NULL);
		}
		q->tc_tsa[st->tc] = hwc_arena_strndup(a, rest.p + k, e - k);
	}
	const char *b = memmem(rest.p, rest.n, "bw: ", 4);
	if (b) {
		size_t k = (size_t)(b - rest.p);
		int64_t bw = next_num(rest, &k);
		if (bw >= 0 && bw <= 100)
			hwc_fslots_set(&q->tc_bw, (unsigned)st->tc, bw);
	}
	hwc_fslots_ok(&q->prio_tc);
	st->seen++;
}

/* "enabled 0 0 0 1 0 0 0 0" / "buffer 0 0 0 1 ..." */
static void qos_row(struct ln rest, struct hwc_fslots *r, int64_t max)
{
	size_t i = 0;
	struct hwc_fslots t = *r;
	for (unsigned k = 0; k < HWC_ROCE_NPRIO; k++) {
		int64_t v = next_num(rest, &i);
		if (v < 0 || v > max)
			return;
		hwc_fslots_set(&t, k, v);
	}
	*r = t;
}

/* "prio:3 dscp:31,30,29,28,27,26,25,24," */
static void qos_map(struct ln l, struct hwc_roce_qos *q)
{
	size_t i = 0;
	int64_t prio = next_num(l, &i);
	if (prio < 0 || prio >= HWC_ROCE_NPRIO)
		return;
	hwc_fslots_ok(&q->dscp2prio);
	for (int64_t d; (d = next_num(l, &i)) >= 0;)
		if (d < HWC_ROCE_NDSCP)
			hwc_fslots_set(&q->dscp2prio, (unsigned)d, prio);
}

static void qos_line(struct ln l, struct hwc_arena *a, struct hwc_roce_qos *q,
		     struct qos_state *st)
{
	struct ln r;
	if (ln_starts(l, "DCBX mode:", &r)) {
		HWC_SET(q->dcbx_mode, r.n >= 2 && memcmp(r.p, "OS", 2) == 0 ? "host" : "firmware");
		st->seen++;
	} else if (ln_starts(l, "Priority trust state:", &r) ||
		   ln_starts(l, "Priority trust mode:", &r)) {
		HWC_SET(q->trust, hwc_arena_strndup(a, r.p, r.n));
		st->seen++;
	} else if (ln_starts(l, "dscp2prio mapping:", &r)) {
		st->in_map = true;
		return;
	} else if (st->in_map && ln_starts(l, "prio:", &r)) {
		qos_map(l, q);
		return;
	} else if (ln_starts(l, "enabled", &r)) {
		qos_row(r, &q->pfc_enabled, 1);
		st->seen++;
	} else if (ln_starts(l, "buffer", &r)) {
		qos_row(r, &q->prio_buffer, HWC_ROCE_NPRIO - 1);
	} else if (ln_starts(l, "tc:", &r)) {
		qos_tc(r, a, q, st);
	} else if (st->tc >= 0 && ln_starts(l, "priority:", &r)) {
		size_t i = 0;
		int64_t p = next_num(r, &i);
		if (p >= 0 && p < HWC_ROCE_NPRIO)
			hwc_fslots_set(&q->prio_tc, (unsigned)p, st->tc);
	}
	st->in_map = false;
}

int hwc_mlnx_qos_parse(const char *buf, size_t len, const char *src, struct hwc_arena *a,
		       struct hwc_roce_qos *q)
{
	struct qos_state st = {.tc = -1};
	size_t pos = 0;
	struct ln l;
	while (buf && next_ln(buf, len, &pos, &l))
		if (l.n)
			qos_line(l, a, q, &st);
	if (!st.seen) {
		const char *d = hwc_arena_printf(a, "%s: no 'DCBX mode:', 'Priority trust state:', "
						    "'enabled' or 'tc:' line", src);
		for (int w = HWC_DCB_APP; w <= HWC_DCB_BUFFER; w++)
			hwc_dcb_fail((enum hwc_dcb_show)w, q, HWC_ST_INVALID, d);
		return -EINVAL;
	}
	if (hwc_ok(q->trust) && strcmp(q->trust.v, "dscp") != 0 && q->dscp2prio.m.st != HWC_ST_OK)
		HWC_FAIL(q->dscp2prio, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no DSCP map (the port trusts %s)", src, q->trust.v));
	return 0;
}

/* ------------------------------------------------------------------ ethtool -S */

/* The per-priority arrays are the integer slot entries of the counters' table (roce_json.c): the
 * array of entry i, or NULL when entry i is something else. */
static struct hwc_fslots *prio_array(struct hwc_roce_counters *c, size_t i)
{
	const struct hwc_jfield *fd = &hwc_roce_counters_table.f[i];
	return fd->t == HWC_JT_I64_SLOTS ? (struct hwc_fslots *)((char *)c + fd->off) : NULL;
}

/* ethtool -S names a per-priority counter "<dir>_prio<N>_<what>" ("rx_prio3_pause"): its array is
 * the one whose key is that name without <N> ("rx_prio_pause"). */
static struct hwc_fslots *prio_counter(struct hwc_roce_counters *c, struct ln k, unsigned *prio)
{
	if (k.n < 10 || memcmp(k.p + 2, "_prio", 5) != 0 || k.p[7] < '0' || k.p[7] > '7' ||
	    k.p[8] != '_')
		return NULL;
	*prio = (unsigned)(k.p[7] - '0');
	for (size_t i = 0; i < hwc_roce_counters_table.n; i++) {
		const char *key = hwc_roce_counters_table.f[i].key;
		if (prio_array(c, i) && strlen(key) == k.n - 1 && memcmp(key, k.p, 7) == 0 &&
		    memcmp(key + 7, k.p + 8, k.n - 8) == 0)
			return prio_array(c, i);
	}
	return NULL;
}

static bool split_counter(struct ln l, struct ln *k, uint64_t *v)
{
	const char *c = memchr(l.p, ':', l.n);
	if (!c)
		return false;
	*k = (struct ln){l.p, (size_t)(c - l.p)};
	while (k->n && (k->p[k->n - 1] == ' ' || k->p[k->n - 1] == '\t'))
		k->n--;
	char tmp[24];
	struct ln r = {c + 1, l.n - (size_t)(c - l.p) - 1};
	while (r.n && (*r.p == ' ' || *r.p == '\t')) {
		r.p++;
		r.n--;
	}
	if (!r.n || r.n >= sizeof(tmp))
		return false;
	memcpy(tmp, r.p, r.n);
	tmp[r.n] = 0;
	return hwc_parse_u64(tmp, 10, v) == 0;
}

int hwc_roce_parse_ethtool(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			   struct hwc_roce_counters *c)
{
	const char *none = hwc_arena_printf(a, "%s: the driver reports it for no priority", src);
	for (size_t i = 0; i < hwc_roce_counters_table.n; i++)
		if (prio_array(c, i))
			hwc_fslots_init(prio_array(c, i), HWC_ROCE_NPRIO, false, none);
	HWC_FAIL(c->pause_storm_warning, HWC_ST_ABSENT, 0,
		 hwc_arena_printf(a, "%s: no tx_pause_storm_warning_events", src));
	HWC_FAIL(c->pause_storm_error, HWC_ST_ABSENT, 0,
		 hwc_arena_printf(a, "%s: no tx_pause_storm_error_events", src));
	size_t pos = 0, lines = 0;
	struct ln l, k;
	uint64_t v;
	while (buf && next_ln(buf, len, &pos, &l)) {
		if (!split_counter(l, &k, &v))
			continue;
		lines++;
		unsigned prio;
		struct hwc_fslots *r = prio_counter(c, k, &prio);
		if (r && v <= INT64_MAX)
			hwc_fslots_set(r, prio, (int64_t)v);
		else if (k.n == 29 && memcmp(k.p, "tx_pause_storm_warning_events", 29) == 0)
			HWC_SET(c->pause_storm_warning, v);
		else if (k.n == 27 && memcmp(k.p, "tx_pause_storm_error_events", 27) == 0)
			HWC_SET(c->pause_storm_error, v);
	}
	if (!lines) {
		const char *d = hwc_arena_printf(a, "%s: no 'name: value' counter line", src);
		for (size_t i = 0; i < hwc_roce_counters_table.n; i++)
			if (prio_array(c, i))
				HWC_FAIL(*prio_array(c, i), HWC_ST_INVALID, 0, d);
		HWC_FAIL(c->pause_storm_warning, HWC_ST_INVALID, 0, d);
		HWC_FAIL(c->pause_storm_error, HWC_ST_INVALID, 0, d);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ GIDs */

bool hwc_roce_gid_zero(const char *gid)
{
	for (const char *p = gid; p && *p; p++)
		if (*p != '0' && *p != ':')
			return false;
	return true;
}

bool hwc_roce_gid_routable(const char *gid)
{
	if (!gid || hwc_roce_gid_zero(gid))
		return false;
	/* fe80::/10 link-local: the first group is fe80..febf */
	return !(strncasecmp(gid, "fe8", 3) == 0 || strncasecmp(gid, "fe9", 3) == 0 ||
		 strncasecmp(gid, "fea", 3) == 0 || strncasecmp(gid, "feb", 3) == 0);
}

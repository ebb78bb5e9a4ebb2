/* SPDX-License-Identifier: MIT */
/* The rule table (assembled from the per-area lists), evaluation, findings and their JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "rules/rules-int.h"

static const char *const sev_names[] = {"info", "warn", "error", "unknown"};

const char *hwc_severity_name(enum hwc_severity s)
{
	return (unsigned)s <= HWC_SEV_UNKNOWN ? sev_names[s] : "unknown";
}

int hwc_severity_from_name(const char *s)
{
	for (int i = 0; s && i <= HWC_SEV_UNKNOWN; i++)
		if (strcmp(s, sev_names[i]) == 0)
			return i;
	return -1;
}

/* ------------------------------------------------------------------ the table */

static void eval_no_adapter(struct hwc_rule_ctx *c)
{
	const json_t *ad = hwc_q_adapters(c->facts);
	if (json_array_size(ad) > 0)
		return;
	if (!ad) {
		/* No adapter list at all: the mlx collector did not run or failed. */
		const char *why = NULL;
		const json_t *v;
		hwc_q_find(c->facts, "mlx.adapters", &v, &why, c->a);
		hwc_rule_unknown(c, "host", "mlx.adapters", why, "whether a ConnectX adapter is present");
		return;
	}
	/* where the facts were read (host.read_from, pci.source): a --root capture or a --pci-dump
	 * file is not this machine */
	const char *from = hwc_q_string(hwc_q_get(c->facts, "host"), "read_from");
	const char *src = hwc_q_string(hwc_q_get(c->facts, "pci"), "source");
	bool dump = src && !strcmp(src, "dump");
	const char *where = !from ? "" : !strcmp(from, "pci-dump") ? " in this PCI dump (--pci-dump)"
				  : !strcmp(from, "capture") ? (dump ? " in this capture (--root) and PCI dump (--pci-dump)"
								      : " in this capture (--root)")
				  : !strcmp(from, "live") ? " on this machine" : "";
	struct hwc_finding *fd = hwc_rule_emit(c, "host", "no ConnectX adapter was found%s", where);
	hwc_evidence_add(fd, c->a, "mlx.adapters", "[]", "at least one adapter");
	if (from)
		hwc_evidence_add(fd, c->a, "host.read_from", from, NULL);
	if (dump)
		hwc_evidence_add(fd, c->a, "pci.source", src, NULL);
}

static void eval_expectations(struct hwc_rule_ctx *c)
{
	hwc_expectations_eval(c->facts, c->prof, c->a, c->out);
}

static const struct hwc_rule core_rules[] = {
	{"MLX_NO_ADAPTER", HWC_SEV_WARN, "mlx", "No ConnectX adapter found",
	 "hwcheck inspects NVIDIA/Mellanox ConnectX adapters; none (PCI vendor 0x15b3) was found, so "
	 "only the host was checked. On a node that should have one, the card is missing, unseated "
	 "or disabled in firmware.",
	 "Check that the card is seated and enabled in BIOS; `lspci -d 15b3:` should list it.",
	 eval_no_adapter},
	{"PROFILE_EXPECTATION", HWC_SEV_WARN, "profile", "A site expectation from the profile is not met",
	 "The profile's \"expectations\" let a site add a check over any fact path without a rebuild "
	 "({\"fact\": \"netdevs[].mtu\", \"op\": \">=\", \"value\": 9000}). Each expectation carries its "
	 "own severity and may carry its own id (SITE_...).",
	 "Bring the fact to the expected value, or change the expectation in the profile.",
	 eval_expectations},
	HWC_RULES_END,
};

static struct hwc_rule all_rules[160];
static size_t n_all;

/* The rules of r up to its HWC_RULES_END. */
static void append(const struct hwc_rule *r)
{
	for (; r->id && n_all < HWC_ARRAY_SIZE(all_rules); r++)
		all_rules[n_all++] = *r;
}

const struct hwc_rule *hwc_rules_table(size_t *n)
{
	if (!n_all) {
		append(hwc_rules_pci);
		append(hwc_rules_mlx);
		append(hwc_rules_fw);
		append(core_rules);
		append(hwc_rules_thermal);
		append(hwc_rules_host);
		append(hwc_rules_gpudirect);
		append(hwc_rules_netdev);
		append(hwc_rules_link);
		append(hwc_rules_module);
		append(hwc_rules_rate);
		append(hwc_rules_roce);
		append(hwc_rules_probe);
		append(hwc_rules_collect);
	}
	*n = n_all;
	return all_rules;
}

const struct hwc_rule *hwc_rule_find(const char *id)
{
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	for (size_t i = 0; id && i < n; i++)
		if (strcmp(t[i].id, id) == 0)
			return &t[i];
	return NULL;
}

/* ------------------------------------------------------------------ findings */

static struct hwc_finding *emit_v(struct hwc_rule_ctx *c, enum hwc_severity sev,
				  const char *subject, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static struct hwc_finding *emit_v(struct hwc_rule_ctx *c, enum hwc_severity sev,
				  const char *subject, const char *fmt, va_list ap)
{
	struct hwc_finding *fd = HWC_VEC_PUSH(c->a, c->out);
	if (!fd)
		return NULL;
	fd->rule_id = c->rule->id;
	fd->title = c->rule->title;
	fd->severity = sev;
	fd->subject = hwc_arena_strdup(c->a, subject ? subject : "host");
	fd->message = hwc_arena_vprintf(c->a, fmt, ap);
	fd->fix = sev == HWC_SEV_UNKNOWN ? NULL : c->rule->fix;
	return fd;
}

struct hwc_finding *hwc_rule_emit(struct hwc_rule_ctx *c, const char *subject, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct hwc_finding *fd = emit_v(c, c->sev, subject, fmt, ap);
	va_end(ap);
	return fd;
}

struct hwc_finding *hwc_rule_emit_sev(struct hwc_rule_ctx *c, enum hwc_severity sev,
				      const char *subject, const char *fmt, ...)
{
	/* A profile that lowered the rule caps every case of it. */
	if (sev != HWC_SEV_UNKNOWN && sev > c->sev)
		sev = c->sev;
	va_list ap;
	va_start(ap, fmt);
	struct hwc_finding *fd = emit_v(c, sev, subject, fmt, ap);
	va_end(ap);
	return fd;
}

void hwc_evidence_add(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
		      const char *observed, const char *expected)
{
	if (!fd)
		return;
	struct hwc_evidence *ev = HWC_VEC_PUSH(a, &fd->evidence);
	if (!ev)
		return;
	ev->fact = hwc_arena_strdup(a, fact);
	ev->observed = observed ? hwc_arena_strdup(a, observed) : NULL;
	ev->expected = expected ? hwc_arena_strdup(a, expected) : NULL;
}

void hwc_evidence_addf(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
		       const char *expected, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *obs = hwc_arena_vprintf(a, fmt, ap);
	va_end(ap);
	hwc_evidence_add(fd, a, fact, obs, expected);
}

void hwc_rule_unknown(struct hwc_rule_ctx *c, const char *subject, const char *fact,
		      const char *why, const char *needed_for)
{
	if (!subject)
		subject = "host";
	if (!why)
		why = "not_collected";
	char *obs = hwc_arena_printf(c->a, "unknown (%s)", why);
	for (size_t i = c->out->n; i-- > 0;) {
		struct hwc_finding *f = &c->out->items[i];
		if (f->rule_id != c->rule->id)
			break;
		if (f->severity == HWC_SEV_UNKNOWN && strcmp(f->subject, subject) == 0) {
			hwc_evidence_add(f, c->a, fact, obs, needed_for);
			return;
		}
	}
	struct hwc_finding *fd = HWC_VEC_PUSH(c->a, c->out);
	if (!fd)
		return;
	fd->rule_id = c->rule->id;
	fd->title = c->rule->title;
	fd->severity = HWC_SEV_UNKNOWN;
	fd->subject = hwc_arena_strdup(c->a, subject);
	fd->message = hwc_arena_printf(c->a, "cannot decide: %s is unknown (%s)", fact, why);
	hwc_evidence_add(fd, c->a, fact, obs, needed_for);
}

/* ------------------------------------------------------------------ evaluation */

static int sev_rank(enum hwc_severity s)
{
	/* worst first: error, warn, unknown, info */
	return s == HWC_SEV_ERROR ? 3 : s == HWC_SEV_WARN ? 2 : s == HWC_SEV_UNKNOWN ? 1 : 0;
}

static int eff_rank(const struct hwc_finding *f)
{
	return f->waived_reason ? -1 : sev_rank(f->severity);
}

/* Worst rank per card, for ordering the groups. */
struct card_rank {
	const char *card;
	int rank;
};
static struct card_rank *g_ranks;
static size_t g_nranks;

/* NULL (the host) sorts first. */
static int cmp_card(const char *a, const char *b)
{
	return !a || !b ? (a ? 1 : 0) - (b ? 1 : 0) : strcmp(a, b);
}

static int cmp_rank_card(const void *x, const void *y)
{
	return cmp_card(((const struct card_rank *)x)->card, ((const struct card_rank *)y)->card);
}

/* g_ranks is sorted by card: a lookup is a binary search (thousands of cards sort in n log n). */
static int card_rank_of(const char *card)
{
	struct card_rank key = {card, 0};
	const struct card_rank *r = g_nranks ? bsearch(&key, g_ranks, g_nranks, sizeof(*g_ranks),
							 cmp_rank_card)
					     : NULL;
	return r ? r->rank : -1;
}

static int cmp_finding(const void *x, const void *y)
{
	const struct hwc_finding *a = x, *b = y;
	int ca = card_rank_of(a->card), cb = card_rank_of(b->card);
	if (ca != cb)
		return cb - ca;
	/* cards (by BDF) before the host */
	if (!a->card != !b->card)
		return a->card ? -1 : 1;
	int c = a->card && b->card ? strcmp(a->card, b->card) : 0;
	if (c)
		return c;
	int ra = eff_rank(a), rb = eff_rank(b);
	if (ra != rb)
		return rb - ra;
	c = strcmp(a->subject, b->subject);
	return c ? c : strcmp(a->rule_id, b->rule_id);
}

/* Replaces every `key` in s with val (arena). */
static const char *subst(struct hwc_arena *a, const char *s, const char *key, const char *val)
{
	return hwc_fix_subst(a, s, key, val);
}

const char *hwc_fix_subst(struct hwc_arena *a, const char *s, const char *key, const char *val)
{
	const char *p;
	if (!s || !val || !(p = strstr(s, key)))
		return s;
	size_t kl = strlen(key);
	const char *out = "";
	for (; p; s = p + kl, p = strstr(s, key))
		out = hwc_arena_printf(a, "%s%.*s%s", out, (int)(p - s), s, val);
	return hwc_arena_printf(a, "%s%s", out, s);
}

/* The PCI function that owns subject: an RDMA port ("mlx5_1/1"), an RDMA device or a netdev, as
 * the adapters' function maps list them; NULL when none does. */
static const char *subject_function(const json_t *facts, struct hwc_arena *a, const char *subject)
{
	const char *slash = strchr(subject, '/');
	const char *name = slash ? hwc_arena_strndup(a, subject, (size_t)(slash - subject)) : subject;
	size_t i, j, k;
	const json_t *ad, *fn, *x;
	json_array_foreach(hwc_q_adapters(facts), i, ad) {
		json_array_foreach(hwc_q_function_map(ad), j, fn) {
			static const char *const lists[] = {"rdma_devices", "netdevs"};
			for (int l = 0; l < 2; l++)
				json_array_foreach(hwc_q_get(fn, lists[l]), k, x)
					if (json_string_value(x) && !strcmp(json_string_value(x), name))
						return hwc_q_string(fn, "bdf");
		}
	}
	return NULL;
}

/* Turns the rule's fix into the exact command for this finding: the card's BDF, the port above
 * it, the netdev, the RDMA port number and the ring maximum where the fix names them. */
static void fill_fix(const json_t *facts, struct hwc_arena *a, struct hwc_finding *f)
{
	if (!f->fix)
		return;
	const char *fix = f->fix;
	/* mlxlink/mstlink address a port through the PCI function that owns it (a second PF's port
	 * is function 1), not through the card's function 0 */
	const char *fn = subject_function(facts, a, f->subject);
	if (fn) {
		fix = subst(a, fix, "mlxlink -d <BDF>", hwc_arena_printf(a, "mlxlink -d %s", fn));
		fix = subst(a, fix, "mstlink -d <BDF>", hwc_arena_printf(a, "mstlink -d %s", fn));
	}
	fix = subst(a, fix, "<device>", fn ? fn : f->card); /* the port's PCI function, as mlxlink takes it */
	if (f->card) {
		fix = subst(a, fix, "<BDF>", f->card);
		const json_t *dev = hwc_q_pci_dev(facts, f->card);
		fix = subst(a, fix, "<PORT>", hwc_q_string(dev, "upstream"));
	}
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_get(facts, "netdevs"), i, nd) {
		const char *name = hwc_q_string(nd, "name");
		if (!name || strcmp(name, f->subject) != 0)
			continue;
		fix = subst(a, fix, "<netdev>", name);
		const json_t *mx = hwc_q_at(nd, "rings.rx_max");
		if (json_is_integer(mx))
			fix = subst(a, fix, "<rx_max>", hwc_arena_printf(a, "%lld", (long long)json_integer_value(mx)));
		fix = subst(a, fix, "<cpulist>", hwc_q_string(hwc_q_get(nd, "irq_locality"), "local_cpulist"));
	}
	/* numbers the rule computed: the expected value of its first evidence (">= 8" -> 8) */
	const char *want = f->evidence.n ? f->evidence.items[0].expected : NULL;
	if (want && !strncmp(want, ">= ", 3))
		want += 3;
	if (want && !strcmp(f->rule_id, "NET_CHANNELS_FEW"))
		fix = subst(a, fix, "<channels>", want);
	if (want && !strcmp(f->rule_id, "HOST_DEEP_CSTATES") && want[strcspn(want, "0123456789")]) {
		/* `cpupower idle-set -D N` disables the states whose latency is N or more */
		long max = strtol(want + strcspn(want, "0123456789"), NULL, 10);
		fix = subst(a, fix, "<max_latency_us>", hwc_arena_printf(a, "%ld", max + 1));
	}
	const char *slash = strchr(f->subject, '/');
	if (slash && slash[1]) {
		fix = subst(a, fix, "<port>", slash + 1);
		/* an RDMA port subject ("mlx5_0/1"): its netdev */
		const json_t *ad = hwc_q_adapter_of(facts, f->subject);
		const json_t *p;
		json_array_foreach(hwc_q_get(ad, "ports"), i, p) {
			const char *rd = hwc_q_string(p, "rdma_device");
			const json_t *pn = hwc_q_get(p, "port");
			if (rd && json_is_integer(pn) &&
			    !strcmp(hwc_arena_printf(a, "%s/%lld", rd, (long long)json_integer_value(pn)), f->subject))
				fix = subst(a, fix, "<netdev>", hwc_q_string(p, "netdev"));
		}
	}
	f->fix = hwc_fix_mstlink(facts, a, f->subject, fix);
}

static void today_utc(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, n, "%Y-%m-%d", &tm);
}

int hwc_rules_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		   struct hwc_findings *out)
{
	if (!p)
		p = hwc_profile_default();
	if (!p)
		return -ENOMEM;
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	hwc_q_index_begin(facts);
	for (size_t i = 0; i < n; i++) {
		struct hwc_rule_ctx c = {.facts = facts, .prof = p, .a = a, .out = out, .rule = &t[i]};
		if (!hwc_profile_rule_enabled(p, &t[i], &c.sev))
			continue;
		t[i].eval(&c);
	}
	for (size_t i = 0; i < out->n; i++) {
		const json_t *ad = hwc_q_adapter_of(facts, out->items[i].subject);
		const char *bdf = ad ? hwc_q_string(ad, "bdf") : NULL;
		out->items[i].card = bdf ? hwc_arena_strdup(a, bdf) : NULL;
		fill_fix(facts, a, &out->items[i]);
	}
	hwc_q_index_end();
	char today[16];
	today_utc(today, sizeof(today));
	hwc_waivers_apply(p, a, out, today);
	for (size_t i = 0; i < out->n; i++)
		out->items[i].required |= hwc_profile_requires_rule(p, out->items[i].rule_id);
	g_ranks = hwc_arena_calloc(a, out->n + 1, sizeof(*g_ranks));
	g_nranks = 0;
	for (size_t i = 0; g_ranks && i < out->n; i++)
		g_ranks[i] = (struct card_rank){out->items[i].card, eff_rank(&out->items[i])};
	if (g_ranks && out->n) {
		/* one entry per card, its worst rank */
		qsort(g_ranks, out->n, sizeof(*g_ranks), cmp_rank_card);
		for (size_t i = 0; i < out->n; i++) {
			if (g_nranks && cmp_card(g_ranks[g_nranks - 1].card, g_ranks[i].card) == 0) {
				if (g_ranks[i].rank > g_ranks[g_nranks - 1].rank)
					g_ranks[g_nranks - 1].rank = g_ranks[i].rank;
				continue;
			}
			g_ranks[g_nranks++] = g_ranks[i];
		}
	}
	if (out->n > 1 && g_ranks)
		qsort(out->items, out->n, sizeof(*out->items), cmp_finding);
	g_ranks = NULL;
	g_nranks = 0;
	return 0;
}

int hwc_findings_worst(const struct hwc_findings *f)
{
	int worst = -1;
	for (size_t i = 0; i < f->n; i++) {
		if (f->items[i].waived_reason || f->items[i].severity == HWC_SEV_UNKNOWN)
			continue;
		if ((int)f->items[i].severity > worst)
			worst = (int)f->items[i].severity;
	}
	return worst;
}

enum hwc_verdict hwc_findings_verdict(const struct hwc_findings *f)
{
	enum hwc_verdict v = HWC_VERDICT_OK;
	for (size_t i = 0; i < f->n; i++) {
		const struct hwc_finding *x = &f->items[i];
		enum hwc_verdict w = x->waived_reason ? HWC_VERDICT_OK
				     : x->severity == HWC_SEV_ERROR ? HWC_VERDICT_ERROR
				     : x->severity == HWC_SEV_WARN ? HWC_VERDICT_WARN
				     : x->severity == HWC_SEV_UNKNOWN ? HWC_VERDICT_INCOMPLETE
								     : HWC_VERDICT_OK;
		if (w > v)
			v = w;
	}
	return v;
}

const char *hwc_verdict_name(enum hwc_verdict v)
{
	static const char *const names[] = {"ok", "incomplete", "warn", "error"};
	return (unsigned)v <= HWC_VERDICT_ERROR ? names[v] : "incomplete";
}

void hwc_findings_summary_line(const struct hwc_findings *f, char *buf, size_t bufsz)
{
	hwc_findings_summary_line_as(f, NULL, buf, bufsz);
}

void hwc_findings_summary_line_as(const struct hwc_findings *f, const char *word, char *buf,
				  size_t bufsz)
{
	static const char *const words[] = {"OK", "INCOMPLETE", "WARN", "ERROR"};
	size_t cnt[4] = {0};
	const struct hwc_finding *first = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct hwc_finding *x = &f->items[i];
		if (x->waived_reason)
			continue;
		cnt[x->severity]++;
		/* the worst problem is named; with none, the first rule that could not decide */
		if (x->severity != HWC_SEV_INFO &&
		    (!first || sev_rank(x->severity) > sev_rank(first->severity)))
			first = x;
	}
	const char *worst = word ? word : words[hwc_findings_verdict(f)];
	char line[256];
	int len = snprintf(line, sizeof(line), "hwcheck: %s %zu error, %zu warn", worst,
			   cnt[HWC_SEV_ERROR], cnt[HWC_SEV_WARN]);
	if (cnt[HWC_SEV_UNKNOWN])
		len += snprintf(line + len, sizeof(line) - (size_t)len, ", %zu unknown",
				cnt[HWC_SEV_UNKNOWN]);
	if (first) {
		size_t more = (first->severity == HWC_SEV_UNKNOWN ? cnt[HWC_SEV_UNKNOWN]
				: cnt[HWC_SEV_ERROR] + cnt[HWC_SEV_WARN]) - 1;
		char tail[160];
		if (more)
			snprintf(tail, sizeof(tail), "; %s %s +%zu", first->rule_id, first->subject, more);
		else
			snprintf(tail, sizeof(tail), "; %s %s", first->rule_id, first->subject);
		/* the subject is the first thing to go when the line is too long */
		if ((size_t)len + strlen(tail) > 80) {
			if (more)
				snprintf(tail, sizeof(tail), "; %s +%zu", first->rule_id, more);
			else
				snprintf(tail, sizeof(tail), "; %s", first->rule_id);
		}
		snprintf(line + len, sizeof(line) - (size_t)len, "%s", tail);
	}
	/* ASCII only and at most 80 characters, whatever the ids hold */
	size_t k = 0;
	for (; line[k] && k < 80 && k + 1 < bufsz; k++)
		buf[k] = (line[k] >= 0x20 && line[k] < 0x7f) ? line[k] : '?';
	if (bufsz)
		buf[k < bufsz ? k : bufsz - 1] = 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? hwc_json_string(s) : json_null();
}

json_t *hwc_findings_to_json(const struct hwc_findings *f)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < f->n; i++) {
		const struct hwc_finding *x = &f->items[i];
		json_t *o = json_object();
		json_object_set_new(o, "rule_id", json_string(x->rule_id));
		json_object_set_new(o, "severity", json_string(hwc_severity_name(x->severity)));
		json_object_set_new(o, "title", str_or_null(x->title));
		json_object_set_new(o, "subject", str_or_null(x->subject));
		json_object_set_new(o, "card", str_or_null(x->card));
		json_object_set_new(o, "message", str_or_null(x->message));
		json_t *ev = json_array();
		for (size_t k = 0; k < x->evidence.n; k++) {
			const struct hwc_evidence *e = &x->evidence.items[k];
			json_array_append_new(ev, json_pack("{s:o, s:o, s:o}", "fact", str_or_null(e->fact),
							    "observed", str_or_null(e->observed),
							    "expected", str_or_null(e->expected)));
		}
		json_object_set_new(o, "evidence", ev);
		json_object_set_new(o, "fix", str_or_null(x->fix));
		json_object_set_new(o, "waived", json_boolean(x->waived_reason != NULL));
		if (x->required)
			json_object_set_new(o, "required", json_true());
		if (x->waived_reason)
			json_object_set_new(o, "waiver_reason", json_string(x->waived_reason));
		if (x->waiver_expires)
			json_object_set_new(o, "waiver", json_pack("{s:s, s:b}", "expires", x->waiver_expires,
								   "expired", x->waiver_expired));
		json_array_append_new(arr, o);
	}
	return arr;
}

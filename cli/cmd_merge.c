/* SPDX-License-Identifier: MIT */
/* hwcheck merge REPORT...: many hosts' reports in one view. Hosts x findings; cards whose probe
 * bandwidth or temperature stands out against their peers (same product; same test for probes),
 * by the median absolute deviation; firmware versions per product and PSID.
 *
 * The reports are read through core/query.h. The raw json_object_get calls left here look up the
 * command's own tallies (interned keys, firmware groups, per-rule counts, host names), objects it
 * builds and changes, not the facts. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"

/* Iglewicz and Hoaglin's modified z-score: 0.6745 (x - median) / MAD, outlier above 3.5. The MAD is
 * floored so that a group of near-identical cards does not flag a card 0.1 Gb/s away. */
#define MERGE_Z 3.5
#define MERGE_MIN_PEERS 3
#define PROBE_FLOOR_FRAC 0.02 /* of the median */
#define TEMP_FLOOR_DEGC 1.0

struct point {
	const char *group; /* peer group key (owned by the json group object) */
	const char *host, *card, *item;
	double v;
};

struct points {
	struct point *v;
	size_t n;
};


static int push(struct points *p, const char *group, const char *host, const char *card,
		const char *item, double v)
{
	struct point *n = realloc(p->v, (p->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	p->v = n;
	p->v[p->n++] = (struct point){group, host, card, item, v};
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* snprintf may cut a multi-byte character; a JSON key must be UTF-8, so drop the partial one. */
static void utf8_trim(char *s)
{
	size_t n = strlen(s), i = n;
	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	if (i == 0)
		return;
	unsigned char lead = (unsigned char)s[i - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	if (n - (i - 1) < need)
		s[i - 1] = 0;
}

/* Group keys are interned in `keys` (a JSON object used as a string set). */
static const char *intern(json_t *keys, char *k)
{
	utf8_trim(k);
	if (!json_object_get(keys, k) && json_object_set_new(keys, k, json_true()) < 0)
		return NULL;
	/* the object's own copy of the key lives as long as the object */
	return json_object_iter_key(json_object_iter_at(keys, k));
}

static int collect_points(const json_t *facts, const char *host, json_t *keys, struct points *probe,
			  struct points *temp)
{
	size_t i;
	const json_t *r;
	json_array_foreach(hwc_q_list(facts, "probe.results"), i, r) {
		const json_t *g = hwc_q_get(r, "gbps");
		const json_t *ad = hwc_q_function_adapter(facts, hwc_q_string(r, "bdf"));
		if (!json_is_number(g))
			continue;
		char key[512], item[256];
		const char *op = hwc_q_string(r, "op") ? hwc_q_string(r, "op") : "?";
		bool tcp = strcmp(op, "tcp") == 0; /* TCP: a direction and streams, not QPs */
		/* ports measured together (--all-ports) are peers only of ports measured together */
		json_int_t conc = json_is_integer(hwc_q_get(r, "concurrent")) ? json_integer_value(hwc_q_get(r, "concurrent")) : 1;
		snprintf(key, sizeof(key), "%s %s %s %lld B x%lld %s%s%s",
			 hwc_q_string(ad, "product") ? hwc_q_string(ad, "product") : "unknown card", op,
			 hwc_q_string(r, "mode") ? hwc_q_string(r, "mode") : "?",
			 (long long)json_integer_value(hwc_q_get(r, "msg_bytes")),
			 (long long)json_integer_value(hwc_q_get(r, tcp ? "streams" : "qps")),
			 tcp ? "streams " : "qp", tcp && hwc_q_string(r, "direction") ? hwc_q_string(r, "direction") : "",
			 conc > 1 ? " together" : "");
		const char *dev = hwc_q_string(r, tcp ? "netdev" : "rdma_device");
		if (tcp)
			snprintf(item, sizeof(item), "%s", dev ? dev : "?");
		else
			snprintf(item, sizeof(item), "%s port %lld", dev ? dev : "?",
				 (long long)json_integer_value(hwc_q_get(r, "port")));
		const char *k = intern(keys, key);
		if (!k || push(probe, k, host, hwc_q_string(ad, "bdf") ? hwc_q_string(ad, "bdf") : hwc_q_string(r, "bdf"),
			       intern(keys, item), json_number_value(g)) < 0)
			return -1;
	}
	/* A card's temperature: its hottest sensor (MTMP register or a sensor on one of its functions). */
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(facts), i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		if (!bdf)
			continue;
		double best = -INFINITY;
		const json_t *t = hwc_q_get(hwc_q_registers(ad), "temp_mdegc");
		if (json_is_number(t))
			best = json_number_value(t);
		size_t k;
		const json_t *s;
		json_array_foreach(hwc_q_list(facts, "thermal.sensors"), k, s) {
			const json_t *st = hwc_q_get(s, "temp_mdegc");
			if (json_is_number(st) && hwc_q_function_adapter(facts, hwc_q_string(s, "bdf")) == ad &&
			    json_number_value(st) > best)
				best = json_number_value(st);
		}
		if (!isfinite(best))
			continue;
		char key[512], item[] = "hottest sensor";
		const char *prod = hwc_q_string(ad, "product");
		snprintf(key, sizeof(key), "%s", prod ? prod : "unknown card");
		const char *k2 = intern(keys, key);
		if (!k2 || push(temp, k2, host, bdf, intern(keys, item), best / 1000.0) < 0)
			return -1;
	}
	return 0;
}

/* Finds outliers group by group; appends to `out` and describes each group in `groups`. Returns
 * how many outliers are on the bad side. */
static long long outliers(const struct points *p, const char *metric, bool low_is_bad,
			  double floor_abs, double floor_frac, json_t *groups, json_t *out)
{
	long long bad = 0;
	bool *done = calloc(p->n + 1, sizeof(*done));
	double *v = malloc((p->n + 1) * sizeof(*v));
	if (!done || !v)
		goto end;
	for (size_t i = 0; i < p->n; i++) {
		if (done[i])
			continue;
		size_t n = 0;
		for (size_t k = i; k < p->n; k++)
			if (p->v[k].group == p->v[i].group) {
				v[n++] = p->v[k].v;
				done[k] = true;
			}
		double med = median(v, n);
		for (size_t k = 0; k < n; k++)
			v[k] = fabs(v[k] - med);
		double mad = median(v, n);
		double scale = fmax(mad, fmax(floor_abs, floor_frac * fabs(med)));
		json_array_append_new(groups, json_pack("{s:s, s:s, s:I, s:f, s:f, s:b}", "metric",
							metric, "group", p->v[i].group, "cards",
							(json_int_t)n, "median", med, "mad", mad,
							"judged", n >= MERGE_MIN_PEERS));
		if (n < MERGE_MIN_PEERS)
			continue;
		for (size_t k = i; k < p->n; k++) {
			if (p->v[k].group != p->v[i].group)
				continue;
			double z = 0.6745 * (p->v[k].v - med) / scale;
			if (fabs(z) <= MERGE_Z)
				continue;
			bool is_low = z < 0;
			bool is_bad = is_low == low_is_bad;
			bad += is_bad;
			json_array_append_new(out, json_pack(
				"{s:s, s:s, s:s, s:s?, s:s?, s:f, s:f, s:f, s:f, s:s, s:b}", "metric", metric,
				"group", p->v[k].group, "host", p->v[k].host, "card", p->v[k].card, "item",
				p->v[k].item, "value", p->v[k].v, "median", med, "mad", mad, "score", z,
				"side", is_low ? "low" : "high", "bad", is_bad));
		}
	}
end:
	free(done);
	free(v);
	return bad;
}

static json_t *firmware_spread(json_t *const *docs, const char *const *hosts, size_t n)
{
	json_t *groups = json_object(); /* "product\x1fpsid" -> {product, psid, versions: {v: [hosts]}} */
	for (size_t h = 0; h < n; h++) {
		size_t i;
		const json_t *ad;
		json_array_foreach(hwc_q_adapters(hwc_q_get(docs[h], "facts")), i, ad) {
			const char *prod = hwc_q_string(ad, "product") ? hwc_q_string(ad, "product") : "unknown card";
			const char *psid = hwc_q_string(ad, "psid");
			const char *fw = hwc_q_string(ad, "fw_version") ? hwc_q_string(ad, "fw_version") : "unknown";
			char key[512];
			snprintf(key, sizeof(key), "%s\x1f%s", prod, psid ? psid : "");
			json_t *g = json_object_get(groups, key);
			if (!g) {
				g = json_pack("{s:s, s:s?, s:{}}", "product", prod, "psid", psid, "versions");
				json_object_set_new(groups, key, g);
			}
			json_t *vers = json_object_get(g, "versions");
			json_t *hl = json_object_get(vers, fw);
			if (!hl) {
				hl = json_array();
				json_object_set_new(vers, fw, hl);
			}
			json_array_append_new(hl, json_pack("{s:s, s:s?}", "host", hosts[h], "card",
							    hwc_q_string(ad, "bdf")));
		}
	}
	json_t *out = json_array();
	const char *k;
	json_t *g;
	json_object_foreach(groups, k, g) {
		json_t *vl = json_array();
		const char *ver;
		json_t *hl;
		json_object_foreach(json_object_get(g, "versions"), ver, hl)
			json_array_append_new(vl, json_pack("{s:s, s:I, s:O}", "fw_version", ver, "cards",
							    (json_int_t)json_array_size(hl), "where", hl));
		json_array_append_new(out, json_pack("{s:O, s:O, s:b, s:o}", "product",
						     json_object_get(g, "product"), "psid",
						     json_object_get(g, "psid") ? json_object_get(g, "psid") : json_null(),
						     "spread", json_array_size(vl) > 1, "versions", vl));
	}
	json_decref(groups);
	return out;
}

/* Identical cards configured differently across the hosts: the same comparison as the rule
 * MLX_FW_CONFIG_INCONSISTENT within one host (rules/fwc_spread.c). */
static json_t *fw_config_spread(json_t *const *docs, const char *const *hosts, size_t n)
{
	json_t *cards = json_array();
	for (size_t h = 0; h < n; h++) {
		size_t i;
		const json_t *ad;
		json_array_foreach(hwc_q_adapters(hwc_q_get(docs[h], "facts")), i, ad)
			json_array_append_new(cards, json_pack("{s:s, s:O}", "host", hosts[h], "adapter", (json_t *)ad));
	}
	json_t *out = hwc_fwc_spread(cards);
	json_decref(cards);
	return out;
}

/* Cards on the minority side of a parameter at or above fail_on. */
static long long fw_config_bad(const json_t *spread, int fail_on)
{
	long long bad = 0;
	size_t i;
	const json_t *g;
	json_array_foreach(spread, i, g) if (hwc_severity_from_name(hwc_q_string(g, "severity")) >= fail_on)
		bad += (long long)json_array_size(hwc_q_get(g, "minority"));
	return bad;
}

static void render_fw_config(FILE *out, const json_t *spread)
{
	fprintf(out, "\nfirmware configuration (identical cards that differ):%s\n",
		json_array_size(spread) ? "" : " none");
	size_t i, k;
	const json_t *g, *e;
	json_array_foreach(spread, i, g) {
		fprintf(out, "  %s %s: ", hwc_q_string(g, "product"), hwc_q_string(g, "param"));
		if (hwc_q_string(g, "majority"))
			fprintf(out, "%s on %lld of %lld %s;", hwc_q_string(g, "majority"),
				(long long)json_integer_value(hwc_q_get(g, "cards")) -
					(long long)json_array_size(hwc_q_get(g, "minority")),
				(long long)json_integer_value(hwc_q_get(g, "cards")),
				hwc_cli_noun((long long)json_integer_value(hwc_q_get(g, "cards")), "card", "cards"));
		else
			fputs("a tie, no majority;", out);
		json_array_foreach(hwc_q_get(g, "minority"), k, e)
			fprintf(out, " %s %s %s%s", hwc_q_string(e, "host"), hwc_q_string(e, "card"), hwc_q_string(e, "value"),
				k + 1 < json_array_size(hwc_q_get(g, "minority")) ? "," : "");
		json_array_foreach(hwc_q_get(g, "unknown"), k, e)
			fprintf(out, " %s %s unknown", hwc_q_string(e, "host"), hwc_q_string(e, "card"));
		fputc('\n', out);
	}
}

static const char *host_name(const json_t *doc, const char *path)
{
	const char *h = hwc_cli_doc_hostname(doc);
	return h ? h : path;
}

/* Hosts x findings: per host the count of unwaived findings per rule and per severity. */
static json_t *findings_table(json_t *const *docs, const char *const *hosts, char **paths, size_t n,
			      int fail_on, long long *failing)
{
	json_t *rules = json_object(), *rows = json_array();
	for (size_t h = 0; h < n; h++) {
		const json_t *fl = hwc_q_get(docs[h], "findings");
		json_t *row = json_pack("{s:s, s:s, s:s}", "host", hosts[h], "source", paths[h], "schema",
					hwc_q_string(docs[h], "schema") ? hwc_q_string(docs[h], "schema") : "?");
		if (!json_is_array(fl)) {
			/* a facts document: no rules were run */
			json_object_set_new(row, "worst", json_null());
			json_object_set_new(row, "severities", json_null());
			json_object_set_new(row, "rules", json_object());
			json_array_append_new(rows, row);
			continue;
		}
		long long sev[4] = {0};
		int worst = -1;
		json_t *per = json_object();
		size_t i;
		const json_t *f;
		json_array_foreach(fl, i, f) {
			if (json_is_true(hwc_q_get(f, "waived")))
				continue;
			int s = hwc_severity_from_name(hwc_q_string(f, "severity"));
			const char *id = hwc_q_string(f, "rule_id");
			if (s < 0 || !id)
				continue;
			sev[s]++;
			if (s != HWC_SEV_UNKNOWN && s > worst)
				worst = s;
			json_t *c = json_object_get(per, id);
			json_object_set_new(per, id, json_integer(json_integer_value(c) + 1));
			json_t *r = json_object_get(rules, id);
			if (!r) {
				r = json_pack("{s:s, s:s, s:I}", "rule_id", id, "severity",
					      hwc_severity_name(s), "hosts", (json_int_t)0);
				json_object_set_new(rules, id, r);
			}
			if (!c)
				json_object_set_new(r, "hosts",
						    json_integer(json_integer_value(hwc_q_get(r, "hosts")) + 1));
		}
		if (hwc_fail_on_hit(fail_on, worst) ||
		    (sev[HWC_SEV_UNKNOWN] && hwc_fail_on_hit(fail_on, HWC_SEV_UNKNOWN)))
			(*failing)++;
		json_object_set_new(row, "worst", json_string(worst < 0 ? "ok" : hwc_severity_name(worst)));
		json_object_set_new(row, "severities", json_pack("{s:I, s:I, s:I, s:I}", "error",
								 (json_int_t)sev[HWC_SEV_ERROR], "warn",
								 (json_int_t)sev[HWC_SEV_WARN], "info",
								 (json_int_t)sev[HWC_SEV_INFO], "unknown",
								 (json_int_t)sev[HWC_SEV_UNKNOWN]));
		json_object_set_new(row, "rules", per);
		json_array_append_new(rows, row);
	}
	json_t *rl = json_array();
	const char *k;
	json_t *r;
	json_object_foreach(rules, k, r) json_array_append(rl, r);
	json_decref(rules);
	return json_pack("{s:o, s:o}", "rules", rl, "hosts", rows);
}

static void render_text(FILE *out, const json_t *doc)
{
	const json_t *ft = hwc_q_get(doc, "findings");
	size_t w = 4, i;
	const json_t *row;
	json_array_foreach(hwc_q_get(ft, "hosts"), i, row)
		if (strlen(hwc_q_string(row, "host")) > w)
			w = strlen(hwc_q_string(row, "host"));
	fprintf(out, "%-*s  %-7s %5s %5s %5s  %s\n", (int)w, "HOST", "WORST", "ERROR", "WARN", "INFO",
		"FINDINGS");
	json_array_foreach(hwc_q_get(ft, "hosts"), i, row) {
		const json_t *s = hwc_q_get(row, "severities");
		if (!s) {
			fprintf(out, "%-*s  %-7s %5s %5s %5s  (facts only: no rules were run)\n", (int)w,
				hwc_q_string(row, "host"), "-", "-", "-", "-");
			continue;
		}
		fprintf(out, "%-*s  %-7s %5lld %5lld %5lld  ", (int)w, hwc_q_string(row, "host"),
			hwc_q_string(row, "worst"),
			(long long)json_integer_value(hwc_q_get(s, "error")),
			(long long)json_integer_value(hwc_q_get(s, "warn")),
			(long long)json_integer_value(hwc_q_get(s, "info")));
		const char *k;
		json_t *c;
		bool any = false;
		json_object_foreach((json_t *)hwc_q_get(row, "rules"), k, c) {
			fprintf(out, "%s%s", any ? " " : "", k);
			if (json_integer_value(c) > 1)
				fprintf(out, "x%lld", (long long)json_integer_value(c));
			any = true;
		}
		fputs(any ? "\n" : "-\n", out);
	}
	const json_t *rl = hwc_q_get(ft, "rules");
	if (json_array_size(rl)) {
		fputs("\nRULE                             SEVERITY HOSTS\n", out);
		const json_t *r;
		json_array_foreach(rl, i, r)
			fprintf(out, "%-32s %-8s %lld\n", hwc_q_string(r, "rule_id"), hwc_q_string(r, "severity"),
				(long long)json_integer_value(hwc_q_get(r, "hosts")));
	}
	const json_t *ol = hwc_q_get(doc, "outliers");
	fprintf(out, "\noutliers (modified z-score beyond %.1f against at least %d peers): %s\n", MERGE_Z,
		MERGE_MIN_PEERS, json_array_size(ol) ? "" : "none");
	const json_t *o;
	json_array_foreach(ol, i, o) {
		bool temp = !strcmp(hwc_q_string(o, "metric"), "temperature_c");
		fprintf(out, "  %s %s %s: %s %.1f %s, peers' median %.1f (%s, score %+.1f)%s\n",
			hwc_q_string(o, "host"), hwc_q_string(o, "card") ? hwc_q_string(o, "card") : "?",
			hwc_q_string(o, "item") ? hwc_q_string(o, "item") : "", temp ? "temperature" : "probe",
			json_real_value(hwc_q_get(o, "value")), temp ? "°C" : "Gb/s",
			json_real_value(hwc_q_get(o, "median")), hwc_q_string(o, "group"),
			json_real_value(hwc_q_get(o, "score")), json_is_true(hwc_q_get(o, "bad")) ? "" : " (better)");
	}
	fputs("\nfirmware:\n", out);
	const json_t *fw;
	json_array_foreach(hwc_q_get(doc, "firmware"), i, fw) {
		fprintf(out, "  %s%s%s:%s", hwc_q_string(fw, "product"), hwc_q_string(fw, "psid") ? " " : "",
			hwc_q_string(fw, "psid") ? hwc_q_string(fw, "psid") : "",
			json_is_true(hwc_q_get(fw, "spread")) ? " SPREAD" : "");
		size_t k;
		const json_t *v;
		json_array_foreach(hwc_q_get(fw, "versions"), k, v)
			fprintf(out, " %s (%lld card%s)", hwc_q_string(v, "fw_version"),
				(long long)json_integer_value(hwc_q_get(v, "cards")),
				json_integer_value(hwc_q_get(v, "cards")) == 1 ? "" : "s");
		fputc('\n', out);
	}
	if (json_array_size(hwc_q_get(doc, "firmware")) == 0)
		fputs("  no ConnectX adapter in the inputs\n", out);
	render_fw_config(out, hwc_q_get(doc, "fw_config"));
	hwc_merge_roce_text(out, hwc_q_get(doc, "roce"));
}

int hwc_cmd_merge(struct hwc_cli *c)
{
	if (c->nargs < 1) {
		hwc_cli_err("merge: expected one or more REPORT.json (hwcheck --json outputs, facts files "
			    "or snapshots); try 'hwcheck --help'");
		return HWC_EXIT_USAGE;
	}
	size_t n = (size_t)c->nargs;
	json_t **docs = calloc(n, sizeof(*docs));
	const char **hosts = calloc(n, sizeof(*hosts));
	json_t *names = json_object(), *keys = json_object();
	struct points probe = {0}, temp = {0};
	int rc = 0;
	if (!docs || !hosts || !names || !keys) {
		rc = HWC_EXIT_INTERNAL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int ec;
		docs[i] = hwc_cli_load_doc(c, c->args[i], &ec);
		if (!docs[i]) {
			rc = ec;
			goto out;
		}
		/* Two reports of one host (two runs) stay two rows, told apart. */
		const char *h = host_name(docs[i], c->args[i]);
		char buf[600];
		char stem[501];
		snprintf(stem, sizeof(stem), "%s", h);
		utf8_trim(stem);
		snprintf(buf, sizeof(buf), "%s", stem);
		for (int k = 2; json_object_get(names, buf); k++)
			snprintf(buf, sizeof(buf), "%s#%d", stem, k);
		hosts[i] = intern(names, buf);
		if (!hosts[i] || collect_points(hwc_q_get(docs[i], "facts"), hosts[i], keys, &probe, &temp) < 0) {
			rc = HWC_EXIT_INTERNAL;
			goto out;
		}
	}
	long long failing = 0;
	json_t *groups = json_array(), *ol = json_array();
	long long bad = outliers(&probe, "probe_gbps", true, 0, PROBE_FLOOR_FRAC, groups, ol);
	bad += outliers(&temp, "temperature_c", false, TEMP_FLOOR_DEGC, 0, groups, ol);
	json_t *fwc = fw_config_spread(docs, hosts, n);
	bad += fw_config_bad(fwc, c->fail_on);
	json_t *doc = json_pack("{s:s, s:i, s:{s:s, s:s}, s:I, s:o, s:o, s:o, s:o, s:o, "
				"s:{s:s, s:f, s:i, s:f, s:f}}",
				"schema", "hwcheck.merge", "schema_version", HWC_SCHEMA_VERSION, "tool",
				"name", "hwcheck", "version", HWCHECK_VERSION, "hosts", (json_int_t)n,
				"findings", findings_table(docs, hosts, c->args, n, c->fail_on, &failing),
				"outliers", ol, "groups", groups, "firmware",
				firmware_spread(docs, hosts, n), "fw_config", fwc, "method", "outliers",
				"modified z-score 0.6745*(x-median)/MAD", "threshold", MERGE_Z,
				"min_peers", MERGE_MIN_PEERS, "probe_mad_floor_fraction", PROBE_FLOOR_FRAC,
				"temperature_mad_floor_degc", TEMP_FLOOR_DEGC);
	if (doc)
		json_object_set_new(doc, "roce", hwc_merge_roce(docs, hosts, n));
	if (!doc) {
		hwc_cli_err("merge: out of memory");
		rc = HWC_EXIT_INTERNAL;
		goto out;
	}
	if (c->json)
		rc = hwc_emit_json(c, doc);
	else
		render_text(stdout, doc);
	json_decref(doc);
	if (!rc && (failing || bad))
		rc = HWC_EXIT_FINDINGS;
out:
	for (size_t i = 0; docs && i < n; i++)
		json_decref(docs[i]);
	free(docs);
	free(hosts);
	free(probe.v);
	free(temp.v);
	json_decref(names);
	json_decref(keys);
	return rc;
}

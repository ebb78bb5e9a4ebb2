/* SPDX-License-Identifier: MIT */
/* Renderers: the JSON report envelope, the text report, the facts tree, the error list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"

#define C_RED "\033[31m"
#define C_YEL "\033[33m"
#define C_BLU "\033[36m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_OFF "\033[0m"

static json_t *run_json(const struct hwc_cli *c)
{
	json_t *run = json_object();
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(run, "started_at", json_string(ts));
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(run, "hostname", hwc_json_string(host));
	json_t *argv = json_array();
	for (int i = 0; i < c->argc_all; i++)
		json_array_append_new(argv, hwc_json_string(c->argv_all[i]));
	json_object_set_new(run, "argv", argv);
	json_object_set_new(run, "root", hwc_json_string(c->root ? c->root : "/"));
	if (c->facts_file)
		json_object_set_new(run, "facts_file", hwc_json_string(c->facts_file));
	json_object_set_new(run, "euid", json_integer((json_int_t)geteuid()));
	return run;
}

json_t *hwc_report_json(const struct hwc_cli *c, const char *schema, const struct hwc_facts *f,
			json_t *facts_json, const struct hwc_findings *fd)
{
	json_t *r = json_object();
	if (!r) {
		json_decref(facts_json);
		return NULL;
	}
	json_object_set_new(r, "schema", json_string(schema));
	json_object_set_new(r, "schema_version", json_integer(HWC_SCHEMA_VERSION));
	json_object_set_new(r, "tool", json_pack("{s:s, s:s}", "name", "hwcheck", "version",
						 HWCHECK_VERSION));
	json_object_set_new(r, "run", run_json(c));
	const json_t *facts = facts_json ? facts_json : json_object();
	json_object_set_new(r, "facts", (json_t *)facts);
	if (fd) {
		/* the verdict first: what a gate reads, before the findings that explain it */
		struct hwc_summary s;
		hwc_summary_compute(fd, hwc_facts_known_count(facts) == 0, &s);
		char why[1024];
		json_object_set_new(r, "summary",
				    hwc_summary_json(&s, fd, hwc_cli_nothing_why(c, why, sizeof(why))));
		json_object_set_new(r, "findings", hwc_findings_to_json(fd));
		json_object_set_new(r, "cards", hwc_cards_json(facts, fd, c->prof));
	}
	json_t *errs = json_array();
	for (size_t i = 0; i < f->errors.n; i++) {
		const struct hwc_diag *d = &f->errors.items[i];
		json_t *o = json_object();
		json_object_set_new(o, "source", hwc_json_string(d->source));
		json_object_set_new(o, "subject", d->subject ? hwc_json_string(d->subject) : json_null());
		json_object_set_new(o, "message", hwc_json_string(d->message));
		json_array_append_new(errs, o);
	}
	json_object_set_new(r, "errors", errs);
	return r;
}

void hwc_render_errors(const struct hwc_facts *f)
{
	for (size_t i = 0; i < f->errors.n; i++) {
		const struct hwc_diag *d = &f->errors.items[i];
		if (d->subject)
			hwc_cli_err("%s: %s: %s", d->source, d->subject, d->message);
		else
			hwc_cli_err("%s: %s", d->source, d->message);
	}
}

/* ------------------------------------------------------------------ facts as a tree */

static void scalar(FILE *out, const json_t *v)
{
	if (json_is_string(v))
		fputs(json_string_value(v), out);
	else if (json_is_integer(v))
		fprintf(out, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(out, "%.6g", json_real_value(v));
	else if (json_is_true(v))
		fputs("yes", out);
	else if (json_is_false(v))
		fputs("no", out);
	else
		fputs("?", out);
}

static const char *label_of(const json_t *o)
{
	static const char *const keys[] = {"bdf", "name", "chip", "id", "label", NULL};
	for (int i = 0; keys[i]; i++) {
		const char *s = hwc_q_string(o, keys[i]);
		if (s)
			return s;
	}
	return NULL;
}

static void tree(FILE *out, const struct hwc_cli *c, const json_t *v, int depth)
{
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)v, k, x) {
		if (strcmp(k, HWC_JSON_UNAVAILABLE) == 0)
			continue;
		fprintf(out, "%*s%s: ", depth * 2, "", k);
		if (json_is_null(x)) {
			const json_t *u = hwc_q_unavailable(v, k);
			const char *st = hwc_json_str_or(u, "status", "unknown");
			const char *d = hwc_json_str_or(u, "detail", NULL);
			fprintf(out, "%sunknown (%s%s%s)%s\n", c->color ? C_DIM : "", st, d ? ": " : "",
				d ? d : "", c->color ? C_OFF : "");
		} else if (json_is_object(x)) {
			fputc('\n', out);
			tree(out, c, x, depth + 1);
		} else if (json_is_array(x)) {
			if (json_array_size(x) == 0) {
				fputs("(none)\n", out);
				continue;
			}
			bool simple = !json_is_object(json_array_get(x, 0)) && !json_is_array(json_array_get(x, 0));
			if (simple) {
				size_t i;
				json_t *e;
				json_array_foreach(x, i, e) {
					if (i)
						fputs(", ", out);
					scalar(out, e);
				}
				fputc('\n', out);
				continue;
			}
			fputc('\n', out);
			size_t i;
			json_t *e;
			json_array_foreach(x, i, e) {
				const char *l = json_is_object(e) ? label_of(e) : NULL;
				fprintf(out, "%*s- [%zu]%s%s\n", (depth + 1) * 2, "", i, l ? " " : "", l ? l : "");
				if (json_is_object(e))
					tree(out, c, e, depth + 2);
			}
		} else {
			scalar(out, x);
			fputc('\n', out);
		}
	}
}

void hwc_render_facts_text(FILE *out, const struct hwc_cli *c, const json_t *facts)
{
	tree(out, c, facts, 0);
}

/* ------------------------------------------------------------------ check report */

static const char *sev_color(enum hwc_severity s)
{
	return s == HWC_SEV_ERROR ? C_RED : s == HWC_SEV_WARN ? C_YEL : s == HWC_SEV_INFO ? C_BLU : C_DIM;
}

static const char *card_label(const json_t *facts, const char *card, char *buf, size_t n)
{
	const json_t *ad;
	size_t i;
	if (!card)
		return "host";
	json_array_foreach(hwc_q_adapters(facts), i, ad) {
		const char *b = hwc_q_string(ad, "bdf");
		if (b && strcmp(b, card) == 0) {
			snprintf(buf, n, "%s %s, firmware %s", card,
				 hwc_json_str_or(ad, "product", "unknown product"),
				 hwc_json_str_or(ad, "fw_version", "unknown"));
			return buf;
		}
	}
	return card;
}

static bool same_card(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One line per probe result, only measured numbers (docs/probe.md). */
static void render_probe(FILE *out, const json_t *facts)
{
	size_t i;
	const json_t *r;
	json_array_foreach(hwc_q_probe_results(facts), i, r) {
		char line[1024];
		size_t n;
		const char *dev = hwc_json_str_or(r, "rdma_device", "?");
		json_int_t port = json_integer_value(hwc_q_get(r, "port"));
		const char *op = hwc_json_str_or(r, "op", "?");
		if (strcmp(op, "tcp") == 0) { /* TCP: the netdev, and which way */
			dev = hwc_json_str_or(r, "netdev", "?");
			port = 0;
			op = hwc_json_str_or(r, "direction", "?");
		}
		const char *st = hwc_json_str_or(r, "status", "?");
		if (strcmp(st, "ok") != 0) {
			snprintf(line, sizeof(line), "probe %s%s%.0lld %s: %s (%s)", dev, port ? "/" : "", (long long)port, op, st,
				 hwc_json_str_or(r, "reason", "no reason given"));
			hwc_wrap_print(out, 0, 6, line);
			continue;
		}
		const json_t *g = hwc_q_get(r, "gbps"), *cg = hwc_q_get(r, "ceiling_gbps");
		n = (size_t)snprintf(line, sizeof(line), "probe %s%s%.0lld %s %s%s: ", dev, port ? "/" : "",
				     (long long)port, hwc_json_str_or(r, "mode", ""),
				     strcmp(hwc_json_str_or(r, "op", ""), "tcp") == 0 ? "tcp " : "", op);
		if (n < sizeof(line))
			n += (size_t)(json_is_number(g) ? snprintf(line + n, sizeof(line) - n, "%.2f Gb/s", json_number_value(g))
							 : snprintf(line + n, sizeof(line) - n, "no rate"));
		if (n < sizeof(line))
			n += (size_t)(json_is_number(cg)
					      ? snprintf(line + n, sizeof(line) - n, " of a %.2f Gb/s ceiling (%s)",
							 json_number_value(cg), hwc_json_str_or(r, "ceiling_by", "?"))
					      : snprintf(line + n, sizeof(line) - n, ", ceiling unknown"));
		const json_t *ok = hwc_q_get(r, "data_ok");
		if (json_is_boolean(ok) && n < sizeof(line))
			snprintf(line + n, sizeof(line) - n, "%s", json_is_true(ok) ? ", data verified" : ", DATA MISMATCH");
		hwc_wrap_print(out, 0, 6, line);
	}
}

static bool counts_unknown(const struct hwc_finding *x)
{
	return x->severity == HWC_SEV_UNKNOWN && !x->waived_reason;
}

/* Appends word to a comma list unless it is there already. */
static void list_add(char *list, size_t n, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl)
		if ((p == list || p[-1] == ' ') && (p[wl] == ',' || p[wl] == 0))
			return;
	size_t len = strlen(list);
	snprintf(list + len, n - len, "%s%s", len ? ", " : "", word);
}

/* Every rule instance that could not decide, grouped by cause: each cause printed once, with
 * the rules and subjects it left undecided (-v: each rule with its subject and fact). */
static void render_undecided(FILE *out, const struct hwc_cli *c, const struct hwc_findings *fd,
			     size_t n_unknown)
{
	if (!n_unknown)
		return;
	fprintf(out, "\n%sundecided%s: %zu rule instance%s could not decide, by cause\n",
		c->color ? C_BOLD : "", c->color ? C_OFF : "", n_unknown, n_unknown == 1 ? "" : "s");
	for (size_t i = 0; i < fd->n; i++) {
		char ci[512], ck[512], rules[4096] = "", subj[4096] = "";
		if (!counts_unknown(&fd->items[i]))
			continue;
		const char *cause = hwc_unknown_cause(&fd->items[i], ci, sizeof(ci));
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = counts_unknown(&fd->items[j]) && !strcmp(hwc_unknown_cause(&fd->items[j], ck, sizeof(ck)), cause);
		if (seen)
			continue;
		fputs("  ", out);
		hwc_wrap_print(out, 2, 4, cause);
		for (size_t k = i; k < fd->n; k++) {
			const struct hwc_finding *x = &fd->items[k];
			if (!counts_unknown(x) || strcmp(hwc_unknown_cause(x, ck, sizeof(ck)), cause) != 0)
				continue;
			if (c->verbose) {
				char one[1024];
				snprintf(one, sizeof(one), "%s [%s]: %s", x->rule_id, x->subject,
					 x->evidence.n ? x->evidence.items[0].fact : "?");
				fputs("      ", out);
				hwc_wrap_print(out, 6, 8, one);
				continue;
			}
			list_add(rules, sizeof(rules), x->rule_id);
			list_add(subj, sizeof(subj), x->subject);
		}
		if (!c->verbose) {
			char both[8300];
			snprintf(both, sizeof(both), "%s (%s)", rules, subj);
			fputs("      ", out);
			hwc_wrap_print(out, 6, 6, both);
		}
	}
}

/* One finding: its line, evidence, waiver and fix, each wrapped at 100 columns. */
static void render_finding(FILE *out, const struct hwc_cli *c, const struct hwc_finding *x)
{
	char buf[4096];
	const char *sev = x->waived_reason ? "waived" : hwc_severity_name(x->severity);
	fprintf(out, "  %s%-7s%s ", c->color ? sev_color(x->severity) : "", sev, c->color ? C_OFF : "");
	if (strcmp(x->subject, x->card ? x->card : "host") != 0)
		snprintf(buf, sizeof(buf), "%s [%s]: %s", x->rule_id, x->subject, x->message);
	else
		snprintf(buf, sizeof(buf), "%s: %s", x->rule_id, x->message);
	hwc_wrap_print(out, 10, 12, buf);
	for (size_t e = 0; e < x->evidence.n; e++) {
		const struct hwc_evidence *ev = &x->evidence.items[e];
		snprintf(buf, sizeof(buf), "%s = %s%s%s", ev->fact, ev->observed ? ev->observed : "unknown",
			 ev->expected ? ", expected " : "", ev->expected ? ev->expected : "");
		fputs("          ", out);
		hwc_wrap_print(out, 10, 12, buf);
	}
	if (x->waived_reason)
		snprintf(buf, sizeof(buf), "waived until %s: %s", x->waiver_expires ? x->waiver_expires : "?",
			 x->waived_reason);
	else if (x->waiver_expired)
		snprintf(buf, sizeof(buf), "a waiver for this expired on %s", x->waiver_expires);
	if (x->waived_reason || x->waiver_expired) {
		fputs("          ", out);
		hwc_wrap_print(out, 10, 12, buf);
	}
	if (x->fix) {
		snprintf(buf, sizeof(buf), "fix: %s", x->fix);
		fputs("          ", out);
		hwc_wrap_print(out, 10, 15, buf);
	}
}

void hwc_render_check_text(FILE *out, const struct hwc_cli *c, const json_t *facts,
			   const struct hwc_findings *fd, const struct hwc_facts *f)
{
	size_t cnt[4] = {0}, waived = 0;
	for (size_t i = 0; i < fd->n; i++) {
		if (fd->items[i].waived_reason)
			waived++;
		else
			cnt[fd->items[i].severity]++;
	}
	struct hwc_summary sum;
	hwc_summary_compute(fd, false, &sum);
	char line[96];
	hwc_findings_summary_line_as(fd, hwc_summary_word(c, &sum), line, sizeof(line));
	/* a Nagios plugin's first line carries the state */
	if (c->summary_line || (c->exit_codes && strcmp(c->exit_codes, "nagios") == 0))
		fprintf(out, "%s\n", line);
	if (c->summary_line)
		return;
	const json_t *host = hwc_q_host(facts);
	const char *model = hwc_q_string(hwc_q_get(host, "cpu"), "model_name");
	const char *kern = hwc_q_string(hwc_q_get(host, "kernel"), "release");
	char head[1024];
	fprintf(out, "%shwcheck %s%s  ", c->color ? C_BOLD : "", HWCHECK_VERSION, c->color ? C_OFF : "");
	snprintf(head, sizeof(head), "root %s", c->facts_file ? c->facts_file : c->root ? c->root
					       : c->pci_dump ? c->pci_dump : "/");
	hwc_wrap_print(out, (int)strlen("hwcheck " HWCHECK_VERSION "  "), 2, head);
	snprintf(head, sizeof(head), "host: %s, kernel %s", model ? model : "CPU unknown", kern ? kern : "unknown");
	hwc_wrap_print(out, 0, 2, head);
	if (json_array_size(hwc_q_adapters(facts)) == 0)
		fputs("no ConnectX adapter found\n", out);
	json_t *cards = hwc_cards_json(facts, fd, c->prof);
	hwc_render_cards_text(out, c, cards);
	json_decref(cards);
	render_probe(out, facts);
	/* Findings arrive grouped by card, the worst card first (rules/rules.c); the rules that
	 * could not decide are in the card blocks above and, each cause once, under "undecided". */
	const char *group = NULL;
	bool first = true;
	for (size_t k = 0; k < fd->n; k++) {
		const struct hwc_finding *x = &fd->items[k];
		if (counts_unknown(x))
			continue;
		if (first || !same_card(group, x->card)) {
			char lb[256];
			fprintf(out, "\n%s", c->color ? C_BOLD : "");
			hwc_wrap_print(out, 0, 2, card_label(facts, x->card, lb, sizeof(lb)));
			if (c->color)
				fputs(C_OFF, out);
			group = x->card;
			first = false;
		}
		render_finding(out, c, x);
	}
	render_undecided(out, c, fd, cnt[HWC_SEV_UNKNOWN]);
	fprintf(out, "\n%s\n", line);
	char counts[512];
	snprintf(counts, sizeof(counts),
		 "%zu error, %zu warn, %zu info, %zu unknown%s, %zu waived; %zu collection problem%s%s",
		 cnt[HWC_SEV_ERROR], cnt[HWC_SEV_WARN], cnt[HWC_SEV_INFO], cnt[HWC_SEV_UNKNOWN],
		 cnt[HWC_SEV_UNKNOWN] ? " (rules that could not decide)" : "", waived, f->errors.n,
		 f->errors.n == 1 ? "" : "s",
		 cnt[HWC_SEV_UNKNOWN] && !c->verbose ? " (-v lists each undecided rule)" : "");
	hwc_wrap_print(out, 0, 2, counts);
}

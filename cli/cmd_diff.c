/* SPDX-License-Identifier: MIT */
/* hwcheck diff BASELINE [CURRENT]: load two facts documents (tar, directory, JSON or this machine),
 * compare them with cli/diff.c, render the result; exit 1 when something regressed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"
#include "snapshot/tar.h"

#define C_RED "\033[31m"
#define C_GRN "\033[32m"
#define C_YEL "\033[33m"
#define C_BOLD "\033[1m"
#define C_OFF "\033[0m"

/* A snapshot holds sysfs files and command outputs: tens of MiB at most. */
#define MAX_INPUT_BYTES (512u << 20)

static json_t *parse_json(const char *buf, size_t len, const char *what)
{
	if (len > (size_t)HWC_MAX_DOC_MIB << 20) {
		hwc_cli_err("%s: %s", what, hwc_cli_input_strerror(-EFBIG));
		return NULL;
	}
	return hwc_cli_parse_doc(buf, len, what);
}

/* Collects the live machine, or the tree under root; returns a facts document. */
static json_t *collect_doc(const struct hwc_cli *c, const char *root, int *ec)
{
	struct hwc_cli cc = *c;
	cc.root = root ? root : c->root;
	cc.facts_file = NULL;
	struct hwc_facts *f = hwc_cli_facts(&cc, ec);
	if (!f)
		return NULL;
	json_t *facts = hwc_facts_to_json(f);
	json_t *doc = facts ? hwc_report_json(&cc, "hwcheck.facts", f, facts, NULL) : NULL;
	hwc_render_errors(f);
	hwc_facts_free(f);
	if (!doc)
		*ec = HWC_EXIT_INTERNAL;
	return doc;
}

static json_t *load_file(const char *path, int *ec)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = hwc_cli_read_input(path, MAX_INPUT_BYTES, &buf, &len);
	if (rc < 0) {
		hwc_cli_err("%s: cannot read: %s", path,
			    rc == -EFBIG ? "larger than 512 MiB; not a snapshot or facts document"
					 : hwc_cli_input_strerror(rc));
		*ec = HWC_EXIT_USAGE;
		return NULL;
	}
	json_t *doc = NULL;
	if (hwc_cli_json_like(buf, len)) {
		doc = parse_json(buf, len, path);
	} else {
		const void *data;
		size_t dlen;
		rc = hwc_tar_find(buf, len, "hwcheck/facts.json", &data, &dlen);
		if (rc == 0) {
			char what[4200];
			snprintf(what, sizeof(what), "%s:hwcheck/facts.json", path);
			doc = parse_json(data, dlen, what);
		} else if (rc == -ENOENT) {
			hwc_cli_err("%s: a tar without hwcheck/facts.json; untar it and give the "
				    "directory (it is then read as a --root)", path);
		} else if (len >= 263 && memcmp(buf + 257, "ustar", 5) == 0) {
			hwc_cli_err("%s: a damaged tar (truncated, or a header checksum does not match) "
				    "before hwcheck/facts.json", path);
		} else {
			hwc_cli_err("%s: neither JSON nor a tar (expected a snapshot tar, a snapshot "
				    "directory, or a facts/report JSON file)", path);
		}
	}
	free(buf);
	if (!doc)
		*ec = HWC_EXIT_USAGE;
	return doc;
}

json_t *hwc_cli_load_doc(const struct hwc_cli *c, const char *path, int *ec)
{
	*ec = 0;
	if (!path)
		return c->facts_file ? load_file(c->facts_file, ec) : collect_doc(c, NULL, ec);
	struct stat st;
	if (stat(path, &st) < 0) {
		hwc_cli_err("%s: %s", path, strerror(errno));
		*ec = HWC_EXIT_USAGE;
		return NULL;
	}
	/* An (untarred) capture is what its tree says now, collected through the root walker
	 * like any --root: its stored hwcheck/facts.json may be stale (the tree was edited since)
	 * or hostile (a link out of the capture), so it is never opened. */
	if (S_ISDIR(st.st_mode))
		return collect_doc(c, path, ec);
	return load_file(path, ec);
}

const char *hwc_cli_doc_hostname(const json_t *doc)
{
	const char *h = hwc_q_string(hwc_q_get(hwc_q_get(doc, "facts"), "host"), "hostname");
	if (h)
		return h;
	/* run.hostname is the machine that ran hwcheck: the inspected host only when it read
	 * itself, not a --root capture or a --facts file */
	const json_t *run = hwc_q_get(doc, "run");
	const char *root = hwc_q_string(run, "root");
	if ((root && strcmp(root, "/") != 0) || hwc_q_get(run, "facts_file"))
		return NULL;
	return hwc_q_string(run, "hostname");
}

static json_t *side_json(const json_t *doc, const char *source)
{
	const json_t *run = hwc_q_get(doc, "run");
	const char *host = hwc_cli_doc_hostname(doc);
	const char *at = hwc_json_str_or(run, "started_at", NULL);
	const char *ver = hwc_json_str_or(hwc_q_get(doc, "tool"), "version", NULL);
	json_t *o = json_object();
	json_object_set_new(o, "source", hwc_json_string(source));
	json_object_set_new(o, "schema", json_string(hwc_json_str_or(doc, "schema", "?")));
	json_object_set_new(o, "hostname", host ? hwc_json_string(host) : json_null());
	json_object_set_new(o, "started_at", at ? hwc_json_string(at) : json_null());
	json_object_set_new(o, "tool_version", ver ? hwc_json_string(ver) : json_null());
	return o;
}

static int parse_threshold(const char *opt, const char *s, double dflt, double max, double *out)
{
	if (!s) {
		*out = dflt;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > max) {
		hwc_cli_err("%s: expected a number between 0 and %g, got '%s'", opt, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

static const char *verdict_label(const char *v)
{
	return !strcmp(v, "regression") ? "REGRESSION" : !strcmp(v, "improvement") ? "better"
						   : !strcmp(v, "unknown")   ? "unknown"
									     : "change";
}

static void render_changes(FILE *out, const struct hwc_cli *c, const json_t *changes)
{
	size_t i;
	const json_t *ch;
	json_array_foreach(changes, i, ch) {
		const char *v = hwc_json_str_or(ch, "verdict", "change");
		const char *col = !strcmp(v, "regression") ? C_RED : !strcmp(v, "improvement") ? C_GRN
								 : !strcmp(v, "unknown") ? C_YEL : "";
		fprintf(out, "  %s%-10s%s %s%s\n", c->color ? col : "", verdict_label(v),
			c->color && *col ? C_OFF : "", hwc_json_str_or(ch, "message", ""),
			json_is_true(hwc_q_get(ch, "at_risk")) ? " [at risk]" : "");
		const char *fix = hwc_json_str_or(ch, "fix", NULL);
		if (fix)
			fprintf(out, "             fix: %s\n", fix);
	}
}

/* After the change: configured but not active, and the profile's intent. */
static void render_fw_state(FILE *out, const json_t *st)
{
	const json_t *pend = hwc_q_get(st, "pending");
	const json_t *differ = hwc_q_get(hwc_q_get(st, "profile"), "differ");
	if (!json_array_size(pend) && hwc_q_is_null(st, "profile"))
		return;
	fprintf(out, "  fw config: current == next boot == profile: %s",
		json_is_true(hwc_q_get(st, "current_next_boot_intent_agree")) ? "yes" : "no");
	size_t i;
	const json_t *n;
	json_array_foreach(pend, i, n) fprintf(out, "%s%s", i ? ", " : " (not active: ", json_string_value(n));
	if (json_array_size(pend))
		fputc(')', out);
	json_array_foreach(differ, i, n) fprintf(out, "%s%s", i ? ", " : " (not as the profile intends: ", json_string_value(n));
	if (json_array_size(differ))
		fputc(')', out);
	fputc('\n', out);
}

static void side_line(FILE *out, const char *label, const json_t *s)
{
	fprintf(out, "%s %s", label, hwc_json_str_or(s, "source", "?"));
	const char *h = hwc_json_str_or(s, "hostname", NULL), *at = hwc_json_str_or(s, "started_at", NULL);
	if (h || at)
		fprintf(out, " (%s%s%s)", h ? h : "", h && at ? ", " : "", at ? at : "");
	fputc('\n', out);
}

static void render_text(FILE *out, const struct hwc_cli *c, const json_t *doc)
{
	side_line(out, "baseline:", hwc_q_get(doc, "baseline"));
	side_line(out, "current: ", hwc_q_get(doc, "current"));
	size_t i;
	const json_t *card;
	json_array_foreach(hwc_q_get(doc, "cards"), i, card) {
		const char *st = hwc_json_str_or(card, "status", "?");
		const char *prod = hwc_json_str_or(card, "product", NULL);
		const char *ser = hwc_json_str_or(card, "serial_number", NULL);
		fprintf(out, "\n%scard %s%s", c->color ? C_BOLD : "", hwc_json_str_or(card, "bdf", "?"),
			c->color ? C_OFF : "");
		if (prod)
			fprintf(out, " %s", prod);
		if (ser)
			fprintf(out, " serial %s", ser);
		bool bad = !strcmp(st, "regressed") || !strcmp(st, "vanished");
		fprintf(out, ": %s%s%s\n", c->color && bad ? C_RED : "", st, c->color && bad ? C_OFF : "");
		render_changes(out, c, hwc_q_get(card, "changes"));
		render_fw_state(out, hwc_q_get(card, "fw_config_state"));
	}
	const json_t *hch = hwc_q_get(hwc_q_get(doc, "host"), "changes");
	if (json_array_size(hch)) {
		fputs("\nhost:\n", out);
		render_changes(out, c, hch);
	}
	const json_t *s = hwc_q_get(doc, "summary");
#define N(k) (long long)json_integer_value(hwc_q_get(s, k))
	fprintf(out, "\n%lld regression%s, %lld change%s, %lld improvement%s, %lld unknown; "
		"%lld card%s matched, %lld appeared, %lld vanished\n",
		N("regressions"), N("regressions") == 1 ? "" : "s", N("changes"),
		N("changes") == 1 ? "" : "s", N("improvements"), N("improvements") == 1 ? "" : "s",
		N("unknown"), N("cards_matched"), N("cards_matched") == 1 ? "" : "s",
		N("cards_appeared"), N("cards_vanished"));
#undef N
}

int hwc_cmd_diff(struct hwc_cli *c)
{
	if (c->nargs < 1 || c->nargs > 2) {
		hwc_cli_err("diff: expected BASELINE [CURRENT] (a snapshot tar or directory, or a facts or "
			    "report JSON file); try 'hwcheck --help'");
		return HWC_EXIT_USAGE;
	}
	struct hwc_diff_opts o = {0};
	if (parse_threshold("--temp-noise", c->temp_noise, HWC_DIFF_TEMP_NOISE_DEGC, 200,
			    &o.temp_noise_degc) < 0 ||
	    parse_threshold("--probe-tolerance", c->probe_tolerance, HWC_DIFF_PROBE_TOL_PCT, 100,
			    &o.probe_tol_pct) < 0)
		return HWC_EXIT_USAGE;
	struct hwc_profile *prof = NULL;
	char perr[512];
	if (c->profile && hwc_profile_load(c->profile, &prof, perr, sizeof(perr)) < 0) {
		hwc_cli_err("--profile %s", perr);
		return HWC_EXIT_USAGE;
	}
	o.profile = prof;
	int ec;
	json_t *base = hwc_cli_load_doc(c, c->args[0], &ec);
	if (!base) {
		hwc_profile_free(prof);
		return ec;
	}
	const char *cur_path = c->nargs > 1 ? c->args[1] : NULL;
	json_t *cur = hwc_cli_load_doc(c, cur_path, &ec);
	if (!cur) {
		json_decref(base);
		hwc_profile_free(prof);
		return ec;
	}
	const char *cur_src = cur_path ? cur_path : c->facts_file ? c->facts_file
					: c->root ? c->root : "live";
	const json_t *bf = hwc_q_get(base, "facts"), *af = hwc_q_get(cur, "facts");
	int rc = HWC_EXIT_OK;
	if (hwc_facts_known_count(bf) == 0 || hwc_facts_known_count(af) == 0) {
		hwc_cli_err("diff: nothing is known in %s; there is nothing to compare",
			    hwc_facts_known_count(bf) == 0 ? c->args[0] : cur_src);
		rc = HWC_EXIT_NOTHING;
		goto out;
	}
	json_t *d = hwc_diff_facts(bf, af, &o);
	json_t *doc = json_object();
	if (!d || !doc) {
		json_decref(d);
		json_decref(doc);
		hwc_cli_err("diff: out of memory");
		rc = HWC_EXIT_INTERNAL;
		goto out;
	}
	json_object_set_new(doc, "schema", json_string("hwcheck.diff"));
	json_object_set_new(doc, "schema_version", json_integer(HWC_SCHEMA_VERSION));
	json_object_set_new(doc, "tool", json_pack("{s:s, s:s}", "name", "hwcheck", "version",
						   HWCHECK_VERSION));
	json_object_set_new(doc, "baseline", side_json(base, c->args[0]));
	json_object_set_new(doc, "current", side_json(cur, cur_src));
	json_object_set_new(doc, "options", json_pack("{s:f, s:f}", "temp_noise_degc", o.temp_noise_degc,
						      "probe_tolerance_pct", o.probe_tol_pct));
	json_object_update(doc, d);
	json_decref(d);
	if (c->json)
		rc = hwc_emit_json(c, doc);
	else
		render_text(stdout, c, doc);
	if (!rc && hwc_diff_regressions(doc) > 0)
		rc = HWC_EXIT_FINDINGS;
	json_decref(doc);
out:
	json_decref(base);
	json_decref(cur);
	hwc_profile_free(prof);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* The commands check, facts, rules and version, and the plumbing they share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/output.h"
#include "core/query.h"
#include "hwinfo/hwinfo.h"
#include "mlx/mlx.h"

int hwc_cli_env(const struct hwc_cli *c, struct hwc_capture_sink *record, struct hwc_env **out)
{
	struct hwc_env_opts o = {
		.root = c->root,
		.record = record,
		.cmd_timeout_ms = c->cmd_timeout_s * 1000u,
		.total_timeout_ms = c->timeout_s * 1000u,
		.no_tools = c->no_tools,
		.mode = c->exec_tools ? HWC_RUN_EXEC : HWC_RUN_AUTO,
		/* a dump given alone is the machine under test: nothing of this one is read */
		.only_input = c->pci_dump && !c->root ? "the --pci-dump file" : NULL,
	};
	int rc = hwc_env_open(&o, out);
	if (rc < 0) {
		hwc_cli_err("--root %s: %s", c->root ? c->root : "/", strerror(-rc));
		return HWC_EXIT_USAGE;
	}
	return 0;
}

static struct hwc_facts *load_facts_file(const struct hwc_cli *c, int *exit_code)
{
	char *buf = NULL, what[4200];
	size_t len = 0;
	snprintf(what, sizeof(what), "--facts %s", c->facts_file);
	int rc = hwc_cli_read_input(c->facts_file, (size_t)HWC_MAX_DOC_MIB << 20, &buf, &len);
	if (rc < 0) {
		hwc_cli_err("%s: cannot read: %s", what, hwc_cli_input_strerror(rc));
		*exit_code = HWC_EXIT_USAGE;
		return NULL;
	}
	json_t *doc = hwc_cli_parse_doc(buf, len, what);
	free(buf);
	if (!doc) {
		*exit_code = HWC_EXIT_USAGE;
		return NULL;
	}
	struct hwc_facts *f = hwc_facts_new();
	if (!f) {
		json_decref(doc);
		*exit_code = HWC_EXIT_INTERNAL;
		return NULL;
	}
	hwc_facts_from_json(hwc_q_get(doc, "facts"), f);
	json_decref(doc);
	return f;
}

/* Why -d matched nothing, or NULL when it matched: the PCI filter found the function (it reports
 * a miss among the errors and keeps every device), or a ConnectX card or netdev of that name was
 * kept. A function that is no card's, on a machine with cards, is a miss too: judged alone it
 * would read as a machine without any (MLX_NO_ADAPTER). */
static const char *device_miss(const struct hwc_facts *f, const char *dev)
{
	if ((f->mlx && f->mlx->adapters.n) || (f->netdevs && f->netdevs->netdevs.n))
		return NULL;
	for (size_t i = 0; i < f->errors.n; i++) {
		const struct hwc_diag *d = &f->errors.items[i];
		if (!strcmp(d->source, "pci") && d->subject && !strcmp(d->subject, dev) &&
		    strstr(d->message, "no PCI function matches"))
			return "no PCI function, netdev or RDMA device of this name";
	}
	if (f->mlx && f->mlx->adapters_seen)
		return "not a function, netdev or RDMA device of a ConnectX card";
	return NULL;
}

bool hwc_cli_pci_dump_ok(const struct hwc_cli *c)
{
	if (!c->pci_dump || access(c->pci_dump, R_OK) == 0)
		return true;
	/* the dump is the machine under test: without it there is nothing to judge */
	hwc_cli_err("--pci-dump %s: cannot read: %s", c->pci_dump, strerror(errno));
	return false;
}

struct hwc_facts *hwc_cli_facts(const struct hwc_cli *c, int *exit_code)
{
	*exit_code = 0;
	if (c->facts_file && c->fw_image) {
		hwc_cli_err("--fw-image: mstflint must read the image on a machine or a --root capture, "
			    "not with --facts");
		*exit_code = HWC_EXIT_USAGE;
		return NULL;
	}
	if (c->facts_file)
		return load_facts_file(c, exit_code);
	if (!hwc_cli_pci_dump_ok(c)) {
		*exit_code = HWC_EXIT_USAGE;
		return NULL;
	}
	struct hwc_env *e;
	int rc = hwc_cli_env(c, NULL, &e);
	if (rc) {
		*exit_code = rc;
		return NULL;
	}
	struct hwc_facts *f = hwc_facts_new();
	if (!f) {
		hwc_env_free(e);
		*exit_code = HWC_EXIT_INTERNAL;
		return NULL;
	}
	struct hwc_collect_opts o = {.device = c->device, .pci_dump = c->pci_dump, .probe = c->probe,
				     .fw_image = c->fw_image, .serial_tools = c->serial_tools,
				     .watch_s = c->watch_s};
	hwc_collect_all(e, f, &o);
	hwc_env_free(e);
	/* With a probe, -d names the RDMA device to measure (rxe0 has no ConnectX card behind it);
	 * the probe reports a name that matches nothing itself (status skipped, exit 3). */
	const char *miss = c->device && !c->probe ? device_miss(f, c->device) : NULL;
	if (miss) {
		hwc_cli_err("-d %s: %s ('hwcheck list' shows the cards)", c->device, miss);
		hwc_facts_free(f);
		*exit_code = HWC_EXIT_USAGE;
		return NULL;
	}
	return f;
}

bool hwc_cli_no_args(const struct hwc_cli *c, const char *cmd)
{
	if (c->nargs == 0)
		return true;
	hwc_cli_err("%s: unexpected argument '%s'; try 'hwcheck --help'", cmd, c->args[0]);
	return false;
}

/* Why a run has no fact: with --facts nothing is collected (the file is read, not the machine),
 * so the file is named as what holds nothing; otherwise the root that gave nothing. */
const char *hwc_cli_nothing_why(const struct hwc_cli *c, char *buf, size_t n)
{
	if (c->facts_file)
		snprintf(buf, n, "--facts %s holds no known fact (with --facts nothing is collected: "
			 "every fact comes from the file)", c->facts_file);
	else if (c->pci_dump && !c->root) /* the dump alone is the machine: nothing else was read */
		snprintf(buf, n, "nothing could be collected from --pci-dump %s", c->pci_dump);
	else
		snprintf(buf, n, "nothing could be collected under %s", c->root ? c->root : "/");
	return buf;
}

void hwc_cli_err_nothing(const struct hwc_cli *c)
{
	char why[1024];
	hwc_cli_err("%s", hwc_cli_nothing_why(c, why, sizeof(why)));
}

int hwc_cli_begin(const struct hwc_cli *c, const char *cmd, bool with_profile,
		  struct hwc_cli_run *r)
{
	char perr[512] = "";
	int ec = 0;
	memset(r, 0, sizeof(*r));
	if (!hwc_cli_no_args(c, cmd))
		return HWC_EXIT_USAGE;
	if (with_profile && hwc_profile_load(c->profile, &r->prof, perr, sizeof(perr)) < 0) {
		hwc_cli_err("--profile %s", perr);
		return HWC_EXIT_USAGE;
	}
	r->f = hwc_cli_facts(c, &ec);
	if (r->f)
		r->facts = hwc_facts_to_json(r->f);
	if (!r->facts) {
		if (r->f)
			hwc_cli_err("%s: out of memory", cmd);
		hwc_cli_end(r);
		return ec ? ec : HWC_EXIT_INTERNAL;
	}
	r->nothing = hwc_facts_known_count(r->facts) == 0;
	return 0;
}

void hwc_cli_end(struct hwc_cli_run *r)
{
	json_decref(r->facts);
	hwc_facts_free(r->f);
	hwc_profile_free(r->prof);
	memset(r, 0, sizeof(*r));
}

int hwc_emit_json(const struct hwc_cli *c, const json_t *j)
{
	if (!c->output || strcmp(c->output, "-") == 0) {
		/* streamed: a DGX-class host's facts are megabytes of text; a write error is
		 * reported once, by main(), which checks stdout before exiting */
		int rc = hwc_json_dumpf(j, stdout, true);
		fputc('\n', stdout);
		return rc < 0 || fflush(stdout) != 0 || ferror(stdout) ? HWC_EXIT_INTERNAL : 0;
	}
	char *s = hwc_json_dumps(j, true);
	if (!s) {
		hwc_cli_err("out of memory while writing JSON");
		return HWC_EXIT_INTERNAL;
	}
	size_t len = strlen(s);
	int rc;
	if (c->output && strcmp(c->output, "-") != 0) {
		s[len] = '\n';
		rc = hwc_write_file_atomic(c->output, s, len + 1);
		if (rc < 0) {
			free(s);
			hwc_cli_err("-o %s: cannot write: %s", c->output, hwc_output_strerror(rc));
			return rc == -ENOSPC || rc == -EIO || rc == -EDQUOT ? HWC_EXIT_INTERNAL
									  : HWC_EXIT_USAGE;
		}
	} else {
		fputs(s, stdout);
		fputc('\n', stdout);
		rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
	}
	free(s);
	return rc < 0 ? HWC_EXIT_INTERNAL : 0;
}

int hwc_cmd_check(struct hwc_cli *c)
{
	struct hwc_cli_run r;
	int ec = hwc_cli_begin(c, "check", true, &r);
	if (ec)
		return ec;
	struct hwc_facts *f = r.f;
	json_t *facts = r.facts;
	bool nothing = r.nothing;
	struct hwc_findings fd = {0};
	if (!nothing)
		hwc_rules_eval(facts, r.prof, f->arena, &fd);
	c->prof = r.prof;
	struct hwc_summary sum;
	hwc_summary_compute(&fd, nothing, &sum);
	int rc = 0;
	if (c->json) {
		json_t *rep = hwc_report_json(c, "hwcheck.report", f, json_incref(facts), &fd);
		rc = rep ? hwc_emit_json(c, rep) : HWC_EXIT_INTERNAL;
		json_decref(rep);
	} else if (nothing) {
		/* a monitor must never read an empty machine as a healthy one */
		puts(c->facts_file ? "hwcheck: UNKNOWN no known fact in the --facts file"
				   : "hwcheck: UNKNOWN nothing could be collected");
		if (!c->summary_line)
			printf("No fact could be read %s %s: no rule was run, and this is not a "
			       "healthy host.\n", c->facts_file || (c->pci_dump && !c->root) ? "from" : "under",
			       c->facts_file ? c->facts_file : c->root ? c->root : c->pci_dump ? c->pci_dump : "/");
	} else {
		hwc_render_check_text(stdout, c, facts, &fd, f);
	}
	if (!rc && c->prom)
		rc = hwc_prom_write(c, facts, nothing ? NULL : &fd, r.prof);
	hwc_render_errors(f);
	if (nothing)
		hwc_cli_err_nothing(c);
	if (!rc) {
		rc = hwc_summary_exit(c, &sum);
		c->exit_mapped = true;
	}
	c->prof = NULL;
	hwc_cli_end(&r);
	return rc;
}

/* json_dump_callback sink that indents every line after the first by `indent` spaces, so a
 * value dumped on its own sits at its depth in the document. */
struct indent_sink {
	FILE *out;
	int indent;
};

static int indent_write(const char *buf, size_t size, void *data)
{
	struct indent_sink *k = data;
	for (size_t i = 0; i < size; i++) {
		if (fputc(buf[i], k->out) == EOF)
			return -1;
		if (buf[i] == '\n' && fprintf(k->out, "%*s", k->indent, "") < 0)
			return -1;
	}
	return 0;
}

static int dump_at(FILE *out, const json_t *j, int indent)
{
	struct indent_sink k = {out, indent};
	return json_dump_callback(j, indent_write, &k,
				  JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_INDENT(2) |
					  JSON_ENCODE_ANY);
}

/* The facts document, one section at a time: each section's JSON is built, written and freed
 * before the next, so a host with a thousand PCI functions never holds its whole document in
 * memory (the same text as dumping it whole). Adds the known values to *known. */
static int stream_facts_doc(FILE *out, const struct hwc_cli *c, const struct hwc_facts *f,
			    size_t *known)
{
	json_t *rep = hwc_report_json(c, "hwcheck.facts", f, json_object(), NULL);
	if (!rep)
		return -ENOMEM;
	int rc = fputs("{", out) == EOF ? -EIO : 0;
	const char *key;
	json_t *val;
	bool first = true;
	json_object_foreach(rep, key, val) {
		if (rc < 0)
			break;
		json_t *k = json_string(key);
		if (fputs(first ? "\n  " : ",\n  ", out) == EOF || dump_at(out, k, 2) < 0 ||
		    fputs(": ", out) == EOF)
			rc = -EIO;
		json_decref(k);
		first = false;
		if (rc < 0)
			break;
		if (strcmp(key, "facts") != 0) {
			rc = dump_at(out, val, 2) < 0 ? -EIO : 0;
			continue;
		}
		size_t n;
		const struct hwc_section *sec = hwc_sections(&n);
		bool any = false;
		for (size_t i = 0; i < n && rc == 0; i++) {
			json_t *sj = sec[i].to_json(f);
			if (!sj)
				continue;
			*known += hwc_facts_known_count(sj);
			k = json_string(sec[i].name);
			if (fputs(any ? ",\n    " : "{\n    ", out) == EOF || dump_at(out, k, 4) < 0 ||
			    fputs(": ", out) == EOF || dump_at(out, sj, 4) < 0)
				rc = -EIO;
			json_decref(k);
			json_decref(sj);
			any = true;
		}
		if (rc == 0 && fputs(any ? "\n  }" : "{}", out) == EOF)
			rc = -EIO;
	}
	if (rc == 0 && fputs("\n}\n", out) == EOF)
		rc = -EIO;
	json_decref(rep);
	return rc;
}

static int cmd_facts_json(struct hwc_cli *c, struct hwc_facts *f, size_t *known)
{
	struct hwc_outfile o;
	int rc = hwc_outfile_open(&o, c->output ? c->output : "-");
	if (rc < 0) {
		hwc_cli_err("-o %s: cannot write: %s", c->output, hwc_output_strerror(rc));
		return HWC_EXIT_USAGE;
	}
	errno = 0;
	rc = stream_facts_doc(o.fp, c, f, known);
	if (rc < 0 && errno)
		rc = -errno; /* the write's own reason (ENOSPC), not the generic EIO */
	if (rc < 0)
		hwc_outfile_abort(&o);
	else
		rc = hwc_outfile_commit(&o);
	if (rc < 0 && c->output && strcmp(c->output, "-") != 0)
		hwc_cli_err("-o %s: cannot write: %s", c->output, hwc_output_strerror(rc));
	/* stdout: reported once by main(), which checks it before exiting */
	return rc < 0 ? HWC_EXIT_INTERNAL : 0;
}

int hwc_cmd_facts(struct hwc_cli *c)
{
	if (!hwc_cli_no_args(c, "facts"))
		return HWC_EXIT_USAGE;
	int ec;
	struct hwc_facts *f = hwc_cli_facts(c, &ec);
	if (!f)
		return ec;
	int rc = 0;
	bool nothing;
	if (c->json) {
		size_t known = 0;
		rc = cmd_facts_json(c, f, &known);
		nothing = known == 0;
	} else {
		json_t *facts = hwc_facts_to_json(f);
		nothing = hwc_facts_known_count(facts) == 0;
		hwc_render_facts_text(stdout, c, facts);
		json_decref(facts);
	}
	hwc_render_errors(f);
	hwc_facts_free(f);
	if (nothing) {
		hwc_cli_err_nothing(c);
		return HWC_EXIT_NOTHING;
	}
	return rc;
}

int hwc_cmd_rules(struct hwc_cli *c)
{
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	const char *sub = c->nargs > 0 ? c->args[0] : "list";
	if (strcmp(sub, "list") == 0 && c->nargs <= 1) {
		if (c->json) {
			json_t *arr = json_array();
			for (size_t i = 0; i < n; i++) {
				json_t *o = json_object();
				json_object_set_new(o, "id", json_string(t[i].id));
				json_object_set_new(o, "severity", json_string(hwc_severity_name(t[i].severity)));
				json_object_set_new(o, "area", json_string(t[i].area));
				json_object_set_new(o, "title", json_string(t[i].title));
				json_object_set_new(o, "rationale", json_string(t[i].rationale));
				json_object_set_new(o, "fix", json_string(t[i].fix));
				json_array_append_new(arr, o);
			}
			json_t *doc = json_pack("{s:s, s:i, s:o}", "schema", "hwcheck.rules",
						"schema_version", HWC_SCHEMA_VERSION, "rules", arr);
			int rc = hwc_emit_json(c, doc);
			json_decref(doc);
			return rc;
		}
		for (size_t i = 0; i < n; i++)
			printf("%-32s %-5s  %s\n", t[i].id, hwc_severity_name(t[i].severity), t[i].title);
		return 0;
	}
	if (strcmp(sub, "explain") == 0 && c->nargs == 2) {
		const struct hwc_rule *r = hwc_rule_find(c->args[1]);
		if (!r) {
			hwc_cli_err("rules explain: no rule '%s'; 'hwcheck rules list' shows them", c->args[1]);
			return HWC_EXIT_USAGE;
		}
		if (c->json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "id", r->id, "severity",
					      hwc_severity_name(r->severity), "area", r->area, "title", r->title,
					      "rationale", r->rationale, "fix", r->fix);
			int rc = hwc_emit_json(c, o);
			json_decref(o);
			return rc;
		}
		printf("%s (%s): %s\n\nWhy: %s\n\nFix: %s\n", r->id, hwc_severity_name(r->severity),
		       r->title, r->rationale, r->fix);
		return 0;
	}
	hwc_cli_err("rules: expected 'list' or 'explain ID'; try 'hwcheck --help'");
	return HWC_EXIT_USAGE;
}

int hwc_cmd_version(struct hwc_cli *c)
{
	if (c->json) {
		json_t *o = json_pack("{s:s, s:s, s:i}", "name", "hwcheck", "version", HWCHECK_VERSION,
				      "schema_version", HWC_SCHEMA_VERSION);
		int rc = hwc_emit_json(c, o);
		json_decref(o);
		return rc;
	}
	printf("hwcheck %s (report schema %d)\n", HWCHECK_VERSION, HWC_SCHEMA_VERSION);
	return 0;
}

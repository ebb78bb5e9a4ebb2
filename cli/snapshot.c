/* SPDX-License-Identifier: MIT */
/* hwcheck snapshot: collect with recording on, then write every captured file, link, directory
 * and command output into a tar that is itself a valid --root. */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/output.h"
#include "core/redact.h"

struct tar_ctx {
	FILE *fp;
	size_t files, links, dirs;
	struct hwc_redactor *red; /* --redact */
	size_t redacted;
	int rc;
};

static int add_one(const struct hwc_capture *cap, void *p)
{
	struct tar_ctx *t = p;
	int rc = 0;
	switch (cap->kind) {
	case HWC_CAP_FILE:
		if (t->red && cap->len) {
			unsigned char *copy = malloc(cap->len);
			if (!copy)
				return -ENOMEM;
			memcpy(copy, cap->data, cap->len);
			t->redacted += hwc_redact(t->red, cap->path, copy, cap->len);
			rc = hwc_tar_add_file(t->fp, cap->path, copy, cap->len, 0644);
			free(copy);
		} else {
			rc = hwc_tar_add_file(t->fp, cap->path, cap->data, cap->len, 0644);
		}
		t->files++;
		break;
	case HWC_CAP_LINK: {
		char *target = strndup((const char *)cap->data, cap->len);
		if (!target)
			return -ENOMEM;
		rc = hwc_tar_add_link(t->fp, cap->path, target);
		free(target);
		t->links++;
		break;
	}
	case HWC_CAP_DIR:
		rc = hwc_tar_add_dir(t->fp, cap->path);
		t->dirs++;
		break;
	}
	return rc;
}

int hwc_cmd_snapshot(struct hwc_cli *c)
{
	if (c->nargs > 0) {
		hwc_cli_err("snapshot: unexpected argument '%s'; use -o FILE", c->args[0]);
		return HWC_EXIT_USAGE;
	}
	if (!c->output) {
		hwc_cli_err("snapshot: needs -o FILE.tar (where to write the capture)");
		return HWC_EXIT_USAGE;
	}
	if (c->facts_file) {
		hwc_cli_err("snapshot: --facts cannot be captured; snapshot reads a machine");
		return HWC_EXIT_USAGE;
	}
	struct hwc_env *e;
	int rc = hwc_cli_env(c, true, &e);
	if (rc)
		return rc;
	struct hwc_facts *f = hwc_facts_new();
	if (!f) {
		hwc_env_free(e);
		return HWC_EXIT_INTERNAL;
	}
	struct hwc_collect_opts o = {.device = c->device, .pci_dump = c->pci_dump,
				     .fw_image = c->fw_image};
	hwc_collect_all(e, f, &o);
	json_t *facts = hwc_facts_to_json(f);
	json_t *doc = hwc_report_json(c, "hwcheck.facts", f, json_incref(facts), NULL);
	char *facts_s = doc ? hwc_json_dumps(doc, true) : NULL;

	struct hwc_outfile out;
	rc = strcmp(c->output, "-") == 0 ? -EINVAL : hwc_outfile_open(&out, c->output);
	if (rc < 0) {
		hwc_cli_err("snapshot: %s: cannot write: %s", c->output,
			    rc == -EINVAL ? "a tar is not written to stdout" : strerror(-rc));
		rc = HWC_EXIT_USAGE;
		goto done;
	}
	struct tar_ctx t = {.fp = out.fp};
	if (c->redact && !(t.red = hwc_redactor_new())) {
		hwc_outfile_abort(&out);
		rc = HWC_EXIT_INTERNAL;
		goto done;
	}
	rc = hwc_env_captures(e, add_one, &t);
	/* The facts as collected, for `hwcheck diff` and for a person reading the tar; redacted
	 * after the captures, so a value keeps the placeholder it got there. */
	if (rc == 0 && facts_s) {
		if (t.red)
			t.redacted += hwc_redact(t.red, "hwcheck/facts.json", (unsigned char *)facts_s,
						 strlen(facts_s));
		rc = hwc_tar_add_file(out.fp, "hwcheck/facts.json", facts_s, strlen(facts_s), 0644);
	}
	hwc_redactor_free(t.red);
	if (rc == 0)
		rc = hwc_tar_finish(out.fp);
	if (rc < 0) {
		hwc_outfile_abort(&out);
		hwc_cli_err("snapshot: %s: %s", c->output, strerror(-rc));
		rc = HWC_EXIT_INTERNAL;
		goto done;
	}
	rc = hwc_outfile_commit(&out);
	if (rc < 0) {
		hwc_cli_err("snapshot: %s: %s", c->output, strerror(-rc));
		rc = HWC_EXIT_INTERNAL;
		goto done;
	}
	hwc_render_errors(f);
	fprintf(stderr, "hwcheck: wrote %s (%zu files, %zu links, %zu directories)", c->output,
		t.files, t.links, t.dirs);
	if (c->redact)
		fprintf(stderr, "; %zu serial numbers, MACs and GUIDs redacted", t.redacted);
	fputc('\n', stderr);
	rc = hwc_facts_known_count(facts) ? HWC_EXIT_OK : HWC_EXIT_NOTHING;
done:
	free(facts_s);
	json_decref(doc);
	json_decref(facts);
	hwc_facts_free(f);
	hwc_env_free(e);
	return rc;
}

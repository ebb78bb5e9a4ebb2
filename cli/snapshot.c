/* SPDX-License-Identifier: MIT */
/* hwcheck snapshot: collect with recording on, then write every captured file, link, directory
 * and command output into a tar that is itself a valid --root. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/output.h"
#include "snapshot/snapshot.h"

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
	if (!hwc_cli_pci_dump_ok(c))
		return HWC_EXIT_USAGE;
	struct hwc_capset *cs = hwc_capset_new();
	if (!cs)
		return HWC_EXIT_INTERNAL;
	struct hwc_env *e;
	int rc = hwc_cli_env(c, hwc_capset_sink(cs), &e);
	if (rc) {
		hwc_capset_free(cs);
		return rc;
	}
	struct hwc_facts *f = hwc_facts_new();
	if (!f) {
		hwc_env_free(e);
		hwc_capset_free(cs);
		return HWC_EXIT_INTERNAL;
	}
	struct hwc_collect_opts o = {.device = c->device, .pci_dump = c->pci_dump,
				     .fw_image = c->fw_image, .serial_tools = c->serial_tools,
				     .watch_s = c->watch_s};
	hwc_collect_all(e, f, &o);
	json_t *facts = hwc_facts_to_json(f);
	json_t *doc = hwc_report_json(c, "hwcheck.facts", f, json_incref(facts), NULL);
	char *facts_s = doc ? hwc_json_dumps(doc, true) : NULL;

	struct hwc_outfile out;
	rc = strcmp(c->output, "-") == 0 ? -EINVAL : hwc_outfile_open(&out, c->output);
	if (rc < 0) {
		hwc_cli_err("snapshot: %s: cannot write: %s", c->output,
			    rc == -EINVAL ? "a tar is not written to stdout" : hwc_output_strerror(rc));
		rc = HWC_EXIT_USAGE;
		goto done;
	}
	struct hwc_snapshot_stats t;
	rc = hwc_snapshot_write(out.fp, cs, facts_s, c->redact, &t);
	if (rc < 0) {
		hwc_outfile_abort(&out);
		hwc_cli_err("snapshot: %s: cannot write: %s", c->output, hwc_output_strerror(rc));
		rc = HWC_EXIT_INTERNAL;
		goto done;
	}
	rc = hwc_outfile_commit(&out);
	if (rc < 0) {
		hwc_cli_err("snapshot: %s: cannot write: %s", c->output, hwc_output_strerror(rc));
		rc = HWC_EXIT_INTERNAL;
		goto done;
	}
	hwc_render_errors(f);
	fprintf(stderr, "hwcheck: wrote %s (%zu %s, %zu %s, %zu %s)", c->output, t.files,
		hwc_cli_noun((long long)t.files, "file", "files"), t.links, hwc_cli_noun((long long)t.links, "link", "links"),
		t.dirs, hwc_cli_noun((long long)t.dirs, "directory", "directories"));
	if (t.moved || t.left_out)
		fprintf(stderr, "; %zu %s below a link written where it points, %zu left out", t.moved,
			hwc_cli_noun((long long)t.moved, "member", "members"), t.left_out);
	if (t.unreadable)
		fprintf(stderr, "; %zu %s could not be read (kept as such in " HWC_UNREADABLE_LIST ")",
			t.unreadable, hwc_cli_noun((long long)t.unreadable, "file", "files"));
	if (c->redact)
		fprintf(stderr, "; %zu %s redacted (serial numbers, MACs, GUIDs and names)", t.redacted,
			hwc_cli_noun((long long)t.redacted, "value", "values"));
	fputc('\n', stderr);
	rc = hwc_facts_known_count(facts) ? HWC_EXIT_OK : HWC_EXIT_NOTHING;
done:
	free(facts_s);
	json_decref(doc);
	json_decref(facts);
	hwc_facts_free(f);
	hwc_env_free(e);
	hwc_capset_free(cs);
	return rc;
}

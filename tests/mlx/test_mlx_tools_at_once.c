/* SPDX-License-Identifier: MIT */
/* One card's mstflint tools at once (issue 14's time bound), with real processes on the two-card
 * root of tests/fixtures/healthy-cx7-gen5x16: fake tools answer that root's recordings (mstlink
 * and mstfwreset: the real captures of link-bf3-mlxlink-clean and fw-cx5-image-other-psid).
 *  - at once: every tool of a card answers only once all five of the card's tools and one of its
 *    mstlink have started, so one after the other they would wait out their timeout: the facts
 *    prove the overlap without timing the run;
 *  - busy: one mstreg answers "Timed out trying to take the ICMD semaphore" (mstflint's own words)
 *    the first time: it is re-run alone, its facts come from the re-run, tools_rerun says so;
 *    busy twice: the fact stays unknown and tools_rerun says "busy again";
 *  - --serial-tools: a card's tools never overlap (each holds a lock directory while it runs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "core/runner.h"
#include "core/util.h"
#include "mlx/mlx.h"
#include "test.h"

static char tmp[] = "/tmp/hwc-mlx-once-XXXXXX";

#define ROOT FIXTURES "/healthy-cx7-gen5x16/root"
#define LINK FIXTURES "/link-bf3-mlxlink-clean/root/hwcheck/commands/mstlink -d 0000:03:00.0 -m -c/stdout"
#define RESET FIXTURES "/fw-cx5-image-other-psid/root/hwcheck/commands/mstfwreset -d 0000:3b:00.0 query/stdout"
#define MTMP_21 "mstreg -d 0000:21:00.0 --reg_name MTMP"

/* The fake (the runner gives tools a fixed environment, so the test speaks through files in T):
 * T/mode "meet" (wait for the card's other tools) or else note any overlap; T/busy a key prefix
 * answered busy, once, or always when T/busy-always exists. */
static const char fake[] =
	"#!/bin/sh\n"
	"tool=$(basename \"$0\"); key=\"$tool $*\"; T='%s'\n"
	"MODE=$(cat \"$T/mode\" 2>/dev/null); BUSY=$(cat \"$T/busy\" 2>/dev/null)\n"
	"if [ \"$1\" = -v ]; then cat '" ROOT "/hwcheck/commands/mstconfig -v/stdout'; exit 0; fi\n"
	"card=${2%%.*}; d=\"$T/run/$card\"; mkdir -p \"$d/steps\" \"$d/link\"\n"
	"if [ \"$MODE\" = meet ]; then\n"
	"  if [ $tool = mstlink ]; then touch \"$d/link/$$\"; else touch \"$d/steps/$$\"; fi\n"
	"  i=0\n"
	"  while [ $(ls \"$d/steps\" | wc -l) -lt 5 ] || [ $(ls \"$d/link\" | wc -l) -lt 1 ]; do\n"
	"    i=$((i+1)); [ $i -gt 300 ] && { echo \"-E- $key ran alone\" >&2; exit 3; }\n"
	"    sleep 0.01\n"
	"  done\n"
	"else\n"
	"  mkdir \"$d/lock\" 2>/dev/null || echo \"$key\" >> \"$T/overlaps\"\n"
	"  sleep 0.02; rmdir \"$d/lock\" 2>/dev/null\n"
	"fi\n"
	"[ -n \"$BUSY\" ] && case \"$key\" in \"$BUSY\"*)\n"
	"  if [ -e \"$T/busy-always\" ] || mkdir \"$T/busy-once\" 2>/dev/null; then\n"
	"    echo '-E- Failed to send access register: Timed out trying to take the ICMD semaphore' >&2\n"
	"    exit 1\n"
	"  fi;;\n"
	"esac\n"
	"case $tool in\n"
	"  mstlink) exec cat '" LINK "';;\n"
	"  mstfwreset) exec cat '" RESET "';;\n"
	"  *) exec cat \"" ROOT "/hwcheck/commands/$key/stdout\";;\n"
	"esac\n";

static void put_tool(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/bin/%s", tmp, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
}

static void put_conf(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	if (!text) {
		unlink(path);
		return;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void clean_run(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/run' '%s/overlaps' '%s/busy-once'", tmp, tmp, tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not clean %s\n", tmp);
}

static struct hwc_facts *collect(bool serial)
{
	clean_run();
	struct hwc_env_opts eo = {.root = ROOT, .mode = HWC_RUN_EXEC, .cmd_timeout_ms = 8000};
	struct hwc_env *e = NULL;
	CHECK_INT(hwc_env_open(&eo, &e), 0);
	struct hwc_facts *f = hwc_facts_new();
	struct hwc_collect_opts co = {.serial_tools = serial};
	CHECK_INT(hwc_mlx_collect(e, f, &co), 0);
	hwc_run_drop_started(e);
	hwc_env_free(e);
	return f;
}

/* Every fact of every card's tools came from its tool's answer. */
static void check_all_ok(const struct hwc_facts *f, const char *what)
{
	const struct hwc_mlx_facts *mf = f->mlx;
	CHECK_INT(mf->adapters.n, 2);
	for (size_t i = 0; i < mf->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		fprintf(stderr, "%s: %s cfg=%d stored=%d temp=%d power=%d reset=%d ports=%zu\n", what,
			ad->bdf, ad->cfg.m.st, ad->fw_version_stored.m.st, ad->reg.temp_mdegc.m.st,
			ad->reg.power_status.m.st, ad->fw_reset.m.st, ad->ports.n);
		CHECK(hwc_ok(ad->cfg));
		CHECK(hwc_ok(ad->fw_version_stored));
		CHECK(hwc_ok(ad->reg.temp_mdegc));
		CHECK_STR(ad->reg.temp_source.v, "mstreg");
		CHECK(hwc_ok(ad->reg.power_status));
		CHECK(hwc_ok(ad->fw_reset));
		CHECK_INT(ad->ports.n, 2);
		for (size_t j = 0; j < ad->ports.n; j++)
			CHECK(hwc_ok(ad->ports.items[j].phy.source));
	}
}

static bool file_exists(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return access(path, F_OK) == 0;
}

static const struct hwc_mlx_adapter *card(const struct hwc_facts *f, const char *bdf)
{
	for (size_t i = 0; i < f->mlx->adapters.n; i++)
		if (strcmp(f->mlx->adapters.items[i].bdf, bdf) == 0)
			return &f->mlx->adapters.items[i];
	CHECK(!"no such card");
	exit(1);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}
	char dir[300], script[sizeof(fake) + 300];
	snprintf(dir, sizeof(dir), "%s/bin", tmp);
	mkdir(dir, 0755);
	snprintf(script, sizeof(script), fake, tmp);
	static const char *const tools[] = {"mstconfig", "mstflint", "mstreg", "mstfwreset",
					    "mstlink", "mstmget_temp"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(tools); i++)
		put_tool(tools[i], script);
	setenv("HWCHECK_TOOL_PATH", dir, 1);

	/* at once: one after the other, every tool would say "ran alone" */
	put_conf("mode", "meet");
	struct hwc_facts *f = collect(false);
	check_all_ok(f, "at once");
	CHECK_INT(card(f, "0000:21:00.0")->tools_rerun.n, 0);
	hwc_facts_free(f);

	/* busy once: re-run alone, the facts from the re-run */
	put_conf("busy", MTMP_21);
	f = collect(false);
	check_all_ok(f, "busy once");
	const struct hwc_mlx_adapter *ad = card(f, "0000:21:00.0");
	CHECK_INT(ad->tools_rerun.n, 1);
	if (ad->tools_rerun.n) {
		fprintf(stderr, "tools_rerun: %s\n", ad->tools_rerun.items[0]);
		CHECK(strstr(ad->tools_rerun.items[0], MTMP_21) == ad->tools_rerun.items[0]);
		CHECK(strstr(ad->tools_rerun.items[0], "re-run alone: exit status 0") != NULL);
	}
	CHECK_INT(card(f, "0000:81:00.0")->tools_rerun.n, 0);
	hwc_facts_free(f);

	/* busy twice: unknown, and said so */
	put_conf("busy-always", "");
	f = collect(false);
	ad = card(f, "0000:21:00.0");
	CHECK(!hwc_ok(ad->reg.temp_mdegc));
	fprintf(stderr, "busy twice: temp %s: %s\n", hwc_status_name(ad->reg.temp_mdegc.m.st),
		ad->reg.temp_mdegc.m.detail ? ad->reg.temp_mdegc.m.detail : "");
	CHECK_INT(ad->tools_rerun.n, 1);
	for (size_t i = 0; i < ad->tools_rerun.n; i++)
		fprintf(stderr, "tools_rerun: %s\n", ad->tools_rerun.items[i]);
	if (ad->tools_rerun.n)
		CHECK(strstr(ad->tools_rerun.items[0], "re-run alone: busy again") != NULL);
	hwc_facts_free(f);
	put_conf("busy-always", NULL);
	put_conf("busy", NULL);

	/* --serial-tools: no two tools of a card at once */
	put_conf("mode", "serial");
	f = collect(true);
	check_all_ok(f, "serial");
	CHECK(!file_exists("overlaps"));
	hwc_facts_free(f);

	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	TEST_MAIN_END();
}

/* SPDX-License-Identifier: MIT */
/* mlx collection with real processes: ten cards answered by fake mstflint tools, queried at the
 * same time (each answers only once the others have started); a tool that hangs is cut at its
 * timeout. Nothing here races the clock: the tools that must answer do so once they have all
 * started, under a --cmd-timeout (120 s) that no load reaches, and the one that must be cut hangs
 * (sleep 600) under a short one, alone (-d). So a loaded machine makes the test slower, never
 * wrong (it failed at load 15-21 with every tool under one 5 s timeout). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mlx/mlx.h"
#include "test.h"

#define NCARDS 10

static char tmp[] = "/tmp/hwc-mlx-XXXXXX";

static void put(const char *rel, const char *text, mode_t mode)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (char *p = path + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}
	char rel[256], script[2048];
	for (int i = 0; i < NCARDS; i++) {
		snprintf(rel, sizeof(rel), "root/sys/bus/pci/devices/0000:%02x:00.0/vendor", i + 1);
		put(rel, "0x15b3\n", 0644);
		snprintf(rel, sizeof(rel), "root/sys/bus/pci/devices/0000:%02x:00.0/device", i + 1);
		put(rel, "0x101d\n", 0644);
		snprintf(rel, sizeof(rel), "root/sys/bus/pci/devices/0000:%02x:00.0/class", i + 1);
		put(rel, "0x020000\n", 0644);
	}
	/* Each card's mstconfig answers only once all ten have started: run one after the other,
	 * the first would wait until killed at its timeout. So the cards are proven to be queried at
	 * the same time without timing the run. With the file hang present, card 0000:0a:00.0's
	 * hangs instead (the second run, below). */
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "if [ \"$1\" = -v ]; then echo 'mstconfig, mstflint 4.21.0, Git SHA Hash: N/A'; exit 0; fi\n"
		 "if [ \"$2\" = 0000:0a:00.0 ] && [ -e '%s/hang' ]; then exec sleep 600; fi\n"
		 "meet='%s/meet'; mkdir -p \"$meet\"; touch \"$meet/$2\"\n"
		 "while [ \"$(ls \"$meet\" | wc -l)\" -lt %d ]; do sleep 0.05; done\n"
		 "exec cat '%s/cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt'\n",
		 tmp, tmp, NCARDS, MLX_DATA);
	put("bin/mstconfig", script, 0755);
	put("bin/mstflint",
	    "#!/bin/sh\necho \"-E- Cannot open Device: $2. No such file or directory. MFE_CR_ERROR\"\n"
	    "exit 1\n",
	    0755);
	put("bin/mstreg",
	    "#!/bin/sh\necho \"-E- Failed to open device: \\\"$2\\\", No such file or directory\" >&2\n"
	    "exit 1\n",
	    0755);
	put("bin/mstmget_temp", "#!/bin/sh\necho 70\n", 0755);
	char bin[300], root[300];
	snprintf(bin, sizeof(bin), "%s/bin", tmp);
	snprintf(root, sizeof(root), "%s/root", tmp);
	setenv("HWCHECK_TOOL_PATH", bin, 1);

	struct hwc_env_opts eo = {.root = root, .mode = HWC_RUN_EXEC, .cmd_timeout_ms = 120000};
	struct hwc_env *e = NULL;
	CHECK_INT(hwc_env_open(&eo, &e), 0);
	struct hwc_facts *f = hwc_facts_new();
	struct hwc_collect_opts co = {0};
	double t0 = now();
	CHECK_INT(hwc_mlx_collect(e, f, &co), 0);
	double dt = now() - t0;
	fprintf(stderr, "collect of %d cards took %.2f s\n", NCARDS, dt);
	const struct hwc_mlx_facts *mf = f->mlx;
	CHECK_INT(mf->adapters.n, NCARDS);
	CHECK_STR(mf->tools.mstflint_version.v, "4.21.0");
	int cfg_ok = 0, temp_ok = 0, flint_err = 0;
	for (size_t i = 0; i < mf->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		CHECK_STR(ad->product.v, "ConnectX-6 Dx");
		if (hwc_ok(ad->cfg)) {
			const struct hwc_mlx_cfgparam *p = hwc_mlx_cfg_find(&ad->cfg, "PCI_WR_ORDERING");
			cfg_ok += p && p->next_boot.m.st == HWC_ST_OK &&
				  strcmp(p->next_boot.text, "per_mkey") == 0;
		}
		temp_ok += hwc_ok(ad->reg.temp_mdegc) && ad->reg.temp_mdegc.v == 70000 &&
			   strcmp(ad->reg.temp_source.v, "mstmget_temp") == 0;
		flint_err += ad->fw_version_stored.m.st == HWC_ST_UNREADABLE &&
			     ad->fw_version_stored.m.detail &&
			     strstr(ad->fw_version_stored.m.detail, "Cannot open Device") != NULL;
		CHECK_INT(ad->reg.power_status.m.st, HWC_ST_UNREADABLE);
	}
	CHECK_INT(cfg_ok, NCARDS);
	CHECK_INT(temp_ok, NCARDS);
	CHECK_INT(flint_err, NCARDS);
	hwc_facts_free(f);
	hwc_env_free(e);

	/* a hung mstconfig is cut at its timeout (2 s here: only the hung tool is asserted, the
	 * card's other tools may answer or not on a loaded machine), and the run goes on */
	put("hang", "", 0644);
	eo.cmd_timeout_ms = 2000;
	CHECK_INT(hwc_env_open(&eo, &e), 0);
	f = hwc_facts_new();
	co.device = "0a:00.0";
	t0 = now();
	CHECK_INT(hwc_mlx_collect(e, f, &co), 0);
	dt = now() - t0;
	fprintf(stderr, "collect of the hung card took %.2f s\n", dt);
	CHECK(dt < 300); /* ended by the timeout, not by the tool's 600 s */
	CHECK_INT(f->mlx->adapters.n, 1);
	if (f->mlx->adapters.n) {
		CHECK_STR(f->mlx->adapters.items[0].bdf, "0000:0a:00.0");
		CHECK_INT(f->mlx->adapters.items[0].cfg.m.st, HWC_ST_TIMEOUT);
	}
	hwc_facts_free(f);
	hwc_env_free(e);
	eo.cmd_timeout_ms = 120000;
	CHECK_INT(hwc_env_open(&eo, &e), 0);

	/* -d picks one card, by BDF without the domain */
	f = hwc_facts_new();
	co.device = "03:00.0";
	CHECK_INT(hwc_mlx_collect(e, f, &co), 0);
	CHECK_INT(f->mlx->adapters.n, 1);
	if (f->mlx->adapters.n)
		CHECK_STR(f->mlx->adapters.items[0].bdf, "0000:03:00.0");
	hwc_facts_free(f);
	hwc_env_free(e);

	/* --no-tools: every mstflint fact says blocked */
	eo.no_tools = true;
	CHECK_INT(hwc_env_open(&eo, &e), 0);
	f = hwc_facts_new();
	co.device = NULL;
	CHECK_INT(hwc_mlx_collect(e, f, &co), 0);
	CHECK_INT(f->mlx->tools.access.st, HWC_ST_BLOCKED);
	CHECK_INT(f->mlx->adapters.items[0].cfg.m.st, HWC_ST_BLOCKED);
	hwc_facts_free(f);
	hwc_env_free(e);

	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	TEST_MAIN_END();
}

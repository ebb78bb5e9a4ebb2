/* SPDX-License-Identifier: MIT */
/* Unit tests of the netdev half: ethtool text parsers on real captures, the live ioctl side against
 * the real ethtool tool, record -> replay, proc/interrupts, CPU lists and IRQ locality. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runner.h"
#include "hwinfo/ethtool_io.h"
#include "hwinfo/hwinfo.h"
#include "snapshot/snapshot.h"
#include "test.h"

static struct hwc_arena *A;

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", p);
		abort();
	}
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

#define SEED(n, len) slurp(HWC_SEEDS "/ethtool_text", n, len)
#define FIX(n, len) slurp(HWC_FIXTURES, n, len)

static void test_rings(void)
{
	size_t len;
	struct hwc_netdev_rings r;
	/* old layout, RX Mini: 0; concatenated with -i and -l: only the ring block counts */
	char *t = SEED("mlx4-i-g-l.txt", &len);
	memset(&r, 0, sizeof(r));
	CHECK_INT(hwc_ethtool_parse_rings(t, len, "ethtool -g eth2", A, &r), 0);
	CHECK_INT(r.rx.v, 1024);
	CHECK_INT(r.tx.v, 512);
	CHECK_INT(r.rx_max.v, 8192);
	CHECK_INT(r.tx_max.v, 8192);
	/* channels of the same file: mlx4 has separate rx/tx, Combined 0 */
	struct hwc_netdev_channels c;
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_channels(t, len, "ethtool -l eth2", A, &c), 0);
	CHECK_INT(c.rx.v, 8);
	CHECK_INT(c.tx.v, 12);
	CHECK_INT(c.rx_max.v, 128);
	CHECK_INT(c.tx_max.v, 32);
	CHECK_INT(c.combined.v, 0);
	CHECK_INT(c.combined.m.st, HWC_ST_OK);
	free(t);

	/* newest layout: one space after the colon, n/a, TX push lines, and -l first in the file */
	t = SEED("e810-l-g-c-k-i.txt", &len);
	memset(&r, 0, sizeof(r));
	CHECK_INT(hwc_ethtool_parse_rings(t, len, "ethtool -g em1", A, &r), 0);
	CHECK_INT(r.rx.v, 8160);
	CHECK_INT(r.tx_max.v, 8160);
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_channels(t, len, "ethtool -l em1", A, &c), 0);
	CHECK_INT(c.combined.v, 8);
	CHECK_INT(c.combined_max.v, 64);
	CHECK_INT(c.rx.v, 0);
	struct hwc_netdev_features f;
	memset(&f, 0, sizeof(f));
	CHECK_INT(hwc_ethtool_parse_features(t, len, "ethtool -k em1", A, &f), 0);
	CHECK(hwc_ok(f.lro) && !f.lro.v); /* "off [fixed]" */
	CHECK(hwc_ok(f.gro) && f.gro.v);
	CHECK(hwc_ok(f.gro_hw) && !f.gro_hw.v);
	CHECK(hwc_ok(f.tso) && f.tso.v);
	CHECK(hwc_ok(f.gso) && f.gso.v);
	CHECK(hwc_ok(f.rx_checksum) && f.rx_checksum.v);
	CHECK(hwc_ok(f.tx_checksum) && f.tx_checksum.v);
	struct hwc_netdev_drvinfo di;
	memset(&di, 0, sizeof(di));
	CHECK_INT(hwc_ethtool_parse_drvinfo(t, len, "ethtool -i em1", A, &di), 0);
	CHECK_STR(di.driver.v, "ice");
	CHECK_STR(di.fw_version.v, "4.51 0x8001e501 23.0.8");
	CHECK_STR(di.bus_info.v, "0000:63:00.0");
	free(t);

	/* mailer no-break spaces and indentation; tcp-segmentation-offload off */
	t = SEED("nfp-l-k-nbsp.txt", &len);
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_channels(t, len, "ethtool -l nfp", A, &c), 0);
	CHECK_INT(c.combined.v, 8);
	CHECK_INT(c.tx.v, 8);
	CHECK_INT(c.rx_max.v, 16);
	memset(&f, 0, sizeof(f));
	CHECK_INT(hwc_ethtool_parse_features(t, len, "ethtool -k nfp", A, &f), 0);
	CHECK(hwc_ok(f.tso) && !f.tso.v);
	CHECK(hwc_ok(f.gro) && f.gro.v);
	free(t);

	/* ring sizes at their maximum; gmail blank lines in -i */
	t = SEED("mlx5-g-old.txt", &len);
	memset(&r, 0, sizeof(r));
	CHECK_INT(hwc_ethtool_parse_rings(t, len, "ethtool -g x", A, &r), 0);
	CHECK_INT(r.rx.v, 8192);
	free(t);
	t = SEED("mlx5-vf-i-blanklines.txt", &len);
	memset(&di, 0, sizeof(di));
	CHECK_INT(hwc_ethtool_parse_drvinfo(t, len, "ethtool -i x", A, &di), 0);
	CHECK_STR(di.fw_version.v, "16.27.2008 (MT_0000000013)");
	CHECK_STR(di.bus_info.v, "0000:00:08.0");
	free(t);

	/* n/a in the new format is unsupported, not a number */
	const char *na = "Ring parameters for x:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\t1024\n"
			 "Current hardware settings:\nRX:\t\tn/a\nTX:\t\t512\n";
	memset(&r, 0, sizeof(r));
	CHECK_INT(hwc_ethtool_parse_rings(na, strlen(na), "ethtool -g x", A, &r), 0);
	CHECK_INT(r.rx.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(r.tx.v, 512);
	/* not ethtool -g output at all */
	memset(&r, 0, sizeof(r));
	CHECK(hwc_ethtool_parse_rings("hello\n", 6, "ethtool -g x", A, &r) < 0);
	CHECK_INT(r.rx.m.st, HWC_ST_INVALID);
}

static void test_stats(void)
{
	size_t len;
	struct hwc_netdev_counters c;
	char *t = SEED("mlx5-S-grep-pci.txt", &len);
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_stats(t, len, "ethtool -S eth0", A, &c), 0);
	CHECK_INT(c.v[5].v, 1471); /* tx_pci_signal_integrity */
	CHECK_STR(hwc_netdev_counter_names[5], "tx_pci_signal_integrity");
	CHECK_INT(c.v[4].v, 1);
	CHECK_INT(c.v[0].m.st, HWC_ST_ABSENT); /* grep'd away: absent, never 0 */
	CHECK_INT(c.count.v, 6);
	free(t);
	t = SEED("mlx5-S-nonzero-k5.15.txt", &len);
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_stats(t, len, "ethtool -S x", A, &c), 0);
	CHECK_INT(c.v[0].v, 58591428329LL); /* rx_discards_phy */
	CHECK_INT(c.v[1].v, 990473555LL);   /* rx_out_of_buffer */
	free(t);
	t = SEED("cx4lx-S-grep.txt", &len);
	memset(&c, 0, sizeof(c));
	CHECK_INT(hwc_ethtool_parse_stats(t, len, "ethtool -S x", A, &c), 0);
	CHECK_INT(c.v[15].v, 1266552); /* tx_pause_ctrl_phy */
	CHECK_INT(c.v[5].v, 3);
	free(t);
}

struct want_t {
	const char *path;
	int found;
};
static int visit(const struct hwc_capture *c, void *ctx)
{
	struct want_t *w = ctx;
	if (strcmp(c->path, w->path) == 0)
		w->found = 1;
	return 0;
}

static int write_capture(const struct hwc_capture *c, void *ctx)
{
	if (c->kind != HWC_CAP_FILE || strncmp(c->path, "hwcheck/", 8) != 0)
		return 0;
	char p[4096], cmd[4300];
	snprintf(p, sizeof(p), "%s/%s", (const char *)ctx, c->path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0)
		return -1;
	FILE *f = fopen(p, "wb");
	if (!f)
		return -1;
	if (c->len)
		fwrite(c->data, 1, c->len, f);
	fclose(f);
	return 0;
}

/* Live ioctls against the real tool, then the recording of them replayed. */
static void test_live_and_record(void)
{
	const char *ifname = NULL;
	if (access("/sys/class/net/eth0", F_OK) == 0)
		ifname = "eth0";
	else if (access("/sys/class/net/lo", F_OK) == 0)
		ifname = "lo";
	if (!ifname) {
		printf("live: no interface, skipped\n");
		return;
	}
	struct hwc_env *e = NULL;
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env_opts o = {.root = "/", .record = cs ? hwc_capset_sink(cs) : NULL};
	if (!cs || hwc_env_open(&o, &e) < 0) {
		hwc_capset_free(cs);
		return;
	}
	struct hwc_fmeta m;
	const char *text = NULL;
	size_t len = 0;
	int rc = hwc_ethtool_get(e, A, ifname, HWC_ETHTOOL_DRVINFO, &text, &len, &m);
	CHECK_INT(rc, 0);
	CHECK(text && strstr(text, "driver: "));
	/* the interface does not exist: absent, with the command in the detail */
	rc = hwc_ethtool_get(e, A, "nosuchif0", HWC_ETHTOOL_RINGS, &text, &len, &m);
	CHECK(rc < 0);
	CHECK_INT(m.st, HWC_ST_ABSENT);
	CHECK(m.detail && strstr(m.detail, "ethtool -g nosuchif0"));

	/* same answer as the real ethtool, where installed */
	const char *argv[] = {"ethtool", "-g", ifname, NULL};
	struct hwc_cmd_result res;
	struct hwc_netdev_rings mine, theirs;
	memset(&mine, 0, sizeof(mine));
	memset(&theirs, 0, sizeof(theirs));
	rc = hwc_ethtool_get(e, A, ifname, HWC_ETHTOOL_RINGS, &text, &len, &m);
	if (rc == 0 && hwc_run(e, A, argv, 5000, &res) == 0) {
		CHECK_INT(hwc_ethtool_parse_rings(text, len, "mine", A, &mine), 0);
		CHECK_INT(hwc_ethtool_parse_rings(res.out, res.out_len, "ethtool", A, &theirs), 0);
		CHECK_INT(mine.rx.m.st, theirs.rx.m.st);
		CHECK_INT(mine.rx.v, theirs.rx.v);
		CHECK_INT(mine.tx_max.v, theirs.tx_max.v);
	} else {
		printf("live: ethtool -g %s not comparable (rc %d), skipped\n", ifname, rc);
	}
	const char *kargv[] = {"ethtool", "-k", ifname, NULL};
	rc = hwc_ethtool_get(e, A, ifname, HWC_ETHTOOL_FEATURES, &text, &len, &m);
	if (rc == 0 && hwc_run(e, A, kargv, 5000, &res) == 0) {
		struct hwc_netdev_features fm, ft;
		memset(&fm, 0, sizeof(fm));
		memset(&ft, 0, sizeof(ft));
		CHECK_INT(hwc_ethtool_parse_features(text, len, "mine", A, &fm), 0);
		CHECK_INT(hwc_ethtool_parse_features(res.out, res.out_len, "ethtool", A, &ft), 0);
		CHECK_INT(fm.gro.v, ft.gro.v);
		CHECK_INT(fm.tso.v, ft.tso.v);
		CHECK_INT(fm.gso.v, ft.gso.v);
		CHECK_INT(fm.lro.v, ft.lro.v);
		CHECK_INT(fm.rx_checksum.v, ft.rx_checksum.v);
		CHECK_INT(fm.tx_checksum.v, ft.tx_checksum.v);
		CHECK_INT(fm.gro_hw.m.st, ft.gro_hw.m.st);
	}

	/* the capture holds the text at the runner's path */
	struct want_t w = {hwc_arena_printf(A, "hwcheck/commands/ethtool -i %s/stdout", ifname), 0};
	hwc_capset_visit(cs, visit, &w);
	CHECK_INT(w.found, 1);

	/* written out as a snapshot would be, the capture replays to the same text */
	char dir[] = "/tmp/hwc-netdev-rec-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	hwc_capset_visit(cs, write_capture, dir);
	const char *live_text = NULL;
	size_t live_len = 0;
	CHECK_INT(hwc_ethtool_get(e, A, ifname, HWC_ETHTOOL_DRVINFO, &live_text, &live_len, &m), 0);
	struct hwc_env *r = NULL;
	struct hwc_env_opts ro = {.root = dir};
	CHECK_INT(hwc_env_open(&ro, &r), 0);
	CHECK_INT(hwc_ethtool_get(r, A, ifname, HWC_ETHTOOL_DRVINFO, &text, &len, &m), 0);
	CHECK_STR(text, live_text);
	CHECK(hwc_ethtool_get(r, A, "nosuchif0", HWC_ETHTOOL_RINGS, &text, &len, &m) < 0);
	CHECK_INT(m.st, HWC_ST_ABSENT); /* the recorded failure replays as such */
	CHECK(m.detail && strstr(m.detail, "recorded"));
	hwc_env_free(r);
	hwc_env_free(e);
	hwc_capset_free(cs);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void test_interrupts(void)
{
	size_t len;
	char *t = slurp(HWC_SEEDS "/proc_interrupts", "mlx5-q6700.txt", &len);
	struct hwc_irq_names n = {0};
	CHECK_INT(hwc_proc_interrupts_parse(t, len, A, &n), 0);
	int found = 0;
	for (size_t i = 0; i < n.n; i++)
		if (n.items[i].irq == 33)
			found = strcmp(n.items[i].name, "mlx5_comp3@pci:0000:01:00.0") == 0;
	CHECK(found);
	free(t);
	t = slurp(HWC_SEEDS "/proc_interrupts", "ir-pci-msix-mlx4.txt", &len);
	memset(&n, 0, sizeof(n));
	CHECK_INT(hwc_proc_interrupts_parse(t, len, A, &n), 0);
	found = 0;
	for (size_t i = 0; i < n.n; i++)
		found += strstr(n.items[i].name, "0000:09:00.0") != NULL;
	CHECK_INT(found, 25); /* mlx4-async@pci:BDF and mlx4-N@BDF (no "pci:") */
	free(t);
}

/* A two-node host made up for the logic only (no capture has effective affinities): the card on
 * node 1 (CPUs 8-15), one vector on CPU 2, one on 9, one without affinity; then numa_node -1. */
static char tmpl[] = "/tmp/hwc-netdev-XXXXXX";

static void put(const char *rel, const char *content)
{
	t_put(tmpl, rel, content);
}

static void test_locality(void)
{
	if (!mkdtemp(tmpl))
		abort();
	const char *d = "sys/bus/pci/devices/0000:3b:00.0";
	char p[256];
	snprintf(p, sizeof(p), "%s/numa_node", d);
	put(p, "1\n");
	snprintf(p, sizeof(p), "%s/local_cpulist", d);
	put(p, "8-15\n");
	for (int irq = 100; irq <= 102; irq++) {
		snprintf(p, sizeof(p), "%s/msi_irqs/%d", d, irq);
		put(p, "msix\n");
	}
	put("proc/irq/100/effective_affinity_list", "2\n");
	put("proc/irq/101/effective_affinity_list", "9\n");
	put("proc/irq/101/smp_affinity_list", "0-15\n"); /* requested: ignored when effective exists */
	/* a capture of the real tool failing: stderr and exit status only */
	put("hwcheck/commands/ethtool -a x0/stderr",
	    "Cannot get device pause settings: Operation not supported\n");
	put("hwcheck/commands/ethtool -a x0/result", "exit=76\n");
	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = tmpl};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_netdev_irq_locality l;
	memset(&l, 0, sizeof(l));
	hwc_netdev_irq_locality(e, A, "0000:3b:00.0", NULL, &l);
	CHECK_INT(l.vectors.v, 3);
	CHECK_INT(l.outside_local.v, 1);
	CHECK_INT(l.affinity_unknown.v, 1);
	CHECK_INT(l.irqs.n, 3);
	CHECK(hwc_ok(l.irqs.items[0].local) && !l.irqs.items[0].local.v);
	CHECK(hwc_ok(l.irqs.items[1].local) && l.irqs.items[1].local.v);
	CHECK_INT(l.irqs.items[2].cpus.m.st, HWC_ST_ABSENT);
	CHECK_INT(l.irqs.items[0].name.m.st, HWC_ST_ABSENT);

	snprintf(p, sizeof(p), "%s/numa_node", d);
	put(p, "-1\n");
	memset(&l, 0, sizeof(l));
	hwc_netdev_irq_locality(e, A, "0000:3b:00.0", NULL, &l);
	CHECK_INT(l.numa_node.v, -1);
	CHECK_INT(l.outside_local.m.st, HWC_ST_UNSUPPORTED); /* a status, not a count */
	CHECK(l.outside_local.m.detail && strstr(l.outside_local.m.detail, "numa_node is -1"));
	CHECK_INT(l.irqs.items[0].local.m.st, HWC_ST_UNSUPPORTED);

	memset(&l, 0, sizeof(l));
	hwc_netdev_irq_locality(e, A, "0000:99:00.0", NULL, &l);
	CHECK_INT(l.vectors.m.st, HWC_ST_ABSENT);

	struct hwc_fmeta m;
	const char *text;
	size_t len;
	CHECK(hwc_ethtool_get(e, A, "x0", HWC_ETHTOOL_PAUSE, &text, &len, &m) < 0);
	CHECK_INT(m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.err, EOPNOTSUPP);
	CHECK(m.detail && strstr(m.detail, "ethtool -a x0") && strstr(m.detail, "exit 76"));
	hwc_env_free(e);

	/* the whole collector on this root, with a recording cut by the output cap */
	snprintf(p, sizeof(p), "%s/vendor", d);
	put(p, "0x15b3\n");
	put("sys/class/net/x0/mtu", "9000\n");
	snprintf(p, sizeof(p), "%s/sys/class/net/x0/device", tmpl);
	if (symlink("../../../bus/pci/devices/0000:3b:00.0", p) != 0)
		abort();
	put("hwcheck/commands/ethtool -S x0/stdout",
	    "NIC statistics:\n     rx_discards_phy: 5\n     tx_packets: 1234567890\n"
	    "     rx_out_of_buffer: 7\n");
	struct hwc_env_opts oc = {.root = tmpl, .cmd_output_cap = 64};
	CHECK_INT(hwc_env_open(&oc, &e), 0);
	struct hwc_facts *f = hwc_facts_new();
	struct hwc_collect_opts co = {0};
	CHECK_INT(hwc_netdev_collect(e, f, &co), 0);
	CHECK_INT(f->netdevs->netdevs.n, 1);
	struct hwc_netdev *nd = &f->netdevs->netdevs.items[0];
	CHECK_STR(nd->name, "x0");
	CHECK_INT(nd->mtu.v, 9000);
	CHECK_INT(nd->counters.v[0].v, 5);
	CHECK_INT(nd->counters.v[1].m.st, HWC_ST_TRUNCATED); /* past the cut: unknown */
	CHECK_INT(nd->pause.rx.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(nd->irq_locality.vectors.v, 3);
	hwc_facts_free(f);
	hwc_env_free(e);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpl);
}

/* A recorded failure (the driver lacks the operation) replays as unsupported. */
static void test_replay_failure(void)
{
	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = HWC_FIXTURES "/net-mlx5-100g-full-stats/root"};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_fmeta m;
	const char *text;
	size_t len;
	CHECK_INT(hwc_ethtool_get(e, A, "p1", HWC_ETHTOOL_STATS, &text, &len, &m), 0);
	CHECK(strstr(text, "rx_err_lane_3_phy: 17722623") != NULL);
	CHECK(hwc_ethtool_get(e, A, "p1", HWC_ETHTOOL_PAUSE, &text, &len, &m) < 0);
	CHECK_INT(m.st, HWC_ST_ABSENT);
	CHECK_STR(m.detail, "ethtool -a p1: not in this capture");
	hwc_env_free(e);
}

int main(void)
{
	A = hwc_arena_new();
	test_rings();
	test_stats();
	test_interrupts();
	test_locality();
	test_replay_failure();
	test_live_and_record();
	hwc_arena_free(A);
	TEST_MAIN_END();
}

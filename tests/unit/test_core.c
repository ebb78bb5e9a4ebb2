/* SPDX-License-Identifier: MIT */
/* Unit tests of core/: root confinement, readers and their statuses, the runner, JSON facts. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/env.h"
#include "core/json.h"
#include "core/output.h"
#include "core/runner.h"
#include "snapshot/snapshot.h"
#include "test.h"
#include "test_capset.h"

static char tmpl[] = "/tmp/hwc-core-XXXXXX";

static void put(const char *rel, const char *content)
{
	t_put(tmpl, rel, content);
}

static void link_(const char *target, const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", tmpl, rel);
	if (symlink(target, p) != 0)
		abort();
}

static void test_readers(struct hwc_env *e, struct hwc_arena *a)
{
	struct hwc_fi64 i = {0};
	CHECK_INT(hwc_read_i64(e, "sys/num", a, &i), 0);
	CHECK_INT(i.v, 42);
	CHECK_INT(i.m.st, HWC_ST_OK);
	CHECK_INT(hwc_read_i64(e, "/sys/neg", a, &i), 0);
	CHECK_INT(i.v, -1);
	CHECK(hwc_read_i64(e, "sys/notnum", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_INVALID);
	CHECK_STR(i.m.detail, "/sys/notnum: expected an integer, got 'abc'");
	CHECK(hwc_read_i64(e, "sys/missing", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_ABSENT);
	CHECK_STR(i.m.detail, "/sys/missing: No such file or directory");
	CHECK(hwc_read_i64(e, "sys/empty", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_INVALID);

	struct hwc_fu64 h = {0};
	CHECK_INT(hwc_read_hex(e, "sys/vendor", a, &h), 0);
	CHECK_INT(h.v, 0x15b3);
	CHECK_INT(hwc_read_hex(e, "sys/bare", a, &h), 0);
	CHECK_INT(h.v, 0x1017);
	CHECK(hwc_read_hex(e, "sys/speed", a, &h) < 0);
	CHECK_INT(h.m.st, HWC_ST_INVALID);

	struct hwc_fstr s = {0};
	CHECK_INT(hwc_read_str(e, "sys/speed", a, &s), 0);
	CHECK_STR(s.v, "16.0 GT/s PCIe");
	CHECK_INT(hwc_read_link_name(e, "sys/dev/driver", a, &s), 0);
	CHECK_STR(s.v, "mlx5_core");

	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	CHECK(hwc_read_bytes(e, "sys/speed", 4, a, &d, &len, &m) < 0);
	CHECK_INT(m.st, HWC_ST_TRUNCATED);
	CHECK_INT(len, 4);
}

static void test_confinement(struct hwc_env *e, struct hwc_arena *a)
{
	/* an absolute link resolves inside the root, ".." stops at it */
	struct hwc_fi64 i = {0};
	CHECK_INT(hwc_read_i64(e, "abs/num", a, &i), 0);
	CHECK_INT(i.v, 42);
	CHECK_INT(hwc_read_i64(e, "sys/dev/up/dev/up/../../../../sys/num", a, &i), 0);
	CHECK_INT(i.v, 42);
	/* escape attempts read the root's own copy or nothing, never the host's */
	struct hwc_fstr s = {0};
	CHECK(hwc_read_str(e, "escape", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_ABSENT);
	CHECK(hwc_read_str(e, "escape2", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_ABSENT);
	CHECK(hwc_read_str(e, "loop", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_UNREADABLE);
	const char *rp;
	CHECK_INT(hwc_env_realpath(e, "sys/bus/pci/devices/0000:01:00.0", a, &rp), 0);
	CHECK_STR(rp, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	struct hwc_dirlist dl;
	CHECK_INT(hwc_env_list_dir(e, "sys/bus/pci/devices", a, &dl), 0);
	CHECK_INT(dl.n, 2);
	CHECK_STR(dl.names[0], "0000:00:01.0");
	CHECK(hwc_env_list_dir(e, "nothere", a, &dl) == -ENOENT);
}

static void test_runner(struct hwc_env *live, struct hwc_env *rep, struct hwc_arena *a)
{
	struct hwc_cmd_result r;
	const char *ok[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	CHECK_INT(hwc_run(live, a, ok, 5000, &r), -ECHILD);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_INT(r.exit_code, 3);
	CHECK_STR(r.out, "out\n");
	CHECK_STR(r.err, "err\n");

	/* killed at its timeout, not waited for: the detail gives the deadline it was held to, and
	 * it ended long before the tool would have (no bound on how loaded the machine is) */
	const char *hang[] = {"sleep", "600", NULL};
	CHECK_INT(hwc_run(live, a, hang, 200, &r), -ETIMEDOUT);
	CHECK_INT(r.m.st, HWC_ST_TIMEOUT);
	CHECK_STR(r.m.detail, "sleep 600: killed after 200 ms without finishing");
	CHECK(r.elapsed_ms >= 200 && r.elapsed_ms < 600000);

	const char *flood[] = {"sh", "-c", "yes 0123456789abcdef", NULL};
	CHECK_INT(hwc_run(live, a, flood, 5000, &r), -EFBIG);
	CHECK_INT(r.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(r.out_len, 65536);

	const char *none[] = {"hwcheck-no-such-tool", NULL};
	CHECK_INT(hwc_run(live, a, none, 1000, &r), -ENOENT);
	CHECK_INT(r.m.st, HWC_ST_ABSENT);
	CHECK_STR(r.m.detail, "hwcheck-no-such-tool: not installed");

	/* parallel: each command waits until all three have started, so run one after the other
	 * the first would wait until killed at its timeout; proven without timing the run */
	char bar[sizeof(tmpl) + 16];
	snprintf(bar, sizeof(bar), "%s/barrier", tmpl);
	CHECK_INT(mkdir(bar, 0700), 0);
	static const char meet[] = "touch \"$0/$1\"; "
				   "while [ \"$(ls \"$0\" | wc -l)\" -lt 3 ]; do sleep 0.01; done";
	const char *s1[] = {"sh", "-c", meet, bar, "1", NULL}, *s2[] = {"sh", "-c", meet, bar, "2", NULL},
		   *s3[] = {"sh", "-c", meet, bar, "3", NULL};
	struct hwc_cmd cmds[3] = {{s1, 60000}, {s2, 60000}, {s3, 60000}};
	struct hwc_cmd_result rs[3];
	hwc_run_many(live, a, 3, cmds, rs);
	for (int i = 0; i < 3; i++)
		CHECK_INT(rs[i].m.st, HWC_ST_OK);

	/* replay */
	const char *mc[] = {"/usr/bin/mstconfig", "-d", "0000:3b:00.0", "q", NULL};
	CHECK_STR(hwc_run_record_dir(a, mc), "hwcheck/commands/mstconfig -d 0000:3b:00.0 q");
	CHECK_INT(hwc_run(rep, a, mc, 1000, &r), -ECHILD);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_INT(r.exit_code, 3);
	CHECK_STR(r.out, "-E- Failed to open the device\n");
	const char *mh[] = {"mstconfig", "hang", NULL};
	CHECK_INT(hwc_run(rep, a, mh, 1000, &r), -ETIMEDOUT);
	CHECK_INT(r.m.st, HWC_ST_TIMEOUT);
	/* no recording: the capture does not say whether the tool is installed */
	const char *mn[] = {"mstreg", NULL};
	CHECK_INT(hwc_run(rep, a, mn, 1000, &r), -ENOENT);
	CHECK_INT(r.m.st, HWC_ST_ABSENT);
	CHECK_STR(r.m.detail, "mstreg: not in this capture");
	CHECK(r.not_recorded); /* the runner's own status for it, not the words */
	/* a recorded answer, a failure included, is not "not recorded" */
	CHECK_INT(hwc_run(rep, a, mh, 1000, &r), -ETIMEDOUT);
	CHECK(!r.not_recorded);
	CHECK_INT(hwc_run(rep, a, mc, 1000, &r), -ECHILD);
	CHECK(!r.not_recorded);
	const char *sl[] = {"tool", "a/b", "%", NULL};
	CHECK_STR(hwc_run_record_dir(a, sl), "hwcheck/commands/tool a%2Fb %25");
}

/* A recording says why a command never ran on the captured machine, and its replay says the same;
 * a recorded exit 127 without output is "could not be executed", as live; a recorded timeout or cut
 * says what the captured run saw. */
static void test_replay_not_run(struct hwc_env *rep, struct hwc_arena *a)
{
	static const struct {
		const char *arg; /* mstreg ARG, recorded in main() */
		int rc, st, err;
		const char *detail;
	} cases[] = {
		{"absent", -ENOENT, HWC_ST_ABSENT, 0, "mstreg: not installed"},
		{"noexec", -EIO, HWC_ST_UNREADABLE, EACCES,
		 "mstreg noexec: cannot start: Permission denied (recorded)"},
		{"late", -ETIMEDOUT, HWC_ST_TIMEOUT, 0,
		 "mstreg late: not run, the captured run's --timeout was spent"},
		{"broken", -EIO, HWC_ST_UNREADABLE, 0, "mstreg broken: could not be executed (recorded)"},
		/* ran, and ended as the capture says: its words, not this run's limits */
		{"slow", -ETIMEDOUT, HWC_ST_TIMEOUT, 0,
		 "mstreg slow: killed after 10000 ms without finishing (recorded)"},
		{"cut", -EFBIG, HWC_ST_TRUNCATED, 0,
		 "mstreg cut: printed more than 4 bytes; stopped and cut (recorded)"},
	};
	struct hwc_cmd_result r;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = {"mstreg", cases[i].arg, NULL};
		CHECK_INT(hwc_run(rep, a, argv, 1000, &r), cases[i].rc);
		CHECK_INT(r.m.st, cases[i].st);
		CHECK_INT(r.m.err, cases[i].err);
		CHECK_STR(r.m.detail, cases[i].detail);
		CHECK(!r.not_recorded); /* recorded: its result says why it never ran */
	}
	/* the same exit with output is the tool's own answer */
	const char *ne[] = {"mstreg", "said", NULL};
	CHECK_INT(hwc_run(rep, a, ne, 1000, &r), -ECHILD);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_INT(r.exit_code, 127);
	CHECK_STR(r.out, "-E- no such register\n");
}

/* A live recording run keeps why a command did not run: a snapshot of a machine without the tool
 * replays as "not installed", one whose --timeout ran out as not run. */
static void test_record_not_run(struct hwc_arena *a)
{
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = "/", .record = hwc_capset_sink(cs)};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_cmd_result r;
	const char *none[] = {"hwcheck-no-such-tool", "-q", NULL};
	CHECK_INT(hwc_run(e, a, none, 1000, &r), -ENOENT);
	CHECK_STR(r.m.detail, "hwcheck-no-such-tool: not installed");
	struct cap_find f = {.path = "hwcheck/commands/hwcheck-no-such-tool -q/result"};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	CHECK(f.found);
	CHECK_STR(f.data, "not_installed=1\n");
	hwc_env_free(e);

	struct hwc_env_opts spent = {.root = "/", .record = hwc_capset_sink(cs), .total_timeout_ms = 1};
	CHECK_INT(hwc_env_open(&spent, &e), 0);
	struct timespec ts = {0, 20 * 1000000L};
	nanosleep(&ts, NULL);
	const char *late[] = {"true", NULL};
	CHECK_INT(hwc_run(e, a, late, 1000, &r), -ETIMEDOUT);
	CHECK_STR(r.m.detail, "true: not run, the run's --timeout is spent");
	f = (struct cap_find){.path = "hwcheck/commands/true/result"};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	CHECK(f.found);
	CHECK_STR(f.data, "not_run=1\n");
	hwc_env_free(e);
	hwc_capset_free(cs);
}

/* A tool known to take longer than the default per-command timeout (mstconfig's query) gets its
 * own when the run has the default, never less than the default; a --cmd-timeout given is kept,
 * lower or higher. */
static void test_slow_tool_timeout(void)
{
	struct hwc_env *e = NULL;
	struct hwc_env_opts d = {.root = "/"};
	CHECK_INT(hwc_env_open(&d, &e), 0);
	CHECK_INT(hwc_env_cmd_timeout_ms(e), 10000);
	CHECK_INT(hwc_env_cmd_timeout_at_least_ms(e, 30000), 30000);
	CHECK_INT(hwc_env_cmd_timeout_at_least_ms(e, 5000), 10000);
	hwc_env_free(e);
	struct hwc_env_opts low = {.root = "/", .cmd_timeout_ms = 2000};
	CHECK_INT(hwc_env_open(&low, &e), 0);
	CHECK_INT(hwc_env_cmd_timeout_at_least_ms(e, 30000), 2000);
	hwc_env_free(e);
	struct hwc_env_opts high = {.root = "/", .cmd_timeout_ms = 60000};
	CHECK_INT(hwc_env_open(&high, &e), 0);
	CHECK_INT(hwc_env_cmd_timeout_at_least_ms(e, 30000), 60000);
	hwc_env_free(e);
}

/* hwc_run_start: a command started ahead runs while hwcheck runs another, and is taken by the
 * hwc_run of the same argv; what nobody asks for is ended. A paced replay takes the recorded time. */
static void test_started(struct hwc_env *live, struct hwc_env *rep, struct hwc_arena *a)
{
	char dir[sizeof(tmpl) + 16];
	snprintf(dir, sizeof(dir), "%s/ahead", tmpl);
	CHECK_INT(mkdir(dir, 0700), 0);
	/* A answers once B has run, B once A has seen it: one after the other, B would wait for
	 * A until killed at its timeout */
	const char *ta[] = {"sh", "-c", "while [ ! -e \"$0/go\" ]; do sleep 0.01; done; touch \"$0/a\"; echo A", dir, NULL};
	const char *tb[] = {"sh", "-c", "touch \"$0/go\"; while [ ! -e \"$0/a\" ]; do sleep 0.01; done; echo B", dir, NULL};
	const char *never[] = {"sleep", "600", NULL};
	struct hwc_cmd start[2] = {{ta, 60000}, {never, 60000}};
	hwc_run_start(live, a, 2, start);
	struct hwc_cmd_result r;
	CHECK_INT(hwc_run(live, a, tb, 60000, &r), 0);
	CHECK_STR(r.out, "B\n");
	CHECK_INT(hwc_run(live, a, ta, 60000, &r), 0);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_STR(r.out, "A\n");
	/* taken once: the same argv again runs again (and answers at once now) */
	CHECK_INT(hwc_run(live, a, ta, 60000, &r), 0);
	CHECK_STR(r.out, "A\n");
	/* peek: waits for a started command without taking it; hwc_run takes it after */
	const char *tp[] = {"sh", "-c", "echo peeked; exit 4", NULL};
	struct hwc_cmd pc = {tp, 60000};
	hwc_run_start(live, a, 1, &pc);
	CHECK_INT(hwc_run_peek(live, a, tp, &r), 0);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_INT(r.exit_code, 4);
	CHECK_STR(r.out, "peeked\n");
	CHECK_INT(hwc_run(live, a, tp, 60000, &r), -ECHILD);
	CHECK_STR(r.out, "peeked\n");
	CHECK_INT(hwc_run_peek(live, a, tp, &r), -ENOENT); /* taken */
	hwc_run_drop_started(live); /* ends `sleep 600` (else this test would wait for it) */
	const char *none[] = {"hwcheck-no-such-tool", NULL};
	struct hwc_cmd nc = {none, 0};
	hwc_run_start(live, a, 1, &nc);
	CHECK_INT(hwc_run(live, a, none, 1000, &r), -ENOENT);
	hwc_run_drop_started(live);

	/* paced replay: the recording says 300 ms, the replay takes at least that */
	const char *mc[] = {"mstconfig", "-d", "0000:3b:00.0", "q", NULL};
	setenv("HWCHECK_REPLAY_PACE", "1", 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(hwc_run(rep, a, mc, 1000, &r), -ECHILD);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* a recording that claims 46 days is held to the command's timeout: this test ends */
	const char *slow[] = {"mstconfig", "slow", NULL};
	CHECK_INT(hwc_run(rep, a, slow, 200, &r), 0);
	unsetenv("HWCHECK_REPLAY_PACE");
	CHECK_INT(r.elapsed_ms, 4000000000u);
	CHECK_INT(hwc_run(rep, a, mc, 1000, &r), -ECHILD);
	CHECK_INT(r.elapsed_ms, 300);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 300);
	CHECK_STR(r.out, "-E- Failed to open the device\n");
}

static void test_json(struct hwc_arena *a)
{
	json_t *o = json_object();
	struct hwc_fi64 i = {0}, i2 = {0};
	HWC_SET(i, -5);
	hwc_json_put_i64(o, "n", &i);
	struct hwc_fstr s = {0}, s2 = {0};
	HWC_FAIL(s, HWC_ST_NEEDS_ROOT, 0, "config space is 64 bytes");
	hwc_json_put_str(o, "x", &s);
	struct hwc_fbool b = {0}, b2 = {0};
	HWC_FAIL(b, HWC_ST_UNREADABLE, EIO, "boom");
	hwc_json_put_bool(o, "b", &b);
	char *txt = hwc_json_dumps(o, false);
	CHECK_STR(txt, "{\"n\":-5,\"x\":null,\"b\":null,\"unavailable\":{\"x\":{\"status\":\"needs_root\","
		       "\"detail\":\"config space is 64 bytes\"},\"b\":{\"status\":\"unreadable\","
		       "\"errno\":5,\"detail\":\"boom\"}}}");
	free(txt);
	CHECK_INT(hwc_json_get_i64(o, "n", a, &i2), 0);
	CHECK_INT(i2.v, -5);
	CHECK_INT(hwc_json_get_str(o, "x", a, &s2), 0);
	CHECK_INT(s2.m.st, HWC_ST_NEEDS_ROOT);
	CHECK_STR(s2.m.detail, "config space is 64 bytes");
	CHECK_INT(hwc_json_get_bool(o, "b", a, &b2), 0);
	CHECK_INT(b2.m.err, EIO);
	CHECK_INT(hwc_json_get_i64(o, "missing", a, &i2), 0);
	CHECK_INT(i2.m.st, HWC_ST_UNSET);
	CHECK(hwc_json_get_bool(o, "n", a, &b2) < 0);
	CHECK_INT(b2.m.st, HWC_ST_INVALID);
	json_t *bad = json_string_nocheck("\xff\xfe");
	CHECK(bad != NULL);
	json_decref(bad);
	json_t *u = hwc_json_string("caf\xe9");
	CHECK_STR(json_string_value(u), "caf?");
	json_decref(u);
	json_decref(o);
}

/* Numbered directory entries (hwc_dirlist_numbered): filtered by prefix, in listing or numeric
 * order; a vector element pushed after the vector was cut back is zeroed (hwc_vec_push). */
static void test_numbered(struct hwc_arena *a)
{
	const char *names[] = {"cpu0", "cpu10", "cpu2", "cpufreq", "cpuidle", "cpu", "node1", "cpu-1"};
	struct hwc_dirlist dl = {names, HWC_ARRAY_SIZE(names)};
	int64_t *id = hwc_dirlist_numbered(&dl, "cpu", false, a);
	CHECK_INT(dl.n, 3);
	CHECK(id != NULL);
	CHECK_STR(dl.names[1], "cpu10");
	CHECK_INT(id[1], 10);
	const char *groups[] = {"10", "2", "x", "0", "33"};
	struct hwc_dirlist g = {groups, HWC_ARRAY_SIZE(groups)};
	id = hwc_dirlist_numbered(&g, "", true, a);
	CHECK_INT(g.n, 4);
	CHECK(id != NULL);
	CHECK_STR(g.names[0], "0");
	CHECK_STR(g.names[1], "2");
	CHECK_STR(g.names[3], "33");
	CHECK_INT(id[2], 10);
	const char *none[] = {"a", "b"};
	struct hwc_dirlist n = {none, 2};
	CHECK(hwc_dirlist_numbered(&n, "", true, a) == NULL);
	CHECK_INT(n.n, 0);
	struct {
		int64_t *items;
		size_t n, cap;
	} v = {0};
	int64_t *x = HWC_VEC_PUSH(a, &v);
	CHECK(x != NULL);
	*x = 7;
	v.n = 0; /* cut back */
	x = HWC_VEC_PUSH(a, &v);
	CHECK(x != NULL && *x == 0 && v.n == 1);
}

static void test_outfile(void)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/out.json", tmpl);
	CHECK_INT(hwc_write_file_atomic(p, "{}\n", 3), 0);
	struct stat st;
	CHECK_INT(stat(p, &st), 0);
	CHECK_INT(st.st_size, 3);
	struct hwc_outfile o;
	CHECK_INT(hwc_outfile_open(&o, p), 0);
	fputs("partial", o.fp);
	hwc_outfile_abort(&o);
	CHECK_INT(stat(p, &st), 0);
	CHECK_INT(st.st_size, 3); /* untouched */
	CHECK(hwc_write_file_atomic("/nonexistent-dir/x", "a", 1) < 0);
}

/* issue 20: an output never replaces what is not a regular file, and a replaced file keeps
 * its mode. */
static void test_outfile_special(void)
{
	char p[4200], l[4200], q[4200];
	struct stat st;
	snprintf(p, sizeof(p), "%s/keep.json", tmpl);
	CHECK_INT(hwc_write_file_atomic(p, "old\n", 4), 0);
	CHECK_INT(chmod(p, 0600), 0);
	CHECK_INT(hwc_write_file_atomic(p, "newer\n", 6), 0);
	CHECK_INT(stat(p, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0600);
	CHECK_INT(st.st_size, 6);
	/* a link is refused, neither replaced nor followed */
	snprintf(l, sizeof(l), "%s/link.json", tmpl);
	CHECK_INT(symlink(p, l), 0);
	CHECK_INT(hwc_write_file_atomic(l, "x", 1), -ELOOP);
	CHECK_INT(lstat(l, &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_INT(stat(p, &st), 0);
	CHECK_INT(st.st_size, 6);
	CHECK(strstr(hwc_output_strerror(-ELOOP), "symbolic link") != NULL);
	/* a character device is written in place and stays one */
	CHECK_INT(hwc_write_file_atomic("/dev/null", "x", 1), 0);
	CHECK_INT(stat("/dev/null", &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	/* a FIFO nobody reads is refused at once (never waited on, never replaced) */
	snprintf(q, sizeof(q), "%s/fifo", tmpl);
	CHECK_INT(mkfifo(q, 0600), 0);
	CHECK_INT(hwc_write_file_atomic(q, "x", 1), -ENXIO);
	CHECK_INT(lstat(q, &st), 0);
	CHECK(S_ISFIFO(st.st_mode));
	CHECK_INT(hwc_write_file_atomic(tmpl, "x", 1), -EISDIR);
	/* a full device: the write error comes back with its reason */
	CHECK_INT(hwc_write_file_atomic("/dev/full", "x", 1), -ENOSPC);
	unlink(l);
	unlink(q);
}

static int cap_check(const struct hwc_capture *c, void *p)
{
	/* no capture may stand under a cut name: every captured path is one we asked for */
	size_t *n = p;
	(*n)++;
	CHECK(strlen(c->path) < PATH_MAX);
	CHECK(strstr(c->path, "longdir") == NULL || c->kind != HWC_CAP_FILE);
	return 0;
}

/* issue 20: a resolved path longer than PATH_MAX is refused, never captured under a cut name;
 * the names of a listed directory's files are captured. */
static void test_capture_paths(struct hwc_arena *a)
{
	/* root-relative: the directory just under PATH_MAX, the file beyond it */
	char comp[101], dir[4200] = "longdir", rel[4400];
	memset(comp, 'd', 100);
	comp[100] = 0;
	while (strlen(dir) + 101 < 4075) {
		strcat(dir, "/");
		strcat(dir, comp);
	}
	snprintf(rel, sizeof(rel), "%s/%s", dir, "a-file-name-that-goes-past-path-max-xxxxxxxxxxxxxxxxx");
	char abs[4600];
	snprintf(abs, sizeof(abs), "mkdir -p '%s/%s'", tmpl, dir);
	CHECK_INT(system(abs), 0);
	/* the file itself: its absolute path is over PATH_MAX, so it is made from its parent's fd */
	int fd = open(tmpl, O_RDONLY | O_DIRECTORY);
	for (char *c = strtok(strcpy(abs, dir), "/"); c && fd >= 0; c = strtok(NULL, "/")) {
		int nfd = openat(fd, c, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	CHECK(fd >= 0);
	int ffd = openat(fd, "a-file-name-that-goes-past-path-max-xxxxxxxxxxxxxxxxx", O_CREAT | O_WRONLY, 0644);
	CHECK(ffd >= 0 && write(ffd, "1\n", 2) == 2);
	close(ffd);
	close(fd);
	snprintf(abs, sizeof(abs), "/%s", dir);
	link_(abs, "short");
	put("listed/7", "msi\n");
	put("listed/9", "msi\n");
	struct hwc_env *e = NULL;
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env_opts o = {.root = tmpl, .record = hwc_capset_sink(cs)};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_fstr s = {0};
	CHECK_INT(hwc_read_str(e, "short/a-file-name-that-goes-past-path-max-xxxxxxxxxxxxxxxxx", a, &s),
		  -ENAMETOOLONG);
	struct hwc_dirlist dl = {0};
	CHECK_INT(hwc_env_list_dir(e, "listed", a, &dl), 0);
	CHECK_INT(dl.n, 2);
	size_t n = 0;
	CHECK_INT(hwc_capset_visit(cs, cap_check, &n), 0);
	CHECK(n >= 3); /* listed/, listed/7, listed/9 (and the link crossed) */
	hwc_env_free(e);
	hwc_capset_free(cs);
}

int main(void)
{
	if (!mkdtemp(tmpl))
		return 1;
	put("sys/num", "42\n");
	put("sys/neg", "-1\n");
	put("sys/notnum", "abc\n");
	put("sys/empty", "");
	put("sys/vendor", "0x15b3\n");
	put("sys/bare", "1017\n");
	put("sys/speed", "16.0 GT/s PCIe\n");
	put("sys/bus/pci/drivers/mlx5_core/bind", "");
	put("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x15b3\n");
	put("sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n");
	put("sys/bus/pci/devices/.keep", "");
	char p[4200];
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/.keep", tmpl);
	unlink(p);
	link_("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", "sys/bus/pci/devices/0000:01:00.0");
	link_("../../../devices/pci0000:00/0000:00:01.0", "sys/bus/pci/devices/0000:00:01.0");
	put("sys/dev/uevent", "");
	link_("../bus/pci/drivers/mlx5_core", "sys/dev/driver");
	link_("..", "sys/dev/up");
	link_("/sys", "abs");
	link_("../../../../../../../../etc/passwd", "escape");
	link_("/etc/passwd", "escape2");
	link_("loop", "loop");
	put("hwcheck/commands/mstconfig -d 0000:3b:00.0 q/stdout", "-E- Failed to open the device\n");
	put("hwcheck/commands/mstconfig -d 0000:3b:00.0 q/result", "exit=3\nelapsed_ms=300\n");
	put("hwcheck/commands/mstconfig hang/result", "timeout=1\n");
	put("hwcheck/commands/mstconfig slow/result", "exit=0\nelapsed_ms=4000000000\n");
	put("hwcheck/commands/mstreg absent/result", "not_installed=1\n");
	put("hwcheck/commands/mstreg noexec/result", "start_errno=13\n");
	put("hwcheck/commands/mstreg late/result", "not_run=1\n");
	put("hwcheck/commands/mstreg broken/result", "exit=127\n");
	put("hwcheck/commands/mstreg said/stdout", "-E- no such register\n");
	put("hwcheck/commands/mstreg said/result", "exit=127\n");
	put("hwcheck/commands/mstreg slow/result", "timeout=1\nelapsed_ms=10000\n");
	put("hwcheck/commands/mstreg cut/stdout", "abcd");
	put("hwcheck/commands/mstreg cut/result", "signal=9\ntruncated=1\n");

	struct hwc_arena *a = hwc_arena_new();
	struct hwc_env *e = NULL, *live = NULL;
	struct hwc_env_opts o = {.root = tmpl};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	CHECK_INT(hwc_env_mode(e), HWC_RUN_REPLAY);
	struct hwc_env_opts lo = {.root = "/", .cmd_output_cap = 65536};
	CHECK_INT(hwc_env_open(&lo, &live), 0);
	CHECK_INT(hwc_env_mode(live), HWC_RUN_EXEC);
	struct hwc_env *bad;
	struct hwc_env_opts bo = {.root = "/nonexistent/root"};
	CHECK_INT(hwc_env_open(&bo, &bad), -ENOENT);

	test_readers(e, a);
	test_confinement(e, a);
	test_runner(live, e, a);
	test_replay_not_run(e, a);
	test_record_not_run(a);
	test_slow_tool_timeout();
	test_started(live, e, a);
	test_json(a);
	test_numbered(a);
	test_outfile();
	test_outfile_special();
	test_capture_paths(a);

	hwc_env_free(e);
	hwc_env_free(live);
	hwc_arena_free(a);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		t_fail++;
	TEST_MAIN_END();
}

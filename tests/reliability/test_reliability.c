/* SPDX-License-Identifier: MIT */
/* Broken-world tests of core/ and the CLI guard: hostile roots (links out, FIFOs, device nodes,
 * unreadable and non-numeric files), tools that hang, flood, print garbage or leave children
 * behind, the whole-run budget, the watchdog and signal cleanup. Each asserts the exact status. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/env.h"
#include "core/json.h"
#include "core/output.h"
#include "core/runner.h"
#include "test.h"
#include "core/util.h"

static char base[] = "/tmp/hwc-rel-XXXXXX";
static char root[64], tools[64];

static void put(const char *rel, const char *content, size_t len)
{
	char p[4096], cmd[4300];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0)
		abort();
	FILE *f = fopen(p, "w");
	if (!f || (len && fwrite(content, 1, len, f) != len))
		abort();
	fclose(f);
}

static void puts_(const char *rel, const char *content) { put(rel, content, strlen(content)); }

static void link_(const char *target, const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (symlink(target, p) != 0)
		abort();
}

/* The fake tools sleep 600 s; a run that ends well before that was not waiting for them. Tests
 * hold no tighter bound on elapsed time: a loaded machine (valgrind, a parallel ctest) is slow,
 * not wrong. What was killed when is read from the runner's own detail instead. */
#define NOT_WAITED_MS (300 * 1000LL)

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* CPU time this process has used */
static long long cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A fake tool under a real tool's name: tools/<name> -> tests/reliability/tools/<script>. */
static void fake_tool(const char *name, const char *script)
{
	char t[4096], l[4096];
	snprintf(t, sizeof(t), "%s/tests/reliability/tools/%s", HWC_SOURCE_DIR, script);
	snprintf(l, sizeof(l), "%s/%s", tools, name);
	unlink(l);
	if (symlink(t, l) != 0)
		abort();
}

/* pid written by a fake tool beside its link; 0 if none */
static pid_t tool_pid(const char *file)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", tools, file);
	FILE *f = fopen(p, "r");
	long v = 0;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return (pid_t)v;
}

/* gone: no such process, or a zombie waiting for init. Waits up to a minute, returning as soon
 * as it is gone: a loaded machine takes longer to kill and reap, it is not wrong. */
static bool process_gone(pid_t pid)
{
	if (pid <= 0)
		return false;
	for (int i = 0; i < 3000; i++) {
		char p[64], st[512];
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		FILE *f = fopen(p, "r");
		if (!f)
			return true;
		size_t n = fread(st, 1, sizeof(st) - 1, f);
		fclose(f);
		st[n] = 0;
		const char *rp = strrchr(st, ')');
		if (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
			return true;
		usleep(20000);
	}
	return false;
}

/* ------------------------------------------------------------------ sysfs values */

static void test_values(struct hwc_env *e, struct hwc_arena *a)
{
	struct hwc_fi64 i = {0};
	struct hwc_fu64 u = {0};
	struct hwc_fstr s = {0};

	CHECK(hwc_read_i64(e, "sys/v/word", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_INVALID);
	CHECK_STR(i.m.detail, "/sys/v/word: expected an integer, got 'Unknown'");
	CHECK(hwc_read_i64(e, "sys/v/trailing", a, &i) < 0);
	CHECK_STR(i.m.detail, "/sys/v/trailing: expected an integer, got '12abc'");
	CHECK(hwc_read_i64(e, "sys/v/overflow", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_INVALID);
	CHECK_STR(i.m.detail, "/sys/v/overflow: expected an integer, got '99999999999999999999'");
	CHECK(hwc_read_i64(e, "sys/v/empty", a, &i) < 0);
	CHECK_STR(i.m.detail, "/sys/v/empty: expected an integer, got ''");
	CHECK(hwc_read_i64(e, "sys/v/long", a, &i) < 0);
	CHECK_STR(i.m.detail, "/sys/v/long: expected an integer, got "
			      "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'...");
	/* leading zeros are decimal (sysfs never writes octal) */
	CHECK_INT(hwc_read_i64(e, "sys/v/zeros", a, &i), 0);
	CHECK_INT(i.v, 10);
	CHECK_INT(hwc_read_i64(e, "sys/v/hex", a, &i), 0);
	CHECK_INT(i.v, 0x15b3);
	/* a binary value where text is expected */
	CHECK(hwc_read_i64(e, "sys/v/nul", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_INVALID);
	CHECK_STR(i.m.detail, "/sys/v/nul: binary content where text was expected");
	/* all ones from a device that stopped answering is a value, not a parse error */
	CHECK_INT(hwc_read_hex(e, "sys/v/allones", a, &u), 0);
	CHECK(u.v == UINT64_MAX);
	CHECK(hwc_read_hex(e, "sys/v/hexneg", a, &u) < 0);
	CHECK_STR(u.m.detail, "/sys/v/hexneg: expected a hexadecimal number, got '-0x1'");

	/* missing: the file, a parent that is a file, a directory read as a file */
	CHECK(hwc_read_i64(e, "sys/v/nothere", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_ABSENT);
	CHECK_STR(i.m.detail, "/sys/v/nothere: No such file or directory");
	CHECK(hwc_read_i64(e, "sys/v/word/child", a, &i) < 0);
	CHECK_INT(i.m.st, HWC_ST_ABSENT);
	CHECK_STR(i.m.detail, "/sys/v/word/child: Not a directory");
	CHECK(hwc_read_str(e, "sys/v", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_UNREADABLE);
	CHECK_INT(s.m.err, EISDIR);
	CHECK_STR(s.m.detail, "/sys/v: Is a directory");

	/* parse helpers: strict */
	int64_t v;
	uint64_t w;
	CHECK_INT(hwc_parse_i64("010", 0, &v), 0);
	CHECK_INT(v, 10);
	CHECK_INT(hwc_parse_i64("0x", 0, &v), -EINVAL);
	CHECK_INT(hwc_parse_i64("9223372036854775808", 10, &v), -ERANGE);
	CHECK_INT(hwc_parse_i64("-9223372036854775808", 10, &v), 0);
	CHECK_INT(hwc_parse_u64("-1", 10, &w), -EINVAL);
	CHECK_INT(hwc_parse_u64(" \t-1", 0, &w), -EINVAL);
	CHECK_INT(hwc_parse_u64("0xffffffffffffffff", 0, &w), 0);
	CHECK(w == UINT64_MAX);
	CHECK_INT(hwc_parse_u64("18446744073709551616", 10, &w), -ERANGE);
	CHECK_INT(hwc_parse_u64("1 2", 10, &w), -EINVAL);
	CHECK_INT(hwc_parse_i64(NULL, 10, &v), -EINVAL);
}

/* Small reads keep what they read, not their cap: thousands of sysfs attributes stay small. */
static void test_read_memory(struct hwc_env *e)
{
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_fi64 i = {0};
	size_t before = hwc_arena_used(a);
	for (int k = 0; k < 1000; k++)
		hwc_read_i64(e, "sys/v/hex", a, &i);
	size_t per = (hwc_arena_used(a) - before) / 1000;
	CHECK(per < 256);
	hwc_arena_free(a);
}

/* ------------------------------------------------------------------ hostile roots */

static void test_special_files(struct hwc_env *e, struct hwc_arena *a)
{
	struct hwc_fstr s = {0};
	/* an open of a FIFO without a writer would block for ever: returning at all is the proof */
	CHECK(hwc_read_str(e, "sys/v/fifo", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_INVALID);
	CHECK_STR(s.m.detail,
		  "/sys/v/fifo: not a regular file (FIFO, socket or device node); not opened");
	CHECK_INT(hwc_env_open_path(e, "sys/v/fifo"), -EINVAL);
	/* a link to the FIFO is the FIFO */
	CHECK(hwc_read_str(e, "sys/v/tofifo", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_INVALID);

	char p[4096];
	snprintf(p, sizeof(p), "%s/sys/v/null", root);
	if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		/* a device node in a captured root is never opened: it could be a watchdog */
		CHECK(hwc_read_str(e, "sys/v/null", a, &s) < 0);
		CHECK_INT(s.m.st, HWC_ST_INVALID);
		CHECK_INT(hwc_env_open_path(e, "sys/v/null"), -EINVAL);
	} else {
		fprintf(stderr, "note: mknod needs CAP_MKNOD; device-node case not run\n");
	}
	/* on the live root a character device may be opened for ioctls, never read as a value */
	struct hwc_env *live;
	struct hwc_env_opts lo = {.root = "/"};
	CHECK_INT(hwc_env_open(&lo, &live), 0);
	int fd = hwc_env_open_path(live, "dev/null");
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_INT(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		close(fd);
	}
	CHECK(hwc_read_str(live, "dev/null", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_INVALID);
	/* a file that answers EIO: /proc/self/mem at offset 0 is unmapped */
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	CHECK_INT(hwc_read_bytes(live, "proc/self/mem", 16, a, &d, &len, &m), -EIO);
	CHECK_INT(m.st, HWC_ST_UNREADABLE);
	CHECK_INT(m.err, EIO);
	CHECK_STR(m.detail, "/proc/self/mem: Input/output error");
	hwc_env_free(live);
}

static void test_escape(struct hwc_env *e, struct hwc_arena *a)
{
	struct hwc_fstr s = {0};
	const char *rp;
	/* absolute link: restarts at the root; the root has its own copy */
	CHECK_INT(hwc_read_str(e, "sys/esc/abs_rootcopy", a, &s), 0);
	CHECK_STR(s.v, "ROOT-COPY");
	/* absolute link to the host's canary: the root has none */
	CHECK(hwc_read_str(e, "sys/esc/abs_host", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_ABSENT);
	CHECK_STR(s.m.detail, "/sys/esc/abs_host: No such file or directory");
	/* ../../.. beyond the root stops at it */
	CHECK(hwc_read_str(e, "sys/esc/dotdot", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_ABSENT);
	CHECK_INT(hwc_read_str(e, "sys/esc/dotdot_rootcopy", a, &s), 0);
	CHECK_STR(s.v, "ROOT-COPY");
	/* a directory link out, then down */
	CHECK(hwc_read_str(e, "sys/esc/updir/outside/canary", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_ABSENT);
	CHECK_INT(hwc_env_realpath(e, "sys/esc/updir", a, &rp), 0);
	CHECK_STR(rp, "");
	/* listing "/" through a link lists the root, not the host */
	struct hwc_dirlist dl;
	CHECK_INT(hwc_env_list_dir(e, "sys/esc/slash", a, &dl), 0);
	CHECK_INT(dl.n, 3);
	CHECK_STR(dl.names[0], "etc");
	CHECK_STR(dl.names[1], "hwcheck");
	CHECK_STR(dl.names[2], "sys");
	/* links that loop */
	CHECK(hwc_read_str(e, "sys/esc/loop_a", a, &s) < 0);
	CHECK_INT(s.m.st, HWC_ST_UNREADABLE);
	CHECK_INT(s.m.err, ELOOP);
	CHECK_STR(s.m.detail, "/sys/esc/loop_a: too many symbolic links (or a loop) under the root");
	/* a very deep path: refused, not a stack overflow */
	char deep[8192];
	size_t k = 0;
	while (k + 3 < sizeof(deep) - 8) {
		memcpy(deep + k, "a/", 2);
		k += 2;
	}
	memcpy(deep + k, "x", 2);
	CHECK(hwc_read_str(e, deep, a, &s) < 0);
	CHECK(s.m.st == HWC_ST_ABSENT || s.m.st == HWC_ST_UNREADABLE);
}

/* Not root: a mode-000 file is needs_root on the live machine, unreadable (EACCES) in a capture. */
static void test_unprivileged(void)
{
	int failed_before = t_fail;
	pid_t pid = fork();
	if (pid == 0) {
		if (!t_drop_root())
			_exit(2);
		struct hwc_arena *a = hwc_arena_new();
		struct hwc_env *cap, *live;
		struct hwc_env_opts co = {.root = root}, lo = {.root = "/"};
		if (hwc_env_open(&co, &cap) || hwc_env_open(&lo, &live))
			_exit(3);
		struct hwc_fstr s = {0};
		CHECK(hwc_read_str(cap, "sys/v/secret", a, &s) < 0);
		CHECK_INT(s.m.st, HWC_ST_UNREADABLE);
		CHECK_INT(s.m.err, EACCES);
		CHECK_STR(s.m.detail, "/sys/v/secret: Permission denied");
		char p[4096], want[4200];
		snprintf(p, sizeof(p), "%s/sys/v/secret", root + 1);
		snprintf(want, sizeof(want), "/%s: Permission denied", p);
		CHECK(hwc_read_str(live, p, a, &s) < 0);
		CHECK_INT(s.m.st, HWC_ST_NEEDS_ROOT);
		CHECK_INT(s.m.err, 0);
		CHECK_STR(s.m.detail, want);
		/* the rest of the root is still read */
		struct hwc_fi64 i = {0};
		CHECK_INT(hwc_read_i64(cap, "sys/v/hex", a, &i), 0);
		hwc_env_free(cap);
		hwc_env_free(live);
		hwc_arena_free(a);
		_exit(t_fail > failed_before ? 1 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

/* ------------------------------------------------------------------ tools */

/* Runs a fake tool that hangs until the runner kills it at its deadline. A loaded machine may
 * reach the deadline before the tool has written its pid (then nothing shows what to look
 * for): the same run again with twice the time, until the pid is there. Returns the timeout
 * that held, for the runner's "killed after N ms". */
static unsigned run_hanging(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
			    const char *pidfile, unsigned ms, struct hwc_cmd_result *r)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", tools, pidfile);
	for (;; ms *= 2) {
		unlink(p);
		CHECK_INT(hwc_run(e, a, argv, ms, r), -ETIMEDOUT);
		if (tool_pid(pidfile) || ms >= 60000)
			return ms;
	}
}

static void test_tools(struct hwc_arena *a)
{
	struct hwc_env *e;
	struct hwc_env_opts o = {.root = "/"};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_cmd_result r;
	const char *mc[] = {"mstconfig", "-d", "0000:3b:00.0", "q", NULL};

	/* hangs: killed at its timeout, reported, the process gone */
	fake_tool("mstconfig", "hang");
	long long t0 = now_ms();
	unsigned held = run_hanging(e, a, mc, "mstconfig.pid", 300, &r);
	CHECK_INT(r.m.st, HWC_ST_TIMEOUT);
	char want[160];
	snprintf(want, sizeof(want), "mstconfig -d 0000:3b:00.0 q: killed after %u ms without finishing", held);
	CHECK_STR(r.m.detail, want);
	CHECK(now_ms() - t0 < NOT_WAITED_MS);
	CHECK(process_gone(tool_pid("mstconfig.pid")));

	/* garbage: every byte kept as is, the run goes on */
	fake_tool("mstconfig", "garbage");
	CHECK_INT(hwc_run(e, a, mc, 5000, &r), 0);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_INT(r.out_len, 4096);
	CHECK_INT((unsigned char)r.out[0], 0);
	CHECK_INT((unsigned char)r.out[1], 0xff);

	/* 100 MB: cut at the cap, reported truncated, memory bounded */
	fake_tool("mstconfig", "flood");
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_ms();
	CHECK_INT(hwc_run(e, a, mc, 20000, &r), -EFBIG);
	CHECK_INT(r.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(r.out_len, 8u << 20);
	CHECK_STR(r.m.detail, "mstconfig -d 0000:3b:00.0 q: printed more than 8388608 bytes; "
			      "stopped and cut");
	getrusage(RUSAGE_SELF, &ru1);
	long grew_kb = ru1.ru_maxrss - ru0.ru_maxrss;
	printf("flood: 100 MB tool output, max RSS grew by %ld KiB in %lld ms\n", grew_kb,
	       now_ms() - t0);
	CHECK(grew_kb < 80 * 1024);

	/* exits at once but leaves a child holding the pipe: the answer counts, the child dies */
	fake_tool("mstflint", "detach");
	const char *fl[] = {"mstflint", "-d", "0000:3b:00.0", "q", NULL};
	t0 = now_ms();
	CHECK_INT(hwc_run(e, a, fl, 10000, &r), 0);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_STR(r.out, "answered\n");
	CHECK(now_ms() - t0 < NOT_WAITED_MS); /* not held by the child's copy of the pipe */
	CHECK(process_gone(tool_pid("mstflint.child.pid")));

	/* issue 20: a process the tool put in a session of its own (setsid) goes too, when the
	 * tool exits and when it is killed at its timeout */
	fake_tool("mstflint", "setsid");
	CHECK_INT(hwc_run(e, a, fl, 10000, &r), 0);
	CHECK_STR(r.out, "answered\n");
	CHECK(process_gone(tool_pid("mstflint.child.pid")));
	fake_tool("mstconfig", "setsid-hang");
	t0 = now_ms();
	held = run_hanging(e, a, mc, "mstconfig.pid", 500, &r); /* written after the child's */
	snprintf(want, sizeof(want), "mstconfig -d 0000:3b:00.0 q: killed after %u ms without finishing", held);
	CHECK_STR(r.m.detail, want);
	CHECK(now_ms() - t0 < NOT_WAITED_MS);
	CHECK(process_gone(tool_pid("mstconfig.pid")));
	CHECK(process_gone(tool_pid("mstconfig.child.pid")));

	/* no shell: metacharacters reach the tool verbatim */
	fake_tool("ethtool", "args");
	const char *ev[] = {"ethtool", "-S", "$(touch /tmp/hwc-pwned)", "eth0; rm -rf /", "`id`",
			    NULL};
	CHECK_INT(hwc_run(e, a, ev, 5000, &r), 0);
	CHECK_STR(r.out, "-S\n$(touch /tmp/hwc-pwned)\neth0; rm -rf /\n`id`\n");
	CHECK(access("/tmp/hwc-pwned", F_OK) != 0);
	hwc_env_free(e);

	/* the whole-run budget bounds tools that all hang, each with a long timeout of its own */
	struct hwc_env_opts bo = {.root = "/", .total_timeout_ms = 800};
	CHECK_INT(hwc_env_open(&bo, &e), 0);
	fake_tool("dmesg", "hang");
	fake_tool("mstconfig", "hang");
	fake_tool("mstreg", "hang");
	const char *c1[] = {"dmesg", NULL}, *c2[] = {"mstconfig", "q", NULL},
		   *c3[] = {"mstreg", "--reg_name", "MTMP", NULL};
	struct hwc_cmd cmds[3] = {{c1, 60000}, {c2, 60000}, {c3, 60000}};
	struct hwc_cmd_result rs[3];
	hwc_run_many(e, a, 3, cmds, rs);
	for (int k = 0; k < 3; k++) {
		CHECK_INT(rs[k].m.st, HWC_ST_TIMEOUT);
		/* held to what was left of the 800 ms budget, not to its own 60 s */
		const char *at = rs[k].m.detail ? strstr(rs[k].m.detail, ": killed after ") : NULL;
		unsigned got = 0;
		CHECK(at && sscanf(at, ": killed after %u ms", &got) == 1 && got <= 800);
	}
	usleep(100000);
	CHECK_INT(hwc_run(e, a, c1, 60000, &r), -ETIMEDOUT);
	CHECK_STR(r.m.detail, "dmesg: not run, the run's --timeout is spent");
	hwc_env_free(e);
}

/* Recordings: hwcheck/commands/<argv>/{stdout,result}. */
static void test_replay(struct hwc_env *e, struct hwc_arena *a)
{
	struct hwc_cmd_result r;
	const char *h[] = {"mstconfig", "-d", "0000:3b:00.0", "q", NULL};
	CHECK_INT(hwc_run(e, a, h, 1000, &r), -ETIMEDOUT);
	CHECK_INT(r.m.st, HWC_ST_TIMEOUT);
	CHECK_STR(r.m.detail, "mstconfig -d 0000:3b:00.0 q: no answer before its timeout (recorded)");
	const char *t[] = {"mstflint", "-d", "0000:3b:00.0", "q", NULL};
	CHECK_INT(hwc_run(e, a, t, 1000, &r), -EFBIG);
	CHECK_INT(r.m.st, HWC_ST_TRUNCATED);
	/* a result file of garbage is ignored: exit 0 */
	const char *g[] = {"ethtool", "-i", "eth0", NULL};
	CHECK_INT(hwc_run(e, a, g, 1000, &r), 0);
	CHECK_INT(r.exit_code, 0);
	CHECK_STR(r.out, "driver: mlx5_core\n");
	CHECK(hwc_run(e, a, NULL, 1000, &r) < 0);
	CHECK_INT(r.m.st, HWC_ST_INVALID);
	const char *empty[] = {"", "q", NULL};
	CHECK(hwc_run(e, a, empty, 1000, &r) < 0);
	CHECK_INT(r.m.st, HWC_ST_INVALID);
	CHECK_STR(r.m.detail, "empty command");
	const char *dirname_only[] = {"/usr/sbin/", NULL};
	CHECK(hwc_run(e, a, dirname_only, 1000, &r) < 0);
	CHECK_INT(r.m.st, HWC_ST_INVALID);
	const char *dd[] = {"..", NULL};
	CHECK_STR(hwc_run_record_dir(a, dd), "hwcheck/commands/%2E%2E");
}

/* Sizes from hostile length fields: refused, never wrapped into a small block. */
static void test_arena_limits(void)
{
	struct hwc_arena *a = hwc_arena_new();
	CHECK(hwc_arena_zalloc(a, SIZE_MAX) == NULL);
	CHECK(hwc_arena_zalloc(a, SIZE_MAX - 40) == NULL);
	CHECK(hwc_arena_calloc(a, SIZE_MAX / 2, 4) == NULL);
	struct {
		int *items;
		size_t n, cap;
	} v = {0};
	CHECK(HWC_VEC_PUSH(a, &v) != NULL);
	CHECK_INT(hwc_arena_grow(a, (void **)&v.items, sizeof(int), &v.cap, SIZE_MAX - 1), -ENOMEM);
	CHECK_INT(v.cap, 4);
	CHECK(hwc_arena_zalloc(a, 16) != NULL);
	hwc_arena_free(a);
}

/* The terminal filter, fed an escape sequence split across writes. */
static void test_safe_streams(void)
{
	int po[2];
	if (pipe(po) != 0)
		abort();
	fflush(stdout); /* or the child writes our buffered lines into its pipe */
	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		close(po[1]);
		hwc_cli_safe_streams();
		const char *parts[] = {"a\033", "[3", "1mred\033[0", "m b\033]0;t", "itle\007 c\r\n",
				       "\033[2", "A d\tcaf\xc3\xa9\x7f\033"};
		for (size_t i = 0; i < HWC_ARRAY_SIZE(parts); i++) {
			fputs(parts[i], stdout);
			fflush(stdout);
		}
		fclose(stdout); /* the ESC left open at the end is shown too */
		_exit(0);
	}
	close(po[1]);
	char got[256];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(got) - 1 && (r = read(po[0], got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = 0;
	close(po[0]);
	waitpid(pid, NULL, 0);
	CHECK_STR(got, "a\033[31mred\033[0m b?]0;title? c?\n?[2A d\tcaf\xc3\xa9??");
}

/* ------------------------------------------------------------------ JSON */

static void test_json_allones(struct hwc_arena *a)
{
	json_t *o = json_object();
	struct hwc_fu64 u = {0}, back = {0};
	HWC_SET(u, UINT64_MAX);
	CHECK_INT(hwc_json_put_u64(o, "rx_bytes", &u), 0);
	char *s1 = hwc_json_dumps(o, false);
	CHECK_INT(hwc_json_get_u64(o, "rx_bytes", a, &back), 0);
	CHECK(back.v == UINT64_MAX);
	json_t *o2 = json_object();
	hwc_json_put_u64(o2, "rx_bytes", &back);
	char *s2 = hwc_json_dumps(o2, false);
	CHECK_STR(s2, s1);
	free(s1);
	free(s2);
	json_decref(o);
	json_decref(o2);
}

/* ------------------------------------------------------------------ watchdog and signals */

static void test_watchdog(void)
{
	fake_tool("mstconfig", "hang");
	char pidf[4096];
	snprintf(pidf, sizeof(pidf), "%s/mstconfig.pid", tools);
	unlink(pidf);
	int pe[2];
	if (pipe(pe) != 0)
		abort();
	long long t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pe[1], 2);
		close(pe[0]);
		/* a partial output in progress: the watchdog must remove its temporary */
		char out[4200];
		snprintf(out, sizeof(out), "%s/report.json", base);
		struct hwc_outfile of;
		if (hwc_outfile_open(&of, out) == 0)
			fputs("{\"partial\":", of.fp);
		struct hwc_env *e;
		struct hwc_env_opts o = {.root = "/"};
		struct hwc_arena *a = hwc_arena_new();
		hwc_env_open(&o, &e);
		/* armed just before the wait: the alarm finds the run waiting on the tool, which the
		 * runner marks, however long the machine took to get here */
		hwc_cli_guard(1, HWC_EXIT_NOTHING);
		struct hwc_cmd_result r;
		const char *mc[] = {"mstconfig", "q", NULL};
		hwc_run(e, a, mc, 600000, &r); /* the tool alone would hold us 10 minutes */
		_exit(99);
	}
	close(pe[1]);
	int st = 0;
	waitpid(pid, &st, 0);
	long long took = now_ms() - t0;
	char msg[512] = "";
	ssize_t n = read(pe[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = 0;
	close(pe[0]);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), HWC_EXIT_NOTHING);
	CHECK(took >= 2500 && took < NOT_WAITED_MS); /* --timeout 1 s + 2 s; the exit status says who */
	CHECK_STR(msg, "hwcheck: the run did not finish within --timeout 1 s (+2 s): it was waiting "
		       "on a read, tool or probe that did not answer; stopped without a report\n");
	CHECK(process_gone(tool_pid("mstconfig.pid")));
	struct hwc_dirlist dl;
	struct hwc_env *e;
	struct hwc_env_opts o = {.root = base};
	struct hwc_arena *a = hwc_arena_new();
	hwc_env_open(&o, &e);
	CHECK_INT(hwc_env_list_dir(e, "", a, &dl), 0);
	for (size_t i = 0; i < dl.n; i++)
		CHECK(strncmp(dl.names[i], ".report.json.", 13) != 0);
	hwc_env_free(e);
	hwc_arena_free(a);

	/* issue 20: a run that computed all along is not said to have blocked. It has used more
	 * CPU time than a tenth of the 3 s before the watchdog is armed, so what the line says
	 * does not depend on how much of the CPU a loaded machine gave it afterwards. */
	if (pipe(pe) != 0)
		abort();
	pid = fork();
	if (pid == 0) {
		dup2(pe[1], 2);
		close(pe[0]);
		while (cpu_ms() < 400)
			;
		hwc_cli_guard(1, HWC_EXIT_NOTHING);
		for (volatile unsigned long spin = 0;; spin++)
			;
	}
	close(pe[1]);
	waitpid(pid, &st, 0);
	n = read(pe[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = 0;
	close(pe[0]);
	CHECK_INT(WEXITSTATUS(st), HWC_EXIT_NOTHING);
	CHECK_STR(msg, "hwcheck: the run did not finish within --timeout 1 s (+2 s): it was still "
		       "computing (an input too large for this limit; give a larger --timeout); "
		       "stopped without a report\n");

	/* without --timeout the watchdog is armed all the same, for an hour */
	pid = fork();
	if (pid == 0) {
		hwc_cli_guard(0, HWC_EXIT_NOTHING);
		_exit(alarm(0) == HWC_WATCHDOG_DEFAULT_S ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* SIGTERM while a tool runs: hwcheck dies of it, the tool with it */
	unlink(pidf);
	pid = fork();
	if (pid == 0) {
		hwc_cli_guard(0, 0);
		struct hwc_env *le;
		struct hwc_env_opts lo = {.root = "/"};
		struct hwc_arena *la = hwc_arena_new();
		hwc_env_open(&lo, &le);
		struct hwc_cmd_result r;
		const char *mc[] = {"mstconfig", "q", NULL};
		hwc_run(le, la, mc, 600000, &r);
		_exit(99);
	}
	for (int i = 0; i < 6000 && !tool_pid("mstconfig.pid"); i++) /* started, however slowly */
		usleep(10000);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK(process_gone(tool_pid("mstconfig.pid")));
}

int main(void)
{
	if (!mkdtemp(base))
		return 1;
	chmod(base, 0755); /* the unprivileged case walks it as nobody */
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(tools, sizeof(tools), "%s/tools", base);
	puts_("root/sys/v/word", "Unknown\n");
	puts_("root/sys/v/trailing", "12abc\n");
	puts_("root/sys/v/overflow", "99999999999999999999\n");
	puts_("root/sys/v/empty", "\n");
	puts_("root/sys/v/long", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
	puts_("root/sys/v/zeros", "010\n");
	puts_("root/sys/v/hex", "0x15b3\n");
	put("root/sys/v/nul", "1\0002\n", 4);
	puts_("root/sys/v/allones", "0xffffffffffffffff\n");
	puts_("root/sys/v/hexneg", "-0x1\n");
	puts_("root/sys/v/secret", "42\n");
	char p[4096];
	snprintf(p, sizeof(p), "%s/sys/v/secret", root);
	chmod(p, 0);
	snprintf(p, sizeof(p), "%s/sys/v/fifo", root);
	if (mkfifo(p, 0644) != 0)
		abort();
	link_("fifo", "root/sys/v/tofifo");
	/* the host's canary, outside the root */
	puts_("outside/canary", "HOST-CANARY\n");
	puts_("root/etc/canary", "ROOT-COPY\n");
	char abs_host[4200];
	snprintf(abs_host, sizeof(abs_host), "%s/outside/canary", base);
	puts_("root/sys/esc/.keep", "");
	link_("/etc/canary", "root/sys/esc/abs_rootcopy");
	link_(abs_host, "root/sys/esc/abs_host");
	link_("../../../../../../../../outside/canary", "root/sys/esc/dotdot");
	link_("../../../../../../../../etc/canary", "root/sys/esc/dotdot_rootcopy");
	link_("../../../../..", "root/sys/esc/updir");
	link_("/", "root/sys/esc/slash");
	link_("loop_b", "root/sys/esc/loop_a");
	link_("loop_a", "root/sys/esc/loop_b");
	/* recordings */
	puts_("root/hwcheck/commands/mstconfig -d 0000:3b:00.0 q/result", "timeout=1\n");
	puts_("root/hwcheck/commands/mstflint -d 0000:3b:00.0 q/stdout", "Image type: FS4\n");
	puts_("root/hwcheck/commands/mstflint -d 0000:3b:00.0 q/result", "exit=0\ntruncated=1\n");
	puts_("root/hwcheck/commands/ethtool -i eth0/stdout", "driver: mlx5_core\n");
	put("root/hwcheck/commands/ethtool -i eth0/result", "\xff\xfe exit=abc\n=\n\0", 15);
	snprintf(p, sizeof(p), "%s/.keep", tools);
	puts_("tools/.keep", "");
	chmod(tools, 0755);
	setenv("HWCHECK_TOOL_PATH", tools, 1);

	/* static: still reachable in the forked children that _exit (valgrind checks them too) */
	static struct hwc_arena *a;
	static struct hwc_env *e;
	a = hwc_arena_new();
	struct hwc_env_opts o = {.root = root};
	CHECK_INT(hwc_env_open(&o, &e), 0);

	test_values(e, a);
	test_read_memory(e);
	test_special_files(e, a);
	test_escape(e, a);
	test_unprivileged();
	test_tools(a);
	test_replay(e, a);
	test_json_allones(a);
	test_arena_limits();
	test_safe_streams();
	test_watchdog();

	hwc_env_free(e);
	hwc_arena_free(a);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		t_fail++;
	TEST_MAIN_END();
}

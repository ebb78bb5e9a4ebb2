/* SPDX-License-Identifier: MIT */
/* A capture that says what it could not read: files that existed but would not open or read
 * (hwcheck/unreadable, core/marks.c), commands skipped on purpose (skipped= in a result, a noted
 * skip at hwcheck/skipped/<name>), recorded and replayed with the status and reason of the
 * captured run; captures without them replay as before. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/env.h"
#include "core/runner.h"
#include "snapshot/snapshot.h"
#include "test.h"
#include "test_capset.h"

static char tmpl[] = "/tmp/hwc-capture-XXXXXX";

static void put(const char *rel, const char *content)
{
	t_put(tmpl, rel, content);
}

static void test_line(void)
{
	int err;
	enum hwc_status st;
	const char *p;
	size_t n;
	const char *ok = "13 needs_root sys/bus/pci/devices/0000:3b:00.0/a file";
	CHECK_INT(hwc_unreadable_line(ok, strlen(ok), &err, &st, &p, &n), 0);
	CHECK_INT(err, EACCES);
	CHECK_INT(st, HWC_ST_NEEDS_ROOT);
	CHECK(n == strlen("sys/bus/pci/devices/0000:3b:00.0/a file") && p == ok + 14);
	const char *s5 = "5 unreadable x";
	CHECK_INT(hwc_unreadable_line(s5, strlen(s5), &err, &st, &p, &n), 0);
	CHECK_INT(st, HWC_ST_UNREADABLE);
	static const char *const bad[] = {
		"", "# 13 needs_root x", "13 needs_root", "13 needs_root ", "13needs_root x",
		"0 unreadable x", "4096 unreadable x", "-13 unreadable x", "0x0d unreadable x",
		"13 ok x", "13 truncated x", "13 unreadable a\tb", "13 unreadable a\x7f",
		"99999999 unreadable x", "13 averyveryverylongstatusname x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = hwc_unreadable_line(bad[i], strlen(bad[i]), &err, &st, &p, &n);
		if (rc != -EINVAL)
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
		CHECK_INT(rc, -EINVAL);
	}
	/* a NUL inside the line */
	CHECK_INT(hwc_unreadable_line("13 unreadable a\0b", 17, &err, &st, &p, &n), -EINVAL);
}

/* A replay of marked files: each read fails as the captured run's did, by either reader; the
 * file still exists; unmarked and badly marked files read as they are. */
static void test_replay_marks(struct hwc_env *rep, struct hwc_env *live, struct hwc_arena *a)
{
	static const struct {
		const char *path;
		int rc, st, err;
		const char *detail;
	} cases[] = {
		{"cap/vpd", -EACCES, HWC_ST_NEEDS_ROOT, 0, "/cap/vpd: Permission denied"},
		{"cap/dev/power", -EIO, HWC_ST_UNREADABLE, EIO, "/cap/dev/power: Input/output error"},
		/* the line alone, without the empty file */
		{"cap/gone", -ENODEV, HWC_ST_ABSENT, 0, "/cap/gone: No such device"},
		/* a link to a marked file: the mark is on where it points */
		{"cap/link", -EACCES, HWC_ST_NEEDS_ROOT, 0, "/cap/link: Permission denied"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwc_fstr s = {0};
		CHECK_INT(hwc_read_str(rep, cases[i].path, a, &s), cases[i].rc);
		CHECK_INT(s.m.st, cases[i].st);
		CHECK_INT(s.m.err, cases[i].err);
		CHECK_STR(s.m.detail, cases[i].detail);
	}
	struct hwc_env_dir d;
	CHECK_INT(hwc_env_dir_open(rep, "cap", a, &d), 0);
	const unsigned char *data;
	size_t len;
	struct hwc_fmeta m;
	CHECK_INT(hwc_read_bytes_at(rep, &d, "vpd", 0, a, &data, &len, &m), -EACCES);
	CHECK_INT(m.st, HWC_ST_NEEDS_ROOT);
	CHECK_INT(hwc_read_bytes_at(rep, &d, "gone", 0, a, &data, &len, &m), -ENODEV);
	CHECK_INT(m.st, HWC_ST_ABSENT);
	hwc_env_dir_close(&d);
	CHECK_INT(hwc_env_access(rep, "cap/vpd"), 0); /* it existed */
	struct hwc_fi64 v = {0};
	CHECK_INT(hwc_read_i64(rep, "cap/ok", a, &v), 0); /* bad lines named it: ignored */
	CHECK_INT(v.v, 1);
	struct hwc_fstr s = {0};
	CHECK_INT(hwc_read_str(rep, "cap/nothing", a, &s), -ENOENT);
	CHECK_STR(s.m.detail, "/cap/nothing: No such file or directory");
	/* the live machine is never a capture: its own files are read, whatever a list says */
	char p[4200];
	snprintf(p, sizeof(p), "%s/cap/vpd", tmpl);
	CHECK_INT(hwc_read_str(live, p, a, &s), 0);
	CHECK_STR(s.v, "");
}

static void check_cap(const struct hwc_capset *cs, const char *path, enum hwc_capture_kind kind,
		      const char *data)
{
	struct cap_find f = {.path = path};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	if (!f.found)
		fprintf(stderr, "not captured: %s\n", path);
	CHECK(f.found);
	CHECK_INT(f.kind, kind);
	CHECK_STR(f.data, data);
}

/* What the set keeps when a path is put twice: the bytes of a read over a refusal, whichever
 * came first; a refusal over a name seen only in a listing. */
static void test_capset_order(void)
{
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_capture_sink *k = hwc_capset_sink(cs);
	k->put(k, HWC_CAP_UNREADABLE, "a", "5 unreadable", 12);
	k->put(k, HWC_CAP_FILE, "a", "1\n", 2);
	k->put(k, HWC_CAP_FILE, "b", "2\n", 2);
	k->put(k, HWC_CAP_UNREADABLE, "b", "5 unreadable", 12);
	k->listed(k, "c");
	k->put(k, HWC_CAP_UNREADABLE, "c", "13 needs_root", 13);
	k->put(k, HWC_CAP_FILE, "c", "3\n", 2);
	k->listed(k, "d");
	k->put(k, HWC_CAP_UNREADABLE, "d", "13 needs_root", 13);
	check_cap(cs, "a", HWC_CAP_FILE, "1\n");
	check_cap(cs, "b", HWC_CAP_FILE, "2\n");
	check_cap(cs, "c", HWC_CAP_FILE, "3\n");
	check_cap(cs, "d", HWC_CAP_UNREADABLE, "13 needs_root");
	hwc_capset_free(cs);
}

/* The recording side, as a user the files refuse (nobody when run as root; a mode-000 file in
 * a directory of ours otherwise): the refused read is kept as a mark, the listed name too. */
static void record_refused(const char *dir)
{
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = dir, .record = hwc_capset_sink(cs)};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_dirlist dl = {0};
	CHECK_INT(hwc_env_list_dir(e, "d", a, &dl), 0);
	CHECK_INT(dl.n, 3);
	struct hwc_fstr s = {0};
	CHECK_INT(hwc_read_str(e, "d/secret", a, &s), -EACCES);
	CHECK_INT(s.m.st, HWC_ST_UNREADABLE); /* a capture of a root: EACCES is its own */
	CHECK_INT(hwc_read_str(e, "d/listed-secret", a, &s), -EACCES);
	CHECK_INT(hwc_read_str(e, "d/ok", a, &s), 0);
	CHECK_INT(hwc_read_str(e, "d/missing", a, &s), -ENOENT);
	check_cap(cs, "d/secret", HWC_CAP_UNREADABLE, "13 unreadable");
	check_cap(cs, "d/listed-secret", HWC_CAP_UNREADABLE, "13 unreadable");
	check_cap(cs, "d/ok", HWC_CAP_FILE, "1\n");
	struct cap_find f = {.path = "d/missing"};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	CHECK(!f.found); /* what does not exist is not marked */
	hwc_env_free(e);
	hwc_capset_free(cs);
	hwc_arena_free(a);
}

static void test_record_refused(void)
{
	char dir[] = "/tmp/hwc-capture-rec-XXXXXX";
	if (!mkdtemp(dir) || chmod(dir, 0755) != 0)
		abort();
	char p[256];
	snprintf(p, sizeof(p), "%s/d", dir);
	mkdir(p, 0755);
	static const char *const names[] = {"secret", "listed-secret", "ok"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/d/%s", dir, names[i]);
		FILE *fp = fopen(p, "w");
		if (!fp)
			abort();
		fputs("1\n", fp);
		fclose(fp);
		if (i < 2)
			chmod(p, 0);
	}
	int failed_before = t_fail;
	pid_t pid = fork();
	if (pid == 0) {
		if (!t_drop_root())
			_exit(2);
		record_refused(dir);
		_exit(t_fail > failed_before ? 1 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
}

/* A command skipped on purpose replays with its status and reason; a skip the replay does not
 * know (another status name) is no skip. */
static void test_replay_skipped(struct hwc_env *rep, struct hwc_arena *a)
{
	struct hwc_cmd_result r;
	const char *nr[] = {"mstconfig", "-d", "0000:3b:00.0", "q", NULL};
	CHECK_INT(hwc_run(rep, a, nr, 1000, &r), -EPERM);
	CHECK_INT(r.m.st, HWC_ST_NEEDS_ROOT);
	CHECK_STR(r.m.detail, "mstconfig needs root here");
	const char *bl[] = {"dmesg", NULL};
	CHECK_INT(hwc_run(rep, a, bl, 1000, &r), -EPERM);
	CHECK_INT(r.m.st, HWC_ST_BLOCKED);
	CHECK_STR(r.m.detail, "dmesg: not run (recorded)"); /* no reason: said generically */
	const char *odd[] = {"lspci", NULL};
	CHECK_INT(hwc_run(rep, a, odd, 1000, &r), 0);
	CHECK_INT(r.m.st, HWC_ST_OK);
	CHECK_STR(r.out, "00:00.0 Host bridge\n");
	struct hwc_fmeta why;
	CHECK(hwc_run_skip_noted(rep, a, "mstflint", &why));
	CHECK_INT(why.st, HWC_ST_NEEDS_ROOT);
	CHECK_STR(why.detail, "mstflint tools need root (read-write PCI config space)");
	CHECK(!hwc_run_skip_noted(rep, a, "other", &why));
}

/* The recording side of skips: --no-tools keeps skipped=blocked with its words; a noted skip is
 * kept where a replay reads it; an ok gate notes nothing; nothing is noted when not recording. */
static void test_record_skipped(struct hwc_env *live, struct hwc_arena *a)
{
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = "/", .no_tools = true, .record = hwc_capset_sink(cs)};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_cmd_result r;
	const char *argv[] = {"true", "x", NULL};
	CHECK_INT(hwc_run(e, a, argv, 1000, &r), -EPERM);
	CHECK_INT(r.m.st, HWC_ST_BLOCKED);
	check_cap(cs, "hwcheck/commands/true x/result", HWC_CAP_FILE,
		  "skipped=blocked\nreason=true x: not run (--no-tools)\n");
	struct hwc_fmeta why = {HWC_ST_NEEDS_ROOT, 0, "tools need root\n(two lines)"};
	hwc_run_skip_note(e, a, "mstflint", &why);
	check_cap(cs, "hwcheck/skipped/mstflint", HWC_CAP_FILE,
		  "skipped=needs_root\nreason=tools need root (two lines)\n");
	struct hwc_fmeta fine = {HWC_ST_OK, 0, NULL};
	hwc_run_skip_note(e, a, "fine", &fine);
	struct cap_find f = {.path = "hwcheck/skipped/fine"};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	CHECK(!f.found);
	CHECK(!hwc_run_skip_noted(e, a, "mstflint", &why)); /* the live machine is no capture */
	hwc_run_skip_note(live, a, "mstflint", &why);        /* not recording: nothing, no crash */
	hwc_env_free(e);
	hwc_capset_free(cs);
}

/* --watch samples (core/env.h): while a sample is set, a file read is recorded at its place
 * hwcheck/watch/<n>/files/<resolved path> and a recording under hwcheck/watch/<n>/, links as
 * they are; a replay reads the sample's place only. */
static void test_sample_record(void)
{
	char dir[] = "/tmp/hwc-capture-smp-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	t_put(dir, "devices/p1/carrier_changes", "4\n");
	char p[256];
	snprintf(p, sizeof(p), "%s/net", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/net/p1", dir);
	if (symlink("../devices/p1", p) != 0)
		abort();
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_capset *cs = hwc_capset_new();
	struct hwc_env *e = NULL;
	/* the machine's files read as they are (exec mode: not a capture), recorded per sample */
	struct hwc_env_opts o = {.root = dir, .mode = HWC_RUN_EXEC, .record = hwc_capset_sink(cs)};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_fi64 v = {0};
	hwc_env_set_sample(e, 1);
	CHECK_INT(hwc_env_sample(e), 1);
	CHECK_INT(hwc_read_i64(e, "net/p1/carrier_changes", a, &v), 0);
	CHECK_INT(v.v, 4);
	CHECK_INT(hwc_read_i64(e, "devices/p1/missing", a, &v), -ENOENT);
	hwc_env_capture_blob(e, "hwcheck/commands/x/stdout", "out", 3);
	hwc_env_set_sample(e, 0);
	CHECK_INT(hwc_read_i64(e, "net/p1/carrier_changes", a, &v), 0);
	check_cap(cs, "hwcheck/watch/1/files/devices/p1/carrier_changes", HWC_CAP_FILE, "4\n");
	check_cap(cs, "hwcheck/watch/1/commands/x/stdout", HWC_CAP_FILE, "out");
	check_cap(cs, "net/p1", HWC_CAP_LINK, "../devices/p1");
	check_cap(cs, "devices/p1/carrier_changes", HWC_CAP_FILE, "4\n");
	struct cap_find f = {.path = "hwcheck/watch/1/files/devices/p1/missing"};
	CHECK_INT(hwc_capset_visit(cs, cap_find, &f), 0);
	CHECK(!f.found);
	hwc_env_free(e);
	hwc_capset_free(cs);

	/* the replay of such a capture */
	t_put(dir, "hwcheck/watch/1/files/devices/p1/carrier_changes", "9\n");
	t_put(dir, "hwcheck/watch/1/commands/x/stdout", "one");
	struct hwc_env_opts ro = {.root = dir};
	CHECK_INT(hwc_env_open(&ro, &e), 0);
	CHECK_INT(hwc_read_i64(e, "net/p1/carrier_changes", a, &v), 0);
	CHECK_INT(v.v, 4); /* the main collection's */
	hwc_env_set_sample(e, 1);
	CHECK_INT(hwc_read_i64(e, "net/p1/carrier_changes", a, &v), 0);
	CHECK_INT(v.v, 9);
	struct hwc_env_dir d;
	const unsigned char *data;
	size_t len;
	struct hwc_fmeta m;
	CHECK_INT(hwc_env_dir_open(e, "devices/p1", a, &d), 0);
	CHECK_INT(hwc_read_bytes_at(e, &d, "carrier_changes", 64, a, &data, &len, &m), 0);
	CHECK(len == 2 && data[0] == '9'); /* the sample's, not the directory's own file */
	hwc_env_dir_close(&d);
	CHECK_INT(hwc_read_bytes(e, "hwcheck/commands/x/stdout", 64, a, &data, &len, &m), 0);
	CHECK(len == 3 && memcmp(data, "one", 3) == 0);
	CHECK_INT(hwc_read_i64(e, "devices/p1/missing", a, &v), -ENOENT);
	CHECK(v.m.detail && !strstr(v.m.detail, "sample")); /* not on the machine at all */
	hwc_env_set_sample(e, 2);
	CHECK_INT(hwc_read_i64(e, "net/p1/carrier_changes", a, &v), -ENOENT);
	CHECK_INT(v.m.st, HWC_ST_ABSENT);
	CHECK(v.m.detail && strstr(v.m.detail, "not in --watch sample 2 of this capture"));
	hwc_env_free(e);
	hwc_arena_free(a);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		t_fail++;
}

int main(void)
{
	if (!mkdtemp(tmpl))
		return 1;
	put("cap/vpd", "");
	put("cap/dev/power", "");
	put("cap/ok", "1\n");
	char p[4200];
	snprintf(p, sizeof(p), "%s/cap/link", tmpl);
	if (symlink("vpd", p) != 0)
		abort();
	put("hwcheck/unreadable", "13 needs_root cap/vpd\n"
				  "5 unreadable /cap/dev/power\n"
				  "19 absent cap/gone\n"
				  "# 13 needs_root cap/ok\n"
				  "13 ok cap/ok\n"
				  "2x unreadable cap/ok\n"
				  "13 unreadable \n"
				  "13 needs_root cap/ok"); /* no end of line: cut, no mark */
	put("hwcheck/commands/mstconfig -d 0000:3b:00.0 q/result",
	    "skipped=needs_root\nreason=mstconfig needs root here\n");
	put("hwcheck/commands/dmesg/result", "skipped=blocked\n");
	put("hwcheck/commands/lspci/result", "skipped=maybe\nexit=0\n");
	put("hwcheck/commands/lspci/stdout", "00:00.0 Host bridge\n");
	put("hwcheck/skipped/mstflint",
	    "skipped=needs_root\nreason=mstflint tools need root (read-write PCI config space)\n");
	put("hwcheck/skipped/other", "skipped=ok\nreason=ran\n");

	struct hwc_arena *a = hwc_arena_new();
	struct hwc_env *rep = NULL, *live = NULL;
	struct hwc_env_opts ro = {.root = tmpl}, lo = {.root = "/"};
	CHECK_INT(hwc_env_open(&ro, &rep), 0);
	CHECK_INT(hwc_env_open(&lo, &live), 0);

	test_line();
	test_replay_marks(rep, live, a);
	test_capset_order();
	test_record_refused();
	test_replay_skipped(rep, a);
	test_record_skipped(live, a);
	test_sample_record();

	hwc_env_free(rep);
	hwc_env_free(live);
	hwc_arena_free(a);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		t_fail++;
	TEST_MAIN_END();
}

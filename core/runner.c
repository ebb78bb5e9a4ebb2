/* SPDX-License-Identifier: MIT */
/* External commands: fork/execve with pipes, one poll loop for many children, deadlines and
 * output caps; record and replay under the root. */
#include "core/runner.h"
#include "core/wait.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SAFE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define KEY_MAX 200
/* After SIGKILL a child normally goes in microseconds; one stuck in the kernel (a read of a
 * device that fell off the bus, state D) does not. We wait this long, then leave it behind. */
#define KILL_GRACE_MS 2000
/* Output still arriving after the tool itself exited comes from something it left running
 * (holding our pipes): we read for this long, then kill its process group. */
#define EXIT_GRACE_MS 200

/* Process groups of the tools now running, for hwc_run_kill_all() from a signal handler. */
#define LIVE_MAX 256
static volatile sig_atomic_t live_pgids[LIVE_MAX];

static void live_add(pid_t pid)
{
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live_pgids[i] == 0) {
			live_pgids[i] = pid;
			return;
		}
}

static void live_del(pid_t pid)
{
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live_pgids[i] == pid)
			live_pgids[i] = 0;
}

void hwc_run_kill_all(void)
{
	/* each warden kills its whole tree (see warden()); they also get SIGTERM by themselves
	 * when hwcheck dies, even of SIGKILL */
	for (size_t i = 0; i < LIVE_MAX; i++) {
		pid_t p = (pid_t)live_pgids[i];
		if (p > 0)
			kill(-p, SIGTERM);
	}
}

static const char *base_name(const char *s)
{
	const char *sl = strrchr(s, '/');
	return sl ? sl + 1 : s;
}

const char *hwc_argv_str(struct hwc_arena *a, const char *const *argv)
{
	size_t len = 1;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	char *s = hwc_arena_zalloc(a, len);
	if (!s)
		return "?";
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

const char *hwc_run_record_dir(struct hwc_arena *a, const char *const *argv)
{
	char key[KEY_MAX * 3 + 64];
	size_t k = 0;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; argv[i]; i++) {
		const char *s = i == 0 ? base_name(argv[i]) : argv[i];
		if (i && k < KEY_MAX * 3)
			key[k++] = ' ';
		h = (h ^ ' ') * 1099511628211ULL;
		for (; *s; s++) {
			unsigned char c = (unsigned char)*s;
			h = (h ^ c) * 1099511628211ULL;
			if (k >= KEY_MAX * 3)
				continue;
			if (c == '%' || c == '/' || c < 0x20 || c == 0x7f)
				k += (size_t)snprintf(key + k, 4, "%%%02X", c);
			else
				key[k++] = (char)c;
		}
	}
	key[k] = 0;
	/* "." and ".." are not names a recording can have: they would point at hwcheck/ itself */
	if (strcmp(key, ".") == 0 || strcmp(key, "..") == 0)
		return hwc_arena_printf(a, "hwcheck/commands/%s", key[1] ? "%2E%2E" : "%2E");
	if (k > KEY_MAX) {
		/* cut at a byte boundary that does not split a %XX escape */
		size_t cut = KEY_MAX - 20;
		while (cut > 0 && (key[cut - 1] == '%' || (cut > 1 && key[cut - 2] == '%')))
			cut--;
		snprintf(key + cut, sizeof(key) - cut, "#%016llx", (unsigned long long)h);
	}
	return hwc_arena_printf(a, "hwcheck/commands/%s", key);
}

/* ------------------------------------------------------------------ replay */

/* A "skipped" or "reason" line (text values); false for any other key. */
static bool recorded_skip(const char *key, const char *val, struct hwc_run_recorded *r)
{
	if (strcmp(key, "reason") == 0) {
		r->reason = *val ? val : r->reason;
		return true;
	}
	if (strcmp(key, "skipped") != 0)
		return false;
	enum hwc_status st = hwc_status_from_name(val);
	if (st != HWC_ST__COUNT && st != HWC_ST_UNSET && st != HWC_ST_OK && st != HWC_ST_TRUNCATED)
		r->skipped = st; /* not run: it neither answered nor printed */
	return true;
}

/* One "key=value" line of a result file into r (text values point into line). */
static void recorded_line(char *line, struct hwc_run_recorded *r)
{
	char *eq = strchr(line, '=');
	int64_t v;
	if (!eq)
		return;
	*eq = 0;
	if (recorded_skip(line, eq + 1, r))
		return;
	if (hwc_parse_i64(eq + 1, 10, &v) < 0)
		return;
	bool is_int = v >= INT_MIN && v <= INT_MAX;
	if (strcmp(line, "exit") == 0 && is_int)
		r->exit_code = (int)v;
	else if (strcmp(line, "signal") == 0 && is_int)
		r->signal = (int)v;
	else if (strcmp(line, "errno") == 0 && is_int)
		r->errnum = (int)v;
	else if (strcmp(line, "timeout") == 0)
		r->timeout = v != 0;
	else if (strcmp(line, "truncated") == 0)
		r->truncated = r->truncated || v != 0;
	else if (strcmp(line, "elapsed_ms") == 0 && v >= 0 && v <= UINT_MAX)
		r->elapsed_ms = (unsigned)v;
	else if (strcmp(line, "not_installed") == 0)
		r->not_installed = v != 0;
	else if (strcmp(line, "not_run") == 0)
		r->not_run = v != 0;
	else if (strcmp(line, "start_errno") == 0 && v > 0 && v <= INT_MAX)
		r->start_errno = (int)v;
}

/* The key=value lines of a result file (or of a noted skip) at path into r. */
static void read_recorded_file(struct hwc_env *e, struct hwc_arena *a, const char *path,
			       struct hwc_run_recorded *r)
{
	struct hwc_fstr res = {0};
	if (!path || hwc_read_str(e, path, a, &res) < 0)
		return;
	char *save = NULL, *buf = hwc_arena_strdup(a, res.v);
	for (char *line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		recorded_line(line, r);
}

void hwc_run_read_recorded(struct hwc_env *e, struct hwc_arena *a, const char *dir,
			   struct hwc_run_recorded *r)
{
	read_recorded_file(e, a, hwc_arena_printf(a, "%s/result", dir), r);
}

/* Where a command's answer is recorded: <key>, a retry's <key>/retry (hwc_run_again). */
static const char *cmd_dir(struct hwc_arena *a, const char *const *argv, bool retry)
{
	const char *dir = hwc_run_record_dir(a, argv);
	return dir && retry ? hwc_arena_printf(a, "%s/retry", dir) : dir;
}

/* A recording that says the command never ran on the captured machine: its status as the live
 * run gave it (start_one), marked as recorded where the wording could be taken for this run's. */
static int replay_not_run(struct hwc_arena *a, const char *const *argv, const char *cmd,
			  const struct hwc_run_recorded *rec, struct hwc_cmd_result *r)
{
	if (rec->skipped) {
		hwc_fmeta_set(&r->m, rec->skipped, 0,
			      rec->reason ? rec->reason
					  : hwc_arena_printf(a, "%s: not run (recorded)", cmd));
		return -EPERM;
	}
	if (rec->not_installed) {
		hwc_fmeta_set(&r->m, HWC_ST_ABSENT, 0,
			      hwc_arena_printf(a, "%s: not installed", base_name(argv[0])));
		return -ENOENT;
	}
	if (rec->start_errno) {
		hwc_fmeta_set(&r->m, HWC_ST_UNREADABLE, rec->start_errno,
			      hwc_arena_printf(a, "%s: cannot start: %s (recorded)", cmd,
					       strerror(rec->start_errno)));
		return -EIO;
	}
	hwc_fmeta_set(&r->m, HWC_ST_TIMEOUT, 0,
		      hwc_arena_printf(a, "%s: not run, the captured run's --timeout was spent", cmd));
	return -ETIMEDOUT;
}

/* How a replayed command that answered ended: as child_result() judged it live, in the words of
 * the capture where they are about the captured run (cut_here: this run's output cap cut the
 * recorded stdout). */
static int replay_ended(struct hwc_env *e, struct hwc_arena *a, const char *cmd,
			const struct hwc_run_recorded *rec, bool cut_here, struct hwc_cmd_result *r)
{
	r->exit_code = rec->exit_code;
	r->signal = rec->signal;
	r->elapsed_ms = rec->elapsed_ms;
	if (rec->timeout) {
		hwc_fmeta_set(&r->m, HWC_ST_TIMEOUT, 0,
			      rec->elapsed_ms
				      ? hwc_arena_printf(a, "%s: killed after %u ms without finishing "
							    "(recorded)", cmd, rec->elapsed_ms)
				      : hwc_arena_printf(a, "%s: no answer before its timeout (recorded)", cmd));
		return -ETIMEDOUT;
	}
	if (cut_here || rec->truncated) {
		hwc_fmeta_set(&r->m, HWC_ST_TRUNCATED, 0,
			      cut_here ? hwc_arena_printf(a, "%s: output over %zu bytes, cut", cmd,
							  hwc_env_cmd_output_cap(e))
				       : hwc_arena_printf(a, "%s: printed more than %zu bytes; stopped "
							     "and cut (recorded)", cmd, r->out_len));
		return -EFBIG;
	}
	if (rec->exit_code == 127 && r->out_len == 0 && !rec->signal) {
		hwc_fmeta_set(&r->m, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s: could not be executed (recorded)", cmd));
		return -EIO;
	}
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	if (rec->signal)
		return -EINTR;
	return rec->exit_code == 0 ? 0 : -ECHILD;
}

/* Reads DIR/stdout and DIR/stderr into r (a recording without stdout answered nothing). */
static int replay_output(struct hwc_env *e, struct hwc_arena *a, const char *dir,
			 struct hwc_cmd_result *r)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/stdout", dir);
	struct hwc_fmeta m;
	const unsigned char *d;
	size_t len;
	int rc_out = hwc_read_bytes(e, p, hwc_env_cmd_output_cap(e), a, &d, &len, &m);
	if (rc_out < 0 && m.st == HWC_ST_ABSENT) {
		d = (const unsigned char *)"";
		len = 0;
		rc_out = 0;
	} else if (rc_out < 0 && m.st == HWC_ST_TRUNCATED) {
		rc_out = -EFBIG; /* the first cap bytes are kept */
	} else if (rc_out < 0) {
		r->m = m;
		return rc_out;
	}
	r->out = (const char *)d;
	r->out_len = len;
	snprintf(p, sizeof(p), "%s/stderr", dir);
	if (hwc_read_bytes(e, p, hwc_env_cmd_output_cap(e), a, &d, &len, &m) == 0 ||
	    m.st == HWC_ST_TRUNCATED) {
		r->err = (const char *)d;
		r->err_len = len;
	} else {
		r->err = "";
		r->err_len = 0;
	}
	return rc_out;
}

/* Where argv's answer is in the capture: its own recording, a retry's falling back to the first
 * run's (recorded once: the retry answers the same), then the older argv's (alias). */
static const char *replay_dir(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
			      const char *const *alias, bool retry, bool *aliased)
{
	const char *dir = cmd_dir(a, argv, retry);
	if (retry && !hwc_env_is_dir(e, dir))
		dir = hwc_run_record_dir(a, argv);
	if (alias && alias[0] && !hwc_env_is_dir(e, dir)) {
		const char *old = replay_dir(e, a, alias, NULL, retry, aliased);
		if (old && hwc_env_is_dir(e, old)) {
			*aliased = true;
			return old;
		}
	}
	return dir;
}

static int replay(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
		  const char *const *alias, bool retry, struct hwc_cmd_result *r)
{
	const char *dir = replay_dir(e, a, argv, alias, retry, &r->aliased);
	if (r->aliased)
		argv = alias;
	const char *cmd = hwc_argv_str(a, argv);
	if (!hwc_env_is_dir(e, dir)) {
		/* no recording: the capture does not say whether the tool is installed */
		r->not_recorded = true;
		const char *only = hwc_env_only_input(e);
		hwc_fmeta_set(&r->m, HWC_ST_ABSENT, 0,
			      only ? hwc_arena_printf(a, "%s: not run (not in %s)", cmd, only)
				   : hwc_arena_printf(a, "%s: not in this capture", base_name(argv[0])));
		return -ENOENT;
	}
	struct hwc_run_recorded rec = {.elapsed_ms = r->elapsed_ms};
	hwc_run_read_recorded(e, a, dir, &rec);
	if (rec.skipped || rec.not_installed || rec.start_errno || rec.not_run)
		return replay_not_run(a, argv, cmd, &rec, r);
	int rc_out = replay_output(e, a, dir, r);
	if (rc_out < 0 && rc_out != -EFBIG)
		return rc_out;
	return replay_ended(e, a, cmd, &rec, rc_out == -EFBIG, r);
}

/* ------------------------------------------------------------------ record */

static void record(struct hwc_env *e, struct hwc_arena *a, const char *const *argv, bool retry,
		   const struct hwc_cmd_result *r)
{
	if (!hwc_env_recording(e) || r->m.st == HWC_ST_ABSENT || r->m.st == HWC_ST_BLOCKED)
		return;
	const char *dir = cmd_dir(a, argv, retry);
	char p[PATH_MAX], res[128];
	snprintf(p, sizeof(p), "%s/stdout", dir);
	hwc_env_capture_blob(e, p, r->out, r->out_len);
	snprintf(p, sizeof(p), "%s/stderr", dir);
	hwc_env_capture_blob(e, p, r->err, r->err_len);
	int n;
	if (r->m.st == HWC_ST_TIMEOUT)
		n = snprintf(res, sizeof(res), "timeout=1\n");
	else if (r->signal)
		n = snprintf(res, sizeof(res), "signal=%d\n%s", r->signal,
			     r->m.st == HWC_ST_TRUNCATED ? "truncated=1\n" : "");
	else
		n = snprintf(res, sizeof(res), "exit=%d\n%s", r->exit_code,
			     r->m.st == HWC_ST_TRUNCATED ? "truncated=1\n" : "");
	/* how long the tool took, for a replay at the recorded pace (bench/) */
	n += snprintf(res + n, sizeof(res) - (size_t)n, "elapsed_ms=%u\n", r->elapsed_ms);
	snprintf(p, sizeof(p), "%s/result", dir);
	hwc_env_capture_blob(e, p, res, (size_t)n);
}

/* A command that never ran (start_one): only its result, which says why, so that its replay
 * says the same (replay_not_run) and a missing recording keeps meaning "not in this capture". */
static void record_not_run(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
			   bool retry, const char *why)
{
	if (!hwc_env_recording(e))
		return;
	const char *p = hwc_arena_printf(a, "%s/result", cmd_dir(a, argv, retry));
	if (p)
		hwc_env_capture_blob(e, p, why, strlen(why));
}

/* A skip as result lines: "skipped=<status>\nreason=<detail, one line>\n". */
static const char *skip_text(struct hwc_arena *a, const struct hwc_fmeta *why)
{
	char *reason = hwc_arena_strdup(a, why->detail ? why->detail : "");
	for (char *p = reason; p && *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return hwc_arena_printf(a, "skipped=%s\nreason=%s\n", hwc_status_name(why->st),
				reason ? reason : "");
}

static const char *skip_path(struct hwc_arena *a, const char *name)
{
	return hwc_arena_printf(a, "hwcheck/skipped/%s", name);
}

void hwc_run_skip_note(struct hwc_env *e, struct hwc_arena *a, const char *name,
		       const struct hwc_fmeta *why)
{
	const char *p = skip_path(a, name), *text = skip_text(a, why);
	if (hwc_env_recording(e) && why->st != HWC_ST_OK && why->st != HWC_ST_UNSET && p && text)
		hwc_env_capture_blob(e, p, text, strlen(text));
}

bool hwc_run_skip_noted(struct hwc_env *e, struct hwc_arena *a, const char *name,
			struct hwc_fmeta *why)
{
	if (hwc_env_mode(e) != HWC_RUN_REPLAY || hwc_env_only_input(e))
		return false;
	struct hwc_run_recorded rec = {0};
	read_recorded_file(e, a, skip_path(a, name), &rec);
	if (!rec.skipped)
		return false;
	hwc_fmeta_set(why, rec.skipped, 0,
		      rec.reason ? rec.reason : hwc_arena_printf(a, "%s: not run (recorded)", name));
	return true;
}

/* ------------------------------------------------------------------ exec */

static const char *find_tool(struct hwc_arena *a, const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? name : NULL;
	/* HWCHECK_TOOL_PATH lets tests put fake tools first; secure_getenv ignores it in setuid
	 * contexts. The rest is a fixed path, never the caller's PATH. */
	const char *extra = secure_getenv("HWCHECK_TOOL_PATH");
	const char *paths[2] = {extra, SAFE_PATH};
	for (int k = 0; k < 2; k++) {
		if (!paths[k] || !*paths[k])
			continue;
		const char *p = paths[k];
		while (*p) {
			const char *c = strchr(p, ':');
			size_t l = c ? (size_t)(c - p) : strlen(p);
			if (l) {
				char *cand = hwc_arena_printf(a, "%.*s/%s", (int)l, p, name);
				struct stat st;
				if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
				    access(cand, X_OK) == 0)
					return cand;
			}
			p += l;
			if (*p == ':')
				p++;
		}
	}
	return NULL;
}

struct child {
	pid_t pid;
	int fd[2];          /* stdout, stderr; -1 when closed */
	char *buf[2];
	size_t len[2], cap[2];
	struct timespec start, deadline, exited_at, killed_at;
	bool killed_timeout, killed_cap, exited, abandoned;
	bool reaped;        /* done with: exited and pipes closed, or abandoned */
	int wstatus;
};

static long long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void close_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lowfd; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		close((int)fd);
}

/* ---- the warden: one small process between hwcheck and each tool ----------------------
 * A tool that calls setsid() leaves its process group, and anything a tool leaves running is
 * reparented to init when hwcheck dies: killing a process group is not enough. Each tool is
 * started by a warden that is a child subreaper (every orphan of the tool's tree becomes its
 * child) and gets SIGTERM when hwcheck dies (PR_SET_PDEATHSIG, so even when hwcheck is
 * SIGKILLed). When the tool exits, or on SIGTERM, it kills the tool's whole tree and exits with
 * the tool's status. Everything here runs between fork and exec: async-signal-safe calls only. */

/* The warden exits with this when SIGKILL did not end part of the tree (stuck in the kernel). */
#define WARDEN_LEFT_BEHIND 124

static long long warden_ms(const struct timespec *since)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* SIGKILLs every child of the warden (the orphans of the tool's tree are reparented to it). */
static void warden_kill_children(const char *children_path)
{
	int fd = open(children_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	long pid = 0;
	for (ssize_t i = 0; i < (n > 0 ? n : 0); i++) {
		if (buf[i] >= '0' && buf[i] <= '9') {
			pid = pid * 10 + (buf[i] - '0');
		} else {
			if (pid > 0)
				kill((pid_t)pid, SIGKILL);
			pid = 0;
		}
	}
	if (pid > 0)
		kill((pid_t)pid, SIGKILL);
}

/* Reaps what has exited; notes the tool's status. Returns false once no child is left. */
static bool warden_reap(pid_t tool, int *status, bool *tool_done)
{
	int ws;
	pid_t w;
	while ((w = waitpid(-1, &ws, WNOHANG)) > 0)
		if (w == tool) {
			*status = ws;
			*tool_done = true;
		}
	return !(w < 0 && errno == ECHILD);
}

/* Kills the tool's tree layer by layer until nothing is left; false when something outlived
 * grace_ms (stuck in the kernel). */
static bool warden_kill_tree(pid_t tool, int *status, bool *tool_done, long long grace_ms)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		kill(-tool, SIGKILL);
		warden_kill_children(path);
		if (!warden_reap(tool, status, tool_done))
			return true;
		if (warden_ms(&start) >= grace_ms)
			return false;
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* Leaves as the tool did: its exit code, or death by its signal. */
static _Noreturn void warden_exit_like(int ws)
{
	if (WIFSIGNALED(ws)) {
		int sig = WTERMSIG(ws);
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 127);
}

static _Noreturn void warden_tool(const char *path, const char *const *argv, char *const envp[], pid_t warden)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != warden)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(path, (char *const *)argv, envp);
	_exit(127);
}

static _Noreturn void warden(const char *path, const char *const *argv, char *const envp[],
			     pid_t hwcheck)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (getppid() != hwcheck)
		_exit(127); /* hwcheck is already gone */
	pid_t me = getpid();
	pid_t t = fork();
	if (t < 0)
		_exit(127);
	if (t == 0)
		warden_tool(path, argv, envp, me);
	setpgid(t, t);
	/* the pipes belong to the tool: hwcheck sees their end when the tool's tree closes them */
	dup2(0, 1);
	dup2(0, 2);
	int st = 0;
	bool done = false;
	while (!done) {
		struct timespec ts = {0, 100 * 1000000L};
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			/* hwcheck stops the tool (timeout, output cap, signal) or died */
			if (!warden_kill_tree(t, &st, &done, KILL_GRACE_MS - 500))
				_exit(WARDEN_LEFT_BEHIND);
			signal(SIGKILL, SIG_DFL);
			raise(SIGKILL);
		}
		warden_reap(t, &st, &done);
	}
	/* The tool answered. What it left running gets the same grace hwcheck gives output that
	 * arrives after the tool exited, then goes, setsid or not. */
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	bool any = true;
	while (any && warden_ms(&start) < EXIT_GRACE_MS) {
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
		any = warden_reap(t, &st, &done);
	}
	if (any && !warden_kill_tree(t, &st, &done, KILL_GRACE_MS - 500))
		_exit(WARDEN_LEFT_BEHIND);
	warden_exit_like(st);
}

static int spawn(const char *path, const char *const *argv, struct child *c)
{
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		int err = errno;
		close(po[0]);
		close(po[1]);
		return -err;
	}
	static char *const envp[] = {"PATH=" SAFE_PATH, "LC_ALL=C", "LANG=C", "HOME=/", NULL};
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		return -err;
	}
	if (pid == 0) {
		/* the warden: its own process group, which hwcheck signals */
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(127);
		/* The tool gets stdin, stdout, stderr and nothing else hwcheck holds open (the
		 * root, output files, libraries' descriptors opened without O_CLOEXEC). */
		close_from(3);
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		warden(path, argv, envp, self);
	}
	setpgid(pid, pid);
	close(po[1]);
	close(pe[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	c->pid = pid;
	c->fd[0] = po[0];
	c->fd[1] = pe[0];
	return 0;
}

static void kill_child(struct child *c)
{
	if (c->pid > 0 && !c->reaped) {
		/* the warden kills the tool's whole tree and then itself */
		if (!c->exited)
			kill(c->pid, SIGTERM);
		if (c->killed_at.tv_sec == 0 && c->killed_at.tv_nsec == 0)
			clock_gettime(CLOCK_MONOTONIC, &c->killed_at);
	}
}

static void close_pipes(struct child *c)
{
	for (int k = 0; k < 2; k++)
		if (c->fd[k] >= 0) {
			close(c->fd[k]);
			c->fd[k] = -1;
		}
}

/* Over the output cap (or out of memory for it): stop the tool, keep what was read. */
static void stop_over_cap(struct child *c, int k)
{
	c->killed_cap = true;
	kill_child(c);
	close(c->fd[k]);
	c->fd[k] = -1;
}

static void drain(struct child *c, int k, size_t cap)
{
	for (;;) {
		if (c->len[k] + 4096 + 1 > c->cap[k]) {
			size_t ncap = c->cap[k] ? c->cap[k] * 2 : 16384;
			if (ncap > cap + 4096 + 1)
				ncap = cap + 4096 + 1;
			char *n = ncap <= c->cap[k] || ncap < c->len[k] + 4096 + 1
					  ? NULL
					  : realloc(c->buf[k], ncap);
			if (!n) {
				stop_over_cap(c, k);
				return;
			}
			c->buf[k] = n;
			c->cap[k] = ncap;
		}
		ssize_t r = read(c->fd[k], c->buf[k] + c->len[k], 4096);
		if (r > 0) {
			c->len[k] += (size_t)r;
			if (c->len[k] > cap) {
				c->len[k] = cap;
				stop_over_cap(c, k);
				return;
			}
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		close(c->fd[k]);
		c->fd[k] = -1;
		return;
	}
}

/* Starts cmd (or replays it, alias the older argv of the same query, or says why it does not run:
 * then r is final and c stays reaped). */
static void start_one_as(struct hwc_env *e, struct hwc_arena *a, const struct hwc_cmd *cmd,
			 const char *const *alias, bool retry, struct hwc_cmd_result *r, struct child *c)
{
	memset(r, 0, sizeof(*r));
	r->out = r->err = "";
	if (c) {
		c->pid = -1;
		c->fd[0] = c->fd[1] = -1;
		c->reaped = true;
	}
	const char *const *argv = cmd->argv;
	if (!argv || !argv[0] || !*base_name(argv[0])) {
		/* an empty tool name ("" or "dir/") would replay hwcheck/commands/ itself */
		hwc_fmeta_set(&r->m, HWC_ST_INVALID, 0, "empty command");
		return;
	}
	const char *cs = hwc_argv_str(a, argv);
	if (hwc_env_no_tools(e)) {
		hwc_fmeta_set(&r->m, HWC_ST_BLOCKED, 0,
			      hwc_arena_printf(a, "%s: not run (--no-tools)", cs));
		record_not_run(e, a, argv, retry, skip_text(a, &r->m)); /* a capture says why */
		return;
	}
	if (hwc_env_mode(e) == HWC_RUN_REPLAY) {
		replay(e, a, argv, alias, retry, r);
		return;
	}
	if (!c) {
		hwc_fmeta_set(&r->m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
		return;
	}
	const char *path = find_tool(a, argv[0]);
	if (!path) {
		hwc_fmeta_set(&r->m, HWC_ST_ABSENT, 0,
			      hwc_arena_printf(a, "%s: not installed", base_name(argv[0])));
		record_not_run(e, a, argv, retry, "not_installed=1\n");
		return;
	}
	unsigned t = cmd->timeout_ms ? cmd->timeout_ms : hwc_env_cmd_timeout_ms(e);
	unsigned left = hwc_env_time_left_ms(e);
	if (left < t)
		t = left;
	if (t == 0) {
		hwc_fmeta_set(&r->m, HWC_ST_TIMEOUT, 0,
			      hwc_arena_printf(a, "%s: not run, the run's --timeout is spent", cs));
		record_not_run(e, a, argv, retry, "not_run=1\n");
		return;
	}
	int rc = spawn(path, (const char **)argv, c);
	if (rc < 0) {
		hwc_fmeta_set(&r->m, HWC_ST_UNREADABLE, -rc,
			      hwc_arena_printf(a, "%s: cannot start: %s", cs, strerror(-rc)));
		char why[32];
		snprintf(why, sizeof(why), "start_errno=%d\n", -rc);
		record_not_run(e, a, argv, retry, why);
		return;
	}
	c->reaped = false;
	live_add(c->pid);
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	c->deadline = c->start;
	c->deadline.tv_sec += t / 1000;
	c->deadline.tv_nsec += (long)(t % 1000) * 1000000L;
	if (c->deadline.tv_nsec >= 1000000000L) {
		c->deadline.tv_sec++;
		c->deadline.tv_nsec -= 1000000000L;
	}
}

static void start_one(struct hwc_env *e, struct hwc_arena *a, const struct hwc_cmd *cmd,
		      bool retry, struct hwc_cmd_result *r, struct child *c)
{
	start_one_as(e, a, cmd, NULL, retry, r, c);
}

/* One child at one turn of the poll loop: notes its exit, kills it at its deadline, closes what
 * it left holding the pipes, reaps it. false once it is done; else *wait is lowered to when it
 * next needs a look. */
static bool child_turn(struct child *c, const struct timespec *now, long long *wait)
{
	if (!c->exited) {
		int ws;
		pid_t w = waitpid(c->pid, &ws, WNOHANG);
		if (w == c->pid || (w < 0 && errno == ECHILD)) {
			c->exited = true;
			c->wstatus = w == c->pid ? ws : 0;
			c->exited_at = *now;
		}
	}
	long long left = ms_between(now, &c->deadline);
	if (left <= 0 && !c->killed_timeout && !c->killed_cap && !c->exited) {
		c->killed_timeout = true;
		kill_child(c);
		close_pipes(c);
	}
	if (c->exited && (c->fd[0] >= 0 || c->fd[1] >= 0) &&
	    (ms_between(&c->exited_at, now) >= EXIT_GRACE_MS || left <= 0)) {
		/* what it left behind still holds the pipes: stop it */
		kill(-c->pid, SIGKILL);
		close_pipes(c);
	}
	if (c->fd[0] < 0 && c->fd[1] < 0) {
		if (c->exited) {
			c->reaped = true;
			/* anything it forked that still holds the group goes too */
			kill(-c->pid, SIGKILL);
			live_del(c->pid);
			return false;
		}
		if ((c->killed_timeout || c->killed_cap) &&
		    ms_between(&c->killed_at, now) >= KILL_GRACE_MS) {
			/* SIGKILL did not end it: it is stuck in the kernel. Leave it (init reaps it
			 * once it returns) rather than wait with it. */
			c->abandoned = c->reaped = true;
			live_del(c->pid);
			return false;
		}
	}
	if (c->exited || c->killed_timeout || c->killed_cap)
		left = 10;
	if (left > 0 && left < *wait)
		*wait = left;
	return true;
}

/* Reads the output of the first n_wait children until each has exited or been stopped; the
 * others (started ahead, see hwc_run_start) are read and looked after meanwhile, so that none
 * blocks on a full pipe or outlives its deadline while hwcheck waits for something else. */
static void watch(struct child **ch, size_t n_wait, size_t n, size_t cap)
{
	struct pollfd *pfd = calloc(2 * (n ? n : 1), sizeof(*pfd));
	hwc_wait_begin();
	for (size_t i = 0; i < n_wait && !pfd; i++)
		ch[i]->deadline = ch[i]->start; /* cannot watch them: stop them, reported as timeouts */
	for (;;) {
		size_t np = 0;
		bool alive = false;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long wait = 1000;
		for (size_t i = 0; i < n; i++) {
			struct child *c = ch[i];
			if (c->reaped || !child_turn(c, &now, &wait))
				continue;
			alive = alive || i < n_wait;
			for (int k = 0; k < 2 && pfd; k++)
				if (c->fd[k] >= 0)
					pfd[np++] = (struct pollfd){.fd = c->fd[k], .events = POLLIN};
		}
		if (!alive)
			break;
		if (np == 0) {
			struct timespec ts = {0, 5 * 1000000L};
			nanosleep(&ts, NULL);
			continue;
		}
		poll(pfd, np, (int)(wait < 1 ? 1 : wait));
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 2; k++)
				if (!ch[i]->reaped && ch[i]->fd[k] >= 0)
					drain(ch[i], k, cap);
	}
	hwc_wait_end();
	free(pfd);
}

/* A finished child's result: its output copied into the arena (its buffers stay), its exit,
 * and the status that says how it ended. */
static void child_result(struct hwc_arena *a, const char *const *argv, struct child *c, size_t cap,
			 struct hwc_cmd_result *r)
{
	const char *cs = hwc_argv_str(a, argv);
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	r->elapsed_ms = (unsigned)ms_between(&c->start, c->exited ? &c->exited_at : &end);
	for (int k = 0; k < 2; k++) {
		char *s = hwc_arena_zalloc(a, c->len[k] + 1);
		if (s && c->len[k])
			memcpy(s, c->buf[k], c->len[k]);
		*(k == 0 ? &r->out : &r->err) = s ? s : "";
		*(k == 0 ? &r->out_len : &r->err_len) = s ? c->len[k] : 0;
	}
	if ((c->killed_timeout || c->killed_cap) && WIFEXITED(c->wstatus) &&
	    WEXITSTATUS(c->wstatus) == WARDEN_LEFT_BEHIND)
		c->abandoned = true; /* the warden could not end all of it */
	if (WIFEXITED(c->wstatus))
		r->exit_code = WEXITSTATUS(c->wstatus);
	else if (WIFSIGNALED(c->wstatus))
		r->signal = WTERMSIG(c->wstatus);
	if (c->killed_timeout) {
		r->signal = 0;
		hwc_fmeta_set(&r->m, HWC_ST_TIMEOUT, 0,
			      hwc_arena_printf(a, "%s: killed after %u ms without finishing%s", cs,
					       (unsigned)ms_between(&c->start, &c->deadline),
					       c->abandoned ? "; it did not exit after SIGKILL "
							      "(stuck in the kernel) and was left behind"
							    : ""));
	} else if (c->killed_cap) {
		hwc_fmeta_set(&r->m, HWC_ST_TRUNCATED, 0,
			      hwc_arena_printf(a, "%s: printed more than %zu bytes; stopped and cut",
					       cs, cap));
	} else if (r->exit_code == 127 && r->out_len == 0 && !r->signal) {
		hwc_fmeta_set(&r->m, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s: could not be executed", cs));
	} else {
		hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	}
}

/* A started child's result: its output into the arena, its exit, and the status that says how
 * it ended; then recorded. */
static void finish_one(struct hwc_env *e, struct hwc_arena *a, const struct hwc_cmd *cmd,
		       bool retry, struct child *c, size_t cap, struct hwc_cmd_result *r)
{
	child_result(a, cmd->argv, c, cap, r);
	for (int k = 0; k < 2; k++) {
		free(c->buf[k]);
		c->buf[k] = NULL;
	}
	record(e, a, cmd->argv, retry, r);
}

/* ------------------------------------------------------------------ started ahead */

/* A command started by hwc_run_start and not yet taken. Live: its child runs on. Replay: only
 * when it was asked for, so that a paced replay (HWCHECK_REPLAY_PACE) counts its time from then. */
struct started {
	struct hwc_env *e;
	char *key; /* its recording directory: the argv's identity */
	bool live;
	struct child c;
	struct timespec t0;
};
static struct started **started;
static size_t n_started, cap_started;

static bool paced(void)
{
	const char *v = secure_getenv("HWCHECK_REPLAY_PACE");
	return v && strcmp(v, "1") == 0;
}

static struct timespec ts_plus_ms(struct timespec t, unsigned ms)
{
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* The entry started for argv (its index in *at), or NULL. */
static struct started *find_started(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
				    size_t *at)
{
	if (!n_started || !argv || !argv[0])
		return NULL;
	const char *key = hwc_run_record_dir(a, argv);
	for (size_t i = 0; key && i < n_started; i++)
		if (started[i]->e == e && strcmp(started[i]->key, key) == 0) {
			*at = i;
			return started[i];
		}
	return NULL;
}

/* Takes (unlinks) the entry started for argv, or NULL. */
static struct started *take_started(struct hwc_env *e, struct hwc_arena *a, const char *const *argv)
{
	size_t i;
	struct started *s = find_started(e, a, argv, &i);
	if (s)
		started[i] = started[--n_started];
	return s;
}

static void free_started(struct started *s)
{
	if (!s)
		return;
	if (s->live) {
		free(s->c.buf[0]);
		free(s->c.buf[1]);
	}
	free(s->key);
	free(s);
}

/* The children of the entries of other commands still running, for watch(). */
static size_t pending_children(struct child **out, size_t max, const struct started *except)
{
	size_t k = 0;
	for (size_t i = 0; i < n_started && k < max; i++)
		if (started[i] != except && started[i]->live && !started[i]->c.reaped)
			out[k++] = &started[i]->c;
	return k;
}

void hwc_run_start(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds)
{
	bool replaying = hwc_env_mode(e) == HWC_RUN_REPLAY;
	if (hwc_env_no_tools(e) || (replaying && !paced()))
		return; /* nothing to win: the command answers at once when asked */
	for (size_t i = 0; i < n; i++) {
		const char *key = cmds[i].argv && cmds[i].argv[0] ? hwc_run_record_dir(a, cmds[i].argv) : NULL;
		if (!key)
			continue;
		if (n_started == cap_started) {
			size_t nc = cap_started ? cap_started * 2 : 32;
			struct started **ns = realloc(started, nc * sizeof(*ns));
			if (!ns)
				return;
			started = ns;
			cap_started = nc;
		}
		struct started *s = calloc(1, sizeof(*s));
		if (!s || !(s->key = strdup(key))) {
			free(s);
			return;
		}
		s->e = e;
		clock_gettime(CLOCK_MONOTONIC, &s->t0);
		if (!replaying) {
			struct hwc_cmd_result r;
			start_one(e, a, &cmds[i], false, &r, &s->c);
			s->live = !s->c.reaped;
			if (!s->live) { /* absent, blocked...: it says so again when asked */
				free_started(s);
				continue;
			}
		}
		started[n_started++] = s;
	}
}

void hwc_run_drop_started(struct hwc_env *e)
{
	struct child **kill = calloc(n_started ? n_started : 1, sizeof(*kill));
	size_t k = 0;
	for (size_t i = 0; kill && i < n_started; i++)
		if (started[i]->e == e && started[i]->live && !started[i]->c.reaped) {
			started[i]->c.killed_timeout = true; /* the grace for one stuck in the kernel */
			kill_child(&started[i]->c);
			close_pipes(&started[i]->c);
			kill[k++] = &started[i]->c;
		}
	if (k)
		watch(kill, k, k, 0);
	free(kill);
	size_t kept = 0;
	for (size_t i = 0; i < n_started; i++) {
		if (started[i]->e == e)
			free_started(started[i]);
		else
			started[kept++] = started[i];
	}
	n_started = kept;
	if (!n_started) {
		free(started);
		started = NULL;
		cap_started = 0;
	}
}

/* How long a paced replay of cmd waits: its recorded time, never past its timeout or the run's
 * --timeout (a recording cannot make hwcheck hang). */
static unsigned pace_ms(struct hwc_env *e, const struct hwc_cmd *cmd, unsigned elapsed_ms)
{
	unsigned t = cmd->timeout_ms ? cmd->timeout_ms : hwc_env_cmd_timeout_ms(e);
	unsigned left = hwc_env_time_left_ms(e);
	if (left < t)
		t = left;
	return elapsed_ms < t ? elapsed_ms : t;
}

/* Sleeps until t (a paced replay: the recorded tools take their recorded time). */
static void sleep_until(const struct timespec *t)
{
	hwc_wait_begin();
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
	hwc_wait_end();
}

int hwc_run_peek(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
		 struct hwc_cmd_result *res)
{
	size_t at;
	struct started *s = find_started(e, a, argv, &at);
	if (!s)
		return -ENOENT;
	size_t cap = hwc_env_cmd_output_cap(e);
	memset(res, 0, sizeof(*res));
	res->out = res->err = "";
	if (!s->live) { /* a paced replay: the recording, once its time has passed */
		struct hwc_cmd c = {argv, 0};
		struct child none;
		start_one(e, a, &c, false, res, &none);
		struct timespec end = ts_plus_ms(s->t0, pace_ms(e, &c, res->elapsed_ms));
		sleep_until(&end);
		return 0;
	}
	if (!s->c.reaped) {
		struct child **w = calloc(n_started + 1, sizeof(*w));
		if (!w)
			return -ENOMEM;
		w[0] = &s->c;
		watch(w, 1, 1 + pending_children(w + 1, n_started, s), cap);
		free(w);
	}
	child_result(a, argv, &s->c, cap, res);
	return 0;
}

static void run_many(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		     const char *const *const *alias, bool retry, struct hwc_cmd_result *res)
{
	struct child *ch = calloc(n ? n : 1, sizeof(*ch));
	struct child **w = calloc(n + n_started + 1, sizeof(*w));
	struct started **taken = calloc(n ? n : 1, sizeof(*taken));
	size_t cap = hwc_env_cmd_output_cap(e);
	bool pace = paced() && hwc_env_mode(e) == HWC_RUN_REPLAY;
	struct timespec t0, done;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	done = t0;
	for (size_t i = 0; i < n; i++) {
		taken[i] = taken && !retry ? take_started(e, a, cmds[i].argv) : NULL;
		if (taken[i] && taken[i]->live) {
			memset(&res[i], 0, sizeof(res[i]));
			if (w)
				w[i] = &taken[i]->c;
			continue;
		}
		start_one_as(e, a, &cmds[i], alias ? alias[i] : NULL, retry, &res[i], ch ? &ch[i] : NULL);
		if (w)
			w[i] = ch ? &ch[i] : NULL;
		if (pace && res[i].m.st != HWC_ST_BLOCKED && res[i].m.st != HWC_ST_INVALID) {
			struct timespec end = ts_plus_ms(taken[i] ? taken[i]->t0 : t0,
							 pace_ms(e, &cmds[i], res[i].elapsed_ms));
			if (ms_between(&done, &end) > 0)
				done = end;
		}
	}
	if (ch && w) {
		size_t nw = 0;
		for (size_t i = 0; i < n; i++)
			if (!w[i]->reaped)
				w[nw++] = w[i];
		watch(w, nw, nw + pending_children(w + nw, n_started, NULL), cap);
		for (size_t i = 0; i < n; i++) {
			struct child *c = taken[i] && taken[i]->live ? &taken[i]->c : &ch[i];
			if (c->pid >= 0)
				finish_one(e, a, &cmds[i], retry, c, cap, &res[i]);
		}
	}
	for (size_t i = 0; taken && i < n; i++)
		free_started(taken[i]);
	if (pace)
		sleep_until(&done);
	free(taken);
	free(w);
	free(ch);
}

void hwc_run_many(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		  struct hwc_cmd_result *res)
{
	run_many(e, a, n, cmds, NULL, false, res);
}

void hwc_run_many_as(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		     const char *const *const *alias, struct hwc_cmd_result *res)
{
	run_many(e, a, n, cmds, alias, false, res);
}

void hwc_run_again(struct hwc_env *e, struct hwc_arena *a, const struct hwc_cmd *cmd,
		   struct hwc_cmd_result *res)
{
	run_many(e, a, 1, cmd, NULL, true, res);
}

int hwc_run(struct hwc_env *e, struct hwc_arena *a, const char *const *argv, unsigned timeout_ms,
	    struct hwc_cmd_result *res)
{
	struct hwc_cmd c = {argv, timeout_ms};
	hwc_run_many(e, a, 1, &c, res);
	switch (res->m.st) {
	case HWC_ST_OK:
		return res->signal ? -EINTR : (res->exit_code == 0 ? 0 : -ECHILD);
	case HWC_ST_ABSENT: return -ENOENT;
	case HWC_ST_TIMEOUT: return -ETIMEDOUT;
	case HWC_ST_TRUNCATED: return -EFBIG;
	case HWC_ST_BLOCKED: /* fall through */
	case HWC_ST_NEEDS_ROOT: return -EPERM;
	default: return -EIO;
	}
}

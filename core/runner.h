/* SPDX-License-Identifier: MIT */
/* The only way hwcheck runs an external tool: argv (no shell), a timeout, an output cap, the exit
 * status kept; recorded in capture mode and replayed from <root>/hwcheck/commands/ in tests. */
#ifndef HWC_CORE_RUNNER_H
#define HWC_CORE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/env.h"
#include "core/fact.h"

struct hwc_cmd_result {
	/* ok: the tool ran and exited (look at exit_code); absent: not installed, or (replay) not in
	 * the capture;
	 * timeout: killed at its deadline; truncated: output over the cap (killed);
	 * blocked: --no-tools; unreadable: exec failed (err). detail names the command. */
	struct hwc_fmeta m;
	int exit_code;   /* valid when m.st is ok or truncated and signal == 0 */
	int signal;      /* the signal that ended it, 0 if it exited */
	const char *out; /* NUL-terminated, arena */
	size_t out_len;
	const char *err;
	size_t err_len;
	unsigned elapsed_ms;
	bool aliased;    /* replay: the older argv's recording answered (hwc_run_many_as) */
	/* replay: the capture holds no recording of the command (m.st absent, "mstconfig: not in
	 * this capture", or "... not run (not in the --pci-dump file)"): no answer at all, which a
	 * caller tells from a recorded one by this, never by the detail's words */
	bool not_recorded;
};

struct hwc_cmd {
	const char *const *argv; /* NULL-terminated; argv[0] a tool name or absolute path */
	unsigned timeout_ms;     /* 0 = the env's default */
};

/* Runs one command. Returns 0 when it ran and exited 0, else a negative errno-like value; the
 * result says what happened in every case. */
int hwc_run(struct hwc_env *e, struct hwc_arena *a, const char *const *argv, unsigned timeout_ms,
	    struct hwc_cmd_result *res);

/* Runs n commands at once (parallel across cards), each with its own deadline. */
void hwc_run_many(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		  struct hwc_cmd_result *res);

/* hwc_run_many with, per command, the argv an older hwcheck ran for the same query (alias[i], or
 * NULL): replayed from a capture that lacks cmds[i]'s own recording, that older recording answers
 * (an option added later that only bounds the tool's own time, such as infiniband-diags' -t,
 * keeps old captures replayable). Recorded always under cmds[i].argv. */
void hwc_run_many_as(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		     const char *const *const *alias, struct hwc_cmd_result *res);

/* The second run of a command already run (a tool that lost a semaphore race, re-run alone):
 * recorded in, and replayed from, <key>/retry/ beside the first answer at <key>/; a recording
 * without retry/ answers the retry as it answered the first run. Never takes a command started
 * ahead. */
void hwc_run_again(struct hwc_env *e, struct hwc_arena *a, const struct hwc_cmd *cmd,
		   struct hwc_cmd_result *res);

/* Starts n commands now and returns at once: a later hwc_run/hwc_run_many of the same argv
 * takes its result (waiting only for what is still running), and records it then. So the tools of
 * every port, and each card's mstflint tools, run at once. Where it wins
 * nothing (--no-tools, a replay not paced by HWCHECK_REPLAY_PACE=1) it does nothing. */
void hwc_run_start(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds);

/* The result of a command started ahead, waiting for it to end if need be, without taking it:
 * the later hwc_run of the same argv still gets (and records) it. For a caller that decides from
 * one answer what else to start ahead. -ENOENT when nothing was started for argv. */
int hwc_run_peek(struct hwc_env *e, struct hwc_arena *a, const char *const *argv,
		 struct hwc_cmd_result *res);

/* Ends what was started for e and never asked for; it is not recorded. */
void hwc_run_drop_started(struct hwc_env *e);

/* Kills the process group of every tool still running. Async-signal-safe: for a watchdog that
 * ends the run (cli/), so no tool outlives hwcheck. */
void hwc_run_kill_all(void);

/* The recording directory of an argv, relative to the root: "hwcheck/commands/<key>" (a retry's:
 * "<key>/retry", hwc_run_again).
 * The key is argv with argv[0] reduced to its basename, joined by spaces, with '%' '/' and
 * control characters percent-encoded; keys over 200 bytes end in '#' and a 64-bit hash. */
const char *hwc_run_record_dir(struct hwc_arena *a, const char *const *argv);

/* What a recording's DIR/result says ("exit=1\ntimeout=0\n..." lines); a key it lacks, or one
 * whose value is not an integer (of int range for the codes), is left as the caller set it. */
struct hwc_run_recorded {
	int exit_code, signal, errnum; /* "exit", "signal", "errno" */
	bool timeout, truncated;       /* "timeout", "truncated": not 0 */
	unsigned elapsed_ms;           /* "elapsed_ms" */
	/* Why it never ran on the captured machine: "not_installed" (not 0: the tool was not
	 * found), "start_errno" (found, but fork/exec failed with this errno), "not_run" (not 0:
	 * the run's --timeout was spent before it started). */
	bool not_installed, not_run;
	int start_errno;
	/* Not run on purpose: "skipped" (a status name other than ok and truncated: "blocked" under
	 * --no-tools, "needs_root"), in the words of "reason" (the rest of its line); HWC_ST_UNSET:
	 * no skip. */
	enum hwc_status skipped;
	const char *reason;
};
void hwc_run_read_recorded(struct hwc_env *e, struct hwc_arena *a, const char *dir,
			   struct hwc_run_recorded *r);

/* Tools a collector chose not to run (the mstflint tools as non-root): the live run's status and
 * reason, named (`name`: a plain word, "mstflint"), are recorded at hwcheck/skipped/<name>
 * ("skipped=<status>\nreason=<detail>\n"), so that a replay of the capture can say the same:
 * hwc_run_skip_noted is true there, with why. Nothing is recorded for an ok why; a replay of a
 * capture without the file answers false (as before). */
void hwc_run_skip_note(struct hwc_env *e, struct hwc_arena *a, const char *name,
		       const struct hwc_fmeta *why);
bool hwc_run_skip_noted(struct hwc_env *e, struct hwc_arena *a, const char *name,
			struct hwc_fmeta *why);

/* "mstconfig -d 0000:3b:00.0 q" for messages. */
const char *hwc_argv_str(struct hwc_arena *a, const char *const *argv);

#endif

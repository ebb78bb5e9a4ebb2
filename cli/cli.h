/* SPDX-License-Identifier: MIT */
/* The command line: parsed options shared by every command, exit codes, and the commands. */
#ifndef HWC_CLI_H
#define HWC_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/env.h"
#include "core/facts.h"
#include "rules/rules.h"

enum hwc_exit {
	HWC_EXIT_OK = 0,        /* nothing at or above --fail-on */
	HWC_EXIT_FINDINGS = 1,  /* findings at or above --fail-on */
	HWC_EXIT_USAGE = 2,     /* bad command line or bad input file */
	HWC_EXIT_NOTHING = 3,   /* nothing could be collected */
	HWC_EXIT_INTERNAL = 4,  /* a bug or out of memory */
};

struct hwc_cli {
	const char *prog;
	const char *command;   /* "check" by default */
	char **args;           /* operands after the command */
	int nargs;
	char **argv_all;
	int argc_all;
	bool json, color, verbose, summary_line, no_tools, exec_tools;
	bool serial_tools; /* --serial-tools: one card's mstflint tools one after the other */
	const char *root, *facts_file, *profile, *output, *device, *pci_dump, *prom;
	const char *exit_codes; /* "default", "nagios", "npd" */
	int fail_on;           /* severity; default warn */
	unsigned timeout_s, cmd_timeout_s;
	unsigned watch_s; /* --watch SEC: the port counters sampled twice, SEC apart; 0 = no */
	bool redact;
	const char *temp_noise, *probe_tolerance; /* diff thresholds (cli/cmd_diff.c parses them) */
	const char *fw_image; /* --fw-image FILE: mstflint -i FILE query, checked against the cards */
	const struct hwc_probe_opts *probe; /* probe / --probe (cli/cmd_probe.c); NULL = no probe */
	bool exit_mapped;      /* the command returned a code already in --exit-codes' convention */
	const struct hwc_profile *prof; /* check: the profile loaded (which rules run) */
};

/* The run's verdict and counts (cli/summary.c): findings that are not waived, by severity. */
struct hwc_summary {
	enum hwc_verdict verdict;
	size_t counts[4];        /* by enum hwc_severity */
	size_t required_unknown; /* unknown findings of a rule or fact the profile requires */
	bool nothing;            /* nothing could be collected: verdict incomplete */
};
/* A finding of severity sev fails --fail-on fail_on (order info < unknown < warn < error). */
bool hwc_fail_on_hit(int fail_on, int sev);
void hwc_summary_compute(const struct hwc_findings *fd, bool nothing, struct hwc_summary *s);
/* {"verdict", "counts": {error, warn, info, unknown}, "unknown": [{rule, subject, reason}]};
 * nothing_why is the reason given when nothing is known (hwc_cli_nothing_why). */
json_t *hwc_summary_json(const struct hwc_summary *s, const struct hwc_findings *fd,
			 const char *nothing_why);
/* The exit code in the convention asked for (--exit-codes), with --fail-on and required rules. */
int hwc_summary_exit(const struct hwc_cli *c, const struct hwc_summary *s);
/* The status word of the summary line: OK INCOMPLETE WARN ERROR (UNKNOWN when nothing was
 * collected); Nagios: OK WARNING CRITICAL UNKNOWN, matching its exit code. */
const char *hwc_summary_word(const struct hwc_cli *c, const struct hwc_summary *s);
/* Why an unknown finding could not decide, in one line (into buf). */
const char *hwc_unknown_reason(const struct hwc_finding *x, char *buf, size_t n);
/* The same without the fact path: the status and detail its first evidence quotes ("absent:
 * mstconfig: not in this capture"). */
const char *hwc_unknown_cause(const struct hwc_finding *x, char *buf, size_t n);

/* The per-card view (cli/cards.c): for every ConnectX card one object with its identity, PCIe
 * (width, speeds, bottleneck, slot power), temperature_degc, ports and its checked lines. */
json_t *hwc_cards_json(const json_t *facts, const struct hwc_findings *fd,
		       const struct hwc_profile *prof);
void hwc_render_cards_text(FILE *out, const struct hwc_cli *c, const json_t *cards);
/* Prints text after `col` columns already written, wrapped at 100 columns, continuation lines
 * indented by `indent`; ends the line. */
void hwc_wrap_print(FILE *out, int col, int indent, const char *text);

/* Installs the run's last-resort bounds (cli/guard.c): SIGINT/SIGTERM/SIGHUP kill the running
 * tools and remove temporary outputs before dying; a watchdog ends the run with exit_code (and
 * one line on stderr) HWC_WATCHDOG_GRACE_S seconds after --timeout (timeout_s), or after
 * HWC_WATCHDOG_DEFAULT_S without one, should a read block where no deadline reaches. */
/* A count's noun: one when n is 1, else many ("1 file", "2 files", "1 directory"). */
static inline const char *hwc_cli_noun(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#define HWC_WATCHDOG_GRACE_S 2u
#define HWC_WATCHDOG_DEFAULT_S 3600u
void hwc_cli_guard(unsigned timeout_s, int exit_code);
/* Without --timeout, the watchdog waits s seconds longer (the --watch wait is not a hang). */
void hwc_cli_guard_extend(unsigned s);

/* Replaces stdout and stderr by streams that let colour sequences, newlines and tabs through and
 * print every other control byte (escape sequences from hostile data) as '?' (cli/guard.c). */
void hwc_cli_safe_streams(void);
/* Flushes stdout; 0, or the errno of a write that failed (a full disk, a closed pipe). */
int hwc_cli_stdout_errno(void);

/* One line "hwcheck: <what>: <why>" on stderr. */
void hwc_cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Opens the env the options ask for (recording into `record` when not NULL); prints the error and
 * returns an exit code on failure. */
int hwc_cli_env(const struct hwc_cli *c, struct hwc_capture_sink *record, struct hwc_env **out);
/* --pci-dump, when given, names a readable file; says why not (the caller exits 2). */
bool hwc_cli_pci_dump_ok(const struct hwc_cli *c);
/* Collects live (or under --root), or loads --facts; never NULL unless out of memory.
 * *exit_code is set non-zero when the input itself was unusable. */
struct hwc_facts *hwc_cli_facts(const struct hwc_cli *c, int *exit_code);
/* No argument after the command (cmd names it in the error); false after the error was printed. */
bool hwc_cli_no_args(const struct hwc_cli *c, const char *cmd);
/* "nothing could be collected under <--facts file or root>" on stderr. */
void hwc_cli_err_nothing(const struct hwc_cli *c);
/* The reason a run with no known fact gives (the --facts file, or the root), in buf. */
const char *hwc_cli_nothing_why(const struct hwc_cli *c, char *buf, size_t n);
/* What a command that judges the facts starts from. */
struct hwc_cli_run {
	struct hwc_profile *prof; /* --profile or the default; NULL unless asked for */
	struct hwc_facts *f;      /* collected, or loaded from --facts */
	json_t *facts;            /* f as JSON, what rules and renderers read */
	bool nothing;             /* not one fact known: no rule may run on it */
};
/* A command's opening: rejects extra arguments, loads the profile (with_profile), the facts
 * (hwc_cli_facts) and converts them. 0, or the exit code after the error was printed (then
 * nothing is held). hwc_cli_end releases it all. */
int hwc_cli_begin(const struct hwc_cli *c, const char *cmd, bool with_profile,
		  struct hwc_cli_run *r);
void hwc_cli_end(struct hwc_cli_run *r);

/* {"schema":..,"schema_version":..,"tool":..,"run":..,"facts":..,"findings"?:..,"errors":..} */
json_t *hwc_report_json(const struct hwc_cli *c, const char *schema, const struct hwc_facts *f,
			json_t *facts_json, const struct hwc_findings *fd);
void hwc_render_facts_text(FILE *out, const struct hwc_cli *c, const json_t *facts);
void hwc_render_check_text(FILE *out, const struct hwc_cli *c, const json_t *facts,
			   const struct hwc_findings *fd, const struct hwc_facts *f);
void hwc_render_errors(const struct hwc_facts *f);
/* Writes JSON to --output or stdout (atomically for a file). */
int hwc_emit_json(const struct hwc_cli *c, const json_t *j);

/* Input documents (cli/input.c). A facts or report file larger than this is refused before it
 * is read: jansson holds about five times the text in memory. */
#define HWC_MAX_DOC_MIB 128
#define HWC_MAX_DOC_MIB_S "128"
/* The whole file, NUL-terminated, at most max bytes (-EFBIG beyond). 0 or -errno. */
int hwc_cli_read_input(const char *path, size_t max, char **buf, size_t *len);
/* Why hwc_cli_read_input failed, in words. */
const char *hwc_cli_input_strerror(int rc);
/* A facts or report document from its text: a UTF-8 BOM is skipped, UTF-16/32 refused, syntax
 * errors at LINE:COL, the envelope and schema version checked. Prints why not; NULL then. */
json_t *hwc_cli_parse_doc(const char *buf, size_t len, const char *what);
/* Whether text looks like a JSON document (maybe behind a byte-order mark, maybe UTF-16) rather
 * than a tar. */
bool hwc_cli_json_like(const char *buf, size_t len);

int hwc_cmd_check(struct hwc_cli *c);
int hwc_cmd_facts(struct hwc_cli *c);
int hwc_cmd_snapshot(struct hwc_cli *c);
int hwc_cmd_rules(struct hwc_cli *c);
int hwc_cmd_version(struct hwc_cli *c);
int hwc_cmd_list(struct hwc_cli *c); /* cli/cmd_list.c */
int hwc_cmd_probe(struct hwc_cli *c); /* cli/cmd_probe.c */
/* The probe's long options, numbered from 0 (main.c adds its base); cli/cmd_probe.c parses. */
enum hwc_probe_cli_opt {
	HWC_POPT_PROBE, HWC_POPT_OP, HWC_POPT_SIZE, HWC_POPT_QPS, HWC_POPT_DEPTH,
	HWC_POPT_DURATION, HWC_POPT_SERVER, HWC_POPT_CLIENT, HWC_POPT_PORT, HWC_POPT_GID,
	HWC_POPT_SOURCE, HWC_POPT_TCP, HWC_POPT_STREAMS, HWC_POPT_ALL_PORTS,
	HWC_POPT__COUNT
};
/* Returns 0, or -1 after printing what was wrong with the argument. */
int hwc_cli_probe_opt(struct hwc_cli *c, int which, const char *arg);
int hwc_cmd_diff(struct hwc_cli *c);  /* cli/cmd_diff.c */
int hwc_cmd_merge(struct hwc_cli *c); /* cli/cmd_merge.c */
int hwc_cmd_fwplan(struct hwc_cli *c); /* cli/cmd_fwplan.c */
/* merge: the RoCE keys every port should share, with each value's ports (cli/merge_roce.c). */
json_t *hwc_merge_roce(json_t *const *docs, const char *const *hosts, size_t n);
void hwc_merge_roce_text(FILE *out, const json_t *roce);
/* --prom FILE after a check (cli/prom.c); fd NULL: nothing could be collected (hwcheck_up 0, no
 * counts). prof gives the thresholds exported beside the values (NULL: none). Returns 0 or an
 * exit code. */
int hwc_prom_write(const struct hwc_cli *c, const json_t *facts, const struct hwc_findings *fd,
		   const struct hwc_profile *prof);

#endif

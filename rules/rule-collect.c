/* SPDX-License-Identifier: MIT */
/* Collection rules: say which collectors could not read what, and why (not root, a tool
 * missing, kernel lockdown, timeouts), so a clean report on a half-read machine never looks
 * like a clean machine. */
#include <string.h>

#include "rules/rules-int.h"

struct tally {
	const char *status;
	bool restricted; /* "blocked" by hwcheck itself on a restricted function, not by the kernel */
	size_t n;
	const char *example, *detail;
};

/* A fact hwcheck did not read on purpose: a restricted function (mlx/port_counters.c), whose
 * InfiniBand counters and MADs make the firmware fail register accesses that the kernel logs. */
static bool restricted_fn(const char *detail)
{
	return detail && strstr(detail, "restricted function");
}

static const char *const watched[] = {"needs_root", "blocked", "timeout", "unreadable", NULL};

/* skip: the tool gate's detail, whose facts its own finding already names (once, not twice) */
static void scan(const json_t *v, const char *path, struct tally *t, struct hwc_arena *a, bool tools,
		 const char *skip)
{
	if (json_is_object(v)) {
		const json_t *un = hwc_q_get(v, "unavailable");
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)un, k, x) {
			const char *st = hwc_q_string(x, "status"), *det = hwc_q_string(x, "detail");
			if (!st || (skip && det && !strcmp(det, skip)))
				continue;
			for (int i = 0; t[i].status; i++) {
				/* a missing tool shows up as "absent" on the tool's own facts */
				bool match = !strcmp(st, t[i].status) && (tools || strcmp(st, "absent") != 0) &&
					     restricted_fn(det) == t[i].restricted;
				if (!match)
					continue;
				if (!t[i].n++) {
					t[i].example = hwc_arena_printf(a, "%s.%s", path, k);
					t[i].detail = hwc_q_string(x, "detail");
				}
			}
		}
		json_object_foreach((json_t *)v, k, x) {
			if (!strcmp(k, "unavailable"))
				continue;
			scan(x, hwc_arena_printf(a, "%s.%s", path, k), t, a, tools || !strcmp(k, "tools"), skip);
		}
	} else if (json_is_array(v)) {
		size_t i;
		const json_t *e;
		json_array_foreach(v, i, e) {
			const char *k = json_is_object(e) ? hwc_q_elem_key(e, a) : NULL;
			scan(e, k ? hwc_arena_printf(a, "%s[%s]", path, k) : hwc_arena_printf(a, "%s[%zu]", path, i), t, a, tools, skip);
		}
	}
}

/* A tool result or file that the input does not hold (--pci-dump given alone): the runner and
 * the root say "not in <input>". */
static bool not_in_input(const char *detail)
{
	return detail && strstr(detail, "not in the --pci-dump file");
}

/* A command a replayed capture has no recording of (core/runner.c): whether the tool is installed
 * on the captured machine is not known. */
static bool not_in_capture(const char *detail)
{
	return detail && strstr(detail, ": not in this capture");
}

static const char *reason(const char *st, bool one, const char *detail)
{
	if (!strcmp(st, "absent") && not_in_input(detail))
		return one ? "is not in the input" : "are not in the input";
	if (!strcmp(st, "absent") && not_in_capture(detail))
		return one ? "is missing because a tool's output is not in this capture"
			   : "are missing because a tool's output is not in this capture";
	if (!strcmp(st, "needs_root"))
		return one ? "needs root" : "need root";
	if (!strcmp(st, "blocked") && restricted_fn(detail))
		return one ? "is not read on purpose (a restricted function)" : "are not read on purpose (a restricted function)";
	if (!strcmp(st, "blocked"))
		return one ? "is blocked (kernel lockdown or a security policy)" : "are blocked (kernel lockdown or a security policy)";
	if (!strcmp(st, "timeout"))
		return "timed out";
	if (!strcmp(st, "absent"))
		return one ? "is missing because a tool is not installed" : "are missing because a tool is not installed";
	return "could not be read";
}

/* Facts read from a capture (host.read_from): what needs root there was not read when the
 * capture was taken, and running this hwcheck as root changes nothing. */
static const char *root_fix(struct hwc_rule_ctx *c)
{
	const char *from = hwc_q_string(hwc_q_get(c->facts, "host"), "read_from");
	if (!from || strcmp(from, "capture") != 0)
		return NULL;
	return "This capture was taken without root: capture the machine again as root (`sudo hwcheck "
	       "snapshot -o host.tar`) and read the new capture with --root, or run `sudo hwcheck` on "
	       "the machine.";
}

/* The Debian package of a tool the runner found not installed ("mstconfig: not installed"). */
static const char *tool_package(struct hwc_arena *a, const char *detail)
{
	static const char *const pkg[][2] = {
		{"mst", "mstflint"}, {"ethtool", "ethtool"}, {"lldpcli", "lldpd"}, {"smpquery", "infiniband-diags"},
		{"perfquery", "infiniband-diags"}, {"ibnetdiscover", "infiniband-diags"}, {"dcb", "iproute2"},
		{"dmesg", "util-linux"}, {"lspci", "pciutils"},
	};
	size_t n = detail ? strcspn(detail, ":") : 0;
	for (size_t i = 0; n && i < sizeof(pkg) / sizeof(pkg[0]); i++)
		if (!strncmp(detail, pkg[i][0], strlen(pkg[i][0])))
			return hwc_arena_printf(a, "Install %.*s (`apt install %s`) and run hwcheck again.", (int)n, detail, pkg[i][1]);
	return n ? hwc_arena_printf(a, "Install %.*s and run hwcheck again.", (int)n, detail) : NULL;
}

/* The fix for one cause, from its status and detail: each cause its own (a kernel log closed by
 * dmesg_restrict wants root, not mstflint); NULL leaves the rule's text. */
static const char *cause_fix(struct hwc_rule_ctx *c, const char *st, const char *detail, const char *rfix)
{
	if (!strcmp(st, "absent") && not_in_input(detail))
		return "Judge the whole machine: run hwcheck on it, or capture it with `hwcheck snapshot -o host.tar` and read the untarred capture with --root.";
	if (!strcmp(st, "needs_root") && rfix)
		return rfix;
	if (!strcmp(st, "needs_root") && detail && strstr(detail, "dmesg_restrict"))
		return "The kernel log is closed to users other than root (kernel.dmesg_restrict = 1): run hwcheck as root (`sudo hwcheck`).";
	if (!strcmp(st, "needs_root"))
		return "Run hwcheck as root (`sudo hwcheck`).";
	if (!strcmp(st, "absent") && not_in_capture(detail))
		return "The capture has no recording of this tool: run hwcheck on the machine, or capture it again with `hwcheck snapshot` (which records every tool it runs, and a tool that is not installed as not installed).";
	if (!strcmp(st, "absent"))
		return tool_package(c->a, detail);
	if (!strcmp(st, "blocked") && detail && strstr(detail, "--no-tools"))
		return "This run was told not to start external tools (--no-tools): run hwcheck without it.";
	if (!strcmp(st, "blocked") && restricted_fn(detail))
		return "Nothing to change on this host: hwcheck leaves a restricted function's InfiniBand counters and "
		       "subnet queries unread on purpose (an internal port of a DGX/GB200-class system: each read makes "
		       "the firmware fail a register access that the kernel logs; the detail names the evidence), so "
		       "these facts stay unknown. Judge that link from its far end: read the error counters of the "
		       "switch port it is cabled to, on the switch itself or with infiniband-diags' perfquery from "
		       "another host of the fabric.";
	if (!strcmp(st, "blocked"))
		return "The kernel refuses this read even to root (kernel lockdown or a security module's policy): the facts stay unknown while the policy stands; the detail names the source.";
	if (!strcmp(st, "timeout"))
		return "The tool did not answer in time: give it longer (`--cmd-timeout SEC`), or find why it hangs (a busy or wedged device).";
	return NULL;
}

static void eval_incomplete(struct hwc_rule_ctx *c)
{
	static const char *const sections[] = {"host", "pci", "mlx", "netdevs", "thermal", NULL};
	const char *rfix = root_fix(c); /* a capture's facts that need root: capture again as root */
	for (int s = 0; sections[s]; s++) {
		const json_t *sec = hwc_q_get(c->facts, sections[s]);
		if (!sec) {
			struct hwc_finding *fd = hwc_rule_emit(c, "host", "the %s section was not collected: rules that need it say unknown", sections[s]);
			hwc_evidence_add(fd, c->a, sections[s], NULL, "collected");
			continue;
		}
		/* the tool probe says in one word why a whole family of facts is missing */
		const json_t *tools = hwc_q_get(sec, "tools"), *ads = hwc_q_get(sec, "adapters");
		const char *tst = hwc_q_string(tools, "status");
		bool tools_failed = tst && strcmp(tst, "ok") != 0;
		const char *skip = tools_failed ? hwc_q_string(tools, "detail") : NULL;
		/* no card: no firmware to read, whether or not the tools could run */
		bool no_card = json_is_array(ads) && json_array_size(ads) == 0;
		if (tools_failed && !no_card) {
			struct hwc_finding *fd = hwc_rule_emit(c, "host", "%s: the firmware tools could not run (%s): firmware configuration and registers are unknown",
							       sections[s], tst);
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.tools.status", sections[s]), tst, "ok");
			const char *fix = fd ? cause_fix(c, tst, skip, rfix) : NULL;
			if (fix)
				fd->fix = fix;
		}
		struct tally t[7] = {{0}};
		int n = 0;
		for (; watched[n]; n++)
			t[n].status = watched[n];
		t[n].status = "blocked"; /* a restricted function's, apart from the kernel's refusals */
		t[n++].restricted = true;
		t[n++].status = "absent"; /* only counted under tools */
		scan(sec, sections[s], t, c->a, false, skip);
		for (int i = 0; i < n; i++) {
			if (!t[i].n)
				continue;
			struct hwc_finding *fd = hwc_rule_emit(c, "host", "%s: %zu fact%s %s, e.g. %s%s%s", sections[s], t[i].n,
							       t[i].n == 1 ? "" : "s", reason(t[i].status, t[i].n == 1, t[i].detail), t[i].example,
							       t[i].detail ? ": " : "", t[i].detail ? t[i].detail : "");
			hwc_evidence_add(fd, c->a, t[i].example, hwc_arena_printf(c->a, "unknown (%s)", t[i].status), "collected");
			const char *fix = fd ? cause_fix(c, t[i].status, t[i].detail, rfix) : NULL;
			if (fix)
				fd->fix = fix;
		}
	}
}

const struct hwc_rule hwc_rules_collect[] = {
	{"COLLECT_INCOMPLETE", HWC_SEV_INFO, "collect", "A collector could not read everything",
	 "Some facts could not be collected (not root, a tool missing, kernel lockdown, a timeout). "
	 "Rules that need them report `unknown` rather than pass; this finding says why, so a clean "
	 "report from a half-read machine is never mistaken for a clean machine.",
	 "Each finding's fix follows its cause: not root: `sudo hwcheck` (the kernel log too, where "
	 "kernel.dmesg_restrict closes it); a tool not installed: install it (`apt install mstflint`, "
	 "ethtool, infiniband-diags, lldpd); a capture without a tool's output: capture again; "
	 "--no-tools: run without it; a timeout: `--cmd-timeout SEC`; kernel lockdown or a security "
	 "policy: the detail names the blocked source.",
	 eval_incomplete},
	HWC_RULES_END,
};

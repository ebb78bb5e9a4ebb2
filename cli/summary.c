/* SPDX-License-Identifier: MIT */
/* The run's verdict (OK / INCOMPLETE / WARN / ERROR), its JSON summary, and the exit code in
 * each convention (default, Nagios, node-problem-detector) with --fail-on and required rules. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json.h"
#include "core/util.h"

/* --fail-on order: info < unknown < warn < error ("unknown" fails on undecided rules as well as
 * on warnings and errors). */
static int fail_rank(int sev)
{
	return sev == HWC_SEV_INFO ? 0 : sev == HWC_SEV_UNKNOWN ? 1 : sev == HWC_SEV_WARN ? 2 : 3;
}

bool hwc_fail_on_hit(int fail_on, int sev)
{
	return sev >= 0 && fail_rank(sev) >= fail_rank(fail_on);
}

void hwc_summary_compute(const struct hwc_findings *fd, bool nothing, struct hwc_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->nothing = nothing;
	s->verdict = nothing ? HWC_VERDICT_INCOMPLETE : hwc_findings_verdict(fd);
	for (size_t i = 0; i < fd->n; i++) {
		const struct hwc_finding *x = &fd->items[i];
		if (x->waived_reason)
			continue;
		s->counts[x->severity]++;
		if (x->severity == HWC_SEV_UNKNOWN && x->required)
			s->required_unknown++;
	}
}

/* "pci.devices[0000:21:00.0].link is unknown (absent: ...)": the first fact the rule missed. */
const char *hwc_unknown_reason(const struct hwc_finding *x, char *buf, size_t n)
{
	const struct hwc_evidence *ev = x->evidence.n ? &x->evidence.items[0] : NULL;
	if (!ev)
		return x->message ? x->message : "no reason given";
	snprintf(buf, n, "%s is %s", ev->fact, ev->observed ? ev->observed : "unknown");
	return buf;
}

const char *hwc_unknown_cause(const struct hwc_finding *x, char *buf, size_t n)
{
	const char *o = x->evidence.n ? x->evidence.items[0].observed : NULL;
	if (!o)
		return x->message ? x->message : "no reason given";
	size_t len = strlen(o);
	if (strncmp(o, "unknown (", 9) == 0 && len > 10 && o[len - 1] == ')') {
		snprintf(buf, n, "%.*s", (int)(len - 10), o + 9);
		return buf;
	}
	return o;
}

/* An unknown finding of the same rule and subject came earlier: each is listed once. */
static bool listed_before(const struct hwc_findings *fd, size_t i)
{
	const struct hwc_finding *x = &fd->items[i];
	for (size_t k = 0; k < i; k++) {
		const struct hwc_finding *y = &fd->items[k];
		if (!y->waived_reason && y->severity == HWC_SEV_UNKNOWN && !strcmp(y->rule_id, x->rule_id) &&
		    !strcmp(y->subject ? y->subject : "host", x->subject ? x->subject : "host"))
			return true;
	}
	return false;
}

json_t *hwc_summary_json(const struct hwc_summary *s, const struct hwc_findings *fd,
			 const char *nothing_why)
{
	json_t *o = json_object();
	json_object_set_new(o, "verdict", json_string(hwc_verdict_name(s->verdict)));
	json_object_set_new(o, "counts",
			    json_pack("{s:I, s:I, s:I, s:I}", "error", (json_int_t)s->counts[HWC_SEV_ERROR],
				      "warn", (json_int_t)s->counts[HWC_SEV_WARN], "info",
				      (json_int_t)s->counts[HWC_SEV_INFO], "unknown",
				      (json_int_t)(s->counts[HWC_SEV_UNKNOWN] + (s->nothing ? 1 : 0))));
	json_t *un = json_array();
	if (s->nothing) {
		json_array_append_new(un, json_pack("{s:s, s:s, s:s}", "rule", "COLLECT_INCOMPLETE",
						    "subject", "host", "reason",
						    nothing_why ? nothing_why : "nothing could be collected"));
	}
	for (size_t i = 0; fd && i < fd->n; i++) {
		const struct hwc_finding *x = &fd->items[i];
		if (x->waived_reason || x->severity != HWC_SEV_UNKNOWN || listed_before(fd, i))
			continue;
		char buf[1024];
		json_array_append_new(un, json_pack("{s:s, s:s, s:s}", "rule", x->rule_id, "subject",
						    x->subject ? x->subject : "host", "reason",
						    hwc_unknown_reason(x, buf, sizeof(buf))));
	}
	json_object_set_new(o, "unknown", un);
	return o;
}

static bool is_map(const struct hwc_cli *c, const char *name)
{
	return c->exit_codes && strcmp(c->exit_codes, name) == 0;
}

/* The worst severity at or above --fail-on among findings that count; -1 when none. */
static int gate_worst(const struct hwc_cli *c, const struct hwc_summary *s)
{
	static const int order[] = {HWC_SEV_ERROR, HWC_SEV_WARN, HWC_SEV_UNKNOWN, HWC_SEV_INFO};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(order); i++)
		if (s->counts[order[i]] && fail_rank(order[i]) >= fail_rank(c->fail_on))
			return order[i];
	return -1;
}

/* Nagios plugin API: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. A known problem at or above
 * --fail-on wins; otherwise any rule that could not decide makes the state UNKNOWN. */
static int nagios_state(const struct hwc_cli *c, const struct hwc_summary *s)
{
	if (s->nothing)
		return 3;
	int w = gate_worst(c, s);
	if (w == HWC_SEV_ERROR)
		return 2;
	if (w == HWC_SEV_WARN || w == HWC_SEV_INFO)
		return 1;
	return s->counts[HWC_SEV_UNKNOWN] ? 3 : 0;
}

int hwc_summary_exit(const struct hwc_cli *c, const struct hwc_summary *s)
{
	bool fail = gate_worst(c, s) >= 0 || s->required_unknown > 0;
	if (is_map(c, "nagios"))
		return nagios_state(c, s);
	if (is_map(c, "npd")) {
		/* node-problem-detector custom plugin: 0 OK, 1 NonOK, 2 Unknown */
		if (s->nothing)
			return 2;
		return fail ? 1 : s->counts[HWC_SEV_UNKNOWN] ? 2 : 0;
	}
	if (s->nothing)
		return HWC_EXIT_NOTHING;
	return fail ? HWC_EXIT_FINDINGS : HWC_EXIT_OK;
}

const char *hwc_summary_word(const struct hwc_cli *c, const struct hwc_summary *s)
{
	static const char *const nagios[] = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};
	if (is_map(c, "nagios"))
		return nagios[nagios_state(c, s)];
	static const char *const words[] = {"OK", "INCOMPLETE", "WARN", "ERROR"};
	return s->nothing ? "UNKNOWN" : words[s->verdict];
}

/* SPDX-License-Identifier: MIT */
/* The rule set: a static table of rules evaluated over the facts (in their JSON form, the same
 * contract pipelines read, so a live run and a customer's facts file are judged identically). */
#ifndef HWC_RULES_H
#define HWC_RULES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"

enum hwc_severity { HWC_SEV_INFO = 0, HWC_SEV_WARN, HWC_SEV_ERROR, HWC_SEV_UNKNOWN };

const char *hwc_severity_name(enum hwc_severity s); /* "info" "warn" "error" "unknown" */
/* -1 for an unknown name */
int hwc_severity_from_name(const char *s);

struct hwc_evidence {
	const char *fact;     /* fact path: "pci.devices[0000:3b:00.0].link.speed_gts" */
	const char *observed; /* NULL = unknown */
	const char *expected;
};

struct hwc_finding {
	const char *rule_id;
	enum hwc_severity severity;
	const char *title;    /* the rule's title */
	const char *subject;  /* BDF, netdev, RDMA device or "host" */
	const char *card;     /* BDF of the adapter the subject belongs to; NULL = the host */
	const char *message;
	HWC_VEC(struct hwc_evidence) evidence;
	const char *fix;
	const char *waived_reason;  /* non-NULL when a live waiver covers it */
	const char *waiver_expires; /* the covering waiver's expiry (YYYY-MM-DD) */
	bool waiver_expired;        /* a waiver matched but has expired: not waived */
	bool required;              /* the profile requires this rule or fact: its unknown fails */
};

struct hwc_findings {
	struct hwc_finding *items;
	size_t n, cap;
};

struct hwc_profile; /* site policy: rules/profile.c */
struct hwc_rule_ctx; /* one rule's evaluation: rules/rules-int.h */

struct hwc_rule {
	const char *id;
	enum hwc_severity severity;
	const char *area; /* pci, mlx, thermal, host, netdev, probe, collect, profile */
	const char *title;
	const char *rationale;
	const char *fix;
	void (*eval)(struct hwc_rule_ctx *c);
};

/* The end of a rule list (rule-<area>.c): the id NULL, every other field zero. Designated, so
 * clang's -Wmissing-field-initializers (an error in clang builds, cmake/Warnings.cmake) accepts it. */
#define HWC_RULES_END {.id = NULL}

const struct hwc_rule *hwc_rules_table(size_t *n);
const struct hwc_rule *hwc_rule_find(const char *id);
/* The facts.roce.ports[] keys every RoCE port of a fabric should agree on (ROCE_PORTS_DIFFER
 * within a host, `merge` across hosts): dotted paths inside a port object. */
const char *const *hwc_rules_roce_keys(size_t *n);
/* One such value for people: a boolean array as its true indices ("on 3", "none"), a string as
 * itself, anything else as compact JSON. */
const char *hwc_roce_show_value(struct hwc_arena *a, const json_t *v);

/* Loads a JSON profile. On error returns -errno/-EINVAL and writes a message naming the file,
 * line and column (and the JSON path of a bad value) into err. path NULL gives the documented
 * default (rules/default-profile.json, compiled in). */
int hwc_profile_load(const char *path, struct hwc_profile **out, char *err, size_t errsz);
/* The same over bytes (for the fuzzer and tests); name is used in messages. */
int hwc_profile_parse(const char *name, const char *buf, size_t len, struct hwc_profile **out,
		      char *err, size_t errsz);
void hwc_profile_free(struct hwc_profile *p);
/* Whether the profile (NULL: the default) runs the rule of this id; false for an unknown id. */
bool hwc_profile_runs_rule(const struct hwc_profile *p, const char *id);
/* The card temperature limit (degC) THERMAL_CARD_OVER_LIMIT applies; 0 without a profile. */
double hwc_profile_card_temp_limit_c(const struct hwc_profile *p);
/* The profile's intended firmware configuration for an adapter (facts mlx.adapters[] element):
 * the "fw_config" object {NAME: value} of its product entry, NULL when none. */
const json_t *hwc_profile_fw_intent(const struct hwc_profile *p, const json_t *adapter);

/* Runs every enabled rule and the profile's expectations, applies waivers (date: today UTC),
 * ties each finding to its card, and sorts worst first. p NULL = the default profile. */
int hwc_rules_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		   struct hwc_findings *out);

/* The reset that applies a pending firmware or configuration change on this card (rule-fw.c),
 * from its `mstfwreset query` (facts mlx.adapters[].fw_reset): a synced firmware reset, a PCIe
 * link toggle with the driver reloaded, a warm reboot or a cold boot; says when a warm reboot
 * will not do. bdf NULL leaves <BDF> for a finding's fix to fill. Arena string. */
const char *hwc_fw_reset_advice(struct hwc_arena *a, const json_t *adapter, const char *bdf);

/* Cards of one product (PSID, else part number) that differ in one of those parameters. cards:
 * an array of {"adapter": facts.mlx.adapters[] element, "host": name (optional)}. Returns an
 * array with one object per product and parameter where they differ: {product, param,
 * severity, majority (null on a tie), tie, cards, values: [{value, cards, where: [{host?,
 * card}]}], minority: [{host?, card, value}], unknown: [{host?, card, why}]}; also where one
 * value is known and some cards' are unknown (minority then empty). */
json_t *hwc_fwc_spread(const json_t *cards);
/* The one majority of a firmware parameter over cards (the rule, merge and diff): a tally
 * {text: {"value": text, "cards": n, "where": [...]}} filled one card at a time, then its value
 * most cards have. hwc_fwc_vote counts a card for text (where, stolen, appended when not NULL)
 * and returns its entry; hwc_fwc_top returns the entry with the most cards (the first of them
 * in tally order), *tie when another has as many; NULL when the tally is empty. */
json_t *hwc_fwc_vote(json_t *tally, const char *text, json_t *where);
const json_t *hwc_fwc_top(const json_t *tally, bool *tie);
/* A parameter's value as its tally text: the string, the integer, True/False. */
void hwc_fwc_value_text(const json_t *v, char *buf, size_t bufsz);
/* A rate per hour as the rules and the card report both print it: "2731/h", "16.1/h",
 * "0.0417/h", "3.5e-03/h", "0/h". Returns buf. */
const char *hwc_fmt_per_hour(char *buf, size_t bufsz, double per_hour);

json_t *hwc_findings_to_json(const struct hwc_findings *f);
/* Worst severity among findings that are not waived; -1 when none. */
int hwc_findings_worst(const struct hwc_findings *f);
/* The run's verdict from the findings that are not waived: error, warn, incomplete (a rule could
 * not decide), ok. */
enum hwc_verdict { HWC_VERDICT_OK, HWC_VERDICT_INCOMPLETE, HWC_VERDICT_WARN, HWC_VERDICT_ERROR };
enum hwc_verdict hwc_findings_verdict(const struct hwc_findings *f);
const char *hwc_verdict_name(enum hwc_verdict v); /* "ok" "incomplete" "warn" "error" */
/* One line of at most 80 characters for node-problem-detector / Slurm drain reasons:
 * "hwcheck: WORD N error, N warn[, N unknown][; RULE SUBJECT +N]". word NULL: the verdict in
 * capitals (OK, INCOMPLETE, WARN, ERROR); Nagios passes its own state. */
void hwc_findings_summary_line_as(const struct hwc_findings *f, const char *word, char *buf,
				  size_t bufsz);
void hwc_findings_summary_line(const struct hwc_findings *f, char *buf, size_t bufsz);

#endif

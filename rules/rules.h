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
	struct {
		struct hwc_evidence *items;
		size_t n, cap;
	} evidence;
	const char *fix;
	const char *waived_reason;  /* non-NULL when a live waiver covers it */
	const char *waiver_expires; /* the covering waiver's expiry (YYYY-MM-DD) */
	bool waiver_expired;        /* a waiver matched but has expired: not waived */
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

const struct hwc_rule *hwc_rules_table(size_t *n);
const struct hwc_rule *hwc_rule_find(const char *id);

/* Loads a JSON profile. On error returns -errno/-EINVAL and writes a message naming the file,
 * line and column (and the JSON path of a bad value) into err. path NULL gives the documented
 * default (rules/default-profile.json, compiled in). */
int hwc_profile_load(const char *path, struct hwc_profile **out, char *err, size_t errsz);
/* The same over bytes (for the fuzzer and tests); name is used in messages. */
int hwc_profile_parse(const char *name, const char *buf, size_t len, struct hwc_profile **out,
		      char *err, size_t errsz);
void hwc_profile_free(struct hwc_profile *p);
/* The compiled-in default profile text. */
const char *hwc_profile_default_text(void);

/* Runs every enabled rule and the profile's expectations, applies waivers (date: today UTC),
 * ties each finding to its card, and sorts worst first. p NULL = the default profile. */
int hwc_rules_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		   struct hwc_findings *out);

/* The performance parameters of the firmware configuration that identical cards must share
 * (rules/fwc_spread.c): mstconfig name, the severity of a difference, what it governs. */
struct hwc_fwc_param {
	const char *name;
	enum hwc_severity sev;
	const char *why;
};
const struct hwc_fwc_param *hwc_fwc_params(size_t *n);
/* Cards of one product (PSID, else part number) that differ in one of those parameters. cards:
 * an array of {"adapter": facts.mlx.adapters[] element, "host": name (optional)}. Returns an
 * array with one object per product and parameter where they differ: {product, param,
 * severity, majority (null on a tie), tie, cards, values: [{value, cards, where: [{host?,
 * card}]}], minority: [{host?, card, value}], unknown: [{host?, card, why}]}; also where one
 * value is known and some cards' are unknown (minority then empty). */
json_t *hwc_fwc_spread(const json_t *cards);

json_t *hwc_findings_to_json(const struct hwc_findings *f);
/* Worst severity among findings that are not waived; -1 when none. */
int hwc_findings_worst(const struct hwc_findings *f);
/* One line of at most 80 characters for node-problem-detector / Slurm drain reasons. */
void hwc_findings_summary_line(const struct hwc_findings *f, char *buf, size_t bufsz);

#endif

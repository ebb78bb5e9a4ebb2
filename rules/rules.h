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
	const char *observed;
	const char *expected;
};

struct hwc_finding {
	const char *rule_id;
	enum hwc_severity severity;
	const char *subject;  /* BDF, netdev, RDMA device or "host" */
	const char *message;
	struct {
		struct hwc_evidence *items;
		size_t n, cap;
	} evidence;
	const char *fix;
	const char *waived_reason; /* non-NULL when a waiver covers it */
};

struct hwc_findings {
	struct hwc_finding *items;
	size_t n, cap;
};

struct hwc_profile; /* site policy: rules/profile.c */

struct hwc_rule {
	const char *id;
	enum hwc_severity severity;
	const char *title;
	const char *rationale;
	const char *fix;
	void (*eval)(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		     struct hwc_findings *out);
};

const struct hwc_rule *hwc_rules_table(size_t *n);
const struct hwc_rule *hwc_rule_find(const char *id);

/* Loads a JSON profile. On error returns -errno/-EINVAL and writes a message naming the file,
 * line and column into err. path NULL gives the documented default. */
int hwc_profile_load(const char *path, struct hwc_profile **out, char *err, size_t errsz);
void hwc_profile_free(struct hwc_profile *p);

/* Runs every enabled rule; findings are sorted worst first. */
int hwc_rules_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		   struct hwc_findings *out);

json_t *hwc_findings_to_json(const struct hwc_findings *f);
/* Worst severity among findings that are not waived; -1 when none. */
int hwc_findings_worst(const struct hwc_findings *f);

/* Helper for rule code: append a finding (arena strings). */
struct hwc_finding *hwc_finding_add(struct hwc_findings *out, struct hwc_arena *a,
				    const struct hwc_rule *r, const char *subject,
				    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void hwc_finding_evidence(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
			  const char *observed, const char *expected);

#endif

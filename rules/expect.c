/* SPDX-License-Identifier: MIT */
/* The profile's declarative expectations over fact paths, and waivers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "rules/rules-int.h"

struct exp_ud {
	const json_t *e;
	const char *id, *fact, *op, *desc;
	const json_t *value;
	enum hwc_severity sev;
	struct hwc_arena *a;
	struct hwc_findings *out;
	const struct hwc_rule *rule;
};

static bool jeq(const json_t *x, const json_t *y)
{
	if (json_is_number(x) && json_is_number(y))
		return json_number_value(x) == json_number_value(y);
	return json_equal((json_t *)x, (json_t *)y);
}

/* 1 met, 0 not met, -1 not comparable */
static int compare(const char *op, const json_t *v, const json_t *want)
{
	if (!strcmp(op, "exists"))
		return 1;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return jeq(v, want) == (op[0] == '=');
	if (!strcmp(op, "in") || !strcmp(op, "not_in")) {
		size_t i;
		const json_t *e;
		bool found = false;
		json_array_foreach(want, i, e) found |= jeq(v, e);
		return found == (op[0] == 'i');
	}
	if (!json_is_number(v) || !json_is_number(want))
		return -1;
	double a = json_number_value(v), b = json_number_value(want);
	if (!strcmp(op, "<"))
		return a < b;
	if (!strcmp(op, "<="))
		return a <= b;
	if (!strcmp(op, ">"))
		return a > b;
	return a >= b;
}

static struct hwc_finding *push_finding(struct exp_ud *u, enum hwc_severity sev, const char *subject)
{
	struct hwc_finding *fd = HWC_VEC_PUSH(u->a, u->out);
	if (!fd)
		return NULL;
	fd->rule_id = u->id;
	fd->title = u->desc ? u->desc : u->rule->title;
	fd->severity = sev;
	fd->subject = subject ? subject : "host";
	fd->fix = sev == HWC_SEV_UNKNOWN ? NULL : u->rule->fix;
	return fd;
}

static void on_value(void *p, const char *path, const char *subject, const json_t *val, const char *why)
{
	struct exp_ud *u = p;
	const char *expected = strcmp(u->op, "exists") == 0
				       ? "exists"
				       : hwc_arena_printf(u->a, "%s %s", u->op, fv_json_text(u->a, u->value));
	if (!val) {
		struct hwc_finding *fd = push_finding(u, HWC_SEV_UNKNOWN, subject);
		if (!fd)
			return;
		fd->message = hwc_arena_printf(u->a, "cannot decide %s: %s is unknown (%s)",
					       u->desc ? u->desc : "a profile expectation", path, why);
		hwc_evidence_add(fd, u->a, path, hwc_arena_printf(u->a, "unknown (%s)", why), expected);
		return;
	}
	int r = compare(u->op, val, u->value);
	if (r == 1)
		return;
	struct hwc_finding *fd = push_finding(u, r < 0 ? HWC_SEV_UNKNOWN : u->sev, subject);
	if (!fd)
		return;
	fd->message = r < 0 ? hwc_arena_printf(u->a, "cannot compare %s (%s) with %s", path,
					       fv_json_text(u->a, val), expected)
			    : hwc_arena_printf(u->a, "%s%s%s is %s, expected %s", u->desc ? u->desc : "",
					       u->desc ? ": " : "", path, fv_json_text(u->a, val), expected);
	hwc_evidence_add(fd, u->a, path, fv_json_text(u->a, val), expected);
}

static void on_required(void *p, const char *path, const char *subject, const json_t *val,
			const char *why)
{
	struct exp_ud *u = p;
	if (val)
		return;
	struct hwc_finding *fd = push_finding(u, HWC_SEV_UNKNOWN, subject);
	if (!fd)
		return;
	fd->required = true;
	fd->message = hwc_arena_printf(u->a, "cannot decide: %s, which the profile requires, is "
				       "unknown (%s)", path, why);
	hwc_evidence_add(fd, u->a, path, hwc_arena_printf(u->a, "unknown (%s)", why),
			 hwc_arena_printf(u->a, "known (required: %s)", u->fact));
}

/* The fact paths of the profile's "required" list (its rule ids are marked by rules.c): each
 * value that is unknown is an unknown finding marked required, which fails the gate. */
static void required_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
			  struct hwc_findings *out, const struct hwc_rule *rule)
{
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_profile_required(p), i, e) {
		const char *s = json_string_value(e);
		if (!s || hwc_rule_find(s) || !strncmp(s, "SITE_", 5))
			continue;
		struct exp_ud u = {.a = a, .out = out, .rule = rule, .id = rule->id, .fact = s,
				   .desc = "a fact the profile requires"};
		hwc_q_walk(facts, s, a, on_required, &u);
	}
}

void hwc_expectations_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
			   struct hwc_findings *out)
{
	const struct hwc_rule *rule = hwc_rule_find("PROFILE_EXPECTATION");
	enum hwc_severity rsev;
	if (rule)
		required_eval(facts, p, a, out, rule);
	if (!rule || !hwc_profile_rule_enabled(p, rule, &rsev))
		return;
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_profile_expectations(p), i, e) {
		struct exp_ud u = {.e = e, .a = a, .out = out, .rule = rule};
		u.id = hwc_q_string(e, "id");
		if (!u.id)
			u.id = rule->id;
		u.fact = hwc_q_string(e, "fact");
		u.op = hwc_q_string(e, "op");
		u.desc = hwc_q_string(e, "description");
		u.value = json_object_get(e, "value");
		int s = hwc_severity_from_name(hwc_q_string(e, "severity"));
		u.sev = s >= 0 ? (enum hwc_severity)s : rsev;
		if (!u.fact || !u.op)
			continue;
		hwc_q_walk(facts, u.fact, a, on_value, &u);
	}
}

void hwc_waivers_apply(const struct hwc_profile *p, struct hwc_arena *a, struct hwc_findings *out,
		       const char *today)
{
	size_t i;
	const json_t *w;
	json_array_foreach(hwc_profile_waivers(p), i, w) {
		const char *rule = hwc_q_string(w, "rule");
		const char *subj = hwc_q_string(w, "subject");
		const char *reason = hwc_q_string(w, "reason");
		const char *exp = hwc_q_string(w, "expires");
		if (!rule || !subj || !reason || !exp)
			continue;
		/* the waiver covers the last day it names */
		bool expired = strcmp(exp, today) < 0;
		for (size_t k = 0; k < out->n; k++) {
			struct hwc_finding *f = &out->items[k];
			if (strcmp(f->rule_id, rule) != 0 || f->waived_reason)
				continue;
			if (strcmp(subj, "*") != 0 && strcmp(subj, f->subject) != 0 &&
			    !(f->card && strcmp(subj, f->card) == 0))
				continue;
			f->waiver_expires = hwc_arena_strdup(a, exp);
			f->waiver_expired = expired;
			if (!expired)
				f->waived_reason = hwc_arena_strdup(a, reason);
		}
	}
}

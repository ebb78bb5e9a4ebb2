/* SPDX-License-Identifier: MIT */
/* Rule table, evaluation, findings. */
#include "rules/rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hwc_profile {
	int unused;
};

static const char *const sev_names[] = {"info", "warn", "error", "unknown"};

const char *hwc_severity_name(enum hwc_severity s)
{
	return (unsigned)s <= HWC_SEV_UNKNOWN ? sev_names[s] : "unknown";
}

int hwc_severity_from_name(const char *s)
{
	for (int i = 0; s && i <= HWC_SEV_UNKNOWN; i++)
		if (strcmp(s, sev_names[i]) == 0)
			return i;
	return -1;
}

struct hwc_finding *hwc_finding_add(struct hwc_findings *out, struct hwc_arena *a,
				    const struct hwc_rule *r, const char *subject,
				    const char *fmt, ...)
{
	struct hwc_finding *fd = HWC_VEC_PUSH(a, out);
	if (!fd)
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	fd->rule_id = r->id;
	fd->severity = r->severity;
	fd->subject = hwc_arena_strdup(a, subject ? subject : "host");
	fd->message = hwc_arena_vprintf(a, fmt, ap);
	fd->fix = r->fix;
	va_end(ap);
	return fd;
}

void hwc_finding_evidence(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
			  const char *observed, const char *expected)
{
	if (!fd)
		return;
	struct hwc_evidence *ev = HWC_VEC_PUSH(a, &fd->evidence);
	if (!ev)
		return;
	ev->fact = hwc_arena_strdup(a, fact);
	ev->observed = observed ? hwc_arena_strdup(a, observed) : NULL;
	ev->expected = expected ? hwc_arena_strdup(a, expected) : NULL;
}

static void eval_no_adapter(const json_t *facts, const struct hwc_profile *p,
			    struct hwc_arena *a, struct hwc_findings *out);

static const struct hwc_rule table[] = {
	{"MLX_NO_ADAPTER", HWC_SEV_WARN, "No ConnectX adapter found",
	 "hwcheck inspects NVIDIA/Mellanox ConnectX adapters; none (PCI vendor 0x15b3) was found, so "
	 "only the host was checked. On a node that should have one, the card is missing, unseated "
	 "or disabled in firmware.",
	 "Check that the card is seated and enabled in BIOS; `lspci -d 15b3:` should list it.",
	 eval_no_adapter},
};

static void eval_no_adapter(const json_t *facts, const struct hwc_profile *p,
			    struct hwc_arena *a, struct hwc_findings *out)
{
	const json_t *ad = json_object_get(json_object_get(facts, "mlx"), "adapters");
	if (json_is_array(ad) && json_array_size(ad) > 0)
		return;
	struct hwc_finding *fd = hwc_finding_add(out, a, &table[0], "host",
						 "no ConnectX adapter was found on this machine");
	hwc_finding_evidence(fd, a, "mlx.adapters", "[]", "at least one adapter");
}

const struct hwc_rule *hwc_rules_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct hwc_rule *hwc_rule_find(const char *id)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].id, id) == 0)
			return &table[i];
	return NULL;
}

int hwc_profile_load(const char *path, struct hwc_profile **out, char *err, size_t errsz)
{
	struct hwc_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (path) {
		json_error_t je;
		json_t *j = json_load_file(path, 0, &je);
		if (!j) {
			snprintf(err, errsz, "%s:%d:%d: %s", path, je.line, je.column, je.text);
			free(p);
			return -EINVAL;
		}
		json_decref(j);
	}
	*out = p;
	return 0;
}

void hwc_profile_free(struct hwc_profile *p)
{
	free(p);
}

static int cmp_finding(const void *x, const void *y)
{
	const struct hwc_finding *a = x, *b = y;
	int sa = a->severity == HWC_SEV_UNKNOWN ? 0 : (int)a->severity + 1;
	int sb = b->severity == HWC_SEV_UNKNOWN ? 0 : (int)b->severity + 1;
	if (sa != sb)
		return sb - sa;
	int c = strcmp(a->subject, b->subject);
	return c ? c : strcmp(a->rule_id, b->rule_id);
}

int hwc_rules_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
		   struct hwc_findings *out)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		table[i].eval(facts, p, a, out);
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_finding);
	return 0;
}

int hwc_findings_worst(const struct hwc_findings *f)
{
	int worst = -1;
	for (size_t i = 0; i < f->n; i++) {
		if (f->items[i].waived_reason || f->items[i].severity == HWC_SEV_UNKNOWN)
			continue;
		if ((int)f->items[i].severity > worst)
			worst = (int)f->items[i].severity;
	}
	return worst;
}

json_t *hwc_findings_to_json(const struct hwc_findings *f)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < f->n; i++) {
		const struct hwc_finding *x = &f->items[i];
		json_t *o = json_object();
		json_object_set_new(o, "rule_id", json_string(x->rule_id));
		json_object_set_new(o, "severity", json_string(hwc_severity_name(x->severity)));
		json_object_set_new(o, "subject", json_string(x->subject));
		json_object_set_new(o, "message", json_string(x->message));
		json_t *ev = json_array();
		for (size_t k = 0; k < x->evidence.n; k++) {
			const struct hwc_evidence *e = &x->evidence.items[k];
			json_t *eo = json_object();
			json_object_set_new(eo, "fact", json_string(e->fact));
			json_object_set_new(eo, "observed", e->observed ? json_string(e->observed) : json_null());
			json_object_set_new(eo, "expected", e->expected ? json_string(e->expected) : json_null());
			json_array_append_new(ev, eo);
		}
		json_object_set_new(o, "evidence", ev);
		json_object_set_new(o, "fix", x->fix ? json_string(x->fix) : json_null());
		json_object_set_new(o, "waived", json_boolean(x->waived_reason != NULL));
		if (x->waived_reason)
			json_object_set_new(o, "waiver_reason", json_string(x->waived_reason));
		json_array_append_new(arr, o);
	}
	return arr;
}

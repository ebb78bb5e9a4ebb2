/* SPDX-License-Identifier: MIT */
/* Rules' evidence helpers: value-or-unknown lookups and evidence paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules-int.h"

/* ok, after emitting the rule's unknown finding for subject when the lookup failed. */
static int need_done(struct hwc_rule_ctx *c, int ok, const char *subject, const char *base,
		     const char *dotted, const char *why)
{
	if (!ok)
		hwc_rule_unknown(c, subject, base ? hwc_arena_printf(c->a, "%s.%s", base, dotted) : dotted,
				 why, NULL);
	return ok;
}

int need_num(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, double *out)
{
	const char *why = NULL;
	int ok = hwc_q_find_num(obj, dotted, out, &why, c->a);
	return need_done(c, ok, subject, base, dotted, why);
}

int need_bool(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	      const char *dotted, bool *out)
{
	const char *why = NULL;
	int ok = hwc_q_find_bool(obj, dotted, out, &why, c->a);
	return need_done(c, ok, subject, base, dotted, why);
}

int need_str(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, const char **out)
{
	const char *why = NULL;
	int ok = hwc_q_find_str(obj, dotted, out, &why, c->a);
	return need_done(c, ok, subject, base, dotted, why);
}

int need_val(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, int type, const char *needed_for, const json_t **out)
{
	const char *why = NULL;
	if (hwc_q_find(obj, dotted, out, &why, c->a) && (type < 0 || json_typeof(*out) == (json_type)type))
		return 1;
	hwc_rule_unknown(c, subject, base ? hwc_arena_printf(c->a, "%s.%s", base, dotted) : dotted, why,
			 needed_for);
	return 0;
}

const char *fv_pci_path(struct hwc_rule_ctx *c, const char *bdf)
{
	return hwc_arena_printf(c->a, "pci.devices[%s]", bdf ? bdf : "?");
}

const char *fv_adapter_path(struct hwc_rule_ctx *c, const char *bdf)
{
	return hwc_arena_printf(c->a, "mlx.adapters[%s]", bdf ? bdf : "?");
}

const char *fv_netdev_path(struct hwc_rule_ctx *c, const char *name)
{
	return hwc_arena_printf(c->a, "netdevs[%s]", name ? name : "?");
}

const char *fv_fmt_num(struct hwc_arena *a, double v)
{
	if (!isfinite(v))
		return "?";
	if (v == floor(v) && fabs(v) < 1e15)
		return hwc_arena_printf(a, "%.0f", v);
	char *s = hwc_arena_printf(a, "%.3f", v);
	/* 2.500 -> 2.5, 63.008 stays */
	size_t n = s ? strlen(s) : 0;
	while (n > 1 && s[n - 1] == '0')
		s[--n] = 0;
	if (n > 1 && s[n - 1] == '.') /* 10.00025 -> "10.000" -> "10", not "10." */
		s[--n] = 0;
	return s;
}


const char *fv_json_text(struct hwc_arena *a, const json_t *v)
{
	if (json_is_string(v))
		return json_string_value(v);
	char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	const char *s = hwc_arena_strdup(a, d ? d : "?");
	free(d);
	return s;
}

void hwc_each_adapter(struct hwc_rule_ctx *c,
		      void (*fn)(struct hwc_rule_ctx *c, const json_t *ad, const char *bdf))
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad)
		fn(c, ad, hwc_q_string(ad, "bdf"));
}

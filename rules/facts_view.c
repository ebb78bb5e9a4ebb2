/* SPDX-License-Identifier: MIT */
/* Finding things in the facts JSON (docs/FACTS.md): values or the reason they are unknown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "rules/rules-int.h"

static const char *why_of(const json_t *obj, const char *key, struct hwc_arena *a)
{
	const json_t *u = json_object_get(json_object_get(obj, HWC_JSON_UNAVAILABLE), key);
	const char *st = json_string_value(json_object_get(u, "status"));
	const char *d = json_string_value(json_object_get(u, "detail"));
	if (!st)
		return json_is_null(json_object_get(obj, key)) ? "null without a status" : "not_collected";
	return d ? hwc_arena_printf(a, "%s: %s", st, d) : st;
}

int fv_lookup(const json_t *obj, const char *dotted, const json_t **val, const char **why,
	      struct hwc_arena *a)
{
	char key[128];
	const char *p = dotted;
	*val = NULL;
	*why = "not_collected";
	if (!obj) {
		return 0;
	}
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(key))
			return 0;
		memcpy(key, p, n);
		key[n] = 0;
		if (!json_is_object(obj)) {
			*why = "not_collected";
			return 0;
		}
		const json_t *v = json_object_get(obj, key);
		if (!v || json_is_null(v)) {
			*why = why_of(obj, key, a);
			return 0;
		}
		if (!dot) {
			*val = v;
			return 1;
		}
		obj = v;
		p = dot + 1;
	}
}

int fv_num(const json_t *obj, const char *dotted, double *out, const char **why,
	   struct hwc_arena *a)
{
	const json_t *v;
	if (!fv_lookup(obj, dotted, &v, why, a))
		return 0;
	if (!json_is_number(v)) {
		*why = "invalid: not a number";
		return 0;
	}
	*out = json_number_value(v);
	return 1;
}

int fv_bool(const json_t *obj, const char *dotted, bool *out, const char **why,
	    struct hwc_arena *a)
{
	const json_t *v;
	if (!fv_lookup(obj, dotted, &v, why, a))
		return 0;
	if (!json_is_boolean(v)) {
		*why = "invalid: not a boolean";
		return 0;
	}
	*out = json_is_true(v);
	return 1;
}

int fv_str(const json_t *obj, const char *dotted, const char **out, const char **why,
	   struct hwc_arena *a)
{
	const json_t *v;
	if (!fv_lookup(obj, dotted, &v, why, a))
		return 0;
	if (!json_is_string(v)) {
		*why = "invalid: not a string";
		return 0;
	}
	*out = json_string_value(v);
	return 1;
}

static void need_fail(struct hwc_rule_ctx *c, const char *subject, const char *base,
		      const char *dotted, const char *why)
{
	char *path = base ? hwc_arena_printf(c->a, "%s.%s", base, dotted) : (char *)dotted;
	hwc_rule_unknown(c, subject, path, why, NULL);
}

int need_num(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, double *out)
{
	const char *why;
	if (fv_num(obj, dotted, out, &why, c->a))
		return 1;
	need_fail(c, subject, base, dotted, why);
	return 0;
}

int need_bool(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	      const char *dotted, bool *out)
{
	const char *why;
	if (fv_bool(obj, dotted, out, &why, c->a))
		return 1;
	need_fail(c, subject, base, dotted, why);
	return 0;
}

int need_str(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, const char **out)
{
	const char *why;
	if (fv_str(obj, dotted, out, &why, c->a))
		return 1;
	need_fail(c, subject, base, dotted, why);
	return 0;
}

const json_t *fv_adapters(const json_t *facts)
{
	const json_t *ad = json_object_get(json_object_get(facts, "mlx"), "adapters");
	return json_is_array(ad) ? ad : NULL;
}

static const json_t *find_by(const json_t *arr, const char *key, const char *val)
{
	size_t i;
	const json_t *e;
	if (!val || !json_is_array(arr))
		return NULL;
	json_array_foreach(arr, i, e) {
		const char *s = json_string_value(json_object_get(e, key));
		if (s && strcmp(s, val) == 0)
			return e;
	}
	return NULL;
}

const json_t *fv_pci_dev(const json_t *facts, const char *bdf)
{
	return find_by(json_object_get(json_object_get(facts, "pci"), "devices"), "bdf", bdf);
}

const json_t *fv_netdev(const json_t *facts, const char *name)
{
	return find_by(json_object_get(facts, "netdevs"), "name", name);
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

static bool str_in(const json_t *arr, const char *s)
{
	size_t i;
	const json_t *e;
	if (!s || !json_is_array(arr))
		return false;
	json_array_foreach(arr, i, e) {
		const char *v = json_string_value(e);
		if (v && strcmp(v, s) == 0)
			return true;
	}
	return false;
}

bool fv_adapter_has_function(const json_t *adapter, const char *bdf)
{
	const char *b = json_string_value(json_object_get(adapter, "bdf"));
	if (b && bdf && strcmp(b, bdf) == 0)
		return true;
	return str_in(json_object_get(adapter, "functions"), bdf);
}

const char *fv_port_function(const json_t *facts, const json_t *adapter, const json_t *port)
{
	const char *rd = json_string_value(json_object_get(port, "rdma_device"));
	const char *nd = json_string_value(json_object_get(port, "netdev"));
	const char *bdf = json_string_value(json_object_get(fv_netdev(facts, nd), "bdf"));
	if (bdf)
		return bdf;
	size_t i;
	const json_t *fn;
	json_array_foreach(json_object_get(adapter, "function_map"), i, fn) {
		if (str_in(json_object_get(fn, "rdma_devices"), rd) ||
		    str_in(json_object_get(fn, "netdevs"), nd))
			return json_string_value(json_object_get(fn, "bdf"));
	}
	return NULL;
}

size_t fv_adapter_netdevs(const json_t *facts, const json_t *adapter, const json_t **out,
			  size_t max)
{
	const json_t *nd = json_object_get(facts, "netdevs");
	size_t i, n = 0;
	const json_t *e;
	if (!json_is_array(nd))
		return 0;
	json_array_foreach(nd, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *bdf = json_string_value(json_object_get(e, "bdf"));
		if (n < max && (str_in(json_object_get(adapter, "netdevs"), name) ||
				(bdf && fv_adapter_has_function(adapter, bdf))))
			out[n++] = e;
	}
	return n;
}

const json_t *fv_adapter_of(const json_t *facts, const char *name)
{
	const json_t *ads = fv_adapters(facts);
	size_t i;
	const json_t *ad;
	if (!name || !ads)
		return NULL;
	json_array_foreach(ads, i, ad) {
		if (fv_adapter_has_function(ad, name) || str_in(json_object_get(ad, "netdevs"), name) ||
		    str_in(json_object_get(ad, "rdma_devices"), name))
			return ad;
	}
	/* a netdev or VF known only by its bdf, or a "mlx5_0/1" port subject */
	const json_t *nd = find_by(json_object_get(facts, "netdevs"), "name", name);
	const char *bdf = nd ? json_string_value(json_object_get(nd, "bdf")) : NULL;
	const json_t *dev = fv_pci_dev(facts, bdf ? bdf : name);
	const char *pf = dev ? json_string_value(json_object_get(dev, "physfn")) : NULL;
	const char *slash = strchr(name, '/');
	json_array_foreach(ads, i, ad) {
		if ((bdf && fv_adapter_has_function(ad, bdf)) || (pf && fv_adapter_has_function(ad, pf)))
			return ad;
		if (slash) {
			char dev_name[64];
			size_t n = (size_t)(slash - name);
			if (n < sizeof(dev_name)) {
				memcpy(dev_name, name, n);
				dev_name[n] = 0;
				if (str_in(json_object_get(ad, "rdma_devices"), dev_name))
					return ad;
			}
		}
	}
	return NULL;
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
	return s;
}

double fv_adapter_port_rate(struct hwc_rule_ctx *c, const json_t *adapter, const char **src)
{
	double best = 0;
	size_t i;
	const json_t *p;
	*src = NULL;
	json_array_foreach(json_object_get(adapter, "ports"), i, p) {
		const char *st = json_string_value(json_object_get(p, "state"));
		const json_t *r = json_object_get(p, "rate_gbps");
		if (st && strcasestr(st, "active") && json_is_number(r) && json_number_value(r) > best) {
			best = json_number_value(r);
			*src = "ports[].rate_gbps";
		}
	}
	if (best > 0)
		return best;
	const json_t *nds[32];
	size_t n = fv_adapter_netdevs(c->facts, adapter, nds, 32);
	for (size_t k = 0; k < n; k++) {
		const json_t *s = json_object_get(nds[k], "speed_mbps");
		if (json_is_number(s) && json_number_value(s) / 1000.0 > best) {
			best = json_number_value(s) / 1000.0;
			*src = "netdevs[].speed_mbps";
		}
	}
	if (best > 0)
		return best;
	const json_t *m = json_object_get(adapter, "port_rate_max_gbps");
	if (json_is_number(m) && json_number_value(m) > 0) {
		*src = "port_rate_max_gbps";
		return json_number_value(m);
	}
	return 0;
}

int fv_cpulist_count(const char *s)
{
	int n = 0;
	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10);
		if (end == s || a < 0)
			return -1;
		long b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b - a > 1 << 20)
				return -1;
			s = end;
		}
		n += (int)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s == '\n' || *s == ' ')
			break;
		else if (*s)
			return -1;
	}
	return n;
}

const char *fv_elem_key(const json_t *o, struct hwc_arena *a)
{
	static const char *const keys[] = {"bdf", "rdma_device", "id", NULL};
	const char *chip = json_string_value(json_object_get(o, "chip"));
	const char *label = json_string_value(json_object_get(o, "label"));
	const char *name = json_string_value(json_object_get(o, "name"));
	if (name)
		return name;
	if (chip) {
		/* two cards both have an "mlx5/asic": the BDF tells them apart */
		const char *bdf = json_string_value(json_object_get(o, "bdf"));
		const char *cl = label ? hwc_arena_printf(a, "%s/%s", chip, label) : chip;
		return bdf ? hwc_arena_printf(a, "%s@%s", cl, bdf) : cl;
	}
	if (json_is_integer(json_object_get(o, "port")) && json_string_value(json_object_get(o, "rdma_device")))
		return hwc_arena_printf(a, "%s/%lld", json_string_value(json_object_get(o, "rdma_device")),
					(long long)json_integer_value(json_object_get(o, "port")));
	for (int i = 0; keys[i]; i++) {
		const json_t *v = json_object_get(o, keys[i]);
		if (json_is_string(v))
			return json_string_value(v);
		if (json_is_integer(v))
			return hwc_arena_printf(a, "%lld", (long long)json_integer_value(v));
	}
	return NULL;
}

/* path expression walker: "a.b[].c" */
static void walk(const json_t *obj, const char *expr, char *path, size_t plen, size_t cap,
		 const char *subject, struct hwc_arena *a, fv_walk_cb cb, void *ud)
{
	const char *p = expr;
	while (*p == '.')
		p++;
	size_t n = strcspn(p, ".[");
	char key[128];
	if (n == 0 || n >= sizeof(key))
		return;
	memcpy(key, p, n);
	key[n] = 0;
	const char *rest = p + n;
	bool iter = strncmp(rest, "[]", 2) == 0;
	if (iter)
		rest += 2;
	int w = snprintf(path + plen, cap - plen, "%s%s", plen ? "." : "", key);
	if (w < 0 || (size_t)w >= cap - plen)
		return;
	size_t nl = plen + (size_t)w;
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!v || json_is_null(v)) {
		cb(ud, hwc_arena_strdup(a, path), subject, NULL, why_of(obj, key, a));
		return;
	}
	if (iter) {
		if (!json_is_array(v)) {
			cb(ud, hwc_arena_strdup(a, path), subject, NULL, "invalid: not an array");
			return;
		}
		size_t i;
		const json_t *e;
		json_array_foreach(v, i, e) {
			const char *k = json_is_object(e) ? fv_elem_key(e, a) : NULL;
			char *ep = hwc_arena_printf(a, "%s[%s]", path, k ? k : hwc_arena_printf(a, "%zu", i));
			char sub[512];
			snprintf(sub, sizeof(sub), "%s", ep ? ep : "");
			if (!*rest)
				cb(ud, hwc_arena_strdup(a, sub), k ? k : subject, e, NULL);
			else
				walk(e, rest, sub, strlen(sub), sizeof(sub), k ? k : subject, a, cb, ud);
		}
		return;
	}
	if (!*rest) {
		cb(ud, hwc_arena_strdup(a, path), subject, v, NULL);
		return;
	}
	walk(v, rest, path, nl, cap, subject, a, cb, ud);
}

void fv_walk(const json_t *facts, const char *expr, struct hwc_arena *a, fv_walk_cb cb, void *ud)
{
	char path[512] = "";
	walk(facts, expr, path, 0, sizeof(path), "host", a, cb, ud);
}

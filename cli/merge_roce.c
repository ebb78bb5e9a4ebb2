/* SPDX-License-Identifier: MIT */
/* `merge`: the RoCE settings every port of the fleet should share, value by value, with where
 * each value is seen; a key with more than one value is a fleet-wide disagreement. */
#include "cli/cli.h"
#include "cli/diff.h"

#include <string.h>

#include "core/query.h"
#include "rules/rules.h"

static const char *port_name(struct hwc_arena *a, const json_t *p)
{
	const char *nd = hwc_q_string(p, "netdev");
	if (nd)
		return nd;
	const char *dev = hwc_q_string(p, "rdma_device");
	return hwc_arena_printf(a, "%s/%lld", dev ? dev : "?",
				(long long)json_integer_value(hwc_q_get(p, "port")));
}

/* One port's value into values (shown text -> {value, shown, ports, where}, the command's own
 * tally: looked up raw, it is no facts document). */
static void add_value(json_t *values, struct hwc_arena *a, const json_t *v, const char *host,
		      const char *port)
{
	const char *shown = hwc_roce_show_value(a, v);
	json_t *e = json_object_get(values, shown);
	if (!e) {
		e = json_pack("{s:O, s:s, s:i, s:[]}", "value", v, "shown", shown, "ports", 0, "where");
		json_object_set_new(values, shown, e);
	}
	json_object_set_new(e, "ports", json_integer(json_integer_value(hwc_q_get(e, "ports")) + 1));
	json_array_append_new(json_object_get(e, "where"), json_pack("{s:s, s:s}", "host", host, "port", port));
}

/* A port's value of key ("qos.trust"); for a RoCE LAG port each member's, whose netdev holds
 * the QoS and ECN (the LAG port's own for what is the RDMA port's: the default ToS). */
static void add_port(json_t *values, struct hwc_arena *a, const json_t *p, const char *key,
		     const char *host)
{
	const json_t *mem = hwc_q_get(p, "members");
	size_t i;
	const json_t *m;
	json_array_foreach(mem, i, m) {
		const json_t *v = hwc_q_at(m, key);
		v = v ? v : hwc_q_at(p, key);
		if (v)
			add_value(values, a, v, host, port_name(a, m));
	}
	const json_t *v = json_array_size(mem) ? NULL : hwc_q_at(p, key);
	if (v)
		add_value(values, a, v, host, port_name(a, p));
}

json_t *hwc_merge_roce(json_t *const *docs, const char *const *hosts, size_t n)
{
	struct hwc_arena *a = hwc_arena_new();
	json_t *out = json_array();
	size_t nk;
	const char *const *keys = hwc_rules_roce_keys(&nk);
	for (size_t k = 0; a && out && k < nk; k++) {
		json_t *values = json_object();
		for (size_t h = 0; values && h < n; h++) {
			size_t i;
			const json_t *p;
			json_array_foreach(hwc_q_roce_ports(hwc_q_get(docs[h], "facts")), i, p)
				add_port(values, a, p, keys[k], hosts[h]);
		}
		json_t *vl = json_array();
		const char *s;
		json_t *e;
		json_object_foreach(values, s, e) json_array_append(vl, e);
		if (json_array_size(vl))
			json_array_append_new(out, json_pack("{s:s, s:b, s:o}", "key", keys[k], "spread",
							     json_array_size(vl) > 1, "values", vl));
		else
			json_decref(vl);
		json_decref(values);
	}
	hwc_arena_free(a);
	return out;
}

void hwc_merge_roce_text(FILE *out, const json_t *roce)
{
	size_t i, k, w;
	const json_t *r, *v, *where;
	bool any = false;
	fputs("\nRoCE settings across the fleet's ports:", out);
	json_array_foreach(roce, i, r) {
		if (!json_is_true(hwc_q_get(r, "spread")))
			continue;
		fprintf(out, "%s  %s DIFFERS:", any ? "" : "\n", hwc_q_string(r, "key"));
		any = true;
		json_array_foreach(hwc_q_get(r, "values"), k, v) {
			long long np = (long long)json_integer_value(hwc_q_get(v, "ports"));
			fprintf(out, "%s %s (%lld port%s", k ? " |" : "", hwc_q_string(v, "shown"), np, np == 1 ? "" : "s");
			json_array_foreach(hwc_q_get(v, "where"), w, where) if (np <= 3) fprintf(out, "%s%s %s", w ? ", " : ": ",
				hwc_q_string(where, "host"), hwc_q_string(where, "port"));
			fputc(')', out);
		}
		fputc('\n', out);
	}
	fputs(any ? "" : json_array_size(roce) ? " all agree\n" : " no RoCE port in the inputs\n", out);
}

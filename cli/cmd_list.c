/* SPDX-License-Identifier: MIT */
/* hwcheck list: the inventory of ConnectX cards, one row per PCI function (like `mst status -v`):
 * BDF, product, PSID, firmware, NUMA node, netdevs, RDMA devices, ports with state and rate. */
#include <string.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"

static json_t *copy_or_null(const json_t *o, const char *key)
{
	const json_t *v = hwc_q_get(o, key);
	return v && !json_is_object(v) ? json_deep_copy(v) : json_null();
}

/* The ports of one function: those of its RDMA devices. */
static json_t *function_ports(const json_t *ad, const json_t *fn)
{
	json_t *arr = json_array();
	size_t i, k;
	const json_t *p, *rd;
	json_array_foreach(hwc_q_ports(ad), i, p) {
		json_array_foreach(hwc_q_get(fn, "rdma_devices"), k, rd) {
			if (json_is_string(rd) &&
			    !strcmp(json_string_value(rd), hwc_json_str_or(p, "rdma_device", "")))
				json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o, s:o}", "rdma_device",
								     copy_or_null(p, "rdma_device"), "port",
								     copy_or_null(p, "port"), "state",
								     copy_or_null(p, "state"), "rate_gbps",
								     copy_or_null(p, "rate_gbps"), "netdev",
								     copy_or_null(p, "netdev")));
		}
	}
	return arr;
}

static json_t *list_card(const json_t *facts, const json_t *ad)
{
	json_t *o = json_object();
	static const char *const keys[] = {"bdf", "product", "part_number", "psid", "fw_version", NULL};
	for (int k = 0; keys[k]; k++)
		json_object_set_new(o, keys[k], copy_or_null(ad, keys[k]));
	json_t *fns = json_array();
	size_t i;
	const json_t *fn;
	json_array_foreach(hwc_q_function_map(ad), i, fn) {
		const char *bdf = hwc_json_str_or(fn, "bdf", NULL);
		json_t *r = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "bdf", copy_or_null(fn, "bdf"),
				      "is_vf", copy_or_null(fn, "is_vf"), "driver", copy_or_null(fn, "driver"),
				      "numa_node", copy_or_null(hwc_q_pci_dev(facts, bdf), "numa_node"),
				      "netdevs", copy_or_null(fn, "netdevs"), "rdma_devices",
				      copy_or_null(fn, "rdma_devices"));
		json_object_set_new(r, "ports", function_ports(ad, fn));
		json_array_append_new(fns, r);
	}
	json_object_set_new(o, "functions", fns);
	return o;
}

/* Why mlx.adapters is unknown (the collector could not list the PCI functions): its unavailable
 * entry, or not_collected when the section is missing. */
static json_t *adapters_why(const json_t *facts)
{
	const json_t *u = hwc_q_get(hwc_q_get(hwc_q_get(facts, "mlx"), "unavailable"), "adapters");
	return json_is_object(u) ? json_deep_copy(u) : json_pack("{s:s}", "status", "not_collected");
}

static json_t *list_json(const json_t *facts)
{
	const json_t *ads = hwc_q_adapters(facts);
	/* unknown is not none: cards is null with its reason, never an empty list */
	json_t *cards = ads ? json_array() : json_null();
	size_t i;
	const json_t *ad;
	json_array_foreach(ads, i, ad)
		json_array_append_new(cards, list_card(facts, ad));
	json_t *doc = json_pack("{s:s, s:i, s:o}", "schema", "hwcheck.list", "schema_version",
				HWC_SCHEMA_VERSION, "cards", cards);
	if (doc && !ads)
		json_object_set_new(doc, "unavailable", json_pack("{s:o}", "cards", adapters_why(facts)));
	/* GPUDirect: each GPU with its nearest NICs (facts.pci.gpudirect.pairs), when there are GPUs */
	const json_t *pairs = hwc_q_list(facts, "pci.gpudirect.pairs");
	if (doc && json_array_size(pairs)) {
		json_t *out = json_array();
		const json_t *p;
		json_array_foreach(pairs, i, p)
			json_array_append_new(out, json_pack("{s:O?, s:O?, s:O?, s:O?}", "gpu", hwc_q_get(p, "gpu"),
							     "nic", hwc_q_get(p, "nic"), "relation",
							     hwc_q_get(p, "relation"), "route", hwc_q_get(p, "route")));
		json_object_set_new(doc, "gpudirect_pairs", out);
	}
	return doc;
}

/* One element of a list cell as text into item (ITEM_MAX bytes, a cell's size); false to leave
 * it out. */
#define ITEM_MAX 256
typedef bool (*item_fn)(const json_t *x, char *item);

static bool string_item(const json_t *x, char *item)
{
	if (json_is_string(x))
		snprintf(item, ITEM_MAX, "%s", json_string_value(x));
	return json_is_string(x);
}

/* "1:ACTIVE/100G": a port, its state and its rate. */
static bool port_item(const json_t *p, char *item)
{
	const json_t *r = hwc_q_get(p, "rate_gbps");
	char rate[32] = "?";
	if (json_is_number(r))
		snprintf(rate, sizeof(rate), "%gG", json_number_value(r));
	snprintf(item, ITEM_MAX, "%lld:%s/%s", (long long)json_integer_value(hwc_q_get(p, "port")),
		 hwc_json_str_or(p, "state", "?"), rate);
	return true;
}

/* The elements of arr as text, sep between them (cut at n bytes, never overrun); "" when none. */
static const char *joined(const json_t *arr, const char *sep, item_fn fn, char *buf, size_t n)
{
	size_t i, len = 0;
	const json_t *x;
	char item[ITEM_MAX];
	buf[0] = 0;
	json_array_foreach(arr, i, x) {
		if (fn(x, item) && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? sep : "", item);
	}
	return buf;
}

#define LIST_COLS 8

/* One row of the table: BDF, product, PSID, firmware, NUMA, netdevs, RDMA devices, ports. */
static void list_row(const json_t *c, const json_t *fn, char cell[LIST_COLS][256])
{
	const json_t *nn = hwc_q_get(fn, "numa_node");
	const char *prod = hwc_json_str_or(c, "product", "?");
	size_t pl = strlen(prod);
	bool vf = json_is_true(hwc_q_get(fn, "is_vf")) && !(pl >= 2 && !strcmp(prod + pl - 2, "VF"));
	snprintf(cell[0], 256, "%s", hwc_json_str_or(fn, "bdf", "?"));
	snprintf(cell[1], 256, "%s%s", prod, vf ? " VF" : "");
	snprintf(cell[2], 256, "%s", hwc_json_str_or(c, "psid", "-"));
	snprintf(cell[3], 256, "%s", hwc_json_str_or(c, "fw_version", "?"));
	if (json_is_integer(nn))
		snprintf(cell[4], 256, "%lld", (long long)json_integer_value(nn));
	else
		snprintf(cell[4], 256, "?");
	joined(hwc_q_get(fn, "netdevs"), ",", string_item, cell[5], 256);
	joined(hwc_q_get(fn, "rdma_devices"), ",", string_item, cell[6], 256);
	joined(hwc_q_get(fn, "ports"), " ", port_item, cell[7], 256);
	for (int k = 5; k < LIST_COLS; k++)
		if (!cell[k][0])
			snprintf(cell[k], 256, "-");
}

static void print_cell(int k, int w, const char *s)
{
	if (k < LIST_COLS - 1)
		printf("%-*s  ", w, s);
	else
		printf("%s\n", s);
}

/* Columns as wide as their widest cell (mst status -v style), the last one unpadded. */
static void list_text(const json_t *doc)
{
	static const char *const head[LIST_COLS] = {"BDF", "PRODUCT", "PSID", "FIRMWARE",
						    "NUMA", "NETDEV", "RDMA", "PORTS"};
	const json_t *cards = hwc_q_get(doc, "cards");
	if (!json_is_array(cards)) {
		const json_t *why = hwc_q_get(hwc_q_get(doc, "unavailable"), "cards");
		const char *det = hwc_q_string(why, "detail");
		printf("ConnectX adapters unknown (%s%s%s)\n", hwc_json_str_or(why, "status", "?"),
		       det ? ": " : "", det ? det : "");
		return;
	}
	if (json_array_size(cards) == 0) {
		puts("no ConnectX adapter found");
		return;
	}
	int w[LIST_COLS];
	for (int k = 0; k < LIST_COLS; k++)
		w[k] = (int)strlen(head[k]);
	char cell[LIST_COLS][256];
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			for (int k = 0; k < LIST_COLS; k++)
				print_cell(k, w[k], head[k]);
		size_t i, j;
		const json_t *c, *fn;
		json_array_foreach(cards, i, c) json_array_foreach(hwc_q_get(c, "functions"), j, fn) {
			list_row(c, fn, cell);
			for (int k = 0; k < LIST_COLS; k++) {
				if (!pass && (int)strlen(cell[k]) > w[k])
					w[k] = (int)strlen(cell[k]);
				if (pass)
					print_cell(k, w[k], cell[k]);
			}
		}
	}
}

/* GPU  NIC  RELATION  ROUTE, under the cards. */
static void pairs_text(const json_t *doc)
{
	const json_t *pairs = hwc_q_get(doc, "gpudirect_pairs");
	if (!json_array_size(pairs))
		return;
	printf("\n%-13s  %-13s  %-8s  %s\n", "GPU", "NIC", "RELATION", "ROUTE");
	size_t i, k;
	const json_t *p, *h;
	json_array_foreach(pairs, i, p) {
		printf("%-13s  %-13s  %-8s  ", hwc_json_str_or(p, "gpu", "?"), hwc_json_str_or(p, "nic", "?"),
		       hwc_json_str_or(p, "relation", "?"));
		json_array_foreach(hwc_q_get(p, "route"), k, h)
			printf("%s%s", k ? " > " : "", json_string_value(h) ? json_string_value(h) : "?");
		printf("\n");
	}
}

int hwc_cmd_list(struct hwc_cli *c)
{
	struct hwc_cli_run r;
	int rc = hwc_cli_begin(c, "list", false, &r);
	if (rc)
		return rc;
	json_t *doc = list_json(r.facts);
	if (c->json)
		rc = hwc_emit_json(c, doc);
	else {
		list_text(doc);
		pairs_text(doc);
	}
	hwc_render_errors(r.f);
	json_decref(doc);
	bool nothing = r.nothing;
	hwc_cli_end(&r);
	if (nothing) {
		hwc_cli_err_nothing(c);
		return HWC_EXIT_NOTHING;
	}
	return rc;
}

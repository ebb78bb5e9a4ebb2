/* SPDX-License-Identifier: MIT */
/* Unit tests of rules/: facts view helpers, profile validation messages (file:line:col and JSON
 * path), waivers and their expiry, the summary line, and the table's invariants. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "rules/rules-int.h"
#include "test.h"
#include "core/util.h"

static void test_lookup(void)
{
	struct hwc_arena *a = hwc_arena_new();
	json_t *o = json_loads("{\"link\": {\"speed_gts\": 8, \"width\": null, \"unavailable\": "
			       "{\"width\": {\"status\": \"needs_root\", \"detail\": \"config space\"}}},"
			       " \"aer\": null, \"unavailable\": {\"aer\": {\"status\": \"absent\"}}}",
			       0, NULL);
	double v = 0;
	const char *why = NULL;
	CHECK_INT(hwc_q_find_num(o, "link.speed_gts", &v, &why, a), 1);
	CHECK(v == 8);
	CHECK_INT(hwc_q_find_num(o, "link.width", &v, &why, a), 0);
	CHECK_STR(why, "needs_root: config space");
	CHECK_INT(hwc_q_find_num(o, "aer.correctable", &v, &why, a), 0);
	CHECK_STR(why, "absent");
	CHECK_INT(hwc_q_find_num(o, "nothing.here", &v, &why, a), 0);
	CHECK_STR(why, "not_collected");
	const char *s;
	CHECK_INT(hwc_q_find_str(o, "link.speed_gts", &s, &why, a), 0);
	CHECK(strstr(why, "invalid") != NULL);
	json_decref(o);
	hwc_arena_free(a);
}

/* The typed accessors of core/query.h: a null is an unknown fact, an absent key was never
 * collected, and each accessor answers NULL (or 0) rather than a value of the wrong shape. */
static void test_accessors(void)
{
	struct hwc_arena *a = hwc_arena_new();
	json_t *f = json_loads(
		"{\"host\": {\"numa\": {\"nodes\": [{\"id\": 0, \"cpulist\": \"0-3\"}, {\"id\": 1, \"cpulist\": \"4-7\"}]}},"
		" \"netdevs\": {\"not\": \"an array\"}, \"pci\": {\"gpudirect\": [],"
		" \"devices\": [{\"bdf\": \"0000:81:00.0\", \"upstream\": \"0000:80:01.0\","
		" \"link\": {\"speed_gts\": 16, \"width\": null}, \"path_bottleneck\": {\"gbps\": 126}}]},"
		" \"mlx\": {\"fw_image\": null, \"adapters\": [{\"bdf\": \"0000:81:00.0\", \"fw_config\":"
		" {\"ATS_ENABLED\": {\"current\": null, \"next_boot\": \"True(1)\"}, \"NUM_OF_VFS\": null,"
		" \"unavailable\": {\"SRIOV_EN\": {\"status\": \"timeout\"}}}, \"fw_reset\": \"x\", \"ports\": 3}]}}",
		0, NULL);
	CHECK(f != NULL);
	const json_t *ad = json_array_get(hwc_q_adapters(f), 0), *dev = hwc_q_pci_dev(f, "0000:81:00.0");
	/* sections */
	CHECK(hwc_q_host(f) != NULL);
	CHECK(hwc_q_netdevs(f) == NULL);   /* not an array */
	CHECK(hwc_q_gpudirect(f) == NULL); /* not an object */
	CHECK(hwc_q_roce_ports(f) == NULL);
	CHECK(json_is_null(hwc_q_fw_image(f))); /* given but unknown: kept */
	CHECK(hwc_q_fw_image(hwc_q_host(f)) == NULL);
	/* a NUMA node by id: integers only */
	json_t *one = json_integer(1), *str = json_string("1");
	CHECK_STR(hwc_q_string(hwc_q_numa_node(f, one), "cpulist"), "4-7");
	CHECK(hwc_q_numa_node(f, str) == NULL);
	CHECK(hwc_q_numa_node(f, NULL) == NULL);
	json_decref(one);
	json_decref(str);
	/* a PCI function */
	CHECK(hwc_q_pci_link_num(dev, "speed_gts") == 16);
	CHECK(hwc_q_pci_link_num(dev, "width") == 0); /* null: unknown */
	CHECK(hwc_q_pci_link_num(NULL, "width") == 0);
	CHECK(json_number_value(hwc_q_get(hwc_q_path_bottleneck(dev), "gbps")) == 126);
	CHECK_STR(hwc_q_pci_upstream(dev), "0000:80:01.0");
	/* an adapter */
	CHECK(hwc_q_ports(ad) == NULL);    /* not an array */
	CHECK(hwc_q_fw_reset(ad) == NULL); /* not an object */
	const json_t *fc = hwc_q_fw_config(ad);
	CHECK(fc != NULL);
	CHECK(hwc_q_fw_col(hwc_q_fw_param(ad, "ATS_ENABLED"), "current") == NULL);
	CHECK_STR(json_string_value(hwc_q_fw_effective(hwc_q_fw_param(ad, "ATS_ENABLED"))), "True(1)");
	CHECK(hwc_q_fw_param(ad, "NUM_OF_VFS") == NULL);
	CHECK(hwc_q_is_null(fc, "NUM_OF_VFS"));
	CHECK(!hwc_q_is_null(fc, "SRIOV_EN") && !hwc_q_is_null(NULL, "x"));
	CHECK_STR(hwc_q_string(hwc_q_unavailable(fc, "SRIOV_EN"), "status"), "timeout");
	CHECK(hwc_q_unavailable(fc, "NUM_OF_VFS") == NULL);
	/* two objects holding the same value: nulls are equal, an absent key never is */
	json_t *x = json_loads("{\"a\": 1, \"n\": null}", 0, NULL), *y = json_loads("{\"a\": 1, \"n\": null}", 0, NULL);
	CHECK(hwc_q_same(x, y, "a") && hwc_q_same(x, y, "n"));
	CHECK(!hwc_q_same(x, y, "b") && !hwc_q_same(x, NULL, "a"));
	/* a value of the wrong kind says so */
	bool b;
	const char *why = NULL;
	CHECK_INT(hwc_q_find_bool(x, "a", &b, &why, a), 0);
	CHECK_STR(why, "invalid: not a boolean");
	CHECK_INT(hwc_q_find_num(x, "n", &(double){0}, &why, a), 0);
	CHECK_STR(why, "null without a status");
	json_decref(x);
	json_decref(y);
	json_decref(f);
	hwc_arena_free(a);
}

static int parse(const char *text, char *err, size_t n)
{
	struct hwc_profile *p = NULL;
	int rc = hwc_profile_parse("site.json", text, strlen(text), &p, err, n);
	hwc_profile_free(p);
	return rc;
}

/* The one-value keys (thresholds, host, roce): each value checked by its line of
 * rules/profile-keys.h, and the built-in default holds the table's defaults. */
static void test_profile_keys(void)
{
	char err[512];
	static const char *const bad[][2] = {
		{"\"roce\": {\"priority\": 8}", "roce.priority: expected an integer 0..7"},
		{"\"roce\": {\"dscp\": 26.5}", "roce.dscp: expected an integer 0..63"},
		{"\"roce\": {\"trust\": \"DSCP\"}", "roce.trust: expected \"dscp\" or \"pcp\""},
		{"\"roce\": {\"lossless\": 1}", "roce.lossless: expected true or false"},
		{"\"roce\": {\"pfc\": 3}", "roce.pfc: unknown key \"pfc\" in roce (expected one of: "
					   "lossless, priority, dscp, cnp_dscp, cnp_priority, trust)"},
		{"\"host\": {\"iommu\": \"off\"}",
		 "host.iommu: expected \"passthrough\", \"translated\" or \"any\""},
		{"\"host\": {\"platform\": 1}", "host.platform: expected \"bare_metal\" or \"vm\""},
		{"\"host\": {\"mtu_min\": -1}", "host.mtu_min: -1 is out of range [0, 65536]"},
		{"\"host\": {\"mtu\": 9000}", "host.mtu: unknown key \"mtu\" in host (expected one of: "
					  "iommu, mtu_min, role, pci_wr_ordering, platform)"},
		{"\"thresholds\": {\"probe_min_ratio\": 1.5}",
		 "thresholds.probe_min_ratio: 1.5 is out of range [0, 1]"},
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		char t[512];
		snprintf(t, sizeof(t), "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, %s}", bad[i][0]);
		CHECK(parse(t, err, sizeof(err)) < 0);
		CHECK(strstr(err, bad[i][1]) != NULL);
	}
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"host\": {\"mtu_min\": 9000, "
		    "\"role\": \"gpu_compute\"}, \"roce\": {\"lossless\": false, \"priority\": 3, \"trust\": \"pcp\"}}",
		    err, sizeof(err)) == 0);
	struct hwc_profile *p = NULL;
	CHECK(hwc_profile_load(NULL, &p, err, sizeof(err)) == 0);
	static const struct hwc_profile_key keys[] = {HWC_PROFILE_KEYS(HWC_PK_ROW)};
	for (int t = 0; t < HWC_T_COUNT; t++)
		CHECK(!keys[t].def || keys[t].type != HWC_PK_number ||
		      hwc_profile_threshold(p, (enum hwc_threshold)t) == strtod(keys[t].def, NULL));
	CHECK(hwc_profile_threshold(p, HWC_T_LINK_EFFECTIVE_BER_MAX) == 1e-12);
	hwc_profile_free(p);
}

static void test_profile_errors(void)
{
	char err[512];
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1}", err, sizeof(err)) == 0);
	/* syntax: line and column from the parser */
	CHECK(parse("{\"schema\": \"hwcheck.profile\",\n \"schema_version\": 1,,}", err, sizeof(err)) < 0);
	CHECK(strncmp(err, "site.json:2:", 12) == 0);
	/* unknown key: line:col of the value and the path */
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1,\n"
		    "  \"thresholds\": {\n    \"card_temp_limt_c\": 80}}",
		    err, sizeof(err)) < 0);
	CHECK(strstr(err, "site.json:3:25: thresholds.card_temp_limt_c: unknown threshold") == err);
	/* type error inside an array element */
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1,\n\"waivers\": [\n"
		    "{\"rule\": \"NET_LRO_ON\", \"subject\": \"eth0\", \"reason\": \"x\", \"expires\": \"2026-13-01\"}]}",
		    err, sizeof(err)) < 0);
	CHECK(strstr(err, "site.json:3:") == err);
	CHECK(strstr(err, "waivers[0].expires") != NULL);
	/* a rule that does not exist */
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"rules\": {\"NO_SUCH\": {\"enabled\": false}}}",
		    err, sizeof(err)) < 0);
	CHECK(strstr(err, "no rule \"NO_SUCH\"") != NULL);
	/* wrong schema */
	CHECK(parse("{\"schema\": \"x\", \"schema_version\": 1}", err, sizeof(err)) < 0);
	CHECK(strstr(err, "hwcheck.profile") != NULL);
	/* bad op */
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"expectations\": "
		    "[{\"fact\": \"netdevs[].mtu\", \"op\": \"=~\", \"value\": 1}]}",
		    err, sizeof(err)) < 0);
	CHECK(strstr(err, "expectations[0].op") != NULL);
	/* top-level not an object */
	CHECK(parse("[1]", err, sizeof(err)) < 0);
	/* optional keys of the wrong type, sections that are not objects: the path and the type */
	static const char *const typed[][2] = {
		{"\"host\": {\"mtu_min\": \"9000\"}", "host.mtu_min: expected a number"},
		{"\"unused_ports\": [{\"netdev\": \"eth0\", \"reason\": 5}]", "unused_ports[0].reason: expected a string"},
		{"\"products\": [{\"match\": {\"psid\": \"MT_1\"}, \"pcie\": {\"width\": \"16\"}}]",
		 "products[0].pcie.width: expected a number"},
		{"\"thresholds\": [1]", "thresholds: expected an object of thresholds"},
		{"\"rules\": 1", "rules: expected an object {"},
		{"\"name\": 5", "name: expected a string"},
		{"\"roce\": 1", "roce: expected an object"},
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(typed); i++) {
		char t[512];
		snprintf(t, sizeof(t), "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, %s}", typed[i][0]);
		CHECK(parse(t, err, sizeof(err)) < 0);
		CHECK(strstr(err, typed[i][1]) != NULL);
	}
	/* issue 20: an expiry date the calendar does not have, a fact path that never evaluates */
	static const char *const dates[][2] = {{"2099-02-31", "bad"}, {"2027-02-29", "bad"},
					       {"2028-02-29", "ok"}, {"2100-02-29", "bad"},
					       {"2027-04-31", "bad"}, {"2027-12-31", "ok"}};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(dates); i++) {
		char t[512];
		snprintf(t, sizeof(t), "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, "
			 "\"waivers\": [{\"rule\": \"NET_LRO_ON\", \"subject\": \"*\", \"reason\": \"x\", "
			 "\"expires\": \"%s\"}]}", dates[i][0]);
		bool ok = dates[i][1][0] == 'o';
		CHECK((parse(t, err, sizeof(err)) == 0) == ok);
		CHECK(ok || strstr(err, "waivers[0].expires: a waiver needs \"expires\": a date "
				   "YYYY-MM-DD that exists") != NULL);
	}
	static const char *const facts[][2] = {
		{"netdevs[][]", "bad"}, {"netdevs[0].mtu", "bad"}, {"netdevs[].", "bad"},
		{"[].mtu", "bad"},      {"netdevs[]mtu", "bad"},   {"net devs", "bad"},
		{"netdevs[].mtu", "ok"}, {"host.kernel.lockdown", "ok"}, {"pci.devices[].link.width", "ok"}};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(facts); i++) {
		char t[512];
		snprintf(t, sizeof(t), "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, "
			 "\"expectations\": [{\"fact\": \"%s\", \"op\": \"exists\"}]}", facts[i][0]);
		bool ok = facts[i][1][0] == 'o';
		CHECK((parse(t, err, sizeof(err)) == 0) == ok);
		CHECK(ok || strstr(err, "expectations[0].fact: expected a fact path") != NULL);
	}
	/* the built-in default must load */
	struct hwc_profile *p = NULL;
	CHECK(hwc_profile_load(NULL, &p, err, sizeof(err)) == 0);
	CHECK(hwc_profile_threshold(p, HWC_T_CARD_TEMP_LIMIT_C) == 85);
	hwc_profile_free(p);
	/* a site value overrides the default, the rest stays */
	CHECK(parse("{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"thresholds\": {\"card_temp_limit_c\": 70}}",
		    err, sizeof(err)) == 0);
	const char *t = "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"thresholds\": {\"card_temp_limit_c\": 70}}";
	CHECK(hwc_profile_parse("x", t, strlen(t), &p, err, sizeof(err)) == 0);
	CHECK(hwc_profile_threshold(p, HWC_T_CARD_TEMP_LIMIT_C) == 70);
	CHECK(hwc_profile_threshold(p, HWC_T_MRRS_MIN_BYTES) == 512);
	hwc_profile_free(p);
}

static void test_waivers_and_summary(void)
{
	const char *t = "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"waivers\": ["
			"{\"rule\": \"MLX_NO_ADAPTER\", \"subject\": \"host\", \"reason\": \"head node\", \"expires\": \"2999-12-31\"}]}";
	const char *t2 = "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"waivers\": ["
			 "{\"rule\": \"MLX_NO_ADAPTER\", \"subject\": \"*\", \"reason\": \"old\", \"expires\": \"2001-01-01\"}]}";
	char err[256];
	struct hwc_profile *p = NULL, *p2 = NULL;
	CHECK(hwc_profile_parse("w", t, strlen(t), &p, err, sizeof(err)) == 0);
	CHECK(hwc_profile_parse("w2", t2, strlen(t2), &p2, err, sizeof(err)) == 0);
	json_t *facts = json_loads("{\"mlx\": {\"adapters\": []}, \"host\": {}}", 0, NULL);
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_findings fd = {0}, fd2 = {0};
	hwc_rules_eval(facts, p, a, &fd);
	hwc_rules_eval(facts, p2, a, &fd2);
	const struct hwc_finding *w = NULL, *w2 = NULL;
	for (size_t i = 0; i < fd.n; i++)
		if (!strcmp(fd.items[i].rule_id, "MLX_NO_ADAPTER"))
			w = &fd.items[i];
	for (size_t i = 0; i < fd2.n; i++)
		if (!strcmp(fd2.items[i].rule_id, "MLX_NO_ADAPTER"))
			w2 = &fd2.items[i];
	CHECK(w && w->severity == HWC_SEV_WARN && w->waived_reason && !strcmp(w->waived_reason, "head node"));
	CHECK(w2 && !w2->waived_reason && w2->waiver_expired);
	CHECK(hwc_findings_worst(&fd) != HWC_SEV_WARN); /* waived: does not count */
	CHECK_INT(hwc_findings_worst(&fd2), HWC_SEV_WARN);
	char line[96];
	hwc_findings_summary_line(&fd2, line, sizeof(line));
	CHECK(strlen(line) <= 80);
	CHECK(strncmp(line, "hwcheck: WARN 0 error, 1 warn", 29) == 0);
	CHECK(strstr(line, "MLX_NO_ADAPTER") != NULL);
	/* many findings with long subjects still fit */
	struct hwc_findings big = {0};
	for (int i = 0; i < 40; i++) {
		struct hwc_finding *f = HWC_VEC_PUSH(a, &big);
		f->rule_id = "PCIE_RELAXED_ORDERING_OFF";
		f->severity = HWC_SEV_ERROR;
		f->subject = "0000:ff:1f.7-with-a-very-long-subject-name-indeed";
	}
	hwc_findings_summary_line(&big, line, sizeof(line));
	CHECK(strlen(line) <= 80);
	CHECK(strstr(line, "+39") != NULL);
	json_decref(facts);
	hwc_arena_free(a);
	hwc_profile_free(p);
	hwc_profile_free(p2);
}

static void test_table(void)
{
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	CHECK(n >= 35);
	for (size_t i = 0; i < n; i++) {
		CHECK(t[i].id && t[i].title && t[i].rationale && t[i].fix && t[i].eval);
		CHECK(t[i].severity <= HWC_SEV_ERROR);
		for (size_t k = i + 1; k < n; k++)
			CHECK(strcmp(t[i].id, t[k].id) != 0);
	}
	CHECK(hwc_rule_find("MLX_NO_ADAPTER") != NULL);
	CHECK(hwc_rule_find("NOPE") == NULL);
}

/* cli/err.c holds the real one; the renderers under test only need it to link (silently). */
void hwc_cli_err(const char *fmt, ...)
{
	(void)fmt;
}

/* The text report: grouped by card, the worst card first, host last; evidence and fix under
 * each finding; waived findings marked; the summary line at the end. */
static void test_render(void)
{
	const char *ft =
		"{\"host\": {\"cpu\": {\"vendor\": \"AuthenticAMD\", \"model_name\": \"EPYC\"},"
		" \"x2apic\": {\"supported\": true, \"enabled\": false}},"
		" \"mlx\": {\"adapters\": ["
		"{\"bdf\": \"0000:21:00.0\", \"product\": \"ConnectX-7\", \"fw_version\": \"28.39.1002\", \"netdevs\": [\"ens1\"]},"
		"{\"bdf\": \"0000:81:00.0\", \"product\": \"ConnectX-7\", \"fw_version\": \"28.39.1002\", \"netdevs\": [\"ens2\"]}]},"
		" \"netdevs\": [{\"name\": \"ens1\", \"bdf\": \"0000:21:00.0\", \"features\": {\"lro\": true}},"
		" {\"name\": \"ens2\", \"bdf\": \"0000:81:00.0\", \"rings\": {\"rx\": 512, \"rx_max\": 8192},"
		" \"counters\": {\"rx_discards_phy\": 5}, \"features\": {\"lro\": true}}]}";
	const char *pt = "{\"schema\": \"hwcheck.profile\", \"schema_version\": 1, \"waivers\": ["
			 "{\"rule\": \"NET_LRO_ON\", \"subject\": \"ens1\", \"reason\": \"bridge test box\", \"expires\": \"2999-01-01\"}],"
			 " \"rules\": {\"HOST_CPU_POWERSAVE\": {\"enabled\": false}, \"HOST_DEEP_CSTATES\": {\"enabled\": false},"
			 " \"THERMAL_HOST_HOT\": {\"enabled\": false}, \"COLLECT_INCOMPLETE\": {\"enabled\": false}}}";
	json_t *facts = json_loads(ft, 0, NULL);
	struct hwc_profile *p = NULL;
	char err[256];
	CHECK(hwc_profile_parse("t", pt, strlen(pt), &p, err, sizeof(err)) == 0);
	struct hwc_facts *f = hwc_facts_new();
	struct hwc_findings fd = {0};
	hwc_rules_eval(facts, p, f->arena, &fd);
	struct hwc_cli c = {.facts_file = "t.json", .verbose = false};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	hwc_render_check_text(out, &c, facts, &fd, f);
	fclose(out);
	const char *g81 = strstr(buf, "\n0000:81:00.0 ConnectX-7, firmware 28.39.1002\n");
	const char *g21 = strstr(buf, "\n0000:21:00.0 ConnectX-7, firmware 28.39.1002\n");
	const char *gh = strstr(buf, "\nhost\n");
	/* worst first: ens2's card (two warnings), then the host (one warning; cards win ties),
	 * then ens1's card, whose only warning is waived */
	CHECK(g81 && g21 && gh && g81 < gh && gh < g21);
	CHECK(strstr(buf, "warn    NET_RING_SMALL [ens2]: receive ring is 512 of 8192") != NULL);
	CHECK(strstr(buf, "netdevs[ens2].rings.rx = 512, expected 8192") != NULL);
	CHECK(strstr(buf, "fix: `ethtool -G ens2 rx 8192`") != NULL); /* the exact command */
	CHECK(strstr(buf, "waived  NET_LRO_ON [ens1]") != NULL);
	CHECK(strstr(buf, "waived until 2999-01-01: bridge test box") != NULL);
	CHECK(strstr(buf, "warn    HOST_X2APIC_OFF: ") != NULL);
	CHECK(strstr(buf, "\nhwcheck: WARN 0 error, 3 warn, ") != NULL);
	free(buf);
	buf = NULL;
	c.summary_line = true;
	out = open_memstream(&buf, &len);
	hwc_render_check_text(out, &c, facts, &fd, f);
	fclose(out);
	CHECK(len <= 81 && buf[len - 1] == '\n' && strchr(buf, '\n') == buf + len - 1);
	CHECK(strncmp(buf, "hwcheck: WARN 0 error, 3 warn, ", 31) == 0);
	free(buf);
	hwc_facts_free(f);
	hwc_profile_free(p);
	json_decref(facts);
}

int main(void)
{
	test_lookup();
	test_accessors();
	test_profile_errors();
	test_profile_keys();
	test_waivers_and_summary();
	test_table();
	test_render();
	TEST_MAIN_END();
}

/* SPDX-License-Identifier: MIT */
/* Unit tests of rules/: facts view helpers, profile validation messages (file:line:col and JSON
 * path), waivers and their expiry, the summary line, and the table's invariants. */
#include <string.h>

#include "rules/rules-int.h"
#include "test.h"

static void test_cpulist(void)
{
	CHECK_INT(fv_cpulist_count("0-23"), 24);
	CHECK_INT(fv_cpulist_count("0-11,24-35"), 24);
	CHECK_INT(fv_cpulist_count("5"), 1);
	CHECK_INT(fv_cpulist_count("0-3\n"), 4);
	CHECK_INT(fv_cpulist_count(""), 0);
	CHECK_INT(fv_cpulist_count("x"), -1);
	CHECK_INT(fv_cpulist_count("3-1"), -1);
}

static void test_lookup(void)
{
	struct hwc_arena *a = hwc_arena_new();
	json_t *o = json_loads("{\"link\": {\"speed_gts\": 8, \"width\": null, \"unavailable\": "
			       "{\"width\": {\"status\": \"needs_root\", \"detail\": \"config space\"}}},"
			       " \"aer\": null, \"unavailable\": {\"aer\": {\"status\": \"absent\"}}}",
			       0, NULL);
	double v = 0;
	const char *why = NULL;
	CHECK_INT(fv_num(o, "link.speed_gts", &v, &why, a), 1);
	CHECK(v == 8);
	CHECK_INT(fv_num(o, "link.width", &v, &why, a), 0);
	CHECK_STR(why, "needs_root: config space");
	CHECK_INT(fv_num(o, "aer.correctable", &v, &why, a), 0);
	CHECK_STR(why, "absent");
	CHECK_INT(fv_num(o, "nothing.here", &v, &why, a), 0);
	CHECK_STR(why, "not_collected");
	const char *s;
	CHECK_INT(fv_str(o, "link.speed_gts", &s, &why, a), 0);
	CHECK(strstr(why, "invalid") != NULL);
	json_decref(o);
	hwc_arena_free(a);
}

static int parse(const char *text, char *err, size_t n)
{
	struct hwc_profile *p = NULL;
	int rc = hwc_profile_parse("site.json", text, strlen(text), &p, err, n);
	hwc_profile_free(p);
	return rc;
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
	CHECK(strncmp(line, "hwcheck WARN: 0 error, 1 warn", 29) == 0);
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

int main(void)
{
	test_cpulist();
	test_lookup();
	test_profile_errors();
	test_waivers_and_summary();
	test_table();
	TEST_MAIN_END();
}

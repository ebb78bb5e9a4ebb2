/* SPDX-License-Identifier: MIT */
/* Unit tests of core/scan: CPU lists, PCI addresses and bracketed words, with the inputs real
 * hosts give (node cpulists, sysfs device names, dmesg prefixes, /sys choice files) and broken
 * ones. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/scan.h"
#include "core/util.h"
#include "test.h"

static void test_cpulist_count(void)
{
	int64_t n = -1;
	CHECK_INT(hwc_cpulist_count("0-23,48-71", &n), 0);
	CHECK_INT(n, 48);
	CHECK_INT(hwc_cpulist_count("0-11,24-35", &n), 0);
	CHECK_INT(n, 24);
	CHECK_INT(hwc_cpulist_count("5", &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(hwc_cpulist_count("0-3\n", &n), 0);
	CHECK_INT(n, 4);
	CHECK_INT(hwc_cpulist_count(" 0-1 \n", &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(hwc_cpulist_count("", &n), 0); /* a memory-only node */
	CHECK_INT(n, 0);
	CHECK_INT(hwc_cpulist_count("\n", &n), 0);
	CHECK_INT(n, 0);
	static const char *const bad[] = {"x", "3-1", "1,", "1-", "-1", "+1", "0,,1", "0 1",
					  "0-3 junk", "1, 2", "0-99999999999", "4194305"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		CHECK_INT(hwc_cpulist_count(bad[i], &n), -EINVAL);
		CHECK_INT(n, 0);
	}
	CHECK_INT(hwc_cpulist_count(NULL, &n), -EINVAL);
	CHECK_INT(hwc_cpulist_count("4194304", &n), 0); /* HWC_CPULIST_MAX itself */
}

static void test_cpulist_bits(void)
{
	uint64_t bits[2] = {0};
	CHECK_INT(hwc_cpulist_parse("0-3,8,10-11\n", bits, 128), 0);
	CHECK_INT(bits[0], 0xd0f);
	memset(bits, 0, sizeof(bits));
	CHECK_INT(hwc_cpulist_parse("64,127", bits, 128), 0);
	CHECK_INT(bits[0], 0);
	CHECK(bits[1] == (1ULL | 1ULL << 63));
	memset(bits, 0, sizeof(bits));
	CHECK_INT(hwc_cpulist_parse("", bits, 128), 0);
	CHECK(bits[0] == 0 && bits[1] == 0);
	CHECK_INT(hwc_cpulist_parse("3-1", bits, 128), -EINVAL);
	CHECK_INT(hwc_cpulist_parse("0,128", bits, 128), -ERANGE);
	CHECK_INT(hwc_cpulist_parse("0-", bits, 128), -EINVAL);
}

static int stop_at_two(void *ctx, unsigned lo, unsigned hi)
{
	(*(int *)ctx)++;
	return lo >= 2 ? -E2BIG : 0;
}

static void test_cpulist_walk(void)
{
	int calls = 0;
	CHECK_INT(hwc_cpulist_walk("0,1,2,3", stop_at_two, &calls), -E2BIG);
	CHECK_INT(calls, 3);
}

static void test_bdf(void)
{
	struct hwc_bdf b = {0};
	CHECK(hwc_bdf_parse("0000:3b:00.1", 0, &b));
	CHECK(b.domain == 0 && b.bus == 0x3b && b.dev == 0 && b.fn == 1);
	CHECK(hwc_bdf_parse("10000:e1:1f.7", 0, &b)); /* a VMD domain */
	CHECK(b.domain == 0x10000 && b.bus == 0xe1 && b.dev == 0x1f && b.fn == 7);
	CHECK(hwc_bdf_parse("0000:AF:00.0", 0, &b));
	CHECK(b.bus == 0xaf);
	CHECK(!hwc_bdf_parse("81:00.1", 0, &b));
	CHECK(hwc_bdf_parse("81:00.1", HWC_BDF_SHORT, &b));
	CHECK(b.domain == 0 && b.bus == 0x81 && b.dev == 0 && b.fn == 1);
	static const char *const bad[] = {"",           "0000:3b:00.8",  "0000:3b:20.0",
					  "000:3b:00.0", "0000:3b:0.0",   "0000:3b:00.0 ",
					  "pci0000:00",  "0000:3b:00",    "000000000:3b:00.0",
					  "0000:3g:00.0", "0000-3b-00.0", "3b:00.0.0"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++)
		CHECK(!hwc_bdf_parse(bad[i], HWC_BDF_SHORT, NULL));
	CHECK(!hwc_bdf_parse(NULL, HWC_BDF_SHORT, NULL));
	/* a prefix: mlx5_core's dmesg lines */
	const char *l = "0000:08:00.0: mlx5_cmd_out_err:838: ACCESS_REG(0x805) op_mod(0x1)";
	CHECK_INT(hwc_bdf_scan(l, strlen(l), 0, &b), 12);
	CHECK_INT(hwc_bdf_scan(l, 11, 0, &b), 0);
	CHECK_INT(hwc_bdf_scan("mlx5_0", 6, HWC_BDF_SHORT, NULL), 0);
}

static void test_bracketed(void)
{
	const char *w = NULL;
	size_t n = 0;
	const char *s = "[default] performance powersave powersupersave";
	CHECK_INT(hwc_bracketed(s, strlen(s), &w, &n), 0);
	CHECK(n == 7 && memcmp(w, "default", 7) == 0);
	s = "none [integrity] confidentiality";
	CHECK_INT(hwc_bracketed(s, strlen(s), &w, &n), 0);
	CHECK(n == 9 && memcmp(w, "integrity", 9) == 0);
	s = "[    5.123456] mlx5_core 0000:08:00.0: firmware version: 16.35.2000";
	CHECK_INT(hwc_bracketed(s, strlen(s), &w, &n), 0);
	CHECK(w == s + 1 && n == 12);
	CHECK_INT(hwc_bracketed("garbage", 7, &w, &n), -EINVAL);
	CHECK_INT(hwc_bracketed("[]", 2, &w, &n), -EINVAL);
	CHECK_INT(hwc_bracketed("[open", 5, &w, &n), -EINVAL);
	CHECK_INT(hwc_bracketed("[x]", 2, &w, &n), -EINVAL); /* the ']' lies past n */
}

/* Lines of a tool's text: the last may lack its newline, an empty line is a line, and the end
 * of the text (or a NULL text of length 0) ends the walk. */
static void test_next_line(void)
{
	const char *t = "Ring parameters for eth2:\n\nRX:\t8192\r\nTX: 8192";
	size_t pos = 0, n = 0;
	const char *l = NULL;
	CHECK(hwc_next_line(t, strlen(t), &pos, &l, &n));
	CHECK(l == t && n == 25 && pos == 26);
	CHECK(hwc_next_line(t, strlen(t), &pos, &l, &n));
	CHECK(l == t + 26 && n == 0);
	CHECK(hwc_next_line(t, strlen(t), &pos, &l, &n));
	CHECK(n == 9 && memcmp(l, "RX:\t8192\r", 9) == 0); /* the \r stays: each parser trims */
	CHECK(hwc_next_line(t, strlen(t), &pos, &l, &n));
	CHECK(n == 8 && memcmp(l, "TX: 8192", 8) == 0 && pos == strlen(t));
	CHECK(!hwc_next_line(t, strlen(t), &pos, &l, &n));
	pos = 0;
	CHECK(!hwc_next_line(NULL, 0, &pos, &l, &n));
	CHECK(hwc_next_line("\n", 1, &pos, &l, &n) && n == 0 && pos == 1);
	CHECK(!hwc_next_line("\n", 1, &pos, &l, &n));
	pos = 0;
	CHECK(hwc_next_line("a\nb", 1, &pos, &l, &n) && n == 1 && pos == 1); /* len bounds it */
}

int main(void)
{
	test_cpulist_count();
	test_cpulist_bits();
	test_cpulist_walk();
	test_bdf();
	test_bracketed();
	test_next_line();
	TEST_MAIN_END();
}

/* SPDX-License-Identifier: MIT */
/* Fuzz core/scan: the CPU list, PCI address, bracketed-word and line parsers on any bytes,
 * checking that what they report lies inside the input and agrees between the parsers' views. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/scan.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cpulists(const char *s)
{
	int64_t n;
	uint64_t bits[1024 / 64] = {0};
	int rc = hwc_cpulist_count(s, &n);
	int rb = hwc_cpulist_parse(s, bits, 1024);
	if (rc < 0) {
		MUST(n == 0 && rb < 0);
		return;
	}
	MUST(n >= 0 && (rb == 0 || rb == -ERANGE));
	if (rb == 0) {
		int64_t set = 0;
		for (size_t i = 0; i < 1024 / 64; i++)
			set += __builtin_popcountll(bits[i]);
		MUST(set <= n && (set > 0) == (n > 0)); /* "1,1" counts twice, sets once */
	}
}

static void bdfs(const char *s, size_t n)
{
	struct hwc_bdf b;
	size_t len = hwc_bdf_scan(s, n, HWC_BDF_SHORT, &b);
	MUST(len <= n);
	if (!len)
		return;
	MUST(b.bus < 256 && b.dev < 32 && b.fn < 8);
	char back[32];
	/* the domain printed as wide as it was written (leading zeros and all) */
	int k = len == 7 ? snprintf(back, sizeof(back), "%02x:%02x.%x", b.bus, b.dev, b.fn)
			 : snprintf(back, sizeof(back), "%0*x:%02x:%02x.%x", (int)len - 8, b.domain,
				    b.bus, b.dev, b.fn);
	MUST(k > 0 && (size_t)k == len && strncasecmp(back, s, len) == 0);
	struct hwc_bdf again;
	MUST(hwc_bdf_parse(back, HWC_BDF_SHORT, &again) && again.domain == b.domain &&
	     again.bus == b.bus && again.dev == b.dev && again.fn == b.fn);
}

static void brackets(const char *s, size_t n)
{
	const char *w;
	size_t len;
	if (hwc_bracketed(s, n, &w, &len) < 0)
		return;
	MUST(w > s && w[-1] == '[' && len > 0 && (size_t)(w - s) + len < n && w[len] == ']');
	MUST(!memchr(w, ']', len) && !memchr(s, '[', (size_t)(w - s) - 1));
}

/* The lines cover the text: each lies inside it, holds no newline, and ends where the next begins
 * but for the newline between them. */
static void lines(const char *s, size_t n)
{
	size_t pos = 0, len, prev = 0, count = 0;
	const char *l;
	while (hwc_next_line(s, n, &pos, &l, &len)) {
		MUST(l == s + prev && (size_t)(l - s) + len <= n && !memchr(l, '\n', len));
		MUST(pos == prev + len + (prev + len < n));
		prev = pos;
		count++;
	}
	MUST(pos == n && count <= n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	cpulists(s);
	bdfs(s, size);
	brackets(s, size);
	lines(s, size);
	free(s);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The small text formats every module meets, parsed once: kernel CPU lists, PCI addresses, the
 * "[selected]" word of a sysfs choice and the lines of a tool's text. Pure functions over bytes
 * (fuzzed: fuzz_scan). */
#ifndef HWC_CORE_SCAN_H
#define HWC_CORE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest CPU number a list may name (far above any kernel's NR_CPUS). */
#define HWC_CPULIST_MAX (1u << 22)

/* A kernel CPU list as cpulist files and smp_affinity_list hold it ("0-23,48-71\n"): fn(ctx, lo,
 * hi) for each range in order. Blanks and newlines may stand before and after the list, and an
 * empty list has no range. 0, -EINVAL when s is NULL or malformed (a bound above HWC_CPULIST_MAX,
 * hi < lo), or the first negative value fn returns. */
int hwc_cpulist_walk(const char *s, int (*fn)(void *ctx, unsigned lo, unsigned hi), void *ctx);
/* The number of CPUs in the list (0 for an empty one: a memory-only NUMA node). */
int hwc_cpulist_count(const char *s, int64_t *n);
/* Sets the list's bits in bits[] (max_cpus / 64 words, zeroed by the caller); -ERANGE for a CPU
 * >= max_cpus. */
int hwc_cpulist_parse(const char *s, uint64_t *bits, size_t max_cpus);

/* A PCI function address: domain, bus, device, function. */
struct hwc_bdf {
	unsigned domain, bus, dev, fn;
};

enum {
	HWC_BDF_SHORT = 1, /* also "bb:dd.f" (domain 0), as lspci prints without -D */
};

/* The length of the PCI address "dddd:bb:dd.f" (hex, either case; a domain of 4 to 8 digits, as
 * VMD's 10000: has 5) that s[0..n) starts with, or 0 when it starts with none. The device is < 32,
 * the function < 8. out may be NULL. */
size_t hwc_bdf_scan(const char *s, size_t n, unsigned flags, struct hwc_bdf *out);
/* The whole of s (NUL-terminated; NULL is false) is one PCI address. */
bool hwc_bdf_parse(const char *s, unsigned flags, struct hwc_bdf *out);

/* The value of one hex digit (either case), or -1. */
int hwc_hex_digit(char c);

/* "[default] performance powersave": the non-empty text between the first '[' of s[0..n) and the
 * ']' after it. 0, or -EINVAL when there is none. */
int hwc_bracketed(const char *s, size_t n, const char **word, size_t *len);

/* The next line of buf[*pos..len), for the parsers that walk a tool's text: *line and *n without
 * its '\n' (a last line may have none), *pos moved past it. false at the end of the text. */
bool hwc_next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n);

#endif

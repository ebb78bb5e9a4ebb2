/* SPDX-License-Identifier: MIT */
/* Kernel CPU lists, PCI addresses and "[selected]" words: one parser each (core/scan.h). */
#include "core/scan.h"

#include <errno.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A decimal CPU number at *p, at most HWC_CPULIST_MAX; advances *p. */
static int cpu_number(const char **p, unsigned *v)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	unsigned long long x = 0;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (unsigned)(*s++ - '0');
		if (x > HWC_CPULIST_MAX)
			return -EINVAL;
	}
	*v = (unsigned)x;
	*p = s;
	return 0;
}

int hwc_cpulist_walk(const char *s, int (*fn)(void *ctx, unsigned lo, unsigned hi), void *ctx)
{
	if (!s)
		return -EINVAL;
	while (is_blank(*s))
		s++;
	while (*s) {
		unsigned lo, hi;
		if (cpu_number(&s, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (cpu_number(&s, &hi) < 0 || hi < lo)
				return -EINVAL;
		}
		int rc = fn(ctx, lo, hi);
		if (rc < 0)
			return rc;
		if (*s == ',') {
			s++;
			if (!*s)
				return -EINVAL; /* "1," */
			continue;
		}
		while (is_blank(*s))
			s++;
		if (*s)
			return -EINVAL;
	}
	return 0;
}

static int add_range(void *ctx, unsigned lo, unsigned hi)
{
	*(int64_t *)ctx += (int64_t)hi - lo + 1;
	return 0;
}

int hwc_cpulist_count(const char *s, int64_t *n)
{
	int64_t c = 0;
	int rc = hwc_cpulist_walk(s, add_range, &c);
	*n = rc < 0 ? 0 : c;
	return rc;
}

struct bits {
	uint64_t *bits;
	size_t max;
};

static int set_range(void *ctx, unsigned lo, unsigned hi)
{
	struct bits *b = ctx;
	if (hi >= b->max)
		return -ERANGE;
	for (unsigned c = lo; c <= hi; c++)
		b->bits[c / 64] |= 1ULL << (c % 64);
	return 0;
}

int hwc_cpulist_parse(const char *s, uint64_t *bits, size_t max_cpus)
{
	struct bits b = {bits, max_cpus};
	return hwc_cpulist_walk(s, set_range, &b);
}

int hwc_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Between min and max hex digits at s[*i..n), then the separator sep (none when 0). */
static bool hex_field(const char *s, size_t n, size_t *i, size_t min, size_t max, char sep,
		      unsigned *v)
{
	size_t k = 0;
	unsigned x = 0;
	while (*i < n && k < max && hwc_hex_digit(s[*i]) >= 0) {
		x = x * 16 + (unsigned)hwc_hex_digit(s[(*i)++]);
		k++;
	}
	if (k < min || (*i < n && k == max && hwc_hex_digit(s[*i]) >= 0))
		return false;
	if (sep) {
		if (*i >= n || s[*i] != sep)
			return false;
		(*i)++;
	}
	*v = x;
	return true;
}

/* "bb:dd.f" at s[i..n): its end, or 0. */
static size_t bus_dev_fn(const char *s, size_t n, size_t i, struct hwc_bdf *b)
{
	if (!hex_field(s, n, &i, 2, 2, ':', &b->bus) || !hex_field(s, n, &i, 2, 2, '.', &b->dev) ||
	    i >= n || s[i] < '0' || s[i] > '7' || b->dev >= 32)
		return 0;
	b->fn = (unsigned)(s[i] - '0');
	return i + 1;
}

size_t hwc_bdf_scan(const char *s, size_t n, unsigned flags, struct hwc_bdf *out)
{
	struct hwc_bdf b = {0};
	size_t i = 0, end = 0;
	if (hex_field(s, n, &i, 4, 8, ':', &b.domain))
		end = bus_dev_fn(s, n, i, &b);
	if (!end && (flags & HWC_BDF_SHORT)) {
		b.domain = 0;
		end = bus_dev_fn(s, n, 0, &b);
	}
	if (end && out)
		*out = b;
	return end;
}

bool hwc_bdf_parse(const char *s, unsigned flags, struct hwc_bdf *out)
{
	if (!s)
		return false;
	size_t n = strlen(s);
	struct hwc_bdf b;
	if (hwc_bdf_scan(s, n, flags, &b) != n || !n)
		return false;
	if (out)
		*out = b;
	return true;
}

int hwc_bracketed(const char *s, size_t n, const char **word, size_t *len)
{
	const char *o = memchr(s, '[', n);
	const char *c = o ? memchr(o, ']', n - (size_t)(o - s)) : NULL;
	if (!o || !c || c == o + 1)
		return -EINVAL;
	*word = o + 1;
	*len = (size_t)(c - o - 1);
	return 0;
}

bool hwc_next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *s = buf + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	*line = s;
	*n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	return true;
}

/* SPDX-License-Identifier: MIT */
/* Strict integer parsing and text search shared by every parser (pure). */
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Base 0 means decimal, or hex after 0x: never octal, so "010" from a sysfs file is ten, not
 * eight. */
static int effective_base(const char *s, int base)
{
	if (base != 0)
		return base;
	if (*s == '+' || *s == '-')
		s++;
	return (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
}

/* Leading whitespace skipped; NULL when nothing is left (or a sign where none may be). */
static const char *skip_space(const char *s, bool no_minus)
{
	if (!s)
		return NULL;
	while (isspace((unsigned char)*s))
		s++;
	return !*s || (no_minus && *s == '-') ? NULL : s;
}

/* After strtoll/strtoull from s to end: the whole string was a number (trailing space allowed). */
static int whole(const char *s, const char *end)
{
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -EINVAL : 0;
}

int hwc_parse_i64(const char *s, int base, int64_t *out)
{
	if (!(s = skip_space(s, false)))
		return -EINVAL;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, effective_base(s, base));
	int rc = whole(s, end);
	if (rc == 0)
		*out = v;
	return rc;
}

int hwc_parse_u64(const char *s, int base, uint64_t *out)
{
	if (!(s = skip_space(s, true)))
		return -EINVAL;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, effective_base(s, base));
	int rc = whole(s, end);
	if (rc == 0)
		*out = v;
	return rc;
}

const char *hwc_find_ci(const char *p, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; p && k && i + k <= n; i++)
		if (strncasecmp(p + i, needle, k) == 0)
			return p + i;
	return NULL;
}

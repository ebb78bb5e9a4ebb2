/* SPDX-License-Identifier: MIT */
/* Strict integer parsing and text search shared by every parser: pure. */
#ifndef HWC_CORE_PARSE_H
#define HWC_CORE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Surrounding whitespace allowed. Base 0 = decimal, or hex after "0x"; never octal (a sysfs
 * "010" is ten). Return 0 or -EINVAL/-ERANGE; *out is written only on success. */
int hwc_parse_i64(const char *s, int base, int64_t *out);
int hwc_parse_u64(const char *s, int base, uint64_t *out);

/* The first case-insensitive occurrence of needle (NUL-terminated, not empty) in the n bytes at
 * p (NUL not needed; p may be NULL when n is 0), or NULL. */
const char *hwc_find_ci(const char *p, size_t n, const char *needle);

#endif

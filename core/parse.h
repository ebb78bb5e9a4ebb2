/* SPDX-License-Identifier: MIT */
/* Strict integer parsing shared by every parser: pure, whole-string. */
#ifndef HWC_CORE_PARSE_H
#define HWC_CORE_PARSE_H

#include <stdint.h>

/* Surrounding whitespace allowed. Base 0 = decimal, or hex after "0x"; never octal (a sysfs
 * "010" is ten). Return 0 or -EINVAL/-ERANGE; *out is written only on success. */
int hwc_parse_i64(const char *s, int base, int64_t *out);
int hwc_parse_u64(const char *s, int base, uint64_t *out);

#endif

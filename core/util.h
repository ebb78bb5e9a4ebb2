/* SPDX-License-Identifier: MIT */
/* The one element count of a C array, for every module. */
#ifndef HWC_CORE_UTIL_H
#define HWC_CORE_UTIL_H

#include <stddef.h>

/* Elements of array x; a pointer in its place does not compile (GCC and clang). */
#define HWC_ARRAY_SIZE(x)                                                                          \
	(sizeof(x) / sizeof((x)[0]) +                                                              \
	 0 * sizeof(struct { int not_an_array : __builtin_types_compatible_p(__typeof__(x),        \
									      __typeof__(&(x)[0])) ? -1 : 1; }))

#endif

/* SPDX-License-Identifier: MIT */
/* Arena allocator: every fact, string and array of one run lives here and is freed by one call. */
#ifndef HWC_CORE_ARENA_H
#define HWC_CORE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct hwc_arena;

/* NULL with errno=ENOMEM on failure. */
struct hwc_arena *hwc_arena_new(void);
void hwc_arena_free(struct hwc_arena *a);

/* Zeroed memory, aligned for any type. Aborts never: returns NULL on ENOMEM. */
void *hwc_arena_zalloc(struct hwc_arena *a, size_t size);
void *hwc_arena_calloc(struct hwc_arena *a, size_t n, size_t size);
char *hwc_arena_strdup(struct hwc_arena *a, const char *s);
char *hwc_arena_strndup(struct hwc_arena *a, const char *s, size_t n);
char *hwc_arena_printf(struct hwc_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *hwc_arena_vprintf(struct hwc_arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Grow an arena array of `*cap` elements to hold at least `need`; the old block stays in the
 * arena (it is freed with it). Returns 0 or -ENOMEM. */
int hwc_arena_grow(struct hwc_arena *a, void **arr, size_t elem, size_t *cap, size_t need);

/* Bytes handed out so far (for the memory benchmark). */
size_t hwc_arena_used(const struct hwc_arena *a);

/* Append one element of elem bytes to the vector *items (n used, cap allocated): the new element,
 * zeroed (also where n had been cut back), or NULL. */
void *hwc_vec_push(struct hwc_arena *a, void **items, size_t elem, size_t *n, size_t *cap);
/* An arena vector of T: items[0..n), cap allocated (core/json.c reads every one this way). */
#define HWC_VEC(T)                                                                                 \
	struct {                                                                                   \
		T *items;                                                                          \
		size_t n, cap;                                                                     \
	}
/* The same for an arena vector (HWC_VEC). */
#define HWC_VEC_PUSH(arena, vec)                                                                   \
	hwc_vec_push((arena), (void **)&(vec)->items, sizeof(*(vec)->items), &(vec)->n, &(vec)->cap)

#endif

/* SPDX-License-Identifier: MIT */
/* Arena allocator: chunked bump allocation, one free for everything. */
#include "core/arena.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HWC_ARENA_ALIGN 16u
#define HWC_ARENA_CHUNK (64u * 1024u)

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct hwc_arena {
	struct chunk *head;
	size_t total;
};

struct hwc_arena *hwc_arena_new(void)
{
	struct hwc_arena *a = calloc(1, sizeof(*a));
	if (!a)
		errno = ENOMEM;
	return a;
}

void hwc_arena_free(struct hwc_arena *a)
{
	if (!a)
		return;
	struct chunk *c = a->head;
	while (c) {
		struct chunk *n = c->next;
		free(c);
		c = n;
	}
	free(a);
}

void *hwc_arena_zalloc(struct hwc_arena *a, size_t size)
{
	if (!a)
		return NULL;
	if (size == 0)
		size = 1;
	size_t need = (size + HWC_ARENA_ALIGN - 1) & ~(size_t)(HWC_ARENA_ALIGN - 1);
	/* sizes from a length field of hostile input must not wrap the chunk size below */
	if (need < size || need > SIZE_MAX - sizeof(struct chunk)) {
		errno = ENOMEM;
		return NULL;
	}
	struct chunk *c = a->head;
	if (!c || c->size - c->used < need) {
		size_t csize = need > HWC_ARENA_CHUNK / 4 ? need : HWC_ARENA_CHUNK;
		c = malloc(sizeof(*c) + csize);
		if (!c) {
			errno = ENOMEM;
			return NULL;
		}
		c->size = csize;
		c->used = 0;
		/* A big block gets its own chunk behind the head so the head keeps its free space. */
		if (need > HWC_ARENA_CHUNK / 4 && a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += need;
	a->total += need;
	memset(p, 0, size);
	return p;
}

void *hwc_arena_calloc(struct hwc_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return hwc_arena_zalloc(a, n * size);
}

char *hwc_arena_strndup(struct hwc_arena *a, const char *s, size_t n)
{
	if (!s)
		return NULL;
	size_t len = strnlen(s, n);
	char *d = hwc_arena_zalloc(a, len + 1);
	if (d)
		memcpy(d, s, len);
	return d;
}

char *hwc_arena_strdup(struct hwc_arena *a, const char *s)
{
	return s ? hwc_arena_strndup(a, s, strlen(s)) : NULL;
}

char *hwc_arena_vprintf(struct hwc_arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	char *d = hwc_arena_zalloc(a, (size_t)n + 1);
	if (d)
		vsnprintf(d, (size_t)n + 1, fmt, ap);
	return d;
}

char *hwc_arena_printf(struct hwc_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *d = hwc_arena_vprintf(a, fmt, ap);
	va_end(ap);
	return d;
}

int hwc_arena_grow(struct hwc_arena *a, void **arr, size_t elem, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	/* Double for one-by-one pushes; a caller that asks for more than double at once knows
	 * its count (a directory listing), so it gets exactly that: the old block stays in the
	 * arena, and rounding 1,052 devices up to 2,048 would waste megabytes. */
	if (*cap > SIZE_MAX / 2)
		return -ENOMEM; /* doubling would wrap */
	size_t ncap = *cap ? *cap * 2 : 4;
	if (ncap < need)
		ncap = need;
	void *n = hwc_arena_calloc(a, ncap, elem);
	if (!n)
		return -ENOMEM;
	if (*arr && *cap)
		memcpy(n, *arr, *cap * elem);
	*arr = n;
	*cap = ncap;
	return 0;
}

void *hwc_vec_push(struct hwc_arena *a, void **items, size_t elem, size_t *n, size_t *cap)
{
	if (hwc_arena_grow(a, items, elem, cap, *n + 1) < 0)
		return NULL;
	void *el = (char *)*items + (*n)++ * elem;
	memset(el, 0, elem);
	return el;
}

size_t hwc_arena_used(const struct hwc_arena *a)
{
	return a ? a->total : 0;
}

/* SPDX-License-Identifier: MIT */
/* A bounds-checked tar walker over bytes: ustar headers, pax path records, GNU long names. */
#include "snapshot/tar.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BLK 512

/* Octal field (NUL or space terminated); GNU base-256 for sizes >= 8 GiB is refused: a snapshot
 * member is never that large and refusing keeps the arithmetic simple and safe. */
static int octal_field(const unsigned char *p, size_t width, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	while (i < width && p[i] == ' ')
		i++;
	bool any = false;
	for (; i < width && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v > (UINT64_MAX >> 3))
			return -EINVAL;
		v = (v << 3) | (uint64_t)(p[i] - '0');
		any = true;
	}
	if (i < width && p[i] != 0 && p[i] != ' ')
		return -EINVAL;
	*out = any ? v : 0;
	return 0;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	if (octal_field(h + 148, 8, &want) < 0)
		return false;
	unsigned long sum = 0;
	for (size_t i = 0; i < BLK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum == want;
}

static bool all_zero(const unsigned char *h)
{
	for (size_t i = 0; i < BLK; i++)
		if (h[i])
			return false;
	return true;
}

static const char *skip_dot_slash(const char *s, size_t *n)
{
	while (*n >= 2 && s[0] == '.' && s[1] == '/') {
		s += 2;
		*n -= 2;
	}
	return s;
}

static bool name_is(const char *cand, size_t n, const char *want)
{
	cand = skip_dot_slash(cand, &n);
	size_t wn = strlen(want);
	want = skip_dot_slash(want, &wn);
	return n == wn && memcmp(cand, want, n) == 0;
}

/* Finds "path=" in a pax extended header body; each record is "LEN key=value\n". */
static bool pax_path(const char *p, size_t n, const char **val, size_t *vlen)
{
	size_t off = 0;
	while (off < n) {
		size_t rl = 0, i = off;
		while (i < n && p[i] >= '0' && p[i] <= '9' && rl < n)
			rl = rl * 10 + (size_t)(p[i++] - '0');
		if (i >= n || p[i] != ' ' || rl == 0 || rl > n - off)
			return false;
		/* the record must cover its own length digits, the space and at least a newline */
		if (rl < i + 2 - off)
			return false;
		const char *kv = p + i + 1;
		size_t kvlen = off + rl - (i + 1);
		if (kvlen < 1 || kv[kvlen - 1] != '\n')
			return false;
		if (kvlen > 5 && memcmp(kv, "path=", 5) == 0) {
			*val = kv + 5;
			*vlen = kvlen - 6;
			return true;
		}
		off += rl;
	}
	return false;
}

int hwc_tar_find(const void *buf, size_t len, const char *name, const void **data, size_t *dlen)
{
	const unsigned char *b = buf;
	size_t off = 0;
	const char *longname = NULL;
	size_t longlen = 0;
	while (off + BLK <= len) {
		const unsigned char *h = b + off;
		if (all_zero(h))
			return -ENOENT;
		if (!checksum_ok(h))
			return -EINVAL;
		uint64_t size;
		if (octal_field(h + 124, 12, &size) < 0)
			return -EINVAL;
		off += BLK;
		if (size > len - off)
			return -EINVAL;
		size_t body = (size_t)size;
		size_t padded = body + (BLK - body % BLK) % BLK;
		char type = (char)h[156];
		if (type == 'x' || type == 'L') {
			const char *p = (const char *)b + off;
			if (type == 'x') {
				if (!pax_path(p, body, &longname, &longlen))
					longname = NULL;
			} else {
				longname = p;
				longlen = strnlen(p, body);
			}
		} else {
			if (type == '0' || type == 0) {
				bool match;
				if (longname) {
					match = name_is(longname, longlen, name);
				} else {
					/* ustar: prefix (155) + "/" + name (100) */
					char full[257];
					size_t pl = strnlen((const char *)h + 345, 155);
					size_t nl = strnlen((const char *)h, 100);
					size_t k = 0;
					if (pl && memcmp(h + 257, "ustar", 5) == 0) {
						memcpy(full, h + 345, pl);
						k = pl;
						full[k++] = '/';
					}
					memcpy(full + k, h, nl);
					k += nl;
					match = name_is(full, k, name);
				}
				if (match) {
					*data = b + off;
					*dlen = body;
					return 0;
				}
			}
			longname = NULL;
		}
		if (padded > len - off)
			return off + body == len ? -ENOENT : -EINVAL;
		off += padded;
	}
	return off == len ? -ENOENT : -EINVAL;
}

/* SPDX-License-Identifier: MIT */
/* A tiny unit-test harness: CHECK macros count, main() prints "N passed, N failed". */
#ifndef HWC_TEST_H
#define HWC_TEST_H

#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int t_pass, t_fail;

/* In a forked child: run on as a user files can refuse (nobody, when root); false when it
 * cannot drop root. */
static inline bool t_drop_root(void)
{
	return geteuid() != 0 || (setgroups(0, NULL) == 0 && setresgid(65534, 65534, 65534) == 0 &&
				  setresuid(65534, 65534, 65534) == 0);
}

/* Writes root/rel with content, making its directories; aborts when it cannot. */
static inline void t_put(const char *root, const char *rel, const char *content)
{
	char p[4096], cmd[4200];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0)
		abort();
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fputs(content, f);
	fclose(f);
}

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (cond) {                                                                        \
			t_pass++;                                                                  \
		} else {                                                                           \
			t_fail++;                                                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ == b_) {                                                                    \
			t_pass++;                                                                  \
		} else {                                                                           \
			t_fail++;                                                                  \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__,       \
				__LINE__, #a, a_, #b, b_);                                         \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (a_ && b_ && strcmp(a_, b_) == 0) {                                             \
			t_pass++;                                                                  \
		} else {                                                                           \
			t_fail++;                                                                  \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,         \
				__LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");             \
		}                                                                                  \
	} while (0)

/* A whole file (up to cap - 1 bytes, NUL-terminated) in a malloc'd buffer; aborts when it cannot
 * be read: a test without its data must not pass. */
static inline char *t_slurp(const char *path, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = f ? malloc(cap) : NULL;
	if (!buf) {
		fprintf(stderr, "cannot read %s\n", path);
		abort();
	}
	*len = fread(buf, 1, cap - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

#define TEST_MAIN_END()                                                                            \
	do {                                                                                       \
		printf("%d passed, %d failed\n", t_pass, t_fail);                                 \
		return t_fail ? 1 : (t_pass ? 0 : 1);                                              \
	} while (0)

#endif

/* SPDX-License-Identifier: MIT */
/* Helpers shared by the harnesses that need a scratch root: an invariant check that aborts (so
 * libFuzzer keeps the input) and a temporary directory removed at exit. */
#ifndef HWC_FUZZ_UTIL_H
#define HWC_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#define MUST(c)                                                                                    \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "invariant broken: %s\n", #c);                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static char fuzz_tmp_dir[512];

static inline void fuzz_tmp_cleanup(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_tmp_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", fuzz_tmp_dir);
}

/* A new directory $TMPDIR/<name>-XXXXXX (TMPDIR defaults to /tmp), removed with everything in it
 * when the process exits. A crash skips that: run-short.sh points TMPDIR into its scratch
 * directory, which it always removes. */
static inline const char *fuzz_tmp_make(const char *name)
{
	const char *t = getenv("TMPDIR");
	snprintf(fuzz_tmp_dir, sizeof(fuzz_tmp_dir), "%s/%s-XXXXXX", t && *t ? t : "/tmp", name);
	if (!mkdtemp(fuzz_tmp_dir))
		abort();
	atexit(fuzz_tmp_cleanup);
	return fuzz_tmp_dir;
}

#endif

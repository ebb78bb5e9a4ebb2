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

static char *fuzz_tmp_dir;

static inline void fuzz_tmp_cleanup(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_tmp_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", fuzz_tmp_dir);
}

/* mkdtemp(tmpl), removed with everything in it when the process exits. */
static inline void fuzz_tmp_make(char *tmpl)
{
	if (!mkdtemp(tmpl))
		abort();
	fuzz_tmp_dir = tmpl;
	atexit(fuzz_tmp_cleanup);
}

#endif

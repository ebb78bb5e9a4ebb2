/* SPDX-License-Identifier: MIT */
/* Writing what the user asked for, atomically: a temporary file beside the target, fsync, rename. */
#ifndef HWC_CORE_OUTPUT_H
#define HWC_CORE_OUTPUT_H

#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

/* An output being written: `fp` writes to a temporary file that becomes `path` on commit. */
struct hwc_outfile {
	FILE *fp;
	char *path;
	char *tmp;
	bool unnamed; /* an O_TMPFILE file, not yet linked */
	bool direct;  /* a character device or FIFO, written in place */
};
/* Returns 0 or -errno. path "-" writes to stdout (no atomicity needed there). A regular file (or
 * none) is replaced atomically and keeps its mode and owner; a character device or FIFO is
 * written in place, never replaced; a symbolic link (-ELOOP), directory (-EISDIR) or other
 * special file (-ENOTSUP) is refused. hwc_output_strerror() says why in words. */
int hwc_outfile_open(struct hwc_outfile *o, const char *path);
/* Flushes, fsyncs, renames. On failure the temporary file is removed and the target untouched. */
int hwc_outfile_commit(struct hwc_outfile *o);
/* Abandons the output: the target is untouched. */
void hwc_outfile_abort(struct hwc_outfile *o);

/* Removes every temporary file still being written. Async-signal-safe (for a handler that ends
 * the run): the targets stay untouched. */
void hwc_outfile_abort_all(void);

int hwc_write_file_atomic(const char *path, const void *data, size_t len);
/* Why an output could not be opened or written, for "PATH: cannot write: <this>". */
const char *hwc_output_strerror(int rc);

#endif

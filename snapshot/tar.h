/* SPDX-License-Identifier: MIT */
/* The snapshot's tar: a writer, and finding one member of a tar held in memory (a snapshot's
 * hwcheck/facts.json) without unpacking. */
#ifndef HWC_SNAPSHOT_TAR_H
#define HWC_SNAPSHOT_TAR_H

#include <stddef.h>
#include <stdio.h>

/* Minimal POSIX (pax) tar writer: regular files, directories and symbolic links; long names and
 * link targets go in pax extended headers. mtime is fixed so two captures of the same data are
 * byte-identical. */
int hwc_tar_add_file(FILE *fp, const char *path, const void *data, size_t len, unsigned mode);
int hwc_tar_add_dir(FILE *fp, const char *path);
int hwc_tar_add_link(FILE *fp, const char *path, const char *target);
int hwc_tar_finish(FILE *fp);

/* Looks for the regular file `name` (a leading "./" on either side is ignored) in the ustar, pax or GNU
 * tar `buf`. On success points *data and *len into buf and returns 0. Returns -ENOENT when the archive
 * ends without it, -EINVAL when buf is not a tar (bad checksum, size or truncation) before that.
 * Pure: reads only the bytes given. */
int hwc_tar_find(const void *buf, size_t len, const char *name, const void **data, size_t *dlen);

#endif

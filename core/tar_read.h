/* SPDX-License-Identifier: MIT */
/* Finding one member of a tar held in memory (a snapshot's hwcheck/facts.json), without unpacking. */
#ifndef HWC_CORE_TAR_READ_H
#define HWC_CORE_TAR_READ_H

#include <stddef.h>

/* Looks for the regular file `name` (a leading "./" on either side is ignored) in the ustar, pax or GNU
 * tar `buf`. On success points *data and *len into buf and returns 0. Returns -ENOENT when the archive
 * ends without it, -EINVAL when buf is not a tar (bad checksum, size or truncation) before that.
 * Pure: reads only the bytes given. */
int hwc_tar_find(const void *buf, size_t len, const char *name, const void **data, size_t *dlen);

#endif

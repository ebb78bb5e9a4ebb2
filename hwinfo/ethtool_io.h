/* SPDX-License-Identifier: MIT */
/* ethtool queries behind one door: SIOCETHTOOL ioctls on the live root, recordings elsewhere.
 *
 * Every answer is ethtool's own text ("ethtool -g IF" ...), so that a capture of the real tool and
 * a snapshot of hwcheck replay through the same parsers. On the live machine the G* ioctls are
 * issued (all on the kernel's unprivileged allow-list) and their answer is formatted the way
 * ethtool 6.x prints it; in record mode that text is kept at the runner's path
 * "hwcheck/commands/ethtool -g IF/{stdout,stderr,result}". On any other root the recording is read
 * back; no recording means "absent", as with the runner. */
#ifndef HWC_HWINFO_ETHTOOL_IO_H
#define HWC_HWINFO_ETHTOOL_IO_H

#include <stddef.h>

#include "core/arena.h"
#include "core/env.h"
#include "core/fact.h"

enum hwc_ethtool_query {
	HWC_ETHTOOL_RINGS,    /* ethtool -g: ETHTOOL_GRINGPARAM */
	HWC_ETHTOOL_CHANNELS, /* ethtool -l: ETHTOOL_GCHANNELS */
	HWC_ETHTOOL_FEATURES, /* ethtool -k: ETHTOOL_GSSET_INFO + GSTRINGS + GFEATURES */
	HWC_ETHTOOL_PAUSE,    /* ethtool -a: ETHTOOL_GPAUSEPARAM */
	HWC_ETHTOOL_STATS,    /* ethtool -S: ETHTOOL_GSSET_INFO + GSTRINGS + GSTATS */
	HWC_ETHTOOL_DRVINFO,  /* ethtool -i: ETHTOOL_GDRVINFO */
	HWC_ETHTOOL__COUNT
};

/* "-g", "-l", ... */
const char *hwc_ethtool_option(enum hwc_ethtool_query q);

/* Answers query q for interface ifname. On success *text is NUL-terminated ethtool-style output in
 * the arena and m is ok. Otherwise m says why: absent (no such interface / no recording),
 * unsupported (the driver lacks the operation: EOPNOTSUPP), needs_root, unreadable (errno),
 * timeout, truncated; the detail names "ethtool -g IF". Returns 0 or a negative errno. */
int hwc_ethtool_get(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
		    enum hwc_ethtool_query q, const char **text, size_t *len, struct hwc_fmeta *m);

#endif

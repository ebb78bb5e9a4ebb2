/* SPDX-License-Identifier: MIT */
/* Fuzz the window file of a --watch capture (hwcheck/watch/window, hwinfo/watch.c): whatever the
 * bytes, the parser either gives a window within its bounds or says which field is wrong. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_watch_window w = {0};
	const char *why = NULL;
	int rc = hwc_watch_parse_window((const char *)data, size, &w, &why);
	if (rc == 0) {
		MUST(why == NULL);
		MUST(w.requested_s >= 1 && w.requested_s <= 3600);
		MUST(w.window_us >= 1 && w.window_us <= (uint64_t)w.requested_s * 2000000u);
		MUST(w.samples == 2);
	} else {
		MUST(rc == -EINVAL && why && *why);
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Fuzz the hwmon helpers: attribute names ("temp12_input") and millidegree values, one per line. */
/* Seeds (tests/fuzz/corpus/hwmon/): mlx5-hwmon0-v2 holds the attribute names and values of
 * corpus/sysfs/mlx5-hwmon_cx5-dualport_grep-hwmon0_and_sensors_patch-v2-2023.txt, one per line;
 * attrs and crit are hand-written edge cases (no index, other sensor class, negative). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "thermal/thermal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	int64_t v;
	hwc_thermal_parse_mdegc(buf, size, &v);
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned k;
		const char *suffix;
		if (hwc_hwmon_attr_parse(l, &k, &suffix) == 0 && !*suffix)
			abort(); /* a parsed attribute always has a suffix */
		hwc_thermal_parse_mdegc(l, strlen(l), &v);
	}
	free(buf);
	return 0;
}

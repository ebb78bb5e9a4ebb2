/* SPDX-License-Identifier: MIT */
/* hwcheck merge (placeholder until its issue lands). */
#include "cli/cli.h"

int hwc_cmd_merge(struct hwc_cli *c)
{
	hwc_cli_err("merge: not implemented yet");
	return HWC_EXIT_USAGE;
}

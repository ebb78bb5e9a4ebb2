/* SPDX-License-Identifier: MIT */
/* hwcheck diff (placeholder until its issue lands). */
#include "cli/cli.h"

int hwc_cmd_diff(struct hwc_cli *c)
{
	hwc_cli_err("diff: not implemented yet");
	return HWC_EXIT_USAGE;
}

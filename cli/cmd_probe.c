/* SPDX-License-Identifier: MIT */
/* hwcheck probe (placeholder until its issue lands). */
#include "cli/cli.h"

int hwc_cmd_probe(struct hwc_cli *c)
{
	hwc_cli_err("probe: not implemented yet");
	return HWC_EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/* --prom FILE: node_exporter textfile metrics (placeholder until the fleet issue lands). */
#include "cli/cli.h"

int hwc_prom_write(const struct hwc_cli *c, const json_t *facts, const struct hwc_findings *fd)
{
	hwc_cli_err("--prom: not implemented yet");
	return HWC_EXIT_USAGE;
}

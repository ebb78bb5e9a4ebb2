/* SPDX-License-Identifier: MIT */
/* Netdev tuning of ConnectX ports (placeholder until issue 5). */
#include "hwinfo/hwinfo.h"

#include <errno.h>

int hwc_netdev_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	return 0;
}

json_t *hwc_netdev_to_json(const struct hwc_facts *f)
{
	return json_array();
}

int hwc_netdev_from_json(const json_t *j, struct hwc_facts *f)
{
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The host around the card: CPU, NUMA, x2APIC, IOMMU, power, DMI, kernel; and netdev tuning. */
#ifndef HWC_HWINFO_H
#define HWC_HWINFO_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_host_kernel {
	struct hwc_fstr release;  /* proc/sys/kernel/osrelease */
	struct hwc_fstr cmdline;  /* proc/cmdline */
};

struct hwc_host_facts {
	struct hwc_host_kernel kernel;
	struct hwc_fstr cpu_model; /* first "model name" of proc/cpuinfo */
};

struct hwc_netdev_facts {
	struct hwc_fmeta m;
};

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_host_to_json(const struct hwc_facts *f);
int hwc_host_from_json(const json_t *j, struct hwc_facts *f);

int hwc_netdev_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_netdev_to_json(const struct hwc_facts *f);
int hwc_netdev_from_json(const json_t *j, struct hwc_facts *f);

#endif

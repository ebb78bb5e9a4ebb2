/* SPDX-License-Identifier: MIT */
/* PCIe devices and their paths to the root port, read through libpci. */
#ifndef HWC_PCI_H
#define HWC_PCI_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_pci_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_pci_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_pci_to_json(const struct hwc_facts *f);
int hwc_pci_from_json(const json_t *j, struct hwc_facts *f);

#endif

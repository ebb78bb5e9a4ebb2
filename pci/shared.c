/* SPDX-License-Identifier: MIT */
/* Shared hops: the PCIe links that several functions' paths cross (a switch uplink, the link
 * below a root port, a dual-port card's own link), as a pure function of facts.pci in JSON. */
#include "pci/pci.h"

#include <string.h>

static const json_t *dev_by_bdf(const json_t *devices, const char *bdf)
{
	size_t i;
	const json_t *d;
	json_array_foreach(devices, i, d) {
		const char *b = json_string_value(json_object_get(d, "bdf"));
		if (b && bdf && strcmp(b, bdf) == 0)
			return d;
	}
	return NULL;
}

/* Whether the device's upstream side is a PCIe link (endpoints, switch upstream ports, PCIe
 * to PCI bridges), not the internal bus of a switch or root complex. */
static bool has_link_up(const json_t *d)
{
	const char *t = json_string_value(json_object_get(d, "port_type"));
	return t && strcmp(t, "root_port") != 0 && strcmp(t, "downstream_port") != 0 &&
	       strcmp(t, "rc_endpoint") != 0 && strcmp(t, "rc_event_collector") != 0;
}

static double num_at(const json_t *d, const char *obj, const char *key)
{
	const json_t *o = obj ? json_object_get(d, obj) : d;
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0;
}

/* The link between path[k] and the port above it (path[k + 1]): both ends report it; the lower
 * end's LnkSta first, the port's when the lower end's is unknown. */
static void link_of(const json_t *devices, const json_t *lower, const char *port,
		    struct hwc_pci_shared_link *l)
{
	const char *t = json_string_value(json_object_get(lower, "port_type"));
	l->switch_uplink = t && strcmp(t, "upstream_port") == 0;
	l->speed_gts = num_at(lower, "link", "speed_gts");
	l->width = (int)num_at(lower, "link", "width");
	if (l->speed_gts <= 0 || l->width <= 0) {
		const json_t *pd = dev_by_bdf(devices, port);
		l->speed_gts = num_at(pd, "link", "speed_gts");
		l->width = (int)num_at(pd, "link", "width");
	}
	l->raw_gbps = (double)hwc_pci_lane_mbps(l->speed_gts) * (l->width > 0 ? l->width : 0) / 1000.0;
}

static struct hwc_pci_shared_link *find_or_add(struct hwc_pci_shared_link *out, size_t cap,
					       size_t *n, const char *port)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(out[i].port_bdf, port) == 0)
			return &out[i];
	if (*n >= cap)
		return NULL;
	struct hwc_pci_shared_link *l = &out[(*n)++];
	memset(l, 0, sizeof(*l));
	l->port_bdf = port;
	return l;
}

/* Payload Gb/s at the smallest MPS of the members (posted writes carry at most their sender's
 * MPS); 0 when a member's MPS is unknown. */
static void payload_of(const json_t *devices, const char *const *bdfs, struct hwc_pci_shared_link *l)
{
	int mps = 0;
	for (size_t i = 0; i < 64; i++) {
		if (!(l->members & (1ull << i)))
			continue;
		int m = (int)num_at(dev_by_bdf(devices, bdfs[i]), NULL, "max_payload_bytes");
		if (m <= 0)
			return;
		mps = mps && mps < m ? mps : m;
	}
	l->mps_bytes = mps;
	l->gbps = l->raw_gbps * hwc_pci_tlp_efficiency(l->speed_gts, mps);
}

size_t hwc_pci_shared_links(const json_t *devices, const char *const *bdfs, size_t n,
			    struct hwc_pci_shared_link *out, size_t cap)
{
	struct hwc_pci_shared_link all[HWC_PCI_MAX_SHARED];
	size_t na = 0;
	n = n > 64 ? 64 : n;
	for (size_t i = 0; i < n; i++) {
		const json_t *path = json_object_get(dev_by_bdf(devices, bdfs[i]), "path");
		size_t len = json_array_size(path);
		for (size_t k = 0; k + 1 < len && k < 64; k++) {
			const char *lower = json_string_value(json_array_get(path, k));
			const char *port = json_string_value(json_array_get(path, k + 1));
			if (!lower || !port)
				break;
			const json_t *ld = dev_by_bdf(devices, lower);
			if (!has_link_up(ld))
				continue; /* a switch's downstream port hangs off its internal bus */
			struct hwc_pci_shared_link *l = find_or_add(all, HWC_PCI_MAX_SHARED, &na, port);
			if (!l)
				break;
			if (!l->members)
				link_of(devices, ld, port, l);
			l->members |= 1ull << i;
		}
	}
	size_t m = 0;
	for (size_t i = 0; i < na && m < cap; i++) {
		if (__builtin_popcountll(all[i].members) < 2)
			continue;
		payload_of(devices, bdfs, &all[i]);
		out[m++] = all[i];
	}
	return m;
}

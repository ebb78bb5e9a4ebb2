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

/* ---- netdev tuning of ConnectX ports (netdev.c, ethtool_parse.c, irq.c) ---------------------- */

struct hwc_netdev_rings {
	struct hwc_fi64 rx, rx_max, tx, tx_max;
};

struct hwc_netdev_channels {
	struct hwc_fi64 combined, combined_max, rx, rx_max, tx, tx_max;
};

struct hwc_netdev_features {
	struct hwc_fbool lro, gro, gro_hw, tso, gso, rx_checksum, tx_checksum;
};

struct hwc_netdev_pause {
	struct hwc_fbool autoneg, rx, tx;
};

/* The counters that reveal loss, in JSON order; hwc_netdev_counter_names[i] names v[i]. */
#define HWC_NETDEV_NCOUNTERS 17
extern const char *const hwc_netdev_counter_names[HWC_NETDEV_NCOUNTERS];
struct hwc_netdev_counters {
	struct hwc_fu64 v[HWC_NETDEV_NCOUNTERS];
	struct hwc_fi64 count; /* how many counters the driver reported in all */
};

struct hwc_netdev_drvinfo {
	struct hwc_fstr driver, version, fw_version, bus_info;
};

/* One MSI/MSI-X vector of the card. */
struct hwc_netdev_irq {
	int64_t irq;
	struct hwc_fstr name;   /* proc/interrupts: mlx5_comp3@pci:0000:3b:00.0 */
	struct hwc_fstr cpus;   /* effective_affinity_list (or smp_affinity_list) */
	struct hwc_fbool local; /* every CPU of cpus is in the card's local_cpulist */
};

struct hwc_netdev_irq_locality {
	struct hwc_fi64 numa_node;      /* -1: firmware gave none, locality unknown */
	struct hwc_fstr local_cpulist;
	struct hwc_fi64 vectors;        /* entries of msi_irqs/ */
	struct hwc_fi64 outside_local;  /* vectors with an effective CPU outside local_cpulist */
	struct hwc_fi64 affinity_unknown; /* vectors whose affinity could not be read */
	struct {
		struct hwc_netdev_irq *items;
		size_t n, cap;
	} irqs;
};

struct hwc_netdev {
	const char *name;
	struct hwc_fstr bdf, driver, fw_version, operstate;
	struct hwc_fi64 mtu, speed_mbps;
	struct hwc_netdev_rings rings;
	struct hwc_netdev_channels channels;
	struct hwc_netdev_features features;
	struct hwc_netdev_pause pause;
	struct hwc_netdev_counters counters;
	struct hwc_netdev_irq_locality irq_locality;
};

struct hwc_netdev_facts {
	struct hwc_fmeta m;
	struct {
		struct hwc_netdev *items;
		size_t n, cap;
	} netdevs; /* ConnectX netdevs, sorted by name */
};

/* Pure parsers of ethtool's text (a capture of the tool or core/ethtool_io.h's rendering of the
 * ioctl answers). `src` names the command for details ("ethtool -g eth0"). Each fills every fact
 * of its out-struct: ok, unsupported ("n/a"), or absent (not in the text). They return 0, or
 * -EINVAL when the text is not that command's output at all (the facts are then invalid). */
int hwc_ethtool_parse_rings(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_rings *out);
int hwc_ethtool_parse_channels(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_channels *out);
int hwc_ethtool_parse_features(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_features *out);
int hwc_ethtool_parse_pause(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_pause *out);
int hwc_ethtool_parse_stats(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_counters *out);
int hwc_ethtool_parse_drvinfo(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			      struct hwc_netdev_drvinfo *out);

/* proc/interrupts: the action name of each numbered interrupt (the last column). */
struct hwc_irq_name {
	int64_t irq;
	const char *name;
};
struct hwc_irq_names {
	struct hwc_irq_name *items;
	size_t n, cap;
};
int hwc_proc_interrupts_parse(const char *buf, size_t len, struct hwc_arena *a,
			      struct hwc_irq_names *out);

/* A kernel CPU list ("0-3,8,10-11") as a bitmap of up to max_cpus bits (bits[] holds
 * max_cpus/64 words, zeroed by the caller). 0, -EINVAL on bad syntax, -ERANGE past max_cpus. */
int hwc_cpulist_parse(const char *s, uint64_t *bits, size_t max_cpus);

/* Fills irq_locality for PCI function bdf: msi_irqs, effective affinity, numa_node. */
void hwc_netdev_irq_locality(struct hwc_env *e, struct hwc_arena *a, const char *bdf,
			     const struct hwc_irq_names *names, struct hwc_netdev_irq_locality *out);

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_host_to_json(const struct hwc_facts *f);
int hwc_host_from_json(const json_t *j, struct hwc_facts *f);

int hwc_netdev_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_netdev_to_json(const struct hwc_facts *f);
int hwc_netdev_from_json(const json_t *j, struct hwc_facts *f);

#endif

/* SPDX-License-Identifier: MIT */
/* The facts of one machine: one arena, one section per collector, and the errors met on the way. */
#ifndef HWC_CORE_FACTS_H
#define HWC_CORE_FACTS_H

#include <stdarg.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/fact.h"

/* Each section's type belongs to its module (pci/pci.h ...); core only holds the pointers. */
struct hwc_host_facts;    /* hwinfo/ */
struct hwc_pci_facts;     /* pci/ */
struct hwc_mlx_facts;     /* mlx/ */
struct hwc_netdev_facts;  /* hwinfo/ (netdev tuning) */
struct hwc_thermal_facts; /* thermal/ */
struct hwc_probe_facts;   /* probe/ */
struct hwc_roce_facts;    /* hwinfo/roce.h (RoCE lossless chain) */
struct hwc_watch_facts;   /* hwinfo/ (--watch) */
struct hwc_probe_opts;    /* probe/probe.h */

/* A problem met while collecting or loading: reported once by cli/ (stderr, and "errors" in
 * JSON); the run goes on. */
struct hwc_diag {
	const char *source;  /* "pci", "mlx", "facts-file"... */
	const char *subject; /* the path, command, field or device it concerns */
	const char *message;
};

/* What the user narrowed the collection to. */
struct hwc_env;
struct hwc_facts;

struct hwc_collect_opts {
	const char *device;   /* -d: a BDF, netdev or RDMA device name; NULL = all */
	const char *pci_dump; /* --pci-dump: an 'lspci -xxxx' file instead of sysfs */
	const struct hwc_probe_opts *probe; /* probe / --probe: what to measure; NULL = none */
	const char *fw_image; /* --fw-image: a firmware image to check against the cards */
	bool serial_tools;    /* --serial-tools: one card's mstflint tools one after the other */
	/* Called by mlx/ once the cards and their ports are known, before the cards' own tools run:
	 * cli/ starts every port's tools there (hwc_run_start), so that they
	 * run meanwhile. NULL: nothing is started ahead. */
	void (*ports_known)(struct hwc_env *e, struct hwc_facts *f);
	unsigned watch_s;     /* --watch: sample the port counters twice, this many seconds apart */
};

struct hwc_facts {
	struct hwc_arena *arena;
	struct hwc_host_facts *host;
	struct hwc_pci_facts *pci;
	struct hwc_mlx_facts *mlx;
	struct hwc_netdev_facts *netdevs;
	struct hwc_thermal_facts *thermal;
	struct hwc_probe_facts *probe;
	struct hwc_roce_facts *roce;
	struct hwc_watch_facts *watch;
	HWC_VEC(struct hwc_diag) errors;
};

/* NULL with errno on failure. */
struct hwc_facts *hwc_facts_new(void);
/* A collector's section f->member (f->pci ...), zeroed in f's arena and hung on f: the section, or
 * NULL when out of memory. */
#define HWC_FACTS_SECTION(f, member)                                                               \
	((f)->member = hwc_arena_zalloc((f)->arena, sizeof(*(f)->member)))
/* Frees everything the facts own, sections included (all live in the arena). */
void hwc_facts_free(struct hwc_facts *f);

void hwc_facts_error(struct hwc_facts *f, const char *source, const char *subject,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif

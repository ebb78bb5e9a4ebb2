/* SPDX-License-Identifier: MIT */
/* IRQ locality of a card: its MSI-X vectors, where the kernel actually delivers them, and how many
 * land on CPUs outside the card's NUMA node. */
#include "hwinfo/hwinfo.h"

#include "core/scan.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 8192
#define WORDS (MAX_CPUS / 64)

/* ------------------------------------------------------------------ proc/interrupts */

int hwc_proc_interrupts_parse(const char *buf, size_t len, struct hwc_arena *a,
			      struct hwc_irq_names *out)
{
	size_t pos = 0, n;
	bool header = false;
	const char *s;
	while (hwc_next_line(buf, len, &pos, &s, &n)) {
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i + 3 <= n && memcmp(s + i, "CPU", 3) == 0) {
			header = true;
			continue;
		}
		/* "  30:   127355089  0  PCI-MSI-edge  mlx5_comp0@pci:0000:01:00.0" */
		int64_t irq = 0;
		size_t d = i;
		while (d < n && s[d] >= '0' && s[d] <= '9' && irq < 100000000)
			irq = irq * 10 + (s[d++] - '0');
		if (d == i || d >= n || s[d] != ':')
			continue; /* NMI:, LOC:, ERR: ... */
		size_t e = n;
		while (e > d && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
			e--;
		size_t b = e;
		while (b > d + 1 && s[b - 1] != ' ' && s[b - 1] != '\t')
			b--;
		if (b >= e)
			continue;
		bool numeric = true;
		for (size_t k = b; k < e; k++)
			numeric = numeric && s[k] >= '0' && s[k] <= '9';
		if (numeric)
			continue; /* counts only: no action registered */
		struct hwc_irq_name *it = HWC_VEC_PUSH(a, out);
		if (!it)
			return -ENOMEM;
		it->irq = irq;
		it->name = hwc_arena_strndup(a, s + b, e - b);
		if (!it->name)
			return -ENOMEM;
	}
	return header || out->n ? 0 : -EINVAL;
}

/* ------------------------------------------------------------------ locality */

static const char *irq_name(const struct hwc_irq_names *names, int64_t irq)
{
	for (size_t i = 0; names && i < names->n; i++)
		if (names->items[i].irq == irq)
			return names->items[i].name;
	return NULL;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static bool subset(const uint64_t *x, const uint64_t *of)
{
	for (size_t i = 0; i < WORDS; i++)
		if (x[i] & ~of[i])
			return false;
	return true;
}

void hwc_netdev_irq_locality(struct hwc_env *e, struct hwc_arena *a, const char *bdf,
			     const struct hwc_irq_names *names, struct hwc_netdev_irq_locality *out)
{
	const char *dev = hwc_arena_printf(a, "sys/bus/pci/devices/%s", bdf);
	if (!dev)
		return;
	hwc_read_i64(e, hwc_arena_printf(a, "%s/numa_node", dev), a, &out->numa_node);
	hwc_read_str(e, hwc_arena_printf(a, "%s/local_cpulist", dev), a, &out->local_cpulist);

	uint64_t local[WORDS];
	memset(local, 0, sizeof(local));
	struct hwc_fmeta local_m = out->local_cpulist.m;
	if (hwc_ok(out->local_cpulist) &&
	    hwc_cpulist_parse(out->local_cpulist.v, local, MAX_CPUS) < 0)
		hwc_fmeta_set(&local_m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s/local_cpulist: '%s' is not a CPU list", dev,
					       out->local_cpulist.v));
	bool numa_unknown = hwc_ok(out->numa_node) && out->numa_node.v < 0;
	if (numa_unknown)
		hwc_fmeta_set(&local_m, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "%s/numa_node is -1: the firmware gave the card no "
						  "NUMA proximity, locality unknown", dev));
	else if (!hwc_ok(out->numa_node) && local_m.st == HWC_ST_OK)
		local_m = out->numa_node.m;

	const char *msi = hwc_arena_printf(a, "%s/msi_irqs", dev);
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, msi, a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &out->vectors.m, a, msi, -rc);
		out->outside_local.m = out->affinity_unknown.m = out->vectors.m;
		return;
	}
	int64_t *irqs = hwc_arena_calloc(a, dl.n ? dl.n : 1, sizeof(*irqs));
	if (!irqs)
		return;
	size_t n = 0;
	for (size_t i = 0; i < dl.n; i++) {
		int64_t v;
		if (hwc_parse_i64(dl.names[i], 10, &v) == 0 && v >= 0)
			irqs[n++] = v;
	}
	qsort(irqs, n, sizeof(*irqs), cmp_i64);
	HWC_SET(out->vectors, (int64_t)n);

	int64_t outside = 0, unknown = 0;
	for (size_t i = 0; i < n; i++) {
		struct hwc_netdev_irq *it = HWC_VEC_PUSH(a, &out->irqs);
		if (!it)
			return;
		it->irq = irqs[i];
		const char *nm = irq_name(names, irqs[i]);
		if (nm)
			HWC_SET(it->name, nm);
		else
			HWC_FAIL(it->name, HWC_ST_ABSENT, 0,
				 hwc_arena_printf(a, "irq %lld not named in proc/interrupts",
						  (long long)irqs[i]));
		/* effective_affinity_list (>= 4.13) is where the kernel delivers; smp_affinity_list
		 * only what was asked for */
		const char *p = hwc_arena_printf(a, "proc/irq/%lld/effective_affinity_list",
						 (long long)irqs[i]);
		if (hwc_read_str(e, p, a, &it->cpus) < 0 && it->cpus.m.st == HWC_ST_ABSENT)
			hwc_read_str(e,
				     hwc_arena_printf(a, "proc/irq/%lld/smp_affinity_list",
						      (long long)irqs[i]),
				     a, &it->cpus);
		uint64_t cpus[WORDS];
		memset(cpus, 0, sizeof(cpus));
		if (!hwc_ok(it->cpus)) {
			it->local.m = it->cpus.m;
			unknown++;
		} else if (hwc_cpulist_parse(it->cpus.v, cpus, MAX_CPUS) < 0) {
			HWC_FAIL(it->local, HWC_ST_INVALID, 0,
				 hwc_arena_printf(a, "irq %lld: '%s' is not a CPU list",
						  (long long)irqs[i], it->cpus.v));
			unknown++;
		} else if (local_m.st != HWC_ST_OK) {
			it->local.m = local_m;
		} else {
			bool in = subset(cpus, local);
			HWC_SET(it->local, in);
			outside += !in;
		}
	}
	/* vectors of unknown affinity are counted apart, so outside_local is never a guess */
	HWC_SET(out->affinity_unknown, unknown);
	if (local_m.st != HWC_ST_OK)
		out->outside_local.m = local_m;
	else
		HWC_SET(out->outside_local, outside);
}

/* SPDX-License-Identifier: MIT */
/* Fuzz the proc/interrupts parser and the CPU-list parser on the same bytes. */
/* Seeds (tests/fuzz/corpus/proc_interrupts/) are verbatim corpus captures: mlx5-q6700
 * (ethtool/netutils-linux-fixtures/rss-ladder_mlx5.Q6700/interrupts), mlx4-2socket
 * (.../2xX5650.BCM5709_and_MT27520.L2.manual/interrupts), ir-pci-msix-mlx4
 * (sysfs/proc-interrupts_IR-PCI-MSIX_mlx4-cx3pro_intel-12cpu_pve_skyao.txt). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/scan.h"
#include "core/arena.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	char *buf = malloc(size + 1);
	if (buf) {
		memcpy(buf, data, size);
		struct hwc_irq_names names = {0};
		hwc_proc_interrupts_parse(buf, size, a, &names);
		buf[size] = 0; /* cpulists come from sysfs strings */
		uint64_t bits[16] = {0};
		hwc_cpulist_parse(buf, bits, 1024);
		free(buf);
	}
	hwc_arena_free(a);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Fuzz the dump path: bytes written as an 'lspci -xxxx' file, read by libpci's dump method (whose
 * errors must come back, not exit), decoded, tied into paths, and through JSON and back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/sections.h"
#include "pci/pci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/hwc-fuzz-pci-dump-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	struct hwc_facts *f = hwc_facts_new();
	if (f) {
		struct hwc_collect_opts o = {.pci_dump = path};
		/* dump mode reads nothing through the env */
		hwc_pci_collect(NULL, f, &o);
		json_t *j = hwc_pci_to_json(f);
		struct hwc_facts *g = hwc_facts_new();
		if (g && j) {
			hwc_pci_from_json(j, g);
			json_t *k = hwc_pci_to_json(g);
			if (!json_equal(j, k))
				abort(); /* the round trip must be exact */
			json_decref(k);
		}
		if (g)
			hwc_facts_free(g);
		json_decref(j);
		hwc_facts_free(f);
	}
	unlink(path);
	return 0;
}

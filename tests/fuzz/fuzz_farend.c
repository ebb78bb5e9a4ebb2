/* SPDX-License-Identifier: MIT */
/* Fuzz the far-end parsers (issue 14): any bytes as lldpcli's JSON (both shapes), then the peer
 * written to JSON and read back; and as smpquery nodedesc/nodeinfo/portinfo (its LID and its link fields) and perfquery dumps.
 * No crash, no overread, no leak. Seeds (tests/fuzz/corpus/farend/, SOURCE.md there): real
 * `lldpcli -f json[0] show neighbors [details]` outputs and infiniband-diags dumps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/json.h"
#include "hwinfo/hwinfo.h"
#include "mlx/mlx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lldp(const char *buf, size_t size, struct hwc_arena *a)
{
	struct hwc_lldp_neighbors nb = {0};
	hwc_lldp_parse(buf, size, a, &nb);
	for (size_t i = 0; i < nb.n; i++) {
		json_t *j = hwc_json_from_table(&nb.items[i].peer, &hwc_lldp_peer_table);
		struct hwc_lldp_peer back;
		memset(&back, 0, sizeof(back));
		hwc_json_get_table(j, a, &back, &hwc_lldp_peer_table);
		json_decref(j);
	}
}

static void ibdiag(const char *buf, size_t size, struct hwc_arena *a)
{
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	hwc_mlx_parse_nodedesc(buf, size, a, &p.node_description);
	hwc_mlx_parse_nodeinfo(buf, size, a, &p);
	hwc_mlx_parse_portinfo_lid(buf, size, a, &p.lid);
	hwc_mlx_parse_perfquery(buf, size, a, &p);
	hwc_mlx_parse_portinfo_link(buf, size, a, &p.portinfo);
	hwc_mlx_ibdiag_words(a, hwc_arena_strndup(a, buf, size)); /* as a failing tool's stderr */
	hwc_fmeta_set(&p.source.m, HWC_ST_OK, 0, NULL);
	json_t *j = hwc_json_from_table(&p, &hwc_mlx_peer_table);
	/* the PortInfo lists read back as they were written */
	struct hwc_mlx_peer back;
	memset(&back, 0, sizeof(back));
	hwc_json_get_table(j, a, &back, &hwc_mlx_peer_table);
	if (hwc_ok(p.portinfo.speeds_enabled_gbps) && back.portinfo.speeds_enabled_gbps.n != p.portinfo.speeds_enabled_gbps.n)
		abort();
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	char *buf = malloc(size ? size : 1); /* no terminator: overreads show under ASan */
	if (a && buf) {
		memcpy(buf, data, size);
		lldp(buf, size, a);
		ibdiag(buf, size, a);
	}
	free(buf);
	hwc_arena_free(a);
	return 0;
}

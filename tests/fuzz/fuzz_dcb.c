/* SPDX-License-Identifier: MIT */
/* Fuzz the RoCE parsers (dcb -j JSON of each show, mlnx_qos text, ethtool -S RoCE counters) and
 * the facts.roce JSON round trip of what they parsed (must be exact). The first byte picks the
 * parser: '0'..'4' dcb app/pfc/ets/dcbx/buffer, '5' mlnx_qos, '6' ethtool -S. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/facts.h"
#include "hwinfo/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(struct hwc_facts *f)
{
	json_t *j1 = hwc_roce_to_json(f);
	struct hwc_facts *g = hwc_facts_new();
	if (j1 && g) {
		if (hwc_roce_from_json(j1, g) < 0)
			abort();
		json_t *j2 = hwc_roce_to_json(g);
		if (j2 && !json_equal(j1, j2))
			abort();
		json_decref(j2);
	}
	json_decref(j1);
	hwc_facts_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct hwc_facts *f = hwc_facts_new();
	if (!f)
		return 0;
	struct hwc_roce_facts *rf = hwc_arena_zalloc(f->arena, sizeof(*rf));
	struct hwc_roce_port *p = rf ? HWC_VEC_PUSH(f->arena, &rf->ports) : NULL;
	if (!p) {
		hwc_facts_free(f);
		return 0;
	}
	f->roce = rf;
	hwc_fmeta_set(&rf->m, HWC_ST_OK, 0, NULL);
	p->rdma_device = "mlx5_0";
	p->port = 1;
	hwc_roce_qos_init(&p->qos, f->arena, "fuzz");
	hwc_roce_parse_ethtool(NULL, 0, "fuzz", f->arena, &p->counters);
	const char *buf = (const char *)data + 1;
	size_t len = size - 1;
	unsigned which = (unsigned)(data[0] - '0') % 7;
	if (which <= HWC_DCB_BUFFER)
		hwc_dcb_parse((enum hwc_dcb_show)which, buf, len, "fuzz", f->arena, &p->qos);
	else if (which == 5)
		hwc_mlnx_qos_parse(buf, len, "fuzz", f->arena, &p->qos);
	else
		hwc_roce_parse_ethtool(buf, len, "fuzz", f->arena, &p->counters);
	for (unsigned i = 0; i < HWC_ROCE_NDSCP; i++)
		if (p->qos.dscp2prio.has[i] && (p->qos.dscp2prio.v[i] < 0 || p->qos.dscp2prio.v[i] > 7))
			abort(); /* a priority out of range never reaches the facts */
	round_trip(f);
	hwc_facts_free(f);
	return 0;
}

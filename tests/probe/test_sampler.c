/* SPDX-License-Identifier: MIT */
/* The probe's watcher on a fake root: a card behind a root port that trains down under load,
 * its sensor warming, counters moving (AER per hop, netdev drops, RDMA port counters, ethtool
 * -S replayed), and the target's identity (BDF, netdev, NUMA node). Verbs are not involved. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probe_int.h"
#include "test.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512], d[600];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(d, sizeof(d), "mkdir -p \"$(dirname '%s')\"", p);
	CHECK(system(d) == 0);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *rel, const char *target)
{
	char p[512], d[600];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(d, sizeof(d), "mkdir -p \"$(dirname '%s')\"", p);
	CHECK(system(d) == 0);
	CHECK(symlink(target, p) == 0);
}

#define CARD "sys/devices/pci0000:00/0000:00:03.0/0000:3b:00.0"
#define PORT "sys/devices/pci0000:00/0000:00:03.0"
#define IB "sys/class/infiniband/mlx5_0/ports/1"

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/hwc-sampler-XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	put(CARD "/numa_node", "1\n");
	put(CARD "/max_link_speed", "16.0 GT/s PCIe\n");
	put(CARD "/max_link_width", "16\n");
	put(CARD "/current_link_speed", "16.0 GT/s PCIe\n");
	put(CARD "/current_link_width", "16\n");
	put(CARD "/aer_dev_correctable", "RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0\n");
	put(CARD "/hwmon/hwmon4/temp1_input", "71000\n");
	put(PORT "/max_link_speed", "16.0 GT/s PCIe\n");
	put(PORT "/max_link_width", "16\n");
	put(PORT "/current_link_speed", "2.5 GT/s PCIe\n"); /* idle: power saving */
	put(PORT "/current_link_width", "16\n");
	put(PORT "/aer_dev_correctable", "RxErr 2\nTOTAL_ERR_COR 2\n");
	put(PORT "/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
	link_to("sys/bus/pci/devices/0000:3b:00.0", "../../../devices/pci0000:00/0000:00:03.0/0000:3b:00.0");
	link_to("sys/bus/pci/devices/0000:00:03.0", "../../../devices/pci0000:00/0000:00:03.0");
	link_to("sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:00/0000:00:03.0/0000:3b:00.0");
	put(IB "/gid_attrs/ndevs/0", "eth2\n");
	put(IB "/counters/port_xmit_discards", "5\n");
	put(IB "/hw_counters/out_of_buffer", "10\n");
	put(IB "/hw_counters/lifespan", "10\n");
	put("sys/class/net/eth2/statistics/rx_dropped", "7\n");
	put("sys/devices/system/node/node1/cpulist", "0-1\n");
	put("hwcheck/commands/ethtool -S eth2/stdout",
	    "NIC statistics:\n     rx_packets: 10\n     outbound_pci_stalled_rd: 12\n"
	    "     rx_discards_phy: 3\n");
}

static const struct hwc_probe_counter *counter(const struct hwc_probe_result *r, const char *n)
{
	for (size_t i = 0; i < r->counters.n; i++)
		if (strcmp(r->counters.items[i].name, n) == 0)
			return &r->counters.items[i];
	return NULL;
}

int main(void)
{
	make_root();
	struct hwc_env *e;
	struct hwc_env_opts eo = {.root = root};
	CHECK_INT(hwc_env_open(&eo, &e), 0);
	struct hwc_arena *a = hwc_arena_new();

	struct pr_target t;
	pr_target_init(e, a, "mlx5_0", 1, &t);
	CHECK_STR(t.bdf, "0000:3b:00.0");
	CHECK_STR(t.netdev, "eth2");
	CHECK_INT(t.numa_node, 1);

	struct pr_sampler *s = pr_sampler_start(e, a, &t);
	CHECK(s != NULL);
	/* under load: the port link stays at 8 GT/s (below 16), the card warms, counters move */
	put(PORT "/current_link_speed", "8.0 GT/s PCIe\n");
	put(CARD "/hwmon/hwmon4/temp1_input", "91000\n");
	pr_sampler_tick(s);
	put(PORT "/current_link_speed", "16.0 GT/s PCIe\n");
	put(CARD "/hwmon/hwmon4/temp1_input", "85000\n");
	pr_sampler_tick(s);
	put(PORT "/aer_dev_correctable", "RxErr 5\nTOTAL_ERR_COR 5\n");
	put(IB "/counters/port_xmit_discards", "7\n");
	put("sys/class/net/eth2/statistics/rx_dropped", "8\n");

	struct hwc_probe_result r = {0};
	pr_sampler_finish(s, &r);
	CHECK_INT(r.temp_start_mdegc.v, 71000);
	CHECK_INT(r.temp_max_mdegc.v, 91000);
	CHECK_INT(r.hops.n, 2);
	if (r.hops.n == 2) {
		const struct hwc_probe_hop *card = &r.hops.items[0], *port = &r.hops.items[1];
		CHECK_STR(card->bdf, "0000:3b:00.0");
		CHECK(hwc_ok(card->trained_down) && !card->trained_down.v);
		CHECK_STR(port->bdf, "0000:00:03.0");
		CHECK(hwc_ok(port->trained_down) && port->trained_down.v);
		CHECK(port->speed_gts_min.v == 8.0 && port->speed_gts_max.v == 16.0);
		CHECK(port->max_speed_gts.v == 16.0 && port->max_width.v == 16);
		CHECK(hwc_ok(port->speed_gts_idle) && port->speed_gts_idle.v == 2.5); /* idle, saving */
		CHECK_INT(port->width_idle.v, 16);
		CHECK_INT(port->width_min.v, 16);
	}
	const struct hwc_probe_counter *c = counter(&r, "aer_dev_correctable@0000:00:03.0");
	CHECK(c && c->delta.v == 3);
	c = counter(&r, "aer_dev_correctable@0000:3b:00.0");
	CHECK(c && c->delta.v == 0);
	CHECK(counter(&r, "aer_dev_nonfatal@0000:00:03.0") == NULL); /* absent: not listed */
	c = counter(&r, "aer_dev_fatal@0000:00:03.0");
	CHECK(c && c->delta.v == 0);
	c = counter(&r, "port_xmit_discards");
	CHECK(c && c->delta.v == 2);
	c = counter(&r, "rx_dropped@eth2");
	CHECK(c && c->delta.v == 1);
	c = counter(&r, "hw:out_of_buffer");
	CHECK(c && c->delta.v == 0);
	CHECK(counter(&r, "hw:lifespan") == NULL);
	c = counter(&r, "outbound_pci_stalled_rd@eth2"); /* from the replayed ethtool -S */
	CHECK(c && c->delta.v == 0);
	CHECK(counter(&r, "outbound_pci_stalled_wr@eth2") == NULL);

	/* the hop that ran below its maximum is named by the explanation */
	HWC_SET(r.mode, "loopback");
	HWC_SET(r.op, "write");
	HWC_SET(r.rdma_device, "mlx5_0");
	HWC_SET(r.port, 1);
	HWC_SET(r.gbps, 90.0);
	HWC_SET(r.port_gbps, 100.0);
	HWC_SET(r.pcie_gbps, 220.0);
	hwc_probe_explain(a, &r);
	CHECK_STR(r.limited_by.v, "pcie");
	CHECK(r.finding.v && strstr(r.finding.v, "0000:00:03.0") && strstr(r.finding.v, "91 degC"));

	/* a device with no PCI function (soft-RoCE): no hops, no sensor, and the reasons */
	struct pr_target t2;
	pr_target_init(e, a, "rxe0", 1, &t2);
	CHECK(t2.bdf == NULL && t2.numa_node == -1);
	struct hwc_probe_result r2 = {0};
	pr_sampler_finish(pr_sampler_start(e, a, &t2), &r2);
	CHECK_INT(r2.hops.n, 0);
	CHECK(r2.temp_max_mdegc.m.st == HWC_ST_ABSENT && r2.temp_max_mdegc.m.detail);

	hwc_arena_free(a);
	hwc_env_free(e);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	TEST_MAIN_END();
}

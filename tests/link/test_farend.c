/* SPDX-License-Identifier: MIT */
/* Unit tests of the far end (issue 14): lldpcli's JSON in both shapes (json, json0) on real
 * captures, and the infiniband-diags dumps (smpquery nodedesc/nodeinfo, perfquery) on real ones;
 * broken input of each. Captures: tests/fuzz/corpus/farend/ (SOURCE.md there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "hwinfo/hwinfo.h"
#include "mlx/mlx.h"
#include "test.h"

static struct hwc_arena *A;

static char *seed(const char *name, size_t *len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/farend/%s", HWC_SEEDS, name);
	char *raw = t_slurp(p, 1 << 16, len);
	char *buf = hwc_arena_zalloc(A, *len + 1);
	memcpy(buf, raw, *len);
	free(raw);
	return buf;
}

static const struct hwc_lldp_peer *peer_of(const struct hwc_lldp_neighbors *nb, const char *ifname)
{
	for (size_t i = 0; i < nb->n; i++)
		if (strcmp(nb->items[i].ifname, ifname) == 0)
			return &nb->items[i].peer;
	return NULL;
}

static void parse(const char *name, struct hwc_lldp_neighbors *nb, int want_rc)
{
	size_t len;
	char *t = seed(name, &len);
	memset(nb, 0, sizeof(*nb));
	CHECK_INT(hwc_lldp_parse(t, len, A, nb), want_rc);
}

/* "json": several interfaces (a list), a named chassis, port details (mfs, MAU) */
static void test_lldp_json(void)
{
	struct hwc_lldp_neighbors nb;
	parse("lldpcli-json-details-eno1-puppet-lldpd.json", &nb, 0);
	CHECK_INT(nb.n, 1);
	const struct hwc_lldp_peer *p = peer_of(&nb, "eno1");
	CHECK(p != NULL);
	CHECK_STR(p->via.v, "LLDP");
	CHECK_STR(p->chassis_name.v, "router");
	CHECK_STR(p->chassis_id.v, "10:0e:7e:aa:aa:aa");
	CHECK_STR(p->chassis_id_type.v, "mac");
	CHECK_STR(p->system_description.v, "example router");
	CHECK_STR(p->port_id.v, "ge-1/0/1");
	CHECK_STR(p->port_id_type.v, "ifname");
	CHECK_STR(p->port_description.v, "host:eno1 {#}");
	CHECK_INT(p->max_frame_size.v, 9192);
	CHECK_STR(p->mau_type.v, "unknown");
	/* one interface: an object, not a list; a chassis without a name */
	parse("lldpcli-json-single-enp3s0-puppet-lldpd-129.json", &nb, 0);
	CHECK_INT(nb.n, 1);
	p = peer_of(&nb, "enp3s0");
	CHECK(p != NULL);
	CHECK_INT(p->chassis_name.m.st, HWC_ST_ABSENT);
	CHECK_STR(p->chassis_id.v, "44:94:fc:9d:55:0a");
	CHECK_STR(p->port_id.v, "g17");
	CHECK_STR(p->port_id_type.v, "local");
	CHECK_INT(p->port_description.m.st, HWC_ST_ABSENT);
	CHECK_INT(p->max_frame_size.m.st, HWC_ST_ABSENT);
	/* lldpd 1.0.16 here: details of a veth neighbour (MAU, no mfs) */
	parse("lldpcli-json-details-veth-lab.json", &nb, 0);
	p = peer_of(&nb, "l14va");
	CHECK(p != NULL);
	CHECK_STR(p->chassis_name.v, "leaf-07");
	CHECK_STR(p->port_description.v, "l14vb");
	CHECK_STR(p->mau_type.v, "10GbaseT - Four-pair Category 6A or better, full duplex mode only");
	/* no neighbour: {"lldp": {}} */
	parse("lldpcli-json-empty-lab.json", &nb, 0);
	CHECK_INT(nb.n, 0);
}

/* "json0": every list and {"value": x} kept, the name a member */
static void test_lldp_json0(void)
{
	struct hwc_lldp_neighbors nb;
	parse("lldpcli-json0-sonic-leaves-mlx5-unifabric.json", &nb, 0);
	CHECK_INT(nb.n, 5);
	const struct hwc_lldp_peer *p = peer_of(&nb, "ens841np0");
	CHECK(p != NULL);
	CHECK_STR(p->chassis_name.v, "LEAF03");
	CHECK_STR(p->chassis_id.v, "70:06:92:6e:32:1c");
	CHECK_STR(p->port_id.v, "Ethernet184");
	CHECK_STR(p->port_id_type.v, "local");
	CHECK(strstr(p->system_description.v, "HwSku: ds730-32d") != NULL);
	p = peer_of(&nb, "ens1np0");
	CHECK_STR(p->chassis_name.v, "StorageSW");
	CHECK_STR(p->port_id.v, "Ethernet120");
	parse("lldpcli-json0-h3c-and-host-unifabric.json", &nb, 0);
	CHECK_INT(nb.n, 3);
	p = peer_of(&nb, "enp129s0f0");
	CHECK_STR(p->chassis_name.v, "DaoCloud_ShangPu_H3C_D01_AccessSwitch");
	CHECK_STR(p->port_id.v, "GigabitEthernet1/0/17");
	p = peer_of(&nb, "enp5s0f0np0");
	CHECK_STR(p->port_id_type.v, "mac");
	CHECK_STR(p->port_description.v, "enp5s0f0np0");
	/* the same neighbour in both shapes gives the same facts */
	struct hwc_lldp_neighbors a, b;
	parse("lldpcli-json-details-veth-lab.json", &a, 0);
	parse("lldpcli-json0-details-veth-lab.json", &b, 0);
	CHECK_INT(a.n, 1);
	CHECK_INT(b.n, 1);
	CHECK_STR(a.items[0].peer.chassis_name.v, b.items[0].peer.chassis_name.v);
	CHECK_STR(a.items[0].peer.port_id.v, b.items[0].peer.port_id.v);
	CHECK_STR(a.items[0].peer.mau_type.v, b.items[0].peer.mau_type.v);
	CHECK_STR(a.items[0].peer.system_description.v, b.items[0].peer.system_description.v);
}

static void test_lldp_broken(void)
{
	const char *bad[] = {"", "not json", "{\"interfaces\": {}}", "[1,2]", "{\"lldp\": ",
			     "2026-12-01T16:24:32 [WARN/control] unable to connect to socket"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		struct hwc_lldp_neighbors nb = {0};
		CHECK_INT(hwc_lldp_parse(bad[i], strlen(bad[i]), A, &nb), -22);
		CHECK_INT(nb.n, 0);
	}
	/* odd shapes are skipped, not crashed on: a number for an interface, a chassis list,
	 * an mfs that is not a size, an id without value */
	const char *odd = "{\"lldp\": {\"interface\": [7, {\"p0\": {\"chassis\": [1], \"port\": "
			  "{\"id\": {\"type\": \"ifname\"}, \"mfs\": \"big\"}}}, {\"a\": 1, \"b\": 2}]}}";
	struct hwc_lldp_neighbors nb = {0};
	CHECK_INT(hwc_lldp_parse(odd, strlen(odd), A, &nb), 0);
	CHECK_INT(nb.n, 1);
	CHECK_INT(nb.items[0].peer.chassis_id.m.st, HWC_ST_ABSENT);
	CHECK_INT(nb.items[0].peer.port_id.m.st, HWC_ST_ABSENT);
	CHECK_INT(nb.items[0].peer.max_frame_size.m.st, HWC_ST_INVALID);
}

static void test_smpquery(void)
{
	size_t len;
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	char *t = seed("smpquery-nd-lid37-b1nstcx02.txt", &len);
	CHECK_INT(hwc_mlx_parse_nodedesc(t, len, A, &p.node_description), 0);
	CHECK_STR(p.node_description.v, "b1nstcx02 HCA-1");
	/* a name of 32 or more: one dot; a name that starts with dots keeps them */
	const char *longer = "Node Description:.MF0;leaf-07-ib:MQM9700/U1 of a long name\n";
	CHECK_INT(hwc_mlx_parse_nodedesc(longer, strlen(longer), A, &p.node_description), 0);
	CHECK_STR(p.node_description.v, "MF0;leaf-07-ib:MQM9700/U1 of a long name");
	const char *dots = "Node Description:.............................a..\n"; /* 29 dots + "a.." */
	CHECK_INT(hwc_mlx_parse_nodedesc(dots, strlen(dots), A, &p.node_description), 0);
	CHECK_STR(p.node_description.v, "a..");
	t = seed("smpquery-ni-switch-guid-r1lead.txt", &len);
	CHECK_INT(hwc_mlx_parse_nodeinfo(t, len, A, &p), 0);
	CHECK_STR(p.node_type.v, "Switch");
	CHECK_STR(p.node_guid.v, "0xe41d2d03004bef70");
	CHECK_INT(p.port.v, 17);
	t = seed("smpquery-ni-lid4-ca-mlx4-openmpi-users.txt", &len);
	CHECK_INT(hwc_mlx_parse_nodeinfo(t, len, A, &p), 0);
	CHECK_STR(p.node_type.v, "Channel Adapter");
	CHECK_STR(p.node_guid.v, "0x0002c90300336fe0"); /* Guid, not SystemGuid or PortGuid */
	CHECK_INT(p.port.v, 1);
	const char *pi = "# Port info: DR path slid 0; dlid 0; 0,1 port 0\nMkey:............................0x0000000000000000\n"
			 "Lid:.............................23\nSMLid:...........................1\n";
	CHECK_INT(hwc_mlx_parse_portinfo_lid(pi, strlen(pi), A, &p.lid), 0);
	CHECK_INT(p.lid.v, 23);
	/* broken: nothing, cut lines, a LID that is not a number */
	const char *bad[] = {"", "Node Description", "Node Description:", "NodeType", "Lid:....x\n", "Lid:......"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		memset(&p, 0, sizeof(p));
		CHECK(hwc_mlx_parse_nodedesc(bad[i], strlen(bad[i]), A, &p.node_description) < 0 || !hwc_ok(p.node_description));
		CHECK_INT(hwc_mlx_parse_nodeinfo(bad[i], strlen(bad[i]), A, &p), -22);
		CHECK_INT(hwc_mlx_parse_portinfo_lid(bad[i], strlen(bad[i]), A, &p.lid), -22);
	}
}

/* The seed's PortInfo link fields into a zeroed *pi; the parser's return. */
static int portinfo_seed(const char *name, struct hwc_mlx_portinfo *pi)
{
	size_t len;
	memset(pi, 0, sizeof(*pi));
	char *t = seed(name, &len);
	return hwc_mlx_parse_portinfo_link(t, len, A, pi);
}

static void test_portinfo_link(void)
{
	struct hwc_mlx_portinfo pi;
	/* a real ConnectX-3 at 1X FDR: the extended active speed overrides LinkSpeedActive 10.0 */
	CHECK_INT(portinfo_seed("ibportstate-cx3-fdr-1x-initial-ltyinhust.txt", &pi), 0);
	CHECK(pi.speed_active_gbps.v == 14.0625);
	CHECK_INT(pi.width_active.v, 1);
	CHECK_INT(pi.speeds_enabled_gbps.n, 4);
	CHECK(pi.speeds_enabled_gbps.items[0] == 2.5 && pi.speeds_enabled_gbps.items[3] == 14.0625);
	CHECK_INT(pi.widths_enabled.n, 1);
	CHECK_INT(pi.widths_enabled.items[0], 1);
	/* the Mellanox ext block below repeats LinkSpeedActive: PortInfo's line, the first, counts */
	/* after the set: "Extended speed" and an extended enable of 0 */
	CHECK_INT(portinfo_seed("ibportstate-cx3-after-set-ltyinhust.txt", &pi), 0);
	CHECK(pi.speed_active_gbps.v == 14.0625);
	CHECK_INT(pi.speeds_enabled_gbps.n, 3);
	CHECK(pi.speeds_enabled_gbps.items[2] == 10);
	/* FDR10: PortInfo says 10.0 and no extended speed (the port is below the FDR it enables) */
	CHECK_INT(portinfo_seed("ibportstate-cx3-fdr10-refresh-ltyinhust.txt", &pi), 0);
	CHECK(pi.speed_active_gbps.v == 10);
	CHECK(pi.speeds_enabled_gbps.items[pi.speeds_enabled_gbps.n - 1] == 14.0625);
	/* a whole current dump (ibsim): the extended fields print words and 0 */
	CHECK_INT(portinfo_seed("smpquery-pi-switch-port1-lid0-ibsim.txt", &pi), 0);
	CHECK(pi.speed_active_gbps.v == 2.5);
	CHECK_INT(pi.width_active.v, 4);
	CHECK_INT(pi.speeds_enabled_gbps.m.st, HWC_ST_OK);
	CHECK_INT(pi.speeds_enabled_gbps.n, 1);
	CHECK_INT(pi.widths_enabled.n, 1);
	CHECK_INT(pi.widths_enabled.items[0], 4);
	/* an enable that libibmad calls undefined: invalid, never an empty list */
	CHECK_INT(portinfo_seed("ibportstate-hfi-undefined-speed-viper0.txt", &pi), 0);
	CHECK(pi.speed_active_gbps.v == 5);
	CHECK_INT(pi.speeds_enabled_gbps.m.st, HWC_ST_INVALID);
	CHECK_INT(pi.speeds_enabled_gbps.n, 0);
	CHECK_INT(pi.widths_enabled.n, 2);
	/* broken: not a PortInfo, cut values, widths that are not one */
	const char *bad[] = {"", "Lid:......4\n", "LinkSpeedActive:....\nLinkWidthActive:....\n",
			     "LinkSpeedActive:....fast\nLinkWidthActive:....1X or 4X\nLinkSpeedEnabled:...2.5 Gbps or\n",
			     "LinkSpeedActive:....2.5 Gbps\nLinkWidthActive:....undefined (3)\nLinkWidthEnabled:...\n"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		memset(&pi, 0, sizeof(pi));
		int rc = hwc_mlx_parse_portinfo_link(bad[i], strlen(bad[i]), A, &pi);
		CHECK(rc == -22 || (!hwc_ok(pi.speed_active_gbps) || !hwc_ok(pi.width_active)));
		CHECK(!hwc_ok(pi.speeds_enabled_gbps) || pi.speeds_enabled_gbps.n > 0 || rc == -22);
	}
	const char *ext = "LinkSpeedActive:.....5.0 Gbps\nLinkWidthActive:....4X\nLinkWidthEnabled:...4X\n"
			  "LinkSpeedEnabled:....5.0 Gbps or 10.0 Gbps (IBA extension)\n"
			  "LinkSpeedExtEnabled:.............Extended link speeds disabled\n";
	memset(&pi, 0, sizeof(pi));
	CHECK_INT(hwc_mlx_parse_portinfo_link(ext, strlen(ext), A, &pi), 0);
	CHECK_INT(pi.speeds_enabled_gbps.n, 2);
	CHECK(pi.speeds_enabled_gbps.items[1] == 10);
}

static void test_portinfo_mtu(void)
{
	struct hwc_mlx_portinfo pi;
	/* the whole ibsim dump: NeighborMTU 2048 and MtuCap 2048, as mad_dump_mtu prints codes 4 */
	CHECK_INT(portinfo_seed("smpquery-pi-switch-port1-lid0-ibsim.txt", &pi), 0);
	CHECK_INT(pi.neighbor_mtu.m.st, HWC_ST_OK);
	CHECK_INT(pi.neighbor_mtu.v, 2048);
	CHECK_INT(pi.mtu_cap.v, 2048);
	/* ibportstate prints the link lines only: no MTU, absent and saying so */
	CHECK_INT(portinfo_seed("ibportstate-cx3-fdr-1x-initial-ltyinhust.txt", &pi), 0);
	CHECK_INT(pi.neighbor_mtu.m.st, HWC_ST_ABSENT);
	CHECK_STR(pi.mtu_cap.m.detail, "smpquery printed no MtuCap");
	/* codes libibmad has no figure for ("?(6)"), figures no IBA MTU has, empty values: invalid */
	const char *head = "LinkSpeedActive:....2.5 Gbps\nLinkWidthActive:....4X\n";
	const char *bad[] = {"NeighborMTU:.....?(6)\nMtuCap:....?(0)\n", "NeighborMTU:.....4095\nMtuCap:....8192\n",
			     "NeighborMTU:.....0\nMtuCap:....128\n", "NeighborMTU:.....\nMtuCap:....-4096\n",
			     "NeighborMTU:.....2048 bytes\nMtuCap:....0x1000\n"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		char *t = hwc_arena_printf(A, "%s%s", head, bad[i]);
		memset(&pi, 0, sizeof(pi));
		CHECK_INT(hwc_mlx_parse_portinfo_link(t, strlen(t), A, &pi), 0);
		CHECK(!hwc_ok(pi.neighbor_mtu) && !hwc_ok(pi.mtu_cap));
		CHECK(pi.neighbor_mtu.m.detail != NULL && pi.mtu_cap.m.detail != NULL);
	}
	const char *good = "LinkSpeedActive:....2.5 Gbps\nLinkWidthActive:....4X\nNeighborMTU:.....256\nMtuCap:....4096\r\n";
	memset(&pi, 0, sizeof(pi));
	CHECK_INT(hwc_mlx_parse_portinfo_link(good, strlen(good), A, &pi), 0);
	CHECK_INT(pi.neighbor_mtu.v, 256);
	CHECK_INT(pi.mtu_cap.v, 4096);
	/* not a PortInfo: the MTUs say why with the rest */
	memset(&pi, 0, sizeof(pi));
	CHECK_INT(hwc_mlx_parse_portinfo_link("MtuCap:....4096\n", 16, A, &pi), -22);
	CHECK_INT(pi.mtu_cap.m.st, HWC_ST_INVALID);
}

static void test_perfquery(void)
{
	size_t len;
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	char *t = seed("perfquery-x-lid10-rhel75-infiniband-diags-16.txt", &len);
	CHECK_INT(hwc_mlx_parse_perfquery(t, len, A, &p), 0);
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++) {
		CHECK_INT(p.counters[i].m.st, HWC_ST_OK);
		CHECK_INT(p.counters[i].v, 0);
	}
	const char *some = "# Port counters: Lid 3 port 31 (CapMask: 0x5A00)\nPortSelect:......................31\n"
			   "SymbolErrorCounter:..............1234\nLinkDownedCounter:...............255\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_perfquery(some, strlen(some), A, &p), 0);
	CHECK_INT(p.counters[0].v, 1234);
	CHECK_INT(p.counters[2].v, 255);
	CHECK_INT(p.counters[3].m.st, HWC_ST_ABSENT);
	const char *bad[] = {"", "SymbolErrorCounter:....1\n", "ibwarn: [31266] mad_rpc_open_port: can't open UMAD port"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++) {
		memset(&p, 0, sizeof(p));
		CHECK_INT(hwc_mlx_parse_perfquery(bad[i], strlen(bad[i]), A, &p), -22);
		CHECK_INT(p.counters[0].m.st, HWC_ST_INVALID);
	}
	const char *neg = "PortSelect:...1\nSymbolErrorCounter:....-1\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_perfquery(neg, strlen(neg), A, &p), 0);
	CHECK_INT(p.counters[0].m.st, HWC_ST_INVALID);
}

/* OFED 1.x perfquery (libibmad before the IBA field names): the same counters read */
static void test_perfquery_ofed1(void)
{
	size_t len;
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	char *t = seed("perfquery-ofed1-lid12-errors-ompi-users-2008.txt", &len);
	CHECK_INT(hwc_mlx_parse_perfquery(t, len, A, &p), 0);
	/* symbol_error, link_error_recovery, link_downed, port_rcv_errors, remote physical,
	 * xmit discards, local link integrity, buffer overrun (hwc_mlx_peer_counter_names) */
	const uint64_t want[HWC_MLX_NPEER_COUNTERS] = {7836, 255, 0, 24058, 6159, 3176, 0, 0};
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++) {
		CHECK_INT(p.counters[i].m.st, HWC_ST_OK);
		CHECK_INT(p.counters[i].v, want[i]);
	}
	memset(&p, 0, sizeof(p));
	t = seed("perfquery-ofed1-lid936-tacc-stats.txt", &len);
	CHECK_INT(hwc_mlx_parse_perfquery(t, len, A, &p), 0);
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++)
		CHECK(hwc_ok(p.counters[i]) && p.counters[i].v == 0);
	/* an old name with a bad value names the field it read */
	const char *bad = "PortSelect:...1\nSymbolErrors:....x\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_perfquery(bad, strlen(bad), A, &p), 0);
	CHECK_INT(p.counters[0].m.st, HWC_ST_INVALID);
	CHECK(strstr(p.counters[0].m.detail, "SymbolErrors 'x'") != NULL);
}

/* the counters of another port than the peer's are not taken (a switch's port 0 counts the
 * whole switch) */
static void test_perfquery_port_select(void)
{
	size_t len;
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	char *t = seed("perfquery-x-lid10-rhel75-infiniband-diags-16.txt", &len); /* PortSelect 1 */
	HWC_SET(p.port, 1);
	CHECK_INT(hwc_mlx_parse_perfquery(t, len, A, &p), 0);
	CHECK_INT(p.counters[0].m.st, HWC_ST_OK);
	memset(&p, 0, sizeof(p));
	HWC_SET(p.port, 17);
	CHECK_INT(hwc_mlx_parse_perfquery(t, len, A, &p), -22);
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++)
		CHECK_INT(p.counters[i].m.st, HWC_ST_INVALID);
	CHECK(strstr(p.counters[0].m.detail, "PortSelect 1, not the peer's port 17") != NULL);
}

/* LID 0 is no address (a switch's external port, a subnet without SM): never a PMA target; a
 * switch whose LocalPort is 0 names its management port, not a cable's end */
static void test_lid0_and_switch_port0(void)
{
	size_t len;
	struct hwc_fi64 lid = {0};
	char *t = seed("smpquery-pi-switch-port1-lid0-ibsim.txt", &len);
	CHECK_INT(hwc_mlx_parse_portinfo_lid(t, len, A, &lid), -22);
	CHECK_INT(lid.m.st, HWC_ST_ABSENT);
	CHECK(strstr(lid.m.detail, "LID is 0") != NULL);
	struct hwc_mlx_peer p;
	memset(&p, 0, sizeof(p));
	t = seed("smpquery-ni-switch-guid-r1lead.txt", &len);
	char *lp = strstr(t, "LocalPort:.......................17");
	CHECK(lp != NULL);
	memcpy(lp + strlen("LocalPort:......................."), ".0", 2); /* dots are padding */
	CHECK_INT(hwc_mlx_parse_nodeinfo(t, len, A, &p), 0);
	CHECK_STR(p.node_type.v, "Switch");
	CHECK_INT(p.port.m.st, HWC_ST_INVALID);
	CHECK(strstr(p.port.m.detail, "management port") != NULL);
	/* a channel adapter's port is never 0 either way: LocalPort 0 stays a value there */
	const char *ca = "NodeType:........................Channel Adapter\nLocalPort:.......................1\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_nodeinfo(ca, strlen(ca), A, &p), 0);
	CHECK_INT(p.port.v, 1);
}

/* a failing tool's words: the iberror line with its first ibwarn cause (real stderr), odd ones */
static void test_ibdiag_words(void)
{
	size_t len;
	char *t = seed("smpquery-stderr-ni-lid4-no-answer-openmpi-users.txt", &len);
	CHECK_STR(hwc_mlx_ibdiag_words(A, t),
		  "failed: operation NodeInfo: node info query failed (mad_rpc: _do_madrpc failed; dport (Lid 4))");
	t = seed("perfquery-stderr-client-register-infiniband-exporter-26.txt", &len);
	CHECK_STR(hwc_mlx_ibdiag_words(A, t),
		  "failed: Failed to open '(null)' port '0' (mad_rpc_open_port: client_register for mgmt 1 failed)");
	/* the last iberror line; an ibwarn without its pid; nothing to quote */
	CHECK_STR(hwc_mlx_ibdiag_words(A, "x: iberror: a\ny: iberror: b\n"), "b");
	CHECK_STR(hwc_mlx_ibdiag_words(A, "ibwarn: [12\nsmpquery: iberror: failed: x"), "failed: x ([12)");
	CHECK_STR(hwc_mlx_ibdiag_words(A, "ibwarn: [7] _do_madrpc: recv failed: Connection timed out"),
		  "_do_madrpc: recv failed: Connection timed out");
	CHECK_STR(hwc_mlx_ibdiag_words(A, "can't open UMAD port\nmore"), "can't open UMAD port");
	CHECK_STR(hwc_mlx_ibdiag_words(A, ""), "no message");
	CHECK_STR(hwc_mlx_ibdiag_words(A, "smpquery: iberror: \n"), "no message");
	CHECK_STR(hwc_mlx_ibdiag_words(A, "ibwarn: [1] the cause\nsmpquery: iberror: \n"), "the cause");
	CHECK_STR(hwc_mlx_ibdiag_words(A, NULL), "no message");
}

/* The per-MAD timeout goes after "tool -C CA -P PORT", and an argv of fewer words gets it at its
 * end (mlx/ibpeer.c used to copy five words whatever the count). */
static void test_mad_argv(void)
{
	const char *const full[] = {"smpquery", "-C", "mlx5_0", "-P", "1", "-D", "nodedesc", "0,1"};
	const char *const *v = hwc_mlx_mad_argv(A, full, 8);
	const char *const want[] = {"smpquery", "-C", "mlx5_0", "-P", "1", "-t", "200", "-D", "nodedesc", "0,1"};
	for (size_t i = 0; i < 10; i++)
		CHECK_STR(v[i], want[i]);
	CHECK(v[10] == NULL);
	const char *const few[] = {"perfquery", "-C", "mlx5_0"};
	for (size_t n = 0; n <= 5; n++) {
		const char *const five[] = {"perfquery", "-C", "mlx5_0", "-P", "1"};
		v = hwc_mlx_mad_argv(A, n <= 3 ? few : five, n);
		for (size_t i = 0; i < n; i++)
			CHECK_STR(v[i], (n <= 3 ? few : five)[i]);
		CHECK_STR(v[n], "-t");
		CHECK_STR(v[n + 1], "200");
		CHECK(v[n + 2] == NULL);
	}
}

int main(void)
{
	A = hwc_arena_new();
	test_mad_argv();
	test_lldp_json();
	test_lldp_json0();
	test_lldp_broken();
	test_smpquery();
	test_portinfo_link();
	test_portinfo_mtu();
	test_perfquery();
	test_perfquery_ofed1();
	test_perfquery_port_select();
	test_lid0_and_switch_port0();
	test_ibdiag_words();
	hwc_arena_free(A);
	TEST_MAIN_END();
}

/* SPDX-License-Identifier: MIT */
/* pci/ pure parts: the path model against the kernel's own numbers (corpus/dmesg), verdicts,
 * sysfs parsers, VPD, and the config decoder on hand-built bytes. */
#include "pci/pci.h"
#include "test.h"

static double absd(double x) { return x < 0 ? -x : x; }

/* Gb/s with three decimals, as the kernel prints it ("%u.%03u Gb/s"): link.gbps's formula. */
static long mbps_of(double gts, int width)
{
	double g = hwc_pci_link_gbps(gts, width);
	CHECK(absd(g * 1000 - (double)hwc_pci_lane_mbps(gts) * width) < 1e-6);
	return (long)(g * 1000 + 0.5);
}

static void kernel_figures(void)
{
	/* Every "available PCIe bandwidth" figure in corpus/dmesg. */
	CHECK_INT(mbps_of(8, 16), 126016);  /* mlx5-cx5 / cx6-ocp3 Gen3 x16 */
	CHECK_INT(mbps_of(16, 16), 252048); /* "capable of 252.048 Gb/s" */
	CHECK_INT(mbps_of(16, 8), 126024);  /* ice E810 limited by 16 GT/s x8 */
	CHECK_INT(mbps_of(8, 8), 63008);    /* CX5 HPE x8 of x16, CX4 Lx */
	CHECK_INT(mbps_of(2.5, 4), 8000);   /* CX6 OCP3 Gen1 x4 */
	CHECK_INT(mbps_of(5, 1), 4000);     /* 82599 on a Pi CM4 */
	CHECK_INT(mbps_of(5, 8), 32000);
	CHECK_INT(mbps_of(32, 4), 126028);  /* DGX Spark CX7 Gen5 x4 */
	CHECK_INT(mbps_of(8, 1), 7876);     /* boot log h370m: 7.876 Gb/s */
	CHECK_INT(mbps_of(8, 4), 31504);    /* "capable of 31.504 Gb/s" */
	CHECK_INT(mbps_of(64, 16), 1024000);
	CHECK_INT(hwc_pci_lane_mbps(3), 0);
	CHECK(hwc_pci_link_gbps(3, 16) == 0);  /* no known rate */
	CHECK(hwc_pci_link_gbps(8, 0) == 0);   /* no link trained */
	CHECK(hwc_pci_link_gbps(8, -1) == 0);
}

static void path_limit(void)
{
	/* mlx5-cx6-ocp3 ..._limited-by-2.5GT-x4: the card and the PCH root port 00:1b.4 both see
	 * 2.5 GT/s x4; the kernel names the root port (the upper hop wins a tie). */
	struct hwc_pci_hop a[] = {{"0000:04:00.0", 2.5, 4}, {"0000:00:1b.4", 2.5, 4}};
	unsigned long mbps;
	CHECK_INT(hwc_pci_path_limit(a, 2, &mbps), 1);
	CHECK_INT(mbps, 8000);
	/* ..._limited-by-8GT-x16 at 0000:00:01.0 */
	struct hwc_pci_hop b[] = {{"0000:01:00.0", 8, 16}, {"0000:00:01.0", 8, 16}};
	CHECK_INT(hwc_pci_path_limit(b, 2, &mbps), 1);
	CHECK_INT(mbps, 126016);
	/* a slower switch hop in the middle limits, a faster root port above does not */
	struct hwc_pci_hop c[] = {{"0000:03:00.0", 16, 16}, {"0000:02:00.0", 16, 16},
				  {"0000:01:00.0", 8, 16}, {"0000:00:01.0", 16, 16}};
	CHECK_INT(hwc_pci_path_limit(c, 4, &mbps), 2);
	CHECK_INT(mbps, 126016);
	/* the E810 case: x8 at the root port c9:02.0, device x16 */
	struct hwc_pci_hop d[] = {{"0000:ca:00.0", 16, 16}, {"0000:c9:02.0", 16, 8}};
	CHECK_INT(hwc_pci_path_limit(d, 2, &mbps), 1);
	CHECK_INT(mbps, 126024);
	CHECK_INT(hwc_pci_path_limit(d, 0, &mbps), -22);
	/* an untrained hop (speed unknown) is 0 Gb/s and limits */
	struct hwc_pci_hop e[] = {{"x", 16, 16}, {"y", 0, 0}, {"z", 16, 16}};
	CHECK_INT(hwc_pci_path_limit(e, 3, &mbps), 1);
	CHECK_INT(mbps, 0);
}

static void efficiency(void)
{
	CHECK(absd(hwc_pci_tlp_efficiency(16, 256) - 256.0 / 280.0) < 1e-12);
	CHECK(absd(hwc_pci_tlp_efficiency(8, 128) - 128.0 / 152.0) < 1e-12);
	CHECK(absd(hwc_pci_tlp_efficiency(64, 256) - 236.0 / 256.0 * 256.0 / 272.0) < 1e-12);
	CHECK(hwc_pci_tlp_efficiency(16, 0) == 0);
	/* Gen4 x16, MPS 512: 252.048 x 512/536 */
	CHECK(absd(252.048 * hwc_pci_tlp_efficiency(16, 512) - 240.7622686567164) < 1e-9);
}

static void verdicts(void)
{
	/* CX6 OCP3 in the Gen4 x16 slot trained at Gen3 x16: downgraded */
	CHECK_STR(hwc_pci_link_verdict(8, 16, 16, 16, 16, 16), "downgraded");
	/* Gen1 x4 in a Gen4 x4 slot: downgraded (speed), though also narrower than the card */
	CHECK_STR(hwc_pci_link_verdict(2.5, 4, 16, 16, 16, 4), "downgraded");
	/* Gen4 x4 in a Gen4 x4 slot, card x16: slot_limited */
	CHECK_STR(hwc_pci_link_verdict(16, 4, 16, 16, 16, 4), "slot_limited");
	/* Gen5 card in a Gen4 slot at Gen4: slot_limited */
	CHECK_STR(hwc_pci_link_verdict(16, 16, 32, 16, 16, 16), "slot_limited");
	CHECK_STR(hwc_pci_link_verdict(32, 16, 32, 16, 32, 16), "ok");
	CHECK_STR(hwc_pci_link_verdict(32, 16, 32, 16, 0, 0), "ok");
	CHECK_STR(hwc_pci_link_verdict(16, 16, 32, 16, 0, 0), "unknown");
	CHECK_STR(hwc_pci_link_verdict(0, 16, 32, 16, 32, 16), "unknown");
}

static void parsers(void)
{
	long long v = -1;
	const char aer[] = "RxErr 0\nBadTLP 2\nBadDLLP 1\ndev_cor_errs_bit[14] 3\nTOTAL_ERR_COR 6\n";
	CHECK_INT(hwc_pci_parse_aer_total(aer, sizeof(aer) - 1, &v), 0);
	CHECK_INT(v, 6);
	const char nonfatal[] = "Undefined 0\nDLP 0\nTOTAL_ERR_NONFATAL 0";
	CHECK_INT(hwc_pci_parse_aer_total(nonfatal, sizeof(nonfatal) - 1, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(hwc_pci_parse_aer_total("RxErr 0\n", 8, &v), -22);
	CHECK_INT(hwc_pci_parse_aer_total("TOTAL_ERR_COR x\n", 16, &v), -22);
	double g = 0;
	CHECK_INT(hwc_pci_parse_speed("8.0 GT/s PCIe", &g), 0);
	CHECK(g == 8);
	CHECK_INT(hwc_pci_parse_speed("2.5 GT/s PCIe", &g), 0);
	CHECK(g == 2.5);
	CHECK_INT(hwc_pci_parse_speed("16 GT/s", &g), 0);
	CHECK(g == 16);
	CHECK_INT(hwc_pci_parse_speed("Unknown", &g), -22);
	CHECK_INT(hwc_pci_parse_speed("Unknown speed", &g), -22);
	CHECK_INT(hwc_pci_parse_speed("7.0 GT/s PCIe", &g), -22);
}

static void vpd(struct hwc_arena *a)
{
	/* The layout of a ConnectX-7 MCX755106AS-HEAT VPD (lspci/cx7-200g-..._21-00.0_stelline):
	 * ID string, then VPD-R with PN and SN (values shortened here). */
	static const unsigned char v[] = {0x82, 0x0a, 0x00, 'C', 'o', 'n', 'n', 'e', 'c', 't', 'X', '-', '7',
		0x90, 0x17, 0x00, 'P', 'N', 0x0b, 'M', 'C', 'X', '7', '5', '5', '1', '0', '6', 'A', 'S',
		'S', 'N', 0x06, 'M', 'T', '2', '3', ' ', ' ', 0x78};
	struct hwc_pci_device d = {0};
	CHECK_INT(hwc_pci_parse_vpd(v, sizeof(v), a, &d), 0);
	CHECK_STR(d.vpd.product_name.v, "ConnectX-7");
	CHECK_STR(d.vpd.part_number.v, "MCX755106AS");
	CHECK_STR(d.vpd.serial_number.v, "MT23");
	struct hwc_pci_device e = {0};
	CHECK_INT(hwc_pci_parse_vpd(v, 5, a, &e), -22); /* cut inside the ID string */
	CHECK_INT(hwc_pci_parse_vpd((const unsigned char *)"\xff\xff", 2, a, &e), -22);
}

static void put16(unsigned char *b, int off, unsigned v) { b[off] = v & 0xff, b[off + 1] = v >> 8; }
static void put32(unsigned char *b, int off, unsigned v)
{
	put16(b, off, v & 0xffff);
	put16(b, off + 2, v >> 16);
}

static void decoder(struct hwc_arena *a)
{
	/* A ConnectX-7 endpoint: PCIe cap at 0x60, Gen5 x16 trained, MPS 256/512, MRRS 512, RO on,
	 * slot power 75 W captured; AER at 0x100; SR-IOV at 0x180 with 16 of 127 VFs. */
	unsigned char c[4096] = {0};
	put16(c, 0, 0x15b3);
	put16(c, 2, 0x1021);
	put16(c, 6, 0x0010); /* status: capability list */
	c[8] = 0;
	c[0x9] = 0, c[0xa] = 0x00, c[0xb] = 0x02;
	put16(c, 0x2c, 0x15b3);
	put16(c, 0x2e, 0x0040);
	c[0x34] = 0x60;
	c[0x60] = 0x10, c[0x61] = 0;
	put16(c, 0x62, 0x0002); /* v2 endpoint */
	put32(c, 0x64, 0x2 | (75u << 18));              /* MPS 512, slot power 75 x 1 W */
	put16(c, 0x68, 0x0010 | (1 << 5) | (2 << 12) | 0x100); /* RO, MPS 256, MRRS 512, ExtTag */
	put16(c, 0x6a, 0x0009);                        /* CorrErr, UnsupReq */
	put32(c, 0x6c, 5 | (16 << 4) | (1u << 10));    /* LnkCap 32 GT/s x16, L0s */
	put16(c, 0x72, 5 | (16 << 4));                 /* LnkSta 32 GT/s x16 */
	put32(c, 0x8c, 0x1f << 1);                     /* LnkCap2 2.5-32 */
	put16(c, 0x90, 5);
	put32(c, 0x100, 0x0001 | (1 << 16) | (0x180u << 20)); /* AER -> 0x180 */
	put32(c, 0x180, 0x0010 | (1 << 16));                  /* SR-IOV, last */
	put16(c, 0x180 + 0x0e, 127);
	put16(c, 0x180 + 0x10, 16);
	put16(c, 0x180 + 0x1a, 0x101e);
	struct hwc_pci_device d = {0};
	const char *err = NULL;
	CHECK_INT(hwc_pci_decode_config(c, sizeof(c), a, &d, &err), 0);
	CHECK_STR(d.vendor_id.v, "15b3");
	CHECK_STR(d.class_code.v, "020000");
	CHECK_STR(d.port_type.v, "endpoint");
	CHECK(d.link.speed_gts.v == 32 && d.link.width.v == 16);
	CHECK(d.link.cap_speed_gts.v == 32 && d.link.cap_width.v == 16);
	CHECK_INT(d.link.supported_speeds_gts.n, 5);
	CHECK_INT(d.max_payload_bytes.v, 256);
	CHECK_INT(d.max_payload_supported_bytes.v, 512);
	CHECK_INT(d.max_read_request_bytes.v, 512);
	CHECK(d.relaxed_ordering.v && d.extended_tag.v && !d.no_snoop.v);
	CHECK(d.slot_power_limit_w.v == 75);
	CHECK(d.dev_status.correctable.v && d.dev_status.unsupported_request.v && !d.dev_status.fatal.v);
	CHECK(hwc_ok(d.aer_capable) && d.aer_capable.v);
	CHECK_INT(d.sriov.total_vfs.v, 127);
	CHECK_INT(d.sriov.num_vfs.v, 16);
	CHECK_STR(d.sriov.vf_device_id.v, "101e");
	CHECK_STR(d.link.aspm_supported.v, "l0s");

	/* The same bytes as a non-root reader gets them: 64 of them. */
	struct hwc_pci_device n = {0};
	CHECK_INT(hwc_pci_decode_config(c, 64, a, &n, &err), 0);
	CHECK_STR(n.device_id.v, "1021");
	CHECK_INT(n.link.m.st, HWC_ST_NEEDS_ROOT);
	CHECK_INT(n.max_payload_bytes.m.st, HWC_ST_NEEDS_ROOT);
	/* 256 bytes (lspci -xxx): no extended space */
	struct hwc_pci_device x = {0};
	CHECK_INT(hwc_pci_decode_config(c, 256, a, &x, &err), 0);
	CHECK_INT(x.aer_capable.m.st, HWC_ST_ABSENT);
	CHECK_INT(x.max_payload_bytes.v, 256);
	/* a capability chain that loops on itself ends */
	c[0x61] = 0x60;
	struct hwc_pci_device l = {0};
	CHECK_INT(hwc_pci_decode_config(c, 4096, a, &l, &err), 0);
	/* all ones: the device is gone */
	unsigned char ff[64];
	memset(ff, 0xff, sizeof(ff));
	struct hwc_pci_device g = {0};
	CHECK_INT(hwc_pci_decode_config(ff, 64, a, &g, &err), -22);
	CHECK(err && strstr(err, "does not answer"));
	/* a VF: ids read ffff, the capabilities are there */
	unsigned char vf[4096];
	c[0x61] = 0; /* undo the loop */
	memcpy(vf, c, sizeof(vf));
	put16(vf, 0, 0xffff);
	put16(vf, 2, 0xffff);
	struct hwc_pci_device v = {0};
	CHECK_INT(hwc_pci_decode_config(vf, sizeof(vf), a, &v, &err), 0);
	CHECK_INT(v.vendor_id.m.st, HWC_ST_UNSUPPORTED);
	CHECK_STR(v.port_type.v, "endpoint");
	CHECK(v.link.speed_gts.v == 32);
	CHECK_INT(hwc_pci_decode_config(ff, 10, a, &g, &err), -22);
	/* speed codes: Gen1..Gen6, nothing else */
	CHECK(hwc_pci_speed_code_gts(1) == 2.5 && hwc_pci_speed_code_gts(6) == 64);
	CHECK(hwc_pci_speed_code_gts(7) == 0 && hwc_pci_speed_code_gts(0) == 0);
}

/* The links several functions' paths cross: a dual-port card's own link, a switch uplink; a
 * switch's internal bus is none; a function on another root port shares nothing. */
static void shared_links(void)
{
	json_error_t err;
	json_t *d = json_loads(
		"[{\"bdf\":\"0000:00:01.0\",\"port_type\":\"root_port\",\"path\":[\"0000:00:01.0\"],"
		"\"link\":{\"speed_gts\":32,\"width\":16}},"
		"{\"bdf\":\"0000:01:00.0\",\"port_type\":\"upstream_port\",\"link\":{\"speed_gts\":32,\"width\":16}},"
		"{\"bdf\":\"0000:02:00.0\",\"port_type\":\"downstream_port\",\"link\":{\"speed_gts\":32,\"width\":16}},"
		"{\"bdf\":\"0000:02:01.0\",\"port_type\":\"downstream_port\",\"link\":{\"speed_gts\":32,\"width\":16}},"
		"{\"bdf\":\"0000:03:00.0\",\"port_type\":\"endpoint\",\"max_payload_bytes\":256,"
		"\"link\":{\"speed_gts\":16,\"width\":16},"
		"\"path\":[\"0000:03:00.0\",\"0000:02:00.0\",\"0000:01:00.0\",\"0000:00:01.0\"]},"
		"{\"bdf\":\"0000:03:00.1\",\"port_type\":\"endpoint\",\"max_payload_bytes\":512,"
		"\"link\":{\"speed_gts\":16,\"width\":16},"
		"\"path\":[\"0000:03:00.1\",\"0000:02:00.0\",\"0000:01:00.0\",\"0000:00:01.0\"]},"
		"{\"bdf\":\"0000:04:00.0\",\"port_type\":\"endpoint\",\"max_payload_bytes\":256,"
		"\"link\":{\"speed_gts\":32,\"width\":16},"
		"\"path\":[\"0000:04:00.0\",\"0000:02:01.0\",\"0000:01:00.0\",\"0000:00:01.0\"]},"
		"{\"bdf\":\"0000:80:00.0\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":32,\"width\":16},"
		"\"path\":[\"0000:80:00.0\",\"0000:7f:01.0\"]}]", 0, &err);
	CHECK(d != NULL);
	const char *bdfs[] = {"0000:03:00.0", "0000:03:00.1", "0000:04:00.0", "0000:80:00.0", "none"};
	struct hwc_pci_shared_link l[8];
	size_t n = hwc_pci_shared_links(d, bdfs, 5, l, 8);
	CHECK_INT(n, 2);
	/* the card's own link, below downstream port 02:00.0: both functions, Gen4 x16, MPS 256 */
	CHECK_STR(l[0].port_bdf, "0000:02:00.0");
	CHECK_INT(l[0].members, 0x3);
	CHECK(absd(l[0].raw_gbps - 252.048) < 1e-9);
	CHECK(absd(l[0].gbps - 252.048 * 256 / 280) < 1e-9);
	CHECK(!l[0].switch_uplink);
	/* the switch's uplink, below root port 00:01.0: three functions, Gen5 x16 */
	CHECK_STR(l[1].port_bdf, "0000:00:01.0");
	CHECK_INT(l[1].members, 0x7);
	CHECK(absd(l[1].raw_gbps - 504.112) < 1e-9);
	CHECK(l[1].switch_uplink);
	/* fewer than two functions, or a cap of one, write less */
	CHECK_INT(hwc_pci_shared_links(d, bdfs + 3, 2, l, 8), 0);
	CHECK_INT(hwc_pci_shared_links(d, bdfs, 5, l, 1), 1);
	CHECK_INT(hwc_pci_shared_links(NULL, bdfs, 5, l, 8), 0);
	json_decref(d);
}

int main(void)
{
	struct hwc_arena *a = hwc_arena_new();
	kernel_figures();
	path_limit();
	efficiency();
	verdicts();
	parsers();
	vpd(a);
	shared_links();
	decoder(a);
	hwc_arena_free(a);
	TEST_MAIN_END();
}

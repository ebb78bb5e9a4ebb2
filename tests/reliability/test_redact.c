/* SPDX-License-Identifier: MIT */
/* hwc_redact on real formats (lines copied from the corpus, see tests/fixtures/redact/SOURCE.md):
 * exact placeholders, same length, one placeholder per value across files, binary config and VPD
 * kept parseable. */
#include <stdint.h>
#include <stdlib.h>

#include "snapshot/redact.h"
#include "test.h"
#include "core/util.h"

static struct hwc_redactor *r;

/* Redacts a copy of `in` as the file `path` with redactor x; returns it (static buffer), checks
 * the length. */
static const char *red2(struct hwc_redactor *x, const char *path, const char *in)
{
	static char buf[4096];
	size_t len = strlen(in);
	memcpy(buf, in, len + 1);
	hwc_redact(x, path, (unsigned char *)buf, len);
	CHECK_INT(strlen(buf), len);
	return buf;
}

static const char *red(const char *path, const char *in)
{
	return red2(r, path, in);
}

static void test_text(void)
{
	/* sysfs: node_guid and its twin in another file get one placeholder; the OUI stays */
	CHECK_STR(red("sys/class/infiniband/mlx5_0/node_guid", "f41d:6b03:006f:4743\n"),
		  "f41d:6b00:0000:0001\n");
	CHECK_STR(red("sys/class/infiniband/mlx5_0/sys_image_guid", "f41d:6b03:006f:4743\n"),
		  "f41d:6b00:0000:0001\n");
	/* a MAC: OUI kept; a locally administered one: nothing kept */
	CHECK_STR(red("sys/class/net/eth0/address", "0c:42:a1:65:4a:8c\n"), "0c:42:a1:00:00:01\n");
	CHECK_STR(red("sys/class/net/docker0/address", "02:42:AC:11:00:02\n"),
		  "02:00:00:00:00:02\n");
	CHECK_STR(red("sys/class/net/lo/address", "00:00:00:00:00:00\n"), "00:00:00:00:00:00\n");
	CHECK_STR(red("sys/class/net/ib0/broadcast",
		      "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff\n"),
		  "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff\n");
	/* IPoIB address: its GUID half, the same GUID as node_guid */
	CHECK_STR(red("sys/class/net/ib0/address",
		      "00:00:10:87:fe:80:00:00:00:00:00:00:f4:1d:6b:03:00:6f:47:43\n"),
		  "00:00:10:87:fe:80:00:00:00:00:00:00:f4:1d:6b:00:00:00:00:01\n");
	/* a GID: the subnet prefix stays, the interface id goes */
	CHECK_STR(red("sys/class/infiniband/mlx5_0/ports/1/gids/0",
		      "fe80:0000:0000:0000:f41d:6b03:006f:4743\n"),
		  "fe80:0000:0000:0000:f41d:6b00:0000:0001\n");
	/* lspci -vvv: DSN and VPD serial */
	CHECK_STR(red("hwcheck/commands/lspci -vvv/stdout",
		      "\tCapabilities: [148 v1] Device Serial Number 00-1a-11-ff-fe-4c-3c-70\n"),
		  "\tCapabilities: [148 v1] Device Serial Number 00-1a-11-00-00-00-00-02\n");
	CHECK_STR(red("hwcheck/commands/lspci -vvv/stdout",
		      "\t\t\t[SN] Serial number: MT24426016T3\n"),
		  "\t\t\t[SN] Serial number: XX00000000X1\n");
	/* flint / mlxfwmanager: labelled hex values, several on a line */
	CHECK_STR(red("hwcheck/commands/mstflint -d 0000:3b:00.0 q/stdout",
		      "Base GUID:             b8599f0300f08018        4\n"
		      "Base MAC:              b8599ff08018            4\n"),
		  "Base GUID:             b8599f0000000003        4\n"
		  "Base MAC:              b8599f000003            4\n");
	CHECK_STR(red("hwcheck/commands/mstflint -d 0000:82:00.0 q/stdout",
		      "Description:           Node             Port1            Port2            Sys image\n"
		      "GUIDs:                 b88303ffff93f430 b88303ffff93f431 b88303ffff93f432 "
		      "b88303ffff93f433 \n"
		      "MACs:                                       b8830393f431     b8830393f432\n"),
		  "Description:           Node             Port1            Port2            Sys image\n"
		  "GUIDs:                 b883030000000004 b883030000000005 b883030000000006 "
		  "b883030000000007 \n"
		  "MACs:                                       b88303000004     b88303000005\n");
	/* ibstat */
	CHECK_STR(red("hwcheck/commands/ibstat/stdout",
		      "\tNode GUID: 0x7425540300353de9\n\tSystem image GUID: 0x7425540300353de9\n"),
		  "\tNode GUID: 0x7425540000000008\n\tSystem image GUID: 0x7425540000000008\n");
	/* PXE boot line in /proc/cmdline: the same MAC as eth0 */
	CHECK_STR(red("proc/cmdline", "BOOT_IMAGE=/vmlinuz BOOTIF=01-0c-42-a1-65-4a-8c quiet\n"),
		  "BOOT_IMAGE=/vmlinuz BOOTIF=01-0c-42-a1-00-00-01 quiet\n");
	CHECK_STR(red("proc/cmdline", "ifname=mgmt0:0c:42:a1:65:4a:8c\n"),
		  "ifname=mgmt0:0c:42:a1:00:00:01\n");
	/* DMI: the whole value, by file */
	CHECK_STR(red("sys/devices/virtual/dmi/id/product_serial", "CN7792182F0123\n"),
		  "XX0000000X0002\n");
	CHECK_STR(red("sys/devices/virtual/dmi/id/product_uuid",
		      "4c4c4544-0042-3510-8052-b7c04f4e3732\n"),
		  "0X0X0000-0000-0000-0000-X0X00X0X0003\n");
	/* what says "none" is kept; words that only look like labels are left */
	CHECK_STR(red("hwcheck/commands/dmidecode/stdout", "\tSerial Number: Not Specified\n"),
		  "\tSerial Number: Not Specified\n");
	CHECK_STR(red("proc/cpuinfo", "machine: x86_64\nmacro: 0c42\n"), "machine: x86_64\nmacro: 0c42\n");
	CHECK_STR(red("hwcheck/commands/mstflint/stdout",
		      "Description:           UID                GuidsNumber\n"),
		  "Description:           UID                GuidsNumber\n");
	CHECK_STR(red("x", "BDF 0000:3b:00.0 time 12:34:56 fw 16.35.2000 ipv6 fe80::1\n"),
		  "BDF 0000:3b:00.0 time 12:34:56 fw 16.35.2000 ipv6 fe80::1\n");
	/* the facts document: same placeholders as the files they came from */
	CHECK_STR(red("hwcheck/facts.json",
		      "{\"serial_number\": \"MT24426016T3\", \"node_guid\": \"f41d:6b03:006f:4743\", "
		      "\"mac\": \"0c:42:a1:65:4a:8c\", \"part_number\": null, \"serial_number\": null}"),
		  "{\"serial_number\": \"XX00000000X1\", \"node_guid\": \"f41d:6b00:0000:0001\", "
		  "\"mac\": \"0c:42:a1:00:00:01\", \"part_number\": null, \"serial_number\": null}");
}

static void test_config(void)
{
	unsigned char cfg[4096];
	memset(cfg, 0, sizeof(cfg));
	/* 0x100 AER -> 0x148 DSN (the CX3 Pro of the corpus: 00-1a-11-ff-fe-4c-3c-70) -> end */
	cfg[0x100] = 0x01;
	cfg[0x102] = 0x81; /* version 1, next 0x148 */
	cfg[0x103] = 0x14;
	cfg[0x104] = 0xaa;
	cfg[0x148] = 0x03;
	cfg[0x14a] = 0x01;
	const unsigned char dsn[8] = {0x70, 0x3c, 0x4c, 0xfe, 0xff, 0x11, 0x1a, 0x00};
	memcpy(cfg + 0x14c, dsn, 8);
	CHECK_INT(hwc_redact(r, "sys/devices/pci0000:00/0000:00:02.0/0000:04:00.0/config", cfg,
			     sizeof(cfg)), 1);
	/* the same value as the DSN line of lspci above: placeholder 2, OUI 00-1a-11 kept */
	const unsigned char want[8] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x11, 0x1a, 0x00};
	CHECK(memcmp(cfg + 0x14c, want, 8) == 0);
	CHECK_INT(cfg[0x104], 0xaa);
	/* a chain that loops ends; all ones (device gone) is left as it is */
	cfg[0x14a] = 0x41;
	cfg[0x14b] = 0x14; /* next 0x144 < 0x148: backwards */
	CHECK_INT(hwc_redact(r, "sys/x/config", cfg, sizeof(cfg)), 1);
	memset(cfg, 0xff, sizeof(cfg));
	CHECK_INT(hwc_redact(r, "sys/x/config", cfg, sizeof(cfg)), 0);
	CHECK_INT(hwc_redact(r, "sys/x/config", cfg, 64), 0);
}

static void test_vpd(void)
{
	/* 0x82 name, 0x90 PN SN RV, 0x78 end: the layout of the ConnectX-7 VPD in the corpus */
	unsigned char v[128];
	size_t n = 0;
	const char *name = "ConnectX-7";
	v[n++] = 0x82;
	v[n++] = (unsigned char)strlen(name);
	v[n++] = 0;
	memcpy(v + n, name, strlen(name));
	n += strlen(name);
	size_t ro = n;
	v[n++] = 0x90;
	v[n++] = 0; /* length, set below */
	v[n++] = 0;
	memcpy(v + n, "PN\x0dMCX75310AAS-N", 16);
	n += 16;
	memcpy(v + n, "SN\x0cMT2421600CDE", 15);
	n += 15;
	memcpy(v + n, "RV\x01\x00", 4);
	size_t rv = n + 3;
	n += 4;
	v[ro + 1] = (unsigned char)(n - ro - 3);
	unsigned sum = 0;
	for (size_t i = 0; i < rv; i++)
		sum += v[i];
	v[rv] = (unsigned char)(0x100 - (sum & 0xff));
	v[n++] = 0x78;
	CHECK_INT(hwc_redact(r, "sys/bus/pci/devices/0000:3b:00.0/vpd", v, n), 1);
	CHECK(memcmp(v + ro + 3 + 16 + 3, "XX0000000XX4", 12) == 0);
	CHECK(memcmp(v + ro + 3 + 3, "MCX75310AAS-N", 13) == 0); /* part number kept */
	sum = 0;
	for (size_t i = 0; i <= rv; i++)
		sum += v[i];
	CHECK_INT(sum & 0xff, 0); /* checksum still right */
	/* truncated and garbage VPD: no crash, no change past the end */
	unsigned char g[5] = {0x90, 0xff, 0xff, 'S', 'N'};
	hwc_redact(r, "sys/x/vpd", g, sizeof(g));
	CHECK_INT(g[3], 'S');
}

/* issue 20: a VPD image with every keyword: each identifying one is masked (SN, the Mellanox
 * card UUID in V3, the serial again in VU, every other Vx, the asset tag YA and every Yx),
 * the descriptive ones kept, the checksum still right. */
static void put_kw(unsigned char *v, size_t *n, const char *kw, const char *val)
{
	v[(*n)++] = (unsigned char)kw[0];
	v[(*n)++] = (unsigned char)kw[1];
	v[(*n)++] = (unsigned char)strlen(val);
	memcpy(v + *n, val, strlen(val));
	*n += strlen(val);
}

static size_t find_kw(const unsigned char *v, size_t n, const char *kw)
{
	for (size_t i = 0; i + 3 < n; i++)
		if (v[i] == (unsigned char)kw[0] && v[i + 1] == (unsigned char)kw[1] && v[i + 2] < 64 &&
		    i + 3 + v[i + 2] <= n)
			return i + 3;
	return 0;
}

static void test_vpd_every_keyword(void)
{
	static const char *const kept[][2] = {
		{"PN", "MCX755106AS-HEAT"}, {"EC", "A8"}, {"FG", "FG1234"}, {"LC", "LC5678"},
		{"MN", "1028"}, {"PG", "PG42"}, {"V0", "PCIeGen5 x16"}, {"V2", "MCX755106AS-HEAT"},
		{"VA", "MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX755106A"}, {"CP", "CP01"}};
	static const char *const masked[][2] = {
		{"SN", "MT2421600CDE"}, {"V3", "2c60caffaa17ef1180009c63c0d5edf6"},
		{"VU", "MT2421600CDEMLNXS0D0F0"}, {"V1", "DSV1028VPDR.VER2.2"}, {"V9", "SVCTAG7QX"},
		{"VZ", "ZZ99887766"}};
	static const char *const rw[][2] = {{"YA", "ASSET-000417"}, {"Y1", "RACK12SLOT3"},
					    {"V5", "NPY4X9"}};
	unsigned char v[1024] = {0};
	size_t n = 0;
	v[n++] = 0x82;
	v[n++] = 10;
	v[n++] = 0;
	memcpy(v + n, "ConnectX-7", 10);
	n += 10;
	size_t ro = n;
	v[n++] = 0x90;
	n += 2;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(kept); i++)
		put_kw(v, &n, kept[i][0], kept[i][1]);
	for (size_t i = 0; i < HWC_ARRAY_SIZE(masked); i++)
		put_kw(v, &n, masked[i][0], masked[i][1]);
	put_kw(v, &n, "RV", " ");
	size_t rv = n - 1;
	v[ro + 1] = (unsigned char)((n - ro - 3) & 0xff);
	v[ro + 2] = (unsigned char)((n - ro - 3) >> 8);
	size_t rwo = n;
	v[n++] = 0x91;
	n += 2;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(rw); i++)
		put_kw(v, &n, rw[i][0], rw[i][1]);
	put_kw(v, &n, "RW", "");
	v[rwo + 1] = (unsigned char)(n - rwo - 3);
	v[n++] = 0x78;
	CHECK(n < sizeof(v));
	size_t before = hwc_redact(r, "sys/bus/pci/devices/0000:21:00.0/vpd", v, n);
	CHECK_INT(before, 9);
	for (size_t i = 0; i < HWC_ARRAY_SIZE(kept); i++) {
		size_t o = find_kw(v, n, kept[i][0]);
		CHECK(o && memcmp(v + o, kept[i][1], strlen(kept[i][1])) == 0);
	}
	const char *const *all[] = {masked[0], masked[1], masked[2], masked[3], masked[4], masked[5],
				    rw[0], rw[1], rw[2]};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(all); i++) {
		size_t o = find_kw(v, n, all[i][0]);
		CHECK(o && memcmp(v + o, all[i][1], strlen(all[i][1])) != 0);
		CHECK(memmem(v, n, all[i][1], strlen(all[i][1])) == NULL);
	}
	unsigned sum = 0;
	for (size_t i = 0; i <= rv; i++)
		sum += v[i];
	CHECK_INT(sum & 0xff, 0);

	/* the same keywords as lspci -vvv prints them (the ConnectX-7 of the corpus,
	 * lspci/cx7-200g-ndr200_gen5-x16_puget-wrx90_21-00.0_stelline.txt) */
	char t[] = "\t\t\t[PN] Part number: MCX755106AS-HEAT\n"
		   "\t\t\t[V2] Vendor specific: MCX755106AS-HEAT\n"
		   "\t\t\t[SN] Serial number: MT2421600CDE\n"
		   "\t\t\t[V3] Vendor specific: 2c60caffaa17ef1180009c63c0d5edf6\n"
		   "\t\t\t[VA] Vendor specific: MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX755106A\n"
		   "\t\t\t[V0] Vendor specific: PCIeGen5 x16\n"
		   "\t\t\t[VU] Vendor specific: MT2421600CDEMLNXS0D0F0\n"
		   "\t\t\t[YA] Asset tag: ASSET-000417\n";
	hwc_redact(r, "hwcheck/commands/lspci -vvv/stdout", (unsigned char *)t, strlen(t));
	CHECK(strstr(t, "MT2421600CDE") == NULL);
	CHECK(strstr(t, "2c60caffaa17ef1180009c63c0d5edf6") == NULL);
	CHECK(strstr(t, "ASSET-000417") == NULL);
	CHECK(strstr(t, "[VA] Vendor specific: MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX755106A\n"));
	CHECK(strstr(t, "[V0] Vendor specific: PCIeGen5 x16\n"));
	CHECK(strstr(t, "[PN] Part number: MCX755106AS-HEAT\n"));
}

/* Far-end names: lldpcli's neighbours (tests/fixtures/link-farend-lldp-roce, real, "json0"
 * layout) and smpquery's node description (tests/fixtures/link-farend-ib-linkdowned, real). */
static void test_names(void)
{
	struct hwc_redactor *n = hwc_redactor_new();
	static const char lldp[] =
		"{\"lldp\": [{\"interface\": [{\"name\": \"enp153s0np0\", \"via\": \"LLDP\", \"chassis\": [{"
		"\"id\": [{\"type\": \"mac\", \"value\": \"70:06:92:6e:32:64\"}], \"name\": [{\"value\": \"StorageSW\"}], "
		"\"descr\": [{\"value\": \"SONiC Software Version: SONiC.CuOS_4.0-0.R_X86_64_ztp - HwSku: ds730-32d\"}], "
		"\"mgmt-ip\": [{\"value\": \"10.193.77.211\"}]}], \"port\": [{\"id\": [{\"type\": \"local\", "
		"\"value\": \"Ethernet120\"}], \"descr\": [{\"value\": \"Ethernet120\"}]}]}, "
		"{\"name\": \"enp171s0np0\", \"chassis\": [{\"id\": [{\"type\": \"mac\", \"value\": \"70:06:92:6e:32:1c\"}], "
		"\"name\": [{\"value\": \"LEAF03\"}], \"mgmt-ip\": [{\"value\": \"10.193.77.203\"}]}], "
		"\"port\": [{\"id\": [{\"type\": \"local\", \"value\": \"Ethernet184\"}], \"descr\": [{\"value\": \"Ethernet184\"}]}]}]}]}\n";
	const char *path = "hwcheck/commands/lldpcli -f json show neighbors details/stdout";
	hwc_redact_learn(n, path, (const unsigned char *)lldp, strlen(lldp));
	/* lldpcli's "json" layout keys the chassis by its name (RECONSTRUCTED from lldpd's
	 * json_writer.c: a one-element list folded, an object keyed by "name"); a port description
	 * naming the host it faces; a chassis id that is not a MAC */
	static const char lldp_json[] =
		"{\"lldp\": {\"interface\": {\"ens1np0\": {\"via\": \"LLDP\", \"chassis\": {\"leaf-07\": {\"id\": "
		"{\"type\": \"local\", \"value\": \"FDO2231X0Z4\"}, \"mgmt-ip\": [\"192.0.2.7\", \"2001:db8::7\"]}}, "
		"\"port\": {\"id\": {\"type\": \"ifname\", \"value\": \"Ethernet31\"}, \"descr\": \"gpu-node-07 port 1\"}}}}}";
	hwc_redact_learn(n, path, (const unsigned char *)lldp_json, strlen(lldp_json));
	static const char nd[] = "Node Description:.................b1nstcx02 HCA-1\n";
	const char *ndp = "hwcheck/commands/smpquery -C mlx5_1 -P 1 -D nodedesc 0,1/stdout";
	hwc_redact_learn(n, ndp, (const unsigned char *)nd, strlen(nd));
	/* not learned from other commands, nor from stderr */
	hwc_redact_learn(n, "hwcheck/commands/ibstat/stdout", (const unsigned char *)nd, strlen(nd));

	char b[2048];
	snprintf(b, sizeof(b), "%s", lldp);
	CHECK(hwc_redact(n, path, (unsigned char *)b, strlen(b)) >= 6);
	CHECK(strstr(b, "\"name\": [{\"value\": \"XxxxxxxX1\"}]"));
	CHECK(strstr(b, "\"mgmt-ip\": [{\"value\": \"00.000.00.002\"}]"));
	CHECK(strstr(b, "\"name\": [{\"value\": \"XXXX03\"}]"));
	CHECK(strstr(b, "\"value\": \"00.000.00.004\""));
	/* what is not a name stays: the port id and its equal description, the local netdev, the
	 * system description; the chassis MAC is redacted as a MAC */
	CHECK(strstr(b, "\"descr\": [{\"value\": \"Ethernet184\"}]"));
	CHECK(strstr(b, "\"name\": \"enp171s0np0\""));
	CHECK(strstr(b, "SONiC Software Version: SONiC.CuOS_4.0-0.R_X86_64_ztp - HwSku: ds730-32d"));
	CHECK(strstr(b, "70:06:92:00:00:01"));
	snprintf(b, sizeof(b), "%s", lldp_json);
	hwc_redact(n, path, (unsigned char *)b, strlen(b));
	CHECK(strstr(b, "{\"xxxx-05\": {"));
	CHECK(strstr(b, "\"value\": \"XXX0000X0X8\""));
	CHECK(strstr(b, "[\"000.0.0.6\", \"0000:xx0::7\"]"));
	CHECK(strstr(b, "\"descr\": \"xxx-xxxx-00 xxxx 9\""));
	CHECK(strstr(b, "\"value\": \"Ethernet31\""));
	CHECK_STR(red2(n, ndp, nd), "Node Description:.................x0xxxxx10 HCA-1\n");
	/* the same names in the facts: the same placeholders; only whole names */
	CHECK_STR(red2(n, "hwcheck/facts.json",
		       "\"chassis_name\": \"LEAF03\", \"node_description\": \"b1nstcx02 HCA-1\", \"x\": \"LEAF033 xLEAF03 LEAF03.lab\""),
		  "\"chassis_name\": \"XXXX03\", \"node_description\": \"x0xxxxx10 HCA-1\", \"x\": \"LEAF033 xLEAF03 LEAF03.lab\"");
	/* a capture without far-end tools: nothing learned, nothing masked */
	CHECK_STR(red("hwcheck/facts.json", "\"chassis_name\": \"LEAF03\""), "\"chassis_name\": \"LEAF03\"");
	/* broken answers teach nothing and break nothing */
	struct hwc_redactor *z = hwc_redactor_new();
	static const char *const bad[] = {"{\"lldp\": [", "[1, 2, {\"chassis\": 7, \"port\": null}]", "\"x\"",
					  "{\"chassis\": {\"a\": {\"b\": {\"c\": {\"d\": {\"e\": {}}}}}}}",
					  "{\"chassis\": [{\"name\": [{\"value\": \"31\"}], \"mgmt-ip\": \"ab\"}]}"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(bad); i++)
		hwc_redact_learn(z, path, (const unsigned char *)bad[i], strlen(bad[i]));
	hwc_redact_learn(z, ndp, (const unsigned char *)"Node Description:", 17);
	CHECK_STR(red2(z, "hwcheck/facts.json", "\"mtu\": 31, \"ab\": 1"), "\"mtu\": 31, \"ab\": 1");
	hwc_redactor_free(z);
	hwc_redactor_free(n);
}

int main(void)
{
	r = hwc_redactor_new();
	test_text();
	test_config();
	test_vpd();
	test_vpd_every_keyword();
	test_names();
	hwc_redactor_free(r);
	TEST_MAIN_END();
}

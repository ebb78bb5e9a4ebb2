/* SPDX-License-Identifier: MIT */
/* Unit tests of the wire side (issue 14): ethtool --show-fec on real captures and broken text,
 * and the restricted-function check (VPD product name, kernel log). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/hwinfo.h"
#include "mlx/mlx.h"
#include "test.h"

static struct hwc_arena *A;

/* A seed of fuzz_link (real captures), copied into the arena. */
static char *seed(const char *name, size_t *len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/link/%s", HWC_SEEDS, name);
	char *raw = t_slurp(p, 1 << 16, len);
	char *buf = hwc_arena_zalloc(A, *len + 1);
	memcpy(buf, raw, *len);
	free(raw);
	return buf;
}

static void test_fec(void)
{
	size_t len;
	struct hwc_netdev_fec f;
	memset(&f, 0, sizeof(f));
	char *t = seed("fec-mlx5-dgx-spark.txt", &len);
	CHECK_INT(hwc_ethtool_parse_fec(t, len, "ethtool --show-fec enp1s0f1np1", A, &f), 0);
	CHECK_STR(f.configured.v, "Auto");
	CHECK_STR(f.active.v, "RS");
	CHECK_INT(f.corrected_blocks.m.st, HWC_ST_ABSENT); /* no -I: no statistics, not zero */
	memset(&f, 0, sizeof(f));
	t = seed("fec-I-ice-patch-indented.txt", &len);
	CHECK_INT(hwc_ethtool_parse_fec(t, len, "ethtool -I --show-fec eth0", A, &f), 0);
	CHECK_STR(f.configured.v, "Auto RS BaseR");
	CHECK_INT(f.corrected_blocks.m.st, HWC_ST_OK);
	CHECK_INT(f.uncorrectable_blocks.v, 0);
	/* per-lane lines after each total are not totals */
	const char *lanes = "FEC parameters for p0:\nSupported/Configured FEC encodings: Auto RS\n"
			    "Active FEC encoding: RS\nStatistics:\n  corrected_blocks: 256\n"
			    "    Lane 0: 255\n    Lane 1: 1\n  uncorrectable_blocks: 145\n"
			    "    Lane 0: 128\n";
	memset(&f, 0, sizeof(f));
	CHECK_INT(hwc_ethtool_parse_fec(lanes, strlen(lanes), "t", A, &f), 0);
	CHECK_INT(f.corrected_blocks.v, 256);
	CHECK_INT(f.uncorrectable_blocks.v, 145);
	/* broken: not --show-fec at all, cut before the value, an empty value */
	const char *bad[] = {"Settings for p0:\n\tSpeed: 100000Mb/s\n", "FEC parameters for p0:\nActi",
			     ""};
	for (size_t i = 0; i < 3; i++) {
		memset(&f, 0, sizeof(f));
		CHECK_INT(hwc_ethtool_parse_fec(bad[i], strlen(bad[i]), "t", A, &f), -22);
		CHECK_INT(f.active.m.st, HWC_ST_INVALID);
	}
	const char *empty = "FEC parameters for p0:\nActive FEC encoding:\n";
	memset(&f, 0, sizeof(f));
	CHECK_INT(hwc_ethtool_parse_fec(empty, strlen(empty), "t", A, &f), 0);
	CHECK_INT(f.active.m.st, HWC_ST_ABSENT);
}

static void test_harmful(void)
{
	size_t len;
	/* the product name of gpud issue #1164's restricted PF */
	CHECK(hwc_mlx_counters_harmful("0000:d2:00.0",
				       "Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system",
				       NULL, 0, A) != NULL);
	CHECK(hwc_mlx_counters_harmful("0000:d2:00.0", "ConnectX-7 VPI adapter card, 400Gb/s",
				       NULL, 0, A) == NULL);
	char *log = seed("dmesg-access-reg-node-exporter3434.txt", &len);
	const char *why = hwc_mlx_counters_harmful("0000:05:00.1", NULL, log, len, A);
	CHECK(why && strstr(why, "2 failed ACCESS_REG(0x805) commands of 0000:05:00.1"));
	CHECK(hwc_mlx_counters_harmful("0000:06:00.0", NULL, log, len, A) == NULL);
	/* a log cut inside a line, and one without a newline at all */
	CHECK(hwc_mlx_counters_harmful("0000:05:00.0", NULL, log, 60, A) == NULL);
	log = seed("dmesg-access-reg-gpud1164.txt", &len);
	CHECK(hwc_mlx_counters_harmful("0000:d2:00.0", NULL, log, len - 1, A) != NULL);
}

static void test_mlxlink(void)
{
	size_t len;
	struct hwc_mlx_phy p;
	memset(&p, 0, sizeof(p));
	char *t = seed("mlxlink-bf3-100g-m-c-sigcomm26.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK_STR(p.fec.v, "Standard RS-FEC - RS(528,514)");
	CHECK_STR(p.speed.v, "100G");
	CHECK_STR(p.recommendation.v, "No issue was observed");
	CHECK_INT(p.status_opcode.v, 0);
	CHECK(p.raw_ber.m.st == HWC_ST_OK && p.raw_ber.v > 0 && p.raw_ber.v < 1e-250);
	CHECK_INT(p.effective_errors.v, 0);
	CHECK(p.time_since_clear_min.v > 25074.7 && p.time_since_clear_min.v < 25074.9);
	CHECK_INT(p.lanes_m.st, HWC_ST_OK);
	CHECK_INT(p.raw_errors_per_lane.n, 4);
	/* Supported Info under its "(Ext.)" keys, verbatim */
	CHECK_STR(p.enabled_link_speed.v, "0x00000200 (100G_4X)");
	CHECK_STR(p.supported_cable_speed.v, "0x000002f2 (100G_4X,50G_2X,40G,25G,10G,1G)");
	/* terminal colours around the values; per-lane errors over 32 bits */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-400g-counters-ansi-sichek.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK(p.raw_ber.v > 1.9e-9 && p.raw_ber.v < 2.1e-9);
	CHECK_INT(p.raw_errors_per_lane.items[2], 7692183445LL);
	CHECK_INT(p.fec.m.st, HWC_ST_ABSENT); /* the counters section alone */
	CHECK_INT(p.supported_cable_speed.m.st, HWC_ST_ABSENT);
	/* an absent value names the line mstlink did not print */
	CHECK_STR(p.fec.m.detail, "mstlink printed no 'FEC' line");
	CHECK_STR(p.supported_cable_speed.m.detail, "mstlink printed no 'Supported Cable Speed' line");
	/* no counters section: the BER is absent, not zero; trailing spaces kept by the capture */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-cx7-400g-trex1185.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK_STR(p.fec.v, "Standard_RS-FEC - (544,514)");
	CHECK_INT(p.raw_ber.m.st, HWC_ST_ABSENT);
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-cx7-ndr-show-module.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK_STR(p.speed.v, "IB-NDR");
	/* an InfiniBand port: the keys without "(Ext.)", IB speed names */
	CHECK_STR(p.supported_cable_speed.v, "0x000000f1 (NDR,HDR,EDR,FDR,SDR)");
	CHECK_STR(p.enabled_link_speed.v, "0x000000f1 (NDR,HDR,EDR,FDR,SDR)");
	/* a real ConnectX-6 HDR 2x port with PLR, as a grep printed it (32-column keys, no dashes
	 * under the section title): the Symbol lines (after FEC and PLR), two lanes */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-cx6-hdr-plr-counters-grep.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK_STR(p.fec.v, "RS-FEC - (544,514) + PLR");
	CHECK(p.symbol_errors.m.st == HWC_ST_OK && p.symbol_errors.v == 0);
	CHECK(p.symbol_ber.m.st == HWC_ST_OK && p.symbol_ber.v < 1e-250);
	CHECK(p.raw_ber.v > 0.9e-8 && p.raw_ber.v < 1.1e-8);
	CHECK_INT(p.raw_errors_per_lane.n, 2);
	CHECK_INT(p.raw_errors_per_lane.items[0], 3183333);
	CHECK_INT(p.link_error_recovery_counter.v, 0);
	CHECK_INT(p.link_down_counter.m.st, HWC_ST_ABSENT);
	/* a real ConnectX-4 as the NVIDIA forum renders it: blank lines, one space before ':' */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-cx4-100g-c-nvforum.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK_STR(p.recommendation.v, "No issue was observed.");
	CHECK_STR(p.fec.v, "Standard RS-FEC - RS(528,514)");
	CHECK(p.raw_ber.v > 2.9e-12 && p.raw_ber.v < 3.1e-12);
	CHECK_INT(p.raw_errors_per_lane.n, 4);
	CHECK_INT(p.raw_errors_per_lane.items[3], 9108);
	/* a section failed: mlxlink prints the sections it read, then "Errors" and a line per failed
	 * section (real: the PCIe eye of a Gen1 link); no value is read after that title. Then the
	 * BF3 capture with its counters section failed the same way (RECONSTRUCTED: the Errors
	 * section in the real one's layout, a value line after it that must not be read) */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-pcie-errors-section-skyao.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), -22); /* no port key: only PCIe lines */
	CHECK_STR(p.errors, "Showing Eye via SLRG raised the following exception: Eye information "
			    "available for Gen3 and above");
	t = seed("mlxlink-bf3-100g-m-c-sigcomm26.txt", &len);
	const char *cut = strstr(t, "Physical Counters and BER Info");
	CHECK(cut != NULL);
	const char *failed = hwc_arena_printf(
		A, "%.*s\n\x1b[31m\nErrors\n------\nShowing BER via PPCNT raised the following exception: "
		   "ME_REG_ACCESS_BAD_PARAM\nRaw Physical BER : 1E-3\n\x1b[0m", (int)(cut ? cut - t : 0), t);
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_mlxlink(failed, strlen(failed), A, &p), 0);
	CHECK_STR(p.fec.v, "Standard RS-FEC - RS(528,514)");
	CHECK_INT(p.raw_ber.m.st, HWC_ST_ABSENT);
	CHECK_STR(p.errors, "Showing BER via PPCNT raised the following exception: ME_REG_ACCESS_BAD_PARAM");
	/* a whole report has no errors */
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), 0);
	CHECK(p.errors == NULL);
	/* broken Symbol lines */
	const char *sym = "Symbol Errors : -3\nSymbol BER : E-\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_mlxlink(sym, strlen(sym), A, &p), 0);
	CHECK_INT(p.symbol_errors.m.st, HWC_ST_INVALID);
	CHECK_INT(p.symbol_ber.m.st, HWC_ST_INVALID);
	/* the tool's complaint, and text that is not mlxlink's */
	memset(&p, 0, sizeof(p));
	t = seed("mlxlink-error.txt", &len);
	CHECK_INT(hwc_mlx_parse_mlxlink(t, len, A, &p), -19);
	CHECK_INT(p.fec.m.st, HWC_ST_UNREADABLE);
	CHECK(strstr(p.fec.m.detail, "Failed to open device") != NULL);
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_mlxlink("garbage\n", 8, A, &p), -22);
	CHECK_INT(p.raw_ber.m.st, HWC_ST_INVALID);
	const char *bad = "Raw Physical BER : 1E-x\nRaw Physical Errors Per Lane : 0,,3\nSpeed : N/A\n"
			  "Supported Cable Speed (Ext.) : N/A\n (Ext.) : 0x1 (1G)\n";
	memset(&p, 0, sizeof(p));
	CHECK_INT(hwc_mlx_parse_mlxlink(bad, strlen(bad), A, &p), 0);
	CHECK_INT(p.raw_ber.m.st, HWC_ST_INVALID);
	CHECK_INT(p.lanes_m.st, HWC_ST_INVALID);
	CHECK_INT(p.speed.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(p.supported_cable_speed.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(p.enabled_link_speed.m.st, HWC_ST_ABSENT); /* " (Ext.)" alone names no key */
}

static void test_module(void)
{
	size_t len;
	struct hwc_mlx_module m;
	memset(&m, 0, sizeof(m));
	char *t = seed("mlxlink-module-osfp-sichek.txt", &len);
	CHECK_INT(hwc_mlx_parse_module(t, len, A, &m), 0);
	CHECK_STR(m.identifier.v, "OSFP");
	CHECK_STR(m.serial_number.v, "CWJH05025502589");
	CHECK_INT(m.temperature_c.m.st, HWC_ST_OK);
	CHECK(m.temperature_c.v[0] == 54 && m.temperature_c.lo == -5 && m.temperature_c.hi == 75);
	CHECK_INT(m.rx_power_dbm.n, 4);
	CHECK(m.rx_power_dbm.v[2] > 2.280 && m.rx_power_dbm.v[2] < 2.282);
	CHECK(m.tx_power_dbm.lo < -8.50 && m.tx_power_dbm.lo > -8.51);
	CHECK_INT(m.length_m.m.st, HWC_ST_ABSENT);
	CHECK_STR(m.length_m.m.detail, "mstlink's Module Info has no 'Transfer Distance [m]' line");
	/* a passive DAC: zeros with an empty range; the BlueField-3 copper cable: N/A */
	memset(&m, 0, sizeof(m));
	t = seed("mlxlink-cx7-ndr-show-module.txt", &len);
	CHECK_INT(hwc_mlx_parse_module(t, len, A, &m), 0);
	CHECK(m.bias_ma.n == 4 && m.bias_ma.has_range && m.bias_ma.lo == 0 && m.bias_ma.hi == 0);
	CHECK_STR(m.cable_type.v, "Passive copper cable");
	CHECK(m.length_m.v == 1);
	/* its latched Rx LOS flags, one per lane, no range */
	CHECK_INT(m.rx_los.m.st, HWC_ST_OK);
	CHECK(m.rx_los.n == 4 && !m.rx_los.has_range && m.rx_los.v[0] == 1 && m.rx_los.v[1] == 0);
	memset(&m, 0, sizeof(m));
	t = seed("mlxlink-bf3-100g-m-c-sigcomm26.txt", &len);
	CHECK_INT(hwc_mlx_parse_module(t, len, A, &m), 0);
	CHECK_INT(m.temperature_c.m.st, HWC_ST_UNSUPPORTED);
	CHECK_STR(m.ddm.v, "No");
	CHECK_INT(m.rx_los.m.st, HWC_ST_UNSUPPORTED);
	/* no Module Info (no -m), and broken readings */
	memset(&m, 0, sizeof(m));
	t = seed("mlxlink-cx7-400g-trex1185.txt", &len);
	CHECK_INT(hwc_mlx_parse_module(t, len, A, &m), -2);
	CHECK_INT(m.vendor.m.st, HWC_ST_ABSENT);
	const char *bad = "Module Info\nTemperature [C] : 54 [-5..\nVoltage [mV] : x\n"
			  "Bias Current [mA] : 1,2,3,4,5,6,7,8,9 [0..1]\nTx Power Current [dBm] : [1..2]\n"
			  "Rx LOS [per lane] : 0,2,1,0\n";
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_mlx_parse_module(bad, strlen(bad), A, &m), 0);
	CHECK_INT(m.temperature_c.m.st, HWC_ST_INVALID);
	CHECK_INT(m.voltage_mv.m.st, HWC_ST_INVALID);
	CHECK_INT(m.bias_ma.m.st, HWC_ST_INVALID);
	CHECK_INT(m.tx_power_dbm.m.st, HWC_ST_INVALID);
	CHECK_INT(m.rx_los.m.st, HWC_ST_INVALID); /* a flag is 0 or 1 */
	const char *ranged = "Module Info\nRx LOS [per lane] : 0,1 [0..1]\n";
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_mlx_parse_module(ranged, strlen(ranged), A, &m), 0);
	CHECK_INT(m.rx_los.m.st, HWC_ST_INVALID); /* flags carry no range */
}

static void test_kernel_events(void)
{
	size_t len;
	struct hwc_mlx_kevents ev = {0};
	char *t = seed("dmesg-mlx5-cx6dx-health.txt", &len);
	CHECK(hwc_mlx_parse_kernel_events(t, len, 64, A, &ev) > 0);
	CHECK_STR(ev.items[0].kind, "high_temperature");
	CHECK_STR(ev.items[0].bdf, "0000:41:00.1");
	CHECK(ev.items[0].time_s > 51.2277 && ev.items[0].time_s < 51.2278);
	for (size_t i = 0; i < ev.n; i++)
		CHECK(strstr(ev.items[i].message, "ext_synd") == NULL);
	/* the cap per function: a flood is cut */
	struct hwc_mlx_kevents few = {0};
	hwc_mlx_parse_kernel_events(t, len, 1, A, &few);
	CHECK_INT(few.n, 2); /* one for each of 41:00.0 and 41:00.1 */
	/* journal lines (no [time]), a cut BDF, a non-mlx5 line */
	const char *j = "May 27 15:47:46 host kernel: mlx5_core 0000:81:00.0: Port module event[error]: "
			"module 0, Cable error, Bus stuck (I2C or data shorted)\n"
			"mlx5_core 0000:81:0\nixgbe 0000:01:00.0: insufficient power\n";
	struct hwc_mlx_kevents jr = {0};
	hwc_mlx_parse_kernel_events(j, strlen(j), 64, A, &jr);
	CHECK_INT(jr.n, 1);
	CHECK_STR(jr.items[0].kind, "module_error");
	CHECK(jr.items[0].time_s < 0);
}

int main(void)
{
	A = hwc_arena_new();
	test_module();
	test_fec();
	test_mlxlink();
	test_harmful();
	test_kernel_events();
	hwc_arena_free(A);
	TEST_MAIN_END();
}

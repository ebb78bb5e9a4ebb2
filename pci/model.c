/* SPDX-License-Identifier: MIT */
/* The PCIe path model (kernel-exact bandwidth, TLP efficiency, link verdicts) and small parsers. */
#include "pci/pci.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned hwc_pci_lane_mbps(double gts)
{
	/* drivers/pci/pci.h PCIE_SPEED2MBS_ENC: 8b/10b for 2.5 and 5 GT/s, 128b/130b for 8 to 32,
	 * 1b/1b (flit) for 64; integer division, so 8 GT/s x16 is 16 x 7876 = 126.016 Gb/s. */
	if (gts == 2.5)
		return 2500 * 8 / 10;
	if (gts == 5)
		return 5000 * 8 / 10;
	if (gts == 8)
		return 8000 * 128 / 130;
	if (gts == 16)
		return 16000 * 128 / 130;
	if (gts == 32)
		return 32000 * 128 / 130;
	if (gts == 64)
		return 64000;
	return 0;
}

double hwc_pci_link_gbps(double gts, int64_t width)
{
	return width > 0 ? (double)hwc_pci_lane_mbps(gts) * (double)width / 1000.0 : 0;
}

double hwc_pci_tlp_efficiency(double gts, int mps)
{
	if (mps <= 0)
		return 0;
	/* Non-flit: 24 bytes per TLP (4-byte STP/framing, 2-byte sequence + reserved, 16-byte
	 * 4-DW MWr header, 4-byte LCRC; see DATA-SOURCES.md 8.3). Flit mode (Gen6): a 256-byte flit
	 * carries 236 bytes of TLPs, a TLP has a 16-byte header and no framing or LCRC. */
	if (gts >= 64)
		return 236.0 / 256.0 * mps / (mps + 16.0);
	return mps / (mps + 24.0);
}

int hwc_pci_path_limit(const struct hwc_pci_hop *hops, size_t n, unsigned long *raw_mbps)
{
	if (!n)
		return -EINVAL;
	/* pcie_bandwidth_available(): "if (!bw || next_bw <= bw)" -- the upper hop wins a tie,
	 * which is why the kernel names the root port when both ends of a link agree. */
	unsigned long bw = 0;
	int lim = -1;
	for (size_t i = 0; i < n; i++) {
		unsigned long next = (unsigned long)hops[i].width * hwc_pci_lane_mbps(hops[i].speed_gts);
		if (lim < 0 || next <= bw) {
			bw = next;
			lim = (int)i;
		}
	}
	*raw_mbps = bw;
	return lim;
}

const char *hwc_pci_link_verdict(double cur_speed, int cur_width, double cap_speed, int cap_width,
				 double other_speed, int other_width)
{
	if (cur_speed <= 0 || cur_width <= 0 || cap_speed <= 0 || cap_width <= 0)
		return "unknown";
	if (other_speed <= 0 || other_width <= 0) {
		/* Without the other end only "as good as this end can be" is a verdict. */
		return cur_speed >= cap_speed && cur_width >= cap_width ? "ok" : "unknown";
	}
	double both_speed = cap_speed < other_speed ? cap_speed : other_speed;
	int both_width = cap_width < other_width ? cap_width : other_width;
	if (cur_speed < both_speed || cur_width < both_width)
		return "downgraded";
	if (cap_speed > other_speed || cap_width > other_width)
		return "slot_limited";
	return "ok";
}

int hwc_pci_parse_aer_total(const char *buf, size_t len, long long *total)
{
	/* "TOTAL_ERR_COR 3\n" after one "<name> <count>" line per bit (aer_stats_dev_attr). */
	const char *end = buf + len;
	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > 10 && memcmp(p, "TOTAL_ERR_", 10) == 0) {
			const char *sp = memchr(p, ' ', (size_t)(le - p));
			if (!sp)
				return -EINVAL;
			char num[32];
			size_t nlen = (size_t)(le - sp - 1);
			if (nlen == 0 || nlen >= sizeof(num))
				return -EINVAL;
			memcpy(num, sp + 1, nlen);
			num[nlen] = 0;
			int64_t v;
			if (hwc_parse_i64(num, 10, &v) < 0 || v < 0)
				return -EINVAL;
			*total = v;
			return 0;
		}
		p = le + 1;
	}
	return -EINVAL;
}

int hwc_pci_parse_speed(const char *s, double *gts)
{
	/* pci_speed_string(): "8.0 GT/s PCIe"; kernels before ~5.7: "8 GT/s"; or "Unknown". */
	char *end;
	double v = strtod(s, &end);
	if (end == s || strncmp(end, " GT/s", 5) != 0 || hwc_pci_lane_mbps(v) == 0)
		return -EINVAL;
	*gts = v;
	return 0;
}

static const char *vpd_str(struct hwc_arena *a, const unsigned char *p, size_t n)
{
	char *s = hwc_arena_strndup(a, (const char *)p, n);
	if (!s)
		return NULL;
	size_t l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\0'))
		s[--l] = 0;
	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return s;
}

int hwc_pci_parse_vpd(const unsigned char *buf, size_t len, struct hwc_arena *a,
		      struct hwc_pci_device *d)
{
	/* PCI Local Bus spec 6.4 / PCIe 6.28: large resources 0x82 ID string, 0x90 VPD-R,
	 * 0x91 VPD-W (keywords: 2 name bytes, 1 length byte, data), small resource 0x78 end. */
	size_t i = 0;
	bool any = false;
	while (i < len) {
		unsigned tag = buf[i];
		if (tag == 0x78 || tag == 0x79 || tag == 0xff || tag == 0x00)
			break;
		if (!(tag & 0x80) || i + 3 > len)
			break;
		size_t rlen = buf[i + 1] | (size_t)buf[i + 2] << 8;
		size_t body = i + 3;
		if (body + rlen > len)
			break;
		if (tag == 0x82) {
			HWC_SET(d->vpd.product_name, vpd_str(a, buf + body, rlen));
			any = true;
		} else if (tag == 0x90) {
			for (size_t k = body; k + 3 <= body + rlen;) {
				size_t kl = buf[k + 2];
				if (k + 3 + kl > body + rlen)
					break;
				if (buf[k] == 'P' && buf[k + 1] == 'N') {
					HWC_SET(d->vpd.part_number, vpd_str(a, buf + k + 3, kl));
					any = true;
				} else if (buf[k] == 'S' && buf[k + 1] == 'N') {
					HWC_SET(d->vpd.serial_number, vpd_str(a, buf + k + 3, kl));
					any = true;
				}
				k += 3 + kl;
			}
		}
		i = body + rlen;
	}
	if (!any)
		return -EINVAL;
	hwc_fmeta_set(&d->vpd.m, HWC_ST_OK, 0, NULL);
	const char *none = "not in the VPD";
	if (!hwc_ok(d->vpd.product_name))
		HWC_FAIL(d->vpd.product_name, HWC_ST_ABSENT, 0, none);
	if (!hwc_ok(d->vpd.part_number))
		HWC_FAIL(d->vpd.part_number, HWC_ST_ABSENT, 0, none);
	if (!hwc_ok(d->vpd.serial_number))
		HWC_FAIL(d->vpd.serial_number, HWC_ST_ABSENT, 0, none);
	return 0;
}

bool hwc_pci_mlx_before_connectib(const char *device_id)
{
	if (!device_id)
		return false;
	char *end;
	unsigned long v = strtoul(device_id, &end, 16);
	if (end == device_id || *end)
		return false;
	/* ConnectX-3 (Pro) and their VF; the ConnectX/ConnectX-2 ids and the ConnectX-2 VF */
	return v == 0x1003 || v == 0x1004 || v == 0x1007 || v == 0x1002 || (v & 0xf000) == 0x6000;
}

const char *hwc_pci_mlx_rdma_driver(const char *kernel_driver)
{
	if (!kernel_driver)
		return NULL;
	if (!strcmp(kernel_driver, "mlx4_core"))
		return "mlx4_ib";
	if (!strcmp(kernel_driver, "mlx5_core"))
		return "mlx5_ib";
	return NULL;
}

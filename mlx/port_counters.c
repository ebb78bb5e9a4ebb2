/* SPDX-License-Identifier: MIT */
/* The error counters of each RDMA port (issue 14): IBA PortCounters (counters/) and transport
 * retries (hw_counters/), read through the root; functions where reading them does harm are
 * skipped with the reason. */
#include "mlx/mlx.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"
#include "core/parse.h"
#include "hwinfo/hwinfo.h"
#include "pci/pci.h"

/* The first HW_FIRST live under counters/, the rest under hw_counters/. */
#define HW_FIRST 12
const char *const hwc_mlx_port_counter_names[HWC_MLX_NPORT_COUNTERS] = {
	"symbol_error",                    /* minor link errors on a physical lane */
	"link_error_recovery",             /* link retrainings that succeeded */
	"link_downed",                     /* link retrainings that failed: the link went down */
	"port_rcv_errors",
	"port_rcv_remote_physical_errors", /* packets marked bad by the far end (EBP) */
	"port_rcv_switch_relay_errors",
	"port_xmit_discards",
	"port_xmit_constraint_errors",
	"port_rcv_constraint_errors",
	"local_link_integrity_errors",     /* the local physical errors threshold was exceeded */
	"excessive_buffer_overrun_errors", /* overruns in a row: lossless flow control broke */
	"VL15_dropped",
	"local_ack_timeout_err",           /* hw_counters: a QP's ACK timer expired */
	"rnr_nak_retry_err",
	"out_of_sequence",
	"packet_seq_err",
};

/* A kernel log line that is an mlx5 ACCESS_REG (0x805) failure of function bdf. */
static bool access_reg_fail_line(const char *l, size_t n, const char *bdf)
{
	const char *at = hwc_find_ci(l, n, bdf);
	return at && hwc_find_ci(l, n, "mlx5_cmd_out_err") && hwc_find_ci(l, n, "ACCESS_REG(0x805)") &&
	       hwc_find_ci(l, n, "failed");
}

const char *hwc_mlx_counters_harmful(const char *bdf, const char *vpd_product, const char *dmesg,
				     size_t dmesg_len, struct hwc_arena *a)
{
	if (vpd_product && hwc_find_ci(vpd_product, strlen(vpd_product), "internal"))
		return hwc_arena_printf(a, "restricted function: VPD product name '%s' (an internal "
					   "port; reading its IB counters makes mlx5 issue register "
					   "accesses that fail and flood the kernel log)", vpd_product);
	size_t pos = 0;
	unsigned hits = 0;
	while (dmesg && bdf && pos < dmesg_len) {
		const char *l = dmesg + pos;
		const char *nl = memchr(l, '\n', dmesg_len - pos);
		size_t n = nl ? (size_t)(nl - l) : dmesg_len - pos;
		pos += n + 1;
		if (access_reg_fail_line(l, n, bdf))
			hits++;
	}
	if (hits)
		return hwc_arena_printf(a, "restricted function: the kernel log holds %u failed "
					   "ACCESS_REG(0x805) command%s of %s (reading IB counters "
					   "would add more)", hits, hits == 1 ? "" : "s", bdf);
	return NULL;
}

static const char *vpd_product_of(const struct hwc_facts *f, const char *bdf)
{
	if (!f->pci || !bdf)
		return NULL;
	for (size_t i = 0; i < f->pci->devices.n; i++) {
		const struct hwc_pci_device *d = &f->pci->devices.items[i];
		if (hwc_ok(d->bdf) && strcmp(d->bdf.v, bdf) == 0 && hwc_ok(d->vpd.product_name))
			return d->vpd.product_name.v;
	}
	return NULL;
}

/* One counter file: a decimal count, "N/A (no PMA)" from a device without a PMA (unsupported). */
static int read_counter(struct hwc_env *e, struct hwc_arena *a, const char *path,
			struct hwc_fu64 *out)
{
	struct hwc_fstr s = {0};
	if (hwc_read_str(e, path, a, &s) < 0) {
		out->m = s.m;
		return out->m.st == HWC_ST_UNREADABLE ? -out->m.err : 0;
	}
	uint64_t v;
	if (s.v && strncmp(s.v, "N/A", 3) == 0)
		HWC_FAIL(*out, HWC_ST_UNSUPPORTED, 0, hwc_arena_printf(a, "%s: '%s'", path, s.v));
	else if (!s.v || hwc_parse_u64(s.v, 10, &v) < 0)
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%s: '%.40s' is not a count", path, s.v ? s.v : ""));
	else
		HWC_SET(*out, v);
	return 0;
}

void hwc_mlx_read_port_counters(struct hwc_env *e, struct hwc_arena *a, const char *rdma_device,
				int64_t port, const char *harm, struct hwc_fu64 out[HWC_MLX_NPORT_COUNTERS])
{
	const char *base = hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%lld", rdma_device,
					    (long long)port);
	const char *stop = harm;
	for (size_t i = 0; i < HWC_MLX_NPORT_COUNTERS; i++) {
		if (stop) {
			HWC_FAIL(out[i], HWC_ST_BLOCKED, 0, stop);
			continue;
		}
		const char *path = hwc_arena_printf(a, "%s/%s/%s", base,
						    i < HW_FIRST ? "counters" : "hw_counters",
						    hwc_mlx_port_counter_names[i]);
		/* EINVAL is the firmware refusing the register read: one log line is enough */
		if (read_counter(e, a, path, &out[i]) == -EINVAL)
			stop = hwc_arena_printf(a, "not read: %s failed with EINVAL (a restricted "
						   "function; each read logs a kernel error)", path);
	}
}

void hwc_mlx_collect_port_counters(struct hwc_env *e, struct hwc_facts *f,
				   struct hwc_mlx_adapter *ad)
{
	struct hwc_arena *a = f->arena;
	const struct hwc_host_facts *h = f->host;
	for (size_t i = 0; i < ad->ports.n; i++) {
		struct hwc_mlx_port *p = &ad->ports.items[i];
		const struct hwc_mlx_function *fn = hwc_mlx_rdma_owner(ad, p->rdma_device);
		const char *bdf = fn ? fn->bdf : ad->bdf;
		const char *harm = hwc_mlx_counters_harmful(bdf, vpd_product_of(f, bdf),
							    h ? h->dmesg_text : NULL,
							    h ? h->dmesg_len : 0, a);
		hwc_mlx_read_port_counters(e, a, p->rdma_device, p->port, harm, p->counters);
	}
}

static const struct hwc_jfield counters_f[] = {
	HWC_JNAMED(struct hwc_mlx_port, counters, hwc_mlx_port_counter_names,
		   HWC_MLX_NPORT_COUNTERS),
};
/* The counters object of a port (the counters are members of the port itself). */
const struct hwc_jtable hwc_mlx_port_counters_table =
	HWC_JTABLE("mlx.adapters[].ports[].counters", counters_f, 0);

static const struct hwc_jfield window_f[] = {
	HWC_JNAMED(struct hwc_mlx_counters_window, v, hwc_mlx_port_counter_names,
		   HWC_MLX_NPORT_COUNTERS),
};
const struct hwc_jtable hwc_mlx_counters_window_table =
	HWC_JTABLE("mlx.adapters[].ports[].counters_window", window_f, 0);

/* SPDX-License-Identifier: MIT */
/* Finds the ConnectX cards under the root, maps their functions, ports and firmware, and asks
 * mstflint (through the runner, in parallel across cards) for what only it knows. */
#include "mlx/mlx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "core/runner.h"
#include "core/util.h"
#include "pci/pci.h"

#define MLX_VENDOR 0x15b3
#define PCI_DEVS "sys/bus/pci/devices"

/* The exact argv hwcheck runs (they are also the replay keys under hwcheck/commands/), with BDF
 * the card's function 0 as "0000:3b:00.0":
 *   mstconfig -v
 *   mstconfig -d BDF -e q
 *   mstflint -d BDF q
 *   mstreg -d BDF --reg_name MTMP --get --indexes sensor_index=0x0,slot_index=0x0
 *   mstreg -d BDF --reg_name MPEIN --get --indexes node=0x0,pcie_index=0x0,depth=0x0
 *   mstfwreset -d BDF query                  (the reset levels the card and host support)
 *   mstmget_temp -d BDF                      (only where MTMP gave no temperature)
 *   mstflint -i FILE query                   (once, with --fw-image FILE)
 *   ethtool -i NETDEV                        (only where sysfs has no fw_ver)
 *   mstlink -d PF -m -c                      (per port, its own PF: mlx/mlxlink.c)
 * The tools that depend on no other answer (all but mstmget_temp) run at once, every card's and
 * each card's own (started ahead with hwc_run_start, mstlink's too): mstflint serializes
 * concurrent tools on one device per transaction, not per tool run (docs/DESIGN.md "What bounds
 * a run"). A tool that lost a semaphore race anyway (hwc_mlx_tool_busy) is re-run alone after
 * the others. --serial-tools (mf->tools_serial) runs one card's tools one after the other, as
 * hwcheck did before. Answers are applied in tool_steps' order either way: the facts do not
 * depend on the order the tools ended in. mstconfig's JSON mode (-j FILE, >= 4.31) writes a
 * file, which hwcheck must not do: the text is parsed. */

static struct hwc_mlx_strv *strv_push(struct hwc_arena *a, struct hwc_mlx_strv *v, const char *s)
{
	const char **p = HWC_VEC_PUSH(a, v);
	if (p)
		*p = s;
	return v;
}

static bool strv_has(const struct hwc_mlx_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->items[i], s) == 0)
			return true;
	return false;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void strv_sort(struct hwc_mlx_strv *v)
{
	if (v->n > 1)
		qsort(v->items, v->n, sizeof(v->items[0]), cmp_str);
}

static void list_into(struct hwc_env *e, struct hwc_arena *a, const char *path,
		      struct hwc_mlx_strv *out)
{
	struct hwc_dirlist dl;
	if (hwc_env_list_dir(e, path, a, &dl) < 0)
		return;
	for (size_t i = 0; i < dl.n; i++)
		strv_push(a, out, dl.names[i]);
}

/* "0000:3b:00.1" -> "0000:3b:00" (the card: functions of one device number). */
static const char *slot_of(struct hwc_arena *a, const char *bdf)
{
	const char *dot = strrchr(bdf, '.');
	return dot ? hwc_arena_strndup(a, bdf, (size_t)(dot - bdf)) : bdf;
}

static void fill_function(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_function *fn)
{
	const char *base = hwc_arena_printf(a, PCI_DEVS "/%s", fn->bdf);
	struct hwc_fu64 id = {0}, cls = {0};
	if (hwc_read_hex(e, hwc_arena_printf(a, "%s/device", base), a, &id) == 0)
		HWC_SET(fn->device_id, hwc_arena_printf(a, "%04llx", (unsigned long long)id.v));
	else
		fn->device_id.m = id.m;
	if (hwc_read_hex(e, hwc_arena_printf(a, "%s/class", base), a, &cls) == 0)
		HWC_SET(fn->class_code, hwc_arena_printf(a, "%06llx", (unsigned long long)cls.v));
	else
		fn->class_code.m = cls.m;
	hwc_read_link_name(e, hwc_arena_printf(a, "%s/driver", base), a, &fn->driver);
	if (fn->driver.m.st == HWC_ST_ABSENT)
		fn->driver.m.detail = "no driver bound";
	hwc_read_link_name(e, hwc_arena_printf(a, "%s/physfn", base), a, &fn->physfn);
	/* A VF passed to a virtual machine has no physfn link: its device id still says VF. */
	const struct hwc_mlx_ident *ident = hwc_ok(id) ? hwc_mlx_ident_find((uint16_t)id.v) : NULL;
	fn->is_vf = hwc_ok(fn->physfn) || (ident && ident->vf);
	fn->revision = -1;
	struct hwc_fu64 rev = {0};
	if (ident && (ident->flags & HWC_MLX_ID_BY_REVISION) &&
	    hwc_read_hex(e, hwc_arena_printf(a, "%s/revision", base), a, &rev) == 0 && rev.v <= 0xff)
		fn->revision = (int64_t)rev.v;
	if (!hwc_ok(fn->physfn))
		HWC_FAIL(fn->physfn, HWC_ST_ABSENT, 0,
			 fn->is_vf ? "a VF whose PF is not visible here (virtual machine)"
				   : "not a virtual function");
	list_into(e, a, hwc_arena_printf(a, "%s/net", base), &fn->netdevs);
	list_into(e, a, hwc_arena_printf(a, "%s/infiniband", base), &fn->rdma_devices);
	list_into(e, a, hwc_arena_printf(a, "%s/hwmon", base), &fn->hwmon);
}

static bool is_bridge(const struct hwc_mlx_function *fn)
{
	return hwc_ok(fn->class_code) && strncmp(fn->class_code.v, "0604", 4) == 0;
}

/* -d: a BDF (full or without the domain), a netdev or an RDMA device of the card. */
static bool adapter_matches(const struct hwc_mlx_adapter *ad, const char *dev)
{
	if (!dev)
		return true;
	size_t dl = strlen(dev);
	for (size_t i = 0; i < ad->functions.n; i++) {
		const char *b = ad->functions.items[i];
		size_t bl = strlen(b);
		if (strcmp(b, dev) == 0 || (bl > dl && strcmp(b + bl - dl, dev) == 0 && b[bl - dl - 1] == ':'))
			return true;
	}
	return strv_has(&ad->netdevs, dev) || strv_has(&ad->rdma_devices, dev);
}

static void fill_identity(struct hwc_mlx_adapter *ad, struct hwc_arena *a)
{
	const struct hwc_mlx_function *f0 = &ad->function_map.items[0];
	for (size_t i = 0; i < ad->function_map.n; i++)
		if (strcmp(ad->function_map.items[i].bdf, ad->bdf) == 0)
			f0 = &ad->function_map.items[i];
	ad->device_id = f0->device_id;
	const struct hwc_mlx_ident *id = NULL;
	uint64_t v;
	if (hwc_ok(f0->device_id) && hwc_parse_u64(f0->device_id.v, 16, &v) == 0)
		id = hwc_mlx_ident_find((uint16_t)v);
	if (!id) {
		const char *why = hwc_ok(f0->device_id)
					  ? hwc_arena_printf(a, "PCI id 15b3:%s is not in hwcheck's "
								"ConnectX/BlueField table",
							     f0->device_id.v)
					  : "the PCI device id could not be read";
		HWC_FAIL(ad->product, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->generation, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->kernel_driver, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->flash_recovery, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->pcie_max_speed_gts, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->pcie_max_width, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->port_rate_max_gbps, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->ib_lane_floor_gbps, HWC_ST_UNSUPPORTED, 0, why);
		return;
	}
	const char *product, *generation;
	hwc_mlx_ident_name(id, f0->revision, a, &product, &generation);
	HWC_SET(ad->product, product);
	HWC_SET(ad->generation, generation);
	HWC_SET(ad->flash_recovery, (id->flags & HWC_MLX_ID_FLASH_RECOVERY) != 0);
	if (id->driver)
		HWC_SET(ad->kernel_driver, id->driver);
	else
		HWC_FAIL(ad->kernel_driver, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "15b3:%s is in neither the mlx4 nor the mlx5 driver's PCI id table%s",
					  f0->device_id.v,
					  (id->flags & HWC_MLX_ID_FLASH_RECOVERY) ? " (a flash recovery id)" : ""));
	if (id->pcie_gts > 0) {
		HWC_SET(ad->pcie_max_speed_gts, id->pcie_gts);
		HWC_SET(ad->pcie_max_width, id->pcie_width);
		HWC_SET(ad->port_rate_max_gbps, id->port_gbps);
	} else {
		const char *why = (id->flags & HWC_MLX_ID_FLASH_RECOVERY)
					  ? "a flash recovery function: hwcheck's table gives it no PCIe or port figures"
					  : "hwcheck's table has no PCIe or port figures for this function";
		HWC_FAIL(ad->pcie_max_speed_gts, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->pcie_max_width, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(ad->port_rate_max_gbps, HWC_ST_UNSUPPORTED, 0, why);
	}
	double ibf = hwc_mlx_ident_ib_lane_floor(id->device_id);
	if (ibf > 0)
		HWC_SET(ad->ib_lane_floor_gbps, ibf);
	else if (id->pcie_gts <= 0) /* not the line's data path: its figures are not this function's */
		HWC_FAIL(ad->ib_lane_floor_gbps, HWC_ST_UNSUPPORTED, 0, ad->port_rate_max_gbps.m.detail);
	else
		HWC_FAIL(ad->ib_lane_floor_gbps, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "hwcheck's table has no InfiniBand lane rate that every %s board supports", generation));
}

/* The owner function of an RDMA device, for its netdevs. */
const struct hwc_mlx_function *hwc_mlx_rdma_owner(const struct hwc_mlx_adapter *ad, const char *dev)
{
	for (size_t i = 0; i < ad->function_map.n; i++)
		if (strv_has(&ad->function_map.items[i].rdma_devices, dev))
			return &ad->function_map.items[i];
	return NULL;
}

static void port_netdev(struct hwc_env *e, struct hwc_arena *a, const struct hwc_mlx_adapter *ad,
			const char *dev, int64_t port, struct hwc_mlx_port *p)
{
	/* RoCE: the GID table names the netdev of the port. */
	const char *gid = hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%lld/gid_attrs/ndevs/0",
					   dev, (long long)port);
	struct hwc_fstr nd = {0};
	if (hwc_read_str(e, gid, a, &nd) == 0 && *nd.v) {
		p->netdev = nd;
		return;
	}
	/* Otherwise the function's netdev whose dev_port is port - 1 (mlx4 has two per function). */
	const struct hwc_mlx_function *fn = hwc_mlx_rdma_owner(ad, dev);
	if (fn) {
		for (size_t i = 0; i < fn->netdevs.n; i++) {
			struct hwc_fi64 dp = {0};
			const char *path = hwc_arena_printf(a, "sys/class/net/%s/dev_port",
							    fn->netdevs.items[i]);
			if (hwc_read_i64(e, path, a, &dp) == 0 && dp.v + 1 == port) {
				HWC_SET(p->netdev, fn->netdevs.items[i]);
				return;
			}
		}
		if (fn->netdevs.n == 1) {
			HWC_SET(p->netdev, fn->netdevs.items[0]);
			return;
		}
	}
	HWC_FAIL(p->netdev, HWC_ST_ABSENT, 0,
		 hwc_arena_printf(a, "%s port %lld: no netdev found (gid_attrs/ndevs, dev_port)", dev,
				  (long long)port));
}

static int cmp_port(const void *x, const void *y)
{
	const struct hwc_mlx_port *a = x, *b = y;
	int c = strcmp(a->rdma_device, b->rdma_device);
	return c ? c : (a->port > b->port) - (a->port < b->port);
}

/* A RoCE port's MTUs are not in sysfs, but the kernel derives them from the netdev: mlx4_ib and
 * mlx5_ib report max_mtu IB_MTU_4096 and active_mtu = the largest IB MTU that fits
 * iboe_get_mtu(netdev mtu), i.e. the netdev MTU less 96 bytes of GRH, UDP, BTH, XRC, AtomicETH
 * and ICRC headers (include/rdma/ib_addr.h). An InfiniBand port's MTUs are the subnet
 * manager's, in its PortInfo: ib_mtu() takes them once the far end's round has read it. */
static void roce_mtu(struct hwc_mlx_port *p)
{
	bool eth = hwc_ok(p->link_layer) && strcmp(p->link_layer.v, "Ethernet") == 0;
	if (!eth || !hwc_ok(p->netdev_mtu)) {
		const char *why = eth ? "RoCE port MTUs follow the netdev MTU, which is unknown"
				      : "the link layer is unknown: a RoCE port's MTUs follow its netdev, an InfiniBand "
					"port's are in its PortInfo";
		HWC_FAIL(p->active_mtu, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(p->max_mtu, HWC_ST_UNSUPPORTED, 0, why);
		return;
	}
	int64_t room = p->netdev_mtu.v - 96, mtu = 0;
	for (int64_t m = 4096; m >= 256 && !mtu; m /= 2)
		if (room >= m)
			mtu = m;
	HWC_SET(p->max_mtu, 4096);
	if (mtu)
		HWC_SET(p->active_mtu, mtu);
	else
		HWC_FAIL(p->active_mtu, HWC_ST_INVALID, 0, "netdev MTU too small for any RoCE MTU");
}

/* An InfiniBand port's active and largest MTU are its PortInfo's NeighborMTU and MtuCap (the
 * values ibv_query_port reports: mlx4_ib reads them from this PortInfo, ib_link_query_port),
 * read by smpquery with the far end (mlx/ibpeer.c); not read, they say why. */
static void ib_mtu(struct hwc_mlx_adapter *ad)
{
	for (size_t i = 0; i < ad->ports.n; i++) {
		struct hwc_mlx_port *p = &ad->ports.items[i];
		if (!hwc_ok(p->link_layer) || strcmp(p->link_layer.v, "InfiniBand") != 0)
			continue;
		p->active_mtu = p->portinfo.neighbor_mtu;
		p->max_mtu = p->portinfo.mtu_cap;
	}
}

static void fill_ports(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_adapter *ad)
{
	for (size_t d = 0; d < ad->rdma_devices.n; d++) {
		const char *dev = ad->rdma_devices.items[d];
		const char *pdir = hwc_arena_printf(a, "sys/class/infiniband/%s/ports", dev);
		struct hwc_dirlist dl;
		if (hwc_env_list_dir(e, pdir, a, &dl) < 0)
			continue;
		int64_t *pn = hwc_dirlist_numbered(&dl, "", false, a);
		for (size_t i = 0; i < dl.n; i++) {
			struct hwc_mlx_port *p = HWC_VEC_PUSH(a, &ad->ports);
			if (!p)
				return;
			p->rdma_device = dev;
			p->port = pn[i];
			const char *base = hwc_arena_printf(a, "%s/%s", pdir, dl.names[i]);
			struct hwc_fstr s = {0};
			if (hwc_read_str(e, hwc_arena_printf(a, "%s/state", base), a, &s) == 0)
				HWC_SET(p->state, hwc_mlx_state_name(s.v, a));
			else
				p->state.m = s.m;
			if (hwc_read_str(e, hwc_arena_printf(a, "%s/phys_state", base), a, &s) == 0)
				HWC_SET(p->phys_state, hwc_mlx_state_name(s.v, a));
			else
				p->phys_state.m = s.m;
			if (hwc_ok(p->state) && !p->state.v)
				HWC_FAIL(p->state, HWC_ST_INVALID, 0, "empty state");
			if (hwc_ok(p->phys_state) && !p->phys_state.v)
				HWC_FAIL(p->phys_state, HWC_ST_INVALID, 0, "empty phys_state");
			hwc_read_str(e, hwc_arena_printf(a, "%s/link_layer", base), a, &p->link_layer);
			const char *rpath = hwc_arena_printf(a, "%s/rate", base);
			if (hwc_read_str(e, rpath, a, &s) == 0) {
				double g;
				const char *w, *sp;
				if (hwc_mlx_parse_rate(s.v, &g, &w, &sp, a) == 0) {
					HWC_SET(p->rate_gbps, g);
					if (w)
						HWC_SET(p->active_width, w);
					else
						HWC_FAIL(p->active_width, HWC_ST_ABSENT, 0, "rate names no width");
					if (sp)
						HWC_SET(p->active_speed, sp);
					else
						HWC_FAIL(p->active_speed, HWC_ST_ABSENT, 0, "rate names no speed");
				} else {
					const char *why = hwc_arena_printf(a, "%s: '%s' is not 'N Gb/sec (WX SPEED)'",
									   rpath, s.v);
					HWC_FAIL(p->rate_gbps, HWC_ST_INVALID, 0, why);
					HWC_FAIL(p->active_width, HWC_ST_INVALID, 0, why);
					HWC_FAIL(p->active_speed, HWC_ST_INVALID, 0, why);
				}
			} else {
				p->rate_gbps.m = p->active_width.m = p->active_speed.m = s.m;
			}
			port_netdev(e, a, ad, dev, pn[i], p);
			if (hwc_ok(p->netdev)) {
				hwc_read_i64(e, hwc_arena_printf(a, "sys/class/net/%s/mtu", p->netdev.v), a,
					     &p->netdev_mtu);
				hwc_read_i64(e, hwc_arena_printf(a, "sys/class/net/%s/speed", p->netdev.v), a,
					     &p->netdev_speed_mbps);
			} else {
				p->netdev_mtu.m = p->netdev_speed_mbps.m = p->netdev.m;
			}
			roce_mtu(p);
		}
	}
	if (ad->ports.n > 1)
		qsort(ad->ports.items, ad->ports.n, sizeof(ad->ports.items[0]), cmp_port);
}

static void fill_fw_sysfs(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_adapter *ad)
{
	if (ad->rdma_devices.n == 0) {
		const char *why = hwc_ok(ad->flash_recovery) && ad->flash_recovery.v
					  ? "the card is in flash recovery: no firmware runs, no driver binds it"
					  : "no RDMA device (mlx5_ib/mlx4_ib not loaded?)";
		HWC_FAIL(ad->fw_version, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(ad->psid, HWC_ST_ABSENT, 0, why);
		return;
	}
	/* The RDMA device of function 0 when there is one: all PFs run the same firmware. */
	const char *dev = ad->rdma_devices.items[0];
	for (size_t i = 0; i < ad->function_map.n; i++)
		if (strcmp(ad->function_map.items[i].bdf, ad->bdf) == 0 &&
		    ad->function_map.items[i].rdma_devices.n)
			dev = ad->function_map.items[i].rdma_devices.items[0];
	if (hwc_read_str(e, hwc_arena_printf(a, "sys/class/infiniband/%s/fw_ver", dev), a,
			 &ad->fw_version) == 0)
		HWC_SET(ad->fw_version_source, hwc_arena_printf(a, "sysfs %s/fw_ver", dev));
	/* mlx5 board_id is the PSID ("MT_0000000838"); mlx4's is the board id too. */
	hwc_read_str(e, hwc_arena_printf(a, "sys/class/infiniband/%s/board_id", dev), a, &ad->psid);
}

/* ---- running mstflint tools ----------------------------------------------------------------- */

/* A NULL-terminated argv in the arena from the NULL-terminated arguments. */
static const char **argv_of(struct hwc_arena *a, ...) __attribute__((sentinel));
static const char **argv_of(struct hwc_arena *a, ...)
{
	enum { MAX_ARGS = 12 };
	const char **v = hwc_arena_calloc(a, MAX_ARGS + 1, sizeof(*v));
	va_list ap;
	va_start(ap, a);
	for (size_t i = 0; v && i < MAX_ARGS; i++) {
		v[i] = va_arg(ap, const char *);
		if (!v[i])
			break;
	}
	va_end(ap);
	return v;
}

/* Whether the output is worth parsing; else *why says what happened. */
static bool usable(const struct hwc_cmd_result *r, const char *const *argv, struct hwc_arena *a,
		   struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK && r->m.st != HWC_ST_TRUNCATED) {
		*why = r->m;
		return false;
	}
	if (r->signal) {
		hwc_fmeta_set(why, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s: killed by signal %d", hwc_argv_str(a, argv),
					       r->signal));
		return false;
	}
	return true;
}

/* Parsers say why from stdout; mstreg and others print their -E- on stderr: try both. */
typedef int (*parse_fn)(const char *, size_t, struct hwc_arena *, void *);

static int parse_both(parse_fn fn, const struct hwc_cmd_result *r, struct hwc_arena *a, void *out,
		      struct hwc_fmeta *m, const char *const *argv)
{
	int rc = fn(r->out, r->out_len, a, out);
	if (rc == 0)
		return 0;
	struct hwc_fmeta first = *m;
	if (r->err_len && first.st == HWC_ST_INVALID) {
		rc = fn(r->err, r->err_len, a, out);
		if (rc == 0 || m->st != HWC_ST_INVALID)
			return rc;
		*m = first;
	}
	if (m->st == HWC_ST_INVALID && r->exit_code != 0)
		hwc_fmeta_set(m, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s: exit status %d, nothing parseable printed",
					       hwc_argv_str(a, argv), r->exit_code));
	return rc;
}

static int p_cfg(const char *b, size_t l, struct hwc_arena *a, void *o)
{
	return hwc_mlx_parse_mstconfig(b, l, a, o);
}
static int p_flint(const char *b, size_t l, struct hwc_arena *a, void *o)
{
	return hwc_mlx_parse_flint_query(b, l, a, o);
}
static int p_reg(const char *b, size_t l, struct hwc_arena *a, void *o)
{
	return hwc_mlx_parse_mstreg(b, l, a, o);
}
static int p_temp(const char *b, size_t l, struct hwc_arena *a, void *o)
{
	return hwc_mlx_parse_mget_temp(b, l, a, o);
}

static int p_reset(const char *b, size_t l, struct hwc_arena *a, void *o)
{
	return hwc_mlx_parse_fwreset_query(b, l, a, o);
}

/* The tool's output through fn into out; else *m says why there is none. */
static void read_tool(parse_fn fn, const struct hwc_cmd_result *r, struct hwc_arena *a, void *out,
		      struct hwc_fmeta *m, const char *const *argv)
{
	struct hwc_fmeta why;
	if (usable(r, argv, a, &why))
		parse_both(fn, r, a, out, m, argv);
	else
		*m = why;
}

static void apply_cfg(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
		      const struct hwc_cmd_result *r, const char *const *argv)
{
	read_tool(p_cfg, r, a, &ad->cfg, &ad->cfg.m, argv);
	if (hwc_ok(ad->cfg) && r->m.st == HWC_ST_TRUNCATED)
		ad->cfg.complete = false;
}

static void apply_flint(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
			const struct hwc_cmd_result *r, const char *const *argv)
{
	struct hwc_mlx_flint fl = {0};
	read_tool(p_flint, r, a, &fl, &fl.m, argv);
	if (!hwc_ok(fl)) {
		ad->fw_version_stored.m = ad->fw_pending_reset.m = fl.m;
		return;
	}
	ad->fw_version_stored = fl.fw_version;
	/* flint prints "FW Version(Running):" only when the running image differs from the flash:
	 * an update that waits for a reset. */
	bool pending = hwc_ok(fl.fw_version_running) &&
		       strcmp(fl.fw_version_running.v, fl.fw_version.v) != 0;
	if (hwc_ok(ad->fw_version) && strcmp(ad->fw_version.v, fl.fw_version.v) != 0)
		pending = true;
	HWC_SET(ad->fw_pending_reset, pending);
	if (!hwc_ok(ad->fw_version)) {
		ad->fw_version = hwc_ok(fl.fw_version_running) ? fl.fw_version_running : fl.fw_version;
		HWC_SET(ad->fw_version_source, "mstflint query");
	}
	if (!hwc_ok(ad->psid) && hwc_ok(fl.psid))
		ad->psid = fl.psid;
}

static void apply_reset(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
			const struct hwc_cmd_result *r, const char *const *argv)
{
	read_tool(p_reset, r, a, &ad->fw_reset, &ad->fw_reset.m, argv);
}

static void apply_mtmp(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
		       const struct hwc_cmd_result *r, const char *const *argv)
{
	struct hwc_mlx_reg reg = {0};
	read_tool(p_reg, r, a, &reg, &reg.m, argv);
	uint64_t t;
	if (hwc_ok(reg) && hwc_mlx_reg_get(&reg, "temperature", &t) == 0) {
		HWC_SET(ad->reg.temp_mdegc, hwc_mlx_mtmp_to_mdegc(t));
		HWC_SET(ad->reg.temp_source, "mstreg");
	} else {
		ad->reg.temp_mdegc.m = hwc_ok(reg) ? (struct hwc_fmeta){HWC_ST_INVALID, 0,
									"MTMP has no 'temperature' field"}
						   : reg.m;
		ad->reg.temp_source.m = ad->reg.temp_mdegc.m;
	}
}

static void apply_mpein(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
			const struct hwc_cmd_result *r, const char *const *argv)
{
	struct hwc_mlx_reg reg = {0};
	read_tool(p_reg, r, a, &reg, &reg.m, argv);
	uint64_t st, w;
	if (!hwc_ok(reg)) {
		ad->reg.power_status.m = ad->reg.pci_power_w.m = reg.m;
		return;
	}
	if (hwc_mlx_reg_get(&reg, "pwr_status", &st) == 0) {
		static const char *const names[] = {"unknown", "sufficient", "insufficient"};
		if (st < 3)
			HWC_SET(ad->reg.power_status, names[st]);
		else
			HWC_FAIL(ad->reg.power_status, HWC_ST_INVALID, 0,
				 hwc_arena_printf(a, "MPEIN pwr_status %llu is not 0, 1 or 2",
						  (unsigned long long)st));
	} else {
		HWC_FAIL(ad->reg.power_status, HWC_ST_ABSENT, 0, "MPEIN has no pwr_status field");
	}
	if (hwc_mlx_reg_get(&reg, "pci_power", &w) == 0 && w > 0)
		HWC_SET(ad->reg.pci_power_w, (int64_t)w);
	else
		HWC_FAIL(ad->reg.pci_power_w, HWC_ST_UNSUPPORTED, 0,
			 "MPEIN pci_power is 0 (unknown) or missing");
}

static void apply_mget(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
		       const struct hwc_cmd_result *r, const char *const *argv)
{
	struct hwc_fi64 t = {0};
	read_tool(p_temp, r, a, &t, &t.m, argv);
	if (hwc_ok(t)) {
		ad->reg.temp_mdegc = t;
		HWC_SET(ad->reg.temp_source, "mstmget_temp");
	} else if (ad->reg.temp_mdegc.m.st == HWC_ST_ABSENT ||
		   ad->reg.temp_mdegc.m.st == HWC_ST_UNSET) {
		/* say the more useful of the two failures: the tool that exists */
		ad->reg.temp_mdegc.m = t.m;
		ad->reg.temp_source.m = t.m;
	}
}

/* mstmget_temp only where MTMP gave no temperature. */
static bool no_temp_yet(const struct hwc_mlx_adapter *ad)
{
	return !hwc_ok(ad->reg.temp_mdegc);
}

/* The mstflint tools of a card, in the order their answers are applied: "TOOL -d BDF ARGS...",
 * which cards need it (NULL: all, and it starts with the others), what its output fills, and the
 * timeout it gets when the run has the default one (0: the run's; hwc_env_cmd_timeout_at_least_ms).
 * mstconfig's query of every parameter: 30 s, the one public time of it being 13.3 s on a
 * ConnectX-6 Dx, over the default 10 s (bench/TOOL-TIMES.md T1). */
static const struct tool_step {
	const char *tool;
	const char *args[6];
	bool (*wanted)(const struct hwc_mlx_adapter *ad);
	void (*apply)(struct hwc_arena *a, struct hwc_mlx_adapter *ad,
		      const struct hwc_cmd_result *r, const char *const *argv);
	unsigned slow_ms;
} tool_steps[] = {
	{"mstconfig", {"-e", "q"}, NULL, apply_cfg, 30000},
	{"mstflint", {"q"}, NULL, apply_flint, 0},
	{"mstreg", {"--reg_name", "MTMP", "--get", "--indexes", "sensor_index=0x0,slot_index=0x0"},
	 NULL, apply_mtmp, 0},
	{"mstreg", {"--reg_name", "MPEIN", "--get", "--indexes", "node=0x0,pcie_index=0x0,depth=0x0"},
	 NULL, apply_mpein, 0},
	{"mstfwreset", {"query"}, NULL, apply_reset, 0},
	{"mstmget_temp", {NULL}, no_temp_yet, apply_mget, 0},
};

/* "TOOL -d BDF ARGS..." in the arena. */
static const char **step_argv(struct hwc_arena *a, const struct tool_step *s, const char *bdf)
{
	enum { NA = HWC_ARRAY_SIZE(s->args) };
	const char **v = hwc_arena_calloc(a, 3 + NA + 1, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = s->tool, v[1] = "-d", v[2] = bdf;
	for (size_t i = 0; i < NA && s->args[i]; i++)
		v[3 + i] = s->args[i];
	return v;
}

/* May mstflint tools run on this machine? Lockdown and privileges first: a tool that would only
 * fail (or worse, hang on a semaphore) is not started. */
static void tools_gate_here(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf)
{
	struct hwc_fstr ld = {0};
	const char *mode;
	if (hwc_read_str(e, "sys/kernel/security/lockdown", a, &ld) == 0 &&
	    hwc_mlx_parse_lockdown(ld.v, a, &mode) == 0 && strcmp(mode, "none") != 0) {
		hwc_fmeta_set(&mf->tools.access, HWC_ST_BLOCKED, 0,
			      hwc_arena_printf(a, "kernel lockdown [%s]: the kernel refuses the PCI "
						  "config-space writes mstflint tools need",
					       mode));
		return;
	}
	if (hwc_env_is_live(e) && !hwc_env_is_root_user(e)) {
		hwc_fmeta_set(&mf->tools.access, HWC_ST_NEEDS_ROOT, 0,
			      "mstflint tools need root (read-write PCI config space)");
		return;
	}
	hwc_fmeta_set(&mf->tools.access, HWC_ST_OK, 0, NULL);
}

/* This run's --no-tools, else why the captured run did not run them (a replay of a snapshot
 * taken as non-root says "needs root", not "not in this capture"), else the gate here; a
 * recording keeps why they do not run (hwc_run_skip_note). */
static void tools_gate(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf)
{
	if (hwc_env_no_tools(e))
		hwc_fmeta_set(&mf->tools.access, HWC_ST_BLOCKED, 0, "external tools disabled (--no-tools)");
	else if (!hwc_run_skip_noted(e, a, "mstflint", &mf->tools.access))
		tools_gate_here(e, a, mf);
	hwc_run_skip_note(e, a, "mstflint", &mf->tools.access);
}

static void gate_all(struct hwc_mlx_adapter *ad, const struct hwc_fmeta *m)
{
	ad->cfg.m = *m;
	ad->fw_version_stored.m = ad->fw_pending_reset.m = *m;
	ad->reg.temp_mdegc.m = ad->reg.temp_source.m = *m;
	ad->reg.power_status.m = ad->reg.pci_power_w.m = *m;
	ad->part_number.m = *m;
	ad->fw_reset.m = *m;
}

/* ---- one card's tools at once --------------------------------------------------------------- */

/* What mstflint tools print when another tool held a device semaphore past their retries (their
 * sources): mtcr_ul/mtcr_common.c m_err2str ("Semaphore locked" ME_SEM_LOCKED, "Timed out trying
 * to take the ICMD semaphore", "Failed to take ICMD semaphore", "ICMD interface busy",
 * "Register access failed, device is busy", "Tools HCR busy"), mflash/mflash.c ("Can not obtain
 * Flash semaphore", MFE_SEM_LOCKED), and mopen's EBUSY when the VSEC semaphore stays taken
 * (mtcr_ul/mtcr_ul_com.c mtcr_pciconf_open: "Device or resource busy"). */
static const char *const busy_signs[] = {"semaphore", "resource busy", "device is busy",
					 "interface busy", "hcr busy"};

bool hwc_mlx_tool_busy(const struct hwc_cmd_result *r)
{
	if (r->m.st != HWC_ST_OK || r->signal || r->exit_code == 0)
		return false;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(busy_signs); i++)
		if (hwc_find_ci(r->out, r->out_len, busy_signs[i]) ||
		    hwc_find_ci(r->err, r->err_len, busy_signs[i]))
			return true;
	return false;
}

/* Re-runs alone, one after the other, each command that answered busy; notes it on its card. */
static void rerun_busy(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		       struct hwc_cmd_result *res, struct hwc_mlx_adapter *const *ads)
{
	for (size_t i = 0; i < n; i++) {
		if (!hwc_mlx_tool_busy(&res[i]))
			continue;
		hwc_run_again(e, a, &cmds[i], &res[i]);
		const struct hwc_cmd_result *r = &res[i];
		const char *how = hwc_mlx_tool_busy(r) ? "busy again"
				  : r->m.st != HWC_ST_OK ? hwc_status_name(r->m.st)
				  : r->signal ? hwc_arena_printf(a, "killed by signal %d", r->signal)
					      : hwc_arena_printf(a, "exit status %d", r->exit_code);
		strv_push(a, &ads[i]->tools_rerun,
			  hwc_arena_printf(a, "%s: busy (a device semaphore) while the card's tools ran "
					      "at once; re-run alone: %s",
					   hwc_argv_str(a, cmds[i].argv), how));
	}
}

/* --serial-tools: rounds of at most one command per card. */
static void run_rounds(struct hwc_env *e, struct hwc_arena *a, size_t n, const struct hwc_cmd *cmds,
		       struct hwc_cmd_result *res, struct hwc_mlx_adapter *const *ads)
{
	bool *done = hwc_arena_calloc(a, n, sizeof(*done));
	struct hwc_cmd *rc = hwc_arena_calloc(a, n, sizeof(*rc));
	struct hwc_cmd_result *rr = hwc_arena_calloc(a, n, sizeof(*rr));
	size_t *at = hwc_arena_calloc(a, n, sizeof(*at));
	if (!done || !rc || !rr || !at) {
		for (size_t i = 0; i < n; i++) /* no memory for rounds: one at a time */
			hwc_run_many(e, a, 1, &cmds[i], &res[i]);
		return;
	}
	for (size_t left = n; left;) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			bool card_taken = false;
			for (size_t j = 0; j < k && !card_taken; j++)
				card_taken = ads[at[j]] == ads[i];
			if (done[i] || card_taken)
				continue;
			rc[k] = cmds[i];
			at[k++] = i;
			done[i] = true;
		}
		hwc_run_many(e, a, k, rc, rr);
		for (size_t j = 0; j < k; j++)
			res[at[j]] = rr[j];
		left -= k;
	}
}

void hwc_mlx_run_tools(struct hwc_env *e, struct hwc_arena *a, const struct hwc_mlx_facts *mf,
		       size_t n, const struct hwc_cmd *cmds, struct hwc_cmd_result *res,
		       struct hwc_mlx_adapter *const *ads)
{
	if (mf->tools_serial)
		run_rounds(e, a, n, cmds, res, ads);
	else
		hwc_run_many(e, a, n, cmds, res);
	rerun_busy(e, a, n, cmds, res, ads);
}

/* Commands of the cards' tools with their card and step. */
struct tool_batch {
	size_t n;
	struct hwc_cmd *cmds;
	struct hwc_cmd_result *res;
	struct hwc_mlx_adapter **ads;
	const struct tool_step **steps;
};

static bool batch_init(struct hwc_arena *a, struct tool_batch *b, size_t max)
{
	max = max ? max : 1;
	b->n = 0;
	b->cmds = hwc_arena_calloc(a, max, sizeof(*b->cmds));
	b->res = hwc_arena_calloc(a, max, sizeof(*b->res));
	b->ads = hwc_arena_calloc(a, max, sizeof(*b->ads));
	b->steps = hwc_arena_calloc(a, max, sizeof(*b->steps));
	return b->cmds && b->res && b->ads && b->steps;
}

static void batch_add(struct tool_batch *b, const char **argv, struct hwc_mlx_adapter *ad,
		      const struct tool_step *st, unsigned timeout_ms)
{
	if (!argv)
		return;
	b->cmds[b->n] = (struct hwc_cmd){.argv = argv, .timeout_ms = timeout_ms};
	b->ads[b->n] = ad;
	b->steps[b->n++] = st;
}

/* How many commands from j on belong to the same step (batch_steps adds a step's cards together). */
static size_t step_len(const struct tool_batch *b, size_t j)
{
	size_t k = 1;
	while (j + k < b->n && b->steps[j + k] == b->steps[j])
		k++;
	return k;
}

/* The steps wanted(NULL) asks for (first) or the others, for every card that may be asked. */
static void batch_steps(struct hwc_env *e, struct hwc_arena *a, struct tool_batch *b,
			struct hwc_mlx_facts *mf, const bool *skip, bool conditional)
{
	for (size_t s = 0; s < HWC_ARRAY_SIZE(tool_steps); s++) {
		const struct tool_step *st = &tool_steps[s];
		if ((st->wanted != NULL) != conditional)
			continue;
		unsigned t = st->slow_ms ? hwc_env_cmd_timeout_at_least_ms(e, st->slow_ms) : 0;
		for (size_t i = 0; i < mf->adapters.n; i++) {
			struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
			if (!skip[i * HWC_ARRAY_SIZE(tool_steps) + s] && (!st->wanted || st->wanted(ad)))
				batch_add(b, step_argv(a, st, ad->bdf), ad, st, t);
		}
	}
}

/* Each port's mstlink, started ahead with the cards' tools (hwc_mlx_collect_phy takes them). */
static void batch_phy(struct hwc_arena *a, struct tool_batch *b, struct hwc_mlx_facts *mf,
		      const struct hwc_mlx_port_ref *ports, size_t nports)
{
	for (size_t i = 0; i < nports; i++) {
		struct hwc_fmeta why;
		batch_add(b, hwc_mlx_phy_argv(a, mf, ports[i].ad, ports[i].p, &why), ports[i].ad, NULL, 0);
	}
}

/* The unconditional tools of every card: all started at once (unless --serial-tools) with each
 * port's mstlink, taken step by step; a busy one re-run alone once every tool started has ended
 * (mstlink's waited for, not taken); then applied in tool_steps' order. */
static void run_first_tools(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf,
			    const bool *skip)
{
	size_t nports;
	const struct hwc_mlx_port_ref *ports = hwc_mlx_all_ports(a, mf, &nports);
	struct tool_batch b, phy;
	if (!batch_init(a, &b, mf->adapters.n * HWC_ARRAY_SIZE(tool_steps)) ||
	    !batch_init(a, &phy, nports))
		return;
	batch_steps(e, a, &b, mf, skip, false);
	if (!mf->tools_serial) {
		batch_phy(a, &phy, mf, ports, nports);
		hwc_run_start(e, a, b.n, b.cmds);
		hwc_run_start(e, a, phy.n, phy.cmds);
	}
	for (size_t j = 0, k; j < b.n; j += k) { /* one step of every card at a time */
		k = step_len(&b, j);
		hwc_run_many(e, a, k, b.cmds + j, b.res + j);
	}
	bool busy = false;
	for (size_t j = 0; j < b.n; j++)
		busy = busy || hwc_mlx_tool_busy(&b.res[j]);
	struct hwc_cmd_result r;
	for (size_t j = 0; busy && j < phy.n; j++)
		hwc_run_peek(e, a, phy.cmds[j].argv, &r);
	rerun_busy(e, a, b.n, b.cmds, b.res, b.ads);
	for (size_t j = 0; j < b.n; j++)
		b.steps[j]->apply(a, b.ads[j], &b.res[j], b.cmds[j].argv);
}

/* The tools that wait for an answer (mstmget_temp where MTMP gave no temperature). */
static void run_later_tools(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf,
			    const bool *skip)
{
	struct tool_batch b;
	if (!batch_init(a, &b, mf->adapters.n * HWC_ARRAY_SIZE(tool_steps)))
		return;
	batch_steps(e, a, &b, mf, skip, true);
	for (size_t j = 0, k; j < b.n; j += k) {
		k = step_len(&b, j);
		hwc_mlx_run_tools(e, a, mf, k, b.cmds + j, b.res + j, b.ads + j);
		for (size_t i = j; i < j + k; i++)
			b.steps[i]->apply(a, b.ads[i], &b.res[i], b.cmds[i].argv);
	}
}

static void run_version(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf)
{
	const char *const ver[] = {"mstconfig", "-v", NULL};
	struct hwc_cmd_result vr;
	hwc_run(e, a, ver, 0, &vr);
	struct hwc_fmeta why;
	if (usable(&vr, ver, a, &why))
		hwc_mlx_parse_tool_version(vr.out, vr.out_len, a, &mf->tools.mstflint_version);
	else
		mf->tools.mstflint_version.m = why;
}

/* Whether no mstflint tool is to be started on the card, and *why: mstflint tools reach the
 * firmware through the PF's vendor-specific capability, so a card seen only through VFs (a
 * virtual machine) cannot be asked; a card in flash recovery runs no firmware to answer them
 * (burning it is the operator's step, MLX_FLASH_RECOVERY). Which tool takes which older card is
 * tool_refusals'. */
static bool tools_refused(struct hwc_arena *a, const struct hwc_mlx_adapter *ad, struct hwc_fmeta *why)
{
	bool vf_only = true;
	for (size_t j = 0; j < ad->function_map.n; j++)
		vf_only = vf_only && ad->function_map.items[j].is_vf;
	if (vf_only) {
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      "only virtual functions are visible: mstflint tools need the physical function");
		return true;
	}
	if (hwc_ok(ad->flash_recovery) && ad->flash_recovery.v) {
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "not run: the card is in flash recovery (%s, 15b3:%s): no firmware "
						  "runs to answer (MLX_FLASH_RECOVERY)",
					       hwc_ok(ad->product) ? ad->product.v : "?", ad->device_id.v));
		return true;
	}
	return false;
}

/* The mstflint tools that refuse the older cards (mstflint's git history, fetched at b9d9e84):
 * on an identity row with flag `card`, `tool` takes the card only with an mstflint older than
 * `before` (major * 100 + minor; 0: no version takes it). The installed version is `mstconfig
 * -v`'s; where it is unknown, the newest mstflint's behaviour is assumed (every release since
 * 2023 refuses all of these) and the reason says so.
 * - ConnectX and ConnectX-2: 4.21 took them out of dev_mgt's device table (8e08c36 of 2022,
 *   "deprecation of legacy devices"; `git describe --contains`: v4.21.0-1); mstflint and mstconfig
 *   knew them before (dev_mgt listed ConnectX2, hw_dev_id 0x190, and dm_is_4th_gen included it).
 *   mlxreg (mstreg) refused DeviceConnectX2 from its port to mstflint (e425ca09 of 2019,
 *   MlxRegLib::isDeviceSupported); mstfwreset has taken Connect-IB and later only since it came
 *   (ecebccc5, v4.8: SUPP_DEVICES); mstmget_temp came in 4.31 (8eda5f08 of 2024), after the drop.
 * - ConnectX-3 and ConnectX-3 Pro (GEN4): mlxreg refuses dm_is_4th_gen() devices ("-E- Device is
 *   not supported", mlxreg_ui.cpp run(), since e425ca09); mstfwreset's SUPP_DEVICES never listed
 *   ConnectX3/ConnectX3Pro ("Unsupported Device"); mstconfig dropped its FourthGenCommander in 4.26
 *   (52eb6c0e of 2023, "remove support for 4th gen devices": Commander::create throws "Unsupported
 *   device"; mstflint issue #590: 4.26 refuses a ConnectX-3 that 4.25 reads). mstflint's query
 *   and mstmget_temp still take them (b9d9e84). */
enum { MST_ANY = 0 };
static const struct tool_refusal {
	unsigned card;	    /* HWC_MLX_ID_* */
	const char *tool;   /* tool_steps' */
	unsigned before;    /* the first mstflint version that refuses; MST_ANY: all do */
	const char *why;
} tool_refusals[] = {
	{HWC_MLX_ID_NO_MSTFLINT, "mstconfig", 421, "mstflint dropped ConnectX and ConnectX-2 in 4.21 (2022, its commit "
						      "8e08c36 \"deprecation of legacy devices\")"},
	{HWC_MLX_ID_NO_MSTFLINT, "mstflint", 421, "mstflint dropped ConnectX and ConnectX-2 in 4.21 (2022, its commit "
						     "8e08c36 \"deprecation of legacy devices\")"},
	{HWC_MLX_ID_NO_MSTFLINT, "mstreg", MST_ANY, "mstreg (mlxreg) refuses ConnectX-2 and older in every mstflint "
						     "(isDeviceSupported since it came in 2019; mstflint dropped ConnectX "
						     "and ConnectX-2 in 4.21)"},
	{HWC_MLX_ID_NO_MSTFLINT, "mstfwreset", MST_ANY, "mstfwreset takes Connect-IB and later only, in every mstflint "
							 "(its SUPP_DEVICES)"},
	{HWC_MLX_ID_NO_MSTFLINT, "mstmget_temp", MST_ANY, "no mstflint tool reads its temperature: mstreg (MTMP) refuses "
							   "ConnectX-2 and older, and mstmget_temp came in 4.31 (2024), "
							   "after mstflint dropped ConnectX and ConnectX-2 in 4.21"},
	{HWC_MLX_ID_GEN4, "mstconfig", 426, "mstconfig refuses ConnectX-3 and ConnectX-3 Pro since mstflint 4.26 (2023, "
					     "its commit 52eb6c0e \"remove support for 4th gen devices\": \"-E- "
					     "Unsupported device\")"},
	{HWC_MLX_ID_GEN4, "mstreg", MST_ANY, "mstreg (mlxreg) refuses ConnectX-3 and ConnectX-3 Pro in every mstflint "
					      "(\"-E- Device is not supported\": its isDeviceSupported, dm_is_4th_gen)"},
	{HWC_MLX_ID_GEN4, "mstfwreset", MST_ANY, "mstfwreset takes Connect-IB and later only, in every mstflint "
						  "(its SUPP_DEVICES)"},
};

/* "4.30.0" -> 430; 0 where the version is not known. */
static unsigned mst_version(const struct hwc_mlx_facts *mf)
{
	unsigned maj, min;
	if (!hwc_ok(mf->tools.mstflint_version) ||
	    sscanf(mf->tools.mstflint_version.v, "%u.%u", &maj, &min) != 2 || maj > 99 || min > 99)
		return 0;
	return maj * 100 + min;
}

/* Whether `tool` refuses the card with the mstflint installed (tool_refusals), and *why. */
static bool tool_refuses(struct hwc_arena *a, const struct hwc_mlx_facts *mf,
			 const struct hwc_mlx_adapter *ad, const char *tool, struct hwc_fmeta *why)
{
	uint64_t v;
	const struct hwc_mlx_ident *id = hwc_ok(ad->device_id) && hwc_parse_u64(ad->device_id.v, 16, &v) == 0
						 ? hwc_mlx_ident_find((uint16_t)v)
						 : NULL;
	unsigned ver = mst_version(mf);
	for (size_t i = 0; id && i < HWC_ARRAY_SIZE(tool_refusals); i++) {
		const struct tool_refusal *r = &tool_refusals[i];
		if (!(id->flags & r->card) || strcmp(r->tool, tool) != 0)
			continue;
		if (r->before != MST_ANY && ver && ver < r->before)
			return false; /* an older mstflint that still takes the card */
		const char *card = hwc_arena_printf(a, "%s, 15b3:%s",
						    hwc_ok(ad->product) ? ad->product.v : id->product, ad->device_id.v);
		const char *inst = r->before == MST_ANY ? ""
				   : ver ? hwc_arena_printf(a, "; mstflint %s is installed", mf->tools.mstflint_version.v)
					 : hwc_arena_printf(a, "; the installed mstflint's version is unknown (%s): "
							       "a newer one is assumed",
							    mf->tools.mstflint_version.m.detail
								? mf->tools.mstflint_version.m.detail
								: hwc_status_name(mf->tools.mstflint_version.m.st));
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "%s not run on this card (%s): %s%s", tool, card, r->why, inst));
		return true;
	}
	return false;
}

/* Marks the steps each card's tool refuses (skip[card * steps + step]; a card not asked at all,
 * asked[card] false, keeps the reason tools_refused gave) and says why in the facts the step
 * would fill. MTMP's refusal is not said in the temperature: mstmget_temp is asked where
 * MTMP gave none, and its answer, or its own refusal, speaks for it. */
static void refuse_steps(struct hwc_arena *a, struct hwc_mlx_facts *mf, const bool *asked, bool *skip)
{
	enum { NS = HWC_ARRAY_SIZE(tool_steps) };
	struct hwc_fmeta why;
	for (size_t i = 0; i < mf->adapters.n; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		for (size_t s = 0; asked[i] && s < NS; s++) {
			const struct tool_step *st = &tool_steps[s];
			if (!tool_refuses(a, mf, ad, st->tool, &why))
				continue;
			skip[i * NS + s] = true;
			if (st->apply == apply_mtmp)
				continue;
			struct hwc_cmd_result r = {.m = why};
			st->apply(a, ad, &r, step_argv(a, st, ad->bdf));
		}
	}
}

static void run_tools(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf)
{
	tools_gate(e, a, mf);
	if (mf->tools.access.st != HWC_ST_OK) {
		mf->tools.mstflint_version.m = mf->tools.access;
		for (size_t i = 0; i < mf->adapters.n; i++)
			gate_all(&mf->adapters.items[i], &mf->tools.access);
		return;
	}
	enum { NS = HWC_ARRAY_SIZE(tool_steps) };
	size_t n = mf->adapters.n;
	if (!n)
		return; /* nothing to ask about: no tool is started */
	bool *skip = hwc_arena_calloc(a, n * NS, sizeof(*skip));
	bool *asked = hwc_arena_calloc(a, n, sizeof(*asked));
	if (!skip || !asked)
		return;
	size_t n_asked = 0;
	for (size_t i = 0; i < n; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		struct hwc_fmeta why;
		if (tools_refused(a, ad, &why)) {
			gate_all(ad, &why);
			for (size_t s = 0; s < NS; s++)
				skip[i * NS + s] = true;
		} else {
			asked[i] = true;
			n_asked++;
		}
	}
	if (!n_asked) { /* no card to ask: not even the tools' version is */
		hwc_fmeta_set(&mf->tools.mstflint_version.m, HWC_ST_UNSUPPORTED, 0,
			      "not asked: no card here can be asked by mstflint tools (each card says why)");
		return;
	}
	run_version(e, a, mf); /* first: which tool takes an older card depends on it */
	refuse_steps(a, mf, asked, skip);
	run_first_tools(e, a, mf, skip);
	run_later_tools(e, a, mf, skip);
	for (size_t i = 0; i < n; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		if (ad->part_number.m.st != HWC_ST_UNSET)
			continue; /* said by the gate */
		if (hwc_ok(ad->cfg) && hwc_ok(ad->cfg.board_name))
			ad->part_number = ad->cfg.board_name;
		else if (hwc_ok(ad->cfg))
			ad->part_number.m = ad->cfg.board_name.m;
		else
			ad->part_number.m = ad->cfg.m;
	}
}

/* --fw-image FILE: what the image is (version, PSID). Reading a file needs neither root nor the
 * device, so only --no-tools stops it. */
static void run_fw_image(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf,
			 const char *file)
{
	mf->fw_image_file = hwc_arena_strdup(a, file);
	if (hwc_env_no_tools(e)) {
		hwc_fmeta_set(&mf->fw_image.m, HWC_ST_BLOCKED, 0, "external tools disabled (--no-tools)");
		return;
	}
	const char **argv = argv_of(a, "mstflint", "-i", file, "query", NULL);
	struct hwc_cmd_result r;
	struct hwc_fmeta why;
	if (!argv) {
		hwc_fmeta_set(&mf->fw_image.m, HWC_ST_UNREADABLE, ENOMEM, "mstflint -i: out of memory");
		return;
	}
	hwc_run(e, a, argv, 0, &r);
	if (!usable(&r, argv, a, &why))
		mf->fw_image.m = why;
	else
		parse_both(p_flint, &r, a, &mf->fw_image, &mf->fw_image.m, argv);
}

/* Where sysfs has no firmware version (no RDMA driver), ethtool -i has it with the PSID. */
static void run_ethtool(struct hwc_env *e, struct hwc_arena *a, struct hwc_mlx_facts *mf)
{
	size_t n = mf->adapters.n, k = 0;
	struct hwc_cmd *cmds = hwc_arena_calloc(a, n ? n : 1, sizeof(*cmds));
	struct hwc_cmd_result *res = hwc_arena_calloc(a, n ? n : 1, sizeof(*res));
	size_t *which = hwc_arena_calloc(a, n ? n : 1, sizeof(*which));
	if (!cmds || !res || !which)
		return;
	for (size_t i = 0; i < n; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		if (hwc_ok(ad->fw_version) || ad->netdevs.n == 0)
			continue;
		cmds[k].argv = argv_of(a, "ethtool", "-i", ad->netdevs.items[0], NULL);
		which[k++] = i;
	}
	if (!k)
		return;
	hwc_run_many(e, a, k, cmds, res);
	for (size_t j = 0; j < k; j++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[which[j]];
		struct hwc_fmeta why;
		if (!usable(&res[j], cmds[j].argv, a, &why))
			continue; /* keep the sysfs reason */
		struct hwc_fstr fw, psid;
		if (hwc_mlx_parse_ethtool_fw(res[j].out, res[j].out_len, a, &fw, &psid) == 0) {
			ad->fw_version = fw;
			HWC_SET(ad->fw_version_source,
				hwc_arena_printf(a, "ethtool -i %s", ad->netdevs.items[0]));
			if (!hwc_ok(ad->psid) && hwc_ok(psid))
				ad->psid = psid;
		}
	}
}

static int cmp_adapter(const void *x, const void *y)
{
	return strcmp(((const struct hwc_mlx_adapter *)x)->bdf,
		      ((const struct hwc_mlx_adapter *)y)->bdf);
}

/* Files a function under its card (the functions of one device number; a VF under its PF's). */
static int add_function(struct hwc_arena *a, struct hwc_mlx_facts *mf, struct hwc_mlx_strv *keys,
			const struct hwc_mlx_function *fn)
{
	if (is_bridge(fn))
		return 0; /* the switch inside a card is on the PCI path; pci/ reports it */
	const char *key = slot_of(a, hwc_ok(fn->physfn) ? fn->physfn.v : fn->bdf);
	size_t k = 0;
	while (k < keys->n && strcmp(keys->items[k], key) != 0)
		k++;
	if (k == keys->n) {
		struct hwc_mlx_adapter *nad = HWC_VEC_PUSH(a, &mf->adapters);
		if (!nad)
			return -ENOMEM;
		strv_push(a, keys, key);
	}
	struct hwc_mlx_function *slot = HWC_VEC_PUSH(a, &mf->adapters.items[k].function_map);
	if (!slot)
		return -ENOMEM;
	*slot = *fn;
	return 0;
}

/* --pci-dump with no sysfs under the root (a dump given alone is the machine under test): the
 * dump's ConnectX functions are the cards; what only sysfs and the tools know stays unknown. */
static int functions_from_dump(const struct hwc_facts *f, struct hwc_arena *a,
			       struct hwc_mlx_facts *mf, struct hwc_mlx_strv *keys)
{
	const char *only = "an lspci dump holds config space only";
	for (size_t i = 0; i < f->pci->devices.n; i++) {
		const struct hwc_pci_device *d = &f->pci->devices.items[i];
		if (!hwc_ok(d->vendor_id) || strtoul(d->vendor_id.v, NULL, 16) != MLX_VENDOR)
			continue;
		struct hwc_mlx_function fn = {.bdf = d->bdf.v, .device_id = d->device_id,
					      .class_code = d->class_code,
					      .revision = hwc_ok(d->revision) ? d->revision.v : -1};
		const struct hwc_mlx_ident *ident =
			hwc_ok(d->device_id) ? hwc_mlx_ident_find((uint16_t)strtoul(d->device_id.v, NULL, 16))
					     : NULL;
		fn.is_vf = ident && ident->vf;
		HWC_FAIL(fn.driver, HWC_ST_ABSENT, 0, only);
		HWC_FAIL(fn.physfn, HWC_ST_ABSENT, 0, only);
		int rc = add_function(a, mf, keys, &fn);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool dump_without_sysfs(const struct hwc_facts *f, const struct hwc_collect_opts *o, int rc)
{
	return rc < 0 && o && o->pci_dump && f->pci && f->pci->m.st == HWC_ST_OK;
}

int hwc_mlx_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_arena *a = f->arena;
	struct hwc_mlx_facts *mf = HWC_FACTS_SECTION(f, mlx);
	if (!mf)
		return -ENOMEM;
	mf->tools_serial = o && o->serial_tools;
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, PCI_DEVS, a, &dl);
	struct hwc_mlx_strv keys = {0}; /* the slot of each adapter, parallel to adapters */
	if (dump_without_sysfs(f, o, rc)) {
		if ((rc = functions_from_dump(f, a, mf, &keys)) < 0)
			return rc;
	} else if (rc < 0) {
		hwc_env_fail(e, &mf->m, a, PCI_DEVS, -rc);
		mf->tools.access = mf->tools.mstflint_version.m = mf->m;
		return 0;
	}
	for (size_t i = 0; i < dl.n; i++) {
		struct hwc_fu64 ven = {0};
		const char *bdf = dl.names[i];
		if (hwc_read_hex(e, hwc_arena_printf(a, PCI_DEVS "/%s/vendor", bdf), a, &ven) < 0 ||
		    ven.v != MLX_VENDOR)
			continue;
		struct hwc_mlx_function fn = {.bdf = bdf};
		fill_function(e, a, &fn);
		if ((rc = add_function(a, mf, &keys, &fn)) < 0)
			return rc;
	}
	/* Names, lists and identity per card, then the -d filter. */
	size_t kept = 0;
	for (size_t i = 0; i < mf->adapters.n; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		for (size_t j = 0; j < ad->function_map.n; j++) {
			const struct hwc_mlx_function *fn = &ad->function_map.items[j];
			strv_push(a, &ad->functions, fn->bdf);
			if (!ad->bdf && !fn->is_vf)
				ad->bdf = fn->bdf;
			for (size_t k = 0; k < fn->netdevs.n; k++)
				strv_push(a, &ad->netdevs, fn->netdevs.items[k]);
			for (size_t k = 0; k < fn->rdma_devices.n; k++)
				strv_push(a, &ad->rdma_devices, fn->rdma_devices.items[k]);
		}
		if (!ad->bdf)
			ad->bdf = ad->function_map.items[0].bdf; /* a VF seen without its PF (VMs) */
		strv_sort(&ad->netdevs);
		strv_sort(&ad->rdma_devices);
		if (!adapter_matches(ad, o ? o->device : NULL))
			continue;
		mf->adapters.items[kept++] = *ad;
	}
	mf->adapters_seen = mf->adapters.n;
	mf->adapters.n = kept;
	if (kept > 1)
		qsort(mf->adapters.items, kept, sizeof(mf->adapters.items[0]), cmp_adapter);
	for (size_t i = 0; i < kept; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		fill_identity(ad, a);
		fill_ports(e, a, ad);
		fill_fw_sysfs(e, a, ad);
		HWC_FAIL(ad->serial_number, HWC_ST_UNSUPPORTED, 0,
			 "the serial number is in the PCI VPD (facts.pci.devices[].vpd)");
	}
	/* the counters first (sysfs; they say which functions must not be asked), then the far end's
	 * first round starts, to run while the cards' tools run */
	for (size_t i = 0; i < kept; i++)
		hwc_mlx_collect_port_counters(e, f, &mf->adapters.items[i]);
	hwc_mlx_start_peers(e, f, mf);
	if (o && o->ports_known)
		o->ports_known(e, f);
	run_ethtool(e, a, mf);
	for (size_t i = 0; i < kept; i++) {
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		if (!hwc_ok(ad->fw_version))
			ad->fw_version_source.m = ad->fw_version.m;
	}
	run_tools(e, a, mf);
	for (size_t i = 0; i < kept; i++) {
		hwc_mlx_collect_kernel_events(f, &mf->adapters.items[i]);
#define PART_COLLECT(m, T, doc_) hwc_mlx_collect_##m(e, f, ad, &ad->m);
		struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		(void)ad; /* when no part is registered */
		HWC_MLX_ADAPTER_PARTS(PART_COLLECT)
#undef PART_COLLECT
	}
	hwc_mlx_collect_phy(e, f, mf);
	hwc_mlx_collect_peers(e, f, mf);
	for (size_t i = 0; i < kept; i++)
		ib_mtu(&mf->adapters.items[i]);
	if (o && o->fw_image)
		run_fw_image(e, a, mf, o->fw_image);
	hwc_fmeta_set(&mf->m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Netdev tuning of ConnectX ports: MTU, speed, rings, channels, offloads, pause, loss counters
 * (ethtool, through hwinfo/ethtool_io.h) and IRQ locality; and their JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hwinfo/ethtool_io.h"
#include "core/json.h"

#define MLX_VENDOR 0x15b3

/* ------------------------------------------------------------------ field tables */

#define FI(s, m) HWC_JF(struct s, m, HWC_JT_I64)
#define FB(s, m) HWC_JF(struct s, m, HWC_JT_BOOL)
#define FS(s, m) HWC_JF(struct s, m, HWC_JT_STR)

static const struct hwc_jfield rings_f[] = {
	FI(hwc_netdev_rings, rx), FI(hwc_netdev_rings, rx_max),
	FI(hwc_netdev_rings, tx), FI(hwc_netdev_rings, tx_max),
};
static const struct hwc_jfield channels_f[] = {
	FI(hwc_netdev_channels, combined), FI(hwc_netdev_channels, combined_max),
	FI(hwc_netdev_channels, rx),       FI(hwc_netdev_channels, rx_max),
	FI(hwc_netdev_channels, tx),       FI(hwc_netdev_channels, tx_max),
};
static const struct hwc_jfield features_f[] = {
	FB(hwc_netdev_features, lro), FB(hwc_netdev_features, gro),
	FB(hwc_netdev_features, gro_hw), FB(hwc_netdev_features, tso),
	FB(hwc_netdev_features, gso), FB(hwc_netdev_features, rx_checksum),
	FB(hwc_netdev_features, tx_checksum),
};
static const struct hwc_jfield pause_f[] = {
	FB(hwc_netdev_pause, autoneg), FB(hwc_netdev_pause, rx), FB(hwc_netdev_pause, tx),
};
static const struct hwc_jfield irq_f[] = {
	HWC_JF(struct hwc_netdev_irq, irq, HWC_JT_KEY_I64),
	FS(hwc_netdev_irq, name), FS(hwc_netdev_irq, cpus), FB(hwc_netdev_irq, local),
};
static const struct hwc_jtable irq_t = HWC_JTABLE("netdevs[].irq_locality.irqs[]", irq_f, 0);
static const struct hwc_jfield locality_f[] = {
	FI(hwc_netdev_irq_locality, numa_node), FS(hwc_netdev_irq_locality, local_cpulist),
	FI(hwc_netdev_irq_locality, vectors),   FI(hwc_netdev_irq_locality, outside_local),
	FI(hwc_netdev_irq_locality, affinity_unknown),
	HWC_JVEC(struct hwc_netdev_irq_locality, "irqs", irqs, struct hwc_netdev_irq, irq_t),
};
static const struct hwc_jfield drvinfo_f[] = {
	FS(hwc_netdev_drvinfo, driver), FS(hwc_netdev_drvinfo, version),
	FS(hwc_netdev_drvinfo, fw_version), FS(hwc_netdev_drvinfo, bus_info),
};
static const struct hwc_jfield counters_f[] = {
	HWC_JNAMED(struct hwc_netdev_counters, v, hwc_netdev_counter_names, HWC_NETDEV_NCOUNTERS),
	HWC_JFK(struct hwc_netdev_counters, "n_reported", count, HWC_JT_I64),
};
static const struct hwc_jfield counters_window_f[] = {
	HWC_JNAMED(struct hwc_netdev_counters_window, v, hwc_netdev_counter_names,
		   HWC_NETDEV_NCOUNTERS),
};
static const struct hwc_jtable rings_t = HWC_JTABLE("netdevs[].rings", rings_f, 0);
static const struct hwc_jtable channels_t = HWC_JTABLE("netdevs[].channels", channels_f, 0);
static const struct hwc_jtable features_t = HWC_JTABLE("netdevs[].features", features_f, 0);
static const struct hwc_jtable pause_t = HWC_JTABLE("netdevs[].pause", pause_f, 0);
static const struct hwc_jtable locality_t = HWC_JTABLE("netdevs[].irq_locality", locality_f, 0);
static const struct hwc_jtable drvinfo_t = HWC_JTABLE(NULL, drvinfo_f, 0);
static const struct hwc_jtable counters_t = HWC_JTABLE("netdevs[].counters", counters_f, 0);
static const struct hwc_jtable counters_window_t =
	HWC_JTABLE("netdevs[].counters_window", counters_window_f, 0);

#define SUB(m) HWC_JSUB(struct hwc_netdev, #m, m, HWC_JT_OBJ, m##_t)
static const struct hwc_jfield netdev_f[] = {
	HWC_JF(struct hwc_netdev, name, HWC_JT_KEY_STR),
	FS(hwc_netdev, bdf),        FS(hwc_netdev, driver),   FS(hwc_netdev, fw_version),
	FS(hwc_netdev, operstate),  FI(hwc_netdev, mtu),      FI(hwc_netdev, speed_mbps),
	FB(hwc_netdev, admin_up),   FB(hwc_netdev, carrier),
	SUB(rings), SUB(channels), SUB(features), SUB(pause),
	HWC_JSUB(struct hwc_netdev, "counters", counters, HWC_JT_OBJ, counters_t),
	HWC_JSUBD(struct hwc_netdev, "counters_window", counters_window, HWC_JT_GROUP,
		  counters_window_t,
		  "--watch: each counter's increase between the two samples (facts.watch.window_s apart), "
		  "the keys of counters but n_reported; null with the reason where a delta cannot be had "
		  "(a counter that went backwards was cleared); absent without --watch"),
	HWC_JSUB(struct hwc_netdev, "irq_locality", irq_locality, HWC_JT_OBJ, locality_t),
	HWC_JSUB(struct hwc_netdev, "link", link, HWC_JT_OBJ, hwc_netdev_link_table),
#define PART_F(m, T, kind_, doc_)                                                                  \
	HWC_JSUBD(struct hwc_netdev, #m, m, kind_, hwc_netdev_##m##_table, doc_),
	HWC_NETDEV_PARTS(PART_F)
#undef PART_F
};
#undef SUB
/* One element of facts.netdevs (the section is an array). */
const struct hwc_jtable hwc_netdev_table = HWC_JTABLE("netdevs[]", netdev_f, 0);

/* ------------------------------------------------------------------ collection */

/* -d accepts a netdev name, a BDF (with or without the 0000: domain) or an RDMA device. */
struct filter {
	const char *name;
	const char *bdf;
};

static void filter_init(struct hwc_env *e, struct hwc_arena *a, const char *dev,
			struct filter *flt)
{
	flt->name = dev;
	flt->bdf = NULL;
	if (!dev)
		return;
	if (strchr(dev, ':'))
		flt->bdf = strchr(dev, ':') == strrchr(dev, ':') ? hwc_arena_printf(a, "0000:%s", dev)
								   : dev;
	else if (!strchr(dev, '/')) {
		const char *real = NULL;
		if (hwc_env_realpath(e, hwc_arena_printf(a, "sys/class/infiniband/%s/device", dev),
				     a, &real) == 0) {
			const char *sl = strrchr(real, '/');
			flt->bdf = sl ? sl + 1 : real;
		}
	}
}

static bool filter_match(const struct filter *flt, const char *name, const char *bdf)
{
	if (!flt->name)
		return true;
	return strcmp(flt->name, name) == 0 || (flt->bdf && strcasecmp(flt->bdf, bdf) == 0);
}

/* One ethtool query's text; on failure every fact of the group (t over out) carries the reason
 * and NULL is returned. */
static const char *ethtool_text(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
				enum hwc_ethtool_query q, size_t *len, void *out,
				const struct hwc_jtable *t, struct hwc_fmeta *mo)
{
	const char *text = NULL;
	struct hwc_fmeta tmp, *mp = mo ? mo : &tmp, m;
	int rc = hwc_ethtool_get(e, a, ifname, q, &text, len, &m);
	*mp = m;
	if (rc < 0 && m.st != HWC_ST_TRUNCATED) {
		hwc_json_fail_table(out, t, &m);
		return NULL;
	}
	return text;
}

static void not_understood(struct hwc_facts *f, const char *src, enum hwc_ethtool_query q)
{
	hwc_facts_error(f, "netdevs", src, "output not understood (expected ethtool %s text)",
			hwc_ethtool_option(q));
}

static void speed_fact(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
		       struct hwc_fi64 *speed)
{
	const char *p = hwc_arena_printf(a, "sys/class/net/%s/speed", ifname);
	int rc = hwc_read_i64(e, p, a, speed);
	if (rc < 0 && speed->m.st == HWC_ST_UNREADABLE && speed->m.err == EINVAL)
		/* the kernel refuses the read while the interface is administratively down */
		speed->m.detail = hwc_arena_printf(a, "%s: Invalid argument (interface down)", p);
	else if (rc == 0 && speed->v < 0)
		/* SPEED_UNKNOWN (-1): no link, or the driver does not know */
		HWC_FAIL(*speed, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "%s is %lld: link down or speed unknown", p,
					  (long long)speed->v));
}

/* IFF_UP (include/uapi/linux/if.h) of the interface's flags, and its carrier. The kernel answers
 * EINVAL for carrier while the interface is not up (net/core/net-sysfs.c carrier_show): then the
 * carrier is unknown because the port was switched off, which admin_up already says. */
void hwc_netdev_admin_facts(struct hwc_env *e, struct hwc_arena *a, const char *net,
			    struct hwc_fbool *admin_up, struct hwc_fbool *carrier)
{
	struct hwc_fu64 flags = {0};
	if (hwc_read_hex(e, hwc_arena_printf(a, "%s/flags", net), a, &flags) == 0)
		HWC_SET(*admin_up, (flags.v & 0x1) != 0);
	else
		admin_up->m = flags.m;
	struct hwc_fi64 c = {0};
	const char *p = hwc_arena_printf(a, "%s/carrier", net);
	if (hwc_read_i64(e, p, a, &c) == 0 && (c.v == 0 || c.v == 1))
		HWC_SET(*carrier, c.v == 1);
	else if (hwc_ok(c))
		HWC_FAIL(*carrier, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%s: %lld is not 0 or 1", p, (long long)c.v));
	else if (c.m.st == HWC_ST_UNREADABLE && c.m.err == EINVAL)
		HWC_FAIL(*carrier, HWC_ST_UNSUPPORTED, EINVAL,
			 hwc_arena_printf(a, "%s: Invalid argument (interface administratively down)", p));
	else
		carrier->m = c.m;
}

void hwc_netdev_read_stats(struct hwc_env *e, struct hwc_facts *f, const char *ifname,
			   struct hwc_netdev_counters *out)
{
	struct hwc_arena *a = f->arena;
	struct hwc_fmeta sm;
	size_t len = 0;
	const char *text = ethtool_text(e, a, ifname, HWC_ETHTOOL_STATS, &len, out, &counters_t, &sm);
	const char *src = hwc_arena_printf(a, "ethtool -S %s", ifname);
	/* without text every counter already carries the reason */
	if (text && hwc_ethtool_parse_stats(text, len, src, a, out) < 0) {
		not_understood(f, src, HWC_ETHTOOL_STATS);
	} else if (text && sm.st == HWC_ST_TRUNCATED) {
		/* a counter past the cut is unknown, not missing from the driver */
		for (size_t i = 0; i < HWC_NETDEV_NCOUNTERS; i++)
			if (out->v[i].m.st == HWC_ST_ABSENT)
				out->v[i].m = sm;
		out->count.m = sm;
	}
}

static void collect_one(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd,
			const struct hwc_irq_names *names)
{
	struct hwc_arena *a = f->arena;
	const char *net = hwc_arena_printf(a, "sys/class/net/%s", nd->name);
	hwc_read_i64(e, hwc_arena_printf(a, "%s/mtu", net), a, &nd->mtu);
	speed_fact(e, a, nd->name, &nd->speed_mbps);
	hwc_read_str(e, hwc_arena_printf(a, "%s/operstate", net), a, &nd->operstate);
	hwc_netdev_admin_facts(e, a, net, &nd->admin_up, &nd->carrier);
#define PART_COLLECT(m, T, kind_, doc_) hwc_netdev_collect_##m(e, a, nd->name, &nd->m);
	HWC_NETDEV_PARTS(PART_COLLECT)
#undef PART_COLLECT
	hwc_read_link_name(e, hwc_arena_printf(a, "%s/device/driver", net), a, &nd->driver);

	size_t len = 0;
	const char *text, *src;
#define SRC(q) (src = hwc_arena_printf(a, "ethtool %s %s", hwc_ethtool_option(q), nd->name))
	text = ethtool_text(e, a, nd->name, HWC_ETHTOOL_RINGS, &len, &nd->rings, &rings_t, NULL);
	if (text && hwc_ethtool_parse_rings(text, len, SRC(HWC_ETHTOOL_RINGS), a, &nd->rings) < 0)
		not_understood(f, src, HWC_ETHTOOL_RINGS);
	text = ethtool_text(e, a, nd->name, HWC_ETHTOOL_CHANNELS, &len, &nd->channels,
			    &channels_t, NULL);
	if (text && hwc_ethtool_parse_channels(text, len, SRC(HWC_ETHTOOL_CHANNELS), a,
					       &nd->channels) < 0)
		not_understood(f, src, HWC_ETHTOOL_CHANNELS);
	text = ethtool_text(e, a, nd->name, HWC_ETHTOOL_FEATURES, &len, &nd->features,
			    &features_t, NULL);
	if (text && hwc_ethtool_parse_features(text, len, SRC(HWC_ETHTOOL_FEATURES), a,
					       &nd->features) < 0)
		not_understood(f, src, HWC_ETHTOOL_FEATURES);
	text = ethtool_text(e, a, nd->name, HWC_ETHTOOL_PAUSE, &len, &nd->pause, &pause_t, NULL);
	if (text && hwc_ethtool_parse_pause(text, len, SRC(HWC_ETHTOOL_PAUSE), a, &nd->pause) < 0)
		not_understood(f, src, HWC_ETHTOOL_PAUSE);
	hwc_netdev_read_stats(e, f, nd->name, &nd->counters);
	struct hwc_netdev_drvinfo di = {0};
	text = ethtool_text(e, a, nd->name, HWC_ETHTOOL_DRVINFO, &len, &di, &drvinfo_t, NULL);
	if (text && hwc_ethtool_parse_drvinfo(text, len, SRC(HWC_ETHTOOL_DRVINFO), a, &di) < 0)
		not_understood(f, src, HWC_ETHTOOL_DRVINFO);
#undef SRC
	nd->fw_version = di.fw_version;
	if (!hwc_ok(nd->driver) && hwc_ok(di.driver))
		nd->driver = di.driver;

	if (hwc_ok(nd->bdf))
		hwc_netdev_irq_locality(e, a, nd->bdf.v, names, &nd->irq_locality);
	else
		hwc_json_fail_table(&nd->irq_locality, &locality_t, &nd->bdf.m);
	hwc_netdev_collect_link(e, f, nd);
}

/* The ConnectX PCI function behind a netdev, or NULL (virtual device, other vendor). */
static const char *connectx_bdf(struct hwc_env *e, struct hwc_arena *a, const char *ifname)
{
	const char *real = NULL;
	if (hwc_env_realpath(e, hwc_arena_printf(a, "sys/class/net/%s/device", ifname), a,
			     &real) < 0)
		return NULL;
	struct hwc_fu64 vendor = {0};
	if (hwc_read_hex(e, hwc_arena_printf(a, "%s/vendor", real), a, &vendor) < 0 ||
	    vendor.v != MLX_VENDOR)
		return NULL;
	const char *sl = strrchr(real, '/');
	return sl ? sl + 1 : real;
}

int hwc_netdev_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_arena *a = f->arena;
	struct hwc_netdev_facts *nf = HWC_FACTS_SECTION(f, netdevs);
	if (!nf)
		return -ENOMEM;
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, "sys/class/net", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &nf->m, a, "sys/class/net", -rc);
		if (rc != -ENOENT)
			hwc_facts_error(f, "netdevs", "sys/class/net", "cannot list: %s",
					strerror(-rc));
		return 0;
	}
	hwc_fmeta_set(&nf->m, HWC_ST_OK, 0, NULL);
	struct filter flt;
	filter_init(e, a, o ? o->device : NULL, &flt);

	struct hwc_irq_names names = {0};
	bool names_read = false;
	for (size_t i = 0; i < dl.n; i++) {
		const char *bdf = connectx_bdf(e, a, dl.names[i]);
		if (!bdf || !filter_match(&flt, dl.names[i], bdf))
			continue;
		if (!names_read) {
			/* read once, only on a host with a ConnectX netdev */
			names_read = true;
			const unsigned char *d;
			size_t len;
			struct hwc_fmeta m;
			/* a cut file (thousands of CPUs) still names the vectors it holds */
			int rrc = hwc_read_bytes(e, "proc/interrupts", 16u << 20, a, &d, &len, &m);
			if ((rrc == 0 || m.st == HWC_ST_TRUNCATED) &&
			    hwc_proc_interrupts_parse((const char *)d, len, a, &names) < 0)
				hwc_facts_error(f, "netdevs", "proc/interrupts",
						"not understood (expected a CPU header line)");
		}
		struct hwc_netdev *nd = HWC_VEC_PUSH(a, &nf->netdevs);
		if (!nd)
			return -ENOMEM;
		nd->name = dl.names[i];
		HWC_SET(nd->bdf, bdf);
		collect_one(e, f, nd, &names);
	}
	hwc_lldp_collect(e, f, nf);
	return 0;
}

/* ------------------------------------------------------------------ JSON */

json_t *hwc_netdev_to_json(const struct hwc_facts *f)
{
	if (!f->netdevs)
		return json_array();
	return hwc_json_array_from_vec(&f->netdevs->netdevs, sizeof(struct hwc_netdev),
				       &hwc_netdev_table);
}

int hwc_netdev_from_json(const json_t *j, struct hwc_facts *f)
{
	if (!json_is_array(j))
		return -EINVAL;
	struct hwc_netdev_facts *nf = hwc_arena_zalloc(f->arena, sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	f->netdevs = nf;
	hwc_fmeta_set(&nf->m, HWC_ST_OK, 0, NULL);
	return hwc_json_array_to_vec(j, f->arena, &nf->netdevs, sizeof(struct hwc_netdev),
				     &hwc_netdev_table);
}

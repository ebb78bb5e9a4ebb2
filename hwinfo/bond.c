/* SPDX-License-Identifier: MIT */
/* Bond membership of a ConnectX netdev: the master it is enslaved to (the sysfs master link, read
 * as a link, never followed out of the root), the bond's mode, members, active member and own MTU
 * (drivers/net/bonding/bond_sysfs.c, bond_sysfs_slave.c; Documentation/networking/bonding.rst). */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"

#define FS(m) HWC_JF(struct hwc_netdev_bond, m, HWC_JT_STR)
static const struct hwc_jfield bond_f[] = {
	FS(name),
	FS(mode),
	HWC_JLIST_M(struct hwc_netdev_bond, "slaves", slaves, slaves_m, HWC_JT_STRV),
	FS(active_slave),
	HWC_JF(struct hwc_netdev_bond, mtu, HWC_JT_I64),
	FS(member_state),
	FS(operstate),
	HWC_JF(struct hwc_netdev_bond, admin_up, HWC_JT_BOOL),
	HWC_JF(struct hwc_netdev_bond, carrier, HWC_JT_BOOL),
};
#undef FS
const struct hwc_jtable hwc_netdev_bond_table = HWC_JTABLE("netdevs[].bond", bond_f, 0);

/* The members the bond lists ("eth01 eth02\n"), in its order. */
static void read_slaves(struct hwc_env *e, struct hwc_arena *a, const char *dir,
			struct hwc_netdev_bond *b)
{
	struct hwc_fstr s = {0};
	if (hwc_read_str(e, hwc_arena_printf(a, "%s/bonding/slaves", dir), a, &s) < 0) {
		b->slaves_m = s.m;
		return;
	}
	char *copy = hwc_arena_strdup(a, s.v);
	if (!copy) {
		hwc_fmeta_set(&b->slaves_m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
		return;
	}
	for (char *save = NULL, *t = strtok_r(copy, " \t\n", &save); t;
	     t = strtok_r(NULL, " \t\n", &save)) {
		const char **slot = HWC_VEC_PUSH(a, &b->slaves);
		if (!slot) {
			hwc_fmeta_set(&b->slaves_m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
			return;
		}
		*slot = t;
	}
	hwc_fmeta_set(&b->slaves_m, HWC_ST_OK, 0, NULL);
}

void hwc_bond_read_slaves(struct hwc_env *e, struct hwc_arena *a, const char *bond,
			  struct hwc_netdev_bond *b)
{
	read_slaves(e, a, hwc_arena_printf(a, "sys/class/net/%s", bond), b);
}

/* bonding/active_slave is empty when the mode has no active member (802.3ad, balance-*) or none
 * is up: known, but no name to give. */
static void read_active(struct hwc_env *e, struct hwc_arena *a, const char *dir,
			struct hwc_netdev_bond *b)
{
	const char *p = hwc_arena_printf(a, "%s/bonding/active_slave", dir);
	if (hwc_read_str(e, p, a, &b->active_slave) == 0 && !b->active_slave.v[0])
		HWC_FAIL(b->active_slave, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s is empty: the mode uses no active member, or none is up", p));
}

static bool plain_name(const char *s)
{
	return s[0] && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

void hwc_netdev_collect_bond(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
			     struct hwc_netdev_bond *b)
{
	const char *net = hwc_arena_printf(a, "sys/class/net/%s", ifname);
	const char *ml = hwc_arena_printf(a, "%s/master", net);
	if (hwc_read_link_name(e, ml, a, &b->name) < 0) {
		b->m = b->name.m;
		if (b->m.st == HWC_ST_ABSENT)
			b->m.detail = hwc_arena_printf(a, "%s: absent (not enslaved to a bond or bridge)", ml);
		return;
	}
	if (!plain_name(b->name.v)) {
		hwc_fmeta_set(&b->m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s: the link names no interface ('%s')", ml, b->name.v));
		return;
	}
	const char *dir = hwc_arena_printf(a, "sys/class/net/%s", b->name.v);
	struct hwc_fstr mode = {0};
	if (hwc_read_str(e, hwc_arena_printf(a, "%s/bonding/mode", dir), a, &mode) < 0 &&
	    mode.m.st == HWC_ST_ABSENT) {
		/* a bridge, team or OVS master has no bonding/ directory */
		hwc_fmeta_set(&b->m, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "%s is enslaved to %s, which is not a bond (no %s/bonding/mode)",
					       ifname, b->name.v, dir));
		return;
	}
	hwc_fmeta_set(&b->m, HWC_ST_OK, 0, NULL);
	b->mode = mode;
	read_slaves(e, a, dir, b);
	read_active(e, a, dir, b);
	hwc_read_i64(e, hwc_arena_printf(a, "%s/mtu", dir), a, &b->mtu);
	hwc_read_str(e, hwc_arena_printf(a, "%s/bonding_slave/state", net), a, &b->member_state);
	hwc_read_str(e, hwc_arena_printf(a, "%s/operstate", dir), a, &b->operstate);
	hwc_netdev_admin_facts(e, a, dir, &b->admin_up, &b->carrier);
}

/* SPDX-License-Identifier: MIT */
/* The transceiver of a netdev's port (issue 14): its EEPROM read with `ethtool -m` through the
 * runner (recorded and replayed like every tool), decoded by module_eeprom.c; and its JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"

#define EEPROM_MAX 640 /* ETH_MODULE_SFF_8636_MAX_LEN, the largest ioctl dump */

/* Why a run of ethtool -m gave no bytes: the runner's status, or the tool's complaint. */
static bool run_ok(const struct hwc_cmd_result *r, struct hwc_arena *a, const char *cmd, struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK) {
		*why = r->m;
		return false;
	}
	if (!r->signal && r->exit_code == 0)
		return true;
	size_t n = r->err ? strcspn(r->err, "\n") : 0;
	const char *msg = n ? hwc_arena_strndup(a, r->err, n) : "no message";
	enum hwc_status st = HWC_ST_UNREADABLE;
	if (strstr(msg, "not permitted"))
		st = HWC_ST_NEEDS_ROOT;
	else if (strstr(msg, "not supported"))
		st = HWC_ST_UNSUPPORTED; /* a VF or representor: no module behind it */
	hwc_fmeta_set(why, st, 0, hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code, msg));
	return false;
}

/* One netlink page (`page P [offset 128] hex on`): 128 bytes at the expected offset. */
static const uint8_t *page_bytes(struct hwc_arena *a, const struct hwc_cmd_result *r, size_t want_base)
{
	uint8_t tmp[128];
	size_t base, n;
	if (r->m.st != HWC_ST_OK || r->exit_code || r->signal ||
	    hwc_module_parse_hex(r->out, r->out_len, tmp, sizeof(tmp), &base, &n) < 0 || base != want_base || n != 128)
		return NULL;
	uint8_t *p = hwc_arena_calloc(a, 1, 128);
	if (p)
		memcpy(p, tmp, 128);
	return p;
}

/* CMIS over netlink: the lower page, then upper 00h, 01h, 02h and 11h (bank 0) at once. */
static int collect_cmis(struct hwc_env *e, struct hwc_arena *a, const char *ifn, struct hwc_module_map *mp,
			struct hwc_fmeta *why)
{
	const char *const lower[] = {"ethtool", "-m", ifn, "page", "0", "hex", "on", NULL};
	struct hwc_cmd_result r;
	hwc_run(e, a, lower, 0, &r);
	if (!run_ok(&r, a, hwc_argv_str(a, lower), why))
		return -ENOENT;
	mp->lower = page_bytes(a, &r, 0);
	if (!mp->lower) {
		hwc_fmeta_set(why, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not a 128-byte hex dump", hwc_argv_str(a, lower)));
		return -EINVAL;
	}
	if (hwc_module_spec_of(mp->lower[0]) != HWC_MODULE_CMIS)
		return 0;
	static const char *const pages[] = {"0", "1", "2", "17"};
	static const size_t idx[] = {0, 1, 2, 0x11};
	const char *argv[4][10];
	struct hwc_cmd cmds[4];
	struct hwc_cmd_result res[4];
	for (size_t i = 0; i < 4; i++) {
		const char *v[] = {"ethtool", "-m", ifn, "page", pages[i], "offset", "128", "hex", "on", NULL};
		memcpy(argv[i], v, sizeof(v));
		if (i) /* page N defaults to offset 128 */
			argv[i][5] = "hex", argv[i][6] = "on", argv[i][7] = NULL;
		cmds[i] = (struct hwc_cmd){argv[i], 0};
	}
	hwc_run_many(e, a, 4, cmds, res);
	for (size_t i = 0; i < 4; i++)
		mp->upper[idx[i]] = page_bytes(a, &res[i], 128);
	return 0;
}

const char *const *hwc_module_argv(struct hwc_arena *a, const char *ifn)
{
	const char **v = hwc_arena_calloc(a, 6, sizeof(*v));
	if (v)
		v[0] = "ethtool", v[1] = "-m", v[2] = ifn, v[3] = "hex", v[4] = "on";
	return v;
}

void hwc_module_collect(struct hwc_env *e, struct hwc_facts *f, const char *ifn, struct hwc_module *m)
{
	struct hwc_arena *a = f->arena;
	const char *const *ioctl_argv = hwc_module_argv(a, ifn);
	if (!ioctl_argv) {
		HWC_FAIL(m->source, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
		return;
	}
	const char *src = hwc_argv_str(a, ioctl_argv);
	struct hwc_cmd_result r;
	struct hwc_fmeta why;
	struct hwc_module_map mp;
	memset(&mp, 0, sizeof(mp));
	hwc_run(e, a, ioctl_argv, 0, &r);
	bool ok = run_ok(&r, a, src, &why);
	uint8_t *buf = hwc_arena_calloc(a, 1, EEPROM_MAX);
	size_t base = 0, n = 0;
	if (ok && buf && (hwc_module_parse_hex(r.out, r.out_len, buf, EEPROM_MAX, &base, &n) < 0 || base)) {
		hwc_facts_error(f, "netdevs", src, "output not understood (expected ethtool's hex dump from offset 0)");
		hwc_fmeta_set(&why, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not a hex dump from offset 0", src));
		ok = false;
	}
	if (ok)
		hwc_module_map_linear(buf, n, &mp);
	/* mlx5's ioctl refuses CMIS modules (Invalid argument): their pages come over netlink */
	if (!ok || (mp.lower && hwc_module_spec_of(mp.lower[0]) == HWC_MODULE_CMIS)) {
		struct hwc_fmeta why2;
		if (why.st == HWC_ST_NEEDS_ROOT || why.st == HWC_ST_ABSENT || why.st == HWC_ST_BLOCKED ||
		    why.st == HWC_ST_TIMEOUT)
			goto fail; /* the same answer again: not worth the time */
		memset(&mp, 0, sizeof(mp));
		if (collect_cmis(e, a, ifn, &mp, &why2) < 0)
			goto fail;
		src = hwc_arena_printf(a, "ethtool -m %s page 0|1|2|17 hex on", ifn);
	}
	HWC_SET(m->source, src);
	hwc_module_decode(&mp, a, m);
	return;
fail:
	hwc_module_fail(m, &why);
	HWC_FAIL(m->source, why.st, why.err, why.detail);
}

/* ------------------------------------------------------------------ JSON */

/* set together, all four, whenever the thresholds were read */
static const struct hwc_jfield thr_f[] = {
	HWC_JFF(struct hwc_module_thr, "high_alarm", high_alarm, HWC_JT_F64, HWC_JF_ALWAYS),
	HWC_JFF(struct hwc_module_thr, "low_alarm", low_alarm, HWC_JT_F64, HWC_JF_ALWAYS),
	HWC_JFF(struct hwc_module_thr, "high_warning", high_warning, HWC_JT_F64, HWC_JF_ALWAYS),
	HWC_JFF(struct hwc_module_thr, "low_warning", low_warning, HWC_JT_F64, HWC_JF_ALWAYS),
};
static const struct hwc_jtable thr_t = HWC_JTABLE("netdevs[].link.module.thresholds.*", thr_f, 0);

/* thresholds: one object per reading, null + why when the module's page was not read */
#define THR(key_, k) {.key = key_, .t = HWC_JT_GROUP, .off = (k) * sizeof(struct hwc_module_thr), .sub = &thr_t}
static const struct hwc_jfield thrs_f[] = {
	THR("temperature_c", HWC_MOD_TEMP), THR("voltage_v", HWC_MOD_VCC), THR("tx_bias_ma", HWC_MOD_BIAS),
	THR("tx_power_mw", HWC_MOD_TXP), THR("rx_power_mw", HWC_MOD_RXP),
};
#undef THR
static const struct hwc_jtable thrs_t = HWC_JTABLE("netdevs[].link.module.thresholds", thrs_f, 0);

#define S(member) HWC_JF(struct hwc_module, member, HWC_JT_STR)
#define LANES(member) HWC_JLIST_M(struct hwc_module, #member, member.v, member.m, HWC_JT_F64V)
static const struct hwc_jfield module_f[] = {
	S(source), S(spec), S(identifier), S(vendor), S(vendor_oui), S(part_number), S(revision),
	S(serial_number), S(date_code), S(connector), S(media), S(compliance_codes),
	HWC_JF(struct hwc_module, length_m, HWC_JT_F64),
	HWC_JF(struct hwc_module, nominal_mbd, HWC_JT_F64),
	HWC_JF(struct hwc_module, lanes, HWC_JT_I64),
	HWC_JF(struct hwc_module, ddm, HWC_JT_BOOL),
	HWC_JF(struct hwc_module, temperature_c, HWC_JT_F64),
	HWC_JF(struct hwc_module, voltage_v, HWC_JT_F64),
	LANES(tx_bias_ma), LANES(tx_power_mw), LANES(rx_power_mw),
	HWC_JSUB(struct hwc_module, "thresholds", thr, HWC_JT_OBJ, thrs_t),
	HWC_JLIST_M(struct hwc_module, "flags", flags.v, flags.m, HWC_JT_STRV),
};
#undef S
#undef LANES
const struct hwc_jtable hwc_module_table = HWC_JTABLE("netdevs[].link.module", module_f, 0);

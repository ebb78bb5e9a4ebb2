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

/* The netlink reads of a CMIS module: the lower page (`page 0 hex on`), then upper 00h, 01h, 02h
 * and 11h of bank 0 (`page N [offset 128] hex on`; page N defaults to offset 128). */
#define NUPPER 4
static const char *const upper_pages[NUPPER] = {"0", "1", "2", "17"};
static const size_t upper_idx[NUPPER] = {0, 1, 2, 0x11};

static const char *const *lower_argv(struct hwc_arena *a, const char *ifn)
{
	const char **v = hwc_arena_calloc(a, 8, sizeof(*v));
	if (v)
		v[0] = "ethtool", v[1] = "-m", v[2] = ifn, v[3] = "page", v[4] = "0", v[5] = "hex", v[6] = "on";
	return v;
}

static bool upper_cmds(struct hwc_arena *a, const char *ifn, struct hwc_cmd out[NUPPER])
{
	for (size_t i = 0; i < NUPPER; i++) {
		const char **v = hwc_arena_calloc(a, 10, sizeof(*v));
		if (!v)
			return false;
		v[0] = "ethtool", v[1] = "-m", v[2] = ifn, v[3] = "page", v[4] = upper_pages[i];
		size_t k = 5;
		if (i == 0)
			v[k++] = "offset", v[k++] = "128";
		v[k++] = "hex", v[k] = "on";
		out[i] = (struct hwc_cmd){v, 0};
	}
	return true;
}

static int collect_cmis(struct hwc_env *e, struct hwc_arena *a, const char *ifn, struct hwc_module_map *mp,
			struct hwc_fmeta *why)
{
	const char *const *lower = lower_argv(a, ifn);
	struct hwc_cmd_result r;
	struct hwc_cmd cmds[NUPPER];
	struct hwc_cmd_result res[NUPPER];
	if (!lower) {
		hwc_fmeta_set(why, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
		return -ENOMEM;
	}
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
	if (!upper_cmds(a, ifn, cmds))
		return 0; /* out of memory: the pages stay absent */
	hwc_run_many(e, a, NUPPER, cmds, res);
	for (size_t i = 0; i < NUPPER; i++)
		mp->upper[upper_idx[i]] = page_bytes(a, &res[i], 128);
	return 0;
}

const char *const *hwc_module_argv(struct hwc_arena *a, const char *ifn)
{
	const char **v = hwc_arena_calloc(a, 6, sizeof(*v));
	if (v)
		v[0] = "ethtool", v[1] = "-m", v[2] = ifn, v[3] = "hex", v[4] = "on";
	return v;
}

/* The ioctl dump of `ethtool -m IF hex on` mapped into mp; false (why set) when unusable. bad:
 * the tool answered, but not with a hex dump from offset 0. */
static bool ioctl_dump(struct hwc_arena *a, const struct hwc_cmd_result *r, const char *src, struct hwc_module_map *mp,
		       struct hwc_fmeta *why, bool *bad)
{
	*bad = false;
	memset(mp, 0, sizeof(*mp));
	if (!run_ok(r, a, src, why))
		return false;
	uint8_t *buf = hwc_arena_calloc(a, 1, EEPROM_MAX);
	size_t base = 0, n = 0;
	if (buf && (hwc_module_parse_hex(r->out, r->out_len, buf, EEPROM_MAX, &base, &n) < 0 || base)) {
		*bad = true;
		hwc_fmeta_set(why, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not a hex dump from offset 0", src));
		return false;
	}
	if (buf)
		hwc_module_map_linear(buf, n, mp);
	return true;
}

/* mlx5's ioctl refuses CMIS modules (Invalid argument): their pages come over netlink. Not worth
 * asking again when the answer would be the same (root, no tool, --no-tools, its timeout). */
static bool pages_next(bool ok, const struct hwc_module_map *mp, enum hwc_status st)
{
	if (ok)
		return mp->lower && hwc_module_spec_of(mp->lower[0]) == HWC_MODULE_CMIS;
	return st != HWC_ST_NEEDS_ROOT && st != HWC_ST_ABSENT && st != HWC_ST_BLOCKED && st != HWC_ST_TIMEOUT;
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
	struct hwc_fmeta why = {0};
	struct hwc_module_map mp;
	bool bad;
	hwc_run(e, a, ioctl_argv, 0, &r);
	bool ok = ioctl_dump(a, &r, src, &mp, &why, &bad);
	if (bad)
		hwc_facts_error(f, "netdevs", src, "output not understood (expected ethtool's hex dump from offset 0)");
	if (!ok || pages_next(ok, &mp, why.st)) {
		struct hwc_fmeta why2;
		if (!pages_next(ok, &mp, why.st))
			goto fail;
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

/* Which of the n ports' started `ethtool -m IF hex on` calls for the pages next: a wave of lower
 * pages for those, then a wave of upper pages for the CMIS ones, each started at once. */
void hwc_module_start_pages(struct hwc_env *e, struct hwc_arena *a, const char *const *ifn, size_t n)
{
	struct hwc_cmd *lower = hwc_arena_calloc(a, n ? n : 1, sizeof(*lower));
	struct hwc_cmd *upper = hwc_arena_calloc(a, n ? n * NUPPER : 1, sizeof(*upper));
	const char **who = hwc_arena_calloc(a, n ? n : 1, sizeof(*who));
	size_t nl = 0, nu = 0;
	if (!lower || !upper || !who)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *const *argv = hwc_module_argv(a, ifn[i]);
		struct hwc_cmd_result r;
		struct hwc_module_map mp;
		struct hwc_fmeta why = {0};
		bool bad;
		if (!argv || hwc_run_peek(e, a, argv, &r) < 0)
			continue;
		bool ok = ioctl_dump(a, &r, hwc_argv_str(a, argv), &mp, &why, &bad);
		if (pages_next(ok, &mp, why.st) && (lower[nl].argv = lower_argv(a, ifn[i])))
			who[nl++] = ifn[i];
	}
	hwc_run_start(e, a, nl, lower);
	for (size_t i = 0; i < nl; i++) {
		struct hwc_cmd_result r;
		const uint8_t *lo = hwc_run_peek(e, a, lower[i].argv, &r) == 0 ? page_bytes(a, &r, 0) : NULL;
		if (lo && hwc_module_spec_of(lo[0]) == HWC_MODULE_CMIS && upper_cmds(a, who[i], upper + nu))
			nu += NUPPER;
	}
	hwc_run_start(e, a, nu, upper);
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
	HWC_JF(struct hwc_module, max_gbps, HWC_JT_F64),
	S(rate_basis),
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

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

void hwc_module_collect(struct hwc_env *e, struct hwc_facts *f, const char *ifn, struct hwc_module *m)
{
	struct hwc_arena *a = f->arena;
	const char *const ioctl_argv[] = {"ethtool", "-m", ifn, "hex", "on", NULL};
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

static const char *const thr_keys[HWC_MOD__N] = {"temperature_c", "voltage_v", "tx_bias_ma", "tx_power_mw",
						  "rx_power_mw"};

#define MSTR(X) X(spec) X(identifier) X(vendor) X(vendor_oui) X(part_number) X(revision) \
	X(serial_number) X(date_code) X(connector) X(media) X(compliance_codes)

static void put_lanes(json_t *o, const char *key, const struct hwc_module_lanes *l)
{
	if (l->m.st != HWC_ST_OK) {
		hwc_json_set_before_unavail(o, key, json_null());
		hwc_json_put_meta(o, key, &l->m);
		return;
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < l->n; i++)
		json_array_append_new(arr, json_real(l->v[i]));
	hwc_json_set_before_unavail(o, key, arr);
}

static json_t *thresholds_json(const struct hwc_module *m)
{
	json_t *t = json_object();
	for (int k = 0; t && k < HWC_MOD__N; k++) {
		const struct hwc_module_thr *h = &m->thr[k];
		if (h->m.st != HWC_ST_OK) {
			hwc_json_set_before_unavail(t, thr_keys[k], json_null());
			hwc_json_put_meta(t, thr_keys[k], &h->m);
			continue;
		}
		hwc_json_set_before_unavail(t, thr_keys[k],
					    json_pack("{sfsfsfsf}", "high_alarm", h->high_alarm, "low_alarm", h->low_alarm,
						      "high_warning", h->high_warning, "low_warning", h->low_warning));
	}
	return t;
}

json_t *hwc_module_json(const struct hwc_module *m)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	hwc_json_put_str(o, "source", &m->source);
#define PUT(k) hwc_json_put_str(o, #k, &m->k);
	MSTR(PUT)
#undef PUT
	hwc_json_put_f64(o, "length_m", &m->length_m);
	hwc_json_put_f64(o, "nominal_mbd", &m->nominal_mbd);
	hwc_json_put_i64(o, "lanes", &m->lanes);
	hwc_json_put_bool(o, "ddm", &m->ddm);
	hwc_json_put_f64(o, "temperature_c", &m->temperature_c);
	hwc_json_put_f64(o, "voltage_v", &m->voltage_v);
	put_lanes(o, "tx_bias_ma", &m->tx_bias_ma);
	put_lanes(o, "tx_power_mw", &m->tx_power_mw);
	put_lanes(o, "rx_power_mw", &m->rx_power_mw);
	hwc_json_set_before_unavail(o, "thresholds", thresholds_json(m));
	if (m->flags.m.st != HWC_ST_OK) {
		hwc_json_set_before_unavail(o, "flags", json_null());
		hwc_json_put_meta(o, "flags", &m->flags.m);
	} else {
		json_t *fl = json_array();
		for (size_t i = 0; fl && i < m->flags.n; i++)
			json_array_append_new(fl, json_string(m->flags.items[i]));
		hwc_json_set_before_unavail(o, "flags", fl);
	}
	return o;
}

static int get_lanes(const json_t *o, const char *key, struct hwc_arena *a, struct hwc_module_lanes *l)
{
	const json_t *arr = json_object_get(o, key);
	if (!json_is_array(arr))
		return hwc_json_get_meta(o, key, a, &l->m);
	size_t i;
	const json_t *x;
	l->n = 0;
	json_array_foreach(arr, i, x) {
		if (!json_is_number(x) || l->n == HWC_MODULE_LANES)
			return -EINVAL;
		l->v[l->n++] = json_number_value(x);
	}
	hwc_fmeta_set(&l->m, HWC_ST_OK, 0, NULL);
	return 0;
}

static int get_thresholds(const json_t *t, struct hwc_arena *a, struct hwc_module *m)
{
	if (!json_is_object(t))
		return t ? -EINVAL : 0;
	for (int k = 0; k < HWC_MOD__N; k++) {
		struct hwc_module_thr *h = &m->thr[k];
		const json_t *v = json_object_get(t, thr_keys[k]);
		if (!json_is_object(v)) {
			if (hwc_json_get_meta(t, thr_keys[k], a, &h->m) < 0)
				return -EINVAL;
			continue;
		}
		if (json_unpack((json_t *)v, "{sFsFsFsF}", "high_alarm", &h->high_alarm, "low_alarm", &h->low_alarm,
				"high_warning", &h->high_warning, "low_warning", &h->low_warning) < 0)
			return -EINVAL;
		hwc_fmeta_set(&h->m, HWC_ST_OK, 0, NULL);
	}
	return 0;
}

static int get_flags(const json_t *o, struct hwc_arena *a, struct hwc_module *m)
{
	const json_t *fl = json_object_get(o, "flags");
	if (!json_is_array(fl))
		return hwc_json_get_meta(o, "flags", a, &m->flags.m);
	m->flags.n = 0;
	m->flags.items = hwc_arena_calloc(a, 1, (json_array_size(fl) + 1) * sizeof(*m->flags.items));
	if (!m->flags.items)
		return -ENOMEM;
	size_t i;
	const json_t *x;
	json_array_foreach(fl, i, x) {
		if (!json_is_string(x))
			return -EINVAL;
		m->flags.items[m->flags.n++] = hwc_arena_strdup(a, json_string_value(x));
	}
	hwc_fmeta_set(&m->flags.m, HWC_ST_OK, 0, NULL);
	return 0;
}

int hwc_module_from_json(const json_t *o, struct hwc_arena *a, struct hwc_module *m)
{
	if (!o)
		return 0; /* an older facts file: not collected */
	if (!json_is_object(o))
		return -EINVAL;
	int rc = hwc_json_get_str(o, "source", a, &m->source);
#define GET(k) rc |= hwc_json_get_str(o, #k, a, &m->k);
	MSTR(GET)
#undef GET
	rc |= hwc_json_get_f64(o, "length_m", a, &m->length_m);
	rc |= hwc_json_get_f64(o, "nominal_mbd", a, &m->nominal_mbd);
	rc |= hwc_json_get_i64(o, "lanes", a, &m->lanes);
	rc |= hwc_json_get_bool(o, "ddm", a, &m->ddm);
	rc |= hwc_json_get_f64(o, "temperature_c", a, &m->temperature_c);
	rc |= hwc_json_get_f64(o, "voltage_v", a, &m->voltage_v);
	rc |= get_lanes(o, "tx_bias_ma", a, &m->tx_bias_ma);
	rc |= get_lanes(o, "tx_power_mw", a, &m->tx_power_mw);
	rc |= get_lanes(o, "rx_power_mw", a, &m->rx_power_mw);
	rc |= get_thresholds(json_object_get(o, "thresholds"), a, m);
	rc |= get_flags(o, a, m);
	return rc ? -EINVAL : 0;
}

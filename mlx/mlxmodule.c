/* SPDX-License-Identifier: MIT */
/* The transceiver or cable of a port as mstlink reports it (issue 14): identity (vendor, part
 * number, serial, type, length) and diagnostics with the module's own threshold ranges, from the
 * "Module Info" block of `mstlink -d BDF -m -c`; and its JSON. */
#include "mlx/mlx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

static int put_reading(json_t *o, const struct hwc_jfield *f, const void *p);
static int get_reading(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p);
static int put_flags(json_t *o, const struct hwc_jfield *f, const void *p);

/* facts.mlx.adapters[].ports[].module, each value with the name mstlink prints for it; a
 * diagnostic (CUSTOM) is the value per lane under its key and the range under key_range. */
#define M(txt, j, k, f) {.key = j, .t = k, .off = offsetof(struct hwc_mlx_module, f), .src = txt}
#define R(txt, j, f)                                                                               \
	{.key = j, .t = HWC_JT_CUSTOM, .off = offsetof(struct hwc_mlx_module, f),                   \
	 .put = put_reading, .get = get_reading, .src = txt}
/* a flag per lane (0/1, no range): the array alone under key */
#define FL(txt, j, f)                                                                              \
	{.key = j, .t = HWC_JT_CUSTOM, .off = offsetof(struct hwc_mlx_module, f),                   \
	 .put = put_flags, .get = get_reading, .src = txt}
static const struct hwc_jfield mkeys[] = {
	M("Identifier", "identifier", HWC_JT_STR, identifier),
	M("Compliance", "compliance", HWC_JT_STR, compliance),
	M("Cable Type", "cable_type", HWC_JT_STR, cable_type),
	M("Vendor Name", "vendor", HWC_JT_STR, vendor),
	M("Vendor Part Number", "part_number", HWC_JT_STR, part_number),
	M("Vendor Serial Number", "serial_number", HWC_JT_STR, serial_number),
	M("FW Version", "fw_version", HWC_JT_STR, fw_version),
	M("Digital Diagnostic Monitoring", "ddm", HWC_JT_STR, ddm),
	M("Transfer Distance [m]", "length_m", HWC_JT_F64, length_m),
	R("Temperature [C]", "temperature_c", temperature_c),
	R("Voltage [mV]", "voltage_mv", voltage_mv),
	R("Bias Current [mA]", "bias_ma", bias_ma),
	R("Rx Power Current [dBm]", "rx_power_dbm", rx_power_dbm),
	R("Tx Power Current [dBm]", "tx_power_dbm", tx_power_dbm),
	FL("Rx LOS [per lane]", "rx_los", rx_los),
};
#undef M
#undef R
#undef FL
const struct hwc_jtable hwc_mlx_module_table =
	HWC_JTABLE("mlx.adapters[].ports[].module", mkeys, 0);
#define NM HWC_ARRAY_SIZE(mkeys)

static struct hwc_fmeta *mmeta(struct hwc_mlx_module *m, size_t i)
{
	return (struct hwc_fmeta *)(void *)((char *)m + mkeys[i].off);
}

void hwc_mlx_module_fail(struct hwc_mlx_module *mod, const struct hwc_fmeta *m)
{
	for (size_t i = 0; i < NM; i++)
		*mmeta(mod, i) = *m;
}

/* "v1,v2 [lo..hi]" */
static int reading(const char *v, size_t n, struct hwc_mlx_reading *r)
{
	const char *br = memchr(v, '[', n);
	size_t vn = br ? (size_t)(br - v) : n;
	while (vn && v[vn - 1] == ' ')
		vn--;
	r->n = 0;
	for (size_t i = 0; i < vn;) {
		const char *c = memchr(v + i, ',', vn - i);
		size_t k = c ? (size_t)(c - (v + i)) : vn - i;
		if (r->n == HWC_MLX_MAX_LANES || !hwc_mlx_text_double(v + i, k, &r->v[r->n]))
			return -EINVAL;
		r->n++;
		i += k + 1;
	}
	if (!r->n)
		return -EINVAL;
	r->has_range = false;
	if (br) {
		const char *end = memchr(br, ']', n - (size_t)(br - v));
		const char *dots = end ? memmem(br, (size_t)(end - br), "..", 2) : NULL;
		if (!dots || !hwc_mlx_text_double(br + 1, (size_t)(dots - br - 1), &r->lo) ||
		    !hwc_mlx_text_double(dots + 2, (size_t)(end - dots - 2), &r->hi))
			return -EINVAL;
		r->has_range = true;
	}
	return 0;
}

/* a flag line: one 0 or 1 per lane and no range */
static bool flags_ok(const struct hwc_mlx_reading *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i] != 0 && r->v[i] != 1)
			return false;
	return !r->has_range;
}

static void set_field(struct hwc_mlx_module *m, size_t i, const char *v, size_t n, struct hwc_arena *a)
{
	void *f = (char *)m + mkeys[i].off;
	if (n >= 3 && strncmp(v, "N/A", 3) == 0) {
		hwc_fmeta_set(mmeta(m, i), HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "mstlink: %s: N/A (no such data in this module)", mkeys[i].src));
		return;
	}
	const char *bad = hwc_arena_printf(a, "mstlink: %s: '%.*s' not understood", mkeys[i].src,
					   (int)(n > 48 ? 48 : n), v);
	double d;
	switch (mkeys[i].t) {
	case HWC_JT_STR:
		HWC_SET(*(struct hwc_fstr *)f, hwc_arena_strndup(a, v, n));
		break;
	case HWC_JT_F64:
		if (hwc_mlx_text_double(v, n, &d))
			HWC_SET(*(struct hwc_ff64 *)f, d);
		else
			hwc_fmeta_set(mmeta(m, i), HWC_ST_INVALID, 0, bad);
		break;
	default:
		if (reading(v, n, f) == 0 && (mkeys[i].put != put_flags || flags_ok(f)))
			hwc_fmeta_set(mmeta(m, i), HWC_ST_OK, 0, NULL);
		else
			hwc_fmeta_set(mmeta(m, i), HWC_ST_INVALID, 0, bad);
		break;
	}
}

int hwc_mlx_parse_module(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_module *out)
{
	struct hwc_fmeta none = {HWC_ST_ABSENT, 0, "mstlink printed no Module Info"};
	hwc_mlx_module_fail(out, &none);
	const char *start = len ? memmem(buf, len, "Module Info", 11) : NULL;
	if (!start)
		return -ENOENT;
	for (size_t i = 0; i < NM; i++) /* each names the line it lacks */
		hwc_fmeta_set(mmeta(out, i), HWC_ST_ABSENT, 0,
			      hwc_arena_printf(a, "mstlink's Module Info has no '%s' line", mkeys[i].src));
	size_t pos = (size_t)(start - buf);
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		const char *c = memchr(l, ':', n);
		if (!c) {
			if (n >= 4 && memcmp(l, "Phys", 4) == 0)
				break; /* the next block ("Physical Counters and BER Info") */
			continue;
		}
		size_t kn = (size_t)(c - l), vn = n - kn - 1;
		const char *v = c + 1;
		while (kn && (l[kn - 1] == ' ' || l[kn - 1] == '\t'))
			kn--;
		while (vn && (*v == ' ' || *v == '\t'))
			v++, vn--;
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\r'))
			vn--;
		for (size_t i = 0; i < NM; i++)
			if (kn == strlen(mkeys[i].src) && memcmp(l, mkeys[i].src, kn) == 0 &&
			    mmeta(out, i)->st == HWC_ST_ABSENT)
				set_field(out, i, v, vn, a);
	}
	return 0;
}

/* ------------------------------------------------------------------ JSON */

static int put_reading(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const char *key = f->key;
	const struct hwc_mlx_reading *r = p;
	char rk[64];
	snprintf(rk, sizeof(rk), "%s_range", key);
	if (r->m.st != HWC_ST_OK) {
		hwc_json_set_before_unavail(o, key, json_null());
		hwc_json_set_before_unavail(o, rk, json_null());
		return hwc_json_put_meta(o, key, &r->m);
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, json_real(r->v[i]));
	hwc_json_set_before_unavail(o, key, arr);
	hwc_json_set_before_unavail(o, rk, r->has_range ? json_pack("[ff]", r->lo, r->hi) : json_null());
	return 0;
}

static int put_flags(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const struct hwc_mlx_reading *r = p;
	if (r->m.st != HWC_ST_OK) {
		hwc_json_set_before_unavail(o, f->key, json_null());
		return hwc_json_put_meta(o, f->key, &r->m);
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, json_integer((json_int_t)r->v[i]));
	hwc_json_set_before_unavail(o, f->key, arr);
	return 0;
}

static int get_reading(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	const char *key = f->key;
	struct hwc_mlx_reading *r = p;
	const json_t *arr = json_object_get(o, key);
	if (!json_is_array(arr))
		return hwc_json_get_meta(o, key, a, &r->m);
	size_t i;
	const json_t *x;
	r->n = 0;
	json_array_foreach(arr, i, x) {
		if (!json_is_number(x) || r->n == HWC_MLX_MAX_LANES)
			return -EINVAL;
		r->v[r->n++] = json_number_value(x);
	}
	char rk[64];
	snprintf(rk, sizeof(rk), "%s_range", key);
	const json_t *rg = json_object_get(o, rk);
	r->has_range = json_is_array(rg) && json_array_size(rg) == 2;
	if (r->has_range) {
		r->lo = json_number_value(json_array_get(rg, 0));
		r->hi = json_number_value(json_array_get(rg, 1));
	}
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	return 0;
}

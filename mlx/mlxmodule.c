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

enum kind { M_STR, M_NUM, M_READ };
static const struct mkey {
	const char *text, *json;
	enum kind k;
	size_t off;
} mkeys[] = {
#define M(t, j, k, f) {t, j, k, offsetof(struct hwc_mlx_module, f)}
	M("Identifier", "identifier", M_STR, identifier),
	M("Compliance", "compliance", M_STR, compliance),
	M("Cable Type", "cable_type", M_STR, cable_type),
	M("Vendor Name", "vendor", M_STR, vendor),
	M("Vendor Part Number", "part_number", M_STR, part_number),
	M("Vendor Serial Number", "serial_number", M_STR, serial_number),
	M("FW Version", "fw_version", M_STR, fw_version),
	M("Digital Diagnostic Monitoring", "ddm", M_STR, ddm),
	M("Transfer Distance [m]", "length_m", M_NUM, length_m),
	M("Temperature [C]", "temperature_c", M_READ, temperature_c),
	M("Voltage [mV]", "voltage_mv", M_READ, voltage_mv),
	M("Bias Current [mA]", "bias_ma", M_READ, bias_ma),
	M("Rx Power Current [dBm]", "rx_power_dbm", M_READ, rx_power_dbm),
	M("Tx Power Current [dBm]", "tx_power_dbm", M_READ, tx_power_dbm),
#undef M
};
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

static void set_field(struct hwc_mlx_module *m, size_t i, const char *v, size_t n, struct hwc_arena *a)
{
	void *f = (char *)m + mkeys[i].off;
	if (n >= 3 && strncmp(v, "N/A", 3) == 0) {
		hwc_fmeta_set(mmeta(m, i), HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "mstlink: %s: N/A (no such data in this module)", mkeys[i].text));
		return;
	}
	const char *bad = hwc_arena_printf(a, "mstlink: %s: '%.*s' not understood", mkeys[i].text,
					   (int)(n > 48 ? 48 : n), v);
	double d;
	switch (mkeys[i].k) {
	case M_STR:
		HWC_SET(*(struct hwc_fstr *)f, hwc_arena_strndup(a, v, n));
		break;
	case M_NUM:
		if (hwc_mlx_text_double(v, n, &d))
			HWC_SET(*(struct hwc_ff64 *)f, d);
		else
			hwc_fmeta_set(mmeta(m, i), HWC_ST_INVALID, 0, bad);
		break;
	case M_READ:
		if (reading(v, n, f) == 0)
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
	struct hwc_fmeta absent = {HWC_ST_ABSENT, 0, "mstlink's Module Info has no such line"};
	hwc_mlx_module_fail(out, &absent);
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
			if (kn == strlen(mkeys[i].text) && memcmp(l, mkeys[i].text, kn) == 0 &&
			    mmeta(out, i)->st == HWC_ST_ABSENT)
				set_field(out, i, v, vn, a);
	}
	return 0;
}

/* ------------------------------------------------------------------ JSON */

static void put_reading(json_t *o, const char *key, const struct hwc_mlx_reading *r)
{
	char rk[64];
	snprintf(rk, sizeof(rk), "%s_range", key);
	if (r->m.st != HWC_ST_OK) {
		hwc_json_set_before_unavail(o, key, json_null());
		hwc_json_set_before_unavail(o, rk, json_null());
		hwc_json_put_meta(o, key, &r->m);
		return;
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, json_real(r->v[i]));
	hwc_json_set_before_unavail(o, key, arr);
	hwc_json_set_before_unavail(o, rk, r->has_range ? json_pack("[ff]", r->lo, r->hi) : json_null());
}

json_t *hwc_mlx_module_json(const struct hwc_mlx_module *mod)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < NM; i++) {
		const void *f = (const char *)mod + mkeys[i].off;
		if (mkeys[i].k == M_STR)
			hwc_json_put_str(o, mkeys[i].json, f);
		else if (mkeys[i].k == M_NUM)
			hwc_json_put_f64(o, mkeys[i].json, f);
		else
			put_reading(o, mkeys[i].json, f);
	}
	return o;
}

static int get_reading(const json_t *o, const char *key, struct hwc_arena *a,
		       struct hwc_mlx_reading *r)
{
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

int hwc_mlx_module_from_json(const json_t *o, struct hwc_arena *a, struct hwc_mlx_module *mod)
{
	if (!o)
		return 0;
	if (!json_is_object(o))
		return -EINVAL;
	int rc = 0;
	for (size_t i = 0; i < NM; i++) {
		void *f = (char *)mod + mkeys[i].off;
		if (mkeys[i].k == M_STR)
			rc |= hwc_json_get_str(o, mkeys[i].json, a, f);
		else if (mkeys[i].k == M_NUM)
			rc |= hwc_json_get_f64(o, mkeys[i].json, a, f);
		else
			rc |= get_reading(o, mkeys[i].json, a, f);
	}
	return rc ? -EINVAL : 0;
}

/* SPDX-License-Identifier: MIT */
/* Every hwmon temperature and thermal zone of the root, tied to its PCI function; sampling. */
#include "thermal/thermal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "core/scan.h"
#include "mlx/mlx.h"

static const char *const source_names[HWC_THERMAL__NSOURCES] = {
	[HWC_THERMAL_HWMON] = "hwmon",
	[HWC_THERMAL_ZONE] = "thermal_zone",
	[HWC_THERMAL_MSTREG] = "mstreg",
	[HWC_THERMAL_MSTMGET_TEMP] = "mstmget_temp",
};

const char *hwc_thermal_source_name(enum hwc_thermal_source s)
{
	return (unsigned)s < HWC_THERMAL__NSOURCES ? source_names[s] : "?";
}

/* ------------------------------------------------------------------ pure helpers */

int hwc_hwmon_attr_parse(const char *name, unsigned *index, const char **suffix)
{
	if (strncmp(name, "temp", 4) != 0)
		return -EINVAL;
	const char *p = name + 4;
	unsigned v = 0;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9') {
		if (v > 100000)
			return -EINVAL;
		v = v * 10 + (unsigned)(*p++ - '0');
		digits++;
	}
	if (!digits || *p != '_' || !p[1])
		return -EINVAL;
	*index = v;
	*suffix = p + 1;
	return 0;
}

int hwc_thermal_parse_mdegc(const char *buf, size_t len, int64_t *out)
{
	char tmp[32];
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\r'))
		len--;
	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	int64_t v;
	if (hwc_parse_i64(tmp, 10, &v) < 0)
		return -EINVAL;
	if (v < -273150 || v > 1000000)
		return -ERANGE;
	*out = v;
	return 0;
}

static bool is_bdf(const char *s, size_t n)
{
	return n && hwc_bdf_scan(s, n, 0, NULL) == n;
}

/* The PCI function a device path is, or sits under (nvme0 under its controller). */
static const char *bdf_in_path(struct hwc_arena *a, const char *path)
{
	const char *end = path + strlen(path);
	while (end > path) {
		const char *b = end;
		while (b > path && b[-1] != '/')
			b--;
		if (is_bdf(b, (size_t)(end - b)))
			return hwc_arena_strndup(a, b, (size_t)(end - b));
		end = b > path ? b - 1 : path;
	}
	return NULL;
}

static void device_bdf(struct hwc_env *e, struct hwc_arena *a, const char *dir,
		       struct hwc_fstr *bdf)
{
	const char *link = hwc_arena_printf(a, "%s/device", dir);
	const char *real = NULL;
	int rc = hwc_env_realpath(e, link, a, &real);
	if (rc < 0) {
		hwc_env_fail(e, &bdf->m, a, link, -rc);
		return;
	}
	const char *b = bdf_in_path(a, real);
	if (b)
		HWC_SET(*bdf, b);
	else
		HWC_FAIL(*bdf, HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s is not a PCI device (%s)", link, real));
}

/* ------------------------------------------------------------------ collection */

static int cmp_u(const void *x, const void *y)
{
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
	return a < b ? -1 : a > b;
}

static void read_opt(struct hwc_env *e, struct hwc_arena *a, const char *dir, unsigned k,
		     const char *suffix, struct hwc_fi64 *out)
{
	hwc_read_i64(e, hwc_arena_printf(a, "%s/temp%u_%s", dir, k, suffix), a, out);
}

static int hwmon_one(struct hwc_env *e, struct hwc_facts *f, struct hwc_thermal_facts *t,
		     const char *hw)
{
	struct hwc_arena *a = f->arena;
	const char *dir = hwc_arena_printf(a, "sys/class/hwmon/%s", hw);
	struct hwc_fstr name = {0};
	/* before 3.x some drivers (coretemp) kept their attributes in hwmonN/device/ */
	if (hwc_read_str(e, hwc_arena_printf(a, "%s/name", dir), a, &name) < 0 &&
	    name.m.st == HWC_ST_ABSENT) {
		const char *old = hwc_arena_printf(a, "%s/device", dir);
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/name", old), a, &name) == 0)
			dir = old;
	}
	struct hwc_fstr bdf = {0};
	device_bdf(e, a, hwc_arena_printf(a, "sys/class/hwmon/%s", hw), &bdf);

	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, dir, a, &dl);
	if (rc < 0) {
		hwc_facts_error(f, "thermal", dir, "cannot list: %s", strerror(-rc));
		return 0;
	}
	unsigned *idx = hwc_arena_calloc(a, dl.n ? dl.n : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < dl.n; i++) {
		unsigned k;
		const char *suffix;
		if (hwc_hwmon_attr_parse(dl.names[i], &k, &suffix) == 0 &&
		    strcmp(suffix, "input") == 0)
			idx[n++] = k;
	}
	qsort(idx, n, sizeof(*idx), cmp_u);
	for (size_t i = 0; i < n; i++) {
		struct hwc_thermal_sensor *s = HWC_VEC_PUSH(a, &t->sensors);
		if (!s)
			return -ENOMEM;
		unsigned k = idx[i];
		s->source = HWC_THERMAL_HWMON;
		s->chip = hwc_ok(name) ? name.v : hw;
		s->bdf = bdf;
		struct hwc_fstr label = {0};
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/temp%u_label", dir, k), a, &label) == 0 &&
		    *label.v)
			s->label = label.v;
		else
			s->label = hwc_arena_printf(a, "temp%u", k);
		s->input_path = hwc_arena_printf(a, "%s/temp%u_input", dir, k);
		hwc_read_i64(e, s->input_path, a, &s->temp_mdegc);
		read_opt(e, a, dir, k, "crit", &s->crit_mdegc);
		read_opt(e, a, dir, k, "max", &s->max_mdegc);
		read_opt(e, a, dir, k, "highest", &s->highest_mdegc);
		if (!s->chip || !s->label)
			return -ENOMEM;
	}
	return 0;
}

/* mlx5's own zone (kernels before 6.6 had no hwmon): "mlx5", or per device "mlx5_<BDF>". */
static const char *bdf_in_zone_type(struct hwc_arena *a, const char *type)
{
	if (strncmp(type, "mlx5", 4) != 0 || (type[4] != '_' && type[4] != '-'))
		return NULL;
	const char *b = type + 5;
	return is_bdf(b, strlen(b)) ? hwc_arena_strdup(a, b) : NULL;
}

static int zone_one(struct hwc_env *e, struct hwc_facts *f, struct hwc_thermal_facts *t,
		    const char *zone)
{
	struct hwc_arena *a = f->arena;
	const char *dir = hwc_arena_printf(a, "sys/class/thermal/%s", zone);
	struct hwc_fstr type = {0};
	hwc_read_str(e, hwc_arena_printf(a, "%s/type", dir), a, &type);
	struct hwc_thermal_sensor *s = HWC_VEC_PUSH(a, &t->sensors);
	if (!s)
		return -ENOMEM;
	s->source = HWC_THERMAL_ZONE;
	s->chip = hwc_ok(type) && *type.v ? type.v : "thermal_zone";
	s->label = zone;
	s->input_path = hwc_arena_printf(a, "%s/temp", dir);
	hwc_read_i64(e, s->input_path, a, &s->temp_mdegc);
	const char *zb = hwc_ok(type) ? bdf_in_zone_type(a, type.v) : NULL;
	if (zb)
		HWC_SET(s->bdf, zb);
	else
		device_bdf(e, a, dir, &s->bdf);
	HWC_FAIL(s->max_mdegc, HWC_ST_UNSUPPORTED, 0, "a thermal zone has no max");
	HWC_FAIL(s->highest_mdegc, HWC_ST_UNSUPPORTED, 0, "a thermal zone keeps no highest");
	HWC_FAIL(s->crit_mdegc, HWC_ST_ABSENT, 0,
		 hwc_arena_printf(a, "%s has no critical trip point", dir));
	struct hwc_dirlist dl = {0};
	if (hwc_env_list_dir(e, dir, a, &dl) < 0)
		return 0;
	for (size_t i = 0; i < dl.n; i++) {
		unsigned k;
		char tail[16];
		if (sscanf(dl.names[i], "trip_point_%u_%15s", &k, tail) != 2 ||
		    strcmp(tail, "type") != 0)
			continue;
		struct hwc_fstr tt = {0};
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/%s", dir, dl.names[i]), a, &tt) == 0 &&
		    strcmp(tt.v, "critical") == 0) {
			hwc_read_i64(e, hwc_arena_printf(a, "%s/trip_point_%u_temp", dir, k), a,
				     &s->crit_mdegc);
			break;
		}
	}
	return 0;
}

static int str_or_empty_cmp(const struct hwc_fstr *x, const struct hwc_fstr *y)
{
	const char *a = hwc_ok(*x) ? x->v : "", *b = hwc_ok(*y) ? y->v : "";
	return strcmp(a, b);
}

static int sensor_cmp(const void *x, const void *y)
{
	const struct hwc_thermal_sensor *a = x, *b = y;
	int c = strverscmp(a->chip, b->chip);
	if (!c)
		c = str_or_empty_cmp(&a->bdf, &b->bdf);
	if (!c)
		c = strverscmp(a->label, b->label);
	if (!c)
		c = (int)a->source - (int)b->source;
	return c;
}

static int collect_dir(struct hwc_env *e, struct hwc_facts *f, struct hwc_thermal_facts *t,
		       const char *path, const char *prefix,
		       int (*one)(struct hwc_env *, struct hwc_facts *, struct hwc_thermal_facts *,
				  const char *))
{
	struct hwc_dirlist dl = {0};
	int rc = hwc_env_list_dir(e, path, f->arena, &dl);
	if (rc < 0) {
		if (rc != -ENOENT) /* a VM may have neither: that is not a problem */
			hwc_facts_error(f, "thermal", path, "cannot list: %s", strerror(-rc));
		return 0;
	}
	for (size_t i = 0; i < dl.n; i++) {
		if (strncmp(dl.names[i], prefix, strlen(prefix)) != 0)
			continue;
		rc = one(e, f, t, dl.names[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static struct hwc_thermal_facts *section(struct hwc_facts *f)
{
	if (!f->thermal) {
		if (HWC_FACTS_SECTION(f, thermal))
			hwc_fmeta_set(&f->thermal->m, HWC_ST_OK, 0, NULL);
	}
	return f->thermal;
}

/* A card without an mlx5 hwmon sensor (kernel before 6.6, or no MTMP in its MCAM) still has
 * the temperature mlx/ read through mstreg or mstmget_temp: that becomes its sensor. A read
 * that failed is added too, so its status shows; a tool that is not installed (absent) or
 * cannot reach the card (unsupported: VFs only) adds nothing. */
static int add_card_temps(struct hwc_facts *f)
{
	if (!f->mlx)
		return 0;
	for (size_t i = 0; i < f->mlx->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &f->mlx->adapters.items[i];
		enum hwc_status st = ad->reg.temp_mdegc.m.st;
		if (!ad->bdf || st == HWC_ST_UNSET || st == HWC_ST_ABSENT || st == HWC_ST_UNSUPPORTED)
			continue;
		enum hwc_thermal_source src =
			hwc_ok(ad->reg.temp_source) && strcmp(ad->reg.temp_source.v, "mstmget_temp") == 0
				? HWC_THERMAL_MSTMGET_TEMP
				: HWC_THERMAL_MSTREG;
		int rc = hwc_thermal_add_card_temp(f, ad->bdf, &ad->reg.temp_mdegc, src);
		if (rc < 0 && rc != -EEXIST)
			return rc;
	}
	return 0;
}

int hwc_thermal_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	(void)o; /* a card's sensor is evidence for the host as a whole: -d does not narrow it */
	struct hwc_thermal_facts *t = section(f);
	if (!t)
		return -ENOMEM;
	int rc = collect_dir(e, f, t, "sys/class/hwmon", "hwmon", hwmon_one);
	if (rc == 0)
		rc = collect_dir(e, f, t, "sys/class/thermal", "thermal_zone", zone_one);
	if (t->sensors.n)
		qsort(t->sensors.items, t->sensors.n, sizeof(*t->sensors.items), sensor_cmp);
	if (rc == 0)
		rc = add_card_temps(f);
	if (rc == 0) {
#define PART_COLLECT(m, T, doc_) hwc_thermal_collect_##m(e, f, &t->m);
		HWC_THERMAL_PARTS(PART_COLLECT)
#undef PART_COLLECT
	}
	return rc;
}

int hwc_thermal_add_card_temp(struct hwc_facts *f, const char *bdf,
			      const struct hwc_fi64 *temp_mdegc, enum hwc_thermal_source source)
{
	struct hwc_thermal_facts *t = section(f);
	if (!t || !bdf || !temp_mdegc)
		return t ? -EINVAL : -ENOMEM;
	for (size_t i = 0; i < t->sensors.n; i++) {
		const struct hwc_thermal_sensor *s = &t->sensors.items[i];
		if ((s->source == HWC_THERMAL_HWMON || s->source == HWC_THERMAL_ZONE) &&
		    hwc_ok(s->bdf) && strcmp(s->bdf.v, bdf) == 0)
			return -EEXIST;
	}
	struct hwc_thermal_sensor *s = HWC_VEC_PUSH(f->arena, &t->sensors);
	if (!s)
		return -ENOMEM;
	const char *b = hwc_arena_strdup(f->arena, bdf);
	if (!b)
		return -ENOMEM;
	s->chip = "mlx5";
	s->label = "asic";
	s->source = source;
	s->temp_mdegc = *temp_mdegc;
	HWC_SET(s->bdf, b);
	const char *how = hwc_thermal_source_name(source);
	HWC_FAIL(s->crit_mdegc, HWC_ST_UNSUPPORTED, 0, hwc_arena_printf(f->arena, "not read by %s", how));
	s->max_mdegc = s->highest_mdegc = s->crit_mdegc;
	qsort(t->sensors.items, t->sensors.n, sizeof(*t->sensors.items), sensor_cmp);
	return 0;
}

/* ------------------------------------------------------------------ sampling */

static unsigned ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms = (long long)(now.tv_sec - t0->tv_sec) * 1000 +
		       (now.tv_nsec - t0->tv_nsec) / 1000000;
	return ms < 0 ? 0 : (unsigned)ms;
}

int hwc_thermal_sample(struct hwc_env *e, struct hwc_arena *a, const char *const *paths, size_t n,
		       unsigned interval_ms, unsigned count, hwc_thermal_sample_fn fn, void *ctx)
{
	if (!fn || (n && !paths))
		return -EINVAL;
	struct hwc_fi64 *vals = hwc_arena_calloc(a, n ? n : 1, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	bool live = hwc_env_is_live(e) && hwc_env_mode(e) != HWC_RUN_REPLAY;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned done = 0;
	for (unsigned r = 0; r < count; r++) {
		if (r && live) {
			if (hwc_env_time_left_ms(e) <= interval_ms)
				break;
			struct timespec d = {interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L};
			while (nanosleep(&d, &d) < 0 && errno == EINTR)
				;
		}
		for (size_t i = 0; i < n; i++) {
			memset(&vals[i], 0, sizeof(vals[i]));
			hwc_read_i64(e, paths[i], a, &vals[i]);
		}
		done++;
		if (fn(ctx, r, live ? ms_since(&t0) : 0, vals, n))
			break;
	}
	return (int)done;
}

size_t hwc_thermal_card_inputs(const struct hwc_thermal_facts *t, const char *bdf,
			       bool any_function, const char **paths, size_t max)
{
	size_t k = 0;
	size_t cmp = any_function && strchr(bdf, '.') ? (size_t)(strchr(bdf, '.') - bdf)
						      : strlen(bdf) + 1;
	for (size_t i = 0; t && i < t->sensors.n && k < max; i++) {
		const struct hwc_thermal_sensor *s = &t->sensors.items[i];
		if (s->input_path && hwc_ok(s->bdf) && strncmp(s->bdf.v, bdf, cmp) == 0)
			paths[k++] = s->input_path;
	}
	return k;
}

/* ------------------------------------------------------------------ JSON */

static int source_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const enum hwc_thermal_source *so = p;
	json_t *v = json_string(hwc_thermal_source_name(*so));
	return v && json_object_set_new(o, f->key, v) == 0 ? 0 : -ENOMEM;
}

/* A sensor without a source hwcheck knows is left out (-ENOENT). */
static int source_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	(void)a;
	const char *src = hwc_json_str_or(o, f->key, NULL);
	for (unsigned k = 0; src && k < HWC_THERMAL__NSOURCES; k++)
		if (strcmp(src, source_names[k]) == 0) {
			*(enum hwc_thermal_source *)p = k;
			return 0;
		}
	return -ENOENT;
}

#define I(m) HWC_JF(struct hwc_thermal_sensor, m, HWC_JT_I64)
static const struct hwc_jfield sensor_f[] = {
	HWC_JF(struct hwc_thermal_sensor, chip, HWC_JT_KEY_STR),
	HWC_JF(struct hwc_thermal_sensor, label, HWC_JT_KEY_STR),
	I(temp_mdegc), I(crit_mdegc), I(max_mdegc), I(highest_mdegc),
	HWC_JF(struct hwc_thermal_sensor, bdf, HWC_JT_STR),
	HWC_JCUSTOM(struct hwc_thermal_sensor, "source", source, source_put, source_get),
};
#undef I
static const struct hwc_jtable sensor_t = HWC_JTABLE("thermal.sensors[]", sensor_f, 0);
static const struct hwc_jfield thermal_f[] = {
	HWC_JVEC(struct hwc_thermal_facts, "sensors", sensors, struct hwc_thermal_sensor, sensor_t),
#define PART_F(m, T, doc_)                                                                         \
	HWC_JSUBD(struct hwc_thermal_facts, #m, m, HWC_JT_GROUP, hwc_thermal_##m##_table, doc_),
	HWC_THERMAL_PARTS(PART_F)
#undef PART_F
};
const struct hwc_jtable hwc_thermal_table = HWC_JTABLE("thermal", thermal_f, 0);

json_t *hwc_thermal_to_json(const struct hwc_facts *f)
{
	static const struct hwc_thermal_facts none;
	return hwc_json_from_table(f->thermal ? f->thermal : &none, &hwc_thermal_table);
}

int hwc_thermal_from_json(const json_t *j, struct hwc_facts *f)
{
	if (!json_is_object(j))
		return -EINVAL;
	struct hwc_thermal_facts *t = section(f);
	if (!t)
		return -ENOMEM;
	return hwc_json_get_table(j, f->arena, t, &hwc_thermal_table);
}

/* SPDX-License-Identifier: MIT */
/* Unit tests of thermal/: attribute and value parsing, thermal zones (incl. the pre-6.6 mlx5 zone),
 * the old hwmon layout, the card-temperature hook for mstreg, and sampling through the env. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thermal/thermal.h"
#include "mlx/mlx.h"
#include "test.h"

static char tmpl[] = "/tmp/hwc-thermal-XXXXXX";

static void put(const char *rel, const char *content)
{
	t_put(tmpl, rel, content);
}

static void link_(const char *target, const char *rel)
{
	char p[4096], cmd[4200];
	snprintf(p, sizeof(p), "%s/%s", tmpl, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	if (system(cmd) != 0 || symlink(target, p) != 0)
		abort();
}

static void test_pure(void)
{
	unsigned k;
	const char *s;
	CHECK_INT(hwc_hwmon_attr_parse("temp12_input", &k, &s), 0);
	CHECK_INT(k, 12);
	CHECK_STR(s, "input");
	CHECK_INT(hwc_hwmon_attr_parse("temp_input", &k, &s), -EINVAL);
	CHECK_INT(hwc_hwmon_attr_parse("in0_input", &k, &s), -EINVAL);
	CHECK_INT(hwc_hwmon_attr_parse("temp1_", &k, &s), -EINVAL);
	CHECK_INT(hwc_hwmon_attr_parse("temp1", &k, &s), -EINVAL);
	int64_t v;
	CHECK_INT(hwc_thermal_parse_mdegc("46000\n", 6, &v), 0);
	CHECK_INT(v, 46000);
	CHECK_INT(hwc_thermal_parse_mdegc("-273150", 7, &v), 0);
	CHECK_INT(hwc_thermal_parse_mdegc("-273151", 7, &v), -ERANGE);
	CHECK_INT(hwc_thermal_parse_mdegc("abc", 3, &v), -EINVAL);
	CHECK_INT(hwc_thermal_parse_mdegc("", 0, &v), -EINVAL);
}

struct samples {
	unsigned rounds;
	int64_t last;
	enum hwc_status st1;
};

static int on_sample(void *ctx, unsigned round, unsigned elapsed_ms, const struct hwc_fi64 *vals,
		     size_t n)
{
	struct samples *s = ctx;
	s->rounds = round + 1;
	if (n >= 2) {
		s->last = vals[0].v;
		s->st1 = vals[1].m.st;
	}
	return round == 2; /* stop after the third */
}

/* The collect step adds the mlx/ register temperatures of cards the kernel has no sensor for. */
static void test_from_mlx(struct hwc_env *e)
{
	struct hwc_facts *f = hwc_facts_new();
	f->mlx = hwc_arena_zalloc(f->arena, sizeof(*f->mlx));
	struct hwc_mlx_adapter *ad = hwc_arena_calloc(f->arena, 5, sizeof(*ad));
	f->mlx->adapters.items = ad;
	f->mlx->adapters.n = 5;
	ad[0].bdf = "0000:3b:00.0"; /* the zone covers it: no second sensor */
	HWC_SET(ad[0].reg.temp_mdegc, 87000);
	HWC_SET(ad[0].reg.temp_source, "mstreg");
	ad[1].bdf = "0000:af:00.0";
	HWC_SET(ad[1].reg.temp_mdegc, 88000);
	HWC_SET(ad[1].reg.temp_source, "mstmget_temp");
	ad[2].bdf = "0000:5e:00.0"; /* the read timed out: the sensor shows the status */
	HWC_FAIL(ad[2].reg.temp_mdegc, HWC_ST_TIMEOUT, 0, "mstreg: no answer");
	ad[3].bdf = "0000:d8:00.0"; /* no tool installed: nothing to show */
	HWC_FAIL(ad[3].reg.temp_mdegc, HWC_ST_ABSENT, 0, "mstreg: not installed");
	ad[4].bdf = "0000:86:00.0";
	HWC_SET(ad[4].reg.temp_mdegc, 52000);
	HWC_SET(ad[4].reg.temp_source, "mstreg");
	CHECK_INT(hwc_thermal_collect(e, f, NULL), 0);
	const struct hwc_thermal_sensor *x = f->thermal->sensors.items;
	size_t n = f->thermal->sensors.n;
	CHECK_INT(n, 6); /* coretemp, the 3b zone, x86_pkg_temp and three card sensors */
	int seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (x[i].source == HWC_THERMAL_HWMON || x[i].source == HWC_THERMAL_ZONE)
			continue;
		CHECK_STR(x[i].chip, "mlx5");
		CHECK_STR(x[i].label, "asic");
		if (!strcmp(x[i].bdf.v, "0000:af:00.0")) {
			CHECK_INT(x[i].source, HWC_THERMAL_MSTMGET_TEMP);
			CHECK_INT(x[i].temp_mdegc.v, 88000);
			seen |= 1;
		} else if (!strcmp(x[i].bdf.v, "0000:5e:00.0")) {
			CHECK_INT(x[i].source, HWC_THERMAL_MSTREG);
			CHECK_INT(x[i].temp_mdegc.m.st, HWC_ST_TIMEOUT);
			seen |= 2;
		} else {
			CHECK_STR(x[i].bdf.v, "0000:86:00.0");
			CHECK_INT(x[i].source, HWC_THERMAL_MSTREG);
			CHECK_INT(x[i].temp_mdegc.v, 52000);
			seen |= 4;
		}
	}
	CHECK_INT(seen, 7);
	hwc_facts_free(f);
}

static void test_root(void)
{
	if (!mkdtemp(tmpl))
		abort();
	/* mlx5 thermal zone of 6.4/6.5 kernels, per device name (88 C: what mget_temp read on a hot
	 * ConnectX-6 Dx, corpus temperature/cx6dx_mget_temp_88C_notes-cn.txt); an x86 package zone */
	put("sys/devices/virtual/thermal/thermal_zone0/type", "x86_pkg_temp\n");
	put("sys/devices/virtual/thermal/thermal_zone0/temp", "52000\n");
	put("sys/devices/virtual/thermal/thermal_zone0/trip_point_0_type", "passive\n");
	put("sys/devices/virtual/thermal/thermal_zone0/trip_point_0_temp", "0\n");
	put("sys/devices/virtual/thermal/thermal_zone0/trip_point_1_type", "critical\n");
	put("sys/devices/virtual/thermal/thermal_zone0/trip_point_1_temp", "105000\n");
	link_("../../devices/virtual/thermal/thermal_zone0", "sys/class/thermal/thermal_zone0");
	put("sys/devices/virtual/thermal/thermal_zone1/type", "mlx5_0000:3b:00.0\n");
	put("sys/devices/virtual/thermal/thermal_zone1/temp", "88000\n");
	link_("../../devices/virtual/thermal/thermal_zone1", "sys/class/thermal/thermal_zone1");
	link_("../../devices/virtual/thermal/cooling_device0", "sys/class/thermal/cooling_device0");
	/* pre-3.x layout: attributes under hwmonN/device */
	put("sys/devices/platform/coretemp.0/name", "coretemp\n");
	put("sys/devices/platform/coretemp.0/temp2_input", "41000\n");
	put("sys/devices/platform/coretemp.0/temp2_label", "Core 0\n");
	put("sys/devices/platform/coretemp.0/temp2_crit", "100000\n");
	link_("../../../coretemp.0", "sys/devices/platform/coretemp.0/hwmon/hwmon0/device");
	link_("../../devices/platform/coretemp.0/hwmon/hwmon0", "sys/class/hwmon/hwmon0");

	struct hwc_env *e = NULL;
	struct hwc_env_opts o = {.root = tmpl};
	CHECK_INT(hwc_env_open(&o, &e), 0);
	struct hwc_facts *f = hwc_facts_new();
	CHECK_INT(hwc_thermal_collect(e, f, NULL), 0);
	struct hwc_thermal_facts *t = f->thermal;
	CHECK_INT(t->sensors.n, 3);
	/* sorted by chip: coretemp, mlx5_0000:3b:00.0, x86_pkg_temp */
	CHECK_STR(t->sensors.items[0].chip, "coretemp");
	CHECK_STR(t->sensors.items[0].label, "Core 0");
	CHECK_INT(t->sensors.items[0].temp_mdegc.v, 41000);
	CHECK_INT(t->sensors.items[0].crit_mdegc.v, 100000);
	const struct hwc_thermal_sensor *z = &t->sensors.items[1];
	CHECK_STR(z->chip, "mlx5_0000:3b:00.0");
	CHECK_STR(z->bdf.v, "0000:3b:00.0");
	CHECK_INT(z->temp_mdegc.v, 88000);
	CHECK_INT(z->source, HWC_THERMAL_ZONE);
	CHECK_INT(z->crit_mdegc.m.st, HWC_ST_ABSENT);
	CHECK_INT(t->sensors.items[2].crit_mdegc.v, 105000);
	CHECK_INT(t->sensors.items[2].bdf.m.st, HWC_ST_ABSENT);

	/* the zone covers 3b:00.0: a register reading does not replace it; another card gets one */
	struct hwc_fi64 reg = {0};
	HWC_SET(reg, 88000);
	CHECK_INT(hwc_thermal_add_card_temp(f, "0000:3b:00.0", &reg, HWC_THERMAL_MSTREG), -EEXIST);
	CHECK_INT(hwc_thermal_add_card_temp(f, "0000:af:00.0", &reg, HWC_THERMAL_MSTMGET_TEMP), 0);
	HWC_FAIL(reg, HWC_ST_NEEDS_ROOT, 0, "mstreg needs root");
	CHECK_INT(hwc_thermal_add_card_temp(f, "0000:5e:00.0", &reg, HWC_THERMAL_MSTREG), 0);
	CHECK_INT(t->sensors.n, 5);
	json_t *j = hwc_thermal_to_json(f);
	char *txt = json_dumps(j, JSON_COMPACT);
	CHECK(strstr(txt, "\"source\":\"mstmget_temp\"") != NULL);
	CHECK(strstr(txt, "\"temp_mdegc\":null") != NULL); /* the failed read keeps its status */
	/* round trip */
	struct hwc_facts *g = hwc_facts_new();
	CHECK_INT(hwc_thermal_from_json(j, g), 0);
	json_t *j2 = hwc_thermal_to_json(g);
	char *txt2 = json_dumps(j2, JSON_COMPACT);
	CHECK_STR(txt2, txt);
	free(txt);
	free(txt2);
	json_decref(j);
	json_decref(j2);
	hwc_facts_free(g);

	/* sampling: a replayed root gives the same value each round, without sleeping */
	const char *paths[4];
	CHECK_INT(hwc_thermal_card_inputs(t, "0000:3b:00.1", true, paths, 4), 1);
	CHECK_INT(hwc_thermal_card_inputs(t, "0000:3b:00.1", false, paths, 4), 0);
	CHECK_INT(hwc_thermal_card_inputs(t, "0000:3b:00.0", false, paths, 4), 1);
	paths[1] = "sys/class/hwmon/hwmon9/temp1_input";
	struct samples s = {0};
	CHECK_INT(hwc_thermal_sample(e, f->arena, paths, 2, 1000, 10, on_sample, &s), 3);
	CHECK_INT(s.rounds, 3);
	CHECK_INT(s.last, 88000);
	CHECK_INT(s.st1, HWC_ST_ABSENT);
	CHECK_INT(hwc_thermal_sample(e, f->arena, NULL, 1, 0, 1, on_sample, &s), -EINVAL);
	hwc_facts_free(f);
	test_from_mlx(e);
	hwc_env_free(e);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpl);
}

int main(void)
{
	test_pure();
	test_root();
	TEST_MAIN_END();
}

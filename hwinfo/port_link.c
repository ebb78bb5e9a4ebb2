/* SPDX-License-Identifier: MIT */
/* The wire side of a ConnectX netdev (issue 14): carrier counters (flaps) from sysfs and the FEC
 * in use with its block counters (ethtool --show-fec, through the runner); and their JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"

static void fail_fec(struct hwc_netdev_fec *fec, const struct hwc_fmeta *m)
{
	fec->configured.m = fec->active.m = *m;
	fec->corrected_blocks.m = fec->uncorrectable_blocks.m = *m;
}

/* The tool's failure as a status: not installed/recorded, timeout..., or its own complaint. */
static bool fec_usable(const struct hwc_cmd_result *r, struct hwc_arena *a, const char *cmd,
		       struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK) {
		*why = r->m;
		return false;
	}
	if (r->signal || r->exit_code != 0) {
		size_t n = r->err ? strcspn(r->err, "\n") : 0;
		bool unsup = r->err && (strstr(r->err, "not supported") || strstr(r->err, "Operation not supported"));
		hwc_fmeta_set(why, unsup ? HWC_ST_UNSUPPORTED : HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code,
					       n ? hwc_arena_strndup(a, r->err, n) : "no message"));
		return false;
	}
	return true;
}

/* ethtool -I --show-fec (with the statistics, ethtool >= 5.13); an older ethtool that refuses -I
 * is asked without it. */
static void collect_fec(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd)
{
	struct hwc_arena *a = f->arena;
	const char *const with_i[] = {"ethtool", "-I", "--show-fec", nd->name, NULL};
	const char *const plain[] = {"ethtool", "--show-fec", nd->name, NULL};
	const char *const *argv = with_i;
	struct hwc_cmd_result r;
	struct hwc_fmeta why;
	hwc_run(e, a, argv, 0, &r);
	bool ok = fec_usable(&r, a, hwc_argv_str(a, argv), &why);
	if (!ok && r.m.st == HWC_ST_OK && why.st != HWC_ST_UNSUPPORTED) {
		argv = plain;
		hwc_run(e, a, argv, 0, &r);
		ok = fec_usable(&r, a, hwc_argv_str(a, argv), &why);
	}
	if (!ok) {
		fail_fec(&nd->link.fec, &why);
		return;
	}
	const char *src = hwc_argv_str(a, argv);
	if (hwc_ethtool_parse_fec(r.out, r.out_len, src, a, &nd->link.fec) < 0)
		hwc_facts_error(f, "netdevs", src, "output not understood (expected 'Active FEC encoding:')");
}

void hwc_netdev_collect_link(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd)
{
	struct hwc_arena *a = f->arena;
	static const char *const files[] = {"carrier_changes", "carrier_up_count", "carrier_down_count"};
	struct hwc_fi64 *dst[] = {&nd->link.carrier_changes, &nd->link.carrier_up_count,
				  &nd->link.carrier_down_count};
	for (size_t i = 0; i < 3; i++) {
		const char *p = hwc_arena_printf(a, "sys/class/net/%s/%s", nd->name, files[i]);
		hwc_read_i64(e, p, a, dst[i]);
	}
	collect_fec(e, f, nd);
	hwc_module_collect(e, f, nd->name, &nd->link.module);
}

/* ------------------------------------------------------------------ JSON */

json_t *hwc_netdev_link_json(const struct hwc_netdev_link *l)
{
	json_t *o = json_object(), *fec = json_object();
	if (!o || !fec) {
		json_decref(o);
		json_decref(fec);
		return NULL;
	}
	hwc_json_put_i64(o, "carrier_changes", &l->carrier_changes);
	hwc_json_put_i64(o, "carrier_up_count", &l->carrier_up_count);
	hwc_json_put_i64(o, "carrier_down_count", &l->carrier_down_count);
	hwc_json_put_str(fec, "configured", &l->fec.configured);
	hwc_json_put_str(fec, "active", &l->fec.active);
	hwc_json_put_u64(fec, "corrected_blocks", &l->fec.corrected_blocks);
	hwc_json_put_u64(fec, "uncorrectable_blocks", &l->fec.uncorrectable_blocks);
	hwc_json_set_before_unavail(o, "fec", fec);
	if (hwc_ok(l->module.source)) {
		hwc_json_set_before_unavail(o, "module", hwc_module_json(&l->module));
	} else { /* nothing was read: one reason for the whole module */
		hwc_json_set_before_unavail(o, "module", json_null());
		hwc_json_put_meta(o, "module", &l->module.source.m);
	}
	return o;
}

int hwc_netdev_link_from_json(const json_t *o, struct hwc_arena *a, struct hwc_netdev_link *l)
{
	if (!o)
		return 0; /* an older facts file: every fact stays not_collected */
	if (!json_is_object(o))
		return -EINVAL;
	int rc = 0;
	rc |= hwc_json_get_i64(o, "carrier_changes", a, &l->carrier_changes);
	rc |= hwc_json_get_i64(o, "carrier_up_count", a, &l->carrier_up_count);
	rc |= hwc_json_get_i64(o, "carrier_down_count", a, &l->carrier_down_count);
	const json_t *fec = json_object_get(o, "fec");
	if (fec && !json_is_object(fec))
		return -EINVAL;
	if (fec) {
		rc |= hwc_json_get_str(fec, "configured", a, &l->fec.configured);
		rc |= hwc_json_get_str(fec, "active", a, &l->fec.active);
		rc |= hwc_json_get_u64(fec, "corrected_blocks", a, &l->fec.corrected_blocks);
		rc |= hwc_json_get_u64(fec, "uncorrectable_blocks", a, &l->fec.uncorrectable_blocks);
	}
	const json_t *mod = json_object_get(o, "module");
	if (json_is_null(mod)) {
		struct hwc_fmeta why;
		rc |= hwc_json_get_meta(o, "module", a, &why);
		hwc_module_fail(&l->module, &why);
		l->module.source.m = why;
	} else {
		rc |= hwc_module_from_json(mod, a, &l->module);
	}
	return rc ? -EINVAL : 0;
}

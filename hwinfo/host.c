/* SPDX-License-Identifier: MIT */
/* Host facts: runs the parts (CPU, NUMA, x2APIC, IOMMU, power, DMI, kernel) and maps them to JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"
#include "core/util.h"

/* The kernel log through dmesg(1): Debian sets kernel.dmesg_restrict, so it needs root. */
static void read_dmesg(struct hwc_env *e, struct hwc_arena *a, struct hwc_dmesg_host *dm,
		       struct hwc_fmeta *m, struct hwc_host_facts *h)
{
	static const char *const argv[] = {"dmesg", NULL};
	struct hwc_cmd_result r;
	memset(dm, 0, sizeof(*dm));
	dm->x2apic = dm->intr_remap = -1;
	hwc_run(e, a, argv, 0, &r);
	if (r.m.st != HWC_ST_OK && r.m.st != HWC_ST_TRUNCATED) {
		*m = r.m;
		return;
	}
	h->dmesg_text = r.out ? r.out : "";
	h->dmesg_len = r.out ? r.out_len : 0;
	if (r.m.st == HWC_ST_TRUNCATED) {
		/* cut at the output cap (and killed): what is there is parsed, and whatever it does
		 * not decide carries the runner's "truncated" reason */
		hwc_host_parse_dmesg(r.out ? r.out : "", r.out ? r.out_len : 0, a, dm);
		*m = r.m;
		return;
	}
	if (r.signal || r.exit_code != 0) {
		size_t n = r.err ? strcspn(r.err, "\n") : 0;
		const char *msg = n ? hwc_arena_strndup(a, r.err, n) : "no message";
		bool perm = r.err && (strstr(r.err, "Operation not permitted") ||
				      strstr(r.err, "Permission denied"));
		hwc_fmeta_set(m, perm ? HWC_ST_NEEDS_ROOT : HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "dmesg exited %d: %s%s", r.exit_code, msg,
					       perm ? " (kernel.dmesg_restrict)" : ""));
		return;
	}
	hwc_host_parse_dmesg(r.out ? r.out : "", r.out ? r.out_len : 0, a, dm);
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
}

/* proc/uptime: "350735.47 234388.90" (seconds since boot, idle seconds). */
static void read_uptime(struct hwc_env *e, struct hwc_arena *a, struct hwc_fi64 *out)
{
	struct hwc_fstr s = {0};
	if (hwc_read_str(e, "proc/uptime", a, &s) < 0) {
		out->m = s.m;
		return;
	}
	char *end = NULL;
	double v = strtod(s.v, &end);
	if (end == s.v || v < 0 || v > 1e12)
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "proc/uptime: '%.40s' is not seconds", s.v));
	else
		HWC_SET(*out, (int64_t)v);
}

static void collect_dmi(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_dmi *d)
{
	static const struct {
		const char *file;
		size_t off;
	} f[] = {
		{"sys_vendor", offsetof(struct hwc_host_dmi, sys_vendor)},
		{"product_name", offsetof(struct hwc_host_dmi, product_name)},
		{"board_vendor", offsetof(struct hwc_host_dmi, board_vendor)},
		{"board_name", offsetof(struct hwc_host_dmi, board_name)},
		{"bios_vendor", offsetof(struct hwc_host_dmi, bios_vendor)},
		{"bios_version", offsetof(struct hwc_host_dmi, bios_version)},
		{"bios_date", offsetof(struct hwc_host_dmi, bios_date)},
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(f); i++)
		hwc_read_str(e, hwc_arena_printf(a, "sys/class/dmi/id/%s", f[i].file), a,
			     (struct hwc_fstr *)(void *)((char *)d + f[i].off));
}

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	(void)o;
	struct hwc_arena *a = f->arena;
	struct hwc_host_facts *h = hwc_arena_zalloc(a, sizeof(*h));
	if (!h)
		return -ENOMEM;
	hwc_read_str(e, "proc/sys/kernel/hostname", a, &h->hostname);
	hwc_read_str(e, "proc/sys/kernel/osrelease", a, &h->kernel.release);
	hwc_read_str(e, "proc/cmdline", a, &h->kernel.cmdline);
	hwc_host_read_bracketed(e, a, "sys/kernel/security/lockdown", &h->kernel.lockdown);

	struct hwc_cpuinfo ci;
	struct hwc_fmeta ci_m = {0};
	const unsigned char *d = NULL;
	size_t len = 0;
	memset(&ci, 0, sizeof(ci));
	if (hwc_read_bytes(e, "proc/cpuinfo", 16u << 20, a, &d, &len, &ci_m) == 0 ||
	    ci_m.st == HWC_ST_TRUNCATED) {
		if (hwc_host_parse_cpuinfo((const char *)d, len, a, &ci) < 0)
			hwc_fmeta_set(&ci_m, HWC_ST_INVALID, 0, "proc/cpuinfo: no \"processor\" line");
		else if (ci_m.st == HWC_ST_TRUNCATED)
			hwc_facts_error(f, "host", "proc/cpuinfo", "over 16 MiB: only the start was read");
	}
	hwc_host_collect_cpu(e, a, h, &ci, &ci_m);

	struct hwc_dmesg_host dm;
	struct hwc_fmeta dm_m = {0};
	read_dmesg(e, a, &dm, &dm_m, h);
	h->dmesg_m = dm_m;
	if (dm_m.st != HWC_ST_OK && dm_m.st != HWC_ST_TRUNCATED)
		h->dmesg_text = NULL;
	read_uptime(e, a, &h->kernel.uptime_s);
	hwc_host_collect_x2apic(e, a, h, &ci, &dm, &dm_m);
	hwc_host_collect_iommu(e, a, h, dm_m.st == HWC_ST_OK ? &dm : NULL);
	hwc_host_collect_power(e, a, h);
	collect_dmi(e, a, &h->dmi);
	f->host = h;
	return 0;
}

/* ---- JSON: field tables so that writing and reading cannot drift apart -------------------- */

enum ftype { FT_STR, FT_I64, FT_BOOL };
struct field {
	const char *key;
	enum ftype t;
	size_t off;
};
#define FLD(T, name, type) {#name, type, offsetof(T, name)}

static const struct field cpu_fields[] = {
	FLD(struct hwc_host_cpu, vendor, FT_STR),	   FLD(struct hwc_host_cpu, family, FT_I64),
	FLD(struct hwc_host_cpu, model, FT_I64),	   FLD(struct hwc_host_cpu, stepping, FT_I64),
	FLD(struct hwc_host_cpu, model_name, FT_STR),	   FLD(struct hwc_host_cpu, sockets, FT_I64),
	FLD(struct hwc_host_cpu, cores, FT_I64),	   FLD(struct hwc_host_cpu, threads, FT_I64),
	FLD(struct hwc_host_cpu, smt, FT_BOOL),		   FLD(struct hwc_host_cpu, topology_source, FT_STR),
	FLD(struct hwc_host_cpu, flags_x2apic, FT_BOOL),   FLD(struct hwc_host_cpu, hypervisor, FT_BOOL),
	FLD(struct hwc_host_cpu, max_apicid, FT_I64),
};
static const struct field numa_fields[] = {
	FLD(struct hwc_host_numa, nodes_with_cpus, FT_I64),
	FLD(struct hwc_host_numa, nodes_per_socket, FT_I64),
	FLD(struct hwc_host_numa, nps, FT_I64),
};
static const struct field node_fields[] = {
	FLD(struct hwc_host_numa_node, cpulist, FT_STR),
	FLD(struct hwc_host_numa_node, cpus, FT_I64),
};
static const struct field x2apic_fields[] = {
	FLD(struct hwc_host_x2apic, supported, FT_BOOL),
	FLD(struct hwc_host_x2apic, supported_source, FT_STR),
	FLD(struct hwc_host_x2apic, enabled, FT_BOOL),
	FLD(struct hwc_host_x2apic, source, FT_STR),
	FLD(struct hwc_host_x2apic, evidence, FT_STR),
	FLD(struct hwc_host_x2apic, routing, FT_STR),
	FLD(struct hwc_host_x2apic, interrupt_remapping, FT_BOOL),
	FLD(struct hwc_host_x2apic, interrupt_remapping_source, FT_STR),
	FLD(struct hwc_host_x2apic, madt_local_apic, FT_I64),
	FLD(struct hwc_host_x2apic, madt_local_x2apic, FT_I64),
	FLD(struct hwc_host_x2apic, dmar_intr_remap, FT_BOOL),
	FLD(struct hwc_host_x2apic, dmar_x2apic_opt_out, FT_BOOL),
};
static const struct field iommu_fields[] = {
	FLD(struct hwc_host_iommu, present, FT_BOOL),
	FLD(struct hwc_host_iommu, default_domain, FT_STR),
	FLD(struct hwc_host_iommu, default_domain_source, FT_STR),
	FLD(struct hwc_host_iommu, passthrough, FT_BOOL),
};
static const struct field group_fields[] = {
	FLD(struct hwc_host_iommu_group, type, FT_STR),
};
static const struct field power_fields[] = {
	FLD(struct hwc_host_power, cpufreq_driver, FT_STR),
	FLD(struct hwc_host_power, governor, FT_STR),
	FLD(struct hwc_host_power, energy_perf_preference, FT_STR),
	FLD(struct hwc_host_power, pstate_status, FT_STR),
	FLD(struct hwc_host_power, boost, FT_BOOL),
	FLD(struct hwc_host_power, cpuidle_driver, FT_STR),
	FLD(struct hwc_host_power, cpuidle_governor, FT_STR),
	FLD(struct hwc_host_power, aspm_policy, FT_STR),
};
static const struct field cstate_fields[] = {
	FLD(struct hwc_host_cstate, name, FT_STR),
	FLD(struct hwc_host_cstate, latency_us, FT_I64),
	FLD(struct hwc_host_cstate, disabled, FT_BOOL),
};
static const struct field dmi_fields[] = {
	FLD(struct hwc_host_dmi, sys_vendor, FT_STR),	FLD(struct hwc_host_dmi, product_name, FT_STR),
	FLD(struct hwc_host_dmi, board_vendor, FT_STR), FLD(struct hwc_host_dmi, board_name, FT_STR),
	FLD(struct hwc_host_dmi, bios_vendor, FT_STR),	FLD(struct hwc_host_dmi, bios_version, FT_STR),
	FLD(struct hwc_host_dmi, bios_date, FT_STR),
};
static const struct field kernel_fields[] = {
	FLD(struct hwc_host_kernel, release, FT_STR),
	FLD(struct hwc_host_kernel, cmdline, FT_STR),
	FLD(struct hwc_host_kernel, lockdown, FT_STR),
	FLD(struct hwc_host_kernel, uptime_s, FT_I64),
};
#define N(x) HWC_ARRAY_SIZE(x)

static void put_fields(json_t *o, const void *base, const struct field *fl, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const void *p = (const char *)base + fl[i].off;
		switch (fl[i].t) {
		case FT_STR: hwc_json_put_str(o, fl[i].key, p); break;
		case FT_I64: hwc_json_put_i64(o, fl[i].key, p); break;
		case FT_BOOL: hwc_json_put_bool(o, fl[i].key, p); break;
		}
	}
}

static int get_fields(const json_t *o, struct hwc_arena *a, void *base, const struct field *fl,
		      size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		void *p = (char *)base + fl[i].off;
		switch (fl[i].t) {
		case FT_STR: rc |= hwc_json_get_str(o, fl[i].key, a, p); break;
		case FT_I64: rc |= hwc_json_get_i64(o, fl[i].key, a, p); break;
		case FT_BOOL: rc |= hwc_json_get_bool(o, fl[i].key, a, p); break;
		}
	}
	return rc;
}

/* An array-valued fact: the array when known, else null with its status. */
static void put_array(json_t *o, const char *key, const struct hwc_fmeta *m, json_t *arr)
{
	if (m->st == HWC_ST_OK && arr) {
		json_object_set_new(o, key, arr);
	} else {
		json_decref(arr);
		hwc_json_put_meta(o, key, m->st == HWC_ST_OK ? &(struct hwc_fmeta){HWC_ST_INVALID, 0, "no memory"} : m);
	}
}

/* Reads the status of an array fact; returns the array to walk, or NULL. -EINVAL in *rc for a
 * value that is neither an array nor null. */
static const json_t *get_array(const json_t *o, const char *key, struct hwc_arena *a,
			       struct hwc_fmeta *m, int *rc)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_array(v)) {
		hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
		return v;
	}
	if (v && !json_is_null(v)) {
		hwc_fmeta_set(m, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not an array", key));
		*rc = -EINVAL;
		return NULL;
	}
	*rc |= hwc_json_get_meta(o, key, a, m);
	if (m->st == HWC_ST_OK) /* null without a status */
		hwc_fmeta_set(m, HWC_ST_UNSET, 0, NULL);
	return NULL;
}

static json_t *str_array(const struct hwc_str_list *l)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < l->n; i++)
		json_array_append_new(arr, hwc_json_string(l->items[i]));
	return arr;
}

static int get_str_array(const json_t *o, const char *key, struct hwc_arena *a, struct hwc_fmeta *m,
			 struct hwc_str_list *l)
{
	int rc = 0;
	const json_t *arr = get_array(o, key, a, m, &rc), *v;
	size_t i;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v))
			return -EINVAL;
		const char **s = HWC_VEC_PUSH(a, l);
		if (!s || !(*s = hwc_arena_strdup(a, json_string_value(v))))
			return -ENOMEM;
	}
	return rc;
}

static json_t *obj(json_t *parent, const char *key)
{
	json_t *o = json_object();
	json_object_set_new(parent, key, o);
	return o;
}

json_t *hwc_host_to_json(const struct hwc_facts *f)
{
	const struct hwc_host_facts *h = f->host;
	if (!h)
		return NULL;
	json_t *j = json_object();
	if (!j)
		return NULL;
	put_fields(obj(j, "cpu"), &h->cpu, cpu_fields, N(cpu_fields));

	json_t *nu = obj(j, "numa"), *nodes = json_array();
	for (size_t i = 0; nodes && i < h->numa.nodes.n; i++) {
		const struct hwc_host_numa_node *nd = &h->numa.nodes.items[i];
		json_t *no = json_object(), *dist = json_array();
		json_object_set_new(no, "id", json_integer(nd->id));
		put_fields(no, nd, node_fields, N(node_fields));
		for (size_t k = 0; dist && k < nd->distances.n; k++)
			json_array_append_new(dist, json_integer(nd->distances.items[k]));
		put_array(no, "distances", &nd->distances_m, dist);
		json_array_append_new(nodes, no);
	}
	put_array(nu, "nodes", &h->numa.nodes_m, nodes);
	put_fields(nu, &h->numa, numa_fields, N(numa_fields));

	put_fields(obj(j, "x2apic"), &h->x2apic, x2apic_fields, N(x2apic_fields));

	json_t *io = obj(j, "iommu"), *groups = json_array();
	put_fields(io, &h->iommu, iommu_fields, N(iommu_fields));
	put_array(io, "units", &h->iommu.units_m, str_array(&h->iommu.units));
	put_array(io, "cmdline_options", &h->iommu.cmdline_options_m,
		  str_array(&h->iommu.cmdline_options));
	for (size_t i = 0; groups && i < h->iommu.groups.n; i++) {
		json_t *g = json_object();
		json_object_set_new(g, "id", json_integer(h->iommu.groups.items[i].id));
		put_fields(g, &h->iommu.groups.items[i], group_fields, N(group_fields));
		json_array_append_new(groups, g);
	}
	put_array(io, "groups", &h->iommu.groups_m, groups);

	json_t *pw = obj(j, "power"), *cs = json_array();
	put_fields(pw, &h->power, power_fields, N(power_fields));
	for (size_t i = 0; cs && i < h->power.cstates.n; i++) {
		json_t *c = json_object();
		put_fields(c, &h->power.cstates.items[i], cstate_fields, N(cstate_fields));
		json_array_append_new(cs, c);
	}
	put_array(pw, "cstates", &h->power.cstates_m, cs);

	put_fields(obj(j, "dmi"), &h->dmi, dmi_fields, N(dmi_fields));
	put_fields(obj(j, "kernel"), &h->kernel, kernel_fields, N(kernel_fields));
	/* last, so that a null hostname's "unavailable" stays the object's last key */
	hwc_json_put_str(j, "hostname", &h->hostname);
	return j;
}

int hwc_host_from_json(const json_t *j, struct hwc_facts *f)
{
	struct hwc_arena *a = f->arena;
	struct hwc_host_facts *h = hwc_arena_zalloc(a, sizeof(*h));
	if (!h)
		return -ENOMEM;
	f->host = h;
	int rc = hwc_json_get_str(j, "hostname", a, &h->hostname);
	rc |= get_fields(json_object_get(j, "cpu"), a, &h->cpu, cpu_fields, N(cpu_fields));

	const json_t *nu = json_object_get(j, "numa"), *v;
	rc |= get_fields(nu, a, &h->numa, numa_fields, N(numa_fields));
	size_t i, k;
	const json_t *arr = get_array(nu, "nodes", a, &h->numa.nodes_m, &rc);
	json_array_foreach(arr, i, v) {
		struct hwc_host_numa_node *nd = HWC_VEC_PUSH(a, &h->numa.nodes);
		if (!nd)
			return -ENOMEM;
		memset(nd, 0, sizeof(*nd));
		if (!json_is_integer(json_object_get(v, "id")))
			return -EINVAL;
		nd->id = json_integer_value(json_object_get(v, "id"));
		rc |= get_fields(v, a, nd, node_fields, N(node_fields));
		const json_t *d, *dist = get_array(v, "distances", a, &nd->distances_m, &rc);
		json_array_foreach(dist, k, d) {
			int64_t *slot = HWC_VEC_PUSH(a, &nd->distances);
			if (!json_is_integer(d) || !slot)
				return -EINVAL;
			*slot = json_integer_value(d);
		}
	}

	rc |= get_fields(json_object_get(j, "x2apic"), a, &h->x2apic, x2apic_fields, N(x2apic_fields));

	const json_t *io = json_object_get(j, "iommu");
	rc |= get_fields(io, a, &h->iommu, iommu_fields, N(iommu_fields));
	rc |= get_str_array(io, "units", a, &h->iommu.units_m, &h->iommu.units);
	rc |= get_str_array(io, "cmdline_options", a, &h->iommu.cmdline_options_m,
			    &h->iommu.cmdline_options);
	arr = get_array(io, "groups", a, &h->iommu.groups_m, &rc);
	json_array_foreach(arr, i, v) {
		struct hwc_host_iommu_group *g = HWC_VEC_PUSH(a, &h->iommu.groups);
		if (!g || !json_is_integer(json_object_get(v, "id")))
			return -EINVAL;
		memset(g, 0, sizeof(*g));
		g->id = json_integer_value(json_object_get(v, "id"));
		rc |= get_fields(v, a, g, group_fields, N(group_fields));
	}

	const json_t *pw = json_object_get(j, "power");
	rc |= get_fields(pw, a, &h->power, power_fields, N(power_fields));
	arr = get_array(pw, "cstates", a, &h->power.cstates_m, &rc);
	json_array_foreach(arr, i, v) {
		struct hwc_host_cstate *c = HWC_VEC_PUSH(a, &h->power.cstates);
		if (!c || !json_is_object(v))
			return -EINVAL;
		memset(c, 0, sizeof(*c));
		rc |= get_fields(v, a, c, cstate_fields, N(cstate_fields));
	}

	rc |= get_fields(json_object_get(j, "dmi"), a, &h->dmi, dmi_fields, N(dmi_fields));
	rc |= get_fields(json_object_get(j, "kernel"), a, &h->kernel, kernel_fields, N(kernel_fields));
	return rc ? -EINVAL : 0;
}

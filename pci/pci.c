/* SPDX-License-Identifier: MIT */
/* facts.pci <-> JSON, table-driven so that writing and reading cannot drift apart. */
#include "pci/pci.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

enum ftype { F_I64, F_F64, F_BOOL, F_STR };
struct field {
	const char *key;
	enum ftype t;
	size_t off;
};
/* A sub-object: written when its meta is ok, null + "unavailable" on failure, omitted when
 * nobody set it (so the round trip restores "not there" as not there). */
struct group {
	const char *key;
	size_t meta;
	const struct field *fields;
	size_t n;
};

#define D(k, t, m) {k, t, offsetof(struct hwc_pci_device, m)}
static const struct field dev_fields[] = {
	D("bdf", F_STR, bdf),
	D("vendor_id", F_STR, vendor_id),
	D("device_id", F_STR, device_id),
	D("subsystem_vendor_id", F_STR, subsystem_vendor_id),
	D("subsystem_device_id", F_STR, subsystem_device_id),
	D("class", F_STR, class_code),
	D("revision", F_I64, revision),
	D("function", F_I64, function),
	D("driver", F_STR, driver),
	D("numa_node", F_I64, numa_node),
	D("iommu_group", F_I64, iommu_group),
	D("port_type", F_STR, port_type),
	D("is_vf", F_BOOL, is_vf),
	D("physfn", F_STR, physfn),
	D("link_from", F_STR, link_from),
	D("link_status", F_STR, link_status),
	D("max_payload_bytes", F_I64, max_payload_bytes),
	D("max_payload_supported_bytes", F_I64, max_payload_supported_bytes),
	D("max_read_request_bytes", F_I64, max_read_request_bytes),
	D("relaxed_ordering", F_BOOL, relaxed_ordering),
	D("no_snoop", F_BOOL, no_snoop),
	D("extended_tag", F_BOOL, extended_tag),
	D("slot_power_limit_w", F_F64, slot_power_limit_w),
	D("aer_capable", F_BOOL, aer_capable),
	D("upstream", F_STR, upstream),
	D("config_bytes", F_I64, config_bytes),
};
static const struct field sriov_fields[] = {
	D("total_vfs", F_I64, sriov.total_vfs),
	D("num_vfs", F_I64, sriov.num_vfs),
	D("vf_device_id", F_STR, sriov.vf_device_id),
};
static const struct field link_fields[] = {
	D("speed_gts", F_F64, link.speed_gts),
	D("width", F_I64, link.width),
	D("cap_speed_gts", F_F64, link.cap_speed_gts),
	D("cap_width", F_I64, link.cap_width),
	D("target_speed_gts", F_F64, link.target_speed_gts),
	D("aspm", F_STR, link.aspm),
	D("aspm_supported", F_STR, link.aspm_supported),
	D("dll_active", F_BOOL, link.dll_active),
	D("flit_mode", F_BOOL, link.flit_mode),
	D("gbps", F_F64, link.gbps),
	D("cap_gbps", F_F64, link.cap_gbps),
};
static const struct field slot_fields[] = {
	D("power_limit_w", F_F64, slot.power_limit_w),
	D("physical_slot", F_I64, slot.physical_slot),
};
static const struct field upslot_fields[] = {
	D("power_limit_w", F_F64, upstream_slot.power_limit_w),
	D("physical_slot", F_I64, upstream_slot.physical_slot),
};
static const struct field devsta_fields[] = {
	D("correctable", F_BOOL, dev_status.correctable),
	D("nonfatal", F_BOOL, dev_status.nonfatal),
	D("fatal", F_BOOL, dev_status.fatal),
	D("unsupported_request", F_BOOL, dev_status.unsupported_request),
};
static const struct field aer_fields[] = {
	D("correctable", F_I64, aer.correctable),
	D("nonfatal", F_I64, aer.nonfatal),
	D("fatal", F_I64, aer.fatal),
};
static const struct field bn_fields[] = {
	D("bdf", F_STR, path_bottleneck.bdf),
	D("speed_gts", F_F64, path_bottleneck.speed_gts),
	D("width", F_I64, path_bottleneck.width),
	D("gbps", F_F64, path_bottleneck.gbps),
	D("raw_gbps", F_F64, path_bottleneck.raw_gbps),
	D("mps_bytes", F_I64, path_bottleneck.mps_bytes),
	D("capable_raw_gbps", F_F64, path_bottleneck.capable_raw_gbps),
};
static const struct field vpd_fields[] = {
	D("product_name", F_STR, vpd.product_name),
	D("part_number", F_STR, vpd.part_number),
	D("serial_number", F_STR, vpd.serial_number),
};
#define N(x) HWC_ARRAY_SIZE(x)
#define G(k, m, t) {k, offsetof(struct hwc_pci_device, m), t, N(t)}
static const struct group groups[] = {
	G("sriov", sriov.m, sriov_fields),
	G("link", link.m, link_fields),
	G("slot", slot.m, slot_fields),
	G("upstream_slot", upstream_slot.m, upslot_fields),
	G("dev_status", dev_status.m, devsta_fields),
	G("aer", aer.m, aer_fields),
	G("path_bottleneck", path_bottleneck.m, bn_fields),
	G("vpd", vpd.m, vpd_fields),
};

/* Copy every string and detail of d into a (they were made in a scratch arena). */
static const char *dup(struct hwc_arena *a, const char *s) { return s ? hwc_arena_strdup(a, s) : NULL; }

static void persist_fields(struct hwc_arena *a, void *base, const struct field *fs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *p = (char *)base + fs[i].off;
		struct hwc_fmeta *m = p;
		m->detail = dup(a, m->detail);
		if (fs[i].t == F_STR && m->st == HWC_ST_OK)
			((struct hwc_fstr *)p)->v = dup(a, ((struct hwc_fstr *)p)->v);
	}
}

void hwc_pci_device_persist(struct hwc_pci_device *d, struct hwc_arena *a)
{
	persist_fields(a, d, dev_fields, N(dev_fields));
	for (size_t g = 0; g < N(groups); g++) {
		struct hwc_fmeta *m = (void *)((char *)d + groups[g].meta);
		m->detail = dup(a, m->detail);
		persist_fields(a, d, groups[g].fields, groups[g].n);
	}
	struct hwc_pci_f64list *l = &d->link.supported_speeds_gts;
	l->m.detail = dup(a, l->m.detail);
	double *items = l->n ? hwc_arena_calloc(a, l->n, sizeof(double)) : NULL;
	if (items)
		memcpy(items, l->items, l->n * sizeof(double));
	l->items = items;
	l->cap = items ? l->n : 0;
	if (!items)
		l->n = 0;
	d->path.m.detail = dup(a, d->path.m.detail);
}

static int put_fields(json_t *o, const void *base, const struct field *fs, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const void *p = (const char *)base + fs[i].off;
		const struct hwc_fmeta *m = p; /* every fact starts with its meta */
		if (m->st == HWC_ST_UNSET && strcmp(fs[i].key, "bdf") != 0)
			continue; /* not applicable to this function: omitted */
		switch (fs[i].t) {
		case F_I64: rc |= hwc_json_put_i64(o, fs[i].key, p); break;
		case F_F64: rc |= hwc_json_put_f64(o, fs[i].key, p); break;
		case F_BOOL: rc |= hwc_json_put_bool(o, fs[i].key, p); break;
		case F_STR: rc |= hwc_json_put_str(o, fs[i].key, p); break;
		}
	}
	return rc;
}

static int get_fields(const json_t *o, struct hwc_arena *a, void *base, const struct field *fs,
		      size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		void *p = (char *)base + fs[i].off;
		switch (fs[i].t) {
		case F_I64: rc |= hwc_json_get_i64(o, fs[i].key, a, p); break;
		case F_F64: rc |= hwc_json_get_f64(o, fs[i].key, a, p); break;
		case F_BOOL: rc |= hwc_json_get_bool(o, fs[i].key, a, p); break;
		case F_STR: rc |= hwc_json_get_str(o, fs[i].key, a, p); break;
		}
	}
	return rc;
}

static int put_list(json_t *o, const char *key, const struct hwc_fmeta *m, json_t *arr)
{
	if (m->st == HWC_ST_UNSET) {
		json_decref(arr);
		return 0;
	}
	if (m->st != HWC_ST_OK) {
		json_decref(arr);
		return hwc_json_put_meta(o, key, m);
	}
	return arr && json_object_set_new(o, key, arr) == 0 ? 0 : -ENOMEM;
}

/* Keep "unavailable" the last key, whatever was written after the scalar facts. */
static void unavailable_last(json_t *o)
{
	json_t *u = json_object_get(o, HWC_JSON_UNAVAILABLE);
	if (u) {
		json_incref(u);
		json_object_del(o, HWC_JSON_UNAVAILABLE);
		json_object_set_new(o, HWC_JSON_UNAVAILABLE, u);
	}
}

static json_t *device_to_json(const struct hwc_pci_device *d)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	put_fields(o, d, dev_fields, N(dev_fields));
	json_t *path = json_array();
	for (size_t i = 0; path && i < d->path.n; i++)
		json_array_append_new(path, hwc_json_string(d->path.items[i]));
	put_list(o, "path", &d->path.m, path);
	for (size_t g = 0; g < N(groups); g++) {
		const struct hwc_fmeta *m = (const void *)((const char *)d + groups[g].meta);
		if (m->st == HWC_ST_UNSET)
			continue;
		if (m->st != HWC_ST_OK) {
			hwc_json_put_meta(o, groups[g].key, m);
			continue;
		}
		json_t *s = json_object();
		put_fields(s, d, groups[g].fields, groups[g].n);
		if (groups[g].meta == offsetof(struct hwc_pci_device, link.m)) {
			json_t *sp = json_array();
			for (size_t i = 0; sp && i < d->link.supported_speeds_gts.n; i++)
				json_array_append_new(sp, json_real(d->link.supported_speeds_gts.items[i]));
			put_list(s, "supported_speeds_gts", &d->link.supported_speeds_gts.m, sp);
		}
		unavailable_last(s);
		json_object_set_new(o, groups[g].key, s);
	}
	unavailable_last(o);
	return o;
}

json_t *hwc_pci_to_json(const struct hwc_facts *f)
{
	const struct hwc_pci_facts *p = f->pci;
	if (!p)
		return NULL;
	json_t *j = json_object();
	if (!j)
		return NULL;
	/* The source is not a fact about the machine: without devices, nothing was collected. */
	if (p->source.m.st == HWC_ST_OK && p->m.st == HWC_ST_OK)
		hwc_json_put_str(j, "source", &p->source);
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < p->devices.n; i++)
		json_array_append_new(arr, device_to_json(&p->devices.items[i]));
	if (p->m.st == HWC_ST_OK || p->m.st == HWC_ST_UNSET)
		json_object_set_new(j, "devices", arr);
	else {
		json_decref(arr);
		hwc_json_put_meta(j, "devices", &p->m);
	}
	return j;
}

static int list_status(const json_t *o, const char *key, struct hwc_arena *a, struct hwc_fmeta *m,
		       const json_t **arr)
{
	*arr = json_object_get(o, key);
	int rc = hwc_json_get_meta(o, key, a, m);
	if (m->st == HWC_ST_OK && !json_is_array(*arr)) {
		hwc_fmeta_set(m, HWC_ST_INVALID, 0, "expected an array");
		return -EINVAL;
	}
	return rc;
}

static int device_from_json(const json_t *o, struct hwc_arena *a, struct hwc_pci_device *d)
{
	if (!json_is_object(o))
		return -EINVAL;
	int rc = get_fields(o, a, d, dev_fields, N(dev_fields));
	d->parent = -1;
	d->pcie_type = -1;
	d->sec_bus = d->sub_bus = -1;
	const json_t *arr;
	rc |= list_status(o, "path", a, &d->path.m, &arr);
	if (d->path.m.st == HWC_ST_OK) {
		size_t i;
		const json_t *v;
		json_array_foreach(arr, i, v) {
			const char **s = HWC_VEC_PUSH(a, &d->path);
			if (!s || !json_is_string(v))
				return -EINVAL;
			*s = hwc_arena_strdup(a, json_string_value(v));
		}
	}
	for (size_t g = 0; g < N(groups); g++) {
		struct hwc_fmeta *m = (void *)((char *)d + groups[g].meta);
		rc |= hwc_json_get_meta(o, groups[g].key, a, m);
		if (m->st != HWC_ST_OK)
			continue;
		const json_t *s = json_object_get(o, groups[g].key);
		if (!json_is_object(s)) {
			hwc_fmeta_set(m, HWC_ST_INVALID, 0, "expected an object");
			rc = -EINVAL;
			continue;
		}
		rc |= get_fields(s, a, d, groups[g].fields, groups[g].n);
		if (groups[g].meta == offsetof(struct hwc_pci_device, link.m)) {
			struct hwc_pci_f64list *l = &d->link.supported_speeds_gts;
			rc |= list_status(s, "supported_speeds_gts", a, &l->m, &arr);
			if (l->m.st != HWC_ST_OK)
				continue;
			size_t i;
			const json_t *v;
			json_array_foreach(arr, i, v) {
				double *x = HWC_VEC_PUSH(a, l);
				if (!x || !json_is_number(v))
					return -EINVAL;
				*x = json_number_value(v);
			}
		}
	}
	return rc ? -EINVAL : 0;
}

int hwc_pci_from_json(const json_t *j, struct hwc_facts *f)
{
	if (!json_is_object(j))
		return -EINVAL;
	struct hwc_pci_facts *p = hwc_arena_zalloc(f->arena, sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->pci = p;
	int rc = 0;
	if (json_object_get(j, "source"))
		rc |= hwc_json_get_str(j, "source", f->arena, &p->source);
	const json_t *arr;
	rc |= list_status(j, "devices", f->arena, &p->m, &arr);
	if (p->m.st == HWC_ST_OK) {
		size_t i;
		const json_t *v;
		json_array_foreach(arr, i, v) {
			struct hwc_pci_device *d = HWC_VEC_PUSH(f->arena, &p->devices);
			if (!d)
				return -ENOMEM;
			if (device_from_json(v, f->arena, d) < 0) {
				hwc_facts_error(f, "facts-file", "pci.devices", "device %zu not fully readable", i);
				rc = -EINVAL;
			}
		}
	}
	return rc ? -EINVAL : 0;
}

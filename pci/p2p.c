/* SPDX-License-Identifier: MIT */
/* GPUDirect peers: GPUs, ConnectX NICs and NVMe drives on the PCI tree, the relation of each GPU
 * to every peer in the words of `nvidia-smi topo -m`, and each GPU's nearest NICs with the route
 * between them. A pure function of the PCI facts (what survives their JSON form), so a facts file
 * gives the same view as the machine. */
#include "pci/pci.h"

#include <stdlib.h>
#include <string.h>

#include "core/json.h"

#define MAX_LEVELS 64

enum rel { R_PIX, R_PXB, R_PHB, R_NODE, R_SYS, R_UNKNOWN };
static const char *const rel_names[] = {"PIX", "PXB", "PHB", "NODE", "SYS", "unknown"};

struct peer {
	const struct hwc_pci_device *d;
	const char *kind;        /* gpu, nic, nvme */
	char hb[24]; /* "dddd:bb" of the root bus, "" when the top is not visible */
	const char *levels[MAX_LEVELS]; /* switches (upstream port BDF) and root ports above it */
	size_t nlev;
};

struct view {
	const struct hwc_pci_facts *p;
	const struct hwc_pci_device **by_bdf; /* sorted by BDF string */
	size_t nb;
	struct peer *peers;
	size_t n, ngpu;
};

static bool is(const struct hwc_fstr *f, const char *v) { return hwc_ok(*f) && strcmp(f->v, v) == 0; }

static bool starts(const struct hwc_fstr *f, const char *pre)
{
	return hwc_ok(*f) && strncmp(f->v, pre, strlen(pre)) == 0;
}

/* GPUs (NVIDIA and AMD display/3D controllers), ConnectX NICs, NVMe drives; not VFs. */
static const char *kind_of(const struct hwc_pci_device *d)
{
	if (hwc_ok(d->is_vf) && d->is_vf.v)
		return NULL;
	if ((is(&d->vendor_id, "10de") || is(&d->vendor_id, "1002")) &&
	    (starts(&d->class_code, "0300") || starts(&d->class_code, "0302")))
		return "gpu";
	if (is(&d->vendor_id, "15b3") && starts(&d->class_code, "02"))
		return "nic";
	if (starts(&d->class_code, "010802"))
		return "nvme";
	return NULL;
}

static int cmp_dev_bdf(const void *x, const void *y)
{
	const struct hwc_pci_device *const *a = x, *const *b = y;
	return strcmp((*a)->bdf.v, (*b)->bdf.v);
}

static const struct hwc_pci_device *lookup(const struct view *v, const char *bdf)
{
	struct hwc_pci_device key = {.bdf = {.m = {.st = HWC_ST_OK}, .v = bdf}};
	const struct hwc_pci_device *kp = &key;
	const struct hwc_pci_device **hit =
		bdf ? bsearch(&kp, v->by_bdf, v->nb, sizeof(*v->by_bdf), cmp_dev_bdf) : NULL;
	return hit ? *hit : NULL;
}

/* A switch counts once, as nvidia-smi counts it: its downstream ports are named by the upstream
 * port above them. Root ports and other bridges are levels of their own. */
static void levels_of(const struct view *v, struct peer *pe)
{
	const struct hwc_pci_strlist *path = &pe->d->path;
	for (size_t i = 0; i < path->n; i++)
		if (!path->items[i])
			return; /* a broken path (a hand-edited facts file): no level, no root bus */
	for (size_t i = 1; i < path->n && pe->nlev < MAX_LEVELS; i++) {
		const struct hwc_pci_device *b = lookup(v, path->items[i]);
		const char *id = path->items[i];
		if (b && is(&b->port_type, "downstream_port") && i + 1 < path->n) {
			const struct hwc_pci_device *up = lookup(v, path->items[i + 1]);
			if (up && is(&up->port_type, "upstream_port"))
				id = up->bdf.v;
		}
		if (!pe->nlev || strcmp(pe->levels[pe->nlev - 1], id) != 0)
			pe->levels[pe->nlev++] = id;
	}
	/* The root bus: the top of the path is a root port (or on a root bus); a top whose own
	 * upstream port is named but not visible (a VM, a filtered dump) leaves it unknown. */
	const struct hwc_pci_device *top = path->n ? lookup(v, path->items[path->n - 1]) : NULL;
	if (top && !hwc_ok(top->upstream) && hwc_ok(top->bdf)) {
		const char *colon = strrchr(top->bdf.v, ':');
		size_t len = colon ? (size_t)(colon - top->bdf.v) : 0;
		if (len && len < sizeof(pe->hb)) {
			memcpy(pe->hb, top->bdf.v, len);
			pe->hb[len] = 0;
		}
	}
}

static enum rel relation(const struct peer *a, const struct peer *b)
{
	for (size_t i = 0; i < a->nlev; i++)
		for (size_t j = 0; j < b->nlev; j++)
			if (strcmp(a->levels[i], b->levels[j]) == 0)
				return i + j == 0 ? R_PIX : R_PXB;
	if (!a->hb[0] || !b->hb[0])
		return R_UNKNOWN;
	if (strcmp(a->hb, b->hb) == 0)
		return R_PHB;
	if (!hwc_ok(a->d->numa_node) || !hwc_ok(b->d->numa_node))
		return R_UNKNOWN;
	return a->d->numa_node.v == b->d->numa_node.v ? R_NODE : R_SYS;
}

static int cmp_peer(const void *x, const void *y)
{
	const struct peer *a = x, *b = y;
	int ka = strcmp(a->kind, "gpu") == 0 ? 0 : strcmp(a->kind, "nic") == 0 ? 1 : 2;
	int kb = strcmp(b->kind, "gpu") == 0 ? 0 : strcmp(b->kind, "nic") == 0 ? 1 : 2;
	return ka != kb ? ka - kb : strcmp(a->d->bdf.v, b->d->bdf.v);
}

/* The deepest device both paths hold (a switch's upstream port, a root port), NULL if none. */
static const char *common_of(const struct hwc_pci_device *a, const struct hwc_pci_device *b)
{
	for (size_t i = 1; i < a->path.n; i++)
		for (size_t j = 1; j < b->path.n; j++)
			if (a->path.items[i] && b->path.items[j] &&
			    strcmp(a->path.items[i], b->path.items[j]) == 0)
				return a->path.items[i];
	return NULL;
}

/* gpu -> ... [-> common] -> ... -> nic: the functions whose links and ACS the traffic meets. */
static json_t *route(const struct hwc_pci_device *g, const struct hwc_pci_device *n,
		     const char *common)
{
	json_t *r = json_array();
	for (size_t i = 0; r && i < g->path.n && g->path.items[i]; i++) {
		if (common && strcmp(g->path.items[i], common) == 0)
			break;
		json_array_append_new(r, json_string(g->path.items[i]));
	}
	if (common)
		json_array_append_new(r, json_string(common));
	size_t stop = n->path.n;
	for (size_t i = 0; common && i < n->path.n; i++)
		if (n->path.items[i] && strcmp(n->path.items[i], common) == 0)
			stop = i;
	for (size_t i = stop; r && i-- > 0;)
		if (n->path.items[i])
			json_array_append_new(r, json_string(n->path.items[i]));
	return r;
}

static json_t *pair_json(const struct peer *g, const struct peer *n, enum rel r)
{
	const char *common = r == R_PIX || r == R_PXB ? common_of(g->d, n->d) : NULL;
	json_t *o = json_object();
	json_object_set_new(o, "gpu", json_string(g->d->bdf.v));
	json_object_set_new(o, "nic", json_string(n->d->bdf.v));
	json_object_set_new(o, "relation", json_string(rel_names[r]));
	json_object_set_new(o, "common", common ? json_string(common) : json_null());
	json_object_set_new(o, "route", route(g->d, n->d, common));
	return o;
}

/* Each GPU's nearest NICs (every NIC at its best relation), and its row of the matrix. */
static void gpu_rows(const struct view *v, json_t *matrix, json_t *pairs)
{
	for (size_t i = 0; i < v->ngpu; i++) {
		const struct peer *g = &v->peers[i];
		json_t *row = json_object();
		enum rel best = R_UNKNOWN;
		for (size_t j = 0; j < v->n; j++) {
			enum rel r = j == i ? R_UNKNOWN : relation(g, &v->peers[j]);
			json_object_set_new(row, v->peers[j].d->bdf.v,
					    json_string(j == i ? "X" : rel_names[r]));
			if (strcmp(v->peers[j].kind, "nic") == 0 && r < best)
				best = r;
		}
		json_object_set_new(matrix, g->d->bdf.v, row);
		for (size_t j = v->ngpu; best != R_UNKNOWN && j < v->n; j++)
			if (strcmp(v->peers[j].kind, "nic") == 0 && relation(g, &v->peers[j]) == best)
				json_array_append_new(pairs, pair_json(g, &v->peers[j], best));
	}
}

static json_t *peers_json(const struct view *v)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < v->n; i++) {
		const struct peer *pe = &v->peers[i];
		json_t *o = json_object();
		json_object_set_new(o, "bdf", json_string(pe->d->bdf.v));
		json_object_set_new(o, "kind", json_string(pe->kind));
		hwc_json_put_i64(o, "numa_node", &pe->d->numa_node);
		json_object_set_new(o, "host_bridge",
				    pe->hb[0] ? json_string(pe->hb) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *hwc_pci_gpudirect_json(const struct hwc_pci_facts *p)
{
	struct view v = {.p = p};
	json_t *o = json_object();
	if (!o || !p)
		return o;
	v.by_bdf = calloc(p->devices.n + 1, sizeof(*v.by_bdf));
	v.peers = calloc(p->devices.n + 1, sizeof(*v.peers));
	for (size_t i = 0; v.by_bdf && i < p->devices.n; i++)
		if (hwc_ok(p->devices.items[i].bdf))
			v.by_bdf[v.nb++] = &p->devices.items[i];
	if (v.by_bdf)
		qsort(v.by_bdf, v.nb, sizeof(*v.by_bdf), cmp_dev_bdf);
	for (size_t i = 0; v.peers && v.by_bdf && i < p->devices.n; i++) {
		const struct hwc_pci_device *d = &p->devices.items[i];
		const char *k = hwc_ok(d->bdf) ? kind_of(d) : NULL;
		if (!k)
			continue;
		struct peer *pe = &v.peers[v.n++];
		pe->d = d, pe->kind = k;
		levels_of(&v, pe);
		if (strcmp(k, "gpu") == 0)
			v.ngpu++;
	}
	if (v.peers)
		qsort(v.peers, v.n, sizeof(*v.peers), cmp_peer);
	json_t *matrix = json_object(), *pairs = json_array();
	gpu_rows(&v, matrix, pairs);
	json_object_set_new(o, "peers", peers_json(&v));
	json_object_set_new(o, "matrix", matrix);
	json_object_set_new(o, "pairs", pairs);
	free(v.by_bdf);
	free(v.peers);
	return o;
}

void hwc_pci_collect_peer_memory(struct hwc_env *e, struct hwc_arena *a, struct hwc_pci_facts *p)
{
	struct hwc_pci_peer_memory *pm = &p->peer_memory;
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, "sys/module", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &pm->m, a, "sys/module", -rc);
		return;
	}
	hwc_fmeta_set(&pm->m, HWC_ST_OK, 0, NULL);
	HWC_SET(pm->nvidia_peermem, false);
	HWC_SET(pm->nv_peer_mem, false);
	for (size_t i = 0; i < dl.n; i++) {
		if (strcmp(dl.names[i], "nvidia_peermem") == 0)
			HWC_SET(pm->nvidia_peermem, true);
		if (strcmp(dl.names[i], "nv_peer_mem") == 0)
			HWC_SET(pm->nv_peer_mem, true);
	}
	hwc_read_str(e, "sys/module/nvidia/version", a, &pm->nvidia_driver_version);
}

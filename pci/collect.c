/* SPDX-License-Identifier: MIT */
/* Collection: sysfs (live or a captured root) or an lspci dump, then topology, links and paths. */
#include "pci/pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scan.h"

#define DEVDIR "sys/bus/pci/devices"
#define MAX_HOPS 64

static unsigned long long key_of(unsigned dom, unsigned bus, unsigned dev, unsigned fn)
{
	return (unsigned long long)dom << 16 | bus << 8 | dev << 3 | fn;
}

static unsigned long long dkey(const struct hwc_pci_device *d)
{
	return key_of(d->domain, d->bus, d->dev, d->fn);
}

static int cmp_dev(const void *x, const void *y)
{
	unsigned long long a = dkey(x), b = dkey(y);
	return a < b ? -1 : a > b;
}

static long find_key(const struct hwc_pci_facts *p, unsigned long long k)
{
	size_t lo = 0, hi = p->devices.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		unsigned long long m = dkey(&p->devices.items[mid]);
		if (m == k)
			return (long)mid;
		if (m < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static long find_bdf(const struct hwc_pci_facts *p, const char *bdf)
{
	struct hwc_bdf b;
	return hwc_bdf_parse(bdf, HWC_BDF_SHORT, &b) ? find_key(p, key_of(b.domain, b.bus, b.dev, b.fn))
						     : -1;
}

/* ---- sysfs ---------------------------------------------------------------------------- */

/* One directory per function, resolved once (hwc_env_dir_open): its attributes are then one
 * openat() each. A 1,000-function host otherwise walks the root 15,000 times. */
struct devdir {
	struct hwc_env *e;
	struct hwc_env_dir dir;
	struct hwc_arena *a; /* scratch: freed after the function */
};

static int rd_bytes(struct devdir *dd, const char *leaf, size_t cap, const unsigned char **buf,
		    size_t *len, struct hwc_fmeta *m)
{
	return hwc_read_bytes_at(dd->e, &dd->dir, leaf, cap, dd->a, buf, len, m);
}

/* Text with trailing whitespace cut, as hwc_read_str. */
static int rd_str(struct devdir *dd, const char *leaf, struct hwc_fstr *out)
{
	const unsigned char *b;
	size_t len;
	if (rd_bytes(dd, leaf, 4096, &b, &len, &out->m) < 0)
		return -1;
	char *s = (char *)b;
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		s[--len] = 0;
	if (memchr(s, 0, len)) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(dd->a, "/%s/%s: binary content", dd->dir.path, leaf));
		return -1;
	}
	HWC_SET(*out, s);
	return 0;
}

/* Decimal, or hex with 0x, as hwc_read_i64. */
static int rd_i64(struct devdir *dd, const char *leaf, struct hwc_fi64 *out)
{
	struct hwc_fstr s;
	if (rd_str(dd, leaf, &s) < 0) {
		out->m = s.m;
		return -1;
	}
	int64_t v;
	bool hex = strncmp(s.v, "0x", 2) == 0;
	if (hwc_parse_i64(hex ? s.v + 2 : s.v, hex ? 16 : 10, &v) < 0) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(dd->a, "/%s/%s: expected an integer, got '%.40s'",
					  dd->dir.path, leaf, s.v));
		return -1;
	}
	HWC_SET(*out, v);
	return 0;
}

static void read_aer(struct devdir *dd, struct hwc_pci_device *d)
{
	static const char *const files[] = {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"};
	struct hwc_fi64 *out[] = {&d->aer.correctable, &d->aer.nonfatal, &d->aer.fatal};
	for (int i = 0; i < 3; i++) {
		const unsigned char *buf;
		size_t len;
		if (rd_bytes(dd, files[i], 64 * 1024, &buf, &len, &out[i]->m) < 0) {
			if (i == 0) {
				/* Only AER-capable devices (kernel >= 4.19) have the files. */
				hwc_fmeta_set(&d->aer.m, out[0]->m.st, out[0]->m.err, out[0]->m.detail);
				return;
			}
			continue;
		}
		long long v;
		if (hwc_pci_parse_aer_total((const char *)buf, len, &v) == 0)
			HWC_SET(*out[i], v);
		else
			HWC_FAIL(*out[i], HWC_ST_INVALID, 0,
				 hwc_arena_printf(dd->a, "/%s/%s: no TOTAL_ERR_* line", dd->dir.path,
						  files[i]));
	}
	hwc_fmeta_set(&d->aer.m, HWC_ST_OK, 0, NULL);
}

/* Without root the kernel gives 64 bytes of config: the link from the sysfs attributes. */
static void link_fallback(struct devdir *dd, struct hwc_pci_device *d)
{
	struct hwc_pci_link *l = &d->link;
	const struct hwc_fmeta was = l->m;
	struct hwc_fstr s;
	const char *sp[2] = {"current_link_speed", "max_link_speed"};
	struct hwc_ff64 *sf[2] = {&l->speed_gts, &l->cap_speed_gts};
	bool any = false;
	for (int i = 0; i < 2; i++) {
		if (rd_str(dd, sp[i], &s) < 0) {
			sf[i]->m = s.m;
			continue;
		}
		double g;
		if (hwc_pci_parse_speed(s.v, &g) == 0) {
			HWC_SET(*sf[i], g);
			any = true;
		} else {
			HWC_FAIL(*sf[i], HWC_ST_INVALID, 0,
				 hwc_arena_printf(dd->a, "/%s/%s: \"%s\" is not a link speed",
						  dd->dir.path, sp[i], s.v));
		}
	}
	if (rd_i64(dd, "current_link_width", &l->width) == 0)
		any = true;
	if (rd_i64(dd, "max_link_width", &l->cap_width) == 0)
		any = true;
	if (!any) {
		l->m = was;
		return;
	}
	hwc_fmeta_set(&l->m, HWC_ST_OK, 0, NULL);
	struct hwc_fmeta nr = was;
	HWC_FAIL(l->target_speed_gts, nr.st, 0, nr.detail);
	HWC_FAIL(l->aspm, nr.st, 0, nr.detail);
	HWC_FAIL(l->aspm_supported, nr.st, 0, nr.detail);
	HWC_FAIL(l->dll_active, nr.st, 0, nr.detail);
	HWC_FAIL(l->flit_mode, nr.st, 0, nr.detail);
	hwc_fmeta_set(&l->supported_speeds_gts.m, nr.st, 0, nr.detail);
}

/* The sysfs path is the topology: sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0. */
static void upstream_from_path(struct hwc_arena *a, const char *real, struct hwc_pci_device *d)
{
	const char *last = strrchr(real, '/');
	const char *prev = NULL;
	for (const char *p = real; last && p < last;) {
		const char *s = strchr(p, '/');
		if (!s || s > last)
			break;
		size_t n = (size_t)(s - p);
		if (n && hwc_bdf_scan(p, n, HWC_BDF_SHORT, NULL) == n)
			prev = p;
		p = s + 1;
	}
	if (prev)
		HWC_SET(d->upstream, hwc_arena_strndup(a, prev, (size_t)(strchr(prev, '/') - prev)));
	else
		HWC_FAIL(d->upstream, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "on a root bus (/%s)", real));
}

static void read_sysfs_dev(struct hwc_env *e, struct hwc_facts *f, struct hwc_arena *scratch,
			   struct hwc_pci_device *d)
{
	/* Everything is read into the scratch arena and only what is kept is copied to the facts
	 * (hwc_pci_device_persist): link targets, paths, buffers and failed reads' paths stay out. */
	struct hwc_arena *a = scratch;
	struct devdir dd = {.e = e, .a = a};
	const char *dpath = hwc_arena_printf(a, DEVDIR "/%s", d->bdf.v);
	int rc = hwc_env_dir_open(e, dpath, a, &dd.dir);
	if (rc < 0) {
		hwc_env_fail(e, &d->vendor_id.m, a, dpath, rc);
		d->upstream.m = d->config_bytes.m = d->path_bottleneck.m = d->vendor_id.m;
		hwc_pci_caps_fail(d, d->vendor_id.m.st, d->vendor_id.m.detail);
		hwc_facts_error(f, "pci", dpath, "%s", d->vendor_id.m.detail);
		return;
	}
	upstream_from_path(a, dd.dir.path, d);
	const unsigned char *cfg = NULL;
	size_t len = 0;
	if (rd_bytes(&dd, "config", 4096, &cfg, &len, &d->config_bytes.m) < 0 &&
	    d->config_bytes.m.st != HWC_ST_TRUNCATED) {
		hwc_fmeta_set(&d->vendor_id.m, d->config_bytes.m.st, d->config_bytes.m.err,
			      d->config_bytes.m.detail);
		/* the link, payload sizes, slot power and the path above say why, not "not collected" */
		hwc_pci_caps_fail(d, d->config_bytes.m.st, d->config_bytes.m.detail);
		hwc_fmeta_set(&d->path_bottleneck.m, d->config_bytes.m.st, d->config_bytes.m.err,
			      d->config_bytes.m.detail);
	} else {
		const char *err = NULL;
		if (hwc_pci_decode_config(cfg, len, a, d, &err) < 0) {
			const char *file = hwc_arena_printf(a, "/%s/config", dd.dir.path);
			const char *det = hwc_arena_printf(a, "%s: %s", file, err);
			HWC_FAIL(d->vendor_id, HWC_ST_INVALID, 0, det);
			HWC_FAIL(d->config_bytes, HWC_ST_INVALID, 0, det);
			hwc_facts_error(f, "pci", file, "%s", err); /* the file, then why: once each */
		}
	}
	/* VFs answer 0xffff for their ids in config space; the kernel knows them. */
	if (!hwc_ok(d->vendor_id)) {
		struct hwc_fi64 v;
		if (rd_i64(&dd, "vendor", &v) == 0)
			HWC_SET(d->vendor_id, hwc_arena_printf(a, "%04x", (unsigned)v.v));
		if (rd_i64(&dd, "device", &v) == 0)
			HWC_SET(d->device_id, hwc_arena_printf(a, "%04x", (unsigned)v.v));
	}
	rd_i64(&dd, "numa_node", &d->numa_node);
	hwc_read_link_name_at(e, &dd.dir, "driver", a, &d->driver);
	struct hwc_fstr grp;
	if (hwc_read_link_name_at(e, &dd.dir, "iommu_group", a, &grp) == 0) {
		int64_t g;
		if (hwc_parse_i64(grp.v, 10, &g) == 0)
			HWC_SET(d->iommu_group, g);
		else
			HWC_FAIL(d->iommu_group, HWC_ST_INVALID, 0, "iommu_group link is not a number");
	} else {
		d->iommu_group.m = grp.m;
	}
	if (hwc_read_link_name_at(e, &dd.dir, "physfn", a, &d->physfn) == 0) {
		HWC_SET(d->is_vf, true);
	} else if (d->physfn.m.st == HWC_ST_ABSENT) {
		HWC_SET(d->is_vf, false);
		d->physfn.m.st = HWC_ST_UNSET; /* a PF has no physfn: not a missing fact */
	} else {
		d->is_vf.m = d->physfn.m;
	}
	bool vf = hwc_ok(d->is_vf) && d->is_vf.v;
	/* A VF's DevCtl2 enables are RsvdP and its peer-to-peer runs on its PF's settings: no p2p
	 * group of its own (a thousand VFs would carry a thousand copies). */
	if (vf)
		memset(&d->p2p, 0, sizeof(d->p2p));
	/* AER is reported at the PF: a VF has no aer_dev_* files and no counters of its own. */
	if (!vf)
		read_aer(&dd, d);
	/* SR-IOV from sysfs only where config space could not tell (no extended space read). */
	if (!vf && d->sriov.m.st == HWC_ST_UNSET && len <= 256) {
		struct hwc_fi64 t;
		if (rd_i64(&dd, "sriov_totalvfs", &t) == 0) {
			hwc_fmeta_set(&d->sriov.m, HWC_ST_OK, 0, NULL);
			d->sriov.total_vfs = t;
			rd_i64(&dd, "sriov_numvfs", &d->sriov.num_vfs);
			rd_str(&dd, "sriov_vf_device", &d->sriov.vf_device_id);
		}
	}
	if (d->link.m.st == HWC_ST_NEEDS_ROOT)
		link_fallback(&dd, d);
	/* VPD is read by polling the device (milliseconds per dword on real hardware): only for
	 * ConnectX physical functions, where it names the part. */
	if (hwc_ok(d->vendor_id) && strcmp(d->vendor_id.v, "15b3") == 0 && hwc_ok(d->is_vf) && !vf) {
		const unsigned char *vpd;
		size_t vlen;
		if (rd_bytes(&dd, "vpd", 32 * 1024, &vpd, &vlen, &d->vpd.m) == 0 &&
		    hwc_pci_parse_vpd(vpd, vlen, a, d) < 0)
			hwc_fmeta_set(&d->vpd.m, HWC_ST_INVALID, 0,
				      hwc_arena_printf(a, "/%s/vpd: no ID string, PN or SN", dd.dir.path));
	}
	hwc_env_dir_close(&dd.dir);
}

static int collect_sysfs(struct hwc_env *e, struct hwc_facts *f, struct hwc_pci_facts *p)
{
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, DEVDIR, f->arena, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &p->m, f->arena, DEVDIR, -rc);
		return 0;
	}
	if (hwc_arena_grow(f->arena, (void **)&p->devices.items, sizeof(*p->devices.items),
			   &p->devices.cap, dl.n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < dl.n; i++) {
		struct hwc_bdf b;
		if (!hwc_bdf_parse(dl.names[i], HWC_BDF_SHORT, &b))
			continue;
		unsigned dom = b.domain, bus = b.bus, dev = b.dev, fn = b.fn;
		struct hwc_pci_device *d = HWC_VEC_PUSH(f->arena, &p->devices);
		if (!d)
			return -ENOMEM;
		d->domain = dom, d->bus = bus, d->dev = dev, d->fn = fn;
		d->parent = -1;
		struct hwc_arena *scratch = hwc_arena_new();
		if (!scratch)
			return -ENOMEM;
		HWC_SET(d->bdf, hwc_arena_printf(scratch, "%04x:%02x:%02x.%x", dom, bus, dev, fn));
		HWC_SET(d->function, fn);
		read_sysfs_dev(e, f, scratch, d);
		hwc_pci_device_persist(d, f->arena);
		hwc_arena_free(scratch);
	}
	qsort(p->devices.items, p->devices.n, sizeof(*p->devices.items), cmp_dev);
	hwc_fmeta_set(&p->m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* ---- dump ----------------------------------------------------------------------------- */

struct bridge_key {
	unsigned domain;
	int sec_bus;
	size_t idx;
};

static int cmp_bridge_bus(const void *x, const void *y)
{
	const struct bridge_key *a = x, *b = y;
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	return a->sec_bus < b->sec_bus ? -1 : a->sec_bus > b->sec_bus;
}

static int cmp_bridge_key(const void *x, const void *y)
{
	int c = cmp_bridge_bus(x, y);
	if (c)
		return c;
	const struct bridge_key *a = x, *b = y;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void dump_topology(struct hwc_arena *a, struct hwc_pci_facts *p, const char *file)
{
	/* As lspci's tree view: the parent of a function on bus B is the bridge of the same
	 * domain whose secondary bus is B. A bridge whose secondary bus is not above its own is
	 * unconfigured (or garbage) and leads nowhere. */
	const char *only = "an lspci dump holds config space only";
	/* the bridges by (domain, secondary bus), first in dump order: n log n, not n^2 */
	size_t nb = 0;
	struct bridge_key *bk = hwc_arena_calloc(a, p->devices.n + 1, sizeof(*bk));
	for (size_t j = 0; bk && j < p->devices.n; j++) {
		const struct hwc_pci_device *b = &p->devices.items[j];
		if (b->sec_bus > (int)b->bus)
			bk[nb++] = (struct bridge_key){b->domain, b->sec_bus, j};
	}
	if (nb)
		qsort(bk, nb, sizeof(*bk), cmp_bridge_key);
	for (size_t i = 0; i < p->devices.n; i++) {
		struct hwc_pci_device *d = &p->devices.items[i];
		struct bridge_key key = {d->domain, (int)d->bus, 0};
		const struct bridge_key *hit = nb ? bsearch(&key, bk, nb, sizeof(*bk), cmp_bridge_bus) : NULL;
		while (hit && hit > bk && cmp_bridge_bus(hit - 1, &key) == 0)
			hit--; /* the first in dump order */
		if (hit && hit->idx != i)
			HWC_SET(d->upstream, p->devices.items[hit->idx].bdf.v);
		if (!hwc_ok(d->upstream))
			HWC_FAIL(d->upstream, HWC_ST_ABSENT, 0,
				 hwc_arena_printf(a, "%s: no bridge in the dump has secondary bus %02x",
						  file, d->bus));
		HWC_FAIL(d->driver, HWC_ST_ABSENT, 0, only);
		HWC_FAIL(d->numa_node, HWC_ST_ABSENT, 0, only);
		HWC_FAIL(d->iommu_group, HWC_ST_ABSENT, 0, only);
		HWC_FAIL(d->is_vf, HWC_ST_ABSENT, 0, only);
		hwc_fmeta_set(&d->aer.m, HWC_ST_ABSENT, 0, only);
	}
}

/* ---- links and paths ------------------------------------------------------------------ */

static bool has_upstream_link(int t)
{
	return t == 0 || t == 1 || t == 5 || t == 7; /* endpoints, upstream port, PCIe-PCI bridge */
}

/* Function 0 holds the link registers of a multi-function device on one upstream link (the
 * functions of one endpoint or switch upstream port share it); the PF holds a VF's. Root ports
 * and switch downstream ports are one port per function, each with its own link (Intel PCH
 * root ports 00:1c.0/.1/.2...): those keep their own registers, as lspci prints them. */
static bool shares_link_of_fn0(const struct hwc_pci_facts *p, const struct hwc_pci_device *d,
			       long *src)
{
	if (d->fn == 0 || !(has_upstream_link(d->pcie_type) || d->pcie_type < 0))
		return false;
	*src = find_key(p, key_of(d->domain, d->bus, d->dev, 0));
	if (*src < 0)
		return false;
	int t0 = p->devices.items[*src].pcie_type;
	return has_upstream_link(t0) || t0 < 0; /* unknown type (not root): as before, fn 0 */
}

static void inherit_links(struct hwc_pci_facts *p)
{
	for (size_t i = 0; i < p->devices.n; i++) {
		struct hwc_pci_device *d = &p->devices.items[i];
		long src = -1;
		if (hwc_ok(d->is_vf) && d->is_vf.v && hwc_ok(d->physfn))
			src = find_bdf(p, d->physfn.v);
		else if (!shares_link_of_fn0(p, d, &src))
			src = -1;
		const struct hwc_pci_device *s = src >= 0 ? &p->devices.items[src] : NULL;
		if (s && hwc_ok(d->is_vf) && d->is_vf.v) {
			/* A VF's DevCtl MPS, relaxed-ordering, no-snoop and extended-tag fields are
			 * RsvdP: the PF's settings are the ones its TLPs follow (kernel probe.c
			 * pci_configure_relaxed_ordering(), PCIe SR-IOV spec). */
			d->max_payload_bytes = s->max_payload_bytes;
			d->relaxed_ordering = s->relaxed_ordering;
			d->no_snoop = s->no_snoop;
			d->extended_tag = s->extended_tag;
		}
		if (s && s->link.m.st == HWC_ST_OK) {
			d->link = s->link;
			HWC_SET(d->link_from, s->bdf.v);
		} else if (d->link.m.st == HWC_ST_OK) {
			HWC_SET(d->link_from, d->bdf.v);
		}
	}
}

static const struct hwc_pci_device *other_end(const struct hwc_pci_facts *p,
					      const struct hwc_pci_device *d)
{
	if (has_upstream_link(d->pcie_type) || d->pcie_type < 0)
		return d->parent >= 0 ? &p->devices.items[d->parent] : NULL;
	if (d->pcie_type == 4 || d->pcie_type == 6) {
		/* the link below a port: its first child (children follow it in BDF order) */
		for (size_t i = 0; i < p->devices.n; i++)
			if (p->devices.items[i].parent == d - p->devices.items)
				return &p->devices.items[i];
	}
	return NULL;
}

static double gts(const struct hwc_ff64 *f) { return hwc_ok(*f) ? f->v : 0; }
static int wid(const struct hwc_fi64 *f) { return hwc_ok(*f) ? (int)f->v : 0; }

static void verdict(const struct hwc_pci_facts *p, struct hwc_pci_device *d)
{
	const struct hwc_pci_link *l = &d->link;
	if (l->m.st != HWC_ST_OK) {
		if (l->m.st != HWC_ST_UNSET)
			hwc_fmeta_set(&d->link_status.m, l->m.st, l->m.err, l->m.detail);
		return;
	}
	const struct hwc_pci_device *o = other_end(p, d);
	double os = 0;
	int ow = 0;
	if (o && o->link.m.st == HWC_ST_OK)
		os = gts(&o->link.cap_speed_gts), ow = wid(&o->link.cap_width);
	HWC_SET(d->link_status, hwc_pci_link_verdict(gts(&l->speed_gts), wid(&l->width),
						     gts(&l->cap_speed_gts), wid(&l->cap_width), os, ow));
}

/* One rate of a link from its speed and width, or why there is none. */
static void link_rate(const struct hwc_ff64 *speed, const struct hwc_fi64 *width,
		      struct hwc_ff64 *out)
{
	double g = hwc_ok(*speed) && hwc_ok(*width) ? hwc_pci_link_gbps(speed->v, width->v) : 0;
	if (g > 0)
		HWC_SET(*out, g);
	else if (!hwc_ok(*speed))
		out->m = speed->m;
	else if (!hwc_ok(*width))
		out->m = width->m;
	else
		HWC_FAIL(*out, HWC_ST_ABSENT, 0, "no link trained at a known PCIe speed");
}

/* link.gbps and link.cap_gbps: what the rules and the report compare, computed once here. */
static void link_rates(struct hwc_pci_link *l)
{
	if (l->m.st != HWC_ST_OK)
		return;
	link_rate(&l->speed_gts, &l->width, &l->gbps);
	link_rate(&l->cap_speed_gts, &l->cap_width, &l->cap_gbps);
}

static void path_model(struct hwc_arena *a, const struct hwc_pci_facts *p, struct hwc_pci_device *d)
{
	struct hwc_pci_hop hops[MAX_HOPS];
	size_t n = 0;
	const struct hwc_pci_device *h = d;
	const struct hwc_pci_device *cut = NULL;
	hwc_fmeta_set(&d->path.m, HWC_ST_OK, 0, NULL);
	while (h && n < MAX_HOPS) {
		const char **s = HWC_VEC_PUSH(a, &d->path);
		if (s)
			*s = h->bdf.v;
		if (h->link.m.st != HWC_ST_OK && !cut)
			cut = h;
		hops[n].bdf = h->bdf.v;
		hops[n].speed_gts = gts(&h->link.speed_gts);
		hops[n].width = wid(&h->link.width);
		n++;
		if (h->parent < 0) {
			if (hwc_ok(h->upstream) && !cut)
				cut = h; /* the port above it is not visible */
			break;
		}
		h = &p->devices.items[h->parent];
	}
	/* An endpoint or upstream port at the top has a port above it that we do not see (a dump
	 * without its bridges, a VF in a VM): the path is incomplete. */
	if (!cut && h && h->parent < 0 && has_upstream_link(h->pcie_type))
		cut = h;
	struct hwc_pci_bottleneck *b = &d->path_bottleneck;
	if (d->link.m.st != HWC_ST_OK)
		return; /* no link (integrated, conventional PCI): no path bandwidth */
	if (cut) {
		const char *why = cut->link.m.st != HWC_ST_OK
			? hwc_arena_printf(a, "link of %s unknown: %s", cut->bdf.v,
					   cut->link.m.detail ? cut->link.m.detail : "not read")
			: hwc_arena_printf(a, "the port above %s (%s) is not visible", cut->bdf.v,
					   hwc_ok(cut->upstream) ? cut->upstream.v : "not known");
		hwc_fmeta_set(&b->m, cut->link.m.st != HWC_ST_OK ? cut->link.m.st : HWC_ST_ABSENT, 0,
			      why);
		return;
	}
	unsigned long mbps;
	int lim = hwc_pci_path_limit(hops, n, &mbps);
	if (lim < 0)
		return;
	hwc_fmeta_set(&b->m, HWC_ST_OK, 0, NULL);
	HWC_SET(b->bdf, hops[lim].bdf);
	if (hops[lim].speed_gts > 0)
		HWC_SET(b->speed_gts, hops[lim].speed_gts);
	else
		HWC_FAIL(b->speed_gts, HWC_ST_ABSENT, 0, "no link trained");
	HWC_SET(b->width, hops[lim].width);
	HWC_SET(b->raw_gbps, mbps / 1000.0);
	const struct hwc_pci_device *mp = d; /* a VF already carries its PF's MPS */
	if (hwc_ok(mp->max_payload_bytes)) {
		HWC_SET(b->mps_bytes, mp->max_payload_bytes.v);
		double g = mbps / 1000.0 * hwc_pci_tlp_efficiency(hops[lim].speed_gts,
								  (int)mp->max_payload_bytes.v);
		HWC_SET(b->gbps, g);
	} else {
		b->mps_bytes.m = mp->max_payload_bytes.m;
		b->gbps.m = mp->max_payload_bytes.m;
	}
	double cs = gts(&d->link.cap_speed_gts);
	int cw = wid(&d->link.cap_width);
	if (cs > 0 && cw > 0)
		HWC_SET(b->capable_raw_gbps, hwc_pci_link_gbps(cs, cw));
	else
		HWC_FAIL(b->capable_raw_gbps, HWC_ST_ABSENT, 0, "LnkCap unknown");
}

static void tie(struct hwc_arena *a, struct hwc_pci_facts *p)
{
	for (size_t i = 0; i < p->devices.n; i++) {
		struct hwc_pci_device *d = &p->devices.items[i];
		d->parent = hwc_ok(d->upstream) ? find_bdf(p, d->upstream.v) : -1;
		if (d->parent == (long)i)
			d->parent = -1;
	}
	/* A parent chain that loops (a crafted dump) is cut where it closes. */
	for (size_t i = 0; i < p->devices.n; i++) {
		long h = (long)i;
		for (int k = 0; k < MAX_HOPS && h >= 0; k++)
			h = p->devices.items[h].parent;
		if (h >= 0)
			p->devices.items[i].parent = -1;
	}
	inherit_links(p);
	/* The slot a card sits in is described by the port above it: copy it to the card (not to
	 * its VFs, whose PF carries it). */
	for (size_t i = 0; i < p->devices.n; i++) {
		struct hwc_pci_device *d = &p->devices.items[i];
		if (d->parent < 0 || !has_upstream_link(d->pcie_type) || (hwc_ok(d->is_vf) && d->is_vf.v))
			continue;
		const struct hwc_pci_device *up = &p->devices.items[d->parent];
		if (up->slot.m.st != HWC_ST_OK)
			continue;
		d->upstream_slot = up->slot;
		hwc_fmeta_set(&d->upstream_slot.m, HWC_ST_OK, 0, NULL);
	}
	for (size_t i = 0; i < p->devices.n; i++) {
		link_rates(&p->devices.items[i].link);
		verdict(p, &p->devices.items[i]);
		path_model(a, p, &p->devices.items[i]);
	}
}

/* -d: keep the device and every port on its path. */
static void filter(struct hwc_env *e, struct hwc_facts *f, struct hwc_pci_facts *p,
		   const char *want)
{
	long idx = find_bdf(p, want);
	if (idx < 0) {
		/* a netdev or RDMA device name: its sysfs "device" link names the function */
		const char *dirs[] = {"sys/class/net", "sys/class/infiniband"};
		for (int i = 0; i < 2 && idx < 0 && !strchr(want, '/'); i++) {
			struct hwc_fstr bdf;
			if (hwc_read_link_name(e, hwc_arena_printf(f->arena, "%s/%s/device", dirs[i],
								   want),
					       f->arena, &bdf) == 0)
				idx = find_bdf(p, bdf.v);
		}
	}
	if (idx < 0) {
		hwc_facts_error(f, "pci", want, "no PCI function matches: all are reported");
		return;
	}
	bool *keep = hwc_arena_calloc(f->arena, p->devices.n, sizeof(bool));
	if (!keep)
		return;
	for (long h = idx, k = 0; h >= 0 && k < MAX_HOPS; h = p->devices.items[h].parent, k++)
		keep[h] = true;
	size_t n = 0;
	for (size_t i = 0; i < p->devices.n; i++)
		if (keep[i])
			p->devices.items[n++] = p->devices.items[i];
	p->devices.n = n;
	for (size_t i = 0; i < n; i++)
		p->devices.items[i].parent = -1; /* indices are stale; paths are already strings */
}

int hwc_pci_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_pci_facts *p = HWC_FACTS_SECTION(f, pci);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	if (o && o->pci_dump) {
		HWC_SET(p->source, "dump");
		const char *err;
		rc = hwc_pci_read_dump(o->pci_dump, f->arena, p, &err);
		if (rc < 0) {
			hwc_fmeta_set(&p->m, HWC_ST_INVALID, 0,
				      hwc_arena_printf(f->arena, "%s: %s", o->pci_dump, err));
			hwc_facts_error(f, "pci", o->pci_dump, "%s", err);
			return 0;
		}
		if (p->devices.n)
			hwc_fmeta_set(&p->m, HWC_ST_OK, 0, NULL);
		else {
			/* said once as a problem too: a file that is no dump at all reads the same */
			hwc_fmeta_set(&p->m, HWC_ST_ABSENT, 0,
				      hwc_arena_printf(f->arena, "%s: no device in the dump", o->pci_dump));
			hwc_facts_error(f, "pci", o->pci_dump, "no PCI function in the file (not the "
					"output of 'lspci -x', -xxx or -xxxx?)");
		}
		for (size_t i = 0; i < p->devices.n; i++) {
			const struct hwc_pci_device *d = &p->devices.items[i];
			if (d->vendor_id.m.st == HWC_ST_INVALID)
				hwc_facts_error(f, "pci", d->bdf.v, "%s", d->vendor_id.m.detail);
		}
		dump_topology(f->arena, p, o->pci_dump);
		hwc_fmeta_set(&p->peer_memory.m, HWC_ST_ABSENT, 0, "not in the --pci-dump file");
	} else {
		HWC_SET(p->source, "sysfs");
		rc = collect_sysfs(e, f, p);
		if (rc < 0)
			return rc;
		hwc_pci_collect_peer_memory(e, f->arena, p);
	}
	tie(f->arena, p);
	if (o && o->device)
		filter(e, f, p, o->device);
	return 0;
}

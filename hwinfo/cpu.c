/* SPDX-License-Identifier: MIT */
/* CPU identity and topology (proc/cpuinfo, cpuN/topology) and NUMA nodes with their distances. */
#include "hwinfo/hwinfo.h"

#include "core/scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- proc/cpuinfo ------------------------------------------------------------------------- */

struct pair {
	int64_t pkg, core;
};

/* Distinct packages and (package, core) pairs: what lscpu counts as sockets and cores. */
struct topo {
	HWC_VEC(struct pair) pairs;
	size_t packages;
};

static void topo_add(struct hwc_arena *a, struct topo *t, int64_t pkg, int64_t core)
{
	bool pkg_seen = false;
	for (size_t i = 0; i < t->pairs.n; i++) {
		if (t->pairs.items[i].pkg != pkg)
			continue;
		if (t->pairs.items[i].core == core)
			return;
		pkg_seen = true;
	}
	struct pair *p = HWC_VEC_PUSH(a, &t->pairs);
	if (!p)
		return;
	*p = (struct pair){pkg, core};
	t->packages += !pkg_seen;
}

struct cpuinfo_state {
	struct hwc_arena *a;
	struct hwc_cpuinfo *out;
	struct topo topo;
	int64_t pkg, core; /* of the current block, -1 unset */
	bool block_open, topology_ok;
};

static bool flag_in(const char *v, size_t vl, const char *flag)
{
	size_t fl = strlen(flag);
	for (size_t i = 0; i < vl;) {
		while (i < vl && (v[i] == ' ' || v[i] == '\t'))
			i++;
		size_t j = i;
		while (j < vl && v[j] != ' ' && v[j] != '\t')
			j++;
		if (j - i == fl && memcmp(v + i, flag, fl) == 0)
			return true;
		i = j;
	}
	return false;
}

static bool value_i64(const char *v, size_t vl, int base, int64_t *out)
{
	if (vl == 0 || vl > 32)
		return false;
	char tmp[40];
	memcpy(tmp, v, vl);
	tmp[vl] = 0;
	return hwc_parse_i64(tmp, base, out) == 0;
}

static void end_block(struct cpuinfo_state *s)
{
	if (!s->block_open)
		return;
	s->block_open = false;
	if (s->pkg < 0 || s->core < 0) {
		s->topology_ok = false;
		return;
	}
	topo_add(s->a, &s->topo, s->pkg, s->core);
}

static void cpuinfo_line(struct cpuinfo_state *s, const char *k, size_t kl, const char *v, size_t vl)
{
	struct hwc_cpuinfo *o = s->out;
	int64_t n;
#define KEY(lit) (kl == sizeof(lit) - 1 && memcmp(k, lit, kl) == 0)
	if (KEY("processor")) {
		end_block(s);
		s->block_open = true;
		s->pkg = s->core = -1;
		o->processors++;
	} else if (KEY("vendor_id")) {
		if (!o->vendor)
			o->vendor = hwc_arena_strndup(s->a, v, vl);
	} else if (KEY("model name")) {
		if (!o->model_name)
			o->model_name = hwc_arena_strndup(s->a, v, vl);
	} else if (KEY("cpu family")) {
		if (!o->has_family && value_i64(v, vl, 10, &n)) {
			o->family = n;
			o->has_family = true;
		}
	} else if (KEY("model")) {
		if (!o->has_model && value_i64(v, vl, 10, &n)) {
			o->model = n;
			o->has_model = true;
		}
	} else if (KEY("stepping")) {
		if (!o->has_stepping && value_i64(v, vl, 10, &n)) {
			o->stepping = n;
			o->has_stepping = true;
		}
	} else if (KEY("flags")) {
		if (!o->has_flags) {
			o->has_flags = true;
			o->flag_x2apic = flag_in(v, vl, "x2apic");
			o->flag_hypervisor = flag_in(v, vl, "hypervisor");
		}
	} else if (KEY("apicid") || KEY("initial apicid")) {
		if (value_i64(v, vl, 10, &n) && n >= 0) {
			if (!o->has_apicid || n > o->max_apicid)
				o->max_apicid = n;
			o->has_apicid = true;
		}
	} else if (KEY("physical id")) {
		if (value_i64(v, vl, 10, &n) && n >= 0)
			s->pkg = n;
	} else if (KEY("core id")) {
		if (value_i64(v, vl, 10, &n) && n >= 0)
			s->core = n;
	}
#undef KEY
}

int hwc_host_parse_cpuinfo(const char *buf, size_t len, struct hwc_arena *a, struct hwc_cpuinfo *out)
{
	memset(out, 0, sizeof(*out));
	struct cpuinfo_state s = {.a = a, .out = out, .pkg = -1, .core = -1, .topology_ok = true};
	size_t i = 0;
	while (i < len) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		const char *colon = memchr(buf + i, ':', e - i);
		if (colon) {
			size_t kl = (size_t)(colon - (buf + i));
			while (kl && (buf[i + kl - 1] == ' ' || buf[i + kl - 1] == '\t'))
				kl--;
			const char *v = colon + 1;
			size_t vl = (size_t)((buf + e) - v);
			while (vl && (*v == ' ' || *v == '\t')) {
				v++;
				vl--;
			}
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t' || v[vl - 1] == '\r'))
				vl--;
			cpuinfo_line(&s, buf + i, kl, v, vl);
		}
		i = e + 1;
	}
	end_block(&s);
	out->has_topology = out->processors > 0 && s.topology_ok;
	if (out->has_topology) {
		out->packages = s.topo.packages;
		out->cores = s.topo.pairs.n;
	}
	return out->processors ? 0 : -ENOENT;
}

/* ---- collection --------------------------------------------------------------------------- */

/* Sockets and cores from sys/devices/system/cpu/cpuN/topology (what lscpu reads). */
static bool sysfs_topology(struct hwc_env *e, struct hwc_arena *a, int64_t *sockets, int64_t *cores,
			   int64_t *cpus)
{
	struct hwc_dirlist dl;
	if (hwc_env_list_dir(e, "sys/devices/system/cpu", a, &dl) < 0)
		return false;
	struct topo t = {0};
	*cpus = 0;
	hwc_dirlist_numbered(&dl, "cpu", false, a); /* the cpuN entries */
	for (size_t i = 0; i < dl.n; i++) {
		struct hwc_fi64 pk = {0}, co = {0};
		const char *base = hwc_arena_printf(a, "sys/devices/system/cpu/%s/topology", dl.names[i]);
		if (!base)
			return false;
		/* Offline CPUs have no topology (or -1): lscpu counts online ones. */
		if (hwc_read_i64(e, hwc_arena_printf(a, "%s/physical_package_id", base), a, &pk) < 0 ||
		    hwc_read_i64(e, hwc_arena_printf(a, "%s/core_id", base), a, &co) < 0 || pk.v < 0 ||
		    co.v < 0)
			continue;
		(*cpus)++;
		topo_add(a, &t, pk.v, co.v);
	}
	*sockets = (int64_t)t.packages;
	*cores = (int64_t)t.pairs.n;
	return *cpus > 0;
}

static void collect_numa(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h)
{
	struct hwc_host_numa *nu = &h->numa;
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, "sys/devices/system/node", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &nu->nodes_m, a, "sys/devices/system/node", -rc);
		HWC_FAIL(nu->nodes_with_cpus, nu->nodes_m.st, nu->nodes_m.err, nu->nodes_m.detail);
		HWC_FAIL(nu->nodes_per_socket, nu->nodes_m.st, nu->nodes_m.err, nu->nodes_m.detail);
		HWC_FAIL(nu->nps, nu->nodes_m.st, nu->nodes_m.err, nu->nodes_m.detail);
		return;
	}
	hwc_fmeta_set(&nu->nodes_m, HWC_ST_OK, 0, NULL);
	int64_t with_cpus = 0;
	bool counts_ok = true;
	int64_t *id = hwc_dirlist_numbered(&dl, "node", false, a);
	for (size_t i = 0; i < dl.n; i++) {
		struct hwc_host_numa_node *nd = HWC_VEC_PUSH(a, &nu->nodes);
		if (!nd)
			return;
		nd->id = id[i];
		const char *base = hwc_arena_printf(a, "sys/devices/system/node/%s", dl.names[i]);
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/cpulist", base), a, &nd->cpulist) == 0) {
			int64_t n;
			if (hwc_cpulist_count(nd->cpulist.v, &n) == 0) {
				HWC_SET(nd->cpus, n);
				with_cpus += n > 0;
			} else {
				HWC_FAIL(nd->cpus, HWC_ST_INVALID, 0,
					 hwc_arena_printf(a, "%s/cpulist: \"%s\" is not a CPU list", base,
							  nd->cpulist.v));
				counts_ok = false;
			}
		} else {
			nd->cpus.m = nd->cpulist.m;
			counts_ok = false;
		}
		struct hwc_fstr d = {0};
		if (hwc_read_str(e, hwc_arena_printf(a, "%s/distance", base), a, &d) < 0) {
			nd->distances_m = d.m;
			continue;
		}
		hwc_fmeta_set(&nd->distances_m, HWC_ST_OK, 0, NULL);
		for (const char *p = d.v; *p;) {
			while (*p == ' ')
				p++;
			if (!*p)
				break;
			char *end;
			long long v = strtoll(p, &end, 10);
			if (end == p || (*end && *end != ' ')) {
				hwc_fmeta_set(&nd->distances_m, HWC_ST_INVALID, 0,
					      hwc_arena_printf(a, "%s/distance: \"%s\" is not a list of "
							       "numbers", base, d.v));
				nd->distances.n = 0;
				break;
			}
			int64_t *slot = HWC_VEC_PUSH(a, &nd->distances);
			if (slot)
				*slot = v;
			p = end;
		}
	}
	if (!counts_ok) {
		HWC_FAIL(nu->nodes_with_cpus, HWC_ST_INVALID, 0, "a node's cpulist could not be read");
	} else {
		HWC_SET(nu->nodes_with_cpus, with_cpus);
	}
	if (!hwc_ok(nu->nodes_with_cpus) || !hwc_ok(h->cpu.sockets) || h->cpu.sockets.v <= 0) {
		HWC_FAIL(nu->nodes_per_socket, HWC_ST_ABSENT, 0,
			 "needs both the NUMA nodes with CPUs and the socket count");
	} else if (nu->nodes_with_cpus.v % h->cpu.sockets.v) {
		HWC_FAIL(nu->nodes_per_socket, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%lld nodes with CPUs do not divide among %lld sockets",
					  (long long)nu->nodes_with_cpus.v, (long long)h->cpu.sockets.v));
	} else {
		HWC_SET(nu->nodes_per_socket, nu->nodes_with_cpus.v / h->cpu.sockets.v);
	}
	/* NPS is an AMD EPYC BIOS setting with no interface of its own: nodes per socket is what it
	 * sets (unless "LLC as NUMA node" splits further, which this cannot tell apart). */
	if (!hwc_ok(h->cpu.vendor)) {
		HWC_FAIL(nu->nps, HWC_ST_ABSENT, 0, "CPU vendor unknown: NPS is an AMD setting");
	} else if (strcmp(h->cpu.vendor.v, "AuthenticAMD") != 0 &&
		   strcmp(h->cpu.vendor.v, "HygonGenuine") != 0) {
		HWC_FAIL(nu->nps, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(a, "NPS is an AMD setting; the CPU is %s", h->cpu.vendor.v));
	} else {
		nu->nps = nu->nodes_per_socket;
	}
}

void hwc_host_collect_cpu(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			  const struct hwc_cpuinfo *ci, const struct hwc_fmeta *ci_m)
{
	struct hwc_host_cpu *c = &h->cpu;
	bool have = ci_m->st == HWC_ST_OK || ci_m->st == HWC_ST_TRUNCATED;
	const struct hwc_fmeta no_line = {HWC_ST_ABSENT, 0, NULL};
#define FROM_CI(fact, ok, val, line)                                                               \
	do {                                                                                       \
		if (have && (ok)) {                                                                \
			HWC_SET(c->fact, val);                                                     \
		} else if (!have) {                                                                \
			c->fact.m = *ci_m;                                                         \
		} else {                                                                           \
			c->fact.m = no_line;                                               \
			c->fact.m.detail = "proc/cpuinfo has no \"" line "\" line";               \
		}                                                                                  \
	} while (0)
	FROM_CI(vendor, ci->vendor != NULL, ci->vendor, "vendor_id");
	FROM_CI(model_name, ci->model_name != NULL, ci->model_name, "model name");
	FROM_CI(family, ci->has_family, ci->family, "cpu family");
	FROM_CI(model, ci->has_model, ci->model, "model");
	FROM_CI(stepping, ci->has_stepping, ci->stepping, "stepping");
	FROM_CI(flags_x2apic, ci->has_flags, ci->flag_x2apic, "flags");
	FROM_CI(hypervisor, ci->has_flags, ci->flag_hypervisor, "flags");
	FROM_CI(max_apicid, ci->has_apicid, ci->max_apicid, "apicid");

	int64_t sockets, cores, cpus;
	if (sysfs_topology(e, a, &sockets, &cores, &cpus)) {
		HWC_SET(c->sockets, sockets);
		HWC_SET(c->cores, cores);
		HWC_SET(c->topology_source, "sysfs");
		/* threads: the online logical CPUs, as proc/cpuinfo lists them */
		if (have && ci->processors)
			HWC_SET(c->threads, (int64_t)ci->processors);
		else
			HWC_SET(c->threads, cpus);
	} else if (have && ci->has_topology) {
		HWC_SET(c->sockets, (int64_t)ci->packages);
		HWC_SET(c->cores, (int64_t)ci->cores);
		HWC_SET(c->threads, (int64_t)ci->processors);
		HWC_SET(c->topology_source, "cpuinfo");
	} else {
		/* No sysfs topology: when proc/cpuinfo could not be read either, that failure is the
		 * reason (needs_root, unreadable...), not an absence. */
		struct hwc_fmeta why = {HWC_ST_ABSENT, 0,
					"neither cpuN/topology in sysfs nor \"physical id\"/\"core id\" "
					"in proc/cpuinfo"};
		if (!have)
			why = *ci_m;
		c->sockets.m = why;
		c->cores.m = why;
		c->topology_source.m = why;
		if (have && ci->processors)
			HWC_SET(c->threads, (int64_t)ci->processors);
		else
			c->threads.m = why;
	}
	if (hwc_ok(c->cores) && hwc_ok(c->threads))
		HWC_SET(c->smt, c->threads.v > c->cores.v);
	else if (!have)
		c->smt.m = *ci_m;
	else
		HWC_FAIL(c->smt, HWC_ST_ABSENT, 0, "needs the core and thread counts");
	collect_numa(e, a, h);
#undef FROM_CI
}

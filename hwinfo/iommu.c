/* SPDX-License-Identifier: MIT */
/* The IOMMU: units, default domain type (per group and overall) and the command line behind it. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

#include "core/util.h"

static bool iommu_option(const char *tok)
{
	static const char *const pfx[] = {"iommu=",	  "iommu.",	 "intel_iommu=",
					  "amd_iommu=",	  "intremap=",	 "amd_iommu_intr=",
					  "iommu_intr=",  "nox2apic",	 "x2apic_phys"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(pfx); i++)
		if (strncmp(tok, pfx[i], strlen(pfx[i])) == 0)
			return true;
	return false;
}

/* What the command line asks for, as a domain type; NULL when it does not say. Later options
 * win, as the kernel parses them in order. */
static const char *cmdline_domain(const struct hwc_str_list *opts)
{
	const char *dom = NULL;
	bool strict_set = false, strict = false;
	for (size_t i = 0; i < opts->n; i++) {
		const char *o = opts->items[i];
		if (!strcmp(o, "iommu=pt") || !strcmp(o, "iommu.passthrough=1") ||
		    !strcmp(o, "iommu.passthrough=on") || !strcmp(o, "iommu.passthrough=y"))
			dom = "identity";
		else if (!strcmp(o, "iommu=nopt") || !strcmp(o, "iommu.passthrough=0") ||
			 !strcmp(o, "iommu.passthrough=off") || !strcmp(o, "iommu.passthrough=n"))
			dom = "translated";
		else if (!strcmp(o, "iommu.strict=1") || !strcmp(o, "iommu=strict"))
			strict_set = strict = true;
		else if (!strcmp(o, "iommu.strict=0")) {
			strict_set = true;
			strict = false;
		}
	}
	if (dom && !strcmp(dom, "translated"))
		dom = strict_set ? (strict ? "DMA" : "DMA-FQ") : NULL;
	else if (!dom && strict_set)
		dom = strict ? "DMA" : "DMA-FQ";
	return dom;
}

const char *hwc_host_iommu_group_type(const struct hwc_host_facts *h, int64_t group)
{
	if (!h)
		return NULL;
	for (size_t i = 0; i < h->iommu.groups.n; i++)
		if (h->iommu.groups.items[i].id == group && hwc_ok(h->iommu.groups.items[i].type))
			return h->iommu.groups.items[i].type.v;
	return NULL;
}

void hwc_host_collect_iommu(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			    const struct hwc_dmesg_host *dm)
{
	struct hwc_host_iommu *io = &h->iommu;
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, "sys/class/iommu", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &io->units_m, a, "sys/class/iommu", -rc);
		io->present.m = io->units_m;
	} else {
		hwc_fmeta_set(&io->units_m, HWC_ST_OK, 0, NULL);
		for (size_t i = 0; i < dl.n; i++) {
			const char **s = HWC_VEC_PUSH(a, &io->units);
			if (s)
				*s = dl.names[i];
		}
		HWC_SET(io->present, dl.n > 0);
	}

	if (hwc_ok(h->kernel.cmdline)) {
		hwc_fmeta_set(&io->cmdline_options_m, HWC_ST_OK, 0, NULL);
		const char *p = h->kernel.cmdline.v;
		while (*p) {
			while (*p == ' ')
				p++;
			size_t n = strcspn(p, " ");
			if (!n)
				break;
			/* "--" ends the kernel's options: the rest belongs to init */
			if (n == 2 && p[0] == '-' && p[1] == '-')
				break;
			char *tok = hwc_arena_strndup(a, p, n);
			if (tok && iommu_option(tok)) {
				const char **s = HWC_VEC_PUSH(a, &io->cmdline_options);
				if (s)
					*s = tok;
			}
			p += n;
		}
	} else {
		io->cmdline_options_m = h->kernel.cmdline.m;
	}

	rc = hwc_env_list_dir(e, "sys/kernel/iommu_groups", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &io->groups_m, a, "sys/kernel/iommu_groups", -rc);
	} else {
		hwc_fmeta_set(&io->groups_m, HWC_ST_OK, 0, NULL);
		int64_t *id = hwc_dirlist_numbered(&dl, "", true, a); /* "2" before "10" */
		for (size_t i = 0; i < dl.n; i++) {
			struct hwc_host_iommu_group *g = HWC_VEC_PUSH(a, &io->groups);
			if (!g)
				return;
			g->id = id[i];
			/* the type file appeared in 5.11 */
			hwc_read_str(e, hwc_arena_printf(a, "sys/kernel/iommu_groups/%s/type", dl.names[i]),
				     a, &g->type);
		}
	}

	/* Default domain: the boot line says it directly; else the type most groups have (VFIO's
	 * "unmanaged" and "blocked" are not defaults); else the command line. */
	const char *dom = NULL, *src = NULL;
	if (dm && dm->iommu_default) {
		if (!strcmp(dm->iommu_default, "Passthrough"))
			dom = "identity";
		else if (!strcmp(dm->iommu_default, "Translated"))
			/* "Translated" is DMA or DMA-FQ: the TLB policy line tells which */
			dom = !dm->iommu_tlb                  ? NULL
			      : !strcmp(dm->iommu_tlb, "strict") ? "DMA"
			      : !strcmp(dm->iommu_tlb, "lazy")   ? "DMA-FQ"
								 : NULL;
		src = dom ? "dmesg" : NULL;
	}
	if (!dom) {
		static const char *const types[] = {"identity", "DMA", "DMA-FQ"};
		size_t best = 0, count[3] = {0};
		for (size_t i = 0; i < io->groups.n; i++)
			for (size_t t = 0; t < 3; t++)
				if (hwc_ok(io->groups.items[i].type) &&
				    !strcmp(io->groups.items[i].type.v, types[t]))
					count[t]++;
		for (size_t t = 0; t < 3; t++)
			if (count[t] > best) {
				best = count[t];
				dom = types[t];
			}
		src = dom ? "groups" : NULL;
	}
	if (!dom && (dom = cmdline_domain(&io->cmdline_options)))
		src = "cmdline";
	if (dom) {
		HWC_SET(io->default_domain, dom);
		HWC_SET(io->default_domain_source, src);
		HWC_SET(io->passthrough, !strcmp(dom, "identity"));
	} else if (hwc_ok(io->present) && !io->present.v) {
		const char *why = "no IOMMU is active (sys/class/iommu is empty)";
		HWC_FAIL(io->default_domain, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(io->default_domain_source, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(io->passthrough, HWC_ST_ABSENT, 0, why);
	} else {
		const char *why = "no \"iommu: Default domain type\" boot line, no group type file "
				  "(kernel < 5.11) and no IOMMU option on the command line";
		HWC_FAIL(io->default_domain, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(io->default_domain_source, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(io->passthrough, HWC_ST_ABSENT, 0, why);
	}
}

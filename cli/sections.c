/* SPDX-License-Identifier: MIT */
/* The section table: who collects what, in which order, and under which JSON key. */
#include "cli/sections.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"
#include "hwinfo/hwinfo.h"
#include "hwinfo/roce.h"
#include "mlx/mlx.h"
#include "pci/pci.h"
#include "probe/probe.h"
#include "thermal/thermal.h"
#include "core/util.h"

/* Order matters: mlx/ maps the PCI functions pci/ found; netdevs and thermal tie themselves to
 * the cards mlx/ found; the probe (when asked) needs all of them. */
static const struct hwc_section sections[] = {
	{"host", hwc_host_collect, hwc_host_to_json, hwc_host_from_json},
	{"pci", hwc_pci_collect, hwc_pci_to_json, hwc_pci_from_json},
	{"mlx", hwc_mlx_collect, hwc_mlx_to_json, hwc_mlx_from_json},
	{"netdevs", hwc_netdev_collect, hwc_netdev_to_json, hwc_netdev_from_json},
	{"roce", hwc_roce_collect, hwc_roce_to_json, hwc_roce_from_json},
	{"thermal", hwc_thermal_collect, hwc_thermal_to_json, hwc_thermal_from_json},
	{"probe", hwc_probe_collect, hwc_probe_to_json, hwc_probe_from_json},
	/* last: the counters sampled again after everything else (--watch, or a capture made so) */
	{"watch", hwc_watch_collect, hwc_watch_to_json, hwc_watch_from_json},
};

const struct hwc_section *hwc_sections(size_t *n)
{
	*n = HWC_ARRAY_SIZE(sections);
	return sections;
}

/* The first tool calls of every port (FEC, module EEPROM; DCB of a RoCE port; the host's
 * lldpcli), started as soon as mlx/ knows the ports: they run while the cards' mstflint tools run,
 * and the netdevs and roce sections take their answers. Only the argvs those sections build, from
 * their own builders, so that nothing runs that would not have run anyway. */
static void start_port_tools(struct hwc_env *e, struct hwc_facts *f)
{
	struct hwc_arena *a = f->arena;
	const struct hwc_mlx_facts *mf = f->mlx;
	size_t max = 0, n = 0;
	for (size_t i = 0; mf && i < mf->adapters.n; i++)
		/* a RoCE LAG port asks each member, a netdev of the card */
		max += mf->adapters.items[i].netdevs.n * (HWC_NETDEV_LINK_CMDS + HWC_ROCE_DCB_CMDS) +
		       mf->adapters.items[i].ports.n * HWC_ROCE_DCB_CMDS;
	struct hwc_cmd *cmds = max ? hwc_arena_calloc(a, max + 1, sizeof(*cmds)) : NULL;
	if (!cmds)
		return;
	bool netdevs = false; /* the host's LLDP neighbours: one lldpcli, when a ConnectX has a netdev */
	for (size_t i = 0; i < mf->adapters.n; i++) {
		const struct hwc_mlx_adapter *ad = &mf->adapters.items[i];
		netdevs = netdevs || ad->netdevs.n;
		for (size_t k = 0; k < ad->netdevs.n; k++) {
			const char *const *argv[HWC_NETDEV_LINK_CMDS];
			hwc_netdev_link_cmds(a, ad->netdevs.items[k], argv);
			for (size_t j = 0; j < HWC_NETDEV_LINK_CMDS; j++)
				if (argv[j])
					cmds[n++] = (struct hwc_cmd){argv[j], 0};
		}
		for (size_t k = 0; k < ad->ports.n; k++) {
			const struct hwc_mlx_port *p = &ad->ports.items[k];
			if (hwc_ok(p->link_layer) && strcmp(p->link_layer.v, "Ethernet") == 0 && hwc_ok(p->netdev))
				n += hwc_roce_port_dcb_cmds(e, a, p->netdev.v, cmds + n, max - n);
		}
	}
	if (netdevs)
		cmds[n++] = (struct hwc_cmd){hwc_lldp_argv, 0};
	hwc_run_start(e, a, n, cmds);
}

/* Before the netdevs section: the module EEPROM reads that depend on the first answer (a CMIS
 * module's pages), started for every port at once rather than port after port. */
static void start_module_pages(struct hwc_env *e, struct hwc_facts *f)
{
	const struct hwc_mlx_facts *mf = f->mlx;
	size_t n = 0, k = 0;
	for (size_t i = 0; mf && i < mf->adapters.n; i++)
		n += mf->adapters.items[i].netdevs.n;
	const char **names = n ? hwc_arena_calloc(f->arena, n, sizeof(*names)) : NULL;
	if (!names)
		return;
	for (size_t i = 0; i < mf->adapters.n; i++)
		for (size_t j = 0; j < mf->adapters.items[i].netdevs.n; j++)
			names[k++] = mf->adapters.items[i].netdevs.items[j];
	hwc_module_start_pages(e, f->arena, names, k);
}

void hwc_collect_all(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_collect_opts oo = {0};
	if (o)
		oo = *o;
	oo.ports_known = start_port_tools;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(sections); i++) {
		if (sections[i].collect == hwc_netdev_collect)
			start_module_pages(e, f);
		int rc = sections[i].collect(e, f, &oo);
		if (rc < 0)
			hwc_facts_error(f, sections[i].name, NULL, "collector failed: %s",
					strerror(-rc));
	}
	hwc_run_drop_started(e);
}

json_t *hwc_facts_to_json(const struct hwc_facts *f)
{
	json_t *j = json_object();
	if (!j)
		return NULL;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(sections); i++) {
		json_t *s = sections[i].to_json(f);
		if (s)
			json_object_set_new(j, sections[i].name, s);
	}
	return j;
}

int hwc_facts_from_json(const json_t *facts, struct hwc_facts *f)
{
	if (!json_is_object(facts)) {
		hwc_facts_error(f, "facts-file", "facts", "expected an object");
		return -EINVAL;
	}
	int used = 0;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(sections); i++) {
		/* raw on purpose: a null section goes to its decoder as it is */
		const json_t *s = json_object_get(facts, sections[i].name);
		if (!s)
			continue;
		int rc = sections[i].from_json(s, f);
		if (rc < 0)
			hwc_facts_error(f, "facts-file", sections[i].name,
					"section not fully readable: %s", strerror(-rc));
		else
			used++;
	}
	return used ? 0 : -EINVAL;
}

size_t hwc_facts_known_count(const json_t *facts)
{
	size_t n = 0;
	if (json_is_object(facts)) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)facts, k, v) {
			/* host.read_from says how hwcheck read, not what it found */
			if (strcmp(k, HWC_JSON_UNAVAILABLE) == 0 || strcmp(k, "read_from") == 0)
				continue;
			n += hwc_facts_known_count(v);
		}
	} else if (json_is_array(facts)) {
		size_t i;
		json_t *v;
		json_array_foreach(facts, i, v) n += hwc_facts_known_count(v);
	} else if (!json_is_null(facts)) {
		n = 1;
	}
	return n;
}

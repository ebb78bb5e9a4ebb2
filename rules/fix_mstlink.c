/* SPDX-License-Identifier: MIT */
/* mstlink (mstflint's mlxlink) in a finding's fix, made runnable on the card the finding names:
 * the port's number on a function that holds several ports, or, on a card mstlink refuses, the
 * infiniband-diags or ethtool command that reads the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "pci/pci.h"
#include "rules/rules-int.h"

/* mstflint (mlxlink_ui.cpp) answers "Device is not supported" for what dev_mgt calls 4th
 * generation, ConnectX-3 and ConnectX-3 Pro (dm_is_4th_gen; their VF 1004 likewise), and its
 * device table (dev_mgt/tools_dev_types.c) does not know the older ConnectX/ConnectX-2 ids
 * (15b3:6xxx, "Can't find device id"): Connect-IB and later only. The collector does not run
 * mstlink on the same set (mlx/mlxlink.c mstlink_refuses). */
static bool mstlink_refuses(const json_t *ad)
{
	return hwc_pci_mlx_before_connectib(hwc_q_string(ad, "device_id"));
}

/* The adapter's port the subject names ("mlx4_0/2" or a netdev), NULL when none. */
static const json_t *subject_port(const json_t *ad, const char *subject, struct hwc_arena *a)
{
	size_t i;
	const json_t *p;
	json_array_foreach(hwc_q_ports(ad), i, p) {
		const char *rd = hwc_q_string(p, "rdma_device"), *nd = hwc_q_string(p, "netdev");
		const json_t *pn = hwc_q_get(p, "port");
		if ((nd && !strcmp(nd, subject)) ||
		    (rd && json_is_integer(pn) &&
		     !strcmp(hwc_arena_printf(a, "%s/%lld", rd, (long long)json_integer_value(pn)), subject)))
			return p;
	}
	return NULL;
}

struct fix_port {
	const char *dev, *netdev;
	long long port;
	bool ib, refused;
};

/* One backticked mstlink command: with the port where it is not 1 and the command names none,
 * or, on a card mstlink refuses, what reads the same (-c counters, -m the module, neither the
 * port's speeds and state). */
static const char *one_cmd(struct hwc_arena *a, const char *cmd, const struct fix_port *fp)
{
	bool counters = strstr(cmd, " -c") != NULL, module = strstr(cmd, " -m") != NULL;
	if (!fp->refused) {
		if (strstr(cmd, " -p "))
			return hwc_arena_printf(a, "`%s`", hwc_fix_subst(a, cmd, "<port>", hwc_arena_printf(a, "%lld", fp->port)));
		if (fp->port <= 1)
			return hwc_arena_printf(a, "`%s`", cmd);
		size_t d = strlen("mstlink -d ");
		size_t bdf = d + strcspn(cmd + d, " ");
		return hwc_arena_printf(a, "`%.*s -p %lld%s`", (int)bdf, cmd, fp->port, cmd + bdf);
	}
	const char *dev = fp->dev ? fp->dev : "<rdma dev>", *nd = fp->netdev ? fp->netdev : "<netdev>";
	if (fp->ib && counters)
		return hwc_arena_printf(a, "`perfquery -C %s -P %lld`", dev, fp->port);
	if (fp->ib && module)
		return "not readable on this card"; /* mlx4 has no module access for an InfiniBand port */
	if (fp->ib)
		return hwc_arena_printf(a, "`ibportstate -C %s -P %lld -D 0 %lld`", dev, fp->port, fp->port);
	if (counters && module)
		return hwc_arena_printf(a, "`ethtool -m %s`, `ethtool -S %s`", nd, nd);
	return hwc_arena_printf(a, "`ethtool %s%s`", counters ? "-S " : module ? "-m " : "", nd);
}

static bool is_mstlink(const char *s)
{
	return !strncmp(s, "mstlink -d ", 11) || !strncmp(s, "mlxlink -d ", 11);
}

/* The joiner (" or ", ", ") at the start of s, its length; 0 when none. */
static size_t joiner(const char *s)
{
	return !strncmp(s, " or ", 4) ? 4 : !strncmp(s, ", ", 2) ? 2 : 0;
}

/* Every backticked mstlink command of fix through one_cmd; one whose stand-in the fix already
 * names is dropped with its joiner ("`ethtool eth2` or `ethtool eth2`" says it once); a note
 * when the card refuses mstlink. */
static const char *each_cmd(struct hwc_arena *a, const char *fix, const struct fix_port *fp)
{
	const char *out = "", *s = fix, *open;
	bool any = false;
	while (out && (open = strchr(s, '`'))) {
		const char *close = strchr(open + 1, '`');
		if (!close)
			break;
		const char *cmd = hwc_arena_strndup(a, open + 1, (size_t)(close - open - 1));
		size_t before = (size_t)(open - s);
		bool m = cmd && is_mstlink(cmd);
		const char *rep = m ? one_cmd(a, cmd, fp) : hwc_arena_printf(a, "`%s`", cmd ? cmd : "");
		any |= m;
		const char *prev = s;
		s = close + 1;
		if (m && fp->refused && rep && strstr(fix, rep)) {
			size_t j = joiner(s);
			for (size_t k = 4; !j && k >= 2; k -= 2) /* " or " or ", " before it */
				if (before >= k && joiner(open - k) == k)
					before -= k;
			s += j;
			rep = "";
		}
		out = hwc_arena_printf(a, "%s%.*s%s", out, (int)before, prev, rep ? rep : "");
	}
	out = out ? hwc_arena_printf(a, "%s%s", out, s) : NULL;
	if (out && any && fp->refused)
		out = hwc_arena_printf(a, "%s (mstlink does not support this card: mstflint's mlxlink "
				       "takes Connect-IB and later, not ConnectX-3 or older)", out);
	return out;
}

const char *hwc_fix_mstlink(const json_t *facts, struct hwc_arena *a, const char *subject, const char *fix)
{
	if (!fix || !subject || (!strstr(fix, "`mstlink -d ") && !strstr(fix, "`mlxlink -d ")))
		return fix;
	const json_t *ad = hwc_q_adapter_of(facts, subject);
	const json_t *p = ad ? subject_port(ad, subject, a) : NULL;
	const json_t *pn = hwc_q_get(p, "port");
	const char *ll = hwc_q_string(p, "link_layer");
	struct fix_port fp = {
		.dev = hwc_q_string(p, "rdma_device"),
		.netdev = hwc_q_string(p, "netdev"),
		.port = json_is_integer(pn) ? json_integer_value(pn) : 1,
		.ib = ll && !strcmp(ll, "InfiniBand"),
		.refused = mstlink_refuses(ad),
	};
	if (!p && !(fp.refused && hwc_q_netdev(facts, subject)))
		return fix;
	if (!p)
		fp.netdev = subject; /* a netdev of the card its ports do not list */
	const char *out = each_cmd(a, fix, &fp);
	return out ? out : fix;
}

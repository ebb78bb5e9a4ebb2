/* SPDX-License-Identifier: MIT */
/* The far end of the cable in link findings (issue 14): "host ens1np0 <-> LEAF03 Ethernet184:
 * ...", from the netdev's LLDP neighbour (netdevs[].link.peer) or the InfiniBand port's peer
 * (mlx.adapters[].ports[].peer), and for InfiniBand the same counter read on the peer's port, so
 * that the finding says on which end of the cable the errors are counted. Wording only: a
 * finding's severity and whether it fires never depend on the far end. */
#include <string.h>

#include "rules/rules-int.h"

/* "LEAF03 Ethernet184": the neighbour's name (else its chassis id) and its port id (its
 * description when the id is a MAC address, which names no port). NULL when unknown. */
static const char *lldp_text(struct hwc_rule_ctx *c, const json_t *peer)
{
	const char *name = hwc_q_string(peer, "chassis_name");
	const char *port = hwc_q_string(peer, "port_id");
	const char *type = hwc_q_string(peer, "port_id_type");
	const char *descr = hwc_q_string(peer, "port_description");
	if (!name)
		name = hwc_q_string(peer, "chassis_id");
	if ((!port || (type && strcmp(type, "mac") == 0)) && descr)
		port = descr;
	if (!name && !port)
		return NULL;
	return hwc_arena_printf(c->a, "%s%s%s", name ? name : "?", port ? " " : "", port ? port : "");
}

/* "leaf-07 MQM9700 port 31": the peer node's description (else its GUID) and port number. */
static const char *ib_text(struct hwc_rule_ctx *c, const json_t *peer)
{
	const char *name = hwc_q_string(peer, "node_description");
	const json_t *pn = hwc_q_get(peer, "port");
	if (!name)
		name = hwc_q_string(peer, "node_guid");
	if (!name)
		return NULL;
	if (!json_is_integer(pn))
		return name;
	return hwc_arena_printf(c->a, "%s port %lld", name, (long long)json_integer_value(pn));
}

static void name_it(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *far, const char *fact)
{
	fd->message = hwc_arena_printf(c->a, "host %s <-> %s: %s", fd->subject, far, fd->message);
	hwc_evidence_add(fd, c->a, fact, far, NULL);
}

void fv_far_end_netdev(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *nd, const char *base)
{
	const json_t *peer = hwc_q_at(nd, "link.peer");
	const char *far = fd && json_is_object(peer) ? lldp_text(c, peer) : NULL;
	if (far)
		name_it(c, fd, far, hwc_arena_printf(c->a, "%s.link.peer", base));
}

void fv_far_end_port(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *p, const char *base,
		     const char *counter)
{
	if (!fd)
		return;
	const char *ndname = hwc_q_string(p, "netdev"), *ll = hwc_q_string(p, "link_layer");
	const json_t *nd = ndname ? hwc_q_netdev(c->facts, ndname) : NULL;
	if (nd && !(ll && strcmp(ll, "InfiniBand") == 0)) { /* an IPoIB netdev hears no LLDP */
		fv_far_end_netdev(c, fd, nd, fv_netdev_path(c, ndname));
		return;
	}
	const json_t *peer = hwc_q_get(p, "peer");
	const char *far = json_is_object(peer) ? ib_text(c, peer) : NULL;
	if (!far)
		return;
	name_it(c, fd, far, hwc_arena_printf(c->a, "%s.peer", base));
	const json_t *mine = counter ? hwc_q_at(p, hwc_arena_printf(c->a, "counters.%s", counter)) : NULL;
	const json_t *theirs = counter ? hwc_q_at(peer, hwc_arena_printf(c->a, "counters.%s", counter)) : NULL;
	if (!json_is_number(mine) || !json_is_number(theirs))
		return; /* the far end's counters were not read: no side is named */
	double v = json_number_value(theirs);
	/* a link that goes down goes down at both of its ends: a far end that counted none had its
	 * counters reset since (a reboot, a clear), which says nothing of the side */
	if (v <= 0 && !strcmp(counter, "link_downed"))
		fd->message = hwc_arena_printf(c->a, "%s; the far end counts 0, yet a link goes down at both "
						     "ends: its counters were reset since", fd->message);
	else
		fd->message = hwc_arena_printf(c->a, "%s; %s (the far end counts %s)", fd->message,
					       v > 0 ? "on both ends of the cable" : "on the host side only",
					       fv_fmt_num(c->a, v));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.peer.counters.%s", base, counter),
			 fv_fmt_num(c->a, v), NULL);
}

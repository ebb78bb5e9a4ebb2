/* SPDX-License-Identifier: MIT */
/* The far end of an Ethernet port (issue 14): the LLDP neighbour lldpd heard on each ConnectX
 * netdev, from one `lldpcli -f json show neighbors details` through the runner; the parser of both
 * of lldpcli's JSON shapes; and the JSON of netdevs[].link.peer. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/parse.h"
#include "core/runner.h"

/* lldpcli's "json" writer (src/client/json_writer.c) folds a one-element list into its element
 * and an object whose only key is "value" into that value; "json0" keeps both. The first of a
 * longer list (a second management address) is the one kept. */
static const json_t *one(const json_t *v)
{
	for (int depth = 0; depth < 8 && v; depth++) {
		if (json_is_array(v) && json_array_size(v) > 0)
			v = json_array_get(v, 0);
		else if (json_is_object(v) && json_object_size(v) == 1 && json_object_get(v, "value"))
			v = json_object_get(v, "value");
		else
			break;
	}
	return v;
}

static const char *text(const json_t *o, const char *key)
{
	const json_t *v = one(json_object_get(o, key));
	return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : NULL;
}

static void put(struct hwc_arena *a, struct hwc_fstr *dst, const char *v)
{
	if (v)
		HWC_SET(*dst, hwc_arena_strdup(a, v));
	else
		HWC_FAIL(*dst, HWC_ST_ABSENT, 0, "not advertised by the neighbour");
}

/* An element that "json" keyed by its name ({"leaf-07": {...}}) or that carries it ("json0": a
 * "name" member, a string or [{"value": ...}]). *body is what holds the rest. */
static const char *named(const json_t *o, const char *const *members, const json_t **body)
{
	*body = o;
	if (!json_is_object(o))
		return NULL;
	const char *n = text(o, "name");
	if (n)
		return n;
	for (size_t i = 0; members[i]; i++)
		if (json_object_get(o, members[i]))
			return NULL; /* an element without a name, its members at the top */
	if (json_object_size(o) != 1)
		return NULL;
	const char *key = json_object_iter_key(json_object_iter((json_t *)o));
	const json_t *v = json_object_iter_value(json_object_iter((json_t *)o));
	if (!json_is_object(v))
		return NULL;
	*body = v;
	return key;
}

/* {"type": "mac", "value": "..."}: the id and its subtype. */
static void id_of(struct hwc_arena *a, const json_t *o, struct hwc_fstr *id, struct hwc_fstr *type)
{
	const json_t *v = one(json_object_get(o, "id"));
	if (json_is_string(v)) { /* a bare id (no subtype) */
		put(a, id, json_string_value(v));
		put(a, type, NULL);
		return;
	}
	put(a, id, text(v, "value"));
	put(a, type, text(v, "type"));
}

static void chassis_of(struct hwc_arena *a, const json_t *ifc, struct hwc_lldp_peer *p)
{
	static const char *const members[] = {"id", "descr", "mgmt-ip", "capability", NULL};
	const json_t *body;
	const char *name = named(one(json_object_get(ifc, "chassis")), members, &body);
	put(a, &p->chassis_name, name);
	id_of(a, body, &p->chassis_id, &p->chassis_id_type);
	put(a, &p->system_description, text(body, "descr"));
}

static void port_of(struct hwc_arena *a, const json_t *ifc, struct hwc_lldp_peer *p)
{
	const json_t *port = one(json_object_get(ifc, "port"));
	id_of(a, port, &p->port_id, &p->port_id_type);
	put(a, &p->port_description, text(port, "descr"));
	const char *mfs = text(port, "mfs");
	int64_t v;
	if (!mfs)
		HWC_FAIL(p->max_frame_size, HWC_ST_ABSENT, 0, "not advertised by the neighbour");
	else if (hwc_parse_i64(mfs, 10, &v) == 0 && v > 0)
		HWC_SET(p->max_frame_size, v);
	else
		HWC_FAIL(p->max_frame_size, HWC_ST_INVALID, 0, hwc_arena_printf(a, "mfs \"%s\" is not a size", mfs));
	put(a, &p->mau_type, text(one(json_object_get(port, "auto-negotiation")), "current"));
}

static int add_neighbor(struct hwc_arena *a, const json_t *entry, struct hwc_lldp_neighbors *out)
{
	static const char *const members[] = {"via", "chassis", "port", NULL};
	const json_t *ifc;
	const char *ifname = named(entry, members, &ifc);
	if (!ifname || !json_is_object(ifc))
		return 0; /* not an interface entry: nothing to attribute */
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->items[i].ifname, ifname) == 0)
			return 0; /* a second neighbour on the same port: the first stands */
	struct hwc_lldp_neighbor *nb = HWC_VEC_PUSH(a, out);
	if (!nb)
		return -ENOMEM;
	nb->ifname = hwc_arena_strdup(a, ifname);
	hwc_fmeta_set(&nb->peer.source.m, HWC_ST_OK, 0, NULL);
	put(a, &nb->peer.via, text(ifc, "via"));
	chassis_of(a, ifc, &nb->peer);
	port_of(a, ifc, &nb->peer);
	return 0;
}

int hwc_lldp_parse(const char *buf, size_t len, struct hwc_arena *a, struct hwc_lldp_neighbors *out)
{
	json_error_t err;
	json_t *root = json_loadb(buf, len, 0, &err);
	const json_t *lldp = json_object_get(root, "lldp");
	if (!lldp) {
		json_decref(root);
		return -EINVAL;
	}
	const json_t *ifs = json_object_get(one(lldp), "interface"), *entry;
	int rc = 0;
	size_t i;
	if (json_is_array(ifs)) {
		json_array_foreach(ifs, i, entry) {
			if ((rc = add_neighbor(a, entry, out)) < 0)
				break;
		}
	} else if (ifs) {
		rc = add_neighbor(a, ifs, out);
	}
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------------ collection */

/* Why lldpcli gave no neighbours: the runner's status, or its own words ("unable to connect to
 * socket /run/lldpd.socket": the daemon is not running). */
static void run_failed(const struct hwc_cmd_result *r, struct hwc_arena *a, const char *cmd, struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK) {
		*why = r->m;
		return;
	}
	const char *msg = r->err ? strstr(r->err, "unable to connect") : NULL;
	size_t n = msg ? strcspn(msg, "\n") : r->err ? strcspn(r->err, "\n") : 0;
	if (msg && memmem(msg, n, "Permission denied", 17)) /* the socket is root's and _lldpd's */
		hwc_fmeta_set(why, HWC_ST_NEEDS_ROOT, 0,
			      hwc_arena_printf(a, "lldpd's socket needs root or group _lldpd (%s: %.*s)", cmd, (int)n, msg));
	else if (msg)
		hwc_fmeta_set(why, HWC_ST_ABSENT, 0,
			      hwc_arena_printf(a, "lldpd is not running (%s: %.*s)", cmd, (int)n, msg));
	else
		hwc_fmeta_set(why, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code,
					       n ? hwc_arena_strndup(a, r->err, n) : "no message"));
}

const char *const hwc_lldp_argv[] = {"lldpcli", "-f", "json", "show", "neighbors", "details", NULL};

void hwc_lldp_collect(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev_facts *nf)
{
	if (!nf || !nf->netdevs.n)
		return;
	struct hwc_arena *a = f->arena;
	const char *const *argv = hwc_lldp_argv;
	const char *cmd = hwc_argv_str(a, argv);
	struct hwc_cmd_result r;
	struct hwc_lldp_neighbors nbs = {0};
	struct hwc_fmeta why = {0};
	hwc_run(e, a, argv, 0, &r);
	if (r.m.st != HWC_ST_OK || r.signal || r.exit_code != 0) {
		run_failed(&r, a, cmd, &why);
	} else if (hwc_lldp_parse(r.out, r.out_len, a, &nbs) < 0) {
		hwc_fmeta_set(&why, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not lldpcli's JSON", cmd));
		hwc_facts_error(f, "netdevs", cmd, "output not understood (expected a JSON object with \"lldp\")");
	}
	for (size_t i = 0; i < nf->netdevs.n; i++) {
		struct hwc_netdev *nd = &nf->netdevs.items[i];
		struct hwc_lldp_peer *p = &nd->link.peer;
		const struct hwc_lldp_neighbor *nb = NULL;
		for (size_t k = 0; k < nbs.n && !nb; k++)
			if (strcmp(nbs.items[k].ifname, nd->name) == 0)
				nb = &nbs.items[k];
		if (nb) {
			*p = nb->peer;
			HWC_SET(p->source, cmd);
		} else if (why.st != HWC_ST_UNSET) {
			p->source.m = why;
		} else {
			HWC_FAIL(p->source, HWC_ST_ABSENT, 0,
				 hwc_arena_printf(a, "lldpd heard no LLDP neighbour on %s (the switch port sends "
						     "none, or the link is down)", nd->name));
		}
	}
}

/* ------------------------------------------------------------------ JSON */

#define S(member) HWC_JF(struct hwc_lldp_peer, member, HWC_JT_STR)
static const struct hwc_jfield peer_f[] = {
	S(source), S(via), S(chassis_name), S(chassis_id), S(chassis_id_type), S(system_description),
	S(port_id), S(port_id_type), S(port_description),
	HWC_JF(struct hwc_lldp_peer, max_frame_size, HWC_JT_I64),
	S(mau_type),
};
#undef S
const struct hwc_jtable hwc_lldp_peer_table = HWC_JTABLE("netdevs[].link.peer", peer_f, 0);

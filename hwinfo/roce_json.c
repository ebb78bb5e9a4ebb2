/* SPDX-License-Identifier: MIT */
/* facts.roce <-> JSON (docs/FACTS.md, docs/schema/roce.schema.json): exact round trip. */
#include "hwinfo/roce.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

/* ------------------------------------------------------------------ arrays */

static void put_arr(json_t *o, const char *key, const struct hwc_roce_arr *r)
{
	if (r->m.st != HWC_ST_OK) {
		hwc_json_put_meta(o, key, &r->m);
		return;
	}
	json_t *arr = json_array();
	for (unsigned i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, !r->has[i] ? json_null()
					   : r->is_bool ? json_boolean(r->v[i])
							: json_integer(r->v[i]));
	json_object_set_new(o, key, arr);
}

static int get_arr(const json_t *o, const char *key, struct hwc_arena *a, unsigned n, bool is_bool,
		   struct hwc_roce_arr *r)
{
	hwc_roce_arr_init(r, n, is_bool, NULL);
	const json_t *j = json_object_get(o, key);
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, key, a, &r->m);
	if (!json_is_array(j) || json_array_size(j) != n)
		goto bad;
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	size_t i;
	const json_t *x;
	json_array_foreach(j, i, x) {
		if (json_is_null(x))
			continue;
		if (is_bool ? !json_is_boolean(x) : !json_is_integer(x))
			goto bad;
		hwc_roce_arr_set(r, (unsigned)i, is_bool ? json_is_true(x) : json_integer_value(x));
	}
	return 0;
bad:
	hwc_fmeta_set(&r->m, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not an array of %u", key, n));
	return -EINVAL;
}

static void put_tsa(json_t *o, const struct hwc_roce_qos *q)
{
	if (q->tc_tsa_m.st != HWC_ST_OK) {
		hwc_json_put_meta(o, "tc_tsa", &q->tc_tsa_m);
		return;
	}
	json_t *arr = json_array();
	for (unsigned i = 0; arr && i < HWC_ROCE_NPRIO; i++)
		json_array_append_new(arr, q->tc_tsa[i] ? hwc_json_string(q->tc_tsa[i]) : json_null());
	json_object_set_new(o, "tc_tsa", arr);
}

static int get_tsa(const json_t *o, struct hwc_arena *a, struct hwc_roce_qos *q)
{
	const json_t *j = json_object_get(o, "tc_tsa");
	memset(q->tc_tsa, 0, sizeof(q->tc_tsa));
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, "tc_tsa", a, &q->tc_tsa_m);
	if (!json_is_array(j) || json_array_size(j) != HWC_ROCE_NPRIO) {
		hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_INVALID, 0, "tc_tsa: not an array of 8");
		return -EINVAL;
	}
	hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_OK, 0, NULL);
	size_t i;
	const json_t *x;
	int rc = 0;
	json_array_foreach(j, i, x) {
		if (json_is_string(x))
			q->tc_tsa[i] = hwc_arena_strdup(a, json_string_value(x));
		else if (!json_is_null(x))
			rc = -EINVAL;
	}
	return rc;
}

/* ------------------------------------------------------------------ to JSON */

static json_t *qos_json(const struct hwc_roce_qos *q)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	hwc_json_put_str(o, "source", &q->source);
	hwc_json_put_str(o, "dcbx_mode", &q->dcbx_mode);
	hwc_json_put_str(o, "trust", &q->trust);
	put_arr(o, "dscp2prio", &q->dscp2prio);
	put_arr(o, "pfc_enabled", &q->pfc_enabled);
	put_arr(o, "prio_tc", &q->prio_tc);
	put_arr(o, "tc_bw", &q->tc_bw);
	put_tsa(o, q);
	put_arr(o, "prio_buffer", &q->prio_buffer);
	return hwc_json_unavail_last(o);
}

static json_t *gids_json(const struct hwc_roce_port *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < p->gids.n; i++) {
		const struct hwc_roce_gid *g = &p->gids.items[i];
		json_t *x = json_object();
		if (!x)
			break;
		json_object_set_new(x, "index", json_integer(g->index));
		hwc_json_put_str(x, "gid", &g->gid);
		hwc_json_put_str(x, "type", &g->type);
		hwc_json_put_str(x, "ndev", &g->ndev);
		json_array_append_new(arr, hwc_json_unavail_last(x));
	}
	return arr;
}

static json_t *counters_json(const struct hwc_roce_counters *c)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	for (size_t i = 0; i < HWC_ROCE_NHW; i++)
		hwc_json_put_u64(o, hwc_roce_hw_names[i], &c->hw[i]);
	hwc_json_put_u64(o, "tx_pause_storm_warning_events", &c->pause_storm_warning);
	hwc_json_put_u64(o, "tx_pause_storm_error_events", &c->pause_storm_error);
	put_arr(o, "rx_prio_pause", &c->rx_pause);
	put_arr(o, "tx_prio_pause", &c->tx_pause);
	put_arr(o, "rx_prio_pause_duration", &c->rx_pause_duration);
	put_arr(o, "tx_prio_pause_duration", &c->tx_pause_duration);
	put_arr(o, "rx_prio_discards", &c->rx_discards);
	return hwc_json_unavail_last(o);
}

json_t *hwc_roce_port_json(const struct hwc_roce_port *p)
{
	json_t *o = json_object(), *ecn = json_object(), *cc = json_object();
	if (!o || !ecn || !cc) {
		json_decref(o);
		json_decref(ecn);
		json_decref(cc);
		return NULL;
	}
	json_object_set_new(o, "rdma_device", hwc_json_string(p->rdma_device));
	json_object_set_new(o, "port", json_integer(p->port));
	hwc_json_put_str(o, "netdev", &p->netdev);
	hwc_json_put_str(o, "bdf", &p->bdf);
	hwc_json_put_i64(o, "fw_port", &p->fw_port);
	json_object_set_new(o, "qos", qos_json(&p->qos));
	put_arr(ecn, "np_enabled", &p->ecn_np);
	put_arr(ecn, "rp_enabled", &p->ecn_rp);
	json_object_set_new(o, "ecn", hwc_json_unavail_last(ecn));
	hwc_json_put_i64(cc, "cnp_dscp", &p->cnp_dscp);
	hwc_json_put_i64(cc, "cnp_802p_prio", &p->cnp_802p_prio);
	hwc_json_put_str(cc, "cnp_source", &p->cnp_source);
	hwc_json_put_i64(cc, "cc_prio_mask", &p->cc_prio_mask);
	hwc_json_put_str(cc, "cc_algorithm", &p->cc_algorithm);
	json_object_set_new(o, "congestion", hwc_json_unavail_last(cc));
	hwc_json_put_i64(o, "default_roce_tos", &p->default_roce_tos);
	hwc_json_put_str(o, "default_roce_tos_source", &p->default_roce_tos_source);
	if (p->gids_m.st == HWC_ST_OK)
		json_object_set_new(o, "gids", gids_json(p));
	else
		hwc_json_put_meta(o, "gids", &p->gids_m);
	hwc_json_put_i64(o, "roce_v2_gid_index", &p->roce_v2_gid_index);
	json_object_set_new(o, "counters", counters_json(&p->counters));
	return hwc_json_unavail_last(o);
}

json_t *hwc_roce_to_json(const struct hwc_facts *f)
{
	json_t *o = json_object();
	if (!o)
		return o;
	if (!f->roce || f->roce->m.st != HWC_ST_OK) {
		/* a facts file from before facts.roce: nobody collected it */
		struct hwc_fmeta nc = {HWC_ST_UNSET, 0, NULL};
		hwc_json_put_meta(o, "ports", f->roce ? &f->roce->m : &nc);
		return o;
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < f->roce->ports.n; i++)
		json_array_append_new(arr, hwc_roce_port_json(&f->roce->ports.items[i]));
	json_object_set_new(o, "ports", arr);
	return o;
}

/* ------------------------------------------------------------------ from JSON */

static int qos_from(const json_t *o, struct hwc_arena *a, struct hwc_roce_qos *q)
{
	int rc = 0;
	memset(q, 0, sizeof(*q));
	if (!o)
		return 0;
	if (!json_is_object(o))
		return -EINVAL;
	rc |= hwc_json_get_str(o, "source", a, &q->source);
	rc |= hwc_json_get_str(o, "dcbx_mode", a, &q->dcbx_mode);
	rc |= hwc_json_get_str(o, "trust", a, &q->trust);
	rc |= get_arr(o, "dscp2prio", a, HWC_ROCE_NDSCP, false, &q->dscp2prio);
	rc |= get_arr(o, "pfc_enabled", a, HWC_ROCE_NPRIO, true, &q->pfc_enabled);
	rc |= get_arr(o, "prio_tc", a, HWC_ROCE_NPRIO, false, &q->prio_tc);
	rc |= get_arr(o, "tc_bw", a, HWC_ROCE_NPRIO, false, &q->tc_bw);
	rc |= get_tsa(o, a, q);
	rc |= get_arr(o, "prio_buffer", a, HWC_ROCE_NPRIO, false, &q->prio_buffer);
	return rc ? -EINVAL : 0;
}

static int counters_from(const json_t *o, struct hwc_arena *a, struct hwc_roce_counters *c)
{
	int rc = 0;
	if (o && !json_is_object(o))
		return -EINVAL;
	for (size_t i = 0; i < HWC_ROCE_NHW; i++)
		rc |= hwc_json_get_u64(o, hwc_roce_hw_names[i], a, &c->hw[i]);
	rc |= hwc_json_get_u64(o, "tx_pause_storm_warning_events", a, &c->pause_storm_warning);
	rc |= hwc_json_get_u64(o, "tx_pause_storm_error_events", a, &c->pause_storm_error);
	rc |= get_arr(o, "rx_prio_pause", a, HWC_ROCE_NPRIO, false, &c->rx_pause);
	rc |= get_arr(o, "tx_prio_pause", a, HWC_ROCE_NPRIO, false, &c->tx_pause);
	rc |= get_arr(o, "rx_prio_pause_duration", a, HWC_ROCE_NPRIO, false, &c->rx_pause_duration);
	rc |= get_arr(o, "tx_prio_pause_duration", a, HWC_ROCE_NPRIO, false, &c->tx_pause_duration);
	rc |= get_arr(o, "rx_prio_discards", a, HWC_ROCE_NPRIO, false, &c->rx_discards);
	return rc ? -EINVAL : 0;
}

static int gids_from(const json_t *o, struct hwc_arena *a, struct hwc_roce_port *p)
{
	const json_t *g = json_object_get(o, "gids");
	if (!g || json_is_null(g))
		return hwc_json_get_meta(o, "gids", a, &p->gids_m);
	if (!json_is_array(g))
		return -EINVAL;
	hwc_fmeta_set(&p->gids_m, HWC_ST_OK, 0, NULL);
	size_t i;
	const json_t *x;
	int rc = 0;
	json_array_foreach(g, i, x) {
		const json_t *idx = json_object_get(x, "index");
		if (!json_is_integer(idx)) {
			rc = -EINVAL;
			continue;
		}
		struct hwc_roce_gid *e = HWC_VEC_PUSH(a, &p->gids);
		if (!e)
			return -ENOMEM;
		e->index = json_integer_value(idx);
		rc |= hwc_json_get_str(x, "gid", a, &e->gid);
		rc |= hwc_json_get_str(x, "type", a, &e->type);
		rc |= hwc_json_get_str(x, "ndev", a, &e->ndev);
	}
	return rc ? -EINVAL : 0;
}

static int port_from(const json_t *o, struct hwc_arena *a, struct hwc_roce_port *p)
{
	const json_t *ecn = json_object_get(o, "ecn"), *cc = json_object_get(o, "congestion");
	int rc = 0;
	p->rdma_device = hwc_arena_strdup(a, json_string_value(json_object_get(o, "rdma_device")));
	p->port = json_integer_value(json_object_get(o, "port"));
	rc |= hwc_json_get_str(o, "netdev", a, &p->netdev);
	rc |= hwc_json_get_str(o, "bdf", a, &p->bdf);
	rc |= hwc_json_get_i64(o, "fw_port", a, &p->fw_port);
	rc |= qos_from(json_object_get(o, "qos"), a, &p->qos);
	if ((ecn && !json_is_object(ecn)) || (cc && !json_is_object(cc)))
		rc = -EINVAL;
	rc |= get_arr(ecn, "np_enabled", a, HWC_ROCE_NPRIO, true, &p->ecn_np);
	rc |= get_arr(ecn, "rp_enabled", a, HWC_ROCE_NPRIO, true, &p->ecn_rp);
	rc |= hwc_json_get_i64(cc, "cnp_dscp", a, &p->cnp_dscp);
	rc |= hwc_json_get_i64(cc, "cnp_802p_prio", a, &p->cnp_802p_prio);
	rc |= hwc_json_get_str(cc, "cnp_source", a, &p->cnp_source);
	rc |= hwc_json_get_i64(cc, "cc_prio_mask", a, &p->cc_prio_mask);
	rc |= hwc_json_get_str(cc, "cc_algorithm", a, &p->cc_algorithm);
	rc |= hwc_json_get_i64(o, "default_roce_tos", a, &p->default_roce_tos);
	rc |= hwc_json_get_str(o, "default_roce_tos_source", a, &p->default_roce_tos_source);
	rc |= gids_from(o, a, p);
	rc |= hwc_json_get_i64(o, "roce_v2_gid_index", a, &p->roce_v2_gid_index);
	rc |= counters_from(json_object_get(o, "counters"), a, &p->counters);
	return rc ? -EINVAL : 0;
}

int hwc_roce_from_json(const json_t *j, struct hwc_facts *f)
{
	struct hwc_arena *a = f->arena;
	if (!json_is_object(j))
		return -EINVAL;
	struct hwc_roce_facts *rf = hwc_arena_zalloc(a, sizeof(*rf));
	if (!rf)
		return -ENOMEM;
	f->roce = rf;
	const json_t *ports = json_object_get(j, "ports");
	if (!ports || json_is_null(ports))
		return hwc_json_get_meta(j, "ports", a, &rf->m);
	if (!json_is_array(ports))
		return -EINVAL;
	hwc_fmeta_set(&rf->m, HWC_ST_OK, 0, NULL);
	int bad = 0;
	size_t i;
	const json_t *o;
	json_array_foreach(ports, i, o) {
		if (!json_is_object(o) || !json_is_string(json_object_get(o, "rdma_device")) ||
		    !json_is_integer(json_object_get(o, "port"))) {
			bad = -EINVAL;
			continue;
		}
		struct hwc_roce_port *p = HWC_VEC_PUSH(a, &rf->ports);
		if (!p)
			return -ENOMEM;
		if (port_from(o, a, p) < 0)
			bad = -EINVAL;
	}
	return bad;
}

/* SPDX-License-Identifier: MIT */
/* Negotiated vs possible (issue 14): each Ethernet port's speed against what its card supports
 * (ethtool's supported link modes), what the module allows (its compliance codes), what the
 * partner advertised, and the rate the site profile expects; the finding names the end that
 * limits. */
#include <string.h>

#include "rules/rules-int.h"

enum end { E_CARD, E_ADVERT, E_MODULE, E_PARTNER, E__N };

struct side {
	const char *label; /* "card", "module" ... */
	const char *path;  /* the fact */
	double mbps;       /* 0: unknown */
	const char *why;   /* why it is unknown */
	const char *what;  /* a detail for the message: the module's code */
	const char *ev;    /* the evidence value when the fact is not a number (mstlink's list) */
};

struct port {
	const char *name, *base;
	double speed; /* Mb/s */
	struct side s[E__N];
	const char *module_short; /* the module's codes name less than the live rate: why, else NULL */
};

static const char *gb(struct hwc_rule_ctx *c, double mbps)
{
	return hwc_arena_printf(c->a, "%sG", fv_fmt_num(c->a, mbps / 1000));
}

static void side_num(struct hwc_rule_ctx *c, const json_t *nd, struct port *p, enum end e, const char *label,
		     const char *dotted, double scale)
{
	struct side *s = &p->s[e];
	s->label = label;
	s->path = hwc_arena_printf(c->a, "%s.%s", p->base, dotted);
	double v = 0;
	if (hwc_q_find_num(nd, dotted, &v, &s->why, c->a) && v > 0)
		s->mbps = v * scale;
	else if (!s->why)
		s->why = "invalid: 0";
}

/* The module's part as the message names it ("Mellanox MMA1B00-SS1, SFF-8636 byte 192 ..."). */
static const char *module_text(struct hwc_rule_ctx *c, const json_t *nd)
{
	const char *v = hwc_q_string(hwc_q_netdev_module(nd), "vendor");
	const char *pn = hwc_q_string(hwc_q_netdev_module(nd), "part_number");
	const char *basis = hwc_q_string(hwc_q_netdev_module(nd), "rate_basis");
	return hwc_arena_printf(c->a, "%s%s%s%s%s", v ? v : "", v && pn ? " " : "", pn ? pn : "",
				(v || pn) && basis ? ", " : "", basis ? basis : "");
}

/* Without a module rate from `ethtool -m`, the cable speeds the firmware read from the module
 * (mstlink's Supported Cable Speed of the port) stand for the module's side. */
static void module_from_mstlink(struct hwc_rule_ctx *c, struct port *p)
{
	const json_t *ad = NULL, *mp = hwc_q_netdev_port(c->facts, p->name, &ad);
	const json_t *v = mp ? hwc_q_at(mp, "phy.supported_cable_speed") : NULL;
	double g = json_is_string(v) ? hwc_q_speed_list_gbps(json_string_value(v)) : 0;
	if (g <= 0)
		return;
	const json_t *pn = hwc_q_get(mp, "port");
	struct side *s = &p->s[E_MODULE];
	s->mbps = g * 1000;
	s->why = NULL;
	s->ev = json_string_value(v);
	const char *list = strrchr(s->ev, '(');
	size_t n = list ? strcspn(list + 1, ")") : strlen(s->ev);
	s->what = hwc_arena_printf(c->a, "mstlink Supported Cable Speed: %.*s", (int)n, list ? list + 1 : s->ev);
	s->path = hwc_arena_printf(c->a, "%s.ports[%s/%lld].phy.supported_cable_speed", fv_adapter_path(c, hwc_q_string(ad, "bdf")),
				   hwc_q_string(mp, "rdma_device"), json_is_integer(pn) ? (long long)json_integer_value(pn) : 1LL);
}

/* A module whose codes name less than the rate its live link runs: the declared capability is
 * incomplete (codes the vendor left out, a later standard's rate, the EEPROM of another module), so
 * it is no end's rate: the module side becomes unknown with why, never a limit nor a pass. */
static void module_contradicted(struct hwc_rule_ctx *c, struct port *p)
{
	struct side *s = &p->s[E_MODULE];
	if (s->mbps <= 0 || p->speed <= s->mbps)
		return;
	p->module_short = hwc_arena_printf(c->a, "invalid: the module's codes name at most %s (%s), yet its live link runs "
					   "at %s: its declared capability is incomplete", gb(c, s->mbps), s->what ? s->what : "?",
					   gb(c, p->speed));
	s->mbps = 0;
	s->why = p->module_short;
	s->what = NULL;
}

/* 1 when the port has a speed to judge; 0 when it has no link (NET_PORT_DOWN speaks) or the
 * speed is unknown (then an unknown finding). */
static int port_read(struct hwc_rule_ctx *c, const json_t *nd, struct port *p)
{
	p->name = hwc_q_string(nd, "name");
	p->base = fv_netdev_path(c, p->name);
	bool up = true;
	const char *why = NULL;
	const json_t *modes;
	/* a facts file from before hwcheck read `ethtool IF` says nothing either way */
	if (!hwc_q_find(nd, "link.modes", &modes, &why, c->a) && why && strncmp(why, "not_collected", 13) == 0)
		return 0;
	why = NULL;
	const char *op = hwc_q_string(nd, "operstate");
	bool carrier = true;
	if ((op && strcmp(op, "up") != 0) || (hwc_q_find_bool(nd, "carrier", &carrier, &why, c->a) && !carrier))
		return 0; /* no link: NET_PORT_DOWN speaks for it */
	why = NULL;
	if (hwc_q_find_bool(nd, "link.modes.link_detected", &up, &why, c->a) && !up)
		return 0;
	if (!hwc_q_find_num(nd, "link.modes.speed_mbps", &p->speed, &why, c->a) || p->speed <= 0) {
		if (why && strncmp(why, "absent", 6) == 0 && !up)
			return 0;
		hwc_rule_unknown(c, p->name, hwc_arena_printf(c->a, "%s.link.modes.speed_mbps", p->base), why ? why : "invalid: 0",
				 "the negotiated rate");
		return 0;
	}
	side_num(c, nd, p, E_CARD, "card", "link.modes.supported_max_mbps", 1);
	side_num(c, nd, p, E_ADVERT, "local advertisement", "link.modes.advertised_max_mbps", 1);
	side_num(c, nd, p, E_MODULE, "module", "link.module.max_gbps", 1000);
	side_num(c, nd, p, E_PARTNER, "partner", "link.modes.partner_max_mbps", 1);
	bool an = false;
	const char *w;
	/* the advertisement limits only while auto-negotiation chooses the speed */
	if (!hwc_q_find_bool(nd, "link.modes.autoneg", &an, &w, c->a) || !an ||
	    (p->s[E_CARD].mbps > 0 && p->s[E_ADVERT].mbps >= p->s[E_CARD].mbps))
		p->s[E_ADVERT].mbps = 0, p->s[E_ADVERT].why = NULL; /* names an end only when it narrows */
	if (p->s[E_MODULE].mbps > 0)
		p->s[E_MODULE].what = module_text(c, nd);
	else
		module_from_mstlink(c, p);
	module_contradicted(c, p);
	return 1;
}

/* "card 100G, module 10G (MikroTik S+AO0005, ...), partner unknown (...)" */
static const char *sides_text(struct hwc_rule_ctx *c, const struct port *p)
{
	const char *out = "";
	for (int e = 0; e < E__N; e++) {
		const struct side *s = &p->s[e];
		if (e == E_ADVERT && s->mbps <= 0)
			continue;
		const char *v = s->mbps > 0 ? gb(c, s->mbps) : "unknown";
		const char *d = s->mbps > 0 ? s->what : s->why;
		out = hwc_arena_printf(c->a, "%s%s%s %s%s%s%s", out, *out ? ", " : "", s->label, v, d ? " (" : "",
				       d ? d : "", d ? ")" : "");
	}
	return out;
}

static void add_sides(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct port *p)
{
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.link.modes.speed_mbps", p->base), fv_fmt_num(c->a, p->speed), NULL);
	for (int e = 0; e < E__N; e++)
		if (p->s[e].mbps > 0)
			hwc_evidence_add(fd, c->a, p->s[e].path,
					 p->s[e].ev ? p->s[e].ev : fv_fmt_num(c->a, e == E_MODULE ? p->s[e].mbps / 1000 : p->s[e].mbps), NULL);
}

/* The profile's rate for the netdev's product (port_rate_gbps), Mb/s; 0 when none. */
static double profile_mbps(struct hwc_rule_ctx *c, const char *name)
{
	const json_t *ad = hwc_q_adapter_of(c->facts, name);
	const json_t *want = ad ? hwc_profile_product_get(c->prof, ad, "port_rate_gbps") : NULL;
	return json_is_number(want) ? json_number_value(want) * 1000 : 0;
}

/* The ends at the lowest known rate, "the module limits" / "the module and the partner limit". */
static const char *limiters(struct hwc_rule_ctx *c, const struct port *p, double low)
{
	const char *out = "";
	int n = 0;
	for (int e = 0; e < E__N; e++)
		if (p->s[e].mbps > 0 && p->s[e].mbps <= low)
			out = hwc_arena_printf(c->a, "%s%sthe %s", out, n++ ? " and " : "", p->s[e].label);
	return hwc_arena_printf(c->a, "%s limit%s", out, n > 1 ? "" : "s");
}

/* A driver that reports no link modes (a VF, a representor): no card side to judge, as
 * LINK_MODULE_* have no module there. */
static bool no_card_side(const struct port *p)
{
	return p->s[E_CARD].mbps <= 0 && p->s[E_CARD].why && strncmp(p->s[E_CARD].why, "unsupported", 11) == 0;
}

/* The lowest known rate of the ends, Mb/s; 0 when none is known. */
static double lowest(const struct port *p)
{
	double low = 0;
	for (int e = 0; e < E__N; e++)
		if (p->s[e].mbps > 0 && (low == 0 || p->s[e].mbps < low))
			low = p->s[e].mbps;
	return low;
}

/* ---------------------------------------------------------------- InfiniBand */

/* IBA lane rates (Gb/s, as libibmad prints them) and their names. FDR10 is a Mellanox mode
 * that PortInfo shows as 10.0 Gbps: QDR's figure. */
static const struct {
	const char *name;
	double gbps;
} ib_lanes[] = {
	{"SDR", 2.5}, {"DDR", 5}, {"QDR", 10}, {"FDR10", 10}, {"FDR", 14.0625},
	{"EDR", 25.78125}, {"HDR", 53.125}, {"NDR", 106.25}, {"XDR", 212.5},
};

static const char *lane_name(double g)
{
	if (g == 10)
		return "QDR/FDR10";
	for (size_t i = 0; i < sizeof(ib_lanes) / sizeof(ib_lanes[0]); i++)
		if (ib_lanes[i].gbps == g)
			return ib_lanes[i].name;
	return "?";
}

static bool list_has(const json_t *l, double g)
{
	size_t i;
	const json_t *v;
	json_array_foreach(l, i, v) if (json_number_value(v) == g) return true;
	return false;
}

/* The best lane rate that mstlink's speed names ("0x3f (EDR,FDR,...)") name and, when among is a
 * list (a PortInfo's LinkSpeedEnabled, Gb/s), that it holds too; 0 when none. */
static double lane_best_in(const char *list, const json_t *among)
{
	const char *t = list ? strrchr(list, '(') : NULL;
	double best = 0;
	for (t = t ? t + 1 : list; t && *t && *t != ')';) {
		size_t n = strcspn(t, ",)");
		for (size_t i = 0; i < sizeof(ib_lanes) / sizeof(ib_lanes[0]); i++)
			if (strlen(ib_lanes[i].name) == n && strncmp(t, ib_lanes[i].name, n) == 0 && ib_lanes[i].gbps > best &&
			    (!among || list_has(among, ib_lanes[i].gbps)))
				best = ib_lanes[i].gbps;
		t += n + (t[n] == ',');
	}
	return best;
}

/* The best lane rate of mstlink's Supported Cable Speed names ("0x3f (EDR,FDR,...)"); 0 unknown. */
static double cable_lane_gbps(const char *list)
{
	return lane_best_in(list, NULL);
}

/* The largest number both lists hold (0: none in common). */
static double best_common(const json_t *x, const json_t *y)
{
	double best = 0;
	size_t i, j;
	const json_t *u, *v;
	json_array_foreach(x, i, u) json_array_foreach(y, j, v) if (json_number_value(u) == json_number_value(v) &&
								      json_number_value(u) > best) best = json_number_value(u);
	return best;
}

static const char *num_list(struct hwc_rule_ctx *c, const json_t *l, const char *unit)
{
	const char *out = "";
	size_t i;
	const json_t *v;
	json_array_foreach(l, i, v) out = hwc_arena_printf(c->a, "%s%s%.10g%s", out, i ? ", " : "", json_number_value(v), unit);
	return out;
}

struct ibport {
	const char *subj, *base;
	double speed, width;             /* active lane rate, lanes */
	const json_t *speeds[2], *widths[2]; /* enabled: [0] this port, [1] the peer */
};

static void ib_subject(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, struct ibport *r)
{
	const json_t *pn = hwc_q_get(p, "port");
	r->subj = hwc_arena_printf(c->a, "%s/%lld", hwc_q_string(p, "rdma_device"), json_is_integer(pn) ? (long long)json_integer_value(pn) : 1LL);
	r->base = hwc_arena_printf(c->a, "%s.ports[%s]", fv_adapter_path(c, hwc_q_string(ad, "bdf")), r->subj);
}

/* 1 when every PortInfo fact the judgement needs is known; else its unknown finding, 0. */
static int ib_read(struct hwc_rule_ctx *c, const json_t *p, struct ibport *r)
{
	static const char *const side[2] = {"portinfo", "peer.portinfo"};
	const char *need = "whether the link runs at the best rate both ends enable";
	if (!need_num(c, r->subj, p, r->base, "portinfo.speed_active_gbps", &r->speed) ||
	    !need_num(c, r->subj, p, r->base, "portinfo.width_active", &r->width))
		return 0;
	for (int k = 0; k < 2; k++) {
		if (!need_val(c, r->subj, p, r->base, hwc_arena_printf(c->a, "%s.speeds_enabled_gbps", side[k]), JSON_ARRAY, need,
			      &r->speeds[k]) ||
		    !need_val(c, r->subj, p, r->base, hwc_arena_printf(c->a, "%s.widths_enabled", side[k]), JSON_ARRAY, need,
			      &r->widths[k]))
			return 0;
	}
	return 1;
}

static void mst_below_possible(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, bool ib, const char *miss,
			       const char *mwhy);

/* The fix of an InfiniBand port below what both ends enable: compare both ends, then the cable. */
static const char *ib_below_fix(struct hwc_rule_ctx *c, const json_t *p)
{
	return hwc_fix_subst(c->a, "InfiniBand: `smpquery -C <rdma dev> -P <port> -D portinfo 0 <port>` (and the peer's "
			     "port, one hop out) shows LinkSpeedEnabled/Active and LinkWidthEnabled/Active of both "
			     "ends; reseat or replace the cable (the speeds it is rated for: `mstlink -d <BDF> -m`), "
			     "then let the link retrain (`ibportstate` reset of the switch port).",
			     "<rdma dev>", hwc_q_string(p, "rdma_device"));
}

/* An active InfiniBand port against the best speed and width that both its PortInfo and its
 * peer port's enable (ibdiagnet's "Unexpected actual link speed ... therefore final speed should
 * be"): the link trains to the best that both ends enable, unless the cable cannot carry it. */
static void ib_below_possible(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p)
{
	const char *st = hwc_q_string(p, "state");
	if (!st || strcmp(st, "ACTIVE") != 0)
		return; /* no link: the port state rules speak */
	struct ibport r = {0};
	ib_subject(c, ad, p, &r);
	const char *pwhy = NULL;
	double v;
	if (!hwc_q_find_num(p, "portinfo.speed_active_gbps", &v, &pwhy, c->a) && json_is_string(hwc_q_at(p, "phy.speed"))) {
		mst_below_possible(c, ad, p, true, hwc_arena_printf(c->a, "%s.portinfo", r.base), pwhy); /* mstlink: the only source */
		return;
	}
	if (!ib_read(c, p, &r))
		return;
	double sp = best_common(r.speeds[0], r.speeds[1]), wd = best_common(r.widths[0], r.widths[1]);
	if (sp <= 0 || wd <= 0) {
		hwc_rule_unknown(c, r.subj, hwc_arena_printf(c->a, "%s.peer.portinfo", r.base), "the two ends enable no speed or width in common",
				 "the best rate the link could train to");
		return;
	}
	if (r.speed >= sp && r.width >= wd)
		return;
	const json_t *cab = hwc_q_at(p, "phy.supported_cable_speed");
	double cg = json_is_string(cab) ? cable_lane_gbps(json_string_value(cab)) : 0;
	if (cg > 0 && cg <= r.speed && r.width >= wd)
		return; /* the cable is rated no faster than the link runs: it limits, not the ends */
	const char *cable = cg > 0 ? hwc_arena_printf(c->a, "the cable (mstlink) is rated up to %s", lane_name(cg))
				   : "the cable's rating was not read (no mstlink Supported Cable Speed): a cable rated lower would explain it";
	struct hwc_finding *fd = hwc_rule_emit(
		c, r.subj, "linked at %gX %s (%.10g Gb/s), below the %gX %s (%.10g Gb/s) that both ends enable: this port enables %s Gb/s lanes x %s, the peer %s Gb/s x %s; %s",
		r.width, lane_name(r.speed), r.speed * r.width, wd, lane_name(sp), sp * wd,
		num_list(c, r.speeds[0], ""), num_list(c, r.widths[0], "X"), num_list(c, r.speeds[1], ""), num_list(c, r.widths[1], "X"), cable);
	hwc_evidence_addf(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.speed_active_gbps", r.base),
			  hwc_arena_printf(c->a, "%.10g", sp), "%.10g", r.speed);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.width_active", r.base), fv_fmt_num(c->a, r.width), fv_fmt_num(c->a, wd));
	for (int k = 0; k < 2; k++)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.%s.speeds_enabled_gbps", r.base, k ? "peer.portinfo" : "portinfo"),
				 num_list(c, r.speeds[k], ""), NULL);
	if (cg > 0)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r.base), json_string_value(cab), NULL);
	fd->fix = ib_below_fix(c, p);
	fv_far_end_port(c, fd, p, r.base, NULL);
}

/* judge(c, adapter, port) for every InfiniBand port of every card. */
static void each_ib_port(struct hwc_rule_ctx *c, void (*judge)(struct hwc_rule_ctx *, const json_t *, const json_t *))
{
	size_t i, j;
	const json_t *ad, *ip;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_foreach(hwc_q_ports(ad), j, ip) {
		const char *ll = hwc_q_string(ip, "link_layer");
		if (ll && strcmp(ll, "InfiniBand") == 0)
			judge(c, ad, ip);
	}
}

static double max_of(const json_t *l)
{
	double m = 0;
	size_t i;
	const json_t *v;
	json_array_foreach(l, i, v) if (json_number_value(v) > m) m = json_number_value(v);
	return m;
}

/* The IB ends that hold a link below this port's best (cs lanes of cw): the cable (mstlink's
 * Supported Cable Speed, cg) and the peer (ps x pw, the best both enable), each when known
 * (0: unknown). "the cable limits (...)"; NULL when no known end explains the rate. */
static const char *ib_limiters(struct hwc_rule_ctx *c, const struct ibport *r, double cs, double cw, double cg,
			       double ps, double pw, bool *cable_out, bool *peer_out)
{
	double smax = cs, wmax = cw;
	if (ps > 0 && pw > 0)
		smax = ps < smax ? ps : smax, wmax = pw < wmax ? pw : wmax;
	if (cg > 0 && cg < smax)
		smax = cg;
	if (r->speed < smax || r->width < wmax)
		return NULL; /* below what every known end allows: LINK_RATE_BELOW_POSSIBLE */
	bool cable = cg > 0 && cg < cs && cg <= r->speed;
	bool peer = ps > 0 && pw > 0 && ((ps < cs && ps <= r->speed) || (pw < cw && pw <= r->width));
	*cable_out = cable, *peer_out = peer;
	const char *cab = cable ? hwc_arena_printf(c->a, "the cable is rated up to %s (mstlink Supported Cable Speed)", lane_name(cg)) : "";
	const char *pr = peer ? hwc_arena_printf(c->a, "the peer enables up to %gX %s in common with this port", pw, lane_name(ps)) : "";
	return hwc_arena_printf(c->a, "%s limit%s: %s%s%s", cable && peer ? "the cable and the peer" : cable ? "the cable" : "the peer",
				cable && peer ? "" : "s", cab, cable && peer ? "; " : "", pr);
}

/* The fix of an InfiniBand port held below its best (lane rate best, Gb/s) by the cable, the peer
 * or both: the part to change at the end that limits, and how to check it. */
static const char *ib_limited_fix(struct hwc_rule_ctx *c, bool cable, bool peer, double best)
{
	const char *cab = hwc_arena_printf(c->a, "replace the cable with one rated for %s (`mstlink -d <BDF> -m` shows the "
					   "cable and, as Supported Cable Speed, the speeds the firmware read from it)", lane_name(best));
	const char *pr = "enable the speed and width at the peer: the switch port's (or the peer HCA's) LinkSpeedEnabled and "
			 "LinkWidthEnabled, shown by `smpquery -D portinfo` one hop out and set by the subnet manager or `ibportstate`";
	return hwc_arena_printf(c->a, "InfiniBand: %s%s%s; then let the link retrain (`ibportstate` reset of the switch port).",
				cable ? cab : "", cable && peer ? "; and " : "", peer ? pr : "");
}

/* ---------------------------------------------- mstlink's speeds, where they are the only source */

/* The rate of one of mstlink's speed texts: an InfiniBand lane rate by name ("IB-HDR", "0xf1
 * (NDR,HDR,...)": the best named), an Ethernet port rate in Gb/s ("400G", "100GbE", "0x... (400G_4X,
 * ...)": the best); 0 when it names none. */
static double mst_gbps(const char *t, bool ib)
{
	if (!t)
		return 0;
	if (!ib)
		return hwc_q_speed_list_gbps(t);
	if (strncmp(t, "IB-", 3) == 0)
		t += 3;
	return cable_lane_gbps(t);
}

static const char *mst_rate_name(struct hwc_rule_ctx *c, double g, bool ib)
{
	return ib ? lane_name(g) : gb(c, g * 1000);
}

/* mstlink's Speed (act) and the best of its Enabled Link Speed (best) of a port with a link: 1 when
 * both are known; else 0, with an unknown finding where one is missing or names no speed. */
static int mst_read(struct hwc_rule_ctx *c, const json_t *p, bool ib, const struct ibport *r, const char **sp, const char **en,
		    double *act, double *best)
{
	const char *st = hwc_q_string(hwc_q_get(p, "phy"), "state");
	if (st && strcmp(st, "Active") != 0)
		return 0; /* no link: the port state rules speak */
	if (!need_str(c, r->subj, p, r->base, "phy.speed", sp) || !need_str(c, r->subj, p, r->base, "phy.enabled_link_speed", en))
		return 0;
	*act = mst_gbps(*sp, ib), *best = mst_gbps(*en, ib);
	if (*act <= 0 || *best <= 0) {
		hwc_rule_unknown(c, r->subj, hwc_arena_printf(c->a, "%s.phy.%s", r->base, *act <= 0 ? "speed" : "enabled_link_speed"),
				 hwc_arena_printf(c->a, "invalid: %s names no %s speed", *act <= 0 ? *sp : *en, ib ? "InfiniBand" : "Ethernet"),
				 "the best rate this port enables");
		return 0;
	}
	return 1;
}

/* An InfiniBand port whose lane rate is the best mstlink's Enabled Link Speed names, against the
 * card: on InfiniBand that list is PDDR's core_to_phy_link_proto_enabled, the speeds the firmware
 * handed the PHY, already narrowed (to SDR on a cable whose EEPROM names no InfiniBand speed), so it
 * is no measure of the card. The card's is ib_lane_floor_gbps, the best lane rate every InfiniBand
 * board of its line supports (an identity-table figure, never this board's read capability). Below
 * it, the cable limits when its Supported Cable Speed stops at the running rate: a finding, info,
 * warn below the profile's rate; a cable rated for more leaves who narrowed the enabled speeds
 * unknown (the peer's or this port's LinkSpeedEnabled, PortInfo's). 1 when judged here. */
static int mst_ib_below_card(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, const struct ibport *r, const char *sp,
			     const char *en, double act, const json_t *want, bool below, const char *miss, const char *mwhy)
{
	double fl = 0;
	const char *fwhy = NULL, *gen = hwc_q_string(ad, "generation");
	if (!hwc_q_find_num(ad, "ib_lane_floor_gbps", &fl, &fwhy, c->a) || fl <= act)
		return 0;
	const char *cab = hwc_q_string(hwc_q_get(p, "phy"), "supported_cable_speed");
	double cg = mst_gbps(cab, true);
	const json_t *w = hwc_q_at(p, "phy.width"), *rate = hwc_q_get(p, "rate_gbps");
	const char *at = hwc_arena_printf(c->a, "%s%s%s%s", json_is_string(w) ? json_string_value(w) : "", json_is_string(w) ? " " : "",
					  lane_name(act), json_is_number(rate) ? hwc_arena_printf(c->a, " (%g Gb/s)", json_number_value(rate)) : "");
	const char *card = hwc_arena_printf(c->a, "the %s lanes that every InfiniBand %s board supports (hwcheck's identity table: the "
					    "line's floor, not this board's own capability)", lane_name(fl), gen ? gen : "board of this line");
	if (cg <= 0 || cg > act) {
		hwc_rule_unknown(c, r->subj, miss, mwhy,
				 hwc_arena_printf(c->a, "what holds the link at %s below %s: the firmware enables %s only (mstlink Enabled "
						    "Link Speed %s) and the cable is rated for more (%s): the peer's or this port's "
						    "LinkSpeedEnabled would say", at, card, lane_name(act), en,
						    cab ? cab : "its Supported Cable Speed names no speed"));
		return 1;
	}
	struct hwc_finding *fd = hwc_rule_emit_sev(
		c, below ? c->sev : HWC_SEV_INFO, r->subj, "linked at %s, below %s: the cable limits: rated up to %s (mstlink Supported "
		"Cable Speed %s), and the firmware enables %s only (Enabled Link Speed %s; mstlink the only source: no PortInfo)%s",
		at, card, lane_name(cg), cab, lane_name(act), en,
		below ? hwc_arena_printf(c->a, "; the profile expects %g Gb/s", json_number_value(want)) : "");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.speed", r->base), sp, lane_name(fl));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.ib_lane_floor_gbps", fv_adapter_path(c, hwc_q_string(ad, "bdf"))),
			 hwc_arena_printf(c->a, "%.10g", fl), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r->base), cab, NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.enabled_link_speed", r->base), en, NULL);
	if (below)
		hwc_evidence_add(fd, c->a, "profile.products[].port_rate_gbps", fv_fmt_num(c->a, json_number_value(want)), NULL);
	if (fd)
		fd->fix = ib_limited_fix(c, true, false, fl);
	fv_far_end_port(c, fd, p, r->base, NULL);
	return 1;
}

/* A port whose only rate source is mstlink (an InfiniBand port without PortInfo, an Ethernet
 * port without a netdev): its Speed against the best of its Enabled Link Speed, the cable
 * (Supported Cable Speed) as the end that may limit. miss: the other source's path, mwhy why it is
 * missing. On InfiniBand the lane rate only: the enabled widths are PortInfo's. */
static void mst_limited(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, bool ib, const char *miss, const char *mwhy)
{
	struct ibport r = {0};
	ib_subject(c, ad, p, &r);
	const char *sp, *en;
	double act, best;
	if (!mst_read(c, p, ib, &r, &sp, &en, &act, &best))
		return;
	const json_t *want = hwc_profile_product_get(c->prof, ad, "port_rate_gbps"), *rate = hwc_q_get(p, "rate_gbps");
	double now = ib ? (json_is_number(rate) ? json_number_value(rate) : 0) : act;
	bool below = json_is_number(want) && now > 0 && now < json_number_value(want);
	const char *by = hwc_arena_printf(c->a, "mstlink Speed %s, Enabled Link Speed %s", sp, en);
	if (act >= best) {
		if (ib && mst_ib_below_card(c, ad, p, &r, sp, en, act, want, below, miss, mwhy))
			return;
		if (ib) /* the lane rate is at its best; whether the width is needs LinkWidthEnabled */
			hwc_rule_unknown(c, r.subj, miss, mwhy,
					 hwc_arena_printf(c->a, "whether the width is this port's best (its lane rate, %s, is the best it "
							    "enables: %s; the enabled widths are PortInfo's)", lane_name(act), by));
		else if (below) {
			struct hwc_finding *fd = hwc_rule_emit(c, r.subj, "linked at %s, the best this port enables (%s): below the %g Gb/s the "
							   "profile expects; the card's enabled speeds limit", gb(c, act * 1000), by,
							   json_number_value(want));
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.enabled_link_speed", r.base), en, NULL);
			hwc_evidence_add(fd, c->a, "profile.products[].port_rate_gbps", fv_fmt_num(c->a, json_number_value(want)), NULL);
		}
		return;
	}
	const char *cab = hwc_q_string(hwc_q_get(p, "phy"), "supported_cable_speed"), *cwhy = NULL;
	double cg = mst_gbps(cab, ib);
	if (cg <= 0 || cg > act) {
		if (cg <= 0 && !hwc_q_find_str(p, "phy.supported_cable_speed", &cab, &cwhy, c->a))
			hwc_rule_unknown(c, r.subj, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r.base), cwhy,
					 hwc_arena_printf(c->a, "whether the cable limits the link at %s (%s)", mst_rate_name(c, act, ib), by));
		else
			hwc_rule_unknown(c, r.subj, miss, mwhy,
					 hwc_arena_printf(c->a, "whether the %s limits the link at %s, below the %s this port enables (%s; the "
							    "cable is rated for more: %s)", ib ? "peer" : "partner", mst_rate_name(c, act, ib),
							    mst_rate_name(c, best, ib), by, cab ? cab : "no speed named"));
		return;
	}
	struct hwc_finding *fd = hwc_rule_emit_sev(
		c, below ? c->sev : HWC_SEV_INFO, r.subj, "linked at %s%s, below the %s this port enables: the cable limits: rated up to %s "
		"(mstlink Supported Cable Speed; %s, the only source: %s)%s",
		mst_rate_name(c, act, ib), ib ? " a lane" : "", mst_rate_name(c, best, ib), mst_rate_name(c, cg, ib), by,
		ib ? "no PortInfo" : "no netdev",
		below ? hwc_arena_printf(c->a, "; the profile expects %g Gb/s", json_number_value(want)) : "");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.speed", r.base), sp, mst_rate_name(c, best, ib));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.enabled_link_speed", r.base), en, NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r.base), cab, NULL);
	if (below)
		hwc_evidence_add(fd, c->a, "profile.products[].port_rate_gbps", fv_fmt_num(c->a, json_number_value(want)), NULL);
	fd->fix = ib ? ib_limited_fix(c, true, false, best)
		     : hwc_arena_printf(c->a, "Replace the cable or module with one rated for %s (`mstlink -d <BDF> -m` shows it and, as "
					"Supported Cable Speed, the speeds the firmware read from it); then let the link retrain.",
					gb(c, best * 1000));
	fv_far_end_port(c, fd, p, r.base, NULL);
}

typedef void mst_judge(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, bool ib, const char *miss, const char *mwhy);

/* judge(c, adapter, port, false, ...) for the Ethernet ports that mstlink reads and no netdev
 * shows: mstlink is the only source. */
static void each_eth_port(struct hwc_rule_ctx *c, mst_judge *judge)
{
	size_t i, j;
	const json_t *ad, *p;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_foreach(hwc_q_ports(ad), j, p) {
		const char *ll = hwc_q_string(p, "link_layer"), *nd = hwc_q_string(p, "netdev"), *st = hwc_q_string(p, "state");
		if (!ll || strcmp(ll, "Ethernet") != 0 || (nd && hwc_q_netdev(c->facts, nd)) || !json_is_string(hwc_q_at(p, "phy.source")) ||
		    (st && strcmp(st, "ACTIVE") != 0))
			continue; /* a netdev (judged from ethtool), no mstlink, or no link (the port state rules speak) */
		struct ibport r = {0};
		ib_subject(c, ad, p, &r);
		judge(c, ad, p, false, hwc_arena_printf(c->a, "%s.netdev", r.base),
		      nd ? hwc_arena_printf(c->a, "absent: netdev %s not in the capture", nd) : "absent: no netdev for this port");
	}
}

/* LINK_RATE_BELOW_POSSIBLE where mstlink is the only rate source (an InfiniBand port whose
 * PortInfo was not read, an Ethernet port without a netdev): its Speed against the best that its
 * Enabled Link Speed and the far end both enable. The far end is the peer's PortInfo (LinkSpeedEnabled,
 * one hop out) where it was read; an Ethernet partner's advertisement is ethtool's, which needs a
 * netdev. Silent at the best this port enables (Ethernet) and where the cable's rating stops at
 * the rate the link runs (LINK_RATE_LIMITED names the cable); on InfiniBand a lane rate at its
 * best leaves the width unknown (LinkWidthEnabled is PortInfo's). */
static void mst_below_possible(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p, bool ib, const char *miss,
			       const char *mwhy)
{
	struct ibport r = {0};
	ib_subject(c, ad, p, &r);
	const char *sp, *en, *pwhy = NULL;
	double act, best;
	if (!mst_read(c, p, ib, &r, &sp, &en, &act, &best))
		return;
	const char *by = hwc_arena_printf(c->a, "mstlink Speed %s, Enabled Link Speed %s", sp, en);
	const char *ppath = hwc_arena_printf(c->a, "%s.peer.portinfo.speeds_enabled_gbps", r.base);
	const json_t *ps = NULL;
	if (ib && !hwc_q_find(p, "peer.portinfo.speeds_enabled_gbps", &ps, &pwhy, c->a))
		ps = NULL;
	double both = json_is_array(ps) ? lane_best_in(en, ps) : 0; /* the best lane both ends enable */
	if (json_is_array(ps) && both <= 0) {
		hwc_rule_unknown(c, r.subj, ppath, "the two ends enable no speed in common", "the best rate the link could train to");
		return;
	}
	if (act >= (both > 0 ? both : best)) {
		const json_t *w = hwc_q_at(p, "phy.width");
		if (ib) /* the lane rate is the best both ends (or this port) enable; whether the width is needs LinkWidthEnabled */
			hwc_rule_unknown(c, r.subj, miss, mwhy,
					 hwc_arena_printf(c->a, "whether the width%s%s%s is the best both ends enable (its lane rate, %s, is the "
							    "best %s: %s; the enabled widths are PortInfo's)",
							    json_is_string(w) ? " (" : "", json_is_string(w) ? json_string_value(w) : "",
							    json_is_string(w) ? ")" : "", lane_name(act), both > 0 ? "both ends enable" : "this port enables", by));
		return; /* Ethernet: at the best this port enables, nothing could be faster */
	}
	const char *cab = hwc_q_string(hwc_q_get(p, "phy"), "supported_cable_speed");
	double cg = mst_gbps(cab, ib);
	if (cg > 0 && cg <= act)
		return; /* the cable is rated no faster than the link runs: LINK_RATE_LIMITED names it */
	const char *ctext = cg > 0 ? hwc_arena_printf(c->a, "the cable (mstlink) is rated up to %s", mst_rate_name(c, cg, ib))
				   : "the cable's rating was not read (no mstlink Supported Cable Speed): a cable rated lower would explain it";
	if (both <= 0) {
		hwc_rule_unknown(c, r.subj, ib ? ppath : miss, ib ? (pwhy ? pwhy : "absent") : mwhy,
				 hwc_arena_printf(c->a, "whether the link at %s%s, below the %s this port enables (%s), is below what "
						    "both ends enable: the %s %s; %s", mst_rate_name(c, act, ib), ib ? " a lane" : "",
						    mst_rate_name(c, best, ib), by, ib ? "peer's" : "partner's",
						    ib ? "LinkSpeedEnabled (its PortInfo, one hop out) was not read"
						       : "advertisement is ethtool's, and no netdev shows this port",
						    ctext));
		return;
	}
	struct hwc_finding *fd = hwc_rule_emit(c, r.subj, "linked at %s a lane, below the %s that both ends enable (this port: %s; the peer's "
					       "PortInfo: %s Gb/s lanes; mstlink the only source for this port: no PortInfo): %s",
					       lane_name(act), lane_name(both), by, num_list(c, ps, ""), ctext);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.speed", r.base), sp, lane_name(both));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.enabled_link_speed", r.base), en, NULL);
	hwc_evidence_add(fd, c->a, ppath, num_list(c, ps, ""), NULL);
	if (cg > 0)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r.base), cab, NULL);
	fd->fix = ib_below_fix(c, p);
	fv_far_end_port(c, fd, p, r.base, NULL);
}

static void eval_below_possible(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		struct port p = {0};
		if (!port_read(c, nd, &p) || no_card_side(&p))
			continue;
		double low = lowest(&p);
		if (p.s[E_CARD].mbps > 0 && p.speed >= p.s[E_CARD].mbps)
			continue; /* at the card's best: nothing could be faster */
		if (low > 0 && p.speed >= low)
			continue; /* an end limits it: LINK_RATE_LIMITED */
		bool all = p.s[E_CARD].mbps > 0 && p.s[E_MODULE].mbps > 0 && p.s[E_PARTNER].mbps > 0;
		if (!all) {
			for (int e = 0; e < E__N; e++)
				if (e != E_ADVERT && p.s[e].mbps <= 0)
					hwc_rule_unknown(c, p.name, p.s[e].path, p.s[e].why,
							 hwc_arena_printf(c->a, "whether the %s limits the link at %s", p.s[e].label, gb(c, p.speed)));
			continue;
		}
		struct hwc_finding *fd = hwc_rule_emit(c, p.name, "linked at %s, below what every end supports: %s",
						       gb(c, p.speed), sides_text(c, &p));
		add_sides(c, fd, &p);
	}
	each_ib_port(c, ib_below_possible);
	each_eth_port(c, mst_below_possible);
}

/* An active InfiniBand port below the best its own PortInfo enables, where the cable or the peer
 * explains it: the end that limits, named. */
static void ib_limited(struct hwc_rule_ctx *c, const json_t *ad, const json_t *p)
{
	const char *st = hwc_q_string(p, "state"), *need = "the best rate this port enables";
	if (!st || strcmp(st, "ACTIVE") != 0)
		return;
	struct ibport r = {0};
	ib_subject(c, ad, p, &r);
	const char *pwhy = NULL;
	if (!hwc_q_find_num(p, "portinfo.speed_active_gbps", &r.speed, &pwhy, c->a) && json_is_string(hwc_q_at(p, "phy.speed"))) {
		mst_limited(c, ad, p, true, hwc_arena_printf(c->a, "%s.portinfo", r.base), pwhy); /* mstlink: the only source */
		return;
	}
	if (!need_num(c, r.subj, p, r.base, "portinfo.speed_active_gbps", &r.speed) ||
	    !need_num(c, r.subj, p, r.base, "portinfo.width_active", &r.width) ||
	    !need_val(c, r.subj, p, r.base, "portinfo.speeds_enabled_gbps", JSON_ARRAY, need, &r.speeds[0]) ||
	    !need_val(c, r.subj, p, r.base, "portinfo.widths_enabled", JSON_ARRAY, need, &r.widths[0]))
		return;
	double cs = max_of(r.speeds[0]), cw = max_of(r.widths[0]);
	if (r.speed >= cs && r.width >= cw)
		return;
	const json_t *ps = hwc_q_at(p, "peer.portinfo.speeds_enabled_gbps"), *pw = hwc_q_at(p, "peer.portinfo.widths_enabled");
	const json_t *cab = hwc_q_at(p, "phy.supported_cable_speed");
	double cg = json_is_string(cab) ? cable_lane_gbps(json_string_value(cab)) : 0;
	bool peer = json_is_array(ps) && json_is_array(pw);
	bool by_cable = false, by_peer = false;
	const char *lim = ib_limiters(c, &r, cs, cw, cg, peer ? best_common(r.speeds[0], ps) : 0, peer ? best_common(r.widths[0], pw) : 0,
				      &by_cable, &by_peer);
	if (!lim)
		return;
	const json_t *want = hwc_profile_product_get(c->prof, ad, "port_rate_gbps"), *rate = hwc_q_get(p, "rate_gbps");
	bool below = json_is_number(want) && json_is_number(rate) && json_number_value(rate) < json_number_value(want);
	struct hwc_finding *fd = hwc_rule_emit_sev(c, below ? c->sev : HWC_SEV_INFO, r.subj,
						   "linked at %gX %s (%.10g Gb/s), below the %gX %s (%.10g Gb/s) this port enables: %s%s",
						   r.width, lane_name(r.speed), r.speed * r.width, cw, lane_name(cs), cs * cw, lim,
						   below ? hwc_arena_printf(c->a, "; the profile expects %g Gb/s", json_number_value(want)) : "");
	hwc_evidence_addf(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.speed_active_gbps", r.base), hwc_arena_printf(c->a, "%.10g", cs),
			  "%.10g", r.speed);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.portinfo.width_active", r.base), fv_fmt_num(c->a, r.width), fv_fmt_num(c->a, cw));
	if (cg > 0)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.phy.supported_cable_speed", r.base), json_string_value(cab), NULL);
	if (peer)
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.peer.portinfo.speeds_enabled_gbps", r.base), num_list(c, ps, ""), NULL);
	if (below)
		hwc_evidence_add(fd, c->a, "profile.products[].port_rate_gbps", fv_fmt_num(c->a, json_number_value(want)), NULL);
	if (fd)
		fd->fix = ib_limited_fix(c, by_cable, by_peer, cs);
	fv_far_end_port(c, fd, p, r.base, NULL);
}

/* This port's own advertisement limits it: advertise the best rate the other known ends allow
 * (ethtool -s with speed and autoneg on advertises that speed's modes). */
static const char *advert_fix(struct hwc_rule_ctx *c, const struct port *p)
{
	double best = 0;
	for (int e = 0; e < E__N; e++)
		if (e != E_ADVERT && p->s[e].mbps > 0 && (best == 0 || p->s[e].mbps < best))
			best = p->s[e].mbps;
	return hwc_arena_printf(c->a, "This port advertises less than its card supports: `ethtool <netdev>` shows "
				"'Advertised link modes' narrower than 'Supported link modes'. Advertise %s again (`ethtool -s "
				"<netdev> speed %.0f autoneg on`) and undo the setting that narrowed it (a NetworkManager or "
				"udev .link file, a boot script).", gb(c, best), best);
}

static void eval_limited(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(c->facts), i, nd) {
		struct port p = {0};
		if (!port_read(c, nd, &p))
			continue;
		double want = profile_mbps(c, p.name), card = p.s[E_CARD].mbps;
		double top = card > want ? card : want;
		if (card <= 0 && want <= 0) {
			if (!no_card_side(&p))
				hwc_rule_unknown(c, p.name, p.s[E_CARD].path, p.s[E_CARD].why, "what the card supports");
			continue;
		}
		if (p.module_short) {
			hwc_rule_unknown(c, p.name, p.s[E_MODULE].path, p.module_short, "whether the module limits the link");
			continue;
		}
		if (p.speed >= top)
			continue;
		double low = lowest(&p);
		if (low <= 0 || p.speed < low)
			continue; /* no known end explains it: LINK_RATE_BELOW_POSSIBLE */
		bool below_profile = want > 0 && p.speed < want;
		const char *exp = below_profile ? hwc_arena_printf(c->a, "; the profile expects %s", gb(c, want)) : "";
		struct hwc_finding *fd = hwc_rule_emit_sev(c, below_profile ? c->sev : HWC_SEV_INFO, p.name,
							   "linked at %s: %s: %s%s", gb(c, p.speed), sides_text(c, &p),
							   limiters(c, &p, low), exp);
		add_sides(c, fd, &p);
		if (below_profile)
			hwc_evidence_add(fd, c->a, "profile.products[].port_rate_gbps", fv_fmt_num(c->a, want / 1000), NULL);
		if (p.s[E_ADVERT].mbps > 0 && p.s[E_ADVERT].mbps <= low) /* no part to replace: a setting */
			fd->fix = advert_fix(c, &p);
	}
	each_ib_port(c, ib_limited);
	each_eth_port(c, mst_limited);
}

#define SOURCES                                                                                    \
	"Sources: the link modes are IEEE 802.3's PHYs as ethtool names them (10GBASE-SR/LR clause "     \
	"52, 25GBASE-CR/SR clauses 110/112, 40GBASE-CR4/SR4 clauses 85/86, 50GBASE-CR/SR clauses "    \
	"136/138, 100GBASE-CR4/SR4 clauses 92/95, 100GBASE-CR2 and 200GBASE-CR4 clause 136, "        \
	"200GBASE-SR4 clause 138, 400GBASE-CR4 clause 162, 400GBASE-SR8 clause 138, 400GBASE-DR4 "    \
	"clause 124); the card's modes are `ethtool IF`'s 'Supported link modes', the partner's its "  \
	"'Link partner advertised link modes' (auto-negotiation, clause 73); the module's rate is "    \
	"read from its EEPROM: SFF-8636 byte 131/192 and SFF-8472 byte 3/36 (SFF-8024 table 4-4), "  \
	"CMIS application host interface codes (SFF-8024 table 4-5); when the EEPROM gives no rate, " \
	"mstlink's 'Supported Cable Speed' (the cable's speeds as the firmware reads them: PDDR "      \
	"operational info cable_ext_eth_proto_cap)."

const struct hwc_rule hwc_rules_rate[] = {
	{"LINK_RATE_BELOW_POSSIBLE", HWC_SEV_WARN, "link", "Port linked below what card, module and partner all support",
	 "The Ethernet port negotiated a rate below the fastest one that its card supports, its module "
	 "or cable allows and its link partner advertised: nothing at either end explains it (a forced "
	 "speed, an advertisement narrowed by hand, a lane that failed training). Unknown, naming the "
	 "side, when the module's rate or the partner's advertisement cannot be read and the card "
	 "could do more. An active InfiniBand port likewise runs below the best lane rate or width "
	 "that both its own PortInfo and its peer port's enable (LinkSpeedEnabled with the extended "
	 "speed fields, LinkWidthEnabled; IBA vol. 1 14.2.5.6, read with infiniband-diags `smpquery "
	 "-D portinfo`), the check ibdiagnet makes ('Unexpected actual link speed ... therefore final "
	 "speed should be'); silent where mstlink's Supported Cable Speed shows a cable rated no "
	 "faster than the link runs (LINK_RATE_LIMITED names the cable); unknown when either end's "
	 "PortInfo cannot be read. Where mstlink is the only source for the port (an InfiniBand port "
	 "whose PortInfo was not read, an Ethernet port without a netdev), its Speed is judged against "
	 "the best that its Enabled Link Speed and the far end both enable: the peer's PortInfo "
	 "(LinkSpeedEnabled) where it was read, else unknown naming the peer or, on Ethernet, the "
	 "partner's advertisement (ethtool's, which needs a netdev); silent at the best this port "
	 "enables (Ethernet) or where the cable's Supported Cable Speed stops at the rate the link "
	 "runs; on InfiniBand a lane rate at its best leaves the width unknown (LinkWidthEnabled is "
	 "PortInfo's), and one below the card's line floor (ib_lane_floor_gbps) on a cable rated no "
	 "faster is LINK_RATE_LIMITED's (the cable limits). " SOURCES,
	 "`ethtool <netdev>`: compare Speed with the supported and partner-advertised modes; restore "
	 "auto-negotiation (`ethtool -s <netdev> autoneg on`) or force the common best speed on both "
	 "ends (the port's enabled and supported speeds, and the cable's where mstlink reads them: "
	 "`mstlink -d <BDF>`).",
	 eval_below_possible},
	{"LINK_RATE_LIMITED", HWC_SEV_WARN, "link", "Port rate limited by the module, the partner or the card",
	 "The port runs below what its card supports, and one end explains it: a module or cable "
	 "rated lower (a 200G cable on a 400G card), a partner (switch port) that advertises less, or "
	 "this port's own narrowed advertisement; or below the rate the profile expects for the "
	 "product (port_rate_gbps) because the card itself cannot do more. The finding names the end "
	 "that limits. Info when only the card's best is missed; warn when the profile's rate is "
	 "missed. A module whose EEPROM codes name less than the rate its live link runs (200G through "
	 "a module that declares 100G) has an incomplete declared capability: unknown, never a limit "
	 "nor a pass (LINK_RATE_BELOW_POSSIBLE then counts its side unknown). An active InfiniBand "
	 "port below the best lane rate or width its own PortInfo enables is judged the same way: the "
	 "cable limits when mstlink's Supported Cable Speed stops at the rate the link runs, the peer "
	 "when the best both ends enable (its PortInfo, one hop out) is that rate; unknown when the "
	 "port's own PortInfo cannot be read; silent when no known end explains it "
	 "(LINK_RATE_BELOW_POSSIBLE's case). Where mstlink is the only source (an InfiniBand port "
	 "whose PortInfo was not read, an Ethernet port without a netdev), its Speed is judged against "
	 "the best of its Enabled Link Speed (the firmware's enabled speeds, PTYS): below it, the cable "
	 "limits when its Supported Cable Speed stops at the rate the link runs (the finding says "
	 "mstlink is the only source); unknown when the cable is rated for more (the peer's enabled "
	 "speeds or the partner's advertisement would say, and they were not read) or its rating was "
	 "not read. On InfiniBand mstlink gives the lane rate only: a lane rate at its best leaves the "
	 "width unknown (LinkWidthEnabled is PortInfo's). There its Enabled Link Speed is the speeds the "
	 "firmware handed the PHY (PDDR core_to_phy_link_proto_enabled), already narrowed to what the "
	 "link can use (SDR only on a cable whose EEPROM names no InfiniBand speed), so a lane rate at "
	 "its best is also judged against the card: ib_lane_floor_gbps, the best lane rate every "
	 "InfiniBand board of the product line supports (the identity table's figure from the vendor's "
	 "user manuals: ConnectX-4 FDR, ConnectX-5 EDR; a floor for the line, not this board's own "
	 "capability, which nothing hwcheck reads gives without PortInfo). Below it, the cable limits "
	 "when its Supported Cable Speed stops at the rate the link runs (info, warn below the "
	 "profile's rate; the real ConnectX-5 at 4X SDR on an Ethernet-coded copper cable); unknown "
	 "when the cable is rated for more (who narrowed the enabled speeds is the peer's or this "
	 "port's LinkSpeedEnabled, PortInfo's). The fix names the end that limits: the cable "
	 "(replace it with one rated for the port's speed, `mstlink -d <BDF> -m`) or the peer (its "
	 "enabled speeds). " SOURCES,
	 "Replace the end that limits: a module or cable rated for the card's rate, or raise the switch "
	 "port's speed; `ethtool <netdev>` and `ethtool -m <netdev>` show both ends.",
	 eval_limited},
	HWC_RULES_END,
};

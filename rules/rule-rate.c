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
	}
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
	 "could do more. " SOURCES,
	 "`ethtool <netdev>`: compare Speed with the supported and partner-advertised modes; restore "
	 "auto-negotiation (`ethtool -s <netdev> autoneg on`) or force the common best speed on both "
	 "ends; `mlxlink -d <BDF>` shows the port's enabled and the cable's supported speeds.",
	 eval_below_possible},
	{"LINK_RATE_LIMITED", HWC_SEV_WARN, "link", "Port rate limited by the module, the partner or the card",
	 "The port runs below what its card supports, and one end explains it: a module or cable "
	 "rated lower (a 200G cable on a 400G card), a partner (switch port) that advertises less, or "
	 "this port's own narrowed advertisement; or below the rate the profile expects for the "
	 "product (port_rate_gbps) because the card itself cannot do more. The finding names the end "
	 "that limits. Info when only the card's best is missed; warn when the profile's rate is "
	 "missed. A module whose EEPROM codes name less than the rate its live link runs (200G through "
	 "a module that declares 100G) has an incomplete declared capability: unknown, never a limit "
	 "nor a pass (LINK_RATE_BELOW_POSSIBLE then counts its side unknown). " SOURCES,
	 "Replace the end that limits: a module or cable rated for the card's rate, or raise the switch "
	 "port's speed; `ethtool <netdev>` and `ethtool -m <netdev>` show both ends.",
	 eval_limited},
	HWC_RULES_END,
};

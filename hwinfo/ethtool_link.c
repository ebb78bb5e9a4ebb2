/* SPDX-License-Identifier: MIT */
/* `ethtool IF` (issue 14, negotiated vs possible): the link modes this port supports and
 * advertises, those its partner advertised, and what was negotiated; a pure parser of the
 * tool's text, the collector through the runner, and the JSON table. */
#include "hwinfo/hwinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/parse.h"
#include "core/runner.h"

/* The Mb/s of a link mode name ("100000baseCR4/Full" -> 100000); 0 for what is not a link mode
 * (a FEC pseudo-mode such as "10000baseR_FEC", a half-duplex mode counts too). */
static int64_t mode_mbps(const char *tok)
{
	const char *b = strstr(tok, "base");
	if (!b || b == tok || !strchr(b, '/'))
		return 0;
	int64_t v = 0;
	for (const char *p = tok; p < b; p++) {
		if (!isdigit((unsigned char)*p) || v > 100000000)
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v;
}

enum list_id { L_NONE, L_SUPPORTED, L_ADVERTISED, L_PARTNER };

struct parse_state {
	struct hwc_arena *a;
	const char *src;
	struct hwc_netdev_modes *o;
	enum list_id cur; /* the list continuation lines belong to */
	bool seen[4];     /* a list already read: a repeated label is ignored */
};

static struct hwc_link_modes_list *list_of(struct parse_state *ps, enum list_id id)
{
	return id == L_SUPPORTED ? &ps->o->supported : id == L_ADVERTISED ? &ps->o->advertised : &ps->o->partner;
}

/* The words of one line of a list ("10baseT/Half 10baseT/Full"). */
static void add_modes(struct parse_state *ps, const char *s, size_t n)
{
	struct hwc_link_modes_list *l = list_of(ps, ps->cur);
	size_t i = 0;
	while (i < n) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		size_t j = i;
		while (j < n && !isspace((unsigned char)s[j]))
			j++;
		if (j > i) {
			const char **d = HWC_VEC_PUSH(ps->a, &l->v);
			if (!d)
				return;
			*d = hwc_arena_strndup(ps->a, s + i, j - i);
		}
		i = j;
	}
	hwc_fmeta_set(&l->m, HWC_ST_OK, 0, NULL);
}

static void start_list(struct parse_state *ps, enum list_id id, const char *v, size_t n)
{
	ps->cur = ps->seen[id] ? L_NONE : id;
	ps->seen[id] = true;
	if (ps->cur == L_NONE)
		return;
	struct hwc_link_modes_list *l = list_of(ps, id);
	if (n >= 12 && strncmp(v, "Not reported", 12) == 0) {
		hwc_fmeta_set(&l->m, HWC_ST_UNSUPPORTED, 0, hwc_arena_printf(ps->a, "%s: not reported", ps->src));
		ps->cur = L_NONE;
		return;
	}
	add_modes(ps, v, n);
}

static void set_bool(struct parse_state *ps, struct hwc_fbool *f, const char *v, size_t n, const char *key)
{
	if ((n == 2 && !strncmp(v, "on", 2)) || (n == 3 && !strncmp(v, "yes", 3)))
		HWC_SET(*f, true);
	else if ((n == 3 && !strncmp(v, "off", 3)) || (n == 2 && !strncmp(v, "no", 2)))
		HWC_SET(*f, false);
	else
		HWC_FAIL(*f, HWC_ST_INVALID, 0, hwc_arena_printf(ps->a, "%s: %s: '%.*s'", ps->src, key, (int)(n > 40 ? 40 : n), v));
}

/* "100000Mb/s", "4": a number with an optional unit; "Unknown!" is no link. */
static void set_num(struct parse_state *ps, struct hwc_fi64 *f, const char *v, size_t n, const char *key,
		    const char *unit)
{
	char tmp[32];
	size_t ul = strlen(unit);
	if (n >= 7 && strncmp(v, "Unknown", 7) == 0) {
		HWC_FAIL(*f, HWC_ST_ABSENT, 0, hwc_arena_printf(ps->a, "%s: %s: Unknown! (no link)", ps->src, key));
		return;
	}
	if (n > ul && strncmp(v + n - ul, unit, ul) == 0)
		n -= ul;
	int64_t x;
	if (n == 0 || n >= sizeof(tmp) || (memcpy(tmp, v, n), tmp[n] = 0, hwc_parse_i64(tmp, 10, &x)) < 0 || x < 0) {
		HWC_FAIL(*f, HWC_ST_INVALID, 0, hwc_arena_printf(ps->a, "%s: %s: not a number", ps->src, key));
		return;
	}
	HWC_SET(*f, x);
}

static void set_str(struct parse_state *ps, struct hwc_fstr *f, const char *v, size_t n)
{
	HWC_SET(*f, hwc_arena_strndup(ps->a, v, n));
}

static void trim(const char **s, size_t *n);

/* "no (Cable issue, Unsupported cable)": ethtool prints the link's extended state and substate
 * in brackets after "Link detected: no" (netlink LINKSTATE_EXT_STATE and _EXT_SUBSTATE, Linux
 * 5.10; ethtool's netlink/settings.c, linkstate_reply_cb): " (STATE" then ", SUBSTATE" then ")",
 * each its name or, where that ethtool has none, its number. Kept verbatim: a reason this code
 * does not know is still the kernel's reason. No name of either table holds a comma. */
static void link_line(struct parse_state *ps, const char *v, size_t n)
{
	struct hwc_netdev_modes *o = ps->o;
	const char *br = memchr(v, '(', n);
	size_t wn = br ? (size_t)(br - v) : n;
	const char *w = v;
	trim(&w, &wn);
	set_bool(ps, &o->link_detected, w, wn, "Link detected");
	if (o->link_detected.m.st != HWC_ST_OK) {
		o->link_ext_state.m = o->link_ext_substate.m = o->link_detected.m;
		return;
	}
	if (o->link_detected.v) {
		o->link_ext_state.m.detail = o->link_ext_substate.m.detail =
			hwc_arena_printf(ps->a, "%s: link detected (the kernel gives a reason only for a link that is down)", ps->src);
		return;
	}
	if (!br) {
		HWC_FAIL(o->link_ext_state, HWC_ST_UNSUPPORTED, 0,
			 hwc_arena_printf(ps->a, "%s: 'Link detected: no' without a reason in brackets (the kernel's link_ext_state needs "
					     "Linux >= 5.10, an ethtool that asks over netlink, and a driver that reports one)", ps->src));
		o->link_ext_substate.m = o->link_ext_state.m;
		return;
	}
	const char *in = br + 1, *end = v + n;
	size_t inn = (size_t)(end - in);
	if (!inn || in[inn - 1] != ')') {
		HWC_FAIL(o->link_ext_state, HWC_ST_INVALID, 0,
			 hwc_arena_printf(ps->a, "%s: Link detected: '%.*s': the reason in brackets has no ')'", ps->src, (int)(n > 60 ? 60 : n), v));
		o->link_ext_substate.m = o->link_ext_state.m;
		return;
	}
	inn--;
	const char *comma = memchr(in, ',', inn);
	const char *st = in, *sub = comma ? comma + 1 : NULL;
	size_t stn = comma ? (size_t)(comma - in) : inn, subn = comma ? (size_t)(end - 1 - sub) : 0;
	trim(&st, &stn);
	if (!stn) {
		HWC_FAIL(o->link_ext_state, HWC_ST_INVALID, 0, hwc_arena_printf(ps->a, "%s: Link detected: an empty reason in brackets", ps->src));
		o->link_ext_substate.m = o->link_ext_state.m;
		return;
	}
	set_str(ps, &o->link_ext_state, st, stn);
	if (sub)
		trim(&sub, &subn);
	if (sub && subn)
		set_str(ps, &o->link_ext_substate, sub, subn);
	else
		HWC_FAIL(o->link_ext_substate, sub ? HWC_ST_INVALID : HWC_ST_ABSENT, 0,
			 hwc_arena_printf(ps->a, sub ? "%s: Link detected: an empty substate after '%.*s,'" : "%s: no substate after '%.*s' (the driver gave none)",
					  ps->src, (int)stn, st));
}

/* One "Key: value" line. */
static void key_line(struct parse_state *ps, const char *k, size_t kn, const char *v, size_t vn)
{
	struct hwc_netdev_modes *o = ps->o;
#define IS(lit) (kn == sizeof(lit) - 1 && strncmp(k, lit, kn) == 0)
	ps->cur = L_NONE;
	if (IS("Supported link modes"))
		start_list(ps, L_SUPPORTED, v, vn);
	else if (IS("Advertised link modes"))
		start_list(ps, L_ADVERTISED, v, vn);
	else if (IS("Link partner advertised link modes"))
		start_list(ps, L_PARTNER, v, vn);
	else if (IS("Speed"))
		set_num(ps, &o->speed_mbps, v, vn, "Speed", "Mb/s");
	else if (IS("Lanes"))
		set_num(ps, &o->lanes, v, vn, "Lanes", "");
	else if (IS("Duplex"))
		set_str(ps, &o->duplex, v, vn);
	else if (IS("Port"))
		set_str(ps, &o->port, v, vn);
	else if (IS("Auto-negotiation"))
		set_bool(ps, &o->autoneg, v, vn, "Auto-negotiation");
	else if (IS("Link detected"))
		link_line(ps, v, vn);
#undef IS
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static void one_line(struct parse_state *ps, const char *s, size_t n)
{
	trim(&s, &n);
	if (!n)
		return;
	const char *colon = memchr(s, ':', n);
	if (!colon) { /* a continuation: more modes of the current list, or of a key we skip */
		if (ps->cur != L_NONE)
			add_modes(ps, s, n);
		return;
	}
	const char *k = s, *v = colon + 1;
	size_t kn = (size_t)(colon - s), vn = n - kn - 1;
	trim(&k, &kn);
	trim(&v, &vn);
	key_line(ps, k, kn, v, vn);
}

/* The fastest link mode of a list. */
static void list_max(struct hwc_arena *a, const char *src, const struct hwc_link_modes_list *l, struct hwc_fi64 *out)
{
	if (l->m.st != HWC_ST_OK) {
		out->m = l->m;
		return;
	}
	int64_t best = 0;
	for (size_t i = 0; i < l->v.n; i++) {
		int64_t v = mode_mbps(l->v.items[i]);
		best = v > best ? v : best;
	}
	if (best > 0)
		HWC_SET(*out, best);
	else
		HWC_FAIL(*out, HWC_ST_UNSUPPORTED, 0, hwc_arena_printf(a, "%s: no link mode with a speed in the list", src));
}

static void init_absent(struct hwc_arena *a, const char *src, struct hwc_netdev_modes *o)
{
	struct hwc_fmeta none = {HWC_ST_ABSENT, 0, hwc_arena_printf(a, "%s: not printed", src)};
	struct hwc_fmeta nopartner = {HWC_ST_UNSUPPORTED, 0,
				      hwc_arena_printf(a, "%s: no 'Link partner advertised link modes' (not reported)", src)};
	o->supported.m = o->advertised.m = none;
	o->partner.m = nopartner;
	o->speed_mbps.m = o->lanes.m = o->duplex.m = o->port.m = none;
	o->autoneg.m = o->link_detected.m = none;
	o->link_ext_state.m = o->link_ext_substate.m = none;
}

int hwc_ethtool_parse_link(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			   struct hwc_netdev_modes *out)
{
	struct parse_state ps = {.a = a, .src = src, .o = out};
	memset(&out->supported, 0, sizeof(*out) - offsetof(struct hwc_netdev_modes, supported));
	init_absent(a, src, out);
	bool header = false;
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
		const char *s = buf + i;
		size_t sn = n;
		trim(&s, &sn);
		if (sn > 13 && strncmp(s, "Settings for ", 13) == 0)
			header = true, ps.cur = L_NONE;
		else if (header)
			one_line(&ps, buf + i, n);
		i += n + 1;
	}
	if (!header) {
		struct hwc_fmeta bad = {HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: no 'Settings for' line: not ethtool's output", src)};
		hwc_json_fail_table(out, &hwc_netdev_modes_table, &bad);
		out->supported.m = out->advertised.m = out->partner.m = bad;
		return -EINVAL;
	}
	list_max(a, src, &out->supported, &out->supported_max_mbps);
	list_max(a, src, &out->advertised, &out->advertised_max_mbps);
	list_max(a, src, &out->partner, &out->partner_max_mbps);
	return 0;
}

/* ------------------------------------------------------------------ collector */

const char *const *hwc_modes_argv(struct hwc_arena *a, const char *ifn)
{
	const char **v = hwc_arena_calloc(a, 3, sizeof(*v));
	if (v)
		v[0] = "ethtool", v[1] = ifn;
	return v;
}

void hwc_netdev_collect_modes(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd)
{
	struct hwc_arena *a = f->arena;
	struct hwc_netdev_modes *o = &nd->link.modes;
	const char *const *argv = hwc_modes_argv(a, nd->name);
	if (!argv) {
		hwc_fmeta_set(&o->m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
		return;
	}
	const char *src = hwc_argv_str(a, argv);
	struct hwc_cmd_result r;
	hwc_run(e, a, argv, 0, &r);
	struct hwc_fmeta why = r.m;
	/* ethtool exits non-zero when one of its queries failed (wake-on-lan needs root): the
	 * link settings count when they were printed */
	bool printed = r.m.st == HWC_ST_OK && r.out && r.out_len && memmem(r.out, r.out_len, "Settings for ", 13);
	if (r.m.st == HWC_ST_OK && !printed) {
		size_t n = r.err ? strcspn(r.err, "\n") : 0;
		hwc_fmeta_set(&why, HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "%s exited %d: %s", src, r.exit_code, n ? hwc_arena_strndup(a, r.err, n) : "no link settings printed"));
	}
	if (!printed) {
		o->m = why;
		return;
	}
	HWC_SET(o->source, src);
	if (hwc_ethtool_parse_link(r.out, r.out_len, src, a, o) < 0) {
		hwc_facts_error(f, "netdevs", src, "output not understood (expected 'Settings for IF:')");
		o->m = o->speed_mbps.m;
		return;
	}
	hwc_fmeta_set(&o->m, HWC_ST_OK, 0, NULL);
}

/* ------------------------------------------------------------------ JSON */

#define LIST(key_, member) HWC_JLIST_M(struct hwc_netdev_modes, key_, member.v, member.m, HWC_JT_STRV)
#define I(member) HWC_JF(struct hwc_netdev_modes, member, HWC_JT_I64)
static const struct hwc_jfield modes_f[] = {
	HWC_JF(struct hwc_netdev_modes, source, HWC_JT_STR),
	LIST("supported", supported),
	LIST("advertised", advertised),
	LIST("partner_advertised", partner),
	I(supported_max_mbps),
	I(advertised_max_mbps),
	I(partner_max_mbps),
	I(speed_mbps),
	I(lanes),
	HWC_JF(struct hwc_netdev_modes, duplex, HWC_JT_STR),
	HWC_JF(struct hwc_netdev_modes, port, HWC_JT_STR),
	HWC_JF(struct hwc_netdev_modes, autoneg, HWC_JT_BOOL),
	HWC_JF(struct hwc_netdev_modes, link_detected, HWC_JT_BOOL),
	HWC_JFD(struct hwc_netdev_modes, link_ext_state, HWC_JT_STR,
		"Why the link is down, in the kernel's words: the extended state ethtool prints after 'Link detected: no' "
		"(netlink LINKSTATE ext_state, Linux >= 5.10: Autoneg, Link training failure, Logical mismatch, Bad signal "
		"integrity, No cable, Cable issue, EEPROM issue, Calibration failure, Power budget exceeded, Overheat, Module; "
		"or a number that ethtool has no name for), verbatim; null with a link, or where none was printed"),
	HWC_JFD(struct hwc_netdev_modes, link_ext_substate, HWC_JT_STR,
		"The extended substate after the state ('Unsupported cable', 'No partner detected', ...; netlink LINKSTATE "
		"ext_substate), verbatim; null where the driver gave none"),
};
#undef LIST
#undef I
const struct hwc_jtable hwc_netdev_modes_table = HWC_JTABLE("netdevs[].link.modes", modes_f, 0);

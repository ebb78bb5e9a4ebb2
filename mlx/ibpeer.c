/* SPDX-License-Identifier: MIT */
/* The far end of an InfiniBand port (issue 14): the node and port one hop away by direct-routed
 * SMPs (infiniband-diags smpquery: nodedesc, nodeinfo, then portinfo for its LID), and that port's
 * PortCounters (perfquery), all through the runner with a timeout; the parsers of libibmad's
 * "Key:....value" dumps; and the JSON of mlx.adapters[].ports[].peer. */
#include "mlx/mlx.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/json.h"
#include "core/parse.h"
#include "core/runner.h"

/* Named as the local port's counters (hwc_mlx_port_counter_names), so rules compare like with
 * like; the perfquery field each comes from (libibmad fields.c). */
const char *const hwc_mlx_peer_counter_names[HWC_MLX_NPEER_COUNTERS] = {
	"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
	"port_rcv_remote_physical_errors", "port_xmit_discards", "local_link_integrity_errors",
	"excessive_buffer_overrun_errors",
};
static const char *const perf_fields[HWC_MLX_NPEER_COUNTERS] = {
	"SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
	"PortRcvRemotePhysicalErrors", "PortXmitDiscards", "LocalLinkIntegrityErrors",
	"ExcessiveBufferOverrunErrors",
};
/* The same fields as OFED 1.x perfquery named them (libibmad before the IBA names, 2008-2009:
 * "SymbolErrors:....7836", "LinkRecovers:...255" of real captures, tests/fuzz/corpus/farend). */
static const char *const perf_fields_old[HWC_MLX_NPEER_COUNTERS] = {
	"SymbolErrors", "LinkRecovers", "LinkDowned", "RcvErrors", "RcvRemotePhysErrors", "XmtDiscards",
	"LinkIntegrityErrors", "ExcBufOverrunErrors",
};

/* The rest of the line that starts with key + ":" (a whole line: "Lid" is not "SMLid"). */
static const char *line_after(const char *buf, size_t len, const char *key, size_t *n)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < len;) {
		const char *ln = buf + i;
		const char *nl = memchr(ln, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - ln) : len - i;
		if (ll > kl && memcmp(ln, key, kl) == 0 && ln[kl] == ':') {
			*n = ll - kl - 1;
			return ln + kl + 1;
		}
		i += ll + 1;
	}
	return NULL;
}

const char *hwc_mlx_ibdiag_value(const char *buf, size_t len, const char *key, struct hwc_arena *a)
{
	size_t n;
	const char *v = line_after(buf, len, key, &n);
	if (!v)
		return NULL;
	while (n && *v == '.')
		v++, n--;
	while (n && (v[n - 1] == '\r' || v[n - 1] == ' '))
		n--;
	return n ? hwc_arena_strndup(a, v, n) : NULL;
}

int hwc_mlx_parse_nodedesc(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fstr *out)
{
	size_t n;
	const char *v = line_after(buf, len, "Node Description", &n);
	if (!v || !n) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0, "no 'Node Description:' line");
		return -EINVAL;
	}
	if (n > 0 && v[n - 1] == '\r')
		n--;
	/* smpquery pads a name shorter than 32 with dots to 32 columns, a longer one with one dot:
	 * a name that itself starts with dots keeps them */
	size_t dots = 0;
	while (dots < n && v[dots] == '.')
		dots++;
	size_t skip = n == 32 || dots == n ? dots : 1;
	if (n <= skip) {
		HWC_FAIL(*out, HWC_ST_ABSENT, 0, "the peer's node description is empty");
		return 0;
	}
	HWC_SET(*out, hwc_arena_strndup(a, v + skip, n - skip));
	return 0;
}

static void set_i64(const char *buf, size_t len, const char *key, struct hwc_arena *a, struct hwc_fi64 *f)
{
	const char *v = hwc_mlx_ibdiag_value(buf, len, key, a);
	int64_t x;
	if (!v)
		HWC_FAIL(*f, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "no %s line", key));
	else if (hwc_parse_i64(v, 0, &x) == 0 && x >= 0)
		HWC_SET(*f, x);
	else
		HWC_FAIL(*f, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s '%s' is not a number", key, v));
}

int hwc_mlx_parse_nodeinfo(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_peer *p)
{
	const char *type = hwc_mlx_ibdiag_value(buf, len, "NodeType", a);
	const char *guid = hwc_mlx_ibdiag_value(buf, len, "Guid", a);
	if (!type) {
		HWC_FAIL(p->node_type, HWC_ST_INVALID, 0, "no NodeType line");
		p->node_guid.m = p->port.m = p->node_type.m;
		return -EINVAL;
	}
	HWC_SET(p->node_type, type);
	if (guid)
		HWC_SET(p->node_guid, guid);
	else
		HWC_FAIL(p->node_guid, HWC_ST_ABSENT, 0, "no Guid line");
	set_i64(buf, len, "LocalPort", a, &p->port);
	/* a switch's port 0 is its management port: no cable ends there, its counters are not the
	 * link's (a real perfquery of "Lid 1 port 0" counts relay errors of the whole switch) */
	if (hwc_ok(p->port) && p->port.v == 0 && strcmp(type, "Switch") == 0)
		HWC_FAIL(p->port, HWC_ST_INVALID, 0, "LocalPort 0 of a switch: its management port, not the end of a cable");
	return 0;
}

/* A LID of 0 is no address: no subnet manager has configured the port (a PMA query needs one). */
int hwc_mlx_parse_portinfo_lid(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fi64 *lid)
{
	set_i64(buf, len, "Lid", a, lid);
	if (hwc_ok(*lid) && lid->v == 0)
		HWC_FAIL(*lid, HWC_ST_ABSENT, 0, "the peer's LID is 0: no LID assigned (no subnet manager has configured the peer)");
	return hwc_ok(*lid) ? 0 : -EINVAL;
}

static void perf_fail(struct hwc_mlx_peer *p, enum hwc_status st, const char *why)
{
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++)
		HWC_FAIL(p->counters[i], st, 0, why);
}

/* The dump answers for the port asked (PortSelect), when p->port says which. */
static bool perf_port_ok(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_peer *p)
{
	const char *sel = hwc_mlx_ibdiag_value(buf, len, "PortSelect", a);
	int64_t x;
	if (!hwc_ok(p->port) || (sel && hwc_parse_i64(sel, 0, &x) == 0 && x == p->port.v))
		return true;
	perf_fail(p, HWC_ST_INVALID, hwc_arena_printf(a, "perfquery answered for PortSelect %s, not the peer's port %lld",
						      sel ? sel : "(none)", (long long)p->port.v));
	return false;
}

int hwc_mlx_parse_perfquery(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_peer *p)
{
	size_t n;
	if (!line_after(buf, len, "PortSelect", &n)) {
		perf_fail(p, HWC_ST_INVALID, "not perfquery's output (no PortSelect)");
		return -EINVAL;
	}
	if (!perf_port_ok(buf, len, a, p))
		return -EINVAL;
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++) {
		const char *v = hwc_mlx_ibdiag_value(buf, len, perf_fields[i], a);
		const char *name = perf_fields[i];
		uint64_t x;
		if (!v && (v = hwc_mlx_ibdiag_value(buf, len, perf_fields_old[i], a)))
			name = perf_fields_old[i];
		if (!v)
			HWC_FAIL(p->counters[i], HWC_ST_ABSENT, 0, hwc_arena_printf(a, "perfquery printed no %s", perf_fields[i]));
		else if (hwc_parse_u64(v, 10, &x) == 0)
			HWC_SET(p->counters[i], x);
		else
			HWC_FAIL(p->counters[i], HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s '%s' is not a count", name, v));
	}
	return 0;
}

/* ---------------------------------------------------------- PortInfo link fields */

/* libibmad joins the set bits of a speed or width field with " or " ("2.5 Gbps or 5.0 Gbps",
 * "1X or 4X"); a field with no bit set prints a word ("No Extended Speed", "Extended link speeds
 * disabled", "0"). Each "<number><unit>" piece is a member; a piece it cannot read makes the
 * field invalid (-1); else the number of members. */
static int unit_list(const char *v, const char *unit, double *out, size_t max)
{
	size_t n = 0, ul = strlen(unit);
	bool words = false;
	for (const char *pc = v; *pc;) {
		const char *end = strstr(pc, " or ");
		size_t len = end ? (size_t)(end - pc) : strlen(pc);
		double d;
		const char *u = len > ul ? pc + len - ul : NULL;
		size_t nl = u ? (size_t)(u - pc) : 0;
		while (nl && pc[nl - 1] == ' ')
			nl--;
		if (u && memcmp(u, unit, ul) == 0 && hwc_mlx_text_double(pc, nl, &d) && d > 0) {
			if (n < max)
				out[n++] = d;
		} else if (len && (pc[0] < '0' || pc[0] > '9') && strncmp(pc, "undefined", 9) != 0) {
			words = true; /* "No Extended Speed": no member */
		} else if (!(len == 1 && pc[0] == '0')) {
			return -1;
		}
		pc += len + (end ? 4 : 0);
	}
	return n || words || *v == '0' ? (int)n : -1;
}

/* The members of key's field; -1 (and *why) when it is missing or unreadable. */
static int field_list(const char *buf, size_t len, const char *key, const char *unit, struct hwc_arena *a,
		      double *out, size_t max, const char **why)
{
	const char *v = hwc_mlx_ibdiag_value(buf, len, key, a);
	size_t vl = v ? strlen(v) : 0, xl = strlen(" (IBA extension)");
	if (vl > xl && strcmp(v + vl - xl, " (IBA extension)") == 0) /* a combination IBA did not list */
		v = hwc_arena_strndup(a, v, vl - xl);
	int n = v ? unit_list(v, unit, out, max) : -1;
	if (n < 0)
		*why = v ? hwc_arena_printf(a, "smpquery: %s '%s' is not a list of %s", key, v, unit + (*unit == ' '))
			 : hwc_arena_printf(a, "smpquery printed no %s", key);
	return n;
}

static void push_sorted(struct hwc_arena *a, struct hwc_mlx_f64list *l, double d)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i] == d)
			return;
	double *p = HWC_VEC_PUSH(a, l);
	if (!p)
		return;
	size_t i = l->n - 1;
	for (; i > 0 && l->items[i - 1] > d; i--)
		l->items[i] = l->items[i - 1];
	l->items[i] = d;
}

/* The active lane rate: the newest speed field that names one (an extended speed overrides
 * LinkSpeedActive, which an FDR port still prints as 10.0 Gbps). */
static void active_speed(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_portinfo *o)
{
	static const char *const keys[] = {"LinkSpeedExtActive2", "LinkSpeedExtActive", "LinkSpeedActive"};
	const char *why = NULL;
	for (size_t k = 0; k < 3; k++) {
		double d[4];
		const char *w = NULL;
		int n = field_list(buf, len, keys[k], " Gbps", a, d, 4, &w);
		if (n == 1) {
			HWC_SET(o->speed_active_gbps, d[0]);
			return;
		}
		if (k == 2 || (n < 0 && hwc_mlx_ibdiag_value(buf, len, keys[k], a)))
			why = why ? why : w;
	}
	HWC_FAIL(o->speed_active_gbps, HWC_ST_INVALID, 0, why ? why : "smpquery: no active link speed");
}

static void enabled_speeds(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_portinfo *o)
{
	static const char *const keys[] = {"LinkSpeedEnabled", "LinkSpeedExtEnabled", "LinkSpeedExtEnabled2"};
	hwc_fmeta_set(&o->speeds_enabled_gbps.m, HWC_ST_OK, 0, NULL);
	for (size_t k = 0; k < 3; k++) {
		double d[8];
		const char *why = NULL;
		int n = field_list(buf, len, keys[k], " Gbps", a, d, 8, &why);
		if (n < 0 && (k == 0 || hwc_mlx_ibdiag_value(buf, len, keys[k], a))) {
			/* an absent extended field: an older smpquery, a port without extended speeds */
			hwc_fmeta_set(&o->speeds_enabled_gbps.m, HWC_ST_INVALID, 0, why);
			o->speeds_enabled_gbps.n = 0;
			return;
		}
		for (int i = 0; i < n; i++)
			push_sorted(a, &o->speeds_enabled_gbps, d[i]);
	}
}

static void link_widths(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_portinfo *o)
{
	double d[8];
	const char *why = NULL;
	int n = field_list(buf, len, "LinkWidthActive", "X", a, d, 8, &why);
	if (n == 1)
		HWC_SET(o->width_active, (int64_t)d[0]);
	else
		HWC_FAIL(o->width_active, HWC_ST_INVALID, 0, why ? why : "smpquery: LinkWidthActive is not one width");
	why = NULL;
	n = field_list(buf, len, "LinkWidthEnabled", "X", a, d, 8, &why);
	if (n <= 0) {
		hwc_fmeta_set(&o->widths_enabled.m, HWC_ST_INVALID, 0, why ? why : "smpquery: LinkWidthEnabled is empty");
		return;
	}
	hwc_fmeta_set(&o->widths_enabled.m, HWC_ST_OK, 0, NULL);
	struct hwc_mlx_f64list tmp = {0};
	for (int i = 0; i < n; i++)
		push_sorted(a, &tmp, d[i]);
	for (size_t i = 0; i < tmp.n; i++) {
		int64_t *p = HWC_VEC_PUSH(a, &o->widths_enabled);
		if (p)
			*p = (int64_t)tmp.items[i];
	}
}

/* NeighborMTU and MtuCap: libibmad's mad_dump_mtu prints the IBA codes 1..5 as "256".."4096"
 * and any other code as "?(N)" (infiniband-diags libibmad/dump.c, the same since OFED 1.x). A
 * dump without the line (an older trimmed answer) leaves the field absent. */
static void mtu_field(const char *buf, size_t len, const char *key, struct hwc_arena *a, struct hwc_fi64 *out)
{
	const char *v = hwc_mlx_ibdiag_value(buf, len, key, a);
	uint64_t x = 0;
	if (!v) {
		HWC_FAIL(*out, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "smpquery printed no %s", key));
		return;
	}
	if (hwc_parse_u64(v, 10, &x) == 0 && x >= 256 && x <= 4096 && (x & (x - 1)) == 0) {
		HWC_SET(*out, (int64_t)x);
		return;
	}
	HWC_FAIL(*out, HWC_ST_INVALID, 0,
		 hwc_arena_printf(a, "smpquery: %s '%s' is not an IBA MTU (256, 512, 1024, 2048 or 4096)", key, v));
}

int hwc_mlx_parse_portinfo_link(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_portinfo *out)
{
	size_t n;
	if (!line_after(buf, len, "LinkSpeedActive", &n) || !line_after(buf, len, "LinkWidthActive", &n)) {
		struct hwc_fmeta m = {HWC_ST_INVALID, 0, "smpquery portinfo printed no LinkSpeedActive or LinkWidthActive"};
		out->m = out->speed_active_gbps.m = out->width_active.m = m;
		out->speeds_enabled_gbps.m = out->widths_enabled.m = m;
		out->neighbor_mtu.m = out->mtu_cap.m = m;
		return -EINVAL;
	}
	active_speed(buf, len, a, out);
	link_widths(buf, len, a, out);
	enabled_speeds(buf, len, a, out);
	mtu_field(buf, len, "NeighborMTU", a, &out->neighbor_mtu);
	mtu_field(buf, len, "MtuCap", a, &out->mtu_cap);
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* ------------------------------------------------------------------ collection */

/* The tool's own words: its last "iberror: " line (libibmad's IBEXIT: "smpquery: iberror:
 * failed: operation NodeInfo: node info query failed") and the first "ibwarn: [pid] " line, the
 * cause ("mad_rpc: _do_madrpc failed; dport (Lid 4)", "mad_rpc_open_port: client_register for
 * mgmt 1 failed"); else the first line. */
const char *hwc_mlx_ibdiag_words(struct hwc_arena *a, const char *e)
{
	if (!e)
		return "no message";
	const char *err = strstr(e, "iberror: "), *warn = strstr(e, "ibwarn: ");
	for (const char *n; err && (n = strstr(err + 9, "iberror: "));)
		err = n;
	if (err)
		err += 9;
	if (err && !strcspn(err, "\r\n")) { /* an empty iberror message: the ibwarn cause says it */
		if (!warn)
			return "no message";
		err = NULL;
	}
	if (warn) { /* "ibwarn: [299010] mad_rpc_open_port: ...": the words after the pid */
		warn += 8;
		const char *close = warn[0] == '[' ? strchr(warn, ']') : NULL;
		if (close && close < warn + strcspn(warn, "\r\n"))
			warn = close + 1 + (close[1] == ' ');
	}
	const char *first = err ? err : warn ? warn : e;
	int n1 = (int)strcspn(first, "\r\n"), n2 = err && warn ? (int)strcspn(warn, "\r\n") : 0;
	if (!n1)
		return "no message";
	return n2 ? hwc_arena_printf(a, "%.*s (%.*s)", n1, first, n2, warn) : hwc_arena_strndup(a, first, (size_t)n1);
}

/* Why an infiniband-diags run gave nothing: the runner's status, or the tool's own words
 * ("can't open UMAD port": ib_umad not loaded or not root). */
static bool diag_ok(const struct hwc_cmd_result *r, struct hwc_arena *a, const char *cmd, struct hwc_fmeta *why)
{
	if (r->m.st != HWC_ST_OK) {
		*why = r->m;
		return false;
	}
	if (!r->signal && r->exit_code == 0)
		return true;
	const char *e = r->err ? r->err : "";
	enum hwc_status st = strstr(e, "Permission denied") ? HWC_ST_NEEDS_ROOT : HWC_ST_UNREADABLE;
	hwc_fmeta_set(why, st, 0, hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code, hwc_mlx_ibdiag_words(a, e)));
	return false;
}

static void portinfo_fail(struct hwc_mlx_portinfo *pi, const struct hwc_fmeta *why);

static void peer_fail(struct hwc_mlx_peer *p, const struct hwc_fmeta *why)
{
	portinfo_fail(&p->portinfo, why);
	p->source.m = p->node_description.m = p->node_guid.m = p->node_type.m = *why;
	p->port.m = p->lid.m = p->counters_source.m = *why;
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++)
		p->counters[i].m = *why;
}

static void counters_fail(struct hwc_mlx_peer *p, const struct hwc_fmeta *why)
{
	p->counters_source.m = *why;
	for (size_t i = 0; i < HWC_MLX_NPEER_COUNTERS; i++)
		p->counters[i].m = *why;
}

/* Why a port has no far end to ask about, or NULL when it may be asked. */
static const char *not_eligible(struct hwc_arena *a, const struct hwc_mlx_port *p, enum hwc_status *st)
{
	*st = HWC_ST_UNSUPPORTED;
	if (!hwc_ok(p->link_layer)) {
		*st = p->link_layer.m.st;
		return hwc_arena_printf(a, "link layer unknown (%s)", p->link_layer.m.detail ? p->link_layer.m.detail : "not read");
	}
	if (strcmp(p->link_layer.v, "InfiniBand") != 0)
		return "an Ethernet port: its far end is its netdev's LLDP neighbour (netdevs[].link.peer)";
	if (p->counters[0].m.st == HWC_ST_BLOCKED) {
		*st = HWC_ST_BLOCKED;
		return p->counters[0].m.detail;
	}
	/* a directed-route SMP needs the physical link only: INIT and ARMED ports (no subnet manager
	 * yet) answer, as they answer the SM's sweep; the peer's LID then says 0 (no PMA query) */
	bool up = hwc_ok(p->phys_state) && strcmp(p->phys_state.v, "LinkUp") == 0;
	if (!hwc_ok(p->state) || (strcmp(p->state.v, "ACTIVE") != 0 && !up))
		return hwc_arena_printf(a, "the port is %s: no far end to ask", hwc_ok(p->state) ? p->state.v : "in an unknown state");
	return NULL;
}

struct job {
	struct hwc_mlx_port *p;
	const char *ca, *port, *path;
};

/* Every MAD of these tools waits MAD_MS for its answer (infiniband-diags' common option -t, in
 * every smpquery and perfquery read, OFED 1.x to rdma-core: libibmad's per-MAD timeout, 1000 ms
 * by default, MAD_DEF_TIMEOUT_MS) and is sent at most MAD_TRIES times (libibmad's _do_madrpc,
 * MAD_DEF_RETRIES; no option changes it): the subnet manager's own bound for every SMP it sends
 * (OpenSM's transaction_timeout 200 ms, 3 retries: osm_base.h, osm_vendor_ibumad.h). A query is
 * at most MAD_MAX MADs (smpquery nodedesc: NodeInfo then NodeDescription; perfquery:
 * ClassPortInfo then PortCounters; the others one), so a tool answers or fails in its own words
 * within MAD_MAX x MAD_TRIES x MAD_MS = 1.2 s, and the three rounds within 3.6 s. */
#define MAD_MS "200"
#define MAD_TRIES 3
#define MAD_MAX 2

/* argv with " -t MAD_MS" after its first five words (tool -C CA -P PORT), or after all of them
 * when it has fewer; NULL-terminated, arena. */
const char *const *hwc_mlx_mad_argv(struct hwc_arena *a, const char *const *v, size_t n)
{
	const char **out = hwc_arena_calloc(a, n + 3, sizeof(*out));
	if (!out)
		return NULL;
	size_t head = n < 5 ? n : 5;
	if (head)
		memcpy(out, v, head * sizeof(*out));
	out[head] = "-t";
	out[head + 1] = MAD_MS;
	if (n > head)
		memcpy(out + head + 2, v + head, (n - head) * sizeof(*out));
	return out;
}

/* The argv hwcheck ran before -t (hwc_mlx_mad_argv's without its "-t MAD_MS"): older captures hold the
 * answer there. NULL when argv has no such pair. */
static const char *const *alias_of(struct hwc_arena *a, const char *const *argv)
{
	size_t n = 0, t = SIZE_MAX;
	for (; argv[n]; n++)
		if (t == SIZE_MAX && argv[n + 1] && !strcmp(argv[n], "-t") && !strcmp(argv[n + 1], MAD_MS))
			t = n;
	const char **out = t != SIZE_MAX ? hwc_arena_calloc(a, n - 1, sizeof(*out)) : NULL;
	if (!out)
		return NULL;
	memcpy(out, argv, t * sizeof(*out));
	memcpy(out + t, argv + t + 2, (n - t - 2) * sizeof(*out));
	return out;
}

/* The far end's time: one --cmd-timeout for all its rounds together (a round gets what the
 * rounds before left; each round costs its slowest answer), so a hung or silent fabric costs one
 * timeout, not one per round. */
struct peer_run {
	struct hwc_env *e;
	struct hwc_arena *a;
	unsigned budget_ms, spent_ms;
};

/* The k-th command of a round for one job: its argv (NULL-terminated, arena), or NULL when this
 * job has no k-th command. */
typedef const char *const *(*argv_fn)(struct hwc_arena *a, const struct job *j, size_t k);

/* What a round makes of one job's per answers (res[0..per)), cmd[k] naming res[k]'s command. */
#define ROUND_MAX 3
typedef void (*take_fn)(struct hwc_arena *a, struct hwc_mlx_port *p,
			const struct hwc_cmd_result *res, const char *const *cmd);

/* A round's commands (per for each of the n jobs; a NULL argv where a job has fewer), each bounded
 * by the far end's time left. */
static struct hwc_cmd *round_cmds(struct hwc_arena *a, const struct job *jobs, size_t n, size_t per,
				  argv_fn fn, unsigned timeout_ms)
{
	struct hwc_cmd *cmds = hwc_arena_calloc(a, per * n, sizeof(*cmds));
	for (size_t i = 0; cmds && i < per * n; i++)
		cmds[i] = (struct hwc_cmd){.argv = fn(a, &jobs[i / per], i % per), .timeout_ms = timeout_ms};
	return cmds;
}

/* The answer of a command the far end had no time left for. */
static void not_run(struct peer_run *r, const struct hwc_cmd *c, struct hwc_cmd_result *res)
{
	hwc_fmeta_set(&res->m, HWC_ST_TIMEOUT, 0,
		      hwc_arena_printf(r->a, "%s: not run: the far end's time (one --cmd-timeout, %u ms, for "
					     "all its rounds) was spent by the rounds before",
				       hwc_argv_str(r->a, c->argv), r->budget_ms));
	res->out = res->err = "";
}

/* One round: its commands for all jobs at once; then take() per job. The shared time bounds what
 * this run waits for; a replay waits for nothing, and answers in the captured run's terms (as the
 * runner replays a recorded timeout, never in this run's limits): a round the recorded times
 * leave no time for still takes the answers the capture holds (a capture made before -t 200,
 * whose tools took longer, has them), and says "not run" only for what it lacks, which a run of
 * this hwcheck would not have asked. */
static void run_round(struct peer_run *r, const struct job *jobs, size_t n, size_t per, argv_fn fn,
		      take_fn take)
{
	struct hwc_arena *a = r->a;
	unsigned left = r->budget_ms - r->spent_ms;
	bool replay = hwc_env_mode(r->e) == HWC_RUN_REPLAY;
	struct hwc_cmd *cmds = round_cmds(a, jobs, n, per, fn, left);
	struct hwc_cmd *run = hwc_arena_calloc(a, per * n, sizeof(*run));
	struct hwc_cmd_result *res = hwc_arena_calloc(a, per * n, sizeof(*res));
	struct hwc_cmd_result *got = hwc_arena_calloc(a, per * n, sizeof(*got));
	const char *const **alias = hwc_arena_calloc(a, per * n, sizeof(*alias));
	if (!cmds || !run || !res || !got || !alias)
		return;
	size_t m = 0;
	for (size_t i = 0; i < per * n; i++)
		if (cmds[i].argv && (left || replay)) {
			alias[m] = alias_of(a, cmds[i].argv);
			run[m++] = cmds[i];
		}
	if (m)
		hwc_run_many_as(r->e, a, m, run, alias, got);
	unsigned slowest = 0;
	for (size_t i = 0, k = 0; i < per * n; i++) {
		if (!cmds[i].argv)
			continue;
		if (!left) {
			const struct hwc_cmd_result *g = replay ? &got[k++] : NULL;
			if (g && !g->not_recorded) /* a replayed answer that is no answer */
				res[i] = *g;
			else
				not_run(r, &cmds[i], &res[i]);
			continue;
		}
		res[i] = got[k++];
		slowest = res[i].elapsed_ms > slowest ? res[i].elapsed_ms : slowest;
	}
	r->spent_ms += slowest < left ? slowest : left;
	for (size_t i = 0; i < n; i++) {
		const char *cmd[ROUND_MAX] = {NULL};
		for (size_t k = 0; k < per && k < ROUND_MAX; k++) {
			const char *const *argv = cmds[i * per + k].argv;
			if (argv && res[i * per + k].aliased) /* what answered: a capture's older argv */
				argv = alias_of(a, argv);
			cmd[k] = argv ? hwc_argv_str(a, argv) : NULL;
		}
		take(a, jobs[i].p, &res[i * per], cmd);
	}
}

/* nodedesc and nodeinfo of the peer; the local port's own PortInfo (direct route "0": this node). */
static const char *const *node_argv(struct hwc_arena *a, const struct job *j, size_t k)
{
	if (k == 2) {
		const char *v[] = {"smpquery", "-C", j->ca, "-P", j->port, "-D", "portinfo", "0", j->port};
		return hwc_mlx_mad_argv(a, v, 9);
	}
	const char *v[] = {"smpquery", "-C", j->ca, "-P", j->port, "-D", k ? "nodeinfo" : "nodedesc", j->path};
	return hwc_mlx_mad_argv(a, v, 8);
}

static void portinfo_fail(struct hwc_mlx_portinfo *pi, const struct hwc_fmeta *why)
{
	pi->m = pi->source.m = pi->speed_active_gbps.m = pi->width_active.m = *why;
	pi->speeds_enabled_gbps.m = pi->widths_enabled.m = *why;
	pi->neighbor_mtu.m = pi->mtu_cap.m = *why;
}

/* A PortInfo answer's link fields into pi (the query's failure: every field says it). */
static void take_portinfo(struct hwc_arena *a, struct hwc_mlx_portinfo *pi, const struct hwc_cmd_result *res,
			  const char *cmd)
{
	struct hwc_fmeta why = {0};
	if (!diag_ok(res, a, cmd, &why)) {
		portinfo_fail(pi, &why);
		return;
	}
	if (hwc_mlx_parse_portinfo_link(res->out, res->out_len, a, pi) == 0)
		HWC_SET(pi->source, cmd);
	else
		pi->source.m = pi->m;
}

/* Round 1: nodedesc and nodeinfo of the node at the other end of the cable, and this port's
 * own PortInfo. */
static void take_node(struct hwc_arena *a, struct hwc_mlx_port *p, const struct hwc_cmd_result *res,
		      const char *const *cmd)
{
	struct hwc_mlx_peer *pr = &p->peer;
	take_portinfo(a, &p->portinfo, &res[2], cmd[2]);
	struct hwc_fmeta why = {0};
	if (!diag_ok(&res[0], a, cmd[0], &why) || hwc_mlx_parse_nodedesc(res[0].out, res[0].out_len, a, &pr->node_description) < 0) {
		if (why.st == HWC_ST_UNSET || why.st == HWC_ST_OK)
			why = pr->node_description.m;
		peer_fail(pr, &why);
		return;
	}
	HWC_SET(pr->source, cmd[0]);
	if (!diag_ok(&res[1], a, cmd[1], &why)) {
		pr->node_guid.m = pr->node_type.m = pr->port.m = pr->lid.m = why;
		counters_fail(pr, &why);
		portinfo_fail(&pr->portinfo, &why);
	} else if (hwc_mlx_parse_nodeinfo(res[1].out, res[1].out_len, a, pr) < 0) {
		pr->lid.m = pr->node_type.m;
		counters_fail(pr, &pr->node_type.m);
		portinfo_fail(&pr->portinfo, &pr->node_type.m);
	} else if (!hwc_ok(pr->port)) { /* no port to ask about: why stands for what follows */
		pr->lid.m = pr->port.m;
		counters_fail(pr, &pr->port.m);
		portinfo_fail(&pr->portinfo, &pr->port.m);
	}
}

static bool is_switch(const struct hwc_mlx_peer *p)
{
	return hwc_ok(p->node_type) && strcmp(p->node_type.v, "Switch") == 0;
}

/* Round 2, both from round 1's answer: the peer's LID (a switch answers for its port 0, a
 * channel adapter for its own port, whose answer is the link's PortInfo too) and, for a switch,
 * its port at the cable's end (the link's PortInfo). */
static const char *const *peer_argv(struct hwc_arena *a, const struct job *j, size_t k)
{
	const struct hwc_mlx_peer *pr = &j->p->peer;
	bool sw = is_switch(pr);
	if (k && !sw)
		return NULL;
	const char *v[] = {"smpquery", "-C", j->ca, "-P", j->port, "-D", "portinfo", j->path,
			   hwc_arena_printf(a, "%lld", sw && !k ? 0LL : (long long)pr->port.v)};
	return hwc_mlx_mad_argv(a, v, 9);
}

static void take_peer(struct hwc_arena *a, struct hwc_mlx_port *p, const struct hwc_cmd_result *res,
		      const char *const *cmd)
{
	struct hwc_mlx_peer *pr = &p->peer;
	struct hwc_fmeta why = {0};
	if (!diag_ok(res, a, cmd[0], &why))
		pr->lid.m = why;
	else
		hwc_mlx_parse_portinfo_lid(res->out, res->out_len, a, &pr->lid);
	if (!hwc_ok(pr->lid))
		counters_fail(pr, &pr->lid.m);
	if (is_switch(pr))
		take_portinfo(a, &pr->portinfo, &res[1], cmd[1]);
	else
		take_portinfo(a, &pr->portinfo, res, cmd[0]);
}

/* A PMA query is not direct-routed: by the peer's LID and port. */
static const char *const *perf_argv(struct hwc_arena *a, const struct job *j, size_t k)
{
	(void)k;
	const struct hwc_mlx_peer *pr = &j->p->peer;
	const char *v[] = {"perfquery", "-C", j->ca, "-P", j->port, hwc_arena_printf(a, "%lld", (long long)pr->lid.v),
			   hwc_arena_printf(a, "%lld", (long long)pr->port.v)};
	return hwc_mlx_mad_argv(a, v, 7);
}

/* Round 3: the peer port's PortCounters. */
static void take_counters(struct hwc_arena *a, struct hwc_mlx_port *p, const struct hwc_cmd_result *res,
			  const char *const *cmd)
{
	struct hwc_mlx_peer *pr = &p->peer;
	struct hwc_fmeta why = {0};
	if (!diag_ok(res, a, cmd[0], &why)) {
		counters_fail(pr, &why);
		return;
	}
	HWC_SET(pr->counters_source, cmd[0]);
	if (hwc_mlx_parse_perfquery(res->out, res->out_len, a, pr) < 0)
		pr->counters_source.m = pr->counters[0].m;
}

/* Keeps the jobs whose peer answered the previous round (keep(): the next round can ask). */
static size_t still(struct job *jobs, size_t n, bool (*keep)(const struct hwc_mlx_peer *))
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (keep(&jobs[i].p->peer))
			jobs[k++] = jobs[i];
	return k;
}

static bool has_node(const struct hwc_mlx_peer *p)
{
	return hwc_ok(p->node_type) && hwc_ok(p->port);
}

static bool has_lid(const struct hwc_mlx_peer *p)
{
	return hwc_ok(p->lid);
}

/* The ports whose far end may be asked, as jobs (*n of them); mark: the others' facts say why. */
static struct job *peer_jobs(struct hwc_arena *a, struct hwc_mlx_facts *mf, bool mark, size_t *n)
{
	size_t total;
	struct hwc_mlx_port_ref *ports = hwc_mlx_all_ports(a, mf, &total);
	struct job *jobs = total ? hwc_arena_calloc(a, total, sizeof(*jobs)) : NULL;
	*n = 0;
	if (!ports || !jobs)
		return NULL;
	for (size_t i = 0; i < total; i++) {
		struct hwc_mlx_port *p = ports[i].p;
		enum hwc_status st;
		const char *why = not_eligible(a, p, &st);
		if (why && mark) {
			/* a restricted function: what is skipped here is the MADs, for the counters' reason */
			bool restricted = st == HWC_ST_BLOCKED;
			struct hwc_fmeta m = {st, 0, restricted ? hwc_arena_printf(a, "far end not queried (no smpquery or perfquery through this function): %s", why) : why};
			struct hwc_fmeta mp = {st, 0, restricted ? hwc_arena_printf(a, "not queried (no smpquery through this function): %s", why) : why};
			peer_fail(&p->peer, &m);
			if (hwc_ok(p->link_layer) && strcmp(p->link_layer.v, "InfiniBand") == 0)
				portinfo_fail(&p->portinfo, &mp); /* an Ethernet port has no PortInfo: omitted */
		}
		if (why)
			continue;
		const char *pn = hwc_arena_printf(a, "%lld", (long long)p->port);
		jobs[(*n)++] = (struct job){p, p->rdma_device, pn, hwc_arena_printf(a, "0,%s", pn)};
	}
	return jobs;
}

void hwc_mlx_start_peers(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf)
{
	size_t n;
	struct job *jobs = peer_jobs(f->arena, mf, false, &n);
	struct hwc_cmd *cmds = n ? round_cmds(f->arena, jobs, n, 3, node_argv, hwc_env_cmd_timeout_ms(e)) : NULL;
	if (cmds)
		hwc_run_start(e, f->arena, 3 * n, cmds);
}

void hwc_mlx_collect_peers(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf)
{
	struct peer_run r = {e, f->arena, hwc_env_cmd_timeout_ms(e), 0};
	size_t n;
	struct job *jobs = peer_jobs(f->arena, mf, true, &n);
	if (!n)
		return;
	run_round(&r, jobs, n, 3, node_argv, take_node);
	if ((n = still(jobs, n, has_node)))
		run_round(&r, jobs, n, 2, peer_argv, take_peer);
	if ((n = still(jobs, n, has_lid)))
		run_round(&r, jobs, n, 1, perf_argv, take_counters);
}

/* ------------------------------------------------------------------ JSON */

static const struct hwc_jfield portinfo_f[] = {
	HWC_JFD(struct hwc_mlx_portinfo, source, HWC_JT_STR, "the smpquery portinfo argv that answered"),
	HWC_JFD(struct hwc_mlx_portinfo, speed_active_gbps, HWC_JT_F64,
		"the active lane rate, Gb/s (libibmad's figures: 2.5 SDR, 5 DDR, 10 QDR, 14.0625 FDR, 25.78125 EDR, "
		"53.125 HDR, 106.25 NDR, 212.5 XDR): LinkSpeedExtActive2 or LinkSpeedExtActive when set, else "
		"LinkSpeedActive (which an FDR port still prints as 10.0 Gbps)"),
	HWC_JFD(struct hwc_mlx_portinfo, width_active, HWC_JT_I64, "LinkWidthActive: the lanes in use (1, 2, 4, 8, 12)"),
	{.key = "speeds_enabled_gbps", .t = HWC_JT_F64V, .off = offsetof(struct hwc_mlx_portinfo, speeds_enabled_gbps.items),
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_mlx_portinfo, speeds_enabled_gbps.m),
	 .doc = "the lane rates the port enables, Gb/s ascending: LinkSpeedEnabled, LinkSpeedExtEnabled and "
		"LinkSpeedExtEnabled2 together (an extended field smpquery does not print adds none)"},
	{.key = "widths_enabled", .t = HWC_JT_I64V, .off = offsetof(struct hwc_mlx_portinfo, widths_enabled.items),
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_mlx_portinfo, widths_enabled.m),
	 .doc = "LinkWidthEnabled: the lane counts the port enables, ascending"},
	HWC_JFD(struct hwc_mlx_portinfo, neighbor_mtu, HWC_JT_I64,
		"NeighborMTU, bytes (256..4096): the MTU of this link, set by the subnet manager (opensm: the smaller "
		"MtuCap of the link's two ports); what ibv_query_port reports as active_mtu (mlx4_ib reads it from "
		"this PortInfo)"),
	HWC_JFD(struct hwc_mlx_portinfo, mtu_cap, HWC_JT_I64,
		"MtuCap, bytes (256..4096): the largest MTU the port supports; ibv_query_port's max_mtu"),
};
const struct hwc_jtable hwc_mlx_portinfo_table = HWC_JTABLE("mlx.adapters[].ports[].portinfo", portinfo_f, 0);
const struct hwc_jtable hwc_mlx_peer_portinfo_table = HWC_JTABLE("mlx.adapters[].ports[].peer.portinfo", portinfo_f, 0);

static const struct hwc_jfield counters_f[] = {
	HWC_JFK(struct hwc_mlx_peer, "source", counters_source, HWC_JT_STR),
	HWC_JNAMED(struct hwc_mlx_peer, counters, hwc_mlx_peer_counter_names, HWC_MLX_NPEER_COUNTERS),
};
static const struct hwc_jtable counters_t = HWC_JTABLE("mlx.adapters[].ports[].peer.counters", counters_f, 0);
#define S(member) HWC_JF(struct hwc_mlx_peer, member, HWC_JT_STR)
static const struct hwc_jfield peer_f[] = {
	S(source), S(node_description), S(node_guid), S(node_type),
	HWC_JF(struct hwc_mlx_peer, port, HWC_JT_I64),
	HWC_JF(struct hwc_mlx_peer, lid, HWC_JT_I64),
	{.key = "counters", .t = HWC_JT_OBJ, .off = 0, .sub = &counters_t},
	HWC_JSUBD(struct hwc_mlx_peer, "portinfo", portinfo, HWC_JT_GROUP, hwc_mlx_peer_portinfo_table,
		  "the peer port's PortInfo link fields (smpquery -D portinfo on the path one hop out: a channel "
		  "adapter's port answers with its LID, a switch's port is asked by its number), same keys as "
		  "ports[].portinfo"),
};
#undef S
const struct hwc_jtable hwc_mlx_peer_table = HWC_JTABLE("mlx.adapters[].ports[].peer", peer_f, 0);

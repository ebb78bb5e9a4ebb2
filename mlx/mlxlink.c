/* SPDX-License-Identifier: MIT */
/* The physical layer of a port as mstlink (mstflint's mlxlink) reports it (issue 14): FEC, raw
 * (pre-FEC) and effective (post-FEC) BER, per-lane errors, link-down counter and the tool's
 * recommendation. `mstlink -d BDF -m -c` through the runner, every card at once; and the JSON. */
#include "mlx/mlx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "pci/pci.h"
#include "core/runner.h"
#include "core/util.h"

#define LANES_KEY "Raw Physical Errors Per Lane"
#define EXT_SUFFIX " (Ext.)"
/* facts.mlx.adapters[].ports[].phy: each value with the name mlxlink prints before " : " */
#define K(txt, j, k, m) {.key = j, .t = k, .off = offsetof(struct hwc_mlx_phy, m), .src = txt}
static const struct hwc_jfield phy_f[] = {
	HWC_JF(struct hwc_mlx_phy, source, HWC_JT_STR),
	K("State", "state", HWC_JT_STR, state),
	K("Physical state", "phys_state", HWC_JT_STR, phys_state),
	K("Speed", "speed", HWC_JT_STR, speed),
	K("Width", "width", HWC_JT_STR, width),
	K("FEC", "fec", HWC_JT_STR, fec),
	K("Enabled Link Speed", "enabled_link_speed", HWC_JT_STR, enabled_link_speed),
	K("Supported Cable Speed", "supported_cable_speed", HWC_JT_STR, supported_cable_speed),
	K("Recommendation", "recommendation", HWC_JT_STR, recommendation),
	K("Status Opcode", "status_opcode", HWC_JT_I64, status_opcode),
	K("Time Since Last Clear [Min]", "time_since_clear_min", HWC_JT_F64, time_since_clear_min),
	K("Effective Physical Errors", "effective_errors", HWC_JT_U64, effective_errors),
	K("Effective Physical BER", "effective_ber", HWC_JT_F64, effective_ber),
	K("Raw Physical BER", "raw_ber", HWC_JT_F64, raw_ber),
	K("Link Down Counter", "link_down_counter", HWC_JT_U64, link_down_counter),
	K("Link Error Recovery Counter", "link_error_recovery_counter", HWC_JT_U64,
	  link_error_recovery_counter),
	K("Symbol Errors", "symbol_errors", HWC_JT_U64, symbol_errors),
	K("Symbol BER", "symbol_ber", HWC_JT_F64, symbol_ber),
	HWC_JLIST_M(struct hwc_mlx_phy, "raw_errors_per_lane", raw_errors_per_lane, lanes_m,
		    HWC_JT_I64V),
};
#undef K
const struct hwc_jtable hwc_mlx_phy_table =
	HWC_JTABLE("mlx.adapters[].ports[].phy", phy_f, 0);
#define NKEYS HWC_ARRAY_SIZE(phy_f)

static struct hwc_fmeta *meta_at(struct hwc_mlx_phy *p, size_t i)
{
	return (struct hwc_fmeta *)(void *)((char *)p + phy_f[i].off); /* each fact starts with its meta */
}

static void fail_all(struct hwc_mlx_phy *p, const struct hwc_fmeta *m)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (phy_f[i].src)
			*meta_at(p, i) = *m;
	p->lanes_m = *m;
}

/* Every value absent, each naming the line mstlink did not print (versions and port types print
 * different sets: "mstlink printed no 'Raw Physical BER' line" says which to look for). */
static void absent_all(struct hwc_mlx_phy *p, struct hwc_arena *a)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (phy_f[i].src)
			hwc_fmeta_set(meta_at(p, i), HWC_ST_ABSENT, 0,
				      hwc_arena_printf(a, "mstlink printed no '%s' line", phy_f[i].src));
	hwc_fmeta_set(&p->lanes_m, HWC_ST_ABSENT, 0, "mstlink printed no '" LANES_KEY "' line");
}

static const char *trim(const char *s, size_t n, size_t *out_n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*out_n = n;
	return s;
}

bool hwc_mlx_text_double(const char *v, size_t n, double *d)
{
	char tmp[64];
	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, v, n);
	tmp[n] = 0;
	char *end;
	*d = strtod(tmp, &end);
	return end != tmp && *end == 0;
}

static void set_value(struct hwc_mlx_phy *p, size_t i, const char *v, size_t n, struct hwc_arena *a)
{
	void *f = (char *)p + phy_f[i].off;
	double d;
	if (n >= 3 && strncmp(v, "N/A", 3) == 0) {
		hwc_fmeta_set(meta_at(p, i), HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "mstlink: %s: N/A", phy_f[i].src));
		return;
	}
	if (phy_f[i].t == HWC_JT_STR) {
		HWC_SET(*(struct hwc_fstr *)f, hwc_arena_strndup(a, v, n));
		return;
	}
	/* counts fit their integer type, or the value is not understood (no overflowing cast) */
	double max = phy_f[i].t == HWC_JT_I64 ? 9.2e18 : 1.8e19;
	if (!hwc_mlx_text_double(v, n, &d) || (phy_f[i].t != HWC_JT_F64 && (d < 0 || d > max))) {
		hwc_fmeta_set(meta_at(p, i), HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "mstlink: %s: '%.*s' is not a number", phy_f[i].src,
					       (int)(n > 40 ? 40 : n), v));
		return;
	}
	if (phy_f[i].t == HWC_JT_I64)
		HWC_SET(*(struct hwc_fi64 *)f, (int64_t)d);
	else if (phy_f[i].t == HWC_JT_U64)
		HWC_SET(*(struct hwc_fu64 *)f, (uint64_t)d);
	else
		HWC_SET(*(struct hwc_ff64 *)f, d);
}

static void set_lanes(struct hwc_mlx_phy *p, const char *v, size_t n, struct hwc_arena *a)
{
	p->raw_errors_per_lane.n = 0;
	while (n) {
		const char *c = memchr(v, ',', n);
		size_t k = c ? (size_t)(c - v) : n, tn;
		const char *t = trim(v, k, &tn);
		double d;
		uint64_t *slot;
		if (!hwc_mlx_text_double(t, tn, &d) || d < 0 || d > 1.8e19 || !(slot = HWC_VEC_PUSH(a, &p->raw_errors_per_lane))) {
			hwc_fmeta_set(&p->lanes_m, strncmp(v, "N/A", 3) == 0 ? HWC_ST_UNSUPPORTED : HWC_ST_INVALID, 0,
				      hwc_arena_printf(a, "mstlink: " LANES_KEY ": '%.*s'", (int)(n > 40 ? 40 : n), v));
			p->raw_errors_per_lane.n = 0;
			return;
		}
		*slot = (uint64_t)d;
		v += k + (c ? 1 : 0);
		n -= k + (c ? 1 : 0);
	}
	hwc_fmeta_set(&p->lanes_m, HWC_ST_OK, 0, NULL);
}

/* The value without the ANSI colour codes mlxlink adds on a terminal ("\x1b[32m2E-9\x1b[0m"). */
static const char *uncolour(const char *v, size_t n, size_t *out_n, struct hwc_arena *a)
{
	if (!memchr(v, 0x1b, n)) {
		*out_n = n;
		return v;
	}
	char *o = hwc_arena_zalloc(a, n + 1);
	size_t k = 0;
	for (size_t i = 0; o && i < n; i++) {
		if (v[i] == 0x1b && i + 1 < n && v[i + 1] == '[') {
			for (i += 2; i < n && !(v[i] >= '@' && v[i] <= '~'); i++)
				;
			continue;
		}
		o[k++] = v[i];
	}
	*out_n = k;
	return o ? o : v;
}

/* One "Key   : value" line; returns true when it was a key hwcheck reads. */
static bool take_line(struct hwc_mlx_phy *p, const char *l, size_t n, struct hwc_arena *a)
{
	const char *c = memchr(l, ':', n);
	if (!c)
		return false;
	size_t kn, vn, cn;
	const char *k = trim(l, (size_t)(c - l), &kn);
	const char *v = uncolour(c + 1, n - (size_t)(c - l) - 1, &cn, a);
	v = trim(v, cn, &vn);
	if (kn > strlen(EXT_SUFFIX) && memcmp(k + kn - strlen(EXT_SUFFIX), EXT_SUFFIX, strlen(EXT_SUFFIX)) == 0)
		kn -= strlen(EXT_SUFFIX); /* "Enabled Link Speed (Ext.)": the extended (PTYS ext) speed names */
	if (kn == strlen(LANES_KEY) && memcmp(k, LANES_KEY, kn) == 0) {
		set_lanes(p, v, vn, a);
		return true;
	}
	for (size_t i = 0; i < NKEYS; i++)
		if (phy_f[i].src && kn == strlen(phy_f[i].src) && memcmp(k, phy_f[i].src, kn) == 0 &&
		    meta_at(p, i)->st == HWC_ST_ABSENT) {
			set_value(p, i, v, vn, a);
			return true;
		}
	return false;
}

/* A line of dashes (a section title's underline). */
static bool dashes(const char *t, size_t n)
{
	size_t i = 0;
	while (i < n && t[i] == '-')
		i++;
	return n && i == n;
}

/* mlxlink prints the sections it could read, each only once all of its registers were read
 * (printOutput() at the end of each section's try block, e.g. MlxlinkCommander::showBer() and
 * showModuleInfo() in mlxlink/modules/mlxlink_commander.cpp), and a failed section adds a line
 * to _allUnhandledErrors instead, which MlxlinkUi::run() prints last under the title "Errors"
 * before it returns 1 (mlxlink/modules/mlxlink_ui.cpp; printErrorsSection in
 * printutil/mlxlink_record.cpp; mstflint b9d9e84). No value is read after that title; its
 * first line is kept in out->errors. */
int hwc_mlx_parse_mlxlink(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_phy *out)
{
	absent_all(out, a);
	out->errors = NULL;
	size_t pos = 0, found = 0;
	const char *err = NULL;
	size_t err_n = 0;
	bool in_errors = false;
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		size_t tn, cn;
		const char *t = trim(l, n, &tn);
		const char *c = uncolour(t, tn, &cn, a);
		c = trim(c, cn, &cn);
		if (cn == 6 && memcmp(c, "Errors", 6) == 0) {
			in_errors = true;
			continue;
		}
		if (in_errors) {
			if (!out->errors && cn && !dashes(c, cn))
				out->errors = hwc_arena_strndup(a, c, cn > 200 ? 200 : cn);
			continue;
		}
		if (tn >= 3 && strncmp(t, "-E-", 3) == 0 && !err) {
			err = t;
			err_n = tn;
		} else if (take_line(out, t, tn, a)) {
			found++;
		}
	}
	if (found)
		return 0;
	struct hwc_fmeta m;
	hwc_fmeta_set(&m, err ? HWC_ST_UNREADABLE : HWC_ST_INVALID, 0,
		      err ? hwc_arena_printf(a, "mstlink: %.*s", (int)(err_n > 200 ? 200 : err_n), err)
			  : "mstlink: no 'Operational Info' or counters in the output");
	fail_all(out, &m);
	return err ? -ENODEV : -EINVAL;
}

/* ------------------------------------------------------------------ collection */

static void phy_fail(struct hwc_mlx_port *port, const struct hwc_fmeta *m)
{
	fail_all(&port->phy, m);
	port->phy.source.m = *m;
	hwc_mlx_module_fail(&port->module, m);
}

/* The first "-E-" line of a tool's stderr, NULL when none. */
static const char *first_error(const char *buf, size_t len, struct hwc_arena *a)
{
	for (size_t pos = 0; buf && pos < len;) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, tn;
		pos += n + 1;
		const char *t = trim(l, n, &tn);
		if (tn >= 3 && strncmp(t, "-E-", 3) == 0)
			return hwc_arena_strndup(a, t, tn > 200 ? 200 : tn);
	}
	return NULL;
}

/* Every value mstlink did not print, with why: the run failed (status and its own words). */
static void absent_failed(struct hwc_mlx_port *port, const char *why)
{
	struct hwc_mlx_phy *p = &port->phy;
	for (size_t i = 0; i < NKEYS; i++)
		if (phy_f[i].src && meta_at(p, i)->st == HWC_ST_ABSENT)
			hwc_fmeta_set(meta_at(p, i), HWC_ST_UNREADABLE, 0, why);
	if (p->lanes_m.st == HWC_ST_ABSENT)
		hwc_fmeta_set(&p->lanes_m, HWC_ST_UNREADABLE, 0, why);
}

/* mstlink's exit status (mstflint b9d9e84): 0 once every section asked for was printed (a
 * "Warning: ..." line does not change it, MlxlinkRecord::printWar); 1 when a section failed
 * (listed under "Errors" after the sections that were printed, MlxlinkUi::run() in
 * mlxlink/modules/mlxlink_ui.cpp) or when an exception left the run ("-E- ..." on stderr,
 * main() in mlxlink/mlxlink_main.cpp, after whatever was already printed). So on exit 1 the
 * sections printed are whole and are read; every value not printed is unreadable with mstlink's
 * own words. A failed run that says nothing of why (not mstlink's own way to fail: a wrapper, a
 * crash) is not read at all. */
static void phy_apply(struct hwc_arena *a, struct hwc_mlx_port *port, const struct hwc_cmd_result *r,
		      const char *cmd)
{
	struct hwc_mlx_phy *p = &port->phy;
	if (r->m.st != HWC_ST_OK && r->m.st != HWC_ST_TRUNCATED) {
		phy_fail(port, &r->m);
		return;
	}
	HWC_SET(p->source, cmd);
	hwc_mlx_parse_module(r->out ? r->out : "", r->out ? r->out_len : 0, a, &port->module);
	int rc = hwc_mlx_parse_mlxlink(r->out ? r->out : "", r->out ? r->out_len : 0, a, p);
	const char *said = p->errors ? p->errors : first_error(r->err, r->err_len, a);
	if (rc < 0 && r->err_len) /* mstflint tools print their -E- on stderr */
		rc = hwc_mlx_parse_mlxlink(r->err, r->err_len, a, p);
	if (!r->signal && !r->exit_code)
		return;
	const char *why;
	if (r->signal)
		why = hwc_arena_printf(a, "%s exited %d (killed)", cmd, r->exit_code);
	else if (said)
		why = hwc_arena_printf(a, "%s exited %d: %s", cmd, r->exit_code, said);
	else
		why = hwc_arena_printf(a, "%s exited %d%s", cmd, r->exit_code,
				       rc == 0 ? " without an error report: its output is not used" : "");
	if (rc == 0 && said && !r->signal) {
		absent_failed(port, why);
		return;
	}
	struct hwc_fmeta m;
	hwc_fmeta_set(&m, HWC_ST_UNREADABLE, 0, why);
	phy_fail(port, &m);
}

/* Whether mstflint's mstlink refuses the function (its PCI device id): it answers "-E- Device is
 * not supported" (exit 1) for what dev_mgt calls 4th generation, ConnectX-3 and ConnectX-3 Pro
 * (MlxlinkUi::run, mlxlink/modules/mlxlink_ui.cpp: !MlxRegLib::isDeviceSupported(), which is
 * !dm_is_4th_gen(), mlxreg/mlxreg_lib/mlxreg_lib.cpp; dm_is_4th_gen in
 * dev_mgt/tools_dev_types.c; mstflint b9d9e84), and its device table has no ConnectX or
 * ConnectX-2 (15b3:6xxx: dm_get_device_id fails, "-E- Failed to read device ID"). The same set
 * as rules/fix_mstlink.c's, which names what reads the port instead. */
static bool mstlink_refuses(const struct hwc_mlx_function *fn)
{
	return hwc_ok(fn->device_id) && hwc_pci_mlx_before_connectib(fn->device_id.v);
}

/* Which port is asked: mlx5 has one port per PCI function, so `-d BDF` names it; a VF, the
 * second port of a multi-port function (mlx4) or a card mstlink refuses is not asked, with the
 * reason. */
static const char *phy_target(struct hwc_arena *a, const struct hwc_mlx_adapter *ad,
			      const struct hwc_mlx_port *p, struct hwc_fmeta *why)
{
	const struct hwc_mlx_function *fn = hwc_mlx_rdma_owner(ad, p->rdma_device);
	if (!fn) {
		hwc_fmeta_set(why, HWC_ST_ABSENT, 0, "no PCI function owns the RDMA device");
		return NULL;
	}
	if (fn->is_vf) {
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0, "a virtual function: mstlink needs the PF");
		return NULL;
	}
	if (mstlink_refuses(fn)) {
		const char *ll = hwc_ok(p->link_layer) ? p->link_layer.v : "";
		const char *instead = !strcmp(ll, "InfiniBand") ? "perfquery and ibportstate read its port"
				      : !strcmp(ll, "Ethernet") ? "ethtool and ethtool -S read its port"
								: "perfquery/ibportstate (InfiniBand) or ethtool (Ethernet) read its port";
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "mstlink does not support this card (%s, 15b3:%s): "
						  "mstflint's mlxlink takes Connect-IB and later, not "
						  "ConnectX-3 or older; %s",
					       hwc_ok(ad->product) ? ad->product.v : "ConnectX-2 or older",
					       fn->device_id.v, instead));
		return NULL;
	}
	if (p->port != 1) {
		hwc_fmeta_set(why, HWC_ST_UNSUPPORTED, 0,
			      hwc_arena_printf(a, "port %lld of a multi-port function: mstlink is asked "
						  "for port 1 only", (long long)p->port));
		return NULL;
	}
	return fn->bdf;
}

struct hwc_mlx_port_ref *hwc_mlx_all_ports(struct hwc_arena *a, struct hwc_mlx_facts *mf, size_t *n)
{
	size_t total = 0;
	for (size_t i = 0; i < mf->adapters.n; i++)
		total += mf->adapters.items[i].ports.n;
	*n = 0;
	struct hwc_mlx_port_ref *r = total ? hwc_arena_calloc(a, total, sizeof(*r)) : NULL;
	for (size_t i = 0; r && i < mf->adapters.n; i++)
		for (size_t j = 0; j < mf->adapters.items[i].ports.n; j++)
			r[(*n)++] = (struct hwc_mlx_port_ref){&mf->adapters.items[i],
							      &mf->adapters.items[i].ports.items[j]};
	return r;
}

const char **hwc_mlx_phy_argv(struct hwc_arena *a, const struct hwc_mlx_facts *mf,
			      const struct hwc_mlx_adapter *ad, const struct hwc_mlx_port *p,
			      struct hwc_fmeta *why)
{
	if (mf->tools.access.st != HWC_ST_OK) {
		*why = mf->tools.access;
		return NULL;
	}
	const char *bdf = phy_target(a, ad, p, why);
	const char **argv = bdf ? hwc_arena_calloc(a, 6, sizeof(*argv)) : NULL;
	if (bdf && !argv)
		hwc_fmeta_set(why, HWC_ST_UNREADABLE, ENOMEM, "mstlink: out of memory");
	if (argv)
		argv[0] = "mstlink", argv[1] = "-d", argv[2] = bdf, argv[3] = "-m", argv[4] = "-c";
	return argv;
}

void hwc_mlx_collect_phy(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf)
{
	struct hwc_arena *a = f->arena;
	size_t total, k = 0;
	struct hwc_mlx_port_ref *ports = hwc_mlx_all_ports(a, mf, &total);
	struct hwc_cmd *cmds = hwc_arena_calloc(a, total, sizeof(*cmds));
	struct hwc_cmd_result *res = hwc_arena_calloc(a, total, sizeof(*res));
	struct hwc_mlx_port **who = hwc_arena_calloc(a, total, sizeof(*who));
	struct hwc_mlx_adapter **ads = hwc_arena_calloc(a, total, sizeof(*ads));
	if (!ports || !cmds || !res || !who || !ads)
		return;
	for (size_t i = 0; i < total; i++) {
		struct hwc_fmeta why;
		const char **argv = hwc_mlx_phy_argv(a, mf, ports[i].ad, ports[i].p, &why);
		if (!argv) {
			phy_fail(ports[i].p, &why);
			continue;
		}
		cmds[k].argv = argv;
		ads[k] = ports[i].ad;
		who[k++] = ports[i].p;
	}
	if (!k)
		return;
	hwc_mlx_run_tools(e, a, mf, k, cmds, res, ads);
	for (size_t j = 0; j < k; j++)
		phy_apply(a, who[j], &res[j], hwc_argv_str(a, cmds[j].argv));
}

/* ------------------------------------------------------------------ JSON */

/* SPDX-License-Identifier: MIT */
/* Private to rules/: the evaluation context, the facts view helpers, the profile accessors and
 * the per-area rule lists. */
#ifndef HWC_RULES_INT_H
#define HWC_RULES_INT_H

#include <stdarg.h>

#include "core/query.h"
#include "core/util.h"
#include "rules/profile-keys.h" /* enum hwc_threshold (HWC_T_<ID>) */
#include "rules/rules.h"

struct hwc_wnd_short;
struct hwc_rule_ctx {
	const json_t *facts;
	const struct hwc_profile *prof;
	struct hwc_arena *a;
	struct hwc_findings *out;
	const struct hwc_rule *rule;
	enum hwc_severity sev; /* the rule's severity after the profile */
	struct hwc_wnd_short *wshort; /* the rule's one "window too short" info (link_window.c) */
};

/* ------------------------------------------------------------ findings (rules.c) */

/* A finding of the current rule at its (profile) severity. */
struct hwc_finding *hwc_rule_emit(struct hwc_rule_ctx *c, const char *subject, const char *fmt,
				  ...) __attribute__((format(printf, 3, 4)));
/* The same at an explicit severity (a rule with a milder and a harsher case). */
struct hwc_finding *hwc_rule_emit_sev(struct hwc_rule_ctx *c, enum hwc_severity sev,
				      const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void hwc_evidence_add(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
		      const char *observed, const char *expected);
/* Evidence with printf-formatted observed value. */
void hwc_evidence_addf(struct hwc_finding *fd, struct hwc_arena *a, const char *fact,
		       const char *expected, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* s with every `key` ("<PORT>") replaced by val (arena); s itself when val is NULL or key absent.
 * For a finding's own values in its fix before rules.c fills the common placeholders. */
const char *hwc_fix_subst(struct hwc_arena *a, const char *s, const char *key, const char *val);
/* fix with each `mstlink -d ...` made runnable on the subject's card (rules/fix_mstlink.c): the
 * port (-p N) where it is not 1; on a card mstlink refuses (ConnectX-3 and older) the
 * perfquery/ibportstate/ethtool command that reads the same, and a note why. */
const char *hwc_fix_mstlink(const json_t *facts, struct hwc_arena *a, const char *subject, const char *fix);
/* The rule cannot decide for subject: fact (a path) is unknown because why. One per rule and
 * subject; later calls add evidence to the same finding. */
void hwc_rule_unknown(struct hwc_rule_ctx *c, const char *subject, const char *fact,
		      const char *why, const char *needed_for);

/* ------------------------------------------------------------ evidence helpers (need.c) */

/* Value-or-unknown for rules (core/query.h): on failure emits the rule's unknown finding for
 * subject, with the fact path "<base>.<dotted>", and returns 0. */
int need_num(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, double *out);
int need_bool(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	      const char *dotted, bool *out);
int need_str(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, const char **out);

/* The same for a value of any kind (type -1) or of one JSON type (JSON_OBJECT, JSON_ARRAY), the
 * unknown finding saying what the value is needed_for (NULL: nothing more). */
int need_val(struct hwc_rule_ctx *c, const char *subject, const json_t *obj, const char *base,
	     const char *dotted, int type, const char *needed_for, const json_t **out);

/* fn for each mlx adapter in document order, with its BDF (NULL when unknown). */
void hwc_each_adapter(struct hwc_rule_ctx *c,
		      void (*fn)(struct hwc_rule_ctx *c, const json_t *ad, const char *bdf));

/* Path prefix for a pci device / adapter / netdev in evidence (arena string). */
const char *fv_pci_path(struct hwc_rule_ctx *c, const char *bdf);
const char *fv_adapter_path(struct hwc_rule_ctx *c, const char *bdf);
const char *fv_netdev_path(struct hwc_rule_ctx *c, const char *name);
/* The far end of a link finding (link_farend.c): prefixes fd's message with "host SUBJECT <->
 * FAR: " and adds the peer as evidence when the netdev's LLDP neighbour (nd at base) or the
 * port's neighbour (its netdev's LLDP peer, else its InfiniBand peer; p at base) is known. For an
 * InfiniBand peer whose counter (a counters.* key, or NULL) was read, says on which end of the
 * cable it counts. fd NULL: nothing. Wording only. */
void fv_far_end_netdev(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *nd, const char *base);
void fv_far_end_port(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *p, const char *base,
		     const char *counter);
/* A link counter over the run's watch window (link_window.c; facts.watch, `--watch SEC`) beside
 * its count since boot. Rates are per hour, or BERs (hwc_wnd_read_ber: per bit of the window). */
struct hwc_wnd {
	double s;          /* the window in seconds; 0: the run did not watch */
	double exposure;   /* what a rate is per: the window in hours, or its bits */
	bool ber;          /* rates are BERs */
	double d;          /* the delta over the window (bits in error for a BER) */
	const char *why;   /* why the delta (or the window) is unknown; NULL: known */
	const char *path;  /* the delta's fact path */
	const char *what;  /* "symbol errors" */
};
/* How a window and the count since boot judge together: BOOT judge since boot as without a window
 * (hwc_wnd_note then), NONE nothing to say, LIVE the window fires, HISTORY (info) the since-boot
 * count fires but the window would have seen its rate and did not, SHORT (info) the window saw
 * nothing but cannot see the limit while since boot is fine, UNKNOWN the window's delta is not
 * known and since boot does not fire. */
enum hwc_wact { HWC_WA_BOOT, HWC_WA_NONE, HWC_WA_LIVE, HWC_WA_HISTORY, HWC_WA_SHORT, HWC_WA_UNKNOWN };
/* The delta at obj's dotted key (base: obj's evidence path); what names the errors counted. */
void hwc_wnd_read(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *obj, const char *base,
		  const char *dotted, const char *what);
/* The netdev's link.ber_window.<key> (raw_ber, effective_ber) over its bits. */
void hwc_wnd_read_ber(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *nd, const char *base,
		      const char *key, const char *what);
/* limit: the rate above which the rule fires (0: any error); boot: 1 the since-boot verdict fires,
 * 0 it does not, -1 it is unknown; boot_rate: the rate since boot (<= 0 unknown). */
enum hwc_wact hwc_wnd_decide(const struct hwc_rule_ctx *c, const struct hwc_wnd *w, double limit,
			     int boot, double boot_rate);
/* The finding of a LIVE or HISTORY act with the window's evidence (boot_text: what since boot
 * holds, "5000 symbol errors since boot (5000/h over 1 h)"); UNKNOWN emits the unknown; SHORT
 * adds subj to the rule's one info of the run that names every port whose window was too short
 * (each port's window its evidence) and returns NULL, as for the others. */
struct hwc_finding *hwc_wnd_emit(struct hwc_rule_ctx *c, const struct hwc_wnd *w, enum hwc_wact act,
				 const char *subj, double limit, const char *boot_text);
/* A since-boot finding (act BOOT) in a run that watched: why the window did not decide, and its
 * evidence. Nothing without a watch. */
void hwc_wnd_note(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct hwc_wnd *w, double limit,
		  double boot_rate);
/* The watch, in whole seconds, whose window, seeing no error, rules out a rate of limit_per_h
 * errors per hour at the profile's link_watch_confidence (what short_add asks of a count window). */
double hwc_wnd_need_s(const struct hwc_rule_ctx *c, double limit_per_h);
/* What since boot says of one counter, for hwc_wnd_judge. */
struct hwc_wboot {
	int fires;         /* 1 the since-boot verdict fires, 0 it does not, -1 unknown */
	double rate;       /* its rate in the window's unit (<= 0 unknown) */
	const char *msg;   /* the since-boot finding's message, as without a window */
	const char *text;  /* what since boot holds, for the window's findings */
	const char *unk_fact, *unk_why, *unk_for; /* the unknown of fires -1 (NULL fact: none) */
};
/* hwc_wnd_decide and the finding it asks for: the since-boot one (msg, the window's note) or the
 * window's; NULL when none. act_out (or NULL) gets the act. */
struct hwc_finding *hwc_wnd_judge(struct hwc_rule_ctx *c, const struct hwc_wnd *w, const char *subj, double limit,
				  const struct hwc_wboot *b, enum hwc_wact *act_out);
/* mstlink -m's module readings (rule-link.c), for the ports whose netdev's module EEPROM
 * hwcheck did not decode: LINK_MODULE_THRESHOLDS' (rx_low false) or LINK_MODULE_RX_POWER_LOW's
 * (true) part; and whether they stand in for netdev's EEPROM. */
void hwc_mst_module_readings(struct hwc_rule_ctx *c, bool rx_low);
/* The lanes of module m (either source) that the live link needs (l: hwc_q_module_lanes or
 * hwc_q_port_module_lanes) and that read dark: one unknown for subj on fact naming them
 * (rule-module.c); whether there were any. */
bool hwc_rule_needed_dark(struct hwc_rule_ctx *c, const char *subj, const char *fact, const json_t *m,
			  const struct hwc_q_lanes *l, const char *needed_for);
bool hwc_mst_module_judged(const json_t *facts, const char *netdev);
/* mstlink -m's module identity (Module Info's Vendor Name and Vendor Part Number) of each port
 * whose netdev's module EEPROM hwcheck did not decode (ethtool -m goes first): fn with the port's
 * subject ("mlx5_0/1") and the module's path; a port without a netdev whose Module Info does not
 * name its module is unknown (needed_for). And whether it stands in for netdev's EEPROM. */
typedef void (*hwc_mst_ident_fn)(struct hwc_rule_ctx *c, const char *subj, const char *base, const json_t *mod);
void hwc_mst_module_identities(struct hwc_rule_ctx *c, const char *needed_for, hwc_mst_ident_fn fn);
bool hwc_mst_module_named(const json_t *facts, const char *netdev);
/* A number for evidence: "8", "2.5", "63.008". */
const char *fv_fmt_num(struct hwc_arena *a, double v);
/* A value for evidence: a string as it is, anything else as compact JSON ("?" when it cannot be). */
const char *fv_json_text(struct hwc_arena *a, const json_t *v);

/* ------------------------------------------------------------ profile (profile.c) */

double hwc_profile_threshold(const struct hwc_profile *p, enum hwc_threshold t);
/* Rule enabled and its severity (the table's unless the profile overrides it). */
bool hwc_profile_rule_enabled(const struct hwc_profile *p, const struct hwc_rule *r,
			      enum hwc_severity *sev);
/* The profile's product entry matching an adapter (by psid, device_id, product or generation,
 * most specific first); NULL when none. */
const json_t *hwc_profile_product(const struct hwc_profile *p, const json_t *adapter);
/* One key of that entry ("allowed_fw", "pcie", "mtu_min"...); NULL when none or null. */
const json_t *hwc_profile_product_get(const struct hwc_profile *p, const json_t *adapter,
				     const char *key);
/* Host policy: "iommu" ("passthrough" | "translated" | "any"), NULL when unset. */
const char *hwc_profile_host_str(const struct hwc_profile *p, const char *key);
/* Host policy number ("mtu_min"); 0 when unset. */
double hwc_profile_host_num(const struct hwc_profile *p, const char *key);
/* The profile's unused_ports entry that covers port (of adapter): its "reason", or "" when it
 * gives none; NULL when the port is not declared unused. */
const char *hwc_profile_port_unused(const struct hwc_profile *p, const json_t *facts,
				    const json_t *adapter, const json_t *port);
const json_t *hwc_profile_expectations(const struct hwc_profile *p);
/* The site's allowed transceivers [{vendor, part_number} glob patterns]; NULL when the profile
 * keeps no such list (LINK_MODULE_NOT_ALLOWED then has nothing to check). */
const json_t *hwc_profile_allowed_modules(const struct hwc_profile *p);
/* The fabric's RoCE choices {lossless, priority, dscp, cnp_dscp, cnp_priority, trust}; NULL when
 * the profile states none (the rules then judge consistency only). */
const json_t *hwc_profile_roce(const struct hwc_profile *p);
const json_t *hwc_profile_waivers(const struct hwc_profile *p);
/* "required": rule ids and fact paths whose unknown fails the gate (NULL when none). */
const json_t *hwc_profile_required(const struct hwc_profile *p);
bool hwc_profile_requires_rule(const struct hwc_profile *p, const char *id);
const struct hwc_profile *hwc_profile_default(void);

/* Expectations and waivers (expect.c). */
void hwc_expectations_eval(const json_t *facts, const struct hwc_profile *p, struct hwc_arena *a,
			   struct hwc_findings *out);
void hwc_waivers_apply(const struct hwc_profile *p, struct hwc_arena *a, struct hwc_findings *out,
		       const char *today);

/* mlxconfig parameters (rule-pci.c): the current value of fw_config NAME (next_boot when no
 * current): 1 known, 0 the firmware does not report it, -1 unknown (finding emitted). */
int hwc_fwc_current(struct hwc_rule_ctx *c, const json_t *ad, const char *name, const json_t **val);
/* True(1), "1", true, non-zero. */
bool hwc_fwc_true(const json_t *v);

/* Adds to fd (when not NULL) one evidence per fw_at_risk parameter a rule depends on: what a
 * reset of the configuration would undo. Returns how many. */
/* NULL when fw is one of the profile's allowed versions, else the list as JSON text (arena). */
const char *hwc_fw_not_allowed(struct hwc_rule_ctx *c, const json_t *allowed, const char *fw);
size_t hwc_fw_at_risk_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *adapter);

/* ------------------------------------------------------------ per-area rule lists */

/* Each area's rules, in their output order, end with {NULL}. */
#define HWC_AREA_DECL(name) extern const struct hwc_rule hwc_rules_##name[]

HWC_AREA_DECL(pci);
HWC_AREA_DECL(mlx);
HWC_AREA_DECL(fw);
HWC_AREA_DECL(thermal);
HWC_AREA_DECL(host);
HWC_AREA_DECL(netdev);
HWC_AREA_DECL(probe);
HWC_AREA_DECL(link);
HWC_AREA_DECL(module);
HWC_AREA_DECL(rate);
HWC_AREA_DECL(collect);
HWC_AREA_DECL(roce);
HWC_AREA_DECL(gpudirect);

#endif

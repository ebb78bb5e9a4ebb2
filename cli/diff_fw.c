/* SPDX-License-Identifier: MIT */
/* The diff of a card's firmware and its configuration: what a firmware update or a reset changed,
 * which of it had been set on purpose (at risk), what is configured but not active, and the
 * command that restores a lost value. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff_int.h"
#include "core/json.h"
#include "core/query.h"
#include "rules/rules.h"

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Went back to the default: known both times, the default now and not before. */
static bool reverted(const json_t *b, const json_t *a, const json_t *def)
{
	return b && a && def && !json_equal(a, b) && json_equal(a, def) && !json_equal(b, def);
}

/* Set on purpose: the default is known and the current or next-boot value is not it. */
static bool param_at_risk(const json_t *p)
{
	const json_t *def = hwc_q_fw_col(p, "default"), *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
	return def && ((cur && !json_equal(cur, def)) || (nb && !json_equal(nb, def)));
}

static bool has_params(const json_t *fc)
{
	return json_object_size(fc) > (hwc_q_get(fc, HWC_JSON_UNAVAILABLE) ? 1u : 0u);
}

/* The peers of a card: the other adapters of the same PSID (else the same product). */
static bool same_group(const json_t *x, const json_t *y)
{
	const char *px = hwc_q_string(x, "psid"), *py = hwc_q_string(y, "psid");
	if (px || py)
		return streq(px, py);
	return streq(hwc_q_string(x, "product"), hwc_q_string(y, "product"));
}

/* NAME.current of a peer of self (same product, not self); NULL when it is not one or has none. */
static const json_t *peer_current(const json_t *o, const json_t *self, const char *name)
{
	const json_t *v = hwc_q_fw_value(o, name, "current");
	return o != self && v && same_group(o, self) ? v : NULL;
}

/* The value of NAME.current most of the card's peers have (hwc_fwc_top); NULL when they have
 * none or no strict majority. *n: how many have it, *peers: how many peers know it. */
static const json_t *peer_majority(const json_t *facts, const json_t *self, const char *name,
				   size_t *n, size_t *peers)
{
	const json_t *ads = hwc_q_adapters(facts), *o, *v;
	json_t *tally = json_object();
	char text[128];
	size_t i;
	*peers = 0;
	json_array_foreach(ads, i, o) {
		if (!(v = peer_current(o, self, name)))
			continue;
		(*peers)++;
		hwc_fwc_value_text(v, text, sizeof(text));
		hwc_fwc_vote(tally, text, NULL);
	}
	bool tie;
	const json_t *top = hwc_fwc_top(tally, &tie);
	*n = (size_t)json_integer_value(hwc_q_get(top, "cards"));
	const json_t *best = NULL;
	json_array_foreach(ads, i, o) {
		if (!best && top && (v = peer_current(o, self, name))) {
			hwc_fwc_value_text(v, text, sizeof(text));
			best = strcmp(text, hwc_q_string(top, "value")) == 0 ? v : NULL;
		}
	}
	json_decref(tally);
	return *n * 2 > *peers ? best : NULL;
}

/* The real fix of an outlier: before, the card differed from most of its peers; now it has their
 * value. Then a move back to the default is not a regression (issue 12 section 2: one card at
 * force_relax among per_mkey ones). Fills why. */
static bool outlier_fixed(const struct card *b, const struct card *a, const char *name,
			  const json_t *bcur, const json_t *acur, char *why, size_t sz)
{
	size_t bn, bp, an, ap;
	const json_t *bm = peer_majority(b->facts, b->adapter, name, &bn, &bp);
	const json_t *am = peer_majority(a->facts, a->adapter, name, &an, &ap);
	if (!bm || !am || json_equal(bcur, bm) || !json_equal(acur, am))
		return false;
	char v[96];
	hwc_diff_fmt_value(v, sizeof(v), am);
	const char *grp = hwc_q_string(a->adapter, "psid") ? hwc_q_string(a->adapter, "psid")
						       : hwc_q_string(a->adapter, "product");
	snprintf(why, sz, "the card was the outlier: now %s like %zu of the %zu other %s %s of this "
			  "host, so this is the consistency fix, not a regression",
		 v, an, ap, grp ? grp : "identical", hwc_cli_noun((long long)ap, "card", "cards"));
	return true;
}

/* The command that puts a lost value back, and the reset that applies it. */
static const char *restore_fix(struct ctx *x, const struct card *a, const char *name,
			       const json_t *bp)
{
	const json_t *code = hwc_q_fw_col(bp, "current_code"), *cur = hwc_q_fw_col(bp, "current");
	char v[96];
	hwc_diff_fmt_value(v, sizeof(v), json_is_integer(code) ? code : cur);
	return hwc_arena_printf(x->a, "Restore it: `mstconfig -d %s -y set %s=%s`. %s", a->bdf, name, v,
				hwc_fw_reset_advice(x->a, a->adapter, a->bdf));
}

static void mark(json_t *ch, bool at_risk, const char *fix)
{
	if (!ch)
		return;
	json_object_set_new(ch, "at_risk", json_boolean(at_risk));
	if (fix)
		json_object_set_new(ch, "fix", hwc_json_string(fix));
}

/* One parameter known on both sides. */
static void diff_param(struct ctx *x, const struct card *b, const struct card *a, const char *name,
		       const json_t *bp, const json_t *ap)
{
	const json_t *def = hwc_q_fw_col(ap, "default") ? hwc_q_fw_col(ap, "default") : hwc_q_fw_col(bp, "default");
	const json_t *bcur = hwc_q_fw_col(bp, "current"), *acur = hwc_q_fw_col(ap, "current");
	const json_t *bnb = hwc_q_fw_col(bp, "next_boot"), *anb = hwc_q_fw_col(ap, "next_boot");
	bool risk = param_at_risk(bp), rcur = reverted(bcur, acur, def), rnb = reverted(bnb, anb, def);
	char bs[96], as[96], why[256];
	if (rcur && rnb && json_equal(bcur, bnb) && json_equal(acur, anb)) {
		/* one event (the update reset the stored value), told once */
		hwc_diff_fmt_value(bs, sizeof(bs), bcur);
		hwc_diff_fmt_value(as, sizeof(as), acur);
		if (outlier_fixed(b, a, name, bcur, acur, why, sizeof(why))) {
			mark(hwc_diff_add(x, "fw_config", name, bcur, acur, "improvement",
					  "%s: %s -> %s (current and next boot), back to its default: %s",
					  name, bs, as, why), risk, NULL);
			return;
		}
		mark(hwc_diff_add(x, "fw_config", name, bcur, acur, "regression",
				  "%s: %s -> %s (current and next boot), back to its default%s", name, bs,
				  as, risk ? "; it had been set on purpose" : ""),
		     risk, restore_fix(x, a, name, bp));
		return;
	}
	for (size_t k = 0; k < 2; k++) {
		const json_t *bv = k ? bnb : bcur, *av = k ? anb : acur;
		char item[256];
		snprintf(item, sizeof(item), "%s.%s", name, k ? "next_boot" : "current");
		hwc_diff_fmt_value(bs, sizeof(bs), bv);
		hwc_diff_fmt_value(as, sizeof(as), av);
		size_t before = json_array_size(x->changes);
		if (k ? rnb : rcur)
			mark(hwc_diff_add(x, "fw_config", item, bv, av, "regression",
					  "%s (%s): %s -> %s, back to its default", name,
					  k ? "next boot" : "current", bs, as),
			     risk, restore_fix(x, a, name, bp));
		else if (!bv && av) /* null -> set: the value appeared */
			hwc_diff_add(x, "fw_config", item, NULL, av, "change",
				     "%s: not reported in the baseline, now %s", item, as);
		else
			hwc_diff_cmp_plain(x, "fw_config", item, bv, av, item);
		if (json_array_size(x->changes) > before)
			mark(json_array_get(x->changes, json_array_size(x->changes) - 1), risk, NULL);
	}
}

void hwc_diff_fw_config(struct ctx *x, const struct card *b, const struct card *a)
{
	const json_t *bc = hwc_q_fw_config(b->adapter), *ac = hwc_q_fw_config(a->adapter);
	bool bany = has_params(bc), aany = has_params(ac);
	if (!bany || !aany) {
		if (bany)
			hwc_diff_add(x, "fw_config", "fw_config", NULL, NULL, "unknown",
				     "firmware configuration was readable, now it is not");
		else if (aany && b->adapter) { /* null -> set */
			size_t np = json_object_size(ac) - (hwc_q_get(ac, HWC_JSON_UNAVAILABLE) ? 1u : 0u);
			hwc_diff_add(x, "fw_config", "fw_config", NULL, NULL, "change",
				     "firmware configuration was not readable in the baseline, now it "
				     "is (%zu %s): nothing to compare it with", np, hwc_cli_noun((long long)np, "parameter", "parameters"));
		}
		return;
	}
	const char *name;
	json_t *bp, *ap;
	json_object_foreach((json_t *)bc, name, bp) {
		if (!strcmp(name, HWC_JSON_UNAVAILABLE))
			continue;
		const json_t *aq = hwc_q_get(ac, name);
		if (aq)
			diff_param(x, b, a, name, bp, aq);
		else
			mark(hwc_diff_add(x, "fw_config", name, hwc_q_fw_col(bp, "current"), NULL,
					  param_at_risk(bp) ? "regression" : "change",
					  "%s: no longer reported by this firmware%s", name,
					  param_at_risk(bp) ? ", and it had been set on purpose" : ""),
			     param_at_risk(bp), NULL);
	}
	json_object_foreach((json_t *)ac, name, ap) {
		if (strcmp(name, HWC_JSON_UNAVAILABLE) && !hwc_q_get(bc, name))
			hwc_diff_add(x, "fw_config", name, NULL,
				     hwc_q_fw_effective(ap),
				     "change", "%s: new parameter with this firmware", name);
	}
}

/* Something between the two captures reset the card or the host: the firmware it runs, or the
 * kernel it booted, changed. */
static const char *reset_seen(const struct card *b, const struct card *a)
{
	const json_t *bf = hwc_q_get(b->adapter, "fw_version"), *af = hwc_q_get(a->adapter, "fw_version");
	if (bf && af && !json_equal(bf, af))
		return "the running firmware changed";
	const json_t *bk = hwc_q_at(hwc_q_host(b->facts), "kernel.release");
	const json_t *ak = hwc_q_at(hwc_q_host(a->facts), "kernel.release");
	if (bk && ak && !json_equal(bk, ak))
		return "the kernel changed (a reboot)";
	return NULL;
}

/* Next boot differs from current after the change: configured but not active. */
static void not_active(struct ctx *x, const struct card *b, const struct card *a, json_t *pending)
{
	const json_t *ac = hwc_q_fw_config(a->adapter), *bc = hwc_q_fw_config(b->adapter);
	const char *name, *seen = reset_seen(b, a);
	json_t *p;
	json_object_foreach((json_t *)ac, name, p) {
		const json_t *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
		if (!cur || !nb || json_equal(cur, nb))
			continue;
		json_array_append_new(pending, json_string(name));
		const json_t *bp = hwc_q_get(bc, name);
		bool was = bp && json_equal(hwc_q_fw_col(bp, "next_boot"), nb) && json_equal(hwc_q_fw_col(bp, "current"), cur);
		char cs[96], ns[96], item[256];
		hwc_diff_fmt_value(cs, sizeof(cs), cur);
		hwc_diff_fmt_value(ns, sizeof(ns), nb);
		snprintf(item, sizeof(item), "%s.pending", name);
		const char *adv = hwc_fw_reset_advice(x->a, a->adapter, a->bdf);
		json_t *ch;
		if (!seen && bp && !json_equal(hwc_q_fw_col(bp, "next_boot"), nb)) {
			/* set between the captures: its NAME.next_boot change says so; add the reset */
			snprintf(item, sizeof(item), "%s.next_boot", name);
			size_t i;
			json_array_foreach(x->changes, i, ch)
				if (!strcmp(hwc_q_string(ch, "item") ? hwc_q_string(ch, "item") : "", item))
					json_object_set_new(ch, "fix", hwc_json_string(adv));
			continue;
		}
		if (seen)
			ch = hwc_diff_add(x, "fw_config", item, cur, nb, "regression",
					  "%s: configured but not active: next boot %s, current %s, although "
					  "%s; that reset did not apply it",
					  name, ns, cs, seen);
		else
			ch = hwc_diff_add(x, "fw_config", item, cur, nb, "change",
					  "%s: configured but not active%s: next boot %s, current %s", name,
					  was ? " since the baseline (if the host was rebooted in between, a "
						"warm reboot did not apply it)"
					      : "",
					  ns, cs);
		mark(ch, bp && param_at_risk(bp), adv);
	}
}

/* The profile's intent for this card's parameters: {NAME: value} of its product entry. */
static json_t *intent_state(const struct ctx *x, const struct card *a)
{
	const json_t *want = x->o->profile ? hwc_profile_fw_intent(x->o->profile, a->adapter) : NULL;
	if (!json_is_object(want))
		return json_null();
	json_t *differ = json_array();
	const char *name;
	json_t *v;
	json_object_foreach((json_t *)want, name, v) {
		const json_t *p = hwc_q_fw_param(a->adapter, name);
		const json_t *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
		const json_t *cc = hwc_q_fw_col(p, "current_code"), *nc = hwc_q_fw_col(p, "next_boot_code");
		bool cur_ok = cur && (json_equal(cur, v) || (cc && json_equal(cc, v)));
		bool nb_ok = nb && (json_equal(nb, v) || (nc && json_equal(nc, v)));
		if (!cur_ok || !nb_ok)
			json_array_append_new(differ, json_string(name));
	}
	return json_pack("{s:O, s:o}", "expected", want, "differ", differ);
}

void hwc_diff_fw_state(struct ctx *x, const struct card *b, const struct card *a, json_t *card)
{
	json_object_set_new(card, "firmware",
			    json_pack("{s:O?, s:O?}", "before", hwc_q_get(b->adapter, "fw_version"), "after",
				      hwc_q_get(a->adapter, "fw_version")));
	json_t *pending = json_array();
	if (has_params(hwc_q_fw_config(a->adapter)))
		not_active(x, b, a, pending);
	json_t *intent = intent_state(x, a);
	bool consistent = json_array_size(pending) == 0 &&
			  (json_is_null(intent) || !json_array_size(hwc_q_get(intent, "differ")));
	json_object_set_new(card, "fw_config_state",
			    json_pack("{s:o, s:o, s:b}", "pending", pending, "profile", intent,
				      "current_next_boot_intent_agree", consistent));
}

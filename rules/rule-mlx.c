/* SPDX-License-Identifier: MIT */
/* ConnectX firmware rules: write ordering on AMD, the slot power limiter, pending configuration,
 * pending firmware reset, firmware version consistency and the profile's allowed versions. */
#include <stdlib.h>
#include <string.h>

#include "rules/rules-int.h"

static const char *bdf_of(const json_t *ad)
{
	return hwc_q_string(ad, "bdf");
}

static const char *vstr(const json_t *v)
{
	return json_string_value(v) ? json_string_value(v) : json_is_true(v) ? "True" : json_is_false(v) ? "False" : "?";
}

/* PCI_WR_ORDERING as mstconfig names it: "per_mkey", "force_relax" (a bare code maps 0/1). */
static const char *wo_text(const json_t *v)
{
	const char *s = json_string_value(v);
	if (s)
		return s;
	if (json_is_integer(v))
		return json_integer_value(v) == 0 ? "per_mkey" : json_integer_value(v) == 1 ? "force_relax" : "?";
	return "?";
}

static bool wo_is(const json_t *v, const char *want)
{
	return !strncmp(wo_text(v), want, strlen(want));
}

static void wo_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const char *bdf,
			const json_t *v, const char *want)
{
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.PCI_WR_ORDERING.current", fv_adapter_path(c, bdf)),
			 wo_text(v), want);
}

/* host.pci_wr_ordering: the value every card must have, whatever the CPU. */
static void wr_ordering_expected(struct hwc_rule_ctx *c, const char *want)
{
	size_t i;
	const json_t *ad, *v;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = bdf_of(ad);
		if (hwc_fwc_current(c, ad, "PCI_WR_ORDERING", &v) <= 0 || wo_is(v, want))
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "PCI_WR_ORDERING is %s; the profile expects %s on every card (host.pci_wr_ordering)",
						       wo_text(v), want);
		wo_evidence(c, fd, bdf, v, want);
		fd->fix = hwc_arena_printf(c->a, "`mstconfig -d <BDF> set PCI_WR_ORDERING=%s`, then `mstfwreset -d <BDF> reset` or reboot.", want);
	}
}

/* host.role storage_client / smb_client on AMD: per_mkey is the 2 GB/s read cap of the seed. */
static void wr_ordering_storage(struct hwc_rule_ctx *c, const char *role, const char *vendor)
{
	size_t i;
	const json_t *ad, *v;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = bdf_of(ad);
		if (hwc_fwc_current(c, ad, "PCI_WR_ORDERING", &v) <= 0 || !wo_is(v, "per_mkey"))
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "PCI_WR_ORDERING is per_mkey on an AMD host whose profile role is %s: memory keys that do not ask for Relaxed Ordering get strictly ordered writes, capping RDMA reads at about 2 GB/s",
						       role);
		wo_evidence(c, fd, bdf, v, "force_relax");
		hwc_evidence_add(fd, c->a, "host.cpu.vendor", vendor, NULL);
	}
}

/* No role in the profile: per_mkey on AMD is right for GPU/NCCL compute and wrong for a storage
 * or SMB client, so it is said once, at info, unless the cards disagree (then
 * MLX_FW_CONFIG_INCONSISTENT names the outlier and this stays out of its way). */
static void wr_ordering_undecided(struct hwc_rule_ctx *c, const char *vendor)
{
	size_t i, n = 0, other = 0;
	const json_t *ad, *v;
	const char *list = "", *first = NULL;
	json_t *pm = json_array();
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		if (hwc_fwc_current(c, ad, "PCI_WR_ORDERING", &v) <= 0)
			continue;
		if (!wo_is(v, "per_mkey")) {
			other++;
			continue;
		}
		list = hwc_arena_printf(c->a, "%s%s%s", list, n ? ", " : "", bdf_of(ad));
		first = first ? first : bdf_of(ad);
		json_array_append(pm, (json_t *)ad);
		n++;
	}
	if (n && !other) {
		struct hwc_finding *fd = hwc_rule_emit_sev(
			c, HWC_SEV_INFO, "host", "PCI_WR_ORDERING is per_mkey on %zu card%s of this AMD host (%s): right for GPU/NCCL compute, which asks for Relaxed Ordering itself; a storage or SMB client whose software does not ask for it reads at about 2 GB/s. The profile's host.role decides",
			n, n == 1 ? "" : "s", list);
		json_array_foreach(pm, i, ad) {
			hwc_fwc_current(c, ad, "PCI_WR_ORDERING", &v);
			wo_evidence(c, fd, bdf_of(ad), v, NULL);
		}
		hwc_evidence_add(fd, c->a, "host.cpu.vendor", vendor, NULL);
		fd->fix = hwc_arena_printf(c->a, "Declare the host's role in the site profile: `\"host\": {\"role\": \"gpu_compute\"}` accepts per_mkey; "
					   "`\"storage_client\"` or `\"smb_client\"` asks for force_relax (`mstconfig -d %s set PCI_WR_ORDERING=force_relax`, then reboot).",
					   first);
	}
	json_decref(pm);
}

static void eval_wr_ordering(struct hwc_rule_ctx *c)
{
	const char *vendor = NULL, *why = NULL;
	const char *want = hwc_profile_host_str(c->prof, "pci_wr_ordering");
	const char *role = hwc_profile_host_str(c->prof, "role");
	if (!json_array_size(hwc_q_adapters(c->facts)))
		return;
	if (want && strcmp(want, "any") != 0) {
		wr_ordering_expected(c, want);
		return;
	}
	if (role && !strcmp(role, "gpu_compute"))
		return; /* per_mkey is what NCCL nodes run; consistency is MLX_FW_CONFIG_INCONSISTENT's */
	/* the host first: on Intel the parameter does not matter, so no unknown for it either */
	if (!hwc_q_find_str(c->facts, "host.cpu.vendor", &vendor, &why, c->a)) {
		size_t i;
		const json_t *ad, *v;
		json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
			if (hwc_fwc_current(c, ad, "PCI_WR_ORDERING", &v) > 0 && wo_is(v, "per_mkey"))
				hwc_rule_unknown(c, bdf_of(ad), "host.cpu.vendor", why, "whether the host is AMD");
		}
		return;
	}
	if (strcmp(vendor, "AuthenticAMD") != 0)
		return;
	if (role)
		wr_ordering_storage(c, role, vendor);
	else
		wr_ordering_undecided(c, vendor);
}

/* ------------------------------------------------------------------ identical cards alike */

static const char *product_of(const json_t *ad)
{
	const char *k = hwc_q_string(ad, "psid");
	return k ? k : hwc_q_string(ad, "part_number");
}

/* A card whose whole firmware configuration is unknown cannot be compared with its peers. */
static void fwc_unknown_cards(struct hwc_rule_ctx *c)
{
	size_t i, k;
	const json_t *ad, *o;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *key = product_of(ad), *why;
		const json_t *fc;
		size_t peers = 0;
		if (!key || (hwc_q_find(ad, "fw_config", &fc, &why, c->a) && json_is_object(fc)))
			continue;
		json_array_foreach(hwc_q_adapters(c->facts), k, o) peers += product_of(o) && !strcmp(product_of(o), key) && o != ad;
		if (peers)
			hwc_rule_unknown(c, bdf_of(ad), hwc_arena_printf(c->a, "%s.fw_config", fv_adapter_path(c, bdf_of(ad))), why,
					 hwc_arena_printf(c->a, "comparing its firmware configuration with %zu identical card%s", peers, peers == 1 ? "" : "s"));
	}
}

/* The values of a spread entry joined by sep; with param, as mstconfig commands. */
static const char *values_list(struct hwc_rule_ctx *c, const json_t *g, const char *sep,
			       const char *param)
{
	const char *out = "";
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_q_get(g, "values"), i, e) {
		const char *v = hwc_q_string(e, "value");
		out = param ? hwc_arena_printf(c->a, "%s%s`mstconfig -d <BDF> set %s=%s`", out, i ? sep : "", param, v)
			    : hwc_arena_printf(c->a, "%s%s%s", out, i ? sep : "", v);
	}
	return out;
}

static long long cards_with(const json_t *g, const char *value)
{
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_q_get(g, "values"), i, e) {
		const char *v = hwc_q_string(e, "value");
		if (value && v && !strcmp(value, v))
			return (long long)json_integer_value(hwc_q_get(e, "cards"));
	}
	return 0;
}

static void fwc_emit(struct hwc_rule_ctx *c, const json_t *g)
{
	const char *param = hwc_q_string(g, "param");
	const char *prod = hwc_q_string(g, "product");
	const char *maj = hwc_q_string(g, "majority");
	long long total = (long long)json_integer_value(hwc_q_get(g, "cards"));
	int sev = hwc_severity_from_name(hwc_q_string(g, "severity"));
	size_t i;
	const json_t *m;
	json_array_foreach(hwc_q_get(g, "minority"), i, m) {
		const char *bdf = hwc_q_string(m, "card");
		const char *val = hwc_q_string(m, "value");
		struct hwc_finding *fd;
		enum hwc_severity sv = (enum hwc_severity)sev;
		if (maj)
			fd = hwc_rule_emit_sev(c, sv, bdf, "%s is %s on this card while %lld of the %lld %s cards of this host have %s",
					       param, val, cards_with(g, maj), total, prod, maj);
		else
			fd = hwc_rule_emit_sev(c, sv, bdf, "%s is %s on this card; the %lld %s cards of this host split evenly (%s): a tie, no majority to align to",
					       param, val, total, prod, values_list(c, g, " / ", NULL));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.%s.current", fv_adapter_path(c, bdf), param),
				 val, maj ? maj : hwc_arena_printf(c->a, "one value on all %lld cards", total));
		if (maj)
			fd->fix = hwc_arena_printf(c->a, "`mstconfig -d <BDF> set %s=%s` (the value of the other cards), "
						   "then `mstfwreset -d <BDF> reset` or reboot.", param, maj);
		else
			fd->fix = hwc_arena_printf(c->a, "Pick one value for all %lld cards (for PCI_WR_ORDERING the profile's host.role says which) "
						   "and set it on each card: %s; then reboot.", total, values_list(c, g, " or ", param));
	}
	json_array_foreach(hwc_q_get(g, "unknown"), i, m) {
		const char *bdf = hwc_q_string(m, "card");
		const json_t *ad = hwc_q_adapter_of(c->facts, bdf);
		if (!json_is_object(hwc_q_get(ad, "fw_config")))
			continue; /* said once by fwc_unknown_cards */
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.fw_config.%s", fv_adapter_path(c, bdf), param),
				 hwc_q_string(m, "why"), "whether it matches its identical cards");
	}
}

static void eval_fwc_inconsistent(struct hwc_rule_ctx *c)
{
	json_t *cards = json_array();
	size_t i;
	const json_t *ad, *g;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) json_array_append_new(cards, json_pack("{s:O}", "adapter", (json_t *)ad));
	fwc_unknown_cards(c);
	json_t *sp = hwc_fwc_spread(cards);
	json_array_foreach(sp, i, g) fwc_emit(c, g);
	json_decref(sp);
	json_decref(cards);
}

static bool insufficient(const json_t *v)
{
	const char *s = json_string_value(v);
	return (s && strstr(s, "insufficient")) || (json_is_integer(v) && json_integer_value(v) == 2);
}

static void power_limiter_card(struct hwc_rule_ctx *c, const json_t *ad, const char *bdf)
{
	const json_t *st;
	const char *base = fv_adapter_path(c, bdf);
	if (!need_val(c, bdf, ad, base, "registers.power_status", -1, NULL, &st) || !insufficient(st))
		return;
	const json_t *dis;
	int r = hwc_fwc_current(c, ad, "DISABLE_SLOT_POWER_LIMITER", &dis);
	if (r < 0)
		return;
	if (r == 1 && hwc_fwc_true(dis))
		return; /* limiter off: PCIE_SLOT_POWER_LOW speaks for the slot */
	const json_t *dev = hwc_q_pci_dev(c->facts, bdf);
	const json_t *adv = hwc_q_get(dev, "slot_power_limit_w");
	const json_t *pw = hwc_q_at(ad, "registers.pci_power_w");
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "the firmware's slot power limiter is active and reports insufficient slot power (slot advertises %s W): the card may throttle or power its network modules down",
		json_is_number(adv) ? fv_fmt_num(c->a, json_number_value(adv)) : json_is_number(pw) ? fv_fmt_num(c->a, json_number_value(pw)) : "?");
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.registers.power_status", base), vstr(st), "sufficient");
	if (json_is_number(pw))
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.registers.pci_power_w", base), fv_fmt_num(c->a, json_number_value(pw)), NULL);
	if (json_is_number(adv))
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.slot_power_limit_w", fv_pci_path(c, bdf)), fv_fmt_num(c->a, json_number_value(adv)), NULL);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.DISABLE_SLOT_POWER_LIMITER.current", base),
			 r == 1 ? vstr(dis) : "not set (limiter on)", NULL);
}

static void eval_power_limiter(struct hwc_rule_ctx *c)
{
	hwc_each_adapter(c, power_limiter_card);
}

/* The card's findings at warn or worse from every rule but this one, judged on facts. */
static void card_findings(struct hwc_rule_ctx *c, const json_t *facts, struct hwc_findings *out)
{
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	for (size_t i = 0; i < n; i++) {
		struct hwc_rule_ctx r = {.facts = facts, .prof = c->prof, .a = c->a, .out = out, .rule = &t[i]};
		if (t[i].eval != c->rule->eval && hwc_profile_rule_enabled(c->prof, &t[i], &r.sev))
			t[i].eval(&r);
	}
}

static bool has_finding(const struct hwc_findings *v, const struct hwc_finding *f)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->items[i].rule_id, f->rule_id) && !strcmp(v->items[i].subject, f->subject))
			return true;
	return false;
}

/* A pending change is a regression when the card, booted with it, would draw a finding at warn
 * or worse that it does not draw now (force_relax -> per_mkey where force_relax is wanted, one
 * card of a PSID set apart from the others): the first such finding, or NULL. */
static const struct hwc_finding *pending_regression(struct hwc_rule_ctx *c, const json_t *ad, json_t *after)
{
	struct hwc_findings now = {0}, then = {0};
	card_findings(c, c->facts, &now);
	card_findings(c, after, &then);
	const json_t *after_ad = hwc_q_adapter_of(after, bdf_of(ad));
	for (size_t i = 0; i < then.n; i++) {
		const struct hwc_finding *f = &then.items[i];
		if (f->severity >= HWC_SEV_WARN && f->severity != HWC_SEV_UNKNOWN &&
		    hwc_q_adapter_of(after, f->subject) == after_ad && !has_finding(&now, f))
			return f;
	}
	return NULL;
}

/* MLX_CONFIG_PENDING's fix for one card: the revert command with every pending parameter's
 * current value; and when applying would be a regression, advice against it. */
static void pending_fix(struct hwc_rule_ctx *c, const json_t *ad, const json_t *fc, struct hwc_finding *fd)
{
	const char *bdf = bdf_of(ad), *revert = "";
	json_t *after = json_deep_copy(c->facts);
	json_t *afc = (json_t *)hwc_q_fw_config(hwc_q_adapter_of(after, bdf));
	const char *k;
	json_t *p;
	json_object_foreach((json_t *)fc, k, p) {
		const json_t *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
		if (!json_is_object(p) || !cur || !nb ||
		    !(json_is_true(hwc_q_get(p, "pending")) || !json_equal(cur, nb)))
			continue;
		revert = hwc_arena_printf(c->a, "%s%s%s=%s", revert, *revert ? " " : "", k,
					  json_is_integer(cur) ? hwc_arena_printf(c->a, "%lld", (long long)json_integer_value(cur)) : vstr(cur));
		json_t *ap = json_object_get(afc, k);
		json_object_set(ap, "current", (json_t *)nb);
		if (json_object_get(ap, "next_boot_code"))
			json_object_set(ap, "current_code", json_object_get(ap, "next_boot_code"));
	}
	/* without a known current value (only pending was said) the command names where to read it */
	fd->fix = hwc_fix_subst(c->a, fd->fix, "NAME=<current>",
				*revert ? revert : "NAME=VALUE` with each pending parameter's current value from `mstconfig -d <BDF> -e q");
	const struct hwc_finding *reg = *revert && afc ? pending_regression(c, ad, after) : NULL;
	if (reg) {
		fd->fix = hwc_arena_printf(c->a, "Do not apply it: booted with it, the card would draw %s (%s). "
					   "Revert it now with `mstconfig -d %s set %s`.", reg->rule_id, reg->message, bdf, revert);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config", fv_adapter_path(c, bdf)),
				 hwc_arena_printf(c->a, "booted with it: %s", reg->rule_id), "no new finding");
	}
	json_decref(after);
}

static void config_pending_card(struct hwc_rule_ctx *c, const json_t *ad, const char *bdf)
{
	const json_t *fc;
	if (!need_val(c, bdf, ad, fv_adapter_path(c, bdf), "fw_config", JSON_OBJECT, NULL, &fc))
		return;
	const char *k;
	json_t *p;
	struct hwc_finding *fd = NULL;
	size_t decided = 0;
	const char *undecided = NULL;
	json_object_foreach((json_t *)fc, k, p) {
		if (!json_is_object(p) || !strcmp(k, "unavailable"))
			continue;
		const json_t *cur = hwc_q_fw_col(p, "current"), *nb = hwc_q_fw_col(p, "next_boot");
		const json_t *pj = hwc_q_fw_col(p, "pending");
		bool both = cur && nb;
		if (json_is_boolean(pj) || both)
			decided++;
		else if (!undecided && nb)
			hwc_q_find(p, "pending", &pj, &undecided, c->a);
		bool pend = json_is_true(pj) || (both && !json_equal(cur, nb));
		if (!pend)
			continue;
		if (!fd) {
			fd = hwc_rule_emit(c, bdf, "firmware configuration changes wait for the next boot or firmware reset");
			fd->fix = hwc_arena_printf(c->a, "%s %s", hwc_fw_reset_advice(c->a, ad, NULL), fd->fix);
		}
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.%s.next_boot", fv_adapter_path(c, bdf), k),
				 vstr(nb), hwc_arena_printf(c->a, "== current (%s)", vstr(cur)));
	}
	if (fd)
		pending_fix(c, ad, fc, fd);
	/* an mstconfig that prints only the Next Boot column cannot show what is pending */
	if (!fd && !decided && undecided)
		hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "%s.fw_config.*.pending", fv_adapter_path(c, bdf)), undecided, NULL);
}

static void eval_config_pending(struct hwc_rule_ctx *c)
{
	hwc_each_adapter(c, config_pending_card);
}

static void eval_fw_reset_pending(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = bdf_of(ad);
		bool p;
		if (!need_bool(c, bdf, ad, fv_adapter_path(c, bdf), "fw_pending_reset", &p) || !p)
			continue;
		const char *run = hwc_q_string(ad, "fw_version");
		const char *st = hwc_q_string(ad, "fw_version_stored");
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "firmware %s is flashed but %s is still running: the update waits for a reset",
						       st ? st : "?", run ? run : "?");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_version_stored", fv_adapter_path(c, bdf)), st, run);
		fd->fix = hwc_fw_reset_advice(c->a, ad, NULL);
		/* the reset loads the new image: what it could put back to defaults is worth a look */
		hwc_fw_at_risk_evidence(c, fd, ad);
	}
}

static const char *group_key(const json_t *ad)
{
	const char *k = hwc_q_string(ad, "psid");
	return k ? k : hwc_q_string(ad, "device_id");
}

/* Per group (same PSID, else device id): its size, the distinct versions in the order they
 * first appear with how many cards run each, and the majority scan's result (the reference
 * version's count and whether another version ties it). Built once: each card's verdict is then
 * a lookup, not a count over every card (thousands of cards made this n^2 or worse). */
static json_t *fw_groups(const json_t *ads)
{
	json_t *g = json_object();
	size_t i, k;
	const json_t *ad, *v;
	json_array_foreach(ads, i, ad) {
		const char *key = group_key(ad), *fw = hwc_q_string(ad, "fw_version");
		if (!key)
			continue;
		json_t *e = json_object_get(g, key);
		if (!e)
			json_object_set_new(g, key, e = json_pack("{s:i, s:o, s:o}", "peers", 0, "count",
								   json_object(), "order", json_array()));
		json_object_set_new(e, "peers", json_integer(json_integer_value(hwc_q_get(e, "peers")) + 1));
		if (!fw)
			continue;
		json_t *cnt = json_object_get(e, "count");
		json_int_t n = json_integer_value(hwc_q_get(cnt, fw));
		if (!n)
			json_array_append_new(json_object_get(e, "order"), json_string(fw));
		json_object_set_new(cnt, fw, json_integer(n + 1));
	}
	/* the majority scan over each group's members in document order, as it always read: one
	 * pass over the cards, each updating its own group */
	json_array_foreach(ads, k, v) {
		const char *key = group_key(v), *ofw = hwc_q_string(v, "fw_version");
		json_t *e = key ? json_object_get(g, key) : NULL;
		const char *best = hwc_q_string(e, "best");
		if (!e || !ofw || (best && !strcmp(best, ofw)))
			continue;
		json_int_t cnt = json_integer_value(hwc_q_get(hwc_q_get(e, "count"), ofw));
		json_int_t best_n = json_integer_value(hwc_q_get(e, "best_n"));
		if (cnt > best_n) {
			json_object_set_new(e, "best", json_string(ofw));
			json_object_set_new(e, "best_n", json_integer(cnt));
			json_object_set_new(e, "ties", json_integer(0));
		} else if (cnt == best_n) {
			json_object_set_new(e, "ties", json_integer(json_integer_value(hwc_q_get(e, "ties")) + 1));
		}
	}
	return g;
}

static json_int_t fw_count(const json_t *grp, const char *fw)
{
	return fw ? json_integer_value(hwc_q_get(hwc_q_get(grp, "count"), fw)) : 0;
}

/* The most common version of the group other than fw (the first to appear on a tie). */
static const char *fw_other(const json_t *grp, const char *fw)
{
	const char *other = NULL;
	size_t i;
	const json_t *v;
	json_array_foreach(hwc_q_get(grp, "order"), i, v) {
		const char *ofw = json_string_value(v);
		if (strcmp(ofw, fw) != 0 && (!other || fw_count(grp, ofw) > fw_count(grp, other)))
			other = ofw;
	}
	return other;
}

static void eval_fw_mismatch(struct hwc_rule_ctx *c)
{
	const json_t *ads = hwc_q_adapters(c->facts);
	json_t *groups = fw_groups(ads);
	size_t i;
	const json_t *ad;
	json_array_foreach(ads, i, ad) {
		const char *key = group_key(ad), *fw = hwc_q_string(ad, "fw_version");
		const char *bdf = bdf_of(ad);
		const json_t *grp = hwc_q_get(groups, key);
		json_int_t peers = json_integer_value(hwc_q_get(grp, "peers"));
		if (!grp || peers < 2)
			continue;
		if (!fw) {
			need_str(c, bdf, ad, fv_adapter_path(c, bdf), "fw_version", &fw);
			continue;
		}
		/* the majority version of the group is the reference; with no majority every card
		 * that differs from another is named */
		json_int_t mine = fw_count(grp, fw), best_n = json_integer_value(hwc_q_get(grp, "best_n"));
		if (mine == peers || (mine == best_n && !json_integer_value(hwc_q_get(grp, "ties"))))
			continue;
		const char *other = fw_other(grp, fw);
		if (!other)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "runs firmware %s while %lld of the %lld identical cards (%s) run %s",
						       fw, (long long)fw_count(grp, other), (long long)peers, key, other);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_version", fv_adapter_path(c, bdf)), fw, other);
	}
	json_decref(groups);
}

static void eval_fw_allowed(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const json_t *allowed = hwc_profile_product_get(c->prof, ad, "allowed_fw");
		if (!json_is_array(allowed))
			continue;
		const char *bdf = bdf_of(ad), *fw;
		if (!need_str(c, bdf, ad, fv_adapter_path(c, bdf), "fw_version", &fw))
			continue;
		const char *list = hwc_fw_not_allowed(c, allowed, fw);
		if (!list)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "firmware %s is not in the profile's allowed list %s", fw, list);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_version", fv_adapter_path(c, bdf)), fw,
				 hwc_arena_printf(c->a, "one of %s", list));
	}
}

/* A card that enumerates with its flash recovery id (facts.mlx.adapters[].flash_recovery, from
 * the identity table): its firmware does not run. */
static void eval_flash_recovery(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = bdf_of(ad);
		bool rec;
		if (!need_bool(c, bdf, ad, fv_adapter_path(c, bdf), "flash_recovery", &rec) || !rec)
			continue;
		const char *prod = hwc_q_string(ad, "product"), *id = hwc_q_string(ad, "device_id");
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the card is in flash recovery (%s, PCI id 15b3:%s): its firmware "
						       "does not run, so it carries no traffic and nothing of it that the firmware "
						       "reports can be checked",
						       prod ? prod : "product unknown", id ? id : "unknown");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.flash_recovery", fv_adapter_path(c, bdf)), "true", "false");
		if (id)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.device_id", fv_adapter_path(c, bdf)), id,
					 "the product's own id");
	}
}

const struct hwc_rule hwc_rules_mlx[] = {
	{"MLX_FLASH_RECOVERY", HWC_SEV_ERROR, "mlx", "Card in flash recovery: no firmware runs",
	 "A ConnectX or BlueField whose firmware does not start (a failed or interrupted burn, a corrupt "
	 "or blank flash, or the board's flash-present pins jumpered on purpose) enumerates with its "
	 "chip's flash recovery (\"livefish\") PCI id instead of the product's: pci.ids names them "
	 "\"... Flash Recovery\" (15b3:020d is \"MT28800 Family [ConnectX-5 Flash Recovery]\", a "
	 "\"Memory controller\"), and mstflint takes a PCI id equal to the chip's hardware id as livefish "
	 "(dm_is_livefish_mode, dev_mgt/tools_dev_types.c). No driver binds it: the card has no netdev, "
	 "no RDMA device and no port, and no firmware tool can answer (hwcheck runs none on it). NVIDIA's "
	 "MFT manual (\"Booting HCA Device in Livefish Mode\") gives the remedy: re-burn the flash.",
	 "Burn the firmware image made for this board, then power-cycle: read what the flash still holds "
	 "(`mstflint -d <BDF> q`: the PSID, where it survived; else the board's label or OPN), get that "
	 "PSID's image from NVIDIA or the card's vendor, and `mstflint -d <BDF> -i <image.bin> burn` (a "
	 "blank flash needs `-nofs`, and the board's GUIDs and MACs, or `--use_image_ps "
	 "--ignore_dev_data` as public recoveries did); remove a recovery jumper if one is fitted; then "
	 "power the host off and on (a warm reboot keeps the card in recovery). A card that comes back in "
	 "flash recovery after a good burn has a faulty flash: replace it.",
	 eval_flash_recovery},
	{"MLX_WR_ORDERING_PER_MKEY", HWC_SEV_ERROR, "mlx", "PCI_WR_ORDERING not what the host's role needs",
	 "PCI_WR_ORDERING=per_mkey(0), the firmware default, makes the card use PCIe Relaxed Ordering only "
	 "for memory keys registered with IBV_ACCESS_RELAXED_ORDERING; force_relax(1) uses it for every "
	 "key. Which is right depends on the host's work. A storage or SMB client whose software does "
	 "not ask for Relaxed Ordering gets strictly ordered writes, which AMD root complexes serialise: "
	 "the seed of this rule is a Windows SMB client on an AMD workstation (Lenovo P620, "
	 "ConnectX-6) that read at about 2 GB/s until force_relax was set. GPU/NCCL compute asks for "
	 "Relaxed Ordering itself (NCCL_IB_PCI_RELAXED_ORDERING), so per_mkey costs it nothing: in a "
	 "real incident (public operator notes, two AMD EPYC 9754 nodes with four ConnectX-7 400G each) "
	 "the node whose four cards were all per_mkey reached 194 GB/s of multi-node NCCL, and the "
	 "node that was slow (53 GB/s) had one card at force_relax among three at per_mkey "
	 "(MLX_FW_CONFIG_INCONSISTENT). So the site decides: host.role storage_client or smb_client "
	 "makes per_mkey on an AMD host an error; gpu_compute accepts it; host.pci_wr_ordering names "
	 "the value every card must have on any CPU. With neither, per_mkey on AMD is reported once "
	 "per host at info, never as an error. Intel hosts are not affected.",
	 "`mstconfig -d <BDF> set PCI_WR_ORDERING=force_relax`, then reboot or `mstfwreset -d <BDF> reset` "
	 "(or declare the host's role in the profile, docs/profile.md).",
	 eval_wr_ordering},
	{"MLX_FW_CONFIG_INCONSISTENT", HWC_SEV_ERROR, "mlx", "Identical cards with different firmware performance settings",
	 "Cards of one product (same PSID, else part number) in one host should run the same "
	 "performance parameters of the firmware configuration: PCI_WR_ORDERING, ADVANCED_PCI_SETTINGS, "
	 "MAX_ACC_OUT_READ, PCI_ATOMIC_MODE, P2P_ORDERING_MODE, ATS_ENABLED, CQE_COMPRESSION, "
	 "INT_LOG_MAX_PAYLOAD_SIZE, ZERO_TOUCH_TUNING_ENABLE, PCI_BUS0_RESTRICT, PCI_BUS0_RESTRICT_SPEED, "
	 "PCI_BUS0_RESTRICT_WIDTH, PCI_BUS0_RESTRICT_ASPM, NUM_PF_MSIX, LOG_MAX_OUTSTANDING_WQE, "
	 "TX_SCHEDULER_BURST, ROCE_ADAPTIVE_ROUTING_EN, RDMA_SELECTIVE_REPEAT_EN. A collective runs at "
	 "the pace of its slowest card: in a real incident (public operator notes, two AMD EPYC 9754 "
	 "nodes, four ConnectX-7 400G each) the node with one card at PCI_WR_ORDERING force_relax and "
	 "three at per_mkey reached 53 GB/s of multi-node NCCL, the node with all four at per_mkey "
	 "194 GB/s, and aligning the outlier fixed it. The minority cards are named with the majority "
	 "value; on a tie every card is named and no value is preferred. A difference in "
	 "PCI_WR_ORDERING is an error, in the others a warning. `hwcheck merge` shows the same across "
	 "hosts.",
	 "`mstconfig -d <BDF> set NAME=VALUE` to the value of the other cards, then `mstfwreset -d <BDF> reset` or reboot.",
	 eval_fwc_inconsistent},
	{"MLX_SLOT_POWER_LIMITER", HWC_SEV_ERROR, "mlx", "Slot power limiter active with insufficient slot power",
	 "The firmware's slot power limiter keeps the card under the slot's advertised power (25 W "
	 "when nothing was advertised). When the card needs more (MPEIN pwr_status insufficient) it "
	 "throttles or powers its network modules down.",
	 "Use a slot that advertises enough power (BIOS update), or, if the slot is known to deliver it, "
	 "`mstconfig -d <BDF> set ADVANCED_POWER_SETTINGS=1 DISABLE_SLOT_POWER_LIMITER=1` and reboot.",
	 eval_power_limiter},
	{"MLX_CONFIG_PENDING", HWC_SEV_WARN, "mlx", "Firmware configuration pending the next boot",
	 "mlxconfig changes were written but are not active: the running card behaves as before, and "
	 "the next reboot will change it, perhaps unexpectedly.",
	 "Apply them with the reset the card needs (`mstfwreset -d <BDF> query` tells which), or revert with `mstconfig -d <BDF> set NAME=<current>`.",
	 eval_config_pending},
	{"MLX_FW_RESET_PENDING", HWC_SEV_WARN, "mlx", "Firmware update waiting for a reset",
	 "A new firmware image is on flash but the old one is still running.",
	 "The reset `mstfwreset -d <BDF> query` names: a synced firmware reset (`mstfwreset -d <BDF> -l 3 --sync 1 -y reset`), a PCIe link toggle with the driver reloaded (`-l 3`), or a cold boot when neither level 3 nor 4 is supported.",
	 eval_fw_reset_pending},
	{"MLX_FW_MISMATCH", HWC_SEV_WARN, "mlx", "Firmware versions differ between identical cards",
	 "Identical cards (same PSID) in one host running different firmware behave differently and "
	 "make problems hard to reproduce.",
	 "Update every card of the PSID to the same version: burn that version's image file with "
	 "`mstflint -d <BDF> -i` (image) `burn` (MFT's mlxfwmanager -u -d <BDF> fetches and burns it in one step).",
	 eval_fw_mismatch},
	{"MLX_FW_NOT_ALLOWED", HWC_SEV_WARN, "mlx", "Firmware not in the profile's allowed list",
	 "The site profile lists the firmware versions qualified for this product.",
	 "Install a qualified version (burn its image file with `mstflint -d <BDF> -i` (image) `burn`; "
	 "MFT's mlxfwmanager -u -d <BDF> fetches and burns it in one step), or add it to the profile.",
	 eval_fw_allowed},
	HWC_RULES_END,
};

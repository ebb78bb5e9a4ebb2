/* SPDX-License-Identifier: MIT */
/* hwcheck fw-plan [--fw-image FILE]: before a firmware change, per card: what runs and what is on
 * flash, whether the image fits (PSID, version, the profile's list), the settings a reset to
 * defaults would undo (and which of them a rule or the profile depends on), what is pending, and
 * the reset the card needs. Text or JSON (schema hwcheck.fwplan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"
#include "core/util.h"

/* Findings of the firmware rules only: the plan is about the change, not the whole host. */
static bool plan_rule(const char *id)
{
	return !strncmp(id, "MLX_FW_", 7) || !strcmp(id, "MLX_CONFIG_PENDING");
}

static const struct hwc_finding *finding_of(const struct hwc_findings *fd, const char *rule,
					    const char *bdf)
{
	for (size_t i = 0; i < fd->n; i++)
		if (!strcmp(fd->items[i].rule_id, rule) && fd->items[i].card &&
		    !strcmp(fd->items[i].card, bdf))
			return &fd->items[i];
	return NULL;
}

/* The image against this card, from the rules' findings. */
static json_t *image_verdict(const json_t *im, const json_t *ad, const struct hwc_findings *fd,
			     const char *bdf)
{
	if (!im || json_is_null(im)) /* no image given, or one that could not be read */
		return json_null();
	static const struct {
		const char *rule, *verdict;
	} order[] = {{"MLX_FW_IMAGE_PSID", "refused"},
		     {"MLX_FW_IMAGE_OLDER", "older"},
		     {"MLX_FW_IMAGE_NOT_ALLOWED", "not_allowed"}};
	for (size_t k = 0; k < HWC_ARRAY_SIZE(order); k++) {
		const struct hwc_finding *f = finding_of(fd, order[k].rule, bdf);
		if (f)
			return json_pack("{s:s, s:s}", "verdict",
					 f->severity == HWC_SEV_UNKNOWN ? "unknown" : order[k].verdict,
					 "reason", f->message);
	}
	char why[256];
	snprintf(why, sizeof(why), "same PSID (%s); image %s, running %s: not older; allowed by the profile",
		 hwc_json_str_or(im, "psid", "?"), hwc_json_str_or(im, "fw_version", "?"),
		 hwc_json_str_or(ad, "fw_version", "?"));
	return json_pack("{s:s, s:s}", "verdict", "ok", "reason", why);
}

/* fw_at_risk with the profile's intended value of each (null when the profile names none). */
static json_t *at_risk(const json_t *ad, const json_t *intent)
{
	const json_t *list = hwc_q_get(ad, "fw_at_risk");
	if (!json_is_array(list))
		return json_null();
	json_t *out = json_array();
	size_t i;
	const json_t *p;
	json_array_foreach(list, i, p) {
		json_t *q = json_deep_copy(p);
		const json_t *want = hwc_q_get(intent, hwc_q_string(p, "name"));
		json_object_set_new(q, "profile", want ? json_deep_copy(want) : json_null());
		json_array_append_new(out, q);
	}
	return out;
}

/* Why fw_at_risk is unknown (its unavailable detail), NULL when it is known. */
static const char *risk_why(const json_t *ad)
{
	if (json_is_array(hwc_q_get(ad, "fw_at_risk")))
		return NULL;
	const json_t *u = hwc_q_unavailable(ad, "fw_at_risk");
	const char *d = hwc_q_string(u, "detail");
	return d ? d : hwc_json_str_or(u, "status", "not collected");
}

/* "mstconfig -d BDF -y set NAME=CODE ..." that puts every at-risk value back as it is now (the
 * enum code when mstconfig printed one); NULL when nothing is at risk. */
static const char *restore_cmd(const json_t *ad, const char *bdf, struct hwc_arena *a)
{
	const char *out = NULL;
	size_t i;
	const json_t *p;
	json_array_foreach(hwc_q_get(ad, "fw_at_risk"), i, p) {
		const char *name = hwc_q_string(p, "name");
		const json_t *code = hwc_q_fw_value(ad, name, "current_code");
		const json_t *v = json_is_integer(code) ? code : hwc_q_get(p, "current");
		if (!name || !v)
			continue;
		char vs[96];
		hwc_diff_fmt_value(vs, sizeof(vs), v);
		out = hwc_arena_printf(a, "%s %s=%s", out ? out : hwc_arena_printf(a, "mstconfig -d %s -y set", bdf),
				       name, vs);
	}
	return out;
}

static json_t *pending_of(const json_t *ad)
{
	json_t *out = json_array();
	const char *name;
	json_t *p;
	json_object_foreach((json_t *)hwc_q_fw_config(ad), name, p) {
		const json_t *cur = hwc_q_get(p, "current"), *nb = hwc_q_get(p, "next_boot");
		if (cur && nb && !json_equal(cur, nb))
			json_array_append_new(out, json_string(name));
	}
	return out;
}

static json_t *card_plan(const json_t *ad, const json_t *im, const struct hwc_findings *fd,
			 const struct hwc_profile *prof, struct hwc_arena *a)
{
	const char *bdf = hwc_q_string(ad, "bdf");
	json_t *ids = json_array();
	for (size_t i = 0; i < fd->n; i++)
		if (plan_rule(fd->items[i].rule_id) && fd->items[i].card && bdf &&
		    !strcmp(fd->items[i].card, bdf))
			json_array_append_new(ids, json_pack("{s:s, s:s, s:s?}", "rule", fd->items[i].rule_id,
							     "severity", hwc_severity_name(fd->items[i].severity),
							     "message", fd->items[i].message));
	json_t *pend = pending_of(ad);
	bool reset = json_is_true(hwc_q_get(ad, "fw_pending_reset")) || json_array_size(pend) > 0;
	json_t *levels = json_null();
	if (hwc_q_fw_reset(ad)) {
		levels = json_array();
		size_t i;
		const json_t *l;
		json_array_foreach(hwc_q_get(hwc_q_fw_reset(ad), "levels"), i, l)
			if (json_is_true(hwc_q_get(l, "supported")))
				json_array_append_new(levels, json_deep_copy(hwc_q_get(l, "level")));
	}
	return json_pack("{s:s?, s:O?, s:O?, s:O?, s:O?, s:O?, s:o, s:o, s:s?, s:O?, s:s?, s:o, "
			 "s:{s:b, s:o, s:s}, s:o}",
			 "bdf", bdf, "product", hwc_q_get(ad, "product"), "psid", hwc_q_get(ad, "psid"),
			 "fw_running", hwc_q_get(ad, "fw_version"), "fw_stored",
			 hwc_q_get(ad, "fw_version_stored"), "fw_pending_reset",
			 hwc_q_get(ad, "fw_pending_reset"), "image", image_verdict(im, ad, fd, bdf ? bdf : ""),
			 "at_risk", at_risk(ad, hwc_profile_fw_intent(prof, ad)), "at_risk_unknown",
			 risk_why(ad), "fw_config_complete", hwc_q_get(ad, "fw_config_complete"),
			 "restore", bdf ? restore_cmd(ad, bdf, a) : NULL, "pending", pend, "reset",
			 "needed", reset, "levels_supported", levels, "advice",
			 hwc_fw_reset_advice(a, ad, bdf), "findings", ids);
}

static void render_risk(FILE *out, const json_t *card)
{
	const json_t *risk = hwc_q_get(card, "at_risk");
	if (!json_is_array(risk)) {
		fprintf(out, "  at risk: unknown (%s)\n", hwc_json_str_or(card, "at_risk_unknown", "?"));
		return;
	}
	fprintf(out, "  at risk (not the default: a reset to defaults or an update may undo): %s\n",
		json_array_size(risk) ? "" : "none");
	size_t i;
	const json_t *p;
	json_array_foreach(risk, i, p) {
		char cur[96], def[96], nb[96];
		hwc_diff_fmt_value(cur, sizeof(cur), hwc_q_get(p, "current"));
		hwc_diff_fmt_value(def, sizeof(def), hwc_q_get(p, "default"));
		hwc_diff_fmt_value(nb, sizeof(nb), hwc_q_get(p, "next_boot"));
		const char *dep = hwc_q_string(p, "depends_on");
		fprintf(out, "    %-32s current %s, next boot %s, default %s%s%s%s%s\n",
			hwc_json_str_or(p, "name", "?"), cur, nb, def, dep ? "  [" : "", dep ? dep : "",
			dep ? "]" : "", hwc_q_get(p, "profile") ? "  [profile]" : "");
	}
	if (json_is_false(hwc_q_get(card, "fw_config_complete")))
		fputs("    (the mstconfig listing was incomplete: more may differ)\n", out);
	const char *rs = hwc_json_str_or(card, "restore", NULL);
	if (rs)
		fprintf(out, "  if an update or a reset undoes them: %s\n", rs);
}

static void render_text(FILE *out, const json_t *plan)
{
	const json_t *im = hwc_q_get(plan, "image");
	if (json_is_object(im))
		fprintf(out, "image %s: firmware %s, PSID %s\n", hwc_json_str_or(im, "file", "?"),
			hwc_json_str_or(im, "fw_version", "unknown"), hwc_json_str_or(im, "psid", "unknown"));
	size_t i;
	const json_t *c;
	json_array_foreach(hwc_q_get(plan, "cards"), i, c) {
		fprintf(out, "\ncard %s %s PSID %s: firmware %s (flash %s)\n", hwc_json_str_or(c, "bdf", "?"),
			hwc_json_str_or(c, "product", "?"), hwc_json_str_or(c, "psid", "unknown"),
			hwc_json_str_or(c, "fw_running", "unknown"), hwc_json_str_or(c, "fw_stored", "unknown"));
		const json_t *v = hwc_q_get(c, "image");
		if (json_is_object(v))
			fprintf(out, "  image: %s: %s\n", hwc_json_str_or(v, "verdict", "?"),
				hwc_json_str_or(v, "reason", ""));
		render_risk(out, c);
		const json_t *pend = hwc_q_get(c, "pending");
		fprintf(out, "  pending for the next boot:%s", json_array_size(pend) ? "" : " none");
		size_t k;
		const json_t *n;
		json_array_foreach(pend, k, n) fprintf(out, " %s", json_string_value(n));
		const json_t *r = hwc_q_get(c, "reset");
		fprintf(out, "\n  reset%s: %s\n", json_is_true(hwc_q_get(r, "needed")) ? " (needed now)" : "",
			hwc_json_str_or(r, "advice", "?"));
	}
}

static json_t *image_json(const json_t *facts)
{
	const json_t *im = hwc_q_fw_image(facts);
	return im ? json_deep_copy(im) : json_null();
}

int hwc_cmd_fwplan(struct hwc_cli *c)
{
	struct hwc_cli_run r;
	int rc = hwc_cli_begin(c, "fw-plan", true, &r);
	if (rc)
		return rc;
	const struct hwc_profile *prof = r.prof;
	const json_t *facts = r.facts;
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_findings fd = {0};
	if (!a) {
		hwc_cli_err("fw-plan: out of memory");
		rc = HWC_EXIT_INTERNAL;
		goto out;
	}
	if (r.nothing) {
		hwc_render_errors(r.f);
		hwc_cli_err_nothing(c);
		rc = HWC_EXIT_NOTHING;
		goto out;
	}
	hwc_rules_eval(facts, prof, a, &fd);
	json_t *cards = json_array();
	const json_t *ad;
	size_t i;
	json_array_foreach(hwc_q_adapters(facts), i, ad)
		json_array_append_new(cards, card_plan(ad, hwc_q_fw_image(facts), &fd, prof, a));
	json_t *plan = json_pack("{s:s, s:i, s:{s:s, s:s}, s:o, s:o}", "schema", "hwcheck.fwplan",
				 "schema_version", 1, "tool", "name", "hwcheck", "version", HWCHECK_VERSION,
				 "image", image_json(facts), "cards", cards);
	hwc_render_errors(r.f);
	if (c->json)
		rc = hwc_emit_json(c, plan);
	else
		render_text(stdout, plan);
	json_decref(plan);
	for (size_t k = 0; !rc && k < fd.n; k++)
		if (plan_rule(fd.items[k].rule_id) && !fd.items[k].waived_reason &&
		    hwc_fail_on_hit(c->fail_on, (int)fd.items[k].severity))
			rc = HWC_EXIT_FINDINGS;
out:
	hwc_arena_free(a);
	hwc_cli_end(&r);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* Firmware changes: a candidate image (--fw-image) against each card, the reset a pending change
 * needs (from `mstfwreset query`), and the configuration a reset to defaults would undo. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules-int.h"

static const char *bdf_of(const json_t *ad)
{
	return hwc_q_string(ad, "bdf");
}

/* A config value for a message: "force_relax", "8", "?" when unknown. */
static const char *val_text(struct hwc_arena *a, const json_t *v)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		return hwc_arena_printf(a, "%lld", (long long)json_integer_value(v));
	return json_is_true(v) ? "True" : json_is_false(v) ? "False" : "?";
}

/* ---- the reset a card needs ----------------------------------------------------------------- */

/* Whether `mstfwreset query` listed option num of the list as supported. */
static bool reset_supported(const json_t *list, const char *key, long long num)
{
	size_t i;
	const json_t *o;
	json_array_foreach(list, i, o)
		if (json_integer_value(hwc_q_get(o, key)) == num)
			return json_is_true(hwc_q_get(o, "supported"));
	return false;
}

static bool is_bluefield(const json_t *ad)
{
	const char *g = hwc_q_string(ad, "generation");
	return g && !strncmp(g, "BlueField", 9);
}

const char *hwc_fw_reset_advice(struct hwc_arena *a, const json_t *ad, const char *bdf)
{
	const char *dev = bdf ? bdf : "<BDF>";
	const json_t *r = hwc_q_fw_reset(ad);
	const char *bf = is_bluefield(ad) ? " A BlueField in DPU mode keeps its firmware across a host "
					    "reboot: power-cycle the host." : "";
	const json_t *un = hwc_q_unavailable(ad, "fw_reset");
	if (!r && un && !strcmp(hwc_q_string(un, "status") ? hwc_q_string(un, "status") : "", "unsupported"))
		return hwc_arena_printf(a, "mstfwreset cannot tell which reset this card needs (%s). A cold "
					   "boot (power off) always applies; a warm reboot does not on every "
					   "card and host.%s",
					hwc_q_string(un, "detail") ? hwc_q_string(un, "detail") : "not run", bf);
	if (!r)
		return hwc_arena_printf(a, "`mstfwreset -d %s query` tells which reset this card and "
					   "host support (it was not read). A cold boot (power off) "
					   "always applies; a warm reboot does not on every card and host.%s",
					dev, bf);
	const json_t *lv = hwc_q_get(r, "levels"), *sy = hwc_q_get(r, "sync");
	bool l3 = reset_supported(lv, "level", 3), l4 = reset_supported(lv, "level", 4);
	const char *how;
	if (l3 && reset_supported(sy, "sync", 1))
		how = hwc_arena_printf(a, "a synced firmware reset (the mlx5 driver resets the card with "
					  "all its functions and hosts): `mstfwreset -d %s -l 3 --sync 1 -y reset`",
				       dev);
	else if (l3)
		how = hwc_arena_printf(a, "a PCIe link toggle with the driver reloaded (mstfwreset stops "
					  "mlx5_core, resets the card and its link, starts the driver): "
					  "`mstfwreset -d %s -l 3 -y reset`",
				       dev);
	else if (l4)
		how = "a warm reboot of the host (mstfwreset query: reset level 3 not supported, "
		      "level 4 Warm Reboot supported)";
	else
		how = "a cold boot (power-cycle the host): mstfwreset query lists neither reset level 3 "
		      "nor level 4 (Warm Reboot) as supported";
	const char *warm = l4 ? "" : " A warm reboot will not do: mstfwreset query lists level 4 "
				     "(Warm Reboot) as not supported.";
	return hwc_arena_printf(a, "The reset this card needs: %s.%s%s", how, warm, bf);
}

/* ---- the image ------------------------------------------------------------------------------ */

/* "14.32.1912" against "14.32.1900": <0, 0, >0 by numeric components; 2 when not comparable. */
static int cmp_version(const char *x, const char *y)
{
	while (*x && *y) {
		char *ex, *ey;
		unsigned long a = strtoul(x, &ex, 10), b = strtoul(y, &ey, 10);
		if (ex == x || ey == y)
			return 2;
		if (a != b)
			return a < b ? -1 : 1;
		x = *ex == '.' ? ex + 1 : ex;
		y = *ey == '.' ? ey + 1 : ey;
		if ((*ex && *ex != '.') || (*ey && *ey != '.'))
			return 2;
	}
	return *x ? 1 : *y ? -1 : 0;
}

/* The image as the facts hold it, or NULL when none was given (then the image rules are silent). */
static const json_t *image_of(const json_t *facts)
{
	return hwc_q_fw_image(facts);
}

/* The image's value, or an unknown finding for every card and NULL. */
static const char *image_str(struct hwc_rule_ctx *c, const json_t *im, const char *key,
			     const char *bdf)
{
	const char *v, *why;
	if (hwc_q_find_str(im, key, &v, &why, c->a))
		return v;
	hwc_rule_unknown(c, bdf, hwc_arena_printf(c->a, "mlx.fw_image.%s", key), why,
			 "checking the image against the card");
	return NULL;
}

/* With an image given, each card with the image to judge against it. */
static void each_image_card(struct hwc_rule_ctx *c,
			    void (*judge)(struct hwc_rule_ctx *c, const json_t *im, const json_t *ad, const char *bdf))
{
	const json_t *im = image_of(c->facts), *ad;
	size_t i;
	if (!im)
		return;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad)
		judge(c, im, ad, bdf_of(ad));
}

static void image_psid(struct hwc_rule_ctx *c, const json_t *im, const json_t *ad, const char *bdf)
{
	const char *ip, *cp;
	if (!(ip = image_str(c, im, "psid", bdf)) ||
	    !need_str(c, bdf, ad, fv_adapter_path(c, bdf), "psid", &cp) || !strcmp(ip, cp))
		return;
	const char *file = hwc_q_string(im, "file");
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, "the image %s is for PSID %s, this card is %s: flashing it would need "
			"-allow_psid_change and could leave the card with another board's "
			"settings; refuse it",
		file ? file : "?", ip, cp);
	hwc_evidence_add(fd, c->a, "mlx.fw_image.psid", ip, cp);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.psid", fv_adapter_path(c, bdf)), cp, NULL);
}

static void eval_image_psid(struct hwc_rule_ctx *c)
{
	each_image_card(c, image_psid);
}

static void image_older(struct hwc_rule_ctx *c, const json_t *im, const json_t *ad, const char *bdf)
{
	const char *iv, *run;
	if (!(iv = image_str(c, im, "fw_version", bdf)) ||
	    !need_str(c, bdf, ad, fv_adapter_path(c, bdf), "fw_version", &run))
		return;
	const char *ip = hwc_q_string(im, "psid");
	const char *cp = hwc_q_string(ad, "psid");
	if (ip && cp && strcmp(ip, cp) != 0)
		return; /* another board's image: MLX_FW_IMAGE_PSID says so */
	int k = cmp_version(iv, run);
	if (k >= 0 && k != 2)
		return;
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, k == 2 ? "the image's firmware %s cannot be compared with the running %s"
			       : "the image's firmware %s is older than the running %s: a downgrade",
		iv, run);
	hwc_evidence_add(fd, c->a, "mlx.fw_image.fw_version", iv,
			 hwc_arena_printf(c->a, ">= %s", run));
}

static void eval_image_older(struct hwc_rule_ctx *c)
{
	each_image_card(c, image_older);
}

const char *hwc_fw_not_allowed(struct hwc_rule_ctx *c, const json_t *allowed, const char *fw)
{
	size_t k;
	const json_t *e;
	json_array_foreach(allowed, k, e)
		if (json_string_value(e) && !strcmp(json_string_value(e), fw))
			return NULL;
	char *list = json_dumps(allowed, JSON_COMPACT);
	const char *out = hwc_arena_strdup(c->a, list ? list : "[]");
	free(list);
	return out;
}

static void image_allowed(struct hwc_rule_ctx *c, const json_t *im, const json_t *ad, const char *bdf)
{
	const json_t *allowed = hwc_profile_product_get(c->prof, ad, "allowed_fw");
	const char *iv;
	if (!json_is_array(allowed) || !(iv = image_str(c, im, "fw_version", bdf)))
		return;
	const char *list = hwc_fw_not_allowed(c, allowed, iv);
	if (!list)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the image's firmware %s is not in the profile's allowed list %s",
					       iv, list);
	hwc_evidence_add(fd, c->a, "mlx.fw_image.fw_version", iv, hwc_arena_printf(c->a, "one of %s", list));
}

static void eval_image_allowed(struct hwc_rule_ctx *c)
{
	each_image_card(c, image_allowed);
}

/* ---- the configuration a flash may undo ------------------------------------------------------ */

size_t hwc_fw_at_risk_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const json_t *ad)
{
	const json_t *p;
	size_t k, n = 0;
	const char *base = fv_adapter_path(c, bdf_of(ad));
	json_array_foreach(hwc_q_get(ad, "fw_at_risk"), k, p) {
		const char *dep = hwc_q_string(p, "depends_on");
		const char *name = hwc_q_string(p, "name");
		if (!dep || !name)
			continue;
		n++;
		if (fd)
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.%s.current", base, name),
					 hwc_arena_printf(c->a, "%s (default %s; %s)",
							  val_text(c->a, hwc_q_get(p, "current")),
							  val_text(c->a, hwc_q_get(p, "default")), dep),
					 "the same after the update");
	}
	return n;
}

/* " NAME=CODE ..." of the at-risk parameters a rule depends on, as they are now (the enum code when
 * mstconfig printed one: mstconfig set takes it on every version). */
static const char *set_args(struct hwc_rule_ctx *c, const json_t *ad)
{
	const json_t *p;
	size_t k;
	const char *out = "";
	json_array_foreach(hwc_q_get(ad, "fw_at_risk"), k, p) {
		const char *name = hwc_q_string(p, "name");
		if (!name || !hwc_q_string(p, "depends_on"))
			continue;
		const json_t *code = hwc_q_fw_value(ad, name, "current_code");
		const json_t *cur = hwc_q_get(p, "current");
		out = hwc_arena_printf(c->a, "%s %s=%s", out, name,
				       json_is_integer(code) ? val_text(c->a, code) : val_text(c->a, cur));
	}
	return out;
}

/* With an image to flash: the card's settings that differ from their defaults and that hwcheck
 * judges with, so that the operator checks them after the update (hwcheck diff). */
static void eval_at_risk(struct hwc_rule_ctx *c)
{
	const json_t *ad;
	size_t i;
	if (!image_of(c->facts))
		return;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = bdf_of(ad);
		const json_t *list;
		if (!need_val(c, bdf, ad, fv_adapter_path(c, bdf), "fw_at_risk", -1, "what the update could undo", &list))
			continue;
		if (!hwc_fw_at_risk_evidence(c, NULL, ad))
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "settings that differ from their defaults and matter to "
							   "hwcheck's verdicts: check them after the update "
							   "(`hwcheck diff BASELINE`)");
		hwc_fw_at_risk_evidence(c, fd, ad);
		fd->fix = hwc_arena_printf(c->a, "Capture a baseline (`hwcheck snapshot -o before.tar`); after the "
					   "update run `hwcheck diff before.tar`, and restore what was lost with "
					   "`mstconfig -d <BDF> -y set%s` and the reset the card needs.",
					   set_args(c, ad));
	}
}

/* Does the value (name or number, with its code) equal the profile's intended value? */
static bool intended(const json_t *p, const char *col, const json_t *want)
{
	const json_t *v = hwc_q_fw_col(p, col);
	char code[32];
	snprintf(code, sizeof(code), "%s_code", col);
	const json_t *c = hwc_q_fw_col(p, code);
	return (v && json_equal(v, want)) || (c && json_equal(c, want));
}

static void intent_one(struct hwc_rule_ctx *c, const json_t *ad, const char *name, const json_t *want)
{
	const char *bdf = bdf_of(ad);
	const json_t *p;
	const char *path = hwc_arena_printf(c->a, "%s.fw_config.%s", fv_adapter_path(c, bdf), name);
	if (!need_val(c, bdf, ad, fv_adapter_path(c, bdf), hwc_arena_printf(c->a, "fw_config.%s", name), JSON_OBJECT,
		      "the profile's intended configuration", &p))
		return;
	bool cur = intended(p, "current", want), nb = intended(p, "next_boot", want);
	if (cur && nb)
		return;
	const char *w = val_text(c->a, want);
	struct hwc_finding *fd = hwc_rule_emit(
		c, bdf, nb ? "%s is configured as the profile intends (%s) but not active: current %s"
			   : "%s is not what the profile intends (%s): current %s, next boot %s",
		name, w, val_text(c->a, hwc_q_get(p, "current")),
		val_text(c->a, hwc_q_fw_col(p, "next_boot")));
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.current", path),
			 val_text(c->a, hwc_q_fw_col(p, "current")), w);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.next_boot", path),
			 val_text(c->a, hwc_q_fw_col(p, "next_boot")), w);
	fd->fix = nb ? hwc_fw_reset_advice(c->a, ad, NULL)
		     : hwc_arena_printf(c->a, "`mstconfig -d <BDF> -y set %s=%s`, then: %s", name, w,
					hwc_fw_reset_advice(c->a, ad, NULL));
}

static void eval_intent(struct hwc_rule_ctx *c)
{
	const json_t *ad;
	size_t i;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const json_t *want = hwc_profile_fw_intent(c->prof, ad), *v;
		const char *name;
		json_object_foreach((json_t *)want, name, v) intent_one(c, ad, name, v);
	}
}

const struct hwc_rule hwc_rules_fw[] = {
	{"MLX_FW_IMAGE_PSID", HWC_SEV_ERROR, "mlx", "Firmware image for another board (PSID)",
	 "The PSID names the board a firmware image is built for (its configuration defaults, "
	 "power and port settings). mstflint refuses an image of another PSID unless forced with "
	 "-allow_psid_change; a forced cross-flash makes the card another board.",
	 "Use the image of the card's own PSID (`mstflint -d <BDF> q` shows it; the download page "
	 "lists images by PSID).",
	 eval_image_psid},
	{"MLX_FW_IMAGE_OLDER", HWC_SEV_WARN, "mlx", "Firmware image older than the running firmware",
	 "Flashing an older image is a downgrade: fixes and configuration parameters of the running "
	 "release are lost, and the configuration may be read differently.",
	 "Use an image at least as new as the running firmware, or confirm the downgrade is intended.",
	 eval_image_older},
	{"MLX_FW_IMAGE_NOT_ALLOWED", HWC_SEV_WARN, "mlx", "Firmware image not in the profile's allowed list",
	 "The site profile lists the firmware versions qualified for this product; the image to be "
	 "flashed is not one of them.",
	 "Use a qualified image, or add its version to the profile's allowed_fw.",
	 eval_image_allowed},
	{"MLX_FW_CONFIG_AT_RISK", HWC_SEV_INFO, "mlx", "Non-default settings a firmware update may undo",
	 "A firmware update or a reset of the configuration (`mstconfig reset`) puts parameters "
	 "back to their defaults; operators have found PCI_WR_ORDERING back at per_mkey after an "
	 "update. These settings differ from their defaults and a rule depends on them.",
	 "Capture a baseline (`hwcheck snapshot -o before.tar`) and after the update run "
	 "`hwcheck diff before.tar`; restore a lost value with `mstconfig -d <BDF> set NAME=VALUE`.",
	 eval_at_risk},
	{"MLX_FW_CONFIG_NOT_INTENDED", HWC_SEV_WARN, "mlx", "Firmware configuration differs from the profile's intent",
	 "The site profile names the intended value of firmware parameters (products[].fw_config). A "
	 "value that differs was never set, or a firmware update or a reset to defaults undid it; a "
	 "next-boot value that matches while the current one does not is configured but not active.",
	 "`mstconfig -d <BDF> -y set NAME=VALUE` with the profile's value, then the reset the card needs (`mstfwreset -d <BDF> query`).",
	 eval_intent},
	HWC_RULES_END,
};

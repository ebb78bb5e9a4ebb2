/* SPDX-License-Identifier: MIT */
/* Site profiles: loading, validation with file:line:column and the JSON path of a bad value,
 * and the accessors rules use. The default is rules/default-profile.json, compiled in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/scan.h"
#include "core/textenc.h"
#include "rules/rules-int.h"

struct hwc_profile {
	json_t *doc;
	double thr[HWC_T_COUNT];
	/* per table rule: -1 = table default, 0..2 = severity override; enabled flag */
	signed char sev[160];
	bool off[160];
};

/* The one-value keys: thresholds, host and roce settings (rules/profile-keys.h). */
static const struct hwc_profile_key settings[HWC_T_COUNT] = {HWC_PROFILE_KEYS(HWC_PK_ROW)};

/* The compiled-in default (generated from rules/default-profile.json by rules/CMakeLists.txt). */
static const char default_text[] = {
#include "default-profile.inc"
	0};

/* ------------------------------------------------------------------ locating a JSON path */

/* A tiny JSON scanner that only tracks positions, so a semantic error can name the line and
 * column of the offending value (jansson keeps none after parsing). */
struct scan {
	const char *s, *end;
	int line, col;
};

static void adv(struct scan *sc)
{
	if (sc->s >= sc->end)
		return;
	if (*sc->s == '\n') {
		sc->line++;
		sc->col = 1;
	} else if (((unsigned char)*sc->s & 0xc0) != 0x80) {
		sc->col++;
	}
	sc->s++;
}

static void ws(struct scan *sc)
{
	while (sc->s < sc->end && strchr(" \t\r\n", *sc->s))
		adv(sc);
}

/* Reads a string token into key (truncated); returns 0 or -1. */
static int str_tok(struct scan *sc, char *key, size_t ksz)
{
	size_t k = 0;
	if (sc->s >= sc->end || *sc->s != '"')
		return -1;
	adv(sc);
	while (sc->s < sc->end && *sc->s != '"') {
		if (*sc->s == '\\')
			adv(sc);
		else if (key && k + 1 < ksz)
			key[k++] = *sc->s;
		adv(sc);
	}
	if (key && ksz)
		key[k] = 0;
	if (sc->s >= sc->end)
		return -1;
	adv(sc);
	return 0;
}

static int skip_value(struct scan *sc, int depth);

static int skip_value(struct scan *sc, int depth)
{
	ws(sc);
	if (sc->s >= sc->end || depth > 64)
		return -1;
	char ch = *sc->s;
	if (ch == '"')
		return str_tok(sc, NULL, 0);
	if (ch == '{' || ch == '[') {
		char close = ch == '{' ? '}' : ']';
		adv(sc);
		ws(sc);
		if (sc->s < sc->end && *sc->s == close) {
			adv(sc);
			return 0;
		}
		for (;;) {
			if (ch == '{') {
				ws(sc);
				if (str_tok(sc, NULL, 0) < 0)
					return -1;
				ws(sc);
				if (sc->s >= sc->end || *sc->s != ':')
					return -1;
				adv(sc);
			}
			if (skip_value(sc, depth + 1) < 0)
				return -1;
			ws(sc);
			if (sc->s >= sc->end)
				return -1;
			if (*sc->s == ',') {
				adv(sc);
				continue;
			}
			if (*sc->s == close) {
				adv(sc);
				return 0;
			}
			return -1;
		}
	}
	while (sc->s < sc->end && !strchr(",]} \t\r\n", *sc->s))
		adv(sc);
	return 0;
}

/* ch after optional white space, stepped over: 0, or -1 when the text has another. */
static int expect_ch(struct scan *sc, char ch)
{
	ws(sc);
	if (sc->s >= sc->end || *sc->s != ch)
		return -1;
	adv(sc);
	return 0;
}

/* Path segments: keys, or "#N" for array index N. Leaves sc at the value. */
static int locate(struct scan *sc, const char *const *seg, int nseg)
{
	for (int i = 0; i < nseg; i++) {
		ws(sc);
		if (sc->s >= sc->end)
			return -1;
		if (seg[i][0] == '#') {
			long want = strtol(seg[i] + 1, NULL, 10);
			if (*sc->s != '[')
				return -1;
			adv(sc);
			for (long k = 0; k < want; k++)
				if (skip_value(sc, 0) < 0 || expect_ch(sc, ',') < 0)
					return -1;
			continue;
		}
		if (*sc->s != '{')
			return -1;
		adv(sc);
		for (;;) {
			char key[256];
			ws(sc);
			if (str_tok(sc, key, sizeof(key)) < 0 || expect_ch(sc, ':') < 0)
				return -1;
			if (strcmp(key, seg[i]) == 0)
				break;
			if (skip_value(sc, 0) < 0 || expect_ch(sc, ',') < 0)
				return -1;
		}
	}
	ws(sc);
	return 0;
}

/* ------------------------------------------------------------------ validation */

struct vctx {
	const char *name, *buf;
	size_t len;
	char *err;
	size_t errsz;
	const char *seg[8];
	char segbuf[8][32];
	int nseg;
	int failed;
};

static void push(struct vctx *v, const char *key)
{
	if (v->nseg < 8)
		v->seg[v->nseg] = key;
	v->nseg++;
}

static void push_idx(struct vctx *v, size_t i)
{
	if (v->nseg < 8) {
		snprintf(v->segbuf[v->nseg], sizeof(v->segbuf[0]), "#%zu", i);
		v->seg[v->nseg] = v->segbuf[v->nseg];
	}
	v->nseg++;
}

static void pop(struct vctx *v)
{
	v->nseg--;
}

static void verr(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void verr(struct vctx *v, const char *fmt, ...)
{
	if (v->failed++)
		return;
	struct scan sc = {v->buf, v->buf + v->len, 1, 1};
	int n = v->nseg < 8 ? v->nseg : 8;
	int line = 0, col = 0;
	if (locate(&sc, v->seg, n) == 0) {
		line = sc.line;
		col = sc.col;
	}
	char path[256] = "";
	size_t pl = 0;
	for (int i = 0; i < n && pl < sizeof(path); i++) {
		int w = v->seg[i][0] == '#' ? snprintf(path + pl, sizeof(path) - pl, "[%s]", v->seg[i] + 1)
					     : snprintf(path + pl, sizeof(path) - pl, "%s%s", i ? "." : "",
							v->seg[i]);
		if (w < 0)
			break;
		pl += (size_t)w;
	}
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(v->err, v->errsz, "%s:%d:%d: %s%s%s", v->name, line, col, path, *path ? ": " : "", msg);
	else
		snprintf(v->err, v->errsz, "%s: %s%s%s", v->name, path, *path ? ": " : "", msg);
}

/* o[key], when present, must be a number ('n') or a string ('s'). */
static void v_opt(struct vctx *v, const json_t *o, const char *key, char kind)
{
	const json_t *x = json_object_get(o, key);
	if (!x || (kind == 'n' ? json_is_number(x) : json_is_string(x)))
		return;
	push(v, key);
	verr(v, kind == 'n' ? "expected a number" : "expected a string");
	pop(v);
}

/* Whether o is an object; msg is the error when it is not. */
static bool v_is_object(struct vctx *v, const json_t *o, const char *msg)
{
	if (!json_is_object(o))
		verr(v, "%s", msg);
	return json_is_object(o);
}

static bool check_keys(struct vctx *v, const json_t *o, const char *const *allowed, const char *what)
{
	const char *k;
	json_t *x;
	char msg[160];
	snprintf(msg, sizeof(msg), "expected an object (%s)", what);
	if (!v_is_object(v, o, msg))
		return false;
	json_object_foreach((json_t *)o, k, x) {
		bool ok = false;
		for (int i = 0; allowed[i]; i++)
			if (strcmp(k, allowed[i]) == 0)
				ok = true;
		if (!ok) {
			push(v, k);
			char list[512] = "";
			size_t l = 0;
			for (int i = 0; allowed[i] && l < sizeof(list); i++) {
				int w = snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", allowed[i]);
				if (w < 0)
					break;
				l += (size_t)w;
			}
			verr(v, "unknown key \"%s\" in %s (expected one of: %s)", k, what, list);
			pop(v);
			return false;
		}
	}
	return true;
}

static bool id_ok(const char *s)
{
	if (!s || !(s[0] >= 'A' && s[0] <= 'Z') || strlen(s) < 2 || strlen(s) > 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static bool date_ok(const char *s)
{
	int y, m, d;
	char tail;
	if (!s || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3)
		return false;
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (y < 2000 || y > 9999 || m < 1 || m > 12 || s[4] != '-' || s[7] != '-')
		return false;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	/* a day the calendar has: 2099-02-31 would never come, and never expire */
	return d >= 1 && d <= mdays[m - 1] + (m == 2 && leap);
}

/* A fact path the walker (core/query.c) can evaluate: KEY or KEY[] joined by dots, a key
 * of 1 to 127 letters, digits or _. "netdevs[][]", "a[0]", "a." or "[].b" would match nothing,
 * ever, so the expectation would silently never run. */
static bool fact_path_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (;;) {
		size_t n = 0;
		while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
			n++;
		if (n == 0 || n > 127)
			return false;
		s += n;
		if (s[0] == '[' && s[1] == ']')
			s += 2;
		if (!*s)
			return true;
		if (*s != '.')
			return false;
		s++;
	}
}

static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">=", "in", "not_in", "exists", NULL};

/* "a", "b" or "c" from "a|b|c". */
static void values_text(const char *values, char *out, size_t n)
{
	size_t l = 0, count = 1;
	for (const char *q = values; *q; q++)
		count += *q == '|';
	out[0] = 0;
	for (size_t i = 0; i < count && l < n; i++) {
		size_t w = strcspn(values, "|");
		int k = snprintf(out + l, n - l, "%s\"%.*s\"", i == 0 ? "" : i + 1 == count ? " or " : ", ",
				 (int)w, values);
		if (k < 0)
			break;
		l += (size_t)k;
		values += w + (values[w] == '|');
	}
}

/* Whether s is one of "a|b|c". */
static bool value_in(const char *s, const char *values)
{
	size_t n = s ? strlen(s) : 0;
	for (const char *q = values; s && *q;) {
		size_t w = strcspn(q, "|");
		if (w == n && strncmp(q, s, n) == 0)
			return true;
		q += w + (q[w] == '|');
	}
	return false;
}

/* x as the table line k says; reports what is wrong (the key is on the path). */
static bool v_key_value(struct vctx *v, const struct hwc_profile_key *k, const json_t *x)
{
	double d = json_number_value(x);
	char list[256];
	switch (k->type) {
	case HWC_PK_boolean:
		if (!json_is_boolean(x))
			verr(v, "expected true or false");
		return json_is_boolean(x);
	case HWC_PK_string:
		values_text(k->values, list, sizeof(list));
		if (!value_in(json_string_value(x), k->values))
			verr(v, "expected %s", list);
		return value_in(json_string_value(x), k->values);
	case HWC_PK_integer:
		if (!json_is_integer(x) || d < k->min || d > k->max)
			verr(v, "expected an integer %g..%g", k->min, k->max);
		return json_is_integer(x) && d >= k->min && d <= k->max;
	case HWC_PK_number:
		if (!json_is_number(x))
			verr(v, "expected a number");
		else if (d < k->min || d > k->max)
			verr(v, "%g is out of range [%g, %g]", d, k->min, k->max);
		return json_is_number(x) && d >= k->min && d <= k->max;
	}
	return false;
}

/* A section of one-value keys (thresholds, host, roce): each key checked by its table line, a
 * number kept in p->thr. */
static void v_settings(struct vctx *v, const char *section, const json_t *o, struct hwc_profile *p)
{
	const char *allowed[HWC_T_COUNT + 1];
	size_t n = 0;
	for (size_t i = 0; i < HWC_T_COUNT; i++)
		if (!strcmp(settings[i].section, section))
			allowed[n++] = settings[i].key;
	allowed[n] = NULL;
	bool thr = !strcmp(section, "thresholds");
	if (thr ? !v_is_object(v, o, "expected an object of thresholds")
		: !check_keys(v, o, allowed, section))
		return;
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)o, k, x) {
		push(v, k);
		int idx = -1;
		for (int i = 0; i < HWC_T_COUNT; i++)
			if (!strcmp(settings[i].section, section) && !strcmp(settings[i].key, k))
				idx = i;
		if (idx < 0)
			verr(v, "unknown threshold \"%s\" (docs/profile.md lists them)", k);
		else if (v_key_value(v, &settings[idx], x) && json_is_number(x))
			p->thr[idx] = json_number_value(x);
		pop(v);
	}
}

/* A "severity" value: the severity, or -1 after reporting it. */
static int v_severity(struct vctx *v, const json_t *sv)
{
	int s = hwc_severity_from_name(json_string_value(sv));
	push(v, "severity");
	if (s < 0 || s == HWC_SEV_UNKNOWN) {
		verr(v, "expected \"info\", \"warn\" or \"error\"");
		s = -1;
	}
	pop(v);
	return s;
}

static void v_rules(struct vctx *v, const json_t *r, struct hwc_profile *p)
{
	const char *k;
	json_t *x;
	if (!v_is_object(v, r, "expected an object {\"RULE_ID\": {\"enabled\": bool, \"severity\": ...}}"))
		return;
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	json_object_foreach((json_t *)r, k, x) {
		push(v, k);
		const struct hwc_rule *rule = hwc_rule_find(k);
		static const char *const keys[] = {"enabled", "severity", NULL};
		if (!rule) {
			verr(v, "no rule \"%s\" ('hwcheck rules list' shows them)", k);
		} else if (check_keys(v, x, keys, "a rule setting")) {
			size_t i = (size_t)(rule - t);
			const json_t *en = json_object_get(x, "enabled");
			const json_t *sv = json_object_get(x, "severity");
			if (en && !json_is_boolean(en)) {
				push(v, "enabled");
				verr(v, "expected true or false");
				pop(v);
			} else if (en && i < HWC_ARRAY_SIZE(p->off)) {
				p->off[i] = !json_is_true(en);
			}
			int s = sv ? v_severity(v, sv) : -1;
			if (s >= 0 && i < HWC_ARRAY_SIZE(p->sev))
				p->sev[i] = (signed char)s;
		}
		pop(v);
	}
}

/* An array of objects: each entry is checked for unknown keys, then by check (with the entry
 * on the error path). */
static void v_array(struct vctx *v, const json_t *arr, const char *plural,
		    const char *const *keys, const char *what,
		    void (*check)(struct vctx *v, const json_t *e))
{
	size_t i;
	const json_t *e;
	if (!json_is_array(arr)) {
		verr(v, "expected an array of %s", plural);
		return;
	}
	json_array_foreach(arr, i, e) {
		push_idx(v, i);
		if (check_keys(v, e, keys, what))
			check(v, e);
		pop(v);
	}
}

/* The intended firmware configuration: {"PCI_WR_ORDERING": "force_relax", "NUM_OF_VFS": 8}. */
static void v_fw_config(struct vctx *v, const json_t *fc)
{
	push(v, "fw_config");
	if (fc && !json_is_object(fc))
		verr(v, "expected an object {\"NAME\": value} of mstconfig parameters");
	const char *k;
	json_t *x;
	if (json_is_object(fc))
		json_object_foreach((json_t *)fc, k, x) if (!json_is_string(x) && !json_is_integer(x)) {
			push(v, k);
			verr(v, "expected the value's name (\"force_relax\") or its number");
			pop(v);
		}
	pop(v);
}

static void v_product(struct vctx *v, const json_t *e)
{
	static const char *const mkeys[] = {"psid", "device_id", "product", "generation", NULL};
	static const char *const pkeys[] = {"speed_gts", "width", NULL};
	const json_t *m = json_object_get(e, "match");
	push(v, "match");
	if (!m)
		verr(v, "a product needs \"match\"");
	else if (check_keys(v, m, mkeys, "a product match")) {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)m, k, x) if (!json_is_string(x)) {
			push(v, k);
			verr(v, "expected a string");
			pop(v);
		}
		if (json_object_size(m) == 0)
			verr(v, "match needs at least one of psid, device_id, product, generation");
	}
	pop(v);
	static const char *const nums[] = {"port_rate_gbps", "mtu_min", "slot_power_min_w", NULL};
	for (int k = 0; nums[k]; k++) {
		const json_t *x = json_object_get(e, nums[k]);
		push(v, nums[k]);
		if (x && (!json_is_number(x) || json_number_value(x) < 0))
			verr(v, "expected a non-negative number");
		pop(v);
	}
	const json_t *pc = json_object_get(e, "pcie");
	push(v, "pcie");
	if (pc && check_keys(v, pc, pkeys, "pcie")) {
		for (int k = 0; pkeys[k]; k++)
			v_opt(v, pc, pkeys[k], 'n');
	}
	pop(v);
	const json_t *fw = json_object_get(e, "allowed_fw");
	push(v, "allowed_fw");
	if (fw) {
		size_t k;
		const json_t *s;
		if (!json_is_array(fw))
			verr(v, "expected an array of firmware version strings");
		json_array_foreach(fw, k, s) if (!json_is_string(s)) {
			push_idx(v, k);
			verr(v, "expected a string like \"28.39.1002\"");
			pop(v);
		}
	}
	pop(v);
	v_fw_config(v, json_object_get(e, "fw_config"));
}

static void v_products(struct vctx *v, const json_t *arr)
{
	static const char *const keys[] = {"match", "port_rate_gbps", "pcie", "allowed_fw", "mtu_min",
					   "slot_power_min_w", "fw_config", "comment", NULL};
	v_array(v, arr, "products", keys, "a product", v_product);
}

static void v_expectation(struct vctx *v, const json_t *e)
{
	const json_t *id = json_object_get(e, "id"), *fact = json_object_get(e, "fact"),
		     *op = json_object_get(e, "op"), *sev = json_object_get(e, "severity");
	const char *ops_s = json_string_value(op);
	bool op_ok = false;
	for (int k = 0; ops_s && ops[k]; k++)
		op_ok |= strcmp(ops[k], ops_s) == 0;
	if (id) {
		push(v, "id");
		if (!id_ok(json_string_value(id)) || strncmp(json_string_value(id), "SITE_", 5))
			verr(v, "an expectation id is SITE_ followed by A-Z, 0-9, _");
		pop(v);
	}
	push(v, "fact");
	if (!json_is_string(fact) || !fact_path_ok(json_string_value(fact)))
		verr(v, "expected a fact path like \"netdevs[].mtu\" (keys joined by '.', each maybe "
			"followed by one '[]' for every element of an array)");
	pop(v);
	push(v, "op");
	if (!op_ok)
		verr(v, "expected one of ==, !=, <, <=, >, >=, in, not_in, exists");
	pop(v);
	if (op_ok && strcmp(ops_s, "exists") != 0) {
		const json_t *val = json_object_get(e, "value");
		push(v, "value");
		if (!val)
			verr(v, "op \"%s\" needs a value", ops_s);
		else if ((!strcmp(ops_s, "in") || !strcmp(ops_s, "not_in")) && !json_is_array(val))
			verr(v, "op \"%s\" needs an array value", ops_s);
		else if (ops_s[0] == '<' || ops_s[0] == '>') {
			if (!json_is_number(val))
				verr(v, "op \"%s\" needs a number", ops_s);
		}
		pop(v);
	}
	if (sev)
		v_severity(v, sev);
}

static void v_expectations(struct vctx *v, const json_t *arr)
{
	static const char *const keys[] = {"id", "fact", "op", "value", "severity", "description", NULL};
	v_array(v, arr, "expectations", keys, "an expectation", v_expectation);
}

static void v_waiver(struct vctx *v, const json_t *e)
{
	const char *rule = hwc_q_string(e, "rule");
	push(v, "rule");
	if (!rule)
		verr(v, "a waiver needs \"rule\": a rule id");
	else if (!hwc_rule_find(rule) && strncmp(rule, "SITE_", 5) != 0)
		verr(v, "no rule \"%s\" ('hwcheck rules list' shows them)", rule);
	pop(v);
	push(v, "subject");
	if (!json_is_string(hwc_q_get(e, "subject")))
		verr(v, "a waiver needs \"subject\": a BDF, netdev, RDMA device, \"host\" or \"*\"");
	pop(v);
	push(v, "reason");
	const char *reason = hwc_q_string(e, "reason");
	if (!reason || !*reason)
		verr(v, "a waiver needs a non-empty \"reason\"");
	pop(v);
	push(v, "expires");
	if (!date_ok(hwc_q_string(e, "expires")))
		verr(v, "a waiver needs \"expires\": a date YYYY-MM-DD that exists (2000 to 9999)");
	pop(v);
}

static void v_waivers(struct vctx *v, const json_t *arr)
{
	static const char *const keys[] = {"rule", "subject", "reason", "expires", NULL};
	v_array(v, arr, "waivers", keys, "a waiver", v_waiver);
}

/* "required": rule ids (a rule of the table or a SITE_ expectation id) and fact paths, whose
 * unknown fails the gate. */
static void v_required(struct vctx *v, const json_t *arr)
{
	static const char *const sections[] = {"host", "pci", "mlx", "netdevs", "thermal", "probe", NULL};
	size_t i;
	const json_t *e;
	if (!json_is_array(arr)) {
		verr(v, "expected an array of rule ids and fact paths");
		return;
	}
	json_array_foreach(arr, i, e) {
		const char *s = json_string_value(e);
		push_idx(v, i);
		bool is_id = s && id_ok(s);
		bool known_section = false;
		for (int k = 0; s && !is_id && sections[k]; k++) {
			size_t n = strlen(sections[k]);
			known_section |= !strncmp(s, sections[k], n) && s[n] && strchr(".[", s[n]);
		}
		if (!s || !*s)
			verr(v, "expected a rule id or a fact path like \"mlx.adapters[].fw_version\"");
		else if (is_id && !hwc_rule_find(s) && strncmp(s, "SITE_", 5) != 0)
			verr(v, "no rule \"%s\" ('hwcheck rules list' shows them)", s);
		else if (!is_id && !known_section)
			verr(v, "\"%s\" is neither a rule id nor a fact path (host., pci., mlx., netdevs[], "
				"thermal., probe.)", s);
		pop(v);
	}
}

static bool name_ok(const char *s, size_t max)
{
	return s && *s && strlen(s) <= max && !strpbrk(s, "/ \t\n:") && strcmp(s, ".") && strcmp(s, "..");
}

static void v_unused_port(struct vctx *v, const json_t *e)
{
	static const char *const sel[] = {"netdev", "bdf", "rdma_device", NULL};
	int n = 0;
	for (int k = 0; sel[k]; k++)
		n += json_object_get(e, sel[k]) != NULL;
	if (n != 1) {
		verr(v, "an unused port names exactly one of \"netdev\", \"bdf\" or \"rdma_device\" (with an optional \"port\")");
		return;
	}
	const json_t *x;
	if ((x = json_object_get(e, "netdev"))) {
		push(v, "netdev");
		if (!name_ok(json_string_value(x), 15))
			verr(v, "expected an interface name like \"ens1f1np1\" (at most 15 characters)");
		pop(v);
	} else if ((x = json_object_get(e, "bdf"))) {
		push(v, "bdf");
		/* "0000:81:00.1" or "81:00.1", as lspci prints it */
		if (!hwc_bdf_parse(json_string_value(x), HWC_BDF_SHORT, NULL))
			verr(v, "expected a PCI function like \"0000:81:00.1\" or \"81:00.1\"");
		pop(v);
	} else {
		push(v, "rdma_device");
		if (!name_ok(hwc_q_string(e, "rdma_device"), 64))
			verr(v, "expected an RDMA device like \"mlx5_1\"");
		pop(v);
	}
	const json_t *pn = json_object_get(e, "port");
	push(v, "port");
	if (pn && !json_object_get(e, "rdma_device"))
		verr(v, "\"port\" goes with \"rdma_device\" (a netdev or a PCI function is one port)");
	else if (pn && (!json_is_integer(pn) || json_integer_value(pn) < 1 || json_integer_value(pn) > 255))
		verr(v, "expected a port number 1..255");
	pop(v);
	v_opt(v, e, "reason", 's');
}

static void v_unused_ports(struct vctx *v, const json_t *arr)
{
	static const char *const keys[] = {"netdev", "bdf", "rdma_device", "port", "reason", NULL};
	v_array(v, arr, "unused ports", keys, "an unused port", v_unused_port);
}

/* An allowed transceiver: "vendor" and/or "part_number", glob patterns as fnmatch(3) reads them
 * ("FINISAR*", "MMA1B00-C100D*"), matched against the module's EEPROM strings; "reason" optional. */
static void v_allowed_module(struct vctx *v, const json_t *e)
{
	static const char *const pats[] = {"vendor", "part_number"};
	int n = 0;
	for (int k = 0; k < 2; k++) {
		const json_t *x = json_object_get(e, pats[k]);
		if (!x)
			continue;
		n++;
		push(v, pats[k]);
		const char *s = json_string_value(x);
		if (!s || !*s || strlen(s) > 64)
			verr(v, "expected a pattern of 1 to 64 characters (fnmatch: * ? [..])");
		pop(v);
	}
	if (!n)
		verr(v, "an allowed module needs \"vendor\" or \"part_number\" (or both)");
	v_opt(v, e, "reason", 's');
}

static void v_allowed_modules(struct vctx *v, const json_t *arr)
{
	static const char *const keys[] = {"vendor", "part_number", "reason", NULL};
	v_array(v, arr, "allowed modules", keys, "an allowed module", v_allowed_module);
}

/* One top-level key of a profile, checked by its section's validator. */
static void v_section(struct vctx *v, const char *k, const json_t *x, struct hwc_profile *p)
{
	static const struct {
		const char *key;
		void (*check)(struct vctx *v, const json_t *x);
	} sections[] = {
		{"products", v_products}, {"expectations", v_expectations}, {"waivers", v_waivers},
		{"unused_ports", v_unused_ports}, {"required", v_required},
		{"allowed_modules", v_allowed_modules},
	};
	if (!strcmp(k, "thresholds") || !strcmp(k, "host") || !strcmp(k, "roce"))
		v_settings(v, k, x, p);
	else if (!strcmp(k, "rules"))
		v_rules(v, x, p);
	else if ((!strcmp(k, "name") || !strcmp(k, "description")) && !json_is_string(x))
		verr(v, "expected a string");
	for (size_t i = 0; i < HWC_ARRAY_SIZE(sections); i++)
		if (!strcmp(k, sections[i].key))
			sections[i].check(v, x);
}

static struct hwc_profile *parse_only(const char *name, const char *buf, size_t len, char *err,
				      size_t errsz, const struct hwc_profile *base)
{
	const char *enc = hwc_text_foreign_encoding((const unsigned char *)buf, len);
	if (enc) {
		snprintf(err, errsz, "%s: %s; hwcheck reads profiles in UTF-8 (convert it: iconv -f "
			 "UTF-16 -t UTF-8)", name, enc);
		return NULL;
	}
	size_t bom = hwc_text_utf8_bom((const unsigned char *)buf, len); /* harmless, skipped */
	buf += bom;
	len -= bom;
	if (len == 0) {
		snprintf(err, errsz, "%s: empty file; expected a hwcheck profile (a JSON object with "
			 "\"schema\": \"hwcheck.profile\")", name);
		return NULL;
	}
	json_error_t je;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		snprintf(err, errsz, "%s:%d:%d: not valid JSON: %s", name, je.line, je.column, je.text);
		return NULL;
	}
	struct hwc_profile *p = calloc(1, sizeof(*p));
	if (!p) {
		json_decref(doc);
		snprintf(err, errsz, "%s: out of memory", name);
		return NULL;
	}
	p->doc = doc;
	memset(p->sev, -1, sizeof(p->sev));
	if (base)
		memcpy(p->thr, base->thr, sizeof(p->thr));
	else
		for (size_t i = 0; i < HWC_T_COUNT; i++)
			p->thr[i] = settings[i].def ? strtod(settings[i].def, NULL) : 0;
	struct vctx v = {.name = name, .buf = buf, .len = len, .err = err, .errsz = errsz};
	static const char *const top[] = {"schema", "schema_version", "name", "description",
					  "thresholds", "host", "products", "rules", "expectations",
					  "waivers", "unused_ports", "required", "roce",
					  "allowed_modules", NULL};
	if (check_keys(&v, doc, top, "a profile")) {
		const char *schema = hwc_q_string(doc, "schema");
		const json_t *ver = json_object_get(doc, "schema_version");
		if (!schema || strcmp(schema, "hwcheck.profile") != 0) {
			push(&v, "schema");
			verr(&v, "expected \"schema\": \"hwcheck.profile\"");
			pop(&v);
		} else if (!json_is_integer(ver) || json_integer_value(ver) != 1) {
			push(&v, "schema_version");
			verr(&v, "expected \"schema_version\": 1");
			pop(&v);
		}
		const char *k;
		json_t *x;
		json_object_foreach(doc, k, x) {
			push(&v, k);
			v_section(&v, k, x, p);
			pop(&v);
		}
	}
	if (v.failed) {
		hwc_profile_free(p);
		return NULL;
	}
	return p;
}

static struct hwc_profile *g_default;

const struct hwc_profile *hwc_profile_default(void)
{
	if (!g_default) {
		char err[512];
		/* A broken default is a build bug; the test suite loads it on every run. */
		g_default = parse_only("(built-in default profile)", default_text, strlen(default_text),
				       err, sizeof(err), NULL);
		if (!g_default)
			fprintf(stderr, "hwcheck: %s\n", err);
	}
	return g_default;
}

int hwc_profile_parse(const char *name, const char *buf, size_t len, struct hwc_profile **out,
		      char *err, size_t errsz)
{
	const struct hwc_profile *def = hwc_profile_default();
	*out = parse_only(name, buf, len, err, errsz, def);
	return *out ? 0 : -EINVAL;
}

int hwc_profile_load(const char *path, struct hwc_profile **out, char *err, size_t errsz)
{
	*out = NULL;
	if (!path) {
		const struct hwc_profile *d = hwc_profile_default();
		if (!d) {
			snprintf(err, errsz, "the built-in default profile is invalid");
			return -EINVAL;
		}
		return hwc_profile_parse("(built-in default profile)", default_text, strlen(default_text),
					 out, err, errsz);
	}
	FILE *fp = fopen(path, "re");
	if (!fp) {
		int e = errno;
		snprintf(err, errsz, "%s: cannot read: %s", path, strerror(e));
		return -e;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (16u << 20)) {
				fclose(fp);
				free(buf);
				snprintf(err, errsz, "%s: larger than 16 MiB; not a profile", path);
				return -EFBIG;
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				fclose(fp);
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t r = fread(buf + len, 1, cap - len, fp);
		len += r;
		if (r == 0)
			break;
	}
	int rerr = ferror(fp) ? (errno ? errno : EIO) : 0;
	fclose(fp);
	if (rerr) {
		free(buf);
		snprintf(err, errsz, "%s: cannot read: %s", path, strerror(rerr ? rerr : EIO));
		return -EIO;
	}
	int rc = hwc_profile_parse(path, buf, len, out, err, errsz);
	free(buf);
	return rc;
}

void hwc_profile_free(struct hwc_profile *p)
{
	if (!p)
		return;
	json_decref(p->doc);
	free(p);
}

/* ------------------------------------------------------------------ accessors */

double hwc_profile_threshold(const struct hwc_profile *p, enum hwc_threshold t)
{
	return p && (unsigned)t < HWC_T_COUNT ? p->thr[t] : 0;
}

bool hwc_profile_runs_rule(const struct hwc_profile *p, const char *id)
{
	const struct hwc_rule *r = hwc_rule_find(id);
	enum hwc_severity sev;
	return r && hwc_profile_rule_enabled(p ? p : hwc_profile_default(), r, &sev);
}

double hwc_profile_card_temp_limit_c(const struct hwc_profile *p)
{
	return hwc_profile_threshold(p, HWC_T_CARD_TEMP_LIMIT_C);
}

bool hwc_profile_rule_enabled(const struct hwc_profile *p, const struct hwc_rule *r,
			      enum hwc_severity *sev)
{
	size_t n;
	const struct hwc_rule *t = hwc_rules_table(&n);
	size_t i = (size_t)(r - t);
	*sev = r->severity;
	if (!p || i >= n || i >= HWC_ARRAY_SIZE(p->sev))
		return true;
	const struct hwc_profile *d = hwc_profile_default();
	/* the site's file first, then the default's settings */
	if (p->sev[i] >= 0)
		*sev = (enum hwc_severity)p->sev[i];
	else if (d && d != p && d->sev[i] >= 0)
		*sev = (enum hwc_severity)d->sev[i];
	if (json_object_get(json_object_get(p->doc, "rules"), r->id))
		return !p->off[i];
	return !(d && d->off[i]);
}

static const json_t *product_in(const json_t *doc, const json_t *adapter)
{
	static const char *const order[] = {"psid", "device_id", "product", "generation", NULL};
	for (int k = 0; order[k]; k++) {
		const char *have = hwc_q_string(adapter, order[k]);
		size_t i;
		const json_t *e;
		if (!have)
			continue;
		json_array_foreach(hwc_q_get(doc, "products"), i, e) {
			const char *want = hwc_q_string(hwc_q_get(e, "match"), order[k]);
			if (want && strcmp(want, have) == 0)
				return e;
		}
	}
	return NULL;
}

const json_t *hwc_profile_product(const struct hwc_profile *p, const json_t *adapter)
{
	const json_t *e = p ? product_in(p->doc, adapter) : NULL;
	const struct hwc_profile *d = hwc_profile_default();
	if (!e && d && d != p)
		e = product_in(d->doc, adapter);
	return e;
}

const json_t *hwc_profile_product_get(const struct hwc_profile *p, const json_t *adapter,
				     const char *key)
{
	return hwc_q_get(hwc_profile_product(p, adapter), key);
}

const json_t *hwc_profile_fw_intent(const struct hwc_profile *p, const json_t *adapter)
{
	const json_t *fc = hwc_profile_product_get(p, adapter, "fw_config");
	return json_is_object(fc) ? fc : NULL;
}

const char *hwc_profile_host_str(const struct hwc_profile *p, const char *key)
{
	const char *s = p ? hwc_q_string(hwc_q_get(p->doc, "host"), key) : NULL;
	const struct hwc_profile *d = hwc_profile_default();
	if (!s && d && d != p)
		s = hwc_q_string(hwc_q_get(d->doc, "host"), key);
	return s;
}

/* A profile's BDF ("81:00.1" or with the domain) against a function's full BDF. */
static bool bdf_same(const char *want, const char *have)
{
	if (!want || !have)
		return false;
	if (strlen(want) == 7 && strlen(have) == 12 && !strncmp(have, "0000:", 5))
		have += 5;
	return strcasecmp(want, have) == 0;
}

static const char *unused_in(const json_t *doc, const json_t *facts, const json_t *adapter,
			     const json_t *port)
{
	const char *nd = hwc_q_string(port, "netdev");
	const char *rd = hwc_q_string(port, "rdma_device");
	const json_t *pn = json_object_get(port, "port");
	const char *fn = hwc_q_port_function(facts, adapter, port);
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_q_get(doc, "unused_ports"), i, e) {
		const char *wn = hwc_q_string(e, "netdev");
		const char *wr = hwc_q_string(e, "rdma_device");
		const json_t *wp = json_object_get(e, "port");
		bool hit = (wn && nd && !strcmp(wn, nd)) ||
			   (wr && rd && !strcmp(wr, rd) && (!wp || json_equal(wp, (json_t *)pn))) ||
			   bdf_same(hwc_q_string(e, "bdf"), fn);
		const char *why = hwc_q_string(e, "reason");
		if (hit)
			return why ? why : "";
	}
	return NULL;
}

const char *hwc_profile_port_unused(const struct hwc_profile *p, const json_t *facts,
				    const json_t *adapter, const json_t *port)
{
	const char *r = p ? unused_in(p->doc, facts, adapter, port) : NULL;
	const struct hwc_profile *d = hwc_profile_default();
	if (!r && d && d != p)
		r = unused_in(d->doc, facts, adapter, port);
	return r;
}

const json_t *hwc_profile_roce(const struct hwc_profile *p)
{
	return p ? json_object_get(p->doc, "roce") : NULL;
}

const json_t *hwc_profile_expectations(const struct hwc_profile *p)
{
	return p ? json_object_get(p->doc, "expectations") : NULL;
}

const json_t *hwc_profile_allowed_modules(const struct hwc_profile *p)
{
	return p ? json_object_get(p->doc, "allowed_modules") : NULL;
}

const json_t *hwc_profile_waivers(const struct hwc_profile *p)
{
	return p ? json_object_get(p->doc, "waivers") : NULL;
}

const json_t *hwc_profile_required(const struct hwc_profile *p)
{
	return p ? json_object_get(p->doc, "required") : NULL;
}

bool hwc_profile_requires_rule(const struct hwc_profile *p, const char *id)
{
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_profile_required(p), i, e) {
		const char *s = json_string_value(e);
		if (s && id && strcmp(s, id) == 0)
			return true;
	}
	return false;
}


double hwc_profile_host_num(const struct hwc_profile *p, const char *key)
{
	const json_t *v = p ? json_object_get(json_object_get(p->doc, "host"), key) : NULL;
	const struct hwc_profile *d = hwc_profile_default();
	if (!json_is_number(v) && d && d != p)
		v = json_object_get(json_object_get(d->doc, "host"), key);
	return json_is_number(v) ? json_number_value(v) : 0;
}

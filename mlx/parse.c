/* SPDX-License-Identifier: MIT */
/* Parsers for what mstflint tools, ethtool and sysfs print about a ConnectX: bytes in, facts out. */
#include "mlx/mlx.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/scan.h"
#include "core/util.h"

#define MAX_TOKENS 24

/* ---- line and token helpers ---------------------------------------------------------------- */

struct lines {
	const char *p, *end;
};

/* Next line as an arena string without its end of line; NUL bytes inside become spaces so a
 * binary answer cannot hide the rest of a line. *had_nl says whether a newline ended it. */
static char *next_line(struct lines *l, struct hwc_arena *a, bool *had_nl)
{
	if (l->p >= l->end)
		return NULL;
	const char *s = l->p;
	const char *nl = memchr(s, '\n', (size_t)(l->end - s));
	const char *e = nl ? nl : l->end;
	l->p = nl ? nl + 1 : l->end;
	if (had_nl)
		*had_nl = nl != NULL;
	size_t n = (size_t)(e - s);
	char *line = hwc_arena_zalloc(a, n + 1); /* not strndup: it would stop at a NUL byte */
	if (!line)
		return NULL;
	memcpy(line, s, n);
	for (size_t i = 0; i < n; i++)
		if (line[i] == '\0' || line[i] == '\r' || line[i] == '\t')
			line[i] = ' ';
	line[n] = 0;
	return line;
}

static char *trim(char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* Splits s in place on spaces. */
static size_t tokenize(char *s, char **tok, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		tok[n++] = t;
	return n;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "Key:   value" -> value (trimmed) when the line starts with key followed by ':'. */
static const char *kv_value(char *line, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k) != 0 || line[k] != ':')
		return NULL;
	return trim(line + k + 1);
}

/* An mstconfig parameter name: an upper-case letter, then letters, digits and '_' (a few have
 * lower case inside: EXP_ROM_UEFI_x86_ENABLE). */
static bool is_param_name(const char *t)
{
	if (!isupper((unsigned char)t[0]))
		return false;
	for (const char *p = t; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* A token that can only be a value: text(code), a number, N/A, Array[...]. */
static bool is_value_shaped(const char *t)
{
	if (strchr(t, '(') || strchr(t, '[') || strcmp(t, "N/A") == 0)
		return true;
	int64_t v;
	return hwc_parse_i64(t, 0, &v) == 0;
}

/* ---- mstconfig ------------------------------------------------------------------------------ */

enum col { COL_DEFAULT, COL_CURRENT, COL_NEXT, COL_OTHER };

static void parse_cfg_value(const char *t, struct hwc_arena *a, struct hwc_mlx_cfgval *v)
{
	memset(v, 0, sizeof(*v));
	if (strcmp(t, "N/A") == 0) {
		hwc_fmeta_set(&v->m, HWC_ST_UNSUPPORTED, 0, "mstconfig printed N/A");
		return;
	}
	for (const char *c = t; *c; c++)
		if ((unsigned char)*c >= 0x80) {
			/* mstconfig prints ASCII names and numbers: these are broken bytes, and the
			 * JSON could not carry them as they are (what derives from them would differ) */
			hwc_fmeta_set(&v->m, HWC_ST_INVALID, 0, "not ASCII text");
			return;
		}
	int64_t num;
	if (hwc_parse_i64(t, 0, &num) == 0) {
		v->num = num;
		hwc_fmeta_set(&v->m, HWC_ST_OK, 0, NULL);
		return;
	}
	const char *open = strrchr(t, '(');
	size_t n = strlen(t);
	if (open && open > t && t[n - 1] == ')') {
		char *code = hwc_arena_strndup(a, open + 1, (size_t)(t + n - 1 - (open + 1)));
		if (code && hwc_parse_i64(code, 0, &num) == 0) {
			v->text = hwc_arena_strndup(a, t, (size_t)(open - t));
			v->num = num;
			v->has_code = true;
			hwc_fmeta_set(&v->m, v->text ? HWC_ST_OK : HWC_ST_INVALID, 0, NULL);
			return;
		}
	}
	if (strchr(t, '(') && t[n - 1] != ')') {
		hwc_fmeta_set(&v->m, HWC_ST_TRUNCATED, 0,
			      hwc_arena_printf(a, "value cut short in the output: '%s'", t));
		return;
	}
	/* Array[0..7] and any other text mstconfig prints as is. */
	v->text = hwc_arena_strdup(a, t);
	hwc_fmeta_set(&v->m, v->text ? HWC_ST_OK : HWC_ST_INVALID, 0, NULL);
}

static bool cfgval_equal(const struct hwc_mlx_cfgval *x, const struct hwc_mlx_cfgval *y)
{
	if ((x->text == NULL) != (y->text == NULL))
		return false;
	if (x->text && strcmp(x->text, y->text) != 0)
		return false;
	return x->num == y->num || (x->text && !x->has_code && !y->has_code);
}

/* Parameter names seen in one listing, by hash: 120,000 rows must not cost n^2 string
 * compares. Slots hold index + 1 into the params vector (0: empty); tables live in the arena. */
struct name_idx {
	uint32_t *slot;
	size_t cap, n;
};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull & SIZE_MAX;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (1099511628211ull & SIZE_MAX);
	return h;
}

/* The index of name in params, or -1; with add, inserts `at` when absent (-ENOMEM: no room). */
static long name_idx_find(struct name_idx *x, const struct hwc_mlx_cfg *c, const char *name,
			  struct hwc_arena *a, long add_at)
{
	if (add_at >= 0 && (x->n + 1) * 2 > x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 64;
		uint32_t *ns = hwc_arena_calloc(a, ncap, sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (size_t i = 0; i < x->cap; i++) {
			if (!x->slot[i])
				continue;
			size_t j = name_hash(c->params.items[x->slot[i] - 1].name) & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = x->slot[i];
		}
		x->slot = ns;
		x->cap = ncap;
	}
	if (!x->cap)
		return -1;
	size_t j = name_hash(name) & (x->cap - 1);
	for (; x->slot[j]; j = (j + 1) & (x->cap - 1))
		if (strcmp(c->params.items[x->slot[j] - 1].name, name) == 0)
			return (long)x->slot[j] - 1;
	if (add_at >= 0) {
		x->slot[j] = (uint32_t)add_at + 1;
		x->n++;
	}
	return -1;
}

static const char *cfgval_show(struct hwc_arena *a, const struct hwc_mlx_cfgval *v)
{
	if (v->text && v->has_code)
		return hwc_arena_printf(a, "%s(%lld)", v->text, (long long)v->num);
	return v->text ? v->text : hwc_arena_printf(a, "%lld", (long long)v->num);
}

/* The same parameter printed twice: identical rows are one; rows that disagree make the value
 * unknown (which one the firmware holds cannot be told), never the first one silently. */
static void contradicting_row(struct hwc_mlx_cfgparam *first, const struct hwc_mlx_cfgparam *again,
			      struct hwc_arena *a)
{
	struct hwc_mlx_cfgval *x[3] = {&first->dflt, &first->current, &first->next_boot};
	const struct hwc_mlx_cfgval *y[3] = {&again->dflt, &again->current, &again->next_boot};
	static const char *const col[3] = {"Default", "Current", "Next Boot"};
	for (int i = 0; i < 3; i++) {
		if (x[i]->m.st != HWC_ST_OK || y[i]->m.st != HWC_ST_OK || cfgval_equal(x[i], y[i]))
			continue;
		const char *d = hwc_arena_printf(a, "mstconfig printed %s twice with different %s "
						   "values, %s and %s: which one holds is unknown",
						 first->name, col[i], cfgval_show(a, x[i]),
						 cfgval_show(a, y[i]));
		memset(x[i], 0, sizeof(*x[i]));
		hwc_fmeta_set(&x[i]->m, HWC_ST_INVALID, 0, d);
	}
}

static const char *const named[] = {
	"PCI_WR_ORDERING",       "ADVANCED_PCI_SETTINGS",   "MAX_ACC_OUT_READ",
	"ADVANCED_POWER_SETTINGS", "DISABLE_SLOT_POWER_LIMITER", "PCI_ATOMIC_MODE",
	"SRIOV_EN",              "NUM_OF_VFS",              "NUM_PF_MSIX",
	"LINK_TYPE_P1",          "LINK_TYPE_P2",            "CQE_COMPRESSION",
	"ATS_ENABLED",           "PCI_BUS0_RESTRICT",       "PCI_BUS0_RESTRICT_SPEED",
	"PCI_BUS0_RESTRICT_WIDTH", "PCI_BUS0_RESTRICT_ASPM",
};

const char *const *hwc_mlx_cfg_named(size_t *n)
{
	*n = HWC_ARRAY_SIZE(named);
	return named;
}

const struct hwc_mlx_cfgparam *hwc_mlx_cfg_find(const struct hwc_mlx_cfg *c, const char *name)
{
	for (size_t i = 0; i < c->params.n; i++)
		if (strcmp(c->params.items[i].name, name) == 0)
			return &c->params.items[i];
	return NULL;
}

/* Why a named parameter is not in the listing: some are hidden behind a switch (mstconfig shows
 * them only when the switch is True), the rest are unknown to this firmware or mstflint. */
static const char *missing_reason(const struct hwc_mlx_cfg *c, const char *name,
				  struct hwc_arena *a)
{
	const char *gate = NULL;
	if (strcmp(name, "DISABLE_SLOT_POWER_LIMITER") == 0)
		gate = "ADVANCED_POWER_SETTINGS";
	else if (strcmp(name, "MAX_ACC_OUT_READ") == 0)
		gate = "ADVANCED_PCI_SETTINGS";
	if (!c->complete)
		return "not in the part of the mstconfig output that was read (output incomplete)";
	if (gate) {
		const struct hwc_mlx_cfgparam *g = hwc_mlx_cfg_find(c, gate);
		if (g && g->next_boot.m.st == HWC_ST_OK && g->next_boot.has_code &&
		    g->next_boot.num == 0)
			return hwc_arena_printf(a, "not printed by mstconfig: shown only when %s is "
						   "True, and it is False",
						gate);
	}
	return "not printed by mstconfig: this firmware or mstflint version does not offer it";
}

static void finish_param(struct hwc_mlx_cfgparam *p, const struct hwc_mlx_cfg *c,
			 struct hwc_arena *a, const char *dc_reason)
{
	struct hwc_mlx_cfgval *vals[3] = {&p->dflt, &p->current, &p->next_boot};
	for (int i = 0; i < 3; i++) {
		if (vals[i]->m.st != HWC_ST_UNSET)
			continue;
		if (i < 2 && !c->has_default_current)
			hwc_fmeta_set(&vals[i]->m, HWC_ST_UNSUPPORTED, 0, dc_reason);
		else
			hwc_fmeta_set(&vals[i]->m, HWC_ST_TRUNCATED, 0,
				      hwc_arena_printf(a, "%s: row cut short in the output",
						       p->name));
	}
	if (p->current.m.st == HWC_ST_OK && p->next_boot.m.st == HWC_ST_OK)
		HWC_SET(p->pending, !cfgval_equal(&p->current, &p->next_boot));
	else
		p->pending.m = p->current.m.st != HWC_ST_OK ? p->current.m : p->next_boot.m;
}

static enum hwc_status error_status(const char *msg)
{
	if (strstr(msg, "Unsupported device") || strstr(msg, "doesn't support") ||
	    strstr(msg, "not supported") || strstr(msg, "Unknown Parameter") ||
	    strstr(msg, "Bad parameter"))
		return HWC_ST_UNSUPPORTED;
	if (strstr(msg, "ermission denied") || strstr(msg, "Operation not permitted"))
		return HWC_ST_NEEDS_ROOT;
	return HWC_ST_UNREADABLE;
}

/* A tool's own error line ("-E- ..."): true when t is one, and the first is kept in *err. */
static bool error_line(const char *t, const char **err)
{
	if (!starts_with(t, "-E-"))
		return false;
	if (!*err)
		*err = t;
	return true;
}

/* The next line, trimmed, that is not a tool's error line (those go to *err); NULL at the end. */
static char *next_data_line(struct lines *l, struct hwc_arena *a, const char **err)
{
	char *line;
	while ((line = next_line(l, a, NULL))) {
		char *t = trim(line);
		if (!error_line(t, err))
			return t;
	}
	return NULL;
}

/* A tool's output held none of what was asked: its own "-E-" line says why when it printed one,
 * else the output is not what the parser expects. Returns -EINVAL for the caller to pass on. */
static int no_data(struct hwc_fmeta *m, struct hwc_arena *a, const char *tool, const char *err,
		   const char *missing)
{
	if (err)
		hwc_fmeta_set(m, error_status(err), 0, hwc_arena_printf(a, "%s: %s", tool, err));
	else
		hwc_fmeta_set(m, HWC_ST_INVALID, 0, missing);
	return -EINVAL;
}

/* The value a column of a row fills: Default, Current or Next Boot; NULL for another column. */
static struct hwc_mlx_cfgval *col_value(struct hwc_mlx_cfgparam *p, enum col k)
{
	return k == COL_DEFAULT ? &p->dflt
	       : k == COL_CURRENT ? &p->current
	       : k == COL_NEXT	  ? &p->next_boot
				  : NULL;
}

/* The values of one row, by column; returns how many values it had. */
static size_t fill_row(struct hwc_mlx_cfgparam *p, char **tok, size_t n, const enum col *cols,
		       size_t ncols, struct hwc_arena *a)
{
	for (size_t c = 0; c < n; c++) {
		struct hwc_mlx_cfgval *dst = col_value(p, c < ncols ? cols[c] : COL_OTHER);
		if (dst)
			parse_cfg_value(tok[c], a, dst);
	}
	return n;
}

/* Where hwc_mlx_parse_mstconfig is in its output. */
struct cfg_parse {
	struct hwc_mlx_cfg *out;
	struct hwc_arena *a;
	struct name_idx idx;
	enum col cols[8];
	size_t ncols;
	bool in_table, seen_table, no_dc;
	const char *err;                /* the first "-E-" line */
	struct hwc_mlx_cfgparam *last;  /* the row a wrapped value continues */
	size_t last_nvals;
};

/* "Configurations:  Default  Current  Next Boot": the columns of the table that follows. */
static void cfg_columns(struct cfg_parse *st, char *t)
{
	char *tok[MAX_TOKENS];
	size_t n = tokenize(t + strlen("Configurations:"), tok, MAX_TOKENS);
	st->ncols = 0;
	for (size_t i = 0; i < n && st->ncols < 8; i++) {
		enum col k = COL_OTHER;
		if (strcmp(tok[i], "Default") == 0)
			k = COL_DEFAULT;
		else if (strcmp(tok[i], "Current") == 0)
			k = COL_CURRENT;
		else if (strcmp(tok[i], "Next") == 0 && i + 1 < n && strcmp(tok[i + 1], "Boot") == 0) {
			k = COL_NEXT;
			i++;
		}
		st->cols[st->ncols++] = k;
	}
	st->in_table = st->seen_table = true;
	st->last = NULL;
}

/* A line of values only, wrapped from the row before by a mailer or a terminal: true when it is
 * one (and its values went into that row). */
static bool cfg_wrapped(struct cfg_parse *st, char **tok, size_t n)
{
	size_t cols = st->ncols ? st->ncols : 1;
	size_t room = cols > st->last_nvals ? cols - st->last_nvals : 0;
	bool all_values = n > 0 && n <= room;
	for (size_t k = 0; k < n && all_values; k++)
		all_values = is_value_shaped(tok[k]) && !is_param_name(tok[k]);
	if (!st->last || !all_values)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t c = st->last_nvals++;
		enum col k = st->ncols ? (c < st->ncols ? st->cols[c] : COL_OTHER) : COL_NEXT;
		struct hwc_mlx_cfgval *dst = col_value(st->last, k);
		if (dst)
			parse_cfg_value(tok[i], st->a, dst);
	}
	return true;
}

static void cfg_bad_line(struct cfg_parse *st, const char *t)
{
	if (!st->seen_table || !st->in_table)
		return;
	st->out->bad_lines++;
	if (!st->out->first_bad_line)
		st->out->first_bad_line = hwc_arena_strdup(st->a, t);
	st->out->complete = false;
}

/* A fragment that starts inside the table (no header): true when the row at tok[i] looks like a
 * row, and the columns are then guessed from its values (3: Default/Current/Next Boot, else Next
 * Boot). */
static bool cfg_headerless(struct cfg_parse *st, char **tok, size_t i, size_t n)
{
	for (size_t k = i + 1; k < n; k++)
		if (!is_value_shaped(tok[k]))
			return false;
	st->seen_table = st->in_table = true;
	if (n - i - 1 == 3) {
		st->cols[0] = COL_DEFAULT, st->cols[1] = COL_CURRENT, st->cols[2] = COL_NEXT;
		st->ncols = 3;
	} else {
		st->cols[0] = COL_NEXT;
		st->ncols = 1;
	}
	st->out->complete = false; /* the beginning is missing */
	return true;
}

/* The parameter row at tok[i] ("NAME  v1  v2  v3"): a new parameter, or a contradiction of one
 * seen before. */
static int cfg_add_row(struct cfg_parse *st, char **tok, size_t i, size_t n, bool ro)
{
	struct hwc_mlx_cfg *out = st->out;
	struct hwc_mlx_cfgparam row = {.name = hwc_arena_strdup(st->a, tok[i]), .read_only = ro};
	if (!row.name)
		return -ENOMEM;
	st->last_nvals = fill_row(&row, tok + i + 1, n - i - 1, st->cols, st->ncols, st->a);
	long seen = name_idx_find(&st->idx, out, row.name, st->a, -1);
	if (seen >= 0) {
		contradicting_row(&out->params.items[seen], &row, st->a);
		st->last = NULL;
		return 0;
	}
	struct hwc_mlx_cfgparam *p = HWC_VEC_PUSH(st->a, &out->params);
	if (!p || name_idx_find(&st->idx, out, row.name, st->a, (long)out->params.n - 1) == -ENOMEM)
		return -ENOMEM;
	*p = row;
	st->last = p;
	return 0;
}

/* A line that is none of the known headers: a row, a wrapped value, or a line that breaks the
 * table. A fragment may start inside the table (no header): rows still look like rows. */
static int cfg_row(struct cfg_parse *st, const char *t)
{
	char *tok[MAX_TOKENS];
	char *copy = hwc_arena_strdup(st->a, t);
	if (!copy)
		return -ENOMEM;
	size_t n = tokenize(copy, tok, MAX_TOKENS);
	size_t i = 0;
	bool ro = false;
	if (n && (strcmp(tok[0], "*") == 0 || strcmp(tok[0], "*RO") == 0)) {
		ro = strcmp(tok[0], "*RO") == 0;
		i++;
	}
	if (i < n && strcmp(tok[i], "RO") == 0 && i + 1 < n && is_param_name(tok[i + 1])) {
		ro = true;
		i++;
	}
	if (i == 0 && cfg_wrapped(st, tok, n))
		return 0;
	if (i >= n || !is_param_name(tok[i]) ||
	    !(st->in_table || (!st->seen_table && n - i >= 2))) {
		cfg_bad_line(st, t);
		return 0;
	}
	if (!st->seen_table && !cfg_headerless(st, tok, i, n))
		return 0;
	return cfg_add_row(st, tok, i, n, ro);
}

/* One trimmed, non-empty line: 0, 1 to stop (a second device's listing), or -ENOMEM. */
static int cfg_line(struct cfg_parse *st, char *t)
{
	if (error_line(t, &st->err))
		return 0;
	if (strstr(t, "does not support reading default and current")) {
		st->no_dc = true;
		return 0;
	}
	if (starts_with(t, "Device #"))
		return st->seen_table ? 1 : 0; /* one device was asked for; never mix a second in */
	const char *v;
	if (!st->in_table) {
		if ((v = kv_value(t, "Device type")))
			HWC_SET(st->out->device_type, hwc_arena_strdup(st->a, v));
		else if ((v = kv_value(t, "Name")))
			HWC_SET(st->out->board_name, hwc_arena_strdup(st->a, v));
		else if ((v = kv_value(t, "Description")))
			HWC_SET(st->out->description, hwc_arena_strdup(st->a, v));
	}
	if (starts_with(t, "Configurations:")) {
		cfg_columns(st, t);
		return 0;
	}
	if (starts_with(t, "The '*' shows")) {
		st->in_table = false;
		return 0;
	}
	if (starts_with(t, "Configurations") || starts_with(t, "Apply new"))
		return 0;
	return cfg_row(st, t);
}

/* Each named parameter the listing lacks gets a row saying why. */
static int cfg_add_missing(struct hwc_mlx_cfg *out, struct hwc_arena *a)
{
	size_t nn;
	const char *const *nm = hwc_mlx_cfg_named(&nn);
	for (size_t k = 0; k < nn; k++) {
		if (hwc_mlx_cfg_find(out, nm[k]))
			continue;
		const char *why = missing_reason(out, nm[k], a);
		enum hwc_status st = out->complete ? HWC_ST_UNSUPPORTED : HWC_ST_TRUNCATED;
		struct hwc_mlx_cfgparam *p = HWC_VEC_PUSH(a, &out->params);
		if (!p)
			return -ENOMEM;
		p->name = nm[k];
		hwc_fmeta_set(&p->dflt.m, st, 0, why);
		hwc_fmeta_set(&p->current.m, st, 0, why);
		hwc_fmeta_set(&p->next_boot.m, st, 0, why);
		hwc_fmeta_set(&p->pending.m, st, 0, why);
	}
	return 0;
}

/* Device type, Name and Description: "N/A" is unsupported, a missing line absent (ConnectX-3
 * listings have no Name/Description lines; fragments may lack the header). */
static void cfg_header_facts(struct hwc_mlx_cfg *out, struct hwc_arena *a)
{
	if (out->board_name.m.st == HWC_ST_OK && strcmp(out->board_name.v, "N/A") == 0)
		HWC_FAIL(out->board_name, HWC_ST_UNSUPPORTED, 0, "mstconfig printed Name: N/A");
	if (out->description.m.st == HWC_ST_OK && strcmp(out->description.v, "N/A") == 0)
		HWC_FAIL(out->description, HWC_ST_UNSUPPORTED, 0, "mstconfig printed Description: N/A");
	struct hwc_fstr *hdr[] = {&out->device_type, &out->board_name, &out->description};
	static const char *const hdr_name[] = {"Device type", "Name", "Description"};
	for (int k = 0; k < 3; k++)
		if (hdr[k]->m.st == HWC_ST_UNSET)
			HWC_FAIL(*hdr[k], HWC_ST_ABSENT, 0,
				 hwc_arena_printf(a, "mstconfig printed no '%s:' line", hdr_name[k]));
}

/* After the last line: how complete the listing is, each parameter's missing values and pending
 * flag, the named parameters it lacks, and the header facts. */
static int cfg_finish(struct cfg_parse *st, bool had_nl)
{
	struct hwc_mlx_cfg *out = st->out;
	struct hwc_arena *a = st->a;
	for (size_t c = 0; c < st->ncols; c++)
		if (st->cols[c] == COL_DEFAULT || st->cols[c] == COL_CURRENT)
			out->has_default_current = true;
	/* A cut last row (no newline, or fewer values than columns) makes the listing partial. */
	if (st->last && (!had_nl || st->last_nvals < st->ncols))
		out->complete = false;
	for (size_t k = 0; k < out->params.n; k++) {
		struct hwc_mlx_cfgparam *p = &out->params.items[k];
		if (p->next_boot.m.st == HWC_ST_UNSET && p != st->last)
			out->complete = false;
	}
	const char *dc_reason = st->no_dc ? "the firmware does not support reading default and "
					    "current configurations"
					  : "this mstconfig printed only the Next Boot column";
	for (size_t k = 0; k < out->params.n; k++)
		finish_param(&out->params.items[k], out, a, dc_reason);
	if (cfg_add_missing(out, a) < 0)
		return -ENOMEM;
	/* What the facts hold, as a facts file reloads it: Default/Current were read for some
	 * parameter (one output may hold several devices' tables, some without those columns). */
	out->has_default_current = false;
	for (size_t k = 0; k < out->params.n; k++) {
		const struct hwc_mlx_cfgparam *p = &out->params.items[k];
		if (p->dflt.m.st == HWC_ST_OK || p->current.m.st == HWC_ST_OK)
			out->has_default_current = true;
	}
	cfg_header_facts(out, a);
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	return 0;
}

int hwc_mlx_parse_mstconfig(const char *buf, size_t len, struct hwc_arena *a,
			    struct hwc_mlx_cfg *out)
{
	memset(out, 0, sizeof(*out));
	struct cfg_parse st = {.out = out, .a = a};
	struct lines l = {buf, buf + len};
	char *line;
	bool had_nl = true;
	out->complete = true;
	while ((line = next_line(&l, a, &had_nl))) {
		char *t = trim(line);
		if (!*t)
			continue;
		int rc = cfg_line(&st, t);
		if (rc < 0)
			return rc;
		if (rc > 0)
			break;
	}
	if (!st.seen_table || out->params.n == 0)
		return no_data(&out->m, a, "mstconfig", st.err,
			       "mstconfig printed no 'Configurations:' table");
	return cfg_finish(&st, had_nl);
}

/* ---- mstflint query ------------------------------------------------------------------------- */

int hwc_mlx_parse_flint_query(const char *buf, size_t len, struct hwc_arena *a,
			      struct hwc_mlx_flint *out)
{
	memset(out, 0, sizeof(*out));
	struct lines l = {buf, buf + len};
	const char *err = NULL;
	char *t;
	while ((t = next_data_line(&l, a, &err))) {
		const char *v;
		if ((v = kv_value(t, "Image type"))) {
			HWC_SET(out->image_type, hwc_arena_strdup(a, v));
		} else if ((v = kv_value(t, "FW Version"))) {
			HWC_SET(out->fw_version, hwc_arena_strdup(a, v));
		} else if ((v = kv_value(t, "FW Version(Running)"))) {
			HWC_SET(out->fw_version_running, hwc_arena_strdup(a, v));
		} else if ((v = kv_value(t, "FW Release Date"))) {
			HWC_SET(out->release_date, hwc_arena_strdup(a, v));
		} else if ((v = kv_value(t, "PSID"))) {
			HWC_SET(out->psid, hwc_arena_strdup(a, v));
		}
	}
	if (out->fw_version.m.st != HWC_ST_OK || !*out->fw_version.v) {
		return no_data(&out->m, a, "mstflint", err,
			       "mstflint query printed no 'FW Version:' line");
	}
	if (out->psid.m.st != HWC_ST_OK)
		HWC_FAIL(out->psid, HWC_ST_ABSENT, 0, "mstflint query printed no PSID line");
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* ---- mstfwreset query ----------------------------------------------------------------------- */

#define FWRESET_MAX_ROWS 32

/* The section a header line opens; NULL for any other line. */
static struct hwc_mlx_fwreset_list *fwreset_section(struct hwc_mlx_fwreset *out, const char *t,
						    bool *other)
{
	*other = false;
	if (starts_with(t, "Reset-levels") || starts_with(t, "Reset levels"))
		return &out->levels;
	if (starts_with(t, "Reset-types") || starts_with(t, "Reset types"))
		return &out->types;
	if (starts_with(t, "Reset-sync") || starts_with(t, "Reset sync"))
		return &out->sync;
	/* "Reset request method ...:" and anything else ending in ':' closes the section */
	size_t n = strlen(t);
	*other = n > 0 && t[n - 1] == ':';
	return NULL;
}

/* The rightmost "-Supported" / "-Not Supported" / "-Not supported" marker of a row. */
static char *fwreset_marker(char *t, bool *supported)
{
	char *best = NULL;
	static const char *const marks[] = {"-Supported", "-Not Supported", "-Not supported"};
	for (size_t k = 0; k < HWC_ARRAY_SIZE(marks); k++)
		for (char *p = strstr(t, marks[k]); p; p = strstr(p + 1, marks[k]))
			if (!best || p > best) {
				best = p;
				*supported = k == 0;
			}
	return best;
}

/* "3: Driver restart and PCI reset     -Supported     (default)" */
static int fwreset_row(char *t, struct hwc_arena *a, struct hwc_mlx_fwreset_list *l)
{
	char *colon = strchr(t, ':');
	if (!colon || colon == t)
		return -EINVAL;
	*colon = 0;
	int64_t num;
	if (hwc_parse_i64(t, 10, &num) < 0 || num < 0 || num > 255)
		return -EINVAL;
	bool sup = false;
	char *mark = fwreset_marker(colon + 1, &sup);
	if (!mark)
		return -EINVAL;
	if (l->n >= FWRESET_MAX_ROWS)
		return 0;
	bool dflt = strstr(mark, "(default)") != NULL;
	*mark = 0;
	struct hwc_mlx_fwreset_opt *o = HWC_VEC_PUSH(a, l);
	if (!o)
		return -ENOMEM;
	o->num = num;
	o->description = hwc_arena_strdup(a, trim(colon + 1));
	o->supported = sup;
	o->is_default = dflt;
	return 0;
}

int hwc_mlx_parse_fwreset_query(const char *buf, size_t len, struct hwc_arena *a,
				struct hwc_mlx_fwreset *out)
{
	memset(out, 0, sizeof(*out));
	struct lines l = {buf, buf + len};
	struct hwc_mlx_fwreset_list *sec = NULL;
	const char *err = NULL;
	char *t;
	while ((t = next_data_line(&l, a, &err))) {
		bool other;
		struct hwc_mlx_fwreset_list *s;
		if ((s = fwreset_section(out, t, &other)) || other) {
			sec = s;
		} else if (sec && isdigit((unsigned char)*t)) {
			if (fwreset_row(t, a, sec) == -ENOMEM)
				return -ENOMEM;
		}
	}
	if (!out->levels.n)
		return no_data(&out->m, a, "mstfwreset", err,
			       "mstfwreset query printed no 'Reset-levels:' table");
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* ---- firmware configuration at risk ---------------------------------------------------------- */

bool hwc_mlx_cfg_at_risk(const struct hwc_mlx_cfgparam *p)
{
	if (p->dflt.m.st != HWC_ST_OK || p->read_only)
		return false;
	return (p->current.m.st == HWC_ST_OK && !cfgval_equal(&p->current, &p->dflt)) ||
	       (p->next_boot.m.st == HWC_ST_OK && !cfgval_equal(&p->next_boot, &p->dflt));
}

/* A name prefix and what hwcheck judges with the parameters it starts. */
static const struct {
	const char *prefix, *what;
} depends[] = {
	{"PCI_WR_ORDERING", "MLX_WR_ORDERING_PER_MKEY (relaxed ordering of RDMA writes)"},
	{"ADVANCED_POWER_SETTINGS", "MLX_SLOT_POWER_LIMITER (the 25 W slot power limiter)"},
	{"DISABLE_SLOT_POWER_LIMITER", "MLX_SLOT_POWER_LIMITER (the 25 W slot power limiter)"},
	{"PCI_BUS0_RESTRICT", "PCIe link restriction (speed, width, ASPM)"},
	{"SRIOV_EN", "SR-IOV"},
	{"NUM_OF_VFS", "SR-IOV"},
	{"PF_NUM_OF_VF", "SR-IOV"},
	{"NUM_PF_MSIX", "SR-IOV / MSI-X vectors (channels)"},
	{"NUM_VF_MSIX", "SR-IOV / MSI-X vectors (channels)"},
	{"LINK_TYPE_P", "port link type (InfiniBand or Ethernet)"},
	{"ROCE_CC", "RoCE congestion control"},
	{"CNP_", "RoCE congestion control"},
	{"ROCE_ADAPTIVE_ROUTING_EN", "RoCE congestion control"},
	{"ADVANCED_PCI_SETTINGS", "PCIe read performance (MAX_ACC_OUT_READ)"},
	{"MAX_ACC_OUT_READ", "PCIe read performance"},
	{"PCI_ATOMIC_MODE", "PCIe atomics"},
	{"CQE_COMPRESSION", "CQE compression (PCIe-bound receive)"},
	{"ATS_ENABLED", "ATS (GPUDirect, P2P)"},
	{"P2P_ORDERING_MODE", "P2P ordering (GPUDirect)"},
};

const char *hwc_mlx_cfg_depends(const char *name)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(depends); i++)
		if (starts_with(name, depends[i].prefix))
			return depends[i].what;
	return NULL;
}

/* ---- mstreg --------------------------------------------------------------------------------- */

int hwc_mlx_parse_mstreg(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_reg *out)
{
	memset(out, 0, sizeof(*out));
	struct lines l = {buf, buf + len};
	const char *err = NULL;
	char *t;
	while ((t = next_data_line(&l, a, &err))) {
		char *bar = strchr(t, '|');
		if (!bar)
			continue;
		*bar = 0;
		char *name = trim(t);
		if (!*name || strcmp(name, "Field Name") == 0 || strchr(name, ' '))
			continue;
		char *tok[MAX_TOKENS];
		size_t n = tokenize(bar + 1, tok, MAX_TOKENS);
		for (size_t i = 0; i < n; i++) {
			tok[i] = trim(tok[i]);
			uint64_t v;
			if (!starts_with(tok[i], "0x") || hwc_parse_u64(tok[i], 16, &v) < 0)
				continue;
			struct hwc_mlx_regfield *f = HWC_VEC_PUSH(a, &out->fields);
			if (!f)
				return -ENOMEM;
			f->name = hwc_arena_strdup(a, name);
			f->v = v;
			break;
		}
	}
	if (out->fields.n == 0) {
		return no_data(&out->m, a, "mstreg", err,
			       "mstreg printed no 'field | 0x...' rows");
	}
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	return 0;
}

int hwc_mlx_reg_get(const struct hwc_mlx_reg *r, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < r->fields.n; i++)
		if (strcmp(r->fields.items[i].name, name) == 0) {
			*v = r->fields.items[i].v;
			return 0;
		}
	return -ENOENT;
}

int64_t hwc_mlx_mtmp_to_mdegc(uint64_t raw)
{
	int16_t t = (int16_t)(uint16_t)(raw & 0xffff);
	return (int64_t)t * 125;
}

/* ---- small ones ----------------------------------------------------------------------------- */

int hwc_mlx_parse_mget_temp(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fi64 *out)
{
	memset(out, 0, sizeof(*out));
	struct lines l = {buf, buf + len};
	char *line;
	while ((line = next_line(&l, a, NULL))) {
		char *t = trim(line);
		if (!*t)
			continue;
		int64_t c;
		if (hwc_parse_i64(t, 10, &c) == 0) {
			if (c < -273 || c > 1000) {
				HWC_FAIL(*out, HWC_ST_INVALID, 0,
					 hwc_arena_printf(a, "mstmget_temp: %s degC is not a temperature", t));
				return -EINVAL;
			}
			HWC_SET(*out, c * 1000);
			return 0;
		}
		enum hwc_status st = strstr(t, "No valid temperature") ? HWC_ST_UNSUPPORTED
								       : error_status(t);
		HWC_FAIL(*out, st, 0, hwc_arena_printf(a, "mstmget_temp: %s", t));
		return -EINVAL;
	}
	HWC_FAIL(*out, HWC_ST_INVALID, 0, "mstmget_temp printed nothing");
	return -EINVAL;
}

int hwc_mlx_parse_tool_version(const char *buf, size_t len, struct hwc_arena *a,
			       struct hwc_fstr *out)
{
	memset(out, 0, sizeof(*out));
	char *s = hwc_arena_strndup(a, buf, len);
	if (!s)
		return -ENOMEM;
	for (char *p = s; (p = strstr(p, "mstflint ")); p++) {
		p += strlen("mstflint ");
		size_t n = strspn(p, "0123456789.-");
		if (n && isdigit((unsigned char)p[0])) {
			HWC_SET(*out, hwc_arena_strndup(a, p, n));
			return 0;
		}
		p--;
	}
	HWC_FAIL(*out, HWC_ST_INVALID, 0, "no 'mstflint N.N.N' in the version output");
	return -EINVAL;
}

int hwc_mlx_parse_rate(const char *s, double *gbps, const char **width, const char **speed,
		       struct hwc_arena *a)
{
	char *end;
	*width = *speed = NULL;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	double v = strtod(s, &end);
	if (end == s || v < 0 || v > 100000)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (!starts_with(end, "Gb/sec"))
		return -EINVAL;
	*gbps = v;
	const char *open = strchr(end, '(');
	const char *close = open ? strchr(open, ')') : NULL;
	if (open && close) {
		char *in = hwc_arena_strndup(a, open + 1, (size_t)(close - open - 1));
		char *tok[4];
		size_t n = in ? tokenize(in, tok, 4) : 0;
		if (n >= 1)
			*width = tok[0];
		if (n >= 2)
			*speed = tok[1];
	}
	return 0;
}

const char *hwc_mlx_state_name(const char *s, struct hwc_arena *a)
{
	const char *c = strchr(s, ':');
	const char *p = c ? c + 1 : s;
	while (*p == ' ')
		p++;
	return *p ? hwc_arena_strdup(a, p) : NULL;
}

int hwc_mlx_parse_lockdown(const char *s, struct hwc_arena *a, const char **mode)
{
	const char *w;
	size_t n;
	if (hwc_bracketed(s, strlen(s), &w, &n) < 0)
		return -EINVAL;
	*mode = hwc_arena_strndup(a, w, n);
	return *mode ? 0 : -ENOMEM;
}

int hwc_mlx_parse_ethtool_fw(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fstr *fw,
			     struct hwc_fstr *psid)
{
	memset(fw, 0, sizeof(*fw));
	memset(psid, 0, sizeof(*psid));
	struct lines l = {buf, buf + len};
	char *line;
	while ((line = next_line(&l, a, NULL))) {
		const char *v = kv_value(trim(line), "firmware-version");
		if (!v)
			continue;
		char *copy = hwc_arena_strdup(a, v);
		char *tok[4];
		size_t n = copy ? tokenize(copy, tok, 4) : 0;
		if (n == 0)
			break;
		HWC_SET(*fw, tok[0]);
		if (n >= 2 && tok[1][0] == '(' && tok[1][strlen(tok[1]) - 1] == ')') {
			tok[1][strlen(tok[1]) - 1] = 0;
			HWC_SET(*psid, tok[1] + 1);
		} else {
			HWC_FAIL(*psid, HWC_ST_ABSENT, 0, "ethtool -i printed no (PSID) after the version");
		}
		return 0;
	}
	HWC_FAIL(*fw, HWC_ST_INVALID, 0, "ethtool -i printed no firmware-version line");
	HWC_FAIL(*psid, HWC_ST_INVALID, 0, "ethtool -i printed no firmware-version line");
	return -EINVAL;
}

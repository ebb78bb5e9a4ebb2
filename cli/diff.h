/* SPDX-License-Identifier: MIT */
/* Comparing two facts documents (a baseline and now): what changed per card, and what regressed. */
#ifndef HWC_CLI_DIFF_H
#define HWC_CLI_DIFF_H

#include <jansson.h>
#include <stddef.h>

struct hwc_profile;

struct hwc_diff_opts {
	double temp_noise_degc;   /* a temperature rise above this is a regression (default 5) */
	double probe_tol_pct;     /* a probe bandwidth drop above this percent is one (default 5) */
	const struct hwc_profile *profile; /* --profile: the intended firmware configuration; NULL none */
};

#define HWC_DIFF_TEMP_NOISE_DEGC 5.0
#define HWC_DIFF_PROBE_TOL_PCT 5.0

/* Compares two "facts" objects (the value of "facts" in a facts or report document). Pure: reads
 * only its arguments. Returns {"cards": [...], "host": {"changes": [...]}, "summary": {...}} or
 * NULL when out of memory. Each change is {"kind", "item", "before", "after", "verdict",
 * "message"} with verdict one of "regression", "change", "improvement", "unknown". */
json_t *hwc_diff_facts(const json_t *before, const json_t *after, const struct hwc_diff_opts *o);

struct hwc_cli;
/* Loads one facts document: path is a snapshot tar (its hwcheck/facts.json), an untarred snapshot
 * (DIR/hwcheck/facts.json, else DIR collected as a --root), or a facts/report JSON file; NULL is
 * --facts if given, else this machine (or --root). Prints why not and sets *ec on failure. */
json_t *hwc_cli_load_doc(const struct hwc_cli *c, const char *path, int *ec);
/* The inspected host's name in a facts or report document: facts.host.hostname, else
 * run.hostname when the run read its own machine; NULL when unknown. */
const char *hwc_cli_doc_hostname(const json_t *doc);

/* A value for a message: the string, the number, "unknown" for null. */
void hwc_diff_fmt_value(char *buf, size_t sz, const json_t *v);

/* Number of regressions in a result of hwc_diff_facts. */
long long hwc_diff_regressions(const json_t *diff);

#endif

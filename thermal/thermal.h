/* SPDX-License-Identifier: MIT */
/* Temperatures: hwmon sensors, thermal zones and the cards' own sensors. */
#ifndef HWC_THERMAL_H
#define HWC_THERMAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/env.h"
#include "core/facts.h"

/* Where a temperature came from (JSON "source"). */
enum hwc_thermal_source {
	HWC_THERMAL_HWMON,        /* sys/class/hwmon/hwmonN/tempK_* */
	HWC_THERMAL_ZONE,         /* sys/class/thermal/thermal_zoneN/temp */
	HWC_THERMAL_MSTREG,       /* mstreg MTMP through mlx/ (no kernel sensor) */
	HWC_THERMAL_MSTMGET_TEMP, /* mstmget_temp through mlx/ */
	HWC_THERMAL__NSOURCES
};

struct hwc_thermal_sensor {
	const char *chip;  /* hwmon "name" (mlx5, k10temp, coretemp, nvme, pch_*), zone "type" */
	const char *label; /* tempK_label, else "tempK"; for zones the zone directory name */
	struct hwc_fi64 temp_mdegc;
	struct hwc_fi64 crit_mdegc;    /* tempK_crit, or a zone's "critical" trip point */
	struct hwc_fi64 max_mdegc;     /* tempK_max */
	struct hwc_fi64 highest_mdegc; /* tempK_highest: the most since reset (mlx5) */
	struct hwc_fstr bdf;           /* the PCI function the sensor belongs to */
	enum hwc_thermal_source source;
	const char *input_path; /* root-relative tempK_input / zone temp; not in JSON (sampling) */
};

/* ---- thermal parts: a collector with its own file and field table --------------------------
 * One line each in HWC_THERMAL_PARTS: X(member, type, "description"), type a struct whose first
 * member is its struct hwc_fmeta (the part's status). That line alone makes `member` a member of
 * struct hwc_thermal_facts, declares the part's collector hwc_thermal_collect_<member>(env,
 * facts, &member) (it reads through the root or the runner, may read the sensors already
 * collected and f->mlx, and gives every fact a value or a status) and its field table
 * hwc_thermal_<member>_table (both in thermal/<part>.c), has hwc_thermal_collect call it after
 * the sensors and writes it as facts.thermal.<member> after them. The part's struct sits above
 * the list. Adding a fact: docs/DESIGN.md. */
#define HWC_THERMAL_PARTS(X)

struct hwc_thermal_facts;
#define HWC_THERMAL_PART_DECL(m, T, doc_)                                                          \
	void hwc_thermal_collect_##m(struct hwc_env *e, struct hwc_facts *f, T *out);              \
	extern const struct hwc_jtable hwc_thermal_##m##_table;
struct hwc_jtable;
HWC_THERMAL_PARTS(HWC_THERMAL_PART_DECL)
#define HWC_THERMAL_PART_MEMBER(m, T, doc_) T m;

struct hwc_thermal_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
	HWC_VEC(struct hwc_thermal_sensor) sensors; /* sorted by (chip, bdf, label) */
	HWC_THERMAL_PARTS(HWC_THERMAL_PART_MEMBER)
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_thermal_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_thermal_to_json(const struct hwc_facts *f);
int hwc_thermal_from_json(const json_t *j, struct hwc_facts *f);
/* The field table of facts.thermal (core/json.h). */
extern const struct hwc_jtable hwc_thermal_table;

const char *hwc_thermal_source_name(enum hwc_thermal_source s);

/* For the card's temperature when the kernel has no mlx5 sensor (before 6.6, or no MTMP in the
 * firmware's MCAM): adds chip "mlx5", label "asic", with source mstreg or mstmget_temp, for bdf,
 * unless an hwmon or thermal-zone sensor of that bdf is already there (the kernel's own reading
 * wins). hwc_thermal_collect calls it for every f->mlx adapter with its
 * registers.temp_mdegc (source from registers.temp_source); a failed read is added too, so its
 * status is reported, but not one whose tool is absent or cannot reach the card (VFs only).
 * Returns 0, -EEXIST when a kernel sensor covers bdf, or -ENOMEM. Keeps the sort order. */
int hwc_thermal_add_card_temp(struct hwc_facts *f, const char *bdf,
			      const struct hwc_fi64 *temp_mdegc, enum hwc_thermal_source source);

/* ---- sampling (the probe watches a card heat up under load) --------------------------------
 * Reads n sensor inputs (root-relative paths, e.g. sensors[i].input_path) `count` times,
 * interval_ms apart, through the env; after each round calls fn(ctx, round, elapsed_ms, vals, n)
 * with one fact per path (millidegrees; status when a read fails). fn returning non-zero stops
 * early. On a replayed root the rounds are not spaced in time (a capture does not change), so
 * tests run instantly; elapsed_ms then says 0. The whole-run budget (--timeout) stops it too.
 * Returns the number of rounds done, or -EINVAL / -ENOMEM. */
typedef int (*hwc_thermal_sample_fn)(void *ctx, unsigned round, unsigned elapsed_ms,
				     const struct hwc_fi64 *vals, size_t n);
int hwc_thermal_sample(struct hwc_env *e, struct hwc_arena *a, const char *const *paths, size_t n,
		       unsigned interval_ms, unsigned count, hwc_thermal_sample_fn fn, void *ctx);

/* The sensors of one card (bdf, any function of it when `any_function`): their input paths,
 * for hwc_thermal_sample. Returns how many were written to paths (at most max). */
size_t hwc_thermal_card_inputs(const struct hwc_thermal_facts *t, const char *bdf,
			       bool any_function, const char **paths, size_t max);

/* ---- pure helpers (fuzzed) ------------------------------------------------------------------ */

/* hwmon attribute name "temp12_input" -> index 12 and the suffix "input". Returns 0 or -EINVAL
 * for names that are not temperature attributes. */
int hwc_hwmon_attr_parse(const char *name, unsigned *index, const char **suffix);
/* A millidegree value as sysfs prints it ("46000\n", "-5000"); 0, -EINVAL or -ERANGE (outside
 * -273150 .. 1000000, the range of a real sensor). */
int hwc_thermal_parse_mdegc(const char *buf, size_t len, int64_t *out);

#endif

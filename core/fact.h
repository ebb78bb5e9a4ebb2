/* SPDX-License-Identifier: MIT */
/* Typed fact values: every value carries the status of how (or why not) it was known. */
#ifndef HWC_CORE_FACT_H
#define HWC_CORE_FACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a value is or is not known. HWC_ST_UNSET (0) means no collector tried: a zeroed struct is
 * honest by default. The JSON names are in hwc_status_name(). */
enum hwc_status {
	HWC_ST_UNSET = 0,    /* "not_collected": nobody looked */
	HWC_ST_OK,           /* "ok" */
	HWC_ST_ABSENT,       /* "absent": the file, attribute, tool or device does not exist */
	HWC_ST_NEEDS_ROOT,   /* "needs_root": visible only with privileges we lack */
	HWC_ST_UNREADABLE,   /* "unreadable": I/O failed; err holds errno */
	HWC_ST_TRUNCATED,    /* "truncated": shorter than the format requires */
	HWC_ST_UNSUPPORTED,  /* "unsupported": the device/firmware/kernel cannot report it */
	HWC_ST_TIMEOUT,      /* "timeout": the source did not answer in time */
	HWC_ST_INVALID,      /* "invalid": present but not parseable as the expected type */
	HWC_ST_BLOCKED,      /* "blocked": refused by policy (kernel lockdown, --no-tools) */
	HWC_ST__COUNT
};

const char *hwc_status_name(enum hwc_status st);
/* Returns HWC_ST__COUNT for an unknown name. */
enum hwc_status hwc_status_from_name(const char *name);

/* The meta part every fact shares. `detail` is an arena string or NULL. */
struct hwc_fmeta {
	enum hwc_status st;
	int err;            /* errno when st == HWC_ST_UNREADABLE (or another failing syscall) */
	const char *detail; /* human reason: "config space is 64 bytes without CAP_SYS_ADMIN" */
};

struct hwc_fi64 { struct hwc_fmeta m; int64_t v; };
struct hwc_fu64 { struct hwc_fmeta m; uint64_t v; };
struct hwc_ff64 { struct hwc_fmeta m; double v; };
struct hwc_fbool { struct hwc_fmeta m; bool v; };
struct hwc_fstr { struct hwc_fmeta m; const char *v; }; /* v is an arena string */

/* A fixed-size array fact (8 priorities, 64 DSCP code points): m is the status of the whole; an
 * element without has[i] is written as null (the source listed nothing for it). */
#define HWC_FSLOTS_MAX 64
struct hwc_fslots {
	struct hwc_fmeta m;
	unsigned n;
	bool is_bool;
	bool has[HWC_FSLOTS_MAX];
	int64_t v[HWC_FSLOTS_MAX];
};
/* n elements (at most HWC_FSLOTS_MAX), none known yet: absent with detail. */
void hwc_fslots_init(struct hwc_fslots *r, unsigned n, bool is_bool, const char *detail);
/* The array is known (with no element yet unless it was known already). */
void hwc_fslots_ok(struct hwc_fslots *r);
/* Element i is v (the array becomes ok); an i beyond n is ignored. */
void hwc_fslots_set(struct hwc_fslots *r, unsigned i, int64_t v);

#define hwc_ok(f) ((f).m.st == HWC_ST_OK)

/* Setters: mark a fact known with a value. */
#define HWC_SET(f, val)                                                                            \
	do {                                                                                       \
		(f).v = (val);                                                                     \
		(f).m.st = HWC_ST_OK;                                                              \
		(f).m.err = 0;                                                                     \
		(f).m.detail = NULL;                                                               \
	} while (0)

static inline void hwc_fmeta_set(struct hwc_fmeta *m, enum hwc_status st, int err,
				 const char *detail)
{
	m->st = st;
	m->err = err;
	m->detail = detail;
}

/* Copy only the status part (the value of a failed fact is meaningless). */
#define HWC_FAIL(f, st_, err_, detail_) hwc_fmeta_set(&(f).m, (st_), (err_), (detail_))
/* The same status for the n facts whose statuses are m[]: facts not known for one reason. */
void hwc_fmeta_set_all(struct hwc_fmeta *const *m, size_t n, enum hwc_status st, const char *detail);

#endif

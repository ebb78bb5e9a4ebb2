/* SPDX-License-Identifier: MIT */
/* SIOCETHTOOL on the live machine, printed as ethtool prints it; recordings everywhere else. */
#include "hwinfo/ethtool_io.h"

#include <errno.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/runner.h"
#include "core/util.h"

/* Bound on strings of one set: mlx5 with 256 channels reports ~20000 counters. */
#define SSET_MAX 65536

static enum hwc_status status_of_errno(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return HWC_ST_UNSUPPORTED;
	case ENODEV:
	case ENOENT:
	case ENXIO:
		return HWC_ST_ABSENT;
	case EPERM:
	case EACCES:
		return HWC_ST_NEEDS_ROOT;
	case ETIMEDOUT:
		return HWC_ST_TIMEOUT;
	default:
		return HWC_ST_UNREADABLE;
	}
}

/* ------------------------------------------------------------------ live side */

struct live {
	int fd;
	const char *ifname;
};

static int ioc(const struct live *l, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, l->ifname, strlen(l->ifname));
	ifr.ifr_data = data;
	return ioctl(l->fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* Only drivers that report a maximum have a setting; ethtool 6.x prints "n/a" for the others. */
static void put_pair_u32(FILE *o, const char *label, uint32_t v, uint32_t max)
{
	if (max)
		fprintf(o, "%s%u\n", label, v);
	else
		fprintf(o, "%sn/a\n", label);
}

/* ethtool -g and -l: one ioctl whose answer (cmd first, then u32 members) is printed as a "<what>
 * parameters" block of four maximums, then the four settings (n/a without a maximum). */
struct max_cur {
	const char *what;
	uint32_t cmd;
	struct {
		const char *label;
		size_t max, cur; /* offsets of the u32 members */
	} f[4];
};
#define RING(label, m) {label, offsetof(struct ethtool_ringparam, m##_max_pending), \
			offsetof(struct ethtool_ringparam, m##_pending)}
static const struct max_cur rings = {"Ring", ETHTOOL_GRINGPARAM,
	{RING("RX:\t\t", rx), RING("RX Mini:\t", rx_mini), RING("RX Jumbo:\t", rx_jumbo),
	 RING("TX:\t\t", tx)}};
#define CHAN(label, m) {label, offsetof(struct ethtool_channels, max_##m), \
			offsetof(struct ethtool_channels, m##_count)}
static const struct max_cur channels = {"Channel", ETHTOOL_GCHANNELS,
	{CHAN("RX:\t\t", rx), CHAN("TX:\t\t", tx), CHAN("Other:\t\t", other),
	 CHAN("Combined:\t", combined)}};

static uint32_t u32_at(const uint32_t *answer, size_t off)
{
	uint32_t v;
	memcpy(&v, (const char *)answer + off, sizeof(v));
	return v;
}

static int live_max_cur(const struct live *l, FILE *o, const struct max_cur *q)
{
	uint32_t answer[16] = {0}; /* larger than either answer */
	_Static_assert(sizeof(answer) >= sizeof(struct ethtool_ringparam) &&
			       sizeof(answer) >= sizeof(struct ethtool_channels), "answer size");
	answer[0] = q->cmd;
	int rc = ioc(l, answer);
	if (rc)
		return rc;
	fprintf(o, "%s parameters for %s:\nPre-set maximums:\n", q->what, l->ifname);
	for (int i = 0; i < 4; i++)
		put_pair_u32(o, q->f[i].label, u32_at(answer, q->f[i].max), u32_at(answer, q->f[i].max));
	fprintf(o, "Current hardware settings:\n");
	for (int i = 0; i < 4; i++)
		put_pair_u32(o, q->f[i].label, u32_at(answer, q->f[i].cur), u32_at(answer, q->f[i].max));
	return 0;
}

static int live_rings(const struct live *l, FILE *o)
{
	return live_max_cur(l, o, &rings);
}

static int live_channels(const struct live *l, FILE *o)
{
	return live_max_cur(l, o, &channels);
}

static int live_pause(const struct live *l, FILE *o)
{
	struct ethtool_pauseparam p = {.cmd = ETHTOOL_GPAUSEPARAM};
	int rc = ioc(l, &p);
	if (rc)
		return rc;
	fprintf(o, "Pause parameters for %s:\nAutonegotiate:\t%s\nRX:\t\t%s\nTX:\t\t%s\n", l->ifname,
		p.autoneg ? "on" : "off", p.rx_pause ? "on" : "off", p.tx_pause ? "on" : "off");
	return 0;
}

static void put_fixed_str(FILE *o, const char *key, const char *s, size_t cap)
{
	fprintf(o, "%s: %.*s\n", key, (int)strnlen(s, cap), s);
}

static int live_drvinfo(const struct live *l, FILE *o)
{
	struct ethtool_drvinfo d = {.cmd = ETHTOOL_GDRVINFO};
	int rc = ioc(l, &d);
	if (rc)
		return rc;
	put_fixed_str(o, "driver", d.driver, sizeof(d.driver));
	put_fixed_str(o, "version", d.version, sizeof(d.version));
	put_fixed_str(o, "firmware-version", d.fw_version, sizeof(d.fw_version));
	put_fixed_str(o, "expansion-rom-version", d.erom_version, sizeof(d.erom_version));
	put_fixed_str(o, "bus-info", d.bus_info, sizeof(d.bus_info));
	fprintf(o,
		"supports-statistics: %s\nsupports-test: %s\nsupports-eeprom-access: %s\n"
		"supports-register-dump: %s\nsupports-priv-flags: %s\n",
		d.n_stats ? "yes" : "no", d.testinfo_len ? "yes" : "no",
		d.eedump_len ? "yes" : "no", d.regdump_len ? "yes" : "no",
		d.n_priv_flags ? "yes" : "no");
	return 0;
}

/* Strings of one set (ETH_SS_*): count from GSSET_INFO, then GSTRINGS. Caller frees *out. */
static int live_strings(const struct live *l, uint32_t set, struct ethtool_gstrings **out,
			uint32_t *n)
{
	/* the header and one u32 of data[] (a flexible array: no struct can embed it) */
	uint64_t raw[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = {0};
	struct ethtool_sset_info *si = (struct ethtool_sset_info *)raw;
	si->cmd = ETHTOOL_GSSET_INFO;
	si->sset_mask = 1ULL << set;
	int rc = ioc(l, si);
	if (rc)
		return rc;
	if (!(si->sset_mask & (1ULL << set)))
		return -EOPNOTSUPP;
	uint32_t count = si->data[0];
	if (count > SSET_MAX)
		return -E2BIG;
	struct ethtool_gstrings *gs = calloc(1, sizeof(*gs) + (size_t)count * ETH_GSTRING_LEN);
	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = set;
	gs->len = count;
	rc = ioc(l, gs);
	if (rc) {
		free(gs);
		return rc;
	}
	/* the kernel may report fewer than it announced; never more than we allocated */
	*n = gs->len < count ? gs->len : count;
	*out = gs;
	return 0;
}

static const char *gstr(const struct ethtool_gstrings *gs, uint32_t i, int *len)
{
	const char *s = (const char *)gs->data + (size_t)i * ETH_GSTRING_LEN;
	*len = (int)strnlen(s, ETH_GSTRING_LEN);
	return s;
}

/* A query whose answer is a header of hdr bytes (cmd and count, two u32, first) and count
 * entries of per bytes (ETHTOOL_GSTATS, ETHTOOL_GFEATURES): the answer, freed by the caller, or
 * NULL with the error in *rc. */
static void *live_counted(const struct live *l, uint32_t cmd, size_t hdr, uint32_t count,
			  size_t per, int *rc)
{
	uint32_t *q = calloc(1, hdr + (size_t)count * per);
	if (!q) {
		*rc = -ENOMEM;
		return NULL;
	}
	q[0] = cmd;
	q[1] = count;
	if ((*rc = ioc(l, q)) != 0) {
		free(q);
		return NULL;
	}
	return q;
}

/* The names of string set `set` (*gs, *n of them, freed by the caller) and the counted answer to
 * cmd for them: one entry of per bytes for every names_per names. NULL with the error in *rc. */
static void *live_named(const struct live *l, uint32_t set, uint32_t cmd, size_t hdr,
			uint32_t names_per, size_t per, struct ethtool_gstrings **gs, uint32_t *n,
			int *rc)
{
	*gs = NULL;
	*n = 0;
	if ((*rc = live_strings(l, set, gs, n)) != 0)
		return NULL;
	return live_counted(l, cmd, hdr, (*n + names_per - 1) / names_per, per, rc);
}

static int live_stats(const struct live *l, FILE *o)
{
	struct ethtool_gstrings *gs;
	uint32_t n;
	int rc;
	struct ethtool_stats *st = live_named(l, ETH_SS_STATS, ETHTOOL_GSTATS, sizeof(*st), 1,
					      sizeof(uint64_t), &gs, &n, &rc);
	if (st) {
		uint32_t m = st->n_stats < n ? st->n_stats : n;
		fprintf(o, "NIC statistics:\n");
		for (uint32_t i = 0; i < m; i++) {
			int len;
			const char *s = gstr(gs, i, &len);
			fprintf(o, "     %.*s: %llu\n", len, s, (unsigned long long)st->data[i]);
		}
	}
	free(st);
	free(gs);
	return rc;
}

/* The legacy names ethtool prints first, each "on" when any of its kernel features is active
 * (what the kernel's legacy ETHTOOL_G* answers for these masks). */
static const struct {
	const char *legacy;
	const char *prefix; /* kernel feature names starting with this ... */
	const char *suffix; /* ... and ending with this */
} legacy_features[] = {
	{"rx-checksumming", "rx-checksum", ""},
	{"tx-checksumming", "tx-checksum-", ""},
	{"scatter-gather", "tx-scatter-gather", ""},
	{"tcp-segmentation-offload", "tx-tcp", "segmentation"},
	{"generic-segmentation-offload", "tx-generic-segmentation", ""},
	{"generic-receive-offload", "rx-gro", ""},
	{"large-receive-offload", "rx-lro", ""},
};

static bool feature_in(const char *s, int len, const char *prefix, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	if ((size_t)len < pl + sl || strncmp(s, prefix, pl) != 0)
		return false;
	if (!sl)
		return (size_t)len == pl || prefix[pl - 1] == '-';
	return strncmp(s + len - (int)sl, suffix, sl) == 0;
}

static int live_features(const struct live *l, FILE *o)
{
	struct ethtool_gstrings *gs;
	uint32_t n;
	int rc;
	struct ethtool_gfeatures *gf =
		live_named(l, ETH_SS_FEATURES, ETHTOOL_GFEATURES, sizeof(*gf), 32,
			   sizeof(struct ethtool_get_features_block), &gs, &n, &rc);
	if (gf) {
		fprintf(o, "Features for %s:\n", l->ifname);
		for (size_t k = 0; k < HWC_ARRAY_SIZE(legacy_features); k++) {
			bool any = false, on = false;
			for (uint32_t i = 0; i < n; i++) {
				int len;
				const char *s = gstr(gs, i, &len);
				if (!feature_in(s, len, legacy_features[k].prefix,
						legacy_features[k].suffix))
					continue;
				any = true;
				on = on || (gf->features[i / 32].active >> (i % 32) & 1);
			}
			if (any)
				fprintf(o, "%s: %s\n", legacy_features[k].legacy, on ? "on" : "off");
		}
		for (uint32_t i = 0; i < n; i++) {
			int len;
			const char *s = gstr(gs, i, &len);
			if (!len)
				continue;
			const struct ethtool_get_features_block *b = &gf->features[i / 32];
			uint32_t bit = 1U << (i % 32);
			bool active = b->active & bit, requested = b->requested & bit;
			bool fixed = !(b->available & bit) || (b->never_changed & bit);
			fprintf(o, "%.*s: %s%s%s\n", len, s, active ? "on" : "off",
				fixed ? " [fixed]" : "",
				requested != active ? (requested ? " [requested on]"
								 : " [requested off]")
						    : "");
		}
	}
	free(gf);
	free(gs);
	return rc;
}

/* Each query: its ethtool option, ethtool's own error wording, and how it is asked live. */
static const struct {
	const char *opt;
	const char *what;
	int (*live)(const struct live *l, FILE *o);
} queries[HWC_ETHTOOL__COUNT] = {
	[HWC_ETHTOOL_RINGS] = {"-g", "Cannot get device ring settings", live_rings},
	[HWC_ETHTOOL_CHANNELS] = {"-l", "Cannot get device channel parameters", live_channels},
	[HWC_ETHTOOL_FEATURES] = {"-k", "Cannot get device features", live_features},
	[HWC_ETHTOOL_PAUSE] = {"-a", "Cannot get device pause settings", live_pause},
	[HWC_ETHTOOL_STATS] = {"-S", "Cannot get stats information", live_stats},
	[HWC_ETHTOOL_DRVINFO] = {"-i", "Cannot get driver information", live_drvinfo},
};

const char *hwc_ethtool_option(enum hwc_ethtool_query q)
{
	return (unsigned)q < HWC_ETHTOOL__COUNT ? queries[q].opt : "?";
}

static int live_query(const char *ifname, enum hwc_ethtool_query q, FILE *o)
{
	if (!*ifname || strlen(ifname) >= IFNAMSIZ || strchr(ifname, '/'))
		return -ENODEV;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct live l = {fd, ifname};
	int rc = (unsigned)q < HWC_ETHTOOL__COUNT ? queries[q].live(&l, o) : -EINVAL;
	close(fd);
	return rc;
}

/* In record mode the answer is kept where a capture of the real tool would be. */
static void record(struct hwc_env *e, struct hwc_arena *a, const char *dir, const char *out,
		   size_t out_len, const char *err, int errnum)
{
	if (!hwc_env_recording(e))
		return;
	char res[64];
	int n = errnum ? snprintf(res, sizeof(res), "exit=1\nerrno=%d\n", errnum)
		       : snprintf(res, sizeof(res), "exit=0\n");
	hwc_env_capture_blob(e, hwc_arena_printf(a, "%s/stdout", dir), out, out_len);
	hwc_env_capture_blob(e, hwc_arena_printf(a, "%s/stderr", dir), err, strlen(err));
	hwc_env_capture_blob(e, hwc_arena_printf(a, "%s/result", dir), res, (size_t)n);
}

static int get_live(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
		    enum hwc_ethtool_query q, const char *dir, const char *cmd, const char **text,
		    size_t *len, struct hwc_fmeta *m)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *o = open_memstream(&buf, &blen);
	if (!o) {
		hwc_fmeta_set(m, HWC_ST_UNREADABLE, ENOMEM, hwc_arena_printf(a, "%s: out of memory", cmd));
		return -ENOMEM;
	}
	int rc = live_query(ifname, q, o);
	if (fclose(o) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc < 0) {
		free(buf);
		const char *err = hwc_arena_printf(a, "%s: %s\n", queries[q].what, strerror(-rc));
		record(e, a, dir, "", 0, err ? err : "", -rc);
		hwc_fmeta_set(m, status_of_errno(-rc), -rc,
			      hwc_arena_printf(a, "%s: %s", cmd, strerror(-rc)));
		return rc;
	}
	char *t = hwc_arena_strndup(a, buf ? buf : "", blen);
	free(buf);
	if (!t) {
		hwc_fmeta_set(m, HWC_ST_UNREADABLE, ENOMEM, NULL);
		return -ENOMEM;
	}
	record(e, a, dir, t, blen, "", 0);
	*text = t;
	*len = blen;
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
	return 0;
}

/* ------------------------------------------------------------------ replay side */

/* A failed capture of the real tool has only its stderr ("Cannot get ...: Operation not
 * supported"); our own recordings also keep errno= in result. */
static int errno_from_stderr(const char *s)
{
	static const struct {
		const char *text;
		int err;
	} known[] = {
		{"Operation not supported", EOPNOTSUPP}, {"No such device", ENODEV},
		{"Operation not permitted", EPERM},      {"Permission denied", EACCES},
		{"Connection timed out", ETIMEDOUT},
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(known); i++)
		if (strstr(s, known[i].text))
			return known[i].err;
	return EIO;
}

static int get_replay(struct hwc_env *e, struct hwc_arena *a, const char *dir, const char *cmd,
		      const char **text, size_t *len, struct hwc_fmeta *m)
{
	if (!hwc_env_is_dir(e, dir)) {
		hwc_fmeta_set(m, HWC_ST_ABSENT, 0,
			      hwc_env_sample(e) ? hwc_arena_printf(a, "%s: not in --watch sample %u of this capture",
								   cmd, hwc_env_sample(e))
						: hwc_arena_printf(a, "%s: not in this capture", cmd));
		return -ENOENT;
	}
	struct hwc_run_recorded rec = {0};
	hwc_run_read_recorded(e, a, dir, &rec);
	int exit_code = rec.exit_code, errnum = rec.errnum;
	if (rec.timeout) {
		hwc_fmeta_set(m, HWC_ST_TIMEOUT, 0,
			      hwc_arena_printf(a, "%s: no answer before its timeout (recorded)", cmd));
		return -ETIMEDOUT;
	}
	if (exit_code != 0) {
		if (errnum <= 0) {
			struct hwc_fstr err = {0};
			hwc_read_str(e, hwc_arena_printf(a, "%s/stderr", dir), a, &err);
			errnum = errno_from_stderr(hwc_ok(err) ? err.v : "");
		}
		hwc_fmeta_set(m, status_of_errno(errnum), errnum,
			      hwc_arena_printf(a, "%s: %s (recorded, exit %d)", cmd, strerror(errnum),
					       exit_code));
		return -errnum;
	}
	const unsigned char *d = NULL;
	size_t n = 0;
	struct hwc_fmeta rm;
	int rc = hwc_read_bytes(e, hwc_arena_printf(a, "%s/stdout", dir),
				hwc_env_cmd_output_cap(e), a, &d, &n, &rm);
	if (rc < 0 && rm.st != HWC_ST_TRUNCATED) {
		*m = rm;
		return rc;
	}
	char *t = hwc_arena_strndup(a, (const char *)d, n);
	if (!t) {
		hwc_fmeta_set(m, HWC_ST_UNREADABLE, ENOMEM, NULL);
		return -ENOMEM;
	}
	*text = t;
	*len = strlen(t); /* a NUL inside the capture ends it */
	if (rc < 0) {
		*m = rm;
		return rc;
	}
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
	return 0;
}

int hwc_ethtool_get(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
		    enum hwc_ethtool_query q, const char **text, size_t *len, struct hwc_fmeta *m)
{
	if ((unsigned)q >= HWC_ETHTOOL__COUNT || !ifname) {
		hwc_fmeta_set(m, HWC_ST_INVALID, EINVAL, "bad ethtool query");
		return -EINVAL;
	}
	const char *argv[] = {"ethtool", queries[q].opt, ifname, NULL};
	const char *dir = hwc_run_record_dir(a, argv);
	const char *cmd = hwc_argv_str(a, argv);
	if (!dir || !cmd) {
		hwc_fmeta_set(m, HWC_ST_UNREADABLE, ENOMEM, NULL);
		return -ENOMEM;
	}
	/* The ioctl answers for the running kernel only: any other root is a capture. */
	if (hwc_env_mode(e) == HWC_RUN_REPLAY || !hwc_env_is_live(e))
		return get_replay(e, a, dir, cmd, text, len, m);
	return get_live(e, a, ifname, q, dir, cmd, text, len, m);
}

/* SPDX-License-Identifier: MIT */
/* Parsers of ethtool's text (-g -l -k -a -S -i), tolerant of the variants real captures show:
 * old and new layouts, "n/a", "[fixed]", indentation, mailer blank lines and no-break spaces. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>

#include "core/scan.h"
#include "core/util.h"

const char *const hwc_netdev_counter_names[HWC_NETDEV_NCOUNTERS] = {
	"rx_discards_phy",                /* dropped by the port: no receive buffer, congested */
	"rx_out_of_buffer",               /* a receive queue had no software buffer posted */
	"rx_buffer_passed_thres_phy",     /* the port buffer passed its threshold */
	"tx_discards_phy",
	"rx_pci_signal_integrity",        /* PCIe receive errors seen by the card */
	"tx_pci_signal_integrity",
	"outbound_pci_stalled_rd",        /* card waited on the host for reads ... */
	"outbound_pci_stalled_wr",        /* ... and writes (PCIe back-pressure) */
	"outbound_pci_stalled_rd_events",
	"outbound_pci_stalled_wr_events",
	"rx_crc_errors_phy",
	"rx_symbol_err_phy",
	"rx_corrected_bits_phy",
	"link_down_events_phy",
	"rx_pause_ctrl_phy",              /* pause frames received: the peer is congested */
	"tx_pause_ctrl_phy",              /* pause frames sent: this host is congested */
	"rx_steer_missed_packets",
	/* the wire (issue 14): FEC-uncorrected symbols, PCS errors, FEC-corrected bits per lane,
	 * and the port module events the driver counts (en_stats.c, counters.rst) */
	"rx_pcs_symbol_err_phy",
	"rx_err_lane_0_phy",
	"rx_err_lane_1_phy",
	"rx_err_lane_2_phy",
	"rx_err_lane_3_phy",
	"module_unplug",
	"module_bus_stuck",
	"module_high_temp",
	"module_bad_shorted",
	/* the bits the FEC decoder received (PPCNT phy_received_bits): the window of the BER; mlx5
	 * exports it only with a 2026 patch (net/mlx5e: Expose physical received bits counters) */
	"rx_bits_phy",
};

/* ------------------------------------------------------------------ lines */

struct line {
	const char *p; /* trimmed */
	size_t n;
};

/* ' ', tab, CR, and the UTF-8 no-break space mailers put in pasted output */
static size_t ws_len(const char *p, size_t n)
{
	if (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f'))
		return 1;
	if (n >= 2 && (unsigned char)p[0] == 0xc2 && (unsigned char)p[1] == 0xa0)
		return 2;
	return 0;
}

static struct line trim(const char *p, size_t n)
{
	size_t k;
	while (n && (k = ws_len(p, n)) != 0) {
		p += k;
		n -= k;
	}
	for (;;) {
		if (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		else if (n >= 2 && (unsigned char)p[n - 2] == 0xc2 && (unsigned char)p[n - 1] == 0xa0)
			n -= 2;
		else
			break;
	}
	return (struct line){p, n};
}

/* Next line of [*pos, len): false at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, struct line *out)
{
	const char *s;
	size_t n;
	if (!hwc_next_line(buf, len, pos, &s, &n))
		return false;
	*out = trim(s, n);
	return true;
}

static bool line_is(struct line l, const char *s)
{
	return l.n == strlen(s) && memcmp(l.p, s, l.n) == 0;
}

static bool line_starts(struct line l, const char *s)
{
	size_t n = strlen(s);
	return l.n >= n && memcmp(l.p, s, n) == 0;
}

/* Split "key: value" at the first (or last) ':'; both sides trimmed. */
static bool split_kv(struct line l, bool last, struct line *k, struct line *v)
{
	const char *c = NULL;
	for (size_t i = 0; i < l.n; i++)
		if (l.p[i] == ':') {
			c = l.p + i;
			if (!last)
				break;
		}
	if (!c)
		return false;
	*k = trim(l.p, (size_t)(c - l.p));
	*v = trim(c + 1, l.n - (size_t)(c - l.p) - 1);
	return k->n > 0;
}

static bool parse_u64(struct line v, uint64_t *out)
{
	char tmp[32];
	if (!v.n || v.n >= sizeof(tmp))
		return false;
	memcpy(tmp, v.p, v.n);
	tmp[v.n] = 0;
	return hwc_parse_u64(tmp, 10, out) == 0;
}

/* A section header of another ethtool output ("Channel parameters for eth0:") ends a block. */
static bool is_block_header(struct line l)
{
	static const char *const heads[] = {
		"Ring parameters for ",  "Channel parameters for ", "Features for ",
		"Pause parameters for ", "Coalesce parameters for ", "NIC statistics:",
		"Settings for ",         "Private flags for ",       "FEC parameters for ",
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(heads); i++)
		if (line_starts(l, heads[i]))
			return true;
	return false;
}

/* Where the block that starts with `head` begins (after its header line), 0 if it has none. */
static size_t block_start(const char *buf, size_t len, const char *head)
{
	size_t pos = 0;
	struct line l;
	while (next_line(buf, len, &pos, &l))
		if (line_starts(l, head))
			return pos;
	return 0;
}

/* Next line of the block that starts at *pos (see block_start()): false at the end of buf or
 * at the next block's header; a header as the very first line does not end it. *first starts
 * true. */
static bool next_block_line(const char *buf, size_t len, size_t *pos, bool *first,
			    struct line *out)
{
	if (!next_line(buf, len, pos, out) || (!*first && is_block_header(*out)))
		return false;
	*first = false;
	return true;
}

/* Not that command's output at all ("no " what): each of the n facts whose statuses are m[]
 * becomes invalid. Returns -EINVAL. */
static int not_output(struct hwc_fmeta *const *m, size_t n, struct hwc_arena *a, const char *src,
		      const char *what)
{
	hwc_fmeta_set_all(m, n, HWC_ST_INVALID, hwc_arena_printf(a, "%s: no %s", src, what));
	return -EINVAL;
}

/* ------------------------------------------------------------------ -g and -l */

/* "Pre-set maximums:" then "Current hardware settings:", each "KEY: N|n/a". keys[i] fills
 * max_out[i] and cur_out[i]. */
static int parse_max_cur(const char *buf, size_t len, const char *head, const char *src,
			 struct hwc_arena *a, const char *const *keys, size_t nkeys,
			 struct hwc_fi64 *const *max_out, struct hwc_fi64 *const *cur_out)
{
	for (size_t i = 0; i < nkeys; i++) {
		HWC_FAIL(*max_out[i], HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no maximum for %s", src, keys[i]));
		HWC_FAIL(*cur_out[i], HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no current value for %s", src, keys[i]));
	}
	size_t pos = block_start(buf, len, head);
	bool first = true, seen = false;
	int section = 0; /* 1 maximums, 2 current */
	struct line l, k, v;
	while (next_line(buf, len, &pos, &l)) {
		if (line_is(l, "Pre-set maximums:")) {
			section = 1;
			seen = true;
			first = false;
			continue;
		}
		if (line_is(l, "Current hardware settings:")) {
			section = 2;
			seen = true;
			first = false;
			continue;
		}
		if (!first && is_block_header(l))
			break;
		first = false;
		if (!section || !split_kv(l, false, &k, &v))
			continue;
		for (size_t i = 0; i < nkeys; i++) {
			if (!line_is(k, keys[i]))
				continue;
			struct hwc_fi64 *f = section == 1 ? max_out[i] : cur_out[i];
			uint64_t x;
			if (v.n == 3 && memcmp(v.p, "n/a", 3) == 0)
				HWC_FAIL(*f, HWC_ST_UNSUPPORTED, 0,
					 hwc_arena_printf(a, "%s: %s is n/a (the driver has none)",
							  src, keys[i]));
			else if (parse_u64(v, &x) && x <= INT64_MAX)
				HWC_SET(*f, (int64_t)x);
			else
				HWC_FAIL(*f, HWC_ST_INVALID, 0,
					 hwc_arena_printf(a, "%s: %s is '%.*s', expected a number",
							  src, keys[i], (int)(v.n > 40 ? 40 : v.n),
							  v.p));
		}
	}
	if (!seen) {
		const char *d = hwc_arena_printf(a, "%s: no 'Pre-set maximums:' section", src);
		for (size_t i = 0; i < nkeys; i++) {
			HWC_FAIL(*max_out[i], HWC_ST_INVALID, 0, d);
			HWC_FAIL(*cur_out[i], HWC_ST_INVALID, 0, d);
		}
		return -EINVAL;
	}
	return 0;
}

int hwc_ethtool_parse_rings(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_rings *out)
{
	static const char *const keys[] = {"RX", "TX"};
	struct hwc_fi64 *const mx[] = {&out->rx_max, &out->tx_max};
	struct hwc_fi64 *const cur[] = {&out->rx, &out->tx};
	return parse_max_cur(buf, len, "Ring parameters for ", src, a, keys, 2, mx, cur);
}

int hwc_ethtool_parse_channels(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_channels *out)
{
	static const char *const keys[] = {"Combined", "RX", "TX"};
	struct hwc_fi64 *const mx[] = {&out->combined_max, &out->rx_max, &out->tx_max};
	struct hwc_fi64 *const cur[] = {&out->combined, &out->rx, &out->tx};
	return parse_max_cur(buf, len, "Channel parameters for ", src, a, keys, 3, mx, cur);
}

/* ------------------------------------------------------------------ -k and -a */

/* "on", "off", "on [fixed]", "off [requested on]" */
static int on_off(struct line v, bool *out)
{
	if (v.n >= 2 && memcmp(v.p, "on", 2) == 0 && (v.n == 2 || v.p[2] == ' ')) {
		*out = true;
		return 0;
	}
	if (v.n >= 3 && memcmp(v.p, "off", 3) == 0 && (v.n == 3 || v.p[3] == ' ')) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Next "key: on|off" line of the block (see next_block_line()); other lines are skipped. */
static bool next_on_off(const char *buf, size_t len, size_t *pos, bool *first, struct line *k,
			bool *on)
{
	struct line l, v;
	while (next_block_line(buf, len, pos, first, &l))
		if (split_kv(l, false, k, &v) && on_off(v, on) == 0)
			return true;
	return false;
}

/* Each field is known by ethtool's legacy name (what "ethtool -k" prints) or, failing that, by
 * the kernel's feature name (what it prints for features without a legacy name). */
static const struct {
	const char *legacy, *kernel;
	size_t off;
} feature_map[] = {
	{"large-receive-offload", "rx-lro", offsetof(struct hwc_netdev_features, lro)},
	{"generic-receive-offload", "rx-gro", offsetof(struct hwc_netdev_features, gro)},
	{"rx-gro-hw", "rx-gro-hw", offsetof(struct hwc_netdev_features, gro_hw)},
	{"tcp-segmentation-offload", "tx-tcp-segmentation", offsetof(struct hwc_netdev_features, tso)},
	{"generic-segmentation-offload", "tx-generic-segmentation",
	 offsetof(struct hwc_netdev_features, gso)},
	{"rx-checksumming", "rx-checksum", offsetof(struct hwc_netdev_features, rx_checksum)},
	{"tx-checksumming", NULL, offsetof(struct hwc_netdev_features, tx_checksum)},
};
#define NFEAT HWC_ARRAY_SIZE(feature_map)

int hwc_ethtool_parse_features(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_features *out)
{
	struct hwc_fbool *f[NFEAT];
	struct hwc_fmeta *m[NFEAT];
	int prio[NFEAT]; /* 2 legacy name seen, 1 kernel name seen, 0 none */
	for (size_t i = 0; i < NFEAT; i++) {
		f[i] = (struct hwc_fbool *)((char *)out + feature_map[i].off);
		m[i] = &f[i]->m;
		prio[i] = 0;
		HWC_FAIL(*f[i], HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: no '%s'", src, feature_map[i].legacy));
	}
	size_t pos = block_start(buf, len, "Features for ");
	bool first = true, on;
	size_t matched = 0;
	struct line k;
	while (next_on_off(buf, len, &pos, &first, &k, &on)) {
		matched++;
		for (size_t i = 0; i < NFEAT; i++) {
			int p = 0;
			if (line_is(k, feature_map[i].legacy))
				p = 2;
			else if (feature_map[i].kernel && line_is(k, feature_map[i].kernel))
				p = 1;
			if (p > prio[i]) {
				prio[i] = p;
				HWC_SET(*f[i], on);
			}
		}
	}
	return matched ? 0 : not_output(m, NFEAT, a, src, "'feature: on|off' line");
}

int hwc_ethtool_parse_pause(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_pause *out)
{
	static const char *const keys[] = {"Autonegotiate", "RX", "TX"};
	struct hwc_fbool *f[] = {&out->autoneg, &out->rx, &out->tx};
	struct hwc_fmeta *m[] = {&out->autoneg.m, &out->rx.m, &out->tx.m};
	for (size_t i = 0; i < 3; i++)
		HWC_FAIL(*f[i], HWC_ST_ABSENT, 0, hwc_arena_printf(a, "%s: no '%s'", src, keys[i]));
	size_t pos = block_start(buf, len, "Pause parameters for ");
	bool first = true, on;
	size_t matched = 0;
	struct line k;
	while (next_on_off(buf, len, &pos, &first, &k, &on)) {
		for (size_t i = 0; i < 3; i++)
			if (line_is(k, keys[i])) {
				HWC_SET(*f[i], on);
				matched++;
			}
	}
	return matched ? 0 : not_output(m, 3, a, src, "'Autonegotiate/RX/TX: on|off' line");
}

/* ------------------------------------------------------------------ -S and -i */

int hwc_ethtool_parse_stats(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_counters *out)
{
	for (size_t i = 0; i < HWC_NETDEV_NCOUNTERS; i++)
		HWC_FAIL(out->v[i], HWC_ST_ABSENT, 0,
			 hwc_arena_printf(a, "%s: the driver reports no %s", src,
					  hwc_netdev_counter_names[i]));
	size_t pos = block_start(buf, len, "NIC statistics:");
	bool first = true;
	int64_t count = 0;
	struct line l, k, v;
	while (next_block_line(buf, len, &pos, &first, &l)) {
		uint64_t x;
		if (!split_kv(l, true, &k, &v) || !parse_u64(v, &x))
			continue;
		count++;
		for (size_t i = 0; i < HWC_NETDEV_NCOUNTERS; i++) {
			const char *name = hwc_netdev_counter_names[i];
			/* first occurrence wins, as the kernel lists each name once */
			if (line_is(k, name) && out->v[i].m.st != HWC_ST_OK)
				HWC_SET(out->v[i], x);
		}
	}
	if (!count) {
		struct hwc_fmeta *m[HWC_NETDEV_NCOUNTERS + 1] = {&out->count.m};
		for (size_t i = 0; i < HWC_NETDEV_NCOUNTERS; i++)
			m[i + 1] = &out->v[i].m;
		return not_output(m, HWC_NETDEV_NCOUNTERS + 1, a, src, "'name: value' counter line");
	}
	HWC_SET(out->count, count);
	return 0;
}

int hwc_ethtool_parse_drvinfo(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			      struct hwc_netdev_drvinfo *out)
{
	static const char *const keys[] = {"driver", "version", "firmware-version", "bus-info"};
	struct hwc_fstr *f[] = {&out->driver, &out->version, &out->fw_version, &out->bus_info};
	struct hwc_fmeta *m[] = {&out->driver.m, &out->version.m, &out->fw_version.m, &out->bus_info.m};
	for (size_t i = 0; i < 4; i++)
		HWC_FAIL(*f[i], HWC_ST_ABSENT, 0, hwc_arena_printf(a, "%s: no '%s'", src, keys[i]));
	size_t pos = 0, matched = 0;
	struct line l, k, v;
	while (next_line(buf, len, &pos, &l)) {
		if (!split_kv(l, false, &k, &v))
			continue;
		for (size_t i = 0; i < 4; i++)
			if (line_is(k, keys[i]) && f[i]->m.st != HWC_ST_OK) {
				matched++;
				if (!v.n) {
					HWC_FAIL(*f[i], HWC_ST_ABSENT, 0,
						 hwc_arena_printf(a, "%s: '%s' is empty", src,
								  keys[i]));
					continue;
				}
				const char *s = hwc_arena_strndup(a, v.p, v.n);
				if (s)
					HWC_SET(*f[i], s);
			}
	}
	return matched ? 0 : not_output(m, 4, a, src, "'driver:' line");
}

/* ------------------------------------------------------------------ --show-fec */

/* "FEC parameters for IF:" then "Supported/Configured FEC encodings: Auto RS" (ethtool >= 5.x;
 * "Configured FEC encodings:" before), "Active FEC encoding: RS", and with -I "Statistics:" with
 * "corrected_blocks: N" / "uncorrectable_blocks: N" (per-lane "Lane N: M" lines follow each
 * total and are skipped). */
int hwc_ethtool_parse_fec(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			  struct hwc_netdev_fec *out)
{
	HWC_FAIL(out->configured, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "%s: no 'Configured FEC encodings'", src));
	HWC_FAIL(out->active, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "%s: no 'Active FEC encoding'", src));
	const char *nostat = hwc_arena_printf(a, "%s: no FEC statistics (ethtool without -I, or the "
					      "driver reports none)", src);
	HWC_FAIL(out->corrected_blocks, HWC_ST_ABSENT, 0, nostat);
	HWC_FAIL(out->uncorrectable_blocks, HWC_ST_ABSENT, 0, nostat);
	size_t pos = block_start(buf, len, "FEC parameters for ");
	bool first = true, stats = false;
	unsigned matched = 0;
	struct line l, k, v;
	while (next_block_line(buf, len, &pos, &first, &l)) {
		if (line_is(l, "Statistics:")) {
			stats = true;
			continue;
		}
		if (!split_kv(l, false, &k, &v))
			continue;
		uint64_t x;
		if (line_is(k, "Supported/Configured FEC encodings") || line_is(k, "Configured FEC encodings")) {
			if (v.n)
				HWC_SET(out->configured, hwc_arena_strndup(a, v.p, v.n));
			matched++;
		} else if (line_is(k, "Active FEC encoding")) {
			if (v.n)
				HWC_SET(out->active, hwc_arena_strndup(a, v.p, v.n));
			matched++;
		} else if (stats && line_is(k, "corrected_blocks") && parse_u64(v, &x)) {
			HWC_SET(out->corrected_blocks, x);
		} else if (stats && line_is(k, "uncorrectable_blocks") && parse_u64(v, &x)) {
			HWC_SET(out->uncorrectable_blocks, x);
		}
	}
	struct hwc_fmeta *m[] = {&out->configured.m, &out->active.m, &out->corrected_blocks.m,
				 &out->uncorrectable_blocks.m};
	return matched ? 0 : not_output(m, 4, a, src, "'Active FEC encoding' line");
}

/* SPDX-License-Identifier: MIT */
/* The settings of a site profile that are one value each (docs/profile.md "Thresholds", "Host",
 * "RoCE"): one line per key. rules/profile.c validates a profile with it (type, range, values,
 * unknown keys) and starts from its defaults; `scripts/hwcheck-dev gen` writes from it the
 * sections of rules/default-profile.json and the key tables of docs/profile.md (the test
 * profile_keys_gen fails when they are stale). A new threshold is one line here and the rule that
 * reads it (hwc_profile_threshold(c->prof, HWC_T_<ID>)).
 *
 * X(ID, SECTION, KEY, TYPE, DEFAULT, MIN, MAX, VALUES, UNIT, SOURCE, DOC)
 *   TYPE     number, integer, boolean or string (with VALUES "a|b|c", the values allowed)
 *   DEFAULT  the default as JSON text ("85", "1e-12", "\"any\""), or NULL: absent, no expectation
 *   MIN, MAX the range of a number or integer (0, 0 for the others)
 *   UNIT     of a number ("" when none); SOURCE where the default comes from; DOC what it means
 *            and the rules that read it. */
#ifndef HWC_RULES_PROFILE_KEYS_H
#define HWC_RULES_PROFILE_KEYS_H

/* clang-format off */
#define HWC_PROFILE_KEYS(X) \
	X(CARD_TEMP_LIMIT_C, "thresholds", "card_temp_limit_c", number, "85", 0, 200, NULL, "degC", "site policy: 20 degC below the warning threshold of card_temp_warning_default_c", "THERMAL_CARD_OVER_LIMIT, THERMAL_PROBE_RISE") \
	X(CARD_TEMP_MARGIN_C, "thresholds", "card_temp_margin_c", number, "10", 0, 100, NULL, "degC", "site policy", "THERMAL_CARD_NEAR_WARNING: how close to the card's warning threshold is too close") \
	X(CARD_TEMP_WARN_DEFAULT_C, "thresholds", "card_temp_warning_default_c", number, "105", 0, 200, NULL, "degC", "mlx5 hwmon temp1_crit is 105 degC on ConnectX-5", "THERMAL_CARD_NEAR_WARNING when the sensor reports no threshold") \
	X(HOST_TEMP_LIMIT_C, "thresholds", "host_temp_limit_c", number, "95", 0, 200, NULL, "degC", "site policy", "THERMAL_HOST_HOT") \
	X(HOST_TEMP_MARGIN_C, "thresholds", "host_temp_margin_c", number, "5", 0, 100, NULL, "degC", "site policy", "THERMAL_HOST_HOT: margin below a sensor's critical threshold") \
	X(AER_CORRECTABLE_MAX, "thresholds", "aer_correctable_max", number, "0", 0, 1e18, NULL, "errors", "a healthy link counts none", "PCIE_AER_ERRORS: correctable errors tolerated") \
	X(MPS_MIN_BYTES, "thresholds", "mps_min_bytes", number, "256", 128, 4096, NULL, "bytes", "128-byte payloads spend about 16% of the link on TLP overhead (PCIE_MPS_SMALL's explanation)", "PCIE_MPS_SMALL") \
	X(MRRS_MIN_BYTES, "thresholds", "mrrs_min_bytes", number, "512", 128, 4096, NULL, "bytes", "the PCIe reset value of Max_Read_Request_Size (512 bytes); ConnectX cards are tuned for 4096 (PCIE_MRRS_SMALL's explanation)", "PCIE_MRRS_SMALL") \
	X(PAYLOAD_CHECK_RATE_GBPS, "thresholds", "payload_check_rate_gbps", number, "100", 0, 10000, NULL, "Gb/s", "payload sizes matter at 100 Gb/s and up (PCIE_MPS_SMALL's explanation)", "PCIE_MPS_SMALL, PCIE_MRRS_SMALL apply only at or above this port rate") \
	X(CSTATE_MAX_LATENCY_US, "thresholds", "cstate_max_latency_us", number, "50", 0, 1e9, NULL, "us", "site policy: deep C-states wake in tens to hundreds of microseconds", "HOST_DEEP_CSTATES: enabled C-states with a longer exit latency are flagged") \
	X(CHANNELS_MIN, "thresholds", "channels_min", number, "8", 1, 4096, NULL, "channels", "site policy", "NET_CHANNELS_FEW: want at least min(local CPUs, this) channels") \
	X(PROBE_MIN_RATIO, "thresholds", "probe_min_ratio", number, "0.8", 0, 1, NULL, "ratio", "site policy", "PROBE_BELOW_CEILING: share of the path ceiling a probe must reach") \
	X(PROBE_ASYMMETRY_MAX, "thresholds", "probe_asymmetry_max", number, "0.25", 0, 1, NULL, "ratio", "site policy", "PROBE_RW_ASYMMETRY: how much slower reads may be than writes") \
	X(LINK_SYMBOL_ERRORS_PER_HOUR, "thresholds", "link_symbol_errors_per_hour", number, "120", 0, 1e12, NULL, "errors/hour", "the IBTA 1e-12 BER basis, as NVSentinel's link counter design and Oracle's InfiniBand documentation use it", "LINK_SYMBOL_ERRORS: InfiniBand symbol_error per hour over the uptime (at least: counted since boot or the last counter clear), or over the --watch window. Ethernet's rx_symbol_err_phy is post-FEC: any is flagged") \
	X(LINK_FLAPS_MAX, "thresholds", "link_flaps_max", number, "0", 0, 1e9, NULL, "events", "a stable link never goes down once it is up", "LINK_FLAPS: link-down events since boot or the last counter clear that are tolerated (link_down_events_phy, carrier ups after the first, IB link_downed); in a --watch window any is a live flap") \
	X(LINK_RAW_BER_MARGIN, "thresholds", "link_raw_ber_margin", number, "0.1", 0, 1, NULL, "ratio", "within a decade of the FEC's correctable raw BER", "LINK_RAW_BER_HIGH: the fraction of the FEC's correctable raw BER (RS(544,514) 2.4e-4, IEEE 802.3bs/cd; RS(528,514) 5e-5, IEEE 802.3bm; no FEC 1e-12; a FEC without a figure, or not read: RS(544,514)'s, the strongest) above which the pre-FEC BER is flagged") \
	X(LINK_EFFECTIVE_BER_MAX, "thresholds", "link_effective_ber_max", number, "1e-12", 0, 1, NULL, "BER", "the IBTA / IEEE 802.3 link objective", "LINK_EFFECTIVE_ERRORS: post-FEC BER; any effective error is flagged too") \
	X(LINK_WATCH_CONFIDENCE, "thresholds", "link_watch_confidence", number, "0.95", 0.5, 0.999, NULL, "probability", "95 %: the usual confidence of a BER test, which with no error seen needs -ln(1 - 0.95) = 3 / BER bits (Maxim, J. Redd, 'Calculating Statistical Confidence Levels for Error-Probability Estimates', 2000; SiTime's BER confidence-level calculator)", "the LINK_* rules under --watch: the smallest rate (or BER) a watch window can see is -ln(1 - this) errors over its length (3 at 0.95): a window that saw none is too short to judge a limit below that (90 s for 120 symbol errors/h), and history since boot is called history only when the window would have seen its rate") \
	X(LINK_MODULE_MARGIN, "thresholds", "link_module_margin", number, "0.1", 0, 0.5, NULL, "ratio", "site policy", "LINK_MODULE_THRESHOLDS on mstlink -m readings (which carry only the alarm range): a reading within this fraction of the range from an edge is a warning (past the range: error)") \
	X(LINK_MODULE_RX_MARGIN_DB, "thresholds", "link_module_rx_margin_db", number, "3", 0, 30, NULL, "dB", "the usual distance of the SFF-8472/8636 low warning from the low alarm", "LINK_MODULE_RX_POWER_LOW: a lane's receive power (ethtool -m or mstlink -m) within this many dB above the module's own low-alarm threshold is a warning (below it: error)") \
	X(TCP_RTT_MS, "thresholds", "tcp_rtt_ms", number, "1", 0.01, 1000, NULL, "ms", "a loaded datacenter fabric's round trip; a metro link's is longer", "HOST_TCP_BUFFERS_SMALL: the round trip one TCP stream must fill at the port's rate (buffers of 2 x rate x this)") \
	X(HOST_IOMMU, "host", "iommu", string, "\"any\"", 0, 0, "passthrough|translated|any", "", "no expectation until the site states one", "the IOMMU mode of the host: HOST_IOMMU_TRANSLATED (`any`: the rule is silent)") \
	X(HOST_MTU_MIN, "host", "mtu_min", number, NULL, 0, 65536, NULL, "bytes", "", "MTU every card netdev should have: NET_MTU_NOT_JUMBO (0 or absent: no expectation; a product's mtu_min overrides it)") \
	X(HOST_ROLE, "host", "role", string, NULL, 0, 0, "gpu_compute|storage_client|smb_client", "", "", "what the host does: MLX_WR_ORDERING_PER_MKEY, HOST_TCP_BUFFERS_SMALL (see the host's role below)") \
	X(HOST_PCI_WR_ORDERING, "host", "pci_wr_ordering", string, NULL, 0, 0, "per_mkey|force_relax|any", "", "", "the PCI_WR_ORDERING every card must have, on any CPU: MLX_WR_ORDERING_PER_MKEY (overrides role; `any`: no expectation)") \
	X(HOST_PLATFORM, "host", "platform", string, NULL, 0, 0, "bare_metal|vm", "", "", "what the GPUDIRECT_* rules judge IOMMU, ATS and ACS against (absent: the CPU's hypervisor flag decides)") \
	X(ROCE_LOSSLESS, "roce", "lossless", boolean, NULL, 0, 0, NULL, "", "", "true: PFC is required (ROCE_PFC_OFF_LOSSLESS); false: a lossy (ECN-only) fabric, no PFC rule applies") \
	X(ROCE_PRIORITY, "roce", "priority", integer, NULL, 0, 7, NULL, "", "", "the lossless priority: ROCE_PFC_OFF_LOSSLESS, ROCE_PFC_UNUSED_PRIO, ROCE_DSCP_NO_PFC, ROCE_ECN_OFF, ROCE_CNP_IN_LOSSLESS_CLASS") \
	X(ROCE_DSCP, "roce", "dscp", integer, NULL, 0, 63, NULL, "", "", "the RoCE traffic's DSCP: ROCE_DSCP_NO_PFC, ROCE_TOS_OUTSIDE_LOSSLESS (default ToS >> 2 must equal it)") \
	X(ROCE_CNP_DSCP, "roce", "cnp_dscp", integer, NULL, 0, 63, NULL, "", "", "ROCE_CNP_IN_LOSSLESS_CLASS") \
	X(ROCE_CNP_PRIORITY, "roce", "cnp_priority", integer, NULL, 0, 7, NULL, "", "", "ROCE_CNP_IN_LOSSLESS_CLASS") \
	X(ROCE_TRUST, "roce", "trust", string, NULL, 0, 0, "dscp|pcp", "", "", "ROCE_TRUST_MISMATCH")
/* clang-format on */

enum hwc_profile_type { HWC_PK_number, HWC_PK_integer, HWC_PK_boolean, HWC_PK_string };

/* HWC_T_<ID>: the index of a key in the table (hwc_profile_threshold reads a number's value). */
enum hwc_threshold {
#define HWC_PK_ENUM(id, ...) HWC_T_##id,
	HWC_PROFILE_KEYS(HWC_PK_ENUM)
#undef HWC_PK_ENUM
	HWC_T_COUNT
};

struct hwc_profile_key {
	const char *section, *key;
	enum hwc_profile_type type;
	const char *def; /* JSON text, or NULL */
	double min, max;
	const char *values, *unit, *source, *doc;
};

#define HWC_PK_ROW(id, sec, key, type, def, min, max, values, unit, source, doc) \
	{sec, key, HWC_PK_##type, def, min, max, values, unit, source, doc},

#endif

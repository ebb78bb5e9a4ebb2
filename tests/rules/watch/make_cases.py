#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the rule cases of the link rules under `--watch SEC` (tests/rules/cases/<RULE>/watch-*.json):
# the window fires, is quiet, is too short, has a null delta (unknown), and a high count since
# boot beside a clean window (history, or the since-boot warning when the window is too short to
# see its rate). Hand-written facts (the watch contract of docs/schema: facts.watch,
# ports[].counters_window, netdevs[].counters_window, link.carrier_changes_window,
# link.ber_window) patched onto the healthy scenario; rerun after editing, the cases are committed.
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases")
BASE = "scenarios/healthy-cx7-gen5x16.facts.json"
PORT = "mlx.adapters[0000:21:00.0].ports[0]"
ND = "netdevs[ens1f0np0]"


def watch(s):
    return {"set": "watch", "value": {"requested_s": round(s), "window_s": s, "samples": 2}}


def uptime(s):
    return {"set": "host.kernel.uptime_s", "value": s}


def deltas(keys, window):
    """A counters_window: 0 for each key, the window's values over them; a tuple (status, detail)
    makes the delta null with that reason."""
    w = {k: 0 for k in keys}
    unavail = {}
    for k, v in window.items():
        w[k] = None if isinstance(v, tuple) else v
        if isinstance(v, tuple):
            unavail[k] = {"status": v[0], "detail": v[1]}
    if unavail:
        w["unavailable"] = unavail
    return w


def ib(counters, window, port=PORT):
    keys = ["symbol_error", "link_error_recovery", "link_downed", "local_link_integrity_errors",
            "excessive_buffer_overrun_errors"]
    c = {k: 0 for k in keys}
    c.update(counters)
    return [{"set": f"{port}.link_layer", "value": "InfiniBand"},
            {"set": f"{port}.counters", "value": c},
            {"set": f"{port}.counters_window", "value": deltas(keys, window)}]


def nd_counters(boot, window):
    """The netdev's ethtool counters since boot (patched keys) and their window deltas."""
    ops = [{"set": f"{ND}.counters.{k}", "value": v} for k, v in boot.items()]
    keys = ["rx_discards_phy", "rx_out_of_buffer", "rx_symbol_err_phy", "rx_corrected_bits_phy",
            "link_down_events_phy"] + list(boot)
    return ops + [{"set": f"{ND}.counters_window", "value": deltas(keys, window)}]


def ber_window(bits, raw, eff=0.0):
    v = {"source": "ethtool -S", "bits": bits, "raw_ber": raw, "effective_ber": eff}
    if isinstance(raw, tuple):
        v["raw_ber"] = None
        v["unavailable"] = {"raw_ber": {"status": raw[0], "detail": raw[1]}}
    return {"set": f"{ND}.link.ber_window", "value": v}


def watched_base(window_s):
    """A run that watched: every netdev of the base gets a window of zero deltas for its counters
    and carrier changes (the patches of a case then set what it tests)."""
    with open(os.path.join(HERE, "..", BASE)) as f:
        facts = json.load(f)["facts"]
    ops = []
    for nd in facts["netdevs"]:
        keys = [k for k, v in (nd.get("counters") or {}).items() if isinstance(v, (int, float))]
        ops.append({"set": f"netdevs[{nd['name']}].counters_window", "value": {k: 0 for k in keys}})
        ops.append({"set": f"netdevs[{nd['name']}].link.carrier_changes_window", "value": 0})
        if nd.get("speed_mbps"):
            bits = nd["speed_mbps"] * 1e6 * window_s
            ops.append({"set": f"netdevs[{nd['name']}].link.ber_window",
                        "value": {"source": "ethtool -S", "bits": bits, "raw_ber": 0, "effective_ber": 0}})
    return ops


def case(rule, name, desc, patch, expect, profile=None):
    if any(op.get("set") == "watch" and op.get("value") for op in patch):
        patch = [patch[0]] + watched_base(patch[0]["value"]["window_s"]) + patch[1:]
    d = {"description": desc, "rule": rule, "base": BASE, "patch": patch, "expect": expect}
    if profile:
        d["profile"] = profile
    os.makedirs(os.path.join(CASES, rule), exist_ok=True)
    with open(os.path.join(CASES, rule, f"watch-{name}.json"), "w") as f:
        json.dump(d, f, indent=2)
        f.write("\n")


def warn(subj, msg=None, sev="warn", fix=None):
    e = {"severity": sev, "subject": subj}
    if msg:
        e["message_contains"] = msg
    if fix:
        e["fix_contains"] = fix
    return e


CLEARED = ("invalid", "symbol_error went backwards between the samples: the counters were cleared")


def symbol_errors():
    r = "LINK_SYMBOL_ERRORS"
    case(r, "ib-fires", "IB: 12 symbol errors in a 10 s window (4320/h) on a port with 12 since a day's boot (0.5/h): the window decides, live",
         [watch(10.0), uptime(86400)] + ib({"symbol_error": 12}, {"symbol_error": 12}),
         [warn("mlx5_0/1", "12 symbol errors in the 10 s watch window (4320/h), above 120/h: live")])
    case(r, "ib-quiet", "IB: none in a 600 s window (it sees 18/h and more, below 120/h), 100 since a day's boot: fine",
         [watch(600.0), uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": 0}), [])
    case(r, "ib-too-short", "IB: none in a 10 s window, which cannot see 120/h (only 1078/h and more): not called fine on the window, info saying so, judged since boot",
         [watch(10.0), uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": 0}),
         [warn("host", "no symbol errors in the 10 s watch window on mlx5_0/1, too short to judge 120/h (at 95 % confidence it sees 1078/h and more; 90 s would): judged since boot or the last counter clear", "info")])
    case(r, "ib-too-short-ports", "IB: two clean ports, none in a 10 s window on either: one info for the run naming both ports (not one per port), each port's window its evidence",
         [watch(10.0), uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": 0}) +
         ib({}, {"symbol_error": 0}, "mlx.adapters[0000:21:00.0].ports[1]"),
         [warn("host", "no symbol errors in the 10 s watch window on 2 ports (mlx5_0/1, mlx5_1/1), too short to judge 120/h", "info")])
    case(r, "ib-null-delta", "IB: the window's delta is null (the counters were cleared between the samples), none since boot: unknown, not a pass",
         [watch(10.0), uptime(86400)] + ib({}, {"symbol_error": CLEARED}),
         [warn("mlx5_0/1", None, "unknown")])
    case(r, "ib-history", "IB: 5000 since boot in 1 h (5000/h), none in a 600 s window that would have seen 18/h: history (info), not a warning",
         [watch(600.0), uptime(3600)] + ib({"symbol_error": 5000}, {"symbol_error": 0}),
         [warn("mlx5_0/1", "history, not live: 5000 since boot or the last counter clear (at least 5000/h over the 1 h uptime); no symbol errors in the 600 s watch window", "info")])
    case(r, "ib-boot-high-window-short", "IB: 500 since boot in 1 h (500/h), none in a 10 s window that only sees 1078/h: the since-boot warning stands and says the window could not tell",
         [watch(10.0), uptime(3600)] + ib({"symbol_error": 500}, {"symbol_error": 0}),
         [warn("mlx5_0/1", "500 symbol errors since boot or the last counter clear: at least 500/h over the 1 h uptime, above 120/h; no symbol errors in the 10 s watch window, too short to see the rate since boot or the last counter clear (at least 500/h)")])
    case(r, "ib-boot-high-null-delta", "IB: 5000 since boot in 1 h, the window's delta null: the since-boot warning, the window unknown in its text",
         [watch(10.0), uptime(3600)] + ib({"symbol_error": 5000}, {"symbol_error": CLEARED}),
         [warn("mlx5_0/1", "the watch window: unknown (invalid: ")])
    case(r, "eth-fires", "Ethernet: 3 uncorrectable symbols in a 10 s window, none since boot before: live",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_symbol_err_phy": 3}, {"rx_symbol_err_phy": 3}),
         [warn("ens1f0np0", "3 symbol errors the FEC could not correct in the 10 s watch window (1080/h): live")])
    case(r, "eth-one-fires", "Ethernet: 1 uncorrectable symbol in a 10 s window: live (singular)",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_symbol_err_phy": 386}, {"rx_symbol_err_phy": 1}),
         [warn("ens1f0np0", "1 symbol error the FEC could not correct in the 10 s watch window (360/h): live")])
    case(r, "eth-quiet", "Ethernet: none since boot, none in the window: fine",
         [watch(10.0), uptime(86400)] + nd_counters({}, {"rx_symbol_err_phy": 0}), [])
    case(r, "eth-null-delta", "Ethernet: none since boot, the window's delta null (cleared): unknown",
         [watch(10.0), uptime(86400)] + nd_counters({}, {"rx_symbol_err_phy": ("invalid", "rx_symbol_err_phy went backwards between the samples")}),
         [warn("ens1f0np0", None, "unknown")])
    case(r, "eth-history", "Ethernet: 386 since boot in 1 h (386/h), none in a 60 s window that would have seen 180/h: history",
         [watch(60.0), uptime(3600)] + nd_counters({"rx_symbol_err_phy": 386}, {"rx_symbol_err_phy": 0}),
         [warn("ens1f0np0", "history, not live", "info")])
    case(r, "eth-boot-window-short", "Ethernet: 386 since a day's boot (16/h), none in a 10 s window that only sees 1078/h: the since-boot warning stands",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_symbol_err_phy": 386}, {"rx_symbol_err_phy": 0}),
         [warn("ens1f0np0", "they may go on")])
    case(r, "ib-confidence-profile", "IB: none in a 60 s window: at the profile's 0.5 confidence it sees 41.6/h and more, below 120/h: fine (at 0.95, 180/h: too short)",
         [watch(60.0), uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": 0}), [],
         {"thresholds": {"link_watch_confidence": 0.5}})
    case(r, "no-watch", "no facts.watch (the run did not watch): windows present in the facts are ignored, since boot as before (5000 in 1 h fires)",
         [uptime(3600)] + ib({"symbol_error": 5000}, {"symbol_error": 0}),
         [warn("mlx5_0/1", "5000 symbol errors since boot or the last counter clear: at least 5000/h over the 1 h uptime, above 120/h")])
    case(r, "watch-not-collected", "facts.watch null as not_collected (no --watch): since boot as before: 100 in a day is within 120/h "
         "only if nothing cleared the counters since boot, an info that says so (not an OK)",
         [{"set": "watch", "value": None}, {"set": "unavailable", "value": {"watch": {"status": "not_collected", "detail": "no --watch"}}},
          uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": CLEARED}),
         [warn("mlx5_0/1", "100 symbol errors since boot or the last counter clear: at least 4.17/h over the 24 h uptime, "
               "within 120/h if nothing cleared the counters since boot", "info")])
    case(r, "watch-failed", "facts.watch null as unreadable (the second sample failed): every window is unknown, not a pass",
         [{"set": "watch", "value": None}, {"set": "unavailable", "value": {"watch": {"status": "unreadable", "detail": "second sample failed"}}},
          uptime(86400)] + ib({"symbol_error": 100}, {"symbol_error": 0}),
         [warn(s, None, "unknown") for s in ["mlx5_0/1", "ens1f0np0", "ens1f1np1", "ens2f0np0", "ens2f1np1"]])


def flaps():
    r = "LINK_FLAPS"
    case(r, "phy-fires", "Ethernet: link_down_events_phy +1 in a 10 s window: a live flap",
         [watch(10.0), uptime(86400)] + nd_counters({"link_down_events_phy": 1}, {"link_down_events_phy": 1}),
         [warn("ens1f0np0", "the link flapped during the watch: 1 link-down event in the 10 s watch window (360/h): live")])
    case(r, "carrier-fires", "Ethernet: no link_down_events_phy window, carrier_changes +2 in the window: a live flap",
         [watch(10.0), uptime(86400)] + nd_counters({}, {"link_down_events_phy": ("absent", "not in the second sample")})
         + [{"set": f"{ND}.link.carrier_changes_window", "value": 2}],
         [warn("ens1f0np0", "the carrier flapped during the watch: 2 carrier changes in the 10 s watch window (720/h): live "
                           "(0 link-downs since boot or the last counter clear (at least 0/h over the 24 h uptime)) (it counts host-side restarts too",
                   fix="mlx5_core logs 'ens1f0np0: Link down' only when the port reported its link down")])
    case(r, "quiet", "Ethernet: no flap since boot, none in the window: fine",
         [watch(10.0), uptime(86400)] + nd_counters({}, {}) + [{"set": f"{ND}.link.carrier_changes_window", "value": 0}], [])
    case(r, "null-delta", "Ethernet: both window deltas null: unknown",
         [watch(10.0), uptime(86400)] + nd_counters({}, {"link_down_events_phy": ("invalid", "went backwards")})
         + [{"set": f"{ND}.link.carrier_changes_window", "value": None},
            {"set": f"{ND}.link.unavailable", "value": {"carrier_changes_window": {"status": "invalid", "detail": "went backwards"}}}],
         [warn("ens1f0np0", None, "unknown")])
    case(r, "carrier-covers-null-phy", "Ethernet: link_down_events_phy's window null but carrier_changes +0 in the window: the carrier says no flap, fine",
         [watch(10.0), uptime(86400)] + nd_counters({}, {"link_down_events_phy": ("invalid", "went backwards")}), [])
    case(r, "boot-window-short", "Ethernet: 3 link-downs since a day's boot, none in a 10 s window (too short to see 0.125/h): the since-boot warning stands",
         [watch(10.0), uptime(86400)] + nd_counters({"link_down_events_phy": 3}, {}) + [{"set": f"{ND}.link.carrier_changes_window", "value": 0}],
         [warn("ens1f0np0", "the link went down 3 times since boot or the last counter clear; no link-down events in the 10 s watch window, too short")])
    case(r, "history", "Ethernet: 50 link-downs in 1 h since boot, none in a 600 s window that would have seen 18/h: history",
         [watch(600.0), uptime(3600)] + nd_counters({"link_down_events_phy": 50}, {}),
         [warn("ens1f0np0", "history, not live: 50 link-downs since boot or the last counter clear (at least 50/h over the 1 h uptime)", "info")])
    case(r, "ib-fires", "IB: link_downed +1 in the window: a live flap",
         [watch(10.0), uptime(86400)] + ib({"link_downed": 1}, {"link_downed": 1}),
         [warn("mlx5_0/1", "the link flapped during the watch: 1 link_downed event in the 10 s watch window")])
    case(r, "ib-saturated", "IB: link_downed saturated at 255 in a sample: the window delta is null: the since-boot warning (255 >= 0 flaps) with the window unknown",
         [watch(10.0), uptime(86400)] + ib({"link_downed": 255}, {"link_downed": ("invalid", "link_downed saturated at 255")}),
         [warn("mlx5_0/1", "the watch window: unknown (invalid: link_downed saturated at 255)")])
    case(r, "ib-null-delta", "IB: no flap since boot, link_downed window null: unknown",
         [watch(10.0), uptime(86400)] + ib({}, {"link_downed": ("invalid", "went backwards")}),
         [warn("mlx5_0/1", None, "unknown")])


def integrity():
    r = "LINK_INTEGRITY_ERRORS"
    case(r, "fires", "IB: local_link_integrity_errors +2 in the window: live",
         [watch(10.0), uptime(86400)] + ib({"local_link_integrity_errors": 2}, {"local_link_integrity_errors": 2}),
         [warn("mlx5_0/1", "2 link integrity errors in the 10 s watch window (720/h): live")])
    case(r, "quiet", "IB: none since boot, none in the window: fine",
         [watch(10.0), uptime(86400)] + ib({}, {}), [])
    case(r, "null-delta", "IB: none since boot, one of the three window deltas null: unknown",
         [watch(10.0), uptime(86400)] + ib({}, {"excessive_buffer_overrun_errors": ("invalid", "saturated at 15")}),
         [warn("mlx5_0/1", None, "unknown")])
    case(r, "fires-beside-null", "IB: link_error_recovery +1 in the window while excessive_buffer_overrun_errors' delta is null (saturated): the known increase is live",
         [watch(10.0), uptime(86400)] + ib({"excessive_buffer_overrun_errors": 15},
                                           {"link_error_recovery": 1, "excessive_buffer_overrun_errors": ("unsupported", "saturated at 15")}),
         [warn("mlx5_0/1", "1 link integrity error in the 10 s watch window (360/h): live")])
    case(r, "history", "IB: 15 since boot in 1 h, none in a 3600 s window (it sees 3/h): history",
         [watch(3600.0), uptime(3600)] + ib({"link_error_recovery": 15}, {}),
         [warn("mlx5_0/1", "history, not live", "info")])
    case(r, "boot-window-short", "IB: 2 since a day's boot, none in a 10 s window: the since-boot warning stands",
         [watch(10.0), uptime(86400)] + ib({"link_error_recovery": 2}, {}),
         [warn("mlx5_0/1", "link integrity errors since boot or the last counter clear: link_error_recovery 2; no link integrity errors in the 10 s watch window, too short")])


def effective():
    r = "LINK_EFFECTIVE_ERRORS"
    case(r, "fires", "Ethernet: rx_pcs_symbol_err_phy +5 in a 10 s window: live",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_pcs_symbol_err_phy": 5}, {"rx_pcs_symbol_err_phy": 5})
         + [ber_window(2e12, 5e-12, 2.5e-12)],
         [warn("ens1f0np0", "5 bit errors left after FEC in the 10 s watch window (1800/h): live")])
    case(r, "quiet", "Ethernet: none since boot, none in the window: fine",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_pcs_symbol_err_phy": 0}, {"rx_pcs_symbol_err_phy": 0}), [])
    case(r, "null-delta", "Ethernet: none since boot, the window's delta null: unknown",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_pcs_symbol_err_phy": 0}, {"rx_pcs_symbol_err_phy": ("invalid", "went backwards")}),
         [warn("ens1f0np0", None, "unknown")])
    case(r, "history", "Ethernet: 1000 since boot in 1 h, none in a 60 s window (it sees 180/h): history",
         [watch(60.0), uptime(3600)] + nd_counters({"rx_pcs_symbol_err_phy": 1000}, {"rx_pcs_symbol_err_phy": 0}),
         [warn("ens1f0np0", "history, not live: 1000 since the port's counters were cleared", "info")])
    case(r, "boot-window-short", "Ethernet: 5 since a day's boot, none in a 10 s window: the since-boot warning stands",
         [watch(10.0), uptime(86400)] + nd_counters({"rx_pcs_symbol_err_phy": 5}, {"rx_pcs_symbol_err_phy": 0}),
         [warn("ens1f0np0", "they may go on")])


def raw_ber():
    r = "LINK_RAW_BER_HIGH"
    base = nd_counters({"rx_corrected_bits_phy": 100000000, "rx_pcs_symbol_err_phy": 0},
                       {"rx_corrected_bits_phy": 100000000, "rx_pcs_symbol_err_phy": 0})
    case(r, "fires", "200G RS: raw BER 5e-5 over the window (1e8 corrected bits in 2e12), no rx_bits_phy since boot: the window decides, close to RS(544,514)'s 2.4e-4",
         [watch(10.0), uptime(86400)] + base + [ber_window(2e12, 5e-5)],
         [warn("ens1f0np0", "raw (pre-FEC) BER 5e-05 over the 10 s watch window is close to the limit of RS(544,514) (0.00024)")])
    case(r, "quiet", "200G RS: raw BER 1e-8 over the window, no BER since boot: the window decides, fine (no unknown)",
         [watch(10.0), uptime(86400)] + base + [ber_window(2e12, 1e-8)], [])
    case(r, "too-short", "no corrected bit since boot nor in a window of 1e5 bits, which sees only BER 3e-5 and more (above 2.4e-5): info saying so",
         [watch(0.0005), uptime(86400)] + nd_counters({"rx_corrected_bits_phy": 0}, {"rx_corrected_bits_phy": 0}) + [ber_window(1e5, 0.0)],
         [warn("host", "on ens1f0np0, too short to judge BER 2.4e-05", "info")])
    case(r, "null-delta", "corrected bits since boot without rx_bits_phy, the window's raw BER null: unknown",
         [watch(10.0), uptime(86400)] + base + [ber_window(2e12, ("invalid", "rx_corrected_bits_phy went backwards"))],
         [warn("ens1f0np0", None, "unknown")])
    case(r, "history", "raw BER 1e-4 since the clear (rx_bits_phy), 1e-9 over the window (2000 bits in 2e12): history",
         [watch(10.0), uptime(86400)] + base + [{"set": f"{ND}.link.ber", "value": {"source": "ethtool -S", "bits": 1e12, "raw_ber": 1e-4, "effective_ber": 0}},
                                                  ber_window(2e12, 1e-9)],
         [warn("ens1f0np0", "history, not live: raw BER 0.0001 since the counters were cleared", "info")])


if __name__ == "__main__":
    symbol_errors()
    flaps()
    integrity()
    effective()
    raw_ber()

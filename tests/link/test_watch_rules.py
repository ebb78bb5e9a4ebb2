# SPDX-License-Identifier: MIT
# The link rules over a --watch capture (rules/link_window.c): on each watch-* root the window's
# deltas decide LINK_SYMBOL_ERRORS, LINK_FLAPS, LINK_INTEGRITY_ERRORS, LINK_EFFECTIVE_ERRORS and
# LINK_RAW_BER_HIGH (live in the window, unknown where a delta is null, the since-boot warning
# standing where the window is too short to see its rate, info where it cannot judge the limit),
# one finding per port; the same captures without their samples judge since boot as before. The
# rule cases (tests/rules/cases/*/watch-*.json) cover every branch on hand-written facts; this
# file checks the verdicts on the watch-* captures (make_watch_fixtures.py).
import os
import shutil
import sys
import tempfile
import unittest  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402

RULES = ("LINK_SYMBOL_ERRORS", "LINK_FLAPS", "LINK_INTEGRITY_ERRORS", "LINK_EFFECTIVE_ERRORS",
         "LINK_RAW_BER_HIGH")


def findings(root):
    cp, j = run_json("check", "--json", "--root", root)
    if cp.returncode not in (0, 1):
        raise AssertionError(cp.stderr)
    hwctest.validate(j)
    return {(f["rule_id"], f["subject"]): f for f in j["findings"] if f["rule_id"] in RULES}


class Captures(unittest.TestCase):
    def check(self, fixture, want):
        """want: {(rule, subject): (severity, text in the message)}: exactly these findings."""
        got = findings(hwctest.fixture(fixture, "root"))
        self.assertEqual(sorted(got), sorted(want), {k: (f["severity"], f["message"]) for k, f in got.items()})
        for k, (sev, text) in want.items():
            self.assertEqual(got[k]["severity"], sev, got[k]["message"])
            self.assertIn(text, got[k]["message"])
            facts = [e["fact"] for e in got[k]["evidence"]]
            if sev != "unknown":
                self.assertIn("watch.window_s", facts, got[k]["evidence"])
        return got

    def test_ib_live_and_saturated(self):
        # +12 symbol errors, +1 link_error_recovery in 10 s; link_downed and
        # excessive_buffer_overrun_errors saturated (their deltas null), high since boot
        got = self.check("watch-ib-cx7-saturated", {
            ("LINK_SYMBOL_ERRORS", "mlx5_1/1"): ("warn", "12 symbol errors in the 10 s watch window (4320/h), above 120/h: live"),
            ("LINK_INTEGRITY_ERRORS", "mlx5_1/1"): ("warn", "1 link integrity error in the 10 s watch window (360/h): live"),
            ("LINK_FLAPS", "mlx5_1/1"): ("warn", "the link went down 255 (saturated: at least) times since boot or the last counter clear (link_downed); "
                                                 "the watch window: unknown (unsupported: link_downed was at its maximum 255"),
        })
        ev = {e["fact"]: e["observed"] for e in got[("LINK_SYMBOL_ERRORS", "mlx5_1/1")]["evidence"]}
        self.assertEqual(ev["mlx.adapters[0000:c1:00.0].ports[mlx5_1/1].counters_window.symbol_error"], "12 in 10 s (4320/h)")

    def test_eth_live(self):
        # +2 post-FEC bit errors, +1 link-down and +2 carrier changes in 10 s; raw BER 4e-8 (fine)
        # but the capture has no FEC mode: the raw BER's limit is unknown
        self.check("watch-eth-mlx5-100g", {
            ("LINK_EFFECTIVE_ERRORS", "p1"): ("warn", "2 bit errors left after FEC in the 10 s watch window (720/h): live"),
            ("LINK_FLAPS", "p1"): ("warn", "the link flapped during the watch: 1 link-down event in the 10 s watch window"),
            ("LINK_RAW_BER_HIGH", "p1"): ("unknown", "link.fec.active is unknown"),
        })

    def test_eth_pam4_raw_ber_past_in_the_window(self):
        self.check("watch-eth-cx6dx-pam4", {
            ("LINK_RAW_BER_HIGH", "p1"): ("warn", "raw (pre-FEC) BER 0.0003 over the 10 s watch window is past the limit of RS(544,514) (0.00024)"),
            ("LINK_EFFECTIVE_ERRORS", "p1"): ("warn", "3 bit errors left after FEC in the 10 s watch window (1080/h): live"),
        })

    def test_real_samples_flaps_before_the_window(self):
        # real: link_downed 1 and 2 since boot, unchanged over the real 10 s sample
        self.check("watch-ib-cx2-ring", {
            ("LINK_FLAPS", "mlx4_0/1"): ("warn", "the link went down 1 time since boot or the last counter clear (link_downed); no link_downed events in the "
                                                 "10 s watch window, too short to see the rate since boot or the last counter clear"),
            ("LINK_FLAPS", "mlx4_0/2"): ("warn", "the link went down 2 times since boot or the last counter clear"),
            # one info for the run, not one per port: it names both ports and the window that would do
            ("LINK_SYMBOL_ERRORS", "host"): ("info", "no symbol errors in the 10 s watch window on 2 ports (mlx4_0/1, mlx4_0/2), too "
                                                     "short to judge 120/h (at 95 % confidence it sees 1078/h and more; 90 s would)"),
        })

    def test_window_too_short_one_info_per_run(self):
        # real watch-ib-cx2-ring under --watch 10: each port's judgement stays machine-readable,
        # in the one info's evidence (its window and its count since boot) and in its own port line
        cp, j = run_json("--watch", "10", "--json", "--root", hwctest.fixture("watch-ib-cx2-ring", "root"))
        hwctest.validate(j)
        short = [f for f in j["findings"] if f["rule_id"] == "LINK_SYMBOL_ERRORS"]
        self.assertEqual([(f["severity"], f["subject"]) for f in short], [("info", "host")])
        self.assertIn("`hwcheck --watch 90`", short[0]["fix"])
        ev = {e["fact"]: (e["observed"], e["expected"]) for e in short[0]["evidence"]}
        for p in ("mlx4_0/1", "mlx4_0/2"):
            self.assertEqual(ev[f"mlx.adapters[0000:01:00.0].ports[{p}].counters_window.symbol_error"],
                             ("0 in 10 s (sees 1078/h and more); 0 since boot or the last counter clear (no uptime: rate unknown)", "<= 120/h"))
        self.assertEqual(ev["watch.window_s"][0], "10")
        ports = [p for card in j["cards"] for p in card["ports"]]
        self.assertEqual([p["errors"]["symbol_error"] for p in ports], [{"count": 0, "per_hour": None, "window": 0}] * 2)
        lines = [c for card in j["cards"] for c in card["checks"] if c["item"] == "port_link"]
        self.assertEqual([c["verdict"] for c in lines], ["ok", "ok"])  # clean since boot: checked and fine

    def test_without_the_samples_since_boot_as_before(self):
        # the same capture less hwcheck/watch: no window facts, the rules judge since boot alone
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(hwctest.fixture("watch-ib-cx7-saturated", "root"), root, symlinks=True)
            shutil.rmtree(os.path.join(root, "hwcheck", "watch"))
            got = findings(root)
        self.assertEqual(sorted(got), [("LINK_FLAPS", "mlx5_1/1"), ("LINK_INTEGRITY_ERRORS", "mlx5_1/1")])
        for f in got.values():
            self.assertNotIn("window", f["message"])


if __name__ == "__main__":
    hwctest.main()

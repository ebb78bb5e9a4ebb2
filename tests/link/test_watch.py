# SPDX-License-Identifier: MIT
# --watch SEC (issue 14): the port counters sampled twice, their deltas over the window. Replays of
# the watch-* captures (tests/link/make_watch_fixtures.py: real first samples, RECONSTRUCTED
# second ones), a capture without samples, a sample missing, a broken window file, bad --watch
# values, and live runs on this machine (the window measured, a snapshot's replay equal to it).
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

IB = "watch-ib-cx7-saturated"
ETH = "watch-eth-mlx5-100g"


def facts(root, *extra):
    cp, j = run_json("facts", "--json", "--root", root, *extra)
    hwctest.validate(j)
    return j


def ib_window(j):
    return j["facts"]["mlx"]["adapters"][0]["ports"][0]["counters_window"]


def p1(j):
    return next(n for n in j["facts"]["netdevs"] if n["name"] == "p1")


class Replay(unittest.TestCase):
    def test_generator_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("tests", "link", "make_watch_fixtures.py"),
                             "--check"], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_ib_deltas_saturated_and_cleared(self):
        j = facts(hwctest.fixture(IB, "root"))
        self.assertEqual(j["facts"]["watch"], {"requested_s": 10, "window_s": 10.00018, "samples": 2})
        w = ib_window(j)
        self.assertEqual((w["symbol_error"], w["link_error_recovery"], w["port_rcv_errors"],
                          w["local_link_integrity_errors"], w["VL15_dropped"]), (12, 1, 3, 0, 0))
        un = w["unavailable"]
        for k, width in (("link_downed", 255), ("port_xmit_discards", 65535),
                         ("excessive_buffer_overrun_errors", 15)):
            self.assertIsNone(w[k])
            self.assertEqual(un[k]["status"], "unsupported")
            self.assertIn(f"at its maximum {width}", un[k]["detail"])
        self.assertIsNone(w["port_rcv_switch_relay_errors"])
        self.assertEqual(un["port_rcv_switch_relay_errors"]["status"], "invalid")
        self.assertIn("went backwards from 2 to 0", un["port_rcv_switch_relay_errors"]["detail"])
        # not on the captured machine: absent as in the main collection, not "not in the sample"
        self.assertEqual(un["local_ack_timeout_err"]["status"], "absent")
        self.assertNotIn("sample", un["local_ack_timeout_err"]["detail"])
        # the since-boot counters are the second sample's (the main collection read 0 before the
        # window): never less than the window's delta of the same counter
        c = j["facts"]["mlx"]["adapters"][0]["ports"][0]["counters"]
        self.assertEqual((c["symbol_error"], c["link_error_recovery"], c["port_rcv_errors"]), (12, 1, 3))
        for k, d in w.items():
            if isinstance(d, int):
                self.assertGreaterEqual(c[k], d, k)
        self.assertEqual(c["port_rcv_switch_relay_errors"], 0)  # cleared in the window: its latest

    def test_eth_deltas_carrier_and_ber(self):
        j = facts(hwctest.fixture(ETH, "root"))
        n = p1(j)
        w = n["counters_window"]
        self.assertEqual((w["rx_corrected_bits_phy"], w["rx_err_lane_3_phy"], w["rx_err_lane_0_phy"],
                          w["rx_pcs_symbol_err_phy"], w["link_down_events_phy"], w["rx_out_of_buffer"]),
                         (40000, 39990, 10, 2, 1, 0))
        self.assertNotIn("n_reported", w)
        self.assertEqual(w["unavailable"]["rx_bits_phy"]["status"], "absent")
        self.assertEqual(n["link"]["carrier_changes_window"], 2)
        self.assertEqual(n["link"]["carrier_changes"], 6)  # the second sample's: 4, +2 in the window
        b = n["link"]["ber_window"]
        self.assertEqual(b["bits"], 1000025000000)
        self.assertAlmostEqual(b["raw_ber"], 40002 / 1.000025e12, delta=1e-15)
        self.assertAlmostEqual(b["effective_ber"], 2 / 1.000025e12, delta=1e-18)
        self.assertIn("ethtool -S p1", b["source"])
        # the since-boot counters are the second sample's: the real capture's 17750739, +40000
        self.assertEqual(n["counters"]["rx_corrected_bits_phy"], 17750739 + 40000)

    def test_eth_pam4_window_past_the_fec_limit(self):
        j = facts(hwctest.fixture("watch-eth-cx6dx-pam4", "root"))
        by = {n["name"]: n for n in j["facts"]["netdevs"]}
        b1, b2 = by["p1"]["link"]["ber_window"], by["p2"]["link"]["ber_window"]
        self.assertEqual((b1["bits"], b2["bits"]), (2000000000000, 2000000000000))
        self.assertAlmostEqual(b1["raw_ber"], 6.00000003e8 / 2e12, delta=1e-15)
        self.assertAlmostEqual(b1["effective_ber"], 1.5e-12, delta=1e-20)
        self.assertAlmostEqual(b2["raw_ber"], 2e-10, delta=1e-20)
        self.assertEqual(b2["effective_ber"], 0)
        self.assertEqual(by["p1"]["counters_window"]["rx_bits_phy"], 2000000000000)
        self.assertEqual(by["p1"]["link"]["carrier_changes_window"], 0)
        # the since-clear ratio is over the counters' own window, as of the second sample
        c = by["p1"]["counters"]
        self.assertAlmostEqual(by["p1"]["link"]["ber"]["raw_ber"],
                               (c["rx_corrected_bits_phy"] + c["rx_pcs_symbol_err_phy"]) / c["rx_bits_phy"], delta=1e-12)
        self.assertAlmostEqual(by["p1"]["link"]["ber"]["raw_ber"], 4.9945e-4, delta=1e-7)

    def test_same_answer_with_or_without_watch_and_no_wait(self):
        root = hwctest.fixture(IB, "root")
        plain = facts(root)
        t = time.monotonic()
        asked = facts(root, "--watch", "30")
        self.assertLess(time.monotonic() - t, 20, "a replay must not wait")
        self.assertEqual(plain["facts"], asked["facts"])
        self.assertEqual(asked["facts"]["watch"]["requested_s"], 10)  # the captured run's

    def test_uptime_is_the_last_samples(self):
        # the since-boot counters are sample 2's, so is the uptime that turns them into rates:
        # read with that sample (hwcheck/watch/2/files/proc/uptime), else the main collection's
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "r")
            shutil.copytree(hwctest.fixture(IB, "root"), root, symlinks=True)
            os.makedirs(os.path.join(root, "proc"), exist_ok=True)
            with open(os.path.join(root, "proc", "uptime"), "w") as f:
                f.write("350735.47 234388.90\n")
            self.assertEqual(facts(root)["facts"]["host"]["kernel"]["uptime_s"], 350735)
            up2 = os.path.join(root, "hwcheck", "watch", "2", "files", "proc")
            os.makedirs(up2)
            with open(os.path.join(up2, "uptime"), "w") as f:
                f.write("350746.12 234390.01\n")
            self.assertEqual(facts(root)["facts"]["host"]["kernel"]["uptime_s"], 350746)
            with open(os.path.join(up2, "uptime"), "w") as f:
                f.write("soon\n")  # a broken sample's uptime: the main one stays
            self.assertEqual(facts(root)["facts"]["host"]["kernel"]["uptime_s"], 350735)

    def test_round_trip_through_facts_file(self):
        j = facts(hwctest.fixture(ETH, "root"))
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(j, f)
        try:
            cp, again = run_json("facts", "--json", "--facts", f.name)
            self.assertEqual(again["facts"]["watch"], j["facts"]["watch"])
            self.assertEqual(p1(again)["counters_window"], p1(j)["counters_window"])
            self.assertEqual(p1(again)["link"]["ber_window"], p1(j)["link"]["ber_window"])
            cp = run("check", "--json", "--facts", f.name)
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
        finally:
            os.unlink(f.name)

    def test_check_runs_on_watch_captures(self):
        for fx in (IB, ETH):
            cp, j = run_json("check", "--json", "--root", hwctest.fixture(fx, "root"))
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            hwctest.validate(j)
            self.assertEqual(j["facts"]["watch"]["samples"], 2)


class NoSamples(unittest.TestCase):
    def test_capture_without_samples(self):
        for fx in ("net-mlx5-100g-full-stats", "link-ib-clean"):
            root = hwctest.fixture(fx, "root")
            self.assertNotIn("watch", facts(root)["facts"])  # not asked, none recorded
            t = time.monotonic()
            j = facts(root, "--watch", "30")
            self.assertLess(time.monotonic() - t, 20, "never sleeps on a capture")
            w = j["facts"]["watch"]
            self.assertEqual(w["requested_s"], 30)
            self.assertIsNone(w["window_s"])
            self.assertEqual(w["unavailable"]["window_s"]["status"], "absent")
            self.assertIn("holds no samples", w["unavailable"]["window_s"]["detail"])
            self.assertIn(fx, w["unavailable"]["window_s"]["detail"])  # names the capture
            for n in j["facts"]["netdevs"]:
                self.assertIsNone(n["counters_window"])
                self.assertIsNone(n["link"]["carrier_changes_window"])
                self.assertIsNone(n["link"]["ber_window"])
            for a in j["facts"]["mlx"]["adapters"]:
                for p in a["ports"]:
                    self.assertIsNone(p["counters_window"])

    def test_sample_missing(self):
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(hwctest.fixture(IB, "root"), root, symlinks=True)
            shutil.rmtree(os.path.join(root, "hwcheck", "watch", "2"))
            w = ib_window(facts(root))
            self.assertIsNone(w["symbol_error"])
            self.assertEqual(w["unavailable"]["symbol_error"]["status"], "absent")
            self.assertIn("not in --watch sample 2 of this capture",
                          w["unavailable"]["symbol_error"]["detail"])

    def test_broken_window_file(self):
        for text, field in (("requested_s=0\nwindow_us=1000\nsamples=2\n", "requested_s"),
                            ("requested_s=5\nwindow_us=abc\nsamples=2\n", "window_us"),
                            ("requested_s=5\nwindow_us=5000000\n", "samples"),
                            ("requested_s=5\nwindow_us=99000000\nsamples=2\n", "window_us"),
                            ("", "requested_s")):
            with tempfile.TemporaryDirectory() as d:
                root = os.path.join(d, "root")
                shutil.copytree(hwctest.fixture(IB, "root"), root, symlinks=True)
                with open(os.path.join(root, "hwcheck", "watch", "window"), "w") as f:
                    f.write(text)
                j = facts(root)
                w = j["facts"]["watch"]
                self.assertIsNone(w["window_s"], text)
                self.assertEqual(w["unavailable"]["window_s"]["status"], "invalid")
                self.assertIn("hwcheck/watch/window", w["unavailable"]["window_s"]["detail"])
                self.assertIn(field, w["unavailable"]["window_s"]["detail"])
                port = j["facts"]["mlx"]["adapters"][0]["ports"][0]
                self.assertIsNone(port["counters_window"])  # no delta invented
                self.assertEqual(port["unavailable"]["counters_window"]["status"], "invalid")
                self.assertTrue(any("hwcheck/watch/window" in (e.get("subject") or "")
                                    for e in j["errors"]), j["errors"])

    def test_resnapshot_of_a_watch_capture(self):
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            run("snapshot", "--root", hwctest.fixture(ETH, "root"), "-o", tar, check=0)
            with tarfile.open(tar) as t:
                names = t.getnames()
                t.extractall(os.path.join(d, "r"))
            self.assertIn("hwcheck/watch/window", names)
            self.assertIn("hwcheck/watch/2/commands/ethtool -S p1/stdout", names)
            self.assertFalse([n for n in names if n.startswith("hwcheck/watch/1/files/hwcheck")])
            self.assertEqual(facts(os.path.join(d, "r"))["facts"],
                             facts(hwctest.fixture(ETH, "root"))["facts"])


class Options(unittest.TestCase):
    def test_bad_values(self):
        for v in ("0", "-1", "3601", "abc", "1.5", ""):
            cp = run("facts", "--watch", v, "--root", hwctest.fixture(IB, "root"))
            self.assertEqual(cp.returncode, 2, v)
            self.assertIn("--watch", cp.stderr)
        for argv in (("list", "--watch", "1"), ("rules", "list", "--watch", "1"),
                     ("facts", "--watch", "5", "--timeout", "5"),
                     ("check", "--watch", "1", "--facts", hwctest.source("tests", "link", "test_watch.py"))):
            cp = run(*argv)
            self.assertEqual(cp.returncode, 2, argv)
            self.assertIn("--watch", cp.stderr)

    def test_help_and_man(self):
        self.assertIn("--watch SEC", run("--help", check=0).stdout)
        with open(hwctest.source("docs", "hwcheck.1")) as f:
            self.assertIn("watch", f.read())
        with open(hwctest.source("contrib", "bash-completion", "hwcheck")) as f:
            self.assertIn("--watch", f.read())


class Live(unittest.TestCase):
    def test_live_window(self):
        t = time.monotonic()
        cp, j = run_json("facts", "--json", "--watch", "1")
        took = time.monotonic() - t
        hwctest.validate(j)
        w = j["facts"]["watch"]
        self.assertEqual((w["requested_s"], w["samples"]), (1, 2))
        self.assertGreater(w["window_s"], 0.95)
        self.assertLess(w["window_s"], 2.0)
        self.assertGreater(took, 0.95)
        for n in j["facts"]["netdevs"]:  # ConnectX netdevs, where the machine has some
            self.assertIn("counters_window", n)
            self.assertIn("carrier_changes_window", n["link"])

    def test_live_without_connectx_says_so(self):
        # a host without ConnectX (the development machines): the window samples nothing, and the
        # run says so on stderr (and in errors[]); the exit code stays the verdict's
        cp, j = run_json("--json", "--watch", "1")
        if j["facts"]["mlx"]["adapters"] or any(n.get("name") for n in j["facts"].get("netdevs") or []):
            self.skipTest("this machine has ConnectX ports: its window samples them")
        msg = "no ConnectX port or netdev on this host: the window sampled nothing"
        self.assertIn({"source": "watch", "subject": "--watch 1", "message": msg}, j["errors"])
        cp = run("--watch", "1", "--no-color")
        self.assertIn(f"hwcheck: watch: --watch 1: {msg}\n", cp.stderr)
        self.assertEqual(cp.returncode, 1, cp.stderr)  # MLX_NO_ADAPTER (warn) under --fail-on warn
        self.assertEqual(run("--watch", "1", "--fail-on", "error").returncode, 0)

    def test_live_snapshot_replays_the_same(self):
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            run("snapshot", "--watch", "1", "-o", tar, check=0)
            with tarfile.open(tar) as t:
                t.extractall(os.path.join(d, "r"))
            with open(os.path.join(d, "r", "hwcheck", "watch", "window")) as f:
                self.assertIn("samples=2", f.read())
            # the uptime is read again with the last sample (the since-boot window of its counters)
            self.assertTrue(os.path.exists(os.path.join(d, "r", "hwcheck", "watch", "2", "files", "proc", "uptime")))
            with open(os.path.join(d, "r", "hwcheck", "facts.json")) as f:
                live = json.load(f)["facts"]
            t0 = time.monotonic()
            replay = facts(os.path.join(d, "r"))["facts"]
            self.assertLess(time.monotonic() - t0, 20)
            self.assertEqual(live["watch"], replay["watch"])
            self.assertGreater(live["watch"]["window_s"], 0.95)
            # read live, then replayed from the capture (host.read_from); the rest is the same
            self.assertEqual((live["host"].pop("read_from"), replay["host"].pop("read_from")), ("live", "capture"))
            self.assertEqual(live, replay)

    def test_timeout_leaves_no_room(self):
        cp, j = run_json("facts", "--json", "--watch", "5", "--timeout", "6")
        w = j["facts"]["watch"]
        self.assertIsNone(w["window_s"])
        self.assertEqual(w["unavailable"]["window_s"]["status"], "timeout")
        self.assertIn("--timeout", w["unavailable"]["window_s"]["detail"])

    def test_sigterm_during_the_wait(self):
        p = subprocess.Popen([hwctest.hwcheck_path(), "facts", "--json", "--watch", "60"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        t = time.monotonic()
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=20)
        self.assertEqual(rc, -signal.SIGTERM)
        self.assertLess(time.monotonic() - t, 10)


if __name__ == "__main__":
    hwctest.main()

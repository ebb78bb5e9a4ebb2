# SPDX-License-Identifier: MIT
# hwcheck probe without RDMA hardware: options, skips with their reasons, JSON-only stdout, the
# probe section through a facts file. (Real verbs: vm_probe.py.)
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402


def have_rdma():
    return os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband")


class Options(unittest.TestCase):
    def test_bad_values_are_usage_errors(self):
        for argv, word in ((["--probe-op", "fly"], "--probe-op"),
                           (["--probe-size", "0"], "--probe-size"),
                           (["--probe-size", "-5"], "--probe-size"),
                           (["--probe-qps", "65"], "--probe-qps"),
                           (["--probe-depth", "x"], "--probe-depth"),
                           (["--probe-duration", "0"], "--probe-duration"),
                           (["--probe-duration", "nan"], "--probe-duration"),
                           (["--probe-port", "70000"], "--probe-port")):
            cp = run("probe", *argv)
            self.assertEqual(cp.returncode, 2, argv)
            self.assertIn(word, cp.stderr)
            self.assertEqual(cp.stdout, "")

    def test_client_needs_a_host(self):
        cp = run("probe", "--client")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("needs an argument", cp.stderr)

    def test_probe_takes_no_operand(self):
        cp = run("probe", "extra")
        self.assertEqual(cp.returncode, 2)

    def test_facts_file_cannot_be_probed(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump({"schema": "hwcheck.facts", "schema_version": 1, "facts": {}}, f)
            f.flush()
            cp = run("probe", "--facts", f.name)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("live machine", cp.stderr)

    def test_help_lists_the_probe(self):
        cp = run("--help")
        for w in ("probe", "--probe-op", "--probe-duration", "--client"):
            self.assertIn(w, cp.stdout)


class Skips(unittest.TestCase):
    def test_root_is_not_probed(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "proc"))
            cp, doc = run_json("probe", "--json", "--root", d)
        p = doc["facts"]["probe"]
        self.assertEqual(cp.returncode, 3)
        self.assertEqual(p["status"], "skipped")
        self.assertIn("--root", p["reason"])
        self.assertEqual(p["results"], [])
        hwctest.validate(doc)

    def test_no_device_here(self):
        if have_rdma():
            self.skipTest("this machine has RDMA devices")
        cp, doc = run_json("probe", "--json")
        p = doc["facts"]["probe"]
        self.assertEqual(cp.returncode, 3)
        self.assertEqual(p["status"], "skipped")
        self.assertIn("no RDMA device", p["reason"])
        self.assertIn("probe skipped", cp.stderr)
        hwctest.validate(doc)
        cp = run("probe")
        self.assertEqual(cp.returncode, 3)
        self.assertIn("no RDMA device", cp.stdout)

    def test_check_without_probe_has_empty_section(self):
        cp, doc = run_json("--json", "facts")
        self.assertEqual(doc["facts"].get("probe", {}), {})

    def test_probe_options_alone_do_not_probe(self):
        cp, doc = run_json("--json", "--probe-op", "write", "facts")
        self.assertEqual(doc["facts"].get("probe", {}), {})

    def test_check_with_probe_carries_the_reason(self):
        if have_rdma():
            self.skipTest("this machine has RDMA devices")
        cp, doc = run_json("--json", "--probe", "check")
        self.assertIn(cp.returncode, (0, 1, 3))
        self.assertEqual(doc["facts"]["probe"]["status"], "skipped")
        hwctest.validate(doc)


class FactsFile(unittest.TestCase):
    def test_probe_section_round_trips(self):
        probe = {
            "status": "ok", "reason": None,
            "unavailable": {"reason": {"status": "absent", "detail": "every probe ran"}},
            "results": [{
                "status": "ok", "rdma_device": "mlx5_0", "port": 1, "bdf": "0000:3b:00.0",
                "op": "write", "mode": "loopback", "msg_bytes": 65536, "qps": 1, "depth": 128,
                "duration_s": 1.5, "messages": 200000, "gbps": 69.9, "msgs_per_s": 133333.3,
                "data_ok": True, "port_gbps": 100.0, "pcie_gbps": 62.9, "ceiling_gbps": 62.9,
                "ceiling_by": "pcie", "ceiling_bdf": "0000:00:03.0", "ratio": 0.95,
                "limited_by": "pcie", "finding": "x", "temp_start_mdegc": 71000,
                "temp_max_mdegc": 91000,
                "hops": [{"bdf": "0000:00:03.0", "speed_gts_idle": 2.5, "width_idle": 8,
                          "speed_gts_min": 8.0, "speed_gts_max": 8.0,
                          "max_speed_gts": 8.0, "width_min": 8, "width_max": 8, "max_width": 8,
                          "trained_down": False}],
                "counters": [{"name": "aer_dev_correctable@0000:00:03.0", "delta": 2}],
            }],
        }
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump({"schema": "hwcheck.facts", "schema_version": 1, "facts": {"probe": probe}}, f)
            f.flush()
            cp, doc = run_json("--json", "--facts", f.name, "check")
        p = doc["facts"]["probe"]
        r = p["results"][0]
        for k in ("gbps", "ceiling_gbps", "ceiling_by", "ratio", "temp_max_mdegc", "data_ok"):
            self.assertEqual(r[k], probe["results"][0][k], k)
        self.assertEqual(r["hops"], probe["results"][0]["hops"])
        self.assertEqual(r["counters"], probe["results"][0]["counters"])
        # keys the file did not have come back as not_collected, never as a number
        self.assertIsNone(r["warmup_s"])
        self.assertEqual(r["unavailable"]["warmup_s"]["status"], "not_collected")
        hwctest.validate(doc)


if __name__ == "__main__":
    hwctest.main()

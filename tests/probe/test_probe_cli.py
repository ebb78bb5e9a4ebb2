# SPDX-License-Identifier: MIT
# hwcheck probe without RDMA hardware: options, skips with their reasons, JSON-only stdout, the
# probe section through a facts file. (Real verbs: vm_probe.py.)
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
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
                           (["--probe-port", "70000"], "--probe-port"),
                           (["--tcp", "--client", "h", "--probe-streams", "0"], "--probe-streams"),
                           (["--tcp", "--client", "h", "--probe-streams", "65"], "--probe-streams")):
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
        for w in ("probe", "--probe-op", "--probe-duration", "--client", "--tcp", "--probe-streams"):
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


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port, timeout=30):
    """True once something listens on TCP port (from /proc/net, so no connection is made)."""
    want = ":%04X " % port
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for f in ("/proc/net/tcp6", "/proc/net/tcp"):
            try:
                for line in open(f).read().split("\n")[1:]:
                    w = line.split()
                    if len(w) > 3 and w[1].endswith(want.strip()) and w[3] == "0A":
                        return True
            except OSError:
                pass
        time.sleep(0.1)
    return False


class Tcp(unittest.TestCase):
    """probe --tcp on this machine's loopback: both ends real, no RDMA needed (two hosts: the VM)."""

    def test_needs_two_hosts(self):
        cp, doc = run_json("probe", "--tcp", "--json")
        self.assertEqual(cp.returncode, 3)
        self.assertIn("two hosts", doc["facts"]["probe"]["reason"])
        hwctest.validate(doc)

    def test_no_listener(self):
        cp, doc = run_json("probe", "--tcp", "--json", "--client", "127.0.0.1",
                           "--probe-port", str(free_port()))
        p = doc["facts"]["probe"]
        self.assertEqual(cp.returncode, 1)
        self.assertEqual(p["status"], "failed")
        self.assertIn("refused the connection", p["reason"])
        self.assertIsNone(p["results"][0]["gbps"])
        hwctest.validate(doc)

    def test_client_and_server_on_lo(self):
        port = str(free_port())
        srv = subprocess.Popen([hwctest.ARGS.hwcheck, "probe", "--tcp", "--server", "--json",
                                "--probe-port", port, "--timeout", "120"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, LC_ALL="C"))
        try:
            self.assertTrue(listening(int(port)), "the server listens")
            cp, doc = run_json("probe", "--tcp", "--json", "--client", "127.0.0.1", "--probe-port",
                               port, "--probe-streams", "2", "--probe-duration", "0.5")
            so, se = srv.communicate(timeout=60)
        finally:
            srv.kill()
            srv.wait()
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(srv.returncode, 0, se)
        hwctest.validate(doc)
        sdoc = json.loads(so)
        hwctest.validate(sdoc)
        rs, srs = doc["facts"]["probe"]["results"], sdoc["facts"]["probe"]["results"]
        self.assertEqual([r["direction"] for r in rs], ["to_peer", "from_peer"])
        self.assertEqual([r["direction"] for r in srs], ["from_peer", "to_peer"])
        for r, sr in zip(rs, srs):
            self.assertEqual((r["status"], r["op"], r["netdev"], r["streams"]), ("ok", "tcp", "lo", 2))
            self.assertTrue(r["data_ok"], r["data_check"])
            self.assertEqual(sum(x["bytes"] for x in r["per_stream"]), r["bytes"])
            self.assertAlmostEqual(r["gbps"], r["bytes"] * 8 / r["duration_s"] / 1e9, places=9)
            # the measured interval ends by one of the two stop rules, both at 0.5 s or later (an
            # upper bound would be a wall-clock limit: the test's own timeout bounds the run)
            self.assertIn(r["stopped"], ("stable", "duration"))
            self.assertGreaterEqual(r["duration_s"], 0.5)
            self.assertIsInstance(r["retransmits"], int)
            self.assertIsInstance(r["peer_cpu_busy"], float)
            # lo has no link speed: the ceiling is unknown, and says why; no ratio
            self.assertIsNone(r["ceiling_gbps"])
            self.assertIn("speed", r["unavailable"]["port_gbps"]["detail"])
            self.assertIsNone(r["ratio"])
            self.assertEqual((sr["status"], sr["mode"], sr["peer"]), ("ok", "server", "127.0.0.1"))
            self.assertIsNone(sr["gbps"])
            self.assertGreaterEqual(sr["bytes"], r["bytes"])  # the whole run, warm-up included
        self.assertTrue(srs[0]["data_ok"])  # the server checked what it received
        self.assertEqual(srs[1]["retransmits"], rs[1]["retransmits"])
        self.assertEqual([r["peer_port"] for r in rs], ["lo", "lo"])  # the server's port, named
        self.assertEqual([r["concurrent"] for r in rs + srs], [1] * 4)

    def test_all_ports_usage(self):
        for args, words in ((["--all-ports", "--client", "127.0.0.1"], "one server address per port"),
                            (["--client", "127.0.0.1,127.0.0.2"], "that is --all-ports")):
            cp = subprocess.run([hwctest.ARGS.hwcheck, "probe", "--tcp", *args], capture_output=True,
                                text=True)
            self.assertEqual(cp.returncode, 2, cp.stderr)
            self.assertIn(words, cp.stderr)

    def test_all_ports_through_one_port_do_not_pair(self):
        """Two of the server's addresses both reached through lo: each pair runs alone, nothing
        runs together, the reason names the port; the server ends with the client's run."""
        port = str(free_port())
        srv = subprocess.Popen([hwctest.ARGS.hwcheck, "probe", "--tcp", "--all-ports", "--server",
                                "--json", "--probe-port", port, "--timeout", "120"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, LC_ALL="C"))
        try:
            self.assertTrue(listening(int(port)), "the server listens")
            cp, doc = run_json("probe", "--tcp", "--json", "--all-ports", "--client",
                               "127.0.0.1,127.0.0.2", "--probe-port", port, "--probe-streams", "1",
                               "--probe-duration", "0.3")
            so, se = srv.communicate(timeout=60)
        finally:
            srv.kill()
            srv.wait()
        hwctest.validate(doc)
        p = doc["facts"]["probe"]
        self.assertEqual((cp.returncode, p["status"]), (1, "partial"), cp.stderr)
        rs = p["results"]
        self.assertEqual([(r["status"], r["peer"], r["concurrent"]) for r in rs[:4]],
                         [("ok", "127.0.0.1", 1)] * 2 + [("ok", "127.0.0.2", 1)] * 2)
        self.assertEqual(rs[4]["status"], "failed")
        self.assertIn("both reached through lo here", rs[4]["reason"])
        self.assertIn("both reached through lo", cp.stderr)
        self.assertEqual(len(rs), 5)  # nothing ran together
        self.assertEqual(srv.returncode, 0, se)  # the client's END ended the server
        sdoc = json.loads(so)
        hwctest.validate(sdoc)
        self.assertEqual([r["status"] for r in sdoc["facts"]["probe"]["results"]], ["ok"] * 4)


class TcpFacts(unittest.TestCase):
    """A real TCP client report from the VM, read back: the rules and the report name the netdev."""

    def test_rules_and_report(self):
        f = hwctest.fixture("probe-tcp-vm", "client.json")
        cp, doc = run_json("--json", "--facts", f, "check")
        hwctest.validate(doc)
        below = [x for x in doc["findings"] if x["rule_id"] == "PROBE_BELOW_CEILING"]
        self.assertEqual([x["subject"] for x in below], ["vc", "vc"])
        self.assertIn("tcp bandwidth", below[0]["message"])
        self.assertIn("probe.results[0:vc/to_peer].gbps", [e["fact"] for e in below[0]["evidence"]])
        r = doc["facts"]["probe"]["results"]
        self.assertEqual([x["op"] for x in r], ["tcp", "tcp"])
        self.assertEqual(r[0]["per_stream"][0]["bytes"], r[0]["bytes"])
        cp = run("--facts", f, "check")
        self.assertIn("probe vc client tcp to_peer: ", cp.stdout)
        self.assertIn("probe vc client tcp from_peer: ", cp.stdout)
        # the two directions are two probes: a report diffed against itself changes nothing
        cp = run("diff", f, f)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_merge_groups_each_direction(self):
        """Three hosts, one slow to_peer: an outlier of the to_peer group only (merge)."""
        doc = json.load(open(hwctest.fixture("probe-tcp-vm", "client.json")))
        with tempfile.TemporaryDirectory() as d:
            files = []
            for i, g in enumerate((0.33, 0.34, 0.05)):
                doc["facts"]["host"]["hostname"] = f"n{i}"
                doc["facts"]["probe"]["results"][0]["gbps"] = g
                files.append(os.path.join(d, f"n{i}.json"))
                with open(files[-1], "w") as fh:
                    json.dump(doc, fh)
            cp, m = run_json("merge", "--json", *files)
        self.assertEqual(cp.returncode, 1)
        out = [(o["group"], o["host"], o["item"]) for o in m["outliers"]]
        self.assertEqual(out, [("unknown card tcp client 131072 B x1 streams to_peer", "n2", "vc")])


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

# SPDX-License-Identifier: MIT
# hwcheck merge: a fleet made in the test from the fixture pairs' facts (six hosts of the
# ConnectX-6 Dx capture; temperatures, probe results and one firmware version varied per host --
# test inputs, not measurements), and real reports of this machine.
import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

TEMPS = [88, 87, 89, 88, 86, 101]
GBPS = [97.5, 97.1, 96.8, 97.3, 62.0, 97.0]


class Fleet(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        base = json.load(open(hwctest.fixture("diff-unchanged", "after.json")))
        self.paths = []
        for i, (t, g) in enumerate(zip(TEMPS, GBPS), 1):
            d = copy.deepcopy(base)
            d["schema"] = "hwcheck.report"
            d["run"]["hostname"] = f"node{i:02d}"
            d["facts"]["thermal"]["sensors"][0]["temp_mdegc"] = t * 1000
            d["facts"]["probe"] = {"results": [{"rdma_device": "mlx5_0", "port": 1, "bdf": "0000:41:00.0",
                                                "op": "write", "mode": "loopback", "msg_bytes": 65536,
                                                "qps": 4, "gbps": g}]}
            d["findings"] = []
            if i == 3:
                d["facts"]["mlx"]["adapters"][0]["fw_version"] = "22.99.7864"
                d["findings"] = [{"rule_id": "PCIE_TEST_RULE", "severity": "error", "subject": "0000:41:00.0",
                                  "message": "", "evidence": [], "fix": None, "waived": False},
                                 {"rule_id": "PCIE_TEST_RULE", "severity": "error", "subject": "0000:41:00.1",
                                  "message": "", "evidence": [], "fix": None, "waived": False},
                                 {"rule_id": "WAIVED_RULE", "severity": "error", "subject": "host",
                                  "message": "", "evidence": [], "fix": None, "waived": True}]
            p = os.path.join(self.tmp, f"node{i:02d}.json")
            json.dump(d, open(p, "w"))
            self.paths.append(p)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def merge(self, *paths, rc=None):
        cp, j = run_json("merge", "--json", *paths)
        if rc is not None:
            self.assertEqual(cp.returncode, rc, cp.stderr)
        hwctest.validate(j)
        return j

    def test_outliers(self):
        j = self.merge(*self.paths, rc=1)
        got = {(o["metric"], o["host"], o["side"], o["bad"]) for o in j["outliers"]}
        self.assertEqual(got, {("temperature_c", "node06", "high", True),
                               ("probe_gbps", "node05", "low", True)})
        t = [o for o in j["outliers"] if o["metric"] == "temperature_c"][0]
        self.assertEqual((t["value"], t["median"], t["card"]), (101.0, 88.0, "0000:41:00.0"))
        self.assertGreater(t["score"], 3.5)
        g = {x["metric"]: x for x in j["groups"]}
        self.assertEqual(g["probe_gbps"]["cards"], 6)
        self.assertTrue(g["probe_gbps"]["judged"])
        self.assertEqual(g["probe_gbps"]["group"], "ConnectX-6 Dx write loopback 65536 B x4 qp")

    def test_firmware_spread(self):
        j = self.merge(*self.paths)
        fw = j["firmware"]
        self.assertEqual(len(fw), 1)
        self.assertTrue(fw[0]["spread"])
        self.assertEqual({v["fw_version"]: v["cards"] for v in fw[0]["versions"]},
                         {"22.27.1016": 5, "22.99.7864": 1})
        where = [v["where"] for v in fw[0]["versions"] if v["fw_version"] == "22.99.7864"][0]
        self.assertEqual(where, [{"host": "node03", "card": "0000:41:00.0"}])

    def test_hosts_by_findings(self):
        j = self.merge(*self.paths)
        rows = {r["host"]: r for r in j["findings"]["hosts"]}
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows["node03"]["rules"], {"PCIE_TEST_RULE": 2})  # the waived one left out
        self.assertEqual(rows["node03"]["worst"], "error")
        self.assertEqual(rows["node01"]["worst"], "ok")
        self.assertEqual(j["findings"]["rules"], [{"rule_id": "PCIE_TEST_RULE", "severity": "error", "hosts": 1}])

    def test_text(self):
        cp = run("merge", *self.paths)
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertRegex(cp.stdout, r"node03\s+error\s+2\s+0\s+0\s+PCIE_TEST_RULEx2")
        self.assertIn("node06 0000:41:00.0 hottest sensor: temperature 101.0 °C, peers' median 88.0", cp.stdout)
        self.assertIn("node05 0000:41:00.0 mlx5_0 port 1: probe 62.0 Gb/s", cp.stdout)
        self.assertIn("ConnectX-6 Dx MT_0000000359: SPREAD 22.27.1016 (5 cards) 22.99.7864 (1 card)", cp.stdout)

    def test_too_few_peers_judges_nobody(self):
        j = self.merge(*[self.paths[0], self.paths[5]], rc=0)
        self.assertEqual(j["outliers"], [])
        self.assertFalse(any(g["judged"] for g in j["groups"]))

    def test_identical_cards_do_not_flag_noise(self):
        # five cards at 88 C and one at 88.5: the MAD is 0, the floor keeps 0.5 C from being an outlier
        base = json.load(open(self.paths[0]))
        paths = []
        for i, t in enumerate([88, 88, 88, 88, 88, 88.5]):
            base["run"]["hostname"] = f"same{i}"
            base["facts"]["thermal"]["sensors"][0]["temp_mdegc"] = int(t * 1000)
            base["facts"]["probe"] = {"results": []}
            p = os.path.join(self.tmp, f"same{i}.json")
            json.dump(base, open(p, "w"))
            paths.append(p)
        j = self.merge(*paths, rc=0)
        self.assertEqual(j["outliers"], [])

    def test_same_host_twice_and_live_report(self):
        live = os.path.join(self.tmp, "live.json")
        cp = run("--json", "-o", live)
        self.assertIn(cp.returncode, (0, 1))
        j = self.merge(live, live, self.paths[0])
        hosts = [r["host"] for r in j["findings"]["hosts"]]
        self.assertEqual(hosts[1], hosts[0] + "#2")
        self.assertEqual(j["hosts"], 3)

    def test_long_multibyte_names(self):
        # keys are cut to a fixed size; a cut through a UTF-8 character must not break the merge
        paths = []
        for i, p in enumerate(self.paths[:3]):
            d = json.load(open(p))
            d["run"]["hostname"] = "h\u00e9" * 400 + str(i)
            d["facts"]["mlx"]["adapters"][0]["product"] = "\u00e9" * 400
            q = os.path.join(self.tmp, f"long{i}.json")
            json.dump(d, open(q, "w"))
            paths.append(q)
        j = self.merge(*paths)
        self.assertEqual(len(j["findings"]["hosts"]), 3)
        self.assertEqual(len({r["host"] for r in j["findings"]["hosts"]}), 3)

    def test_bad_input(self):
        cp = run("merge")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("merge: expected one or more", cp.stderr)
        bad = os.path.join(self.tmp, "bad.json")
        open(bad, "w").write("[]")
        cp = run("merge", self.paths[0], bad)
        self.assertEqual(cp.returncode, 2)
        self.assertIn(bad, cp.stderr)


if __name__ == "__main__":
    hwctest.main()

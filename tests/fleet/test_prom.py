# SPDX-License-Identifier: MIT
# --prom FILE: node_exporter textfile metrics, checked by a strict parser (and by promtool when it
# is installed), written atomically, carrying the facts of the fixture pairs.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
import promparse  # noqa: E402
from hwctest import run  # noqa: E402

PROM_DUMP = None
if "--prom-dump" in sys.argv:
    i = sys.argv.index("--prom-dump")
    PROM_DUMP = sys.argv[i + 1]
    del sys.argv[i:i + 2]


def promtool_ok(path):
    """None when promtool is absent; else (ok, output)."""
    pt = shutil.which("promtool")
    if not pt:
        return None
    with open(path) as f:
        cp = subprocess.run([pt, "check", "metrics"], stdin=f, capture_output=True, text=True)
    return cp.returncode == 0, cp.stdout + cp.stderr


def series(fams, name, **labels):
    return [v for ls, v in fams.get(name, {"samples": []})["samples"]
            if all(ls.get(k) == v2 for k, v2 in labels.items())]


class Parser(unittest.TestCase):
    GOOD = ('# HELP hwcheck_a A.\n# TYPE hwcheck_a gauge\nhwcheck_a{x="q\\"\\\\\\n"} 1\n'
            'hwcheck_a 2.5e3\n# HELP hwcheck_b B.\n# TYPE hwcheck_b gauge\nhwcheck_b NaN\n')

    def test_accepts_good(self):
        f = promparse.parse(self.GOOD)
        self.assertEqual(f["hwcheck_a"]["samples"][0], ({"x": 'q"\\\n'}, 1.0))
        self.assertEqual(f["hwcheck_a"]["samples"][1][1], 2500.0)

    def test_rejects_bad(self):
        bad = {
            "no newline at end": self.GOOD.rstrip("\n"),
            "second TYPE": self.GOOD + "# TYPE hwcheck_a gauge\n",
            "family split": self.GOOD + "hwcheck_a{y=\"1\"} 1\n",
            "duplicate series": self.GOOD.replace("hwcheck_a 2.5e3", 'hwcheck_a{x="q\\"\\\\\\n"} 3'),
            "bad escape": self.GOOD.replace('\\"\\\\', "\\t"),
            "no HELP": "# TYPE hwcheck_c gauge\nhwcheck_c 1\n",
            "bad value": "# HELP hwcheck_c C\n# TYPE hwcheck_c gauge\nhwcheck_c one\n",
            "no prefix": "# HELP node_c C\n# TYPE node_c gauge\nnode_c 1\n",
            "bad type": "# HELP hwcheck_c C\n# TYPE hwcheck_c gauged\nhwcheck_c 1\n",
            "unterminated": '# HELP hwcheck_c C\n# TYPE hwcheck_c gauge\nhwcheck_c{a="1} 1\n',
        }
        for why, text in bad.items():
            with self.assertRaises(promparse.PromError, msg=why):
                promparse.parse(text)


class Live(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_check_writes_valid_metrics_atomically(self):
        out = os.path.join(self.tmp, "hwcheck.prom")
        with open(out, "w") as f:
            f.write("old\n")
        ino = os.stat(out).st_ino
        cp_plain = run()
        cp = run("--prom", out)
        self.assertEqual(cp.returncode, cp_plain.returncode, cp.stderr)  # --prom does not change the verdict
        self.assertEqual(sorted(os.listdir(self.tmp)), ["hwcheck.prom"])  # no temporary left
        self.assertNotEqual(os.stat(out).st_ino, ino)  # replaced by rename, not rewritten in place
        text = open(out).read()
        fams = promparse.parse(text)
        ts = series(fams, "hwcheck_last_run_timestamp_seconds")
        self.assertEqual(len(ts), 1)
        self.assertLess(abs(ts[0] - time.time()), 300)
        sev = {ls["severity"]: v for ls, v in fams["hwcheck_findings"]["samples"]}
        self.assertEqual(set(sev), {"info", "warn", "error", "unknown"})
        _, j = hwctest.run_json("--json")
        self.assertEqual(len(fams["hwcheck_finding"]["samples"]), len(j["findings"]))
        for f in j["findings"]:
            self.assertEqual(series(fams, "hwcheck_finding", rule=f["rule_id"], subject=f["subject"]), [1.0])
        r = promtool_ok(out)
        if r is not None:
            self.assertTrue(r[0], r[1])

    def test_json_and_prom_together(self):
        out = os.path.join(self.tmp, "m.prom")
        cp = run("--json", "--prom", out)
        json.loads(cp.stdout)
        promparse.parse(open(out).read())

    def test_nothing_collected_is_not_a_clean_host(self):
        out = os.path.join(self.tmp, "e.prom")
        root = os.path.join(self.tmp, "empty")
        os.mkdir(root)
        cp = run("--root", root, "--prom", out)
        self.assertEqual(cp.returncode, 3, cp.stderr)
        fams = promparse.parse(open(out).read())
        self.assertEqual(sorted(fams), ["hwcheck_last_run_timestamp_seconds", "hwcheck_up"])
        self.assertEqual(fams["hwcheck_up"]["samples"], [({}, 0.0)])

    def test_unwritable_target(self):
        cp = run("--prom", "/nonexistent/dir/x.prom")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--prom /nonexistent/dir/x.prom: cannot write", cp.stderr)


@unittest.skipUnless(PROM_DUMP, "needs --prom-dump")
class FromFacts(unittest.TestCase):
    """The renderer over the fixture pairs' facts (the contract's keys), plus test-made findings."""

    def dump(self, doc):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "in.json")
            out = os.path.join(d, "out.prom")
            with open(src, "w") as f:
                json.dump(doc, f)
            cp = subprocess.run([PROM_DUMP, src, out], capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            text = open(out).read()
            r = promtool_ok(out)
            if r is not None:
                self.assertTrue(r[0], r[1])
        return promparse.parse(text), text

    def test_card_metrics(self):
        doc = json.load(open(hwctest.fixture("diff-wrorder-reset", "after.json")))
        doc["findings"] = [
            {"rule_id": "PCIE_TEST", "severity": "error", "subject": "0000:0b:00.0"},
            {"rule_id": "ESCAPE_TEST", "severity": "warn", "subject": 'a"b\\c\nd'},
            {"rule_id": "WAIVED_TEST", "severity": "error", "subject": "host", "waiver_reason": "lab"},
        ]
        fams, text = self.dump(doc)
        card = "0000:0b:00.0"
        self.assertEqual(series(fams, "hwcheck_pcie_link_speed_gts", card=card), [8.0])
        self.assertEqual(series(fams, "hwcheck_pcie_link_width", card=card), [8.0])
        self.assertEqual(series(fams, "hwcheck_pcie_link_capable_width", card=card), [8.0])
        info = fams["hwcheck_adapter_info"]["samples"]
        self.assertEqual(info, [({"card": card, "product": "ConnectX-4 Lx", "fw_version": "14.21.1000",
                                  "psid": "MT_2470111034"}, 1.0)])
        self.assertEqual(series(fams, "hwcheck_port_active", rdma_device="mlx5_0"), [1.0])
        self.assertEqual(series(fams, "hwcheck_port_active", rdma_device="mlx5_1"), [0.0])
        self.assertNotIn("hwcheck_port_rate_gbps", fams)  # unknown in the capture: left out
        self.assertEqual(series(fams, "hwcheck_finding", subject='a"b\\c\nd'), [1.0])
        self.assertIn('subject="a\\"b\\\\c\\nd"', text)
        sev = {ls["severity"]: v for ls, v in fams["hwcheck_findings"]["samples"]}
        self.assertEqual((sev["error"], sev["warn"]), (1.0, 1.0))  # the waived one is not counted
        self.assertEqual(series(fams, "hwcheck_finding", rule="WAIVED_TEST", waived="true"), [1.0])

    def test_temperature_and_probe(self):
        doc = json.load(open(hwctest.fixture("diff-unchanged", "after.json")))
        # a probe result shaped as facts.probe.results[] (test input, not a measurement)
        doc["facts"]["probe"] = {"results": [{"rdma_device": "mlx5_0", "port": 1, "bdf": "0000:41:00.1",
                                              "op": "write", "mode": "loopback", "msg_bytes": 65536,
                                              "qps": 4, "gbps": 97.5}]}
        doc["facts"]["thermal"]["sensors"].append({"chip": "coretemp-isa-0000", "label": "Package id 0",
                                                   "temp_mdegc": 41000, "bdf": None, "source": "hwmon"})
        fams, _ = self.dump(doc)
        self.assertEqual(series(fams, "hwcheck_card_temperature_celsius", card="0000:41:00.0"), [88.0])
        # the limit THERMAL_CARD_OVER_LIMIT applies (rules/default-profile.json) beside it
        prof = json.load(open(hwctest.source("rules", "default-profile.json")))
        self.assertEqual(series(fams, "hwcheck_card_temperature_limit_celsius", card="0000:41:00.0"),
                         [float(prof["thresholds"]["card_temp_limit_c"])])
        host = [ls for ls, _ in fams["hwcheck_temperature_celsius"]["samples"] if "card" not in ls]
        self.assertEqual(host, [{"chip": "coretemp-isa-0000", "label": "Package id 0", "source": "hwmon"}])
        self.assertEqual(series(fams, "hwcheck_probe_gbps", card="0000:41:00.0", op="write"), [97.5])

    def test_one_series_per_card_temperature(self):
        # the same ASIC read by mstflint (88), by hwmon on each function (as on the BlueField-2
        # capture, thermal-bf2-x3-sensors) and by MTMP: one series, the hottest, as the rule takes it
        doc = json.load(open(hwctest.fixture("diff-unchanged", "after.json")))
        s = doc["facts"]["thermal"]["sensors"]
        s.append(dict(s[0]))
        for fn, t in (("0000:41:00.0", 86000), ("0000:41:00.1", 87000)):
            s.append({"chip": "mlx5", "label": "asic", "temp_mdegc": t, "bdf": fn, "source": "hwmon"})
        s.append({"chip": "mlx5", "label": "Module0", "temp_mdegc": 57000, "bdf": "0000:41:00.0",
                  "source": "hwmon"})
        doc["facts"]["mlx"]["adapters"][0]["registers"] = {"temp_mdegc": 85000}
        fams, _ = self.dump(doc)
        self.assertEqual(fams["hwcheck_card_temperature_celsius"]["samples"], [({"card": "0000:41:00.0"}, 88.0)])
        # a transceiver module is another temperature, with its card
        self.assertEqual(fams["hwcheck_temperature_celsius"]["samples"],
                         [({"card": "0000:41:00.0", "chip": "mlx5", "label": "Module0", "source": "hwmon"}, 57.0)])

    def test_two_devices_same_sensor_name(self):
        # two NVMe drives both have a "Composite" sensor: the device address keeps them apart
        doc = json.load(open(hwctest.fixture("diff-unchanged", "after.json")))
        for bdf, t in (("0000:01:00.0", 30000), ("0000:02:00.0", 40000)):
            doc["facts"]["thermal"]["sensors"].append({"chip": "nvme", "label": "Composite", "temp_mdegc": t,
                                                       "bdf": bdf, "source": "hwmon"})
        fams, _ = self.dump(doc)
        self.assertEqual(series(fams, "hwcheck_temperature_celsius", device="0000:02:00.0"), [40.0])
        self.assertEqual(len(fams["hwcheck_temperature_celsius"]["samples"]), 2)

    def test_verdict_and_up(self):
        doc = json.load(open(hwctest.fixture("diff-unchanged", "after.json")))
        for findings, verdict in (([], "ok"), ([{"rule_id": "X", "severity": "unknown", "subject": "host"}], "incomplete"),
                                  ([{"rule_id": "X", "severity": "unknown", "subject": "host"},
                                    {"rule_id": "Y", "severity": "warn", "subject": "host"}], "warn"),
                                  ([{"rule_id": "Y", "severity": "error", "subject": "host"}], "error"),
                                  ([{"rule_id": "Y", "severity": "error", "subject": "host", "waiver_reason": "lab"}], "ok")):
            doc["findings"] = findings
            fams, _ = self.dump(doc)
            self.assertEqual(fams["hwcheck_up"]["samples"], [({}, 1.0)])
            got = {ls["verdict"]: v for ls, v in fams["hwcheck_verdict"]["samples"]}
            self.assertEqual(got, {v: float(v == verdict) for v in ("ok", "incomplete", "warn", "error")}, findings)


if __name__ == "__main__":
    hwctest.main()

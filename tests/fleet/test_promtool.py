# SPDX-License-Identifier: MIT
# promtool (Debian package prometheus) over what hwcheck really writes: `promtool check metrics` on
# the textfiles of real fixtures (a slot-limited card, a downgraded link, a hot card, a healthy
# host, an empty root), `promtool check rules` on contrib/prometheus/hwcheck.rules.yml, and
# `promtool test rules`: those same textfiles as input series, with the alerts each must raise and
# those it must not (slot-limited is not downgraded; the limit is the profile's; nothing collected
# is not healthy). Exits 77 when promtool is not installed.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
import promparse  # noqa: E402

PROMTOOL = shutil.which("promtool")

# instance label -> fixture root (None: an empty root, nothing collected)
HOSTS = {
    "slot-limited": "cx5-gen3x8-100g",       # x16 card in an x8 slot: PCIE_LINK_SLOT_LIMITED (info)
    "downgraded": "host-cx6-ocp3-gen1-x4",  # Gen4 x16 card and slot trained Gen1 x4
    "hot": "cx6dx-card-88c",                # 88 degC against the default 85 degC limit
    "healthy": "healthy-cx7-gen5x16",
    "empty": None,
    "required": "thermal-bf2-x3-sensors",   # no mstflint; the profile requires MLX_FW_MISMATCH
}
REQUIRED_PROFILE = {"schema": "hwcheck.profile", "schema_version": 1, "required": ["MLX_FW_MISMATCH"]}


def write_prom(root, out, *extra):
    """Writes the textfile; returns (exit code, the JSON report of the same run's facts)."""
    argv = [hwctest.hwcheck_path(), "--root", root, "--no-color", *extra]
    env = dict(os.environ, LC_ALL="C")
    cp = subprocess.run(argv + ["--prom", out], capture_output=True, text=True, timeout=120, env=env)
    js = subprocess.run(argv + ["--json"], capture_output=True, text=True, timeout=120, env=env)
    return cp.returncode, json.loads(js.stdout)


def read(path):
    with open(path) as f:
        return f.read()


def go_value(v):
    """A sample value as Go's %v prints it in an alert template (88, 57.6)."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def expand(template, labels, value):
    t = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), template)
    return t.replace("{{ $value }}", go_value(value))


@unittest.skipUnless(PROMTOOL, "promtool not installed (Debian package prometheus)")
class Promtool(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.files, cls.fams, cls.rc, cls.reports = {}, {}, {}, {}
        prof = os.path.join(cls.tmp, "required.json")
        with open(prof, "w") as f:
            json.dump(REQUIRED_PROFILE, f)
        for inst, fx in HOSTS.items():
            root = hwctest.fixture(fx, "root") if fx else os.path.join(cls.tmp, "empty-root")
            os.makedirs(root, exist_ok=True)
            out = os.path.join(cls.tmp, inst + ".prom")
            extra = ["--profile", prof] if inst == "required" else []
            cls.rc[inst], cls.reports[inst] = write_prom(root, out, *extra)
            cls.files[inst] = out
            cls.fams[inst] = promparse.parse(read(out))
        global RULES
        RULES = os.path.abspath(hwctest.source("contrib", "prometheus", "hwcheck.rules.yml"))
        import yaml
        cls.rules = {r["alert"]: r for g in yaml.safe_load(read(RULES))["groups"] for r in g["rules"]}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_check_metrics_on_real_textfiles(self):
        for inst, path in self.files.items():
            with open(path) as f:
                cp = subprocess.run([PROMTOOL, "check", "metrics"], stdin=f, capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, f"{inst}: {cp.stdout}{cp.stderr}")
            self.assertEqual(cp.stdout + cp.stderr, "", inst)  # no lint remark either

    def test_check_rules(self):
        cp = subprocess.run([PROMTOOL, "check", "rules", RULES], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_empty_root_is_not_a_healthy_host(self):
        self.assertEqual(self.rc["empty"], 3)
        fams = self.fams["empty"]
        self.assertEqual(fams["hwcheck_up"]["samples"], [({}, 0.0)])
        self.assertNotIn("hwcheck_findings", fams)
        self.assertNotIn("hwcheck_verdict", fams)
        self.assertEqual(self.fams["healthy"]["hwcheck_up"]["samples"], [({}, 1.0)])

    def test_metrics_carry_the_report_summary(self):
        for inst, rep in self.reports.items():
            if inst == "empty":
                continue
            summ = rep["summary"]
            fams = self.fams[inst]
            got = {ls["verdict"]: v for ls, v in fams["hwcheck_verdict"]["samples"]}
            self.assertEqual(got[summ["verdict"]], 1.0, inst)
            self.assertEqual(sum(got.values()), 1.0, inst)
            counts = {ls["severity"]: v for ls, v in fams["hwcheck_findings"]["samples"]}
            self.assertEqual(counts, {k: float(v) for k, v in summ["counts"].items()}, inst)
        self.assertEqual(self.reports["empty"]["summary"]["verdict"], "incomplete")
        self.assertGreater(self.fams["required"]["hwcheck_required_unknown"]["samples"][0][1], 0)
        self.assertEqual(self.fams["healthy"]["hwcheck_required_unknown"]["samples"][0][1], 0)

    def samples(self, inst, name):
        return self.fams[inst].get(name, {"samples": []})["samples"]

    def input_series(self):
        """Every sample of every textfile, labelled with its instance, constant for 3 hours; the
        run timestamp is 0 (promtool's clock starts at the epoch)."""
        out = []
        for inst in HOSTS:
            for name, fam in self.fams[inst].items():
                for labels, v in fam["samples"]:
                    ls = dict(labels, instance=inst)
                    sel = ",".join(f'{k}={json.dumps(ls[k])}' for k in sorted(ls))
                    val = 0 if name == "hwcheck_last_run_timestamp_seconds" else v
                    out.append({"series": f"{name}{{{sel}}}", "values": f"{go_value(val)}x180"})
        return out

    def expected(self, alert, metric, pred, value_of=None):
        """The alerts `alert` must raise: one per sample of `metric` that pred(instance, labels,
        value) accepts, with the rule's labels and annotations expanded."""
        rule = self.rules[alert]
        exp = []
        for inst in HOSTS:
            for labels, v in self.samples(inst, metric):
                if not pred(inst, labels, v):
                    continue
                ls = dict(labels, instance=inst)
                val = value_of(inst, labels) if value_of else v
                exp.append({"exp_labels": dict(ls, **rule.get("labels", {})),
                            "exp_annotations": {k: expand(t, ls, val) for k, t in rule["annotations"].items()}})
        return exp

    def test_alert_rules(self):
        card = lambda inst, ls: [v for l2, v in self.samples(inst, "hwcheck_card_temperature_celsius")
                                 if l2["card"] == ls["card"]][0]
        limit = {}
        for inst in HOSTS:
            for ls, v in self.samples(inst, "hwcheck_card_temperature_limit_celsius"):
                limit[(inst, ls["card"])] = v
        downgraded = self.expected("HwcheckPcieLinkDowngraded", "hwcheck_finding",
                                   lambda i, ls, v: ls["rule"] == "PCIE_LINK_DOWNGRADED" and ls["severity"] != "unknown")
        hot = self.expected("HwcheckNicHot", "hwcheck_card_temperature_celsius",
                            lambda i, ls, v: v > limit[(i, ls["card"])], value_of=card)
        nothing = self.expected("HwcheckNothingCollected", "hwcheck_up", lambda i, ls, v: v == 0)
        required = self.expected("HwcheckRequiredUndecided", "hwcheck_required_unknown", lambda i, ls, v: v > 0)
        self.assertEqual([e["exp_labels"]["instance"] for e in required], ["required"])
        errors = self.expected("HwcheckErrorFindings", "hwcheck_findings",
                               lambda i, ls, v: ls["severity"] == "error" and v > 0)
        # what the fixtures are known to hold: the alert follows the rule, not the raw widths
        self.assertEqual([e["exp_labels"]["instance"] for e in downgraded], ["downgraded"])
        self.assertEqual(downgraded[0]["exp_labels"]["subject"], "0000:04:00.0")
        self.assertIn("PCIE_LINK_SLOT_LIMITED", [ls["rule"] for ls, _ in self.samples("slot-limited", "hwcheck_finding")])
        self.assertEqual([(e["exp_labels"]["instance"], e["exp_labels"]["card"]) for e in hot],
                         [("hot", "0000:41:00.0")])
        self.assertEqual([e["exp_labels"]["instance"] for e in nothing], ["empty"])
        self.assertIn("downgraded", [e["exp_labels"]["instance"] for e in errors])
        # and the raw widths would have flagged the slot-limited card too
        w = dict((ls["card"], v) for ls, v in self.samples("slot-limited", "hwcheck_pcie_link_width"))
        cw = dict((ls["card"], v) for ls, v in self.samples("slot-limited", "hwcheck_pcie_link_capable_width"))
        self.assertTrue(any(w[c] < cw[c] for c in w))
        test = {
            "rule_files": [RULES],
            "evaluation_interval": "1m",
            "tests": [{
                "interval": "1m",
                "input_series": self.input_series(),
                "alert_rule_test": [
                    {"eval_time": "2h", "alertname": "HwcheckPcieLinkDowngraded", "exp_alerts": downgraded},
                    {"eval_time": "30m", "alertname": "HwcheckPcieLinkDowngraded", "exp_alerts": []},  # for: 1h
                    {"eval_time": "2h", "alertname": "HwcheckNicHot", "exp_alerts": hot},
                    {"eval_time": "2h", "alertname": "HwcheckNothingCollected", "exp_alerts": nothing},
                    {"eval_time": "2h", "alertname": "HwcheckRequiredUndecided", "exp_alerts": required},
                    {"eval_time": "2h", "alertname": "HwcheckErrorFindings", "exp_alerts": errors},
                ],
            }],
        }
        path = os.path.join(self.tmp, "hwcheck.rules.test.yml")
        with open(path, "w") as f:
            json.dump(test, f, indent=1)  # JSON is YAML
        cp = subprocess.run([PROMTOOL, "test", "rules", path], capture_output=True, text=True, timeout=120)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("SUCCESS", cp.stdout + cp.stderr)

    def test_a_mutated_rule_fails_the_unit_test(self):
        # the unit test can fail: the old raw-width alert fires on the slot-limited card too
        import yaml
        doc = yaml.safe_load(read(RULES))
        for g in doc["groups"]:
            for r in g["rules"]:
                if r["alert"] == "HwcheckPcieLinkDowngraded":
                    r["expr"] = 'hwcheck_pcie_link_width < hwcheck_pcie_link_capable_width'
        bad = os.path.join(self.tmp, "bad.rules.yml")
        with open(bad, "w") as f:
            yaml.safe_dump(doc, f)
        series = [s for s in self.input_series() if s["series"].startswith("hwcheck_pcie_link")]
        test = {"rule_files": [bad], "evaluation_interval": "1m",
                "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": [
                    {"eval_time": "2h", "alertname": "HwcheckPcieLinkDowngraded", "exp_alerts": []}]}]}
        path = os.path.join(self.tmp, "bad.test.yml")
        with open(path, "w") as f:
            json.dump(test, f)
        cp = subprocess.run([PROMTOOL, "test", "rules", path], capture_output=True, text=True, timeout=120)
        self.assertNotEqual(cp.returncode, 0, cp.stdout)


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# Fix texts (issue 12 §5): every finding's fix is a command a person can run as printed. Over every
# fixture root, every scenario facts file and every rule case, no fix holds a placeholder left
# unfilled (`<BDF>`, `<node>`, `<current>`...); and the texts that were wrong are checked on the
# captures they were wrong on.
import glob
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402
from rulestest import pop_arg  # noqa: E402

RULES_EVAL = pop_arg("--rules-eval")
PLACEHOLDER = re.compile(r"<[A-Za-z_][A-Za-z0-9_ ]*>")


def roots():
    return sorted(os.path.dirname(p) for p in glob.glob(hwctest.fixture("*", "root", "")))


def findings_of_root(root):
    _, j = run_json("--root", root, "check", "--json")
    return j["findings"]


def findings_of_facts(path, profile=None):
    argv = [RULES_EVAL, path] + ([profile] if profile else [])
    cp = subprocess.run(argv, capture_output=True, text=True, env={"LC_ALL": "C"})
    if cp.returncode != 0:
        raise AssertionError(f"{path}: rules_eval exit {cp.returncode}: {cp.stderr}")
    return json.loads(cp.stdout)


def by_rule(findings, rid):
    return [f for f in findings if f["rule_id"] == rid]


class NoPlaceholderLeft(unittest.TestCase):
    def check(self, what, findings):
        for f in findings:
            left = PLACEHOLDER.findall(f.get("fix") or "")
            self.assertEqual(left, [], f"{what}: {f['rule_id']} {f['subject']}: fix {f['fix']!r}")
        return len([f for f in findings if f.get("fix")])

    def test_every_fixture_root(self):
        n = 0
        for root in roots():
            with self.subTest(root=os.path.relpath(root, hwctest.source())):
                n += self.check(root, findings_of_root(root))
        self.assertGreater(n, 50)

    def test_every_scenario_and_rule_case(self):
        import test_rules  # the rule cases' own runner (facts + patch + profile)
        test_rules.RULES_EVAL = RULES_EVAL
        n = 0
        for path in sorted(glob.glob(os.path.join(HERE, "scenarios", "*.facts.json"))):
            with self.subTest(scenario=os.path.basename(path)):
                n += self.check(path, findings_of_facts(path))
        for path in test_rules.CASES:
            with self.subTest(case=os.path.relpath(path, HERE)):
                _, findings = test_rules.run_case(path)
                n += self.check(path, findings)
        self.assertGreater(n, 100)


class FixTextsOnRealCaptures(unittest.TestCase):
    def test_retrain_targets_the_port_above_the_link_that_trained_low(self):
        # host-switch-slow-hop: the switch's upstream port 01:00.0 trained at 8 GT/s under root
        # port 00:01.0; the card's own port above is 02:00.0, which is not the link to retrain
        f = by_rule(findings_of_root(hwctest.fixture("host-switch-slow-hop", "root")), "PCIE_LINK_DOWNGRADED")
        hop = [x for x in f if "0000:01:00.0" in x["message"]]
        self.assertEqual(len(hop), 1, f)
        self.assertIn("`setpci -s 0000:00:01.0 CAP_EXP+10.w=20:20`", hop[0]["fix"])
        self.assertNotIn("0000:02:00.0", hop[0]["fix"])

    def test_mlxlink_uses_the_function_of_the_port(self):
        # mlx-cx4lx-nextboot: mlx5_1 is the second PF (0000:01:00.1); its port 1 is down
        f = by_rule(findings_of_root(hwctest.fixture("mlx-cx4lx-nextboot", "root")), "NET_PORT_DOWN")
        second = [x for x in f if x["subject"] == "mlx5_1/1"]
        self.assertEqual(len(second), 1, f)
        self.assertIn("`mstlink -d 0000:01:00.1 -p 1`", second[0]["fix"])
        first = [x for x in f if x["subject"] == "mlx5_0/1"]
        for x in first:
            self.assertIn("`mstlink -d 0000:01:00.0 -p 1`", x["fix"])

    def test_the_mstflint_temperature_tool_is_mstmget_temp(self):
        f = by_rule(findings_of_root(hwctest.fixture("cx6dx-card-88c", "root")), "THERMAL_CARD_OVER_LIMIT")
        self.assertTrue(f)
        for x in f:
            self.assertIn("`mstmget_temp -d 0000:41:00.0`", x["fix"])
            # Debian 12's mstflint (4.21) has no mstmget_temp: the register read it does have comes first
            self.assertIn("`mstreg -d 0000:41:00.0 --reg_name MTMP --get", x["fix"])
            self.assertNotIn(" mget_temp", x["fix"])
        _, doc = run_json("rules", "list", "--json")
        for r in doc["rules"]:
            self.assertNotRegex(r["fix"], r"(?<![a-z])mget_temp", r["id"])


    def test_the_mstflint_link_tool_is_mstlink(self):
        # hwcheck reads links with mstflint's mstlink (`apt install mstflint`); MFT's mlxlink takes
        # the same options but is not on a host that has only mstflint: every fix names mstlink
        _, doc = run_json("rules", "list", "--json")
        for r in doc["rules"]:
            self.assertNotIn("mlxlink -d", r["fix"], r["id"])
        f = by_rule(findings_of_root(hwctest.fixture("link-ib-cx7-linkdowned", "root")), "LINK_FLAPS")
        self.assertEqual(len(f), 1, f)
        self.assertIn("`mstlink -d 0000:c1:00.0 -c`", f[0]["fix"])
        # a fix a rule writes itself, too (the InfiniBand rate below what both ends enable)
        f = by_rule(findings_of_root(hwctest.fixture("rate-ib-cx3-sdr-below-qdr", "root")), "LINK_RATE_BELOW_POSSIBLE")
        self.assertEqual(len(f), 1, f)
        self.assertNotIn("mlxlink -d", f[0]["fix"])

    def test_a_narrowed_advertisement_is_a_setting_not_a_part(self):
        # rate-cx3-56g-advertises-40g (real): card and partner 56G, the port advertises 40G only:
        # nothing to replace; the fix advertises the rate again
        f = by_rule(findings_of_root(hwctest.fixture("rate-cx3-56g-advertises-40g", "root")), "LINK_RATE_LIMITED")
        self.assertEqual(len(f), 1, f)
        self.assertIn("`ethtool -s eth2 speed 56000 autoneg on`", f[0]["fix"])
        self.assertNotIn("Replace", f[0]["fix"])

if __name__ == "__main__":
    if not RULES_EVAL:
        print("--rules-eval PATH is required")
        sys.exit(2)
    hwctest.main()

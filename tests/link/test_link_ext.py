# SPDX-License-Identifier: MIT
# The kernel's reason a link is down (ethtool's "Link detected: no (STATE, SUBSTATE)", netlink
# LINKSTATE ext_state/ext_substate) on the link-ext-* roots, a real capture
# (tests/link/make_ext_fixtures.py: a ConnectX-4 that refused a third-party 100G-CWDM4 optic, and
# the same port linked once the optic carried Mellanox's OUI): the facts, NET_PORT_DOWN naming the
# reason and its fix, nothing on the linked port, schema and replay.
import json
import os
import subprocess
import sys
import unittest  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402


def check(fx, *extra):
    cp, j = run_json("--root", hwctest.fixture(fx, "root"), "--json", *extra)
    hwctest.validate(j)
    return j


def port_down(j):
    return [f for f in j["findings"] if f["rule_id"] == "NET_PORT_DOWN"]


class LinkExt(unittest.TestCase):
    def test_generator_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("tests", "link", "make_ext_fixtures.py"),
                             "--check"], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_refused_module_named(self):
        j = check("link-ext-cx4-unsupported-cable")
        m = j["facts"]["netdevs"][0]["link"]["modes"]
        # before the bracket was read, "no (Cable issue, ...)" made link_detected invalid
        self.assertIs(m["link_detected"], False)
        self.assertEqual((m["link_ext_state"], m["link_ext_substate"]), ("Cable issue", "Unsupported cable"))
        self.assertEqual(m["advertised_max_mbps"], 40000)
        fs = port_down(j)
        self.assertEqual([(f["severity"], f["subject"]) for f in fs], [("warn", "ens16f1np1")])
        f = fs[0]
        self.assertIn("the kernel's reason: Cable issue, Unsupported cable", f["message"])
        self.assertTrue(f["fix"].startswith("The kernel says why (Cable issue, Unsupported cable): the card "
                                            "refused the cable or module: read what it is with `ethtool -m "
                                            "ens16f1np1`"), f["fix"])
        ev = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertEqual(ev["netdevs[ens16f1np1].link.modes.link_ext_state"], "Cable issue")
        self.assertEqual(ev["netdevs[ens16f1np1].link.modes.link_ext_substate"], "Unsupported cable")

    def test_linked_port_quiet(self):
        j = check("link-ext-cx4-cwdm4-40g")
        m = j["facts"]["netdevs"][0]["link"]["modes"]
        self.assertIs(m["link_detected"], True)
        self.assertIsNone(m["link_ext_state"])
        self.assertEqual(m["unavailable"]["link_ext_state"]["status"], "absent")
        self.assertIn("link detected", m["unavailable"]["link_ext_state"]["detail"])
        self.assertEqual(m["speed_mbps"], 40000)
        self.assertEqual(port_down(j), [])

    def test_rate_line_names_reason(self):
        # the card report's link rate line of a port without link gives the kernel's reason, shown
        # and not judged (no rate to judge); it was left out before
        j = check("link-ext-cx4-unsupported-cable")
        ls = [c for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual([(c["subject"], c["verdict"], c["value"]) for c in ls], [("ens16f1np1", "not_judged", None)])
        self.assertEqual(ls[0]["reason"], "ens16f1np1 has no link; the kernel's reason: Cable issue, Unsupported cable "
                                          "(ethtool's link_ext_state)")
        cp = hwctest.run("--root", hwctest.fixture("link-ext-cx4-unsupported-cable", "root"))
        self.assertRegex(cp.stdout, r"link rate +unknown \(ens16f1np1 has no link; the kernel's reason: Cable issue,")
        # the linked port: its rate, no reason
        j = check("link-ext-cx4-cwdm4-40g")
        ls = [c for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(len(ls), 1)
        self.assertNotIn("the kernel's reason", json.dumps(ls))

    def test_text_report_names_reason(self):
        cp = hwctest.run("--root", hwctest.fixture("link-ext-cx4-unsupported-cable", "root"))
        self.assertIn("Cable issue, Unsupported cable", cp.stdout)


if __name__ == "__main__":
    hwctest.main()

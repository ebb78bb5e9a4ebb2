# SPDX-License-Identifier: MIT
# The kernel's reason a link is down (ethtool's "Link detected: no (STATE, SUBSTATE)", netlink
# LINKSTATE ext_state/ext_substate) on the link-ext-* roots, a real capture
# (tests/link/make_ext_fixtures.py: a ConnectX-4 that refused a third-party 100G-CWDM4 optic, and
# the same port linked once the optic carried Mellanox's OUI): the facts, NET_PORT_DOWN naming the
# reason and its fix, nothing on the linked port, schema and replay; the module of both (its
# published ethtool -m decodings rebuilt as bytes): dark and not judged when refused, lit and
# within its thresholds at 40G.
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

    def test_refused_module_decoded_dark_not_judged(self):
        # the real module (bytes rebuilt from its published `ethtool -m`, which ethtool prints
        # back line for line: link_sfp_rebuilt_oracle): the card switched its laser off and no
        # light arrives; one 0.1 uW step of Tx and Rx power is no light (ethtool: -40.00 dBm)
        j = check("link-ext-cx4-unsupported-cable")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((m["vendor"], m["vendor_oui"], m["part_number"], m["serial_number"]),
                         ("FINISAR CORP.", "00:90:65", "FTLC1152RGPL6-FB", "UX503M0"))
        self.assertEqual((m["temperature_c"], m["voltage_v"]), (34.5, 3.2706))
        self.assertEqual(m["tx_bias_ma"], [0.0] * 4)
        self.assertEqual(m["tx_power_mw"], [0.0001] * 4)
        self.assertEqual(m["rx_power_mw"], [0.0001] * 4)
        self.assertEqual(m["thresholds"]["rx_power_mw"]["low_alarm"], 0.0251)
        self.assertEqual(m["thresholds"]["tx_bias_ma"]["low_alarm"], 25.0)
        self.assertIn("tx power high alarm (lane 4)", m["flags"])
        self.assertEqual(len(m["flags"]), 26)
        mod = [f for f in j["findings"] if f["rule_id"].startswith("LINK_MODULE_")]
        self.assertEqual(mod, [], "a refused module's dark lanes are no module fault: " + str(mod))
        self.assertEqual([f["severity"] for f in port_down(j)], ["warn"])
        port = j["cards"][0]["ports"][0]["module"]
        self.assertEqual(port["dark_lanes"], [1, 2, 3, 4])
        chk = [c for c in j["cards"][0]["checks"] if c["item"] == "port_module"]
        self.assertEqual([(c["verdict"], c["undecided"]) for c in chk], [("ok", [])])
        self.assertIn("every lane dark", chk[0]["value"])

    def test_linked_module_within_thresholds(self):
        # the same module at 40G once its OUI read 00:02:c9: every lane lit, inside its thresholds
        j = check("link-ext-cx4-cwdm4-40g")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((m["vendor_oui"], m["part_number"]), ("00:02:c9", "FTLC1152RGPL6-FB"))
        self.assertEqual(m["tx_bias_ma"], [42.068, 37.926, 38.87, 37.968])
        self.assertEqual(m["rx_power_mw"], [0.9969, 0.91, 0.9101, 0.9713])
        self.assertEqual(m["flags"], [])
        self.assertEqual([f for f in j["findings"] if f["rule_id"].startswith("LINK_MODULE_")], [])
        port = j["cards"][0]["ports"][0]["module"]
        self.assertNotIn("dark_lanes", port)
        chk = [c for c in j["cards"][0]["checks"] if c["item"] == "port_module"]
        self.assertEqual([c["verdict"] for c in chk], ["ok"])

    def test_text_report_names_reason(self):
        cp = hwctest.run("--root", hwctest.fixture("link-ext-cx4-unsupported-cable", "root"))
        self.assertIn("Cable issue, Unsupported cable", cp.stdout)


if __name__ == "__main__":
    hwctest.main()

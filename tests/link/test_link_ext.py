# SPDX-License-Identifier: MIT
# The kernel's reason a link is down (ethtool's "Link detected: no (STATE, SUBSTATE)", netlink
# LINKSTATE ext_state/ext_substate) on the link-ext-* roots, a real capture
# (tests/link/make_ext_fixtures.py: a ConnectX-4 that refused a third-party 100G-CWDM4 optic, and
# the same port linked once the optic carried Mellanox's OUI): the facts, NET_PORT_DOWN naming the
# reason and its fix, nothing on the linked port, schema and replay; the module of both (its
# published ethtool -m decodings rebuilt as bytes): dark and not judged when refused, lit and
# within its thresholds at 40G. Also the ConnectX-4 Lx roots of two other captures (Link training
# failure and its linked port, EEPROM issue), where ethtool's 'Link detected' is the carrier.
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

    def test_link_training_second_capture(self):
        # a second real capture (a blog note, tests/link/make_ext_fixtures.py): a ConnectX-4 Lx 25G
        # port on a DAC to a 10G switch port; sysfs gives no carrier, so ethtool's 'Link detected:
        # no' on the netdev that is up says there is none (before, NET_PORT_DOWN was unknown)
        j = check("link-ext-cx4lx-link-training")
        nd = j["facts"]["netdevs"][0]
        self.assertIsNone(nd["carrier"])
        self.assertIs(nd["admin_up"], True)
        m = nd["link"]["modes"]
        self.assertIs(m["link_detected"], False)
        self.assertEqual((m["link_ext_state"], m["link_ext_substate"]),
                         ("Link training failure", "Remote side is not ready yet"))
        self.assertEqual((m["supported_max_mbps"], m["advertised_max_mbps"]), (25000, 25000))
        fs = port_down(j)
        self.assertEqual([(f["severity"], f["subject"]) for f in fs], [("warn", "nic_pve02_stor")])
        f = fs[0]
        self.assertIn("is up without carrier (ethtool: 'Link detected: no'; the sysfs carrier was not read)", f["message"])
        self.assertIn("the kernel's reason: Link training failure, Remote side is not ready yet", f["message"])
        self.assertTrue(f["fix"].startswith("The kernel says why (Link training failure, Remote side is not ready yet): "
                                            "link training failed:"), f["fix"])
        self.assertIn("`ethtool -s nic_pve02_stor speed 10000 autoneg off`", f["fix"])
        ev = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertTrue(ev["netdevs[nic_pve02_stor].carrier"].startswith("unknown (absent:"), ev)
        self.assertEqual(ev["netdevs[nic_pve02_stor].link.modes.link_detected"],
                         "false (ethtool: the netdev is up, so this is its carrier)")
        ls = [c for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual([(c["verdict"], c["reason"]) for c in ls],
                         [("not_judged", "nic_pve02_stor has no link; the kernel's reason: Link training failure, "
                                         "Remote side is not ready yet (ethtool's link_ext_state)")])
        # the real mstflint query of the same card names its firmware
        a = j["facts"]["mlx"]["adapters"][0]
        self.assertEqual((a["fw_version"], a["psid"]), ("14.32.1900", "MT_0000000267"))

    def test_link_training_then_linked(self):
        # the same port at 10G after the update: ethtool's 'yes' is the carrier; nothing is down
        j = check("link-ext-cx4lx-10g-linked")
        m = j["facts"]["netdevs"][0]["link"]["modes"]
        self.assertIs(m["link_detected"], True)
        self.assertIsNone(m["link_ext_state"])
        self.assertEqual(m["speed_mbps"], 10000)
        self.assertEqual(port_down(j), [])

    def test_eeprom_issue_third_capture(self):
        # an investigation note's ethtool excerpt (its header RECONSTRUCTED): a ConnectX-4 Lx whose
        # firmware would not read a DAC that linked in other ConnectX-4 Lx cards; the fix names both
        # the module and the card's refusal
        j = check("link-ext-cx4lx-eeprom-issue")
        m = j["facts"]["netdevs"][0]["link"]["modes"]
        self.assertEqual((m["link_detected"], m["link_ext_state"], m["link_ext_substate"]), (False, "EEPROM issue", None))
        self.assertEqual(m["port"], "Other")
        fs = port_down(j)
        self.assertEqual([(f["severity"], f["subject"]) for f in fs], [("warn", "enp35s0f0np0")])
        self.assertIn("the kernel's reason: EEPROM issue (ethtool's link_ext_state)", fs[0]["message"])
        self.assertTrue(fs[0]["fix"].startswith("The kernel says why (EEPROM issue): the card could not read or parse "
                                                "the module's EEPROM: reseat the module and read it"), fs[0]["fix"])
        self.assertIn("If the same module reads and links in another card, the refusal is this card's", fs[0]["fix"])

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

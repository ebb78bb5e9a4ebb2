# SPDX-License-Identifier: MIT
# The far end of the cable (issue 14) on the link-farend-* fixture roots (tests/link/make_farend.py:
# a committed root plus real lldpcli / infiniband-diags answers): the peer facts, the link findings
# that name it (and, for InfiniBand, on which end the errors count), the far end on each port's
# line of the check, schema, facts round trip; and that each root gives the same verdicts as its
# base root without the far end.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_link import check, check_root, port  # noqa: E402  (the same helpers)

BASE = {"link-farend-lldp-symbol": "net-mlx5-100g-full-stats",
        "link-farend-lldp-roce": "field-ports-cx7-roce-active",
        "link-farend-lldpd-down": "field-ports-cx7-roce-active",
        "link-farend-ib-linkdowned": "link-ib-cx7-linkdowned"}


def verdicts(j):
    return sorted((f["rule_id"], f["severity"], f["subject"]) for f in j["findings"])


def netdev(j, name):
    return next(n for n in j["facts"]["netdevs"] if n["name"] == name)


def far_lines(j):
    return [(c["subject"], c["value"], c["verdict"]) for card in j["cards"] for c in card["checks"]
            if c["item"] == "port_far_end"]


class FarEnd(unittest.TestCase):
    def test_generator_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("tests", "link", "make_farend.py"),
                             "--check"], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_same_verdicts_as_without(self):
        for fx, base in BASE.items():
            with self.subTest(fx):
                j, b = check(fx), check(base)
                self.assertEqual(verdicts(j), verdicts(b))
                self.assertEqual(j["summary"]["verdict"], b["summary"]["verdict"])
                # no far end known: the line says why, judges nothing
                self.assertTrue(far_lines(b), b)
                self.assertTrue(all(v is None and vd == "not_judged" for _, v, vd in far_lines(b)), far_lines(b))

    def test_lldp_symbol_errors_name_the_switch_port(self):
        j = check("link-farend-lldp-symbol")
        peer = netdev(j, "p1")["link"]["peer"]
        self.assertEqual((peer["chassis_name"], peer["port_id"], peer["port_id_type"], peer["via"]),
                         ("LEAF03", "Ethernet184", "local", "LLDP"))
        self.assertIn("ds730-32d", peer["system_description"])
        self.assertEqual(peer["unavailable"]["max_frame_size"]["status"], "absent")
        # the port reports its post-FEC errors as bits (rx_pcs_symbol_err_phy): LINK_EFFECTIVE_ERRORS'
        f = next(f for f in j["findings"] if f["rule_id"] == "LINK_EFFECTIVE_ERRORS")
        self.assertTrue(f["message"].startswith("host p1 <-> LEAF03 Ethernet184: 386 bit errors left after FEC"),
                        f["message"])
        self.assertIn(("netdevs[p1].link.peer", "LEAF03 Ethernet184"),
                      [(e["fact"], e["observed"]) for e in f["evidence"]])
        # the base root says the same without the far end
        b = next(f for f in check("net-mlx5-100g-full-stats")["findings"] if f["rule_id"] == "LINK_EFFECTIVE_ERRORS")
        self.assertTrue(b["message"].startswith("386 bit errors"), b["message"])
        self.assertTrue(f["message"].endswith(b["message"]))

    def test_lldp_far_end_on_each_port_line(self):
        j = check("link-farend-lldp-roce")
        self.assertEqual(far_lines(j), [("enp153s0np0", "<-> StorageSW Ethernet120 (LLDP)", "not_judged"),
                                        ("enp171s0np0", "<-> LEAF03 Ethernet184 (LLDP)", "not_judged")])
        cp = run("--root", hwctest.fixture("link-farend-lldp-roce", "root"), "--no-color")
        self.assertRegex(cp.stdout, r"\n  -        far end      <-> StorageSW Ethernet120 \(LLDP\)\n")
        self.assertRegex(cp.stdout, r"\n  -        far end      <-> LEAF03 Ethernet184 \(LLDP\)\n")

    def test_lldpd_not_running(self):
        j = check("link-farend-lldpd-down")
        for name in ("enp153s0np0", "enp171s0np0"):
            lk = netdev(j, name)["link"]
            self.assertIsNone(lk["peer"])
            why = lk["unavailable"]["peer"]
            self.assertEqual(why["status"], "absent")
            self.assertIn("lldpd is not running", why["detail"])
            self.assertIn("unable to connect to socket /run/lldpd.socket", why["detail"])

    def test_no_lldpcli(self):
        # the capture has no lldpcli recording: whether lldpd is installed there is not known
        j = check("field-ports-cx7-roce-active")
        why = netdev(j, "enp153s0np0")["link"]["unavailable"]["peer"]
        self.assertEqual((why["status"], why["detail"]), ("absent", "lldpcli: not in this capture"))

    def test_lldpcli_recorded_not_installed(self):
        # a snapshot of a machine without lldpcli records that (result not_installed=1, what
        # core/runner.c writes): the replay says "not installed", the far end stays unknown
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(hwctest.fixture("field-ports-cx7-roce-active", "root"), root, symlinks=True)
            key = os.path.join(root, "hwcheck", "commands", "lldpcli -f json show neighbors details")
            os.makedirs(key)
            with open(os.path.join(key, "result"), "w") as f:
                f.write("not_installed=1\n")
            j = check_root(root)
        why = netdev(j, "enp153s0np0")["link"]["unavailable"]["peer"]
        self.assertEqual((why["status"], why["detail"]), ("absent", "lldpcli: not installed"))
        self.assertEqual(far_lines(j), [("enp153s0np0", None, "not_judged"), ("enp171s0np0", None, "not_judged")])
        reasons = [c["reason"] for card in j["cards"] for c in card["checks"] if c["item"] == "port_far_end"]
        self.assertEqual(reasons, ["lldpcli: not installed"] * 2)

    def test_ib_peer_and_its_counters(self):
        j = check("link-farend-ib-linkdowned")
        peer = port(j, "mlx5_1")["peer"]
        self.assertEqual((peer["node_description"], peer["node_guid"], peer["node_type"], peer["port"], peer["lid"]),
                         ("b1nstcx02 HCA-1", "0x0002c90300336fe0", "Channel Adapter", 1, 4))
        self.assertEqual(peer["source"], "smpquery -C mlx5_1 -P 1 -D nodedesc 0,1")
        self.assertEqual(peer["counters"]["source"], "perfquery -C mlx5_1 -P 1 4 1")
        self.assertEqual(peer["counters"]["link_downed"], 0)
        msgs = {f["rule_id"]: f["message"] for f in j["findings"]
                if f["rule_id"].startswith("LINK_") and f["severity"] != "unknown"}
        self.assertEqual(sorted(msgs), ["LINK_FLAPS", "LINK_INTEGRITY_ERRORS"])
        # the capture holds the peer's answers, not this port's own PortInfo: the rate is unknown
        rate = next(f for f in j["findings"] if f["rule_id"] == "LINK_RATE_BELOW_POSSIBLE")
        self.assertEqual(rate["severity"], "unknown")
        self.assertIn("portinfo.speed_active_gbps is unknown (absent: smpquery: not in this capture)", rate["message"])
        for m in msgs.values():
            self.assertTrue(m.startswith("host mlx5_1/1 <-> b1nstcx02 HCA-1 port 1: "), m)
            self.assertTrue(m.endswith("; on the host side only (the far end counts 0)"), m)
        self.assertEqual(far_lines(j), [("mlx5_1", "<-> b1nstcx02 HCA-1 port 1 (Channel Adapter, LID 4); its "
                                         "counters: symbol errors 0, rcv errors 0, integrity errors 0, buffer "
                                         "overruns 0, remote physical errors 0, link downed 0, recoveries 0",
                                         "not_judged")])
        far = j["cards"][0]["ports"][0]["far_end"]
        self.assertEqual(far, {"name": "b1nstcx02 HCA-1", "port": 1, "source": "infiniband-diags"})

    def test_ib_peer_not_asked(self):
        # no infiniband-diags recorded: absent (not in this capture); an Ethernet port:
        # unsupported, pointing at LLDP
        why = port(check("link-ib-cx7-linkdowned"), "mlx5_1")["unavailable"]["peer"]
        self.assertEqual((why["status"], why["detail"]), ("absent", "smpquery: not in this capture"))
        why = port(check("field-ports-cx7-roce-active"), "mlx5_2")["unavailable"]["peer"]
        self.assertEqual(why["status"], "unsupported")
        self.assertIn("netdevs[].link.peer", why["detail"])
        why = port(check("link-ib-restricted-pf"), "mlx5_4")["unavailable"]["peer"]
        self.assertEqual(why["status"], "blocked")

    def test_snapshot_records_and_redacts(self):
        # the lldpcli answer is recorded, its MAC addresses masked (OUI kept), and the untarred
        # snapshot replays the same far end
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            cp = run("--root", hwctest.fixture("link-farend-lldp-roce", "root"), "snapshot", "--redact", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            root = os.path.join(d, "root")
            os.mkdir(root)
            subprocess.run(["tar", "-xf", tar, "-C", root], check=True)
            with open(os.path.join(root, "hwcheck", "commands", "lldpcli -f json show neighbors details", "stdout")) as f:
                text = f.read()
            self.assertNotIn("70:06:92:6e:32:1c", text)
            self.assertIn("70:06:92:", text)
            j = check_root(root)
            self.assertEqual(netdev(j, "enp171s0np0")["link"]["peer"]["port_id"], "Ethernet184")
            self.assertNotEqual(netdev(j, "enp171s0np0")["link"]["peer"]["chassis_id"], "70:06:92:6e:32:1c")

    def test_ib_rate_below_what_both_ends_enable(self):
        # ibdiagnet's real verdict on a ConnectX-3 <-> SwitchX link (rate-ib-cx3-sdr-below-qdr,
        # SOURCE.md there): 4X SDR where both ends enable up to QDR
        j = check("rate-ib-cx3-sdr-below-qdr")
        p = port(j, "mlx4_0")
        self.assertEqual(p["portinfo"], {"source": "smpquery -C mlx4_0 -P 1 -D portinfo 0 1", "speed_active_gbps": 2.5,
                                         "width_active": 4, "speeds_enabled_gbps": [2.5, 5, 10], "widths_enabled": [1, 4]})
        peer = p["peer"]
        self.assertEqual((peer["node_type"], peer["port"], peer["lid"]), ("Switch", 20, 2))
        self.assertEqual(peer["portinfo"]["source"], "smpquery -C mlx4_0 -P 1 -D portinfo 0,1 20")
        self.assertEqual(peer["portinfo"]["speeds_enabled_gbps"], [2.5, 5, 10])
        rate = [f for f in j["findings"] if f["rule_id"].startswith("LINK_RATE_")]
        self.assertEqual([(f["rule_id"], f["severity"], f["subject"]) for f in rate],
                         [("LINK_RATE_BELOW_POSSIBLE", "warn", "mlx4_0/1")])
        self.assertTrue(rate[0]["message"].startswith(
            "host mlx4_0/1 <-> switch-0002c90300688830 port 20: linked at 4X SDR (10 Gb/s), below the 4X "
            "QDR/FDR10 (40 Gb/s) that both ends enable"), rate[0]["message"])
        self.assertIn("the cable's rating was not read", rate[0]["message"])
        ev = {e["fact"]: (e["observed"], e["expected"]) for e in rate[0]["evidence"]}
        self.assertEqual(ev["mlx.adapters[0000:81:00.0].ports[mlx4_0/1].portinfo.speed_active_gbps"], ("2.5", "10"))
        self.assertIn("smpquery -D portinfo", rate[0]["fix"])
        line = [(c["value"], c["verdict"]) for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(line, [("mlx4_0/1: 4X at 2.5 Gb/s a lane; enabled here 2.5, 5, 10 x 1X, 4X, at the peer "
                                 "2.5, 5, 10 x 1X, 4X", "warn")])
        # the base root without infiniband-diags: unknown, never pass; the other verdicts the same
        b = check("field-ports-cx3-ib-port2-down")
        self.assertEqual([(f["rule_id"], f["severity"], f["subject"]) for f in b["findings"]
                          if f["rule_id"].startswith("LINK_RATE_")],
                         [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx4_0/1")])
        self.assertEqual([v for v in verdicts(j) if v[0] != "LINK_RATE_BELOW_POSSIBLE"],
                         [v for v in verdicts(b) if v[0] != "LINK_RATE_BELOW_POSSIBLE"])
        # the down port 2 is not asked: its PortInfo says why
        p2 = next(q for ad in j["facts"]["mlx"]["adapters"] for q in ad["ports"] if q["port"] == 2)
        why = p2["unavailable"]["portinfo"]
        self.assertEqual((why["status"], why["detail"]), ("unsupported", "the port is DOWN: no far end to ask"))

    def test_round_trip(self):
        for fx in list(BASE) + ["rate-ib-cx3-sdr-below-qdr"]:
            with self.subTest(fx), tempfile.TemporaryDirectory() as d:
                j = check(fx)
                saved = os.path.join(d, "r.json")
                with open(saved, "w") as f:
                    json.dump(j, f)
                _, again = run_json("check", "--json", "--facts", saved)
                self.assertEqual(again["facts"], j["facts"])
                self.assertEqual([(f["rule_id"], f["message"]) for f in again["findings"]],
                                 [(f["rule_id"], f["message"]) for f in j["findings"]])


if __name__ == "__main__":
    hwctest.main()

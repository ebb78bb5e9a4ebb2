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
        "link-farend-ib-linkdowned": "link-ib-cx7-linkdowned",
        "link-farend-ib-switchib": "link-ib-clean"}
CAPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "farend")
SMP0 = "smpquery -C mlx5_0 -P 1 -D "
PERF0 = "perfquery -C mlx5_0 -P 1 29 25"


def cap(name):
    with open(os.path.join(CAPS, name)) as f:
        return f.read()


def variant(fx, commands=(), files=()):
    """The facts of fixture fx's root with some recordings (argv, stdout, stderr, result) and
    files (path, text) replaced: the far end's failure modes on one real pairing."""
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "root")
        shutil.copytree(hwctest.fixture(fx, "root"), root, symlinks=True)
        for argv, out, err, result in commands:
            key = os.path.join(root, "hwcheck", "commands", argv)
            shutil.rmtree(key, ignore_errors=True)
            os.makedirs(key)
            for name, text in (("stdout", out), ("stderr", err), ("result", result)):
                if text is not None:
                    with open(os.path.join(key, name), "w") as f:
                        f.write(text)
        for rel, text in files:
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        return check_root(root)


def why(obj, key):
    return (obj["unavailable"][key]["status"], obj["unavailable"][key]["detail"])


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
        # a receiver's overruns are one side's; a link that went down went down at both ends, so
        # a far end that counts none was reset since, and says nothing of the side
        self.assertTrue(msgs["LINK_INTEGRITY_ERRORS"].endswith("; on the host side only (the far end counts 0)"))
        self.assertTrue(msgs["LINK_FLAPS"].endswith("; the far end counts 0, yet a link goes down at both ends: "
                                                    "its counters were reset since"), msgs["LINK_FLAPS"])
        self.assertEqual(far_lines(j), [("mlx5_1", "<-> b1nstcx02 HCA-1 port 1 (Channel Adapter, LID 4); its "
                                         "counters: symbol errors 0, rcv errors 0, integrity errors 0, buffer "
                                         "overruns 0, remote physical errors 0, link downed 0, recoveries 0",
                                         "not_judged")])
        far = j["cards"][0]["ports"][0]["far_end"]
        self.assertEqual(far, {"name": "b1nstcx02 HCA-1", "port": 1, "source": "infiniband-diags"})

    def test_ib_peer_switch_of_a_real_topology(self):
        # the real pairing of an ibnetdiscover topology: mlx5_0 port 1 <-> Switch-IB port 25, LID 29
        # (a switch: its LID read from its port 0); no perfquery recorded: its counters unknown
        j = check("link-farend-ib-switchib")
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual((peer["node_description"], peer["node_guid"], peer["node_type"], peer["port"], peer["lid"]),
                         ("SwitchIB Mellanox Technologies", "0xec0d9a0300f548c0", "Switch", 25, 29))
        self.assertEqual(why(peer["counters"], "symbol_error"), ("absent", "perfquery: not in this capture"))
        self.assertEqual(far_lines(j), [("mlx5_0", "<-> SwitchIB Mellanox Technologies port 25 (Switch, LID 29); "
                                         "its counters unknown (perfquery: not in this capture)", "not_judged")])
        self.assertEqual(j["cards"][0]["ports"][0]["far_end"],
                         {"name": "SwitchIB Mellanox Technologies", "port": 25, "source": "infiniband-diags"})

    def test_ib_peer_does_not_answer(self):
        # nodeinfo failing as a real smpquery did (Open MPI users list, host bones): the peer is
        # named by its description, its port unknown (never "port 0"), the reason quotes the tool
        j = variant("link-farend-ib-switchib", [(SMP0 + "nodeinfo 0,1", "", cap("smpquery-stderr-ni-lid4-no-answer-openmpi-users.txt"), "exit=255\n")])
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual(peer["node_description"], "SwitchIB Mellanox Technologies")
        want = ("unreadable", "smpquery -C mlx5_0 -P 1 -D nodeinfo 0,1 exited 255: failed: operation NodeInfo: "
                "node info query failed (mad_rpc: _do_madrpc failed; dport (Lid 4))")
        for key in ("node_type", "port", "lid"):
            self.assertEqual(why(peer, key), want)
        self.assertEqual(why(peer["counters"], "symbol_error"), want)
        (subject, value, verdict), = far_lines(j)
        self.assertTrue(value.startswith("<-> SwitchIB Mellanox Technologies (InfiniBand); its counters unknown ("), value)
        self.assertEqual(j["cards"][0]["ports"][0]["far_end"]["port"], None)

    def test_ib_peer_pma_refused_or_hung(self):
        # perfquery refused as a real one was (infiniband_exporter #26), then hung past its timeout
        j = variant("link-farend-ib-switchib", [(PERF0, "", cap("perfquery-stderr-client-register-infiniband-exporter-26.txt"), "exit=255\n")])
        st, detail = why(port(j, "mlx5_0")["peer"]["counters"], "symbol_error")
        self.assertEqual(st, "unreadable")
        self.assertTrue(detail.endswith("exited 255: failed: Failed to open '(null)' port '0' "
                                        "(mad_rpc_open_port: client_register for mgmt 1 failed)"), detail)
        j = variant("link-farend-ib-switchib", [(PERF0, "", "", "timeout=1\nelapsed_ms=10000\n")])
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual(why(peer["counters"], "symbol_error")[0], "timeout")
        self.assertEqual(peer["port"], 25)  # what answered stays

    def test_ib_peer_counters_of_another_port(self):
        # a real perfquery answer for port 1 recorded for the switch's port 25: refused, not taken
        j = variant("link-farend-ib-switchib", [(PERF0, cap("perfquery-x-lid10-rhel75-infiniband-diags-16.txt"), None, "exit=0\n")])
        counters = port(j, "mlx5_0")["peer"]["counters"]
        self.assertIsNone(counters["symbol_error"])
        self.assertEqual(why(counters, "symbol_error"),
                         ("invalid", "perfquery answered for PortSelect 1, not the peer's port 25"))

    def test_ib_peer_without_subnet_manager(self):
        # no SM: the port is INIT, the link up; directed-route SMPs still answer (the peer is
        # named), its LID reads 0: no perfquery (it would say "not in this capture" otherwise)
        lid0 = "# Port info: DR path slid 0; dlid 0; 0,1 port 0\nLid:.............................0\n"
        j = variant("link-farend-ib-switchib", [(SMP0 + "portinfo 0,1 0", lid0, None, "exit=0\n")],
                    [("sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n")])
        p = port(j, "mlx5_0")
        self.assertEqual(p["state"], "INIT")
        peer = p["peer"]
        self.assertEqual((peer["node_description"], peer["port"], peer["lid"]), ("SwitchIB Mellanox Technologies", 25, None))
        want = ("absent", "the peer's LID is 0: no LID assigned (no subnet manager has configured the peer)")
        self.assertEqual(why(peer, "lid"), want)
        self.assertEqual(why(peer["counters"], "symbol_error"), want)
        # a port down is still not asked
        j = variant("link-farend-ib-switchib", files=[("sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n"),
                                                      ("sys/class/infiniband/mlx5_0/ports/1/phys_state", "2: Polling\n")])
        self.assertEqual(why(port(j, "mlx5_0"), "peer"), ("unsupported", "the port is DOWN: no far end to ask"))

    def test_ib_peer_switch_port_0(self):
        # a switch saying LocalPort 0 (its management port): no cable ends there, nothing asked after
        ni = cap("smpquery-ni-switch-guid-r1lead.txt").replace("LocalPort:.......................17",
                                                                  "LocalPort:.......................0")
        j = variant("link-farend-ib-switchib", [(SMP0 + "nodeinfo 0,1", ni, None, "exit=0\n")])
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual((peer["node_type"], peer["node_guid"], peer["port"]), ("Switch", "0xe41d2d03004bef70", None))
        want = ("invalid", "LocalPort 0 of a switch: its management port, not the end of a cable")
        self.assertEqual(why(peer, "port"), want)
        self.assertIsNone(peer["lid"])  # not asked, and the reason says why
        self.assertEqual(why(peer, "lid"), want)
        self.assertEqual(why(peer["counters"], "symbol_error"), want)
        self.assertEqual(j["cards"][0]["ports"][0]["far_end"]["port"], None)

    def test_ib_peer_ofed1_perfquery(self):
        # OFED 1.x perfquery names (SymbolErrors, LinkRecovers, ...): a real answer with errors
        j = variant("link-farend-ib-linkdowned", [("perfquery -C mlx5_1 -P 1 4 1", cap("perfquery-ofed1-lid12-errors-ompi-users-2008.txt"), None, "exit=0\n")])
        c = port(j, "mlx5_1")["peer"]["counters"]
        self.assertEqual((c["symbol_error"], c["link_error_recovery"], c["link_downed"], c["port_rcv_errors"],
                          c["port_rcv_remote_physical_errors"], c["port_xmit_discards"]), (7836, 255, 0, 24058, 6159, 3176))
        flaps = next(f["message"] for f in j["findings"] if f["rule_id"] == "LINK_FLAPS")
        # link_downed 0 at the far end: a link goes down at both ends, so its counters were reset
        self.assertTrue(flaps.endswith("; the far end counts 0, yet a link goes down at both ends: "
                                       "its counters were reset since"), flaps)

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
        # ibdiagnet quoted no MTU: the dump has no NeighborMTU/MtuCap lines, and they say so
        self.assertEqual(p["portinfo"], {"source": "smpquery -C mlx4_0 -P 1 -D portinfo 0 1", "speed_active_gbps": 2.5,
                                         "width_active": 4, "speeds_enabled_gbps": [2.5, 5, 10], "widths_enabled": [1, 4],
                                         "neighbor_mtu": None, "mtu_cap": None,
                                         "unavailable": {"neighbor_mtu": {"status": "absent", "detail": "smpquery printed no NeighborMTU"},
                                                         "mtu_cap": {"status": "absent", "detail": "smpquery printed no MtuCap"}}})
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
        # the card's own port addressed; mstlink refuses a ConnectX-3 (mstflint: "Device is not
        # supported"), so no mstlink/mlxlink command is offered for it
        self.assertIn("`smpquery -C mlx4_0 -P 1 -D portinfo 0 1`", rate[0]["fix"])
        self.assertNotIn("mlxlink -d", rate[0]["fix"])
        self.assertIn("mstlink does not support this card", rate[0]["fix"])
        line = [(c["value"], c["verdict"]) for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(line, [("mlx4_0/1: 4X at 2.5 Gb/s a lane; enabled here 2.5, 5, 10 x 1X, 4X, at the peer "
                                 "2.5, 5, 10 x 1X, 4X", "warn")])
        # the base root without infiniband-diags: unknown, never pass; the other verdicts the same
        b = check("field-ports-cx3-ib-port2-down")
        self.assertEqual([(f["rule_id"], f["severity"], f["subject"]) for f in b["findings"]
                          if f["rule_id"].startswith("LINK_RATE_")],
                         [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx4_0/1"), ("LINK_RATE_LIMITED", "unknown", "mlx4_0/1")])
        # with the PortInfo, LINK_RATE_LIMITED decides: no known end (cable unread, the peer enables
        # QDR) explains SDR, so it stands aside for LINK_RATE_BELOW_POSSIBLE
        self.assertEqual([f for f in j["findings"] if f["rule_id"] == "LINK_RATE_LIMITED"], [])
        rate_rules = ("LINK_RATE_BELOW_POSSIBLE", "LINK_RATE_LIMITED")
        self.assertEqual([v for v in verdicts(j) if v[0] not in rate_rules],
                         [v for v in verdicts(b) if v[0] not in rate_rules])
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

# SPDX-License-Identifier: MIT
# Issue 14's "Done when": hwcheck on a fixture root built from real captures shows, per port,
# the errors and their rate, the flaps, the FEC mode and the BER, the module and its diagnostics
# against its own thresholds, and the far end where known. Checked by the lines' labels (their
# `item` in JSON), in their fixed order, on one real fixture per link type (InfiniBand with its
# peer, Ethernet with a module, Ethernet with an LLDP neighbour), and the rates: per hour since
# boot (uptime) and over a --watch window, on the same real facts with an uptime and a watch
# window written in (the contract's keys; cards_dump reads the facts untouched).
#   python3 test_port_report.py --hwcheck PATH --source DIR --cards-dump PATH
import json
import re
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402

CARDS_DUMP = hwctest.take_option("--cards-dump")

# the per-port lines, in their order (cli/cards.c items[]); tuning follows
LINK_ITEMS = ["port", "port_rate", "port_link", "port_flaps", "port_fec", "port_module", "port_far_end"]
SIX = ["port", "port_link", "port_flaps", "port_fec", "port_module", "port_far_end"]


def check(fx):
    return hwctest.run_json("--json", "--root", hwctest.fixture(fx, "root"))[1]


def port_lines(j):
    """{subject: [(item, value, verdict, reason), ...]} of every card's per-port lines."""
    out = {}
    for card in j["cards"]:
        for c in card["checks"]:
            if c["item"] in LINK_ITEMS or c["item"] == "port_tuning":
                out.setdefault(c["subject"], []).append((c["item"], c["value"], c["verdict"], c["reason"]))
    return out


def line(lines, item):
    return next(x for x in lines if x[0] == item)


class PortReport(unittest.TestCase):
    def assert_six(self, j, ports):
        lines = port_lines(j)
        self.assertEqual(sorted(lines), sorted(ports))
        for subj, ls in lines.items():
            items = [x[0] for x in ls]
            self.assertEqual([i for i in items if i in SIX], SIX, subj)  # each once, in order
            for item, value, verdict, reason in ls:
                # a value, or why not; never ok for what was not read
                self.assertTrue(value or reason, (subj, item))
                if value is None:
                    self.assertNotEqual(verdict, "ok", (subj, item))
        return lines

    def test_infiniband_with_peer(self):
        # real: gpud PR #943's ConnectX-7 counters, smpquery/perfquery answers of a real fabric
        j = check("link-farend-ib-linkdowned")
        ls = self.assert_six(j, ["mlx5_1"])["mlx5_1"]
        self.assertRegex(line(ls, "port_link")[1], r"^symbol errors 0, .*buffer overruns 15 \(saturated\)")
        flaps = line(ls, "port_flaps")
        self.assertEqual(flaps[2], "warn")
        self.assertRegex(flaps[1], r"^link downed 255 \(saturated\), recoveries 0; rate unknown \(no uptime\)")
        far = line(ls, "port_far_end")
        self.assertRegex(far[1], r"^<-> b1nstcx02 HCA-1 port 1 \(Channel Adapter, LID 4\); its counters: "
                                 r"symbol errors 0, .*link downed 0")
        self.assertEqual(far[2], "not_judged")
        # mstlink was not recorded: FEC and module unknown, and say why
        self.assertEqual([line(ls, i)[2] for i in ("port_fec", "port_module")], ["unknown", "unknown"])
        self.assertIn("mstlink: not in this capture", line(ls, "port_fec")[3])
        port = j["cards"][0]["ports"][0]
        self.assertEqual(port["flaps"]["link_downed"], {"count": 255, "per_hour": None, "window": None})
        self.assertEqual(port["far_end"]["source"], "infiniband-diags")

    def test_infiniband_mstlink_ber(self):
        # real: eight HDR ports' mlxlink -c outputs (RS-FEC (544,514) + PLR)
        j = check("link-ib-cx6-hdr-plr-8port")
        lines = self.assert_six(j, [f"mlx5_{i}" for i in range(8)])
        fec = line(lines["mlx5_0"], "port_fec")
        self.assertEqual(fec[1], "FEC RS-FEC - (544,514) + PLR, raw BER 1.0e-08, effective BER 0 (mstlink)")
        self.assertEqual(fec[2], "ok")
        self.assertEqual(j["cards"][0]["ports"][0]["fec"]["raw_ber"], 1e-8)

    def test_ethernet_module_against_its_thresholds(self):
        # real-quoted: a Transition SFP-10G-LR whose receiver reads -40 dBm (no light)
        j = check("link-module-sfp-lr-no-light")
        ls = self.assert_six(j, ["p1"])["p1"]
        mod = line(ls, "port_module")
        self.assertEqual(mod[2], "error")
        self.assertRegex(mod[1], r"^p1: SFP Transition TN-SFP-10G-LR, optical, 10000 m, "
                                 r"temperature 41\.1 degC \(warning 0\.\.70\), .*"
                                 r"Rx -40 dBm \(below its low alarm -13\.1\); latched: rx power low alarm")
        rd = j["cards"][0]["ports"][0]["module"]["readings"]
        self.assertEqual(rd["rx_power"]["against"], "below its low alarm -13.1")
        self.assertEqual(rd["temperature"]["unit"], "degC")
        # the port has no RDMA device (mlx5_ib not loaded): its netdev is the port, up without
        # carrier, which NET_PORT_DOWN judges (it was neither judged nor said unknown)
        self.assertEqual(line(ls, "port")[2], "warn")
        self.assertIn("p1 is up without carrier", line(ls, "port")[3])
        self.assertIn("no RDMA port (is mlx5_ib loaded?)", line(ls, "port")[3])

    def test_dark_module_lanes(self):
        # real: the mlxsw QSFP28 dump (100GBASE-SR4) reads 0 bias, Tx and Rx power on all 4 lanes
        # (it latched Tx/Rx LOS on all 4: a port without a link). On a down port its lanes are
        # idle; under a live 100G link, which needs all 4 lanes, the readings are no measurements:
        # the module line and the module rules say unknown, never ok.
        j = check("link-module-qsfp28-clean")
        mod = line(self.assert_six(j, ["p1"])["p1"], "port_module")
        self.assertEqual(mod[2], "ok")
        self.assertIn("every lane dark (no bias, no Tx or Rx power: not in use)", mod[1])
        m = j["cards"][0]["ports"][0]["module"]
        self.assertEqual((m["dark_lanes"], m.get("unmeasured_lanes")), ([1, 2, 3, 4], None))
        j = check("rate-cx5-100g-sr4-ok")
        mod = line(port_lines(j)["p1"], "port_module")
        self.assertEqual(mod[2], "unknown")
        self.assertIn("every lane dark on the live link (no bias, no Tx or Rx power on lanes it needs: "
                      "not measurements)", mod[1])
        self.assertIn("lanes 1,2,3,4 read no bias, no Tx and no Rx power while the link is up at 100G "
                      "over 4 lanes", mod[3])
        m = j["cards"][0]["ports"][0]["module"]
        self.assertEqual((m["dark_lanes"], m["unmeasured_lanes"]), ([1, 2, 3, 4], [1, 2, 3, 4]))
        unk = sorted(f["rule_id"] for f in j["findings"]
                     if f["rule_id"].startswith("LINK_MODULE") and f["severity"] == "unknown")
        self.assertEqual(unk, ["LINK_MODULE_RX_POWER_LOW", "LINK_MODULE_THRESHOLDS"])

    def test_ethernet_far_end_and_errors(self):
        # real: an mlx5 100GbE port's ethtool -S (386 post-FEC errors), unifabric's LLDP neighbour
        j = check("link-farend-lldp-symbol")
        ls = self.assert_six(j, ["p1"])["p1"]
        self.assertRegex(line(ls, "port_link")[1], r"^p1: symbol errors 386, post-FEC bit errors 386, .*"
                                                   r"rate unknown \(no uptime\)")
        self.assertEqual(line(ls, "port_link")[2], "warn")
        self.assertEqual(line(ls, "port_far_end")[1], "<-> LEAF03 Ethernet184 (LLDP)")
        self.assertEqual(j["cards"][0]["ports"][0]["far_end"],
                         {"name": "LEAF03", "port": "Ethernet184", "source": "lldp"})

    def test_unknown_port_fields_in_words(self):
        # real: the field capture of a dual-port ConnectX-3 (state and link layer only, no
        # phys_state) and a ConnectX-4 Lx whose RDMA ports have no netdev found: an unknown field
        # is said in words and the RoCE line names the RDMA port, never "?"
        # the two ports of mlx4_0 are two subjects (one RDMA device, two ports)
        ls = port_lines(check("field-ports-cx3-ib-port2-down"))
        self.assertEqual(sorted(ls), ["mlx4_0/1", "mlx4_0/2"])
        self.assertEqual(line(ls["mlx4_0/1"], "port")[1],
                         "(no netdev) mlx4_0/1: ACTIVE physical state unknown, InfiniBand")
        j = check("field-ports-cx4lx-eth-down")
        roce = [c["value"] or c["reason"] for card in j["cards"] for c in card["checks"] if c["item"] == "port_roce"]
        self.assertEqual(len(roce), 2)
        for r in roce:
            self.assertRegex(r, r"^mlx5_[01]/1: trust unknown")

    def test_down_port_no_rate(self):
        # real field captures: a down port's sysfs rate is no link's (mlx5 Ethernet: the card's
        # 200 Gb/s; InfiniBand: 10 Gb/s, 4X SDR): the port line shows no rate and there is no
        # link-rate line (the port line says there is no link)
        ls = port_lines(check("field-ports-cx6-eth-down"))["enp1s0f0np0"]
        self.assertEqual(line(ls, "port")[1], "enp1s0f0np0 mlx5_0/1: DOWN Disabled, Ethernet, MTU 9000, RDMA MTU 4096/4096")
        self.assertNotIn("port_rate", [x[0] for x in ls])
        ls = port_lines(check("field-ports-cx8-ib-disabled"))
        self.assertEqual(line(ls["mlx5_0"], "port")[1], "(no netdev) mlx5_0/1: DOWN Disabled, InfiniBand")
        self.assertRegex(line(ls["mlx5_2"], "port")[1], r"ACTIVE LinkUp, InfiniBand 100 Gb/s")

    def test_netdev_port_names_its_driver(self):
        # real: a ConnectX-3's eth2 without an RDMA device: the driver to load is mlx4_ib
        ls = port_lines(check("rate-cx3-56g-advertises-40g"))["eth2"]
        self.assertIn("no RDMA port state (is mlx4_ib loaded?)", line(ls, "port")[3])

    def test_lag_far_end_names_each_member(self):
        # real: the RoCE LAG bond0 of a ConnectX-4 Lx, no lldpcli recorded: each member's part of
        # the far-end line names the member, as the other lines do (was the reason twice, unnamed)
        j = check("net-cx4lx-roce-lag-down")
        far = [c for card in j["cards"] for c in card["checks"] if c["item"] == "port_far_end"]
        self.assertEqual(len(far), 1)
        self.assertEqual(far[0]["value"] or far[0]["reason"],
                         "eth01: lldpcli: not in this capture; eth02: lldpcli: not in this capture")

    def test_kernel_log_line(self):
        # real: the dmesg of a ConnectX-6 Dx that overheated (health syndrome 0x10, then fatal)
        j = check("link-kevents-cx6dx-health")
        k = [c for c in j["cards"][0]["checks"] if c["item"] == "kernel_log"]
        # fatal: the health recovery aborted, the card stopped answering: an error
        self.assertEqual([(c["verdict"], c["rules"]) for c in k], [("error", ["MLX_KERNEL_EVENTS"])])
        # the capture is a dmesg tail pasted after its prompt ('[root@server ~]# dmesg' first): where
        # the log begins is unknown, and the line says so rather than 'since boot'
        self.assertEqual(k[0]["value"], "5 mlx5 events in the kernel log read (whether it reaches back to boot is unknown): "
                                        "high_temperature 2, health 2, fatal 1; "
                                        "last at 271.3 s: health recovery flow aborted, PCI reads still not working")
        # no dmesg recorded: unknown, and why
        k = [c for c in check("link-ib-clean")["cards"][0]["checks"] if c["item"] == "kernel_log"]
        self.assertEqual([(c["verdict"], c["reason"]) for c in k], [("unknown", "dmesg: not in this capture")])

    def dump(self, doc):
        if not CARDS_DUMP:
            self.skipTest("no --cards-dump")
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(doc, f)
            f.flush()
            cp = subprocess.run([CARDS_DUMP, f.name], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        text, _, js = cp.stdout.rstrip("\n").rpartition("\n")
        return re.sub(r"\n {24}", " ", text), json.loads(js)  # wrapped lines joined

    def watched(self, fx, uptime_s, window_s, patch):
        doc = hwctest.run_json("facts", "--json", "--root", hwctest.fixture(fx, "root"))[1]
        facts = doc["facts"]
        facts["host"]["kernel"]["uptime_s"] = uptime_s
        if window_s:
            facts["watch"] = {"requested_s": round(window_s), "window_s": window_s, "samples": 2}
        patch(facts)
        return self.dump(doc)

    def test_roce_lag_members_each_their_own(self):
        # real: the ConnectX-4 Lx RoCE LAG (bond0 over eth01, eth02: one RDMA port mlx5_bond_0/1);
        # each member given its own symbol errors and its own module: the JSON holds one object per
        # physical port under the LAG port's members, the LAG port's own link keys null
        mod = hwctest.run_json("facts", "--json", "--root",
                               hwctest.fixture("link-module-qsfp28-hot", "root"))[1]["facts"]["netdevs"][0]["link"]["module"]

        def patch(facts):
            for nd in facts["netdevs"]:
                n = {"eth01": 7, "eth02": 0}.get(nd["name"])
                if n is not None:
                    nd["counters"]["rx_symbol_err_phy"] = n
                    if nd["name"] == "eth01":
                        nd["link"]["module"] = mod
        text, cards = self.watched("net-cx4lx-roce-lag-lossless", 3600, 0, patch)
        port = cards[0]["ports"][0]
        self.assertEqual((port["netdev"], port["rdma_device"]), ("bond0", "mlx5_bond_0"))
        self.assertEqual([m["netdev"] for m in port["members"]], ["eth01", "eth02"])
        for k in ("errors", "flaps", "fec", "module", "far_end"):
            self.assertIsNone(port[k], k)
        e1, e2 = port["members"]
        self.assertEqual(e1["errors"]["rx_symbol_err_phy"], {"count": 7, "per_hour": 7.0, "window": None})
        self.assertEqual(e2["errors"]["rx_symbol_err_phy"], {"count": 0, "per_hour": 0.0, "window": None})
        self.assertEqual((e1["module"]["part_number"], e2["module"]), ("MMA1B00-SS1", None))
        self.assertRegex(text, r"link errors +eth01: symbol errors 7 \(7/h\).*; eth02: symbol errors 0")

    def test_rate_line_module_below_live_rate(self):
        # the real mlx5 100GbE port at 100G, its module's rate made 40G: a module that declares
        # less than the live link runs is no limit and no pass (LINK_RATE_LIMITED unknown)
        def patch(facts):
            facts["netdevs"][0]["link"]["module"]["max_gbps"] = 40.0
        text, cards = self.watched("rate-cx5-100g-sr4-ok", 3600, 0, patch)
        self.assertRegex(text, r"unknown +link rate +p1: 100G, card 100G, module 40G \(below the live rate: the "
                               r"module's codes are incomplete\), partner unknown; undecided LINK_RATE_LIMITED: "
                               r"invalid: the module's codes name at most 40G")

    def test_rates_since_boot_and_in_the_window(self):
        def patch(facts):
            nd = facts["netdevs"][0]
            nd["counters_window"] = {k: 0 for k, v in nd["counters"].items() if isinstance(v, int)}
            nd["counters_window"]["rx_symbol_err_phy"] = 3
            nd["counters_window"]["rx_crc_errors_phy"] = None
            nd["counters_window"]["unavailable"] = {"rx_crc_errors_phy": {"status": "invalid",
                                                                          "detail": "went backwards (cleared)"}}
            nd["link"]["carrier_changes_window"] = 0
            nd["link"]["ber_window"] = {"source": "ethtool -S p1", "bits": 1000000000000,
                                        "raw_ber": 2.5e-7, "effective_ber": 3e-12}
        text, cards = self.watched("link-farend-lldp-symbol", 86400, 10.0, patch)
        self.assertRegex(text, r"link errors +p1: symbol errors 386 \(16\.1/h; \+3 in the window\), "
                               r"post-FEC bit errors 386 \(16\.1/h; \+0 in the window\), CRC errors 386 "
                               r"\(16\.1/h; window unknown: cleared in the window\); rates per hour over the 24\.0 h uptime "
                               r"\(at least: counted since boot or the last clear\), 10.0 s watch window")
        self.assertRegex(text, r"FEC, BER +p1: .*in the 10.0 s window raw BER 2\.5e-07, effective BER 3\.0e-12")
        port = cards[0]["ports"][0]
        self.assertEqual(port["errors"]["rx_symbol_err_phy"], {"count": 386, "per_hour": 386 / 24, "window": 3})
        self.assertEqual(port["fec"]["ber_window"], {"raw_ber": 2.5e-7, "effective_ber": 3e-12})

    def test_ib_window_saturated(self):
        def patch(facts):
            p = facts["mlx"]["adapters"][0]["ports"][0]
            p["counters_window"] = {k: 0 for k, v in p["counters"].items() if isinstance(v, int)}
            p["counters_window"]["link_downed"] = None
            p["counters_window"]["unavailable"] = {"link_downed": {"status": "invalid",
                                                                   "detail": "saturated at 255"}}
        text, _ = self.watched("link-farend-ib-linkdowned", 7200, 30.5, patch)
        self.assertRegex(text, r"flaps +link downed 255 \(saturated; 128/h; window unknown: saturated\), "
                               r"recoveries 0; rates per hour over the 2\.0 h uptime \(at least: counted since boot or the last clear\), 30\.5 s watch window")

    def test_ib_counter_widths(self):
        # each IBA PortCounter saturates at its own width (core/query's hwc_q_ib_counter_max):
        # PortRcvErrors is 16 bits like SymbolErrorCounter, so 65535 is "at least", 65534 is not
        def patch(facts):
            c = facts["mlx"]["adapters"][0]["ports"][0]["counters"]
            c["port_rcv_errors"], c["port_rcv_remote_physical_errors"] = 65535, 65534
        text, _ = self.watched("link-farend-ib-linkdowned", 7200, 0, patch)
        self.assertRegex(text, r"link errors +symbol errors 0, rcv errors 65535 \(saturated; 32768/h\), .*"
                               r"buffer overruns 15 \(saturated; 7\.5/h\), remote physical errors 65534 \(32767/h\)")

    def test_watch_replayed_from_a_capture(self):
        # --watch on w14core's capture: the real first sample (the corpus' mlx5 100GbE ethtool -S)
        # and a RECONSTRUCTED second (tests/fixtures/watch-eth-mlx5-100g/SOURCE.md)
        _, j = hwctest.run_json("--json", "--watch", "10", "--root", hwctest.fixture("watch-eth-mlx5-100g", "root"))
        ls = port_lines(j)["p1"]
        # since boot as of the second sample: the capture's 386, +2 in the window
        self.assertRegex(line(ls, "port_link")[1], r"^p1: symbol errors 388 \(\+2 in the window\), .*"
                                                   r"rate unknown \(no uptime\), 10\.0 s watch window$")
        self.assertRegex(line(ls, "port_fec")[1], r"; in the 10\.0 s window raw BER 4\.0e-08, effective BER 2\.0e-12$")
        port = j["cards"][0]["ports"][0]
        self.assertEqual(port["errors"]["rx_symbol_err_phy"], {"count": 388, "per_hour": None, "window": 2})
        bw = j["facts"]["netdevs"][0]["link"]["ber_window"]
        self.assertEqual(port["fec"]["ber_window"], {"raw_ber": bw["raw_ber"], "effective_ber": bw["effective_ber"]})

    def test_watch_without_window(self):
        def patch(facts):
            facts["watch"] = {"requested_s": 10, "window_s": None, "samples": None,
                              "unavailable": {"window_s": {"status": "absent", "detail": "no watch samples in this capture"},
                                              "samples": {"status": "absent", "detail": "no watch samples in this capture"}}}
        text, _ = self.watched("link-farend-lldp-symbol", 3600, 0, patch)
        self.assertRegex(text, r"link errors +p1: symbol errors 386 \(386/h\), .*; watch window unknown \(no "
                               r"watch samples in this capture\); rates per hour over the 1\.0 h uptime \(at least: counted since boot or the last clear\)")

    def test_no_watch_no_window(self):
        text, cards = self.watched("link-farend-lldp-symbol", 3600, 0, lambda f: None)
        self.assertRegex(text, r"symbol errors 386 \(386/h\)")
        self.assertNotIn("window", text)
        self.assertIsNone(cards[0]["ports"][0]["fec"])  # no FEC mode, no BER in this capture
        self.assertEqual(cards[0]["ports"][0]["errors"]["rx_symbol_err_phy"],
                         {"count": 386, "per_hour": 386.0, "window": None})


if __name__ == "__main__":
    hwctest.main()

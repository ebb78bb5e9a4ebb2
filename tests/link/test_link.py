# SPDX-License-Identifier: MIT
# The wire side on the link-* fixture roots (real public captures, tests/link/make_fixtures.py)
# and on net-mlx5-100g-full-stats: facts, the LINK_* findings that must and must not come out,
# schema, facts round trip, and that a restricted function's counters are never read.
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402


def check(fx, *extra):
    cp, j = run_json("--root", hwctest.fixture(fx, "root"), "--json", *extra)
    hwctest.validate(j)
    return j


def check_root(root):
    cp, j = run_json("--root", root, "--json")
    hwctest.validate(j)
    return j


def link_findings(j):
    # an InfiniBand port's rate against both ends (and the end that limits it) needs their PortInfo
    # (infiniband-diags), which these captures lack: those unknowns are test_farend.py's and the
    # rule cases', not the counters' business here
    return sorted((f["rule_id"], f["severity"], f["subject"]) for f in j["findings"]
                  if f["rule_id"].startswith("LINK_")
                  and not (f["rule_id"] in ("LINK_RATE_BELOW_POSSIBLE", "LINK_RATE_LIMITED")
                           and f["severity"] == "unknown" and "/" in f["subject"]))


def port(j, dev):
    return next(p for ad in j["facts"]["mlx"]["adapters"] for p in ad["ports"]
                if p["rdma_device"] == dev)


class Fixtures(unittest.TestCase):
    def test_generator_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("tests", "link", "make_fixtures.py"),
                             "--check"], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_ib_link_downed_fires(self):
        j = check("link-ib-cx7-linkdowned")
        c = port(j, "mlx5_1")["counters"]
        self.assertEqual((c["link_downed"], c["excessive_buffer_overrun_errors"], c["symbol_error"]),
                         (255, 15, 0))
        self.assertEqual(c["port_xmit_discards"], 65535)
        self.assertEqual(c["unavailable"]["local_ack_timeout_err"]["status"], "absent")
        self.assertEqual(link_findings(j), [("LINK_FLAPS", "warn", "mlx5_1/1"),
                                            ("LINK_INTEGRITY_ERRORS", "warn", "mlx5_1/1")])
        flaps = next(f for f in j["findings"] if f["rule_id"] == "LINK_FLAPS")
        self.assertIn("saturated", flaps["message"])

    def test_cx2_cable_pulled_symbol_errors(self):
        # a real ConnectX-2 whose loopback cable was pulled: symbol_error saturated (65535) and
        # link_downed 1 on both ports (Chester-Gillon/ibv_message_passing). The capture has no
        # uptime: the rate, hence the verdict, is unknown, never a pass; the flap is counted.
        j = check("link-ib-cx2-cable-pulled")
        for dev in ("mlx4_0/1", "mlx4_0/2"):
            p = next(p for ad in j["facts"]["mlx"]["adapters"] for p in ad["ports"]
                     if f"{p['rdma_device']}/{p['port']}" == dev)
            self.assertEqual((p["counters"]["symbol_error"], p["counters"]["link_downed"]), (65535, 1))
        self.assertIsNone(j["facts"]["host"]["kernel"]["uptime_s"])
        self.assertEqual(link_findings(j), [("LINK_FLAPS", "warn", "mlx4_0/1"), ("LINK_FLAPS", "warn", "mlx4_0/2"),
                                            ("LINK_SYMBOL_ERRORS", "unknown", "mlx4_0/1"),
                                            ("LINK_SYMBOL_ERRORS", "unknown", "mlx4_0/2")])
        # with an uptime (reconstructed: the capture has none) the saturated count is a rate
        j = check("link-ib-cx2-cable-pulled-uptime")
        sym = [f for f in j["findings"] if f["rule_id"] == "LINK_SYMBOL_ERRORS"]
        self.assertEqual(sorted((f["severity"], f["subject"]) for f in sym),
                         [("warn", "mlx4_0/1"), ("warn", "mlx4_0/2")])
        self.assertIn("65535 (saturated: at least) symbol errors since boot or the last counter clear", sym[0]["message"])
        self.assertIn("above 120/h", sym[0]["message"])
        ev = {e["fact"]: e["observed"] for e in sym[0]["evidence"]}
        self.assertEqual(ev["host.kernel.uptime_s"], "86400 (the rate's divisor: the counters may have been cleared since boot, "
                         "so the rate is at least the count over it)")
        self.assertEqual(ev["mlx.adapters[0000:04:00.0].ports[mlx4_0/1].counters.symbol_error"], "65535")
        # one formatting for rates: the finding says 2731/h (65535 / 24 h) as the card's line does,
        # not "2730.625/h" beside it
        self.assertIn("at least 2731/h over the 24 h uptime", sym[0]["message"])
        cp = run("--root", hwctest.fixture("link-ib-cx2-cable-pulled-uptime", "root"), "--no-color")
        self.assertIn("2731/h", cp.stdout)
        self.assertNotIn("2730.625", cp.stdout)

    def test_cx2_ring_since_boot(self):
        # the real sysfs counters of a ConnectX-2 on an aarch64 board (a 10 s sampler's output):
        # links went down since boot (1 and 2), no symbol or integrity error: only LINK_FLAPS
        j = check("link-ib-cx2-ring-window")
        c1 = next(p for ad in j["facts"]["mlx"]["adapters"] for p in ad["ports"] if p["port"] == 1)["counters"]
        self.assertEqual((c1["link_downed"], c1["symbol_error"], c1["local_link_integrity_errors"]), (1, 0, 0))
        self.assertEqual(link_findings(j), [("LINK_FLAPS", "warn", "mlx4_0/1"), ("LINK_FLAPS", "warn", "mlx4_0/2")])
        msg = {f["subject"]: f["message"] for f in j["findings"] if f["rule_id"] == "LINK_FLAPS"}
        self.assertIn("went down 2 times", msg["mlx4_0/2"])

    def test_cx2_ring_real_window(self):
        # the same ports read twice ten seconds apart (both samples real): the links went down
        # before the window, so every error counter's delta over it is 0, link_downed included
        j = check("watch-ib-cx2-ring")
        self.assertEqual(j["facts"]["watch"], {"requested_s": 10, "window_s": 10.0, "samples": 2})
        for p in (p for ad in j["facts"]["mlx"]["adapters"] for p in ad["ports"]):
            w = p["counters_window"]
            self.assertEqual((w["link_downed"], w["symbol_error"], w["link_error_recovery"]), (0, 0, 0))
            self.assertEqual(p["counters"]["link_downed"], p["port"])  # 1 and 2 since boot
        # no symbol error in 10 s says nothing at 120/h: one info for the run that the window is
        # too short (rules/link_window.c), never a warning, not one per port
        self.assertEqual([(s, subj) for r, s, subj in link_findings(j) if r == "LINK_SYMBOL_ERRORS"], [("info", "host")])

    def test_ib_clean_does_not_fire(self):
        j = check("link-ib-clean")
        self.assertEqual(port(j, "mlx5_0")["counters"]["symbol_error"], 0)
        self.assertEqual(j["facts"]["host"]["kernel"]["uptime_s"], 350735)
        self.assertEqual(link_findings(j), [])

    def test_restricted_pf_not_read(self):
        j = check("link-ib-restricted-pf")
        c = port(j, "mlx5_4")["counters"]
        self.assertIsNone(c["symbol_error"])
        self.assertEqual(c["unavailable"]["symbol_error"]["status"], "blocked")
        self.assertIn("ACCESS_REG(0x805)", c["unavailable"]["symbol_error"]["detail"])
        self.assertEqual({s for _, s, _ in link_findings(j)}, {"unknown"})
        # the far end says what it skipped (the MADs) and why (the counters' reason), not the
        # counters' words alone
        peer = port(j, "mlx5_4")["unavailable"]["peer"]
        self.assertEqual(peer["status"], "blocked")
        self.assertTrue(peer["detail"].startswith("far end not queried (no smpquery or perfquery through "
                                                  "this function): restricted function: "), peer)
        pi = port(j, "mlx5_4")["unavailable"]["portinfo"]["detail"]
        self.assertTrue(pi.startswith("not queried (no smpquery through this function): restricted"), pi)
        # a snapshot holds what was read: no counter file of the restricted port
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            cp = run("--root", hwctest.fixture("link-ib-restricted-pf", "root"), "snapshot", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            with tarfile.open(tar) as t:
                names = t.getnames()
            self.assertFalse([n for n in names if "/counters/" in n], names)

    def test_ethernet_uncorrected_symbols_fire(self):
        j = check("net-mlx5-100g-full-stats")
        # the capture has no --show-fec and no ethtool -m: what they would tell is unknown
        # one wire, one finding: the 386 uncorrected bits (rx_pcs_symbol_err_phy) are
        # LINK_EFFECTIVE_ERRORS', with the 386 dropped frames (rx_symbol_err_phy) as its evidence
        self.assertEqual(link_findings(j), [("LINK_EFFECTIVE_ERRORS", "warn", "p1"),
                                            ("LINK_FEC_MODE", "unknown", "p1"),
                                            ("LINK_MODULE_RX_POWER_LOW", "unknown", "p1"),
                                            ("LINK_MODULE_THRESHOLDS", "unknown", "p1"),
                                            ("LINK_RATE_BELOW_POSSIBLE", "unknown", "p1"),
                                            ("LINK_RATE_LIMITED", "unknown", "p1"),
                                            ("LINK_RAW_BER_HIGH", "unknown", "p1")])
        f = next(f for f in j["findings"] if f["rule_id"] == "LINK_EFFECTIVE_ERRORS")
        self.assertIn("386 bit errors left after FEC (effective BER unknown: no rx_bits_phy)", f["message"])
        ev = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertEqual(ev["netdevs[p1].counters.rx_pcs_symbol_err_phy"], "386")
        self.assertEqual(ev["netdevs[p1].counters.rx_symbol_err_phy"], "386 (frames dropped)")
        self.assertIn("no rx_bits_phy", ev["netdevs[p1].link.ber.effective_ber"])
        # 17750739 corrected bits but no window: the raw BER is unknown, not invented
        r = next(f for f in j["findings"] if f["rule_id"] == "LINK_RAW_BER_HIGH")
        self.assertIn("no rx_bits_phy", r["message"])
        nd = j["facts"]["netdevs"][0]
        c = nd["counters"]
        self.assertEqual((c["rx_err_lane_3_phy"], c["rx_pcs_symbol_err_phy"]), (17722623, 386))
        self.assertEqual((c["rx_bits_phy"], nd["link"]["ber"]["raw_ber"], nd["link"]["ber"]["effective_ber"]),
                         (None, None, None))
        self.assertEqual(nd["link"]["ber"]["unavailable"]["raw_ber"]["status"], "absent")

    def test_ethtool_ber_pam4(self):
        # rx_bits_phy gives the counters' window: p1's raw BER past RS(544,514), p2's healthy
        j = check("link-ethtool-ber-pam4")
        lf = [x for x in link_findings(j) if x[1] != "unknown"]
        self.assertEqual(lf, [("LINK_EFFECTIVE_ERRORS", "warn", "p1"), ("LINK_RAW_BER_HIGH", "warn", "p1")])
        ber = {nd["name"]: nd["link"]["ber"] for nd in j["facts"]["netdevs"]}
        self.assertAlmostEqual(ber["p1"]["raw_ber"], 5e-4, delta=1e-12)
        self.assertAlmostEqual(ber["p1"]["effective_ber"], 12 / 7.2e14, delta=1e-20)
        self.assertAlmostEqual(ber["p2"]["raw_ber"], 153303800 / 7.2e14, delta=1e-15)
        self.assertEqual(ber["p2"]["effective_ber"], 0)
        r = next(f for f in j["findings"] if f["rule_id"] == "LINK_RAW_BER_HIGH")
        self.assertIn("past the limit of RS(544,514)", r["message"])
        self.assertFalse([f for f in j["findings"] if f["rule_id"] == "LINK_SYMBOL_ERRORS"])
        # LINK_EFFECTIVE_ERRORS' rows that failed carry their expectation; the effective BER
        # 1.67e-14 meets the 1e-12 objective: shown as context, never as a failed row
        e = next(f for f in j["findings"] if f["rule_id"] == "LINK_EFFECTIVE_ERRORS")
        ev = {x["fact"]: x for x in e["evidence"]}
        self.assertEqual((ev["netdevs[p1].counters.rx_pcs_symbol_err_phy"]["observed"],
                          ev["netdevs[p1].counters.rx_pcs_symbol_err_phy"].get("expected")), ("12", "0"))
        self.assertEqual((ev["netdevs[p1].link.ber.effective_ber"]["observed"],
                          ev["netdevs[p1].link.ber.effective_ber"].get("expected")), ("1.67e-14 (meets <= 1e-12)", None))
        self.assertEqual(ev["netdevs[p1].link.fec.uncorrectable_blocks"].get("expected"), "0")
        # the port's link line shows ethtool's BER where mstlink gave none
        cp = run("--root", hwctest.fixture("link-ethtool-ber-pam4", "root"), "--no-color")
        self.assertRegex(cp.stdout, r"warn +FEC, BER +p1: FEC RS .*raw BER\s+5\.0e-04, effective BER\s+1\.7e-14 \(ethtool -S\)")
        self.assertRegex(cp.stdout, r"ok +FEC, BER +p2: FEC RS .*raw BER\s+2\.1e-07,\s+effective BER 0 \(ethtool -S\)")

    def test_ethtool_ber_broken_counters(self):
        # rx_bits_phy 0, garbage, or absent: the BER is null with the reason, nothing crashes;
        # no bit in error at all stays a BER judged 0 (quiet), errors without a window unknown
        src = hwctest.fixture("link-ethtool-ber-pam4", "root")
        cases = {"0": "unsupported", "n/a": "absent", "18446744073709551615": None, None: "absent"}
        for v, status in cases.items():
            with self.subTest(rx_bits_phy=v), tempfile.TemporaryDirectory() as d:
                root = os.path.join(d, "root")
                subprocess.run(["cp", "-a", src, root], check=True)
                f = os.path.join(root, "hwcheck", "commands", "ethtool -S p1", "stdout")
                with open(f) as fh:
                    lines = [ln for ln in fh if "rx_bits_phy" not in ln]
                if v is not None:
                    lines.insert(3, f"     rx_bits_phy: {v}\n")
                with open(f, "w") as fh:
                    fh.writelines(lines)
                j = check_root(root)
                b = next(nd for nd in j["facts"]["netdevs"] if nd["name"] == "p1")["link"]["ber"]
                if status is None:
                    self.assertLess(b["raw_ber"], 1e-4)  # a huge window: a tiny ratio
                    continue
                self.assertIsNone(b["raw_ber"])
                self.assertEqual(b["unavailable"]["raw_ber"]["status"], status)
                sev = {x[0]: x[1] for x in link_findings(j) if x[2] == "p1"}
                self.assertEqual(sev["LINK_RAW_BER_HIGH"], "unknown")
                self.assertEqual(sev["LINK_EFFECTIVE_ERRORS"], "warn")  # 12 bits: any is flagged

    def test_mlxlink_clean_does_not_fire(self):
        j = check("link-bf3-mlxlink-clean")
        phy = port(j, "mlx5_0")["phy"]
        self.assertEqual(phy["source"], "mstlink -d 0000:03:00.0 -m -c")
        mod = port(j, "mlx5_0")["module"]
        self.assertEqual((mod["identifier"], mod["vendor"], mod["part_number"], mod["length_m"]),
                         ("QSFP28", "FS", "Q28-PC03", 3))
        self.assertEqual(mod["cable_type"], "Passive copper cable")
        self.assertEqual(mod["unavailable"]["temperature_c"]["status"], "unsupported")  # no DDM
        self.assertEqual(mod["unavailable"]["rx_los"]["status"], "unsupported")  # "Rx LOS [per lane] : N/A"
        self.assertEqual(phy["fec"], "Standard RS-FEC - RS(528,514)")
        self.assertEqual((phy["effective_errors"], phy["raw_errors_per_lane"]), (0, [0, 0, 0, 0]))
        self.assertLess(phy["raw_ber"], 1e-250)
        self.assertEqual(link_findings(j), [])

    def test_ndr_dac_los_not_judged(self):
        # a real ConnectX-7 NDR passive DAC: Rx LOS 1,0,1,1 latched on a link that passed
        # ib_send_bw traffic; a cable without a receiver: parsed, not judged
        j = check("link-module-cx7-ndr-dac-los")
        p = port(j, "mlx5_0")
        self.assertEqual((p["module"]["rx_los"], p["module"]["cable_type"], p["phy"]["state"]),
                         ([1, 0, 1, 1], "Passive copper cable", "Active"))
        self.assertEqual(p["module"]["temperature_c_range"], [0, 0])
        got = {(r, s) for r, s, _ in link_findings(j)}
        self.assertFalse({r for r, _ in got} & {"LINK_MODULE_DIAGNOSTICS", "LINK_MODULE_THRESHOLDS",
                                               "LINK_MODULE_RX_POWER_LOW"})
        # the capture has no -c counters: the BER rules say unknown, never pass
        self.assertIn(("LINK_RAW_BER_HIGH", "unknown"), got)
        self.assertEqual({s for _, s in got}, {"unknown"})

    def test_mlxlink_bad_signal_fires(self):
        # an operator's quoted 400G counters: the firmware's own verdict and the link-down
        # counter (no netdev counts them here) fire, the raw BER (2E-5, under a tenth of
        # RS(544,514)'s limit) and the clean effective counters do not
        j = check("link-mstlink-400g-bad-signal")
        phy = port(j, "mlx5_0")["phy"]
        self.assertEqual((phy["recommendation"], phy["raw_ber"], phy["effective_errors"], phy["link_down_counter"]),
                         ("Bad signal integrity", 2e-05, 0, 6))
        # the quote has no Module Info: the module's readings were not looked at (unknown, from
        # the rules that own them whichever tool shows them)
        self.assertEqual(link_findings(j), [("LINK_FLAPS", "warn", "mlx5_0/1"),
                                            ("LINK_MODULE_RX_POWER_LOW", "unknown", "mlx5_0/1"),
                                            ("LINK_MODULE_THRESHOLDS", "unknown", "mlx5_0/1"),
                                            ("LINK_TOOL_RECOMMENDATION", "warn", "mlx5_0/1")])

    def test_dr4_osfp_real_readings_judged_silent(self):
        # a real ConnectX-7 400G port and its DR4 optic as mlxlink reads them (MFT 4.34.1, values
        # verbatim, text layout rendered from its --json): no netdev decodes the EEPROM, so the
        # module rules judge mstlink's readings against the module's own alarm ranges: all inside
        j = check("link-mstlink-cx7-400g-dr4-osfp")
        p = port(j, "mlx5_0")
        m = p["module"]
        self.assertEqual((m["temperature_c"], m["temperature_c_range"]), ([62.0], [-10.0, 80.0]))
        self.assertEqual((m["rx_power_dbm"], m["rx_power_dbm_range"]),
                         ([3.608, 3.292, 3.237, 2.651], [-9.914, 6.999]))
        self.assertEqual((p["phy"]["raw_ber"], m["rx_los"]), (5e-10, [0, 0, 0, 0]))
        self.assertEqual(link_findings(j), [])  # judged, not unknown: nothing fires
        # the same real readings with a wider margin (a site's profile, not the data): the module's
        # 62 C is within 25 % of its [-10..80] range from the top, so the rule did look at it
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                           "thresholds": {"link_module_margin": 0.25}}, f)
            j = check("link-mstlink-cx7-400g-dr4-osfp", "--profile", prof)
        self.assertEqual(link_findings(j), [("LINK_MODULE_THRESHOLDS", "warn", "mlx5_0/1")])

    def test_cx4_forum_no_issue_with_period(self):
        # a real ConnectX-4 whose firmware says "No issue was observed." (with a period), in the
        # forum's rendering (blank lines, one space before the colon): read, and no finding
        j = check("link-mstlink-cx4-100g-forum")
        phy = port(j, "mlx5_0")["phy"]
        self.assertEqual((phy["recommendation"], phy["status_opcode"], phy["raw_ber"]),
                         ("No issue was observed.", 0, 3e-12))
        self.assertEqual((phy["raw_errors_per_lane"], phy["time_since_clear_min"]), ([26711, 0, 0, 9108], 1715.4))
        self.assertEqual(link_findings(j), [("LINK_MODULE_RX_POWER_LOW", "unknown", "mlx5_0/1"),
                                            ("LINK_MODULE_THRESHOLDS", "unknown", "mlx5_0/1")])

    def test_cx5_ib_cable_speed_not_enabled_real(self):
        # a real ConnectX-5 EDR port at 4X SDR whose firmware diagnoses 'Cable speed not enabled'
        # (bluebanquise's mlxlink answer): LINK_TOOL_RECOMMENDATION warns on the firmware's words;
        # the counters and the module were not in the capture (unknown, never a pass); the rate
        # rules: the cable limits (LINK_RATE_LIMITED info, test_rate.py), the width needs PortInfo
        j = check("link-mstlink-cx5-ib-sdr-cable-speed")
        phy = port(j, "mlx5_0")["phy"]
        self.assertEqual((phy["recommendation"], phy["status_opcode"], phy["speed"], phy["fec"]),
                         ("Cable speed not enabled", 25, "IB-SDR", "No FEC"))
        self.assertEqual((phy["enabled_link_speed"], phy["supported_cable_speed"]),
                         ("0x00000001 (SDR)", "0x00000001 (SDR)"))
        got = link_findings(j)
        self.assertIn(("LINK_TOOL_RECOMMENDATION", "warn", "mlx5_0/1"), got)
        for rule, sev, _ in got:
            self.assertIn(sev, ("warn", "unknown", "info"), rule)
            if rule not in ("LINK_TOOL_RECOMMENDATION", "LINK_RATE_LIMITED"):
                self.assertEqual(sev, "unknown", rule)
        f = next(f for f in j["findings"] if f["rule_id"] == "LINK_TOOL_RECOMMENDATION")
        self.assertIn("Cable speed not enabled", f["message"])
        rate = sorted((f["rule_id"], f["severity"]) for f in j["findings"]
                      if f["rule_id"] in ("LINK_RATE_BELOW_POSSIBLE", "LINK_RATE_LIMITED"))
        self.assertEqual(rate, [("LINK_RATE_BELOW_POSSIBLE", "unknown"), ("LINK_RATE_LIMITED", "info")])

    def test_hdr_plr_real_ber_silent(self):
        # eight real ConnectX-6 HDR 2x ports (RS-FEC (544,514) + PLR): raw BER 4E-9..1E-7, nothing
        # left after FEC or PLR; the BER rules judge them and stay silent, the Symbol lines are read
        j = check("link-ib-cx6-hdr-plr-8port")
        phy = port(j, "mlx5_3")["phy"]
        self.assertEqual((phy["fec"], phy["width"], phy["raw_ber"], phy["raw_errors_per_lane"]),
                         ("RS-FEC - (544,514) + PLR", "2x", 1e-07, [32379149, 224947]))
        self.assertEqual((phy["symbol_errors"], phy["effective_errors"]), (0, 0))
        self.assertLess(phy["symbol_ber"], 1e-250)
        # the capture's grep dropped these: absent, not zero
        self.assertEqual(phy["unavailable"]["link_down_counter"]["status"], "absent")
        got = link_findings(j)
        self.assertEqual(len({s for _, _, s in got}), 8)
        for rule in ("LINK_RAW_BER_HIGH", "LINK_EFFECTIVE_ERRORS", "LINK_TOOL_RECOMMENDATION", "LINK_FEC_MODE"):
            self.assertNotIn(rule, {r for r, _, _ in got})
        # no -m in the capture: the module's readings are unknown, never a pass
        self.assertIn(("LINK_MODULE_THRESHOLDS", "unknown", "mlx5_0/1"), got)
        self.assertIn(("LINK_MODULE_RX_POWER_LOW", "unknown", "mlx5_0/1"), got)
        self.assertNotIn("LINK_MODULE_DIAGNOSTICS", {r for r, _, _ in got})
        self.assertEqual({s for _, s, _ in got}, {"unknown"})

    def test_ibdiag_raw_ber_fec_unread_fires(self):
        # a real ibdiagnet raw BER of 4E-5 on a ConnectX-7 host port, from a table that records no
        # FEC mode: no FEC a ConnectX runs corrects more than RS(544,514), and 4E-5 is past a
        # tenth of its 2.4e-4, so it is close to the limit of whichever FEC runs (the effective BER
        # 6E-14, far under the raw one, shows a FEC at work); the missing FEC is shown as such
        j = check("link-ib-cx7-ibdiag-raw-ber")
        phy = port(j, "mlx5_9")["phy"]
        self.assertEqual((phy["raw_ber"], phy["effective_ber"]), (4e-05, 6e-14))
        self.assertLess(phy["symbol_ber"], 1e-250)
        self.assertEqual(phy["unavailable"]["fec"]["status"], "absent")
        self.assertEqual(phy["unavailable"]["effective_errors"]["status"], "absent")
        got = link_findings(j)
        self.assertIn(("LINK_RAW_BER_HIGH", "warn", "mlx5_9/1"), got)
        self.assertIn(("LINK_EFFECTIVE_ERRORS", "unknown", "mlx5_9/1"), got)
        self.assertEqual({s for r, s, _ in got if r != "LINK_RAW_BER_HIGH"}, {"unknown"})
        raw = next(f for f in j["findings"] if f["rule_id"] == "LINK_RAW_BER_HIGH")
        self.assertIn("any FEC the port may run (the FEC in use was not read", raw["message"])
        ev = {e["fact"].rsplit(".", 1)[-1]: e for e in raw["evidence"]}
        self.assertEqual(ev["raw_ber"]["observed"], "4e-05")
        self.assertIn("2.4e-05", ev["raw_ber"]["expected"])
        self.assertIn("absent", ev["fec"]["observed"])
        self.assertEqual(ev["effective_ber"]["observed"], "6e-14")

    def test_ibdiag_second_port_past_bound(self):
        # the table's second-worst host port, raw 3E-5 (effective 1E-15), FEC not recorded: just
        # past the 2.4e-5 bound (a tenth of RS(544,514)'s 2.4e-4), so it warns too; its neighbours
        # at 1E-5 would stay unknown (rule case fec-unread-under-strongest.json)
        j = check("link-ib-cx7-ibdiag-raw-ber-3e5")
        phy = port(j, "mlx5_6")["phy"]
        self.assertEqual((phy["raw_ber"], phy["effective_ber"]), (3e-05, 1e-15))
        got = link_findings(j)
        self.assertIn(("LINK_RAW_BER_HIGH", "warn", "mlx5_6/1"), got)
        raw = next(f for f in j["findings"] if f["rule_id"] == "LINK_RAW_BER_HIGH")
        self.assertIn("raw (pre-FEC) BER 3e-05 is close to the limit of any FEC", raw["message"])
        # a site margin of 0.05 (bound 1.2e-5) still warns; under 0.2's 4.8e-5 the FEC decides,
        # and it was not read: unknown, never a pass
        for margin, want in ((0.05, "warn"), (0.2, "unknown")):
            with tempfile.TemporaryDirectory() as d:
                pf = os.path.join(d, "p.json")
                with open(pf, "w") as f:
                    json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                               "thresholds": {"link_raw_ber_margin": margin}}, f)
                sev = {s for r, s, _ in link_findings(check("link-ib-cx7-ibdiag-raw-ber-3e5", "--profile", pf))
                       if r == "LINK_RAW_BER_HIGH"}
                self.assertEqual(sev, {want}, margin)

    def test_strongest_fec_bound(self):
        # LINK_RAW_BER_HIGH judges a FEC without a published limit (or one not read) against
        # RS(544,514)'s 2.4e-4, on the claim that no FEC of mlxlink's list corrects more. Check it
        # for every RS code by its (n, k) (10-bit symbols, t = (n - k) / 2 correctable symbols,
        # independent bit errors): the raw BER at which its decoder fails, per data bit, as often
        # as KP4's at 2.4e-4 is lower for each; the explain text quotes these figures.
        from math import comb

        def fail_per_bit(n, k, ber):
            ps = 1 - (1 - ber) ** 10
            return sum(comb(n, i) * ps ** i * (1 - ps) ** (n - i) for i in range((n - k) // 2 + 1, (n - k) // 2 + 40)) / (k * 10)

        ref = fail_per_bit(544, 514, 2.4e-4)

        def tolerance(n, k):
            lo, hi = 1e-9, 1e-2
            for _ in range(100):
                mid = (lo * hi) ** 0.5
                lo, hi = (lo, mid) if fail_per_bit(n, k, mid) > ref else (mid, hi)
            return lo
        # mlxlink's FEC names (mstflint mlxlink_maps.cpp): RS(528,514), LL RS(271,257), the
        # Ethernet consortium's RS(272,257+1) (k = 258 with its extra bit), Mellanox RS(277,257)
        # and RS(163,155)
        want = {(528, 514): "2.2e-5", (271, 257): "4e-5", (272, 258): "4e-5", (277, 257): "1.4e-4",
                (163, 155): "4.9e-6"}
        text = run("rules", "explain", "LINK_RAW_BER_HIGH").stdout.replace("\n", " ")
        text = " ".join(text.split())
        for (n, k), shown in want.items():
            with self.subTest(code=(n, k)):
                t = tolerance(n, k)
                self.assertLess(t, 2.4e-4)
                self.assertAlmostEqual(t / float(shown), 1, delta=0.06)
                self.assertIn(shown, text)
        self.assertAlmostEqual(tolerance(544, 514) / 2.4e-4, 1, delta=0.01)

        # Firecode (ethtool's BaseR, mlxlink's Firecode FEC): IEEE 802.3 clause 74's (2112,2080)
        # code corrects one burst of up to 11 bits per block; under independent bit errors a block
        # fails with two errors or more, unless they lie within one 11-bit span (more than two in
        # one span: negligible here). It fails, per data bit, as often as KP4 at 2.4e-4 near
        # 4e-10, far under RS(544,514): LINK_RAW_BER_HIGH's strongest-FEC bound holds for it too
        def firecode_fail_per_bit(p, n=2112, k=2080, burst=11):
            none, one = (1 - p) ** n, n * p * (1 - p) ** (n - 1)
            two_in_burst = n * (burst - 1) * p ** 2 * (1 - p) ** (n - 2)
            return (1 - none - one - two_in_burst) / k

        lo, hi = 1e-15, 1e-2
        for _ in range(200):
            mid = (lo * hi) ** 0.5
            lo, hi = (lo, mid) if firecode_fail_per_bit(mid) > ref else (mid, hi)
        self.assertLess(lo, 2.4e-5)
        self.assertAlmostEqual(lo / 4e-10, 1, delta=0.06)
        self.assertIn("fails as often as KP4 at 2.4e-4 near 4e-10", text)

    def test_ibdiag_effective_ber_alone_fires(self):
        # a real ibdiagnet effective BER of 2E-12 (above the 1e-12 objective) on a ConnectX-7 host
        # port, from a table with no error counts: the BER alone is enough, the count is shown
        # unknown; the raw BER 4E-6 is under a tenth of the strongest FEC's limit, so its verdict
        # needs the FEC the table does not record
        j = check("link-ib-cx7-ibdiag-eff-ber")
        phy = port(j, "mlx5_2")["phy"]
        self.assertEqual((phy["raw_ber"], phy["effective_ber"]), (4e-06, 2e-12))
        got = link_findings(j)
        self.assertIn(("LINK_EFFECTIVE_ERRORS", "warn", "mlx5_2/1"), got)
        self.assertIn(("LINK_RAW_BER_HIGH", "unknown", "mlx5_2/1"), got)
        f = next(f for f in j["findings"] if f["rule_id"] == "LINK_EFFECTIVE_ERRORS")
        self.assertIn("unknown number of errors left after FEC (effective BER 2e-12)", f["message"])
        ev = {e["fact"].rsplit(".", 1)[1]: e["observed"] for e in f["evidence"]}
        self.assertEqual(ev["effective_ber"], "2e-12")
        self.assertIn("absent", ev["effective_errors"])

    def test_redact_module_serial(self):
        root = hwctest.fixture("link-bf3-mlxlink-clean", "root")
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            cp = run("--root", root, "snapshot", "--redact", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            with tarfile.open(tar) as t:
                t.extractall(os.path.join(d, "r"))
            for dirpath, _, files in os.walk(os.path.join(d, "r")):
                for f in files:
                    if os.path.islink(os.path.join(dirpath, f)):
                        continue
                    with open(os.path.join(dirpath, f), "rb") as fh:
                        self.assertNotIn(b"S2202655321", fh.read(), os.path.join(dirpath, f))
            # the redacted capture still parses: same shape, the serial replaced
            j = check_root(os.path.join(d, "r"))
            mod = port(j, "mlx5_0")["module"]
            self.assertEqual(len(mod["serial_number"]), len("S2202655321-1"))
            self.assertEqual(mod["part_number"], "Q28-PC03")

    def test_module_eeprom_decoded(self):
        j = check("link-module-qsfp28-clean")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual(m["source"], "ethtool -m p1 hex on")
        self.assertEqual((m["spec"], m["identifier"], m["vendor"], m["vendor_oui"], m["part_number"]),
                         ("SFF-8636", "0x11 (QSFP28)", "Mellanox", "00:02:c9", "MMA1B00-SS1"))
        self.assertAlmostEqual(m["temperature_c"], 39.4727, places=3)
        # page 03h thresholds, as ethtool -m decoded them (module-eeprom/*.ethtool)
        self.assertEqual(m["thresholds"]["temperature_c"],
                         {"high_alarm": 80, "low_alarm": -10, "high_warning": 70, "low_warning": 0})
        self.assertAlmostEqual(m["thresholds"]["tx_bias_ma"]["low_alarm"], 5.492)
        self.assertEqual(len(m["flags"]), 8)  # Rx LOS-like low alarms on its dark lanes
        self.assertEqual([f for f in link_findings(j) if f[0].startswith("LINK_MODULE")], [])
        s = check("link-module-sfp-aoc-noddm")["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((s["spec"], s["vendor"], s["part_number"], s["media"], s["length_m"], s["ddm"]),
                         ("SFF-8472", "MikroTik", "S+AO0005", "active_cable", 5, False))
        self.assertEqual(s["unavailable"]["temperature_c"]["status"], "unsupported")

    def test_module_thresholds_fire(self):
        j = check("link-module-qsfp28-hot")
        self.assertEqual([f for f in link_findings(j) if f[0].startswith("LINK_MODULE")],
                         [("LINK_MODULE_RX_POWER_LOW", "error", "p1"),
                          ("LINK_MODULE_THRESHOLDS", "error", "p1")])
        f = {f["rule_id"]: f for f in j["findings"]}
        self.assertIn("temperature_c = 85.5 is above its high alarm (80)",
                      f["LINK_MODULE_THRESHOLDS"]["message"])
        rx = [e["fact"] for e in f["LINK_MODULE_RX_POWER_LOW"]["evidence"]]
        self.assertEqual(rx, ["netdevs[p1].link.module.rx_power_mw[0]",
                              "netdevs[p1].link.module.rx_power_mw[1]"])  # under, within 3 dB

    def test_module_no_light_fires(self):
        # a real SFP's published readings (bytes re-encoded, ethtool-proven: mk_sfp_rebuilt.py)
        j = check("link-module-sfp-lr-no-light")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((m["spec"], m["vendor"], m["part_number"], m["serial_number"]),
                         ("SFF-8472", "Transition", "TN-SFP-10G-LR", "AX19080004387"))
        self.assertEqual((m["tx_bias_ma"], m["tx_power_mw"], m["rx_power_mw"]), ([32.066], [0.5547], [0.0001]))
        self.assertEqual(m["thresholds"]["rx_power_mw"]["low_alarm"], 0.049)
        self.assertEqual(m["flags"], ["rx power low alarm", "rx power low warning"])
        # the latched Rx-power low flags are the reading's own condition: one finding (y14los)
        self.assertEqual([f for f in link_findings(j) if f[0].startswith("LINK_MODULE")],
                         [("LINK_MODULE_RX_POWER_LOW", "error", "p1")])

    def test_module_no_light_cx3pro_real_a2h(self):
        # real: the A2h page a ConnectX-3 Pro read from an SFP with no light (netdev 2024-09-05)
        j = check("link-module-sfp-cx3pro-no-light")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((m["spec"], m["ddm"], m["media"]), ("SFF-8472", True, "optical"))
        self.assertEqual((m["tx_bias_ma"], m["tx_power_mw"], m["rx_power_mw"]), ([7.66], [0.5825], [0.0001]))
        self.assertEqual(m["thresholds"]["rx_power_mw"]["low_alarm"], 0.0315)
        self.assertEqual(m["thresholds"]["temperature_c"]["high_alarm"], 85.0)
        self.assertEqual(m["flags"], ["rx power low alarm", "rx power low warning"])
        self.assertEqual([f for f in link_findings(j) if f[0].startswith("LINK_MODULE")],
                         [("LINK_MODULE_RX_POWER_LOW", "error", "eth2")])
        f = {f["rule_id"]: f for f in j["findings"]}
        self.assertIn("rx_power_mw[0] = 0.0001 mW (-40.00 dBm) is below its low alarm (0.0315 mW",
                      f["LINK_MODULE_RX_POWER_LOW"]["message"])
        # the other readings were judged against the module's thresholds (within them): no unknown
        self.assertEqual([u for u in j["summary"]["unknown"] if u["rule"].startswith("LINK_MODULE")], [])

    def test_module_bias_past_own_alarm_real_quoted(self):
        # real-quoted (y15mod): a JDSU 1000BASE-SX SFP of NVIDIA's Cumulus ethtool page, bias
        # 21.348 mA against its own 10 mA high alarm while the link carries light both ways
        j = check("link-module-sfp-jdsu-bias-high")
        m = j["facts"]["netdevs"][0]["link"]["module"]
        self.assertEqual((m["spec"], m["vendor"], m["part_number"], m["media"], m["ddm"]),
                         ("SFF-8472", "JDSU", "PLRXPL-VI-S24-22", "optical", True))
        self.assertEqual((m["tx_bias_ma"], m["tx_power_mw"], m["rx_power_mw"]), ([21.348], [0.3186], [0.3195]))
        self.assertEqual(m["thresholds"]["tx_bias_ma"]["high_alarm"], 10.0)
        self.assertEqual(m["flags"], [])  # every published flag line is Off: the module raised none
        self.assertEqual([f for f in link_findings(j) if f[0].startswith("LINK_MODULE")],
                         [("LINK_MODULE_THRESHOLDS", "error", "p1")])
        f = {f["rule_id"]: f for f in j["findings"]}["LINK_MODULE_THRESHOLDS"]
        self.assertIn("tx_bias_ma[0] = 21.348 is above its high alarm (10); the module's own tx bias high alarm flag "
                      "is off: the reading and the flag disagree", f["message"])
        # the module implements its flags (A0h byte 93 bit 7; ethtool: 'Alarm/warning flags implemented : Yes')
        self.assertEqual([(e["fact"], e["observed"], e["expected"]) for e in f["evidence"]][1:],
                         [("netdevs[p1].link.module.flags", "tx bias high alarm: off", "on (the reading is above its high alarm)")])
        self.assertEqual([e["fact"] for e in f["evidence"]][:1], ["netdevs[p1].link.module.tx_bias_ma[0]"])
        # every other reading was judged (inside its thresholds): no unknown about the module
        self.assertEqual([u for u in j["summary"]["unknown"] if u["rule"].startswith("LINK_MODULE")], [])

    def test_module_allowed_list(self):
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")

            def allowed(entries):
                with open(prof, "w") as f:
                    json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                               "allowed_modules": entries}, f)
                return [x for x in link_findings(check("link-module-qsfp28-clean", "--profile", prof))
                        if x[0] == "LINK_MODULE_NOT_ALLOWED"]
            self.assertEqual(allowed([{"vendor": "FINISAR*"}]), [("LINK_MODULE_NOT_ALLOWED", "warn", "p1")])
            self.assertEqual(allowed([{"vendor": "Mellanox", "part_number": "MMA1B00-*"}]), [])
            self.assertEqual(allowed([{"vendor": "Mellanox", "part_number": "MMA1T00-*"}]),
                             [("LINK_MODULE_NOT_ALLOWED", "warn", "p1")])
            # a bad entry is a usage error naming the file and the field
            with open(prof, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                           "allowed_modules": [{"reason": "no pattern"}]}, f)
            cp = run("--root", hwctest.fixture("link-module-qsfp28-clean", "root"), "--profile", prof)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("allowed_modules", cp.stderr)
            self.assertIn("vendor", cp.stderr)

    def test_module_round_trip(self):
        j = check("link-module-qsfp28-hot")
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "facts.json")
            with open(p, "w") as f:
                json.dump(j, f)
            cp, j2 = run_json("--facts", p, "--json")
            self.assertEqual(j2["facts"]["netdevs"], j["facts"]["netdevs"])
            self.assertEqual(link_findings(j2), link_findings(j))

    def test_redact_module_eeprom_serial(self):
        for fx, serial in (("link-module-qsfp28-clean", b"MT1834FT03846"),
                           ("link-module-sfp-aoc-noddm", b"STST050B1900001")):
            with self.subTest(fx), tempfile.TemporaryDirectory() as d:
                tar = os.path.join(d, "s.tar")
                cp = run("--root", hwctest.fixture(fx, "root"), "snapshot", "--redact", "-o", tar)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                with tarfile.open(tar) as t:
                    t.extractall(os.path.join(d, "r"))
                hexsn = " ".join(f"{c:02x}" for c in serial[:8]).encode()
                for dirpath, _, files in os.walk(os.path.join(d, "r")):
                    for f in files:
                        p = os.path.join(dirpath, f)
                        if os.path.islink(p):
                            continue
                        with open(p, "rb") as fh:
                            data = fh.read()
                        self.assertNotIn(serial, data, p)
                        self.assertNotIn(hexsn, data, p)  # not in the hex dump either
                # the redacted dump still decodes: same identity, the serial of the same shape
                m = check_root(os.path.join(d, "r"))["facts"]["netdevs"][0]["link"]["module"]
                self.assertEqual(len(m["serial_number"]), len(serial))
                self.assertNotEqual(m["serial_number"].encode(), serial)
                orig = check(fx)["facts"]["netdevs"][0]["link"]["module"]
                self.assertEqual((m["vendor"], m["part_number"]), (orig["vendor"], orig["part_number"]))

    def test_kernel_events(self):
        want = {"link-kevents-cx6-insufficient-power": ["insufficient_power"],
                "link-kevents-cx6dx-health": ["fatal", "health", "high_temperature"],
                "link-kevents-cx5-healthy": []}
        for fx, kinds in want.items():
            with self.subTest(fx):
                j = check(fx)
                ad = j["facts"]["mlx"]["adapters"][0]
                got = sorted({e["kind"] for e in ad["kernel_events"]} - {"module_unplugged"})
                self.assertEqual(got, kinds)
                sev = [f["severity"] for f in j["findings"] if f["rule_id"] == "MLX_KERNEL_EVENTS"]
                # a fatal event (the card stopped answering) is an error, the others warnings
                self.assertEqual(sev, (["error"] if "fatal" in kinds else ["warn"]) if kinds else [], j["findings"])
        ev = check("link-kevents-cx6-insufficient-power")["facts"]["mlx"]["adapters"][0]["kernel_events"][0]
        self.assertEqual((ev["time_s"], ev["bdf"]), (1.735122, "0000:04:00.0"))

    def test_round_trip(self):
        for fx in ("link-ib-cx7-linkdowned", "link-ib-restricted-pf", "net-mlx5-100g-full-stats",
                   "link-bf3-mlxlink-clean", "link-module-cx7-ndr-dac-los", "link-ib-cx6-hdr-plr-8port",
                   "link-ib-cx7-ibdiag-raw-ber", "link-ib-cx7-ibdiag-eff-ber"):
            with self.subTest(fx), tempfile.TemporaryDirectory() as d:
                j = check(fx)
                saved = os.path.join(d, "r.json")
                with open(saved, "w") as f:
                    json.dump(j, f)
                _, again = run_json("check", "--json", "--facts", saved)
                self.assertEqual(again["facts"], j["facts"])
                self.assertEqual(link_findings(again), link_findings(j))


if __name__ == "__main__":
    hwctest.main()

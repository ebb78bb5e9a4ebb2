# SPDX-License-Identifier: MIT
# Negotiated vs possible (issue 14) on the rate-* fixture roots (real captures,
# tests/link/make_rate_fixtures.py): the link modes and the module's rate as facts, the
# LINK_RATE_* findings that must and must not come out, the profile's rate, schema and round trip.
import json
import os
import subprocess
import sys
import tempfile
import unittest  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402


def check(fx, *extra):
    cp, j = run_json("--root", hwctest.fixture(fx, "root"), "--json", *extra)
    hwctest.validate(j)
    return j


def rate_findings(j):
    return sorted((f["rule_id"], f["severity"], f["subject"]) for f in j["findings"]
                  if f["rule_id"].startswith("LINK_RATE_"))


def judge_facts(j):
    # the rules on a facts document (the capture's facts, changed by a test)
    with tempfile.TemporaryDirectory() as d:
        ff = os.path.join(d, "f.json")
        with open(ff, "w") as fh:
            json.dump(j, fh)
        return run_json("--facts", ff, "--json")[1]


def check_with_products(fx, products):
    # the fixture judged against a site profile of these products[] entries
    with tempfile.TemporaryDirectory() as d:
        pf = os.path.join(d, "p.json")
        with open(pf, "w") as fh:
            json.dump({"schema": "hwcheck.profile", "schema_version": 1, "products": products}, fh)
        return check(fx, "--profile", pf)


def finding(j, rule):
    return next(f for f in j["findings"] if f["rule_id"] == rule)


class Rate(unittest.TestCase):
    def test_generator_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("tests", "link", "make_rate_fixtures.py"),
                             "--check"], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_at_card_best_does_not_fire(self):
        j = check("rate-cx5-100g-sr4-ok")
        link = j["facts"]["netdevs"][0]["link"]
        m = link["modes"]
        self.assertEqual(m["source"], "ethtool p1")
        self.assertEqual((m["supported_max_mbps"], m["advertised_max_mbps"], m["speed_mbps"]),
                         (100000, 100000, 100000))
        self.assertEqual(len(m["supported"]), 23)
        self.assertIsNone(m["partner_advertised"])
        self.assertEqual(m["unavailable"]["partner_advertised"]["status"], "unsupported")
        self.assertEqual(link["module"]["max_gbps"], 100)
        self.assertIn("byte 192 0x02", link["module"]["rate_basis"])
        self.assertEqual(rate_findings(j), [])

    def test_module_limits(self):
        j = check("rate-cx5-100g-sfp-aoc-10g")
        self.assertEqual(rate_findings(j), [("LINK_RATE_LIMITED", "info", "p1")])
        f = finding(j, "LINK_RATE_LIMITED")
        self.assertIn("card 100G, module 10G (MikroTik S+AO0005", f["message"])
        self.assertIn("the module limits", f["message"])
        facts = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertEqual(facts["netdevs[p1].link.module.max_gbps"], "10")
        self.assertEqual(facts["netdevs[p1].link.modes.speed_mbps"], "10000")

    def test_module_limits_below_profile_is_warn(self):
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1, "products": [{"match": {"product": "ConnectX-5"}, "port_rate_gbps": 100}]}, f)
            j = check("rate-cx5-100g-sfp-aoc-10g", "--profile", prof)
        self.assertIn(("LINK_RATE_LIMITED", "warn", "p1"), rate_findings(j))
        self.assertIn("the profile expects 100G", finding(j, "LINK_RATE_LIMITED")["message"])

    def test_below_possible_fires(self):
        j = check("rate-cx5-100g-below-possible")
        self.assertEqual(j["facts"]["netdevs"][0]["link"]["modes"]["partner_max_mbps"], 100000)
        self.assertEqual(rate_findings(j), [("LINK_RATE_BELOW_POSSIBLE", "warn", "p1")])
        self.assertIn("linked at 40G, below what every end supports: card 100G, module 100G",
                      finding(j, "LINK_RATE_BELOW_POSSIBLE")["message"])

    def test_own_advertisement_limits(self):
        # real: a ConnectX-3 that supports 56G and whose partner offers 56G advertises 40G only
        j = check("rate-cx3-56g-advertises-40g")
        m = j["facts"]["netdevs"][0]["link"]["modes"]
        self.assertEqual((m["supported_max_mbps"], m["advertised_max_mbps"], m["partner_max_mbps"],
                          m["speed_mbps"]), (56000, 40000, 56000, 40000))
        self.assertEqual(rate_findings(j), [("LINK_RATE_LIMITED", "info", "eth2")])
        self.assertIn("card 56G, local advertisement 40G", finding(j, "LINK_RATE_LIMITED")["message"])
        self.assertIn("the local advertisement limits", finding(j, "LINK_RATE_LIMITED")["message"])

    def test_mstlink_cable_stands_for_the_module(self):
        # real: the DGX Spark ConnectX-7 of NVIDIA's Aerial guide, enabled up to 200G, whose DAC
        # mlxlink reads as 100G at most; no `ethtool -m`: the cable's side is mstlink's
        j = check("rate-cx7-200g-dac-100g-mstlink")
        phy = j["facts"]["mlx"]["adapters"][0]["ports"][0]["phy"]
        self.assertEqual(phy["supported_cable_speed"], "0x000002f2 (100G_4X,50G_2X,40G,25G,10G,1G)")
        self.assertTrue(phy["enabled_link_speed"].startswith("0x00003ff2 (200G_2X,200G_4X,"))
        self.assertIsNone(j["facts"]["netdevs"][0]["link"]["module"])
        self.assertEqual(rate_findings(j), [("LINK_RATE_LIMITED", "info", "aerial00")])
        f = finding(j, "LINK_RATE_LIMITED")
        self.assertIn("card 200G, module 100G (mstlink Supported Cable Speed: 100G_4X,50G_2X,40G,25G,10G,1G)",
                      f["message"])
        self.assertIn("the module limits", f["message"])
        facts = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertEqual(facts["mlx.adapters[0000:01:00.0].ports[rocep1s0f0/1].phy.supported_cable_speed"],
                         phy["supported_cable_speed"])
        cp = hwctest.run("--root", hwctest.fixture("rate-cx7-200g-dac-100g-mstlink", "root"))
        self.assertIn("aerial00: 100G, card 200G, module 100G (mstlink), partner unknown", cp.stdout)

    def test_mstlink_only_ethernet_port_judged(self):
        # the real DR4 OSFP capture's ConnectX-7 port has no netdev: mstlink's Speed 400G against its
        # Enabled Link Speed (up to 400G_4X/400G_8X), the cable 400G_4X: at its best, judged silent,
        # and the report shows the speeds it judged (this port had no link-rate line before)
        fx = "link-mstlink-cx7-400g-dr4-osfp"
        j = check(fx)
        p = j["facts"]["mlx"]["adapters"][0]["ports"][0]
        self.assertIsNone(p["netdev"])
        self.assertEqual((p["phy"]["speed"], p["phy"]["supported_cable_speed"]), ("400G", "0x00012800 (400G_4X,200G_2X,100G_1X)"))
        self.assertEqual(rate_findings(j), [])
        cp = hwctest.run("--root", hwctest.fixture(fx, "root"))
        line = " ".join(cp.stdout.split())
        self.assertIn("ok link rate mlx5_0/1 (no netdev): mstlink 400G 4x, enabled 400G_4X,400G_8X,", line)
        # looked at, not skipped: a profile that expects 800 Gb/s of this card gets a warning
        # naming the enabled speeds; and the same facts with the link at 200G on a cable that
        # stops at 200G (the capture's values changed here, not captured) name the cable
        with tempfile.TemporaryDirectory() as d:
            pf = os.path.join(d, "p.json")
            with open(pf, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                           "products": [{"match": {"generation": "ConnectX-7"}, "port_rate_gbps": 800}]}, f)
            k = check(fx, "--profile", pf)
            self.assertEqual(rate_findings(k), [("LINK_RATE_LIMITED", "warn", "mlx5_0/1")])
            self.assertIn("linked at 400G, the best this port enables", finding(k, "LINK_RATE_LIMITED")["message"])
            p["phy"]["speed"] = "200G"
            p["phy"]["supported_cable_speed"] = "0x00003000 (200G_2X,200G_4X)"
            ff = os.path.join(d, "f.json")
            with open(ff, "w") as f:
                json.dump(j, f)
            cp, k = run_json("--facts", ff, "--json")
        self.assertEqual(rate_findings(k), [("LINK_RATE_LIMITED", "info", "mlx5_0/1")])
        f = finding(k, "LINK_RATE_LIMITED")
        self.assertIn("linked at 200G, below the 400G this port enables: the cable limits: rated up to 200G", f["message"])
        self.assertIn("the only source: no netdev", f["message"])
        self.assertIn("`mstlink -d 0000:c1:00.0 -m`", f["fix"])
        # LINK_RATE_BELOW_POSSIBLE judges the same mstlink facts: silent above (the cable explains
        # 200G); at 200G on a cable rated 400G the partner would say, and without a netdev its
        # advertisement is not read: unknown naming the missing netdev (it was silent: not judged)
        p["phy"]["supported_cable_speed"] = "0x00012800 (400G_4X,200G_2X,100G_1X)"
        with tempfile.TemporaryDirectory() as d:
            ff = os.path.join(d, "f.json")
            with open(ff, "w") as f:
                json.dump(j, f)
            cp, k = run_json("--facts", ff, "--json")
        self.assertEqual(rate_findings(k), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "unknown", "mlx5_0/1")])
        ev = finding(k, "LINK_RATE_BELOW_POSSIBLE")["evidence"][0]
        self.assertTrue(ev["fact"].endswith("ports[mlx5_0/1].netdev"), ev)
        self.assertIn("the partner's advertisement is ethtool's, and no netdev shows this port", ev["expected"])

    def test_mstlink_only_port_without_enabled_speeds(self):
        # the real-quoted 400G bad-signal capture printed no 'Enabled Link Speed' line: both rate
        # rules say so (LINK_RATE_BELOW_POSSIBLE was silent on this mstlink-only port)
        j = check("link-mstlink-400g-bad-signal")
        self.assertEqual(rate_findings(j), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "unknown", "mlx5_0/1")])
        self.assertIn("phy.enabled_link_speed is unknown (absent: mstlink printed no 'Enabled Link Speed' line)",
                      finding(j, "LINK_RATE_BELOW_POSSIBLE")["message"])

    def test_mstlink_only_ib_lane_rate_judged(self):
        # the real 8-port HDR capture: no PortInfo (smpquery not in it), mstlink Speed IB-HDR, enabled
        # up to HDR, cable up to HDR: the lane rate is judged at its best from mstlink; the width
        # (2x of a 4x port) needs PortInfo's LinkWidthEnabled, so each port stays unknown, saying so
        fx = "link-ib-cx6-hdr-plr-8port"
        j = check(fx)
        got = rate_findings(j)
        self.assertEqual(len(got), 16)
        self.assertEqual({(r, s) for r, s, _ in got}, {("LINK_RATE_LIMITED", "unknown"), ("LINK_RATE_BELOW_POSSIBLE", "unknown")})
        f = next(f for f in j["findings"] if f["rule_id"] == "LINK_RATE_LIMITED" and f["subject"] == "mlx5_0/1")
        self.assertTrue(f["evidence"][0]["fact"].endswith("ports[mlx5_0/1].portinfo"))
        self.assertIn("its lane rate, HDR, is the best it enables: mstlink Speed IB-HDR", f["evidence"][0]["expected"])
        # LINK_RATE_BELOW_POSSIBLE judges the same mstlink facts and names what is missing: the width
        b = next(f for f in j["findings"] if f["rule_id"] == "LINK_RATE_BELOW_POSSIBLE" and f["subject"] == "mlx5_0/1")
        self.assertTrue(b["evidence"][0]["fact"].endswith("ports[mlx5_0/1].portinfo"), b["evidence"])
        self.assertIn("whether the width (2x) is the best both ends enable (its lane rate, HDR, is the best this port enables",
                      b["evidence"][0]["expected"])
        cp = hwctest.run("--root", hwctest.fixture(fx, "root"))
        line = " ".join(cp.stdout.split())
        self.assertIn("PortInfo unknown (smpquery: not in this capture); mstlink IB-HDR 2x, enabled HDR,EDR,FDR,QDR,SDR, "
                      "cable HDR,EDR,FDR,FDR10,QDR,DDR,SDR", line)

    def test_cx5_ib_sdr_cable_limits_real(self):
        # the real ConnectX-5 at 4X SDR (bluebanquise's mlxlink): Enabled Link Speed and Supported
        # Cable Speed both SDR, no PortInfo. Both rate rules said unknown ("portinfo is unknown");
        # now the card's side is the identity table's floor (every InfiniBand ConnectX-5 board runs
        # EDR lanes) and the cable, rated SDR only, limits: info, naming the cable and the figure
        fx = "link-mstlink-cx5-ib-sdr-cable-speed"
        j = check(fx)
        ad = j["facts"]["mlx"]["adapters"][0]
        self.assertEqual(ad["ib_lane_floor_gbps"], 25.78125)
        self.assertEqual(rate_findings(j), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "info", "mlx5_0/1")])
        f = finding(j, "LINK_RATE_LIMITED")
        self.assertEqual(f["message"], "linked at 4x SDR (10 Gb/s), below the EDR lanes that every InfiniBand ConnectX-5 "
                         "board supports (hwcheck's identity table: the line's floor, not this board's own capability): "
                         "the cable limits: rated up to SDR (mstlink Supported Cable Speed 0x00000001 (SDR)), and the "
                         "firmware enables SDR only (Enabled Link Speed 0x00000001 (SDR); mstlink the only source: no PortInfo)")
        ev = {e["fact"]: e["observed"] for e in f["evidence"]}
        self.assertEqual(ev["mlx.adapters[0000:5e:00.0].ib_lane_floor_gbps"], "25.78125")
        self.assertEqual(ev["mlx.adapters[0000:5e:00.0].ports[mlx5_0/1].phy.supported_cable_speed"], "0x00000001 (SDR)")
        self.assertIn("replace the cable with one rated for EDR (`mstlink -d 0000:5e:00.0 -m`", f["fix"])
        # the width is still PortInfo's: LINK_RATE_BELOW_POSSIBLE says so
        self.assertIn("whether the width (4x) is the best both ends enable",
                      finding(j, "LINK_RATE_BELOW_POSSIBLE")["evidence"][0]["expected"])
        # a profile that expects 100 Gb/s of a ConnectX-5 makes it a warning
        k = check_with_products(fx, [{"match": {"generation": "ConnectX-5"}, "port_rate_gbps": 100}])
        self.assertEqual(rate_findings(k), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "warn", "mlx5_0/1")])
        self.assertIn("; the profile expects 100 Gb/s", finding(k, "LINK_RATE_LIMITED")["message"])
        # a cable rated for more (the capture's values changed here): who narrowed the enabled speeds
        # is PortInfo's: unknown, saying so; the card report's line shows the card's floor
        p = j["facts"]["mlx"]["adapters"][0]["ports"][0]
        p["phy"]["supported_cable_speed"] = "0x0000003f (EDR,FDR,FDR10,QDR,DDR,SDR)"
        k = judge_facts(j)
        self.assertEqual(rate_findings(k), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "unknown", "mlx5_0/1")])
        self.assertIn("the firmware enables SDR only (mstlink Enabled Link Speed 0x00000001 (SDR)) and the cable is rated "
                      "for more", finding(k, "LINK_RATE_LIMITED")["evidence"][0]["expected"])
        line = [c["reason"] for card in k["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(line, ["mlx5_0/1: PortInfo unknown (smpquery: not in this capture); mstlink IB-SDR 4x, enabled SDR, "
                                "cable EDR,FDR,FDR10,QDR,DDR,SDR, card 25.78125 Gb/s lanes at least (every InfiniBand "
                                "ConnectX-5 board)"])
        # without the figure (a line the table gives none for, or facts from before it): unknown, as before
        p["phy"]["supported_cable_speed"] = "0x00000001 (SDR)"
        j["facts"]["mlx"]["adapters"][0]["ib_lane_floor_gbps"] = None
        k = judge_facts(j)
        self.assertEqual(rate_findings(k), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "mlx5_0/1"),
                                            ("LINK_RATE_LIMITED", "unknown", "mlx5_0/1")])

    def test_ib_rate_line_says_what_is_unknown(self):
        # field-ports-cx6-ib-disabled's active port: PortInfo has the active rate and width but no
        # LinkSpeedEnabled/LinkWidthEnabled, and no peer: the line says so in words (it said
        # "enabled here unknown x unknown")
        cp = hwctest.run("--root", hwctest.fixture("field-ports-cx6-ib-disabled", "root"), "--json")
        j = json.loads(cp.stdout)
        line = [(c["verdict"], c["reason"]) for card in j["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(line, [("unknown", "mlx5_0/1: 4X at 53.125 Gb/s a lane; the speeds and widths this port enables "
                                 "unknown (smpquery printed no LinkSpeedEnabled; smpquery printed no LinkWidthEnabled); "
                                 "what the peer enables unknown (smpquery: not in this capture)")])
        # one list known, the other not: the known one shown, the other named with why
        with tempfile.TemporaryDirectory() as d:
            pi = j["facts"]["mlx"]["adapters"][0]["ports"][0]["portinfo"]
            pi["speeds_enabled_gbps"] = [2.5, 10, 25.78125, 53.125]
            del pi["unavailable"]["speeds_enabled_gbps"]
            ff = os.path.join(d, "f.json")
            with open(ff, "w") as f:
                json.dump(j, f)
            cp, k = run_json("--facts", ff, "--json")
        line = [(c["verdict"], c["reason"]) for card in k["cards"] for c in card["checks"] if c["item"] == "port_rate"]
        self.assertEqual(line, [("unknown", "mlx5_0/1: 4X at 53.125 Gb/s a lane; enabled here 2.5, 10, 25.78125, 53.125 "
                                 "Gb/s lanes, the widths this port enables unknown (smpquery printed no LinkWidthEnabled); "
                                 "what the peer enables unknown (smpquery: not in this capture)")])

    def test_unknown_sides_named(self):
        j = check("rate-cx5-100g-no-module")
        self.assertEqual(rate_findings(j), [("LINK_RATE_BELOW_POSSIBLE", "unknown", "p1")])
        facts = [e["fact"] for e in finding(j, "LINK_RATE_BELOW_POSSIBLE")["evidence"]]
        self.assertIn("netdevs[p1].link.module.max_gbps", facts)
        self.assertIn("netdevs[p1].link.modes.partner_max_mbps", facts)

    def test_facts_round_trip(self):
        j = check("rate-cx5-100g-below-possible")
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.json")
            with open(p, "w") as f:
                json.dump(j, f)
            cp, k = run_json("--facts", p, "--json", "facts")
        self.assertEqual(k["facts"]["netdevs"][0]["link"]["modes"], j["facts"]["netdevs"][0]["link"]["modes"])


if __name__ == "__main__":
    hwctest.main()

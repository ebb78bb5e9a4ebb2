# SPDX-License-Identifier: MIT
# facts.roce on the roce-* fixtures (built from the real mlnx_qos/show_gids capture by
# tests/roce/mkfixtures.py): every link of the chain read, schema, facts round trip, snapshot replay.
import json
import os
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

FIXTURES = ("roce-lossless-ok", "roce-lossless-dcb", "roce-pfc-off-roce-prio", "roce-ecn-off",
            "roce-cnp-lossless", "roce-no-v2-gid", "roce-tos-lossy", "roce-pause-storm",
            "roce-ports-differ", "net-cx4lx-roce-lag-lossless", "net-cx4lx-roce-lag-member-pfc-off")
LAG_OK, LAG_PFC_OFF = "net-cx4lx-roce-lag-lossless", "net-cx4lx-roce-lag-member-pfc-off"


def facts(fx, *extra):
    cp, j = run_json("--root", hwctest.fixture(fx, "root"), "facts", "--json", *extra)
    if j is None:
        raise AssertionError(f"{fx}: exit {cp.returncode}: {cp.stderr}")
    return j


def ports(fx):
    return facts(fx)["facts"]["roce"]["ports"]


class Facts(unittest.TestCase):
    def test_captured_port(self):
        p = ports("roce-lossless-ok")[0]
        self.assertEqual((p["rdma_device"], p["port"], p["netdev"], p["bdf"], p["fw_port"]),
                         ("mlx5_0", 1, "mce0", "0001:43:00.0", 1))
        q = p["qos"]
        self.assertEqual((q["source"], q["dcbx_mode"], q["trust"]), ("mlnx_qos", "firmware", "dscp"))
        self.assertEqual(q["dscp2prio"], [d >> 3 for d in range(64)])
        self.assertEqual(q["pfc_enabled"], [False, False, False, True, False, False, False, False])
        self.assertEqual(q["prio_tc"], [0, 0, 0, 3, 0, 0, 6, 0])
        self.assertEqual(q["tc_bw"][0], 50)
        self.assertEqual(q["tc_bw"][3], 50)
        self.assertEqual(q["tc_tsa"][6], "vendor")
        self.assertEqual(q["prio_buffer"], [0, 0, 0, 1, 0, 0, 0, 0])
        self.assertEqual([(g["index"], g["type"]) for g in p["gids"]],
                         [(0, "IB/RoCE v1"), (1, "RoCE v2"), (2, "IB/RoCE v1"), (3, "RoCE v2")])
        self.assertEqual(p["roce_v2_gid_index"], 3)  # 192.168.6.132 v2, as show_gids said
        self.assertEqual((p["default_roce_tos"], p["default_roce_tos_source"]), (106, "configfs"))
        self.assertEqual(p["congestion"]["cnp_dscp"], 48)
        self.assertEqual(p["congestion"]["cnp_source"], "sysfs")
        self.assertEqual(p["congestion"]["unavailable"]["cc_prio_mask"]["status"], "absent")
        self.assertEqual(p["ecn"]["np_enabled"], [True] * 8)
        c = p["counters"]
        self.assertEqual(c["rx_prio_pause"][3], 142)
        self.assertIsNone(c["rx_prio_pause"][0])  # mlx5 lists pause counters of PFC priorities only
        self.assertEqual(c["tx_pause_storm_error_events"], 0)
        self.assertEqual(ports("roce-lossless-ok")[1]["fw_port"], 2)  # the second PF is _P2

    def test_dcb_and_mlnx_qos_agree(self):
        a, b = ports("roce-lossless-ok")[0]["qos"], ports("roce-lossless-dcb")[0]["qos"]
        self.assertEqual(b["source"], "dcb")
        for k in ("dcbx_mode", "trust", "dscp2prio", "pfc_enabled", "prio_tc", "prio_buffer"):
            self.assertEqual(a[k], b[k], k)

    def test_pcp_port(self):
        q = ports("roce-ports-differ")[1]["qos"]
        self.assertEqual(q["trust"], "pcp")
        self.assertIsNone(q["dscp2prio"])
        self.assertIn("trusts pcp", q["unavailable"]["dscp2prio"]["detail"])
        self.assertEqual(q["pfc_enabled"], [False] * 8)

    def test_no_tools_say_why(self):
        # the mlx-cx6-ports root recorded no dcb and no mlnx_qos: both reasons are named
        p = facts("mlx-cx6-ports")["facts"]["roce"]["ports"][0]
        d = p["qos"]["unavailable"]["source"]["detail"]
        self.assertIn("dcb", d)
        self.assertIn("mlnx_qos", d)
        self.assertIsNone(p["gids"])
        self.assertEqual(p["unavailable"]["gids"]["status"], "absent")

    def test_broken_outputs(self):
        import shutil
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(hwctest.fixture("roce-lossless-dcb", "root"), root, symlinks=True)
            cmd = os.path.join(root, "hwcheck", "commands")
            with open(os.path.join(cmd, "dcb -j pfc show dev mce0", "stdout"), "w") as f:
                f.write('{"prio_pfc":[true,"x"')
            with open(os.path.join(cmd, "dcb -j ets show dev mce1", "stdout"), "w") as f:
                f.write('{"prio_tc":[0,0,0,9,0,0,0,0],"tc_bw":[],"tc_tsa":[]}')
            os.makedirs(os.path.join(cmd, "mlnx_qos -i mce0"))
            with open(os.path.join(cmd, "mlnx_qos -i mce0", "stdout"), "w") as f:
                f.write("\x00\xffnothing mlnx_qos prints\n")
            cp, j = run_json("--root", root, "facts", "--json")
            self.assertEqual(cp.returncode, 0, cp.stderr)
            errs = {(e["subject"], e["message"]) for e in j["errors"]}
            self.assertIn(("dcb -j pfc show dev mce0", "output not understood (expected dcb's JSON)"), errs)
            self.assertIn(("dcb -j ets show dev mce1", "output not understood (expected dcb's JSON)"), errs)
            self.assertIn(("mlnx_qos -i mce0", "output not understood (expected mlnx_qos text)"), errs)
            p0, p1 = j["facts"]["roce"]["ports"]
            self.assertEqual(p0["qos"]["unavailable"]["pfc_enabled"]["status"], "invalid")
            self.assertIn("not JSON", p0["qos"]["unavailable"]["pfc_enabled"]["detail"])
            self.assertEqual(p0["qos"]["trust"], "dscp")  # the other answers still count
            self.assertEqual(p1["qos"]["unavailable"]["prio_tc"]["status"], "invalid")
            self.assertEqual(p1["qos"]["pfc_enabled"][3], True)

    def test_schema_round_trip(self):
        for fx in FIXTURES:
            with self.subTest(fx):
                j = facts(fx)
                hwctest.validate(j)
                with tempfile.NamedTemporaryFile("w", suffix=".json") as t:
                    json.dump(j, t)
                    t.flush()
                    k = run_json("--facts", t.name, "facts", "--json")[1]
                self.assertEqual(k["facts"]["roce"], j["facts"]["roce"])

    def test_snapshot_replays(self):
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            run("--root", hwctest.fixture("roce-lossless-ok", "root"), "snapshot", "-o", tar, check=0)
            with tarfile.open(tar) as t:
                t.extractall(os.path.join(d, "r"))  # our own snapshot
            j = run_json("--root", os.path.join(d, "r"), "facts", "--json")[1]
        self.assertEqual(j["facts"]["roce"], facts("roce-lossless-ok")["facts"]["roce"])


def roce_findings(fx, *extra):
    cp, j = run_json("--root", hwctest.fixture(fx, "root"), "--json", *extra)
    if j is None:
        raise AssertionError(f"{fx}: exit {cp.returncode}: {cp.stderr}")
    return [f for f in j["findings"] if f["rule_id"].startswith("ROCE_")]


def profile():
    return hwctest.source("tests", "roce", "fabric-profile.json")

# fixture -> the ROCE_* findings (rule, severity, subject), without and with the fabric profile
EXPECT = {
    "roce-lossless-ok": ([], []),
    "roce-lossless-dcb": ([], []),
    "roce-pfc-off-roce-prio": (
        [("ROCE_TOS_OUTSIDE_LOSSLESS", "warn", "mce0"), ("ROCE_TOS_OUTSIDE_LOSSLESS", "warn", "mce1")],
        [("ROCE_PFC_OFF_LOSSLESS", "error", "mce0"), ("ROCE_PFC_OFF_LOSSLESS", "error", "mce1"),
         ("ROCE_PFC_UNUSED_PRIO", "warn", "mce0"), ("ROCE_PFC_UNUSED_PRIO", "warn", "mce1")]),
    "roce-ecn-off": ([("ROCE_ECN_OFF", "warn", "mce0"), ("ROCE_ECN_OFF", "warn", "mce1")],) * 2,
    "roce-cnp-lossless": ([("ROCE_CNP_IN_LOSSLESS_CLASS", "warn", "mce0")] * 2 +
                          [("ROCE_CNP_IN_LOSSLESS_CLASS", "warn", "mce1")] * 2,) * 2,
    "roce-no-v2-gid": ([("ROCE_NO_V2_GID", "warn", "mce0"), ("ROCE_NO_V2_GID", "warn", "mce1")],) * 2,
    "roce-tos-lossy": ([("ROCE_TOS_OUTSIDE_LOSSLESS", "warn", "mce0"),
                        ("ROCE_TOS_OUTSIDE_LOSSLESS", "warn", "mce1")],) * 2,
    "roce-pause-storm": ([("ROCE_LOSSLESS_DROPS", "warn", "mce0"), ("ROCE_LOSSLESS_DROPS", "warn", "mce1"),
                          ("ROCE_PAUSE_STORM", "error", "mce0"), ("ROCE_PAUSE_STORM", "error", "mce1")],) * 2,
    "roce-ports-differ": (
        [("ROCE_PORTS_DIFFER", "warn", "mce1")] * 2,
        [("ROCE_PFC_OFF_LOSSLESS", "error", "mce1"), ("ROCE_PORTS_DIFFER", "warn", "mce1"),
         ("ROCE_PORTS_DIFFER", "warn", "mce1"), ("ROCE_TRUST_MISMATCH", "warn", "mce1")]),
    # RoCE LAG (mlx5_bond_0 over bond0 = eth01 + eth02): judged member by member
    LAG_OK: ([], []),
    LAG_PFC_OFF: ([("ROCE_PORTS_DIFFER", "warn", "eth02")],
                  [("ROCE_PFC_OFF_LOSSLESS", "error", "eth02"), ("ROCE_PORTS_DIFFER", "warn", "eth02")]),
}


class Rules(unittest.TestCase):
    def test_each_broken_link_fires_its_rule(self):
        for fx, (plain, fabric) in EXPECT.items():
            for extra, want in (((), plain), (("--profile", profile()), fabric)):
                with self.subTest(fx=fx, profile=bool(extra)):
                    got = roce_findings(fx, *extra)
                    self.assertEqual(sorted((f["rule_id"], f["severity"], f["subject"]) for f in got),
                                     sorted(want), json.dumps(got, indent=1)[:3000])
                    for f in got:  # the port, the value seen and the value expected
                        self.assertTrue(f["evidence"])
                        for e in f["evidence"]:
                            self.assertTrue(e["fact"].startswith("roce.ports["), e)
                            self.assertTrue(e["observed"] and e["expected"], e)

    def test_consistency_names_the_odd_port(self):
        f = roce_findings("roce-ports-differ")
        ev = {e["fact"]: (e["observed"], e["expected"]) for x in f for e in x["evidence"]}
        self.assertEqual(ev["roce.ports[mce1].qos.trust"], ("pcp", "dscp"))
        self.assertEqual(ev["roce.ports[mce1].qos.pfc_enabled"], ("none", "on 3"))

    def test_merge_shows_fleet_disagreement(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for fx in ("roce-lossless-ok", "roce-lossless-dcb", "roce-pfc-off-roce-prio"):
                j = run_json("--root", hwctest.fixture(fx, "root"), "--json")[1]
                paths.append(os.path.join(d, fx + ".json"))
                with open(paths[-1], "w") as f:
                    json.dump(j, f)
            cp, m = run_json("merge", "--json", *paths)
            hwctest.validate(m)
            roce = {r["key"]: r for r in m["roce"]}
            pfc = roce["qos.pfc_enabled"]
            self.assertTrue(pfc["spread"])
            vals = {v["shown"]: (v["ports"], sorted({w["host"] for w in v["where"]})) for v in pfc["values"]}
            self.assertEqual(vals, {"on 3": (4, ["roce-lossless-dcb", "roce-lossless-ok"]),
                                    "on 4": (2, ["roce-pfc-off-roce-prio"])})
            self.assertFalse(roce["qos.trust"]["spread"])
            text = run("merge", *paths).stdout
            self.assertIn("qos.pfc_enabled DIFFERS: on 3 (4 ports) | on 4 (2 ports: "
                          "roce-pfc-off-roce-prio mce0, roce-pfc-off-roce-prio mce1)", text)

    def test_unknown_not_pass(self):
        # no dcb, no mlnx_qos, no sysfs RoCE files: every chain rule that applies is unknown
        cp, j = run_json("--root", hwctest.fixture("mlx-cx6-ports", "root"), "--json",
                         "--profile", profile())
        roce = [f for f in j["findings"] if f["rule_id"].startswith("ROCE_")]
        self.assertTrue(roce)
        self.assertTrue(all(f["severity"] == "unknown" for f in roce), roce)
        self.assertIn("ROCE_PFC_OFF_LOSSLESS", {f["rule_id"] for f in roce})


class Lag(unittest.TestCase):
    """A RoCE LAG port: its QoS, ECN, CNP and pause counters are its bond members' (mlx5 keeps
    them per PF netdev; the bond has none), each member judged, the bond named."""

    def test_members_hold_the_chain(self):
        (p,) = ports(LAG_OK)
        self.assertEqual((p["rdma_device"], p["port"], p["netdev"], p["bdf"]),
                         ("mlx5_bond_0", 1, "bond0", "0000:3b:00.0"))
        # the bond is not asked: its facts say where they are
        self.assertIsNone(p["qos"]["pfc_enabled"])
        u = p["qos"]["unavailable"]["pfc_enabled"]
        self.assertEqual(u["status"], "unsupported")
        self.assertIn("bond0 is a bond (RoCE LAG)", u["detail"])
        self.assertIsNone(p["ecn"]["np_enabled"])
        self.assertIsNone(p["counters"]["rx_prio_pause"])
        # what the RDMA port holds stays on the port (the real hw_counters of mlx5_bond_0/1)
        self.assertEqual(p["counters"]["out_of_sequence"], 0)
        self.assertEqual(p["roce_v2_gid_index"], 3)  # 10.16.87.224, RoCE v2
        self.assertEqual(p["default_roce_tos"], 106)
        m = {x["netdev"]: x for x in p["members"]}
        self.assertEqual(list(m), ["eth01", "eth02"])  # the bond's order
        self.assertEqual([(x["bdf"], x["fw_port"]) for x in m.values()],
                         [("0000:3b:00.0", 1), ("0000:3b:00.1", 2)])
        for x in m.values():
            self.assertEqual((x["qos"]["source"], x["qos"]["trust"]), ("mlnx_qos", "dscp"))
            self.assertEqual(x["qos"]["pfc_enabled"], [False, False, False, True, False, False, False, False])
            self.assertEqual(x["ecn"]["np_enabled"], [True] * 8)
            self.assertEqual((x["congestion"]["cnp_dscp"], x["congestion"]["cnp_source"]), (48, "sysfs"))
            self.assertEqual(x["counters"]["rx_prio_pause"][3], 142)
            self.assertNotIn("out_of_sequence", x["counters"])  # the RDMA port's, not the member's
        self.assertEqual(ports(LAG_PFC_OFF)[0]["members"][1]["qos"]["pfc_enabled"], [False] * 8)

    def test_only_lag_ports_have_members(self):
        for p in ports("roce-lossless-ok"):
            self.assertNotIn("members", p)

    def test_member_without_pfc_fires_naming_its_bond(self):
        (f,) = [x for x in roce_findings(LAG_PFC_OFF, "--profile", profile())
                if x["rule_id"] == "ROCE_PFC_OFF_LOSSLESS"]
        self.assertEqual(f["subject"], "eth02")
        self.assertIn("member of bond0, the RoCE LAG of mlx5_bond_0", f["message"])
        self.assertEqual([(e["fact"], e["observed"], e["expected"]) for e in f["evidence"]],
                         [("roce.ports[bond0].members[eth02].qos.pfc_enabled[3]", "false", "true")])
        self.assertIn("mlnx_qos -i eth02", f["fix"])

    def test_members_compared(self):
        (f,) = [x for x in roce_findings(LAG_PFC_OFF) if x["rule_id"] == "ROCE_PORTS_DIFFER"]
        ev = {e["fact"]: (e["observed"], e["expected"]) for e in f["evidence"]}
        self.assertEqual(ev, {"roce.ports[bond0].members[eth02].qos.pfc_enabled": ("none", "on 3")})

    def test_port_line_agrees_with_ports_differ(self):
        # the finding is the differing port's, so its card's RoCE line shows it; the ports that
        # agree with the majority stay ok (was: every RoCE line ok beside a "host" warning)
        for fx, want in ((LAG_PFC_OFF, {"bond0": ("warn", ["ROCE_PORTS_DIFFER"])}),
                         ("roce-ports-differ", {"mce0": ("ok", []), "mce1": ("warn", ["ROCE_PORTS_DIFFER"])})):
            with self.subTest(fx=fx):
                _, j = run_json("--root", hwctest.fixture(fx, "root"), "--json")
                got = {ck["subject"]: (ck["verdict"], ck["rules"]) for card in j["cards"]
                       for ck in card["checks"] if ck["item"] == "port_roce"}
                self.assertEqual(got, want)
                text = run("--root", hwctest.fixture(fx, "root"), "--no-color", check=None).stdout
                self.assertRegex(text, r"warn +RoCE +.*PFC off.*\s+\[ROCE_PORTS_DIFFER\]")

    def test_unknown_member_is_unknown(self):
        # net-cx4lx-roce-lag-down recorded no mlnx_qos: each member is unknown, never a pass
        f = roce_findings("net-cx4lx-roce-lag-down", "--profile", profile())
        pfc = sorted((x["subject"], x["severity"]) for x in f if x["rule_id"] == "ROCE_PFC_OFF_LOSSLESS")
        self.assertEqual(pfc, [("eth01", "unknown"), ("eth02", "unknown")])
        tos = [e["fact"] for x in f if x["rule_id"] == "ROCE_TOS_OUTSIDE_LOSSLESS" for e in x["evidence"]]
        self.assertEqual(set(tos), {"roce.ports[bond0].default_roce_tos"})  # the RDMA port's

    def test_cards_show_the_members_tuning(self):
        cp, j = run_json("--root", hwctest.fixture(LAG_OK, "root"), "--json")
        (card,) = j["cards"]
        c = {ck["item"]: ck for ck in card["checks"] if ck.get("subject") == "bond0"}
        self.assertEqual(c["port_tuning"]["value"], "eth01: rx ring 1024 of 8192, 12 channels, LRO off; "
                                                    "eth02: rx ring 1024 of 8192, 12 channels, LRO off")
        self.assertNotIn("no netdev facts", json.dumps(card))
        text = run("--root", hwctest.fixture(LAG_OK, "root"), check=1).stdout  # NET_ROCE_MTU_SMALL
        self.assertIn("eth01: rx ring 1024 of 8192", text)

    def test_cards_put_roce_findings_on_their_port(self):
        # each port's RoCE findings on its own "RoCE" line, never on an "other" line after every
        # port where nothing says which port a "pause storm" line is about
        j = run_json("--root", hwctest.fixture("roce-pause-storm", "root"), "--json")[1]
        (card,) = j["cards"]
        self.assertEqual([c for c in card["checks"] if c["item"] == "other"], [])
        roce = {c["subject"]: c for c in card["checks"] if c["item"] == "port_roce"}
        self.assertEqual(sorted(roce), ["mce0", "mce1"])
        for nd, c in roce.items():
            self.assertEqual((c["label"], c["verdict"]), ("RoCE", "error"), nd)
            self.assertEqual(c["rules"], ["ROCE_PAUSE_STORM", "ROCE_LOSSLESS_DROPS"], nd)
            self.assertEqual(c["value"], nd + ": trust dscp, PFC on 3, ToS 106")
        # a LAG port's line: each member's chain (the bond has none of its own)
        j = run_json("--root", hwctest.fixture(LAG_PFC_OFF, "root"), "--json")[1]
        (c,) = [c for c in j["cards"][0]["checks"] if c["item"] == "port_roce"]
        self.assertEqual(c["value"], "eth01: trust dscp, PFC on 3, ToS 106; eth02: trust dscp, PFC off, ToS 106")
        # an InfiniBand port has no RoCE line
        j = run_json("--root", hwctest.fixture("link-ib-clean", "root"), "--json")[1]
        self.assertEqual([c for c in j["cards"][0]["checks"] if c["item"] == "port_roce"], [])

    def test_cards_other_line_names_subject_and_rule(self):
        # a finding no line claims: its line says whose it is and which rule could not decide
        fx = hwctest.fixture("mlx-bf2-functions", "root")
        j = run_json("--root", fx, "--json")[1]
        (o,) = [c for c in j["cards"][0]["checks"] if c["item"] == "other"]
        self.assertEqual((o["verdict"], o["rules"], o["undecided"]), ("unknown", ["NET_PORT_DOWN"], ["NET_PORT_DOWN"]))
        text = " ".join(run("--root", fx, "--no-color", check=None).stdout.split())
        self.assertIn("other 0000:06:00.0: unknown (no port is known: ", text)
        self.assertRegex(text, r"other 0000:06:00\.0: unknown \(.*\); undecided NET_PORT_DOWN")

    def test_merge_counts_members(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for fx in (LAG_OK, LAG_PFC_OFF):
                j = run_json("--root", hwctest.fixture(fx, "root"), "--json")[1]
                paths.append(os.path.join(d, fx + ".json"))
                with open(paths[-1], "w") as f:
                    json.dump(j, f)
            m = run_json("merge", "--json", *paths)[1]
            pfc = {r["key"]: r for r in m["roce"]}["qos.pfc_enabled"]
            vals = {v["shown"]: sorted((os.path.basename(w["host"]), w["port"]) for w in v["where"])
                    for v in pfc["values"]}
            self.assertEqual(vals["none"], [(LAG_PFC_OFF + ".json", "eth02")])
            self.assertEqual(len(vals["on 3"]), 3)
            tos = {r["key"]: r for r in m["roce"]}["default_roce_tos"]
            self.assertEqual([v["ports"] for v in tos["values"]], [4])  # the LAG port's, per member

    def test_lag_snapshot_replays(self):
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            run("--root", hwctest.fixture(LAG_OK, "root"), "snapshot", "-o", tar, check=0)
            with tarfile.open(tar) as t:
                t.extractall(os.path.join(d, "r"))
            j = run_json("--root", os.path.join(d, "r"), "facts", "--json")[1]
        self.assertEqual(j["facts"]["roce"], facts(LAG_OK)["facts"]["roce"])


if __name__ == "__main__":
    hwctest.main()

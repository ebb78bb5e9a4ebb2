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
            "roce-ports-differ")


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
        [("ROCE_PORTS_DIFFER", "warn", "host")] * 2,
        [("ROCE_PFC_OFF_LOSSLESS", "error", "mce1"), ("ROCE_PORTS_DIFFER", "warn", "host"),
         ("ROCE_PORTS_DIFFER", "warn", "host"), ("ROCE_TRUST_MISMATCH", "warn", "mce1")]),
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


if __name__ == "__main__":
    hwctest.main()

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


if __name__ == "__main__":
    hwctest.main()

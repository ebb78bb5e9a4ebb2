# SPDX-License-Identifier: MIT
# Dark lanes of a module read by mstlink (issue 14): the same judgement as ethtool -m's decoding
# (core/query.c hwc_q_lane_dark, hwc_q_port_module_lanes): lanes without bias and light (mstlink
# prints no light as -40 dBm: mlxlink getPower) are not in use on a port that is down, and not
# measurements on a live link that needs them (the module line and LINK_MODULE_* unknown, the card
# JSON's dark_lanes/unmeasured_lanes), never "bias 0 outside [40..480]". On the real mstlink answer
# of tests/fixtures/link-mstlink-cx7-400g-dr4-osfp (a live 400G 4x DR4 port, no netdev), its lane
# readings replaced (RECONSTRUCTED: as mstlink prints lanes without light).
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import read_text, run_json, write_text  # noqa: E402

FX = "link-mstlink-cx7-400g-dr4-osfp"
KEY = "hwcheck/commands/mstlink -d 0000:c1:00.0 -m -c/stdout"
PORT = "sys/class/infiniband/mlx5_0/ports/1"


def variant(d, lanes, state=None):
    """The fixture's root with mstlink's bias/Rx/Tx lines of lanes replaced ({lane: (bias, rx, tx)},
    0-based) and the port's state (state, phys_state) when given."""
    root = os.path.join(d, "root")
    shutil.copytree(hwctest.fixture(FX, "root"), root, symlinks=True)
    text = read_text(os.path.join(root, KEY))
    for label, k in (("Bias Current [mA]", 0), ("Rx Power Current [dBm]", 1), ("Tx Power Current [dBm]", 2)):
        m = re.search(r"^(%s\s*: )(\S+)( \[.*)$" % re.escape(label), text, re.M)
        vals = m.group(2).split(",")
        for lane, v in lanes.items():
            vals[lane] = v[k]
        text = text[:m.start()] + m.group(1) + ",".join(vals) + m.group(3) + text[m.end():]
    write_text(os.path.join(root, KEY), text)
    if state:
        write_text(os.path.join(root, PORT, "state"), state[0] + "\n")
        write_text(os.path.join(root, PORT, "phys_state"), state[1] + "\n")
        # mstlink of a down port says so too
        t = read_text(os.path.join(root, KEY))
        write_text(os.path.join(root, KEY), re.sub(r"^(State\s*: )Active", r"\1Polling", t, flags=re.M))
    cp, j = run_json("--root", root, "--json")
    hwctest.validate(j)
    return j


def module_line(j):
    return next((c["value"], c["verdict"], c["reason"]) for card in j["cards"] for c in card["checks"]
                if c["item"] == "port_module")


def module_findings(j):
    return sorted((f["rule_id"], f["severity"], f["message"]) for f in j["findings"]
                  if f["rule_id"].startswith("LINK_MODULE"))


DARK = ("0", "-40", "-40")


class MstlinkDark(unittest.TestCase):
    def test_real_lit_lanes(self):
        j = run_json("--root", hwctest.fixture(FX, "root"), "--json")[1]
        m = j["cards"][0]["ports"][0]["module"]
        self.assertNotIn("dark_lanes", m)
        self.assertEqual(module_line(j)[1], "ok")

    def test_all_dark_on_live_link(self):
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, {i: DARK for i in range(4)})
        value, verdict, reason = module_line(j)
        self.assertEqual(verdict, "unknown")
        self.assertIn("every lane dark on the live link (no bias, no Tx or Rx power on lanes it needs: "
                      "not measurements)", value)
        self.assertNotIn("bias 0", value)  # the dark readings are not shown as readings
        self.assertIn("lanes 1,2,3,4 read no bias, no Tx and no Rx power while the link is up at 400G over 4 lanes "
                      "(mstlink's Width)", reason)
        m = j["cards"][0]["ports"][0]["module"]
        self.assertEqual((m["dark_lanes"], m["unmeasured_lanes"]), ([1, 2, 3, 4], [1, 2, 3, 4]))
        got = module_findings(j)
        self.assertEqual([(r, s) for r, s, _ in got],
                         [("LINK_MODULE_RX_POWER_LOW", "unknown"), ("LINK_MODULE_THRESHOLDS", "unknown")])
        self.assertFalse([msg for _, _, msg in got if "outside" in msg])

    def test_one_needed_lane_dark(self):
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, {2: DARK})
        value, verdict, reason = module_line(j)
        self.assertEqual(verdict, "unknown")
        self.assertIn("lanes 3 dark on the live link", value)
        self.assertIn("lane 3 reads no bias", reason)
        m = j["cards"][0]["ports"][0]["module"]
        self.assertEqual((m["dark_lanes"], m["unmeasured_lanes"]), ([3], [3]))

    def test_all_dark_on_down_port(self):
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, {i: DARK for i in range(4)}, ("1: DOWN", "2: Polling"))
        value, verdict, _ = module_line(j)
        self.assertIn("every lane dark (no bias, no Tx or Rx power: not in use)", value)
        m = j["cards"][0]["ports"][0]["module"]
        self.assertEqual((m["dark_lanes"], m.get("unmeasured_lanes")), ([1, 2, 3, 4], None))
        self.assertEqual([f for f in module_findings(j) if f[1] != "info"], [])


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# facts.thermal on the thermal-* fixtures (real hwmon values): goldens, schema, the card tie (bdf),
# round trip through a facts file.
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

FIXTURES = ("thermal-bf2-x3-sensors", "thermal-cx5-hwmon-v2-module0")


def thermal(root):
    cp, j = run_json("--root", hwctest.fixture(root, "root"), "facts", "--json")
    if cp.returncode != 0:
        raise AssertionError(f"{root}: exit {cp.returncode}: {cp.stderr}")
    return j


class Thermal(unittest.TestCase):
    def test_goldens_and_schema(self):
        for fx in FIXTURES:
            with self.subTest(fx):
                j = thermal(fx)
                hwctest.validate(j)
                hwctest.golden(hwctest.source("tests", "thermal", "golden", fx + ".json"),
                               {"thermal": j["facts"]["thermal"]})

    def test_mlx5_tied_to_each_function(self):
        s = thermal("thermal-bf2-x3-sensors")["facts"]["thermal"]["sensors"]
        mlx = [(x["bdf"], x["label"], x["temp_mdegc"], x["crit_mdegc"], x["highest_mdegc"])
               for x in s if x["chip"] == "mlx5"]
        self.assertEqual(mlx, [
            ("0000:4e:00.0", "asic", 59000, 105000, 70000),
            ("0000:4e:00.1", "asic", 59000, 105000, 70000),
            ("0000:85:00.0", "asic", 57000, 105000, 66000),
            ("0000:85:00.1", "asic", 57000, 105000, 66000),
            ("0000:bc:00.0", "asic", 62000, 105000, 74000),
            ("0000:bc:00.1", "asic", 62000, 105000, 74000),
        ])
        nvme = [x for x in s if x["chip"] == "nvme"]
        self.assertEqual([x["label"] for x in nvme], ["Composite", "Sensor 1", "Sensor 2"])
        self.assertEqual(nvme[0]["bdf"], "0000:01:00.0")  # the controller under its PCI function
        core = [x for x in s if x["chip"] == "coretemp"]
        self.assertEqual(len(core), 13)
        self.assertEqual(core[0]["label"], "Core 0")  # natural order: Core 2 before Core 10
        self.assertEqual(core[-1]["label"], "Package id 0")
        self.assertIsNone(core[0]["bdf"])
        self.assertTrue(all(x["source"] == "hwmon" for x in s))

    def test_module_sensor(self):
        s = thermal("thermal-cx5-hwmon-v2-module0")["facts"]["thermal"]["sensors"]
        mod = [x for x in s if x["label"] == "Module0"]
        self.assertEqual(len(mod), 1)
        self.assertEqual((mod[0]["bdf"], mod[0]["temp_mdegc"], mod[0]["crit_mdegc"]),
                         ("0000:02:00.0", 57000, 70000))
        # .1 of the 200G card has no temp1_highest: a status, not a number
        one = [x for x in s if x["bdf"] == "0000:02:00.1"][0]
        self.assertIsNone(one["highest_mdegc"])
        self.assertEqual(one["unavailable"]["highest_mdegc"]["status"], "absent")

    def test_card_temp_from_mlx_tools(self):
        # mlx-multi-card: no hwmon at all; 41:00.0 answered mstmget_temp (88, corpus
        # temperature/cx6dx_mget_temp_88C_notes-cn.txt), its mstreg MPEIN timed out; the other
        # cards have no temperature tool recorded (not in this capture): no sensor for them.
        s = thermal("mlx-multi-card")["facts"]["thermal"]["sensors"]
        self.assertEqual([(x["chip"], x["label"], x["bdf"], x["source"], x["temp_mdegc"]) for x in s],
                         [("mlx5", "asic", "0000:41:00.0", "mstmget_temp", 88000)])
        self.assertEqual(s[0]["unavailable"]["crit_mdegc"]["status"], "unsupported")
        # the 88 degC scenario root: mstreg MTMP refused, mstmget_temp answered 88 (no mlx5 hwmon
        # on its 5.15 kernel); the CPU's coretemp stays as hwmon
        s = thermal("cx6dx-card-88c")["facts"]["thermal"]["sensors"]
        card = [(x["bdf"], x["source"], x["temp_mdegc"]) for x in s if x["chip"] == "mlx5"]
        self.assertEqual(card, [("0000:41:00.0", "mstmget_temp", 88000)])
        self.assertEqual([x["source"] for x in s if x["chip"] == "coretemp"], ["hwmon"])
        # and one whose MTMP answered: source mstreg (56 degC = 0x1c0 eighths)
        s = thermal("healthy-cx7-gen5x16")["facts"]["thermal"]["sensors"]
        self.assertEqual([(x["bdf"], x["source"], x["temp_mdegc"]) for x in s if x["chip"] == "mlx5"],
                         [("0000:21:00.0", "mstreg", 56000), ("0000:81:00.0", "mstreg", 56000)])
        # a card with its own mlx5 hwmon sensor keeps only the kernel's reading
        s = thermal("thermal-cx5-hwmon-v2-module0")["facts"]["thermal"]["sensors"]
        self.assertTrue(all(x["source"] == "hwmon" for x in s))

    def test_round_trip_exact(self):
        for fx in FIXTURES:
            with self.subTest(fx), tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, "facts.json")
                run("--root", hwctest.fixture(fx, "root"), "facts", "--json", "-o", f, check=0)
                cp, j = run_json("facts", "--json", "--facts", f)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                self.assertEqual(json.load(open(f))["facts"]["thermal"], j["facts"]["thermal"])


if __name__ == "__main__":
    hwctest.main()

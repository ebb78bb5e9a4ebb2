# SPDX-License-Identifier: MIT
# lspci is the oracle: every real capture in tests/fixtures/pci-dumps decodes to the same facts
# through `hwcheck --pci-dump FILE facts --json` as through `lspci -F FILE -vvv`.
import glob
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hwctest  # noqa: E402
import lspci_oracle as oracle  # noqa: E402
from hwctest import run_json  # noqa: E402


def dumps():
    return sorted(glob.glob(hwctest.fixture("pci-dumps", "*.txt")) +
                  glob.glob(hwctest.fixture("pci-dumps", "pciutils", "*.txt")))


class LspciOracle(unittest.TestCase):
    def setUp(self):
        if not os.access(oracle.LSPCI, os.X_OK):
            raise unittest.SkipTest("lspci (pciutils) not installed")

    def compare(self, path):
        cp, j = run_json("--pci-dump", path, "facts", "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        try:
            hwctest.validate(j)
        except unittest.SkipTest:
            pass  # no python3-jsonschema: the comparison still runs
        return oracle.compare(self, oracle.parse_lspci("-F", path), j["facts"]["pci"].get("devices") or [],
                              os.path.basename(path))

    def test_every_capture(self):
        files = dumps()
        self.assertGreaterEqual(len(files), 40)
        total = 0
        for f in files:
            with self.subTest(dump=os.path.basename(f)):
                total += self.compare(f)
        self.assertGreater(total, 500)

    def test_cx3pro_behind_haswell_root_port(self):
        _, j = run_json("--pci-dump", hwctest.fixture("pci-dumps", "cx3pro_haswell-rootport_pciutils-cap-aer-root.txt"),
                        "facts", "--json")
        d = {x["bdf"]: x for x in j["facts"]["pci"]["devices"]}
        nic = d["0000:03:00.0"]
        self.assertEqual(nic["slot_power_limit_w"], 116.0)
        self.assertEqual(nic["path"], ["0000:03:00.0", "0000:00:02.0"])
        self.assertEqual(nic["link_status"], "ok")
        self.assertEqual(nic["path_bottleneck"]["bdf"], "0000:00:02.0")  # upper hop wins a tie
        self.assertEqual(nic["path_bottleneck"]["raw_gbps"], 63.008)

    def test_lane_errors_latched_at_the_haswell_root_port(self):
        # the real capture's root port 00:02.0 has Lane Error Status bits 0-7 set on its 8 GT/s x8
        # link to the ConnectX-3 Pro, whose own end reads 0 (lspci: "LaneErrStat: LaneErr at
        # lane: 0 1 2 3 4 5 6 7" / "LaneErrStat: 0"), with no AER error counted: PCIE_LANE_ERRORS
        # says so at info, every lane being flagged, and names the port in its fix
        dump = hwctest.fixture("pci-dumps", "cx3pro_haswell-rootport_pciutils-cap-aer-root.txt")
        _, j = run_json("--pci-dump", dump, "facts", "--json")
        d = {x["bdf"]: x for x in j["facts"]["pci"]["devices"]}
        self.assertEqual(d["0000:00:02.0"]["lane_errors"], {"lanes": list(range(8))})
        self.assertEqual(d["0000:03:00.0"]["lane_errors"], {"lanes": []})
        _, r = run_json("--pci-dump", dump, "check", "--json")
        mine = [f for f in r["findings"] if f.get("rule_id") == "PCIE_LANE_ERRORS"]
        self.assertEqual([(f["severity"], f["subject"]) for f in mine], [("info", "0000:03:00.0")])
        self.assertIn("every lane of the x8 link", mine[0]["message"])
        self.assertIn("setpci -s 0000:00:02.0 ECAP_SECPCI+8.l=ffffffff", mine[0]["fix"])

    def test_root_ports_of_one_device_each_have_their_own_link(self):
        # Intel ICH10 root ports 00:1c.0/.1/.2 (pciutils tree-asus-p6t6): one port per function,
        # each its own link, as lspci prints them; .0 is down (x0), .1 and .2 are up at x1
        _, j = run_json("--pci-dump", hwctest.fixture("pci-dumps", "pciutils", "tree-asus-p6t6.txt"),
                        "facts", "--json")
        d = {x["bdf"]: x for x in j["facts"]["pci"]["devices"]}
        for bdf, width in (("0000:00:1c.0", 0), ("0000:00:1c.1", 1), ("0000:00:1c.2", 1)):
            self.assertEqual(d[bdf]["link_from"], bdf)
            self.assertEqual(d[bdf]["link"]["width"], width, bdf)

    def test_functions_of_one_endpoint_share_function_0s_link(self):
        # 06:00.1 of tree-asus-p6t6 is the second function of one endpoint: function 0's link
        _, j = run_json("--pci-dump", hwctest.fixture("pci-dumps", "pciutils", "tree-asus-p6t6.txt"),
                        "facts", "--json")
        d = {x["bdf"]: x for x in j["facts"]["pci"]["devices"]}
        self.assertEqual(d["0000:06:00.1"]["port_type"], "endpoint")
        self.assertEqual(d["0000:06:00.1"]["link_from"], "0000:06:00.0")
        self.assertEqual(d["0000:06:00.1"]["link"], d["0000:06:00.0"]["link"])


class DumpAlone(unittest.TestCase):
    """`--pci-dump FILE` without --root: the dump is the machine under test (issue 12 §4)."""

    def check(self, *dumps):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "host.txt")
            with open(p, "w") as f:  # several real dumps of distinct buses make one machine
                f.write("\n".join(open(d, encoding="utf-8").read() for d in dumps))
            cp, j = run_json("--pci-dump", p, "check", "--json")
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            return j

    def test_the_dumps_cards_are_the_adapters_and_are_judged(self):
        j = self.check(hwctest.fixture("pci-dumps", "cx3pro_haswell-rootport_pciutils-cap-aer-root.txt"),
                       hwctest.fixture("pci-rebuilt", "cx4lx_hpe_lspci-vvv_linux-rdma-2019.rebuilt-xxxx.txt"))
        ads = {a["bdf"]: a for a in j["facts"]["mlx"]["adapters"]}
        self.assertEqual(sorted(ads), ["0000:03:00.0", "0000:0b:00.0"])
        self.assertEqual(ads["0000:0b:00.0"]["functions"], ["0000:0b:00.0", "0000:0b:00.1"])
        self.assertEqual(ads["0000:03:00.0"]["product"], "ConnectX-3 Pro")
        ids = {f["rule_id"] for f in j["findings"]}
        self.assertNotIn("MLX_NO_ADAPTER", ids)
        # judged: the CX3 Pro's whole path (root port 00:02.0) is in the dump, so the path rule
        # decides rather than saying unknown
        pb = [f for f in j["findings"] if f["rule_id"] == "PCIE_PATH_BOTTLENECK" and f["subject"] == "0000:03:00.0"]
        self.assertFalse([f for f in pb if f["severity"] == "unknown"], pb)

    def test_host_facts_are_unknown_not_this_machines(self):
        j = self.check(hwctest.fixture("pci-dumps", "cx3pro_haswell-rootport_pciutils-cap-aer-root.txt"))
        host = j["facts"]["host"]
        self.assertIsNone(host["cpu"]["model_name"])
        self.assertIn("not in the --pci-dump file", host["cpu"]["unavailable"]["model_name"]["detail"])
        self.assertIsNone(host["kernel"]["release"])
        self.assertEqual(j["facts"]["netdevs"], [])  # none of this machine's
        cfg = j["facts"]["mlx"]["adapters"][0]
        self.assertIsNone(cfg["fw_config"])
        self.assertIn("not in the --pci-dump file", cfg["unavailable"]["fw_config"]["detail"])
        x2 = [f for f in j["findings"] if f["rule_id"] == "HOST_X2APIC_OFF"]
        self.assertEqual([f["severity"] for f in x2], ["unknown"])
        inc = [f for f in j["findings"] if f["rule_id"] == "COLLECT_INCOMPLETE"]
        self.assertTrue(inc and all("install mstflint" not in (f["fix"] or "") for f in inc), inc)
        # the dump holds no port: whether the card's ports are up is unknown, not "none is down"
        pd = [f for f in j["findings"] if f["rule_id"] == "NET_PORT_DOWN"]
        self.assertEqual([(f["severity"], f["subject"]) for f in pd], [("unknown", cfg["bdf"])], pd)
        self.assertIn("an lspci dump holds config space only", json.dumps(pd))


    def test_no_adapter_names_the_dump_not_this_machine(self):
        # MLX_NO_ADAPTER says what was read: the dump (not "this machine", not "--root")
        j = self.check(hwctest.fixture("pci-dumps", "pciutils", "tree-asus-p6t6.txt"))
        self.assertEqual(j["facts"]["host"]["read_from"], "pci-dump")
        na = [f for f in j["findings"] if f["rule_id"] == "MLX_NO_ADAPTER"]
        self.assertEqual([f["message"] for f in na], ["no ConnectX adapter was found in this PCI dump (--pci-dump)"])
        self.assertIn(("host.read_from", "pci-dump"), [(e["fact"], e["observed"]) for e in na[0]["evidence"]])

    def test_no_adapter_with_root_names_both(self):
        # a dump beside a --root: the capture's sysfs and the dump were read
        cp, j = run_json("--root", hwctest.fixture("vm-q35-rails", "root"), "--pci-dump",
                         hwctest.fixture("pci-dumps", "pciutils", "tree-asus-p6t6.txt"), "check", "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertEqual(j["facts"]["host"]["read_from"], "capture")
        na = [f for f in j["findings"] if f["rule_id"] == "MLX_NO_ADAPTER"]
        self.assertEqual([f["message"] for f in na],
                         ["no ConnectX adapter was found in this capture (--root) and PCI dump (--pci-dump)"])


class BadDumps(unittest.TestCase):
    def test_malformed_dump_is_an_error_not_an_exit(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "bad.txt")
            with open(p, "w") as f:
                f.write("00:00.0 Host bridge\n00: zz zz\n")
            cp, j = run_json("--pci-dump", p, "facts", "--json")
            self.assertIn(cp.returncode, (0, 1, 3))
            self.assertIsNone(j["facts"]["pci"]["devices"])
            self.assertIn("devices", j["facts"]["pci"]["unavailable"])
            self.assertIn("Malformed", j["facts"]["pci"]["unavailable"]["devices"]["detail"])

    def test_text_only_capture_names_the_problem(self):
        p = hwctest.source("tests", "fixtures", "pci-dumps", "SOURCE.md")
        cp, j = run_json("--pci-dump", p, "facts", "--json")
        self.assertIn(cp.returncode, (0, 1, 3))

    def test_device_gone_from_the_bus(self):
        # rev ff / header 7f: config space reads all ones (corpus lspci/cx6_..._rev-ff...)
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "ff.txt")
            with open(p, "w") as f:
                f.write("0000:01:00.0 Ethernet\n")
                for off in range(0, 64, 16):
                    f.write(f"{off:02x}: " + " ".join(["ff"] * 16) + "\n")
            cp, j = run_json("--pci-dump", p, "facts", "--json")
            d = j["facts"]["pci"]["devices"][0]
            self.assertIsNone(d["vendor_id"])
            self.assertIn("does not answer", d["unavailable"]["vendor_id"]["detail"])
            self.assertIn("does not answer", cp.stderr)


if __name__ == "__main__":
    hwctest.main()

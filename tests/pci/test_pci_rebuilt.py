# SPDX-License-Identifier: MIT
# Text-only lspci captures (tests/fixtures/pci-rebuilt, made by tests/pci/rebuild.py): the config
# bytes rebuilt from each decode back, through lspci, to what the capture says, and hwcheck reads
# the same facts from those bytes as lspci does.
import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hwctest  # noqa: E402
import lspci_oracle as oracle  # noqa: E402
from hwctest import run_json  # noqa: E402

FIELDS = ("type", "mps_sup", "slot_power", "ro", "ext_tag", "no_snoop", "mps", "mrrs", "cap_speed",
          "cap_width", "speed", "width", "aer")
# lines lspci 3.9 prints the way the captures do (older wordings are compared through FIELDS only)
SAME = re.compile(r"^(DevCap:|DevSta: CorrErr\S NonFatalErr|RlxdOrd|MaxPayload \d+ bytes, MaxReadReq|"
                  r"LnkCap: Port #\d+, Speed \S+, Width x\d+, ASPM not supported$|"
                  r"LnkSta: Speed \S+( \(\w+\))?, Width x\d+( \(\w+\))?$|Initial VFs|VF offset|ARICap:)")


def norm(line):
    return " ".join(re.sub(r" \((ok|downgraded)\)", "", line).split())


def pairs():
    for cap in sorted(glob.glob(hwctest.fixture("pci-rebuilt", "*.capture.txt"))):
        yield cap, cap.replace(".capture.txt", ".rebuilt-xxxx.txt")


class Rebuilt(unittest.TestCase):
    def setUp(self):
        if not os.access(oracle.LSPCI, os.X_OK):
            raise unittest.SkipTest("lspci not installed")

    def test_lspci_decodes_the_bytes_to_the_capture(self):
        n = 0
        for cap, dump in pairs():
            name = os.path.basename(cap)
            with self.subTest(capture=name):
                text = open(cap, encoding="utf-8").read()
                want = oracle.parse_text(text)
                got = oracle.parse_lspci("-F", dump)
                self.assertEqual(sorted(got), sorted(want))
                for bdf, w in want.items():
                    for k in FIELDS:
                        self.assertEqual(got[bdf].get(k), w.get(k), f"{name} {bdf} {k}")
                        n += 1
                out = {norm(x) for x in oracle.lspci("-F", dump, "-vvv").splitlines()}
                same = [norm(x) for x in text.splitlines() if SAME.match(norm(x))]
                self.assertGreaterEqual(len(same), 5, name)
                for line in same:
                    self.assertTrue(line in out, f"{name}: lspci of the rebuilt bytes lacks '{line}'")
                    n += 1
        self.assertGreater(n, 100)

    def test_hwcheck_reads_what_lspci_reads(self):
        for cap, dump in pairs():
            with self.subTest(capture=os.path.basename(cap)):
                cp, j = run_json("--pci-dump", dump, "facts", "--json")
                self.assertIn(cp.returncode, (0, 1), cp.stderr)
                checks = oracle.compare(self, oracle.parse_lspci("-F", dump), j["facts"]["pci"]["devices"],
                                        os.path.basename(dump))
                self.assertGreater(checks, 10)

    def test_capture_facts(self):
        # what the corpus INDEX says of these captures, read by hwcheck from the rebuilt bytes
        def dev(part):
            dump = [d for c, d in pairs() if part in c][0]
            _, j = run_json("--pci-dump", dump, "facts", "--json")
            return j["facts"]["pci"]["devices"]
        cx4 = dev("cx4lx_hpe")
        self.assertEqual([d["max_payload_bytes"] for d in cx4], [128, 128])  # MPS 128 (cap 512)
        self.assertEqual(cx4[0]["slot_power_limit_w"], 0.0)  # SlotPowerLimit 0.000W: not advertised
        self.assertTrue(cx4[0]["dev_status"]["correctable"] and cx4[0]["dev_status"]["unsupported_request"])
        self.assertEqual(cx4[0]["sriov"], {"total_vfs": 8, "num_vfs": 0, "vf_device_id": "1016"})
        # both PFs of the two-port card: ASPM Control disabled in each, and each an ARI function
        # (an ARI Device: function 0's field decides the link, PCIe r5.0 7.5.3.7)
        self.assertEqual([d["function_aspm"] for d in cx4], [{"control": "disabled", "ari_capable": True}] * 2)
        self.assertEqual([d["link_from"] for d in cx4], ["0000:0b:00.0"] * 2)
        cx7 = dev("cx7-400g")[0]
        self.assertEqual((cx7["max_payload_bytes"], cx7["max_payload_supported_bytes"]), (256, 512))
        self.assertEqual(cx7["link"]["speed_gts"], 32.0)
        self.assertEqual(cx7["slot_power_limit_w"], 75.0)


if __name__ == "__main__":
    hwctest.main()

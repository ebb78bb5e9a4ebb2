# SPDX-License-Identifier: MIT
# Whole-host sysfs fixtures: the same facts through sysfs and through the lspci dump of the same
# bytes, lspci's own decode of the trees, the captured lspci text rebuilt, and the kernel's
# bandwidth verdict (corpus/dmesg) reproduced by the path model: same hop, same Gb/s.
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hwctest  # noqa: E402
import lspci_oracle as oracle  # noqa: E402
from hwctest import run_json  # noqa: E402

GPU_HOSTS = ["gpu-asus-esc8000a-4gpu-2cx7", "gpu-hgx-8gpu-healthy", "gpu-hgx-8gpu-acs-redirect",
             "gpu-hgx-8gpu-nic-wrong-socket"]  # tests/pci/gpuhosts.py
HOSTS = ["host-cx7-gen5-healthy", "host-cx6-ocp3-gen1-x4", "host-cx6-ocp3-gen3-x16",
         "host-switch-slow-hop", "host-cx5-x8-slot", "host-rails-shared-uplink",
         "host-cx7-gen5-nonroot"] + GPU_HOSTS
FULL = HOSTS[:6] + GPU_HOSTS  # the ones read with root (4096-byte config)
BW = re.compile(r"\S+ (\S+): ([\d.]+) Gb/s available PCIe bandwidth, limited by ([\d.]+) GT/s PCIe "
                r"x(\d+) link at (\S+) \(capable of ([\d.]+) Gb/s with ([\d.]+) GT/s PCIe x(\d+) link\)")


def root(host):
    return hwctest.fixture(host, "root")


def facts(*argv):
    cp, j = run_json(*argv, "facts", "--json")
    if cp.returncode not in (0, 1):
        raise AssertionError(f"exit {cp.returncode}: {cp.stderr}")
    return j


def devices(host):
    j = facts("--root", root(host))
    return {d["bdf"]: d for d in j["facts"]["pci"]["devices"]}, j


def norm(line):
    return " ".join(line.replace(" (ok)", "").split())


class Hosts(unittest.TestCase):
    def test_q35_vm_live(self):
        # tests/vm's q35 rails machine captured live (vm-q35-rails): the facts of its sysfs agree
        # with lspci -vvv run in that VM (a snapshot holds only what hwcheck read, too little for
        # lspci's sysfs method); no finding but MLX_NO_ADAPTER, and nothing left unknown
        got, j = devices("vm-q35-rails")
        hwctest.validate(j)
        vm = oracle.parse_text(open(hwctest.fixture("vm-q35-rails", "capture", "lspci-vvv-nn-D.txt"),
                                    encoding="utf-8").read())
        self.assertGreater(oracle.compare(self, vm, list(got.values()), "vm-q35-rails (in the VM)"), 80)
        self.assertEqual(got["0000:00:02.0"]["subsystem_vendor_id"], "1b36")  # its SSVID capability
        self.assertEqual(got["0000:03:00.0"]["link"]["target_speed_gts"], 2.5)  # LnkCtl2 hardwired 0
        eth0 = got["0000:03:00.0"]
        self.assertEqual(eth0["path"], ["0000:03:00.0", "0000:02:00.0", "0000:01:00.0", "0000:00:02.0"])
        self.assertEqual((eth0["path_bottleneck"]["bdf"], eth0["path_bottleneck"]["speed_gts"],
                          eth0["path_bottleneck"]["width"]), ("0000:00:02.0", 2.5, 1))
        # the XIO3130 downstream port reports no LnkCap speed: its link is not judged
        self.assertEqual(got["0000:02:00.0"]["link_status"], "unknown")
        cp, rep = run_json("--root", root("vm-q35-rails"), "check", "--json")
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertEqual([f["rule_id"] for f in rep["findings"]], ["MLX_NO_ADAPTER"])
        self.assertEqual((rep["summary"]["verdict"], rep["summary"]["unknown"]), ("warn", []))

    def test_schema_golden_and_round_trip(self):
        for host in HOSTS:
            with self.subTest(host=host):
                _, j = devices(host)
                hwctest.golden(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                                            host + ".json"), {"pci": j["facts"]["pci"]})
                with tempfile.TemporaryDirectory() as t:
                    f = os.path.join(t, "facts.json")
                    hwctest.run("--root", root(host), "facts", "--json", "-o", f)
                    again = facts("--facts", f)
                    self.assertEqual(again["facts"]["pci"], j["facts"]["pci"])
                hwctest.validate(j)

    def test_snapshot_replays_the_same_facts(self):
        # everything pci/ read (config through the env, links, directory handles) is captured
        import tarfile
        for host in ("host-switch-slow-hop", "host-cx7-gen5-nonroot", "gpu-hgx-8gpu-healthy"):
            with self.subTest(host=host), tempfile.TemporaryDirectory() as t:
                tar = os.path.join(t, "snap.tar")
                cp = hwctest.run("--root", root(host), "snapshot", "-o", tar)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                out = os.path.join(t, "root")
                os.mkdir(out)
                with tarfile.open(tar) as tf:
                    tf.extractall(out)
                _, want = devices(host)
                again = facts("--root", out)
                self.assertEqual(again["facts"]["pci"], want["facts"]["pci"])

    def test_lspci_decodes_the_trees_the_same(self):
        if not os.access(oracle.LSPCI, os.X_OK):
            raise unittest.SkipTest("lspci not installed")
        for host in FULL:
            with self.subTest(host=host):
                want = oracle.parse_lspci("-A", "linux-sysfs", "-O",
                                          "sysfs.path=" + os.path.join(root(host), "sys", "bus", "pci"))
                got, _ = devices(host)
                self.assertGreater(oracle.compare(self, want, list(got.values()), host), 10)

    def test_dump_and_sysfs_agree(self):
        # Three ways in, one code path: the dump of the same bytes gives the same config facts.
        for host in FULL:
            with self.subTest(host=host):
                sysfs, _ = devices(host)
                j = facts("--pci-dump", hwctest.fixture(host, "pci-dump.txt"))
                for d in j["facts"]["pci"]["devices"]:
                    s = sysfs[d["bdf"]]
                    for k in ("class", "port_type", "max_read_request_bytes",
                              "slot_power_limit_w", "aer_capable", "upstream", "path", "link_status"):
                        self.assertEqual(d.get(k), s.get(k), f"{host} {d['bdf']} {k}")
                    if not s.get("is_vf"):
                        # a dump has no physfn: VFs keep their own (reserved) DevCtl and link, and
                        # their ids may read ffff there (sysfs has them)
                        for k in ("vendor_id", "device_id", "max_payload_bytes", "relaxed_ordering",
                                  "link", "path_bottleneck"):
                            self.assertEqual(d.get(k), s.get(k), f"{host} {d['bdf']} {k}")

    def test_captured_lspci_text_rebuilt(self):
        if not os.access(oracle.LSPCI, os.X_OK):
            raise unittest.SkipTest("lspci not installed")
        # The text-only captures: lspci decodes the rebuilt config bytes back to the same lines.
        keys = re.compile(r"^(DevCap|DevCtl|DevSta|LnkCap|LnkSta):|SlotPowerLimit|^RlxdOrd|"
                          r"^MaxPayload \d+ bytes, MaxReadReq|Total VFs|Device ID:|\[PN\]|\[SN\]|Product Name")
        cases = [("host-cx7-gen5-healthy", "lspci-vvv-21-00.0.txt", "0000:21:00.0"),
                 ("host-cx7-gen5-healthy", "lspci-vvv-81-00.0.txt", "0000:81:00.0"),
                 ("host-cx6-ocp3-gen3-x16", "lspci-vvv-grep-Width.txt", "0000:01:00.0")]
        for host, cap, bdf in cases:
            with self.subTest(capture=cap):
                out = oracle.lspci("-A", "linux-sysfs", "-O",
                                   "sysfs.path=" + os.path.join(root(host), "sys", "bus", "pci"),
                                   "-vvv", "-s", bdf)
                have = {norm(x) for x in out.splitlines()}
                n = 0
                for line in open(hwctest.fixture(host, "capture", cap), encoding="utf-8"):
                    t = line.strip()
                    if keys.search(t):
                        self.assertIn(norm(t), have, f"{cap}: lspci of the rebuilt bytes lacks this line")
                        n += 1
                self.assertGreaterEqual(n, 2)

    def test_kernel_bandwidth_verdict(self):
        verdict = {"host-cx6-ocp3-gen1-x4": "downgraded", "host-cx6-ocp3-gen3-x16": "downgraded",
                   "host-cx5-x8-slot": "slot_limited"}
        for host in verdict:
            with self.subTest(host=host):
                text = open(hwctest.fixture(host, "capture", "dmesg.txt"), encoding="utf-8").read()
                m = BW.search(text)
                self.assertIsNotNone(m)
                dev, gbps, gts, width, at, cap_gbps, cap_gts, cap_width = m.groups()
                got, _ = devices(host)
                b = got[dev]["path_bottleneck"]
                self.assertEqual(b["bdf"], at)
                self.assertEqual(b["raw_gbps"], float(gbps))
                self.assertEqual(b["speed_gts"], float(gts))
                self.assertEqual(b["width"], int(width))
                self.assertEqual(b["capable_raw_gbps"], float(cap_gbps))
                self.assertEqual(got[dev]["link"]["cap_speed_gts"], float(cap_gts))
                self.assertEqual(got[dev]["link"]["cap_width"], int(cap_width))
                self.assertLess(b["gbps"], b["raw_gbps"])
                self.assertEqual(got[dev]["link_status"], verdict[host])
                # mlx5_pcie_event: "... power on the PCIe slot (25W)" / "sufficient power (75W)"
                w = float(re.search(r"power[^(]*\((\d+)W\)", text).group(1))
                self.assertEqual(got[dev]["slot_power_limit_w"], w)
                self.assertEqual(got[dev]["upstream_slot"]["power_limit_w"], w)

    def test_mlxlink_agrees(self):
        # "Link Speed Active (Enabled) : 2.5G-Gen 1 (16G-Gen 4)", "Link Width ... : 4X (16X)"
        for host in ("host-cx6-ocp3-gen1-x4", "host-cx6-ocp3-gen3-x16"):
            text = open(hwctest.fixture(host, "capture", "mlxlink-pcie.txt"), encoding="utf-8").read()
            sp = re.search(r"Link Speed Active \(Enabled\)\s*: ([\d.]+)G-Gen \d \(([\d.]+)G-Gen \d\)", text)
            wd = re.search(r"Link Width Active \(Enabled\)\s*: (\d+)X \((\d+)X\)", text)
            got, _ = devices(host)
            cx = [d for d in got.values() if d["vendor_id"] == "15b3"][0]
            self.assertEqual(cx["link"]["speed_gts"], float(sp.group(1)))
            self.assertEqual(cx["link"]["cap_speed_gts"], float(sp.group(2)))
            self.assertEqual(cx["link"]["width"], int(wd.group(1)))
            self.assertEqual(cx["link"]["cap_width"], int(wd.group(2)))

    def test_healthy_gen5(self):
        got, _ = devices("host-cx7-gen5-healthy")
        for bdf in ("0000:21:00.0", "0000:21:00.1", "0000:81:00.0", "0000:81:00.1"):
            d = got[bdf]
            self.assertEqual(d["link_status"], "ok")
            self.assertEqual((d["link"]["speed_gts"], d["link"]["width"]), (32.0, 16))
            self.assertEqual(d["path_bottleneck"]["raw_gbps"], 504.112)
            self.assertEqual(d["max_payload_bytes"], 512)
            self.assertTrue(d["relaxed_ordering"])
            self.assertEqual(d["slot_power_limit_w"], 75.0)
            self.assertEqual(d["sriov"]["total_vfs"], 16)
        self.assertEqual(got["0000:21:00.1"]["link_from"], "0000:21:00.0")
        self.assertEqual(got["0000:21:00.0"]["vpd"]["part_number"], "MCX755106AS-HEAT")
        self.assertEqual(got["0000:81:00.0"]["numa_node"], 1)
        self.assertEqual(got["0000:21:00.0"]["driver"], "mlx5_core")
        self.assertEqual(got["0000:21:00.0"]["iommu_group"], 11)
        self.assertEqual(got["0000:20:03.1"]["slot"], {"power_limit_w": 75.0, "physical_slot": 3})

    def test_slower_switch_hop(self):
        got, _ = devices("host-switch-slow-hop")
        nic = got["0000:03:00.0"]
        self.assertEqual(nic["link_status"], "ok")  # the card's own link is full Gen4 x16
        self.assertEqual(nic["path"], ["0000:03:00.0", "0000:02:00.0", "0000:01:00.0", "0000:00:01.0"])
        b = nic["path_bottleneck"]
        self.assertEqual((b["bdf"], b["speed_gts"], b["width"], b["raw_gbps"]),
                         ("0000:00:01.0", 8.0, 16, 126.016))
        self.assertEqual(got["0000:01:00.0"]["link_status"], "downgraded")
        self.assertEqual(nic["aer"], {"correctable": 3, "nonfatal": 0, "fatal": 0})
        self.assertTrue(nic["dev_status"]["correctable"])
        vf = got["0000:03:00.2"]
        self.assertTrue(vf["is_vf"])
        self.assertEqual(vf["physfn"], "0000:03:00.0")
        self.assertEqual(vf["link_from"], "0000:03:00.0")
        self.assertEqual(vf["path_bottleneck"]["mps_bytes"], 256)  # the PF's MPS, not the VF's
        self.assertEqual(vf["max_payload_bytes"], 256)
        self.assertTrue(vf["relaxed_ordering"])
        self.assertNotIn("aer", vf)  # counted at the PF
        vf3 = got["0000:03:00.3"]  # its config space reads ffff for the ids: sysfs has them
        self.assertEqual((vf3["vendor_id"], vf3["device_id"]), ("15b3", "101e"))
        self.assertEqual(vf3["port_type"], "endpoint")
        self.assertEqual(nic["sriov"], {"total_vfs": 8, "num_vfs": 2, "vf_device_id": "101e"})
        nvme = got["0000:04:00.0"]
        self.assertEqual(nvme["path_bottleneck"]["bdf"], "0000:02:01.0")  # x4 below the switch
        self.assertEqual(nvme["path_bottleneck"]["raw_gbps"], 63.012)

    def test_device_filter_keeps_the_path(self):
        j = facts("--root", root("host-switch-slow-hop"), "-d", "0000:03:00.0")
        self.assertEqual([d["bdf"] for d in j["facts"]["pci"]["devices"]],
                         ["0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"])
        j = facts("--root", root("host-switch-slow-hop"), "-d", "03:00.0")
        self.assertEqual(len(j["facts"]["pci"]["devices"]), 4)

    def test_nonroot_falls_back_to_sysfs_link(self):
        got, _ = devices("host-cx7-gen5-nonroot")
        d = got["0000:21:00.0"]
        self.assertEqual(d["config_bytes"], 64)
        self.assertEqual((d["link"]["speed_gts"], d["link"]["width"]), (32.0, 16))
        self.assertEqual((d["link"]["cap_speed_gts"], d["link"]["cap_width"]), (32.0, 16))
        for k in ("max_payload_bytes", "max_read_request_bytes", "relaxed_ordering", "slot_power_limit_w"):
            self.assertIsNone(d[k])
            self.assertEqual(d["unavailable"][k]["status"], "needs_root")
        self.assertEqual(d["link"]["unavailable"]["aspm"]["status"], "needs_root")
        self.assertEqual(d["path_bottleneck"]["raw_gbps"], 504.112)
        self.assertEqual(d["path_bottleneck"]["unavailable"]["gbps"]["status"], "needs_root")
        self.assertEqual(d["vendor_id"], "15b3")


if __name__ == "__main__":
    hwctest.main()

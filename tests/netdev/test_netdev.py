# SPDX-License-Identifier: MIT
# facts.netdevs on the net-* fixtures (real captures): goldens, schema, -d, facts round trip and a
# snapshot of a fixture that replays to the same facts.
import json
import os
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

FIXTURES = ("net-cx6dx-discards-rings-4096", "net-mlx5-100g-full-stats", "net-mlx5-rss-ladder-q6700")


def netdevs(root, *extra, ok=(0,)):
    cp, j = run_json("--root", hwctest.fixture(root, "root"), "facts", "--json", *extra)
    if cp.returncode not in ok:
        raise AssertionError(f"{root}: exit {cp.returncode}: {cp.stderr}")
    return j


class Goldens(unittest.TestCase):
    def test_goldens_and_schema(self):
        for fx in FIXTURES:
            with self.subTest(fx):
                j = netdevs(fx)
                hwctest.validate(j)
                hwctest.golden(hwctest.source("tests", "netdev", "golden", fx + ".json"),
                               {"netdevs": j["facts"]["netdevs"]})


class Facts(unittest.TestCase):
    def test_discards_and_rings(self):
        nd = netdevs("net-cx6dx-discards-rings-4096")["facts"]["netdevs"]
        self.assertEqual([n["name"] for n in nd], ["enp59s0f0np0"])
        n = nd[0]
        self.assertEqual(n["bdf"], "0000:3b:00.0")
        self.assertEqual((n["rings"]["rx"], n["rings"]["rx_max"]), (4096, 8192))
        self.assertEqual(n["counters"]["rx_discards_phy"], 441063206498)
        self.assertEqual(n["counters"]["rx_out_of_buffer"], 534918379)
        # the poster removed zero counters: absent, never a made-up 0
        self.assertIsNone(n["counters"]["tx_pci_signal_integrity"])
        self.assertEqual(n["counters"]["unavailable"]["tx_pci_signal_integrity"]["status"], "absent")
        self.assertEqual(n["mtu"], 1500)
        self.assertEqual(n["features"]["unavailable"]["lro"]["detail"],
                         "ethtool -k enp59s0f0np0: not recorded")

    def test_only_connectx(self):
        nd = netdevs("net-mlx5-100g-full-stats")["facts"]["netdevs"]
        self.assertEqual([n["name"] for n in nd], ["p1"])  # not em1 (Intel), not lo (virtual)
        c = nd[0]["counters"]
        self.assertEqual(c["tx_pci_signal_integrity"], 2)
        self.assertEqual(c["rx_corrected_bits_phy"], 17750739)
        self.assertEqual(nd[0]["speed_mbps"], 100000)

    def test_irq_locality(self):
        nd = netdevs("net-mlx5-rss-ladder-q6700")["facts"]["netdevs"]
        loc = {n["name"]: n["irq_locality"] for n in nd}
        l0 = loc["enp1s0f0"]
        self.assertEqual((l0["vectors"], l0["outside_local"], l0["affinity_unknown"]), (7, 0, 3))
        comp = [i for i in l0["irqs"] if i["name"].startswith("mlx5_comp")]
        self.assertEqual([(i["irq"], i["cpus"], i["local"]) for i in comp],
                         [(30, "0", True), (31, "1", True), (32, "2", True), (33, "3", True)])
        self.assertEqual(loc["enp1s0f1"]["affinity_unknown"], 7)

    def test_device_filter(self):
        root = "net-mlx5-rss-ladder-q6700"
        for dev, want in (("enp1s0f1", ["enp1s0f1"]), ("0000:01:00.0", ["enp1s0f0"]),
                          ("01:00.1", ["enp1s0f1"]), ("mlx5_1", ["enp1s0f1"])):
            with self.subTest(dev):
                nd = netdevs(root, "-d", dev, ok=(0,))["facts"]["netdevs"]
                self.assertEqual([n["name"] for n in nd], want)
        # a name that matches nothing is a usage error (exit 2), not an empty machine
        cp = run("--root", hwctest.fixture(root, "root"), "facts", "--json", "-d", "nosuch0")
        self.assertEqual((cp.returncode, cp.stdout), (2, ""), cp.stderr)
        self.assertIn("-d nosuch0: no PCI function, netdev or RDMA device", cp.stderr)

    def test_round_trip_exact(self):
        for fx in FIXTURES:
            with self.subTest(fx), tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, "facts.json")
                run("--root", hwctest.fixture(fx, "root"), "facts", "--json", "-o", f, check=0)
                cp, j = run_json("facts", "--json", "--facts", f)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                self.assertEqual(json.load(open(f))["facts"]["netdevs"], j["facts"]["netdevs"])

    def test_snapshot_of_fixture_replays(self):
        fx = "net-cx6dx-discards-rings-4096"
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "s.tar")
            cp = run("--root", hwctest.fixture(fx, "root"), "snapshot", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            root = os.path.join(d, "root")
            os.mkdir(root)
            with tarfile.open(tar) as t:
                t.extractall(root)
            _, replay = run_json("--root", root, "facts", "--json")
            self.assertEqual(replay["facts"]["netdevs"], netdevs(fx)["facts"]["netdevs"])


if __name__ == "__main__":
    hwctest.main()

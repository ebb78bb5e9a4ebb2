# SPDX-License-Identifier: MIT
# facts.netdevs on the net-* fixtures (real captures): goldens, schema, -d, facts round trip and a
# snapshot of a fixture that replays to the same facts.
import json
import os
import shutil
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

FIXTURES = ("net-cx6dx-discards-rings-4096", "net-mlx5-100g-full-stats", "net-mlx5-rss-ladder-q6700",
            "net-cx4lx-ethtool-k-real", "net-cx4lx-tso-gro-off", "net-cx4lx-bond-mtu-mismatch",
            "net-cx4lx-bond-mtu-agree", "net-cx4lx-roce-lag-down")


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
                         "ethtool -k enp59s0f0np0: not in this capture")

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
        snapshot_replays(self, "net-cx6dx-discards-rings-4096")


def snapshot_replays(tc, fx):
    """A snapshot of fixture fx, untarred, replays to the same netdev facts."""
    with tempfile.TemporaryDirectory() as d:
        tar = os.path.join(d, "s.tar")
        cp = run("--root", hwctest.fixture(fx, "root"), "snapshot", "-o", tar)
        tc.assertEqual(cp.returncode, 0, cp.stderr)
        root = os.path.join(d, "root")
        os.mkdir(root)
        with tarfile.open(tar) as t:
            t.extractall(root)
        _, replay = run_json("--root", root, "facts", "--json")
        tc.assertEqual(replay["facts"]["netdevs"], netdevs(fx)["facts"]["netdevs"])


def check(root):
    cp, j = run_json("--root", hwctest.fixture(root, "root"), "--json")
    if cp.returncode not in (0, 1):
        raise AssertionError(f"{root}: exit {cp.returncode}: {cp.stderr}")
    return j


def findings(j, rule):
    return [(f["severity"], f["subject"]) for f in j["findings"] if f["rule_id"] == rule]


class Offloads(unittest.TestCase):
    """TSO/GRO verdicts on a real mlx5 `ethtool -k` (tests/fixtures/net-cx4lx-*/SOURCE.md)."""

    def test_real_capture_parsed(self):
        f = netdevs("net-cx4lx-ethtool-k-real")["facts"]["netdevs"][0]["features"]
        self.assertEqual(f, {"lro": False, "gro": True, "gro_hw": False, "tso": True, "gso": True,
                             "rx_checksum": True, "tx_checksum": True})

    def test_real_capture_is_quiet(self):
        j = check("net-cx4lx-ethtool-k-real")
        for rule in ("NET_TSO_OFF", "NET_GRO_OFF", "NET_LRO_ON"):
            self.assertEqual(findings(j, rule), [], rule)

    def test_off_fires(self):
        j = check("net-cx4lx-tso-gro-off")
        self.assertEqual(findings(j, "NET_TSO_OFF"), [("warn", "enp1s0f0np0")])
        self.assertEqual(findings(j, "NET_GRO_OFF"), [("warn", "enp1s0f0np0")])
        self.assertEqual(findings(j, "NET_LRO_ON"), [])
        fix = [f["fix"] for f in j["findings"] if f["rule_id"] == "NET_TSO_OFF"][0]
        self.assertIn("`ethtool -K enp1s0f0np0 tso on`", fix)


class Bond(unittest.TestCase):
    """Bond membership (sysfs master link, bonding/) on a real RoCE LAG host whose members differ."""

    def test_membership_facts(self):
        nd = {n["name"]: n for n in netdevs("net-cx4lx-bond-mtu-mismatch")["facts"]["netdevs"]}
        b = nd["eth01"]["bond"]
        self.assertEqual((b["name"], b["mode"], b["slaves"], b["mtu"], b["member_state"]),
                         ("bond0", "802.3ad 4", ["eth01", "eth02"], 1500, "active"))
        self.assertIsNone(b["active_slave"])
        self.assertIn("is empty", b["unavailable"]["active_slave"]["detail"])
        self.assertEqual((nd["eth01"]["mtu"], nd["eth02"]["mtu"]), (1518, 1500))

    def test_not_a_member(self):
        n = netdevs("net-cx4lx-ethtool-k-real")["facts"]["netdevs"][0]
        self.assertIsNone(n["bond"])
        self.assertEqual(n["unavailable"]["bond"]["status"], "absent")

    def test_mismatch_fires_naming_the_bond(self):
        j = check("net-cx4lx-bond-mtu-mismatch")
        self.assertEqual(findings(j, "NET_BOND_MTU_MISMATCH"), [("warn", "eth01")])
        f = [f for f in j["findings"] if f["rule_id"] == "NET_BOND_MTU_MISMATCH"][0]
        self.assertIn("while its bond bond0 runs 1500", f["message"])
        self.assertIn("`ip link set bond0 mtu 1500`", f["fix"])
        ev = {e["fact"]: (e["observed"], e["expected"]) for e in f["evidence"]}
        self.assertEqual(ev["netdevs[eth01].mtu"], ("1518", "1500"))
        self.assertEqual(ev["netdevs[eth01].bond.mtu"], ("1500", None))
        self.assertEqual(ev["netdevs[eth02].mtu"], ("1500", "1500"))
        # a member set apart from its bond is not evidence of a jumbo fabric for the other member
        self.assertEqual(findings(j, "NET_MTU_NOT_JUMBO"), [])

    def test_agree_is_quiet(self):
        j = check("net-cx4lx-bond-mtu-agree")
        self.assertEqual(findings(j, "NET_BOND_MTU_MISMATCH"), [])
        self.assertEqual(findings(j, "NET_MTU_NOT_JUMBO"), [])

    def test_bond_own_state(self):
        # the bond master's own admin state and carrier: the real host's bond0 is UP, LOWER_UP
        b = {n["name"]: n for n in netdevs("net-cx4lx-bond-mtu-agree")["facts"]["netdevs"]}["eth01"]["bond"]
        self.assertEqual((b["operstate"], b["admin_up"], b["carrier"]), ("up", True, True))
        b = {n["name"]: n for n in netdevs("net-cx4lx-roce-lag-down")["facts"]["netdevs"]}["eth02"]["bond"]
        self.assertEqual((b["operstate"], b["admin_up"], b["carrier"]), ("down", True, False))

    def test_roce_lag_port_down_names_the_bond(self):
        # mlx5_bond_0's port runs over bond0, which facts.netdevs does not list (not a ConnectX
        # netdev): the finding takes the bond's state from its members, never "netdev unknown"
        j = check("net-cx4lx-roce-lag-down")
        self.assertEqual(findings(j, "NET_PORT_DOWN"), [("warn", "mlx5_bond_0/1")])
        f = [f for f in j["findings"] if f["rule_id"] == "NET_PORT_DOWN"][0]
        self.assertEqual(f["message"], "port is DOWN (physical state Disabled): it is the RoCE LAG port of bond "
                                       "bond0, which has no carrier (members: eth01 no carrier, eth02 no carrier)")
        self.assertNotIn("unknown", f["message"])
        ev = {e["fact"]: (e["observed"], e["expected"]) for e in f["evidence"]}
        self.assertEqual(ev["netdevs[eth01].bond.carrier"], ("false", "true"))
        self.assertEqual(ev["netdevs[eth01].bond.admin_up"], ("true", "true"))
        self.assertEqual(ev["netdevs[eth02].carrier"], ("false", "true"))
        self.assertIn("`cat /proc/net/bonding/bond0`", f["fix"])
        self.assertIn("`mstlink -d 0000:3b:00.0 -p 1`", f["fix"])
        # the real host's LAG port is up: nothing to say
        self.assertEqual(findings(check("net-cx4lx-bond-mtu-agree"), "NET_PORT_DOWN"), [])

    def test_snapshot_keeps_the_bond(self):
        # the master link and the bond's directory travel in the snapshot
        snapshot_replays(self, "net-cx4lx-bond-mtu-mismatch")

    def hostile(self, target):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        root = os.path.join(d, "root")
        shutil.copytree(hwctest.fixture("net-cx4lx-bond-mtu-agree", "root"), root, symlinks=True)
        link = os.path.join(root, "sys/devices/pci0000:3a/0000:3b:00.0/net/eth01/master")
        os.unlink(link)
        os.symlink(target, link)
        cp, j = run_json("--root", root, "facts", "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return {n["name"]: n for n in j["facts"]["netdevs"]}["eth01"]

    def test_broken_master_links(self):
        # a link out of the root, to a bridge-like directory or to nothing: a status, never the
        # analysing machine's files and never a crash
        n = self.hostile("../../../../../../../../../sys/class/net/lo")
        self.assertIsNone(n["bond"])
        self.assertEqual(n["unavailable"]["bond"]["status"], "unsupported")
        self.assertIn("not a bond", n["unavailable"]["bond"]["detail"])
        n = self.hostile("/")
        self.assertEqual(n["unavailable"]["bond"]["status"], "invalid")
        n = self.hostile("../../../../virtual/net/nosuch0")
        self.assertEqual(n["unavailable"]["bond"]["status"], "unsupported")


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# Verdicts on real captures (issue 12 sections 1 and 2), through `hwcheck --root` on the
# tests/fixtures/field-* roots that tests/rules/mkfield.py builds from the corpus:
# - every real down ConnectX port of the corpus (ibverbs/) is flagged, with its netdev deciding
#   whether it was switched off on purpose, and a port the profile declares unused stays quiet;
# - the PCI_WR_ORDERING incident of two AMD EPYC 9754 nodes (four ConnectX-7 each): the node whose
#   cards are all per_mkey is never an error by default, the node with one force_relax card among
#   three per_mkey gets exactly that card flagged, with the majority value; `merge` shows it
#   across hosts; the advice follows the profile's host.role.
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

PORT_RULE = "NET_PORT_DOWN"
WO_RULES = ("MLX_WR_ORDERING_PER_MKEY", "MLX_FW_CONFIG_INCONSISTENT")

# Every down ConnectX port in the corpus's ibverbs/ captures (the Intel i40iw port of
# cx5-ib_plus_intel-x722 is not a ConnectX): root -> the findings NET_PORT_DOWN must give.
DOWN_PORTS = {
    "field-ports-cx6-eth-down": [("warn", "mlx5_0/1"), ("warn", "mlx5_1/1")],
    "field-ports-cx8-ib-disabled": [("warn", f"mlx5_{n}/1") for n in (0, 1, 10, 6, 7, 8, 9)],
    "field-ports-cx6-ib-disabled": [("warn", "mlx5_1/1")],
    "field-ports-cx4lx-eth-down": [("warn", "mlx5_1/1")],
    "field-ports-cx3-ib-port2-down": [("warn", "mlx4_0/2")],
    "field-ports-cx3x2-ib-port2-down": [("warn", "mlx4_0/2"), ("warn", "mlx4_1/2")],
}
QUIET_PORTS = {
    # the same ConnectX-6 ports with their netdevs set down: intended, info only
    "field-ports-cx6-eth-admin-down": [("info", "mlx5_0/1"), ("info", "mlx5_1/1")],
    # two active RoCE ports: nothing
    "field-ports-cx7-roce-active": [],
}


def root(name):
    return hwctest.fixture(name, "root")


def check(name, *extra):
    cp, doc = run_json("--root", root(name), "--json", *extra)
    hwctest.validate(doc)
    return cp, doc


def mine(doc, rules):
    rules = (rules,) if isinstance(rules, str) else rules
    return [f for f in doc["findings"] if f["rule_id"] in rules]


def pairs(findings):
    return sorted((f["severity"], f["subject"]) for f in findings)


def profile_file(d, body):
    p = os.path.join(d, "profile.json")
    with open(p, "w") as f:
        json.dump({"schema": "hwcheck.profile", "schema_version": 1, **body}, f)
    return p


class Roots(unittest.TestCase):
    def test_roots_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "mkfield.py"), "--check"],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_roots_documented(self):
        for name in list(DOWN_PORTS) + list(QUIET_PORTS) + ["field-wrorder-epyc9754-aligned",
                                                             "field-wrorder-epyc9754-outlier"]:
            with open(hwctest.fixture(name, "SOURCE.md")) as f:
                text = f.read()
            self.assertIn("corpus", text, name)
            self.assertIn("RECONSTRUCTED", text, name)


class IbMtu(unittest.TestCase):
    def test_ib_port_mtu_from_portinfo(self):
        # the real ConnectX-6 HDR port's MTUs (ibv_devinfo -vv: active_mtu = max_mtu = 4096) as its
        # PortInfo NeighborMTU/MtuCap: NET_ROCE_MTU_SMALL judges the InfiniBand port and passes
        _, doc = check("field-ports-cx6-ib-disabled")
        port = [p for ad in doc["facts"]["mlx"]["adapters"] for p in ad["ports"] if p["rdma_device"] == "mlx5_0"][0]
        self.assertEqual((port["portinfo"]["neighbor_mtu"], port["portinfo"]["mtu_cap"]), (4096, 4096))
        self.assertEqual((port["active_mtu"], port["max_mtu"]), (4096, 4096))
        self.assertEqual(mine(doc, "NET_ROCE_MTU_SMALL"), [])
        # the ConnectX-3 roots have no PortInfo recorded: unknown with the capture's reason, never a pass
        _, doc = check("field-ports-cx3-ib-port2-down")
        got = mine(doc, "NET_ROCE_MTU_SMALL")
        self.assertEqual(pairs(got), [("unknown", "mlx4_0/1")])
        self.assertIn("portinfo.neighbor_mtu is unknown (absent: smpquery: not in this capture)", got[0]["message"])


class DownPorts(unittest.TestCase):
    def test_every_real_down_port_flagged(self):
        flagged = 0
        for name, want in DOWN_PORTS.items():
            with self.subTest(root=name):
                _, doc = check(name)
                got = mine(doc, PORT_RULE)
                self.assertEqual(pairs(got), sorted(want), json.dumps(got, indent=1)[:2000])
                for f in got:
                    self.assertTrue(f["fix"] and "<" not in f["fix"], f["fix"])
                    self.assertTrue(f["evidence"])
                flagged += len(got)
        # 14 real down ConnectX ports in ibverbs/: all are flagged
        self.assertEqual(flagged, 14)

    def test_disabled_is_not_administrative(self):
        # mlx5 says DOWN/Disabled for a RoCE port without carrier: the message says why
        _, doc = check("field-ports-cx6-eth-down")
        for f in mine(doc, PORT_RULE):
            self.assertIn("no carrier", f["message"])
            facts = [e["fact"] for e in f["evidence"]]
            self.assertTrue(any(x.endswith(".carrier") for x in facts), facts)

    def test_ib_disabled_fix_enables_the_port(self):
        # IB PhysState Disabled is a port switched off (the SM, ibportstate, mstlink's port_state) or,
        # as these very captures suggest (ports nobody is known to have disabled), one without an
        # accepted module: the fix looks at the module first, then says how to enable the port;
        # Polling (the ConnectX-3's port 2) keeps the cable (both were told "check the cable")
        for name, dev in (("field-ports-cx6-ib-disabled", "mlx5_1"), ("field-ports-cx8-ib-disabled", "mlx5_0")):
            with self.subTest(root=name):
                _, doc = check(name)
                f = next(f for f in mine(doc, PORT_RULE) if f["subject"] == f"{dev}/1")
                self.assertIn("either the port was switched off", f["message"])
                self.assertIn("or the card sees no module it accepts", f["message"])
                self.assertTrue(f["fix"].startswith("First see whether the card sees a module: `mstlink -d "), f["fix"])
                self.assertIn(f"`ibportstate -C {dev} -P 1 -D 0 1 enable`", f["fix"])
                self.assertNotIn("Check the cable", f["fix"])
        _, doc = check("field-ports-cx3x2-ib-port2-down")
        f = next(f for f in mine(doc, PORT_RULE) if f["subject"] == "mlx4_1/2")
        self.assertIn("physical state Polling", f["message"])
        self.assertIn("Check the cable or transceiver", f["fix"])
        self.assertNotIn("enable", f["fix"])

    def test_quiet_roots(self):
        for name, want in QUIET_PORTS.items():
            with self.subTest(root=name):
                cp, doc = check(name)
                got = mine(doc, PORT_RULE)
                self.assertEqual(pairs(got), sorted(want), json.dumps(got, indent=1)[:2000])
                for f in got:
                    self.assertIn("administratively down", f["message"])

    def test_netdev_facts(self):
        _, doc = check("field-ports-cx6-eth-down")
        nd = {n["name"]: n for n in doc["facts"]["netdevs"]}
        self.assertEqual((nd["enp1s0f0np0"]["admin_up"], nd["enp1s0f0np0"]["carrier"]), (True, False))
        _, doc = check("field-ports-cx6-eth-admin-down")
        n0 = {n["name"]: n for n in doc["facts"]["netdevs"]}["enp1s0f0np0"]
        self.assertIs(n0["admin_up"], False)
        self.assertIsNone(n0["carrier"])
        self.assertIn("carrier", n0["unavailable"])

    def test_unused_ports_quiet(self):
        with tempfile.TemporaryDirectory() as d:
            for sel in ({"netdev": "enp1s0f0np0"}, {"bdf": "01:00.0"}, {"bdf": "0000:01:00.0"},
                        {"rdma_device": "mlx5_0", "port": 1}, {"rdma_device": "mlx5_0"}):
                with self.subTest(sel=sel):
                    p = profile_file(d, {"unused_ports": [dict(sel, reason="second uplink, not cabled")]})
                    _, doc = check("field-ports-cx6-eth-down", "--profile", p)
                    self.assertEqual(pairs(mine(doc, PORT_RULE)), [("warn", "mlx5_1/1")])
            p = profile_file(d, {"unused_ports": [{"rdma_device": f"mlx5_{n}"} for n in (0, 1, 10, 6, 7, 8, 9)]})
            _, doc = check("field-ports-cx8-ib-disabled", "--profile", p)
            self.assertEqual(mine(doc, PORT_RULE), [])
            # an InfiniBand port has no netdev: its PCI function comes from the function map
            p = profile_file(d, {"unused_ports": [{"bdf": "0000:10:00.0"}, {"bdf": "20:00.0"}]})
            _, doc = check("field-ports-cx8-ib-disabled", "--profile", p)
            self.assertEqual(pairs(mine(doc, PORT_RULE)), [("warn", f"mlx5_{n}/1") for n in (10, 6, 7, 8, 9)])
            # mlx4: one function, two ports; rdma_device + port picks one
            p = profile_file(d, {"unused_ports": [{"rdma_device": "mlx4_0", "port": 2}]})
            _, doc = check("field-ports-cx3x2-ib-port2-down", "--profile", p)
            self.assertEqual(pairs(mine(doc, PORT_RULE)), [("warn", "mlx4_1/2")])


class WrOrdering(unittest.TestCase):
    def test_aligned_node_clean_by_default(self):
        # the good node (194 GB/s): four ConnectX-7 per_mkey on an EPYC 9754 is never an error
        _, doc = check("field-wrorder-epyc9754-aligned")
        got = mine(doc, WO_RULES)
        self.assertEqual(pairs(got), [("info", "host")], json.dumps(got, indent=1))
        self.assertIn("GPU/NCCL", got[0]["message"])
        self.assertEqual(len(got[0]["evidence"]), 5)  # four cards and the CPU vendor
        self.assertNotIn("<", got[0]["fix"])

    def test_outlier_node_flags_the_outlier_only(self):
        # the slow node (53 GB/s): one force_relax card among three per_mkey
        _, doc = check("field-wrorder-epyc9754-outlier")
        ads = doc["facts"]["mlx"]["adapters"]
        self.assertEqual([a["fw_config_complete"] for a in ads], [True] * 4)  # the listings parse whole
        self.assertEqual([a["fw_config"]["PCI_WR_ORDERING"]["current"] for a in ads],
                         ["per_mkey", "force_relax", "per_mkey", "per_mkey"])
        got = mine(doc, WO_RULES)
        self.assertEqual([(f["rule_id"], f["severity"], f["subject"]) for f in got],
                         [("MLX_FW_CONFIG_INCONSISTENT", "error", "0000:41:00.0")])
        f = got[0]
        self.assertIn("PCI_WR_ORDERING is force_relax", f["message"])
        self.assertIn("3 of the 4 MT_0000000838 cards", f["message"])
        self.assertIn("per_mkey", f["message"])
        self.assertEqual(f["evidence"][0]["expected"], "per_mkey")
        self.assertIn("mstconfig -d 0000:41:00.0 set PCI_WR_ORDERING=per_mkey", f["fix"])

    def test_roles(self):
        with tempfile.TemporaryDirectory() as d:
            cards = ["0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"]
            for role in ("storage_client", "smb_client"):
                _, doc = check("field-wrorder-epyc9754-aligned", "--profile", profile_file(d, {"host": {"role": role}}))
                self.assertEqual(pairs(mine(doc, WO_RULES)), [("error", c) for c in cards])
                self.assertIn("about 2 GB/s", mine(doc, WO_RULES)[0]["message"])
            p = profile_file(d, {"host": {"role": "gpu_compute"}})
            _, doc = check("field-wrorder-epyc9754-aligned", "--profile", p)
            self.assertEqual(mine(doc, WO_RULES), [])
            _, doc = check("field-wrorder-epyc9754-outlier", "--profile", p)
            self.assertEqual(pairs(mine(doc, WO_RULES)), [("error", "0000:41:00.0")])
            p = profile_file(d, {"host": {"pci_wr_ordering": "per_mkey"}})
            _, doc = check("field-wrorder-epyc9754-outlier", "--profile", p)
            self.assertEqual(sorted((f["rule_id"], f["subject"]) for f in mine(doc, WO_RULES)),
                             [("MLX_FW_CONFIG_INCONSISTENT", "0000:41:00.0"),
                              ("MLX_WR_ORDERING_PER_MKEY", "0000:41:00.0")])

    def test_seed_scenario_by_role(self):
        # the single ConnectX-6 Dx per_mkey scenario: info by default, the seed's error for an
        # SMB client
        r = hwctest.fixture("cx6dx-amd-wr-ordering", "root")
        _, doc = run_json("--root", r, "--json")
        self.assertEqual(pairs(mine(doc, WO_RULES)), [("info", "host")])
        with tempfile.TemporaryDirectory() as d:
            cp, doc = run_json("--root", r, "--json", "--profile", profile_file(d, {"host": {"role": "smb_client"}}))
            self.assertEqual(pairs(mine(doc, WO_RULES)), [("error", "0000:41:00.0")])
            self.assertEqual(cp.returncode, 1)

    def test_merge_across_hosts(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name in ("field-wrorder-epyc9754-aligned", "field-wrorder-epyc9754-outlier"):
                _, doc = check(name)
                p = os.path.join(d, name + ".json")
                with open(p, "w") as f:
                    json.dump(doc, f)
                paths.append(p)
            cp, m = run_json("merge", "--json", *paths)
            hwctest.validate(m)
            self.assertEqual(cp.returncode, 1, cp.stderr)
            hosts = [h["host"] for h in m["findings"]["hosts"]]
            wo = [g for g in m["fw_config"] if g["param"] == "PCI_WR_ORDERING"]
            self.assertEqual(len(wo), 1, m["fw_config"])
            g = wo[0]
            self.assertEqual((g["product"], g["majority"], g["tie"], g["cards"]), ("MT_0000000838", "per_mkey", False, 8))
            self.assertEqual(g["minority"], [{"host": hosts[1], "card": "0000:41:00.0", "value": "force_relax"}])
            text = run("merge", *paths).stdout
            self.assertRegex(text, r"MT_0000000838 PCI_WR_ORDERING: per_mkey on 7 of 8 cards; .*0000:41:00\.0 force_relax")
            # the aligned node alone with itself: nothing differs
            cp, m = run_json("merge", "--json", paths[0], paths[0])
            self.assertEqual(m["fw_config"], [])


class Explain(unittest.TestCase):
    def test_explain_names_the_figures_and_their_sources(self):
        text = run("rules", "explain", "MLX_WR_ORDERING_PER_MKEY").stdout
        for s in ("Lenovo P620", "2 GB/s", "SMB", "EPYC 9754", "194 GB/s", "53 GB/s", "gpu_compute",
                  "storage_client", "smb_client", "pci_wr_ordering", "never as an error"):
            self.assertIn(s, re.sub(r"\s+", " ", text), s)

    def test_consistency_table_explained(self):
        text = re.sub(r"\s+", " ", run("rules", "explain", "MLX_FW_CONFIG_INCONSISTENT").stdout)
        with open(hwctest.source("rules", "fwc_spread.c")) as f:
            names = re.findall(r'^\t\{"([A-Z0-9_]+)", HWC_SEV_', f.read(), re.M)
        self.assertGreater(len(names), 10)
        for n in names:
            self.assertIn(n, text, f"{n} of the table is not in the rule's text")


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# The per-card view (issue 13 §2): every card, healthy ones too, gets one block whose lines each
# carry a verdict (ok, the finding that judged it, unknown and why), in text (within 100
# columns) and in the JSON report's "cards" (schema'd; one jq path gives width and temperature);
# `hwcheck list`, the inventory; the README's example is the real output of a fixture.
import glob
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

HEALTHY = "healthy-cx7-gen5x16"
NO_TOOLS = "host-cx7-gen5-healthy"
BOTTLENECK = "cx5-gen3x8-100g"
README_FIXTURE = "host-cx5-x8-slot"


def root(name):
    return hwctest.fixture(name, "root")


def all_roots():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(hwctest.fixture("*", "root")) if os.path.isdir(p))


def card(doc, bdf):
    return next(c for c in doc["cards"] if c["bdf"] == bdf)


def check(c, item, subject=None):
    got = [k for k in c["checks"] if k["item"] == item and (subject is None or k.get("subject") == subject)]
    assert len(got) == 1, (item, subject, got)
    return got[0]


class CardsJson(unittest.TestCase):
    def test_every_fixture(self):
        """On every fixture root: a card per adapter, the schema, every finding of a card on
        exactly one of its lines, verdicts consistent with the findings."""
        for fx in all_roots():
            with self.subTest(fx):
                cp, j = run_json("--root", root(fx), "--json")
                hwctest.validate(j)
                adapters = [a["bdf"] for a in j["facts"].get("mlx", {}).get("adapters") or []]
                self.assertEqual([c["bdf"] for c in j["cards"]], adapters)
                for c in j["cards"]:
                    mine = [f for f in j["findings"] if f["card"] == c["bdf"]]
                    claimed = []
                    for k in c["checks"]:
                        claimed += [(r, k.get("subject")) for r in k["rules"]]
                        claimed += [(r, k.get("subject")) for r in k["undecided"]
                                    if k["verdict"] != "unknown"]
                        if k["verdict"] == "ok":
                            self.assertEqual(k["rules"] + k["undecided"], [], k)
                            self.assertIsNotNone(k["value"], k)
                        if k["value"] is None:
                            # not_judged: a line no rule judges (the far end) says why it is unknown
                            self.assertIn(k["verdict"], ("unknown", "error", "warn", "info", "waived", "not_judged"), k)
                            if k["verdict"] == "not_judged":
                                self.assertEqual(k["rules"] + k["undecided"], [], k)
                            self.assertTrue(k["reason"], k)
                    for f in mine:
                        self.assertIn(f["rule_id"], [r for r, _ in claimed], (c["bdf"], f))
                    live = {f["severity"] for f in mine if not f["waived"]}
                    want = ("error" if "error" in live else "warn" if "warn" in live else
                            "incomplete" if "unknown" in live or any(k["verdict"] == "unknown" for k in c["checks"])
                            else "ok")
                    self.assertEqual(c["verdict"], want, c["bdf"])

    def test_healthy_every_line_ok(self):
        _, j = run_json("--root", root(HEALTHY), "--json")
        self.assertEqual(len(j["cards"]), 2)
        for c in j["cards"]:
            self.assertEqual(c["verdict"], "ok")
            # ok, but the far end: no lldpcli in this capture, shown as unknown, judged by no rule;
            # and the RoCE chain: no dcb in it, no profile asks for a lossless chain: shown, not judged
            self.assertEqual({k["verdict"] for k in c["checks"] if k["item"] not in ("port_far_end", "port_roce")},
                             {"ok"}, c["checks"])
            self.assertEqual({(k["verdict"], k["value"]) for k in c["checks"] if k["item"] == "port_roce"},
                             {("not_judged", None)})
            self.assertIn("trust unknown (dcb: not in this capture)",
                          next(k["reason"] for k in c["checks"] if k["item"] == "port_roce"))
            self.assertEqual({(k["verdict"], k["reason"]) for k in c["checks"] if k["item"] == "port_far_end"},
                             {("not_judged", "lldpcli: not in this capture")})
            items = [k["item"] for k in c["checks"]]
            for want in ("firmware", "pcie_link", "pcie_path", "slot_power", "temperature",
                         "fw_params", "port"):
                self.assertIn(want, items)
            self.assertEqual(items.count("port"), 2)
        c = card(j, "0000:21:00.0")
        self.assertEqual((c["product"], c["psid"], c["fw_version"], c["numa_node"]),
                         ("ConnectX-7", "MT_0000000838", "28.39.1002", 0))
        self.assertEqual(c["pcie"]["width"], 16)
        self.assertEqual(c["pcie"]["speed_gts"], 32.0)
        self.assertEqual(c["pcie"]["slot_power_w"], 75.0)
        self.assertEqual(c["pcie"]["bottleneck"]["bdf"], "0000:20:03.1")
        self.assertEqual(c["temperature_degc"], 56.0)
        self.assertEqual([(p["netdev"], p["state"], p["rate_gbps"], p["mtu"]) for p in c["ports"]],
                         [("ens1f0np0", "ACTIVE", 200.0, 9000), ("ens1f1np1", "ACTIVE", 200.0, 9000)])
        self.assertIn("PCI_WR_ORDERING=force_relax", check(c, "fw_params")["value"])

    def test_one_path_gives_width_and_temperature(self):
        # what `jq '.cards[] | {bdf, width: .pcie.width, temp: .temperature_degc}'` prints
        _, j = run_json("--root", root("cx6dx-card-88c"), "--json")
        got = [(c["bdf"], c["pcie"]["width"], c["temperature_degc"]) for c in j["cards"]]
        self.assertEqual(got, [("0000:41:00.0", 16, 88.0)])
        # and the same degrees as the thermal facts, in millidegrees there
        s = [x for x in j["facts"]["thermal"]["sensors"] if x.get("bdf") == "0000:41:00.0"]
        self.assertEqual(s[0]["temp_mdegc"], 88000)
        self.assertEqual(check(j["cards"][0], "temperature")["rules"], ["THERMAL_CARD_OVER_LIMIT"])
        self.assertEqual(check(j["cards"][0], "temperature")["verdict"], "warn")

    def test_bottleneck_line(self):
        _, j = run_json("--root", root(BOTTLENECK), "--json")
        c = card(j, "0001:43:00.0")
        k = check(c, "pcie_path")
        self.assertEqual((k["verdict"], k["rules"]), ("error", ["PCIE_PATH_BOTTLENECK"]))
        self.assertIn("hop 0001:42:01.0 Gen3 x8", k["value"])
        k = check(c, "pcie_link")
        self.assertEqual((k["verdict"], k["rules"]), ("info", ["PCIE_LINK_SLOT_LIMITED"]))
        self.assertEqual((c["pcie"]["width"], c["pcie"]["cap_width"]), (8, 16))
        self.assertEqual(c["verdict"], "error")

    def test_unknown_says_why(self):
        _, j = run_json("--root", root(NO_TOOLS), "--json")
        c = card(j, "0000:21:00.0")
        self.assertEqual(c["verdict"], "incomplete")
        k = check(c, "fw_params")
        self.assertEqual(k["verdict"], "unknown")
        self.assertIsNone(k["value"])
        self.assertIn("mstconfig: not in this capture", k["reason"])
        self.assertEqual(sorted(k["rules"]), ["MLX_CONFIG_PENDING", "MLX_WR_ORDERING_PER_MKEY"])
        self.assertIsNone(c["temperature_degc"])
        # the link itself was read: its value stays, the rule that needs mstconfig is undecided
        k = check(c, "pcie_link")
        self.assertEqual((k["verdict"], k["undecided"]), ("unknown", ["PCIE_FW_LINK_RESTRICTED"]))
        self.assertIn("Gen5 x16", k["value"])

    def test_each_undecided_rule_with_its_own_cause(self):
        # host-cx7-gen5-nonroot: PCIE_FW_LINK_RESTRICTED waits for mstconfig, PCIE_LANE_ERRORS for
        # config space as root: the line says each cause of its own rules, never one for both
        _, j = run_json("--root", root("host-cx7-gen5-nonroot"), "--json")
        k = check(card(j, "0000:21:00.0"), "pcie_link")
        self.assertEqual((k["verdict"], sorted(k["undecided"])),
                         ("unknown", ["PCIE_FW_LINK_RESTRICTED", "PCIE_LANE_ERRORS"]))
        self.assertEqual(k["reason"], "absent: mstconfig: not in this capture (PCIE_FW_LINK_RESTRICTED); "
                                      "needs_root: config space beyond 64 bytes needs root (PCIE_LANE_ERRORS)")

    def test_pcie_unknown_names_the_missing_config(self):
        # field-ports-cx3-ib-port2-down (real ibstat of a ConnectX-3) holds no config space: the
        # PCIe lines say that file is missing, as PCIE_LANE_ERRORS did, not "not collected"
        _, j = run_json("--root", root("field-ports-cx3-ib-port2-down"), "--json")
        c = card(j, "0000:81:00.0")
        missing = "/sys/bus/pci/devices/0000:81:00.0/config: No such file or directory"
        for item in ("pcie_link", "pcie_path", "pcie_config", "slot_power"):
            k = check(c, item)
            self.assertEqual(k["verdict"], "unknown", item)
            self.assertIn(missing, k["reason"], item)
            self.assertNotIn("not collected", k["reason"], item)
        why = {u["rule"]: u["reason"] for u in j["summary"]["unknown"] if u["subject"] == "0000:81:00.0"}
        for rule in ("PCIE_LINK_DOWNGRADED", "PCIE_PATH_BOTTLENECK", "PCIE_SLOT_POWER_LOW"):
            self.assertIn(missing, why[rule], rule)

    def test_rate_unknown_says_why(self):
        # ethtool was not in this capture: the link rate line gives the facts' reason for the
        # missing link modes (netdevs[].link.unavailable.modes), not "not collected"
        _, j = run_json("--root", root("link-farend-lldpd-down"), "--json")
        nd = next(n for n in j["facts"]["netdevs"] if n["name"] == "enp153s0np0")
        self.assertIsNone(nd["link"]["modes"])
        self.assertEqual(nd["link"]["unavailable"]["modes"]["detail"], "ethtool: not in this capture")
        k = [k for c in j["cards"] for k in c["checks"]
             if k["item"] == "port_rate" and k.get("subject") == "enp153s0np0"]
        self.assertEqual([x["verdict"] for x in k], ["unknown"])
        self.assertEqual(k[0]["reason"], "enp153s0np0: negotiated rate unknown (ethtool: not in this capture)")

    def test_disabled_rules_are_not_ok(self):
        # "ok" means checked: a line whose rules the profile turned off is shown, not judged
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "p.json")
            json.dump({"schema": "hwcheck.profile", "schema_version": 1, "rules": {
                "THERMAL_CARD_NEAR_WARNING": {"enabled": False},
                "THERMAL_CARD_OVER_LIMIT": {"enabled": False}}}, open(p, "w"))
            _, j = run_json("--root", root(HEALTHY), "--json", "--profile", p)
            k = check(card(j, "0000:21:00.0"), "temperature")
            self.assertEqual((k["verdict"], k["value"][:9]), ("not_judged", "56.0 degC"))
            out = run("--root", root(HEALTHY), "--profile", p).stdout
            self.assertRegex(out, r"\n  - +temperature +56\.0 degC")

    def test_finding_no_line_claims_is_kept(self):
        # a profile expectation on the card's netdev: no line lists it, "other" shows it
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "p.json")
            json.dump({"schema": "hwcheck.profile", "schema_version": 1, "expectations": [
                {"id": "SITE_MTU", "fact": "netdevs[].mtu", "op": ">=", "value": 9500}]}, open(p, "w"))
            _, j = run_json("--root", root(HEALTHY), "--json", "--profile", p)
            c = card(j, "0000:21:00.0")
            others = [k for k in c["checks"] if k["item"] == "other"]
            self.assertEqual(sorted(k["subject"] for k in others), ["ens1f0np0", "ens1f1np1"])
            self.assertEqual({k["verdict"] for k in others}, {"warn"})
            self.assertEqual(c["verdict"], "warn")

    def test_flash_recovery_card(self):
        # a card in flash recovery: MLX_FLASH_RECOVERY judges its firmware line (it was an "other"
        # line), and the port line says why it has no port (it asked "mlx5_ib or mlx4_ib
        # loaded?"), with NET_PORT_DOWN's unknown on it (also an "other" line before)
        _, j = run_json("--root", root("mlx-cx5-flash-recovery"), "--json")
        c = card(j, "0000:01:00.0")
        self.assertEqual([k for k in c["checks"] if k["item"] == "other"], [])
        fw = check(c, "firmware")
        self.assertEqual((fw["verdict"], fw["rules"]), ("error", ["MLX_FLASH_RECOVERY"]))
        port = check(c, "port")
        self.assertEqual(port["verdict"], "unknown")
        self.assertEqual(port["undecided"], ["NET_PORT_DOWN"])
        self.assertIn("the card is in flash recovery", port["reason"])
        self.assertNotIn("loaded?", port["reason"])
        f = [f for f in j["findings"] if f["rule_id"] == "NET_PORT_DOWN" and f["card"] == "0000:01:00.0"]
        self.assertEqual(len(f), 1)
        self.assertIn("ports is unknown (the card is in flash recovery", f[0]["message"])


class CardsText(unittest.TestCase):
    def test_healthy_host_prints_every_card(self):
        out = run("--root", root(HEALTHY)).stdout
        for bdf in ("0000:21:00.0", "0000:81:00.0"):
            self.assertIn(f"card {bdf}: ConnectX-7 MCX755106AS-HEAT_Ax, PSID MT_0000000838", out)
        self.assertRegex(out, r"\n  ok +PCIe link +Gen5 x16 \(32 GT/s\), capable Gen5 x16")
        self.assertRegex(out, r"\n  ok +temperature +56\.0 degC")
        self.assertRegex(out, r"\n  ok +port +ens1f0np0 mlx5_0/1: ACTIVE LinkUp, Ethernet 200 Gb/s, MTU 9000")

    def test_within_100_columns(self):
        for fx in all_roots():
            for extra in ([], ["-v"]):
                with self.subTest(fx=fx, extra=extra):
                    out = run("--root", root(fx), "--no-color", *extra).stdout
                    long = [l for l in out.splitlines() if len(l) > 100]
                    self.assertEqual(long, [])

    def test_each_cause_once(self):
        out = run("--root", root(NO_TOOLS)).stdout
        und = out[out.index("\nundecided: 21 rule instances"):]  # + MLX_KERNEL_EVENTS x2: no dmesg; THERMAL_HOST_HOT, HOST_CPU_POWERSAVE
        self.assertEqual(und.count("absent: mstconfig: not in this capture"), 1)
        self.assertIn("MLX_CONFIG_PENDING, MLX_WR_ORDERING_PER_MKEY, PCIE_FW_LINK_RESTRICTED", und)
        verbose = run("--root", root(NO_TOOLS), "-v").stdout
        und = verbose[verbose.index("\nundecided: "):]
        self.assertEqual(und.count("absent: mstconfig: not in this capture"), 1)
        self.assertIn("MLX_WR_ORDERING_PER_MKEY [0000:81:00.0]: mlx.adapters[0000:81:00.0].fw_config", und)

    def test_text_matches_json(self):
        cp, j = run_json("--root", root(BOTTLENECK), "--json")
        text = run("--root", root(BOTTLENECK), "--no-color").stdout
        flat = re.sub(r"\n {24}", " ", text)
        for c in j["cards"]:
            for k in c["checks"]:
                if k["value"]:
                    self.assertIn(k["value"], flat)

    def test_readme_shows_a_real_fixture(self):
        readme = open(hwctest.source("README.md")).read()
        self.assertTrue(readme.startswith("# hwcheck\n\n```sh\nscripts/hwcheck-dev run\n"
                                          "scripts/hwcheck-dev test\n```\n"))
        m = re.search(r"```\n(\$ hwcheck --root tests/fixtures/" + README_FIXTURE + r"/root\n.*?)```",
                      readme, re.S)
        self.assertIsNotNone(m, "README.md has no example of " + README_FIXTURE)
        shown = m.group(1).split("\n", 1)[1]
        out = run("--root", root(README_FIXTURE), "--no-color").stdout
        # the example is the output's card block, verbatim
        self.assertIn(shown, out.replace("root " + root(README_FIXTURE), "root tests/fixtures/"
                                         + README_FIXTURE + "/root"))
        self.assertIn("card 0001:43:00.0", shown)


class List(unittest.TestCase):
    def test_inventory(self):
        cp = run("--root", root(HEALTHY), "list")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        rows = [l.split() for l in cp.stdout.splitlines()]
        self.assertEqual(rows[0], ["BDF", "PRODUCT", "PSID", "FIRMWARE", "NUMA", "NETDEV", "RDMA", "PORTS"])
        self.assertEqual(rows[1], ["0000:21:00.0", "ConnectX-7", "MT_0000000838", "28.39.1002", "0",
                                   "ens1f0np0", "mlx5_0", "1:ACTIVE/200G"])
        self.assertEqual([r[0] for r in rows[1:]], ["0000:21:00.0", "0000:21:00.1", "0000:81:00.0",
                                                     "0000:81:00.1"])
        self.assertEqual([r[4] for r in rows[1:]], ["0", "0", "1", "1"])

    def test_json_and_schema(self):
        for fx in (HEALTHY, "mlx-multi-card", "mlx-azure-vf", "thermal-bf2-x3-sensors"):
            cp, j = run_json("--root", root(fx), "list", "--json")
            self.assertEqual(cp.returncode, 0, cp.stderr)
            self.assertEqual(j["schema"], "hwcheck.list")
            hwctest.validate(j)
            facts = run_json("--root", root(fx), "facts", "--json")[1]["facts"]
            self.assertEqual([c["bdf"] for c in j["cards"]], [a["bdf"] for a in facts["mlx"]["adapters"]])
        _, j = run_json("--root", root("mlx-azure-vf"), "list", "--json")
        self.assertTrue(all(f["is_vf"] for c in j["cards"] for f in c["functions"]))

    def test_device_filter_and_errors(self):
        cp = run("--root", root(HEALTHY), "list", "-d", "mlx5_2")
        self.assertEqual([l.split()[0] for l in cp.stdout.splitlines()[1:]], ["0000:81:00.0", "0000:81:00.1"])
        self.assertEqual(run("--root", root(HEALTHY), "list", "-d", "nosuch0").returncode, 2)
        self.assertEqual(run("--root", root(HEALTHY), "list", "extra").returncode, 2)
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(run("--root", d, "list").returncode, 3)
            out = os.path.join(d, "inv.txt")
            self.assertEqual(run("--root", root(HEALTHY), "list", "-o", out).returncode, 0)
            self.assertIn("0000:81:00.1", open(out).read())

    def test_adapters_unknown_is_not_none(self):
        # a capture without sys/bus/pci (the development VM's host-hw-this-vm): the PCI functions
        # could not be listed, so whether a card is there is unknown, not "no adapter found"
        fx = root("host-hw-this-vm")
        cp = run("--root", fx, "list")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(cp.stdout, "ConnectX adapters unknown (absent: /sys/bus/pci/devices: "
                                    "No such file or directory)\n")
        cp, j = run_json("--root", fx, "list", "--json")
        hwctest.validate(j)
        self.assertIsNone(j["cards"])
        self.assertEqual(j["unavailable"]["cards"]["status"], "absent")
        # the live development VM's own capture has sys/bus/pci and no ConnectX: none, as before
        cp, j = run_json("--root", root("vm-q35-rails"), "list", "--json")
        self.assertEqual(j["cards"], [])
        self.assertNotIn("unavailable", j)
        self.assertEqual(run("--root", root("vm-q35-rails"), "list").stdout, "no ConnectX adapter found\n")


if __name__ == "__main__":
    hwctest.main()

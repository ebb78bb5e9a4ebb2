# SPDX-License-Identifier: MIT
# facts.mlx on the tests/fixtures/mlx-* roots (real captures replayed): goldens, schema, round
# trip through --facts, and the facts each capture is known to hold (corpus INDEX.md).
import glob
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402


def fixtures():
    return sorted(glob.glob(hwctest.fixture("mlx-*")))


def mlx_facts(name, *extra):
    cp, j = run_json("--root", hwctest.fixture(name, "root"), "facts", "--json", *extra)
    if cp.returncode != 0:
        raise AssertionError(f"{name}: exit {cp.returncode}: {cp.stderr}")
    return j


def adapter(doc, bdf):
    for a in doc["facts"]["mlx"]["adapters"]:
        if a["bdf"] == bdf:
            return a
    raise AssertionError(f"no adapter {bdf}")


def status(obj, key):
    assert obj[key] is None, f"{key} = {obj[key]!r}, expected null"
    return obj["unavailable"][key]["status"]


def round_trip(tc, doc):
    """facts -> JSON -> --facts -> JSON is exact for the mlx section."""
    with tempfile.TemporaryDirectory() as t:
        f = os.path.join(t, "facts.json")
        with open(f, "w") as out:
            json.dump(doc, out)
        cp, again = run_json("facts", "--json", "--facts", f)
    tc.assertEqual(cp.returncode, 0, cp.stderr)
    tc.assertEqual(again["facts"]["mlx"], doc["facts"]["mlx"])


class Goldens(unittest.TestCase):
    def test_fixtures_exist(self):
        self.assertGreaterEqual(len(fixtures()), 10)

    def test_goldens_schema_round_trip(self):
        for d in fixtures():
            name = os.path.basename(d)
            with self.subTest(fixture=name):
                doc = mlx_facts(name)
                hwctest.validate(doc)
                hwctest.golden(os.path.join(d, "mlx.golden.json"), {"mlx": doc["facts"]["mlx"]})
                round_trip(self, doc)


class Snapshot(unittest.TestCase):
    def test_snapshot_of_a_fixture_replays_the_same(self):
        # everything mlx/ reads or runs is captured: the snapshot is a complete root again
        import tarfile
        for name in ("mlx-multi-card", "mlx-cx6-ports", "mlx-cx4lx-nextboot"):
            with self.subTest(fixture=name), tempfile.TemporaryDirectory() as d:
                tar = os.path.join(d, "host.tar")
                cp = hwctest.run("--root", hwctest.fixture(name, "root"), "snapshot", "-o", tar)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                root = os.path.join(d, "root")
                os.mkdir(root)
                with tarfile.open(tar) as t:
                    t.extractall(root)
                want = mlx_facts(name)["facts"]["mlx"]
                _, got = run_json("--root", root, "facts", "--json")
                self.assertEqual(got["facts"]["mlx"], want)


class KnownFacts(unittest.TestCase):
    def test_cx4lx_nextboot_only(self):
        a = adapter(mlx_facts("mlx-cx4lx-nextboot"), "0000:01:00.0")
        self.assertEqual(a["product"], "ConnectX-4 Lx")
        self.assertEqual(a["functions"], ["0000:01:00.0", "0000:01:00.1"])
        self.assertEqual(a["pcie_max"], {"speed_gts": 8.0, "width": 8})
        wr = a["fw_config"]["PCI_WR_ORDERING"]
        self.assertEqual(wr["next_boot"], "per_mkey")
        self.assertEqual(wr["next_boot_code"], 0)
        self.assertEqual(status(wr, "current"), "unsupported")
        self.assertEqual(status(wr, "pending"), "unsupported")
        self.assertEqual(a["fw_config"]["ADVANCED_PCI_SETTINGS"]["next_boot"], "False")
        self.assertEqual(a["fw_config"]["SRIOV_EN"]["next_boot"], "True")
        self.assertEqual(a["fw_config"]["NUM_OF_VFS"]["next_boot"], 8)
        self.assertTrue(a["fw_config_complete"])
        self.assertEqual(a["fw_version"], "14.20.1010")
        self.assertEqual(a["psid"], "MT_2470111034")
        self.assertEqual(status(a, "part_number"), "unsupported")  # Name: N/A
        ports = [(p["rdma_device"], p["state"], p["netdev"]) for p in a["ports"]]
        self.assertEqual(ports, [("mlx5_0", "ACTIVE", "enp1s0f0"), ("mlx5_1", "DOWN", "enp1s0f1")])

    def test_fragment_marks_the_rest(self):
        a = adapter(mlx_facts("mlx-cx6lx-3col-fragment"), "0000:3b:00.0")
        fc = a["fw_config"]
        self.assertFalse(a["fw_config_complete"])
        self.assertEqual(fc["MEMIC_SIZE_LIMIT"]["default"], "_256KB")
        self.assertEqual(fc["MEMIC_SIZE_LIMIT"]["current"], "_256KB")
        self.assertIs(fc["MEMIC_SIZE_LIMIT"]["pending"], False)
        self.assertEqual(status(fc["IB_ROUTING_MODE_P2"], "current"), "truncated")
        self.assertEqual(status(fc["PCI_WR_ORDERING"], "next_boot"), "truncated")

    def test_lockdown_blocks_every_tool(self):
        doc = mlx_facts("mlx-cx5-lockdown")
        m = doc["facts"]["mlx"]
        self.assertEqual(m["tools"]["status"], "blocked")
        self.assertIn("lockdown [integrity]", m["tools"]["detail"])
        a = adapter(doc, "0000:3b:00.0")
        for k in ("fw_config", "fw_version_stored", "fw_pending_reset"):
            self.assertEqual(status(a, k), "blocked")
        self.assertEqual(status(a["registers"], "temp_mdegc"), "blocked")
        # sysfs still answers
        self.assertEqual(a["fw_version"], "16.35.4506")
        self.assertEqual(a["netdevs"], ["ens2f0np0", "ens2f1np1"])

    def test_open_failure_is_a_status(self):
        a = adapter(mlx_facts("mlx-cx5-open-failed"), "0000:3b:00.0")
        self.assertEqual(status(a, "fw_config"), "unreadable")
        self.assertIn("Failed to open the device", a["unavailable"]["fw_config"]["detail"])

    def test_multi_card(self):
        doc = mlx_facts("mlx-multi-card")
        m = doc["facts"]["mlx"]
        self.assertEqual([a["bdf"] for a in m["adapters"]],
                         ["0000:06:00.0", "0000:0c:00.0", "0000:41:00.0"])
        self.assertEqual(m["tools"]["mstflint_version"], "4.25.0")
        cx2 = adapter(doc, "0000:06:00.0")  # named from its id and PCI revision (0xb0)
        self.assertEqual(cx2["device_id"], "6750")
        self.assertEqual((cx2["product"], cx2["generation"]), ("ConnectX-2 EN", "ConnectX-2"))
        # the kernel driver from the identity table (the kernel's mlx4/mlx5 PCI id tables)
        self.assertEqual(cx2["kernel_driver"], "mlx4_core")
        self.assertEqual(adapter(doc, "0000:0c:00.0")["kernel_driver"], "mlx4_core")
        self.assertEqual(adapter(doc, "0000:41:00.0")["kernel_driver"], "mlx5_core")
        self.assertEqual((cx2["pcie_max"], cx2["port_rate_max_gbps"]), ({"speed_gts": 5, "width": 8}, 10))
        self.assertEqual(status(cx2, "fw_config"), "unsupported")
        # no mstflint tool is run on it (mstflint >= 4.21 knows no ConnectX-2), each fact says why:
        # mstflint q, mstreg and mstfwreset are not in the capture, and are not "missing" either
        for k in ("fw_config", "fw_version_stored"):
            self.assertEqual(status(cx2, k), "unsupported", k)
            self.assertIn("mstflint dropped ConnectX and ConnectX-2 in 4.21", cx2["unavailable"][k]["detail"])
            self.assertIn("mstflint 4.25.0 is installed", cx2["unavailable"][k]["detail"])
        self.assertEqual(status(cx2, "fw_reset"), "unsupported")
        self.assertIn("mstfwreset takes Connect-IB and later only", cx2["unavailable"]["fw_reset"]["detail"])
        self.assertEqual(status(cx2["registers"], "temp_mdegc"), "unsupported")
        self.assertIn("mstmget_temp came in 4.31", cx2["registers"]["unavailable"]["temp_mdegc"]["detail"])
        cx3 = adapter(doc, "0000:0c:00.0")
        self.assertEqual(cx3["fw_config"]["LINK_TYPE_P1"]["next_boot"], "VPI")
        self.assertEqual(cx3["fw_config"]["NUM_OF_VFS"]["next_boot"], 16)
        self.assertEqual(cx3["fw_version_stored"], "2.42.5044")
        self.assertEqual(cx3["psid"], "HP_1370110017")
        self.assertIs(cx3["fw_pending_reset"], False)
        dx = adapter(doc, "0000:41:00.0")
        self.assertEqual(dx["fw_version"], "22.27.1016")
        self.assertEqual(dx["fw_version_source"], "mstflint query")
        self.assertEqual(dx["registers"]["temp_mdegc"], 88000)
        self.assertEqual(dx["registers"]["temp_source"], "mstmget_temp")
        # the Mellanox bridge is not an adapter
        self.assertNotIn("0000:40:00.0", [a["bdf"] for a in m["adapters"]])

    def test_connectx3_refused_tools(self):
        # mstreg and mstfwreset refuse ConnectX-3 (Pro) in every mstflint, mstconfig from 4.26 on:
        # they are not asked, and each fact they fill says why (was "not in this capture")
        a = adapter(mlx_facts("mlx-cx3pro-flint-segfault"), "0000:0c:00.0")
        why = a["unavailable"]
        self.assertEqual(status(a, "fw_config"), "unsupported")
        self.assertIn("mstconfig refuses ConnectX-3 and ConnectX-3 Pro since mstflint 4.26", why["fw_config"]["detail"])
        self.assertIn("mstflint 4.30.0 is installed", why["fw_config"]["detail"])
        self.assertEqual(why["part_number"], why["fw_config"])
        self.assertEqual(status(a, "fw_reset"), "unsupported")
        self.assertIn("mstfwreset not run on this card (ConnectX-3 Pro, 15b3:1007)", why["fw_reset"]["detail"])
        reg = a["registers"]
        for k in ("power_status", "pci_power_w"):
            self.assertEqual(status(reg, k), "unsupported", k)
            self.assertIn("mstreg (mlxreg) refuses ConnectX-3 and ConnectX-3 Pro", reg["unavailable"][k]["detail"])
        # the temperature is mstmget_temp's to say (it takes ConnectX-3), not MTMP's refusal
        self.assertEqual(reg["unavailable"]["temp_mdegc"]["detail"], "mstmget_temp: not in this capture")
        # mstflint q is still asked (it takes ConnectX-3): its recorded crash is the fact
        self.assertEqual(why["fw_version_stored"]["status"], "unreadable")

    def test_version_decides(self):
        # the installed mstflint's version decides the version-bound refusals: mlx-multi-card
        # replayed with other `mstconfig -v` answers
        def with_version(text):
            with tempfile.TemporaryDirectory() as t:
                root = os.path.join(t, "root")
                shutil.copytree(hwctest.fixture("mlx-multi-card", "root"), root, symlinks=True)
                with open(os.path.join(root, "hwcheck", "commands", "mstconfig -v", "stdout"), "w") as f:
                    f.write(text)
                cp, j = run_json("--root", root, "facts", "--json")
            self.assertEqual(cp.returncode, 0, cp.stderr)
            return j
        # 4.20: mstflint and mstconfig still know ConnectX-2, so both are asked; mstconfig's
        # recorded refusal is the fact, and mstflint q is not in the capture
        j = with_version("mstconfig, mstflint 4.20.0, Git SHA Hash: N/A\n")
        cx2 = adapter(j, "0000:06:00.0")
        self.assertIn("Unsupported device", cx2["unavailable"]["fw_config"]["detail"])
        self.assertNotIn("not run", cx2["unavailable"]["fw_config"]["detail"])
        self.assertEqual(cx2["unavailable"]["fw_version_stored"]["detail"], "mstflint: not in this capture")
        self.assertIn("mstfwreset takes Connect-IB and later only", cx2["unavailable"]["fw_reset"]["detail"])
        # 4.29: mstconfig refuses the ConnectX-3 Pro, whose recording is then not asked
        j = with_version("mstconfig, mstflint 4.29.0, Git SHA Hash: N/A\n")
        cx3 = adapter(j, "0000:0c:00.0")
        self.assertEqual(status(cx3, "fw_config"), "unsupported")
        self.assertIn("since mstflint 4.26", cx3["unavailable"]["fw_config"]["detail"])
        self.assertIn("mstflint 4.29.0 is installed", cx3["unavailable"]["fw_config"]["detail"])
        self.assertEqual(cx3["fw_version_stored"], "2.42.5044")
        # unknown: the newest mstflint's behaviour is assumed, and the reason says so
        j = with_version("garbage\n")
        cx3 = adapter(j, "0000:0c:00.0")
        self.assertIn("the installed mstflint's version is unknown (no 'mstflint N.N.N' in the version "
                      "output): a newer one is assumed", cx3["unavailable"]["fw_config"]["detail"])
        cx2 = adapter(j, "0000:06:00.0")
        self.assertIn("mstflint dropped ConnectX and ConnectX-2 in 4.21", cx2["unavailable"]["fw_version_stored"]["detail"])

    def test_flash_recovery(self):
        # a ConnectX-5 that enumerates with its flash recovery id 020d (real lspci line,
        # mwrnd/innova2_flex_xcku15p_notes): named as such, no driver, no mstflint tool asked
        a = adapter(mlx_facts("mlx-cx5-flash-recovery"), "0000:01:00.0")
        self.assertEqual((a["product"], a["generation"]), ("ConnectX-5 (flash recovery)", "ConnectX-5"))
        self.assertIs(a["flash_recovery"], True)
        self.assertEqual(status(a, "kernel_driver"), "unsupported")
        for k in ("fw_config", "fw_version_stored", "fw_reset"):
            self.assertEqual(status(a, k), "unsupported", k)
            self.assertIn("the card is in flash recovery", a["unavailable"][k]["detail"])
        self.assertIs(adapter(mlx_facts("mlx-multi-card"), "0000:41:00.0")["flash_recovery"], False)
        cp, j = run_json("--root", hwctest.fixture("mlx-cx5-flash-recovery", "root"), "check", "--json")
        self.assertEqual(cp.returncode, 1, cp.stderr)
        hwctest.validate(j)
        fr = findings_of(j, "MLX_FLASH_RECOVERY")
        self.assertEqual([(f["severity"], f["subject"]) for f in fr], [("error", "0000:01:00.0")])
        self.assertIn("15b3:020d", fr[0]["message"])
        # no finding blames a tool that was never meant to run
        for f in findings_of(j, "COLLECT_INCOMPLETE"):
            self.assertNotIn("mstconfig", f["message"])
            self.assertNotIn("mstflint", f["message"])

    def test_ports_from_sysfs(self):
        a = adapter(mlx_facts("mlx-cx6-ports"), "0000:01:00.0")
        p = a["ports"][0]
        self.assertEqual((p["state"], p["phys_state"], p["link_layer"]), ("DOWN", "Disabled", "Ethernet"))
        self.assertEqual((p["rate_gbps"], p["active_width"], p["active_speed"]), (200, "4X", "HDR"))
        self.assertEqual(a["ports"][1]["netdev"], "enp1s0f1np1")
        self.assertEqual(a["ports"][1]["netdev_mtu"], 9000)
        # RoCE MTUs as mlx5_ib derives them from the netdev MTU (less 96 header bytes)
        self.assertEqual([(q["active_mtu"], q["max_mtu"]) for q in a["ports"]], [(1024, 4096), (4096, 4096)])
        self.assertEqual(a["function_map"][0]["hwmon"], ["hwmon2"])

    def test_tool_crash_and_timeout(self):
        a = adapter(mlx_facts("mlx-cx3pro-flint-segfault"), "0000:0c:00.0")
        self.assertEqual(status(a, "fw_version_stored"), "unreadable")
        self.assertIn("killed by signal 11", a["unavailable"]["fw_version_stored"]["detail"])
        dx = adapter(mlx_facts("mlx-multi-card"), "0000:41:00.0")
        self.assertEqual(status(dx["registers"], "power_status"), "timeout")

    def test_bluefield_functions_one_card(self):
        doc = mlx_facts("mlx-bf2-functions")
        ads = doc["facts"]["mlx"]["adapters"]
        self.assertEqual(len(ads), 1)
        a = ads[0]
        self.assertEqual(a["bdf"], "0000:06:00.0")
        self.assertEqual(a["product"], "BlueField-2 (ConnectX-6 Dx)")
        self.assertEqual(a["generation"], "BlueField-2")
        self.assertEqual(len(a["functions"]), 4)
        self.assertEqual([f["device_id"] for f in a["function_map"]], ["a2d6", "a2d6", "c2d1", "c2d3"])
        self.assertEqual(a["netdevs"], ["enp6s0f0np0", "enp6s0f1np1"])

    def test_fw_from_ethtool(self):
        a = adapter(mlx_facts("mlx-cx5ex-vf-ethtool"), "0000:00:08.0")
        self.assertEqual((a["fw_version"], a["psid"]), ("16.27.2008", "MT_0000000013"))
        self.assertEqual(a["fw_version_source"], "ethtool -i ens8np0")
        self.assertEqual(a["product"], "ConnectX-5 Ex VF")

    def test_vf_only_vm(self):
        doc = mlx_facts("mlx-azure-vf")
        ads = doc["facts"]["mlx"]["adapters"]
        self.assertEqual(len(ads), 9)  # one card per VF: their PFs are not visible
        self.assertEqual(ads[0]["bdf"], "0101:00:00.0")
        self.assertEqual(ads[0]["product"], "ConnectX-6 VF")
        self.assertTrue(ads[0]["function_map"][0]["is_vf"])
        self.assertEqual(status(ads[0]["function_map"][0], "physfn"), "absent")
        self.assertEqual(status(ads[0], "fw_config"), "unsupported")
        self.assertEqual(adapter(doc, "c941:00:02.0")["product"], "ConnectX-4 Lx VF")

    def test_vf_only_connectx3_keeps_the_vf_reason(self):
        # a ConnectX-3 VF whose PF is not visible, next to cards that are asked: no tool is asked
        # of it because only the VF is visible; the per-tool refusals of ConnectX-3 (mstreg,
        # mstfwreset) do not replace that reason
        with tempfile.TemporaryDirectory() as t:
            root = os.path.join(t, "root")
            shutil.copytree(hwctest.fixture("mlx-multi-card", "root"), root, symlinks=True)
            devs = os.path.join(root, "sys", "bus", "pci", "devices")
            shutil.copytree(os.path.join(devs, "0000:06:00.0"), os.path.join(devs, "0000:07:00.0"), symlinks=True)
            os.remove(os.path.join(devs, "0000:07:00.0", "revision"))
            with open(os.path.join(devs, "0000:07:00.0", "device"), "w") as f:
                f.write("0x1004\n")
            cp, doc = run_json("--root", root, "facts", "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        a = adapter(doc, "0000:07:00.0")
        self.assertEqual(a["product"], "ConnectX-3 VF")
        vf = "only virtual functions are visible: mstflint tools need the physical function"
        for k in ("fw_config", "fw_reset"):
            self.assertEqual(a["unavailable"][k]["detail"], vf, k)
        self.assertEqual(a["registers"]["unavailable"]["power_status"]["detail"], vf)

    def test_device_filter_and_no_tools(self):
        doc = mlx_facts("mlx-multi-card", "-d", "0000:41:00.0")
        self.assertEqual([a["bdf"] for a in doc["facts"]["mlx"]["adapters"]], ["0000:41:00.0"])
        doc = mlx_facts("mlx-multi-card", "--no-tools")
        self.assertEqual(doc["facts"]["mlx"]["tools"]["status"], "blocked")
        self.assertEqual(status(adapter(doc, "0000:0c:00.0"), "fw_config"), "blocked")


IMG_OTHER = "/srv/fw/fw-ConnectX4Lx-rel-14_32_1912-MCX4111A-ACUT_Ax-UEFI-14.25.17-FlexBoot-3.6.502.bin"


def fw_check(name, *extra):
    cp, j = run_json("--root", hwctest.fixture(name, "root"), "check", "--json", *extra)
    if cp.returncode not in (0, 1):
        raise AssertionError(f"{name}: exit {cp.returncode}: {cp.stderr}")
    hwctest.validate(j)
    return j


def findings_of(doc, rule):
    return [f for f in doc["findings"] if f["rule_id"] == rule]


class FirmwareChanges(unittest.TestCase):
    """Issue 18 on the fw-* roots built from real captures (tests/mlx/mkfwfixtures.py)."""

    def test_at_risk_list_is_exact(self):
        a = adapter(mlx_facts("fw-cx5-image-other-psid"), "0000:3b:00.0")
        # the one parameter of the capture whose current value is not its default
        self.assertEqual(a["fw_at_risk"], [{
            "name": "ADVANCED_PCI_SETTINGS", "default": "False", "current": "True",
            "next_boot": "True", "depends_on": "PCIe read performance (MAX_ACC_OUT_READ)"}])
        self.assertFalse(a["fw_config_complete"])  # the publisher's "..." lines

    def test_no_default_column_no_at_risk_list(self):
        a = adapter(mlx_facts("mlx-cx4lx-nextboot"), "0000:01:00.0")
        self.assertEqual(status(a, "fw_at_risk"), "unsupported")

    def test_reset_query_read(self):
        a = adapter(mlx_facts("fw-cx5-image-other-psid"), "0000:3b:00.0")
        lv = {x["level"]: x["supported"] for x in a["fw_reset"]["levels"]}
        self.assertEqual(lv, {0: True, 1: False, 3: True, 4: True})
        self.assertEqual([(x["sync"], x["supported"], x["default"]) for x in a["fw_reset"]["sync"]],
                         [(0, False, False), (1, True, True)])
        self.assertEqual(status(adapter(mlx_facts("fw-cx4lx-image-newer"), "0000:01:00.0"), "fw_reset"),
                         "absent")

    def test_image_of_another_psid_is_refused(self):
        doc = fw_check("fw-cx5-image-other-psid", "--fw-image", IMG_OTHER)
        im = doc["facts"]["mlx"]["fw_image"]
        self.assertEqual((im["psid"], im["fw_version"]), ("MT_0000000267", "14.32.1912"))
        f = findings_of(doc, "MLX_FW_IMAGE_PSID")
        self.assertEqual([(x["severity"], x["subject"]) for x in f], [("error", "0000:3b:00.0")])
        self.assertIn("MT_0000000267", f[0]["message"])
        self.assertIn("MT_0000000011", f[0]["message"])
        self.assertEqual(findings_of(doc, "MLX_FW_IMAGE_OLDER"), [])  # another board: not compared
        risk = findings_of(doc, "MLX_FW_CONFIG_AT_RISK")
        self.assertEqual([x["severity"] for x in risk], ["info"])
        self.assertIn("ADVANCED_PCI_SETTINGS", risk[0]["evidence"][0]["fact"])
        self.assertIn("mstconfig -d 0000:3b:00.0 -y set ADVANCED_PCI_SETTINGS=1", risk[0]["fix"])

    def test_image_of_the_same_psid_newer(self):
        doc = fw_check("fw-cx4lx-image-newer", "--fw-image", "firmware.bin")
        for rule in ("MLX_FW_IMAGE_PSID", "MLX_FW_IMAGE_OLDER", "MLX_FW_IMAGE_NOT_ALLOWED"):
            self.assertEqual(findings_of(doc, rule), [], rule)
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1, "products": [
                    {"match": {"psid": "MT_0000000267"}, "allowed_fw": ["14.32.1900"]}]}, f)
            doc = fw_check("fw-cx4lx-image-newer", "--fw-image", "firmware.bin", "--profile", prof)
        f = findings_of(doc, "MLX_FW_IMAGE_NOT_ALLOWED")
        self.assertEqual([(x["severity"], x["subject"]) for x in f], [("warn", "0000:01:00.0")])
        self.assertIn("14.32.1912", f[0]["message"])

    def test_image_unreadable_and_absent(self):
        doc = fw_check("fw-cx4lx-image-newer", "--fw-image", "/nonexistent.bin")
        self.assertEqual(status(doc["facts"]["mlx"]["fw_image"], "psid"), "absent")
        self.assertEqual([x["severity"] for x in findings_of(doc, "MLX_FW_IMAGE_PSID")], ["unknown"])
        doc = fw_check("fw-cx4lx-image-newer")
        self.assertNotIn("fw_image", doc["facts"]["mlx"])
        self.assertEqual(findings_of(doc, "MLX_FW_IMAGE_PSID"), [])
        cp = hwctest.run("--facts", hwctest.fixture("diff-wrorder-reset", "after.json"),
                         "--fw-image", "x.bin", "check")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--fw-image", cp.stderr)

    def test_fw_plan(self):
        cp, j = run_json("--root", hwctest.fixture("fw-cx5-image-other-psid", "root"), "--fw-image",
                         IMG_OTHER, "fw-plan", "--json")
        self.assertEqual(cp.returncode, 1, cp.stderr)  # the image is refused (error)
        hwctest.validate(j)
        self.assertEqual(j["image"]["psid"], "MT_0000000267")
        c = j["cards"][0]
        self.assertEqual((c["bdf"], c["psid"], c["fw_running"]), ("0000:3b:00.0", "MT_0000000011", "16.28.2006"))
        self.assertEqual(c["image"]["verdict"], "refused")
        self.assertEqual([p["name"] for p in c["at_risk"]], ["ADVANCED_PCI_SETTINGS"])
        self.assertIsNone(c["at_risk"][0]["profile"])
        self.assertEqual(c["restore"], "mstconfig -d 0000:3b:00.0 -y set ADVANCED_PCI_SETTINGS=1")
        self.assertEqual(c["reset"]["levels_supported"], [0, 3, 4])
        self.assertIn("-l 3 --sync 1", c["reset"]["advice"])
        self.assertFalse(c["reset"]["needed"])
        self.assertIn({"rule": "MLX_FW_IMAGE_PSID", "severity": "error"},
                      [{k: f[k] for k in ("rule", "severity")} for f in c["findings"]])
        # text, and the profile marks what it names
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"schema": "hwcheck.profile", "schema_version": 1, "products": [
                    {"match": {"psid": "MT_0000000011"}, "fw_config": {"ADVANCED_PCI_SETTINGS": "True"}}]}, f)
            cp = hwctest.run("--root", hwctest.fixture("fw-cx5-image-other-psid", "root"), "--profile",
                             prof, "fw-plan")
            _, j2 = run_json("--root", hwctest.fixture("fw-cx5-image-other-psid", "root"), "--profile",
                             prof, "fw-plan", "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)  # no image: nothing at or above warn
        self.assertIn("ADVANCED_PCI_SETTINGS", cp.stdout)
        self.assertIn("[profile]", cp.stdout)
        self.assertIn("mstfwreset -d 0000:3b:00.0 -l 3 --sync 1 -y reset", cp.stdout)
        self.assertIsNone(j2["image"])
        self.assertEqual(j2["cards"][0]["at_risk"][0]["profile"], "True")
        # a card without mstconfig: at risk unknown, and why
        _, j3 = run_json("--root", hwctest.fixture("fw-cx4lx-image-newer", "root"), "--fw-image",
                         "firmware.bin", "fw-plan", "--json")
        hwctest.validate(j3)
        c = j3["cards"][0]
        self.assertIsNone(c["at_risk"])
        self.assertIn("mstconfig: not in this capture", c["at_risk_unknown"])
        self.assertEqual(c["image"]["verdict"], "ok")
        self.assertIn("image 14.32.1912, running 14.32.1900", c["image"]["reason"])
        with tempfile.TemporaryDirectory() as d:
            cp = hwctest.run("--root", d, "fw-plan")
        self.assertEqual(cp.returncode, 3)

    def test_snapshot_records_the_image_query(self):
        import tarfile
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "host.tar")
            cp = hwctest.run("--root", hwctest.fixture("fw-cx5-image-other-psid", "root"), "--fw-image",
                             IMG_OTHER, "snapshot", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            root = os.path.join(d, "root")
            os.mkdir(root)
            with tarfile.open(tar) as t:
                t.extractall(root)
            want = mlx_facts("fw-cx5-image-other-psid", "--fw-image", IMG_OTHER)["facts"]["mlx"]
            _, got = run_json("--root", root, "--fw-image", IMG_OTHER, "facts", "--json")
        self.assertEqual(got["facts"]["mlx"], want)
        self.assertEqual(got["facts"]["mlx"]["fw_image"]["psid"], "MT_0000000267")

    def test_image_facts_round_trip(self):
        round_trip(self, mlx_facts("fw-cx5-image-other-psid", "--fw-image", IMG_OTHER))


if __name__ == "__main__":
    hwctest.main()

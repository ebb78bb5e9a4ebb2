# SPDX-License-Identifier: MIT
# hwcheck diff: the fixture pairs made from real captures, every input form (JSON, snapshot tar,
# untarred snapshot, live), card matching, thresholds, bad input. Variants of the pairs that a test
# builds in memory are marked as such; their numbers are test inputs, not measurements.
import copy
import io
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


def pair(name):
    d = hwctest.fixture(name)
    return os.path.join(d, "before.json"), os.path.join(d, "after.json")


def load(path):
    with open(path) as f:
        return json.load(f)


def changes(doc, card=0):
    return doc["cards"][card]["changes"]


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, doc):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            json.dump(doc, f)
        return p

    def diff(self, a, b, *opts, rc=None):
        cp, j = run_json("diff", "--json", *opts, a, b)
        if rc is not None:
            self.assertEqual(cp.returncode, rc, cp.stderr)
        hwctest.validate(j)
        return j


class FixturePairs(Tmp):
    def test_wr_ordering_reset_is_a_named_regression(self):
        j = self.diff(*pair("diff-wrorder-reset"), rc=1)
        card = j["cards"][0]
        self.assertEqual(card["bdf"], "0000:0b:00.0")
        self.assertEqual(card["status"], "regressed")
        self.assertEqual(card["matched_by"], "bdf")
        reg = [c for c in card["changes"] if c["verdict"] == "regression"]
        self.assertEqual([c["item"] for c in reg], ["PCI_WR_ORDERING"])
        self.assertEqual((reg[0]["before"], reg[0]["after"]), ("force_relax", "per_mkey"))
        self.assertIn("back to its default", reg[0]["message"])
        fw = [c for c in card["changes"] if c["kind"] == "firmware"]
        self.assertEqual(len(fw), 1)
        self.assertEqual((fw[0]["before"], fw[0]["after"], fw[0]["verdict"]),
                         ("14.20.1010", "14.21.1000", "change"))
        self.assertEqual(j["summary"]["regressions"], 1)
        # the other parameters did not move: not reported
        self.assertFalse([c for c in card["changes"] if "SRIOV" in c["item"]])
        # issue 18: it had been set on purpose; the fix restores it and names the reset the
        # card's mstfwreset query allows
        self.assertTrue(reg[0]["at_risk"])
        self.assertIn("`mstconfig -d 0000:0b:00.0 -y set PCI_WR_ORDERING=1`", reg[0]["fix"])
        self.assertIn("`mstfwreset -d 0000:0b:00.0 -l 3 --sync 1 -y reset`", reg[0]["fix"])
        self.assertEqual(card["firmware"], {"before": "14.20.1010", "after": "14.21.1000"})
        self.assertEqual(card["fw_config_state"], {"pending": [], "profile": None,
                                                   "current_next_boot_intent_agree": True})

    def test_wr_ordering_text(self):
        cp = run("diff", *pair("diff-wrorder-reset"))
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertIn("REGRESSION PCI_WR_ORDERING: force_relax -> per_mkey (current and next boot), "
                      "back to its default", cp.stdout)
        self.assertIn("firmware: 14.20.1010 -> 14.21.1000", cp.stdout)
        self.assertIn("fix: Restore it: `mstconfig -d 0000:0b:00.0 -y set PCI_WR_ORDERING=1`", cp.stdout)
        self.assertIn("[at risk]", cp.stdout)
        self.assertIn("1 regression, 1 change", cp.stdout)
        self.assertNotIn("\033[", cp.stdout)

    def test_link_trained_lower(self):
        j = self.diff(*pair("diff-link-lower"), rc=1)
        reg = {c["item"]: c for c in changes(j) if c["verdict"] == "regression"}
        self.assertEqual(set(reg), {"link.speed_gts", "link.width"})
        self.assertEqual((reg["link.speed_gts"]["before"], reg["link.speed_gts"]["after"]), (8, 2.5))
        self.assertEqual((reg["link.width"]["before"], reg["link.width"]["after"]), (16, 4))

    def test_link_back_up_is_an_improvement(self):
        b, a = pair("diff-link-lower")
        j = self.diff(a, b, rc=0)
        self.assertEqual(j["summary"]["improvements"], 2)
        self.assertEqual(j["summary"]["regressions"], 0)

    def test_unchanged_pair_is_clean(self):
        j = self.diff(*pair("diff-unchanged"), rc=0)
        self.assertEqual(j["cards"][0]["status"], "unchanged")
        self.assertEqual(changes(j), [])
        s = j["summary"]
        self.assertEqual((s["regressions"], s["changes"], s["unknown"], s["cards_matched"]), (0, 0, 0, 1))
        cp = run("diff", *pair("diff-unchanged"))
        self.assertEqual(cp.returncode, 0)
        self.assertIn("card 0000:41:00.0 ConnectX-6 Dx: unchanged", cp.stdout)

    def test_current_from_facts_option(self):
        b, a = pair("diff-link-lower")
        cp = run("diff", "--facts", a, b)
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertIn("PCIe link width: 16 lanes -> 4 lanes", cp.stdout)


class Goldens(Tmp):
    """The whole diff document of each pair, against tests/fixtures/<pair>/diff.golden.json
    (--update rewrites them); the sides' paths are left out (they depend on the checkout)."""

    def test_goldens(self):
        for name in ("diff-wrorder-reset", "diff-link-lower", "diff-unchanged"):
            j = self.diff(*pair(name))
            for side in ("baseline", "current"):
                j[side].pop("source")
            hwctest.golden(hwctest.fixture(name, "diff.golden.json"), j)


class Variants(Tmp):
    """Pairs derived in the test from the fixtures (test inputs, not captures)."""

    def test_card_moved_slot_matched_by_serial(self):
        b, a = (load(p) for p in pair("diff-unchanged"))
        b["facts"]["mlx"]["adapters"][0]["serial_number"] = "TESTSERIAL1"
        a["facts"]["mlx"]["adapters"][0]["serial_number"] = "TESTSERIAL1"
        ad = a["facts"]["mlx"]["adapters"][0]
        ad["bdf"], ad["functions"] = "0000:81:00.0", ["0000:81:00.0", "0000:81:00.1"]
        for d in a["facts"]["pci"]["devices"]:
            d["bdf"] = d["bdf"].replace("0000:41", "0000:81")
        a["facts"]["thermal"]["sensors"][0]["bdf"] = "0000:81:00.0"
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=0)
        self.assertEqual(len(j["cards"]), 1)
        card = j["cards"][0]
        self.assertEqual((card["matched_by"], card["bdf_before"], card["bdf_after"]),
                         ("serial", "0000:41:00.0", "0000:81:00.0"))
        self.assertEqual([c["item"] for c in card["changes"]], ["bdf"])

    def test_swapped_card_same_slot_is_vanished_and_appeared(self):
        b, a = (load(p) for p in pair("diff-unchanged"))
        b["facts"]["mlx"]["adapters"][0]["serial_number"] = "TESTSERIAL1"
        a["facts"]["mlx"]["adapters"][0]["serial_number"] = "TESTSERIAL2"
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        self.assertEqual(sorted(c["status"] for c in j["cards"]), ["appeared", "vanished"])
        self.assertEqual((j["summary"]["cards_appeared"], j["summary"]["cards_vanished"]), (1, 1))

    def test_card_gone(self):
        b, a = (load(p) for p in pair("diff-unchanged"))
        a["facts"]["mlx"]["adapters"] = []
        a["facts"]["pci"]["devices"] = []
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        self.assertEqual(j["cards"][0]["status"], "vanished")
        self.assertEqual(j["cards"][0]["bdf_after"], None)
        cp = run("diff", self.write("b2.json", b), self.write("a2.json", a))
        self.assertIn("vanished", cp.stdout)

    def test_pci_only_card_is_still_compared(self):
        # the mlx collector failed on one side: the Mellanox PCI function still names the card
        b, a = (load(p) for p in pair("diff-link-lower"))
        b["facts"]["mlx"]["adapters"] = []
        a["facts"]["mlx"]["adapters"] = []
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        self.assertEqual(j["cards"][0]["bdf"], "0000:01:00.0")
        self.assertEqual(j["summary"]["regressions"], 2)

    def test_temperature_noise(self):
        b, a = (load(p) for p in pair("diff-unchanged"))
        pb = self.write("b.json", b)
        a["facts"]["thermal"]["sensors"][0]["temp_mdegc"] = 92000  # +4 C: noise
        self.diff(pb, self.write("a1.json", a), rc=0)
        a["facts"]["thermal"]["sensors"][0]["temp_mdegc"] = 95000  # +7 C
        pa = self.write("a2.json", a)
        j = self.diff(pb, pa, rc=1)
        self.assertEqual([(c["kind"], c["verdict"]) for c in changes(j)], [("temperature", "regression")])
        self.diff(pb, pa, "--temp-noise", "10", rc=0)
        j = self.diff(pa, pb, rc=0)
        self.assertEqual(j["summary"]["improvements"], 1)

    def test_probe_tolerance(self):
        b, a = (load(p) for p in pair("diff-unchanged"))
        res = {"rdma_device": "mlx5_0", "port": 1, "bdf": "0000:41:00.0", "op": "write",
               "mode": "loopback", "msg_bytes": 65536, "qps": 4, "gbps": 90.0}
        b["facts"]["probe"] = {"results": [dict(res)]}
        a["facts"]["probe"] = {"results": [dict(res, gbps=87.0)]}  # -3.3 %
        pb = self.write("b.json", b)
        self.diff(pb, self.write("a1.json", a), rc=0)
        a["facts"]["probe"]["results"][0]["gbps"] = 84.0  # -6.7 %
        pa = self.write("a2.json", a)
        j = self.diff(pb, pa, rc=1)
        self.assertEqual([(c["kind"], c["verdict"]) for c in changes(j)], [("probe", "regression")])
        self.assertIn("-6.7 %", changes(j)[0]["message"])
        self.diff(pb, pa, "--probe-tolerance", "10", rc=0)
        # a probe on one side only is not compared
        del a["facts"]["probe"]
        self.diff(pb, self.write("a3.json", a), rc=0)

    def test_port_down_and_rate(self):
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        a = copy.deepcopy(b)
        a["facts"]["mlx"]["adapters"][0]["ports"][0]["state"] = "PORT_DOWN"
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        self.assertEqual([c["item"] for c in changes(j)], ["mlx5_0 port 1 state"])
        for p, r in zip((b, a), (25, 10)):
            p["facts"]["mlx"]["adapters"][0]["ports"][0]["state"] = "PORT_ACTIVE"
            p["facts"]["mlx"]["adapters"][0]["ports"][0]["rate_gbps"] = r
        j = self.diff(self.write("b2.json", b), self.write("a2.json", a), rc=1)
        self.assertEqual([c["item"] for c in changes(j)], ["mlx5_0 port 1 rate_gbps"])

    def test_fw_config_change_not_to_default_is_a_change(self):
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        a = copy.deepcopy(b)
        cfg = a["facts"]["mlx"]["adapters"][0]["fw_config"]
        cfg["NUM_OF_VFS"]["next_boot"] = 16
        cfg["NEW_PARAM"] = {"default": 0, "current": 1, "next_boot": 1, "pending": False}
        del cfg["CQE_COMPRESSION"]
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=0)
        got = {c["item"]: c["verdict"] for c in changes(j)}
        self.assertEqual(got, {"NUM_OF_VFS.next_boot": "change", "NEW_PARAM": "change",
                               "CQE_COMPRESSION": "change"})
        # configured between the captures, not active yet: the change names the reset
        nb = [c for c in changes(j) if c["item"] == "NUM_OF_VFS.next_boot"][0]
        self.assertIn("mstfwreset -d 0000:0b:00.0 query", nb["fix"])
        self.assertEqual(j["cards"][0]["fw_config_state"]["pending"], ["NUM_OF_VFS"])

    def test_fw_config_unreadable_now_is_unknown(self):
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        a = copy.deepcopy(b)
        a["facts"]["mlx"]["adapters"][0]["fw_config"] = None
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=0)
        self.assertEqual([c["verdict"] for c in changes(j)], ["unknown"])
        self.assertEqual(j["summary"]["unknown"], 1)

    def test_report_documents_are_inputs_too(self):
        b, a = (load(p) for p in pair("diff-link-lower"))
        for d in (b, a):
            d["schema"] = "hwcheck.report"
            d["findings"] = []
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        self.assertEqual(j["baseline"]["schema"], "hwcheck.report")


class Inputs(Tmp):
    def make_tar(self, name, members):
        p = os.path.join(self.tmp, name)
        with tarfile.open(p, "w", format=tarfile.PAX_FORMAT) as t:
            for mname, data in members:
                ti = tarfile.TarInfo(mname)
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
        return p

    def test_snapshot_tar_baseline(self):
        b, a = pair("diff-wrorder-reset")
        data = open(b, "rb").read()
        long_dir = "x" * 120  # a pax 'path' record before the member we want
        tb = self.make_tar("b.tar", [(long_dir + "/file", b"1"), ("sys/x", b"y"),
                                     ("hwcheck/facts.json", data)])
        j = self.diff(tb, a, rc=1)
        self.assertEqual(j["baseline"]["source"], tb)
        self.assertEqual(j["summary"]["regressions"], 1)

    def test_real_snapshot_against_live(self):
        snap = os.path.join(self.tmp, "snap.tar")
        cp = run("snapshot", "-o", snap)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        j = self.diff(snap, snap, rc=0)
        self.assertEqual(j["summary"]["regressions"] + j["summary"]["changes"], 0)
        cp, j = run_json("diff", "--json", snap)  # CURRENT = this machine
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertEqual(j["current"]["source"], "live")
        hwctest.validate(j)
        # untarred: DIR/hwcheck/facts.json is read; without it, DIR is collected as a --root
        d = os.path.join(self.tmp, "untarred")
        with tarfile.open(snap) as t:
            t.extractall(d)
        j = self.diff(d, snap, rc=0)
        self.assertEqual(j["baseline"]["source"], d)
        os.unlink(os.path.join(d, "hwcheck", "facts.json"))
        cp, j = run_json("diff", "--json", d, snap)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        hwctest.validate(j)
        self.assertEqual(j["baseline"]["source"], d)
        self.assertEqual(j["baseline"]["started_at"] is None, False)

    def test_truncated_tar(self):
        b = pair("diff-wrorder-reset")[0]
        tb = self.make_tar("b.tar", [("sys/x", b"y" * 2000), ("hwcheck/facts.json", open(b, "rb").read())])
        cut = os.path.join(self.tmp, "cut.tar")
        with open(cut, "wb") as f:
            f.write(open(tb, "rb").read()[:1800])
        cp = run("diff", cut, b)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("a damaged tar", cp.stderr)

    def test_tar_without_facts(self):
        t = self.make_tar("n.tar", [("sys/x", b"y")])
        cp = run("diff", t, pair("diff-unchanged")[1])
        self.assertEqual(cp.returncode, 2)
        self.assertIn("without hwcheck/facts.json", cp.stderr)

    def test_bad_inputs(self):
        a = pair("diff-unchanged")[1]
        cp = run("diff")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("expected BASELINE [CURRENT]", cp.stderr)
        cp = run("diff", "/nonexistent/x.json", a)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("/nonexistent/x.json", cp.stderr)
        g = os.path.join(self.tmp, "garbage")
        with open(g, "wb") as f:
            f.write(b"\x00\x01garbage" * 100)
        cp = run("diff", g, a)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("neither JSON nor a tar", cp.stderr)
        w = self.write("w.json", {"schema": "something.else", "facts": {}})
        cp = run("diff", w, a)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("not a hwcheck facts or report document", cp.stderr)
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write("{\"schema\": ")
        cp = run("diff", bad, a)
        self.assertEqual(cp.returncode, 2)
        self.assertIn(bad + ":1:", cp.stderr)
        newer = self.write("v.json", dict(load(a), schema_version=99))
        cp = run("diff", newer, a)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("schema_version 99", cp.stderr)
        for opt, val in (("--temp-noise", "-1"), ("--temp-noise", "x"), ("--probe-tolerance", "101")):
            cp = run("diff", opt, val, a, a)
            self.assertEqual(cp.returncode, 2)
            self.assertIn(opt, cp.stderr)
        empty = self.write("e.json", dict(load(a), facts={}))
        cp = run("diff", empty, a)
        self.assertEqual(cp.returncode, 3)
        self.assertIn("nothing is known", cp.stderr)



def scenario(name):
    return load(os.path.join(hwctest.source("tests", "rules", "scenarios"), name + ".facts.json"))


def wr(doc, bdf, value, code):
    for ad in doc["facts"]["mlx"]["adapters"]:
        if ad["bdf"] == bdf:
            p = ad["fw_config"]["PCI_WR_ORDERING"]
            p.update(current=value, next_boot=value, current_code=code, next_boot_code=code)


class FirmwareChanges(Tmp):
    """Issue 18 and issue 12 section 6: variants of real pairs built in the test (test inputs)."""

    def test_outlier_fixed_is_not_a_regression(self):
        # issue 12 section 2: one card at force_relax among per_mkey peers of the same PSID;
        # aligning it is the real fix (two ConnectX-7 of the healthy scenario, same PSID)
        b, a = scenario("healthy-cx7-gen5x16"), scenario("healthy-cx7-gen5x16")
        wr(b, "0000:21:00.0", "force_relax", 1)
        wr(b, "0000:81:00.0", "per_mkey", 0)
        for bdf in ("0000:21:00.0", "0000:81:00.0"):
            wr(a, bdf, "per_mkey", 0)
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=0)
        ch = [c for c in j["cards"][0]["changes"] if c["kind"] == "fw_config"]
        self.assertEqual([(c["item"], c["verdict"]) for c in ch], [("PCI_WR_ORDERING", "improvement")])
        self.assertIn("outlier", ch[0]["message"])
        self.assertIn("not a regression", ch[0]["message"])
        # every card reset together is still the update that undid a setting
        wr(b, "0000:81:00.0", "force_relax", 1)
        j = self.diff(self.write("b2.json", b), self.write("a2.json", a), rc=1)
        self.assertEqual(j["summary"]["regressions"], 2)

    def test_parameter_appears_null_to_set(self):
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        p = b["facts"]["mlx"]["adapters"][0]["fw_config"]["SRIOV_EN"]
        p["current"] = None
        p.setdefault("unavailable", {})["current"] = {"status": "truncated", "detail": "row cut"}
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        ch = {c["item"]: c for c in changes(j)}
        self.assertEqual(ch["SRIOV_EN.current"]["verdict"], "change")
        self.assertIsNone(ch["SRIOV_EN.current"]["before"])
        self.assertIn("not reported in the baseline", ch["SRIOV_EN.current"]["message"])
        # and the other way: set -> null is visibility lost
        j = self.diff(self.write("a2.json", a), self.write("b2.json", b))
        ch = {c["item"]: c for c in changes(j)}
        self.assertEqual(ch["SRIOV_EN.current"]["verdict"], "unknown")
        # the whole configuration unreadable in the baseline, readable now
        b["facts"]["mlx"]["adapters"][0]["fw_config"] = None
        b["facts"]["mlx"]["adapters"][0].setdefault("unavailable", {})["fw_config"] = {"status": "needs_root"}
        j = self.diff(self.write("b3.json", b), self.write("a3.json", a))
        ch = {c["item"]: c for c in changes(j)}
        self.assertEqual(ch["fw_config"]["verdict"], "change")
        self.assertIn("not readable in the baseline", ch["fw_config"]["message"])

    def test_configured_but_not_active_after_the_update(self):
        # the DGX notes' NUM_OF_VFS 16 -> 8 left in next boot (tests/mlx/data ..._FRAGMENT.txt)
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        for d in (b, a):
            d["facts"]["mlx"]["adapters"][0]["fw_config"]["NUM_OF_VFS"] = {
                "default": 8, "current": 16, "next_boot": 8, "pending": True}
        j = self.diff(self.write("b.json", b), self.write("a.json", a), rc=1)
        card = j["cards"][0]
        pend = [c for c in card["changes"] if c["item"] == "NUM_OF_VFS.pending"]
        self.assertEqual(pend[0]["verdict"], "regression")  # the firmware changed, still pending
        self.assertIn("configured but not active", pend[0]["message"])
        self.assertIn("-l 3 --sync 1", pend[0]["fix"])
        self.assertEqual(card["fw_config_state"]["pending"], ["NUM_OF_VFS"])
        self.assertFalse(card["fw_config_state"]["current_next_boot_intent_agree"])
        # no reset seen between the captures: a change that names the reset, not a regression
        a["facts"]["mlx"]["adapters"][0]["fw_version"] = "14.20.1010"
        j = self.diff(self.write("b2.json", b), self.write("a2.json", a), rc=1)
        pend = [c for c in changes(j) if c["item"] == "NUM_OF_VFS.pending"]
        self.assertEqual(pend[0]["verdict"], "change")
        self.assertIn("since the baseline", pend[0]["message"])

    def test_profile_intent(self):
        b, a = (load(p) for p in pair("diff-wrorder-reset"))
        prof = self.write("p.json", {"schema": "hwcheck.profile", "schema_version": 1, "products": [
            {"match": {"psid": "MT_2470111034"}, "fw_config": {"PCI_WR_ORDERING": "force_relax"}}]})
        j = self.diff(self.write("b.json", b), self.write("a.json", a), "--profile", prof, rc=1)
        st = j["cards"][0]["fw_config_state"]
        self.assertEqual(st["profile"], {"expected": {"PCI_WR_ORDERING": "force_relax"},
                                         "differ": ["PCI_WR_ORDERING"]})
        self.assertFalse(st["current_next_boot_intent_agree"])
        cp = run("diff", "--profile", prof, self.write("b1.json", b), self.write("a1.json", a))
        self.assertIn("fw config: current == next boot == profile: no (not as the profile intends: "
                      "PCI_WR_ORDERING)", cp.stdout)
        prof2 = self.write("p2.json", {"schema": "hwcheck.profile", "schema_version": 1, "products": [
            {"match": {"psid": "MT_2470111034"}, "fw_config": {"PCI_WR_ORDERING": 0}}]})
        j = self.diff(self.write("b2.json", b), self.write("a2.json", a), "--profile", prof2, rc=1)
        self.assertTrue(j["cards"][0]["fw_config_state"]["current_next_boot_intent_agree"])
        bad = self.write("p3.json", {"schema": "hwcheck.profile", "schema_version": 1, "products": [
            {"match": {"psid": "X"}, "fw_config": {"PCI_WR_ORDERING": [1]}}]})
        cp = run("diff", "--profile", bad, *pair("diff-wrorder-reset"))
        self.assertEqual(cp.returncode, 2)
        self.assertIn("fw_config", cp.stderr)


if __name__ == "__main__":
    hwctest.main()

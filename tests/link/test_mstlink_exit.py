# SPDX-License-Identifier: MIT
# mstlink (mstflint's mlxlink) in the collector (mlx/mlxlink.c):
# - its exit status, as mstflint's sources give it (mlxlink/mlxlink_main.cpp main(),
#   mlxlink/modules/mlxlink_ui.cpp MlxlinkUi::run(), mstflint b9d9e84): 0 when every section was
#   printed (a "Warning:" line does not change it); 1 when a section failed (its line under the
#   "Errors" title printed last, after the sections that were read whole) or an exception left the
#   run ("-E- ..." on stderr). The sections printed on exit 1 are read, every value not printed says
#   mstlink's own words; a failed run that says nothing of why is not read at all.
# - the cards it refuses (ConnectX-3/-3 Pro: "-E- Device is not supported"; ConnectX-2 and older:
#   not in its device table) are not asked, and say so.
# On the real capture of tests/fixtures/link-bf3-mlxlink-clean (a BlueField-3 port, mstlink exit 0),
# its result and the end of its output edited (RECONSTRUCTED: the Errors section in the layout of
# the real one in tests/fuzz/corpus/link/mlxlink-pcie-errors-section-skyao.txt), and on the real
# ConnectX-2 of tests/fixtures/link-ib-cx2-cable-pulled run with a fake mstlink.
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import read_text as read, run_json, write_text as write  # noqa: E402

FX = "link-bf3-mlxlink-clean"
CMD = "mstlink -d 0000:03:00.0 -m -c"
KEY = "hwcheck/commands/" + CMD
ERRORS = ("\n\x1b[31m\nErrors\n------\nShowing BER via PPCNT raised the following exception: "
          "ME_REG_ACCESS_BAD_PARAM\n\x1b[0m\n")


def variant(d, stdout_edit, result, stderr=""):
    root = os.path.join(d, "root")
    shutil.copytree(hwctest.fixture(FX, "root"), root, symlinks=True)
    out = os.path.join(root, KEY, "stdout")
    write(out, stdout_edit(read(out)))
    write(os.path.join(root, KEY, "result"), result)
    write(os.path.join(root, KEY, "stderr"), stderr)
    cp, j = run_json("--root", root, "check", "--json")
    hwctest.validate(j)
    return j


def phy(j):
    return j["facts"]["mlx"]["adapters"][0]["ports"][0]["phy"]


def why(obj, key):
    u = obj.get("unavailable", {}).get(key, {})
    return u.get("status"), u.get("detail")


def finding(j, rule):
    return [(f["severity"], f["message"]) for f in j["findings"] if f["rule_id"] == rule]


def without_counters(text):
    return text[:text.index("Physical Counters and BER Info")]


class ExitStatus(unittest.TestCase):
    def test_failed_section_is_unknown_with_mstlink_words(self):
        # the BER section failed: the sections printed before it are read (FEC, speed), its values
        # are unreadable with the Errors line, and the BER rule cannot decide
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, lambda t: without_counters(t) + ERRORS, "exit=1\n")
        p = phy(j)
        self.assertEqual((p["fec"], p["speed"], p["source"]), ("Standard RS-FEC - RS(528,514)", "100G", CMD))
        said = (CMD + " exited 1: Showing BER via PPCNT raised the following exception: "
                "ME_REG_ACCESS_BAD_PARAM")
        for k in ("raw_ber", "effective_ber", "link_down_counter"):
            self.assertEqual(why(p, k), ("unreadable", said), k)
        self.assertEqual([s for s, _ in finding(j, "LINK_RAW_BER_HIGH")], ["unknown"])
        self.assertIn("ME_REG_ACCESS_BAD_PARAM", finding(j, "LINK_RAW_BER_HIGH")[0][1])

    def test_exception_after_the_sections_printed(self):
        # an exception left the run after some sections were printed: "-E-" on stderr says why
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, without_counters, "exit=1\n", "-E- Failed to send access register: timeout\n")
        p = phy(j)
        self.assertEqual(p["fec"], "Standard RS-FEC - RS(528,514)")
        self.assertEqual(why(p, "raw_ber"),
                         ("unreadable", CMD + " exited 1: -E- Failed to send access register: timeout"))

    def test_failure_without_a_report_is_not_read(self):
        # every section printed, exit 1 and no word of why: not mstlink's own way to fail, so its
        # output is not judged as if the run had succeeded
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, lambda t: t, "exit=1\n")
        p = phy(j)
        said = CMD + " exited 1 without an error report: its output is not used"
        for k in ("source", "fec", "raw_ber"):
            self.assertEqual(why(p, k), ("unreadable", said), k)
        fec = [c for c in j["cards"][0]["checks"] if c["item"] == "port_fec"]
        self.assertEqual([c["verdict"] for c in fec], ["unknown"])  # was ok on this output
        self.assertIn(said, fec[0]["reason"])

    def test_warning_on_success_is_read(self):
        # exit 0 with mstlink's warning line (MlxlinkRecord::printWar): a complete report
        warn = ("Warning: Cannot get module EEPROM information, module operation status is not "
                "'plugged and enabled'\n")
        with tempfile.TemporaryDirectory() as d:
            j = variant(d, lambda t: t + warn, "exit=0\n")
        p = phy(j)
        self.assertLess(p["raw_ber"], 1e-250)
        self.assertEqual(p["effective_errors"], 0)
        self.assertEqual(finding(j, "LINK_RAW_BER_HIGH"), [])


FAKE = """#!/bin/sh
echo "$(basename "$0") $*" >> '{log}'
echo "-E- Device is not supported" >&2
exit 1
"""


class RefusedCards(unittest.TestCase):
    def test_connectx2_is_not_asked(self):
        # a live run (--exec-tools, fake mstflint tools that log their argv): only the version is
        # asked (an mstflint before 4.21 still takes ConnectX-2); this one answers none, so the
        # newest behaviour is assumed: no tool asks the card, and the port says why and what reads
        # it instead
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(hwctest.fixture("link-ib-cx2-cable-pulled", "root"), root, symlinks=True,
                            ignore=shutil.ignore_patterns("hwcheck"))
            bin_, log = os.path.join(d, "bin"), os.path.join(d, "argv.log")
            for tool in ("mstlink", "mstconfig"):
                write(os.path.join(bin_, tool), FAKE.format(log=log))
                os.chmod(os.path.join(bin_, tool), 0o755)
            cp, j = run_json("--root", root, "--exec-tools", "facts", "--json",
                             env={"HWCHECK_TOOL_PATH": bin_}, timeout=120)
            ran = read(log).splitlines() if os.path.exists(log) else []
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(ran, ["mstconfig -v"])
        ad = j["facts"]["mlx"]["adapters"][0]
        self.assertEqual(why(ad, "fw_config")[0], "unsupported")
        self.assertIn("mstflint dropped ConnectX and ConnectX-2 in 4.21", why(ad, "fw_config")[1])
        self.assertIn("the installed mstflint's version is unknown", why(ad, "fw_config")[1])
        for p in j["facts"]["mlx"]["adapters"][0]["ports"]:
            st, detail = why(p["phy"], "source")
            self.assertEqual(st, "unsupported")
            # the product as the identity table names it (ConnectX-2 at PCI revision 0xb0)
            self.assertEqual(detail, "mstlink does not support this card (ConnectX-2, 15b3:673c): "
                             "mstflint's mlxlink takes Connect-IB and later, not ConnectX-3 or older; "
                             "perfquery and ibportstate read its port")
            self.assertEqual(why(p["module"], "identifier"), (st, detail))

    def test_connectx3_replayed(self):
        # a capture of a ConnectX-3 (no mstlink recording): the reason is the card, not the
        # capture ("mstlink: not in this capture" before); port 2 of the function too
        j = run_json("--root", hwctest.fixture("field-ports-cx3-ib-port2-down", "root"), "facts", "--json")[1]
        ports = [p for ad in j["facts"]["mlx"]["adapters"] for p in ad["ports"]]
        self.assertEqual(len(ports), 2)
        for p in ports:
            st, detail = why(p["phy"], "source")
            self.assertEqual(st, "unsupported", json.dumps(p["phy"]))
            self.assertIn("mstlink does not support this card (ConnectX-3, 15b3:1003)", detail)


if __name__ == "__main__":
    hwctest.main()

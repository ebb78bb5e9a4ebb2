# SPDX-License-Identifier: MIT
# One card's mstflint tools at once (issue 14's time bound, mlx/collect.c), on replayed roots:
#  - the facts are the same bytes whether the tools run at once (a paced replay: HWCHECK_REPLAY_PACE=1
#    starts them ahead), one after the other (--serial-tools) or unpaced, on every fixture root where
#    one card has several mstflint tools or there are several cards;
#  - a tool that answered busy is re-run alone: replayed from <key>/retry/ (facts from the re-run,
#    tools_rerun says so), or without retry/ busy again (the fact unknown, tools_rerun says so);
#  - `snapshot --exec-tools` with fake tools, one answering busy once, records the re-run in
#    <key>/retry/ and the untarred capture replays to the same facts.
# The busy answer is RECONSTRUCTED from mstflint's sources (mlxreg/mlxreg_lib/mlxreg_lib.cpp
# "Failed to send access register: %s" with mtcr_ul/mtcr_common.c's m_err2str of
# ME_ICMD_STATUS_SEMAPHORE_TO, printed as "-E- %s" by mlxreg_ui.cpp): no capture of it was found.
import glob
import json
import os
import shutil
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import read_text as read, run_json, write_text as write  # noqa: E402

BUSY = "-E- Failed to send access register: Timed out trying to take the ICMD semaphore\n"
HEALTHY = "healthy-cx7-gen5x16"
MTMP = "mstreg -d 0000:21:00.0 --reg_name MTMP --get --indexes sensor_index=0x0,slot_index=0x0"


def tool_roots():
    """Fixture roots where a card has two or more mstflint tools recorded, or two cards have one."""
    out = []
    for cmds in sorted(glob.glob(hwctest.fixture("*", "root", "hwcheck", "commands"))):
        per_card = {}
        for key in os.listdir(cmds):
            w = key.split(" ")
            if w[0].startswith("mst") and len(w) > 2 and w[1] == "-d":
                per_card[w[2]] = per_card.get(w[2], 0) + 1
        if len(per_card) > 1 or any(n > 1 for n in per_card.values()):
            out.append(os.path.dirname(os.path.dirname(cmds)))
    return out


def facts_text(root, *extra, env=None):
    cp, doc = run_json("--root", root, "facts", "--json", *extra, env=env)
    if cp.returncode != 0:
        raise AssertionError(f"{root}: exit {cp.returncode}: {cp.stderr}")
    return json.dumps(doc["facts"], sort_keys=False)


def adapter(doc, bdf):
    return next(a for a in doc["facts"]["mlx"]["adapters"] if a["bdf"] == bdf)


class SameFacts(unittest.TestCase):
    def test_at_once_serial_and_unpaced_give_the_same_bytes(self):
        roots = tool_roots()
        self.assertGreaterEqual(len(roots), 5, roots)
        for root in roots:
            with self.subTest(root=os.path.relpath(root, hwctest.fixture())):
                before = facts_text(root)  # unpaced: nothing is started ahead
                pace = {"HWCHECK_REPLAY_PACE": "1"}
                at_once = facts_text(root, env=pace)
                serial = facts_text(root, "--serial-tools", env=pace)
                self.assertEqual(at_once, before)
                self.assertEqual(serial, before)


class BusyReplayed(unittest.TestCase):
    def busy_root(self, t, retry):
        root = os.path.join(t, "root")
        shutil.copytree(hwctest.fixture(HEALTHY, "root"), root, symlinks=True)
        key = os.path.join(root, "hwcheck", "commands", MTMP)
        good = read(os.path.join(key, "stdout"))
        write(os.path.join(key, "stdout"), "")
        write(os.path.join(key, "stderr"), BUSY)
        write(os.path.join(key, "result"), "exit=1\n")
        if retry:
            write(os.path.join(key, "retry", "stdout"), good)
            write(os.path.join(key, "retry", "result"), "exit=0\n")
        return root

    def replayed(self, retry):
        """The facts of the busy root (valid), the busy card's adapter, its one tools_rerun."""
        with tempfile.TemporaryDirectory() as t:
            cp, doc = run_json("--root", self.busy_root(t, retry), "facts", "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        hwctest.validate(doc)
        a = adapter(doc, "0000:21:00.0")
        self.assertEqual(len(a["tools_rerun"]), 1)
        return doc, a, a["tools_rerun"][0]

    def test_retry_recorded(self):
        doc, a, note = self.replayed(True)
        self.assertIsInstance(a["registers"]["temp_mdegc"], int)
        self.assertEqual(a["registers"]["temp_source"], "mstreg")
        self.assertTrue(note.startswith(MTMP + ": busy"), note)
        self.assertTrue(note.endswith("re-run alone: exit status 0"), note)
        self.assertNotIn("tools_rerun", adapter(doc, "0000:81:00.0"))

    def test_text_report_shows_the_rerun(self):
        # the card's text section has one "tools re-run" line (shown, not judged) with the fact's
        # own words; the other card and a root without a busy answer have none
        for retry, how in ((True, "exit status 0"), (False, "busy again")):
            with self.subTest(retry=retry), tempfile.TemporaryDirectory() as t:
                root = self.busy_root(t, retry)
                out = hwctest.run("--root", root, "--no-color").stdout
                _, doc = run_json("--root", root, "--json")
            card = out[out.index("\ncard 0000:21:00.0"):out.index("\ncard 0000:81:00.0")]
            self.assertRegex(card, r"\n  -        tools re-run mstreg -d 0000:21:00\.0 --reg_name MTMP ")
            flat = " ".join(card.split())
            self.assertIn("busy (a device semaphore) while the card's tools ran at once; re-run "
                          f"alone: {how}", flat)
            self.assertEqual(out.count("tools re-run"), 1)
            lines = [(c["subject"] if "subject" in c else None, c["verdict"], c["value"])
                     for c in next(c for c in doc["cards"] if c["bdf"] == "0000:21:00.0")["checks"]
                     if c["item"] == "tools_rerun"]
            self.assertEqual(lines, [(None, "not_judged",
                                      adapter(doc, "0000:21:00.0")["tools_rerun"][0])])
        self.assertNotIn("tools re-run", hwctest.run("--root", hwctest.fixture(HEALTHY, "root")).stdout)

    def test_busy_again(self):
        doc, a, note = self.replayed(False)
        self.assertIsNone(a["registers"]["temp_mdegc"])
        self.assertIn("semaphore", json.dumps(a["registers"]["unavailable"]))
        self.assertTrue(note.endswith("re-run alone: busy again"), note)


FAKE = """#!/bin/sh
key="$(basename "$0") $*"; rec='{cmds}'/"$key"; T='{tmp}'
if [ "$key" = '{mtmp}' ] && mkdir "$T/busy-once" 2>/dev/null; then
  printf '%s' '{busy}' >&2; exit 1
fi
[ -d "$rec" ] || {{ echo "-E- no recording of $key" >&2; exit 1; }}
cat "$rec/stdout"
"""


class BusySnapshot(unittest.TestCase):
    def test_snapshot_records_the_rerun_and_replays_it(self):
        with tempfile.TemporaryDirectory() as t:
            root = os.path.join(t, "root")
            shutil.copytree(hwctest.fixture(HEALTHY, "root"), root, symlinks=True,
                            ignore=shutil.ignore_patterns("hwcheck"))
            cmds = hwctest.fixture(HEALTHY, "root", "hwcheck", "commands")
            bin_ = os.path.join(t, "bin")
            os.makedirs(bin_)
            for tool in ("mstconfig", "mstflint", "mstreg"):
                p = os.path.join(bin_, tool)
                write(p, FAKE.format(cmds=cmds, tmp=t, mtmp=MTMP, busy=BUSY.strip()))
                os.chmod(p, 0o755)
            tar = os.path.join(t, "snap.tar")
            cp = hwctest.run("snapshot", "-o", tar, "--root", root, "--exec-tools",
                             env={"HWCHECK_TOOL_PATH": bin_})
            self.assertEqual(cp.returncode, 0, cp.stderr)
            out = os.path.join(t, "out")
            with tarfile.open(tar) as tf:
                names = tf.getnames()
                tf.extractall(out)
            key = f"hwcheck/commands/{MTMP}"
            self.assertIn(f"{key}/retry/stdout", names)
            self.assertIn("Timed out trying to take the ICMD semaphore",
                          read(os.path.join(out, key, "stderr")))
            taken = json.loads(read(os.path.join(out, "hwcheck", "facts.json")))
            a = adapter(taken, "0000:21:00.0")
            self.assertTrue(a["tools_rerun"][0].endswith("re-run alone: exit status 0"))
            self.assertIsInstance(a["registers"]["temp_mdegc"], int)
            cp, again = run_json("--root", out, "facts", "--json")
            self.assertEqual(cp.returncode, 0, cp.stderr)
            self.assertEqual(again["facts"]["mlx"], taken["facts"]["mlx"])


if __name__ == "__main__":
    hwctest.main()

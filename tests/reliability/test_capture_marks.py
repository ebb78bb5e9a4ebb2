# SPDX-License-Identifier: MIT
# A capture that says what it could not read (docs/DESIGN.md, "Snapshot = fixture"): a file that
# existed but was refused replays with the captured run's status and errno, not as absent; the
# mstflint tools skipped as non-root replay as needs_root with the live reason, not as "not in
# this capture"; a capture without these marks replays as before.
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run  # noqa: E402

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
GATE = "mstflint tools need root (read-write PCI config space)"
CARD = "sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0"


def unprivileged():
    """The prefix that runs a command as a user files can refuse, or None (root without setpriv)."""
    if os.geteuid() != 0:
        return []
    return NOBODY if shutil.which("setpriv") else None


def doc_of(*argv):
    cp = run(*argv, "--json")
    if cp.returncode not in (0, 1, 2):
        raise AssertionError(f"hwcheck {argv}: exit {cp.returncode}: {cp.stderr}")
    doc = json.loads(cp.stdout)
    hwctest.validate(doc)
    return doc


def why(obj, key):
    return (obj.get("unavailable") or {}).get(key)


class Marks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def nonroot_capture(self, with_marks):
        """host-cx7-gen5-nonroot (config space cut to 64 bytes, as a user reads it) as a non-root
        snapshot of it writes it: the card's vpd (mode 0600 in sysfs) refused, the mstflint tools
        not run; without the marks, as captures were before them."""
        root = os.path.join(self.tmp, "marks" if with_marks else "plain")
        if os.path.isdir(root):
            return root
        shutil.copytree(hwctest.fixture("host-cx7-gen5-nonroot", "root"), root, symlinks=True)
        os.unlink(os.path.join(root, CARD, "vpd"))  # a user's read was refused: no bytes
        if with_marks:
            open(os.path.join(root, CARD, "vpd"), "w").close()
            os.makedirs(os.path.join(root, "hwcheck", "skipped"))
            with open(os.path.join(root, "hwcheck", "unreadable"), "w") as f:
                f.write(f"13 needs_root {CARD}/vpd\n")
            with open(os.path.join(root, "hwcheck", "skipped", "mstflint"), "w") as f:
                f.write(f"skipped=needs_root\nreason={GATE}\n")
        return root

    def test_replay_says_needs_root(self):
        marked = doc_of("--root", self.nonroot_capture(True), "check")
        plain = doc_of("--root", self.nonroot_capture(False), "check")
        tools = marked["facts"]["mlx"]["tools"]
        self.assertEqual((tools["status"], tools["detail"]), ("needs_root", GATE))
        self.assertEqual(plain["facts"]["mlx"]["tools"]["status"], "ok")
        card = [d for d in marked["facts"]["pci"]["devices"] if d["bdf"] == "0000:81:00.0"][0]
        self.assertEqual(why(card, "vpd"),
                         {"status": "needs_root", "detail": f"/{CARD}/vpd: Permission denied"})
        card = [d for d in plain["facts"]["pci"]["devices"] if d["bdf"] == "0000:81:00.0"][0]
        self.assertEqual(why(card, "vpd")["status"], "absent")  # as before: no marks, no claim
        text = run("--root", self.nonroot_capture(True), "check").stdout
        self.assertIn(f"needs_root: {GATE}", text)
        self.assertNotIn("mstconfig: not in this capture", text)
        self.assertIn("mstconfig: not in this capture",
                      run("--root", self.nonroot_capture(False), "check").stdout)

    def nobody_run(self, *argv):
        pre = unprivileged()
        if pre is None:
            self.skipTest("root without setpriv: nothing can refuse a read")
        exe = os.path.join(self.tmp, "hwcheck")
        if not os.path.exists(exe):
            shutil.copy(hwctest.hwcheck_path(), exe)
        cp = subprocess.run([*pre, exe, *argv], capture_output=True, text=True, timeout=120,
                            env={"LC_ALL": "C", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
        self.assertIn(cp.returncode, (0, 1, 2), cp.stderr)
        return cp

    def snapshot(self, root, name):
        out = os.path.join(self.tmp, name)
        os.makedirs(out)
        os.chmod(out, 0o777)
        tar = os.path.join(out, "s.tar")
        cp = self.nobody_run("--root", root, "snapshot", "-o", tar) if root else \
            self.nobody_run("snapshot", "-o", tar)
        d = os.path.join(out, "x")
        with tarfile.open(tar) as t:
            t.extractall(d)
        return cp, d

    def test_snapshot_of_refused_files(self):
        root = os.path.join(self.tmp, "root")
        shutil.copytree(hwctest.fixture("broken-sysfs-values", "root"), root, symlinks=True)
        aer = "sys/devices/pci0000:00/0000:3a:00.0/0000:3b:00.0/aer_dev_correctable"
        for p in ("proc/cpuinfo", aer):
            os.chmod(os.path.join(root, p), 0)
        cp, d = self.snapshot(root, "refused")
        self.assertIn("2 files could not be read (kept as such in hwcheck/unreadable)", cp.stderr)
        with open(os.path.join(d, "hwcheck", "unreadable")) as f:
            self.assertEqual(f.read(), f"13 unreadable proc/cpuinfo\n13 unreadable {aer}\n")
        # one refused file: "1 file", not "1 files" (cli's hwc_cli_noun)
        os.chmod(os.path.join(root, aer), 0o644)
        one, _ = self.snapshot(root, "refused-one")
        os.chmod(os.path.join(root, aer), 0)
        self.assertIn("; 1 file could not be read (kept as such in hwcheck/unreadable)", one.stderr)
        self.assertNotRegex(one.stderr, r"\b1 (files|links|directories|members|values)\b")
        self.assertEqual(os.path.getsize(os.path.join(d, "proc", "cpuinfo")), 0)
        live = json.loads(self.nobody_run("--root", root, "facts", "--json").stdout)["facts"]
        with open(os.path.join(d, "hwcheck", "facts.json")) as f:
            self.assertEqual(json.load(f)["facts"], live)
        replay = doc_of("--root", d, "facts")["facts"]
        self.assertEqual(replay, live)  # the replay, run as root, says what the user's run said
        dev = [x for x in replay["pci"]["devices"] if x["bdf"] == "0000:3b:00.0"][0]
        self.assertEqual(why(dev, "aer"),
                         {"status": "unreadable", "errno": 13,
                          "detail": f"/{aer}: Permission denied"})

    def test_live_snapshot_as_nobody(self):
        cp, d = self.snapshot(None, "live")
        with open(os.path.join(d, "hwcheck", "skipped", "mstflint")) as f:
            self.assertEqual(f.read(), f"skipped=needs_root\nreason={GATE}\n")
        with open(os.path.join(d, "hwcheck", "facts.json")) as f:
            stored = json.load(f)["facts"]
        replay = doc_of("--root", d, "facts")["facts"]
        # read live, then replayed from the capture (host.read_from: COLLECT_INCOMPLETE's fix)
        self.assertEqual((stored["host"].pop("read_from"), replay["host"].pop("read_from")), ("live", "capture"))
        self.assertEqual(replay, stored)
        tools = replay["mlx"]["tools"]
        self.assertEqual((tools["status"], tools["detail"]), ("needs_root", GATE))
        marks = os.path.join(d, "hwcheck", "unreadable")
        if os.path.exists(marks):  # what this machine refuses a user: each replays as refused
            with open(marks) as f:
                for line in f:
                    err, st, path = line.rstrip("\n").split(" ", 2)
                    self.assertIn(st, ("needs_root", "unreadable", "absent"), line)
                    self.assertTrue(os.path.isfile(os.path.join(d, path)), line)


if __name__ == "__main__":
    hwctest.main()

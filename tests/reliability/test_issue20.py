# SPDX-License-Identifier: MIT
# Issue 20 (reliability, round 2): no harm to the machine, faithful snapshots, clear errors.
# Each test names the item of the issue it proves.
import json
import os
import stat
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run  # noqa: E402

ROOT = None


def root():
    return hwctest.fixture("amd-x2apic-off", "root")


class Outputs(unittest.TestCase):
    """Harm 1: -o, --prom and snapshot -o never replace what is not a regular file."""

    def test_prom_dev_null_stays_a_device(self):
        cp = run("--root", root(), "--prom", "/dev/null")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))

    def test_every_output_onto_dev_full_says_so(self):
        for argv in (["--json", "-o", "/dev/full"], ["--prom", "/dev/full"],
                     ["facts", "--json", "-o", "/dev/full"], ["snapshot", "-o", "/dev/full"]):
            cp = run("--root", root(), *argv)
            self.assertEqual(cp.returncode, 4, argv)
            self.assertIn("/dev/full: cannot write: No space left on device", cp.stderr, argv)

    def test_stdout_onto_dev_full_text_and_json(self):
        for argv in ([], ["--json"], ["facts"], ["facts", "--json"]):
            with open("/dev/full", "w") as full:
                e = dict(os.environ, LC_ALL="C")
                e.pop("HWCHECK_ROOT", None)
                cp = subprocess.run([hwctest.hwcheck_path(), "--root", root(), *argv],
                                    stdout=full, stderr=subprocess.PIPE, text=True, env=e)
            self.assertEqual(cp.returncode, 4, argv)
            self.assertIn("stdout: cannot write the output: No space left on device", cp.stderr)

    def test_symlink_is_refused_and_kept(self):
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "target")
            with open(target, "w") as f:
                f.write("precious\n")
            for argv in (["--json", "-o"], ["--prom"], ["snapshot", "-o"]):
                link = os.path.join(d, "out")
                os.symlink(target, link)
                cp = run("--root", root(), *argv, link)
                self.assertEqual(cp.returncode, 2, argv)
                self.assertIn("is a symbolic link", cp.stderr)
                self.assertTrue(os.path.islink(link))
                with open(target) as f:
                    self.assertEqual(f.read(), "precious\n")
                os.unlink(link)
            self.assertEqual(sorted(os.listdir(d)), ["target"])

    def test_existing_file_keeps_mode_and_owner(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            with open(out, "w") as f:
                f.write("old")
            os.chmod(out, 0o640)
            if os.geteuid() == 0:
                os.chown(out, 65534, 65534)
            before = os.stat(out)
            cp = run("--root", root(), "--json", "-o", out)
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            after = os.stat(out)
            self.assertNotEqual(before.st_ino, after.st_ino)  # replaced by rename
            self.assertEqual(stat.S_IMODE(after.st_mode), 0o640)
            self.assertEqual((after.st_uid, after.st_gid), (before.st_uid, before.st_gid))
            with open(out) as f:
                json.load(f)
            self.assertEqual(os.listdir(d), ["r.json"])

    def test_fifo_is_written_not_replaced(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "pipe")
            os.mkfifo(fifo)
            cp = run("--root", root(), "--json", "-o", fifo, timeout=30)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("a FIFO that no process is reading", cp.stderr)
            reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
            cp = run("--root", root(), "--json", "-o", fifo, timeout=30)
            data = reader.communicate(timeout=30)[0]
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            self.assertEqual(json.loads(data)["schema"], "hwcheck.report")
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_directory_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", root(), "--json", "-o", d)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("is a directory", cp.stderr)


if __name__ == "__main__":
    hwctest.main()

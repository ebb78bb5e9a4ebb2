#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/fuzz/run-short.sh takes the fuzzer, its corpus and the artifact directory as given on the
# command line, relative paths included: it changes into a scratch directory before it starts
# the fuzzer, so a relative path must be made absolute first. A stub "fuzzer" (a shell script that
# notes its arguments and, when told to, writes a crashing input) stands in for libFuzzer.
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hwctest  # noqa: E402

STUB = """#!/bin/sh
printf '%s\\n' "$@" > "$STUB_ARGS"
if [ -n "${STUB_CRASH:-}" ]; then
  for a in "$@"; do case $a in -artifact_prefix=*) p=${a#-artifact_prefix=};; esac; done
  printf x > "${p}crash-stub"
  echo "==1==ERROR: stub crash"
  exit 1
fi
echo "#20 DONE cov: 1 ft: 1 corp: 1/1b exec/s: 0 rss: 1Mb"
"""


class RunShort(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        os.mkdir(os.path.join(self.dir, "bin"))
        os.mkdir(os.path.join(self.dir, "seeds"))
        with open(os.path.join(self.dir, "seeds", "one"), "w") as f:
            f.write("seed")
        stub = os.path.join(self.dir, "bin", "fuzz_stub")
        with open(stub, "w") as f:
            f.write(STUB)
        os.chmod(stub, 0o755)
        self.args = os.path.join(self.dir, "args")

    def tearDown(self):
        self.tmp.cleanup()

    def run_short(self, *argv, crash=False):
        env = dict(os.environ, STUB_ARGS=self.args)
        env.pop("HWCHECK_FUZZ_SEED", None)
        env.pop("HWCHECK_FUZZ_SECONDS", None)
        if crash:
            env["STUB_CRASH"] = "1"
        return subprocess.run(["bash", hwctest.source("tests", "fuzz", "run-short.sh"), *argv],
                              cwd=self.dir, env=env, capture_output=True, text=True, timeout=60)

    def test_relative_fuzzer_and_corpus(self):
        cp = self.run_short("bin/fuzz_stub", "seeds", "1")
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("1 passed, 0 failed", cp.stdout)
        self.assertIn("fuzz_stub: 1 s, corpus 1 seeds", cp.stdout)
        with open(self.args) as f:
            self.assertIn("-max_total_time=1", f.read().split("\n"))

    def test_relative_artifact_dir_keeps_the_input(self):
        cp = self.run_short("bin/fuzz_stub", "seeds", "1", "arts", crash=True)
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        self.assertIn("0 passed, 1 failed", cp.stdout)
        with open(self.args) as f:
            prefix = [a for a in f.read().split("\n") if a.startswith("-artifact_prefix=")]
        self.assertEqual(prefix, ["-artifact_prefix=" + os.path.join(self.dir, "arts") + "/"])
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "arts", "crash-stub")))

    def test_missing_fuzzer_is_named(self):
        cp = self.run_short("bin/fuzz_none", "seeds", "1")
        self.assertNotEqual(cp.returncode, 0)
        self.assertIn("bin/fuzz_none", cp.stdout + cp.stderr)


if __name__ == "__main__":
    hwctest.main()

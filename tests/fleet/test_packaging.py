# SPDX-License-Identifier: MIT
# Packaging and docs: `cmake --install` lays out the binary, man page, bash completion, schemas,
# docs and contrib/; the man page and the completion know every option and command of the binary;
# docs/schema.md covers the diff and merge schemas. The Debian package: tests/fleet/test_deb.py.
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402

BUILD = hwctest.take_option("--build-dir")


def main_c():
    return open(hwctest.source("cli", "main.c")).read()


def long_options():
    return re.findall(r'\{"([a-z-]+)", (?:no|required)_argument', main_c())


def commands():
    block = main_c().split("static const struct command commands[]", 1)[1].split("};", 1)[0]
    return re.findall(r'\{"([a-z-]+)", hwc_cmd_', block)


def man_text():
    return open(hwctest.source("docs", "hwcheck.1")).read().replace("\\-", "-")


class Docs(unittest.TestCase):
    def test_man_page_names_every_option_and_command(self):
        man = man_text()
        opts = long_options()
        self.assertGreater(len(opts), 15)
        for o in opts:
            self.assertIn("--" + o, man, f"--{o} is not in docs/hwcheck.1")
        for c in commands():
            self.assertRegex(man, rf"\.B[I]? \"?{c}\b", f"command {c} is not in docs/hwcheck.1")
        help_text = hwctest.run("--help").stdout
        for o in re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", help_text, re.M):
            self.assertIn(o, man)

    def test_man_page_renders_cleanly(self):
        groff = shutil.which("groff")
        if not groff:
            self.skipTest("groff not installed")
        cp = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", hwctest.source("docs", "hwcheck.1")],
                            capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
        self.assertEqual((cp.returncode, cp.stderr), (0, ""))

    def test_exit_codes_match_help(self):
        man = man_text()
        for code in ("0", "1", "2", "3", "4"):
            self.assertIn(f".B {code}\n", man)

    def test_schema_page_covers_diff_and_merge(self):
        page = open(hwctest.source("docs", "schema.md")).read()
        for name in ("diff", "merge"):
            s = json.load(open(hwctest.source("docs", "schema", f"{name}.schema.json")))
            for key in s["properties"]:
                self.assertIn(f"`{key}", page, f"{name}.{key} is not in docs/schema.md")
        d = json.load(open(hwctest.source("docs", "schema", "diff.schema.json")))["$defs"]
        for word in d["change"]["properties"]["kind"]["enum"] + d["change"]["properties"]["verdict"]["enum"] \
                + d["card"]["properties"]["status"]["enum"]:
            self.assertIn(f"`{word}`", page)


class Completion(unittest.TestCase):
    def complete(self, *words):
        script = (f"source {hwctest.source('contrib', 'bash-completion', 'hwcheck')}\n"
                  f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
                  "_hwcheck; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        cp = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return [l for l in cp.stdout.splitlines() if l]

    def test_every_option_and_command(self):
        opts = self.complete("hwcheck", "--")
        for o in long_options():
            self.assertIn("--" + o, opts)
        self.assertEqual(sorted(self.complete("hwcheck", "")),
                         sorted(commands() + ["help"]))

    def test_arguments(self):
        self.assertEqual(self.complete("hwcheck", "--fail-on", ""), ["info", "unknown", "warn", "error"])
        self.assertEqual(self.complete("hwcheck", "--exit-codes", "n"), ["nagios", "npd"])
        self.assertEqual(self.complete("hwcheck", "rules", ""), ["list", "explain"])
        ids = self.complete(hwctest.hwcheck_path(), "--no-color", "rules", "explain", "")
        want = [l.split()[0] for l in hwctest.run("rules", "list").stdout.splitlines()]
        self.assertEqual(ids, want)
        self.assertGreater(len(ids), 0)


@unittest.skipUnless(BUILD, "needs --build-dir")
class Install(unittest.TestCase):
    def test_cmake_install_layout(self):
        with tempfile.TemporaryDirectory() as d:
            cp = subprocess.run(["cmake", "--install", BUILD, "--prefix", d], capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            want = ["bin/hwcheck", "share/bash-completion/completions/hwcheck",
                    "share/hwcheck/hwcheck-report.schema.json", "share/hwcheck/schema/diff.schema.json",
                    "share/hwcheck/schema/merge.schema.json", "share/doc/hwcheck/schema.md",
                    "share/doc/hwcheck/FACTS.md", "share/hwcheck/contrib/slurm/hwcheck-healthcheck.sh",
                    "share/hwcheck/contrib/k8s/hwcheck-daemonset.yaml",
                    "share/hwcheck/contrib/ansible/roles/hwcheck/files/hwcheck.fact",
                    "share/hwcheck/contrib/prometheus/hwcheck-prom.service",
                    "share/hwcheck/contrib/gate/hwcheck-gate.sh", "share/doc/hwcheck/profile.md",
                    "share/doc/hwcheck/examples/profile-example.json", "share/doc/hwcheck/copyright",
                    "share/hwcheck/default-profile.json"]
            for w in want:
                self.assertTrue(os.path.isfile(os.path.join(d, w)), w)
            for x in ("share/hwcheck/contrib/slurm/hwcheck-healthcheck.sh", "share/hwcheck/contrib/ansible/roles/hwcheck/files/hwcheck.fact"):
                self.assertTrue(os.access(os.path.join(d, x), os.X_OK), x)
            man = os.path.join(d, "share/man/man1/hwcheck.1.gz")
            if os.path.exists(man):
                text = gzip.open(man, "rt").read()
            else:
                text = open(os.path.join(d, "share/man/man1/hwcheck.1")).read()
            self.assertEqual(text, open(hwctest.source("docs", "hwcheck.1")).read())
            cp = subprocess.run([os.path.join(d, "bin/hwcheck"), "version"], capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0)


if __name__ == "__main__":
    hwctest.main()

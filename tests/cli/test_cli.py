# SPDX-License-Identifier: MIT
# CLI contract: commands, exit codes, JSON/schema, colours, snapshot round trip, facts files.
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


class ExitCodes(unittest.TestCase):
    def test_unknown_option_is_usage(self):
        cp = run("--bogus")
        self.assertEqual(cp.returncode, 2)
        self.assertEqual(cp.stderr.count("\n"), 1)
        self.assertIn("unknown option '--bogus'", cp.stderr)
        self.assertIn("--help", cp.stderr)

    def test_unknown_command_is_usage(self):
        cp = run("frobnicate")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("unknown command 'frobnicate'", cp.stderr)

    def test_missing_argument(self):
        cp = run("--root")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("needs an argument", cp.stderr)

    def test_bad_fail_on(self):
        cp = run("--fail-on", "fatal")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("--fail-on", cp.stderr)

    def test_nonexistent_root(self):
        cp = run("--root", "/nonexistent")
        self.assertEqual(cp.returncode, 2)
        self.assertEqual(cp.stderr, "hwcheck: --root /nonexistent: No such file or directory\n")

    def test_env_root(self):
        cp = run(env={"HWCHECK_ROOT": "/nonexistent"})
        self.assertEqual(cp.returncode, 2)

    def test_empty_root_is_nothing_collected(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", d)
            self.assertEqual(cp.returncode, 3)
            self.assertIn("nothing could be collected", cp.stderr)
            cp = run("--root", d, "--exit-codes", "nagios")
            self.assertEqual(cp.returncode, 3)
            cp = run("--root", d, "--exit-codes", "npd")
            self.assertEqual(cp.returncode, 2)

    def test_pci_dump_without_a_device_is_said(self):
        # a file that is no lspci dump (or an empty one) holds no PCI function: said as a
        # collection problem naming the file; alone it is the machine, so nothing was collected
        # from it (not "under /"); beside a --root, the root's own facts are still judged
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "notes.txt")
            with open(bad, "w") as f:
                f.write("root:x:0:0:root:/root:/bin/bash\n")
            problem = f"hwcheck: pci: {bad}: no PCI function in the file (not the output of 'lspci -x', -xxx or -xxxx?)\n"
            cp = run("--pci-dump", bad)
            self.assertEqual(cp.returncode, 3)
            self.assertEqual(cp.stderr, problem + f"hwcheck: nothing could be collected from --pci-dump {bad}\n")
            self.assertIn(f"No fact could be read from {bad}", cp.stdout)
            self.assertEqual(run("--pci-dump", bad, "list").returncode, 3)
            cp = run("--root", hwctest.fixture("vm-q35-rails", "root"), "--pci-dump", bad)
            self.assertEqual(cp.returncode, 1)
            self.assertEqual(cp.stderr, problem)
            self.assertIn("; 1 collection problem", cp.stdout)

    def test_facts_file_with_nothing_known_names_the_file(self):
        # a facts file saved from an empty root: with --facts nothing is collected, so no message
        # may say "nothing could be collected under /" (the machine running hwcheck was not read)
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "empty-facts.json")
            cp = run("--root", d, "facts", "--json", "-o", f)
            self.assertEqual(cp.returncode, 3, cp.stderr)
            for cmd in (("facts",), ("facts", "--json"), ("check",), ("list",)):
                with self.subTest(cmd):
                    cp = run("--facts", f, *cmd)
                    self.assertEqual(cp.returncode, 3, cp.stderr)
                    self.assertNotIn("under /", cp.stderr + cp.stdout)
                    self.assertIn(f"--facts {f} holds no known fact", cp.stderr)
                    self.assertIn("nothing is collected", cp.stderr)
            cp = run("--facts", f, "check")
            self.assertEqual(cp.stdout.splitlines()[0],
                             "hwcheck: UNKNOWN no known fact in the --facts file")
            self.assertIn(f"No fact could be read from {f}", cp.stdout)
            cp, j = run_json("--facts", f, "check", "--json")
            self.assertEqual(cp.returncode, 3)
            hwctest.validate(j)
            self.assertEqual(j["summary"]["unknown"][0]["reason"],
                             f"--facts {f} holds no known fact (with --facts nothing is collected: "
                             "every fact comes from the file)")

    def test_findings_exit_one_and_fail_on(self):
        # this machine has no ConnectX: MLX_NO_ADAPTER (warn) -> exit 1 with the default --fail-on
        cp = run()
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertIn("no ConnectX adapter", cp.stdout)
        self.assertEqual(run("--fail-on", "error").returncode, 0)
        self.assertEqual(run("--exit-codes", "nagios").returncode, 1)

    def test_help_lists_exit_codes(self):
        cp = run("--help")
        self.assertEqual(cp.returncode, 0)
        for code in ("0  no finding", "1  findings", "2  usage", "3  nothing", "4  internal"):
            self.assertIn(code, cp.stdout)

    def test_version(self):
        cp = run("version")
        self.assertEqual(cp.returncode, 0)
        self.assertRegex(cp.stdout, r"^hwcheck \d+\.\d+\.\d+")
        _, j = run_json("version", "--json")
        self.assertEqual(j["name"], "hwcheck")

    def test_internal_error_code_documented(self):
        # exit 4 cannot be provoked safely from outside; it is documented and never used for input
        self.assertIn("4  internal error", run("--help").stdout)


class Json(unittest.TestCase):
    def test_live_report_is_valid(self):
        cp, j = run_json("--json")
        self.assertEqual(j["schema"], "hwcheck.report")
        self.assertEqual(j["schema_version"], 1)
        for k in ("tool", "run", "facts", "findings", "errors"):
            self.assertIn(k, j)
        hwctest.validate(j)
        ids = [f["rule_id"] for f in j["findings"]]
        self.assertIn("MLX_NO_ADAPTER", ids)

    def test_facts_json_is_valid(self):
        cp, j = run_json("facts", "--json")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(j["schema"], "hwcheck.facts")
        self.assertNotIn("findings", j)
        hwctest.validate(j)

    def test_live_facts_match_proc(self):
        _, j = run_json("facts", "--json")
        rel = open("/proc/sys/kernel/osrelease").read().strip()
        self.assertEqual(j["facts"]["host"]["kernel"]["release"], rel)

    def test_output_file_atomic(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            cp = run("--json", "-o", out)
            self.assertIn(cp.returncode, (0, 1))
            self.assertEqual(cp.stdout, "")
            json.load(open(out))
            self.assertEqual(sorted(os.listdir(d)), ["r.json"])  # no temporary left behind


class Colour(unittest.TestCase):
    def test_no_colour_when_not_tty(self):
        self.assertNotIn("\033[", run().stdout)

    def test_no_colour_env_and_flag_on_a_tty(self):
        import pty
        import subprocess
        for extra_env, flags in (({"NO_COLOR": "1"}, []), ({}, ["--no-color"]), ({}, [])):
            m, s = pty.openpty()
            env = dict(os.environ, **extra_env)
            env.pop("HWCHECK_ROOT", None)
            if not extra_env:
                env.pop("NO_COLOR", None)
            p = subprocess.Popen([hwctest.hwcheck_path(), *flags], stdout=s, stderr=subprocess.DEVNULL, env=env)
            os.close(s)
            out = b""
            while True:
                try:
                    chunk = os.read(m, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            p.wait()
            os.close(m)
            coloured = b"\033[" in out
            self.assertEqual(coloured, not extra_env and not flags, (extra_env, flags))


class Snapshot(unittest.TestCase):
    def test_snapshot_replays_to_same_facts(self):
        with tempfile.TemporaryDirectory() as d:
            tar = os.path.join(d, "host.tar")
            cp = run("snapshot", "-o", tar)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            root = os.path.join(d, "root")
            os.mkdir(root)
            with tarfile.open(tar) as t:
                for m in t.getmembers():
                    self.assertFalse(m.name.startswith("/") or ".." in m.name.split("/"), m.name)
                t.extractall(root)
            _, live = run_json("facts", "--json")
            _, replay = run_json("--root", root, "facts", "--json")
            saved = json.load(open(os.path.join(root, "hwcheck", "facts.json")))
            # the uptime moves between two live runs; the capture keeps the one it read
            self.assertEqual(replay["facts"]["host"]["kernel"].get("uptime_s"),
                             saved["facts"]["host"]["kernel"].get("uptime_s"))
            # and says how it was read: this machine, then the capture (COLLECT_INCOMPLETE's fix)
            self.assertEqual([doc["facts"]["host"].pop("read_from") for doc in (live, replay, saved)],
                             ["live", "capture", "live"])
            for doc in (live, replay, saved):
                doc["facts"]["host"]["kernel"].pop("uptime_s", None)
            self.assertEqual(live["facts"], replay["facts"])
            self.assertEqual(saved["facts"], live["facts"])

    def test_replayed_non_root_capture_says_capture_again_as_root(self):
        # host-cx7-gen5-nonroot: a capture taken without root (64-byte config spaces); running
        # this hwcheck as root would not read more of it
        cp, j = run_json("--root", hwctest.fixture("host-cx7-gen5-nonroot", "root"), "check", "--json")
        self.assertEqual(j["facts"]["host"]["read_from"], "capture")
        f = [f for f in j["findings"] if f["rule_id"] == "COLLECT_INCOMPLETE" and "need root" in f["message"]]
        self.assertTrue(f, [x["message"] for x in j["findings"]])
        for x in f:
            self.assertIn("capture the machine again as root (`sudo hwcheck snapshot -o host.tar`)", x["fix"])
            self.assertNotIn("Run hwcheck as root", x["fix"])

    def test_snapshot_needs_output(self):
        cp = run("snapshot")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("-o FILE", cp.stderr)


class FactsFile(unittest.TestCase):
    def test_round_trip_exact(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "facts.json")
            run("facts", "--json", "-o", f, check=0)
            cp, j = run_json("facts", "--json", "--facts", f)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            self.assertEqual(json.load(open(f))["facts"], j["facts"])
            cp, rep = run_json("check", "--json", "--facts", f)
            self.assertEqual(cp.returncode, 1)
            hwctest.validate(rep)

    def test_newer_schema_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "facts.json")
            json.dump({"schema": "hwcheck.facts", "schema_version": 99, "facts": {}}, open(f, "w"))
            cp = run("--facts", f)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("schema_version 99", cp.stderr)

    def test_malformed_names_line_and_column(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "bad.json")
            open(f, "w").write('{"schema": "hwcheck.facts",\n  "facts": {,}}\n')
            cp = run("--facts", f)
            self.assertEqual(cp.returncode, 2)
            self.assertRegex(cp.stderr, r"bad\.json:2:\d+: ")


class Rules(unittest.TestCase):
    def test_list_and_explain(self):
        cp = run("rules", "list")
        self.assertEqual(cp.returncode, 0)
        self.assertIn("MLX_NO_ADAPTER", cp.stdout)
        cp = run("rules", "explain", "MLX_NO_ADAPTER")
        self.assertEqual(cp.returncode, 0)
        self.assertIn("Fix:", cp.stdout)
        self.assertEqual(run("rules", "explain", "NOPE").returncode, 2)
        _, j = run_json("rules", "list", "--json")
        self.assertTrue(any(r["id"] == "MLX_NO_ADAPTER" for r in j["rules"]))

    def test_summary_line(self):
        cp = run("--summary-line")
        self.assertEqual(len(cp.stdout.splitlines()), 1)
        self.assertLessEqual(len(cp.stdout.rstrip("\n")), 80)


if __name__ == "__main__":
    hwctest.main()

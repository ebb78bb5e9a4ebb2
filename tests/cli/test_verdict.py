# SPDX-License-Identifier: MIT
# The run's verdict (issue 13 §1): OK means checked and fine, INCOMPLETE when a rule could not
# decide; the JSON summary, the summary line, --fail-on unknown, the profile's required rules
# and facts, Nagios and node-problem-detector; and the CLI conventions (--version, -o for every
# output, -d matching nothing). All on real fixture roots (tests/fixtures/*/SOURCE.md).
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run, run_json  # noqa: E402

# every rule decides, nothing found (captured CX7 Gen5 x16 host, complete mstflint outputs)
HEALTHY = "healthy-cx7-gen5x16"
# the same kind of host without mstflint: 17 rule instances cannot decide
NO_TOOLS = "host-cx7-gen5-healthy"
# one error (a 100 GbE ConnectX-5 behind a Gen3 x8 hop)
ERROR = "cx5-gen3x8-100g"
# one warning (rx rings 512 of 8192 while rx_discards_phy counts); cx6dx-card-88c is an error
# now: its card also logged a fatal mlx5 event (health recovery aborted)
WARN = "rings-512-discards"


def root(name):
    return hwctest.fixture(name, "root")


def profile(d, **kw):
    p = os.path.join(d, "profile.json")
    with open(p, "w") as f:
        json.dump({"schema": "hwcheck.profile", "schema_version": 1, **kw}, f)
    return p


class Summary(unittest.TestCase):
    def check(self, fx, verdict, word, rc):
        cp, j = run_json("--root", root(fx), "--json")
        hwctest.validate(j)
        s = j["summary"]
        self.assertEqual(s["verdict"], verdict, fx)
        self.assertEqual(cp.returncode, rc, cp.stderr)
        live = [f for f in j["findings"] if not f["waived"]]
        for sev in ("error", "warn", "info", "unknown"):
            self.assertEqual(s["counts"][sev], sum(f["severity"] == sev for f in live), sev)
        self.assertLessEqual(len(s["unknown"]), s["counts"]["unknown"])
        self.assertEqual(bool(s["unknown"]), bool(s["counts"]["unknown"]))
        # each undecided rule instance once
        keys = [(u["rule"], u["subject"]) for u in s["unknown"]]
        self.assertEqual(len(keys), len(set(keys)))
        line = run("--root", root(fx), "--summary-line").stdout
        self.assertTrue(line.startswith(f"hwcheck: {word} "), line)
        self.assertEqual(line.count("\n"), 1)
        self.assertLessEqual(len(line) - 1, 80)
        text = run("--root", root(fx), "--no-color").stdout
        self.assertIn(f"\nhwcheck: {word} ", text)
        return j

    def test_ok_means_every_rule_decided(self):
        j = self.check(HEALTHY, "ok", "OK", 0)
        self.assertEqual(j["summary"]["unknown"], [])

    def test_undecided_is_incomplete_not_ok(self):
        j = self.check(NO_TOOLS, "incomplete", "INCOMPLETE", 0)
        self.assertEqual(j["summary"]["counts"]["unknown"], 21)  # + MLX_KERNEL_EVENTS x2: no dmesg; no host sensor, no cpufreq
        u = [x for x in j["summary"]["unknown"] if x["rule"] == "MLX_WR_ORDERING_PER_MKEY"]
        self.assertEqual([x["subject"] for x in u], ["0000:21:00.0", "0000:81:00.0"])
        self.assertIn("mstconfig: not in this capture", u[0]["reason"])

    def test_error_and_warn(self):
        self.check(ERROR, "error", "ERROR", 1)
        self.check(WARN, "warn", "WARN", 1)

    def test_warn_outranks_incomplete(self):
        # a known problem and undecided rules: the verdict names the problem
        self.check("mlx-cx4lx-nextboot", "warn", "WARN", 1)

    def test_facts_document_has_no_summary(self):
        _, j = run_json("--root", root(HEALTHY), "facts", "--json")
        self.assertNotIn("summary", j)


class Gate(unittest.TestCase):
    def test_fail_on_unknown(self):
        self.assertEqual(run("--root", root(NO_TOOLS)).returncode, 0)
        self.assertEqual(run("--root", root(NO_TOOLS), "--fail-on", "unknown").returncode, 1)
        self.assertEqual(run("--root", root(HEALTHY), "--fail-on", "unknown").returncode, 0)
        # unknown sits between info and warn: it also fails on warnings
        self.assertEqual(run("--root", root(WARN), "--fail-on", "unknown").returncode, 1)
        self.assertEqual(run("--root", root(WARN), "--fail-on", "error").returncode, 0)
        self.assertIn("info, unknown, warn or error", run("--fail-on", "bad").stderr)

    def test_required_rule_unknown_fails(self):
        with tempfile.TemporaryDirectory() as d:
            p = profile(d, required=["MLX_WR_ORDERING_PER_MKEY"])
            cp, j = run_json("--root", root(NO_TOOLS), "--json", "--profile", p)
            self.assertEqual(cp.returncode, 1, cp.stderr)
            hwctest.validate(j)
            req = [f for f in j["findings"] if f.get("required")]
            self.assertEqual(sorted((f["rule_id"], f["subject"]) for f in req),
                             [("MLX_WR_ORDERING_PER_MKEY", "0000:21:00.0"),
                              ("MLX_WR_ORDERING_PER_MKEY", "0000:81:00.0")])
            # whatever --fail-on says
            self.assertEqual(run("--root", root(NO_TOOLS), "--profile", p, "--fail-on",
                                 "error").returncode, 1)
            # the same profile on a host where the rule decided passes
            self.assertEqual(run("--root", root(HEALTHY), "--profile", p).returncode, 0)

    def test_required_fact_unknown_fails(self):
        with tempfile.TemporaryDirectory() as d:
            p = profile(d, required=["mlx.adapters[].fw_config_device_type"])
            cp, j = run_json("--root", root(NO_TOOLS), "--json", "--profile", p)
            self.assertEqual(cp.returncode, 1, cp.stderr)
            req = [f for f in j["findings"] if f.get("required")]
            self.assertEqual(len(req), 2, req)
            self.assertTrue(all(f["severity"] == "unknown" for f in req))
            self.assertEqual(run("--root", root(HEALTHY), "--profile", p).returncode, 0)

    def test_required_bad_entry_is_usage(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", root(HEALTHY), "--profile", profile(d, required=["NO_SUCH_RULE"]))
            self.assertEqual(cp.returncode, 2)
            self.assertIn('required[0]: no rule "NO_SUCH_RULE"', cp.stderr)
            cp = run("--root", root(HEALTHY), "--profile", profile(d, required=["link.width"]))
            self.assertEqual(cp.returncode, 2)
            self.assertIn("neither a rule id nor a fact path", cp.stderr)

    def test_nothing_collected_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", d)
            self.assertEqual(cp.returncode, 3)
            self.assertIn("UNKNOWN nothing could be collected", cp.stdout)
            self.assertIn("not a healthy host", cp.stdout)
            cp, j = run_json("--root", d, "--json")
            self.assertEqual(cp.returncode, 3)
            hwctest.validate(j)
            self.assertEqual(j["summary"]["verdict"], "incomplete")
            self.assertEqual(j["summary"]["counts"]["unknown"], 1)
            self.assertIn("nothing could be collected", j["summary"]["unknown"][0]["reason"])


class Monitoring(unittest.TestCase):
    def nagios(self, fx, *extra):
        cp = run("--root", root(fx), "--exit-codes", "nagios", *extra)
        return cp.returncode, cp.stdout.splitlines()[0]

    def test_nagios_first_line_and_states(self):
        for fx, rc, word in ((HEALTHY, 0, "OK"), (WARN, 1, "WARNING"), (ERROR, 2, "CRITICAL"),
                             (NO_TOOLS, 3, "UNKNOWN")):
            got, first = self.nagios(fx)
            self.assertEqual(got, rc, fx)
            self.assertTrue(first.startswith(f"hwcheck: {word} "), first)
            line = run("--root", root(fx), "--exit-codes", "nagios", "--summary-line").stdout
            self.assertEqual(line.splitlines(), [first])

    def test_nagios_fail_on(self):
        self.assertEqual(self.nagios(WARN, "--fail-on", "error"), (0, self.nagios(WARN, "--fail-on", "error")[1]))
        self.assertTrue(self.nagios(WARN, "--fail-on", "error")[1].startswith("hwcheck: OK "))
        self.assertEqual(self.nagios(HEALTHY)[0], 0)
        self.assertEqual(self.nagios(ERROR, "--fail-on", "error")[0], 2)

    def test_nagios_usage_error_is_unknown(self):
        for argv in (["--exit-codes", "nagios", "--bogus"], ["--bogus", "--exit-codes=nagios"],
                     ["--exit-codes", "nagios", "--root", "/nonexistent"],
                     ["--exit-codes", "nagios", "--root", root(HEALTHY), "-d", "nosuch0"]):
            self.assertEqual(run(*argv).returncode, 3, argv)
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(run("--root", d, "--exit-codes", "nagios").returncode, 3)

    def test_npd(self):
        def npd(fx, *extra):
            return run("--root", root(fx), "--exit-codes", "npd", "--summary-line", *extra).returncode
        self.assertEqual(npd(HEALTHY), 0)
        self.assertEqual(npd(WARN), 1)
        self.assertEqual(npd(ERROR), 1)
        self.assertEqual(npd(NO_TOOLS), 2)  # Unknown: not "OK"
        self.assertEqual(npd(NO_TOOLS, "--fail-on", "unknown"), 1)
        self.assertEqual(npd(WARN, "--fail-on", "error"), 0)
        self.assertEqual(run("--exit-codes", "npd", "--bogus").returncode, 2)


class Conventions(unittest.TestCase):
    def test_version_option(self):
        cp = run("--version")
        self.assertEqual(cp.returncode, 0)
        self.assertEqual(cp.stdout, run("version").stdout)
        self.assertRegex(cp.stdout, r"^hwcheck \d+\.\d+\.\d+")
        _, j = run_json("--version", "--json")
        self.assertEqual(j["name"], "hwcheck")
        self.assertEqual(run("--version", "check").returncode, 2)

    def test_output_file_for_every_output(self):
        with tempfile.TemporaryDirectory() as d:
            for argv in (["--root", root(WARN)], ["--root", root(WARN), "--summary-line"],
                         ["--root", root(WARN), "facts"], ["--root", root(WARN), "--json"],
                         ["rules", "list"], ["--version"], ["rules", "list", "--json"]):
                out = os.path.join(d, "out")
                cp = run(*argv, "-o", out)
                want = run(*argv)
                self.assertEqual(cp.stdout, "", argv)
                self.assertEqual(cp.returncode, want.returncode, argv)
                got = open(out).read()
                self.assertTrue(got, argv)
                if "--json" not in argv:
                    self.assertEqual(got, want.stdout, argv)
                else:
                    self.assertEqual(hwctest.strip_volatile(json.loads(got)),
                                     hwctest.strip_volatile(json.loads(want.stdout)))
                os.unlink(out)
                self.assertEqual(os.listdir(d), [], "a temporary file was left behind")

    def test_output_file_unwritable_is_usage(self):
        cp = run("--root", root(HEALTHY), "-o", "/nonexistent/dir/out.txt")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("-o /nonexistent/dir/out.txt: cannot write", cp.stderr)

    def test_output_untouched_on_usage_error(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            open(out, "w").write("before\n")
            self.assertEqual(run("--root", root(HEALTHY), "-d", "nosuch0", "-o", out).returncode, 2)
            self.assertEqual(open(out).read(), "before\n")

    def test_device_matching_nothing_is_usage(self):
        for cmd in (["check"], ["facts"], ["check", "--json"]):
            cp = run("--root", root(HEALTHY), "-d", "nosuch0", *cmd)
            self.assertEqual(cp.returncode, 2, cmd)
            self.assertEqual(cp.stdout, "")
            self.assertIn("-d nosuch0: no PCI function, netdev or RDMA device", cp.stderr)
        # a real card, by BDF, netdev and RDMA device
        for dev in ("0000:21:00.0", "ens1f1np1", "mlx5_1"):
            self.assertEqual(run("--root", root(HEALTHY), "-d", dev).returncode, 0, dev)

    def test_device_of_no_card_is_usage(self):
        # the root port above a card is a PCI function but no card's: judged alone it read as a
        # machine without adapters (MLX_NO_ADAPTER, "no ConnectX adapter was found on this
        # machine", exit 1) on a host with four
        for cmd in (["check"], ["facts"], ["list"]):
            cp = run("--root", root(HEALTHY), "-d", "0000:20:03.1", *cmd)
            self.assertEqual(cp.returncode, 2, cmd)
            self.assertEqual(cp.stdout, "")
            self.assertEqual(cp.stderr, "hwcheck: -d 0000:20:03.1: not a function, netdev or RDMA device "
                                        "of a ConnectX card ('hwcheck list' shows the cards)\n")
        # a machine without any card: the finding is true there, whatever function -d names
        cp, j = run_json("--root", hwctest.fixture("vm-q35-rails", "root"), "-d", "0000:03:00.0", "--json")
        self.assertEqual(cp.returncode, 1, cp.stderr)
        self.assertEqual([f["rule_id"] for f in j["findings"] if f["severity"] != "unknown"], ["MLX_NO_ADAPTER"])


if __name__ == "__main__":
    hwctest.main()

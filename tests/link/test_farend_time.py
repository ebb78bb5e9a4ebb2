# SPDX-License-Identifier: MIT
# The InfiniBand far end's time bound (issue 14, mlx/ibpeer.c): every smpquery and perfquery asks
# with `-t 200` (a per-MAD timeout, so that the tool's own retries fit), all the far end's rounds
# share one --cmd-timeout (a hung tool costs one timeout, not one per round, and what it left
# unasked says why), captures made before -t still replay (the runner's alias lookup), and a
# snapshot records the new argv. On the real pairing of tests/fixtures/link-farend-ib-switchib.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_link import check_root, port  # noqa: E402

FX = "link-farend-ib-switchib"
OLD = "smpquery -C mlx5_0 -P 1 -D "
NEW = "smpquery -C mlx5_0 -P 1 -t 200 -D "
PERF = "perfquery -C mlx5_0 -P 1 -t 200 29 25"
SPENT = ("not run: the far end's time (one --cmd-timeout, {ms} ms, for all its rounds) was spent by "
         "the rounds before")


def root_copy(d, commands=True):
    root = os.path.join(d, "root")
    shutil.copytree(hwctest.fixture(FX, "root"), root, symlinks=True,
                    ignore=None if commands else shutil.ignore_patterns("hwcheck"))
    return root


def record(root, argv, out="", err="", result="exit=0\n"):
    key = os.path.join(root, "hwcheck", "commands", argv)
    for name, text in (("stdout", out), ("stderr", err), ("result", result)):
        write(os.path.join(key, name), text)


def why(obj, key):
    return (obj["unavailable"][key]["status"], obj["unavailable"][key]["detail"])


# A fake smpquery/perfquery for --exec-tools runs: logs its argv, answers from the fixture's
# recordings (by the argv without -t, as they were captured), hangs where HANG matches. Shell
# builtins but the final cat: a loaded machine starts few processes for it, so the tools that
# must answer do so well inside the run's --cmd-timeout, and the one that must hang sleeps far
# past it.
FAKE = """#!/bin/sh
key="${{0##*/}} $*"
printf '%s\\n' "$key" >> '{log}'
case "$key" in *" -t 200 "*) key="${{key%% -t 200 *}} ${{key#* -t 200 }}";; esac
case "$key" in {hang}) exec sleep 600;; esac
rec='{cmds}'/"$key"
[ -d "$rec" ] || {{ echo "ibwarn: [1] mad_rpc: _do_madrpc failed; dport (no recording)" >&2; exit 255; }}
exec cat "$rec/stdout"
"""


def fake_tools(d, hang):
    bin_ = os.path.join(d, "bin")
    log = os.path.join(d, "argv.log")
    for tool in ("smpquery", "perfquery"):
        p = os.path.join(bin_, tool)
        write(p, FAKE.format(log=log, hang=hang, cmds=hwctest.fixture(FX, "root", "hwcheck", "commands")))
        os.chmod(p, 0o755)
    return bin_, log


class Replay(unittest.TestCase):
    def test_old_capture_answers_under_its_own_argv(self):
        # recorded before -t: the answers are the old recordings', and the facts name what answered
        peer = port(check_root(hwctest.fixture(FX, "root")), "mlx5_0")["peer"]
        self.assertEqual((peer["source"], peer["lid"]), (OLD + "nodedesc 0,1", 29))

    def test_new_argv_recorded_wins(self):
        # a capture with both argvs (hand-made: a real one has one of them) answers with the new
        # one's; the perfquery answer is cut to the lines read, in libibmad's layout
        with tempfile.TemporaryDirectory() as d:
            root = root_copy(d)
            name = "leaf-07 MQM9700"  # smpquery pads it with dots to 32 columns
            record(root, NEW + "nodedesc 0,1", "Node Description:" + "." * (32 - len(name)) + name + "\n")
            record(root, PERF, "# Port counters: Lid 29 port 25 (CapMask: 0x5A00)\n"
                   "PortSelect:......................25\nSymbolErrorCounter:..............7\n")
            j = check_root(root)
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual((peer["node_description"], peer["source"]), ("leaf-07 MQM9700", NEW + "nodedesc 0,1"))
        self.assertEqual(peer["node_type"], "Switch")  # nodeinfo from the old recording
        self.assertEqual((peer["counters"]["source"], peer["counters"]["symbol_error"]), (PERF, 7))

    def test_rounds_share_one_cmd_timeout(self):
        # this port's own PortInfo (round 1) was killed at the captured run's 10 s: by the recorded
        # times the rounds after it had no time left. A replay waits for nothing: what the capture
        # holds of them still answers (the peer's LID), and only what it lacks says why it was not
        # asked, instead of "not in this capture"
        with tempfile.TemporaryDirectory() as d:
            root = root_copy(d)
            record(root, OLD + "portinfo 0 1", result="timeout=1\nelapsed_ms=10000\n")
            j = check_root(root)
        p = port(j, "mlx5_0")
        self.assertEqual(why(p, "portinfo"),
                         ("timeout", OLD + "portinfo 0 1: killed after 10000 ms without finishing (recorded)"))
        peer = p["peer"]
        self.assertEqual(peer["node_description"], "SwitchIB Mellanox Technologies")  # round 1 answered
        self.assertEqual((peer["lid"], peer["port"]), (29, 25))  # round 2: in the capture
        spent = "timeout", NEW + "portinfo 0,1 25: " + SPENT.format(ms=10000)
        self.assertEqual(why(peer, "portinfo"), spent)  # round 2: not in the capture
        self.assertEqual(why(peer["counters"], "symbol_error"),
                         ("timeout", PERF + ": " + SPENT.format(ms=10000)))
        # judged as the capture without the far end's later answers is (it lacks this PortInfo too)
        self.assertEqual(j["summary"]["verdict"], check_root(hwctest.fixture(FX, "root"))["summary"]["verdict"])

    def test_old_capture_slower_than_the_budget_keeps_its_answers(self):
        # a capture made before -t 200, whose tools took their default MAD timeouts: 6 s per round
        # by its recorded times, 18 s for three rounds against the 10 s --cmd-timeout. The rounds
        # a live run of this hwcheck bounds (each MAD at -t 200) are not cut on replay: the
        # capture's answers are all used (round 3 used to say "not run" here)
        with tempfile.TemporaryDirectory() as d:
            root = root_copy(d)
            cmds = os.path.join(root, "hwcheck", "commands")
            for k in os.listdir(cmds):
                if k.startswith("smpquery"):
                    write(os.path.join(cmds, k, "result"), "exit=0\nelapsed_ms=6000\n")
            record(root, OLD + "portinfo 0,1 25", read(os.path.join(cmds, OLD + "portinfo 0,1 0", "stdout")),
                   result="exit=0\nelapsed_ms=6000\n")
            record(root, PERF.replace(" -t 200", ""),
                   "# Port counters: Lid 29 port 25 (CapMask: 0x5A00)\n"
                   "PortSelect:......................25\nSymbolErrorCounter:..............7\n",
                   result="exit=0\nelapsed_ms=6000\n")
            j = check_root(root)
        peer = port(j, "mlx5_0")["peer"]
        self.assertEqual(peer["lid"], 29)
        self.assertEqual((peer["counters"]["source"], peer["counters"]["symbol_error"]),
                         (PERF.replace(" -t 200", ""), 7))


class Live(unittest.TestCase):
    """--exec-tools on the fixture root with fake infiniband-diags (HWCHECK_TOOL_PATH)."""

    def test_hung_smpquery_costs_one_timeout(self):
        # every PortInfo query hangs: round 1's (this port's own) is killed at --cmd-timeout 8;
        # round 2 (the peer's LID and its switch port, both PortInfo) is then not run, where it
        # used to wait a second --cmd-timeout. 8 s, not 1: round 1's other queries must answer
        # inside it, which a machine at load 20 did not always do in 1 s (they answer at once
        # otherwise); the hung one sleeps 600 s, so it is the timeout that ends it
        with tempfile.TemporaryDirectory() as d:
            root = root_copy(d, commands=False)
            bin_, log = fake_tools(d, "*portinfo*|perfquery*")
            cp, j = run_json("--root", root, "--exec-tools", "--cmd-timeout", "8", "facts", "--json",
                             env={"HWCHECK_TOOL_PATH": bin_}, timeout=300)
            ran = read(log).splitlines()
        self.assertEqual(cp.returncode, 0, cp.stderr)
        p = port(j, "mlx5_0")
        self.assertEqual(why(p, "portinfo"), ("timeout", NEW + "portinfo 0 1: killed after 8000 ms without finishing"))
        peer = p["peer"]
        self.assertEqual((peer["node_description"], peer["port"]), ("SwitchIB Mellanox Technologies", 25))
        self.assertEqual(why(peer, "lid"), ("timeout", NEW + "portinfo 0,1 0: " + SPENT.format(ms=8000)))
        self.assertEqual(why(peer["counters"], "symbol_error"), why(peer, "lid"))
        # what ran: round 1 only, every tool with -t 200
        self.assertEqual(sorted(ran), sorted([NEW + "nodedesc 0,1", NEW + "nodeinfo 0,1", NEW + "portinfo 0 1"]))
        self.assertTrue(all(k in j["facts"] for k in ("netdevs", "thermal")))  # the run went on

    def test_snapshot_records_the_new_argv(self):
        with tempfile.TemporaryDirectory() as d:
            root = root_copy(d, commands=False)
            bin_, log = fake_tools(d, "never")
            tar = os.path.join(d, "snap.tar")
            cp = hwctest.run("snapshot", "-o", tar, "--root", root, "--exec-tools",
                             env={"HWCHECK_TOOL_PATH": bin_}, timeout=120)
            self.assertEqual(cp.returncode, 0, cp.stderr)
            out = os.path.join(d, "out")
            with tarfile.open(tar) as tf:
                names = tf.getnames()
                tf.extractall(out)
            for argv in ("nodedesc 0,1", "nodeinfo 0,1", "portinfo 0,1 0", "portinfo 0,1 25", "portinfo 0 1"):
                self.assertIn(f"hwcheck/commands/{NEW}{argv}/result", names)
            self.assertFalse([n for n in names if n.startswith("hwcheck/commands/" + OLD)])
            taken = json.loads(read(os.path.join(out, "hwcheck", "facts.json")))
            cp, again = run_json("--root", out, "facts", "--json")
            self.assertEqual(cp.returncode, 0, cp.stderr)
        want = port(taken, "mlx5_0")["peer"]
        self.assertEqual(want["source"], NEW + "nodedesc 0,1")
        self.assertEqual(port(again, "mlx5_0")["peer"], want)


if __name__ == "__main__":
    hwctest.main()

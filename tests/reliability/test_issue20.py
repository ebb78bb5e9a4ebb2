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
            cp = run("--root", root(), "--json", "-o", fifo)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("a FIFO that no process is reading", cp.stderr)
            reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
            cp = run("--root", root(), "--json", "-o", fifo)
            data = reader.communicate(timeout=120)[0]
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            self.assertEqual(json.loads(data)["schema"], "hwcheck.report")
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_directory_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", root(), "--json", "-o", d)
            self.assertEqual(cp.returncode, 2)
            self.assertIn("is a directory", cp.stderr)


def snapshot_dir(tmp, fixture_root, name, *extra):
    """Snapshots a root into TMP/NAME.tar and untars it into TMP/NAME; returns both paths."""
    tar = os.path.join(tmp, name + ".tar")
    cp = run("--root", fixture_root, "snapshot", "-o", tar, *extra)
    if cp.returncode not in (0,):
        raise AssertionError(f"snapshot of {fixture_root}: exit {cp.returncode}: {cp.stderr}")
    d = os.path.join(tmp, name)
    with tarfile.open(tar) as t:
        t.extractall(d, filter="tar") if hasattr(tarfile, "data_filter") else t.extractall(d)
    return tar, d


class CaptureInputs(unittest.TestCase):
    """Harm 2 and issue 12 section 6: a capture directory is read through the root walker."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def test_facts_json_link_out_of_capture_is_never_opened(self):
        tar, d = snapshot_dir(self.tmp, hwctest.fixture("cx5-gen3x8-100g", "root"), "c")
        canary = os.path.join(self.tmp, "canary.json")
        with open(tar.replace(".tar", "") + "/hwcheck/facts.json") as f:
            doc = json.load(f)
        doc["facts"]["host"]["hostname"] = "CANARY-OUTSIDE"
        with open(canary, "w") as f:
            json.dump(doc, f)
        fj = os.path.join(d, "hwcheck", "facts.json")
        os.unlink(fj)
        os.symlink(canary, fj)
        for argv in (["diff", "--json", d, tar], ["merge", "--json", d, tar]):
            cp = run(*argv)
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            self.assertNotIn("CANARY-OUTSIDE", cp.stdout + cp.stderr)

    def test_diff_of_an_edited_tree_sees_the_edit(self):
        tar, d = snapshot_dir(self.tmp, hwctest.fixture("cx5-gen3x8-100g", "root"), "c")
        cp, j = hwctest.run_json("diff", "--json", tar, d)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(j["summary"]["regressions"], 0)
        q = os.path.join(d, "hwcheck/commands/mstflint -d 0001:43:00.0 q/stdout")
        with open(q) as f:
            text = f.read()
        with open(q, "w") as f:
            f.write(text.replace("16.35.4030", "16.35.9999"))
        cp, j = hwctest.run_json("diff", "--json", tar, d)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertGreaterEqual(j["summary"]["changes"] + j["summary"]["regressions"], 1)
        self.assertIn("16.35.9999", json.dumps(j["cards"]))

    def test_hosts_named_after_the_captured_host(self):
        _, a = snapshot_dir(self.tmp, hwctest.fixture("healthy-cx7-gen5x16", "root"), "a")
        tb, b = snapshot_dir(self.tmp, hwctest.fixture("cx5-gen3x8-100g", "root"), "b")
        cp, j = hwctest.run_json("merge", "--json", a, b)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertEqual([r["host"] for r in j["findings"]["hosts"]], ["coyote2", "node"])
        # a report of a --root run names the captured host, not the machine that ran it
        rep = os.path.join(self.tmp, "rep.json")
        run("--root", hwctest.fixture("healthy-cx7-gen5x16", "root"), "--json", "-o", rep)
        cp, j = hwctest.run_json("diff", "--json", rep, tb)
        self.assertEqual(j["baseline"]["hostname"], "coyote2")
        self.assertEqual(j["current"]["hostname"], "node")
        with open(rep) as f:
            doc = json.load(f)
        del doc["facts"]["host"]["hostname"]
        with open(rep, "w") as f:
            json.dump(doc, f)
        cp, j = hwctest.run_json("diff", "--json", rep, tb)
        self.assertIsNone(j["baseline"]["hostname"])  # unknown, not this machine's name


def check_doc(*argv):
    cp = run(*argv, "check", "--json", timeout=300)
    if cp.returncode not in (0, 1, 3):
        raise AssertionError(f"check {argv}: exit {cp.returncode}: {cp.stderr}")
    doc = json.loads(cp.stdout)
    doc.pop("run", None)
    return doc


def fixture_roots():
    base = hwctest.fixture()
    return sorted(n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n, "root")))


class FaithfulSnapshots(unittest.TestCase):
    """A snapshot replays to the same facts and findings: every fixture root, and this machine."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def test_every_fixture_root_replays_the_same(self):
        from concurrent.futures import ThreadPoolExecutor
        names = fixture_roots()
        self.assertGreater(len(names), 40)

        def one(name):
            src = hwctest.fixture(name, "root")
            _, d = snapshot_dir(self.tmp, src, name)
            a, b = check_doc("--root", src), check_doc("--root", d)
            with open(os.path.join(d, "hwcheck", "facts.json")) as f:
                stored = json.load(f)["facts"]
            bad = []
            if a != b:
                keys = [k for k in a if a.get(k) != b.get(k)]
                sub = [k for k in a.get("facts", {}) if a["facts"][k] != b["facts"].get(k)]
                bad.append(f"{name}: replay differs in {keys} (facts sections {sub})")
            if stored != b["facts"]:
                bad.append(f"{name}: hwcheck/facts.json differs from the replay")
            return bad

        with ThreadPoolExecutor(2) as ex:
            bad = [m for r in ex.map(one, names) for m in r]
        self.assertEqual(bad, [])

    def test_this_machine_replays_the_same(self):
        _, d = snapshot_dir(self.tmp, "/", "live")
        with open(os.path.join(d, "hwcheck", "facts.json")) as f:
            stored = json.load(f)
        b = check_doc("--root", d)
        # read live, then replayed from the capture (host.read_from); the rest is the same
        self.assertEqual((stored["facts"]["host"]["read_from"], b["facts"]["host"]["read_from"]),
                         ("live", "capture"))
        self.assertEqual(dict(stored["facts"], host=dict(stored["facts"]["host"], read_from="capture")),
                         b["facts"])
        # the findings on the stored facts are the findings of the replay (but for where a
        # needs_root fix sends the reader: this run, or a new capture; and where MLX_NO_ADAPTER
        # looked: "on this machine", "in this capture (--root)", with host.read_from as evidence)
        cp = run("check", "--json", "--facts", os.path.join(d, "hwcheck", "facts.json"))
        live = json.loads(cp.stdout)["findings"]

        def strip(fs):
            out = []
            for f in fs:
                if f["rule_id"] == "COLLECT_INCOMPLETE":
                    f = dict(f, fix=None)
                elif f["rule_id"] == "MLX_NO_ADAPTER":
                    f = dict(f, message=None, evidence=[e for e in f["evidence"] if e["fact"] != "host.read_from"])
                out.append(f)
            return out
        self.assertEqual(strip(live), strip(b["findings"]))
        for fs, where in ((live, "on this machine"), (b["findings"], "in this capture (--root)")):
            for f in fs:
                if f["rule_id"] == "MLX_NO_ADAPTER" and f["severity"] == "warn":
                    self.assertEqual(f["message"], "no ConnectX adapter was found " + where)

    def test_msi_irqs_kept_irq_far_numa_still_warns(self):
        _, d = snapshot_dir(self.tmp, hwctest.fixture("irq-far-numa", "root"), "irq")
        ids = lambda doc: sorted(f["rule_id"] for f in doc["findings"])  # noqa: E731
        self.assertIn("HOST_IRQ_FAR_NODE", ids(check_doc("--root", hwctest.fixture("irq-far-numa", "root"))))
        self.assertIn("HOST_IRQ_FAR_NODE", ids(check_doc("--root", d)))

    def test_members_never_below_a_link_member(self):
        src = os.path.join(self.tmp, "src")
        subprocess.run(["cp", "-a", hwctest.fixture("cx5-gen3x8-100g", "root"), src], check=True)
        os.makedirs(os.path.join(src, "data"))
        os.rename(os.path.join(src, "hwcheck"), os.path.join(src, "data", "hw"))
        os.symlink("data/hw", os.path.join(src, "hwcheck"))
        tar, d = snapshot_dir(self.tmp, src, "linked")
        with tarfile.open(tar) as t:
            members = t.getmembers()
        links = {m.name for m in members if m.issym()}
        self.assertIn("hwcheck", links)
        for m in members:
            parts = m.name.rstrip("/").split("/")
            for i in range(1, len(parts)):
                self.assertNotIn("/".join(parts[:i]), links, m.name)
        self.assertIn("data/hw/facts.json", {m.name for m in members})
        self.assertEqual(check_doc("--root", src), check_doc("--root", d))


def gone(pid, wait_s=60.0):
    import time
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if state in ("Z", "X"):
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


class ToolTrees(unittest.TestCase):
    """Harm 4: a SIGKILLed run leaves no tool, not even one that called setsid, and no temporary."""

    def test_sigkill_of_hwcheck_ends_every_tool_tree(self):
        import signal
        import time
        with tempfile.TemporaryDirectory() as d:
            tools = os.path.join(d, "tools")
            os.makedirs(tools)
            script = os.path.abspath(hwctest.source("tests", "reliability", "tools", "setsid-hang"))
            for n in ("dmesg", "mstconfig", "mstflint", "mstreg", "ethtool", "lspci", "ibstat",
                      "ibv_devinfo", "rdma", "mstfwmanager", "flint", "mstmget_temp"):
                os.symlink(script, os.path.join(tools, n))
            out = os.path.join(d, "out.json")
            e = dict(os.environ, LC_ALL="C", HWCHECK_TOOL_PATH=tools)
            e.pop("HWCHECK_ROOT", None)
            p = subprocess.Popen([hwctest.hwcheck_path(), "--json", "-o", out, "--cmd-timeout", "60"],
                                 env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = time.monotonic() + 120
            pids = []
            while time.monotonic() < end and not pids:
                pids = [f for f in os.listdir(tools) if f.endswith(".child.pid")]
                time.sleep(0.05)
            if not pids:
                p.kill()
                p.wait()
                self.skipTest("no collector ran an external tool on this machine")
            time.sleep(0.3)
            p.send_signal(signal.SIGKILL)
            p.wait()
            left = []
            for f in os.listdir(tools):
                if f.endswith(".pid"):
                    with open(os.path.join(tools, f)) as fh:
                        pid = int(fh.read().strip() or 0)
                    if pid and not gone(pid):
                        left.append((f, pid))
                        os.kill(pid, signal.SIGKILL)
            self.assertEqual(left, [])
            self.assertEqual(sorted(x for x in os.listdir(d)), ["tools"])  # no temporary output


class Messages(unittest.TestCase):
    """Exit codes and messages: each says what was wrong with which input and what was expected."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        with open(hwctest.fixture("diff-unchanged", "after.json"), "rb") as f:
            self.doc = f.read()

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def write(self, name, data):
        p = os.path.join(self.tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_missing_inputs_exit_2_with_the_reason(self):
        for argv, want in ((["snapshot", "-o", "/tmp/never.tar", "--pci-dump", "/nonexistent/dump"],
                            "hwcheck: --pci-dump /nonexistent/dump: cannot read: No such file or directory\n"),
                           (["--pci-dump", "/nonexistent/dump"],
                            "hwcheck: --pci-dump /nonexistent/dump: cannot read: No such file or directory\n"),
                           (["--facts", "/nonexistent/f.json"],
                            "hwcheck: --facts /nonexistent/f.json: cannot read: No such file or directory\n")):
            cp = run(*argv)
            self.assertEqual(cp.returncode, 2, argv)
            self.assertEqual(cp.stderr, want)  # no "line -1"
        cp = run("--facts", self.tmp)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("a directory where a file was expected", cp.stderr)

    def test_byte_order_mark_and_utf16(self):
        bom = self.write("bom.json", b"\xef\xbb\xbf" + self.doc)
        cp = run("--facts", bom, "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        u16 = self.write("u16.json", self.doc.decode().encode("utf-16"))
        for argv in (["--facts", u16], ["diff", u16, bom], ["merge", u16, bom]):
            cp = run(*argv)
            self.assertEqual(cp.returncode, 2, argv)
            self.assertIn(f"{u16}: UTF-16 text", cp.stderr)
            self.assertIn("hwcheck reads JSON in UTF-8", cp.stderr)

    def test_profile_encodings(self):
        """A profile saved with a UTF-8 BOM is read; UTF-16, an empty file and broken JSON are each
        named for what they are."""
        with open(hwctest.source("docs", "profile-example.json"), "rb") as f:
            prof = f.read()
        bom = self.write("pbom.json", b"\xef\xbb\xbf" + prof)
        cp = run("--facts", self.write("f.json", self.doc), "--profile", bom, "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        for name, data, want in (("p16.json", prof.decode().encode("utf-16"),
                                  "p16.json: UTF-16 text (it starts with a UTF-16 byte-order mark); "
                                  "hwcheck reads profiles in UTF-8"),
                                 ("pe.json", b"", "pe.json: empty file; expected a hwcheck profile"),
                                 ("pb.json", b'{"schema":\n }', "pb.json:2:2: not valid JSON: ")):
            cp = run("--facts", self.write("f.json", self.doc), "--profile", self.write(name, data))
            self.assertEqual(cp.returncode, 2, name)
            self.assertIn(want, cp.stderr)

    def test_empty_and_broken_json(self):
        cp = run("--facts", self.write("e.json", b""))
        self.assertEqual(cp.returncode, 2)
        self.assertIn("empty file; expected a hwcheck facts or report JSON document", cp.stderr)
        cp = run("--facts", self.write("b.json", b'{"schema": "hwcheck.facts",\n "x": }'))
        self.assertEqual(cp.returncode, 2)
        self.assertRegex(cp.stderr, r"b\.json:2:\d+: not valid JSON: ")

    def test_facts_size_is_bounded(self):
        big = os.path.join(self.tmp, "big.json")
        with open(big, "wb") as f:
            f.truncate(129 << 20)  # sparse: refused before a byte is read
        cp = run("--facts", big)
        self.assertEqual(cp.returncode, 2)
        self.assertIn("larger than 128 MiB", cp.stderr)


if __name__ == "__main__":
    hwctest.main()

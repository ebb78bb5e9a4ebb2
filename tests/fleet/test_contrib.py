# SPDX-License-Identifier: MIT
# contrib/: the Slurm health check and prolog (fake scontrol on PATH), the Kubernetes DaemonSet and
# node-problem-detector plugin, the Ansible local fact, the Prometheus systemd unit and alert rules,
# each run against the built hwcheck.
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
import promparse  # noqa: E402

try:
    import yaml
except ImportError:
    yaml = None


def contrib(*p):
    return hwctest.source("contrib", *p)


def sh_env(extra):
    e = dict(os.environ)
    e.pop("HWCHECK_ROOT", None)
    e["LC_ALL"] = "C"
    e.update(extra)
    return e


FAKE_SCONTROL = r"""#!/bin/sh
# records each call; 'show node' prints the node with the reason in $FAKE_DIR/reason
echo "$*" >> "$FAKE_DIR/calls"
if [ "$1" = show ]; then
  echo "NodeName=$3 Arch=x86_64 CoresPerSocket=32"
  echo "   State=IDLE+DRAIN ThreadsPerCore=2"
  if [ -s "$FAKE_DIR/reason" ]; then echo "   Reason=$(cat "$FAKE_DIR/reason") [root@2026-01-01T00:00:00]"; fi
fi
exit 0
"""


class Slurm(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        p = os.path.join(self.bin, "scontrol")
        with open(p, "w") as f:
            f.write(FAKE_SCONTROL)
        os.chmod(p, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_hc(self, reason="", args="", script="hwcheck-healthcheck.sh", hwcheck=None, jq="jq"):
        with open(os.path.join(self.tmp, "reason"), "w") as f:
            f.write(reason)
        calls = os.path.join(self.tmp, "calls")
        if os.path.exists(calls):
            os.unlink(calls)
        env = sh_env({"PATH": self.bin + ":" + os.environ["PATH"], "FAKE_DIR": self.tmp,
                      "HWCHECK": hwcheck or hwctest.hwcheck_path(), "HWCHECK_ARGS": args,
                      "SLURMD_NODENAME": "node17", "HWCHECK_TIMEOUT": "30", "JQ": jq})
        cp = subprocess.run(["/bin/sh", contrib("slurm", script)], env=env, capture_output=True,
                            text=True, timeout=120)
        got = open(calls).read().splitlines() if os.path.exists(calls) else []
        return cp, [c for c in got if not c.startswith("show node")]

    # This machine has no ConnectX card: hwcheck finds MLX_NO_ADAPTER (warn), exit 1.
    def test_findings_drain_with_prefixed_reason(self):
        cp, calls = self.run_hc()
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(len(calls), 1, calls)
        self.assertTrue(calls[0].startswith("update NodeName=node17 State=DRAIN Reason=hwcheck: WARN"), calls)
        self.assertIn("MLX_NO_ADAPTER", calls[0])
        self.assertLessEqual(len(calls[0].split("Reason=", 1)[1]), 80)

    def test_admin_drain_is_left_alone(self):
        cp, calls = self.run_hc(reason="disk replacement")
        self.assertEqual(calls, [])
        self.assertIn("drained by someone else", cp.stderr)
        cp, calls = self.run_hc(reason="disk replacement", args="--fail-on error")  # clean
        self.assertEqual(calls, [])  # not resumed: not ours

    def test_clean_resumes_only_our_drain(self):
        cp, calls = self.run_hc(reason="hwcheck: WARN 0 error 1 warn MLX_NO_ADAPTER", args="--fail-on error")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(calls, ["update NodeName=node17 State=RESUME"])
        cp, calls = self.run_hc(reason="", args="--fail-on error")
        self.assertEqual(calls, [])

    def test_no_resume_while_the_draining_rule_is_undecided(self):
        # the BlueField-2 capture has no mstflint: MLX_FW_MISMATCH cannot decide there, and
        # hwcheck exits 0 (nothing at or above --fail-on). A node it drained stays drained.
        root = hwctest.fixture("thermal-bf2-x3-sensors", "root")
        drained = "hwcheck: ERROR 1 error, 0 warn; MLX_FW_MISMATCH 0000:4e:00.0"
        cp, calls = self.run_hc(reason=drained, args=f"--root {root}")
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(calls, [])
        self.assertIn("not resuming: undecided now: MLX_FW_MISMATCH", cp.stderr)
        # a rule that decides there (the card temperature, read from hwmon) clears the node
        cp, calls = self.run_hc(reason="hwcheck: WARN 0 error, 1 warn; THERMAL_CARD_OVER_LIMIT 0000:4e:00.0",
                                args=f"--root {root}")
        self.assertEqual(calls, ["update NodeName=node17 State=RESUME"], cp.stderr)
        # without jq it cannot tell: not resumed
        cp, calls = self.run_hc(reason=drained, args=f"--root {root}", jq="/nonexistent/jq")
        self.assertEqual(calls, [])
        self.assertIn("jq is not installed", cp.stderr)

    def test_same_reason_is_not_reissued(self):
        cp, calls = self.run_hc()
        reason = calls[0].split("Reason=", 1)[1]
        cp, calls = self.run_hc(reason=reason)
        self.assertEqual(calls, [])

    def test_hwcheck_failure_changes_nothing(self):
        cp, calls = self.run_hc(args="--root /nonexistent")
        self.assertEqual(cp.returncode, 0)
        self.assertEqual(calls, [])
        self.assertIn("could not run the checks (exit 2)", cp.stderr)
        cp, calls = self.run_hc(reason="hwcheck: old", hwcheck="/nonexistent/hwcheck")
        self.assertEqual(calls, [])  # nor resumes

    def test_timeout_backstop(self):
        hang = os.path.join(self.bin, "hang")
        with open(hang, "w") as f:
            f.write("#!/bin/sh\nexec sleep 60\n")
        os.chmod(hang, 0o755)
        env = {"HWCHECK_TIMEOUT": "1"}
        with open(os.path.join(self.tmp, "reason"), "w") as f:
            f.write("")
        cp = subprocess.run(["/bin/sh", contrib("slurm", "hwcheck-healthcheck.sh")], capture_output=True,
                            text=True, timeout=60,
                            env=sh_env(dict(env, PATH=self.bin + ":" + os.environ["PATH"], FAKE_DIR=self.tmp,
                                            HWCHECK=hang, SLURMD_NODENAME="n1")))
        self.assertEqual(cp.returncode, 0)
        self.assertIn("exit 124", cp.stderr)

    def test_prolog_fails_on_findings(self):
        cp, calls = self.run_hc(script="hwcheck-prolog.sh")
        self.assertEqual(cp.returncode, 1)
        self.assertEqual(len(calls), 1)
        self.assertIn("State=DRAIN Reason=hwcheck:", calls[0])
        cp, calls = self.run_hc(script="hwcheck-prolog.sh", args="--fail-on error")
        self.assertEqual(cp.returncode, 0)


def contrib_scripts():
    """Every shell script under contrib/ (by its #! line), the bash completion included."""
    out = []
    for d, _, files in os.walk(contrib()):
        for f in sorted(files):
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                head = fh.readline()
            if head.startswith(b"#!") and (b"sh" in head) or "bash-completion" in p:
                out.append(p)
    return sorted(out)


class Shellcheck(unittest.TestCase):
    def test_every_contrib_script(self):
        sc = shutil.which("shellcheck")
        if not sc:
            self.skipTest("shellcheck not installed")
        scripts = contrib_scripts()
        names = [os.path.relpath(p, contrib()) for p in scripts]
        for want in ("slurm/hwcheck-healthcheck.sh", "slurm/hwcheck-prolog.sh", "ansible/roles/hwcheck/files/hwcheck.fact",
                     "gate/hwcheck-gate.sh", "bash-completion/hwcheck"):
            self.assertIn(want, names)
        cp = subprocess.run([sc, "-x", *scripts], capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout)


class Gate(unittest.TestCase):
    """contrib/gate/hwcheck-gate.sh over real captures: the verdict of the JSON summary."""

    def gate(self, *args, **env):
        e = sh_env(dict({"HWCHECK": hwctest.hwcheck_path(), "HWCHECK_TIMEOUT": "60"}, **env))
        return subprocess.run(["/bin/sh", contrib("gate", "hwcheck-gate.sh"), *args], capture_output=True,
                              text=True, timeout=180, env=e)

    def root(self, fx):
        return hwctest.fixture(fx, "root")

    def test_healthy_host_passes(self):
        cp = self.gate("--root", self.root("healthy-cx7-gen5x16"))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("PASS (verdict ok)", cp.stdout)

    def test_undecided_is_not_a_pass(self):
        root = self.root("thermal-bf2-x3-sensors")  # no mstflint in the capture
        cp = self.gate("--root", root)
        self.assertEqual(cp.returncode, 1, cp.stdout + cp.stderr)
        self.assertIn("FAIL (verdict incomplete", cp.stdout)
        self.assertIn("undecided MLX_FW_MISMATCH 0000:4e:00.0", cp.stdout)
        cp = self.gate("--root", root, HWCHECK_GATE_ALLOW="incomplete")
        self.assertEqual(cp.returncode, 0, cp.stdout)
        cp = self.gate("--root", root, HWCHECK_GATE_ALLOW="incomplete", HWCHECK_GATE_REQUIRE="MLX_FW_MISMATCH")
        self.assertEqual(cp.returncode, 1, cp.stdout)
        self.assertIn("required rule MLX_FW_MISMATCH could not decide", cp.stdout)

    def test_findings_fail(self):
        # one warning (rx rings 512 of 8192 while rx_discards_phy counts); cx6dx-card-88c is an
        # error since its card's fatal mlx5 event (MLX_KERNEL_EVENTS)
        cp = self.gate("--root", self.root("rings-512-discards"))
        self.assertEqual(cp.returncode, 1, cp.stdout)
        self.assertIn("warn NET_RING_SMALL enp129s0f0", cp.stdout)
        self.assertEqual(self.gate("--root", self.root("rings-512-discards"), HWCHECK_GATE_ALLOW="warn").returncode, 0)
        cp = self.gate("--root", self.root("host-cx6-ocp3-gen1-x4"), HWCHECK_GATE_ALLOW="warn incomplete")
        self.assertEqual(cp.returncode, 1, cp.stdout)
        self.assertIn("error PCIE_LINK_DOWNGRADED 0000:04:00.0", cp.stdout)

    def test_no_verdict(self):
        with tempfile.TemporaryDirectory() as d:
            cp = self.gate("--root", d)
        self.assertEqual(cp.returncode, 3, cp.stdout)
        self.assertIn("NO VERDICT", cp.stdout)
        self.assertEqual(self.gate(HWCHECK="/nonexistent/hwcheck").returncode, 3)
        self.assertEqual(self.gate("--bogus").returncode, 3)

    def test_usage(self):
        cp = self.gate(HWCHECK_GATE_REQUIRE="NO_SUCH_RULE")
        self.assertEqual(cp.returncode, 2)
        self.assertIn("NO_SUCH_RULE is not a hwcheck rule", cp.stderr)
        self.assertEqual(self.gate(JQ="/nonexistent/jq").returncode, 2)


class Kubernetes(unittest.TestCase):
    @unittest.skipUnless(yaml, "python3-yaml not installed")
    def test_daemonset(self):
        docs = list(yaml.safe_load_all(open(contrib("k8s", "hwcheck-daemonset.yaml"))))
        self.assertEqual(len(docs), 1)
        ds = docs[0]
        self.assertEqual((ds["apiVersion"], ds["kind"]), ("apps/v1", "DaemonSet"))
        spec = ds["spec"]["template"]["spec"]
        self.assertEqual(ds["spec"]["selector"]["matchLabels"], ds["spec"]["template"]["metadata"]["labels"])
        c = spec["containers"][0]
        self.assertTrue(c["securityContext"]["privileged"])
        mounts = {m["name"]: m for m in c["volumeMounts"]}
        vols = {v["name"]: v for v in spec["volumes"]}
        self.assertEqual(set(mounts), set(vols))
        self.assertEqual((mounts["host-sys"]["mountPath"], mounts["host-sys"].get("readOnly")), ("/host/sys", True))
        self.assertEqual((mounts["host-proc"]["mountPath"], mounts["host-proc"].get("readOnly")), ("/host/proc", True))
        self.assertEqual(vols["host-sys"]["hostPath"]["path"], "/sys")
        script = c["args"][0]
        self.assertIn("--root /host", script)
        # run the container's script once, with / as the host and the textfile dir in a temp dir
        with tempfile.TemporaryDirectory() as d:
            b = os.path.join(d, "bin")
            os.mkdir(b)
            os.symlink(hwctest.hwcheck_path(), os.path.join(b, "hwcheck"))
            s = script.replace("--root /host", "--root /").replace(
                "/host/var/lib/node_exporter/textfile_collector", d)
            cp = subprocess.run(["/bin/sh", "-c", s], capture_output=True, text=True, timeout=120,
                                env=sh_env({"PATH": b + ":" + os.environ["PATH"], "HWCHECK_ONESHOT": "1"}))
            self.assertEqual(cp.returncode, 0, cp.stderr)
            self.assertTrue(cp.stdout.startswith("hwcheck: "), cp.stdout)
            fams = promparse.parse(open(os.path.join(d, "hwcheck.prom")).read())
            self.assertIn("hwcheck_last_run_timestamp_seconds", fams)

    def test_npd_plugin(self):
        cfg = json.load(open(contrib("k8s", "npd-hwcheck.json")))
        self.assertEqual(cfg["plugin"], "custom")
        self.assertLessEqual(cfg["pluginConfig"]["max_output_length"], 80)
        conds = {c["type"] for c in cfg["conditions"]}
        rule = cfg["rules"][0]
        self.assertIn(rule["condition"], conds)
        self.assertIn("--exit-codes=npd", rule["args"])
        self.assertIn("--summary-line", rule["args"])
        # run the rule's command: NPD reads exit 0 OK / 1 NonOK / 2 Unknown and the first line
        self.assertIn("--exec-tools", rule["args"])  # the firmware tools run against the host
        i = rule["args"].index("--root")
        for root, want in (("/", {0, 1}), (tempfile.mkdtemp(), {2})):
            args = list(rule["args"])
            args[i + 1] = root
            # an empty root (/host not mounted): Unknown, even though the tools ran (the verdict
            # is incomplete, not OK)
            cp = subprocess.run([hwctest.hwcheck_path(), *args], capture_output=True, text=True,
                                env=sh_env({}), timeout=120)
            self.assertIn(cp.returncode, want, cp.stderr)
            if want == {2}:
                os.rmdir(root)
                continue
            self.assertEqual(cp.stdout.count("\n"), 1)
            self.assertLessEqual(len(cp.stdout.rstrip("\n")), cfg["pluginConfig"]["max_output_length"])


class Ansible(unittest.TestCase):
    def fact(self, **env):
        cp = subprocess.run([contrib("ansible", "roles", "hwcheck", "files", "hwcheck.fact")], capture_output=True, text=True,
                            timeout=120, env=sh_env(env))
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return json.loads(cp.stdout)

    def test_live_report(self):
        j = self.fact(HWCHECK=hwctest.hwcheck_path())
        self.assertEqual(j["schema"], "hwcheck.report")
        hwctest.validate(j)
        self.assertIn("MLX_NO_ADAPTER", [f["rule_id"] for f in j["findings"]])

    def test_facts_file(self):
        src = hwctest.fixture("diff-unchanged", "after.json")
        j = self.fact(HWCHECK=hwctest.hwcheck_path(), HWCHECK_ARGS=f"--facts {src}")
        self.assertEqual(j["run"]["facts_file"], src)

    def test_missing_hwcheck_is_an_error_object(self):
        j = self.fact(HWCHECK="/nonexistent/hwcheck")
        self.assertEqual(j["exit_code"], 127)
        self.assertIn("error", j)
        j = self.fact(HWCHECK=hwctest.hwcheck_path(), HWCHECK_ARGS="--bogus")
        self.assertEqual(j["exit_code"], 2)


class Prometheus(unittest.TestCase):
    def test_service_command(self):
        unit = open(contrib("prometheus", "hwcheck-prom.service")).read()
        ex = [l.split("=", 1)[1] for l in unit.splitlines() if l.startswith("ExecStart=")]
        self.assertEqual(len(ex), 1)
        self.assertIn("SuccessExitStatus=1", unit)
        argv = shlex.split(ex[0])
        self.assertEqual(argv[0], "/usr/bin/hwcheck")
        with tempfile.TemporaryDirectory() as d:
            i = argv.index("--prom")
            argv[i + 1] = os.path.join(d, "hwcheck.prom")
            cp = subprocess.run([hwctest.hwcheck_path(), *argv[1:]], capture_output=True, text=True,
                                env=sh_env({}), timeout=180)
            self.assertIn(cp.returncode, (0, 1), cp.stderr)
            fams = promparse.parse(open(argv[i + 1]).read())
            self.assertIn("hwcheck_findings", fams)
        timer = open(contrib("prometheus", "hwcheck-prom.timer")).read()
        self.assertIn("WantedBy=timers.target", timer)

    @unittest.skipUnless(yaml, "python3-yaml not installed")
    def test_rules(self):
        doc = yaml.safe_load(open(contrib("prometheus", "hwcheck.rules.yml")))
        names = set()
        for g in doc["groups"]:
            for r in g["rules"]:
                self.assertIn("expr", r)
                names.update(w for w in r["expr"].replace("{", " ").replace("(", " ").split()
                             if w.startswith("hwcheck_"))
        # every metric an alert uses is one hwcheck writes (see cli/prom.c)
        prom_c = open(hwctest.source("cli", "prom.c")).read()
        for n in names:
            self.assertIn(f'"{n}"', prom_c)
        pt = shutil.which("promtool")
        if pt:
            cp = subprocess.run([pt, "check", "rules", contrib("prometheus", "hwcheck.rules.yml")],
                                capture_output=True, text=True)
            self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# contrib/ansible: the role passes ansible-lint (production profile, offline) and the example play
# passes ansible-playbook --syntax-check; then the role runs for real on localhost (connection
# local, install step off) against the built hwcheck on real captures: it creates the facts.d
# directory, installs the fact, re-reads it, and the gate task passes or stops the play by the
# report's verdict. Exits 77 when ansible-lint or ansible-playbook is not installed (Debian
# packages ansible-lint, ansible-core).
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import hwctest  # noqa: E402

LINT = shutil.which("ansible-lint")
PLAYBOOK = shutil.which("ansible-playbook")

PLAY = """- name: hwcheck role under test
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: hwcheck
"""


def ansible_env(tmp, extra=None):
    e = dict(os.environ, LC_ALL="C.UTF-8", HOME=tmp, ANSIBLE_LOCAL_TEMP=os.path.join(tmp, "local"),
             ANSIBLE_REMOTE_TEMP=os.path.join(tmp, "remote"), ANSIBLE_NOCOLOR="1",
             ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_PYTHON_INTERPRETER="/usr/bin/python3",
             ANSIBLE_ROLES_PATH=os.path.abspath(hwctest.source("contrib", "ansible", "roles")))
    e.pop("HWCHECK_ROOT", None)
    e.update(extra or {})
    return e


class Lint(unittest.TestCase):
    @unittest.skipUnless(LINT, "ansible-lint not installed (Debian package ansible-lint)")
    def test_ansible_lint(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = hwctest.source("contrib", "ansible")
            cp = subprocess.run([LINT, "--offline", "--profile", "production", "hwcheck.yml", "roles/hwcheck"],
                                cwd=d, capture_output=True, text=True, timeout=300, env=ansible_env(tmp))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        self.assertIn("Passed", cp.stdout + cp.stderr)

    @unittest.skipUnless(PLAYBOOK, "ansible-playbook not installed (Debian package ansible-core)")
    def test_syntax_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            cp = subprocess.run([PLAYBOOK, "--syntax-check", "-i", "localhost,",
                                 hwctest.source("contrib", "ansible", "hwcheck.yml")],
                                capture_output=True, text=True, timeout=120, env=ansible_env(tmp))
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)


@unittest.skipUnless(PLAYBOOK, "ansible-playbook not installed (Debian package ansible-core)")
class Role(unittest.TestCase):
    def play(self, fixture, **vars):
        """Runs the role on localhost; returns (rc, output, facts dir)."""
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        facts = os.path.join(self.tmp, "etc", "ansible", "facts.d")  # not there yet: the role makes it
        args_file = os.path.join(self.tmp, "etc", "hwcheck", "ansible-args")
        v = {"hwcheck_install": "none", "hwcheck_facts_dir": facts, "hwcheck_args_file": args_file,
             "hwcheck_args": f"--root {os.path.abspath(hwctest.fixture(fixture, 'root'))}"}
        v.update(vars)
        play = os.path.join(self.tmp, "play.yml")
        with open(play, "w") as f:
            f.write(PLAY)
        env = ansible_env(self.tmp, {"HWCHECK": os.path.abspath(hwctest.hwcheck_path()), "HWCHECK_ARGS_FILE": args_file})
        cp = subprocess.run([PLAYBOOK, "-i", "localhost,", play, "-e", json.dumps(v)], capture_output=True,
                            text=True, timeout=300, env=env)
        return cp.returncode, cp.stdout + cp.stderr, facts

    def test_healthy_host_passes_the_gate(self):
        rc, out, facts = self.play("healthy-cx7-gen5x16")
        self.assertEqual(rc, 0, out)
        self.assertTrue(os.access(os.path.join(facts, "hwcheck.fact"), os.X_OK))
        self.assertIn("hwcheck verdict ok", out)

    def test_findings_stop_the_play(self):
        # one warning (rx rings 512 of 8192 while rx_discards_phy counts); cx6dx-card-88c is an
        # error since its card's fatal mlx5 event (MLX_KERNEL_EVENTS)
        rc, out, _ = self.play("rings-512-discards")
        self.assertEqual(rc, 2, out)
        self.assertIn("hwcheck verdict warn", out)
        self.assertIn("NET_RING_SMALL", out)
        rc, out, _ = self.play("rings-512-discards", hwcheck_gate_allow=["ok", "warn"])
        self.assertEqual(rc, 0, out)

    def test_undecided_is_not_ok(self):
        # the BlueField-2 capture has no mstflint: firmware rules are undecided
        rc, out, _ = self.play("thermal-bf2-x3-sensors")
        self.assertEqual(rc, 2, out)
        self.assertIn("hwcheck verdict incomplete", out)
        rc, out, _ = self.play("thermal-bf2-x3-sensors", hwcheck_gate_allow=["ok", "incomplete"],
                               hwcheck_gate_require=["MLX_FW_MISMATCH"])
        self.assertEqual(rc, 2, out)
        self.assertIn("required rules undecided: MLX_FW_MISMATCH", out)


if __name__ == "__main__":
    hwctest.main()

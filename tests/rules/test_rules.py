# SPDX-License-Identifier: MIT
# Rule cases: each tests/rules/cases/<RULE>/<case>.json takes a base facts file, applies a patch
# (set a value, append an array element, delete a key, or make it unknown with a status), optionally a profile, and states
# exactly the findings of <RULE> that must come out (severity and subject). Also: every rule has a
# positive and a negative case, the rule ids: every id of tests/rules/rule-ids.txt still in the table
# and the list up to date (it only grows), docs/rules.md is
# generated from the table, profiles fail with file:line:column, the CLI's rules commands.
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
from rulestest import load, pop_arg, save  # noqa: E402
from hwctest import run, run_json  # noqa: E402


RULES_EVAL = pop_arg("--rules-eval")
CASES = sorted(glob.glob(os.path.join(HERE, "cases", "*", "*.json")))


def elem_key(o):
    if not isinstance(o, dict):
        return None
    if "name" in o:
        return o["name"]
    if "chip" in o:
        cl = f"{o['chip']}/{o['label']}" if o.get("label") else o["chip"]
        return f"{cl}@{o['bdf']}" if o.get("bdf") else cl
    if "bdf" in o:
        return o["bdf"]
    return None


def split_path(path):
    out = []
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        out.append(part)
    return out


def resolve(doc, path):
    """Returns (parent, key) of the last segment of path in doc."""
    segs = split_path(path)
    cur = doc
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        if seg.startswith("["):
            sel = seg[1:-1]
            if not isinstance(cur, list):
                raise KeyError(f"{path}: {seg} applied to a non-array")
            idx = int(sel) if sel.isdigit() else next(
                (k for k, e in enumerate(cur) if elem_key(e) == sel), None)
            if idx is None:
                raise KeyError(f"{path}: no element {sel}")
            if last:
                return cur, idx
            cur = cur[idx]
        else:
            if last:
                return cur, seg
            cur = cur[seg]
    raise KeyError(path)


def apply_patch(facts, patch):
    for op in patch:
        if "set" in op:
            parent, key = resolve(facts, op["set"])
            parent[key] = op["value"]
        elif "append" in op:  # a new element of an array (a further PCI function)
            parent, key = resolve(facts, op["append"])
            parent[key].append(op["value"])
        elif "del" in op:
            parent, key = resolve(facts, op["del"])
            del parent[key]
        elif "unknown" in op:
            parent, key = resolve(facts, op["unknown"])
            parent[key] = None
            parent.setdefault("unavailable", {})[key] = {"status": op["status"],
                                                         "detail": op.get("detail", "made unknown by the test case")}
        else:
            raise ValueError(f"bad patch op {op}")


def run_case(path):
    case = load(path)
    base = load(os.path.join(HERE, case["base"]))
    facts = copy.deepcopy(base["facts"])
    apply_patch(facts, case["patch"])
    with tempfile.TemporaryDirectory() as d:
        ff = os.path.join(d, "facts.json")
        save({"schema": "hwcheck.facts", "schema_version": 1, "facts": facts}, ff)
        argv = [RULES_EVAL, ff]
        if "profile" in case:
            pf = os.path.join(d, "profile.json")
            save({"schema": "hwcheck.profile", "schema_version": 1, **case["profile"]}, pf)
            argv.append(pf)
        cp = subprocess.run(argv, capture_output=True, text=True, env={"LC_ALL": "C"})
    if cp.returncode != 0:
        raise AssertionError(f"{path}: rules_eval exit {cp.returncode}: {cp.stderr}")
    return case, json.loads(cp.stdout)


class Cases(unittest.TestCase):
    def test_cases(self):
        self.assertGreater(len(CASES), 80)
        for path in CASES:
            with self.subTest(case=os.path.relpath(path, HERE)):
                case, findings = run_case(path)
                mine = [f for f in findings if f["rule_id"] == case["rule"]]
                got = sorted((f["severity"], f["subject"]) for f in mine)
                want = sorted((e["severity"], e["subject"]) for e in case["expect"])
                self.assertEqual(got, want, f"{case['description']}\n{json.dumps(mine, indent=1)[:2500]}")
                for e in case["expect"]:
                    if "message_contains" in e:
                        msgs = [f["message"] for f in mine
                                if (f["severity"], f["subject"]) == (e["severity"], e["subject"])]
                        self.assertTrue(any(e["message_contains"] in m for m in msgs),
                                        f"no message containing {e['message_contains']!r} in {msgs}")
                    if "fix_contains" in e:
                        fixes = [f["fix"] or "" for f in mine
                                 if (f["severity"], f["subject"]) == (e["severity"], e["subject"])]
                        self.assertTrue(any(e["fix_contains"] in x for x in fixes),
                                        f"no fix containing {e['fix_contains']!r} in {fixes}")
                    if "evidence_contains" in e:  # a fact, observed or expected text of one evidence row
                        rows = [" | ".join(str(r.get(k) or "") for k in ("fact", "observed", "expected"))
                                for f in mine if (f["severity"], f["subject"]) == (e["severity"], e["subject"])
                                for r in f["evidence"]]
                        self.assertTrue(any(e["evidence_contains"] in r for r in rows),
                                        f"no evidence containing {e['evidence_contains']!r} in {rows}")
                    if "message_lacks" in e:
                        msgs = [f["message"] for f in mine
                                if (f["severity"], f["subject"]) == (e["severity"], e["subject"])]
                        self.assertFalse(any(e["message_lacks"] in m for m in msgs),
                                         f"a message containing {e['message_lacks']!r} in {msgs}")
                    if "fix_lacks" in e:
                        fixes = [f["fix"] or "" for f in mine
                                 if (f["severity"], f["subject"]) == (e["severity"], e["subject"])]
                        self.assertFalse(any(e["fix_lacks"] in x for x in fixes),
                                         f"a fix containing {e['fix_lacks']!r} in {fixes}")
                for f in mine:
                    self.assertTrue(f["evidence"], f"{f['rule_id']}: no evidence")
                    for e in f["evidence"]:
                        self.assertTrue(e["fact"])
                    if f["severity"] == "unknown":
                        self.assertIn("unknown", f["message"])
                        self.assertIsNone(f["fix"])
                    else:
                        self.assertTrue(f["fix"])
                        if f["card"]:
                            self.assertNotIn("<BDF>", f["fix"], "the fix must name the card")
                if not case["expect"] and not case["patch"] and "profile" not in case:
                    # the unpatched base is the healthy guard: nothing at all
                    self.assertEqual(findings, [])

    def test_every_rule_has_positive_and_negative_cases(self):
        pos, neg = set(), set()
        for path in CASES:
            case = load(path)
            sevs = {e["severity"] for e in case["expect"]}
            (pos if sevs - {"unknown"} else neg).add(case["rule"])
        ids = [r["id"] for r in run_json("rules", "list", "--json")[1]["rules"]]
        for rid in ids:
            self.assertIn(rid, pos, f"{rid} has no positive case")
            self.assertIn(rid, neg, f"{rid} has no negative case")


class Table(unittest.TestCase):
    def test_rule_ids_stable(self):
        # the list only grows (rules/gen-rules-md.py --ids appends a new rule's id): an id listed
        # there that the table lacks was renamed or removed, which breaks waivers and pipelines
        with open(os.path.join(HERE, "rule-ids.txt")) as f:
            committed = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        ids = [r["id"] for r in run_json("rules", "list", "--json")[1]["rules"]]
        self.assertEqual(len(committed), len(set(committed)), "an id is listed twice")
        gone = sorted(set(committed) - set(ids))
        self.assertEqual(gone, [], "rule ids are a public contract (waivers and pipelines key on "
                         "them): never rename or remove one")
        self.assertEqual(sorted(set(ids) - set(committed)), [],
                         "new rule ids not in tests/rules/rule-ids.txt: run scripts/hwcheck-dev gen")

    def test_rules_list_json_complete(self):
        _, doc = run_json("rules", "list", "--json")
        self.assertEqual(doc["schema"], "hwcheck.rules")
        for r in doc["rules"]:
            for k in ("id", "severity", "area", "title", "rationale", "fix"):
                self.assertTrue(r.get(k), f"{r.get('id')}: {k} missing")
            self.assertIn(r["severity"], ("info", "warn", "error"))

    def test_explain(self):
        cp = run("rules", "explain", "MLX_WR_ORDERING_PER_MKEY", check=0)
        self.assertIn("force_relax", cp.stdout)
        self.assertIn("Fix:", cp.stdout)
        _, j = run_json("rules", "explain", "PCIE_PATH_BOTTLENECK", "--json")
        self.assertEqual(j["id"], "PCIE_PATH_BOTTLENECK")
        self.assertEqual(run("rules", "explain", "NOPE").returncode, 2)

    def test_docs_rules_md_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", hwctest.source("rules", "gen-rules-md.py"),
                             "--hwcheck", hwctest.hwcheck_path(), "--check", "--ids",
                             os.path.join(HERE, "rule-ids.txt"), hwctest.source("docs", "rules.md")],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)


class Monitoring(unittest.TestCase):
    def test_summary_line_on_empty_root_is_unknown(self):
        with tempfile.TemporaryDirectory() as d:
            cp = run("--root", d, "--summary-line")
            self.assertEqual(cp.returncode, 3)
            self.assertEqual(cp.stdout, "hwcheck: UNKNOWN nothing could be collected\n")
            self.assertEqual(run("--root", d, "--summary-line", "--exit-codes", "npd").returncode, 2)
            self.assertEqual(run("--root", d, "--summary-line", "--exit-codes", "nagios").returncode, 3)

    def test_summary_line_fits(self):
        cp = run("--summary-line")
        self.assertLessEqual(len(cp.stdout.rstrip("\n")), 80)
        self.assertEqual(cp.stdout.count("\n"), 1)
        self.assertTrue(cp.stdout.startswith("hwcheck: "), cp.stdout)


class Profiles(unittest.TestCase):
    def check_bad(self, text, want):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            cp = run("--profile", f.name, "--facts", hwctest.source("tests", "rules", "scenarios",
                                                                    "healthy-cx7-gen5x16.facts.json"))
            self.assertEqual(cp.returncode, 2, cp.stderr)
            self.assertRegex(cp.stderr, re.escape(f.name) + want)
            self.assertEqual(cp.stdout, "")
        finally:
            os.unlink(f.name)

    def test_syntax_error_line_col(self):
        self.check_bad('{"schema": "hwcheck.profile",\n  "schema_version": 1,\n  oops}', r":3:\d+: ")

    def test_unknown_key_line_col_and_path(self):
        self.check_bad('{"schema": "hwcheck.profile", "schema_version": 1,\n "rules": {\n  "PCIE_ASPM_ENABLED": {"severty": "info"}}}',
                       r":3:\d+: rules\.PCIE_ASPM_ENABLED\.severty: unknown key")

    def test_bad_type(self):
        self.check_bad('{"schema": "hwcheck.profile", "schema_version": 1, "thresholds": {"card_temp_limit_c": "hot"}}',
                       r":1:\d+: thresholds\.card_temp_limit_c: expected a number")

    def test_unused_ports_validated(self):
        head = '{"schema": "hwcheck.profile", "schema_version": 1,\n "unused_ports": [\n  '
        self.check_bad(head + '{"netdev": "ens1f1np1", "bdf": "0000:81:00.1"}]}',
                       r":3:\d+: unused_ports\[0\]: an unused port names exactly one of")
        self.check_bad(head + '{}]}', r":3:\d+: unused_ports\[0\]: an unused port names exactly one of")
        self.check_bad(head + '{"bdf": "81:00"}]}', r":3:\d+: unused_ports\[0\]\.bdf: expected a PCI function")
        for bad in ("0000:81:20.1", "-1:00.1", " 81:00.1", "81:00.8", "0000:81:00.1 ", "zz:00.0"):
            self.check_bad(head + '{"bdf": "%s"}]}' % bad, r":3:\d+: unused_ports\[0\]\.bdf: expected a PCI function")
        self.check_bad(head + '{"netdev": "a/b"}]}', r":3:\d+: unused_ports\[0\]\.netdev: expected an interface name")
        self.check_bad(head + '{"netdev": "ens1f1np1", "port": 2}]}',
                       r":3:\d+: unused_ports\[0\]\.port: \"port\" goes with \"rdma_device\"")
        self.check_bad(head + '{"rdma_device": "mlx5_1", "port": 0}]}',
                       r":3:\d+: unused_ports\[0\]\.port: expected a port number")
        self.check_bad(head + '{"rdma_device": "mlx5_1", "why": "x"}]}',
                       r":3:\d+: unused_ports\[0\]\.why: unknown key")
        self.check_bad('{"schema": "hwcheck.profile", "schema_version": 1, "unused_ports": {"netdev": "x"}}',
                       r":1:\d+: unused_ports: expected an array of unused ports")

    def test_default_profile_file_is_the_builtin(self):
        # --profile rules/default-profile.json must judge exactly like no profile
        facts = hwctest.source("tests", "rules", "scenarios", "cx6-slot-25w-limiter.facts.json")
        a = subprocess.run([RULES_EVAL, facts], capture_output=True, text=True).stdout
        b = subprocess.run([RULES_EVAL, facts, hwctest.source("rules", "default-profile.json")],
                           capture_output=True, text=True).stdout
        self.assertEqual(a, b)
        self.assertTrue(json.loads(a))

    def test_example_profile_loads(self):
        facts = hwctest.source("tests", "rules", "scenarios", "healthy-cx7-gen5x16.facts.json")
        cp = subprocess.run([RULES_EVAL, facts, hwctest.source("docs", "profile-example.json")],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stderr)


if __name__ == "__main__":
    if not RULES_EVAL:
        print("--rules-eval PATH is required")
        sys.exit(2)
    hwctest.main()

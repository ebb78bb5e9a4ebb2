# SPDX-License-Identifier: MIT
# Keeps tests/link/REAL-DATA.md true: every rule issue 14 added (area link, MLX_KERNEL_EVENTS) has a
# row; each row's fixture root fires its rule at the stated severity (with the row's profile) and
# holds the capture the row names, which its SOURCE.md (or its base root's) describes; each rule
# case row exists and expects that severity; the rules without a real row are exactly those the
# "No real capture found" list names.
import glob
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "REAL-DATA.md")
CLASSES = {"real", "real-quoted", "RECONSTRUCTED"}
SEVERITIES = {"info", "warn", "error"}


def section(text, name):
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    if not m:
        raise AssertionError(f"{DOC}: no '{name}' section")
    return m.group(1)


def rows():
    """The table's rows as dicts (rule, fixture, profile, fires, data, capture)."""
    with open(DOC) as f:
        body = section(f.read(), "real-data")
    out = []
    for ln in body.splitlines():
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("rule", "---"):
            continue
        rule, fixture, profile, fires, data, capture = cells
        out.append({"rule": rule, "fixture": fixture, "profile": profile, "fires": fires,
                    "data": data, "capture": capture.split("`")[1] if "`" in capture else capture})
    return out


def no_real_rules():
    with open(DOC) as f:
        body = section(f.read(), "no-real")
    out = set()
    for m in re.finditer(r"^- ((?:`[A-Z0-9_]+`(?:, )?)+):", body, re.M):
        out |= set(re.findall(r"`([A-Z0-9_]+)`", m.group(1)))
    return out


def issue14_rules():
    cp, j = run_json("rules", "list", "--json")
    return {r["id"] for r in j["rules"] if r.get("area") == "link" or r["id"] == "MLX_KERNEL_EVENTS"}


def sources(fixture):
    """SOURCE.md of the fixture and of the roots it was built on ('the root of `tests/fixtures/X`')."""
    text = ""
    todo = [fixture]
    while todo:
        with open(hwctest.fixture(todo.pop(), "SOURCE.md")) as f:
            t = f.read()
        text += t
        todo += re.findall(r"the root of `tests/fixtures/([^`/]+)`", t)
    return text


class RealData(unittest.TestCase):
    def test_table_well_formed(self):
        rs = rows()
        self.assertGreater(len(rs), 0)
        for r in rs:
            with self.subTest(r["rule"], fixture=r["fixture"]):
                self.assertIn(r["data"], CLASSES)
                self.assertIn(r["fires"], SEVERITIES)

    def test_every_issue14_rule_listed(self):
        self.assertEqual(issue14_rules() - {r["rule"] for r in rows()}, set())

    def test_rules_without_real_data_are_named(self):
        real = {r["rule"] for r in rows() if r["data"] in ("real", "real-quoted")}
        self.assertEqual(no_real_rules(), issue14_rules() - real,
                         "the 'No real capture found' list must name exactly the rules without a real row")

    def test_fixture_rows_fire(self):
        for r in rows():
            if r["fixture"].startswith("cases:"):
                continue
            with self.subTest(r["rule"], fixture=r["fixture"]):
                root = hwctest.fixture(r["fixture"], "root")
                self.assertTrue(os.path.isdir(root), root)
                self.assertTrue(glob.glob(os.path.join(root, r["capture"])), r["capture"])
                self.assertIn(r["capture"], sources(r["fixture"]))
                extra = []
                if r["profile"] != "-":
                    extra = ["--profile", os.path.join(HERE, "real-data", r["profile"])]
                cp, j = run_json("--root", root, "--json", *extra)
                hwctest.validate(j)
                got = {f["severity"] for f in j["findings"] if f["rule_id"] == r["rule"]}
                self.assertIn(r["fires"], got, f"{r['rule']} on {r['fixture']}: {sorted(got)}")

    def test_case_rows_exist(self):
        for r in rows():
            if not r["fixture"].startswith("cases:"):
                continue
            with self.subTest(r["rule"], case=r["fixture"]):
                path = hwctest.source("tests", "rules", "cases", r["fixture"][len("cases:"):])
                with open(path) as f:
                    case = json.load(f)
                self.assertEqual(case["rule"], r["rule"])
                self.assertIn(r["fires"], [e.get("severity") for e in case.get("expect", [])])
                self.assertEqual(r["data"], "RECONSTRUCTED", "a rule case is a facts patch, not a capture")


if __name__ == "__main__":
    hwctest.main()

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Generates docs/rules.md from the rule table (`hwcheck rules list --json`), and appends the
# table's new rule ids to the stability list (--ids tests/rules/rule-ids.txt): ids are only ever
# added there, never renamed or removed, so a rule that disappears from the table fails
# tests/rules/test_rules.py while its id stays listed.
#   gen-rules-md.py --hwcheck BUILD/cli/hwcheck [--ids LIST] docs/rules.md          rewrite them
#   gen-rules-md.py --hwcheck BUILD/cli/hwcheck [--ids LIST] --check docs/rules.md  exit 1 if stale
import argparse
import json
import subprocess
import sys

AREAS = [("pci", "PCIe"), ("mlx", "ConnectX firmware"), ("profile", "Profile expectations"),
         ("thermal", "Thermal"), ("host", "Host"), ("netdev", "Network devices and ports"),
         ("link", "The physical link"), ("roce", "RoCE lossless chain"),
         ("probe", "Bandwidth probe"), ("collect", "Collection")]


def render(rules):
    missing = sorted({r["area"] for r in rules} - {a for a, _ in AREAS})
    if missing:
        sys.exit(f"gen-rules-md: no section for area(s) {', '.join(missing)}: add them to AREAS")
    out = ["# hwcheck rules", "",
           "Generated from the rule table by `rules/gen-rules-md.py` (`hwcheck rules list --json`);",
           "do not edit by hand. `hwcheck rules explain ID` prints one rule.", "",
           "Rule ids are stable: waivers, pipelines and dashboards key on them "
           "(`tests/rules/rule-ids.txt` guards that). A rule whose inputs are unknown reports "
           "severity `unknown` with the fact and its `unavailable` status; it never passes. A "
           "site profile can turn a rule off or change its severity (docs/profile.md).", "",
           "Exit codes: 0 no finding at or above `--fail-on` (default warn), 1 findings at or above "
           "it, 2 usage error (a malformed profile included), 3 nothing could be collected, 4 "
           "internal error. `--exit-codes=nagios`: 0 OK, 1 WARNING, 2 CRITICAL (an error finding), "
           "3 UNKNOWN (nothing collected). `--exit-codes=npd` (node-problem-detector): 0 OK, 1 NonOK "
           "(findings at or above `--fail-on`), 2 Unknown. Waived, info and unknown findings never "
           "raise the exit code. `--summary-line` prints one line of at most 80 characters, e.g. "
           "`hwcheck: ERROR 1 error, 0 warn; PCIE_PATH_BOTTLENECK 0001:43:00.0`, for Slurm drain "
           "reasons and node-problem-detector.", "",
           "In a finding the fix is the exact command: `<BDF>` (the card), `<PORT>` (the port above "
           "it), `<netdev>`, `<port>` (the RDMA port number) and `<rx_max>` are filled in from the "
           "facts; this reference shows them as placeholders.", "",
           "| id | severity | title |", "|---|---|---|"]
    for r in rules:
        out.append(f"| [{r['id']}](#{r['id'].lower()}) | {r['severity']} | {r['title']} |")
    for area, name in AREAS:
        rs = [r for r in rules if r["area"] == area]
        if not rs:
            continue
        out += ["", f"## {name}"]
        for r in rs:
            out += ["", f"### {r['id']}", "", f"**{r['title']}** (default severity `{r['severity']}`)",
                    "", r["rationale"], "", f"Fix: {r['fix']}"]
    return "\n".join(out) + "\n"


def listed_ids(path):
    """The ids of the stability list (comments and blank lines left out), in its order."""
    with open(path) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def ids_text(path, rules):
    """The stability list with the table's ids it lacks appended (table order); nothing removed."""
    with open(path) as f:
        text = f.read()
    have = set(listed_ids(path))
    new = [r["id"] for r in rules if r["id"] not in have]
    if new and text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(i + "\n" for i in new)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hwcheck", required=True)
    p.add_argument("--check", action="store_true")
    p.add_argument("--ids", help="the rule-id stability list to append new ids to")
    p.add_argument("out")
    a = p.parse_args()
    cp = subprocess.run([a.hwcheck, "rules", "list", "--json"], capture_output=True, text=True,
                        env={"LC_ALL": "C"})
    if cp.returncode != 0:
        sys.exit(f"hwcheck rules list --json: exit {cp.returncode}: {cp.stderr}")
    rules = json.loads(cp.stdout)["rules"]
    outputs = {a.out: render(rules)}
    if a.ids:
        outputs[a.ids] = ids_text(a.ids, rules)
    stale = [path for path, text in outputs.items() if read(path) != text]
    if a.check:
        if stale:
            print(f"{', '.join(stale)} out of date: run scripts/hwcheck-dev gen "
                  f"(rules/gen-rules-md.py --hwcheck {a.hwcheck} --ids LIST {a.out})")
            sys.exit(1)
        return
    for path in stale:
        with open(path, "w") as f:
            f.write(outputs[path])


if __name__ == "__main__":
    main()

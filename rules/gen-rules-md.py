#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Generates docs/rules.md from the rule table (`hwcheck rules list --json`).
#   gen-rules-md.py --hwcheck BUILD/cli/hwcheck docs/rules.md          rewrite it
#   gen-rules-md.py --hwcheck BUILD/cli/hwcheck --check docs/rules.md  exit 1 if it is stale
import argparse
import json
import subprocess
import sys

AREAS = [("pci", "PCIe"), ("mlx", "ConnectX firmware"), ("profile", "Profile expectations"),
         ("thermal", "Thermal"), ("host", "Host"), ("netdev", "Network devices and ports"),
         ("roce", "RoCE lossless chain"),
         ("probe", "Bandwidth probe"), ("collect", "Collection")]


def render(rules):
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hwcheck", required=True)
    p.add_argument("--check", action="store_true")
    p.add_argument("out")
    a = p.parse_args()
    cp = subprocess.run([a.hwcheck, "rules", "list", "--json"], capture_output=True, text=True,
                        env={"LC_ALL": "C"})
    if cp.returncode != 0:
        sys.exit(f"hwcheck rules list --json: exit {cp.returncode}: {cp.stderr}")
    text = render(json.loads(cp.stdout)["rules"])
    if a.check:
        try:
            with open(a.out) as f:
                old = f.read()
        except FileNotFoundError:
            old = None
        if old != text:
            print(f"{a.out} is out of date: run rules/gen-rules-md.py --hwcheck {a.hwcheck} {a.out}")
            sys.exit(1)
        return
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()

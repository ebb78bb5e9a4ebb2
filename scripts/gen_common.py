# SPDX-License-Identifier: MIT
# What the generators `scripts/hwcheck-dev gen` runs share: their command line
# (--dump TOOL [--check] TARGET) and the rows the dump tool prints.
import argparse
import json
import subprocess


def args_and_rows(target):
    """The parsed command line and the JSON rows printed by the --dump tool."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument(target)
    a = ap.parse_args()
    return a, json.loads(subprocess.run([a.dump], check=True, capture_output=True).stdout)


def write_or_report(check, path, text, stale, written):
    """With --check, says path is stale (why: stale); else writes text to it and says so."""
    if check:
        print(f"{path}: {stale}: run scripts/hwcheck-dev gen")
        return
    with open(path, "w") as f:
        f.write(text)
    print(written)

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# What a commit that adds a fact and its rule cost by hand (issue 19: at most four places: the
# collector, its table, the rule, its test case). Lists the commit's files as generated (what
# `scripts/hwcheck-dev gen` writes: docs/schema entries, docs/FACTS.md, docs/rules.md,
# tests/rules/rule-ids.txt, the seed scenarios, the goldens, the default profile's one-value
# sections and docs/profile.md's key tables) or hand-written, counts a rule's or
# a fixture's case directory as one place, and with --regen proves the generated ones: it
# checks the commit out in a scratch worktree, resets the generated files to the parent's, runs
# `scripts/hwcheck-dev gen` and compares.
#   tests/tools/fact_cost.py COMMIT [--max 4] [--regen]
import argparse
import fnmatch
import os
import subprocess
import sys
import tempfile

GENERATED = ["docs/schema/*.schema.json", "docs/FACTS.md", "docs/rules.md",
             "tests/rules/rule-ids.txt", "tests/rules/scenarios/*.json",
             "tests/*/golden/*.json", "tests/fixtures/*/*.golden.json",
             # partly: --regen proves that only their generated parts changed
             "rules/default-profile.json", "docs/profile.md"]
# a directory whose files together are one test case
CASE_DIRS = ["tests/rules/cases/*/*", "tests/fixtures/*/*"]


def git(*argv, cwd=None):
    return subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def classify(files):
    gen, places = [], {}
    for f in files:
        if any(fnmatch.fnmatch(f, g) for g in GENERATED):
            gen.append(f)
            continue
        place = next((os.path.dirname(f) + "/" for c in CASE_DIRS if fnmatch.fnmatch(f, c)), f)
        places.setdefault(place, []).append(f)
    return gen, places


def regen(commit, gen):
    """The generated files of commit as `scripts/hwcheck-dev gen` writes them from its parent's."""
    with tempfile.TemporaryDirectory() as d:
        wt = os.path.join(d, "wt")
        git("worktree", "add", "--detach", wt, commit)
        try:
            for f in gen:  # the parent's version, or none
                if subprocess.run(["git", "cat-file", "-e", f"{commit}^:{f}"], cwd=wt).returncode:
                    os.unlink(os.path.join(wt, f))
                else:
                    git("checkout", commit + "^", "--", f, cwd=wt)
            subprocess.run(["scripts/hwcheck-dev", "gen"], cwd=wt, check=True,
                           capture_output=True)
            return git("diff", commit, "--stat", "--", *gen, cwd=wt)
        finally:
            git("worktree", "remove", "--force", wt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commit")
    ap.add_argument("--max", type=int, default=4)
    ap.add_argument("--regen", action="store_true")
    a = ap.parse_args()
    files = git("show", "--format=", "--name-only", a.commit).split()
    gen, places = classify(files)
    print(f"{a.commit}: {len(files)} files, {len(gen)} generated, {len(places)} places by hand")
    for p, fs in places.items():
        print(f"  by hand: {p}" + (f" ({len(fs)} files)" if len(fs) > 1 else ""))
    for f in gen:
        print(f"  generated: {f}")
    bad = len(places) > a.max
    if a.regen and gen:
        diff = regen(a.commit, gen)
        if diff:
            print("scripts/hwcheck-dev gen does not give the commit's generated files:\n" + diff)
            bad = True
        else:
            print("scripts/hwcheck-dev gen gives exactly the commit's generated files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

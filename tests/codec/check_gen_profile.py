#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# rules/default-profile.json's one-value sections and docs/profile.md's key tables are what
# scripts/gen-profile.py writes from rules/profile-keys.h (--check passes), and the check notices
# a stale one: in a scratch copy, a default changed by hand and a key renamed in a table make --check
# fail, and regenerating gives the committed files back byte for byte. And a new line of the
# table (a threshold nobody has yet) is written into both files, and nothing else changes.
# Usage: check_gen_profile.py --dump PROFILE_KEYS_DUMP --root SOURCE_DIR --gen scripts/gen-profile.py
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_gen_schema import fake_dump, run as run_gen, test_args  # noqa: E402

FILES = ("rules/default-profile.json", "docs/profile.md")


def run(a, root, check):
    return run_gen(a.gen, a.dump, root, check)


NEW = {"section": "thresholds", "key": "zz_new_threshold", "type": "number", "unit": "widgets",
       "source": "check_gen_profile.py", "doc": "ZZ_RULE: a new threshold", "default": "7",
       "values": None, "min": 0.0, "max": 10.0}


def scratch(d, committed):
    for f in FILES:
        os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
        with open(os.path.join(d, f), "w") as out:
            out.write(committed[f])


def new_line(a, committed):
    """Problems when a new table line does not reach both files as it should."""
    rows = json.loads(subprocess.run([a.dump], check=True, capture_output=True).stdout)
    with tempfile.TemporaryDirectory() as d:
        scratch(d, committed)
        dump = fake_dump(d, rows + [NEW])
        cp = run_gen(a.gen, dump, d, False)
        if cp.returncode != 0:
            return [f"gen-profile.py failed on a new line: {cp.stdout}{cp.stderr}"]
        with open(os.path.join(d, FILES[0])) as f:
            prof = json.load(f)
        want = json.loads(committed[FILES[0]])
        want["thresholds"]["zz_new_threshold"] = 7
        bad = [] if prof == want else [f"{FILES[0]}: not the committed one plus the new threshold"]
        with open(os.path.join(d, FILES[1])) as f:
            md = f.read().split("\n")
        row = "| `zz_new_threshold` | number 0..10 widgets | `7` | ZZ_RULE: a new threshold | " \
              "check_gen_profile.py |"
        old = committed[FILES[1]].split("\n")
        if row not in md or [x for x in md if x != row] != old:
            bad.append(f"{FILES[1]}: not the committed one plus the row {row}")
        if run_gen(a.gen, dump, d, True).returncode != 0:
            bad.append("gen-profile.py --check fails right after writing a new line")
    return bad


def main():
    a = test_args("--root")
    bad = []
    cp = run(a, a.root, True)
    if cp.returncode != 0:
        bad.append(f"stale: {cp.stdout}{cp.stderr}")
    committed = {f: open(os.path.join(a.root, f)).read() for f in FILES}
    edits = (("rules/default-profile.json", '"card_temp_limit_c": 85', '"card_temp_limit_c": 86'),
             ("docs/profile.md", "| `channels_min` |", "| `channels_minimum` |"))
    with tempfile.TemporaryDirectory() as d:
        for rel, old, new in edits:
            scratch(d, committed)
            if old not in committed[rel]:
                bad.append(f"{rel}: no {old!r} to edit (the test needs updating)")
                continue
            with open(os.path.join(d, rel), "w") as out:
                out.write(committed[rel].replace(old, new, 1))
            if run(a, d, True).returncode == 0:
                bad.append(f"--check passed with {rel} edited by hand ({new})")
            cp = run(a, d, False)
            if cp.returncode != 0:
                bad.append(f"gen-profile.py failed: {cp.stdout}{cp.stderr}")
            for f in FILES:
                if open(os.path.join(d, f)).read() != committed[f]:
                    bad.append(f"{f}: regenerated after editing {rel}, differs from the committed file")
    bad += new_line(a, committed)
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{len(FILES)} generated profile files checked, a new table line added, "
          f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

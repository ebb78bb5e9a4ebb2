#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# rules/default-profile.json's one-value sections and docs/profile.md's key tables are what
# scripts/gen-profile.py writes from rules/profile-keys.h (--check passes), and the check notices
# a stale one: in a scratch copy, a default changed by hand and a key renamed in a table make --check
# fail, and regenerating gives the committed files back byte for byte.
# Usage: check_gen_profile.py --dump PROFILE_KEYS_DUMP --root SOURCE_DIR --gen scripts/gen-profile.py
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_gen_schema import run as run_gen, test_args  # noqa: E402

FILES = ("rules/default-profile.json", "docs/profile.md")


def run(a, root, check):
    return run_gen(a.gen, a.dump, root, check)


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
            for f in FILES:
                os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
                with open(os.path.join(d, f), "w") as out:
                    out.write(committed[f])
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
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{len(FILES)} generated profile files checked, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

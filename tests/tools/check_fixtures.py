#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Every script-generated fixture rebuilds from a fresh clone: the generators run on a scratch copy
# of tests/, reading only what the checkout holds (tests/captures, tests/mlx/data), and what they
# write must equal what is committed, byte for byte (files and symbolic links; empty directories
# are ignored, as git keeps none). A generator that fails, or reads an input the clone lacks,
# fails the check: nothing is skipped.
#   python3 tests/tools/check_fixtures.py [--source REPO]
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rules", "scenarios"))
from make_roots import tree  # noqa: E402  (files and links of a directory; empty directories unseen)

# (script under tests/, its arguments relative to the copy's tests/)
GENERATORS = [
    ("netdev/make_fixtures.py", []),
    ("mlx/mkfixtures.py", []),
    ("mlx/mkfwfixtures.py", []),
    ("roce/mkfixtures.py", []),
    ("link/make_fixtures.py", []),
    ("link/make_rate_fixtures.py", []),
    ("link/make_ext_fixtures.py", []),
    ("rules/scenarios/make_roots.py", []),
    ("rules/mkfield.py", []),
    ("pci/hosts.py", ["fixtures"]),
    ("pci/rebuild.py", ["fixtures/pci-rebuilt"]),
    ("pci/gpuhosts.py", ["fixtures"]),
    ("link/make_farend.py", []),  # it copies roots the others build
    ("link/make_watch_fixtures.py", []),  # it copies net-mlx5-100g-full-stats
]


def differences(built, committed):
    a, b = tree(built), tree(committed)
    return [rel for rel in sorted(set(a) | set(b)) if a.get(rel) != b.get(rel)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default=os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")))
    ap.add_argument("--hwcheck", help="ignored (the test harness passes it)")
    args = ap.parse_args()
    tests = os.path.join(args.source, "tests")
    bad = []
    with tempfile.TemporaryDirectory(prefix="hwc-fixtures-") as tmp:
        # tests/ alone, in a directory with nothing beside it: an input outside the clone is not
        # there to be read
        copy = os.path.join(tmp, "repo", "tests")
        shutil.copytree(tests, copy, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", LC_ALL="C")
        for script, argv in GENERATORS:
            path = os.path.join(copy, script)
            cp = subprocess.run(["/usr/bin/python3", path] + argv, cwd=copy, env=env,
                                capture_output=True, text=True)
            if cp.returncode != 0:
                bad.append(f"{script} failed (exit {cp.returncode}): "
                           f"{(cp.stdout + cp.stderr).strip()[-600:]}")
        for rel in differences(os.path.join(copy, "fixtures"), os.path.join(tests, "fixtures")):
            bad.append(f"tests/fixtures/{rel}: differs from what the generators build")
    for b in bad[:40]:
        print(b)
    if len(bad) > 40:
        print(f"... and {len(bad) - 40} more")
    if bad:
        print("rebuild with the generators listed in tests/tools/check_fixtures.py, or commit "
              "the inputs they read under tests/captures/")
        return 1
    print(f"{len(GENERATORS)} generators rebuilt tests/fixtures unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())

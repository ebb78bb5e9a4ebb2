#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# No JSON file of docs/ (the schemas, the example profile) or rules/ (the default profile) has an
# object with the same key twice: json.load keeps the last silently, so the first would be a
# description (or a type) that every tool ignores while a reader of the file believes it.
# Usage: check_dup_keys.py DIR...
import glob
import json
import os
import sys


def dup_keys(path):
    """The keys that occur twice in one object of the file, with the object's other keys."""
    dups = []

    def hook(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                dups.append(f"{path}: key \"{k}\" twice in the object with keys "
                            f"{sorted({p[0] for p in pairs})}")
            seen.add(k)
        return dict(pairs)

    with open(path) as f:
        json.load(f, object_pairs_hook=hook)
    return dups


def main():
    files = sorted(p for d in sys.argv[1:] for p in glob.glob(os.path.join(d, "**", "*.json"),
                                                               recursive=True))
    bad = [e for p in files for e in dup_keys(p)]
    for e in bad:
        print(e, file=sys.stderr)
    print(f"{len(files)} JSON files checked for duplicate keys, {len(bad)} problems")
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())

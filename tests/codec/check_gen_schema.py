#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# scripts/gen-schema.py writes what was committed: every schema object whose keys all come from
# table lines with a description (docs/schema entries scripts/hwcheck-dev gen wrote, such as
# facts.host.net) is removed from a scratch copy of docs/schema and written again by the
# generator, which must give the committed files byte for byte; --check must then pass, and must
# fail while one is missing. So a generated entry is never edited by hand out of step with its
# table line, and the generator keeps working.
# Usage: check_gen_schema.py --dump JTABLES_DUMP --schema DOCS/schema --gen scripts/gen-schema.py
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_jtables import Schemas  # noqa: E402


def generated(rows, s):
    """(schema id, path, key) of each table key whose schema description is its table doc,
    outermost first (an object whose every key is generated is removed as a whole)."""
    out = []
    for r in rows:
        if "table" in r or not r.get("doc"):
            continue
        node = (s.store[r["schema"]], r["schema"])
        for step in r["path"]:
            node = s.child(*node, step) if node else None
        sub = s.child(*node, r["key"]) if node else None
        if sub and sub[0].get("description") == r["doc"]:
            out.append((r["schema"], r["path"], r["key"]))
    keep = []
    for sid, path, key in out:  # drop keys inside an object that is removed anyway
        if not any(sid == s2 and path[:len(p2) + 1] == p2 + [k2] for s2, p2, k2 in out):
            keep.append((sid, path, key))
    return keep


def run(gen, dump, schema, check=False):
    return subprocess.run([sys.executable, gen, "--dump", dump] + (["--check"] if check else [])
                          + [schema], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--gen", required=True)
    a = ap.parse_args()
    rows = json.loads(subprocess.run([a.dump], check=True, capture_output=True).stdout)
    keys = generated(rows, Schemas(a.schema))
    if not keys:
        print("no generated schema entry to check")
        return 1
    bad = []
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "schema")
        shutil.copytree(a.schema, copy)
        s = Schemas(copy)
        files = {json.load(open(os.path.join(copy, f)))["$id"]: os.path.join(copy, f)
                 for f in os.listdir(copy) if f.endswith(".schema.json")}
        for sid, path, key in keys:
            node = (s.store[sid], sid)
            for step in path:
                node = s.child(*node, step)
            obj, _ = s.deref(*node)
            del obj["properties"][key]
        for sid in {k[0] for k in keys}:
            with open(files[sid], "w") as f:
                f.write(json.dumps(s.store[sid], indent=2) + "\n")
        if run(a.gen, a.dump, copy, check=True).returncode == 0:
            bad.append("gen-schema.py --check passed with generated entries missing")
        cp = run(a.gen, a.dump, copy)
        if cp.returncode != 0:
            bad.append(f"gen-schema.py failed: {cp.stdout}{cp.stderr}")
        for f in sorted(os.listdir(a.schema)):
            if open(os.path.join(a.schema, f)).read() != open(os.path.join(copy, f)).read():
                bad.append(f"{f}: gen-schema.py writes it differently from the committed file")
        if run(a.gen, a.dump, copy, check=True).returncode != 0:
            bad.append("gen-schema.py --check fails right after writing")
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{len(keys)} generated schema entries rewritten ("
          + ", ".join(f"{sid.split(':')[-1]}.{'.'.join(p + [k])}" for sid, p, k in keys)
          + f"), {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

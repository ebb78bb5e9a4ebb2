#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# scripts/gen-schema.py writes what was committed: every schema object whose keys all come from
# table lines with a description (docs/schema entries scripts/hwcheck-dev gen wrote, such as
# facts.host.net) is removed from a scratch copy of docs/schema and written again by the
# generator, which must give the committed files byte for byte; --check must then pass, and must
# fail while one is missing. So a generated entry is never edited by hand out of step with its
# table line, and the generator keeps working. Then every schema a field table writes into must
# be in the form the generator writes (none formatted by hand, which it would refuse to rewrite),
# and a new key in a table of each of them must be added by the generator, and nothing else.
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


def test_args(target):
    """--dump TOOL, --gen GENERATOR and target DIR: the command line of a generator's test."""
    ap = argparse.ArgumentParser()
    for opt in ("--dump", "--gen", target):
        ap.add_argument(opt, required=True)
    return ap.parse_args()


def run(gen, dump, schema, check=False):
    return subprocess.run([sys.executable, gen, "--dump", dump] + (["--check"] if check else [])
                          + [schema], capture_output=True, text=True)


PROBE_KEY = "zz_gen_schema_test"


def fake_dump(d, rows):
    """A dump tool in directory d that prints rows (a table with a line the C has not)."""
    with open(os.path.join(d, "rows.json"), "w") as f:
        json.dump(rows, f)
    dump = os.path.join(d, "dump")
    with open(dump, "w") as f:
        f.write(f"#!/bin/sh\nexec cat '{d}/rows.json'\n")
    os.chmod(dump, 0o755)
    return dump


def add_one_key(rows, schema, gen, sid):
    """Problems when the generator does not add one new key of a table of schema sid (a copy of
    the schema directory, a dump with the key added) or changes anything else."""
    table = next(r for r in rows if "table" in r and r["schema"] == sid)
    fake = dict(schema=sid, path=table["path"], key=PROBE_KEY, type="i64", status=False,
                always=False, null=False, types=None, doc="check_gen_schema.py's new key")
    rows = [dict(r, table=r["table"] + [PROBE_KEY]) if r is table else r for r in rows] + [fake]
    name = sid.split(":")[-1]
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "schema")
        shutil.copytree(schema, copy)
        dump = fake_dump(d, rows)
        cp = run(gen, dump, copy)
        if cp.returncode != 0:
            return [f"{name}: gen-schema.py could not add a new key: {cp.stdout}{cp.stderr}"]
        s = Schemas(copy)
        node = (s.store[sid], sid)
        for step in table["path"]:
            node = s.child(*node, step)
        obj, _ = s.deref(*node)
        if obj.get("properties", {}).pop(PROBE_KEY, None) is None:
            return [f"{name}: gen-schema.py did not add the new key at {table['path']}"]
        if s.store != Schemas(schema).store:
            return [f"{name}: gen-schema.py changed more than the new key"]
    return []


def hand_formatted(rows, schema):
    """The schema files a field table writes into that the generator would refuse to rewrite."""
    sids = {r["schema"] for r in rows}
    bad = []
    for f in sorted(os.listdir(schema)):
        text = open(os.path.join(schema, f)).read()
        if f.endswith(".schema.json") and json.loads(text)["$id"] in sids \
                and json.dumps(json.loads(text), indent=2) + "\n" != text:
            bad.append(f"{f}: not in the form gen-schema.py writes (json.dumps, indent 2): "
                       "scripts/hwcheck-dev gen could not add its new keys")
    return bad


def main():
    a = test_args("--schema")
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
    bad += hand_formatted(rows, a.schema)
    sids = sorted({r["schema"] for r in rows if "table" in r})
    for sid in sids:
        bad += add_one_key(rows, a.schema, a.gen, sid)
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{len(keys)} generated schema entries rewritten ("
          + ", ".join(f"{sid.split(':')[-1]}.{'.'.join(p + [k])}" for sid, p, k in keys)
          + f"); a new key added to each of {len(sids)} schemas; {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

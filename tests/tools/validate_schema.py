#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Validate hwcheck JSON documents against docs/hwcheck-report.schema.json (and its section schemas).
# Usage: validate_schema.py SCHEMA_DIR FILE... ('-' reads stdin). Exit 0 when all are valid.
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


# Documents other than reports and facts name their schema: "hwcheck.diff" -> schema/diff.schema.json.
OTHER = {"hwcheck.diff": "urn:hwcheck:diff", "hwcheck.merge": "urn:hwcheck:merge",
         "hwcheck.list": "urn:hwcheck:list", "hwcheck.rules": "urn:hwcheck:rules",
         "hwcheck.fwplan": "urn:hwcheck:fwplan"}


def load_validator(docs, schema_id=None):
    main = json.load(open(os.path.join(docs, "hwcheck-report.schema.json")))
    store = {main["$id"]: main}
    for p in glob.glob(os.path.join(docs, "schema", "*.schema.json")):
        s = json.load(open(p))
        store[s["$id"]] = s
    for s in store.values():
        jsonschema.Draft202012Validator.check_schema(s)
    top = store[schema_id] if schema_id else main
    resolver = jsonschema.RefResolver(base_uri=top["$id"], referrer=top, store=store)
    return jsonschema.Draft202012Validator(top, resolver=resolver)


def main():
    if len(sys.argv) < 3:
        print(__doc__ or "usage: validate_schema.py DOCS FILE...", file=sys.stderr)
        return 2
    v = load_validator(sys.argv[1])
    bad = 0
    for f in sys.argv[2:]:
        doc = json.load(sys.stdin if f == "-" else open(f))
        kind = doc.get("schema") if isinstance(doc, dict) else None
        val = load_validator(sys.argv[1], OTHER[kind]) if kind in OTHER else v
        errs = sorted(val.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errs[:20]:
            path = "/".join(str(p) for p in e.absolute_path)
            print(f"{f}: /{path}: {e.message}", file=sys.stderr)
        bad += bool(errs)
    print(f"{len(sys.argv) - 2 - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

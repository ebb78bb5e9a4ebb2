#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes the docs/schema/ entry of every key a facts field table (core/json.h) writes and the
# schema lacks, from the table entry itself: its kind gives the JSON type (null too when the fact
# carries a status), its `doc` the description. Keys already in the schema are never changed
# (their descriptions are edited in the schema), so the schema stays the checked twin of the C
# (tests/codec/check_jtables.py) and docs/FACTS.md is generated from it. Run by
# `scripts/hwcheck-dev gen`.
#   gen-schema.py --dump BUILD/tests/jtables_dump docs/schema           add what is missing
#   gen-schema.py --dump BUILD/tests/jtables_dump --check docs/schema   exit 1 if something is
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_common import args_and_rows, write_or_report  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "codec"))
from check_jtables import ITEM, KINDS, STATUS_KINDS, Schemas  # noqa: E402

UNAVAILABLE = {"$ref": "urn:hwcheck:common#/$defs/unavailable"}


def entry(row):
    """The schema of one table key, or None for a kind no table line can describe alone."""
    need, nullable = KINDS[row["type"]]
    if row["type"] == "custom" or not need:
        return None
    t = sorted(need)[0]
    nullable = (nullable or row["status"] or row.get("null", False)) and not row["always"]
    e = {"type": [t, "null"] if nullable else t, "description": row["doc"]}
    if t == "object":
        e.update({"properties": {}, "additionalProperties": False})
    if row["type"] in ITEM:
        item = {"type": ITEM[row["type"]]}
        if item["type"] == "object":
            item.update({"properties": {}, "additionalProperties": False})
        e["items"] = item
    return e


def insert(props, key, value, order):
    """props with key added after the nearest key before it in the table's order ("unavailable"
    stays last)."""
    before = order[:order.index(key)]
    at = 0
    for i, k in enumerate(props):
        if k in before:
            at = i + 1
    items = list(props.items())
    items.insert(at, (key, value))
    return dict(items)


def add_missing(rows, s):
    """Adds the entries; returns (files changed, problems)."""
    changed, problems = set(), []
    orders = {(r["schema"], tuple(r["path"])): r["table"] for r in rows if "table" in r}
    for r in rows:
        if "table" in r:
            continue
        node = (s.store[r["schema"]], r["schema"])
        for step in r["path"]:
            node = s.child(*node, step) if node else None
        where = r["schema"].split(":")[-1] + "." + ".".join(r["path"] + [r["key"]])
        if not node or s.child(*node, r["key"]):
            continue  # a missing parent is reported for the parent's own key
        obj, doc = s.deref(*node)
        e = entry(r) if r.get("doc") else None
        if e is None:
            problems.append(f"{where}: not in the schema, and its table entry has no doc "
                            f"(HWC_JFD/HWC_JSUBD or .doc) or is a custom kind: write it there")
            continue
        if "properties" not in obj:
            problems.append(f"{where}: its object in the schema has no properties to add it to")
            continue
        obj["properties"] = insert(obj["properties"], r["key"], e,
                                   orders[(r["schema"], tuple(r["path"]))])
        if ((r["type"] in STATUS_KINDS or r["status"])
                and "unavailable" not in obj["properties"]):
            obj["properties"]["unavailable"] = dict(UNAVAILABLE)
        changed.add(doc)
    return changed, problems


def main():
    a, rows = args_and_rows("schema")
    s = Schemas(a.schema)
    files = {}
    for name in os.listdir(a.schema):
        if name.endswith(".schema.json"):
            path = os.path.join(a.schema, name)
            with open(path) as f:
                text = f.read()
            files[json.loads(text)["$id"]] = (path, text)
    changed, problems = add_missing(rows, s)
    for p in problems:
        print(p, file=sys.stderr)
    for doc in sorted(changed):
        path, old = files[doc]
        new = json.dumps(s.store[doc], indent=2) + "\n"
        if json.dumps(json.loads(old), indent=2) + "\n" != old:
            problems.append(f"{path} is formatted by hand: add the keys above there")
            print(problems[-1], file=sys.stderr)
            continue
        write_or_report(a.check, path, new, "keys of the field tables are missing",
                        f"gen-schema: {path}: added the new keys of its field tables")
    return 1 if problems or (a.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The schema is the checked twin of the C: every key of every facts field table (core/json.h,
# printed by jtables_dump) must be in docs/schema/ at the same place with a type that admits what
# the codec writes, and every key the schema lists for such an object must be in its table.
# Usage: check_jtables.py --dump JTABLES_DUMP --schema DOCS/schema
import argparse
import glob
import json
import os
import subprocess
import sys

# What the codec writes for each kind: the JSON types it needs, and whether it may write null.
KINDS = {
    "i64": ({"integer"}, True), "u64": ({"integer"}, True), "f64": ({"number"}, True),
    "bool": ({"boolean"}, True), "str": ({"string"}, True), "meta": (None, True),
    "key_i64": ({"integer"}, False), "key_str": ({"string"}, False),
    "obj": ({"object"}, False), "group": ({"object"}, True), "vec": ({"array"}, False),
    "strv": ({"array"}, False), "i64v": ({"array"}, False), "f64v": ({"array"}, False),
    "custom": (None, False), "flag": ({"boolean"}, False),
    "i64_slots": ({"array"}, True), "bool_slots": ({"array"}, True),
    "str_slots": ({"array"}, False), "pstr": ({"string"}, False), "opt_f64": ({"number"}, True),
    "map": ({"object"}, False), "status": ({"string"}, False), "detail": ({"string"}, False),
}
ITEM = {"vec": "object", "strv": "string", "i64v": "integer", "f64v": "number",
        "i64_slots": "integer", "bool_slots": "boolean", "str_slots": "string"}
# fixed-size arrays: an element the source did not list is null
NULL_ITEMS = {"i64_slots", "bool_slots", "str_slots"}
STATUS_KINDS = {"i64", "u64", "f64", "bool", "str", "meta", "group", "i64_slots", "bool_slots"}


class Schemas:
    def __init__(self, d):
        self.store = {}
        for p in glob.glob(os.path.join(d, "*.schema.json")):
            with open(p) as f:
                s = json.load(f)
            self.store[s["$id"]] = s

    def deref(self, node, doc):
        """Follows $ref chains; returns (node, document id)."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 20:
            ref = node["$ref"]
            base, _, ptr = ref.partition("#")
            doc = base or doc
            node = self.store[doc]
            for part in filter(None, ptr.split("/")):
                node = node[part]
            seen += 1
        return node, doc

    def branches(self, node, doc):
        """The node and every alternative it allows (anyOf/oneOf/allOf), dereferenced."""
        node, doc = self.deref(node, doc)
        out = [(node, doc)]
        for k in ("anyOf", "oneOf", "allOf"):
            for b in node.get(k, []) if isinstance(node, dict) else []:
                out += self.branches(b, doc)
        return out

    def types(self, node, doc):
        ts = set()
        for n, _ in self.branches(node, doc):
            t = n.get("type")
            if isinstance(t, str):
                ts.add(t)
            elif isinstance(t, list):
                ts.update(t)
            for v in n.get("enum", []) + ([n["const"]] if "const" in n else []):
                ts.add({type(None): "null", bool: "boolean", int: "integer", float: "number",
                        str: "string"}.get(type(v), "object"))
        return ts

    def child(self, node, doc, step):
        """The schema of a property (or of the items when step is '[]'), or None."""
        for n, d in self.branches(node, doc):
            if step == "[]" and isinstance(n.get("items"), dict):
                return n["items"], d
            if step == "{}" and isinstance(n.get("additionalProperties"), dict):
                return n["additionalProperties"], d
            if step != "[]" and step in n.get("properties", {}):
                return n["properties"][step], d
        return None

    def props(self, node, doc):
        keys = set()
        for n, _ in self.branches(node, doc):
            keys.update(n.get("properties", {}))
        return keys


def admits(have, need):
    """An integer is a number: a schema saying "number" admits what the codec writes as one."""
    return bool(need & have) or (need == {"integer"} and "number" in have)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--schema", required=True)
    args = ap.parse_args()
    s = Schemas(args.schema)
    rows = json.loads(subprocess.run([args.dump], check=True, capture_output=True).stdout)
    errors, checked, custom = [], 0, {}
    for r in rows:
        node = (s.store[r["schema"]], r["schema"])
        where = r["schema"].split(":")[-1] + "." + ".".join(r["path"])
        for step in r["path"]:
            node = s.child(*node, step) if node else None
        if not node:
            errors.append(f"{where}: no such object in the schema")
            continue
        if "table" in r:
            extra = {k for k in s.props(*node) - set(r["table"]) - {"unavailable"}
                     if not any(k.startswith(c + "_") for c in custom.get(where, ()))}
            if extra:
                errors.append(f"{where}: the schema lists {sorted(extra)}, the field table not")
            continue
        key = f"{where}.{r['key']}"
        if r["type"] == "custom":
            custom.setdefault(where, []).append(r["key"])
        sub = s.child(*node, r["key"])
        checked += 1
        if not sub:
            errors.append(f"{key}: written by the codec, missing from the schema (a new key: "
                          "give its table entry a doc and run scripts/hwcheck-dev gen)")
            continue
        need, nullable = KINDS[r["type"]]
        if r.get("types"):  # a custom entry that declares what it writes
            need = set(r["types"].split("|")) - {"null"}
            nullable = "null" in r["types"].split("|")
        nullable = nullable or r.get("null", False)
        have = s.types(*sub)
        if need and have and not admits(have, need):
            errors.append(f"{key}: the codec writes {sorted(need)}, the schema says {sorted(have)}")
        if have and (nullable or r["status"]) and not r["always"] and "null" not in have:
            errors.append(f"{key}: may be null (a fact with a status), the schema forbids null")
        if (r["type"] in STATUS_KINDS or r["status"]) and "unavailable" not in s.props(*node):
            errors.append(f"{where}: has facts with a status but no 'unavailable' in the schema")
        if r["type"] in ITEM:
            it = s.child(*sub, "[]")
            its = s.types(*it) if it else set()
            if its and not admits(its, {ITEM[r["type"]]}):
                errors.append(f"{key}[]: the codec writes {ITEM[r['type']]}, schema {sorted(its)}")
            if its and r["type"] in NULL_ITEMS and "null" not in its:
                errors.append(f"{key}[]: an unknown element is null, the schema forbids null")
    for e in sorted(set(errors)):
        print(e, file=sys.stderr)
    print(f"{checked} table keys checked against the schema, {len(set(errors))} problems")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

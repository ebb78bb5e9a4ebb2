#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Generates docs/FACTS.md from the JSON Schemas of the facts sections (docs/schema/): one table
# per section (and per array of objects in it), one row per key with its type and the schema's
# "description". The schema is the one place a fact is described.
#   gen-facts-md.py docs            rewrite docs/FACTS.md
#   gen-facts-md.py --check docs    exit 1 if docs/FACTS.md is stale, or a fact has no description
import argparse
import glob
import json
import os
import sys

SECTIONS = ["host", "pci", "mlx", "netdevs", "roce", "thermal", "probe", "watch"]

INTRO = """# The facts contract

Generated from `docs/schema/<section>.schema.json` by `scripts/gen-facts-md.py`; do not edit by
hand: a fact is described by the `description` of its key in the schema.

`hwcheck facts --json` and the `facts` member of `hwcheck --json` hold one object per section.
Collectors fill them; rules, `diff`, `merge`, `--prom` and users' pipelines read them (rules/ and
cli/ through one query layer, core/query.h). The JSON Schema of each section is
`docs/schema/<section>.schema.json`; this page lists the names every component agrees on. A
section may add keys; renaming or removing one bumps `schema_version`.

## Conventions

- Keys are snake_case; a value carries its unit in its key (`speed_gts`, `temp_mdegc`, `gbps`,
  `speed_mbps`, `latency_us`, `_bytes`, `_w`).
- A fact that is not known is `null`, and the object it belongs to has
  `"unavailable": {"<key>": {"status": "needs_root"|"absent"|"unreadable"|"truncated"|"unsupported"|"timeout"|"invalid"|"blocked"|"not_collected", "errno": N?, "detail": "..."}}`.
  A rule that needs such a value says `unknown`; it never passes. (The tables below leave the
  `unavailable` members out.)
- PCI addresses are full BDFs, lowercase: `0000:3b:00.0`. PCI ids are 4-digit lowercase hex strings
  (`"15b3"`, `"1017"`); a class is 6 hex digits (`"020000"`).
- Lists of things (devices, adapters, ports, sensors, netdevs) are arrays of objects sorted by their
  natural key (BDF, name), so goldens and diffs are stable.
- A key written `NAME` stands for any key of a map (`fw_config.NAME`: each firmware parameter).
"""


class Schemas:
    def __init__(self, docs):
        self.by_id = {}
        for p in glob.glob(os.path.join(docs, "schema", "*.schema.json")):
            with open(p) as f:
                s = json.load(f)
            self.by_id[s["$id"]] = s

    def resolve(self, node, base):
        """Follows $ref (urn:hwcheck:X#/$defs/Y or #/$defs/Y); returns (node, base id)."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 20:
            ref = node["$ref"]
            doc_id, _, frag = ref.partition("#")
            doc_id = doc_id or base
            target = self.by_id[doc_id]
            for part in [p for p in frag.split("/") if p]:
                target = target[part]
            extra = {k: v for k, v in node.items() if k != "$ref"}
            node, base = ({**target, **extra} if extra else target), doc_id
            seen += 1
        return node, base


def type_of(node, sch, base, name):
    """A short type for the table: string, int, number, bool, object, BDF, hex string, T[]."""
    t = node.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"]
        t = t[0] if len(t) == 1 else " or ".join(t) if t else None
    if "enum" in node and not t:
        vals = [v for v in node["enum"] if v is not None]
        t = "string" if all(isinstance(v, str) for v in vals) else "value"
    if "const" in node and not t:
        t = type(node["const"]).__name__.replace("str", "string")
    if t == "array":
        item, ib = sch.resolve(node.get("items", {}), base)
        inner = type_of(item, sch, ib, name)
        return f"{inner}[]" if inner else "array"
    if t == "integer":
        return "int"
    if t == "boolean":
        return "bool"
    pat = node.get("pattern", "")
    if t == "string" and pat.startswith("^[0-9a-f]{4,6}:"):
        return "BDF"
    if t == "string" and "[0-9a-f]" in pat:
        return "hex string"
    if "oneOf" in node or "anyOf" in node:
        alts = []
        for a in node.get("oneOf", node.get("anyOf")):
            an, ab = sch.resolve(a, base)
            at = type_of(an, sch, ab, name)
            if at and at != "null" and at not in alts:
                alts.append(at)
        return " or ".join(alts) if alts else "value"
    return t or "value"


def describe(node):
    d = node.get("description", "")
    vals = [v for v in node.get("enum", []) if v is not None]
    if vals and all(isinstance(v, str) for v in vals) and len(vals) <= 12:
        listed = ", ".join(f"`{v}`" for v in vals)
        d = f"{d} ({listed})" if d else f"one of {listed}"
    return d.replace("|", "\\|").replace("\n", " ")


def structural(node, sch, base):
    """The alternative of an anyOf/oneOf that has members or items (an array or null)."""
    for a in node.get("anyOf", node.get("oneOf", [])):
        an, ab = sch.resolve(a, base)
        if an.get("properties") or an.get("items") or isinstance(an.get("additionalProperties"), dict):
            return an, ab
    return node, base


def rows(node, sch, base, prefix, out, tables, depth):
    """Appends (key, type, meaning) of node's properties to out; an array of objects directly
    below the section (depth 0) gets its own table in tables."""
    node, base = sch.resolve(node, base)
    props = node.get("properties", {})
    for key, sub in props.items():
        if key == "unavailable":
            continue
        sn, sb = sch.resolve(sub, base)
        path = f"{prefix}{key}"
        out.append((path, type_of(sn, sch, sb, key), describe(sn)))
        sn, sb = structural(sn, sch, sb)
        items, ib = sch.resolve(sn.get("items", {}), sb) if sn.get("items") else ({}, sb)
        if depth == 0 and items.get("properties"):
            tables.append((path + "[]", items, ib))
            continue
        child(sn, sch, sb, path, out, tables, depth)
    addl = node.get("additionalProperties")
    if isinstance(addl, dict) and not props:
        an, ab = sch.resolve(addl, base)
        path = f"{prefix}NAME"
        out.append((path, type_of(an, sch, ab, "NAME"), describe(an)))
        child(an, sch, ab, path, out, tables, depth)


def child(node, sch, base, path, out, tables, depth):
    if node.get("properties") or isinstance(node.get("additionalProperties"), dict):
        rows(node, sch, base, path + ".", out, tables, depth + 1)
    elif node.get("items"):
        item, ib = sch.resolve(node["items"], base)
        if item.get("properties"):
            rows(item, sch, ib, path + "[].", out, tables, depth + 1)


def render_table(title, desc, body):
    lines = [f"### {title}", ""] if title else []
    if desc:
        lines += [desc, ""]
    lines += ["| key | type | meaning |", "|---|---|---|"]
    lines += [f"| `{k}` | {t} | {m} |" for k, t, m in body]
    return lines + [""]


def render(docs):
    sch = Schemas(docs)
    out = [INTRO]
    missing = []
    for sec in SECTIONS:
        top = sch.by_id[f"urn:hwcheck:{sec}"]
        node, base = sch.resolve(top, top["$id"])
        out += [f"## {top.get('title', 'facts.' + sec)}", ""]
        for para in top.get("description", "").split("\n\n"):
            out += [para, ""]
        tables = []
        body = []
        if node.get("type") == "array" or "array" in (node.get("type") or []):
            item, ib = sch.resolve(node["items"], base)
            tables.append((f"facts.{sec}[]", item, ib))
        else:
            rows(node, sch, base, "", body, tables, 0)
        if body:
            out += render_table(None, None, body)
        for title, item, ib in tables:
            tb = []
            rows(item, sch, ib, "", tb, [], 1)
            name = title if title.startswith("facts.") else f"facts.{sec}.{title}"
            out += render_table(name, describe(item), tb)
            missing += [f"{name}.{k}" for k, _, m in tb if not m]
        missing += [f"facts.{sec}.{k}" for k, _, m in body if not m]
    return "\n".join(out).rstrip("\n") + "\n", missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("docs")
    a = ap.parse_args()
    text, missing = render(a.docs)
    path = os.path.join(a.docs, "FACTS.md")
    if a.check:
        bad = 0
        if missing:
            print("facts without a description in docs/schema/:\n  " + "\n  ".join(missing))
            bad = 1
        with open(path) as f:
            if f.read() != text:
                print(f"{path} is stale: run scripts/gen-facts-md.py {a.docs}")
                bad = 1
        return bad
    with open(path, "w") as f:
        f.write(text)
    if missing:
        print(f"{len(missing)} facts have no description", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

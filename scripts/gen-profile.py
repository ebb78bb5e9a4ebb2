#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes what derives from the table of the profile's one-value keys (rules/profile-keys.h,
# printed by profile_keys_dump): the "thresholds", "host" and "roce" sections of
# rules/default-profile.json (each key that has a default, with it) and the key tables of
# docs/profile.md (between the "profile-keys SECTION" markers). Run by `scripts/hwcheck-dev gen`;
# the test profile_keys_gen runs it with --check.
#   gen-profile.py --dump BUILD/tests/profile_keys_dump ROOT           rewrite what is stale
#   gen-profile.py --dump BUILD/tests/profile_keys_dump --check ROOT   exit 1 if something is
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_common import args_and_rows, write_or_report  # noqa: E402

BEGIN = "<!-- profile-keys {}: generated from rules/profile-keys.h by scripts/hwcheck-dev gen -->"
END = "<!-- end of profile-keys {} -->"


def num(x):
    return re.sub(r"e\+0*", "e", "%g" % x)


def type_text(r):
    if r["type"] == "boolean":
        return "true or false"
    if r["type"] == "string":
        v = [f"`\"{x}\"`" for x in r["values"].split("|")]
        return ", ".join(v[:-1]) + " or " + v[-1] if len(v) > 1 else v[0]
    unit = f" {r['unit']}" if r["unit"] else ""
    return f"{r['type']} {num(r['min'])}..{num(r['max'])}{unit}"


def table(rows, section):
    """The markdown table of one section's keys."""
    rows = [r for r in rows if r["section"] == section]
    defaults = any(r["default"] is not None for r in rows)
    head = ["key", "type", "default", "meaning", "the default's source"] if defaults else \
        ["key", "type", "meaning"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [f"`{r['key']}`", type_text(r)]
        if defaults:
            cells.append(f"`{r['default']}`" if r["default"] is not None else "none")
        cells.append(r["doc"])
        if defaults:
            cells.append(r["source"])
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out)


def profile_md(text, rows, where):
    """text with each section's generated table replaced; raises when a marker is missing."""
    for section in dict.fromkeys(r["section"] for r in rows):
        b, e = BEGIN.format(section), END.format(section)
        m = re.search(re.escape(b) + r"\n.*?" + re.escape(e), text, re.S)
        if not m:
            raise SystemExit(f"{where}: no \"{b}\" ... \"{e}\" block for the {section} keys")
        text = text[:m.start()] + b + "\n" + table(rows, section) + "\n" + e + text[m.end():]
    return text


def default_profile(text, rows):
    """The default profile with its one-value sections made of the table's defaults."""
    doc = json.loads(text)
    for section in dict.fromkeys(r["section"] for r in rows):
        vals = {r["key"]: json.loads(r["default"]) for r in rows
                if r["section"] == section and r["default"] is not None}
        if vals:
            doc[section] = vals
        else:
            doc.pop(section, None)
    return json.dumps(doc, indent=2) + "\n"


def main():
    a, rows = args_and_rows("root")
    stale = 0
    for rel, make in (("rules/default-profile.json", lambda t: default_profile(t, rows)),
                      ("docs/profile.md", lambda t: profile_md(t, rows, rel))):
        path = os.path.join(a.root, rel)
        with open(path) as f:
            old = f.read()
        new = make(old)
        if new == old:
            continue
        stale += 1
        write_or_report(a.check, path, new, "stale against rules/profile-keys.h",
                        f"gen-profile: {path}: written from rules/profile-keys.h")
    return 1 if a.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

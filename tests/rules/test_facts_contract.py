# SPDX-License-Identifier: MIT
# The facts contract: docs/schema is its one description. docs/FACTS.md is generated from it
# (scripts/gen-facts-md.py), up to date and with a description for every fact; and every JSON
# key literal the rules and the commands read or write (rules/*.c, cli/*.c, and the typed
# accessors of core/query.c they read through) is a key
# of the documented shape: a property of docs/schema/*.schema.json or of the report schema, a key
# of the profile (rules/default-profile.json, docs/profile-example.json, docs/profile.md), or a firmware parameter
# name (facts.mlx.adapters[].fw_config is keyed by mstconfig names). A typo, or a key a collector
# renamed, fails here instead of reading as "not collected" on a real machine.
#
# The calls scanned, and which argument is the key: the getters and setters of jansson, the query
# layer (core/query.h; dotted paths and path expressions are split into their keys), the rules'
# value-or-unknown helpers and core/json.h's readers and writers. A key argument that is an element
# of a table of keys (`keys[k]`, `k[i]`) stands for every string of that table in the same file
# (`static const char *const keys[] = {"speed_gts", "width", NULL};`).
#
# Where the code says which object a key is read from, the key must be a key of that object, not
# only of some object: the object argument is the facts document (`facts`, `c->facts`), a typed
# accessor of core/query.h (ACCESSORS: hwc_q_pci_link(dev) is a pci.devices[] entry's link), a
# key read from one of those (hwc_q_get(hwc_q_host(facts), "numa")), or a variable of the function
# assigned or iterated from one of those (`nd = hwc_q_netdev(facts, name)`,
# `json_array_foreach(hwc_q_adapters(facts), i, ad)`); in core/query.c the accessors' parameters
# are objects by their names (QUERY_PARAMS).
import glob
import json
import functools
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "codec"))
import hwctest  # noqa: E402
from check_jtables import Schemas  # noqa: E402

# function -> index of the key argument (0-based); dotted: the key is a path "a.b[].c"
CALLS = {
    "json_object_get": 1, "json_object_set": 1, "json_object_set_new": 1, "json_object_del": 1,
    "hwc_q_get": 1, "hwc_q_string": 1, "hwc_json_str_or": 1,
    "hwc_q_at": 1, "hwc_q_find": 1, "hwc_q_find_num": 1, "hwc_q_find_bool": 1,
    "hwc_q_find_str": 1, "hwc_q_walk": 1, "hwc_q_is_null": 1, "hwc_q_same": 2,
    "hwc_q_unavailable": 1, "hwc_q_fw_col": 1, "hwc_profile_product_get": 2,
    "need_num": 4, "need_bool": 4, "need_str": 4, "hwc_q_has": 1, "hwc_q_pci_link_num": 1,
    "hwc_q_fw_param": 1, "hwc_q_fw_value": (1, 2), "item_need": 2, "hwc_q_list": 1,
    "hwc_json_put_i64": 1, "hwc_json_put_u64": 1, "hwc_json_put_f64": 1, "hwc_json_put_bool": 1,
    "hwc_json_put_str": 1, "hwc_json_put_meta": 1, "hwc_json_set_before_unavail": 1,
    "hwc_json_get_i64": 1, "hwc_json_get_u64": 1, "hwc_json_get_f64": 1, "hwc_json_get_bool": 1,
    "hwc_json_get_str": 1, "hwc_json_get_meta": 1,
}

# Keys of the code's own scratch objects, never part of a document (with where and why).
SCRATCH = {
    "adapter": "rules/fwc_spread.c: the input of hwc_fwc_spread, {adapter, host} per card",
    "best": "rules/rule-mlx.c: a tally of fw_config values within one host",
    "best_n": "rules/rule-mlx.c: the same tally",
    "count": "rules/rule-mlx.c: the same tally",
    "order": "rules/rule-mlx.c: the same tally",
    "peers": "rules/rule-mlx.c: the same tally",
    "ties": "rules/rule-mlx.c: the same tally",
}

# the object argument of the calls above (0-based), where it is not the first
OBJ_ARG = {"need_num": 2, "need_bool": 2, "need_str": 2}

# The objects core/query.h's accessors return, as paths from the facts document
ACCESSORS = {
    "hwc_q_host": "host", "hwc_q_netdevs": "netdevs", "hwc_q_gpudirect": "pci.gpudirect",
    "hwc_q_fw_image": "mlx.fw_image", "hwc_q_roce_ports": "roce.ports",
    "hwc_q_adapters": "mlx.adapters", "hwc_q_pci_dev": "pci.devices[]",
    "hwc_q_netdev": "netdevs[]", "hwc_q_port_netdev": "netdevs[]",
    "hwc_q_adapter_of": "mlx.adapters[]", "hwc_q_function_adapter": "mlx.adapters[]",
    "hwc_q_numa_node": "host.numa.nodes[]", "hwc_q_pci_link": "pci.devices[].link",
    "hwc_q_path_bottleneck": "pci.devices[].path_bottleneck",
    "hwc_q_netdev_module": "netdevs[].link.module", "hwc_q_netdev_link": "netdevs[].link",
    "hwc_q_irq_locality": "netdevs[].irq_locality", "hwc_q_ports": "mlx.adapters[].ports",
    "hwc_q_function_map": "mlx.adapters[].function_map",
    "hwc_q_registers": "mlx.adapters[].registers", "hwc_q_fw_config": "mlx.adapters[].fw_config",
    "hwc_q_fw_reset": "mlx.adapters[].fw_reset", "hwc_q_fw_param": "mlx.adapters[].fw_config.{}",
}
# core/query.c names its accessors' object parameters by what they are
QUERY_PARAMS = {"facts": "", "dev": "pci.devices[]", "nd": "netdevs[]", "adapter": "mlx.adapters[]",
                "port": "mlx.adapters[].ports[]",
                "param": "mlx.adapters[].fw_config.{}"}

FW_PARAM = re.compile(r"^[A-Z][A-Z0-9_]*$")


def json_keys(path, acc, schema):
    """Adds the keys of the JSON file to acc: of a schema its property names, else every key."""
    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "properties" and schema and isinstance(x, dict):
                    acc.update(x)
                elif not schema:
                    acc.add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    with open(path) as f:
        walk(json.load(f))


def strip_comments(src):
    # comments out (their newlines kept: lines are reported), strings kept (a "/*" inside a
    # string is left alone)
    return re.sub(r'"(?:\\.|[^"\\])*"|/\*.*?\*/|//[^\n]*',
                  lambda m: m.group(0) if m.group(0).startswith('"')
                  else " " + "\n" * m.group(0).count("\n"), src, flags=re.S)


def call_args(src, start):
    """The top-level argument texts of the call whose '(' is at src[start]."""
    depth, i, args, cur = 0, start, [], start + 1
    while i < len(src):
        c = src[i]
        if c == '"':
            i += 1
            while i < len(src) and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(src[cur:i])
                return args
        elif c == "," and depth == 1:
            args.append(src[cur:i])
            cur = i + 1
        i += 1
    return args


def key_tables(src):
    """The file's tables of strings, `NAME[] = {"a", "b", NULL}` (any size, NULL-terminated or
    not), as (offset, name, [(line, string)]) in file order."""
    out = []
    for m in re.finditer(r"\b(\w+)\s*\[[^\]]*\]\s*=\s*\{", src):
        end = src.find("}", m.end())
        body = src[m.end():end]
        if end < 0 or "{" in body or '"' not in body:
            continue
        line = src.count("\n", 0, m.start()) + 1
        out.append((m.start(), m.group(1), [(line + body.count("\n", 0, x.start()), x.group(1))
                                            for x in re.finditer(r'"((?:\\.|[^"\\])*)"', body)]))
    return out


def table_at(tables, name, pos):
    """The strings of the last table called name defined before pos (the one in scope)."""
    found = None
    for off, n, strings in tables:
        if n == name and off < pos:
            found = strings
    return found


def functions(src):
    """(start, end) of each function body: from a '{' to a '}' at the start of a line."""
    return [(m.start(), src.find("\n}", m.start())) for m in re.finditer(r"^\{", src, re.M)]


def split_path(p):
    return [x for x in re.split(r"\.|(\[\]|\{\})", p) if x]


class Objects:
    """Which object of the facts document an expression of a C file is, when the code says."""

    def __init__(self, src, params):
        self.src, self.params, self.funcs = src, params, functions(src)

    def of(self, expr, pos, depth=0):
        """The path ("pci.devices[].link") of the object expr is, or None when not known."""
        expr = expr.strip()
        while expr.startswith("(") and expr.endswith(")") and depth < 8:
            expr, depth = expr[1:-1].strip(), depth + 1
        if depth > 8:
            return None
        if expr in ("facts", "c->facts"):
            return ""
        m = re.fullmatch(r"(\w+)\s*\((.*)\)", expr, re.S)
        if m:
            args = call_args(expr, m.start(2) - 1)
            if m.group(1) == "hwc_q_list" and len(args) > 1:
                lit = re.fullmatch(r'\s*"([^"]*)"\s*', args[1])
                return lit.group(1) if lit else None
            if m.group(1) in ACCESSORS:
                return ACCESSORS[m.group(1)]
            if m.group(1) in ("hwc_q_get", "hwc_q_at", "json_object_get") and len(args) == 2:
                lit = re.fullmatch(r'\s*"([^"]*)"\s*', args[1])
                base = self.of(args[0], pos, depth + 1)
                return None if base is None or not lit else (base + "." + lit.group(1)).lstrip(".")
            return None
        if re.fullmatch(r"\w+", expr):
            return self.variable(expr, pos, depth)
        return None

    def variable(self, name, pos, depth):
        body = next(((a, b) for a, b in self.funcs if a <= pos <= b), None)
        if body is None:
            return None
        head = self.src[self.src.rfind("\n\n", 0, body[0]) + 1:body[0]]
        if self.params and re.search(r"\*\s*" + name + r"\b", head):
            return self.params.get(name)
        found, at = None, -1
        scope = self.src[body[0]:pos]
        for m in re.finditer(r"\b" + name + r"\s*=\s*([^;=][^;]*);", scope):
            found, at = self.of(m.group(1), body[0] + m.start(), depth + 1), m.start()
        for m in re.finditer(r"\bjson_array_foreach\s*\(", scope):
            args = call_args(scope, m.end() - 1)
            if len(args) == 3 and args[2].strip() == name and m.start() > at:
                arr = self.of(args[0], body[0] + m.start(), depth + 1)
                found, at = (None if arr is None else arr + "[]"), m.start()
        return found


def key_literals(path):
    """(line, function, key) for each string literal key argument in the file, and for each
    string of a table of keys that a key argument indexes."""
    with open(path) as f:
        src = strip_comments(f.read())
    tables = key_tables(src)
    objects = Objects(src, QUERY_PARAMS if path.endswith(os.path.join("core", "query.c")) else None)
    names = "|".join(sorted(CALLS, key=len, reverse=True))
    for m in re.finditer(r"\b(" + names + r")\s*\(", src):
        args = call_args(src, m.end() - 1)
        idx = CALLS[m.group(1)]
        for n in idx if isinstance(idx, tuple) else (idx,):
            if len(args) <= n:
                continue
            line = src.count("\n", 0, m.start()) + 1
            lit = re.fullmatch(r'\s*"((?:\\.|[^"\\])*)"\s*', args[n])
            sub = re.fullmatch(r"\s*(\w+)\s*\[[^\]]+\]\s*", args[n])
            if lit:
                keys = [(line, lit.group(1))]
            elif sub and table_at(tables, sub.group(1), m.start()):
                keys = table_at(tables, sub.group(1), m.start())
            else:
                continue
            oi = OBJ_ARG.get(m.group(1), 0)
            obj = objects.of(args[oi], m.start()) if len(args) > oi else None
            if m.group(1) == "hwc_q_fw_param" or (m.group(1) == "hwc_q_fw_value" and n == 1):
                obj = None  # a firmware parameter's name
            elif m.group(1) == "hwc_q_fw_value" and obj is not None:
                obj += ".fw_config.{}"  # the column of one of the adapter's parameters
            for at, key in keys:
                for part in re.split(r"\.|\[\]", key):
                    if part:
                        yield at, m.group(1), part, obj, key


def facts_schema():
    """(Schemas of docs/schema and the report schema, the facts object's node)."""
    s = Schemas(hwctest.source("docs", "schema"))
    with open(hwctest.source("docs", "hwcheck-report.schema.json")) as f:
        report = json.load(f)
    s.store[report["$id"]] = report
    return s, (report["properties"]["facts"], report["$id"])


def lookup(s, root, steps):
    """Where the path of steps leads from root: (node, None), or (None, the step it lacks);
    (None, None) when an object on the way is free-form (no properties: anything may be in it)."""
    node = root
    for step in steps:
        nxt = s.child(*node, step)
        if nxt is None and step not in ("[]", "{}"):
            maps = [b for b, _ in s.branches(*node) if isinstance(b.get("additionalProperties"), dict)]
            if maps:
                nxt = (maps[0]["additionalProperties"], node[1])
            elif not s.props(*node) and not any(b.get("items") for b, _ in s.branches(*node)):
                return None, None
        if nxt is None:
            return None, step
        node = nxt
    return node, None


class KeyLiterals(unittest.TestCase):
    def test_every_key_literal_is_documented(self):
        known = set()
        for p in glob.glob(hwctest.source("docs", "schema", "*.schema.json")):
            json_keys(p, known, True)
        json_keys(hwctest.source("docs", "hwcheck-report.schema.json"), known, True)
        profile = set()
        json_keys(hwctest.source("rules", "default-profile.json"), profile, False)
        json_keys(hwctest.source("docs", "profile-example.json"), profile, False)
        # and the keys of the profile reference's tables (docs/profile.md: | `key` | type | ...)
        with open(hwctest.source("docs", "profile.md")) as f:
            profile.update(re.findall(r"^\| `([a-z_]+)` \|", f.read(), re.M))
        files = sorted(glob.glob(hwctest.source("rules", "*.c")) +
                       glob.glob(hwctest.source("cli", "*.c")) +
                       [hwctest.source("core", "query.c")])
        self.assertGreater(len(files), 20)
        seen, bad, placed = 0, [], set()
        schemas, root = facts_schema()
        for p in files:
            for line, fn, key, obj, full in key_literals(p):
                seen += 1
                where = f"{os.path.relpath(p, hwctest.source())}:{line}: {fn}(\"{full}\")"
                if obj is not None and (where, obj) not in placed:
                    placed.add((where, obj))
                    _, lacks = lookup(schemas, root, split_path(obj) + split_path(full))
                    if lacks:
                        bad.append(f"{where}: \"{lacks}\" is not a key of facts.{obj} "
                                   "(docs/schema/)")
                if key in known or key in profile or key in SCRATCH or FW_PARAM.match(key):
                    continue
                bad.append(f"{where}: \"{key}\" in no schema")
        # the scan itself works: the rules and commands use hundreds of keys, and the code says
        # the object of a good share of them
        self.assertGreater(seen, 500)
        self.assertGreater(len(placed), 200)
        self.assertEqual(bad, [], "keys in no schema (docs/schema/), profile or scratch list:\n" +
                         "\n".join(bad))

    def test_rules_list_matches_its_schema(self):
        # `rules list --json` is the one document whose keys only commands.c writes
        cp = hwctest.run("rules", "list", "--json", check=0)
        vs = subprocess.run([sys.executable, os.path.join(HERE, "..", "tools", "validate_schema.py"),
                             hwctest.source("docs"), "-"], input=cp.stdout, capture_output=True,
                            text=True)
        if vs.returncode == 77:
            self.skipTest(vs.stderr.strip())
        self.assertEqual(vs.returncode, 0, vs.stdout + vs.stderr)

    def test_scanner_finds_keys(self):
        # the scanner on a known snippet: the key argument, dotted paths split, others ignored
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
            f.write('x = json_object_get(json_object_get(o, "a"), "b");\n'
                    '/* json_object_get(o, "in_comment") */\n'
                    'need_num(c, "subject", obj, "base", "link.speed_gts", &v);\n'
                    'hwc_q_walk(facts, "netdevs[].mtu", a, cb, ud);\n'
                    'static const char *const keys[] = {"rx_max",\n "tx_max", NULL};\n'
                    'static const char *const lbl[] = {"not a key"};\n'
                    'for (k = 0; keys[k]; k++) n = hwc_q_get(o, keys[k]), puts(lbl[k]);\n'
                    'hwc_q_fw_value(ad, "PCI_WR_ORDERING", "next_boot");\n')
        try:
            got = list(key_literals(f.name))
        finally:
            os.unlink(f.name)
        self.assertEqual(sorted(g[2] for g in got),
                         ["PCI_WR_ORDERING", "a", "b", "link", "mtu", "netdevs", "next_boot",
                          "rx_max", "speed_gts", "tx_max"])
        # a table's strings are reported at their own lines
        self.assertIn((6, "hwc_q_get", "tx_max"), [g[:3] for g in got])

    def test_keys_checked_against_their_object(self):
        # the object of a key, where the code says it, and the key looked up there
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
            f.write('static int f(const json_t *facts, const json_t *o)\n{\n'
                    '\tconst json_t *dev = hwc_q_pci_dev(facts, "0000:01:00.0");\n'
                    '\tjson_array_foreach(hwc_q_adapters(facts), i, ad) n += !!hwc_q_get(ad, "psid");\n'
                    '\tx = hwc_q_get(hwc_q_pci_link(dev), "speed_gts");\n'
                    '\tx = hwc_q_get(dev, "mtu");\n'
                    '\tx = hwc_q_string(hwc_q_get(hwc_q_host(facts), "kernel"), "lockdown");\n'
                    '\tneed_num(c, "s", hwc_q_netdev(facts, "x"), "b", "link.module.vendor", &v);\n'
                    '\thwc_q_walk(c->facts, "netdevs[].mtu", a, cb, ud);\n'
                    '\tx = hwc_q_fw_value(ad, "PCI_WR_ORDERING", "next_boot");\n'
                    '\tx = hwc_q_get(o, "anything");\n'
                    '\treturn 0;\n}\n')
        try:
            got = {(g[2], g[3]) for g in key_literals(f.name)}
        finally:
            os.unlink(f.name)
        self.assertEqual(got, {
            ("psid", "mlx.adapters[]"), ("speed_gts", "pci.devices[].link"),
            ("mtu", "pci.devices[]"), ("kernel", "host"), ("lockdown", "host.kernel"),
            ("link", "netdevs[]"), ("module", "netdevs[]"), ("vendor", "netdevs[]"),
            ("netdevs", ""), ("mtu", ""), ("PCI_WR_ORDERING", None),
            ("next_boot", "mlx.adapters[].fw_config.{}"), ("anything", None)})
        s, root = facts_schema()
        for obj, key, lacks in (("pci.devices[]", "mtu", "mtu"), ("pci.devices[].link", "speed_gts", None),
                                ("netdevs[]", "link.module.vendor", None), ("", "netdevs[].mtu", None),
                                ("mlx.adapters[].fw_config.{}", "next_boot", None),
                                ("host", "kernel.lockdown", None), ("host", "kernel.lockdwn", "lockdwn")):
            self.assertEqual(lookup(s, root, split_path(obj) + split_path(key))[1], lacks, (obj, key))
        # every accessor's object is in the schema
        for fn, path in list(ACCESSORS.items()) + [(k, v) for k, v in QUERY_PARAMS.items() if v]:
            node, lacks = lookup(s, root, split_path(path))
            self.assertIsNotNone(node, f"{fn}: facts.{path} is not in docs/schema ({lacks})")


class FactsMd(unittest.TestCase):
    """docs/FACTS.md is generated from docs/schema (scripts/gen-facts-md.py): up to date, and every
    fact has a description there."""

    def gen(self, docs, *opts):
        return subprocess.run([sys.executable, hwctest.source("scripts", "gen-facts-md.py"), *opts,
                               docs], capture_output=True, text=True)

    def test_up_to_date(self):
        cp = self.gen(hwctest.source("docs"), "--check")
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_stale_or_undescribed_fails(self):
        import shutil
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(hwctest.source("docs"), os.path.join(d, "docs"))
            docs = os.path.join(d, "docs")
            path = os.path.join(docs, "schema", "netdevs.schema.json")
            with open(path) as f:
                s = json.load(f)
            s["items"]["properties"]["mtu"].pop("description")
            with open(path, "w") as f:
                json.dump(s, f)
            cp = self.gen(docs, "--check")
            self.assertEqual(cp.returncode, 1)
            self.assertIn("facts.netdevs[].mtu", cp.stdout)
            self.assertIn("stale", cp.stdout)
            # regenerated, it is no longer stale; the missing description still fails
            self.assertEqual(self.gen(docs).returncode, 0)
            cp = self.gen(docs, "--check")
            self.assertEqual(cp.returncode, 1)
            self.assertNotIn("stale", cp.stdout)


if __name__ == "__main__":
    hwctest.main()

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The shape of the source tree (ARCHITECTURE.md section 3, DESIGN.md "One door"):
#  - every file read goes through the root: a literal "/sys" or "/proc" path appears only in
#    core/ (the rules' advice texts for a person, which no code opens, are the one exception);
#  - the modules include each other without a cycle (but the one known below), and core/ includes
#    no other module;
#  - no function of the product is longer than MAX_FUNCTION_LINES (issue 19: split along phases).
#   python3 tests/tools/check_layout.py [--source REPO]
import argparse
import os
import re
import sys

MODULES = ("core", "snapshot", "pci", "mlx", "hwinfo", "thermal", "probe", "rules", "cli")
# "/sys", "/proc", "/sys/...", "/proc/..." as the start of a C string literal
LITERAL = re.compile(r'"/(sys|proc)(/|")')
# Known, not to be copied: mlx/kernel_events.c and mlx/port_counters.c take host facts from
# hwinfo/hwinfo.h while hwinfo/roce.c reads the mlx ports (mlx/mlx.h).
KNOWN_CYCLES = {"hwinfo -> mlx -> hwinfo", "mlx -> hwinfo -> mlx"}
MAX_FUNCTION_LINES = 120
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def sources(src, module):
    top = os.path.join(src, module)
    for name in sorted(os.listdir(top)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(top, name), encoding="utf-8") as f:
                yield f"{module}/{name}", f.read()


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def literal_paths(src):
    bad = []
    for module in MODULES:
        if module in ("core", "rules"):
            continue
        for rel, text in sources(src, module):
            code = strip_comments(text)
            for i, line in enumerate(code.split("\n"), 1):
                if LITERAL.search(line):
                    bad.append(f"{rel}:{i}: a literal /sys or /proc path outside core/ "
                               "(read through the root: core/env.h)")
    return bad


def include_graph(src):
    graph = {m: set() for m in MODULES}
    for module in MODULES:
        for rel, text in sources(src, module):
            for dep in INCLUDE.findall(text):
                if dep != module and dep in graph:
                    graph[module].add(dep)
    return graph


def cycles(graph):
    bad, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                bad.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = "done"
    for m in MODULES:
        if m not in state:
            visit(m, [m])
    return bad


def long_functions(src):
    """Functions whose body, from the '{' in column 0 to the '}' in column 0, is too long."""
    bad = []
    for module in MODULES:
        for rel, text in sources(src, module):
            if not rel.endswith(".c"):
                continue
            lines = text.split("\n")
            start = None
            for i, line in enumerate(lines):
                if line.startswith("{"):
                    start = i
                elif line.startswith("}") and start is not None:
                    if i - start + 1 > MAX_FUNCTION_LINES:
                        head = lines[start - 1].strip() if start else ""
                        bad.append(f"{rel}:{start}: function of {i - start + 1} lines "
                                   f"(at most {MAX_FUNCTION_LINES}): {head[:60]}")
                    start = None
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default=os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")))
    ap.add_argument("--hwcheck", help="ignored (the test harness passes it)")
    args = ap.parse_args()
    bad = literal_paths(args.source) + long_functions(args.source)
    graph = include_graph(args.source)
    bad += [f"include cycle between modules: {c}" for c in cycles(graph) if c not in KNOWN_CYCLES]
    bad += [f"core/ includes {d}/: core is below every other module" for d in sorted(graph["core"])]
    for b in bad:
        print(b)
    if not bad:
        print(f"no function over {MAX_FUNCTION_LINES} lines; "
              "no literal /sys or /proc outside core/; module includes: " +
              "; ".join(f"{m} -> {','.join(sorted(graph[m])) or '-'}" for m in MODULES))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

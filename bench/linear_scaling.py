#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Linear cost (issue 20): each input family at size N and 2N, from real fixtures made larger;
# prints the growth ratio t(2N)/t(N) of the CPU time per family (goal: about 2; 4 is quadratic).
#   check --facts with N ConnectX cards    (healthy-cx7-gen5x16 facts, cards replicated), with
#                                           the summary line and with the JSON report
#   facts --root with an N-CPU cpuinfo      (host-hw-genoa-2socket-x2apic-off, blocks replicated)
#   facts --root with N mstconfig rows      (healthy-cx7-gen5x16, parameter rows replicated)
# Usage: bench/linear_scaling.py [HWCHECK] [N-SCALE]   (HWCHECK: build-rel, then build,
# then build-test; N-SCALE multiplies the default sizes). Last line: worst=<largest ratio>.
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
FIX = os.path.join(SRC, "tests", "fixtures")


def hwcheck_bin():
    if len(sys.argv) > 1:
        return sys.argv[1]
    for b in ("build-rel", "build", "build-test"):
        p = os.path.join(SRC, b, "cli", "hwcheck")
        if os.access(p, os.X_OK):
            return p
    sys.exit("no hwcheck binary (build it, or give its path)")


def run(hw, *argv):
    """CPU seconds (user + system) of one run: steadier than wall time on a shared machine."""
    env = dict(os.environ, LC_ALL="C", ASAN_OPTIONS="detect_leaks=0")
    env.pop("HWCHECK_ROOT", None)
    p = subprocess.Popen([hw, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        sys.exit(f"hwcheck {' '.join(argv)}: exit {p.returncode}: {err[-500:]!r}")
    return ru.ru_utime + ru.ru_stime


def facts_with_cards(hw, tmp, copies):
    """The real CX7 host's facts with its cards (PCI chain, adapters, netdevs, sensors) copied
    `copies` times, each copy in a PCI domain of its own."""
    p = os.path.join(tmp, "base.json")
    if not os.path.exists(p):
        out = subprocess.run([hw, "--root", os.path.join(FIX, "healthy-cx7-gen5x16", "root"),
                              "facts", "--json"], capture_output=True, text=True).stdout
        with open(p, "w") as f:
            f.write(out)
    with open(p) as f:
        doc = json.load(f)
    facts = doc["facts"]
    parts = {"pci": facts["pci"]["devices"], "mlx": facts["mlx"]["adapters"],
             "netdevs": facts["netdevs"], "thermal": facts["thermal"]["sensors"]}
    text = {k: json.dumps(v) for k, v in parts.items()}
    grown = {k: [] for k in parts}
    for i in range(copies):
        dom = "%04x:" % (i + 1)
        for k in parts:
            s = text[k].replace('"0000:', '"' + dom).replace("@pci:0000:", "@pci:" + dom)
            items = json.loads(s)
            if k == "netdevs":
                for n in items:
                    n["name"] = f"{n['name']}d{i}"
            grown[k].extend(items)
    facts["pci"]["devices"] = grown["pci"]
    facts["mlx"]["adapters"] = grown["mlx"]
    facts["netdevs"] = grown["netdevs"]
    facts["thermal"]["sensors"] = grown["thermal"]
    out = os.path.join(tmp, f"facts-{copies}.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def root_copy(tmp, fixture, name):
    d = os.path.join(tmp, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(os.path.join(FIX, fixture, "root"), d, symlinks=True)
    return d


def root_with_cpus(tmp, n):
    d = root_copy(tmp, "host-hw-genoa-2socket-x2apic-off", f"cpu-{n}")
    with open(os.path.join(d, "proc", "cpuinfo")) as f:
        blocks = [b for b in f.read().split("\n\n") if b.strip()]
    out = []
    for i in range(n):
        b = blocks[i % len(blocks)].split("\n")
        b = [f"processor\t: {i}" if line.startswith("processor") else line for line in b]
        out.append("\n".join(b))
    with open(os.path.join(d, "proc", "cpuinfo"), "w") as f:
        f.write("\n\n".join(out) + "\n\n")
    return d


def root_with_rows(tmp, n):
    d = root_copy(tmp, "healthy-cx7-gen5x16", f"rows-{n}")
    cmd = os.path.join(d, "hwcheck", "commands")
    for key in os.listdir(cmd):
        if not (key.startswith("mstconfig -d") and key.endswith("-e q")):
            continue
        p = os.path.join(cmd, key, "stdout")
        with open(p) as f:
            lines = f.read().split("\n")
        head = [i for i, line in enumerate(lines) if line.startswith("Configurations:")][0]
        rows = [line for line in lines[head + 1:] if line.strip() and line.strip()[0].isalpha()
                and not line.strip().startswith("The")]
        extra = []
        for i in range(n):
            r = rows[i % len(rows)]
            name = r.split()[0]
            extra.append(r.replace(name, f"{name}_X{i}", 1))
        lines[head + 1:head + 1] = extra
        with open(p, "w") as f:
            f.write("\n".join(lines))
    return d


def measure(name, make, n, hw, argv_of):
    ts = []
    for size in (n, 2 * n):
        inp = make(size)
        ts.append(min(run(hw, *argv_of(inp)) for _ in range(2)))
    ratio = ts[1] / ts[0] if ts[0] > 0 else float("inf")
    print(f"{name}: N={n} {ts[0]:.2f}s CPU, 2N={2 * n} {ts[1]:.2f}s, ratio={ratio:.2f}", flush=True)
    return ratio


def main():
    hw = hwcheck_bin()
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    tmp = tempfile.mkdtemp()
    try:
        r = [measure("check --facts (rules, summary line), cards",
                     lambda n: facts_with_cards(hw, tmp, n), int(400 * scale), hw,
                     lambda p: ["--facts", p, "--summary-line"]),
             measure("check --facts --json (rules and the JSON report), cards",
                     lambda n: facts_with_cards(hw, tmp, n), int(200 * scale), hw,
                     lambda p: ["--facts", p, "--json"]),
             measure("facts, cpuinfo processors", lambda n: root_with_cpus(tmp, n),
                     int(4000 * scale), hw, lambda d: ["--root", d, "facts", "--json"]),
             measure("facts, mstconfig rows", lambda n: root_with_rows(tmp, n),
                     int(30000 * scale), hw, lambda d: ["--root", d, "facts", "--json"])]
    finally:
        shutil.rmtree(tmp)
    print(f"worst={max(r):.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Times, on this machine, the tools hwcheck runs that run here for real (bench/TOOL-TIMES.md, the
# rows marked "measured here"): each command N times, wall clock from fork to exit, as hwcheck's
# runner sees it (argv only, stdin /dev/null, LC_ALL=C, output read to the end). Prints one
# markdown row per command: median, min, max in ms, exit status, bytes of output, and the load
# average before the first run, so that a number says on what it was measured.
# Without a ConnectX here the mstflint tools and the InfiniBand diagnostics only fail (no device):
# what that measures is their start (process, libraries, Python) up to the device open, a floor
# for the real run, and the table says so.
#   python3 bench/measure_tools.py [-n N] [IFACE]      (IFACE: default the first non-loopback netdev)
import os
import shutil
import statistics
import subprocess
import sys
import time


def first_netdev():
    names = sorted(n for n in os.listdir("/sys/class/net") if n != "lo")
    up = [n for n in names if open(f"/sys/class/net/{n}/operstate").read().strip() == "up"]
    return (up or names or ["lo"])[0]


def commands(ifn):
    bdf = "0000:00:00.0"  # a host bridge: no ConnectX answers there, the tools fail at the open
    return [
        ("ethtool", [ifn]), ("ethtool", ["-i", ifn]), ("ethtool", ["-S", ifn]),
        ("ethtool", ["-I", "--show-fec", ifn]), ("ethtool", ["-m", ifn, "hex", "on"]),
        ("dmesg", []), ("lspci", ["-vvv"]), ("lspci", ["-n"]),
        ("dcb", ["-j", "app", "show", "dev", ifn]), ("dcb", ["-j", "pfc", "show", "dev", ifn]),
        ("lldpcli", ["-f", "json", "show", "neighbors", "details"]),
        ("smpquery", ["-C", "mlx5_0", "-P", "1", "-D", "nodeinfo", "0,1"]),
        ("perfquery", ["-C", "mlx5_0", "-P", "1", "1", "1"]),
        ("mstconfig", ["-v"]), ("mstconfig", ["-d", bdf, "-e", "q"]), ("mstflint", ["-d", bdf, "q"]),
        ("mstreg", ["-d", bdf, "--reg_name", "MTMP", "--get", "--indexes", "sensor_index=0x0,slot_index=0x0"]),
        ("mstlink", ["-d", bdf, "-m", "-c"]), ("mstfwreset", ["-d", bdf, "query"]),
    ]


def once(path, args):
    env = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "LC_ALL": "C"}
    t0 = time.perf_counter()
    cp = subprocess.run([path, *args], stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60)
    return (time.perf_counter() - t0) * 1000.0, cp.returncode, len(cp.stdout) + len(cp.stderr)


def measure(n, ifn):
    print(f"load average before: {open('/proc/loadavg').read().split()[0:3]}, {os.cpu_count()} CPUs, "
          f"kernel {os.uname().release}, {n} runs each, netdev {ifn}")
    print("| command | median ms | min ms | max ms | exit | output bytes |")
    print("| --- | --- | --- | --- | --- | --- |")
    for tool, args in commands(ifn):
        path = shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
        cmd = " ".join([tool, *args])
        if not path:
            print(f"| `{cmd}` | not installed | | | | |")
            continue
        runs = [once(path, args) for _ in range(n)]
        ms = [r[0] for r in runs]
        print(f"| `{cmd}` | {statistics.median(ms):.1f} | {min(ms):.1f} | {max(ms):.1f} | "
              f"{runs[-1][1]} | {runs[-1][2]} |")


if __name__ == "__main__":
    argv = sys.argv[1:]
    n = 20
    if argv[:1] == ["-n"] and len(argv) >= 2 and argv[1].isdigit():
        n, argv = int(argv[1]), argv[2:]
    if len(argv) > 1:
        sys.exit("usage: measure_tools.py [-n N] [IFACE]")
    measure(max(n, 1), argv[0] if argv else first_netdev())

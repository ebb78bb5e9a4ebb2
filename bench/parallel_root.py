#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The 10-card fixture root of bench/check_parallel_tools.sh (issue 14: the report's time bound with
# the per-port tools run in parallel). Ten dual-port ConnectX-7 cards, each built as the two cards of
# tests/fixtures/healthy-cx7-gen5x16 are (tests/rules/scenarios/make_roots.py: mstconfig, mstflint,
# mstreg MTMP/MPEIN, netdevs with their ethtool answers and the real Mellanox QSFP28 EEPROM dump),
# plus per card the real `mstlink -d BDF -m -c` of tests/fixtures/link-bf3-mlxlink-clean and the
# real `mstfwreset query` of tests/fixtures/fw-cx5-image-other-psid, and per port the `dcb -j`
# answers of tests/fixtures/roce-lossless-dcb. Then every recording gets `elapsed_ms=`, the time
# the tool takes on a real machine, so that HWCHECK_REPLAY_PACE=1 replays it at that pace.
#
# The durations (TOOL_TIMES below) come from bench/TOOL-TIMES.md, one row each, cited by its id:
# measured on a ConnectX by someone who published it, stated, derived from code or a specification,
# measured on this build machine, or RECONSTRUCTED where nothing was found. A root recorded by
# `hwcheck snapshot` on a real machine carries the measured elapsed_ms of each command: give it to
# the bench instead (check_parallel_tools.sh ROOT).
# Usage: python3 bench/parallel_root.py OUTDIR [--cmis] [--zero] [--farend-worst] [--ib=N]
# (writes OUTDIR/root; --cmis: CMIS modules read over netlink page by page, as a ConnectX-7 with
# OSFP/QSFP112 optics has them; --zero: every elapsed_ms 0, so that the check's wall time is
# hwcheck's own work, TOOL-TIMES T19; the first N cards' ports (default 8) are InfiniBand, with
# their far end's smpquery/perfquery answers; --farend-worst: each of those at its -t bound, 1.2 s)
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
FIX = os.path.join(SRC, "tests", "fixtures")
sys.path.insert(0, os.path.join(SRC, "tests", "rules", "scenarios"))
import make_roots as mr  # noqa: E402

CARDS = 10

# ms per command: the first pattern that matches the start of its recording key wins; the third
# field is the row of bench/TOOL-TIMES.md the number comes from (and how it was got).
TOOL_TIMES = [
    (r"mstconfig -v", 6, "T15 measured here"),
    (r"mstconfig -d ", 13292, "T1 measured: ConnectX-6 Dx, mstflint 4.30.0, sriov-network-operator#835"),
    (r"mstlink ", 1500, "T5 derived from T4, stated: sichek, 8 NICs x 4 ports, mlxlink -m"),
    (r"mstfwreset ", 900, "T18 RECONSTRUCTED (floor measured here 214 ms: Python start)"),
    (r"mstflint -d ", 700, "T16 RECONSTRUCTED (floor measured here 12 ms)"),
    (r"mstreg ", 250, "T17 RECONSTRUCTED (floor measured here 5 ms)"),
    (r"ethtool -m \S+ page ", 16, "T8 derived: 4 MCIA reads of 32 bytes, I2C 100-400 kHz"),
    (r"ethtool -m ", 70, "T7 derived: 20 MCIA reads of 32 bytes, I2C 100-400 kHz"),
    (r"ethtool ", 4, "T10 measured here (virtio-net)"),
    (r"dmesg", 4, "T11 measured here"),
    (r"dcb ", 3, "T12 measured here"),
    (r"lldpcli ", 6, "T13 measured here"),
    (r"perfquery ", 93, "T20 measured: time perfquery -e -x (2 MADs), netdata/netdata#2620"),
    (r"smpquery ", 93, "T21 derived from T20 (no smpquery timing found: the same library, at most 2 MADs)"),
]
# --farend-worst: every MAD of every smpquery/perfquery sent 3 times (-t 200, 2 MADs): 1.2 s a tool
FAREND_WORST_MS = 1200

# The InfiniBand cards (both ports): their far end's recordings are the real ones of
# tests/fixtures/link-farend-ib-linkdowned (a ConnectX peer, LID 4, its counters), asked as
# hwcheck asks now (-t 200); the port's own PortInfo is RECONSTRUCTED from the peer's answer (the
# fixture has none). The other cards are Ethernet (RoCE), as a GPU node's storage/in-band cards.
IB_CARDS = 8
FAREND = "link-farend-ib-linkdowned"
FAREND_KEYS = [  # (the fixture's key, hwcheck's argv now, {dev} the port's RDMA device)
    ("smpquery -C mlx5_1 -P 1 -D nodedesc 0,1", "smpquery -C {dev} -P 1 -t 200 -D nodedesc 0,1"),
    ("smpquery -C mlx5_1 -P 1 -D nodeinfo 0,1", "smpquery -C {dev} -P 1 -t 200 -D nodeinfo 0,1"),
    ("smpquery -C mlx5_1 -P 1 -D portinfo 0,1 1", "smpquery -C {dev} -P 1 -t 200 -D portinfo 0 1"),
    ("smpquery -C mlx5_1 -P 1 -D portinfo 0,1 1", "smpquery -C {dev} -P 1 -t 200 -D portinfo 0,1 1"),
    ("perfquery -C mlx5_1 -P 1 4 1", "perfquery -C {dev} -P 1 -t 200 4 1"),
]


def card_funcs(k):
    """root port 0000:RB:01.0 and the card's two functions on bus RB+1 (RB = 0x10 * (k + 1))."""
    rb = 0x10 * (k + 1)
    rp_bdf = f"0000:{rb:02x}:01.0"
    numa = 0 if k < CARDS // 2 else 1
    rp = dict(bdf=rp_bdf, parent=None, vendor=0x1022, device=0x14ab, type="rp", primary=rb,
              secondary=rb + 1, subordinate=rb + 1, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16),
              lnksta=(32, 16), slot=(75, k + 1), numa=numa, driver="pcieport", iommu_group=100 + 3 * k,
              name="PCI bridge: root port (reconstructed)")
    fns = [dict(bdf=f"0000:{rb + 1:02x}:00.{i}", parent=rp_bdf, vendor=0x15b3, device=0x1021,
                subsys=(0x15b3, 0x0041), type="ep", multifunction=True, mps_sup=512, mps=256,
                mrrs=4096, ro=True, ext_tag=True, no_snoop=True, slot_power=75, lnkcap=(32, 16),
                lnksta=(32, 16), numa=numa, driver="mlx5_core", iommu_group=101 + 3 * k + i,
                name="Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]")
           for i in (0, 1)]
    return [rp] + fns


def copy_command(r, fixture, key, new_key):
    src = os.path.join(FIX, fixture, "root", "hwcheck", "commands", key)
    shutil.copytree(src, r.path(f"hwcheck/commands/{new_key}"), dirs_exist_ok=True)


def ib_port(r, bdf, dev):
    """An InfiniBand port (no netdev, no GIDs of an address) and its far end's answers."""
    d = f"{r.devdir(bdf)}/infiniband/{dev}/ports/1"
    r.write(f"{d}/link_layer", "InfiniBand\n")
    for sub in ("gids", "gid_attrs"):
        shutil.rmtree(r.path(f"{d}/{sub}"))
    for old, new in FAREND_KEYS:
        copy_command(r, FAREND, old, new.format(dev=dev))


def build(out, cmis=False, zero=False, ib_cards=IB_CARDS, farend_worst=False):
    mr.OUT = out
    r = mr.Root("root-build", "bench: ten dual-port ConnectX-7 cards")
    funcs = []
    for k in range(CARDS):
        funcs += card_funcs(k)
    r.pci(funcs, "bench/parallel_root.py")
    r.host("host-hw-genoa-2socket-x2apic-off", "real lscpu/numactl of an ASUS ESC8000A-E12")
    fw, psid, kernel = "28.39.1002", "MT_0000000838", "6.8.0-64-generic"
    r.mst_version()
    r.dmesg("[    0.170301] x2apic enabled\n")
    for k in range(CARDS):
        bus = f"{0x10 * (k + 1) + 1:02x}"
        bdf = f"0000:{bus}:00.0"
        local = "0-31" if k < CARDS // 2 else "32-63"
        r.mstconfig(bdf, "ConnectX7", "MCX755106AS-HEAT_Ax",
                    "NVIDIA ConnectX-7 HHHL Adapter Card; 200GbE / NDR200 IB (default mode); "
                    "Dual-port QSFP112; PCIe 5.0 x16", mr.cfg_rows("force_relax(1)"))
        r.flint(bdf, mr.flint_text(fw, psid))
        r.mtmp(bdf, 56)
        r.mpein(bdf, 1, 75, 5, 16)
        for fn in (0, 1):  # each PF's port 1 (mlx/mlxlink.c asks mstlink per PF)
            copy_command(r, "link-bf3-mlxlink-clean", "mstlink -d 0000:03:00.0 -m -c",
                         f"mstlink -d 0000:{bus}:00.{fn} -m -c")
        copy_command(r, "fw-cx5-image-other-psid", "mstfwreset -d 0000:3b:00.0 query", f"mstfwreset -d {bdf} query")
        cpus = [c for c in mr.expand(local)][:8]
        for fn in (0, 1):
            dev, nd = f"mlx5_{2 * k + fn}", f"ens{k + 1}f{fn}np{fn}"
            r.rdma(f"0000:{bus}:00.{fn}", dev, fw, psid, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", nd)
            if k < ib_cards:
                ib_port(r, f"0000:{bus}:00.{fn}", dev)
                continue
            mr.healthy_netdev(r, f"0000:{bus}:00.{fn}", nd, fw, psid, kernel, 8, cpus, local, speed=200000)
            for what in ("app", "pfc", "ets", "dcbx", "buffer"):
                copy_command(r, "roce-lossless-dcb", f"dcb -j {what} show dev mce0", f"dcb -j {what} show dev {nd}")
    r.done()
    root = os.path.join(out, "root")
    shutil.move(r.root, root + ".tmp")
    shutil.rmtree(r.dir)
    os.rename(root + ".tmp", root)
    if cmis:
        cmis_modules(root)
    pace(root, zero, farend_worst)
    return root


def hex_bytes(path):
    b = bytearray()
    for line in open(path):
        m = re.match(r"\s*0x([0-9a-f]{4}):\s+(.*)", line)
        if m:
            b += bytes(int(x, 16) for x in m.group(2).split())
    return b


def netlink_dump(data, base):
    rows = "".join(f"0x{base + i:04x}:\t\t" + " ".join(f"{x:02x}" for x in data[i:i + 16]) + "\n"
                   for i in range(0, len(data), 16))
    return "Offset\t\tValues\n------\t\t------\n" + rows


def cmis_modules(root):
    """--cmis: every port holds a CMIS module (a ConnectX-7 with OSFP/QSFP112 optics): mlx5 refuses
    the ioctl dump (Invalid argument), the pages come over netlink, as hwinfo/port_module.c reads
    them. The pages: tests/fixtures/module-eeprom/cmis-osfp-sr8-reconstructed.hex (RECONSTRUCTED)."""
    b = hex_bytes(os.path.join(FIX, "module-eeprom", "cmis-osfp-sr8-reconstructed.hex"))
    pages = {"page 0 hex on": (b[0:128], 0), "page 0 offset 128 hex on": (b[128:256], 128),
             "page 1 hex on": (b[256:384], 128), "page 2 hex on": (b[384:512], 128),
             "page 17 hex on": (bytes(128), 128)}
    cmds = os.path.join(root, "hwcheck", "commands")
    for key in os.listdir(cmds):
        m = re.match(r"ethtool -m (\S+) hex on$", key)
        if not m:
            continue
        d = os.path.join(cmds, key)
        open(os.path.join(d, "stdout"), "w").close()
        with open(os.path.join(d, "stderr"), "w") as f:
            f.write("Cannot get Module EEPROM data: Invalid argument\n")
        with open(os.path.join(d, "result"), "w") as f:
            f.write("exit=1\n")
        for suffix, (data, base) in pages.items():
            pd = os.path.join(cmds, f"ethtool -m {m.group(1)} {suffix}")
            os.makedirs(pd, exist_ok=True)
            with open(os.path.join(pd, "stdout"), "w") as f:
                f.write(netlink_dump(data, base))
            with open(os.path.join(pd, "result"), "w") as f:
                f.write("exit=0\n")


def duration_ms(key, farend_worst=False):
    if farend_worst and re.match(r"(smp|perf)query ", key):
        return FAREND_WORST_MS
    return next((ms for pat, ms, _ in TOOL_TIMES if re.match(pat, key)), 0)


def pace(root, zero=False, farend_worst=False):
    cmds = os.path.join(root, "hwcheck", "commands")
    for key in os.listdir(cmds):
        ms = 0 if zero else duration_ms(key, farend_worst)
        res = os.path.join(cmds, key, "result")
        text = open(res).read() if os.path.exists(res) else "exit=0\n"
        text = re.sub(r"^elapsed_ms=.*\n", "", text, flags=re.M) + f"elapsed_ms={ms}\n"
        with open(res, "w") as f:
            f.write(text)

if __name__ == "__main__":
    opts = sys.argv[2:]
    ib = [o for o in opts if o.startswith("--ib=")]
    if len(sys.argv) < 2 or any(o not in ("--cmis", "--zero", "--farend-worst") for o in opts if o not in ib) or \
            any(not o[5:].isdigit() or int(o[5:]) > CARDS for o in ib):
        sys.exit("usage: parallel_root.py OUTDIR [--cmis] [--zero] [--farend-worst] [--ib=N]")
    print(build(sys.argv[1], "--cmis" in opts, "--zero" in opts, int(ib[-1][5:]) if ib else IB_CARDS,
                "--farend-worst" in opts))

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/field-* roots from real captures of the shared corpus: the down ports
# of ibverbs/ (issue 12 section 1) and the PCI_WR_ORDERING incident of two AMD EPYC 9754 nodes with
# four ConnectX-7 each (section 2). Each root holds only what these verdicts read (the RDMA ports,
# their netdevs, the CPU vendor, the cards' mstconfig answers); what is reconstructed rather than
# captured is said so in its SOURCE.md.
# Run: python3 tests/rules/mkfield.py [--corpus DIR] [--check]; output committed.
import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "scenarios"))
from make_roots import tree  # noqa: E402  (the same comparison of a built root with the committed one)
FIX = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
# the corpus files it reads, copied verbatim into the checkout (tests/captures/SOURCE.md)
CORPUS = os.path.normpath(os.path.join(HERE, "..", "captures"))
OUT = FIX
NAMES = []

# kernel sysfs wording (drivers/infiniband/core/sysfs.c state_show / phys_state_show)
STATE = {"ACTIVE": "4: ACTIVE", "DOWN": "1: DOWN"}
PHYS = {"LinkUp": "5: LinkUp", "Disabled": "3: Disabled", "Polling": "2: Polling"}


def corpus(rel):
    with open(os.path.join(CORPUS, rel), "rb") as f:
        return f.read().decode()


class Root:
    def __init__(self, name, title):
        NAMES.append(name)
        self.name, self.title = name, title
        self.dir = os.path.join(OUT, name)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        self.root = os.path.join(self.dir, "root")
        os.makedirs(self.root)
        self.rows = []

    def write(self, rel, data):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(data)

    def link(self, rel, target):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def function(self, bdf, device, driver="mlx5_core", numa=0):
        base = f"sys/bus/pci/devices/{bdf}"
        self.write(f"{base}/vendor", "0x15b3\n")
        self.write(f"{base}/device", f"0x{device:04x}\n")
        self.write(f"{base}/class", "0x020700\n" if driver == "mlx4_core" else "0x020000\n")
        self.write(f"{base}/numa_node", f"{numa}\n")
        self.link(f"{base}/driver", f"../../../drivers/{driver}")

    def rdma(self, bdf, dev, fw, board, ports):
        """ports: {n: {state, phys, rate, link_layer, netdev}}; a missing key is not written."""
        base = f"sys/bus/pci/devices/{bdf}/infiniband/{dev}"
        self.write(f"{base}/fw_ver", fw + "\n")
        self.write(f"{base}/board_id", board + "\n")
        for n, p in ports.items():
            for key, val in (("state", STATE.get(p.get("state"))), ("phys_state", PHYS.get(p.get("phys"))),
                             ("rate", p.get("rate")), ("link_layer", p.get("link_layer")),
                             ("gid_attrs/ndevs/0", p.get("netdev"))):
                if val is not None:
                    self.write(f"{base}/ports/{n}/{key}", val + "\n")
        self.link(f"{base}/device", "../../../" + bdf)
        self.link(f"sys/class/infiniband/{dev}", f"../../bus/pci/devices/{bdf}/infiniband/{dev}")

    def netdev(self, bdf, name, flags, carrier, operstate, mtu=9000):
        """flags: the interface flags (0x1003 up, 0x1002 down); carrier None: not readable (the
        kernel refuses it while the interface is down, so a capture has no such file)."""
        base = f"sys/bus/pci/devices/{bdf}/net/{name}"
        self.write(f"{base}/flags", flags + "\n")
        self.write(f"{base}/operstate", operstate + "\n")
        self.write(f"{base}/mtu", f"{mtu}\n")
        self.write(f"{base}/dev_port", "0\n")
        if carrier is not None:
            self.write(f"{base}/carrier", f"{carrier}\n")
        self.link(f"{base}/device", "../../../" + bdf)
        self.link(f"sys/class/net/{name}", f"../../bus/pci/devices/{bdf}/net/{name}")

    def cpuinfo(self, text):
        self.write("proc/cpuinfo", text)

    def command(self, argv, stdout, exit=0):
        key = " ".join([os.path.basename(argv[0])] + list(argv[1:]))
        key = key.replace("%", "%25").replace("/", "%2F")
        self.write(f"hwcheck/commands/{key}/stdout", stdout)
        self.write(f"hwcheck/commands/{key}/result", f"exit={exit}\n")

    def source(self, piece, origin, how):
        self.rows.append((piece, origin, how))

    def done(self):
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(f"# {self.name}: {self.title}\n\n")
            f.write("Built by `tests/rules/mkfield.py` (regenerate: `python3 tests/rules/mkfield.py`) from "
                    "`/work/shared/corpus/` (provenance of each corpus file in its INDEX.md); checked by "
                    "`tests/rules/test_field.py`. Only what the verdicts under test read is in the root.\n\n")
            f.write("| piece | from | real or reconstructed |\n|---|---|---|\n")
            for p, o, h in self.rows:
                f.write(f"| {p} | {o} | {h} |\n")


def amd_cpu(r, model_name=None, model=None):
    """The real lscpu of an AMD EPYC Genoa host (tests/fixtures/host-hw-genoa-2socket-x2apic-off)."""
    with open(os.path.join(FIX, "host-hw-genoa-2socket-x2apic-off", "root", "proc", "cpuinfo")) as f:
        text = f.read()
    if model_name:
        text = re.sub(r"^model name\t: .*$", f"model name\t: {model_name}", text, flags=re.M)
        text = re.sub(r"^model\t\t: .*$", f"model\t\t: {model}", text, flags=re.M)
    r.cpuinfo(text)
    return text


def intel_cpu(r):
    with open(os.path.join(FIX, "host-hw-2xe2690-x2apic-unknown", "root", "proc", "cpuinfo")) as f:
        r.cpuinfo(f.read())
    r.source("`proc/cpuinfo`", "copied from tests/fixtures/host-hw-2xe2690-x2apic-unknown (a real 2x Xeon E5-2690)",
             "RECONSTRUCTED pairing: the port captures name no CPU; an Intel host keeps PCI_WR_ORDERING out of the verdict")


# ---------------------------------------------------------------- section 1: down ports

IBV = "ibverbs/"


def cx6_eth(name, title, admin_up):
    """ConnectX-6 (MT4123), two Ethernet ports `State: Down / Physical state: Disabled`."""
    src = IBV + "cx6-mt4123_ibstat_ibstatus_eth-down_ANNOTATED.txt"
    text = corpus(src)
    assert "phys state:      3: Disabled" in text and "200 Gb/sec (4X HDR)" in text
    r = Root(name, title)
    intel_cpu(r)
    for i in (0, 1):
        bdf, dev, nd = f"0000:01:00.{i}", f"mlx5_{i}", f"enp1s0f{i}np{i}"
        r.function(bdf, 0x101B)
        r.rdma(bdf, dev, "20.35.2000", "MT_0000000222", {1: dict(state="DOWN", phys="Disabled", rate="200 Gb/sec (4X HDR)",
                                                                  link_layer="Ethernet", netdev=nd)})
        if admin_up:
            r.netdev(bdf, nd, "0x1003", 0, "down")
        else:
            r.netdev(bdf, nd, "0x1002", None, "down")
    r.source("`sys/class/infiniband/mlx5_{0,1}/ports/1/{state,phys_state,rate,link_layer}`, `fw_ver`",
             f"corpus `{src}`", "verbatim: ibstatus prints these sysfs files as they are (`1: DOWN`, `3: Disabled`, "
             "`200 Gb/sec (4X HDR)`, `Ethernet`); firmware 20.35.2000 from ibstat")
    r.source("PCI functions 0000:01:00.{0,1} (15b3:101b, CA type MT4123), netdev names enp1s0f{0,1}np{0,1}, `board_id`",
             "-", "RECONSTRUCTED: the capture names no BDF, netdev or PSID (MT_0000000222 is the ConnectX-6 PSID of "
             "the cx6-slot-25w-limiter scenario)")
    if admin_up:
        r.source("`net/enp1s0f*/{flags,carrier,operstate}`", "-",
                 "RECONSTRUCTED: 0x1003 (IFF_UP set), carrier 0, operstate down: the interfaces are up and the ports "
                 "have no cable or peer, the common case behind mlx5's DOWN/Disabled for a RoCE port")
    else:
        r.source("`net/enp1s0f*/{flags,operstate}`", "-",
                 "RECONSTRUCTED: 0x1002 (IFF_UP clear: `ip link set down`), operstate down, no carrier file (the kernel "
                 "refuses to read it while the interface is down, so a snapshot holds none)")
    r.done()


def cx8_b300():
    src = IBV + "cx8-mt4131-x7-disabled_cx7-mt4129-x4-ib-rate100_ibstat_dell-b300_notes-kr.txt"
    text = corpus(src)
    r = Root("field-ports-cx8-ib-disabled", "Dell XE9780 B300: 7 ConnectX-8 IB ports Down/Disabled, 4 ConnectX-7 active")
    intel_cpu(r)
    cas = re.findall(r"CA '(mlx5_\d+)'\n\s+CA type: (MT\d+)\n.*?Firmware version: (\S+)\n.*?State: (\w+)\n\s+Physical state: (\w+)\n"
                     r"\s+Rate: (\d+)\n.*?Link layer: (\w+)", text, re.S)
    assert len(cas) == 11, cas
    for k, (dev, ca, fw, st, ps, rate, ll) in enumerate(cas):
        bdf = f"0000:{0x10 + 0x10 * k:02x}:00.0"
        r.function(bdf, 0x1023 if ca == "MT4131" else 0x1021, numa=k % 2)
        width, speed = ("4X", "SDR") if rate == "10" else ("4X", "EDR")
        r.rdma(bdf, dev, fw, "MT_0000001093" if ca == "MT4131" else "MT_0000000838",
               {1: dict(state=st.upper(), phys=ps, rate=f"{rate} Gb/sec ({width} {speed})", link_layer=ll)})
    r.source("`sys/class/infiniband/mlx5_{0..10}` state, phys_state, link_layer, fw_ver, the rate's number",
             f"corpus `{src}`", "real values of `ibstat` (State Down/Active, Physical state Disabled/LinkUp, Rate 10/100, "
             "Link layer InfiniBand, firmware 40.46.5500 / 28.47.2526) in the kernel's sysfs wording")
    r.source("PCI functions (15b3:1023 for CA type MT4131, 15b3:1021 for MT4129), BDFs, `board_id` (PSIDs), "
             "the rate's width/speed words (`10 Gb/sec (4X SDR)`, `100 Gb/sec (4X EDR)`)", "-",
             "RECONSTRUCTED: ibstat names no BDF or PSID and prints the rate as a bare number; no IPoIB netdevs "
             "were captured (none in the root)")
    r.done()


def cx6_ib_vv():
    src = IBV + "cx6-mt4123_ibv_devinfo-vv_ib-hdr_fw20.37.1700.txt"
    text = corpus(src)
    assert "DISABLED (3)" in text and "LINK_UP (5)" in text
    r = Root("field-ports-cx6-ib-disabled", "ConnectX-6 HDR: mlx5_0 active, mlx5_1 PORT_DOWN/DISABLED (InfiniBand)")
    intel_cpu(r)
    r.function("0000:01:00.0", 0x101B)
    r.function("0000:01:00.1", 0x101B)
    r.rdma("0000:01:00.0", "mlx5_0", "20.37.1700", "MT_0000000594",
           {1: dict(state="ACTIVE", phys="LinkUp", rate="200 Gb/sec (4X HDR)", link_layer="InfiniBand")})
    r.rdma("0000:01:00.1", "mlx5_1", "20.37.1700", "MT_0000000594",
           {1: dict(state="DOWN", phys="Disabled", rate="10 Gb/sec (4X SDR)", link_layer="InfiniBand")})
    r.source("`sys/class/infiniband/mlx5_{0,1}`: state, phys_state, link_layer, fw_ver, board_id", f"corpus `{src}`",
             "real: PORT_ACTIVE/LINK_UP (5) and PORT_DOWN/DISABLED (3), InfiniBand, fw 20.37.1700, board MT_0000000594")
    r.source("BDFs 0000:01:00.{0,1}, the rate files", "-", "RECONSTRUCTED: `200 Gb/sec (4X HDR)` from active_width 4X "
             "and active_speed 50.0 Gbps; the disabled port's speed is `invalid speed (0)`: written as the SDR floor")
    cx6_ib_portinfo(r, text)
    r.done()


# libibmad's dump of one PortInfo field: the name padded with dots to column 33
def pi_line(key, val):
    return f"{key}:".ljust(33, ".") + f"{val}\n"


def cx6_ib_portinfo(r, text):
    """mlx5_0 port 1's own PortInfo (`smpquery -D portinfo 0 1`) from the values ibv_devinfo -vv printed."""
    port1 = text[text.index("port:\t1"):]
    for want in ("max_mtu:\t\t4096 (5)", "active_mtu:\t\t4096 (5)", "sm_lid:\t\t\t1", "port_lid:\t\t4",
                 "active_width:\t\t4X (2)", "active_speed:\t\t50.0 Gbps (64)"):
        assert want in port1[:1200], want
    dump = ("# Port info: DR path slid 65535; dlid 65535; 0 port 1\n" + pi_line("Lid", 4) + pi_line("SMLid", 1)
            + pi_line("LinkWidthActive", "4X") + pi_line("LinkState", "Active") + pi_line("PhysLinkState", "LinkUp")
            + pi_line("LinkSpeedActive", "10.0 Gbps") + pi_line("NeighborMTU", 4096) + pi_line("MtuCap", 4096)
            + pi_line("LinkSpeedExtActive", "53.125 Gbps"))
    r.command(["smpquery", "-C", "mlx5_0", "-P", "1", "-D", "portinfo", "0", "1"], dump)
    r.source("`hwcheck/commands/smpquery -C mlx5_0 -P 1 -D portinfo 0 1`", "the same capture's mlx5_0 port 1",
             "real-quoted: its values laid out as libibmad's PortInfo dump (`Key:....value`, infiniband-diags "
             "libibmad/fields.c names): Lid 4 = port_lid, SMLid 1 = sm_lid, LinkWidthActive 4X = active_width, "
             "LinkState Active / PhysLinkState LinkUp = PORT_ACTIVE / LINK_UP, LinkSpeedExtActive 53.125 Gbps = "
             "active_speed 50.0 Gbps (64, HDR), NeighborMTU 4096 = active_mtu, MtuCap 4096 = max_mtu (ibv_query_port's "
             "active_mtu and max_mtu are PortInfo's NeighborMTU and MtuCap: mlx4_ib reads them from PortInfo, mlx5_ib from "
             "the firmware's PMTU register; that mlx5's are the PortInfo values is inferred). RECONSTRUCTED: the dump's "
             "header and layout, only these lines (no LinkSpeedEnabled/LinkWidthEnabled: ibv_devinfo does not print "
             "what a port enables, so they stay unknown), LinkSpeedActive `10.0 Gbps` (not read under an extended "
             "speed; the real ConnectX-3 FDR dumps of tests/fuzz/corpus/farend print 10.0 there). No nodedesc, "
             "nodeinfo or perfquery: the far end is `not in this capture`")


def cx4lx_eth():
    src = IBV + "cx4lx_ibv_devinfo_ib_write_bw-error_linux-rdma-2019.txt"
    text = corpus(src)
    assert "PORT_DOWN (1)" in text
    r = Root("field-ports-cx4lx-eth-down", "ConnectX-4 Lx: mlx5_1 PORT_DOWN (Ethernet), mlx5_0 active; no netdev captured")
    intel_cpu(r)
    for i, st in ((0, "ACTIVE"), (1, "DOWN")):
        bdf = f"0000:03:00.{i}"
        r.function(bdf, 0x1015)
        r.rdma(bdf, f"mlx5_{i}", "14.20.1010", "MT_2470111034", {1: dict(state=st, link_layer="Ethernet")})
    r.source("`sys/class/infiniband/mlx5_{0,1}`: state, link_layer, fw_ver, board_id", f"corpus `{src}`",
             "real (ibv_devinfo without -v prints no phys_state or rate: none written)")
    r.source("BDFs 0000:03:00.{0,1}", "-", "RECONSTRUCTED; the thread shows no netdev: none in the root, so the down "
             "port's netdev is unknown")
    r.done()


def cx3_ib(name, src, hcas):
    text = corpus(IBV + src)
    assert text.count("PORT_DOWN (1)") >= len(hcas)
    r = Root(name, "ConnectX-3 (mlx4) InfiniBand: port 1 active, port 2 PORT_DOWN on each HCA")
    intel_cpu(r)
    for k, dev in enumerate(hcas):
        bdf = f"0000:{0x81 + k:02x}:00.0"
        r.function(bdf, 0x1003, driver="mlx4_core")
        p2 = dict(state="DOWN", link_layer="InfiniBand")
        if dev == "mlx4_1" and "POLLING (2)" in text:
            p2.update(phys="Polling", rate="10 Gb/sec (4X SDR)")
        r.rdma(bdf, dev, "2.42.5000", "MT_1090120019",
               {1: dict(state="ACTIVE", link_layer="InfiniBand"), 2: p2})
    r.source(f"`sys/class/infiniband/{{{','.join(hcas)}}}`: ports 1/2 state, link_layer, fw_ver, board_id",
             f"corpus `ibverbs/{src}`", "real; phys_state and rate only where the capture prints them (-v of mlx4_1 "
             "port 2: POLLING, 4X at 2.5 Gbps)")
    r.source("BDFs, driver mlx4_core, 15b3:1003 (vendor_part_id 4099)", "-", "RECONSTRUCTED (no BDF captured)")
    r.done()


def cx7_roce_active():
    src = IBV + "cx7_ibv_devinfo_roce_linux-rdma-2025.txt"
    text = corpus(src)
    r = Root("field-ports-cx7-roce-active", "two ConnectX-7 RoCE ports, both active (the guard: nothing to flag)")
    intel_cpu(r)
    assert "mlx5_2" in text and "mlx5_3" in text and text.count("PORT_ACTIVE (4)") == 2
    for dev, nd, bus in (("mlx5_2", "enp153s0np0", 0x99), ("mlx5_3", "enp171s0np0", 0xab)):
        bdf = f"0000:{bus:02x}:00.0"
        r.function(bdf, 0x1021)
        r.rdma(bdf, dev, "28.39.1002", "MT_0000000838",
               {1: dict(state="ACTIVE", phys="LinkUp", rate="400 Gb/sec (4X NDR)", link_layer="Ethernet", netdev=nd)})
        r.netdev(bdf, nd, "0x1003", 1, "up")
    r.source("`sys/class/infiniband/mlx5_{2,3}` state, link_layer, fw_ver, board_id", f"corpus `{src}`", "real")
    r.source("netdev names enp153s0np0 / enp171s0np0", "the thread's description (corpus INDEX.md row of that file)",
             "real names; their PCI buses 0x99/0xab follow from the names")
    r.source("phys_state, rate, netdev flags/carrier/operstate", "-", "RECONSTRUCTED: LinkUp, 400 Gb/sec, up with carrier "
             "(PORT_ACTIVE on RoCE means the netdev is running with carrier)")
    r.done()


# ---------------------------------------------------------------- section 2: PCI_WR_ORDERING incident

CX7_NAME = "MCX75310AAS-NEA_Ax"
CX7_DESC = ("NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16; "
            "Crypto Disabled; Secure Boot Enabled;")


def mstconfig_cx7(bdf, wo):
    """`mstconfig -d BDF -e q` of a ConnectX-7 in the 3-column layout of the corpus CX6 Lx capture."""
    rows = [("PCI_WR_ORDERING", "per_mkey(0)", wo, wo),
            ("ADVANCED_PCI_SETTINGS", "False(0)", "False(0)", "False(0)"),
            ("P2P_ORDERING_MODE", "DEVICE_DEFAULT(0)", "DEVICE_DEFAULT(0)", "DEVICE_DEFAULT(0)"),
            ("ATS_ENABLED", "False(0)", "False(0)", "False(0)"),
            ("DYNAMIC_VF_MSIX_TABLE", "False(0)", "False(0)", "False(0)")]
    out = ["", "Device #1:", "----------", "", f"Device type:    {'ConnectX7':<16}", f"Name:           {CX7_NAME}",
           f"Description:    {CX7_DESC}", f"Device:         {bdf:<16}", "",
           "Configurations:                              Default         Current         Next Boot"]
    # each value "%-16s", with a space after one that fills the column (DATA-SOURCES.md 4.2)
    col = lambda v: v + " " if len(v) >= 16 else f"{v:<16}"  # noqa: E731
    for p, d, c, n in rows:
        out.append(f"         {p:<36}{col(d)}{col(c)}{col(n)}")
    return "\n".join(out) + "\n"


def epyc_4cx7(name, title, values):
    r = Root(name, title)
    amd_cpu(r, "AMD EPYC 9754 128-Core Processor", 160)
    r.source("`proc/cpuinfo`", "tests/fixtures/host-hw-genoa-2socket-x2apic-off (real lscpu of an EPYC 9374F host, "
             "corpus topology/asus-esc8000a-e12_...)", "RECONSTRUCTED model: `AMD EPYC 9754 128-Core Processor`, model 160, "
             "the CPU the incident notes name; vendor AuthenticAMD, family 25 and flags are the real Genoa capture's")
    r.command(["mstconfig", "-v"], "mstconfig, mstflint 4.26.0, Git SHA Hash: N/A\n")
    for k, wo in enumerate(values):
        bdf = f"0000:{0x01 + 0x40 * k:02x}:00.0"
        r.function(bdf, 0x1021, numa=k // 2)
        r.rdma(bdf, f"mlx5_{k}", "28.46.3048", "MT_0000000838",
               {1: dict(state="ACTIVE", phys="LinkUp", rate="400 Gb/sec (4X NDR)", link_layer="InfiniBand")})
        r.command(["mstconfig", "-d", bdf, "-e", "q"], mstconfig_cx7(bdf, wo))
    r.source("`hwcheck/commands/mstconfig -d BDF -e q` (4 cards)",
             "corpus `mlxconfig/cx7-ndr-mcx75310aas_lspci-grep_mlxup-query-and-update.txt` (device type ConnectX7, part "
             f"number {CX7_NAME}, description), `mlxconfig/cx7_mlxconfig-q_nextboot_p2p-ordering-mode_ats_sriov-dp-issue601_FRAGMENT.txt` "
             "(P2P_ORDERING_MODE, ATS_ENABLED, DYNAMIC_VF_MSIX_TABLE rows of a ConnectX-7), "
             "`mlxconfig/cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt` (PCI_WR_ORDERING per_mkey(0), "
             "ADVANCED_PCI_SETTINGS False(0))",
             "RECONSTRUCTED in the 3-column layout of `mlxconfig/cx6lx_mlxconfig-e-q_3col-default-current-nextboot_sriov-op-pr358_FRAGMENT.txt`: "
             "no capture holds the incident cards' listings (the corpus has no raw `force_relax(1)` output); the current "
             f"PCI_WR_ORDERING values are the incident's: {', '.join(values)}")
    r.source("`sys/class/infiniband/mlx5_{0..3}`: fw 28.46.3048, board_id MT_0000000838 (the PSID), ACTIVE 400 Gb/sec",
             "the same mlxup capture (FW 28.46.3048, PSID MT_0000000838, NDR 400G single port)",
             "RECONSTRUCTED: four cards of that part; BDFs 01/41/81/c1:00.0 (one per EPYC quadrant), 15b3:1021")
    r.done()


def main():
    global CORPUS, OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--check", action="store_true", help="rebuild in a scratch directory and compare")
    args = ap.parse_args()
    CORPUS = args.corpus
    if not os.path.isdir(CORPUS):
        print(f"corpus {CORPUS} not found: cannot rebuild the roots")
        return 1
    if args.check:
        OUT = tempfile.mkdtemp(prefix="field-roots-")
    cx6_eth("field-ports-cx6-eth-down", "ConnectX-6 Ethernet ports Down/Disabled, netdevs up without carrier", True)
    cx6_eth("field-ports-cx6-eth-admin-down", "the same ports with their netdevs set down (IFF_UP clear)", False)
    cx8_b300()
    cx6_ib_vv()
    cx4lx_eth()
    cx3_ib("field-ports-cx3-ib-port2-down", "cx3-mlx4_ibv_devinfo_ib-2port_notes-cn.txt", ["mlx4_0"])
    cx3_ib("field-ports-cx3x2-ib-port2-down", "cx3-mt4099-x2_ibv_devinfo_and_-v-port2-polling_mofed-exp_heioy-books.txt",
           ["mlx4_0", "mlx4_1"])
    cx7_roce_active()
    epyc_4cx7("field-wrorder-epyc9754-aligned", "the good node: four ConnectX-7 400G all per_mkey (194 GB/s NCCL)",
              ["per_mkey(0)"] * 4)
    epyc_4cx7("field-wrorder-epyc9754-outlier", "the slow node: one ConnectX-7 at force_relax, three per_mkey (53 GB/s NCCL)",
              ["per_mkey(0)", "force_relax(1)", "per_mkey(0)", "per_mkey(0)"])
    if not args.check:
        return 0
    bad = []
    for name in NAMES:
        for top in (os.path.join(OUT, name), os.path.join(FIX, name)):
            if not os.path.isdir(top):
                bad.append(name)
        new, old = tree(os.path.join(OUT, name)), tree(os.path.join(FIX, name))
        bad += [f"{name}/{rel}" for rel in sorted(set(new) | set(old)) if new.get(rel) != old.get(rel)]
    shutil.rmtree(OUT)
    for b in bad[:20]:
        print("differs from what mkfield.py builds:", b)
    return 1 if bad else 0



if __name__ == "__main__":
    sys.exit(main())

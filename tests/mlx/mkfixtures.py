#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/mlx-*/ fake roots from the real captures in the shared corpus.
# Run once (python3 tests/mlx/mkfixtures.py [--corpus DIR]; default tests/captures, the corpus files
# it reads copied verbatim); the output is committed.
# What is copied verbatim and what is reconstructed is written into each SOURCE.md.
import argparse
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures")
CORPUS = None


def corpus(rel):
    with open(os.path.join(CORPUS, rel), "rb") as f:
        return f.read()


class Root:
    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(FIX, name)
        self.root = os.path.join(self.dir, "root")
        # the root (and SOURCE.md, rewritten by done()) are built here; the golden beside them
        # (mlx.golden.json) is test_mlx.py's and stays
        if os.path.exists(self.root):
            shutil.rmtree(self.root)
        os.makedirs(self.root)
        self.sources = []

    def write(self, rel, data):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    def link(self, rel, target):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def mkdir(self, rel):
        # git keeps no empty directory: a .hwcheck-keep file holds it (hwcheck's listings skip it)
        d = os.path.join(self.root, rel)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, ".hwcheck-keep"), "w").close()

    def function(self, bdf, device, cls="0x020000", driver="mlx5_core", netdevs=(), rdma=(),
                 physfn=None, hwmon=(), revision=None):
        base = f"sys/bus/pci/devices/{bdf}"
        self.write(f"{base}/vendor", "0x15b3\n")
        self.write(f"{base}/device", f"0x{device:04x}\n")
        self.write(f"{base}/class", f"{cls}\n")
        if revision is not None:
            self.write(f"{base}/revision", f"0x{revision:02x}\n")
        if driver:
            self.link(f"{base}/driver", f"../../../bus/pci/drivers/{driver}")
        if physfn:
            self.link(f"{base}/physfn", f"../{physfn}")
        for n in netdevs:
            self.mkdir(f"{base}/net/{n}")
        for r in rdma:
            self.mkdir(f"{base}/infiniband/{r}")
        for h in hwmon:
            self.mkdir(f"{base}/hwmon/{h}")

    def other_device(self, bdf, vendor, device, cls):
        base = f"sys/bus/pci/devices/{bdf}"
        self.write(f"{base}/vendor", f"0x{vendor:04x}\n")
        self.write(f"{base}/device", f"0x{device:04x}\n")
        self.write(f"{base}/class", f"{cls}\n")

    def rdma(self, dev, fw=None, board=None, ports=None):
        base = f"sys/class/infiniband/{dev}"
        if fw:
            self.write(f"{base}/fw_ver", fw + "\n")
        if board:
            self.write(f"{base}/board_id", board + "\n")
        for p, attrs in (ports or {}).items():
            for k, v in attrs.items():
                self.write(f"{base}/ports/{p}/{k}", v + "\n")

    def netdev(self, name, **attrs):
        for k, v in attrs.items():
            self.write(f"sys/class/net/{name}/{k}", f"{v}\n")

    def command_timeout(self, argv):
        key = " ".join([os.path.basename(argv[0])] + list(argv[1:]))
        key = key.replace("%", "%25").replace("/", "%2F")
        self.write(f"hwcheck/commands/{key}/result", "timeout=1\n")

    def command(self, argv, stdout=b"", stderr=b"", exit=0, signal=None):
        key = " ".join([os.path.basename(argv[0])] + list(argv[1:]))
        key = key.replace("%", "%25").replace("/", "%2F")
        d = f"hwcheck/commands/{key}"
        self.write(f"{d}/stdout", stdout)
        if stderr:
            self.write(f"{d}/stderr", stderr)
        res = f"exit={exit}\n" + (f"signal={signal}\n" if signal else "")
        self.write(f"{d}/result", res)

    def source(self, text):
        self.sources.append(text)

    # what SOURCE.md says built the root (tests/link/make_fixtures.py sets its own)
    BUILT_BY = ("Built by `tests/mlx/mkfixtures.py` from `/work/shared/corpus/` "
                "(see its INDEX.md for the provenance of each file).")

    def done(self, title):
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(f"# {self.name}: {title}\n\n")
            f.write(self.BUILT_BY + "\n\n")
            for s in self.sources:
                f.write(f"- {s}\n")


def mstconfig(bdf):
    return ["mstconfig", "-d", bdf, "-e", "q"]


def flint(bdf):
    return ["mstflint", "-d", bdf, "q"]


def version_text(v):
    # The 4.21 wording verified in DATA-SOURCES.md section 4.2, with the version of the capture.
    return f"mstconfig, mstflint {v}, Git SHA Hash: N/A\n"


def cx4lx_nextboot():
    r = Root("mlx-cx4lx-nextboot")
    r.function("0000:01:00.0", 0x1015, netdevs=["enp1s0f0"], rdma=["mlx5_0"])
    r.function("0000:01:00.1", 0x1015, netdevs=["enp1s0f1"], rdma=["mlx5_1"])
    r.rdma("mlx5_0", "14.20.1010", "MT_2470111034", {1: {"state": "4: ACTIVE", "link_layer": "Ethernet"}})
    r.rdma("mlx5_1", "14.20.1010", "MT_2470111034", {1: {"state": "1: DOWN", "link_layer": "Ethernet"}})
    r.netdev("enp1s0f0", dev_port=0, mtu=1500)
    r.netdev("enp1s0f1", dev_port=0, mtu=1500)
    r.command(mstconfig("0000:01:00.0"),
              corpus("mlxconfig/cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt"))
    r.source("`hwcheck/commands/mstconfig -d 0000:01:00.0 -e q/stdout`: verbatim "
             "`mlxconfig/cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt` (an older mstflint "
             "printing only Next Boot; captured as `mstconfig q` on 01:00.1, replayed as the answer "
             "to hwcheck's argv for function 0). Expected: PCI_WR_ORDERING per_mkey(0), "
             "ADVANCED_PCI_SETTINGS False(0), SRIOV_EN True(1), NUM_OF_VFS 8, Name N/A.")
    r.source("`sys/class/infiniband/mlx5_{0,1}`: fw_ver 14.20.1010, board_id MT_2470111034, port "
             "state and link_layer from `ibverbs/cx4lx_ibv_devinfo_ib_write_bw-error_linux-rdma-2019.txt` "
             "(another ConnectX-4 Lx host of 2019; `PORT_ACTIVE (4)` written in the kernel's sysfs "
             "form `4: ACTIVE`). No rate/phys_state was captured: those files are absent.")
    r.source("Reconstructed: the PCI addresses 0000:01:00.0/.1 (the capture names 01:00.1), the "
             "netdev names enp1s0f0/enp1s0f1 with dev_port 0 and MTU 1500, the sysfs file layout. "
             "mstflint/mstreg/`mstconfig -v` were not captured: they replay as not in this capture.")
    r.done("ConnectX-4 Lx, mstconfig with only the Next Boot column")


def cx6lx_fragment():
    r = Root("mlx-cx6lx-3col-fragment")
    r.function("0000:3b:00.0", 0x101F)
    r.function("0000:3b:00.1", 0x101F)
    r.command(mstconfig("0000:3b:00.0"),
              corpus("mlxconfig/cx6lx_mlxconfig-e-q_3col-default-current-nextboot_sriov-op-pr358_FRAGMENT.txt"))
    r.source("`mstconfig -d 0000:3b:00.0 -e q/stdout`: verbatim "
             "`mlxconfig/cx6lx_mlxconfig-e-q_3col-default-current-nextboot_sriov-op-pr358_FRAGMENT.txt` "
             "(FRAGMENT: Default/Current/Next Boot columns, a corpus gap marker line, the last row cut "
             "in the middle of a value, no final newline). Expected: the rows present are parsed, "
             "IB_ROUTING_MODE_P2 and PF_BAR2_SIZE are marked truncated, fw_config_complete is false and "
             "the named parameters not in the excerpt are `truncated`, not `unsupported`.")
    r.source("Reconstructed: the PCI functions (15b3:101f, the id of the capture) at 0000:3b:00.0/.1; "
             "no driver, netdev or RDMA device (none was captured).")
    r.done("ConnectX-6 Lx, 3-column mstconfig -e q fragment")


def cx5_oci(name, lockdown_mode):
    r = Root(name)
    r.function("0000:3b:00.0", 0x1019, netdevs=["ens2f0np0"], rdma=["mlx5_0"])
    r.function("0000:3b:00.1", 0x1019, netdevs=["ens2f1np1"], rdma=["mlx5_1"])
    for dev in ("mlx5_0", "mlx5_1"):
        r.rdma(dev, "16.35.4506", None, {1: {"state": "4: ACTIVE"}})
    r.netdev("ens2f0np0", dev_port=0, operstate="up")
    r.netdev("ens2f1np1", dev_port=0, operstate="up")
    modes = ["none", "integrity", "confidentiality"]
    r.write("sys/kernel/security/lockdown",
            " ".join(f"[{m}]" if m == lockdown_mode else m for m in modes) + "\n")
    src = "mlxconfig/ERR_cx5-oci_mstconfig-4.33-lockdown_failed-to-open_vs-4.32-ok_ibdev2netdev-bnxt_mstflint-issue1371_FRAGMENT.txt"
    r.command(mstconfig("0000:3b:00.0"), b"-E- Failed to open the device\n", exit=3)
    r.command(["mstconfig", "-v"], version_text("4.33.0"))
    r.source(f"From `{src}` (mstflint issue #1371): the card (ConnectX-5 Ex, OCI 7359059, "
             "15b3:1019 per MT4121), BDFs 0000:3b:00.0/.1, mlx5_0/mlx5_1, netdevs ens2f0np0/ens2f1np1, "
             "fw 16.35.4506, ports ACTIVE (ibdev2netdev -v), and the error `-E- Failed to open the "
             "device` that mstconfig 4.33 printed under kernel lockdown (exit status 3 as documented in "
             "DATA-SOURCES.md 4.2).")
    r.source(f"Reconstructed: `sys/kernel/security/lockdown` = `{lockdown_mode}` selected (the issue "
             "does not say which mode); `mstconfig -v` text in the 4.21 wording with the version 4.33.0 "
             "the issue names; the sysfs file layout; dev_port 0.")
    if lockdown_mode == "none":
        r.source("With lockdown `none` hwcheck runs mstconfig and reports its error as a status "
                 "(the replayed answer is the lockdown failure of the capture).")
    else:
        r.source("With lockdown active hwcheck does not run any mstflint tool: every "
                 "mstflint-derived fact is `blocked` with the reason.")
    r.done("ConnectX-5 Ex, mstconfig under kernel lockdown (" + lockdown_mode + ")")


def multi_card():
    r = Root("mlx-multi-card")
    # ConnectX-3 Pro (mlx4: one function, two ports)
    r.function("0000:0c:00.0", 0x1007, driver="mlx4_core", netdevs=["ens4", "ens4d1"], rdma=["mlx4_0"])
    r.command(mstconfig("0000:0c:00.0"),
              corpus("mlxconfig/cx3pro-hp544plus_mlxconfig-q_link-type-vpi_pve_skyao.txt"))
    text = corpus("mlxconfig/cx3pro-hp_mstflint-query_v4.29-ok_v4.30-segfault_mstflint-issue1157.txt")
    start = text.index(b"Image type:")
    r.command(flint("0000:0c:00.0"), text[start:])
    # ConnectX-2 EN: an id hwcheck's table does not know, and mstconfig refuses it
    r.function("0000:06:00.0", 0x6750, driver="mlx4_core", revision=0xb0)
    r.command(mstconfig("0000:06:00.0"), b"-E- Unsupported device\n", exit=3)
    # ConnectX-6 Dx on an AMD host: flint query and mget_temp 88
    r.function("0000:41:00.0", 0x101D)
    r.function("0000:41:00.1", 0x101D)
    fl = corpus("mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt")
    first = fl[fl.index(b"Image type:"):]
    first = first[:first.index(b"Security Attributes:")]
    first += b"Security Attributes:   N/A\n"
    r.command(flint("0000:41:00.0"), first)
    mt = corpus("temperature/cx6dx_mget_temp_88C_notes-cn.txt")
    r.command(["mstmget_temp", "-d", "0000:41:00.0"], mt[mt.index(b"\n") + 1:])
    r.command(["mstconfig", "-v"], version_text("4.25.0"))
    r.command_timeout(["mstreg", "-d", "0000:41:00.0", "--reg_name", "MPEIN", "--get", "--indexes",
                       "node=0x0,pcie_index=0x0,depth=0x0"])
    # a Mellanox PCIe bridge (inside a card) is not an adapter
    r.function("0000:40:00.0", 0x1976, cls="0x060400", driver="pcieport")
    r.other_device("0000:00:01.0", 0x8086, 0x2f02, "0x060400")
    r.source("0000:0c:00.0 ConnectX-3 Pro (15b3:1007): `mstconfig` stdout verbatim "
             "`mlxconfig/cx3pro-hp544plus_mlxconfig-q_link-type-vpi_pve_skyao.txt` (HP 544+, LINK_TYPE "
             "VPI(3), SRIOV_EN True(1), NUM_OF_VFS 16); `mstflint q` stdout = the v4.29 query of "
             "`mlxconfig/cx3pro-hp_mstflint-query_v4.29-ok_v4.30-segfault_mstflint-issue1157.txt` from "
             "`Image type:` on (FW 2.42.5044, PSID HP_1370110017, FS2). Two captures of two HP ConnectX-3 "
             "Pro hosts joined on one card. Reconstructed: the BDF (0c:00.0 is the issue's), netdevs "
             "ens4/ens4d1 and mlx4_0 without sysfs attributes (none captured).")
    r.source("0000:06:00.0 ConnectX-2 EN (15b3:6750): mstconfig `-E- Unsupported device` from "
             "`mlxconfig/ERR_connectx2_mstconfig-e-q_unsupported-device_mstflint-issue4_FRAGMENT.txt` "
             "(the issue ran `mstconfig -e -d 06:00.0 q`; the device id 6750 is reconstructed from the "
             "corpus ConnectX-2 dmesg fragment `dmesg/connectx2-15b3-6750_...`). RECONSTRUCTED: the PCI "
             "revision 0xb0, ConnectX-2's (mstflint's dev_mgt table before 8e08c36: ConnectX2 is hw "
             "revision 0xb0; ConnectX shares the id at 0xa0), since the issue names the card ConnectX-2: "
             "hwcheck names it ConnectX-2 EN from it. hwcheck runs no mstflint tool on this card "
             "with an mstflint of 4.21 or later (mstflint dropped ConnectX and ConnectX-2 in 4.21, its "
             "8e08c36): the recorded mstconfig answer stays as the capture that shows the tool refusing "
             "it, and an older mstflint is asked (tests/mlx/test_mlx.py test_version_decides).")
    r.source("0000:41:00.0/.1 ConnectX-6 Dx (15b3:101d) on the AMD-107 host: `mstflint q` = the first "
             "(CX6 Dx, 22.27.1016, PSID MT_0000000359) query of "
             "`mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt` up to its "
             "`Security Attributes:` line; `mstmget_temp` stdout `88` from "
             "`temperature/cx6dx_mget_temp_88C_notes-cn.txt` (MFT's mget_temp on the same host; "
             "mstflint's mstmget_temp prints the same single integer). mstreg was not captured: MTMP "
             "replays as not in this capture and the temperature comes from mstmget_temp.")
    r.source("`mstconfig -v`: reconstructed 4.21 wording with version 4.25.0, the last mstflint whose "
             "mstconfig takes a ConnectX-3 Pro (4.26's 52eb6c0e removed it; mstflint issue #590), so that "
             "hwcheck asks mstconfig of the ConnectX-3 Pro and the recorded answer is one this version "
             "gives (the fixture had 4.29.0, the version issue #1157 ran, until mstconfig's refusal of "
             "ConnectX-3 from 4.26 on was known to hwcheck). Not consistent either: mstmget_temp came in "
             "mstflint 4.31 (8eda5f08), so no single mstflint answers every recording here. 0000:40:00.0 is a reconstructed Mellanox ConnectX-6 PCIe bridge (15b3:1976, class "
             "0604, name from pci.ids) and 0000:00:01.0 an Intel root port: neither is an adapter.")
    r.source("Synthetic: the MPEIN query of 0000:41:00.0 is recorded as timed out (`timeout=1`), to "
             "show a tool that did not answer in time; no capture of MPEIN exists in the corpus.")
    r.done("three cards (and a bridge), errors and successes, one run in parallel")


def cx3pro_segfault():
    r = Root("mlx-cx3pro-flint-segfault")
    r.function("0000:0c:00.0", 0x1007, driver="mlx4_core")
    r.command(flint("0000:0c:00.0"), b"", exit=0, signal=11)
    r.command(["mstconfig", "-v"], version_text("4.30.0"))
    r.source("`mlxconfig/cx3pro-hp_mstflint-query_v4.29-ok_v4.30-segfault_mstflint-issue1157.txt`: "
             "`mstflint -d 0c:00.0 query` on mstflint v4.30 died with SIGSEGV (`Segmentation fault "
             "(core dumped)` is the shell's message, not the tool's output): recorded as `signal=11` "
             "with empty stdout for hwcheck's `mstflint -d 0000:0c:00.0 q`.")
    r.source("Reconstructed: `mstconfig -v` in the 4.21 wording with the version 4.30.0 the issue names; "
             "the PCI function (15b3:1007 from the issue's lspci line). mstconfig/mstreg not captured.")
    r.done("ConnectX-3 Pro, mstflint query killed by SIGSEGV (mstflint 4.30)")


def cx6_ports():
    r = Root("mlx-cx6-ports")
    r.function("0000:01:00.0", 0x101B, netdevs=["enp1s0f0np0"], rdma=["mlx5_0"], hwmon=["hwmon2"])
    r.function("0000:01:00.1", 0x101B, netdevs=["enp1s0f1np1"], rdma=["mlx5_1"], hwmon=["hwmon3"])
    port = {"state": "1: DOWN", "phys_state": "3: Disabled", "rate": "200 Gb/sec (4X HDR)",
            "link_layer": "Ethernet"}
    r.rdma("mlx5_0", "20.35.2000", None, {1: dict(port, **{"gid_attrs/ndevs/0": "enp1s0f0np0"})})
    r.rdma("mlx5_1", "20.35.2000", None, {1: dict(port, **{"gid_attrs/ndevs/0": "enp1s0f1np1"})})
    r.netdev("enp1s0f0np0", dev_port=0, mtu=1500)
    r.netdev("enp1s0f1np1", dev_port=0, mtu=9000)
    r.source("`sys/class/infiniband/mlx5_{0,1}`: fw 20.35.2000, port 1 state `1: DOWN`, phys_state "
             "`3: Disabled`, rate `200 Gb/sec (4X HDR)`, link_layer Ethernet from "
             "`ibverbs/cx6-mt4123_ibstat_ibstatus_eth-down_ANNOTATED.txt` (ibstatus prints these sysfs "
             "files as they are; CA type MT4123 = 15b3:101b ConnectX-6).")
    r.source("Reconstructed: BDFs 0000:01:00.0/.1, netdev names and their MTUs (1500, 9000), "
             "gid_attrs/ndevs/0 naming the netdevs, hwmon directory names; no mstflint tool was "
             "captured (they replay as not in this capture).")
    r.done("ConnectX-6 ports from sysfs (Ethernet, down)")


def azure_vf():
    r = Root("mlx-azure-vf")
    for dom in range(0x101, 0x109):
        bdf = f"{dom:04x}:00:00.0"
        r.function(bdf, 0x101C, cls="0x020700", rdma=[f"mlx5_{dom - 0x101}"])
    r.function("c941:00:02.0", 0x1016, cls="0x020000", netdevs=["enP51521s1"], rdma=["mlx5_8"])
    r.write("sys/kernel/security/lockdown", "[none] integrity confidentiality\n")
    r.source("The nine Mellanox functions of `lspci/azure-a100-vm_lspci-nn_8x-cx6-vf-101c_cx4lx-vf-"
             "1016_hyperv-domains_gpud-testdata.txt` (leptonai/gpud testdata): eight ConnectX-6 VFs "
             "(15b3:101c, class 0207) at 0101:00:00.0 .. 0108:00:00.0 and a ConnectX-4 Lx VF "
             "(15b3:1016, class 0200) at c941:00:02.0, with no PF and no physfn link (a Hyper-V VM).")
    r.source("Reconstructed: driver links, RDMA device names mlx5_0..mlx5_8 and the netdev name of the "
             "ConnectX-4 Lx VF (none captured); lockdown `none`. No mstflint tool was captured: "
             "they replay as not in this capture. Expected: nine adapters, each a VF whose PF is not visible.")
    r.done("VF-only virtual machine (Azure A100 VM)")


def cx5ex_vf_ethtool():
    r = Root("mlx-cx5ex-vf-ethtool")
    r.function("0000:00:08.0", 0x101A, netdevs=["ens8np0"])
    text = corpus("ethtool/cx5ex-vf_ethtool-i_fw16.27.2008_xdp-newbies-2020.txt")
    r.command(["ethtool", "-i", "ens8np0"], text[text.index(b"\n") + 1:])
    r.source("`ethtool -i ens8np0/stdout`: `ethtool/cx5ex-vf_ethtool-i_fw16.27.2008_xdp-newbies-2020.txt` "
             "without its prompt line (mail-mangled: a blank line after every line, kept). "
             "firmware-version `16.27.2008 (MT_0000000013)`, bus-info 0000:00:08.0.")
    r.source("Reconstructed: the PCI function 0000:00:08.0 with the ConnectX-5 Ex VF id 15b3:101a (the "
             "capture names a ConnectX-5 Ex VF in a VM), no RDMA device, so the firmware version "
             "comes from ethtool. No mstflint tool: the card is VF-only, so none is asked.")
    r.done("ConnectX-5 Ex VF in a VM: firmware version from ethtool -i")


def bf2_functions():
    r = Root("mlx-bf2-functions")
    r.function("0000:06:00.0", 0xA2D6, netdevs=["enp6s0f0np0"])
    r.function("0000:06:00.1", 0xA2D6, netdevs=["enp6s0f1np1"])
    r.function("0000:06:00.2", 0xC2D1, driver=None)
    r.function("0000:06:00.3", 0xC2D3, cls="0x080100", driver=None)
    r.source("The four functions of `mlxconfig/bf2-dell-0JNDCM_lspci-grep_mlxfwmanager-online_blog.txt` "
             "(`lspci | grep Mellanox`): 06:00.0/.1 BlueField-2 integrated ConnectX-6 Dx (15b3:a2d6), "
             "06:00.2 `Device c2d1` (class Ethernet), 06:00.3 BlueField-2 SoC Management Interface "
             "(DMA controller; id c2d3 and class 0801 from pci.ids, not in the capture).")
    r.source("Reconstructed: domain 0000, netdev names, no drivers on .2/.3; the mlxfwmanager part of "
             "the capture is not an input of hwcheck. No mstflint tool captured (replays as not "
             "in this capture). Expected: one card 0000:06:00.0 with four functions.")
    r.done("BlueField-2: four functions of one card")


def cx5_flash_recovery():
    r = Root("mlx-cx5-flash-recovery")
    # the card alone, as its flash recovery function: no driver binds it, no netdev, no RDMA device
    r.function("0000:01:00.0", 0x020D, cls="0x058000", driver=None)
    r.source("real-quoted: the `lspci -vnn` line of a ConnectX-5 (Innova-2 Flex, MNV303212A-ADLT) in flash "
             "recovery, `Memory controller [0580]: Mellanox Technologies MT28800 Family [ConnectX-5 Flash "
             "Recovery] [15b3:020d]`, and its address 01:00.0 (`mstflint --device 01:00.0 ...`), from "
             "mwrnd/innova2_flex_xcku15p_notes README.md (section on forcing recovery mode; the card of "
             "its issue #2 arrived that way, 2023-04-26).")
    r.source("RECONSTRUCTED from that line: domain 0000, the sysfs layout, class 0x058000 (0580 with "
             "programming interface 00), no driver bound (neither mlx5_core's nor mlx4_core's PCI id "
             "table lists 020d), no net/ or infiniband/ directory, no PCI revision, no config space. No "
             "tool is recorded: hwcheck runs no mstflint tool on a card in flash recovery.")
    r.done("ConnectX-5 in flash recovery (15b3:020d): MLX_FLASH_RECOVERY")


def main():
    global CORPUS
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", default=os.path.join(HERE, "..", "captures"))
    CORPUS = p.parse_args().corpus
    cx4lx_nextboot()
    cx6lx_fragment()
    cx5_oci("mlx-cx5-lockdown", "integrity")
    cx5_oci("mlx-cx5-open-failed", "none")
    multi_card()
    cx6_ports()
    azure_vf()
    cx3pro_segfault()
    cx5ex_vf_ethtool()
    bf2_functions()
    cx5_flash_recovery()


if __name__ == "__main__":
    main()

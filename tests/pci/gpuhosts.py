# SPDX-License-Identifier: MIT
# GPU hosts for the GPUDirect view (issue 15): whole PCI trees with GPUs, ConnectX NICs and the
# bridges between them, written as sysfs roots + lspci -xxxx dumps by mkhost (see each fixture's
# SOURCE.md for what is real and what is reconstructed).
#   python3 tests/pci/gpuhosts.py tests/fixtures      rewrites their root/sys trees and dumps
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hosts  # noqa: E402
import mkhost  # noqa: E402
import rebuild  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ACS_ALL = 0x7f          # SrcValid TransBlk ReqRedir CmpltRedir UpstreamFwd EgressCtrl DirectTrans
ACS_LINUX = 0x1d        # what Linux enables with an IOMMU: SrcValid ReqRedir CmpltRedir UpstreamFwd
AMD_RP_ACS = 0x5f       # Genoa root port ACSCap (reconstructed): all but EgressCtrl


def rp(bdf, sec, sub, numa, group, lnk=(32, 16), acs=(AMD_RP_ACS, 0), name="AMD root port"):
    return dict(bdf=bdf, parent=None, vendor=0x1022, device=0x14ab, type="rp",
                primary=int(bdf[5:7], 16), secondary=sec, subordinate=sub, mps_sup=512, mps=512,
                mrrs=512, lnkcap=lnk, lnksta=lnk, lnkcap_extra=0x100000, lnksta_extra=0x2000,
                slot=(75, group), numa=numa, driver="pcieport", iommu_group=group, acs=acs,
                devcap2=0x40, name=f"PCI bridge: {name} (reconstructed)")


# ---- ASUS ESC8000A-E12 (stelline report): 4 RTX 6000 Ada, 2 ConnectX-7, AMD Genoa 2 sockets ----

ASUS = "gpu-asus-esc8000a-4gpu-2cx7"
# the report's `sudo lspci -vvv -s BUS:00.0` outputs, kept verbatim in the fixture's capture/
ASUS_CAPTURES = ["lspci-vvv-%s-00.0.txt" % b for b in ("01", "21", "41", "81", "c1", "e1")]


def asus_funcs(report_text):
    """The captured -vvv blocks (GPUs, ConnectX-7) rebuilt, placed on the lspci -tv tree."""
    numa = {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) .*?\n(?:.*\n){0,8}?\s+NUMA node: (\d+)",
                        report_text, re.M)}
    cap = {d["bdf"]: d for d in rebuild.parse_capture(report_text)}
    ports = {"01": "0000:00:01.1", "41": "0000:40:01.1", "c1": "0000:c0:01.1", "e1": "0000:e0:01.1",
             "21": "0000:20:03.1", "81": "0000:80:01.1", "02": "0000:00:05.1"}
    funcs, group = [], 10
    for bus, port in ports.items():
        node = 0 if int(bus, 16) < 0x80 else 1
        funcs.append(rp(port, int(bus, 16), int(bus, 16), node, group, (16, 16) if bus not in ("21", "81") else (32, 16)))
        group += 1
    for bdf, d in sorted(cap.items()):
        short = bdf[5:]
        if short[:2] not in ports or short[:2] == "02":
            continue  # the HighPoint NVMe carriers are not rebuilt (their switch trees are not captured)
        d.update(parent=ports[short[:2]], numa=numa[short], iommu_group=group,
                 driver="nvidia" if d["vendor"] == 0x10de else "mlx5_core", multifunction=True)
        group += 1
        funcs.append(d)
        if d["vendor"] == 0x15b3:  # the second port (function 1), not captured: a copy of function 0
            f1 = dict(d, bdf=bdf[:-1] + "1", iommu_group=group, vpd_cap=False)
            group += 1
            funcs.append(f1)
    funcs.append(dict(bdf="0000:02:00.0", parent="0000:00:05.1", vendor=0x144d, device=0xa808,
                      type="ep", mps_sup=256, mps=256, mrrs=512, lnkcap=(8, 4), lnksta=(8, 4),
                      numa=0, driver="nvme", iommu_group=group,
                      name="Non-Volatile memory controller: Samsung SM981/PM981/PM983 (reconstructed)"))
    funcs[-1]["class"] = 0x010802
    return sorted(funcs, key=lambda d: d["bdf"])


# ---- HGX H100-class: 8 GPUs and 8 ConnectX-7, one PCIe switch per GPU/NIC pair -------------

def gpu(bdf, parent, numa, group):
    # H100 SXM5 (10de:2330, 3D controller), Gen5 x16, 10-bit tags, no AtomicOps completer
    return dict(bdf=bdf, parent=parent, vendor=0x10de, device=0x2330, **{"class": 0x030200}, type="ep",
                mps_sup=256, mps=256, mrrs=512, ro=True, ext_tag=True, lnkcap=(32, 16),
                lnksta=(32, 16), devcap2=0x30000, numa=numa, driver="nvidia", iommu_group=group,
                name="3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (reconstructed)")


def cx7(bdf, parent, numa, group):
    d = hosts.cx7(bdf, parent, numa, 0, hosts.CX7_VPD, group)
    d.update(multifunction=False, devcap2=0x30380, devctl2=0x40, acs=(0, 0))
    return d


def switch(root, usp_bus, numa, group, acs_ctl, n_dsp=2):
    """A Broadcom PEX890xx (1000:c030): upstream port and its downstream ports."""
    out = [dict(bdf=f"0000:{usp_bus:02x}:00.0", parent=root, vendor=0x1000, device=0xc030, type="usp",
                primary=usp_bus, secondary=usp_bus + 1, subordinate=usp_bus + 1 + n_dsp, mps_sup=512,
                mps=256, mrrs=512, lnkcap=(32, 16), lnksta=(32, 16), numa=numa, driver="pcieport",
                iommu_group=group, devcap2=0x40, name="PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch")]
    for i in range(n_dsp):
        out.append(dict(bdf=f"0000:{usp_bus + 1:02x}:{i:02x}.0", parent=out[0]["bdf"], vendor=0x1000,
                        device=0xc030, type="dsp", primary=usp_bus + 1, secondary=usp_bus + 2 + i,
                        subordinate=usp_bus + 2 + i, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16),
                        lnksta=(32, 16), lnkcap_extra=0x100000, lnksta_extra=0x2000, slot=(75, usp_bus + i),
                        numa=numa, driver="pcieport", iommu_group=group + 1 + i, acs=(ACS_ALL, acs_ctl),
                        devcap2=0x40, name="PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch"))
    return out


# root bus per pair: four per socket (one Sapphire-Rapids-style PCIe stack each)
HGX_ROOTS = [0x15, 0x37, 0x48, 0x59, 0x97, 0xa8, 0xb9, 0xca]


def hgx(acs_ctl=0, moved_nic=None):
    """moved_nic=(from_pair, to_pair): that pair's NIC sits on the other pair's switch."""
    funcs = []
    for i, rb in enumerate(HGX_ROOTS):
        numa = 0 if i < 4 else 1
        root = f"0000:{rb:02x}:01.0"
        usp = rb + 1
        funcs.append(rp(root, usp, usp + 4, numa, 100 + i * 10, acs=(ACS_ALL, ACS_LINUX if acs_ctl else 0),
                        name="root port"))
        funcs[-1].update(vendor=0x8086, device=0x352a)
        n_dsp = 3 if moved_nic and i == moved_nic[1] else 2
        sw = switch(root, usp, numa, 101 + i * 10, acs_ctl, n_dsp)
        funcs += sw
        funcs.append(gpu(f"0000:{usp + 2:02x}:00.0", sw[1]["bdf"], numa, 105 + i * 10))
        if not (moved_nic and i == moved_nic[0]):
            funcs.append(cx7(f"0000:{usp + 3:02x}:00.0", sw[2]["bdf"], numa, 106 + i * 10))
        if n_dsp == 3:
            funcs.append(cx7(f"0000:{usp + 4:02x}:00.0", sw[3]["bdf"], numa, 107 + i * 10))
    return funcs


def peer_memory(root, peermem=True, version="535.129.03"):
    mod = os.path.join(root, "sys", "module")
    os.makedirs(os.path.join(mod, "nvidia"), exist_ok=True)
    with open(os.path.join(mod, "nvidia", "version"), "w") as f:
        f.write(version + "\n")
    for m in ("mlx5_core", "mlx5_ib", "ib_core"):
        os.makedirs(os.path.join(mod, m), exist_ok=True)
        with open(os.path.join(mod, m, "initstate"), "w") as f:
            f.write("live\n")
    if peermem:
        os.makedirs(os.path.join(mod, "nvidia_peermem"), exist_ok=True)
        with open(os.path.join(mod, "nvidia_peermem", "initstate"), "w") as f:
            f.write("live\n")


def iommu(root, funcs, mode):
    """mode "off": no IOMMU unit; "dma": one unit and every group translated (DMA-FQ)."""
    cls = os.path.join(root, "sys", "class", "iommu")
    os.makedirs(cls, exist_ok=True)
    if mode == "off":
        open(os.path.join(cls, ".hwcheck-keep"), "w").close()
        return
    os.makedirs(os.path.join(cls, "dmar0"), exist_ok=True)
    open(os.path.join(cls, "dmar0", ".hwcheck-keep"), "w").close()
    for g in sorted({d["iommu_group"] for d in funcs}):
        gd = os.path.join(root, "sys", "kernel", "iommu_groups", str(g))
        os.makedirs(gd, exist_ok=True)
        with open(os.path.join(gd, "type"), "w") as f:
            f.write("DMA-FQ\n")


def write(fixtures, name, funcs, peermem=True, iommu_mode="off"):
    hosts.write(fixtures, name, funcs)
    peer_memory(os.path.join(fixtures, name, "root"), peermem)
    iommu(os.path.join(fixtures, name, "root"), funcs, iommu_mode)


def main():
    fixtures = sys.argv[1]
    text = ""
    for name in ASUS_CAPTURES:
        with open(os.path.join(fixtures, ASUS, "capture", name)) as f:
            text += f.read()
    asus = asus_funcs(text)
    write(fixtures, ASUS, asus)
    write(fixtures, "gpu-hgx-8gpu-healthy", hgx())
    write(fixtures, "gpu-hgx-8gpu-acs-redirect", hgx(acs_ctl=ACS_LINUX), peermem=False, iommu_mode="dma")
    write(fixtures, "gpu-hgx-8gpu-nic-wrong-socket", hgx(moved_nic=(3, 5)))


if __name__ == "__main__":
    main()

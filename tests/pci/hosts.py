# SPDX-License-Identifier: MIT
# The whole-host PCI fixtures, as register values taken from real captures (see each host's
# SOURCE.md). `python3 tests/pci/hosts.py tests/fixtures` rewrites their root/sys trees; the
# trees are committed, this file says where every value came from.
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkhost  # noqa: E402

# DevCap bits seen in the ConnectX-7 capture: L0s/L1 latency unlimited, ExtTag+, RBE+, FLReset+
CX7_DEVCAP = 0x7 << 6 | 0x7 << 9 | 0x20 | 0x8000 | 0x10000000
CX7_VPD = mkhost.vpd_bytes(
    "NVIDIA ConnectX-7 Adapter Card, 200GbE / NDR200, Dual-port QSFP112, PCIe 5.0x16 with x16 PCIe "
    "extension option, Crypto Disabled, Secure Boot Enabled",
    [("PN", "MCX755106AS-HEAT"), ("EC", "A8"), ("V2", "MCX755106AS-HEAT"), ("SN", "MT24216006W0"),
     ("V0", "PCIeGen5 x16")])
CX7_VPD_81 = mkhost.vpd_bytes(
    "NVIDIA ConnectX-7 Adapter Card, 200GbE / NDR200, Dual-port QSFP112, PCIe 5.0x16 with x16 PCIe "
    "extension option, Crypto Disabled, Secure Boot Enabled",
    [("PN", "MCX755106AS-HEAT"), ("EC", "A8"), ("V2", "MCX755106AS-HEAT"), ("SN", "MT24426016T3"),
     ("V0", "PCIeGen5 x16")])


def cx7(bdf, parent, numa, fn, vpd, group):
    return dict(bdf=bdf, parent=parent, vendor=0x15b3, device=0x1021, subsys=(0x15b3, 0x0040),
                 type="ep", multifunction=True, mps_sup=512, mps=512, mrrs=512, ro=True,
                ext_tag=True, no_snoop=True, slot_power=75, devcap_extra=CX7_DEVCAP,
                devctl_extra=0x7, devsta=0x9, lnkcap=(32, 16), lnkcap_extra=0x400000,
                lnksta=(32, 16), lnksta_extra=0x1000, sriov=(16, 0, 0x101e), numa=numa,
                driver="mlx5_core", iommu_group=group, vpd_cap=fn == 0, vpd=vpd if fn == 0 else None,
                name="Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]")


def genoa_rp(bdf, sec, numa, group):
    return dict(bdf=bdf, parent=None, vendor=0x1022, device=0x14ab, type="rp", primary=int(bdf[5:7], 16),
                secondary=sec, subordinate=sec, mps_sup=512, mps=512, mrrs=512, lnkcap=(32, 16),
                lnksta=(32, 16), lnkcap_extra=0x100000, lnksta_extra=0x2000, slot=(75, 3), numa=numa,
                driver="pcieport", iommu_group=group, name="PCI bridge: AMD root port (reconstructed)")


HOSTS = {
    # ASUS ESC8000A-E12 (AMD Genoa, 2 NUMA nodes), two ConnectX-7 at Gen5 x16: all healthy.
    "host-cx7-gen5-healthy": [
        genoa_rp("0000:20:03.1", 0x21, 0, 10),
        cx7("0000:21:00.0", "0000:20:03.1", 0, 0, CX7_VPD, 11),
        cx7("0000:21:00.1", "0000:20:03.1", 0, 1, None, 12),
        genoa_rp("0000:80:01.1", 0x81, 1, 40),
        cx7("0000:81:00.0", "0000:80:01.1", 1, 0, CX7_VPD_81, 41),
        cx7("0000:81:00.1", "0000:80:01.1", 1, 1, None, 42),
    ],
}


def cx6_ocp3(bdf, parent, lnksta, slot_power):
    # ConnectX-6 (mt4123 = 15b3:101b) OCP 3.0 card: capable of 16 GT/s x16 (mlxlink "(16G-Gen 4)",
    # "(16X)"; dmesg "capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link")
    return dict(bdf=bdf, parent=parent, vendor=0x15b3, device=0x101b, subsys=(0x15b3, 0x0007),
                type="ep", mps_sup=512, mps=256, mrrs=512, ro=True, ext_tag=True, no_snoop=True,
                slot_power=slot_power, devcap_extra=0x20 | 0x8000 | 0x10000000, lnkcap=(16, 16),
                lnksta=lnksta, numa=-1, driver="mlx5_core", iommu_group=14,
                name="Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]")


# Z690 desktop (skyao notes): the card in the PCH's x4 slot trains at Gen1 x4 ...
HOSTS["host-cx6-ocp3-gen1-x4"] = [
    dict(bdf="0000:00:1b.4", parent=None, vendor=0x8086, device=0x7ac4, type="rp", primary=0,
         secondary=4, subordinate=4, mps_sup=256, mps=256, mrrs=512, lnkcap=(16, 4),
         lnkcap_extra=0x100000, lnksta=(2.5, 4), lnksta_extra=0x2000, slot=(25, 12), numa=-1,
         driver="pcieport", iommu_group=13, name="PCI bridge: Intel PCH root port (reconstructed)"),
    cx6_ocp3("0000:04:00.0", "0000:00:1b.4", (2.5, 4), 25),
]
# ... and in the CPU's Gen4 x16 slot at Gen3 x16 ("Speed 8GT/s (downgraded), Width x16 (ok)").
HOSTS["host-cx6-ocp3-gen3-x16"] = [
    dict(bdf="0000:00:01.0", parent=None, vendor=0x8086, device=0x460d, type="rp", primary=0,
         secondary=1, subordinate=1, mps_sup=256, mps=256, mrrs=512, lnkcap=(16, 16),
         lnkcap_extra=0x100000, lnksta=(8, 16), lnksta_extra=0x2000, slot=(75, 1), numa=-1,
         driver="pcieport", iommu_group=1, name="PCI bridge: Intel PEG root port (reconstructed)"),
    cx6_ocp3("0000:01:00.0", "0000:00:01.0", (8, 16), 75),
]
# A ConnectX-6 Dx at Gen4 x16 behind a PCIe switch whose uplink trained at Gen3 x16: the card's
# own link is fine, the path is not (values of the CX6 Dx from corpus/mlxlink cx6dx Gen4 x16 and
# lspci/cx6dx-mt28841 fragment: MPS 256 of 512, MRRS 4096, RO+, 75 W).
HOSTS["host-switch-slow-hop"] = [
    dict(bdf="0000:00:01.0", parent=None, vendor=0x1022, device=0x1483, type="rp", primary=0,
         secondary=1, subordinate=4, mps_sup=512, mps=256, mrrs=512, lnkcap=(16, 16),
         lnkcap_extra=0x100000, lnksta=(8, 16), lnksta_extra=0x2000, slot=(75, 1), numa=0,
         driver="pcieport", iommu_group=1, name="PCI bridge: root port (reconstructed)"),
    dict(bdf="0000:01:00.0", parent="0000:00:01.0", vendor=0x10b5, device=0xc010, type="usp",
         primary=1, secondary=2, subordinate=4, mps_sup=512, mps=256, mrrs=512, lnkcap=(16, 16),
         lnksta=(8, 16), numa=0, driver="pcieport", iommu_group=2,
         name="PCI bridge: PCIe switch upstream port (reconstructed)"),
    dict(bdf="0000:02:00.0", parent="0000:01:00.0", vendor=0x10b5, device=0xc010, type="dsp",
         primary=2, secondary=3, subordinate=3, mps_sup=512, mps=256, mrrs=512, lnkcap=(16, 16),
         lnkcap_extra=0x100000, lnksta=(16, 16), lnksta_extra=0x2000, slot=(75, 2), numa=0,
         driver="pcieport", iommu_group=3, name="PCI bridge: PCIe switch downstream port (reconstructed)"),
    dict(bdf="0000:02:01.0", parent="0000:01:00.0", vendor=0x10b5, device=0xc010, type="dsp",
         primary=2, secondary=4, subordinate=4, mps_sup=512, mps=256, mrrs=512, lnkcap=(16, 4),
         lnkcap_extra=0x100000, lnksta=(16, 4), lnksta_extra=0x2000, slot=(25, 3), numa=0,
         driver="pcieport", iommu_group=4, name="PCI bridge: PCIe switch downstream port (reconstructed)"),
    dict(bdf="0000:03:00.0", parent="0000:02:00.0", vendor=0x15b3, device=0x101d,
         subsys=(0x15b3, 0x0016), type="ep", mps_sup=512, mps=256, mrrs=4096, ro=True,
         ext_tag=True, no_snoop=True, slot_power=75, lnkcap=(16, 16), lnksta=(16, 16),
         sriov=(8, 2, 0x101e), numa=0, driver="mlx5_core", iommu_group=5, aer_counts=(3, 0, 0),
         devsta=0x9, name="Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]"),
    dict(bdf="0000:03:00.2", parent="0000:02:00.0", vendor=0x15b3, device=0x101e,
         subsys=(0x15b3, 0x0016), type="ep", mps_sup=512, mps=128, mrrs=512, lnkcap=(16, 16),
         lnksta=(16, 16), physfn="0000:03:00.0", numa=0, driver="mlx5_core", iommu_group=6,
         aer=False, name="Ethernet controller: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function"),
    dict(bdf="0000:03:00.3", parent="0000:02:00.0", vendor=0x15b3, device=0x101e,
         subsys=(0x15b3, 0x0016), type="ep", mps_sup=512, mps=128, mrrs=512, lnkcap=(16, 16),
         lnksta=(16, 16), physfn="0000:03:00.0", numa=0, driver="mlx5_core", iommu_group=7, vf_ids_ffff=True,
         aer=False, name="Ethernet controller: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function"),
    dict(bdf="0000:04:00.0", parent="0000:02:01.0", vendor=0x144d, device=0xa80a, 
         type="ep", mps_sup=256, mps=256, mrrs=512, lnkcap=(16, 4), lnksta=(16, 4), slot_power=25,
         numa=0, driver="nvme", iommu_group=8, name="Non-Volatile memory controller (reconstructed)"),
]
# HPE CX555A (ConnectX-5, Gen3 x16) in an x8 slot: "63.008 Gb/s available PCIe bandwidth,
# limited by 8.0 GT/s PCIe x8 link at 0001:42:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe
# x16 link)", "PCIe slot advertised sufficient power (27W)". The port's LnkCap is x8 here (an x16
# slot wired x8): the card is slot-limited, not downgraded.
HOSTS["host-cx5-x8-slot"] = [
    dict(bdf="0001:42:01.0", parent=None, vendor=0x8086, device=0x2030, type="rp", primary=0x42,
         secondary=0x43, subordinate=0x43, mps_sup=256, mps=256, mrrs=512, lnkcap=(8, 8),
         lnkcap_extra=0x100000, lnksta=(8, 8), lnksta_extra=0x2000, slot=(27, 4), numa=0,
         driver="pcieport", iommu_group=30, name="PCI bridge: root port (reconstructed)"),
    dict(bdf="0001:43:00.0", parent="0001:42:01.0", vendor=0x15b3, device=0x1017,
         subsys=(0x1590, 0x00d4), type="ep", mps_sup=512, mps=256, mrrs=512, ro=True, ext_tag=True,
         no_snoop=True, slot_power=27, lnkcap=(8, 16), lnksta=(8, 8), sriov=(8, 0, 0x1018), numa=0,
         driver="mlx5_core", iommu_group=31,
         name="Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]"),
]
# Four rails behind one PCIe switch (the DGX A100/HGX pattern of NICs sharing a switch uplink):
# ConnectX-7 MCX75310AAS-NEAT (400G NDR, single port, Gen5 x16, MPS 256 of 512, MRRS 512, 75 W,
# Infiniband class) as in corpus lspci/cx7-400g-ndr-mcx75310aas_lspci-vv_gen5-x16-ok_mps256_...;
# every link trained Gen5 x16, so each card alone has 460.9 Gb/s of payload and the four together
# share the same 460.9 Gb/s uplink. Switch and root port are reconstructed.
def cx7_400g(bdf, parent, group):
    return dict(bdf=bdf, parent=parent, vendor=0x15b3, device=0x1021, subsys=(0x15b3, 0x0040),
                type="ep", mps_sup=512, mps=256, mrrs=512, ro=True, ext_tag=True, no_snoop=True,
                slot_power=75, devcap_extra=CX7_DEVCAP, lnkcap=(32, 16), lnksta=(32, 16),
                sriov=(16, 0, 0x101e), numa=0, driver="mlx5_core", iommu_group=group,
                name="Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]")


HOSTS["host-rails-shared-uplink"] = [
    dict(bdf="0000:00:01.0", parent=None, vendor=0x1022, device=0x14ab, type="rp", primary=0,
         secondary=1, subordinate=6, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16),
         lnkcap_extra=0x100000, lnksta=(32, 16), lnksta_extra=0x2000, slot=(75, 1), numa=0,
         driver="pcieport", iommu_group=1, name="PCI bridge: root port (reconstructed)"),
    dict(bdf="0000:01:00.0", parent="0000:00:01.0", vendor=0x1000, device=0xc030, type="usp",
         primary=1, secondary=2, subordinate=6, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16),
         lnksta=(32, 16), numa=0, driver="pcieport", iommu_group=2,
         name="PCI bridge: PCIe switch upstream port (reconstructed)"),
] + [
    dict(bdf=f"0000:02:0{i}.0", parent="0000:01:00.0", vendor=0x1000, device=0xc030, type="dsp",
         primary=2, secondary=3 + i, subordinate=3 + i, mps_sup=512, mps=256, mrrs=512,
         lnkcap=(32, 16), lnkcap_extra=0x100000, lnksta=(32, 16), lnksta_extra=0x2000,
         slot=(75, 10 + i), numa=0, driver="pcieport", iommu_group=3 + i,
         name="PCI bridge: PCIe switch downstream port (reconstructed)") for i in range(4)
] + [cx7_400g(f"0000:0{3 + i}:00.0", f"0000:02:0{i}.0", 10 + i) for i in range(4)]
for d in HOSTS["host-rails-shared-uplink"]:
    if d["bdf"].endswith(":00.0") and d["vendor"] == 0x15b3:
        d["class"] = 0x020700
for d in HOSTS["host-switch-slow-hop"]:
    if d["bdf"] == "0000:04:00.0":
        d["class"] = 0x010802


def write(fixtures, name, funcs, config_size=4096):
    root = os.path.join(fixtures, name, "root")
    sysd = os.path.join(root, "sys")
    if os.path.isdir(sysd):
        shutil.rmtree(sysd)
    mkhost.build_host(root, funcs, config_size)
    with open(os.path.join(fixtures, name, "pci-dump.txt"), "w") as f:
        f.write(mkhost.dump_text(funcs, config_size))


def main():
    fixtures = sys.argv[1]
    for name, funcs in HOSTS.items():
        write(fixtures, name, funcs)
    # The healthy CX7 host as a non-root user sees it: 64 bytes of config per function.
    write(fixtures, "host-cx7-gen5-nonroot", HOSTS["host-cx7-gen5-healthy"], 64)


if __name__ == "__main__":
    main()

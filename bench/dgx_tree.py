# SPDX-License-Identifier: MIT
# A synthetic DGX-class PCI tree (sysfs under a fake root) for bench/pci_vs_lspci.sh: two root
# complexes, four PCIe switches, 8 GPUs, 10 ConnectX-7 PFs each with 100 SR-IOV VFs (1,000 VFs),
# 4 NVMe drives. The root ports and the switches' downstream ports carry ACS (capability all +,
# control SrcValid ReqRedir CmpltRedir UpstreamFwd as Linux sets it with an IOMMU), the GPUs and
# NICs DevCap2 10-bit tags and AtomicOps: what the GPUDirect view reads on every function.
# Usage: python3 bench/dgx_tree.py ROOT
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "pci"))
import mkhost  # noqa: E402

ACS = (0x7f, 0x1d)


def main(root):
    funcs = []
    bus = 1
    group = 1

    def add(**d):
        nonlocal group
        d.setdefault("iommu_group", group)
        group += 1
        funcs.append(d)
        return d

    pfs = 0
    for sw in range(4):
        rc = 0 if sw < 2 else 0x80
        numa = 0 if sw < 2 else 1
        rp = f"0000:{rc:02x}:{sw + 1:02x}.0"
        up_bus = rc + bus
        ports = [("gpu", 0), ("gpu", 1), ("nic", 0), ("nic", 1)] + ([("nvme", 0), ("nic", 2)] if sw < 2 else [("nvme", 0)])
        first = up_bus
        last = up_bus + 1 + len(ports)
        add(bdf=rp, parent=None, vendor=0x1022, device=0x14ab, type="rp", primary=rc, secondary=first,
            subordinate=last, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16), lnksta=(32, 16), numa=numa,
            driver="pcieport", slot=(75, sw + 1), acs=ACS, devcap2=0x40)
        usp = f"0000:{first:02x}:00.0"
        add(bdf=usp, parent=rp, vendor=0x1000, device=0xc030, type="usp", primary=first, secondary=first + 1,
            subordinate=last, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16), lnksta=(32, 16), numa=numa,
            driver="pcieport")
        for i, (kind, _) in enumerate(ports):
            dsp = f"0000:{first + 1:02x}:{i:02x}.0"
            sec = first + 2 + i
            add(bdf=dsp, parent=usp, vendor=0x1000, device=0xc030, type="dsp", primary=first + 1, secondary=sec,
                subordinate=sec, mps_sup=512, mps=256, mrrs=512, lnkcap=(32, 16), lnksta=(32, 16),
                numa=numa, driver="pcieport", slot=(75, 10 * sw + i), acs=ACS, devcap2=0x40)
            ep = f"0000:{sec:02x}:00.0"
            if kind == "gpu":
                add(bdf=ep, parent=dsp, vendor=0x10de, device=0x2330, type="ep",
                    mps_sup=256, mps=256, mrrs=512, lnkcap=(32, 16), lnksta=(32, 16), numa=numa, driver="nvidia",
                    devcap2=0x30000)
                funcs[-1]["class"] = 0x030200
            elif kind == "nvme":
                add(bdf=ep, parent=dsp, vendor=0x144d, device=0xa80a, type="ep", mps_sup=256, mps=256,
                    mrrs=512, lnkcap=(16, 4), lnksta=(16, 4), numa=numa, driver="nvme")
                funcs[-1]["class"] = 0x010802
            else:
                pfs += 1
                add(bdf=ep, parent=dsp, vendor=0x15b3, device=0x1021, subsys=(0x15b3, 0x0040), type="ep",
                    mps_sup=512, mps=256, mrrs=512, ro=True, ext_tag=True, slot_power=75, lnkcap=(32, 16),
                    lnksta=(32, 16), sriov=(100, 100, 0x101e), numa=numa, driver="mlx5_core",
                    devcap2=0x30380, devctl2=0x40, acs=(0, 0))
                for v in range(100):
                    fn = 2 + v
                    add(bdf=f"0000:{sec:02x}:{fn >> 3:02x}.{fn & 7}", parent=dsp, vendor=0x15b3, device=0x101e,
                        subsys=(0x15b3, 0x0040), type="ep", mps_sup=512, mps=128, mrrs=512, lnkcap=(32, 16),
                        lnksta=(32, 16), physfn=ep, numa=numa, driver="mlx5_core", aer=False)
        bus += last - first + 2
    mkhost.build_host(root, funcs)
    print(f"{len(funcs)} functions, {pfs} ConnectX PFs", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])

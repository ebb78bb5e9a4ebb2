# SPDX-License-Identifier: MIT
# Build PCI config-space bytes from register values, and whole sysfs trees (a fake root) from a
# list of functions: what the host fixtures and the benchmark are made of. The bytes follow the
# PCI/PCIe register layout (pciutils lib/header.h); `lspci -F` / `lspci -A linux-sysfs` decode
# them back, which is how the fixtures are checked against the captured lspci text.
import os
import struct

SPEED_CODE = {2.5: 1, 5: 2, 8: 3, 16: 4, 32: 5, 64: 6}
SYSFS_SPEED = {2.5: "2.5 GT/s PCIe", 5: "5.0 GT/s PCIe", 8: "8.0 GT/s PCIe", 16: "16.0 GT/s PCIe",
               32: "32.0 GT/s PCIe", 64: "64.0 GT/s PCIe"}
PCIE_TYPE = {"ep": 0, "lep": 1, "rp": 4, "usp": 5, "dsp": 6}
MPS_CODE = {128: 0, 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def _power(w):
    """Watts -> (value, scale) as DevCap/SltCap encode them."""
    for scale, mul in ((0, 1), (1, 10), (2, 100), (3, 1000)):
        v = round(w * mul)
        if v == w * mul and v < 0xf0:
            return v, scale
    raise ValueError(w)


class Cfg:
    def __init__(self, size=4096):
        self.b = bytearray(size)

    def w8(self, o, v):
        self.b[o] = v & 0xff

    def w16(self, o, v):
        struct.pack_into("<H", self.b, o, v & 0xffff)

    def w32(self, o, v):
        struct.pack_into("<I", self.b, o, v & 0xffffffff)


def config(d):
    """4096 bytes of config space for function d (a dict, see build_host)."""
    c = Cfg()
    t = d.get("type", "ep")
    bridge = t in ("rp", "usp", "dsp")
    # a VF's id registers read ffff; the kernel knows its ids (sysfs vendor/device)
    c.w16(0x00, 0xffff if d.get("vf_ids_ffff") else d["vendor"])
    c.w16(0x02, 0xffff if d.get("vf_ids_ffff") else d["device"])
    c.w16(0x04, 0x0406)  # Mem+ BusMaster+ DisINTx+
    c.w16(0x06, 0x0010)  # capability list
    c.w8(0x08, d.get("rev", 0))
    cls = d.get("class", 0x060400 if bridge else 0x020000)
    c.w8(0x09, cls & 0xff)
    c.w8(0x0a, (cls >> 8) & 0xff)
    c.w8(0x0b, cls >> 16)
    c.w8(0x0e, (1 if bridge else 0) | (0x80 if d.get("multifunction") else 0))
    if bridge:
        c.w8(0x18, d["primary"])
        c.w8(0x19, d["secondary"])
        c.w8(0x1a, d["subordinate"])
    else:
        # a memory BAR: lspci prints an endpoint's AtomicOpsCap only when it has one
        if d.get("devcap2", 0) & 0x380 or d.get("mem_bar"):
            c.w32(0x10, 0xe000000c)
        sv, sd = d.get("subsys", (d["vendor"], 0))
        c.w16(0x2c, sv)
        c.w16(0x2e, sd)
    # capability chain: [VPD 0x48] -> PCIe 0x60
    exp = 0x60
    if d.get("vpd_cap"):
        c.w8(0x34, 0x48)
        c.w8(0x48, 0x03)
        c.w8(0x49, exp)
    else:
        c.w8(0x34, exp)
    c.w8(exp, 0x10)
    c.w8(exp + 1, 0)
    flags = 2 | PCIE_TYPE[t] << 4 | (0x100 if d.get("slot") else 0)
    c.w16(exp + 0x02, flags)
    pv, ps = _power(d.get("slot_power", 0)) if t in ("ep", "lep", "usp") else (0, 0)
    devcap = MPS_CODE[d.get("mps_sup", 256)] | d.get("devcap_extra", 0) | pv << 18 | ps << 26
    c.w32(exp + 0x04, devcap)
    devctl = (MPS_CODE[d.get("mps", 256)] << 5 | MPS_CODE[d.get("mrrs", 512)] << 12 |
              (0x10 if d.get("ro") else 0) | (0x100 if d.get("ext_tag") else 0) |
              (0x800 if d.get("no_snoop") else 0) | d.get("devctl_extra", 0))
    c.w16(exp + 0x08, devctl)
    c.w16(exp + 0x0a, d.get("devsta", 0))
    cs, cw = d["lnkcap"]
    c.w32(exp + 0x0c, SPEED_CODE[cs] | cw << 4 | d.get("lnkcap_extra", 0) | d.get("port", 0) << 24)
    c.w16(exp + 0x10, d.get("lnkctl", 0x40))  # CommClk+
    ss, sw = d["lnksta"]
    c.w16(exp + 0x12, SPEED_CODE[ss] | sw << 4 | d.get("lnksta_extra", 0))
    if d.get("slot"):
        sp, sn = d["slot"]
        v, s = _power(sp)
        c.w32(exp + 0x14, v << 7 | s << 15 | sn << 19)
    c.w32(exp + 0x24, d.get("devcap2", 0))
    c.w16(exp + 0x28, d.get("devctl2", 0))
    vec = 0
    for sp_, code in SPEED_CODE.items():
        if code <= SPEED_CODE[d.get("lnkcap2_max", cs)]:
            vec |= 1 << (code - 1)
    c.w32(exp + 0x2c, vec << 1)
    c.w16(exp + 0x30, SPEED_CODE[d.get("target", cs)])
    # extended capabilities: AER at 0x100 -> [ARI at 0x150] -> [SR-IOV at 0x180] -> [ACS at 0x1c0]
    # -> [ATS at 0x1e0]
    ext = []
    if d.get("aer", True):
        ext.append((0x100, 0x0001, 1))
    if d.get("ari") is not None:  # ARICap: MFVC- ACS-, Next Function: <ari>
        ext.append((0x150, 0x000e, 1))
        c.w16(0x154, d["ari"] << 8)
    if d.get("sriov"):
        ext.append((0x180, 0x0010, 1))
    if d.get("acs"):
        ext.append((0x1c0, 0x000d, 1))
        c.w16(0x1c4, d["acs"][0])
        c.w16(0x1c6, d["acs"][1])
    if d.get("ats") is not None:
        ext.append((0x1e0, 0x000f, 1))
        c.w16(0x1e6, 0x8000 if d["ats"] else 0)
    for i, (off, cid, ver) in enumerate(ext):
        nxt = ext[i + 1][0] if i + 1 < len(ext) else 0
        c.w32(off, cid | ver << 16 | nxt << 20)
    if d.get("sriov"):
        total, num, did = d["sriov"]
        o = 0x180
        c.w16(o + 0x0c, d.get("sriov_initial", total))
        c.w16(o + 0x0e, total)
        c.w16(o + 0x10, num)
        c.w16(o + 0x14, d.get("sriov_offset", 2))
        c.w16(o + 0x16, d.get("sriov_stride", 1))
        c.w16(o + 0x1a, did)
        c.w32(o + 0x1c, 0x7ff)
        c.w32(o + 0x20, 1)
    return bytes(c.b)


def vpd_bytes(name, fields):
    """Large-resource ID string + VPD-R with the given keywords (+ RV checksum) + end tag."""
    out = bytearray([0x82]) + struct.pack("<H", len(name)) + name.encode()
    r = bytearray()
    for k, v in fields:
        r += k.encode() + bytes([len(v)]) + v.encode()
    r += b"RV\x01"
    tmp = out + bytearray([0x90]) + struct.pack("<H", len(r) + 1) + r
    return bytes(tmp + bytes([(-sum(tmp)) & 0xff, 0x78]))


def dump_text(funcs, size=4096):
    """`lspci -xxxx`-style text for the functions (what `--pci-dump` and `lspci -F` read)."""
    lines = []
    for d in funcs:
        lines.append(f"{d['bdf']} {d.get('name', 'device')}")
        cfg = d.get("cfg") or config(d)
        for off in range(0, min(size, len(cfg)), 16):
            lines.append(f"{off:03x}: " + " ".join(f"{x:02x}" for x in cfg[off:off + 16]))
        lines.append("")
    return "\n".join(lines) + "\n"


def _w(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def _link(target, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)


def build_host(root, funcs, config_size=4096):
    """Write <root>/sys for the functions. Each has 'bdf', 'parent' (BDF or None: on the root bus
    pci<domain>:<bus>), config registers (see config()), and sysfs extras: numa, driver,
    iommu_group, aer (counts), physfn, vpd (bytes)."""
    by = {d["bdf"]: d for d in funcs}

    def devdir(bdf):
        d = by[bdf]
        if d.get("parent"):
            return os.path.join(devdir(d["parent"]), bdf)
        dom, bus = bdf.split(":")[0], bdf.split(":")[1]
        return os.path.join("sys", "devices", f"pci{dom}:{bus}", bdf)

    for d in funcs:
        rel = devdir(d["bdf"])
        p = os.path.join(root, rel)
        cfg = d.get("cfg") or config(d)
        _w(os.path.join(p, "config"), cfg[:config_size], "wb")
        _w(os.path.join(p, "vendor"), f"0x{d['vendor']:04x}\n")
        _w(os.path.join(p, "device"), f"0x{d['device']:04x}\n")
        cls = d.get("class", 0x060400 if d.get("type") in ("rp", "usp", "dsp") else 0x020000)
        _w(os.path.join(p, "class"), f"0x{cls:06x}\n")
        _w(os.path.join(p, "revision"), f"0x{d.get('rev', 0):02x}\n")
        _w(os.path.join(p, "irq"), "0\n")
        bar = "0x00000000e0000000 0x00000000e0ffffff 0x000000000014220c\n" \
            if d.get("devcap2", 0) & 0x380 or d.get("mem_bar") else ""
        zero = "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
        _w(os.path.join(p, "resource"), bar + zero * (13 - bool(bar)))
        _w(os.path.join(p, "numa_node"), f"{d.get('numa', -1)}\n")
        cs, cw = d["lnkcap"]
        ss, sw = d["lnksta"]
        _w(os.path.join(p, "current_link_speed"), SYSFS_SPEED[ss] + "\n")
        _w(os.path.join(p, "current_link_width"), f"{sw}\n")
        _w(os.path.join(p, "max_link_speed"), SYSFS_SPEED[d.get("lnkcap2_max", cs)] + "\n")
        _w(os.path.join(p, "max_link_width"), f"{cw}\n")
        depth = rel.count("/") + 1
        up = "../" * depth
        if d.get("driver"):
            _link(f"{up}bus/pci/drivers/{d['driver']}", os.path.join(p, "driver"))
            os.makedirs(os.path.join(root, "sys", "bus", "pci", "drivers", d["driver"]), exist_ok=True)
        if d.get("iommu_group") is not None:
            _link(f"{up}kernel/iommu_groups/{d['iommu_group']}", os.path.join(p, "iommu_group"))
        if d.get("aer", True) and d.get("aer_counts") is not False:
            cor, nf, fat = d.get("aer_counts") or (0, 0, 0)
            _w(os.path.join(p, "aer_dev_correctable"),
               "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
               f"HeaderOF 0\nTOTAL_ERR_COR {cor}\n")
            _w(os.path.join(p, "aer_dev_nonfatal"), f"Undefined 0\nDLP 0\nTOTAL_ERR_NONFATAL {nf}\n")
            _w(os.path.join(p, "aer_dev_fatal"), f"Undefined 0\nDLP 0\nTOTAL_ERR_FATAL {fat}\n")
        if d.get("physfn"):
            _link(f"../{d['physfn']}", os.path.join(p, "physfn"))
        if d.get("sriov"):
            total, num, did = d["sriov"]
            _w(os.path.join(p, "sriov_totalvfs"), f"{total}\n")
            _w(os.path.join(p, "sriov_numvfs"), f"{num}\n")
            _w(os.path.join(p, "sriov_vf_device"), f"{did:04x}\n")
        if d.get("vpd"):
            _w(os.path.join(p, "vpd"), d["vpd"], "wb")
        _link(f"../../../{rel[len('sys/'):]}", os.path.join(root, "sys", "bus", "pci", "devices", d["bdf"]))

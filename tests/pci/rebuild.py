# SPDX-License-Identifier: MIT
# Rebuild config-space bytes from captured `lspci -vv(v)` text (captures without hex lines): the
# registers each decoded line stands for, written back with mkhost.config(). The test then has
# lspci decode the bytes back to the captured lines, and hwcheck decode the same bytes.
#   python3 tests/pci/rebuild.py tests/fixtures/pci-rebuilt [CORPUS/lspci]   rewrites the rebuilt dumps
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkhost  # noqa: E402

HDR = re.compile(r"^\s?((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (.*)$")
L0S = ["<64ns", "<128ns", "<256ns", "<512ns", "<1us", "<2us", "<4us", "unlimited"]
L1 = ["<1us", "<2us", "<4us", "<8us", "<16us", "<32us", "<64us", "unlimited"]
TYPES = {"Endpoint": "ep", "Legacy Endpoint": "lep", "Root Port": "rp", "Upstream Port": "usp",
         "Downstream Port": "dsp"}
CLASSES = {"Ethernet controller": 0x020000, "Infiniband controller": 0x020700,
           "Network controller": 0x028000, "VGA compatible controller": 0x030000,
           "3D controller": 0x030200, "Non-Volatile memory controller": 0x010802,
           "RAID bus controller": 0x010400}
ACS_BITS = (("SrcValid", 0x01), ("TransBlk", 0x02), ("ReqRedir", 0x04), ("CmpltRedir", 0x08),
            ("UpstreamFwd", 0x10), ("EgressCtrl", 0x20), ("DirectTrans", 0x40))

# The captures name devices, not ids: the ids of those names (pci.ids).
IDS = {
    "MT2910 Family [ConnectX-7]": (0x15b3, 0x1021),
    "MT27710 Family [ConnectX-4 Lx]": (0x15b3, 0x1015),
    "MT2892 Family [ConnectX-6 Dx]": (0x15b3, 0x101d),
    "MT27500 Family [ConnectX-3]": (0x15b3, 0x1003),
    "Ethernet Controller E810-C for SFP": (0x8086, 0x1593),
    "Ethernet Controller X710 for 10GbE SFP+": (0x8086, 0x1572),
    "AD102GL [RTX 6000 Ada Generation]": (0x10de, 0x26b1),
    "SSD7540 PCIe Gen4 x16 8-Port M.2 NVMe RAID Controller": (0x1103, 0x7540),
}


def flag(text, name):
    m = re.search(r"(?<![A-Za-z-])" + re.escape(name) + r"([+-])", text)
    return bool(m and m.group(1) == "+")


def between(block, start, ends):
    i = block.find(start)
    if i < 0:
        return ""
    j = min([k for k in (block.find(e, i + len(start)) for e in ends) if k > 0] or [len(block)])
    return block[i + len(start):j]


def power(s):
    return float(s)


def parse_block(bdf, title, block):
    """The register values of one function's lspci text."""
    d = {"bdf": bdf if bdf.count(":") == 2 else "0000:" + bdf, "name": title}
    cls = title.split(":")[0]
    d["class"] = CLASSES.get(cls, 0x020000)
    for k, ids in IDS.items():
        if k in title:
            d["vendor"], d["device"] = ids
    m = re.search(r"Express \(v\d\) (.+?)(?: \(Slot[+-]\))?, (?:MSI|IntMsgNum)", block)
    if not m or "vendor" not in d:
        return None
    d["type"] = TYPES.get(m.group(1), "ep")
    cap = between(block, "DevCap:", ["DevCtl:"])
    m = re.search(r"MaxPayload (\d+) bytes, PhantFunc (\d), Latency L0s (\S+), L1 (\S+)", cap)
    d["mps_sup"] = int(m.group(1))
    extra = L0S.index(m.group(3).rstrip(",")) << 6 | L1.index(m.group(4)) << 9
    for name, bit in (("ExtTag", 0x20), ("AttnBtn", 0x1000), ("AttnInd", 0x2000), ("PwrInd", 0x4000),
                      ("RBE", 0x8000), ("FLReset", 0x10000000)):
        if flag(cap, name):
            extra |= bit
    d["devcap_extra"] = extra
    m = re.search(r"SlotPowerLimit ([\d.]+)W", cap)
    d["slot_power"] = power(m.group(1)) if m else 0
    ctl = between(block, "DevCtl:", ["DevSta:", "LnkCap:"])
    bits = 0
    for names, bit in ((("CorrErr", "Correctable"), 1), (("NonFatalErr", "Non-Fatal"), 2),
                       (("FatalErr", "Fatal"), 4), (("UnsupReq", "Unsupported"), 8),
                       (("PhantFunc",), 0x200), (("AuxPwr",), 0x400)):
        if any(flag(ctl.split("RlxdOrd")[0] if bit < 16 else ctl, n) for n in names):
            bits |= bit
    d["devctl_extra"] = bits
    d["ro"], d["ext_tag"], d["no_snoop"] = flag(ctl, "RlxdOrd"), flag(ctl, "ExtTag"), flag(ctl, "NoSnoop")
    m = re.search(r"MaxPayload (\d+) bytes, MaxReadReq (\d+) bytes", ctl)
    d["mps"], d["mrrs"] = int(m.group(1)), int(m.group(2))
    sta = between(block, "DevSta:", ["LnkCap:", "\n"])
    d["devsta"] = sum(bit for names, bit in ((("CorrErr",), 1), (("NonFatalErr", "UncorrErr"), 2),
                                              (("FatalErr",), 4), (("UnsupReq", "UnsuppReq"), 8),
                                              (("AuxPwr",), 16), (("TransPend",), 32))
                      if any(flag(sta, n) for n in names))
    lc = between(block, "LnkCap:", ["LnkCtl:", "LnkSta:"])
    m = re.search(r"Port #(\d+), Speed (\S+?)GT/s, Width x(\d+), ASPM ([^,\n]+)", lc)
    d["port"] = int(m.group(1))
    d["lnkcap"] = (float(m.group(2)), int(m.group(3)))
    aspm = {"not supported": 0, "L0s": 1, "L1": 2, "L0s L1": 3}.get(m.group(4).strip(), 0)
    lx = aspm << 10
    m = re.search(r"Exit Latency L0s ([^,\s]+), L1 (\S+)", lc)
    if m:
        lx |= L0S.index(m.group(1)) << 12 | L1.index(m.group(2)) << 15
    else:
        m = re.search(r"Exit Latency L1 (\S+)", lc)
        if m:
            lx |= L1.index(m.group(1)) << 15
    for name, bit in (("ClockPM", 0x40000), ("Surprise", 0x80000), ("LLActRep", 0x100000),
                      ("BwNot", 0x200000), ("ASPMOptComp", 0x400000)):
        if flag(lc, name):
            lx |= bit
    d["lnkcap_extra"] = lx
    lk = between(block, "LnkCtl:", ["LnkSta:"])
    ctlv = 0
    m = re.search(r"ASPM (Disabled|L0s Enabled|L1 Enabled|L0s L1 Enabled)", lk)
    if m:
        ctlv |= {"Disabled": 0, "L0s Enabled": 1, "L1 Enabled": 2, "L0s L1 Enabled": 3}[m.group(1)]
    if "RCB 128" in lk:
        ctlv |= 0x8
    for name, bit in (("Disabled", 0x10), ("CommClk", 0x40), ("ExtSynch", 0x80), ("ClockPM", 0x100),
                      ("AutWidDis", 0x200), ("BWInt", 0x400), ("AutBWInt", 0x800)):
        if flag(lk, name):
            ctlv |= bit
    d["lnkctl"] = ctlv
    ls = between(block, "LnkSta:", ["DevCap2:", "Capabilities:", "LnkCap2:"])
    m = re.search(r"Speed (\S+?)GT/s[^,]*, Width x(\d+)", ls)
    d["lnksta"] = (float(m.group(1)), int(m.group(2)))
    sx = 0
    for name, bit in (("TrErr", 0x400), ("Train", 0x800), ("SlotClk", 0x1000), ("DLActive", 0x2000),
                      ("BWMgmt", 0x4000), ("ABWMgmt", 0x8000)):
        if re.search(r"(?<![A-Za-z])" + name + r"\+", ls):
            sx |= bit
    d["lnksta_extra"] = sx
    m = re.search(r"Supported Link Speeds: [\d.]+-([\d.]+)GT/s", block)
    if m:
        d["lnkcap2_max"] = float(m.group(1))
    m = re.search(r"Target Link Speed: ([\d.]+)GT/s", block)
    if m:
        d["target"] = float(m.group(1))
    d["aer"] = "Advanced Error Reporting" in block
    m = re.search(r"Total VFs: (\d+), Number of VFs: (\d+)", block)
    dm = re.search(r"VF offset: \d+, stride: \d+, Device ID: ([0-9a-f]{4})", block)
    if m and dm:
        d["sriov"] = (int(m.group(1)), int(m.group(2)), int(dm.group(1), 16))
        o = re.search(r"VF offset: (\d+), stride: (\d+)", block)
        d["sriov_offset"], d["sriov_stride"] = int(o.group(1)), int(o.group(2))
        i = re.search(r"Initial VFs: (\d+)", block)
        d["sriov_initial"] = int(i.group(1))
    m = re.search(r"ARICap:\s+MFVC- ACS-, Next Function: (\d+)", block)
    if "Alternative Routing-ID Interpretation (ARI)" in block and m:
        d["ari"] = int(m.group(1))
    d["vpd_cap"] = "Vital Product Data" in block
    d["mem_bar"] = bool(re.search(r"Region \d: Memory at", block))
    p2p_regs(d, block)
    return d


def p2p_regs(d, block):
    """ACSCap/ACSCtl, ATS, and the DevCap2/DevCtl2 10-bit tag and AtomicOps bits."""
    cap, ctl = between(block, "ACSCap:", ["\n"]), between(block, "ACSCtl:", ["\n"])
    if cap:
        d["acs"] = (sum(b for n, b in ACS_BITS if flag(cap, n)), sum(b for n, b in ACS_BITS if flag(ctl, n)))
    if "Address Translation Service (ATS)" in block:
        d["ats"] = flag(between(block, "ATSCtl:", ["\n"]), "Enable")
    cap2 = between(block, "DevCap2:", ["DevCtl2:"])
    ctl2 = between(block, "DevCtl2:", ["LnkCap2:", "LnkCtl2:", "Capabilities:"])
    v = 0
    for name, bit in (("10BitTagComp", 0x10000), ("10BitTagReq", 0x20000), ("Routing", 0x40),
                      ("32bit", 0x80), ("64bit", 0x100), ("128bitCAS", 0x200)):
        if flag(cap2, name):
            v |= bit
    if v:
        d["devcap2"] = v
    w = 0
    for name, bit in (("10BitTagReq", 0x1000), ("ReqEn", 0x40), ("EgressBlck", 0x80)):
        if flag(ctl2, name):
            w |= bit
    if w:
        d["devctl2"] = w


def parse_capture(text):
    """Functions of an lspci -vv text capture (blocks start at a BDF line)."""
    out, cur = [], None
    for line in text.splitlines():
        m = HDR.match(line)
        if m:
            cur = [m.group(1), m.group(2), []]
            out.append(cur)
        elif cur is not None:
            cur[2].append(line)
    funcs = []
    for bdf, title, lines in out:
        d = parse_block(bdf, title, "\n".join(lines))
        if d:
            funcs.append(d)
    return funcs


# captures (corpus/lspci/) with text only, rebuilt here
CAPTURES = [
    "cx4lx_hpe_lspci-vvv_linux-rdma-2019.txt",
    "cx7-200g-ndr200_gen5-x16_asus-esc8000a-e12_21-00.0_stelline.txt",
    "cx7-200g-ndr200_gen5-x16_asus-esc8000a-e12_81-00.0_stelline.txt",
    "cx7-200g-ndr200_gen5-x16_puget-wrx90_21-00.0_stelline.txt",
    "cx7-400g-ndr-mcx75310aas_lspci-vv_gen5-x16-ok_mps256_diagnostics-readme.txt",
    "intel-e810-xxv-4p-dell_lspci-vvv_gen4-x16-ok_vpd_msix512_plus-ice-probe-fail-256cpu_intel-wired-lan-2022.txt",
]


def main():
    out = sys.argv[1]
    # the captures: the corpus lspci/ directory, or by default the verbatim copies the fixture
    # already keeps beside the rebuilt bytes (<name>.capture.txt), so it rebuilds from a clone
    corpus = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    for name in CAPTURES:
        src = os.path.join(corpus, name) if corpus else os.path.join(out, name[:-4] + ".capture.txt")
        with open(src, encoding="utf-8") as f:
            text = f.read()
        funcs = parse_capture(text)
        if not funcs:
            raise SystemExit(f"{name}: no function parsed")
        base = name[:-4]
        with open(os.path.join(out, base + ".capture.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(out, base + ".rebuilt-xxxx.txt"), "w") as f:
            f.write(mkhost.dump_text(funcs))
        print(f"{name}: {len(funcs)} function(s)")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: MIT
# lspci as the oracle: parse `lspci -vvv` and compare it with hwcheck's facts.pci.devices.
import os
import re
import shutil
import subprocess

LSPCI = shutil.which("lspci") or "/usr/bin/lspci"
HDR = re.compile(r"^((?:[0-9a-f]{4,6}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ")
NN_IDS = re.compile(r" \[([0-9a-f]{4})\]: .*\[([0-9a-f]{4}):([0-9a-f]{4})\](?: \(rev ([0-9a-f]{2})\))?")
TYPES = {
    "Endpoint": "endpoint", "Legacy Endpoint": "legacy_endpoint", "Root Port": "root_port",
    "Upstream Port": "upstream_port", "Downstream Port": "downstream_port",
    "PCI-Express to PCI/PCI-X Bridge": "pci_bridge", "PCI/PCI-X to PCI-Express Bridge": "pcie_bridge",
    "Root Complex Integrated Endpoint": "rc_endpoint", "Root Complex Event Collector": "rc_event_collector",
}


def lspci(*args):
    cp = subprocess.run([LSPCI, *args], capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    return cp.stdout


def speed(s):
    return None if s == "unknown" else float(s)


def parse_lspci(*src):
    """{bdf: {field: value}} from `lspci <src> -vvv -nn -D` (-nn: ids, class and subsystem)."""
    return parse_text(lspci(*src, "-vvv", "-nn", "-D"))


ACS_FLAGS = (("SrcValid", "source_validation"), ("TransBlk", "translation_blocking"),
             ("ReqRedir", "request_redirect"), ("CmpltRedir", "completion_redirect"),
             ("UpstreamFwd", "upstream_forwarding"), ("EgressCtrl", "egress_control"),
             ("DirectTrans", "direct_translated"))
# DevCap2/DevCtl2 flags lspci prints -> hwcheck p2p keys, by the line block they appear in
DEV2_FLAGS = {"DevCap2": (("10BitTagComp", "tag10_completer_capable"), ("10BitTagReq", "tag10_requester_capable")),
              "AtomicOpsCap": (("Routing", "atomic_routing"), ("32bit", "atomic_completer_32"),
                               ("64bit", "atomic_completer_64"), ("128bitCAS", "atomic_completer_128")),
              "DevCtl2": (("10BitTagReq", "tag10_requester_enabled"),),
              "AtomicOpsCtl": (("ReqEn", "atomic_requester_enabled"), ("EgressBlck", "atomic_egress_blocking"))}
EXT_P2P = (("Address Translation Service (ATS)", "ats_capable"), ("Page Request Interface (PRI)", "pri_capable"),
           ("Process Address Space ID (PASID)", "pasid_capable"), ("Access Control Services", "acs_capable"))


def flags_of(t, table):
    return {k: m.group(1) == "+" for name, k in table
            for m in [re.search(r"(?<![A-Za-z0-9])" + name + r"([+-])", t)] if m}


def parse_p2p(cur, t):
    """ACSCap/ACSCtl, ATS/PRI/PASID presence and enables, DevCap2/DevCtl2 10-bit tags and AtomicOps."""
    for pre, key in (("ACSCap:", "acs_cap"), ("ACSCtl:", "acs")):
        if t.startswith(pre) and key not in cur:
            cur[key] = flags_of(t, ACS_FLAGS)
    for title, key in EXT_P2P:
        if re.match(r"Capabilities: \[[0-9a-f]+ v\d+\] " + re.escape(title), t):
            cur.setdefault("p2p", {})[key] = True
    for pre, key in (("ATSCtl:", "ats_enabled"), ("PRICtl:", "pri_enabled"), ("PASIDCtl:", "pasid_enabled")):
        m = re.match(re.escape(pre) + r"\s+Enable([+-])", t)
        if m:
            cur.setdefault("p2p", {})[key] = m.group(1) == "+"
    m = re.match(r"(DevCap2|DevCtl2|DevSta2|LnkCap2|LnkCtl2|DevCap|DevCtl|LnkCap|LnkCtl):", t)
    if m:
        cur["_blk"] = m.group(1)
    blk = cur.get("_blk")
    if blk in ("DevCap2", "DevCtl2"):
        part = t
        for sub in ("AtomicOpsCap", "AtomicOpsCtl"):
            if sub + ":" in t:
                before, after = t.split(sub + ":", 1)
                cur.setdefault("dev2", {}).update(flags_of(after, DEV2_FLAGS[sub]))
                part = before
        got = flags_of(part, DEV2_FLAGS[blk])
        for k, v in got.items():
            cur.setdefault("dev2", {}).setdefault(k, v)


def parse_text(text):
    """{bdf: {field: value}} from lspci -vv(v) text (lspci's own output or a capture of it)."""
    devs, cur = {}, None
    for line in text.splitlines():
        m = HDR.match(line.lstrip(" "))
        if m:
            bdf = m.group(1) if m.group(1).count(":") == 2 else "0000:" + m.group(1)
            cur = devs.setdefault(bdf, {})
            ids = NN_IDS.search(line)  # a capture of `lspci -nn`: the ids in brackets
            if ids:
                cur["class4"], cur["vendor"], cur["device"] = ids.group(1), ids.group(2), ids.group(3)
                cur["rev"] = int(ids.group(4), 16) if ids.group(4) else 0
            continue
        if cur is None:
            continue
        m = re.match(r"^\tSubsystem: (?:.* \[)?([0-9a-f]{4}):([0-9a-f]{4})\]?$", line)
        if m:  # -nn or -n; a bridge's comes from its Subsystem ID capability
            cur["subsys"] = (m.group(1), m.group(2))
        t = line.strip()
        parse_p2p(cur, t)
        m = re.search(r"Express \(v\d\) (.+?)(?: \(Slot[+-]\))?, (?:MSI|IntMsgNum)", t)
        if m and "type" not in cur:
            cur["type"] = TYPES.get(m.group(1))
        m = re.match(r"DevCap:\s+MaxPayload (\d+) bytes", t)
        if m and "mps_sup" not in cur:
            cur["mps_sup"] = int(m.group(1))
            cur["in_devcap"] = True
        m = re.search(r"SlotPowerLimit ([\d.]+)W", t)
        if m and cur.get("in_devcap"):
            cur["slot_power"] = float(m.group(1))
        if t.startswith("DevCtl:"):
            cur["in_devcap"] = False
        if "RlxdOrd" in t and "ro" not in cur:
            cur["ro"] = "RlxdOrd+" in t
            cur["ext_tag"] = "ExtTag+" in t
            cur["no_snoop"] = "NoSnoop+" in t
        m = re.search(r"MaxPayload (\d+) bytes, MaxReadReq (\d+) bytes", t)
        if m and "mps" not in cur:
            cur["mps"], cur["mrrs"] = int(m.group(1)), int(m.group(2))
        m = re.match(r"LnkCap:\s+Port #\d+, Speed (\S+?)(?:GT/s)?, Width x(\d+)", t)
        if m and "cap_speed" not in cur:
            cur["cap_speed"], cur["cap_width"] = speed(m.group(1)), int(m.group(2))
        m = re.match(r"LnkCtl2: Target Link Speed: (\S+?)(?:GT/s)?,", t)
        if m and "target_speed" not in cur:
            cur["target_speed"] = None if m.group(1) == "Unknown" else float(m.group(1))
        m = re.match(r"LnkSta:\s+Speed (\S+?)(?:GT/s)?(?: \(\w+\))?, Width x(\d+)", t)
        if m and "speed" not in cur:
            cur["speed"], cur["width"] = speed(m.group(1)), int(m.group(2))
        if re.match(r"Capabilities: \[[0-9a-f]+ v\d+\] Advanced Error Reporting", t):
            cur["aer"] = True
        if re.match(r"Capabilities: \[[0-9a-f]+ v\d+\] Alternative Routing-ID Interpretation \(ARI\)", t):
            cur["ari"] = True
        m = re.match(r"LnkCtl:\s+ASPM (Disabled|L0s Enabled|L1 Enabled|L0s L1 Enabled);", t)
        if m and "aspm_ctl" not in cur:  # this function's own field (lspci prints each function's)
            cur["aspm_ctl"] = {"Disabled": "disabled", "L0s Enabled": "l0s", "L1 Enabled": "l1",
                               "L0s L1 Enabled": "l0s_l1"}[m.group(1)]
        m = re.match(r"LaneErrStat: (?:0|LaneErr at lane:((?: \d+)+))$", t)
        if m:  # the Secondary PCI Express capability's Lane Error Status
            cur["lane_errors"] = [int(x) for x in (m.group(1) or "").split()]
        m = re.search(r"Bus: primary=([0-9a-f]+), secondary=([0-9a-f]+), subordinate=([0-9a-f]+)", t)
        if m:
            cur["secondary"] = int(m.group(2), 16)
    return devs


def compare_function_aspm(self, w, g, ctx):
    """Each function's own ASPM Control and its ARI capability, as lspci prints them."""
    fa, n = g.get("function_aspm") or {}, 0
    if fa.get("control") is not None and "aspm_ctl" in w:
        self.assertEqual(fa["control"], w["aspm_ctl"], f"{ctx} function_aspm.control")
        n += 1
    if fa.get("ari_capable") is not None:
        self.assertEqual(fa["ari_capable"], bool(w.get("ari")), f"{ctx} function_aspm.ari_capable")
        n += 1
    elif g.get("function_aspm") is not None:
        self.assertFalse(w.get("ari"), f"{ctx}: lspci saw ARI, we did not look")
    return n


def compare(self, want, devices, name):
    """Assert (on TestCase self) that hwcheck's devices agree with lspci's decode; returns the
    number of checks made."""
    got = {d["bdf"]: d for d in devices}
    self.assertEqual(sorted(got), sorted(want), "the same functions")
    checks = 0
    for bdf, w in want.items():
        g = got[bdf]
        ctx = f"{name} {bdf}"
        if "vendor" in w:
            self.assertEqual((g["vendor_id"], g["device_id"]), (w["vendor"], w["device"]), ctx)
            self.assertEqual(g["class"][:4], w["class4"], ctx)
            self.assertEqual(g["revision"], w["rev"], ctx)
            checks += 3
        if "subsys" in w and not g.get("is_vf"):
            self.assertEqual((g["subsystem_vendor_id"], g["subsystem_device_id"]), w["subsys"], f"{ctx} subsystem")
            checks += 1
        if w.get("type"):
            self.assertEqual(g["port_type"], w["type"], ctx)
            checks += 1
        # a VF's DevCtl MPS/RO/NoSnoop/ExtTag are reserved: ours are its PF's, compare with those
        pf = want.get(g.get("physfn")) if g.get("is_vf") else None
        for k, gk in (("mps_sup", "max_payload_supported_bytes"), ("mps", "max_payload_bytes"),
                      ("mrrs", "max_read_request_bytes"), ("ro", "relaxed_ordering"),
                      ("ext_tag", "extended_tag"), ("no_snoop", "no_snoop"),
                      ("slot_power", "slot_power_limit_w")):
            src = pf if pf is not None and k in ("mps", "ro", "ext_tag", "no_snoop") else w
            if k in src:
                self.assertEqual(g[gk], src[k], f"{ctx} {gk}")
                checks += 1
        # link fields: every function as lspci prints its own registers; a VF's link registers
        # are reserved, ours are its PF's (link_from), so compare a VF with its PF
        lw = want.get(g.get("link_from"), w) if g.get("is_vf") else w
        # lspci reads a target code 0 as 2.5GT/s ("hardwired to 0 means only 2.5GT/s"): ours
        # only where the link's capability is 2.5 GT/s too; elsewhere code 0 is no speed
        if lw.get("target_speed") is not None and g.get("link") and not (
                lw["target_speed"] == 2.5 and g["link"]["target_speed_gts"] is None and lw.get("cap_speed") != 2.5):
            self.assertEqual(g["link"]["target_speed_gts"], lw["target_speed"], f"{ctx} link.target_speed_gts")
            checks += 1
        for k, gk in (("speed", "speed_gts"), ("width", "width"), ("cap_speed", "cap_speed_gts"),
                      ("cap_width", "cap_width")):
            if k in lw and g.get("link"):
                self.assertEqual(g["link"][gk], lw[k], f"{ctx} link.{gk}")
                checks += 1
        # AER: present in lspci exactly when ours says the capability is there
        if g.get("config_bytes", 0) > 256 and g.get("aer_capable") is not None:
            self.assertEqual(g["aer_capable"], bool(w.get("aer")), f"{ctx} aer_capable")
            checks += 1
        else:
            self.assertFalse(w.get("aer"), f"{ctx}: lspci saw AER, we did not look")
        checks += compare_function_aspm(self, w, g, ctx)
        checks += compare_p2p(self, w, g, ctx)
        checks += compare_lane_errors(self, w, g, ctx)
        # topology: the bridge whose secondary bus is ours (lspci's tree view)
        bus = int(bdf.split(":")[1], 16)
        dom = bdf.split(":")[0]
        parents = [b for b, v in want.items() if b != bdf and b.split(":")[0] == dom and
                   v.get("secondary") == bus and int(b.split(":")[1], 16) < bus]
        if parents:
            self.assertEqual(g["upstream"], parents[0], f"{ctx} upstream")
            self.assertEqual(g["path"][1], parents[0], ctx)
            checks += 1
    return checks


def compare_p2p(self, w, g, ctx):
    """ACS cap/ctl, ATS/PRI/PASID and DevCap2/DevCtl2 p2p bits: ours equal lspci's wherever
    lspci prints them; an extended capability lspci does not list is one we say is absent."""
    checks = 0
    for key in ("acs_cap", "acs"):
        for k, v in w.get(key, {}).items():
            self.assertEqual(g[key][k], v, f"{ctx} {key}.{k}")
            checks += 1
    gp = g.get("p2p") or {}
    if g.get("config_bytes", 0) > 256 and gp:
        for _, k in EXT_P2P:
            gv = g.get("acs_capable") if k == "acs_capable" else gp.get(k)
            if gv is not None:
                self.assertEqual(gv, w.get("p2p", {}).get(k, False), f"{ctx} {k}")
                checks += 1
        for k in ("ats_enabled", "pri_enabled", "pasid_enabled"):
            if k in w.get("p2p", {}):
                self.assertEqual(gp[k], w["p2p"][k], f"{ctx} p2p.{k}")
                checks += 1
    for k, v in w.get("dev2", {}).items():
        if gp.get(k) is not None:
            self.assertEqual(gp[k], v, f"{ctx} p2p.{k}")
            checks += 1
    return checks


def compare_lane_errors(self, w, g, ctx):
    """Lane Error Status: ours lists the lanes lspci prints ("LaneErrStat: LaneErr at lane: 0 1"),
    and where lspci shows no Secondary PCI Express capability in an extended space that was read,
    ours says the function has none. A VF has no parts."""
    if g.get("is_vf") or g.get("config_bytes", 0) <= 256 or "lane_errors" not in g:
        self.assertNotIn("lane_errors", w if g.get("config_bytes", 0) <= 256 else {}, ctx)
        return 0
    if "lane_errors" in w:
        self.assertEqual((g["lane_errors"] or {}).get("lanes"), w["lane_errors"], f"{ctx} lane_errors")
    else:
        self.assertIsNone(g["lane_errors"], f"{ctx} lane_errors")
        self.assertEqual(g["unavailable"]["lane_errors"]["status"], "unsupported", ctx)
    return 1

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ethtool as the oracle of the SFF-8472 alarm and warning flags (test link_module_flags_oracle;
skipped where ethtool is missing). For every fixture root holding an SFP's `ethtool -m IF hex
on` (identifier 0x03), the system's ethtool, fed the same bytes through the shim of
test_ethtool_oracle.py, says whether the module implements its flags ('Alarm/warning flags
implemented : Yes/No', A0h byte 93 bit 7, SFF-8472 Table 8-3) and prints each of the twenty
(A2h bytes 112-113 and 116-117) as On or Off; hwcheck's decoding of the same root
(netdevs[].link.module.flags: the flags that are set, or unsupported where none are implemented)
must say the same, flag by flag; so must two RECONSTRUCTED variants of the JDSU's bytes (a flag
bit set, the flags not implemented), where the real roots have neither. LINK_MODULE_THRESHOLDS reports the module's own flag beside a
reading past its thresholds from that fact, and says nothing of flags where it is unsupported."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_ethtool_oracle as o  # noqa: E402  (ETHTOOL, hex_bytes, ethtool, check)

FIXTURES = os.path.join(HERE, "..", "fixtures")
# ethtool's words for the five readings (sff-common.c) and hwcheck's (hwinfo/module_eeprom.c)
NAMES = {"Laser bias current": "tx bias", "Laser output power": "tx power", "Module temperature": "temperature",
         "Module voltage": "voltage", "Laser rx power": "rx power"}
KINDS = ("high alarm", "low alarm", "high warning", "low warning")

check = o.check  # one tally: test_ethtool_oracle's


def sfp_roots():
    """(fixture, netdev, bytes) of every root whose recorded `ethtool -m IF hex on` is an SFP's."""
    out = []
    pat = os.path.join(FIXTURES, "*", "root", "hwcheck", "commands", "ethtool -m * hex on", "stdout")
    for path in sorted(glob.glob(pat)):
        data = o.hex_bytes(open(path).read())
        if len(data) >= 256 and data[0] == 0x03:
            fx = os.path.relpath(path, FIXTURES).split(os.sep)[0]
            netdev = os.path.basename(os.path.dirname(path))[len("ethtool -m "):-len(" hex on")]
            out.append((fx, netdev, data))
    return out


def ethtool_flags(shim, data):
    """(implemented, {hwcheck's flag name: on}) as ethtool prints them."""
    rc, out, err = o.ethtool(shim, data)
    impl, flags = None, {}
    for line in out.splitlines():
        if " : " not in line:
            continue
        k, v = (x.strip() for x in line.split(" : ", 1))
        if k == "Alarm/warning flags implemented":
            impl = v == "Yes"
        for en, hw in NAMES.items():
            for kind in KINDS:
                if k == f"{en} {kind}":
                    flags[f"{hw} {kind}"] = v == "On"
    return rc, impl, flags


def hwcheck_module(hwcheck, fx, netdev):
    root = fx if os.path.isabs(fx) else os.path.join(FIXTURES, fx, "root")
    cp = subprocess.run([hwcheck, "--root", root, "--json"], capture_output=True,
                        text=True, timeout=120, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    j = json.loads(cp.stdout)
    nd = next(n for n in j["facts"]["netdevs"] if n["name"] == netdev)
    return nd["link"]["module"]


def variant_root(fx, netdev, data, shim, tmp):
    """A copy of root fx whose module bytes are data, recorded as ethtool prints them (hex on)."""
    root = os.path.join(tmp, fx)
    shutil.copytree(os.path.join(FIXTURES, fx, "root"), root, symlinks=True)
    rc, out, _ = o.ethtool(shim, bytes(data), "hex", "on")
    with open(os.path.join(root, "hwcheck", "commands", f"ethtool -m {netdev} hex on", "stdout"), "w") as f:
        f.write(out)
    return rc, root


def variants(a, roots):
    """The JDSU's bytes (RECONSTRUCTED variants): its tx bias high alarm flag set (A2h byte 112
    bit 3), and its flags not implemented (A0h byte 93 bit 7 clear): both sides agree again."""
    fx, netdev, data = next(r for r in roots if r[0] == "link-module-sfp-jdsu-bias-high")
    on, off = bytearray(data), bytearray(data)
    on[256 + 112] |= 0x08
    off[93] &= 0x7f
    with tempfile.TemporaryDirectory() as tmp:
        for what, d in (("bias-alarm-on", on), ("flags-not-implemented", off)):
            rc, root = variant_root(fx, netdev, d, a.shim, os.path.join(tmp, what))
            rc2, impl, flags = ethtool_flags(a.shim, bytes(d))
            m = hwcheck_module(a.hwcheck, root, netdev)
            if what == "bias-alarm-on":
                check(rc == 0 and impl and flags.get("tx bias high alarm") is True and
                      set(m.get("flags") or []) == {k for k, v in flags.items() if v} == {"tx bias high alarm"},
                      f"{fx} with A2h byte 112 bit 3 set: ethtool and hwcheck say tx bias high alarm ({m.get('flags')})")
            else:
                st = m.get("unavailable", {}).get("flags", {}).get("status")
                check(rc == 0 and impl is False and not flags and m.get("flags") is None and st == "unsupported",
                      f"{fx} with A0h byte 93 bit 7 clear: ethtool says not implemented, hwcheck's flags {st}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--hwcheck", required=True)
    a = ap.parse_args()
    if not o.ETHTOOL:
        print("SKIP: no /usr/sbin/ethtool to be the oracle")
        return 77
    roots = sfp_roots()
    names = {fx for fx, _, _ in roots}
    check("link-module-sfp-jdsu-bias-high" in names and len(roots) >= 4, f"{len(roots)} SFP roots: {sorted(names)}")
    seen_impl = set()
    for fx, netdev, data in roots:
        rc, impl, flags = ethtool_flags(a.shim, data)
        m = hwcheck_module(a.hwcheck, fx, netdev)
        if not m.get("ddm"):
            # no diagnostics: ethtool prints no flag section, hwcheck reads no A2h
            check(rc == 0 and impl is None and m.get("flags") is None, f"{fx}: no diagnostics, no flags on either side")
            continue
        check(rc == 0 and impl is not None, f"{fx}: ethtool says whether the flags are implemented ({impl})")
        seen_impl.add(impl)
        if not impl:
            st = m.get("unavailable", {}).get("flags", {}).get("status")
            check(m.get("flags") is None and st == "unsupported" and not flags,
                  f"{fx}: flags not implemented: ethtool prints none, hwcheck's flags are unsupported ({st})")
            continue
        check(len(flags) == 20, f"{fx}: ethtool prints the 20 flags ({len(flags)})")
        got = set(m.get("flags") or [])
        want = {k for k, on in flags.items() if on}
        check(isinstance(m.get("flags"), list) and got == want,
              f"{fx}: the flags set agree: hwcheck {sorted(got)}, ethtool {sorted(want)}")
    check(True in seen_impl, "at least one root whose module implements its flags")
    variants(a, roots)
    print(f"{o.fails} failed")
    return 1 if o.fails else 0


if __name__ == "__main__":
    sys.exit(main())

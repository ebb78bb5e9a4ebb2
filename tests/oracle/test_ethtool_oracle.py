#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ethtool oracle itself, checked (test ethtool_oracle; skipped where ethtool is missing).

1. The shim (ethtool_shim.c) makes the system's ethtool decode given bytes as it decodes a real
   module: fed the bytes of the two real captures of tests/fixtures/module-eeprom (the published
   `ethtool -m IF hex on`), ethtool prints every published line of `ethtool -m IF` again, and its
   hex dump gives the same bytes back. Lines differ only where ethtool's own wording changed since
   the capture (2019: "176.00 F", ethtool >= 5.x: "176.00 degrees F"); the numbers must agree.
2. The CMIS fixtures (cmis-*-reconstructed.{hex,ethtool}) are what this ethtool prints for the
   bytes tests/oracle/mk_cmis_oracle.py builds; test_module compares our decoder with them.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "module-eeprom")
ETHTOOL = next((p for p in ("/usr/sbin/ethtool", "/sbin/ethtool") if os.access(p, os.X_OK)), None)
REAL = ["sfp-mikrotik-s-ao0005", "qsfp28-mellanox-mlxsw-sfp42"]

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def hex_bytes(text):
    b = bytearray()
    for line in text.splitlines():
        m = re.match(r"\s*0x([0-9a-fA-F]{4}):\s+(.*)", line)
        if m:
            b += bytes(int(x, 16) for x in m.group(2).split())
    return bytes(b)


def lines(text):
    out = {}
    for line in text.splitlines():
        if " : " in line:
            k, v = line.split(" : ", 1)
            out.setdefault(k.strip(), []).append(" ".join(v.split()))
    return out


def same_value(published, printed):
    if published == printed:
        return True
    norm = lambda s: s.replace(" degrees F", " F")  # ethtool's later wording of Fahrenheit
    return norm(published) == norm(printed)


def ethtool(shim, data, *args):
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(data)
        f.flush()
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "LD_PRELOAD": shim,
               "HWC_ORACLE_EEPROM": f.name}
        r = subprocess.run([ETHTOOL, "-m", "oracle0", *args], env=env, capture_output=True,
                           text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def real_captures(shim):
    for name in REAL:
        data = hex_bytes(open(os.path.join(FIX, name + ".hex")).read())
        rc, out, err = ethtool(shim, data)
        check(rc == 0, f"{name}: ethtool -m through the shim exits 0 ({err.strip()})")
        got = lines(out)
        pub = lines(open(os.path.join(FIX, name + ".ethtool"), errors="replace").read())
        n = 0
        for k, vals in pub.items():
            for v in vals:
                n += 1
                check(any(same_value(v, g) for g in got.get(k, [])),
                      f"{name}: '{k} : {v}' printed again (got {got.get(k)})")
        check(n >= 10, f"{name}: {n} published lines compared")
        rc, out, _ = ethtool(shim, data, "hex", "on")
        check(rc == 0 and hex_bytes(out) == data, f"{name}: hex on gives the {len(data)} bytes back")


def broken(shim):
    # bytes ethtool cannot have (too short for a page): it fails cleanly, no crash
    rc, out, err = ethtool(shim, b"\x18" * 16)
    check(rc != 0 and "Cannot get module EEPROM information" in err,
          f"16 bytes: ethtool refuses ({err.strip()})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    a = ap.parse_args()
    if not ETHTOOL:
        print("SKIP: no /usr/sbin/ethtool to be the oracle")
        return 77
    real_captures(a.shim)
    broken(a.shim)
    r = subprocess.run([sys.executable, os.path.join(HERE, "mk_cmis_oracle.py"), "--shim", a.shim,
                        "--check"], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    check(r.returncode == 0, "cmis-*-reconstructed.{hex,ethtool} are what this ethtool prints")
    print(f"{fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

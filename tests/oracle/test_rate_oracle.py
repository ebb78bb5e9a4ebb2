#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ethtool as the oracle of the module rate table (hwinfo/module_rate.c, test link_rate_oracle;
skipped where ethtool is missing): for every SFF-8024 extended compliance code the table maps, the
real QSFP28 dump (SFF-8636 byte 192) and the real SFP dump (SFF-8472 byte 36) of
tests/fixtures/module-eeprom are given that code, and the system's ethtool, fed through the
shim of test_ethtool_oracle.py, must name the rate the table gives for that form factor in its
'Transceiver type' line ("100G Ethernet: 100G Base-SR4 or 25GBase-SR" names 100 and 25)."""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_ethtool_oracle as o  # noqa: E402  (ETHTOOL, FIX, hex_bytes, ethtool)

SRC = os.path.join(HERE, "..", "..", "hwinfo", "module_rate.c")

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def table():
    """The ext_codes rows of module_rate.c: (code, qsfp Gb/s, sfp Gb/s, name)."""
    text = open(SRC).read()
    body = text[text.index("ext_codes[] = {"):text.index("};", text.index("ext_codes[] = {"))]
    return [(int(c, 16), float(q), float(s), n)
            for c, q, s, n in re.findall(r'\{0x([0-9a-f]{2}), (\d+), (\d+), "([^"]*)"\}', body)]


def rates_named(line):
    """The Ethernet rates a 'Transceiver type' line names, Gb/s ("4 x 10G" names 40 too)."""
    nums = {float(x) for x in re.findall(r"(\d+(?:\.\d+)?)\s*G", line, re.I)}
    for m in re.finditer(r"(\d+)\s*x\s*(\d+)\s*G", line, re.I):
        nums.add(float(m.group(1)) * float(m.group(2)))
    return nums


def transceiver_type(shim, data):
    rc, out, err = o.ethtool(shim, bytes(data))
    lines = [ln.split(":", 1)[1].strip() for ln in out.splitlines() if "Transceiver type" in ln]
    return rc, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    a = ap.parse_args()
    if not o.ETHTOOL:
        print("SKIP: no /usr/sbin/ethtool to be the oracle")
        return 77
    rows = table()
    check(len(rows) >= 30, f"{len(rows)} rows read from module_rate.c")
    qsfp = bytearray(o.hex_bytes(open(os.path.join(o.FIX, "qsfp28-mellanox-mlxsw-sfp42.hex")).read()))
    sfp = bytearray(o.hex_bytes(open(os.path.join(o.FIX, "sfp-mikrotik-s-ao0005.hex")).read()))
    for code, q, s, name in rows:
        for gbps, data, off, what in ((q, qsfp, 192, "SFF-8636 byte 192"), (s, sfp, 36, "SFF-8472 byte 36")):
            if gbps <= 0:
                continue
            data[off] = code
            rc, lines = transceiver_type(a.shim, data)
            named = set().union(*(rates_named(ln) for ln in lines)) if lines else set()
            check(rc == 0 and gbps in named,
                  f"{what} 0x{code:02x} ({name}): table {gbps:g}G, ethtool says {lines}")
    print(f"{fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

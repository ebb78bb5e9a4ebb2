#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CMIS (QSFP-DD / OSFP) module EEPROM bytes for the ethtool oracle (RECONSTRUCTED: no public
capture of a CMIS module with both its dump and ethtool's decoding exists; the bytes are placed by
the CMIS 4.0/5.0 tables, one module per case), and what the system's ethtool makes of them.

Writes tests/fixtures/module-eeprom/NAME.hex (`ethtool -m IF hex on`, as ethtool prints it) and
NAME.ethtool (`ethtool -m IF`), both produced by running /usr/sbin/ethtool on the bytes through
tests/oracle/ethtool_shim.c (LD_PRELOAD; ethtool's ioctl path, see there).

  python3 tests/oracle/mk_cmis_oracle.py --shim build/tests/libhwc_ethtool_shim.so [--check]

--check writes nothing: it says whether the committed files are what ethtool prints now
(test ethtool_oracle).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "module-eeprom")
ETHTOOL = next((p for p in ("/usr/sbin/ethtool", "/sbin/ethtool") if os.access(p, os.X_OK)), None)


def put16(b, off, v):
    v &= 0xFFFF
    b[off], b[off + 1] = v >> 8, v & 0xFF


def text(b, off, s, n):
    b[off:off + n] = s.ljust(n).encode()


def cmis(ident, rev, flat, media, vendor, oui, pn, vrev, sn, date, temp_256, vcc_100uv,
         cable_len, connector, tech, page1=None, page2=None):
    """lower page, page 00h, then (paged) 01h, 02h: 640 bytes like a 640-byte ioctl dump."""
    b = bytearray(640 if not flat else 256)
    b[0], b[1], b[2] = ident, rev, 0x80 if flat else 0x00
    b[3] = 0x03 << 1                      # module state: ModuleReady
    put16(b, 14, temp_256)
    put16(b, 16, vcc_100uv)
    b[85] = media                         # module media type
    b[128] = ident
    text(b, 129, vendor, 16)
    b[145:148] = bytes(oui)
    text(b, 148, pn, 16)
    text(b, 164, vrev, 2)
    text(b, 166, sn, 16)
    text(b, 182, date, 8)
    b[202] = cable_len
    b[203] = connector
    b[212] = tech
    if page1 is not None:
        b[256:384] = page1
    if page2 is not None:
        b[384:512] = page2
    return b


def cases():
    # OSFP 800G-class twin-port SR8 optic, paged, DDM: 41.5 degC, 3.287 V; page 01h says which
    # lane monitors exist and gives lengths and the wavelength
    p1 = bytearray(128)
    p1[0x84 - 128] = 0x00                 # SMF length: none
    p1[0x86 - 128] = 50                   # OM4: 50 x 2 m = 100 m
    p1[0x87 - 128] = 35                   # OM3: 35 x 2 m = 70 m
    put16(p1, 0x8A - 128, 850 * 20)       # nominal wavelength 850 nm (0.05 nm units)
    put16(p1, 0x8C - 128, 10 * 200)       # tolerance 10 nm (0.005 nm units)
    p1[160 - 128] = 0x01 | 0x02           # temperature and voltage monitors
    p1[161 - 128] = 0x07                  # tx bias, tx power, rx power monitors
    p2 = bytearray(128)
    put16(p2, 0, 75 * 256), put16(p2, 2, (-5 * 256) & 0xFFFF)
    put16(p2, 4, 70 * 256), put16(p2, 6, 0)
    put16(p2, 8, 36300), put16(p2, 10, 29700), put16(p2, 12, 34650), put16(p2, 14, 31350)
    yield "cmis-osfp-sr8-reconstructed", cmis(
        0x19, 0x50, False, 0x01, "NVIDIA", (0x00, 0x02, 0xc9), "MMA4Z00-NS", "A1",
        "MT2245FT01234", "221108  ", int(41.5 * 256), 32870, 0x00, 0x0c, 0x00, p1, p2)
    # QSFP-DD 400G passive copper cable (DAC), flat memory: no page beyond 00h, 2 m
    yield "cmis-qsfpdd-dac-reconstructed", cmis(
        0x18, 0x40, True, 0x03, "Mellanox", (0x00, 0x02, 0xc9), "MCP1660-W002E26", "A3",
        "MT2207VS00123", "220214  ", int(28.25 * 256), 33120, 0x40 | 2, 0x23, 0x0a)
    # QSFP-DD 400G active optical cable, paged, 30 m (x1 m multiplier), hot at 71 degC
    p1 = bytearray(128)
    p1[160 - 128] = 0x03
    put16(p1, 0x8A - 128, 850 * 20)
    yield "cmis-qsfpdd-aoc-reconstructed", cmis(
        0x18, 0x41, False, 0x04, "FINISAR CORP", (0x00, 0x90, 0x65), "FCBN950QE1C30", "B ",
        "X4AB123", "210530  ", 71 * 256, 32500, 0x40 | 30, 0x23, 0x00, p1)


def ethtool(shim, data, *args):
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(data)
        f.flush()
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C",
               "LD_PRELOAD": shim, "HWC_ORACLE_EEPROM": f.name}
        r = subprocess.run([ETHTOOL, "-m", "oracle0", *args], env=env, capture_output=True,
                           text=True, timeout=30)
    if r.returncode != 0:
        raise SystemExit(f"ethtool -m {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not ETHTOOL:
        print("SKIP: no ethtool")
        return 77
    bad = 0
    for name, data in cases():
        want = {"hex": ethtool(a.shim, data, "hex", "on"), "ethtool": ethtool(a.shim, data)}
        for ext, body in want.items():
            path = os.path.join(OUT, f"{name}.{ext}")
            if a.check:
                have = open(path).read() if os.path.exists(path) else None
                if have != body:
                    print(f"FAIL: {path} is not what {ETHTOOL} prints now for the same bytes")
                    bad += 1
            else:
                with open(path, "w") as f:
                    f.write(body)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/link-ext-* roots (the kernel's reason a link is down: the extended
# state ethtool prints after "Link detected: no") from a real public capture kept in the checkout
# (tests/fuzz/corpus/ethtool_link/, provenance below). Run it after editing; the output is
# committed and test_link_ext.py checks it is up to date (--check), as does
# tests/tools/check_fixtures.py. What is reconstructed says so in SOURCE.md.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as mf  # noqa: E402  (Root, pci_netdev, main)

SEEDS = os.path.join(HERE, "..", "fuzz", "corpus", "ethtool_link")
# robinchrist/100G-CWDM4-docs, README.md at 5db7e7f (2025-03-30), "Running 100GBase-CWDM4 at 40G
# with Mellanox NICs": a Mellanox CX416A-CCAT (ConnectX-4, 2x 100G QSFP28, firmware 12.28.2302)
# with Finisar FTLC1152RGPL6-FB 100G-CWDM4 transceivers, both ports forced to 40G
# (`ethtool -s ens16f1np1 speed 40000 duplex full autoneg off`). The two "Full ethtool
# ens16f1np1" blocks, copied verbatim (indentation as published) from 'Settings for' to 'Link
# detected': before (the card refused the module and turned its laser off) and after the author
# reprogrammed the module's vendor OUI to Mellanox's 00:02:c9 (a 40G link).
REFUSED = "cx416a-unsupported-cable-robinchrist.txt"
LINKED = "cx416a-cwdm4-40g-robinchrist.txt"
REPO = ("robinchrist/100G-CWDM4-docs README.md @ 5db7e7f (2025-03-30, 'Running 100GBase-CWDM4 at 40G "
        "with Mellanox NICs'; found through the code index by `Unsupported cable)`)")
BDF = "0000:05:00.1"
NETDEV = "ens16f1np1"
HOST = (f"RECONSTRUCTED: the PCI function {BDF} (15b3:1013, ConnectX-4, mlx5_core: the note names a "
        "CX416A-CCAT; function 1 as the name's 'f1' says, bus 05 invented: 'ens16' is a slot index, not "
        "a bus) and its netdev's sysfs files (dev_port 0, MTU 1500); no RDMA device (the note shows "
        "none), no module EEPROM bytes (the note gives ethtool -m's decoding and the upper page 00h's 128 "
        "bytes, not the monitors or thresholds as bytes: tests/link/REAL-DATA.md, robinchrist), no other "
        "tool recorded; the firmware version 12.28.2302 the note "
        "gives is in no file of the root (no mstflint query was published).")


def seed(name):
    with open(os.path.join(SEEDS, name), "rb") as f:
        return f.read()


def root(name, title, text, attrs, notes):
    r = mf.Root(name)
    r.BUILT_BY = ("Built by `tests/link/make_ext_fixtures.py` from the public capture quoted there "
                  "(provenance of each piece below).")
    r.function(BDF, 0x1013, netdevs=[NETDEV])
    mf.pci_netdev(r, "pci0000:00", BDF, NETDEV, dict({"dev_port": 0, "mtu": 1500}, **attrs))
    r.command(["ethtool", NETDEV], text)
    for n in notes:
        r.source(n)
    r.source(HOST)
    r.done(title)


def build():
    root("link-ext-cx4-unsupported-cable",
         "a ConnectX-4 port that refused a third-party 100G-CWDM4 optic forced to 40G: 'Link detected: no (Cable issue, Unsupported cable)'",
         seed(REFUSED), {"operstate": "down", "carrier": 0, "speed": -1},
         [f"`hwcheck/commands/ethtool {NETDEV}/stdout`: the first 'Full ethtool {NETDEV}' block of {REPO}, "
          f"verbatim (also tests/fuzz/corpus/ethtool_link/{REFUSED}): advertised 40000baseKR4/CR4/SR4/LR4 "
          "(forced), Speed: Unknown!, 'Link detected: no (Cable issue, Unsupported cable)'. The author: "
          "'the Mellanox card does actively disables the laser' (ethtool -m: bias 0 mA and -40 dBm on "
          "every lane). Expected: NET_PORT_DOWN warn naming the kernel's reason 'Cable issue, "
          "Unsupported cable', its fix starting with the refused module (`ethtool -m ens16f1np1`). "
          "NET_PORT_DOWN is not an issue-14 rule, so this root is noted here and in "
          "tests/link/REAL-DATA.md's search notes, not in its table.",
          "RECONSTRUCTED: the netdev's state in sysfs as mlx5 shows a port without link (operstate "
          "down, carrier 0, speed -1) with the netdev up (the author was bringing the link up): the "
          "note prints ethtool's text only."])
    root("link-ext-cx4-cwdm4-40g",
         "the same ConnectX-4 port at 40G once the optic carries Mellanox's OUI: no reason, no finding",
         seed(LINKED), {"operstate": "up", "carrier": 1, "speed": 40000},
         [f"`hwcheck/commands/ethtool {NETDEV}/stdout`: the second 'Full ethtool {NETDEV}' block of {REPO}, "
          f"verbatim (also tests/fuzz/corpus/ethtool_link/{LINKED}): after the module's vendor OUI was "
          "reprogrammed to 00:02:c9, Speed: 40000Mb/s, 'Link detected: yes'. Expected: no NET_PORT_DOWN; "
          "the extended state absent (a link).",
          "RECONSTRUCTED: the netdev's sysfs state (operstate up, carrier 1, speed 40000 as ethtool says)."])


if __name__ == "__main__":
    mf.main(build, "tests/link/make_ext_fixtures.py")

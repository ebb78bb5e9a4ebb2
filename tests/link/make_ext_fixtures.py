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
        "none), no other tool recorded (the module's bytes: the note above); the firmware version 12.28.2302 the note "
        "gives is in no file of the root (no mstflint query was published).")



def module_note(dump, published, when, oui, expected):
    """The SOURCE.md note of the module's EEPROM (tests/link/mk_sfp_rebuilt.py, the QSFP28)."""
    return (f"`hwcheck/commands/ethtool -m {NETDEV} hex on/stdout`: the module's 640 bytes as `ethtool -m IF hex "
            f"on` prints them (tests/link/real-data/{dump}), rebuilt by tests/link/mk_sfp_rebuilt.py from the whole "
            f"`ethtool -m {NETDEV}` decoding the note prints {when} (verbatim in tests/link/real-data/{published}): "
            "the upper page 00h verbatim from the note's programmings/Finisar_FTLC1152RGPL6-FB.bin (as programmed "
            "before the OUI change; tests/link/real-data/qsfp28-finisar-ftlc1152rgpl6-page00h-robinchrist.bin)"
            f"{oui}. RECONSTRUCTED: the lower page's monitors and latched flags and page 03h's thresholds, "
            "re-encoded from the published lines (SFF-8636); every byte no published line fixes is 0 (the Rx/Tx "
            "LOS, fault and CDR flags of bytes 3-5, Tx disable byte 86, pages 01h and 02h). ethtool 6.1, fed these "
            "bytes through tests/oracle/ethtool_shim.c, prints the published decoding again line for line (test "
            "link_sfp_rebuilt_oracle), and hwcheck's decoder agrees with each line it maps (test_module). "
            f"Expected: {expected}")


def seed(name):
    with open(os.path.join(SEEDS, name), "rb") as f:
        return f.read()


def root(name, title, text, attrs, notes, module=None):
    r = mf.Root(name)
    r.BUILT_BY = ("Built by `tests/link/make_ext_fixtures.py` from the public capture quoted there "
                  "(provenance of each piece below).")
    r.function(BDF, 0x1013, netdevs=[NETDEV])
    mf.pci_netdev(r, "pci0000:00", BDF, NETDEV, dict({"dev_port": 0, "mtu": 1500}, **attrs))
    r.command(["ethtool", NETDEV], text)
    if module:
        with open(os.path.join(HERE, "real-data", module), "rb") as f:
            r.command(["ethtool", "-m", NETDEV, "hex", "on"], f.read())
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
          "note prints ethtool's text only.",
          module_note("qsfp28-finisar-cwdm4-refused-rebuilt.hex", "qsfp28-finisar-cwdm4-refused-robinchrist.ethtool",
                      "while the card refused the module", "",
                      "a Finisar FTLC1152RGPL6-FB (OUI 00:90:65) at 34.50 degC and 3.2706 V inside its "
                      "thresholds, every lane dark (bias 0 mA, Tx and Rx 0.0001 mW: one 0.1 uW step, ethtool's "
                      "-40.00 dBm): the card switched the laser off and no light arrives; the latched low "
                      "flags and lane 4's Tx-power high alarm are those of dark lanes. No LINK_MODULE_* "
                      "finding: the refusal is NET_PORT_DOWN's, and the module line reads every lane dark.")],
         module="qsfp28-finisar-cwdm4-refused-rebuilt.hex")
    root("link-ext-cx4-cwdm4-40g",
         "the same ConnectX-4 port at 40G once the optic carries Mellanox's OUI: no reason, no finding",
         seed(LINKED), {"operstate": "up", "carrier": 1, "speed": 40000},
         [f"`hwcheck/commands/ethtool {NETDEV}/stdout`: the second 'Full ethtool {NETDEV}' block of {REPO}, "
          f"verbatim (also tests/fuzz/corpus/ethtool_link/{LINKED}): after the module's vendor OUI was "
          "reprogrammed to 00:02:c9, Speed: 40000Mb/s, 'Link detected: yes'. Expected: no NET_PORT_DOWN; "
          "the extended state absent (a link).",
          "RECONSTRUCTED: the netdev's sysfs state (operstate up, carrier 1, speed 40000 as ethtool says).",
          module_note("qsfp28-finisar-cwdm4-40g-rebuilt.hex", "qsfp28-finisar-cwdm4-40g-robinchrist.ethtool",
                      "after the OUI change", ", except bytes 165-167 (the vendor OUI, 00:02:c9 as the decoding "
                      "reads) and byte 191 (CC_BASE, recomputed: the author changed the OUI 'nothing more! (Okay, "
                      "and of course the checksum...)')",
                      "every lane lit (bias 37.926-42.068 mA, Tx -0.36..0.62 dBm, Rx -0.41..-0.01 dBm), "
                      "33.76 degC, every flag Off: inside the module's own thresholds, no LINK_MODULE_* finding.")],
         module="qsfp28-finisar-cwdm4-40g-rebuilt.hex")


if __name__ == "__main__":
    mf.main(build, "tests/link/make_ext_fixtures.py")

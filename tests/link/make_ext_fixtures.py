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


# A second capture, another reason: the blog note "Upgrading Mellanox ConnectX-4 Lx Firmware on
# Proxmox VE 9.2" (greenhuang.com, its images on s3.greenhuang.com; found through the code index
# by `Link detected: no (Link training`, owning repository not recorded, as for its mstflint
# queries in tests/mlx/data/SOURCE.md; firmware 14.32.1912 of 21.1.2026 is the newest thing it
# names): a ConnectX-4 Lx MCX4111A-ACUT (MT27710, PCI device 0000:01:00.0, mlx5_core, PSID
# MT_0000000267, firmware 14.32.1900) in an HP EliteDesk 800 G6, its 25G SFP28 port on a DAC to a
# 10G SFP+ switch port. The two `ethtool nic_pve02_stor` blocks, copied verbatim from 'Settings
# for' to 'Link detected' (indentation as published): before (no link, the kernel's reason 'Link
# training failure, Remote side is not ready yet') and after the firmware update, a reboot and
# `ethtool -s nic_pve02_stor speed 10000 duplex full autoneg off` (a 10G link).
LT_REFUSED = "cx4lx-link-training-pve-blog.txt"
LT_LINKED = "cx4lx-10g-linked-pve-blog.txt"
LT_FLINT = os.path.join(HERE, "..", "mlx", "data", "cx4lx-mcx4111a_mstflint-d-q_14.32.1900_pve-blog.txt")
LT_NOTE = ("the blog note 'Upgrading Mellanox ConnectX-4 Lx Firmware on Proxmox VE 9.2' (greenhuang.com; found "
           "through the code index by `Link detected: no (Link training`; owning repository not recorded)")
LT_BDF = "0000:01:00.0"
LT_NETDEV = "nic_pve02_stor"
LT_HOST = (f"RECONSTRUCTED: the PCI function {LT_BDF} (15b3:1015, ConnectX-4 Lx, mlx5_core: the note's 'PCI device: "
           f"0000:01:00.0', 'Device ID: MT27710', 'Driver: mlx5_core') and its netdev's dev_port 0 (a one-port "
           "MCX4111A) and flags 0x1003 (IFF_UP: the note's storage interface carries 192.168.100.25/24, and "
           "the firmware's 'Link training failure' is a port it was bringing up; the note sets it down only "
           "later, to flash); no carrier, operstate or speed file (the note shows no sysfs, so ethtool's "
           "'Link detected' is the only word on the link), no RDMA device (the note shows none), no "
           "module EEPROM (the note prints no `ethtool -m`), no other tool recorded.")


def cx4lx_root(name, title, text, flint, notes, bdf=LT_BDF, netdev=LT_NETDEV, host=LT_HOST):
    r = mf.Root(name)
    r.BUILT_BY = ("Built by `tests/link/make_ext_fixtures.py` from the public capture quoted there "
                  "(provenance of each piece below).")
    r.function(bdf, 0x1015, netdevs=[netdev])
    mf.pci_netdev(r, "pci0000:00", bdf, netdev, {"dev_port": 0, "flags": "0x1003"})
    r.command(["ethtool", netdev], text)
    if flint:
        with open(LT_FLINT, "rb") as f:
            r.command(["mstflint", "-d", bdf, "q"], f.read())
    for n in notes:
        r.source(n)
    r.source(host)
    r.done(title)


# A third: a markdown investigation note "l <-> l2 DAC link failure — investigation closed,
# swap-out planned" (observed 2026-06-15; found through the code index by `Link detected: no
# (EEPROM`, owning repository not recorded): four ConnectX-4 Lx (15b3:1015, mlx5_core) hosts; on
# l2 (an MCX4421A-ACA_Bx, PSID MT_2470111034, firmware 14.32.1908, then 14.32.1912 with the same
# result) a DAC pair that linked at 25G between two HP-OEM ConnectX-4 Lx cards (PSID
# HP_2420110034) stayed down. The note quotes four lines of `ethtool` ("relevant excerpt") and
# names the netdev (enp35s0f0np0) and the card (`mstflint -d 23:00.0 q`).
EE_FRAGMENT = "cx4lx-eeprom-issue-l2-note_FRAGMENT.txt"
EE_BDF = "0000:23:00.0"
EE_NETDEV = "enp35s0f0np0"
EE_NOTE = ("the investigation note 'l <-> l2 DAC link failure — investigation closed, swap-out planned' (observed "
           "2026-06-15; found through the code index by `Link detected: no (EEPROM`; owning repository not recorded)")
EE_HOST = (f"RECONSTRUCTED: the PCI function {EE_BDF} (15b3:1015, ConnectX-4 Lx, mlx5_core: the note's 'PCI ID "
           f"15b3:1015, driver mlx5_core' and `mstflint -d 23:00.0 q`, bus 0x23 = 35 as the name {EE_NETDEV} says) and "
           "its netdev's dev_port 0 and flags 0x1003 (IFF_UP: the author was bringing the link up on the DAC that "
           "linked elsewhere; the note shows no sysfs); no carrier, operstate or speed file, no RDMA device, no "
           "module EEPROM (the note's `ethtool -m` failed: 'netlink error: mlx5_core: Query module eeprom by page "
           "failed, read 0 bytes, err -5, status 3', an error of the netlink page read that hwcheck's recorded "
           "`ethtool -m` commands cannot be said to have given), no mstflint output (the note gives its PSID and "
           "firmware, not its text), no other tool recorded.")


def build_eeprom():
    cx4lx_root("link-ext-cx4lx-eeprom-issue",
               "a ConnectX-4 Lx whose firmware would not read a DAC that linked in other ConnectX-4 Lx cards: 'Link detected: no (EEPROM issue)'",
               f"Settings for {EE_NETDEV}:\n".encode() + seed(EE_FRAGMENT), False,
               [f"`hwcheck/commands/ethtool {EE_NETDEV}/stdout`: the note's four `ethtool` lines ('relevant excerpt') "
                f"verbatim (also tests/fuzz/corpus/ethtool_link/{EE_FRAGMENT}), of {EE_NOTE}: 'Port: Other', 'Speed: "
                "Unknown!', 'Auto-negotiation: on', 'Link detected: no (EEPROM issue)'. FRAGMENT: the first line, "
                f"'Settings for {EE_NETDEV}:', is RECONSTRUCTED (hwcheck's parser needs ethtool's header; the note "
                "cut it with every other line). Expected: NET_PORT_DOWN warn naming the kernel's reason 'EEPROM "
                "issue', its fix saying that a module which reads and links in another card points at this card's "
                "refusal (the note: the same DAC linked at 25G between two HP-OEM ConnectX-4 Lx, PSID HP_2420110034, "
                "and l2's firmware update from 14.32.1908 to 14.32.1912 changed nothing)."],
               bdf=EE_BDF, netdev=EE_NETDEV, host=EE_HOST)


def build_cx4lx():
    cx4lx_root("link-ext-cx4lx-link-training",
               "a ConnectX-4 Lx 25G port on a DAC to a 10G switch port: 'Link detected: no (Link training failure, Remote side is not ready yet)'",
               seed(LT_REFUSED), True,
               [f"`hwcheck/commands/ethtool {LT_NETDEV}/stdout`: the first `ethtool {LT_NETDEV}` block of {LT_NOTE}, verbatim "
                f"(also tests/fuzz/corpus/ethtool_link/{LT_REFUSED}): advertised 1G/10G/25G with autoneg, Speed: Unknown!, "
                "'Link detected: no (Link training failure, Remote side is not ready yet)'. Expected: NET_PORT_DOWN warn "
                "(ethtool's 'Link detected: no' stands in for the carrier sysfs does not give, the netdev being up) naming "
                "the kernel's reason, its fix starting with link training (cable, speed and FEC of both ends); the card "
                "report's link rate line gives the reason, not judged.",
                f"`hwcheck/commands/mstflint -d {LT_BDF} q/stdout`: the note's `mstflint -d 01:00.0 q`, verbatim "
                "(tests/mlx/data/cx4lx-mcx4111a_mstflint-d-q_14.32.1900_pve-blog.txt, see tests/mlx/data/SOURCE.md): "
                "firmware 14.32.1900, PSID MT_0000000267, before the update."])
    cx4lx_root("link-ext-cx4lx-10g-linked",
               "the same ConnectX-4 Lx port at 10G after the firmware update and a forced 10000 Mb/s: 'Link detected: yes', no reason",
               seed(LT_LINKED), False,
               [f"`hwcheck/commands/ethtool {LT_NETDEV}/stdout`: the last `ethtool {LT_NETDEV}` block of {LT_NOTE}, verbatim "
                f"(also tests/fuzz/corpus/ethtool_link/{LT_LINKED}): after firmware 14.32.1912, a reboot and `ethtool -s "
                f"{LT_NETDEV} speed 10000 duplex full autoneg off`, Speed: 10000Mb/s, 'Link detected: yes' (the note "
                "then pings the switch side). Expected: no NET_PORT_DOWN (ethtool's 'yes' is the carrier of a netdev "
                "that is up); the extended state absent (a link). No mstflint query of the card after the update was "
                "published: none is recorded."])


def build_all():
    build()
    build_cx4lx()
    build_eeprom()


if __name__ == "__main__":
    mf.main(build_all, "tests/link/make_ext_fixtures.py")

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/rate-* roots (issue 14: negotiated vs possible rate) from real public
# captures: `ethtool p1` of an mlx5 100GbE port (tests/captures/ethtool/, corpus INDEX.md) and the
# module EEPROM dumps of tests/fixtures/module-eeprom/ (SOURCE.md there). Run it after editing;
# the output is committed and test_rate.py checks it is up to date (--check). What is
# reconstructed says so in each SOURCE.md.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as mf  # noqa: E402  (Root, module_hex, mkfixtures)

P1 = "mlx5-100G_ethtool-p1_and_ethtool-S-full_lane3-errors_pci-signal-integrity_notes-cn_ANNOTATIONS-STRIPPED.txt"
P1_SRC = ("`hwcheck/commands/ethtool p1/stdout`: the `ethtool p1` block of the corpus capture "
          f"`ethtool/{P1}` (an mlx5 100GbE port: supported and advertised modes up to "
          "100000baseCR4/SR4/KR4/LR4_ER4, FEC RS, Speed 100000Mb/s; the author cut it after "
          "'Port: FIBRE', so no Link partner, Auto-negotiation or Link detected line), lines "
          "'Settings for p1:' to 'Port: FIBRE' copied verbatim (tests/captures/ethtool/).")
QSFP_SRC = ("`hwcheck/commands/ethtool -m p1 hex on/stdout`: verbatim 640-byte dump of the Mellanox "
            "QSFP28 MMA1B00-SS1 (SFF-8636 byte 131 0x80, byte 192 0x02: 100GBASE-SR4) of the netdev "
            "cover letter '[PATCH net-next 0/2] mlxsw: core: Extend QSFP EEPROM size' (Ido Schimmel, "
            "2019-10-21), tests/fixtures/module-eeprom/qsfp28-mellanox-mlxsw-sfp42.hex.")
SFP_SRC = ("`hwcheck/commands/ethtool -m p1 hex on/stdout`: verbatim 512-byte dump of the MikroTik "
           "S+AO0005 SFP+ active optical cable (no 10G/25G code; nominal 10300 MBd) of Thomas "
           "Kupper's netdev mail 'Re: [PATCH v2 net 1/1] amd-xgbe: fix active cable' (2022-11-12), "
           "tests/fixtures/module-eeprom/sfp-mikrotik-s-ao0005.hex.")
HOST = ("RECONSTRUCTED: the ConnectX-5 function 0000:3b:00.0 (15b3:1017) and its netdev p1 that "
        "hold the port; the captures come from other hosts (the module bytes and the ethtool text "
        "do not depend on the host).")


# `ethtool eth2` of a ConnectX-3 VPI MCX354A-FCBT (PSID MT_1090120019, fw 2.42.5000, 0000:01:00.0,
# mlx4, ports set to Ethernet) cabled by a QSFP+ DAC to an identical card, copied verbatim (spaces
# as published) from the blog post 'Moving from Unraid to Proxmox VE' (2020-06-21), ptr727/Blog
# content/posts/2020/06/21/moving-from-unraid-to-proxmox-ve.md @ b7c5590: the card supports
# 56000baseCR4/SR4 but advertises up to 40000, its partner advertises 40000baseCR4 and
# 56000baseCR4, and the link runs at 40000Mb/s.
CX3_ETH2 = """Settings for eth2:
        Supported ports: [ FIBRE ]
        Supported link modes:   1000baseKX/Full
                                10000baseKX4/Full
                                10000baseKR/Full
                                40000baseCR4/Full
                                40000baseSR4/Full
                                56000baseCR4/Full
                                56000baseSR4/Full
        Supported pause frame use: Symmetric Receive-only
        Supports auto-negotiation: Yes
        Supported FEC modes: Not reported
        Advertised link modes:  1000baseKX/Full
                                10000baseKX4/Full
                                10000baseKR/Full
                                40000baseCR4/Full
                                40000baseSR4/Full
        Advertised pause frame use: Symmetric
        Advertised auto-negotiation: Yes
        Advertised FEC modes: Not reported
        Link partner advertised link modes:  40000baseCR4/Full
                                             56000baseCR4/Full
        Link partner advertised pause frame use: No
        Link partner advertised auto-negotiation: Yes
        Link partner advertised FEC modes: Not reported
        Speed: 40000Mb/s
        Duplex: Full
        Port: Direct Attach Copper
        PHYAD: 0
        Transceiver: internal
        Auto-negotiation: on
        Supports Wake-on: d
        Wake-on: d
        Current message level: 0x00000014 (20)
                               link ifdown
        Link detected: yes
"""


def cx3_advertised_40g():
    r = mf.Root("rate-cx3-56g-advertises-40g")
    r.BUILT_BY = ("Built by `tests/link/make_rate_fixtures.py` from the public capture quoted "
                  "there (provenance of each piece below).")
    r.function("0000:01:00.0", 0x1003, driver="mlx4_core", netdevs=["eth2"])
    mf.pci_netdev(r, "pci0000:00", "0000:01:00.0", "eth2",
                  {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": 40000, "mtu": 1500})
    r.command(["ethtool", "eth2"], CX3_ETH2.encode())
    r.source("`hwcheck/commands/ethtool eth2/stdout`: verbatim `ethtool eth2` (spaces as published) of a "
             "ConnectX-3 VPI MCX354A-FCBT (PSID MT_1090120019, firmware 2.42.5000, PCI 0000:01:00.0, "
             "ports set to ETH with mlxconfig) direct-attached by a QSFP+ DAC to an identical card, "
             "from the blog post 'Moving from Unraid to Proxmox VE' (2020-06-21), ptr727/Blog "
             "content/posts/2020/06/21/moving-from-unraid-to-proxmox-ve.md @ b7c5590: supported up to "
             "56000baseCR4/SR4, advertised up to 40000baseSR4, partner advertised 40000baseCR4 and "
             "56000baseCR4, Speed 40000Mb/s, auto-negotiation on. Expected: LINK_RATE_LIMITED info "
             "(card 56G, partner 56G: this port's own advertisement limits it to 40G); no "
             "LINK_RATE_BELOW_POSSIBLE (an end explains the rate).")
    r.source("RECONSTRUCTED: the function's sysfs files (vendor 15b3, device 0x1003 (ConnectX-3, as "
             "lspci's 'MT27500 Family [ConnectX-3]' in the post), class, driver mlx4_core) and the "
             "netdev eth2's (up, carrier 1, speed 40000 as ethtool says, MTU 1500); no module EEPROM "
             "and no other tool recorded.")
    r.done("a ConnectX-3 that could do 56G linked at 40G: its own advertisement stops at 40G")


# The DGX Spark ConnectX-7 (P4242, PSID NVD0000000087) of NVIDIA's Aerial cuBB documentation,
# 'Installing Tools on NVIDIA DGX Spark System' (markdown found through the code index by its text;
# its repository was not recorded): `sudo mlxlink -d 0000:01:00.0` for "port 0 of fronthaul NIC
# ... connected to another server or switch via a 100GbE DAC cable", firmware 28.47.1088, mst
# status: 0000:01:00.0 = rocep1s0f0 = net-aerial00. Verbatim in the fuzz corpus.
SPARK_MLXLINK = "mlxlink-cx7-spark-100g-dac-aerial.txt"
# `ethtool aerial00` as an mlx5 port in that state prints it (RECONSTRUCTED: one ethtool link mode
# per speed of mlxlink's Enabled Link Speed list, the partner not reported as mlx5 prints it,
# Speed the 100G of mlxlink's Speed and Width 4x).
SPARK_MODES = ["1000baseKX/Full", "10000baseKR/Full", "25000baseCR/Full", "40000baseCR4/Full",
               "50000baseCR2/Full", "50000baseCR/Full", "100000baseCR4/Full", "100000baseCR2/Full",
               "100000baseCR/Full", "200000baseCR4/Full", "200000baseCR2/Full"]


def spark_ethtool():
    pad = "\n\t                        "
    modes = pad.join(SPARK_MODES)
    return ("Settings for aerial00:\n\tSupported ports: [ Backplane ]\n"
            f"\tSupported link modes:   {modes}\n"
            "\tSupported pause frame use: Symmetric\n\tSupports auto-negotiation: Yes\n"
            "\tSupported FEC modes: None\t RS\t BASER\n"
            f"\tAdvertised link modes:  {modes}\n"
            "\tAdvertised pause frame use: No\n\tAdvertised auto-negotiation: Yes\n"
            "\tAdvertised FEC modes: None\t RS\t BASER\n"
            "\tLink partner advertised link modes:  Not reported\n"
            "\tLink partner advertised pause frame use: No\n"
            "\tLink partner advertised auto-negotiation: Yes\n"
            "\tLink partner advertised FEC modes: Not reported\n"
            "\tSpeed: 100000Mb/s\n\tLanes: 4\n\tDuplex: Full\n\tAuto-negotiation: on\n"
            "\tPort: Direct Attach Copper\n\tPHYAD: 0\n\tTransceiver: internal\n"
            "\tLink detected: yes\n")


def spark_dac_100g():
    r = mf.Root("rate-cx7-200g-dac-100g-mstlink")
    r.BUILT_BY = ("Built by `tests/link/make_rate_fixtures.py` from the public capture quoted "
                  "there (provenance of each piece below).")
    bdf = "0000:01:00.0"
    r.function(bdf, 0x1021, netdevs=["aerial00"], rdma=["rocep1s0f0"])
    mf.pci_netdev(r, "pci0000:00", bdf, "aerial00",
                  {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": 100000, "mtu": 9000})
    r.rdma("rocep1s0f0", "28.47.1088", None,
           {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "100 Gb/sec (4X EDR)",
                "link_layer": "Ethernet", "gid_attrs/ndevs/0": "aerial00"}})
    with open(os.path.join(HERE, "..", "fuzz", "corpus", "link", SPARK_MLXLINK), "rb") as f:
        r.command(["mstlink", "-d", bdf, "-m", "-c"], f.read())
    r.command(["ethtool", "aerial00"], spark_ethtool().encode())
    r.source("`hwcheck/commands/mstlink -d 0000:01:00.0 -m -c/stdout`: verbatim `sudo mlxlink -d "
             "0000:01:00.0` of NVIDIA's Aerial cuBB documentation 'Installing Tools on NVIDIA DGX "
             "Spark System' (the DGX Spark ConnectX-7 P4242, PSID NVD0000000087, firmware 28.47.1088, "
             "MFT 4.34.1-12; 'port 0 of fronthaul NIC ... connected to another server or switch via "
             "a 100GbE DAC cable'; markdown found through the code index by its text, its repository "
             "not recorded): Speed 100G, Width 4x, RS(528,514), Enabled Link Speed (Ext.) 0x00003ff2 "
             "(200G_2X,200G_4X,...,1G), Supported Cable Speed (Ext.) 0x000002f2 "
             "(100G_4X,50G_2X,40G,25G,10G,1G); also "
             f"tests/fuzz/corpus/link/{SPARK_MLXLINK}. Expected: LINK_RATE_LIMITED info (card 200G, "
             "module 100G as mstlink reads the cable: the module limits); no "
             "LINK_RATE_BELOW_POSSIBLE.")
    r.source("RECONSTRUCTED: the argv (the capture ran `mlxlink -d 0000:01:00.0` without -m -c, so "
             "no Module Info and no counters); `hwcheck/commands/ethtool aerial00/stdout` (ethtool's "
             "layout around the capture's state: one link mode per speed of the Enabled Link Speed "
             "list, Speed 100000Mb/s and 4 lanes as mlxlink's Speed and Width, the partner 'Not "
             "reported' as mlx5 prints it); no `ethtool -m` recording (the module's EEPROM rate is "
             "unknown, mstlink's cable speeds stand for it); the function's sysfs files (15b3:1021), "
             "the RDMA device rocep1s0f0 and netdev aerial00 (the names `mst status -v` prints for "
             "0000:01:00.0 there), port ACTIVE/LinkUp, rate 100 Gb/sec (4X EDR), MTU 9000 (the guide gives none).")
    r.done("a 200G ConnectX-7 at 100G on a 100G DAC, the cable's speeds read by mstlink")


def ethtool_p1():
    with open(os.path.join(mf.CORPUS, "ethtool", P1), "rb") as f:
        lines = f.read().decode().split("\n")
    a = next(i for i, ln in enumerate(lines) if ln.startswith("Settings for p1:"))
    b = next(i for i, ln in enumerate(lines) if ln.strip() == "Port: FIBRE")
    return "\n".join(lines[a:b + 1]) + "\n"


def root(name, title, text, module, speed, notes):
    r = mf.Root(name)
    r.BUILT_BY = ("Built by `tests/link/make_rate_fixtures.py` from the public captures quoted "
                  "there (provenance of each piece below).")
    r.function("0000:3b:00.0", 0x1017, netdevs=["p1"])
    mf.pci_netdev(r, "pci0000:3a", "0000:3b:00.0", "p1",
                  {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": speed, "mtu": 9000})
    r.command(["ethtool", "p1"], text.encode())
    if module:
        r.command(["ethtool", "-m", "p1", "hex", "on"], mf.module_hex(module))
    for n in notes:
        r.source(n)
    r.source(HOST)
    r.done(title)


def build():
    p1 = ethtool_p1()
    root("rate-cx5-100g-sr4-ok", "an mlx5 100GbE port at 100G with a 100GBASE-SR4 module", p1,
         "qsfp28-mellanox-mlxsw-sfp42", 100000,
         [P1_SRC, QSFP_SRC, "Expected: card 100G, module 100G, speed 100G: no LINK_RATE_* "
          "finding (the port runs at the card's best; the partner need not be known)."])
    slow = p1.replace("Speed: 100000Mb/s", "Speed: 10000Mb/s")
    root("rate-cx5-100g-sfp-aoc-10g", "an mlx5 100GbE port held at 10G by an SFP+ active cable",
         slow, "sfp-mikrotik-s-ao0005", 10000,
         [P1_SRC, SFP_SRC, "RECONSTRUCTED: Speed 10000Mb/s (the capture says 100000Mb/s) and "
          "`speed` 10000: the port as it trains with this 10G cable (through a QSFP-to-SFP "
          "adapter). Expected: LINK_RATE_LIMITED (info; warn with a profile port_rate_gbps 100): "
          "card 100G, module 10G: the module limits."])
    partner = ("\tLink partner advertised link modes:  40000baseSR4/Full\n"
               "\t                                     100000baseSR4/Full\n")
    forced = p1.replace("Speed: 100000Mb/s", "Speed: 40000Mb/s").replace("\tSpeed:", partner + "\tSpeed:")
    root("rate-cx5-100g-below-possible", "an mlx5 100GbE port at 40G while every end does 100G",
         forced, "qsfp28-mellanox-mlxsw-sfp42", 40000,
         [P1_SRC, QSFP_SRC, "RECONSTRUCTED: Speed 40000Mb/s (the capture says 100000Mb/s), `speed` "
          "40000, and the two 'Link partner advertised link modes' lines (40000baseSR4/Full, "
          "100000baseSR4/Full) in ethtool's layout before Speed (the capture was cut before any). "
          "Expected: LINK_RATE_BELOW_POSSIBLE warn (card, module and partner all 100G)."])
    cx3_advertised_40g()
    spark_dac_100g()
    root("rate-cx5-100g-no-module", "an mlx5 100GbE port at 40G whose module and partner are unknown",
         p1.replace("Speed: 100000Mb/s", "Speed: 40000Mb/s"), None, 40000,
         [P1_SRC, "RECONSTRUCTED: Speed 40000Mb/s and `speed` 40000; no `ethtool -m` recording "
          "(the module is unknown). Expected: LINK_RATE_BELOW_POSSIBLE unknown, naming the module "
          "and the partner."])


if __name__ == "__main__":
    mf.main(build, "tests/link/make_rate_fixtures.py")

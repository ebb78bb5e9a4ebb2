#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/link-farend-* roots (issue 14: the far end of the cable): a committed
# fixture root (itself built from real captures) plus the recorded answers of lldpcli or of
# infiniband-diags, taken from the real captures in tests/fuzz/corpus/farend/ (SOURCE.md there).
# The base roots stay as they are: they are the "without the far end" twins, whose verdicts must
# not change. Run it after editing; test_farend.py checks it is up to date (--check).
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "rules", "scenarios"))
from make_roots import tree  # noqa: E402  (files and links of a root; links are not followed)
FIX = os.path.normpath(os.path.join(HERE, "..", "fixtures"))
CAPS = os.path.normpath(os.path.join(HERE, "..", "fuzz", "corpus", "farend"))
LLDP = ["lldpcli", "-f", "json", "show", "neighbors", "details"]


def cap(name):
    with open(os.path.join(CAPS, name), "rb") as f:
        return f.read()


class Root:
    def __init__(self, name, base, out):
        self.name, self.base, self.sources = name, base, []
        self.dir = os.path.join(out, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.copytree(os.path.join(FIX, base, "root"), os.path.join(self.dir, "root"), symlinks=True)

    def command(self, argv, stdout=b"", stderr=b"", exit=0):
        key = " ".join(argv).replace("%", "%25").replace("/", "%2F")
        d = os.path.join(self.dir, "root", "hwcheck", "commands", key)
        os.makedirs(d, exist_ok=True)
        for fn, data in (("stdout", stdout), ("stderr", stderr)):
            if data or fn == "stdout":
                with open(os.path.join(d, fn), "wb") as f:
                    f.write(data)
        with open(os.path.join(d, "result"), "w") as f:
            f.write(f"exit={exit}\n")

    def source(self, text):
        self.sources.append(text)

    def done(self, title):
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(f"# {self.name}: {title}\n\nBuilt by `tests/link/make_farend.py`: the root of "
                    f"`tests/fixtures/{self.base}` (its SOURCE.md gives the provenance of every "
                    f"piece of it), plus the recordings below.\n\n")
            for s in self.sources:
                f.write(f"- {s}\n")


SONIC = "lldpcli-json0-sonic-leaves-mlx5-unifabric.json"
SONIC_SRC = ("verbatim `lldpcli` output (json0 shape: what `-f json` prints when lldpd is built with "
             "--enable-json0) of a host with five mlx5 ports cabled to SONiC switches (StorageSW, "
             "LEAF01-04, HwSku ds730-32d), test data of unifabric-io/unifabric "
             "pkg/agent/fabricnode/lldp_test.go (testJSON2, commit a81daf6, 2026-07-17); also "
             f"tests/fuzz/corpus/farend/{SONIC}")


def lldp_symbol(out):
    r = Root("link-farend-lldp-symbol", "net-mlx5-100g-full-stats", out)
    r.command(LLDP, cap(SONIC).replace(b'"ens841np0"', b'"p1"'))
    r.source(f"`hwcheck/commands/{' '.join(LLDP)}/stdout`: {SONIC_SRC}.")
    r.source("RECONSTRUCTED: the local interface name `ens841np0` of the capture replaced by `p1`, "
             "the mlx5 netdev of the base root (whose real `ethtool -S` counts rx_symbol_err_phy 386): "
             "p1's neighbour is LEAF03 port Ethernet184. Expected: LINK_SYMBOL_ERRORS on p1, its "
             "message naming `LEAF03 Ethernet184`; the same verdicts as the base root.")
    r.done("an mlx5 port with symbol errors whose LLDP neighbour is known")


def lldp_roce(out):
    r = Root("link-farend-lldp-roce", "field-ports-cx7-roce-active", out)
    text = cap(SONIC).replace(b'"ens1np0"', b'"enp153s0np0"').replace(b'"ens841np0"', b'"enp171s0np0"')
    r.command(LLDP, text)
    r.source(f"`hwcheck/commands/{' '.join(LLDP)}/stdout`: {SONIC_SRC}.")
    r.source("RECONSTRUCTED: the capture's local interface names `ens1np0` and `ens841np0` replaced "
             "by the base root's ConnectX-7 RoCE netdevs `enp153s0np0` and `enp171s0np0` (their "
             "neighbours: StorageSW Ethernet120 and LEAF03 Ethernet184). Expected: the far end on "
             "each port's line of the check, and the same verdicts as the base root.")
    r.done("two ConnectX-7 RoCE ports with their LLDP neighbours")


def lldpd_down(out):
    r = Root("link-farend-lldpd-down", "field-ports-cx7-roce-active", out)
    r.command(LLDP, b"", cap("lldpcli-stderr-no-daemon-lab.txt"), exit=1)
    r.source(f"`hwcheck/commands/{' '.join(LLDP)}/`: the exit status 1 and stderr of this very "
             "argv on a Debian 12 machine with lldpd 1.0.16 installed and the daemon not running "
             "(captured for this fixture; tests/fuzz/corpus/farend/lldpcli-stderr-no-daemon-lab.txt). "
             "Expected: each netdev's link.peer null, absent, 'lldpd is not running'; the same "
             "verdicts as the base root.")
    r.done("lldpcli installed, lldpd not running")


def ib_peer(out):
    r = Root("link-farend-ib-linkdowned", "link-ib-cx7-linkdowned", out)
    smp = ["smpquery", "-C", "mlx5_1", "-P", "1", "-D"]
    r.command(smp + ["nodedesc", "0,1"], cap("smpquery-nd-lid37-b1nstcx02.txt"))
    r.command(smp + ["nodeinfo", "0,1"], cap("smpquery-ni-lid4-ca-mlx4-openmpi-users.txt"))
    r.command(smp + ["portinfo", "0,1", "1"],
              b"# Port info: DR path slid 0; dlid 0; 0,1 port 1\nLid:.............................4\n")
    r.command(["perfquery", "-C", "mlx5_1", "-P", "1", "4", "1"],
              cap("perfquery-x-lid10-rhel75-infiniband-diags-16.txt"))
    r.source("`smpquery ... nodedesc 0,1/stdout`: verbatim `smpquery ND -L 37` answer "
             "`Node Description:.................b1nstcx02 HCA-1` of a public Chinese IB "
             "cheat sheet (tests/fuzz/corpus/farend/SOURCE.md).")
    r.source("`smpquery ... nodeinfo 0,1/stdout`: verbatim `smpquery --Ca mlx4_0 --Port 1 NodeInfo 4` "
             "of a Channel Adapter (Guid 0x0002c90300336fe0, LocalPort 1), Open MPI users list "
             "(tests/fuzz/corpus/farend/SOURCE.md); its header says `Lid 4` where a direct-routed "
             "query prints `DR path ...` (the header is not read).")
    r.source("`perfquery -C mlx5_1 -P 1 4 1/stdout`: verbatim `perfquery -x 10 1` of "
             "linux-rdma/infiniband-diags issue #16 (RHEL 7.5, every counter 0); -x adds the data "
             "counters, the error counters' names are the same.")
    r.source("RECONSTRUCTED: that these three answers come from one peer, back to back with the "
             "base root's mlx5_1 port 1 (whose real gpud #943 counters say link_downed 255); the "
             "portinfo answer (`Lid: 4`, the LID the nodeinfo capture was queried by). Expected: "
             "LINK_FLAPS and LINK_INTEGRITY_ERRORS as in the base root, their messages naming "
             "`b1nstcx02 HCA-1 port 1` and saying the overruns count on the host side only (the flaps: a far end counting no link down was reset since, a link goes down at both ends).")
    r.done("an InfiniBand port that flapped, its peer's counters clean")


# ibdiagnet 2's verdict on a real QDR fabric (a OneNote page exported to a public repository,
# "Mellanox 网卡分析（infiniband）", 2014-11-10; code index, repository not shown), quoted:
#   -E- Link: S0002c90300688830/N0002c90300688830/P20<-->S0002c90300165e63/N0002c90300165e60/P1 -
#   Unexpected actual link speed 2.5 (enable_speed1="2.5 or 5 or 10", enable_speed2="2.5 or 5 or 10"
#   therefore final speed should be 10)
# and the link's line of its ibdiagnet2.lst:
#   { CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:0002c90300165e61
#   VenID:000002c9 DevID:1003 Rev:00000000  LID:0005 PN:01 } { SW Ports:24 SystemGUID:0002c90300688830
#   NodeGUID:0002c90300688830 PortGUID:0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1
#   LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5
IBDIAG_SRC = ("ibdiagnet 2 (`ibdiagnet --pc --P all=1 --pm_pause_time 1200`) on a real QDR fabric, quoted "
              "in a OneNote page exported to a public repository ('Mellanox 网卡分析（infiniband）', "
              "2014-11-10; found in the code index by the string `therefore final speed should be`, "
              "its repository not shown): `-E- Link: S0002c90300688830/N0002c90300688830/P20<-->"
              "S0002c90300165e63/N0002c90300165e60/P1 - Unexpected actual link speed 2.5 "
              "(enable_speed1=\"2.5 or 5 or 10\", enable_speed2=\"2.5 or 5 or 10\" therefore final "
              "speed should be 10)` and the link's ibdiagnet2.lst line `{ CA Ports:02 "
              "SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:0002c90300165e61 "
              "VenID:000002c9 DevID:1003 Rev:00000000  LID:0005 PN:01 } { SW Ports:24 "
              "SystemGUID:0002c90300688830 NodeGUID:0002c90300688830 PortGUID:0002c90300688830 "
              "VenID:000002c9 DevID:c738 Rev:000000a1  LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5` "
              "(the .lst numbers are hex: 36 switch ports, port 20); the author: the switch's port 20 "
              "runs to the card c0104 at 2.5G where 10G is normal, most likely the physical cable")
CX3_PORTINFO = (b"# Port info: DR path slid 65535; dlid 65535; 0 port 1\n"
                b"Lid:.............................5\n"
                b"LinkWidthEnabled:................1X or 4X\n"
                b"LinkWidthActive:.................4X\n"
                b"LinkState:.......................Active\n"
                b"LinkSpeedActive:.................2.5 Gbps\n"
                b"LinkSpeedEnabled:................2.5 Gbps or 5.0 Gbps or 10.0 Gbps\n")
SX_NODEINFO = (b"# Node info: DR path slid 65535; dlid 65535; 0,1\n"
               b"NodeType:........................Switch\n"
               b"NumPorts:........................36\n"
               b"SystemGuid:......................0x0002c90300688830\n"
               b"Guid:............................0x0002c90300688830\n"
               b"PortGuid:........................0x0002c90300688830\n"
               b"DevId:...........................0xc738\n"
               b"Revision:........................0x000000a1\n"
               b"LocalPort:.......................20\n"
               b"VendorId:........................0x0002c9\n")
SX_PORT20 = (b"# Port info: DR path slid 65535; dlid 65535; 0,1 port 20\n"
             b"LinkWidthEnabled:................1X or 4X\n"
             b"LinkWidthActive:.................4X\n"
             b"LinkState:.......................Active\n"
             b"LinkSpeedActive:.................2.5 Gbps\n"
             b"LinkSpeedEnabled:................2.5 Gbps or 5.0 Gbps or 10.0 Gbps\n")


def ib_rate(out):
    r = Root("rate-ib-cx3-sdr-below-qdr", "field-ports-cx3-ib-port2-down", out)
    smp = ["smpquery", "-C", "mlx4_0", "-P", "1", "-D"]
    name = b"switch-0002c90300688830"  # smpquery pads a name shorter than 32 with dots to 32
    r.command(smp + ["nodedesc", "0,1"], b"Node Description:" + b"." * (32 - len(name)) + name + b"\n")
    r.command(smp + ["nodeinfo", "0,1"], SX_NODEINFO)
    r.command(smp + ["portinfo", "0", "1"], CX3_PORTINFO)
    r.command(smp + ["portinfo", "0,1", "0"],
              b"# Port info: DR path slid 65535; dlid 65535; 0,1 port 0\nLid:.............................2\n")
    r.command(smp + ["portinfo", "0,1", "20"], SX_PORT20)
    r.source(f"What fires: {IBDIAG_SRC}.")
    r.source("real-quoted (the values ibdiagnet reports, laid out as libibmad's `smpquery` dumps, "
             "which print one `Key:....value` line per PortInfo/NodeInfo field): "
             "`hwcheck/commands/smpquery -C mlx4_0 -P 1 -D portinfo 0 1/stdout` (this ConnectX-3 port: Lid 5 = LID:0005, "
             "LinkWidthActive 4X = PHY=4x, LinkState Active = LOG=ACT, LinkSpeedActive 2.5 Gbps = "
             "SPD=2.5 and the actual speed 2.5, LinkSpeedEnabled `2.5 Gbps or 5.0 Gbps or 10.0 Gbps` "
             "= its enable_speed \"2.5 or 5 or 10\"); "
             "`hwcheck/commands/smpquery -C mlx4_0 -P 1 -D portinfo 0,1 20/stdout` (the switch's port "
             "20: the same active speed and width, LinkSpeedEnabled = the other enable_speed); "
             "`... nodeinfo 0,1/stdout` (NodeType Switch, NumPorts 36 = Ports:24 hex, Guids "
             "0x0002c90300688830, DevId 0xc738 = SwitchX, Revision 0x000000a1, LocalPort 20 = PN:14 "
             "hex); `... portinfo 0,1 0/stdout` (the switch's LID 2 = LID:0002). The base root's "
             "mlx4_0 (15b3:1003, DevID:1003) port 1 is this CA port (PN:01).")
    r.source("RECONSTRUCTED: the dumps' layout and their headers (only the fields above; the "
             "extended speed fields are left out: ibdiagnet named the ends' enabled speeds as "
             "\"2.5 or 5 or 10\" and no extended one); LinkWidthEnabled `1X or 4X` at both ends "
             "(not quoted: ibdiagnet raised no width error, and 4X is active); the switch's "
             "NodeDescription `switch-0002c90300688830` (the capture names both nodes by GUID only); "
             "that the base root's host is the capture's card c0104. No `perfquery` recorded: the "
             "peer's counters say 'not in this capture'. No NeighborMTU or MtuCap line: ibdiagnet's "
             "quoted lines carry no MTU, so none is put back and NET_ROCE_MTU_SMALL is unknown "
             "('smpquery printed no NeighborMTU'). Expected: LINK_RATE_BELOW_POSSIBLE warns on "
             "mlx4_0/1, 4X SDR (10 Gb/s) below the 4X QDR (40 Gb/s) that both ends enable, naming "
             "the switch port 20 and that the cable's rating was not read; the base root's other "
             "verdicts unchanged.")
    r.done("a ConnectX-3 InfiniBand port at SDR where it and its switch port enable QDR (ibdiagnet)")


# "controller mlx5_0" of a real ibnetdiscover topology (generated Mon Dec 18 12:34:08 2023, initiated
# from that node: 6 Switch-IB EDR switches, ConnectX-5 hosts), its only link line:
#   [25]  "H-506b4b030043f9e2"[1](506b4b030043f9e2)  # "controller mlx5_0" lid 34 4xEDR
# in the record of switch S-ec0d9a0300f548c0, "SwitchIB Mellanox Technologies" base port 0 lid 29,
# 36 ports, devid 0xcb20, vendid 0x2c9, sysimgguid 0xec0d9a0300f548c0.
SWITCHIB = {"desc": "SwitchIB Mellanox Technologies", "guid": "0xec0d9a0300f548c0", "ports": 36,
            "devid": "0xcb20", "lid": 29, "port": 25}
TOPOLOGY_SRC = ("a real `ibnetdiscover` topology (`# Topology file: generated on Mon Dec 18 12:34:08 "
                "2023`, `# Initiated from node 506b4b030043f9e2`: six Switch-IB EDR switches, ConnectX-5 "
                "(devid 0x1017) hosts) embedded as test input in a Flask/networkx topology viewer on "
                "GitHub (owning repository not recorded; the text is in the code index)")


def dump(header, fields):
    """libibmad's dump layout: key, ':', dots to column 33, value (smpquery's mad_dump_field)."""
    return (header + "\n" + "".join(f"{k}:{'.' * (32 - len(k))}{v}\n" for k, v in fields)).encode()


def nodedesc(name):
    """smpquery nodedesc: the name padded with dots to 32 columns (one dot when longer)."""
    return f"Node Description:{'.' * (32 - len(name)) if len(name) < 32 else '.'}{name}\n".encode()


def ib_switch(out):
    r = Root("link-farend-ib-switchib", "link-ib-clean", out)
    sw = SWITCHIB
    smp = ["smpquery", "-C", "mlx5_0", "-P", "1", "-D"]
    r.command(smp + ["nodedesc", "0,1"], nodedesc(sw["desc"]))
    r.command(smp + ["nodeinfo", "0,1"], dump("# Node info: DR path slid 0; dlid 0; 0,1", [
        ("BaseVers", 1), ("ClassVers", 1), ("NodeType", "Switch"), ("NumPorts", sw["ports"]),
        ("SystemGuid", sw["guid"]), ("Guid", sw["guid"]), ("PortGuid", sw["guid"]), ("PartCap", 8),
        ("DevId", sw["devid"]), ("Revision", "0x000000a0"), ("LocalPort", sw["port"]),
        ("VendorId", "0x0002c9")]))
    r.command(smp + ["portinfo", "0,1", "0"], dump("# Port info: DR path slid 0; dlid 0; 0,1 port 0", [
        ("Lid", sw["lid"]), ("LocalPort", sw["port"])]))
    r.source(f"The far end of `mlx5_0` port 1 is that of \"controller mlx5_0\" port 1 in {TOPOLOGY_SRC}: "
             f"its link line `[25] \"H-506b4b030043f9e2\"[1](506b4b030043f9e2) # \"controller mlx5_0\" "
             f"lid 34 4xEDR` in the record `Switch 36 \"S-ec0d9a0300f548c0\" # \"SwitchIB Mellanox "
             f"Technologies\" base port 0 lid 29 lmc 0` (vendid=0x2c9, devid=0xcb20, "
             f"sysimgguid=0xec0d9a0300f548c0). Real: the node description, the node type, the GUID, "
             f"NumPorts 36, DevId 0xcb20, the peer port 25 and the switch LID 29.")
    r.source("`smpquery ... nodedesc 0,1/stdout`, `nodeinfo 0,1/stdout`, `portinfo 0,1 0/stdout`: "
             "real-quoted: those values in infiniband-diags' layouts (smpquery.c's node description "
             "padded with dots to 32 columns; libibmad's `Key:....value` dump, the header of a "
             "direct-routed query `# Node info: DR path slid 0; dlid 0; 0,1` as libibmad's portid2str "
             "prints it). RECONSTRUCTED: NodeInfo's BaseVers/ClassVers 1, PartCap 8 and Revision "
             "0x000000a0 (those of the real Switch-IB nodeinfo of tests/fuzz/corpus/farend/"
             "smpquery-ni-switch-guid-r1lead.txt, DevId 0xcb20 too); the portinfo answer cut to the "
             "lines read (Lid) and LocalPort (the whole rdma-core layout: "
             "tests/fuzz/corpus/farend/smpquery-pi-switch-port1-lid0-ibsim.txt).")
    r.source("RECONSTRUCTED: the host side is the base root's (netdata #2620's clean PortCounters, "
             "EDR 100 Gb/s like the topology's link), not the controller's own sysfs; no perfquery "
             "answer is recorded (the topology carries no counters): the peer's counters are "
             "`perfquery: not in this capture`. Expected: the far-end line names `SwitchIB Mellanox "
             "Technologies port 25 (Switch, LID 29)`, its portinfo asked at port 0 (a switch's LID), "
             "no finding (the same verdicts as the base root).")
    r.done("an InfiniBand EDR port cabled to port 25 of a Switch-IB switch (a real topology's pairing)")


def build(out):
    lldp_symbol(out)
    lldp_roce(out)
    lldpd_down(out)
    ib_peer(out)
    ib_rate(out)
    ib_switch(out)


def main():
    if "--check" not in sys.argv:
        build(FIX)
        return 0
    with tempfile.TemporaryDirectory() as d:
        build(d)
        for name in os.listdir(d):
            a, b = tree(os.path.join(d, name)), tree(os.path.join(FIX, name))
            bad = [rel for rel in sorted(set(a) | set(b)) if a.get(rel) != b.get(rel)]
            if bad:
                print(f"{name}: out of date: {bad[:5]} (run tests/link/make_farend.py)")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

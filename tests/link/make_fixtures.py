#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/link-* roots (issue 14: the wire side) from real public captures,
# quoted below with their source. Run it after editing; the output is committed and
# test_link.py checks it is up to date (--check). What is reconstructed says so in SOURCE.md.
import filecmp
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# the corpus files it reads, copied verbatim into the checkout (tests/captures/SOURCE.md)
CORPUS = os.path.join(HERE, "..", "captures")
sys.path.insert(0, os.path.join(HERE, "..", "mlx"))
import mkfixtures  # noqa: E402

# leptonai/gpud pull request #943 (2025-06-20), a ConnectX-7 (board MT_0000000838, firmware
# 28.41.1000): `cat` of every file of /sys/class/infiniband/mlx5_1/ports/1/counters
GPUD943 = {
    "unicast_rcv_packets": 240037171331, "port_xmit_data": 205143497464492,
    "port_xmit_constraint_errors": 0, "VL15_dropped": 0, "port_rcv_errors": 0,
    "port_xmit_wait": 4294967295, "link_error_recovery": 0, "multicast_rcv_packets": 0,
    "multicast_xmit_packets": 0, "port_rcv_remote_physical_errors": 0,
    "port_rcv_packets": 240037171331, "unicast_xmit_packets": 242071897216,
    "excessive_buffer_overrun_errors": 15, "port_rcv_data": 205128687774249,
    "port_rcv_constraint_errors": 0, "link_downed": 255, "local_link_integrity_errors": 0,
    "port_xmit_discards": 65535, "port_rcv_switch_relay_errors": 2,
    "port_xmit_packets": 242071897216, "symbol_error": 0,
}

# netdata/netdata issue #2620 (comment 2019-08-17): `perfquery` of an InfiniBand HCA port
# (Lid 21 port 1), every PortCounters error field 0. The kernel's counters/ files are the same
# PortCounters attribute (drivers/infiniband/core/sysfs.c), so the values are laid out as those.
NETDATA2620 = {
    "symbol_error": 0, "link_error_recovery": 0, "link_downed": 0, "port_rcv_errors": 0,
    "port_rcv_remote_physical_errors": 0, "port_rcv_switch_relay_errors": 0,
    "port_xmit_discards": 0, "port_xmit_constraint_errors": 0, "port_rcv_constraint_errors": 0,
    "local_link_integrity_errors": 0, "excessive_buffer_overrun_errors": 0,
    "port_xmit_data": 13672645927, "port_rcv_data": 2341975277576,
}

# leptonai/gpud issue #1164 (2025-12-02): the kernel's complaint when counters of a restricted
# ConnectX-7 PF ("Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system", d2:00.0) are read.
GPUD1164_LOG = ("Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid "
                "1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), "
                "syndrome (0x9a6171), err(-22)\n")


# Chester-Gillon/ibv_message_passing, ibv_display_infiniband_counters/example_output.txt (commit
# 4ec7afb, 2018-05-20): the PortCounters (and PortCountersExtended data counters) of both ports of
# a ConnectX-2 (mlx4_0, /dev/mst/mt26428_pciconf0) joined port 1 to port 2 by a loopback cable at
# QDR, read by PMA queries of the local ports (libibmad pma_query_via) "when the cable was pulled
# out": SymbolErrorCounter 65535 (16 bits, saturated) and LinkDownedCounter 1 on each port.
# Port 1 transmitted what port 2 received; every other error field 0. The kernel's counters/ files
# are the same PortCounters attribute (drivers/infiniband/core/sysfs.c), laid out as those.
CX2_PULLED = {
    1: {"port_xmit_data": 32630962054, "port_rcv_data": 1001297599,
        "port_xmit_packets": 138432763, "port_rcv_packets": 119660202, "port_xmit_wait": 10716},
    2: {"port_xmit_data": 1001297599, "port_rcv_data": 32630962054,
        "port_xmit_packets": 119660202, "port_rcv_packets": 138432763, "port_xmit_wait": 6292},
}
CX2_PULLED_ERRORS = {
    "symbol_error": 65535, "link_error_recovery": 0, "link_downed": 1, "port_rcv_errors": 0,
    "port_rcv_remote_physical_errors": 0, "port_rcv_switch_relay_errors": 0,
    "port_xmit_discards": 0, "port_xmit_constraint_errors": 0, "port_rcv_constraint_errors": 0,
    "local_link_integrity_errors": 0, "excessive_buffer_overrun_errors": 0, "VL15_dropped": 0,
}

# Chester-Gillon/ibv_message_passing, ibv_message_bw/ring_topology_notes.txt (commit fedc7aa,
# 2021-01-03): ibv_display_local_infiniband_device_statistics on the aarch64 board MYD_CZU4EV_RC
# (PetaLinux 2020.1; a ConnectX-2 VPI, PCIe 5GT/s x1 "downgraded", IB ports 1 and 2 cabled to two
# other ConnectX-2 hosts). The tool reads every file of ports/N/counters/ (and hw_counters/) from
# sysfs every 10 s (CLOCK_MONOTONIC, absolute) and prints those that are non-zero, "value(+delta)"
# where the value changed since the previous sample: "Statistics after 1510 seconds". The error
# counters it did not print were 0; symbol_error among them.
CX2_RING = {
    1: {"port_xmit_data": (1033066276, 49869), "port_xmit_wait": (153, 0),
        "port_rcv_packets": (90350462, 513275), "port_rcv_data": (26618421419, 524621677),
        "link_downed": (1, 0), "port_xmit_packets": (65577458, 5972)},
    2: {"port_xmit_data": (768603440, 49894), "port_xmit_wait": (116, 0),
        "port_rcv_packets": (73333149, 513276), "port_rcv_data": (26127804975, 524622714),
        "link_downed": (2, 0), "port_xmit_packets": (48812663, 5972)},
}
CX2_RING_ZERO = ("symbol_error", "link_error_recovery", "port_rcv_errors",
                 "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
                 "port_xmit_discards", "port_xmit_constraint_errors", "port_rcv_constraint_errors",
                 "local_link_integrity_errors", "excessive_buffer_overrun_errors", "VL15_dropped")


class Root(mkfixtures.Root):
    BUILT_BY = ("Built by `tests/link/make_fixtures.py` from the public captures quoted there "
                "(provenance of each piece below).")


def ib_port(r, dev, counters, state="4: ACTIVE", phys="5: LinkUp", rate="400 Gb/sec (4X NDR)",
            port=1):
    r.rdma(dev, None, None, {port: {"state": state, "phys_state": phys, "rate": rate,
                                    "link_layer": "InfiniBand"}})
    for k, v in counters.items():
        r.write(f"sys/class/infiniband/{dev}/ports/{port}/counters/{k}", f"{v}\n")


def gpud943():
    r = Root("link-ib-cx7-linkdowned")
    r.function("0000:c1:00.0", 0x1021, cls="0x020700", rdma=["mlx5_1"])
    ib_port(r, "mlx5_1", GPUD943)
    r.write("sys/class/infiniband/mlx5_1/fw_ver", "28.41.1000\n")
    r.write("sys/class/infiniband/mlx5_1/board_id", "MT_0000000838\n")
    r.source("`sys/class/infiniband/mlx5_1/ports/1/counters/*`: verbatim values of leptonai/gpud "
             "pull request #943 (2025-06-20, https://github.com/leptonai/gpud/pull/943): link_downed "
             "255 (8-bit, saturated), excessive_buffer_overrun_errors 15, port_xmit_discards 65535, "
             "port_rcv_switch_relay_errors 2, symbol_error 0; board MT_0000000838, fw 28.41.1000 "
             "from the same description. Expected: LINK_FLAPS and LINK_INTEGRITY_ERRORS fire, "
             "LINK_SYMBOL_ERRORS does not.")
    r.source("RECONSTRUCTED: BDF 0000:c1:00.0, device 0x1021 (ConnectX-7, the board id's "
             "family), port state ACTIVE/LinkUp, rate 400 Gb/sec (4X NDR), link_layer InfiniBand "
             "(the capture shows only the counters); no uptime (so no rate is claimed).")
    r.done("ConnectX-7 IB port whose link went down 255+ times (gpud #943 counters)")


def netdata2620():
    r = Root("link-ib-clean")
    r.function("0000:3b:00.0", 0x101b, cls="0x020700", rdma=["mlx5_0"])
    ib_port(r, "mlx5_0", NETDATA2620, rate="100 Gb/sec (4X EDR)")
    r.write("proc/uptime", "350735.47 5611712.30\n")
    r.source("`sys/class/infiniband/mlx5_0/ports/1/counters/*`: the PortCounters of the "
             "`perfquery` output in netdata/netdata issue #2620 (comment of 2019-08-17, "
             "https://github.com/netdata/netdata/issues/2620), every error counter 0, "
             "PortXmitData 13672645927, PortRcvData 2341975277576, laid out as the kernel's "
             "counters/ files (the same IBA attribute). Expected: no LINK_* finding.")
    r.source("RECONSTRUCTED: BDF, device 0x101b (the HCA model is not in the thread), port "
             "state/rate/link_layer, `proc/uptime` (about four days); hw_counters/ not present "
             "(reported absent).")
    r.done("an InfiniBand port with clean PortCounters (netdata #2620 perfquery)")


def cx2_cable_pulled(name, uptime):
    r = Root(name)
    r.function("0000:04:00.0", 0x673c, cls="0x0c0600", driver="mlx4_core", rdma=["mlx4_0"],
               revision=0xb0)
    for port, data in CX2_PULLED.items():
        ib_port(r, "mlx4_0", {**CX2_PULLED_ERRORS, **data}, state="1: DOWN", phys="2: Polling",
                rate="40 Gb/sec (4X QDR)", port=port)
    r.source("`sys/class/infiniband/mlx4_0/ports/*/counters/*`: the PortCounters of both ports "
             "of a ConnectX-2 (mlx4_0, MT26428) cabled port 1 to port 2, quoted from "
             "Chester-Gillon/ibv_message_passing `ibv_message_passing_c_project/source/"
             "ibv_display_infiniband_counters/example_output.txt` (commit 4ec7afb, 2018-05-20, "
             "https://github.com/Chester-Gillon/ibv_message_passing), read by PMA queries of the "
             "local ports \"when the cable was pulled out\": IB_PC_ERR_SYM_F 65535 (16 bits, "
             "saturated) and IB_PC_LINK_DOWNED_F 1 on each port, every other error field 0, the "
             "data and packet counts and XmitWait as printed. real-quoted: the tool printed "
             "libibmad field names, laid out here as the kernel's counters/ files (the same IBA "
             "PortCounters attribute, drivers/infiniband/core/sysfs.c). The author adds that once "
             "the cable was reconnected and the links came back the symbol count read 0 again "
             "and the link-downed count stayed 1.")
    r.source("RECONSTRUCTED: BDF 0000:04:00.0, PCI id 15b3:673c (MT26428 from the capture's "
             "/dev/mst/mt26428_pciconf0), class, driver mlx4_core, port state DOWN/Polling (the "
             "cable was out; the capture prints no state), rate 40 Gb/sec (4X QDR, the author's "
             "notes on the same loopback: QDR link layer), no fw_ver/board_id, no hw_counters/.")
    r.source("RECONSTRUCTED: the PCI revision 0xb0 (`revision`), ConnectX-2's (mstflint's dev_mgt "
             "table before its 8e08c36: ConnectX2 is hw revision 0xb0, ConnectX shares the PCI ids at "
             "0xa0), since the author names the card a ConnectX-2: hwcheck names it ConnectX-2 from it.")
    if uptime is None:
        r.source("No `proc/uptime` (the capture has none): the symbol error rate cannot be had, "
                 "so LINK_SYMBOL_ERRORS must say `unknown` on both ports, never pass; LINK_FLAPS "
                 "fires on link_downed 1.")
        r.done("ConnectX-2 ports whose cable was pulled: symbol_error saturated, no uptime")
        return
    r.write("proc/uptime", f"{uptime}.00 {uptime * 3}.00\n")
    r.source(f"RECONSTRUCTED: `proc/uptime` {uptime} s (the capture has no uptime). "
             "LINK_SYMBOL_ERRORS fires for any uptime under 546 h (65535 / 120 per hour), so "
             "this root's firing rests on the reconstructed uptime: the REAL-DATA.md row is "
             "RECONSTRUCTED, the count alone is real-quoted. Expected: LINK_SYMBOL_ERRORS warn "
             "'65535 (saturated: at least)' on mlx4_0/1 and mlx4_0/2, LINK_FLAPS warn.")
    r.done("ConnectX-2 ports whose cable was pulled: symbol_error saturated, uptime reconstructed")


def cx2_ring_window():
    r = Root("link-ib-cx2-ring-window")
    r.function("0000:01:00.0", 0x673c, cls="0x0c0600", driver="mlx4_core", rdma=["mlx4_0"],
               revision=0xb0)
    for port, counters in CX2_RING.items():
        now = {**{k: 0 for k in CX2_RING_ZERO}, **{k: v for k, (v, _) in counters.items()}}
        ib_port(r, "mlx4_0", now, rate="40 Gb/sec (4X QDR)", port=port)
    r.source("`sys/class/infiniband/mlx4_0/ports/*/counters/*`: the sysfs counters of both IB "
             "ports of the ConnectX-2 VPI (mlx4_0) of the aarch64 board MYD_CZU4EV_RC, as "
             "`ibv_display_local_infiniband_device_statistics` printed them \"after 1510 "
             "seconds\" in Chester-Gillon/ibv_message_passing `ibv_message_passing_c_project/"
             "source/ibv_message_bw/ring_topology_notes.txt` (commit fedc7aa, 2021-01-03, "
             "https://github.com/Chester-Gillon/ibv_message_passing): link_downed 1 (port 1) and "
             "2 (port 2), unchanged over the tool's last 10 s sample (no `(+n)`), the data, "
             "packet and XmitWait counts as printed. real: the tool reads these very files and "
             "prints each by its file name; the error counters it did not print (symbol_error "
             "and the rest) are 0, since it prints every non-zero one (its source, same "
             "commit). The 10 s deltas it printed (port_rcv_data +524621677 on port 1, ...) are "
             "kept in tests/link/make_fixtures.py (CX2_RING) for a `--watch` capture.")
    r.source("RECONSTRUCTED: BDF 0000:01:00.0, PCI id 15b3:673c (a ConnectX-2 VPI QDR, "
             "MT26428: the notes name the card, not its id), "
             "class, driver mlx4_core, port state ACTIVE/LinkUp (the notes' RDMA tests ran over "
             "these ports), rate 40 Gb/sec (4X QDR), no `proc/uptime`, no hw_counters/ (the "
             "tool printed none non-zero for this run). Expected: LINK_FLAPS warn on mlx4_0/1 "
             "and mlx4_0/2 (link_downed since boot), LINK_SYMBOL_ERRORS and "
             "LINK_INTEGRITY_ERRORS silent (0).")
    r.source("RECONSTRUCTED: the PCI revision 0xb0 (`revision`), ConnectX-2's (mstflint's dev_mgt "
             "table before its 8e08c36: ConnectX2 is hw revision 0xb0, ConnectX shares the PCI ids at "
             "0xa0), since the author names the card a ConnectX-2: hwcheck names it ConnectX-2 from it.")
    r.done("ConnectX-2 ports of an aarch64 board: links went down since boot, none in the 10 s sample")


def gpud1164():
    r = Root("link-ib-restricted-pf")
    r.function("0000:d2:00.0", 0x1021, cls="0x020700", rdma=["mlx5_4"])
    ib_port(r, "mlx5_4", {"symbol_error": 0, "link_downed": 0})
    r.command(["dmesg"], GPUD1164_LOG.encode())
    r.source("`hwcheck/commands/dmesg/stdout`: verbatim journal line of leptonai/gpud issue #1164 "
             "(2025-12-02, https://github.com/leptonai/gpud/issues/1164): `mlx5_core 0000:d2:00.0: "
             "mlx5_cmd_out_err:838: ACCESS_REG(0x805) op_mod(0x1) failed ... err(-22)` for the "
             "ConnectX-7 'mezz internal for Nvidia Umbriel system' at d2:00.0 (15b3:1021), the "
             "failure node_exporter issue #3434 and gpud PR #1167 describe for restricted PFs. "
             "Expected: the port's counters are `blocked` (never read), LINK_* rules `unknown`.")
    r.source("RECONSTRUCTED: RDMA device name mlx5_4, port state/rate/link_layer, the counter "
             "files (present but must not be read).")
    r.done("a restricted ConnectX-7 PF whose IB counters must not be read (gpud #1164)")


def mstlink_root(name, bdf, device, fw, board, rate, link_layer, seed, cls="0x020000"):
    """A port mlx5_0 (ACTIVE, LinkUp) of function BDF whose `mstlink -m -c` answer is the fuzz
    corpus capture SEED."""
    r = Root(name)
    r.function(bdf, device, cls=cls, rdma=["mlx5_0"])
    r.rdma("mlx5_0", fw, board, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                     "rate": rate, "link_layer": link_layer}})
    with open(os.path.join(HERE, "..", "fuzz", "corpus", "link", seed), "rb") as f:
        r.command(["mstlink", "-d", bdf, "-m", "-c"], f.read())
    return r


def bf3_mlxlink():
    r = mstlink_root("link-bf3-mlxlink-clean", "0000:03:00.0", 0xa2dc, "32.43.2402", None,
                     "100 Gb/sec (4X EDR)", "Ethernet", "mlxlink-bf3-100g-m-c-sigcomm26.txt")
    r.source("`hwcheck/commands/mstlink -d 0000:03:00.0 -m -c/stdout`: verbatim first answer of the "
             "SIGCOMM 2026 SmartNIC tutorial README (BlueField-3, `sudo mlxlink -d "
             "/dev/mst/mt41692_pciconf0 -p 1 -m -c`, 03:00.0 = mlx5_0, firmware 32.43.2402): 100G "
             "4x, Standard RS-FEC RS(528,514), No issue was observed, effective errors 0, raw and "
             "effective BER 15E-255, per-lane 0,0,0,0 over 25074.8 min; also "
             "tests/fuzz/corpus/link/mlxlink-bf3-100g-m-c-sigcomm26.txt. Expected: no LINK_* finding.")
    r.source("RECONSTRUCTED: the argv (the capture named the mst device and `-p 1`), device id 0xa2dc (BlueField-3 integrated ConnectX), "
             "port state/rate (as mlxlink reports: Active/LinkUp, 100G 4x), no netdev.")
    r.done("a BlueField-3 100G port whose mlxlink counters are clean")



def cx4_forum():
    r = mstlink_root("link-mstlink-cx4-100g-forum", "0000:01:00.0", 0x1013, None, None,
                     "100 Gb/sec (4X EDR)", "Ethernet", "mlxlink-cx4-100g-c-nvforum.txt")
    r.source("`hwcheck/commands/mstlink -d 0000:01:00.0 -m -c/stdout`: verbatim `mlxlink -d "
             "/dev/mst/mt4115_pciconf0 -c` of a ConnectX-4 (mt4115) on a riser card of a CentOS 7.6 "
             "aarch64 server, NVIDIA developer forum thread 'How to evaluate the eye information of "
             "Mellanox ConnectX-4 network card?' (https://forums.developer.nvidia.com/t/206063), as the "
             "stored page renders it (one blank line after each line, the column padding collapsed to "
             "one space; the prompt line dropped); also tests/fuzz/corpus/link/mlxlink-cx4-100g-c-nvforum.txt: "
             "Active/LinkUp 100GbE 4x, Standard RS-FEC - RS(528,514), Status Opcode 0, 'Recommendation : "
             "No issue was observed.' (this firmware ends the sentence with a period), effective errors "
             "0, raw BER 3E-12, lane errors 26711,0,0,9108 over 1715.4 min. Expected: no "
             "LINK_TOOL_RECOMMENDATION (the firmware observed no issue), no LINK_RAW_BER_HIGH (3E-12, "
             "far under a tenth of RS(528,514)'s 5e-5), no LINK_EFFECTIVE_ERRORS.")
    r.source("RECONSTRUCTED: the argv (the capture ran `-c` on the mst device: no Module Info, so "
             "LINK_MODULE_THRESHOLDS and LINK_MODULE_RX_POWER_LOW say unknown), BDF 0000:01:00.0, device 0x1013 (mt4115 = "
             "ConnectX-4), port state/rate/link_layer as mlxlink reports them (Active, LinkUp, 100GbE: "
             "Ethernet), no firmware version, no netdev.")
    r.done("a ConnectX-4 100G port whose older firmware says 'No issue was observed.' with a period")


# bluebanquise/bluebanquise, documentation/resources/mellanox.rst (commit ea66a18, 2025-11-13,
# author oxedions, 'Doc - Add mellanox resources page'): the answer of `sudo mlxlink -d mlx5_0 -p 1`
# on the ConnectX-5 VPI (mt4119, MCX555A-ECA, firmware 16.35.4506, MFT 4.30.1-113) whose mlxconfig
# query the same page shows with LINK_TYPE_P1 IB(1): an InfiniBand port Active at 4X SDR whose
# Enabled Link Speed and Supported Cable Speed are both 0x00000001 (SDR), Status Opcode 25, Group
# Opcode PHY FW, 'Recommendation : Cable speed not enabled'. The page's mlxcables answer for
# mt4119_pciconf0_cable_0 is a Mellanox QSFP28 passive copper cable (40GBASE-CR4, 25GBASE-CR CA-25G-N
# or 50GBASE-CR2 compliance codes, 2 m, no diagnostics). Kept verbatim (the rst indentation removed)
# in tests/fuzz/corpus/link/mlxlink-cx5-ib-sdr-cable-speed-bluebanquise.txt.
def cx5_ib_sdr_cable_speed():
    r = mstlink_root("link-mstlink-cx5-ib-sdr-cable-speed", "0000:5e:00.0", 0x1017, "16.35.4506", None,
                     "10 Gb/sec (4X SDR)", "InfiniBand", "mlxlink-cx5-ib-sdr-cable-speed-bluebanquise.txt",
                     cls="0x020700")
    r.source("`hwcheck/commands/mstlink -d 0000:5e:00.0 -m -c/stdout`: verbatim answer (the rst code "
             "block's four-space indentation removed, nothing else) of `sudo mlxlink -d mlx5_0 -p 1` in "
             "bluebanquise/bluebanquise `documentation/resources/mellanox.rst` (commit ea66a18d9d5b, "
             "2025-11-13, author oxedions; https://github.com/bluebanquise/bluebanquise): a ConnectX-5 "
             "VPI (the page's mlxconfig query of /dev/mst/mt4119_pciconf0: MCX555A-ECA, EDR IB and "
             "100GbE, LINK_TYPE_P1 IB(1); Tool Information: firmware 16.35.4506, mft 4.30.1-113), port "
             "Active/LinkUp at IB-SDR 4x, No FEC, Enabled Link Speed and Supported Cable Speed both "
             "0x00000001 (SDR), Status Opcode 25, Group Opcode PHY FW, 'Recommendation : Cable speed not "
             "enabled'. The same page's `mlxcables` answer (mt4119_pciconf0_cable_0) is a Mellanox QSFP28 "
             "passive copper cable whose compliance codes are Ethernet only (40GBASE-CR4, 25GBASE-CR "
             "CA-25G-N or 50GBASE-CR2), 2 m, no diagnostics: not recorded here (hwcheck does not run "
             "mlxcables); also tests/fuzz/corpus/link/mlxlink-cx5-ib-sdr-cable-speed-bluebanquise.txt. "
             "Expected: LINK_TOOL_RECOMMENDATION warn (the firmware's own diagnosis of this port); "
             "LINK_RATE_LIMITED info (4X SDR below the EDR lanes every InfiniBand ConnectX-5 board "
             "supports, the cable's Supported Cable Speed SDR only: the cable limits).")
    r.source("RECONSTRUCTED: the argv (the capture ran `-d mlx5_0 -p 1`: no Module Info and no "
             "counters, so the module and counter rules say unknown), BDF 0000:5e:00.0 and device "
             "0x1017 (the page's `lspci` of a ConnectX-5 MT27800 at 5e:00.0 on host 'mgmt', which the "
             "page does not say is the same card; the id itself is the capture's: the page's mlxconfig "
             "query names the device mt4119_pciconf0, 4119 = 0x1017, MCX555A-ECA), class 0x020700, "
             "fw_ver (the capture's Tool "
             "Information), port 1 state/rate/link_layer as mlxlink reports them (Active, LinkUp, "
             "4X SDR, InfiniBand: LINK_TYPE_P1 IB), no counters files, no netdev, no board_id.")
    r.done("a ConnectX-5 EDR port at 4X SDR whose firmware says 'Cable speed not enabled'")

# An operator's notes on Cumulus Linux switches (2026-03-25, 'Cumulus, NVUE, MLAG', item 6: "Random
# packet loss on a 400G link"): the lines of `mlxlink -d /dev/mst/mt53104_pci_cr0 -p <port>
# --show_counters` they quote, verbatim (their spacing). Recommendation: Bad signal integrity.
SWITCH400G_LINES = """Recommendation      : Bad signal integrity
Effective Physical Errors : 0
Effective Physical BER    : 15E-255
Raw Physical BER         : 2E-5
Link Down Counter        : 6
"""


def bad_signal_400g():
    q = SWITCH400G_LINES.splitlines(keepends=True)
    text = ("\nOperational Info\n----------------\n"
            "State                              : Active\n"
            "Physical state                     : LinkUp\n"
            "Speed                              : 400G\n"
            "Width                              : 4x\n"
            "FEC                                : Standard_RS-FEC - (544,514)\n"
            "\nTroubleshooting Info\n--------------------\n" + q[0] +
            "\nPhysical Counters and BER Info\n------------------------------\n" + "".join(q[1:]))
    r = Root("link-mstlink-400g-bad-signal")
    r.function("0000:c1:00.0", 0x1021, rdma=["mlx5_0"])
    r.rdma("mlx5_0", "28.43.1014", None, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                              "rate": "400 Gb/sec (4X NDR)", "link_layer": "Ethernet"}})
    r.command(["mstlink", "-d", "0000:c1:00.0", "-m", "-c"], text.encode())
    r.source("`hwcheck/commands/mstlink -d 0000:c1:00.0 -m -c/stdout`: its five value lines "
             "(Recommendation: Bad signal integrity; Effective Physical Errors 0; Effective Physical "
             "BER 15E-255; Raw Physical BER 2E-5; Link Down Counter 6) verbatim, spacing as quoted, "
             "from an operator's public notes 'Cumulus, NVUE, MLAG' (2026-03-25, item 6, 'Random "
             "packet loss on a 400G link ... the link \"works\" and loses packets ... reseat or "
             "replace the optics'): `mlxlink -d /dev/mst/mt53104_pci_cr0 -p <port> --show_counters` "
             "on the SWITCH end (a Spectrum ASIC) of the 400G link; found through the code index, its "
             "repository name not recorded. Expected: LINK_TOOL_RECOMMENDATION warn; LINK_FLAPS warn "
             "(Link Down Counter 6: the port has no netdev counters, so mstlink's counter is the "
             "source); no LINK_RAW_BER_HIGH (2E-5 is under a tenth of RS(544,514)'s 2.4e-4); no "
             "LINK_EFFECTIVE_ERRORS.")
    r.source("RECONSTRUCTED: that these lines are a ConnectX-7's (15b3:1021, 0000:c1:00.0, mlx5_0, "
             "firmware 28.43.1014, Ethernet 400G; the quote is the switch port's, the host end of such "
             "a link runs the same PHY firmware family and mlxlink); the section headers and the "
             "Operational Info (Active, LinkUp, 400G 4x, Standard_RS-FEC (544,514): the FEC of 400G "
             "PAM4) in mlxlink's layout as corpus `mlxlink/cx7-400gbe_mlxlink-port_...trex-issue1185.txt`.")
    r.done("a 400G port whose mlxlink says 'Bad signal integrity' (an operator's quoted counters)")


# A public NCCL troubleshooting report (host brev-7hpnmoj9o, 8 x A100-SXM4-40GB and 8 ConnectX-6
# MT4123 at IB HDR 2x, firmware 20.36.1010, MFT 4.24.0-72; found through the code index, its
# repository name not recorded): tests/link/real-data/mlxlink-cx6-hdr-plr-8port.txt holds, verbatim,
# the first card's `mlxlink --show_ber_monitor` answer (the seven others print the same) and the
# `mlxlink --show_counters | grep -i -E "error|...|symbol|corrected"` loop over all eight.
HDR_CAPTURE = os.path.join(HERE, "real-data", "mlxlink-cx6-hdr-plr-8port.txt")


def hdr_capture():
    """The Operational..Tool Information lines of the --show_ber_monitor answer, and the counter
    lines of each card (mlx5_0..7) from the grep loop."""
    with open(HDR_CAPTURE) as f:
        text = f.read()
    head = text.split("========== mt4123_pciconf0 ==========\n", 1)[1].split(" \n-E-", 1)[0]
    cards = text.split("FEC Counters ==========\n")[1:]
    lines = [c.split("Physical Counters and BER Info\n", 1)[1].split("==========", 1)[0] for c in cards]
    return head, lines


def hdr_plr_8port():
    head, counters = hdr_capture()
    r = Root("link-ib-cx6-hdr-plr-8port")
    for i, lines in enumerate(counters):
        bdf, dev = f"0000:{0x12 + i:02x}:00.0", f"mlx5_{i}"
        r.function(bdf, 0x101b, cls="0x020700", rdma=[dev])
        r.rdma(dev, "20.36.1010", None, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                             "rate": "100 Gb/sec (2X HDR)", "link_layer": "InfiniBand"}})
        text = head + "\nPhysical Counters and BER Info\n------------------------------\n" + lines
        r.command(["mstlink", "-d", bdf, "-m", "-c"], text.encode())
    r.source("`hwcheck/commands/mstlink -d 0000:1?:00.0 -m -c/stdout` (eight ConnectX-6, mlx5_0..7): "
             "verbatim lines of a public NCCL troubleshooting report (host brev-7hpnmoj9o, 8 x "
             "A100-SXM4-40GB, `lspci`: eight 'MT28908 Family [ConnectX-6]' Infiniband controllers "
             "at 12:00.0..19:00.0; `ibstat`: CA type MT4123, firmware 20.36.1010, Active/LinkUp, "
             "Rate 100; found through the code index, its repository name not recorded), kept in "
             "tests/link/real-data/mlxlink-cx6-hdr-plr-8port.txt: the Operational, Supported, "
             "Troubleshooting and Tool Information lines of `mlxlink -d /dev/mst/mt4123_pciconf0 "
             "--show_ber_monitor` (IB-HDR, 2x, `RS-FEC - (544,514) + PLR`, No issue was observed, "
             "MFT 4.24.0-72: all eight cards print the same), then each card's counter lines of "
             "`mlxlink --show_counters | grep -i -E \"error|discard|drop|fec|ber|symbol|corrected\"`: "
             "Symbol Errors 0, Symbol BER 15E-255, Effective Physical Errors 0, Effective Physical "
             "BER 15E-255, two lanes of raw errors (3183333,242074 ... 32379149,224947) and Raw "
             "Physical BER 4E-9 .. 1E-7 (mlx5_3), Link Error Recovery Counter 0; also "
             "tests/fuzz/corpus/link/mlxlink-cx6-hdr-plr-counters-grep.txt. Expected: no "
             "LINK_RAW_BER_HIGH (the worst, 1E-7, is far under a tenth of RS(544,514)'s 2.4e-4), "
             "no LINK_EFFECTIVE_ERRORS, no LINK_TOOL_RECOMMENDATION; symbol_errors 0 read.")
    r.source("RECONSTRUCTED: one answer per card made of the two verbatim pieces (the capture ran "
             "two commands, and its grep dropped the counters' dashes line, Time Since Last Clear "
             "and Link Down Counter: those facts are absent, and with no Module Info (no -m) the "
             "module rules say unknown); the argv; BDF 0000:12:00.0 + i for mlx5_i (lspci and "
             "nvidia-smi topo order); device 0x101b (MT4123 = ConnectX-6); the sysfs port files "
             "(ibstat's Active/LinkUp, Rate 100 as 2X HDR, InfiniBand); no counters/ files (the "
             "report's perfquery asked another LID) and no netdev.")
    r.done("eight ConnectX-6 HDR ports with PLR whose real raw BERs (4E-9..1E-7) are healthy")


# An ibdiagnet-derived BER table of a real fabric of ConnectX-7 hosts (MT4129) and Quantum-class
# leaves, spines and cores (zhangdailin/NVIDIA_NETWORK_HEALTH_CHECK_PLATFORM, test_data/ber(1).csv,
# commit aab9dc1, 2026-01-09: 30458 ports, IB-Analysis-Pro's rendering of ibdiagnet's per-port Raw,
# Effective and Symbol BER; no FEC mode, speed or counts). tests/link/real-data/ holds, verbatim,
# its header, the host ports whose raw BER is 1E-5 or more, the one host port whose effective BER
# is above 1E-12, and the leaf ports at the other end of those links.
IBDIAG_BER = os.path.join(HERE, "real-data", "ibdiag-ber-cx7-fabric-ca-ports.csv")


def ibdiag_row(node):
    with open(IBDIAG_BER) as f:
        for ln in f:
            cells = ln.rstrip("\n").split(",")
            if cells[2] == node:
                return cells
    raise KeyError(node)


def ibdiag_root(name, node, bdf, note, expected, title):
    """A ConnectX-7 host port whose mstlink answer is the three BERs of NODE's row of the table."""
    guid, _, _, peer, raw, eff, sym, _ = ibdiag_row(node)
    dev = node.split()[-1]
    text = ("\nOperational Info\n----------------\n"
            "State                              : Active\n"
            "Physical state                     : LinkUp\n"
            "\nPhysical Counters and BER Info\n------------------------------\n"
            f"Effective Physical BER             : {eff}\n"
            f"Raw Physical BER                   : {raw}\n"
            f"Symbol BER                         : {sym}\n")
    r = Root(name)
    r.function(bdf, 0x1021, cls="0x020700", rdma=[dev])
    r.rdma(dev, None, None, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                 "link_layer": "InfiniBand"}})
    r.command(["mstlink", "-d", bdf, "-m", "-c"], text.encode())
    r.source(f"`hwcheck/commands/mstlink -d {bdf} -m -c/stdout`: its three BER values verbatim "
             f"(Raw {raw}, Effective {eff}, Symbol {sym}, the table's spelling) from the row of host "
             f"port {node} (NodeGUID {guid}, port 1, attached to {peer}) in a real ibdiagnet-derived "
             "BER table of a fabric of ConnectX-7 hosts and Quantum-class switches "
             "(zhangdailin/NVIDIA_NETWORK_HEALTH_CHECK_PLATFORM, test_data/ber(1).csv, commit aab9dc1, "
             "2026-01-09; 30458 ports; its notes call it IB-Analysis-Pro's output of ibdiagnet's "
             "per-port BERs), kept with the other rows used in "
             "tests/link/real-data/ibdiag-ber-cx7-fabric-ca-ports.csv. " + note + " ibdiagnet "
             "reads the BERs from each port's firmware (--get_phy_info; db_csv PHY_DB16 "
             "mantissa/exponent pairs, per the platform's notes), as mlxlink reads its BER lines "
             "(PPCNT physical layer statistical counters, raw_ber_coef E- raw_ber_magnitude). The "
             "table has no FEC mode and no counts. Expected: " + expected)
    r.source("RECONSTRUCTED: that the BERs are mstlink's answer (that ibdiagnet's figures are the "
             "same PPCNT fields mlxlink prints is inferred, no source read here says so; the text "
             "layout: section headers and "
             "key padding of the corpus captures; only the table's three values are printed, no FEC, "
             "speed, width, counts or Module Info: those facts are absent), State Active / LinkUp "
             "(ibdiagnet reads the BER of active ports), the argv, the BDF, device 0x1021 "
             f"(MT4129 = ConnectX-7), RDMA device {dev} port 1 as the node description names it, "
             "InfiniBand link layer, no port rate, no counters/ files, no netdev.")
    r.done(title)


def ibdiag_ber():
    ibdiag_root("link-ib-cx7-ibdiag-raw-ber", "MDC-DH1E-F01-POD3-GPU-031 mlx5_9", "0000:9a:00.0",
                "The worst host port of the 4989 (the leaf's own receiver on that link reads 3.00E-08: "
                "one direction).",
                "the FEC is not recorded, but no FEC a ConnectX runs corrects more than RS(544,514) "
                "(2.4e-4), and 4E-5 is past a tenth of that, so it is close to the limit of whichever "
                "runs (RS(544,514) + PLR, or the low-latency RS(272,257+1) an NDR ConnectX-7 may run, "
                "corpus NDR capture): LINK_RAW_BER_HIGH warn, the FEC shown absent (the effective BER "
                "6E-14, far under the raw one, shows a FEC at work); LINK_EFFECTIVE_ERRORS unknown (no "
                "error count; the effective BER 6E-14 is under 1e-12).",
                "a ConnectX-7 host port whose real ibdiagnet raw BER is 4E-5, its FEC not recorded")
    ibdiag_root("link-ib-cx7-ibdiag-raw-ber-3e5", "MDC-DH1W-A06-POD3-GPU-060 mlx5_6", "0000:29:00.0",
                "The second-worst host port of the 4989 (the leaf's own receiver on that link, port 28 "
                "of MDC-DH1W-G03-21U-POD3-RAIL6-IBLF-002, reads 1.00E-10: one direction).",
                "3E-5 is past a tenth of RS(544,514)'s 2.4e-4, the strongest FEC a ConnectX runs, by "
                "little (the bound is 2.4e-5), so it is close to the limit of whichever FEC runs: "
                "LINK_RAW_BER_HIGH warn, the FEC shown absent (the effective BER 1E-15, far under the "
                "raw one, shows a FEC at work); LINK_EFFECTIVE_ERRORS unknown (no error count; 1E-15 is "
                "under 1e-12).",
                "a ConnectX-7 host port whose real ibdiagnet raw BER is 3E-5, its FEC not recorded")
    ibdiag_root("link-ib-cx7-ibdiag-eff-ber", "MDC-DH1E-D24-POD1-GPU-081 mlx5_2", "0000:1a:00.0",
                "The one host port of the 4989 whose effective BER is above 1e-12 (the leaf's own "
                "receiver on that link reads an effective BER of 1.50E-254, its floor).",
                "LINK_EFFECTIVE_ERRORS warn on the effective BER 2E-12 above link_effective_ber_max "
                "(1e-12), the error count unknown (the BER alone is enough); LINK_RAW_BER_HIGH unknown "
                "(phy.fec absent; 4E-6 is under a tenth of either RS limit).",
                "a ConnectX-7 host port whose real ibdiagnet effective BER is 2E-12, above 1e-12")


# A ConnectX-7 400GbE port with an NVIDIA-made 400GBASE-DR4 OSFP (vendor SAKURA, OSFP-400G-DR4):
# the real `mlxlink -d mlx5_0 -m -c --rx_fec_histogram --show_histogram --show_serdes_tx --json`
# answer (MFT 4.34.1-10, firmware 28.47.1088) that yuuki/rdma_exporter kept as a decoder fixture
# (internal/mlxlink/testdata/mlxlink/mft-4.34.1-400g-fec-serdes.json, commit 72aa3e75, 2026-08-11;
# its design notes: "real MFT 4.34.1 responses", the serial replaced with <redacted>), kept
# verbatim in tests/link/real-data/. hwcheck runs mstlink without --json: the values are rendered
# in mlxlink's text layout (the corpus captures' key order and padding).
DR4_CAPTURE = os.path.join(HERE, "real-data", "mlxlink-cx7-400g-dr4-osfp-mft4.34.1.json")
# mlxlink's text order of the sections and keys hwcheck reads (corpus trex #1185, NDR --show_mo,
# BlueField-3 -c captures); keys of the capture not listed follow their section in its order
DR4_ORDER = [
    ("Operational Info", ["State", "Physical state", "Speed", "Width", "FEC", "Loopback Mode",
                          "Auto Negotiation"]),
    ("Supported Info", ["Enabled Link Speed (Ext.)", "Supported Cable Speed (Ext.)"]),
    ("Troubleshooting Info", ["Status Opcode", "Group Opcode", "Recommendation"]),
    ("Tool Information", ["Firmware Version", "amBER Version", "MFT Version"]),
    ("Module Info", ["Temperature [C]", "Voltage [mV]", "Bias Current [mA]", "Rx Power Current [dBm]",
                     "Tx Power Current [dBm]", "Identifier", "Compliance", "Cable Technology",
                     "Cable Type", "OUI", "Vendor Name", "Vendor Part Number", "Vendor Serial Number",
                     "Rev", "Wavelength [nm]", "Transfer Distance [m]"]),
    ("Physical Counters and BER Info", ["Time Since Last Clear [Min]", "Effective Physical Errors",
                                        "Effective Physical BER", "Raw Physical Errors Per Lane",
                                        "Raw Physical BER Per Lane", "Link Down Counter",
                                        "Link Error Recovery Counter", "Raw Physical BER"]),
]


def mlxlink_text(out):
    """mlxlink's text rendering of the sections of its --json answer's output object."""
    text = ""
    for sec, keys in DR4_ORDER:
        vals = out[sec]
        text += "\n%s\n%s\n" % (sec, "-" * len(sec))
        for k in keys + [k for k in vals if k not in keys]:
            v = vals[k]
            if isinstance(v, dict):  # {"values": [...]} (per lane) or {"mask", "values"} (speeds)
                v = ("%s (%s)" % (v["mask"], ",".join(v["values"])) if "mask" in v
                     else ",".join(v["values"]))
            text += "%-35s: %s\n" % (k, v)
    return text


def dr4_osfp_400g():
    with open(DR4_CAPTURE) as f:
        out = json.load(f)["result"]["output"]
    r = Root("link-mstlink-cx7-400g-dr4-osfp")
    r.function("0000:c1:00.0", 0x1021, rdma=["mlx5_0"])
    r.rdma("mlx5_0", "28.47.1088", None, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                              "rate": "400 Gb/sec (4X NDR)", "link_layer": "Ethernet"}})
    r.command(["mstlink", "-d", "0000:c1:00.0", "-m", "-c"], mlxlink_text(out).encode())
    r.source("`hwcheck/commands/mstlink -d 0000:c1:00.0 -m -c/stdout`: the values of a real `mlxlink "
             "-d mlx5_0 -m -c --rx_fec_histogram --show_histogram --show_serdes_tx --json` answer "
             "(MFT 4.34.1-10, firmware 28.47.1088: a ConnectX-7), kept by yuuki/rdma_exporter as a "
             "decoder fixture (internal/mlxlink/testdata/mlxlink/mft-4.34.1-400g-fec-serdes.json, "
             "commit 72aa3e75, 2026-08-11; its design notes call it a real MFT 4.34.1 response, the "
             "module serial replaced with <redacted>), verbatim in "
             "tests/link/real-data/mlxlink-cx7-400g-dr4-osfp-mft4.34.1.json: Active, 400G 4x, "
             "Standard_RS-FEC (544,514), No issue was observed, effective errors 0, raw BER 5E-10 "
             "(lanes 5550000,28835305,14640119,16746846 in 4876.6 min), Link Down Counter 0; an "
             "OSFP 400GBASE-DR4 optic (SAKURA OSFP-400G-DR4, module firmware 40.242.17) at 62 C of "
             "its [-10..80], 3228.9 mV of [2970..3630], bias 266.360,266.360,249.272,249.272 mA of "
             "[40..480], Rx 3.608,3.292,3.237,2.651 dBm of [-9.914..6.999], Tx "
             "2.219,1.219,1.720,1.300 dBm of [-6.904..6.999], Rx LOS 0,0,0,0; enabled speeds up to "
             "400G_4X/400G_8X, cable 400G_4X. Expected: no LINK_* finding: LINK_MODULE_THRESHOLDS "
             "and LINK_MODULE_RX_POWER_LOW judge mstlink's readings (no netdev decodes the EEPROM) "
             "and every one is inside its range and margin; LINK_RAW_BER_HIGH silent (5E-10 is far "
             "under a tenth of RS(544,514)'s 2.4e-4).")
    r.source("RECONSTRUCTED: the text layout (hwcheck runs mstlink without --json: each value is "
             "rendered as `Key<padding to 35>: value` in the section and key order of the corpus "
             "captures, per-lane lists joined by commas, speeds as `mask (list)`; the FEC histogram "
             "and SerDes sections are left out, hwcheck does not read them); the argv; BDF "
             "0000:c1:00.0, device 0x1021 (ConnectX-7, as its firmware 28.x says), mlx5_0 port 1 "
             "sysfs (Active/LinkUp, 400 Gb/sec, Ethernet as mlxlink's Active 400G); no netdev.")
    r.done("a ConnectX-7 400G port with a real, healthy DR4 optic read by mlxlink (readings and ranges)")


def ndr_dac_los():
    r = mstlink_root("link-module-cx7-ndr-dac-los", "0000:8e:00.0", 0x1021, "28.46.3048",
                     "MT_0000000838", "400 Gb/sec (4X NDR)", "InfiniBand",
                     "mlxlink-cx7-ndr-show-module.txt", cls="0x020700")
    r.source("`hwcheck/commands/mstlink -d 0000:8e:00.0 -m -c/stdout`: verbatim `sudo mlxlink -d "
             "/dev/mst/mt4129_pciconf0 --show_mo` of a ConnectX-7 MCX75310AAS-NEA on host csegpu1 "
             "(GitHub markdown 'How to connect two GPU servers using Infiniband DAC cables', owning "
             "repository not recorded; corpus `mlxlink/cx7-ndr-mcx75310aas_mlxlink-show_module_ib-ndr-4x_osfp-dac.txt`, "
             "also tests/fuzz/corpus/link/mlxlink-cx7-ndr-show-module.txt, the prompt line dropped): "
             "Active/LinkUp IB-NDR 4x, an FS OSFPFL-400G-PC01 passive copper cable, readings 0 [0..0], "
             "`Rx LOS [per lane] : 1,0,1,1` and `Rx CDR LOL [per lane] : 1,1,1,1`; the same document then "
             "runs ib_send_bw over mlx5_0 to the peer host. BDF 0000:8e:00.0, firmware 28.46.3048 and "
             "PSID MT_0000000838 are the same host's `lspci` and `mlxup` answers (corpus "
             "`mlxconfig/cx7-ndr-mcx75310aas_lspci-grep_mlxup-query-and-update.txt`). Expected: no "
             "LINK_MODULE_* finding (a passive copper cable has no receiver: its LOS flags "
             "mean nothing, and the link passed traffic; its readings 0 [0..0] have no thresholds to judge); "
             "the module's rx_los fact is [1,0,1,1].")
    r.source("RECONSTRUCTED: the argv (the capture ran `--show_mo` on the mst device, without `-c`: "
             "the BER counters are absent, so the BER rules say unknown), device id 0x1021, RDMA "
             "device mlx5_0 (the ib_send_bw device of the same document), port state/rate/link_layer "
             "as mlxlink reports them (Active, LinkUp, NDR 4x, InfiniBand).")
    r.done("a ConnectX-7 NDR port on a passive DAC whose module reports Rx LOS flags while the link passes traffic")


def dmesg_root(name, title, bdf, device, log, note):
    r = Root(name)
    r.function(bdf, device)
    with open(os.path.join(CORPUS, "dmesg", log), "rb") as f:
        r.command(["dmesg"], f.read())
    r.source(f"`hwcheck/commands/dmesg/stdout`: verbatim corpus `dmesg/{log}` (provenance in the "
             f"corpus INDEX.md). {note}")
    r.source(f"RECONSTRUCTED: the PCI function {bdf} (vendor 15b3, device {device:#06x}) that the "
             "log names; no RDMA device, netdev or tool.")
    r.done(title)


def kernel_events():
    dmesg_root("link-kevents-cx6-insufficient-power", "a ConnectX-6 whose slot gave 25 W",
               "0000:04:00.0", 0x101b,
               "mlx5-cx6-ocp3_fw20.27.446_limited-by-2.5GT-x4_insufficient-power-25W_skyao.txt",
               "Expected: MLX_KERNEL_EVENTS (insufficient_power at 1.735122 s).")
    dmesg_root("link-kevents-cx6dx-health", "a ConnectX-6 Dx that overheated and died",
               "0000:41:00.0", 0x101d,
               "mlx5-cx6dx_fw22.99_temp_warn_health-synd-0x10-high-temp_slot-power-not-advertised_notes-cn.txt",
               "Expected: MLX_KERNEL_EVENTS (high_temperature, health synd 0x10, fatal).")
    dmesg_root("link-kevents-cx5-healthy", "a ConnectX-5 whose log holds only benign lines",
               "0000:81:00.0", 0x1017,
               "mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt",
               "Expected: no MLX_KERNEL_EVENTS (Cable plugged, sufficient power 27W).")


# Module EEPROM dumps printed by `ethtool -m IF hex on`, copied verbatim from the public captures
# in tests/fixtures/module-eeprom/ (SOURCE.md there: the mlxsw 640-byte QSFP28 dump of Ido
# Schimmel's 2019-10-21 netdev cover letter, the MikroTik SFP AOC of Thomas Kupper's 2022-11-12
# netdev mail).
MODULES = os.path.join(HERE, "..", "fixtures", "module-eeprom")


def module_hex(name):
    with open(os.path.join(MODULES, name + ".hex"), "rb") as f:
        return f.read()


def patch_hex(text, patches):
    """The dump with bytes replaced: {offset: [bytes]} (RECONSTRUCTED variants only)."""
    lines = text.decode().split("\n")
    for off, vals in patches.items():
        for k, v in enumerate(vals):
            o = off + k
            row = 2 + o // 16
            head, body = lines[row].split(":", 1)
            lead = body[:len(body) - len(body.lstrip())]
            cells = body.split()
            cells[o % 16] = f"{v:02x}"
            lines[row] = head + ":" + lead + " ".join(cells)
    return "\n".join(lines).encode()


def pci_netdev(r, host, bdf, name, attrs):
    """The netdev NAME of the PCI function BDF (sys/devices/HOST/BDF/net/NAME): its sysfs files
    ATTRS, its device link and its sys/class/net entry."""
    dev = f"sys/devices/{host}/{bdf}"
    for k, v in attrs.items():
        r.write(f"{dev}/net/{name}/{k}", f"{v}\n")
    r.link(f"{dev}/net/{name}/device", f"../../../../../bus/pci/devices/{bdf}")
    r.link(f"sys/class/net/{name}", f"../../devices/{host}/{bdf}/net/{name}")


def module_root(name, title, hexdump, notes, up=True):
    """UP: p1 up at 100000 Mb/s; else down (carrier 0, speed -1 as mlx5 shows no link)."""
    r = Root(name)
    r.function("0000:3b:00.0", 0x1017, netdevs=["p1"])
    attrs = ({"dev_port": 0, "operstate": "up", "speed": 100000, "mtu": 9000} if up else
             {"dev_port": 0, "operstate": "down", "carrier": 0, "speed": -1, "mtu": 9000})
    pci_netdev(r, "pci0000:3a", "0000:3b:00.0", "p1", attrs)
    r.command(["ethtool", "-m", "p1", "hex", "on"], hexdump)
    for n in notes:
        r.source(n)
    r.source("RECONSTRUCTED: the ConnectX-5 function 0000:3b:00.0 (15b3:1017) and its netdev p1 "
             f"({'up, 100000 Mb/s' if up else 'down: operstate down, carrier 0, speed -1'}) that hold "
             "the module; the captures were taken on other ports "
             "(mlxsw sfp42, xgbe enp6s0f2): the EEPROM bytes do not depend on the host.")
    r.done(title)


def modules():
    q = module_hex("qsfp28-mellanox-mlxsw-sfp42")
    src = ("`hwcheck/commands/ethtool -m p1 hex on/stdout`: verbatim 640-byte `ethtool -m sfp42 hex "
           "on` of the Mellanox QSFP28 in the netdev cover letter '[PATCH net-next 0/2] mlxsw: "
           "core: Extend QSFP EEPROM size' (Ido Schimmel, 2019-10-21, "
           "<20191021103031.32163-1-idosch@idosch.org>); ethtool's decoding of its thresholds is "
           "tests/fixtures/module-eeprom/qsfp28-mellanox-mlxsw-sfp42.ethtool.")
    module_root("link-module-qsfp28-clean", "a Mellanox QSFP28 within its own thresholds, on a down port", q,
                [src + " Temperature 39.47 degC and 3.3477 V inside the module's thresholds; its "
                 "lanes read 0 (dark: not judged). The dump is of a port without a link: byte 3 "
                 "0xff (Tx and Rx LOS latched on all 4 lanes), byte 5 0xff (Tx and Rx CDR loss of "
                 "lock on all 4), bytes 9-10 0x55 (Rx power low alarm and warning on all 4), byte 86 "
                 "0x00 (no lane Tx-disabled), byte 220 0x0c (bit 2 Tx power measured, bit 3 Rx power "
                 "as average; SFF-8636 has no bit for the bias and Rx monitors: ethtool's qsfp.c "
                 "takes a valid temperature as their existence), so p1 is down here (a 100G SR4 link needs "
                 "all 4 lanes lit: the same dump under a live link is rate-cx5-100g-sr4-ok, "
                 "whose module readings are unknown). Expected: no LINK_MODULE_* finding; "
                 "LINK_MODULE_NOT_ALLOWED with a profile that does not list it."], up=False)
    # lower page: temperature 85.5 degC (0x5580, past the 80 degC high alarm); lane 1 lit with
    # bias 6.5 mA (0x0cb2), Tx 0.8 mW (0x1f40) and Rx 0.02 mW (0x00c8, under the 0.0467 mW low
    # alarm); lane 2 Rx 0.0700 mW (0x02bc: 1.8 dB above the low alarm, inside the 3 dB margin)
    # lanes 3-4 lit and within the thresholds (Rx 0.5 mW 0x1388): the live 100G link needs all 4
    hot = patch_hex(q, {22: [0x55, 0x80], 34: [0x00, 0xc8, 0x02, 0xbc, 0x13, 0x88, 0x13, 0x88],
                        42: [0x0c, 0xb2] * 4, 50: [0x1f, 0x40] * 4})
    module_root("link-module-qsfp28-hot", "a Mellanox QSFP28 overheating, with a dim receiver", hot,
                [src, "RECONSTRUCTED: lower-page monitor bytes 22-23 (temperature 85.5 degC), 34-41 "
                 "(Rx power lanes 1-4: 0.02, 0.07, 0.5 and 0.5 mW), 42-49 (bias 6.5 mA) and 50-57 (Tx "
                 "power 0.8 mW) changed from the capture (which read 39.47 degC and dark lanes) so that the "
                 "module's own thresholds (page 03h, unchanged) are crossed. Expected: "
                 "LINK_MODULE_THRESHOLDS error (temperature), LINK_MODULE_RX_POWER_LOW error (lane 1 "
                 "under the low alarm; lane 2 within 3 dB of it)."])
    module_root("link-module-sfp-aoc-noddm", "a MikroTik SFP+ active cable without diagnostics",
                module_hex("sfp-mikrotik-s-ao0005"),
                ["`hwcheck/commands/ethtool -m p1 hex on/stdout`: verbatim 512-byte `ethtool -m "
                 "enp6s0f2 hex on` of a MikroTik S+AO0005 (netdev, 'Re: [PATCH v2 net 1/1] amd-xgbe: "
                 "fix active cable', Thomas Kupper, 2022-11-12, "
                 "<e1f9d9d1-93c1-ca1d-a0e6-819e45373a03@kupper.org>). No DDM (byte 92 = 0). "
                 "Expected: identity decoded, no diagnostics to judge, no LINK_MODULE_* finding."])


# A public bring-up note of an RFSoC 4x2 board (corundum mqnic, no RS-FEC, no auto-negotiation)
# cabled by a 25G DAC to a host ConnectX-4 (mlx5_core) port enp2s0np0; its "Host link" step
# quotes the host's `ethtool enp2s0np0` Speed (25000Mb/s, Link detected: yes) and the line
# `Active FEC encoding: Off` of `ethtool --show-fec enp2s0np0`: the host had to run its 25G
# lane without FEC for the FPGA to link.
RFSOC_FEC_LINE = "Active FEC encoding: Off"


def fec_off_cx4():
    r = Root("link-fec-cx4-25g-off")
    r.function("0000:02:00.0", 0x1013, netdevs=["enp2s0np0"])
    pci_netdev(r, "pci0000:00", "0000:02:00.0", "enp2s0np0",
               {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": 25000, "mtu": 1500})
    r.command(["ethtool", "-I", "--show-fec", "enp2s0np0"],
              f"FEC parameters for enp2s0np0:\n{RFSOC_FEC_LINE}\n".encode())
    r.source("`hwcheck/commands/ethtool -I --show-fec enp2s0np0/stdout` and `sys/.../net/enp2s0np0/speed`: "
             "the state quoted by a public bring-up note (a GitHub repository's English/Chinese "
             "TEST_PROCEDURE.md for an RFSoC 4x2 board running corundum's mqnic, found through the "
             "code index by its text; its repository name was not recorded by the index): host "
             "'Linux PC with a Mellanox ConnectX-4 (`mlx5_core`), port `enp2s0np0`', '25G DAC', "
             "`ethtool enp2s0np0` -> '25000Mb/s, yes', `ethtool --show-fec enp2s0np0` -> 'Active "
             "FEC encoding: Off' (the FPGA has no RS-FEC and no auto-negotiation, 'so the host must "
             "end up at 25G with FEC off'). The Active line is the note's, verbatim. Expected: "
             "LINK_FEC_MODE warn (FEC off on a 25 Gb/s lane).")
    r.source("RECONSTRUCTED: the first line of the --show-fec answer (ethtool's header, with the "
             "note's port name) and no 'Configured FEC encodings' line (the note does not quote it); "
             "the function 0000:02:00.0 (15b3:1013, ConnectX-4: the note names the family, not the "
             "part), the netdev's sysfs files (up, carrier 1, speed 25000 as quoted, MTU 1500) and "
             "that `-I` was accepted; no other tool recorded.")
    r.done("a ConnectX-4 25G lane run without FEC against an FPGA that has none")


def dark_sfp_root(name, host, bdf, device, driver, netdev, dev_port, dump):
    """A function whose netdev is down without carrier, holding the SFP of real-data/DUMP."""
    r = Root(name)
    r.function(bdf, device, driver=driver, netdevs=[netdev])
    pci_netdev(r, host, bdf, netdev, {"dev_port": dev_port, "operstate": "down", "carrier": 0, "mtu": 1500})
    with open(os.path.join(HERE, "real-data", dump), "rb") as f:
        r.command(["ethtool", "-m", netdev, "hex", "on"], f.read())
    return r


def sfp_no_light():
    r = dark_sfp_root("link-module-sfp-lr-no-light", "pci0000:3a", "0000:3b:00.0", 0x1015, "mlx5_core", "p1", 0,
                      "sfp-transition-10g-lr-rebuilt.hex")
    r.source("`hwcheck/commands/ethtool -m p1 hex on/stdout`: the module of a public `ethtool -m "
             "enp3s0f0` (netdev list, Chris Preimesberger, 'ethtool option to force interpretation "
             "of diagnostics?', 2020-01-09, <CAM0+VB-Zwr2Z+s1SS_rqokWcku43dwbZcRRFHZRdZJLFpkxXdQ@mail.gmail.com>): "
             "a Transition TN-SFP-10G-LR (SN AX19080004387) with its laser lit (32.066 mA, 0.5547 mW) "
             "and its receiver dark (0.0001 mW / -40.00 dBm, under its own 0.0490 mW low alarm), "
             "Rx-power low alarm and warning latched, 41.05 degC. Only ethtool's decoding was "
             "published (tests/link/real-data/sfp-transition-10g-lr-netdev2020.ethtool); the 512 "
             "bytes are RECONSTRUCTED from it by tests/link/mk_sfp_rebuilt.py (SFF-8472 map), and "
             "ethtool itself, fed them through tests/oracle/ethtool_shim.c, prints every published "
             "line again (test link_sfp_rebuilt_oracle). Expected: LINK_MODULE_RX_POWER_LOW error; the "
             "latched Rx-power low alarm and warning are the same present condition (no "
             "LINK_MODULE_THRESHOLDS finding).")
    r.source("RECONSTRUCTED: the host (the capture's port was an Intel ixgbe enp3s0f0; the module "
             "EEPROM does not depend on the host): a ConnectX-4 Lx function 0000:3b:00.0 "
             "(15b3:1015, SFP28 cage) and its netdev p1, down with no carrier (no light received).")
    r.done("a 10G-LR SFP+ whose receiver gets no light, past its own low alarm")


def sfp_cx3pro_no_light():
    r = dark_sfp_root("link-module-sfp-cx3pro-no-light", "pci0000:00", "0000:01:00.0", 0x1007, "mlx4_core", "eth2", 1,
                      "sfp-cx3pro-rebuilt.hex")
    r.source("`hwcheck/commands/ethtool -m eth2 hex on/stdout`, bytes 0x100-0x1ff (the A2h page: "
             "thresholds, readings, flags): verbatim the `ethtool -m ... hex on offset 256` that a "
             "ConnectX-3 Pro (mlx4) printed for an SFP whose receiver got no light (netdev, "
             "Krzysztof Oledzki, 'Re: [mlx4] Mellanox ConnectX2 (MHQH29C aka 26428) and module "
             "diagnostic support (ethtool -m) issues', 2024-09-05, "
             "<7ba77c1e-9146-4a58-8f21-5ff5e1445a87@ans.pl>: 'To compare, this is what we get from "
             "CX3 pro'; kept as tests/link/real-data/sfp-cx3pro-a2h-netdev2024.hex): Rx power "
             "0x0001 = 0.0001 mW (-40 dBm) under its own 0.0315 mW low alarm, the Rx-power low "
             "alarm (byte 113 0x40) and warning (byte 117 0x40) latched, laser lit (bias 7.660 "
             "mA, Tx 0.5825 mW), 36.30 degC. The same thread's `ethtool -m eth2` of that module on "
             "the CX3 Pro (2024-09-04, kept as tests/link/real-data/sfp-cx3pro-netdev2024.ethtool) "
             "prints the same thresholds, flags and Rx power (its bias, Tx, temperature and "
             "voltage were read at another moment); ethtool, fed these bytes through "
             "tests/oracle/ethtool_shim.c, prints every one of those lines again (test "
             "link_sfp_rebuilt_oracle). Expected: LINK_MODULE_RX_POWER_LOW error (the reading "
             "under the alarm; the latched flags are the same condition: no "
             "LINK_MODULE_THRESHOLDS finding, which judges the other readings: within the "
             "thresholds).")
    r.source("RECONSTRUCTED: bytes 0x000-0x0ff (the A0h page: identity), re-encoded by "
             "tests/link/mk_sfp_rebuilt.py (cx3pro_a0) from the thread's decoding of this module's "
             "identity on the ConnectX-2 (2024-08-31, kept as "
             "tests/link/real-data/sfp-cx3pro-identity-netdev2024.ethtool: an IBM-Avago 10G Base-SR, "
             "LC, 850 nm, rev G2.3; its OUI, part number, serial and date code redacted there, blank "
             "here), byte 92 0x68 (the thread's `ethtool -m eth1 raw on offset 92 length 1`), byte "
             "93 bit 7 ('Alarm/warning flags implemented : Yes'), bytes 240-255 zero (as read on "
             "the CX3 Pro); ethtool prints every unredacted identity line again from them. The "
             "host: a ConnectX-3 Pro function 0000:01:00.0 (15b3:1007, mlx4_core; the mail names "
             "'a CX3 Pro NIC', not its part or address) and its netdev eth2 (the port the mail's "
             "decoding names), down with no carrier (no light received; the mail shows no link "
             "state).")
    r.done("an SFP on a ConnectX-3 Pro whose receiver gets no light: the A2h bytes as published")


def sfp_jdsu_bias_high():
    r = Root("link-module-sfp-jdsu-bias-high")
    r.function("0000:3b:00.0", 0x1015, netdevs=["p1"])
    pci_netdev(r, "pci0000:3a", "0000:3b:00.0", "p1",
               {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": 1000, "mtu": 1500})
    with open(os.path.join(HERE, "real-data", "sfp-jdsu-plrxpl-rebuilt.hex"), "rb") as f:
        r.command(["ethtool", "-m", "p1", "hex", "on"], f.read())
    r.source("`hwcheck/commands/ethtool -m p1 hex on/stdout`: the module of the sample `ethtool -m "
             "swp3` in NVIDIA's Cumulus Linux documentation, 'Monitoring Interfaces and Transceivers "
             "Using ethtool' (GitHub CumulusNetworks/docs, content/cumulus-linux-37/Monitoring-and-"
             "Troubleshooting/Troubleshooting-Network-Interfaces/Monitoring-Interfaces-and-"
             "Transceivers-Using-ethtool.md, commit 48af702; the same sample is in the page's Cumulus "
             "RMP 3.2.1 and later Cumulus Linux versions; the text calls it 'a 1000BASE-SX "
             "short-range optical module, manufactured by JDSU, part number PLRXPL-VI-S24-22'): its "
             "laser bias reads 21.348 mA against its own high alarm of 10.000 mA (high warning 9.000 "
             "mA) while the laser emits 0.3186 mW (-4.97 dBm, inside its 0.1-0.8 mW alarm range) and "
             "the receiver gets 0.3195 mW (-4.96 dBm): a link carrying light both ways, 41.70 degC, "
             "3.2947 V. Every alarm and warning flag line reads Off: the module's own flag logic "
             "did not raise the bias alarm its own thresholds call for (a flag that disagrees with "
             "the reading; the reading and the thresholds are what LINK_MODULE_THRESHOLDS judges). "
             "Only ethtool's decoding was published (tests/link/real-data/"
             "sfp-jdsu-plrxpl-cumulus-docs.ethtool, verbatim); the 512 bytes are RECONSTRUCTED from "
             "it by tests/link/mk_sfp_rebuilt.py (jdsu_a0, jdsu_a2; SFF-8472 map), and ethtool itself, "
             "fed them through tests/oracle/ethtool_shim.c, prints every published line again (the "
             "8 transceiver codes that ethtool printed as the start of the 9 today's prints; test "
             "link_sfp_rebuilt_oracle). What that ethtool did not print is 0 or blank (Option "
             "values, BR margins, Vendor SN, Date code). Expected: LINK_MODULE_THRESHOLDS error "
             "(tx_bias_ma[0] = 21.348 above its high alarm 10); no LINK_MODULE_RX_POWER_LOW "
             "(-4.96 dBm is 15 dB above the -20 dBm low alarm).")
    r.source("RECONSTRUCTED: the host (the capture's port was swp3 of a Cumulus Linux switch; the "
             "module EEPROM does not depend on the host): a ConnectX-4 Lx function 0000:3b:00.0 "
             "(15b3:1015, SFP28 cage, which runs 1 GbE) and its netdev p1, up with carrier at 1000 "
             "Mb/s (the module carries light both ways; the speed is the module's 1000BASE-SX).")
    r.done("a 1000BASE-SX SFP whose laser bias is twice its own high alarm, on a lit link")


# Dell KB 000286734 ('Mellanox ConnectX-6 Dx: High Corrected Bits on PAM4 NICs'): `ethtool -S
# enp139s0f1np1 | grep -E "correc|rx_err"` of a ConnectX-6 Dx 100G PAM4 port, called normal there
# (pre-FEC BER objective 2.4E-04 with RS544, 1E-12 after it)
DELL_CX6DX = {"rx_corrected_bits_phy": 153303800, "rx_err_lane_0_phy": 74171021,
              "rx_err_lane_1_phy": 79132779, "rx_err_lane_2_phy": 0, "rx_err_lane_3_phy": 0}


def phy_stats(c):
    """An mlx5 `ethtool -S` block of the physical layer counters, in en_stats.c's order (with the
    2026 patch that adds rx_bits_phy first in the statistical group)."""
    keys = ["rx_symbol_err_phy", "link_down_events_phy", "rx_bits_phy", "rx_pcs_symbol_err_phy",
            "rx_corrected_bits_phy", "rx_err_lane_0_phy", "rx_err_lane_1_phy", "rx_err_lane_2_phy",
            "rx_err_lane_3_phy"]
    return ("NIC statistics:\n" + "".join(f"     {k}: {c[k]}\n" for k in keys)).encode()


def ethtool_ber():
    r = Root("link-ethtool-ber-pam4")
    window = 200_000_000_000 * 3600  # bits at 200 Gb/s in one hour
    ports = {"p1": dict(DELL_CX6DX, rx_symbol_err_phy=12, link_down_events_phy=0, rx_bits_phy=window,
                        rx_pcs_symbol_err_phy=12, rx_corrected_bits_phy=int(window * 5e-4),
                        rx_err_lane_2_phy=int(window * 5e-4) - 153303800),
             "p2": dict(DELL_CX6DX, rx_symbol_err_phy=0, link_down_events_phy=0, rx_bits_phy=window,
                        rx_pcs_symbol_err_phy=0)}
    for k, (name, c) in enumerate(ports.items()):
        bdf = f"0000:8b:00.{k}"
        r.function(bdf, 0x101d, netdevs=[name], rdma=[f"mlx5_{k}"])
        r.rdma(f"mlx5_{k}", None, None, {1: {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                                            "rate": "200 Gb/sec (4X HDR)", "link_layer": "Ethernet"}})
        pci_netdev(r, "pci0000:8a", bdf, name, {"dev_port": 0, "operstate": "up", "carrier": 1,
                                                "speed": 200000, "mtu": 9000})
        r.command(["ethtool", "-S", name], phy_stats(c))
        unc = 3 if c["rx_pcs_symbol_err_phy"] else 0
        r.command(["ethtool", "-I", "--show-fec", name],
                  (f"FEC parameters for {name}:\nSupported/Configured FEC encodings: Auto RS\n"
                   f"Active FEC encoding: RS\nStatistics:\n  corrected_blocks: {c['rx_corrected_bits_phy'] // 3}\n"
                   f"  uncorrectable_blocks: {unc}\n  corrected_bits: {c['rx_corrected_bits_phy']}\n").encode())
    r.source("`hwcheck/commands/ethtool -S p1/stdout`, `ethtool -S p2/stdout`: mlx5's physical layer "
             "counters only (RECONSTRUCTED layout: the real lines' format, en_stats.c's order).")
    r.source("`p2`'s corrected bits per lane (153303800 = lane 0 74171021 + lane 1 79132779): a "
             "ConnectX-6 Dx PAM4 port's `ethtool -S | grep -E \"correc|rx_err\"` in Dell KB 000286734 "
             "('Mellanox ConnectX-6 Dx: High Corrected Bits on PAM4 NICs'), which calls them normal.")
    r.source("RECONSTRUCTED (no public mlx5 `ethtool -S` with `rx_bits_phy` exists: the counter comes "
             "with Kenta Akagi's patch 'net/mlx5e: Expose physical received bits counters to ethtool', "
             "linux-rdma 2026-01, tested on a ConnectX-5 25G; not found in a mainline tree): "
             "`rx_bits_phy` 7.2e14 (one hour at 200 Gb/s) on both ports; p1's corrected bits raised to "
             "5e-4 of it (lane 2 carrying the rest) with 12 uncorrected bits and 12 dropped frames; the "
             "`ethtool -I --show-fec` answers (RS active, block counts chosen, corrected_bits = "
             "rx_corrected_bits_phy as mlx5 reports phy_corrected_bits there); the functions "
             "0000:8b:00.0/1 (15b3:101d, ConnectX-6 Dx), their RoCE ports mlx5_0/1 (ACTIVE) and their netdevs at 200000 Mb/s (4 x 50G PAM4: "
             "RS(544,514)). Expected: p1 LINK_RAW_BER_HIGH warn (5e-4 past RS(544,514)'s 2.4e-4) and "
             "LINK_EFFECTIVE_ERRORS warn (12 bits, effective BER 1.67e-14, 3 uncorrectable blocks); p2 "
             "raw BER 2.1e-7: quiet.")
    r.done("two ConnectX-6 Dx PAM4 ports whose ethtool -S reports rx_bits_phy: one past the RS(544,514) limit")


# AMD PG332 (ERNIC LogiCORE IP Product Guide, v4.0), page 'HW Debug Counters for Mellanox RNIC'
# (docs.amd.com/r/4.0-English/pg332-ernic/HW-Debug-Counters-for-Mellanox-RNIC): "Sample 1" of
# two snippets of the ethtool.log file of the Mellanox RNIC (mlx5_0) an ERNIC design was tested
# against, verbatim in real-data/pg332-ernic-mlx5-ethtool-sample1.txt. The guide: "Any non-zero
# value in these two counters [link failures, CRC] points towards an unstable link".
PG332_SAMPLE1 = os.path.join(HERE, "real-data", "pg332-ernic-mlx5-ethtool-sample1.txt")


def ernic_linkdown():
    r = Root("link-flaps-mlx5-ernic-linkdown4")
    r.function("0000:3b:00.0", 0x1017, netdevs=["p1"])
    pci_netdev(r, "pci0000:3a", "0000:3b:00.0", "p1",
               {"dev_port": 0, "operstate": "up", "carrier": 1, "speed": 100000, "mtu": 1500})
    with open(PG332_SAMPLE1) as f:
        lines = [ln for ln in f.read().splitlines() if ln]
    r.command(["ethtool", "-S", "p1"],
              ("NIC statistics:\n" + "".join(f"     {ln}\n" for ln in lines)).encode())
    r.source("`hwcheck/commands/ethtool -S p1/stdout`: the 14 counter lines of 'Sample 1', verbatim "
             "(tests/link/real-data/pg332-ernic-mlx5-ethtool-sample1.txt), one of 'Two snippets from "
             "the ethtool.log file' of the Mellanox RNIC (its RDMA device mlx5_0) that AMD's ERNIC "
             "was debugged against: AMD PG332, ERNIC LogiCORE IP Product Guide v4.0, page 'HW Debug "
             "Counters for Mellanox RNIC' (docs.amd.com/r/4.0-English/pg332-ernic/"
             "HW-Debug-Counters-for-Mellanox-RNIC), which says to check that file 'for any link "
             "failures or CRC failures. Any non-zero value in these two counters points towards an "
             "unstable link'. `link_down_events_phy: 4`: the port's physical layer link_down_events "
             "(PPCNT), which this mlx5 reported among its software counters, in the order of "
             "Linux 4.9-4.10's sw_stats_desc (rx_cqe_compress_pkts, link_down_events_phy, then the "
             "Q counter rx_out_of_buffer and the vport counters): the snippet's order, so a real "
             "mlx5 `ethtool -S`, of a kernel or MLNX_OFED of that age. The rest of that answer was "
             "not published (absent here, not invented). Expected: LINK_FLAPS warn (4 link-downs, "
             "above link_flaps_max 0; no uptime: no rate).")
    r.source("RECONSTRUCTED: ethtool's layout around the published lines (the 'NIC statistics:' "
             "header and the five-space indentation the guide's page drops); the host: the guide "
             "names 'Mellanox RNIC' and mlx5_0, not the card, its address or its netdev, so a "
             "ConnectX-5 function 0000:3b:00.0 (15b3:1017, mlx5_core) and its netdev p1 (up, "
             "carrier 1, 100000 Mb/s: ERNIC is a 100G design; MTU 1500) hold it; no RDMA device, "
             "uptime or other tool is recorded. What the flaps were is not published: on a test "
             "bench they may be the FPGA peer's reloads, not a cable; the counter says the link "
             "went down 4 times, which is what LINK_FLAPS reports.")
    r.done("an mlx5 RoCE port that an ERNIC bench saw go down 4 times (AMD PG332's ethtool.log)")


def build():
    dr4_osfp_400g()
    ernic_linkdown()
    ethtool_ber()
    hdr_plr_8port()
    ibdiag_ber()
    ndr_dac_los()
    bad_signal_400g()
    sfp_no_light()
    sfp_cx3pro_no_light()
    sfp_jdsu_bias_high()
    fec_off_cx4()
    modules()
    kernel_events()
    bf3_mlxlink()
    cx4_forum()
    cx5_ib_sdr_cable_speed()
    gpud943()
    cx2_cable_pulled("link-ib-cx2-cable-pulled", None)
    cx2_cable_pulled("link-ib-cx2-cable-pulled-uptime", 86400)
    cx2_ring_window()
    netdata2620()
    gpud1164()


def main(build_fn=None, script="tests/link/make_fixtures.py"):
    build_fn = build_fn or build
    if "--check" in sys.argv:
        real = mkfixtures.FIX
        with tempfile.TemporaryDirectory() as d:
            mkfixtures.FIX = d
            build_fn()
            for name in os.listdir(d):
                cmp = filecmp.dircmp(os.path.join(d, name), os.path.join(real, name))
                bad = []

                def walk(c):
                    bad.extend(c.left_only + c.right_only + c.diff_files)
                    for sub in c.subdirs.values():
                        walk(sub)
                walk(cmp)
                if bad:
                    print(f"{name}: out of date: {bad[:5]} (run {script})")
                    sys.exit(1)
        return
    build_fn()


if __name__ == "__main__":
    main()

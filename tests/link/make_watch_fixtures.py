#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/watch-* roots: captures as `hwcheck snapshot --watch SEC` writes them
# (hwinfo/watch.c, core/env.h): the main collection where it always is, the two samples of the
# port counters under hwcheck/watch/1/ and hwcheck/watch/2/ (files at their resolved path under
# files/, commands under commands/), the window at hwcheck/watch/window. The main collection and
# sample 1 are real public captures; what moved in sample 2 is RECONSTRUCTED (no public capture
# of the same counters read twice a known time apart was found) and says so in SOURCE.md, except
# watch-ib-cx2-ring: both samples real (a sysfs sampler's two readings ten seconds apart).
# Run it after editing; the output is committed and test_watch.py checks it is up to date.
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as mf  # noqa: E402  (Root, GPUD943, ib_port, main, mkfixtures)

# the committed roots this script starts from, read before --check points FIX elsewhere
SRC_FIX = os.path.abspath(mf.mkfixtures.FIX)


class Root(mf.Root):
    BUILT_BY = ("Built by `tests/link/make_watch_fixtures.py`: a capture made with `--watch` "
                "(hwcheck/watch/1, hwcheck/watch/2, hwcheck/watch/window); provenance of each "
                "piece below.")

    def window(self, requested_s, window_us):
        self.write("hwcheck/watch/window",
                   f"requested_s={requested_s}\nwindow_us={window_us}\nsamples=2\n")

    def sample_file(self, n, rel, data):
        """rel as the root resolves it (the capture keeps a sample's file at that path)."""
        self.write(f"hwcheck/watch/{n}/files/{resolve(self.root, rel)}", data)

    def ib_samples(self, dev, port, first, second):
        """An IB port's counters/ files in sample 1 (first) and sample 2 (second), by name."""
        for k in first:
            rel = f"sys/class/infiniband/{dev}/ports/{port}/counters/{k}"
            self.sample_file(1, rel, f"{first[k]}\n")
            self.sample_file(2, rel, f"{second[k]}\n")

    def sample_command(self, n, key, stdout):
        self.write(f"hwcheck/watch/{n}/commands/{key}/stdout", stdout)
        self.write(f"hwcheck/watch/{n}/commands/{key}/result", "exit=0\n")


def resolve(root, rel):
    """rel with every link resolved inside root (an absolute target restarts at root)."""
    parts, done, hops = rel.strip("/").split("/"), [], 0
    while parts:
        p = parts.pop(0)
        if p in ("", "."):
            continue
        if p == "..":
            done = done[:-1]
            continue
        full = os.path.join(root, *done, p)
        if os.path.islink(full):
            hops += 1
            assert hops < 40, rel
            t = os.readlink(full)
            if t.startswith("/"):
                done = []
            parts = t.strip("/").split("/") + parts
            continue
        done.append(p)
    return "/".join(done)


def moved(text, deltas):
    """ethtool -S text with each counter of deltas raised (or lowered) by its value."""
    out = []
    for line in text.splitlines(keepends=True):
        name, sep, val = line.partition(":")
        key = name.strip()
        if sep and key in deltas:
            line = f"{name}: {int(val) + deltas[key]}\n"
        out.append(line)
    return "".join(out)


def ib_saturated():
    r = Root("watch-ib-cx7-saturated")
    r.function("0000:c1:00.0", 0x1021, cls="0x020700", rdma=["mlx5_1"])
    mf.ib_port(r, "mlx5_1", mf.GPUD943)
    moved_ib = {"symbol_error": 12, "link_error_recovery": 1, "port_rcv_errors": 3,
                "port_rcv_switch_relay_errors": -2}
    later = {k: v + moved_ib.get(k, 0) for k, v in mf.GPUD943.items()}
    r.ib_samples("mlx5_1", 1, mf.GPUD943, later)
    r.window(10, 10000180)
    r.source("the main collection and sample 1, `sys/class/infiniband/mlx5_1/ports/1/counters/*`: "
             "the verbatim values of leptonai/gpud pull request #943 (2025-06-20, "
             "https://github.com/leptonai/gpud/pull/943), as in link-ib-cx7-linkdowned: link_downed "
             "255 (8-bit), port_xmit_discards 65535 (16-bit) and excessive_buffer_overrun_errors 15 "
             "(4-bit) at their maximum, port_rcv_switch_relay_errors 2.")
    r.source("RECONSTRUCTED: sample 2, ten seconds later (window_us 10000180): symbol_error +12, "
             "link_error_recovery +1, port_rcv_errors +3, port_rcv_switch_relay_errors 2 -> 0 (the "
             "counters were cleared in the window), the saturated three still at their maximum; "
             "BDF, device, port state and rate as link-ib-cx7-linkdowned. Expected: "
             "counters_window symbol_error 12, link_error_recovery 1, port_rcv_errors 3, "
             "link_downed / port_xmit_discards / excessive_buffer_overrun_errors null "
             "(unsupported: saturated), port_rcv_switch_relay_errors null (invalid: went "
             "backwards), the hw_counters absent (not on the machine).")
    r.done("an InfiniBand port's counters read twice ten seconds apart, three of them saturated")


def eth_100g():
    r = Root("watch-eth-mlx5-100g")
    os.rmdir(r.root)
    shutil.copytree(os.path.join(SRC_FIX, "net-mlx5-100g-full-stats", "root"), r.root,
                    symlinks=True)
    key = "ethtool -S p1"
    with open(os.path.join(r.root, "hwcheck", "commands", key, "stdout")) as f:
        stats = f.read()
    r.netdev("p1", carrier_changes=4)
    moved_eth = {"rx_corrected_bits_phy": 40000, "rx_err_lane_3_phy": 39990, "rx_err_lane_0_phy": 10,
                 "rx_symbol_err_phy": 2, "rx_pcs_symbol_err_phy": 2, "link_down_events_phy": 1}
    r.sample_command(1, key, stats)
    r.sample_command(2, key, moved(stats, moved_eth))
    r.sample_file(1, "sys/class/net/p1/carrier_changes", "4\n")
    r.sample_file(2, "sys/class/net/p1/carrier_changes", "6\n")
    r.window(10, 10000250)
    r.source("the main collection: the root of `net-mlx5-100g-full-stats` (see its SOURCE.md): an "
             "mlx5 100GbE port p1's complete real `ethtool -S` (rx_corrected_bits_phy 17750739, "
             "rx_pcs_symbol_err_phy 386, one bad lane) at speed 100000, beside an Intel E810 and lo.")
    r.source("sample 1, `hwcheck/watch/1/commands/ethtool -S p1/stdout`: the same real text.")
    r.source("RECONSTRUCTED: p1's carrier_changes 4 (main and sample 1) and 6 (sample 2); sample 2, "
             "ten seconds later (window_us 10000250): rx_corrected_bits_phy +40000 (lane 3 +39990, "
             "lane 0 +10), rx_symbol_err_phy and rx_pcs_symbol_err_phy +2, link_down_events_phy +1. "
             "Expected: counters_window with those deltas (0 for the rest), carrier_changes_window 2, "
             "ber_window bits 1000025000000 (100 Gb/s x 10.00025 s), raw_ber 40002/1.000025e12 = "
             "4.0001e-8, effective_ber 2/1.000025e12.")
    r.done("an mlx5 100GbE port's ethtool -S and carrier_changes read twice ten seconds apart")


def eth_pam4():
    r = Root("watch-eth-cx6dx-pam4")
    os.rmdir(r.root)
    shutil.copytree(os.path.join(SRC_FIX, "link-ethtool-ber-pam4", "root"), r.root, symlinks=True)
    window_bits = 200000 * 10 ** 6 * 10  # 200 Gb/s x 10 s, what rx_bits_phy counts in the window
    moves = {"p1": {"rx_bits_phy": window_bits, "rx_corrected_bits_phy": 600000000,
                    "rx_err_lane_2_phy": 600000000, "rx_symbol_err_phy": 3, "rx_pcs_symbol_err_phy": 3},
             "p2": {"rx_bits_phy": window_bits, "rx_corrected_bits_phy": 400, "rx_err_lane_0_phy": 400}}
    for ifn, deltas in moves.items():
        key = f"ethtool -S {ifn}"
        with open(os.path.join(r.root, "hwcheck", "commands", key, "stdout")) as f:
            stats = f.read()
        r.netdev(ifn, carrier_changes=2)
        r.sample_command(1, key, stats)
        r.sample_command(2, key, moved(stats, deltas))
        r.sample_file(1, f"sys/class/net/{ifn}/carrier_changes", "2\n")
        r.sample_file(2, f"sys/class/net/{ifn}/carrier_changes", "2\n")
    r.window(10, 10000000)
    r.source("the main collection and sample 1: the root of `link-ethtool-ber-pam4` (see its SOURCE.md: "
             "real per-lane corrected bits of a ConnectX-6 Dx PAM4 port, Dell KB 000286734, in a "
             "RECONSTRUCTED layout with rx_bits_phy), two 200G RS-FEC ports p1 and p2.")
    r.source("RECONSTRUCTED: carrier_changes 2 on both ports (main and both samples); sample 2, ten "
             "seconds later (window_us 10000000): rx_bits_phy +2e12 on both (200 Gb/s x 10 s), p1 "
             "rx_corrected_bits_phy +6e8 (lane 2) and rx_pcs_symbol_err_phy +3, p2 rx_corrected_bits_phy "
             "+400 (lane 0). Expected: ber_window bits 2000000000000 on both; p1 raw_ber 3.0000015e-4 "
             "(past RS(544,514)'s 2.4e-4 in the window) and effective_ber 1.5e-12; p2 raw_ber 2e-10, "
             "effective_ber 0; carrier_changes_window 0.")
    r.done("two ConnectX-6 Dx 200G PAM4 ports read twice ten seconds apart, one past its FEC's limit")


def ib_cx2_ring():
    r = Root("watch-ib-cx2-ring")
    r.function("0000:01:00.0", 0x673c, cls="0x0c0600", driver="mlx4_core", rdma=["mlx4_0"],
               revision=0xb0)
    for port, counters in mf.CX2_RING.items():
        later = {**{k: 0 for k in mf.CX2_RING_ZERO}, **{k: v for k, (v, _) in counters.items()}}
        before = {k: v - counters[k][1] if k in counters else v for k, v in later.items()}
        mf.ib_port(r, "mlx4_0", before, rate="40 Gb/sec (4X QDR)", port=port)
        r.ib_samples("mlx4_0", port, before, later)
    r.window(10, 10000000)
    r.source("the main collection, sample 1 and sample 2, `sys/class/infiniband/mlx4_0/ports/*/"
             "counters/*`: two real readings ten seconds apart of the sysfs counters of both IB "
             "ports of a ConnectX-2 VPI (mlx4_0) on the aarch64 board MYD_CZU4EV_RC, from the "
             "\"Statistics after 1510 seconds\" block of Chester-Gillon/ibv_message_passing "
             "`ibv_message_passing_c_project/source/ibv_message_bw/ring_topology_notes.txt` (commit "
             "fedc7aa, 2021-01-03): its sampler reads every ports/N/counters/ file every 10 s on "
             "CLOCK_MONOTONIC and prints the non-zero ones as value(+delta from the previous "
             "sample). Sample 2 is the printed value, sample 1 the value less the delta "
             "(port_xmit_data +49869, port_rcv_data +524621677, port_rcv_packets +513275, "
             "port_xmit_packets +5972 on port 1; +49894, +524622714, +513276, +5972 on port 2); "
             "link_downed 1 (port 1) and 2 (port 2) and port_xmit_wait unchanged; every error "
             "counter it did not print 0 in both (it prints every non-zero one). Same data as "
             "link-ib-cx2-ring-window (tests/link/make_fixtures.py, CX2_RING).")
    r.source("RECONSTRUCTED: window_us 10000000 (the sampler's period; the exact microseconds "
             "were not printed), requested_s 10; BDF, PCI id 15b3:673c, class, driver, port "
             "state ACTIVE/LinkUp and rate 4X QDR as link-ib-cx2-ring-window; no proc/uptime. "
             "Expected: counters_window link_downed 0 and symbol_error 0 on both ports (the links "
             "went down before the window, 1 and 2 times since boot, not in it), every error "
             "counter's delta 0.")
    r.source("RECONSTRUCTED: the PCI revision 0xb0 (`revision`), ConnectX-2's (mstflint's dev_mgt "
             "table before its 8e08c36: ConnectX2 is hw revision 0xb0, ConnectX shares the PCI ids at "
             "0xa0), since the author names the card a ConnectX-2: hwcheck names it ConnectX-2 from it.")
    r.done("ConnectX-2 ports read twice ten seconds apart (real): flaps since boot, none in the window")


def build():
    ib_cx2_ring()
    ib_saturated()
    eth_100g()
    eth_pam4()


if __name__ == "__main__":
    mf.main(build, "tests/link/make_watch_fixtures.py")

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the watch-* roots that the link rules' window verdicts rest on beyond
# make_watch_fixtures.py's (captures as `hwcheck snapshot --watch SEC` writes them, with its Root):
# watch-ib-cx2-ring-real, two REAL samples ten seconds apart of a ConnectX-2's IB counters, whose
# links went down before the window and not in it. test_watch_rules.py checks the output is up to
# date and what the rules say on every watch-* root.
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as mf  # noqa: E402  (CX2_RING, CX2_RING_ZERO, main)
import make_watch_fixtures as mw  # noqa: E402  (Root with the sample writers)


def cx2_ring():
    r = mw.Root("watch-ib-cx2-ring-real")
    os.rmdir(r.root)
    shutil.copytree(os.path.join(mw.SRC_FIX, "link-ib-cx2-ring-window", "root"), r.root, symlinks=True)
    for port, counters in mf.CX2_RING.items():
        now = {**{k: (0, 0) for k in mf.CX2_RING_ZERO}, **counters}
        for k, (v, d) in now.items():
            rel = f"sys/class/infiniband/mlx4_0/ports/{port}/counters/{k}"
            r.sample_file(1, rel, f"{v - d}\n")
            r.sample_file(2, rel, f"{v}\n")
    r.window(10, 10000000)
    r.source("the main collection: the root of `link-ib-cx2-ring-window` (see its SOURCE.md): both IB "
             "ports of a ConnectX-2 VPI (mlx4_0) as `ibv_display_local_infiniband_device_statistics` "
             "printed their sysfs counters after 1510 s (Chester-Gillon/ibv_message_passing "
             "ring_topology_notes.txt, commit fedc7aa, 2021-01-03): link_downed 1 and 2, every "
             "error counter 0.")
    r.source("the two samples, `hwcheck/watch/{1,2}/files/.../counters/*`: real, from the same "
             "printout: sample 2 is the printed value, sample 1 the printed value less the tool's "
             "`(+n)` increase over its 10 s sample (port_rcv_data +524621677 on port 1, "
             "+524622714 on port 2, ...; link_downed and every error counter printed without one: "
             "unchanged). The tool samples every 10 s.")
    r.source("RECONSTRUCTED: window_us 10000000 (the tool's 10 s interval; its exact measured time "
             "is not printed). Expected: LINK_FLAPS warn on mlx4_0/1 and mlx4_0/2 (link_downed 1 "
             "and 2 since boot, none in the window, which is too short to see a rate since boot "
             "that no uptime gives), LINK_SYMBOL_ERRORS info (no symbol error in 10 s, too short "
             "to judge 120/h: judged since boot, 0), LINK_INTEGRITY_ERRORS silent.")
    r.done("ConnectX-2 IB ports sampled twice ten seconds apart: links went down before the window, not in it")


def build():
    cx2_ring()


if __name__ == "__main__":
    mf.main(build, "tests/link/make_watch_rule_fixtures.py")

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/fw-*/ roots (issue 18: firmware changes) from real captures in
# tests/mlx/data (public sources, see tests/mlx/data/SOURCE.md). Run once; the output is committed:
#   python3 tests/mlx/mkfwfixtures.py
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mkfixtures import Root  # noqa: E402

DATA = os.path.join(HERE, "data")
BF3_RESET = "bf3_mlxfwreset-q_levels-0-3-4_sync-driver-only_lsalab-notes.txt"
CX4LX_DEV = "cx4lx-mcx4111a_mstflint-d-q_14.32.1900_pve-blog.txt"
CX4LX_IMG = "cx4lx-mcx4111a_mstflint-i-image-q_14.32.1912_pve-blog.txt"
CX5_CFG = "cx5-mcx515a-cca_mlxconfig-e-q_advanced-pci-settings-true_hpe-slingshot-doc_ABRIDGED.txt"
# The image file names the captures used (the runner replays by argv; the file is never read).
IMG_OTHER = "/srv/fw/fw-ConnectX4Lx-rel-14_32_1912-MCX4111A-ACUT_Ax-UEFI-14.25.17-FlexBoot-3.6.502.bin"
IMG_SAME = "firmware.bin"


def data(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


def write_source(r, title, lines):
    with open(os.path.join(r.dir, "SOURCE.md"), "w") as f:
        f.write(f"# {r.name}: {title}\n\n")
        f.write("Built by `tests/mlx/mkfwfixtures.py` from the real captures in `tests/mlx/data/` "
                "(their public sources: `tests/mlx/data/SOURCE.md`).\n\n")
        for s in lines:
            f.write(f"- {s}\n")


def cx5_other_psid():
    r = Root("fw-cx5-image-other-psid")
    bdf = "0000:3b:00.0"
    r.function(bdf, 0x1017, netdevs=["ens1f0np0"], rdma=["mlx5_0"])
    r.rdma("mlx5_0", "16.28.2006", "MT_0000000011",
           {1: {"state": "4: ACTIVE", "link_layer": "Ethernet"}})
    r.netdev("ens1f0np0", dev_port=0, mtu=9000)
    r.command(["mstconfig", "-d", bdf, "-e", "q"], data(CX5_CFG))
    r.command(["mstfwreset", "-d", bdf, "query"], data(BF3_RESET))
    r.command(["mstflint", "-i", IMG_OTHER, "query"], data(CX4LX_IMG))
    write_source(r, "a ConnectX-5 with one non-default setting, an image of another PSID", [
        f"`mstconfig -d {bdf} -e q/stdout`: verbatim `{CX5_CFG}` (ConnectX-5 MCX515A-CCA, "
        "PSID MT_0000000011, FW 16.28.2006; ADVANCED_PCI_SETTINGS False(0) default, True(1) "
        "current and next boot). ABRIDGED by its publisher: the `...` lines are kept, so "
        "fw_config_complete is false. Expected: fw_at_risk is exactly [ADVANCED_PCI_SETTINGS].",
        f"`mstfwreset -d {bdf} query/stdout`: verbatim `{BF3_RESET}` (a BlueField-3's query: "
        "levels 0, 3, 4 supported, reset-sync 1 (driver) only). Joined to this card: no "
        "ConnectX-5 query was found. Expected advice: a synced firmware reset (-l 3 --sync 1).",
        f"`mstflint -i {IMG_OTHER} query/stdout`: verbatim `{CX4LX_IMG}` (the ConnectX-4 Lx "
        "image of a real upgrade, PSID MT_0000000267). Expected: MLX_FW_IMAGE_PSID (error).",
        "RECONSTRUCTED: the PCI function (15b3:1017 at 0000:3b:00.0), its netdev ens1f0np0 "
        "(MTU 9000) and RDMA device mlx5_0 with fw_ver 16.28.2006 and board_id MT_0000000011 "
        "(the values of the capture's mlxfwmanager output); the image path (the capture shows "
        "only its download URL).",
    ])


def cx4lx_same_psid():
    r = Root("fw-cx4lx-image-newer")
    bdf = "0000:01:00.0"
    r.function(bdf, 0x1015, netdevs=["nic_pve02_stor"], rdma=["mlx5_0"])
    r.rdma("mlx5_0", "14.32.1900", "MT_0000000267",
           {1: {"state": "1: DOWN", "link_layer": "Ethernet"}})
    r.netdev("nic_pve02_stor", dev_port=0, mtu=1500)
    r.command(["mstflint", "-d", bdf, "q"], data(CX4LX_DEV))
    r.command(["mstflint", "-i", IMG_SAME, "query"], data(CX4LX_IMG))
    write_source(r, "a ConnectX-4 Lx and the newer image of its own PSID", [
        f"`mstflint -d {bdf} q/stdout`: verbatim `{CX4LX_DEV}` (14.32.1900, PSID MT_0000000267).",
        f"`mstflint -i {IMG_SAME} query/stdout`: verbatim `{CX4LX_IMG}` (the image the same "
        "operator then flashed: 14.32.1912, same PSID). Expected: no image finding; with a "
        "profile allowing only 14.32.1900, MLX_FW_IMAGE_NOT_ALLOWED.",
        "No mstconfig or mstfwreset output was published: both are absent (not recorded).",
        "RECONSTRUCTED: the PCI function 15b3:1015 at 0000:01:00.0 (the capture's 'PCI device: "
        "0000:01:00.0', MT27710), netdev nic_pve02_stor (the capture's) with no carrier as the "
        "capture's ethtool showed, RDMA device mlx5_0 with fw_ver 14.32.1900 and board_id "
        "MT_0000000267.",
    ])


if __name__ == "__main__":
    cx5_other_psid()
    cx4lx_same_psid()

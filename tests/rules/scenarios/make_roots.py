#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the fixture root of every seed scenario (tests/fixtures/<scenario>/root) by composing the
# existing per-area fixtures (pci host trees, host-hw-* CPU/NUMA files) with captures from the
# shared corpus: dmesg, mstflint tool answers, ethtool text. Whatever is reconstructed rather than
# captured is written into each root's SOURCE.md next to the corpus file it stands beside.
# Run: python3 tests/rules/scenarios/make_roots.py [--corpus DIR]; output committed.
import argparse
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FIX = os.path.join(SRC, "tests", "fixtures")
sys.path.insert(0, os.path.join(SRC, "tests", "pci"))
import mkhost  # noqa: E402

# The corpus files it reads, copied verbatim into the checkout (tests/captures/SOURCE.md), so the
# roots rebuild from a fresh clone.
CORPUS = os.path.join(SRC, "tests", "captures")
OUT = FIX  # where the scenario roots are written (--check writes to a scratch directory)
SCENARIOS = ("cx5-gen3x8-100g", "cx6dx-amd-wr-ordering", "cx6-slot-25w-limiter", "cx6dx-card-88c",
             "amd-x2apic-off", "rings-512-discards", "irq-far-numa", "healthy-cx7-gen5x16")


def corpus(rel):
    with open(os.path.join(CORPUS, rel), "rb") as f:
        return f.read().decode()


def cpulist(cpus):
    """[0,1,2,5] -> '0-2,5' (the kernel's form)."""
    out, i = [], 0
    cpus = sorted(cpus)
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def expand(cl):
    out = []
    for part in cl.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


class Root:
    def __init__(self, name, title):
        self.name, self.title = name, title
        self.dir = os.path.join(OUT, name)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        self.root = os.path.join(self.dir, "root")
        os.makedirs(self.root)
        self.rows = []
        self.notes = []
        self.irq_next = 100
        self.irq_lines = []
        self.ncpus = 0

    # ---- files
    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    def link(self, rel, target):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.unlink(p)
        os.symlink(target, p)

    def copy_from(self, fixture, rel="."):
        """Copy a piece of an existing fixture's root (symlinks kept)."""
        src = os.path.join(FIX, fixture, "root", rel)
        dst = self.path(rel)
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(src, dst)

    def command(self, argv, stdout, exit=0):
        key = " ".join([os.path.basename(argv[0])] + list(argv[1:]))
        key = key.replace("%", "%25").replace("/", "%2F")
        self.write(f"hwcheck/commands/{key}/stdout", stdout)
        self.write(f"hwcheck/commands/{key}/result", f"exit={exit}\n")

    def source(self, piece, origin, how):
        self.rows.append((piece, origin, how))

    def differs(self, text):
        """Where the root keeps a capture's value that the hand-written facts file reconstructs
        differently."""
        self.notes.append(text)

    # ---- PCI
    def pci(self, funcs, note):
        mkhost.build_host(self.root, funcs)
        self.source("`sys/devices/pci*/...` (config space, link, numa_node, driver, AER)",
                    "tests/pci/mkhost.py from the register values listed in make_roots.py", note)

    def devdir(self, bdf):
        """root-relative real directory of a PCI function."""
        p = os.path.realpath(self.path(f"sys/bus/pci/devices/{bdf}"))
        return os.path.relpath(p, self.root)

    # ---- host
    def host(self, fixture, note):
        for rel in ("proc", "sys/devices/system"):
            if os.path.exists(os.path.join(FIX, fixture, "root", rel)):
                self.copy_from(fixture, rel)
        self.source("`proc/cpuinfo`, `proc/cmdline`, `sys/devices/system/{cpu,node}`",
                    f"copied from tests/fixtures/{fixture} (see its SOURCE.md)", note)
        with open(self.path("proc/cpuinfo")) as f:
            self.ncpus = sum(1 for ln in f if ln.startswith("processor"))

    def numa(self, nodes):
        for i, cl in enumerate(nodes):
            self.write(f"sys/devices/system/node/node{i}/cpulist", cl + "\n")
            d = " ".join("10" if j == i else "21" for j in range(len(nodes)))
            self.write(f"sys/devices/system/node/node{i}/distance", d + "\n")

    def dmesg(self, text):
        self.command(["dmesg"], text)

    # ---- mlx tools
    def mst_version(self):
        self.command(["mstconfig", "-v"], "mstconfig, mstflint 4.26.0, Git SHA Hash: N/A\n")

    def mstconfig(self, bdf, dev_type, name, desc, rows):
        """rows: (param, default, current, next_boot) as mstconfig prints them."""
        out = ["", "Device #1:", "----------", "",
               f"Device type:        {dev_type:<20}",
               f"Name:               {name:<20}",
               f"Description:        {desc}",
               f"Device:             {bdf:<20}", "",
               "Configurations:                                          Default             Current         Next Boot"]
        for p, d, c, n in rows:
            out.append(f"        {p:<44}{d:<21}{c:<21}{n:<20}")
        self.command(["mstconfig", "-d", bdf, "-e", "q"], "\n".join(out) + "\n")

    def flint(self, bdf, text):
        self.command(["mstflint", "-d", bdf, "q"], text)

    def mtmp(self, bdf, temp_c):
        t = int(temp_c * 8)
        fields = [("sensor_index", 0), ("temperature", t), ("max_temperature", t), ("mtr", 0),
                  ("mte", 1), ("temperature_threshold_hi", 0x348), ("tee", 0),
                  ("temperature_threshold_lo", 0), ("sensor_name_hi", 0), ("sensor_name_lo", 0)]
        self.command(["mstreg", "-d", bdf, "--reg_name", "MTMP", "--get", "--indexes",
                      "sensor_index=0x0,slot_index=0x0"], regtable(fields))

    def mpein(self, bdf, status, watts, speed, width):
        fields = [("node", 0), ("pcie_index", 0), ("depth", 0), ("link_speed_enabled", speed),
                  ("link_width_enabled", width), ("max_payload_size", 2), ("max_read_request_size", 2),
                  ("link_speed_active", speed), ("link_width_active", width), ("link_peer_max_speed", speed),
                  ("pwr_status", status), ("pci_power", watts), ("device_status", 0)]
        self.command(["mstreg", "-d", bdf, "--reg_name", "MPEIN", "--get", "--indexes",
                      "node=0x0,pcie_index=0x0,depth=0x0"], regtable(fields))

    # ---- RDMA devices and netdevs
    def rdma(self, bdf, dev, fw, board, state, phys, rate, netdev):
        d = f"{self.devdir(bdf)}/infiniband/{dev}"
        self.write(f"{d}/fw_ver", fw + "\n")
        self.write(f"{d}/board_id", board + "\n")
        for k, v in (("state", state), ("phys_state", phys), ("rate", rate), ("link_layer", "Ethernet"),
                     ("gid_attrs/ndevs/0", netdev)):
            self.write(f"{d}/ports/1/{k}", v + "\n")
        # the GID table a RoCE port with an IPv4 address has: link-local and IPv4-mapped, v1 and v2
        n = int(dev.rsplit("_", 1)[-1]) if dev.rsplit("_", 1)[-1].isdigit() else 0
        gids = [f"fe80:0000:0000:0000:0000:00ff:fe00:{n:04x}"] * 2 + [f"0000:0000:0000:0000:0000:ffff:0a00:{n + 1:04x}"] * 2
        for i, g in enumerate(gids):
            self.write(f"{d}/ports/1/gids/{i}", g + "\n")
            self.write(f"{d}/ports/1/gid_attrs/types/{i}", ("IB/RoCE v1", "RoCE v2")[i % 2] + "\n")
            self.write(f"{d}/ports/1/gid_attrs/ndevs/{i}", netdev + "\n")
        if not getattr(self, "gid_noted", False):
            self.gid_noted = True
            self.source("`sys/class/infiniband/D/ports/1/gids/*`, `gid_attrs/types/*`, `gid_attrs/ndevs/*`",
                        "layout of corpus `ethtool/cx5_mlnx_qos_dcbx-firmware-controlled_pfc-prio3_and_show_gids_blog.txt` (show_gids)",
                        "RECONSTRUCTED: link-local and 10.0.0.N IPv4-mapped GIDs, RoCE v1 and v2, as the kernel adds them for an addressed netdev")
        self.link(f"{d}/device", "../../../" + os.path.basename(self.devdir(bdf)))
        self.link(f"sys/class/infiniband/{dev}", "../../" + os.path.relpath(d, "sys"))

    def netdev(self, bdf, name, mtu, speed, operstate, ethtool, cpus, local):
        """ethtool: {option: text}; cpus: the CPU of each completion vector (None: no vectors)."""
        d = f"{self.devdir(bdf)}/net/{name}"
        self.write(f"{d}/mtu", f"{mtu}\n")
        self.write(f"{d}/speed", f"{speed}\n")
        self.write(f"{d}/operstate", operstate + "\n")
        # every interface here was set up (IFF_UP|IFF_BROADCAST|IFF_MULTICAST); "down" is a
        # port without carrier, as `ip link` shows NO-CARRIER
        self.write(f"{d}/flags", "0x1003\n")
        self.write(f"{d}/carrier", ("1" if operstate == "up" else "0") + "\n")
        self.write(f"{d}/dev_port", "0\n")
        self.link(f"{d}/device", "../../../" + os.path.basename(self.devdir(bdf)))
        self.link(f"sys/class/net/{name}", "../../" + os.path.relpath(d, "sys"))
        for opt, text in ethtool.items():
            self.command(["ethtool", opt, name], text)
        self.write(f"{self.devdir(bdf)}/local_cpulist", local + "\n")
        for k, cpu in enumerate(cpus):
            irq = self.irq_next
            self.irq_next += 1
            self.write(f"{self.devdir(bdf)}/msi_irqs/{irq}", "msix\n")
            self.write(f"proc/irq/{irq}/effective_affinity_list", f"{cpu}\n")
            self.write(f"proc/irq/{irq}/smp_affinity_list", f"{cpu}\n")
            self.irq_lines.append((irq, cpu, f"IR-PCI-MSIX-{bdf}", f"{k + 1}-edge",
                                   f"mlx5_comp{k}@pci:{bdf}"))

    def done(self):
        if self.irq_lines:
            n = self.ncpus
            head = "     " + "".join(f"{'CPU' + str(i):>11}" for i in range(n))
            lines = [head]
            for irq, cpu, chip, hw, nm in self.irq_lines:
                counts = "".join(f"{(1000 if i == cpu else 0):>11}" for i in range(n))
                lines.append(f"{irq:>4}:{counts}  {chip:<22} {hw:<8} {nm}")
            self.write("proc/interrupts", "\n".join(lines) + "\n")
            self.source("`proc/interrupts`, `proc/irq/N/*affinity_list`, `msi_irqs/N`",
                        "layout of corpus `sysfs/proc-interrupts_IR-PCI-MSIX_mlx4-cx3pro_intel-12cpu_pve_skyao.txt`",
                        "RECONSTRUCTED: one completion vector per channel, each bound to the CPU listed "
                        "in make_roots.py (no capture of these cards' vectors exists)")
        # git keeps no empty directory: a .hwcheck-keep file holds it (hwcheck's listings skip it)
        for dp, dn, fn in os.walk(self.root):
            if not dn and not fn:
                open(os.path.join(dp, ".hwcheck-keep"), "w").close()
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(f"# {self.name}: {self.title}\n\n")
            f.write("Built by `tests/rules/scenarios/make_roots.py` (regenerate: `python3 "
                    "tests/rules/scenarios/make_roots.py`) from the existing fixtures and "
                    "`/work/shared/corpus/` (provenance of each corpus file in its INDEX.md). "
                    f"The scenario's facts and expected findings: `tests/rules/scenarios/{self.name}.*`.\n\n")
            f.write("| piece | from | real or reconstructed |\n|---|---|---|\n")
            for p, o, h in self.rows:
                f.write(f"| {p} | {o} | {h} |\n")
            if self.notes:
                f.write(f"\nDifferences from `{self.name}.facts.json` (the root keeps the capture):\n\n")
                for n in self.notes:
                    f.write(f"- {n}\n")


def host_extras(r, hostname, kernel, cmdline, pstate, iommu_unit, cpu_sensor):
    """The host files a captured root would hold besides CPUs and NUMA: all RECONSTRUCTED with the
    values of the scenario's facts file (performance governor, shallow C-states, IOMMU
    passthrough, no lockdown)."""
    if not os.path.exists(r.path("proc/sys/kernel/osrelease")):
        r.write("proc/sys/kernel/osrelease", kernel + "\n")
    if not os.path.exists(r.path("proc/cmdline")):
        r.write("proc/cmdline", cmdline + "\n")
    r.write("proc/sys/kernel/hostname", hostname + "\n")
    r.write("sys/kernel/security/lockdown", "[none] integrity confidentiality\n")
    cpu = "sys/devices/system/cpu"
    pol = f"{cpu}/cpufreq/policy0"
    r.write(f"{pol}/scaling_driver", ("intel_pstate" if pstate else "acpi-cpufreq") + "\n")
    r.write(f"{pol}/scaling_governor", "performance\n")
    if pstate:
        r.write(f"{pol}/energy_performance_preference", "performance\n")
        r.write(f"{cpu}/intel_pstate/status", "active\n")
        r.write(f"{cpu}/intel_pstate/no_turbo", "0\n")
    elif not os.path.exists(r.path(f"{cpu}/cpufreq/boost")):
        r.write(f"{cpu}/cpufreq/boost", "1\n")
    r.write(f"{cpu}/cpuidle/current_driver", "acpi_idle\n")
    r.write(f"{cpu}/cpuidle/current_governor", "menu\n")
    for i, (nm, lat) in enumerate((("POLL", 0), ("C1", 1), ("C2", 18))):
        for k, v in (("name", nm), ("latency", lat), ("disable", 0)):
            r.write(f"{cpu}/cpu0/cpuidle/state{i}/{k}", f"{v}\n")
    r.write("sys/module/pcie_aspm/parameters/policy", "[default] performance powersave powersupersave\n")
    groups = set()
    for dp, dn, fn in os.walk(r.path("sys/devices")):
        for x in dn + fn:
            if x == "iommu_group":
                groups.add(os.path.basename(os.readlink(os.path.join(dp, x))))
    for g in sorted(groups):
        if iommu_unit:
            r.write(f"sys/kernel/iommu_groups/{g}/type", "identity\n")
    if iommu_unit:
        r.write(f"sys/class/iommu/{iommu_unit}/.hwcheck-keep", "")
    chip, label, t, crit = cpu_sensor
    r.write("sys/class/hwmon/hwmon0/name", chip + "\n")
    r.write("sys/class/hwmon/hwmon0/temp1_label", label + "\n")
    r.write("sys/class/hwmon/hwmon0/temp1_input", f"{t}\n")
    if crit:
        r.write("sys/class/hwmon/hwmon0/temp1_crit", f"{crit}\n")
    r.source("`proc/sys/kernel/{hostname,osrelease}`, `proc/cmdline`, `sys/kernel/security/lockdown`, "
             "`sys/devices/system/cpu/{cpufreq,cpuidle,cpu0/cpuidle}`, `sys/module/pcie_aspm`, "
             "`sys/kernel/iommu_groups/*/type`, `sys/class/iommu`, `sys/class/hwmon/hwmon0`",
             "the scenario's facts file", "RECONSTRUCTED (where not copied above): hostname "
             f"{hostname}, {'intel_pstate' if pstate else 'acpi-cpufreq'} performance, C-states POLL/C1/C2 "
             f"(0/1/18 us), lockdown none, IOMMU {'unit ' + iommu_unit + ' passthrough (iommu=pt)' if iommu_unit else 'off'}, "
             f"CPU sensor {chip} {label} {t // 1000} degC")


def regtable(fields):
    out = ["Sending access register...", "", "Field Name                  | Data",
           "========================================="]
    out += [f"{n:<28}| 0x{v:08x}" for n, v in fields]
    out.append("=========================================")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- shared pieces

def cfg_rows(wr_ordering_current):
    # the firmware default PCI_WR_ORDERING per_mkey(0) as mstconfig prints it
    # (corpus mlxconfig/cx5ex-mcx516a-cda_mlxconfig-q_nextboot_xdp-newbies-2020.txt,
    # mlxconfig/cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt)
    wo = wr_ordering_current
    return [("SRIOV_EN", "False(0)", "False(0)", "False(0)"),
            ("NUM_OF_VFS", "0", "0", "0"),
            ("PCI_WR_ORDERING", "per_mkey(0)", wo, wo),
            ("ADVANCED_PCI_SETTINGS", "False(0)", "False(0)", "False(0)"),
            ("DISABLE_SLOT_POWER_LIMITER", "False(0)", "False(0)", "False(0)")]


CFG_NOTE = ("RECONSTRUCTED in the 3-column layout of `mlxconfig/cx6lx_mlxconfig-e-q_3col-default-"
            "current-nextboot_sriov-op-pr358_FRAGMENT.txt`; the PCI_WR_ORDERING default `per_mkey(0)` "
            "as `mlxconfig/cx5ex-mcx516a-cda_mlxconfig-q_nextboot_xdp-newbies-2020.txt` prints it; "
            "the current values are the scenario's (no capture has all of them for this card)")


def flint_text(fw, psid, date="1.1.2024", guid="b8599f0300f08018"):
    # the layout of corpus mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt
    return (f"Image type:            FS4\nFW Version:            {fw}\nFW Release Date:       {date}\n"
            f"Product Version:       {fw}\nRom Info:              type=UEFI version=14.20.19 cpu=AMD64,AARCH64\n"
            f"                       type=PXE version=3.5.901 cpu=AMD64\n"
            f"Description:           UID                GuidsNumber\n"
            f"Base GUID:             {guid}        4\nBase MAC:              {guid[:6]}{guid[10:]}            4\n"
            f"Image VSD:             N/A\nDevice VSD:            N/A\nPSID:                  {psid}\n"
            f"Security Attributes:   N/A\n")


FLINT_NOTE = ("RECONSTRUCTED in the layout of `mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt` "
              "with this card's firmware version and PSID")


def rings(name, rx, mx=8192, tx=1024):
    # layout of corpus ethtool/likely-mlx5_ens1f0np0_ethtool-g_rx-tx-8192-max_notes-cn.txt
    return (f"Ring parameters for {name}:\nPre-set maximums:\nRX:\t\t{mx}\nRX Mini:\t0\nRX Jumbo:\t0\n"
            f"TX:\t\t{mx}\nCurrent hardware settings:\nRX:\t\t{rx}\nRX Mini:\t0\nRX Jumbo:\t0\nTX:\t\t{tx}\n")


def channels(name, comb, mx=63):
    return (f"Channel parameters for {name}:\nPre-set maximums:\nRX:\t\t0\nTX:\t\t0\nOther:\t\t0\n"
            f"Combined:\t{mx}\nCurrent hardware settings:\nRX:\t\t0\nTX:\t\t0\nOther:\t\t0\nCombined:\t{comb}\n")


def features(name):
    return (f"Features for {name}:\nrx-checksumming: on\ntx-checksumming: on\n"
            "scatter-gather: on\ntcp-segmentation-offload: on\ngeneric-segmentation-offload: on\n"
            "generic-receive-offload: on\nlarge-receive-offload: off\nrx-vlan-offload: on\n"
            "tx-vlan-offload: on\nntuple-filters: off\nreceive-hashing: on\nrx-gro-hw: off [fixed]\n")


def pause(name):
    return f"Pause parameters for {name}:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n"


def drvinfo(name, bdf, fw, psid, kernel):
    return (f"driver: mlx5_core\nversion: {kernel}\nfirmware-version: {fw} ({psid})\n"
            f"expansion-rom-version: \nbus-info: {bdf}\nsupports-statistics: yes\nsupports-test: yes\n"
            "supports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: yes\n")


def stats_zero():
    names = ["rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_out_of_buffer",
             "rx_discards_phy", "tx_discards_phy", "rx_buffer_passed_thres_phy",
             "rx_pci_signal_integrity", "tx_pci_signal_integrity", "outbound_pci_stalled_rd",
             "outbound_pci_stalled_wr", "rx_symbol_err_phy", "rx_corrected_bits_phy",
             "link_down_events_phy"]
    return "NIC statistics:\n" + "".join(f"     {n}: 0\n" for n in names)


ETHTOOL_NOTE = ("RECONSTRUCTED in ethtool's text layout (rings as corpus `ethtool/likely-mlx5_ens1f0np0_"
                "ethtool-g_rx-tx-8192-max_notes-cn.txt`, channels/pause/features/drvinfo as "
                "`ethtool/cx3-mlx4en_ethtool-i-g-l_2socket-x5650_netutils-example.txt` and "
                "`ethtool/intel-e810_ice_ethtool-l-g-c-k-i-and-settings_fw4.51_k6.15_intel-wired-lan-2025.txt`), "
                "with the scenario's healthy values; `-S` all zero for the counters hwcheck reads; "
                "`-I --show-fec` in the layout of the DGX Spark ConnectX-7 capture quoted in "
                "tests/fuzz/fuzz_link.c (Active FEC encoding: RS, no FEC errors); `-m IF hex on`: the "
                "real Mellanox QSFP28 dump of tests/fixtures/module-eeprom (its thresholds kept) with "
                "RECONSTRUCTED monitors (flags clear, 45 degC, 3.30 V, lanes at 6.5 mA, Tx 0.8 mW, "
                "Rx 0.6 mW), and for a 200G port RECONSTRUCTED as a 200GBASE-SR4 QSFP56 (byte 192 0x41, "
                "bytes 140/222 26.5 GBd, part number MMA1T00-HS: make_roots.py module_dump); `ethtool IF` (link modes) in the layout of corpus "
                "`ethtool/mlx5-100G_ethtool-p1_...` with the port at its card's best (Speed = the "
                "fastest supported mode, Lanes 4, auto-negotiation on, no partner line)")


def fec(name):
    # layout of the `ethtool --show-fec` DGX Spark capture (tests/fuzz/corpus/link/), with -I statistics
    return (f"FEC parameters for {name}:\nSupported/Configured FEC encodings: Auto RS\n"
            "Active FEC encoding: RS\nStatistics:\n  corrected_blocks: 0\n  uncorrectable_blocks: 0\n")


def module_dump(lit=True, sr4_200g=False):
    """`ethtool -m IF hex on` of a healthy optic: the real 640-byte Mellanox QSFP28 dump of
    tests/fixtures/module-eeprom/qsfp28-mellanox-mlxsw-sfp42.hex (its page 03h thresholds
    unchanged), RECONSTRUCTED lower-page monitors: flags clear, 45 degC, 3.30 V, four lit lanes
    (bias 6.5 mA, Tx 0.8 mW, Rx 0.6 mW). sr4_200g: RECONSTRUCTED as a 200GBASE-SR4 QSFP56 under
    SFF-8636 (identifier 0x11 is 'QSFP28 or later', SFF-8024 table 4-1): byte 192 0x41 (SFF-8024
    table 4-4: 50GBASE-SR, 100GBASE-SR2 or 200GBASE-SR4), byte 140 0xff with byte 222 0x6a
    (26.5 GBd per lane, 250 MBd units: 53.125 Gb/s PAM4 lanes), part number MMA1T00-HS (NVIDIA's
    200GbE QSFP56 SR4) in bytes 168-183; a 200G port over 4 lanes cannot run through the real
    dump's 100GBASE-SR4 (byte 192 0x02)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures",
                           "module-eeprom", "qsfp28-mellanox-mlxsw-sfp42.hex")) as f:
        lines = f.read().split("\n")
    if not lit:  # the capture as it is: a module without light (dark lanes, Rx low flags)
        return "\n".join(lines)
    patch = {3: [0] * 12, 22: [0x2d, 0x00], 26: [0x80, 0xe8], 34: [0x17, 0x70] * 4,
             42: [0x0c, 0xb2] * 4, 50: [0x1f, 0x40] * 4}
    if sr4_200g:
        patch.update({140: [0xff], 168: list(b"MMA1T00-HS      "), 192: [0x41], 222: [0x6a]})
    for off, vals in patch.items():
        for k, v in enumerate(vals):
            row, col = 2 + (off + k) // 16, (off + k) % 16
            head, body = lines[row].split(":", 1)
            cells = body.split()
            cells[col] = f"{v:02x}"
            lines[row] = head + ":" + body[:len(body) - len(body.lstrip())] + " ".join(cells)
    return "\n".join(lines)


def link_settings(name, speed):
    """`ethtool IF` of a healthy port at its card's best: RECONSTRUCTED in the layout of corpus
    `ethtool/mlx5-100G_ethtool-p1_...` (the mlx5 100GbE modes it lists, 200G modes added for a
    200G card) and, after Port, of the E810 capture's closing lines (Auto-negotiation, Link
    detected)."""
    modes = ["1000baseKX/Full", "10000baseKR/Full", "40000baseCR4/Full", "40000baseSR4/Full",
             "25000baseCR/Full", "25000baseSR/Full", "50000baseCR2/Full", "100000baseSR4/Full",
             "100000baseCR4/Full", "100000baseLR4_ER4/Full"]
    if speed >= 200000:
        modes += ["200000baseSR4/Full", "200000baseLR4_ER4_FR4/Full", "200000baseCR4/Full"]
    lst = "".join(("\tSupported link modes:   " if i == 0 else "\t                        ") + m + "\n"
                  for i, m in enumerate(modes))
    return (f"Settings for {name}:\n\tSupported ports: [ FIBRE ]\n{lst}"
            "\tSupported pause frame use: Symmetric\n\tSupports auto-negotiation: Yes\n"
            "\tSupported FEC modes: None BaseR RS\n" + lst.replace("Supported link modes:   ", "Advertised link modes:  ") +
            "\tAdvertised pause frame use: No\n\tAdvertised auto-negotiation: Yes\n"
            f"\tAdvertised FEC modes: RS\n\tSpeed: {speed}Mb/s\n\tLanes: 4\n\tDuplex: Full\n"
            "\tAuto-negotiation: on\n\tPort: FIBRE\n\tPHYAD: 0\n\tTransceiver: internal\n\tLink detected: yes\n")


def healthy_netdev(r, bdf, name, fw, psid, kernel, comb, vec_cpus, local, mtu=9000, speed=100000,
                   rx=8192, stats=None, mx=63):
    r.netdev(bdf, name, mtu, speed, "up", {
        "-g": rings(name, rx), "-l": channels(name, comb, mx), "-k": features(name), "-a": pause(name),
        "-S": stats if stats is not None else stats_zero(), "-i": drvinfo(name, bdf, fw, psid, kernel),
        "-I --show-fec": fec(name)},
        vec_cpus, local)
    r.command(["ethtool", "-m", name, "hex", "on"], module_dump(sr4_200g=speed >= 200000))
    r.command(["ethtool", name], link_settings(name, speed))


def x2apic_on_amd():
    # verbatim lines of corpus dmesg/boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt
    text = corpus("dmesg/boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt")
    return "".join(ln + "\n" for ln in text.splitlines()
                   if re.search(r"\] (x2apic enabled|APIC: Switched APIC routing to: physical x2apic)", ln))


def x2apic_on_intel():
    text = corpus("dmesg/boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt")
    return "".join(ln + "\n" for ln in text.splitlines()
                   if re.search(r"\] (DMAR-IR: Enabled IRQ remapping|x2apic enabled|APIC: Switched APIC routing)", ln))


def epyc_host(r, hostname="node", x2apic_flag=True):
    """The one-socket EPYC of topology/epyc-2numa_cx5-x710-bcm57416 (host-hw-epyc-2numa): two
    NUMA nodes of 24 CPUs. Its cpuinfo holds only vendor lines: family/model/flags are added."""
    r.host("host-hw-epyc-2numa", "real layout (48 CPUs, nodes 0-23 / 24-47)")
    flags = re.search(r"^flags\s*:\s*(.*)$",
                      open(os.path.join(FIX, "host-hw-genoa-2socket-x2apic-off/root/proc/cpuinfo")).read(),
                      re.M).group(1).split()
    flags = [f for f in flags if not f.startswith("avx512")]
    if x2apic_flag:
        flags.insert(flags.index("apic") + 1, "x2apic")
    out = []
    for blk in open(r.path("proc/cpuinfo")).read().strip().split("\n\n"):
        out.append(blk + "\ncpu family\t: 23\nmodel\t\t: 49\nmodel name\t: AMD EPYC 7402P 24-Core Processor\n"
                   "flags\t\t: " + " ".join(flags))
    r.write("proc/cpuinfo", "\n\n".join(out) + "\n\n")
    r.numa(["0-23", "24-47"])
    host_extras(r, hostname, "5.15.0-91-generic", "ro quiet iommu=pt", False, "ivhd0",
                ("k10temp", "Tctl", 48000, None))
    r.source("`proc/cpuinfo` family/model/name/flags lines", "flags of tests/fixtures/host-hw-genoa-2socket-x2apic-off "
             "(lscpu of corpus topology/asus-esc8000a-e12_...) less avx512*, plus `x2apic`",
             "RECONSTRUCTED: the EPYC capture names no model and prints no flags; EPYC 7402P is the "
             "scenario's choice")
    r.source("`sys/devices/system/node/node{0,1}/distance`", "-", "RECONSTRUCTED (10/21, not captured)")


def epyc_cx5(r, scen):
    """The ConnectX-5 (15b3:1017) at 81:00.0/.1 on node 0 of the EPYC host (topology capture), Gen3
    x16 behind an AMD root port 80:01.1 (Gen4 x16 capable, trained at Gen3 x16: the card's max)."""
    rp = dict(bdf="0000:80:01.1", parent=None, vendor=0x1022, device=0x1483, type="rp", primary=0x80,
              secondary=0x81, subordinate=0x81, mps_sup=512, mps=256, mrrs=512, lnkcap=(16, 16),
              lnkcap_extra=0x100000, lnksta=(8, 16), lnksta_extra=0x2000, slot=(75, 1), numa=0,
              driver="pcieport", iommu_group=20, name="PCI bridge: AMD root port (reconstructed)")
    fn = [dict(bdf=f"0000:81:00.{i}", parent="0000:80:01.1", vendor=0x15b3, device=0x1017,
               subsys=(0x15b3, 0x0007), type="ep", multifunction=True, mps_sup=512, mps=256, mrrs=4096,
               ro=True, ext_tag=True, no_snoop=True, slot_power=75, lnkcap=(8, 16), lnksta=(8, 16),
               numa=0, driver="mlx5_core", iommu_group=21 + i,
               name="Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]") for i in (0, 1)]
    r.pci([rp] + fn, "RECONSTRUCTED: the BDFs 81:00.0/.1 and node 0 are the topology capture's; "
          "the registers (Gen3 x16 card, MPS 256, MRRS 4096, RO+, slot 75 W) are the scenario's choice")
    fw, psid = "16.35.2000", "MT_0000000008"
    r.mst_version()
    r.mstconfig("0000:81:00.0", "ConnectX5", "MCX516A-CCA_Ax",
                "ConnectX-5 EN network interface card; 100GbE dual-port QSFP28; PCIe3.0 x16",
                cfg_rows("force_relax(1)"))
    r.flint("0000:81:00.0", flint_text(fw, psid))
    r.mtmp("0000:81:00.0", 55)
    r.mpein("0000:81:00.0", 1, 27, 3, 16)
    r.source("`hwcheck/commands/mstconfig -d 0000:81:00.0 -e q`", "corpus mlxconfig/*", CFG_NOTE + " (force_relax)")
    r.source("`hwcheck/commands/mstflint -d 0000:81:00.0 q`", f"firmware {fw} of corpus "
             "`dmesg/mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt`", FLINT_NOTE)
    r.source("`hwcheck/commands/mstreg ... MTMP` / `... MPEIN`", "table layout of corpus "
             "`temperature/switchib-sb7790_mlxreg-MTMP-get_bad-parameter-and-table_ibswinfo-issue6_FRAGMENT.txt`; "
             "27 W of the dmesg capture above",
             "RECONSTRUCTED: 55 degC, pwr_status 1 (sufficient), pci_power 27 W (MPEIN fields per DATA-SOURCES.md)")
    kernel = "5.15.0-91-generic"
    for i, (dev, nd) in enumerate((("mlx5_0", "enp129s0f0"), ("mlx5_1", "enp129s0f1"))):
        r.rdma(f"0000:81:00.{i}", dev, fw, psid, "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)", nd)
    r.source("`infiniband/mlx5_{0,1}`, `net/enp129s0f{0,1}` names", "corpus topology/epyc-2numa_cx5-x710-bcm57416_lspci-hwloc-ls_notes-cn.txt",
             "names real; port state ACTIVE/LinkUp, rate 100 Gb/sec, MTU 9000 RECONSTRUCTED")
    return fw, psid, kernel


def epyc_dmesg(r, apic_lines, note):
    text = corpus("dmesg/mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt")
    r.dmesg(apic_lines + text)
    r.source("`hwcheck/commands/dmesg`", "corpus `dmesg/mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt` "
             "(verbatim; its BDF is another host's) after the APIC lines", note)


# ---------------------------------------------------------------- scenarios

def amd_x2apic_off():
    r = Root("amd-x2apic-off", "x2APIC off on an AMD host")
    epyc_host(r)
    fw, psid, kernel = epyc_cx5(r, "amd-x2apic-off")
    epyc_dmesg(r, "[    0.021513] APIC: Switched APIC routing to: physical flat\n",
               "RECONSTRUCTED APIC line: the routing an xAPIC-mode kernel prints (no AMD boot log in "
               "the corpus shows x2APIC off)")
    for i, nd in enumerate(("enp129s0f0", "enp129s0f1")):
        healthy_netdev(r, f"0000:81:00.{i}", nd, fw, psid, kernel, 24, list(range(24)), "0-23")
    r.source("`hwcheck/commands/ethtool * enp129s0f*`", "-", ETHTOOL_NOTE)
    r.done()


def rings_512():
    r = Root("rings-512-discards", "rings 512 of 8192 with rx_discards_phy counting")
    epyc_host(r)
    fw, psid, kernel = epyc_cx5(r, "rings-512-discards")
    epyc_dmesg(r, x2apic_on_amd(), "x2APIC lines verbatim from corpus `dmesg/boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt`")
    st = corpus("ethtool/mlx5_ethtool-S_nonzero_xdp-regression_k5.15_bpf-2024.txt")
    st = st[st.index("NIC statistics:"):]
    # the poster removed the zero counters ("Missing counters are zero"): the wire counters the
    # link rules read are put back as the zeros the poster says they were
    st = st.rstrip("\n") + "\n     rx_symbol_err_phy: 0\n     link_down_events_phy: 0\n"
    healthy_netdev(r, "0000:81:00.0", "enp129s0f0", fw, psid, kernel, 24, list(range(24)), "0-23",
                   rx=512, stats=st)
    healthy_netdev(r, "0000:81:00.1", "enp129s0f1", fw, psid, kernel, 24, list(range(24)), "0-23")
    r.source("`hwcheck/commands/ethtool -S enp129s0f0/stdout`", "corpus `ethtool/mlx5_ethtool-S_nonzero_xdp-regression_k5.15_bpf-2024.txt`",
             "verbatim from `NIC statistics:` on (rx_discards_phy 58591428329, rx_out_of_buffer 990473555); "
             "RECONSTRUCTED: the last two lines `rx_symbol_err_phy: 0`, `link_down_events_phy: 0` (the poster "
             "removed zero counters: 'Missing counters are zero')")
    r.source("`hwcheck/commands/ethtool -g enp129s0f0/stdout`", "layout of corpus `ethtool/likely-mlx5_ens1f0np0_ethtool-g_rx-tx-8192-max_notes-cn.txt` (max 8192)",
             "RECONSTRUCTED current RX 512: the scenario's premise")
    r.source("other `hwcheck/commands/ethtool *`", "-", ETHTOOL_NOTE)
    r.done()


def irq_far():
    r = Root("irq-far-numa", "IRQs on the far NUMA node")
    epyc_host(r)
    fw, psid, kernel = epyc_cx5(r, "irq-far-numa")
    epyc_dmesg(r, x2apic_on_amd(), "x2APIC lines verbatim from corpus `dmesg/boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt`")
    for i, nd in enumerate(("enp129s0f0", "enp129s0f1")):
        healthy_netdev(r, f"0000:81:00.{i}", nd, fw, psid, kernel, 24, list(range(24, 48)), "0-23")
    r.source("`hwcheck/commands/ethtool * enp129s0f*`", "-", ETHTOOL_NOTE)
    r.source("vector affinity", "-", "RECONSTRUCTED: all 24 vectors of each netdev on CPUs 24-47 (node 1), "
             "the card on node 0: the scenario's premise")
    r.done()


def cx6dx_funcs(rp_bdf, rp_vendor, rp_device, numa):
    rp = dict(bdf=rp_bdf, parent=None, vendor=rp_vendor, device=rp_device, type="rp",
              primary=0x40, secondary=0x41, subordinate=0x41, mps_sup=512, mps=256, mrrs=512,
              lnkcap=(16, 16), lnkcap_extra=0x100000, lnksta=(16, 16), lnksta_extra=0x2000,
              slot=(75, 2), numa=numa, driver="pcieport", iommu_group=30,
              name="PCI bridge: root port (reconstructed)")
    fn = [dict(bdf=f"0000:41:00.{i}", parent=rp_bdf, vendor=0x15b3, device=0x101d,
               subsys=(0x15b3, 0x0016), type="ep", multifunction=True, mps_sup=512, mps=256, mrrs=4096,
               ro=True, ext_tag=True, no_snoop=True, slot_power=75, lnkcap=(16, 16), lnksta=(16, 16),
               numa=numa, driver="mlx5_core", iommu_group=31 + i,
               name="Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]") for i in (0, 1)]
    return [rp] + fn


def cx6dx_card(r, fw, psid, wo, temp, local, vec_cpus, kernel):
    r.mst_version()
    r.mstconfig("0000:41:00.0", "ConnectX6DX", "MCX623106AN-CDA_Ax",
                "ConnectX-6 Dx EN adapter card; 100GbE; Dual-port QSFP56; PCIe 4.0 x16; No Crypto",
                cfg_rows(wo))
    r.source("`hwcheck/commands/mstconfig -d 0000:41:00.0 -e q`", "device type/name/description of corpus "
             "`mlxconfig/cx6dx_mst-status_mstconfig-q-grep-CQE_mlxconfig-set-dialog_notes-cn.txt`", CFG_NOTE + f" ({wo})")
    if temp is not None:
        r.mtmp("0000:41:00.0", temp)
    r.mpein("0000:41:00.0", 1, 75, 4, 16)
    r.source("`hwcheck/commands/mstreg ... MPEIN`" + (" / `MTMP`" if temp is not None else ""),
             "table layout of corpus `temperature/switchib-sb7790_mlxreg-MTMP-get_bad-parameter-and-table_ibswinfo-issue6_FRAGMENT.txt`",
             "RECONSTRUCTED: pwr_status 1 (sufficient), 75 W" + (f", {temp} degC" if temp is not None else ""))
    for i, (dev, nd) in enumerate((("mlx5_0", "ens1f0np0"), ("mlx5_1", "ens1f1np1"))):
        r.rdma(f"0000:41:00.{i}", dev, fw, psid, "4: ACTIVE", "5: LinkUp", "100 Gb/sec (2X HDR)", nd)
        healthy_netdev(r, f"0000:41:00.{i}", nd, fw, psid, kernel, 24, vec_cpus, local)
    r.source("`infiniband/mlx5_{0,1}`, netdevs ens1f{0,1}np{0,1}", "-",
             "RECONSTRUCTED names, ACTIVE/LinkUp 100 Gb/sec ports, MTU 9000; " + ETHTOOL_NOTE)


def cx6dx_amd():
    r = Root("cx6dx-amd-wr-ordering", "a ConnectX-6 Dx on AMD with PCI_WR_ORDERING per_mkey(0)")
    epyc_host(r)
    r.pci(cx6dx_funcs("0000:40:01.1", 0x1022, 0x1483, 0),
          "RECONSTRUCTED: BDF 41:00.0 of the AMD-107 host (corpus mlxconfig/cx6dx_mst-status_...), Gen4 x16 "
          "card (MCX623106AN, PCIe 4.0 x16) in a Gen4 x16 root port 40:01.1")
    fw, psid = "22.27.1016", "MT_0000000359"
    fl = corpus("mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt")
    first = fl[fl.index("Image type:"):]
    first = first[:first.index("Security Attributes:")] + "Security Attributes:   N/A\n"
    r.flint("0000:41:00.0", first)
    r.source("`hwcheck/commands/mstflint -d 0000:41:00.0 q`", "corpus `mlxconfig/cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt`",
             "verbatim: the first (ConnectX-6 Dx) query, up to its Security Attributes line")
    cx6dx_card(r, fw, psid, "per_mkey(0)", 58, "0-23", list(range(24)), "5.15.0-91-generic")
    r.dmesg(x2apic_on_amd())
    r.source("`hwcheck/commands/dmesg`", "x2APIC lines verbatim from corpus "
             "`dmesg/boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt`",
             "the rest of this host's boot log was not captured")
    r.done()


def xeon_host(r, hostname):
    r.host("host-hw-2xe2690-x2apic-unknown", "real cpuinfo of a two-socket Xeon E5-2690 (16 CPUs)")
    socks = {}
    cur = None
    for ln in open(r.path("proc/cpuinfo")):
        if ln.startswith("processor"):
            cur = int(ln.split(":")[1])
        elif ln.startswith("physical id"):
            socks.setdefault(int(ln.split(":")[1]), []).append(cur)
    nodes = [cpulist(socks[s]) for s in sorted(socks)]
    r.numa(nodes)
    r.source("`sys/devices/system/node/node{0,1}`", "the `physical id` of each CPU in that cpuinfo",
             "RECONSTRUCTED: one node per socket (the capture has no NUMA files)")
    if os.path.exists(r.path("proc/interrupts")):
        os.unlink(r.path("proc/interrupts"))  # rewritten with the card's vectors
    host_extras(r, hostname, "5.15.0-91-generic", "ro quiet intel_iommu=on iommu=pt", True, "dmar0",
                ("coretemp", "Package id 0", 41000, 100000))
    r.differs("the host: a real two-socket Xeon E5-2690 with 16 CPUs (nodes "
              f"{' / '.join(nodes)}) where the facts file has an E5-2680 v3 with 48; the card's local "
              "CPU list, channel and vector counts follow the real CPUs")
    return nodes


def cx6dx_88c():
    r = Root("cx6dx-card-88c", "a card at 88 degC")
    nodes = xeon_host(r, "node")
    r.pci(cx6dx_funcs("0000:40:03.1", 0x8086, 0x2030, 0),
          "RECONSTRUCTED: BDF 41:00.0 of corpus dmesg/mlx5-cx6dx_fw22.99_temp_warn_..., Gen4 x16 card in a "
          "Gen4 x16 root port 40:03.1")
    fw, psid = "22.36.1010", "MT_0000000359"
    r.flint("0000:41:00.0", flint_text(fw, psid))
    r.source("`hwcheck/commands/mstflint -d 0000:41:00.0 q`", "firmware 22.36.1010 of corpus "
             "`ibverbs/cx6dx-mt4125_bond_ibv_devinfo-vv_roce-2x50G_fw22.36.1010_notes-cn.txt`", FLINT_NOTE)
    # mstreg MTMP refused (the error text mstreg/mlxreg prints for a sensor it cannot read), so
    # the temperature comes from mstmget_temp, as on the captured host
    sw = corpus("temperature/switchib-sb7790_mlxreg-MTMP-get_bad-parameter-and-table_ibswinfo-issue6_FRAGMENT.txt")
    err = "Sending access register...\n\n" + re.search(r"-E- Failed to send access register: Bad parameter", sw).group(0) + "\n"
    r.command(["mstreg", "-d", "0000:41:00.0", "--reg_name", "MTMP", "--get", "--indexes",
               "sensor_index=0x0,slot_index=0x0"], err, exit=1)
    mt = corpus("temperature/cx6dx_mget_temp_88C_notes-cn.txt")
    r.command(["mstmget_temp", "-d", "0000:41:00.0"], mt[mt.index("\n") + 1:])
    r.source("`hwcheck/commands/mstmget_temp -d 0000:41:00.0`", "corpus `temperature/cx6dx_mget_temp_88C_notes-cn.txt`",
             "verbatim after the prompt line: `88`")
    r.source("`hwcheck/commands/mstreg ... MTMP`", "the error line of corpus "
             "`temperature/switchib-sb7790_mlxreg-MTMP-get_bad-parameter-and-table_ibswinfo-issue6_FRAGMENT.txt`",
             "RECONSTRUCTED: MTMP refused on this card (exit 1), so hwcheck asks mstmget_temp; no hwmon "
             "sensor (kernel 5.15 predates mlx5 hwmon): thermal gets the card's sensor from mlx (source mstmget_temp)")
    cx6dx_card(r, fw, psid, "force_relax(1)", None, nodes[0], expand(nodes[0]) * 3, "5.15.0-91-generic")
    r.dmesg(x2apic_on_intel() + corpus(
        "dmesg/mlx5-cx6dx_fw22.99_temp_warn_health-synd-0x10-high-temp_slot-power-not-advertised_notes-cn.txt"))
    r.source("`hwcheck/commands/dmesg`", "x2APIC lines verbatim from corpus `dmesg/boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt`, "
             "then corpus `dmesg/mlx5-cx6dx_fw22.99_temp_warn_health-synd-0x10-high-temp_slot-power-not-advertised_notes-cn.txt` verbatim",
             "two captures joined")
    r.done()


def cx5_gen3x8():
    r = Root("cx5-gen3x8-100g", "a 100 GbE ConnectX-5 on a Gen3 x8 path")
    r.copy_from("host-cx5-x8-slot")
    r.differs("MRRS 512 of host-cx5-x8-slot (the facts file: 4096); the path bottleneck as hwcheck "
              "computes it (57.607 Gb/s, TLP overhead included) where the facts file has the kernel's "
              "63.008 Gb/s")
    r.source("`sys/...` (PCI tree 0001:42:01.0 -> 0001:43:00.0)", "copied from tests/fixtures/host-cx5-x8-slot (see its SOURCE.md)", "as there")
    nodes = xeon_host(r, "node")
    bdf = "0001:43:00.0"
    fw, psid = "16.35.4030", "HPE0000000009"
    r.mst_version()
    r.mstconfig(bdf, "ConnectX5", "P11338-B21_Ax", "HPE InfiniBand EDR/Ethernet 100Gb 1-port 841QSFP28 Adapter",
                cfg_rows("force_relax(1)"))
    r.flint(bdf, flint_text(fw, psid))
    r.mtmp(bdf, 52)
    r.mpein(bdf, 1, 27, 3, 8)
    r.source(f"`hwcheck/commands/mstconfig -d {bdf} -e q`", "corpus mlxconfig/*", CFG_NOTE + " (force_relax)")
    r.source(f"`hwcheck/commands/mstflint -d {bdf} q`", "firmware 16.35.4030 of corpus "
             "`dmesg/mlx5-cx5-hpe-cx555a_fw16.35.4030_limited-by-8GT-x8-of-x16_sufficient-power-27W_blog.txt`", FLINT_NOTE)
    r.source("`hwcheck/commands/mstreg ... MTMP` / `MPEIN`", "27 W 'sufficient' of that dmesg capture",
             "RECONSTRUCTED register tables: 52 degC, pwr_status 1, pci_power 27")
    r.rdma(bdf, "mlx5_0", fw, psid, "4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)", "ens1np0")
    healthy_netdev(r, bdf, "ens1np0", fw, psid, "5.15.0-91-generic", 8, expand(nodes[0]) * 2, nodes[0])
    r.source("`infiniband/mlx5_0`, netdev ens1np0", "-", "RECONSTRUCTED names, ACTIVE 100 Gb/sec port, MTU 9000, "
             "8 channels for the 8 CPUs of node 0; " + ETHTOOL_NOTE)
    r.dmesg(x2apic_on_intel() + corpus(
        "dmesg/mlx5-cx5-hpe-cx555a_fw16.35.4030_limited-by-8GT-x8-of-x16_sufficient-power-27W_blog.txt"))
    r.source("`hwcheck/commands/dmesg`", "x2APIC lines of corpus `dmesg/boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt`, "
             "then corpus `dmesg/mlx5-cx5-hpe-cx555a_fw16.35.4030_limited-by-8GT-x8-of-x16_sufficient-power-27W_blog.txt`",
             "verbatim, two captures joined")
    r.done()


def cx6_slot_25w():
    r = Root("cx6-slot-25w-limiter", "a ConnectX-6 whose slot advertises 25 W with the limiter on")
    r.copy_from("host-cx6-ocp3-gen1-x4")
    r.differs("numa_node -1 and MRRS 512 of host-cx6-ocp3-gen1-x4 (a one-node desktop without SRAT; "
              "the facts file: node 0, MRRS 4096): the vectors' locality is unknown there, not 0")
    r.source("`sys/...` (PCI tree 0000:00:1b.4 -> 0000:04:00.0, numa_node -1)",
             "copied from tests/fixtures/host-cx6-ocp3-gen1-x4 (see its SOURCE.md)", "as there")
    cpus = 20
    blk = ("processor\t: {i}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 151\n"
           "model name\t: 12th Gen Intel(R) Core(TM) i7-12700\nphysical id\t: 0\n"
           "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush "
           "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc pni pclmulqdq "
           "monitor ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand "
           "hypervisor_absent\n\n")
    r.write("proc/cpuinfo", "".join(blk.format(i=i).replace(" hypervisor_absent", "") for i in range(cpus)))
    r.ncpus = cpus
    r.numa([f"0-{cpus - 1}"])
    host_extras(r, "node", "5.15.0-91-generic", "ro quiet intel_iommu=on iommu=pt", True, "dmar0",
                ("coretemp", "Package id 0", 41000, 100000))
    r.source("`proc/cpuinfo`, `sys/devices/system/node/node0`", "INDEX row of the card: a Z690 desktop board",
             "RECONSTRUCTED: a 12th-gen Core (i7-12700, 20 CPUs) with the x2apic flag, one NUMA node")
    bdf = "0000:04:00.0"
    fw, psid = "20.27.446", "MT_0000000222"
    r.mst_version()
    r.mstconfig(bdf, "ConnectX6", "MCX613436A-VDA_Ax", "ConnectX-6 EN adapter card; 200GbE; OCP3.0",
                cfg_rows("force_relax(1)"))
    r.flint(bdf, flint_text(fw, psid))
    r.mtmp(bdf, 45)
    r.mpein(bdf, 2, 25, 1, 4)
    r.source(f"`hwcheck/commands/mstconfig -d {bdf} -e q`", "corpus mlxconfig/*",
             CFG_NOTE + "; DISABLE_SLOT_POWER_LIMITER False (the limiter on, the firmware default)")
    r.source(f"`hwcheck/commands/mstflint -d {bdf} q`", "firmware 20.27.446 of corpus "
             "`dmesg/mlx5-cx6-ocp3_fw20.27.446_limited-by-2.5GT-x4_insufficient-power-25W_skyao.txt`", FLINT_NOTE)
    r.source("`hwcheck/commands/mstreg ... MPEIN` / `MTMP`", "\"Detected insufficient power on the PCIe slot (25W)\" of that capture",
             "RECONSTRUCTED register tables: pwr_status 2 (insufficient), pci_power 25 (what the kernel message "
             "reports from MPEIN), 45 degC")
    r.rdma(bdf, "mlx5_0", fw, psid, "1: DOWN", "2: Polling", "200 Gb/sec (4X HDR)", "enp4s0np0")
    r.netdev(bdf, "enp4s0np0", 9000, -1, "down", {
        "-g": rings("enp4s0np0", 8192), "-l": channels("enp4s0np0", 16, 16), "-k": features("enp4s0np0"),
        "-a": pause("enp4s0np0"), "-S": stats_zero(),
        "-i": drvinfo("enp4s0np0", bdf, fw, psid, "5.15.0-91-generic")}, list(range(16)), f"0-{cpus - 1}")
    r.command(["ethtool", "-m", "enp4s0np0", "hex", "on"], module_dump(lit=False))
    r.source("`hwcheck/commands/ethtool -m enp4s0np0 hex on`", "the real Mellanox QSFP28 dump of "
             "tests/fixtures/module-eeprom/qsfp28-mellanox-mlxsw-sfp42.hex, unchanged",
             "RECONSTRUCTED placement: a module without light (dark lanes), as in a port whose "
             "modules the firmware powered down")
    r.source("`infiniband/mlx5_0` port DOWN/Polling, netdev enp4s0np0 (down, speed -1)",
             "\"enp4s0np0: Link down\" of that capture", "name and state real; rate 200 Gb/sec (the card's), "
             "MTU 9000, " + ETHTOOL_NOTE)
    r.dmesg(x2apic_on_intel() + corpus(
        "dmesg/mlx5-cx6-ocp3_fw20.27.446_limited-by-2.5GT-x4_insufficient-power-25W_skyao.txt"))
    r.source("`hwcheck/commands/dmesg`", "x2APIC lines of corpus `dmesg/boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt`, "
             "then corpus `dmesg/mlx5-cx6-ocp3_fw20.27.446_limited-by-2.5GT-x4_insufficient-power-25W_skyao.txt`",
             "verbatim, two captures joined")
    r.done()


def healthy_cx7():
    r = Root("healthy-cx7-gen5x16", "a healthy ConnectX-7 Gen5 x16 host (the false-positive guard)")
    r.copy_from("host-cx7-gen5-healthy")
    r.source("`sys/...` (two ConnectX-7 at Gen5 x16 behind 20:03.1 and 80:01.1)",
             "copied from tests/fixtures/host-cx7-gen5-healthy (see its SOURCE.md)", "as there")
    r.host("host-hw-genoa-2socket-x2apic-off", "real: lscpu/numactl of the same ASUS ESC8000A-E12 "
           "(2x EPYC 9374F, 64 CPUs, nodes 0-31 / 32-63)")
    # The captured host runs x2APIC off (amd_iommu=off takes away interrupt remapping; every EPYC
    # supports x2APIC): the healthy guard runs it as the facts file does, x2APIC on with remapping.
    ci = r.path("proc/cpuinfo")
    text = open(ci).read()
    with open(ci, "w") as f:
        f.write(re.sub(r"^(flags\s*:.*?\bapic\b)", r"\1 x2apic", text, flags=re.M))
    with open(r.path("proc/cmdline"), "w") as f:
        f.write("ro quiet iommu=pt\n")
    r.source("`proc/cpuinfo` flag `x2apic`, `proc/cmdline`", "the scenario's facts file (x2APIC enabled, "
             "command line `ro quiet iommu=pt`)", "RECONSTRUCTED: the capture's host booted with amd_iommu=off "
             "and x2APIC off (host-hw-genoa-2socket-x2apic-off flags that); the healthy guard has it on")
    host_extras(r, "coyote2", "6.8.0-64-generic", "", False, None, ("k10temp", "Tctl", 46000, None))
    fw, psid = "28.39.1002", "MT_0000000838"
    kernel = "6.8.0-64-generic"
    r.mst_version()
    for bus, node, local in (("21", 0, "0-31"), ("81", 1, "32-63")):
        bdf = f"0000:{bus}:00.0"
        r.mstconfig(bdf, "ConnectX7", "MCX755106AS-HEAT_Ax",
                    "NVIDIA ConnectX-7 HHHL Adapter Card; 200GbE / NDR200 IB (default mode); Dual-port QSFP112; PCIe 5.0 x16",
                    cfg_rows("force_relax(1)"))
        r.flint(bdf, flint_text(fw, psid))
        r.mtmp(bdf, 56)
        r.mpein(bdf, 1, 75, 5, 16)
        # irqaffinity=4-31,36-63 on this host's command line: vectors on the node's other CPUs
        cpus = [c for c in expand(local) if c % 32 >= 4]
        for fn in (0, 1):
            dev = f"mlx5_{2 * (bus == '81') + fn}"
            nd = f"ens{1 + (bus == '81')}f{fn}np{fn}"
            r.rdma(f"0000:{bus}:00.{fn}", dev, fw, psid, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", nd)
            healthy_netdev(r, f"0000:{bus}:00.{fn}", nd, fw, psid, kernel, 32, (cpus * 2)[:32], local,
                           speed=200000)
    r.source("`hwcheck/commands/mstconfig -d 0000:{21,81}:00.0 -e q`", "corpus mlxconfig/*", CFG_NOTE + " (force_relax, as a tuned AMD host has it)")
    r.source("`hwcheck/commands/mstflint -d 0000:{21,81}:00.0 q`", "firmware 28.39.1002 and PSID MT_0000000838 of corpus "
             "`ibverbs/cx7_ibv_devinfo_roce_linux-rdma-2025.txt`", FLINT_NOTE)
    r.source("`hwcheck/commands/mstreg ... MTMP` / `MPEIN`", "SlotPowerLimit 75W of corpus `lspci/cx7-200g-ndr200_gen5-x16_asus-esc8000a-e12_21-00.0_stelline.txt`",
             "RECONSTRUCTED register tables: 56 degC, pwr_status 1 (sufficient), 75 W")
    r.source("`infiniband/mlx5_0..3`, netdevs ens1f{0,1}np*, ens2f{0,1}np*", "mlx5_0..mlx5_3 of corpus "
             "`topology/asus-esc8000a-e12_genoa-2numa_cx7x2_full-hardware-report_stelline.md`",
             "RDMA names real; netdev names, ACTIVE 200 Gb/sec ports, MTU 9000, 32 channels RECONSTRUCTED; " + ETHTOOL_NOTE)
    r.differs("the host: the real EPYC 9374F of the capture (the facts file: 9334); x2APIC decided "
              "from the cpuinfo flag where the facts file has dmesg; no IOMMU (the facts file: "
              "present, passthrough); the root ports' MPS 512 of host-cx7-gen5-healthy (facts file: 256)")
    r.dmesg("[    0.170301] x2apic enabled\n[    0.170466] APIC: Switched APIC routing to: physical x2apic\n")
    r.source("`hwcheck/commands/dmesg`", "-", "RECONSTRUCTED: the two x2APIC lines of a boot in the kernel's "
             "wording (arch/x86/kernel/apic/apic.c, as in corpus dmesg/boot_x2apic-*), as the facts file "
             "has x2APIC on from dmesg; no boot log of this host was captured")
    r.done()


def tree(top):
    """{relative path: ('link', target) | ('file', bytes)} of a directory."""
    out = {}
    for dp, dn, fn in os.walk(top):
        for x in dn + fn:
            p = os.path.join(dp, x)
            rel = os.path.relpath(p, top)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = ("file", f.read())
    return out


def main():
    global CORPUS, OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--check", action="store_true",
                    help="rebuild in a scratch directory and compare with the committed roots")
    args = ap.parse_args()
    CORPUS = args.corpus
    if not os.path.isdir(CORPUS):
        print(f"corpus {CORPUS} not found: cannot rebuild the roots")
        return 1
    if args.check:
        import tempfile
        OUT = tempfile.mkdtemp(prefix="scenario-roots-")
    for f in (cx5_gen3x8, cx6dx_amd, cx6_slot_25w, cx6dx_88c, amd_x2apic_off, rings_512, irq_far,
              healthy_cx7):
        f()
    if not args.check:
        return 0
    bad = []
    for name in SCENARIOS:
        new, old = tree(os.path.join(OUT, name)), tree(os.path.join(FIX, name))
        for rel in sorted(set(new) | set(old)):
            if new.get(rel) != old.get(rel):
                bad.append(f"{name}/{rel}")
    shutil.rmtree(OUT)
    for b in bad[:20]:
        print("differs from what make_roots.py builds:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

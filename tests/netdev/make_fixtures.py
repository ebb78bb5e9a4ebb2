# SPDX-License-Identifier: MIT
# Builds the net-* and thermal-* fixture roots from the real captures in the corpus.
#   python3 tests/netdev/make_fixtures.py [CORPUS_DIR]   (default tests/captures: the corpus files
#   it reads, copied verbatim; see tests/captures/SOURCE.md)
# Rerunning rewrites the roots (the SOURCE.md next to each says what came from where and what was
# reconstructed). Captured text is copied verbatim; only the sysfs skeleton around it is written.
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "captures")


def corpus(path):
    with open(os.path.join(CORPUS, path), encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def block(text, first, last_prefix=None, count=None):
    """The lines of text from the line starting with `first` through the line starting with
    `last_prefix` (its last occurrence in that block), or `count` lines."""
    lines = text.split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith(first))
    if count is not None:
        return "\n".join(lines[i:i + count]) + "\n"
    j = max(k for k in range(i, len(lines)) if lines[k].startswith(last_prefix))
    return "\n".join(lines[i:j + 1]) + "\n"


class Root:
    def __init__(self, name):
        self.dir = os.path.join(FIXTURES, name)
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        self.root = os.path.join(self.dir, "root")
        os.makedirs(self.root)

    def write(self, rel, content):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(content)

    def link(self, rel, target):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def source(self, text):
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(text)

    def pci(self, bus, bdf, vendor, device=None, driver=None, numa=None, cpus=None, irqs=()):
        d = f"sys/devices/pci0000:{bus}/{bdf}"
        self.write(f"{d}/vendor", vendor + "\n")
        if device:
            self.write(f"{d}/device", device + "\n")
        if driver:
            os.makedirs(os.path.join(self.root, "sys/bus/pci/drivers", driver), exist_ok=True)
            self.link(f"{d}/driver", f"../../../bus/pci/drivers/{driver}")
        if numa is not None:
            self.write(f"{d}/numa_node", f"{numa}\n")
        if cpus is not None:
            self.write(f"{d}/local_cpulist", cpus + "\n")
        for irq in irqs:
            self.write(f"{d}/msi_irqs/{irq}", "msix\n")
        if not os.path.lexists(os.path.join(self.root, "sys/bus/pci/devices", bdf)):
            self.link(f"sys/bus/pci/devices/{bdf}", f"../../../devices/pci0000:{bus}/{bdf}")
        return d

    def netdev(self, bus, bdf, ifname, mtu=None, speed=None, operstate=None):
        d = f"sys/devices/pci0000:{bus}/{bdf}/net/{ifname}"
        for k, v in (("mtu", mtu), ("speed", speed), ("operstate", operstate)):
            if v is not None:
                self.write(f"{d}/{k}", f"{v}\n")
        self.link(f"{d}/device", f"../../../{bdf}")
        self.link(f"sys/class/net/{ifname}", f"../../devices/pci0000:{bus}/{bdf}/net/{ifname}")

    def virtual_netdev(self, ifname, mtu):
        self.write(f"sys/devices/virtual/net/{ifname}/mtu", f"{mtu}\n")
        self.link(f"sys/class/net/{ifname}", f"../../devices/virtual/net/{ifname}")

    def bond(self, name, mtu, mode, slaves, active="", bus=None, bdfs=(), flags=None, carrier=None,
             operstate=None):
        """A bonding master (drivers/net/bonding/bond_sysfs.c layout) and its members' links;
        flags, carrier and operstate of the master when given."""
        d = f"sys/devices/virtual/net/{name}"
        self.write(f"{d}/mtu", f"{mtu}\n")
        for k, v in (("flags", flags), ("carrier", carrier), ("operstate", operstate)):
            if v is not None:
                self.write(f"{d}/{k}", f"{v}\n")
        for k, v in (("mode", mode), ("slaves", " ".join(slaves)), ("active_slave", active)):
            self.write(f"{d}/bonding/{k}", f"{v}\n")
        self.link(f"sys/class/net/{name}", f"../../devices/virtual/net/{name}")
        for ifname, bdf in zip(slaves, bdfs):
            m = f"sys/devices/pci0000:{bus}/{bdf}/net/{ifname}"
            self.link(f"{m}/master", f"../../../../virtual/net/{name}")
            self.write(f"{m}/bonding_slave/state", "active\n")

    def rdma(self, bdf, dev, fw, board, port, state, phys, link_layer, netdev):
        """An RDMA device of bdf with one port (drivers/infiniband/core/sysfs.c wording)."""
        base = f"sys/bus/pci/devices/{bdf}/infiniband/{dev}"
        self.write(f"{base}/fw_ver", fw + "\n")
        self.write(f"{base}/board_id", board + "\n")
        for k, v in (("state", state), ("phys_state", phys), ("link_layer", link_layer),
                     ("gid_attrs/ndevs/0", netdev)):
            self.write(f"{base}/ports/{port}/{k}", v + "\n")
        self.link(f"{base}/device", "../../../" + bdf)
        self.link(f"sys/class/infiniband/{dev}", f"../../bus/pci/devices/{bdf}/infiniband/{dev}")

    def ethtool(self, opt, ifname, stdout):
        self.write(f"hwcheck/commands/ethtool {opt} {ifname}/stdout", stdout)

    def hwmon(self, n, devdir, name, temps):
        """temps: {index: {suffix: value}}; devdir: the device the hwmon hangs under."""
        d = f"{devdir}/hwmon/hwmon{n}"
        self.write(f"{d}/name", name + "\n")
        for k, attrs in temps.items():
            for suffix, v in attrs.items():
                self.write(f"{d}/temp{k}_{suffix}", f"{v}\n")
        self.link(f"{d}/device", "../..")
        self.link(f"sys/class/hwmon/hwmon{n}", f"../../{d[len('sys/'):]}")


# ------------------------------------------------------------------ netdevs

def net_cx6dx_discards():
    r = Root("net-cx6dx-discards-rings-4096")
    bdf = "0000:3b:00.0"
    r.pci("3a", bdf, "0x15b3", "0x101d", "mlx5_core")
    r.netdev("3a", bdf, "enp59s0f0np0", mtu=1500, speed=100000, operstate="up")
    g = corpus("ethtool/likely-mlx5-100G_enp1s0f0np0_ethtool-g-max8192-cur4096_lscpu-x2apic-flag"
               "_i9-14900K_usrp-users-2024.txt")
    r.ethtool("-g", "enp59s0f0np0",
              block(g, "Ring parameters for", "TX:").replace("enp1s0f0np0", "enp59s0f0np0"))
    r.ethtool("-S", "enp59s0f0np0",
              corpus("ethtool/mlx5_ethtool-S_nonzero_xdp-regression_k6.5_bpf-2024.txt"))
    r.source("""# net-cx6dx-discards-rings-4096

A ConnectX-6 Dx 100G port that drops: rings below their maximum and a huge `rx_discards_phy`.
Composite of two real captures (two hosts), stitched around one netdev `enp59s0f0np0`.

| piece | from (corpus/) | notes |
|---|---|---|
| `hwcheck/commands/ethtool -S enp59s0f0np0/stdout` | `ethtool/mlx5_ethtool-S_nonzero_xdp-regression_k6.5_bpf-2024.txt` | verbatim, poster's header lines included (zero counters were removed by the poster: those counters are *absent*, not zero). ConnectX-6 Dx 100G, kernel 6.5: rx_discards_phy 441063206498, rx_out_of_buffer 534918379, rx_buffer_passed_thres_phy 1192226 |
| `hwcheck/commands/ethtool -g enp59s0f0np0/stdout` | `ethtool/likely-mlx5-100G_enp1s0f0np0_ethtool-g-max8192-cur4096_..._usrp-users-2024.txt` | the `ethtool -g` block verbatim (mailer blank lines kept), interface name changed from enp1s0f0np0: max 8192, current 4096, `RX Mini: n/a` |
| `sys/...` | reconstructed | BDF 0000:3b:00.0 and the interface name are invented; vendor 0x15b3 / device 0x101d (ConnectX-6 Dx, as the thread states); driver mlx5_core; speed 100000 (100G, as stated); MTU 1500 and operstate up are the scenario (the capture does not show them) |

Not recorded (so reported absent): `ethtool -l/-k/-a/-i`, msi_irqs, numa_node, local_cpulist.
""")


def net_full_stats():
    r = Root("net-mlx5-100g-full-stats")
    bdf = "0000:5e:00.0"
    r.pci("5d", bdf, "0x15b3", None, "mlx5_core")
    r.netdev("5d", bdf, "p1", speed=100000)
    t = corpus("ethtool/mlx5-100G_ethtool-p1_and_ethtool-S-full_lane3-errors_pci-signal-integrity"
               "_notes-cn_ANNOTATIONS-STRIPPED.txt")
    r.ethtool("-S", "p1", t[t.index("NIC statistics:"):])
    # a non-ConnectX neighbour that must be skipped, with its own real ethtool outputs
    e810 = corpus("ethtool/intel-e810_ice_ethtool-l-g-c-k-i-and-settings_fw4.51_k6.15"
                  "_intel-wired-lan-2025.txt")
    r.pci("62", "0000:63:00.0", "0x8086", "0x159b", "ice")
    r.netdev("62", "0000:63:00.0", "em1", mtu=1500, speed=25000)
    r.ethtool("-g", "em1", block(e810, "Ring parameters for", "TCP data split"))
    r.ethtool("-k", "em1", block(e810, "Features for", "hsr-dup-offload"))
    r.virtual_netdev("lo", 65536)
    r.source("""# net-mlx5-100g-full-stats

An mlx5 100GbE port `p1` with its complete, unfiltered `ethtool -S` (sw, vport, phy, pcie, prio,
module, per-channel counters): one bad lane (rx_err_lane_3_phy), tx_pci_signal_integrity 2; next to an
Intel E810 port (must be skipped: not vendor 0x15b3) and `lo` (virtual: no device).

| piece | from (corpus/) | notes |
|---|---|---|
| `hwcheck/commands/ethtool -S p1/stdout` | `ethtool/mlx5-100G_ethtool-p1_and_ethtool-S-full_lane3-errors_pci-signal-integrity_notes-cn_ANNOTATIONS-STRIPPED.txt` | from `NIC statistics:` to the end, verbatim (the corpus removed the author's per-line comments) |
| `sys/.../net/p1/speed` | same file, `Speed: 100000Mb/s` | |
| `hwcheck/commands/ethtool -g em1/stdout`, `-k em1` | `ethtool/intel-e810_ice_ethtool-l-g-c-k-i-and-settings_fw4.51_k6.15_intel-wired-lan-2025.txt` | verbatim blocks; E810 at 0000:63:00.0 (bus-info of that capture), vendor 0x8086, driver ice |
| `sys/...` for p1 | reconstructed | BDF 0000:5e:00.0 invented; vendor 0x15b3 (mlx5 counters); no device id (the model is not stated); MTU not shown in the capture: no file |
| `lo` | reconstructed | a virtual netdev, MTU 65536 |

Not recorded for p1 (reported absent): `ethtool -g/-l/-k/-a/-i`, msi_irqs, NUMA.
""")


def net_rss_ladder():
    r = Root("net-mlx5-rss-ladder-q6700")
    base = "ethtool/netutils-linux-fixtures/rss-ladder_mlx5.Q6700/"
    interrupts = corpus(base + "interrupts")
    r.write("proc/interrupts", interrupts)
    irqs = {"0000:01:00.0": [], "0000:01:00.1": []}
    for line in interrupts.splitlines():
        for bdf in irqs:
            if line.rstrip().endswith("@pci:" + bdf):
                irqs[bdf].append(int(line.split(":")[0]))
    for k, (bdf, ifname) in enumerate((("0000:01:00.0", "enp1s0f0"), ("0000:01:00.1", "enp1s0f1"))):
        r.pci("00", bdf, "0x15b3", None, "mlx5_core", numa=0, cpus="0-3", irqs=irqs[bdf])
        r.netdev("00", bdf, ifname)
        ib = f"sys/devices/pci0000:00/{bdf}/infiniband/mlx5_{k}"
        r.link(f"{ib}/device", f"../../../{bdf}")
        r.link(f"sys/class/infiniband/mlx5_{k}", f"../../devices/pci0000:00/{bdf}/infiniband/mlx5_{k}")
    # rss-ladder's own report: "queue mlx5_compN@pci:0000:01:00.0 (irq M) bound to CPUk"
    for line in corpus(base + "expected").splitlines():
        if "bound to CPU" in line:
            irq = int(line.split("(irq ")[1].split(")")[0])
            cpu = line.rsplit("CPU", 1)[1].strip()
            r.write(f"proc/irq/{irq}/smp_affinity_list", cpu + "\n")
    r.source("""# net-mlx5-rss-ladder-q6700

Two mlx5 functions (0000:01:00.0 and .1) on a 4-CPU Core2 Quad Q6700, after netutils-linux
`rss-ladder` spread the completion vectors of 0000:01:00.0 over CPU0..CPU3.

| piece | from (corpus/ethtool/netutils-linux-fixtures/rss-ladder_mlx5.Q6700/) | notes |
|---|---|---|
| `proc/interrupts` | `interrupts` | verbatim (legacy `PCI-MSI-edge` names `mlx5_comp0@pci:0000:01:00.0`) |
| `sys/devices/.../msi_irqs/N` | `interrupts` | one entry per line naming `@pci:<bdf>` (27-33 for .0, 34-40 for .1) |
| `proc/irq/N/smp_affinity_list` | `expected` | rss-ladder's report `queue mlx5_compK@pci:0000:01:00.0 (irq N) bound to CPUk` (irqs 30-33 -> CPU0-3); the kernel of that host predates effective_affinity_list, so only the requested affinity exists |
| `numa_node` 0, `local_cpulist` 0-3 | `lscpu_output` | one socket, all four CPUs in node 0 |
| netdev names enp1s0f0 / enp1s0f1, RDMA devices mlx5_0 / mlx5_1, driver mlx5_core | reconstructed | the capture names only the PCI functions |

The pages/cmd/async vectors (27-29) and every vector of 0000:01:00.1 were not bound by rss-ladder and
their affinity is not in the capture: they are counted as `affinity_unknown`.
No ethtool recording: rings, channels, features, pause and counters are reported absent.
""")


# ------------------------------------------------------------------ thermal

def thermal_bf2():
    r = Root("thermal-bf2-x3-sensors")
    r.write("sys/devices/platform/coretemp.0/uevent", "DRIVER=coretemp\n")
    core = {1: {"label": "Package id 0", "input": 23000, "max": 92000, "crit": 100000}}
    for c, t in enumerate([21, 22, 20, 22, 23, 22, 21, 22, 20, 20, 21, 21]):
        core[c + 2] = {"label": f"Core {c}", "input": t * 1000, "max": 92000, "crit": 100000}
    r.hwmon(0, "sys/devices/platform/coretemp.0", "coretemp", core)
    n = 1
    for chip, temp, highest in (("bc01", 62, 74), ("8501", 57, 66), ("4e01", 59, 70),
                                ("bc00", 62, 74), ("8500", 57, 66), ("4e00", 59, 70)):
        bus, fn = chip[:2], chip[3]
        bdf = f"0000:{bus}:00.{fn}"
        dev = r.pci(bus, bdf, "0x15b3", "0xa2d6", "mlx5_core")
        r.hwmon(n, dev, "mlx5", {1: {"label": "asic", "input": temp * 1000, "crit": 105000,
                                     "highest": highest * 1000}})
        n += 1
    dev = r.pci("00", "0000:01:00.0", "0x144d", None, "nvme")
    ctrl = dev + "/nvme/nvme0"
    r.write(ctrl + "/dev", "259:0\n")
    # nvme reports whole kelvins: +27.9 C = 301 K = 27850 m°C, +31.9 = 305 K, 81.8 = 355 K,
    # 84.8 = 358 K, 65261.8 = 65535 K (the "no threshold" value)
    r.hwmon(n, ctrl, "nvme", {
        1: {"label": "Composite", "input": 27850, "max": 81850, "crit": 84850, "min": -273150},
        2: {"label": "Sensor 1", "input": 27850, "max": 65261850, "min": -273150},
        3: {"label": "Sensor 2", "input": 31850, "max": 65261850, "min": -273150},
    })
    r.source("""# thermal-bf2-x3-sensors

A workstation (ASUS W790E-SAGE SE, Xeon W5-2455X) with three BlueField-2 cards: one mlx5 hwmon per
PCI function (bc00/bc01, 8500/8501, 4e00/4e01), coretemp, and an NVMe drive.

| piece | from (corpus/) | notes |
|---|---|---|
| every hwmon value | `temperature/bf2-x3_sensors_mlx5-pci-asic_w790-workstation_blog.txt` (lm-sensors `sensors`) | degrees x 1000; `high` -> temp*_max, `crit` -> temp*_crit, `highest` -> temp*_highest, labels as printed |
| BDFs | the chip names `mlx5-pci-bc01` ... | lm-sensors encodes bus and devfn: bc01 = 0000:bc:00.1 |
| nvme millidegrees | same file | nvme reports whole kelvins: +27.9 = 301 K = 27850; 31.9 = 305 K; high 81.8 = 355 K; crit 84.8 = 358 K; 65261.8 = 65535 K (no threshold) |
| sysfs layout (hwmonN under the PCI device, `device` link, `name`) | reconstructed from `sysfs/mlx5-hwmon_cx5-dualport_grep-hwmon0_and_sensors_patch-v2-2023.txt` | hwmon numbering, PCI roots (pci0000:bc ...), the coretemp index layout (temp1 package, temp2.. cores), device id 0xa2d6 (BlueField-2) and the NVMe at 0000:01:00.0 (`nvme-pci-0100`) are reconstructed |
""")


def thermal_cx5_v2():
    r = Root("thermal-cx5-hwmon-v2-module0")
    text = corpus("sysfs/mlx5-hwmon_cx5-dualport_grep-hwmon0_and_sensors_patch-v2-2023.txt")
    vals = {}
    for line in text.splitlines():
        if line.startswith("/sys/class/hwmon/hwmon0/") and ":" in line[24:]:
            k, v = line[len("/sys/class/hwmon/hwmon0/"):].split(":", 1)
            vals[k] = v
    t1 = {s: vals[f"temp1_{s}"] for s in ("input", "crit", "highest", "label")}
    for n, bdf in ((0, "0000:08:00.0"), (1, "0000:08:00.1")):
        dev = r.pci("00", bdf, "0x15b3", "0x1017", "mlx5_core")
        r.hwmon(n, dev, vals["name"], {1: t1})
    # the 200G card of the (reformatted) sensors -j fragment: asic + Module0 on .0, asic on .1
    dev = r.pci("00", "0000:02:00.0", "0x15b3", None, "mlx5_core")
    r.hwmon(2, dev, "mlx5", {1: {"label": "asic", "input": 46000, "crit": 105000, "highest": 47000},
                             2: {"label": "Module0", "input": 57000, "crit": 70000,
                                 "highest": 58000}})
    dev = r.pci("00", "0000:02:00.1", "0x15b3", None, "mlx5_core")
    r.hwmon(3, dev, "mlx5", {1: {"label": "asic", "input": 46000, "crit": 105000}})
    r.source("""# thermal-cx5-hwmon-v2-module0

The mlx5 hwmon layout as merged in Linux 6.6 (name `mlx5`, label `asic`, one hwmon per PCI function),
and a card whose module reports its own sensor (`Module0`, temp2).

| piece | from (corpus/) | notes |
|---|---|---|
| hwmon0 (0000:08:00.0): name, temp1_{input,crit,highest,label} | `sysfs/mlx5-hwmon_cx5-dualport_grep-hwmon0_and_sensors_patch-v2-2023.txt` (`grep -H -d skip . /sys/class/hwmon/hwmon0/*`) | values verbatim: 46000 / 105000 / 48000 / asic |
| hwmon1 (0000:08:00.1) | same file, lm-sensors `mlx5-pci-0801` | same values as printed by sensors |
| hwmon2/3 (0000:02:00.0 and .1) | `temperature/mlx5-200G-qsfp56_sensors-j_asic-and-Module0-temp2_design-doc-kr_REFORMATTED-FRAGMENT.txt` | sensors -j values x 1000; .1 has no temp1_highest in the capture, so none here |
| sysfs layout, PCI roots, device ids (0x1017 for the ConnectX-5; none for the 200G card) | reconstructed | `temp1_reset_history` (0200, write-only) left out |
""")


KUBE01 = "ethtool/cx4lx-mcx4121a_enp1s0f0np0_ethtool-g-k-i-c-l_k6.8-pve_xtremeownage-2025_DEINDENTED.txt"


def kube01(name, tso_off=False, gro_off=False):
    """The real ConnectX-4 Lx port of kube01 (tests/captures/ethtool/, KUBE01): -g, -k, -i, -l."""
    r = Root(name)
    bdf = "0000:01:00.0"
    r.pci("00", bdf, "0x15b3", "0x1015", "mlx5_core")
    r.netdev("00", bdf, "enp1s0f0np0", mtu=1500, speed=25000, operstate="up")
    t = corpus(KUBE01)
    k = block(t, "Features for", "hsr-dup-offload")
    if tso_off:  # what `ethtool -K enp1s0f0np0 tso off` leaves (RECONSTRUCTED: see SOURCE.md)
        k = (k.replace("tcp-segmentation-offload: on", "tcp-segmentation-offload: off")
             .replace("tx-tcp-segmentation: on", "tx-tcp-segmentation: off")
             .replace("tx-tcp6-segmentation: on", "tx-tcp6-segmentation: off"))
    if gro_off:  # what `ethtool -K enp1s0f0np0 gro off` leaves (RECONSTRUCTED)
        k = k.replace("generic-receive-offload: on", "generic-receive-offload: off")
    r.ethtool("-k", "enp1s0f0np0", k)
    r.ethtool("-g", "enp1s0f0np0", block(t, "Ring parameters for", "TCP data split"))
    r.ethtool("-i", "enp1s0f0np0", block(t, "driver: mlx5_core", "supports-priv-flags"))
    r.ethtool("-l", "enp1s0f0np0", block(t, "Channel parameters for", "Combined:"))
    return r


KUBE01_SOURCE = """| piece | from | real or reconstructed |
|---|---|---|
| `hwcheck/commands/ethtool -k enp1s0f0np0/stdout` | `tests/captures/ethtool/cx4lx-mcx4121a_enp1s0f0np0_ethtool-g-k-i-c-l_k6.8-pve_xtremeownage-2025_DEINDENTED.txt` (see tests/captures/SOURCE.md: XtremeOwnage/Web `docs/blog/posts/Technology/2025/ConnectX-Helpers.md` @0e3a1c27, host kube01, ConnectX-4 Lx MCX4121A-ACA, Proxmox kernel 6.8.12-8-pve, firmware 14.32.1900) | real: the `Features for enp1s0f0np0:` block verbatim (the blog renders ethtool's leading tab of sub-features as 8 spaces) |
| `-g`, `-i`, `-l` of enp1s0f0np0 | the same capture | real, verbatim blocks |
| `sys/...`: BDF 0000:01:00.0, vendor 0x15b3, driver mlx5_core, speed 25000, operstate up | the same post (`lspci`: 01:00.0 MT27710 Family [ConnectX-4 Lx], `ethtool`: Speed 25000Mb/s, Link detected: yes; bus-info 0000:01:00.0) | device id 0x1015 (ConnectX-4 Lx, pci.ids) and the sysfs layout RECONSTRUCTED; MTU 1500 RECONSTRUCTED (the post does not print it) |
"""


def net_cx4lx_real_k():
    r = kube01("net-cx4lx-ethtool-k-real")
    r.source(f"""# net-cx4lx-ethtool-k-real

A real, complete mlx5 `ethtool -k` (a ConnectX-4 Lx 25GbE port, mlx5 defaults: TSO, GSO and GRO on,
LRO off, hardware GRO off [fixed]): the offload rules must stay quiet on it.

{KUBE01_SOURCE}""")


def net_cx4lx_tso_gro_off():
    r = kube01("net-cx4lx-tso-gro-off", tso_off=True, gro_off=True)
    r.source(f"""# net-cx4lx-tso-gro-off

The real port of net-cx4lx-ethtool-k-real after `ethtool -K enp1s0f0np0 tso off gro off`, as the
10 GbE tuning guides advise: NET_TSO_OFF and NET_GRO_OFF must fire on the real text.

{KUBE01_SOURCE}| `tcp-segmentation-offload`, `tx-tcp-segmentation`, `tx-tcp6-segmentation`, `generic-receive-offload` lines | the real block above | RECONSTRUCTED: `on` changed to `off` on these four lines (what `ethtool -K IF tso off gro off` leaves; no public capture of an mlx5 port with them off was found); every other line real |
""")


BOND = "ethtool/cx4lx-mt2420110034_roce-lag-bond0_ip-a-members-1518-1500_ethtool-i_notes-cn_FRAGMENT.txt"


def net_cx4lx_bond(name, eth01_mtu, doc, lag_down=False, roce=None):
    """The real RoCE LAG host of BOND: bond0 (MTU 1500) over the two ports eth01/eth02 of a
    ConnectX-4 Lx (PSID MT_2420110034), eth01 at MTU 1518 in the capture; its RDMA device
    mlx5_bond_0, whose port's netdev is bond0. lag_down: both members and so the bond without
    carrier, the LAG port DOWN (RECONSTRUCTED)."""
    r = Root(name)
    t = corpus(BOND)
    assert "eth01: <BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP> mtu 1518 qdisc mq master bond0" in t
    assert "eth02: <BROADCAST,MULTICAST,SLAVE,UP,LOWER_UP> mtu 1500 qdisc mq master bond0" in t
    assert "bond0: <BROADCAST,MULTICAST,MASTER,UP,LOWER_UP> mtu 1500" in t
    assert "mlx5_bond_0 port 1 ==> bond0 (Up)" in t
    carrier, oper = ("0", "down") if lag_down else ("1", "up")
    for bdf, ifname, mtu in (("0000:3b:00.0", "eth01", eth01_mtu), ("0000:3b:00.1", "eth02", 1500)):
        r.pci("3a", bdf, "0x15b3", "0x1015", "mlx5_core")
        r.netdev("3a", bdf, ifname, mtu=mtu, speed=25000, operstate=oper)
        r.write(f"sys/devices/pci0000:3a/{bdf}/net/{ifname}/flags", "0x1903\n")
        r.write(f"sys/devices/pci0000:3a/{bdf}/net/{ifname}/carrier", carrier + "\n")
    r.ethtool("-i", "eth01", block(t, "driver: mlx5_core", "supports-priv-flags"))
    r.bond("bond0", 1500, "802.3ad 4", ["eth01", "eth02"], bus="3a",
           bdfs=("0000:3b:00.0", "0000:3b:00.1"), flags="0x1403", carrier=carrier, operstate=oper)
    r.rdma("0000:3b:00.0", "mlx5_bond_0", "14.28.2006", "MT_2420110034", 1,
           "1: DOWN" if lag_down else "4: ACTIVE", "3: Disabled" if lag_down else "5: LinkUp",
           "Ethernet", "bond0")
    lag = ("| carrier 0 and operstate `down` of eth01, eth02 and bond0; `mlx5_bond_0` port 1 `1: DOWN`, "
           "`3: Disabled` | - | RECONSTRUCTED: the capture's LAG is up; both cables pulled (what mlx5 "
           "reports for a LAG port whose bond has no carrier) |\n") if lag_down else \
          "| `mlx5_bond_0` port 1 `4: ACTIVE`, `5: LinkUp` | the capture's `(Up)` | real state; the sysfs wording RECONSTRUCTED |\n"
    r.source(doc + f"""
| piece | from | real or reconstructed |
|---|---|---|
| bond0 over eth01 and eth02, bond0 MTU 1500, eth01 MTU 1518, eth02 MTU 1500 (`ip a`), `mlx5_bond_0 port 1 ==> bond0 (Up)` (RoCE LAG) | `tests/captures/{BOND}` (see tests/captures/SOURCE.md: Chinese RDMA notes, section "bond口"; the same host's ConnectX-4 Lx, PSID MT_2420110034) | real: membership, the three MTUs, flags UP+LOWER_UP (so `flags` 0x1903 = UP, BROADCAST, RUNNING, SLAVE, MULTICAST and carrier 1) |
| bond0's own `flags` 0x1403, `carrier` 1, `operstate` up | the capture's `bond0: <BROADCAST,MULTICAST,MASTER,UP,LOWER_UP> ... state UP` | real state (IFF_UP, BROADCAST, MASTER, MULTICAST; LOWER_UP = carrier) |
| `mlx5_bond_0` at 0000:3b:00.0, `gid_attrs/ndevs/0` bond0, link_layer Ethernet, fw_ver 14.28.2006, board_id MT_2420110034 | the capture's `ibdev2netdev` line and `ethtool -i eth01` | real names and firmware; the sysfs layout RECONSTRUCTED (mlx5 hangs the LAG device on the first PF) |
{lag}| `hwcheck/commands/ethtool -i eth01/stdout` | the same capture | real, verbatim (driver mlx5_core 24.07-0.6.1, firmware 14.28.2006 (MT_2420110034), bus-info 0000:3b:00.0) |
| eth02 at 0000:3b:00.1 | - | RECONSTRUCTED: the capture gives eth01's bus-info only; a RoCE LAG joins the two ports of one card |
| `bonding/mode` `802.3ad 4`, `bonding/active_slave` empty, `bonding_slave/state` active | - | RECONSTRUCTED: the capture does not print the mode; RoCE LAG needs active-backup or 802.3ad, 802.3ad chosen |
| `bonding/slaves` `eth01 eth02` | the capture's `master bond0` of both | derived |
| sysfs layout, device id 0x1015, speed 25000 | - | RECONSTRUCTED (a ConnectX-4 Lx; the capture prints no speed) |
""" + (roce(r) if roce else ""))


QOS = "ethtool/cx5_mlnx_qos_dcbx-firmware-controlled_pfc-prio3_and_show_gids_blog.txt"
LAG = "ethtool/cx4lx-mt2420110034_roce-lag_ethtool-S-rdma_rdma-statistic-mlx5_bond_0_readlink_notes-cn_FRAGMENT.txt"
HW = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "implied_nak_seq_err",
      "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored",
      "roce_adp_retrans")


def lag_roce(eth02_pfc=None):
    """The RoCE chain of the LAG host: mlnx_qos, ecn/ and ethtool -S of each member (where mlx5
    keeps them: the bond has none), the LAG port's GIDs, ToS and hw_counters. eth02_pfc: the
    `enabled` row of eth02's mlnx_qos when it is set apart from eth01's."""
    def add(r):
        qos = corpus(QOS).split("\n\n")[0] + "\n"
        assert "enabled     0   0   0   1   0   0   0   0" in qos
        t = corpus(LAG)
        stat = t.split("rdma statistic show\n")[1].split("\n")[0].split()
        hw = dict(zip(stat[2::2], stat[3::2]))
        rdma = block(t, "     rx_vport_rdma_unicast_packets", "     tx_vport_rdma_multicast_bytes")
        assert "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0" in t.split("mlx5_bond_0/device")[1]
        for bdf, ifn in (("0000:3b:00.0", "eth01"), ("0000:3b:00.1", "eth02")):
            text = qos
            if ifn == "eth02" and eth02_pfc:
                text = qos.replace("enabled     0   0   0   1   0   0   0   0", "enabled     " + eth02_pfc)
            r.write(f"hwcheck/commands/mlnx_qos -i {ifn}/stdout", text)
            d = f"sys/devices/pci0000:3a/{bdf}/net/{ifn}"
            for side in ("roce_np", "roce_rp"):
                for prio in range(8):
                    r.write(f"{d}/ecn/{side}/enable/{prio}", "1\n")
            r.write(f"{d}/ecn/roce_np/params/cnp_dscp", "48\n")
            r.write(f"{d}/ecn/roce_np/params/cnp_802p_prio", "6\n")
            kt = corpus(KUBE01)
            for opt, first, last in (("-g", "Ring parameters for", "TCP data split"),
                                     ("-k", "Features for", "hsr-dup-offload"),
                                     ("-l", "Channel parameters for", "Combined:")):
                r.ethtool(opt, ifn, block(kt, first, last).replace("enp1s0f0np0", ifn))
            r.ethtool("-S", ifn, "NIC statistics:\n" + (rdma if ifn == "eth01" else "") +
                      "     rx_prio3_pause: 142\n     tx_prio3_pause: 87\n"
                      "     rx_prio3_discards: 0\n     tx_pause_storm_warning_events: 0\n"
                      "     tx_pause_storm_error_events: 0\n")
        port = "sys/devices/pci0000:3a/0000:3b:00.0/infiniband/mlx5_bond_0/ports/1"
        for c in HW:
            r.write(f"{port}/hw_counters/{c}", hw[c] + "\n")
        gids = ["fe80:0000:0000:0000:0e42:a1ff:fee8:878c"] * 2 + ["0000:0000:0000:0000:0000:ffff:0a10:57e0"] * 2
        for k, (g, ty) in enumerate(zip(gids, ("IB/RoCE v1", "RoCE v2") * 2)):
            r.write(f"{port}/gids/{k}", g + "\n")
            r.write(f"{port}/gid_attrs/types/{k}", ty + "\n")
            r.write(f"{port}/gid_attrs/ndevs/{k}", "bond0\n")
        r.write("sys/kernel/config/rdma_cm/mlx5_bond_0/ports/1/default_roce_tos", "106\n")
        changed = (f"| eth02's `mlnx_qos` PFC row `enabled {eth02_pfc}` | - | RECONSTRUCTED: one member set "
                   "apart from the other (mlnx_qos run on eth01 alone), the case the LAG rules must see |\n"
                   if eth02_pfc else "")
        return f"""| `hwcheck/commands/mlnx_qos -i eth01` and `-i eth02` (stdout) | `tests/captures/{QOS}` | the mlnx_qos block verbatim (DCBX firmware, trust dscp, PFC on priority 3): a real ConnectX-5's answer, RECONSTRUCTED as the answer of this host's members (no capture prints a LAG member's mlnx_qos; lshca's roce view and the mlx5 LAG commit 7907f23adc18 say the QoS stays per PF netdev) |
{changed}| mlx5_bond_0 port 1 `hw_counters/*` | `tests/captures/{LAG}` (`rdma statistic show`: link mlx5_bond_0/1) | real values of this host's LAG port |
| the `rx_vport_rdma_*` lines of `ethtool -S eth01` | the same capture (`ethtool -S eth01 \\| grep -i rdma`) | real, verbatim |
| `ethtool -g`, `-k`, `-l` of eth01 and eth02 | the blocks of `tests/captures/ethtool/cx4lx-mcx4121a_enp1s0f0np0_ethtool-g-k-i-c-l_k6.8-pve_xtremeownage-2025_DEINDENTED.txt` (another host's ConnectX-4 Lx, firmware 14.32.1900) | real text, RECONSTRUCTED as these members' (interface name enp1s0f0np0 replaced) |
| the `rx_prio3_pause`, `tx_prio3_pause`, `rx_prio3_discards`, `tx_pause_storm_*` lines of both members' `ethtool -S` | - | RECONSTRUCTED (mlx5's counter names; values as in the roce-* fixtures) |
| `ecn/roce_np/enable/0..7` and `ecn/roce_rp/enable/0..7` 1 and `ecn/roce_np/params/cnp_dscp` 48, `cnp_802p_prio` 6 on eth01 and eth02 | - | RECONSTRUCTED (MLNX_OFED's defaults, as in the roce-* fixtures) |
| GIDs of mlx5_bond_0 port 1 (fe80::e42:a1ff:fee8:878c and 10.16.87.224, v1 and v2, ndev bond0) | the addresses of bond0 in `tests/captures/{BOND}` (`ip a`) | real addresses; the GID table layout RECONSTRUCTED (the kernel's v1+v2 pair per address) |
| `sys/kernel/config/rdma_cm/mlx5_bond_0/ports/1/default_roce_tos` 106 | - | RECONSTRUCTED (DSCP 26, the fabric profile's) |
| mlx5_bond_0 on the first PF 0000:3b:00.0 | the same capture's `readlink -f /sys/class/infiniband/mlx5_bond_0/device` | real (the root port 0000:3a:00.0 between is left out of this layout) |
"""
    return add


def net_roce_lag_lossless():
    net_cx4lx_bond("net-cx4lx-roce-lag-lossless", 1500, """# net-cx4lx-roce-lag-lossless

The RoCE LAG host of net-cx4lx-bond-mtu-agree (mlx5_bond_0 over bond0 = eth01 + eth02) with its
RoCE chain: both members trust DSCP with PFC on priority 3, ECN on, CNPs on DSCP 48 / priority 6.
The QoS, ECN and pause facts come from the members, not from bond0; under the fabric profile
(tests/roce/fabric-profile.json) no ROCE_* rule fires.
""", roce=lag_roce())


def net_roce_lag_member_pfc_off():
    net_cx4lx_bond("net-cx4lx-roce-lag-member-pfc-off", 1500, """# net-cx4lx-roce-lag-member-pfc-off

net-cx4lx-roce-lag-lossless with eth02 left without PFC: the LAG is lossless only if every member
is, so ROCE_PFC_OFF_LOSSLESS must name eth02 and its bond under the fabric profile, and
ROCE_PORTS_DIFFER (no profile) the member that differs.
""", roce=lag_roce("0   0   0   0   0   0   0   0"))


def net_bond_mtu_mismatch():
    net_cx4lx_bond("net-cx4lx-bond-mtu-mismatch", 1518, """# net-cx4lx-bond-mtu-mismatch

A real RoCE LAG host whose bond members disagree: bond0 runs 1500, its member eth01 1518, eth02
1500. NET_BOND_MTU_MISMATCH must name eth01 and its bond.
""")


def net_bond_mtu_agree():
    net_cx4lx_bond("net-cx4lx-bond-mtu-agree", 1500, """# net-cx4lx-bond-mtu-agree

The host of net-cx4lx-bond-mtu-mismatch with eth01 set back to its bond's 1500 (RECONSTRUCTED:
the capture has 1518): NET_BOND_MTU_MISMATCH must stay quiet.
""")


def net_roce_lag_down():
    net_cx4lx_bond("net-cx4lx-roce-lag-down", 1500, """# net-cx4lx-roce-lag-down

The RoCE LAG host of net-cx4lx-bond-mtu-agree with both members' links lost: the LAG port of
mlx5_bond_0 is DOWN, and its netdev is bond0, which is not a ConnectX netdev. NET_PORT_DOWN must
name bond0 with its state (no carrier) and its members, not call the netdev unknown.
""", lag_down=True)


if __name__ == "__main__":
    net_cx6dx_discards()
    net_full_stats()
    net_rss_ladder()
    thermal_bf2()
    thermal_cx5_v2()
    net_cx4lx_real_k()
    net_cx4lx_tso_gro_off()
    net_bond_mtu_mismatch()
    net_bond_mtu_agree()
    net_roce_lag_down()
    net_roce_lag_lossless()
    net_roce_lag_member_pfc_off()
    print("fixtures written under", os.path.normpath(FIXTURES))

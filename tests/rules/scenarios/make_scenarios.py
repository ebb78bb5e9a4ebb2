#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes the seed scenarios' facts files (<name>.facts.json), expectations (<name>.expect.json)
# and the manifest from the values below. Each value is taken from the corpus capture named in
# <name>.md, or marked there as reconstructed. Run it after editing; the committed JSON files
# are what the tests read (test_scenarios.py checks they are up to date).
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def host(vendor, model_name, family, model, sockets, cores, threads, nodes, x2apic_enabled=True,
         x2apic_source="dmesg", governor="performance", epp=None, driver="acpi-cpufreq",
         cstates=None, hostname="node", release="6.8.0-45-generic", iommu_pt=True):
    return {
        "hostname": hostname,
        "cpu": {"vendor": vendor, "family": family, "model": model, "model_name": model_name,
                "sockets": sockets, "cores": cores, "threads": threads, "smt": threads > cores,
                "flags_x2apic": True},
        "numa": {"nodes": [{"id": i, "cpulist": cl, "distances": d} for i, cl, d in nodes],
                 "nps": len(nodes) // sockets},
        "x2apic": {"supported": True, "enabled": x2apic_enabled, "interrupt_remapping": x2apic_enabled,
                   "source": x2apic_source},
        "iommu": {"present": True, "default_domain": "identity" if iommu_pt else "DMA",
                  "cmdline_options": ["iommu=pt"] if iommu_pt else [], "passthrough": iommu_pt},
        "power": {"cpufreq_driver": driver, "governor": governor, "energy_perf_preference": epp,
                  "boost": True, "cpuidle_driver": "acpi_idle",
                  "cstates": cstates if cstates is not None else [
                      {"name": "POLL", "latency_us": 0, "disabled": False},
                      {"name": "C1", "latency_us": 1, "disabled": False},
                      {"name": "C2", "latency_us": 18, "disabled": False}],
                  "aspm_policy": "default"},
        "dmi": {"sys_vendor": None, "product_name": None, "bios_vendor": None, "bios_version": None,
                "bios_date": None,
                "unavailable": {k: {"status": "not_collected", "detail": "not in the capture"}
                                for k in ("sys_vendor", "product_name", "bios_vendor", "bios_version", "bios_date")}},
        "kernel": {"release": release, "cmdline": "ro quiet iommu=pt" if iommu_pt else "ro quiet",
                   "lockdown": "none"},
    }


def link(speed, width, cap_speed, cap_width, aspm="disabled"):
    speeds = [s for s in (2.5, 5, 8, 16, 32) if s <= cap_speed]
    return {"speed_gts": speed, "width": width, "cap_speed_gts": cap_speed, "cap_width": cap_width,
            "supported_speeds_gts": speeds, "target_speed_gts": cap_speed, "aspm": aspm,
            "aspm_supported": "none", "dll_active": True}


def raw(s, w):
    # the kernel's PCIE_SPEED2MBS_ENC: integer Mb/s per lane, times the width
    enc = 0.8 if s <= 5 else 128 / 130
    return int(s * 1000 * enc) * w / 1000


def bottleneck(bdf, s, w, mps, cap_s, cap_w):
    # pci/'s path_bottleneck: raw = the kernel figure, gbps = raw x MPS/(MPS+24) (TLP payload)
    return {"bdf": bdf, "speed_gts": s, "width": w, "raw_gbps": raw(s, w),
            "gbps": round(raw(s, w) * mps / (mps + 24), 3), "mps_bytes": mps,
            "capable_raw_gbps": raw(cap_s, cap_w)}


def port(bdf, cap_speed, cap_width, speed, width, vendor, numa, slot_w=75, mps_sup=512):
    return {"bdf": bdf, "vendor_id": vendor, "class": "060400", "port_type": "root_port",
            "numa_node": numa, "is_vf": False, "link": link(speed, width, cap_speed, cap_width),
            "max_payload_bytes": 256, "max_payload_supported_bytes": mps_sup,
            "slot": {"power_limit_w": slot_w, "physical_slot": 1},
            "aer": {"correctable": 0, "nonfatal": 0, "fatal": 0}, "path": [bdf]}


def card(bdf, device_id, up, lk, numa, bottleneck, mps=256, mrrs=4096, ro=True, slot_w=75,
         aer=(0, 0, 0), config_bytes=4096, driver="mlx5_core", path_extra=()):
    return {"bdf": bdf, "vendor_id": "15b3", "device_id": device_id, "subsystem_vendor_id": "15b3",
            "subsystem_device_id": "0000", "class": "020000", "revision": 0, "driver": driver,
            "numa_node": numa, "iommu_group": 20, "port_type": "endpoint", "is_vf": False,
            "link": lk, "link_status": None, "max_payload_bytes": mps,
            "max_payload_supported_bytes": 512, "max_read_request_bytes": mrrs,
            "relaxed_ordering": ro, "no_snoop": True, "extended_tag": True,
            "slot_power_limit_w": slot_w,
            "aer": {"correctable": aer[0], "nonfatal": aer[1], "fatal": aer[2]},
            "upstream": up, "path": [bdf, *path_extra, up], "path_bottleneck": bottleneck,
            "config_bytes": config_bytes}


def status_of(c, p):
    ls, lw, cs, cw = c["link"]["speed_gts"], c["link"]["width"], c["link"]["cap_speed_gts"], c["link"]["cap_width"]
    ms, mw = min(cs, p["link"]["cap_speed_gts"]), min(cw, p["link"]["cap_width"])
    if ls < ms or lw < mw:
        return "downgraded"
    if ls < cs or lw < cw:
        return "slot_limited"
    return "ok"


def fwc(**kw):
    out = {}
    for k, v in kw.items():
        out[k] = {"default": v[0], "current": v[1], "next_boot": v[2], "pending": v[1] != v[2]}
    return out


def adapter(bdf, functions, device_id, product, generation, pcie_max, rate_max, fw, psid, netdevs,
            rdma, ports, fw_config, temp_mdegc, power_status="sufficient", pci_power_w=None,
            serial="MT0000X00000", events=()):
    return {"bdf": bdf, "functions": functions, "device_id": device_id, "product": product,
            "generation": generation, "kernel_driver": "mlx5_core",  # every scenario card is mlx5
            "flash_recovery": False,
            "pcie_max": pcie_max, "port_rate_max_gbps": rate_max,
            "fw_version": fw, "fw_version_stored": fw, "fw_pending_reset": False, "psid": psid,
            "serial_number": serial, "netdevs": netdevs, "rdma_devices": rdma, "ports": ports,
            "fw_config": fw_config, "kernel_events": list(events),
            "registers": {"temp_mdegc": temp_mdegc, "power_status": power_status,
                          "pci_power_w": pci_power_w}}


def kev(t, bdf, kind, message):
    # an mlx5 kernel log line as mlx/kernel_events.c reports it
    return {"time_s": t, "bdf": bdf, "kind": kind, "message": message}


def eth_port(rdma, netdev, rate, state="ACTIVE", phys="LinkUp", active_mtu=4096):
    # sysfs names as mlx/ reports them (ports/N/state, phys_state)
    up = state == "ACTIVE"
    un = {"active_speed": {"status": "unsupported", "detail": "Ethernet port"},
          "active_width": {"status": "unsupported", "detail": "Ethernet port"}}
    if not up:
        un["rate_gbps"] = {"status": "unsupported", "detail": "port down"}
    return {"port": 1, "rdma_device": rdma, "netdev": netdev, "state": state, "phys_state": phys,
            "link_layer": "Ethernet", "rate_gbps": rate if up else None,
            "active_speed": None, "active_width": None, "active_mtu": active_mtu, "max_mtu": 4096,
            "unavailable": un}


def netdev(name, bdf, speed_mbps, mtu=9000, rx=8192, rx_max=8192, comb=None, comb_max=63,
           discards=0, oob=0, node=0, cpulist="0-23", vectors=None, outside=0, lro=False,
           carrier=True):
    n_local = sum(int(b) - int(a) + 1 for a, b in (((p.split("-") + [p])[:2]) for p in cpulist.split(",")))
    comb = comb if comb is not None else min(n_local, comb_max)
    return {"name": name, "bdf": bdf, "driver": "mlx5_core", "mtu": mtu, "speed_mbps": speed_mbps,
            "operstate": "up" if carrier else "down", "admin_up": True, "carrier": carrier,
            "rings": {"rx": rx, "rx_max": rx_max, "tx": 1024, "tx_max": 8192},
            "channels": {"combined": comb, "combined_max": comb_max, "rx": 0, "rx_max": 0, "tx": 0, "tx_max": 0},
            "features": {"lro": lro, "gro": True, "gro_hw": False, "tso": True, "gso": True,
                         "rx_checksum": True, "tx_checksum": True},
            "pause": {"autoneg": False, "rx": True, "tx": True},
            "counters": {"rx_discards_phy": discards, "rx_out_of_buffer": oob,
                         "rx_buffer_passed_thres_phy": 0, "rx_pci_signal_integrity": 0,
                         "tx_pci_signal_integrity": 0, "outbound_pci_stalled_rd": 0,
                         "outbound_pci_stalled_wr": 0, "rx_symbol_err_phy": 0,
                         "rx_corrected_bits_phy": 0, "link_down_events_phy": 0},
            "irq_locality": {"numa_node": node, "local_cpulist": cpulist,
                             "vectors": vectors if vectors is not None else comb, "outside_local": outside},
            "link": {"fec": {"configured": "Auto RS", "active": "RS", "corrected_blocks": 0,
                             "uncorrectable_blocks": 0}},
            "bond": None,
            "unavailable": {"bond": {"status": "absent", "detail": f"sys/class/net/{name}/master: "
                                     "absent (not enslaved to a bond or bridge)"}}}


def sensor(chip, label, temp, crit=None, mx=None, bdf=None, source="hwmon", highest=None):
    s = {"chip": chip, "label": label, "temp_mdegc": temp, "crit_mdegc": crit, "max_mdegc": mx,
         "highest_mdegc": highest, "bdf": bdf, "source": source}
    un = {k: {"status": "absent", "detail": "the sensor has no such attribute"}
          for k in ("crit_mdegc", "max_mdegc", "highest_mdegc", "bdf") if s[k] is None}
    if un:
        s["unavailable"] = un
    return s


def document(h, devices, adapters, netdevs, sensors):
    for d in devices:
        if d.get("port_type") == "endpoint" and d.get("link_status") is None:
            up = next(x for x in devices if x["bdf"] == d["upstream"])
            d["link_status"] = status_of(d, up)
    devices.sort(key=lambda d: d["bdf"])
    return {"schema": "hwcheck.facts", "schema_version": 1,
            "tool": {"name": "hwcheck", "version": "0.1.0"},
            "run": {"note": "synthesized from corpus captures by tests/rules/scenarios/make_scenarios.py"},
            "facts": {"host": h, "pci": {"devices": devices},
                      "mlx": {"adapters": adapters, "tools": {"mstflint_version": "4.26.0", "status": "ok"}},
                      "netdevs": sorted(netdevs, key=lambda n: n["name"]),
                      "thermal": {"sensors": sensors},
                      "probe": {}},
            "errors": []}


GOOD_FW = dict(PCI_WR_ORDERING=("per_mkey", "force_relax", "force_relax"),
               ADVANCED_PCI_SETTINGS=("False", "False", "False"),
               DISABLE_SLOT_POWER_LIMITER=("False", "False", "False"),
               SRIOV_EN=("False", "False", "False"))

EPYC_NODES = [(0, "0-23", [10, 12]), (1, "24-47", [12, 10])]
INTEL_NODES = [(0, "0-11,24-35", [10, 21]), (1, "12-23,36-47", [21, 10])]


def intel_host(**kw):
    # two-socket Xeon host (Supermicro X10DRi class, see the .md files); healthy tuning
    return host("GenuineIntel", "Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz", 6, 63, 2, 24, 48,
                INTEL_NODES, driver="intel_pstate", governor="performance", epp="performance", **kw)


def epyc_host(**kw):
    # the single-socket EPYC host in NPS2 of topology/epyc-2numa_cx5-x710-bcm57416...
    return host("AuthenticAMD", "AMD EPYC 7402P 24-Core Processor", 23, 49, 1, 48, 48, EPYC_NODES,
                **kw)


def cx5_card(bdf, up_bdf, numa, lk, port_lk, bottleneck, rdma="mlx5_0", nd="enp129s0f0", **kw):
    p = port(up_bdf, *port_lk, numa=numa, vendor=kw.pop("port_vendor", "1022"))
    c = card(bdf, "1017", up_bdf, lk, numa, bottleneck, **kw)
    return p, c


scen = {}

# 1. 100 GbE ConnectX-5 on a Gen3 x8 path -----------------------------------------------------
p1 = port("0001:42:01.0", 8, 8, 8, 8, "19e5", 0)
c1 = card("0001:43:00.0", "1017", "0001:42:01.0", link(8, 8, 8, 16), 0,
          bottleneck("0001:42:01.0", 8, 8, 256, 8, 16), slot_w=27)
a1 = adapter("0001:43:00.0", ["0001:43:00.0"], "1017", "ConnectX-5", "ConnectX-5",
             {"speed_gts": 8, "width": 16}, 100, "16.35.4030", "HPE0000000009", ["ens1np0"], ["mlx5_0"],
             [eth_port("mlx5_0", "ens1np0", 100)], fwc(**GOOD_FW), 52000, pci_power_w=27)
scen["cx5-gen3x8-100g"] = (
    document(intel_host(), [p1, c1], [a1],
             [netdev("ens1np0", "0001:43:00.0", 100000, node=0, cpulist="0-11,24-35")],
             [sensor("mlx5", "asic", 52000, crit=105000, bdf="0001:43:00.0"),
              sensor("coretemp", "Package id 0", 41000, crit=100000)]),
    ["PCIE_LINK_SLOT_LIMITED", "PCIE_PATH_BOTTLENECK"])

# 2. ConnectX-6 Dx on AMD with PCI_WR_ORDERING per_mkey(0) --------------------------------------
fw2 = dict(GOOD_FW, PCI_WR_ORDERING=("per_mkey", "per_mkey", "per_mkey"))
p2 = port("0000:40:01.1", 16, 16, 16, 16, "1022", 0)
c2 = card("0000:41:00.0", "101d", "0000:40:01.1", link(16, 16, 16, 16), 0,
          bottleneck("0000:41:00.0", 16, 16, 256, 16, 16))
a2 = adapter("0000:41:00.0", ["0000:41:00.0", "0000:41:00.1"], "101d", "ConnectX-6 Dx", "ConnectX-6",
             {"speed_gts": 16, "width": 16}, 100, "22.27.1016", "MT_0000000359", ["ens1f0np0", "ens1f1np1"],
             ["mlx5_0", "mlx5_1"], [eth_port("mlx5_0", "ens1f0np0", 100), eth_port("mlx5_1", "ens1f1np1", 100)],
             fwc(**fw2), 58000, pci_power_w=75)
scen["cx6dx-amd-wr-ordering"] = (
    document(epyc_host(), [p2, c2], [a2],
             [netdev("ens1f0np0", "0000:41:00.0", 100000), netdev("ens1f1np1", "0000:41:00.1", 100000)],
             [sensor("mlx5", "asic", 58000, crit=105000, bdf="0000:41:00.0"),
              sensor("k10temp", "Tctl", 51000, source="hwmon")]),
    ["MLX_WR_ORDERING_PER_MKEY"])

# 3. ConnectX-6 whose slot advertises 25 W, limiter on ------------------------------------------
p3 = port("0000:00:1b.4", 16, 4, 2.5, 4, "8086", 0, slot_w=25)
c3 = card("0000:04:00.0", "101b", "0000:00:1b.4", link(2.5, 4, 16, 16), 0,
          bottleneck("0000:00:1b.4", 2.5, 4, 256, 16, 16), slot_w=25)
a3 = adapter("0000:04:00.0", ["0000:04:00.0"], "101b", "ConnectX-6", "ConnectX-6",
             {"speed_gts": 16, "width": 16}, 200, "20.27.446", "MT_0000000222", ["enp4s0np0"], ["mlx5_0"],
             [eth_port("mlx5_0", "enp4s0np0", None, state="DOWN", phys="Polling")],
             fwc(**GOOD_FW), 45000, power_status="insufficient", pci_power_w=25, events=[
                 # corpus dmesg/mlx5-cx6-ocp3_fw20.27.446_limited-by-2.5GT-x4_insufficient-power-25W_skyao.txt
                 kev(1.735122, "0000:04:00.0", "insufficient_power",
                     "mlx5_pcie_event:299:(pid 324): Detected insufficient power on the PCIe slot (25W).")])
# "enp4s0np0: Link down" in the capture: the interface is up, its port has no carrier
nd3 = netdev("enp4s0np0", "0000:04:00.0", None, node=0, cpulist="0-15", comb=16, comb_max=16,
             carrier=False)
nd3["unavailable"]["speed_mbps"] = {"status": "absent", "detail": "link down: ethtool reports Unknown!"}
h3 = host("GenuineIntel", "12th Gen Intel(R) Core(TM) i7-12700", 6, 151, 1, 12, 20, [(0, "0-19", [10])],
          driver="intel_pstate", governor="performance", epp="performance")
nd3["irq_locality"]["local_cpulist"] = "0-19"
scen["cx6-slot-25w-limiter"] = (
    document(h3, [p3, c3], [a3], [nd3],
             [sensor("mlx5", "asic", 45000, crit=105000, bdf="0000:04:00.0"),
              sensor("coretemp", "Package id 0", 41000, crit=100000, mx=80000)]),
    ["MLX_SLOT_POWER_LIMITER", "NET_PORT_DOWN", "PCIE_LINK_DOWNGRADED", "PCIE_PATH_BOTTLENECK",
     "MLX_KERNEL_EVENTS"])

# 4. a card at 88 degC --------------------------------------------------------------------------
p4 = port("0000:40:03.1", 16, 16, 16, 16, "8086", 0)
c4 = card("0000:41:00.0", "101d", "0000:40:03.1", link(16, 16, 16, 16), 0,
          bottleneck("0000:41:00.0", 16, 16, 256, 16, 16))
a4 = adapter("0000:41:00.0", ["0000:41:00.0", "0000:41:00.1"], "101d", "ConnectX-6 Dx", "ConnectX-6",
             {"speed_gts": 16, "width": 16}, 100, "22.36.1010", "MT_0000000359", ["ens1f0np0", "ens1f1np1"],
             ["mlx5_0", "mlx5_1"], [eth_port("mlx5_0", "ens1f0np0", 100), eth_port("mlx5_1", "ens1f1np1", 100)],
             fwc(**GOOD_FW), 88000, pci_power_w=75, events=[
                 # corpus dmesg/mlx5-cx6dx_fw22.99_temp_warn_health-synd-0x10-high-temp_..._notes-cn.txt
                 kev(51.227791, "0000:41:00.0", "high_temperature",
                     "temp_warn:170:(pid 0): High temperature on sensors with bit set 0 1"),
                 kev(131.207015, "0000:41:00.0", "health",
                     "poll_health:471:(pid 0): device's health compromised - reached miss count"),
                 kev(131.207065, "0000:41:00.0", "high_temperature",
                     "print_health_info:421:(pid 0): synd 0x10: High temperature")])
scen["cx6dx-card-88c"] = (
    document(intel_host(), [p4, c4], [a4],
             [netdev("ens1f0np0", "0000:41:00.0", 100000, cpulist="0-11,24-35"),
              netdev("ens1f1np1", "0000:41:00.1", 100000, cpulist="0-11,24-35")],
             [sensor("mlx5", "asic", 88000, bdf="0000:41:00.0", source="mstmget_temp"),
              sensor("coretemp", "Package id 0", 41000, crit=100000)]),
    ["THERMAL_CARD_OVER_LIMIT", "MLX_KERNEL_EVENTS"])

# 5. x2APIC off on an AMD host ------------------------------------------------------------------
p5 = port("0000:80:01.1", 16, 16, 8, 16, "1022", 0)
c5 = card("0000:81:00.0", "1017", "0000:80:01.1", link(8, 16, 8, 16), 0,
          bottleneck("0000:81:00.0", 8, 16, 256, 8, 16))
a5 = adapter("0000:81:00.0", ["0000:81:00.0", "0000:81:00.1"], "1017", "ConnectX-5", "ConnectX-5",
             {"speed_gts": 8, "width": 16}, 100, "16.35.2000", "MT_0000000008", ["enp129s0f0", "enp129s0f1"],
             ["mlx5_0", "mlx5_1"], [eth_port("mlx5_0", "enp129s0f0", 100), eth_port("mlx5_1", "enp129s0f1", 100)],
             fwc(**GOOD_FW), 55000, pci_power_w=27)
scen["amd-x2apic-off"] = (
    document(epyc_host(x2apic_enabled=False), [p5, c5], [a5],
             [netdev("enp129s0f0", "0000:81:00.0", 100000), netdev("enp129s0f1", "0000:81:00.1", 100000)],
             [sensor("mlx5", "asic", 55000, crit=105000, bdf="0000:81:00.0"),
              sensor("k10temp", "Tctl", 48000)]),
    ["HOST_X2APIC_OFF"])

# 6. rings 512 of 8192 with rx_discards_phy counting ---------------------------------------------
p6 = port("0000:80:01.1", 16, 16, 8, 16, "1022", 0)
c6 = json.loads(json.dumps(c5))
a6 = json.loads(json.dumps(a5))
scen["rings-512-discards"] = (
    document(epyc_host(), [p6, c6], [a6],
             [netdev("enp129s0f0", "0000:81:00.0", 100000, rx=512, discards=58591428329, oob=990473555),
              netdev("enp129s0f1", "0000:81:00.1", 100000)],
             [sensor("mlx5", "asic", 55000, crit=105000, bdf="0000:81:00.0"),
              sensor("k10temp", "Tctl", 48000)]),
    ["NET_RING_SMALL"])

# 7. IRQs on the far NUMA node ------------------------------------------------------------------
c7 = card("0000:81:00.0", "1017", "0000:80:01.1", link(8, 16, 8, 16), 0,
          bottleneck("0000:81:00.0", 8, 16, 256, 8, 16))
p7 = port("0000:80:01.1", 16, 16, 8, 16, "1022", 0)
scen["irq-far-numa"] = (
    document(epyc_host(), [p7, c7], [json.loads(json.dumps(a6))],
             [netdev("enp129s0f0", "0000:81:00.0", 100000, vectors=24, outside=24),
              netdev("enp129s0f1", "0000:81:00.1", 100000, vectors=24, outside=24)],
             [sensor("mlx5", "asic", 55000, crit=105000, bdf="0000:81:00.0"),
              sensor("k10temp", "Tctl", 48000)]),
    ["HOST_IRQ_FAR_NODE"])

# 8. healthy ConnectX-7 Gen5 x16 host (false-positive guard) ------------------------------------
GENOA_NODES = [(0, "0-31", [10, 32]), (1, "32-63", [32, 10])]
h8 = host("AuthenticAMD", "AMD EPYC 9334 32-Core Processor", 25, 17, 2, 64, 64, GENOA_NODES,
          hostname="coyote2", release="6.5.0-35-generic")
devs8, ads8, nds8, sens8 = [], [], [], []
for n, (bus, rp, node, cl) in enumerate([("21", "0000:20:03.1", 0, "0-31"), ("81", "0000:80:01.1", 1, "32-63")]):
    bdf0, bdf1 = f"0000:{bus}:00.0", f"0000:{bus}:00.1"
    devs8.append(port(rp, 32, 16, 32, 16, "1022", node))
    c = card(bdf0, "1021", rp, link(32, 16, 32, 16), node,
             bottleneck(bdf0, 32, 16, 512, 32, 16), mps=512, mrrs=512)
    devs8.append(c)
    r0, r1 = f"mlx5_{2 * n}", f"mlx5_{2 * n + 1}"
    nd0, nd1 = f"ens{n + 1}f0np0", f"ens{n + 1}f1np1"
    ads8.append(adapter(bdf0, [bdf0, bdf1], "1021", "ConnectX-7", "ConnectX-7", {"speed_gts": 32, "width": 16},
                        200, "28.39.1002", "MT_0000000838", [nd0, nd1], [r0, r1],
                        [eth_port(r0, nd0, 200), eth_port(r1, nd1, 200)], fwc(**GOOD_FW), 56000,
                        pci_power_w=75, serial=f"MT23{n}0X00000"))
    nds8 += [netdev(nd0, bdf0, 200000, node=node, cpulist=cl), netdev(nd1, bdf1, 200000, node=node, cpulist=cl)]
    sens8.append(sensor("mlx5", "asic", 56000, crit=105000, bdf=bdf0, highest=61000))
sens8.append(sensor("k10temp", "Tctl", 46000))
scen["healthy-cx7-gen5x16"] = (document(h8, devs8, ads8, nds8, sens8), [])


def dump(obj):
    return json.dumps(obj, indent=2) + "\n"


def main():
    check = "--check" in sys.argv
    stale = []
    manifest = {"scenarios": []}
    for name, (doc, ids) in scen.items():
        files = {f"{name}.facts.json": dump(doc),
                 f"{name}.expect.json": dump({"rule_ids": sorted(set(ids))})}
        manifest["scenarios"].append({"name": name, "facts": f"{name}.facts.json",
                                      "root": f"tests/fixtures/{name}/root",
                                      "expect": f"{name}.expect.json"})
        for fn, text in files.items():
            path = os.path.join(HERE, fn)
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(fn)
                if not check:
                    open(path, "w").write(text)
    path = os.path.join(HERE, "manifest.json")
    text = dump(manifest)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        stale.append("manifest.json")
        if not check:
            open(path, "w").write(text)
    if check and stale:
        print("out of date (run make_scenarios.py): " + ", ".join(stale))
        sys.exit(1)


if __name__ == "__main__":
    main()

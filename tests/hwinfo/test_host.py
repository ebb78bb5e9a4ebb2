# SPDX-License-Identifier: MIT
# facts.host on real captures: goldens per host-hw-* fixture, the key facts each one is about, the
# schema, the facts round trip, and the live run against /proc/cpuinfo, lscpu, sysfs and
# proc/sys/net (with HOST_TCP_BUFFERS_SMALL from a root to its finding).
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402
from hwctest import run_json  # noqa: E402


def host_facts(root=None):
    argv = (["--root", root] if root else []) + ["facts", "--json"]
    cp, j = run_json(*argv)
    if cp.returncode != 0:
        raise AssertionError(f"hwcheck {' '.join(argv)}: exit {cp.returncode}\n{cp.stderr}")
    return j, j["facts"]["host"]


def fixture_root(name):
    return hwctest.fixture(name, "root")


def unavailable(obj, key):
    return obj.get("unavailable", {}).get(key, {})


def edited_copy(d, fixture, path, edit):
    """A copy of a fixture's root under d with root/path rewritten by edit(text) (a real capture
    with one thing changed by the test)."""
    root = os.path.join(d, "root")
    shutil.copytree(fixture_root(fixture), root, symlinks=True)  # sysfs links loop
    p = os.path.join(root, path)
    text = open(p).read() if os.path.exists(p) else ""
    with open(p, "w") as f:
        f.write(edit(text))
    return root


class Goldens(unittest.TestCase):
    """facts.host of every host-hw-* fixture (only that section: others change on their own)."""

    def test_goldens(self):
        names = sorted(os.path.basename(os.path.dirname(p))
                       for p in glob.glob(hwctest.fixture("host-hw-*", "root")))
        self.assertGreaterEqual(len(names), 8, names)
        for name in names:
            with self.subTest(fixture=name):
                doc, host = host_facts(fixture_root(name))
                hwctest.validate(doc)
                hwctest.golden(hwctest.source("tests", "hwinfo", "golden", name + ".json"), host)


class LiveVm(unittest.TestCase):
    """host-hw-vm-q35-iommu-ir: tests/vm's q35 machine with an emulated IOMMU remapping
    interrupts, captured live; its capture/ holds the ground truth of the same boot."""

    def test_iommu_and_remapping_as_the_kernel_says(self):
        name = "host-hw-vm-q35-iommu-ir"
        doc, h = host_facts(fixture_root(name))
        truth = open(hwctest.fixture(name, "capture", "cmdline-flags-iommu-groups.txt")).read()
        groups = re.findall(r"^/sys/kernel/iommu_groups/(\d+) (\S+) (.*)$", truth, re.M)
        self.assertEqual(len(groups), 8)
        io = h["iommu"]
        self.assertEqual((io["present"], io["units"], io["cmdline_options"], io["passthrough"]),
                         (True, ["dmar0"], ["intel_iommu=on"], False))
        self.assertEqual(io["groups"], [{"id": int(g), "type": t} for g, t, _ in groups])
        self.assertEqual((io["default_domain"], io["default_domain_source"]), ("DMA-FQ", "dmesg"))
        devs = {d["bdf"]: d for d in doc["facts"]["pci"]["devices"]}
        for g, _, members in groups:
            for bdf in members.split():
                self.assertEqual(devs[bdf]["iommu_group"], int(g), bdf)
        x = h["x2apic"]
        self.assertEqual((x["interrupt_remapping"], x["interrupt_remapping_source"]), (True, "dmesg"))
        self.assertEqual((x["dmar_intr_remap"], x["dmar_x2apic_opt_out"]), (True, False))
        self.assertEqual((x["supported"], x["enabled"]), (False, False))  # no x2apic flag (TCG)
        # the verdicts: translated is what a passthrough profile flags and a translated one keeps
        with tempfile.TemporaryDirectory() as d:
            # no cpufreq and no CPU sensor in the VM: HOST_CPU_POWERSAVE and THERMAL_HOST_HOT unknown
            unk = ["HOST_CPU_POWERSAVE", "THERMAL_HOST_HOT"]
            for want, ids in (("passthrough", sorted(["HOST_IOMMU_TRANSLATED", "MLX_NO_ADAPTER"] + unk)),
                              ("translated", sorted(["MLX_NO_ADAPTER"] + unk))):
                prof = os.path.join(d, want + ".json")
                with open(prof, "w") as f:
                    json.dump({"schema": "hwcheck.profile", "schema_version": 1, "host": {"iommu": want}}, f)
                cp, rep = run_json("--root", fixture_root(name), "--profile", prof, "check", "--json")
                self.assertEqual(cp.returncode, 1, cp.stderr)
                self.assertEqual(sorted(f["rule_id"] for f in rep["findings"]), ids, want)
                self.assertEqual(sorted(u["rule"] for u in rep["summary"]["unknown"]), unk)
                # a --root is a capture, not the machine hwcheck runs on: the finding says so
                na = [f for f in rep["findings"] if f["rule_id"] == "MLX_NO_ADAPTER"]
                self.assertEqual([f["message"] for f in na],
                                 ["no ConnectX adapter was found in this capture (--root)"])


class Scenarios(unittest.TestCase):
    def test_x2apic_cluster_with_ir(self):
        _, h = host_facts(fixture_root("host-hw-x2apic-ir-cluster"))
        x = h["x2apic"]
        self.assertIs(x["enabled"], True)
        self.assertEqual(x["source"], "dmesg")
        self.assertEqual(x["routing"], "cluster x2apic")
        self.assertIs(x["interrupt_remapping"], True)
        self.assertEqual(x["interrupt_remapping_source"], "dmesg")
        self.assertEqual(h["iommu"]["default_domain"], "DMA-FQ")  # Translated + lazy
        self.assertEqual(h["iommu"]["default_domain_source"], "dmesg")
        # no cpuinfo was captured: the kernel log's "x2apic enabled" tells that the CPU can
        self.assertIs(x["supported"], True)
        self.assertEqual(x["supported_source"], "dmesg")

    def test_x2apic_enabled_by_bios_strict_iommu(self):
        _, h = host_facts(fixture_root("host-hw-x2apic-enabled-by-bios"))
        self.assertIs(h["x2apic"]["enabled"], True)
        self.assertEqual(h["x2apic"]["routing"], "cluster x2apic")
        self.assertIs(h["x2apic"]["interrupt_remapping"], True)
        self.assertEqual(h["iommu"]["default_domain"], "DMA")  # Translated + strict
        self.assertIs(h["iommu"]["passthrough"], False)

    def test_x2apic_old_wording(self):
        _, h = host_facts(fixture_root("host-hw-x2apic-old-format"))
        x = h["x2apic"]
        self.assertIs(x["enabled"], True)
        self.assertEqual(x["routing"], "physical x2apic")
        self.assertEqual(x["evidence"], "Switched APIC routing to physical x2apic.")
        # 3.10 prints no remapping line and no default-domain line: unknown, never false
        self.assertIsNone(x["interrupt_remapping"])
        self.assertIsNone(h["iommu"]["default_domain"])

    def test_x2apic_vm_without_ir_is_unknown_not_off(self):
        _, h = host_facts(fixture_root("host-hw-x2apic-physical-no-ir"))
        x = h["x2apic"]
        self.assertIs(x["enabled"], True)
        self.assertEqual(x["routing"], "physical x2apic")
        self.assertIsNone(x["interrupt_remapping"])
        self.assertEqual(unavailable(x, "interrupt_remapping")["status"], "absent")

    def test_x2apic_off_without_log_from_interrupts(self):
        _, h = host_facts(fixture_root("host-hw-2xe2690-x2apic-unknown"))
        x, c = h["x2apic"], h["cpu"]
        self.assertIs(x["supported"], True)
        # IO-APIC / PCI-MSI chips without IR-: remapping is off, from proc/interrupts (readable
        # without root), and bare metal runs x2APIC mode only with remapping: off, not unknown
        self.assertIs(x["interrupt_remapping"], False)
        self.assertEqual(x["interrupt_remapping_source"], "interrupts")
        self.assertIs(c["hypervisor"], False)
        self.assertEqual((x["enabled"], x["source"]), (False, "interrupts"))
        self.assertIn("no IR- interrupt chip", x["evidence"])
        self.assertEqual((c["vendor"], c["family"], c["model"]), ("GenuineIntel", 6, 45))
        self.assertEqual(c["model_name"], "Intel(R) Xeon(R) CPU E5-2690 0 @ 2.90GHz")
        self.assertEqual((c["sockets"], c["cores"], c["threads"], c["smt"]), (2, 16, 16, False))
        self.assertEqual(c["topology_source"], "cpuinfo")

    def test_x2apic_flag_and_remapping_leave_the_mode_unknown(self):
        # with remapping (IR- chips) the kernel may still run xAPIC mode (DMAR opt-out, no EIM),
        # and a guest may run x2APIC without remapping: nothing readable without root decides,
        # and the cpuinfo flag says only that the CPU supports the mode
        edits = {"remapping": ("proc/interrupts", lambda t: t.replace("PCI-MSI", "IR-PCI-MSI")),
                 "guest": ("proc/cpuinfo", lambda t: t.replace("flags\t\t: fpu", "flags\t\t: hypervisor fpu"))}
        for name, (path, edit) in edits.items():
            with self.subTest(name), tempfile.TemporaryDirectory() as d:
                _, h = host_facts(edited_copy(d, "host-hw-2xe2690-x2apic-unknown", path, edit))
                x = h["x2apic"]
                self.assertIsNone(x["enabled"])  # never "off" from silence
                self.assertIsNone(x["source"])
                why = unavailable(x, "enabled")
                self.assertEqual(why["status"], "absent")
                self.assertIn("APIC ids up to 46 fit xAPIC mode too", why["detail"])
                self.assertIn("the x2apic flag in proc/cpuinfo says the CPU supports the mode, not that "
                              "the kernel runs in it", why["detail"])
                cp, j = run_json("--root", os.path.join(d, "root"), "check", "--json")
                f = [f for f in j["findings"] if f["rule_id"] == "HOST_X2APIC_OFF"]
                self.assertEqual([x["severity"] for x in f], ["unknown"])

    def test_x2apic_routing_word_not_known_is_unknown_not_off(self):
        # amd-x2apic-off's kernel log ends the APIC story with "Switched APIC routing to: physical
        # flat" (xAPIC): off, and HOST_X2APIC_OFF warns. Only the kernel's own driver names decide
        # (hwinfo/x2apic.c routing_mode): a garbled word, or a driver whose mode hwcheck does not
        # map, leaves the mode unknown with the line quoted, never a confident "off" (or "on")
        path = "hwcheck/commands/dmesg/stdout"
        for word in ("physical flxt", "physical x2apicc", "UV large system", ""):
            with self.subTest(word), tempfile.TemporaryDirectory() as d:
                root = edited_copy(d, "amd-x2apic-off", path,
                                   lambda t: t.replace("routing to: physical flat", "routing to: " + word))
                _, h = host_facts(root)
                x = h["x2apic"]
                self.assertIsNone(x["enabled"])
                why = unavailable(x, "enabled")["detail"]
                if word:
                    self.assertEqual(x["routing"], word)
                    self.assertIn(f"the kernel log's APIC routing '{word}' is not a driver whose mode "
                                  "hwcheck knows", why)
                    self.assertIn(f"Switched APIC routing to: {word}", why)
                else:  # "routing to: " and nothing: no routing said at all
                    self.assertIn("the kernel log says nothing about x2APIC", why)
                _, j = run_json("--root", root, "check", "--json")
                f = [f for f in j["findings"] if f["rule_id"] == "HOST_X2APIC_OFF"]
                self.assertEqual([x["severity"] for x in f], ["unknown"])
        # the real word still decides
        _, j = run_json("--root", fixture_root("amd-x2apic-off"), "check", "--json")
        f = [f for f in j["findings"] if f["rule_id"] == "HOST_X2APIC_OFF"]
        self.assertEqual([x["severity"] for x in f], ["warn"])

    def test_genoa_x2apic_off_nps1(self):
        _, h = host_facts(fixture_root("host-hw-genoa-2socket-x2apic-off"))
        c, n, x = h["cpu"], h["numa"], h["x2apic"]
        self.assertEqual((c["vendor"], c["family"], c["model"]), ("AuthenticAMD", 25, 17))
        self.assertEqual((c["sockets"], c["cores"], c["threads"], c["smt"]), (2, 64, 64, False))
        self.assertEqual([(d["id"], d["cpulist"], d["cpus"], d["distances"]) for d in n["nodes"]],
                         [(0, "0-31", 32, [10, 32]), (1, "32-63", 32, [32, 10])])
        self.assertEqual((n["nodes_per_socket"], n["nps"]), (1, 1))
        # the flag is hidden (amd_iommu=off: no interrupt remapping, so no x2APIC mode), but
        # every EPYC supports x2APIC: supported from the CPU model, off from the missing flag
        self.assertIs(c["flags_x2apic"], False)
        self.assertIs(x["supported"], True)
        self.assertEqual(x["supported_source"], "cpu_model")
        self.assertIs(x["enabled"], False)
        self.assertEqual(x["source"], "cpuinfo")
        self.assertEqual(h["iommu"]["cmdline_options"], ["amd_iommu=off", "iommu=pt"])
        self.assertEqual((h["iommu"]["default_domain"], h["iommu"]["default_domain_source"]),
                         ("identity", "cmdline"))

    def test_genoa_x2apic_off_is_flagged_with_the_options_that_cause_it(self):
        cp, j = run_json("--root", fixture_root("host-hw-genoa-2socket-x2apic-off"), "check", "--json")
        f = [x for x in j["findings"] if x["rule_id"] == "HOST_X2APIC_OFF"]
        self.assertEqual([x["severity"] for x in f], ["warn"], f)
        self.assertIn("AMD EPYC 9374F", f[0]["message"])
        self.assertIn("remove `amd_iommu=off`", f[0]["fix"])
        self.assertNotIn("nox2apic", f[0]["fix"])  # not on this command line

    def test_nox2apic_on_the_command_line_decides_off(self):
        # the Genoa capture booted with nox2apic added: off from the command line, and the fix
        # names both options
        with tempfile.TemporaryDirectory() as d:
            root = edited_copy(d, "host-hw-genoa-2socket-x2apic-off", "proc/cmdline",
                               lambda t: t.rstrip("\n") + " nox2apic\n")
            _, h = host_facts(root)
            self.assertEqual((h["x2apic"]["enabled"], h["x2apic"]["source"]), (False, "cmdline"))
            self.assertEqual(h["x2apic"]["evidence"], "proc/cmdline: nox2apic")
            _, j = run_json("--root", root, "check", "--json")
            f = [x for x in j["findings"] if x["rule_id"] == "HOST_X2APIC_OFF"]
            self.assertEqual(len(f), 1)
            self.assertIn("`nox2apic` and `amd_iommu=off`", f[0]["fix"])

    def test_x2apic_supported_from_the_madt_and_unknown_when_the_flag_is_hidden(self):
        # the E5-2690 capture (flag shown) with the flag taken away and nox2apic added: an old
        # Xeon is not in the model list, so support is unknown, not "no"
        with tempfile.TemporaryDirectory() as d:
            root = edited_copy(d, "host-hw-2xe2690-x2apic-unknown", "proc/cpuinfo",
                               lambda t: t.replace(" x2apic", "") if " x2apic" in t else "flag missing")
            with open(os.path.join(root, "proc", "cmdline"), "w") as f:
                f.write("nox2apic\n")
            _, h = host_facts(root)
            self.assertIs(h["cpu"]["flags_x2apic"], False)
            self.assertIsNone(h["x2apic"]["supported"])
            self.assertIn("nox2apic", unavailable(h["x2apic"], "supported")["detail"])
            # a MADT with Local x2APIC entries (this VM's table, its type-0 entries turned into
            # type 9 by the test) says the platform describes x2APIC CPUs
            madt = bytearray(open(fixture_root("host-hw-this-vm") + "/sys/firmware/acpi/tables/APIC", "rb").read())
            out = madt[:44]
            off = 44
            while off < len(madt):
                t, ln = madt[off], madt[off + 1]
                if t == 0:
                    e = bytearray(16)
                    e[0], e[1] = 9, 16
                    e[4] = madt[off + 3]
                    e[8:12] = madt[off + 4:off + 8]
                    out += e
                else:
                    out += madt[off:off + ln]
                off += ln
            out[4:8] = len(out).to_bytes(4, "little")
            tdir = os.path.join(root, "sys", "firmware", "acpi", "tables")
            os.makedirs(tdir, exist_ok=True)
            with open(os.path.join(tdir, "APIC"), "wb") as f:
                f.write(out)
            _, h = host_facts(root)
            self.assertEqual((h["x2apic"]["supported"], h["x2apic"]["supported_source"]), (True, "madt"))
            self.assertEqual(h["x2apic"]["madt_local_x2apic"], 2)

    def test_a_virtual_cpu_is_judged_by_its_flags(self):
        # the Genoa capture as a guest (hypervisor flag): the model does not decide support
        with tempfile.TemporaryDirectory() as d:
            root = edited_copy(d, "host-hw-genoa-2socket-x2apic-off", "proc/cpuinfo",
                               lambda t: re.sub(r"^(flags\s*:.*)$", r"\1 hypervisor", t, flags=re.M))
            _, h = host_facts(root)
            self.assertIs(h["cpu"]["hypervisor"], True)
            self.assertEqual((h["x2apic"]["supported"], h["x2apic"]["supported_source"]), (False, "cpuinfo"))

    def test_epyc_one_socket_two_nodes_is_nps2(self):
        _, h = host_facts(fixture_root("host-hw-epyc-2numa"))
        n = h["numa"]
        self.assertEqual(h["cpu"]["sockets"], 1)
        self.assertEqual([(d["id"], d["cpulist"]) for d in n["nodes"]], [(0, "0-23"), (1, "24-47")])
        self.assertEqual((n["nodes_with_cpus"], n["nodes_per_socket"], n["nps"]), (2, 2, 2))
        self.assertIsNone(n["nodes"][0]["distances"])
        self.assertEqual(unavailable(n["nodes"][0], "distances")["status"], "absent")

    def test_intel_has_no_nps(self):
        _, h = host_facts(fixture_root("host-hw-this-vm"))
        if h["cpu"]["vendor"] == "GenuineIntel":
            self.assertIsNone(h["numa"]["nps"])
            self.assertEqual(unavailable(h["numa"], "nps")["status"], "unsupported")

    def test_dmesg_needs_root_falls_back(self):
        # the same VM capture with dmesg refused as Debian refuses it to a user
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(fixture_root("host-hw-this-vm"), root)
            rec = os.path.join(root, "hwcheck", "commands", "dmesg")
            open(os.path.join(rec, "stdout"), "w").close()
            with open(os.path.join(rec, "stderr"), "w") as f:
                f.write("dmesg: read kernel buffer failed: Operation not permitted\n")
            with open(os.path.join(rec, "result"), "w") as f:
                f.write("exit=1\n")
            _, h = host_facts(root)
            x = h["x2apic"]
            self.assertIsNone(x["enabled"])
            self.assertEqual(unavailable(x, "enabled")["status"], "needs_root")
            self.assertIn("dmesg_restrict", unavailable(x, "enabled")["detail"])
            self.assertEqual(unavailable(x, "routing")["status"], "needs_root")
            self.assertEqual(x["interrupt_remapping_source"], "interrupts")


def make_root(d, files):
    for path, text in files.items():
        p = os.path.join(d, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return d


class KernelAbiLayouts(unittest.TestCase):
    """The sysfs files no capture in the corpus has (cpufreq, cpuidle, IOMMU groups), laid out as
    the kernel ABI documents them (Documentation/ABI/testing/sysfs-devices-system-cpu,
    sysfs-kernel-iommu_groups): tests of the code paths, not claims about a machine."""

    def test_power(self):
        cpu = "sys/devices/system/cpu/"
        files = {
            cpu + "cpufreq/policy0/scaling_driver": "intel_pstate\n",
            cpu + "cpufreq/policy0/scaling_governor": "powersave\n",
            cpu + "cpufreq/policy0/energy_performance_preference": "balance_power\n",
            cpu + "cpufreq/policy10/scaling_driver": "other\n",
            cpu + "intel_pstate/status": "active\n",
            cpu + "intel_pstate/no_turbo": "1\n",
            cpu + "cpuidle/current_driver": "intel_idle\n",
            cpu + "cpuidle/current_governor_ro": "menu\n",
            "sys/module/pcie_aspm/parameters/policy": "default performance [powersave] powersupersave\n",
            "sys/kernel/security/lockdown": "none [integrity] confidentiality\n",
        }
        for i, (name, lat, dis) in enumerate([("POLL", 0, 0), ("C1", 2, 0), ("C1E", 10, 0)] +
                                             [(f"C{n}", 100 * n, 1) for n in range(2, 10)]):
            for k, v in (("name", name), ("latency", lat), ("disable", dis)):
                files[f"{cpu}cpu0/cpuidle/state{i}/{k}"] = f"{v}\n"
        with tempfile.TemporaryDirectory() as d:
            _, h = host_facts(make_root(d, files))
        p = h["power"]
        self.assertEqual((p["cpufreq_driver"], p["governor"], p["energy_perf_preference"]),
                         ("intel_pstate", "powersave", "balance_power"))  # policy0, not policy10
        self.assertEqual(p["pstate_status"], "active")
        self.assertIs(p["boost"], False)  # no_turbo=1
        self.assertEqual((p["cpuidle_driver"], p["cpuidle_governor"]), ("intel_idle", "menu"))
        self.assertEqual(p["aspm_policy"], "powersave")
        self.assertEqual(h["kernel"]["lockdown"], "integrity")
        self.assertEqual(len(p["cstates"]), 11)
        self.assertEqual([c["name"] for c in p["cstates"]][:4], ["POLL", "C1", "C1E", "C2"])
        self.assertEqual(p["cstates"][10], {"name": "C9", "latency_us": 900, "disabled": True})
        self.assertEqual(p["cstates"][1], {"name": "C1", "latency_us": 2, "disabled": False})

    def test_power_generic_boost_and_bad_policy_file(self):
        cpu = "sys/devices/system/cpu/"
        with tempfile.TemporaryDirectory() as d:
            _, h = host_facts(make_root(d, {
                cpu + "cpufreq/boost": "1\n",
                cpu + "cpufreq/policy0/scaling_driver": "acpi-cpufreq\n",
                "sys/module/pcie_aspm/parameters/policy": "default performance\n"}))
        p = h["power"]
        self.assertIs(p["boost"], True)
        self.assertIsNone(p["governor"])
        self.assertEqual(unavailable(p, "governor")["status"], "absent")
        self.assertIsNone(p["aspm_policy"])
        self.assertEqual(unavailable(p, "aspm_policy")["status"], "invalid")

    def test_iommu_groups_and_cmdline(self):
        files = {
            "sys/class/iommu/dmar0/.keep": "", "sys/class/iommu/dmar1/.keep": "",
            "proc/cmdline": "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt quiet -- iommu=nopt\n",
        }
        for g, t in ((0, "identity"), (2, "identity"), (10, "DMA"), (11, "unmanaged")):
            files[f"sys/kernel/iommu_groups/{g}/type"] = t + "\n"
        with tempfile.TemporaryDirectory() as d:
            _, h = host_facts(make_root(d, files))
        io = h["iommu"]
        self.assertIs(io["present"], True)
        self.assertEqual(io["units"], ["dmar0", "dmar1"])
        self.assertEqual(io["cmdline_options"], ["intel_iommu=on", "iommu=pt"])  # not init's
        self.assertEqual(io["groups"], [{"id": 0, "type": "identity"}, {"id": 2, "type": "identity"},
                                        {"id": 10, "type": "DMA"}, {"id": 11, "type": "unmanaged"}])
        self.assertEqual((io["default_domain"], io["default_domain_source"], io["passthrough"]),
                         ("identity", "groups", True))

    def test_numa_bad_cpulist_and_memory_only_node(self):
        node = "sys/devices/system/node/"
        with tempfile.TemporaryDirectory() as d:
            _, h = host_facts(make_root(d, {
                node + "node0/cpulist": "0-3\n", node + "node0/distance": "10 20 x\n",
                node + "node1/cpulist": "\n", node + "node1/distance": "20 10\n",
                node + "node2/cpulist": "4-2\n",
                "proc/cpuinfo": "processor : 0\nvendor_id : AuthenticAMD\nphysical id : 0\ncore id : 0\n"}))
        n = h["numa"]
        self.assertEqual([x["id"] for x in n["nodes"]], [0, 1, 2])
        self.assertIsNone(n["nodes"][0]["distances"])
        self.assertEqual(unavailable(n["nodes"][0], "distances")["status"], "invalid")
        self.assertEqual((n["nodes"][1]["cpus"], n["nodes"][1]["distances"]), (0, [20, 10]))
        self.assertEqual(unavailable(n["nodes"][2], "cpus")["status"], "invalid")
        self.assertIsNone(n["nodes_with_cpus"])
        self.assertIsNone(n["nps"])  # never guessed from a partial count


class Net(unittest.TestCase):
    """facts.host.net (hwinfo/host_net.c) on the real capture host-hw-net-this-vm, broken copies of
    its proc/sys/net files, and HOST_TCP_BUFFERS_SMALL from a root to its finding."""
    NET = "proc/sys/net/"

    def net_of(self, root):
        return host_facts(root)[1]["net"]

    def test_real_capture(self):
        n = self.net_of(fixture_root("host-hw-net-this-vm"))
        self.assertEqual(n, {"rmem_max_bytes": 4194304, "wmem_max_bytes": 4194304,
                             "tcp_rmem_min_bytes": 4096, "tcp_rmem_default_bytes": 131072,
                             "tcp_rmem_max_bytes": 33554432, "tcp_wmem_min_bytes": 4096,
                             "tcp_wmem_default_bytes": 16384, "tcp_wmem_max_bytes": 4194304})

    def test_broken_inputs(self):
        for text, why in (("4096 131072\n", "two values"), ("4096 131072 6291456 1\n", "four"),
                          ("4096 x 6291456\n", "not a number"), ("-1 0 1\n", "negative"),
                          ("\n", "empty"), ("99999999999999999999 1 1\n", "out of range")):
            with self.subTest(why), tempfile.TemporaryDirectory() as d:
                root = edited_copy(d, "host-hw-net-this-vm", self.NET + "ipv4/tcp_rmem",
                                   lambda _, t=text: t)
                n = self.net_of(root)
                for k in ("tcp_rmem_min_bytes", "tcp_rmem_default_bytes", "tcp_rmem_max_bytes"):
                    self.assertIsNone(n[k])
                    self.assertEqual(unavailable(n, k)["status"], "invalid")
                    self.assertIn("proc/sys/net/ipv4/tcp_rmem", unavailable(n, k)["detail"])
                self.assertEqual(n["tcp_wmem_max_bytes"], 4194304)  # the rest is read

    def test_absent(self):
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(fixture_root("host-hw-net-this-vm"), root, symlinks=True)
            os.unlink(os.path.join(root, self.NET + "ipv4/tcp_wmem"))
            n = self.net_of(root)
        self.assertIsNone(n["tcp_wmem_max_bytes"])
        self.assertEqual(unavailable(n, "tcp_wmem_max_bytes")["status"], "absent")
        self.assertEqual(n["tcp_rmem_max_bytes"], 33554432)

    def test_rule_end_to_end(self):
        # the capture's four files in a copy of the 200 Gb/s ConnectX-7 scenario root
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "root")
            shutil.copytree(fixture_root("healthy-cx7-gen5x16"), root, symlinks=True)
            shutil.copytree(os.path.join(fixture_root("host-hw-net-this-vm"), self.NET),
                            os.path.join(root, self.NET))
            found = {}
            for role in ("storage_client", "gpu_compute", None):
                prof = os.path.join(d, f"{role}.json")
                with open(prof, "w") as f:
                    json.dump({"schema": "hwcheck.profile", "schema_version": 1,
                               "host": {"role": role} if role else {}}, f)
                _, j = run_json("--root", root, "--profile", prof, "--json")
                found[role] = [x for x in j["findings"] if x["rule_id"] == "HOST_TCP_BUFFERS_SMALL"]
        self.assertEqual(found["gpu_compute"], [])
        self.assertEqual(found[None], [])
        [f] = found["storage_client"]
        self.assertEqual((f["severity"], f["subject"]), ("warn", "host"))
        self.assertIn("at most 16.777 Gb/s", f["message"])
        self.assertEqual([e["fact"] for e in f["evidence"]][:2],
                         ["host.net.tcp_rmem_max_bytes", "host.net.tcp_wmem_max_bytes"])
        self.assertIn("net.ipv4.tcp_rmem='4096 131072 67108864'", f["fix"])


class RoundTrip(unittest.TestCase):
    def test_facts_file_round_trip_is_exact(self):
        names = sorted(os.path.basename(os.path.dirname(p))
                       for p in glob.glob(hwctest.fixture("host-hw-*", "root")))
        for name in names:
            with self.subTest(fixture=name), tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, "facts.json")
                doc, _ = host_facts(fixture_root(name))
                with open(f, "w") as o:
                    json.dump(doc, o)
                cp, j = run_json("facts", "--json", "--facts", f)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                self.assertEqual(doc["facts"]["host"], j["facts"]["host"])


def cpus(cpulist):
    """'0-2,5' -> {0, 1, 2, 5}: lscpu and sysfs write the same set differently ('0,1' / '0-1')."""
    out = set()
    for part in filter(None, cpulist.strip().split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def read(path):
    with open(path) as f:
        return f.read()


def lscpu():
    exe = shutil.which("lscpu")
    if not exe:
        return None
    cp = subprocess.run([exe], capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    if cp.returncode != 0:
        return None
    return {m.group(1).strip(): m.group(2).strip()
            for m in re.finditer(r"^\s*([^:\n]+):\s+(.*)$", cp.stdout, re.M)}


class Live(unittest.TestCase):
    """The live run is real data: it must say what /proc/cpuinfo, lscpu and sysfs say."""

    @classmethod
    def setUpClass(cls):
        cls.doc, cls.h = host_facts()

    def test_schema(self):
        hwctest.validate(self.doc)

    def test_cpuinfo(self):
        text = read("/proc/cpuinfo")
        first = dict((k.strip(), v.strip()) for k, _, v in
                     (l.partition(":") for l in text.split("\n\n")[0].splitlines()))
        c = self.h["cpu"]
        if "vendor_id" not in first:
            self.skipTest("not an x86 /proc/cpuinfo")
        self.assertEqual(c["vendor"], first["vendor_id"])
        self.assertEqual(c["family"], int(first["cpu family"]))
        self.assertEqual(c["model"], int(first["model"]))
        self.assertEqual(c["model_name"], first["model name"])
        self.assertEqual(c["threads"], len(re.findall(r"^processor\s*:", text, re.M)))
        self.assertEqual(c["flags_x2apic"], "x2apic" in first["flags"].split())
        self.assertEqual(c["hypervisor"], "hypervisor" in first["flags"].split())
        self.assertEqual(self.h["x2apic"]["supported"], c["flags_x2apic"])
        apic = [int(v) for v in re.findall(r"^(?:initial )?apicid\s*:\s*(\d+)", text, re.M)]
        if apic:
            self.assertEqual(c["max_apicid"], max(apic))

    def test_net(self):
        n = self.h["net"]
        for key, path, i in (("rmem_max_bytes", "core/rmem_max", 0),
                             ("tcp_rmem_max_bytes", "ipv4/tcp_rmem", 2),
                             ("tcp_wmem_default_bytes", "ipv4/tcp_wmem", 1)):
            p = "/proc/sys/net/" + path
            if not os.path.exists(p):
                self.assertEqual(unavailable(n, key)["status"], "absent")
                continue
            self.assertEqual(n[key], int(read(p).split()[i]), key)

    def test_lscpu(self):
        ls = lscpu()
        if not ls:
            self.skipTest("lscpu is not installed")
        c = self.h["cpu"]
        self.assertEqual(c["sockets"], int(ls["Socket(s)"]))
        self.assertEqual(c["cores"], int(ls["Socket(s)"]) * int(ls["Core(s) per socket"]))
        self.assertEqual(c["threads"], c["cores"] * int(ls["Thread(s) per core"]))
        self.assertEqual(c["smt"], int(ls["Thread(s) per core"]) > 1)
        self.assertEqual(c["vendor"], ls["Vendor ID"])
        self.assertEqual(c["model_name"], ls["Model name"])
        nodes = self.h["numa"]["nodes"]
        if nodes is None:  # a container without sys/devices/system/node
            self.assertFalse(os.path.isdir("/sys/devices/system/node"))
        elif "NUMA node(s)" in ls:
            self.assertEqual(len(nodes), int(ls["NUMA node(s)"]))
            for n in nodes:
                self.assertEqual(cpus(n["cpulist"]), cpus(ls[f"NUMA node{n['id']} CPU(s)"]))

    def test_sysfs(self):
        h = self.h
        for n in h["numa"]["nodes"] or []:
            base = f"/sys/devices/system/node/node{n['id']}"
            self.assertEqual(n["cpulist"], read(base + "/cpulist").strip())
            self.assertEqual(n["distances"], [int(v) for v in read(base + "/distance").split()])
        self.assertEqual(h["kernel"]["cmdline"], read("/proc/cmdline").strip())
        self.assertEqual(h["hostname"], read("/proc/sys/kernel/hostname").strip())
        units = sorted(os.listdir("/sys/class/iommu")) if os.path.isdir("/sys/class/iommu") else None
        if units is not None:
            self.assertEqual(h["iommu"]["units"], units)
            self.assertEqual(h["iommu"]["present"], bool(units))
        p = "/sys/module/pcie_aspm/parameters/policy"
        if os.path.exists(p):
            self.assertEqual(h["power"]["aspm_policy"], re.search(r"\[(\w+)\]", read(p)).group(1))
        else:
            self.assertIsNone(h["power"]["aspm_policy"])
        p = "/sys/devices/system/cpu/cpuidle/current_driver"
        if os.path.exists(p):
            self.assertEqual(h["power"]["cpuidle_driver"], read(p).strip())
        if not glob.glob("/sys/devices/system/cpu/cpufreq/policy*"):
            self.assertIsNone(h["power"]["cpufreq_driver"])
            self.assertEqual(unavailable(h["power"], "cpufreq_driver")["status"], "absent")
        else:
            self.assertEqual(h["power"]["cpufreq_driver"],
                             read("/sys/devices/system/cpu/cpufreq/policy0/scaling_driver").strip())

    def test_x2apic_matches_the_kernel_log(self):
        cp = subprocess.run(["dmesg"], capture_output=True, text=True)
        x = self.h["x2apic"]
        if cp.returncode != 0:
            self.assertNotEqual(x.get("source"), "dmesg")
            self.skipTest("dmesg is not readable here: " + cp.stderr.strip())
        routing = re.findall(r"Switched APIC routing to:? (.*?)\.?$", cp.stdout, re.M)
        if not routing:
            self.skipTest("the kernel log has no APIC routing line (wrapped?)")
        self.assertEqual(x["routing"], routing[-1])
        self.assertEqual(x["enabled"], "x2apic" in routing[-1])
        self.assertEqual(x["source"], "dmesg")

    def test_unprivileged_run_says_needs_root_not_off(self):
        setpriv = shutil.which("setpriv")
        if os.geteuid() != 0 or not setpriv:
            self.skipTest("needs root and setpriv to run as nobody")
        cp = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                             hwctest.hwcheck_path(), "facts", "--json"],
                            capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
        if cp.returncode == 126 or "Permission denied" in cp.stderr:
            self.skipTest("the binary is not reachable by nobody: " + cp.stderr.strip())
        self.assertEqual(cp.returncode, 0, cp.stderr)
        doc = json.loads(cp.stdout)
        hwctest.validate(doc)
        x, c = doc["facts"]["host"]["x2apic"], doc["facts"]["host"]["cpu"]
        self.assertEqual(c, self.h["cpu"])  # nothing of the CPU needs root
        self.assertEqual(unavailable(x, "madt_local_apic").get("status", "ok"),
                         "needs_root" if os.path.exists("/sys/firmware/acpi/tables/APIC") else "absent")
        if x["enabled"] is None:
            self.assertIn(unavailable(x, "enabled")["status"], ("needs_root", "absent"))
        elif x["enabled"] is False:
            self.assertEqual(x["source"], "cpuinfo")  # the only unprivileged "off"
        else:
            self.assertIn(x["source"], ("dmesg", "apicid"))

    def test_madt_when_root(self):
        p = "/sys/firmware/acpi/tables/APIC"
        x = self.h["x2apic"]
        if not os.access(p, os.R_OK):
            self.skipTest("the MADT needs root")
        with open(p, "rb") as f:
            data = f.read()
        lapic = x2 = 0
        off = 44
        while off + 2 <= len(data) and data[off + 1] >= 2:
            lapic += data[off] == 0
            x2 += data[off] == 9
            off += data[off + 1]
        self.assertEqual((x["madt_local_apic"], x["madt_local_x2apic"]), (lapic, x2))


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# GPUDirect view (facts.pci.gpudirect): the pairing computed from a real host's PCI tree equals its
# `nvidia-smi topo -m`, cell for cell; lspci decodes the rebuilt GPU/NIC registers (ACS, AtomicOps,
# 10-bit tags) to the captured lines; the HGX-class scenarios pair as designed.
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hwctest  # noqa: E402
import lspci_oracle as oracle  # noqa: E402
from hwctest import run_json  # noqa: E402

ASUS = "gpu-asus-esc8000a-4gpu-2cx7"
# NIC legend of the capture (mlx5_N) -> PCI function: mlx5_core names the RDMA devices in probe
# (BDF) order; NIC0/NIC1 PIX to each other = the two ports of one card (SOURCE.md)
ASUS_NICS = {"mlx5_0": "0000:21:00.0", "mlx5_1": "0000:21:00.1", "mlx5_2": "0000:81:00.0",
             "mlx5_3": "0000:81:00.1"}


def gpudirect(*argv):
    cp, j = run_json(*argv, "facts", "--json")
    if cp.returncode not in (0, 1):
        raise AssertionError(f"exit {cp.returncode}: {cp.stderr}")
    return j["facts"]["pci"]["gpudirect"]


def parse_topo(text):
    """(columns, {row: [cells]}, {NICn: name}) of an nvidia-smi topo -m table."""
    lines = [x for x in text.splitlines() if x.strip() and not x.startswith("$")]
    cols = lines[0].split()
    rows, legend = {}, {}
    for x in lines[1:]:
        f = x.split()
        if re.match(r"^(GPU|NIC)\d+$", f[0]):
            rows[f[0]] = f[1:1 + len([c for c in cols if re.match(r"^(GPU|NIC)\d+$", c)])]
        m = re.match(r"^\s*(NIC\d+): (\S+)$", x)
        if m:
            legend[m.group(1)] = m.group(2)
    return [c for c in cols if re.match(r"^(GPU|NIC)\d+$", c)], rows, legend, lines


class TopoM(unittest.TestCase):
    def test_pairing_equals_nvidia_smi_topo_cell_for_cell(self):
        g = gpudirect("--root", hwctest.fixture(ASUS, "root"))
        with open(hwctest.fixture(ASUS, "capture", "nvidia-smi-topo-m.txt")) as f:
            cols, rows, legend, lines = parse_topo(f.read())
        gpus = sorted(p["bdf"] for p in g["peers"] if p["kind"] == "gpu")  # nvidia-smi: PCI bus order
        self.assertEqual(len(gpus), sum(1 for c in cols if c.startswith("GPU")))
        name = {f"GPU{i}": b for i, b in enumerate(gpus)}
        name.update({n: ASUS_NICS[legend[n]] for n in cols if n.startswith("NIC")})
        cells = 0
        for r in (c for c in cols if c.startswith("GPU")):
            for c, want in zip(cols, rows[r]):
                self.assertEqual(g["matrix"][name[r]][name[c]], want, f"{r} x {c}")
                cells += 1
        self.assertEqual(cells, 32)
        # the NUMA Affinity column is the GPU's numa_node
        numa = {p["bdf"]: p["numa_node"] for p in g["peers"]}
        for x in lines[1:5]:
            f = x.split()
            self.assertEqual(numa[name[f[0]]], int(f[-2]), f[0])

    def test_pairs_on_the_real_host(self):
        g = gpudirect("--root", hwctest.fixture(ASUS, "root"))
        pairs = {(p["gpu"], p["nic"]): p for p in g["pairs"]}
        self.assertEqual(len(pairs), 8)  # each GPU: both ports of the card on its socket, NODE
        p = pairs[("0000:01:00.0", "0000:21:00.0")]
        self.assertEqual((p["relation"], p["common"]), ("NODE", None))
        self.assertEqual(p["route"], ["0000:01:00.0", "0000:00:01.1", "0000:20:03.1", "0000:21:00.0"])

    def test_lspci_decodes_the_rebuilt_registers_to_the_capture(self):
        if not os.access(oracle.LSPCI, os.X_OK):
            raise unittest.SkipTest("lspci not installed")
        keys = re.compile(r"^(ACSCap|ACSCtl|AtomicOpsCap|AtomicOpsCtl|LnkCap|LnkSta|DevCap):")
        flags = re.compile(r"(?<![\w-])(10BitTagComp|10BitTagReq)[+-]")
        sysfs = os.path.join(hwctest.fixture(ASUS, "root"), "sys", "bus", "pci")
        checked = 0
        for b in ("01", "41", "c1", "e1", "21", "81"):
            out = oracle.lspci("-A", "linux-sysfs", "-O", "sysfs.path=" + sysfs, "-vvv", "-s", f"{b}:00.0")
            have = {" ".join(x.split()) for x in out.splitlines()}
            toks = set(flags.findall(out)) and {m.group(0) for m in flags.finditer(out)}
            with open(hwctest.fixture(ASUS, "capture", f"lspci-vvv-{b}-00.0.txt")) as f:
                for line in f:
                    t = " ".join(line.split())
                    for m in flags.finditer(t):  # DevCap2/DevCtl2 10-bit tag flags, not whole lines
                        self.assertIn(m.group(0), toks, f"{b}:00.0")
                        checked += 1
                    if keys.search(t) and "Exit Latency" not in t and "Port #" not in t:
                        self.assertIn(t, have, f"{b}:00.0")
                        checked += 1
        self.assertGreater(checked, 30)

    def test_dump_gives_the_switch_relations_and_says_unknown_without_numa(self):
        dump = gpudirect("--pci-dump", hwctest.fixture("gpu-hgx-8gpu-nic-wrong-socket", "pci-dump.txt"))
        sysfs = gpudirect("--root", hwctest.fixture("gpu-hgx-8gpu-nic-wrong-socket", "root"))
        for gpu, row in sysfs["matrix"].items():
            for peer, rel in row.items():
                want = rel if rel in ("X", "PIX", "PXB", "PHB") else "unknown"
                self.assertEqual(dump["matrix"][gpu][peer], want, f"{gpu} x {peer}")


class Hgx(unittest.TestCase):
    def test_healthy_one_nic_per_gpu_on_its_switch(self):
        g = gpudirect("--root", hwctest.fixture("gpu-hgx-8gpu-healthy", "root"))
        self.assertEqual(sum(p["kind"] == "gpu" for p in g["peers"]), 8)
        self.assertEqual(sum(p["kind"] == "nic" for p in g["peers"]), 8)
        self.assertEqual(len(g["pairs"]), 8)
        self.assertEqual({p["relation"] for p in g["pairs"]}, {"PIX"})
        self.assertEqual(len({p["gpu"] for p in g["pairs"]}), 8)
        p = g["pairs"][0]
        self.assertEqual(p["route"], ["0000:18:00.0", "0000:17:00.0", "0000:16:00.0", "0000:17:01.0",
                                      "0000:19:00.0"])
        self.assertEqual(g["matrix"]["0000:18:00.0"]["0000:3b:00.0"], "NODE")
        self.assertEqual(g["matrix"]["0000:18:00.0"]["0000:9b:00.0"], "SYS")
        self.assertEqual(g["peer_memory"]["nvidia_peermem"], True)

    def test_wrong_socket(self):
        g = gpudirect("--root", hwctest.fixture("gpu-hgx-8gpu-nic-wrong-socket", "root"))
        by = {}
        for p in g["pairs"]:
            by.setdefault(p["gpu"], set()).add((p["nic"], p["relation"]))
        self.assertEqual({r for _, r in by["0000:5c:00.0"]}, {"NODE"})
        self.assertEqual(by["0000:ab:00.0"], {("0000:ac:00.0", "PIX"), ("0000:ad:00.0", "PIX")})


class RulesAndList(unittest.TestCase):
    BM = '{"schema": "hwcheck.profile", "schema_version": 1, "host": {"platform": "bare_metal"}}'

    def gpudirect_findings(self, host):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".json") as pf:
            pf.write(self.BM)
            pf.flush()
            cp, j = run_json("--profile", pf.name, "--root", hwctest.fixture(host, "root"), "check", "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        hwctest.validate(j)
        return sorted((f["rule_id"], f["severity"], f["subject"]) for f in j["findings"]
                      if f["rule_id"].startswith("GPUDIRECT_"))

    def test_healthy_hosts_have_no_gpudirect_finding(self):
        # checked and fine: no warning and nothing left unknown by these rules
        for host in ("gpu-hgx-8gpu-healthy", ASUS):
            with self.subTest(host=host):
                self.assertEqual(self.gpudirect_findings(host), [])

    def test_acs_redirect_host(self):
        got = self.gpudirect_findings("gpu-hgx-8gpu-acs-redirect")
        acs = [s for r, sev, s in got if r == "GPUDIRECT_ACS_REDIRECT" and sev == "warn"]
        self.assertEqual(len(acs), 8)
        self.assertIn(("GPUDIRECT_PEERMEM_MISSING", "warn", "host"), got)
        self.assertIn(("GPUDIRECT_PLATFORM_SETTINGS", "warn", "host"), got)

    def test_wrong_socket_host(self):
        got = self.gpudirect_findings("gpu-hgx-8gpu-nic-wrong-socket")
        self.assertEqual(got, [("GPUDIRECT_PAIR_FAR", "warn", "0000:5c:00.0"),
                               ("GPUDIRECT_RAILS_UNBALANCED", "warn", "0000:5c:00.0")])

    def test_list_shows_the_pairs(self):
        cp, j = run_json("--root", hwctest.fixture("gpu-hgx-8gpu-nic-wrong-socket", "root"), "list", "--json")
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        hwctest.validate(j)
        pairs = {(p["gpu"], p["nic"]): p["relation"] for p in j["gpudirect_pairs"]}
        self.assertEqual(pairs[("0000:5c:00.0", "0000:19:00.0")], "NODE")
        self.assertEqual(pairs[("0000:18:00.0", "0000:19:00.0")], "PIX")
        text = hwctest.run("--root", hwctest.fixture("gpu-hgx-8gpu-healthy", "root"), "list").stdout
        self.assertRegex(text, r"(?m)^0000:18:00\.0\s+0000:19:00\.0\s+PIX\s+0000:18:00\.0 > 0000:17:00\.0 > "
                               r"0000:16:00\.0 > 0000:17:01\.0 > 0000:19:00\.0$")


if __name__ == "__main__":
    hwctest.main()

# SPDX-License-Identifier: MIT
# The seed scenarios end to end: each manifest entry's facts file (rules as written, through
# rules_eval; and through `hwcheck check --json --facts` once every section loads losslessly)
# and its fixture root (`hwcheck --root DIR --json`, built by make_roots.py from the corpus) must
# report exactly the rule ids of <name>.expect.json, with no rule left unknown and the key facts
# the same as the hand-written facts file. The healthy-* scenario is the false-positive guard. A
# rule over a fact the facts file predates (not_collected) may say unknown there: make_scenarios.py
# need not learn every new key (docs/DESIGN.md, "Adding a fact").
import json
import os
import subprocess
import sys
import tempfile
import unittest


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import hwctest  # noqa: E402
from rulestest import load, pop_arg, save  # noqa: E402


RULES_EVAL = pop_arg("--rules-eval")
SCEN = os.path.join(HERE, "scenarios")
MANIFEST = load(os.path.join(SCEN, "manifest.json"))["scenarios"]


def ids_of(findings):
    return sorted({f["rule_id"] for f in findings})


def rules_eval(facts_file, profile=None):
    argv = [RULES_EVAL, facts_file] + ([profile] if profile else [])
    cp = subprocess.run(argv, capture_output=True, text=True, env={"LC_ALL": "C"})
    if cp.returncode != 0:
        raise AssertionError(f"rules_eval {facts_file}: exit {cp.returncode}: {cp.stderr}")
    return json.loads(cp.stdout), cp.stderr.strip()


def predates(f):
    """An unknown finding whose every input is a key the scenario's facts file does not have."""
    return f["severity"] == "unknown" and all(
        e["observed"].startswith("unknown (not_collected") for e in f["evidence"])


def report_of(findings):
    return {"schema": "hwcheck.report", "schema_version": 1,
            "tool": {"name": "hwcheck", "version": "0"}, "run": {}, "facts": {},
            "findings": findings, "errors": []}


def contained(a, b, path="facts"):
    """Paths where a value of `a` is not the same in `b` (numbers compared by value)."""
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return [path]
        out = []
        for k, v in a.items():
            if k == "unavailable":
                continue
            out += contained(v, b.get(k, KeyError), f"{path}.{k}")
        return out
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return [path]
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in contained(x, y, f"{path}[{i}]")]
    return [] if a == b and type(a) is not bool or a is b else [path]


class Generated(unittest.TestCase):
    def test_scenario_files_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", os.path.join(SCEN, "make_scenarios.py"), "--check"],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_every_scenario_documented(self):
        for s in MANIFEST:
            md = os.path.join(SCEN, s["name"] + ".md")
            self.assertTrue(os.path.exists(md), f"{md} (corpus sources of the scenario) is missing")
            text = open(md).read()
            self.assertIn("corpus", text)

    def test_predating_is_only_not_collected(self):
        # a key the file lacks reads as predating it (accepted); a key with a status does not
        base = load(os.path.join(SCEN, "healthy-cx7-gen5x16.facts.json"))
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "facts.json")
            del base["facts"]["host"]["x2apic"]["enabled"]
            save(base, f)
            lacking = [x for x in rules_eval(f)[0] if x["rule_id"] == "HOST_X2APIC_OFF"]
            base["facts"]["host"]["x2apic"]["enabled"] = None
            base["facts"]["host"]["x2apic"]["unavailable"] = {
                "enabled": {"status": "needs_root", "detail": "made unknown by the test"}}
            save(base, f)
            unknown = [x for x in rules_eval(f)[0] if x["rule_id"] == "HOST_X2APIC_OFF"]
        self.assertEqual([x["severity"] for x in lacking + unknown], ["unknown", "unknown"])
        self.assertTrue(predates(lacking[0]))
        self.assertFalse(predates(unknown[0]))

    def test_healthy_guard_present(self):
        self.assertTrue(any(s["name"].startswith("healthy-") for s in MANIFEST))

    def test_roots_up_to_date(self):
        cp = subprocess.run(["/usr/bin/python3", os.path.join(SCEN, "make_roots.py"), "--check"],
                            capture_output=True, text=True)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)

    def test_every_root_documented(self):
        for s in MANIFEST:
            md = os.path.join(hwctest.source(s["root"]), "..", "SOURCE.md")
            self.assertTrue(os.path.exists(md), f"{md} is missing")
            with open(md) as f:
                text = f.read()
            self.assertIn("corpus", text)
            self.assertIn("RECONSTRUCTED", text)  # what is not a capture is said to be so


# Facts the root must give exactly as the hand-written facts file has them (both come from the
# same corpus captures). Per scenario, the paths where the root keeps a real capture's value
# that the facts file's reconstruction does not share (see the root's SOURCE.md).
KEY_FACTS = {
    "adapters": ("bdf", ["fw_version", "psid", "registers.temp_mdegc", "registers.power_status",
                         "registers.pci_power_w", "fw_config.PCI_WR_ORDERING.current",
                         "fw_config.DISABLE_SLOT_POWER_LIMITER.current", "netdevs", "rdma_devices"]),
    "devices": ("bdf", ["link.speed_gts", "link.width", "link.cap_speed_gts", "link.cap_width",
                        "slot_power_limit_w"]),
    "netdevs": ("name", ["mtu", "admin_up", "carrier", "rings.rx", "rings.rx_max", "counters.rx_discards_phy",
                         "counters.rx_out_of_buffer", "irq_locality.outside_local", "features.lro"]),
}
HOST_FACTS = ["cpu.vendor", "x2apic.supported", "x2apic.enabled", "power.governor"]
# the ASUS ESC8000A-E12 capture lists no x2apic CPU flag (amd_iommu=off): the root keeps that;
# the Z690 desktop's card has numa_node -1 in host-cx6-ocp3-gen1-x4 (no SRAT on a one-node
# desktop), so its vectors' locality is unknown there, not 0
ROOT_DIFFERS = {"healthy-cx7-gen5x16": {"host.x2apic.supported", "host.x2apic.enabled"},
                "cx6-slot-25w-limiter": {"netdevs[enp4s0np0].irq_locality.outside_local"}}


def dig(o, path):
    for k in path.split("."):
        o = o.get(k) if isinstance(o, dict) else None
    return o


def key_fact_diffs(name, want, got):
    skip = ROOT_DIFFERS.get(name, set())
    out = [(f"host.{k}", dig(want["host"], k), dig(got["host"], k)) for k in HOST_FACTS
           if f"host.{k}" not in skip and dig(want["host"], k) != dig(got["host"], k)]
    for lst, (idk, keys) in KEY_FACTS.items():
        sec = {"adapters": "mlx", "devices": "pci"}.get(lst)
        wl = want[sec][lst] if sec else want[lst]
        gl = (got.get(sec) or {}).get(lst) if sec else got.get(lst)
        for w in wl:
            g = [x for x in gl or [] if x.get(idk) == w[idk]]
            if not g:
                out.append((f"{lst}[{w[idk]}]", "present", "missing"))
                continue
            out += [(f"{lst}[{w[idk]}].{k}", dig(w, k), dig(g[0], k)) for k in keys
                    if dig(w, k) != dig(g[0], k) and f"{lst}[{w[idk]}].{k}" not in skip]
    return out


def _make(s):
    facts = os.path.join(SCEN, s["facts"])
    want = load(os.path.join(SCEN, s["expect"]))["rule_ids"]
    rel_root = s.get("root")

    def test_facts_rules(self):
        findings, summary = rules_eval(facts)
        hwctest.validate(report_of(findings))
        # a fact added after make_scenarios.py was written is not in the file: its rule says
        # unknown (not_collected), as for any older facts file; anything else must be decided
        findings = [f for f in findings if not predates(f)]
        got = ids_of(findings)
        self.assertEqual(got, sorted(want), f"{s['name']}: findings {json.dumps(findings, indent=1)[:3000]}")
        for f in findings:
            self.assertNotEqual(f["severity"], "unknown", f"{s['name']}: complete facts gave unknown: {f}")
            if f["severity"] != "unknown":
                self.assertTrue(f["fix"], f"{f['rule_id']} has no fix")
                self.assertTrue(f["evidence"], f"{f['rule_id']} has no evidence")
        self.assertLessEqual(len(summary), 80)
        if not want:
            self.assertTrue(summary.startswith("hwcheck: OK"), summary)

    def test_facts_cli(self):
        cp, doc = hwctest.run_json("check", "--json", "--facts", facts)
        src = load(facts)["facts"]
        # every value the file gives survives the load (keys it lacks come back as
        # not_collected, which rules treat as unknown, exactly as when they are missing)
        lost = contained(src, doc.get("facts", {}))
        self.assertEqual(lost, [], f"values lost loading {facts}")
        self.assertEqual(ids_of([f for f in doc["findings"] if f["severity"] != "unknown"]),
                         sorted(want))
        hwctest.validate(doc)
        worst = {f["severity"] for f in doc["findings"] if not f["waived"]}
        self.assertEqual(cp.returncode, 1 if worst & {"warn", "error"} else 0, cp.stderr)
        # the monitoring mappings and the one-line summary
        nagios = 2 if "error" in worst else 1 if "warn" in worst else 0
        self.assertEqual(hwctest.run("--facts", facts, "--exit-codes", "nagios").returncode, nagios)
        self.assertEqual(hwctest.run("--facts", facts, "--exit-codes", "npd").returncode,
                         1 if worst & {"warn", "error"} else 0)
        line = hwctest.run("--facts", facts, "--summary-line").stdout
        self.assertEqual(line.count("\n"), 1)
        self.assertLessEqual(len(line.rstrip("\n")), 80)
        self.assertTrue(line.startswith("hwcheck: ERROR" if "error" in worst else
                                        "hwcheck: WARN" if "warn" in worst else "hwcheck: OK"), line)
        text = hwctest.run("--facts", facts, "--no-color").stdout
        for rid in want:
            self.assertIn(rid, text)

    def test_root(self):
        root = hwctest.source(rel_root) if rel_root else None
        self.assertTrue(root and os.path.isdir(root),
                        f"fixture root {s.get('root')} is missing (tests/rules/scenarios/make_roots.py)")
        cp, doc = hwctest.run_json("--root", root, "--json")
        self.assertEqual(ids_of(doc["findings"]), sorted(want),
                         f"{s['name']} root: {json.dumps(doc['findings'], indent=1)[:3000]}")
        hwctest.validate(doc)
        # a root holds what a captured machine would: every rule can decide, nothing went wrong
        unknown = [f for f in doc["findings"] if f["severity"] == "unknown"]
        self.assertEqual(unknown, [], f"{s['name']} root: rules left unknown")
        self.assertEqual(doc["errors"], [], f"{s['name']} root: collection errors")
        worst = {f["severity"] for f in doc["findings"]}
        self.assertEqual(cp.returncode, 1 if worst & {"warn", "error"} else 0, cp.stderr)
        if s["name"].startswith("healthy-"):
            # the false-positive guard: nothing at warn, error or unknown, and no info either
            self.assertEqual(doc["findings"], [])
            line = hwctest.run("--root", root, "--summary-line").stdout
            self.assertTrue(line.startswith("hwcheck: OK"), line)
        # the root's report saved as a facts file gives the same facts and findings back
        with tempfile.TemporaryDirectory() as d:
            saved = os.path.join(d, "facts.json")
            save(doc, saved)
            _, again = hwctest.run_json("check", "--json", "--facts", saved)
            self.assertEqual(again["facts"], doc["facts"])
            self.assertEqual(again["findings"], doc["findings"])
        diffs = key_fact_diffs(s["name"], load(facts)["facts"], doc["facts"])
        self.assertEqual(diffs, [], f"{s['name']} root: facts differ from {s['facts']} (path, file, root)")

    name = s["name"].replace("-", "_")
    setattr(Scenarios, f"test_{name}_facts_rules", test_facts_rules)
    setattr(Scenarios, f"test_{name}_facts_cli", test_facts_cli)
    setattr(Scenarios, f"test_{name}_root", test_root)


class Scenarios(unittest.TestCase):
    pass


for _s in MANIFEST:
    _make(_s)


if __name__ == "__main__":
    if not RULES_EVAL:
        print("--rules-eval PATH is required")
        sys.exit(2)
    hwctest.main()

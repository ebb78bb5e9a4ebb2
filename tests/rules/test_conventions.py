# SPDX-License-Identifier: MIT
# The house conventions, checked on every finding hwcheck gives: `check --json` on every fixture
# root under tests/fixtures/ (and again with the profile of each tests/link/REAL-DATA.md row that
# names one), plus the rule table's own texts. The rule table is checked elsewhere; the texts
# built at run time (rules/fix_mstlink.c, rule-rate.c, ...) are only seen here. Per finding:
# - its rule id is in `hwcheck rules list` (or a profile expectation's SITE_ id), its severity in
#   the schema's enum, it has a subject and evidence (each naming its fact); an `unknown` has a
#   reason (summary.unknown), no fix, and its message says it cannot decide; a finding that is not
#   unknown has a fix and observed evidence (an unread fact says "unknown (why)", never null);
# - the card lines: an `ok` line carries what was read (value), an `unknown` line says why;
# - no text holds "(null)", a printf directive, NaN or infinity, and none says "on this machine"
#   (a --root run judges a capture, not this machine); a count is never negative;
# - fix texts name no MFT-only tool (mlxlink, mlxconfig, ...) except as "MFT's X" beside its
#   mstflint twin, and every command they quote (`...`) is in DEBIAN_TOOLS (the Debian package that
#   has it) or is a non-Debian tool said to be one (MLNX_OFED, mlnx-tools) beside a Debian command.
# The checker itself is tested on planted violations (Checker), so it cannot pass by seeing nothing.
import glob
import json
import math
import os
import re
import subprocess
import sys
import unittest
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "link"))
import hwctest  # noqa: E402

# Each program a fix text may quote as a command -> the Debian 12 package that installs it
# (dpkg -S on bookworm; mstflint 4.21.0+1-1, infiniband-diags 44.0-2, iproute2 6.1.0-3).
DEBIAN_TOOLS = {
    "hwcheck": "hwcheck (this project's .deb, packaging/)",
    "mstlink": "mstflint", "mstconfig": "mstflint", "mstflint": "mstflint", "mstreg": "mstflint",
    "mstfwreset": "mstflint",
    # upstream mstflint renamed mget_temp to mstmget_temp in f1d02c5 (2024-11); bookworm's 4.21
    # has neither: the name is the one later mstflint packages install
    "mstmget_temp": "mstflint (>= 4.31)",
    "ethtool": "ethtool",
    "ibstat": "infiniband-diags", "perfquery": "infiniband-diags", "smpquery": "infiniband-diags",
    "ibportstate": "infiniband-diags", "ibnetdiscover": "infiniband-diags",
    "iblinkinfo": "infiniband-diags",
    "ip": "iproute2", "dcb": "iproute2", "rdma": "iproute2",
    "lldpcli": "lldpd",
    "setpci": "pciutils", "lspci": "pciutils",
    "ibv_devinfo": "ibverbs-utils",
    "sensors": "lm-sensors",
    "modprobe": "kmod",
    "update-grub": "grub2-common",
    "dmesg": "util-linux",
    "sysctl": "procps",
    "cpupower": "linux-cpupower",
    "cat": "coreutils", "echo": "coreutils", "mkdir": "coreutils", "tee": "coreutils",
    "apt": "apt",
}
# Tools a Debian host does not have, allowed only when the text says whose they are (a label
# within the sentence) and names a Debian command beside them.
NON_DEBIAN = {"mlnx_qos": "mlnx-tools", "set_irq_affinity_cpulist.sh": "mlnx-tools",
              "cma_roce_tos": "MLNX_OFED"}
NON_DEBIAN_LABEL = re.compile(r"MLNX_OFED|MLNX tools|mlnx-tools")
# MFT's tools and their mstflint twins (None: mstflint has none)
MFT_TWIN = {"mlxlink": "mstlink", "mlxconfig": "mstconfig", "mlxreg": "mstreg",
            "mlxfwmanager": "mstflint", "flint": "mstflint", "mlxfwreset": "mstfwreset",
            "mget_temp": "mstmget_temp", "mlxcables": None, "mlxdump": None, "mlxtrace": None,
            "mlxprivhost": "mstprivhost", "mlxup": None}
MFT_WORD = re.compile(r"(?<![\w-])(" + "|".join(MFT_TWIN) + r")(?![\w-])|(?<![\w-])mst (start|status|restart|stop)\b")

PRINTF = re.compile(r"%[-+ #0]*\d*(\.\d+)?(hh|h|ll|l|z|j|t)?[sdiuxXfFeEgGcp](?![a-zA-Z])")
NAN = re.compile(r"(?<![A-Za-z])-?(nan|inf|infinity)(?![A-Za-z])", re.I)
THIS_MACHINE = re.compile(r"\bon this machine\b|\bthis machine\b", re.I)


def profile_keys():
    keys = set()

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                keys.add(k)
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    with open(os.path.join(HERE, "..", "..", "rules", "default-profile.json")) as f:
        walk(json.load(f))
    return keys | {"unused_ports"}


SETTINGS = profile_keys()


def quoted_commands(fix):
    """(program, span) of each `...` span of a fix that is a command: its first word (after sudo)
    a program name, not a setting (key=value, an option, a path, a JSON snippet, a profile key,
    one word that is no known tool)."""
    out = []
    for span in re.findall(r"`([^`]*)`", fix):
        words = span.split()
        if words[:1] == ["sudo"]:
            words = words[1:]
        if not words:
            continue
        w = words[0]
        if (not re.fullmatch(r"[a-z][A-Za-z0-9_.+-]*", w) or "=" in w or w in SETTINGS):
            continue
        # one word alone is a command only when it is a known tool (`sensors`, `ibstat`); else it
        # is a name (a kernel parameter `nox2apic`, a module `k10temp`, a subcommand `burn`)
        if len(words) == 1 and w not in DEBIAN_TOOLS and w not in NON_DEBIAN:
            continue
        out.append((w, span))
    return out


def no_nan(s):
    raise ValueError(f"{s} in the JSON")


class Violations:
    """The conventions, as a function of one run's document; returns the breaches as text."""

    def __init__(self, rule_ids, severities):
        self.rule_ids = rule_ids
        self.severities = severities

    def text_breaches(self, where, text):
        out = []
        if "(null)" in text:
            out.append(f"{where}: '(null)' in {text!r}")
        if PRINTF.search(text):
            out.append(f"{where}: a printf directive left in {text!r}")
        if NAN.search(text):
            out.append(f"{where}: NaN or infinity in {text!r}")
        if THIS_MACHINE.search(text):
            out.append(f"{where}: says 'this machine' under --root: {text!r}")
        return out

    def fix_breaches(self, where, fix):
        out = []
        for m in MFT_WORD.finditer(fix):
            tool = m.group(1) or "mst " + m.group(2)
            before = fix[max(0, m.start() - 12):m.start()]
            twin = MFT_TWIN.get(tool)
            if not before.endswith(("MFT's ", "mstflint's ")):
                out.append(f"{where}: names MFT's {tool} (not on a Debian host) without saying "
                           f"it is MFT's: {fix!r}")
            elif before.endswith("MFT's ") and twin and not re.search(rf"(?<![\w-]){twin}(?![\w-])", fix):
                out.append(f"{where}: MFT's {tool} without its mstflint twin {twin}: {fix!r}")
        cmds = quoted_commands(fix)
        debian = [c for c, _ in cmds if c in DEBIAN_TOOLS]
        for prog, span in cmds:
            if prog in DEBIAN_TOOLS:
                continue
            if prog in NON_DEBIAN:
                sentence = re.split(r"(?<=[.;])\s", fix[fix.index(span):])[0]
                if not NON_DEBIAN_LABEL.search(sentence + fix[max(0, fix.index(span) - 40):fix.index(span)]):
                    out.append(f"{where}: `{span}` is {NON_DEBIAN[prog]}'s, not Debian's, and the "
                               f"text does not say so: {fix!r}")
                if not debian:
                    out.append(f"{where}: `{span}` ({NON_DEBIAN[prog]}) with no Debian command "
                               f"beside it: {fix!r}")
                continue
            out.append(f"{where}: `{span}`: {prog} is in no Debian package the test knows "
                       f"(DEBIAN_TOOLS): {fix!r}")
        return out

    def finding_breaches(self, where, f, unknown_reasons):
        w = f"{where}: {f.get('rule_id')} {f.get('subject')}"
        out = []
        rid, sev = f.get("rule_id") or "", f.get("severity")
        if rid not in self.rule_ids and not re.fullmatch(r"SITE_[A-Z0-9_]+", rid):
            out.append(f"{w}: rule id not in `hwcheck rules list`")
        if sev not in self.severities:
            out.append(f"{w}: severity {sev!r} not in the schema's {sorted(self.severities)}")
        if not f.get("subject"):
            out.append(f"{w}: no subject")
        ev = f.get("evidence") or []
        if not ev:
            out.append(f"{w}: no evidence")
        for e in ev:
            if not e.get("fact"):
                out.append(f"{w}: evidence without its fact: {e}")
            if e.get("observed") is None and sev != "unknown":
                out.append(f"{w}: evidence {e.get('fact')}: observed is null in a {sev} finding "
                           f"(an unread fact says 'unknown (why)')")
            if ".counters." in (e.get("fact") or "") and re.match(r"-\d", e.get("observed") or ""):
                out.append(f"{w}: evidence {e['fact']}: a negative count {e['observed']!r}")
        if sev == "unknown":
            if f.get("fix") is not None:
                out.append(f"{w}: an unknown finding with a fix (the schema: null for unknown)")
            if not (f.get("message") or "").startswith("cannot decide"):
                out.append(f"{w}: an unknown whose message does not say it cannot decide: "
                           f"{f.get('message')!r}")
            if not unknown_reasons.get((rid, f.get("subject"))):
                out.append(f"{w}: an unknown with no reason in summary.unknown")
        elif not f.get("fix"):
            out.append(f"{w}: a {sev} finding without a fix")
        for k in ("title", "message", "fix"):
            if f.get(k):
                out += self.text_breaches(f"{w} {k}", f[k])
        for e in ev:
            for k in ("observed", "expected"):
                if e.get(k):
                    out += self.text_breaches(f"{w} evidence {k}", e[k])
        if f.get("fix"):
            out += self.fix_breaches(w, f["fix"])
        return out

    def doc_breaches(self, where, doc):
        out = []
        reasons = {}
        for u in (doc.get("summary") or {}).get("unknown", []):
            reasons[(u.get("rule"), u.get("subject"))] = u.get("reason")
            if not u.get("reason"):
                out.append(f"{where}: summary.unknown {u.get('rule')} {u.get('subject')}: no reason")
            else:
                out += self.text_breaches(f"{where}: summary.unknown {u.get('rule')}", u["reason"])
        for f in doc.get("findings", []):
            out += self.finding_breaches(where, f, reasons)
        for card in doc.get("cards") or []:
            for ch in card.get("checks", []):
                w = f"{where}: card {card.get('bdf')} line {ch.get('item')} {ch.get('subject') or ''}"
                if ch.get("verdict") == "ok" and not ch.get("value"):
                    out.append(f"{w}: ok without what was read (value)")
                if ch.get("verdict") == "unknown" and not ch.get("reason"):
                    out.append(f"{w}: unknown without a reason")
                for k in ("value", "reason"):
                    if isinstance(ch.get(k), str):
                        out += self.text_breaches(f"{w} {k}", ch[k])
            for p in card.get("ports") or []:
                for group in ("errors", "flaps"):
                    for name, c in (p.get(group) or {}).items():
                        n, r = (c or {}).get("count"), (c or {}).get("per_hour")
                        if isinstance(n, (int, float)) and n < 0:
                            out.append(f"{where}: port {p.get('rdma_device')}/{p.get('port')} "
                                       f"{name}: negative count {n}")
                        if isinstance(r, (int, float)) and (r < 0 or not math.isfinite(r)):
                            out.append(f"{where}: port {p.get('rdma_device')}/{p.get('port')} "
                                       f"{name}: rate {r}")
        return out


def load_doc(text):
    return json.loads(text, parse_constant=no_nan)


def runs():
    """(name, argv) of every run: each fixture root, then each REAL-DATA.md row with a profile."""
    out = []
    for root in sorted(glob.glob(hwctest.fixture("*", "root"))):
        out.append((os.path.basename(os.path.dirname(root)), ["--root", root, "check", "--json"]))
    import test_real_data
    for r in test_real_data.rows():
        if r["profile"] != "-" and not r["fixture"].startswith("cases:"):
            out.append((f"{r['fixture']} + {r['profile']}",
                        ["--root", hwctest.fixture(r["fixture"], "root"), "check", "--json",
                         "--profile", os.path.join(HERE, "..", "link", "real-data", r["profile"])]))
    return out


def checker():
    _, rules = hwctest.run_json("rules", "list", "--json")
    with open(hwctest.source("docs", "schema", "findings.schema.json")) as f:
        sev = set(json.load(f)["$defs"]["finding"]["properties"]["severity"]["enum"])
    return Violations({r["id"] for r in rules["rules"]}, sev), rules


class EveryFinding(unittest.TestCase):
    def test_every_fixture_root(self):
        v, _ = checker()
        todo = runs()
        self.assertGreater(len(todo), 100)

        def one(item):
            name, argv = item
            cp = hwctest.run(*argv, timeout=300)
            try:
                return name, load_doc(cp.stdout), None
            except ValueError as e:
                return name, None, f"{name}: stdout is not JSON ({e}); exit {cp.returncode}: {cp.stderr[-500:]}"
        breaches, findings = [], 0
        with ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as ex:
            for name, doc, err in ex.map(one, todo):
                if err:
                    breaches.append(err)
                    continue
                findings += len(doc.get("findings", []))
                breaches += v.doc_breaches(name, doc)
        self.assertGreater(findings, 1000, "the runs gave too few findings to judge anything")
        self.assertEqual(breaches, [], f"{len(breaches)} breaches:\n" + "\n".join(breaches[:60]))

    def test_the_rule_table_texts(self):
        v, rules = checker()
        breaches = []
        for r in rules["rules"]:
            for k in ("title", "rationale", "fix"):
                breaches += v.text_breaches(f"rules list {r['id']} {k}", r.get(k) or "")
            breaches += v.fix_breaches(f"rules list {r['id']}", r.get("fix") or "")
        self.assertEqual(breaches, [], "\n".join(breaches))


class Checker(unittest.TestCase):
    """Each convention, planted in a copy of a real finding, is caught."""
    GOOD = {"rule_id": "LINK_FLAPS", "severity": "warn", "title": "Link went down since boot or the last counter clear",
            "subject": "mlx5_1/1", "card": "0000:c1:00.0",
            "message": "the link went down 255 times since boot or the last counter clear (link_downed)",
            "evidence": [{"fact": "mlx.adapters[0000:c1:00.0].ports[mlx5_1/1].counters.link_downed",
                          "observed": "255", "expected": "<= 0"}],
            "fix": "Check the cable (the port's counters: `mstlink -d 0000:c1:00.0 -c`).",
            "waived": False}

    def breaches(self, **change):
        v = Violations({"LINK_FLAPS", "NET_PORT_DOWN"}, {"info", "warn", "error", "unknown"})
        f = dict(self.GOOD, **change)
        reasons = {("NET_PORT_DOWN", "mlx5_1/1"): "a reason"}
        return v.finding_breaches("planted", f, reasons)

    def test_the_real_finding_passes(self):
        self.assertEqual(self.breaches(), [])

    def test_each_planted_violation_is_caught(self):
        planted = {
            "mlxlink": {"fix": "Check the cable: `mlxlink -d 0000:c1:00.0 -c`."},
            "mlxconfig unlabelled": {"fix": "Run mlxconfig -d 0000:c1:00.0 q."},
            "MFT without twin": {"fix": "MFT's mlxlink -d 0000:c1:00.0 shows it."},
            "mst start": {"fix": "Run `sudo mst start` first, then `ethtool -S eth0`."},
            "not Debian": {"fix": "Run `mlxup --online` to update."},
            "unknown tool": {"fix": "Tune it: `mlnx_tune -p HIGH_THROUGHPUT`."},
            "mlnx_qos unlabelled": {"fix": "Check the buffers: `mlnx_qos -i eth0`, `ethtool -S eth0`."},
            "mlnx_qos alone": {"fix": "Check the buffers: `mlnx_qos -i eth0` (MLNX_OFED)."},
            "rule id": {"rule_id": "NO_SUCH_RULE"},
            "severity": {"severity": "fatal"},
            "subject": {"subject": ""},
            "evidence": {"evidence": []},
            "observed null": {"evidence": [{"fact": "x.y", "observed": None, "expected": "1"}]},
            "negative count": {"evidence": [{"fact": "a.counters.link_downed", "observed": "-3",
                                             "expected": "<= 0"}]},
            "(null)": {"message": "the link went down (null) times"},
            "printf": {"message": "the link went down %u times"},
            "nan": {"message": "the link went down nan times"},
            "inf": {"message": "a rate of -inf per hour"},
            "this machine": {"message": "no adapter was found on this machine"},
            "warn without fix": {"fix": None},
            "unknown with fix": {"severity": "unknown", "rule_id": "NET_PORT_DOWN",
                                 "message": "cannot decide: x is unknown"},
            "unknown without reason": {"severity": "unknown", "fix": None,
                                       "message": "cannot decide: x is unknown"},
            "unknown without words": {"severity": "unknown", "rule_id": "NET_PORT_DOWN",
                                      "fix": None, "message": "x"},
        }
        for name, change in planted.items():
            with self.subTest(name):
                self.assertNotEqual(self.breaches(**change), [], name)

    def test_labelled_and_twinned_tools_pass(self):
        for fix in ("MFT's mlxlink -d X -c, or mstflint's own `mstlink -d X -c`.",
                    "`set_irq_affinity_cpulist.sh 0-3 eth0` (MLNX tools) or `echo 0-3 > F`.",
                    "Pin it: `sudo ip link set eth0 mtu 4200`; see `unused_ports`, `iommu=pt`.",
                    "(mstlink does not support this card: mstflint's mlxlink takes Connect-IB)"):
            with self.subTest(fix):
                self.assertEqual(self.breaches(fix=fix), [])

    def test_nan_in_the_json_is_refused(self):
        with self.assertRaises(ValueError):
            load_doc('{"per_hour": NaN}')

    def test_a_card_line_ok_without_value_and_a_negative_count(self):
        v = Violations({"LINK_FLAPS"}, {"warn"})
        doc = {"findings": [], "summary": {"unknown": []},
               "cards": [{"bdf": "b", "checks": [{"item": "firmware", "verdict": "ok", "value": None},
                                                 {"item": "numa", "verdict": "unknown", "reason": ""}],
                          "ports": [{"rdma_device": "mlx5_0", "port": 1,
                                     "errors": {"symbol_error": {"count": -1, "per_hour": None}}}]}]}
        self.assertEqual(len(v.doc_breaches("planted", doc)), 3)


if __name__ == "__main__":
    hwctest.main()

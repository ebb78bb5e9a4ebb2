# SPDX-License-Identifier: MIT
# contrib/k8s: every manifest validated against the Kubernetes API models of the Debian package
# python3-kubernetes (each field must exist in its object's schema with the right type; required
# fields present, as the client's deserializer checks them), then the settings the tools need:
# privileged, host network, the host's /sys and /proc read-only under /host, --exec-tools in
# both the DaemonSet and the node-problem-detector plugin, the plugin's ConfigMap equal to
# npd-hwcheck.json; and the Containerfile's packages exist in Debian and cover the tools.
# Exits 77 when python3-kubernetes or python3-yaml is not installed.
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import hwctest  # noqa: E402

try:
    import yaml
    from kubernetes import client as k8s
except ImportError:
    yaml = k8s = None

KINDS = {("apps/v1", "DaemonSet"): "V1DaemonSet", ("v1", "ServiceAccount"): "V1ServiceAccount",
         ("v1", "ConfigMap"): "V1ConfigMap",
         ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "V1ClusterRoleBinding"}
SCALARS = {"str": str, "bool": bool, "int": int, "float": (int, float), "object": object,
           "datetime": str, "date": str}


def check(value, typ, path, errors):
    """Walks value against the model type name typ ('V1PodSpec', 'list[V1Container]',
    'dict(str, str)', 'str'...), appending 'path: problem' to errors."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list")
            return
        for i, v in enumerate(value):
            check(v, m.group(1), f"{path}[{i}]", errors)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a map")
            return
        for k, v in value.items():
            check(v, m.group(1), f"{path}.{k}", errors)
        return
    if typ in SCALARS:
        if typ != "object" and (not isinstance(value, SCALARS[typ]) or (typ != "bool" and isinstance(value, bool))):
            errors.append(f"{path}: expected {typ}, got {type(value).__name__} {value!r}")
        return
    cls = getattr(k8s, typ)
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object ({typ})")
        return
    by_json = {j: a for a, j in cls.attribute_map.items()}
    for k, v in value.items():
        if k not in by_json:
            errors.append(f"{path}.{k}: no such field in {typ}")
            continue
        check(v, cls.openapi_types[by_json[k]], f"{path}.{k}", errors)


def load(name):
    with open(hwctest.source("contrib", "k8s", name)) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def manifests():
    d = hwctest.source("contrib", "k8s")
    return sorted(f for f in os.listdir(d) if f.endswith(".yaml"))


def pod_spec(docs, name):
    ds = [d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"] == name]
    assert len(ds) == 1, name
    return ds[0]["spec"]["template"]["spec"]


@unittest.skipUnless(yaml and k8s, "python3-kubernetes or python3-yaml not installed")
class Manifests(unittest.TestCase):
    def validate(self, doc, where):
        key = (doc.get("apiVersion"), doc.get("kind"))
        self.assertIn(key, KINDS, f"{where}: an object this test cannot validate")
        errors = []
        check(doc, KINDS[key], where, errors)
        self.assertEqual(errors, [], where)
        # the client's deserializer builds the objects and refuses a missing required field
        k8s.ApiClient()._ApiClient__deserialize(doc, KINDS[key])

    def test_every_manifest_validates(self):
        names = manifests()
        self.assertIn("hwcheck-daemonset.yaml", names)
        self.assertIn("npd-daemonset.yaml", names)
        for n in names:
            for i, doc in enumerate(load(n)):
                self.validate(doc, f"{n}#{i}")

    def test_the_validator_catches_mistakes(self):
        doc = load("hwcheck-daemonset.yaml")[0]
        spec = doc["spec"]["template"]["spec"]
        for mutate, want in ((lambda s: s.__setitem__("hostNetwrok", True), "no such field"),
                             (lambda s: s.__setitem__("hostNetwork", "yes"), "expected bool"),
                             (lambda s: s["containers"][0]["volumeMounts"][0].__setitem__("readonly", True),
                              "no such field"),
                             (lambda s: s["volumes"][0].__setitem__("hostPath", "/sys"), "expected an object")):
            bad = json.loads(json.dumps(doc))
            mutate(bad["spec"]["template"]["spec"])
            errors = []
            check(bad, "V1DaemonSet", "ds", errors)
            self.assertTrue(any(want in e for e in errors), errors)
        bad = json.loads(json.dumps(doc))
        del bad["spec"]["template"]["spec"]["containers"][0]["name"]
        with self.assertRaises(ValueError):
            k8s.ApiClient()._ApiClient__deserialize(bad, "V1DaemonSet")
        self.assertTrue(spec["hostNetwork"])

    def host_access(self, spec, where):
        c = spec["containers"][0]
        self.assertTrue(c["securityContext"]["privileged"], where)
        self.assertTrue(spec.get("hostNetwork"), f"{where}: ethtool needs the host's netdevs")
        self.assertEqual(spec.get("dnsPolicy"), "ClusterFirstWithHostNet", where)
        mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
        vols = {v["name"]: v for v in spec["volumes"]}
        for host, inside in (("/sys", "/host/sys"), ("/proc", "/host/proc")):
            self.assertTrue(mounts[inside].get("readOnly"), f"{where}: {inside} must be read-only")
            self.assertEqual(vols[mounts[inside]["name"]]["hostPath"]["path"], host, where)
        self.assertEqual({m["name"] for m in c["volumeMounts"]}, set(vols), where)

    def test_daemonset_runs_the_tools_against_the_host(self):
        spec = pod_spec(load("hwcheck-daemonset.yaml"), "hwcheck")
        self.host_access(spec, "hwcheck-daemonset.yaml")
        script = spec["containers"][0]["args"][0]
        self.assertIn("--root /host --exec-tools", script)

    def test_npd_runs_the_tools_against_the_host(self):
        docs = load("npd-daemonset.yaml")
        spec = pod_spec(docs, "hwcheck-npd")
        self.host_access(spec, "npd-daemonset.yaml")
        with open(hwctest.source("contrib", "k8s", "npd-hwcheck.json")) as f:
            plugin = json.load(f)
        args = plugin["rules"][0]["args"]
        self.assertEqual(args[:3], ["--root", "/host", "--exec-tools"])
        cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
        self.assertEqual(json.loads(cm["data"]["npd-hwcheck.json"]), plugin)
        cmd = spec["containers"][0]["command"]
        self.assertIn("--config.custom-plugin-monitor=/config/npd-hwcheck.json", cmd)
        cfg = [m for m in spec["containers"][0]["volumeMounts"] if m["mountPath"] == "/config"][0]
        self.assertEqual([v for v in spec["volumes"] if v["name"] == cfg["name"]][0]["configMap"]["name"],
                         cm["metadata"]["name"])
        rb = [d for d in docs if d["kind"] == "ClusterRoleBinding"][0]
        self.assertEqual(rb["subjects"][0]["name"], spec["serviceAccountName"])


class Containerfile(unittest.TestCase):
    def setUp(self):
        with open(hwctest.source("contrib", "k8s", "Containerfile")) as f:
            text = f.read().replace("\\\n", " ")
        self.stages = {}
        stage = None
        for line in text.splitlines():
            m = re.match(r"FROM\s+(\S+)(?:\s+AS\s+(\S+))?", line)
            if m:
                stage = m.group(2) or "default"
                self.stages[stage] = []
            elif stage:
                self.stages[stage].append(line)
        self.installs = {}
        for st, lines in self.stages.items():
            pk = []
            for line in lines:
                for m in re.finditer(r"apt-get install -y --no-install-recommends ([^&]+)", line):
                    pk += [p for p in m.group(1).split() if not p.startswith("/")]
            self.installs[st] = pk

    def test_runtime_has_the_tools(self):
        for tool in ("mstflint", "ethtool", "pciutils", "rdma-core"):
            self.assertIn(tool, self.installs["hwcheck"])
        self.assertTrue(any("/tmp/hwcheck_*.deb" in l for l in self.stages["hwcheck"]))
        self.assertTrue(any("cpack -G DEB" in l for l in self.stages["build"]))

    def test_build_stage_matches_the_package_list(self):
        with open(hwctest.source("scripts", "debian-packages.txt")) as f:
            listed = {l.split("#")[0].strip() for l in f} - {""}
        for p in self.installs["build"]:
            self.assertIn(p, listed, f"{p} is in the Containerfile's build stage, not in debian-packages.txt")

    def test_packages_exist_in_debian(self):
        if not shutil.which("apt-cache"):
            self.skipTest("apt-cache not installed")
        pkgs = sorted(set(self.installs["build"] + self.installs["hwcheck"]))
        cp = subprocess.run(["apt-cache", "show", "--no-all-versions", *pkgs], capture_output=True, text=True)
        if "No packages found" in cp.stderr and not cp.stdout:
            self.skipTest("apt lists are empty (apt-get update)")
        found = set(re.findall(r"^Package: (\S+)", cp.stdout, re.M))
        self.assertEqual(sorted(set(pkgs) - found), [], cp.stderr)


if __name__ == "__main__":
    hwctest.main()

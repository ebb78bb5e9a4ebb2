# SPDX-License-Identifier: MIT
# Shared helpers for hwcheck's Python tests: run the binary, compare goldens, validate the schema.
# Each test script: `import hwctest; ... hwctest.main()` and is run by CTest as
#   python3 script.py --hwcheck PATH --source DIR [--update]
# (--update, or HWCHECK_UPDATE_GOLDENS=1 in the environment: rewrite the goldens)
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = None


def _parse():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--hwcheck", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--update", action="store_true", help="rewrite golden files")
    ARGS, rest = p.parse_known_args()
    # scripts/hwcheck-dev gen re-records every golden through ctest
    ARGS.update = ARGS.update or os.environ.get("HWCHECK_UPDATE_GOLDENS") == "1"
    return rest


def take_option(name):
    """The value of a script-specific option NAME VALUE, removed from sys.argv (None if absent);
    for module-level use, before main() parses the common ones."""
    if name not in sys.argv:
        return None
    i = sys.argv.index(name)
    value = sys.argv[i + 1]
    del sys.argv[i:i + 2]
    return value


def hwcheck_path():
    return ARGS.hwcheck


def source(*parts):
    return os.path.join(ARGS.source, *parts)


def fixture(*parts):
    return source("tests", "fixtures", *parts)


def read_text(path):
    with open(path) as f:
        return f.read()


def write_text(path, text):
    """Writes text to path, making its directory first."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(*argv, env=None, stdin=None, timeout=120, check=None):
    """Run hwcheck with argv; returns CompletedProcess (text)."""
    e = dict(os.environ)
    e.pop("HWCHECK_ROOT", None)
    e["LC_ALL"] = "C"
    if env:
        e.update(env)
    cp = subprocess.run([ARGS.hwcheck, *argv], capture_output=True, text=True, env=e,
                        input=stdin, timeout=timeout)
    if check is not None and cp.returncode != check:
        raise AssertionError(f"hwcheck {' '.join(argv)}: exit {cp.returncode}, expected {check}\n"
                             f"stderr: {cp.stderr}")
    return cp


def run_json(*argv, **kw):
    cp = run(*argv, **kw)
    try:
        return cp, json.loads(cp.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"hwcheck {' '.join(argv)}: stdout is not JSON ({e}):\n{cp.stdout[:2000]}"
                             f"\nstderr: {cp.stderr}")


def strip_volatile(doc):
    """Drop what changes from run to run (the 'run' object)."""
    d = dict(doc)
    d.pop("run", None)
    return d


def validate(doc):
    """Validate a document against docs/ schema; raises AssertionError with the reasons."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
        name = f.name
    try:
        cp = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "validate_schema.py"),
                             source("docs"), name], capture_output=True, text=True)
        if cp.returncode == 77:
            raise unittest.SkipTest("python3-jsonschema missing")
        if cp.returncode != 0:
            raise AssertionError("schema validation failed:\n" + cp.stderr)
    finally:
        os.unlink(name)


def golden(path, doc):
    """Compare doc (minus 'run') with the JSON golden at path; --update rewrites it."""
    doc = strip_volatile(doc)
    text = json.dumps(doc, indent=2, sort_keys=False) + "\n"
    if ARGS.update or not os.path.exists(path):
        if not ARGS.update:
            raise AssertionError(f"golden {path} is missing; run the test with --update to create it")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return
    want = json.load(open(path))
    if want != doc:
        import difflib
        a = json.dumps(want, indent=2).splitlines()
        b = json.dumps(doc, indent=2).splitlines()
        diff = "\n".join(list(difflib.unified_diff(a, b, "golden", "actual", lineterm=""))[:80])
        raise AssertionError(f"differs from golden {path}:\n{diff}")


class Result(unittest.TextTestResult):
    pass


def main():
    rest = _parse()
    prog = unittest.main(module="__main__", argv=[sys.argv[0], *rest], exit=False, verbosity=1)
    r = prog.result
    failed = len(r.failures) + len(r.errors)
    passed = r.testsRun - failed - len(r.skipped)
    print(f"{passed} passed, {failed} failed, {len(r.skipped)} skipped")
    if r.testsRun == 0 or (passed == 0 and failed == 0):
        sys.exit(77)
    sys.exit(1 if failed else 0)

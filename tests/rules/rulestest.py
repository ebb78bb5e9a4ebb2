# SPDX-License-Identifier: MIT
# Shared by the rules tests: JSON file helpers and the --rules-eval PATH argument (the test
# driver that evaluates the rules on a facts file as written).
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def save(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f)


def pop_arg(name):
    """Removes `name VALUE` from sys.argv (before hwctest parses it) and returns VALUE."""
    if name in sys.argv:
        i = sys.argv.index(name)
        val = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        return val
    return None

# SPDX-License-Identifier: MIT
# A strict reader of the Prometheus text exposition format (0.0.4) as node_exporter's textfile
# collector reads it, stricter where hwcheck promises more: every family has one HELP and one TYPE
# before its samples, a family's samples are together, no series twice, names carry hwcheck_.
import math
import re

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*$")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


class PromError(ValueError):
    pass


def _labels(s, lineno):
    """Parses `k="v",...}` (after the '{'); returns (dict, rest after '}')."""
    out = {}
    i = 0
    while True:
        if s[i:i + 1] == "}":
            return out, s[i + 1:]
        m = re.match(r"[a-zA-Z_][a-zA-Z0-9_]*", s[i:])
        if not m:
            raise PromError(f"line {lineno}: bad label name at {s[i:]!r}")
        k = m.group(0)
        if k.startswith("__"):
            raise PromError(f"line {lineno}: reserved label name {k}")
        i += len(k)
        if s[i:i + 2] != '="':
            raise PromError(f"line {lineno}: expected =\" after label {k}")
        i += 2
        v = []
        while True:
            if i >= len(s):
                raise PromError(f"line {lineno}: unterminated label value")
            c = s[i]
            if c == "\\":
                n = s[i + 1:i + 2]
                if n not in ("\\", '"', "n"):
                    raise PromError(f"line {lineno}: bad escape \\{n} in label value")
                v.append("\n" if n == "n" else n)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                raise PromError(f"line {lineno}: raw newline in label value")
            else:
                v.append(c)
                i += 1
        if k in out:
            raise PromError(f"line {lineno}: label {k} twice")
        out[k] = "".join(v)
        if s[i:i + 1] == ",":
            i += 1
        elif s[i:i + 1] != "}":
            raise PromError(f"line {lineno}: expected , or }} after label {k}")


def _value(tok, lineno):
    if tok in ("NaN", "+Inf", "-Inf", "Inf"):
        return float(tok.replace("Inf", "inf").replace("NaN", "nan"))
    if not re.match(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$", tok):
        raise PromError(f"line {lineno}: bad value {tok!r}")
    return float(tok)


def parse(text, prefix="hwcheck_"):
    """Returns {family: {"help", "type", "samples": [(labels dict, value)]}}; raises PromError."""
    if text and not text.endswith("\n"):
        raise PromError("the file does not end with a newline")
    fams = {}
    closed = set()
    current = None
    seen = set()
    for lineno, line in enumerate(text.split("\n")[:-1], 1):
        if line.strip() == "":
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.match(name):
                    raise PromError(f"line {lineno}: bad metric name {name!r}")
                f = fams.setdefault(name, {"help": None, "type": None, "samples": []})
                if name in closed or (f["samples"]):
                    raise PromError(f"line {lineno}: {parts[1]} for {name} after its samples")
                key = parts[1].lower()
                if f[key] is not None:
                    raise PromError(f"line {lineno}: second {parts[1]} for {name}")
                val = parts[3] if len(parts) > 3 else ""
                if key == "type" and val not in TYPES:
                    raise PromError(f"line {lineno}: unknown type {val!r}")
                f[key] = val
                if current and current != name:
                    closed.add(current)
                current = name
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$", line)
        if not m:
            raise PromError(f"line {lineno}: not a sample: {line!r}")
        name, rest = m.group(1), m.group(2)
        labels = {}
        if rest.startswith("{"):
            labels, rest = _labels(rest[1:], lineno)
        if not rest.startswith(" "):
            raise PromError(f"line {lineno}: expected a space before the value")
        toks = rest.split()
        if len(toks) not in (1, 2):
            raise PromError(f"line {lineno}: expected a value and an optional timestamp")
        value = _value(toks[0], lineno)
        if len(toks) == 2 and not re.match(r"-?\d+$", toks[1]):
            raise PromError(f"line {lineno}: bad timestamp {toks[1]!r}")
        if not name.startswith(prefix):
            raise PromError(f"line {lineno}: {name} lacks the {prefix} prefix")
        f = fams.get(name)
        if f is None or f["type"] is None or f["help"] is None:
            raise PromError(f"line {lineno}: sample of {name} before its HELP and TYPE")
        if name in closed:
            raise PromError(f"line {lineno}: samples of {name} are not together")
        if current != name:
            if current:
                closed.add(current)
            current = name
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            raise PromError(f"line {lineno}: series {name}{labels} twice")
        seen.add(key)
        if math.isnan(value) and f["type"] == "counter":
            raise PromError(f"line {lineno}: NaN counter")
        f["samples"].append((labels, value))
    for name, f in fams.items():
        if f["type"] is None or f["help"] is None:
            raise PromError(f"{name}: HELP or TYPE missing")
    return fams

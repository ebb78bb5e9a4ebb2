#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 14's time bound: the whole check of a 10-card root whose recorded tools take their real
# time, against the slowest single tool. The replay waits each command's recorded elapsed_ms after
# it was started (HWCHECK_REPLAY_PACE=1, core/runner.c), so what hwcheck runs at once overlaps and
# what it runs one after the other adds up, as on the machine.
#   bench/check_parallel_tools.sh [ROOT [HWCHECK]]
# ROOT: a root with elapsed_ms in its recordings (an untarred `hwcheck snapshot` of a real machine
# has the measured times); default: the 10-card root of bench/parallel_root.py, whose durations are
# RECONSTRUCTED estimates (BENCH_CMIS=1: CMIS modules read page by page over netlink).
# HWCHECK: build-rel, build, then build-test. BENCH_SERIAL=1: with --serial-tools (one card's
# mstflint tools one after the other, as before they ran at once). Prints the numbers, then
# ratio=<check wall / slowest tool> (goal < 1.5). A bench, not a test: nothing here fails a build.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROOT=${1:-}
if [ -z "$ROOT" ]; then
	ROOT=$(python3 "$SRC/bench/parallel_root.py" "$TMP" ${BENCH_CMIS:+--cmis})
fi
HW=${2:-}
for b in build-rel build build-test; do
	[ -n "$HW" ] || { [ -x "$SRC/$b/cli/hwcheck" ] && HW="$SRC/$b/cli/hwcheck"; } || true
done
[ -n "$HW" ] || { echo "no hwcheck built (cmake --build build-rel)" >&2; exit 2; }

# what the recordings say: the slowest tool, all of them one after the other, and the longest
# chain of one card's mstflint tools (what a card takes with --serial-tools)
python3 - "$ROOT" <<'PY'
import collections, os, re, sys
cmds = os.path.join(sys.argv[1], "hwcheck", "commands")
ms = {}
for key in os.listdir(cmds):
    p = os.path.join(cmds, key, "result")
    m = re.search(r"^elapsed_ms=(\d+)$", open(p).read(), re.M) if os.path.exists(p) else None
    ms[key] = int(m.group(1)) if m else 0
chain = collections.Counter()
for key, v in ms.items():
    m = re.match(r"mst\S* -d (\S+) ", key)
    if m:
        chain[m.group(1)] += v
slow = max(ms, key=ms.get)
cards = len(chain)
print(f"recordings={len(ms)} cards={cards}")
print(f"slowest_tool_ms={ms[slow]} ({slow})")
print(f"serial_sum_ms={sum(ms.values())}")
if chain:
    bdf, c = chain.most_common(1)[0]
    print(f"card_chain_ms={c} (the mstflint tools of {bdf}, one after the other: --serial-tools)")
open(os.path.join(os.environ.get("TMPDIR", "/tmp"), ".hwc-slowest-%d" % os.getppid()), "w").write(str(ms[slow]))
PY
SLOW=$(cat "${TMPDIR:-/tmp}/.hwc-slowest-$$")
rm -f "${TMPDIR:-/tmp}/.hwc-slowest-$$"
best=
for i in 1 2 3; do
	t0=$(date +%s%N)
	HWCHECK_REPLAY_PACE=1 "$HW" check --root "$ROOT" ${BENCH_SERIAL:+--serial-tools} \
		>"$TMP/out" 2>"$TMP/err" || true
	t1=$(date +%s%N)
	w=$(( (t1 - t0) / 1000000 ))
	echo "run $i: check_wall_ms=$w"
	if [ -z "$best" ] || [ "$w" -lt "$best" ]; then best=$w; fi
done
if ! grep -q "^card " "$TMP/out"; then
	echo "the check found no card: not a measurement" >&2
	exit 1
fi
echo "check_wall_ms=$best (best of 3, $HW)"
python3 -c "import sys; s, w = int(sys.argv[1]), int(sys.argv[2]); print(f'ratio={w / s:.2f}' if s else 'ratio=n/a (no elapsed_ms recorded)')" "$SLOW" "$best"

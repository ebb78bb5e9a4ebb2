#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 14's time bound: the whole check of a 10-card root whose recorded tools take their real
# time, against the slowest single tool. The replay waits each command's recorded elapsed_ms after
# it was started (HWCHECK_REPLAY_PACE=1, core/runner.c), so what hwcheck runs at once overlaps and
# what it runs one after the other adds up, as on the machine.
#   bench/check_parallel_tools.sh [ROOT [HWCHECK]]
# ROOT: a root with elapsed_ms in its recordings (an untarred `hwcheck snapshot` of a real machine
# has the measured times); default: the 10-card root of bench/parallel_root.py, whose durations
# come from bench/TOOL-TIMES.md (measured, stated, derived or RECONSTRUCTED, each row cited)
# (BENCH_CMIS=1: CMIS modules read page by page over netlink; BENCH_ZERO=1: every tool 0 ms, so the
# wall time is hwcheck's own work; BENCH_IB=N: the first N cards InfiniBand, default 8, with their
# far end's smpquery/perfquery; BENCH_FAREND_WORST=1: each of those at its -t bound, 1.2 s).
# HWCHECK: build-rel, build, then build-test. BENCH_SERIAL=1: with --serial-tools (one card's
# mstflint tools one after the other, as before they ran at once). Prints the numbers, then
# ratio=<check wall / slowest tool> (goal < 1.5), and the two bounds the replay cannot show: a
# card's mstflint tools one after the other (card_chain_ms) and every card's (host_serial_mst_ms),
# which is what the public reports of running these tools at once point to (TOOL-TIMES.md).
# The replay runs with hwcheck's own timeouts (--cmd-timeout 10 s, mstconfig's query 30 s): a
# recorded tool slower than its timeout is cut there, as live it would be killed, and the script
# says so (BENCH_CMD_TIMEOUT=SEC: run with --cmd-timeout SEC). A bench, not a test: nothing here
# fails a build.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROOT=${1:-}
if [ -z "$ROOT" ]; then
	ROOT=$(python3 "$SRC/bench/parallel_root.py" "$TMP" ${BENCH_CMIS:+--cmis} ${BENCH_ZERO:+--zero} \
		${BENCH_FAREND_WORST:+--farend-worst} ${BENCH_IB:+--ib=$BENCH_IB})
fi
HW=${2:-}
for b in build-rel build build-test; do
	[ -n "$HW" ] || { [ -x "$SRC/$b/cli/hwcheck" ] && HW="$SRC/$b/cli/hwcheck"; } || true
done
[ -n "$HW" ] || { echo "no hwcheck built (cmake --build build-rel)" >&2; exit 2; }

# what the recordings say: the slowest tool, all of them one after the other, the longest chain of
# one card's mstflint tools (what a card takes with --serial-tools) and all cards' mstflint tools
# one after the other; the last line is the slowest tool's ms for the ratio
python3 - "$ROOT" >"$TMP/recorded" <<'PY'
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
        chain[m.group(1)[:-1]] += v  # a card: its functions' BDFs without the function digit
# the InfiniBand far end of each port: three rounds one after the other (mlx/ibpeer.c), the first
# started ahead beside the mstflint tools
far = collections.defaultdict(lambda: [0, 0, 0])
for key, v in ms.items():
    m = re.match(r"(smpquery|perfquery) -C (\S+) -P (\S+) .*?(nodedesc|nodeinfo|portinfo 0 |portinfo 0,|$)", key)
    if m:
        rnd = 2 if m.group(1) == "perfquery" else 1 if m.group(4) == "portinfo 0," else 0
        c = far[(m.group(2), m.group(3))]
        c[rnd] = max(c[rnd], v)
slow = max(ms, key=ms.get)
print(f"recordings={len(ms)} cards={len(chain)}")
print(f"slowest_tool_ms={ms[slow]} ({slow})")
print(f"serial_sum_ms={sum(ms.values())}")
if chain:
    card, c = chain.most_common(1)[0]
    print(f"card_chain_ms={c} (the mstflint tools of card {card}x, one after the other: --serial-tools)")
    print(f"host_serial_mst_ms={sum(chain.values())} (every card's mstflint tools one after the other)")
if far:
    port, c = max(far.items(), key=lambda kv: sum(kv[1]))
    print(f"farend_ports={len(far)} farend_chain_ms={sum(c)} (rounds {'+'.join(map(str, c))} ms of "
          f"{port[0]}/{port[1]}: the far end's three rounds; round 1 beside the mstflint tools)")
print(ms[slow])
PY
sed '$d' "$TMP/recorded"
SLOW=$(tail -n 1 "$TMP/recorded")
best=
for i in 1 2 3; do
	t0=$(date +%s%N)
	HWCHECK_REPLAY_PACE=1 "$HW" check --root "$ROOT" ${BENCH_CMD_TIMEOUT:+--cmd-timeout "$BENCH_CMD_TIMEOUT"} \
		${BENCH_SERIAL:+--serial-tools} \
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
if [ "$best" -lt "$SLOW" ]; then
	echo "warning: the check ended before the slowest tool's recorded ${SLOW} ms: a timeout cut it" \
		"(live, hwcheck would have killed it); BENCH_CMD_TIMEOUT=SEC replays it whole"
fi
python3 - "$SLOW" "$best" "$TMP/recorded" <<'PY'
import re, sys
s, w = int(sys.argv[1]), int(sys.argv[2])
rec = open(sys.argv[3]).read()
print(f"ratio={w / s:.2f}" if s else "ratio=n/a (no elapsed_ms recorded)")
for name in ("card_chain_ms", "host_serial_mst_ms"):
    m = re.search(rf"^{name}=(\d+)", rec, re.M)
    if m and s:
        print(f"ratio_if_{name[:-3]}={max(int(m.group(1)), w) / s:.2f}")
PY

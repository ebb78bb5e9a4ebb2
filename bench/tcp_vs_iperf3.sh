#!/bin/bash
# SPDX-License-Identifier: MIT
# hwcheck's TCP probe against iperf3 on the same link in the same VM (tests/vm): two network
# namespaces joined by a veth pair, the same streams and duration, both directions (iperf3 runs
# once each way, -R for the reverse), alternating ROUNDS times. Prints one line per round, the
# median wall times and rates, the spread of the per-round ratios (min, quartiles, max), and as
# its last line the median of hwcheck/iperf3 in Gb/s: ratio=<x>. The order of the two alternates
# from round to round (odd: iperf3 first), so that a drift in the host's load favours neither.
#   bench/tcp_vs_iperf3.sh [ROUNDS]     (default 7)
# Env: HWCHECK (a hwcheck binary; default: a Release build made in build-bench/), VMDIR (the VM
# image cache, default build-bench/vm), STREAMS (1), SECS (iperf3 -t and --probe-duration, 2).
# iperf3's rate is its receiver's sum (end.sum_received) per direction; hwcheck's is what its
# client measured in the steady state (to_peer: bytes written, from_peer: bytes read).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
streams=${STREAMS:-1}
secs=${SECS:-2}
command -v iperf3 >/dev/null || { echo "tcp_vs_iperf3: SKIP: iperf3 is not installed (scripts/debian-packages.txt)" >&2; exit 77; }
. bench/vm-bench.sh
bench_vm tcp_vs_iperf3

guest=$(mktemp); trap 'rm -f "$guest"' EXIT
cat > "$guest" <<'GUEST'
HW=$1 rounds=$2 streams=$3 secs=$4
command -v iperf3 >/dev/null || { echo "no iperf3 in the VM image (rebuild it with iperf3 on the host)"; exit 1; }
ip netns add srv; ip netns add cli
ip link add vs netns srv type veth peer name vc netns cli
ip -n srv addr add 192.0.2.1/24 dev vs; ip -n cli addr add 192.0.2.2/24 dev vc
for n in srv cli; do ip -n $n link set lo up; done
ip -n srv link set vs up; ip -n cli link set vc up
S="/usr/bin/ip netns exec srv"; C="/usr/bin/ip netns exec cli"
up() { cut -d' ' -f1 /proc/uptime; }
listening() {  # until port $1 (hex) listens in srv
  local i
  for i in $(seq 1 100); do
    $S cat /proc/net/tcp6 /proc/net/tcp 2>/dev/null | grep -q ":$1 [0-9A-F:]* 0A" && return 0
    sleep 0.1
  done
}
rate() {  # iperf3 -J output on stdin: the receiver's Gb/s
  tr -d ' \t\n' | grep -o '"sum_received":{[^}]*}' | grep -o '"bits_per_second":[0-9.e+]*' | cut -d: -f2 |
    awk '{printf "%.6f", $1 / 1e9}'
}
run_iperf3() {  # both directions; sets i1 i2 (Gb/s) and iw (wall s)
  local t0 t1
  timeout 120 $S iperf3 -s -1 -p 5201 > /dev/null 2>&1 & listening 1451
  t0=$(up)
  timeout 120 $C iperf3 -c 192.0.2.1 -p 5201 -P "$streams" -t "$secs" -J > /tmp/i1.json 2>/dev/null
  wait; timeout 120 $S iperf3 -s -1 -p 5201 > /dev/null 2>&1 & listening 1451
  timeout 120 $C iperf3 -c 192.0.2.1 -p 5201 -P "$streams" -t "$secs" -R -J > /tmp/i2.json 2>/dev/null
  t1=$(up); wait
  i1=$(rate < /tmp/i1.json); i2=$(rate < /tmp/i2.json); iw=$(awk -v a=$t0 -v b=$t1 'BEGIN{print b-a}')
}
run_hwcheck() {  # both directions in one run; sets h1 h2 (Gb/s) and hw (wall s)
  local t2 t3
  timeout 120 $S "$HW" probe --tcp --server > /dev/null 2>&1 & listening 4C3B
  t2=$(up)
  timeout 120 $C "$HW" probe --tcp --json --client 192.0.2.1 --probe-streams "$streams" --probe-duration "$secs" > /tmp/hw.json 2>/dev/null
  t3=$(up); wait
  # each direction's result: its first "gbps" (the per_stream ones come after it)
  h1=$(awk '/"direction": "to_peer"/ {f = 1} f && /^ *"gbps": / {gsub(/[^0-9.e+-]/, "", $2); print $2; exit}' /tmp/hw.json)
  h2=$(awk '/"direction": "from_peer"/ {f = 1} f && /^ *"gbps": / {gsub(/[^0-9.e+-]/, "", $2); print $2; exit}' /tmp/hw.json)
  hw=$(awk -v a=$t2 -v b=$t3 'BEGIN{print b-a}')
  hs=$(grep -o '"stopped": "[a-z]*"' /tmp/hw.json | cut -d'"' -f4 | head -n 2 | tr '\n' ',' | sed 's/,$//')
}
for i in $(seq 1 "$rounds"); do
  # the order alternates, so that a drift of the host's load favours neither
  if [ $((i % 2)) = 1 ]; then run_iperf3; run_hwcheck; first=iperf3; else run_hwcheck; run_iperf3; first=hwcheck; fi
  echo "round $i first=$first iperf3_to=${i1:-none} iperf3_from=${i2:-none} iperf3_s=$iw hwcheck_to=${h1:-none} hwcheck_from=${h2:-none} hwcheck_s=$hw hwcheck_stopped=${hs:-none}"
done
GUEST
out=$(HWC_VM_TIMEOUT=$((60 * rounds + 60)) tests/vm/run-in-vm.sh -b "$VMDIR" -f "$HWCHECK" "$guest" "$HWCHECK" "$rounds" "$streams" "$secs")
echo "$out"
echo "$out" | awk -v streams="$streams" -v secs="$secs" '
  function sort(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  }
  function median(a, n) {
    sort(a, n)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  /^round / {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    if (v["iperf3_to"] == "none" || v["iperf3_from"] == "none" || v["hwcheck_to"] == "none" ||
        v["hwcheck_from"] == "none" || v["iperf3_to"] + v["iperf3_from"] <= 0) { bad++; next }
    n++; r[n] = (v["hwcheck_to"] + v["hwcheck_from"]) / (v["iperf3_to"] + v["iperf3_from"])
    is[n] = v["iperf3_s"]; hs[n] = v["hwcheck_s"]
    ig[n] = v["iperf3_to"] + v["iperf3_from"]; hg[n] = v["hwcheck_to"] + v["hwcheck_from"]
  }
  END {
    if (!n) { print "tcp_vs_iperf3: no round measured both" > "/dev/stderr"; exit 1 }
    printf "rounds=%d failed=%d streams=%d secs=%d wall_s iperf3=%.2f hwcheck=%.2f (medians, both directions)\n", n, bad, streams, secs, median(is, n), median(hs, n)
    printf "gbps iperf3=%.3f hwcheck=%.3f (medians of to + from)\n", median(ig, n), median(hg, n)
    m = median(r, n)  # sorts r
    printf "spread min=%.3f q1=%.3f q3=%.3f max=%.3f (per-round hwcheck/iperf3)\n", r[1], r[int((n + 3) / 4)], r[n + 1 - int((n + 3) / 4)], r[n]
    printf "ratio=%.3f\n", m
  }'

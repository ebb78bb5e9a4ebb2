#!/bin/bash
# SPDX-License-Identifier: MIT
# hwcheck's RDMA WRITE probe against perftest's ib_write_bw, on the same soft-RoCE device in the
# same VM (tests/vm), same message size, alternating ROUNDS times. Prints one line per round,
# the median wall times, and as its last line the median of hwcheck/perftest: ratio=<x>.
#   bench/probe_vs_perftest.sh [ROUNDS]     (default 5)
# Env: HWCHECK (a hwcheck binary; default: a Release build made in build-bench/), VMDIR (the VM
# image cache, default build-bench/vm), MSG (bytes, 65536: perftest's default).
# Soft-RoCE under emulation swings with host load; that is why the runs alternate and the
# median is taken. perftest runs its default (5000 iterations); hwcheck its default duration.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
msg=${MSG:-65536}
. bench/vm-bench.sh
bench_vm probe_vs_perftest

guest=$(mktemp); trap 'rm -f "$guest"' EXIT
cat > "$guest" <<'GUEST'
HW=$1 rounds=$2 msg=$3
up() { cut -d' ' -f1 /proc/uptime; }
ip link set dummy0 mtu 9000 up
rdma link add rxe0 type rxe netdev dummy0
for i in $(seq 1 "$rounds"); do
  timeout 120 ib_write_bw -d rxe0 -x 0 -F --report_gbits -s "$msg" > /tmp/srv.log 2>&1 &
  sleep 1
  t0=$(up)
  timeout 120 ib_write_bw -d rxe0 -x 0 -F --report_gbits -s "$msg" 127.0.0.1 > /tmp/cli.log 2>&1
  t1=$(up); wait
  pg=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 {print $4}' /tmp/cli.log)
  t2=$(up)
  timeout 120 "$HW" probe --json -d rxe0 --probe-op write --probe-size "$msg" > /tmp/hw.json 2>/dev/null
  t3=$(up)
  hg=$(sed -n 's/^ *"gbps": \([0-9.e+-]*\),*$/\1/p' /tmp/hw.json | head -n1)
  echo "round $i perftest_gbps=${pg:-none} perftest_s=$(awk -v a=$t0 -v b=$t1 'BEGIN{print b-a}') hwcheck_gbps=${hg:-none} hwcheck_s=$(awk -v a=$t2 -v b=$t3 'BEGIN{print b-a}')"
done
GUEST
out=$(HWC_VM_TIMEOUT=$((60 * rounds + 60)) tests/vm/run-in-vm.sh -b "$VMDIR" -f "$HWCHECK" "$guest" "$HWCHECK" "$rounds" "$msg")
echo "$out"
echo "$out" | awk '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  /^round / {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    if (v["perftest_gbps"] == "none" || v["hwcheck_gbps"] == "none" || v["perftest_gbps"] + 0 <= 0) { bad++; next }
    n++; r[n] = v["hwcheck_gbps"] / v["perftest_gbps"]; ps[n] = v["perftest_s"]; hs[n] = v["hwcheck_s"]
  }
  END {
    if (!n) { print "probe_vs_perftest: no round measured both" > "/dev/stderr"; exit 1 }
    printf "rounds=%d failed=%d wall_s perftest=%.2f hwcheck=%.2f (medians)\n", n, bad, median(ps, n), median(hs, n)
    printf "ratio=%.3f\n", median(r, n)
  }'

# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the VM benches (probe_vs_perftest.sh, tcp_vs_iperf3.sh), from the source root:
# bench_vm NAME sets HWCHECK (a Release build without sanitizers in build-bench/, unless given:
# the comparison is of speed) and VMDIR (build-bench/vm unless given), and builds the VM image;
# it exits with build-initramfs.sh's status (77: skip) when the VM cannot be had.
bench_vm() {
  if [ -z "${HWCHECK:-}" ]; then
    cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DHWCHECK_SANITIZE=OFF -DBUILD_TESTING=OFF >/dev/null
    cmake --build build-bench -j2 --target hwcheck >/dev/null
    HWCHECK=$PWD/build-bench/cli/hwcheck
  fi
  VMDIR=${VMDIR:-$PWD/build-bench/vm}
  local rc=0
  tests/vm/build-initramfs.sh "$VMDIR" || rc=$?
  [ $rc = 0 ] || { echo "$1: cannot build the VM (exit $rc)" >&2; exit $rc; }
}

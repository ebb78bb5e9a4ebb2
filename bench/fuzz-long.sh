#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Long fuzzing of every harness (tests/fuzz/fuzz_*.c), one after the other.
# Usage: bench/fuzz-long.sh [SECONDS_EACH (default 600)] [HARNESS...]
# Builds build-fuzz (clang, -DHWCHECK_FUZZ=ON) if needed. Each harness keeps a growing corpus in
# build-fuzz/fuzz-long/<parser>/corpus (seeded from tests/fuzz/corpus/<parser>) and its crashing,
# leaking or slow inputs in build-fuzz/fuzz-long/<parser>/artifacts. Prints one line per harness
# and exits 1 if any found something.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-fuzz -DHWCHECK_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$jobs" --target hwc_fuzzers >/dev/null || { echo "fuzz-long: build failed" >&2; exit 2; }
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in tests/fuzz/fuzz_*.c; do names+=("$(basename "$f" .c)"); done
fi
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
bad=0
for name in "${names[@]}"; do
  parser=${name#fuzz_}
  bin=$(find build-fuzz -type f -name "$name" -perm -u+x | head -n1)
  [ -n "$bin" ] || { echo "$name: not built"; bad=1; continue; }
  out=build-fuzz/fuzz-long/$parser
  mkdir -p "$out/corpus" "$out/artifacts" "$out/tmp"
  rm -rf "${out:?}/tmp"/*
  [ -d "tests/fuzz/corpus/$parser" ] && cp -rn "tests/fuzz/corpus/$parser"/. "$out/corpus"/
  opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -error_exitcode=1
        -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$out/artifacts/")
  [ -f "tests/fuzz/$parser.dict" ] && opts+=(-dict="tests/fuzz/$parser.dict")
  if [ -f "tests/fuzz/$parser.options" ]; then read -r -a extra < "tests/fuzz/$parser.options"; opts+=("${extra[@]}"); fi
  TMPDIR=$out/tmp "$bin" "${opts[@]}" "$out/corpus" > "$out/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$out/log")
  if [ $rc -eq 0 ]; then
    echo "$name: ${secs}s, ${execs:-?} runs, peak RSS ${rss:-?} MB, corpus $(ls "$out/corpus" | wc -l): nothing found"
  else
    echo "$name: FOUND something (exit $rc): see $out/log and $out/artifacts/"
    bad=1
  fi
done
exit $bad

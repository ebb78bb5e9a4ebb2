#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one libFuzzer harness for a bounded time on a scratch copy of its seed corpus.
# Usage: run-short.sh FUZZER CORPUS_DIR [SECONDS [ARTIFACT_DIR]]   (paths absolute or relative)
#   SECONDS: $HWCHECK_FUZZ_SECONDS when set, else the argument, else 20.
#   $HWCHECK_FUZZ_SEED (with $HWCHECK_FUZZ_RUNS, default 20000): a reproducible run, the same
#   inputs in the same order on every machine with the same compiler; SECONDS only bounds it, and a
#   slower machine then runs a prefix of the same sequence. Without it, a fresh random seed each run
#   (exploration: `scripts/hwcheck-dev fuzz`).
#   ARTIFACT_DIR: where a crashing, leaking or slow input is kept (default: a directory beside the
#   scratch corpus that is kept only on failure).
# Uses tests/fuzz/<parser>.dict and tests/fuzz/<parser>.options when they exist.
# Exit 0 and "1 passed, 0 failed" when nothing was found; the fuzzer's report and exit 1 otherwise.
set -uo pipefail
# The fuzzer runs in a scratch directory: a path given relative to here is made absolute first.
absolute() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
[ $# -ge 2 ] || { echo "usage: $0 FUZZER CORPUS_DIR [SECONDS [ARTIFACT_DIR]]" >&2; exit 2; }
fuzzer=$(absolute "$1") corpus=$(absolute "$2")
[ -x "$fuzzer" ] || { echo "$0: $1: no such fuzzer (not an executable file)" >&2; echo "0 passed, 1 failed"; exit 1; }
[ -d "$corpus" ] || { echo "$0: $2: no such corpus directory" >&2; echo "0 passed, 1 failed"; exit 1; }
secs=${HWCHECK_FUZZ_SECONDS:-${3:-20}}
name=$(basename "$fuzzer")
parser=${name#fuzz_}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
artifacts=$(absolute "${4:-$work/artifacts}")
mkdir -p "$artifacts" "$work/corpus" "$work/tmp"
export TMPDIR=$work/tmp # scratch roots of the harnesses go too, even after a crash
cp -r "$corpus"/. "$work/corpus"/
opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536
      -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1
      -artifact_prefix="$artifacts/")
if [ -n "${HWCHECK_FUZZ_SEED:-}" ]; then
  opts+=(-seed="$HWCHECK_FUZZ_SEED" -runs="${HWCHECK_FUZZ_RUNS:-20000}")
fi
[ -f "$here/$parser.dict" ] && opts+=(-dict="$here/$parser.dict")
if [ -f "$here/$parser.options" ]; then
  read -r -a extra < "$here/$parser.options"
  opts+=("${extra[@]}")
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$work" || exit 1
"$fuzzer" "${opts[@]}" "$work/corpus" > "$work/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  tail -n 60 "$work/log"
  echo "$name: libFuzzer exit $rc; inputs kept in $artifacts:"
  ls -l "$artifacts" 2>/dev/null
  [ "$artifacts" = "$work/artifacts" ] && { kept=$(mktemp -d /tmp/hwc-fuzz-XXXXXX); cp -r "$artifacts"/. "$kept"/; echo "(copied to $kept)"; }
  rm -rf "$work"
  echo "0 passed, 1 failed"
  exit 1
fi
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' "$work/log"
echo "$name: $secs s, corpus $(find "$corpus" -type f | wc -l) seeds -> $(find "$work/corpus" -type f | wc -l) inputs, nothing found"
rm -rf "$work"
echo "1 passed, 0 failed"

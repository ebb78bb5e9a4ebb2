#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one libFuzzer harness for SECONDS on a scratch copy of its seed corpus.
# Usage: run-short.sh FUZZER CORPUS_DIR SECONDS
set -euo pipefail
fuzzer=$1 corpus=$2 secs=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$corpus"/. "$work"/
cd "$work"
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
  "$work" 2>&1 | tail -n 15
echo "1 passed, 0 failed"

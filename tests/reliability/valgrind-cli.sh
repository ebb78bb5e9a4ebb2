#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hwcheck under valgrind: every run must be free of memory errors and definite/indirect leaks
# (valgrind exit 99); hwcheck's own exit code must be the expected one.
# Usage: valgrind-cli.sh VALGRIND HWCHECK SOURCE_DIR
set -uo pipefail
vg=$1 hw=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
run() { # expected-exit args...
  local want=$1; shift
  "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect -q "$hw" "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc -eq "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL (exit $rc, expected $want): hwcheck $*"; tail -n 40 "$tmp/err"
  fi
}
run 0 --help
run 0 facts --json -o "$tmp/facts.json"
run 1 check --json
run 1 --facts "$tmp/facts.json" check --json
printf '{"schema": "hwcheck.facts",\n "facts": {,}}' > "$tmp/bad.json"
run 2 --facts "$tmp/bad.json"
run 0 --timeout 30 snapshot --redact -o "$tmp/host.tar"
# --watch: the live wait and samples, and the replay of a capture made with it
run 0 facts --json --watch 1
run 0 --root "$src/tests/fixtures/watch-ib-cx7-saturated/root" facts --json
run 0 --root "$src/tests/fixtures/watch-eth-mlx5-100g/root" facts --json --watch 5
for root in "$src"/tests/fixtures/broken-*/root; do
  [ -d "$root" ] || continue
  "$hw" --root "$root" facts --json > /dev/null 2>&1
  run $? --root "$root" facts --json
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

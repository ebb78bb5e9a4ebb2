# SPDX-License-Identifier: MIT
# Sourced by the guest scripts of the probe's VM tests. `case NAME CMD...` runs CMD with a
# time limit and prints, for the host side (vm_probe.py) to parse:
#   @@@case NAME RC / @@@stdout / ... / @@@stderr / ... / @@@end
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LC_ALL=C
run_case() {
  local name=$1; shift
  timeout 120 "$@" > /tmp/case.out 2> /tmp/case.err
  emit "$name" $? /tmp/case.out /tmp/case.err
}
emit() {
  printf '@@@case %s %s\n@@@stdout\n' "$1" "$2"; cat "$3"
  printf '\n@@@stderr\n'; cat "$4"; printf '\n@@@end\n'
}

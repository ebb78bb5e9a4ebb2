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
# wait_cm WORDS: until an rdma_cm id in that state exists (20 s at most): under host load a
# sanitized hwcheck may take seconds to start listening or connecting, and a fixed sleep races.
wait_cm() {
  local i
  for i in $(seq 1 100); do
    rdma res show cm_id 2>/dev/null | grep -q "$1" && return 0
    sleep 0.2
  done
  echo "wait_cm: no rdma_cm id in '$1' after 20 s" >&2
  return 1
}
# stamp: the time as `ip -ts monitor` prints it, [YYYY-MM-DDTHH:MM:SS.usec]
stamp() {
  local t=$EPOCHREALTIME
  printf '[%(%Y-%m-%dT%H:%M:%S)T.%s]' "${t%.*}" "${t#*.}"
}
# ns_out DEV: neighbour solicitations DEV has sent since it was created
ns_out() {
  awk '$1 == "Icmp6OutNeighborSolicits" {print $2}' "/proc/net/dev_snmp6/$1"
}
# wait_neigh_failed ADDR DEV NS0: until DEV's neighbour entry of ADDR has failed (20 s at most),
# NS0 being ns_out DEV before ADDR was first asked. Failed shows as the state FAILED, or as more
# solicitations than DEV's mcast_solicit since NS0 (a failed entry is solicited again, and leaves
# FAILED, as soon as it is asked again: a client that asks in steps keeps it FAILED for less than
# a step, and polling alone can miss that). Prints what it saw, stamped.
wait_neigh_failed() {
  local i st n max
  max=$(sysctl -n "net.ipv6.neigh.$2.mcast_solicit")
  for i in $(seq 1 100); do
    st=$(ip -6 neigh show "$1" dev "$2" 2>/dev/null)
    n=$(( $(ns_out "$2") - $3 ))
    if [[ $st == *FAILED* ]] || [ "$n" -gt "$max" ]; then
      echo "$(stamp) $1 on $2 failed: '$st', $n solicitations (mcast_solicit $max)"
      return 0
    fi
    sleep 0.2
  done
  echo "wait_neigh_failed: $1 on $2 not failed after 20 s: '$st', $n solicitations (mcast_solicit $max)"
  return 1
}
# wait_no_tentative: until no IPv6 address is tentative (duplicate address detection done), 20 s
# at most: an address in DAD neither sources nor answers neighbour solicitations
wait_no_tentative() {
  local i
  for i in $(seq 1 100); do
    [ -z "$(ip -6 addr show tentative)" ] && return 0
    sleep 0.2
  done
  echo "wait_no_tentative: still tentative after 20 s: $(ip -6 addr show tentative)" >&2
  return 1
}
# wait_listen: until a TCP socket listens on 19515 (0x4C3B) in the namespace that $S enters
# ("ip netns exec NS"; empty: this one), 20 s at most
wait_listen() {
  local i
  for i in $(seq 1 100); do
    $S cat /proc/net/tcp6 /proc/net/tcp 2>/dev/null | grep -q ':4C3B [0-9A-F:]* 0A' && return 0
    sleep 0.2
  done
  echo "wait_listen: nothing listens on 19515 after 20 s" >&2
  return 1
}

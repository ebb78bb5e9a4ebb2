# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py tcp: hwcheck probe --tcp between two network namespaces joined by a
# veth pair (TCP, unlike soft-RoCE, lives in its namespace: the payload really crosses the pair).
HW=$1  # guest_lib.sh is prepended by vm_probe.py
ip netns add srv
ip netns add cli
ip link add vs netns srv type veth peer name vc netns cli
ip -n srv addr add 192.0.2.1/24 dev vs
ip -n cli addr add 192.0.2.2/24 dev vc
for n in srv cli; do ip -n $n link set lo up; done
ip -n srv link set vs up
ip -n cli link set vc up
S="/usr/bin/ip netns exec srv"  # not busybox's ip: its timeout prefers applets
C="/usr/bin/ip netns exec cli"
run_case usage_no_peer $HW probe --tcp --json
run_case bad_streams $HW probe --tcp --client 192.0.2.1 --probe-streams 0
timeout 120 $S $HW probe --tcp --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_listen
run_case port_in_use $S $HW probe --tcp --json --server
rx0=$($S cat /sys/class/net/vs/statistics/rx_bytes)
run_case client $C $HW probe --tcp --json --client 192.0.2.1 --probe-duration 1
rx1=$($S cat /sys/class/net/vs/statistics/rx_bytes)
wait $sp; emit server $? /tmp/server.out /tmp/server.err
echo $((rx1 - rx0)) > /tmp/rx; : > /tmp/empty; emit vs_rx_bytes 0 /tmp/rx /tmp/empty
# three streams, the text report (and the server's)
timeout 120 $S $HW probe --tcp --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_listen
run_case client_text $C $HW probe --tcp --client 192.0.2.1 --probe-streams 3 --probe-duration 0.5 -v
wait $sp; emit server_text $? /tmp/server.out /tmp/server.err
run_case no_listener $C $HW probe --tcp --json --client 192.0.2.1
run_case no_route $C $HW probe --tcp --json --client 198.51.100.7
run_case bad_host $C $HW probe --tcp --json --client no.such.host.invalid
run_case no_client $S $HW probe --tcp --json --server --timeout 3
# the server dies mid-run
timeout 120 $S $HW probe --tcp --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_listen
timeout 120 $C $HW probe --tcp --json --client 192.0.2.1 --probe-duration 30 > /tmp/c.out 2> /tmp/c.err & cp=$!
# until the client's streams are connected (ESTABLISHED, 01, on 19515), then a moment of payload
for i in $(seq 1 100); do
  [ "$($S cat /proc/net/tcp6 /proc/net/tcp 2>/dev/null | grep -c ':4C3B [0-9A-F:]* 01')" -ge 2 ] && break
  sleep 0.2
done
sleep 1.5
kill -9 $sp; wait $cp; emit peer_gone $? /tmp/c.out /tmp/c.err
true

# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py twohost: server and client over librdmacm. Soft-RoCE in Debian's 6.1
# cannot carry rdma_cm between two rxe devices inside one VM (docs/probe.md, "Testing"), so both
# ends share rxe0 on dummy0 and an address from RFC 5737 that exists only in the VM.
HW=$1  # guest_lib.sh is prepended by vm_probe.py
ip link set dummy0 mtu 9000 up
ip addr add 192.0.2.1/24 dev dummy0
rdma link add rxe0 type rxe netdev dummy0
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
sleep 1
run_case port_in_use $HW probe --json --server
run_case client $HW probe --json --client 192.0.2.1 --probe-duration 0.5
wait $sp; emit server $? /tmp/server.out /tmp/server.err
run_case no_listener $HW probe --json --client 192.0.2.1 --probe-op write
run_case no_route $HW probe --json --client 198.51.100.7 --probe-op write
run_case bad_host $HW probe --json --client no.such.host.invalid --probe-op write
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
sleep 1
timeout 120 $HW probe --json --client 192.0.2.1 --probe-op write --probe-duration 30 > /tmp/c.out 2> /tmp/c.err & cp=$!
sleep 3; kill -9 $sp; wait $cp; emit peer_gone $? /tmp/c.out /tmp/c.err
true

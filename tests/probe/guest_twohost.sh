# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py twohost: server and client over librdmacm, on two rxe devices at the
# two ends of a veth pair, so the RoCE packets really cross a link. Soft-RoCE in Debian's 6.1
# keeps its UDP socket in init_net, so the ends cannot be in separate network namespaces; in one
# namespace IPv4 addresses are both local and never leave the host, but IPv6 link-local
# addresses are scoped to their link (docs/probe.md, "Testing").
HW=$1  # guest_lib.sh is prepended by vm_probe.py
SRV='fe80::ff:fe00:1%veth1'    # veth0's address, reached through veth1
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip link add veth0 type veth peer name veth1
ip link set veth0 address 02:00:00:00:00:01
ip link set veth1 address 02:00:00:00:00:02
ip link set veth0 mtu 9000 up
ip link set veth1 mtu 9000 up
rdma link add rxes type rxe netdev veth0
rdma link add rxec type rxe netdev veth1
# A peer whose neighbour entry failed, then answers (probe/cm.c resolve_addr): the client asks
# for fe80::2:3 before any interface has it; its one solicitation (mcast_solicit 1 on veth1: the
# entry fails after 1 s, not 3) goes unanswered and the entry is FAILED, which the kernel solicits
# again only when the address is asked again; then veth0 gets the address. One 10 s request
# sleeps to its end with nobody asking (only a neighbour turning valid wakes it, linux
# drivers/infiniband/core/addr.c netevent_callback); the client's 1 s steps ask again and find it.
# The first case, so that no other neighbour entry exists whose update would wake that request.
: > /tmp/empty
sysctl -qw net.ipv6.neigh.veth1.mcast_solicit=1
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_cm "state LISTEN"
ns0=$(ns_out veth1)
ip -ts monitor neigh dev veth1 > /tmp/neigh.log 2>&1 & mp=$!  # the entry's states, timed
timeout 120 $HW probe --json --client 'fe80::2:3%veth1' --probe-op write --probe-duration 0.3 > /tmp/c.out 2> /tmp/c.err & cp=$!
echo "$(stamp) client started" > /tmp/w.out
wait_neigh_failed fe80::2:3 veth1 "$ns0" >> /tmp/w.out; wr=$?
ip addr add fe80::2:3/64 dev veth0 nodad
echo "$(stamp) fe80::2:3 added on veth0" >> /tmp/w.out
wait $cp; cr=$?
echo "$(stamp) client exited $cr" >> /tmp/w.out
kill $mp; wait $mp 2>/dev/null; cat /tmp/neigh.log >> /tmp/w.out
[ $cr = 0 ] || kill $sp  # else it waits 60 s for a client that gave up
emit late_neighbour_wait $wr /tmp/w.out /tmp/empty
emit late_neighbour $cr /tmp/c.out /tmp/c.err
wait $sp; emit late_neighbour_server $? /tmp/server.out /tmp/server.err
ip addr del fe80::2:3/64 dev veth0
sysctl -qw net.ipv6.neigh.veth1.mcast_solicit=3
# the cases of a peer that answers
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_cm "state LISTEN"
run_case port_in_use $HW probe --json --server
tx0=$(cat /sys/class/net/veth1/statistics/tx_bytes)
run_case client $HW probe --json --client "$SRV" --probe-duration 0.5
tx1=$(cat /sys/class/net/veth1/statistics/tx_bytes)
run_case rxe_counters rdma statistic show  # retries, RNR NAKs: printed by vm_probe.py
wait $sp; emit server $? /tmp/server.out /tmp/server.err
echo $((tx1 - tx0)) > /tmp/tx; emit veth1_tx_bytes 0 /tmp/tx /tmp/empty
# several QPs (one rdma_cm connection each), small messages (CQ moderation)
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_cm "state LISTEN"
run_case client_qps $HW probe --json --client "$SRV" --probe-op write,send --probe-qps 3 --probe-size 1000 --probe-depth 64 --probe-duration 0.3
wait $sp; emit server_qps $? /tmp/server.out /tmp/server.err
run_case no_listener $HW probe --json --client "$SRV" --probe-op write
run_case no_route $HW probe --json --client 198.51.100.7 --probe-op write
run_case bad_host $HW probe --json --client no.such.host.invalid --probe-op write
timeout 120 $HW probe --json --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_cm "state LISTEN"
timeout 120 $HW probe --json --client "$SRV" --probe-op write --probe-duration 30 > /tmp/c.out 2> /tmp/c.err & cp=$!
wait_cm "state CONNECT"; sleep 1.5   # connected and sending: now the server dies
kill -9 $sp; wait $cp; emit peer_gone $? /tmp/c.out /tmp/c.err
true

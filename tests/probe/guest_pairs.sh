# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py pairs (run-in-vm.sh -t pairs: the rails tree, root port 00:02.0 ->
# XIO3130 switch -> eth0, eth1; 00:03.0 -> eth2; 00:04.0 -> eth3; hubs eth0-eth2, eth1-eth3):
# two-host --all-ports, eth0 and eth1 (the client's ports, sharing the link at 00:02.0) paired
# with eth2 and eth3 (the server's). RDMA first, in one namespace (rxe keeps its UDP socket in
# init_net), through IPv6 link-local addresses scoped to the client's port; then TCP with the
# server's two NICs moved into their own namespace, one IPv4 subnet per pair.
HW=$1  # guest_lib.sh is prepended by vm_probe.py
# No duplicate address detection: the NICs exist from boot, and "all"/"default" do not reach an
# existing interface (the kernel skips DAD only when both "all" and the interface's own
# accept_dad are 0, addrconf_dad_begin), so each interface's own setting goes too
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
for n in eth0 eth1 eth2 eth3; do
  sysctl -qw "net.ipv6.conf.$n.accept_dad=0"
  ip link set "$n" up
  rdma link add "rxe_$n" type rxe netdev "$n"
done
S2=fe80::5054:ff:fe00:103 S3=fe80::5054:ff:fe00:104   # eth2's and eth3's link-local addresses
ip addr add fe80::2:2/64 dev eth2 nodad                # eth2 a second time (the failure case)
wait_no_tentative
PAIRS="$S2%eth0,$S3%eth1"
# Little in flight (4 x 16 KiB per QP): rxe over virtio-net under TCG loses packets when the
# receive ring overflows, and Debian 6.1's rxe mishandles the retransmitted RDMA WRITEs ("remote
# invalid request", data that differs): the test is of the pairing, not of rxe's recovery.
R="--probe-size 16384 --probe-depth 4"
server() {  # an RDMA server in the background, listening
  timeout 120 $HW probe --json --all-ports --server > /tmp/server.out 2> /tmp/server.err & sp=$!
  wait_cm "state LISTEN"
}
server
run_case rdma $HW probe --json --all-ports --client "$PAIRS" $R --probe-op write,send --probe-duration 1
wait $sp; emit rdma_server $? /tmp/server.out /tmp/server.err
run_case rxe_counters rdma statistic show  # retries, RNR NAKs: printed by vm_probe.py
server
run_case rdma_text $HW probe --all-ports --client "$PAIRS" $R --probe-op read --probe-duration 0.3
wait $sp; emit rdma_text_server $? /tmp/server.out /tmp/server.err
# two of the server's addresses, both reached through eth0 (and both on eth2): the ports do not pair
server
run_case rdma_same_port $HW probe --json --all-ports --client "$S2%eth0,fe80::2:2%eth0" $R --probe-op write --probe-duration 0.3
wait $sp; emit rdma_same_port_server $? /tmp/server.out /tmp/server.err
run_case one_addr $HW probe --all-ports --client "$S2%eth0"
# TCP: the server's NICs in a namespace of their own, the payload crosses the hub
rdma link delete rxe_eth2; rdma link delete rxe_eth3
ip netns add srv
ip link set eth2 netns srv; ip link set eth3 netns srv
S="/usr/bin/ip netns exec srv"

ip -n srv addr add 192.0.2.1/24 dev eth2; ip -n srv addr add 198.51.100.1/24 dev eth3
ip -n srv link set lo up; ip -n srv link set eth2 up; ip -n srv link set eth3 up
ip addr add 192.0.2.2/24 dev eth0; ip addr add 198.51.100.2/24 dev eth1
timeout 120 $S $HW probe --tcp --json --all-ports --server > /tmp/server.out 2> /tmp/server.err & sp=$!
wait_listen
run_case tcp $HW probe --tcp --json --all-ports --client 192.0.2.1,198.51.100.1 --probe-streams 2 --probe-duration 0.5
wait $sp; emit tcp_server $? /tmp/server.out /tmp/server.err
run_case tcp_no_server $HW probe --tcp --json --all-ports --client 192.0.2.1,198.51.100.1
true

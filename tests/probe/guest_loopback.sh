# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py loopback: the probe on real soft-RoCE verbs, one device.
HW=$1  # guest_lib.sh is prepended by vm_probe.py
run_case no_device $HW probe --json
ip link set dummy0 mtu 9000 up
rdma link add rxe0 type rxe netdev dummy0
# a second device whose netdev stays down: its port is DOWN
ip link add vethd0 type veth peer name vethd1
rdma link add rxed type rxe netdev vethd0
run_case loopback $HW probe --json -d rxe0 --probe-duration 0.5
run_case options $HW probe --json -d rxe0 --probe-op read,send --probe-qps 2 --probe-depth 16 --probe-size 4000 --probe-duration 0.3
# small messages: one completion every 32 work requests, the tail signalled when the run ends
run_case small $HW probe --json -d rxe0 --probe-op write,read,send --probe-size 64 --probe-duration 0.3
# rxe on lo: GID 0 (from lo's all-zero MAC) cannot carry traffic; the IPv4-mapped one can
rdma link add rxelo type rxe netdev lo
run_case on_lo $HW probe --json -d rxelo --probe-op write --probe-duration 0.3
run_case port_down $HW probe --json -d rxed --probe-op write
run_case text $HW probe -d rxe0 --probe-op write --probe-duration 0.3
run_case check $HW check --json --probe --probe-op write -d rxe0 --probe-duration 0.3
run_case no_match $HW probe --json -d nosuchdev
true

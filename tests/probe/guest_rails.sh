# SPDX-License-Identifier: MIT
# Guest side of vm_probe.py rails (run-in-vm.sh -t rails: q35, root port 00:02.0 -> XIO3130
# switch -> eth0, eth1; root port 00:03.0 -> eth2): rxe on each virtio-net NIC, so the probe's
# targets have live multi-hop PCIe paths; the PCIe ceiling, --all-ports, and the whole check.
HW=$1  # guest_lib.sh is prepended by vm_probe.py
for n in eth0 eth1 eth2; do
  ip link set "$n" up
  rdma link add "rxe_$n" type rxe netdev "$n"
done
run_case sysfs bash -c 'for d in /sys/bus/pci/devices/*; do echo "$(basename "$d") $(cat "$d/current_link_speed" 2>/dev/null)/x$(cat "$d/current_link_width" 2>/dev/null) max $(cat "$d/max_link_speed" 2>/dev/null)/x$(cat "$d/max_link_width" 2>/dev/null)"; done; for n in eth0 eth1 eth2; do echo "$n $(readlink -f /sys/class/net/$n/device) $(cat /sys/class/net/$n/speed)"; done'
run_case facts $HW facts --json
run_case check $HW check --json
run_case check_text $HW check
run_case pcie $HW probe --json -d rxe_eth0 --probe-op write --probe-duration 0.5
run_case all_ports $HW probe --json --all-ports --probe-op write --probe-duration 0.5
run_case all_ports_text $HW probe --all-ports --probe-op write,read --probe-duration 0.3
run_case all_ports_client $HW probe --json --all-ports --client 192.0.2.1
true

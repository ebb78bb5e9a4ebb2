#!/bin/bash
# SPDX-License-Identifier: MIT
# Boots the soft-RoCE test VM (tests/vm/build-initramfs.sh) and runs a bash script inside it.
#   run-in-vm.sh -b VMDIR [-f FILE]... [-t rails|pairs] SCRIPT [ARG...]
# FILE (e.g. the hwcheck binary) is copied in at the same path with the shared libraries ldd
# lists for it (a sanitizer build brings libasan/libubsan that way). SCRIPT runs as
# `bash SCRIPT ARG...` in /tmp; its output is printed and its exit status returned: 124 when
# the VM ran past HWC_VM_TIMEOUT (s, default 300), 125 when it ended without reporting one.
# -t rails: a q35 machine with a PCIe tree in front of three virtio-net NICs (see rails_args):
# the guest kernel's sysfs then has real multi-hop PCIe paths for the netdevs rxe runs on.
# Learned from the lab recipe in ../shared/lab/rxe-vm.
set -euo pipefail
vm= files=() topo=
while getopts b:f:t: o; do
  case $o in
    b) vm=$OPTARG ;;
    f) files+=("$(realpath "$OPTARG")") ;;
    t) topo=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -n "$vm" ] && [ $# -ge 1 ] || { echo "usage: run-in-vm.sh -b VMDIR [-f FILE]... SCRIPT [ARG...]" >&2; exit 2; }
script=$(realpath "$1"); shift

w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
x=$w/x; mkdir -p "$x"
cp "$script" "$x/test.sh"
{ printf 'cd /tmp\nexec bash /test.sh'; printf ' %q' "$@"; printf '\n'; } > "$x/cmd.sh"
# The image's own libraries are skipped, the rest go in under their real path: an archive entry
# like lib/ would replace the image's lib -> usr/lib symlink when the kernel unpacks it.
for f in "${files[@]}"; do
  for p in "$f" $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
    [ "$p" != "$f" ] && [ -e "$vm/root$p" ] && continue
    r=$(realpath "$p"); mkdir -p "$x$(dirname "$r")"; cp "$r" "$x$r"
    # the loader looks for the soname (libasan.so.8), the file is libasan.so.8.0.0
    l=$x$(dirname "$r")/$(basename "$p")
    [ -e "$l" ] || ln -s "$(basename "$r")" "$l"
  done
done
# A second gzip'd cpio appended to the image: the kernel unpacks each in turn.
(cd "$x" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$w/extra.cpio.gz"
cat "$vm/initramfs.cpio.gz" "$w/extra.cpio.gz" > "$w/initrd"

# The rails tree (QEMU 7.2): root port rp1 (Gen3 x4 by x-speed/x-width) -> a TI XIO3130 switch
# (its ports are Gen1 x1: QEMU gives them no speed properties) -> two virtio-net NICs; root port
# rp2 (Gen4 x16) -> a third NIC alone. The NICs hang off one QEMU hub, so they reach each other.
# disable-legacy=on makes them PCIe endpoints (modern virtio only), speed= is what ethtool (and
# so rxe's port rate) reports.
machine=(-machine pc)
if [ "$topo" = rails ] || [ "$topo" = pairs ]; then
  hub2=0; [ "$topo" = pairs ] && hub2=1
  nic=virtio-net-pci,disable-legacy=on,speed=100000,duplex=full
  machine=(-machine q35
    -device pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1,addr=0x2,x-speed=8,x-width=4
    -device x3130-upstream,id=up1,bus=rp1
    -device xio3130-downstream,id=dp1,bus=up1,chassis=2,slot=0
    -device xio3130-downstream,id=dp2,bus=up1,chassis=3,slot=1
    -device pcie-root-port,id=rp2,bus=pcie.0,chassis=4,slot=2,addr=0x3,x-speed=16,x-width=16
    -netdev hubport,id=n1,hubid=0 -netdev hubport,id=n2,hubid=$hub2 -netdev hubport,id=n3,hubid=0
    -device $nic,netdev=n1,bus=dp1,mac=52:54:00:00:01:01
    -device $nic,netdev=n2,bus=dp2,mac=52:54:00:00:01:02
    -device $nic,netdev=n3,bus=rp2,mac=52:54:00:00:01:03)
  # pairs: the rails tree and a fourth NIC eth3 behind its own root port 00:04.0 (bus 6); two
  # hubs as two cables, eth0 - eth2 and eth1 - eth3: the client's ports (behind the switch) pair
  # with the server's for two-host --all-ports, and no frame floods a third NIC.
  [ "$topo" = pairs ] && machine+=(
    -device pcie-root-port,id=rp3,bus=pcie.0,chassis=5,slot=3,addr=0x4,x-speed=16,x-width=16
    -netdev hubport,id=n4,hubid=1
    -device $nic,netdev=n4,bus=rp3,mac=52:54:00:00:01:04)
elif [ -n "$topo" ]; then
  echo "run-in-vm: unknown topology '$topo' (rails, pairs)" >&2; exit 2
fi
# TCG unless HWC_VM_KVM=1: on this project's (nested) machines /dev/kvm exists but the guest
# kernel dies at once with "KVM internal error ... emulation failure", and waits out the timeout.
accel=(-accel tcg -cpu qemu64)
if [ "${HWC_VM_KVM:-0}" = 1 ]; then
  accel=(-accel kvm -cpu host)
fi
# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can miss its
# ticks and panic ("IO-APIC + timer doesn't work!"), seen once in the twohost test.
rc=0
timeout "${HWC_VM_TIMEOUT:-300}" qemu-system-x86_64 "${machine[@]}" "${accel[@]}" -m "${HWC_VM_MEM:-1G}" \
  -smp "${HWC_VM_SMP:-2}" -nodefaults -no-user-config -display none -no-reboot \
  -kernel "$vm/vmlinux" -initrd "$w/initrd" \
  -append "console=ttyS0 quiet panic=-1 oops=panic no_timer_check" \
  -serial "file:$w/console.log" -serial "file:$w/out.log" || rc=$?
[ -n "${HWC_VM_CONSOLE:-}" ] && cp "$w/console.log" "$HWC_VM_CONSOLE"
tr -d '\r' < "$w/out.log" > "$w/out"
m=$(grep -abo '^HWC_VM_EXIT=[0-9]*$' "$w/out" | tail -n 1 || true)
if [ -n "$m" ]; then
  head -c $((${m%%:*} - 1)) "$w/out"
  exit "${m##*=}"
fi
cat "$w/out"
echo "run-in-vm: the VM reported no exit status (qemu exit $rc); console:" >&2
tail -n 30 "$w/console.log" >&2
[ "$rc" = 124 ] && exit 124
exit 125

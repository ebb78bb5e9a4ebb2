#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of hwcheck's soft-RoCE test VM (tests/vm/build-initramfs.sh puts it there).
export PATH=/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
echo "HWC_VM: /init, uptime $(cut -d' ' -f1 /proc/uptime)"
ip link set lo up
# crc32_generic first: rxe asks the crypto API for "crc32" when a device is created.
modprobe -a crc32_generic rdma_rxe rdma_ucm veth dummy vrf virtio_pci virtio_net
stty -F /dev/ttyS1 raw -echo
if [ -f /cmd.sh ]; then
  (cd /tmp && bash /cmd.sh) </dev/null >/dev/ttyS1 2>&1; rc=$?
else
  echo "no /cmd.sh" >/dev/ttyS1; rc=127
fi
# On a line of its own even when the command's output did not end in a newline.
printf '\nHWC_VM_EXIT=%s\n' "$rc" >/dev/ttyS1
echo "HWC_VM: exit $rc, uptime $(cut -d' ' -f1 /proc/uptime)"
poweroff -f

#!/bin/bash
# SPDX-License-Identifier: MIT
# Boots the soft-RoCE test VM (tests/vm/build-initramfs.sh) and runs a bash script inside it.
#   run-in-vm.sh -b VMDIR [-f FILE]... SCRIPT [ARG...]
# FILE (e.g. the hwcheck binary) is copied in at the same path with the shared libraries ldd
# lists for it (a sanitizer build brings libasan/libubsan that way). SCRIPT runs as
# `bash SCRIPT ARG...` in /tmp; its output is printed and its exit status returned: 124 when
# the VM ran past HWC_VM_TIMEOUT (s, default 300), 125 when it ended without reporting one.
# Learned from the lab recipe in ../shared/lab/rxe-vm.
set -euo pipefail
vm= files=()
while getopts b:f: o; do
  case $o in
    b) vm=$OPTARG ;;
    f) files+=("$(realpath "$OPTARG")") ;;
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

# TCG unless HWC_VM_KVM=1: on this project's (nested) machines /dev/kvm exists but the guest
# kernel dies at once with "KVM internal error ... emulation failure", and waits out the timeout.
accel=(-accel tcg -cpu qemu64)
if [ "${HWC_VM_KVM:-0}" = 1 ]; then
  accel=(-accel kvm -cpu host)
fi
rc=0
timeout "${HWC_VM_TIMEOUT:-300}" qemu-system-x86_64 "${accel[@]}" -m "${HWC_VM_MEM:-1G}" \
  -smp "${HWC_VM_SMP:-2}" -nodefaults -no-user-config -display none -no-reboot \
  -kernel "$vm/vmlinux" -initrd "$w/initrd" \
  -append "console=ttyS0 quiet panic=-1 oops=panic" \
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

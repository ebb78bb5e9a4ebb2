#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the soft-RoCE test VM for hwcheck's verbs tests: a Debian kernel (fetched with
# `apt-get download`, unpacked, never installed) and an initramfs with busybox, bash, iproute2,
# the rdma_rxe / rdma_cm modules, libibverbs + the rxe provider, and perftest (the peer the bench
# compares against).
#   build-initramfs.sh OUTDIR
# Writes OUTDIR/vmlinux and OUTDIR/initramfs.cpio.gz; keeps the kernel .deb in OUTDIR/cache so a
# rebuild does not download it again. Does nothing when OUTDIR/stamp matches this script.
# Exit 77 (the CTest skip code) with the reason when the kernel or a tool cannot be had.
# Learned from ../shared/lab/rxe-vm (NOTES.md): crc32_generic must be loaded before rdma_rxe;
# rdma_cm needs configfs (hence the whole module tree is unpacked to resolve dependencies);
# busybox sh runs its own `ip` before PATH, so the test command runs under bash; the bare ELF
# vmlinux boots through qemu's PVH entry and skips seconds of xz under emulation.
set -euo pipefail
OUT=$(realpath -m "${1:?usage: build-initramfs.sh OUTDIR}")
HERE=$(dirname "$(realpath "$0")")
skip() { echo "build-initramfs: SKIP: $*" >&2; exit 77; }

stamp=$(cat "$0" "$HERE/init.sh" | sha256sum | cut -c1-16)
mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9             # VM tests run in parallel under ctest -j: one builds, the others wait
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp" ] &&
   [ -s "$OUT/vmlinux" ] && [ -s "$OUT/initramfs.cpio.gz" ]; then
  exit 0
fi

for t in qemu-system-x86_64 busybox cpio depmod modprobe xz dpkg-deb apt-cache ldconfig ib_write_bw rdma ip; do
  command -v "$t" >/dev/null || skip "$t is not installed (scripts/debian-packages.txt)"
done
mkdir -p "$OUT/cache"

# 1. The kernel linux-image-amd64 points at, .deb cached.
KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$KPKG" ] || skip "apt-cache does not know linux-image-amd64 (run apt-get update)"
KVER=${KPKG#linux-image-}
deb=$(ls "$OUT/cache/${KPKG}"_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ]; then
  (cd "$OUT/cache" && apt-get download "$KPKG" >/dev/null 2>"$OUT/cache/download.log") ||
    skip "cannot download $KPKG: $(tail -n1 "$OUT/cache/download.log")"
  deb=$(ls "$OUT/cache/${KPKG}"_*.deb | head -n1)
fi
K=$OUT/kernel
rm -rf "$K"; mkdir -p "$K"
# All of lib/modules, so that --show-depends sees every dependency (configfs for rdma_cm).
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$K" --wildcards "./boot/vmlinuz-*" "./lib/modules/*"
depmod -b "$K" "$KVER"
# The bzImage's payload is an xz stream: cut it out to get the ELF qemu boots through PVH.
vmlinuz=$K/boot/vmlinuz-$KVER
off=$(LC_ALL=C grep -m1 -abo $'\xfd7zXZ' "$vmlinuz" | cut -d: -f1)
{ tail -c +$((off + 1)) "$vmlinuz" || true; } | xz -dc --single-stream > "$OUT/vmlinux.tmp"
mv "$OUT/vmlinux.tmp" "$OUT/vmlinux"

# 2. The root: Debian's merged /usr layout, so the host's ldd paths hold inside.
R=$OUT/root
rm -rf "$R"
mkdir -p "$R"/{usr/bin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,proc,sys,dev,tmp,run,var}
for d in bin lib lib64; do ln -s usr/$d "$R/$d"; done
ln -s bin "$R/usr/sbin"; ln -s usr/bin "$R/sbin"; ln -s ../run "$R/var/run"
put() {  # put FILE...: FILE at the same path, plus the libraries ldd lists for it
  local f l
  for f in "$@"; do
    mkdir -p "$R$(dirname "$f")"; cp -L "$f" "$R$f"
    for l in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
      [ -e "$R$l" ] || { mkdir -p "$R$(dirname "$l")"; cp -L "$l" "$R$l"; }
    done
  done
}
ML=/usr/lib/x86_64-linux-gnu
prov=$(ls "$ML"/libibverbs/librxe-rdmav*.so | head -n1)
put /usr/bin/bash /usr/bin/ip /usr/bin/rdma /usr/bin/ibv_devinfo /usr/bin/ib_write_bw \
    /usr/bin/ib_read_bw /usr/bin/ib_send_bw "$prov"
# iperf3: the TCP probe's bench (bench/tcp_vs_iperf3.sh); optional, the tests do not need it
if command -v iperf3 >/dev/null; then put "$(command -v iperf3)"; fi
mkdir -p "$R/etc/libibverbs.d"; cp /etc/libibverbs.d/rxe.driver "$R/etc/libibverbs.d/"
echo "$ML" > "$R/etc/ld.so.conf"
ldconfig -r "$R"
cp "$(command -v busybox)" "$R/usr/bin/busybox"
for a in $("$R/usr/bin/busybox" --list); do
  [ -e "$R/usr/bin/$a" ] || ln -s busybox "$R/usr/bin/$a"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$R/etc/passwd"
printf '127.0.0.1 localhost\n' > "$R/etc/hosts"

# 3. Modules. crc32_generic is requested by rxe at device creation (no modinfo dependency).
#    vrf only for re-running the two-host experiments docs/probe.md records; virtio_pci and
#    virtio_net for the q35 machine with a PCIe tree (run-in-vm.sh -t rails).
for m in rdma_rxe crc32_generic rdma_ucm veth dummy vrf virtio_pci virtio_net; do
  for ko in $(modprobe -d "$K" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'); do
    rel=${ko#"$K"/}; mkdir -p "$R/$(dirname "$rel")"; cp "$ko" "$R/$rel"
  done
done
cp "$K/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} "$R/lib/modules/$KVER/"
depmod -b "$R" "$KVER"

# 4. /init: mount, load soft-RoCE, run /cmd.sh under bash with its output on ttyS1, then the
#    exit status as a marker line there, then power off. ttyS0 has the kernel console.
cp "$HERE/init.sh" "$R/init"; chmod +x "$R/init"

(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -6 > "$OUT/initramfs.tmp"
mv "$OUT/initramfs.tmp" "$OUT/initramfs.cpio.gz"
rm -rf "$K"          # 400 MB; the .deb stays in cache/
echo "$stamp" > "$OUT/stamp"
echo "build-initramfs: kernel $KVER, initramfs $(du -h "$OUT/initramfs.cpio.gz" | cut -f1)" >&2

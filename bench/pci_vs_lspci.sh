#!/bin/sh
# SPDX-License-Identifier: MIT
# Wall time of `hwcheck facts --json` against `lspci -vvv` over the same synthetic DGX-class PCI
# tree (bench/dgx_tree.py: 4 switches, 8 GPUs, 10 ConnectX-7 PFs with 1,000 VFs, NVMe), and
# hwcheck's peak memory. Last line: ratio=<hwcheck/lspci> (target <= 1.0; peak target < 16 MB).
# Usage: bench/pci_vs_lspci.sh [HWCHECK] [RUNS]   (HWCHECK defaults to build-rel, then build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
hw=${1:-}
runs=${2:-7}
if [ -z "$hw" ]; then
	for c in "$src/build-rel/cli/hwcheck" "$src/build/cli/hwcheck"; do
		[ -x "$c" ] && { hw=$c; break; }
	done
fi
[ -n "$hw" ] && [ -x "$hw" ] || { echo "no hwcheck binary (build it, or give its path)" >&2; exit 2; }
lspci=$(command -v lspci || true)
[ -n "$lspci" ] || { echo "lspci (pciutils) not installed" >&2; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
/usr/bin/python3 "$here/dgx_tree.py" "$tmp/root" 2>"$tmp/tree.txt"
echo "tree: $(cat "$tmp/tree.txt")"

# median wall time in milliseconds of RUNS runs of "$@" (stdout discarded)
median_ms() {
	i=0
	: >"$tmp/times"
	while [ $i -lt "$runs" ]; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >>"$tmp/times"
		i=$((i + 1))
	done
	sort -n "$tmp/times" | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.3f\n", m/1000}'
}

export LC_ALL=C
h=$(median_ms "$hw" --root "$tmp/root" facts --json)
l=$(median_ms "$lspci" -A linux-sysfs -O "sysfs.path=$tmp/root/sys/bus/pci" -vvv)
n=$("$hw" --root "$tmp/root" facts --json | /usr/bin/python3 -c 'import json,sys; p=json.load(sys.stdin)["facts"]["pci"]; print(len(p["devices"]), "functions,", sum(1 for d in p["devices"] if "acs" in d), "with ACS,", len(p["gpudirect"]["pairs"]), "GPU-NIC pairs")')
echo "reported by hwcheck: $n"
echo "hwcheck facts --json: ${h} ms (median of $runs)"
echo "lspci -vvv:           ${l} ms (median of $runs)"
if [ -x /usr/bin/time ]; then
	kb=$(/usr/bin/time -f %M "$hw" --root "$tmp/root" facts --json 2>&1 >/dev/null | tail -1)
	lkb=$(/usr/bin/time -f %M "$lspci" -A linux-sysfs -O "sysfs.path=$tmp/root/sys/bus/pci" -vvv 2>&1 >/dev/null | tail -1)
	echo "peak memory: hwcheck ${kb} KiB, lspci ${lkb} KiB (target: hwcheck < 16384 KiB)"
fi
awk -v h="$h" -v l="$l" 'BEGIN { printf "ratio=%.3f\n", h / l }'

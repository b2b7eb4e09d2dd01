#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decide between KVM and TCG by booting for real: /dev/kvm can exist and
# still hang a guest (a software virtualiser owns it on some hosts).
#
#   ci/6-boot/probe-accel.sh BZIMAGE INITRAMFS    -> prints kvm or tcg
#
# The answer is the host's, not the kernel's: it is kept for the rest of
# the host's boot (its boot_id, with the QEMU binary it was found with)
# in the cache, as a probe where KVM hangs waits out its 30 s timeout,
# once a run of ci/jobs/run-series.sh, twenty times a ci/tests/test.sh.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 BZIMAGE INITRAMFS" >&2; exit 2; }
if [ -n "${ZS_ACCEL:-}" ]; then
	echo "$ZS_ACCEL"
	exit 0
fi
memo=$CACHE_DIR/accel
key="$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || true) $(command -v qemu-system-x86_64 || true)"
if [ -f "$memo" ] && [ "$(sed -n 1p "$memo")" = "$key" ]; then
	sed -n 2p "$memo"
	exit 0
fi
accel=tcg
if [ -w /dev/kvm ]; then
	d=$(mktemp -d)
	if "$CI_DIR/6-boot/boot.sh" --accel kvm --timeout 30 --smp 1 --mem 256 \
		--swap-mib 16 --append zs.probe=1 "$1" "$2" "$d" >/dev/null 2>&1 &&
		grep -q ZS-PROBE-OK "$d/console.log"; then
		accel=kvm
	fi
	rm -rf "$d"
fi
mkdir -p "$CACHE_DIR"
printf '%s\n%s\n' "$key" "$accel" >"$memo.$$"
mv "$memo.$$" "$memo"
echo "$accel"

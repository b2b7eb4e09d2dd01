#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Decide between KVM and TCG by booting for real: /dev/kvm can exist and
# still hang a guest (a software virtualiser owns it on some hosts).
#
#   ci/probe-accel.sh BZIMAGE INITRAMFS    -> prints kvm or tcg
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 BZIMAGE INITRAMFS" >&2; exit 2; }
if [ -n "${ZS_ACCEL:-}" ]; then
	echo "$ZS_ACCEL"
	exit 0
fi
if [ -w /dev/kvm ]; then
	d=$(mktemp -d)
	if "$(dirname "$0")/boot.sh" --accel kvm --timeout 30 --smp 1 --mem 256 \
		--swap-mib 16 --append zs.probe=1 "$1" "$2" "$d" >/dev/null 2>&1 &&
		grep -q ZS-PROBE-OK "$d/console.log"; then
		rm -rf "$d"
		echo kvm
		exit 0
	fi
	rm -rf "$d"
fi
echo tcg

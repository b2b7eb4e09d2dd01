#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Step 4, image: build the selftests (static) against TREE and pack them with
# busybox-static and ci/guest/init into an initramfs.
#
#   ci/image.sh TREE OUTDIR      -> OUTDIR/initramfs.cpio.gz
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: $0 TREE OUTDIR"
tree=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,tests}

make -s -C "$REPO_DIR/selftests" KSRC="$tree" O="$root/tests" >"$out/selftests-build.log" 2>&1 ||
	{ cat "$out/selftests-build.log" >&2; die "selftests do not build against $tree"; }
# The Makefile lists what it built for this tree, in the order to run it.
mv "$root/tests/tests.list" "$root/tests/list"
while read -r t; do
	[ -x "$root/tests/$t" ] || die "selftests: $t listed but not built"
done <"$root/tests/list"

# Debian's busybox-static puts a static busybox at /bin/busybox.
[ -x /bin/busybox ] || die "busybox-static is not installed"
cp /bin/busybox "$root/bin/busybox"
cp "$REPO_DIR/ci/guest/init" "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initramfs.cpio.gz"
rm -rf "$root"

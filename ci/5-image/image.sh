#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Image: build the selftests (or the benchmarks) static against TREE
# and pack them with busybox-static and ci/5-image/guest/init into an initramfs.
#
#   ci/5-image/image.sh [--suite selftests|benchmarks] [--newest DIR] TREE OUTDIR
#                                        -> OUTDIR/initramfs.cpio.gz
#
# --suite picks the folder whose Makefile builds the programs the guest
# runs (default selftests); it writes $(O)/tests.list in run order.
# --newest DIR builds test_zswap from DIR (ci/5-image/lib.sh
# newest_kselftests) rather than from TREE.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

suite=selftests newest=""
parse_opts "--suite= --newest= @" "$@"
case $suite in selftests|benchmarks) ;; *) die "image: unknown suite '$suite'" ;; esac
[ ${#args[@]} -eq 2 ] || die "usage: $0 [--suite selftests|benchmarks] [--newest DIR] TREE OUTDIR"
set -- "${args[@]}"
tree=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,tests}

log=$out/$suite-build.log
make -s -C "$REPO_DIR/$suite" KSRC="$tree" ${newest:+"NEWEST=$(realpath "$newest")"} O="$root/tests" >"$log" 2>&1 ||
	{ cat "$log" >&2; die "$suite do not build against $tree"; }
# The Makefile lists what it built for this tree, in the order to run it:
# tests.list for the main boot, tests-<profile>.list for the other boots of
# ci/6-boot/profiles. The guest runs /tests/list unless told otherwise
# (zs.list=).
mv "$root/tests/tests.list" "$root/tests/list"
for list in "$root"/tests/list "$root"/tests/tests-*.list; do
	[ -f "$list" ] || continue
	name=${list##*/}
	while read -r t; do
		[ -x "$root/tests/$t" ] || die "$suite: $t listed in $name but not built"
	done <"$list"
	echo "$name"
done >"$out/lists"

# Debian's busybox-static puts a static busybox at /bin/busybox.
[ -x /bin/busybox ] || die "busybox-static is not installed"
cp /bin/busybox "$root/bin/busybox"
cp "$REPO_DIR/ci/5-image/guest/init" "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out/initramfs.cpio.gz"
rm -rf "$root"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel with one test image N times in a row and list the cases
# each boot failed: how often a test fails a kernel that passes it (a
# flake), with the host loaded by a kernel build or not.
#
#   ci/jobs/repeat-boots.sh [--times N] [--load build|none] [--only TESTS]
#                           BZIMAGE INITRAMFS OUTDIR
#
# BZIMAGE and INITRAMFS: those of a point of a run (ci/jobs/run-series.sh
# keeps RUN/NN-default/bzImage, with its source-id, and
# RUN/image/initramfs.cpio.gz). --times:
# boots (default 20). --load build: the mainline base's tree built
# (defconfig, make -j$(nproc), no ccache) into a scratch folder, over and
# over, beside the boots (default). --only: the tests each boot runs
# (default test_zswap). Writes OUTDIR/NN/ (ci/6-boot/boot.sh's files) and
# OUTDIR/flakes.txt: one line a boot (its number, seconds, the boot's
# outcome, the cases that failed), then the count of failed cases. Exit
# status 0 when no boot failed a case or crashed, 1 otherwise.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

times=20 load=build only=test_zswap
cmdline="$*"
parse_opts "--times= --load= --only= @" "$@"
check_count --times "$times"
check_choice --load "$load" build none
[ ${#args[@]} -eq 3 ] || die "usage: $0 [--times N] [--load build|none] [--only TESTS] BZIMAGE INITRAMFS OUTDIR"
set -- "${args[@]}"
check_file BZIMAGE "$1"
check_file INITRAMFS "$2"
bz=$(realpath "$1") initrd=$(realpath "$2")
# The judge checks the booted kernel against its row's sources.
sid=""
[ ! -f "$(dirname "$bz")/source-id" ] || sid=$(cat "$(dirname "$bz")/source-id")
mkdir -p "$3"
out=$(realpath "$3")

loadpid=""
stop_load() {
	[ -z "$loadpid" ] || kill -- "-$loadpid" 2>/dev/null || true
}
trap stop_load EXIT
if [ "$load" = build ]; then
	mtree=$("$CI_DIR/1-tree/tree.sh" mainline | sed -n 's/^ZS_TREE=//p')
	lb=$out/load-build
	say "load: building $mtree into $lb, over and over"
	# A process group of its own, so that it stops with every make job.
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'while :; do
		rm -rf "$2"; mkdir -p "$2"
		make -s -C "$1" O="$2" defconfig >/dev/null 2>&1
		CCACHE_DISABLE=1 make -s -C "$1" O="$2" -j"$(nproc)" vmlinux >/dev/null 2>&1 || true
	done' load "$mtree" "$lb" &
	loadpid=$!
fi

cmd="$0 $cmdline"
{
	echo "# $cmd (at $(git -C "$REPO_DIR" rev-parse --short HEAD))"
	echo "# $times boots of $bz with $initrd, zs.only=$only, load: $load"
	echo "# host: $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# boot	seconds	outcome	failed cases"
} >"$out/flakes.txt"
failed=0 bad=0
for i in $(seq 1 "$times"); do
	d=$out/$(printf '%02d' "$i")
	t0=$(date +%s)
	rc=0
	"$CI_DIR/6-boot/boot.sh" --timeout 900 --append "zs.only=$only" \
		${sid:+--source-id "$sid"} "$bz" "$initrd" "$d" >"$d.log" 2>&1 || rc=$?
	[ "$rc" -ne 75 ] || die "boot $i: infrastructure error (see $d)"
	outcome=$(python3 "$CI_DIR/7-verdict/verdict.py" boot "$d" 2>/dev/null) || true
	# Every "not ok" of the KTAP: a case of a test, or a test whole.
	cases=$(awk '$1 == "not" && $2 == "ok" { print $4 }' "$d/ktap.txt" | paste -sd, -)
	n=$(awk '$1 == "not" && $2 == "ok"' "$d/ktap.txt" | wc -l)
	failed=$((failed + n))
	[ "$outcome" = ok ] || [ "$outcome" = fail ] || bad=$((bad + 1))
	printf '%d\t%d\t%s\t%s\n' "$i" "$(($(date +%s) - t0))" "$outcome" "${cases:--}" |
		tee -a "$out/flakes.txt"
	say "boot $i of $times: $outcome${cases:+, failed: $cases}"
done
echo "# $failed failed cases in $times boots; $bad boots that did not finish" >>"$out/flakes.txt"
tail -n 1 "$out/flakes.txt"
[ "$failed" -eq 0 ] && [ "$bad" -eq 0 ]

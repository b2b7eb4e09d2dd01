#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Find the first patch of a series at which a check fails: the build, the
# boot, or one selftest. A binary search over the points of the series (0 is
# the base, k the base plus patches 1..k), as git bisect would do over
# commits, building every point in one build folder so that each step only
# rebuilds what the patches in between touched (and ccache the rest).
#
#   ci/bisect.sh [--base mainline|v6.12|v6.1|PATH] [--series FILE] [--results DIR]
#                build|boot|TEST
#
# TEST is a program of selftests/tests.list, or PROFILE:TEST for one of
# another boot of ci/profiles (e.g. noswap:swapcg_noswap). The base must
# pass the check and the last point fail it. A point whose build fails
# counts as failing a boot or a test too, and is named as such. Prints
# "first bad: <patch>" and exits 0; exits 1 when the ends do not differ.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

base=${ZS_BASE:-mainline} series="" results=""
while [ $# -gt 1 ]; do
	case $1 in
	--base) base=$2 ;;
	--series) series=$2 ;;
	--results) results=$2 ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift 2
done
[ $# -eq 1 ] || die "usage: $0 [--base B] [--series FILE] [--results DIR] build|boot|TEST"
check=$1

say "tree: preparing base $base"
use_tree "$base"
tree=$ZS_TREE
[ -n "$series" ] || series=$(series_for "$ZS_KVER")
load_series "$series"
n=${#patches[@]}
[ "$n" -gt 0 ] || die "series $series is empty"
tag=$ZS_TAG
results=${results:-$REPO_DIR/results/bisect-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
results=$(realpath "$results")

# What a boot runs: nothing (zs.only names no test), or the one test, in
# its profile's boot.
opts="" test=""
case $check in
build) ;;
boot) opts="zs.only=-" ;;
*:*)
	pname=${check%%:*} test=${check#*:}
	popts=$(awk -v p="$pname" '$1 == p { $1 = ""; print }' "$CI_DIR/profiles")
	[ -n "$popts" ] || die "no boot $pname in ci/profiles"
	opts="$popts zs.only=$test"
	;;
*)
	test=$check
	opts="zs.only=$test"
	;;
esac
if [ -n "$test" ]; then
	grep -qx "$test" <(sed 's/#.*//' "$REPO_DIR"/selftests/tests*.list) ||
		die "no test $test in selftests/tests*.list"
fi
if [ "$check" != build ]; then
	say "image: building the selftests against the base tree"
	"$CI_DIR/image.sh" "$tree" "$results/image" >/dev/null ||
		die "could not build the test image (see $results/image)"
fi

frags=("${default_frags[@]}")
bdir=$CACHE_DIR/build/$tag-default

# point_ok K: 0 when point K passes the check, 1 when it fails; the logs
# go to RESULTS/point-K/.
point_ok() {
	local k=$1 d i rc=0
	d=$results/point-$k
	mkdir -p "$d"
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" reset -q --hard zs-base
	git -C "$tree" clean -q -f -d -x
	for ((i = 0; i < k; i++)); do
		"$CI_DIR/apply.sh" "$tree" "${patches[$i]}" >>"$d/apply.log" 2>&1 ||
			die "point $k: $(basename "${patches[$i]}") does not apply (see $d/apply.log)"
	done
	say "bisect: point $k ($(point_name "$k")): build"
	if ! "$CI_DIR/build.sh" "$tree" "$bdir" "${frags[@]}" >"$d/build.log" 2>&1; then
		echo "point $k: build fails" >"$d/verdict"
		return 1
	fi
	if [ "$check" = build ]; then
		echo "point $k: builds" >"$d/verdict"
		return 0
	fi
	say "bisect: point $k: boot${test:+ and $test}"
	"$CI_DIR/boot.sh" --timeout 1500 --append "$opts" \
		"$bdir/arch/x86/boot/bzImage" "$results/image/initramfs.cpio.gz" "$d" ||
		rc=$?
	if [ $rc -ne 0 ]; then
		echo "point $k: boot fails (boot.sh exit $rc)" >"$d/verdict"
		return 1
	fi
	if [ -n "$test" ]; then
		# The test's own line in the guest's KTAP (not a nested one).
		if grep -Eq "^ok [0-9]+ $test( # time=|$)" "$d/ktap.txt"; then
			echo "point $k: $test passes" >"$d/verdict"
			return 0
		fi
		echo "point $k: $test fails: $(grep -E "^(not )?ok [0-9]+ $test\b" "$d/ktap.txt" || echo 'no result')" >"$d/verdict"
		return 1
	fi
	echo "point $k: boots" >"$d/verdict"
	return 0
}

point_name() {
	if [ "$1" -eq 0 ]; then echo "base ($ZS_KVER)"; else basename "${patches[$(($1 - 1))]}" .patch; fi
}

# The ends first: a bisection needs a good base and a bad last point.
if ! point_ok 0; then
	cat "$results/point-0/verdict"
	die "the base already fails '$check': nothing to bisect"
fi
cat "$results/point-0/verdict"
if point_ok "$n"; then
	cat "$results/point-$n/verdict"
	die "the last point passes '$check': nothing to bisect"
fi
cat "$results/point-$n/verdict"
good=0 bad=$n
while [ $((bad - good)) -gt 1 ]; do
	mid=$(((good + bad) / 2))
	if point_ok "$mid"; then good=$mid; else bad=$mid; fi
	cat "$results/point-$mid/verdict"
done
git -C "$tree" reset -q --hard zs-base
echo "first bad: $(point_name "$bad") (point $bad of $n, check '$check')"
echo "results: $results"

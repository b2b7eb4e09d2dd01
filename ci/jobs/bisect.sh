#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Find the first patch of a series at which a check fails: the build, the
# boot, or one selftest. A binary search over the points of the series (0 is
# the base, k the base plus patches 1..k), as git bisect would do over
# commits, building each point in the main job's build folder
# (build_folder of ci/3-build/lib.sh, which keeps one for each state of the
# sources built), so that a step compiles only what differs from what it
# last built there (and ccache the rest).
#
#   ci/jobs/bisect.sh [--base BASE|PATH] [--series FILE] [--results DIR]
#                objects|build|boot|TEST
#
# objects: only the objects the series touches compile, with the guest's
# configuration (ci/3-build/objects.sh; no whole build, in a build folder
# of its own), as ci/jobs/compile-series.sh compiles them.
# TEST is a program of selftests/tests.list, or PROFILE:TEST for one of
# another boot of ci/6-boot/profiles (e.g. noswap:swapcg_noswap). The base must
# pass the check and the last point fail it. Each point is judged by
# ci/7-verdict/verdict.py check, as the main job judges that test at that point
# (ci/7-verdict/judge.py): a test fails when it or one of its subtests reports
# not ok, its plan falls short, or the kernel prints a splat of
# ci/7-verdict/splats while it runs; a skip passes; a panic or hang while it
# runs is a crash, and counts as failing; "boot" fails on a boot that does not
# end well or a splat outside any test. A point whose build fails counts as
# failing a boot or a test too, and is named as such.
#
# Prints "first bad: <patch>" and exits 0; exits 1 when the ends do not
# differ; exits 75, naming no patch, at an infrastructure error (QEMU could
# not run, a build ran out of disk), which says nothing about the patch.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"
# shellcheck source=ci/5-image/lib.sh
. "$CI_DIR/5-image/lib.sh"

base=${ZS_BASE:-$ZS_DEFAULT_BASE} series="" results="" check=""
parse_opts "--base= --series= --results= @" "$@"
[ ${#args[@]} -gt 0 ] || die "no check given (see --help)"
[ ${#args[@]} -eq 1 ] || die "one check only: ${args[*]} (see --help)"
check=${args[0]}

# Refused here, before a tree is prepared or anything built.
check_base "${ZS_BASE:+ZS_BASE or }--base" "$base"
row=$(base_row "$base")
tests_series=$(base_get "$row" tests)
[ -z "$results" ] || check_outdir --results "$results"
if [ -n "$series" ]; then
	check_series --series "$series"
else
	series=$(base_get "$row" series)
fi
load_series "$series"
[ ${#patches[@]} -gt 0 ] || die "series $series is empty: nothing to bisect"

# What a boot runs: nothing (zs.only names no test), or the one test, in
# its profile's boot.
opts="" test="" pname=""
case $check in
build|objects) ;;
boot) opts="zs.only=-" ;;
*:*)
	pname=${check%%:*} test=${check#*:}
	if [ -z "$pname" ] || [ -z "$test" ]; then
		die "$check: not PROFILE:TEST (the check is build, boot, TEST or PROFILE:TEST)"
	fi
	popts=$(awk -v p="$pname" '$1 == p { $1 = ""; print }' "$CI_DIR/6-boot/profiles")
	[ -n "$popts" ] || die "$check: no boot $pname in ci/6-boot/profiles (the check is build, boot, TEST or PROFILE:TEST)"
	opts="$popts zs.only=$test"
	;;
*)
	test=$check
	opts="zs.only=$test"
	;;
esac
if [ -n "$test" ]; then
	grep -qx "$test" <(sed 's/#.*//' "$REPO_DIR"/selftests/tests*.list) ||
		die "$check: no test $test in selftests/tests*.list (the check is build, boot, TEST or PROFILE:TEST)"
fi
say "tree: preparing base $base"
use_tree "$base"
tree=$ZS_TREE
n=${#patches[@]}
results=${results:-$REPO_DIR/results/bisect-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
results=$(realpath "$results")

if [ "$check" != build ] && [ "$check" != objects ]; then
	# Once, from the base with the base's tests series on top (as
	# run-series.sh does at a point whose patch leaves the selftests).
	say "image: building the selftests against the base tree"
	tests_image "$tree" "$results/image" "$tests_series" >/dev/null ||
		die "could not build the test image (see $results/image)"
fi

frags=("${default_frags[@]}")
[ -z "$tests_series" ] || frags+=("$REPO_DIR/configs/selftests-zswap.config")

# point_ok K: 0 when point K passes the check, 1 when it fails (or
# crashes), 2 at an infrastructure error; the logs go to RESULTS/point-K/,
# laid out as a point of the main job (steps, the main boot in the folder,
# the boot of profile P in P/), and the judge's words to its verdict file.
point_ok() {
	local k=$1 d rc=0 bootdir bdir
	d=$results/point-$k
	rm -rf "$d"
	mkdir -p "$d"
	to_point "$k" "$d/apply.log" ||
		die "point $k: $(sed -n 's/^APPLY FAILED: //p' "$d/apply.log") (see $d/apply.log)"
	local objects_of=""
	if [ "$check" = objects ]; then
		bdir=$(build_dir objects-guest)
		objects_of="${patches[*]}"
	else
		bdir=$(build_folder default)
	fi
	say "bisect: point $k ($(point_name "$k")): build${objects_of:+ of the objects of the series}"
	if timed "$d/times" build "$CI_DIR/3-build/build.sh" ${objects_of:+--objects-of "$objects_of"} \
		"$tree" "$bdir" "${frags[@]}" >"$d/build.log" 2>&1; then
		echo "build ok" >"$d/steps"
	else
		echo "build fail" >"$d/steps"
	fi
	if [ "$check" != build ] && [ "$check" != objects ] && grep -qx 'build ok' "$d/steps"; then
		say "bisect: point $k: boot${test:+ and $test}"
		bootdir=$d${pname:+/$pname}
		timed "$d/times" "boot${pname:+-$pname}" "$CI_DIR/6-boot/boot.sh" --timeout 1500 --append "$opts" \
			--source-id "$(source_id "$tree")" \
			"$bdir/arch/x86/boot/bzImage" "$results/image/initramfs.cpio.gz" \
			"$bootdir" || true
		echo "boot${pname:+-$pname} $(python3 "$CI_DIR/7-verdict/verdict.py" boot "$bootdir" || true)" >>"$d/steps"
	fi
	{
		printf 'point %s: %s: ' "$k" "$check"
		python3 "$CI_DIR/7-verdict/verdict.py" check "$d" "${check/#objects/build}" || rc=$?
	} >"$d/verdict"
	case $rc in
	0) return 0 ;;
	1|2) return 1 ;;
	75) return 2 ;;
	*) die "point $k: ci/7-verdict/verdict.py check exited $rc" ;;
	esac
}

# judged K: point K's verdict, 0 good, 1 bad; at an infrastructure error,
# stop without naming a patch.
judged() {
	local rc=0
	point_ok "$1" || rc=$?
	cat "$results/point-$1/verdict"
	if [ $rc -eq 2 ]; then
		echo "infrastructure error at point $1: no first bad patch named (see $results/point-$1)"
		exit 75
	fi
	return $rc
}

point_name() {
	if [ "$1" -eq 0 ]; then echo "base ($ZS_KVER)"; else basename "${patches[$(($1 - 1))]}" .patch; fi
}

# The ends first: a bisection needs a good base and a bad last point.
judged 0 || die "the base already fails '$check': nothing to bisect"
if judged "$n"; then
	die "the last point passes '$check': nothing to bisect"
fi
good=0 bad=$n
while [ $((bad - good)) -gt 1 ]; do
	mid=$(((good + bad) / 2))
	if judged "$mid"; then good=$mid; else bad=$mid; fi
done
git -C "$tree" reset -q --hard zs-base
echo "first bad: $(point_name "$bad") (point $bad of $n, check '$check')"
echo "results: $results"

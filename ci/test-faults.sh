#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test the pipeline and the selftests themselves: each patch in
# ci/faults/<series>/ (the folder named as the base's series folder under
# patches/) goes on top of the series and must turn its row red in the
# expected way, and a series patch edited so that it no longer applies must
# stop the run with the patch and the file named. Prints TAP and a closing
# count.
#
#   ci/test-faults.sh [--base mainline|v6.12|PATH] [--results DIR] [FAULT...]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

base=${ZS_BASE:-mainline} results=""
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	*) break ;;
	esac
done
faults=("$@")
results=${results:-$REPO_DIR/results/faults-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
results=$(realpath "$results")

# The series of the base: by name, or by the version of a tree of your own.
case $base in
mainline|v[0-9]*) sfile=$(series_for "$base") ;;
*) sfile=$(series_for "$(make -s -C "$base" kernelversion)") ;;
esac
load_series "$sfile"
series=("${patches[@]}")
fdir=$CI_DIR/faults/$(basename "$(dirname "$sfile")")
[ -d "$fdir" ] || die "no faults for the series of $sfile (no $fdir)"
# By default the faults that must be caught: an edit that keeps a patch of
# the series from applying, and those that $fdir/must-catch names.
[ ${#faults[@]} -gt 0 ] ||
	mapfile -t faults < <(echo not-applying; sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$fdir/must-catch")
# The faults in zswap_invalidate() meet the zswap tests, those in
# swap_cgroup the swap_cgroup tests; test_memcontrol would add minutes.
tests_like() {
	sed -n "s/^\($1[a-z_]*\)\$/\1/p" "$REPO_DIR/selftests/tests.list" | paste -sd, -
}
# The zswap tests: the repository's, upstream's test_zswap with the cases
# a series adds to it, and the KUnit tests.
zswap_tests=$(tests_like '\(zswap_\|test_zswap\|kunit_\)')
swapcg_tests=$(tests_like swapcg_)
n=${#series[@]}
pass=0 fail=0 i=0
echo "TAP version 13"
echo "1..${#faults[@]}"

# field RUN K KEY: one field of a row's result.json.
field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$1/$(printf '%02d' "$2")-default/result.json" "$3"
}

# only_red RUN K CELL: "; ..." for each step of row K, other than CELL,
# that is not ok, and for failed tests or splats: nothing when CELL is the
# only red one.
only_red() {
	python3 - "$1/$(printf '%02d' "$2")-default/result.json" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
steps = [k for k in r if k in ("apply", "checkpatch", "build")
         or k.startswith(("boot", "gate-", "build-"))]
bad = ["%s is %s" % (k, r[k]) for k in steps
       if k != sys.argv[2] and r[k] != "ok"]
bad += ["%s %s" % (r[k], k) for k in ("failed", "splats") if r.get(k)]
print("".join("; " + b for b in bad), end="")
PY
}

for f in "${faults[@]}"; do
	i=$((i + 1))
	d=$results/$f
	mkdir -p "$d/patches"
	: >"$d/patches/series"
	for p in "${series[@]}"; do
		cp "$p" "$d/patches/"
		basename "$p" >>"$d/patches/series"
	done
	last=$n
	if [ "$f" = not-applying ]; then
		# Change one context line of the first patch that has it, as a
		# hand edit would.
		victim=$(cd "$d/patches" &&
			xargs grep -l $'^ \tif (xa_empty(tree))' <series | head -n1)
		[ -n "$victim" ] || die "not-applying: no patch to edit"
		last=$(grep -nx "$victim" "$d/patches/series" | cut -d: -f1)
		sed -i '0,/^ \tif (xa_empty(tree))/s// \tif (xa_is_empty(tree))/' "$d/patches/$victim"
	else
		cp "$fdir/$f.patch" "$d/patches/"
		echo "$f.patch" >>"$d/patches/series"
		last=$((n + 1))
		victim=$f.patch
	fi
	tests=$zswap_tests
	case $f in swap-cgroup-*) tests=$swapcg_tests ;; esac
	say "fault $f: running the series with it at point $last"
	rc=0
	# The gates and a variant build only where the fault is for them, and
	# only the quick gates and the one variant.
	gates=none variants=none
	case $f in
	sparse-warning) gates=last tests=zswap_roundtrip ;;
	nomemcg-build-break) variants=last tests=zswap_roundtrip ;;
	# Layouts that swap does not reach: only the KUnit tests make them.
	seed000-posted|rcu-dropped-early) tests=kunit_results ;;
	esac
	ZS_GATES="sparse W1" ZS_VARIANTS="MEMCG=n" "$CI_DIR/run-series.sh" \
		--base "$base" --series "$d/patches/series" --results "$d/run" \
		--debug none --variants "$variants" --gates "$gates" \
		--from "$last" --only "$tests" >"$d/run.log" 2>&1 || rc=$?
	why=""
	case $f in
	not-applying)
		[ $rc -ne 0 ] || why="run exited 0"
		grep -q "APPLY FAILED: $victim does not apply: mm/zswap.c" "$d/run.log" ||
			why="$why; no line naming $victim and mm/zswap.c"
		;;
	build-break)
		[ "$(field "$d/run" "$last" build)" = fail ] || why="build did not fail"
		grep -q 'error:' "$d/run/$(printf '%02d' "$last")-default/build.log" ||
			why="$why; build.log has no compiler error"
		;;
	panic)
		[ "$(field "$d/run" "$last" boot)" = panic ] || why="boot is not 'panic'"
		;;
	sparse-warning)
		[ "$(field "$d/run" "$last" gate-sparse)" = fail ] || why="gate-sparse is not red"
		why+=$(only_red "$d/run" "$last" gate-sparse)
		;;
	nomemcg-build-break)
		[ "$(field "$d/run" "$last" build-MEMCG=n)" = fail ] ||
			why="build-MEMCG=n is not red"
		why+=$(only_red "$d/run" "$last" build-MEMCG=n)
		;;
	seed000-posted|rcu-dropped-early)
		# Only the KUnit tests reach these layouts: one of them must fail.
		grep -q '"kunit_results\.' "$d/run/$(printf '%02d' "$last")-default/result.json" ||
			why="no KUnit test failed"
		;;
	*)
		# Failed tests, a splat, a panic or a stall; a fault patch's own
		# checkpatch failure is no catch.
		[ "$(field "$d/run" "$last" failed)" != 0 ] ||
			[ "$(field "$d/run" "$last" splats)" != 0 ] ||
			[ "$(field "$d/run" "$last" boot)" != ok ] ||
			why="no test failed, no splat, the boot was ok"
		;;
	esac
	[ $rc -ne 0 ] || [ "$f" = not-applying ] || why="$why; run exited 0"
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "ok $i $f: caught"
		grep -E "^  $last: (failed|splat)" "$d/run.log" | head -n 5 | sed 's/^/# /' || true
	else
		fail=$((fail + 1))
		echo "not ok $i $f: ${why#; } (see $d/run.log)"
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

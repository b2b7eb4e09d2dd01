#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test the pipeline and the selftests themselves: each patch in
# ci/tests/faults/<series>/ (the folder named as the base's series folder
# under patches/) goes on top of the series and must turn its row red for
# the reason its line of ci/tests/faults/<series>/targets names
# (ci/7-verdict/verdict.py caught: the fault applied, built unless the
# build is its target, and the check it targets failed or crashed), and a
# series patch edited so that it no longer applies must stop the run with
# the patch and the file named.
# A fault that no longer applies, or that turns its row red some other way,
# is "not caught for the right reason". Prints TAP and a closing count.
#
# Faults in code are mutant schemata: ci/tests/faults/<series>/schemata.patch
# compiles every one of them in, each off until the boot parameter
# zswap.ci_fault=NAME turns it on, so that one kernel (and one debug
# kernel) serves them all; a fault of the schemata is booted with its
# switch on, and must say so on the console. First, that kernel with no
# switch on must pass the zswap tests ("schemata-off"): it is the series.
# A fault whose target is the build or the apply is a patch of its own.
#
# --series selftests-zswap (a series of kselftests, patches/selftests-*/):
# its faults, ci/tests/faults/<name>/, go on the kernel base its tests are for,
# which the folder's file "base" names, under no patch of the zswap
# series, unless its file "under" names a series for the fault (FAULT
# SERIES, e.g. a fault in code that series adds); the guest's tests come
# from the tests series, as ci/jobs/run-series.sh builds them on that base.
#
#   ci/tests/test-faults.sh [--base BASE|PATH | --series selftests-zswap]
#                           [--results DIR] [--no-kcsan] [--no-variants] [FAULT...]
#
# --no-kcsan leaves out the checks judged on a KCSAN row (targets
# kcsan/CHECK), --no-variants those of a variant build (targets
# build-<variant of ci/3-build/variants>, e.g. build-MEMCG=n): each needs a
# whole kernel build of its own. A fault left with no check is skipped; each
# says so, and why, on the output. ci/tests/test.sh passes both, to stay within
# its hour; this command without them is the one that runs every fault
# and check (the main job, ci/jobs/run-series.sh, builds those rows too).
#
# Exit status: 0 every fault caught; 1 one was not; 75 an infrastructure
# error (QEMU could not run, a build out of disk) left a fault unjudged,
# and every fault judged was caught.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"

base=${ZS_BASE:-$ZS_DEFAULT_BASE} results="" no_kcsan=0 no_variants=0 tseries=""
parse_opts "--base= --series=tseries --results= --no-kcsan --no-variants @" "$@"
faults=("${args[@]}")
# Refused here, before a tree is prepared or anything built.
if [ -n "$tseries" ]; then
	[ -f "$CI_DIR/tests/faults/$tseries/base" ] ||
		die "--series $tseries: no ci/tests/faults/$tseries/base (a series of kselftests whose faults go on a base)"
	base=$tseries
else
	check_base "${ZS_BASE:+ZS_BASE or }--base" "$base"
fi
[ -z "$results" ] || check_outdir --results "$results"

# The series of the base: by name, or by the version of a tree of your own;
# for a tests series, the base its faults folder names.
tests_base=""
case $tseries in
?*)
	fdir=$CI_DIR/tests/faults/$base
	tests_base=$base
	base=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$fdir/base")
	sfile=""
	;;
*) sfile=$(base_get "$(base_row "$base")" series) ;;
esac
series=()
if [ -n "$sfile" ]; then
	load_series "$sfile"
	series=("${patches[@]}")
	fdir=$CI_DIR/tests/faults/$(basename "$(dirname "$sfile")")
fi
[ -d "$fdir" ] || die "no faults for the series of $sfile (no $fdir)"
[ -f "$fdir/targets" ] || die "no $fdir/targets: what catches each fault"
# By default the faults that must be caught: an edit that keeps a patch of
# the series from applying, and those that $fdir/must-catch names.
# (A tests series has no zswap patch of its own to edit.)
schemata=$fdir/schemata.patch
[ -f "$schemata" ] || schemata=""
[ ${#faults[@]} -gt 0 ] ||
	mapfile -t faults < <([ -n "$tests_base" ] || echo not-applying
		[ -z "$schemata" ] || echo schemata-off
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$fdir/must-catch")
# The names the schemata's zswap_ci_faults[] table knows, one a line.
switches=""
[ -z "$schemata" ] ||
	switches=$(awk '/^\+.*zswap_ci_faults\[\] = \{/ { on = 1; next }
		on && /^\+\};/ { exit }
		on { while (match($0, /"[a-z0-9-]+"/)) {
			print substr($0, RSTART + 1, RLENGTH - 2)
			$0 = substr($0, RSTART + RLENGTH) } }' "$schemata" | grep -vx none || true)
# in_schemata FAULT: FAULT is a switch of the schemata, not a patch.
in_schemata() {
	[ ! -f "$fdir/$1.patch" ] && grep -qx -- "$1" <<<"$switches"
}
# The faults in zswap_invalidate() meet the zswap tests, those in
# swap_cgroup its KUnit tests; test_memcontrol would add minutes.
tests_like() {
	sed -n "s/^\($1[a-z_]*\)\$/\1/p" "$REPO_DIR/selftests/tests.list" | paste -sd, -
}
# The zswap tests: the repository's, upstream's test_zswap with the cases
# a series adds to it, and the KUnit tests.
zswap_tests=$(tests_like '\(zswap_\|test_zswap\|kunit_\)')
# under FAULT: the series a fault of a tests series goes on top of, by the
# name of its folder under patches/ (nothing: the base alone).
under() {
	[ -f "$fdir/under" ] || return 0
	awk -v f="$1" '!/^#/ && $1 == f { print $2 }' "$fdir/under"
}
# all_targets FAULT: its lines of targets, less the name (CHECK VERDICT
# [alone]). A CHECK of the form kcsan/CHECK is judged on the fault's KCSAN
# row (ci/jobs/run-series.sh --kcsan), which is then run.
all_targets() {
	awk -F '\t' -v f="$1" '$1 == f { $1 = ""; print; found = 1 }
		END { exit !found }' "$fdir/targets"
}
variant_names=" $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$CI_DIR/3-build/variants" |
	cut -f1 | paste -sd' ' -) "
# left_out CHECK: why --no-kcsan or --no-variants leaves CHECK out; nothing
# when it is run.
left_out() {
	case $1 in
	kcsan/*) [ $no_kcsan -eq 0 ] ||
		echo "--no-kcsan: $1 is judged on a KCSAN row, a whole kernel build of its own" ;;
	build-*) [ $no_variants -eq 0 ] || [[ $variant_names != *" ${1#build-} "* ]] ||
		echo "--no-variants: $1 is a variant build, a whole kernel build of its own" ;;
	esac
}
# target FAULT: the lines of all_targets that are run; every one must hold.
target() {
	local check rest
	all_targets "$1" | while read -r check rest; do
		[ -n "$(left_out "$check")" ] || echo " $check${rest:+ $rest}"
	done
}
# skipped FAULT: why each of its checks left out is, one a line.
skipped() {
	local check rest
	all_targets "$1" | while read -r check rest; do left_out "$check"; done
}
for f in "${faults[@]}"; do
	case $f in not-applying|schemata-off) continue ;; esac
	all_targets "$f" >/dev/null ||
		die "fault $f: no line in $fdir/targets names what must catch it"
	[ -f "$fdir/$f.patch" ] || in_schemata "$f" ||
		die "fault $f: neither $fdir/$f.patch nor a switch of ${schemata:-a schemata.patch there}"
done
results=${results:-$REPO_DIR/results/faults-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
results=$(realpath "$results")
pass=0 fail=0 infra=0 skip=0 i=0
echo "TAP version 13"
echo "1..${#faults[@]}"
[ $no_kcsan -eq 0 ] ||
	echo "# --no-kcsan: checks on a KCSAN row (kcsan/...) left out; ci/tests/test-faults.sh without it runs them"
[ $no_variants -eq 0 ] ||
	echo "# --no-variants: checks of a variant build (build-<variant>) left out; ci/tests/test-faults.sh without it runs them"

for f in "${faults[@]}"; do
	i=$((i + 1))
	d=$results/$f
	# The checks it is judged by, read once (not-applying and
	# schemata-off have none: they are judged below).
	checks=""
	if [ "$f" != not-applying ] && [ "$f" != schemata-off ]; then
		why=$(skipped "$f" | paste -sd';' -)
		checks=$(target "$f")
		if [ -z "$checks" ]; then
			skip=$((skip + 1))
			echo "ok $i $f # SKIP every check left out: ${why//;/; }"
			continue
		fi
		[ -z "$why" ] || echo "# $f: ${why//;/; }; judged on its other checks"
	fi
	mkdir -p "$d/patches"
	: >"$d/patches/series"
	if [ -n "$tests_base" ]; then
		series=()
		u=$(under "$f")
		if [ -n "$u" ]; then
			load_series "$REPO_DIR/patches/$u/series"
			series=("${patches[@]}")
		fi
	fi
	n=${#series[@]}
	for p in "${series[@]}"; do
		cp "$p" "$d/patches/"
		basename "$p" >>"$d/patches/series"
	done
	last=$n
	append=""
	if [ "$f" = not-applying ]; then
		edited=$(edit_not_applying "$d/patches")
		IFS=$'\t' read -r victim last <<<"$edited"
	elif [ "$f" = schemata-off ] || in_schemata "$f"; then
		cp "$schemata" "$d/patches/"
		echo "schemata.patch" >>"$d/patches/series"
		last=$((n + 1))
		victim=schemata.patch
		[ "$f" = schemata-off ] || append="zswap.ci_fault=$f"
	else
		cp "$fdir/$f.patch" "$d/patches/"
		echo "$f.patch" >>"$d/patches/series"
		last=$((n + 1))
		victim=$f.patch
	fi
	# A fault judged on named tests (targets: CHECK, or kcsan/CHECK, a
	# test of the main boot) boots with those alone: its verdict reads
	# nothing else, and the other tests would only take minutes. So the
	# swap_cgroup faults meet its KUnit tests (v6.12, v6.1), which catch a
	# lost update where swapcg_concurrent did not (docs/tests.md), and a tests
	# series' faults its tests, the kernel's test_zswap. A fault judged on
	# the whole row (tests, boot) meets the zswap tests.
	tests=$(awk '{ sub(/^.*\//, "", $1); print $1 }' <<<"$checks" |
		grep -xFf <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
			"$REPO_DIR/selftests/tests.list") | sort -u | paste -sd, -) || true
	[ -n "$tests" ] || tests=$zswap_tests
	say "fault $f: running the series with it at point $last"
	rc=0
	# The gates and a variant build only where the fault is for them, and
	# only the quick gates and the one variant.
	gates=none variants=none
	case $f in
	sparse-warning) gates=last tests=zswap_roundtrip ;;
	nomemcg-build-break) variants=last tests=zswap_roundtrip ;;
	# Judged on the debug row as a whole (a lockdep splat), seen while
	# the KUnit tests change the tree.
	erase-after-unlock) tests=kunit_results ;;
	# Judged on the debug row as a whole (PROVE_RCU's splat at the first
	# erase), which zswap_toggle's first munmap() meets: on that row the
	# six zswap tests took 4.5 minutes, zswap_toggle 32 seconds.
	erase-without-lock) tests=zswap_toggle ;;
	esac
	kcsan=none debug=none boots=all default=build
	! grep -q '^ kcsan/' <<<"$checks" || kcsan=last
	! grep -q '^ debug/' <<<"$checks" || debug=last
	# Judged on the debug or KCSAN row alone: the default row's boot
	# would judge nothing (6 to 14 s of a TCG boot), and where no stage
	# before built that kernel (the LTS bases in the test command), its
	# build would be a whole one.
	if [ -n "$checks" ] && ! grep -qv '^ \(debug\|kcsan\)/' <<<"$checks"; then
		boots=none default=none
	fi
	"$CI_DIR/jobs/run-series.sh" \
		--base "$base" --series "$d/patches/series" --results "$d/run" \
		--debug "$debug" --variants "$variants:MEMCG=n" --gates "$gates:sparse,W1" \
		--kcsan "$kcsan" --distro none --boots "$boots" --default "$default" \
		--from "$last" --only "$tests" ${append:+--append "$append"} \
		>"$d/run.log" 2>&1 || rc=$?
	why="" v="" vrc=0
	if [ "$f" = schemata-off ]; then
		v="no fault on: the zswap tests pass, the row green"
		[ $rc -eq 0 ] || why="the schemata's kernel with no fault on is not green (exit $rc)"
		! grep -q 'zswap: ci_fault: .* on' "$d/run/$(printf '%02d' "$last")-default/console.log" ||
			why="$why; a fault is on"
	elif [ "$f" = not-applying ]; then
		[ $rc -ne 0 ] || why="run exited 0"
		grep -q "APPLY FAILED: $victim does not apply: mm/zswap.c" "$d/run.log" ||
			why="$why; no line naming $victim and mm/zswap.c"
	else
		# The judge says whether each row is red for the fault's reason.
		while read -r check rest; do
			row=default
			case $check in
			kcsan/*) row=kcsan check=${check#kcsan/} ;;
			debug/*) row=debug check=${check#debug/} ;;
			esac
			row=$d/run/$(printf '%02d' "$last")-$row
			c=0
			# shellcheck disable=SC2086 # VERDICT [alone], as words
			out=$(python3 "$CI_DIR/7-verdict/verdict.py" caught "$row" "$check" $rest) || c=$?
			[ $c -eq 0 ] || [ $vrc -ne 0 ] || vrc=$c
			v="${v:+$v; }$out"
			case $c in
			0) ;;
			1) why="$why; ${out#not caught for the right reason: }" ;;
			75) ;;
			*) why="$why; ci/7-verdict/verdict.py caught exited $c: $out" ;;
			esac
		done <<<"$checks"
		[ -n "$why" ] || [ $vrc -ne 0 ] || [ $rc -ne 0 ] ||
			why="the row is red, but the run exited 0"
		# A switch of the schemata: the kernel says it turned it on.
		[ -z "$append" ] || grep -q "zswap: ci_fault: $f on" "$d/run"/*/console.log ||
			why="$why; no boot says \"zswap: ci_fault: $f on\""
	fi
	if [ -n "$why" ]; then
		fail=$((fail + 1))
		echo "not ok $i $f: not caught for the right reason: ${why#; } (see $d/run.log)"
	elif [ $vrc -eq 75 ]; then
		infra=$((infra + 1))
		echo "ok $i $f # SKIP not judged: $v (see $d/run.log)"
	else
		pass=$((pass + 1))
		echo "ok $i $f: ${v:-caught}"
		grep -E "^  $last: (failed|splat)" "$d/run.log" | head -n 5 | sed 's/^/# /' || true
	fi
done
sk=""
[ $skip -eq 0 ] || sk=", $skip skipped (--no-kcsan, --no-variants)"
if [ $infra -gt 0 ]; then
	echo "$pass passed, $fail failed, $infra not judged (infrastructure error)$sk"
else
	echo "$pass passed, $fail failed$sk"
fi
[ $fail -eq 0 ] || exit 1
[ $infra -eq 0 ] || exit 75

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command: test the judge on its fixtures and the commands'
# refusals of bad input (seconds), lint the pipeline, run the mainline
# series (every point green, and its debug row), then check that injected
# faults are caught, that the mails are written as they must be, that the
# LTS backports apply, pass checkpatch and compile (the objects they touch,
# with Debian's configuration and the guest's) at every point and without
# their optional sets, that v6.1's last point passes the zswap tests on
# its debug row with Debian's choices (zbud writing back a full pool) and
# catches a writeback fault there, and that bisection names a broken
# patch. Not those faults judged on a KCSAN row
# or a variant build, each a whole kernel build of its own, which
# ci/tests/test-faults.sh without --no-kcsan --no-variants runs. Ends with
# where the time went (ci/timing/timing.py), and a WARNING for whole builds
# beyond ci/timing/whole-builds.
#
#   ci/tests/test.sh [--base BASE|PATH]
#                          (default: mainline)
#
# The LTS backports are the same stages on their base (--base v6.12,
# --base v6.1): their whole builds (ci/timing/whole-builds lists them)
# would take the default past the hour it has on a new 2-core machine;
# the main job (ci/jobs/run-series.sh --base v6.12) and the CI files'
# cells run their series at every point.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

base=${ZS_BASE:-$ZS_DEFAULT_BASE}
parse_opts "--base=" "$@"
# Refused now, not after the stages before the first run-series.sh.
check_base "${ZS_BASE:+ZS_BASE or }--base" "$base"
# What runs on it is its line of ci/bases: by name, or for a tree of your
# own by its version.
row=$(base_row "$base")
out=$REPO_DIR/results/test-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

pass=0 fail=0 summary=()
# run_stage NAME CMD...: run one stage, and record its start and end (and the
# folder named by its --results, whose times files ci/timing/timing.py reads) in
# $out/stages.
run_stage() {
	local name=$1 t0 res="" a prev=""
	shift
	say "test: $name"
	t0=$(date +%s)
	for a in "$@"; do
		[ "$prev" != --results ] || res=$a
		prev=$a
	done
	if "$@"; then
		pass=$((pass + 1))
		summary+=("ok - $name")
	else
		fail=$((fail + 1))
		summary+=("not ok - $name")
	fi
	echo "${summary[-1]}"
	printf '%s\t%s\t%s\t%s\n' "$name" "$t0" "$(date +%s)" "$res" >>"$out/stages"
}
stage() {
	run_stage "$@"
}

# The tests of the debug row with Debian's choices: the zswap tests, the
# KUnit tests and swap_cgroup's, and the newest test_zswap (the mm tree's
# with the kselftests series), as stable trees run it on their kernels;
# not the other upstream ones nor those of other boots.
debian_tests=kunit_results,zswap_roundtrip,zswap_invalidate,zswap_toggle,zswap_multitree,zswap_tree_end,zswap_zerofill,zswap_writeback,zswap_stress,swapcg_concurrent,test_zswap

# The stages on the LTS trees, beside the others (start_beside).
lts_stages() {
	# The LTS backports at every point, on the trees Debian serves today:
	# apply, checkpatch, and the objects they touch compiled with Debian's
	# configuration and the guest's, no whole build (ci/jobs/compile-series.sh).
	for lts in $(bases_with compile); do
		stage "$lts: every point applies, passes checkpatch, compiles" \
			"$CI_DIR/jobs/compile-series.sh" --base "$lts" \
			--results "$out/compile-$lts"
		# Its faults that this check can judge: a patch that no
		# longer applies, one that breaks the build on top.
		stage "$lts: the compile check names a patch that does not apply or build" \
			"$CI_DIR/tests/test-compile-faults.sh" --base "$lts" \
			--results "$out/compile-faults-$lts"
	done
	# Debian's own path on a base that needs it booted (ci/bases: debian;
	# v6.1, the oldest: v6.12's row, the newest test_zswap on it included,
	# runs in the main job, kept in docs/lts/v6.12-debian.txt): the last
	# point's debug row (lockdep, KASAN) with Debian's choices merged in
	# (v6.1's zswap defaults to zbud, which writes back) and zswap turned
	# on at boot, its zswap tests, zswap_writeback's full pool among them,
	# and the newest test_zswap; no default row (a whole build of its own). Then
	# the faults of that base judged on that row, on the same build
	# folder: a writeback that leaves its entry in the tree.
	for lts in $(bases_with debian); do
		local n
		n=$(load_series "$(base_get "$(base_row "$lts")" series)" && echo "${#patches[@]}")
		stage "$lts: Debian's choices, debug row, the zswap tests, a full pool written back, the newest test_zswap" \
			"$CI_DIR/jobs/run-series.sh" --base "$lts" --from "$n" --default none \
			--debug last --debug-only "$debian_tests" --variants none --gates none \
			--distro none --kcsan none --results "$out/debian-$lts"
		# shellcheck disable=SC2046 # the fault names, as words
		stage "$lts: the faults judged on Debian's debug row are caught" \
			"$CI_DIR/tests/test-faults.sh" --base "$lts" --no-kcsan --no-variants \
			--results "$out/debian-faults-$lts" \
			$(awk -F'\t' '$2 ~ /^debug\// { print $1 }' "$CI_DIR/tests/faults/$lts/targets" | sort -u)
	done
	# A patch that breaks the build planted in a compiled base's series
	# (v6.12's: nine points): the bisection by compiling the objects, and the
	# check above, name it.
	for b in $(bases_with bisect); do
		stage "bisect and the compile check name a broken $b patch" \
			"$CI_DIR/tests/test-bisect.sh" --base "$b" --check objects \
			--results "$out/bisect-$b"
	done
}

# The mails (ci/upstream/mail.sh) of a base that goes to a list: from
# scratch clones that read the mainline tree's git objects only, so they
# run beside the mainline stages as well (start_beside).
mails_stage() {
	! base_has "$row" mails ||
		stage "mails: v1, a v2 that keeps the change-id, refusals to send" \
			"$CI_DIR/tests/test-mail.sh"
}

# start_beside: on the default base, run the mails, then lts_stages, in
# the background while the mainline stages run: they use trees and build
# folders of their own, and the LTS stages, at nice 19 with one make job,
# take what the mainline ones leave idle (a TCG guest runs on one core; an
# unpack or a download on neither). Each stage's output is a log of its
# own under $out/beside/, its ok or not ok line goes to the terminal as it
# ends, and the summary lists them after the mainline stages.
beside=""
start_beside() {
	mkdir -p "$out/beside"
	: >"$out/beside/results"
	say "test: the mails and the LTS stages run beside the others, logs in $out/beside/"
	(
		stage() {
			local log
			log=$out/beside/$(printf '%s' "$1" | tr -c 'a-zA-Z0-9.' '-' | cut -c1-70).log
			say "test: beside: $1 (log: $log)"
			run_stage "$@" >"$log" 2>&1
			tail -n1 "$log" | tee -a "$out/beside/results"
		}
		# The mails first, at the mainline stages' priority: their
		# refusals are judged by coming within seconds.
		mails_stage
		export ZS_MAKE_JOBS=1
		renice -n 19 -p "$BASHPID" >/dev/null || true
		lts_stages
		date +%s >"$out/beside/finished"
	) &
	beside=$!
	trap 'stop_beside' EXIT
}

# stop_beside: the test command stopped before finish_beside (a die, a
# Ctrl-C): the LTS stages stop with it.
stop_beside() {
	[ -n "$beside" ] && kill -0 "$beside" 2>/dev/null || return 0
	kill_tree "$beside"
}

kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null || true
}

# finish_beside: wait for lts_stages, count their stages and put their
# lines in the summary.
finish_beside() {
	local line
	say "test: waiting for the LTS stages beside"
	wait "$beside" || true
	beside=""
	while read -r line; do
		summary+=("$line")
		case $line in
		ok*) pass=$((pass + 1)) ;;
		*) fail=$((fail + 1)) ;;
		esac
	done <"$out/beside/results"
	if [ ! -f "$out/beside/finished" ]; then
		fail=$((fail + 1))
		summary+=("not ok - the LTS stages beside stopped before their end (logs: $out/beside/)")
	fi
}

# First, the check in seconds (ci/check): the judge on its fixtures
# (everything after it is judged by it), bad input refused at once, the
# scripts' and CI files' lint, the figures, the series files and every
# patch's form. Its tools first, so that it skips nothing.
t_deps=$(date +%s)
"$CI_DIR/deps.sh" shellcheck python3-yaml
printf 'deps: shellcheck python3-yaml\t%s\t%s\t\n' "$t_deps" "$(date +%s)" >>"$out/stages"
stage "ci/check: judge, bad input, lint, figures, series, patch form" \
	"$CI_DIR/check"
[ "$base" != "$ZS_DEFAULT_BASE" ] || start_beside
# Seconds: the build caches give back only what the sources build (a
# stale piggy.o once booted another kernel than the one judged).
stage "the build caches serve no stale object" "$CI_DIR/tests/test-build-cache.sh"
# The snippet is MAINTAINERS as the mainline series leaves it: checked on
# mainline or a tree of your own, not against an LTS backport's tree.
! base_has "$row" maintainers ||
	stage "MAINTAINERS.snippet" "$CI_DIR/upstream/check-maintainers.sh" "$base"
# That stage fetched the mainline base (ci/1-tree/fetch-mainline.sh); the later
# ones take the same package without reading the archive's lists again.
[ "$base" != "$ZS_DEFAULT_BASE" ] || export ZS_MAINLINE_PINNED=1
# What the main job runs at every point is cut here, to keep the test
# command short on 2 cores: every point of every series is built; every
# point of mainline, the series that goes to linux-mm, gets its three
# boots, and of the LTS backports the last point that changes the kernel
# (--boots last: the main job boots the others). Beyond that only rows
# whose builds its fault stages need anyway. The debug config (lockdep,
# PROVE_RCU, KASAN) at the last point of mainline, the series that goes
# to linux-mm: test_zswap, whose frees go through zswap_invalidate(),
# and zswap_lockfree, which counts the tree lock's acquisitions there
# (lock statistics are on in that configuration), must pass there, and
# the erase-without-lock and early-out-lost faults must turn that row
# red. No KCSAN row and no variant build: each is a whole kernel build of
# its own, nor the faults judged on them
# (test-faults.sh --no-kcsan --no-variants: swap-cgroup-rmw's KCSAN check,
# nomemcg-build-break). The main job (ci/jobs/run-series.sh, by default) runs
# them: the build-only variants (SWAP=n, MEMCG=n, ZSWAP=n, i386) at every
# point, the debug row with every test and the KCSAN row at the last
# point of every series; ci/tests/test-faults.sh without those options runs
# every fault. ci/timing/whole-builds lists the whole builds left. Before the
# last point that changes the kernel, the stress tests run 5 s instead of
# 20 and 15 (--stress short). The static-analysis gates (coccinelle alone
# takes minutes a file) are left to the main job; test-faults.sh checks
# that a planted sparse warning turns the sparse cell red.
opts=(--variants none --debug none --kcsan none --gates none)
if base_has "$row" boots; then
	opts=(--variants none --debug last --debug-only "test_zswap,zswap_lockfree"
		--kcsan none --gates none)
elif base_has "$row" compile; then
	opts+=(--boots last)
fi
opts+=(--stress short)
stage "series on $base, every point green" \
	"$CI_DIR/jobs/run-series.sh" --base "$base" "${opts[@]}" \
	--results "$out/series-${base//\//_}"
# The must-catch faults of the series (ci/tests/faults/<series>/must-catch).
stage "injected faults are caught on $base" \
	"$CI_DIR/tests/test-faults.sh" --base "$base" --no-kcsan --no-variants \
	--results "$out/faults-$base"
# The faults of its kselftests' series (ci/bases: tests).
ts=$(base_get "$row" tests)
if [ -n "$ts" ]; then
	ts=$(basename "$(dirname "$ts")")
	stage "the zswap kselftests catch broken frees on $base" \
		"$CI_DIR/tests/test-faults.sh" --series "$ts" \
		--no-kcsan --no-variants --results "$out/faults-$ts"
fi
[ -n "$beside" ] || mails_stage
if [ -n "$beside" ]; then
	finish_beside
elif [ -f "$CI_DIR/tests/faults/$base/build-break.patch" ]; then
	# On a base that has a patch that breaks the build to plant.
	stage "bisect names a broken patch on $base" \
		"$CI_DIR/tests/test-bisect.sh" --base "$base" \
		--results "$out/bisect-$base"
fi

echo
# Where the time went; a WARNING there, not a failure, for whole builds
# beyond ci/timing/whole-builds.
python3 "$CI_DIR/timing/timing.py" "$out" | tee "$out/timing.txt" || true
echo "results: $out"
printf '%s\n' "${summary[@]}"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

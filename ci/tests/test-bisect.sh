#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test ci/jobs/bisect.sh: put the base's ci/tests/faults/<base>/build-break.patch
# into its series after the second patch (after the first when the series
# has one; the patches after it do not touch the lines it breaks, so they
# still apply) and check that bisecting the build names that patch.
# With --check objects, the bisection is judged by compiling the objects the
# series touches (no whole build), and ci/jobs/compile-series.sh must fail
# at that patch too, naming it, after the points before it passed.
#
#   ci/tests/test-bisect.sh [--base BASE] [--check build|objects]
#                           [--results DIR]
#
# BASE: one with a ci/tests/faults/BASE/build-break.patch (default: the
# first base of ci/bases).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

base=$ZS_DEFAULT_BASE check=build
results=$REPO_DIR/results/test-bisect-$(date +%Y%m%d-%H%M%S)
parse_opts "--base= --check= --results=" "$@"
case $check in build|objects) ;; *) die "--check $check: build or objects" ;; esac
fault=$CI_DIR/tests/faults/$base/build-break.patch
[ -f "$fault" ] || die "--base $base: no ci/tests/faults/$base/build-break.patch to plant"
mkdir -p "$results/series"
results=$(realpath "$results")

load_series "$(base_get "$(base_row "$base")" series)"
at=$(( ${#patches[@]} >= 2 ? 1 : 0 ))
name=$(printf '%04da-build-break' $((at + 1)))
broken=$results/series
: >"$broken/series"
for i in "${!patches[@]}"; do
	cp "${patches[$i]}" "$broken/"
	basename "${patches[$i]}" >>"$broken/series"
	if [ "$i" -eq "$at" ]; then
		cp "$fault" "$broken/$name.patch"
		echo "$name.patch" >>"$broken/series"
	fi
done

out=$("$CI_DIR/jobs/bisect.sh" --base "$base" --series "$broken/series" \
	--results "$results/bisect" "$check" | tee "$results/bisect.txt") || true
if grep -q "^first bad: $name (point $((at + 2)) of " <<<"$out"; then
	echo "ok - bisect ($check) names the patch that breaks the build"
else
	echo "not ok - bisect ($check) should name $name at point $((at + 2))"
	exit 1
fi
[ "$check" = objects ] || exit 0
rc=0
out=$("$CI_DIR/jobs/compile-series.sh" --base "$base" --series "$broken/series" \
	--results "$results/compile" | tee "$results/compile.txt") || rc=$?
good=$(grep -c "^ok - series $((at + 1))/" <<<"$out" || true)
if [ $rc -ne 0 ] && [ "$good" -ge 2 ] &&
	grep -q "^not ok - series $((at + 2))/[0-9]* $name.patch: objects, " <<<"$out"; then
	echo "ok - the compile check names the patch that breaks the build"
else
	echo "not ok - ci/jobs/compile-series.sh should fail at $name (exit $rc)"
	exit 1
fi

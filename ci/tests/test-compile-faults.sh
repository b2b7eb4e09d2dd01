#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test ci/jobs/compile-series.sh on the faults of an LTS series that it can
# judge without a whole build or a boot (the others are
# ci/tests/test-faults.sh's, see docs/pipeline.md):
#   - a patch edited so that it no longer applies (the first that changes
#     mm/zswap.c, as ci/tests/test-faults.sh's not-applying): the check must
#     stop at that patch, naming it and mm/zswap.c;
#   - ci/tests/faults/<base>/build-break.patch on top of the series: the
#     objects with Debian's configuration must fail at that patch, naming
#     it and the line of mm/zswap.c.
# Only the points of the fault are checked (compile-series.sh --from), so
# the objects are those of the series' last point plus what the fault
# changes: the build folders of the test command's compile stage stay warm.
#
#   ci/tests/test-compile-faults.sh [--base BASE] [--results DIR]
#
# BASE: a base whose checks in ci/bases include compile (default: the
# first such).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"

mapfile -t compiled < <(bases_with compile)
base=${compiled[0]}
results=$REPO_DIR/results/test-compile-faults-$(date +%Y%m%d-%H%M%S)
parse_opts "--base= --results=" "$@"
check_choice --base "$base" "${compiled[@]}"
check_outdir --results "$results"
mkdir -p "$results"
results=$(realpath "$results")
load_series "$(base_get "$(base_row "$base")" series)"
n=${#patches[@]}

fail=0
# series_copy DIR: the base's series in DIR/<base>/, so that the check
# names it as it names the real one. Prints that folder.
series_copy() {
	local d=$1/$base p
	mkdir -p "$d"
	: >"$d/series"
	for p in "${patches[@]}"; do
		cp "$p" "$d/"
		basename "$p" >>"$d/series"
	done
	echo "$d"
}
# expect NAME FROM LINE-START DIR: run the check of DIR/series from point
# FROM; it must exit 1 and print a "not ok" line that starts so.
expect() {
	local name=$1 from=$2 want=$3 dir=$4 out rc=0
	out=$("$CI_DIR/jobs/compile-series.sh" --base "$base" --series "$dir/series" \
		--from "$from" --results "$dir/check" 2>&1 | tee "$dir/check.log") || rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$out"; then
		echo "ok - $base: $name: $(grep -m1 -F -- "$want" <<<"$out" | cut -c1-200)"
	else
		echo "not ok - $base: $name: no line starting '$want' (log: $dir/check.log)"
		fail=1
	fi
}

say "$base: a patch edited so that it no longer applies"
d=$(series_copy "$results/not-applying")
edited=$(edit_not_applying "$d")
IFS=$'\t' read -r victim at <<<"$edited"
expect "an edited patch that no longer applies" "$at" \
	"not ok - $base $at/$n $victim: apply failed: $victim does not apply: mm/zswap.c" "$d"

fault=$CI_DIR/tests/faults/$base/build-break.patch
if [ -f "$fault" ]; then
	say "$base: $(basename "$fault") on top of the series"
	d=$(series_copy "$results/build-break")
	cp "$fault" "$d/"
	basename "$fault" >>"$d/series"
	expect "a patch that breaks the build" $((n + 1)) \
		"not ok - $base $((n + 1))/$((n + 1)) build-break.patch: objects, Debian's configuration failed: " "$d"
fi
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test ci/jobs/bisect.sh: put ci/tests/faults/v6.12/build-break.patch into the
# v6.12 series after its second patch (the patches after it do not touch
# mm/zswap.c, so they still apply) and check that bisecting the build names that
# patch.
#
#   ci/tests/test-bisect.sh [--results DIR]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

results=$REPO_DIR/results/test-bisect-$(date +%Y%m%d-%H%M%S)
case $# in
0) ;;
2) [ "$1" = --results ] || die "usage: $0 [--results DIR]"; results=$2 ;;
*) die "usage: $0 [--results DIR]" ;;
esac
mkdir -p "$results/series"
results=$(realpath "$results")

load_series "$REPO_DIR/patches/v6.12/series"
broken=$results/series
: >"$broken/series"
for i in "${!patches[@]}"; do
	cp "${patches[$i]}" "$broken/"
	basename "${patches[$i]}" >>"$broken/series"
	if [ "$i" -eq 1 ]; then
		cp "$CI_DIR/tests/faults/v6.12/build-break.patch" "$broken/0002a-build-break.patch"
		echo 0002a-build-break.patch >>"$broken/series"
	fi
done

out=$("$CI_DIR/jobs/bisect.sh" --base v6.12 --series "$broken/series" \
	--results "$results/bisect" build | tee "$results/bisect.txt") || true
if grep -q '^first bad: 0002a-build-break (point 3 of ' <<<"$out"; then
	echo "ok - bisect names the patch that breaks the build"
else
	echo "not ok - bisect should name 0002a-build-break at point 3"
	exit 1
fi

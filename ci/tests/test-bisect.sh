#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test ci/jobs/bisect.sh: put the base's ci/tests/faults/<base>/build-break.patch
# into its series after the second patch (after the first when the series
# has one; the patches after it do not touch the lines it breaks, so they
# still apply) and check that bisecting the build names that patch.
#
#   ci/tests/test-bisect.sh [--base mainline|v6.12] [--results DIR]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

base=mainline
results=$REPO_DIR/results/test-bisect-$(date +%Y%m%d-%H%M%S)
usage="usage: $0 [--base mainline|v6.12] [--results DIR]"
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2-} ;;
	--results) results=${2-} ;;
	-h|--help) sed -n '3,/^set -e/{/^#/p}' "$0"; exit 0 ;;
	*) die "unknown option $1 ($usage)" ;;
	esac
	[ $# -ge 2 ] || die "$1 needs a value ($usage)"
	shift 2
done
fault=$CI_DIR/tests/faults/$base/build-break.patch
[ -f "$fault" ] || die "--base $base: no ci/tests/faults/$base/build-break.patch to plant ($usage)"
mkdir -p "$results/series"
results=$(realpath "$results")

load_series "$(base_series "$base")"
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
	--results "$results/bisect" build | tee "$results/bisect.txt") || true
if grep -q "^first bad: $name (point $((at + 2)) of " <<<"$out"; then
	echo "ok - bisect names the patch that breaks the build"
else
	echo "not ok - bisect should name $name at point $((at + 2))"
	exit 1
fi

# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Step code of apply: bringing a held tree to a point of a series; sourced after ci/lib.sh, never run.

# to_point K LOG: bring $tree to point K of the series in $patches, the base
# and patches 1..K, applied with ci/2-apply/apply.sh (its output appended to
# LOG); fails as apply.sh does, the tree left at the last patch that applied.
# When the tree holds patches 1..J of this series and nothing else (J <=
# K), only J+1..K are applied; otherwise it goes back to zs-base first. The
# one place that applies a series, for run-series.sh, bisect.sh and
# benchmarks/run.sh.
# shellcheck disable=SC2154 # tree: set by the script that sources this
to_point() {
	local k=$1 log=$2 j i
	j=$(git -C "$tree" rev-list --count zs-base..HEAD)
	if [ "$j" -gt "$k" ] || [ -n "$(git -C "$tree" status --porcelain)" ] ||
		! holds_first "$j"; then
		reset_tree "$tree"
		j=0
	fi
	for ((i = j; i < k; i++)); do
		"$CI_DIR/2-apply/apply.sh" "$tree" "${patches[$i]}" >>"$log" 2>&1 || return 1
	done
}

# holds_first J: the commits on zs-base in $tree are patches 1..J of the
# series, by their subjects.
# shellcheck disable=SC2154
holds_first() {
	local p
	[ "$1" -gt 0 ] || return 0
	diff -q <(git -C "$tree" log --format=%s --reverse zs-base..HEAD) \
		<(for p in "${patches[@]:0:$1}"; do
			git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
		done) >/dev/null
}

# edit_not_applying DIR: in the series DIR/series (its patches in DIR), edit
# the first context line of mm/zswap.c in the first patch that changes that
# file, as a hand edit would, so that the patch no longer applies. Prints
# that patch's name and its point, tab-separated.
edit_not_applying() {
	local dir=$1 victim line
	victim=$(cd "$dir" && xargs grep -l '^+++ b/mm/zswap.c$' <series | head -n1)
	[ -n "$victim" ] || die "$dir/series: no patch changes mm/zswap.c"
	line=$(awk '/^\+\+\+ b\/mm\/zswap.c$/ { z = 1; next }
		/^diff --git / { z = 0 }
		z && /^ [^ ]/ { print NR; exit }' "$dir/$victim")
	[ -n "$line" ] || die "$victim has no context line in mm/zswap.c"
	sed -i "${line}s|\$| /* edited by hand */|" "$dir/$victim"
	printf '%s\t%s\n' "$victim" "$(grep -nx "$victim" "$dir/series" | cut -d: -f1)"
}

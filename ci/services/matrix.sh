#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The points of the main job as a CI matrix, read from the series files so
# that a patch added to a series gets its own cell: one line of JSON,
# {"include": [{"base": "v6.12", "point": 0}, ...]}, for GitHub Actions'
# fromJSON(); --list prints "BASE POINT" lines instead.
#
#   ci/services/matrix.sh [--list] [BASE...]   (default: mainline v6.12 v6.1)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

list=0
[ "${1:-}" = --list ] && { list=1; shift; }
# shellcheck disable=SC2086 # one word a base
[ $# -gt 0 ] || set -- $ZS_BASES

cells=()
for base in "$@"; do
	check_base matrix: "$base"
	row=$(base_row "$base")
	[ "$base" = "$(base_get "$row" name)" ] ||
		die "matrix: $base: a tree of your own has no cells (the bases: ${ZS_BASES// /, })"
	load_series "$(base_get "$row" series)"
	for k in $(seq 0 ${#patches[@]}); do
		if [ $list = 1 ]; then
			echo "$base $k"
		else
			cells+=("{\"base\": \"$base\", \"point\": $k}")
		fi
	done
done
if [ $list = 0 ]; then
	joined=$(printf ', %s' "${cells[@]}")
	echo "{\"include\": [${joined#, }]}"
fi

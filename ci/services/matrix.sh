#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The points of the main job as a CI matrix, read from the series files so
# that a patch added to a series gets its own cell: one line of JSON,
# {"include": [{"base": "v6.12", "point": 0}, ...]}, for GitHub Actions'
# fromJSON(); --list prints "BASE POINT" lines instead; --gitlab prints
# GitLab's child pipeline: ci/services/points.gitlab-ci.yml, then its
# point job with one parallel:matrix entry a base.
#
#   ci/services/matrix.sh [--list|--gitlab] [BASE...]
#                                        (default: the bases of ci/bases)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

out=json
case ${1:-} in
--list|--gitlab) out=${1#--}; shift ;;
esac
# shellcheck disable=SC2086 # one word a base
[ $# -gt 0 ] || set -- $ZS_BASES

cells=()
if [ "$out" = gitlab ]; then
	echo "# Made by ci/services/matrix.sh --gitlab: edit points.gitlab-ci.yml"
	cat "$CI_DIR/services/points.gitlab-ci.yml"
	printf '\npoint:\n  extends: .point\n  parallel:\n    matrix:\n'
fi
for base in "$@"; do
	check_base matrix: "$base"
	row=$(base_row "$base")
	[ "$base" = "$(base_get "$row" name)" ] ||
		die "matrix: $base: a tree of your own has no cells (the bases: ${ZS_BASES// /, })"
	load_series "$(base_get "$row" series)"
	mapfile -t points < <(seq 0 ${#patches[@]})
	case $out in
	list) for k in "${points[@]}"; do echo "$base $k"; done ;;
	gitlab) printf '      - BASE: "%s"\n        POINT: [%s]\n' "$base" \
		"$(printf '"%s", ' "${points[@]}" | sed 's/, $//')" ;;
	json) for k in "${points[@]}"; do
		cells+=("{\"base\": \"$base\", \"point\": $k}")
	done ;;
	esac
done
if [ "$out" = json ]; then
	joined=$(printf ', %s' "${cells[@]}")
	echo "{\"include\": [${joined#, }]}"
fi

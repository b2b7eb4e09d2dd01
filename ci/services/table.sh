#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The table job of both CI services: one table a base of ci/bases over
# the results folders that the point jobs uploaded (each a run of
# ci/jobs/run-series.sh --from K --to K, named BASE-K). A base's folders
# are gathered into OUT/BASE, where ci/7-verdict/verdict.py table writes
# summary.md and summary.json; --summary FILE also appends each base's
# table to FILE under a heading (GitHub's job summary). Fails when a base
# has a row that is not green, or no rows.
#
#   ci/services/table.sh [--summary FILE] OUT CELL...
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

summary=/dev/null
if [ "${1:-}" = --summary ]; then
	summary=$2
	shift 2
fi
[ $# -ge 1 ] || die "usage: $0 [--summary FILE] OUT CELL..."
out=$1
shift

rc=0
for base in $ZS_BASES; do
	mkdir -p "$out/$base"
	for cell in "$@"; do
		name=$(basename "$cell")
		[ "${name%-*}" = "$base" ] || continue
		cp -r "$cell/." "$out/$base/"
	done
	python3 "$CI_DIR/7-verdict/verdict.py" table "$out/$base" || rc=1
	printf '### %s\n\n' "$base" >>"$summary"
	cat "$out/$base/summary.md" >>"$summary" || rc=1
done
exit "$rc"

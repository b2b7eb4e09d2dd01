#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command: lint the pipeline, run the whole series on the default
# base (every point green), then check that injected faults are caught.
#
#   ci/test.sh [--base v6.12|PATH]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

base=${ZS_BASE:-v6.12}
[ "${1:-}" = --base ] && base=$2
out=$REPO_DIR/results/test-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
"$CI_DIR/deps.sh" shellcheck

pass=0 fail=0
stage() {
	local name=$1
	shift
	say "test: $name"
	if "$@"; then
		pass=$((pass + 1))
		echo "ok - $name"
	else
		fail=$((fail + 1))
		echo "not ok - $name"
	fi
}

stage "shellcheck ci/" shellcheck -x "$CI_DIR"/*.sh "$REPO_DIR/.ci/run"
stage "shellcheck guest init" shellcheck -s sh "$CI_DIR/guest/init"
stage "python compiles" python3 -m py_compile "$CI_DIR"/*.py
# The build-only variants at the last point only: at every point they
# would take this past an hour on 2 cores (the main job builds them all).
stage "series on $base, every point green" \
	"$CI_DIR/run-series.sh" --base "$base" --variants last --results "$out/series"
stage "injected faults are caught" \
	"$CI_DIR/test-faults.sh" --base "$base" --results "$out/faults"

echo "results: $out"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

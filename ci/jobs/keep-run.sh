#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keep the record of a finished run of ci/jobs/run-series.sh that a cover
# letter or docs/ speaks of (docs/lts/NAME.txt), headed by the command
# that made it: its table of rows, headed by the run's header (base,
# series, configuration), what zswap_writeback logged (the entries
# written back) and test_zswap's cases, read from the run, never typed.
#
#   ci/jobs/keep-run.sh RESULTS NAME 'COMMAND'
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 3 ] || die "usage: $0 RESULTS NAME 'COMMAND'"
results=$1 name=$2 how=$3
[ -f "$results/header" ] || die "$results/header: no such file (not a run of ci/jobs/run-series.sh?)"
[[ $name =~ ^[A-Za-z0-9.-]+$ ]] || die "NAME '$name': letters, digits, dots and dashes"
out=$REPO_DIR/docs/lts/$name.txt
mkdir -p "$(dirname "$out")"
{
	echo "# $how"
	echo "# kept $(date -u '+%Y-%m-%d %H:%M') UTC from $results"
	echo "# commit $(git -C "$REPO_DIR" rev-parse HEAD)"
	python3 "$CI_DIR/7-verdict/verdict.py" table "$results" || true
	echo
	echo "zswap_writeback, as each row's boot logged it:"
	find "$results" -name ktap.txt | sort | while read -r k; do
		grep -E 'entries written back|writeback\.(full_pool|.*full_pool)|^(not )?ok [0-9]+ writeback' "$k" |
			sed "s|^|${k#"$results"/}: |" || true
	done
	echo
	echo "test_zswap's cases (the newest kselftest on an LTS base), as each row's boot logged them:"
	find "$results" -name ktap.txt | sort | while read -r k; do
		sed -n '/^# running test_zswap/,/^\(not \)\{0,1\}ok [0-9]* test_zswap/p' "$k" |
			grep -E '^ +(not ok|ok) [0-9]+|^ +# [^ T]' |
			sed "s|^|${k#"$results"/}: |" || true
	done
} >"$out"
echo "kept: $out"

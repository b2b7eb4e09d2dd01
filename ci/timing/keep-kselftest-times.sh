#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keep in docs/timing/kselftests.txt how long test_zswap ran in the guest
# on the good kernel and on each broken one, from the results of a run of
# the test command (ci/tests/test.sh): its series stage (the last point of
# mainline) and its selftests-zswap fault stage. ci/timing/figures.py reads
# the figures of docs/tests.md from it.
#
#   ci/timing/keep-kselftest-times.sh [--note TEXT] RESULTS [BEFORE_ROW]
#
# --note: a line for the header, e.g. what else the host ran meanwhile.
# RESULTS: results/test-<date> of ci/tests/test.sh. BEFORE_ROW: a row folder
# of the same fault (leak-entry) with the tests as they were before, kept
# as the line before-leak-entry; without it, the file's before-leak-entry
# line (a run of those tests, which is not made again) stays as it is.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

note=""
if [ "${1-}" = --note ]; then
	note=${2-}
	shift 2 || die "--note needs a value"
fi
{ [ $# -ge 1 ] && [ $# -le 2 ]; } || die "usage: $0 [--note TEXT] RESULTS [BEFORE_ROW]"
res=$1
[ -d "$res/series-mainline" ] || die "$res: no series-mainline (not ci/tests/test.sh results)"
[ -d "$res/faults-selftests-zswap" ] || die "$res: no faults-selftests-zswap"
good=$(find "$res/series-mainline" -maxdepth 1 -name '*-default' | sort | tail -n 1)
rows=("good=$good")
for f in "$res"/faults-selftests-zswap/*/; do
	f=${f%/}
	row=$(find "$f/run" -maxdepth 1 -name '*-default' | sort | tail -n 1)
	[ -n "$row" ] && rows+=("$(basename "$f")=$row")
done
[ $# -lt 2 ] || rows+=("before-leak-entry=$2")
out=$REPO_DIR/docs/timing/kselftests.txt
before="" from=""
if [ $# -lt 2 ]; then
	before=$(grep $'^before-leak-entry\t' "$out" 2>/dev/null || true)
	from=$(sed -n 's/^# kept //p' "$out" 2>/dev/null | head -n 1)
fi
{
	echo "# ci/timing/keep-kselftest-times.sh${note:+ --note ...} $*"
	echo "# kept $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$(dirname "$res")/.." rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "# host: $(nproc) CPUs; the guest: TCG, as ci/6-boot/boot.sh runs it"
	[ -z "$note" ] || echo "# note: $note"
	# Which test_zswap.c the series went on (ci/5-image/lib.sh tests_image).
	if grep -qs "on the mm tree's files" "$res"/series-mainline/image*/tests-apply.log; then
		echo "# test_zswap.c: the mm tree's, as mailed (patches/selftests-zswap/mm-tree), with the series"
	else
		echo "# test_zswap.c: the base tree's own, with the series"
	fi
	[ -z "$before" ] || echo "# before-leak-entry: as in the record kept $from"
	python3 "$CI_DIR/timing/kselftest-time.py" test_zswap "${rows[@]}"
	[ -z "$before" ] || printf '%s\n' "$before"
} >"$out.new"
mv "$out.new" "$out"
cat "$out"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test command: test the judge on its fixtures (seconds), lint the
# pipeline, run the mainline series and the v6.12 and v6.1 backports (every
# point green), then check that injected faults are caught.
#
#   ci/test.sh [--base mainline|v6.12|v6.1|PATH]
#                          (default: mainline, then v6.12, then v6.1)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

bases=(mainline v6.12 v6.1)
[ -n "${ZS_BASE:-}" ] && bases=("$ZS_BASE")
[ "${1:-}" = --base ] && bases=("$2")
out=$REPO_DIR/results/test-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

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

# First, as it takes seconds and everything after it is judged by it: the
# judge (ci/judge.py) on real outputs with known verdicts, each fixture
# shown to depend on the rules it covers.
stage "the judge on its fixtures" python3 "$CI_DIR/test-judge.py"
"$CI_DIR/deps.sh" shellcheck python3-yaml

stage "shellcheck ci/" shellcheck -x "$CI_DIR"/*.sh "$REPO_DIR/.ci/run"
stage "shellcheck guest init" shellcheck -s sh "$CI_DIR/guest/init"
stage "shellcheck benchmarks/" shellcheck -x "$REPO_DIR/benchmarks/run.sh"
stage "shellcheck benchmark guest scripts" \
	shellcheck -s sh "$REPO_DIR"/benchmarks/guest/*
stage "MAINTAINERS.snippet" "$CI_DIR/check-maintainers.sh" "${bases[0]}"
stage "python compiles" python3 -m py_compile "$CI_DIR"/*.py \
	"$REPO_DIR"/benchmarks/*.py
# The top-level series is the mainline one, relative to patches/.
stage "series is patches/mainline/series" diff -u \
	<(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's|^|mainline/|' "$REPO_DIR/patches/mainline/series") \
	<(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_DIR/series")
# To stay within an hour on 2 cores, what the main job runs at every point
# is cut here: every point of every series is built and gets its three
# boots, but the build-only variants, the debug config (lockdep, KASAN)
# and the KCSAN row run at the last point of v6.12 only, where they cover
# that whole series and both of its lockless changes (ci/run-series.sh
# runs variants everywhere, debug and KCSAN at the last point of every
# series). Before the last point that changes the kernel, the stress
# tests run 5 s instead of 20 and 15 (--stress short). The static-analysis
# gates (coccinelle alone takes minutes a file) are left to the main job;
# test-faults.sh checks that a planted sparse warning turns the sparse cell
# red, and a planted MEMCG=n build break that build's cell.
for base in "${bases[@]}"; do
	if [ "$base" = v6.12 ]; then
		opts=(--variants last --debug last --kcsan last --gates none)
	else
		opts=(--variants none --debug none --kcsan none --gates none)
	fi
	opts+=(--stress short)
	stage "series on $base, every point green" \
		"$CI_DIR/run-series.sh" --base "$base" "${opts[@]}" \
		--results "$out/series-${base//\//_}"
done
# The CI files for other machines: their cells against the series, and a
# replay of their artifact upload and table job on the runs above.
replay=()
[ "${bases[*]}" = "mainline v6.12 v6.1" ] &&
	replay=(--results "mainline=$out/series-mainline"
		--results "v6.12=$out/series-v6.12" --results "v6.1=$out/series-v6.1")
stage "GitHub and GitLab CI files" \
	/usr/bin/python3 "$CI_DIR/check-workflows.py" "${replay[@]}"
# The must-catch faults of each series (ci/faults/<series>/must-catch).
for base in "${bases[@]}"; do
	stage "injected faults are caught on $base" \
		"$CI_DIR/test-faults.sh" --base "$base" --results "$out/faults-$base"
done
[ "${bases[*]}" = "mainline v6.12 v6.1" ] &&
	stage "mails: v1, a v2 that keeps the change-id, refusals to send" \
		"$CI_DIR/test-mail.sh"
[ "${bases[*]}" = "mainline v6.12 v6.1" ] &&
	stage "bisect names a broken patch" \
		"$CI_DIR/test-bisect.sh" --results "$out/bisect"

echo "results: $out"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

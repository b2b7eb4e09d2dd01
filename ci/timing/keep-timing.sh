#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keep the timing table of a finished run as one of the runs the README
# quotes (docs/timing/NAME.txt), headed by how it was made, so that its
# figures come from the run and ci/timing/figures.py can check them.
#
#   ci/timing/keep-timing.sh RESULTS NAME 'HOW'
#
# RESULTS: the run's results folder (with timing.txt); NAME: test-cold,
# test-warm, main-cold or main-warm; HOW: one line on how the run was made (the
# command, fresh clone or not, which caches were empty).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 3 ] || die "usage: $0 RESULTS test-cold|test-warm|main-cold|main-warm 'HOW'"
results=$1 name=$2 how=$3
case $name in
test-cold|test-warm|main-cold|main-warm) ;;
*) die "NAME '$name': one of test-cold, test-warm, main-cold, main-warm" ;;
esac
[ -f "$results/timing.txt" ] || die "$results/timing.txt: no such file"
grep -q '^ *total ' "$results/timing.txt" ||
	die "$results/timing.txt: no total line (did the run finish?)"
out=$REPO_DIR/docs/timing/$name.txt
mkdir -p "$(dirname "$out")"
{
	echo "# $how"
	echo "# kept $(date -u '+%Y-%m-%d %H:%M') UTC from $results"
	echo "# commit $(git -C "$results" rev-parse HEAD 2>/dev/null ||
		git -C "$REPO_DIR" rev-parse HEAD)"
	echo "# host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo)," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)"
	cat "$results/timing.txt"
} >"$out"
echo "kept: $out"

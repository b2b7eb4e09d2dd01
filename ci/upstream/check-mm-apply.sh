#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check that a series applies to upstream's mm tree as it is, not only to
# this repository's stand-ins for it: each patch, in order, with git apply
# onto a scratch copy of the files the series touches,
# taken from MM, a checkout of the mm tree or any folder that holds those
# files at their paths (mm/zswap.c read from the linux-mm/linux-mm mirror
# at a commit, say). MM itself is only read.
#
#   ci/upstream/check-mm-apply.sh [--kept] MM [SERIES]
#
# SERIES defaults to patches/mainline/series. Prints a line a patch;
# exits 1, naming the patch and the file, at the first that does not
# apply, or at once on bad input. --kept: MM holds only some of the
# mm tree's files (patches/*/mm-tree), each the blob that MM.blobs (git
# ls-tree's lines in the mm tree) names for it, which is checked first; a
# patch that touches a file it does not hold is named and skipped, not an
# error.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

case ${1-} in
-h|--help) sed -n '3,/^set -e/{/^#/p}' "$0" | sed -e 's/^# \{0,1\}//'; exit 0 ;;
esac
kept=0
[ "${1-}" != --kept ] || { kept=1; shift; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	die "usage: $0 [--kept] MM [SERIES] (see --help)"
fi
mm=$1
series=${2:-$REPO_DIR/patches/mainline/series}
[ -d "$mm" ] || die "MM '$mm': no such folder"
check_series SERIES "$series"
load_series "$series"

if [ $kept -eq 1 ]; then
	[ -f "$mm.blobs" ] || die "--kept $mm: no $mm.blobs naming its files' blobs"
	while IFS=$' \t' read -r mode type sha path; do
		got=$(git hash-object "$mm/$path")
		[ "$got" = "$sha" ] || die "$mm/$path: blob $got, not the mm tree's $sha ($mode $type)"
	done <"$mm.blobs"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
held=()
for p in "${patches[@]}"; do
	mapfile -t files < <(git apply --numstat "$p" | cut -f3)
	for f in "${files[@]}"; do
		[ ! -f "$mm/$f" ] || continue
		if [ $kept -eq 0 ]; then
			echo "error: $(basename "$p") touches $f, which $mm does not have" >&2
			exit 1
		fi
		echo "skipped: $(basename "$p") touches $f, which $mm does not keep"
		continue 2
	done
	for f in "${files[@]}"; do
		[ ! -e "$work/$f" ] || continue
		mkdir -p "$work/$(dirname "$f")"
		cp "$mm/$f" "$work/$f"
	done
	held+=("$p")
done

# git apply changes nothing unless the whole patch applies.
for p in "${held[@]}"; do
	if ! out=$(cd "$work" && git apply -v "$p" 2>&1); then
		echo "$out" | grep -E '^(error|Checking)' >&2
		echo "NOT APPLYING: $(basename "$p") to $mm" >&2
		exit 1
	fi
	hunks=$(echo "$out" | grep -E '^Hunk' | paste -sd' ') || true
	hunks=${hunks:+: $hunks}
	echo "ok: $(basename "$p") applies${hunks:- cleanly, at the lines it names}"
done

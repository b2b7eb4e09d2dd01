#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Checkpatch: scripts/checkpatch.pl --strict of the tree on one patch.
# Exit 0 only with no errors, warnings or checks, but for the messages
# ci/2-apply/checkpatch-allow lists for every file concerned.
#
#   ci/2-apply/checkpatch.sh TREE PATCH
#
# Commit references are checked as in a maintainer's tree, as far as a
# tree without upstream's history allows. checkpatch.pl (6.1, 6.12 and
# 7.3 alike: sub git_commit_info, the GIT_COMMIT_ID and UNKNOWN_COMMIT_ID
# checks) looks each reference up with git log when $GIT_DIR (default
# .git) exists. In a maintainer's tree it finds the commit: the reference
# must then be 'commit <12+ hex> ("title")', the title upstream's, all
# within two lines (our LTS messages had references over three), else
# GIT_COMMIT_ID is an ERROR. In our scratch trees, one commit each, the
# lookup fails: GIT_COMMIT_ID is skipped, and "commit <hex>" on one line,
# the right form, gets UNKNOWN_COMMIT_ID ("maybe rebased or not
# pulled?"), so the gate rewarded the wrong form. Where $GIT_DIR does not
# exist, checkpatch checks the form against a placeholder id instead (hex
# length and case, "commit" with the hex, parentheses and quotes), as a
# maintainer's tree does short of comparing the title. So GIT_DIR points
# nowhere here, and UNKNOWN_COMMIT_ID, which then fires for every
# "commit <hex>", is ignored: whether a commit exists upstream, and its
# title, cannot be checked without upstream's history.
# What else a missing $GIT_DIR changes: CamelCase names are seeded from
# find include/ rather than git ls-files include/ (the same files), and
# the SPDX check (scripts/spdxcheck.py) is skipped, as it was in effect
# before: that script needs python3-ply and python3-git, which the
# pipeline does not install, and checkpatch takes its failing with
# nothing on stdout for a valid license.
# The stable form's first line, "commit <40 hex> upstream."
# (stable-kernel-rules.rst), which a backport of the LTS series opens with,
# is no reference to a commit in checkpatch's sense: its GIT_COMMIT_ID check
# would want a title in parentheses there. checkpatch reads a copy without
# that one line; ci/tests/check-patch-form.py checks that line's form.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 TREE PATCH" >&2; exit 2; }
patch=$(realpath "$2")
allow=$(dirname "$(realpath "$0")")/checkpatch-allow
# The files the patch adds, deletes or renames, and whether
# ci/2-apply/checkpatch-allow lets each of them pass FILE_PATH_CHANGES.
ignore=()
moved=$(awk '/^diff --git / { a = substr($3, 3); b = substr($4, 3) }
	/^(new|deleted) file mode / { print ($1 == "new" ? b : a) }
	/^rename (from|to) / { print $3 }' "$patch" | sort -u)
if [ -n "$moved" ] && [ -f "$allow" ] &&
	! grep -vxFf <(awk -F '\t' '$1 == "FILE_PATH_CHANGES" { print $2 }' "$allow") \
		<<<"$moved" >/dev/null; then
	ignore=(--ignore FILE_PATH_CHANGES)
fi
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
copy=$copy/$(basename "$patch")
sed '0,/^commit [0-9a-f]\{40\} upstream\.$/{//d}' "$patch" >"$copy"
cd "$1"
# /dev/null is no folder, so nothing can exist below it.
GIT_DIR=/dev/null/no-git perl scripts/checkpatch.pl --strict --color=never \
	--ignore UNKNOWN_COMMIT_ID "${ignore[@]}" --summary-file "$copy" 2>&1

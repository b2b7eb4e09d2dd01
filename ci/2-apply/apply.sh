#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Apply: git am one patch onto the scratch tree.
#
#   ci/2-apply/apply.sh TREE PATCH
#
# On failure the mailbox is aborted (the tree stays at the previous patch)
# and the message names the patch and the file that did not apply.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 TREE PATCH" >&2; exit 2; }
tree=$1
patch=$(realpath "$2")
name=$(basename "$patch")

if out=$(git -C "$tree" -c user.name=zswap-series -c user.email=ci@localhost \
	am -q --keep-cr "$patch" 2>&1); then
	exit 0
fi
git -C "$tree" am --abort >/dev/null 2>&1 || true
printf '%s\n' "$out"
# git apply says "error: patch failed: FILE:LINE" or
# "error: FILE: does not exist in index"; name the file in one line.
files=$(printf '%s\n' "$out" |
	sed -n -e 's/^error: patch failed: \([^:]*\):.*/\1/p' \
		-e 's/^error: \([^:]*\): does not exist in index/\1/p' \
		-e 's/^error: \([^:]*\): already exists in index/\1/p' |
	sort -u | paste -sd' ' -)
echo "APPLY FAILED: $name does not apply: ${files:-see the output above}" >&2
exit 1

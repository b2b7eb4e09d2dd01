#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Step 2b: scripts/checkpatch.pl --strict of the tree on one patch.
# Exit 0 only with no errors, warnings or checks.
#
#   ci/checkpatch.sh TREE PATCH
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 TREE PATCH" >&2; exit 2; }
patch=$(realpath "$2")
cd "$1"
exec perl scripts/checkpatch.pl --strict --color=never --summary-file "$patch" 2>&1

# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ci/ scripts; sourced, never run.

CI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export REPO_DIR
REPO_DIR=$(dirname "$CI_DIR")
# Caches live outside the repository: unpacked trees, build folders, ccache.
CACHE_DIR=${ZS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswap-series}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
: "${ZS_T0:=$(date +%s)}"
export ZS_T0

elapsed() {
	local s=$(($(date +%s) - ZS_T0))
	printf '%02d:%02d' $((s / 60)) $((s % 60))
}

# Progress goes to stderr so that stdout stays parseable.
say() {
	printf '[%s] %s\n' "$(elapsed)" "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

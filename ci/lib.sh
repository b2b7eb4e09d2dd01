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

# The kconfig fragments of the test kernel's default configuration, in
# merge order (ci/run-series.sh; ci/bisect.sh builds in the same folder).
# shellcheck disable=SC2034 # used by the scripts that source this file
default_frags=("$REPO_DIR/configs/guest.config" "$REPO_DIR/configs/swap.config"
	"$REPO_DIR/configs/faultinject.config" "$REPO_DIR/configs/kunit.config")

# series_for KVER|BASE: this repository's series for a kernel version or a
# base name: the LTS backports for 6.12.y and 6.1.y, else the mainline one.
series_for() {
	case $1 in
	v6.1|6.1|6.1.*) echo "$REPO_DIR/patches/v6.1/series" ;;
	v6.12|6.12|6.12.*) echo "$REPO_DIR/patches/v6.12/series" ;;
	*) echo "$REPO_DIR/patches/mainline/series" ;;
	esac
}

# load_series FILE: set patches (paths, in order) and patch_dir. Entries
# are relative to patches/ (this repository's series) or to the series
# file's own folder (a series of your own), as QUILT_PATCHES would be.
load_series() {
	local entries p
	[ -f "$1" ] || die "series file $1 not found"
	mapfile -t entries < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1")
	patch_dir=$REPO_DIR/patches
	[ -f "$patch_dir/${entries[0]:-none}" ] || patch_dir=$(dirname "$(realpath "$1")")
	patches=()
	for p in "${entries[@]}"; do
		[ -f "$patch_dir/$p" ] ||
			die "series $1 names $p, which is not in $patch_dir"
		patches+=("$patch_dir/$p")
	done
}

# reset_tree DIR: put the tree DIR back at zs-base: no half-applied
# mailbox, no commits on top, no stray files.
reset_tree() {
	git -C "$1" am --abort >/dev/null 2>&1 || true
	git -C "$1" reset -q --hard zs-base
	git -C "$1" clean -q -f -d -x
}

# use_tree BASE: prepare BASE with ci/tree.sh and hold a working tree of it,
# reset to zs-base, until this script exits, so that no other job applies
# patches there meanwhile: the cached tree itself when no job holds it, else a worktree
# of it of its own (slot 1, 2, ...). Sets the variables of tree.sh, with
# ZS_TREE the tree held, and ZS_TAG, the name of the build folders that go
# with it (a slot's differ from the cached tree's, as a build folder
# remembers the source tree it was built from).
use_tree() {
	local envs repo dir slot=0
	envs=$("$CI_DIR/tree.sh" "$1") || die "cannot prepare the base $1"
	eval "$envs"
	repo=$ZS_TREE
	while :; do
		dir=$repo
		[ "$slot" -eq 0 ] ||
			dir=$(dirname "$(dirname "$repo")")/work/slot$slot/$(basename "$repo")
		mkdir -p "$(dirname "$dir")"
		exec {ZS_TREE_FD}>"$dir.lock"
		flock -n "$ZS_TREE_FD" && break
		exec {ZS_TREE_FD}>&-
		say "tree: $dir is held by another job"
		slot=$((slot + 1))
	done
	if [ ! -e "$dir/.git" ]; then
		say "tree: a worktree of $repo of its own, at $dir"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$dir" zs-base
	fi
	# At its base: nothing of the job that held it before.
	reset_tree "$dir"
	ZS_TREE=$dir
	ZS_TAG=$(basename "$repo")
	[ "$slot" -eq 0 ] || ZS_TAG+=-slot$slot
}

# to_point K LOG: bring $tree to point K of the series in $patches, the base
# and patches 1..K, applied with ci/apply.sh (its output appended to LOG);
# fails as apply.sh does, the tree left at the last patch that applied.
# When the tree holds patches 1..J of this series and nothing else (J <=
# K), only J+1..K are applied; otherwise it goes back to zs-base first. The
# one place that applies a series, for run-series.sh, bisect.sh and
# benchmarks/run.sh.
# shellcheck disable=SC2154 # tree: set by the script that sources this
to_point() {
	local k=$1 log=$2 j i
	j=$(git -C "$tree" rev-list --count zs-base..HEAD)
	if [ "$j" -gt "$k" ] || [ -n "$(git -C "$tree" status --porcelain)" ] ||
		! holds_first "$j"; then
		reset_tree "$tree"
		j=0
	fi
	for ((i = j; i < k; i++)); do
		"$CI_DIR/apply.sh" "$tree" "${patches[$i]}" >>"$log" 2>&1 || return 1
	done
}

# holds_first J: the commits on zs-base in $tree are patches 1..J of the
# series, by their subjects.
# shellcheck disable=SC2154
holds_first() {
	local p
	[ "$1" -gt 0 ] || return 0
	diff -q <(git -C "$tree" log --format=%s --reverse zs-base..HEAD) \
		<(for p in "${patches[@]:0:$1}"; do
			git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
		done) >/dev/null
}

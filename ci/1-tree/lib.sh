# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Step code of tree: holding and resetting a prepared tree (ci/1-tree/tree.sh prepares it); sourced after ci/lib.sh, never run.

# clear_stale_locks DIR: remove the lock files git left in the working
# tree DIR's own git folder (index, HEAD) when a job holding DIR was
# killed half-way through a git command (a run stopped by its machine's
# end). Only the holder of DIR (use_tree) writes them, so with DIR held
# they are a dead job's, and git would refuse every later command there.
clear_stale_locks() {
	local gd f
	gd=$(git -C "$1" rev-parse --absolute-git-dir) || return 0
	for f in index.lock HEAD.lock ORIG_HEAD.lock; do
		[ -e "$gd/$f" ] || continue
		say "tree: removing $gd/$f, left by a job that was killed"
		rm -f "$gd/$f"
	done
}

# reset_tree DIR: put the tree DIR back at zs-base: no half-applied
# mailbox, no commits on top, no stray files.
reset_tree() {
	git -C "$1" am --abort >/dev/null 2>&1 || true
	git -C "$1" reset -q --hard zs-base
	git -C "$1" clean -q -f -d -x
}

# use_tree BASE: prepare BASE with ci/1-tree/tree.sh and hold a working tree of
# it, reset to zs-base, until this script exits, so that no other job applies
# patches there meanwhile: the cached tree itself when no job holds it, else a worktree
# of it of its own (slot 1, 2, ...). Sets the variables of tree.sh, with
# ZS_TREE the tree held, and ZS_TAG, the name of the build folders that go
# with it (a slot's differ from the cached tree's, as a build folder
# remembers the source tree it was built from).
use_tree() {
	local envs repo dir slot=0
	envs=$("$CI_DIR/1-tree/tree.sh" "$1") || die "cannot prepare the base $1"
	set_env ZS_ <<<"$envs"
	repo=$ZS_TREE
	while :; do
		dir=$repo
		[ "$slot" -eq 0 ] ||
			dir=$(dirname "$(dirname "$repo")")/work/slot$slot/$(basename "$repo")
		mkdir -p "$(dirname "$dir")"
		exec {tree_lock_fd}>"$dir.lock"
		flock -n "$tree_lock_fd" && break
		exec {tree_lock_fd}>&-
		say "tree: $dir is held by another job"
		slot=$((slot + 1))
	done
	if [ ! -e "$dir/.git" ]; then
		say "tree: a worktree of $repo of its own, at $dir"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$dir" zs-base
	fi
	clear_stale_locks "$dir"
	# At its base: nothing of the job that held it before.
	reset_tree "$dir"
	ZS_TREE=$dir
	ZS_TAG=$(basename "$repo")
	[ "$slot" -eq 0 ] || ZS_TAG+=-slot$slot
}

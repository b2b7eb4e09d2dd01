# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Step code of build: what a build is made from and where it is made; sourced after ci/lib.sh, never run.

# source_id TREE: the git tree id of TREE's tracked files as they are on
# disk, changes not committed included: the identity of the sources a
# kernel is built from. ci/3-build/build.sh builds it into the kernel's
# banner (KBUILD_BUILD_HOST=src-ID); a row claims it for its boots
# (ci/6-boot/boot.sh --source-id), and the judge compares the two.
source_id() {
	local idx rc=0
	idx=$(mktemp)
	cp "$(git -C "$1" rev-parse --absolute-git-dir)/index" "$idx" &&
		GIT_INDEX_FILE=$idx git -C "$1" add -u &&
		GIT_INDEX_FILE=$idx git -C "$1" write-tree || rc=1
	rm -f "$idx"
	return $rc
}

# build_dir NAME: the path of the build folder NAME (a configuration:
# default, debug, kcsan, debian, objects-guest, variant-SWAP-n, ...) of the
# tree use_tree holds. Every build folder's path is made here and nowhere
# else: build_folder for the booted rows' folders, kept for each state of
# their sources; this alone for the others, one folder each, whose builds
# compile a few objects or run once a job.
build_dir() {
	echo "$CACHE_DIR/build/$ZS_TAG-$1"
}

# build_folder CONFIG: the build folder in configuration CONFIG for the
# tree use_tree holds, as its files are now, holding the objects of the
# last build of these same sources where there was one. Every job starts
# again from the base and steps through the series (a fault goes on top
# of the last point): in one folder that goes back from the last point to
# the base and forward again through every header the series changes, and
# each fault undoes the last point's build. So the folder of each state
# of the sources built (its source_id) is kept beside the one make uses
# (CONFIG.trees/ID), and renamed into place when those sources come back:
# a second run of a job compiles nothing that did not change. Every build
# runs at the same path, as objtool's build and the dependency files name
# it (in a copy elsewhere, objtool and with it every object is rebuilt).
# Sources built for the first time start from the folder as the last build
# left it, a copy of which is kept for that build's sources (a second or
# two; 200 MB in the default configuration); the 40 folders used last are
# kept. The objects are right whatever the folder held before, as make and
# ci/3-build/keep-mtimes.py decide by content and mtime.
build_folder() {
	local config=$1 d keep id at=""
	d=$(build_dir "$config")
	keep=$d.trees
	id=$(source_id "$ZS_TREE")
	mkdir -p "$keep"
	[ -f "$d.tree" ] && at=$(cat "$d.tree")
	if [ "$at" != "$id" ]; then
		if [ -d "$d" ] && [ -n "$at" ]; then
			if [ -d "$keep/$id" ]; then
				rm -rf "${keep:?}/$at"
				mv "$d" "$keep/$at"
			elif [ ! -d "$keep/$at" ]; then
				# A copy that fails (the disk full) costs a rebuild
				# of those sources when they come back, no more;
				# one a killed job left half-made is removed first.
				rm -rf "$keep/$at.new"
				if cp -a "$d" "$keep/$at.new" 2>/dev/null; then
					mv "$keep/$at.new" "$keep/$at"
				else
					rm -rf "$keep/$at.new"
				fi
			fi
			# Its access time: its modification time is the one
			# ci/3-build/build.sh compares with the end of its last
			# build, to tell that nothing was written since.
			[ ! -d "$keep/$at" ] || touch -a "$keep/$at"
		fi
		if [ -d "$keep/$id" ]; then
			rm -rf "$d"
			mv "$keep/$id" "$d"
		fi
		echo "$id" >"$d.tree"
	fi
	keep_newest "$keep" 40
	echo "$d"
}

# distro_config ROW [FLAVOUR]: the path of Debian's own configuration for
# the kernel of the base ROW (ci/lib.sh base_row), amd64, of FLAVOUR (none,
# the default, or rt), from its config package of ci/bases, installed if
# missing (the "debian" column and ci/jobs/compile-series.sh), where
# Debian 12 ships one; nothing otherwise.
distro_config() {
	local pkg
	pkg=$(base_get "$1" config)
	[ -n "$pkg" ] || return 0
	"$CI_DIR/deps.sh" "$pkg" >&2 || return 1
	echo "/usr/src/$pkg/config.amd64_${2:-none}_amd64.xz"
}

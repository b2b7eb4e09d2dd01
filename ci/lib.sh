# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ci/ scripts; sourced, never run.

CI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export REPO_DIR
REPO_DIR=$(dirname "$CI_DIR")
# Caches live outside the repository: unpacked trees, build folders, ccache.
CACHE_DIR=${ZS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswap-series}
# Not depend mode: ccache's key covers the files the compiler reads as
# C (the source and the headers it includes), not a file an assembler
# .incbin pulls in (piggy.S, the compressed kernel; kernel/configs.c).
# In its preprocessor and direct modes ccache sees the .incbin and never
# caches such an object; depend mode skips that scan, and a piggy.o of
# an earlier kernel whose payload had the same length was served, so a
# stale kernel was booted (ci/tests/test-build-cache.sh).
unset CCACHE_DEPEND
export CCACHE_NODEPEND=1
# A cache that depend mode filled serves such an object in direct mode
# too, on a hit: the cache this project used then (ccache/, which can be
# removed) is not used.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache-nodepend}
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

# Checks of the values given on a command line, each run before anything
# is installed, fetched, unpacked, checked out or built: each dies naming
# the option (OPT, e.g. --runs) and what is wrong with VALUE.

# base_get BASE|KVER FIELD: FIELD of a base of ci/bases (the one place
# a base is described), found by its name or by a kernel version its kver
# pattern matches (the catch-all "*" last); empty for "-". Fails where
# nothing matches.
base_get() {
	awk -v key="$1" -v field="$2" '
	/^#/ || NF == 0 { next }
	{ row[++n] = $0 }
	END {
		split("name kver package suites config series tests standins checks", f, " ")
		for (i in f) col[f[i]] = i
		if (!(field in col)) { print "base_get: no field " field > "/dev/stderr"; exit 2 }
		for (r = 1; r <= n; r++) { split(row[r], v); if (v[1] == key) { hit = r; break } }
		# By version: a pattern of its own first, the catch-all last.
		for (r = 1; !hit && r <= n; r++) {
			split(row[r], v)
			pat = v[2]; gsub(/[.]/, "[.]", pat); gsub(/[*]/, ".*", pat)
			if (v[2] != "*" && key ~ "^" pat "$") hit = r
		}
		for (r = 1; !hit && r <= n; r++) { split(row[r], v); if (v[2] == "*") hit = r }
		if (!hit) exit 1
		split(row[hit], v)
		if (v[col[field]] != "-") print v[col[field]]
	}' "$CI_DIR/bases"
}

# The bases known by name (ci/bases); any other base is a kernel tree's
# path.
ZS_BASES=$(awk '!/^#/ && NF { printf "%s%s", sep, $1; sep = " " }' "$CI_DIR/bases")

# The default base: the first of ci/bases.
# shellcheck disable=SC2034 # used by the scripts that source this file
ZS_DEFAULT_BASE=${ZS_BASES%% *}

# base_has BASE|KVER CHECK: CHECK is among the base's checks (ci/bases).
base_has() {
	[[ ",$(base_get "$1" checks)," == *",$2,"* ]]
}

# bases_with CHECK: the bases of ci/bases that have CHECK, one a line.
bases_with() {
	local b
	for b in $ZS_BASES; do
		! base_has "$b" "$1" || echo "$b"
	done
}

# set_env PREFIX: set the variables of the NAME=VALUE lines on stdin, a
# step's output (ci/1-tree/tree.sh's ZS_*, b4state.py's st_*): each value is
# the rest of its line, taken as it is, never run; a name without PREFIX
# is refused.
set_env() {
	local line k
	while IFS= read -r line; do
		k=${line%%=*}
		[[ $k == "$1"* && $k =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] ||
			die "set_env: '$line' is no $1* variable"
		printf -v "$k" '%s' "${line#*=}"
	done
}

# base_named NAME: NAME is a base of ci/bases.
base_named() {
	[ -n "$1" ] && [[ " $ZS_BASES " == *" $1 "* ]]
}

# base_key BASE: what base_get finds BASE's line by: its name, or for a
# tree of your own the version of its top Makefile.
base_key() {
	if base_named "$1"; then
		echo "$1"
	else
		makefile_kver <"$1/Makefile"
	fi
}

# check_base OPT VALUE: one of ZS_BASES, or the path of a kernel tree (a
# Makefile and mm/ there).
check_base() {
	base_named "$2" && return 0
	[ -f "$2/Makefile" ] && [ -d "$2/mm" ] && return 0
	# A series named where a base goes (--series takes it).
	[ -z "$2" ] || [[ $2 == */* ]] || [ ! -f "$REPO_DIR/patches/$2/series" ] ||
		die "$1 $2: that is a series, not a base: give --series $2"
	local why="there is no such file or folder"
	[ ! -e "$2" ] || why="it has no Makefile and mm/"
	die "$1 '$2': no such base: give ${ZS_BASES// /, } or the path of a kernel tree ($why)"
}

# check_count OPT VALUE: a whole number above 0.
check_count() {
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 '$2': not a whole number above 0"
}

# check_choice OPT VALUE WORD...: VALUE is one of the WORDs.
check_choice() {
	local opt=$1 v=$2 w
	shift 2
	for w in "$@"; do [ "$v" != "$w" ] || return 0; done
	die "$opt '$v': not one of $*"
}

# check_words OPT LIST WORD...: LIST is one or more of the WORDs, comma-
# separated.
check_words() {
	local opt=$1 list=$2 w items
	shift 2
	[[ -n $list && $list != ,* && $list != *, && $list != *,,* ]] ||
		die "$opt '$list': not a comma-separated list of $(IFS=,; echo "$*")"
	IFS=, read -ra items <<<"$list"
	for w in "${items[@]}"; do
		[[ " $* " == *" $w "* && $w != *" "* ]] ||
			die "$opt '$list': $w is none of $(IFS=,; echo "$*")"
	done
}

# check_file OPT PATH: an existing file.
check_file() {
	[ -f "$2" ] || die "$1 '$2': no such file"
}

# check_outdir OPT PATH [VALUE]: PATH is a folder that can be made or
# written in: not an existing file, nor under one. VALUE is what OPT was
# given, if not PATH (a file to be written in the folder PATH).
check_outdir() {
	local d=$2 v=${3:-$2}
	[ -n "$d" ] || die "$1: an empty path"
	while [ ! -e "$d" ]; do d=$(dirname "$d"); done
	[ -d "$d" ] || die "$1 '$v': $d is a file, not a folder"
	[ -w "$d" ] || die "$1 '$v': $d is not writable"
}

# check_series OPT FILE: a series file whose patches are all there
# (load_series, in a subshell: the caller's patches stay as they are).
check_series() {
	local why
	check_file "$1" "$2"
	why=$(load_series "$2" 2>&1 >/dev/null) || true
	[ -z "$why" ] || die "$1 '$2': ${why#error: }"
}

# The kconfig fragments of the test kernel's default configuration, in
# merge order (ci/jobs/run-series.sh; ci/jobs/bisect.sh builds in the same
# folder).
# shellcheck disable=SC2034 # used by the scripts that source this file
default_frags=("$REPO_DIR/configs/guest.config" "$REPO_DIR/configs/swap.config"
	"$REPO_DIR/configs/faultinject.config" "$REPO_DIR/configs/kunit.config")

# series_for KVER|BASE: this repository's series for a kernel version or a
# base name (ci/bases).
series_for() {
	echo "$REPO_DIR/$(base_get "$1" series)"
}

# makefile_kver: the kernel version that the top Makefile on stdin names
# (6.12.118, 7.3.0-rc7), as make kernelversion prints it.
makefile_kver() {
	awk -F' *= *' 'seen[$1]++ { next }
	$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
	END { printf "%s%s%s%s\n", v, p != "" ? "." p : "", p != "" && s != "" ? "." s : "", e }'
}

# base_series BASE: the series of a base of check_base, where known before
# its tree is prepared: by name, or by the version of a tree's Makefile.
base_series() {
	series_for "$(base_key "$1")"
}

# distro_config: the path of Debian's own configuration for the kernel
# $ZS_KVER (its config package of ci/bases, installed if missing; the
# "debian" column and ci/jobs/compile-series.sh), where Debian 12 ships
# one; nothing otherwise.
distro_config() {
	local pkg
	pkg=$(base_get "$ZS_KVER" config)
	[ -n "$pkg" ] || return 0
	"$CI_DIR/deps.sh" "$pkg" >&2 || return 1
	echo "/usr/src/$pkg/config.amd64_none_amd64.xz"
}

# tests_series_for KVER|BASE: the series of kselftests that the guest's
# tests are built with at every point of a base's series, the base
# included (ci/bases; docs/series.md); nothing where there is none (6.12's
# test_zswap.c lacks what they build on, 6.1 has no test_zswap.c).
tests_series_for() {
	local s
	s=$(base_get "$1" tests)
	[ -z "$s" ] || echo "$REPO_DIR/$s"
}

# tests_image TREE OUTDIR [TESTS_SERIES [MM]]: build the guest's tests
# (ci/4-image/image.sh) from TREE as it is, with the patches of TESTS_SERIES put
# on top with ci/2-apply/apply.sh for the build (OUTDIR/tests-apply.log) and
# taken off again: the tree is left at the commit it was at. With MM (a
# folder of the mm tree's files, patches/selftests-zswap/mm-tree), the
# series is checked to apply to TREE's own files, then put on MM's files
# in their place: the kselftests tested are the text that is mailed.
# Fails, saying why, when a patch does not apply or the tests do not
# build. An image made before from the same sources (image_key) is taken
# from the cache instead.
tests_image() {
	local tree=$1 out=$2 ts=${3:-} mm=${4:-} head p rc=0 key="" f
	# load_series sets these: the caller's stay as they are.
	local patches=() patch_dir mmfiles=()
	head=$(git -C "$tree" rev-parse HEAD)
	mkdir -p "$out"
	: >"$out/tests-apply.log"
	[ -z "$ts" ] || load_series "$ts"
	[ -z "$mm" ] || mapfile -t mmfiles < <(find "$mm" -type f | LC_ALL=C sort)
	key=$(image_key "$tree" "${patches[@]}" "${mmfiles[@]}") || key=""
	local kept=$CACHE_DIR/images/$key
	if [ -n "$key" ] && [ -f "$kept/initramfs.cpio.gz" ]; then
		cp "$kept"/* "$out/"
		touch "$kept"
		echo "image: made before from the same sources, kept in $kept" >>"$out/tests-apply.log"
		return 0
	fi
	if [ -n "$mm" ]; then
		"$CI_DIR/upstream/check-mm-apply.sh" "$tree" "$ts" >>"$out/tests-apply.log" 2>&1 ||
			{ tail -n 3 "$out/tests-apply.log" >&2; return 1; }
		# A commit, for git am; the reset below takes it off.
		cp -r "$mm/." "$tree/"
		if ! { git -C "$tree" add -f -- "${mmfiles[@]#"$mm"/}" &&
			git -C "$tree" -c user.name=zswap-series -c user.email=ci@localhost \
				commit -q -m "the mm tree's files of $mm"; }; then
			git -C "$tree" reset -q --hard "$head"
			return 1
		fi
		echo "the tests series on the mm tree's files of $mm" >>"$out/tests-apply.log"
	fi
	for p in "${patches[@]}"; do
		"$CI_DIR/2-apply/apply.sh" "$tree" "$p" >>"$out/tests-apply.log" 2>&1 && continue
		grep 'APPLY FAILED' "$out/tests-apply.log" >&2 || true
		git -C "$tree" reset -q --hard "$head"
		return 1
	done
	"$CI_DIR/4-image/image.sh" "$tree" "$out" || rc=$?
	git -C "$tree" reset -q --hard "$head"
	if [ $rc -eq 0 ] && [ -n "$key" ]; then
		rm -rf "$kept.new"
		mkdir -p "$kept.new"
		for f in initramfs.cpio.gz lists selftests-build.log tests-apply.log; do
			cp "$out/$f" "$kept.new/"
		done
		rm -rf "$kept"
		mv "$kept.new" "$kept"
		keep_newest "$CACHE_DIR/images" 100
	fi
	return $rc
}

# image_key TREE PATCH...: a name for everything the test image is made
# from: TREE's tools/testing/selftests as committed, the tests series'
# patches, this repository's selftests/ and guest init, the compiler, the
# C library and busybox. Fails (no key: the image is built) when TREE is
# not a git tree or has changes of that folder not committed.
image_key() {
	local tree=$1 sub
	shift
	sub=$(git -C "$tree" rev-parse -q --verify HEAD:tools/testing/selftests) || return 1
	[ -z "$(git -C "$tree" status --porcelain -- tools/testing/selftests)" ] || return 1
	{
		echo "$sub"
		[ $# -eq 0 ] || cat "$@"
		(cd "$REPO_DIR" && find selftests ci/4-image/guest ci/4-image/image.sh -type f -print0 |
			LC_ALL=C sort -z | xargs -0 sha1sum)
		gcc --version | sed -n 1p
		dpkg-query -W libc6-dev linux-libc-dev busybox-static 2>&1 || true
	} | sha1sum | cut -d' ' -f1
}

# keep_newest DIR N: remove all but the N entries of DIR modified last
# (a cache's bound; its users touch an entry when they use it).
keep_newest() {
	find "$1" -mindepth 1 -maxdepth 1 -printf '%T@ %p\n' | sort -rn |
		tail -n +$(($2 + 1)) | cut -d' ' -f2- | xargs -r rm -rf
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
	clear_stale_locks "$dir"
	# At its base: nothing of the job that held it before.
	reset_tree "$dir"
	ZS_TREE=$dir
	ZS_TAG=$(basename "$repo")
	[ "$slot" -eq 0 ] || ZS_TAG+=-slot$slot
}

# source_id TREE: the git tree id of TREE's tracked files as they are on
# disk, changes not committed included: the identity of the sources a
# kernel is built from. ci/3-build/build.sh builds it into the kernel's
# banner (KBUILD_BUILD_HOST=src-ID); a row claims it for its boots
# (ci/5-boot/boot.sh --source-id), and the judge compares the two.
source_id() {
	local idx rc=0
	idx=$(mktemp)
	cp "$(git -C "$1" rev-parse --absolute-git-dir)/index" "$idx" &&
		GIT_INDEX_FILE=$idx git -C "$1" add -u &&
		GIT_INDEX_FILE=$idx git -C "$1" write-tree || rc=1
	rm -f "$idx"
	return $rc
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
	d=$CACHE_DIR/build/$ZS_TAG-$config
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
			[ ! -d "$keep/$at" ] || touch "$keep/$at"
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

# to_point K LOG: bring $tree to point K of the series in $patches, the base
# and patches 1..K, applied with ci/2-apply/apply.sh (its output appended to
# LOG); fails as apply.sh does, the tree left at the last patch that applied.
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
		"$CI_DIR/2-apply/apply.sh" "$tree" "${patches[$i]}" >>"$log" 2>&1 || return 1
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

# edit_not_applying DIR: in the series DIR/series (its patches in DIR), edit
# the first context line of mm/zswap.c in the first patch that changes that
# file, as a hand edit would, so that the patch no longer applies. Prints
# that patch's name and its point, tab-separated.
edit_not_applying() {
	local dir=$1 victim line
	victim=$(cd "$dir" && xargs grep -l '^+++ b/mm/zswap.c$' <series | head -n1)
	[ -n "$victim" ] || die "$dir/series: no patch changes mm/zswap.c"
	line=$(awk '/^\+\+\+ b\/mm\/zswap.c$/ { z = 1; next }
		/^diff --git / { z = 0 }
		z && /^ [^ ]/ { print NR; exit }' "$dir/$victim")
	[ -n "$line" ] || die "$victim has no context line in mm/zswap.c"
	sed -i "${line}s|\$| /* edited by hand */|" "$dir/$victim"
	printf '%s\t%s\n' "$victim" "$(grep -nx "$victim" "$dir/series" | cut -d: -f1)"
}

# timed FILE STEP CMD...: run CMD (a command, or a function in this shell)
# and append to FILE a line for ci/timing/timing.py: STEP, its start and end
# (epoch seconds), and the ccache hits and misses of its compilations,
# tab-separated. The counts come from a stats log of CMD's own
# (CCACHE_STATSLOG), so that other jobs' builds do not count. Then, for a
# build, the objects its folder holds (ci/3-build/build.sh writes them to
# ZS_TIMED_OBJECTS), so that ci/timing/timing.py can tell a whole build; empty
# for other steps. Returns CMD's status.
timed() {
	local file=$1 step=$2 t0 rc=0 slog objs
	shift 2
	slog=$(mktemp)
	objs=$(mktemp)
	t0=$(date +%s)
	CCACHE_STATSLOG=$slog ZS_TIMED_OBJECTS=$objs "$@" || rc=$?
	printf '%s\t%s\t%s\t%s\t%s\n' "$step" "$t0" "$(date +%s)" "$(awk '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h++ }
		$1 == "cache_miss" { m++ }
		END { printf "%d\t%d", h, m }' "$slog")" "$(head -c 20 "$objs")" >>"$file"
	rm -f "$slog" "$objs"
	return $rc
}

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tree: prepare a scratch git tree of the base kernel, outside the
# repository, and print where it is and which version it holds.
#
#   ci/1-tree/tree.sh BASE | /path/to/kernel/tree
#
# A base of ci/bases takes its Debian package: where that is a pattern
# (mainline: linux-source-7.*), the newest one its suites serve
# (experimental, else sid), downloaded alone (ci/1-tree/fetch-mainline.sh);
# else Debian 12's package of that name (installed if missing); a path takes a copy of that tree (its HEAD commit if it is a
# git checkout, else the files as they are). The user's tree is only ever
# read. Prints shell assignments: ZS_TREE, ZS_BASE_DESC, ZS_KVER, and
# ZS_UPSTREAM (the upstream tag the tree corresponds to, where known) and
# ZS_STANDINS (how many stand-ins for mm-stable the base carries).
#
# A tree whose series is the mainline one, and whose zswap_invalidate()
# does not take a range of slots yet (7.3 and before), gets the stand-ins
# for the mm-stable commits that series is cut against
# (patches/mm-stable/series) on top: the base, point 0, is the tree with
# them. A tree that has that interface already gets none, saying so.
#
# The base is the tag zs-base of ZS_TREE. Its working files belong to the
# job that holds the tree (use_tree in ci/1-tree/lib.sh, which also gives a job
# a worktree of its own when another holds this one): this script never
# changes them once the tree exists, so that a job that only reads zs-base
# (MAINTAINERS, mails) can call it while another job builds there.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 1 ] || die "usage: $0 BASE|PATH (BASE: ${ZS_BASES// /, })"
base=$1
check_base base "$base"
# Its line of ci/bases: by name, or by the version of a tree of your own.
row=$(base_row "$base")
trees=$CACHE_DIR/trees
mkdir -p "$trees"
# Two jobs preparing the same base at once would unpack it twice; jobs
# on different bases (the test command's LTS stages beside its mainline
# ones) go on side by side.
exec {prep}>"$trees/.prepare-$(printf '%s' "$base" | sha1sum | cut -c1-12).lock"
flock "$prep"

commit_all() {
	# Debian's source tree ignores every top-level path (its .gitignore
	# has "/*"), hence -f.
	git -C "$1" init -q
	# No automatic gc: the first commit's ~90000 loose objects would start
	# a repack of the whole tree in the background, minutes of CPU that
	# the builds need (and it would hold this script's lock meanwhile).
	git -C "$1" config gc.auto 0
	git -C "$1" add -A -f
	git -C "$1" -c user.name=zswap-series -c user.email=ci@localhost \
		commit -q --no-verify -m "$2"
	git -C "$1" tag -f zs-base >/dev/null
	git -C "$1" tag -f zs-upstream >/dev/null
}

# unpack_debian: unpack $tarball into $tree once, as one commit.
unpack_debian() {
	if [ ! -e "$tree/.git/zs-ready" ]; then
		say "tree: unpacking $tarball"
		rm -rf "$tree" "$tree.tmp"
		mkdir -p "$tree.tmp"
		tar -C "$tree.tmp" -xf "$tarball"
		mv "$tree.tmp"/* "$tree"
		rmdir "$tree.tmp"
		say "tree: committing the base into a scratch git tree"
		commit_all "$tree" "$desc"
		touch "$tree/.git/zs-ready"
	fi
}

upstream=""
# A base of ci/bases: its Debian package, the newest of a pattern or one
# of Debian 12's; else a tree of your own.
pkg=""
[ "$base" != "$(base_get "$row" name)" ] || pkg=$(base_get "$row" package)
case $pkg in
*'*'*)
	# KEY=value lines: the package, its version and suite, the tarball.
	fetched=$("$CI_DIR/1-tree/fetch-mainline.sh" "$base") || exit 1
	set_env ZS_ <<<"$fetched"
	tarball=$ZS_TARBALL
	tree=$trees/$ZS_PKG-$ZS_DEBVER
	desc="Debian $ZS_PKG $ZS_DEBVER ($ZS_SUITE)"
	unpack_debian
	;;
?*)
	"$CI_DIR/deps.sh" "$pkg" || die "cannot install $pkg"
	debver=$(dpkg-query -W -f='${Version}' "$pkg")
	tarball=$(dpkg -L "$pkg" | grep -m1 '\.tar\.xz$') ||
		die "$pkg ships no tarball"
	tree=$trees/$pkg-$debver
	desc="Debian $pkg $debver"
	unpack_debian
	;;
*)
	if [ ! -f "$base/Makefile" ] || [ ! -d "$base/mm" ]; then
		die "$base: not a kernel tree (no Makefile or mm/)"
	fi
	src=$(realpath "$base")
	key=$(printf '%s' "$src" | sha1sum | cut -c1-12)
	tree=$trees/user-$key
	if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 &&
		[ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
		head=$(git -C "$src" rev-parse HEAD)
		desc="$src at $(git -C "$src" describe --always --tags HEAD)"
		[ -z "$(git -C "$src" status --porcelain -uno)" ] ||
			say "tree: warning: $src has uncommitted changes; using its HEAD"
		if [ ! -d "$tree/.git" ]; then
			say "tree: cloning $src ($head)"
			git clone -q --no-checkout "$src" "$tree"
			git -C "$tree" checkout -q --detach "$head"
		elif [ "$(git -C "$tree" rev-parse -q --verify zs-base)" != "$head" ]; then
			# Only the objects and the tag: the working files may be
			# a job's.
			say "tree: fetching $head from $src"
			git -C "$tree" fetch -q "$src" "$head"
		fi
		git -C "$tree" tag -f zs-upstream "$head" >/dev/null
	else
		desc="$src (plain directory)"
		# Copied into a tree of its own, committed there, and only
		# fetched from there: the working files may be a job's.
		say "tree: copying $src"
		mkdir -p "$tree.import"
		rsync -a --delete --exclude=/.git "$src/" "$tree.import/"
		rm -rf "$tree.import/.git"
		commit_all "$tree.import" "$desc"
		if [ ! -d "$tree/.git" ]; then
			git clone -q "$tree.import" "$tree"
		else
			git -C "$tree" fetch -q "$tree.import" HEAD
		fi
		git -C "$tree" tag -f zs-upstream "$(git -C "$tree.import" rev-parse HEAD)" >/dev/null
		rm -rf "$tree.import"
	fi
	;;
esac

# A Debian tree unpacked before zs-upstream was kept: zs-base is that.
git -C "$tree" rev-parse -q --verify zs-upstream >/dev/null ||
	git -C "$tree" tag zs-upstream zs-base

# The version of the tree as fetched, whatever the working files hold now.
kver=$(git -C "$tree" show zs-upstream:Makefile | makefile_kver)
# The upstream tag of a Debian tree: 7.3.0-rc7 is v7.3-rc7, 6.12.117 is
# v6.12.117; a tree of your own names none.
if [ -n "$pkg" ]; then
	upstream=v${kver%%-*}
	upstream=${upstream%.0}
	case $kver in *-rc*) upstream+=-${kver##*-} ;; esac
fi

# takes_range COMMIT: zswap_invalidate() takes a range of slots there (the
# three parameters of mm-stable's), or zswap has no such function.
takes_range() {
	local h
	h=$(git -C "$tree" show "$1:include/linux/zswap.h" 2>/dev/null) || return 0
	tr '\n' ' ' <<<"$h" | grep -qE 'void zswap_invalidate\([^,)]*,[^,)]*,[^)]*\)' ||
		! grep -q 'void zswap_invalidate' <<<"$h"
}

# apply_standins COMMIT: commit the stand-ins ($patches) on COMMIT, without
# touching the working files (they may be a job's), and print the last.
# The commits are the same for the same inputs: their dates are the
# patches', their committer the pipeline.
apply_standins() {
	local head=$1 p tmp
	tmp=$(mktemp -d)
	GIT_INDEX_FILE=$tmp/index git -C "$tree" read-tree "$head"
	for p in "${patches[@]}"; do
		git mailinfo "$tmp/msg" "$tmp/diff" <"$p" >"$tmp/info"
		GIT_INDEX_FILE=$tmp/index git -C "$tree" apply --cached "$tmp/diff" 2>"$tmp/err" ||
			die "stand-in $(basename "$p") does not apply to $desc: $(grep -m1 '^error:' "$tmp/err" || cat "$tmp/err")"
		head=$(
			info() { sed -n "s/^$1: //p" "$tmp/info"; }
			export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
			GIT_AUTHOR_NAME=$(info Author) GIT_AUTHOR_EMAIL=$(info Email)
			GIT_AUTHOR_DATE=$(info Date) GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
			{ info Subject; echo; cat "$tmp/msg"; } |
				git -C "$tree" -c user.name=zswap-series -c user.email=ci@localhost \
					commit-tree "$(GIT_INDEX_FILE=$tmp/index git -C "$tree" write-tree)" -p "$head"
		)
	done
	rm -rf "$tmp"
	echo "$head"
}

standins=0
# The stand-ins of the base (ci/bases).
sfile=$(base_get "$row" standins)
if [ -n "$sfile" ]; then
	if takes_range zs-upstream; then
		say "tree: zswap_invalidate() takes a range here already: no stand-in for mm-stable applied"
	else
		load_series "$sfile"
		standins=${#patches[@]}
		# Made once for these stand-ins on this tree, then kept.
		key=$(cat <(git -C "$tree" rev-parse zs-upstream) "${patches[@]}" | sha1sum | cut -c1-12)
		made=$(cat "$tree/.git/zs-standins-$key" 2>/dev/null) || made=""
		if [ -z "$made" ] || ! git -C "$tree" rev-parse -q --verify "$made^{commit}" >/dev/null; then
			say "tree: zswap_invalidate() takes no range here: the $standins stand-ins for mm-stable go on top (patches/mm-stable)"
			made=$(apply_standins "$(git -C "$tree" rev-parse zs-upstream)")
			echo "$made" >"$tree/.git/zs-standins-$key"
		fi
		git -C "$tree" tag -f zs-base "$made" >/dev/null
	fi
fi
desc+=" ($kver)"
if [ "$standins" -gt 0 ]; then
	desc+=", with $standins stand-ins for mm-stable"
else
	git -C "$tree" tag -f zs-base zs-upstream >/dev/null
fi

printf 'ZS_TREE=%s\nZS_BASE_DESC=%s\nZS_KVER=%s\nZS_UPSTREAM=%s\nZS_STANDINS=%s\n' \
	"$tree" "$desc" "$kver" "$upstream" "$standins"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# For the mainline base: find the newest linux-source-7.* that
# Debian's experimental suite serves (sid's when experimental has none),
# download that one package and take the kernel tarball out of it.
#
#   ci/1-tree/fetch-mainline.sh [BASE]  -> ZS_PKG, ZS_DEBVER, ZS_SUITE, ZS_TARBALL
#
# BASE (default mainline) names the line of ci/bases whose package pattern
# and suites these are.
# The suites come from the archive this machine already uses for bookworm,
# in an apt configuration of their own under the cache (signed by Debian's
# archive keyring): nothing is installed from them and the machine's own
# sources are left as they are. The package lists are refreshed every run,
# as these packages move (7.3 final replaces 7.3-rc7); when the archive
# cannot be reached, the newest package fetched before is used, saying so.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

base=${1:-mainline}
check_base BASE "$base"
row=$(base_row "$base")
pkgpat=$(base_get "$row" package)
[[ $pkgpat == *'*' ]] || die "fetch-mainline: $base's package $pkgpat is not a pattern"
prefix=${pkgpat%\*}
IFS=, read -ra suites <<<"$(base_get "$row" suites)"
dir=$CACHE_DIR/mainline

# The tarball fetched last, with its package, version and suite (.info).
pick_cached() {
	[ -f "$dir/last.info" ] || return 1
	# shellcheck disable=SC1091 # written below
	. "$dir/last.info"
	[ -s "$dir/$ZS_PKG-$ZS_DEBVER.tar.xz" ]
}

# ZS_MAINLINE_PINNED=1: the package fetched last, without asking the
# archive again. ci/tests/test.sh sets it once its first stage has fetched, so
# that every stage of one test run takes the same base, and the lists are
# not read again (6 s), nor this machine's apt sources (1 s), by each of its
# dozen jobs on mainline.
if [ -n "${ZS_MAINLINE_PINNED:-}" ] && pick_cached; then
	printf 'ZS_PKG=%s\nZS_DEBVER=%s\nZS_SUITE=%s\nZS_TARBALL=%s\n' \
		"$ZS_PKG" "$ZS_DEBVER" "$ZS_SUITE" "$dir/$ZS_PKG-$ZS_DEBVER.tar.xz"
	exit 0
fi
"$CI_DIR/deps.sh" debian-archive-keyring
mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/debs"
debfile=""
log=$dir/apt.log

# The archive behind this machine's bookworm entry.
# shellcheck disable=SC2016 # apt expands $(...) itself
uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
	awk '$2 == "bookworm" { print $1; exit }')
[ -n "$uri" ] || die "mainline: no bookworm entry in this machine's apt sources to take the archive from"
cat >"$dir/suites.sources" <<EOF
Types: deb
URIs: $uri
Suites: ${suites[*]}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_opts=(
	-o "Dir::Etc::sourcelist=$dir/suites.sources" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir"
	-o "Dir::Cache::archives=$dir/archives" -o APT::Get::List-Cleanup=0
	-o Debug::NoLocking=1
)

if apt-get "${apt_opts[@]}" -q update >"$log" 2>&1; then
	# Every linux-source-7.* with its versions and suites; experimental's
	# newest first, else sid's.
	mapfile -t offers < <(apt-cache "${apt_opts[@]}" pkgnames "$prefix" |
		sort -V | xargs -r apt-cache "${apt_opts[@]}" madison |
		awk -F' *[|] *' '{ split($3, s, " "); sub("/.*", "", s[2]);
			print s[2], $1, $2 }')
	for suite in "${suites[@]}"; do
		best=""
		for o in "${offers[@]}"; do
			read -r s p v <<<"$o"
			[ "$s" = "$suite" ] || continue
			if [ -z "$best" ] || dpkg --compare-versions "$v" gt "${best#* }"; then
				best="$p $v"
			fi
		done
		[ -n "$best" ] && break
	done
	[ -n "$best" ] || die "mainline: none of ${suites[*]} serves a $pkgpat package (apt lists in $dir/lists)"
	ZS_PKG=${best% *} ZS_DEBVER=${best#* } ZS_SUITE=$suite
	tarball=$dir/$ZS_PKG-$ZS_DEBVER.tar.xz
	if [ ! -s "$tarball" ]; then
		say "tree: downloading $ZS_PKG $ZS_DEBVER from $ZS_SUITE"
		rm -f "$dir"/debs/*.deb
		(cd "$dir/debs" && apt-get "${apt_opts[@]}" -q download "$ZS_PKG=$ZS_DEBVER") \
			>>"$log" 2>&1 || die "mainline: could not download $ZS_PKG $ZS_DEBVER (log: $log)"
		debfile=$(find "$dir/debs" -name "${ZS_PKG}_*.deb" | head -n1)
		[ -n "$debfile" ] || die "mainline: apt-get download left no .deb (log: $log)"
		# The kernel tarball is all that is kept of the package.
		say "tree: taking the source tarball out of $(basename "$debfile")"
		dpkg-deb --fsys-tarfile "$debfile" |
			tar -xO "./usr/src/$ZS_PKG.tar.xz" >"$tarball.tmp" ||
			die "mainline: $debfile holds no usr/src/$ZS_PKG.tar.xz"
		mv "$tarball.tmp" "$tarball"
		rm -f "$debfile"
		find "$dir" -maxdepth 1 -name 'linux-source-*.tar.xz' ! -path "$tarball" -delete
	fi
	printf 'ZS_PKG=%q\nZS_DEBVER=%q\nZS_SUITE=%q\n' \
		"$ZS_PKG" "$ZS_DEBVER" "$ZS_SUITE" >"$dir/last.info"
else
	pick_cached || die "mainline: the archive's package lists could not be fetched and no $pkgpat was fetched before (log: $log)"
	say "tree: warning: archive unreachable, using $ZS_PKG $ZS_DEBVER ($ZS_SUITE) fetched before"
	tarball=$dir/$ZS_PKG-$ZS_DEBVER.tar.xz
fi

printf 'ZS_PKG=%s\nZS_DEBVER=%s\nZS_SUITE=%s\nZS_TARBALL=%s\n' \
	"$ZS_PKG" "$ZS_DEBVER" "$ZS_SUITE" "$tarball"

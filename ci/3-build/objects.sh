#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The objects a series touches, one a line: those of the .c files its
# patches change and those that include the headers they change, as far as
# TREE has them now (a file a later patch adds is not there yet) and the
# configuration in BUILDDIR/.config builds them. For ci/3-build/build.sh
# (--objects-of) and ci/3-build/build-distro.sh, which compile them alone.
#
#   ci/3-build/objects.sh TREE BUILDDIR SERIES-PATCH...
#
# "not in this configuration: OBJ" goes to stderr for each object left out.
# Fails when none is left.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 TREE BUILDDIR SERIES-PATCH..." >&2; exit 2; }
tree=$1
build=$2
shift 2

# The files the series touches, from the patches themselves: the tree may
# stand at any point of the series.
files=$(sed -n 's|^+++ b/||p' "$@" | sort -u)
# The .c files: those it changes, and those that include the headers it
# changes, by their include path or, from the header's own folder, by its
# name. One git grep for each kind (each reads the whole tree).
cfiles=$(grep '\.c$' <<<"$files" || true)
headers=$(grep '\.h$' <<<"$files" || true)
if [ -n "$headers" ]; then
	angle=() hdirs=""
	for f in $headers; do
		case $f in include/*) angle+=(-e "#include <${f#include/}>") ;; esac
		hdirs+=" $(dirname "$f")"
	done
	users=$(
		[ ${#angle[@]} -eq 0 ] ||
			git -C "$tree" grep -l -F "${angle[@]}" -- '*.c' 2>/dev/null || true
		for d in $(tr ' ' '\n' <<<"$hdirs" | sort -u); do
			quoted=()
			for f in $headers; do
				[ "$(dirname "$f")" != "$d" ] || quoted+=(-e "#include \"$(basename "$f")\"")
			done
			git -C "$tree" grep -l -F "${quoted[@]}" -- "$d/*.c" 2>/dev/null || true
		done)
	cfiles=$(printf '%s\n' "$cfiles" "$users")
fi
cfiles=$(sed -e '/^$/d' -e '/^\(tools\|scripts\|Documentation\)\//d' <<<"$cfiles" | sort -u)
# A .c file that another one of its folder includes (KUnit tests built
# into the file they test) is compiled with that one: the files of those
# folders that such a line names, as FOLDER/NAME.
included=""
if [ -n "$cfiles" ]; then
	mapfile -t cdirs < <(for c in $cfiles; do echo "$(dirname "$c")/*.c"; done | sort -u)
	included=$(git -C "$tree" grep -o -E '#include "[^"/]+\.c"' -- "${cdirs[@]}" 2>/dev/null |
		sed -E 's|^(.*/)?[^/:]+:#include "([^"]+)"$|\1\2|' | sort -u) || true
fi
objs=()
for c in $cfiles; do
	# A file a later patch adds is not there yet: nothing to compile.
	[ -f "$tree/$c" ] || continue
	if grep -qxF "$c" <<<"$included"; then
		echo "included by another file, compiled with it: $c" >&2
		continue
	fi
	objs+=("${c%.c}.o")
done
[ ${#objs[@]} -gt 0 ] || { echo "the series touches no object" >&2; exit 1; }
mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)

# configured OBJ: whether this configuration builds OBJ, from the
# "obj-$(CONFIG_X) += OBJ" line of its folder's Makefile (compiled alone,
# an object the configuration leaves out need not compile at all, as
# memcontrol-v1.o without CONFIG_MEMCG_V1). Without such a line: yes.
configured() {
	local sym
	sym=$(sed -n "s/^obj-\$(\(CONFIG_[A-Z0-9_]*\))[[:space:]]*+=.*[[:space:]]$(basename "$1")\([[:space:]].*\)\{0,1\}\$/\1/p" \
		"$tree/$(dirname "$1")/Makefile" | head -n1)
	[ -z "$sym" ] || grep -qE "^$sym=(y|m)\$" "$build/.config"
}
n=0
for o in "${objs[@]}"; do
	if configured "$o"; then
		echo "$o"
		n=$((n + 1))
	else
		echo "not in this configuration: $o" >&2
	fi
done
[ $n -gt 0 ] || { echo "the series touches no object this configuration builds" >&2; exit 1; }

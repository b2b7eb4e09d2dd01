#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The objects a series touches, one a line: those of the .c files its
# patches change and those that include the headers they change, as far as
# TREE has them now (a file a later patch adds is not there yet) and the
# configuration in BUILDDIR/.config builds them. For ci/3-build/build.sh
# (ZS_OBJECTS_OF) and ci/3-build/build-distro.sh, which compile them alone.
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
objs=()
add_obj() {
	local c=$1
	case $c in tools/*|scripts/*|Documentation/*) return ;; esac
	# A file a later patch adds is not there yet: nothing to compile. (An
	# "&&" here would make the function, and under set -e the script,
	# fail without a word.)
	[ -f "$tree/$c" ] || return 0
	# A .c file that another one of its folder includes (KUnit tests
	# built into the file they test) is compiled with that one.
	if git -C "$tree" grep -q -F "#include \"$(basename "$c")\"" -- "$(dirname "$c")/*.c" 2>/dev/null; then
		echo "included by another file, compiled with it: $c" >&2
		return 0
	fi
	objs+=("${c%.c}.o")
}
for f in $files; do
	case $f in
	*.c) add_obj "$f" ;;
	*.h)
		# The objects that include the header, by its include path.
		case $f in include/*) inc=${f#include/} ;; *) inc=$(basename "$f") ;; esac
		while IFS= read -r c; do
			add_obj "$c"
		done < <(git -C "$tree" grep -l -F "#include <$inc>" -- '*.c' 2>/dev/null
			git -C "$tree" grep -l -F "#include \"$(basename "$f")\"" \
				-- "$(dirname "$f")/*.c" 2>/dev/null)
		;;
	esac
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

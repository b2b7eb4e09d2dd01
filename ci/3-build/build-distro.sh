#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Step 3b, build with the distribution's configuration: compile, with
# Debian's own kernel configuration for this kernel (linux-config-X.Y,
# amd64), the objects a series touches and those that include the headers
# it changes, as they are in TREE now. A distribution kernel team builds
# the series with that configuration, not with the small one the guest
# boots, so an object that only breaks there shows here.
#
#   ci/3-build/build-distro.sh TREE BUILDDIR CONFIG.xz SERIES-PATCH...
#
# The objects are the same at every point of a series (those of all its
# patches), so that the column compares like with like and the build
# folder stays incremental. Prints the objects it compiled.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -ge 4 ] || die "usage: $0 TREE BUILDDIR CONFIG.xz SERIES-PATCH..."
tree=$(realpath "$1")
build=$2
config=$3
shift 3
mkdir -p "$build"
build=$(realpath "$build")
[ -f "$config" ] || die "no distribution configuration: $config"

export KBUILD_BUILD_TIMESTAMP='' KBUILD_BUILD_USER=ci KBUILD_BUILD_HOST=zswap-series
mk() { make -s -C "$tree" O="$build" CC="ccache gcc" "$@"; }

# The configuration once, and again only when the package's changes: an
# unchanged .config keeps the folder incremental. Debian signs its
# modules and trusts its own certificates, which the source package does
# not ship: neither matters to compiling objects.
if ! cmp -s <(xzcat "$config") "$build/config.distro" 2>/dev/null; then
	xzcat "$config" >"$build/config.distro"
	cp "$build/config.distro" "$build/.config"
	"$tree/scripts/config" --file "$build/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL --set-str MODULE_SIG_KEY "certs/signing_key.pem"
	mk olddefconfig
fi

# The files the series touches, from the patches themselves: the tree may
# stand at any point, and a file the later patches add may not exist yet.
files=$(sed -n 's|^+++ b/||p' "$@" | sort -u)
objs=()
add_obj() {
	local c=$1
	case $c in tools/*|scripts/*|Documentation/*) return ;; esac
	# A file a later patch adds is not there yet: nothing to compile. (An
	# "&&" here would make the function, and under set -e the script,
	# fail without a word.)
	[ -f "$tree/$c" ] || return 0
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
built=()
for o in "${objs[@]}"; do
	if configured "$o"; then built+=("$o"); else echo "not in this configuration: $o"; fi
done
[ ${#built[@]} -gt 0 ] || die "the series touches no object this configuration builds"
printf 'objects: %s\n' "${built[*]}"
mk -j"$(nproc)" "${built[@]}"

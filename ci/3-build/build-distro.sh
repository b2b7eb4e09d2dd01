#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build with the distribution's configuration: compile, with
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

# The objects, and on stderr those this configuration leaves out.
objs=$("$(dirname "$0")/objects.sh" "$tree" "$build" "$@") || exit 1
mapfile -t built <<<"$objs"
printf 'objects: %s\n' "${built[*]}"
mk -j"${ZS_MAKE_JOBS:-$(nproc)}" "${built[@]}"

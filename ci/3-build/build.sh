#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build: configure (tinyconfig + fragments) and build bzImage out of
# tree, incrementally, through ccache (the first build of a tree and
# configuration without it).
#
#   ci/3-build/build.sh [--check-last] [--sanitize-only 'FILE...']
#                       [--objects-of 'PATCH...'] [--objects-out FILE]
#                       TREE BUILDDIR FRAGMENT...
#
# A later fragment overrides an earlier one. An option the fragments ask
# for that the tree knows but that did not end up in .config is an error (a
# dependency is missing); one the tree does not know at all (e.g.
# CONFIG_MEMCG_V1 before v6.12) is only reported. With --check-last only
# the last fragment is checked (a variant that turns off what the others
# need). ARCH comes from the environment (default x86_64).
# --sanitize-only: .c files of the tree (e.g. "mm/zswap.c lib/xarray.c");
# with CONFIG_KCSAN, only those files are instrumented.
# --objects-of: patch files; only the objects they touch are compiled,
# not bzImage.
# --objects-out: where to write, for ci/timing/timing.py, how many objects
# the folder holds after a whole build (timed in ci/lib.sh gives it).
# The kernel's banner names the sources it was built from
# ("Linux version ... (ci@src-ID)", ID the source_id of ci/3-build/lib.sh), so that
# each boot shows which kernel it ran (ci/7-verdict/judge.py).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"

check_last="" sanitize_only="" objects_of="" objects_out=""
parse_opts "--check-last --sanitize-only= --objects-of= --objects-out= @" "$@"
set -- "${args[@]}"
[ $# -ge 3 ] || { echo "usage: $0 [options] TREE BUILDDIR FRAGMENT..." >&2; exit 2; }
tree=$(realpath "$1")
src=$(source_id "$tree") || die "$tree is not a git tree: its kernel could not name its sources"
build=$2
shift 2
frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done
mkdir -p "$build"
build=$(realpath "$build")
export ARCH=${ARCH:-x86_64}

# Configuring is 17 of the 26 seconds of a build that compiles nothing
# (tinyconfig, the merge, olddefconfig, and the resync make does after
# them). What it makes depends only on the fragments, ARCH, the tree's
# Kconfig files and scripts, and the tools Kconfig asks for versions (its
# key), so it is done only for a key this folder has not configured for.
config_key() {
	local checked=all
	[ -z "$check_last" ] || checked=last
	printf '%s\n' "$ARCH" "$checked"
	cat "${frags[@]}"
	(cd "$tree" && find . -path ./.git -prune -o \( -name 'Kconfig*' \
		-o -path './scripts/*' -o -path '*/configs/*' \) -type f -print0 |
		LC_ALL=C sort -z | xargs -0 sha1sum)
	local t v
	for t in gcc ld as pahole rustc bindgen; do
		command -v "$t" >/dev/null || continue
		v=$("$t" --version 2>&1 || true)
		echo "$t ${v%%$'\n'*}"
	done
}
key=$(config_key | sha1sum | cut -d' ' -f1)

# A folder whose last build made these targets from these same sources in
# this configuration, and where nothing was written since it ended, holds
# what make would make: make is not run. The faults switched at boot
# (ci/tests/test-faults.sh) build one kernel again and again, and a make
# that has nothing to do takes 10-20 s.
made=$(printf '%s\n' "$src" "$key" "$sanitize_only" "$objects_of" |
	sha1sum | cut -d' ' -f1)
if [ "$(cat "$build/.zs-made" 2>/dev/null)" = "$made" ] && [ -f "$build/.zs-built" ] &&
	[ -z "$(find "$build" -newer "$build/.zs-built" -print -quit)" ]; then
	echo "build: this folder's last build made these sources in this configuration, nothing written since: make not run"
	[ -z "$objects_out" ] || echo 0 >"$objects_out"
	exit 0
fi
rm -f "$build/.zs-made"

# Files rewritten with the content they had at this folder's last build
# (a reset and git am again, quilt push and pop) get that build's mtime
# back, so that make compiles only what changed (ci/3-build/keep-mtimes.py
# says when this holds). Failing, it leaves make to the mtimes alone.
if python3 "$(dirname "$0")/keep-mtimes.py" "$tree" "$build"; then
	trap 'touch "$build/.zs-built"' EXIT
else
	echo "keep-mtimes failed: make decides by the mtimes alone"
	rm -f "$build/.zs-sources" "$build/.zs-built"
fi

export KBUILD_BUILD_TIMESTAMP='' KBUILD_BUILD_USER=ci KBUILD_BUILD_HOST=src-$src
mk() { make -s -C "$tree" O="$build" "$@"; }

# The configurations this folder made, by key: a series that changes a
# Kconfig file goes back and forth between two keys (the bisection, every
# job that starts again from the base), and making one reads the Kconfig
# files three times, each running the toolchain tests they ask for (20 s;
# make reads them once more, the .config being new).
made_configs=$build/.zs-configs
if [ -f "$build/.config" ] && [ -f "$build/include/config/auto.conf" ] &&
	[ "$(cat "$build/.zs-config" 2>/dev/null)" = "$key" ]; then
	echo "config: fragments, Kconfig files and tools as at this folder's last configuration: kept"
	check=0
elif [ -f "$made_configs/$key" ]; then
	echo "config: fragments, Kconfig files and tools as at an earlier configuration of this folder: its .config again"
	rm -f "$build/.zs-config"
	check=1
	cp "$made_configs/$key" "$build/.config"
	touch -a "$made_configs/$key"
else
	rm -f "$build/.zs-config"
	check=1
	mk tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
		"${frags[@]}" >"$build/merge_config.log" 2>&1
	mk olddefconfig
fi

bad=0
while IFS= read -r line; do
	opt=${line%%=*}
	val=${line#*=}
	sym=${opt#CONFIG_}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$build/.config" || continue
	else
		grep -qxF "$line" "$build/.config" && continue
	fi
	if grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config $sym\$" \
		"$tree"; then
		echo "config: $line requested, got: $(grep -E "^(# )?${opt}[= ]" "$build/.config" || echo unset)"
		bad=1
	else
		echo "config: $opt does not exist in this tree, ignored"
	fi
done < <(
	if [ -n "$check_last" ]; then checked=("${frags[-1]}"); else checked=("${frags[@]}"); fi
	# The last word on each option wins, as in merge_config.sh.
	grep -hE '^CONFIG_[A-Z0-9_]+=' "${checked[@]}" | tac | sort -s -u -t= -k1,1
)
[ $bad -eq 0 ] || { echo "config: fragments not satisfied" >&2; exit 1; }
if [ "$check" -ne 0 ]; then
	echo "$key" >"$build/.zs-config"
	mkdir -p "$made_configs"
	[ -f "$made_configs/$key" ] || cp "$build/.config" "$made_configs/$key"
	keep_newest "$made_configs" 8
fi

# With ZS_DISTCC_HOSTS (distcc's host list, e.g. "localhost/2 buildbox/16"),
# what ccache misses is compiled through distcc, as many jobs at once as
# the hosts offer.
# ZS_MAKE_JOBS: make's jobs (default: every CPU).
jobs=${ZS_MAKE_JOBS:-$(nproc)}
if [ -n "${ZS_DISTCC_HOSTS:-}" ]; then
	command -v distcc >/dev/null || { echo "ZS_DISTCC_HOSTS set but no distcc" >&2; exit 1; }
	export DISTCC_HOSTS=$ZS_DISTCC_HOSTS CCACHE_PREFIX=distcc
	jobs=$(distcc -j)
fi
# KCSAN_SANITIZE on the command line turns instrumentation off in every
# folder; the per-object setting, which kbuild reads first, turns it back
# on for the files named. It is keyed by the object's name in its folder's
# Makefile: the files named must be built by their own folder's Makefile.
san=()
for c in $sanitize_only; do
	[ -f "$tree/$c" ] || { echo "--sanitize-only: no $c in $tree" >&2; exit 1; }
	san+=("KCSAN_SANITIZE_$(basename "$c" .c).o=y")
done
[ ${#san[@]} -eq 0 ] || san+=(KCSAN_SANITIZE=n)
# A build in a folder that holds no object of the kernel yet compiles
# them all, and through a ccache that holds none of them each costs a
# quarter to a third more than gcc alone (the preprocessor runs twice,
# the object is stored). ccache's objects are keyed by the tree's path and
# the configuration: it can serve such a build only where one of this
# tree and configuration went to the same ccache before, and the folder
# was lost since (a CI service keeps its ccache, not its build folders).
# So the first such build bypasses ccache (CCACHE_DISABLE: its command
# lines, which later builds compare, stay those of "ccache gcc") and
# leaves a mark in ccache's folder; any later one stores its objects.
# Not with distcc, which ccache runs.
uncached=""
if [ -z "${ZS_DISTCC_HOSTS:-}" ] && [ -z "$(find "$build" \( -path "$build/scripts" \
	-o -path "$build/tools" \) -prune -o -name '*.o' -print -quit)" ]; then
	seen=$CCACHE_DIR/zs-seen/$(printf '%s\n' "$tree" "$key" \
		"$sanitize_only" | sha1sum | cut -d' ' -f1)
	if [ ! -e "$seen" ]; then
		mkdir -p "$(dirname "$seen")"
		touch "$seen"
		export CCACHE_DISABLE=1
		uncached=1
		echo "build: the first build of this tree and configuration for this ccache: compiled without it"
	fi
fi
# --objects-of (patch files): compile only the objects those patches
# touch (ci/3-build/objects.sh), not the kernel: no whole build.
targets=(bzImage)
if [ -n "$objects_of" ]; then
	# shellcheck disable=SC2086 # a list of patch paths without spaces
	mapfile -t targets < <("$(dirname "$0")/objects.sh" "$tree" "$build" $objects_of) ||
		exit 1
	[ ${#targets[@]} -gt 0 ] || exit 1
	echo "objects: ${targets[*]}"
fi
rc=0
make -C "$tree" O="$build" -j"$jobs" CC="ccache gcc" "${san[@]}" "${targets[@]}" 2>&1 || rc=$?
[ $rc -ne 0 ] || echo "$made" >"$build/.zs-made"
# For ci/timing/timing.py (timed in ci/lib.sh): the objects of this folder
# that were compiled through ccache, each with a .cmd file naming it, as
# many as a build from an empty folder compiles. The build compiled fewer
# when most were up to date. After it, for a build that bypassed ccache,
# the same count again: it compiled them all, and ccache counted none.
# Not for a build of a few objects alone (--objects-of), which is never a
# whole build.
if [ -n "$objects_out" ] && [ -z "$objects_of" ]; then
	n=$(grep -rlE --include='.*.cmd' '^(saved)?cmd_[^ ]+ := ccache ' "$build" | wc -l) || true
	printf '%s%s' "$n" "${uncached:+$'\t'$n}" >"$objects_out"
fi
exit $rc

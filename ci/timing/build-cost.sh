#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a build pays for three choices, each beside its alternative:
#  - ccache: compiling through a ccache that holds nothing (as a first
#    build through it does) against gcc alone, default configuration;
#  - KASAN: the debug configuration as configs/debug.config has it
#    (KASAN_INLINE) against KASAN_OUTLINE, gcc alone;
#  - the kept build folders (build_folder, ci/3-build/lib.sh): the kernel
#    of zs-base built by ci/3-build/build.sh in the default configuration
#    into an empty folder through the warm ccache (what each kernel costs
#    where no folder is kept: a CI service, or every kernel of a run
#    without build_folder), against the folder kept for those sources,
#    with a make that finds nothing to do (.zs-made removed first) and as
#    build.sh takes it (no make).
# Each of the first four compiles the same folder of the kernel (mm/
# unless --dir) from nothing, in a build folder of its own made ready
# once; the pairs run interleaved, ROUNDS times, the order swapped every
# round. Prints each time and the ratio of each round, then each ratio's
# median, least and most; then the three builds of the third choice,
# ROUNDS times, with their ccache hits and misses. On the mainline base at
# zs-base (held as a job holds it), in the configurations of the build
# folders a run of ci/jobs/run-series.sh --base mainline left, and with
# its ccache (CCACHE_DIR).
#
#   ci/timing/build-cost.sh [--rounds N] [--dir DIR] [--only cold|rebuild]
#                                                 (3, mm, both)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"

rounds=3 dir=mm only=""
parse_opts "--rounds= --dir= --only=" "$@"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: a number of rounds"
case $only in "" | cold | rebuild) ;; *) die "--only $only: cold or rebuild" ;; esac

use_tree mainline
tree=$ZS_TREE
[ -d "$tree/$dir" ] || die "--dir $dir: no such folder in $tree"
for c in default debug; do
	[ -f "$(build_dir $c)/.config" ] ||
		die "no $(build_dir $c)/.config: run ci/jobs/run-series.sh --base mainline first"
done
grep -qx 'CONFIG_KASAN_INLINE=y' "$(build_dir debug)/.config" ||
	die "the debug configuration has no KASAN_INLINE"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KBUILD_BUILD_TIMESTAMP='' CCACHE_NODEPEND=1
unset CCACHE_DISABLE
jobs=$(nproc)

# ready NAME CONFIG CC: a build folder NAME with CONFIG's .config, made
# ready for compiling with CC.
ready() {
	mkdir -p "$work/$1"
	cp "$(build_dir "$2")/.config" "$work/$1/.config"
	if [ "$1" = outline ]; then
		sed -i 's/^CONFIG_KASAN_INLINE=y/# CONFIG_KASAN_INLINE is not set/' "$work/$1/.config"
		echo CONFIG_KASAN_OUTLINE=y >>"$work/$1/.config"
	fi
	CCACHE_DIR=$work/ccache-ready make -s -C "$tree" O="$work/$1" CC="$3" \
		-j"$jobs" olddefconfig prepare >"$work/$1.log" 2>&1 || {
		tail -n 20 "$work/$1.log" >&2
		die "$1: make prepare failed"
	}
}

# compile NAME CC: seconds to compile $dir/ from nothing in NAME's folder
# (through an empty ccache, for "ccache gcc").
compile() {
	local t0 t1
	rm -rf "${work:?}/$1/$dir" "$work/empty-ccache"
	t0=$(date +%s.%N)
	CCACHE_DIR=$work/empty-ccache make -s -C "$tree" O="$work/$1" CC="$2" -j"$jobs" \
		"$dir/" >"$work/$1.log" 2>&1 || {
		tail -n 20 "$work/$1.log" >&2
		die "$1: compiling $dir/ failed"
	}
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

# The kept folders' choice: ci/3-build/build.sh as the default row of
# ci/jobs/run-series.sh runs it (its fragments), timed as a job times it
# (timed, ci/lib.sh): the step, its start and end, ccache's hits and misses.
frags=("${default_frags[@]}" "$REPO_DIR/configs/selftests-zswap.config")

# rebuild NAME FOLDER: seconds of build.sh into FOLDER, with its ccache
# hits and misses; a note where it made no build or bypassed ccache.
rebuild() {
	local log=$work/$1.log times=$work/$1.times
	: >"$times"
	timed "$times" "$1" "$CI_DIR/3-build/build.sh" "$tree" "$2" "${frags[@]}" \
		>"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		die "$1: the build failed"
	}
	awk -F'\t' '{ printf "%.0fs (%d/%d)", $3 - $2, $4, $5 }' "$times"
	if grep -q 'compiled without it' "$log"; then
		printf ' WITHOUT ccache: a cold build'
	elif grep -q 'make not run' "$log"; then
		printf ' no make'
	fi
}

header() {
	echo "# ci/timing/build-cost.sh --rounds $rounds --dir $dir${only:+ --only $only}: $(git -C "$REPO_DIR" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo "# $ZS_TAG at zs-base, make -j$jobs, $(gcc --version | head -n1), $(ccache --version | head -n1)"
	echo "# host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
}

cold_part() {
	say "build-cost: the four build folders"
	ready ccache default "ccache gcc"
	ready gcc default gcc
	ready inline debug gcc
	ready outline debug gcc
	grep -qx 'CONFIG_KASAN_OUTLINE=y' "$work/outline/.config" ||
		die "KASAN_OUTLINE did not stay in the configuration"
	echo "# cold: $dir/ ($(find "$tree/$dir" -maxdepth 1 -name '*.c' | wc -l) .c files there) compiled from nothing"
	printf '%-6s %14s %10s %8s   %12s %12s %8s\n' round "empty ccache" "gcc alone" ratio "KASAN inline" outline ratio
	: >"$work/ratios"
	for r in $(seq "$rounds"); do
		say "build-cost: cold, round $r of $rounds"
		if [ $((r % 2)) -eq 1 ]; then
			c=$(compile ccache "ccache gcc"); g=$(compile gcc gcc)
			i=$(compile inline gcc); o=$(compile outline gcc)
		else
			g=$(compile gcc gcc); c=$(compile ccache "ccache gcc")
			o=$(compile outline gcc); i=$(compile inline gcc)
		fi
		awk -v r="$r" -v c="$c" -v g="$g" -v i="$i" -v o="$o" 'BEGIN {
			printf "%-6s %13ss %9ss %8.2f   %11ss %11ss %8.2f\n", r, c, g, c / g, i, o, o / i }'
		awk -v c="$c" -v g="$g" -v i="$i" -v o="$o" 'BEGIN { print c / g, o / i }' >>"$work/ratios"
	done
	# The median, least and most of each column of ratios.
	for col in 1 2; do
		name=$([ $col -eq 1 ] && echo "empty ccache / gcc alone" || echo "KASAN outline / inline")
		cut -d' ' -f$col "$work/ratios" | sort -g | awk -v name="$name" '
			{ v[NR] = $1 }
			END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			      printf "%s: median %.2f, least %.2f, most %.2f (%d rounds)\n", name, m, v[1], v[NR], NR }'
	done
}

# The empty folder is at another path than the kept one, which ccache's
# key leaves out (no -g: no working directory); the hits and misses
# printed beside each time show what it served.
rebuild_part() {
	local r kept f m k
	kept=$(build_folder default)
	[ -f "$kept/arch/x86/boot/bzImage" ] ||
		die "no kernel of zs-base kept in $kept: run ci/jobs/run-series.sh --base mainline first"
	echo "# rebuild: the kernel (bzImage) of zs-base, default configuration, ci/3-build/build.sh; seconds (ccache hits/misses)"
	printf '%-6s %-28s %-22s %-16s\n' round "empty folder, warm ccache" "kept folder, make" "kept folder"
	for r in $(seq "$rounds"); do
		say "build-cost: rebuild, round $r of $rounds"
		rm -rf "$work/fresh"
		f=$(rebuild fresh "$work/fresh")
		rm -f "$kept/.zs-made"
		m=$(rebuild make "$kept")
		k=$(rebuild kept "$kept")
		printf '%-6s %-28s %-22s %-16s\n' "$r" "$f" "$m" "$k"
	done
	rm -rf "$work/fresh"
}

header
[ "$only" = rebuild ] || cold_part
[ "$only" = cold ] || rebuild_part

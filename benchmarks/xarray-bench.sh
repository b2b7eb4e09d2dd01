#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Time the XArray part of forms of zswap_invalidate() (7.3-rc7's call a
# slot, mm-stable's per-slot loop in one call, mainline v3's search
# without the lock and its variants A, A1, B, C and D, the mainline patch
# and the locked walk without its search: patch, walk) on this machine's
# own CPUs: build benchmarks/xarray/zswap_forms.c with the kernel's
# userspace XArray harness (tools/testing/radix-tree of the base tree,
# against liburcu) in a scratch folder, run it, and write the report: ns
# per slot and ratios to mm-stable with their spread, and of each form with
# a tree a thread, the trees adjacent, to the same with each tree alone in
# a cache line (benchmarks/xarray-report.py), and the machine's load while
# it ran.
#
#   benchmarks/xarray-bench.sh [options]
#     --tree DIR       kernel tree to take the harness and lib/xarray.c
#                      from: its zs-base tag if it has one, else its HEAD,
#                      else its files (default: the mainline base, from
#                      ci/1-tree/tree.sh mainline); only ever read
#     --threads LIST   thread counts (default 1,2); above 1, each count
#                      runs on one shared tree, on a tree a thread (the
#                      trees adjacent in one array, as zswap_swapon()
#                      allocates them) and on a tree a thread each alone
#                      in a cache line
#     --sizes LIST     range sizes in slots, powers of two (default 1,16,512)
#     --reps N         timed repetitions of every form per configuration
#                      (default 1000), in --rounds runs of each binary
#     --rounds N       runs of each binary, the binaries taking turns
#                      (default 10): the machine's load changes while
#                      they run, and each configuration gets a share of
#                      every period
#     --warmup N       untimed repetitions at the start of every
#                      configuration of a run (default 5)
#     --lock LIST      mutex (the harness's spinlock_t, a pthread mutex),
#                      spin (benchmarks/xarray/zs-spinlock.h); default both
#     --pin            pin thread t to CPU t
#     --static         link statically, so that the binary can be carried
#                      to a machine without liburcu or a kernel tree
#     --build-only DIR build, copy the binaries to DIR as
#                      zswap_forms-<lock>, run nothing
#     --binary FILE    run this zswap_forms instead of building (repeat it
#                      for each lock; --tree, --lock, --static unused)
#     --build-dir DIR  scratch folder (default
#                      ~/.cache/zswap-series/xarray-bench); remade each run
#     --report FILE    report path without suffix (default
#                      benchmarks/results/<date>-xarray-harness)
#     --note TEXT      a line for the report's notes (repeatable)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../ci/lib.sh"
BENCH_DIR=$REPO_DIR/benchmarks
cmd=benchmarks/xarray-bench.sh
for a in "$@"; do
	if [[ $a =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then cmd+=" $a"; else cmd+=" $(printf '%q' "$a")"; fi
done
day=$(date -u +%Y-%m-%d)

tree="" threads=1,2 sizes=1,16,512 reps=1000 rounds=10 warmup=5 locks=mutex,spin
pin=0 static=0 build_only="" build_dir=$CACHE_DIR/xarray-bench report=""
binaries=() notes=()
parse_opts "--pin --static --tree= --build-only= --threads= --sizes= --reps=
	--rounds= --warmup= --lock=locks --binary+binaries --build-dir= --report=
	--note+notes" "$@"
# Refused here, before anything is installed, extracted or built.
[[ $threads =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	die "--threads '$threads': a list of counts above 0, such as 1,2"
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	die "--sizes '$sizes': a list of powers of two, such as 1,16,512"
IFS=, read -ra size_list <<<"$sizes"
for n in "${size_list[@]}"; do
	[ $((n & (n - 1))) -eq 0 ] || die "--sizes '$sizes': $n is not a power of two"
done
check_count --reps "$reps"
check_count --rounds "$rounds"
[ $((reps % rounds)) -eq 0 ] || die "--reps $reps: not a multiple of --rounds $rounds"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup '$warmup': not a count (0 or more)"
check_words --lock "$locks" mutex spin
IFS=, read -ra lock_list <<<"$locks"
for i in "${!binaries[@]}"; do
	if [ ! -f "${binaries[$i]}" ] || [ ! -x "${binaries[$i]}" ]; then
		die "--binary '${binaries[$i]}': no such executable file"
	fi
	binaries[i]=$(realpath "${binaries[$i]}")
done
if [ -n "$tree" ] && [ ${#binaries[@]} -eq 0 ]; then
	if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/lib" ]; then
		die "--tree '$tree': not a kernel tree (no Makefile or lib/)"
	fi
fi
if [ -n "$build_only" ]; then
	[ ${#binaries[@]} -eq 0 ] || die "--build-only builds; it takes no --binary"
	check_outdir --build-only "$build_only"
fi
# The scratch folder is removed and made again: refuse one that holds
# anything but what an earlier run left there.
if [ ${#binaries[@]} -eq 0 ]; then
	check_outdir --build-dir "$build_dir"
	if [ -d "$build_dir" ] && [ -n "$(ls -A "$build_dir")" ] && [ ! -d "$build_dir/src" ]; then
		die "--build-dir '$build_dir': not empty, and not a folder this script made (no src/ there), which it would remove"
	fi
fi
[ -z "$report" ] || [[ $report != */ ]] ||
	die "--report '$report': a file path without suffix, not a folder"
[ -z "$report" ] || check_outdir --report "$(dirname "$report")" "$report"
report=${report:-$BENCH_DIR/results/$day-xarray-harness}

# extract SRC REV|"" DST: the files of the kernel tree the harness needs,
# from a git revision or, with no revision, from the working files.
harness_paths=(Makefile lib include tools/include tools/lib tools/scripts
	tools/arch/x86/include tools/testing/shared tools/testing/radix-tree)
extract() {
	mkdir -p "$3"
	if [ -n "$2" ]; then
		git -C "$1" archive "$2" "${harness_paths[@]}" | tar -x -C "$3"
	else
		tar -C "$1" -cf - "${harness_paths[@]}" | tar -x -C "$3"
	fi
}

# The kernel version a tree's top Makefile names.
kernel_version() {
	awk -F' *= *' 'seen[$1]++ { next }
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { printf "%s.%s.%s%s\n", v, p, s, e }' "$1"
}

build() {
	local src=$build_dir/src rev="" lock dir flags
	if [ -n "$tree" ]; then
		tree=$(realpath "$tree")
		if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/lib/" ]; then
			die "$tree: not a kernel tree (no Makefile or lib/)"
		fi
		if git -C "$tree" rev-parse -q --verify zs-base >/dev/null 2>&1; then
			rev=zs-base
		elif [ "$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)" = "$tree" ]; then
			rev=HEAD
		fi
		tree_desc="$tree${rev:+ at $rev ($(git -C "$tree" rev-parse --short "$rev"))}"
	else
		say "tree: the mainline base (ci/1-tree/tree.sh mainline)"
		local out
		out=$("$CI_DIR/1-tree/tree.sh" mainline)
		set_env ZS_ <<<"$out"
		tree=$ZS_TREE rev=zs-base
		tree_desc="$ZS_BASE_DESC, $tree at zs-base"
	fi
	"$CI_DIR/deps.sh" liburcu-dev || die "cannot install liburcu-dev"

	say "build: extracting the harness into $src"
	rm -rf "$build_dir"
	extract "$tree" "$rev" "$src"
	tree_desc+=", kernel $(kernel_version "$src/Makefile")"
	for lock in "${lock_list[@]}"; do
		# A sibling of radix-tree, so that the harness's relative
		# paths hold; the harness's own folder stays as it came.
		dir=$src/tools/testing/zswap-forms-$lock
		cp -r "$src/tools/testing/radix-tree" "$dir"
		cp "$BENCH_DIR"/xarray/{zswap_forms.c,xarray-nodebug.c,zs-spinlock.h} "$dir/"
		cp "$BENCH_DIR/xarray/Makefile" "$dir/Makefile.zswap"
		local mk=(make -s -C "$dir" -f Makefile.zswap SHIFT=6 "STATIC=$static")
		[ "$lock" = spin ] && mk+=(LOCK=spin)
		flags=$("${mk[@]}" print-flags)
		# Strings for the binary to print with its results.
		{
			printf '#define ZS_BUILD_INFO "%s"\n' "${tree_desc//\"/\'}, XA_CHUNK_SHIFT from SHIFT=6"
			printf '#define ZS_CFLAGS "%s"\n' "$flags"
		} >"$dir/zs-build-info.h"
		say "build: zswap_forms ($lock lock$([ "$static" -eq 1 ] && echo ", static"))"
		"${mk[@]}" -j"$(nproc)" zswap_forms >"$dir/build.log" 2>&1 ||
			{ cat "$dir/build.log" >&2; die "build failed ($dir/build.log)"; }
		binaries+=("$dir/zswap_forms")
	done
}

[ ${#binaries[@]} -gt 0 ] || build
if [ -n "$build_only" ]; then
	[ ${#lock_list[@]} -eq ${#binaries[@]} ] || die "--build-only builds; it takes no --binary"
	mkdir -p "$build_only"
	for i in "${!binaries[@]}"; do
		cp "${binaries[$i]}" "$build_only/zswap_forms-${lock_list[$i]}"
		echo "$build_only/zswap_forms-${lock_list[$i]}"
	done
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $cmd"
	echo "cpu: ${cpu:-unknown}, $(nproc) CPUs online"
	echo "host kernel: $(uname -r)"
	echo "niceness: $(nice)"
	echo "rounds: $rounds"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for n in "${notes[@]}"; do echo "note: $n"; done
} >"$work/meta"
# The busy and the total jiffies of all CPUs, from /proc/stat.
cpu_jiffies() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}
# The CPU seconds (user + system) of this shell's finished children in a
# file written by `times` (run in this shell: in a subshell it counts the
# subshell's).
children_cpu() {
	awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%.2f\n", t }' "$1"
}
per_round=$((reps / rounds))
args=(--threads "$threads" --sizes "$sizes" --reps "$per_round" --warmup "$warmup")
[ "$pin" -eq 1 ] && args+=(--pin)
say "run: ${#binaries[@]} binaries, $rounds rounds of $per_round repetitions, ${args[*]}"
read -r busy0 total0 < <(cpu_jiffies)
times >"$work/times0"
t0=$(date +%s)
for ((r = 0; r < rounds; r++)); do
	for i in "${!binaries[@]}"; do
		say "run: round $((r + 1))/$rounds, ${binaries[$i]}"
		if ! "${binaries[$i]}" "${args[@]}" --first-rep $((r * per_round)) \
			>>"$work/samples-$i.tsv" 2>"$work/progress"; then
			cat "$work/progress" >&2
			die "${binaries[$i]} failed"
		fi
		echo "load during: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/meta"
	done
done
read -r busy1 total1 < <(cpu_jiffies)
times >"$work/times1"
t1=$(date +%s)
{
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "run seconds: $((t1 - t0))"
	# All CPUs' busy time against what zswap_forms used: the rest is what
	# the machine's other work took meanwhile. USER_HZ is 100 on every
	# Linux architecture this runs on.
	awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) \
		-v o="$(children_cpu "$work/times0")" -v n="$(children_cpu "$work/times1")" \
		'BEGIN { printf "cpu seconds: %.1f of %.1f busy, %.1f of them zswap_forms\n",
			b / 100, t / 100, n - o }'
} >>"$work/meta"
mkdir -p "$(dirname "$report")"
python3 "$BENCH_DIR/xarray-report.py" "$report" "$work/meta" "$work"/samples-*.tsv
say "report: $report.md ($report.tsv.gz)"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: for the base and for each patch k of a series, apply patches
# 1..k, checkpatch patch k, build, boot QEMU with brd swap and zswap, run
# the selftests, and judge the point; then print the per-patch table.
#
#   ci/jobs/run-series.sh [--base BASE|PATH] [--series FILE]
#                         [--results DIR] [--debug last|all|none] [--from K] [--to K]
#                         [--variants all|last|none[:VARIANT,...]]
#                         [--gates all|last|none[:GATE,...]]
#                         [--distro all|last|none] [--kcsan last|all|none]
#                         [--stress full|short] [--only TEST,...]
#                         [--debug-only TEST,...] [--boots all|last|none]
#                         [--tests-series FILE|none] [--append WORDS]
#                         [--default build|none] [--cut upstream|production]
#
# Defaults: --base mainline (the newest linux-source-7.* of Debian's
# experimental or sid suite), the series that goes with the base, results
# under results/, the debug config (lockdep, KASAN, ...) for the last point.
# --from K applies patches 1..K-1 without building them and starts at
# point K; --to K stops after point K (one point of a CI matrix: --from K
# --to K; "last" there means the series' last point). --variants: at which
# points to also build the configurations of ci/3-build/variants (default all);
# after a colon, which of them (e.g. all:MEMCG=n; default every one).
# --gates: at which points to run the static-analysis gates of
# ci/4-gates/gates.sh (sparse, W=1, coccinelle on the files the patch touches;
# default all); after a colon, which of them (e.g. last:sparse,W1).
# --distro: at which points to compile what the series touches with
# Debian's own configuration for the kernel (ci/3-build/build-distro.sh, the
# "debian" column; default all, on 6.12.y and 6.1.y trees, for which
# Debian 12 ships linux-config-6.12 and -6.1).
# --kcsan: at which points to also build configs/kcsan.config (the
# concurrency sanitizer; not with KASAN, so a row of its own, "kcsan") and
# boot it with the concurrency tests only (default last).
# --stress short: at the points before the last one that changes the
# kernel, the stress tests that run for a time (zswap_stress,
# swapcg_concurrent) run 5 seconds instead of their 20 and 15 (ci/tests/test.sh,
# to stay within its hour; default full).
# --only: run only these tests, in the main boot (and the KCSAN and debug
# rows) only. --debug-only: on the debug row, these tests only (with the
# debug config, test_zswap alone takes minutes; ci/tests/test.sh).
# --boots last: boot and test only the last point that changes the kernel;
# every other point is applied, checkpatched and built (and gets its
# --variants, --gates, --distro rows), so that each patch still builds at
# its own position (ci/tests/test.sh on the LTS series, to stay within its hour;
# default all). --boots none: the default row is built, never booted; the
# debug and KCSAN rows are, as their options say (a fault judged on those
# rows alone, ci/tests/test-faults.sh).
# --default none: the default row is neither built nor booted, only
# applied and checkpatched; the other rows are as their options say (a
# fault judged on the debug row alone; the test command's v6.1 row of
# Debian's choices). Default: build.
# --cut: the series as a distribution carries it without its optional
# sets (series_cut in ci/lib.sh): upstream, the upstream set alone;
# production, every set but the tests (an LTS series: its upstream set
# built and booted alone).
# On a base whose Debian configuration ci/bases names (6.12.y, 6.1.y),
# the debug row is the guest's configuration with Debian's own choices for
# what the series touches merged in (ci/3-build/debian-choices.sh: zswap
# off by default, its zpool and compressor, the zpools Debian builds, memcg
# v1, preemption), then the debug options, and its boots turn zswap on
# with zswap.enabled=1, as a user of that kernel would.
# --append: words added to every boot's kernel command line (a fault of
# ci/tests/faults/mainline/schemata.patch turned on: zswap.ci_fault=NAME).
# --tests-series: the series of kselftests put on top of each point for
# the guest's tests, never built into its kernel (default: the base's,
# patches/selftests-zswap/series on mainline, none on 6.12.y and 6.1.y:
# the tests field of ci/bases).
#
# Exit status (ci/7-verdict/verdict.py table): 0 every row green; 1 a row red (a
# step, a test, a splat or a crash), the series not going on with quilt,
# or a patch that does not apply; 75 an infrastructure error (QEMU could
# not run, a build ran out of disk) and nothing red.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"
# shellcheck source=ci/5-image/lib.sh
. "$CI_DIR/5-image/lib.sh"

base=${ZS_BASE:-$ZS_DEFAULT_BASE} series="" results="" debug=last from=0 to="" variants=all gates=all only=""
distro=all kcsan=last stress=full tests_series="" debug_only="" append=""
boots=all default=build cut=""
parse_opts "--base= --series= --results= --debug= --from= --to= --variants=
	--gates= --distro= --kcsan= --stress= --only= --debug-only= --append=
	--boots= --default= --cut= --tests-series=" "$@"
# Refused here, before anything is installed, unpacked or built.
check_base "${ZS_BASE:+ZS_BASE or }--base" "$base"
# The base's line of ci/bases, for every later question about it: by its
# name, or by the version of a tree of your own.
row=$(base_row "$base")
# WHEN:LIST: the gates or variants to run, at those points.
gate_names=sparse,W1,cocci variant_names=""
if [[ $gates == *:* ]]; then
	gate_names=${gates#*:} gates=${gates%%:*}
	check_words --gates "$gate_names" sparse W1 cocci
fi
if [[ $variants == *:* ]]; then
	variant_names=${variants#*:} variants=${variants%%:*}
	# shellcheck disable=SC2046 # the variants' names, one word each
	check_words --variants "$variant_names" $(sed -e 's/#.*//' "$CI_DIR/3-build/variants" | awk 'NF { print $1 }')
fi
for o in debug variants gates distro kcsan; do
	check_choice "--$o" "${!o}" last all none
done
check_choice --stress "$stress" full short
check_choice --boots "$boots" all last none
check_choice --default "$default" build none
[ -z "$cut" ] || check_choice --cut "$cut" upstream production
[[ $from =~ ^[0-9]+$ ]] || die "--from '$from': not a point number (0 is the base)"
[[ -z $to || $to =~ ^[0-9]+$ ]] || die "--to '$to': not a point number (0 is the base)"
[ -z "$to" ] || [ "$to" -ge "$from" ] || die "--to $to is before --from $from"
case $tests_series in
""|none) ;;
*) check_series --tests-series "$tests_series" ;;
esac
[ -z "$results" ] || check_outdir --results "$results"
for t in ${only//,/ } ${debug_only//,/ }; do
	grep -qx "$t" <(sed 's/#.*//' "$REPO_DIR/selftests/tests.list") ||
		die "--only/--debug-only $t: not a test of the main boot (selftests/tests.list)"
done
# check_from: --from and --to name points of the series in $patches.
check_from() {
	[ "$from" -le ${#patches[@]} ] ||
		die "--from $from: the series has ${#patches[@]} patches (points 0 to ${#patches[@]})"
	[ -z "$to" ] || [ "$to" -le ${#patches[@]} ] ||
		die "--to $to: the series has ${#patches[@]} patches (points 0 to ${#patches[@]})"
}
# The series, known before the tree is: --series, or the base's.
if [ -n "$series" ]; then
	check_series --series "$series"
else
	series=$(base_get "$row" series)
fi
series=$(realpath "$series")
load_series "$series"
# load_cut FILE: with --cut, keep the patches of the series FILE that cut
# leaves.
load_cut() {
	[ -n "$cut" ] || return 0
	mapfile -t patches < <(series_cut "$1" "$cut")
	[ ${#patches[@]} -gt 0 ] || die "--cut $cut: $1 has no optional sets"
}
load_cut "$series"
check_from
t_start=$(date +%s)
if [ "$gates" != none ]; then
	# The gates' tools, as --gates picks them (ci/4-gates/gates.sh); coccinelle
	# needs OCaml for the scripts written in it.
	gpkgs=()
	case ",$gate_names," in *,sparse,*) gpkgs+=(sparse) ;; esac
	case ",$gate_names," in *,cocci,*) gpkgs+=(coccinelle ocaml-nox) ;; esac
	"$CI_DIR/deps.sh" "${gpkgs[@]}" || die "cannot install ${gpkgs[*]}"
fi

"$CI_DIR/deps.sh"
t_tree=$(date +%s)
say "tree: preparing base $base"
use_tree "$base"
tree=$ZS_TREE

load_series "$series"
load_cut "$series"
qpatches=$patch_dir
# The guest's tests series: --tests-series, or the base's (ci/bases).
base_tests=$(base_get "$row" tests)
[ -n "$tests_series" ] || tests_series=$base_tests
[ "$tests_series" != none ] || tests_series=""
[ -z "$tests_series" ] || tests_series=$(realpath "$tests_series")
# On a Debian tree that stands in for the mm tree (a base of ci/bases with
# stand-ins: mainline), the tests series goes on the mm tree's own files
# where it keeps them (the text it is mailed against); on a tree of your
# own, on that tree's where it applies there, else on the mm tree's.
tests_mm=""
if [ "$base" = "$(base_get "$row" name)" ] && [ -n "$(base_get "$row" standins)" ] &&
	[ -n "$tests_series" ] &&
	[ -d "$(dirname "$tests_series")/mm-tree" ]; then
	tests_mm=$(dirname "$tests_series")/mm-tree
elif [ -n "$tests_series" ] && [ -d "$(dirname "$tests_series")/mm-tree" ] &&
	! "$CI_DIR/upstream/check-mm-apply.sh" "$tree" "$tests_series" >/dev/null 2>&1; then
	tests_mm=$(dirname "$tests_series")/mm-tree
	say "tests: $(basename "$(dirname "$tests_series")") does not apply to the tree's own files: put on the mm tree's ($tests_mm)"
fi
check_from

# Debian's configuration for this kernel, where Debian 12 ships one: the
# "debian" column (--distro), and the choices of the debug row (see
# --help).
debian_cfg=$(distro_config "$row" none) || die "cannot install Debian's configuration for $ZS_KVER"
distro_cfg=""
if [ "$distro" != none ]; then
	distro_cfg=$debian_cfg
	[ -n "$distro_cfg" ] ||
		say "distro: Debian 12 has no configuration for $ZS_KVER: no debian column"
fi
debian_frag="" debian_append=""
if [ -n "$debian_cfg" ]; then
	debian_frag=$CACHE_DIR/debian-choices-$ZS_TAG.config
	"$CI_DIR/3-build/debian-choices.sh" "$debian_cfg" >"$debian_frag.tmp"
	mv "$debian_frag.tmp" "$debian_frag"
	debian_append=zswap.enabled=1
fi

# selftests/since: a test that checks what a patch of this series brings is
# left out (reported as a skip) before that patch. When no patch of the
# series matches, the base has it already and the test runs everywhere;
# when the patch that matches is one --cut leaves out, nowhere.
mapfile -t whole < <(load_series "$series" && printf '%s\n' "${patches[@]}")
since_names=() since_from=()
while read -r t glob; do
	for p in "${whole[@]}"; do
		# shellcheck disable=SC2053 # $glob is a pattern
		[[ $(basename "$p") == $glob ]] || continue
		since_names+=("$t") since_from+=($((${#patches[@]} + 1)))
		for i in "${!patches[@]}"; do
			[ "${patches[$i]}" != "$p" ] || since_from[-1]=$((i + 1))
		done
		break
	done
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_DIR/selftests/since")

# notyet K: the tests to skip at point K, comma-separated.
notyet() {
	local i out=""
	for i in "${!since_names[@]}"; do
		[ "$1" -lt "${since_from[$i]}" ] && out+=${out:+,}${since_names[$i]}
	done
	echo "$out"
}

tag=$ZS_TAG
results=${results:-$REPO_DIR/results/$(date +%Y%m%d-%H%M%S)-$tag}
mkdir -p "$results"
results=$(realpath "$results")
say "results: $results"
# Where the time goes (ci/timing/timing.py): the job's own steps in
# RESULTS/times, each row's in its folder's.
: >"$results/times"
rm -f "$results"/*/times
printf 'deps\t%s\t%s\ntree\t%s\t%s\n' "$t_start" "$t_tree" "$t_tree" "$(date +%s)" >>"$results/times"

{
	echo "base:    $ZS_BASE_DESC"
	echo "series:  $series (${#patches[@]} patches${cut:+, --cut $cut})"
	echo "qemu:    $(qemu-system-x86_64 --version | head -n1)"
	echo "host:    $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
	echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$results/header"
t_image=$(date +%s)

# The series must also go on with quilt, as maintainers carry it that way.
qlog=$results/quilt.log
qseries=$series
if [ -n "$cut" ]; then
	# quilt reads the cut from a series file of its own.
	qseries=$results/series.$cut
	printf '%s\n' "${patches[@]#"$qpatches"/}" >"$qseries"
fi
export QUILT_PATCHES=$qpatches QUILT_SERIES=$qseries QUILT_PC=.pc
if (cd "$tree" && quilt push -a -q && quilt pop -a -q) >"$qlog" 2>&1 &&
	[ -z "$(git -C "$tree" status --porcelain)" ]; then
	quilt=ok
else
	quilt=fail
fi
reset_tree "$tree"
echo "quilt:   push -a/pop -a: $quilt" >>"$results/header"
if [ -n "$tests_series" ]; then
	echo "tests:   built from each point with $tests_series on top${tests_mm:+ of the files of $tests_mm}" >>"$results/header"
else
	echo "tests:   built from each point" >>"$results/header"
fi
[ -z "$append" ] || echo "append:  $append (every boot's command line)" >>"$results/header"
[ -z "$debian_frag" ] ||
	echo "debug:   the guest's configuration, Debian's choices from $(basename "$(dirname "$debian_cfg")"), the debug options; $debian_append" >>"$results/header"

# A base with no kselftests series of its own (v6.12, v6.1: their
# test_zswap.c is older than what the series goes on) runs the newest
# test_zswap, the one the kselftests series makes, as stable trees run the
# newest kselftests on their kernels (ci/5-image/lib.sh newest_kselftests).
newest=""
if [ -z "$base_tests" ]; then
	say "image: the newest test_zswap (the mm tree's, with the kselftests series)"
	newest=$(newest_kselftests "$results") || die "cannot make the newest kselftests"
	echo "newest:  test_zswap built from $newest (the mainline base's selftests, the mm tree's test_zswap.c, the kselftests series)" >>"$results/header"
fi

# The guest's tests: built from the tree at the first point run, with the
# tests series on top, and again at each later point whose patch changes
# the selftests; so the kselftests of the tests series judge every point
# of the series, the base included, without being part of it.
image="" initrd=""
# touches_tests K: patch K changes a file under tools/testing/selftests/.
touches_tests() {
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' \
		"${patches[$(($1 - 1))]}" | grep -q '^tools/testing/selftests/'
}
# build_image K: the image of point K, the tree being at point K.
build_image() {
	local dir=$results/image
	[ -z "$image" ] || dir=$results/image-$(printf '%02d' "$1")
	say "image: the selftests of point $1${tests_series:+ with $(basename "$(dirname "$tests_series")")}"
	tests_image "$tree" "$dir" "$tests_series" "$tests_mm" "$newest" ||
		die "could not build the test image of point $1 (see $dir)"
	image=$dir initrd=$dir/initramfs.cpio.gz
}

frags_default=("${default_frags[@]}")
[ -z "$tests_series$newest" ] || frags_default+=("$REPO_DIR/configs/selftests-zswap.config")
frags_debug=("${frags_default[@]}" ${debian_frag:+"$debian_frag"} "$REPO_DIR/configs/debug.config")
frags_kcsan=("${frags_default[@]}" "$REPO_DIR/configs/kcsan.config")
# What the KCSAN row runs: the KUnit tests (at boot), and the tests that
# run the series' code on both vCPUs at once.
kcsan_tests=kunit_results,swapcg_concurrent,zswap_stress,test_zswap
# What the debug row leaves to the default row: zswap_kselftest_kill
# checks the kselftests' cleanup on a signal, not the kernel, and runs
# test_zswap nine times, which with the debug options takes longer than
# its 15 minutes (982 s, not done, at point 0 of mainline on 2026-12-07);
# test_zswap itself runs on the debug row once.
debug_rowskip=zswap_kselftest_kill
# What KCSAN instruments: the files whose locking the series changes, and
# the XArray its lockless lookups walk. Not the rest of the kernel: there
# the sanitizer finds races of the base kernel, a different set at every
# boot (a whole-kernel boot of the last v6.12 point found four, none in
# these files: docs/tests.md, KCSAN), which would say nothing about
# the series and keep the row red at random.
kcsan_files="mm/zswap.c mm/swap_cgroup.c lib/xarray.c"
printf 'image\t%s\t%s\n' "$t_image" "$(date +%s)" >>"$results/times"

# only_tools K: patch K changes files, all of them under tools/ (e.g. a
# kselftest): nothing the kernel is built from. Read from the patch, so
# that it can be asked of points not applied yet.
only_tools() {
	local files
	files=$(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' \
		"${patches[$(($1 - 1))]}")
	[ -n "$files" ] && ! grep -qv '^tools/' <<<"$files"
}

# The last point whose patch changes the kernel: the later ones are not
# booted again (same_kernel), so its boot is the one that runs the tests
# at their full length under --stress short.
last_kernel=0
for k in $(seq 1 ${#patches[@]}); do
	only_tools "$k" || last_kernel=$k
done

# write_meta DIR K NAME CONFIG SECONDS: what verdict.py shows of a row.
write_meta() {
	python3 -c 'import json, sys
k, name, config, secs = sys.argv[2:]
with open(sys.argv[1] + "/meta.json", "w") as f:
	json.dump(dict(point=k, patch=name, config=config, seconds=int(secs)), f)' "$@"
}

# boot_profile DIR STEP OUT LIMIT OPTS: boot DIR/bzImage, built from the
# sources $src, record STEP's outcome as the judge reads it (ok, panic,
# hang, fail or infra).
boot_profile() {
	local outcome
	timed "$1/times" "$2" "$CI_DIR/6-boot/boot.sh" --timeout "$4" --append "$5" \
		--source-id "$src" \
		"$1/bzImage" "$initrd" "$3" || true
	outcome=$(python3 "$CI_DIR/7-verdict/verdict.py" boot "$3") || true
	echo "$2 ${outcome:-fail}" >>"$1/steps"
}

# build_variants DIR NAME: build the configurations of ci/3-build/variants
# (those --variants names, if it does), each in its own build folder (no '=' in
# its name: objtool's build breaks on it), and record a build-<variant>
# step for each.
build_variants() {
	local vname arch frag rc log
	while read -r vname arch frag; do
		[ -z "$variant_names" ] || [[ ",$variant_names," == *",$vname,"* ]] ||
			continue
		say "[$k/${#patches[@]}] $2: build $vname"
		rc=ok log=$1/build-$vname.log
		timed "$1/times" "build-$vname" build_variant >"$log" 2>&1 || rc=fail
		if [ $rc = fail ]; then
			say "[$k/${#patches[@]}] $2: build $vname failed; its log ends:"
			tail -n 15 "$log" >&2
		fi
		if [ $rc = fail ] && ! grep -q 'error:' "$log"; then
			# Not the compiler: once more, from a clean folder. A failure
			# that does not repeat is shown, and its log kept, but does
			# not fail the row.
			mv "$log" "$log.try1"
			rm -rf "$(build_dir "variant-${vname//=/-}")"
			say "[$k/${#patches[@]}] $2: build $vname again, from scratch"
			if timed "$1/times" "build-$vname-again" build_variant >"$log" 2>&1; then
				rc=ok
				say "[$k/${#patches[@]}] $2: build $vname ok the second time (first log: $log.try1)"
			else
				tail -n 15 "$log" >&2
			fi
		fi
		echo "build-$vname $rc" >>"$1/steps"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$CI_DIR/3-build/variants")
}

# build_variant: one build of build_variants' loop.
# shellcheck disable=SC2317 # called through timed
build_variant() {
	ARCH=$arch "$CI_DIR/3-build/build.sh" --check-last "$tree" \
		"$(build_dir "variant-${vname//=/-}")" "${frags_default[@]}" \
		"$REPO_DIR/configs/$frag"
}

# same_kernel K: patch K changes nothing the kernel is built from
# (only_tools), nor the selftests, and point K-1 was booted in this run.
# The kernel is then the one of K-1, and so are the tests, so K-1's boots
# stand for K instead of being repeated.
same_kernel() {
	local prev
	prev=$results/$(printf '%02d' $(($1 - 1)))-default
	[ "$1" -gt 0 ] && [ -f "$prev/result.json" ] &&
		grep '^boot ' "$prev/steps" | grep -qv ' skip$' &&
		only_tools "$1" && ! touches_tests "$1"
}

# reuse_point K NAME: record point K with the boots of point K-1.
reuse_point() {
	local d prev
	d=$results/$(printf '%02d' "$1")-default
	prev=$results/$(printf '%02d' $(($1 - 1)))-default
	mkdir -p "$d"
	say "[$1/${#patches[@]}] $2: touches only tools/: the kernel and tests of point $(($1 - 1)), not booted again"
	printf '%s' "$steps_pre" >"$d/steps"
	# What went wrong there goes wrong here; what was ok is "same".
	sed -n -e '/^\(build\|boot[^ ]*\) /{s/ ok$/ same/;p}' "$prev/steps" >>"$d/steps"
	(cd "$prev" && find . \( -name ktap.txt -o -name console.log -o -name source-id \) -print0 |
		xargs -0 cp --parents -t "$d")
	echo "kernel and tests of point $(($1 - 1)): $prev" >"$d/same-as"
	write_meta "$d" "$1" "$2" default 0
	say "[$1/${#patches[@]}] $2: $(python3 "$CI_DIR/7-verdict/verdict.py" point "$d" || true)"
}

# at_point all|last|none K: whether an option of that form (--variants,
# --gates, --distro, --kcsan, --debug) asks for point K.
at_point() {
	[ "$1" = all ] || { [ "$1" = last ] && [ "$2" -eq ${#patches[@]} ]; }
}

# run_point K NAME CONFIG: build and boot the tree as it is now.
run_point() {
	local k=$1 name=$2 config=$3 d t0 frags bdir limit
	d=$results/$(printf '%02d' "$k")-$config
	mkdir -p "$d"
	t0=$(date +%s)
	[ -n "${steps_pre:-}" ] && printf '%s' "$steps_pre" >"$d/steps"
	if [ "$config" = debug ]; then
		frags=("${frags_debug[@]}") limit=2000
	elif [ "$config" = kcsan ]; then
		frags=("${frags_kcsan[@]}") limit=1200
	else
		frags=("${frags_default[@]}") limit=1200
	fi
	bdir=$(build_folder "$config")
	# The sources this row builds, which its boots claim (boot_profile).
	src=$(source_id "$tree")
	say "[$k/${#patches[@]}] $name: build ($config)"
	local san="" c
	if [ "$config" = kcsan ]; then
		for c in $kcsan_files; do
			[ ! -f "$tree/$c" ] || san="$san $c"
		done
	fi
	if timed "$d/times" build "$CI_DIR/3-build/build.sh" ${san:+--sanitize-only "$san"} \
		"$tree" "$bdir" "${frags[@]}" >"$d/build.log" 2>&1; then
		echo "build ok" >>"$d/steps"
		# Kept (2 MB): the row's qemu-cmd and ci/6-boot/boot.sh --shell boot it
		# again (docs/pipeline.md, "Reading a failure").
		cp "$bdir/arch/x86/boot/bzImage" "$d/bzImage"
		if [ "$config" = default ] && [ "$k" -gt 0 ] && at_point "$gates" "$k"; then
			say "[$k/${#patches[@]}] $name: gates (sparse, W=1, coccinelle)"
			timed "$d/times" gates "$CI_DIR/4-gates/gates.sh" --gates "$gate_names" "$tree" "$bdir" "$d" \
				>>"$d/steps" 2>"$d/gates.err" ||
				echo "gate-run fail" >>"$d/steps"
		fi
		if [ "$config" = default ] && [ "$boots" = none ]; then
			echo "boot skip" >>"$d/steps"
			say "[$k/${#patches[@]}] $name: built; not booted (--boots none)"
		elif [ "$config" = default ] && [ "$boots" = last ] &&
			[ "$k" -lt "$last_kernel" ]; then
			echo "boot skip" >>"$d/steps"
			say "[$k/${#patches[@]}] $name: built; not booted (--boots last: only point $last_kernel is)"
		else
			boot_point "$k" "$name" "$config" "$d" "$limit"
		fi
	else
		echo "build fail" >>"$d/steps"
		echo "boot skip" >>"$d/steps"
		say "[$k/${#patches[@]}] $name: BUILD FAILED, see $d/build.log; it ends:"
		tail -n 15 "$d/build.log" >&2
	fi
	write_meta "$d" "$k" "$name" "$config" "$(($(date +%s) - t0))"
	local v
	v=$(python3 "$CI_DIR/7-verdict/verdict.py" point "$d") || true
	say "[$k/${#patches[@]}] $name: $v"
}

# boot_point K NAME CONFIG DIR LIMIT: boot the row's bzImage and run its
# tests: the main boot, then the other boots of ci/6-boot/profiles.
boot_point() {
	local k=$1 name=$2 config=$3 d=$4 limit=$5
	if [ -z "${ZS_ACCEL:-}" ]; then
		ZS_ACCEL=$(timed "$d/times" probe "$CI_DIR/6-boot/probe-accel.sh" "$d/bzImage" "$initrd")
		export ZS_ACCEL
		echo "accel:   $ZS_ACCEL (2 vCPUs)" >>"$results/header"
		say "boot: accelerator $ZS_ACCEL"
	fi
	say "[$k/${#patches[@]}] $name: boot and test ($config, $ZS_ACCEL)"
	local extra=$append ny
	[ "$config" != debug ] || extra="$extra $debian_append"
	ny=$(notyet "$k")
	[ -z "$ny" ] || extra="$extra zs.notyet=$ny"
	# Words of the command line the kernel does not know, without a
	# dot, reach the guest's init, and the tests, as environment.
	[ "$stress" = full ] || [ "$config" != default ] ||
		[ "$k" -ge "$last_kernel" ] ||
		extra="$extra ZSWAP_STRESS_SECONDS=5 SWAPCG_SECONDS=5"
	local run=$only
	[ "$config" != debug ] || [ -z "$debug_only" ] || run=$debug_only
	if [ "$config" = kcsan ]; then
		# The tests that run code of the series on both vCPUs at
		# once, or those --only names.
		boot_profile "$d" boot "$d" "$limit" "zs.only=${run:-$kcsan_tests} $extra"
	elif [ -n "$run" ]; then
		boot_profile "$d" boot "$d" "$limit" "zs.only=$run $extra"
	elif [ "$config" = debug ]; then
		boot_profile "$d" boot "$d" "$limit" "zs.rowskip=$debug_rowskip $extra"
	else
		boot_profile "$d" boot "$d" "$limit" "$extra"
	fi
	# The other boots of ci/6-boot/profiles, where the image has their tests
	# (not with --only or --debug-only, which pick tests of the main
	# boot).
	local pname popts
	while read -r pname popts; do
		if [ -n "$run" ] || [ "$config" = kcsan ]; then break; fi
		grep -qx "tests-$pname.list" "$image/lists" || continue
		say "[$k/${#patches[@]}] $name: boot $pname ($config)"
		boot_profile "$d" "boot-$pname" "$d/$pname" "$limit" "$popts $extra"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$CI_DIR/6-boot/profiles")
}

failed_apply=""
for k in $(seq 0 ${#patches[@]}); do
	# Past --to: not even applied.
	[ -n "$to" ] && [ "$k" -gt "$to" ] && break
	steps_pre=""
	if [ "$k" -eq 0 ]; then
		name="base ($ZS_KVER)"
	else
		p=${patches[$((k - 1))]}
		name=$(basename "$p" .patch)
		d=$results/$(printf '%02d' "$k")-default
		mkdir -p "$d"
		if [ -n "$failed_apply" ]; then
			printf 'apply skip\nbuild skip\nboot skip\n' >"$d/steps"
			write_meta "$d" "$k" "$name" default 0
			python3 "$CI_DIR/7-verdict/verdict.py" point "$d" >/dev/null || true
			continue
		fi
		say "[$k/${#patches[@]}] $name: apply"
		: >"$d/apply.log"
		if ! timed "$d/times" apply to_point "$k" "$d/apply.log"; then
			failed_apply=$name
			grep 'APPLY FAILED' "$d/apply.log" >&2 || cat "$d/apply.log" >&2
			say "the series no longer applies to $ZS_BASE_DESC from $name on"
			printf 'apply fail\nbuild skip\nboot skip\n' >"$d/steps"
			write_meta "$d" "$k" "$name" default 0
			python3 "$CI_DIR/7-verdict/verdict.py" point "$d" >/dev/null || true
			continue
		fi
		# A point before --from is a step on the way, its row removed
		# below: checkpatch's verdict on it would go with it (the run of
		# the series that has that point checks that patch).
		if [ "$k" -lt "$from" ]; then
			:
		elif timed "$d/times" checkpatch "$CI_DIR/2-apply/checkpatch.sh" "$tree" "$p" >"$d/checkpatch.log" 2>&1; then
			steps_pre=$'apply ok\ncheckpatch ok\n'
		else
			steps_pre=$'apply ok\ncheckpatch fail\n'
		fi
	fi
	if [ "$k" -lt "$from" ]; then
		rm -rf "$results/$(printf '%02d' "$k")-default"
		continue
	fi
	if [ -z "$image" ] || { [ "$k" -gt 0 ] && touches_tests "$k"; }; then
		build_image "$k"
	fi
	if same_kernel "$k"; then
		reuse_point "$k" "$name"
	elif [ "$default" = none ]; then
		d=$results/$(printf '%02d' "$k")-default
		mkdir -p "$d"
		printf '%sbuild skip\nboot skip\n' "$steps_pre" >"$d/steps"
		write_meta "$d" "$k" "$name" default 0
		say "[$k/${#patches[@]}] $name: default row not built (--default none)"
	else
		run_point "$k" "$name" default
	fi
	if at_point "$variants" "$k"; then
		d=$results/$(printf '%02d' "$k")-default
		build_variants "$d" "$name"
		python3 "$CI_DIR/7-verdict/verdict.py" point "$d" >/dev/null || true
	fi
	if [ -n "$distro_cfg" ] && at_point "$distro" "$k"; then
		d=$results/$(printf '%02d' "$k")-default
		say "[$k/${#patches[@]}] $name: build with Debian's configuration ($(basename "$(dirname "$distro_cfg")"))"
		rc=ok
		timed "$d/times" build-debian "$CI_DIR/3-build/build-distro.sh" "$tree" \
			"$(build_dir debian)" "$distro_cfg" "${patches[@]}" \
			>"$d/build-debian.log" 2>&1 || rc=fail
		[ $rc = ok ] || tail -n 15 "$d/build-debian.log" >&2
		echo "build-debian $rc" >>"$d/steps"
		python3 "$CI_DIR/7-verdict/verdict.py" point "$d" >/dev/null || true
	fi
	# The rows of their own: the sanitizer's, then the debug one.
	for config in kcsan debug; do
		[ "$config" = kcsan ] && when=$kcsan || when=$debug
		at_point "$when" "$k" || continue
		steps_pre=""
		[ "$k" -gt 0 ] && steps_pre=$'apply ok\n'
		run_point "$k" "$name" "$config"
	done
done

say "done"
echo
rc=0
python3 "$CI_DIR/7-verdict/verdict.py" table "$results" || rc=$?
printf 'job\t%s\t%s\n' "$t_start" "$(date +%s)" >>"$results/times"
echo
python3 "$CI_DIR/timing/timing.py" "$results" | tee "$results/timing.txt" || true
[ "$quilt" = ok ] || { echo "quilt push -a failed: see $qlog"; rc=1; }
[ -z "$failed_apply" ] || { echo "patch $failed_apply does not apply: see its apply.log"; rc=1; }
echo "results: $results"
exit $rc

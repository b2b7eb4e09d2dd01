#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark the series: build the base and every point of the series (or
# the points asked for), boot them interleaved in QEMU, run the swap
# workloads of benchmarks/guest in each, and report per patch and workload
# the ratio to the previous point with a 95% CI, against the seeds' claims.
# With --variant: alternative kernels, each the base plus patches of its
# own, reported each against the base and against each other.
#
#   benchmarks/run.sh [options]
#     --base B|PATH      base tree for ci/1-tree/tree.sh: mainline, v6.12, v6.1
#                        (default mainline)
#     --tree DIR         use this scratch tree (made by ci/1-tree/tree.sh; it is
#                        reset to its zs-base tag) instead of --base
#     --series FILE      series file (default: the repository's for the
#                        base's version: patches/v6.1/series on v6.1)
#     --points LIST      points to compare, e.g. 0,2 (default: all;
#                        0 is the base, k the base plus patches 1..k)
#     --variant NAME=LIST  instead of a series: a kernel of the base plus
#                        LIST, comma-separated .patch files and series
#                        files (their patches, in order); repeatable, point
#                        k the k-th variant, point 0 the base
#     --modes LIST       icount,wall,lockstat (default icount,wall); wall
#                        uses KVM if ci/6-boot/probe-accel.sh finds it usable,
#                        else MTTCG; lockstat boots as wall does, a kernel
#                        with configs/lockstat.config, and counts per
#                        phase how often zswap's tree lock was taken and
#                        contended (/proc/lock_stat); kvm or tcg: wall
#                        with that accelerator, not probed
#     --runs N           boots per point and mode (default 3)
#     --lockstat-runs N  boots per point in lockstat mode (default: --runs)
#     --lockstat-accel A wall (default: as wall mode boots) or icount: the
#                        lockstat kernels under -icount, one vCPU, where
#                        hold times are counts of instructions that no
#                        host preemption of a vCPU lengthens
#     --mib N            MiB each workload swaps (default 64)
#     --procs K          processes of the parallel workloads (default 2)
#     --smp N            vCPUs in wall mode (default 2; icount has 1)
#     --mem MiB          guest memory (default 4 x mib + 512, at least 1024)
#     --patterns LIST    of zero,one,random,mixed (default all)
#     --zswap LIST       of on,off (default both)
#     --groups LIST      of pageout,reject,memcg,swapcache,parallel,contend,compile
#                        (default all but contend and compile)
#     --cc-objs LIST     the compile group's job: these objects of the
#                        last point's build, compiled again in the guest
#                        (default mm/zswap.o,mm/swapfile.o,mm/vmscan.o,
#                        mm/memory.o,mm/page_alloc.o; compile-inputs.py)
#     --cc-limit MiB     its memory cgroup's memory.max (default 64)
#     --jobs N           icount boots at once (default: host CPUs)
#     --determinism      boot the last point (or --points) twice in
#                        icount mode and compare; nothing else
#     --out DIR          work folder (default results/bench-<date>); an
#                        existing one is resumed: finished boots are kept
#     --report FILE      report path without suffix (default
#                        benchmarks/results/<date>-<base>, with
#                        --determinism <date>-<base>-determinism)
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../ci/lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"
BENCH_DIR=$REPO_DIR/benchmarks
cmd=benchmarks/run.sh
for a in "$@"; do
	if [[ $a =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then cmd+=" $a"; else cmd+=" $(printf '%q' "$a")"; fi
done
day=$(date +%Y-%m-%d)

base=mainline tree="" series="" points="" modes=icount,wall
runs=3 mib=64 procs=2 smp=2 mem="" patterns=zero,one,random,mixed
zswap=on,off groups="" jobs=$(nproc) determinism=0 out="" report=""
lsruns="" lsaccel=wall variants=() ccobjs=mm/zswap.o,mm/swapfile.o,mm/vmscan.o,mm/memory.o,mm/page_alloc.o cclimit=64
parse_opts "--determinism --base= --tree= --series= --points= --variant+variants
	--modes= --runs= --lockstat-runs=lsruns --lockstat-accel=lsaccel --mib= --procs=
	--smp= --mem= --patterns= --zswap= --groups= --jobs= --cc-objs=ccobjs
	--cc-limit=cclimit --out= --report=" "$@"

# Refused here, before anything is installed, unpacked or built.
check_base --base "$base"
for o in runs mib procs smp jobs; do check_count "--$o" "${!o}"; done
check_count --cc-limit "$cclimit"
[ -z "$lsruns" ] || check_count --lockstat-runs "$lsruns"
[ -z "$mem" ] || check_count --mem "$mem"
check_words --modes "$modes" icount wall lockstat kvm tcg
check_choice --lockstat-accel "$lsaccel" wall icount
check_words --patterns "$patterns" zero one random mixed
check_words --zswap "$zswap" on off
groups=${groups:-pageout,reject,memcg,parallel,swapcache}
check_words --groups "$groups" pageout reject memcg swapcache parallel contend compile
[[ $ccobjs =~ ^[A-Za-z0-9_/-]+\.o(,[A-Za-z0-9_/-]+\.o)*$ ]] ||
	die "--cc-objs '$ccobjs': a list of kernel objects, such as mm/zswap.o,mm/vmscan.o"
[ -z "$out" ] || check_outdir --out "$out"
if [ -n "$report" ]; then
	[[ $report != */ ]] || die "--report '$report': a file path without suffix, not a folder"
	check_outdir --report "$(dirname "$report")" "$report"
fi
if [ -n "$tree" ]; then
	git -C "$tree" rev-parse -q --verify zs-base >/dev/null 2>&1 ||
		die "--tree '$tree': no tree with a zs-base tag: make one with ci/1-tree/tree.sh"
fi
# The base's line of ci/bases: --base's, or that of --tree's version.
row=$(base_row "${tree:-$base}") || die "--tree '$tree': not a kernel tree (no Makefile)"
if [ -n "$points" ]; then
	[[ $points =~ ^[0-9]+(,[0-9]+)*$ ]] ||
		die "--points '$points': not a comma-separated list of point numbers (0 is the base)"
fi

# plist[K]: the patches of point K, one a line, in the order applied;
# vname[K]: a variant's name.
declare -A plist vname
patches=()
if [ ${#variants[@]} -gt 0 ]; then
	if [ -n "$series$points" ] || [ $determinism -eq 1 ]; then
		die "--variant goes without --series, --points and --determinism"
	fi
	plist[0]="" k=0
	for v in "${variants[@]}"; do
		k=$((k + 1))
		name=${v%%=*}
		[[ $v == *=* && $name =~ ^[A-Za-z0-9._+-]+$ && $name != base ]] ||
			die "--variant $v: not NAME=LIST (NAME of letters, digits, ._+-, not base)"
		for j in "${!vname[@]}"; do
			[ "${vname[$j]}" != "$name" ] || die "--variant: $name twice"
		done
		vname[$k]=$name
		IFS=, read -ra items <<<"${v#*=}"
		[ ${#items[@]} -gt 0 ] || die "--variant $v: no patch"
		for it in "${items[@]}"; do
			[ -f "$it" ] || die "--variant $name: no file $it"
			if [[ $it == *.patch ]]; then
				plist[$k]+=$(realpath "$it")$'\n'
			else
				check_series "--variant $name" "$it"
				load_series "$it"
				plist[$k]+=$(printf '%s\n' "${patches[@]}")$'\n'
			fi
		done
	done
	points=$(seq -s, 0 "$k")
else
	# The series, known before the tree is prepared: --series, or the
	# base's; the points must be its.
	if [ -n "$series" ]; then
		check_series --series "$series"
	else
		series=$(base_get "$row" series)
	fi
	load_series "$series"
	IFS=, read -ra pts <<<"$points"
	for k in "${pts[@]}"; do
		[ "$k" -le ${#patches[@]} ] ||
			die "--points: no point $k (the series has ${#patches[@]} patches, points 0 to ${#patches[@]})"
	done
	[ $determinism -eq 0 ] || [ ${#pts[@]} -le 1 ] ||
		die "--determinism takes one point, not --points $points"
fi

"$CI_DIR/deps.sh" gnuplot-nox
# brd keeps what is swapped to it in guest memory.
if [ -z "$mem" ]; then
	mem=$((mib * 4 + 512))
	[ "$mem" -ge 1024 ] || mem=1024
fi

# The benchmark's own scratch tree and build folder, so that it can run
# next to ci/jobs/run-series.sh; ccache is shared.
bcache=$CACHE_DIR/bench
if [ -n "$tree" ]; then
	tree=$(realpath "$tree")
	git -C "$tree" rev-parse -q --verify zs-base >/dev/null ||
		die "$tree has no zs-base tag: make it with ci/1-tree/tree.sh"
	reset_tree "$tree"
	kver=$(make -s -C "$tree" kernelversion)
	# The kernel cache key: what the tree holds, not where it is.
	desc="$tree, tree $(git -C "$tree" rev-parse --short 'zs-base^{tree}') ($kver): $(git -C "$tree" log -1 --format=%s zs-base)"
else
	say "tree: preparing base $base"
	ZS_CACHE=$bcache use_tree "$base"
	tree=$ZS_TREE kver=$ZS_KVER desc=$ZS_BASE_DESC
fi
tag=${ZS_TAG:-$(basename "$tree")}
label=$kver
[ "$base" != "$(base_get "$row" name)" ] || [ -z "$(base_get "$row" config)" ] || label=$base

if [ ${#variants[@]} -eq 0 ]; then
	series=$(realpath "$series")
	load_series "$series"
	if [ -z "$points" ]; then
		points=$(seq -s, 0 ${#patches[@]})
		[ $determinism -eq 1 ] && points=${#patches[@]}
	fi
	for k in $(seq 0 ${#patches[@]}); do
		plist[$k]=""
		[ "$k" -eq 0 ] || plist[$k]=$(printf '%s\n' "${patches[@]:0:$k}")$'\n'
	done
fi
IFS=, read -ra pts <<<"$points"
for k in "${pts[@]}"; do
	if ! [[ $k =~ ^[0-9]+$ ]] || [ -z "${plist[$k]+set}" ]; then
		die "--points: no point $k (the series has ${#patches[@]} patches)"
	fi
done
if [ $determinism -eq 1 ]; then
	[ ${#pts[@]} -eq 1 ] || die "--determinism takes one point"
	modes=icount runs=2
fi
lsruns=${lsruns:-$runs}

stamp=$(date +%Y%m%d-%H%M%S)
out=${out:-$REPO_DIR/results/bench-$stamp}
mkdir -p "$out/boots"
out=$(realpath "$out")
say "work folder: $out"

# Kernel flavours: bench (icount and wall-clock modes) and lockstat
# (configs/lockstat.config on top), each with its own build folder.
flavs=()
[[ ",$modes," =~ ,(icount|wall|tcg|kvm), ]] && flavs+=(bench)
[[ ",$modes," == *,lockstat,* ]] && flavs+=(lockstat)
[ ${#flavs[@]} -gt 0 ] || die "--modes: none of icount, wall, lockstat"
frags_of() {
	frags=("$REPO_DIR/configs/guest.config" "$REPO_DIR/configs/swap.config"
		"$REPO_DIR/configs/bench.config")
	[ "$1" = bench ] || frags+=("$REPO_DIR/configs/$1.config")
}
# A point's kernel is cached under the hash of what makes it: the base,
# the configs, ci/3-build/build.sh's code (not its comments, so that an
# edit of a comment rebuilds nothing), and the diffs of its patches (not
# their messages, so that renumbering the series rebuilds nothing).
# point_key K [FLAVOUR]
point_key() {
	local p frags
	frags_of "${2:-bench}"
	{
		echo "$desc"
		cat "${frags[@]}"
		grep -v '^[[:space:]]*#' "$CI_DIR/3-build/build.sh"
		while IFS= read -r p; do
			[ -z "$p" ] || sed -n '/^diff --git /,/^-- $/p' "$p"
		done <<<"${plist[$1]}"
	} | sha1sum | cut -c1-16
}
kdir=$bcache/kernels
# kernel K [FLAVOUR]: the folder of its bzImage. Keyed once, at the
# start: a series edited while the run goes on does not change which
# kernel a boot takes.
declare -A kdirs
for k in "${pts[@]}"; do
	for f in "${flavs[@]}"; do kdirs[$k-$f]=$kdir/$(point_key "$k" "$f"); done
done
kernel() { echo "${kdirs[$1-${2:-bench}]}"; }
name_of() {
	if [ "$1" -eq 0 ]; then
		echo "base ($kver)"
	elif [ ${#variants[@]} -gt 0 ]; then
		echo "${vname[$1]}"
	else
		basename "${patches[$(($1 - 1))]}" .patch
	fi
}

# inv_arg: for the kprobe event on zswap_invalidate() (lockstat mode), its
# slot count as the guest's zs.bench.invarg wants it, from its prototype
# in $tree: N:u32 or N:u64 where it takes one (the last of N parameters,
# each in a register), none where it takes one slot (swp_entry_t alone).
inv_arg() {
	local proto n type
	proto=$(sed -n '/^void zswap_invalidate(/,/;/p' "$tree/include/linux/zswap.h" |
		tr -s '\n\t ' '   ' | sed -n 's/^void zswap_invalidate(\([^)]*\)).*/\1/p')
	[ -n "$proto" ] || die "no prototype of zswap_invalidate() in include/linux/zswap.h"
	n=$(awk -F, '{ print NF }' <<<"$proto")
	if [ "$n" -eq 1 ]; then echo none; return; fi
	type=${proto##*,}
	case $type in
	*long*|*pgoff_t*|*size_t*) echo "$n:u64" ;;
	*int*) echo "$n:u32" ;;
	*) die "zswap_invalidate($proto): the type of its slot count is not known here" ;;
	esac
}

# apply_point K LOG: bring $tree to point K: the series' patches 1..K,
# incrementally (to_point), or the base and variant K's patches.
apply_point() {
	local p
	if [ ${#variants[@]} -eq 0 ]; then to_point "$1" "$2"; return; fi
	reset_tree "$tree"
	while IFS= read -r p; do
		[ -z "$p" ] || "$CI_DIR/2-apply/apply.sh" "$tree" "$p" >>"$2" 2>&1 || return 1
	done <<<"${plist[$1]}"
}

# Build: apply the patches one by one and build each point wanted into
# one build folder per flavour, incrementally; skip the points already
# cached. A lockstat kernel keeps, next to its bzImage, the addresses of
# zswap.c's lockdep keys (static __key.N, from the symbols of vmlinux,
# where each file's locals follow its FILE symbol): spin_lock_init() in
# xa_init_flags() has one such key per file, so zswap's tree lock is the
# "&xa->xa_lock" class with one of these keys (/proc/lockdep); and those
# of swap_cgroup.c, where the kernel has it, for its "&ctrl->lock". It
# keeps too how zswap_invalidate() takes its slot count (invarg).
max=0 todo=0
for k in "${pts[@]}"; do
	if [ "$k" -gt "$max" ]; then max=$k; fi
	for f in "${flavs[@]}"; do [ -f "$(kernel "$k" "$f")/bzImage" ] || todo=1; done
done
: >"$out/points"
if [ $todo -eq 1 ]; then
	for k in $(seq 0 "$max"); do
		# A variant starts from the base: apply only those to build.
		if [ ${#variants[@]} -gt 0 ]; then
			built=1
			for f in "${flavs[@]}"; do [ -f "$(kernel "$k" "$f")/bzImage" ] || built=0; done
			[ $built -eq 0 ] || continue
		fi
		: >"$out/apply-$k.log"
		apply_point "$k" "$out/apply-$k.log" ||
			die "point $k does not apply: $out/apply-$k.log"
		[[ ",$points," == *",$k,"* ]] || continue
		for f in "${flavs[@]}"; do
			kd=$(kernel "$k" "$f")
			[ -f "$kd/bzImage" ] && continue
			say "build: point $k, $(name_of "$k") ($f)"
			bdir=$bcache/build/$tag-$f log=$out/build-$k-$f.log
			frags_of "$f"
			"$CI_DIR/3-build/build.sh" "$tree" "$bdir" "${frags[@]}" >"$log" 2>&1 ||
				die "point $k does not build: $log"
			mkdir -p "$kd"
			if [ "$f" = lockstat ]; then
				readelf -sW "$bdir/vmlinux" | awk -v d="$kd" '
					$4 == "FILE" { f = $8; next }
					$8 !~ /^__key/ { next }
					f == "zswap.c" { print $2, $8 >d "/zswap-keys" }
					f == "swap_cgroup.c" { print $2, $8 >d "/swapcg-keys" }'
				[ -s "$kd/zswap-keys" ] || die "no __key of zswap.c in $bdir/vmlinux"
				inv_arg >"$kd/invarg"
			fi
			# What the boots of this kernel claim (ci/7-verdict/judge.py).
			source_id "$tree" >"$kd/source-id"
			cp "$bdir/arch/x86/boot/bzImage" "$kd/bzImage.tmp"
			mv "$kd/bzImage.tmp" "$kd/bzImage"
		done
	done
	git -C "$tree" reset -q --hard zs-base
fi
for k in "${pts[@]}"; do
	printf '%s\t%s\n' "$k" "$(name_of "$k")" >>"$out/points"
done

# The compile group's sources, preprocessed in the bench build folder
# (the last point built; the same sources for every point), and the
# host's compiler to compile them in the guest.
if [[ ",$groups," == *,compile,* ]]; then
	say "image: the compile group's sources (${ccobjs//,/ }) and compiler"
	IFS=, read -ra objs <<<"$ccobjs"
	python3 "$BENCH_DIR/compile-inputs.py" "$bcache/build/$tag-bench" \
		"$out/compile" "${objs[@]}" >/dev/null ||
		die "the compile group's inputs could not be made"
	export COMPILE_INPUTS=$out/compile
fi
say "image: building the benchmarks"
"$CI_DIR/5-image/image.sh" --suite benchmarks "$tree" "$out/image"
initrd=$out/image/initramfs.cpio.gz

wall=""
if [[ ",$modes," == *,wall,* ]] ||
	{ [[ ",$modes," == *,lockstat,* ]] && [ "$lsaccel" = wall ]; }; then
	wall=$("$CI_DIR/6-boot/probe-accel.sh" "$(kernel "${pts[0]}" "${flavs[0]}")/bzImage" "$initrd")
fi

# norandmaps: no address space randomisation, which would make two icount
# boots of one kernel differ by up to 0.3% (page table layout).
append="norandmaps zs.swap=none zs.timeout=3600"
append+=" zs.bench.mib=$mib zs.bench.procs=$procs"
append+=" zs.bench.patterns=$patterns zs.bench.zswap=$zswap"
append+=" zs.only=$groups zs.bench.cclimit=$cclimit"
# brd and the virtio disk: room for the largest workload and then some.
swap_mib=$((mib * 2 + 64))
modes=${modes//wall/$wall}
{
	if [ ${#variants[@]} -gt 0 ]; then
		echo "title: $label, ${#variants[@]} variants against the base"
	elif [ ${#pts[@]} -eq 1 ]; then
		echo "title: $label, $(basename "$series"), point ${pts[0]}"
	else
		echo "title: $label, $(basename "$series") (${#pts[@]} points)"
	fi
	echo "base: $desc"
	if [ ${#variants[@]} -gt 0 ]; then
		echo "compare: variants"
		for k in "${pts[@]:1}"; do
			printf 'variant %s: %s\n' "${vname[$k]}" "$(sed -e '/^$/d' -e "s|^$REPO_DIR/||" <<<"${plist[$k]}" | paste -sd' ')"
		done
	else
		echo "series: ${series#"$REPO_DIR"/} (${#patches[@]} patches)"
	fi
	echo "qemu: $(qemu-system-x86_64 --version | head -n1)"
	echo "host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "modes: $modes"
	echo "wall: ${wall:-none}, $smp vCPUs"
	lsboot="$wall, $smp vCPUs"
	[ "$lsaccel" = wall ] ||
		lsboot="icount, 1 vCPU (hold and wait times are counts of instructions)"
	[[ ",$modes," == *,lockstat,* ]] &&
		echo "lockstat: $lsboot, configs/lockstat.config on top of the bench configs, $lsruns runs a point"
	echo "sizes: $mib MiB a workload, $procs processes in parallel, memcg limit 25%, compile job ${ccobjs//,/ } under memory.max $cclimit MiB (if its group ran), guest $mem MiB, $runs runs a point and mode, brd swap of $swap_mib MiB, swap-cache swap on virtio-blk ($swap_mib MiB, wall-clock) or loop on ramfs ($((mib + 64)) MiB, icount)"
	# Resuming into the same --out: the first command made the boots kept.
	if [ -f "$out/meta" ]; then
		grep '^command: ' "$out/meta"
		echo "resumed with: $cmd"
	else
		echo "command: $cmd"
	fi
} >"$out/meta.new"
mv "$out/meta.new" "$out/meta"

# boot MODE ROUND K: one guest, all workloads. A boot that did not end
# well (ci/7-verdict/verdict.py boot: a panic, a hang, QEMU that could not run)
# is tried once more; one that ended well in an earlier run into the same
# --out folder, with the same kernel, is kept.
boot() {
	local mode=$1 r=$2 k=$3 d try f=bench outcome=""
	d=$out/boots/$mode-r$r-p$k
	[ "$mode" = lockstat ] && f=lockstat
	if [ -d "$d" ] && python3 "$CI_DIR/7-verdict/verdict.py" boot "$d" >/dev/null 2>&1 &&
		[ "$(cat "$d/kernel" 2>/dev/null)" = "$(kernel "$k" $f)" ]; then
		say "boot: $mode round $r point $k: kept from an earlier run"
		return 0
	fi
	for try in 1 2; do
		boot_once "$mode" "$k" "$d" || true
		outcome=$(python3 "$CI_DIR/7-verdict/verdict.py" boot "$d" 2>/dev/null) && break
		say "boot: $mode round $r point $k: ${outcome:-fail} (try $try), see $d"
	done
	[ "$outcome" = ok ] && say "boot: $mode round $r point $k done in $(cat "$d/boot-seconds")s"
	return 0
}

# boot_once MODE K DIR. The swapcache group's device: in wall-clock mode a
# virtio disk in /dev/shm (a file in host memory, as fast as brd but
# asynchronous); under -icount a loop device on a ramfs file in the guest,
# as the host completes a virtio disk's I/O at moments of its own (the
# kernel reads its partition table at boot, swapon its header), and the
# idle guest's clock jumps from timer deadline to timer deadline until
# then: boots of one kernel differed by up to 0.6%, and the two-process
# workloads by up to 3.7%.
boot_once() {
	local mode=$1 k=$2 d=$3 disk="" rc=0 opts kd accel=$1 app=$append
	rm -rf "$d"
	mkdir -p "$d"
	# lockstat: boots as wall does; /proc/lockdep prints each class's key
	# with %p, hashed unless no_hash_pointers, to be matched with vmlinux.
	# (Only the lockstat kernel is built when it is the only mode.)
	if [ "$mode" != lockstat ]; then
		kd=$(kernel "$k")
	else
		kd=$(kernel "$k" lockstat) accel=$wall app+=" no_hash_pointers"
		[ "$lsaccel" = wall ] || accel=icount
		cp "$kd/zswap-keys" "$d/"
		if [ -f "$kd/swapcg-keys" ]; then cp "$kd/swapcg-keys" "$d/"; fi
		# The calls of zswap_invalidate(), counted by a kprobe event.
		if [ -f "$kd/invarg" ]; then app+=" zs.bench.invarg=$(cat "$kd/invarg")"; fi
	fi
	echo "$kd" >"$d/kernel"
	opts=(--accel "$accel" --mem "$mem" --swap-mib "$swap_mib" --timeout 5400)
	if [ "$accel" = icount ]; then
		opts+=(--append "$app zs.bench.cachedev=loop")
	else
		disk=$(mktemp /dev/shm/zswap-bench.XXXXXX)
		truncate -s "${swap_mib}M" "$disk"
		opts+=(--drive "$disk" --append "$app" --smp "$smp")
	fi
	"$CI_DIR/6-boot/boot.sh" "${opts[@]}" --source-id "$(cat "$kd/source-id" 2>/dev/null)" "$kd/bzImage" \
		"$initrd" "$d" >/dev/null 2>&1 || rc=$?
	[ -z "$disk" ] || rm -f "$disk"
	return $rc
}

# Interleave: every round boots every point, the order rotating from
# round to round. icount boots do not disturb each other's guest time,
# so they run $jobs at once; wall-clock boots run one at a time.
IFS=, read -ra mlist <<<"$modes"
for mode in "${mlist[@]}"; do
	par=1 rounds=$runs
	[ "$mode" = icount ] && par=$jobs
	[ "$mode" = lockstat ] && rounds=$lsruns
	[ "$mode" = lockstat ] && [ "$lsaccel" = icount ] && par=$jobs
	say "boot: $mode mode, $rounds rounds of points ${pts[*]}, $par at a time"
	for r in $(seq 1 "$rounds"); do
		n=${#pts[@]}
		for i in $(seq 0 $((n - 1))); do
			k=${pts[$(((i + r - 1) % n))]}
			while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
			boot "$mode" "$r" "$k" &
		done
	done
	wait
done

if [ $determinism -eq 1 ]; then
	report=${report:-$BENCH_DIR/results/$day-$label-determinism}
	mkdir -p "$(dirname "$report")"
	rc=0
	python3 "$BENCH_DIR/stats.py" determinism "$out" "$report" || rc=$?
	say "report: $report.md"
	exit $rc
fi
if [ -z "$report" ]; then
	report=$BENCH_DIR/results/$day-$label
	[ ${#variants[@]} -eq 0 ] || report+=-variants
fi
mkdir -p "$(dirname "$report")"
python3 "$BENCH_DIR/stats.py" report "$out" "$BENCH_DIR/claims.tsv" "$report"
# No plot where there is no timed mode (lockstat alone).
if [ ! -f "$report.gp" ]; then
	say "no plot: no mode with timings to compare"
elif ! (cd "$(dirname "$report")" && gnuplot "$(basename "$report").gp"); then
	say "gnuplot failed; the table is still there"
fi
rm -f "$report.dat" "$report.gp"
say "report: $report.md, $report.png (samples: $report.tsv)"

# shellcheck shell=sh disable=SC2034 # the variables are for the groups
# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark groups in the guest (busybox sh). Options come
# from the kernel command line (benchmarks/run.sh sets them):
#   zs.bench.mib=N        MiB each workload swaps (default 64)
#   zs.bench.procs=K      processes of the parallel workloads (default 2)
#   zs.bench.patterns=L   page contents, of zero,one,random,mixed (all)
#   zs.bench.zswap=L      zswap settings to run, of on,off (both)
#   zs.bench.limit=PCT    memcg limit, % of the workload's size (25)
#   zs.bench.cachedev=D   swap device of the swapcache group: vda (the
#                         virtio disk, default) or loop (a loop device on
#                         a ramfs file, whose I/O runs in the guest)
#   zs.bench.invarg=A     count the calls of zswap_invalidate() and the
#                         slots they cover (lockstat kernels only): N:TYPE,
#                         its slot count is argument N of type TYPE (e.g.
#                         2:u32), or none: it takes one slot a call

opt() {
	# shellcheck disable=SC2013 # the command line is one line of words
	for w in $(cat /proc/cmdline); do
		case $w in "zs.$1="*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}

MIB=$(opt bench.mib 64)
PROCS=$(opt bench.procs 2)
PATTERNS=$(opt bench.patterns zero,one,random,mixed | tr , ' ')
ZSWAPS=$(opt bench.zswap on,off | tr , ' ')
LIMIT=$(opt bench.limit 25)

# use_swap DEV: swap on /dev/DEV only, freshly made.
use_swap() {
	swapoff -a 2>/dev/null
	if [ ! -b "/dev/$1" ]; then
		echo "# SKIP no /dev/$1"
		exit 4
	fi
	if ! mkswap "/dev/$1" >/dev/null || ! swapon "/dev/$1"; then
		echo "BENCH-ERR setup swapon /dev/$1"
		exit 1
	fi
	echo "# swap: $(tail -n +2 /proc/swaps | tr -s ' ')"
}

# set_zswap on|off
set_zswap() {
	if [ "$1" = on ]; then v=Y; else v=N; fi
	echo $v >/sys/module/zswap/parameters/enabled ||
		{ echo "BENCH-ERR setup zswap $1"; exit 1; }
}

# inv_probe: with zs.bench.invarg, a kprobe event on zswap_invalidate()
# whose field nr is the call's slot count (an immediate 1 where it takes
# one slot), and a hist trigger keyed by nr that sums the calls: swapbench
# clears and reads it around each phase (CALLS lines) with this very
# trigger string. The trigger alone enables the event, softly: nothing
# goes to the trace buffer. Set up once, the first group that runs.
inv_probe() {
	inv=$(opt bench.invarg "")
	t=/sys/kernel/tracing
	[ -n "$inv" ] || return 0
	if [ ! -d $t/events ] && ! mount -t tracefs tracefs $t; then
		echo "BENCH-ERR setup tracefs"
		exit 1
	fi
	[ -d $t/events/swapbench/zsinv ] && return 0
	case $inv in
	none) fetch='nr=\1:u32' ;;
	*) fetch="nr=\$arg${inv%%:*}:${inv#*:}" ;;
	esac
	if ! printf 'p:swapbench/zsinv zswap_invalidate %s\n' "$fetch" >>$t/kprobe_events ||
		! echo 'hist:keys=nr:vals=hitcount:sort=nr' >>$t/events/swapbench/zsinv/trigger; then
		echo "BENCH-ERR setup the kprobe event on zswap_invalidate ($fetch)"
		exit 1
	fi
	echo "# zswap_invalidate: kprobe event $fetch"
}
inv_probe

# A small untimed round first, so that every workload meets warm slabs.
warmup() {
	/tests/swapbench -w warmup -d pageout -p mixed -m 8 >/dev/null
}

# bench NAME SWAPBENCH-ARGS...: run one workload; a failure fails the group.
# With lock statistics (configs/lockstat.config), swapbench prints the
# XArray lock classes' and swap_cgroup's lock's counts per phase (LOCK
# lines), and here each such class's key and name (LOCKDEP NAME KEY CLASS,
# from /proc/lockdep): the host tells zswap's tree lock from the others,
# and swap_cgroup's lock from other "ctrl" locks, by its key.
bench() {
	/tests/swapbench -w "$@" -m "$MIB" || rc=1
	if [ -r /proc/lockdep ]; then
		sed -n -e "s/^\([0-9a-f]*\): \(.*xa_lock.*\)/LOCKDEP $1 \1 \2/p" \
			-e "s/^\([0-9a-f]*\): \(.*&ctrl->lock.*\)/LOCKDEP $1 \1 \2/p" /proc/lockdep
	fi
}
rc=0

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Step 5, boot: run the kernel and initramfs in QEMU until the guest powers
# off, panics or runs past the time limit.
#
#   ci/boot.sh [options] BZIMAGE INITRAMFS OUTDIR
#     --smp N        vCPUs (default 2)
#     --mem MiB      guest memory (default 2048)
#     --swap-mib N   size of the brd swap device /dev/ram0 (default 1024)
#     --timeout S    wall-clock limit (default 1200)
#     --accel A      kvm | tcg | icount (default: $ZS_ACCEL, else tcg)
#     --append STR   more kernel command line (zs.* options: ci/guest/init)
#     --drive FILE   attach FILE as a raw virtio-blk disk, /dev/vda in the
#                    guest (needs configs/bench.config; default: none)
#
# Writes OUTDIR/console.log (ttyS0, the kernel's) and OUTDIR/ktap.txt
# (ttyS1, the tests'). Exit: 0 the guest finished, 2 it stopped without
# finishing (panic, triple fault, QEMU error), 3 it hung and was killed.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

smp=2 mem=2048 swap_mib=1024 limit=1200 accel=${ZS_ACCEL:-tcg} append="" drive=""
while [ $# -gt 3 ]; do
	case $1 in
	--smp) smp=$2 ;;
	--mem) mem=$2 ;;
	--swap-mib) swap_mib=$2 ;;
	--timeout) limit=$2 ;;
	--accel) accel=$2 ;;
	--append) append=$2 ;;
	--drive) drive=$2 ;;
	*) die "boot: unknown option $1" ;;
	esac
	shift 2
done
[ $# -eq 3 ] || die "usage: $0 [options] BZIMAGE INITRAMFS OUTDIR"
kernel=$1 initrd=$2 out=$3
mkdir -p "$out"
: >"$out/console.log"
: >"$out/ktap.txt"

case $accel in
kvm) acc=(-accel kvm -cpu host) ;;
tcg) acc=(-accel "tcg,thread=multi" -cpu max) ;;
# Guest time is a count of instructions: repeatable, one vCPU; -seed makes
# RDRAND/RDSEED a seeded sequence, so two boots run the same code paths.
# The RTC starts at a fixed date and runs on guest time: by default it
# follows the host clock, and the kernel's boot-time read of it spins on
# the update-in-progress bit for a host-dependent number of instructions.
icount)
	acc=(-accel tcg -icount "shift=0,align=off,sleep=off" -cpu max -seed 1
		-rtc "base=2026-01-01T00:00:00,clock=vm")
	smp=1 ;;
*) die "boot: unknown accelerator $accel" ;;
esac
bios=()
[ -f /usr/share/qemu/qboot.rom ] && bios=(-bios /usr/share/qemu/qboot.rom)
disk=()
if [ -n "$drive" ]; then
	[ -f "$drive" ] || die "boot: --drive $drive: no such file"
	# cache=unsafe: the file is scratch (e.g. in /dev/shm), never flushed.
	disk=(-drive "file=$drive,format=raw,if=virtio,cache=unsafe")
fi

# panic=-1: a panicking guest reboots at once, and -no-reboot ends QEMU;
# oops=panic: an Oops leaves the kernel in no state to go on testing.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=6"
cmdline+=" brd.rd_nr=1 brd.rd_size=$((swap_mib * 1024)) $append"

qemu-system-x86_64 -nodefaults -no-reboot -display none -M pc \
	"${bios[@]}" "${acc[@]}" -smp "$smp" -m "$mem" "${disk[@]}" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-serial "file:$out/console.log" -serial "file:$out/ktap.txt" \
	>"$out/qemu.log" 2>&1 &
qpid=$!
echo "$cmdline" >"$out/cmdline"

STALL_RE='rcu: INFO: .*stall|soft lockup|hard LOCKUP|blocked for more than'
STALL_GRACE=120
start=$(date +%s)
stalled=""
seen=0
rc=0
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	# Progress: the test now running, from the guest's KTAP stream.
	now=$(grep -c '^# running ' "$out/ktap.txt" || true)
	if [ "$now" -gt "$seen" ]; then
		say "boot: $(grep '^# running ' "$out/ktap.txt" | tail -n1 | cut -c3-)"
		seen=$now
	fi
	# A stall or lockup rarely recovers: give the guest a little while,
	# then stop it rather than wait out the whole limit.
	if [ -z "$stalled" ] && grep -qE "$STALL_RE" "$out/console.log"; then
		stalled=$(date +%s)
		say "boot: the kernel reports a stall or lockup"
	fi
	if [ -n "$stalled" ] && [ $(($(date +%s) - stalled)) -ge "$STALL_GRACE" ]; then
		say "boot: still running ${STALL_GRACE}s after a stall, killing the guest"
		limit=0
	fi
	if [ $(($(date +%s) - start)) -ge "$limit" ]; then
		say "boot: no end after ${limit}s, killing the guest"
		kill "$qpid" 2>/dev/null || true
		sleep 1
		kill -9 "$qpid" 2>/dev/null || true
		rc=3
		break
	fi
done
wait "$qpid" 2>/dev/null || true
echo "$(($(date +%s) - start))" >"$out/boot-seconds"
[ $rc -ne 0 ] && exit $rc
grep -q '^ZS-GUEST-DONE' "$out/console.log" || exit 2
exit 0

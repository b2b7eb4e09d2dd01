#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot: run the kernel and initramfs in QEMU until the guest powers
# off, panics or runs past the time limit.
#
#   ci/6-boot/boot.sh [options] BZIMAGE INITRAMFS OUTDIR
#     --smp N        vCPUs (default 2)
#     --mem MiB      guest memory (default 2048)
#     --swap-mib N   size of the brd swap device /dev/ram0 (default 1024)
#     --timeout S    wall-clock limit (default 1200)
#     --accel A      kvm | tcg | icount (default: $ZS_ACCEL, else tcg)
#     --append STR   more kernel command line (zs.* options: ci/5-image/guest/init)
#     --source-id ID the source_id (ci/3-build/lib.sh) of the sources the row built
#                    BZIMAGE from: written to OUTDIR/source-id, for the judge
#                    to compare with the id the booted kernel's banner names
#     --drive FILE   attach FILE as a raw virtio-blk disk, /dev/vda in the
#                    guest (needs configs/bench.config; default: none)
#     --shell        no tests: a root shell on the console, in this
#                    terminal, once the guest has set up swap and zswap as
#                    for the tests (the tests are in /tests; leave with
#                    exit, or Ctrl-A x); no time limit
#
# Writes OUTDIR/console.log (ttyS0, the kernel's), OUTDIR/ktap.txt (ttyS1,
# the tests'), OUTDIR/qemu-cmd (the exact QEMU command, to run again:
# `bash OUTDIR/qemu-cmd`), OUTDIR/qemu.log (QEMU's own messages),
# OUTDIR/boot-exit (the exit status below) and OUTDIR/source-id (with
# --source-id). What the boot means is for ci/7-verdict/verdict.py boot
# OUTDIR to say (ci/7-verdict/judge.py).
#
# Exit status:
#   0   the guest finished: it printed ZS-GUEST-DONE and powered off
#   2   the guest stopped without finishing (a panic, a triple fault)
#   3   the guest ran past the time limit, or on for 120 s after a stall
#       or lockup of ci/7-verdict/splats, and was killed
#   75  infrastructure error, nothing known about the kernel: QEMU is
#       missing, could not start or failed (a forced --accel kvm without
#       a usable KVM, an unreadable BZIMAGE), or OUTDIR's file system has
#       less than 32 MiB free; OUTDIR/boot-infra says which
#   1   a usage error
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

smp=2 mem=2048 swap_mib=1024 limit=1200 accel=${ZS_ACCEL:-tcg} append="" drive=""
claim=""
shell=0
parse_opts "--shell --smp= --mem= --swap-mib= --timeout=limit --accel= --append=
	--drive= --source-id=claim @" "$@"
[ ${#args[@]} -eq 3 ] || die "usage: $0 [options] BZIMAGE INITRAMFS OUTDIR"
kernel=${args[0]} initrd=${args[1]} out=${args[2]}
mkdir -p "$out"
rm -f "$out/boot-exit" "$out/boot-infra" "$out/boot-seconds" "$out/source-id"
[ -z "$claim" ] || echo "$claim" >"$out/source-id"
: >"$out/console.log"
: >"$out/ktap.txt"

# finish STATUS: record the exit status for the judge, and exit with it.
# On a full disk the record may fail; the status still goes to the caller.
finish() {
	echo "$1" >"$out/boot-exit" 2>/dev/null || true
	exit "$1"
}

# infra WHY: an infrastructure error, not the kernel's.
infra() {
	say "boot: infrastructure error: $*"
	printf '%s\n' "$*" >"$out/boot-infra" 2>/dev/null || true
	finish 75
}

command -v qemu-system-x86_64 >/dev/null || infra "qemu-system-x86_64 is not installed"
# The console of a debug kernel's splat runs to megabytes; a disk that
# fills mid-boot would cut the logs the verdict is read from.
free_kib=$(df -Pk "$out" | awk 'NR == 2 { print $4 }')
[ "${free_kib:-0}" -ge $((32 * 1024)) ] ||
	infra "$((${free_kib:-0} / 1024)) MiB free on the file system of $out, 32 needed"

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
if [ $shell -eq 1 ]; then
	# The console on this terminal (and still into console.log); Ctrl-C
	# goes to the guest, Ctrl-A x ends QEMU.
	cmdline+=" zs.shell=1"
	serial=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$out/console.log"
		-serial chardev:con -mon "chardev=con,mode=readline")
else
	serial=(-serial "file:$out/console.log")
fi
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -display none -M pc
	"${bios[@]}" "${acc[@]}" -smp "$smp" -m "$mem" "${disk[@]}"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	"${serial[@]}" -serial "file:$out/ktap.txt")
echo "$cmdline" >"$out/cmdline"
# For whoever debugs this boot: the command exactly as run.
{
	echo "# The QEMU command of this boot (ci/6-boot/boot.sh, $(date -u '+%Y-%m-%d %H:%M UTC'));"
	echo "# bash this file to run it again: it writes console.log and ktap.txt here."
	printf '%q ' "${qemu[@]}"
	echo
} >"$out/qemu-cmd"

if [ $shell -eq 1 ]; then
	say "boot: a shell in the guest; the tests are in /tests; exit, or Ctrl-A x, to leave"
	qrc=0
	"${qemu[@]}" 2>"$out/qemu.log" || qrc=$?
	[ $qrc -eq 0 ] || infra "QEMU exited with status $qrc: $(tail -n1 "$out/qemu.log")"
	finish 0
fi

"${qemu[@]}" >"$out/qemu.log" 2>&1 &
qpid=$!

# The lines of stalls, as one grep -E pattern after an optional printk
# timestamp (ci/tests/test-judge.py checks it is the judge's own).
stall_re="^(\[ *[0-9]+\.[0-9]+\]( *\[ *[TC][0-9]+\])? ?)?($(sed -n 's/^\^//p' "$CI_DIR/6-boot/stalls" | paste -sd'|'))"
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
	if [ -z "$stalled" ] && grep -qE "$stall_re" "$out/console.log"; then
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
qrc=0
wait "$qpid" 2>/dev/null || qrc=$?
echo "$(($(date +%s) - start))" >"$out/boot-seconds"
[ $rc -eq 0 ] || finish $rc
# QEMU ends with 0 whatever the guest did (a panic reboots, and
# -no-reboot turns that into an exit): anything else is QEMU's failure.
[ $qrc -eq 0 ] ||
	infra "QEMU exited with status $qrc: $(grep -v '^[[:space:]]*$' "$out/qemu.log" | tail -n1)"
grep -q '^ZS-GUEST-DONE' "$out/console.log" || finish 2
finish 0

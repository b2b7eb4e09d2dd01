#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test that the commands refuse bad input at once: each case must exit
# non-zero within 2 seconds of CPU time (and 10 of wall-clock time, which
# a loaded machine stretches), its message naming the option (or what is
# wrong), having installed, fetched, prepared and built nothing. They run
# with apt-get, apt, dpkg, dpkg-query, make, b4 and qemu-system-x86_64
# replaced by commands that record being run and fail, the caches
# (ZS_CACHE) in an empty folder that must stay empty, and a git identity
# of the test's own. The --help of each command must exit 0 and print its
# usage, as fast. Prints TAP lines; exits non-zero when a case fails.
# Takes seconds; needs no kernel tree, package or network.
#
#   ci/tests/test-input.sh
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/cache" "$tmp/home" "$tmp/folder"
for c in apt-get apt dpkg dpkg-query make b4 qemu-system-x86_64; do
	printf '#!/bin/sh\necho "%s $*" >>%q\necho "%s: not to be run by a refusal" >&2\nexit 1\n' \
		"$c" "$tmp/ran" "$c" >"$tmp/bin/$c"
	chmod +x "$tmp/bin/$c"
done
echo "not a folder" >"$tmp/file"
unset ZS_BASE XDG_CACHE_HOME
export PATH=$tmp/bin:$PATH ZS_CACHE=$tmp/cache HOME=$tmp/home
export GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1
real='A U Thor <a.u.thor@zswap-series-ci.org>'
placeholder='Seed c881d9f4 maintainers <maintainers@users.noreply.a-seed-c881d9f4.example>'
# identity 'Name <addr>': the git identity the commands see.
identity() {
	local addr=${1##*<}
	printf '[user]\n\tname = %s\n\temail = %s\n' "${1% <*}" "${addr%>}" >"$GIT_CONFIG_GLOBAL"
}
identity "$real"

# A folder of mails as ci/upstream/mail.sh writes them (series.json and the
# cover letter), written as IDENT: for --mark-sent.
mails_as() {
	local d=$tmp/mails-$2 domain=${1##*@}
	domain=${domain%>}
	mkdir -p "$d"
	python3 -c 'import json, sys
json.dump({"series": sys.argv[2], "revision": 1, "change-id": "20261201-zswap-mainline-0123456789ab",
	"cover": "0000-cover.eml", "from": sys.argv[3], "state": sys.argv[1] + "/b4-cover",
	"top": sys.argv[1], "files": {}}, open(sys.argv[1] + "/series.json", "w"))' \
		"$d" "$REPO_DIR/patches/mainline/series" "$1"
	printf 'From: %s\nSubject: [PATCH 0/1] test\nMessage-Id: <20261201-zswap-v1-0-0123@%s>\n\nbody\n' \
		"$1" "$domain" >"$d/0000-cover.eml"
	echo "$d"
}

n=0 failed=0
# run CMD...: run it from the repository, with no input; sets rc, ms (wall
# clock) and cpu (its CPU time, user and system, in ms: the difference in
# the times builtin's line for this shell's children, run in this shell),
# its output in $tmp/out and $tmp/err.
run() {
	local t0
	rm -f "$tmp/ran"
	times >"$tmp/times0"
	t0=$(date +%s%N)
	rc=0
	(cd "$REPO_DIR" && "$@") >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	times >"$tmp/times1"
	cpu=$(awk 'function ms(x, m) {
			m = x; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", x); sub(/s$/, "", x)
			return (m * 60 + x) * 1000 }
		FNR == 2 { c[FILENAME] = ms($1) + ms($2) }
		END { printf "%d\n", c[ARGV[2]] - c[ARGV[1]] }' "$tmp/times0" "$tmp/times1")
}
# quick: the command took under 2 s of CPU and 10 s of wall-clock time;
# else why not.
quick() {
	[ "$cpu" -lt 2000 ] || echo "took $cpu ms of CPU"
	[ "$ms" -lt 10000 ] || echo "took $ms ms"
}
# nothing_done: no fake command ran, the caches are still empty.
nothing_done() {
	if [ -e "$tmp/ran" ]; then
		echo "#   ran: $(paste -sd';' "$tmp/ran")"
		return 1
	fi
	if [ -n "$(ls -A "$tmp/cache")" ]; then
		echo "#   wrote in the cache: $(find "$tmp/cache" -mindepth 1 -maxdepth 1 -printf '%f ')"
		return 1
	fi
}
result() {
	n=$((n + 1))
	if [ -z "$1" ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2: $1"
		sed 's/^/#   /' "$tmp/err" | head -n 5
		failed=$((failed + 1))
	fi
}
# refused WORDS CMD...: CMD exits non-zero in under 2 s, its stderr saying
# WORDS (a fixed string: the option, and what is wrong), having run and
# written nothing.
refused() {
	local words=$1 why=""
	shift
	run "$@"
	[ "$rc" -ne 0 ] || why="exit 0"
	grep -qF -- "$words" "$tmp/err" || why="${why:+$why; }no '$words' in its message"
	slow=$(quick)
	[ -z "$slow" ] || why="${why:+$why; }$slow"
	nothing_done || why="${why:+$why; }it did work"
	result "$why" "${*#"$REPO_DIR/"}: refused in $ms ms ($cpu ms CPU): $(grep -m1 . "$tmp/err" | cut -c1-160)"
}
# helps CMD...: CMD --help exits 0 in under 2 s, printing its usage.
helps() {
	local why=""
	run "$@" --help
	[ "$rc" -eq 0 ] || why="exit $rc"
	grep -qi 'usage\|options\|^#* *ci/\|^#* *benchmarks/' "$tmp/out" || why="${why:+$why; }no usage printed"
	slow=$(quick)
	[ -z "$slow" ] || why="${why:+$why; }$slow"
	nothing_done || why="${why:+$why; }it did work"
	result "$why" "$* --help: exit $rc in $ms ms ($cpu ms CPU), $(wc -l <"$tmp/out") lines of usage"
}

# accepted CMD...: good input gets past the checks: CMD goes on to its
# first heavy step, installing what it needs (where the fakes stop it).
accepted() {
	local why=""
	run "$@"
	[ -e "$tmp/ran" ] || why="it stopped before installing anything (exit $rc)"
	result "$why" "${*#"$REPO_DIR/"}: accepted, went on to $(sed -n '1s/ .*//p' "$tmp/ran" 2>/dev/null) in $ms ms"
	rm -rf "${tmp:?}/cache" "$tmp/results"
	mkdir -p "$tmp/cache"
}

# The options of every command go through one parser (parse_opts in
# ci/lib.sh): its refusals are tested once, on run-series.sh; each
# command's own checks of the values below.
rs=ci/jobs/run-series.sh
echo "# $rs"
refused "--base 'v9.9': no such base" $rs --base v9.9
refused "--base '$tmp/folder': no such base" $rs --base "$tmp/folder"
refused "ZS_BASE or --base 'v9.9'" env ZS_BASE=v9.9 $rs
refused "unknown option --bogus" $rs --bogus
refused "unknown option --bogus" $rs --bogus value
refused "stray: not an option" $rs stray
refused "unknown option --base=v6.12" $rs --base=v6.12
refused "--series needs a value" $rs --series
refused "--series '/nope': no such file" $rs --series /nope
refused "--from 'x': not a point number" $rs --from x
refused "--from 99: the series has" $rs --from 99
refused "--to 99: the series has" $rs --to 99
refused "--default 'off': not one of build none" $rs --default off
refused "--cut 'vendor': not one of upstream production" $rs --cut vendor
refused "has no optional sets" $rs --base mainline --cut upstream
refused "--to 0 is before --from 1" $rs --from 1 --to 0
refused "--debug 'sometimes': not one of last all none" $rs --debug sometimes
refused "--stress 'long'" $rs --stress long
refused "--boots 'first'" $rs --boots first
refused "--only/--debug-only no_such_test" $rs --only no_such_test
refused "--tests-series '/nope': no such file" $rs --tests-series /nope
refused "--results '$tmp/file/x': $tmp/file is a file" $rs --results "$tmp/file/x"
helps $rs

bi=ci/jobs/bisect.sh
echo "# $bi"
refused "no check given" $bi
refused "--base 'v9.9': no such base" $bi --base v9.9 build
refused "--series '/nope': no such file" $bi --series /nope build
refused "no_such_test: no test no_such_test" $bi no_such_test
refused "nope:swapcg_noswap: no boot nope" $bi nope:swapcg_noswap
refused "one check only" $bi build boot
helps $bi

tb=ci/tests/test-bisect.sh
echo "# $tb"
refused "--base selftests-zswap: no ci/tests/faults/selftests-zswap/build-break.patch" $tb --base selftests-zswap
refused "--check boot: build or objects" $tb --check boot
helps $tb

cs=ci/jobs/compile-series.sh
echo "# $cs"
refused "--base 'v9.9': no such base" $cs --base v9.9
refused "--series '/nope': no such file" $cs --series /nope
refused "--from '0': a point, 1 or more" $cs --from 0
helps $cs

tc=ci/tests/test-compile-faults.sh
echo "# $tc"
refused "--base 'mainline': not one of v6.12 v6.1" $tc --base mainline
helps $tc

ts=ci/tests/test.sh
echo "# $ts"
refused "--base 'v9.9': no such base" $ts --base v9.9
helps $ts

tf=ci/tests/test-faults.sh
echo "# $tf"
refused "--base 'v9.9': no such base" $tf --base v9.9
refused "--series selftests-nope: no" $tf --series selftests-nope
refused "--base selftests-zswap: that is a series, not a base: give --series selftests-zswap" $tf --base selftests-zswap
refused "fault no-such-fault: no line" $tf no-such-fault
# The flags take no value: the word after one is a fault's name.
refused "fault no-such-fault: no line" $tf --no-kcsan --no-variants no-such-fault
refused "--results '$tmp/file': $tmp/file is a file" $tf --results "$tmp/file"
helps $tf

br=benchmarks/run.sh
echo "# $br"
refused "--points: no point 9 (the series has" $br --points 9
refused "--points: no point 12 (the series has" $br --base v6.12 --points 0,12
refused "--points '0,x': not a comma-separated list" $br --points 0,x
refused "--series '/nope': no such file" $br --series /nope
refused "--base 'v9.9': no such base" $br --base v9.9
refused "--tree '/nope': no tree with a zs-base tag" $br --tree /nope
for o in --runs --lockstat-runs --mib --procs --smp --mem --jobs; do
	refused "$o '0': not a whole number above 0" $br "$o" 0
done
refused "--runs 'x': not a whole number above 0" $br --runs x
refused "--mib '-1': not a whole number above 0" $br --mib -1
refused "--jobs '1.5': not a whole number above 0" $br --jobs 1.5
refused "--modes 'icount,bogus': bogus is none of" $br --modes icount,bogus
refused "--modes ',': not a comma-separated list" $br --modes ,
refused "--patterns 'zero,two': two is none of" $br --patterns zero,two
refused "--zswap 'maybe': maybe is none of" $br --zswap maybe
refused "--groups 'pageout,bogus': bogus is none of" $br --groups pageout,bogus
refused "--out '$tmp/file': $tmp/file is a file" $br --out "$tmp/file"
refused "--report '$tmp/file/r'" $br --report "$tmp/file/r"
refused "--variant goes without --series" $br --variant a=x.patch --points 0
refused "--variant bad: not NAME=LIST" $br --variant bad
refused "--variant v: no file /nope.patch" $br --variant v=/nope.patch
refused "--determinism takes one point" $br --determinism --points 0,1
helps $br

xb=benchmarks/xarray-bench.sh
echo "# $xb"
refused "--reps '0': not a whole number above 0" $xb --reps 0
refused "--rounds 'x': not a whole number above 0" $xb --rounds x
refused "--threads '0,2'" $xb --threads 0,2
refused "--sizes '1,3': 3 is not a power of two" $xb --sizes 1,3
refused "--warmup '-1'" $xb --warmup -1
refused "--lock 'mutex,rw': rw is none of" $xb --lock mutex,rw
refused "--tree '/nope': not a kernel tree" $xb --tree /nope
refused "--binary '/nope': no such executable file" $xb --binary /nope
refused "--build-only '$tmp/file/x'" $xb --build-only "$tmp/file/x"
refused "--build-dir '$tmp': not empty, and not a folder this script made" $xb --build-dir "$tmp"
helps $xb

ml=ci/upstream/mail.sh
echo "# $ml"
refused "--base 'v9.9': no such base" $ml --base v9.9
refused "--series '/nope': no such file" $ml --series /nope
refused "refusing to write mails as 'nobody' (--from): it is not 'Your Name <you@your.domain>'" $ml --from nobody
refused "--out '$tmp/file'" $ml --out "$tmp/file"
refused "--prefix 'R]FC'" $ml --prefix 'R]FC'
refused "--no-sign goes with --send" $ml --no-sign
refused "--mark-sent '/nope': no such folder" $ml --mark-sent /nope
# Item: the mails are never written as an identity no reply reaches.
identity "$placeholder"
refused "refusing to write mails as '$placeholder' (git config" $ml
refused "placeholder author" $ml --send
identity 'root <root@localhost>'
refused "refusing to write mails as 'root <root@localhost>' (git config user.name and user.email): localhost is a reserved domain" $ml
identity 'Some One <some.one@box.invalid>'
refused "'Some One <some.one@box.invalid>' (git config user.name and user.email): box.invalid is a reserved domain" $ml
identity "$real"
refused "refusing to write mails as 'T <t@example.com>' (--from): example.com is a reserved domain" $ml --from 'T <t@example.com>'
refused "refusing to write mails as 'T <t@host.test>' (--from)" $ml --from 'T <t@host.test>'
refused "'Bot <no-reply@zswap-series-ci.org>' (--from): \"no-reply\" is a no-reply mailbox" \
	$ml --from 'Bot <no-reply@zswap-series-ci.org>'
printf '[sendemail]\n\tfrom = Old <old@example.org>\n' >>"$GIT_CONFIG_GLOBAL"
refused "refusing to write mails From: 'Old <old@example.org>' (git config sendemail.from)" $ml
identity "$real"
d=$(mails_as "$placeholder" placeholder)
refused "refusing to record these mails as sent: they were written as $placeholder" $ml --mark-sent "$d"
d=$(mails_as 'root <root@localhost>' localhost)
refused "root <root@localhost>: localhost is a reserved domain" $ml --mark-sent "$d"
helps $ml

# The steps and tools: only --help and their usage here.
for c in ci/6-boot/boot.sh ci/5-image/image.sh ci/jobs/repeat-boots.sh \
	ci/timing/build-cost.sh ci/3-build/build.sh ci/4-gates/gates.sh; do
	echo "# $c"
	helps $c
done
refused "usage: " ci/6-boot/boot.sh --smp 2 bz
refused "usage: " ci/5-image/image.sh tree
refused "--times '0': not a whole number above 0" ci/jobs/repeat-boots.sh --times 0 a b c
refused "--load 'often': not one of build none" ci/jobs/repeat-boots.sh --load often a b c
refused "--gates 'sparse,lint': lint is none of" ci/4-gates/gates.sh --gates sparse,lint a b c
refused "--gates 'sparse,lint': lint is none of" $rs --gates last:sparse,lint
refused "--variants 'NOPE=n': NOPE=n is none of" $rs --variants all:NOPE=n

cm=ci/upstream/check-mm-apply.sh
echo "# $cm"
refused "usage: " $cm
refused "MM '/nope': no such folder" $cm /nope
refused "SERIES '/nope': no such file" $cm "$tmp/folder" /nope
helps $cm

echo "# good input goes on to the work"
mkdir -p "$tmp/kernel/lib"
touch "$tmp/kernel/Makefile"
accepted $rs --base v6.12 --from 6 --to 6 --default none --cut production --results "$tmp/results" \
	--gates last:sparse,W1 --variants all:MEMCG=n
accepted $rs --base mainline --variants none --debug last --debug-only kunit_results \
	--kcsan none --gates none --stress short --results "$tmp/results"
accepted $bi --base v6.12 --series patches/v6.12/series --results "$tmp/results" build
accepted $bi --base v6.1 noswap:swapcg_noswap
accepted $tf --base v6.12 --results "$tmp/results" sparse-warning
accepted $br --base v6.12 --points 0,8 --modes icount,lockstat --runs 5 --mib 32 \
	--groups pageout,memcg --zswap on --jobs 2 --out "$tmp/results"
accepted $br --determinism --points 1 --out "$tmp/results"
accepted $xb --tree "$tmp/kernel" --sizes 1,16,512 --threads 1,2 --lock spin \
	--build-dir "$tmp/results"
accepted $ml --series patches/mainline/series --prefix RFC --out "$tmp/results"
accepted $ml --from "$real" --base v6.12 --out "$tmp/results"

echo "1..$n"
echo "# $failed of $n failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test of ci/mail.sh on the mainline base, in a scratch git repository that
# holds a copy of patches/mainline/ (so b4.json and commits never touch this
# repository). Prints TAP lines; exits non-zero when a check fails.
#
#   ci/test-mail.sh [--keep]      (--keep: leave the scratch folder)
#
#   a) v1: cover letter + one mail a patch (a single patch carries the
#      cover letter below its "---", as b4 does), checkpatch-clean, From:
#      the sender with the sender's Signed-off-by, To/Cc with the zswap
#      maintainers and linux-mm@kvack.org, the cover naming the upstream
#      tag and the Debian package;
#   b) --mark-sent of v1, an edit of one patch's commit message, then v2:
#      same change-id, subjects "v2", a range-diff in the cover showing
#      the edit, a link to v1;
#   d) --send as maintainers@users.noreply.a-seed-c881d9f4.example (this
#      repository's git identity), with a reserved domain, a no-reply
#      mailbox and no user.email: each refused, nothing written or sent
#      (the SMTP server is a command that records being run and fails);
#   c, e) --prefix RFC --send as a sender who can receive replies, through
#      a sendmail command that keeps the mails: [PATCH RFC v2 ...] (b4
#      writes its prefixes after PATCH, unlike git format-patch --rfc),
#      b4 sends them, b4.json records v2 as sent.
#
# Identities: (a) and (b) only write mails, so they are written --from
# 'Test Sender <test.sender@example.org>', a reserved domain that belongs
# to nobody; (c, e) need an address that --send accepts, a made-up one,
# test.sender@zswap-series-ci.org, and their mails go to a local command,
# never to the network (sendemail.smtpserver is that command).
# Git configuration: a file of the test's own (GIT_CONFIG_GLOBAL) with
# this repository's noreply identity, which mail.sh reads for (d).
# Takes a few minutes on 2 cores: four runs of mail.sh, each making a
# sparse clone of the mainline tree of ci/tree.sh; nothing is built.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

keep=""
[ "${1:-}" != --keep ] || keep=1
t0=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-mail.XXXXXX")
finish() {
	if [ -n "$keep" ]; then
		echo "# scratch folder kept: $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap finish EXIT

n=0 failed=0
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

noreply='maintainers@users.noreply.a-seed-c881d9f4.example'
sender='Test Sender <test.sender@example.org>'
cat >"$tmp/sendmail-fails" <<EOF
#!/bin/sh
touch '$tmp/smtp-attempted'
exit 1
EOF
cat >"$tmp/sendmail-keeps" <<EOF
#!/bin/sh
cat >>'$tmp/sent.mbox'
echo >>'$tmp/sent.mbox'
EOF
chmod +x "$tmp/sendmail-fails" "$tmp/sendmail-keeps"
cat >"$tmp/gitconfig" <<EOF
[user]
	name = Seed c881d9f4 maintainers
	email = $noreply
[sendemail]
	smtpserver = $tmp/sendmail-fails
EOF
export GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1

# The scratch repository with the series.
src=$(dirname "$(series_for mainline)")
repo=$tmp/repo
mkdir -p "$repo/patches"
cp -r "$src" "$repo/patches/mainline"
rm -f "$repo/patches/mainline/b4.json"
if [ ! -f "$repo/patches/mainline/cover-letter.txt" ]; then
	echo "# $src has no cover-letter.txt; the test writes one of its own"
	printf '%s\n\n%s\n' 'mm: zswap: test series for ci/test-mail.sh' \
		'A cover letter that ci/test-mail.sh wrote, for want of one.' \
		>"$repo/patches/mainline/cover-letter.txt"
fi
series=$repo/patches/mainline/series
sgit() {
	git -C "$repo" -c user.name=test-mail -c user.email=test-mail@localhost "$@"
}
sgit init -q
sgit add -A
sgit commit -q -m 'the series as v1'
npatch=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" | wc -l)
echo "# series: $npatch patch(es), copied from $src"

envs=$("$CI_DIR/tree.sh" mainline)
eval "$envs"
echo "# base: $ZS_UPSTREAM, $ZS_BASE_DESC"

# mail OUT ARGS...: ci/mail.sh on the scratch series into $tmp/OUT.
mail() {
	local o=$1
	shift
	local rc=0
	"$CI_DIR/mail.sh" --series "$series" --out "$tmp/$o" "$@" \
		>"$tmp/$o.out" 2>"$tmp/$o.err" </dev/null || rc=$?
	echo "$rc" >"$tmp/$o.rc"
	echo "# mail.sh $* -> exit $rc ($(($(date +%s) - t0)) s so far)"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/$o.err" | tail -n 15
}
rc_is() { [ "$(cat "$tmp/$1.rc")" = "$2" ]; }
# refused NAME PATTERN: the run NAME failed, saying PATTERN.
refused() { [ "$(cat "$tmp/$1.rc")" != 0 ] && grep -q "$2" "$tmp/$1.err"; }
nothing_sent() {
	[ ! -e "$tmp/smtp-attempted" ] && [ -z "$(ls "$tmp"/send-*/*.eml 2>/dev/null)" ]
}
rangediff_shows() { grep -q '^Range-diff against v1:' "$1" && grep -qF "+    $2" "$1"; }
# headers MAIL: the mail's header, one line a field.
headers() {
	awk '/^$/ { exit } /^[ \t]/ { h = h $0; next } { if (h != "") print h; h = $0 }
		END { if (h != "") print h }' "$1"
}
# cover DIR: the cover letter mail (the only mail of a single patch).
cover() {
	if [ "$npatch" -eq 1 ]; then
		ls "$1"/*.eml
	else
		grep -lE "^Subject: \[[^]]*PATCH[^]]* 0+/$npatch\]" "$1"/*.eml
	fi
}
nmails() {
	local want=$((npatch > 1 ? npatch + 1 : 1)) have
	have=$(find "$tmp/$1" -maxdepth 1 -name '*.eml' | wc -l)
	[ "$have" -eq "$want" ] || { echo "# $have mails, want $want"; return 1; }
}
checkpatch_clean() {
	local l
	for l in "$tmp/$1"/checkpatch-*.log; do
		grep -q 'total: 0 errors, 0 warnings, 0 checks' "$l" ||
			{ echo "# not clean: $l"; return 1; }
	done
	[ "$(find "$tmp/$1" -name 'checkpatch-*.log' | wc -l)" -eq "$npatch" ]
}
recipients() {
	local m h addr
	for m in "$tmp/$1"/*.eml; do
		h=$(headers "$m" | grep -E '^(To|Cc):')
		for addr in hannes@cmpxchg.org yosry@kernel.org nphamcs@gmail.com \
			chengming.zhou@linux.dev linux-mm@kvack.org; do
			grep -qF "$addr" <<<"$h" || { echo "# $m: no $addr in To/Cc"; return 1; }
		done
	done
}
subjects() {
	local m
	for m in "$tmp/$1"/*.eml; do
		headers "$m" | grep -E "^Subject: $2" >/dev/null ||
			{ echo "# $(headers "$m" | grep '^Subject:')"; return 1; }
	done
}
from_sender() {
	local m
	for m in "$tmp/$1"/*.eml; do
		headers "$m" | grep -xF "From: $sender" >/dev/null || { echo "# $m: not From: $sender"; return 1; }
		[ "$m" = "$(cover "$tmp/$1")" ] && [ "$npatch" -gt 1 ] && continue
		grep -qxF "Signed-off-by: $sender" "$m" || { echo "# $m: no Signed-off-by: $sender"; return 1; }
		# The author, someone else, stays as the in-body From:.
		awk 'body { exit !/^From: / } /^$/ { body = 1 }' "$m" ||
			{ echo "# $m: no in-body From: of the author"; return 1; }
	done
}
# names_base MAIL: "Based on TAG; tested on PACKAGE." (folded) in MAIL.
names_base() {
	tr '\n' ' ' <"$1" | grep -F "Based on $ZS_UPSTREAM; tested on $ZS_BASE_DESC." >/dev/null
}
msgid() { headers "$1" | sed -n 's/^Message-I[Dd]: *<\(.*\)>/\1/p'; }
changeid() { sed -n 's/^change-id: //p' "$1"; }
state() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$repo/patches/mainline/b4.json" "$1" 2>/dev/null
}

echo "# a) v1"
mail v1 --from "$sender"
c1=$(cover "$tmp/v1" | sed -n 1p)
check "v1: mail.sh exits 0" rc_is v1 0
check "v1: cover letter + one mail a patch ($npatch)" nmails v1
check "v1: checkpatch --strict clean on every patch mail" checkpatch_clean v1
check "v1: subjects are [PATCH ...] without a revision" subjects v1 '\[PATCH( [0-9]+/[0-9]+)?\]'
check "v1: To/Cc have the zswap maintainers and linux-mm@kvack.org" recipients v1
check "v1: From: the sender, who signs off; the author stays as in-body From:" from_sender v1
check "v1: the cover letter names $ZS_UPSTREAM and the Debian package" names_base "$c1"
check "v1: the cover letter has a change-id" test -n "$(changeid "$c1")"

echo "# b) mark v1 sent, edit a commit message, v2"
rc=0
"$CI_DIR/mail.sh" --mark-sent "$tmp/v1" >"$tmp/mark.out" 2>&1 || rc=$?
sed 's/^/#   /' "$tmp/mark.out"
check "mark-sent: exits 0" test "$rc" -eq 0
check "mark-sent: b4.json records v1's Message-ID and the revision 2" \
	test "$(state sent.v1.message-id)/$(state revision)" = "$(msgid "$c1")/2"
check "mark-sent: b4.json names the commit holding v1" \
	test "$(state sent.v1.commit)" = "$(git -C "$repo" rev-parse HEAD)"
edit='This paragraph was added for v2 by ci/test-mail.sh.'
first=$repo/patches/mainline/$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" | sed -n 1p)
awk -v text="$edit" '!done && /^$/ { print; print text; print ""; done = 1; next } { print }' \
	"$first" >"$tmp/edited" && cat "$tmp/edited" >"$first"
sgit commit -q -a -m 'v2: reword, and b4.json of v1'
mail v2 --from "$sender"
c2=$(cover "$tmp/v2" | sed -n 1p)
check "v2: mail.sh exits 0 (checkpatch clean)" rc_is v2 0
check "v2: cover letter + one mail a patch" nmails v2
check "v2: subjects say v2" subjects v2 '\[PATCH v2( [0-9]+/[0-9]+)?\]'
check "v2: same change-id as v1 ($(changeid "$c1"))" \
	test "$(changeid "$c2")" = "$(changeid "$c1")"
check "v2: the cover letter has a 'Changes in v2:' section linking to v1" \
	grep -qF "Link to v1: https://lore.kernel.org/r/$(msgid "$c1")" "$c2"
check "v2: the cover letter has a range-diff against v1 showing the edit" \
	rangediff_shows "$c2" "$edit"

echo "# d) --send refused for senders who cannot receive replies"
mail send-noreply --send
check "--send as $noreply: refused, saying why" \
	refused send-noreply "refusing to send as '$noreply'.*no-reply.*Nothing was sent"
mail send-example --send --from 'Test Sender <test.sender@example.com>'
check "--send as test.sender@example.com: refused, reserved domain" \
	refused send-example "reserved domain"
mail send-noreply-local --send --from 'Bot <no-reply@zswap-series-ci.org>'
check "--send as no-reply@zswap-series-ci.org: refused, no-reply mailbox" \
	refused send-noreply-local "no-reply mailbox"
printf '[user]\n\tname = Nobody\n[sendemail]\n\tsmtpserver = %s\n' "$tmp/sendmail-fails" >"$tmp/gitconfig-noemail"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-noemail mail send-noemail --send
check "--send without user.email: refused" refused send-noemail "no user.email"
check "--send refused: no SMTP attempted, no mail written" nothing_sent
check "--send refused: b4.json still at v2" test "$(state revision)" = 2

echo "# c) and e) --prefix RFC --send as a sender who can receive replies, to a local command"
sed "s|$tmp/sendmail-fails|$tmp/sendmail-keeps|" "$tmp/gitconfig" >"$tmp/gitconfig-send"
rc=0
printf '\n' | GIT_CONFIG_GLOBAL=$tmp/gitconfig-send "$CI_DIR/mail.sh" --series "$series" \
	--out "$tmp/sent" --prefix RFC --send --no-sign \
	--from 'Test Sender <test.sender@zswap-series-ci.org>' \
	>"$tmp/sent.out" 2>"$tmp/sent.err" || rc=$?
echo "# mail.sh --prefix RFC --send -> exit $rc ($(($(date +%s) - t0)) s so far)"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/sent.err" | tail -n 15
check "RFC: the mails written are [PATCH RFC v2 ...] (b4 puts prefixes after PATCH)" \
	subjects sent '\[PATCH RFC v2( [0-9]+/[0-9]+)?\]'
check "RFC: checkpatch --strict clean on every patch mail" checkpatch_clean sent
check "send: mail.sh --send exits 0" test "$rc" -eq 0
want=$((npatch > 1 ? npatch + 1 : 1))
nsent=$(grep -c '^Message-I[Dd]:' "$tmp/sent.mbox" 2>/dev/null || true)
check "send: b4 sent $want mail(s) through sendemail.smtpserver" test "${nsent:-0}" -eq "$want"
nrfc=$(tr -d '\r' <"$tmp/sent.mbox" 2>/dev/null | grep -c '^Subject: \[PATCH RFC v2' || true)
check "send: the mails sent are [PATCH RFC v2 ...] too" test "${nrfc:-0}" -eq "$want"
sentid=$(tr -d '\r' <"$tmp/sent.mbox" | sed -n 's/^Message-I[Dd]: *<\(.*\)>/\1/p' | sed -n 1p)
check "send: b4.json records the sent v2 (Message-ID, commit) and moves to v3" \
	test "$(state sent.v2.message-id)/$(state sent.v2.commit)/$(state revision)" = \
	"$sentid/$(git -C "$repo" rev-parse HEAD)/3"
check "send: nothing went to the failing SMTP command" test ! -e "$tmp/smtp-attempted"

echo "1..$n"
echo "# $failed of $n failed; $(($(date +%s) - t0)) s"
[ "$failed" -eq 0 ]

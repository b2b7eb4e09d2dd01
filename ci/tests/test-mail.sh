#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test of ci/upstream/mail.sh on the mainline base, in a scratch git repository
# that holds a copy of patches/mainline/ (so b4-cover and commits never touch
# this repository), and of the mails of this repository's kselftests
# series, written and never sent. Prints TAP lines; exits non-zero when a
# check fails.
#
#   ci/tests/test-mail.sh [--keep]      (--keep: leave the scratch folder)
#
# The sender is a git identity of the test's own, "A U Thor
# <a.u.thor@zswap-series-ci.org>", in a git configuration file of its own
# (GIT_CONFIG_GLOBAL), as a new user would have it. In the copy, the last
# patch (of two or more) is given a real other author, as a backport of
# someone's commit would have; the others keep this repository's
# placeholder author.
#   a) v1: cover letter + one mail a patch (a single patch carries the
#      cover letter below its "---", as b4 does), checkpatch-clean, To/Cc
#      with the zswap maintainers, linux-mm@kvack.org and Matthew Wilcox
#      (patches/mainline/cc), the cover naming the upstream tag and the
#      Debian package; every mail From: the sender, the placeholder
#      nowhere in any mail; the placeholder's patches are the sender's
#      (no in-body From:, the sender's Signed-off-by in place of the
#      placeholder's), the other author's keeps its author as in-body
#      From: and its Signed-off-by, the sender's added last; the cover
#      letter's shortlog names the sender and the other author;
#   b) --mark-sent of v1 as it would be written as the placeholder (its
#      From:, series.json's sender, its Message-IDs' domain): refused,
#      naming it, nothing recorded; --mark-sent of v1 while the scratch
#      repository looks like a checkout of this project (it has
#      ci/upstream/mail.sh): refused, nothing recorded, as only --send
#      records a send of this project's series; --mark-sent of v1
#      without it (b4 prep --manual-reroll: b4-cover records v1's Message-ID
#      and the revision 2), an edit of one patch's commit message,
#      committed with b4-cover, then v2 with the placeholder as git's
#      identity and --from the sender: From: the sender, same change-id,
#      subjects "v2", a range-diff in the cover showing the edit against
#      v1 (the commit before the one that recorded it), a link to v1;
#   d) refusals: no user.email (nothing written, --send or not); as git
#      identity the placeholder or root@localhost, --from at a reserved
#      domain or a no-reply mailbox, sendemail.from at a reserved domain,
#      --send or not: each refused within 10 seconds, naming the identity,
#      before anything is written; --send of a copy of the series
#      (--base FOLDER) in which a patch names the placeholder in a
#      Tested-by: and a reserved domain in a Cc: tag: refused, naming the
#      mail and both identities; nothing sent (the SMTP server is a
#      command that records being run and fails);
#   c, e) --prefix RFC --send as the sender, through a sendmail command
#      that keeps the mails: [PATCH RFC v2 ...] (b4 writes its prefixes
#      after PATCH, unlike git format-patch --rfc), b4 sends them, and
#      b4's own tracking data (b4-cover) records v2 as sent;
#   f) this repository's kselftests series (--series selftests-zswap), as
#      the sender, not sent: a first posting, [PATCH 0/N] to [PATCH N/N],
#      no changelog, link or range-diff of an earlier revision, the
#      cover naming the mainline patch they go with (linked only once
#      it is recorded as sent), checkpatch clean, each message within
#      400 words and each subject within 75 columns, the change-id of
#      its b4-cover, which is at revision 1 with nothing sent;
#   h) the LTS series (v6.12, v6.1), as the sender, not sent: every mail
#      From: the sender, the placeholder nowhere, the upstream set's
#      mails with their upstream author as in-body From:, the sender
#      signing off last, checkpatch clean;
#   g) this repository's b4-cover files are the same bytes after every
#      run above as before, and none records a send by a test's sender.
#
# zswap-series-ci.org is a made-up domain that --send accepts; no mail
# goes to the network (sendemail.smtpserver is a local command).
# Takes a few minutes on 2 cores: eight runs of mail.sh that write mails,
# each making a sparse clone of the mainline tree of ci/1-tree/tree.sh; nothing
# is built.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

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

placeholder='Seed c881d9f4 maintainers <maintainers@users.noreply.a-seed-c881d9f4.example>'
noreply='maintainers@users.noreply.a-seed-c881d9f4.example'
sender='A U Thor <a.u.thor@zswap-series-ci.org>'
other='Real Author <real.author@zswap-series-ci.org>'
willy='willy@infradead.org'
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
# gitconfig NAME EMAIL SMTP: a git configuration of that identity (none
# where empty) with that SMTP server command.
gitconfig() {
	printf '[user]\n'
	[ -z "$1" ] || printf '\tname = %s\n' "$1"
	[ -z "$2" ] || printf '\temail = %s\n' "$2"
	printf '[sendemail]\n\tsmtpserver = %s\n' "$3"
}
gitconfig "${sender% <*}" a.u.thor@zswap-series-ci.org "$tmp/sendmail-fails" >"$tmp/gitconfig"
export GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1

# This repository's b4-cover files (b4's cover commits, its state) as they
# are before any run, for g): a --mark-sent of a test run once recorded in
# them a v1 of the kselftests that no list received.
own_b4=("$REPO_DIR"/patches/*/b4-cover)
sha256sum "${own_b4[@]}" >"$tmp/own-b4.sha256"

# The scratch repository with the series.
src=$(dirname "$(base_get "$(base_row mainline)" series)")
repo=$tmp/repo
mkdir -p "$repo/patches"
cp -r "$src" "$repo/patches/mainline"
rm -f "$repo/patches/mainline/b4-cover"
if [ ! -f "$repo/patches/mainline/cover-letter.txt" ]; then
	echo "# $src has no cover-letter.txt; the test writes one of its own"
	printf '%s\n\n%s\n' 'mm: zswap: test series for ci/tests/test-mail.sh' \
		'A cover letter that ci/tests/test-mail.sh wrote, for want of one.' \
		>"$repo/patches/mainline/cover-letter.txt"
fi
series=$repo/patches/mainline/series
patch_n() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" | sed -n "$1p"; }
npatch=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" | wc -l)
echo "# series: $npatch patch(es), copied from $src"
# set_author PATCH 'Name <addr>': the patch's From: and its Signed-off-by
# of the placeholder become that author's, as in a backport of someone
# else's commit.
set_author() {
	python3 -c 'import re, sys
path, author, placeholder = sys.argv[1:]
text = open(path, encoding="utf-8").read()
head, sep, rest = text.partition("\n\n")
head = re.sub(r"(?m)^From: .*(\n[ \t].*)*", lambda _: "From: " + author, head, count=1)
rest = rest.replace("Signed-off-by: " + placeholder, "Signed-off-by: " + author, 1)
open(path, "w", encoding="utf-8").write(head + sep + rest)' "$1" "$2" "$placeholder"
}
nown=$npatch
if [ "$npatch" -gt 1 ]; then
	set_author "$repo/patches/mainline/$(patch_n "$npatch")" "$other"
	nown=$((npatch - 1))
	echo "# patch $npatch of $npatch is now by $other"
else
	echo "# one patch: no patch of another author in this test"
fi
sgit() {
	git -C "$repo" -c user.name=test-mail -c user.email=test-mail@localhost "$@"
}
sgit init -q
sgit add -A
sgit commit -q -m 'the series as v1'

envs=$("$CI_DIR/1-tree/tree.sh" mainline)
set_env ZS_ <<<"$envs"
echo "# base: $ZS_UPSTREAM, $ZS_BASE_DESC"

# mail OUT ARGS...: ci/upstream/mail.sh on the scratch series into $tmp/OUT;
# what names the series otherwise (e.g. what=(--series FILE), for one run).
what=()
mail() {
	local o=$1
	shift
	local rc=0 t1
	[ ${#what[@]} -gt 0 ] || what=(--series "$series")
	t1=$(date +%s%N)
	"$CI_DIR/upstream/mail.sh" "${what[@]}" --out "$tmp/$o" "$@" \
		>"$tmp/$o.out" 2>"$tmp/$o.err" </dev/null || rc=$?
	echo "$(($(date +%s%N) - t1))" >"$tmp/$o.ns"
	echo "$rc" >"$tmp/$o.rc"
	echo "# mail.sh ${what[*]#"$tmp/"} $* -> exit $rc ($(($(date +%s) - t0)) s so far)"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/$o.err" | tail -n 15
	what=()
}
rc_is() { [ "$(cat "$tmp/$1.rc")" = "$2" ]; }
# refused NAME PATTERN: the run NAME failed, saying PATTERN.
refused() { [ "$(cat "$tmp/$1.rc")" != 0 ] && grep -q -- "$2" "$tmp/$1.err"; }
no_mails() { [ -z "$(ls "$tmp/$1"/*.eml 2>/dev/null)" ]; }
# at_once NAME: the run NAME ended within 10 seconds: a refusal before
# any tree, clone or b4 (half a second on an idle 2-core machine, over 2 s
# on one busy with builds and guests; the clone and b4 take minutes).
at_once() {
	local ms=$(($(cat "$tmp/$1.ns") / 1000000))
	[ "$ms" -lt 10000 ] || { echo "# $1 took $ms ms"; return 1; }
}
# refused_at_once NAME PATTERN: refused, saying PATTERN, within 10 s,
# nothing written.
refused_at_once() { refused "$1" "$2" && at_once "$1" && no_mails "$1"; }
nothing_sent() {
	[ ! -e "$tmp/smtp-attempted" ] && [ -z "$(ls "$tmp"/send-*/*.eml 2>/dev/null)" ]
}
rangediff_shows() { grep -q '^Range-diff against v1:' "$1" && grep -qF "+    $2" "$1"; }
# headers MAIL: the mail's header, one line a field.
headers() {
	awk '/^$/ { exit } /^[ \t]/ { h = h $0; next } { if (h != "") print h; h = $0 }
		END { if (h != "") print h }' "$1"
}
# body MAIL: the mail's body.
body() { awk 'b { print } /^$/ { b = 1 }' "$1"; }
# cover DIR: the cover letter mail (the only mail of a single patch).
cover() {
	if [ "$npatch" -eq 1 ]; then
		ls "$1"/*.eml
	else
		grep -lE "^Subject: \[[^]]*PATCH[^]]* 0+/$npatch\]" "$1"/*.eml
	fi
}
# patch_mails DIR: the mails of the patches, in order.
patch_mails() {
	local m c
	c=$(cover "$1")
	for m in "$1"/*.eml; do
		[ "$npatch" -gt 1 ] && [ "$m" = "$c" ] && continue
		echo "$m"
	done
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
# recipients DIR ADDR...: every mail of DIR has each ADDR in To or Cc.
recipients() {
	local d=$1 m h addr
	shift
	for m in "$tmp/$d"/*.eml; do
		h=$(headers "$m" | grep -E '^(To|Cc):')
		for addr in "$@"; do
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
# no_placeholder FILE...: the placeholder author, by its name or its
# address, is nowhere in them, headers and bodies.
no_placeholder() {
	local f
	for f in "$@"; do
		! grep -qi 'c881d9f4' "$f" || { echo "# $f: $(grep -i -m1 'c881d9f4' "$f")"; return 1; }
	done
}
from_sender() {
	local m
	for m in "$tmp/$1"/*.eml; do
		headers "$m" | grep -xF "From: $sender" >/dev/null || { echo "# $m: not From: $sender"; return 1; }
	done
}
# signoffs MAIL: the Signed-off-by lines of a patch mail, in order.
signoffs() { body "$1" | sed -n '/^---$/q; s/^Signed-off-by: //p'; }
# in_body_from MAIL: the in-body From: b4 writes for another author.
in_body_from() { body "$1" | sed -n '1s/^From: //p'; }
# own_work DIR: the placeholder's patches are the sender's: no in-body
# From:, the sender's Signed-off-by alone. The other author's patch
# keeps its author and sign-off, with the sender's after it.
own_work() {
	local m n=0 nother=0 want
	while IFS= read -r m; do
		n=$((n + 1))
		if [ "$n" -le "$nown" ]; then
			[ -z "$(in_body_from "$m")" ] ||
				{ echo "# $m: in-body From: $(in_body_from "$m")"; return 1; }
			want=$sender
		else
			[ "$(in_body_from "$m")" = "$other" ] ||
				{ echo "# $m: in-body From: '$(in_body_from "$m")', not $other"; return 1; }
			want=$other$'\n'$sender
			nother=$((nother + 1))
		fi
		[ "$(signoffs "$m")" = "$want" ] ||
			{ echo "# $m: Signed-off-by: $(signoffs "$m" | paste -sd'|')"; return 1; }
	done < <(patch_mails "$tmp/$1")
	[ "$n" -eq "$npatch" ] && [ "$nother" -eq $((npatch - nown)) ]
}
# shortlog_names COVER: b4's shortlog in the cover letter counts the
# sender's patches and the other author's.
shortlog_names() {
	[ "$npatch" -gt 1 ] || return 0
	grep -qxF "${sender% <*} ($nown):" "$1" ||
		{ echo "# no '${sender% <*} ($nown):' in $1"; return 1; }
	[ "$nown" -eq "$npatch" ] || grep -qxF "${other% <*} (1):" "$1" ||
		{ echo "# no '${other% <*} (1):' in $1"; return 1; }
}
# names_base MAIL: "Based on TAG; tested on PACKAGE." (folded) in MAIL.
names_base() {
	tr '\n' ' ' <"$1" | grep -F "Based on $ZS_UPSTREAM; tested on $ZS_BASE_DESC." >/dev/null
}
msgid() { headers "$1" | sed -n 's/^Message-I[Dd]: *<\(.*\)>/\1/p'; }
changeid() { sed -n 's/^change-id: //p' "$1"; }
# state NAME [B4COVER]: a field of b4's tracking data in the b4-cover of
# the scratch series (revision, change_id, last: the revision sent last,
# last_msgid), as ci/upstream/b4state.py tracking reads it.
state() {
	python3 "$CI_DIR/upstream/b4state.py" tracking "${2:-$repo/patches/mainline/b4-cover}" \
		2>/dev/null | sed -n "s/^b4_$1=//p"
}

echo "# a) v1, as $sender (git config)"
mail v1
c1=$(cover "$tmp/v1" | sed -n 1p)
check "v1: mail.sh exits 0" rc_is v1 0
check "v1: cover letter + one mail a patch ($npatch)" nmails v1
check "v1: checkpatch --strict clean on every patch mail" checkpatch_clean v1
check "v1: subjects are [PATCH ...] without a revision" subjects v1 '\[PATCH( [0-9]+/[0-9]+)?\]'
check "v1: To/Cc have the zswap maintainers, linux-mm@kvack.org and $willy (patches/mainline/cc)" \
	recipients v1 hannes@cmpxchg.org yosry@kernel.org nphamcs@gmail.com \
	chengming.zhou@linux.dev linux-mm@kvack.org "$willy"
check "v1: every mail is From: the sender" from_sender v1
check "v1: the placeholder author is in no mail" no_placeholder "$tmp"/v1/*.eml
check "v1: the placeholder's patches are the sender's; the other author's keeps its author, the sender signs off last" \
	own_work v1
check "v1: the cover letter's shortlog names the sender ($nown) and the other author" \
	shortlog_names "$c1"
check "v1: the cover letter names $ZS_UPSTREAM and the Debian package" names_base "$c1"
check "v1: the cover letter has a change-id" test -n "$(changeid "$c1")"

echo "# b) --mark-sent of mails written as an identity no reply reaches: refused"
# v1 as it would be, written as the placeholder: its From: headers, the
# sender in series.json, the domain of its Message-IDs.
cp -r "$tmp/v1" "$tmp/v1-placeholder"
python3 -c 'import glob, json, re, sys
d, ident, domain = sys.argv[1:]
man = json.load(open(d + "/series.json"))
man["from"] = ident
json.dump(man, open(d + "/series.json", "w"))
for p in glob.glob(d + "/*.eml"):
    head, sep, body = open(p, encoding="utf-8").read().partition("\n\n")
    head = re.sub(r"(?m)^From: .*(\n[ \t].*)*", lambda _: "From: " + ident, head, count=1)
    head = re.sub(r"(?m)^(Message-I[Dd]: <[^@>]*@)[^>]*>", lambda m: m.group(1) + domain + ">", head)
    open(p, "w", encoding="utf-8").write(head + sep + body)' \
	"$tmp/v1-placeholder" "$placeholder" "${noreply#*@}"
rc=0
"$CI_DIR/upstream/mail.sh" --mark-sent "$tmp/v1-placeholder" >"$tmp/mark-placeholder.out" 2>&1 || rc=$?
sed 's/^/#   /' "$tmp/mark-placeholder.out" | head -n 3
check "mark-sent of mails written as the placeholder: refused" test "$rc" -ne 0
check "... naming the identity" grep -qF "they were written as $placeholder" "$tmp/mark-placeholder.out"
check "... nothing recorded (no b4-cover)" test ! -e "$repo/patches/mainline/b4-cover"

echo "# b) --mark-sent of a series of a checkout of this project: refused"
# The scratch repository with ci/upstream/mail.sh looks like one, as this
# repository does: only --send may record a send there.
mkdir -p "$repo/ci/upstream"
: >"$repo/ci/upstream/mail.sh"
rc=0
"$CI_DIR/upstream/mail.sh" --mark-sent "$tmp/v1" >"$tmp/mark-project.out" 2>&1 || rc=$?
rm -r "$repo/ci"
sed 's/^/#   /' "$tmp/mark-project.out" | head -n 3
check "mark-sent in a checkout of this project: refused" test "$rc" -ne 0
check "... saying only --send records a send there" \
	grep -qF "a checkout of this project, whose series are recorded as sent only by ci/upstream/mail.sh --send" \
	"$tmp/mark-project.out"
check "... nothing recorded (no b4-cover)" test ! -e "$repo/patches/mainline/b4-cover"

echo "# b) mark v1 sent, edit a commit message, v2"
rc=0
"$CI_DIR/upstream/mail.sh" --mark-sent "$tmp/v1" >"$tmp/mark.out" 2>&1 || rc=$?
sed 's/^/#   /' "$tmp/mark.out"
check "mark-sent: exits 0" test "$rc" -eq 0
check "mark-sent: b4-cover records v1's Message-ID and the revision 2" \
	test "$(state last)/$(state last_msgid)/$(state revision)" = "1/$(msgid "$c1")/2"
check "mark-sent: b4-cover keeps v1's change-id" \
	test "$(state change_id)" = "$(changeid "$c1")"
edit='This paragraph was added for v2 by ci/tests/test-mail.sh.'
first=$repo/patches/mainline/$(patch_n 1)
awk -v text="$edit" '!done && /^$/ { print; print text; print ""; done = 1; next } { print }' \
	"$first" >"$tmp/edited" && cat "$tmp/edited" >"$first"
sgit add -A
sgit commit -q -m 'v2: reword, and b4-cover of v1'
v2commit=$(git -C "$repo" rev-parse HEAD)
# v2 as a fresh container's user would write it: git's identity is the
# placeholder, --from gives the sender's own.
gitconfig "${placeholder% <*}" "$noreply" "$tmp/sendmail-fails" >"$tmp/gitconfig-placeholder"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-placeholder mail v2 --from "$sender"
c2=$(cover "$tmp/v2" | sed -n 1p)
check "v2: mail.sh exits 0 (checkpatch clean)" rc_is v2 0
check "v2 (git identity the placeholder, --from the sender): every mail is From: the sender" \
	from_sender v2
check "v2: cover letter + one mail a patch" nmails v2
check "v2: subjects say v2" subjects v2 '\[PATCH v2( [0-9]+/[0-9]+)?\]'
check "v2: same change-id as v1 ($(changeid "$c1"))" \
	test "$(changeid "$c2")" = "$(changeid "$c1")"
check "v2: the cover letter has a 'Changes in v2:' section linking to v1" \
	grep -qF "Link to v1: https://lore.kernel.org/r/$(msgid "$c1")" "$c2"
check "v2: the cover letter has a range-diff against v1 showing the edit" \
	rangediff_shows "$c2" "$edit"
check "v2: the placeholder author is in no mail" no_placeholder "$tmp"/v2/*.eml

echo "# d) refusals: no identity; identities that cannot receive replies, sent or not"
gitconfig "${sender% <*}" '' "$tmp/sendmail-fails" >"$tmp/gitconfig-noemail"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-noemail mail noident
check "no user.email: refused, saying so" refused noident "no sender: git config user.email is not set"
check "no user.email: no mail written" no_mails noident
GIT_CONFIG_GLOBAL=$tmp/gitconfig-noemail mail send-noemail --send
check "--send without user.email: refused" refused send-noemail "user.email is not set"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-placeholder mail placeholder
check "git identity the placeholder: refused at once, naming it, no mail written" \
	refused_at_once placeholder "refusing to write mails as '$placeholder' (git config user.name and user.email): it is this repository's placeholder author"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-placeholder mail send-noreply --send
check "--send as the placeholder: refused at once, saying why" \
	refused_at_once send-noreply "refusing to write mails as '$placeholder'.*no-reply domain.*nothing was sent"
gitconfig root root@localhost "$tmp/sendmail-fails" >"$tmp/gitconfig-localhost"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-localhost mail localhost
check "git identity root@localhost: refused at once, reserved domain" \
	refused_at_once localhost "refusing to write mails as 'root <root@localhost>' (git config user.name and user.email): localhost is a reserved domain"
mail example --from 'Test Sender <test.sender@example.com>'
check "--from test.sender@example.com: refused at once, reserved domain" \
	refused_at_once example "refusing to write mails as 'Test Sender <test.sender@example.com>' (--from): example.com is a reserved domain"
mail send-example --send --from 'Test Sender <test.sender@example.com>'
check "--send --from test.sender@example.com: refused, reserved domain" \
	refused_at_once send-example "reserved domain"
mail send-noreply-local --send --from 'Bot <no-reply@zswap-series-ci.org>'
check "--send as no-reply@zswap-series-ci.org: refused, no-reply mailbox" \
	refused_at_once send-noreply-local "no-reply mailbox"
{ cat "$tmp/gitconfig"; printf '\tfrom = Old Me <old.me@box.test>\n'; } >"$tmp/gitconfig-sendfrom"
GIT_CONFIG_GLOBAL=$tmp/gitconfig-sendfrom mail sendfrom
check "git config sendemail.from at a reserved domain: refused at once, naming it" \
	refused_at_once sendfrom "refusing to write mails From: 'Old Me <old.me@box.test>' (git config sendemail.from): box.test is a reserved domain"
# A copy of the series in which the first patch names the placeholder in
# a Tested-by: and a reserved domain in a Cc: (tags checkpatch takes).
cp -r "$repo/patches/mainline" "$repo/patches/planted"
rm -f "$repo/patches/planted/b4-cover"
planted_cc='Some One <some.one@example.net>'
python3 -c 'import sys
path, *tags = sys.argv[1:]
text = open(path, encoding="utf-8").read()
at = text.index("\nSigned-off-by: ") + 1
open(path, "w", encoding="utf-8").write(text[:at] + "".join(t + "\n" for t in tags) + text[at:])' \
	"$repo/patches/planted/$(patch_n 1)" "Tested-by: $placeholder" "Cc: $planted_cc"
sgit add patches/planted
sgit commit -q -m 'a copy of the series with identities that cannot receive replies'
what=(--series "$repo/patches/planted/series")
mail planted --send
planted_mail=$(grep -lF "Tested-by: $placeholder" "$tmp"/planted/*.eml 2>/dev/null | sed -n 1p)
check "--send of a series (--base FOLDER) naming unreachable identities: refused" \
	refused planted "refusing: the mails above name identities that cannot receive replies"
check "... naming the mail and the placeholder's Tested-by:" \
	grep -qF "$(basename "${planted_mail:-none}"): Tested-by: $placeholder" "$tmp/planted.err"
check "... and the reserved domain's Cc:" grep -qF "Cc: $planted_cc" "$tmp/planted.err"
check "--send refused: no SMTP attempted, no mail written by a refused send" nothing_sent
check "--send refused: b4-cover still at v2" test "$(state revision)" = 2
check "--send refused: the planted series has no b4-cover" test ! -e "$repo/patches/planted/b4-cover"

echo "# c) and e) --prefix RFC --send as the sender, to a local command"
gitconfig "${sender% <*}" a.u.thor@zswap-series-ci.org "$tmp/sendmail-keeps" >"$tmp/gitconfig-send"
rc=0
printf '\n' | GIT_CONFIG_GLOBAL=$tmp/gitconfig-send "$CI_DIR/upstream/mail.sh" --series "$series" \
	--out "$tmp/sent" --prefix RFC --send --no-sign \
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
check "send: the placeholder author is in no mail sent" no_placeholder "$tmp/sent.mbox"
sentid=$(tr -d '\r' <"$tmp/sent.mbox" | sed -n 's/^Message-I[Dd]: *<\(.*\)>/\1/p' | sed -n 1p)
# equals WHAT GOT WANT: GOT is WANT, or say both.
equals() { [ "$2" = "$3" ] || { echo "# $1: $2, want $3"; return 1; }; }
# What was sent is committed (v2's commit, the planted copy after it):
# the next revision finds it before the commit of b4-cover.
check "send: b4-cover records the sent v2 (Message-ID) and moves to v3" \
	equals "b4-cover's last sent/Message-ID/revision" \
	"$(state last)/$(state last_msgid)/$(state revision)" "2/$sentid/3"
check "send: what was sent is v2's commit, b4-cover alone changed since" \
	equals "changes to patches/mainline since $v2commit" \
	"$(git -C "$repo" status --porcelain -- patches/mainline | paste -sd' ')/$(git -C "$repo" diff --name-only "$v2commit" HEAD -- patches/mainline)" \
	" M patches/mainline/b4-cover/"
check "send: nothing went to the failing SMTP command" test ! -e "$tmp/smtp-attempted"

echo "# f) this repository's kselftests series, as $sender: a first posting, not sent"
own=$REPO_DIR/patches/selftests-zswap
what=(--series selftests-zswap)
mail own
# own_subjects: the subject of each of the kselftests' mails.
own_subjects() {
	local m
	for m in "$tmp"/own/*.eml; do
		headers "$m" | sed -n 's/^Subject: //p'
	done
}
# own_n: how many patches the kselftests' series has.
own_n=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_DIR/patches/selftests-zswap/series" | wc -l)
# own_cover: the cover letter of the kselftests' mails.
own_cover() { grep -lE "^Subject: \[PATCH 0/$own_n\]" "$tmp"/own/*.eml; }
# first_posting: [PATCH 0/N] to [PATCH N/N], nothing else.
first_posting() {
	local got want="" i
	got=$(own_subjects | sed -n 's/^\(\[PATCH [0-9]*\/[0-9]*\]\) .*/\1/p' | sort | paste -sd' ')
	for i in $(seq 0 "$own_n"); do want="$want${want:+ }[PATCH $i/$own_n]"; done
	equals "subjects" "$got" "$want"
}
# no_earlier_revision: no changelog, link to or range-diff against an
# earlier revision in any mail.
no_earlier_revision() {
	! grep -qiE '^changes in v[0-9]|link to v[0-9]|range-diff against|\[PATCH v[0-9]' \
		"$tmp"/own/*.eml || { grep -iE -m1 '^changes in|link to v|range-diff|\[PATCH v' \
		"$tmp"/own/*.eml; return 1; }
}
# names_mainline COVER: it names the mainline patch (its subject) and
# links to it only where patches/mainline/b4-cover records it as sent.
names_mainline() {
	local subj text sent
	subj=$(sed -n '/^Subject: /{s/^Subject: \[[^]]*\] //;N;s/\n / /;s/\n.*//;p;q}' \
		"$REPO_DIR/patches/mainline/$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
		"$REPO_DIR/patches/mainline/series" | sed -n 1p)")
	text=$(body "$1" | tr -s '\n ' '  ')
	grep -qF "They go with \"$subj\"" <<<"$text" || { echo "# no 'They go with \"$subj\"'"; return 1; }
	sent=$(state last_msgid "$REPO_DIR/patches/mainline/b4-cover")
	local link
	for link in $(grep -o 'https://lore.kernel.org/r/[^ >]*' "$1" || true); do
		[[ " $sent " == *" ${link#https://lore.kernel.org/r/} "* ]] ||
			{ echo "# $link: not a posting b4-cover records"; return 1; }
	done
}
own_checkpatch_clean() {
	local l nlog=0
	for l in "$tmp"/own/checkpatch-*.log; do
		grep -q 'total: 0 errors, 0 warnings, 0 checks' "$l" ||
			{ echo "# not clean: $l"; return 1; }
		nlog=$((nlog + 1))
	done
	[ "$nlog" -eq "$own_n" ]
}
# within_limits: each message (the body above its first "---") within
# 400 words, each subject within 75 columns.
within_limits() {
	local m words subj bad=0
	for m in "$tmp"/own/*.eml; do
		words=$(body "$m" | sed '/^---$/q' | wc -w)
		subj=$(headers "$m" | sed -n 's/^Subject: //p')
		echo "# $(basename "$m"): $words words, subject ${#subj} columns"
		[ "$words" -le 400 ] && [ "${#subj}" -le 75 ] || bad=1
	done
	[ "$bad" -eq 0 ]
}
own_state() {
	echo "$(state revision "$own/b4-cover") $(state last "$own/b4-cover") $(state change_id "$own/b4-cover")"
}
check "kselftests: mail.sh --series selftests-zswap exits 0" rc_is own 0
check "kselftests: [PATCH 0/N] to [PATCH N/N], a first posting" first_posting
check "kselftests: no changelog, link or range-diff of an earlier revision" no_earlier_revision
check "kselftests: the cover letter names the mainline patch, linked only if recorded as sent" \
	names_mainline "$(own_cover)"
check "kselftests: checkpatch --strict clean on every patch mail" own_checkpatch_clean
check "kselftests: each message within 400 words, each subject within 75 columns" within_limits
check "kselftests: every mail is From: the sender" from_sender own
check "kselftests: the placeholder author is in no mail" no_placeholder "$tmp"/own/*.eml
check "kselftests: b4-cover at revision 1, nothing sent, its change-id in the cover" \
	equals "revision, revision sent last, change-id" "$(own_state)" "1  $(changeid "$(own_cover)")"

echo "# h) the LTS backports (their series files' sets), as the sender, not sent"
# backports_kept DIR SERIES: each patch mail of the upstream set has its
# upstream author as in-body From: (the patch file's From:) and the
# sender's Signed-off-by last; every other patch mail has no in-body
# From:, the sender's patch.
backports_kept() {
	local m i=0 want nup patches=() patch_dir npatch
	nup=$(series_cut "$2" upstream | wc -l)
	load_series "$2"
	# patch_mails tells the cover letter by this series' count.
	npatch=${#patches[@]}
	while IFS= read -r m; do
		i=$((i + 1))
		want=""
		[ "$i" -gt "$nup" ] ||
			want=$(git mailinfo /dev/null /dev/null <"${patches[$((i - 1))]}" |
				sed -n 's/^Author: //p; s/^Email: \(.*\)/<\1>/p' | paste -sd' ')
		[ "$(in_body_from "$m")" = "$want" ] ||
			{ echo "# $m: in-body From: '$(in_body_from "$m")', not '$want'"; return 1; }
		[ "$(signoffs "$m" | tail -n1)" = "$sender" ] ||
			{ echo "# $m: the last Signed-off-by is not the sender's"; return 1; }
	done < <(patch_mails "$tmp/$1")
	[ "$nup" -gt 0 ] && [ "$i" -eq ${#patches[@]} ]
}
for lts in $(bases_with compile); do
	what=(--base "$lts" --series "$(base_get "$(base_row "$lts")" series)")
	mail "lts-$lts" --from "$sender"
	check "$lts: mail.sh exits 0 (checkpatch --strict clean on every patch mail)" rc_is "lts-$lts" 0
	check "$lts: every mail is From: the sender" from_sender "lts-$lts"
	check "$lts: the placeholder author is in no mail" no_placeholder "$tmp/lts-$lts"/*.eml
	check "$lts: the upstream set keeps its upstream authors, the rest is the sender's, who signs off last" \
		backports_kept "lts-$lts" "$(base_get "$(base_row "$lts")" series)"
done

echo "# g) this repository's b4-cover files, after every run above"
# no_test_send: no send recorded as a sender of a test: this one's
# domain, or the "Test Sender" of the v1 that was once recorded.
no_test_send() {
	! grep -E 'zswap-series-ci\.org|Test Sender' "${own_b4[@]}"
}
check "this repository's b4-cover files are the same bytes as before the runs" \
	sha256sum --quiet -c "$tmp/own-b4.sha256"
check "... and record no send by a test's sender" no_test_send

echo "1..$n"
echo "# $failed of $n failed; $(($(date +%s) - t0)) s"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Turn a series into the mails that go upstream: apply it with git am to a
# scratch clone of the base, make it the sender's (see Sender), enroll it
# with b4 prep (cover-letter.txt beside the patches as the cover letter,
# To/Cc from get_maintainer.pl and the series' cc file), write the mails
# with b4 send -o, and run ci/2-apply/checkpatch.sh (checkpatch.pl --strict,
# with commit references checked) on every patch mail (not the cover letter).
# Nothing is sent unless --send is given.
#
#   ci/upstream/mail.sh [--base BASE|PATH] [--series FILE|NAME]
#                       [--out DIR] [--prefix WORD]... [--from 'Name <addr>']
#                       [--send [--no-sign]]
#   ci/upstream/mail.sh --mark-sent DIR
#
# --base      the base (ci/1-tree/tree.sh, ci/bases; default mainline),
# --series    the series (default: the one of the base, ci/bases): a
#             series file, or NAME for patches/NAME/series (e.g.
#             selftests-zswap, the kselftests, on mainline).
# --out       where the mails go (default results/mail-<date>-<tree>/; old
#             *.eml there are removed first), with b4.log, a
#             checkpatch-<mail>.log for each patch mail, b4-cover (b4's
#             cover commit as the mails were written) and series.json
#             (the series they belong to): for --mark-sent.
# --prefix    a subject prefix for this run, e.g. --prefix RFC gives
#             [PATCH RFC v2 0/3] (b4's prefixes, which b4 0.12 puts after
#             PATCH); repeat for more.
# --from      the sender, instead of git config user.name/user.email.
# --send      send the mails with b4 send, with your own sendemail.* and
#             b4.* git configuration (SMTP, or b4's web endpoint), after
#             b4 shows them and you confirm; --no-sign: without a patatt
#             signature. Refused (before anything is sent) when an
#             identity in the mails written cannot receive replies (see
#             Sender for what cannot; From, To, Cc, the in-body From,
#             Signed-off-by and every other *-by, Cc or To tag; the
#             placeholder author anywhere), naming the mail and the
#             identity. Also refused when the series has changes not
#             committed (the next revision is compared with the commit
#             sent; see Revisions).
# --mark-sent record the mails in DIR (written by an earlier run) as sent,
#             once you sent them yourself (git send-email, a mail client);
#             it needs no other option, DIR/series.json names the series.
#             Refused, naming the identity, for mails written as one
#             that cannot receive replies (series.json's sender, a
#             mail's From:, the domain of the cover letter's Message-ID).
#             With --send that is done for you, with the Message-ID b4
#             sent (the mails left in DIR are the ones checked, with
#             Message-IDs of their own). Refused for a series of this
#             project (its b4-cover in a repository with
#             ci/upstream/mail.sh): --send alone records those, as it
#             sends them, so that no run that sends nothing (a test, a
#             made-up sender) records a send; --mark-sent is for series
#             of other repositories.
#
# Sender: the mails are From the sender, who is git config user.name and
# user.email as this repository sees them (read before anything else), or
# --from; without one, nothing is written. Nor is anything written, sent
# or not, as an identity that cannot receive replies: an address at a
# reserved or local domain (example, example.com/.net/.org, *.example,
# *.invalid, *.test, localhost, *.localhost, *.local, *.localdomain, a
# name without a dot), a noreply/no-reply mailbox or a users.noreply.*
# domain, or the placeholder author below; the same for git config
# sendemail.from, which b4 would put in From:. Such an identity (a fresh
# container's root@localhost) is refused at once, naming it: give --from
# then. This repository's own patches
# carry a placeholder author (ci/upstream/b4state.py PLACEHOLDER: no one, at a
# reserved domain); such a patch becomes the sender's own work: the
# sender is its author, its Signed-off-by (and Co-developed-by) of the
# placeholder become the sender's, and b4's shortlog in the cover letter
# names the sender. A patch of a real other author (a backport of an
# upstream commit) keeps its author, as an in-body From:, and its chain
# of sign-offs; the sender's Signed-off-by ends every chain (added unless
# it is last already, as git commit -s does: the DCO).
# To/Cc: the base tree's scripts/get_maintainer.pl; for v6.12 and v6.1 the
# mainline tree's (ci/1-tree/tree.sh mainline): the current MAINTAINERS, as LTS
# trees name maintainers who may have left. Then the series folder's cc
# file, if any (patches/<base>/cc: one "Name <address>" a line, with a
# comment saying why; b4.send-series-cc), for people get_maintainer.pl
# does not name: patches/mainline/cc has Matthew Wilcox, for the XArray
# usage. The cover letter says which upstream tag the series is based on
# and which Debian package it was tested on; it has no base-commit: line,
# as the scratch commit of the Debian tarball is no upstream commit.
#
# Revisions: b4 keeps them, in the cover commit of its prep branch (an
# empty commit on the base: the cover letter, then b4's tracking data,
# with the change-id, the revision of the next mails and the Message-IDs
# of what was sent). Only main of this repository is kept, so that
# commit's message is kept as b4 wrote it in the series folder, as
# b4-cover (patches/<base>/b4-cover; commit it). Each run makes it the
# cover commit of the prep branch in the scratch clone, the patches on
# top, and b4 does the rest; without a b4-cover, b4 prep --enroll makes
# v1 with a new change-id each run. After b4 sends vN (--send), b4 has
# tagged it, recorded its Message-ID and moved to v(N+1): its cover
# commit is copied back to b4-cover. --mark-sent does the same with b4
# prep --manual-reroll. Once vN is recorded, runs make v(N+1) with the
# same change-id: vN is rebuilt from the commit before the one that
# recorded it in b4-cover (or HEAD, while that is not committed), tagged
# as b4 tags a sent revision (sent/<branch>-vN), and the cover letter
# gets a "Changes in v(N+1):" section with a link to vN and the output of
# b4 prep --compare-to vN (git range-diff; left out, with a warning, when
# vN no longer applies to the base). Write your own changelog in
# cover-letter.txt under a "Changes in v(N+1):" line if you like; the link
# and range-diff then follow it. A series of one patch has no cover
# letter mail: b4 puts the cover letter below the patch's "---". So, to
# reroll: edit and commit the series, run ci/upstream/mail.sh again.
#
# The base comes from ci/1-tree/tree.sh's cache, which this script only reads;
# the run works in a sparse clone of it that shares its objects (git
# clone --shared, under CACHE_DIR/tmp, removed at exit with everything
# else the run made but the mails and logs; for v6.12 and v6.1 one of the
# mainline tree too). b4 and the git it runs see no user or system git configuration,
# only settings this script puts in their environment (with --send also
# your sendemail.*, b4.*, patatt.*, gpg.*, credential.* settings and your
# XDG folders); nothing is written to your configuration. Exit 0 only when
# checkpatch reports no error, warning or check on any patch mail (and,
# with --send, b4 sent them).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

state_py=$CI_DIR/upstream/b4state.py
base=${ZS_BASE:-$ZS_DEFAULT_BASE} series="" out="" from="" send="" nosign="" marksent=""
prefix=()
parse_opts "--base= --series= --out= --prefix+ --from= --mark-sent=marksent --send
	--no-sign!nosign" "$@"
# A --prefix value may hold more than one word.
prefixes=()
for w in "${prefix[@]}"; do
	read -r -a words <<<"$w"
	prefixes+=("${words[@]}")
done
# Refused here, before anything is installed, prepared or written.
[ -z "$nosign" ] || [ -n "$send" ] || die "--no-sign goes with --send"
for w in "${prefixes[@]}"; do
	[[ $w =~ ^[A-Za-z0-9._+-]+$ ]] ||
		die "--prefix '$w': a word of letters, digits and ._+- (e.g. RFC)"
done
[ -z "$out" ] || check_outdir --out "$out"

# --series NAME: patches/NAME/series. --base names a base only.
if [ -n "$series" ] && [ ! -e "$series" ] && [[ $series != */* ]] &&
	[ -f "$REPO_DIR/patches/$series/series" ]; then
	series=$REPO_DIR/patches/$series/series
fi
check_base "${ZS_BASE:+ZS_BASE or }--base" "$base"
row=$(base_row "$base")

# mark_sent DIR: record the mails of DIR, sent by hand, in the b4-cover
# of their series as b4 records a send: b4 prep --manual-reroll MSGID, in a
# scratch repository holding that cover commit, with the thread read
# from DIR instead of lore.
mark_sent() {
	local d=$1 st top why scratch b4py
	[ -f "$d/series.json" ] || die "--mark-sent $d: no series.json: not a folder of mails written by ci/upstream/mail.sh"
	st=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["state"])' "$d/series.json")
	top=$(git -C "$(dirname "$st")" rev-parse --show-toplevel 2>/dev/null || true)
	# Only --send records a send of this project's series: a mark-sent
	# of a test's mails once recorded a v1 that no list received.
	[ -z "$top" ] || [ ! -e "$top/ci/upstream/mail.sh" ] ||
		die "--mark-sent $d: refusing: $st is in $top, a checkout of this project, whose series are recorded as sent only by ci/upstream/mail.sh --send, which sends them. Nothing was recorded."
	why=$(python3 "$state_py" unrecordable "$d") ||
		die "--mark-sent $d: $why
Nothing was recorded. Write them again as yourself (ci/upstream/mail.sh --from 'Your Name <you@your.domain>', or git config user.name and user.email of your own), send those, and mark them sent."
	[ -f "$d/b4-cover" ] || die "--mark-sent $d: no b4-cover: not a folder of mails written by ci/upstream/mail.sh"
	"$CI_DIR/deps.sh" b4
	scratch=$(mktemp -d)
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$scratch/xdg
	export GIT_AUTHOR_NAME=mail.sh GIT_AUTHOR_EMAIL=mail.sh@localhost
	export GIT_COMMITTER_NAME=mail.sh GIT_COMMITTER_EMAIL=mail.sh@localhost
	git -C "$scratch" init -q -b "zswap-$(basename "$(dirname "$st")")"
	git -C "$scratch" commit -q --allow-empty -m base
	git -C "$scratch" commit -q --allow-empty --cleanup=verbatim -F "$d/b4-cover"
	# A commit for the series, which b4 tags as the revision sent.
	echo "$d" >"$scratch/sent"
	git -C "$scratch" add sent
	git -C "$scratch" commit -q -m "the series of $d"
	b4py=$(sed -n '1s/^#! *//p' "$(command -v b4)")
	cover=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cover"])' "$d/series.json")
	(cd "$scratch" && $b4py - "$d/$cover" "$d"/*.eml <<-'PY') >>"$d/b4.log" 2>&1 ||
	import email, sys
	import b4, b4.command
	msgs = [email.message_from_binary_file(open(p, 'rb')) for p in sys.argv[1:]]
	b4.get_pi_thread_by_msgid = lambda *args, **kwargs: msgs
	sys.argv = ['b4', 'prep', '--manual-reroll', b4.LoreMessage.get_clean_msgid(msgs[0])]
	b4.command.cmd()
	PY
		die "b4 prep --manual-reroll failed (log: $d/b4.log)"
	git -C "$scratch" cat-file commit "$(git -C "$scratch" log -1 --format=%H -F \
		--grep='--- b4-submit-tracking ---')" | sed '1,/^$/d' >"$st"
	rm -rf "$scratch"
	set_env b4_ <<<"$(python3 "$state_py" tracking "$st")"
	echo "b4 recorded v$b4_last as sent ($b4_last_msgid) in $st; the next mails are v$b4_revision. Commit it."
}
if [ -n "$marksent" ]; then
	[ -d "$marksent" ] || die "--mark-sent '$marksent': no such folder"
	mark_sent "$(realpath "$marksent")"
	exit
fi
if [ -n "$series" ]; then
	check_series --series "$series"
	(load_series "$series" && [ ${#patches[@]} -gt 0 ]) ||
		die "--series '$series': it lists no patch"
fi

# The sender, from the user's own git configuration, read before this
# script hides it from git and b4 below.
usercfg() {
	git -C "$REPO_DIR" config "$1" || true
}
sendfrom=""
if [ -n "$from" ]; then
	ident=$from idsrc=--from
	args=(--from "$from")
else
	name=$(usercfg user.name) email=$(usercfg user.email)
	# The mails are the sender's: without an identity there is no one
	# to write them as (the patches' placeholder author is no one).
	missing=""
	[ -n "$name" ] || missing=user.name
	[ -n "$email" ] || missing="${missing:+$missing and }user.email"
	[ -z "$missing" ] ||
		die "no sender: git config $missing is not set. The mails are written as your own work: set your identity (git config --global user.name 'Your Name'; git config --global user.email you@your.domain) or give --from 'Your Name <you@your.domain>'. No mail was written."
	ident="$name <$email>" idsrc="git config user.name and user.email"
	# sendemail.from (or that of b4.sendemail-identity) is what b4 puts
	# in From: when set; --from replaces it.
	ident_cfg=$(usercfg b4.sendemail-identity)
	[ -z "$ident_cfg" ] || sendfrom=$(usercfg "sendemail.$ident_cfg.from")
	[ -n "$sendfrom" ] || sendfrom=$(usercfg sendemail.from)
	args=("$name" "$email" ${sendfrom:+"$sendfrom"})
fi
# The mails are From the sender and signed off by the sender: never
# written as someone no reply reaches (a reserved domain, a no-reply
# mailbox, the placeholder author), sent or not.
rc=0
id=$(python3 "$state_py" sender "${args[@]}") || rc=$?
case $rc in
0) name=${id%%$'\n'*} email=${id#*$'\n'} ;;
2) die "refusing to write mails as '$ident' ($idsrc): $id. The mails would be From: it and signed off by it, and replies must reach you: give --from 'Your Name <you@your.domain>', or set git config user.name and user.email to your own. No mail was written, nothing was sent." ;;
3) die "refusing to write mails From: '$sendfrom' (git config sendemail.from): $id. Give --from 'Your Name <you@your.domain>', or set sendemail.from to your own. No mail was written, nothing was sent." ;;
*) die "the check of the sender failed (b4state.py sender)" ;;
esac
"$CI_DIR/deps.sh" b4
placeholder_addr=$(cd "$CI_DIR/upstream" && python3 -c 'import b4state; print(b4state.P_ADDR)')
# Settings of the user's that b4 send needs: SMTP or web endpoint, b4's
# own, patatt and gpg for signing, credential helpers for the password.
imported=()
if [ -n "$send" ]; then
	while IFS= read -r -d '' entry; do
		if [[ $entry == *$'\n'* ]]; then
			imported+=("${entry%%$'\n'*}" "${entry#*$'\n'}")
		else
			imported+=("$entry" true)
		fi
	done < <(git -C "$REPO_DIR" config -z --get-regexp \
		'^(sendemail|b4|patatt|gpg|credential)\.|^user\.signingkey$' || true)
fi

# Trees: the base, and for the LTS bases the mainline tree whose
# get_maintainer.pl and MAINTAINERS name today's maintainers.
maint_tree=""
if [ "$base" != "$ZS_DEFAULT_BASE" ] && [ "$base" = "$(base_get "$row" name)" ]; then
	say "tree: preparing $ZS_DEFAULT_BASE for get_maintainer.pl"
	envs=$("$CI_DIR/1-tree/tree.sh" "$ZS_DEFAULT_BASE") || die "cannot prepare the $ZS_DEFAULT_BASE tree"
	set_env ZS_ <<<"$envs"
	maint_tree=$ZS_TREE
fi
say "tree: preparing base $base"
envs=$("$CI_DIR/1-tree/tree.sh" "$base") || die "cannot prepare the base $base"
set_env ZS_ <<<"$envs"
tree=$ZS_TREE
tag=$(basename "$tree")

[ -n "$series" ] || series=$(base_get "$row" series)
series=$(realpath "$series")
load_series "$series"
[ ${#patches[@]} -gt 0 ] || die "series $series lists no patches"
# The series folder: the patches', with the cover letter and b4-cover.
sdir=$(dirname "${patches[0]}")
cover=$sdir/cover-letter.txt
[ -f "$cover" ] || die "no cover letter: $cover"
if [ -z "$(head -n1 "$cover")" ] || [ -n "$(sed -n 2p "$cover")" ]; then
	die "$cover: the first line must be the subject, then a blank line"
fi
state=$sdir/b4-cover

# The series these patches go with (goes-with: a folder of patches/, such
# as mainline for its kselftests): the cover letter names its subject and,
# once it is recorded as sent, links to it; until then --send is refused,
# as the list would get tests for a patch it has not seen.
with_line="" with_link=""
if [ -f "$sdir/goes-with" ]; then
	with=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$sdir/goes-with")
	wdir=$REPO_DIR/patches/$with
	[ -f "$wdir/series" ] || die "$sdir/goes-with: no series folder patches/$with"
	wsubj=$(load_series "$wdir/series" &&
		sed -n '/^Subject: /{s/^Subject: \[[^]]*\] //;N;s/\n / /;s/\n.*//;p;q}' "${patches[0]}")
	wmsgid=""
	if [ -f "$wdir/b4-cover" ]; then
		wmsgid=$(python3 "$state_py" tracking "$wdir/b4-cover" | sed -n 's/^b4_last_msgid=//p')
	fi
	if [ -n "$wmsgid" ]; then
		with_line="They go with \"$wsubj\":"
		with_link="https://lore.kernel.org/r/$wmsgid"
	else
		[ -z "$send" ] || die "--send: patches/$with, which these patches go with ($sdir/goes-with), is not recorded as sent: send it first. Nothing was sent."
		with_line="They go with \"$wsubj\", posted separately."
	fi
fi

# Addresses the series' mails go to beyond get_maintainer.pl's: the
# series folder's cc file, one "Name <address>" a line, each with a
# comment saying why (# to the end of the line).
extra_cc=()
if [ -f "$sdir/cc" ]; then
	while IFS= read -r line; do
		line=$(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$line")
		[ -n "$line" ] || continue
		why=$(python3 "$state_py" sender --from "$line") || die "$sdir/cc: '$line': $why"
		extra_cc+=("$line")
	done <"$sdir/cc"
fi

out=${out:-$REPO_DIR/results/mail-$(date +%Y%m%d-%H%M%S)-$tag}
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/*.eml "$out"/checkpatch-*.log "$out"/series.json "$out"/b4-cover
log=$out/b4.log
: >"$log"

[ ! -d "$CACHE_DIR/mail/trees" ] ||
	say "mail: note: $CACHE_DIR/mail, the copy of the base that ci/upstream/mail.sh used to make, is no longer used; remove it to free its space"

# Everything else this run makes lives here and goes at exit.
mkdir -p "$CACHE_DIR/tmp"
work=$(mktemp -d "$CACHE_DIR/tmp/mail.XXXXXX")
cleanup() {
	local rc=$?
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
case $work in *"'"*) die "$work: a quote in the path" ;; esac

# b4's state: its tracking data in the cover commit message kept as
# b4-cover (revision, change-id, the Message-IDs of what was sent).
b4_revision=1 b4_change_id="" b4_last="" b4_last_msgid=""
if [ -f "$state" ]; then
	tracking=$(python3 "$state_py" tracking "$state") || die "$state: no b4 tracking data"
	set_env b4_ <<<"$tracking"
fi
rev=$b4_revision
ccfile=()
[ ! -f "$sdir/cc" ] || ccfile=("$sdir/cc")
if [ -n "$send" ]; then
	# What is sent must be a commit: the one before b4-cover records the
	# send (see Revisions).
	top=$(git -C "$sdir" rev-parse --show-toplevel 2>/dev/null) ||
		die "--send: $sdir is not in a git repository. Nothing was sent."
	[ -z "$(git -C "$top" status --porcelain -- "$series" "$cover" "${ccfile[@]}" "${patches[@]}")" ] ||
		die "--send: the series has changes that are not committed: commit them first. Nothing was sent."
fi

# Git and b4 settings for this run only: no global or system git config;
# b4's and patatt's files under the scratch folder, unless sending. When
# not sending, the SMTP "server" is a command that fails, in case anything
# tried to send (b4 send -o never does).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
if [ -z "$send" ]; then
	export XDG_CONFIG_HOME=$work/xdg/config XDG_DATA_HOME=$work/xdg/data
	export XDG_CACHE_HOME=$work/xdg/cache
	mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
fi
# b4's cover letter template without base-commit: (see above).
cat >"$work/cover-template" <<'EOF'
${cover}

---
${shortlog}

${diffstat}
---
change-id: ${change_id}

Best regards,
-- 
${signature}
EOF
gitcfg=(
	"${imported[@]}"
	user.name "$name"
	user.email "$email"
	core.editor "cp -- '$work/cover.txt'"
	color.ui never
	commit.gpgsign false
	tag.gpgsign false
	b4.prep-cover-strategy commit
	b4.prep-cover-template "$work/cover-template"
)
[ -n "$send" ] || gitcfg+=(sendemail.smtpserver /bin/false)
[ -z "$from" ] || gitcfg+=(sendemail.from "$name <$email>")
if [ ${#extra_cc[@]} -gt 0 ]; then
	cclist=$(printf '%s, ' "${extra_cc[@]}")
	gitcfg+=(b4.send-series-cc "${cclist%, }")
fi
if [ -n "$maint_tree" ]; then
	gitcfg+=(b4.send-auto-to-cmd "$work/get-maintainer --nol"
		b4.send-auto-cc-cmd "$work/get-maintainer --nom")
fi
export GIT_CONFIG_COUNT=$((${#gitcfg[@]} / 2))
for ((i = 0; i < GIT_CONFIG_COUNT; i++)); do
	export "GIT_CONFIG_KEY_$i=${gitcfg[2 * i]}" "GIT_CONFIG_VALUE_$i=${gitcfg[2 * i + 1]}"
done

b4run() {
	if ! (cd "$wt" && b4 "$@") >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "b4 $* failed (log: $log)"
	fi
}
# apply_series PATCH...: git am them onto HEAD, each then made the
# sender's to send: a patch of the placeholder author becomes the
# sender's, author and Signed-off-by (and Co-developed-by); a patch of
# someone else keeps its author and sign-offs; the sender's Signed-off-by
# ends every chain, added unless it is last already (git
# interpret-trailers). The sender commits them all.
apply_series() {
	local p author
	for p in "$@"; do
		"$CI_DIR/2-apply/apply.sh" "$wt" "$p" >>"$log" 2>&1 || return 1
		author=$(git -C "$wt" log -1 --format='%an <%ae>' HEAD)
		[[ ${author,,} != *"<$placeholder_addr>" ]] || author="$name <$email>"
		git -C "$wt" log -1 --format=%B HEAD |
			awk -v a="<$placeholder_addr>" -v s="$name <$email>" '{ l = tolower($0) }
			l ~ /^(signed-off-by|co-developed-by):/ && substr(l, length(l) - length(a) + 1) == a {
				sub(/:.*/, ": " s) } 1' |
			git interpret-trailers --if-exists addIfDifferentNeighbor \
				--trailer "Signed-off-by: $name <$email>" >"$work/message"
		git -C "$wt" commit -q --amend --no-verify --allow-empty --cleanup=verbatim \
			--author="$author" -F "$work/message" >>"$log" 2>&1 || return 1
	done
}

# sparse_clone TREE DEST DIR...: a clone of TREE at zs-base that shares
# its objects, with only the top-level files and DIRs checked out: what
# git am, b4, get_maintainer.pl and checkpatch.pl (include/ for CamelCase)
# read, in a tenth of the files. The folders those two scripts test for
# with -d are made empty: the top-level ones (a kernel tree's top) and
# those MAINTAINERS names without a trailing slash (get_maintainer.pl
# adds one when it finds the folder; names with ., * or ? it never
# finds). The results are those of a full checkout.
sparse_clone() {
	local src=$1 dest=$2
	shift 2
	git clone -q --shared --no-checkout "$src" "$dest"
	git -C "$dest" rev-parse -q --verify 'zs-base^{commit}' >/dev/null ||
		die "$src has no zs-base tag"
	git -C "$dest" sparse-checkout set --cone "$@"
	git -C "$dest" checkout -q --detach zs-base
	{
		git -C "$dest" ls-tree -d --name-only zs-base
		sed -n 's/^[FX]:[[:space:]]*\([^[:space:]]*[^/[:space:]]\)[[:space:]]*$/\1/p' \
			"$dest/MAINTAINERS" | grep -v '[.*?]' || true
	} | sort -u | while IFS= read -r d; do
		printf 'zs-base:%s %s\n' "$d" "$d"
	done | git -C "$dest" cat-file --batch-check='%(objecttype) %(rest)' |
		sed -n 's/^tree //p' | (cd "$dest" && xargs -r -d '\n' mkdir -p)
}
# dirs_of PATCH...: the folders of the files the patches touch.
dirs_of() {
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$@" |
		xargs -r -n1 dirname | grep -vx '\.' | sort -u
}

# vN, the revision sent last: the series at the commit before the one
# that recorded vN in b4-cover, or at HEAD while that record is not
# committed.
oldp=()
if [ -n "$b4_last" ]; then
	top=$(git -C "$sdir" rev-parse --show-toplevel 2>/dev/null) ||
		die "$state records v$b4_last, but $series is not in a git repository"
	rel=$(realpath --relative-to="$top" "$state") vcommit=HEAD
	for c in $(git -C "$top" log --reverse --format=%H -- "$rel"); do
		if [[ $(git -C "$top" show "$c:$rel") == *"\"v$b4_last\":"* ]]; then
			vcommit=$c^
			break
		fi
	done
	vcommit=$(git -C "$top" rev-parse --short=12 "$vcommit")
	mkdir -p "$work/v$b4_last"
	git -C "$top" archive "$vcommit" -- "$(dirname "$rel")" | tar -x -C "$work/v$b4_last" ||
		die "cannot rebuild v$b4_last from $vcommit"
	vseries=$work/v$b4_last/$(realpath --relative-to="$top" "$series")
	old=$(load_series "$vseries" && printf '%s\n' "${patches[@]}") ||
		die "cannot rebuild v$b4_last from $vcommit"
	mapfile -t oldp <<<"$old"
fi

say "mail: cloning the base into $work (shared objects, sparse)"
wt=$work/tree
mapfile -t dirs < <(dirs_of "${patches[@]}" "${oldp[@]}")
sparse_clone "$tree" "$wt" include scripts "${dirs[@]}"
# A series cut against files of the mm tree it keeps (mm-tree/: the
# kselftests; the mainline series, those of patches/mm-stable/) goes on
# those, as a commit of the scratch clone that its zs-base then names: the
# patches mailed are the text cut there, with the mm tree's index lines.
mmdir=$sdir/mm-tree
[ "$(realpath "$sdir")" != "$REPO_DIR/patches/mainline" ] ||
	mmdir=$REPO_DIR/patches/mm-stable/mm-tree
if [ -d "$mmdir" ]; then
	cp -r "$mmdir/." "$wt/"
	mapfile -t mmf < <(cd "$mmdir" && find . -type f | sed 's|^\./||')
	git -C "$wt" add -f -- "${mmf[@]}"
	git -C "$wt" -c user.name=zswap-series -c user.email=ci@localhost \
		commit -q -m "the mm tree's files of $mmdir"
	git -C "$wt" tag -f zs-base >/dev/null
fi
base_commit=$(git -C "$wt" rev-parse 'zs-base^{commit}')
# b4 names tags and the change-id after the branch.
branch=zswap-$(basename "$sdir" | tr -c 'A-Za-z0-9._\n-' '-')
git -C "$wt" checkout -q -b "$branch" zs-base
if [ -n "$maint_tree" ]; then
	# get_maintainer.pl and MAINTAINERS of mainline's commit (its work
	# tree may hold someone's patches), run as b4 would run the base's.
	sparse_clone "$maint_tree" "$work/maintainers" scripts
	printf '#!/bin/sh\ncd %q && exec perl scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats "$@"\n' \
		"$work/maintainers" >"$work/get-maintainer"
	chmod +x "$work/get-maintainer"
fi

# vN rebuilt and tagged as b4 send tags a sent revision, for
# b4 prep --compare-to.
compared=""
if [ -n "$b4_last" ]; then
	say "mail: rebuilding v$b4_last from $vcommit for the range-diff"
	git -C "$wt" checkout -q --detach zs-base
	if apply_series "${oldp[@]}"; then
		{
			sed -n 1p "$(dirname "$vseries")/cover-letter.txt"
			echo
			sed -n '3,$p' "$(dirname "$vseries")/cover-letter.txt"
			printf -- '---\nbase-commit: %s\nchange-id: %s\n' "$base_commit" "$b4_change_id"
		} | git -C "$wt" tag -a -F - "sent/$branch-v$b4_last" HEAD
		compared=1
	else
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		say "mail: warning: v$b4_last does not apply to $ZS_BASE_DESC; no range-diff in the cover letter (log: $log)"
	fi
	git -C "$wt" checkout -q -f "$branch"
fi

if [ -f "$state" ]; then
	# The prep branch as b4 left it: its cover commit on the base.
	say "mail: b4 prep: v$rev, change-id $b4_change_id, from $state"
	git -C "$wt" commit -q --allow-empty --cleanup=verbatim -F "$state"
else
	say "mail: b4 prep: enroll v1, a new change-id"
	b4run prep --enroll zs-base
fi
# The prefixes of this run (b4 keeps them in its tracking data).
b4run prep --set-prefixes "${prefixes[@]:-}"

say "mail: applying ${#patches[@]} patches of $series to $ZS_BASE_DESC, signed off by $name <$email>"
if ! apply_series "${patches[@]}"; then
	tail -n 20 "$log" >&2
	die "the series does not apply (log: $log)"
fi

# The cover letter: cover-letter.txt, the base, and from v2 on the
# changes since the revision sent last.
wrap() { fold -s -w 72 | sed 's/ *$//'; }
# The cover letter's own changelog ("Changes in vN:" to the end) goes
# last, after what the series goes with and what it is based on, so that
# the link to the last revision and the range-diff follow it.
changes_at=$(grep -n -i -m1 '^changes in v[0-9]*:' "$cover" | cut -d: -f1 || true)
{
	if [ -n "$changes_at" ]; then
		printf '%s\n\n' "$(head -n $((changes_at - 1)) "$cover")"
	else
		printf '%s\n\n' "$(cat "$cover")"
	fi
	if [ -n "$with_line" ]; then
		echo "$with_line" | wrap
		[ -z "$with_link" ] || echo "$with_link"
		echo
	fi
	if [ "${ZS_STANDINS:-0}" -gt 0 ] &&
		[ "$(realpath "$sdir")" = "$REPO_DIR/patches/mainline" ]; then
		# The series needs the mm-stable commits that the base's
		# stand-ins name (their messages give the ids and titles).
		echo "Based on mm-stable as of 2026-10-09, on these commits there:"
		python3 - "$REPO_DIR"/patches/mm-stable/0*.patch <<-'PY'
		import email, re, sys
		for path in sys.argv[1:]:
		    msg = email.message_from_file(open(path))
		    subj = re.sub(r'\s+', ' ', msg['Subject'])
		    subj = re.sub(r'^\[PATCH[^]]*\] ', '', subj)
		    body = re.sub(r'\s+', ' ', msg.get_payload())
		    cid = re.search(r'\(([0-9a-f]{12}) in mm-stable', body)
		    # A stand-in for the rest of a file names no commit.
		    if cid:
		        print(f'  {cid.group(1)} ("{subj}")')
		PY
		read -r bc bcwhere < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
			"$REPO_DIR/patches/mm-stable/base-commit")
		echo "Made and tested on $ZS_BASE_DESC: Debian serves no tree with those commits yet, so stand-ins that follow the mm tree's text there give $ZS_UPSTREAM their code." | wrap
		echo
		echo "base-commit: $bc ($bcwhere)"
	elif [ -f "$sdir/base-commit" ]; then
		# A series cut against the mm tree's text (its base-commit
		# file: the commit, where to fetch it), tested on the base.
		read -r bc bcwhere < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
			"$sdir/base-commit")
		echo "Based on the mm tree at the commit below; tested on $ZS_BASE_DESC." | wrap
		echo
		echo "base-commit: $bc ($bcwhere)"
	elif [ -n "$ZS_UPSTREAM" ]; then
		echo "Based on $ZS_UPSTREAM; tested on $ZS_BASE_DESC." | wrap
	else
		echo "Based on $ZS_BASE_DESC." | wrap
	fi
	if [ -n "$changes_at" ]; then
		echo
		tail -n +"$changes_at" "$cover"
	fi
	if [ -n "$b4_last" ]; then
		[ -n "$changes_at" ] || echo
		if ! grep -qi "^changes in v$rev\b" "$cover"; then
			printf -- '---\nChanges in v%s:\n' "$rev"
		fi
		printf -- '- '
		echo "Link to v$b4_last: https://lore.kernel.org/r/$b4_last_msgid"
		if [ -n "$compared" ]; then
			say "mail: b4 prep --compare-to v$b4_last"
			rd=$(cd "$wt" && b4 prep --compare-to "v$b4_last" 2>>"$log") ||
				die "b4 prep --compare-to v$b4_last failed (log: $log)"
			printf '\nRange-diff against v%s:\n' "$b4_last"
			printf '%s\n' "$rd" | sed 's/[[:space:]]*$//'
		fi
	fi
} >"$work/cover.txt"

getm="$tag's get_maintainer.pl"
[ -z "$maint_tree" ] || getm="$(basename "$maint_tree")'s get_maintainer.pl (today's MAINTAINERS)"
say "mail: b4 prep: cover letter from $cover, To/Cc from $getm"
# --edit-cover runs the editor on a copy of the cover letter: the editor
# is cp, which puts the cover letter made above there.
b4run prep --edit-cover
b4run prep --auto-to-cc
# b4 keeps the cover letter in an empty commit right after the base, and
# --auto-to-cc adds To: and Cc: trailers to it.
cover_commit=$(git -C "$wt" rev-list --reverse zs-base..HEAD | sed -n 1p)
git -C "$wt" log -1 --format=%B "$cover_commit" | grep '^To: ' >/dev/null ||
	die "get_maintainer.pl gave no To: address (log: $log)"
say "mail: b4 send -o $out"
b4run send --no-sign -o "$out"
change_id=$(cd "$wt" && b4 prep --show-info 2>>"$log" | sed -n 's/^change-id: //p')

mails=("$out"/*.eml)
[ -f "${mails[0]}" ] || die "b4 send wrote no mails (log: $log)"
# The cover letter; a single patch carries it below its "---".
cover_eml=$(basename "${mails[0]}")
bad=0
for m in "${mails[@]}"; do
	if grep -qE '^Subject: \[[^]]*PATCH[^]]* 0+/[0-9]+\]' "$m"; then
		cover_eml=$(basename "$m")
		printf '%-72s cover letter\n' "$(basename "$m")"
		continue
	fi
	cplog=$out/checkpatch-$(basename "$m" .eml).log
	# A patch of someone else's has its author as an in-body From:,
	# which checkpatch would take for a line of the commit message: it
	# sees the mail with that author in the header, as git format-patch
	# writes it (and checks the author's Signed-off-by).
	mkdir -p "$work/checkpatch"
	python3 "$state_py" as-authored "$m" "$work/checkpatch/$(basename "$m")"
	if "$CI_DIR/2-apply/checkpatch.sh" "$wt" "$work/checkpatch/$(basename "$m")" >"$cplog"; then
		res=ok
	else
		res=FAIL
		bad=$((bad + 1))
	fi
	sed -i "s|$work/checkpatch/|$out/|g" "$cplog"
	printf '%-72s checkpatch %s: %s\n' "$(basename "$m")" "$res" \
		"$(sed -n 's/.*total: //p' "$cplog" | sed -n 1p)"
done
# What --mark-sent needs: b4's cover commit as the mails were written,
# and the series it belongs to.
git -C "$wt" cat-file commit "$cover_commit" | sed '1,/^$/d' >"$out/b4-cover"
python3 -c 'import json, sys
json.dump(dict(a.split("=", 1) for a in sys.argv[2:]), open(sys.argv[1], "w"), indent=2)' \
	"$out/series.json" series="$series" state="$state" revision="$rev" change-id="$change_id" \
	prefixes="${prefixes[*]}" cover="$cover_eml" from="$name <$email>" \
	upstream="$ZS_UPSTREAM" base="$ZS_BASE_DESC"
echo "To/Cc (cover letter):"
awk '/^$/ { exit } /^[^ \t]/ { show = /^(To|Cc):/ } show { print "  " $0 }' "$out/$cover_eml"
echo "mails: $out (v$rev, change-id $change_id)"
# Every person a mail names (From, To, Cc, in-body From, the tags of the
# message) must be able to receive replies, the placeholder author least
# of all: --send refuses, naming the mail and the identity.
rc=0
unreachable=$(python3 "$state_py" identities "${mails[@]}") || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] || die "the check of the mails' identities failed (b4state.py identities)"
if [ $rc -eq 2 ]; then
	if [ -n "$send" ]; then
		printf '%s\n' "$unreachable" | sed 's/^/  /' >&2
		die "--send: refusing: the mails above name identities that cannot receive replies. Nothing was sent."
	fi
	say "mail: note: identities that cannot receive replies (--send would refuse them):"
	printf '%s\n' "$unreachable" | sed 's/^/  /' >&2
fi
[ $bad -eq 0 ] || die "checkpatch found problems in $bad mail(s); see $out/checkpatch-*.log${send:+. Nothing was sent.}"

if [ -z "$send" ]; then
	top=$(git -C "$sdir" rev-parse --show-toplevel 2>/dev/null || true)
	if [ -n "$top" ] && [ ! -e "$top/ci/upstream/mail.sh" ]; then
		echo "after sending them yourself: ci/upstream/mail.sh --mark-sent $out"
	else
		echo "to send them, and record the send in $state: the same command with --send"
	fi
	exit 0
fi
say "mail: b4 send: it shows the mails and asks before sending"
if ! (cd "$wt" && PYTHONUNBUFFERED=1 b4 send ${nosign:+--no-sign}) 2>&1 | tee -a "$log"; then
	die "b4 send failed (log: $log); if some mails went out, record them by hand in $state"
fi
# b4 send recorded the cover letter's Message-ID in its tracking data,
# and moved to the next revision: its cover commit is the state.
cover_commit=$(git -C "$wt" log -1 --format=%H -F --grep='--- b4-submit-tracking ---' HEAD)
git -C "$wt" cat-file commit "$cover_commit" | sed '1,/^$/d' >"$work/b4-cover"
set_env b4_ <<<"$(python3 "$state_py" tracking "$work/b4-cover")"
[ "$b4_last" = "$rev" ] || die "b4 send recorded no Message-ID for v$rev (log: $log)"
cp "$work/b4-cover" "$state"
echo "recorded v$rev as sent in $state; the next mails are v$((rev + 1)). Commit $(basename "$state")."

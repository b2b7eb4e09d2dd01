#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Turn a series into the mails that would go upstream, without sending
# anything: apply it with git am to a scratch copy of the base, enroll it
# with b4 prep (the cover-letter.txt beside the patches as the cover
# letter, To/Cc from the tree's scripts/get_maintainer.pl), write the mails
# with b4 send -o, and run scripts/checkpatch.pl --strict on every patch
# mail (not the cover letter).
#
#   ci/mail.sh [--base v6.12|v6.1|PATH] [--series FILE] [--out DIR]
#
# Defaults: --base v6.12, the series that goes with the base (series, or
# patches/v6.1/series for a 6.1 tree), mails under results/mail-<date>-<tree>/
# (old *.eml files in DIR are removed first), with b4.log and a
# checkpatch-<mail>.log for each patch mail.
# The base comes from ci/tree.sh with a cache of its own (CACHE_DIR/mail),
# so a ci/run-series.sh working on its tree meanwhile is left alone, and b4
# works in a git worktree of that copy. b4 and the git it runs see no user
# or system git configuration, only settings that this script puts in their
# environment, and nothing is written to the user's. Exit 0 only when
# checkpatch reports no error, warning or check on any patch mail.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

base=${ZS_BASE:-v6.12} series="" out=""
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=$2 ;;
	--series) series=$2 ;;
	--out) out=$2 ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift 2
done

"$CI_DIR/deps.sh" b4
mail_cache=$CACHE_DIR/mail
say "tree: preparing base $base (in $mail_cache)"
eval "$(ZS_CACHE=$mail_cache "$CI_DIR/tree.sh" "$base")"
tree=$ZS_TREE
tag=$(basename "$tree")

[ -n "$series" ] || series=$(series_for "$ZS_KVER")
series=$(realpath "$series")
load_series "$series"
[ ${#patches[@]} -gt 0 ] || die "series $series lists no patches"
cover=$(dirname "${patches[0]}")/cover-letter.txt
[ -f "$cover" ] || die "no cover letter: $cover"
case $cover in *"'"*) die "$cover: a quote in the path" ;; esac
if [ -z "$(head -n1 "$cover")" ] || [ -n "$(sed -n 2p "$cover")" ]; then
	die "$cover: the first line must be the subject, then a blank line"
fi

out=${out:-$REPO_DIR/results/mail-$(date +%Y%m%d-%H%M%S)-$tag}
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/*.eml "$out"/checkpatch-*.log

# One run at a time per base: the worktree and its branch are reused.
mkdir -p "$mail_cache/work"
exec 9>"$mail_cache/work/$tag.lock"
flock -n 9 || die "another ci/mail.sh is working on $tag"

# A worktree of the scratch tree, reset to the base; tree.sh only ever
# resets the tree itself, which this leaves on its own checkout.
wt=$mail_cache/work/$tag
branch=zswap-series-$(printf '%s' "$ZS_KVER" | cut -d. -f1,2)
git -C "$tree" worktree prune
if ! git -C "$wt" rev-parse -q --verify zs-base >/dev/null 2>&1; then
	say "mail: creating worktree $wt"
	rm -rf "$wt"
	git -C "$tree" worktree add -q --detach "$wt" zs-base
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q -f --detach zs-base
git -C "$wt" clean -q -f -d -x
git -C "$wt" branch -q -D "$branch" >/dev/null 2>&1 || true
git -C "$wt" config --remove-section "branch.$branch" >/dev/null 2>&1 || true
git -C "$wt" checkout -q -b "$branch" zs-base

say "mail: applying ${#patches[@]} patches of $series to $ZS_BASE_DESC"
for p in "${patches[@]}"; do
	"$CI_DIR/apply.sh" "$wt" "$p" || die "$(basename "$p") does not apply"
done

# Git and b4 settings for this run only: no global or system git config,
# b4's and patatt's own files under the cache. The mails come from the
# series' author; the SMTP "server" is a command that fails, in case
# anything ever tried to send (b4 send -o never does).
name=$(git -C "$wt" log -1 --format=%an)
email=$(git -C "$wt" log -1 --format=%ae)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export XDG_CONFIG_HOME=$mail_cache/b4/config XDG_DATA_HOME=$mail_cache/b4/data
export XDG_CACHE_HOME=$mail_cache/b4/cache
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
gitcfg=(
	user.name "$name"
	user.email "$email"
	core.editor "cp -- '$cover'"
	sendemail.smtpserver /bin/false
)
export GIT_CONFIG_COUNT=$((${#gitcfg[@]} / 2))
for ((i = 0; i < GIT_CONFIG_COUNT; i++)); do
	export "GIT_CONFIG_KEY_$i=${gitcfg[2 * i]}" "GIT_CONFIG_VALUE_$i=${gitcfg[2 * i + 1]}"
done

log=$out/b4.log
: >"$log"
b4run() {
	if ! (cd "$wt" && b4 "$@") >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "b4 $* failed (log: $log)"
	fi
}
say "mail: b4 prep: enroll, cover letter from $cover, To/Cc from get_maintainer.pl"
b4run prep --enroll zs-base
# --edit-cover runs the editor on a copy of the cover letter: the editor
# is cp, which puts this series' cover letter there.
b4run prep --edit-cover
b4run prep --auto-to-cc
# b4 keeps the cover letter in an empty commit right after the base, and
# --auto-to-cc adds To: and Cc: trailers to it.
mapfile -t commits < <(git -C "$wt" rev-list --reverse zs-base..HEAD)
git -C "$wt" log -1 --format=%B "${commits[0]}" | grep -q '^To: ' ||
	die "get_maintainer.pl gave no To: address (log: $log)"
say "mail: b4 send -o $out"
b4run send --no-sign -o "$out"

mails=("$out"/*.eml)
[ -f "${mails[0]}" ] || die "b4 send wrote no mails (log: $log)"
bad=0
for m in "${mails[@]}"; do
	if grep -qE '^Subject: \[PATCH[^]]* 0+/[0-9]+\]' "$m"; then
		printf '%-72s cover letter\n' "$(basename "$m")"
		continue
	fi
	cplog=$out/checkpatch-$(basename "$m" .eml).log
	if "$CI_DIR/checkpatch.sh" "$wt" "$m" >"$cplog"; then
		res=ok
	else
		res=FAIL
		bad=$((bad + 1))
	fi
	printf '%-72s checkpatch %s: %s\n' "$(basename "$m")" "$res" \
		"$(sed -n 's/.*total: //p' "$cplog" | head -n1)"
done
echo "To/Cc (cover letter):"
awk '/^$/ { exit } /^[^ \t]/ { show = /^(To|Cc):/ } show { print "  " $0 }' "${mails[0]}"
echo "mails: $out"
[ $bad -eq 0 ] || die "checkpatch found problems in $bad mail(s); see $out/checkpatch-*.log"

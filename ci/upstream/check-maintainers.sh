#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check MAINTAINERS.snippet, the MAINTAINERS sections as the mainline series
# leaves them, against the kernel tree with the series applied (the index
# of a scratch clone of the base, removed at exit; the cached tree is only
# read):
# - each section of the snippet is the tree's section of that name, as the
#   series' own MAINTAINERS change wrote it;
# - scripts/parse-maintainers.pl --order leaves each section as written;
# - scripts/get_maintainer.pl --self-test=patterns finds a file for every
#   F: pattern of those sections;
# - get_maintainer.pl names the section's maintainers for each file a
#   patch of the series adds under its F: patterns.
#
#   ci/upstream/check-maintainers.sh [mainline|PATH]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

base=${1:-$ZS_DEFAULT_BASE}
check_base BASE "$base"
row=$(base_row "$base")
envs=$("$CI_DIR/1-tree/tree.sh" "$base")
set_env ZS_ <<<"$envs"
snippet=$REPO_DIR/MAINTAINERS.snippet
load_series "$(base_get "$row" series)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The series goes into the index only (get_maintainer.pl lists the tree's
# files with git ls-files); of the files, only MAINTAINERS is written out,
# and the rest of the top level is the base's, linked, for get_maintainer.pl
# to know it is at the top of a kernel tree.
say "maintainers: applying the series to the index of a scratch clone"
tree=$work/tree
git clone -q --shared --no-checkout "$ZS_TREE" "$tree"
git -C "$tree" read-tree zs-base
for p in "${patches[@]}"; do
	git -C "$tree" apply --cached "$p" ||
		die "$(basename "$p") does not apply"
done
git -C "$tree" checkout-index MAINTAINERS
for f in "$ZS_TREE"/*; do
	[ "$(basename "$f")" = MAINTAINERS ] || ln -s "$f" "$tree/"
done

# section FILE TITLE: the lines of section TITLE of a MAINTAINERS file.
section() {
	awk -v t="$2" '$0 == t { on = 1 } on && /^$/ { exit } on' "$1"
}
mapfile -t titles < <(awk 'NR == 1 || prev == "" { if ($0 != "") print } { prev = $0 }' "$snippet")

bad=0
# same_sections FILE WHAT: each section of the snippet is as in FILE.
same_sections() {
	local title
	for title in "${titles[@]}"; do
		if [ "$(section "$snippet" "$title")" = "$(section "$1" "$title")" ]; then
			echo "ok: $2 section $title as the snippet has it"
		else
			echo "not ok: $2 section $title otherwise than the snippet:"
			diff <(section "$snippet" "$title") <(section "$1" "$title") || true
			bad=1
		fi
	done
}
same_sections "$tree/MAINTAINERS" "the series' MAINTAINERS has"

(cd "$work" && perl "$tree/scripts/parse-maintainers.pl" --order \
	--input=tree/MAINTAINERS --output=sorted >parse.log 2>&1) || {
	cat "$work/parse.log"
	die "parse-maintainers.pl failed on the patched MAINTAINERS"
}
same_sections "$work/sorted" "parse-maintainers.pl --order leaves"

# The self-test, on a MAINTAINERS of the snippet's sections alone (the
# whole file takes minutes, and other sections are not this series').
cp "$tree/MAINTAINERS" "$work/MAINTAINERS.full"
cp "$snippet" "$tree/MAINTAINERS"
(cd "$tree" && perl scripts/get_maintainer.pl --self-test=patterns) >"$work/selftest.log" 2>&1 || true
for title in "${titles[@]}"; do
	first=$(grep -nxF "$title" "$tree/MAINTAINERS" | cut -d: -f1)
	last=$((first + $(section "$tree/MAINTAINERS" "$title" | wc -l) - 1))
	msgs=$(awk -F: -v a="$first" -v b="$last" '$2 >= a && $2 <= b' "$work/selftest.log")
	if [ -z "$msgs" ]; then
		echo "ok: get_maintainer.pl --self-test=patterns: nothing for $title"
	else
		echo "not ok: get_maintainer.pl --self-test=patterns on $title:"
		printf '  %s\n' "$msgs"
		bad=1
	fi
done

# Files the series adds, under the snippet's F: patterns.
cp "$work/MAINTAINERS.full" "$tree/MAINTAINERS"
mapfile -t added < <(git -C "$tree" diff --cached --name-only --diff-filter=A zs-base)
for file in "${added[@]}"; do
	grep -qxF "F:	$file" "$snippet" || continue
	maint=$(section "$snippet" "$(awk -v f="F:	$file" '
		NR == 1 || prev == "" { t = $0 } $0 == f { print t; exit } { prev = $0 }' "$snippet")" |
		sed -n 's/^M:\t//p' | head -n1)
	# The file as a patch adds it: nothing is written out through the
	# links into the base tree.
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' \
		"$file" "$file" "$file" >"$work/add.patch"
	who=$(cd "$tree" && perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats <"$work/add.patch" 2>&1) || true
	if grep -qF "$maint" <<<"$who"; then
		echo "ok: get_maintainer.pl names $maint for $file"
	else
		echo "not ok: get_maintainer.pl for $file says:"
		printf '  %s\n' "$who"
		bad=1
	fi
done
[ $bad -eq 0 ]

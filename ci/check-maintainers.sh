#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check MAINTAINERS.snippet against a kernel tree's own tools: merged into a
# copy of the tree's MAINTAINERS, scripts/parse-maintainers.pl --order must
# leave each of its sections as written (fields known and in the preferred
# order), and scripts/get_maintainer.pl, given a patch that adds a file
# under each F: pattern, must name the snippet's maintainer and lists.
#
#   ci/check-maintainers.sh [v6.12|v6.1|PATH]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

eval "$("$CI_DIR/tree.sh" "${1:-v6.12}")"
snippet=$REPO_DIR/MAINTAINERS.snippet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A stand-in for the tree (get_maintainer.pl wants a kernel tree around it)
# whose MAINTAINERS is the base's plus the snippet; the tree is not touched.
mkdir "$work/tree"
for f in "$ZS_TREE"/*; do
	[ "$(basename "$f")" = MAINTAINERS ] || ln -s "$f" "$work/tree/"
done
git -C "$ZS_TREE" show zs-base:MAINTAINERS >"$work/tree/MAINTAINERS"
{ echo; cat "$snippet"; } >>"$work/tree/MAINTAINERS"

bad=0
(cd "$work" && perl "$ZS_TREE/scripts/parse-maintainers.pl" --order \
	--input=tree/MAINTAINERS --output=sorted >parse.log 2>&1) || {
	cat "$work/parse.log"
	die "parse-maintainers.pl failed on the snippet"
}
# Each section of the snippet, as parse-maintainers.pl wrote it back.
while IFS= read -r title; do
	want=$(awk -v t="$title" '$0 == t { on = 1 } on && /^$/ { exit } on' "$snippet")
	got=$(awk -v t="$title" '$0 == t { on = 1 } on && /^$/ { exit } on' "$work/sorted")
	if [ "$want" = "$got" ]; then
		echo "ok: parse-maintainers.pl keeps section $title"
	else
		echo "not ok: parse-maintainers.pl changes section $title:"
		diff <(echo "$want") <(echo "$got") || true
		bad=1
	fi
done < <(awk 'NR == 1 || prev == "" { if ($0 != "") print } { prev = $0 }' "$snippet")

maint=$(sed -n 's/^M:\t//p' "$snippet" | head -n1)
while read -r pat; do
	file=${pat%/}
	case $pat in */) file=$pat"new.c" ;; *\*) file=${pat%\*}new.c ;; esac
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' \
		"$file" "$file" "$file" >"$work/add.patch"
	who=$(cd "$work/tree" && perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats <"$work/add.patch" 2>&1) || true
	if grep -qF "$maint" <<<"$who"; then
		echo "ok: get_maintainer.pl names the snippet's maintainer for $file"
	else
		echo "not ok: get_maintainer.pl for $file says:"
		printf '  %s\n' "$who"
		bad=1
	fi
done < <(sed -n 's/^F:\t//p' "$snippet")
[ $bad -eq 0 ]

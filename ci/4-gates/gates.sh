#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Gates: static checks of the C files a patch touches, compared
# with the same files before the patch: sparse (make C=2), compiler
# warnings at W=1, and coccinelle (coccicheck, MODE=report). A gate fails
# when the patch brings a message that was not there before; messages are
# compared without their line and column numbers, so that code moving
# down a file does not count as new.
#
#   ci/4-gates/gates.sh [--gates sparse,W1,cocci] TREE BUILDDIR OUTDIR
#
# TREE is a git tree whose HEAD is the patch (git am) and BUILDDIR a build
# of it by ci/3-build/build.sh. Files the configuration does not build are left
# out. Writes OUTDIR/gate-<name>.log (the messages before and after, and the new
# ones) and prints one "gate-<name> ok|fail|skip" line per gate.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

gates=sparse,W1,cocci
parse_opts "--gates= @" "$@"
check_words --gates "$gates" sparse W1 cocci
set -- "${args[@]}"
[ $# -eq 3 ] || { echo "usage: $0 [--gates GATE,...] TREE BUILDDIR OUTDIR" >&2; exit 2; }
tree=$(realpath "$1")
build=$(realpath "$2")
out=$3
mkdir -p "$out"
export ARCH=${ARCH:-x86_64}

# The .c files of the patch that this configuration compiles.
files=()
while read -r f; do
	[ -f "$build/${f%.c}.o" ] && files+=("$f")
done < <(git -C "$tree" diff --name-only --diff-filter=M HEAD~1 HEAD -- '*.c')

# messages GATE FILE: the gate's messages about FILE, one a line, as
# "FILE: message" (the path made relative to the tree, no line numbers).
# Fails, with the tool's output on stderr, when the tool itself fails.
messages() {
	local obj=${2%.c}.o raw rc=0
	raw=$(mktemp)
	case $1 in
	sparse) make -s -C "$tree" O="$build" C=2 "$obj" ;;
	W1) make -s -C "$tree" O="$build" W=1 "$obj" ;;
	cocci) make -s -C "$tree" O="$build" C=2 MODE=report \
		CHECK="$tree/scripts/coccicheck" "$obj" ;;
	esac >"$raw" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		cat "$raw" >&2
		rm -f "$raw"
		return 1
	fi
	sed -n -E -e "s#^(\\.\\./)*(${tree}/)?($2):[0-9]+(:[0-9]+(-[0-9]+)?)?: #\\3: #p" "$raw" |
		grep -E ': (warning|error|WARNING|ERROR|INFO|CHECK)' |
		sed -E 's/[0-9]+:[0-9]+(-[0-9]+)?//g' | sort || true
	rm -f "$raw"
}

# --gates picks gates (default all three); a tool that is not installed
# makes its gate "skip".
IFS=, read -ra wanted <<<"$gates"
installed() {
	case $1 in
	sparse) command -v sparse >/dev/null ;;
	cocci) command -v spatch >/dev/null ;;
	W1) true ;;
	*) false ;;
	esac
}

diff=$(mktemp)
trap 'rm -f "$diff"' EXIT
git -C "$tree" diff HEAD~1 HEAD >"$diff"
for g in "${wanted[@]}"; do
	log=$out/gate-$g.log
	: >"$log"
	if ! installed "$g"; then
		echo "not installed" >"$log"
		echo "gate-$g skip"
		continue
	fi
	if [ ${#files[@]} -eq 0 ]; then
		echo "no C file of this patch is built in this configuration" >"$log"
		echo "gate-$g ok"
		continue
	fi
	: >"$log.after"
	: >"$log.before"
	rc=0
	for f in "${files[@]}"; do
		messages "$g" "$f" >>"$log.after" 2>>"$log" || rc=1
	done
	# The same files before the patch: take it out, check, put it back.
	git -C "$tree" apply -R "$diff"
	for f in "${files[@]}"; do
		messages "$g" "$f" >>"$log.before" 2>>"$log" || rc=1
	done
	git -C "$tree" apply "$diff"
	if [ $rc -ne 0 ]; then
		echo "the tool failed, its output is above" >>"$log"
		echo "gate-$g fail"
		rm -f "$log.before" "$log.after"
		continue
	fi
	sort -o "$log.after" "$log.after"
	sort -o "$log.before" "$log.before"
	{
		echo "files: ${files[*]}"
		echo "before: $(wc -l <"$log.before") messages, after: $(wc -l <"$log.after")"
		echo "new with this patch:"
		comm -13 "$log.before" "$log.after"
		echo "--- after ---"
		cat "$log.after"
	} >>"$log"
	if [ -n "$(comm -13 "$log.before" "$log.after")" ]; then
		echo "gate-$g fail"
	else
		echo "gate-$g ok"
	fi
	rm -f "$log.before" "$log.after"
done

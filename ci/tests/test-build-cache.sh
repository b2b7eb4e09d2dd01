#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Test that the build caches give back only what the sources build, in
# seconds, without a kernel tree:
#
#  - ccache, as ci/3-build/build.sh runs it (the settings of ci/lib.sh),
#    compiles again an object whose source .incbin's a file, when that file
#    changes and keeps its length: arch/x86/boot/compressed/piggy.S (as
#    mkpiggy writes it: the payload's lengths and an .incbin of it) and
#    kernel/configs.c (an .incbin in a C file's asm). Two kernels whose
#    compressed payloads had the same length once shared a piggy.o, and
#    the second booted the first's code. A control shows the check can
#    fail: in ccache's depend mode, which skips ccache's own .incbin
#    check, the second object is the first.
#  - ci/3-build/keep-mtimes.py, run for two build folders of one tree,
#    leaves a file whose content differs from a folder's last build newer
#    than that build, whatever the other folder's run did to its mtime;
#    and removes what was written in a folder after its last build.
#  - a build folder that build_folder (ci/3-build/lib.sh) kept and takes
#    back for the sources it built reads as written by nothing since that
#    build, so that ci/3-build/build.sh takes it without a make;
#  - every build folder's path is made by build_dir (ci/3-build/lib.sh):
#    a path composed elsewhere bypasses the folders kept per sources.
#
#   ci/tests/test-build-cache.sh
#
# Prints TAP; exits 1 if a test failed.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"

command -v ccache >/dev/null || "$CI_DIR/deps.sh" ccache >&2 ||
	die "ccache is not installed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CCACHE_DIR=$work/ccache
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# payload OBJ: the bytes of OBJ's section .rodata..compressed.
payload() {
	objcopy -O binary --only-section=.rodata..compressed "$1" /dev/stdout
}

cd "$work"
# mkpiggy's piggy.S, for a payload of 16 bytes.
cat >piggy.S <<'EOF'
.section ".rodata..compressed","a",@progbits
.globl z_input_len
z_input_len = 16
.globl z_output_len
z_output_len = 64
.globl input_data, input_data_end
input_data:
.incbin "payload.xz"
input_data_end:
EOF
cat >configs.c <<'EOF'
asm(".section .rodata..compressed,\"a\"\n"
    ".incbin \"payload.xz\"\n"
    ".previous\n");
EOF

# twice SRC: compile SRC as kbuild does (dependencies by -Wp,-MMD), with
# one payload, then with another of the same length; the objects' payloads.
twice() {
	local flags=("-Wp,-MMD,dep.d" -c)
	[[ $1 != *.S ]] || flags+=(-D__ASSEMBLY__)
	printf 'kernel-A-payload' >payload.xz
	ccache gcc "${flags[@]}" -o a.o "$1"
	printf 'kernel-B-payload' >payload.xz
	ccache gcc "${flags[@]}" -o b.o "$1"
	echo "$(payload a.o) $(payload b.o)"
}

for src in piggy.S configs.c; do
	rm -rf "$CCACHE_DIR"
	got=$(twice "$src")
	if [ "$got" = "kernel-A-payload kernel-B-payload" ]; then
		result ok "ccache: $src compiled again for another payload of the same length"
	else
		result fail "ccache: $src: payloads $got, want kernel-A-payload kernel-B-payload"
	fi
done
rm -rf "$CCACHE_DIR"
got=$(CCACHE_NODEPEND='' CCACHE_DEPEND=1 twice piggy.S)
if [ "$got" = "kernel-A-payload kernel-A-payload" ]; then
	result ok "control: in depend mode ccache gives piggy.S's first object back for the second payload (why ci/lib.sh turns it off)"
else
	echo "ok $((n += 1)) - control # SKIP this ccache ($(ccache --version | head -n1)) no longer gives the first object back in depend mode ($got)"
fi

# keep-mtimes across two folders of one tree: X built the file at content
# b, Y at content a before that; the tree goes back to a. Y's run puts the
# file's mtime back to Y's build, older than X's objects; X's run must
# make it newer than X's build, so that make compiles it again there.
km=$CI_DIR/3-build/keep-mtimes.py
mkdir tree x y
git -C tree init -q
echo a >tree/f.c
git -C tree add f.c
git -C tree -c user.name=t -c user.email=t@localhost commit -q -m a
mtime() { stat -c %Y "$1"; }
touch -d '-3 hours' tree/f.c
python3 "$km" tree y >/dev/null
touch y/.zs-built
echo b >tree/f.c
touch -d '-2 hours' tree/f.c
git -C tree commit -q -a -m b
python3 "$km" tree x >/dev/null
touch -d '-1 hour' x/f.o
touch -d '-1 hour' x/.zs-built
echo a >tree/f.c
git -C tree commit -q -a -m 'a again'
python3 "$km" tree y >/dev/null
y_put=$(mtime tree/f.c)
python3 "$km" tree x >/dev/null
if [ "$y_put" -lt "$(mtime x/f.o)" ] && [ "$(mtime tree/f.c)" -gt "$(mtime x/f.o)" ]; then
	result ok "keep-mtimes: a file of other content than a folder's last build is newer than its objects, after another folder's run put its mtime back"
else
	result fail "keep-mtimes: f.c at $(mtime tree/f.c) (another folder put it at $y_put), x's object at $(mtime x/f.o): make would keep the object of the other content"
fi
# Written in x after its build ended (as ci/4-gates/gates.sh compiles
# the files before the patch there): removed by x's next run.
touch x/.zs-built
sleep 1
echo stale >x/g.o
python3 "$km" tree x >/dev/null
if [ ! -e x/g.o ]; then
	result ok "keep-mtimes: an object written in the folder after its last build is removed"
else
	result fail "keep-mtimes: x/g.o, written after x's last build, is still there"
fi

# build_folder keeps a configuration's folder for each state of the
# sources it built; one taken back for those sources again must read as
# written by nothing since its build, or ci/3-build/build.sh runs a make
# with nothing to do (20 s) instead of taking it as it is.
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"
(
	CACHE_DIR=$work/cache ZS_TAG=t ZS_TREE=$work/tree
	built() { mkdir -p "$1" && touch "$1/f.o" "$1/.zs-built" && touch -d '-1 min' "$1/f.o" "$1/.zs-built" "$1"; }
	d=$(build_folder default)
	built "$d"
	echo c >tree/f.c
	git -C tree -c user.name=t -c user.email=t@localhost commit -q -a -m c
	built "$(build_folder default)"
	echo a >tree/f.c
	git -C tree -c user.name=t -c user.email=t@localhost commit -q -a -m 'a, a third time'
	d=$(build_folder default)
	if [ ! -f "$d/.zs-built" ]; then
		echo "$d is not the folder built for these sources"
	elif [ -n "$(find "$d" -newer "$d/.zs-built")" ]; then
		echo "written since its build: $(find "$d" -newer "$d/.zs-built" | head -n3 | paste -sd' ' -)"
	else
		echo ok
	fi
) >"$work/bf.out" 2>&1 || true
if [ "$(tail -n1 "$work/bf.out")" = ok ]; then
	result ok "build_folder: a folder taken back for sources it built reads as written by nothing since that build"
else
	result fail "build_folder: $(tail -n1 "$work/bf.out")"
fi

# One function makes every build folder's path: a script that composes
# one itself builds beside the folders build_folder keeps and swaps.
bypass=$(grep -rnE 'CACHE_DIR}?"?/build' "$CI_DIR" | grep -v "^$CI_DIR/3-build/lib.sh:" |
	grep -vE '^[^:]*:[0-9]+:[[:space:]]*#' || true)
if [ -z "$bypass" ]; then
	result ok "build_dir: no build folder's path is made outside it"
else
	result fail "build_dir: build folder paths made outside it: $(echo "$bypass" | cut -d: -f1,2 | paste -sd' ' -)"
fi

echo "1..$n"
[ "$failed" -eq 0 ]

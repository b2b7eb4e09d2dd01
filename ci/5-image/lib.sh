# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Step code of image: the guest's tests, built and cached; sourced after ci/lib.sh, never run.

# mm_standins MM: the stand-ins for the mm tree's later fixes of the
# files of MM (a series' mm-tree/), in the order of MM/../standins/series;
# nothing where there is none.
mm_standins() {
	# shellcheck disable=SC2034 # patch_dir: set by load_series, unused here
	local patches=() patch_dir f
	f=$(dirname "$1")/standins/series
	[ -f "$f" ] || return 0
	load_series "$f"
	printf '%s\n' "${patches[@]}"
}

# newest_kselftests OUTDIR: test_zswap as a stable tree's CI runs it on
# that tree's kernel (LKFT runs the newest kselftests on every stable
# release candidate): the mainline base's tools/testing/selftests (the
# cgroup helpers test_zswap links), with the mm tree's files of the
# kselftests series (patches/selftests-zswap/mm-tree), the stand-ins for
# the mm tree's later fixes of those files (standins/series there) and
# that series on top, laid out as a tree in OUTDIR/newest (selftests/Makefile NEWEST=).
# Only reads the mainline tree's zs-base, preparing the tree if missing.
# Prints OUTDIR/newest; fails, saying why, if a patch does not apply.
newest_kselftests() {
	local out=$1/newest ts mm mtree p d=tools/testing/selftests sp=()
	# shellcheck disable=SC2034 # patch_dir: set by load_series, unused here
	local patches=() patch_dir
	ts=$(base_get "$(base_row mainline)" tests)
	mm=$(dirname "$ts")/mm-tree
	mtree=$("$CI_DIR/1-tree/tree.sh" mainline | sed -n 's/^ZS_TREE=//p') ||
		{ echo "newest kselftests: no mainline tree" >&2; return 1; }
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$mtree" archive zs-base "$d/kselftest.h" "$d/kselftest" \
		"$d/clone3" "$d/cgroup" | tar -x -C "$out"
	cp -r "$mm/." "$out/"
	load_series "$ts"
	mapfile -t sp < <(mm_standins "$mm")
	# OUTDIR may lie in a git work tree (results/ of a clone), where git
	# apply would take the paths as that tree's and skip them: not there.
	for p in "${sp[@]}" "${patches[@]}"; do
		(cd "$out" && GIT_CEILING_DIRECTORIES=$(dirname "$out") git apply "$p") ||
			{ echo "newest kselftests: $(basename "$p") does not apply to $mm" >&2; return 1; }
	done
	cmp -s "$mm/$d/cgroup/test_zswap.c" "$out/$d/cgroup/test_zswap.c" &&
		{ echo "newest kselftests: the series changed nothing in $out" >&2; return 1; }
	echo "$out"
}

# tests_image TREE OUTDIR [TESTS_SERIES [MM [NEWEST]]]: build the guest's tests
# (ci/5-image/image.sh) from TREE as it is, with the patches of TESTS_SERIES put
# on top with ci/2-apply/apply.sh for the build (OUTDIR/tests-apply.log) and
# taken off again: the tree is left at the commit it was at. With MM (a
# folder of the mm tree's files, patches/selftests-zswap/mm-tree), the
# series is put on MM's files in place of TREE's, with the stand-ins of
# MM/../standins/series between: the kselftests tested are the text that
# is mailed.
# With NEWEST (newest_kselftests), test_zswap is built from it instead.
# Fails, saying why, when a patch does not apply or the tests do not
# build. An image made before from the same sources (image_key) is taken
# from the cache instead.
tests_image() {
	local tree=$1 out=$2 ts=${3:-} mm=${4:-} newest=${5:-} head p rc=0 key="" f
	# load_series sets these: the caller's stay as they are.
	# shellcheck disable=SC2034 # patch_dir: set by load_series, unused here
	local patches=() patch_dir mmfiles=() nfiles=() sp=()
	head=$(git -C "$tree" rev-parse HEAD)
	mkdir -p "$out"
	: >"$out/tests-apply.log"
	[ -z "$ts" ] || load_series "$ts"
	[ -z "$mm" ] || mapfile -t mmfiles < <(find "$mm" -type f | LC_ALL=C sort)
	[ -z "$mm" ] || mapfile -t sp < <(mm_standins "$mm")
	[ -z "$newest" ] || mapfile -t nfiles < <(find "$newest" -type f | LC_ALL=C sort)
	key=$(image_key "$tree" "${sp[@]}" "${patches[@]}" "${mmfiles[@]}" "${nfiles[@]}") || key=""
	local kept=$CACHE_DIR/images/$key
	if [ -n "$key" ] && [ -f "$kept/initramfs.cpio.gz" ]; then
		cp "$kept"/* "$out/"
		touch "$kept"
		echo "image: made before from the same sources, kept in $kept" >>"$out/tests-apply.log"
		return 0
	fi
	if [ -n "$mm" ]; then
		# A commit, for git am; the reset below takes it off.
		cp -r "$mm/." "$tree/"
		if ! { git -C "$tree" add -f -- "${mmfiles[@]#"$mm"/}" &&
			git -C "$tree" -c user.name=zswap-series -c user.email=ci@localhost \
				commit -q -m "the mm tree's files of $mm"; }; then
			git -C "$tree" reset -q --hard "$head"
			return 1
		fi
		echo "the tests series on the mm tree's files of $mm" >>"$out/tests-apply.log"
	fi
	for p in "${sp[@]}" "${patches[@]}"; do
		"$CI_DIR/2-apply/apply.sh" "$tree" "$p" >>"$out/tests-apply.log" 2>&1 && continue
		grep 'APPLY FAILED' "$out/tests-apply.log" >&2 || true
		git -C "$tree" reset -q --hard "$head"
		return 1
	done
	"$CI_DIR/5-image/image.sh" ${newest:+--newest "$newest"} "$tree" "$out" || rc=$?
	git -C "$tree" reset -q --hard "$head"
	if [ $rc -eq 0 ] && [ -n "$key" ]; then
		rm -rf "$kept.new"
		mkdir -p "$kept.new"
		for f in initramfs.cpio.gz lists selftests-build.log tests-apply.log; do
			cp "$out/$f" "$kept.new/"
		done
		rm -rf "$kept"
		mv "$kept.new" "$kept"
		keep_newest "$CACHE_DIR/images" 100
	fi
	return $rc
}

# image_key TREE PATCH...: a name for everything the test image is made
# from: TREE's tools/testing/selftests as committed, the tests series'
# patches, this repository's selftests/ and guest init, the compiler, the
# C library and busybox. Fails (no key: the image is built) when TREE is
# not a git tree or has changes of that folder not committed.
image_key() {
	local tree=$1 sub
	shift
	sub=$(git -C "$tree" rev-parse -q --verify HEAD:tools/testing/selftests) || return 1
	[ -z "$(git -C "$tree" status --porcelain -- tools/testing/selftests)" ] || return 1
	{
		echo "$sub"
		[ $# -eq 0 ] || cat "$@"
		(cd "$REPO_DIR" && find selftests ci/5-image/guest ci/5-image/image.sh -type f -print0 |
			LC_ALL=C sort -z | xargs -0 sha1sum)
		gcc --version | sed -n 1p
		dpkg-query -W libc6-dev linux-libc-dev busybox-static 2>&1 || true
	} | sha1sum | cut -d' ' -f1
}

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The light check of a series at every point, with no whole kernel build:
# apply patch k onto the base tree Debian serves that day (its version
# printed), checkpatch it as the main job does, and compile the objects the
# series touches (ci/3-build/objects.sh) with Debian's own configuration
# for the kernel (linux-config-X.Y, ci/3-build/build-distro.sh) and with the
# guest's (ci/3-build/build.sh --objects-of), each after the
# configuration's "make prepare", in build folders of their own. The
# objects are those of the whole series at every point, so each folder
# stays incremental; an object a later patch adds is left out until then.
#
#   ci/jobs/compile-series.sh [--base BASE|PATH]
#                             [--series FILE] [--from K] [--results DIR]
#
# --from K: check points K and after only (those before are applied
# unchecked), as for a fault on top of a series checked already.
# At the last point, the objects are also compiled with Debian's rt
# flavour's configuration. Then, for a series split into sets (patches/v6.12/series), the cuts a
# distribution may carry (series_cut in ci/lib.sh): the upstream set alone,
# and every set but the tests, each applied to the base and its objects
# compiled with both configurations, so that every optional patch can be
# dropped.
# Defaults: --base v6.12, the base's series, every point, results under
# results/compile-<base>-<date>/. Prints a line per point and step; a
# failure names the series, the patch, and the file that did not apply or
# the object that did not compile (its log kept in the results); the
# points after a failing one are not checked. Exit 0 when every point
# applied, passed checkpatch and compiled.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=ci/1-tree/lib.sh
. "$CI_DIR/1-tree/lib.sh"
# shellcheck source=ci/2-apply/lib.sh
. "$CI_DIR/2-apply/lib.sh"
# shellcheck source=ci/3-build/lib.sh
. "$CI_DIR/3-build/lib.sh"

mapfile -t compiled < <(bases_with compile)
base=${compiled[0]} series="" results="" from=1
parse_opts "--base= --series= --from= --results=" "$@"
check_base --base "$base"
row=$(base_row "$base")
[ -z "$series" ] || check_series --series "$series"
[[ $from =~ ^[1-9][0-9]*$ ]] || die "--from '$from': a point, 1 or more"
[ -n "$results" ] || results=$REPO_DIR/results/compile-${base//\//_}-$(date +%Y%m%d-%H%M%S)
check_outdir --results "$results"
mkdir -p "$results"
results=$(realpath "$results")

"$CI_DIR/deps.sh"
say "tree: preparing base $base"
use_tree "$base"
tree=$ZS_TREE
say "tree: $ZS_BASE_DESC"
[ -n "$series" ] || series=$(base_get "$row" series)
series=$(realpath "$series")
load_series "$series"
sname=$(basename "$(dirname "$series")")
[ "$from" -le ${#patches[@]} ] ||
	die "--from $from: $series has ${#patches[@]} patches"

# Debian's configuration, where Debian 12 ships one for this kernel.
distro_cfg=$(distro_config "$row" none) || die "cannot install Debian's configuration for $ZS_KVER"
[ -n "$distro_cfg" ] ||
	say "distro: Debian 12 has no configuration for $ZS_KVER: the guest's only"

fail=0
# step WHERE NAME LOG CMD...: run one step, log to LOG; print ok, or on
# failure why, naming WHERE: the series and the patch (at), or the cut.
step() {
	local where=$1 what=$2 log=$3
	shift 3
	if timed "$results/times" "$what" "$@" >"$log" 2>&1; then
		echo "ok - $where: $what"
		return 0
	fi
	echo "not ok - $where: $what failed: $(why "$what" "$log") (log: $log)"
	fail=1
	return 1
}
# at K: point K as step names it, the series and the patch.
at() {
	echo "$sname $1/${#patches[@]} $(basename "${patches[$(($1 - 1))]}")"
}
# why STEP LOG: the line that says what failed.
why() {
	case $1 in
	apply) sed -n 's/^APPLY FAILED: //p' "$2" | tail -n1 ;;
	checkpatch) echo "$(grep -cE '^(ERROR|WARNING|CHECK):' "$2" || true) errors, warnings or checks" ;;
	*)
		# The object make stopped at: gcc's "FILE:LINE:COL: error:".
		grep -m1 -E '^[^ ]+\.[ch]:[0-9]+:[0-9]+: error:' "$2" ||
			tail -n1 "$2" ;;
	esac
}

# apply_all PATCH...: apply each onto $tree, as to_point does.
# shellcheck disable=SC2317 # called through timed
apply_all() {
	local p
	for p in "$@"; do
		"$CI_DIR/2-apply/apply.sh" "$tree" "$p" || return 1
	done
}

for ((k = from; k <= ${#patches[@]}; k++)); do
	d=$results/$(printf '%02d' "$k")
	mkdir -p "$d"
	say "[$k/${#patches[@]}] $sname: $(basename "${patches[$((k - 1))]}")"
	step "$(at "$k")" apply "$d/apply.log" to_point "$k" "$d/apply.log" || break
	step "$(at "$k")" checkpatch "$d/checkpatch.log" \
		"$CI_DIR/2-apply/checkpatch.sh" "$tree" "${patches[$((k - 1))]}" || true
	if [ -n "$distro_cfg" ]; then
		step "$(at "$k")" "objects, Debian's configuration" "$d/build-debian.log" \
			"$CI_DIR/3-build/build-distro.sh" "$tree" \
			"$(build_dir objects-debian)" "$distro_cfg" "${patches[@]}" || true
	fi
	step "$(at "$k")" "objects, the guest's configuration" "$d/build-guest.log" \
		"$CI_DIR/3-build/build.sh" --objects-of "${patches[*]}" "$tree" \
		"$(build_dir objects-guest)" "${default_frags[@]}" || true
	if [ $fail -ne 0 ] && [ "$k" -lt ${#patches[@]} ]; then
		echo "# points $((k + 1)) to ${#patches[@]} not checked: they stand on this one"
		break
	fi
done
# Debian's rt flavour at the last point: the objects again, with its
# configuration (PREEMPT_RT, whose spinlocks sleep).
if [ $fail -eq 0 ] && [ -n "$distro_cfg" ] && [ -f "${distro_cfg/_none_/_rt_}" ]; then
	k=${#patches[@]}
	step "$(at "$k")" "objects, Debian's rt configuration" "$results/$(printf '%02d' "$k")/build-debian-rt.log" \
		"$CI_DIR/3-build/build-distro.sh" "$tree" \
		"$(build_dir objects-debian-rt)" "${distro_cfg/_none_/_rt_}" "${patches[@]}" || true
fi

# The cuts: a distribution drops the optional sets (see above).
for cut in upstream production; do
	[ $fail -eq 0 ] || break
	mapfile -t kept < <(series_cut "$series" "$cut")
	if [ ${#kept[@]} -eq 0 ] || [ ${#kept[@]} -ge ${#patches[@]} ]; then
		continue
	fi
	d=$results/cut-$cut
	mkdir -p "$d"
	where="$sname without its optional test patches (${#kept[@]} of ${#patches[@]})"
	[ "$cut" != upstream ] ||
		where="$sname without its optional vendor and test patches (${#kept[@]} of ${#patches[@]})"
	say "[cut $cut] $sname: ${#kept[@]} of ${#patches[@]} patches"
	reset_tree "$tree"
	step "$where" apply "$d/apply.log" apply_all "${kept[@]}" || continue
	if [ -n "$distro_cfg" ]; then
		step "$where" "objects, Debian's configuration" "$d/build-debian.log" \
			"$CI_DIR/3-build/build-distro.sh" "$tree" \
			"$(build_dir objects-debian)" "$distro_cfg" "${kept[@]}" || true
	fi
	step "$where" "objects, the guest's configuration" "$d/build-guest.log" \
		"$CI_DIR/3-build/build.sh" --objects-of "${kept[*]}" "$tree" \
		"$(build_dir objects-guest)" "${default_frags[@]}" || true
done
reset_tree "$tree"
echo "results: $results"
exit $fail

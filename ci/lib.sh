# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ci/ scripts; sourced, never run.

CI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export REPO_DIR
REPO_DIR=$(dirname "$CI_DIR")
# Caches live outside the repository: unpacked trees, build folders, ccache.
CACHE_DIR=${ZS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswap-series}
# Not depend mode: ccache's key covers the files the compiler reads as
# C (the source and the headers it includes), not a file an assembler
# .incbin pulls in (piggy.S, the compressed kernel; kernel/configs.c).
# In its preprocessor and direct modes ccache sees the .incbin and never
# caches such an object; depend mode skips that scan, and a piggy.o of
# an earlier kernel whose payload had the same length was served, so a
# stale kernel was booted (ci/tests/test-build-cache.sh).
unset CCACHE_DEPEND
export CCACHE_NODEPEND=1
# A cache that depend mode filled serves such an object in direct mode
# too, on a hit: the cache this project used then (ccache/, which can be
# removed) is not used.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache-nodepend}
# The scripts' python3 is Debian's, for which ci/deps.sh installs modules
# (python3-yaml), not one a version manager puts first on PATH: its shim
# also costs a third of a second a call, and a run makes hundreds.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

# Progress goes to stderr so that stdout stays parseable; each line has the
# time of day (UTC), the same clock in every script a job runs, and the
# minutes and seconds since the script that prints it started (bash's
# SECONDS: lib.sh is sourced at its start).
say() {
	printf '[%s +%02d:%02d] %s\n' "$(date -u +%H:%M:%S)" \
		$((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# parse_opts 'SPEC...' ARG...: the one option parser of the scripts. SPEC
# is a list of the options: --NAME (a flag: sets its variable to 1),
# --NAME= (takes a value: sets its variable to it) or --NAME+ (takes a
# value and repeats: appends each to its array); the variable is NAME with
# "-" as "_", or the one named after the sign (--timeout=limit,
# --shell!on for a flag). A word @ in SPEC lets the script take words that
# are no option: they go to the array args, in order ("--" ends the
# options); without it, such a word is refused. -h/--help prints the
# script's header comment and exits 0; an unknown option, or one given
# without its value, dies naming it, before the script does any work.
parse_opts() {
	local _s _o _k _v _words="" _spec=" $1 "
	local -A _kind=() _var=()
	for _s in $1; do
		if [ "$_s" = @ ]; then _words=1; continue; fi
		[[ $_s =~ ^(--[a-z0-9-]+)([=+!]?)([a-z_][a-z0-9_]*)?$ ]] ||
			die "parse_opts: bad spec $_s"
		_o=${BASH_REMATCH[1]} _k=${BASH_REMATCH[2]} _v=${BASH_REMATCH[3]}
		_v=${_v:-${_o#--}}
		_kind[$_o]=${_k:-!} _var[$_o]=${_v//-/_}
	done
	shift
	args=()
	while [ $# -gt 0 ]; do
		_o=$1
		shift
		case $_o in
		-h|--help)
			sed -n '3,/^set -e/{/^#/{s/^# \{0,1\}//;p}}' "$0"
			[[ $_spec != *" --base="* ]] ||
				echo "BASE is a base of ci/bases: ${ZS_BASES// /, } (PATH: a kernel tree of your own)."
			exit 0 ;;
		--) [ -z "$_words" ] || args+=("$@"); [ $# -eq 0 ] || [ -n "$_words" ] ||
			die "$1: not an option (see --help)"; break ;;
		-*)
			[ -n "${_kind[$_o]:-}" ] || die "unknown option $_o (see --help)"
			_v=${_var[$_o]}
			case ${_kind[$_o]} in
			!) printf -v "$_v" 1; continue ;;
			esac
			[ $# -gt 0 ] || die "$_o needs a value (see --help)"
			if [ "${_kind[$_o]}" = + ]; then
				eval "$_v+=(\"\$1\")"
			else
				printf -v "$_v" '%s' "$1"
			fi
			shift ;;
		*)
			[ -n "$_words" ] || die "$_o: not an option (see --help)"
			args+=("$_o") ;;
		esac
	done
}

# Checks of the values given on a command line, each run before anything
# is installed, fetched, unpacked, checked out or built: each dies naming
# the option (OPT, e.g. --runs) and what is wrong with VALUE.

# The bases are the lines of ci/bases (the one place a base is described).
# A script resolves its base once, at its start (row=$(base_row "$base"),
# after check_base), and passes that line on; every later question about
# the base is base_get "$row" FIELD or base_has "$row" CHECK.
base_fields=(name kver package suites config series tests standins checks)

# base_row BASE: the line of ci/bases for BASE (one check_base takes): the
# line of that name, or for a kernel tree of your own the line whose kver
# pattern its top Makefile's version matches (a pattern of its own first,
# the catch-all "*" last). Fails where none does.
base_row() {
	local kver=""
	[[ " $ZS_BASES " == *" $1 "* ]] || kver=$(makefile_kver <"$1/Makefile") || return 1
	awk -v name="$1" -v kver="$kver" '
	/^#/ || NF == 0 { next }
	{ row[++n] = $0 }
	END {
		for (r = 1; r <= n; r++) {
			split(row[r], v)
			if (kver == "" && v[1] == name) { print row[r]; exit }
		}
		if (kver == "") exit 1
		for (r = 1; r <= n; r++) {
			split(row[r], v)
			pat = v[2]; gsub(/[.]/, "[.]", pat); gsub(/[*]/, ".*", pat)
			if (v[2] != "*" && kver ~ "^" pat "$") { print row[r]; exit }
		}
		for (r = 1; r <= n; r++) {
			split(row[r], v)
			if (v[2] == "*") { print row[r]; exit }
		}
		exit 1
	}' "$CI_DIR/bases"
}

# base_get ROW FIELD: FIELD (one of base_fields) of ROW, a line of
# base_row; empty for "-". A series (series, tests, standins) is given as
# the path of its file.
base_get() {
	local i vals
	read -ra vals <<<"$1"
	for i in "${!base_fields[@]}"; do
		[ "${base_fields[i]}" = "$2" ] || continue
		case ${vals[i]:--},$2 in
		-,*) ;;
		*,series|*,tests|*,standins) echo "$REPO_DIR/${vals[i]}" ;;
		*) echo "${vals[i]}" ;;
		esac
		return 0
	done
	die "base_get: no field $2"
}

# The bases known by name (ci/bases); any other base is a kernel tree's
# path.
ZS_BASES=$(awk '!/^#/ && NF { printf "%s%s", sep, $1; sep = " " }' "$CI_DIR/bases")

# The default base: the first of ci/bases.
# shellcheck disable=SC2034 # used by the scripts that source this file
ZS_DEFAULT_BASE=${ZS_BASES%% *}

# base_has ROW CHECK: CHECK is among the checks of ROW (ci/bases).
base_has() {
	[[ ",$(base_get "$1" checks)," == *",$2,"* ]]
}

# bases_with CHECK: the bases of ci/bases that have CHECK, one a line.
bases_with() {
	local b
	for b in $ZS_BASES; do
		! base_has "$(base_row "$b")" "$1" || echo "$b"
	done
}

# set_env PREFIX: set the variables of the NAME=VALUE lines on stdin, a
# step's output (ci/1-tree/tree.sh's ZS_*, b4state.py's st_*): each value is
# the rest of its line, taken as it is, never run; a name without PREFIX
# is refused.
set_env() {
	local line k
	while IFS= read -r line; do
		k=${line%%=*}
		[[ $k == "$1"* && $k =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] ||
			die "set_env: '$line' is no $1* variable"
		printf -v "$k" '%s' "${line#*=}"
	done
}

# check_base OPT VALUE: one of ZS_BASES, or the path of a kernel tree (a
# Makefile and mm/ there).
check_base() {
	[[ -z $2 || " $ZS_BASES " != *" $2 "* ]] || return 0
	[ -f "$2/Makefile" ] && [ -d "$2/mm" ] && return 0
	# A series named where a base goes (--series takes it).
	[ -z "$2" ] || [[ $2 == */* ]] || [ ! -f "$REPO_DIR/patches/$2/series" ] ||
		die "$1 $2: that is a series, not a base: give --series $2"
	local why="there is no such file or folder"
	[ ! -e "$2" ] || why="it has no Makefile and mm/"
	die "$1 '$2': no such base: give ${ZS_BASES// /, } or the path of a kernel tree ($why)"
}

# check_count OPT VALUE: a whole number above 0.
check_count() {
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 '$2': not a whole number above 0"
}

# check_choice OPT VALUE WORD...: VALUE is one of the WORDs.
check_choice() {
	local opt=$1 v=$2 w
	shift 2
	for w in "$@"; do [ "$v" != "$w" ] || return 0; done
	die "$opt '$v': not one of $*"
}

# check_words OPT LIST WORD...: LIST is one or more of the WORDs, comma-
# separated.
check_words() {
	local opt=$1 list=$2 w items
	shift 2
	[[ -n $list && $list != ,* && $list != *, && $list != *,,* ]] ||
		die "$opt '$list': not a comma-separated list of $(IFS=,; echo "$*")"
	IFS=, read -ra items <<<"$list"
	for w in "${items[@]}"; do
		[[ " $* " == *" $w "* && $w != *" "* ]] ||
			die "$opt '$list': $w is none of $(IFS=,; echo "$*")"
	done
}

# check_file OPT PATH: an existing file.
check_file() {
	[ -f "$2" ] || die "$1 '$2': no such file"
}

# check_outdir OPT PATH [VALUE]: PATH is a folder that can be made or
# written in: not an existing file, nor under one. VALUE is what OPT was
# given, if not PATH (a file to be written in the folder PATH).
check_outdir() {
	local d=$2 v=${3:-$2}
	[ -n "$d" ] || die "$1: an empty path"
	while [ ! -e "$d" ]; do d=$(dirname "$d"); done
	[ -d "$d" ] || die "$1 '$v': $d is a file, not a folder"
	[ -w "$d" ] || die "$1 '$v': $d is not writable"
}

# check_series OPT FILE: a series file whose patches are all there
# (load_series, in a subshell: the caller's patches stay as they are).
check_series() {
	local why
	check_file "$1" "$2"
	why=$(load_series "$2" 2>&1 >/dev/null) || true
	[ -z "$why" ] || die "$1 '$2': ${why#error: }"
}

# The kconfig fragments of the test kernel's default configuration, in
# merge order (ci/jobs/run-series.sh; ci/jobs/bisect.sh builds in the same
# folder).
# shellcheck disable=SC2034 # used by the scripts that source this file
default_frags=("$REPO_DIR/configs/guest.config" "$REPO_DIR/configs/swap.config"
	"$REPO_DIR/configs/faultinject.config" "$REPO_DIR/configs/kunit.config")

# makefile_kver: the kernel version that the top Makefile on stdin names
# (6.12.118, 7.3.0-rc7), as make kernelversion prints it.
makefile_kver() {
	awk -F' *= *' 'seen[$1]++ { next }
	$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
	END { printf "%s%s%s%s\n", v, p != "" ? "." p : "", p != "" && s != "" ? "." s : "", e }'
}

# keep_newest DIR N: remove all but the N entries of DIR used last, by
# their access time (a cache's bound; its users touch an entry, or touch -a
# it where its modification time must stay, when they use it).
keep_newest() {
	find "$1" -mindepth 1 -maxdepth 1 -printf '%A@ %p\n' | sort -rn |
		tail -n +$(($2 + 1)) | cut -d' ' -f2- | xargs -r rm -rf
}

# load_series FILE: set patches (paths, in order) and patch_dir. Entries
# are relative to patches/ (this repository's series) or to the series
# file's own folder (a series of your own), as QUILT_PATCHES would be.
load_series() {
	local entries p
	[ -f "$1" ] || die "series file $1 not found"
	mapfile -t entries < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1")
	patch_dir=$REPO_DIR/patches
	[ -f "$patch_dir/${entries[0]:-none}" ] || patch_dir=$(dirname "$(realpath "$1")")
	patches=()
	for p in "${entries[@]}"; do
		[ -f "$patch_dir/$p" ] ||
			die "series $1 names $p, which is not in $patch_dir"
		patches+=("$patch_dir/$p")
	done
}

# series_cut FILE upstream|production: the patches of the series FILE
# that are left when a distribution drops its optional sets (the comment
# lines "# optional vendor: ..." and "# optional tests: ..." open them, as
# in patches/v6.12/series): upstream, the upstream set alone; production,
# every set but the tests. One path a line, in order; nothing when FILE
# has no such sets.
series_cut() {
	local file=$1 cut=$2 dir
	dir=$(dirname "$(realpath "$file")")
	grep -q '^#[[:space:]]*optional ' "$file" || return 0
	awk -v cut="$cut" -v dir="$dir" '
		/^#[[:space:]]*optional vendor:/ { if (cut == "upstream") stop = 1 }
		/^#[[:space:]]*optional tests:/ { stop = 1 }
		{ sub(/#.*/, ""); gsub(/[[:space:]]/, "") }
		$0 != "" && !stop { print dir "/" $0 }' "$file"
}

# timed FILE STEP CMD...: run CMD (a command, or a function in this shell)
# and append to FILE a line for ci/timing/timing.py: STEP, its start and end
# (epoch seconds), and the ccache hits and misses of its compilations,
# tab-separated. The counts come from a stats log of CMD's own
# (CCACHE_STATSLOG), so that other jobs' builds do not count. Then, for a
# build (CMD ci/3-build/build.sh, given --objects-out here), the objects
# its folder holds, so that ci/timing/timing.py can tell a whole build;
# empty for other steps. Returns CMD's status.
timed() {
	local file=$1 step=$2 t0 rc=0 slog objs
	shift 2
	slog=$(mktemp)
	objs=$(mktemp)
	t0=$(date +%s)
	if [[ $1 == */3-build/build.sh ]]; then
		set -- "$1" --objects-out "$objs" "${@:2}"
	fi
	CCACHE_STATSLOG=$slog "$@" || rc=$?
	printf '%s\t%s\t%s\t%s\t%s\n' "$step" "$t0" "$(date +%s)" "$(awk '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h++ }
		$1 == "cache_miss" { m++ }
		END { printf "%d\t%d", h, m }' "$slog")" "$(head -c 20 "$objs")" >>"$file"
	rm -f "$slog" "$objs"
	return $rc
}

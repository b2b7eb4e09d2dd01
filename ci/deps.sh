#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what the pipeline needs from Debian's archive, if it is missing.
set -euo pipefail

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	ccache git quilt rsync python3 perl
	qemu-system-x86 busybox-static
	"$@"
)

# One dpkg-query for them all: the scripts run this before each job.
installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${pkgs[@]}" 2>/dev/null |
	awk '$1 == "ii" { printf "%s ", $2 }') " || true
missing=()
for p in "${pkgs[@]}"; do
	[[ $installed == *" $p "* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages: ${missing[*]} (run as root or install them)" >&2
	exit 1
fi
# The test command installs from two chains of stages at once: one apt
# at a time (apt itself would refuse the second, its lock taken).
exec {lock}>"${TMPDIR:-/tmp}/zswap-series-deps.lock"
flock "$lock"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
wait_lock=(-o DPkg::Lock::Timeout=300)
if ! { apt-get "${wait_lock[@]}" update -qq &&
	apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends \
		"${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$log"
	echo "apt-get could not install: ${missing[*]}" >&2
	exit 1
fi
rm -f "$log"

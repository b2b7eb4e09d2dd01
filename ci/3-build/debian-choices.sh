#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own choices for what the series touches, as a kconfig
# fragment to merge over the guest's: zswap and its defaults (zpool,
# compressor, on at boot or not), the zpools and compressors Debian builds,
# the memory controller's cgroup v1 code, and the preemption model. Read
# from Debian's configuration for the kernel (linux-config-X.Y, amd64
# none), never typed by hand. What Debian builds as a module (=m) is built
# in (=y): the guest loads no modules, and Debian's kernel loads those on
# demand (zswap asks for its zpool and compressor by name). What Debian
# leaves unset is written "=n", so that ci/3-build/build.sh checks it
# stuck over the guest's fragments (CONFIG_ZSWAP_DEFAULT_ON: Debian's zswap
# is off until the command line or sysfs turns it on).
#
#   ci/3-build/debian-choices.sh CONFIG.xz > FRAGMENT
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 CONFIG.xz" >&2; exit 2; }
[ -f "$1" ] || { echo "$0: no distribution configuration: $1" >&2; exit 1; }
syms='ZSWAP[A-Z0-9_]*|ZPOOL|ZBUD|Z3FOLD[A-Z_]*|ZSMALLOC|MEMCG|MEMCG_V1'
syms+='|PREEMPT_(NONE|VOLUNTARY|DYNAMIC|RT)|PREEMPT'
syms+='|CRYPTO_(LZO|LZ4|LZ4HC|ZSTD|DEFLATE|842)'
echo "# Debian's choices, from $(basename "$(dirname "$1")")/$(basename "$1")"
xzcat "$1" | grep -E "^(# )?CONFIG_($syms)(=| is not set)" |
	sed -e 's/=m$/=y/' -e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/'

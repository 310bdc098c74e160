#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Fail if a dynamic symbol defined by one of our shared libraries is also
# defined by an installed DPDK library (librte_*.so* and the PMDs). EAL loads
# Debian's librte_common_mlx5 into every process, so a clash would make the
# dynamic linker bind one library's calls to the other's code.
#
# With --map MAP before a library, its dynamic symbols must also be exactly
# the global names of the linker version script MAP: nothing exported that
# the map does not name (a symbol outside every node), no name in the map
# that the library lacks (GNU ld accepts one silently).
#
# usage: check-symbols.sh [--map MAP] <our lib.so> [[--map MAP] <lib.so>]...
# env:   DPDK_LIB_DIRS (default: /usr/lib/x86_64-linux-gnu), searched for
#        librte_*.so* and dpdk/pmds-*/*.so*.
#
# Ignored: linker-generated symbols every library has (_init, _fini, _edata,
# _end, __bss_start) and version-node names (type A), which are not code or
# data.
set -eu
export LC_ALL=C

if [ $# -eq 0 ] || [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
	sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'
	[ $# -eq 0 ] && exit 2
	exit 0
fi

dirs=${DPDK_LIB_DIRS:-/usr/lib/x86_64-linux-gnu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

defined() {
	nm -D --defined-only "$1" 2>/dev/null |
	awk 'NF >= 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	grep -v -x -E '_init|_fini|_edata|_end|__bss_start' | sort -u
}

: > "$tmp/files"
for d in $dirs; do
	for f in "$d"/librte_*.so* "$d"/dpdk/pmds-*/*.so*; do
		[ -f "$f" ] || continue
		# Symlinks point at the same file: read each real file once.
		[ -L "$f" ] && continue
		printf '%s\n' "$f" >> "$tmp/files"
	done
done
ndpdk=$(wc -l < "$tmp/files")
if [ "$ndpdk" -eq 0 ]; then
	echo "no installed DPDK library found under: $dirs" >&2
	exit 1
fi
# One nm for all of them (-A: each line starts with "file:"), then one awk:
# a pipeline of processes per library is some 2000 forks, which take over
# a minute on a loaded machine.
tr '\n' '\0' < "$tmp/files" | xargs -0 nm -D --defined-only -A 2>/dev/null |
awk 'NF >= 3 && $2 != "A" {
	f = $1; sub(/:[^:]*$/, "", f); n = split(f, p, "/")
	s = $3; sub(/@.*/, "", s)
	if (s !~ /^(_init|_fini|_edata|_end|__bss_start)$/) print s, p[n]
}' | sort -k1,1 -u > "$tmp/dpdk.sorted"

# The global names of a version script: the lines between "global:" and
# "local:" of every node, without their ";".
map_globals() {
	awk '/global:/ { g = 1; next } /local:/ { g = 0; next }
	     g && NF { gsub(/[;[:space:]]/, ""); if ($0 != "") print }' "$1" | sort -u
}

status=0
map=""
for lib in "$@"; do
	if [ "$lib" = "--map" ]; then
		map=next
		continue
	fi
	if [ "$map" = "next" ]; then
		map=$lib
		continue
	fi
	if [ ! -f "$lib" ]; then
		echo "missing library: $lib" >&2
		exit 1
	fi
	defined "$lib" > "$tmp/ours"
	if [ -n "$map" ]; then
		map_globals "$map" > "$tmp/map"
		extra=$(comm -23 "$tmp/ours" "$tmp/map" | tr '\n' ' ')
		absent=$(comm -13 "$tmp/ours" "$tmp/map" | tr '\n' ' ')
		if [ -n "$extra" ] || [ -n "$absent" ]; then
			[ -z "$extra" ] ||
				echo "$(basename "$lib"): exported, not in $(basename "$map"): $extra"
			[ -z "$absent" ] ||
				echo "$(basename "$lib"): in $(basename "$map"), not defined: $absent"
			status=1
		else
			echo "$(basename "$lib"): exports exactly the $(wc -l < "$tmp/map") names of $(basename "$map")"
		fi
		map=""
	fi
	nours=$(wc -l < "$tmp/ours")
	if [ "$nours" -eq 0 ]; then
		echo "$lib: no dynamic symbols (not a shared library?)" >&2
		exit 1
	fi
	join "$tmp/ours" "$tmp/dpdk.sorted" > "$tmp/clash" || true
	if [ -s "$tmp/clash" ]; then
		echo "$(basename "$lib"): symbols also defined by installed DPDK:"
		sed 's/^/  /' "$tmp/clash"
		status=1
	else
		echo "$(basename "$lib"): $nours symbols, none defined by the $ndpdk DPDK libraries"
	fi
done
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# The main job, on the software device: set up (packages, hugepages), build,
# then run mlx5-share-demo: a primary publishes flow counter bulks, a direct
# TIR and an RSS TIR; secondaries attach, import them by name and read the
# counters while traffic is injected; each secondary installs a rule for a
# UDP port of its own to one of the primary's TIRs, counting on a published
# counter; a pcap (written with scapy) is replayed into the device and the
# counters, RQs and port are checked against what the file says; then
# everything is withdrawn with the secondaries' acknowledgements, which
# removes their rules.
#
# usage: demo.sh [--check-options] [options]
#   --secondaries N       secondary processes (1..16, default 3)
#   --bulks N             counter bulks of 128 counters (1..16, default 4)
#   --duration MS         counter injection phase (0..600000, default 2000)
#   --pcap FILE           the steering phase's traffic (default: one written
#                         by test/steer/gen_steer_pcap.py for the secondaries)
#   --device NAME         the software device's name (1..31 characters of
#                         A-Z a-z 0-9 _ . -, default mlx5_0)
#   --counter-period MS   the counter snapshot service's period (0..60000,
#                         default 500; 0: off)
#   --hold MS             after the counter phase, wait MS ms (0..3600000) so
#                         that mlx5-share-info can look at the primary
#   --check-options       validate the options only (exit 0 or 2), build nothing
# Options are --name VALUE or --name=VALUE, integers in decimal. The options
# are checked before anything is built or started. Exit status: 0 demo OK,
# 1 a check (or the build) failed, 2 invalid options or input.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

# The demo's option table (app/mlx5-share-demo/demo_options.c checks the same
# ranges; test/demo/demo_options.sh compares the two).
bad() {
	echo "demo.sh: $* (see --help)" >&2
	exit 2
}

check_uint() { # option value min max unit
	local v=$2
	case "$v" in
	'' | *[!0-9]*) bad "--$1: \"$v\" is not an integer in $3..$4${5:+ $5}" ;;
	esac
	# Leading zeros, and more digits than any range has, without overflowing.
	v=${v#"${v%%[!0]*}"}
	[ -n "$v" ] || v=0
	if [ ${#v} -gt 9 ] || [ "$v" -lt "$3" ] || [ "$v" -gt "$4" ]; then
		bad "--$1: \"$2\" is not an integer in $3..$4${5:+ $5}"
	fi
}

check_options() {
	local name val magic ok
	while [ $# -gt 0 ]; do
		case "$1" in
		--?*=*) name=${1%%=*}; name=${name#--}; val=${1#*=}; shift ;;
		--?*)
			name=${1#--}
			case "$name" in
			secondaries | bulks | duration | pcap | device | counter-period | hold) ;;
			*) bad "unknown option \"$1\"" ;;
			esac
			[ $# -ge 2 ] || bad "--$name needs a value"
			val=$2
			shift 2
			;;
		*) bad "unexpected argument \"$1\"" ;;
		esac
		case "$name" in
		secondaries | bulks) check_uint "$name" "$val" 1 16 ;;
		duration) check_uint "$name" "$val" 0 600000 ms ;;
		counter-period) check_uint "$name" "$val" 0 60000 ms ;;
		hold) check_uint "$name" "$val" 0 3600000 ms ;;
		device)
			case "$val" in
			'' | *[!A-Za-z0-9_.-]*) ok=0 ;;
			*) ok=1 ;;
			esac
			if [ "$ok" -eq 0 ] || [ ${#val} -gt 31 ]; then
				bad "--device: \"$val\" is not a name of 1..31 characters of A-Z a-z 0-9 _ . -"
			fi
			;;
		pcap)
			[ -n "$val" ] || bad "--pcap: empty file name"
			[ -f "$val" ] && [ -r "$val" ] || bad "--pcap $val: not a readable file"
			# A pcap or pcapng file (its frames are checked by the demo itself).
			magic=$(od -An -N4 -tx1 "$val" 2>/dev/null | tr -d ' \n')
			case "$magic" in
			d4c3b2a1 | a1b2c3d4 | 4d3cb2a1 | a1b23c4d | 0a0d0d0a) ;;
			*) bad "--pcap $val: not a pcap file" ;;
			esac
			;;
		*) bad "unknown option \"--$name\"" ;;
		esac
	done
}

for a in "$@"; do
	[ "$a" = "--help" ] && { sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
done
if [ "${1:-}" = "--check-options" ]; then
	shift
	check_options "$@"
	exit 0
fi
check_options "$@"
"$top/devtools/setup.sh" --build-dir "$top/build" || exit 1
exec "$top/devtools/run-demo.sh" "$top/build" "$@"

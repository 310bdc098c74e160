#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Run mlx5-share-demo on a software device of its own: start the daemon on a
# private socket, write the traffic of the steering phase with
# test/steer/gen_steer_pcap.py (one UDP port per secondary: 5000 + i, RSS
# for even i, direct for odd i) unless --pcap FILE is given, run the demo
# under `mlx5-swdev run` (it opens rdma:<device> through libibverbs and
# libmlx5) with --no-pci and a unique --file-prefix, then stop the daemon and remove
# every runtime file of the prefix. The options (and the --pcap file) are
# checked first, with mlx5-share-demo --check-options: nothing starts if
# one is invalid. Exit status: 0 demo OK, 1 a check failed, 2 invalid
# options or input.
#
# usage: run-demo.sh BUILD_DIR [demo options, see mlx5-share-demo --help]
set -u

if [ $# -lt 1 ] || [ "$1" = "--help" ]; then
	sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'
	[ $# -ge 1 ]
	exit $((2 * $?))
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
demo="$build/app/mlx5-share-demo/mlx5-share-demo"
daemon="$build/app/mlx5-swdev/mlx5-swdev"
for a in "$@"; do
	[ "$a" = "--help" ] && exec "$demo" --help
done
prefix="mdevx_demo_$$"
sockdir=$(mktemp -d /tmp/mdevx-demo.XXXXXX)
daemon_pid=""

cleanup() {
	pkill -KILL -f -- "--file-prefix=${prefix}" 2>/dev/null
	if [ -n "$daemon_pid" ]; then
		kill -TERM "$daemon_pid" 2>/dev/null
		wait "$daemon_pid" 2>/dev/null
	fi
	rm -rf "$sockdir" /var/run/dpdk/"${prefix}"
	for m in $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts); do
		rm -f "$m/${prefix}"map_* 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every option and the --pcap file are checked before anything starts.
[ -x "$demo" ] || { echo "$demo is not built" >&2; exit 1; }
"$demo" --check-options "$@" || exit $?
[ -x "$daemon" ] || { echo "$daemon is not built" >&2; exit 1; }

# The steering phase's traffic: the ports of the rules the secondaries make.
# The options are valid: the last of each wins, as in the demo.
secondaries=3
pcap=""
device=mlx5_0
prev=""
for a in "$@"; do
	case "$prev" in
	--secondaries) secondaries=$a ;;
	--pcap) pcap=$a ;;
	--device) device=$a ;;
	esac
	case "$a" in
	--secondaries=*) secondaries=${a#*=} ;;
	--pcap=*) pcap=${a#*=} ;;
	--device=*) device=${a#*=} ;;
	esac
	prev=$a
done
secondaries=$((10#$secondaries))
pcap_opt=()
if [ -z "$pcap" ]; then
	rss="" direct=""
	for i in $(seq 0 $((secondaries - 1))); do
		if [ $((i % 2)) -eq 0 ]; then
			rss="$rss${rss:+,}$((5000 + i))"
		else
			direct="$direct${direct:+,}$((5000 + i))"
		fi
	done
	seed=$RANDOM
	gen=(/usr/bin/python3 "$top/test/steer/gen_steer_pcap.py" --seed "$seed"
	     --rss-ports "$rss" --direct-ports "$direct" --out "$sockdir/steer.pcap")
	echo "traffic: ${gen[*]}"
	"${gen[@]}" >/dev/null || { echo "cannot write the pcap (python3-scapy installed?)"; exit 1; }
	pcap_opt=(--pcap "$sockdir/steer.pcap")
fi

# --test-mode: the demo injects traffic, replays the pcap and reads statistics and
# object counts through the control socket.
# It serves the demo's --device.
"$daemon" --socket "$sockdir/swdev.sock" --device "$device" --foreground --log-level warn \
	--test-mode &
daemon_pid=$!
for _ in $(seq 100); do
	[ -S "$sockdir/swdev.sock" ] && break
	sleep 0.05
done
[ -S "$sockdir/swdev.sock" ] || { echo "software device did not start"; exit 1; }
echo "software device $device: pid $daemon_pid, socket $sockdir/swdev.sock"
# Secondaries map memory at the primary's addresses: no address randomisation.
norand=""
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi
# Under `mlx5-swdev run`: the demo opens the device as on a NIC, rdma:<device>
# through libibverbs and libmlx5.
# (The launcher sets SWDEV_SOCKET, which the demo's control channel uses.)
$norand "$daemon" run --socket "$sockdir/swdev.sock" -- \
	"$demo" --no-pci --file-prefix="$prefix" \
	"--lcores=0@(0-$(($(nproc) - 1)))" --log-level=lib.eal:error -- "${pcap_opt[@]}" "$@"

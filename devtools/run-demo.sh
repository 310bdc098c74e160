#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run mlx5-share-demo on a software device of its own: start the daemon on a
# private socket, write the traffic of the steering phase with
# test/steer/gen_steer_pcap.py (one UDP port per secondary: 5000 + i, RSS
# for even i, direct for odd i) unless --pcap FILE is given, run the demo
# with --no-pci and a unique --file-prefix, then stop the daemon and remove
# every runtime file of the prefix.
#
# usage: run-demo.sh BUILD_DIR [demo options, see mlx5-share-demo --help]
set -u

if [ $# -lt 1 ] || [ "$1" = "--help" ]; then
	sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
demo="$build/app/mlx5-share-demo/mlx5-share-demo"
daemon="$build/app/mlx5-swdev/mlx5-swdev"
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

# --test-mode: the demo injects traffic, replays the pcap and reads statistics and
# object counts through the control socket.
"$daemon" --socket "$sockdir/swdev.sock" --device mlx5_0 --foreground --log-level warn \
	--test-mode &
daemon_pid=$!
for _ in $(seq 100); do
	[ -S "$sockdir/swdev.sock" ] && break
	sleep 0.05
done
[ -S "$sockdir/swdev.sock" ] || { echo "software device did not start"; exit 1; }
echo "software device: pid $daemon_pid, socket $sockdir/swdev.sock"

# The steering phase's traffic: the ports of the rules the secondaries make.
secondaries=3
pcap=""
prev=""
for a in "$@"; do
	case "$prev" in
	--secondaries) secondaries=$a ;;
	--pcap) pcap=$a ;;
	esac
	case "$a" in
	--secondaries=*) secondaries=${a#*=} ;;
	--pcap=*) pcap=${a#*=} ;;
	esac
	prev=$a
done
pcap_opt=()
if [ -z "$pcap" ]; then
	case "$secondaries" in
	[1-9] | 1[0-6]) ;;
	*) secondaries=3 ;; # the demo refuses the value itself
	esac
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
# Secondaries map memory at the primary's addresses: no address randomisation.
norand=""
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi
SWDEV_SOCKET="$sockdir/swdev.sock" $norand "$demo" --no-pci --file-prefix="$prefix" \
	"--lcores=0@(0-$(($(nproc) - 1)))" --log-level=lib.eal:error -- "${pcap_opt[@]}" "$@"

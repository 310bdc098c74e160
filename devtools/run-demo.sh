#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run mlx5-share-demo on a software device of its own: start the daemon on a
# private socket, run the demo with --no-pci and a unique --file-prefix,
# then stop the daemon and remove every runtime file of the prefix.
#
# usage: run-demo.sh BUILD_DIR [demo options, see mlx5-share-demo --help]
set -u

if [ $# -lt 1 ] || [ "$1" = "--help" ]; then
	sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
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

# --test-mode: the demo injects traffic and counts objects through the control socket.
"$daemon" --socket "$sockdir/swdev.sock" --device mlx5_0 --foreground --log-level warn \
	--test-mode &
daemon_pid=$!
for _ in $(seq 100); do
	[ -S "$sockdir/swdev.sock" ] && break
	sleep 0.05
done
[ -S "$sockdir/swdev.sock" ] || { echo "software device did not start"; exit 1; }
echo "software device: pid $daemon_pid, socket $sockdir/swdev.sock"
# Secondaries map memory at the primary's addresses: no address randomisation.
norand=""
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi
SWDEV_SOCKET="$sockdir/swdev.sock" $norand "$demo" --no-pci --file-prefix="$prefix" \
	"--lcores=0@(0-$(($(nproc) - 1)))" --log-level=lib.eal:error -- "$@"

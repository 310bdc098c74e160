#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Run one dpdk-test command the way CI must: --no-pci, a --file-prefix of
# its own, an optional software device daemon (in test mode), and cleanup of every runtime
# file of that prefix (and of any process still using it), pass or fail.
#
# usage: run-autotest.sh [--swdev DAEMON [--rdma]] DPDK_TEST_BINARY TEST_NAME [EAL args...]
# --rdma: run the test under `DAEMON run` (the preload library: the daemon's
#         devices as rdma-core devices), so that it opens them as
#         "rdma:<dev>" through libibverbs and libmlx5.
# exit:  the test's code; 77 (skip) when hugepages are not usable.
# env:   SWDEV_ARGS: extra options for the software device daemon.
#        MDEVX_TEST_WRAPPER: a program that runs the test and each process
#        it starts (its arguments: the command), e.g. a profiler's script.
set -u

daemon=""
rdma=0
if [ "${1:-}" = "--swdev" ]; then
	daemon=$2
	shift 2
	if [ "${1:-}" = "--rdma" ]; then
		rdma=1
		shift
	fi
fi
if [ $# -lt 2 ] || [ "${1:-}" = "--help" ] || { [ $rdma -eq 1 ] && [ -z "$daemon" ]; }; then
	sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
bin=$1
name=$2
shift 2

prefix="mdevx_${name}_$$"
sockdir=""
daemon_pid=""

hugetlbfs_mounts() {
	awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts
}

cleanup() {
	# Secondaries carry our prefix on their command line.
	pkill -KILL -f -- "--file-prefix=${prefix}" 2>/dev/null
	if [ -n "$daemon_pid" ]; then
		kill -TERM "$daemon_pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$daemon_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$daemon_pid" 2>/dev/null
		wait "$daemon_pid" 2>/dev/null
	fi
	[ -n "$sockdir" ] && rm -rf "$sockdir"
	rm -rf /var/run/dpdk/"${prefix}" /var/run/dpdk/"${prefix}"_* 2>/dev/null
	for m in $(hugetlbfs_mounts); do
		rm -f "$m/${prefix}"map_* "$m/${prefix}"_*map_* 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Hugepages: report SKIP with the reason instead of failing or passing.
free_pages=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ -z "$(hugetlbfs_mounts)" ]; then
	echo "SKIP: no hugetlbfs mounted (run devtools/setup-hugepages.sh as root)"
	exit 77
fi
if [ "${free_pages:-0}" -lt 64 ]; then
	echo "SKIP: only ${free_pages:-0} free hugepages (need 64; run devtools/setup-hugepages.sh)"
	exit 77
fi

if [ -n "$daemon" ]; then
	sockdir=$(mktemp -d /tmp/mdevx-swdev.XXXXXX)
	# --test-mode: the tests inject traffic and faults through the control socket.
	"$daemon" --socket "$sockdir/swdev.sock" --device mlx5_0 --device mlx5_1 \
		--foreground --log-level warn --test-mode ${SWDEV_ARGS:-} &
	daemon_pid=$!
	for _ in $(seq 100); do
		[ -S "$sockdir/swdev.sock" ] && break
		sleep 0.05
	done
	if [ ! -S "$sockdir/swdev.sock" ]; then
		echo "FAIL: software device did not start"
		exit 1
	fi
	export SWDEV_SOCKET="$sockdir/swdev.sock"
fi

# Secondaries must map hugepage memory at the primary's addresses; with
# address space randomisation (and ASan's shadow regions) that sometimes
# fails with ENOMEM. DPDK's multi-process guide advises against ASLR: the
# test and everything it starts run without it.
norand=""
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
	norand="setarch $(uname -m) -R"
fi

launcher=""
if [ $rdma -eq 1 ]; then
	launcher="$daemon run --socket $sockdir/swdev.sock --"
fi

DPDK_TEST="$name" $norand $launcher ${MDEVX_TEST_WRAPPER:-} "$bin" --no-pci --file-prefix="$prefix" "--lcores=0@(0-$(($(nproc) - 1)))" \
	--log-level=lib.eal:error "$@"
rc=$?
exit $rc

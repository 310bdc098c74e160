#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Debian's unmodified dpdk-testpmd (DPDK 22.11, net/mlx5 loaded from the
# PMD directory) against mlx5-attach-server on the software device:
# `mlx5 port attach <ident> socket=<path>` must receive the command fd and
# the PD handle and build the devargs ",cmd_fd=<fd>,pd_handle=<handle>".
# The probe then fails (no such device with --no-pci), as expected.
#
# Checked: testpmd's own lines (the devargs it built and failed to attach,
# with the server's PD handle), the descriptor it holds under that number
# (/proc/<pid>/fd/<fd> names the server's command file), the server's log
# (served testpmd's pid) and counts (1 served, nothing refused), testpmd's
# clean quit, and the device left without objects.
#
# usage: run_testpmd_attach.sh SWDEV_DAEMON ATTACH_SERVER
# env:   TESTPMD (default /usr/bin/dpdk-testpmd)
# exit:  0 pass, 1 fail, 77 skip (no testpmd)
set -u

testpmd=${TESTPMD:-/usr/bin/dpdk-testpmd}
if [ $# -ne 2 ]; then
	sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
if [ ! -x "$testpmd" ]; then
	echo "SKIP: $testpmd not found (Debian package dpdk)"
	exit 77
fi
daemon=$1
server=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
export MLX5_SWDEV=$daemon

ident="0000:00:00.0"
prefix="mdevx_testpmd_attach_$$"
dir=$(mktemp -d /tmp/mdevx-testpmd-attach.XXXXXX)
sock=$dir/swdev.sock
asock=$dir/attach.sock
tpid=""
spid=""
failures=0

cleanup() {
	exec 3>&- 2>/dev/null
	for p in $tpid $spid; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -f "$sock.pid" ] && "$top/devtools/swdev-start.sh" stop "$sock" >/dev/null 2>&1
	rm -rf "$dir" /var/run/dpdk/"$prefix"
	for m in $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts); do
		rm -f "$m/${prefix}"map_* 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# Wait up to $2 tenths of a second for pattern $1 in file $3.
wait_for() {
	for _ in $(seq "$2"); do
		grep -q -- "$1" "$3" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

show() {
	echo "---- $1"
	cat "$2"
}

"$top/devtools/swdev-start.sh" start "$sock" --device mlx5_0 --log-level warn \
	--test-mode >/dev/null || { echo "FAIL: software device did not start"; exit 1; }

# The server opens the device as on a NIC (rdma:mlx5_0, libmlx5 under the
# launcher); testpmd only holds the descriptor it receives.
"$daemon" run --socket "$sock" -- "$server" --device rdma:mlx5_0 --socket "$asock" --count 1 \
	>"$dir/server.out" 2>"$dir/server.err" &
spid=$!
if ! wait_for "^serving " 100 "$dir/server.out"; then
	show "server stdout" "$dir/server.out"
	show "server stderr" "$dir/server.err"
	echo "FAIL: mlx5-attach-server did not start"
	exit 1
fi
line=$(grep "^serving " "$dir/server.out")
handle=$(sed -n 's/.* pd_handle=\([0-9]*\) .*/\1/p' <<<"$line")
cmdfile=$(sed -n 's/.* command file=\(.*\)$/\1/p' <<<"$line")
echo "server: $line"
if [ -z "$handle" ] || [ -z "$cmdfile" ]; then
	echo "FAIL: no pd_handle or command file in the server's line"
	exit 1
fi

# testpmd reads its commands from a fifo, so that it can be looked at
# between the attach and the quit. --no-pci: no real device is touched;
# --no-huge and few mbufs: no hugepage needed; two lcores (testpmd wants a
# forwarding one) on whatever CPUs there are.
mkfifo "$dir/in"
cpus="0-$(($(nproc) - 1))"
"$testpmd" --no-pci --no-huge -m 256 --file-prefix="$prefix" --no-telemetry \
	"--lcores=0@($cpus),1@($cpus)" --log-level=testpmd:debug -- \
	-i --total-num-mbufs=2048 <"$dir/in" >"$dir/testpmd.out" 2>&1 &
tpid=$!
exec 3>"$dir/in"
echo "mlx5 port attach $ident socket=$asock" >&3

if ! wait_for "Failed to attach port" 600 "$dir/testpmd.out"; then
	show "testpmd" "$dir/testpmd.out"
	show "server stderr" "$dir/server.err"
	echo "FAIL: testpmd did not report the attach"
	exit 1
fi
want="$ident,cmd_fd=[0-9]*,pd_handle=$handle\$"
grep -q "testpmd: Failed to attach port $want" "$dir/testpmd.out" ||
	fail "testpmd did not build devargs with pd_handle=$handle"
grep -q "testpmd: Attach port with extra devargs $want" "$dir/testpmd.out" ||
	fail "no 'Attach port with extra devargs' line with pd_handle=$handle"
grep -q "EAL: Cannot find device ($ident)" "$dir/testpmd.out" ||
	fail "the probe did not fail for want of the device"
fd=$(sed -n "s/.*Failed to attach port $ident,cmd_fd=\([0-9]*\),pd_handle=.*/\1/p" \
	"$dir/testpmd.out" | head -1)
if [ -n "$fd" ]; then
	held=$(readlink "/proc/$tpid/fd/$fd" 2>/dev/null)
	echo "testpmd: fd $fd -> $held (server's command file: $cmdfile)"
	[ "$held" = "$cmdfile" ] ||
		fail "testpmd's fd $fd is '$held', not the server's command file $cmdfile"
else
	fail "no cmd_fd in testpmd's devargs"
fi

# --count 1: the server stops once it served testpmd.
for _ in $(seq 100); do
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$spid" 2>/dev/null; then
	fail "the server still runs after serving testpmd"
else
	wait "$spid"
	rc=$?
	spid=""
	[ "$rc" -eq 0 ] || fail "the server exited with $rc"
fi
grep -q "served pid $tpid uid [0-9]*: command fd and pd_handle=$handle" "$dir/server.err" ||
	fail "the server's log does not show testpmd (pid $tpid) served"
grep -q "^served 1, bad requests 0, timeouts 0, hangups 0, errors 0$" "$dir/server.out" ||
	fail "the server's counts are not 1 served, nothing refused"
[ ! -e "$asock" ] || fail "the server left its socket file"

echo "quit" >&3
exec 3>&-
for _ in $(seq 300); do
	kill -0 "$tpid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$tpid" 2>/dev/null; then
	fail "testpmd did not quit"
else
	wait "$tpid"
	rc=$?
	tpid=""
	[ "$rc" -eq 0 ] || fail "testpmd exited with $rc"
fi

# Both holders of the file are gone: nothing left on the device.
total=""
for _ in $(seq 50); do
	total=$("$daemon" --ctl "$sock" counts mlx5_0 | sed -n 's/^total=//p')
	[ "$total" = "0" ] && break
	sleep 0.1
done
[ "$total" = "0" ] || fail "$total objects left on the device"

if [ "$failures" -ne 0 ]; then
	show "testpmd" "$dir/testpmd.out"
	show "server stdout" "$dir/server.out"
	show "server stderr" "$dir/server.err"
	exit 1
fi
echo "PASS: testpmd received the command fd and built $ident,cmd_fd=$fd,pd_handle=$handle"
exit 0

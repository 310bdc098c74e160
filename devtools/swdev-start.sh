#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Start or stop a software mlx5 device daemon (mlx5-swdev) in the background.
#
#   swdev-start.sh start SOCKET [daemon options...]
#       start the daemon on SOCKET, return once it accepts connections,
#       print its pid; the pid file is SOCKET.pid
#   swdev-start.sh stop SOCKET
#       SIGTERM the daemon of SOCKET, wait until it is gone (SIGKILL after 5 s)
#   swdev-start.sh status SOCKET
#       exit 0 if a live daemon answers on SOCKET
#
# The daemon binary: $MLX5_SWDEV, else mlx5-swdev from PATH, else the one in
# a build directory next to this script (build*/app/mlx5-swdev/mlx5-swdev).
# Tests that inject traffic or faults pass --test-mode. Example:
#   pid=$(devtools/swdev-start.sh start /tmp/s.sock --test-mode --device mlx5_0)
#   SWDEV_SOCKET=/tmp/s.sock ./my-test
#   devtools/swdev-start.sh stop /tmp/s.sock
set -eu

usage() {
	sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

find_daemon() {
	if [ -n "${MLX5_SWDEV:-}" ]; then
		echo "$MLX5_SWDEV"
		return
	fi
	if command -v mlx5-swdev >/dev/null 2>&1; then
		command -v mlx5-swdev
		return
	fi
	top=$(cd "$(dirname "$0")/.." && pwd)
	for b in "$top"/build*/app/mlx5-swdev/mlx5-swdev; do
		if [ -x "$b" ]; then
			echo "$b"
			return
		fi
	done
	echo "swdev-start.sh: mlx5-swdev not found (set MLX5_SWDEV)" >&2
	exit 1
}

[ $# -ge 2 ] || usage
cmd=$1
sock=$2
shift 2
daemon=$(find_daemon)
pidfile="$sock.pid"

case "$cmd" in
start)
	# --daemon returns only once the socket accepts (or the start failed).
	"$daemon" --socket "$sock" --daemon --pidfile "$pidfile" "$@"
	"$daemon" --socket "$sock" --ping
	cat "$pidfile"
	;;
stop)
	if [ ! -f "$pidfile" ]; then
		echo "swdev-start.sh: no $pidfile" >&2
		exit 1
	fi
	pid=$(cat "$pidfile")
	kill -TERM "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 500 ]; then
			echo "swdev-start.sh: $pid ignored SIGTERM, killing" >&2
			kill -KILL "$pid" 2>/dev/null || true
			rm -f "$pidfile" "$sock" "$sock.ctl" "$sock.lock"
			exit 1
		fi
		sleep 0.01
	done
	;;
status)
	exec "$daemon" --socket "$sock" --ping
	;;
*)
	usage
	;;
esac

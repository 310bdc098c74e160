#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Run a program nobody here wrote against a software device: start a daemon
# of its own (test mode, devices mlx5_0 and mlx5_1), run the program under
# the launcher (`mlx5-swdev run`), stop the daemon, pass or fail.
#
# usage: run-client.sh MLX5_SWDEV CMD [ARGS...]
# env:   SWDEV_ARGS: more options for the daemon (e.g. limits).
# env for CMD: SWDEV_TEST_SOCKET (the daemon's socket, for --ctl) and
#              SWDEV_TEST_DAEMON (the mlx5-swdev binary), besides what the
#              launcher sets.
# exit:  CMD's code (77 = skipped, with CMD's reason); 1 if the daemon did
#        not start.
set -u

if [ $# -lt 2 ]; then
	sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
daemon=$1
shift

sockdir=$(mktemp -d /tmp/mdevx-uverbs-client.XXXXXX)
sock="$sockdir/swdev.sock"
pidfile="$sockdir/swdev.pid"

cleanup() {
	local pid
	pid=$(cat "$pidfile" 2>/dev/null)
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -rf "$sockdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --daemon returns once the socket accepts: no polling.
# SWDEV_ARGS: more daemon options (limits).
if ! "$daemon" --socket "$sock" --device mlx5_0 --device mlx5_1 --daemon ${SWDEV_ARGS:-} \
		--pidfile "$pidfile" --log-level warn --test-mode; then
	echo "FAIL: the software device did not start"
	exit 1
fi

SWDEV_TEST_SOCKET=$sock SWDEV_TEST_DAEMON=$daemon "$daemon" run --socket "$sock" -- "$@"

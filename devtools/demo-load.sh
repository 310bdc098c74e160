#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# The demo at its maximum (16 secondaries, 16 bulks) run N times in a row
# while a parallel build of this tree (ninja -j JOBS, from clean, again and
# again) keeps every CPU busy: the demo synchronises by handshake, so it
# must pass every time however loaded the machine is. Builds nothing in
# BUILD_DIR: run `ninja -C BUILD_DIR` first. One line per run, then
# "demo-load: N of N runs OK"; exit 0 only when every run is OK.
#
# usage: demo-load.sh [--build-dir DIR] [--runs N] [--jobs J]
#   --build-dir DIR  build directory of the demo (default: build)
#   --runs N         demo runs, 1..100 (default 10)
#   --jobs J         the load's ninja jobs, 1..64 (default: twice the CPUs)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir="$top/build"
runs=10
jobs=$((2 * $(nproc)))

usage() {
	sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'
}

number() { # option, value, min, max
	case "$2" in
	''|*[!0-9]*) echo "$1: '$2' is not a number ($3..$4)" >&2; exit 2 ;;
	esac
	if [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		echo "$1: $2 is out of range ($3..$4)" >&2
		exit 2
	fi
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir|--runs|--jobs)
		[ $# -ge 2 ] || { echo "$1: needs a value" >&2; usage >&2; exit 2; } ;;
	esac
	case "$1" in
	--build-dir) build_dir=$2; shift 2 ;;
	--runs) number --runs "$2" 1 100; runs=$2; shift 2 ;;
	--jobs) number --jobs "$2" 1 64; jobs=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
done
[ -x "$build_dir/app/mlx5-share-demo/mlx5-share-demo" ] ||
	{ echo "demo-load: $build_dir has no mlx5-share-demo (run ninja -C $build_dir)" >&2; exit 2; }

work=$(mktemp -d /tmp/mdevx-demo-load.XXXXXX)
load_pid=""
cleanup() {
	if [ -n "$load_pid" ]; then
		kill -TERM -- -"$load_pid" 2>/dev/null
		wait "$load_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The load: a build of this tree from clean, over and over, in a process
# group of its own (killed whole at the end).
set -m
(
	meson setup "$work/load" "$top" -Dtests=false -Dfuzz=disabled >/dev/null 2>&1 || exit 1
	while :; do
		ninja -C "$work/load" -t clean >/dev/null 2>&1
		ninja -C "$work/load" -j "$jobs" >/dev/null 2>&1
	done
) &
load_pid=$!
set +m
# The load is running once its first compiler is.
for _ in $(seq 1 600); do
	pgrep -g "$load_pid" -f 'cc1|ninja' >/dev/null && break
	sleep 0.1
done

ok=0
for i in $(seq 1 "$runs"); do
	t0=$(date +%s.%N)
	"$top/devtools/run-demo.sh" "$build_dir" --secondaries 16 --bulks 16 --duration 1000 \
		> "$work/run.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	read -r load1 _ < /proc/loadavg
	if [ "$rc" -eq 0 ] && grep -q '^demo OK' "$work/run.log"; then
		ok=$((ok + 1))
		result="demo OK"
	else
		result="FAILED (exit $rc)"
		sed 's/^/    /' "$work/run.log" | tail -40
	fi
	printf 'run %d/%d: %s in %.1f s, load average %s\n' "$i" "$runs" "$result" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$load1"
done
echo "demo-load: $ok of $runs runs OK (16 secondaries x 16 bulks, ninja -j $jobs beside)"
[ "$ok" -eq "$runs" ]

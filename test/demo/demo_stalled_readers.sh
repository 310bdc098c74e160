#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# The demo on a machine too busy for its secondaries: every secondary is
# stopped (SIGSTOP) once the injection phase starts, for longer than the
# phase, then continued. The primary waits for each secondary's answer to
# every round, so the demo must still end with "demo OK" and every round
# read alike; a demo that gave its readers a fixed time would compare stale
# readings.
#
# usage: demo_stalled_readers.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
out=$(mktemp /tmp/mdevx-demo-stall.XXXXXX)
duration=1000
stall=2	# seconds: longer than the injection phase and its margin

bash "$top/devtools/run-demo.sh" "$build" --secondaries 4 --bulks 4 --duration "$duration" \
	>"$out" 2>&1 &
run=$!
trap 'kill -CONT $pids 2>/dev/null; rm -f "$out"' EXIT
pids=""
# The injection starts when the primary printed this line.
for _ in $(seq 1200); do
	grep -q "injecting traffic" "$out" && break
	kill -0 "$run" 2>/dev/null || break
	sleep 0.1
done
pids=$(pgrep -f -- "--file-prefix=mdevx_demo_${run} .*--reader" | tr '\n' ' ')
if [ -z "$pids" ]; then
	cat "$out"
	echo "FAIL: no secondary of the demo found"
	exit 1
fi
kill -STOP $pids
echo "stopped the secondaries ($pids) for $stall s"
sleep "$stall"
kill -CONT $pids
wait "$run"
rc=$?
cat "$out"
fails=0
[ "$rc" -eq 0 ] || { echo "FAIL: the demo exited $rc"; fails=1; }
grep -q "^demo OK" "$out" || { echo "FAIL: no demo OK"; fails=1; }
grep -q "read alike by every process in every round" "$out" ||
	{ echo "FAIL: the counters were not read alike"; fails=1; }
[ "$fails" -eq 0 ] && echo "stalled secondaries: demo OK"
exit "$fails"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Set up, build and run every test of the project:
#   1. the default build: all meson test suites (fast-tests, emu, perf-tests...);
#      fast-tests include the install test (devtools/test-install.sh: a
#      -Dtests=false build installed into a temporary prefix, clients built
#      against it with pkg-config alone);
#   2. an ASan/UBSan build, then a ThreadSanitizer build: the fast-tests and
#      emu suites in each (test/tsan.supp lists TSan's known false positives);
#   3. the 16x16 demo 10 times in a row beside a parallel build
#      (devtools/demo-load.sh);
#   4. build checks: a build against the rdma-core 63 stand-in header in
#      test/rdma-core-63, which must load on the installed rdma-core and
#      choose the export path it allows (test rdma_export_path), and a short
#      libFuzzer run when clang is available.
# Ends with one line "Summary: N passed, N failed, N skipped".
#
# usage: test.sh [--quick]   (--quick: only step 1)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
quick=0
[ "${1:-}" = "--quick" ] && quick=1
[ "${1:-}" = "--help" ] && { sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }

passed=0 failed=0 skipped=0
# The runtime directories of DPDK instances that exist before the run (other
# work on the machine, a run killed earlier) are not this run's to answer for.
runtime_before=$(ls /var/run/dpdk 2>/dev/null | grep '^mdevx_' || true)

count_meson() { # build dir
	local log="$1/meson-logs/testlog.json" p f s
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	read -r p f s < <(python3 -c '
import json, sys
n = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    n["OK" if r == "OK" else "SKIP" if r in ("SKIP", "EXPECTEDFAIL") else "FAIL"] += 1
print(n["OK"], n["FAIL"], n["SKIP"])' "$log")
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
}

step() { # name, command...
	local name=$1
	shift
	echo "== $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		echo "!! $name failed"
		failed=$((failed + 1))
	fi
}

"$top/devtools/setup.sh" --build-dir "$top/build" || exit 1
echo "== meson test (build)"
meson test -C "$top/build" --print-errorlogs --num-processes 1
count_meson "$top/build"
echo "== measured by mlx5_devx_share_perf_autotest"
grep -E '^perf:' "$top/build/meson-logs/testlog.txt" || true
# Benchmarks print their side-by-side ratios; they assert nothing.
echo "== meson test --benchmark (build)"
if meson test -C "$top/build" --benchmark --num-processes 1 >/dev/null 2>&1; then
	grep -E '^(\(|swdev-bench:|steer-bench:)' "$top/build/meson-logs/testlog.txt" | head -40
else
	echo "!! the benchmark failed: $top/build/meson-logs/testlog.txt"
	failed=$((failed + 1))
fi
# The import path in instructions (repeatable where times are not).
echo "== devtools/callgrind-import.sh (build)"
if ! "$top/devtools/callgrind-import.sh" --build-dir "$top/build"; then
	echo "!! callgrind-import.sh failed"
	failed=$((failed + 1))
fi

if [ "$quick" -eq 0 ]; then
	"$top/devtools/setup.sh" --build-dir "$top/build-san" --sanitize || exit 1
	echo "== meson test (build-san: ASan/UBSan) fast-tests emu"
	suites="--suite fast-tests"
	if meson test -C "$top/build-san" --list 2>/dev/null | grep -q ':emu / '; then
		suites="$suites --suite emu"
	fi
	# A UBSan report fails the test (the default only prints and goes on).
	# shellcheck disable=SC2086
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C "$top/build-san" --print-errorlogs --num-processes 1 $suites
	count_meson "$top/build-san"

	# Data races between the application's threads and EAL's IPC thread
	# (the withdrawal handler); a report in any process fails its test.
	"$top/devtools/setup.sh" --build-dir "$top/build-tsan" --tsan || exit 1
	echo "== meson test (build-tsan: ThreadSanitizer) fast-tests emu"
	# shellcheck disable=SC2086
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/test/tsan.supp" \
		meson test -C "$top/build-tsan" --print-errorlogs --num-processes 1 $suites
	count_meson "$top/build-tsan"

	# The demo at its maximum, again and again, beside a parallel build.
	step "devtools/demo-load.sh: the 16x16 demo 10 times under a parallel build" \
		"$top/devtools/demo-load.sh" --build-dir "$top/build" --runs 10
	if [ -f "$top/test/rdma-core-63/infiniband/mlx5dv.h" ]; then
		# One binary for every rdma-core: built with the rdma-core 63
		# declarations, it loads here and picks the path libmlx5 allows
		# (the compatibility path on rdma-core < 63).
		step "rdma-core 63 stand-in build loads and runs on the installed rdma-core" bash -c "
			rm -rf '$top/build-rdma63' &&
			meson setup '$top/build-rdma63' '$top' -Drdma_core_stub_dir='$top/test/rdma-core-63' \
				>/dev/null &&
			ninja -C '$top/build-rdma63' >/dev/null &&
			meson test -C '$top/build-rdma63' --print-errorlogs rdma_export_path check-symbols"
	fi
	if [ -x "$top/devtools/fuzz-long.sh" ] && command -v clang >/dev/null; then
		step "libFuzzer run of every fuzz target (${FUZZ_SECONDS:-15} s each)" \
			"$top/devtools/fuzz-long.sh" "${FUZZ_SECONDS:-15}"
	fi
fi

# Left by this run: new since its start, and no live instance (a primary holds
# an fcntl() lock on its config file, as EAL takes it: an instance elsewhere
# on the machine still running keeps its own).
instance_live() {
	[ -e "$1/config" ] && ! python3 -c '
import fcntl, sys
with open(sys.argv[1], "rb+") as f:
    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)' "$1/config" 2>/dev/null
}
leftover=""
for d in $(ls /var/run/dpdk 2>/dev/null | grep '^mdevx_' || true); do
	printf '%s\n' $runtime_before | grep -qxF "$d" && continue
	instance_live "/var/run/dpdk/$d" && continue
	leftover="$leftover $d"
done
if [ -n "$leftover" ]; then
	echo "!! runtime directories left under /var/run/dpdk:$leftover"
	failed=$((failed + 1))
fi

echo "Summary: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

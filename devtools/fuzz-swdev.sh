#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Fuzz the software device's command decoder with libFuzzer.
#
# usage: devtools/fuzz-swdev.sh [SECONDS] [libFuzzer options...]
#   SECONDS   run time, default 60
# Environment:
#   FUZZ_BUILD_DIR  clang build directory (default: <top>/build-fuzz)
#   FUZZ_CORPUS     corpus directory (default: <build>/fuzz-corpus), seeded
#                   with structured inputs on first use
#   FUZZ_JOBS       parallel libFuzzer workers (default 1)
#
# Builds with CC=clang -Dfuzz=enabled (ASan + UBSan + libFuzzer), runs
# fuzz_swdev_cmd for SECONDS and exits non-zero when libFuzzer finds a crash,
# a leak or undefined behaviour; crash inputs are left in the build
# directory (crash-*, leak-*) and can be replayed with
#   <build>/test/fuzz/fuzz_swdev_cmd <crash-file>
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[ "$#" -gt 0 ] && shift
case "$seconds" in
	''|*[!0-9]*) echo "usage: $0 [SECONDS] [libFuzzer options...]" >&2; exit 2 ;;
esac
build=${FUZZ_BUILD_DIR:-$top/build-fuzz}
corpus=${FUZZ_CORPUS:-$build/fuzz-corpus}
jobs=${FUZZ_JOBS:-1}

command -v clang >/dev/null || { echo "fuzz-swdev: clang not found" >&2; exit 2; }
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$top" -Dfuzz=enabled >/dev/null
fi
ninja -C "$build" test/fuzz/fuzz_swdev_cmd test/fuzz/fuzz_swdev_cmd_standalone >/dev/null

if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
	mkdir -p "$corpus"
	"$build/test/fuzz/fuzz_swdev_cmd_standalone" --emit "$corpus" 2000 --seed 1 >/dev/null
fi

echo "fuzz-swdev: ${seconds}s of libFuzzer, corpus $corpus"
cd "$build"
if [ "$jobs" -gt 1 ]; then
	exec ./test/fuzz/fuzz_swdev_cmd -max_total_time="$seconds" -jobs="$jobs" \
		-workers="$jobs" -max_len=10000 -print_final_stats=1 "$@" "$corpus"
fi
exec ./test/fuzz/fuzz_swdev_cmd -max_total_time="$seconds" -max_len=10000 \
	-print_final_stats=1 "$@" "$corpus"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Run every libFuzzer target for SECONDS each, one after the other, and say
# per target how many inputs it ran, how fast, and whether it crashed.
#
# usage: devtools/fuzz-long.sh [--list] SECONDS [TARGET...]
#   SECONDS  run time of each target (libFuzzer -max_total_time)
#   TARGET   target names (default: every one the build defines: the
#            executables named fuzz_* of the clang build, except the
#            fuzz_*_standalone drivers; a new one is picked up by its name)
#   --list   print the targets and exit
# Environment:
#   FUZZ_BUILD_DIR   clang build (default <top>/build-fuzz; configured with
#                    CC=clang -Dfuzz=enabled when it does not exist)
#   FUZZ_CORPUS_DIR  corpora, one directory per target (default
#                    <build>/fuzz-corpus.d); an empty one is seeded with
#                    <target>_standalone --emit DIR 2000 when that driver
#                    offers --emit and there is no corpus in the source tree
#   FUZZ_ARGS        more libFuzzer options for every target
# Per target, next to its sources (<dir> is its folder, e.g. test/fuzz):
#   <dir>/<target>.options      libFuzzer options, whitespace separated
#                               (# starts a comment)
#   <dir>/corpus/<target>/      seed and regression inputs, read, never written
#   <dir>/<target>.device       the target runs on a software device daemon
#                               with these options, under `mlx5-swdev run`
# Output: one line per target (inputs, exec/s, corpus units added, status);
# a crash, leak, timeout or broken invariant prints the end of libFuzzer's
# report and the reproducer (<build>/fuzz-artifacts/<target>/crash-*), which
# replays with <build>/<dir>/<target> FILE. Full logs: <build>/fuzz-logs/.
# Exit: 0 every target ran clean, 1 a target failed, 2 usage or build error.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; }

list=0
case "${1:-}" in
	--help|-h) usage; exit 0 ;;
	--list) list=1; shift ;;
esac
seconds=${1:-}
if [ "$list" -eq 0 ]; then
	case "$seconds" in
		''|*[!0-9]*|0) usage >&2; exit 2 ;;
	esac
	shift
fi
build=${FUZZ_BUILD_DIR:-$top/build-fuzz}
corpora=${FUZZ_CORPUS_DIR:-$build/fuzz-corpus.d}

command -v clang >/dev/null || { echo "fuzz-long: clang not found" >&2; exit 2; }
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$top" -Dfuzz=enabled >/dev/null ||
		{ echo "fuzz-long: meson setup $build failed" >&2; exit 2; }
fi

# Regenerate after a meson.build change, so that a new target is listed.
ninja -C "$build" build.ninja >/dev/null ||
	{ echo "fuzz-long: meson could not regenerate $build" >&2; exit 2; }

# Every fuzz_* executable of the build, by path, but the standalone drivers.
all_targets() {
	ninja -C "$build" -t targets all 2>/dev/null |
		awk -F': ' '$2 == "c_LINKER" { print $1 }' |
		grep -E '(^|/)fuzz_[A-Za-z0-9_]+$' | grep -v '_standalone$' | sort
}

paths=()
if [ "$#" -eq 0 ]; then
	mapfile -t paths < <(all_targets)
else
	for t in "$@"; do
		p=$(all_targets | grep -E "(^|/)${t##*/}\$" || true)
		[ -n "$p" ] || { echo "fuzz-long: no fuzz target '$t' in $build" >&2; exit 2; }
		paths+=("$p")
	done
fi
[ "${#paths[@]}" -gt 0 ] || { echo "fuzz-long: no fuzz target in $build" >&2; exit 2; }
if [ "$list" -eq 1 ]; then
	printf '%s\n' "${paths[@]##*/}"
	exit 0
fi
# The software device, for the targets that need one (a <target>.device file).
ninja -C "$build" "${paths[@]}" app/mlx5-swdev/mlx5-swdev lib/swdev/uverbs/libswdev_uverbs.so \
	>/dev/null ||
	{ echo "fuzz-long: building ${paths[*]##*/} failed (ninja -C $build)" >&2; exit 2; }

echo "fuzz-long: ${#paths[@]} target(s), ${seconds} s each, build $build"
failed=0
for path in "${paths[@]}"; do
	name=${path##*/}
	srcdir=$top/$(dirname "$path")
	corpus=$corpora/$name
	art=$build/fuzz-artifacts/$name
	log=$build/fuzz-logs/$name.log
	mkdir -p "$corpus" "$art" "$(dirname "$log")"
	seeds=()
	[ -d "$srcdir/corpus/$name" ] && seeds=("$srcdir/corpus/$name")
	if [ "${#seeds[@]}" -eq 0 ] && [ -z "$(ls -A "$corpus")" ] &&
	   ninja -C "$build" "${path}_standalone" >/dev/null 2>&1 &&
	   "$build/${path}_standalone" --help 2>/dev/null | grep -q -- '--emit'; then
		"$build/${path}_standalone" --emit "$corpus" 2000 --seed 1 >/dev/null 2>&1 ||
			echo "fuzz-long: $name: no seed corpus (${name}_standalone --emit failed)"
	fi
	opts=()
	if [ -f "$srcdir/$name.options" ]; then
		read -r -a opts < <(sed 's/#.*//' "$srcdir/$name.options" | tr '\n' ' ')
	fi
	read -r -a extra <<< "${FUZZ_ARGS:-}"
	# <target>.device: the target needs a software device. It runs on a
	# daemon of its own (the file's options, e.g. limits) under
	# `mlx5-swdev run` (test/uverbs_clients/run-client.sh).
	launch=()
	if [ -f "$srcdir/$name.device" ]; then
		launch=(env "SWDEV_ARGS=$(sed 's/#.*//' "$srcdir/$name.device" | tr '\n' ' ')"
			bash "$top/test/uverbs_clients/run-client.sh" "$build/app/mlx5-swdev/mlx5-swdev")
	fi
	before=$(ls "$art" | wc -l)
	"${launch[@]}" "$build/$path" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
		-artifact_prefix="$art/" "${opts[@]}" "${extra[@]}" "$corpus" "${seeds[@]}" \
		>"$log" 2>&1
	rc=$?
	execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
	rate=$(awk '/^stat::average_exec_per_sec:/ { print $2 }' "$log" | tail -1)
	added=$(awk '/^stat::new_units_added:/ { print $2 }' "$log" | tail -1)
	new=$(ls -t "$art" | head -n $(( $(ls "$art" | wc -l) - before )))
	status=ok
	if [ "$rc" -ne 0 ] || [ -n "$new" ]; then
		status="FAILED (exit $rc)"
		failed=$((failed + 1))
	fi
	printf '%-24s %12s inputs %8s exec/s %6s new units  %s\n' "$name" "${execs:-?}" \
		"${rate:-?}" "${added:-?}" "$status"
	if [ "$status" != ok ]; then
		grep -E 'invariant broken|ERROR: |SUMMARY: |runtime error|Test unit written' \
			"$log" | head -8 | sed 's/^/    /'
		for f in $new; do
			echo "    reproducer: $art/$f (replay: $build/$path $art/$f)"
		done
		echo "    log: $log"
	fi
done
echo "fuzz-long: $(( ${#paths[@]} - failed )) of ${#paths[@]} target(s) clean"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Instructions per import: import by name (mdevx_share_import() +
# mdevx_share_unimport()) against a raw import of the same buffer
# (mdevx_obj_import_ref() + mdevx_obj_unimport_ref()), counted by
# valgrind's callgrind in a secondary of mlx5_devx_share_import_cost_autotest
# on the software device through Debian's libmlx5. Instruction counts repeat
# exactly from run to run, where this machine's times swing 2-5x.
#
# usage: callgrind-import.sh [--build-dir DIR] [--reps N]
#   --build-dir DIR  the build to measure (default: build)
#   --reps N         imports per loop (default 2000)
# Both processes run under callgrind (a secondary must see the primary's
# address space layout, which valgrind changes); it takes a few minutes.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
reps=2000
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--help|-h) sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "callgrind-import.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
case "$reps" in
''|*[!0-9]*|0) echo "callgrind-import.sh: --reps: a number from 1 (got '$reps')" >&2; exit 2 ;;
esac
for t in valgrind callgrind_annotate; do
	if ! command -v $t >/dev/null; then
		echo "callgrind-import.sh: $t not found (apt-get install valgrind)" >&2
		exit 2
	fi
done
for f in "$build/app/test/dpdk-test" "$build/app/mlx5-swdev/mlx5-swdev"; do
	if [ ! -x "$f" ]; then
		echo "callgrind-import.sh: $f not built (ninja -C $build)" >&2
		exit 2
	fi
done

out=$(mktemp -d /tmp/mdevx-callgrind.XXXXXX)
trap 'rm -rf "$out"' EXIT
cat > "$out/wrap" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind -q --callgrind-out-file=$out/cg.%p \
	--toggle-collect='time_raw*' --toggle-collect='time_by_name*' "\$@"
WRAP
chmod +x "$out/wrap"

echo "running mlx5_devx_share_import_cost_autotest under callgrind ($reps imports per loop)..."
if ! MDEVX_PERF_REPS=$reps MDEVX_TEST_WRAPPER="$out/wrap" "$top/devtools/run-autotest.sh" \
	--swdev "$build/app/mlx5-swdev/mlx5-swdev" --rdma "$build/app/test/dpdk-test" \
	mlx5_devx_share_import_cost_autotest > "$out/log" 2>&1; then
	tail -20 "$out/log"
	echo "callgrind-import.sh: the test failed" >&2
	exit 1
fi

# Inclusive instructions of a function in a callgrind file (0 if absent).
incl() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v fn="$2" '$0 ~ ":" fn "([.][a-z0-9.]+)? \\[" { gsub(",", "", $1); print $1; exit }'
}
raw=0
name=0
for f in "$out"/cg.*; do
	r=$(incl "$f" time_raw)
	n=$(incl "$f" time_by_name)
	[ -n "$r" ] && [ "$r" -gt 0 ] && raw=$r
	[ -n "$n" ] && [ "$n" -gt 0 ] && name=$n
done
if [ "$raw" -eq 0 ] || [ "$name" -eq 0 ]; then
	echo "callgrind-import.sh: no counts for time_raw / time_by_name" >&2
	exit 1
fi
awk -v r="$raw" -v n="$name" -v k="$reps" 'BEGIN {
	printf "raw import+unimport (mdevx_obj_import_ref)  %10.1f instructions\n", r / k
	printf "import+unimport by name                     %10.1f instructions\n", n / k
	printf "import by name / raw import                 %10.2f x (target <= 2)\n", n / r
}'

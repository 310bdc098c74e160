#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Soak test of libmdevx_share (dpdk-test command mlx5_devx_share_soak) on a
# software device: N secondaries attached to one primary for S seconds while
# it withdraws and republishes counter bulks and TIRs. Builds nothing: run
# `ninja -C BUILD` first. Prints one summary line; exit 0 only with no lost
# acknowledgement, no object left on the device and no failed secondary.
#
# usage: soak-share.sh [--build-dir DIR] [--secondaries N] [--seconds S]
#   --build-dir DIR    build directory (default: build)
#   --secondaries N    secondaries, 1..64 (default 64)
#   --seconds S        duration of the withdrawals (default 60)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir="$top/build"
secondaries=64
seconds=60

usage() {
	sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) [ $# -ge 2 ] || { usage >&2; exit 2; }; build_dir=$2; shift 2 ;;
	--secondaries) [ $# -ge 2 ] || { usage >&2; exit 2; }; secondaries=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || { usage >&2; exit 2; }; seconds=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
done
case "$secondaries" in ''|*[!0-9]*) echo "--secondaries: not a number" >&2; exit 2 ;; esac
case "$seconds" in ''|*[!0-9]*) echo "--seconds: not a number" >&2; exit 2 ;; esac
if [ "$secondaries" -lt 1 ] || [ "$secondaries" -gt 64 ] || [ "$seconds" -lt 1 ]; then
	echo "--secondaries takes 1..64, --seconds at least 1" >&2
	exit 2
fi

dpdk_test="$build_dir/app/test/dpdk-test"
daemon="$build_dir/app/mlx5-swdev/mlx5-swdev"
for f in "$dpdk_test" "$daemon"; do
	if [ ! -x "$f" ]; then
		echo "error: $f is missing (build first: ninja -C $build_dir)" >&2
		exit 1
	fi
done

export MDEVX_SOAK_SECONDARIES=$secondaries
export MDEVX_SOAK_SECONDS=$seconds
export SWDEV_ARGS="--max-handles 262144 ${SWDEV_ARGS:-}"
# The secondaries map the primary's memory, they reserve none: the primary
# takes its 256 MB at startup (no hotplug, whose every allocation waits
# for all the secondaries), as one file per segment list (a few descriptors
# and mappings per secondary instead of one per page).
exec bash "$top/devtools/run-autotest.sh" --swdev "$daemon" --rdma "$dpdk_test" \
	mlx5_devx_share_soak -m 256 --single-file-segments

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Prepare a Debian 12 machine and build the project:
#   - install the distribution packages it needs (as root, with apt-get);
#   - reserve 2 MB hugepages and mount hugetlbfs;
#   - configure and build with meson/ninja.
#
# usage: setup.sh [--build-dir DIR] [--sanitize | --tsan] [--no-build]
#   --sanitize: ASan/UBSan build; --tsan: ThreadSanitizer build
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir="$top/build"
sanitize=0
do_build=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build_dir=$2; shift 2 ;;
	--sanitize) sanitize=1; shift ;;
	--tsan) sanitize=2; shift ;;
	--no-build) do_build=0; shift ;;
	-h|--help) sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
done

packages="build-essential pkgconf meson ninja-build python3-pyelftools
	dpdk dpdk-dev libdpdk-dev libibverbs-dev rdma-core ibverbs-providers
	ibverbs-utils python3-pyverbs
	clang libclang-rt-14-dev llvm procps libpcap-dev python3-scapy pandoc man-db
	valgrind strace"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
		exit 1
	fi
	echo "== installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

echo "== hugepages"
"$top/devtools/setup-hugepages.sh" "${HUGEPAGES:-1024}"

if [ "$do_build" -eq 1 ]; then
	opts=""
	[ "$sanitize" -eq 1 ] && opts="-Db_sanitize=address,undefined -Db_lundef=false"
	[ "$sanitize" -eq 2 ] && opts="-Db_sanitize=thread -Db_lundef=false"
	if [ ! -f "$build_dir/build.ninja" ]; then
		echo "== configuring $build_dir"
		# shellcheck disable=SC2086
		meson setup "$build_dir" "$top" $opts >/dev/null
	fi
	echo "== building $build_dir"
	ninja -C "$build_dir" >/dev/null
fi

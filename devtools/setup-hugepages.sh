#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Reserve 2 MB hugepages and mount hugetlbfs for DPDK (root only).
# usage: setup-hugepages.sh [NUMBER_OF_2MB_PAGES]   (default 1024 = 2 GiB)
set -u

want=${1:-1024}
case "$want" in
''|*[!0-9]*) echo "usage: $0 [NUMBER_OF_2MB_PAGES]" >&2; exit 2 ;;
esac

sysdir=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ ! -d "$sysdir" ]; then
	echo "error: this kernel offers no 2 MB hugepages ($sysdir is missing)" >&2
	exit 1
fi

have=$(cat "$sysdir/nr_hugepages")
if [ "$have" -lt "$want" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: $have hugepages reserved, $want wanted: run as root" >&2
		exit 1
	fi
	echo "$want" > "$sysdir/nr_hugepages"
	have=$(cat "$sysdir/nr_hugepages")
	if [ "$have" -lt "$want" ]; then
		echo "warning: the kernel gave $have of $want hugepages (memory fragmented?)" >&2
	fi
fi

if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: no hugetlbfs mounted: run as root" >&2
		exit 1
	fi
	mkdir -p /dev/hugepages
	if ! mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages; then
		echo "error: cannot mount hugetlbfs on /dev/hugepages" >&2
		exit 1
	fi
fi
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
echo "hugepages: $have reserved, $free free; hugetlbfs at $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts | tr '\n' ' ')"

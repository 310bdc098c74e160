#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Runs test_rdma_export_path with what it should find on this machine:
#   - the rdma-core release: the Debian version of the package holding the
#     libmlx5 the test program loads (epoch and revision dropped: 44.0-2 ->
#     44.0), else the tail of that file's name (libmlx5.so.1.24.44.0 ->
#     44.0);
#   - the path: what the build's rdma_core_compat allows given whether that
#     libmlx5 exports mlx5dv_devx_obj_export and friends at MLX5_1.27;
# and checks that libmdevx refers to none of those calls at link time.
# Then once more on a copy of that libmlx5 named libmlx5.so.1, whose name
# tells no release ("unknown").
#
# usage: run_rdma_export_path.sh <test program> <libmdevx .so> <auto|native|compat>
set -eu
export LC_ALL=C

exe=$1 lib=$2 mode=$3
calls="_mlx5dv_get_export_sizes mlx5dv_devx_obj_export mlx5dv_devx_obj_import
	mlx5dv_devx_obj_unimport"

# No hard reference: the library must load on rdma-core < 63.
for c in $calls; do
	if nm -D --undefined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | grep -qx "$c"; then
		echo "FAIL: $lib refers to $c at link time"
		exit 1
	fi
done

mlx5=$(ldd "$exe" | awk '$1 == "libmlx5.so.1" { print $3 }')
if [ -z "$mlx5" ] || [ ! -e "$mlx5" ]; then
	echo "FAIL: $exe does not load libmlx5.so.1"
	exit 1
fi
real=$(readlink -f "$mlx5")

# The release from the file name: lib<name>.so.1.<ABI>.<release>.
name=$(basename "$real")
from_name=unknown
case "$name" in
libmlx5.so.1.*.[0-9]*) from_name=${name#libmlx5.so.1.*.} ;;
esac

release=$from_name
if command -v dpkg-query >/dev/null; then
	pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1) || pkg=""
	ver=""
	[ -z "$pkg" ] || ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || ver=""
	if [ -n "$ver" ]; then
		ver=${ver#*:}
		release=${ver%%-*}
		echo "rdma-core release $release (package $pkg $ver; file $name)"
	fi
fi
[ "$release" = "$from_name" ] || echo "note: the file name $name tells release $from_name"

# Does that libmlx5 have all four calls at MLX5_1.27?
native=1
for c in $calls; do
	objdump -T "$real" |
		awk 'NF >= 2 && ($(NF - 1) == "MLX5_1.27" || $(NF - 1) == "(MLX5_1.27)") { print $NF }' |
		grep -qx "$c" || native=0
done

case "$mode" in
compat) path=compat ;;
native) if [ $native -eq 1 ]; then path=native; else path=none; fi ;;
*) if [ $native -eq 1 ]; then path=native; else path=compat; fi ;;
esac
echo "rdma_core_compat=$mode, $real has the MLX5_1.27 calls: $native -> expecting $path"
"$exe" "$path" "$release"

# A libmlx5 under its soname only (no release in the name): "unknown".
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$real" "$tmp/libmlx5.so.1"
echo "== the same libmlx5 as $tmp/libmlx5.so.1"
LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$exe" "$path" unknown --resolve-only

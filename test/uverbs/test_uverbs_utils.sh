#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Debian's ibverbs-utils, unmodified, on the software device through the
# launcher: ibv_devices and ibv_devinfo -v list every device of the daemon
# with its GUID, firmware version and an active Ethernet port; the launcher
# fails at once when no daemon answers and removes its sysfs tree.
#
# usage: test_uverbs_utils.sh MLX5_SWDEV
set -u
swdev=$1
command -v ibv_devinfo >/dev/null || { echo "SKIP: ibv_devinfo (ibverbs-utils) missing"; exit 77; }
dir=$(mktemp -d /tmp/uverbs-utils.XXXXXX)
export TMPDIR=$dir
sock=$dir/swdev.sock
fails=0
check() {
	if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
cleanup() {
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

# No daemon: the launcher says so and fails, fast.
start=$(date +%s)
"$swdev" run --socket "$sock" -- true 2>"$dir/err"
rc=$?
check "no daemon: exit 1" '[ $rc -eq 1 ]'
check "no daemon: message" 'grep -q "no daemon answers" "$dir/err"'
check "no daemon: fast" '[ $(( $(date +%s) - start )) -le 2 ]'

"$swdev" --socket "$sock" --device mlx5_0 --device swdev_b --log-level warn &
dpid=$!
for _ in $(seq 100); do "$swdev" --socket "$sock" --ping && break; sleep 0.1; done

out=$("$swdev" run --socket "$sock" -- ibv_devices 2>&1)
rc=$?
echo "$out"
check "ibv_devices exit 0" '[ $rc -eq 0 ]'
check "ibv_devices lists mlx5_0 with its GUID" 'echo "$out" | grep -Eq "^[[:space:]]+mlx5_0[[:space:]]+0002c9[0-9a-f]{10}$"'
check "ibv_devices lists swdev_b" 'echo "$out" | grep -Eq "^[[:space:]]+swdev_b[[:space:]]+0002c9[0-9a-f]{10}$"'
guid=$(echo "$out" | awk '$1 == "mlx5_0" { print $2 }')

out=$("$swdev" run --socket "$sock" -- ibv_devinfo -v -d mlx5_0 2>&1)
rc=$?
echo "$out" | head -12
check "ibv_devinfo exit 0" '[ $rc -eq 0 ]'
check "ibv_devinfo: hca_id" 'echo "$out" | grep -q "^hca_id:	mlx5_0$"'
check "ibv_devinfo: fw_ver" 'echo "$out" | grep -Eq "fw_ver:[[:space:]]+16\.35\.2000$"'
g=$(echo "$guid" | sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/')
check "ibv_devinfo: node_guid = ibv_devices' GUID" 'echo "$out" | grep -Eq "node_guid:[[:space:]]+$g$"'
check "ibv_devinfo: vendor_part_id 4119" 'echo "$out" | grep -Eq "vendor_part_id:[[:space:]]+4119$"'
check "ibv_devinfo: port active" 'echo "$out" | grep -Eq "state:[[:space:]]+PORT_ACTIVE \(4\)$"'
check "ibv_devinfo: Ethernet" 'echo "$out" | grep -Eq "link_layer:[[:space:]]+Ethernet$"'
check "ibv_devinfo -v: num_comp_vectors" 'echo "$out" | grep -Eq "num_comp_vectors:[[:space:]]+4$"'
check "ibv_devinfo -v: a GID" 'echo "$out" | grep -q "GID\[  0\]:.*fe80::"'

out=$("$swdev" run --socket "$sock" -- ibv_devinfo -l 2>&1)
check "ibv_devinfo -l: 2 HCAs" 'echo "$out" | grep -q "^2 HCAs found:"'

# coreutils' stat (statx) and ls (the stat family) see the character device.
out=$("$swdev" run --socket "$sock" -- stat -c '%F %t:%T' /dev/infiniband/uverbs1 2>&1)
check "stat(1): uverbs1 is the character device e7:c1 ($out)" '[ "$out" = "character special file e7:c1" ]'
out=$("$swdev" run --socket "$sock" -- stat -c '%F' /dev/infiniband/uverbs2 2>&1)
check "no uverbs2 with two devices" 'echo "$out" | grep -q "No such file"'

# The command's exit status comes back; the tree is gone afterwards.
"$swdev" run --socket "$sock" -- sh -c 'test -f "$SYSFS_PATH/class/infiniband_verbs/abi_version" && exit 7'
rc=$?
check "exit status of the command" '[ $rc -eq 7 ]'
check "sysfs tree removed" '[ -z "$(ls "$dir" | grep mlx5-swdev-sysfs)" ]'

echo "$fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Debian's ibv_devices and ibv_devinfo -v (ibverbs-utils) on the software
# device, under the launcher (run-client.sh starts a daemon with mlx5_0 and
# mlx5_1): both devices are listed with their GUIDs, and ibv_devinfo shows
# the firmware version, the node GUID of sysfs and an active Ethernet port.
#
# exit: 0 passed, 1 failed, 77 ibverbs-utils is not installed.
set -u

if ! command -v ibv_devices >/dev/null || ! command -v ibv_devinfo >/dev/null; then
	echo "SKIP: ibverbs-utils is not installed (ibv_devices, ibv_devinfo)"
	exit 77
fi
fails=0
check() {	# check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		fails=$((fails + 1))
	fi
}

out=$(ibv_devices 2>&1)
rc=$?
echo "$out"
check "ibv_devices exits 0" [ $rc -eq 0 ]
for d in mlx5_0 mlx5_1; do
	guid=$(echo "$out" | awk -v d="$d" '$1 == d { print $2 }')
	check "ibv_devices lists $d with a 16-digit GUID ($guid)" \
		bash -c "[[ '$guid' =~ ^[0-9a-f]{16}$ ]] && [ '$guid' != 0000000000000000 ]"
	eval "guid_$d=\$guid"
done
check "the two devices have different GUIDs" [ "$guid_mlx5_0" != "$guid_mlx5_1" ]

info=$(ibv_devinfo -v -d mlx5_0 2>&1)
rc=$?
echo "$info"
check "ibv_devinfo -v -d mlx5_0 exits 0" [ $rc -eq 0 ]
field() {	# the value of "NAME: value" in ibv_devinfo's output
	echo "$info" | awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }'
}
check "hca_id mlx5_0" grep -q '^hca_id:[[:space:]]*mlx5_0$' <<<"$info"
fw=$(field fw_ver)
check "a firmware version x.y.z ($fw)" bash -c "[[ '$fw' =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]"
node_guid=$(field node_guid | tr -d ':')
check "node_guid $node_guid is ibv_devices' GUID" [ "$node_guid" = "$guid_mlx5_0" ]
sysfs_guid=$(tr -d ':\n' < "${SYSFS_PATH:-/sys}/class/infiniband/mlx5_0/node_guid" 2>/dev/null)
check "node_guid is sysfs' node_guid ($sysfs_guid)" [ "$node_guid" = "$sysfs_guid" ]
check "sys_image_guid present" bash -c "[ -n '$(field sys_image_guid)' ]"
check "vendor_id 0x02c9 (Mellanox)" [ "$(field vendor_id)" = "0x02c9" ]
check "transport InfiniBand (0), as for every mlx5 device" \
	bash -c "[[ '$(field transport)' == InfiniBand* ]]"
check "phys_port_cnt 1" [ "$(field phys_port_cnt)" = "1" ]
check "port 1 PORT_ACTIVE" grep -q 'state:[[:space:]]*PORT_ACTIVE (4)' <<<"$info"
check "port 1 link_layer Ethernet" grep -q 'link_layer:[[:space:]]*Ethernet' <<<"$info"

# A device the daemon does not have: refused, nothing listed.
ibv_devinfo -d mlx5_9 >/dev/null 2>&1
check "ibv_devinfo -d mlx5_9 fails" [ $? -ne 0 ]

echo "$fails check(s) failed"
[ $fails -eq 0 ]

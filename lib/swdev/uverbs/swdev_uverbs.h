/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: what the launcher (mlx5-swdev run) and the preload
 * library (libswdev_uverbs.so) agree on. See doc/swdev.rst, "Running an
 * existing program on the software device".
 *
 * Environment contract (stable):
 *   SWDEV_SOCKET  main socket of the daemon (the launcher sets it; without
 *                 it the preload uses SWDEV_UVERBS_DEFAULT_SOCKET)
 *   SYSFS_PATH    root of the sysfs tree the launcher built (libibverbs
 *                 honours it too); /dev/infiniband/uverbsN names the
 *                 device of $SYSFS_PATH/class/infiniband_verbs/uverbsN/ibdev
 *   LD_PRELOAD    the launcher prepends the path of libswdev_uverbs.so
 *                 (build tree: lib/swdev/uverbs/libswdev_uverbs.so)
 *   SWDEV_UVERBS_DEBUG  non-empty and not "0": one stderr line per refusal
 *
 * Launcher: mlx5-swdev run [--socket PATH] -- CMD ARGS...
 */
#ifndef SWDEV_UVERBS_H
#define SWDEV_UVERBS_H

#include <stdint.h>
#include <string.h>

/* The kernel's uverbs character devices: major 231, minors from 192. */
#define SWDEV_UVERBS_MAJOR	231u
#define SWDEV_UVERBS_MINOR_BASE	192u
#define SWDEV_UVERBS_MAX_DEVS	16u
#define SWDEV_UVERBS_DEV_DIR	"/dev/infiniband/"
#define SWDEV_UVERBS_PREFIX	"uverbs"

/* What the device reports as itself (a ConnectX-5, PCI 15b3:1017). */
#define SWDEV_UVERBS_PCI_VENDOR		0x15b3u
#define SWDEV_UVERBS_PCI_DEVICE		0x1017u
#define SWDEV_UVERBS_IB_VENDOR		0x02c9u	/* vendor_id of query_device */
#define SWDEV_UVERBS_VENDOR_PART	4119u	/* 0x1017 */
#define SWDEV_UVERBS_HCA_TYPE		"MT4119"
#define SWDEV_UVERBS_FW_MAJOR		16u
#define SWDEV_UVERBS_FW_MINOR		35u
#define SWDEV_UVERBS_FW_SUBMINOR	2000u
#define SWDEV_UVERBS_FW_VER		"16.35.2000"
#define SWDEV_UVERBS_BOARD_ID		"SWDEV_0000000001"
#define SWDEV_UVERBS_NUM_COMP_VECTORS	4u

/*
 * Node GUID of a device (host order), from its name: the Mellanox OUI
 * 00:02:c9 then 40 bits of an FNV-1a hash. System image GUID = node GUID.
 */
static inline uint64_t
swdev_uverbs_node_guid(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i, n = strlen(name);

	for (i = 0; i < n; i++) {
		h ^= (uint8_t)name[i];
		h *= 0x100000001b3ull;
	}
	return (0x0002c9ull << 40) | (h & 0xffffffffffull);
}

#endif /* SWDEV_UVERBS_H */

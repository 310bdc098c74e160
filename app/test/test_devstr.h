/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The device string the libmdevx tests open their device with:
 * "rdma:<dev>". `devtools/run-autotest.sh --rdma` runs the test under
 * `mlx5-swdev run`, so that libmdevx reaches the software device through
 * libibverbs, libmlx5 and the preload library, as a NIC.
 */
#ifndef TEST_DEVSTR_H
#define TEST_DEVSTR_H

#include <stdio.h>
#include <string.h>

/** "rdma:<dev>" for @p dev (a short device name), in a static buffer per name. */
static inline const char *
test_devstr(const char *dev)
{
	static char bufs[4][48];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (bufs[i][0] == '\0') {
			snprintf(bufs[i], sizeof(bufs[i]), "rdma:%s", dev);
			return bufs[i];
		}
		if (strcmp(bufs[i] + 5, dev) == 0)
			return bufs[i];
	}
	return NULL;
}

#endif /* TEST_DEVSTR_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device string the libmdevx tests open their device with: "rdma:<dev>"
 * (`devtools/run-autotest.sh --rdma` runs the test under `mlx5-swdev run`,
 * so that libmdevx's rdma backend reaches the software device through
 * libibverbs, libmlx5 and the preload library), or "swdev:<dev>" (libmdevx's
 * software device backend) when the environment has MDEVX_TEST_BACKEND=swdev.
 */
#ifndef TEST_DEVSTR_H
#define TEST_DEVSTR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** 1 when the tests run on libmdevx's rdma backend. */
static inline int
test_backend_rdma(void)
{
	const char *b = getenv("MDEVX_TEST_BACKEND");

	return b == NULL || strcmp(b, "swdev") != 0;
}

/** "<backend>:<dev>" for @p dev (a short device name), in a static buffer per name. */
static inline const char *
test_devstr(const char *dev)
{
	static char bufs[4][48];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (bufs[i][0] == '\0') {
			snprintf(bufs[i], sizeof(bufs[i]), "%s:%s",
				 test_backend_rdma() ? "rdma" : "swdev", dev);
			return bufs[i];
		}
		if (strcmp(strchr(bufs[i], ':') + 1, dev) == 0)
			return bufs[i];
	}
	return NULL;
}

#endif /* TEST_DEVSTR_H */

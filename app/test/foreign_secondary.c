/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mdevx-test-foreign: a DPDK secondary that does not load libmdevx_share,
 * as a monitoring or capture tool of the instance would be. It joins the
 * instance named by its EAL arguments, prints "ready" and waits for the
 * end of its standard input. For mlx5_devx_share_foreign_autotest.
 * usage: mdevx-test-foreign --proc-type=secondary --file-prefix=P --no-pci [EAL args]
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

int
main(int argc, char **argv)
{
	char buf[64];

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: %s --proc-type=secondary --file-prefix=PREFIX --no-pci "
		       "[EAL args]\n"
		       "Joins the DPDK instance as a secondary that does not load "
		       "libmdevx_share, prints \"ready\", and exits at the end of its "
		       "standard input.\n", argv[0]);
		return 0;
	}
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "mdevx-test-foreign: EAL initialisation failed\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	rte_eal_cleanup();
	return 0;
}

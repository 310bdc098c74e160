/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The assertion of the share unit tests (one program per test file, no
 * DPDK): CHECK() counts, and prints the condition that failed with its
 * place; check_summary() prints the totals and gives the exit status.
 */
#ifndef SHARE_CHECK_H
#define SHARE_CHECK_H

#include <stdio.h>

static unsigned int n_pass, n_fail;

#define CHECK(cond) do {						\
	if (cond) {							\
		n_pass++;						\
	} else {							\
		n_fail++;						\
		printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
	}								\
} while (0)

static inline int
check_summary(void)
{
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail == 0 ? 0 : 1;
}

#endif /* SHARE_CHECK_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The assertion of the unit tests that run without dpdk-test (one program
 * per test file): CHECK() counts, and prints the condition that failed
 * with its place; check_summary() prints the totals and gives the exit
 * status.
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

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

#endif /* UNIT_CHECK_H */

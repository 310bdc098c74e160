/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The assertions of the test programs that run without dpdk-test (one
 * program per test file): CHECK() and CHECK_EQ() count, and print the
 * place and the expression of a failed check on stderr; check_summary()
 * prints the totals and gives the exit status.
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static unsigned int unit_check_passed;
static unsigned int unit_check_failed;

/* Record one check; print file:line and the expression when it fails. */
#define CHECK(expr) do { \
	if (expr) { \
		unit_check_passed++; \
	} else { \
		unit_check_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
	} \
} while (0)

/* Compare two integers and print both values on failure. */
#define CHECK_EQ(a, b) do { \
	unsigned long long va_ = (unsigned long long)(a); \
	unsigned long long vb_ = (unsigned long long)(b); \
	if (va_ == vb_) { \
		unit_check_passed++; \
	} else { \
		unit_check_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s == %s (0x%llx != 0x%llx)\n", \
			__FILE__, __LINE__, #a, #b, va_, vb_); \
	} \
} while (0)

/* Closing line of every test program; exit status 1 if anything failed. */
static inline int
check_summary(void)
{
	printf("%u passed, %u failed\n", unit_check_passed, unit_check_failed);
	return unit_check_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* UNIT_CHECK_H */

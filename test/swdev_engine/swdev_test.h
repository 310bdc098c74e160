/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal assertion helpers for the emu test programs. */
#ifndef SWDEV_TEST_H
#define SWDEV_TEST_H

#include <stdio.h>
#include <stdlib.h>

static unsigned int swdev_test_passed;
static unsigned int swdev_test_failed;

/* Record one check; print file:line and the expression when it fails. */
#define CHECK(expr) do { \
	if (expr) { \
		swdev_test_passed++; \
	} else { \
		swdev_test_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
	} \
} while (0)

/* Compare two integers and print both values on failure. */
#define CHECK_EQ(a, b) do { \
	unsigned long long va_ = (unsigned long long)(a); \
	unsigned long long vb_ = (unsigned long long)(b); \
	if (va_ == vb_) { \
		swdev_test_passed++; \
	} else { \
		swdev_test_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s == %s (0x%llx != 0x%llx)\n", \
			__FILE__, __LINE__, #a, #b, va_, vb_); \
	} \
} while (0)

/* Closing line of every test program; exit status 1 if anything failed. */
static inline int
swdev_test_summary(void)
{
	printf("%u passed, %u failed\n", swdev_test_passed, swdev_test_failed);
	return swdev_test_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* SWDEV_TEST_H */

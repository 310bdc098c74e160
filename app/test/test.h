/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * dpdk-test of this project: test commands registered by name, assertion
 * macros and a suite runner, with DPDK's app/test conventions (names,
 * return codes, output lines). Written for this project: Debian's
 * /usr/bin/dpdk-test cannot take out-of-tree tests.
 */
#ifndef MDEVX_TEST_H
#define MDEVX_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include <rte_common.h>
#include <rte_errno.h>

#define TEST_SUCCESS 0
#define TEST_FAILED (-1)
#define TEST_SKIPPED 77

/* Assertions: print where and why, then fail the enclosing function. */
#define TEST_ASSERT(cond, msg, ...) do {					\
	if (!(cond)) {							\
		printf("TestCase %s() line %d failed: " msg "\n",	\
		       __func__, __LINE__, ##__VA_ARGS__);		\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_EQUAL(a, b, msg, ...) do {				\
	if (!((a) == (b))) {						\
		printf("TestCase %s() line %d failed (%s == %s): " msg "\n", \
		       __func__, __LINE__, #a, #b, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_NOT_EQUAL(a, b, msg, ...) do {			\
	if (!((a) != (b))) {						\
		printf("TestCase %s() line %d failed (%s != %s): " msg "\n", \
		       __func__, __LINE__, #a, #b, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_SUCCESS(val, msg, ...) do {				\
	__typeof__(val) _val = (val);					\
	if (_val != 0) {						\
		printf("TestCase %s() line %d failed (err %d): " msg "\n", \
		       __func__, __LINE__, (int)_val, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_FAIL(val, msg, ...) do {				\
	if ((val) == 0) {						\
		printf("TestCase %s() line %d failed (unexpected success): " \
		       msg "\n", __func__, __LINE__, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_NULL(val, msg, ...) do {				\
	if ((val) != NULL) {						\
		printf("TestCase %s() line %d failed (%s not NULL): " msg "\n", \
		       __func__, __LINE__, #val, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

#define TEST_ASSERT_NOT_NULL(val, msg, ...) do {			\
	if ((val) == NULL) {						\
		printf("TestCase %s() line %d failed (%s is NULL): " msg "\n", \
		       __func__, __LINE__, #val, ##__VA_ARGS__);	\
		return TEST_FAILED;					\
	}								\
} while (0)

/*
 * After the failure of a call of libmdevx, libmdevx_attach or
 * libmdevx_share (@p expr names it): errno and rte_errno both @p e. The
 * macros below clear both before the call, so that a value left by an
 * earlier failure does not pass.
 */
#define TEST_ASSERT_ERRNO_PAIR(expr, e) do {				\
	TEST_ASSERT_EQUAL(errno, (e), "%s: errno %d (%s), want %s",	\
			  #expr, errno, strerror(errno), #e);		\
	TEST_ASSERT_EQUAL(rte_errno, (e), "%s: rte_errno %d (%s), want %s", \
			  #expr, rte_errno, strerror(rte_errno), #e);	\
} while (0)

/* expr must return -e (a negative errno) and set errno and rte_errno to e. */
#define TEST_ASSERT_RC_ERRNO(expr, e) do {				\
	int _r;								\
	errno = 0;							\
	rte_errno = 0;							\
	_r = (expr);							\
	TEST_ASSERT_EQUAL(_r, -(e), "%s returned %d (%s), want -%s",	\
			  #expr, _r, strerror(_r < 0 ? -_r : 0), #e);	\
	TEST_ASSERT_ERRNO_PAIR(expr, e);				\
} while (0)

/* expr must return NULL and set errno and rte_errno to e. */
#define TEST_ASSERT_NULL_ERRNO(expr, e) do {				\
	const void *_p;							\
	errno = 0;							\
	rte_errno = 0;							\
	_p = (expr);							\
	TEST_ASSERT_NULL(_p, "%s succeeded, want %s", #expr, #e);	\
	TEST_ASSERT_ERRNO_PAIR(expr, e);				\
} while (0)

/* expr (a count or a cookie) must return 0 and set errno and rte_errno to e. */
#define TEST_ASSERT_ZERO_ERRNO(expr, e) do {				\
	uint64_t _z;							\
	errno = 0;							\
	rte_errno = 0;							\
	_z = (expr);							\
	TEST_ASSERT_EQUAL(_z, 0, "%s returned %llu, want 0 (%s)", #expr,	\
			  (unsigned long long)_z, #e);			\
	TEST_ASSERT_ERRNO_PAIR(expr, e);				\
} while (0)

/* expr must return UINT32_MAX and set errno and rte_errno to e. */
#define TEST_ASSERT_U32MAX_ERRNO(expr, e) do {				\
	uint32_t _v;							\
	errno = 0;							\
	rte_errno = 0;							\
	_v = (expr);							\
	TEST_ASSERT_EQUAL(_v, UINT32_MAX, "%s returned %u, want UINT32_MAX (%s)", \
			  #expr, _v, #e);				\
	TEST_ASSERT_ERRNO_PAIR(expr, e);				\
} while (0)

/* Suites. A case returns TEST_SUCCESS, TEST_FAILED, TEST_SKIPPED or -ENOTSUP. */
struct unit_test_case {
	int (*setup)(void);
	void (*teardown)(void);
	int (*testcase)(void);
	const char *name;
	int enabled;
};

#define TEST_CASE(fn) { NULL, NULL, fn, #fn, 1 }
#define TEST_CASE_ST(setup, teardown, fn) { setup, teardown, fn, #fn, 1 }
#define TEST_CASE_DISABLED(fn) { NULL, NULL, fn, #fn, 0 }
#define TEST_CASES_END() { NULL, NULL, NULL, NULL, 0 }

struct unit_test_suite {
	const char *suite_name;
	int (*setup)(void);
	void (*teardown)(void);
	struct unit_test_case unit_test_cases[];
};

/** Run every case, print one line per case and the summary. */
int unit_test_suite_runner(struct unit_test_suite *suite);

/* Test commands, registered by name before main(). */
typedef int (cmd_func_t)(void);

struct test_command {
	TAILQ_ENTRY(test_command) next;
	const char *command;
	cmd_func_t *callback;
};

void add_test_command(struct test_command *t);

#define REGISTER_TEST_COMMAND(cmd, func)				\
	static struct test_command test_struct_##cmd = {		\
		.command = RTE_STR(cmd),				\
		.callback = func,					\
	};								\
	RTE_INIT(test_register_##cmd)					\
	{								\
		add_test_command(&test_struct_##cmd);			\
	}

/*
 * Secondary roles: the part of a multi-process test that runs in a
 * secondary process. The test relaunches this binary (see process.h);
 * the child runs the named role after rte_eal_init() and exits with its
 * return value (0 ok, anything else failure).
 */
typedef int (secondary_func_t)(int argc, char **argv);

struct test_secondary_role {
	TAILQ_ENTRY(test_secondary_role) next;
	const char *role;
	secondary_func_t *callback;
};

void add_test_secondary_role(struct test_secondary_role *r);

#define REGISTER_TEST_SECONDARY(name, func)				\
	static struct test_secondary_role test_role_##name = {		\
		.role = RTE_STR(name),					\
		.callback = func,					\
	};								\
	RTE_INIT(test_register_role_##name)				\
	{								\
		add_test_secondary_role(&test_role_##name);		\
	}

/* CLOCK_MONOTONIC time: one clock for every process of a test run. */
static inline uint64_t
test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
test_now_ms(void)
{
	return test_now_ns() / 1000000u;
}

#endif /* MDEVX_TEST_H */

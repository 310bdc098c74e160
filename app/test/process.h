/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Multi-process helper of dpdk-test: relaunch this binary as a DPDK
 * secondary process (same --file-prefix, --proc-type=secondary) that runs a
 * named role (REGISTER_TEST_SECONDARY), and collect its exit status with a
 * timeout so that a hung child fails the test instead of hanging CI.
 */
#ifndef MDEVX_TEST_PROCESS_H
#define MDEVX_TEST_PROCESS_H

#include <sys/types.h>

/* Exit codes of a child that never reached its role. */
#define TEST_MP_EXIT_EAL_FAILED 120	/**< rte_eal_init() failed */
#define TEST_MP_EXIT_NO_ROLE 121	/**< unknown role name */

/** Result of test_mp_wait() when the child was killed at the timeout. */
#define TEST_MP_TIMEOUT (-ETIMEDOUT)

/** The --file-prefix of this process (from its runtime directory). */
const char *test_file_prefix(void);

/**
 * Start a secondary running @p role.
 *
 * @param role      registered secondary role name
 * @param prefix    --file-prefix for the child, NULL for ours
 * @param argc      number of role arguments
 * @param argv      role arguments (given to the role after "--")
 * @return child pid, or -errno
 */
pid_t test_mp_spawn(const char *role, const char *prefix, int argc, const char *const argv[]);

/**
 * Start another *primary* process (another DPDK instance) running @p role,
 * with @p prefix, which must differ from ours (-EINVAL otherwise). Name it
 * "<our prefix>_<something>" so the test wrapper's cleanup covers it.
 */
pid_t test_mp_spawn_primary(const char *role, const char *prefix, int argc,
			    const char *const argv[]);
/** test_mp_spawn_primary() with one more EAL argument @p eal_extra (e.g. --in-memory). */
pid_t test_mp_spawn_primary_eal(const char *role, const char *prefix, const char *eal_extra,
				int argc, const char *const argv[]);

/**
 * Wait for a child started by test_mp_spawn().
 *
 * @return its exit code (0..255), 128 + signal number if a signal killed
 *         it, TEST_MP_TIMEOUT if it ran past @p timeout_ms (it is then
 *         killed with SIGKILL and reaped), or -errno.
 */
int test_mp_wait(pid_t pid, unsigned int timeout_ms);

/** test_mp_spawn() then test_mp_wait(). */
int test_mp_run(const char *role, const char *prefix, int argc, const char *const argv[],
		unsigned int timeout_ms);

/** test_mp_spawn_primary() then test_mp_wait(). */
int test_mp_run_primary(const char *role, const char *prefix, int argc, const char *const argv[],
			unsigned int timeout_ms);

#endif /* MDEVX_TEST_PROCESS_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Private glue between test.c and process.c. */
#ifndef MDEVX_TEST_INTERNAL_H
#define MDEVX_TEST_INTERNAL_H

#include "process.h"

/** Environment variable naming the secondary role a relaunched child runs. */
#define TEST_ROLE_ENV "MDEVX_TEST_ROLE"

/** Remember how this binary was started (for relaunching it). */
void test_process_save_argv(const char *argv0);

#endif /* MDEVX_TEST_INTERNAL_H */

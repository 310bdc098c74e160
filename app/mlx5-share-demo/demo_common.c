/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the state every file uses: the interrupt flag (set by
 * SIGINT and SIGTERM, see main.c) and the count of the checks.
 */
#include "demo.h"

volatile sig_atomic_t demo_interrupted;

/* Every number the primary compares, and how many differed. */
unsigned int demo_nb_checked, demo_nb_mismatch;

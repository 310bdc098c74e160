/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* mlx5-swdev run: a program on the daemon's devices through rdma-core. */
#ifndef MLX5_SWDEV_RUN_CMD_H
#define MLX5_SWDEV_RUN_CMD_H

#include <stdio.h>

/** The --help text of "run". */
void run_cmd_usage(FILE *f, const char *prog);
/**
 * "run [--socket PATH] -- CMD ARGS..." (@p argv[0] is "run"): CMD's exit
 * status, 128 + signal if it was killed, 1 when the launcher fails, 2 on a
 * usage error.
 */
int run_cmd_main(const char *prog, int argc, char **argv);

#endif /* MLX5_SWDEV_RUN_CMD_H */

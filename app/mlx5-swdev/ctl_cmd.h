/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* mlx5-swdev --ctl: control-socket commands for scripts. */
#ifndef MLX5_SWDEV_CTL_CMD_H
#define MLX5_SWDEV_CTL_CMD_H

#include <stdio.h>

/** The --help text of the commands. */
void ctl_cmd_usage(FILE *f);
/**
 * Run the command @p argv[0..argc-1] on the daemon whose main socket is
 * @p sock_path. Exit code: 0 done, 1 the daemon or the file refused it
 * (message on stderr), 2 usage error.
 */
int ctl_cmd_run(const char *sock_path, int argc, char **argv);

#endif /* MLX5_SWDEV_CTL_CMD_H */

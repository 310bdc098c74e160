/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mdevx_fd_same_file(), alone: the check the rdma backend makes before it
 * closes a descriptor that rdma-core may have closed already. A number
 * closed and then given to another file must not pass for the old one.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "mdevx_internal.h"
#include "unit_check.h"

int
main(void)
{
	int p[2], d, other;

	if (pipe(p) != 0) {
		perror("pipe");
		return 1;
	}
	d = fcntl(p[0], F_DUPFD_CLOEXEC, 0);
	if (mdevx_fd_same_file(d, p[0]) < 0) {
		printf("kcmp() not available here: SKIP\n");
		return 77;
	}
	/* A duplicate is the same open file; the pipe's other end is not. */
	CHECK(mdevx_fd_same_file(d, p[0]) == 1);
	CHECK(mdevx_fd_same_file(p[0], d) == 1);
	CHECK(mdevx_fd_same_file(p[1], p[0]) == 0);
	/* Closed (as rdma-core does on some failures): not ours any more. */
	CHECK(close(d) == 0);
	CHECK(mdevx_fd_same_file(d, p[0]) == 0);
	/* Closed and the number reused for another file: not ours either. */
	d = fcntl(p[0], F_DUPFD_CLOEXEC, 0);
	CHECK(close(d) == 0);
	other = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(other == d);
	CHECK(mdevx_fd_same_file(other, p[0]) == 0);
	/* ... nor for a new open of the same kind of file. */
	CHECK(close(other) == 0);
	d = fcntl(p[1], F_DUPFD_CLOEXEC, 0);
	CHECK(mdevx_fd_same_file(d, p[0]) == 0);
	CHECK(close(d) == 0);
	CHECK(mdevx_fd_same_file(-1, p[0]) == 0);
	CHECK(mdevx_fd_same_file(p[0], -1) == 0);
	close(p[0]);
	close(p[1]);
	return check_summary();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Descriptor identity: is a descriptor number still the open file we think
 * it is? A library that hands a descriptor to a call which may or may not
 * close it on failure (rdma-core's ibv_import_device()) must not close the
 * number afterwards on a guess: another thread may have been given the
 * same number for another file meanwhile.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mdevx_internal.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0	/* <linux/kcmp.h>: compare the open files of two fds */
#endif

int
mdevx_fd_same_file(int fd, int ref)
{
#ifdef SYS_kcmp
	pid_t pid = getpid();
	long r;

	if (fd < 0 || ref < 0)
		return 0;
	/* 0: the same open file description; 1..3: another one. */
	r = syscall(SYS_kcmp, pid, pid, KCMP_FILE, fd, ref);
	if (r == 0)
		return 1;
	if (r > 0)
		return 0;
	/* EBADF: one of them is not open (fd was closed, and not reused). */
	return errno == EBADF ? 0 : -1;
#else
	(void)fd;
	(void)ref;
	return -1;
#endif
}

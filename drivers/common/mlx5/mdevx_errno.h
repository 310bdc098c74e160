/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * How libmdevx, libmdevx_attach and libmdevx_share fail (see "Return and
 * error convention" in mdevx.h). Not installed.
 */
#ifndef MDEVX_ERRNO_H
#define MDEVX_ERRNO_H

#include <errno.h>

#include <rte_errno.h>

/*
 * The failure of a public call (see "Return and error convention" in
 * mdevx.h): errno and, as DPDK's APIs do, rte_errno are set to the
 * positive @p err. Every failure path of the libraries sets errno through
 * one of these two, so that the pair cannot disagree.
 */
static inline void
mdevx_set_errno(int err)
{
	errno = err;
	rte_errno = err;
}

/** mdevx_set_errno(@p err), then -@p err: for the calls returning int. */
static inline int
mdevx_ret(int err)
{
	mdevx_set_errno(err);
	return -err;
}

#endif /* MDEVX_ERRNO_H */

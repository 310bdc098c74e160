/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Handing a context to DPDK's net/mlx5. Since DPDK 22.03 the driver takes
 * the devargs cmd_fd (a command fd of a uverbs file: ibv_import_device())
 * and pd_handle (the handle of a PD of that file: ibv_import_pd()) and then
 * creates its objects in that file instead of opening a device of its own.
 * This module gives both for a context, through the backend ops: the
 * rdma-core context's cmd_fd and ibv_pd handle, or the software device's
 * command socket and PD handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mdevx_internal.h"

static void
devargs_reset(struct mdevx_devargs *out)
{
	out->cmd_fd = -1;
	out->pd_handle = 0;
	out->devargs[0] = '\0';
}

MDEVX_API int
mdevx_ctx_devargs(struct mdevx_ctx *ctx, struct mdevx_obj *pd, struct mdevx_devargs *out)
{
	uint32_t handle = 0;
	int rc, cmd_fd, fd;

	if (out == NULL) {
		MDEVX_LOG(ERR, "no output structure");
		return mdevx_ret(EINVAL);
	}
	devargs_reset(out);
	if (!mdevx_ctx_valid(ctx)) {
		rc = errno;
		MDEVX_LOG(ERR, "context %p: %s", (const void *)ctx,
			  rc == EINVAL ? "NULL" : "not live");
		return mdevx_ret(rc);
	}
	rc = mdevx_obj_get(pd, MDEVX_OBJ_PD);
	if (rc != 0) {
		MDEVX_LOG(ERR, "%s: PD %p: %s", ctx->devstr, (void *)pd,
			  rc == EPROTOTYPE ? "not a PD" : strerror(rc));
		return mdevx_ret(rc);
	}
	/* The PD's fields are read while the use keeps it from release. */
	if (pd->ctx != ctx) {
		MDEVX_LOG(ERR, "%s: the PD belongs to another context (%s)", ctx->devstr,
			  pd->ctx->devstr);
		mdevx_obj_put(pd);
		return mdevx_ret(EXDEV);
	}
	rc = ctx->ops->pd_handle(pd->bobj, &handle);
	if (rc != 0)
		MDEVX_LOG(ERR, "%s: handle of PD %#x: %s", ctx->devstr, pd->id, strerror(rc));
	mdevx_obj_put(pd);
	if (rc != 0)
		return mdevx_ret(rc);
	cmd_fd = ctx->ops->cmd_fd(ctx->bctx);
	if (cmd_fd < 0) {
		rc = -cmd_fd;
		MDEVX_LOG(ERR, "%s: no command fd: %s", ctx->devstr, strerror(rc));
		return mdevx_ret(rc);
	}
	fd = fcntl(cmd_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		rc = errno;
		MDEVX_LOG(ERR, "%s: duplicating command fd %d: %s", ctx->devstr, cmd_fd,
			  strerror(rc));
		return mdevx_ret(rc);
	}
	out->cmd_fd = fd;
	out->pd_handle = handle;
	snprintf(out->devargs, sizeof(out->devargs), "cmd_fd=%d,pd_handle=%u", fd, handle);
	MDEVX_LOG(DEBUG, "%s: %s (a duplicate of command fd %d)", ctx->devstr, out->devargs,
		  cmd_fd);
	return 0;
}

MDEVX_API int
mdevx_devargs_release(struct mdevx_ctx *ctx, struct mdevx_devargs *da)
{
	int rc, cmd_fd;

	if (da == NULL) {
		MDEVX_LOG(ERR, "no devargs");
		return mdevx_ret(EINVAL);
	}
	if (!mdevx_ctx_valid(ctx)) {
		rc = errno;
		MDEVX_LOG(ERR, "context %p: %s", (const void *)ctx,
			  rc == EINVAL ? "NULL" : "not live");
		return mdevx_ret(rc);
	}
	if (da->cmd_fd < 0) {
		MDEVX_LOG(ERR, "%s: descriptor released already", ctx->devstr);
		return mdevx_ret(EBADF);
	}
	cmd_fd = ctx->ops->cmd_fd(ctx->bctx);
	if (cmd_fd < 0) {
		rc = -cmd_fd;
		MDEVX_LOG(ERR, "%s: no command fd: %s", ctx->devstr, strerror(rc));
		return mdevx_ret(rc);
	}
	switch (mdevx_fd_same_file(da->cmd_fd, cmd_fd)) {
	case 1:
		close(da->cmd_fd);
		da->cmd_fd = -1;
		return 1;
	case 0:
		MDEVX_LOG(INFO, "%s: fd %d was closed by its consumer: left alone", ctx->devstr,
			  da->cmd_fd);
		da->cmd_fd = -1;
		return 0;
	default:
		MDEVX_LOG(WARNING, "%s: cannot tell whether fd %d is still ours: left open",
			  ctx->devstr, da->cmd_fd);
		return mdevx_ret(ENOTSUP);
	}
}

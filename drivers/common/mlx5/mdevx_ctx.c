/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Device contexts: open, import by command fd, close. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdevx_internal.h"

/*
 * The backend of @p devstr, or NULL with errno and one line that says why:
 * a "swdev:" string (the backend of earlier releases) names its rdma:
 * replacement.
 */
static const struct mdevx_backend_ops *
backend_of(const char *devstr, const char *call, const char **spec)
{
	const struct mdevx_backend_ops *ops = mdevx_backend_select(devstr, spec);
	int rc;

	if (ops != NULL)
		return ops;
	rc = errno;
	if (rc == ENOTSUP && strncmp(devstr, "swdev:", 6) == 0) {
		const char *dev = strrchr(devstr, ':') + 1;

		MDEVX_LOG(ERR, "%s(\"%s\"): the swdev: backend is gone; on the software "
			  "device, run the program under `mlx5-swdev run` and open \"rdma:%s\"",
			  call, devstr, dev[0] != '\0' ? dev : "<dev>");
	} else {
		MDEVX_LOG(ERR, "%s(\"%s\"): expected rdma:<ibdev>", call,
			  devstr != NULL ? devstr : "(null)");
	}
	mdevx_set_errno(rc);
	return NULL;
}

static struct mdevx_ctx *
ctx_finish(struct mdevx_ctx *ctx, const char *devstr)
{
	size_t asz;
	int rc;

	snprintf(ctx->devstr, sizeof(ctx->devstr), "%s", devstr);
	/* Constant per backend: every import would ask for it otherwise. */
	if (ctx->ops->export_size(&asz) == 0 && asz > 0 && asz <= MDEVX_ATTR_SIZE_MAX)
		ctx->attr_size = asz;
	rc = mdevx_caps_query(ctx);
	if (rc == 0) {
		mdevx_reg_lock();
		rc = mdevx_reg_add_locked(ctx, MDEVX_REG_CTX);
		mdevx_reg_unlock();
	}
	if (rc != 0) {
		ctx->ops->close(ctx->bctx);
		free(ctx);
		mdevx_set_errno(rc);
		return NULL;
	}
	return ctx;
}

MDEVX_API struct mdevx_ctx *
mdevx_open(const char *devstr)
{
	const struct mdevx_backend_ops *ops;
	struct mdevx_ctx *ctx;
	const char *spec;
	int rc;

	ops = backend_of(devstr, "mdevx_open", &spec);
	if (ops == NULL)
		return NULL;
	if (strlen(devstr) >= MDEVX_DEVSTR_MAX) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	ctx->ops = ops;
	rc = ops->open(spec, &ctx->bctx);
	if (rc != 0) {
		MDEVX_LOG(ERR, "cannot open %s: %s", devstr, strerror(rc));
		free(ctx);
		mdevx_set_errno(rc);
		return NULL;
	}
	return ctx_finish(ctx, devstr);
}

MDEVX_API struct mdevx_ctx *
mdevx_import_device(const char *devstr, int cmd_fd)
{
	const struct mdevx_backend_ops *ops;
	struct mdevx_ctx *ctx;
	const char *spec;
	int rc, fd;

	ops = backend_of(devstr, "mdevx_import_device", &spec);
	if (ops == NULL)
		return NULL;
	if (strlen(devstr) >= MDEVX_DEVSTR_MAX || cmd_fd < 0) {
		mdevx_set_errno(cmd_fd < 0 ? EBADF : EINVAL);
		return NULL;
	}
	/*
	 * Work on a dup: whatever fails, the backend import or the capability
	 * query after it (whose cleanup closes the context and its fd), the
	 * caller keeps cmd_fd. On success the context owns the dup and the
	 * caller's descriptor is closed.
	 */
	fd = fcntl(cmd_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		close(fd);
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	ctx->ops = ops;
	ctx->imported = true;
	rc = ops->import_device(fd, &ctx->bctx);
	if (rc != 0) {
		MDEVX_LOG(ERR, "cannot import %s from fd %d: %s", devstr, cmd_fd, strerror(rc));
		close(fd);
		free(ctx);
		mdevx_set_errno(rc);
		return NULL;
	}
	ctx = ctx_finish(ctx, devstr);
	if (ctx != NULL)
		close(cmd_fd);
	return ctx;
}

MDEVX_API int
mdevx_cmd_fd(const struct mdevx_ctx *ctx)
{
	if (!mdevx_ctx_valid(ctx))
		return -errno;
	return ctx->ops->cmd_fd(ctx->bctx);
}

MDEVX_API int
mdevx_close(struct mdevx_ctx *ctx)
{
	int rc;

	if (ctx == NULL)
		return mdevx_ret(EINVAL);
	mdevx_reg_lock();
	if (mdevx_reg_find_locked(ctx) != MDEVX_REG_CTX) {
		mdevx_reg_unlock();
		return mdevx_ret(ENOENT);
	}
	if (ctx->nobjs != 0) {
		mdevx_reg_unlock();
		MDEVX_LOG(ERR, "%s: %u objects still alive, not closing", ctx->devstr,
			  ctx->nobjs);
		return mdevx_ret(EBUSY);
	}
	mdevx_reg_del_locked(ctx);
	mdevx_reg_unlock();
	rc = ctx->ops->close(ctx->bctx);
	free(ctx);
	if (rc != 0) {
		MDEVX_LOG(ERR, "closing the device context failed: %s", strerror(rc));
		return mdevx_ret(rc);
	}
	return 0;
}

MDEVX_API int
mdevx_ctx_nb_objs(const struct mdevx_ctx *ctx)
{
	int n = -ENOENT;

	if (ctx == NULL)
		return mdevx_ret(EINVAL);
	mdevx_reg_lock();
	if (mdevx_reg_find_locked(ctx) == MDEVX_REG_CTX)
		n = (int)ctx->nobjs;
	mdevx_reg_unlock();
	if (n < 0)
		mdevx_set_errno(-n);
	return n;
}

MDEVX_API const char *
mdevx_backend_name(const struct mdevx_ctx *ctx)
{
	if (!mdevx_ctx_valid(ctx))
		return NULL;
	return ctx->ops->name;
}

MDEVX_API int
mdevx_get_caps(const struct mdevx_ctx *ctx, struct mdevx_caps *caps)
{
	if (caps == NULL)
		return mdevx_ret(EINVAL);
	if (!mdevx_ctx_valid(ctx))
		return -errno;
	*caps = ctx->caps;
	return 0;
}

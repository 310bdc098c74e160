/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * rdma-core compatibility layout check.
 *
 * rdma-core 38..62 have no mlx5dv_devx_obj_export/import/unimport. The
 * compatibility path gives the same behaviour by reading and writing the
 * library's private struct mlx5dv_devx_obj, whose layout has been
 * { context, handle, type, object_id, rx_icm_addr, log_obj_range, priv }
 * from v38 to v63 (see doc/driver.rst). Before relying on it, the path
 * checks it on a real object: the context pointer and the object id read at
 * the assumed offsets must be the context the object was created on and the
 * id the device returned in the create output.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "mdevx_internal.h"

static_assert(offsetof(struct mdevx_compat_devx_obj, context) == 0, "context offset");
static_assert(offsetof(struct mdevx_compat_devx_obj, handle) == 8, "handle offset");
static_assert(offsetof(struct mdevx_compat_devx_obj, type) == 12, "type offset");
static_assert(offsetof(struct mdevx_compat_devx_obj, object_id) == 16, "object_id offset");
static_assert(offsetof(struct mdevx_compat_devx_obj, rx_icm_addr) == 24, "rx_icm offset");
static_assert(offsetof(struct mdevx_compat_devx_obj, log_obj_range) == 32, "range offset");

int
mdevx_compat_check_layout(const void *obj, const void *ctx, uint32_t expected_id)
{
	void *seen_ctx;
	uint32_t seen_id;

	if (obj == NULL || ctx == NULL)
		return mdevx_ret(EINVAL);
	/* memcpy: the object is rdma-core's, not necessarily aligned as ours. */
	memcpy(&seen_ctx, (const char *)obj + offsetof(struct mdevx_compat_devx_obj, context),
	       sizeof(seen_ctx));
	memcpy(&seen_id, (const char *)obj + offsetof(struct mdevx_compat_devx_obj, object_id),
	       sizeof(seen_id));
	if (seen_ctx != ctx) {
		MDEVX_LOG(ERR, "rdma-core compatibility path refused: struct mlx5dv_devx_obj "
			  "holds %p at offset %zu where the context %p was expected; this "
			  "rdma-core has another private layout, export/import unavailable",
			  seen_ctx, offsetof(struct mdevx_compat_devx_obj, context), ctx);
		return mdevx_ret(ENOTSUP);
	}
	if (seen_id != expected_id) {
		MDEVX_LOG(ERR, "rdma-core compatibility path refused: struct mlx5dv_devx_obj "
			  "holds object id %#x at offset %zu where %#x (from the create "
			  "output) was expected; this rdma-core has another private layout, "
			  "export/import unavailable", seen_id,
			  offsetof(struct mdevx_compat_devx_obj, object_id), expected_id);
		return mdevx_ret(ENOTSUP);
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The rdma-core compatibility path's layout check (mdevx_compat.c). Not
 * installed, not exported: libmdevx calls it, and the tests link the
 * never-installed static library mdevx_compat_test (meson.build) to show it
 * refusing fake objects.
 */
#ifndef MDEVX_COMPAT_H
#define MDEVX_COMPAT_H

#include <stdint.h>

/**
 * Check that @p obj (an rdma-core struct mlx5dv_devx_obj) has the layout the
 * compatibility path assumes for rdma-core 38..62: the context pointer at
 * offset 0 equals @p ctx and the object id at offset 16 equals
 * @p expected_id. Used on the first counter or TIR created through the
 * rdma-core backend.
 * @return 0 if the layout matches; -EINVAL (NULL); -ENOTSUP with a log line
 *   naming the mismatching field otherwise.
 */
int mdevx_compat_check_layout(const void *obj, const void *ctx, uint32_t expected_id);

#endif /* MDEVX_COMPAT_H */

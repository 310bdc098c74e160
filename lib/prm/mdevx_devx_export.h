/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The DEVX object export record of rdma-core 63: the attributes that
 * mlx5dv_devx_obj_export() writes into the caller's buffer and
 * mlx5dv_devx_obj_import() rebuilds an object from, host byte order,
 * natural layout, mlx5dv_get_export_sizes().devx_obj_attrs_size (32) bytes
 * on LP64.
 *
 * Private to this project, not installed. Two writers and readers share
 * this one definition: the rdma backend's compatibility path (rdma-core
 * 38..62, which has no export calls, fills it from struct mlx5dv_devx_obj)
 * and the software device's client library (swdev_obj_export() and
 * swdev_obj_import(), the calls that stand for rdma-core's). libmdevx's
 * import reads type, object_id and rx_icm_addr back to cross-check its own
 * export header.
 */
#ifndef MDEVX_DEVX_EXPORT_H
#define MDEVX_DEVX_EXPORT_H

#include <stddef.h>
#include <stdint.h>

struct mdevx_devx_obj_attrs {
	uint32_t handle;	/**< kernel handle of the object in its uverbs file */
	uint32_t type;		/**< enum mlx5_devx_obj_type (MDEVX_DEVX_TYPE_*) */
	uint32_t object_id;	/**< counter base id, tirn, table id... */
	uint64_t rx_icm_addr;	/**< TIRs and flow tables, else 0 */
	uint8_t log_obj_range;	/**< log2 of the range of ids a bulk object covers */
};

_Static_assert(offsetof(struct mdevx_devx_obj_attrs, handle) == 0, "export record: handle");
_Static_assert(offsetof(struct mdevx_devx_obj_attrs, type) == 4, "export record: type");
_Static_assert(offsetof(struct mdevx_devx_obj_attrs, object_id) == 8,
	       "export record: object_id");
_Static_assert(offsetof(struct mdevx_devx_obj_attrs, rx_icm_addr) == 16,
	       "export record: rx_icm_addr");
_Static_assert(offsetof(struct mdevx_devx_obj_attrs, log_obj_range) == 24,
	       "export record: log_obj_range");
_Static_assert(sizeof(struct mdevx_devx_obj_attrs) == 32, "export record: size");

#endif /* MDEVX_DEVX_EXPORT_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/**
 * @file
 * libmdevx's internal interface: the calls in version node INTERNAL of
 * mdevx_version.map, for the project's own libraries (libmdevx_share) and
 * tests, as DPDK's __rte_internal symbols are for its drivers. Not
 * installed and not a stable API: an application uses mdevx.h alone.
 */
#ifndef MDEVX_DRIVER_H
#define MDEVX_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "mdevx.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Exported for our own libraries only (version node INTERNAL). */
#define MDEVX_INTERNAL __attribute__((visibility("default")))

/**
 * Internal (for libmdevx_share, not a stable API): the owner withdrew the
 * object of import @p obj. Waits for the calls using it to end, releases
 * its backend object, and keeps the wrapper: every call with it but
 * mdevx_obj_unimport() gives -ESTALE from now on, so that a holder of the
 * pointer never reaches a released object, nor a new object that reuses
 * the id on the device. The holder still releases it with
 * mdevx_obj_unimport().
 * A revocation that finds another one under way returns once that one has
 * taken the backend object (no call uses the import any more). While a
 * revocation waits, mdevx_obj_unimport() gives -EBUSY; once it returns,
 * it no longer touches the wrapper.
 * @return 0 (also if revoked before); -EINVAL; -ENOENT; -EPERM (a local
 *   object); backend errors of the release.
 */
MDEVX_INTERNAL int mdevx_obj_revoke(struct mdevx_obj *obj);

/**
 * Internal (for libmdevx_share, not a stable API): import @p obj belongs
 * to the caller's layer, which hands it out: mdevx_obj_unimport() refuses
 * it with -EPERM from now on, and only mdevx_obj_unimport_held() releases
 * it. 0; -EINVAL; -ENOENT; -EPERM (a local object).
 */
MDEVX_INTERNAL int mdevx_obj_hold(struct mdevx_obj *obj);
/** Internal: mdevx_obj_unimport() of a held import (-EPERM for one not held). */
MDEVX_INTERNAL int mdevx_obj_unimport_held(struct mdevx_obj *obj);

/**
 * Internal (for tests, not a stable API): the rdma backend's export path,
 * chosen once per process from the libmlx5 it has loaded (doc/driver.rst):
 * "native" (rdma-core's mlx5dv_devx_obj_export() and friends), "compat"
 * (the compatibility path) or "none" (built with rdma_core_compat=native,
 * and libmlx5 lacks the calls: rdma export and import fail with ENOTSUP).
 * Needs no device. @p release (@p len bytes, may be NULL) receives the
 * rdma-core release told by the file name of the loaded libmlx5 ("44.0"
 * for libmlx5.so.1.24.44.0), or "unknown".
 */
MDEVX_INTERNAL const char *mdevx_rdma_export_path(char *release, size_t len);

/**
 * Internal (for libmdevx_share, not a stable API): mdevx_obj_import_ref()
 * for a caller that has already verified the integrity of @p buf itself
 * (the share registry's record checksum covers the export buffer): every
 * check of mdevx_obj_import_ref() except the buffer checksum, which would
 * verify the same bytes a second time on the import fast path.
 */
MDEVX_INTERNAL int mdevx_obj_import_ref_verified(struct mdevx_ctx *ctx, const void *buf,
						 size_t len, enum mdevx_obj_kind expect,
						 struct mdevx_obj_ref *ref);

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_DRIVER_H */

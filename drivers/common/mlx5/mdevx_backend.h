/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Backend ops table: every device access of the library goes through one of
 * these. One backend: rdma-core (mdevx_backend_rdma.c), on a NIC as on the
 * software device (under `mlx5-swdev run`).
 *
 * Conventions (the rdma-core ones): every int op returns 0 or a POSITIVE
 * errno. EREMOTEIO from a command op means the device executed the command
 * and failed it: the output mailbox holds status and syndrome. Backend
 * objects and contexts are opaque pointers.
 */
#ifndef MDEVX_BACKEND_H
#define MDEVX_BACKEND_H

#include <stddef.h>
#include <stdint.h>

struct mdevx_matcher_attr;

/** Backend identifiers, written into export buffers. */
enum mdevx_backend_id {
	MDEVX_BACKEND_RDMA = 1,
	/* 2: the software device backend of earlier releases (refused: EXDEV) */
};

struct mdevx_backend_ops {
	const char *name;		/**< "rdma": device string prefix */
	enum mdevx_backend_id id;

	/** Open the device named by @p spec (the device string without prefix). */
	int (*open)(const char *spec, void **bctx);
	/** New context on the uverbs file behind @p cmd_fd (owned on success). */
	int (*import_device)(int cmd_fd, void **bctx);
	/** Command fd (>= 0) or -errno. */
	int (*cmd_fd)(void *bctx);
	int (*close)(void *bctx);

	int (*obj_create)(void *bctx, const void *in, size_t inlen, void *out, size_t outlen,
			  void **bobj);
	int (*obj_query)(void *bobj, const void *in, size_t inlen, void *out, size_t outlen);
	int (*obj_modify)(void *bobj, const void *in, size_t inlen, void *out, size_t outlen);
	int (*obj_destroy)(void *bobj);
	int (*general_cmd)(void *bctx, const void *in, size_t inlen, void *out, size_t outlen);

	/** Size of the backend's DEVX object export attributes. */
	int (*export_size)(size_t *size);
	int (*obj_export)(void *bobj, void *data);
	int (*obj_import)(void *bctx, const void *data, void **bobj);
	int (*obj_unimport)(void *bobj);

	int (*umem_reg)(void *bctx, void *addr, size_t size, uint32_t access, void **bobj,
			uint32_t *umem_id);
	int (*umem_dereg)(void *bobj);
	int (*uar_alloc)(void *bctx, void **bobj, uint32_t *page_id);
	int (*uar_free)(void *bobj);
	int (*pd_alloc)(void *bctx, void **bobj, uint32_t *pdn);
	int (*pd_free)(void *bobj);
	/**
	 * Kernel handle of PD @p bobj in its uverbs file (rdma-core
	 * ibv_pd->handle): what ibv_import_pd() takes in another context of
	 * the file.
	 */
	int (*pd_handle)(void *bobj, uint32_t *handle);
	int (*query_eqn)(void *bctx, uint32_t vector, uint32_t *eqn);

	/*
	 * Root steering (mlx5dv_create_flow_matcher / mlx5dv_create_flow on
	 * NIC receive). @p attr was validated by the library.
	 */
	int (*matcher_create)(void *bctx, const struct mdevx_matcher_attr *attr,
			      void **bmatcher);
	int (*matcher_destroy)(void *bmatcher);
	/**
	 * A rule on @p bmatcher: @p value of @p len bytes; @p dest an enum
	 * mdevx_rule_dest, @p dest_bobj the DEVX TIR or flow table for
	 * MDEVX_RULE_DEST_OBJ (else NULL); @p cnt_bobj a DEVX counter bulk or
	 * NULL, counting on counter @p cnt_offset of it (checked < bulk size).
	 */
	int (*flow_create)(void *bmatcher, const void *value, size_t len, int dest,
			   void *dest_bobj, void *cnt_bobj, uint32_t cnt_offset, void **bflow);
	/** Destroy a rule; on success @p bflow is freed. */
	int (*flow_destroy)(void *bflow);
	/** Kernel handle of the rule in its uverbs file. */
	uint32_t (*flow_handle)(const void *bflow);
	/** Destroy the rule @p handle of the uverbs file of @p bctx: 0, ENOENT, EINVAL. */
	int (*flow_destroy_handle)(void *bctx, uint32_t handle);
	/** Free @p bflow, a rule already gone from the device, without a command. */
	void (*flow_forget)(void *bflow);
	/**
	 * Free the backend's own state of @p bobj (a DEVX object, PD, UAR or
	 * umem) of a lost device, without a command. The provider's object is
	 * left to the context, as rdma-core leaves it after a failed destroy.
	 */
	void (*obj_forget)(void *bobj);
	/** The same for a matcher of a lost device. */
	void (*matcher_forget)(void *bmatcher);
};

/** rdma-core backend. */
extern const struct mdevx_backend_ops mdevx_backend_rdma_ops;

/**
 * Pick the backend from a device string "<backend>:<spec>".
 * @return the ops and *spec pointing into @p devstr, or NULL (errno EINVAL
 *   for a malformed string or unknown backend, ENOTSUP for "swdev:", the
 *   backend of earlier releases).
 */
const struct mdevx_backend_ops *mdevx_backend_select(const char *devstr, const char **spec);

/** Ops by identifier (export buffers), NULL if not built in. */
const struct mdevx_backend_ops *mdevx_backend_by_id(uint32_t id);

#endif /* MDEVX_BACKEND_H */

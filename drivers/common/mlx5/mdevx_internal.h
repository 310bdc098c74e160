/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Internal definitions shared by the modules of libmdevx. */
#ifndef MDEVX_INTERNAL_H
#define MDEVX_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include "mdevx.h"
#include "mdevx_errno.h"
#include "mdevx_compat.h"
#include "mdevx_driver.h"
#include "mdevx_backend.h"
#include "mdevx_devx_export.h"

/* ---- logging (mdevx_log.c) ---- */

/** Dynamic log type "pmd.common.mdevx". */
extern int mdevx_logtype;

#define MDEVX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_logtype, "mdevx: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)
/** Same, naming function @p fn (helpers logging for their public caller). */
#define MDEVX_LOG_FN(level, fn, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_logtype, "mdevx: %s(): " fmt "\n", \
		fn, ##__VA_ARGS__)
/** Same, without a function name (device command lines). */
#define MDEVX_LOG_PLAIN(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_logtype, "mdevx: " fmt "\n", ##__VA_ARGS__)

/* ---- context and objects ---- */

#define MDEVX_DEVSTR_MAX 160
/** Largest backend export attribute size the library accepts. */
#define MDEVX_ATTR_SIZE_MAX 4096
/*
 * log2 of the most counters one QUERY_FLOW_COUNTER reads: its output (16
 * bytes of header, 16 per counter) is a uverbs attribute, whose length is 16
 * bits (struct ib_uverbs_attr.len); rdma-core refuses a longer buffer
 * (EINVAL) and so does the kernel. 2048 counters: 32 KiB + 16.
 */
#define MDEVX_LOG_QUERY_COUNTERS_MAX 11

struct mdevx_ctx {
	const struct mdevx_backend_ops *ops;
	void *bctx;
	struct mdevx_caps caps;
	bool imported;			/**< made by mdevx_import_device() */
	uint32_t nobjs;			/**< live wrappers; registry lock */
	/*
	 * The device no longer executes commands (removed, reset, the
	 * software device's daemon gone): set once by mdevx_ctx_lost(), read
	 * with atomics. Destroys then release locally.
	 */
	bool lost;
	size_t attr_size;		/**< backend export attributes, 0 = ask the backend */
	/* NIC receive flow table capabilities (optional page; 0 if unread). */
	bool has_ft_caps;
	uint8_t log_max_ft_size;
	uint8_t max_ft_level;
	char devstr[MDEVX_DEVSTR_MAX];
};

struct mdevx_obj {
	struct mdevx_ctx *ctx;
	void *bobj;			/**< backend object */
	enum mdevx_obj_kind kind;
	uint32_t id;
	uint32_t bulk_size;
	uint32_t tirn;
	uint64_t rx_icm_addr;
	uint32_t generation;
	bool imported;
	/*
	 * An import whose owner withdrew the object (mdevx_obj_revoke()): its
	 * backend object is released, every call but mdevx_obj_unimport()
	 * gives ESTALE. Both fields under the registry lock.
	 */
	bool revoked;
	/*
	 * An import a holder layer owns (mdevx_obj_hold()): only
	 * mdevx_obj_unimport_held() releases it. Under the registry lock.
	 */
	bool held;
	uint32_t users;			/**< calls using bobj now (mdevx_obj_get()) */
	uint32_t revokers;		/**< mdevx_obj_revoke() calls waiting */
	/*
	 * Local objects: library objects that depend on this one (flow
	 * groups on a table, entries on a group, root rules on their
	 * destination and counter). mdevx_obj_destroy() is EBUSY while
	 * non-zero, and marks the object dying (no new reference) while it
	 * destroys it. Both under the registry lock.
	 */
	uint32_t refs;
	bool dying;
	/* DEVX flow tables, groups and entries (mdevx_steer.c). */
	struct mdevx_obj *parent;	/**< group: its table; entry: its group */
	uint32_t ft_table_id;		/**< group, entry: table id */
	uint32_t ft_first;		/**< group: start index */
	uint32_t ft_last;		/**< group: end index */
	uint8_t ft_level;		/**< table: level */
	uint8_t ft_log_size;		/**< table: log2 of its size */
	/* Resources owned by a local CQ or RQ. */
	void *buf;			/**< CQE or WQE buffer, page aligned */
	void *dbr;			/**< doorbell record page */
	struct mdevx_obj *buf_umem;
	struct mdevx_obj *dbr_umem;
	struct mdevx_obj *uar;
};

/* ---- per-process table of live contexts and objects (mdevx_registry.c) ---- */

enum mdevx_reg_type {
	MDEVX_REG_NONE = 0,
	MDEVX_REG_CTX = 1,
	MDEVX_REG_OBJ = 2,
	MDEVX_REG_MATCHER = 3,		/**< struct mdevx_matcher (mdevx_steer.c) */
	MDEVX_REG_RULE = 4,		/**< struct mdevx_rule (mdevx_steer.c) */
};

/** Lock / unlock the registry (held around check-then-use sequences). */
void mdevx_reg_lock(void);
void mdevx_reg_unlock(void);
/** Insert @p p (lock held). 0 or ENOMEM. */
int mdevx_reg_add_locked(const void *p, enum mdevx_reg_type type);
/** Type of @p p in the table, MDEVX_REG_NONE if absent (lock held). */
enum mdevx_reg_type mdevx_reg_find_locked(const void *p);
/** Remove @p p (lock held). 0 or ENOENT. */
int mdevx_reg_del_locked(const void *p);

/*
 * The context check's cache: the last context this thread found live, and
 * the epoch (bumped whenever a context is closed) it was found in. Hidden
 * symbols of the library. Initial-exec TLS: no __tls_get_addr call on the
 * fast path; 16 bytes, which glibc's static TLS reserve covers even if the
 * library is dlopen()ed.
 */
#define MDEVX_LIVE_TLS __thread __attribute__((tls_model("initial-exec")))
#define MDEVX_HIDDEN __attribute__((visibility("hidden")))
extern MDEVX_HIDDEN uint64_t mdevx_ctx_epoch;
extern MDEVX_HIDDEN MDEVX_LIVE_TLS const struct mdevx_ctx *mdevx_live_ctx;
extern MDEVX_HIDDEN MDEVX_LIVE_TLS uint64_t mdevx_live_ctx_epoch;

/**
 * Does descriptor @p fd still refer to the open file description of @p ref
 * (of which it was made a duplicate)? 1 yes; 0 no: closed, or its number
 * now names another file; -1 cannot tell (no kcmp() in this kernel, or not
 * permitted). mdevx_fd.c.
 */
int mdevx_fd_same_file(int fd, int ref);

/** mdevx_ctx_valid() past the cache: looks @p ctx up, and caches it if live. */
bool mdevx_ctx_valid_slow(const struct mdevx_ctx *ctx);

/**
 * Is @p ctx a live context? Sets errno (EINVAL/ENOENT) when not. Inline:
 * every import and release checks its context, and a hit in the cache is
 * three loads and two compares.
 */
static inline bool
mdevx_ctx_valid(const struct mdevx_ctx *ctx)
{
	if (ctx != NULL && ctx == mdevx_live_ctx &&
	    __atomic_load_n(&mdevx_ctx_epoch, __ATOMIC_ACQUIRE) == mdevx_live_ctx_epoch)
		return true;
	return mdevx_ctx_valid_slow(ctx);
}
/**
 * Is @p obj a live object, of @p kind unless MDEVX_OBJ_ANY? 0 or a positive
 * errno: EINVAL (NULL), ENOENT (not live), ESTALE (a revoked import),
 * EPROTOTYPE (other kind).
 */
int mdevx_obj_check(const struct mdevx_obj *obj, enum mdevx_obj_kind kind);
/**
 * mdevx_obj_check() for a call that uses the backend object or sends a
 * command about the object: on 0 the object cannot be revoked (nor its
 * backend object released) until mdevx_obj_put().
 */
int mdevx_obj_get(struct mdevx_obj *obj, enum mdevx_obj_kind kind);
/** End of a use begun by mdevx_obj_get(). */
void mdevx_obj_put(struct mdevx_obj *obj);
/**
 * Mark an import revoked (see mdevx_obj_revoke()), once no call uses it:
 * 0 with its backend object in @p bobj and the ops to release it with in
 * @p ops, for the caller to release (the wrapper may be freed as soon as
 * this returns); ENOENT; EPERM (a local object); ESTALE (revoked already:
 * returns once that revocation has the backend object).
 */
int mdevx_obj_mark_revoked(struct mdevx_obj *obj, void **bobj,
			   const struct mdevx_backend_ops **ops);
/**
 * A copy of live (or revoked: ESTALE) wrapper @p obj, made under the
 * registry lock, for calls that read its fields without using its backend
 * object: 0, EINVAL, ENOENT or ESTALE (the copy is made).
 */
int mdevx_obj_copy(const struct mdevx_obj *obj, struct mdevx_obj *copy);
/**
 * Unregister an import for mdevx_obj_unimport(), under the lock: 0, ENOENT,
 * EPERM (a local object, or one held, unless @p holder; or one not held,
 * if @p holder), EBUSY (a call is using it, or a revocation is waiting).
 * The backend object (NULL if revoked) is the caller's to release, the
 * wrapper to free.
 */
int mdevx_obj_unregister_import(struct mdevx_obj *obj, void **bobj, bool holder);
/** Mark import @p obj held (see mdevx_obj_hold()): 0, ENOENT, EPERM (local). */
int mdevx_obj_mark_held(struct mdevx_obj *obj);

/*
 * Objects that a steering object (flow group, entry, root rule) uses, with
 * the discipline of mdevx_obj_get(): no lock is held across the device
 * command.
 *
 * mdevx_obj_ref_take(): is @p obj live, of one of the kinds in @p kinds
 * (bits 1u << kind), on context @p ctx? 0 or a positive errno: EINVAL
 * (NULL, or another context), ENOENT (not live, or a local object being
 * destroyed), ESTALE (a revoked import), EPROTOTYPE (other kind). On 0 a
 * local object gains a reference (refs, until mdevx_obj_ref_drop(): its
 * destroy is EBUSY) and an import a use (users, as mdevx_obj_get(): a
 * revocation waits for it, until mdevx_obj_ref_drop()).
 */
int mdevx_obj_ref_take(struct mdevx_obj *obj, uint32_t kinds, const struct mdevx_ctx *ctx);
/** End what mdevx_obj_ref_take() began (refs or users, by locality). */
void mdevx_obj_ref_drop(struct mdevx_obj *obj);
/**
 * Begin mdevx_obj_destroy(): like mdevx_obj_copy() (0, EINVAL, ENOENT,
 * ESTALE with the copy made), then EBUSY for a local object with
 * references; on 0 a local object is marked dying.
 */
int mdevx_obj_destroy_begin(struct mdevx_obj *obj, struct mdevx_obj *copy);
/** The destroy failed: the object takes references again. */
void mdevx_obj_destroy_abort(struct mdevx_obj *obj);

/** Allocate a zeroed wrapper for @p ctx (not yet registered). */
struct mdevx_obj *mdevx_obj_new(struct mdevx_ctx *ctx, enum mdevx_obj_kind kind, void *bobj,
				uint32_t id, bool imported);
/** Register a wrapper: counts it on its context. 0 or ENOMEM. */
int mdevx_obj_register(struct mdevx_obj *obj);
/** Unregister (0 or ENOENT). Does not free. */
int mdevx_obj_unregister(struct mdevx_obj *obj);
/** Release the buffers, umems and UAR a CQ or RQ owns (unregistered). */
void mdevx_obj_free_owned(struct mdevx_obj *obj);
/** Release an unregistered local wrapper (backend object + owned + free). */
int mdevx_obj_release_internal(struct mdevx_obj *obj);
/**
 * Wrap a backend object just created (not yet registered); on ENOMEM the
 * backend object is released and NULL returned with errno.
 */
struct mdevx_obj *mdevx_obj_wrap(struct mdevx_ctx *ctx, enum mdevx_obj_kind kind, void *bobj,
				 uint32_t id);
/**
 * Make a finished local wrapper live: a new generation, then registration.
 * On failure the wrapper is released and NULL returned with errno.
 */
struct mdevx_obj *mdevx_obj_finish(struct mdevx_obj *obj);
/**
 * Fill @p obj, a stack object standing for @p ref in the internal query
 * code, after checking the reference (live, of @p kind) and @p ctx.
 * 0 or a positive errno: EINVAL (NULL or released), EPROTOTYPE, ENOENT.
 */
int mdevx_ref_to_obj(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
		     enum mdevx_obj_kind kind, struct mdevx_obj *obj);
/** Next generation number (process-wide, never 0). */
uint32_t mdevx_next_generation(void);

/* ---- device commands with logging (mdevx_cmd.c) ---- */

/*
 * All return 0 or a positive errno. A firmware failure (EREMOTEIO, or a
 * non-zero status with rc 0) is logged once with the command name, errno,
 * status and syndrome, recorded as the thread's last error, and returned as
 * mdevx_cmd_status_to_errno(status).
 */
int mdevx_cmd_create(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
		     size_t outlen, void **bobj);
int mdevx_cmd_query(struct mdevx_obj *obj, const void *in, size_t inlen, void *out,
		    size_t outlen);
int mdevx_cmd_modify(struct mdevx_obj *obj, const void *in, size_t inlen, void *out,
		     size_t outlen);
int mdevx_cmd_general(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
		      size_t outlen);
/** As mdevx_cmd_general() for an expected failure: neither logged nor recorded. */
int mdevx_cmd_general_quiet(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
			    size_t outlen);
/** Record and log a failure that has no mailbox (verbs ops, destroy). */
void mdevx_cmd_fail(uint16_t opcode, const char *what, int err);
/*
 * After a destroy of @p ctx failed with @p err: is the device lost? Known
 * already, or, for EIO and ENOLINK, a probe command (QUERY_HCA_CAP) that
 * fails the same way without the device executing it: the context is
 * marked lost, and one line says so. A device that answers the probe
 * (with any status) is not lost.
 */
bool mdevx_ctx_lost(struct mdevx_ctx *ctx, int err);

/* ---- capabilities (mdevx_caps.c) ---- */

/** Read general caps (and caps 2 if offered) into ctx->caps. 0 or errno. */
int mdevx_caps_query(struct mdevx_ctx *ctx);

/* ---- rdma-core export path (mdevx_backend_rdma.c) ---- */

/**
 * Does the rdma backend export with rdma-core's own calls (the native path,
 * chosen once per process at run time)? Its attributes are then opaque;
 * false: the compatibility path's layout (or no rdma export at all).
 */
bool mdevx_rdma_export_native(void);

/* ---- rdma-core backend objects (mdevx_backend_rdma.c, its _flow.c) ---- */

struct ibv_context;
struct ibv_pd;
struct mlx5dv_devx_obj;
struct mlx5dv_devx_uar;
struct mlx5dv_devx_umem;

/* Our handle on an rdma-core object: the context is known without relying
 * on rdma-core's private layout. */
enum rdma_obj_type {
	RDMA_OBJ_DEVX,
	RDMA_OBJ_UMEM,
	RDMA_OBJ_UAR,
	RDMA_OBJ_PD,
};

struct rdma_obj {
	struct ibv_context *ctx;
	enum rdma_obj_type type;
	bool imported;
	union {
		struct mlx5dv_devx_obj *devx;
		struct mlx5dv_devx_umem *umem;
		struct mlx5dv_devx_uar *uar;
		struct ibv_pd *pd;
	};
};

/** errno when the failed call set it, else @p fallback. */
static inline int
errno_or(int fallback)
{
	return errno != 0 ? errno : fallback;
}

/* ---- rdma-core root steering (mdevx_backend_rdma_flow.c) ---- */

/*
 * The rdma backend's matcher and rule ops (struct mdevx_backend_ops, hooked
 * into mdevx_backend_rdma_ops).
 */
int mdevx_rdma_matcher_create(void *bctx, const struct mdevx_matcher_attr *attr,
			      void **bmatcher);
int mdevx_rdma_matcher_destroy(void *bmatcher);
int mdevx_rdma_flow_create(void *bmatcher, const void *value, size_t len, int dest,
			   void *dest_bobj, void *cnt_bobj, uint32_t cnt_offset, void **bflow);
int mdevx_rdma_flow_destroy(void *bflow);
uint32_t mdevx_rdma_flow_handle(const void *bflow);
int mdevx_rdma_flow_destroy_handle(void *bctx, uint32_t handle);
void mdevx_rdma_flow_forget(void *bflow);

/* ---- rdma-core compatibility layout (mdevx_compat.c) ---- */

/** rdma-core's private struct mlx5dv_devx_obj as assumed for v38..v62+. */
struct mdevx_compat_devx_obj {
	void *context;		/**< struct ibv_context * */
	uint32_t handle;
	uint32_t type;		/**< enum mlx5_devx_obj_type */
	uint32_t object_id;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
	void *priv;
};

/*
 * The compatibility path writes and reads rdma-core 63's export record,
 * struct mdevx_devx_obj_attrs (mdevx_devx_export.h).
 */

#endif /* MDEVX_INTERNAL_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/**
 * @file
 * libmdevx_share: share mlx5 DEVX flow counter bulks and TIRs between the
 * processes of one DPDK multi-process instance.
 *
 * The primary opens a device (mdevx_share_dev_open()): it owns the device
 * context, draws a random instance cookie and reserves a registry memzone
 * in hugepage memory. It publishes objects under a name
 * (mdevx_share_publish()): the object is exported into a record of the
 * registry. A secondary attaches to the device (mdevx_share_dev_attach()):
 * it asks the primary over rte_mp for the device's command fd, imports the
 * device context with it and maps the registry; then it imports objects by
 * name (mdevx_share_import()) without talking to the primary.
 *
 * Withdrawal (mdevx_share_withdraw(), primary): the record is marked
 * withdrawn and its generation bumped, the secondaries are notified over
 * rte_mp and unimport what they imported of it, the primary waits up to a
 * bound for the acknowledgements of the secondaries that attached the
 * device (no other process), then destroys the object. An import used
 * after its record was withdrawn fails with ESTALE.
 *
 * The registry memzone is input: any process of the instance can write
 * any byte of it. Each process keeps the registry's structure, and the
 * primary what it published, in private memory: a scribbled memzone costs
 * lookups and imports an errno (EBADMSG, EAGAIN, ENOENT, ENODEV), never a
 * crash, and never the primary the control of its objects.
 *
 * @par Errors
 * int functions return 0 or a negative errno; pointer functions return
 * NULL; mdevx_share_rule_create() returns a handle of id 0;
 * mdevx_share_dev_cookie(), mdevx_share_record_count() and
 * mdevx_share_dev_imports() return 0 and mdevx_share_record_next() -1 for
 * a bad argument. Every call that fails sets errno and, as DPDK APIs do,
 * rte_errno to the same positive errno (the one a negative return
 * carries); a call that succeeds does not reset them. Common values:
 * - EINVAL: NULL or invalid argument;
 * - ENAMETOOLONG: name longer than MDEVX_SHARE_NAME_MAX;
 * - ENOENT: no record of that name; a handle that is not a live import; or
 *   a device handle that is not open (closed already), from every call;
 * - EEXIST: a record of that name exists, or the object is published
 *   already under another name (publish);
 * - ENOSPC: the registry is full (publish); 64 devices open or attached in
 *   the process (open, attach); 64 secondaries attached to the device
 *   already (attach);
 * - EPROTOTYPE: the record or object is of another kind than asked;
 * - EXDEV: the record belongs to another instance or uverbs file (cookie);
 * - EBADMSG: the record is corrupted (checksum, or inconsistent with the
 *   export buffer it carries);
 * - ESTALE: the record was withdrawn (import, or use of an import);
 * - EAGAIN: the record is being written and could not be read consistently
 *   (its writer may have died mid-write); try again later;
 * - EPERM: a primary-only call made by a secondary, or the reverse;
 * - ETIMEDOUT/ECONNREFUSED/ENODEV: attach: the primary does not answer, is
 *   not running, or has not opened that device.
 * - ENODEV: lookup/import in a secondary after the primary closed the
 *   device (its registry is gone): close it; a new attach makes a new
 *   device once the primary shares it again.
 *
 * @par Ownership
 * - mdevx_share_publish() takes the object: from then on only
 *   mdevx_share_withdraw() (or mdevx_share_dev_close() in the primary)
 *   destroys it.
 * - An import is released by mdevx_share_unimport(), also after the record
 *   was withdrawn (the notification already freed the underlying object).
 * - mdevx_share_dev_close() in the primary withdraws every record, destroys
 *   the objects and frees the registry (or, if a secondary did not
 *   acknowledge, marks it closed and leaves it mapped until the instance
 *   ends); in a secondary it unimports what the process still holds and
 *   closes its device context.
 * - If the primary dies, secondaries keep what they imported (their device
 *   context keeps the uverbs file alive); the device objects disappear when
 *   the last process holding the command fd is gone.
 */
#ifndef MDEVX_SHARE_H
#define MDEVX_SHARE_H

#include <stdint.h>

#include "mdevx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Limits of the registry. mdevx_share_reg.h (internal, not installed)
 * defines the same values: should they ever differ, a file that includes
 * both gets a macro redefinition diagnostic (an error in this project's
 * -Werror build).
 */
/** Longest record name, without the terminating NUL. */
#define MDEVX_SHARE_NAME_MAX 47
/** Largest capacity (records) of one registry. */
#define MDEVX_SHARE_CAPACITY_MAX (1u << 22)

/** A device shared by one DPDK instance (one per device and process). */
struct mdevx_share_dev;

/** Import handle: a value, not a pointer (stale or repeated use is detected). */
typedef struct {
	uint64_t id;
} mdevx_share_imp_t;

/** Default period of the counter snapshot service (counter_period_ms 0, or no configuration). */
#define MDEVX_SHARE_COUNTER_PERIOD_DEFAULT 500
/** counter_period_ms that turns the counter snapshot service off. */
#define MDEVX_SHARE_COUNTER_PERIOD_OFF UINT32_MAX
/**
 * The snapshot area's default capacity (snapshot_counters 0), in counters
 * of 16 bytes: MDEVX_SHARE_SNAPSHOT_PER_RECORD per record of the registry's
 * capacity, at most MDEVX_SHARE_SNAPSHOT_DEFAULT (1M counters, 16 MiB: the
 * default capacity of 4096 records gives it).
 */
#define MDEVX_SHARE_SNAPSHOT_DEFAULT (1u << 20)
#define MDEVX_SHARE_SNAPSHOT_PER_RECORD 256u

/** Open parameters (primary). */
struct mdevx_share_conf {
	uint32_t capacity;		/**< records; 0 = 4096; max MDEVX_SHARE_CAPACITY_MAX */
	uint32_t withdraw_timeout_ms;	/**< bound on acknowledgements; 0 = 2000 */
	/**
	 * Counter snapshot service: refresh period in milliseconds; 0 =
	 * MDEVX_SHARE_COUNTER_PERIOD_DEFAULT; MDEVX_SHARE_COUNTER_PERIOD_OFF
	 * turns the service off (logged at open).
	 */
	uint32_t counter_period_ms;
	/**
	 * Snapshot area, in counters; 0 = MDEVX_SHARE_SNAPSHOT_PER_RECORD per
	 * record of capacity, at most MDEVX_SHARE_SNAPSHOT_DEFAULT.
	 */
	uint32_t snapshot_counters;
};

/** A record as seen by lookup and the telemetry commands. */
struct mdevx_share_record {
	char name[MDEVX_SHARE_NAME_MAX + 1];
	enum mdevx_obj_kind kind;	/**< MDEVX_OBJ_FLOW_COUNTER or MDEVX_OBJ_TIR */
	int withdrawn;			/**< 1 once withdrawn */
	uint64_t generation;
	int32_t owner_pid;
	uint32_t object_id;		/**< counter base id or tirn */
	uint32_t bulk_size;		/**< counters */
	uint32_t tirn;			/**< TIRs */
	uint64_t rx_icm_addr;		/**< TIRs */
};

/**
 * Primary: open @p devstr (see mdevx_open()) for sharing, reserve its
 * registry memzone and answer attach requests of secondaries. A device
 * still open when the process exits without rte_eal_cleanup() is closed
 * by an exit handler (everything withdrawn); after rte_eal_cleanup() it
 * cannot be: close before it.
 * @return the device, or NULL with errno (EPERM in a secondary, EEXIST if
 *   already open in this process, ENOMEM/ENOSPC for the memzone, ENOTSUP
 *   without EAL's IPC (--in-memory, --no-shconf), errors of mdevx_open()).
 */
MDEVX_API struct mdevx_share_dev *mdevx_share_dev_open(const char *devstr,
							const struct mdevx_share_conf *conf);

/**
 * Secondary: attach to the device the primary opened under @p devstr: get
 * the command fd over rte_mp (bounded wait), import the device context,
 * map the registry. Cached: a second call returns the same device (with a
 * reference count; close once per attach).
 */
MDEVX_API struct mdevx_share_dev *mdevx_share_dev_attach(const char *devstr);

/**
 * Close (see Ownership). The primary withdraws every record first (the
 * secondaries told, the published objects destroyed, its own imports and
 * rules released), then closes the context if the application holds no
 * object on it any more. A published TIR's queues are the application's:
 * close, destroy them, close again.
 * @return 0, or a negative errno:
 *   -ENOENT: not an open device (closed already);
 *   -EBUSY: objects of the application are still on the device's context.
 *     Primary: every record is withdrawn, the device stays open (its
 *     secondaries are orphaned) for the next close. Secondary: nothing
 *     changed (imports intact);
 *   a destroy error (e.g. -EIO) in the primary: every record is withdrawn,
 *     the objects that could not be destroyed stay with their records; the
 *     device stays open and the next close tries again;
 *   -EBADF: the device's context was closed behind it (mdevx_close()); the
 *     device is closed all the same.
 * A secondary's device that stays open after its teardown started (another
 * thread made an object on the context meanwhile: -EBUSY) comes back
 * orphaned (ENODEV from lookups, as after the primary's close).
 */
MDEVX_API int mdevx_share_dev_close(struct mdevx_share_dev *dev);

/** The device context of this process (owned by @p dev). */
MDEVX_API struct mdevx_ctx *mdevx_share_dev_ctx(const struct mdevx_share_dev *dev);
/** The instance cookie (non-zero), or 0 with errno EINVAL or ENOENT. */
MDEVX_API uint64_t mdevx_share_dev_cookie(const struct mdevx_share_dev *dev);
/**
 * Records in the registry (published + withdrawn not yet released); 0 with
 * errno EINVAL or ENOENT for a bad device.
 */
MDEVX_API uint32_t mdevx_share_record_count(const struct mdevx_share_dev *dev);
/** Live imports of this process on @p dev; 0 with errno as above. */
MDEVX_API uint32_t mdevx_share_dev_imports(const struct mdevx_share_dev *dev);

/**
 * Primary: publish local object @p obj (a flow counter bulk or a TIR of
 * this device's context) under @p name; takes ownership (see Ownership).
 * A name is 1 to MDEVX_SHARE_NAME_MAX characters of [A-Za-z0-9._:/-]
 * (letters, digits, '.', '_', ':', '/', '-'); any other byte is -EINVAL
 * (logged).
 * @return 0; -EINVAL, -ENAMETOOLONG, -EEXIST, -ENOSPC, -EPROTOTYPE (not a
 *   counter or TIR), -EPERM (secondary, or an import), -EXDEV (object of
 *   another context); export errors.
 */
MDEVX_API int mdevx_share_publish(struct mdevx_share_dev *dev, const char *name,
				  struct mdevx_obj *obj);

/**
 * Primary: withdraw @p name: mark, notify secondaries, wait for their
 * acknowledgements (bounded), destroy the object, free the record.
 * @param acked  optional: number of secondaries that acknowledged.
 * @return 0 (also when some secondaries did not answer within the bound;
 *   they are logged); -EINVAL, -ENOENT, -EPERM, device errors of destroy.
 */
MDEVX_API int mdevx_share_withdraw(struct mdevx_share_dev *dev, const char *name,
				   unsigned int *acked);

/** Longest device string of mdevx_share_dev_open(), NUL included. */
#define MDEVX_SHARE_DEVSTR_MAX 128

/**
 * Secondary: the device strings the primary of this instance has open for
 * sharing, asked over rte_mp (one request per device, each bounded like an
 * attach; the list may change between them). Up to @p max go to @p devs,
 * in the primary's order. For tools that attach to whatever a primary
 * shares (app/mlx5-share-info).
 * @return how many devices the primary shares (may exceed @p max); -EPERM
 *   (not a secondary); -EINVAL; -ETIMEDOUT (no answer: a primary that does
 *   not load the library); -EOPNOTSUPP (a library that does not know the
 *   request); -EPROTO; the rte_mp error (no primary).
 */
MDEVX_API int mdevx_share_primary_devs(char (*devs)[MDEVX_SHARE_DEVSTR_MAX], unsigned int max);

/** The most secondaries attached to one device. */
#define MDEVX_SHARE_PEERS_MAX 64

/** A secondary attached to a device of the primary (mdevx_share_peers()). */
struct mdevx_share_peer {
	uint64_t id;		/**< the primary's id of its connection (non-zero) */
	int32_t pid;		/**< the kernel's (SCM_CREDENTIALS) once attached, before that
				 * what its request said: shown, not an identity */
	uint32_t attached;	/**< 1 once its attach completed; 0 during the handshake */
	uint32_t rules;		/**< its root rules the primary has recorded */
};

/**
 * The secondaries attached to the primary's device @p devstr: up to @p max
 * into @p peers, in the primary's order. In the primary, read directly; in
 * a secondary, asked over rte_mp (one request per secondary, bounded like
 * an attach; the list may change between them).
 * @return how many secondaries the device has (may exceed @p max);
 *   -EINVAL; -ENODEV (the primary does not share @p devstr); -ETIMEDOUT,
 *   -EOPNOTSUPP, -EPROTO, the rte_mp error (as mdevx_share_primary_devs()).
 */
MDEVX_API int mdevx_share_peers(const char *devstr, struct mdevx_share_peer *peers,
				unsigned int max);

/** Any process: a consistent copy of record @p name. 0 or negative errno. */
MDEVX_API int mdevx_share_lookup(struct mdevx_share_dev *dev, const char *name,
				 struct mdevx_share_record *rec);

/**
 * Any process: import record @p name of kind @p kind: MDEVX_OBJ_FLOW_COUNTER,
 * MDEVX_OBJ_TIR or MDEVX_OBJ_ANY (either; the only kinds a record holds:
 * any other kind is EINVAL).
 * Validates state, cookie, kind, checksum and that the export buffer
 * matches the record, then imports it on this process's context.
 * @return 0 with *imp set; negative errno (see Errors).
 */
MDEVX_API int mdevx_share_import(struct mdevx_share_dev *dev, const char *name,
				 enum mdevx_obj_kind kind, mdevx_share_imp_t *imp);

/**
 * Release an import, and its wrapper if mdevx_share_import_obj() made one.
 * 0; -ENOENT (not live: e.g. unimported twice); -EINVAL; -EBUSY (another
 * thread is in an mdevx_* call that uses the wrapper's object, a query or
 * an export: nothing released).
 */
MDEVX_API int mdevx_share_unimport(struct mdevx_share_dev *dev, mdevx_share_imp_t imp);

/**
 * The imported object, for use with the mdevx_* calls (e.g. as a flow
 * destination). It belongs to the import: mdevx_share_unimport() frees it
 * (never mdevx_obj_unimport()). Once the record is withdrawn, the
 * notification revokes it: every mdevx_* call with it gives -ESTALE, and
 * it never reaches the destroyed object (nor a new one that reuses its id);
 * a notification that arrives while such a call is in flight waits for it
 * (so this holds while the call ends within the primary's withdraw bound:
 * see doc/share.rst).
 * NULL with errno ENOENT or ESTALE.
 */
MDEVX_API struct mdevx_obj *mdevx_share_import_obj(struct mdevx_share_dev *dev,
						   mdevx_share_imp_t imp);

/**
 * Read counters of an imported bulk (see mdevx_counter_query()); fails with
 * -ESTALE once the record was withdrawn.
 */
MDEVX_API int mdevx_share_counter_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
					uint32_t offset, uint32_t n, int clear,
					struct mdevx_counter_stats *stats);

/** Query an imported TIR (see mdevx_tir_query()); -ESTALE once withdrawn. */
MDEVX_API int mdevx_share_tir_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
				    struct mdevx_tir_attr *attr);

/**
 * Iterate records: the first used slot >= @p start (its record in @p rec),
 * or -1 when there is none (errno untouched), or -1 with errno EINVAL or
 * ENOENT (bad argument). In the primary, from its private copy of what it
 * published (every record it owns, whatever the shared memory holds); in a
 * secondary, from the registry (records that do not verify are skipped).
 */
MDEVX_API int64_t mdevx_share_record_next(struct mdevx_share_dev *dev, uint32_t start,
					  struct mdevx_share_record *rec);

/* ------------------------------------------------------------------ */
/* Root rules on shared objects                                       */
/* ------------------------------------------------------------------ */

/** Rule handle: a value, not a pointer (stale or repeated use is detected). */
typedef struct {
	uint64_t id;
} mdevx_share_rule_t;

/**
 * A root rule whose destination and counter may be imports of this
 * process (see mdevx_rule_attr). For each of the two, set at most one of
 * the import handle and the local object (an object of the device's
 * context, mdevx_share_dev_ctx()).
 */
struct mdevx_share_rule_attr {
	const void *value;		/**< match value, the matcher's mask length */
	size_t value_len;
	enum mdevx_rule_dest dest;
	mdevx_share_imp_t dest_imp;	/**< DEST_OBJ: an imported TIR */
	struct mdevx_obj *dest_obj;	/**< DEST_OBJ: a local TIR or flow table */
	mdevx_share_imp_t counter_imp;	/**< an imported counter bulk, or 0 */
	struct mdevx_obj *counter_obj;	/**< a local counter bulk, or NULL */
	uint32_t counter_offset;	/**< counter inside the bulk */
};

/**
 * Install a root rule on @p matcher (made with mdevx_matcher_create() on
 * mdevx_share_dev_ctx(@p dev)) that steers to and counts on objects other
 * processes published. The rule is the library's: a withdrawal of a
 * record it uses removes it in this process before this process
 * acknowledges (so the owner's destroy never meets it), and if this
 * process dies, the primary removes it (within about 100 ms).
 * @return the rule, or a handle of id 0 with errno: EINVAL, ENOENT (device
 *   closed, unknown import), ESTALE (import withdrawn), EPROTOTYPE (an
 *   import of the wrong kind), the errors of mdevx_rule_create().
 */
MDEVX_API mdevx_share_rule_t mdevx_share_rule_create(struct mdevx_share_dev *dev,
						     struct mdevx_matcher *matcher,
						     const struct mdevx_share_rule_attr *attr);
/**
 * Remove a rule, or forget one a withdrawal removed already.
 * @return 0; -ENOENT (unknown handle, destroyed twice); device errors.
 */
MDEVX_API int mdevx_share_rule_destroy(struct mdevx_share_dev *dev, mdevx_share_rule_t rule);
/**
 * The rule's handle in the uverbs file (mdevx_rule_handle()), as logs and
 * the software device name it: 0 with *@p handle set; -ESTALE (removed by
 * a withdrawal); -ENOENT.
 */
MDEVX_API int mdevx_share_rule_handle(struct mdevx_share_dev *dev, mdevx_share_rule_t rule,
				      uint32_t *handle);
/** 0 while the rule is installed; -ESTALE once a withdrawal removed it; -ENOENT. */
MDEVX_API int mdevx_share_rule_state(struct mdevx_share_dev *dev, mdevx_share_rule_t rule);
/**
 * Counts: @p own, rules of this process installed now; @p peers (primary),
 * rules of live secondaries it was told about. 0 or -errno.
 */
MDEVX_API int mdevx_share_dev_rules(const struct mdevx_share_dev *dev, uint32_t *own,
				    uint32_t *peers);

/* ------------------------------------------------------------------ */
/* Counter snapshot service                                           */
/* ------------------------------------------------------------------ */

/**
 * Where the values of mdevx_share_counter_read() come from. Times are
 * CLOCK_MONOTONIC nanoseconds (the same clock in every process).
 */
struct mdevx_share_counter_snap {
	uint64_t refreshed_ns;	/**< when the refresh that wrote the values ended */
	uint64_t age_ns;	/**< the reader's now minus refreshed_ns */
	uint64_t refresh_seq;	/**< the bulk's refresh number (1 = the first) */
	int primary_alive;	/**< 0: the primary is gone, the values no longer move */
};

/**
 * Read counters of an imported (or, in the primary, published) bulk from
 * the snapshot the primary's service refreshes every period: no device
 * command, no lock a dead process could hold (a sequence counter per bulk;
 * a read torn by a refresh is retried, a bounded number of times).
 * @return 0 with @p snap filled; -EAGAIN (still torn after the retries);
 *   -ENODATA (the bulk is not in the service: service off, area full, not
 *   refreshed yet); -ESTALE (withdrawn); -EINVAL; -ENOENT; -ERANGE
 *   (offset + n past the bulk); -EIO (the area's slot is inconsistent with
 *   the import: scribbled). A bulk that does not fit the area is published
 *   all the same (logged): its reads give -ENODATA, fresh queries work.
 *   @p snap may be NULL.
 */
MDEVX_API int mdevx_share_counter_read(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
				       uint32_t offset, uint32_t n,
				       struct mdevx_counter_stats *stats,
				       struct mdevx_share_counter_snap *snap);
/**
 * Ask the primary to refresh the bulk of @p imp now, and wait (at most
 * @p timeout_ms) until a refresh that started after the call is visible.
 * The primary refreshes a bulk on request at most once per period: a
 * request within a period of the last one served is answered by the next
 * round (within a period); requests never delay a round.
 * @return 0; -ETIMEDOUT; -ENODATA (not in the service); -ESTALE; -EINVAL;
 *   -ENOENT.
 */
MDEVX_API int mdevx_share_counter_refresh(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
					  unsigned int timeout_ms);

/** The service as the primary runs it (readable in every process). */
struct mdevx_share_service_stats {
	uint32_t period_ms;		/**< 0: off */
	uint32_t bulks;			/**< bulks in the service */
	uint32_t capacity;		/**< counters the area holds */
	uint32_t used;			/**< counters in use */
	uint64_t refreshes;		/**< refresh rounds done */
	uint64_t failures;		/**< bulk refreshes that failed (values kept) */
	uint64_t commands;		/**< device commands the service sent */
	uint64_t last_round_ns;		/**< duration of the last round */
	uint64_t last_round_end_ns;	/**< when it ended (CLOCK_MONOTONIC) */
	int primary_alive;		/**< 0: the primary is gone */
};

/** 0 with @p st filled; -EINVAL; -ENOENT; -ENODATA (no service area). */
MDEVX_API int mdevx_share_service_stats(struct mdevx_share_dev *dev,
					struct mdevx_share_service_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_SHARE_H */

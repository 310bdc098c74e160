/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/**
 * @file
 * libmdevx: mlx5 DEVX objects (flow counters, TIRs and the queues a TIR
 * needs) with export / import / unimport between contexts that share the
 * same kernel resources.
 *
 * Build against it with `pkg-config --cflags --libs libmdevx`.
 *
 * @par Return and error convention
 * Functions returning `int` return 0 (or a non-negative value where stated)
 * on success and a negative errno value on failure; they also set `errno`
 * and, as DPDK's APIs do, `rte_errno` to the positive value. Functions
 * returning a pointer return NULL and set `errno` and `rte_errno`. A call
 * that succeeds leaves both as they were. Errors common to every call:
 * - EINVAL: a NULL pointer or an out-of-range argument;
 * - ENOENT: the context or object is not live in this process (already
 *   closed, destroyed or unimported, or never returned by this library);
 * - EPROTOTYPE: the object is of the wrong kind for the call;
 * - ESTALE: the object is an import that its owner withdrew (revoked by
 *   the layer that made the import, e.g. libmdevx_share): release it;
 * - ENOMEM: out of host memory.
 *
 * @par Firmware errors
 * When the device executed a command and failed it (rdma-core: EREMOTEIO
 * with status and syndrome in the output mailbox), the library logs one line
 * with the command name, the errno, the PRM status and the syndrome, and
 * returns the errno mapped from the status as rdma-core and the kernel do
 * (BAD_PARAM -> EINVAL, LIM -> ENOMEM, NO_RES -> EAGAIN, RES_BUSY -> EBUSY,
 * INT_ERR -> EIO, ...). mdevx_last_cmd_error() returns the opcode, status
 * and syndrome of the last failed command of the calling thread.
 *
 * @par Ownership
 * - An object made by a create/alloc call is *local*: only
 *   mdevx_obj_destroy() releases it, and it destroys the device object for
 *   every context that imported it.
 * - An object made by mdevx_obj_import() is an *import*: it refers to the
 *   device object of another context; only mdevx_obj_unimport() releases
 *   it (locally; the device object lives on). mdevx_obj_destroy() on an
 *   import fails with EPERM and mdevx_obj_unimport() on a local object
 *   fails with EPERM.
 * - Once the creator destroyed an object, using a remaining import fails
 *   with an error from the device (the handle no longer names it); the
 *   import must still be released with mdevx_obj_unimport(), which succeeds.
 *   Coordinating destroy with the importers is the application's job.
 * - mdevx_close() fails with EBUSY while local objects or imports of the
 *   context are alive.
 * - A lost device (removed or reset: the kernel disassociated its uverbs
 *   file, every command fails with EIO or ENOLINK without reaching it):
 *   the first destroy that fails so probes the device, marks the context
 *   lost and logs one line; from then on every destroy of an object,
 *   matcher or rule of the context releases it locally and returns 0, so
 *   that the context can be closed, as ibv_close_device() can after a
 *   fatal event. A destroy the device itself refuses (a status) is no loss:
 *   its error is returned and the object stays.
 * - Objects must not be released while another thread uses them.
 */
#ifndef MDEVX_H
#define MDEVX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MDEVX_API __attribute__((visibility("default")))

/** Device context (one uverbs file of one device). Opaque. */
struct mdevx_ctx;
/** Wrapper object (local or imported). Opaque. */
struct mdevx_obj;

/** Kinds of objects. */
enum mdevx_obj_kind {
	MDEVX_OBJ_ANY = 0,		/**< wildcard for mdevx_obj_import() */
	MDEVX_OBJ_FLOW_COUNTER = 1,	/**< a bulk of flow counters */
	MDEVX_OBJ_TIR = 2,
	MDEVX_OBJ_TD = 3,		/**< transport domain */
	MDEVX_OBJ_PD = 4,		/**< protection domain (verbs object) */
	MDEVX_OBJ_CQ = 5,
	MDEVX_OBJ_RQ = 6,
	MDEVX_OBJ_RQT = 7,
	MDEVX_OBJ_UAR = 8,		/**< UAR page (verbs object) */
	MDEVX_OBJ_UMEM = 9,		/**< registered user memory (verbs object) */
	MDEVX_OBJ_FLOW_TABLE = 10,	/**< DEVX NIC receive flow table */
	MDEVX_OBJ_FLOW_GROUP = 11,	/**< DEVX flow group */
	MDEVX_OBJ_FTE = 12,		/**< DEVX flow table entry */
	MDEVX_OBJ_KIND_MAX,
};

/** Printable name of a kind ("flow_counter", "tir", ...), "unknown" else. */
MDEVX_API const char *mdevx_obj_kind_name(enum mdevx_obj_kind kind);

/* ------------------------------------------------------------------ */
/* Contexts                                                           */
/* ------------------------------------------------------------------ */

/**
 * Open a device and read its capabilities (QUERY_HCA_CAP).
 *
 * @param devstr
 *   "rdma:<ibdev>" e.g. "rdma:mlx5_0": a DEVX context (rdma-core) on the IB
 *   device of that name. On the software device, the program runs under
 *   `mlx5-swdev run`, which shows the daemon's devices to rdma-core.
 * @return
 *   A new context, or NULL with errno: EINVAL (malformed string, unknown
 *   prefix), ENODEV (no such device), ENOTSUP ("swdev:", the software
 *   device backend of earlier releases: the line logged names the rdma:
 *   string to use), errors of QUERY_HCA_CAP. The caller owns the context
 *   and closes it with mdevx_close().
 */
MDEVX_API struct mdevx_ctx *mdevx_open(const char *devstr);

/**
 * Make a second context on the uverbs file behind @p cmd_fd
 * (ibv_import_device() for rdma-core): it shares every kernel object of the
 * original context, so objects exported there can be imported here.
 *
 * @param devstr
 *   Selects the backend as for mdevx_open(); the device part is only
 *   informational (the fd decides).
 * @param cmd_fd
 *   The command fd of the original context (mdevx_cmd_fd()), usually a dup()
 *   or an fd received over a Unix socket. On success the new context owns
 *   it (it keeps a duplicate and closes @p cmd_fd at once); on any failure,
 *   also one after the backend import, the caller still owns it.
 * @return
 *   A new context, or NULL with errno: EINVAL, EBADF, ENOTSUP (import not
 *   supported by the installed rdma-core), errors of QUERY_HCA_CAP.
 */
MDEVX_API struct mdevx_ctx *mdevx_import_device(const char *devstr, int cmd_fd);

/**
 * The command fd of a context (owned by the context: dup() it before handing
 * it to mdevx_import_device() in the same process).
 * @return the fd (>= 0), or -EINVAL / -ENOENT.
 */
MDEVX_API int mdevx_cmd_fd(const struct mdevx_ctx *ctx);

/**
 * Close a context. Fails with -EBUSY while objects (local or imported),
 * matchers or rules of the context are alive. Returns 0, -EINVAL, -ENOENT, -EBUSY or a backend
 * error (the context is released anyway in that case).
 */
MDEVX_API int mdevx_close(struct mdevx_ctx *ctx);

/**
 * Live wrapper objects (local objects and imports), root matchers and root
 * rules of a context: what makes mdevx_close() fail with EBUSY. Compact
 * references do not count.
 * @return the count (>= 0), or -EINVAL / -ENOENT.
 */
MDEVX_API int mdevx_ctx_nb_objs(const struct mdevx_ctx *ctx);

/** Backend name of a context: "rdma"; NULL (errno) if invalid. */
MDEVX_API const char *mdevx_backend_name(const struct mdevx_ctx *ctx);

/** Device capabilities read once at open. */
struct mdevx_caps {
	uint32_t max_flow_counters;	/**< 0 if the device reports none */
	uint8_t flow_counter_bulk_alloc;	/**< bit i: bulks of 128 << i */
	uint8_t flow_counter_bulk_log_max_alloc; /**< caps 2; 0: log sizes not supported */
	uint8_t flow_counter_bulk_log_granularity; /**< caps 2 */
	uint8_t log_max_flow_counter_bulk;	/**< max counters in one query, log2 */
	uint8_t log_max_rqt_size;
	uint8_t log_max_tir;
	uint8_t log_max_rq;
	uint8_t log_max_rqt;
	uint8_t log_max_cq;
	uint8_t log_max_cq_sz;
	uint8_t log_max_wq_sz;
	uint8_t log_max_transport_domain;
	uint8_t log_max_pd;
	uint8_t has_caps2;		/**< the general caps 2 page was readable */
	uint16_t vhca_id;
	/**
	 * Counters one QUERY_FLOW_COUNTER of the library reads: 1 <<
	 * log_max_flow_counter_bulk, and at most 2048, the largest power of
	 * two whose output mailbox fits a uverbs attribute (its length is 16
	 * bits: struct ib_uverbs_attr.len). Larger reads take several commands.
	 */
	uint32_t max_counters_per_query;
};

/** Copy the capabilities of @p ctx into @p caps. 0, -EINVAL or -ENOENT. */
MDEVX_API int mdevx_get_caps(const struct mdevx_ctx *ctx, struct mdevx_caps *caps);

/** Details of the last failed device command of the calling thread. */
struct mdevx_cmd_error {
	uint16_t opcode;	/**< PRM opcode of the command */
	uint8_t status;		/**< PRM status (0 if the failure was not firmware's) */
	uint32_t syndrome;	/**< PRM syndrome */
	int err;		/**< positive errno returned for it */
};

/**
 * Get (and keep) the last failed device command of the calling thread.
 * @return 0, -EINVAL (NULL), -ENOENT (no command failed yet in this thread).
 */
MDEVX_API int mdevx_last_cmd_error(struct mdevx_cmd_error *err);

/* ------------------------------------------------------------------ */
/* Objects in general                                                 */
/* ------------------------------------------------------------------ */

/** What a wrapper object knows; identical on the creator and importers. */
struct mdevx_obj_info {
	enum mdevx_obj_kind kind;
	uint32_t id;		/**< counter base id, tirn, rqn, cqn, rqtn, tdn, pdn... */
	uint32_t bulk_size;	/**< counters in the bulk (flow counters), else 0 */
	uint32_t tirn;		/**< TIR number (TIRs), else 0 */
	uint64_t rx_icm_addr;	/**< RX ICM address (TIRs), else 0 */
	uint32_t generation;	/**< creator's generation number of the object */
	int imported;		/**< 1 for an import, 0 for a local object */
};

/** Fill @p info. 0, -EINVAL, -ENOENT or -ESTALE (a revoked import). */
MDEVX_API int mdevx_obj_info(const struct mdevx_obj *obj, struct mdevx_obj_info *info);

/**
 * The context @p obj was created or imported on; NULL with errno EINVAL,
 * ENOENT or ESTALE (a revoked import).
 */
MDEVX_API struct mdevx_ctx *mdevx_obj_ctx(const struct mdevx_obj *obj);

/**
 * Destroy a local object: the device object is destroyed for every context
 * (imports of it become stale), then the wrapper is freed. Objects owned by
 * the object (the buffers, umems and UAR of a CQ or RQ) are released too.
 * @return 0; -EINVAL; -ENOENT; -EPERM (an import: use mdevx_obj_unimport());
 *   -EBUSY without a device command while flow groups (of a table), flow
 *   table entries (of a group) or root rules (of a TIR, flow table or
 *   counter bulk given as a local object) of this process use it; a device
 *   error (the object stays alive, e.g. -EBUSY while a TIR still uses an
 *   RQ, or while a rule of another context steers to it).
 */
MDEVX_API int mdevx_obj_destroy(struct mdevx_obj *obj);

/* ------------------------------------------------------------------ */
/* Flow counters                                                      */
/* ------------------------------------------------------------------ */

/**
 * Allocate a bulk of @p bulk_size flow counters (ALLOC_FLOW_COUNTER).
 *
 * @param bulk_size
 *   1 (a single counter), or a power of two: 128 << i when bit i of the
 *   flow_counter_bulk_alloc capability is set, or any power of two up to
 *   1 << flow_counter_bulk_log_max_alloc (and not below the granularity)
 *   when the device has the capability-2 log-size allocation.
 * @return the bulk, or NULL with errno: EINVAL (not a power of two, 0),
 *   ENOTSUP (size not offered by the device capabilities; logged), device
 *   errors (ENOMEM for LIM_ERR when the device is out of counters...).
 */
MDEVX_API struct mdevx_obj *mdevx_counter_alloc(struct mdevx_ctx *ctx, uint32_t bulk_size);

/** Values of one flow counter. */
struct mdevx_counter_stats {
	uint64_t packets;
	uint64_t bytes;
};

/**
 * Read counters @p offset .. @p offset + @p n - 1 of a bulk (local or
 * imported) with QUERY_FLOW_COUNTER: one command when @p n is at most
 * 1 << log_max_flow_counter_bulk, else as many commands of that size as
 * needed.
 *
 * @param clear  non-zero: read and clear.
 * @param stats  array of @p n entries, filled in order.
 * @return 0; -EINVAL (NULL, n == 0); -ERANGE (range outside the bulk);
 *   -EPROTOTYPE (not a counter); -ENOENT; device errors (e.g. on an import
 *   whose object the creator destroyed).
 */
MDEVX_API int mdevx_counter_query(struct mdevx_obj *cnt, uint32_t offset, uint32_t n,
				  int clear, struct mdevx_counter_stats *stats);

/* ------------------------------------------------------------------ */
/* Queues and what a TIR needs                                        */
/* ------------------------------------------------------------------ */

/** Allocate a transport domain (ALLOC_TRANSPORT_DOMAIN). NULL + errno. */
MDEVX_API struct mdevx_obj *mdevx_td_alloc(struct mdevx_ctx *ctx);
/** Allocate a protection domain (verbs; id = pdn). Not exportable. */
MDEVX_API struct mdevx_obj *mdevx_pd_alloc(struct mdevx_ctx *ctx);
/** Allocate a UAR page (verbs; id = page id). Not exportable. */
MDEVX_API struct mdevx_obj *mdevx_uar_alloc(struct mdevx_ctx *ctx);
/**
 * Register @p size bytes at @p addr as a umem (verbs; id = umem id). The
 * memory must stay valid until the umem is destroyed. Not exportable.
 */
MDEVX_API struct mdevx_obj *mdevx_umem_reg(struct mdevx_ctx *ctx, void *addr, size_t size,
					   uint32_t access);
/** EQ number for completion vector @p vector. 0 or negative errno. */
MDEVX_API int mdevx_query_eqn(struct mdevx_ctx *ctx, uint32_t vector, uint32_t *eqn);

/** CQ creation attributes. */
struct mdevx_cq_attr {
	uint32_t log_cq_size;	/**< log2 of the number of 64-byte CQEs, >= 1 */
	uint32_t eq_vector;	/**< completion vector for mdevx_query_eqn() */
};

/**
 * Create a CQ (CREATE_CQ). The library allocates the CQE buffer and the
 * doorbell record, registers them as umems, allocates a UAR page and looks
 * up the EQN; all of that belongs to the CQ and is released by
 * mdevx_obj_destroy(). id = cqn. NULL + errno.
 */
MDEVX_API struct mdevx_obj *mdevx_cq_create(struct mdevx_ctx *ctx,
					    const struct mdevx_cq_attr *attr);

/** RQ creation attributes. */
struct mdevx_rq_attr {
	struct mdevx_obj *cq;	/**< completion queue (kind CQ, same context) */
	struct mdevx_obj *pd;	/**< protection domain (kind PD, same context) */
	uint32_t log_wq_size;	/**< log2 of the number of WQEs, >= 1 */
	uint32_t log_wq_stride;	/**< log2 of the WQE stride in bytes, 4..11 */
	uint32_t user_index;	/**< 24-bit user index */
};

/**
 * Create a cyclic RQ (CREATE_RQ, in RST) with a library-owned WQ buffer and
 * doorbell record registered as umems, then move it to RDY (MODIFY_RQ).
 * id = rqn. NULL + errno (EPROTOTYPE when cq/pd are of another kind, EXDEV
 * when they belong to another context).
 */
MDEVX_API struct mdevx_obj *mdevx_rq_create(struct mdevx_ctx *ctx,
					    const struct mdevx_rq_attr *attr);

/**
 * Create an RQ table over @p n_rqs RQs (CREATE_RQT). Its size is @p n_rqs
 * rounded up to a power of two, padded by repeating the list; it must not
 * exceed 1 << log_max_rqt_size (else ENOTSUP). id = rqtn. NULL + errno.
 */
MDEVX_API struct mdevx_obj *mdevx_rqt_create(struct mdevx_ctx *ctx,
					     struct mdevx_obj *const *rqs, uint32_t n_rqs);

/* ------------------------------------------------------------------ */
/* TIRs                                                               */
/* ------------------------------------------------------------------ */

#define MDEVX_TIR_DISP_DIRECT 0		/**< to one RQ (inline_rqn) */
#define MDEVX_TIR_DISP_INDIRECT 1	/**< through an RQT, with RSS */

#define MDEVX_TIR_HASH_FN_NONE 0
#define MDEVX_TIR_HASH_FN_INVERTED_XOR8 1
#define MDEVX_TIR_HASH_FN_TOEPLITZ 2

#define MDEVX_L3_PROT_IPV4 0
#define MDEVX_L3_PROT_IPV6 1
#define MDEVX_L4_PROT_TCP 0
#define MDEVX_L4_PROT_UDP 1

#define MDEVX_HASH_FIELD_SRC_IP (1u << 0)
#define MDEVX_HASH_FIELD_DST_IP (1u << 1)
#define MDEVX_HASH_FIELD_L4_SPORT (1u << 2)
#define MDEVX_HASH_FIELD_L4_DPORT (1u << 3)
#define MDEVX_HASH_FIELD_IPSEC_SPI (1u << 4)

#define MDEVX_TOEPLITZ_KEY_LEN 40

/**
 * TIR attributes: input of mdevx_tir_create(), output of mdevx_tir_query().
 * Numbers, not objects, so a query can be compared field by field.
 */
struct mdevx_tir_attr {
	uint32_t disp_type;		/**< MDEVX_TIR_DISP_* */
	uint32_t inline_rqn;		/**< direct: the RQ number */
	uint32_t indirect_table;	/**< indirect: the RQT number */
	uint32_t transport_domain;	/**< transport domain number */
	uint8_t rx_hash_fn;		/**< indirect: MDEVX_TIR_HASH_FN_* */
	uint8_t rx_hash_symmetric;	/**< 0 or 1 */
	uint8_t outer_l3_prot_type;	/**< MDEVX_L3_PROT_* */
	uint8_t outer_l4_prot_type;	/**< MDEVX_L4_PROT_* */
	uint32_t outer_selected_fields;	/**< MDEVX_HASH_FIELD_* bits */
	uint8_t toeplitz_key[MDEVX_TOEPLITZ_KEY_LEN]; /**< Toeplitz hash key */
};

/**
 * Create a TIR (CREATE_TIR). id = tirn; the RX ICM address of the
 * create output is kept in the object (mdevx_obj_info()).
 * @return the TIR, or NULL with errno: EINVAL (bad disp_type, hash
 *   function, field bits or prot types), device errors (e.g. EINVAL for an
 *   RQ or RQT number the device does not know).
 */
MDEVX_API struct mdevx_obj *mdevx_tir_create(struct mdevx_ctx *ctx,
					     const struct mdevx_tir_attr *attr);

/**
 * Read a TIR (local or imported) back with QUERY_TIR into @p attr.
 * @return 0; -EINVAL; -ENOENT; -EPROTOTYPE; device errors.
 */
MDEVX_API int mdevx_tir_query(struct mdevx_obj *tir, struct mdevx_tir_attr *attr);

/* ------------------------------------------------------------------ */
/* Flow steering: root rules and DEVX flow tables                     */
/* ------------------------------------------------------------------ */

/*
 * Root rules are what mlx5dv_create_flow_matcher() and mlx5dv_create_flow()
 * make on rdma-core: rules in the kernel's NIC receive tables, evaluated by
 * matcher priority, sending a match to a TIR or to a DEVX flow table of the
 * application, counting it, or dropping it. DEVX flow tables (level >= 1)
 * hold the application's own groups and entries, built as PRM mailboxes.
 * See doc/driver.rst for the rdma-core mapping and its limits.
 *
 * Match buffers (masks and values) are PRM fte_match_param bytes, made by
 * name with mdevx_match_set() (struct mdevx_match); this library matches
 * on the outer L2-L4 headers only (the first 64 bytes,
 * fte_match_set_lyr_2_4): a set bit past them, or a criteria bit other than
 * MDEVX_MATCH_OUTER, is EINVAL before any device command.
 */

/** Size of a match parameter block (PRM fte_match_param). */
#define MDEVX_MATCH_PARAM_LEN 512
/** match_criteria_enable: outer L2-L4 headers (the only set supported). */
#define MDEVX_MATCH_OUTER 0x1

/**
 * The outer L2-L4 fields a match compares (PRM fte_match_set_lyr_2_4, the
 * first 64 bytes of fte_match_param), for mdevx_match_set(). Values are
 * numbers in host order: a MAC address is its 48 bits (00:11:22:33:44:55
 * is 0x001122334455), an IPv4 address its 32 bits (10.0.0.1 is
 * 0x0a000001). The VLAN fields are the first tag's. An IPv4 address is the
 * last 4 bytes of the 16-byte IPv6 address field (mdevx_match_set_ipv6()).
 */
enum mdevx_match_field {
	MDEVX_MATCH_SMAC,	/**< 48 bits */
	MDEVX_MATCH_DMAC,	/**< 48 bits */
	MDEVX_MATCH_ETHERTYPE,	/**< 16 bits */
	MDEVX_MATCH_VLAN_PRIO,	/**< 3 bits */
	MDEVX_MATCH_VLAN_CFI,	/**< 1 bit */
	MDEVX_MATCH_VLAN_ID,	/**< 12 bits */
	MDEVX_MATCH_CVLAN_TAG,	/**< 1 bit: a customer VLAN tag (0x8100) */
	MDEVX_MATCH_SVLAN_TAG,	/**< 1 bit: a service VLAN tag (0x88a8) */
	MDEVX_MATCH_IP_VERSION,	/**< 4 bits: 4 or 6 */
	MDEVX_MATCH_IP_PROTOCOL, /**< 8 bits: 6 TCP, 17 UDP... */
	MDEVX_MATCH_IP_DSCP,	/**< 6 bits */
	MDEVX_MATCH_IP_ECN,	/**< 2 bits */
	MDEVX_MATCH_IP_TTL,	/**< 8 bits: TTL or hop limit */
	MDEVX_MATCH_FRAG,	/**< 1 bit: an IP fragment */
	MDEVX_MATCH_SRC_IPV4,	/**< 32 bits */
	MDEVX_MATCH_DST_IPV4,	/**< 32 bits */
	MDEVX_MATCH_TCP_SPORT,	/**< 16 bits */
	MDEVX_MATCH_TCP_DPORT,	/**< 16 bits */
	MDEVX_MATCH_TCP_FLAGS,	/**< 9 bits */
	MDEVX_MATCH_UDP_SPORT,	/**< 16 bits */
	MDEVX_MATCH_UDP_DPORT,	/**< 16 bits */
	MDEVX_MATCH_FIELD_MAX,
};

/**
 * A mask and a value of MDEVX_MATCH_PARAM_LEN bytes each: mask for
 * mdevx_matcher_attr, value for mdevx_rule_attr (and
 * mdevx_share_rule_attr), both with length MDEVX_MATCH_PARAM_LEN.
 */
struct mdevx_match {
	uint8_t mask[MDEVX_MATCH_PARAM_LEN];
	uint8_t value[MDEVX_MATCH_PARAM_LEN];
};

/** Clear @p m: nothing compared. 0, or -EINVAL (NULL). */
MDEVX_API int mdevx_match_init(struct mdevx_match *m);
/**
 * Compare field @p f: the bits of @p mask, which must equal those of
 * @p value (mask 0: the field is not compared any more).
 * @return 0, or -EINVAL (NULL, no such field, a mask wider than the field,
 *   value bits outside the mask), logged; @p m unchanged then.
 */
MDEVX_API int mdevx_match_set(struct mdevx_match *m, enum mdevx_match_field f,
			      uint64_t value, uint64_t mask);
/** What field @p f of @p m compares: 0 and @p value, @p mask; -EINVAL. */
MDEVX_API int mdevx_match_get(const struct mdevx_match *m, enum mdevx_match_field f,
			      uint64_t *value, uint64_t *mask);
/**
 * Compare the source (@p dst 0) or destination IPv6 address: 16 bytes in
 * network order each. Overwrites that direction's IPv4 field.
 * @return 0, or -EINVAL (NULL, address bits outside the mask).
 */
MDEVX_API int mdevx_match_set_ipv6(struct mdevx_match *m, int dst, const uint8_t addr[16],
				   const uint8_t mask[16]);

/** Root matcher: what mlx5dv_create_flow_matcher() takes (NIC receive). */
struct mdevx_matcher_attr {
	uint16_t priority;		/**< lower is evaluated first (rdma-core: 0..15) */
	uint8_t match_criteria_enable;	/**< MDEVX_MATCH_OUTER (0: mask all zero) */
	const void *mask;		/**< fte_match_param bytes, bits to compare */
	size_t mask_len;		/**< 4..MDEVX_MATCH_PARAM_LEN, a multiple of 4 */
};

/** A root matcher. Opaque. */
struct mdevx_matcher;
/** A root rule. Opaque. */
struct mdevx_rule;

/**
 * Create a root matcher (mlx5dv_create_flow_matcher() on rdma-core). It
 * counts on @p ctx (mdevx_ctx_nb_objs()) until destroyed.
 * @return the matcher, or NULL with errno: EINVAL (NULL, a mask length not
 *   in 4..512 or not a multiple of 4, a criteria bit other than outer, a
 *   mask bit outside the outer headers, mask bits with criteria 0);
 *   ENOENT (closed context); EOPNOTSUPP (mask on an outer field the device
 *   cannot match); backend errors.
 */
MDEVX_API struct mdevx_matcher *mdevx_matcher_create(struct mdevx_ctx *ctx,
						     const struct mdevx_matcher_attr *attr);
/**
 * Destroy a matcher: 0; -EINVAL (NULL); -ENOENT (not live); -EBUSY (it
 * still has rules, checked by the library); backend errors.
 */
MDEVX_API int mdevx_matcher_destroy(struct mdevx_matcher *matcher);

/** Where a root rule sends a matching packet. */
enum mdevx_rule_dest {
	MDEVX_RULE_DEST_NONE = 0,	/**< count only, go on to lower priorities */
	MDEVX_RULE_DEST_OBJ = 1,	/**< a TIR or a DEVX flow table */
	MDEVX_RULE_DEST_DROP = 2,
};

/**
 * A root rule: what mlx5dv_create_flow() takes. The destination and the
 * counter are given either as objects (local or imported) of the matcher's
 * context or as references imported on it (mdevx_obj_import_ref()); at
 * most one of each pair is set.
 */
struct mdevx_rule_attr {
	const void *value;		/**< match value, the matcher's mask_len bytes */
	size_t value_len;		/**< == the matcher's mask_len */
	enum mdevx_rule_dest dest;
	struct mdevx_obj *dest_obj;		/**< DEST_OBJ: TIR or flow table */
	const struct mdevx_obj_ref *dest_ref;	/**< DEST_OBJ: imported TIR */
	struct mdevx_obj *counter;		/**< optional counter bulk */
	const struct mdevx_obj_ref *counter_ref; /**< optional imported bulk */
	uint32_t counter_offset;		/**< counter inside the bulk */
};

/**
 * Create a root rule (mlx5dv_create_flow() with
 * MLX5DV_FLOW_ACTION_DEST_DEVX / MLX5DV_FLOW_ACTION_COUNTERS_DEVX(_WITH_OFFSET)
 * / MLX5DV_FLOW_ACTION_DROP on rdma-core). DEST_NONE needs a counter.
 *
 * The rule holds a reference on the matcher and on the local objects it
 * uses (their destroy is EBUSY until the rule is gone); an import or a
 * reference is needed for the creation only and may be released once it
 * returns. A creation racing a revocation of an import it uses
 * (mdevx_obj_revoke()) either fails with ESTALE or completes before the
 * import's backend object is released. The rule counts on the matcher's
 * context (mdevx_ctx_nb_objs()).
 * @return the rule, or NULL with errno: EINVAL (NULL, bad attributes: value
 *   length, destination kind with or without an object, DEST_NONE without a
 *   counter, an offset without a counter, a counter offset not below the
 *   bulk size (checked by the library), an object of another context, a
 *   released reference); ENOENT (matcher or object not live, or a local
 *   object being destroyed); EPROTOTYPE (destination not a TIR or flow
 *   table, counter not a counter bulk); ESTALE (revoked import); EEXIST
 *   (same value on this matcher); ENOTSUP (rdma-core before 60: a counter
 *   offset other than 0); backend errors.
 */
MDEVX_API struct mdevx_rule *mdevx_rule_create(struct mdevx_matcher *matcher,
					       const struct mdevx_rule_attr *attr);
/**
 * Destroy a rule: 0; -EINVAL; -ENOENT; backend errors. A rule another
 * context removed with mdevx_rule_destroy_handle() is released without a
 * device command (0); so is one the backend no longer finds (removed by
 * another process sharing the file).
 */
MDEVX_API int mdevx_rule_destroy(struct mdevx_rule *rule);
/**
 * The rule's kernel handle in its uverbs file. Processes sharing the file
 * (mdevx_import_device()) can remove each other's rules with
 * mdevx_rule_destroy_handle().
 * @return the handle, or UINT32_MAX with errno EINVAL / ENOENT.
 */
MDEVX_API uint32_t mdevx_rule_handle(const struct mdevx_rule *rule);
/**
 * Destroy the root rule @p handle of the uverbs file of @p ctx, created by
 * any process that shares the file: meant for the rules of a process that
 * died. A rule of this process (of any of its contexts on that file) is
 * marked removed, and its mdevx_rule_destroy() only releases the wrapper.
 * A live process that still holds the rule must not be cleaned up this way:
 * the kernel hands the freed handle to the next object of the file, which
 * that process's mdevx_rule_destroy() would then remove.
 * @return 0; -EINVAL (NULL context; the handle names an object that is not
 *   a rule); -ENOENT (closed context, or no such handle); backend errors.
 */
MDEVX_API int mdevx_rule_destroy_handle(struct mdevx_ctx *ctx, uint32_t handle);

/** DEVX flow table attributes (CREATE_FLOW_TABLE, NIC receive). */
struct mdevx_flow_table_attr {
	uint8_t level;			/**< 1..; destinations must be deeper */
	uint8_t log_size;		/**< 2^log_size entries, at most 24 */
	uint8_t miss_fwd;		/**< 0, or 1: a miss goes to miss_table_id */
	uint32_t miss_table_id;		/**< table of a higher level; 0 if !miss_fwd */
};

/** DEVX flow group attributes (CREATE_FLOW_GROUP). */
struct mdevx_flow_group_attr {
	uint32_t start_index;		/**< first entry index, inclusive */
	uint32_t end_index;		/**< last entry index, inclusive, < table size */
	uint8_t match_criteria_enable;	/**< MDEVX_MATCH_OUTER, or 0 (no mask) */
	const void *mask;		/**< fte_match_param bytes (may be NULL if mask_len 0) */
	size_t mask_len;		/**< at most MDEVX_MATCH_PARAM_LEN */
};

/** One destination of a flow table entry, by device number. */
struct mdevx_fte_dest {
	uint8_t type;			/**< MDEVX_FTE_DEST_TIR / _FLOW_TABLE */
	uint32_t id;			/**< tirn or table id (24 bits) */
};
#define MDEVX_FTE_DEST_FLOW_TABLE 0x1
#define MDEVX_FTE_DEST_TIR 0x2

#define MDEVX_FTE_ACTION_DROP 0x2
#define MDEVX_FTE_ACTION_FWD_DEST 0x4
#define MDEVX_FTE_ACTION_COUNT 0x8

/** Maximum destinations and counters of one entry through this API. */
#define MDEVX_FTE_MAX_DESTS 16

/** DEVX flow table entry attributes (SET_FLOW_TABLE_ENTRY). */
struct mdevx_fte_attr {
	uint32_t flow_index;		/**< inside the group's range */
	uint32_t action;		/**< DROP or FWD_DEST, and/or COUNT */
	const void *value;		/**< match value, fte_match_param bytes */
	size_t value_len;		/**< at most MDEVX_MATCH_PARAM_LEN */
	uint32_t ndests;		/**< 1..16 with FWD_DEST, else 0 */
	struct mdevx_fte_dest dests[MDEVX_FTE_MAX_DESTS];
	uint32_t ncounters;		/**< 1..16 with COUNT, else 0 */
	uint32_t counter_ids[MDEVX_FTE_MAX_DESTS];	/**< flow counter ids */
};

/*
 * Flow tables, groups and entries are local DEVX objects (mdevx_obj_info()
 * works, kind names "flow_table", "flow_group", "fte"), released with
 * mdevx_obj_destroy(): entries first, then groups, then the table (the
 * library answers EBUSY otherwise). They are not exportable (ENOTSUP). A
 * device refusal (e.g. a destination or miss table that is not deeper, an
 * unknown TIR, an entry index taken) comes back as the errno mapped from
 * the PRM status (EINVAL for BAD_PARAM), logged with status and syndrome.
 */

/**
 * Create a DEVX flow table (CREATE_FLOW_TABLE, NIC receive). id = table id.
 * @return the table, or NULL with errno: EINVAL (level 0, log_size above
 *   24, level or log_size above the device's max_ft_level / log_max_ft_size
 *   when it reports its NIC flow table capabilities, miss_fwd not 0/1, a
 *   miss table without miss_fwd or above 24 bits), ENOENT, device errors.
 */
MDEVX_API struct mdevx_obj *mdevx_flow_table_create(struct mdevx_ctx *ctx,
						    const struct mdevx_flow_table_attr *attr);
/**
 * Read a table back (QUERY_FLOW_TABLE): level, log_size, miss_fwd and
 * miss_table_id. 0; -EINVAL; -ENOENT; -EPROTOTYPE; device errors.
 */
MDEVX_API int mdevx_flow_table_query(struct mdevx_obj *table,
				     struct mdevx_flow_table_attr *attr);
/**
 * Create a flow group in @p table (CREATE_FLOW_GROUP). id = group id.
 * @return the group, or NULL with errno: EINVAL (range not ordered or past
 *   the table, criteria other than outer, mask too long or outside the
 *   outer headers); ENOENT; EPROTOTYPE (not a flow table); device errors.
 */
MDEVX_API struct mdevx_obj *mdevx_flow_group_create(struct mdevx_obj *table,
						    const struct mdevx_flow_group_attr *attr);
/**
 * Set a flow table entry (SET_FLOW_TABLE_ENTRY, op_mod 0) in @p group of
 * @p table; destroyed (DELETE_FLOW_TABLE_ENTRY) with mdevx_obj_destroy().
 * id = flow index.
 * @return the entry, or NULL with errno: EINVAL (the group is not one of
 *   @p table, index outside the group, actions, destination or counter
 *   lists not as in struct mdevx_fte_attr, a table forwarding to itself, a
 *   value outside the outer headers); ENOENT; EPROTOTYPE; device errors.
 */
MDEVX_API struct mdevx_obj *mdevx_fte_create(struct mdevx_obj *table, struct mdevx_obj *group,
					     const struct mdevx_fte_attr *attr);

/* ------------------------------------------------------------------ */
/* Export / import / unimport                                         */
/* ------------------------------------------------------------------ */

/**
 * Size of an export buffer for objects of @p ctx: a fixed library header
 * plus the backend's DEVX object attributes (rdma-core
 * mlx5dv_get_export_sizes().devx_obj_attrs_size, 32 bytes today).
 * @return 0 with *size set; -EINVAL; -ENOENT.
 */
MDEVX_API int mdevx_export_size(const struct mdevx_ctx *ctx, size_t *size);

/**
 * Export a local or imported DEVX object (counter, TIR, TD, CQ, RQ, RQT)
 * into @p buf: kind, id, bulk size, tirn, RX ICM address, generation, the
 * backend's attributes and a checksum. Purely local: no device command.
 * @return 0; -EINVAL; -ENOENT; -ENOSPC (@p len below mdevx_export_size());
 *   -ENOTSUP (PD, UAR, umem, flow tables, groups and entries are not
 *   exportable; rdma-core compatibility path refused the library's object
 *   layout).
 */
MDEVX_API int mdevx_obj_export(struct mdevx_obj *obj, void *buf, size_t len);

/**
 * Import an exported object on @p ctx, a context sharing the kernel
 * resources of the exporter's (same uverbs file: mdevx_import_device()).
 * Purely local: a stale buffer (object destroyed since) is only discovered
 * when the import is used. The import keeps kind, id, bulk size, tirn and
 * RX ICM address exactly.
 *
 * @param expect  MDEVX_OBJ_ANY or the kind the caller wants.
 * @return the import (release with mdevx_obj_unimport()), or NULL with
 *   errno: EINVAL; ENOENT; EBADMSG (not an export buffer: magic, version,
 *   size or checksum mismatch); EXDEV (exported from another backend);
 *   EPROTOTYPE (kind differs from @p expect); ENOTSUP (compatibility path
 *   refused the layout).
 */
MDEVX_API struct mdevx_obj *mdevx_obj_import(struct mdevx_ctx *ctx, const void *buf,
					     size_t len, enum mdevx_obj_kind expect);

/**
 * Release an import (local only; the device object is untouched). Works
 * also when the exporter already destroyed the object, and on a revoked
 * import.
 * @return 0; -EINVAL; -ENOENT (not live, e.g. unimported twice); -EPERM
 *   (a local object: use mdevx_obj_destroy(); or an import another layer
 *   holds, such as one from mdevx_share_import_obj(): release it there);
 *   -EBUSY (another thread is
 *   in a call that uses its backend object, a counter or TIR query or an
 *   export, or is revoking it).
 */
MDEVX_API int mdevx_obj_unimport(struct mdevx_obj *obj);

/**
 * Compact import of a flow counter bulk or a TIR, held in caller storage
 * (32 bytes): no wrapper allocation and no entry in the library's table of
 * live objects. For layers that keep their own handles (libmdevx_share keeps
 * one per import in its pool). The caller owns the storage and must make sure
 * it is used with the context it was imported on, and released once with
 * mdevx_obj_unimport_ref(): the library cannot tell a stale or forged
 * reference. Fields are read-only for the caller.
 */
struct mdevx_obj_ref {
	void *bobj;			/**< backend object (private) */
	uint64_t rx_icm_addr;		/**< TIRs */
	uint32_t id;			/**< counter base id or tirn */
	uint32_t size_or_tirn;		/**< bulk size (counters) or tirn (TIRs) */
	uint8_t kind;			/**< MDEVX_OBJ_FLOW_COUNTER or MDEVX_OBJ_TIR */
	uint8_t reserved[7];
};

/**
 * Import a counter bulk or TIR from an export buffer into @p ref, with the
 * validation of mdevx_obj_import().
 * @param expect  MDEVX_OBJ_FLOW_COUNTER or MDEVX_OBJ_TIR (else -EINVAL).
 * @return 0; -EINVAL; -ENOENT (context); -EBADMSG; -EXDEV; -EPROTOTYPE;
 *   backend errors.
 */
MDEVX_API int mdevx_obj_import_ref(struct mdevx_ctx *ctx, const void *buf, size_t len,
				   enum mdevx_obj_kind expect, struct mdevx_obj_ref *ref);
/** Release a reference (local only). 0; -EINVAL (NULL or released); -ENOENT. */
MDEVX_API int mdevx_obj_unimport_ref(struct mdevx_ctx *ctx, struct mdevx_obj_ref *ref);
/** mdevx_counter_query() on a reference (-EPROTOTYPE if not a counter). */
MDEVX_API int mdevx_ref_counter_query(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
				      uint32_t offset, uint32_t n, int clear,
				      struct mdevx_counter_stats *stats);
/** mdevx_tir_query() on a reference (-EPROTOTYPE if not a TIR). */
MDEVX_API int mdevx_ref_tir_query(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
				  struct mdevx_tir_attr *attr);

/* ------------------------------------------------------------------ */
/* Handing a context to DPDK's net/mlx5                               */
/* ------------------------------------------------------------------ */

/** Room for "cmd_fd=<int>,pd_handle=<u32>" and its NUL. */
#define MDEVX_DEVARGS_LEN 48

/**
 * What net/mlx5 (DPDK 22.03 and later) needs to run on a context of this
 * library instead of opening its own: devargs cmd_fd (it calls
 * ibv_import_device() on it) and pd_handle (ibv_import_pd()). Objects of
 * the library and of the driver then live in one uverbs file with one
 * DEVX uid, so each can use the other's queues, TIRs and counters.
 */
struct mdevx_devargs {
	/**
	 * A new descriptor (close-on-exec) of the context's command fd: the
	 * caller's, see mdevx_ctx_devargs() for who closes it.
	 */
	int cmd_fd;
	uint32_t pd_handle;	/**< kernel handle of the PD in the uverbs file */
	/** "cmd_fd=<cmd_fd>,pd_handle=<pd_handle>", to append to a device's devargs. */
	char devargs[MDEVX_DEVARGS_LEN];
};

/**
 * Fill @p out for handing @p ctx and its PD @p pd to net/mlx5 or to another
 * process: a duplicate of the command fd, the PD's handle and the devargs
 * string. No device command.
 *
 * Who closes what:
 * - out->cmd_fd is the caller's. Sent to another process (SCM_RIGHTS: the
 *   receiver gets a descriptor of its own), close it after the send. Given
 *   in the devargs of rte_dev_probe() in this process, net/mlx5 owns it
 *   once the probe succeeded (ibv_close_device() closes it when the port
 *   is closed): do not close it then. After a failed probe it may or may
 *   not be closed already: release it with mdevx_devargs_release().
 * - @p pd stays the caller's: the driver imports it and unimports it when
 *   the port is closed. Destroy it (and close @p ctx) only after every
 *   user of the handle is done: the device object is shared, and the
 *   kernel does not count DEVX objects of the driver that use its pdn.
 * - @p ctx keeps its own command fd; the uverbs file lives until every
 *   descriptor of it is closed.
 *
 * @param ctx  a live context (either backend).
 * @param pd   a PD of @p ctx (mdevx_pd_alloc()).
 * @param out  filled on success; on failure cmd_fd is -1 and devargs "".
 * @return 0; -EINVAL (NULL); -ENOENT (context or PD not live); -EPROTOTYPE
 *   (@p pd is not a PD); -EXDEV (a PD of another context); -EMFILE and the
 *   other errors of fcntl(F_DUPFD_CLOEXEC). Each failure logs a line.
 */
MDEVX_API int mdevx_ctx_devargs(struct mdevx_ctx *ctx, struct mdevx_obj *pd,
				struct mdevx_devargs *out);

/**
 * Release the descriptor of @p da after a hand-over that failed (net/mlx5's
 * probe may close it on some failure paths, rdma-core's ibv_import_device()
 * on some of its own): closes da->cmd_fd if it still names the uverbs file
 * of @p ctx (kcmp(KCMP_FILE)), leaves it alone if it is closed or its
 * number now names another file, and sets da->cmd_fd to -1 (unless the
 * answer is -ENOTSUP). Not after a successful probe: the driver owns the
 * descriptor then. A duplicate of the same file that another thread got
 * under the same number meanwhile cannot be told from ours.
 * @return 1 (closed); 0 (already closed, or reused by another file: left
 *   alone); -EINVAL (NULL); -ENOENT (context not live); -EBADF (cmd_fd is
 *   -1: released already); -ENOTSUP (the kernel cannot tell: left open).
 */
MDEVX_API int mdevx_devargs_release(struct mdevx_ctx *ctx, struct mdevx_devargs *da);

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_H */

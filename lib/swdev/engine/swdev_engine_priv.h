/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: private definitions shared by its modules.
 *
 *   swdev_idmap.c        index maps (handles, object ids), lowest free first
 *   swdev_htab.c         hash tables of steering values and entry indexes
 *   swdev_engine.c       engine, devices, files, limits, control path
 *   swdev_obj.c          object life: alloc, ids, references, file lists
 *   swdev_devx.c         the kernel's DEVX layer: classes, checks, dispatch
 *   swdev_verbs.c        PD, UAR, EQN, umem (verbs side)
 *   swdev_cmd_hca.c      QUERY_HCA_CAP, NOP
 *   swdev_cmd_counter.c  flow counters and the counter store
 *   swdev_cmd_td_pd.c    transport domain, DEVX ALLOC_PD
 *   swdev_cmd_cq.c       CQ
 *   swdev_cmd_rq.c       RQ
 *   swdev_cmd_rqt.c      RQT
 *   swdev_cmd_tir.c      TIR
 *   swdev_cmd_flow.c     DEVX flow tables, groups and entries
 *   swdev_steer.c        root matchers and rules, packet classification
 *   swdev_rx.c           the port: frame parser, delivery to RQs, statistics
 *   swdev_rss.c          RSS hash input and Toeplitz hash
 *   swdev_syndrome.c     syndrome names
 */
#ifndef SWDEV_ENGINE_PRIV_H
#define SWDEV_ENGINE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mdevx_prm.h"
#include "swdev_engine.h"
#include "swdev_syndrome.h"

#define SWDEV_MAX_DEVICES 16
#define SWDEV_MAX_FAULT_RULES 32
#define SWDEV_MAX_UID 0xffffu
/** Largest mailbox (in or out) the engine accepts; larger is EINVAL. */
#define SWDEV_MAX_MBOX_LEN (64u << 20)
/** First EQN handed out by query_eqn (EQ numbers are small on real NICs). */
#define SWDEV_EQN_BASE 8u
/** Flow counter store granule (counters per lazily allocated chunk). */
#define SWDEV_CNT_CHUNK_SHIFT 12
#define SWDEV_CNT_CHUNK (1u << SWDEV_CNT_CHUNK_SHIFT)
/** Upper bound for swdev_limits.max_flow_counters. */
#define SWDEV_MAX_FLOW_COUNTERS (1u << 24)
/** Synthetic RX ICM address of a TIR: 0x5d << 40 | dev << 32 | tirn << 8. */
#define SWDEV_TIR_ICM_BASE (0x5dull << 40)
/** Synthetic ICM address of a flow table: 0x5e << 40 | dev << 32 | id << 8. */
#define SWDEV_FT_ICM_BASE (0x5eull << 40)
/** Flow groups per device (ids are base + index, 24 bits). */
#define SWDEV_MAX_FLOW_GROUPS (1u << 20)
/** Bytes of a match set (fte_match_set_lyr_2_4): the only set matched. */
#define SWDEV_MATCH_SET_LEN MDEVX_ST_SZ_BYTES(fte_match_set_lyr_2_4)
/**
 * Largest prebuilt destroy command: delete_fte_in (64 bytes), as the
 * kernel's MLX5_MAX_DESTROY_INBOX_SIZE_DW.
 */
#define SWDEV_DESTROY_CMD_LEN MDEVX_ST_SZ_BYTES(delete_fte_in)

/* ---- index map ---- */

struct swdev_idmap {
	void **slot;
	uint64_t *used;
	uint32_t cap;	/* slots allocated (multiple of 64) */
	uint32_t max;	/* hard limit of entries */
	uint32_t count;
	uint32_t hint;	/* every index below hint is used */
};

void swdev_idmap_init(struct swdev_idmap *m, uint32_t max);
void swdev_idmap_fini(struct swdev_idmap *m);
/** Make room for one more entry: 0, ENOSPC (at max) or ENOMEM. */
int swdev_idmap_reserve(struct swdev_idmap *m);
/** Store @p p at the lowest free index; call swdev_idmap_reserve() first. */
uint32_t swdev_idmap_alloc(struct swdev_idmap *m, void *p);
void *swdev_idmap_get(const struct swdev_idmap *m, uint32_t idx);
void swdev_idmap_free(struct swdev_idmap *m, uint32_t idx);

/* ---- hash tables (swdev_htab.c) ---- */

struct swdev_obj;

/** A chained hash table node, embedded in the object it links. */
struct swdev_hnode {
	struct swdev_hnode *next;
	uint64_t hash;
	struct swdev_obj *obj;
};

/** Chained hash table; buckets double when the load passes 1. */
struct swdev_htab {
	struct swdev_hnode **b;
	uint32_t nb;		/* buckets, a power of two */
	uint32_t n;		/* nodes */
};

/** Allocate the first buckets: 0 or ENOMEM. */
int swdev_htab_init(struct swdev_htab *h);
void swdev_htab_fini(struct swdev_htab *h);
/** Link @p node (hash and obj set); never fails (growth is best effort). */
void swdev_htab_insert(struct swdev_htab *h, struct swdev_hnode *node);
void swdev_htab_remove(struct swdev_htab *h, struct swdev_hnode *node);
/** First node of the chain of @p hash (follow ->next, compare ->hash). */
static inline struct swdev_hnode *
swdev_htab_chain(const struct swdev_htab *h, uint64_t hash)
{
	return h->nb == 0 ? NULL : h->b[hash & (h->nb - 1)];
}
/** Hash of a 64-byte match set. */
uint64_t swdev_hash_set(const uint8_t *set);
/** Hash of a 32-bit index. */
uint64_t swdev_hash_u32(uint32_t v);
/** @p dst = @p a & @p b over a match set. */
void swdev_set_and(uint8_t *dst, const uint8_t *a, const uint8_t *b);

/* ---- objects ---- */

struct swdev_file;
struct swdev_dev;

/** One forwarding destination of a flow table entry. */
struct swdev_fte_dest {
	uint8_t type;			/* MDEVX_FLOW_DEST_TYPE_TIR / _FLOW_TABLE */
	struct swdev_obj *obj;		/* the TIR or table, referenced */
};

/** One counter of a flow table entry. */
struct swdev_fte_cnt {
	uint32_t id;			/* flow counter id */
	struct swdev_obj *bulk;		/* the bulk holding it, referenced */
};

struct swdev_obj {
	enum swdev_kind kind;
	bool devx;		/* created through DEVX (else verbs) */
	struct swdev_file *file;
	uint32_t handle;
	uint16_t uid;
	uint32_t id;		/* firmware id: pdn, cqn, ..., base counter id */
	uint32_t refcnt;	/* references held by other objects */
	struct swdev_obj *fnext, *fprev;	/* per-file, per-kind list */
	uint8_t destroy_cmd[SWDEV_DESTROY_CMD_LEN];	/* prebuilt as the kernel does */
	union {
		struct {
			uint32_t num;	/* counters in the bulk */
			struct swdev_obj *pd;
		} cnt;
		struct {
			uint64_t addr;
			uint64_t size;
			uint32_t access;
		} umem;
		struct {
			uint8_t cqc[MDEVX_ST_SZ_BYTES(cqc)];
			uint64_t umem_offset;
			struct swdev_obj *uar, *umem, *dbr_umem;
		} cq;
		struct {
			uint8_t rqc[MDEVX_ST_SZ_BYTES(rqc)];
			struct swdev_obj *cq, *pd, *wq_umem, *dbr_umem;
		} rq;
		struct {
			uint32_t max_size;
			uint32_t actual_size;
			uint8_t list_q_type;
			struct swdev_obj **rqs;
		} rqt;
		struct {
			uint8_t tirc[MDEVX_ST_SZ_BYTES(tirc)];
			uint64_t icm_addr;
			struct swdev_obj *td, *rq, *rqt;
		} tir;
		struct {
			uint8_t ftc[MDEVX_ST_SZ_BYTES(flow_table_context)];
			uint64_t icm_addr;
			uint8_t level;
			uint8_t log_size;
			uint8_t miss_action;
			struct swdev_obj *miss;		/* table_miss_id, referenced */
			struct swdev_obj *groups;	/* by start index (u.fg.next) */
			struct swdev_htab ftes;		/* entries by flow index */
		} ft;
		struct {
			struct swdev_obj *table;	/* referenced */
			struct swdev_obj *next;		/* the table's next group */
			uint32_t start, end;		/* flow index range, inclusive */
			uint8_t criteria;		/* match_criteria_enable */
			uint8_t mask[SWDEV_MATCH_SET_LEN];	/* outer_headers mask */
			struct swdev_htab vals;		/* entries by masked value */
		} fg;
		struct {
			struct swdev_obj *table, *group;	/* referenced */
			struct swdev_hnode idx_node;	/* in table->u.ft.ftes */
			struct swdev_hnode val_node;	/* in group->u.fg.vals */
			uint8_t value[SWDEV_MATCH_SET_LEN];	/* outer value & mask */
			uint16_t action;
			uint8_t ext_dest;		/* extended_destination */
			uint32_t flow_tag;
			uint32_t ndest, ncnt;
			struct swdev_fte_dest *dests;
			struct swdev_fte_cnt *cnts;
		} fte;
		struct {
			struct swdev_obj *next, *prev;	/* device list, evaluation order */
			uint64_t seq;			/* creation order (ties) */
			uint16_t priority;
			uint8_t criteria;
			uint16_t mask_len;		/* bytes given (value length) */
			uint8_t mask[SWDEV_MATCH_SET_LEN];	/* outer_headers mask */
			struct swdev_htab vals;		/* rules by masked value */
		} mt;
		struct {
			struct swdev_obj *matcher;	/* referenced */
			struct swdev_hnode node;	/* in matcher->u.mt.vals */
			uint8_t value[SWDEV_MATCH_SET_LEN];	/* outer value & mask */
			uint8_t dest;			/* enum swdev_flow_dest */
			struct swdev_obj *dest_obj;	/* TIR or table, referenced */
			struct swdev_obj *bulk;		/* counter bulk, referenced */
			uint32_t counter_id;		/* bulk base + offset */
		} fl;
	} u;
};

/* ---- counter store ---- */

struct swdev_cnt_chunk {
	uint64_t packets[SWDEV_CNT_CHUNK];
	uint64_t octets[SWDEV_CNT_CHUNK];
	struct swdev_obj *owner[SWDEV_CNT_CHUNK];	/* set at a bulk's base id */
};

struct swdev_counters {
	uint32_t space;		/* id space [1, space), a power of two */
	uint32_t hint;		/* every id below hint is allocated */
	uint32_t allocated;	/* counters in use */
	uint64_t *used;		/* bitmap, space bits; id 0 always set */
	struct swdev_cnt_chunk **chunks;	/* space / SWDEV_CNT_CHUNK */
};

/* ---- fault injection ---- */

struct swdev_fault {
	uint16_t opcode;
	uint8_t status;
	uint32_t count;
	uint32_t syndrome;
	uint32_t delay_us;
};

/* ---- commands run, per opcode (swdev_engine.c) ---- */

/** One opcode's count; key is opcode + 1 (0: free slot). */
struct swdev_opcount {
	uint32_t key;
	uint64_t count;
};

/**
 * Open-addressing table of the commands a device ran, by opcode: starts
 * at SWDEV_OPSTAT_INIT slots, doubles past 3/4 load. Only opcodes that
 * pass the kernel's checks reach it (a few hundred at most), so it stays
 * small. When a doubling fails (host memory), the table keeps filling;
 * a command that finds no slot at all is counted in lost.
 */
struct swdev_opstat {
	struct swdev_opcount *slot;
	uint32_t cap;		/* a power of two */
	uint32_t shift;		/* 32 - log2(cap) */
	uint32_t n;		/* opcodes seen */
	uint64_t lost;
};
#define SWDEV_OPSTAT_INIT 64u

/* ---- devices, files, engine ---- */

struct swdev_dev {
	struct swdev_engine *eng;
	unsigned int index;
	char name[32];
	struct swdev_limits lim;
	uint32_t next_file_id;
	uint32_t nfiles;
	struct swdev_file *files;	/* doubly linked through next/prev */
	uint64_t *uid_used;		/* bitmap of uids of open files */
	struct swdev_idmap ids[SWDEV_KIND_MAX];	/* id tables, not for counters */
	struct swdev_counters cnt;
	uint32_t counts[SWDEV_KIND_MAX];
	unsigned int nfaults;
	struct swdev_fault faults[SWDEV_MAX_FAULT_RULES];
	struct swdev_steer *steer;	/* swdev_steer.c */
	struct swdev_rx *rx;		/* swdev_rx.c */
	struct swdev_opstat opstat;	/* commands run, by opcode */
	const struct swdev_kind_ops *kind_ops;	/* [SWDEV_KIND_MAX], swdev_engine.c */
};

struct swdev_file {
	struct swdev_dev *dev;
	uint32_t id;
	uint16_t uid;
	uint32_t delay_us;
	struct swdev_idmap handles;
	struct swdev_obj *objs[SWDEV_KIND_MAX];	/* per-kind lists */
	uint32_t counts[SWDEV_KIND_MAX];
	struct swdev_file *next, *prev;
};

struct swdev_engine {
	unsigned int ndevs;
	struct swdev_dev *devs[SWDEV_MAX_DEVICES];
	swdev_engine_log_fn *log_fn;
	void *log_arg;
};

/* ---- one firmware command being executed ---- */

struct swdev_cmd {
	struct swdev_dev *dev;
	struct swdev_file *file;	/* NULL for the prebuilt destroy at close */
	uint16_t uid;			/* what the kernel wrote into in.uid */
	uint16_t opcode;
	uint16_t op_mod;
	const uint8_t *in;
	size_t inlen;
	uint8_t *out;
	size_t outlen;
	struct swdev_obj *obj;		/* query/modify: the handle's object;
					 * create: set by the handler */
	uint8_t status;
	uint32_t syndrome;
};

/**
 * Firmware handlers return 0 (status OK, outputs written), a PRM status
 * (cmd->status / cmd->syndrome set through swdev_cmd_fail()), or -ENOMEM
 * when the host is out of memory (nothing changed).
 */
typedef int swdev_cmd_handler(struct swdev_cmd *cmd);

static inline int
swdev_cmd_fail(struct swdev_cmd *cmd, uint8_t status, uint32_t syndrome)
{
	cmd->status = status;
	cmd->syndrome = syndrome;
	return status;
}

/* Input shorter than @p need: BAD_INP_LEN. */
static inline bool
swdev_cmd_short_in(struct swdev_cmd *cmd, size_t need)
{
	if (cmd->inlen >= need)
		return false;
	swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_BAD_INLEN);
	return true;
}

/* Output shorter than @p need: BAD_OUTP_LEN. */
static inline bool
swdev_cmd_short_out(struct swdev_cmd *cmd, size_t need)
{
	if (cmd->outlen >= need)
		return false;
	swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR, SWDEV_SYND_BAD_OUTLEN);
	return true;
}

/*
 * A QUERY_<object> command answering with the object's stored context:
 * check both lengths, copy @p ctx_len bytes of @p ctx to output byte
 * @p ctx_off. Returns 0 or the failing status.
 */
static inline int
swdev_cmd_query_ctx(struct swdev_cmd *cmd, size_t in_size, size_t out_size, size_t ctx_off,
		    const void *ctx, size_t ctx_len)
{
	if (swdev_cmd_short_in(cmd, in_size) || swdev_cmd_short_out(cmd, out_size))
		return cmd->status;
	memcpy((uint8_t *)cmd->out + ctx_off, ctx, ctx_len);
	return 0;
}

/* Copy the field at (@p off, @p width) bits from @p src to @p dst (same layout). */
void swdev_copy_bits(uint8_t *dst, const uint8_t *src, size_t off, size_t width);
#define SWDEV_COPY_FLD(typ, dst, src, fld) \
	swdev_copy_bits((dst), (src), MDEVX_BIT_OFF(typ, fld), MDEVX_FLD_SZ_BITS(typ, fld))

/* ---- logging (swdev_util.c) ---- */

void swdev_engine_logf(struct swdev_engine *eng, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- object helpers (swdev_obj.c) ---- */

struct swdev_obj *swdev_obj_new(struct swdev_cmd *cmd, enum swdev_kind kind);
/** Give @p obj a device id of its kind: 0, or ENOSPC when the table is full. */
int swdev_obj_assign_id(struct swdev_dev *dev, struct swdev_obj *obj, uint32_t *id);
/*
 * A new DEVX object of @p kind with its id (swdev_obj_new() +
 * swdev_obj_assign_id()): 0, -ENOMEM, or LIM_ERR with @p synd_limit when
 * the device has no id left.
 */
int swdev_obj_new_with_id(struct swdev_cmd *cmd, enum swdev_kind kind, uint32_t synd_limit,
			  struct swdev_obj **objp, uint32_t *id);
/** Drop the id and free @p obj (references must already be released). */
void swdev_obj_release(struct swdev_dev *dev, struct swdev_obj *obj);
/** Id base of a kind (ids are base + index). */
uint32_t swdev_kind_id_base(enum swdev_kind kind);

/**
 * Find an object of @p kind by firmware id for a command of @p uid.
 * Returns the object, or NULL and sets the command's status with
 * @p synd_missing (not found) or @p synd_uid (created by another uid).
 */
struct swdev_obj *swdev_obj_ref_lookup(struct swdev_cmd *cmd, enum swdev_kind kind,
				       uint32_t id, uint32_t synd_missing,
				       uint32_t synd_uid);
struct swdev_obj *swdev_obj_by_id(struct swdev_dev *dev, enum swdev_kind kind, uint32_t id);

static inline void
swdev_obj_get(struct swdev_obj *o)
{
	if (o != NULL)
		o->refcnt++;
}

static inline void
swdev_obj_put(struct swdev_obj *o)
{
	if (o != NULL && o->refcnt > 0)
		o->refcnt--;
}

/*
 * What the object table (swdev_obj.c) calls for each kind, so that it calls
 * no file above it. The table is built by swdev_engine.c.
 */
struct swdev_kind_ops {
	/* Release the kind's own state of @p obj, before its references go. */
	void (*teardown)(struct swdev_dev *dev, struct swdev_obj *obj);
};

/** Link into the file (handle, list, counts): the handle must be reserved. */
void swdev_file_attach(struct swdev_file *f, struct swdev_obj *obj);
/** Unlink from the file. */
void swdev_file_detach(struct swdev_file *f, struct swdev_obj *obj);

/* ---- command counting (swdev_engine.c) ---- */

/**
 * A command with @p opcode reaches the firmware of @p dev (whatever it
 * answers). Called where the kernel would hand the mailbox over: after
 * every kernel-level check, before fault rules and handlers.
 */
void swdev_cmd_counted(struct swdev_dev *dev, uint16_t opcode);

/* ---- fault injection (swdev_engine.c) ---- */

/**
 * Apply a fault rule for @p opcode, if any: returns true when the command
 * must fail (status/syndrome set in @p cmd); a delay rule adds to
 * file->delay_us and returns false.
 */
bool swdev_fault_check(struct swdev_dev *dev, struct swdev_file *file, uint16_t opcode,
		       uint8_t *status, uint32_t *syndrome);

/* ---- firmware handlers ---- */

/* The answer to an unknown opcode (swdev_util.c). */
int swdev_cmd_bad_op(struct swdev_cmd *cmd);
int swdev_cmd_query_hca_cap(struct swdev_cmd *cmd);
int swdev_cmd_nop(struct swdev_cmd *cmd);
int swdev_cmd_alloc_pd(struct swdev_cmd *cmd);
int swdev_cmd_alloc_td(struct swdev_cmd *cmd);
int swdev_cmd_alloc_counter(struct swdev_cmd *cmd);
int swdev_cmd_query_counter(struct swdev_cmd *cmd);
int swdev_cmd_create_cq(struct swdev_cmd *cmd);
int swdev_cmd_query_cq(struct swdev_cmd *cmd);
int swdev_cmd_create_rq(struct swdev_cmd *cmd);
int swdev_cmd_modify_rq(struct swdev_cmd *cmd);
int swdev_cmd_query_rq(struct swdev_cmd *cmd);
int swdev_cmd_create_rqt(struct swdev_cmd *cmd);
int swdev_cmd_modify_rqt(struct swdev_cmd *cmd);
int swdev_cmd_query_rqt(struct swdev_cmd *cmd);
int swdev_cmd_create_tir(struct swdev_cmd *cmd);
int swdev_cmd_modify_tir(struct swdev_cmd *cmd);
int swdev_cmd_query_tir(struct swdev_cmd *cmd);
int swdev_cmd_create_flow_table(struct swdev_cmd *cmd);
int swdev_cmd_query_flow_table(struct swdev_cmd *cmd);
int swdev_cmd_create_flow_group(struct swdev_cmd *cmd);
int swdev_cmd_set_fte(struct swdev_cmd *cmd);
int swdev_cmd_query_fte(struct swdev_cmd *cmd);
/**
 * The destroy commands of the flow objects (DESTROY_FLOW_TABLE,
 * DESTROY_FLOW_GROUP, DELETE_FLOW_TABLE_ENTRY): the object the command
 * names, or NULL with the command's status set (BAD_RES).
 */
struct swdev_obj *swdev_flow_destroy_lookup(struct swdev_cmd *cmd);
/** The first entry of @p table matching the outer set @p outer, group by group. */
struct swdev_obj *swdev_flow_table_match(const struct swdev_obj *table, const uint8_t *outer);
/** Release what a flow table, group or entry holds (before it is freed). */
void swdev_flow_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj);
/** Release what a root matcher or rule holds (before it is freed). */
void swdev_steer_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj);
/** Is @p mask (a 64-byte outer set) limited to the fields the parser fills? */
bool swdev_match_mask_supported(const uint8_t *mask);

/**
 * Run the destroy command prebuilt in @p obj->destroy_cmd (after the
 * kernel-level check: EBUSY while referenced). Fault rules on the destroy
 * opcode apply: 0, EBUSY, or the errno of the injected status.
 */
int swdev_obj_destroy_cmd(struct swdev_file *f, struct swdev_obj *obj);
/**
 * Destroy by handle, as the kernel's destroy of a DEVX object (@p devx) or
 * of a verbs object: EINVAL (NULL file, or the handle names the other
 * family), ENOENT (no such handle), else swdev_obj_destroy_cmd().
 */
int swdev_file_destroy_handle(struct swdev_file *f, uint32_t handle, bool devx);
/** Prebuild the kernel's destroy command of a created object. */
void swdev_obj_build_destroy(struct swdev_obj *obj);

/* ---- counter store (swdev_cmd_counter.c) ---- */

int swdev_counters_init(struct swdev_counters *c, uint32_t max_counters);
void swdev_counters_fini(struct swdev_counters *c);
bool swdev_counter_is_allocated(const struct swdev_counters *c, uint32_t id);
/** Add traffic to an allocated counter: 0 or ENOENT. */
int swdev_counter_add(struct swdev_counters *c, uint32_t id, uint64_t packets, uint64_t bytes);
/** The bulk whose base id is @p id, or NULL. */
struct swdev_obj *swdev_counter_owner(const struct swdev_counters *c, uint32_t id);
void swdev_counters_free_range(struct swdev_counters *c, uint32_t base, uint32_t n);
/** Teardown of a counter bulk: its counters go back to the store. */
void swdev_counter_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj);
/** The bulk holding counter @p id (any id inside it), or NULL. */
struct swdev_obj *swdev_counter_bulk_of(const struct swdev_counters *c, uint32_t id);

/* Destroy an object at file close, ignoring faults (kernel cleanup). */
void swdev_obj_force_destroy(struct swdev_dev *dev, struct swdev_obj *obj);

/* ---- steering and the receive path ---- */

#include "swdev_rss.h"

/**
 * A received frame after parsing (swdev_rx.c). @p outer is the frame's
 * fte_match_set_lyr_2_4 image: every outer field the parser knows, written
 * with MDEVX_SET; a rule matches when (outer & mask) == value over the
 * 64 bytes of its mask. The RSS tuple feeds an indirect TIR's hash.
 */
struct swdev_pkt {
	uint8_t outer[MDEVX_ST_SZ_BYTES(fte_match_set_lyr_2_4)];
	struct swdev_rss_tuple rss;
	bool has_l3;		/* IPv4 or IPv6 parsed */
	const uint8_t *frame;
	uint32_t len;		/* bytes counted by COUNT and by the RQ */
};

/** Result of classification (swdev_steer_classify()). */
struct swdev_steer_verdict {
	uint32_t verdict;	/* SWDEV_RX_DELIVERED (to tir), _MISS or _DROP */
	struct swdev_obj *tir;	/* DELIVERED: the TIR reached */
};

/**
 * Evaluate the device's root rules by priority, then the entries of the
 * flow tables they forward to, group by group, adding one packet and
 * pkt->len bytes to every counter of a COUNT action met on the way.
 * Cost does not depend on the number of rules in a matcher or group.
 */
void swdev_steer_classify(struct swdev_dev *dev, const struct swdev_pkt *pkt,
			  struct swdev_steer_verdict *v);

/** Per-device steering state (swdev_steer.c); NULL until first used. */
struct swdev_steer {
	struct swdev_obj *matchers;	/* every file's, by priority then seq */
	struct swdev_obj *last;		/* tail of matchers */
	uint64_t next_seq;
	uint32_t nmatchers;
};
void swdev_steer_fini(struct swdev_dev *dev);

/** The device named @p name, or NULL (swdev_util.c). */
struct swdev_dev *swdev_dev_by_name(const struct swdev_engine *eng, const char *name);

/** Per-device receive state (swdev_rx.c): port statistics, RQ rings. */
struct swdev_rx;
void swdev_rx_fini(struct swdev_dev *dev);
/** An RQ is being destroyed: forget its statistics and capture ring. */
void swdev_rx_rq_gone(struct swdev_dev *dev, uint32_t rqn);
/** Teardown of an RQ: its receive ring goes (swdev_rx_rq_gone()). */
void swdev_rx_rq_teardown(struct swdev_dev *dev, struct swdev_obj *obj);

#endif /* SWDEV_ENGINE_PRIV_H */

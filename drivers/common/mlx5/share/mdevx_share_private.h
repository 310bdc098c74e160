/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Private declarations shared by the files of libmdevx_share:
 *   mdevx_share_list.c  the bottom: the log type, the device list and its
 *                       locks, the handles held, the argument checks;
 *   mdevx_share_dev.c   device open (primary), close, the primary's exit
 *                       handler;
 *   mdevx_share_attach.c  the secondary's attach;
 *   mdevx_share_mp.c    the transport: rte_mp messages and their
 *                       dispatcher, the connection of each attached
 *                       secondary and the primary's reader of them;
 *   mdevx_share_notify.c  the wait of withdrawal notifications for the
 *                       acknowledgements;
 *   mdevx_share_ops.c   the handlers of the operations (withdrawal,
 *                       refresh, refused attaches) and the requests of a
 *                       secondary to the primary (LIST, PEER);
 *   mdevx_share_slot.c  import slots (the handles of mdevx_share_imp_t);
 *   mdevx_share_rec.c   records (publish, withdraw, lookup, walk), imports
 *                       and the queries on them;
 *   mdevx_share_rule.c  root rules on shared objects, the primary's record
 *                       of its secondaries' rules and their removal;
 *   mdevx_share_telemetry.c  the telemetry commands.
 * Never installed; nothing here is part of the API.
 */
#ifndef MDEVX_SHARE_PRIVATE_H
#define MDEVX_SHARE_PRIVATE_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "mdevx_driver.h"
#include "mdevx_errno.h"
#include "mdevx_share.h"
#include "mdevx_share_lock.h"
#include "mdevx_share_reg.h"

extern int mdevx_share_logtype;

#define SHARE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_share_logtype, "mdevx_share: " fmt "\n", ##__VA_ARGS__)

/*
 * Test hooks (mdevx_share_internal.h) exist only in the build the tests
 * link, with MDEVX_SHARE_TEST_HOOKS defined: the installed library has
 * neither the hooks nor their checks.
 */
#ifdef MDEVX_SHARE_TEST_HOOKS
#define SHARE_TEST_HOOK(fn, arg) do { \
	if (unlikely((fn) != NULL)) \
		(fn)(arg); \
} while (0)
#else
#define SHARE_TEST_HOOK(fn, arg) do { } while (0)
#endif

#define MP_ACTION "mdevx_share_mp"	/* ours: DPDK's mlx5 uses common_mlx5_mp */
#define MAX_PEERS MDEVX_SHARE_PEERS_MAX	/* secondaries attached to one device (handshakes too) */
#define MAX_DEVS 64			/* devices open or attached in one process */
#define ATTACH_TIMEOUT_S 5
#define HANDSHAKE_MS 2000u		/* an attach's HELLO after the primary's reply */
#define DEVSTR_MAX 128
#define IMP_CHUNK_SHIFT 12
#define IMP_CHUNK (1u << IMP_CHUNK_SHIFT)
#define IMP_MAX_CHUNKS 1024		/* 4M imports per device and process */
#define ACK_SEND_TRIES 20		/* 1 ms apart while the primary's queue is full */
#define RULE_MSG_TRIES 1000		/* rule messages from application threads: 1 s */

enum mp_op {
	MP_OP_ATTACH = 1,		/* secondary -> primary (request): give me the device */
	MP_OP_WITHDRAW = 2,		/* primary -> secondaries: unimport record */
	MP_OP_WITHDRAW_ALL = 3,		/* primary -> secondaries: unimport all */
	MP_OP_ACK = 4,			/* secondary -> primary: withdrawal done */
	MP_OP_DETACH = 5,		/* unused: a secondary detaches by closing its connection */
	MP_OP_RULE_ADD = 6,		/* secondary -> primary: made a root rule */
	MP_OP_RULE_DEL = 7,		/* secondary -> primary: removed a root rule */
	MP_OP_REFRESH = 8,		/* secondary -> primary: refresh a counter snapshot */
	MP_OP_LIST = 9,			/* secondary -> primary (request): device idx */
	MP_OP_HELLO = 10,		/* secondary -> primary: attach complete */
	MP_OP_PEER = 11,		/* secondary -> primary (request): peer idx of devstr */
	MP_OP_MAX = MP_OP_PEER,
};

/*
 * Messages a secondary sends the primary (ACK, HELLO, RULE_ADD, RULE_DEL,
 * REFRESH) go on its own connection to the primary, one end of a
 * socketpair the primary made at the ATTACH and passed in its reply: the
 * primary knows the sender by the connection a message came on, never
 * by anything the message or its credentials claim. A peer's identity in
 * the primary is a 64-bit id: its connection slot and that slot's
 * generation (never reused while the primary runs).
 */

/*
 * A device is named in every message by its whole device string and its
 * instance cookie (random, 64 bits, chosen at open): a close and reopen,
 * or another device, never matches.
 */
/* Who sent a message, as its header says: checked against the operation, not trusted. */
enum mp_role {
	MP_ROLE_PRIMARY = 1,
	MP_ROLE_SECONDARY = 2,
};

/* The header of every message: what it is, who says it sent it, for which device. */
struct mp_hdr {
	uint16_t op;			/* enum mp_op */
	uint16_t role;			/* enum mp_role of the sender */
	int32_t status;			/* reply: 0 or negative errno */
	int32_t pid;			/* the sender's, as it says: for logs only */
	uint32_t reserved;		/* 0 */
	uint64_t cookie;		/* the device's instance (0 in an attach request) */
	char devstr[DEVSTR_MAX];
};

/* A record of the registry: its index and the generation it had. */
struct mp_rec {
	uint32_t idx;			/* UINT32_MAX: none (or, withdrawing, every record) */
	uint32_t reserved;		/* 0 */
	uint64_t gen;
};

/*
 * One message: the header, then the arguments of its operation (the
 * member named for it; a reply reuses its request's).
 */
struct mp_msg {
	struct mp_hdr hdr;
	union {
		/* ATTACH reply: the registry's memzone and the counter snapshot's geometry */
		struct {
			char mz_name[RTE_MEMZONE_NAMESIZE];
			uint32_t period_ms;
			uint32_t counters;
			uint32_t nb_slots;
			int32_t primary_pid;
		} attach;
		/* LIST and PEER: entry idx (request) of total (reply) */
		struct {
			uint32_t idx;
			uint32_t total;
			uint64_t id;		/* PEER: the secondary's id */
			int32_t pid;		/* PEER: the pid shown for it */
			uint32_t rules;		/* PEER: the rules it announced */
			uint32_t attached;	/* PEER: 1 once its attach completed */
		} list;
		/* WITHDRAW (record rec), WITHDRAW_ALL (rec.idx UINT32_MAX) */
		struct {
			struct mp_rec rec;
			uint64_t seq;		/* the notification's, for its acknowledgements */
		} withdraw;
		/* ACK: of the notification seq, for operation op and record rec */
		struct {
			struct mp_rec rec;
			uint64_t seq;
			uint32_t op;		/* MP_OP_WITHDRAW or MP_OP_WITHDRAW_ALL */
			uint32_t unimported;	/* imports it released */
		} ack;
		/* RULE_ADD, RULE_DEL: rule handle and the records of its destination and counter */
		struct {
			struct mp_rec dst;
			struct mp_rec ctr;
			uint32_t handle;	/* in the uverbs file */
		} rule;
		/* REFRESH: the counter bulk's record */
		struct {
			struct mp_rec rec;
		} refresh;
	};
};

_Static_assert(sizeof(struct mp_msg) <= RTE_MP_MAX_PARAM_LEN, "rte_mp param size");
_Static_assert(DEVSTR_MAX == MDEVX_SHARE_DEVSTR_MAX, "public device string bound");

enum imp_state {
	IMP_FREE = 0,
	IMP_LIVE = 1,
	IMP_STALE = 2,			/* record withdrawn: reference released, wrapper revoked */
};

/*
 * One import: 64 bytes in chunks, the whole of our memory per import. The
 * object itself is libmdevx's compact reference (struct mdevx_obj_ref);
 * the full wrapper is made only when the application asks for it
 * (mdevx_share_import_obj()).
 */
struct imp_slot {
	struct mdevx_obj_ref ref;	/* the import (ref.bobj NULL once released) */
	struct mdevx_obj *obj;		/* full wrapper, on demand */
	uint64_t rec_gen;
	uint32_t rec_idx;
	uint32_t gen;			/* slot generation, part of the handle */
	uint32_t next_free;		/* index + 1 */
	uint16_t kind;
	uint16_t state;
};

_Static_assert(sizeof(struct imp_slot) == 64, "import slot size");

/*
 * A root rule this process made with mdevx_share_rule_create(): what it
 * references, so that a withdrawal removes it first. rec[i] is the record
 * of an imported destination (0) or counter (1), UINT32_MAX for none or a
 * local object (obj[i]).
 */
enum rule_state {
	RULE_FREE = 0,
	RULE_LIVE = 1,
	RULE_GONE = 2,		/* removed by a withdrawal: the handle waits for its destroy */
};

struct share_rule {
	struct mdevx_rule *rule;
	struct mdevx_obj *obj[2];
	uint64_t rec_gen[2];
	uint32_t rec[2];
	uint32_t handle;	/* in the uverbs file */
	uint32_t gen;		/* part of mdevx_share_rule_t */
	uint32_t next_free;	/* index + 1 */
	uint32_t state;
};

/* Primary: a root rule a secondary announced (MP_OP_RULE_ADD), or one of ours. */
struct peer_rule {
	uint64_t owner;			/* the peer's id; 0: free entry */
	uint32_t handle;
	uint32_t hnext;			/* index + 1: next of its hash chain, or free */
	uint32_t rec[2];
	bool taken;			/* being removed on the device */
	uint64_t rec_gen[2];
};

struct mdevx_share_dev {
	TAILQ_ENTRY(mdevx_share_dev) next;
	char devstr[DEVSTR_MAX];
	bool primary;
	int refcnt;
	struct mdevx_ctx *ctx;
	const struct rte_memzone *mz;
	struct mdevx_share_reg *reg;
	struct mdevx_share_snap *snap;	/* counter snapshot service; NULL: off */
	size_t reg_len;			/* the memzone's length (for the exit handler) */
	bool exit_seen;			/* the exit handler has tried it */
	uint64_t cookie;
	uint32_t withdraw_timeout_ms;
	size_t export_size;
	/* primary: the published objects, by record slot */
	struct mdevx_obj **owned;
	/* primary: the same objects by pointer (a set, power of two >= 2 x capacity) */
	struct mdevx_obj **owned_set;
	uint32_t owned_mask;
	pthread_mutex_t wlock;		/* primary: one writer of the registry */
	/* primary: connections of secondaries to this device (share_devs_lock) */
	uint32_t nb_peers;
	/*
	 * secondary: our connection to the primary (conn_lock, a leaf lock:
	 * sends never wait for another lock)
	 */
	int conn_fd;
	pthread_mutex_t conn_lock;
	/* imports of this process */
	mdevx_share_lock_t lock;	/* write: import/unimport/notification */
	/*
	 * secondary: the primary closed the device (WITHDRAW_ALL) and frees its
	 * registry: nothing may read dev->reg any more. Set under the write
	 * lock; registry reads hold the read lock.
	 */
	bool orphan;
	struct imp_slot *chunks[IMP_MAX_CHUNKS];
	uint32_t nb_slots;		/* allocated slots */
	uint32_t free_head;		/* index + 1 */
	uint32_t nb_live;
	/*
	 * Root rules (rules_lock, taken after dev->lock and share_devs_lock,
	 * never held while waiting for another process): this process's,
	 * and in the primary the secondaries' it was told about.
	 */
	pthread_mutex_t rules_lock;
	struct share_rule *rules;
	uint32_t rules_cap;
	uint32_t rules_free;		/* index + 1 */
	uint32_t nb_rules;		/* RULE_LIVE */
	struct peer_rule *prules;
	uint32_t nb_prules;		/* secondaries' entries */
	uint32_t prules_cap;
	uint32_t *prule_buckets;	/* prules_cap of them: index + 1 */
	uint32_t prule_mask;
	uint32_t prule_free;		/* index + 1 */
	uint32_t nb_dying;		/* entries of gone peers to remove (atomic) */
	uint32_t reap_pos;
	uint64_t nb_refused;		/* claims and removals refused */
	/* held by the reader while it removes gone peers' rules; a close waits for it */
	pthread_mutex_t reap_lock;
};

TAILQ_HEAD(mdevx_share_devs_head, mdevx_share_dev);

/*
 * The devices of the process (mdevx_share_list.c), under share_devs_lock,
 * which the IPC handler takes too: it is only held for list operations,
 * never across device commands, memzone calls or rte_mp requests.
 */
extern struct mdevx_share_devs_head share_devs;
extern pthread_mutex_t share_devs_lock;

/*
 * A public call that fails sets errno and rte_errno through libmdevx's
 * mdevx_set_errno() or mdevx_ret() (mdevx_errno.h): one contract.
 */

static inline struct imp_slot *
slot_at(const struct mdevx_share_dev *dev, uint32_t idx)
{
	return &dev->chunks[idx >> IMP_CHUNK_SHIFT][idx & (IMP_CHUNK - 1)];
}

static inline mdevx_share_imp_t
slot_handle(uint32_t idx, const struct imp_slot *s)
{
	mdevx_share_imp_t h = { .id = ((uint64_t)s->gen << 32) | (idx + 1) };

	return h;
}

static inline uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* mdevx_share_list.c */
int share_check_dev(const struct mdevx_share_dev *dev);
/* share_check_dev(), and one line naming public call @p fn for a refusal. */
int share_check_dev_log(const struct mdevx_share_dev *dev, const char *fn);
#define CHECK_DEV(dev) share_check_dev_log((dev), __func__)
/* share_check_devstr(), and one line naming public call @p fn for a refusal. */
int share_check_devstr_log(const char *devstr, const char *fn);
int share_check_devstr(const char *devstr);
struct mdevx_share_dev *share_find_dev_locked(const char *devstr);
struct mdevx_share_dev *share_find_instance_locked(const char *devstr, uint64_t cookie);
/* share_open_lock serialises open, attach and close (outer lock, before share_devs_lock). */
extern pthread_mutex_t share_open_lock;
/* Secondary: orphaned devices a new attach replaced; they wait for their close. */
extern struct mdevx_share_devs_head share_orphan_devs;
/* Secondary: the device an attach is making, before it is on share_devs (share_devs_lock). */
extern struct mdevx_share_dev *share_attaching;
/* The @p n strings of @p list (of @p total) comma-separated into @p buf, " ..." if cut. */
void share_devstr_list(char *buf, size_t len, const char (*list)[DEVSTR_MAX], uint32_t n,
		       uint32_t total);
/* share_devs_lock held: the device strings this process shares (primary), for a log line. */
void share_devs_describe_locked(char *buf, size_t len);
/* share_open_lock held: the handles the application holds. 0 or ENOSPC. */
int share_dev_live_add(struct mdevx_share_dev *dev);
void share_dev_live_del(const struct mdevx_share_dev *dev);

/* mdevx_share_dev.c */
/* The telemetry commands: @p fn on every device, under the list's lock. */
void mdevx_share_foreach_dev(void (*fn)(struct mdevx_share_dev *dev, void *arg), void *arg);
const char *mdevx_share_dev_name(const struct mdevx_share_dev *dev);
int mdevx_share_dev_is_primary(const struct mdevx_share_dev *dev);
/* For mdevx_share_attach.c. */
struct mdevx_share_dev *share_dev_new(const char *devstr);
void share_dev_free(struct mdevx_share_dev *dev);

/* mdevx_share_mp.c */
/* A message of @p op from this process, for @p devstr (may be NULL) and instance @p cookie. */
void share_mp_msg_init(struct mp_msg *m, enum mp_op op, const char *devstr, uint64_t cookie);
void share_mp_msg_pack(struct rte_mp_msg *msg, const char *name, const struct mp_msg *m);
/* The message @p msg carries into @p m, its strings ended. 0, or EPROTO: not one of ours. */
int share_mp_msg_unpack(const struct rte_mp_msg *msg, struct mp_msg *m);
/*
 * The handlers of the operations the transport does not answer itself,
 * set by the files above it from their constructors (before any message
 * can arrive) and called by its dispatcher:
 * - a notification of EAL's IPC thread, from the IPC socket @p peer;
 * - a message of the connection of peer @p id (primary, reader thread);
 * - a peer gone (primary, reader, share_devs_lock held), its device
 *   known; and every closed connection, the device's gone or not;
 * - between the reader's rounds (primary): true to be called again at once.
 */
typedef int (share_mp_notify_fn)(const struct mp_msg *m, const char *peer);
typedef void (share_mp_peer_fn)(const struct mp_msg *m, uint64_t id);
typedef void (share_mp_gone_fn)(struct mdevx_share_dev *dev, uint64_t id);
typedef void (share_mp_closed_fn)(uint64_t id);
typedef bool (share_mp_idle_fn)(void);
void share_mp_on_notify(enum mp_op op, share_mp_notify_fn *fn);
void share_mp_on_peer(enum mp_op op, share_mp_peer_fn *fn);
void share_mp_on_peer_gone(share_mp_gone_fn *fn);
void share_mp_on_peer_closed(share_mp_closed_fn *fn);
void share_mp_on_idle(share_mp_idle_fn *fn);
int share_mp_get(void);
int share_peers_start(void);
void share_peers_release(const struct mdevx_share_dev *dev);
/*
 * share_devs_lock held: how many secondaries @p dev (primary) has, and the
 * one of index @p idx among them (in slot order) into @p out.
 */
uint32_t share_peer_at_locked(const struct mdevx_share_dev *dev, uint32_t idx,
			      struct mdevx_share_peer *out);
uint32_t share_peers_live_locked(const struct mdevx_share_dev *dev, uint64_t *ids, uint32_t max);
struct mdevx_share_dev *share_peer_dev_locked(uint64_t id, pid_t *pid);
uint32_t *share_peer_nb_rules_locked(uint64_t id);
void share_ack_send(const struct mp_msg *m, int tries);
/* Secondary, dev->conn_lock held: @p m on our connection, without blocking. */
void share_conn_send_locked(const struct mdevx_share_dev *dev, const struct mp_msg *m,
			    int tries);
void share_conn_send(const struct mdevx_share_dev *dev, const struct mp_msg *m, int tries);
void share_conn_attached(struct mdevx_share_dev *dev, int fd, uint64_t cookie);
int share_send_hello(const struct mdevx_share_dev *dev, unsigned int timeout_ms);
void share_send_detach(struct mdevx_share_dev *dev);

/* mdevx_share_notify.c */
unsigned int share_notify_withdraw(struct mdevx_share_dev *dev, enum mp_op op, uint32_t rec_idx,
			     uint64_t gen, int *nb_sent, bool *complete);

/* mdevx_share_ops.c */
/* Secondary: the primary refused to attach @p devstr; one line naming what it shares. */
void share_attach_refused_log(const char *devstr);

/* mdevx_share_slot.c */
struct imp_slot *share_slot_of(const struct mdevx_share_dev *dev, mdevx_share_imp_t h,
			 uint32_t *idx_out);
struct imp_slot *share_slot_alloc(struct mdevx_share_dev *dev, uint32_t *idx_out);
void share_slot_free(struct mdevx_share_dev *dev, struct imp_slot *s, uint32_t idx);
uint32_t share_unimport_record(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen);
int share_slot_drop_wrapper(struct imp_slot *s);

/* mdevx_share_rec.c */
int share_primary_withdraw_all(struct mdevx_share_dev *dev, bool *all_acked);

/* mdevx_share_rule.c */
uint32_t share_rules_drop(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen,
		    const struct mdevx_obj *obj, int tries);
uint32_t share_prules_remove(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen);

#endif /* MDEVX_SHARE_PRIVATE_H */

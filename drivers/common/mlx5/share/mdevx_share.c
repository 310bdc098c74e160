/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process sharing of mlx5 DEVX objects: shared device context for
 * secondaries (rte_mp + command fd), export registry in a memzone, import
 * by name, withdraw with acknowledgements. See mdevx_share.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_lock.h"
#include "mdevx_share_snap.h"

RTE_LOG_REGISTER(mdevx_share_logtype, pmd.common.mdevx.share, NOTICE);

#define SHARE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_share_logtype, "mdevx_share: " fmt "\n", ##__VA_ARGS__)

#define MP_ACTION "mdevx_share_mp"	/* ours: DPDK's mlx5 uses common_mlx5_mp */
#define MAX_PENDING 8			/* withdrawals waiting for acknowledgements at once */
#define MAX_PEERS 64			/* secondaries attached to one device */
#define PEER_POLL_MS 50			/* a waiting withdrawal looks for dead peers this often */
#define ATTACH_TIMEOUT_S 5
#define DEFAULT_CAPACITY 4096
#define DEFAULT_WITHDRAW_TIMEOUT_MS 2000
#define DEVSTR_MAX 128
#define IMP_CHUNK_SHIFT 12
#define IMP_CHUNK (1u << IMP_CHUNK_SHIFT)
#define IMPORT_RETRIES 8		/* record rewritten while imported: try again */
#define IMP_MAX_CHUNKS 1024		/* 4M imports per device and process */
#define NOTIFY_SLACK_S 2		/* a withdraw waits its bound and this more */
#define EXIT_MARGIN_MS 1000		/* exit handler: beyond the withdraw waits */
#define RULES_MAX (1u << 20)		/* root rules of one process on one device */
#define PEER_RULES_MAX (1u << 20)	/* primary: rules of secondaries, per device */
#define REAP_PERIOD_MS 100		/* primary: look for dead secondaries with rules */
#define RULE_MSG_TRIES 1000		/* rule messages from application threads: 1 s */
#define SNAP_COUNTERS_MAX (1u << 26)	/* counter snapshot: 1 GiB of values */
#define REFRESH_POLL_US 200		/* mdevx_share_counter_refresh() looks this often */

enum mp_op {
	MP_OP_ATTACH = 1,		/* secondary -> primary (request): give me the device */
	MP_OP_WITHDRAW = 2,		/* primary -> secondaries: unimport record */
	MP_OP_WITHDRAW_ALL = 3,		/* primary -> secondaries: unimport all */
	MP_OP_ACK = 4,			/* secondary -> primary: withdrawal done */
	MP_OP_DETACH = 5,		/* secondary -> primary: closed the device */
	MP_OP_RULE_ADD = 6,		/* secondary -> primary: made a root rule */
	MP_OP_RULE_DEL = 7,		/* secondary -> primary: removed a root rule */
	MP_OP_REFRESH = 8,		/* secondary -> primary: refresh a counter snapshot */
	MP_OP_LIST = 9,			/* secondary -> primary (request): device rec_idx */
};

/* A secondary attached to a device of the primary: its IPC socket. */
struct mp_peer {
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	pid_t pid;
};

/*
 * A device is named in every message by its whole device string and its
 * instance cookie (random, 64 bits, chosen at open): a close and reopen,
 * or another device, never matches.
 */
struct mp_param {
	uint32_t op;
	int32_t status;			/* reply: 0 or negative errno; ACK: the op acknowledged */
	uint32_t rec_idx;
	uint32_t unimported;		/* reply to withdraw */
	uint64_t generation;
	uint64_t cookie;		/* the device's instance (0 in an attach request) */
	uint64_t seq;			/* withdrawals: the request's sequence number */
	uint64_t generation2;		/* RULE_ADD: the counter's record generation */
	uint32_t rec_idx2;		/* RULE_ADD: the counter's record (UINT32_MAX: none) */
	uint32_t handle;		/* RULE_ADD/DEL: the rule's handle in the uverbs file */
	/*
	 * The ATTACH reply also carries the counter snapshot's geometry:
	 * rec_idx the period, rec_idx2 the capacity, handle the slots,
	 * generation2 the primary's pid.
	 */
	char mz_name[RTE_MEMZONE_NAMESIZE];
	char devstr[DEVSTR_MAX];
};

_Static_assert(sizeof(struct mp_param) <= RTE_MP_MAX_PARAM_LEN, "rte_mp param size");
_Static_assert(DEVSTR_MAX == MDEVX_SHARE_DEVSTR_MAX, "public device string bound");

/* rte_mp_msg.param is only 4-byte aligned: parameters travel by copy. */
static void
mp_msg_pack(struct rte_mp_msg *msg, const char *name, const struct mp_param *p)
{
	memset(msg, 0, sizeof(*msg));
	snprintf(msg->name, sizeof(msg->name), "%s", name);
	msg->len_param = sizeof(*p);
	memcpy(msg->param, p, sizeof(*p));
}

enum imp_state {
	IMP_FREE = 0,
	IMP_LIVE = 1,
	IMP_STALE = 2,			/* record withdrawn: reference released, wrapper revoked */
};

/*
 * One import: 64 bytes in chunks, the whole of our memory per import. The
 * object itself is a compact layer-4 reference; the full wrapper is made
 * only when the application asks for it (mdevx_share_import_obj()).
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

/* Primary: a root rule a secondary announced (MP_OP_RULE_ADD). */
struct peer_rule {
	pid_t pid;
	uint32_t handle;
	uint32_t rec[2];
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
	/* primary: the secondaries that attached (share_devs_lock) */
	struct mp_peer peers[MAX_PEERS];
	uint32_t nb_peers;
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
	uint32_t nb_prules;
	uint32_t prules_cap;
};

TAILQ_HEAD(mdevx_share_devs_head, mdevx_share_dev);
static struct mdevx_share_devs_head share_devs = TAILQ_HEAD_INITIALIZER(share_devs);
/* Secondary: orphaned devices a new attach replaced; they wait for their close. */
static struct mdevx_share_devs_head orphan_devs = TAILQ_HEAD_INITIALIZER(orphan_devs);
/*
 * share_devs_lock guards the device list and mp_registered. The IPC handler
 * takes it, so it is only held for list operations, never across device
 * commands, memzone calls or rte_mp requests: those need the EAL IPC thread
 * (the answer to our own attach request, the memory hotplug sync of a
 * memzone reservation), which would be waiting for the lock.
 * share_open_lock serialises open, attach and close (outer lock).
 */
static pthread_mutex_t share_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t share_open_lock = PTHREAD_MUTEX_INITIALIZER;
static bool mp_registered;		/* our rte_mp action (never unregistered) */
static unsigned int open_count;		/* opens, in memzone names (share_open_lock) */
static pid_t exit_pid;			/* registered share_exit(); 0 before (share_open_lock) */
/*
 * Secondary: the device an attach is making, before it is on share_devs
 * (share_devs_lock; one at a time, under share_open_lock). The handler
 * marks it orphaned when the primary closes meanwhile.
 */
static struct mdevx_share_dev *attaching;
static int test_drop_acks;			/* atomic */
static unsigned int test_ack_delay_ms;		/* atomic */
static void (*test_import_hook)(void *arg);
static void *test_import_arg;
static void (*test_attach_hook)(void *arg);
static void *test_attach_arg;
static void (*test_import_obj_hook)(void *arg);
static void *test_import_obj_arg;

static int
fail(int err)
{
	errno = err;
	return -err;
}

/*
 * Handles the application holds: every device from its open or attach to
 * its close. A call with any other pointer (one closed already, say) gives
 * ENOENT without reading it. Read without a lock on the import path; a
 * close racing a call on the same device is the application's bug.
 */
#define MAX_DEVS 64
static struct mdevx_share_dev *live_devs[MAX_DEVS];

static bool
dev_live(const struct mdevx_share_dev *dev)
{
	if (dev == NULL)
		return false;
	for (unsigned int i = 0; i < MAX_DEVS; i++)
		if (__atomic_load_n(&live_devs[i], __ATOMIC_ACQUIRE) == dev)
			return true;
	return false;
}

/* share_open_lock held. 0 or ENOSPC. */
static int
dev_live_add(struct mdevx_share_dev *dev)
{
	for (unsigned int i = 0; i < MAX_DEVS; i++) {
		if (live_devs[i] == NULL) {
			__atomic_store_n(&live_devs[i], dev, __ATOMIC_RELEASE);
			return 0;
		}
	}
	SHARE_LOG(ERR, "%s: %u devices open in this process already", dev->devstr, MAX_DEVS);
	return ENOSPC;
}

/* share_open_lock held. */
static void
dev_live_del(const struct mdevx_share_dev *dev)
{
	for (unsigned int i = 0; i < MAX_DEVS; i++)
		if (live_devs[i] == dev)
			__atomic_store_n(&live_devs[i], NULL, __ATOMIC_RELEASE);
}

/* For memzone names only (with the open counter): not an identity. */
static uint32_t
devstr_key(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0') {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

/* ---------------------------------------------------------------- */
/* Import slots                                                      */
/* ---------------------------------------------------------------- */

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

/* The live (or stale) slot a handle names, or NULL. Lock held. */
static struct imp_slot *
slot_of(const struct mdevx_share_dev *dev, mdevx_share_imp_t h, uint32_t *idx_out)
{
	uint32_t idx = (uint32_t)h.id, gen = (uint32_t)(h.id >> 32);
	struct imp_slot *s;

	if (idx == 0 || idx > dev->nb_slots)
		return NULL;
	s = slot_at(dev, idx - 1);
	if (s->state == IMP_FREE || s->gen != gen)
		return NULL;
	if (idx_out != NULL)
		*idx_out = idx - 1;
	return s;
}

/* A free slot (lock held). NULL with ENOMEM / ENOSPC. */
static struct imp_slot *
slot_alloc(struct mdevx_share_dev *dev, uint32_t *idx_out)
{
	struct imp_slot *s;
	uint32_t idx;

	if (dev->free_head == 0) {
		uint32_t c = dev->nb_slots >> IMP_CHUNK_SHIFT;

		if (c >= IMP_MAX_CHUNKS) {
			errno = ENOSPC;
			return NULL;
		}
		dev->chunks[c] = calloc(IMP_CHUNK, sizeof(struct imp_slot));
		if (dev->chunks[c] == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		for (uint32_t i = IMP_CHUNK; i > 0; i--) {
			s = &dev->chunks[c][i - 1];
			s->next_free = dev->free_head;
			dev->free_head = dev->nb_slots + i;
		}
		dev->nb_slots += IMP_CHUNK;
	}
	idx = dev->free_head - 1;
	s = slot_at(dev, idx);
	dev->free_head = s->next_free;
	s->next_free = 0;
	*idx_out = idx;
	return s;
}

/*
 * A slot whose generation would wrap is retired (never handed out again,
 * 64 bytes kept until the device closes): a handle of its first
 * generation must not name a live import again. The free list hands the
 * same slot back first, so a plain import/unimport loop gets there after
 * 2^32 rounds, minutes on a fast CPU.
 */
static void
slot_free(struct mdevx_share_dev *dev, struct imp_slot *s, uint32_t idx)
{
	if (s->state == IMP_LIVE)
		dev->nb_live--;
	s->state = IMP_FREE;
	s->obj = NULL;
	s->ref.bobj = NULL;
	if (++s->gen == 0) {
		s->next_free = 0;
		return;
	}
	s->next_free = dev->free_head;
	dev->free_head = idx + 1;
}

mdevx_share_imp_t
mdevx_share_test_slot_gen(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t gen)
{
	mdevx_share_imp_t h = { .id = 0 };
	struct imp_slot *s;
	uint32_t idx;

	if (dev == NULL)
		return h;
	mdevx_share_lock_write(&dev->lock);
	s = slot_of(dev, imp, &idx);
	if (s != NULL) {
		s->gen = gen;
		h = slot_handle(idx, s);
	}
	mdevx_share_unlock_write(&dev->lock);
	return h;
}

/*
 * Unimport every import of record @p rec_idx of generation @p gen (all if
 * rec_idx is UINT32_MAX). Write lock held. Returns how many. The wrapper
 * the application may hold (mdevx_share_import_obj()) is revoked, not
 * freed: its calls give ESTALE until mdevx_share_unimport() frees it.
 */
static uint32_t
unimport_record(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_slots; i++) {
		struct imp_slot *s = slot_at(dev, i);

		if (s->state != IMP_LIVE)
			continue;
		if (rec_idx != UINT32_MAX && (s->rec_idx != rec_idx || s->rec_gen != gen))
			continue;
		mdevx_obj_unimport_ref(dev->ctx, &s->ref);
		if (s->obj != NULL && mdevx_obj_revoke(s->obj) != 0)
			SHARE_LOG(ERR, "%s: revoking the wrapper of import %u: %s", dev->devstr,
				  i, strerror(errno));
		s->state = IMP_STALE;
		dev->nb_live--;
		n++;
	}
	return n;
}

/*
 * Free the wrapper of slot @p s (lock held): 0, or -EBUSY when another
 * thread of the application is in a call with it (the slot is unchanged).
 */
static int
slot_drop_wrapper(struct imp_slot *s)
{
	int rc;

	if (s->obj == NULL)
		return 0;
	rc = mdevx_obj_unimport_held(s->obj);
	if (rc == -EBUSY)
		return rc;
	s->obj = NULL;		/* freed, or not ours to free any more */
	return 0;
}

/* ---------------------------------------------------------------- */
/* Published objects by pointer (primary, wlock held)                */
/* ---------------------------------------------------------------- */

/* Open addressing, linear probing, backward shift deletion. */
static uint32_t
owned_home(const struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint64_t h = (uint64_t)(uintptr_t)obj;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h & dev->owned_mask;
}

static bool
owned_has(const struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj);

	for (; dev->owned_set[i] != NULL; i = (i + 1) & dev->owned_mask)
		if (dev->owned_set[i] == obj)
			return true;
	return false;
}

static void
owned_add(struct mdevx_share_dev *dev, struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj);

	while (dev->owned_set[i] != NULL)
		i = (i + 1) & dev->owned_mask;
	dev->owned_set[i] = obj;
}

static void
owned_del(struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj), j, k;

	while (dev->owned_set[i] != obj) {
		if (dev->owned_set[i] == NULL)
			return;
		i = (i + 1) & dev->owned_mask;
	}
	dev->owned_set[i] = NULL;
	for (j = (i + 1) & dev->owned_mask; dev->owned_set[j] != NULL;
	     j = (j + 1) & dev->owned_mask) {
		k = owned_home(dev, dev->owned_set[j]);
		/* Entry j stays if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		dev->owned_set[i] = dev->owned_set[j];
		dev->owned_set[j] = NULL;
		i = j;
	}
}

/* ---------------------------------------------------------------- */
/* rte_mp                                                            */
/* ---------------------------------------------------------------- */

static struct mdevx_share_dev *
find_dev_locked(const char *devstr)
{
	struct mdevx_share_dev *dev;

	TAILQ_FOREACH(dev, &share_devs, next)
		if (strcmp(dev->devstr, devstr) == 0)
			return dev;
	return NULL;
}

/*
 * The open device of a withdrawal notification: its string and instance
 * both, or the one being attached (whose instance is not known before the
 * primary's answer).
 */
static struct mdevx_share_dev *
find_instance_locked(const char *devstr, uint64_t cookie)
{
	struct mdevx_share_dev *dev = find_dev_locked(devstr);

	if (dev != NULL && dev->cookie == cookie)
		return dev;
	if (attaching != NULL && strcmp(attaching->devstr, devstr) == 0 &&
	    (attaching->cookie == 0 || attaching->cookie == cookie))
		return attaching;
	return NULL;
}

/*
 * Is @p peer the primary's IPC socket? EAL gives a handler the path its
 * request came from: the primary's is <runtime dir>/mp_socket, every
 * secondary's has a suffix of its own.
 */
static bool
peer_is_primary(const char *peer)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/mp_socket", rte_eal_get_runtime_dir());
	return peer != NULL && n > 0 && (size_t)n < sizeof(path) && strcmp(peer, path) == 0;
}

/* The list @p dev is on (share_devs or orphan_devs), or NULL. */
static struct mdevx_share_devs_head *
dev_list_locked(const struct mdevx_share_dev *dev)
{
	const struct mdevx_share_dev *d;

	TAILQ_FOREACH(d, &share_devs, next)
		if (d == dev)
			return &share_devs;
	TAILQ_FOREACH(d, &orphan_devs, next)
		if (d == dev)
			return &orphan_devs;
	return NULL;
}

static void notify_ack(const struct mp_param *ack, pid_t pid);

/* The pid in a secondary's socket name (mp_socket_<pid>_<n>), or 0. */
static pid_t
peer_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	long pid;

	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "mp_socket_", 10) != 0)
		return 0;
	pid = strtol(base + 10, NULL, 10);
	return pid > 0 && pid <= INT32_MAX ? (pid_t)pid : 0;
}

static bool
peer_alive(const struct mp_peer *p)
{
	return p->pid <= 0 || kill(p->pid, 0) == 0 || errno != ESRCH;
}

/*
 * Primary, share_devs_lock held: remember secondary @p path as attached
 * to @p dev (once), so that its withdrawals wait for its acknowledgement.
 * 0 or ENOSPC (MAX_PEERS live secondaries attached already).
 */
static int
peer_add_locked(struct mdevx_share_dev *dev, const char *path)
{
	uint32_t i;

	for (i = 0; i < dev->nb_peers; i++)
		if (strcmp(dev->peers[i].path, path) == 0)
			return 0;
	for (i = 0; dev->nb_peers == MAX_PEERS && i < dev->nb_peers;) {
		if (peer_alive(&dev->peers[i]))
			i++;
		else
			dev->peers[i] = dev->peers[--dev->nb_peers];
	}
	if (dev->nb_peers == MAX_PEERS)
		return ENOSPC;
	snprintf(dev->peers[dev->nb_peers].path, sizeof(dev->peers[0].path), "%s", path);
	dev->peers[dev->nb_peers].pid = peer_pid(path);
	dev->nb_peers++;
	return 0;
}

/* Primary: secondary @p pid closed the device (MP_OP_DETACH). */
static void
peer_detach(const struct mp_param *req, pid_t pid)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_dev_locked(req->devstr);
	if (dev != NULL && dev->primary && dev->cookie == req->cookie) {
		for (uint32_t i = 0; i < dev->nb_peers; i++) {
			if (dev->peers[i].pid == pid) {
				dev->peers[i] = dev->peers[--dev->nb_peers];
				break;
			}
		}
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/* ---------------------------------------------------------------- */
/* Root rules on shared objects                                      */
/* ---------------------------------------------------------------- */

/*
 * A process's root rules live in the uverbs file it shares with the
 * primary (mdevx_import_device()): they would outlive the process, and
 * they keep the objects they use from being destroyed. So:
 * - every process keeps the rules it made through the library and removes
 *   those that use a withdrawn record before acknowledging the withdrawal;
 * - a secondary tells the primary each rule it makes and removes
 *   (MP_OP_RULE_ADD / MP_OP_RULE_DEL, on the acknowledgement socket, so the
 *   kernel names the sender), and the primary removes by handle the rules
 *   of a secondary that died, and those a withdrawal still finds (a
 *   secondary that did not acknowledge in time).
 */

static void ack_send(const struct mp_param *p, int tries);

static inline mdevx_share_rule_t
rule_id(uint32_t idx, const struct share_rule *r)
{
	mdevx_share_rule_t h = { .id = ((uint64_t)r->gen << 32) | (idx + 1) };

	return h;
}

/* The entry a handle names (live or gone), or NULL. rules_lock held. */
static struct share_rule *
rule_of(const struct mdevx_share_dev *dev, mdevx_share_rule_t h, uint32_t *idx_out)
{
	uint32_t idx = (uint32_t)h.id, gen = (uint32_t)(h.id >> 32);
	struct share_rule *r;

	if (idx == 0 || idx > dev->rules_cap)
		return NULL;
	r = &dev->rules[idx - 1];
	if (r->state == RULE_FREE || r->gen != gen)
		return NULL;
	*idx_out = idx - 1;
	return r;
}

/* A free entry (rules_lock held), or NULL with errno ENOMEM / ENOSPC. */
static struct share_rule *
rule_alloc(struct mdevx_share_dev *dev, uint32_t *idx_out)
{
	struct share_rule *r;
	uint32_t idx;

	if (dev->rules_free == 0) {
		uint32_t cap = dev->rules_cap == 0 ? 64 : dev->rules_cap * 2;
		struct share_rule *n;

		if (dev->rules_cap >= RULES_MAX) {
			errno = ENOSPC;
			return NULL;
		}
		if (cap > RULES_MAX)
			cap = RULES_MAX;
		n = realloc(dev->rules, (size_t)cap * sizeof(*n));
		if (n == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		memset(n + dev->rules_cap, 0, (size_t)(cap - dev->rules_cap) * sizeof(*n));
		for (uint32_t i = cap; i > dev->rules_cap; i--) {
			n[i - 1].next_free = dev->rules_free;
			dev->rules_free = i;
		}
		dev->rules = n;
		dev->rules_cap = cap;
	}
	idx = dev->rules_free - 1;
	r = &dev->rules[idx];
	dev->rules_free = r->next_free;
	r->next_free = 0;
	*idx_out = idx;
	return r;
}

/* Give an entry back (rules_lock held); its next handle differs. */
static void
rule_free(struct mdevx_share_dev *dev, struct share_rule *r, uint32_t idx)
{
	uint32_t gen = r->gen + 1;

	memset(r, 0, sizeof(*r));
	r->gen = gen;
	r->next_free = dev->rules_free;
	dev->rules_free = idx + 1;
}

/* Secondary: tell the primary about rule @p r (see ack_send() for @p tries). */
static void
rule_msg(const struct mdevx_share_dev *dev, enum mp_op op, const struct share_rule *r, int tries)
{
	struct mp_param p;

	if (dev->primary || dev->orphan)
		return;
	memset(&p, 0, sizeof(p));
	p.op = op;
	p.cookie = dev->cookie;
	p.handle = r->handle;
	p.rec_idx = r->rec[0];
	p.generation = r->rec_gen[0];
	p.rec_idx2 = r->rec[1];
	p.generation2 = r->rec_gen[1];
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	ack_send(&p, tries);
}

/*
 * Remove this process's rules that use record @p rec_idx of generation
 * @p gen (every rule when rec_idx is UINT32_MAX) or the local object
 * @p obj (may be NULL). dev->lock held for writing, so that no rule is
 * being made on an import meanwhile. The entries stay (RULE_GONE) until
 * mdevx_share_rule_destroy(). Returns how many were removed.
 */
static uint32_t
rules_drop(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen,
	   const struct mdevx_obj *obj, int tries)
{
	uint32_t n = 0;

	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t i = 0; i < dev->rules_cap && dev->nb_rules > 0; i++) {
		struct share_rule *r = &dev->rules[i];
		bool hit = rec_idx == UINT32_MAX;
		int rc;

		if (r->state != RULE_LIVE)
			continue;
		for (int k = 0; k < 2 && !hit; k++)
			hit = (r->rec[k] == rec_idx && r->rec_gen[k] == gen) ||
			      (obj != NULL && r->obj[k] == obj);
		if (!hit)
			continue;
		rc = mdevx_rule_destroy(r->rule);
		if (rc != 0)
			SHARE_LOG(ERR, "%s: removing rule %u: %s (the primary removes it)",
				  dev->devstr, r->handle, strerror(-rc));
		else
			rule_msg(dev, MP_OP_RULE_DEL, r, tries);
		r->rule = NULL;
		r->state = RULE_GONE;
		dev->nb_rules--;
		n++;
	}
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
}

/*
 * Primary: remove by handle the secondaries' rules that use record
 * @p rec_idx of generation @p gen (every one when rec_idx is UINT32_MAX),
 * or, with @p pid != 0, those of process @p pid. rules_lock held.
 */
static uint32_t
prules_remove_locked(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen, pid_t pid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_prules;) {
		struct peer_rule *e = &dev->prules[i];
		bool hit;
		int rc;

		if (pid != 0)
			hit = e->pid == pid;
		else
			hit = rec_idx == UINT32_MAX ||
			      (e->rec[0] == rec_idx && e->rec_gen[0] == gen) ||
			      (e->rec[1] == rec_idx && e->rec_gen[1] == gen);
		if (!hit) {
			i++;
			continue;
		}
		rc = mdevx_rule_destroy_handle(dev->ctx, e->handle);
		if (rc != 0 && rc != -ENOENT)
			SHARE_LOG(ERR, "%s: removing rule %u of process %d: %s", dev->devstr,
				  e->handle, (int)e->pid, strerror(-rc));
		else
			SHARE_LOG(DEBUG, "%s: removed rule %u of process %d", dev->devstr,
				  e->handle, (int)e->pid);
		*e = dev->prules[--dev->nb_prules];
		n++;
	}
	return n;
}

static uint32_t
prules_remove(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen)
{
	uint32_t n;

	pthread_mutex_lock(&dev->rules_lock);
	n = prules_remove_locked(dev, rec_idx, gen, 0);
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
}

void
mdevx_share_test_rule_msg(const struct mdevx_share_dev *dev, int add, uint32_t handle)
{
	struct share_rule r;

	memset(&r, 0, sizeof(r));
	r.handle = handle;
	r.rec[0] = UINT32_MAX;
	r.rec[1] = UINT32_MAX;
	rule_msg(dev, add ? MP_OP_RULE_ADD : MP_OP_RULE_DEL, &r, RULE_MSG_TRIES);
}

/* Primary, rules_lock held: is @p handle one of our own live rules? */
static bool
own_rule_handle(const struct mdevx_share_dev *dev, uint32_t handle)
{
	for (uint32_t i = 0; i < dev->rules_cap; i++)
		if (dev->rules[i].state == RULE_LIVE && dev->rules[i].handle == handle)
			return true;
	return false;
}

/* Primary, rules_lock held: record rule @p p of process @p pid. 0 or ENOMEM/ENOSPC. */
static int
prule_append(struct mdevx_share_dev *dev, const struct mp_param *p, pid_t pid)
{
	struct peer_rule *e;

	if (dev->nb_prules == dev->prules_cap) {
		uint32_t cap = dev->prules_cap == 0 ? 64 : dev->prules_cap * 2;

		if (dev->prules_cap >= PEER_RULES_MAX)
			return ENOSPC;
		e = realloc(dev->prules, (size_t)cap * sizeof(*e));
		if (e == NULL)
			return ENOMEM;
		dev->prules = e;
		dev->prules_cap = cap;
	}
	e = &dev->prules[dev->nb_prules++];
	e->pid = pid;
	e->handle = p->handle;
	e->rec[0] = p->rec_idx;
	e->rec_gen[0] = p->generation;
	e->rec[1] = p->rec_idx2;
	e->rec_gen[1] = p->generation2;
	return 0;
}

/* share_devs_lock held: is @p pid a secondary attached to @p dev? */
static bool
peer_attached_locked(const struct mdevx_share_dev *dev, pid_t pid)
{
	for (uint32_t i = 0; i < dev->nb_peers; i++)
		if (dev->peers[i].pid == pid)
			return true;
	return false;
}

/*
 * Primary, acknowledgement reader: secondary @p pid made or removed a rule.
 * Only an attached secondary of the device's instance counts; the entry is
 * only ever used to remove that handle when the secondary is gone or a
 * withdrawal finds it, and a handle already known is replaced (it was
 * freed and made again).
 */
static void
peer_rule_msg(const struct mp_param *p, pid_t pid)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_dev_locked(p->devstr);
	if (dev == NULL || !dev->primary || dev->cookie != p->cookie ||
	    !peer_attached_locked(dev, pid)) {
		pthread_mutex_unlock(&share_devs_lock);
		SHARE_LOG(DEBUG, "rule message %u from process %d: not an attached secondary "
			  "of %s: ignored", p->op, (int)pid, p->devstr);
		return;
	}
	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t i = 0; i < dev->nb_prules; i++) {
		if (dev->prules[i].handle != p->handle)
			continue;
		if (p->op == MP_OP_RULE_DEL && dev->prules[i].pid != pid)
			break;		/* not theirs to forget */
		dev->prules[i] = dev->prules[--dev->nb_prules];
		break;
	}
	if (p->op == MP_OP_RULE_ADD) {
		if (own_rule_handle(dev, p->handle))
			SHARE_LOG(WARNING, "%s: process %d announced rule %u, one of ours: ignored",
				  dev->devstr, (int)pid, p->handle);
		else if (prule_append(dev, p, pid) != 0)
			SHARE_LOG(ERR, "%s: no room for rule %u of process %d: it is not removed "
				  "if the process dies", dev->devstr, p->handle, (int)pid);
	}
	pthread_mutex_unlock(&dev->rules_lock);
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Primary, acknowledgement reader, every REAP_PERIOD_MS: remove the rules
 * of secondaries that died (their rules are in our uverbs file: only we
 * can). A pid reused by a new process before the check keeps them.
 */
static void
reap_dead_peers(void)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	TAILQ_FOREACH(dev, &share_devs, next) {
		pid_t dead[MAX_PEERS];
		uint32_t nb_dead = 0;

		if (!dev->primary)
			continue;
		pthread_mutex_lock(&dev->rules_lock);
		for (uint32_t i = 0; i < dev->nb_prules && nb_dead < MAX_PEERS; i++) {
			pid_t pid = dev->prules[i].pid;
			bool known = false;

			for (uint32_t k = 0; k < nb_dead && !known; k++)
				known = dead[k] == pid;
			if (!known && kill(pid, 0) != 0 && errno == ESRCH)
				dead[nb_dead++] = pid;
		}
		for (uint32_t k = 0; k < nb_dead; k++) {
			uint32_t n = prules_remove_locked(dev, 0, 0, dead[k]);

			SHARE_LOG(NOTICE, "%s: process %d died with %u rules: removed", dev->devstr,
				  (int)dead[k], n);
		}
		pthread_mutex_unlock(&dev->rules_lock);
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Acknowledgements and detach messages do not go through EAL: they go
 * from each secondary to a datagram socket of the primary's library,
 * <runtime dir>/mdevx_share_ack, read by a thread of its own.
 * - EAL sends with a blocking call. A secondary's IPC thread blocked
 *   sending to the primary's full queue stops reading its own, and the
 *   primary's IPC thread, blocked answering an attach into that full
 *   queue, stops reading: both wait for each other for good (seen in the
 *   attach-during-withdrawals test). A secondary sends to our socket
 *   without blocking, and the primary's reader never sends.
 * - The kernel tells the reader the sender's pid (SCM_CREDENTIALS): an
 *   acknowledgement counts for the process that really sent it.
 * - EAL's send calls of a secondary share a static buffer (the primary's
 *   socket path): sending from our handler would race with the
 *   application's own requests.
 */
#define ACK_SOCK_NAME "mdevx_share_ack"
#define ACK_SEND_TRIES 20		/* 1 ms apart while the primary's queue is full */

static int ack_rx_fd = -1;		/* primary (share_open_lock) */
static int ack_tx_fd = -1;		/* secondary (ack_tx_lock) */
static pid_t ack_tx_pid;		/* the process ack_tx_fd was made in */
static pthread_mutex_t ack_tx_lock = PTHREAD_MUTEX_INITIALIZER;

static void peer_msg(const struct mp_param *p, pid_t pid);

static int
ack_sock_addr(struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", rte_eal_get_runtime_dir(),
		     ACK_SOCK_NAME);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : ENAMETOOLONG;
}

/* Primary: read acknowledgements and detach messages, for the process's life. */
static void *
ack_reader(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint64_t last_reap = 0;

	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec now;
		uint64_t now_ms;
		int pr;
		struct mp_param p;
		struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct ucred cred = { .pid = 0 };
		struct cmsghdr *c;
		ssize_t n;

		pr = poll(&pfd, 1, REAP_PERIOD_MS);
		clock_gettime(CLOCK_MONOTONIC, &now);
		now_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
		if (now_ms - last_reap >= REAP_PERIOD_MS) {
			last_reap = now_ms;
			reap_dead_peers();
		}
		if (pr <= 0)
			continue;
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			SHARE_LOG(ERR, "acknowledgement socket: %s: no more acknowledgements",
				  strerror(errno));
			return NULL;
		}
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
		if (n != (ssize_t)sizeof(p) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		    cred.pid <= 0)
			continue;	/* not one of our messages */
		p.devstr[DEVSTR_MAX - 1] = '\0';
		peer_msg(&p, cred.pid);
	}
	return NULL;
}

/* Primary, share_open_lock held: the socket and its reader, once. 0 or errno. */
static int
ack_rx_start(void)
{
	struct sockaddr_un sa;
	pthread_t t;
	int fd, one = 1, err;

	if (ack_rx_fd >= 0)
		return 0;
	err = ack_sock_addr(&sa);
	if (err != 0)
		return err;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	unlink(sa.sun_path);		/* a previous primary's of this prefix */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(fd);
		SHARE_LOG(ERR, "acknowledgement socket %s: %s", sa.sun_path, strerror(err));
		return err;
	}
	err = pthread_create(&t, NULL, ack_reader, (void *)(intptr_t)fd);
	if (err != 0) {
		close(fd);
		unlink(sa.sun_path);
		return err;
	}
	pthread_detach(t);
	ack_rx_fd = fd;
	return 0;
}

/*
 * Secondary: send @p p to the primary's socket without blocking (up to
 * @p tries, 1 ms apart, while its queue is full): ACK_SEND_TRIES from
 * EAL's IPC thread, more from application threads, whose rule messages
 * must not be lost.
 */
static void
ack_send(const struct mp_param *p, int tries)
{
	struct sockaddr_un sa;
	int err = 0;

	if (ack_sock_addr(&sa) != 0)
		return;
	pthread_mutex_lock(&ack_tx_lock);
	if (ack_tx_fd < 0 || ack_tx_pid != getpid()) {
		ack_tx_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		ack_tx_pid = getpid();
	}
	for (int i = 0; i < tries; i++) {
		if (ack_tx_fd >= 0 && sendto(ack_tx_fd, p, sizeof(*p), MSG_DONTWAIT,
					     (struct sockaddr *)&sa, sizeof(sa)) == sizeof(*p)) {
			err = 0;
			break;
		}
		err = ack_tx_fd < 0 ? EBADF : errno;
		if (err != EAGAIN && err != EINTR)
			break;
		usleep(1000);
	}
	pthread_mutex_unlock(&ack_tx_lock);
	if (err != 0)
		SHARE_LOG(WARNING, "%s: message %u to the primary not sent: %s", p->devstr,
			  p->op, strerror(err));
}

/*
 * Secondary: a withdrawal notification (one-way). Only the primary's
 * counts. Unimport, then acknowledge with a one-way message of our own
 * that names the notification (ack_send()): the primary waits for the
 * secondaries that attached the device, and nobody else.
 */
static int
mp_withdraw(const struct mp_param *req, const char *peer)
{
	struct mdevx_share_dev *dev;
	struct mp_param ack;
	unsigned int delay_ms;

	if (__atomic_load_n(&test_drop_acks, __ATOMIC_RELAXED))
		return 0;	/* test hook: a secondary whose handler never runs */
	if (!peer_is_primary(peer)) {
		SHARE_LOG(WARNING, "withdrawal from %s, not the primary: ignored", peer);
		return 0;
	}
	memset(&ack, 0, sizeof(ack));
	pthread_mutex_lock(&share_devs_lock);
	/* nothing imported yet by one being attached: orphaned if closed */
	dev = find_instance_locked(req->devstr, req->cookie);
	if (dev != NULL) {
		uint32_t rec = req->op == MP_OP_WITHDRAW ? req->rec_idx : UINT32_MAX;

		mdevx_share_lock_write(&dev->lock);
		/* Rules first: the owner destroys the object once we acknowledge. */
		rules_drop(dev, rec, req->generation, NULL, ACK_SEND_TRIES);
		ack.unimported = unimport_record(dev, rec, req->generation);
		if (req->op == MP_OP_WITHDRAW_ALL)
			dev->orphan = true;
		mdevx_share_unlock_write(&dev->lock);
	}
	pthread_mutex_unlock(&share_devs_lock);
	delay_ms = __atomic_load_n(&test_ack_delay_ms, __ATOMIC_RELAXED);
	if (unlikely(delay_ms != 0))
		usleep(delay_ms * 1000);	/* test hook: a slow handler */
	/* Also when the device is not (or no longer) ours: the primary may count us. */
	ack.op = MP_OP_ACK;
	ack.status = (int32_t)req->op;
	ack.rec_idx = req->rec_idx;
	ack.generation = req->generation;
	ack.cookie = req->cookie;
	ack.seq = req->seq;
	memcpy(ack.devstr, req->devstr, sizeof(ack.devstr));
	ack_send(&ack, ACK_SEND_TRIES);
	return 0;
}

/*
 * Runs on the EAL IPC thread. No allocation, no request of our own: the
 * attach reply carries the command fd (the receiver gets its own
 * descriptor); withdrawals and their acknowledgements are one-way.
 */
static int
mp_handler(const struct rte_mp_msg *msg, const void *peer)
{
	const bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct mp_param req_buf, rep_buf;
	const struct mp_param *req = &req_buf;
	struct mp_param *rep = &rep_buf;
	struct rte_mp_msg reply;
	struct mdevx_share_dev *dev;
	int fd = -1, ret;

	if (msg->len_param != sizeof(*req))
		return -EINVAL;
	memcpy(&req_buf, msg->param, sizeof(req_buf));
	req_buf.devstr[DEVSTR_MAX - 1] = '\0';
	if ((req->op == MP_OP_WITHDRAW || req->op == MP_OP_WITHDRAW_ALL) && !primary)
		return mp_withdraw(req, peer);
	memset(&rep_buf, 0, sizeof(rep_buf));
	rep->op = req->op;
	memcpy(rep->devstr, req->devstr, sizeof(rep->devstr));
	pthread_mutex_lock(&share_devs_lock);
	if (req->op == MP_OP_ATTACH && primary) {
		dev = find_dev_locked(req->devstr);
		if (dev == NULL || !dev->primary) {
			rep->status = -ENODEV;
		} else if (peer_add_locked(dev, peer) != 0) {
			rep->status = -ENOSPC;
			SHARE_LOG(ERR, "%s: %u secondaries attached already: %s refused",
				  dev->devstr, MAX_PEERS, (const char *)peer);
		} else {
			struct mdevx_share_snap_geo geo;

			rep->cookie = dev->cookie;
			snprintf(rep->mz_name, sizeof(rep->mz_name), "%s", dev->mz->name);
			snap_geo(dev->snap, &geo);
			rep->rec_idx = geo.period_ms;
			rep->rec_idx2 = geo.counters;
			rep->handle = geo.nb_slots;
			rep->generation2 = (uint64_t)geo.primary_pid;
			/* Our own descriptor: the device may be closed once we unlock. */
			fd = mdevx_cmd_fd(dev->ctx);
			if (fd >= 0)
				fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (fd < 0)
				rep->status = -EBADF;
		}
	} else if (req->op == MP_OP_LIST && primary) {
		uint32_t n = 0;

		/* the device of index rec_idx, and how many there are */
		rep->status = -ENOENT;
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (!dev->primary)
				continue;
			if (n++ == req->rec_idx) {
				rep->status = 0;
				rep->cookie = dev->cookie;
				snprintf(rep->devstr, sizeof(rep->devstr), "%s", dev->devstr);
			}
		}
		rep->rec_idx = req->rec_idx;
		rep->rec_idx2 = n;
	} else {
		rep->status = -EINVAL;
	}
	pthread_mutex_unlock(&share_devs_lock);
	mp_msg_pack(&reply, msg->name, rep);
	if (fd >= 0) {
		reply.num_fds = 1;
		reply.fds[0] = fd;
	}
	ret = rte_mp_reply(&reply, peer);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Register our action with the first device of the process and keep it
 * registered: a process that closed its last device must still answer (a
 * secondary acknowledges withdrawals with nothing to unimport, the primary
 * refuses attach requests with ENODEV). EAL does not answer a request for
 * an unknown action, and the requester would wait for its whole bound.
 * Lock held.
 */
static int
mp_register_all(bool log)
{
	/* EAL refuses ENOTSUP before EEXIST: without IPC this fails. */
	if (rte_mp_action_register(MP_ACTION, mp_handler) != 0 && rte_errno != EEXIST) {
		if (log)
			SHARE_LOG(ERR, "rte_mp_action_register(%s): %s", MP_ACTION,
				  rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static int
mp_get(void)
{
	int ret;

	if (mp_registered)
		return 0;
	/*
	 * Registered again after EAL's initialisation even when the
	 * constructor did it: this is what tells that the process has IPC
	 * (with --in-memory, say, EAL refuses with ENOTSUP, and so does open).
	 */
	ret = mp_register_all(true);
	if (ret == 0)
		mp_registered = true;
	return ret;
}

/*
 * Our action from the start of every process that loads the library: a
 * secondary that never attaches a device still answers withdrawals (with
 * nothing to unimport) instead of costing each one its whole bound and
 * keeping a closed registry's memzone, and a primary that has not opened
 * a device yet refuses an attach at once (ENODEV). EAL keeps an action
 * registered before rte_eal_init(); if this fails, the first open or
 * attach tries again.
 */
RTE_INIT(mdevx_share_mp_init)
{
	pthread_mutex_lock(&share_devs_lock);
	(void)mp_register_all(false);
	pthread_mutex_unlock(&share_devs_lock);
}

void
mdevx_share_test_drop_acks(int drop)
{
	__atomic_store_n(&test_drop_acks, drop, __ATOMIC_RELAXED);
}

void
mdevx_share_test_ack_delay(unsigned int ms)
{
	__atomic_store_n(&test_ack_delay_ms, ms, __ATOMIC_RELAXED);
}

void
mdevx_share_test_attach_hook(void (*fn)(void *arg), void *arg)
{
	test_attach_arg = arg;
	test_attach_hook = fn;
}

void
mdevx_share_test_import_hook(void (*fn)(void *arg), void *arg)
{
	test_import_arg = arg;
	test_import_hook = fn;
}

void
mdevx_share_test_import_obj_hook(void (*fn)(void *arg), void *arg)
{
	test_import_obj_arg = arg;
	test_import_obj_hook = fn;
}

int
mdevx_share_test_withdraw_msg(const struct mdevx_share_dev *dev, uint32_t rec_idx,
			      uint64_t generation, struct rte_mp_msg *msg)
{
	struct mp_param p;

	if (dev == NULL || msg == NULL)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.op = rec_idx == UINT32_MAX ? MP_OP_WITHDRAW_ALL : MP_OP_WITHDRAW;
	p.rec_idx = rec_idx;
	p.generation = generation;
	p.cookie = dev->cookie;
	p.seq = 1;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	mp_msg_pack(msg, MP_ACTION, &p);
	return 0;
}

/*
 * Withdrawal notifications are one-way (rte_mp_sendmsg(), to every
 * secondary) and so are their acknowledgements (each secondary's, to the
 * primary). A withdrawal waits for the secondaries that attached the
 * device and are alive, each acknowledgement counted by the socket it
 * came from: a secondary that never attached (a monitoring tool that does
 * not load this library, say) costs nothing. A sequence number in the
 * notification finds the waiter; an acknowledgement of another
 * notification, or from another process, counts for nothing.
 */

struct pending_notify {
	uint64_t seq;			/* 0 = slot free */
	uint64_t cookie;
	uint64_t generation;
	uint32_t rec_idx;
	uint32_t op;
	const char *devstr;
	uint32_t nb_expect;
	uint32_t nb_acked;
	uint32_t nb_gone;
	bool acked[MAX_PEERS];
	bool gone[MAX_PEERS];
	struct mp_peer expect[MAX_PEERS];
};

static struct pending_notify pending[MAX_PENDING];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_cond = PTHREAD_COND_INITIALIZER;
static uint64_t pending_seq;

/* Primary, acknowledgement reader: an acknowledgement from process @p pid. */
static void
notify_ack(const struct mp_param *ack, pid_t pid)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending_notify *pn = &pending[i];

		if (pn->seq == 0 || pn->seq != ack->seq || pn->cookie != ack->cookie ||
		    pn->op != (uint32_t)ack->status || pn->rec_idx != ack->rec_idx ||
		    pn->generation != ack->generation || strcmp(pn->devstr, ack->devstr) != 0)
			continue;
		for (uint32_t k = 0; k < pn->nb_expect; k++) {
			/* once per expected secondary: a process that attached twice counts once */
			if (!pn->acked[k] && !pn->gone[k] && pn->expect[k].pid == pid) {
				pn->acked[k] = true;
				pn->nb_acked++;
				pthread_cond_broadcast(&pending_cond);
			}
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

/*
 * Primary, acknowledgement reader: a refresh request. Any process may send
 * one: it costs a bulk query of a published bulk, nothing else.
 */
static void
peer_refresh(const struct mp_param *p)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_instance_locked(p->devstr, p->cookie);
	if (dev != NULL && dev->primary)
		snap_request(dev->snap, p->rec_idx, p->generation);
	pthread_mutex_unlock(&share_devs_lock);
}

/* Primary, acknowledgement reader: one message of secondary @p pid. */
static void
peer_msg(const struct mp_param *p, pid_t pid)
{
	if (p->op == MP_OP_ACK)
		notify_ack(p, pid);
	else if (p->op == MP_OP_DETACH)
		peer_detach(p, pid);
	else if (p->op == MP_OP_RULE_ADD || p->op == MP_OP_RULE_DEL)
		peer_rule_msg(p, pid);
	else if (p->op == MP_OP_REFRESH)
		peer_refresh(p);
}

/* pending_lock held: the expected peers that died meanwhile count as done. */
static void
notify_prune_dead(struct pending_notify *pn)
{
	for (uint32_t k = 0; k < pn->nb_expect; k++) {
		if (!pn->acked[k] && !pn->gone[k] && !peer_alive(&pn->expect[k])) {
			pn->gone[k] = true;
			pn->nb_gone++;
		}
	}
}

/*
 * Primary: tell every secondary, wait (bounded) for the acknowledgements
 * of those attached to @p dev. Returns how many acknowledged; @p nb_sent
 * receives how many were waited for, @p complete (may be NULL) whether
 * each of them acknowledged or died.
 */
static unsigned int
notify_withdraw(struct mdevx_share_dev *dev, enum mp_op op, uint32_t rec_idx, uint64_t gen,
		int *nb_sent, bool *complete)
{
	struct mp_peer expect[MAX_PEERS];
	struct pending_notify *pn = NULL;
	struct timespec now, deadline;
	struct mp_param p;
	struct rte_mp_msg req;
	uint32_t nb_expect = 0;
	unsigned int acked;

	/* Who must answer: the attached secondaries alive now. */
	pthread_mutex_lock(&share_devs_lock);
	for (uint32_t i = 0; i < dev->nb_peers; i++)
		if (peer_alive(&dev->peers[i]))
			expect[nb_expect++] = dev->peers[i];
	pthread_mutex_unlock(&share_devs_lock);

	pthread_mutex_lock(&pending_lock);
	for (;;) {
		for (int i = 0; i < MAX_PENDING && pn == NULL; i++)
			if (pending[i].seq == 0)
				pn = &pending[i];
		if (pn != NULL)
			break;
		/* All busy: wait, never skip (every slot is freed within its bound). */
		pthread_cond_wait(&pending_cond, &pending_lock);
	}
	memset(pn, 0, sizeof(*pn));
	pn->cookie = dev->cookie;
	pn->generation = gen;
	pn->rec_idx = rec_idx;
	pn->op = op;
	pn->devstr = dev->devstr;
	pn->nb_expect = nb_expect;
	memcpy(pn->expect, expect, nb_expect * sizeof(expect[0]));
	pn->seq = ++pending_seq;
	pthread_mutex_unlock(&pending_lock);

	memset(&p, 0, sizeof(p));
	p.op = op;
	p.rec_idx = rec_idx;
	p.generation = gen;
	p.cookie = dev->cookie;
	p.seq = pn->seq;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	mp_msg_pack(&req, MP_ACTION, &p);
	/*
	 * Sent to every secondary (the attaching ones too: one whose attach
	 * met this close orphans its device); one that cannot be reached is
	 * seen as dead or not acknowledging below.
	 */
	if (rte_mp_sendmsg(&req) != 0)
		SHARE_LOG(DEBUG, "withdraw notification not sent to every secondary: %s",
			  rte_strerror(rte_errno));

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += dev->withdraw_timeout_ms / 1000;
	deadline.tv_nsec += (long)(dev->withdraw_timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&pending_lock);
	while (pn->nb_acked + pn->nb_gone < pn->nb_expect) {
		struct timespec slice;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > deadline.tv_sec ||
		    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
			break;
		slice = now;
		slice.tv_nsec += PEER_POLL_MS * 1000000L;
		if (slice.tv_nsec >= 1000000000) {
			slice.tv_sec++;
			slice.tv_nsec -= 1000000000;
		}
		if (slice.tv_sec > deadline.tv_sec ||
		    (slice.tv_sec == deadline.tv_sec && slice.tv_nsec > deadline.tv_nsec))
			slice = deadline;
		if (pthread_cond_clockwait(&pending_cond, &pending_lock, CLOCK_MONOTONIC,
					   &slice) == ETIMEDOUT)
			notify_prune_dead(pn);
	}
	acked = pn->nb_acked;
	*nb_sent = (int)pn->nb_expect;
	if (complete != NULL)
		*complete = pn->nb_acked + pn->nb_gone == pn->nb_expect;
	if (pn->nb_acked + pn->nb_gone < pn->nb_expect)
		SHARE_LOG(WARNING, "%s: withdraw of record %u: %u of %u attached secondaries "
			  "acknowledged within %u ms", dev->devstr, rec_idx, pn->nb_acked,
			  pn->nb_expect - pn->nb_gone, dev->withdraw_timeout_ms);
	pn->seq = 0;
	pthread_cond_broadcast(&pending_cond);	/* a free slot for a waiter */
	pthread_mutex_unlock(&pending_lock);
	return acked;
}

/* ---------------------------------------------------------------- */
/* Devices                                                           */
/* ---------------------------------------------------------------- */

static struct mdevx_share_dev *
dev_new(const char *devstr)
{
	struct mdevx_share_dev *dev = calloc(1, sizeof(*dev));

	if (dev == NULL)
		return NULL;
	snprintf(dev->devstr, sizeof(dev->devstr), "%s", devstr);
	dev->refcnt = 1;
	pthread_mutex_init(&dev->wlock, NULL);
	pthread_mutex_init(&dev->rules_lock, NULL);
	/* Arrival order: a notification never starves behind imports or queries. */
	mdevx_share_lock_init(&dev->lock);
	return dev;
}

static void
dev_free(struct mdevx_share_dev *dev)
{
	for (uint32_t c = 0; c < IMP_MAX_CHUNKS && dev->chunks[c] != NULL; c++)
		free(dev->chunks[c]);
	free(dev->owned);
	free(dev->owned_set);
	snap_free(dev->snap, false);
	mdevx_share_reg_free(dev->reg);
	pthread_mutex_destroy(&dev->wlock);
	pthread_mutex_destroy(&dev->rules_lock);
	free(dev->rules);
	free(dev->prules);
	free(dev);
}

static void share_exit(void);

/* Primary: the counter snapshot service of the open configuration. 0 or errno. */
static int
snap_start(struct mdevx_share_dev *dev, const struct mdevx_share_conf *conf)
{
	struct mdevx_share_snap_geo geo = {
		.period_ms = MDEVX_SHARE_COUNTER_PERIOD_DEFAULT,
		.counters = MDEVX_SHARE_SNAPSHOT_DEFAULT,
		.nb_slots = mdevx_share_reg_capacity(dev->reg),
		.primary_pid = getpid(),
	};

	if (conf != NULL) {
		geo.period_ms = conf->counter_period_ms;
		if (conf->snapshot_counters != 0)
			geo.counters = conf->snapshot_counters;
	}
	if (geo.counters > SNAP_COUNTERS_MAX)
		return EINVAL;
	return snap_open(&dev->snap, dev->devstr, dev->mz->name, dev->ctx, &geo);
}

static int
check_devstr(const char *devstr)
{
	if (devstr == NULL || devstr[0] == '\0')
		return EINVAL;
	if (strnlen(devstr, DEVSTR_MAX) >= DEVSTR_MAX)
		return ENAMETOOLONG;
	return 0;
}

struct mdevx_share_dev *
mdevx_share_dev_open(const char *devstr, const struct mdevx_share_conf *conf)
{
	uint32_t capacity = DEFAULT_CAPACITY;
	struct mdevx_share_dev *dev = NULL;
	char mz_name[RTE_MEMZONE_NAMESIZE];
	size_t len;
	int err;

	err = check_devstr(devstr);
	if (err != 0)
		goto err_out;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		err = EPERM;
		goto err_out;
	}
	if (conf != NULL && conf->capacity != 0)
		capacity = conf->capacity;
	len = mdevx_share_reg_size(capacity);
	if (len == 0) {
		err = EINVAL;
		goto err_out;
	}
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	dev = find_dev_locked(devstr);
	pthread_mutex_unlock(&share_devs_lock);
	if (dev != NULL) {
		dev = NULL;
		err = EEXIST;
		goto err_unlock;
	}
	dev = dev_new(devstr);
	if (dev == NULL) {
		err = ENOMEM;
		goto err_unlock;
	}
	dev->primary = true;
	dev->withdraw_timeout_ms = conf != NULL && conf->withdraw_timeout_ms != 0 ?
				   conf->withdraw_timeout_ms : DEFAULT_WITHDRAW_TIMEOUT_MS;
	dev->owned = calloc(capacity, sizeof(*dev->owned));
	for (dev->owned_mask = 1; dev->owned_mask < 2 * capacity; dev->owned_mask <<= 1)
		;
	dev->owned_set = calloc(dev->owned_mask, sizeof(*dev->owned_set));
	dev->owned_mask--;
	if (dev->owned == NULL || dev->owned_set == NULL) {
		err = ENOMEM;
		goto err_unlock;
	}
	do {
		if (getrandom(&dev->cookie, sizeof(dev->cookie), 0) != sizeof(dev->cookie)) {
			err = errno;
			goto err_unlock;
		}
	} while (dev->cookie == 0);
	dev->ctx = mdevx_open(devstr);
	if (dev->ctx == NULL) {
		err = errno;
		SHARE_LOG(ERR, "cannot open %s: %s", devstr, strerror(err));
		goto err_unlock;
	}
	if (mdevx_export_size(dev->ctx, &dev->export_size) != 0 ||
	    dev->export_size > MDEVX_SHARE_EXPORT_MAX) {
		err = ENOTSUP;
		SHARE_LOG(ERR, "%s: export buffer of %zu bytes does not fit a record (%d)",
			  devstr, dev->export_size, MDEVX_SHARE_EXPORT_MAX);
		goto err_close;
	}
	/* The open counter: a registry kept after a close keeps its name. */
	snprintf(mz_name, sizeof(mz_name), "mdevx_sh_%08x_%u", devstr_key(devstr), ++open_count);
	dev->mz = rte_memzone_reserve_aligned(mz_name, len, SOCKET_ID_ANY, 0, 64);
	if (dev->mz == NULL) {
		err = rte_errno;
		SHARE_LOG(ERR, "%s: cannot reserve memzone %s of %zu bytes: %s", devstr,
			  mz_name, len, rte_strerror(err));
		goto err_close;
	}
	dev->reg = mdevx_share_reg_init(dev->mz->addr, dev->mz->len, capacity, dev->cookie);
	if (dev->reg == NULL) {
		err = errno;
		goto err_mz;
	}
	dev->reg_len = dev->mz->len;
	err = snap_start(dev, conf);
	if (err != 0)
		goto err_reg;
	if (exit_pid == 0) {
		exit_pid = getpid();
		if (atexit(share_exit) != 0) {
			exit_pid = 0;
			SHARE_LOG(WARNING, "atexit() failed: close the devices before exit");
		}
	}
	err = dev_live_add(dev);
	if (err != 0)
		goto err_reg;
	pthread_mutex_lock(&share_devs_lock);
	err = -mp_get();
	pthread_mutex_unlock(&share_devs_lock);
	if (err == 0)
		err = ack_rx_start();
	if (err == 0) {
		pthread_mutex_lock(&share_devs_lock);
		TAILQ_INSERT_TAIL(&share_devs, dev, next);
		pthread_mutex_unlock(&share_devs_lock);
	}
	if (err != 0) {
		dev_live_del(dev);
		goto err_reg;
	}
	pthread_mutex_unlock(&share_open_lock);
	mdevx_share_telemetry_init();
	SHARE_LOG(INFO, "%s: sharing with %u records in %s, cookie %#" PRIx64, devstr,
		  capacity, mz_name, dev->cookie);
	return dev;

err_reg:
	snap_free(dev->snap, true);
	dev->snap = NULL;
	mdevx_share_reg_free(dev->reg);
	dev->reg = NULL;
err_mz:
	rte_memzone_free(dev->mz);
err_close:
	mdevx_close(dev->ctx);
err_unlock:
	pthread_mutex_unlock(&share_open_lock);
	if (dev != NULL)
		dev_free(dev);
err_out:
	errno = err;
	return NULL;
}

struct mdevx_share_dev *
mdevx_share_dev_attach(const char *devstr)
{
	struct timespec ts = { .tv_sec = ATTACH_TIMEOUT_S, .tv_nsec = 0 };
	struct mdevx_share_dev *dev;
	struct rte_mp_msg req;
	struct mp_param p_buf, *p = &p_buf, r_buf;
	struct rte_mp_reply reply;
	const struct mp_param *r = &r_buf;
	int err, fd = -1;

	err = check_devstr(devstr);
	if (err != 0)
		goto err_out;
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		err = EPERM;
		goto err_out;
	}
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	dev = find_dev_locked(devstr);
	/*
	 * orphan is set by the handler under share_devs_lock too. A closed
	 * registry (the primary closed without our acknowledgement; it keeps
	 * the memzone, so reading its flag is safe) counts the same.
	 */
	if (dev != NULL && (dev->orphan || mdevx_share_reg_is_closed(dev->reg))) {
		/* The primary closed it: keep it for its close, attach anew. */
		TAILQ_REMOVE(&share_devs, dev, next);
		TAILQ_INSERT_TAIL(&orphan_devs, dev, next);
		dev = NULL;
	}
	if (dev != NULL) {
		dev->refcnt++;
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		return dev;
	}
	pthread_mutex_unlock(&share_devs_lock);
	dev = dev_new(devstr);
	if (dev == NULL) {
		err = ENOMEM;
		goto err_unlock;
	}
	pthread_mutex_lock(&share_devs_lock);
	err = -mp_get();
	if (err == 0)
		attaching = dev;
	pthread_mutex_unlock(&share_devs_lock);
	if (err != 0)
		goto err_free;

	memset(p, 0, sizeof(*p));
	p->op = MP_OP_ATTACH;
	snprintf(p->devstr, sizeof(p->devstr), "%s", devstr);
	mp_msg_pack(&req, MP_ACTION, p);
	memset(&reply, 0, sizeof(reply));
	if (rte_mp_request_sync(&req, &reply, &ts) != 0) {
		err = rte_errno != 0 ? rte_errno : EIO;
		SHARE_LOG(ERR, "%s: attach request to the primary failed: %s", devstr,
			  rte_strerror(err));
		goto err_free;
	}
	if (reply.nb_received != 1) {
		err = ETIMEDOUT;
		SHARE_LOG(ERR, "%s: the primary did not answer within %d s", devstr,
			  ATTACH_TIMEOUT_S);
		free(reply.msgs);
		goto err_free;
	}
	memcpy(&r_buf, reply.msgs[0].param, sizeof(r_buf));
	r_buf.devstr[DEVSTR_MAX - 1] = '\0';
	r_buf.mz_name[RTE_MEMZONE_NAMESIZE - 1] = '\0';
	/* A late answer to an earlier attach (another device) is no answer. */
	if (reply.msgs[0].len_param != sizeof(*r) || r->op != MP_OP_ATTACH ||
	    strcmp(r->devstr, devstr) != 0) {
		err = EPROTO;
	} else if (r->status != 0) {
		err = -r->status;
	} else if (reply.msgs[0].num_fds != 1) {
		err = EPROTO;
	} else {
		fd = reply.msgs[0].fds[0];
		/* the handler compares it (find_instance_locked()) */
		pthread_mutex_lock(&share_devs_lock);
		dev->cookie = r->cookie;
		pthread_mutex_unlock(&share_devs_lock);
		dev->mz = rte_memzone_lookup(r->mz_name);
		if (dev->mz == NULL)
			err = ENOENT;
	}
	for (int i = 0; err != 0 && i < reply.msgs[0].num_fds; i++)
		close(reply.msgs[0].fds[i]);
	free(reply.msgs);
	if (err != 0) {
		SHARE_LOG(ERR, "%s: attach refused: %s", devstr, strerror(err));
		goto err_free;
	}
	if (unlikely(test_attach_hook != NULL))
		test_attach_hook(test_attach_arg);
	/*
	 * The primary may have closed the device since it answered: once our
	 * handler acknowledged that, the memzone is freed. The registry is
	 * read under the import lock, which the handler takes to mark the
	 * device orphaned, as every later read of it is.
	 */
	mdevx_share_lock_read(&dev->lock);
	if (dev->orphan) {
		err = ENODEV;
	} else {
		dev->reg = mdevx_share_reg_attach(dev->mz->addr, dev->mz->len);
		if (dev->reg == NULL)
			err = errno == ENOMEM ? ENOMEM : EPROTO;
		else if (mdevx_share_reg_cookie(dev->reg) != dev->cookie)
			err = EPROTO;
	}
	if (err == 0) {
		struct mdevx_share_snap_geo geo = {
			.period_ms = r->rec_idx, .counters = r->rec_idx2,
			.nb_slots = r->handle, .primary_pid = (pid_t)r->generation2,
		};
		int serr = snap_attach(&dev->snap, dev->mz->name, &geo);

		/* The device works without: reads of the snapshot give ENODATA. */
		if (serr != 0)
			SHARE_LOG(WARNING, "%s: counter snapshot not mapped: %s", devstr,
				  strerror(serr));
	}
	mdevx_share_unlock_read(&dev->lock);
	if (err != 0) {
		close(fd);
		if (err == ENODEV)
			SHARE_LOG(ERR, "%s: the primary closed the device during the attach",
				  devstr);
		else
			SHARE_LOG(ERR, "%s: registry %s is not the device's", devstr,
				  dev->mz->name);
		goto err_free;
	}
	dev->ctx = mdevx_import_device(devstr, fd);
	if (dev->ctx == NULL) {
		err = errno;
		close(fd);
		SHARE_LOG(ERR, "%s: importing the device context failed: %s", devstr,
			  strerror(err));
		goto err_free;
	}
	if (mdevx_export_size(dev->ctx, &dev->export_size) != 0) {
		err = ENOTSUP;
		mdevx_close(dev->ctx);
		goto err_free;
	}
	err = dev_live_add(dev);
	pthread_mutex_lock(&share_devs_lock);
	attaching = NULL;
	if (err == 0 && dev->orphan)
		err = ENODEV;
	if (err == 0)
		TAILQ_INSERT_TAIL(&share_devs, dev, next);
	pthread_mutex_unlock(&share_devs_lock);
	if (err == ENODEV)
		dev_live_del(dev);
	if (err != 0) {
		if (err == ENODEV)
			SHARE_LOG(ERR, "%s: the primary closed the device during the attach",
				  devstr);
		mdevx_close(dev->ctx);
		goto err_free;
	}
	pthread_mutex_unlock(&share_open_lock);
	SHARE_LOG(INFO, "%s: attached, cookie %#" PRIx64, devstr, dev->cookie);
	return dev;

err_free:
	pthread_mutex_lock(&share_devs_lock);
	if (attaching == dev)
		attaching = NULL;
	pthread_mutex_unlock(&share_devs_lock);
	dev_free(dev);
err_unlock:
	pthread_mutex_unlock(&share_open_lock);
err_out:
	errno = err;
	return NULL;
}

/*
 * Primary close: withdraw everything with one notification and destroy
 * what was published. wlock held. A record whose object cannot be
 * destroyed stays (withdrawn, with its object) for the next close to try
 * again. Returns 0 or the first destroy error; @p all_acked tells whether
 * every secondary that was told acknowledged.
 */
static int
primary_withdraw_all(struct mdevx_share_dev *dev, bool *all_acked)
{
	uint32_t cap = mdevx_share_reg_capacity(dev->reg);
	int nb_sent, ret = 0;
	uint64_t gen;

	/* From the registry's private state: the memzone's bytes decide nothing. */
	for (uint32_t s = 0; s < cap; s++) {
		if (mdevx_share_reg_owner_slot(dev->reg, s, &gen) == MDEVX_SHARE_REC_PUBLISHED)
			mdevx_share_reg_withdraw(dev->reg, s, gen, NULL);
		/* out of the counter snapshot before any destroy */
		if (dev->owned[s] != NULL)
			snap_del(dev->snap, s);
	}
	/* complete: every secondary told acknowledged this very request */
	notify_withdraw(dev, MP_OP_WITHDRAW_ALL, UINT32_MAX, 0, &nb_sent, all_acked);
	prules_remove(dev, UINT32_MAX, 0);
	for (uint32_t s = 0; s < cap; s++) {
		if (dev->owned[s] != NULL) {
			int r = mdevx_obj_destroy(dev->owned[s]);

			if (r != 0) {
				if (ret == 0)
					ret = r;
				continue;	/* record and object kept */
			}
			owned_del(dev, dev->owned[s]);
			dev->owned[s] = NULL;
		}
		if (mdevx_share_reg_owner_slot(dev->reg, s, NULL) == MDEVX_SHARE_REC_WITHDRAWN)
			mdevx_share_reg_release(dev->reg, s);
	}
	return ret;
}

/*
 * A close that could not finish (share_open_lock held, the device off its
 * list): the device stays open for another try. A secondary's comes back
 * orphaned: the primary may have closed meanwhile, and counted its
 * acknowledgement (a WITHDRAW_ALL finds no device off the list), so its
 * registry must not be read again.
 */
static int
close_abort(struct mdevx_share_dev *dev, int ret)
{
	if (!dev->primary) {
		mdevx_share_lock_write(&dev->lock);
		dev->orphan = true;
		mdevx_share_unlock_write(&dev->lock);
	}
	pthread_mutex_lock(&share_devs_lock);
	dev->refcnt = 1;
	TAILQ_INSERT_TAIL(dev->orphan ? &orphan_devs : &share_devs, dev, next);
	pthread_mutex_unlock(&share_devs_lock);
	(void)dev_live_add(dev);	/* its slot was freed by this close: there is room */
	pthread_mutex_unlock(&share_open_lock);
	SHARE_LOG(ERR, "%s: close failed: %s; the device stays open, close it again",
		  dev->devstr, strerror(-ret));
	errno = -ret;
	return ret;
}

/*
 * Secondary: the primary need not wait for us any more. One-way; if it is
 * lost, the primary waits for an acknowledgement that our handler still
 * sends (with nothing to unimport).
 */
static void
send_detach(const struct mdevx_share_dev *dev)
{
	struct mp_param p;

	memset(&p, 0, sizeof(p));
	p.op = MP_OP_DETACH;
	p.cookie = dev->cookie;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	ack_send(&p, ACK_SEND_TRIES);
}

/* Wrappers of ours on the device's context: published objects, import_obj() ones. */
static uint32_t
own_wrappers(const struct mdevx_share_dev *dev)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_slots; i++)
		n += slot_at(dev, i)->obj != NULL;
	for (uint32_t i = 0; dev->primary && i < mdevx_share_reg_capacity(dev->reg); i++)
		n += dev->owned[i] != NULL;
	return n + __atomic_load_n(&dev->nb_rules, __ATOMIC_RELAXED);
}

int
mdevx_share_dev_close(struct mdevx_share_dev *dev)
{
	struct mdevx_share_devs_head *list;
	bool all_acked = true;
	uint32_t own;
	int n, ret = 0;

	if (dev == NULL)
		return fail(EINVAL);
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	/* By pointer: a device closed already must not be read. */
	list = dev_list_locked(dev);
	if (list == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		return fail(ENOENT);
	}
	if (dev->refcnt > 1) {
		dev->refcnt--;
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		return 0;
	}
	/*
	 * Objects of the application on the device's context (a TIR's
	 * queues, say) would keep the context from closing: refuse before
	 * anything changes, imports and records intact.
	 */
	mdevx_share_lock_read(&dev->lock);
	n = mdevx_ctx_nb_objs(dev->ctx);
	own = n > 0 ? own_wrappers(dev) : 0;
	if (n > 0 && (uint32_t)n > own) {
		mdevx_share_unlock_read(&dev->lock);
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		SHARE_LOG(ERR, "%s: %u objects of the application are still on the device's "
			  "context: not closing", dev->devstr, (uint32_t)n - own);
		return fail(EBUSY);
	}
	mdevx_share_unlock_read(&dev->lock);
	dev_live_del(dev);
	dev->refcnt = 0;
	TAILQ_REMOVE(list, dev, next);
	pthread_mutex_unlock(&share_devs_lock);

	mdevx_share_lock_write(&dev->lock);
	rules_drop(dev, UINT32_MAX, 0, NULL, RULE_MSG_TRIES);
	unimport_record(dev, UINT32_MAX, 0);
	for (uint32_t i = 0; i < dev->nb_slots; i++) {
		struct imp_slot *s = slot_at(dev, i);

		if (s->state == IMP_FREE)
			continue;
		/* Revoked above: no call uses the wrapper any more, it cannot be busy. */
		slot_drop_wrapper(s);
		slot_free(dev, s, i);
	}
	mdevx_share_unlock_write(&dev->lock);
	if (!dev->primary && !dev->orphan)
		send_detach(dev);
	if (dev->primary) {
		pthread_mutex_lock(&dev->wlock);
		ret = primary_withdraw_all(dev, &all_acked);
		pthread_mutex_unlock(&dev->wlock);
		if (ret != 0)
			return close_abort(dev, ret);
	}
	if (mdevx_close(dev->ctx) != 0) {
		ret = -errno;
		/* An object made meanwhile by another thread: try again later. */
		if (ret == -EBUSY)
			return close_abort(dev, ret);
		/*
		 * Anything else means the context is gone already (closed with
		 * mdevx_close() behind the device, or freed after its backend
		 * failed to close): finish, and say so.
		 */
		SHARE_LOG(ERR, "%s: the device's context could not be closed (%s): "
			  "closing the device all the same", dev->devstr, strerror(-ret));
		ret = -EBADF;
	}
	if (dev->primary) {
		/*
		 * A secondary that did not acknowledge the WITHDRAW_ALL may still
		 * read the registry: rather than freeing memory under it, mark
		 * the registry closed (its reads give ENODEV) and leave the
		 * memzone to the end of the instance. The next open of the
		 * device reserves a memzone of another name.
		 */
		snap_free(dev->snap, all_acked);
		dev->snap = NULL;
		if (all_acked) {
			rte_memzone_free(dev->mz);
		} else {
			mdevx_share_reg_close(dev->reg);
			SHARE_LOG(WARNING, "%s: not every secondary acknowledged the close: "
				  "memzone %s kept (closed) until the instance ends", dev->devstr,
				  dev->mz->name);
		}
	}
	pthread_mutex_unlock(&share_open_lock);
	dev_free(dev);
	return ret == 0 ? 0 : fail(-ret);
}

/*
 * Is @p p in mapped memory? rte_eal_cleanup() unmaps the hugepage memory
 * (memzones included): a registry that is not mapped any more means EAL is
 * gone, its IPC with it.
 */
static bool
region_mapped(const void *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;

	if (pg <= 0)
		return false;
	return mincore((void *)((uintptr_t)p & ~(uintptr_t)(pg - 1)), 1, &vec) == 0;
}

/*
 * Exit with a close refused (objects of the application still on the
 * context, a destroy error): withdraw everything all the same (secondaries
 * told, objects destroyed) and close the registry. The context goes with
 * the process. Only for a device still open (found by pointer, not read).
 */
static void
exit_withdraw(struct mdevx_share_dev *dev)
{
	bool all_acked = true, open;
	int ret;

	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	open = dev_list_locked(dev) == &share_devs;
	pthread_mutex_unlock(&share_devs_lock);
	if (!open) {
		pthread_mutex_unlock(&share_open_lock);
		return;
	}
	mdevx_share_lock_write(&dev->lock);
	rules_drop(dev, UINT32_MAX, 0, NULL, 0);
	unimport_record(dev, UINT32_MAX, 0);
	mdevx_share_unlock_write(&dev->lock);
	pthread_mutex_lock(&dev->wlock);
	ret = primary_withdraw_all(dev, &all_acked);
	pthread_mutex_unlock(&dev->wlock);
	mdevx_share_reg_close(dev->reg);
	pthread_mutex_unlock(&share_open_lock);
	if (ret != 0 || !all_acked)
		SHARE_LOG(WARNING, "%s: withdrawal at exit: %s%s", dev->devstr,
			  ret != 0 ? strerror(-ret) : "done",
			  all_acked ? "" : ", not every secondary acknowledged");
}

/*
 * The exit handler's work: close every device the primary still has open.
 * A device is picked and checked under share_open_lock, so that no other
 * thread's close frees it meanwhile; after our own close it is only
 * looked for by pointer.
 */
static void *
exit_close_all(void *arg)
{
	RTE_SET_USED(arg);
	for (;;) {
		struct mdevx_share_dev *dev, *found = NULL;
		int ret;

		pthread_mutex_lock(&share_open_lock);
		pthread_mutex_lock(&share_devs_lock);
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (dev->primary && !dev->exit_seen) {
				found = dev;
				found->exit_seen = true;
				found->refcnt = 1;	/* every reference of the process */
				break;
			}
		}
		pthread_mutex_unlock(&share_devs_lock);
		if (found == NULL) {
			pthread_mutex_unlock(&share_open_lock);
			return NULL;
		}
		if (!region_mapped(mdevx_share_reg_base(found->reg)) ||
		    mdevx_share_reg_probe(mdevx_share_reg_base(found->reg), found->reg_len) != 0) {
			SHARE_LOG(WARNING, "%s: exit after rte_eal_cleanup() with the device open: "
				  "nothing withdrawn (call mdevx_share_dev_close() before "
				  "rte_eal_cleanup())", found->devstr);
			pthread_mutex_unlock(&share_open_lock);
			continue;
		}
		SHARE_LOG(NOTICE, "%s: exit with the device open: withdrawing everything",
			  found->devstr);
		pthread_mutex_unlock(&share_open_lock);
		ret = mdevx_share_dev_close(found);
		/* Closed, or gone (closed by another thread, or freed with EBADF). */
		if (ret == 0 || ret == -ENOENT || ret == -EBADF)
			continue;
		exit_withdraw(found);
	}
}

/*
 * At the exit of a primary (atexit(), registered by the first open): the
 * devices still open are closed as by mdevx_share_dev_close(), so that a
 * normal exit withdraws everything: secondaries are told and waited for
 * (up to the bound), the objects destroyed. After rte_eal_cleanup() there
 * is no registry and no IPC any more: nothing can be withdrawn, and the
 * secondaries keep their imports as when the primary dies; it is logged.
 *
 * The work runs in a thread of its own, waited for up to the withdraw
 * waits (two per device: the close's, and the fallback's) plus a margin:
 * an exit() made with one of our locks held by the exiting thread (from an
 * import hook, say) or a withdrawal that does not end must not hang the
 * exit. A close cut short is a primary dying: nothing is left half-done
 * for readers. (An open device implies EAL's IPC: it is refused without,
 * e.g. with --in-memory.)
 */
static void
share_exit(void)
{
	uint32_t bound_ms = EXIT_MARGIN_MS;
	struct mdevx_share_dev *dev;
	struct timespec deadline;
	bool any = true;
	pthread_t t;

	/* A child forked without exec inherits the handler, not the devices. */
	if (getpid() != exit_pid)
		return;
	if (pthread_mutex_trylock(&share_devs_lock) == 0) {
		any = false;
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (dev->primary && !dev->exit_seen) {
				any = true;
				bound_ms += 2 * (dev->withdraw_timeout_ms +
						 NOTIFY_SLACK_S * 1000);
			}
		}
		pthread_mutex_unlock(&share_devs_lock);
	} else {
		bound_ms += 2 * (DEFAULT_WITHDRAW_TIMEOUT_MS + NOTIFY_SLACK_S * 1000);
	}
	if (!any)
		return;
	if (pthread_create(&t, NULL, exit_close_all, NULL) != 0) {
		SHARE_LOG(ERR, "exit: no thread for closing the devices: exiting without");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += bound_ms / 1000;
	deadline.tv_nsec += (long)(bound_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	if (pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &deadline) != 0) {
		SHARE_LOG(ERR, "exit: closing the devices did not finish within %u ms (exit() "
			  "with a lock of ours held?): exiting without", bound_ms);
		pthread_detach(t);	/* left behind on purpose */
	}
}

/* 0, EINVAL (NULL) or ENOENT (not an open device: closed already, say). */
static int
check_dev(const struct mdevx_share_dev *dev)
{
	if (dev == NULL)
		return EINVAL;
	return dev_live(dev) ? 0 : ENOENT;
}

struct mdevx_ctx *
mdevx_share_dev_ctx(const struct mdevx_share_dev *dev)
{
	int err = check_dev(dev);

	if (err != 0) {
		errno = err;
		return NULL;
	}
	return dev->ctx;
}

uint64_t
mdevx_share_dev_cookie(const struct mdevx_share_dev *dev)
{
	int err = check_dev(dev);

	if (err != 0) {
		errno = err;
		return 0;
	}
	return dev->cookie;
}

/*
 * The device's record and import counts, read under its lock: the
 * withdrawal handler changes them from EAL's IPC thread.
 */
static void
dev_counts(const struct mdevx_share_dev *dev, uint32_t *records, uint32_t *imports)
{
	mdevx_share_lock_t *lock = (mdevx_share_lock_t *)(uintptr_t)&dev->lock;

	mdevx_share_lock_read(lock);
	*records = dev->orphan ? 0 : mdevx_share_reg_count(dev->reg);
	*imports = dev->nb_live;
	mdevx_share_unlock_read(lock);
}

uint32_t
mdevx_share_dev_count(const struct mdevx_share_dev *dev)
{
	uint32_t records = 0, imports;
	int err = check_dev(dev);

	if (err != 0)
		errno = err;
	else
		dev_counts(dev, &records, &imports);
	return records;
}

uint32_t
mdevx_share_dev_imports(const struct mdevx_share_dev *dev)
{
	uint32_t records, imports = 0;
	int err = check_dev(dev);

	if (err != 0)
		errno = err;
	else
		dev_counts(dev, &records, &imports);
	return imports;
}

struct mdevx_share_reg *
mdevx_share_dev_reg(struct mdevx_share_dev *dev)
{
	return check_dev(dev) == 0 ? dev->reg : NULL;
}

/* ---------------------------------------------------------------- */
/* Records                                                           */
/* ---------------------------------------------------------------- */

static int
check_name(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return EINVAL;
	if (strnlen(name, MDEVX_SHARE_NAME_MAX + 1) > MDEVX_SHARE_NAME_MAX)
		return ENAMETOOLONG;
	return 0;
}

static void
info_to_record(const struct mdevx_share_rec_info *info, struct mdevx_share_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	memcpy(rec->name, info->name, sizeof(rec->name));
	rec->kind = (enum mdevx_share_kind)info->kind;
	rec->withdrawn = info->state == MDEVX_SHARE_REC_WITHDRAWN;
	rec->generation = info->generation;
	rec->owner_pid = info->owner_pid;
	rec->object_id = info->object_id;
	if (info->kind == MDEVX_SHARE_COUNTER) {
		rec->bulk_size = info->size_or_tirn;
	} else {
		rec->tirn = info->size_or_tirn;
		rec->rx_icm_addr = info->rx_icm_addr;
	}
}

int
mdevx_share_publish(struct mdevx_share_dev *dev, const char *name, struct mdevx_obj *obj)
{
	struct mdevx_share_rec_info info;
	struct mdevx_obj_info oi;
	uint32_t idx;
	uint64_t gen;
	int ret;

	ret = check_dev(dev);
	if (ret == 0 && obj == NULL)
		ret = EINVAL;
	if (ret == 0)
		ret = check_name(name);
	if (ret != 0)
		return fail(ret);
	if (!dev->primary)
		return fail(EPERM);
	if (mdevx_obj_info(obj, &oi) != 0)
		return -errno;
	if (oi.imported)
		return fail(EPERM);
	/* A handle of another uverbs file names nothing, or another object, here. */
	if (mdevx_obj_ctx(obj) != dev->ctx)
		return fail(EXDEV);
	memset(&info, 0, sizeof(info));
	if (oi.kind == MDEVX_OBJ_FLOW_COUNTER) {
		info.kind = MDEVX_SHARE_COUNTER;
		info.size_or_tirn = oi.bulk_size;
	} else if (oi.kind == MDEVX_OBJ_TIR) {
		info.kind = MDEVX_SHARE_TIR;
		info.size_or_tirn = oi.tirn;
		info.rx_icm_addr = oi.rx_icm_addr;
	} else {
		return fail(EPROTOTYPE);
	}
	snprintf(info.name, sizeof(info.name), "%s", name);
	info.cookie = dev->cookie;
	info.owner_pid = getpid();
	info.object_id = oi.id;
	info.export_len = (uint32_t)dev->export_size;
	ret = mdevx_obj_export(obj, info.export_buf, sizeof(info.export_buf));
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&dev->wlock);
	/* Owned already (under another name): a second owner would destroy it twice. */
	ret = owned_has(dev, obj) ? EEXIST : mdevx_share_reg_publish(dev->reg, &info, &idx, &gen);
	if (ret == 0) {
		dev->owned[idx] = obj;
		owned_add(dev, obj);
		if (info.kind == MDEVX_SHARE_COUNTER)
			snap_add(dev->snap, idx, gen, obj, info.size_or_tirn);
	}
	pthread_mutex_unlock(&dev->wlock);
	if (ret != 0)
		return fail(ret);
	SHARE_LOG(DEBUG, "%s: published %s (%s id %u) in slot %u gen %" PRIu64, dev->devstr,
		  name, info.kind == MDEVX_SHARE_COUNTER ? "counter" : "tir", oi.id, idx, gen);
	return 0;
}

int
mdevx_share_withdraw(struct mdevx_share_dev *dev, const char *name, unsigned int *acked)
{
	uint64_t gen, old_gen;
	unsigned int n_acked;
	uint16_t state;
	uint32_t idx;
	int ret, nb_sent;

	ret = check_dev(dev);
	if (ret == 0)
		ret = check_name(name);
	if (ret != 0)
		return fail(ret);
	if (!dev->primary)
		return fail(EPERM);
	pthread_mutex_lock(&dev->wlock);
	/* The registry's private state: the memzone's bytes decide nothing. */
	ret = mdevx_share_reg_owner_find(dev->reg, name, &idx, &old_gen, &state);
	if (ret == 0 && state != MDEVX_SHARE_REC_PUBLISHED)
		ret = ENOENT;
	if (ret == 0)
		ret = mdevx_share_reg_withdraw(dev->reg, idx, old_gen, &gen);
	if (ret != 0) {
		pthread_mutex_unlock(&dev->wlock);
		return fail(ret);
	}
	/* Out of the counter snapshot: a refresh of it in progress ends first. */
	snap_del(dev->snap, idx);
	/* From here on every use of an import fails with ESTALE. */
	n_acked = notify_withdraw(dev, MP_OP_WITHDRAW, idx, old_gen, &nb_sent, NULL);
	/* The primary's own rules and imports of the record go too. */
	mdevx_share_lock_write(&dev->lock);
	rules_drop(dev, idx, old_gen, dev->owned[idx], 0);
	unimport_record(dev, idx, old_gen);
	mdevx_share_unlock_write(&dev->lock);
	/* And the rules of secondaries that did not remove theirs in time. */
	prules_remove(dev, idx, old_gen);
	ret = mdevx_obj_destroy(dev->owned[idx]);
	if (ret == 0) {
		owned_del(dev, dev->owned[idx]);
		dev->owned[idx] = NULL;
		mdevx_share_reg_release(dev->reg, idx);
	} else {
		SHARE_LOG(ERR, "%s: withdraw %s: destroy failed: %s (record kept withdrawn)",
			  dev->devstr, name, strerror(-ret));
	}
	pthread_mutex_unlock(&dev->wlock);
	SHARE_LOG(DEBUG, "%s: withdrew %s: %u of %d secondaries acknowledged", dev->devstr,
		  name, n_acked, nb_sent);
	if (acked != NULL)
		*acked = n_acked;
	return ret;
}

/*
 * Registry lookup. The registry itself needs no lock; the process's read
 * lock only keeps the withdraw-all handler from declaring the device
 * orphaned (and the primary from freeing the registry) under a reader.
 * ENODEV once orphaned.
 */
static int
reg_lookup(struct mdevx_share_dev *dev, const char *name, struct mdevx_share_rec_info *info,
	   uint32_t *idx)
{
	int ret;

	mdevx_share_lock_read(&dev->lock);
	ret = dev->orphan ? ENODEV : mdevx_share_reg_lookup(dev->reg, name, info, idx, NULL);
	mdevx_share_unlock_read(&dev->lock);
	return ret;
}

int
mdevx_share_lookup(struct mdevx_share_dev *dev, const char *name, struct mdevx_share_record *rec)
{
	struct mdevx_share_rec_info info;
	int ret;

	ret = check_dev(dev);
	if (ret == 0 && rec == NULL)
		ret = EINVAL;
	if (ret != 0)
		return fail(ret);
	ret = reg_lookup(dev, name, &info, NULL);
	if (ret != 0)
		return fail(ret);
	info_to_record(&info, rec);
	return 0;
}

int64_t
mdevx_share_next(struct mdevx_share_dev *dev, uint32_t start, struct mdevx_share_record *rec)
{
	struct mdevx_share_rec_info info;
	int64_t i;

	if (rec == NULL || check_dev(dev) != 0) {
		errno = rec == NULL ? EINVAL : check_dev(dev);
		return -1;
	}
	mdevx_share_lock_read(&dev->lock);
	i = dev->orphan ? -1 : mdevx_share_reg_next(dev->reg, start, &info);
	mdevx_share_unlock_read(&dev->lock);
	if (i >= 0)
		info_to_record(&info, rec);
	return i;
}

/* ---------------------------------------------------------------- */
/* Imports                                                           */
/* ---------------------------------------------------------------- */

/*
 * One attempt at an import (write lock held): find the record in place,
 * validate it, import from the registry's own bytes straight into a slot,
 * then make sure the record did not change while its buffer was read.
 * 0, EAGAIN (it changed: try again), or the error.
 */
static int
import_once(struct mdevx_share_dev *dev, const char *name, enum mdevx_share_kind kind,
	    mdevx_share_imp_t *imp)
{
	struct mdevx_share_rec_view v;
	struct imp_slot *s;
	uint32_t sidx;
	bool imported;
	int ret;

	ret = mdevx_share_reg_find(dev->reg, name, &v);
	if (ret != 0)
		return ret;
	if (v.state != MDEVX_SHARE_REC_PUBLISHED)
		return ESTALE;
	if (v.cookie != dev->cookie)
		return EXDEV;
	if (kind != MDEVX_SHARE_ANY && v.kind != kind)
		return EPROTOTYPE;
	if (v.export_len != dev->export_size)
		return EBADMSG;
	s = slot_alloc(dev, &sidx);
	if (s == NULL)
		return errno;
	/* The record's checksum, just verified, covers the export buffer. */
	ret = -mdevx_obj_import_ref_verified(dev->ctx, v.export_buf, v.export_len,
					     v.kind == MDEVX_SHARE_COUNTER ?
					     MDEVX_OBJ_FLOW_COUNTER : MDEVX_OBJ_TIR, &s->ref);
	imported = ret == 0;
	if (unlikely(test_import_hook != NULL))
		test_import_hook(test_import_arg);
	if (!mdevx_share_reg_view_current(dev->reg, &v))
		ret = EAGAIN;		/* read while rewritten: no verdict, try again */
	else if (ret == 0 &&
		 /* the export buffer must describe the object the record names */
		 (s->ref.id != v.object_id || s->ref.size_or_tirn != v.size_or_tirn ||
		  (v.kind == MDEVX_SHARE_TIR && s->ref.rx_icm_addr != v.rx_icm_addr)))
		ret = EBADMSG;
	if (ret != 0) {
		if (imported)
			mdevx_obj_unimport_ref(dev->ctx, &s->ref);
		slot_free(dev, s, sidx);
		if (ret != EAGAIN)
			SHARE_LOG(ERR, "%s: record \"%s\": export buffer refused: %s",
				  dev->devstr, name, strerror(ret));
		return ret == EPROTOTYPE ? EBADMSG : ret;
	}
	s->obj = NULL;
	s->rec_idx = v.idx;
	s->rec_gen = v.generation;
	s->kind = v.kind;
	s->state = IMP_LIVE;
	dev->nb_live++;
	*imp = slot_handle(sidx, s);
	return 0;
}

int
mdevx_share_import(struct mdevx_share_dev *dev, const char *name, enum mdevx_share_kind kind,
		   mdevx_share_imp_t *imp)
{
	int ret = check_dev(dev);

	if (ret == 0 && (imp == NULL || kind > MDEVX_SHARE_TIR))
		ret = EINVAL;
	if (ret != 0)
		return fail(ret);
	ret = EAGAIN;
	/*
	 * One exclusive section from the lookup to the visible slot. The
	 * primary marks a record withdrawn before it notifies, and the
	 * notification takes this lock: it either ran before (the lookup sees
	 * the mark) or runs after (and finds the slot). The backend import is
	 * local (no command), so holding the lock across it costs nothing.
	 */
	mdevx_share_lock_write(&dev->lock);
	for (int i = 0; i < IMPORT_RETRIES && ret == EAGAIN; i++)
		ret = dev->orphan ? ENODEV : import_once(dev, name, kind, imp);
	mdevx_share_unlock_write(&dev->lock);
	return ret == 0 ? 0 : fail(ret);
}

int
mdevx_share_unimport(struct mdevx_share_dev *dev, mdevx_share_imp_t imp)
{
	struct mdevx_obj_ref ref = { .bobj = NULL };
	struct imp_slot *s;
	uint32_t sidx;
	int err = check_dev(dev);

	if (err != 0)
		return fail(err);
	mdevx_share_lock_write(&dev->lock);
	s = slot_of(dev, imp, &sidx);
	if (s == NULL) {
		mdevx_share_unlock_write(&dev->lock);
		return fail(ENOENT);
	}
	/* The wrapper (live or revoked) first: a call in flight keeps the import. */
	if (slot_drop_wrapper(s) != 0) {
		mdevx_share_unlock_write(&dev->lock);
		return fail(EBUSY);
	}
	if (s->state == IMP_LIVE)
		ref = s->ref;
	slot_free(dev, s, sidx);
	mdevx_share_unlock_write(&dev->lock);
	if (ref.bobj != NULL)
		mdevx_obj_unimport_ref(dev->ctx, &ref);
	return 0;
}

static void
use_end(struct mdevx_share_dev *dev, bool excl)
{
	if (excl)
		mdevx_share_unlock_write(&dev->lock);
	else
		mdevx_share_unlock_read(&dev->lock);
}

/*
 * Lock taken on success (shared, or exclusive with @p excl): the caller
 * uses the slot, then unlocks with use_end().
 */
static struct imp_slot *
use_begin(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, enum mdevx_share_kind kind,
	  bool excl, int *err)
{
	struct imp_slot *s;

	*err = check_dev(dev);
	if (*err != 0)
		return NULL;
	if (excl)
		mdevx_share_lock_write(&dev->lock);
	else
		mdevx_share_lock_read(&dev->lock);
	s = slot_of(dev, imp, NULL);
	if (s == NULL) {
		*err = ENOENT;
	} else if (s->state == IMP_STALE || dev->orphan) {
		*err = ESTALE;
	} else if (kind != MDEVX_SHARE_ANY && s->kind != kind) {
		*err = EPROTOTYPE;
	} else {
		*err = mdevx_share_reg_check(dev->reg, s->rec_idx, s->rec_gen);
		if (*err == 0)
			return s;
		if (*err == ENODEV)	/* registry closed: as when orphaned */
			*err = ESTALE;
	}
	use_end(dev, excl);
	return NULL;
}

struct mdevx_obj *
mdevx_share_import_obj(struct mdevx_share_dev *dev, mdevx_share_imp_t imp)
{
	struct mdevx_share_rec_info info;
	struct mdevx_obj *obj;
	struct imp_slot *s;
	int err = 0;

	s = use_begin(dev, imp, MDEVX_SHARE_ANY, true, &err);
	if (s == NULL) {
		errno = err;
		return NULL;
	}
	if (unlikely(test_import_obj_hook != NULL))
		test_import_obj_hook(test_import_obj_arg);
	/* First call: the full wrapper, from the record's export buffer. */
	if (s->obj == NULL) {
		err = mdevx_share_reg_read(dev->reg, s->rec_idx, &info);
		if (err == 0 && (info.state != MDEVX_SHARE_REC_PUBLISHED ||
				 info.generation != s->rec_gen))
			err = ESTALE;
		if (err == 0) {
			s->obj = mdevx_obj_import(dev->ctx, info.export_buf, info.export_len,
						  (enum mdevx_obj_kind)s->ref.kind);
			if (s->obj == NULL) {
				err = errno;
			} else if (mdevx_obj_hold(s->obj) != 0) {
				/* ours to give out: mdevx_obj_unimport() must refuse it */
				err = errno;
				mdevx_obj_unimport(s->obj);
				s->obj = NULL;
			}
		}
	}
	obj = s->obj;
	use_end(dev, true);
	if (obj == NULL)
		errno = err;
	return obj;
}

int
mdevx_share_counter_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t offset,
			  uint32_t n, int clear, struct mdevx_counter_stats *stats)
{
	struct imp_slot *s;
	int err, ret;

	s = use_begin(dev, imp, MDEVX_SHARE_COUNTER, false, &err);
	if (s == NULL)
		return fail(err);
	ret = mdevx_ref_counter_query(dev->ctx, &s->ref, offset, n, clear, stats);
	use_end(dev, false);
	return ret;
}

/*
 * The snapshot is read under the process's read lock, like the registry:
 * it keeps the withdraw-all handler from declaring the device orphaned
 * (and the primary from freeing the area) under the reader. That lock is
 * private to the process: no other process can hold it.
 */
int
mdevx_share_counter_read(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t offset,
			 uint32_t n, struct mdevx_counter_stats *stats,
			 struct mdevx_share_counter_snap *snap)
{
	struct imp_slot *s;
	uint32_t bulk;
	int err;

	err = check_dev(dev);
	if (err == 0 && (stats == NULL || n == 0))
		err = EINVAL;
	if (err != 0)
		return fail(err);
	s = use_begin(dev, imp, MDEVX_SHARE_COUNTER, false, &err);
	if (s == NULL)
		return fail(err);
	bulk = s->ref.size_or_tirn;
	if (offset >= bulk || n > bulk - offset)
		err = ERANGE;
	else
		err = snap_read(dev->snap, s->rec_idx, s->rec_gen, bulk, offset, n, stats, snap);
	use_end(dev, false);
	return err == 0 ? 0 : fail(err);
}

int
mdevx_share_counter_refresh(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
			    unsigned int timeout_ms)
{
	uint64_t t0 = snap_now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000ull;
	struct mp_param p;
	struct imp_slot *s;
	uint64_t gen, started = 0;
	uint32_t idx;
	int err, last;

	s = use_begin(dev, imp, MDEVX_SHARE_COUNTER, false, &err);
	if (s == NULL)
		return fail(err);
	idx = s->rec_idx;
	gen = s->rec_gen;
	last = dev->snap == NULL ? ENODATA : 0;
	use_end(dev, false);
	if (last != 0)
		return fail(last);
	/*
	 * Asked also when the slot reads as not in the service: a scribble
	 * can make it look so, and the refresh writes it anew. The primary
	 * refreshes only what is in its (private) service.
	 */
	if (dev->primary) {
		snap_request(dev->snap, idx, gen);
	} else {
		memset(&p, 0, sizeof(p));
		p.op = MP_OP_REFRESH;
		p.rec_idx = idx;
		p.generation = gen;
		p.cookie = dev->cookie;
		snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
		ack_send(&p, ACK_SEND_TRIES);
	}
	/* Poll the bulk's slot: no lock of another process, bounded. */
	for (;;) {
		s = use_begin(dev, imp, MDEVX_SHARE_COUNTER, false, &err);
		if (s == NULL)
			return fail(err);
		err = snap_started(dev->snap, idx, gen, &started);
		use_end(dev, false);
		if (err == 0 && started >= t0)
			return 0;
		if (err != EAGAIN)
			last = err;
		if (snap_now_ns() >= deadline)
			return fail(last == ENODATA ? ENODATA : ETIMEDOUT);
		usleep(REFRESH_POLL_US);
	}
}

int
mdevx_share_service_stats(struct mdevx_share_dev *dev, struct mdevx_share_service_stats *st)
{
	int err = check_dev(dev);

	if (err == 0 && st == NULL)
		err = EINVAL;
	if (err != 0)
		return fail(err);
	mdevx_share_lock_read(&dev->lock);
	if (dev->snap == NULL || dev->orphan)
		err = ENODATA;
	else
		snap_stats(dev->snap, st);
	mdevx_share_unlock_read(&dev->lock);
	return err == 0 ? 0 : fail(err);
}

int
mdevx_share_tir_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
		      struct mdevx_tir_attr *attr)
{
	struct imp_slot *s;
	int err, ret;

	s = use_begin(dev, imp, MDEVX_SHARE_TIR, false, &err);
	if (s == NULL)
		return fail(err);
	ret = mdevx_ref_tir_query(dev->ctx, &s->ref, attr);
	use_end(dev, false);
	return ret;
}

/* One LIST request: device @p idx of the primary into @p devstr, *total. 0 or errno. */
static int
primary_dev_at(uint32_t idx, char *devstr, uint32_t *total)
{
	struct timespec ts = { .tv_sec = ATTACH_TIMEOUT_S, .tv_nsec = 0 };
	struct rte_mp_reply reply;
	struct mp_param p, r;
	struct rte_mp_msg req;

	memset(&p, 0, sizeof(p));
	p.op = MP_OP_LIST;
	p.rec_idx = idx;
	mp_msg_pack(&req, MP_ACTION, &p);
	memset(&reply, 0, sizeof(reply));
	if (rte_mp_request_sync(&req, &reply, &ts) != 0)
		return rte_errno != 0 ? rte_errno : EIO;
	if (reply.nb_received != 1) {
		free(reply.msgs);
		return ETIMEDOUT;
	}
	for (int i = 0; i < reply.msgs[0].num_fds; i++)
		close(reply.msgs[0].fds[i]);
	if (reply.msgs[0].len_param != sizeof(r)) {
		free(reply.msgs);
		return EPROTO;
	}
	memcpy(&r, reply.msgs[0].param, sizeof(r));
	free(reply.msgs);
	r.devstr[DEVSTR_MAX - 1] = '\0';
	if (r.op != MP_OP_LIST)
		return EPROTO;
	if (r.status == -EINVAL)	/* a library that does not know the request */
		return EOPNOTSUPP;
	*total = r.rec_idx2;
	if (r.status != 0)
		return r.status == -ENOENT ? ENOENT : EPROTO;
	if (r.rec_idx != idx || check_devstr(r.devstr) != 0)
		return EPROTO;
	memcpy(devstr, r.devstr, DEVSTR_MAX);
	return 0;
}

int
mdevx_share_primary_devs(char (*devs)[MDEVX_SHARE_DEVSTR_MAX], unsigned int max)
{
	uint32_t total = 0, i;
	char devstr[DEVSTR_MAX];
	int err;

	if (devs == NULL && max != 0) {
		errno = EINVAL;
		return -EINVAL;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		errno = EPERM;
		return -EPERM;
	}
	/* at most the devices a process holds; the list may change meanwhile */
	for (i = 0; i < MAX_DEVS; i++) {
		err = primary_dev_at(i, devstr, &total);
		if (err == ENOENT)
			break;
		if (err != 0) {
			errno = err;
			return -err;
		}
		if (i < max)
			memcpy(devs[i], devstr, DEVSTR_MAX);
		if (i + 1 >= total)
			break;
	}
	return (int)(total < MAX_DEVS ? total : MAX_DEVS);
}

/* For telemetry: call @p fn on every device of the process. */
void
mdevx_share_foreach_dev(void (*fn)(struct mdevx_share_dev *dev, void *arg), void *arg)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	TAILQ_FOREACH(dev, &share_devs, next)
		fn(dev, arg);
	pthread_mutex_unlock(&share_devs_lock);
}

const char *
mdevx_share_dev_name(const struct mdevx_share_dev *dev)
{
	return dev->devstr;
}

int
mdevx_share_dev_is_primary(const struct mdevx_share_dev *dev)
{
	return dev->primary;
}

/* ---------------------------------------------------------------- */
/* Root rules: API                                                   */
/* ---------------------------------------------------------------- */

/*
 * The import an attribute names for destination (0) or counter (1), with
 * the lock held: NULL and *err when it cannot be used.
 */
static struct imp_slot *
rule_slot(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, enum mdevx_share_kind kind,
	  int *err)
{
	struct imp_slot *s = slot_of(dev, imp, NULL);

	if (s == NULL) {
		*err = ENOENT;
	} else if (s->state == IMP_STALE) {
		*err = ESTALE;
	} else if (s->kind != kind) {
		*err = EPROTOTYPE;
	} else {
		*err = mdevx_share_reg_check(dev->reg, s->rec_idx, s->rec_gen);
		if (*err == ENODEV)
			*err = ESTALE;
	}
	return *err == 0 ? s : NULL;
}

mdevx_share_rule_t
mdevx_share_rule_create(struct mdevx_share_dev *dev, struct mdevx_matcher *matcher,
			const struct mdevx_share_rule_attr *attr)
{
	mdevx_share_rule_t h = { .id = 0 };
	struct imp_slot *slot[2] = { NULL, NULL };
	struct mdevx_rule_attr ra;
	struct share_rule *r;
	struct mdevx_rule *rule;
	uint32_t idx;
	int err;

	err = check_dev(dev);
	if (err == 0 && (matcher == NULL || attr == NULL ||
			 (attr->dest_imp.id != 0 && attr->dest_obj != NULL) ||
			 (attr->counter_imp.id != 0 && attr->counter_obj != NULL)))
		err = EINVAL;
	if (err != 0) {
		SHARE_LOG(ERR, "rule create: %s", strerror(err));
		errno = err;
		return h;
	}
	/* Shared lock: a withdrawal (exclusive) waits for the rule, then removes it. */
	mdevx_share_lock_read(&dev->lock);
	if (dev->orphan)
		err = ESTALE;
	if (err == 0 && attr->dest_imp.id != 0)
		slot[0] = rule_slot(dev, attr->dest_imp, MDEVX_SHARE_TIR, &err);
	if (err == 0 && attr->counter_imp.id != 0)
		slot[1] = rule_slot(dev, attr->counter_imp, MDEVX_SHARE_COUNTER, &err);
	if (err != 0) {
		mdevx_share_unlock_read(&dev->lock);
		SHARE_LOG(ERR, "%s: rule create: import: %s", dev->devstr, strerror(err));
		errno = err;
		return h;
	}
	memset(&ra, 0, sizeof(ra));
	ra.value = attr->value;
	ra.value_len = attr->value_len;
	ra.dest = attr->dest;
	ra.dest_obj = attr->dest_obj;
	ra.dest_ref = slot[0] != NULL ? &slot[0]->ref : NULL;
	ra.counter = attr->counter_obj;
	ra.counter_ref = slot[1] != NULL ? &slot[1]->ref : NULL;
	ra.counter_offset = attr->counter_offset;
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_alloc(dev, &idx);
	if (r == NULL) {
		err = errno;
	} else {
		rule = mdevx_rule_create(matcher, &ra);
		if (rule == NULL) {
			err = errno;
			rule_free(dev, r, idx);
		} else {
			r->rule = rule;
			r->handle = mdevx_rule_handle(rule);
			r->obj[0] = attr->dest_obj;
			r->obj[1] = attr->counter_obj;
			for (int k = 0; k < 2; k++) {
				r->rec[k] = slot[k] != NULL ? slot[k]->rec_idx : UINT32_MAX;
				r->rec_gen[k] = slot[k] != NULL ? slot[k]->rec_gen : 0;
			}
			r->state = RULE_LIVE;
			__atomic_store_n(&dev->nb_rules, dev->nb_rules + 1, __ATOMIC_RELAXED);
			h = rule_id(idx, r);
			/* Under the lock: a removal's message never overtakes this one. */
			rule_msg(dev, MP_OP_RULE_ADD, r, RULE_MSG_TRIES);
		}
	}
	pthread_mutex_unlock(&dev->rules_lock);
	mdevx_share_unlock_read(&dev->lock);
	if (h.id == 0) {
		SHARE_LOG(ERR, "%s: rule create: %s", dev->devstr, strerror(err));
		errno = err;
	}
	return h;
}

int
mdevx_share_rule_destroy(struct mdevx_share_dev *dev, mdevx_share_rule_t rule)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	if (r == NULL) {
		pthread_mutex_unlock(&dev->rules_lock);
		return fail(ENOENT);
	}
	if (r->state == RULE_LIVE) {
		ret = mdevx_rule_destroy(r->rule);
		if (ret != 0) {
			pthread_mutex_unlock(&dev->rules_lock);
			SHARE_LOG(ERR, "%s: rule %u: destroy: %s", dev->devstr, r->handle,
				  strerror(-ret));
			return fail(-ret);
		}
		rule_msg(dev, MP_OP_RULE_DEL, r, RULE_MSG_TRIES);
		__atomic_store_n(&dev->nb_rules, dev->nb_rules - 1, __ATOMIC_RELAXED);
	}
	rule_free(dev, r, idx);
	pthread_mutex_unlock(&dev->rules_lock);
	return 0;
}

int
mdevx_share_rule_state(struct mdevx_share_dev *dev, mdevx_share_rule_t rule)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	pthread_mutex_unlock(&dev->rules_lock);
	return ret == 0 ? 0 : fail(ret);
}

int
mdevx_share_rule_handle(struct mdevx_share_dev *dev, mdevx_share_rule_t rule, uint32_t *handle)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = check_dev(dev);

	if (ret == 0 && handle == NULL)
		ret = EINVAL;
	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	if (ret == 0)
		*handle = r->handle;
	pthread_mutex_unlock(&dev->rules_lock);
	return ret == 0 ? 0 : fail(ret);
}

int
mdevx_share_dev_rules(const struct mdevx_share_dev *dev, uint32_t *own, uint32_t *peers)
{
	struct mdevx_share_dev *d = (struct mdevx_share_dev *)(uintptr_t)dev;
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&d->rules_lock);
	if (own != NULL)
		*own = d->nb_rules;
	if (peers != NULL)
		*peers = d->nb_prules;
	pthread_mutex_unlock(&d->rules_lock);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Counter snapshot service: the primary's control thread reads every
 * published counter bulk with bulk queries once per period into an area
 * of hugepage memory of its own (one memzone per device), and every
 * process reads the values from there without a device command and
 * without a lock (a sequence counter per bulk).
 *
 * The area is input like the registry: any process can write any byte of
 * it. The writer (the primary's thread) keeps everything structural in
 * private memory and rewrites the slot's fields at each refresh; a reader
 * takes the geometry (slots, capacity) from the attach reply and checks
 * every offset and length it reads from the area against it. A scribble
 * costs a read EAGAIN/ENODATA/EIO, never an access out of the area.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "mdevx_share_reg.h"
#include "mdevx_share_snap.h"

#define SNAP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_share_logtype, "mdevx_share: " fmt "\n", ##__VA_ARGS__)

#define SNAP_MAGIC 0x70616e736d646576ull	/* "vedmsnap" */
#define SNAP_VERSION 1
#define SNAP_READ_TRIES 64	/* torn reads before EAGAIN */
#define SNAP_FAIL_LOGS 16	/* failed refreshes logged, then one in 1000 */

enum snap_state {
	SNAP_FREE = 0,
	SNAP_ACTIVE = 1,	/* in the service (refresh_seq 0: not refreshed yet) */
	SNAP_NOSPC = 2,		/* published, but the area had no room for it */
};

/* The area: header, nb_slots slots, then the counters. */
struct snap_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t nb_slots;
	uint32_t counters;
	uint32_t period_ms;
	int32_t primary_pid;
	uint32_t bulks;
	uint32_t used;
	uint32_t reserved0;
	uint64_t refreshes;
	uint64_t failures;
	uint64_t commands;
	uint64_t last_round_ns;
	uint64_t last_round_end_ns;
	uint64_t reserved1[6];
};

_Static_assert(sizeof(struct snap_hdr) == 128, "snapshot header size");

/* One per registry record slot, indexed like the registry. */
struct snap_slot {
	uint64_t seq;		/* odd: being written */
	uint64_t rec_gen;	/* the record generation the values belong to */
	uint64_t refresh_seq;	/* refreshes of this bulk, 0: none yet */
	uint64_t started_ns;	/* the last refresh: its start */
	uint64_t refreshed_ns;	/* and its end */
	uint32_t offset;	/* first counter in the area */
	uint32_t n;		/* counters */
	uint32_t state;
	uint32_t reserved[3];
};

_Static_assert(sizeof(struct snap_slot) == 64, "snapshot slot size");

/* Primary: what the service knows of a slot (private). */
struct snap_own {
	struct mdevx_obj *obj;	/* NULL: not in the service */
	uint64_t gen;
	uint64_t seq;
	uint64_t refresh_seq;
	uint64_t req_ns;	/* start of the last refresh made for a request, 0: none */
	uint32_t offset;
	uint32_t n;
	bool fits;
	bool pending;		/* to refresh before the next round */
	bool requested;		/* ... for a request (not only the first refresh) */
};

struct snap_ext {
	uint32_t off;
	uint32_t n;
};

struct mdevx_share_snap {
	/* private geometry, never read back from the area */
	struct mdevx_share_snap_geo geo;
	const struct rte_memzone *mz;
	struct snap_hdr *hdr;
	struct snap_slot *slots;
	struct mdevx_counter_stats *data;
	bool primary;
	/* primary */
	char devstr[128];
	struct mdevx_ctx *ctx;
	uint32_t max_per_cmd;
	pthread_mutex_t lock;	/* the service: slots, refreshes */
	pthread_cond_t cond;
	bool stop;
	bool exited;		/* the thread is past its last access to the area */
	bool running;
	pthread_t thread;
	struct snap_own *own;
	struct snap_ext *ext;	/* extents in use, by offset */
	uint32_t nb_ext;
	uint32_t nb_pending;
	uint32_t bulks, used;
	struct mdevx_share_reg *reg;	/* the registry whose header each round repairs */
	uint64_t reg_repairs;
	uint64_t refreshes, failures, commands;
	struct mdevx_counter_stats *buf;	/* one bulk's query */
	uint32_t buf_n;
	struct mdevx_share_snap *next_svc;	/* snaps (snaps_lock) */
};

/*
 * The primary's services, for fork(): a child forked without exec (from
 * any thread of the application) must not inherit the allocator's or a
 * device client's lock from a refresh in progress (GCC 12's ASan does not
 * intercept fork(), so its allocator lock is only safe if no thread
 * allocates across it). The fork waits for the refreshes in progress.
 */
static pthread_mutex_t snaps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mdevx_share_snap *snaps;
static pthread_once_t snaps_atfork_once = PTHREAD_ONCE_INIT;

static void
snaps_fork_prepare(void)
{
	pthread_mutex_lock(&snaps_lock);
	for (struct mdevx_share_snap *sn = snaps; sn != NULL; sn = sn->next_svc)
		pthread_mutex_lock(&sn->lock);
}

static void
snaps_fork_done(void)
{
	for (struct mdevx_share_snap *sn = snaps; sn != NULL; sn = sn->next_svc)
		pthread_mutex_unlock(&sn->lock);
	pthread_mutex_unlock(&snaps_lock);
}

static void
snaps_atfork(void)
{
	if (pthread_atfork(snaps_fork_prepare, snaps_fork_done, snaps_fork_done) != 0)
		SNAP_LOG(WARNING, "pthread_atfork() failed: fork() during a counter "
			 "refresh is unsafe");
}

static void
snaps_link(struct mdevx_share_snap *sn)
{
	pthread_once(&snaps_atfork_once, snaps_atfork);
	pthread_mutex_lock(&snaps_lock);
	sn->next_svc = snaps;
	snaps = sn;
	pthread_mutex_unlock(&snaps_lock);
}

static void
snaps_unlink(struct mdevx_share_snap *sn)
{
	pthread_mutex_lock(&snaps_lock);
	for (struct mdevx_share_snap **p = &snaps; *p != NULL; p = &(*p)->next_svc) {
		if (*p == sn) {
			*p = sn->next_svc;
			break;
		}
	}
	pthread_mutex_unlock(&snaps_lock);
}

uint64_t
share_snap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t
snap_size(uint32_t nb_slots, uint32_t counters)
{
	return sizeof(struct snap_hdr) + (size_t)nb_slots * sizeof(struct snap_slot) +
	       (size_t)counters * sizeof(struct mdevx_counter_stats);
}

/* The snapshot memzone of registry memzone @p reg_mz ("mdevx_sh_" -> "mdevx_sn_"). */
static int
snap_mz_name(char *buf, size_t len, const char *reg_mz)
{
	if (strncmp(reg_mz, "mdevx_sh_", 9) != 0 ||
	    (size_t)snprintf(buf, len, "mdevx_sn_%s", reg_mz + 9) >= len)
		return EINVAL;
	return 0;
}

static void
snap_map(struct mdevx_share_snap *sn)
{
	uint8_t *base = sn->mz->addr;

	sn->hdr = (struct snap_hdr *)base;
	sn->slots = (struct snap_slot *)(base + sizeof(struct snap_hdr));
	sn->data = (struct mdevx_counter_stats *)(base + sizeof(struct snap_hdr) +
		   (size_t)sn->geo.nb_slots * sizeof(struct snap_slot));
}

#define ST(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#define LD(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)

/* Primary, lock held: the header's statistics from the private ones. */
static void
hdr_stats(struct mdevx_share_snap *sn)
{
	ST(sn->hdr->bulks, LD(sn->bulks));
	ST(sn->hdr->used, LD(sn->used));
	ST(sn->hdr->refreshes, LD(sn->refreshes));
	ST(sn->hdr->failures, LD(sn->failures));
	ST(sn->hdr->commands, LD(sn->commands));
}

/*
 * Primary, lock held: write slot @p idx from its private state, with
 * @p vals (n counters) or without values (NULL).
 */
static void
slot_write(struct mdevx_share_snap *sn, uint32_t idx, const struct mdevx_counter_stats *vals,
	   uint64_t started, uint64_t ended)
{
	struct snap_own *o = &sn->own[idx];
	struct snap_slot *s = &sn->slots[idx];
	uint32_t state = o->obj == NULL ? SNAP_FREE : o->fits ? SNAP_ACTIVE : SNAP_NOSPC;

	/* Our own sequence, not the area's: a scribbled one is overwritten. */
	o->seq += 1 + (o->seq & 1);	/* odd */
	ST(s->seq, o->seq);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ST(s->rec_gen, o->obj != NULL ? o->gen : 0);
	ST(s->offset, o->fits ? o->offset : 0);
	ST(s->n, o->fits ? o->n : 0);
	ST(s->state, state);
	if (vals != NULL && o->fits) {
		struct mdevx_counter_stats *d = &sn->data[o->offset];

		for (uint32_t i = 0; i < o->n; i++) {
			ST(d[i].packets, vals[i].packets);
			ST(d[i].bytes, vals[i].bytes);
		}
		ST(s->started_ns, started);
		ST(s->refreshed_ns, ended);
	}
	if (o->obj == NULL || vals == NULL) {
		if (o->refresh_seq == 0) {
			ST(s->started_ns, 0);
			ST(s->refreshed_ns, 0);
		}
	}
	ST(s->refresh_seq, o->refresh_seq);
	o->seq++;
	__atomic_store_n(&s->seq, o->seq, __ATOMIC_RELEASE);
}

/*
 * Primary, lock held: the first gap of @p n counters in the area, taken,
 * or UINT32_MAX. The extents in use are a private array sorted by offset.
 */
static uint32_t
area_alloc(struct mdevx_share_snap *sn, uint32_t n)
{
	uint64_t cand = 0;
	uint32_t pos;

	if ((uint64_t)sn->used + n > sn->geo.counters || sn->nb_ext >= sn->geo.nb_slots)
		return UINT32_MAX;
	for (pos = 0; pos < sn->nb_ext; pos++) {
		if (sn->ext[pos].off - cand >= n)
			break;
		cand = (uint64_t)sn->ext[pos].off + sn->ext[pos].n;
	}
	if (cand + n > sn->geo.counters)
		return UINT32_MAX;
	memmove(&sn->ext[pos + 1], &sn->ext[pos], (sn->nb_ext - pos) * sizeof(sn->ext[0]));
	sn->ext[pos].off = (uint32_t)cand;
	sn->ext[pos].n = n;
	sn->nb_ext++;
	return (uint32_t)cand;
}

/* Primary, lock held: the extent at @p off is free again. */
static void
area_release(struct mdevx_share_snap *sn, uint32_t off)
{
	uint32_t lo = 0, hi = sn->nb_ext;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sn->ext[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sn->nb_ext || sn->ext[lo].off != off)
		return;
	memmove(&sn->ext[lo], &sn->ext[lo + 1], (sn->nb_ext - lo - 1) * sizeof(sn->ext[0]));
	sn->nb_ext--;
}

static bool
area_mapped(const struct mdevx_share_snap *sn)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;

	return pg > 0 && mincore((void *)((uintptr_t)sn->hdr & ~(uintptr_t)(pg - 1)), 1,
				 &vec) == 0;
}

/* Primary, lock held: refresh slot @p idx with bulk queries. */
static void
slot_refresh(struct mdevx_share_snap *sn, uint32_t idx)
{
	struct snap_own *o = &sn->own[idx];
	uint64_t started = share_snap_now_ns();
	uint32_t done, chunk;
	int rc = 0;

	o->pending = false;
	o->requested = false;
	if (o->obj == NULL || !o->fits)
		return;
	/* One command per largest range the device reads at once. */
	for (done = 0; done < o->n; done += chunk) {
		chunk = o->n - done < sn->max_per_cmd ? o->n - done : sn->max_per_cmd;
		__atomic_add_fetch(&sn->commands, 1, __ATOMIC_RELAXED);
		rc = mdevx_counter_query(o->obj, done, chunk, 0, sn->buf + done);
		if (rc != 0)
			break;
	}
	/*
	 * rte_eal_cleanup() with the device open unmaps the area under us
	 * (the exit handler can do nothing then either): stop writing. Checked
	 * right before every write of the thread: the window left is the
	 * writes of one bulk.
	 */
	if (!area_mapped(sn)) {
		sn->stop = true;
		return;
	}
	if (rc != 0) {
		uint64_t f = __atomic_add_fetch(&sn->failures, 1, __ATOMIC_RELAXED);

		if (f <= SNAP_FAIL_LOGS || f % 1000 == 0)
			SNAP_LOG(WARNING, "%s: counter snapshot of record %u failed: %s "
				 "(values kept; %" PRIu64 " failures)", sn->devstr, idx,
				 strerror(-rc), f);
		hdr_stats(sn);
		return;
	}
	o->refresh_seq++;
	slot_write(sn, idx, sn->buf, started, share_snap_now_ns());
}

static void
deadline_ts(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

/*
 * Lock held: the registry's header written back from the primary's private
 * image, once per round. Logged the first 16 times, then one in 1000.
 */
static void
reg_repair(struct mdevx_share_snap *sn)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	unsigned int n;
	void *base;

	if (sn->reg == NULL)
		return;
	base = mdevx_share_reg_base(sn->reg);
	/* after rte_eal_cleanup(): not mapped any more, as the area */
	if (pg <= 0 || mincore((void *)((uintptr_t)base & ~(uintptr_t)(pg - 1)), 1, &vec) != 0)
		return;
	n = mdevx_share_reg_repair(sn->reg);
	if (n == 0)
		return;
	sn->reg_repairs++;
	if (sn->reg_repairs <= SNAP_FAIL_LOGS || sn->reg_repairs % 1000 == 0)
		SNAP_LOG(WARNING, "%s: registry header scribbled: %u words written back "
			 "(%" PRIu64 " repairs)", sn->devstr, n, sn->reg_repairs);
}

/*
 * Lock held: the bulks asked for since the last round, until none is left
 * or the round at @p next is due (it refreshes them all anyway, and a
 * request never delays it).
 */
static void
serve_pending(struct mdevx_share_snap *sn, uint64_t next)
{
	sn->nb_pending = 0;
	for (uint32_t i = 0; i < sn->geo.nb_slots && !sn->stop; i++) {
		struct snap_own *o = &sn->own[i];
		uint64_t now;

		if (!o->pending)
			continue;
		now = share_snap_now_ns();
		if (now >= next) {
			sn->nb_pending++;	/* the round first: look again after it */
			return;
		}
		if (o->requested)
			o->req_ns = now;
		slot_refresh(sn, i);
		/* let a withdrawal in between two bulks */
		pthread_mutex_unlock(&sn->lock);
		pthread_mutex_lock(&sn->lock);
	}
	if (area_mapped(sn))
		hdr_stats(sn);
}

static void *
snap_thread(void *arg)
{
	struct mdevx_share_snap *sn = arg;
	uint64_t period = (uint64_t)sn->geo.period_ms * 1000000ull;
	uint64_t next = share_snap_now_ns();

	pthread_mutex_lock(&sn->lock);
	while (!sn->stop) {
		uint64_t now = share_snap_now_ns(), start;
		struct timespec ts;

		/* A due round first, then the requests, then sleep. */
		if (now < next && sn->nb_pending != 0) {
			serve_pending(sn, next);
			continue;
		}
		if (now < next) {
			deadline_ts(&ts, next);
			pthread_cond_timedwait(&sn->cond, &sn->lock, &ts);
			continue;
		}
		start = now;
		reg_repair(sn);
		for (uint32_t i = 0; i < sn->geo.nb_slots && !sn->stop; i++) {
			if (sn->own[i].obj == NULL)
				continue;
			slot_refresh(sn, i);
			pthread_mutex_unlock(&sn->lock);
			pthread_mutex_lock(&sn->lock);
		}
		now = share_snap_now_ns();
		__atomic_add_fetch(&sn->refreshes, 1, __ATOMIC_RELAXED);
		if (!area_mapped(sn))
			break;
		hdr_stats(sn);
		ST(sn->hdr->last_round_ns, now - start);
		ST(sn->hdr->last_round_end_ns, now);
		/* the next round one period after this one started; late: at once */
		next = start + period;
	}
	/* share_snap_stop() waits for this (the thread is detached: see share_snap_open()) */
	sn->exited = true;
	pthread_cond_broadcast(&sn->cond);
	pthread_mutex_unlock(&sn->lock);
	return NULL;
}

int
share_snap_open(struct mdevx_share_snap **out, const char *devstr, const char *reg_mz,
	  struct mdevx_ctx *ctx, const struct mdevx_share_snap_geo *geo)
{
	char name[RTE_MEMZONE_NAMESIZE];
	struct mdevx_share_snap *sn;
	pthread_condattr_t ca;
	struct mdevx_caps caps;
	int err;

	*out = NULL;
	if (geo->period_ms == 0)
		return 0;
	if (geo->counters == 0 || geo->nb_slots == 0 || snap_mz_name(name, sizeof(name), reg_mz))
		return EINVAL;
	if (mdevx_get_caps(ctx, &caps) != 0)
		return errno != 0 ? errno : EINVAL;
	sn = calloc(1, sizeof(*sn));
	if (sn == NULL)
		return ENOMEM;
	sn->geo = *geo;
	sn->primary = true;
	sn->ctx = ctx;
	snprintf(sn->devstr, sizeof(sn->devstr), "%s", devstr);
	sn->max_per_cmd = caps.max_counters_per_query;
	sn->own = calloc(geo->nb_slots, sizeof(*sn->own));
	sn->ext = calloc(geo->nb_slots, sizeof(*sn->ext));
	if (sn->own == NULL || sn->ext == NULL) {
		free(sn->own);
		free(sn->ext);
		free(sn);
		return ENOMEM;
	}
	pthread_mutex_init(&sn->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sn->cond, &ca);
	pthread_condattr_destroy(&ca);
	snaps_link(sn);
	sn->mz = rte_memzone_reserve_aligned(name, snap_size(geo->nb_slots, geo->counters),
					     SOCKET_ID_ANY, 0, 64);
	if (sn->mz == NULL) {
		err = rte_errno;
		SNAP_LOG(ERR, "%s: cannot reserve the counter snapshot memzone %s: %s", devstr,
			 name, rte_strerror(err));
		share_snap_free(sn, false);
		return err;
	}
	snap_map(sn);
	memset(sn->mz->addr, 0, snap_size(geo->nb_slots, geo->counters));
	sn->hdr->version = SNAP_VERSION;
	sn->hdr->nb_slots = geo->nb_slots;
	sn->hdr->counters = geo->counters;
	sn->hdr->period_ms = geo->period_ms;
	sn->hdr->primary_pid = geo->primary_pid;
	__atomic_store_n(&sn->hdr->magic, SNAP_MAGIC, __ATOMIC_RELEASE);
	snprintf(name, sizeof(name), "mdevx-snap");
	err = rte_ctrl_thread_create(&sn->thread, name, NULL, snap_thread, sn);
	if (err != 0) {
		err = err < 0 ? -err : err;
		SNAP_LOG(ERR, "%s: no counter snapshot thread: %s", devstr, strerror(err));
		share_snap_free(sn, true);
		return err;
	}
	/*
	 * Detached: a process that calls rte_eal_cleanup() with the device
	 * open exits without a close that could join it. share_snap_stop() waits
	 * for its exited flag instead.
	 */
	pthread_detach(sn->thread);
	sn->running = true;
	*out = sn;
	return 0;
}

void
share_snap_stop(struct mdevx_share_snap *sn)
{
	if (sn == NULL || !sn->primary || !sn->running)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->stop = true;
	pthread_cond_broadcast(&sn->cond);
	while (!sn->exited)
		pthread_cond_wait(&sn->cond, &sn->lock);
	pthread_mutex_unlock(&sn->lock);
	sn->running = false;
}

void
share_snap_free(struct mdevx_share_snap *sn, bool free_mz)
{
	if (sn == NULL)
		return;
	if (sn->primary) {
		share_snap_stop(sn);
		snaps_unlink(sn);
		if (free_mz && sn->mz != NULL)
			rte_memzone_free(sn->mz);
		pthread_mutex_destroy(&sn->lock);
		pthread_cond_destroy(&sn->cond);
		free(sn->own);
		free(sn->ext);
		free(sn->buf);
	}
	free(sn);
}

/* Primary, lock held: slot @p idx out of the service. */
static void
slot_remove(struct mdevx_share_snap *sn, uint32_t idx)
{
	struct snap_own *o = &sn->own[idx];

	if (o->obj == NULL)
		return;
	ST(sn->bulks, sn->bulks - 1);
	if (o->fits) {
		ST(sn->used, sn->used - o->n);
		area_release(sn, o->offset);
	}
	o->obj = NULL;
	o->fits = false;
	o->pending = false;
	o->requested = false;
	o->req_ns = 0;
	o->refresh_seq = 0;
	slot_write(sn, idx, NULL, 0, 0);
	hdr_stats(sn);
}

void
share_snap_add(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen, struct mdevx_obj *obj,
	 uint32_t bulk_size)
{
	struct snap_own *o;
	uint32_t off;

	if (sn == NULL || idx >= sn->geo.nb_slots || bulk_size == 0)
		return;
	pthread_mutex_lock(&sn->lock);
	o = &sn->own[idx];
	slot_remove(sn, idx);	/* never in use: the registry released it first */
	if (bulk_size > sn->buf_n) {
		struct mdevx_counter_stats *b = realloc(sn->buf, (size_t)bulk_size * sizeof(*b));

		if (b != NULL) {
			sn->buf = b;
			sn->buf_n = bulk_size;
		}
	}
	off = bulk_size <= sn->buf_n ? area_alloc(sn, bulk_size) : UINT32_MAX;
	o->obj = obj;
	o->gen = gen;
	o->n = bulk_size;
	o->refresh_seq = 0;
	o->fits = off != UINT32_MAX;
	o->offset = o->fits ? off : 0;
	o->pending = false;
	o->requested = false;
	o->req_ns = 0;
	ST(sn->bulks, sn->bulks + 1);
	if (o->fits)
		ST(sn->used, sn->used + bulk_size);
	else
		SNAP_LOG(WARNING, "%s: record %u (%u counters) does not fit the counter snapshot "
			 "(%u of %u counters used): published, not in the service", sn->devstr,
			 idx, bulk_size, sn->used, sn->geo.counters);
	slot_write(sn, idx, NULL, 0, 0);
	hdr_stats(sn);
	/* its first values without waiting for the next round */
	if (o->fits) {
		o->pending = true;
		sn->nb_pending++;
		pthread_cond_signal(&sn->cond);
	}
	pthread_mutex_unlock(&sn->lock);
}

void
share_snap_del(struct mdevx_share_snap *sn, uint32_t idx)
{
	if (sn == NULL || idx >= sn->geo.nb_slots)
		return;
	/* A refresh of it in progress holds the lock: it ends before we go on. */
	pthread_mutex_lock(&sn->lock);
	slot_remove(sn, idx);
	pthread_mutex_unlock(&sn->lock);
}

void
share_snap_request(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen)
{
	struct snap_own *o;

	if (sn == NULL || idx >= sn->geo.nb_slots)
		return;
	pthread_mutex_lock(&sn->lock);
	o = &sn->own[idx];
	if (o->obj == NULL || !o->fits || o->gen != gen) {
		pthread_mutex_unlock(&sn->lock);
		return;
	}
	/*
	 * Pending: the refresh to come, not started yet, answers this one
	 * too. Refreshed on request less than a period ago: the next round
	 * answers it.
	 */
	if (o->pending) {
		o->requested = true;
	} else if (o->req_ns == 0 ||
		   share_snap_now_ns() - o->req_ns >= (uint64_t)sn->geo.period_ms * 1000000ull) {
		o->pending = true;
		o->requested = true;
		sn->nb_pending++;
		pthread_cond_signal(&sn->cond);
	}
	pthread_mutex_unlock(&sn->lock);
}

void
share_snap_watch_reg(struct mdevx_share_snap *sn, struct mdevx_share_reg *reg)
{
	if (sn == NULL || !sn->primary)
		return;
	pthread_mutex_lock(&sn->lock);
	sn->reg = reg;
	pthread_mutex_unlock(&sn->lock);
}

int
share_snap_attach(struct mdevx_share_snap **out, const char *reg_mz,
	    const struct mdevx_share_snap_geo *geo)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct mdevx_share_snap *sn;

	*out = NULL;
	if (geo->period_ms == 0 || geo->counters == 0)
		return 0;
	if (geo->nb_slots == 0 || geo->nb_slots > MDEVX_SHARE_CAPACITY_MAX ||
	    snap_mz_name(name, sizeof(name), reg_mz) != 0)
		return EPROTO;
	mz = rte_memzone_lookup(name);
	if (mz == NULL)
		return ENOENT;
	/* The memzone must hold what the primary told us it holds. */
	if (mz->len < snap_size(geo->nb_slots, geo->counters))
		return EPROTO;
	sn = calloc(1, sizeof(*sn));
	if (sn == NULL)
		return ENOMEM;
	sn->geo = *geo;
	sn->mz = mz;
	snap_map(sn);
	*out = sn;
	return 0;
}

void
share_snap_geo(const struct mdevx_share_snap *sn, struct mdevx_share_snap_geo *geo)
{
	if (sn == NULL)
		memset(geo, 0, sizeof(*geo));
	else
		*geo = sn->geo;
}

static int
primary_alive(const struct mdevx_share_snap *sn)
{
	if (sn->primary)
		return 1;
	return kill(sn->geo.primary_pid, 0) == 0 || errno == EPERM;
}

int
share_snap_read(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen, uint32_t bulk_size,
	  uint32_t offset, uint32_t n, struct mdevx_counter_stats *stats,
	  struct mdevx_share_counter_snap *snap)
{
	struct snap_slot *s;

	if (sn == NULL || idx >= sn->geo.nb_slots)
		return ENODATA;
	s = &sn->slots[idx];
	for (int t = 0; t < SNAP_READ_TRIES; t++) {
		uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		uint64_t rgen, rseq, refreshed;
		uint32_t off, cnt, state;
		const struct mdevx_counter_stats *d;
		int err = 0;

		if (seq & 1) {
			if (t >= 4)
				sched_yield();
			continue;
		}
		rgen = LD(s->rec_gen);
		rseq = LD(s->refresh_seq);
		refreshed = LD(s->refreshed_ns);
		off = LD(s->offset);
		cnt = LD(s->n);
		state = LD(s->state);
		/*
		 * Every value of the area checked against our own geometry, for
		 * the whole read: off + offset + n <= counters, written as
		 * differences (no sum that could wrap).
		 */
		if (state != SNAP_ACTIVE || rgen != gen || rseq == 0)
			err = ENODATA;
		else if (cnt != bulk_size || off > sn->geo.counters ||
			 cnt > sn->geo.counters - off || offset >= cnt || n > cnt - offset)
			err = EIO;
		if (err == 0) {
			d = &sn->data[off + offset];
			for (uint32_t i = 0; i < n; i++) {
				stats[i].packets = LD(d[i].packets);
				stats[i].bytes = LD(d[i].bytes);
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LD(s->seq) != seq) {
			if (t >= 4)
				sched_yield();
			continue;
		}
		if (err != 0)
			return err;
		if (snap != NULL) {
			uint64_t now = share_snap_now_ns();

			snap->refreshed_ns = refreshed;
			snap->age_ns = now > refreshed ? now - refreshed : 0;
			snap->refresh_seq = rseq;
			snap->primary_alive = primary_alive(sn);
		}
		return 0;
	}
	return EAGAIN;
}

int
share_snap_started(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen, uint64_t *started_ns)
{
	struct snap_slot *s;

	if (sn == NULL || idx >= sn->geo.nb_slots)
		return ENODATA;
	s = &sn->slots[idx];
	for (int t = 0; t < SNAP_READ_TRIES; t++) {
		uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		uint64_t rgen, started, rseq;
		uint32_t state;

		if (seq & 1) {
			sched_yield();
			continue;
		}
		rgen = LD(s->rec_gen);
		state = LD(s->state);
		started = LD(s->started_ns);
		rseq = LD(s->refresh_seq);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LD(s->seq) != seq)
			continue;
		if (state != SNAP_ACTIVE || rgen != gen)
			return ENODATA;
		*started_ns = rseq == 0 ? 0 : started;
		return 0;
	}
	return EAGAIN;
}

void
share_snap_stats(struct mdevx_share_snap *sn, struct mdevx_share_service_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->period_ms = sn->geo.period_ms;
	st->capacity = sn->geo.counters;
	if (sn->primary) {
		/* private, without the lock: a slow refresh does not hold us */
		st->bulks = LD(sn->bulks);
		st->used = LD(sn->used);
		st->refreshes = LD(sn->refreshes);
		st->failures = LD(sn->failures);
		st->commands = LD(sn->commands);
	} else {
		/* numbers only: nothing here is used as an index */
		st->bulks = LD(sn->hdr->bulks);
		st->used = LD(sn->hdr->used);
		st->refreshes = LD(sn->hdr->refreshes);
		st->failures = LD(sn->hdr->failures);
		st->commands = LD(sn->hdr->commands);
	}
	st->last_round_ns = LD(sn->hdr->last_round_ns);
	st->last_round_end_ns = LD(sn->hdr->last_round_end_ns);
	st->primary_alive = primary_alive(sn);
}

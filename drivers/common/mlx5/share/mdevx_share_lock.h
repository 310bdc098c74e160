/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The import lock of a process's share device: a fair read-write spinlock,
 * private to the process (never in shared memory: a dead process cannot
 * hold it for another).
 *
 * Import and unimport take it exclusively on every call, so its
 * uncontended write section must cost one atomic operation: a ticket is
 * taken with one fetch-and-add and the lock is dropped with a release
 * store. A glibc read-write lock costs two atomic operations and a waiter
 * check per section (about 8 ns against 2 here, measured).
 *
 * Everybody, reader or writer, enters in ticket order, so nobody starves:
 * a withdrawal notification waits for the sections already queued, not
 * for an importer that takes the lock again and again (an unfair spinlock
 * lets a tight import loop starve it, seen in the churn fault test). A
 * reader holds the ticket only long enough to count itself in; a writer
 * holds it for its whole section and first waits for the counted readers
 * to leave. Readers (queries) may hold the lock across a device command,
 * so a waiter spins a little, then yields its CPU, then sleeps between
 * looks (see mdevx_share_lock_backoff()): an oversubscribed machine, or a
 * real-time waiter on the holder's core, still makes progress.
 */
#ifndef MDEVX_SHARE_LOCK_H
#define MDEVX_SHARE_LOCK_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#define MDEVX_LOCK_SPINS 64		/* pauses before a waiter yields */
#define MDEVX_LOCK_YIELDS 64		/* yields before it sleeps between looks */
#define MDEVX_LOCK_SLEEP_NS 20000	/* then the sleep between looks */

typedef struct {
	uint32_t next;			/* the next ticket to hand out */
	uint32_t owner;			/* the ticket being served */
	uint32_t readers;		/* readers inside */
} mdevx_share_lock_t;

static inline void
mdevx_share_lock_init(mdevx_share_lock_t *l)
{
	__atomic_store_n(&l->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->readers, 0, __ATOMIC_RELAXED);
}

/*
 * A waiter's pause: spin, then yield the CPU, and after many yields sleep
 * a little, so that even a real-time (SCHED_FIFO) waiter pinned to the
 * core of a normal-priority holder lets the holder run (a yield alone
 * would not: it only gives the CPU to threads of the same priority).
 */
static inline void
mdevx_share_lock_backoff(unsigned int *spins)
{
	if (*spins < MDEVX_LOCK_SPINS + MDEVX_LOCK_YIELDS)
		++*spins;	/* then it stays in the last stage */
	if (*spins < MDEVX_LOCK_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#endif
	} else if (*spins < MDEVX_LOCK_SPINS + MDEVX_LOCK_YIELDS) {
		sched_yield();
	} else {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = MDEVX_LOCK_SLEEP_NS };

		nanosleep(&ts, NULL);
	}
}

/*
 * Take a ticket and wait for it to be served. The acquire load of owner
 * pairs with the release store of the previous holder's drop.
 */
static inline void
mdevx_share_ticket_take(mdevx_share_lock_t *l)
{
	uint32_t mine = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	unsigned int spins = 0;

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != mine)
		mdevx_share_lock_backoff(&spins);
}

static inline void
mdevx_share_ticket_drop(mdevx_share_lock_t *l)
{
	/* only the ticket holder writes owner: a plain increment, published */
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

static inline void
mdevx_share_lock_write(mdevx_share_lock_t *l)
{
	unsigned int spins = 0;

	mdevx_share_ticket_take(l);
	/*
	 * Readers count themselves in while they hold the ticket, and the
	 * ticket passed through them with release and acquire: every reader
	 * inside is visible here, and no new one enters.
	 */
	while (__atomic_load_n(&l->readers, __ATOMIC_ACQUIRE) != 0)
		mdevx_share_lock_backoff(&spins);
}

static inline void
mdevx_share_unlock_write(mdevx_share_lock_t *l)
{
	mdevx_share_ticket_drop(l);
}

static inline void
mdevx_share_lock_read(mdevx_share_lock_t *l)
{
	mdevx_share_ticket_take(l);
	__atomic_fetch_add(&l->readers, 1, __ATOMIC_ACQUIRE);
	mdevx_share_ticket_drop(l);
}

static inline void
mdevx_share_unlock_read(mdevx_share_lock_t *l)
{
	__atomic_fetch_sub(&l->readers, 1, __ATOMIC_RELEASE);
}

#endif /* MDEVX_SHARE_LOCK_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Tests of the share device's import lock (mdevx_share_lock.h), alone:
 * exclusion, readers sharing it, and a writer that gets its turn in
 * arrival order behind threads that take the lock in a tight loop (an
 * import loop against a withdrawal notification).
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mdevx_share_lock.h"
#include "unit_check.h"

#define NB_THREADS 4
#define ITERS 200000
#define NB_HOGS 3		/* more than this machine's CPUs: waiters yield */
#define LIVENESS_MS 10000	/* far above what a fair lock needs, even under ASan */
#define LIVENESS_S 30		/* the same for a whole fairness test */
#define FAIR_WAITS 300

static mdevx_share_lock_t lock;
/* Guarded by the lock: writers keep a == b, readers check it. */
static volatile uint64_t guard_a, guard_b;
static uint32_t torn_reads;
static uint32_t stop;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Some work inside a section: the lock is held most of the time. */
static void
busy(void)
{
	for (volatile int i = 0; i < 2000; i++)
		;
}

static void *
writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERS; i++) {
		mdevx_share_lock_write(&lock);
		guard_a++;
		guard_b++;
		mdevx_share_unlock_write(&lock);
	}
	return NULL;
}

static void *
reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint64_t a;

		mdevx_share_lock_read(&lock);
		/* a section long enough for a writer that wrongly enters to show */
		a = guard_a;
		busy();
		if (a != guard_b)
			__atomic_add_fetch(&torn_reads, 1, __ATOMIC_RELAXED);
		mdevx_share_unlock_read(&lock);
	}
	return NULL;
}

/* Writers exclude each other and readers: no lost update, no torn read. */
static void
test_exclusion(void)
{
	pthread_t w[NB_THREADS], r[2];

	mdevx_share_lock_init(&lock);
	guard_a = guard_b = 0;
	torn_reads = 0;
	stop = 0;
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&r[i], NULL, reader, NULL) == 0);
	for (int i = 0; i < NB_THREADS; i++)
		CHECK(pthread_create(&w[i], NULL, writer, NULL) == 0);
	for (int i = 0; i < NB_THREADS; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	CHECK(guard_a == (uint64_t)NB_THREADS * ITERS);
	CHECK(guard_b == guard_a);
	CHECK(torn_reads == 0);
	/* Nothing left held: a write section goes straight through. */
	mdevx_share_lock_write(&lock);
	mdevx_share_unlock_write(&lock);
	CHECK(lock.readers == 0 && lock.next == lock.owner);
}

static uint32_t inside;

static void *
second_reader(void *arg)
{
	(void)arg;
	mdevx_share_lock_read(&lock);
	__atomic_store_n(&inside, 1, __ATOMIC_RELEASE);
	mdevx_share_unlock_read(&lock);
	return NULL;
}

/* Readers share it: a second reader enters while the first is inside. */
static void
test_readers_share(void)
{
	pthread_t t;
	uint64_t end;

	mdevx_share_lock_init(&lock);
	inside = 0;
	mdevx_share_lock_read(&lock);
	CHECK(pthread_create(&t, NULL, second_reader, NULL) == 0);
	end = now_ms() + LIVENESS_MS;
	while (!__atomic_load_n(&inside, __ATOMIC_ACQUIRE) && now_ms() < end)
		sched_yield();
	CHECK(__atomic_load_n(&inside, __ATOMIC_ACQUIRE) == 1);
	mdevx_share_unlock_read(&lock);
	pthread_join(t, NULL);
}

enum hog_kind {
	HOG_WRITER,
	HOG_READER,
	/* import, query (a long shared section), unimport: an import loop */
	HOG_IMPORTER,
};

static const char *const hog_names[] = { "writer", "reader", "importer" };
static uint64_t hog_sections;	/* sections the hogs entered */

static void
hog_enter(void)
{
	__atomic_add_fetch(&hog_sections, 1, __ATOMIC_RELAXED);
}

/* A thread that takes the lock again as soon as it drops it. */
static void *
hog(void *arg)
{
	enum hog_kind kind = (enum hog_kind)(uintptr_t)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (kind != HOG_READER) {
			mdevx_share_lock_write(&lock);
			hog_enter();
			if (kind == HOG_WRITER)
				busy();
			mdevx_share_unlock_write(&lock);
		}
		if (kind != HOG_WRITER) {
			mdevx_share_lock_read(&lock);
			hog_enter();
			busy();
			mdevx_share_unlock_read(&lock);
		}
		if (kind == HOG_IMPORTER) {
			mdevx_share_lock_write(&lock);
			hog_enter();
			mdevx_share_unlock_write(&lock);
		}
	}
	return NULL;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Fairness: 300 write sections of a thread that asks now and then (a
 * withdrawal handler), against more hogs than CPUs that retake the lock as
 * soon as they drop it (import loops). In arrival order, a hog
 * enters at most once between this thread's ticket and its turn (each hog
 * waits for one section at a time), so the median number of hog sections
 * per wait is at most the number of hogs, plus one that slips in between
 * the count and the ticket; an unfair lock lets them in again and again
 * (the churn fault test saw one withdrawal in two seconds behind an import
 * loop). A median, so that the odd wait stretched by preemption does not
 * count. A watchdog fails the test if a section never comes at all.
 */
static void
test_fair(enum hog_kind kind)
{
	static uint64_t waits[FAIR_WAITS];
	pthread_t h[NB_HOGS];
	uint64_t median;

	mdevx_share_lock_init(&lock);
	stop = 0;
	for (int i = 0; i < NB_HOGS; i++)
		CHECK(pthread_create(&h[i], NULL, hog, (void *)(uintptr_t)kind) == 0);
	alarm(LIVENESS_S);
	for (int i = 0; i < FAIR_WAITS; i++) {
		uint64_t before;

		usleep(100);	/* the hogs run on meanwhile */
		before = __atomic_load_n(&hog_sections, __ATOMIC_RELAXED);
		mdevx_share_lock_write(&lock);
		waits[i] = __atomic_load_n(&hog_sections, __ATOMIC_RELAXED) - before;
		mdevx_share_unlock_write(&lock);
	}
	alarm(0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < NB_HOGS; i++)
		pthread_join(h[i], NULL);
	qsort(waits, FAIR_WAITS, sizeof(waits[0]), cmp_u64);
	median = waits[FAIR_WAITS / 2];
	printf("against %s hogs: hog sections per wait: median %" PRIu64 ", max %" PRIu64 "\n",
	       hog_names[kind], median, waits[FAIR_WAITS - 1]);
	CHECK(median <= NB_HOGS + 1);
}

static void
watchdog(int sig)
{
	static const char msg[] = "FAIL: a write section never came (starved)\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

int
main(void)
{
	test_exclusion();
	test_readers_share();
	signal(SIGALRM, watchdog);
	test_fair(HOG_WRITER);
	test_fair(HOG_READER);
	test_fair(HOG_IMPORTER);
	return check_summary();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The counter snapshot service of libmdevx_share on the software device:
 *
 * mlx5_devx_share_counters_autotest
 *	values read from the snapshot equal a direct query right after a
 *	refresh (primary and secondary); the age stays within the period
 *	plus one refresh; 1, 4 and 16 reading secondaries cost the device
 *	the same QUERY_FLOW_COUNTER commands per period; a withdrawal during
 *	a slow refresh waits for it and the bulk leaves the service before
 *	its destroy; readers killed mid-read change nothing; a failed
 *	refresh is counted and keeps the old values and age; a scribbled
 *	area costs reads an errno, never an access out of it; a killed
 *	primary: cached reads age and say so, fresh reads work; bad input.
 * mlx5_devx_share_counters_perf_autotest (perf-tests)
 *	a 64k-counter bulk read from the snapshot against one bulk device
 *	query; device commands per period with 16 readers against 1; the
 *	largest age observed against the period. Ratios printed, no timed
 *	assertion.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR "rdma:" DEV
#define DEV2 "mlx5_1"
#define DEVSTR2 "rdma:" DEV2
#define SYNC_MZ "mdevx_t_snap_sync"
#define OP_QUERY_FLOW_COUNTER 0x93b
#define STAT_BAD_PARAM 0x03
#define PERIOD_MS 100
#define BULK 128
#define NB_BULKS 2
#define MAX_READERS 16
#define WAIT_MS 20000
#define STARTING 4		/* readers starting at once */
#define CHILD_TIMEOUT_MS 60000
#define SNAP_COUNTERS (1u << 17)
#define BULK_64K 65536

/* Shared between the test primary and its secondaries. */
struct snap_sync {
	volatile uint32_t ready;
	volatile uint32_t go;
	volatile uint32_t stop;
	volatile uint32_t failures;
	volatile uint32_t check;	/* readers compare with want[] */
	volatile uint64_t reads;
	uint32_t nb_bulks;
	uint32_t bulk;
	char names[NB_BULKS][MDEVX_SHARE_NAME_MAX + 1];
	struct mdevx_counter_stats want[NB_BULKS][BULK];
};

static struct swdev_ctl *ctl;
static const struct rte_memzone *sync_mz;
static struct test_children children;
static struct mdevx_share_dev *pdev;
static struct mdevx_obj *bulks[NB_BULKS];

static struct snap_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- secondaries ---- */

/*
 * Reader: attach, import the sync area's names, then read every bulk from
 * the snapshot in a tight loop until stop; with check, the values must be
 * want[]. argv[0]: the device string (optional).
 */
static int
role_snap_reader(int argc, char **argv)
{
	struct snap_sync *s = sync_area();
	const char *devstr = argc > 0 ? argv[0] : DEVSTR;
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_counter_snap sn;
	mdevx_share_imp_t imp[NB_BULKS];
	struct mdevx_share_dev *dev = NULL;
	volatile uint32_t *failed = s != NULL ? &s->failures : NULL;
	uint32_t nb = 0;
	int rc = 1;

	TEST_ROLE_CHECK(failed, s != NULL, "no sync area");
	dev = mdevx_share_dev_attach(devstr);
	TEST_ROLE_CHECK(failed, dev != NULL, "attach: %s", strerror(errno));
	for (nb = 0; nb < s->nb_bulks; nb++)
		TEST_ROLE_CHECK(failed, mdevx_share_import(dev, s->names[nb], MDEVX_OBJ_FLOW_COUNTER,
							   &imp[nb]) == 0,
				"import %s: %s", s->names[nb], strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	/*
	 * Read loops start once every reader is ready: readers spinning on 2
	 * CPUs would starve those still starting (16 under ThreadSanitizer
	 * missed the readiness bound).
	 */
	while (!__atomic_load_n(&s->go, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		usleep(1000);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		for (uint32_t b = 0; b < nb; b++) {
			int r = mdevx_share_counter_read(dev, imp[b], 0, s->bulk, st, &sn);

			if (r == -EAGAIN)
				continue;
			TEST_ROLE_CHECK(failed, r == 0, "read: %d", r);
			TEST_ROLE_CHECK(failed, sn.primary_alive == 1, "primary said dead");
			if (__atomic_load_n(&s->check, __ATOMIC_ACQUIRE))
				TEST_ROLE_CHECK(failed, memcmp(st, s->want[b],
							       s->bulk * sizeof(st[0])) == 0,
						"bulk %u: values differ", b);
			__atomic_add_fetch(&s->reads, 1, __ATOMIC_RELAXED);
		}
	}
	rc = 0;
out:
	for (uint32_t b = 0; dev != NULL && b < nb; b++)
		mdevx_share_unimport(dev, imp[b]);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return rc;
}
REGISTER_TEST_SECONDARY(snap_reader, role_snap_reader);

/*
 * Secondary: refresh on request, then compare the snapshot with a direct
 * query (nothing changes the counters meanwhile).
 */
static int
role_snap_compare(int argc, char **argv)
{
	struct snap_sync *s = sync_area();
	struct mdevx_counter_stats a[BULK], b[BULK];
	struct mdevx_share_counter_snap sn;
	struct mdevx_share_dev *dev = NULL;
	volatile uint32_t *failed = s != NULL ? &s->failures : NULL;
	mdevx_share_imp_t imp = { 0 };
	uint64_t before;
	int rc = 1, r;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	TEST_ROLE_CHECK(failed, s != NULL, "no sync area");
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(failed, dev != NULL, "attach: %s", strerror(errno));
	TEST_ROLE_CHECK(failed, mdevx_share_import(dev, s->names[0], MDEVX_OBJ_FLOW_COUNTER,
						   &imp) == 0, "import: %s", strerror(errno));
	before = now_ns();
	r = mdevx_share_counter_refresh(dev, imp, 5000);
	TEST_ROLE_CHECK(failed, r == 0, "refresh: %d", r);
	r = mdevx_share_counter_read(dev, imp, 0, BULK, a, &sn);
	TEST_ROLE_CHECK(failed, r == 0, "read: %d", r);
	TEST_ROLE_CHECK(failed, sn.refreshed_ns >= before, "the refresh is older than the call");
	TEST_ROLE_CHECK(failed, sn.primary_alive == 1, "primary dead");
	r = mdevx_share_counter_query(dev, imp, 0, BULK, 0, b);
	TEST_ROLE_CHECK(failed, r == 0, "query: %d", r);
	TEST_ROLE_CHECK(failed, memcmp(a, b, sizeof(a)) == 0, "snapshot != query");
	TEST_ROLE_CHECK(failed, memcmp(a, s->want[0], sizeof(a)) == 0, "snapshot != injected");
	/* part of the bulk, past it */
	r = mdevx_share_counter_read(dev, imp, 5, 1, a, NULL);
	TEST_ROLE_CHECK(failed, r == 0 && a[0].packets == s->want[0][5].packets, "one: %d", r);
	r = mdevx_share_counter_read(dev, imp, BULK - 1, 2, a, NULL);
	TEST_ROLE_CHECK(failed, r == -ERANGE, "past the bulk: %d", r);
	rc = 0;
out:
	if (dev != NULL) {
		mdevx_share_unimport(dev, imp);
		mdevx_share_dev_close(dev);
	}
	return rc;
}
REGISTER_TEST_SECONDARY(snap_compare, role_snap_compare);

/* ---- files between the killed primary's processes and us ---- */

/*
 * Secondary of the primary killed: once it is dead ("dead" holds the
 * packets injected before its death), cached reads must age and say the
 * primary is gone, the values stay the last refresh's, fresh reads see
 * the device.
 */
static int
role_snap_orphan(int argc, char **argv)
{
	struct mdevx_share_service_stats ss;
	struct mdevx_share_counter_snap a, b;
	struct mdevx_counter_stats st, q;
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t imp;
	char buf[64], res[160];
	uint64_t want;
	int r1, r2, rq, rf, rs;

	if (argc < 1)
		return 2;
	dev = mdevx_share_dev_attach(DEVSTR2);
	if (dev == NULL || mdevx_share_import(dev, "orphan_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
		return 3;
	if (mdevx_share_counter_refresh(dev, imp, 5000) != 0)
		return 4;
	test_file_write(argv[0], "ready.sec", "1");
	if (test_file_read(argv[0], "dead", buf, sizeof(buf), WAIT_MS) != 0)
		return 5;
	want = strtoull(buf, NULL, 10);
	r1 = mdevx_share_counter_read(dev, imp, 0, 1, &st, &a);
	usleep(3 * PERIOD_MS * 1000);
	r2 = mdevx_share_counter_read(dev, imp, 0, 1, &st, &b);
	rq = mdevx_share_counter_query(dev, imp, 0, 1, 0, &q);
	rf = mdevx_share_counter_refresh(dev, imp, 2 * PERIOD_MS);
	rs = mdevx_share_service_stats(dev, &ss);
	if (r1 == 0 && r2 == 0 && a.primary_alive == 0 && b.primary_alive == 0 &&
	    b.age_ns >= a.age_ns + 2ull * PERIOD_MS * 1000000 &&
	    b.refresh_seq == a.refresh_seq && b.refreshed_ns == a.refreshed_ns &&
	    st.packets == 0 && rq == 0 && q.packets == want && rf == -ETIMEDOUT &&
	    rs == 0 && ss.primary_alive == 0)
		snprintf(res, sizeof(res), "ok");
	else
		snprintf(res, sizeof(res), "bad r %d %d q %d f %d s %d alive %d %d age %" PRIu64
			 " %" PRIu64 " seq %" PRIu64 " %" PRIu64 " cached %" PRIu64 " fresh %"
			 PRIu64, r1, r2, rq, rf, rs, a.primary_alive, b.primary_alive, a.age_ns,
			 b.age_ns, a.refresh_seq, b.refresh_seq, st.packets, q.packets);
	test_file_write(argv[0], "result", res);
	mdevx_share_unimport(dev, imp);
	mdevx_share_dev_close(dev);
	return 0;
}
REGISTER_TEST_SECONDARY(snap_orphan, role_snap_orphan);

/* The primary to kill: a counter bulk in its service, one secondary. */
static int
role_snap_victim(int argc, char **argv)
{
	struct mdevx_share_conf conf = { .capacity = 16, .counter_period_ms = PERIOD_MS,
					 .snapshot_counters = 1024 };
	struct mdevx_share_dev *dev;
	const char *args[1];
	struct mdevx_obj *cnt;
	char buf[64], tmp[8];

	if (argc < 1)
		return 2;
	args[0] = argv[0];
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	if (dev == NULL)
		return 3;
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), BULK);
	if (cnt == NULL)
		return 4;
	snprintf(buf, sizeof(buf), "%u", test_obj_id(cnt));
	if (mdevx_share_publish(dev, "orphan_ctr", cnt) != 0)
		return 5;
	if (test_mp_spawn("snap_orphan", NULL, 1, args) <= 0)
		return 6;
	if (test_file_read(argv[0], "ready.sec", tmp, sizeof(tmp), WAIT_MS) != 0)
		return 7;
	test_file_write(argv[0], "ready", buf);
	for (;;)
		pause();
	return 0;
}
REGISTER_TEST_SECONDARY(snap_victim, role_snap_victim);

/* ---- fixture ---- */

static int
suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct snap_sync));
}

static void
suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

/* Open DEVSTR with the service at @p period_ms and publish NB_BULKS bulks of @p bulk. */
static int
open_publish(uint32_t period_ms, uint32_t snap_counters, uint32_t bulk)
{
	struct mdevx_share_conf conf = { .capacity = 64, .withdraw_timeout_ms = 3000,
					 .counter_period_ms = period_ms,
					 .snapshot_counters = snap_counters };
	struct snap_sync *s = sync_area();

	if (test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct snap_sync)) != TEST_SUCCESS)
		return TEST_FAILED;
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	s->nb_bulks = NB_BULKS;
	s->bulk = bulk <= BULK ? bulk : BULK;
	for (int b = 0; b < NB_BULKS; b++) {
		uint32_t base;

		bulks[b] = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), bulk);
		TEST_ASSERT_NOT_NULL(bulks[b], "alloc: %s", strerror(errno));
		base = test_obj_id(bulks[b]);
		snprintf(s->names[b], sizeof(s->names[b]), "snap%d", b);
		for (uint32_t i = 0; i < s->bulk; i += 7) {
			s->want[b][i].packets = (uint64_t)(b + 1) * 1000 + i;
			s->want[b][i].bytes = s->want[b][i].packets * 64;
			TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, base + i,
					    s->want[b][i].packets, s->want[b][i].bytes),
					    "inject");
		}
		TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, s->names[b], bulks[b]),
				    "publish: %s", strerror(errno));
		bulks[b] = NULL;	/* the share owns it */
	}
	/*
	 * The first refresh of a new bulk runs in the service's thread after
	 * the publish returned: until it is visible, reads give ENODATA
	 * (documented). Every case starts with both bulks in the snapshot.
	 */
	for (int b = 0; b < NB_BULKS; b++) {
		mdevx_share_imp_t imp;

		TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[b], MDEVX_OBJ_FLOW_COUNTER,
						       &imp), "import: %s", strerror(errno));
		TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, WAIT_MS),
				    "first snapshot: %s", strerror(errno));
		TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	}
	return TEST_SUCCESS;
}

static int
case_setup(void)
{
	return open_publish(PERIOD_MS, SNAP_COUNTERS, BULK);
}

static void
case_teardown(void)
{
	struct snap_sync *s = sync_area();

	if (s != NULL)
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	/*
	 * The children of a failed case see stop and exit (then killed past
	 * 10 s): one killed inside EAL's initialisation can leave EAL's shared
	 * memory lock taken, and the close below would wait for it for good.
	 */
	test_children_wait(&children, 10000);
	swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0);
	for (int b = 0; b < NB_BULKS; b++) {
		if (bulks[b] != NULL)
			mdevx_obj_destroy(bulks[b]);
		bulks[b] = NULL;
	}
	if (pdev != NULL && mdevx_share_dev_close(pdev) != 0)
		printf("close: %s\n", strerror(errno));
	pdev = NULL;
}

/* Wait until the service has made @p more rounds than now. */
static int
wait_rounds(struct mdevx_share_dev *dev, uint64_t more, unsigned int ms)
{
	struct mdevx_share_service_stats st;
	uint64_t end = test_now_ms() + ms, want;

	if (mdevx_share_service_stats(dev, &st) != 0)
		return -1;
	want = st.refreshes + more;
	while (test_now_ms() < end) {
		if (mdevx_share_service_stats(dev, &st) != 0)
			return -1;
		if (st.refreshes >= want)
			return 0;
		usleep(2000);
	}
	return -1;
}

/*
 * Make every refresh of the service fail (the device refuses
 * QUERY_FLOW_COUNTER), then wait until one failed: the service refreshes
 * one bulk at a time, so the refreshes before that one have ended, and
 * from then on it writes no slot until service_resume(). What the test
 * writes into the area stays there.
 */
static int
service_hold(void)
{
	struct mdevx_share_service_stats a, b;
	uint64_t end = test_now_ms() + WAIT_MS;

	if (mdevx_share_service_stats(pdev, &a) != 0 ||
	    swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, UINT32_MAX, STAT_BAD_PARAM,
				0x77, 0) != 0)
		return -1;
	while (test_now_ms() < end) {
		if (mdevx_share_service_stats(pdev, &b) != 0)
			return -1;
		if (b.failures > a.failures)
			return 0;
		usleep(1000);
	}
	return -1;
}

static int
service_resume(void)
{
	return swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0) == 0 ? 0 : -1;
}

/* ---- cases ---- */

static int
test_snap_values(void)
{
	struct snap_sync *s = sync_area();
	struct mdevx_counter_stats a[BULK], b[BULK];
	struct mdevx_share_counter_snap sn;
	struct mdevx_share_service_stats ss;
	mdevx_share_imp_t imp;
	uint64_t t0;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[0], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	t0 = now_ns();
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh: %s",
			    strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, a, &sn), "read: %s",
			    strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(pdev, imp, 0, BULK, 0, b), "query");
	TEST_ASSERT(memcmp(a, b, sizeof(a)) == 0, "snapshot differs from a direct query");
	TEST_ASSERT(memcmp(a, s->want[0], sizeof(a)) == 0, "snapshot differs from the traffic");
	TEST_ASSERT(sn.refreshed_ns >= t0 && sn.refresh_seq >= 1 && sn.primary_alive == 1,
		    "snap: refreshed %" PRIu64 " seq %" PRIu64, sn.refreshed_ns, sn.refresh_seq);
	TEST_ASSERT(sn.age_ns < 1000000000ull, "age %" PRIu64, sn.age_ns);
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ss), "stats");
	TEST_ASSERT(ss.period_ms == PERIOD_MS && ss.bulks == NB_BULKS &&
		    ss.capacity == SNAP_COUNTERS && ss.used == NB_BULKS * BULK &&
		    ss.primary_alive == 1 && ss.failures == 0 && ss.commands >= 1,
		    "stats: period %u bulks %u cap %u used %u failures %" PRIu64, ss.period_ms,
		    ss.bulks, ss.capacity, ss.used, ss.failures);
	/* The same in a secondary, through its refresh request. */
	TEST_ASSERT(test_children_spawn(&children, "snap_compare", 0, NULL) > 0, "spawn");
	TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS), "secondary");
	TEST_ASSERT_EQUAL(s->failures, 0, "the secondary failed");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

/* The largest age seen in @p ms of reads, in *@p max_age (ns). */
static int
observe_age(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, unsigned int ms,
	    uint64_t *max_age, uint64_t *max_round)
{
	struct mdevx_share_service_stats ss;
	struct mdevx_counter_stats st;
	struct mdevx_share_counter_snap sn;
	uint64_t end = test_now_ms() + ms;

	*max_age = 0;
	*max_round = 0;
	while (test_now_ms() < end) {
		int r = mdevx_share_counter_read(dev, imp, 0, 1, &st, &sn);

		if (r == -EAGAIN)
			continue;
		if (r != 0)
			return r;
		if (sn.age_ns > *max_age)
			*max_age = sn.age_ns;
		if (mdevx_share_service_stats(dev, &ss) == 0 && ss.last_round_ns > *max_round)
			*max_round = ss.last_round_ns;
		usleep(500);
	}
	return 0;
}

static int
test_snap_age(void)
{
	struct snap_sync *s = sync_area();
	uint64_t max_age, max_round, bound;
	mdevx_share_imp_t imp;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[1], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	TEST_ASSERT_SUCCESS(observe_age(pdev, imp, 10 * PERIOD_MS, &max_age, &max_round),
			    "reads");
	/* The period, one refresh round, and the scheduling of a loaded machine. */
	bound = (uint64_t)PERIOD_MS * 1000000 + 2 * max_round + 50000000ull;
	printf("largest age %.1f ms for a period of %d ms (round %.3f ms)\n", max_age / 1e6,
	       PERIOD_MS, max_round / 1e6);
	TEST_ASSERT(max_age <= bound, "age %" PRIu64 " ns over %" PRIu64, max_age, bound);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

/*
 * The service's statistics and the device's QUERY_FLOW_COUNTER count read
 * together while the service issues no command: both read twice, 5 ms
 * apart, until neither moved. A pair read across a command the service
 * counted but the device had not yet run would be off by one command.
 */
static int
quiet_sample(struct mdevx_share_service_stats *st, uint64_t *count)
{
	for (int tries = 0; tries < 200; tries++) {
		struct mdevx_share_service_stats s1;
		uint64_t c1;

		if (mdevx_share_service_stats(pdev, &s1) != 0 ||
		    swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, &c1) != 0)
			return -1;
		usleep(5000);
		if (mdevx_share_service_stats(pdev, st) != 0 ||
		    swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, count) != 0)
			return -1;
		if (s1.commands == st->commands && s1.refreshes == st->refreshes && c1 == *count)
			return 0;
	}
	return -1;
}

/*
 * QUERY_FLOW_COUNTER commands the device ran per round of the service,
 * over @p rounds rounds with @p nb readers in tight read loops.
 */
static int
cmds_per_round(unsigned int nb, uint64_t rounds, double *per_round, double *svc_per_round,
	       uint64_t *reads)
{
	struct snap_sync *s = sync_area();
	struct mdevx_share_service_stats a, b;
	uint64_t ca = 0, cb = 0, r0;

	s->ready = 0;
	s->go = 0;
	s->stop = 0;
	s->reads = 0;
	/*
	 * At most STARTING readers start at once: each EAL start loads every
	 * installed driver, and under ThreadSanitizer a dlopen() scans every
	 * module loaded before it, so 16 at once on 2 CPUs took over 20 s.
	 */
	for (unsigned int i = 0; i < nb; i++) {
		if (i >= STARTING)
			TEST_ASSERT(test_wait_at_least(&s->ready, i + 1 - STARTING, WAIT_MS,
						       &s->failures), "reader %u ready", i - STARTING);
		TEST_ASSERT(test_children_spawn(&children, "snap_reader", 0, NULL) > 0, "spawn");
	}
	TEST_ASSERT(test_wait_at_least(&s->ready, nb, WAIT_MS, &s->failures), "readers ready");
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	r0 = __atomic_load_n(&s->reads, __ATOMIC_RELAXED);
	TEST_ASSERT_SUCCESS(wait_rounds(pdev, 1, WAIT_MS), "round");
	TEST_ASSERT_SUCCESS(quiet_sample(&a, &ca), "statistics and command count");
	TEST_ASSERT_SUCCESS(wait_rounds(pdev, rounds, WAIT_MS), "rounds");
	TEST_ASSERT_SUCCESS(quiet_sample(&b, &cb), "statistics and command count");
	*reads = __atomic_load_n(&s->reads, __ATOMIC_RELAXED) - r0;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS), "readers");
	TEST_ASSERT_EQUAL(s->failures, 0, "a reader failed");
	TEST_ASSERT(b.refreshes > a.refreshes, "no round");
	*svc_per_round = (double)(b.commands - a.commands) / (double)(b.refreshes - a.refreshes);
	*per_round = (double)(cb - ca) / (double)(b.refreshes - a.refreshes);
	return TEST_SUCCESS;
}

static int
test_snap_readers_cost(void)
{
	static const unsigned int nbs[] = { 1, 4, 16 };
	double per[3], svc[3];
	uint64_t reads;
	const int nb_cases = 3;

	for (int i = 0; i < nb_cases; i++) {
		TEST_ASSERT_SUCCESS(cmds_per_round(nbs[i], 4, &per[i], &svc[i], &reads),
				    "%u readers", nbs[i]);
		printf("%2u readers: %.2f device commands per period (service %.2f), "
		       "%" PRIu64 " reads\n", nbs[i], per[i], svc[i], reads);
		TEST_ASSERT(reads > 0, "no read");
		/* one command per bulk of 128 (the device reads 64k at once) */
		TEST_ASSERT(per[i] == (double)NB_BULKS, "%.2f commands per period", per[i]);
		TEST_ASSERT(svc[i] == per[i], "the service counted %.2f", svc[i]);
	}
	return TEST_SUCCESS;
}

/* A slow refresh, a withdrawal during it: out of the service before its destroy. */
static int
test_snap_withdraw_during_refresh(void)
{
	struct snap_sync *s = sync_area();
	struct mdevx_share_service_stats a, b;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	uint64_t t0, t1, t2, c0, c1;
	int r;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[0], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &a), "stats");
	TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, &c0),
			    "command count");
	/*
	 * Just after a round, so that the slow query is the first of the next
	 * one (the withdrawn bulk's): the next query takes 400 ms in the device
	 * (its answer is held back).
	 */
	TEST_ASSERT_SUCCESS(wait_rounds(pdev, 1, WAIT_MS), "rounds");
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, 1, 0, 0,
						400000), "delay fault");
	t0 = now_ns();
	r = mdevx_share_counter_refresh(pdev, imp, 1);
	TEST_ASSERT(r == -ETIMEDOUT || r == 0, "refresh request: %d", r);
	/* The device counts a command when it gets it: the slow query is in flight. */
	do {
		TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, &c1),
				    "command count");
		if (c1 == c0)
			usleep(1000);
	} while (c1 == c0 && now_ns() - t0 < WAIT_MS * 1000000ull);
	TEST_ASSERT(c1 > c0, "the service sent no query");
	t1 = now_ns();
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, s->names[0], NULL), "withdraw: %s",
			    strerror(errno));
	t2 = now_ns();
	printf("withdrawal during a slow refresh took %.1f ms (%.1f ms after the request)\n",
	       (t2 - t1) / 1e6, (t2 - t0) / 1e6);
	/* The slow query began after t0 and ends 400 ms later: the withdrawal waited. */
	TEST_ASSERT(t2 - t0 >= 400000000ull, "the withdrawal did not wait for the refresh");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, 0, 1, &st, NULL), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(pdev, imp, 10), ESTALE);
	/* Rounds go on with the other bulk; none ever reached the destroyed one. */
	TEST_ASSERT_SUCCESS(wait_rounds(pdev, 3, WAIT_MS), "rounds");
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &b), "stats");
	TEST_ASSERT_EQUAL(b.failures, a.failures, "a refresh failed on the device");
	TEST_ASSERT_EQUAL(b.bulks, NB_BULKS - 1, "bulks in the service: %u", b.bulks);
	TEST_ASSERT_EQUAL(b.used, (NB_BULKS - 1) * BULK, "counters in use: %u", b.used);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

/* Wait (bounded) until the readers made @p more reads than now, or one failed. */
static int
wait_reads(struct snap_sync *s, uint64_t more)
{
	uint64_t want = __atomic_load_n(&s->reads, __ATOMIC_RELAXED) + more;
	uint64_t end = test_now_ms() + WAIT_MS;

	while (__atomic_load_n(&s->reads, __ATOMIC_RELAXED) < want) {
		if (test_now_ms() >= end || __atomic_load_n(&s->failures, __ATOMIC_RELAXED) != 0)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* Readers killed in their read loops: the others keep reading the right values. */
static int
test_snap_reader_killed(void)
{
	struct snap_sync *s = sync_area();
	struct mdevx_counter_stats st[BULK];
	mdevx_share_imp_t imp;
	pid_t victims[2];

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[0], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	s->check = 1;
	s->ready = 0;
	s->go = 0;
	for (int i = 0; i < 4; i++) {
		pid_t p = test_children_spawn(&children, "snap_reader", 0, NULL);

		TEST_ASSERT(p > 0, "spawn");
		if (i < 2)
			victims[i] = p;
	}
	TEST_ASSERT(test_wait_at_least(&s->ready, 4, WAIT_MS, &s->failures), "readers ready");
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	/* killed in their read loops: some thousands of reads in */
	TEST_ASSERT_SUCCESS(wait_reads(s, 4000), "no read before the kills");
	kill(victims[0], SIGKILL);
	kill(victims[1], SIGKILL);
	for (int i = 0; i < 2; i++)
		TEST_ASSERT_EQUAL(test_mp_wait(victims[i], 5000), 128 + SIGKILL, "victim");
	/* the victims are reaped: off the list of children to wait for */
	for (int i = 0, k = 0, nb = children.nb; i < nb; i++) {
		if (children.pid[i] == victims[0] || children.pid[i] == victims[1]) {
			children.nb--;
			continue;
		}
		children.pid[k++] = children.pid[i];
	}
	/* the survivors read on */
	TEST_ASSERT_SUCCESS(wait_reads(s, 1000), "no read after the kills");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL), "read");
	TEST_ASSERT(memcmp(st, s->want[0], sizeof(st)) == 0, "values changed");
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS), "readers");
	TEST_ASSERT_EQUAL(s->failures, 0, "a surviving reader failed");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

/* A refresh the device refuses: counted, old values and age kept. */
static int
test_snap_refresh_failure(void)
{
	struct snap_sync *s = sync_area();
	struct mdevx_counter_stats a[BULK], b[BULK];
	struct mdevx_share_counter_snap sa, sb;
	struct mdevx_share_service_stats ssa, ssb;
	mdevx_share_imp_t imp;
	uint32_t base;
	struct mdevx_share_record rec;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[1], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(pdev, s->names[1], &rec), "lookup");
	base = rec.object_id;
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	/* No refresh can succeed from here on: the values read now are the last. */
	TEST_ASSERT_SUCCESS(service_hold(), "no failed refresh with the fault set");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, a, &sa), "read");
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ssa), "stats");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, base, 5, 320), "inject");
	/* 3 whole rounds after the read (the first one counted may have begun before) */
	TEST_ASSERT_SUCCESS(wait_rounds(pdev, 4, WAIT_MS), "rounds");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, b, &sb), "read");
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ssb), "stats");
	printf("failures %" PRIu64 " -> %" PRIu64 ", age %.1f -> %.1f ms\n", ssa.failures,
	       ssb.failures, sa.age_ns / 1e6, sb.age_ns / 1e6);
	TEST_ASSERT(ssb.failures >= ssa.failures + 3 * NB_BULKS, "failures not counted");
	TEST_ASSERT(memcmp(a, b, sizeof(a)) == 0, "values changed by a failed refresh");
	TEST_ASSERT(sb.refreshed_ns == sa.refreshed_ns && sb.refresh_seq == sa.refresh_seq,
		    "the refresh time moved");
	TEST_ASSERT(sb.age_ns >= sa.age_ns + 2ull * PERIOD_MS * 1000000, "the age did not grow");
	/* Fixed: the next refresh has the traffic. */
	TEST_ASSERT_SUCCESS(service_resume(), "clear fault");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, b, &sb), "read");
	TEST_ASSERT(b[0].packets == a[0].packets + 5 && sb.refresh_seq > sa.refresh_seq,
		    "after the fault: %" PRIu64, b[0].packets);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

static const struct rte_memzone *snap_mz_found;

static void
find_snap_mz(const struct rte_memzone *mz, void *arg)
{
	RTE_SET_USED(arg);
	if (strncmp(mz->name, "mdevx_sn_", 9) == 0)
		snap_mz_found = mz;
}

/*
 * Write @p byte over @p len bytes at @p p (8-byte aligned) as another
 * process would, with atomic stores: the service's thread writes the same
 * words (ThreadSanitizer would report plain stores as a race in the test).
 */
static void
scribble(void *p, size_t len, uint8_t byte)
{
	uint64_t w;

	memset(&w, byte, sizeof(w));
	for (size_t i = 0; i + 8 <= len; i += 8)
		__atomic_store_n((uint64_t *)((uint8_t *)p + i), w, __ATOMIC_RELAXED);
}

/*
 * The area scribbled: reads fail (never outside the area, which ASan
 * would see), and the next refresh repairs the slot from the primary's
 * private state. The slot layout (doc/share.rst): 64 bytes per record
 * after a 128-byte header; offset at +40, n at +44, state at +48. The
 * service is held (service_hold()) from before each scribble to after
 * its read: a round in between would repair the slot first.
 */
static int
test_snap_scribble(void)
{
	struct snap_sync *s = sync_area();
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_rec_info info;
	mdevx_share_imp_t imp;
	uint8_t *slot;
	uint32_t idx, v;
	int r;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[0], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(mdevx_share_dev_reg(pdev), s->names[0],
						   &info, &idx, NULL), "find");
	snap_mz_found = NULL;
	rte_memzone_walk(find_snap_mz, NULL);
	TEST_ASSERT_NOT_NULL(snap_mz_found, "no snapshot memzone");
	slot = (uint8_t *)snap_mz_found->addr + 128 + (size_t)idx * 64;
	for (int k = 0; k < 4; k++) {
		TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
		TEST_ASSERT_SUCCESS(service_hold(), "no failed refresh with the fault set");
		switch (k) {
		case 0:	/* counters past the area */
			v = 0xfffffff0u;
			__atomic_store_n((uint32_t *)(slot + 40), v, __ATOMIC_RELAXED);
			break;
		case 1:	/* a bulk larger than the area */
			v = UINT32_MAX;
			__atomic_store_n((uint32_t *)(slot + 44), v, __ATOMIC_RELAXED);
			break;
		case 2:	/* a sequence forever odd */
			__atomic_fetch_or((uint64_t *)slot, 1, __ATOMIC_RELAXED);
			break;
		default: /* everything */
			scribble(slot, 64, 0xa5);
			break;
		}
		r = mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL);
		TEST_ASSERT(r == -EIO || r == -EAGAIN || r == -ENODATA, "scribble %d: read %d",
			    k, r);
		/* The next refresh writes the slot anew from private state. */
		TEST_ASSERT_SUCCESS(service_resume(), "clear fault");
		TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
		TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL),
				    "read after scribble %d", k);
		TEST_ASSERT(memcmp(st, s->want[0], sizeof(st)) == 0, "values after %d", k);
	}
	/* The whole area, header and counters too: reads fail or read inside it. */
	scribble(snap_mz_found->addr, snap_mz_found->len, 0x5a);
	r = mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL);
	TEST_ASSERT(r == 0 || r == -EIO || r == -EAGAIN || r == -ENODATA, "read %d", r);
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL), "read");
	TEST_ASSERT(memcmp(st, s->want[0], sizeof(st)) == 0, "values after the whole area");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	return TEST_SUCCESS;
}

static int
test_snap_primary_killed(void)
{
	char dir[] = "/tmp/mdevx-snapvictim-XXXXXX", prefix[128], buf[256], val[32];
	const char *args[1] = { dir };
	uint32_t counter_id;
	pid_t victim;
	int rc;

	TEST_ASSERT_NOT_NULL(mkdtemp(dir), "mkdtemp");
	snprintf(prefix, sizeof(prefix), "%s_snapvictim", test_file_prefix());
	victim = test_mp_spawn_primary("snap_victim", prefix, 1, args);
	TEST_ASSERT(victim > 0, "spawn");
	rc = test_file_read(dir, "ready", buf, sizeof(buf), WAIT_MS);
	if (rc != 0) {
		kill(victim, SIGKILL);
		printf("victim primary exited with %d\n", test_mp_wait(victim, 1000));
		return TEST_FAILED;
	}
	counter_id = (uint32_t)strtoul(buf, NULL, 10);
	usleep(2 * PERIOD_MS * 1000);
	kill(victim, SIGKILL);
	TEST_ASSERT_EQUAL(test_mp_wait(victim, 5000), 128 + SIGKILL, "victim");
	/* After its death: only a fresh read can see it. */
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV2, counter_id, 4242, 4242 * 60),
			    "inject");
	snprintf(val, sizeof(val), "%d", 4242);
	TEST_ASSERT_SUCCESS(test_file_write(dir, "dead", val), "dead file");
	rc = test_file_read(dir, "result", buf, sizeof(buf), WAIT_MS);
	TEST_ASSERT_SUCCESS(test_dir_remove(dir), "exchange directory left");
	TEST_ASSERT(rc == 0 && strcmp(buf, "ok") == 0, "secondary of the killed primary: '%s'",
		    rc == 0 ? buf : "no result");
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV2, 10000), "objects left on " DEV2);
	return TEST_SUCCESS;
}

/*
 * A refresh asked for is done at once, not at the next round: with a
 * period of a minute, traffic injected after the first refresh shows only
 * through mdevx_share_counter_refresh().
 */
static int
test_snap_refresh_on_demand(void)
{
	struct mdevx_share_conf slow = { .capacity = 8, .counter_period_ms = 60000 };
	struct mdevx_share_counter_snap a, b;
	struct mdevx_counter_stats st;
	struct mdevx_share_dev *d2;
	struct mdevx_obj *cnt;
	mdevx_share_imp_t imp;

	d2 = mdevx_share_dev_open(DEVSTR2, &slow);
	TEST_ASSERT_NOT_NULL(d2, "open: %s", strerror(errno));
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(d2), BULK);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(d2, "slow", cnt), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_import(d2, "slow", MDEVX_OBJ_FLOW_COUNTER, &imp), "imp");
	/* A new bulk is refreshed at once. */
	for (int i = 0; i < WAIT_MS / 2 && mdevx_share_counter_read(d2, imp, 0, 1, &st, &a) != 0;
	     i++)
		usleep(2000);
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(d2, imp, 0, 1, &st, &a), "first read");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV2, test_obj_id(cnt), 7, 700),
			    "inject");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(d2, imp, 2000), "refresh on demand");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(d2, imp, 0, 1, &st, &b), "read");
	TEST_ASSERT(st.packets == 7 && st.bytes == 700 && b.refresh_seq > a.refresh_seq,
		    "after the refresh: %" PRIu64 "/%" PRIu64 ", refresh %" PRIu64 " -> %" PRIu64,
		    st.packets, st.bytes, a.refresh_seq, b.refresh_seq);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(d2, imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(d2), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_snap_badinput(void)
{
	struct mdevx_share_conf off = { .capacity = 8,
					.counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF };
	struct mdevx_share_conf dflt = { .capacity = 8, .counter_period_ms = 0 };
	struct mdevx_share_conf tiny = { .capacity = 8, .counter_period_ms = PERIOD_MS,
					 .snapshot_counters = BULK };
	struct mdevx_share_conf huge = { .capacity = 8, .counter_period_ms = PERIOD_MS,
					 .snapshot_counters = UINT32_MAX };
	struct snap_sync *s = sync_area();
	struct mdevx_share_service_stats ss;
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_counter_snap sn;
	mdevx_share_imp_t imp, bad = { .id = 0x12345 };
	struct mdevx_share_dev *d2;
	struct mdevx_obj *c[2];
	struct log_cap cap;
	const char *why;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, s->names[0], MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp, 5000), "refresh");
	/* read */
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(NULL, imp, 0, 1, st, &sn), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read((void *)st, imp, 0, 1, st, &sn), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, 0, 1, NULL, &sn), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, 0, 0, st, &sn), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, bad, 0, 1, st, &sn), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, BULK, 1, st, &sn), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, 1, BULK, st, &sn), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, UINT32_MAX, 2, st, &sn),
			     ERANGE);
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(pdev, imp, 0, BULK, st, NULL), "NULL snap");
	/* refresh */
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(NULL, imp, 10), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh((void *)st, imp, 10), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(pdev, bad, 10), ENOENT);
	/* stats */
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(NULL, &ss), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(pdev, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats((void *)st, &ss), ENOENT);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, imp, 0, 1, st, &sn), ENOENT);

	/* A snapshot larger than the library allows. */
	errno = 0;
	TEST_ASSERT(mdevx_share_dev_open(DEVSTR2, &huge) == NULL && errno == EINVAL,
		    "huge snapshot: %s", strerror(errno));
	/* 0 is the default period, as 0 is the default of every field. */
	d2 = mdevx_share_dev_open(DEVSTR2, &dflt);
	TEST_ASSERT_NOT_NULL(d2, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(d2, &ss), "stats of period 0");
	TEST_ASSERT_EQUAL(ss.period_ms, MDEVX_SHARE_COUNTER_PERIOD_DEFAULT, "period of 0");
	/* The area of a registry of 8 records: 8 times 256 counters, not 1M. */
	TEST_ASSERT_EQUAL(ss.capacity, 8 * MDEVX_SHARE_SNAPSHOT_PER_RECORD, "area of 0: %u",
			  ss.capacity);
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(d2), "close");
	/* The default registry's: the cap. */
	dflt.capacity = 0;
	d2 = mdevx_share_dev_open(DEVSTR2, &dflt);
	TEST_ASSERT_NOT_NULL(d2, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(d2, &ss), "stats");
	TEST_ASSERT_EQUAL(ss.capacity, MDEVX_SHARE_SNAPSHOT_DEFAULT, "area: %u", ss.capacity);
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(d2), "close");
	/* The service off: one line at open, no area, every snapshot call ENODATA. */
	TEST_ASSERT_SUCCESS(log_cap_start(&cap, RTE_LOG_NOTICE), "log capture");
	d2 = mdevx_share_dev_open(DEVSTR2, &off);
	why = log_cap_once(&cap, "mdevx_share: ", DEVSTR2, "counter snapshot service off", NULL);
	log_cap_stop(&cap);
	TEST_ASSERT_NOT_NULL(d2, "open: %s", strerror(errno));
	TEST_ASSERT_NULL(why, "the line saying the service is off: %s", why);
	c[0] = mdevx_counter_alloc(mdevx_share_dev_ctx(d2), BULK);
	TEST_ASSERT_NOT_NULL(c[0], "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(d2, "off", c[0]), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_import(d2, "off", MDEVX_OBJ_FLOW_COUNTER, &imp), "import");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(d2, imp, 0, 1, st, &sn), ENODATA);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(d2, imp, 10), ENODATA);
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(d2, &ss), ENODATA);
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(d2, imp, 0, 1, 0, st), "fresh read");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(d2, imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(d2), "close");

	/* A full area: the second bulk is published, but not in the service. */
	d2 = mdevx_share_dev_open(DEVSTR2, &tiny);
	TEST_ASSERT_NOT_NULL(d2, "open: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		char name[8];

		c[i] = mdevx_counter_alloc(mdevx_share_dev_ctx(d2), BULK);
		TEST_ASSERT_NOT_NULL(c[i], "alloc");
		snprintf(name, sizeof(name), "full%d", i);
		TEST_ASSERT_SUCCESS(mdevx_share_publish(d2, name, c[i]), "publish %d", i);
	}
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(d2, &ss), "stats");
	TEST_ASSERT(ss.bulks == 2 && ss.used == BULK && ss.capacity == BULK,
		    "full: bulks %u used %u capacity %u", ss.bulks, ss.used, ss.capacity);
	/*
	 * The bulk with no room is never written anywhere: after rounds that
	 * saw different traffic on both, the first one reads its own values.
	 */
	for (int i = 0; i < 2; i++)
		TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV2, test_obj_id(c[i]),
							     10 + i, 1000 + i), "inject");
	/* a whole round that began after the injection */
	TEST_ASSERT_SUCCESS(wait_rounds(d2, 2, WAIT_MS), "rounds");
	TEST_ASSERT_SUCCESS(mdevx_share_import(d2, "full0", MDEVX_OBJ_FLOW_COUNTER, &imp), "imp");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(d2, imp, 0, 1, st, &sn), "read");
	TEST_ASSERT(st[0].packets == 10 && st[0].bytes == 1000,
		    "full0 reads %" PRIu64 "/%" PRIu64 ", want 10/1000", st[0].packets,
		    st[0].bytes);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(d2, imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_import(d2, "full1", MDEVX_OBJ_FLOW_COUNTER, &imp), "imp");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(d2, imp, 0, 1, st, &sn), ENODATA);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(d2, imp, 10), ENODATA);
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(d2, imp, 0, 1, 0, st), "fresh read");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(d2, imp), "unimport");
	/* Room again once the first goes: a new bulk fits. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(d2, "full0", NULL), "withdraw");
	c[0] = mdevx_counter_alloc(mdevx_share_dev_ctx(d2), BULK);
	TEST_ASSERT_NOT_NULL(c[0], "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(d2, "full2", c[0]), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_import(d2, "full2", MDEVX_OBJ_FLOW_COUNTER, &imp), "imp");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(d2, imp, 5000), "refresh");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_read(d2, imp, 0, 1, st, &sn), "read");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(d2, imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(d2), "close");
	/* A closed device. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(d2, &ss), ENOENT);
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_nothing_left(void)
{
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left on " DEV);
	return TEST_SUCCESS;
}

static struct unit_test_suite counters_suite = {
	.suite_name = "mlx5 devx share: counter snapshot service",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_snap_values),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_age),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_readers_cost),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_withdraw_during_refresh),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_reader_killed),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_refresh_failure),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_scribble),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_refresh_on_demand),
		TEST_CASE_ST(case_setup, case_teardown, test_snap_badinput),
		TEST_CASE(test_snap_primary_killed),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_counters(void)
{
	return unit_test_suite_runner(&counters_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_counters_autotest, test_share_counters);

/* ---- benchmarks ---- */

static int
perf_setup(void)
{
	struct mdevx_share_conf conf = { .capacity = 64, .withdraw_timeout_ms = 3000,
					 .counter_period_ms = PERIOD_MS,
					 .snapshot_counters = 4 * BULK_64K };
	struct snap_sync *s = sync_area();

	if (test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct snap_sync)) != TEST_SUCCESS)
		return TEST_FAILED;
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	s->nb_bulks = 1;
	s->bulk = BULK;
	snprintf(s->names[0], sizeof(s->names[0]), "big");
	bulks[0] = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), BULK_64K);
	TEST_ASSERT_NOT_NULL(bulks[0], "alloc 64k: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(bulks[0]) + 77, 7,
						     448), "inject");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "big", bulks[0]), "publish");
	bulks[0] = NULL;
	return TEST_SUCCESS;
}

static int
test_snap_perf(void)
{
	struct mdevx_counter_stats *a, *b;
	mdevx_share_imp_t imp;
	uint64_t t0, snap_ns, query_ns, max_age, max_round, reads;
	double per[2], svc[2];
	const int iters = 20;
	int rc = TEST_FAILED;

	a = calloc(BULK_64K, sizeof(*a));
	b = calloc(BULK_64K, sizeof(*b));
	TEST_ASSERT(a != NULL && b != NULL, "alloc");
	if (mdevx_share_import(pdev, "big", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0 ||
	    mdevx_share_counter_refresh(pdev, imp, 5000) != 0) {
		printf("import/refresh: %s\n", strerror(errno));
		goto out;
	}
	/* 1. A 64k-counter bulk: snapshot read against one bulk device query. */
	t0 = now_ns();
	for (int i = 0; i < iters; i++)
		if (mdevx_share_counter_query(pdev, imp, 0, BULK_64K, 0, b) != 0)
			goto out;
	query_ns = (now_ns() - t0) / iters;
	t0 = now_ns();
	for (int i = 0; i < iters * 10; i++)
		while (mdevx_share_counter_read(pdev, imp, 0, BULK_64K, a, NULL) != 0)
			if (errno != EAGAIN)
				goto out;
	snap_ns = (now_ns() - t0) / (iters * 10);
	if (a[77].packets != 7 || b[77].packets != 7) {
		printf("values: %" PRIu64 " %" PRIu64 "\n", a[77].packets, b[77].packets);
		goto out;
	}
	/* 2. Device commands per period with 16 readers and with 1. */
	if (cmds_per_round(1, 5, &per[0], &svc[0], &reads) != TEST_SUCCESS ||
	    cmds_per_round(16, 5, &per[1], &svc[1], &reads) != TEST_SUCCESS)
		goto out;
	/* 3. The largest age over 30 periods. */
	if (observe_age(pdev, imp, 30 * PERIOD_MS, &max_age, &max_round) != 0)
		goto out;
	printf("perf: counter snapshot service (period %d ms, device counts):\n"
	       "perf:   64k-counter bulk: snapshot read %.1f us, device query %.1f us, "
	       "ratio %.1fx (target >= 50)\n"
	       "perf:   device commands per period: 16 readers %.2f, 1 reader %.2f, "
	       "ratio %.2f (target 1.00)\n"
	       "perf:   largest age %.1f ms / period %d ms = %.2f (target <= 1.2; "
	       "round %.2f ms)\n",
	       PERIOD_MS,
	       snap_ns / 1e3, query_ns / 1e3, (double)query_ns / (double)snap_ns, per[1],
	       per[0], per[1] / per[0], max_age / 1e6, PERIOD_MS,
	       max_age / 1e6 / PERIOD_MS, max_round / 1e6);
	rc = TEST_SUCCESS;
out:
	mdevx_share_unimport(pdev, imp);
	free(a);
	free(b);
	return rc;
}

static struct unit_test_suite counters_perf_suite = {
	.suite_name = "mlx5 devx share: counter snapshot service, benchmarks",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(perf_setup, case_teardown, test_snap_perf),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_counters_perf(void)
{
	return unit_test_suite_runner(&counters_perf_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_counters_perf_autotest, test_share_counters_perf);

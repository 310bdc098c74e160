/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_scribble_autotest: what a process of the instance can do
 * to libmdevx_share through its shared memory and its refresh requests,
 * and what the primary does about it.
 *
 * test_scribble_header
 *	a rogue secondary writes one word of the registry header (closed
 *	flag, cookie, magic, capacity), one per round: the primary writes it
 *	back within one period of its snapshot service, and a new secondary
 *	then attaches, imports and reads a counter.
 * test_scribble_records_listing
 *	every record of the primary scribbled (zeroes, 0xff, an odd sequence,
 *	state FREE, another name, random bytes): the primary's listing still
 *	gives all of its records with their object ids, and it withdraws
 *	every one it listed; the device ends with 0 objects.
 * test_scribble_snap_offset
 *	a snapshot slot whose offset points inside the area but too near its
 *	end (or past it, or wraps around): every read gives EIO, never the
 *	bytes after the area; an offset that fits reads.
 * test_refresh_flood, test_refresh_flood_secondary
 *	refresh requests in a loop for three of four bulks (from a thread of
 *	the primary; from a secondary, through its messages): the device's
 *	QUERY_FLOW_COUNTER commands stay within one per bulk and round plus
 *	one refresh on request per requested bulk and period, and the largest
 *	age of the bulk nobody asks for within the period plus one round; a
 *	request made right after the loop is still answered within a period.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <mdevx_share_reg.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR "rdma:" DEV
#define SYNC_MZ "mdevx_t_scribble_sync"
#define OP_QUERY_FLOW_COUNTER 0x93b
#define PERIOD_MS 100
#define BULK 128
#define NB_BULKS 4
#define CHILD_TIMEOUT_MS 30000
#define REPAIR_WAIT_MS 5000	/* a rogue gives up waiting for the repair */
#define FLOOD_MS 2000
#define SNAP_CAP (4 * BULK)	/* counters in the snapshot area */

/* Shared between the test primary and its secondaries. */
struct scribble_sync {
	volatile uint32_t ready;
	volatile uint32_t failed;
	volatile uint64_t repair_us;	/* the rogue: from its write to the repair */
	volatile uint64_t repair_rounds; /* service rounds (c0's refreshes) meanwhile */
	volatile uint32_t repaired;
	volatile uint32_t stop;
	volatile uint64_t requests;	/* the flooding secondary's */
	volatile int32_t bad;		/* its unexpected return */
	uint64_t packets, bytes;	/* counter 0 of record "c0" */
};

static struct swdev_ctl *ctl;
static const struct rte_memzone *sync_mz;
static struct test_children children;
static struct mdevx_share_dev *pdev;

static struct scribble_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

static volatile uint32_t *
failed_flag(void)
{
	struct scribble_sync *s = sync_area();

	return s != NULL ? &s->failed : NULL;
}

#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(failed_flag(), cond, __VA_ARGS__)

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * The registry header as the rogue knows it (registry format 4,
 * drivers/common/mlx5/share/mdevx_share_reg_layout.h, struct reg_hdr).
 */
struct hdr_word {
	const char *name;
	uint16_t off, len;
	uint64_t value;		/* what the rogue writes; UINT64_MAX: the bits flipped */
};

static const struct hdr_word hdr_words[] = {
	{ "closed", 12, 4, 1 },
	{ "cookie", 48, 8, UINT64_MAX },
	{ "magic", 0, 8, 0 },
	{ "capacity", 16, 4, 0x40000001 },
};

/* ---- secondaries ---- */

/* The refresh number of c0 in the snapshot; 0 if it cannot be read. */
static uint64_t
c0_refresh_seq(struct mdevx_share_dev *dev, mdevx_share_imp_t imp)
{
	struct mdevx_share_counter_snap sn;
	struct mdevx_counter_stats st;
	uint64_t end = now_us() + REPAIR_WAIT_MS * 1000ull;
	int rc;

	do {
		rc = mdevx_share_counter_read(dev, imp, 0, 1, &st, &sn);
	} while ((rc == -EAGAIN || rc == -ENODATA) && now_us() < end && usleep(200) == 0);
	return rc == 0 ? sn.refresh_seq : 0;
}

/*
 * The rogue: attach, write header word argv[0], then wait until the
 * header is what it was before the write; the time it took and the
 * service rounds meanwhile (refreshes of c0) go to the sync area.
 */
static int
role_hdr_rogue(int argc, char **argv)
{
	struct scribble_sync *s = sync_area();
	const struct hdr_word *w = NULL;
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t imp = { .id = 0 };
	uint8_t before[64], *base;
	uint64_t t0, v, seq0, seq1;
	int ret = 1;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or no word");
	for (unsigned int i = 0; i < RTE_DIM(hdr_words); i++)
		if (strcmp(argv[0], hdr_words[i].name) == 0)
			w = &hdr_words[i];
	ROLE_CHECK(w != NULL, "no header word %s", argv[0]);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "c0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import c0: %s", strerror(errno));
	seq0 = c0_refresh_seq(dev, imp);
	ROLE_CHECK(seq0 != 0, "no snapshot of c0");
	base = mdevx_share_reg_base(mdevx_share_dev_reg(dev));
	ROLE_CHECK(base != NULL, "no registry");
	memcpy(before, base, sizeof(before));
	v = 0;
	memcpy(&v, base + w->off, w->len);
	v = w->value == UINT64_MAX ? ~v : w->value;
	memcpy(base + w->off, &v, w->len);
	t0 = now_us();
	while (memcmp(base, before, sizeof(before)) != 0) {
		ROLE_CHECK(now_us() - t0 < REPAIR_WAIT_MS * 1000ull,
			   "header word %s not repaired in %u ms", w->name, REPAIR_WAIT_MS);
		usleep(200);
	}
	s->repair_us = now_us() - t0;
	seq1 = c0_refresh_seq(dev, imp);
	ROLE_CHECK(seq1 >= seq0, "no snapshot of c0 after the repair");
	s->repair_rounds = seq1 - seq0;
	__atomic_store_n(&s->repaired, 1, __ATOMIC_RELEASE);
	ret = 0;
out:
	if (imp.id != 0)
		mdevx_share_unimport(dev, imp);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] rogue close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(scribble_hdr_rogue, role_hdr_rogue);

/* A new secondary: attach, import "c0", read its counter 0 (the sync area's values). */
static int
role_attacher(int argc, char **argv)
{
	struct scribble_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	int ret = 1, rc;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach after the repair: %s", strerror(errno));
	rc = mdevx_share_import(dev, "c0", MDEVX_OBJ_FLOW_COUNTER, &imp);
	ROLE_CHECK(rc == 0, "import after the repair: %s", strerror(-rc));
	rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	ROLE_CHECK(rc == 0 && st.packets == s->packets && st.bytes == s->bytes,
		   "query: %d, %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64, rc,
		   st.packets, st.bytes, s->packets, s->bytes);
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport: %s", strerror(errno));
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] attacher close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(scribble_attacher, role_attacher);

/*
 * Refresh requests (MP_OP_REFRESH messages to the primary) for c0, c2 and
 * c3 in turn, back to back, until stop.
 */
static int
role_flooder(int argc, char **argv)
{
	struct scribble_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t imp[3];
	const char *names[3] = { "c0", "c2", "c3" };
	unsigned int nb = 0;
	uint64_t n = 0;
	int ret = 1, rc;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	for (; nb < RTE_DIM(names); nb++) {
		rc = mdevx_share_import(dev, names[nb], MDEVX_OBJ_FLOW_COUNTER, &imp[nb]);
		ROLE_CHECK(rc == 0, "import %s: %s", names[nb], strerror(-rc));
	}
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		rc = mdevx_share_counter_refresh(dev, imp[n % nb], 0);
		if (rc != 0 && rc != -ETIMEDOUT)
			s->bad = rc;
		ROLE_CHECK(rc == 0 || rc == -ETIMEDOUT, "refresh request: %s", strerror(-rc));
		n++;
	}
	s->requests = n;
	ret = 0;
out:
	for (unsigned int i = 0; i < nb; i++)
		mdevx_share_unimport(dev, imp[i]);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] flooder close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(scribble_flooder, role_flooder);

/* ---- fixture ---- */

static int
suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct scribble_sync));
}

static void
suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

static int
case_setup(void)
{
	return test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct scribble_sync));
}

static void
case_teardown(void)
{
	test_children_kill(&children);
	if (pdev != NULL && mdevx_share_dev_close(pdev) != 0)
		printf("share close: %s\n", strerror(errno));
	pdev = NULL;
}

/*
 * Bulk "c<i>" of BULK counters on pdev with traffic on its counter 0,
 * published; its object id in *@p id (optional). 0 or -1.
 */
static int
publish_bulk(unsigned int i, uint64_t packets, uint64_t bytes, uint32_t *id)
{
	struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), BULK);
	char name[16];

	if (cnt == NULL) {
		printf("counter alloc: %s\n", strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "c%u", i);
	if (swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(cnt), packets, bytes) != 0 ||
	    mdevx_share_publish(pdev, name, cnt) != 0) {
		printf("inject or publish %s: %s\n", name, strerror(errno));
		mdevx_obj_destroy(cnt);
		return -1;
	}
	if (id != NULL)
		*id = test_obj_id(cnt);
	return 0;
}

/* Withdraw every record the primary lists: the number withdrawn, or -1. */
static int
withdraw_listed(void)
{
	struct mdevx_share_record rec;
	int n = 0, rc;

	while (mdevx_share_record_next(pdev, 0, &rec) >= 0) {
		rc = mdevx_share_withdraw(pdev, rec.name, NULL);
		if (rc != 0) {
			printf("withdraw %s: %s\n", rec.name, strerror(-rc));
			return -1;
		}
		n++;
	}
	return n;
}

/* ---- cases ---- */

static int
test_scribble_header(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .counter_period_ms = PERIOD_MS };
	struct scribble_sync *s = sync_mz->addr;
	uint64_t repairs0;

	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	s->packets = 31;
	s->bytes = 31 * 64;
	for (unsigned int i = 0; i < NB_BULKS; i++)
		TEST_ASSERT_SUCCESS(publish_bulk(i, s->packets, s->bytes, NULL), "publish");
	repairs0 = mdevx_share_reg_repairs(mdevx_share_dev_reg(pdev));
	for (unsigned int i = 0; i < RTE_DIM(hdr_words); i++) {
		const char *argv[] = { hdr_words[i].name };

		s->repaired = 0;
		s->repair_us = 0;
		TEST_ASSERT(test_children_spawn(&children, "scribble_hdr_rogue", 1, argv) > 0,
			    "spawn");
		TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS),
				    "the rogue of %s failed", hdr_words[i].name);
		TEST_ASSERT(s->repaired, "%s: no repair", hdr_words[i].name);
		printf("header word %s repaired %.1f ms and %" PRIu64 " service rounds after the "
		       "write (period %d ms)\n", hdr_words[i].name, s->repair_us / 1e3,
		       s->repair_rounds, PERIOD_MS);
		/*
		 * By the next round: at most the round under way at the write
		 * and the one that repairs. Counted in rounds, not timed: a
		 * loaded machine delays rounds.
		 */
		TEST_ASSERT(s->repair_rounds <= 2, "%s repaired after %" PRIu64 " rounds",
			    hdr_words[i].name, s->repair_rounds);
		TEST_ASSERT(test_children_spawn(&children, "scribble_attacher", 0, NULL) > 0,
			    "spawn");
		TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS),
				    "no attach after the repair of %s", hdr_words[i].name);
	}
	TEST_ASSERT(mdevx_share_reg_repairs(mdevx_share_dev_reg(pdev)) >=
		    repairs0 + RTE_DIM(hdr_words), "repairs not counted");
	TEST_ASSERT_EQUAL(withdraw_listed(), NB_BULKS, "withdrawn");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close: %s", strerror(errno));
	pdev = NULL;
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

#define NB_RECS 8

static int
test_scribble_records_listing(void)
{
	struct mdevx_share_conf conf = { .capacity = 16,
					 .counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF };
	uint32_t ids[NB_RECS];
	bool seen[NB_RECS] = { false };
	struct mdevx_share_record rec;
	struct mdevx_share_reg *reg;
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	unsigned int nb = 0;
	int64_t i = -1;
	int n;

	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	for (unsigned int k = 0; k < NB_RECS; k++)
		TEST_ASSERT_SUCCESS(publish_bulk(k, k + 1, 64 * (k + 1), &ids[k]), "publish");
	/* Every slot in use scribbled, each its own way. */
	reg = mdevx_share_dev_reg(pdev);
	for (uint32_t k = 0; k < mdevx_share_reg_capacity(reg); k++) {
		size_t len;
		uint8_t *r = mdevx_share_reg_raw_record(reg, k, &len);
		uint32_t v;

		TEST_ASSERT(r != NULL && len >= 256, "raw record %u", k);
		switch (k % 6) {
		case 0:
			memset(r, 0, len);
			break;
		case 1:
			memset(r, 0xff, len);
			break;
		case 2:
			memcpy(&v, r, 4);
			v |= 1;				/* sequence odd: "being written" */
			memcpy(r, &v, 4);
			break;
		case 3:
			memset(r + 22, 0, 2);		/* state FREE */
			break;
		case 4:
			r[64] ^= 0x20;			/* another name */
			break;
		default:
			for (size_t b = 0; b < len; b++) {
				rng ^= rng << 13;
				rng ^= rng >> 7;
				rng ^= rng << 17;
				r[b] = (uint8_t)rng;
			}
			break;
		}
	}
	while ((i = mdevx_share_record_next(pdev, (uint32_t)(i + 1), &rec)) >= 0) {
		unsigned int k;

		TEST_ASSERT(sscanf(rec.name, "c%u", &k) == 1 && k < NB_RECS && !seen[k],
			    "listed \"%s\" in slot %" PRId64, rec.name, i);
		TEST_ASSERT(rec.kind == MDEVX_OBJ_FLOW_COUNTER && !rec.withdrawn &&
			    rec.object_id == ids[k] && rec.bulk_size == BULK &&
			    rec.owner_pid == getpid(),
			    "%s: kind %d withdrawn %d object %u (want %u) bulk %u pid %d", rec.name,
			    (int)rec.kind, (int)rec.withdrawn, rec.object_id, ids[k],
			    rec.bulk_size, (int)rec.owner_pid);
		seen[k] = true;
		nb++;
	}
	TEST_ASSERT_EQUAL(nb, NB_RECS, "records listed by the primary after the scribble");
	n = withdraw_listed();
	TEST_ASSERT_EQUAL(n, NB_RECS, "records withdrawn");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), 0, "records left");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close: %s", strerror(errno));
	pdev = NULL;
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

struct mz_prefix {
	const char *prefix;
	const struct rte_memzone *mz;
};

static void
mz_prefix_cb(const struct rte_memzone *mz, void *arg)
{
	struct mz_prefix *f = arg;

	if (strncmp(mz->name, f->prefix, strlen(f->prefix)) == 0)
		f->mz = mz;
}

/*
 * The snapshot area's slot layout (drivers/common/mlx5/share/
 * mdevx_share_snap.c): a 128-byte header, then 64-byte slots; a slot's
 * offset (in counters) at byte 40, its length at 44.
 */
#define SNAP_HDR 128
#define SNAP_SLOT 64
#define SLOT_OFFSET 40

static int
test_scribble_snap_offset(void)
{
	/* One round a minute: nothing rewrites the slot during the case. */
	struct mdevx_share_conf conf = { .capacity = 8, .counter_period_ms = 60000,
					 .snapshot_counters = SNAP_CAP };
	const uint32_t bad[] = {
		SNAP_CAP - 1, SNAP_CAP - BULK + 1, SNAP_CAP, SNAP_CAP + 1,
		UINT32_MAX - BULK + 2, UINT32_MAX,
	};
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_counter_snap sn;
	struct mz_prefix f = { "mdevx_sn_", NULL };
	struct mdevx_share_record rec;
	mdevx_share_imp_t imp;
	uint32_t *off, orig;
	int64_t idx;
	int rc = -1;

	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_bulk(0, 5, 320, NULL), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "c0", MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	/* Its first refresh, at publish. */
	for (int t = 0; t < 1000 && rc != 0; t++) {
		rc = mdevx_share_counter_read(pdev, imp, 0, BULK, st, &sn);
		if (rc != 0)
			usleep(2000);
	}
	TEST_ASSERT(rc == 0 && st[0].packets == 5 && st[0].bytes == 320, "first read: %d", rc);
	idx = mdevx_share_record_next(pdev, 0, &rec);
	TEST_ASSERT(idx >= 0, "no record");
	rte_memzone_walk(mz_prefix_cb, &f);
	TEST_ASSERT_NOT_NULL(f.mz, "no snapshot memzone");
	TEST_ASSERT(f.mz->len >= SNAP_HDR + (size_t)8 * SNAP_SLOT + (size_t)SNAP_CAP * 16,
		    "snapshot memzone of %zu bytes", f.mz->len);
	off = (uint32_t *)((uint8_t *)f.mz->addr + SNAP_HDR + (size_t)idx * SNAP_SLOT +
			   SLOT_OFFSET);
	orig = __atomic_load_n(off, __ATOMIC_RELAXED);
	TEST_ASSERT(orig <= SNAP_CAP - BULK, "offset %u", orig);
	for (unsigned int k = 0; k < RTE_DIM(bad); k++) {
		__atomic_store_n(off, bad[k], __ATOMIC_RELAXED);
		/* The whole bulk, and its last counter alone: both run past the area. */
		rc = mdevx_share_counter_read(pdev, imp, 0, BULK, st, &sn);
		TEST_ASSERT(rc == -EIO && errno == EIO, "offset %u of %u: read %d (%s)", bad[k],
			    SNAP_CAP, rc, strerror(-rc));
		rc = mdevx_share_counter_read(pdev, imp, BULK - 1, 1, st, &sn);
		TEST_ASSERT(rc == -EIO, "offset %u, last counter: read %d", bad[k], rc);
	}
	/* The last offset that fits reads (whatever the area holds there). */
	__atomic_store_n(off, SNAP_CAP - BULK, __ATOMIC_RELAXED);
	rc = mdevx_share_counter_read(pdev, imp, 0, BULK, st, &sn);
	TEST_ASSERT_SUCCESS(rc, "offset %u: read %d", SNAP_CAP - BULK, rc);
	__atomic_store_n(off, orig, __ATOMIC_RELAXED);
	rc = mdevx_share_counter_read(pdev, imp, 0, BULK, st, &sn);
	TEST_ASSERT(rc == 0 && st[0].packets == 5 && st[0].bytes == 320, "read back: %d", rc);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	TEST_ASSERT_EQUAL(withdraw_listed(), 1, "withdrawn");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close: %s", strerror(errno));
	pdev = NULL;
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

struct flood {
	mdevx_share_imp_t imp[NB_BULKS - 1];
	volatile uint32_t stop;
	uint64_t requests;
	int bad;		/* an unexpected return */
};

/* Refresh requests for every bulk but c1, back to back, until stop. */
static void *
flood_thread(void *arg)
{
	struct flood *f = arg;

	for (unsigned int i = 0; !__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE); i++) {
		int rc = mdevx_share_counter_refresh(pdev, f->imp[i % RTE_DIM(f->imp)], 0);

		if (rc != 0 && rc != -ETIMEDOUT) {
			f->bad = rc;
			break;
		}
		f->requests++;
	}
	return NULL;
}

/*
 * Refresh requests in a loop for c0, c2 and c3 (@p secondary: from a
 * secondary, through its messages; otherwise from a thread of the
 * primary), c1 only read.
 */
static int
refresh_flood_run(bool secondary)
{
	struct scribble_sync *s = sync_mz->addr;
	struct mdevx_share_conf conf = { .capacity = 16, .counter_period_ms = PERIOD_MS };
	struct mdevx_share_service_stats ss0, ss1, ss;
	uint64_t c0, c1, cmds, svc, rounds, bound, max_age = 0, max_round = 0, end;
	uint64_t seq_first = 0, seq_last = 0, rnd_first = 0, rnd_last = 0;
	struct mdevx_counter_stats st;
	struct mdevx_share_counter_snap sn;
	struct flood fl = { .stop = 0, .requests = 0, .bad = 0 };
	mdevx_share_imp_t imp[NB_BULKS];
	uint64_t requests;
	char name[16];
	pthread_t t;
	int rc;

	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	for (unsigned int i = 0; i < NB_BULKS; i++)
		TEST_ASSERT_SUCCESS(publish_bulk(i, 3, 192, NULL), "publish");
	for (unsigned int i = 0; i < NB_BULKS; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, name, MDEVX_OBJ_FLOW_COUNTER,
						       &imp[i]), "import");
		TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp[i], 5000), "refresh");
	}
	if (secondary) {
		TEST_ASSERT(test_children_spawn(&children, "scribble_flooder", 0, NULL) > 0,
			    "spawn");
		TEST_ASSERT(test_wait_at_least(&s->ready, 1, 20000, &s->failed),
			    "flooder not ready");
	}
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ss0), "stats");
	TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, &c0),
			    "command count");
	for (unsigned int i = 0, j = 0; i < NB_BULKS; i++)
		if (i != 1)
			fl.imp[j++] = imp[i];
	if (!secondary)
		TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, flood_thread, &fl), "thread");
	end = test_now_ms() + FLOOD_MS;
	rc = 0;
	while (test_now_ms() < end) {
		rc = mdevx_share_counter_read(pdev, imp[1], 0, 1, &st, &sn);
		if (rc == -EAGAIN)
			continue;
		if (rc != 0)
			break;
		if (sn.age_ns > max_age)
			max_age = sn.age_ns;
		if (mdevx_share_service_stats(pdev, &ss) != 0)
			continue;
		if (ss.last_round_ns > max_round)
			max_round = ss.last_round_ns;
		/* The untouched bulk's refreshes against the rounds, read side by side. */
		if (seq_first == 0) {
			seq_first = sn.refresh_seq;
			rnd_first = ss.refreshes;
		}
		seq_last = sn.refresh_seq;
		rnd_last = ss.refreshes;
		usleep(500);
	}
	TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, OP_QUERY_FLOW_COUNTER, &c1),
			    "command count");
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ss1), "stats");
	if (secondary) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		TEST_ASSERT_SUCCESS(test_children_wait(&children, CHILD_TIMEOUT_MS),
				    "the flooder failed");
		requests = s->requests;
		fl.bad = s->bad;
	} else {
		__atomic_store_n(&fl.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		requests = fl.requests;
	}
	TEST_ASSERT_SUCCESS(rc, "read of the untouched bulk: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(fl.bad, "refresh request: %s", strerror(-fl.bad));
	cmds = c1 - c0;
	rounds = ss1.refreshes - ss0.refreshes;
	/*
	 * One command per bulk and round (a round across either end of the
	 * window), and per bulk asked for one refresh on request per period.
	 */
	bound = (rounds + 1) * NB_BULKS + (NB_BULKS - 1) * (FLOOD_MS / PERIOD_MS + 1);
	printf("%s: %" PRIu64 " refresh requests in %d ms: %" PRIu64 " QUERY_FLOW_COUNTER "
	       "(bound %" PRIu64 "), %" PRIu64 " rounds; the untouched bulk refreshed %" PRIu64
	       " times in %" PRIu64 " rounds, its largest age %.1f ms (longest round %.1f ms)\n",
	       secondary ? "secondary" : "primary", requests, FLOOD_MS, cmds, bound, rounds,
	       seq_last - seq_first, rnd_last - rnd_first, max_age / 1e6, max_round / 1e6);
	TEST_ASSERT(requests > 100, "only %" PRIu64 " requests", requests);
	TEST_ASSERT(cmds <= bound, "%" PRIu64 " commands, over %" PRIu64, cmds, bound);
	/*
	 * The service's own count agrees: it counts a command as it sends it,
	 * the device as it gets it, and its window (ss0..ss1) holds the
	 * device's (c0..c1): one command in flight at c0, a round begun
	 * before ss1.
	 */
	svc = ss1.commands - ss0.commands;
	TEST_ASSERT(svc + 1 >= cmds && svc <= cmds + NB_BULKS, "device %" PRIu64 ", service %"
		    PRIu64, cmds, svc);
	/* rounds not crowded out (each starts a period after the last one started) */
	TEST_ASSERT(4 * rounds >= 3 * FLOOD_MS / PERIOD_MS, "%" PRIu64 " rounds in %d ms",
		    rounds, FLOOD_MS);
	/*
	 * The flood does not starve the untouched bulk: each round refreshes
	 * it, and only rounds do (nobody asks for it). Counted, not timed: a
	 * loaded machine delays rounds, and the age with them (printed above).
	 * Each end of the window may hold a round whose query of this bulk
	 * falls on the other side of a read.
	 */
	TEST_ASSERT(rnd_last - rnd_first >= 3 && seq_last - seq_first + 2 >= rnd_last - rnd_first &&
		    seq_last - seq_first <= rnd_last - rnd_first + 2, "the untouched bulk refreshed "
		    "%" PRIu64 " times in %" PRIu64 " rounds", seq_last - seq_first,
		    rnd_last - rnd_first);
	/*
	 * A request right after is coalesced, and answered by the next round
	 * at the latest (counted in rounds: a loaded machine delays them).
	 */
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ss0), "stats");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_refresh(pdev, imp[0], REPAIR_WAIT_MS),
			    "refresh after the flood: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_service_stats(pdev, &ss1), "stats");
	TEST_ASSERT(ss1.refreshes - ss0.refreshes <= 2, "refresh after the flood answered "
		    "after %" PRIu64 " rounds", ss1.refreshes - ss0.refreshes);
	for (unsigned int i = 0; i < NB_BULKS; i++)
		TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp[i]), "unimport");
	TEST_ASSERT_EQUAL(withdraw_listed(), NB_BULKS, "withdrawn");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close: %s", strerror(errno));
	pdev = NULL;
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_refresh_flood(void)
{
	return refresh_flood_run(false);
}

static int
test_refresh_flood_secondary(void)
{
	return refresh_flood_run(true);
}

static struct unit_test_suite scribble_suite = {
	.suite_name = "mlx5 devx share scribbles and request floods",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_scribble_header),
		TEST_CASE_ST(case_setup, case_teardown, test_scribble_records_listing),
		TEST_CASE_ST(case_setup, case_teardown, test_scribble_snap_offset),
		TEST_CASE_ST(case_setup, case_teardown, test_refresh_flood),
		TEST_CASE_ST(case_setup, case_teardown, test_refresh_flood_secondary),
		TEST_CASES_END()
	}
};

static int
test_share_scribble(void)
{
	return unit_test_suite_runner(&scribble_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_scribble_autotest, test_share_scribble);

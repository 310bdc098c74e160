/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_badinput_autotest: every public call of libmdevx_share
 * with bad input gets its documented errno (and rte_errno), and the
 * registry, the imports and the device keep their state; corrupted,
 * forged and foreign records, closed devices and handles, secondaries
 * that call what only a primary may.
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
#include <unistd.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_fixture.h"
#include "test_share_util.h"

/* ------------------------------------------------------------------ */
/* mlx5_devx_share_badinput_autotest                                   */
/* ------------------------------------------------------------------ */

/* State that a refused call must leave alone. */
struct state_snap {
	uint32_t records, imports, device;
};

static int
snap(struct state_snap *st)
{
	st->records = mdevx_share_record_count(pdev);
	st->imports = mdevx_share_dev_imports(pdev);
	return test_dev_total(ctl, DEV, &st->device);
}

/*
 * Names publish refuses (a byte outside [A-Za-z0-9._:/-]), and one of
 * every character it takes.
 */
static const char *const bad_names[] = {
	"a b", "tab\t", "new\nline", "esc\x1b[2J", "quote\"", "back\\slash", "del\x7f",
	"star*", "semi;colon", "dollar$", "at@", "plus+", "\xc3\xa9t\xc3\xa9", "\xff",
	"\x01", "ok-but-last ",
};
#define FULL_SET_NAME "ABCXYZabcxyz0189._:/-"

#define SAME_STATE(a) do {						\
	struct state_snap _b;						\
	TEST_ASSERT_SUCCESS(snap(&_b), "counts");			\
	TEST_ASSERT(_b.records == (a).records && _b.imports == (a).imports && \
		    _b.device == (a).device, "state changed: records %u->%u imports " \
		    "%u->%u device objects %u->%u", (a).records, _b.records,	\
		    (a).imports, _b.imports, (a).device, _b.device);	\
} while (0)

static int
test_bad_null_and_names(void)
{
	struct share_sync *s = sync_mz->addr;
	char longname[MDEVX_SHARE_NAME_MAX + 2];
	struct mdevx_counter_stats st;
	struct mdevx_share_record rec;
	struct mdevx_tir_attr attr;
	mdevx_share_imp_t imp = { 0 }, bogus = { .id = 0x12345678ULL << 32 | 3 };
	struct mdevx_share_dev *dev2;
	struct mdevx_ctx *other;
	struct mdevx_obj *cnt;
	struct state_snap a;
	int rc, err;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';

	TEST_ASSERT_NULL_ERRNO(mdevx_share_dev_open(NULL, NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_share_dev_open(DEVSTR, NULL), EEXIST);
	/* Closed twice: the closed device is not read again (ASan: use after free). */
	dev2 = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev2, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev2), "close");
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev2), ENOENT);
	/* we are the primary */
	TEST_ASSERT_NULL_ERRNO(mdevx_share_dev_attach(DEVSTR), EPERM);
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(NULL, "x", NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(NULL, "ctr0", NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(pdev, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(NULL, "ctr0", &rec), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, "ctr0", NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, NULL, &rec), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(NULL, "ctr0", MDEVX_OBJ_ANY, &imp), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, NULL, MDEVX_OBJ_ANY, &imp), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_ANY, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr0", (enum mdevx_obj_kind)7, &imp),
			     EINVAL);
	/* an object kind that no record holds */
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_TD, &imp), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(NULL, imp), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(NULL, imp, 0, 1, 0, &st), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_tir_query(NULL, imp, &attr), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_share_import_obj(NULL, imp), EINVAL);
	/* The counts of no device: 0, a real count too, so errno says why. */
	TEST_ASSERT_ZERO_ERRNO(mdevx_share_record_count(NULL), EINVAL);
	TEST_ASSERT_ZERO_ERRNO(mdevx_share_dev_imports(NULL), EINVAL);
	TEST_ASSERT_ZERO_ERRNO(mdevx_share_dev_cookie(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_share_dev_ctx(NULL), EINVAL);
	SAME_STATE(a);

	/* Unknown and too long names. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, "nope", &rec), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "nope", MDEVX_OBJ_ANY, &imp), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(pdev, "nope", NULL), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, longname, &rec), ENAMETOOLONG);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, longname, MDEVX_OBJ_ANY, &imp),
			     ENAMETOOLONG);
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(pdev, longname, NULL), ENAMETOOLONG);
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 1);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, longname, cnt), ENAMETOOLONG);
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, "", cnt), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, "ctr0", cnt), EEXIST);
	/* Names with a byte outside [A-Za-z0-9._:/-]: refused, nothing made. */
	for (unsigned int i = 0; i < RTE_DIM(bad_names); i++) {
		TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, bad_names[i], cnt), EINVAL);
		TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, bad_names[i], &rec), ENOENT);
	}
	/* Wrong kinds: a transport domain is not shareable. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, "td", chain.td), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_TIR, &imp), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "tir_rss", MDEVX_OBJ_FLOW_COUNTER, &imp),
			     EPROTOTYPE);
	/* Handles that are not imports, or of another kind. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(pdev, bogus), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, bogus, 0, 1, 0, &st), ENOENT);
	SAME_STATE(a);
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "tir_rss", MDEVX_OBJ_TIR, &imp), "imp");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), EPROTOTYPE);
	/* Double unimport. */
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(pdev, imp), ENOENT);
	/* Handles just past the import slots there are (one chunk of 4096). */
	for (uint64_t id = 4096; id <= 4098; id++) {
		mdevx_share_imp_t past = { .id = id };

		TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(pdev, past), ENOENT);
		TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, past, 0, 1, 0, &st), ENOENT);
	}
	TEST_ASSERT_RC_ERRNO(mdevx_share_tir_query(pdev, imp, &attr), ENOENT);
	SAME_STATE(a);
	/* Published once, owned by the device: a second name is refused. */
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "dup1", cnt), "publish");
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(pdev, "dup2", cnt), EEXIST);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, "dup2", &rec), ENOENT);
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "dup1", NULL), "withdraw");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), a.records, "records");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(cnt), ENOENT);
	/* Every character of the set, in one name. */
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 1);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, FULL_SET_NAME, cnt), "publish %s: %s",
			    FULL_SET_NAME, strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(pdev, FULL_SET_NAME, &rec), "lookup");
	TEST_ASSERT(strcmp(rec.name, FULL_SET_NAME) == 0, "name %s", rec.name);
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, FULL_SET_NAME, NULL), "withdraw");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), a.records, "records");
	/*
	 * An object of another context (another uverbs file): its handle means
	 * nothing, or another object, on the device's context.
	 */
	other = mdevx_open(DEVSTR);
	TEST_ASSERT_NOT_NULL(other, "open: %s", strerror(errno));
	cnt = mdevx_counter_alloc(other, 128);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	rc = mdevx_share_publish(pdev, "other_ctx", cnt);
	err = errno;
	if (rc != 0)
		mdevx_obj_destroy(cnt);
	TEST_ASSERT_EQUAL(rc, -EXDEV, "publish of another context's object: %d", rc);
	TEST_ASSERT_EQUAL(err, EXDEV, "errno %d", err);
	TEST_ASSERT_SUCCESS(mdevx_close(other), "close");
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_ctx(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_ctx(cnt), ENOENT);
	TEST_ASSERT(mdevx_obj_ctx(chain.td) == mdevx_share_dev_ctx(pdev), "context of an object");
	return TEST_SUCCESS;
}

/*
 * rte_errno of the calls the case above does not refuse, and of errors
 * that come from libmdevx (the range of a query, a destroy that fails):
 * each refused call sets it to the errno it reports.
 */
static int
test_bad_rte_errno(void)
{
	struct share_sync *s = sync_mz->addr;
	mdevx_share_imp_t ctr, tir, bogus = { .id = 0x12345678ULL << 32 | 3 };
	mdevx_share_rule_t rule = { .id = 0x12345678ULL << 32 | 1 }, r;
	struct mdevx_share_rule_attr rattr = { .dest = MDEVX_RULE_DEST_OBJ };
	struct mdevx_share_service_stats svc;
	struct mdevx_counter_stats st[2];
	struct mdevx_share_record rec;
	struct mdevx_share_dev *dev2;
	uint32_t own, peers, handle;
	int64_t next;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &ctr),
			    "import");
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "tir_rss", MDEVX_OBJ_TIR, &tir), "import");
	/* the walk: a bad argument is -1 with errno; its end -1 without */
	rte_errno = 0;
	errno = 0;
	next = mdevx_share_record_next(pdev, 0, NULL);
	TEST_ASSERT(next == -1 && errno == EINVAL, "record_next: %" PRId64 " errno %d", next,
		    errno);
	TEST_ASSERT_ERRNO_PAIR(mdevx_share_record_next(pdev, 0, NULL), EINVAL);
	rte_errno = 0;
	errno = 0;
	next = mdevx_share_record_next(NULL, 0, &rec);
	TEST_ASSERT(next == -1 && errno == EINVAL, "record_next: %" PRId64 " errno %d", next,
		    errno);
	TEST_ASSERT_ERRNO_PAIR(mdevx_share_record_next(NULL, 0, &rec), EINVAL);
	rte_errno = 0;
	errno = 0;
	next = mdevx_share_record_next(pdev, UINT32_MAX, &rec);
	TEST_ASSERT(next == -1 && errno == 0 && rte_errno == 0,
		    "end of the walk: %" PRId64 " errno %d rte_errno %d", next, errno, rte_errno);
	/* a primary does not ask itself for its devices */
	TEST_ASSERT_RC_ERRNO(mdevx_share_primary_devs(NULL, 0), EPERM);
	TEST_ASSERT_RC_ERRNO(mdevx_share_primary_devs(NULL, 1), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_peers(DEVSTR, NULL, 1), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_peers(NULL, NULL, 0), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_peers("rdma:mdevx_nosuch", NULL, 0), ENODEV);
	/* rules */
	rte_errno = 0;
	errno = 0;
	r = mdevx_share_rule_create(pdev, NULL, &rattr);
	TEST_ASSERT(r.id == 0 && errno == EINVAL, "rule without a matcher: %" PRIu64
		    " errno %d", r.id, errno);
	TEST_ASSERT_ERRNO_PAIR(mdevx_share_rule_create(pdev, NULL, &rattr), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_destroy(pdev, rule), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_destroy(NULL, rule), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(pdev, rule), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_handle(pdev, rule, &handle), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_handle(pdev, rule, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_rules(NULL, &own, &peers), EINVAL);
	/* the counter snapshot: this device runs no service */
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, ctr, 0, 1, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, bogus, 0, 1, st, NULL), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, ctr, 0, 1, st, NULL), ENODATA);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_read(pdev, ctr, 127, 2, st, NULL), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(NULL, ctr, 10), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(pdev, tir, 10), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_refresh(pdev, ctr, 10), ENODATA);
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(pdev, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_service_stats(pdev, &svc), ENODATA);
	/* errors of libmdevx pass through with their errno */
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, ctr, 127, 2, 0, st), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_tir_query(pdev, tir, NULL), EINVAL);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, ctr), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, tir), "unimport");
	/*
	 * A destroy that fails (once), on a device of its own: the withdrawal
	 * reports it, the record stays withdrawn, the close destroys it.
	 */
	dev2 = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev2, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev2, "eio", 1), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV2, OP_DEALLOC_FLOW_COUNTER, 1,
						STAT_INTERNAL_ERR, 0x5a5a, 0), "fault");
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(dev2, "eio", NULL), EIO);
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(dev2, "eio", &rec), "lookup: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rec.withdrawn, 1, "record not withdrawn");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev2), "close: %s", strerror(errno));
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_bad_corrupted_and_stale(void)
{
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_reg *reg = mdevx_share_dev_reg(pdev);
	struct mdevx_counter_stats st;
	struct mdevx_share_record rec;
	struct mdevx_share_rec_info info;
	mdevx_share_imp_t imp, imp2;
	struct mdevx_obj *cnt;
	struct state_snap a;
	uint32_t idx;
	uint8_t *raw;
	size_t rlen;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(reg, "ctr1", &info, &idx, NULL), "find");
	raw = mdevx_share_reg_raw_record(reg, idx, &rlen);
	TEST_ASSERT_NOT_NULL(raw, "raw record");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	/*
	 * A flipped bit in the last export buffer byte in use (the buffer is
	 * at byte 112 of a record, doc/share.rst; bytes past its length are
	 * not part of the record).
	 */
	TEST_ASSERT(112 + info.export_len <= rlen, "record length");
	raw[112 + info.export_len - 1] ^= 0x04;
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), EBADMSG);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(pdev, "ctr1", &rec), EBADMSG);
	SAME_STATE(a);
	raw[112 + info.export_len - 1] ^= 0x04;
	/* A record whose writer died mid-write (odd sequence): EAGAIN, no hang. */
	raw[0] |= 1;
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), EAGAIN);
	raw[0] &= (uint8_t)~1;
	SAME_STATE(a);
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), "import");

	/* Stale generation: withdraw, publish again under the same name. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr1", NULL), "withdraw");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), ESTALE);
	TEST_ASSERT_NULL_ERRNO(mdevx_share_import_obj(pdev, imp), ESTALE);
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 128);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "ctr1", cnt), "republish");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), ESTALE);
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp2), "new");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(pdev, imp2, 0, 1, 0, &st), "new query");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "stale unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp2), "unimport");
	return TEST_SUCCESS;
}

static int
test_bad_full_registry(void)
{
	struct mdevx_share_conf conf = { .capacity = 4, .withdraw_timeout_ms = 500 };
	struct mdevx_obj *cnt[5];
	struct mdevx_share_dev *small;
	char name[16];
	uint32_t before, after;

	small = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(small, "open %s: %s", DEVSTR2, strerror(errno));
	for (int i = 0; i < 5; i++) {
		cnt[i] = mdevx_counter_alloc(mdevx_share_dev_ctx(small), 1);
		TEST_ASSERT_NOT_NULL(cnt[i], "alloc");
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		TEST_ASSERT_SUCCESS(mdevx_share_publish(small, name, cnt[i]), "publish %d", i);
	}
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV2, &before), "counts");
	TEST_ASSERT_RC_ERRNO(mdevx_share_publish(small, "c4", cnt[4]), ENOSPC);
	TEST_ASSERT_EQUAL(mdevx_share_record_count(small), 4, "records");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV2, &after), "counts");
	TEST_ASSERT_EQUAL(before, after, "device objects changed");
	/* Withdrawing one makes room again. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(small, "c0", NULL), "withdraw");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(small, "c4", cnt[4]), "publish after room");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(small), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* A counter query through an import's wrapper, from a thread of its own. */
struct busy_query {
	struct mdevx_obj *obj;
	uint32_t started;
	int rc;
};

static void *
busy_query_thread(void *p)
{
	struct busy_query *q = p;
	struct mdevx_counter_stats st;

	__atomic_store_n(&q->started, 1, __ATOMIC_RELEASE);
	q->rc = mdevx_counter_query(q->obj, 0, 1, 0, &st);
	return NULL;
}

/*
 * mdevx_share_unimport() while another thread's query through the
 * import's wrapper is in flight (the device delays its reply 400 ms):
 * EBUSY, nothing released, and the device usable at once by the other
 * calls (the import lock was given back); once the query ended, the
 * unimport succeeds. A query that had not reached the device yet makes
 * the unimport succeed first: the test then tries again.
 */
static int
test_bad_unimport_busy(void)
{
	int attempt;

	TEST_ASSERT_SUCCESS(publish_counter(pdev, "busy", 128), "publish: %s", strerror(errno));
	for (attempt = 0; attempt < 5; attempt++) {
		struct busy_query q = { .obj = NULL };
		mdevx_share_imp_t imp;
		uint32_t imports;
		pthread_t th;
		int rc;

		TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "busy", MDEVX_OBJ_FLOW_COUNTER, &imp),
				    "import");
		q.obj = mdevx_share_import_obj(pdev, imp);
		TEST_ASSERT_NOT_NULL(q.obj, "import_obj: %s", strerror(errno));
		imports = mdevx_share_dev_imports(pdev);
		TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, 1, 0, 0,
							400000), "delay fault");
		TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, busy_query_thread, &q), "thread");
		while (!__atomic_load_n(&q.started, __ATOMIC_ACQUIRE))
			usleep(1000);
		usleep(100000);
		rc = mdevx_share_unimport(pdev, imp);
		if (rc == -EBUSY) {
			/* the lock was given back: these calls do not wait for the query */
			TEST_ASSERT_EQUAL(mdevx_share_dev_imports(pdev), imports, "imports");
		}
		pthread_join(th, NULL);
		swdev_ctl_set_fault(ctl, DEV, OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0);
		if (rc == 0)
			continue;	/* the query had not begun: it proves nothing */
		TEST_ASSERT_EQUAL(rc, -EBUSY, "unimport during the query: %d", rc);
		TEST_ASSERT_SUCCESS(q.rc, "the query in flight failed");
		TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport after the query");
		TEST_ASSERT_EQUAL(mdevx_share_dev_imports(pdev), imports - 1, "imports");
		break;
	}
	TEST_ASSERT(attempt < 5, "the query never got in flight before the unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "busy", NULL), "withdraw");
	return TEST_SUCCESS;
}

/*
 * The primary's set of the objects it owns (open addressing, deletion by
 * backward shift): after withdrawals in a scattered order, every object
 * still published must be found, so that a second name for it is refused.
 */
static int
test_bad_owned_set(void)
{
	struct mdevx_share_conf conf = { .capacity = 32, .withdraw_timeout_ms = 500 };
	static const uint8_t order[] = { 5, 17, 0, 30, 11, 22, 3, 28, 9, 14, 25, 1, 19, 7, 31, 12 };
	struct mdevx_obj *cnt[32];
	struct mdevx_share_dev *dev;
	bool gone[32] = { false };
	char name[16];

	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open %s: %s", DEVSTR2, strerror(errno));
	for (int i = 0; i < 32; i++) {
		cnt[i] = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 1);
		TEST_ASSERT_NOT_NULL(cnt[i], "alloc");
		snprintf(name, sizeof(name), "o%d", i);
		TEST_ASSERT_SUCCESS(mdevx_share_publish(dev, name, cnt[i]), "publish %d", i);
	}
	for (size_t k = 0; k < sizeof(order); k++) {
		snprintf(name, sizeof(name), "o%u", order[k]);
		TEST_ASSERT_SUCCESS(mdevx_share_withdraw(dev, name, NULL), "withdraw %s", name);
		gone[order[k]] = true;
		for (int i = 0; i < 32; i++) {
			if (gone[i])
				continue;
			snprintf(name, sizeof(name), "again%d", i);
			TEST_ASSERT_RC_ERRNO(mdevx_share_publish(dev, name, cnt[i]), EEXIST);
		}
	}
	TEST_ASSERT_EQUAL(mdevx_share_record_count(dev), 16, "records");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * An import slot whose generation wraps is retired: a handle of its first
 * generation never names an import again (the free list hands the same
 * slot back first, so without that an import/unimport loop would make an
 * old handle valid again after 2^32 rounds). The test hook puts the slot
 * at the last generation instead of looping 2^32 times.
 */
static int
test_bad_handle_wrap(void)
{
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t h1, h2, h3;

	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "w0", 1), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "w0", MDEVX_OBJ_FLOW_COUNTER, &h1), "import");
	TEST_ASSERT_EQUAL(h1.id >> 32, 0u, "a new device's first slot is of generation 0");
	h2 = mdevx_share_test_slot_gen(dev, h1, UINT32_MAX);
	TEST_ASSERT(h2.id != 0 && h2.id != h1.id, "slot generation hook");
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(dev, h1), ENOENT);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, h2), "unimport at the last generation");
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "w0", MDEVX_OBJ_FLOW_COUNTER, &h3), "import");
	TEST_ASSERT((uint32_t)h3.id != (uint32_t)h1.id, "the wrapped slot was handed out again");
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(dev, h1), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(dev, h2), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 1u, "the new import");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, h3), "unimport");
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 0u, "imports left");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Import slots come in chunks of 4096, each threaded on the free list when
 * it is allocated. Two chunks and one more slot: every handle distinct,
 * the first and the last usable, and all of them released.
 */
#define MANY_IMPORTS (2 * 4096 + 1)
static int
test_bad_many_imports(void)
{
	static mdevx_share_imp_t imp[MANY_IMPORTS];
	static uint8_t seen[3 * 4096 + 1];	/* the slots of three chunks */
	struct mdevx_counter_stats st;
	struct mdevx_share_dev *dev;

	memset(seen, 0, sizeof(seen));
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "many", 1), "publish: %s", strerror(errno));
	for (uint32_t i = 0; i < MANY_IMPORTS; i++) {
		uint32_t slot;

		TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "many", MDEVX_OBJ_FLOW_COUNTER,
						       &imp[i]), "import %u: %s", i,
				    strerror(errno));
		/* the slot index: the low half, 1-based (0 is no handle) */
		slot = (uint32_t)imp[i].id;
		TEST_ASSERT(slot >= 1 && slot < RTE_DIM(seen), "import %u: slot %u", i, slot);
		TEST_ASSERT(!seen[slot], "import %u: slot %u handed out twice", i, slot);
		seen[slot] = 1;
	}
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), (uint32_t)MANY_IMPORTS, "imports");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(dev, imp[0], 0, 1, 0, &st), "query first");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(dev, imp[MANY_IMPORTS - 1], 0, 1, 0, &st),
			    "query last");
	for (uint32_t i = 0; i < MANY_IMPORTS; i++)
		TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, imp[i]), "unimport %u", i);
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 0u, "imports left");
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(dev, "many", NULL), "withdraw");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* Secondary: primary-only calls, and attach to a device nobody opened. */
static int
role_bad_secondary(int argc, char **argv)
{
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_share_conf conf = { 0 };
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(mdevx_share_dev_open(DEVSTR, &conf) == NULL && errno == EPERM, "open");
	ROLE_CHECK(mdevx_share_dev_attach("rdma:mlx5_9") == NULL && errno == ENODEV,
		   "attach to a device the primary did not open: %s", strerror(errno));
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_publish(dev, "x", NULL) == -EINVAL, "publish NULL");
	ROLE_CHECK(mdevx_share_withdraw(dev, "ctr0", NULL) == -EPERM, "withdraw");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_bad_secondary, role_bad_secondary);

static int
test_bad_secondary_calls(void)
{
	struct share_sync *s = sync_mz->addr;
	struct state_snap a;
	int rc;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	rc = test_mp_run("share_bad_secondary", NULL, 0, NULL, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	SAME_STATE(a);
	return TEST_SUCCESS;
}

/*
 * Another DPDK instance (its own primary, its own prefix and uverbs file)
 * publishes "shared" on DEV2 and writes the raw record bytes to a file.
 */
static int
role_foreign_primary(int argc, char **argv)
{
	struct mdevx_share_conf conf = { .capacity = 4 };
	struct mdevx_share_rec_info info;
	struct mdevx_share_dev *dev;
	uint32_t idx;
	size_t rlen;
	void *raw;
	FILE *f;
	int ret = 1;

	if (argc < 1)
		return 2;
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	if (dev == NULL)
		return 3;
	if (publish_counter(dev, "shared", 128) == 0 &&
	    mdevx_share_reg_lookup(mdevx_share_dev_reg(dev), "shared", &info, &idx, NULL) == 0 &&
	    (raw = mdevx_share_reg_raw_record(mdevx_share_dev_reg(dev), idx, &rlen)) != NULL &&
	    (f = fopen(argv[0], "w")) != NULL) {
		if (fwrite(raw, 1, rlen, f) == rlen)
			ret = 0;
		fclose(f);
	}
	mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_foreign_primary, role_foreign_primary);

/* A primary without EAL's IPC (--in-memory): sharing is refused. */
static int
role_no_ipc_primary(int argc, char **argv)
{
	struct mdevx_share_dev *dev;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	if (dev != NULL) {
		printf("open without IPC succeeded\n");
		mdevx_share_dev_close(dev);
		return 1;
	}
	if (errno != ENOTSUP) {
		printf("open without IPC: %s, want ENOTSUP\n", strerror(errno));
		return 1;
	}
	return 0;
}
REGISTER_TEST_SECONDARY(share_no_ipc_primary, role_no_ipc_primary);

/*
 * --in-memory disables EAL's IPC: secondaries could never attach, nor be
 * told of a withdrawal, so open says ENOTSUP (the library registers its
 * actions before EAL's initialisation; open registers them again, which
 * is what EAL refuses without IPC).
 */
static int
test_bad_no_ipc(void)
{
	char prefix[128];
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "%s_noipc", test_file_prefix());
	pid = test_mp_spawn_primary_eal("share_no_ipc_primary", prefix, "--in-memory", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT_EQUAL(test_mp_wait(pid, CHILD_TIMEOUT_MS), 0, "the --in-memory primary");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_bad_foreign_record(void)
{
	struct mdevx_share_conf conf = { .capacity = 4 };
	struct mdevx_share_rec_info info;
	struct mdevx_share_dev *dev;
	char prefix[128], path[] = "/tmp/mdevx-foreign-XXXXXX";
	const char *args[1] = { path };
	uint8_t foreign[512], *raw;
	mdevx_share_imp_t imp;
	size_t rlen, got;
	uint32_t idx, dev2_before, dev2_after;
	FILE *f;
	int fd, rc;

	fd = mkstemp(path);
	TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	snprintf(prefix, sizeof(prefix), "%s_foreign", test_file_prefix());
	rc = test_mp_run_primary("share_foreign_primary", prefix, 1, args, CHILD_TIMEOUT_MS);
	f = fopen(path, "r");
	got = f != NULL ? fread(foreign, 1, sizeof(foreign), f) : 0;
	if (f != NULL)
		fclose(f);
	unlink(path);
	TEST_ASSERT_EQUAL(rc, 0, "foreign primary exited with %d", rc);

	/* Our own record of the same name in the same slot, then the bytes. */
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open");
	TEST_ASSERT_SUCCESS(publish_counter(dev, "shared", 128), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(mdevx_share_dev_reg(dev), "shared", &info,
						   &idx, NULL), "find");
	raw = mdevx_share_reg_raw_record(mdevx_share_dev_reg(dev), idx, &rlen);
	TEST_ASSERT(raw != NULL && got == rlen, "record bytes: %zu of %zu", got, rlen);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV2, &dev2_before), "counts");
	/* Keep our sequence and link words, take everything else. */
	memcpy(raw + 8, foreign + 8, rlen - 8);
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(dev, "shared", MDEVX_OBJ_ANY, &imp), EXDEV);
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 0, "import made");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV2, &dev2_after), "counts");
	TEST_ASSERT_EQUAL(dev2_before, dev2_after, "device objects changed");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Secondary: attach and close DEVSTR, then stay alive without any device
 * until go: it must still answer withdrawals (nothing to unimport).
 * argv[0] == "nodev": the primary has no device open: attach is ENODEV.
 */
static int
role_idle_secondary(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev;
	uint64_t t0, dt;
	int ret = 1;

	ROLE_CHECK(s != NULL, "no sync memzone");
	if (argc > 0 && strcmp(argv[0], "nodev") == 0) {
		t0 = test_now_ms();
		dev = mdevx_share_dev_attach(DEVSTR);
		dt = test_now_ms() - t0;
		ROLE_CHECK(dev == NULL && errno == ENODEV, "attach with no device open: %s",
			   dev == NULL ? strerror(errno) : "success");
		ROLE_CHECK(dt < 1000, "ENODEV after %" PRIu64 " ms", dt);
		return 0;
	}
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	ret = 0;
out:
	return ret;
}
REGISTER_TEST_SECONDARY(share_idle_secondary, role_idle_secondary);

/* A secondary that closed its last device does not slow withdrawals down. */
static int
test_bad_idle_secondary(void)
{
	struct share_sync *s = sync_mz->addr;
	unsigned int acked = 99;
	uint64_t t0, dt;
	pid_t pid;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	pid = test_children_spawn(&children, "share_idle_secondary", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	t0 = test_now_ms();
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr0", &acked), "withdraw");
	dt = test_now_ms() - t0;
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	TEST_ASSERT_EQUAL(test_mp_wait(pid, CHILD_TIMEOUT_MS), 0, "secondary");
	/* The bound of the fixture is 3 s. */
	TEST_ASSERT(dt < 1000, "withdraw waited %" PRIu64 " ms for an idle secondary", dt);
	/* detached: not waited for (1 if its detach message was still on its way) */
	TEST_ASSERT(acked <= 1, "acknowledgements: %u", acked);
	return TEST_SUCCESS;
}

#define REATTACHES 1100	/* more than the primary's 1024 connection slots */

/* Secondary: REATTACHES attaches, each closed before the next. */
static int
role_reattach(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev;
	uint64_t t0 = test_now_ms();
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	for (int i = 0; i < REATTACHES; i++) {
		uint64_t t1 = test_now_ms();

		/* ENOSPC while the primary has not yet read 64 closes: wait for it */
		while ((dev = mdevx_share_dev_attach(DEVSTR)) == NULL && errno == ENOSPC &&
		       test_now_ms() - t1 < WAIT_MS)
			usleep(1000);
		ROLE_CHECK(dev != NULL, "attach %d: %s", i, strerror(errno));
		ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close %d: %s", i, strerror(errno));
	}
	printf("[%d] %d attaches in %" PRIu64 " ms\n", (int)getpid(), REATTACHES,
	       test_now_ms() - t0);
	ret = 0;
out:
	return ret;
}
REGISTER_TEST_SECONDARY(share_reattach, role_reattach);

/*
 * Every connection slot of the primary in turn (they are handed out round
 * robin): each close the secondary makes is read, and the primary ends
 * with no connection for the device.
 */
static int
test_bad_reattach(void)
{
	uint64_t t0;
	int rc;

	rc = test_mp_run("share_reattach", NULL, 0, NULL, 120000);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	t0 = test_now_ms();
	while (mdevx_share_test_peers(pdev) != 0 && test_now_ms() - t0 < WAIT_MS)
		usleep(1000);
	TEST_ASSERT_EQUAL(mdevx_share_test_peers(pdev), 0u, "connections the primary holds");
	return TEST_SUCCESS;
}

/* A primary that closed its devices answers attach requests with ENODEV. */
static int
test_bad_attach_after_close(void)
{
	const char *nodev[1] = { "nodev" };
	struct mdevx_share_dev *dev;
	int rc;

	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	rc = test_mp_run("share_idle_secondary", NULL, 1, nodev, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	return TEST_SUCCESS;
}

/*
 * Secondary: import "o" of DEV2, wait until the primary closed the device
 * (its registry memzone is freed, its memory reused): nothing reads the
 * registry any more, calls fail cleanly.
 */
static int
role_orphan(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL, *dev2 = NULL, *dev3 = NULL;
	mdevx_share_imp_t imp, imp2;
	const char *why;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR2);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "o", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0, "import: %s",
		   strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	why = closed_device_check(dev, "o", imp);
	ROLE_CHECK(why == NULL, "after the primary's close: %s", why);
	ROLE_CHECK(mdevx_share_record_count(dev) == 0, "count");
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
	/* The primary shares the device again: a new attach reaches it. */
	ROLE_CHECK(wait_at_least(&s->go, 2, WAIT_MS), "no second go from the primary");
	dev2 = mdevx_share_dev_attach(DEVSTR2);
	ROLE_CHECK(dev2 != NULL && dev2 != dev, "attach again: %s",
		   dev2 == NULL ? strerror(errno) : "the orphaned device");
	/* cached: the orphan is off the list, the new device found */
	dev3 = mdevx_share_dev_attach(DEVSTR2);
	ROLE_CHECK(dev3 == dev2, "attach a third time: %s",
		   dev3 == NULL ? strerror(errno) : "not the device attached before");
	ROLE_CHECK(mdevx_share_dev_close(dev3) == 0, "close the third reference");
	dev3 = NULL;
	ROLE_CHECK(mdevx_share_import(dev2, "o", MDEVX_OBJ_FLOW_COUNTER, &imp2) == 0,
		   "import after the second open: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_unimport(dev2, imp2) == 0, "unimport");
	ROLE_CHECK(mdevx_share_dev_close(dev2) == 0, "close the new device");
	dev2 = NULL;
	ret = 0;
out:
	if (dev3 != NULL)
		mdevx_share_dev_close(dev3);
	if (dev2 != NULL)
		mdevx_share_dev_close(dev2);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0)
		ret = 1;
	if (ret == 0)
		__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	return ret;
}
REGISTER_TEST_SECONDARY(share_orphan, role_orphan);

/* The primary closes a device while a secondary still has it attached. */
static int
test_bad_primary_closed(void)
{
	struct mdevx_share_conf conf = { .capacity = 1024 };
	struct share_sync *s = sync_mz->addr;
	const struct rte_memzone *junk;
	struct mdevx_share_dev *dev;
	void *old_reg;
	bool reused;
	size_t len;
	pid_t pid;
	int rc;

	memset(s, 0, sizeof(*s));
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "o", 128), "publish: %s", strerror(errno));
	len = mdevx_share_reg_size(conf.capacity);
	pid = test_children_spawn(&children, "share_orphan", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	old_reg = mdevx_share_reg_base(mdevx_share_dev_reg(dev));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	/*
	 * The freed registry memory is reused, with bytes that are no
	 * registry: the same size and alignment get the same place back.
	 */
	junk = rte_memzone_reserve_aligned("mdevx_t_junk", len, SOCKET_ID_ANY, 0, 64);
	if (junk != NULL)
		memset(junk->addr, 0xff, len);
	reused = junk != NULL && junk->addr == old_reg;
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	/* Share the device again: the secondary attaches anew. */
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	if (dev != NULL)
		publish_counter(dev, "o", 128);
	__atomic_store_n(&s->go, 2, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	if (junk != NULL)
		rte_memzone_free(junk);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	TEST_ASSERT_EQUAL(s->ready, 2, "secondary did not finish");
	/* Else the secondary never met the reused memory: nothing was shown. */
	TEST_ASSERT(reused, "the closed registry's memory was not reused by the next memzone");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Records whose checksum is valid (the registry's writer computed it) but
 * whose object id, bulk size or tirn, or RX ICM address disagree with the
 * genuine export buffer they carry. Only import's cross-check of the
 * record against its buffer can tell: the import must be refused with
 * EBADMSG, in the primary and in a secondary, and leave nothing behind.
 */
enum forged_field { FORGE_ID, FORGE_SIZE_OR_TIRN, FORGE_RX_ICM };

static const struct {
	const char *name;
	const char *genuine;		/* the record it is a copy of */
	enum forged_field field;
} forged_recs[] = {
	{ "fg_ctr_id", "fg_ctr", FORGE_ID },
	{ "fg_ctr_size", "fg_ctr", FORGE_SIZE_OR_TIRN },
	{ "fg_tir_id", "fg_tir", FORGE_ID },
	{ "fg_tir_tirn", "fg_tir", FORGE_SIZE_OR_TIRN },
	{ "fg_tir_icm", "fg_tir", FORGE_RX_ICM },
};

/* Secondary: every name of argv is a forged record: EBADMSG, no import. */
static int
role_forged_importer(int argc, char **argv)
{
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t imp;
	int ret = 1, rc;

	ROLE_CHECK(argc > 0, "no names");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	for (int i = 0; i < argc; i++) {
		errno = 0;
		rc = mdevx_share_import(dev, argv[i], MDEVX_OBJ_ANY, &imp);
		if (rc == 0)
			mdevx_share_unimport(dev, imp);
		ROLE_CHECK(rc == -EBADMSG && errno == EBADMSG, "forged record %s: import %d "
			   "(%s), want EBADMSG", argv[i], rc, rc == 0 ? "made" : strerror(-rc));
	}
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports %u",
		   mdevx_share_dev_imports(dev));
	ROLE_CHECK(mdevx_ctx_nb_objs(mdevx_share_dev_ctx(dev)) == 0, "objects on the context");
	/* The genuine records import. */
	ROLE_CHECK(mdevx_share_import(dev, "fg_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0 &&
		   mdevx_share_unimport(dev, imp) == 0, "genuine counter: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "fg_tir", MDEVX_OBJ_TIR, &imp) == 0 &&
		   mdevx_share_unimport(dev, imp) == 0, "genuine TIR: %s", strerror(errno));
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_forged_importer, role_forged_importer);

static int
forged_checks(struct mdevx_share_reg *reg)
{
	const char *names[RTE_DIM(forged_recs)];
	struct mdevx_share_rec_info info;
	mdevx_share_imp_t imp;
	struct state_snap a;
	int nb_ctx, bad = 0, rc;

	for (size_t i = 0; i < RTE_DIM(forged_recs); i++) {
		TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(reg, forged_recs[i].genuine, &info,
							   NULL, NULL), "lookup");
		snprintf(info.name, sizeof(info.name), "%s", forged_recs[i].name);
		switch (forged_recs[i].field) {
		case FORGE_ID:
			info.object_id += 1;
			break;
		case FORGE_SIZE_OR_TIRN:
			info.size_or_tirn = info.kind == MDEVX_OBJ_FLOW_COUNTER ?
					    info.size_or_tirn * 2 : info.size_or_tirn + 1;
			break;
		case FORGE_RX_ICM:
			info.rx_icm_addr ^= 0x1000;
			break;
		}
		/* The registry's writer checksums the record: only its fields lie. */
		TEST_ASSERT_SUCCESS(mdevx_share_reg_publish(reg, &info, NULL, NULL),
				    "publish %s", forged_recs[i].name);
		names[i] = forged_recs[i].name;
	}
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	nb_ctx = mdevx_ctx_nb_objs(mdevx_share_dev_ctx(pdev));
	for (size_t i = 0; i < RTE_DIM(forged_recs); i++) {
		errno = 0;
		rc = mdevx_share_import(pdev, forged_recs[i].name, MDEVX_OBJ_ANY, &imp);
		if (rc == -EBADMSG && errno == EBADMSG)
			continue;
		printf("forged record %s: import %d (%s), want EBADMSG\n", forged_recs[i].name,
		       rc, rc == 0 ? "made" : strerror(-rc));
		if (rc == 0)
			mdevx_share_unimport(pdev, imp);
		bad++;
	}
	TEST_ASSERT_EQUAL(bad, 0, "%d forged records imported", bad);
	SAME_STATE(a);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(mdevx_share_dev_ctx(pdev)), nb_ctx,
			  "objects on the context");
	rc = test_mp_run("share_forged_importer", NULL, (int)RTE_DIM(names), names,
			 CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	SAME_STATE(a);
	return TEST_SUCCESS;
}

static int
test_bad_forged_record(void)
{
	struct mdevx_share_reg *reg = mdevx_share_dev_reg(pdev);
	struct mdevx_tir_attr direct, rss;
	struct mdevx_obj *tir;
	uint64_t gen;
	uint32_t idx;
	uint16_t state;
	int ret, err = 0;

	TEST_ASSERT_NOT_NULL(reg, "registry");
	TEST_ASSERT_SUCCESS(publish_counter(pdev, "fg_ctr", 128), "publish: %s",
			    strerror(errno));
	tir_attrs(&chain, &direct, &rss);
	tir = mdevx_tir_create(mdevx_share_dev_ctx(pdev), &direct);
	TEST_ASSERT_NOT_NULL(tir, "TIR: %s", strerror(errno));
	if (mdevx_share_publish(pdev, "fg_tir", tir) != 0) {
		printf("publish TIR: %s\n", strerror(errno));
		mdevx_obj_destroy(tir);
		return TEST_FAILED;
	}
	ret = forged_checks(reg);
	/*
	 * The forged records own no object: libmdevx_share would withdraw
	 * them with a destroy of nothing. Remove them behind its back, as
	 * they came.
	 */
	for (size_t i = 0; i < RTE_DIM(forged_recs); i++) {
		if (mdevx_share_reg_owner_find(reg, forged_recs[i].name, &idx, &gen,
					       &state) != 0)
			continue;
		if (state == MDEVX_SHARE_REC_PUBLISHED)
			err |= mdevx_share_reg_withdraw(reg, idx, gen, NULL);
		err |= mdevx_share_reg_release(reg, idx);
	}
	TEST_ASSERT_SUCCESS(err, "removing the forged records");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), 2, "records left");
	return ret;
}

/*
 * Every call on @p dev, a device closed already (its memory is freed:
 * ASan reports any read of it), for record @p name and the import @p imp
 * it had: ENOENT (0, NULL or -1 with errno ENOENT). NULL, or the first
 * call that did not.
 */
#define CLOSED_RC(expr) do {						\
	errno = 0;							\
	if ((expr) != -ENOENT || errno != ENOENT)			\
		return #expr;						\
} while (0)
#define CLOSED_ZERO(expr) do {						\
	errno = 0;							\
	if ((expr) != 0 || errno != ENOENT)				\
		return #expr;						\
} while (0)

static const char *
closed_handle_check(struct mdevx_share_dev *dev, const char *name, mdevx_share_imp_t imp)
{
	struct mdevx_counter_stats st;
	struct mdevx_share_record rec;
	struct mdevx_tir_attr attr;
	mdevx_share_imp_t imp2;

	CLOSED_RC(mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp2));
	CLOSED_RC(mdevx_share_unimport(dev, imp));
	CLOSED_RC(mdevx_share_lookup(dev, name, &rec));
	CLOSED_RC(mdevx_share_counter_query(dev, imp, 0, 1, 0, &st));
	CLOSED_RC(mdevx_share_tir_query(dev, imp, &attr));
	CLOSED_RC(mdevx_share_publish(dev, name, NULL));
	CLOSED_RC(mdevx_share_withdraw(dev, name, NULL));
	errno = 0;
	if (mdevx_share_record_next(dev, 0, &rec) != -1 || errno != ENOENT)
		return "mdevx_share_record_next(dev, 0, &rec)";
	CLOSED_ZERO(mdevx_share_import_obj(dev, imp) != NULL);
	CLOSED_ZERO(mdevx_share_record_count(dev));
	CLOSED_ZERO(mdevx_share_dev_imports(dev));
	CLOSED_ZERO(mdevx_share_dev_cookie(dev));
	CLOSED_ZERO(mdevx_share_dev_ctx(dev) != NULL);
	if (mdevx_share_dev_reg(dev) != NULL)
		return "mdevx_share_dev_reg(dev)";
	/* And closed twice. */
	CLOSED_RC(mdevx_share_dev_close(dev));
	return NULL;
}

#undef CLOSED_RC
#undef CLOSED_ZERO

/*
 * The wrapper of mdevx_share_import_obj() belongs to the import: a
 * mdevx_obj_unimport() of it is refused with EPERM and changes nothing
 * (the wrapper still reads its counter); mdevx_share_unimport() frees it.
 * @p packets: what counter 0 of the import's bulk reads. NULL, or what failed.
 */
static const char *
held_wrapper_check(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint64_t packets)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(dev);
	struct mdevx_counter_stats st;
	struct mdevx_obj *obj;
	int nb = mdevx_ctx_nb_objs(ctx);

	obj = mdevx_share_import_obj(dev, imp);
	if (obj == NULL)
		return "import_obj";
	if (mdevx_ctx_nb_objs(ctx) != nb + 1)
		return "no wrapper on the context";
	errno = 0;
	if (mdevx_obj_unimport(obj) != -EPERM || errno != EPERM)
		return "mdevx_obj_unimport() of the wrapper is not EPERM";
	if (mdevx_ctx_nb_objs(ctx) != nb + 1)
		return "the refused mdevx_obj_unimport() freed the wrapper";
	if (mdevx_counter_query(obj, 0, 1, 0, &st) != 0 || st.packets != packets)
		return "the wrapper does not read its counter any more";
	if (mdevx_share_import_obj(dev, imp) != obj)
		return "import_obj gives another wrapper";
	if (mdevx_share_unimport(dev, imp) != 0)
		return "mdevx_share_unimport() of the import";
	if (mdevx_ctx_nb_objs(ctx) != nb)
		return "the wrapper was not freed by mdevx_share_unimport()";
	errno = 0;
	if (mdevx_share_unimport(dev, imp) != -ENOENT || errno != ENOENT)
		return "second mdevx_share_unimport() is not ENOENT";
	return NULL;
}

/*
 * Secondary: the wrapper held by the import, then every call on its
 * device once closed (with an import and its wrapper still held): ENOENT,
 * no read of the freed device. A new attach works.
 */
static int
role_closed_handle(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	const char *why;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	why = held_wrapper_check(dev, imp, s->packets[0][0]);
	ROLE_CHECK(why == NULL, "%s: %s", why, strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0 &&
		   mdevx_share_import_obj(dev, imp) != NULL, "import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close: %s", strerror(errno));
	why = closed_handle_check(dev, "ctr0", imp);
	dev = NULL;
	ROLE_CHECK(why == NULL, "closed device: %s is not ENOENT (errno %s)", why,
		   strerror(errno));
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach again: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0 &&
		   mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0][0] && mdevx_share_unimport(dev, imp) == 0,
		   "import after a new attach: %s", strerror(errno));
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_closed_handle, role_closed_handle);

static int
test_bad_closed_handle(void)
{
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t imp;
	struct state_snap a;
	const char *why;
	int rc;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import");
	why = held_wrapper_check(pdev, imp, s->packets[0][0]);
	TEST_ASSERT_NULL(why, "%s: %s", why, strerror(errno));
	SAME_STATE(a);
	rc = test_mp_run("share_closed_handle", NULL, 0, NULL, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	SAME_STATE(a);
	/* The primary's device closed with a record, an import and its wrapper. */
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "c", 1), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp), "import");
	TEST_ASSERT_NOT_NULL(mdevx_share_import_obj(dev, imp), "import_obj: %s",
			     strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	why = closed_handle_check(dev, "c", imp);
	TEST_ASSERT_NULL(why, "closed device: %s is not ENOENT (errno %s)", why,
			 strerror(errno));
	SAME_STATE(a);
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* ------------------------------------------------------------------ */
/* One log line per refusal                                            */
/* ------------------------------------------------------------------ */

/* The test primary's form (its case stops the capture, pass or fail). */
#define TEST_ASSERT_LOGGED_ONCE(c, prefix, n1, n2, n3, what) do {	\
	const char *_why = log_cap_once((c), (prefix), (n1), (n2), (n3)); \
	TEST_ASSERT_NULL(_why, "%s: %s", (what), _why);			\
} while (0)

/* A refusal of the primary's form: errno (and rte_errno), then one line. */
#define REFUSED_RC(c, expr, e, n1, n2, n3) do {				\
	int _r;								\
	rte_errno = 0;							\
	errno = 0;							\
	_r = (expr);							\
	TEST_ASSERT(_r == -(e) && errno == (e) && rte_errno == (e),	\
		    "%s: %d, errno %d, rte_errno %d, want -%s", #expr, _r, errno, \
		    rte_errno, #e);					\
	TEST_ASSERT_LOGGED_ONCE(c, NULL, n1, n2, n3, #expr);		\
} while (0)
#define REFUSED_NULL(c, expr, e, n1, n2, n3) do {			\
	const void *_p;							\
	rte_errno = 0;							\
	errno = 0;							\
	_p = (expr);							\
	TEST_ASSERT(_p == NULL && errno == (e) && rte_errno == (e),	\
		    "%s: %p, errno %d, rte_errno %d, want NULL, %s", #expr, _p, \
		    errno, rte_errno, #e);				\
	TEST_ASSERT_LOGGED_ONCE(c, NULL, n1, n2, n3, #expr);		\
} while (0)

/* In a secondary's role: the same checks, ROLE_CHECK style. */
#define ROLE_LOGGED_ONCE(c, n1, n2, n3, what) do {			\
	const char *_why = log_cap_once((c), NULL, (n1), (n2), (n3));	\
	ROLE_CHECK(_why == NULL, "%s: %s", (what), _why);		\
} while (0)

/*
 * Secondary: open (EPERM) and an attach of a device string the primary
 * does not share: ENODEV, and its line names what the primary shares.
 */
static int
role_refusal_secondary(int argc, char **argv)
{
	const char *other = "rdma:mlx5_9";
	struct mdevx_share_dev *dev = NULL;
	struct log_cap lc = { .f = NULL };
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(log_cap_start(&lc, RTE_LOG_DEBUG) == 0, "log capture");
	dev = mdevx_share_dev_open(DEVSTR, NULL);
	ROLE_CHECK(dev == NULL && errno == EPERM && rte_errno == EPERM, "open: %s",
		   dev == NULL ? strerror(errno) : "success");
	ROLE_LOGGED_ONCE(&lc, DEVSTR, "only the primary", "mdevx_share_dev_attach()",
			 "open in a secondary");
	dev = mdevx_share_dev_attach(other);
	ROLE_CHECK(dev == NULL && errno == ENODEV && rte_errno == ENODEV,
		   "attach %s: %s", other, dev == NULL ? strerror(errno) : "success");
	ROLE_LOGGED_ONCE(&lc, other, "attach refused", "shares: " DEVSTR,
			 "attach of a device not shared");
	ret = 0;
out:
	log_cap_stop(&lc);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_refusal_secondary, role_refusal_secondary);

/*
 * Another primary, with EAL's --no-huge: its registry is in private
 * memory, no secondary can attach. The open succeeds (a process of its
 * own may share with itself: the install test's client does) with one
 * warning.
 */
static int
role_nohuge_primary(int argc, char **argv)
{
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_ctx *ctx;
	struct log_cap lc = { .f = NULL };
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	/* The rdma backend's line of the first open in a process, before the capture. */
	ctx = mdevx_open(DEVSTR2);
	ROLE_CHECK(ctx != NULL && mdevx_close(ctx) == 0, "open: %s", strerror(errno));
	ROLE_CHECK(log_cap_start(&lc, RTE_LOG_WARNING) == 0, "log capture");
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	ROLE_CHECK(dev != NULL, "open with --no-huge: %s", strerror(errno));
	ROLE_LOGGED_ONCE(&lc, DEVSTR2, "--no-huge", "no secondary", "open with --no-huge");
	ret = 0;
out:
	log_cap_stop(&lc);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_nohuge_primary, role_nohuge_primary);

/* What test_bad_refusal_logs() holds: released pass or fail. */
struct refusal_case {
	struct log_cap lc;
	struct mdevx_obj *cnt;		/* a local counter of pdev */
	struct mdevx_share_dev *small;	/* DEVSTR2, a registry of one record */
	struct mdevx_obj *c2;		/* a local counter of small */
	mdevx_share_imp_t imp;		/* of ctr0 */
};

/* The refusals of the test primary (see test_bad_refusal_logs()). */
static int
refusals_primary(struct refusal_case *t)
{
	struct mdevx_share_conf small_conf = { .capacity = 1, .withdraw_timeout_ms = 500 };
	mdevx_share_imp_t bogus = { .id = 0x12345678ULL << 32 | 3 };
	char longname[MDEVX_SHARE_NAME_MAX + 2];
	char devs[1][MDEVX_SHARE_DEVSTR_MAX];
	struct mdevx_share_record rec;
	struct mdevx_counter_stats st;
	struct log_cap *lc = &t->lc;
	struct mdevx_obj *c2;
	size_t pos;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	t->cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 1);
	TEST_ASSERT_NOT_NULL(t->cnt, "counter alloc: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &t->imp),
			    "import");
	/* The first rdma-core open of the process says which export path it has. */
	TEST_ASSERT_NULL(mdevx_open("rdma:mdevx_nosuch0"), "rdma:mdevx_nosuch0 opened");
	TEST_ASSERT_SUCCESS(log_cap_start(lc, RTE_LOG_INFO), "log capture");

	/* A lookup miss is an outcome, not an error: DEBUG, nothing at INFO. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_import(pdev, "no_such_rec", MDEVX_OBJ_ANY, &bogus),
				 ENOENT);
	TEST_ASSERT_EQUAL(log_cap_take(lc, NULL), 0, "an import miss logged at INFO: %s",
			  lc->text);
	rte_log_set_level(lc->share_type, RTE_LOG_DEBUG);
	REFUSED_RC(lc, mdevx_share_import(pdev, "no_such_rec", MDEVX_OBJ_ANY, &bogus), ENOENT,
		   "no_such_rec", DEVSTR, "mdevx_share_import");
	REFUSED_RC(lc, mdevx_share_lookup(pdev, "no_such_rec", &rec), ENOENT,
		   "no_such_rec", DEVSTR, "mdevx_share_lookup");

	/* Names too long: the call, the length and the limit. */
	REFUSED_RC(lc, mdevx_share_publish(pdev, longname, t->cnt), ENAMETOOLONG,
		   "mdevx_share_publish", "48", "47");
	REFUSED_RC(lc, mdevx_share_lookup(pdev, longname, &rec), ENAMETOOLONG,
		   "mdevx_share_lookup", "48", "47");
	REFUSED_RC(lc, mdevx_share_import(pdev, longname, MDEVX_OBJ_ANY, &bogus),
		   ENAMETOOLONG, "mdevx_share_import", "48", "47");
	REFUSED_RC(lc, mdevx_share_withdraw(pdev, longname, NULL), ENAMETOOLONG,
		   "mdevx_share_withdraw", "48", "47");

	/* The other refusals of the API. */
	REFUSED_RC(lc, mdevx_share_publish(pdev, "ctr0", t->cnt), EEXIST, DEVSTR, "ctr0",
		   "exists");
	REFUSED_RC(lc, mdevx_share_publish(pdev, "fresh", NULL), EINVAL, "mdevx_share_publish",
		   "NULL", NULL);
	REFUSED_RC(lc, mdevx_share_withdraw(pdev, "no_such_rec", NULL), ENOENT, DEVSTR,
		   "no_such_rec", "mdevx_share_withdraw");
	REFUSED_RC(lc, mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_PD, &bogus), EINVAL,
		   "mdevx_share_import", "kind", NULL);
	REFUSED_RC(lc, mdevx_share_unimport(pdev, bogus), ENOENT, DEVSTR, "mdevx_share_unimport",
		   "not a live import");
	REFUSED_RC(lc, mdevx_share_counter_read(pdev, t->imp, 0, 0, &st, NULL), EINVAL,
		   DEVSTR, "mdevx_share_counter_read", NULL);
	REFUSED_RC(lc, mdevx_share_counter_read(pdev, t->imp, 0, 1000, &st, NULL), ERANGE,
		   DEVSTR, "mdevx_share_counter_read", "past");
	REFUSED_RC(lc, mdevx_share_dev_close(NULL), EINVAL, "mdevx_share_dev_close", "NULL",
		   NULL);
	REFUSED_RC(lc, mdevx_share_primary_devs(devs, 1), EPERM, "mdevx_share_primary_devs",
		   "secondar", NULL);
	REFUSED_NULL(lc, mdevx_share_dev_open(DEVSTR, NULL), EEXIST, DEVSTR, "already open",
		     NULL);
	REFUSED_NULL(lc, mdevx_share_dev_attach(DEVSTR), EPERM, DEVSTR, "secondar",
		     "mdevx_share_dev_open()");
	REFUSED_NULL(lc, mdevx_share_dev_open("", NULL), EINVAL, "mdevx_share_dev_open",
		     "device string", NULL);

	/* A full registry. */
	t->small = mdevx_share_dev_open(DEVSTR2, &small_conf);
	TEST_ASSERT_NOT_NULL(t->small, "open %s: %s", DEVSTR2, strerror(errno));
	c2 = mdevx_counter_alloc(mdevx_share_dev_ctx(t->small), 1);
	TEST_ASSERT_NOT_NULL(c2, "counter alloc: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(t->small, "one", c2), "publish: %s",
			    strerror(errno));
	t->c2 = mdevx_counter_alloc(mdevx_share_dev_ctx(t->small), 1);
	TEST_ASSERT_NOT_NULL(t->c2, "counter alloc: %s", strerror(errno));
	log_cap_take(lc, NULL);		/* the open's INFO line */
	REFUSED_RC(lc, mdevx_share_publish(t->small, "two", t->c2), ENOSPC, DEVSTR2, "two",
		   "full");
	/* A close with an object of the application (c2): withdrawn first, then EBUSY. */
	REFUSED_RC(lc, mdevx_share_dev_close(t->small), EBUSY, DEVSTR2,
		   "has 1 object on", "close again");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(t->small), 0, "records left by the close");

	/* No such RDMA device: ENODEV, one line from each library. */
	TEST_ASSERT_NULL_ERRNO(mdevx_open("rdma:mdevx_nosuch0"), ENODEV);
	TEST_ASSERT_LOGGED_ONCE(lc, NULL, "rdma:mdevx_nosuch0", "No such device", NULL,
				"mdevx_open");
	pos = lc->pos;
	TEST_ASSERT_NULL_ERRNO(mdevx_share_dev_open("rdma:mdevx_nosuch0", NULL), ENODEV);
	TEST_ASSERT_LOGGED_ONCE(lc, "mdevx: ", "rdma:mdevx_nosuch0", "No such device", NULL,
				"mdevx_share_dev_open: mdevx");
	lc->pos = pos;	/* the same lines again, the other library's */
	TEST_ASSERT_LOGGED_ONCE(lc, "mdevx_share: ", "rdma:mdevx_nosuch0", "No such device",
				NULL, "mdevx_share_dev_open: mdevx_share");
	return TEST_SUCCESS;
}

/*
 * Each refusal of the API: its errno (and rte_errno), and exactly one
 * line of our libraries that names the object and the reason; in this
 * primary, in a secondary (open; attach with another spelling of the
 * device) and in a primary with --no-huge (a warning, the open works).
 */
static int
test_bad_refusal_logs(void)
{
	struct refusal_case t = { .cnt = NULL };
	struct share_sync *s = sync_mz->addr;
	char prefix[128];
	pid_t pid;
	int rc;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	rc = refusals_primary(&t);
	log_cap_stop(&t.lc);
	if (t.cnt != NULL && mdevx_obj_destroy(t.cnt) != 0)
		rc = TEST_FAILED;
	if (t.imp.id != 0 && mdevx_share_unimport(pdev, t.imp) != 0)
		rc = TEST_FAILED;
	if (t.c2 != NULL && mdevx_obj_destroy(t.c2) != 0)
		rc = TEST_FAILED;
	if (t.small != NULL && mdevx_share_dev_close(t.small) != 0)
		rc = TEST_FAILED;
	TEST_ASSERT_SUCCESS(rc, "refusals of the primary");

	rc = test_mp_run("share_refusal_secondary", NULL, 0, NULL, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);

	snprintf(prefix, sizeof(prefix), "%s_nohuge", test_file_prefix());
	pid = test_mp_spawn_primary_eal("share_nohuge_primary", prefix, "--no-huge", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT_EQUAL(test_mp_wait(pid, CHILD_TIMEOUT_MS), 0, "the --no-huge primary");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static struct unit_test_suite share_bad_suite = {
	.suite_name = "mlx5 devx share bad input",
	.setup = share_suite_setup,
	.teardown = share_suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_bad_null_and_names),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_rte_errno),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_corrupted_and_stale),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_secondary_calls),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_idle_secondary),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_reattach),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_forged_record),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_closed_handle),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_unimport_busy),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_refusal_logs),
		TEST_CASE(test_bad_attach_after_close),
		TEST_CASE(test_bad_primary_closed),
		TEST_CASE(test_bad_full_registry),
		TEST_CASE(test_bad_owned_set),
		TEST_CASE(test_bad_handle_wrap),
		TEST_CASE(test_bad_many_imports),
		TEST_CASE(test_bad_no_ipc),
		TEST_CASE(test_bad_foreign_record),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_badinput(void)
{
	return unit_test_suite_runner(&share_bad_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_badinput_autotest, test_share_badinput);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_lost_autotest: a device lost under its users. The
 * software device disassociates every uverbs file of a device (as the
 * kernel does when a device is removed or reset: its objects destroyed,
 * every later command EIO); then every local release works, as
 * ibv_close_device() does after a fatal event:
 *  - libmdevx alone: a rule, its matcher, a TIR and its queues, a counter
 *    bulk, all destroyed with 0 and one line saying the device is lost,
 *    the context closed, the device opened again; a destroy the device
 *    refuses while it answers is no loss (EIO, the object kept);
 *  - libmdevx_share: a secondary's rule, matcher and imports released and
 *    its device closed, the primary's withdrawal, its queues and its close.
 * Nothing is left on the devices.
 *
 * DPDK's mlx5 common driver, which EAL loads in every process, sets
 * MLX5_DEVICE_FATAL_CLEANUP: libibverbs then releases its verbs objects
 * (rules, matchers, PDs) itself when their destroy fails with EIO, and
 * only DEVX objects meet the library's release. The suite unsets it
 * before libibverbs starts (its first device open), as in a program that
 * loads no DPDK driver, so that every destroy meets the library's; the
 * run with MDEVX_TEST_KEEP_FATAL_CLEANUP=1 keeps it (meson test
 * mlx5_devx_share_lost_autotest_dpdk).
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_fixture.h"
#include "test_share_util.h"

#define LOST_LINE "the device is lost"

/* What test_lost_local() makes on its context. */
struct lost_objs {
	struct mdevx_ctx *ctx;
	struct tir_chain chain;
	struct mdevx_obj *tir, *cnt, *extra;	/* extra: no rule uses it */
	struct mdevx_matcher *m;
	struct mdevx_rule *rule;
};

static void
lost_objs_release(struct lost_objs *o)
{
	struct mdevx_obj **objs[] = { &o->tir, &o->cnt, &o->extra, &o->chain.rqt,
				      &o->chain.rq[1], &o->chain.rq[0], &o->chain.cq,
				      &o->chain.td, &o->chain.pd };

	if (o->rule != NULL)
		mdevx_rule_destroy(o->rule);
	if (o->m != NULL)
		mdevx_matcher_destroy(o->m);
	for (size_t i = 0; i < RTE_DIM(objs); i++)
		if (*objs[i] != NULL)
			mdevx_obj_destroy(*objs[i]);
	if (o->ctx != NULL)
		mdevx_close(o->ctx);
	memset(o, 0, sizeof(*o));
}

/* A TIR over its queues, a counter bulk, a matcher and a rule to both. */
static int
lost_objs_make(struct lost_objs *o, const char *devstr)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_matcher_attr ma = {
		.match_criteria_enable = MDEVX_MATCH_OUTER, .mask = mask, .mask_len = sizeof(mask),
	};
	struct mdevx_tir_attr direct, rss;
	struct mdevx_rule_attr ra;

	memset(o, 0, sizeof(*o));
	o->ctx = mdevx_open(devstr);
	TEST_ASSERT_NOT_NULL(o->ctx, "open %s: %s", devstr, strerror(errno));
	TEST_ASSERT_SUCCESS(chain_create(o->ctx, &o->chain), "queues");
	tir_attrs(&o->chain, &direct, &rss);
	o->tir = mdevx_tir_create(o->ctx, &direct);
	TEST_ASSERT_NOT_NULL(o->tir, "TIR: %s", strerror(errno));
	o->cnt = mdevx_counter_alloc(o->ctx, 4);
	o->extra = mdevx_counter_alloc(o->ctx, 1);
	TEST_ASSERT(o->cnt != NULL && o->extra != NULL, "counter: %s", strerror(errno));
	test_udp_mask_value(mask, value, 4789);
	o->m = mdevx_matcher_create(o->ctx, &ma);
	TEST_ASSERT_NOT_NULL(o->m, "matcher: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = o->tir;
	ra.counter = o->cnt;
	o->rule = mdevx_rule_create(o->m, &ra);
	TEST_ASSERT_NOT_NULL(o->rule, "rule: %s", strerror(errno));
	return TEST_SUCCESS;
}

/* Every object of @p o destroyed with 0, in an order the device allows. */
static int
lost_objs_destroy(struct lost_objs *o)
{
	struct mdevx_obj **objs[] = { &o->tir, &o->cnt, &o->extra, &o->chain.rqt,
				      &o->chain.rq[1], &o->chain.rq[0], &o->chain.cq,
				      &o->chain.td, &o->chain.pd };

	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(o->rule), "rule: %s", strerror(errno));
	o->rule = NULL;
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(o->m), "matcher: %s", strerror(errno));
	o->m = NULL;
	for (size_t i = 0; i < RTE_DIM(objs); i++) {
		TEST_ASSERT_SUCCESS(mdevx_obj_destroy(*objs[i]), "object %zu: %s", i,
				    strerror(errno));
		*objs[i] = NULL;
	}
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(o->ctx), 0, "objects on the context");
	return TEST_SUCCESS;
}

/*
 * libmdevx alone, on DEV2. A destroy the device refuses (a fault: it
 * answers) keeps the object; once the device's files are disassociated,
 * a query is EIO and every destroy and the close give 0, with one line.
 */
static int
test_lost_local(void)
{
	struct lost_objs o = { .ctx = NULL };
	struct log_cap lc = { .f = NULL };
	struct mdevx_counter_stats st;
	uint32_t nfiles = 0, total, before = 0;
	const char *why;
	int rc = TEST_FAILED;

	if (lost_objs_make(&o, DEVSTR2) != TEST_SUCCESS)
		goto out;
	/* The device answers with an error: not lost, the object stays. */
	if (test_dev_total(ctl, DEV2, &before) != 0 ||
	    swdev_ctl_set_fault(ctl, DEV2, OP_DEALLOC_FLOW_COUNTER, 1, STAT_INTERNAL_ERR, 0x77,
				0) != 0 || mdevx_obj_destroy(o.extra) != -EIO) {
		printf("a refused destroy: %s\n", strerror(errno));
		goto out;
	}
	/* The device string names the same device on the control channel. */
	if (test_dev_total(ctl, DEVSTR2, &total) != 0 || total != before) {
		printf("objects after a refused destroy: %u, want %u\n", total, before);
		goto out;
	}
	if (log_cap_start(&lc, RTE_LOG_ERR) != 0 ||
	    swdev_ctl_disassociate(ctl, DEV2, &nfiles) != 0 || nfiles != 1) {
		printf("disassociate: %s, %u files\n", strerror(errno), nfiles);
		goto out;
	}
	if (test_dev_total(ctl, DEV2, &total) != 0 || total != 0) {
		printf("objects after the disassociation: %u\n", total);
		goto out;
	}
	if (mdevx_counter_query(o.cnt, 0, 1, 0, &st) != -EIO) {
		printf("a query on the lost device: %s\n", strerror(errno));
		goto out;
	}
	(void)log_cap_take(&lc, NULL);	/* the failed query's line */
	if (lost_objs_destroy(&o) != TEST_SUCCESS)
		goto out;
	why = log_cap_once(&lc, "mdevx: ", DEVSTR2, LOST_LINE, "released locally");
	if (why != NULL) {
		printf("the lost device's line: %s\n", why);
		goto out;
	}
	if (mdevx_close(o.ctx) != 0) {
		printf("close: %s\n", strerror(errno));
		goto out;
	}
	o.ctx = NULL;
	/* The device itself works: a new context, a new object. */
	if (lost_objs_make(&o, DEVSTR2) != TEST_SUCCESS || lost_objs_destroy(&o) != TEST_SUCCESS)
		goto out;
	rc = TEST_SUCCESS;
out:
	log_cap_stop(&lc);
	lost_objs_release(&o);
	if (test_wait_dev_empty(ctl, DEV2, 5000) != 0)
		rc = TEST_FAILED;
	return rc;
}

/*
 * A secondary with imports of a counter and a TIR and a rule on both:
 * after the loss (go), a query fails, and the rule, the matcher, the
 * imports and the device are released with 0.
 */
static int
role_lost_holder(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	struct mdevx_matcher *m = NULL;
	mdevx_share_rule_t rule = { .id = 0 };
	mdevx_share_imp_t ctr, tir;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &ctr) == 0 &&
		   mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) == 0,
		   "import: %s", strerror(errno));
	m = test_udp_matcher(mdevx_share_dev_ctx(dev), 0);
	ROLE_CHECK(m != NULL, "matcher: %s", strerror(errno));
	rule = test_udp_rule(dev, m, 4789, tir, ctr);
	ROLE_CHECK(rule.id != 0, "rule: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	ROLE_CHECK(mdevx_share_counter_query(dev, ctr, 0, 1, 0, &st) == -EIO,
		   "a query on the lost device: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_rule_destroy(dev, rule) == 0, "rule destroy: %s", strerror(errno));
	rule.id = 0;
	ROLE_CHECK(mdevx_matcher_destroy(m) == 0, "matcher destroy: %s", strerror(errno));
	m = NULL;
	ROLE_CHECK(mdevx_share_unimport(dev, tir) == 0 && mdevx_share_unimport(dev, ctr) == 0,
		   "unimport: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close: %s", strerror(errno));
	dev = NULL;
	ret = 0;
out:
	if (rule.id != 0)
		mdevx_share_rule_destroy(dev, rule);
	if (m != NULL)
		mdevx_matcher_destroy(m);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_lost_holder, role_lost_holder);

/*
 * The shared device lost while a secondary holds a rule: the secondary
 * releases everything; the primary withdraws a record, closes (EBUSY: its
 * queues), destroys the queues and closes, all with 0.
 */
static int
test_lost_shared(void)
{
	struct mdevx_obj **q[] = { &chain.rqt, &chain.rq[1], &chain.rq[0], &chain.cq, &chain.td,
				   &chain.pd };
	struct share_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	uint32_t nfiles = 0;
	pid_t pid;
	int rc;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	pid = test_children_spawn(&children, "share_lost_holder", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	if (!wait_at_least(&s->ready, 1, WAIT_MS)) {
		rc = test_mp_wait(pid, 1000);
		TEST_ASSERT(false, "holder not ready (its exit: %d)", rc);
	}
	TEST_ASSERT_SUCCESS(swdev_ctl_disassociate(ctl, DEV, &nfiles), "disassociate");
	TEST_ASSERT_EQUAL(nfiles, 1, "files of " DEV);
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects after the loss");
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "holder exited with %d", rc);
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr0", &acked), "withdraw: %s",
			    strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(pdev), EBUSY);
	for (size_t i = 0; i < RTE_DIM(q); i++) {
		TEST_ASSERT_SUCCESS(mdevx_obj_destroy(*q[i]), "queue %zu: %s", i, strerror(errno));
		*q[i] = NULL;
	}
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close: %s", strerror(errno));
	pdev = NULL;
	return TEST_SUCCESS;
}

static int
lost_suite_setup(void)
{
	const char *keep = getenv("MDEVX_TEST_KEEP_FATAL_CLEANUP");

	if (keep == NULL || strcmp(keep, "1") != 0) {
		unsetenv("MLX5_DEVICE_FATAL_CLEANUP");
		unsetenv("RDMAV_ALLOW_DISASSOC_DESTROY");
	}
	printf("libibverbs %s verbs objects of a lost device itself\n",
	       getenv("MLX5_DEVICE_FATAL_CLEANUP") != NULL ? "releases" : "does not release");
	return share_suite_setup();
}

static struct unit_test_suite share_lost_suite = {
	.suite_name = "mlx5 devx: a device lost under its users",
	.setup = lost_suite_setup,
	.teardown = share_suite_teardown,
	.unit_test_cases = {
		TEST_CASE(test_lost_local),
		TEST_CASE_ST(case_setup, case_teardown, test_lost_shared),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_lost(void)
{
	return unit_test_suite_runner(&share_lost_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_lost_autotest, test_share_lost);

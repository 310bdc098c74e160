/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The fixture of the share autotests with real secondaries (see
 * test_share_fixture.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_fixture.h"
#include "test_share_util.h"

struct swdev_ctl *ctl;
const struct rte_memzone *sync_mz;

struct share_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

/* Wait until *v >= want, up to ms milliseconds. */
bool
wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms)
{
	return test_wait_at_least(v, want, ms, NULL);
}

/*
 * A new bulk of @p bulk counters published as @p name on @p dev: 0, or -1
 * with errno (a counter that could not be published is destroyed).
 */
int
publish_counter(struct mdevx_share_dev *dev, const char *name, uint32_t bulk)
{
	struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), bulk);
	int err;

	if (cnt == NULL)
		return -1;
	if (mdevx_share_publish(dev, name, cnt) != 0) {
		err = errno;
		mdevx_obj_destroy(cnt);
		errno = err;
		return -1;
	}
	return 0;
}

int
test_nothing_left(void)
{
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left on " DEV);
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV2, 5000), "objects left on " DEV2);
	return TEST_SUCCESS;
}

static void
fill_key(uint8_t *key, uint8_t seed)
{
	for (int i = 0; i < MDEVX_TOEPLITZ_KEY_LEN; i++)
		key[i] = (uint8_t)(seed + i * 7);
}

static void
chain_destroy(struct tir_chain *c)
{
	struct mdevx_obj **objs[] = { &c->rqt, &c->rq[1], &c->rq[0], &c->cq, &c->td, &c->pd };

	for (size_t i = 0; i < RTE_DIM(objs); i++) {
		if (*objs[i] != NULL && mdevx_obj_destroy(*objs[i]) != 0)
			printf("destroy %zu failed: %s\n", i, strerror(errno));
		*objs[i] = NULL;
	}
}

int
chain_create(struct mdevx_ctx *ctx, struct tir_chain *c)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 6, .eq_vector = 0 };
	struct mdevx_rq_attr rqa;

	memset(c, 0, sizeof(*c));
	c->td = mdevx_td_alloc(ctx);
	c->pd = mdevx_pd_alloc(ctx);
	c->cq = mdevx_cq_create(ctx, &cqa);
	if (c->td == NULL || c->pd == NULL || c->cq == NULL)
		goto err;
	memset(&rqa, 0, sizeof(rqa));
	rqa.cq = c->cq;
	rqa.pd = c->pd;
	rqa.log_wq_size = 6;
	rqa.log_wq_stride = 6;
	for (int i = 0; i < 2; i++) {
		rqa.user_index = (uint32_t)i + 1;
		c->rq[i] = mdevx_rq_create(ctx, &rqa);
		if (c->rq[i] == NULL)
			goto err;
	}
	c->rqt = mdevx_rqt_create(ctx, c->rq, 2);
	if (c->rqt == NULL)
		goto err;
	return 0;
err:
	printf("TIR chain creation failed: %s\n", strerror(errno));
	chain_destroy(c);
	return -1;
}

void
tir_attrs(const struct tir_chain *c, struct mdevx_tir_attr *direct, struct mdevx_tir_attr *rss)
{
	memset(direct, 0, sizeof(*direct));
	direct->disp_type = MDEVX_TIR_DISP_DIRECT;
	direct->inline_rqn = test_obj_id(c->rq[0]);
	direct->transport_domain = test_obj_id(c->td);
	memset(rss, 0, sizeof(*rss));
	rss->disp_type = MDEVX_TIR_DISP_INDIRECT;
	rss->indirect_table = test_obj_id(c->rqt);
	rss->transport_domain = test_obj_id(c->td);
	rss->rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	rss->outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
	rss->outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	rss->outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
				     MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	fill_key(rss->toeplitz_key, 0x5a);
}

/* Children of the current case: the teardowns kill those still running. */
struct test_children children;

/* ------------------------------------------------------------------ */
/* Fixture: primary share device, TIR chain, sync memzone              */
/* ------------------------------------------------------------------ */

struct mdevx_share_dev *pdev;
struct tir_chain chain;

int
share_suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct share_sync));
}

void
share_suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

int
case_setup(void)
{
	/* No counter snapshot service (the counters suite tests it). */
	struct mdevx_share_conf conf = { .capacity = 256, .withdraw_timeout_ms = 3000,
					 .counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF };

	if (test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct share_sync)) != TEST_SUCCESS)
		return TEST_FAILED;
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	if (chain_create(mdevx_share_dev_ctx(pdev), &chain) != 0)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

void
case_teardown(void)
{
	test_children_kill(&children);
	if (pdev != NULL) {
		/* Published objects go with the close; the chain after them. */
		struct mdevx_share_record rec;

		while (mdevx_share_record_next(pdev, 0, &rec) >= 0)
			if (mdevx_share_withdraw(pdev, rec.name, NULL) != 0)
				break;
		chain_destroy(&chain);
		if (mdevx_share_dev_close(pdev) != 0)
			printf("share close: %s\n", strerror(errno));
	}
	pdev = NULL;
}

/* Publish NB_COUNTERS bulks with traffic, and the two TIRs. */
int
publish_objects(struct share_sync *s)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_obj *tir;

	tir_attrs(&chain, &s->tir_direct, &s->tir_rss);
	for (int c = 0; c < NB_COUNTERS; c++) {
		struct mdevx_obj *cnt = mdevx_counter_alloc(ctx, 128);
		uint32_t base;

		TEST_ASSERT_NOT_NULL(cnt, "counter alloc: %s", strerror(errno));
		base = test_obj_id(cnt);
		for (int i = 0; i < 4; i++) {
			s->packets[c][i] = 1000u * (uint64_t)(c + 1) + (uint64_t)i * 3;
			s->bytes[c][i] = s->packets[c][i] * 64 + (uint64_t)c;
			/* counters 0, 5, 10, 127 of the bulk */
			TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV,
					    base + (i == 3 ? 127 : (uint32_t)i * 5),
					    s->packets[c][i], s->bytes[c][i]), "inject");
		}
		snprintf(s->names[s->nb_names], sizeof(s->names[0]), "ctr%d", c);
		TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, s->names[s->nb_names], cnt),
				    "publish counter: %s", strerror(errno));
		s->nb_names++;
	}
	tir = mdevx_tir_create(ctx, &s->tir_direct);
	TEST_ASSERT_NOT_NULL(tir, "direct TIR: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "tir_direct", tir), "publish tir");
	tir = mdevx_tir_create(ctx, &s->tir_rss);
	TEST_ASSERT_NOT_NULL(tir, "RSS TIR: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "tir_rss", tir), "publish tir");
	return TEST_SUCCESS;
}

/*
 * Import "ctr0", say ready, wait for the primary's withdrawal, then check
 * that the import is stale. argv[0] == "mute": never acknowledge.
 */
static int
role_holder(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	bool mute = argc > 0 && strcmp(argv[0], "mute") == 0;
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	struct mdevx_share_record rec;
	struct mdevx_obj_info oi;
	struct mdevx_ctx *ctx;
	struct mdevx_obj *obj;
	mdevx_share_imp_t imp;
	int ret = 1;

	ROLE_CHECK(s != NULL, "no sync memzone");
	if (mute)
		mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0][0], "query before withdrawal");
	/* The wrapper as an application would hold it, across the withdrawal. */
	obj = mdevx_share_import_obj(dev, imp);
	ROLE_CHECK(obj != NULL, "import_obj: %s", strerror(errno));
	ctx = mdevx_obj_ctx(obj);
	ROLE_CHECK(ctx != NULL && mdevx_ctx_nb_objs(ctx) == 1, "one wrapper on the context");
	ROLE_CHECK(mdevx_counter_query(obj, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0][0], "query of the wrapper before withdrawal");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	/* Withdrawn: a mute holder was not notified, but the use is refused. */
	ROLE_CHECK(mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == -ESTALE,
		   "query after withdrawal is not ESTALE");
	ROLE_CHECK(mdevx_share_import_obj(dev, imp) == NULL && errno == ESTALE, "import_obj");
	/*
	 * The notified holder's wrapper is revoked, not freed: its calls give
	 * ESTALE (the mute one's was never revoked: its handler did not run).
	 */
	if (!mute) {
		ROLE_CHECK(mdevx_counter_query(obj, 0, 1, 0, &st) == -ESTALE,
			   "query of the wrapper after withdrawal: %s", strerror(errno));
		ROLE_CHECK(mdevx_obj_info(obj, &oi) == -ESTALE, "info of the revoked wrapper");
	}
	ROLE_CHECK(mdevx_share_dev_imports(dev) == (mute ? 1u : 0u),
		   "live imports %u", mdevx_share_dev_imports(dev));
	ROLE_CHECK(mdevx_share_lookup(dev, "ctr0", &rec) == -ENOENT, "record still there");
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == -ENOENT, "double unimport");
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports left");
	ROLE_CHECK(mdevx_ctx_nb_objs(ctx) == 0, "the wrapper was not freed by the unimport");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_holder, role_holder);

/*
 * What a secondary's device gives once the primary closed it, for counter
 * record @p name it imported as @p imp: lookup and import ENODEV, no
 * iteration, the import ESTALE. NULL, or the first call that did not.
 */
const char *
closed_device_check(struct mdevx_share_dev *dev, const char *name, mdevx_share_imp_t imp)
{
	struct mdevx_counter_stats st;
	struct mdevx_share_record rec;
	mdevx_share_imp_t imp2;

	if (mdevx_share_lookup(dev, name, &rec) != -ENODEV)
		return "lookup is not ENODEV";
	if (mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp2) != -ENODEV)
		return "import is not ENODEV";
	if (mdevx_share_record_next(dev, 0, &rec) != -1)
		return "iteration found a record";
	if (mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) != -ESTALE)
		return "query of the import is not ESTALE";
	return NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process sharing of DEVX objects (libmdevx_share) on the software
 * device, with real secondary processes:
 *
 * mlx5_devx_share_mp_autotest
 *	the primary publishes counter bulks and direct and indirect TIRs;
 *	three secondaries attach, import by name, read the counter values the
 *	primary reads after traffic is injected, query the TIRs and compare;
 *	a withdrawal is acknowledged by every holder, whose later use gets
 *	ESTALE; every count on the device returns to 0.
 * mlx5_devx_share_badinput_autotest
 *	every public call with bad input gets its documented errno, and the
 *	registry, the imports and the device keep their state.
 * mlx5_devx_share_fault_autotest
 *	secondaries killed with SIGKILL in import/unimport loops while others
 *	go on; a secondary that never acknowledges a withdrawal; the primary
 *	killed while secondaries hold imports; concurrent publish/withdraw
 *	against importing secondaries (no torn read, no success on a
 *	withdrawn object); nothing leaked on the device.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define OP_QUERY_FLOW_COUNTER 0x93b	/* PRM opcode, for the device's fault rules */
#define DEVSTR "swdev:" DEV
#define DEV2 "mlx5_1"
#define DEVSTR2 "swdev:" DEV2
#define SYNC_MZ "mdevx_t_share_sync"
#define NB_COUNTERS 2
#define NB_READERS 3
#define CHILD_TIMEOUT_MS 60000
#define WAIT_MS 20000
#define OP_DEALLOC_FLOW_COUNTER 0x93a	/* PRM opcode, for fault injection */
#define STAT_INTERNAL_ERR 0x01

/* Shared between the test primary and its secondaries. */
struct share_sync {
	volatile uint32_t ready;
	volatile uint32_t go;
	volatile uint32_t stop;
	volatile uint32_t failures;
	volatile uint64_t ops;
	volatile uint64_t wrapper_stale;	/* looper wrappers revoked between two reads */
	uint32_t nb_names;
	char names[64][MDEVX_SHARE_NAME_MAX + 1];
	uint64_t packets[NB_COUNTERS][4];
	uint64_t bytes[NB_COUNTERS][4];
	struct mdevx_tir_attr tir_direct;
	struct mdevx_tir_attr tir_rss;
};

/* Objects a TIR needs. */
struct tir_chain {
	struct mdevx_obj *td, *pd, *cq, *rq[2], *rqt;
};

static struct swdev_ctl *ctl;
static const struct rte_memzone *sync_mz;

static struct share_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

/* Wait until *v >= want, up to ms milliseconds. */
static bool
wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms)
{
	return test_wait_at_least(v, want, ms, NULL);
}

/*
 * A new bulk of @p bulk counters published as @p name on @p dev: 0, or -1
 * with errno (a counter that could not be published is destroyed).
 */
static int
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

static int
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

static int
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

static void
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

static bool
tir_attr_equal(const struct mdevx_tir_attr *a, const struct mdevx_tir_attr *b)
{
	return a->disp_type == b->disp_type && a->inline_rqn == b->inline_rqn &&
	       a->indirect_table == b->indirect_table &&
	       a->transport_domain == b->transport_domain && a->rx_hash_fn == b->rx_hash_fn &&
	       a->outer_l3_prot_type == b->outer_l3_prot_type &&
	       a->outer_l4_prot_type == b->outer_l4_prot_type &&
	       a->outer_selected_fields == b->outer_selected_fields &&
	       memcmp(a->toeplitz_key, b->toeplitz_key, MDEVX_TOEPLITZ_KEY_LEN) == 0;
}

/* Children of the current case: the teardowns kill those still running. */
static struct test_children children;

/* ------------------------------------------------------------------ */
/* Fixture: primary share device, TIR chain, sync memzone              */
/* ------------------------------------------------------------------ */

static struct mdevx_share_dev *pdev;
static struct tir_chain chain;

static int
share_suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct share_sync));
}

static void
share_suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

static int
case_setup(void)
{
	struct mdevx_share_conf conf = { .capacity = 256, .withdraw_timeout_ms = 3000 };

	if (test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct share_sync)) != TEST_SUCCESS)
		return TEST_FAILED;
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	if (chain_create(mdevx_share_dev_ctx(pdev), &chain) != 0)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

static void
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
static int
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

static const uint32_t ctr_offsets[4] = { 0, 5, 10, 127 };

/* ------------------------------------------------------------------ */
/* Secondary roles                                                     */
/* ------------------------------------------------------------------ */

#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(NULL, cond, __VA_ARGS__)

/* Attach, import everything by name, compare with the primary's values. */
static int
role_reader(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	mdevx_share_imp_t imp[NB_COUNTERS + 2];
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st[128];
	struct mdevx_tir_attr attr;
	int ret = 1, n = 0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_attach(DEVSTR) == dev, "attach is not cached");
	mdevx_share_dev_close(dev);	/* drop the second reference */
	for (int c = 0; c < NB_COUNTERS; c++, n++) {
		ROLE_CHECK(mdevx_share_import(dev, s->names[c], MDEVX_OBJ_FLOW_COUNTER,
					      &imp[n]) == 0,
			   "import %s: %s", s->names[c], strerror(errno));
		/* The whole bulk in one call, then compare the injected ones. */
		ROLE_CHECK(mdevx_share_counter_query(dev, imp[n], 0, 128, 0, st) == 0,
			   "query: %s", strerror(errno));
		for (int i = 0; i < 4; i++)
			ROLE_CHECK(st[ctr_offsets[i]].packets == s->packets[c][i] &&
				   st[ctr_offsets[i]].bytes == s->bytes[c][i],
				   "counter %u of %s: %" PRIu64 "/%" PRIu64 " want %" PRIu64,
				   ctr_offsets[i], s->names[c], st[ctr_offsets[i]].packets,
				   st[ctr_offsets[i]].bytes, s->packets[c][i]);
		ROLE_CHECK(st[1].packets == 0 && st[126].bytes == 0, "untouched counters");
	}
	ROLE_CHECK(mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &imp[n]) == 0,
		   "import tir_direct: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_tir_query(dev, imp[n], &attr) == 0, "query: %s", strerror(errno));
	ROLE_CHECK(tir_attr_equal(&attr, &s->tir_direct), "direct TIR attributes differ");
	n++;
	ROLE_CHECK(mdevx_share_import(dev, "tir_rss", MDEVX_OBJ_TIR, &imp[n]) == 0,
		   "import tir_rss: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_tir_query(dev, imp[n], &attr) == 0, "query: %s", strerror(errno));
	ROLE_CHECK(tir_attr_equal(&attr, &s->tir_rss), "RSS TIR attributes differ");
	n++;
	ROLE_CHECK(mdevx_share_dev_imports(dev) == (uint32_t)n, "import count");
	for (int i = 0; i < n; i++)
		ROLE_CHECK(mdevx_share_unimport(dev, imp[i]) == 0, "unimport");
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports left");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_reader, role_reader);

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
 * Loop: import a random record, check it, unimport; until stop. A success
 * on a withdrawn object, a torn record or a wrong counter value counts as
 * a failure. The counter at offset 0 of each bulk holds object id * 3 + 1.
 */
static int
role_looper(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	uint64_t seed = (uint64_t)getpid() * 2654435761u, ops = 0, stale_rounds = 0;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!s->stop) {
		struct mdevx_counter_stats st;
		mdevx_share_imp_t imp;
		struct mdevx_obj *obj;
		uint32_t id;
		int rc;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		rc = mdevx_share_import(dev, s->names[seed % s->nb_names], MDEVX_OBJ_FLOW_COUNTER,
					&imp);
		if (rc == -ENOENT || rc == -ESTALE || rc == -EAGAIN)
			continue;
		ROLE_CHECK(rc == 0, "import: %s", strerror(-rc));
		/* No id when the wrapper could not be had (withdrawn, or EAGAIN). */
		obj = mdevx_share_import_obj(dev, imp);
		id = obj != NULL ? test_obj_id(obj) : UINT32_MAX;
		/*
		 * EAGAIN: the primary was rewriting the record's slot for longer
		 * than a reader spins (documented; ThreadSanitizer's slowdown of
		 * the writer makes it happen).
		 */
		rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
		if (rc == 0 && id != UINT32_MAX)
			ROLE_CHECK(st.packets == (uint64_t)id * 3 + 1,
				   "counter of id %u reads %" PRIu64, id, st.packets);
		else if (rc != 0)
			ROLE_CHECK(rc == -ESTALE || rc == -EAGAIN, "query: %s", strerror(-rc));
		/*
		 * The wrapper too, racing with the withdrawal's revocation: its
		 * own counter until ESTALE, then ESTALE only; never a bulk that
		 * reuses the id. Every 64th round keeps at it for 2 ms, so that
		 * withdrawals (one every few ms per name) land while it is in use.
		 */
		if (obj != NULL && id != UINT32_MAX) {
			uint64_t end = ops % 64 == 0 ? test_now_ms() + 2 : 0;
			bool stale = false, read = false;

			do {
				rc = mdevx_counter_query(obj, 0, 1, 0, &st);
				if (rc == -ESTALE) {
					stale = true;
					continue;
				}
				ROLE_CHECK(rc == 0, "wrapper query: %s", strerror(-rc));
				ROLE_CHECK(!stale, "wrapper query succeeded after ESTALE");
				ROLE_CHECK(st.packets == (uint64_t)id * 3 + 1,
					   "wrapper of id %u reads %" PRIu64, id, st.packets);
				read = true;
			} while (test_now_ms() < end);
			/* revoked while in use: read, then ESTALE */
			stale_rounds += stale && read;
		}
		ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
		ops++;
		__atomic_add_fetch(&s->ops, 1, __ATOMIC_RELAXED);
	}
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports left");
	ret = 0;
out:
	if (s != NULL)
		__atomic_add_fetch(&s->wrapper_stale, stale_rounds, __ATOMIC_RELAXED);
	if (ret != 0 && s != NULL)
		__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_looper, role_looper);

/* ------------------------------------------------------------------ */
/* mlx5_devx_share_mp_autotest                                         */
/* ------------------------------------------------------------------ */

static int
test_share_readers(void)
{
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_record rec;
	pid_t pids[NB_READERS];

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), NB_COUNTERS + 2, "records");
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(pdev, "tir_rss", &rec), "lookup");
	TEST_ASSERT(rec.kind == MDEVX_OBJ_TIR && rec.rx_icm_addr != 0 && rec.tirn != 0 &&
		    rec.owner_pid == getpid() && !rec.withdrawn, "tir_rss record");
	for (int i = 0; i < NB_READERS; i++) {
		pids[i] = test_children_spawn(&children, "share_reader", 0, NULL);
		TEST_ASSERT(pids[i] > 0, "spawn");
	}
	for (int i = 0; i < NB_READERS; i++) {
		int st = test_mp_wait(pids[i], CHILD_TIMEOUT_MS);

		TEST_ASSERT_EQUAL(st, 0, "reader %d exited with %d", i, st);
	}
	return TEST_SUCCESS;
}

static int
test_share_withdraw_acked(void)
{
	struct share_sync *s = sync_mz->addr;
	struct mdevx_counter_stats st;
	pid_t pids[NB_READERS];
	mdevx_share_imp_t own;
	unsigned int acked = 0;
	uint32_t before, after;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	/* The primary imports too: its own import goes stale as well. */
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &own), "own");
	for (int i = 0; i < NB_READERS; i++) {
		pids[i] = test_children_spawn(&children, "share_holder", 0, NULL);
		TEST_ASSERT(pids[i] > 0, "spawn");
	}
	TEST_ASSERT(wait_at_least(&s->ready, NB_READERS, WAIT_MS), "holders not ready");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &before), "counts");
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr0", &acked), "withdraw: %s",
			    strerror(errno));
	TEST_ASSERT_EQUAL(acked, NB_READERS, "acknowledgements");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &after), "counts");
	TEST_ASSERT_EQUAL(after, before - 1, "the counter bulk was not destroyed");
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, own, 0, 1, 0, &st), ESTALE);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, own), "own unimport");
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NB_READERS; i++) {
		int rc = test_mp_wait(pids[i], CHILD_TIMEOUT_MS);

		TEST_ASSERT_EQUAL(rc, 0, "holder %d exited with %d", i, rc);
	}
	TEST_ASSERT_RC_ERRNO(mdevx_share_withdraw(pdev, "ctr0", NULL), ENOENT);
	return TEST_SUCCESS;
}

static int
test_share_device_empty(void)
{
	struct share_sync *s = sync_mz->addr;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	case_teardown();	/* withdraw all, destroy the chain, close */
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* Ask the primary's telemetry socket (what dpdk-telemetry.py does). */
static int
telemetry_query(const char *cmd, char *out, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char greeting[1024];
	ssize_t n;
	int fd;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    read(fd, greeting, sizeof(greeting)) <= 0 ||
	    write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd)) {
		close(fd);
		return -1;
	}
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

/*
 * The commands are there before the process opens a device (the library
 * registers them when it is loaded), and answer with empty lists. Runs
 * first in its suite: no device was ever open in the process.
 */
static int
test_share_telemetry_unopened(void)
{
	char buf[16384];

	TEST_ASSERT_NULL(pdev, "a device is open");
	TEST_ASSERT_SUCCESS(telemetry_query("/", buf, sizeof(buf)), "commands");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/devs\"") && strstr(buf, "\"/mdevx/share/list\"") &&
		    strstr(buf, "\"/mdevx/share/info\"") &&
		    strstr(buf, "\"/mdevx/share/counter\"") &&
		    strstr(buf, "\"/mdevx/share/service\""), "commands: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/devs", buf, sizeof(buf)), "devs");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/devs\":[]") != NULL, "devs: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list", buf, sizeof(buf)), "list");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/list\":[]") != NULL, "list: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/service", buf, sizeof(buf)),
			    "service");
	TEST_ASSERT(strstr(buf, "null") != NULL, "service of no device: %s", buf);
	return TEST_SUCCESS;
}

static int
test_share_telemetry(void)
{
	struct share_sync *s = sync_mz->addr;
	char buf[16384];

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/devs", buf, sizeof(buf)), "devs");
	TEST_ASSERT(strstr(buf, "\"" DEVSTR "\"") != NULL, "devs: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list", buf, sizeof(buf)), "list");
	TEST_ASSERT(strstr(buf, "\"ctr0\"") && strstr(buf, "\"ctr1\"") &&
		    strstr(buf, "\"tir_direct\"") && strstr(buf, "\"tir_rss\""), "list: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/info,tir_rss", buf, sizeof(buf)),
			    "info");
	TEST_ASSERT(strstr(buf, "\"kind\":\"tir\"") && strstr(buf, "\"state\":\"published\"") &&
		    strstr(buf, "rx_icm_addr"), "info: %s", buf);
	/* registered (DPDK refuses a command whose help text is too long) */
	TEST_ASSERT_SUCCESS(telemetry_query("/", buf, sizeof(buf)), "commands");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/counter\"") &&
		    strstr(buf, "\"/mdevx/share/service\""), "commands: %s", buf);
	/* this primary runs no counter snapshot service */
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/service", buf, sizeof(buf)),
			    "service");
	TEST_ASSERT(strstr(buf, "\"state\":\"off\"") && strstr(buf, "\"period_ms\":0") &&
		    strstr(buf, "\"device\":\"" DEVSTR "\""), "service: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/service,nodev", buf, sizeof(buf)),
			    "service");
	TEST_ASSERT(strstr(buf, "null") != NULL, "service of no device: %s", buf);
	/* no snapshot (ENODATA), a TIR, a range past the bulk, no name: null */
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/counter,ctr0", buf, sizeof(buf)),
			    "counter");
	TEST_ASSERT(strstr(buf, "null") != NULL, "counter without a service: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/counter,tir_rss", buf, sizeof(buf)),
			    "counter");
	TEST_ASSERT(strstr(buf, "null") != NULL, "counter of a TIR: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/counter,ctr0,0,100000", buf,
					    sizeof(buf)), "counter");
	TEST_ASSERT(strstr(buf, "null") != NULL, "counters past the bulk: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/counter", buf, sizeof(buf)),
			    "counter");
	TEST_ASSERT(strstr(buf, "null") != NULL, "counter without a name: %s", buf);
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr1", NULL), "withdraw");
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list", buf, sizeof(buf)), "list");
	TEST_ASSERT(strstr(buf, "\"ctr1\"") == NULL, "withdrawn record listed: %s", buf);
	/* a primary does not ask itself for its devices */
	TEST_ASSERT_EQUAL(mdevx_share_primary_devs(NULL, 0), -EPERM, "primary_devs in the "
			  "primary");
	return TEST_SUCCESS;
}

static struct unit_test_suite share_mp_suite = {
	.suite_name = "mlx5 devx share multi-process",
	.setup = share_suite_setup,
	.teardown = share_suite_teardown,
	.unit_test_cases = {
		TEST_CASE(test_share_telemetry_unopened),
		TEST_CASE_ST(case_setup, case_teardown, test_share_readers),
		TEST_CASE_ST(case_setup, case_teardown, test_share_withdraw_acked),
		TEST_CASE_ST(case_setup, case_teardown, test_share_telemetry),
		TEST_CASE_ST(case_setup, case_teardown, test_share_device_empty),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_mp(void)
{
	return unit_test_suite_runner(&share_mp_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_mp_autotest, test_share_mp);

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

#define SAME_STATE(a) do {						\
	struct state_snap _b;						\
	TEST_ASSERT_SUCCESS(snap(&_b), "counts");			\
	TEST_ASSERT(_b.records == (a).records && _b.imports == (a).imports && \
		    _b.device == (a).device, "state changed: records %u->%u imports " \
		    "%u->%u device objects %u->%u", (a).records, _b.records,	\
		    (a).imports, _b.imports, (a).device, _b.device);	\
} while (0)

/* A call that returns a count or a cookie: 0, with errno @p e. */
#define TEST_ASSERT_ZERO_ERRNO(expr, e) do {				\
	uint64_t _v;							\
	errno = 0;							\
	_v = (expr);							\
	TEST_ASSERT_EQUAL(_v, 0, "%s returned %" PRIu64 ", want 0", #expr, _v); \
	TEST_ASSERT_EQUAL(errno, (e), "%s: errno %d (%s), want %s",	\
			  #expr, errno, strerror(errno), #e);		\
} while (0)

/*
 * A refused call of libmdevx_share: as the macros above, and rte_errno set
 * by the call (it is cleared before) to the same errno, as DPDK APIs do.
 */
#define TEST_ASSERT_RTE_ERRNO(what, e) \
	TEST_ASSERT_EQUAL(rte_errno, (e), "%s: rte_errno %d (%s), want %s", what, \
			  rte_errno, strerror(rte_errno), #e)
#define TEST_ASSERT_RC_RTE_ERRNO(expr, e) do {				\
	rte_errno = 0;							\
	TEST_ASSERT_RC_ERRNO(expr, e);					\
	TEST_ASSERT_RTE_ERRNO(#expr, e);				\
} while (0)
#define TEST_ASSERT_NULL_RTE_ERRNO(expr, e) do {			\
	rte_errno = 0;							\
	TEST_ASSERT_NULL_ERRNO(expr, e);				\
	TEST_ASSERT_RTE_ERRNO(#expr, e);				\
} while (0)
#define TEST_ASSERT_ZERO_RTE_ERRNO(expr, e) do {			\
	rte_errno = 0;							\
	TEST_ASSERT_ZERO_ERRNO(expr, e);				\
	TEST_ASSERT_RTE_ERRNO(#expr, e);				\
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

	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_dev_open(NULL, NULL), EINVAL);
	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_dev_open(DEVSTR, NULL), EEXIST);
	/* Closed twice: the closed device is not read again (ASan: use after free). */
	dev2 = mdevx_share_dev_open(DEVSTR2, NULL);
	TEST_ASSERT_NOT_NULL(dev2, "open %s: %s", DEVSTR2, strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev2), "close");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_dev_close(dev2), ENOENT);
	/* we are the primary */
	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_dev_attach(DEVSTR), EPERM);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_dev_close(NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(NULL, "x", NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_withdraw(NULL, "ctr0", NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_withdraw(pdev, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(NULL, "ctr0", &rec), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, "ctr0", NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, NULL, &rec), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(NULL, "ctr0", MDEVX_OBJ_ANY, &imp), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, NULL, MDEVX_OBJ_ANY, &imp), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_ANY, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr0", (enum mdevx_obj_kind)7, &imp),
			     EINVAL);
	/* an object kind that no record holds */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_TD, &imp), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(NULL, imp), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(NULL, imp, 0, 1, 0, &st), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_tir_query(NULL, imp, &attr), EINVAL);
	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_import_obj(NULL, imp), EINVAL);
	/* The counts of no device: 0, a real count too, so errno says why. */
	TEST_ASSERT_ZERO_RTE_ERRNO(mdevx_share_record_count(NULL), EINVAL);
	TEST_ASSERT_ZERO_RTE_ERRNO(mdevx_share_dev_imports(NULL), EINVAL);
	TEST_ASSERT_ZERO_RTE_ERRNO(mdevx_share_dev_cookie(NULL), EINVAL);
	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_dev_ctx(NULL), EINVAL);
	SAME_STATE(a);

	/* Unknown and too long names. */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, "nope", &rec), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "nope", MDEVX_OBJ_ANY, &imp), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_withdraw(pdev, "nope", NULL), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, longname, &rec), ENAMETOOLONG);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, longname, MDEVX_OBJ_ANY, &imp),
			     ENAMETOOLONG);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_withdraw(pdev, longname, NULL), ENAMETOOLONG);
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 1);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(snap(&a), "counts");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, longname, cnt), ENAMETOOLONG);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, "", cnt), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, "ctr0", cnt), EEXIST);
	/* Wrong kinds: a transport domain is not shareable. */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, "td", chain.td), EPROTOTYPE);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr0", MDEVX_OBJ_TIR, &imp), EPROTOTYPE);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "tir_rss", MDEVX_OBJ_FLOW_COUNTER, &imp),
			     EPROTOTYPE);
	/* Handles that are not imports, or of another kind. */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(pdev, bogus), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, bogus, 0, 1, 0, &st), ENOENT);
	SAME_STATE(a);
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "tir_rss", MDEVX_OBJ_TIR, &imp), "imp");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), EPROTOTYPE);
	/* Double unimport. */
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(pdev, imp), ENOENT);
	/* Handles just past the import slots there are (one chunk of 4096). */
	for (uint64_t id = 4096; id <= 4098; id++) {
		mdevx_share_imp_t past = { .id = id };

		TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(pdev, past), ENOENT);
		TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, past, 0, 1, 0, &st), ENOENT);
	}
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_tir_query(pdev, imp, &attr), ENOENT);
	SAME_STATE(a);
	/* Published once, owned by the device: a second name is refused. */
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "dup1", cnt), "publish");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(pdev, "dup2", cnt), EEXIST);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, "dup2", &rec), ENOENT);
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "dup1", NULL), "withdraw");
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), a.records, "records");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(cnt), ENOENT);
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
	TEST_ASSERT_RTE_ERRNO("mdevx_share_record_next() without a record", EINVAL);
	rte_errno = 0;
	errno = 0;
	next = mdevx_share_record_next(NULL, 0, &rec);
	TEST_ASSERT(next == -1 && errno == EINVAL, "record_next: %" PRId64 " errno %d", next,
		    errno);
	TEST_ASSERT_RTE_ERRNO("mdevx_share_record_next() without a device", EINVAL);
	rte_errno = 0;
	errno = 0;
	next = mdevx_share_record_next(pdev, UINT32_MAX, &rec);
	TEST_ASSERT(next == -1 && errno == 0 && rte_errno == 0,
		    "end of the walk: %" PRId64 " errno %d rte_errno %d", next, errno, rte_errno);
	/* a primary does not ask itself for its devices */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_primary_devs(NULL, 0), EPERM);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_primary_devs(NULL, 1), EINVAL);
	/* rules */
	rte_errno = 0;
	errno = 0;
	r = mdevx_share_rule_create(pdev, NULL, &rattr);
	TEST_ASSERT(r.id == 0 && errno == EINVAL, "rule without a matcher: %" PRIu64
		    " errno %d", r.id, errno);
	TEST_ASSERT_RTE_ERRNO("mdevx_share_rule_create() without a matcher", EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_rule_destroy(pdev, rule), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_rule_destroy(NULL, rule), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_rule_state(pdev, rule), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_rule_handle(pdev, rule, &handle), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_rule_handle(pdev, rule, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_dev_rules(NULL, &own, &peers), EINVAL);
	/* the counter snapshot: this device runs no service */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_read(pdev, ctr, 0, 1, NULL, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_read(pdev, bogus, 0, 1, st, NULL), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_read(pdev, ctr, 0, 1, st, NULL), ENODATA);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_read(pdev, ctr, 127, 2, st, NULL), ERANGE);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_refresh(NULL, ctr, 10), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_refresh(pdev, tir, 10), EPROTOTYPE);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_refresh(pdev, ctr, 10), ENODATA);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_service_stats(pdev, NULL), EINVAL);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_service_stats(pdev, &svc), ENODATA);
	/* errors of libmdevx pass through with their errno */
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, ctr, 127, 2, 0, st), ERANGE);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_tir_query(pdev, tir, NULL), EINVAL);
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
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_withdraw(dev2, "eio", NULL), EIO);
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
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), EBADMSG);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_lookup(pdev, "ctr1", &rec), EBADMSG);
	SAME_STATE(a);
	raw[112 + info.export_len - 1] ^= 0x04;
	/* A record whose writer died mid-write (odd sequence): EAGAIN, no hang. */
	raw[0] |= 1;
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), EAGAIN);
	raw[0] &= (uint8_t)~1;
	SAME_STATE(a);
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr1", MDEVX_OBJ_ANY, &imp), "import");

	/* Stale generation: withdraw, publish again under the same name. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr1", NULL), "withdraw");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), ESTALE);
	TEST_ASSERT_NULL_RTE_ERRNO(mdevx_share_import_obj(pdev, imp), ESTALE);
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 128);
	TEST_ASSERT_NOT_NULL(cnt, "alloc");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "ctr1", cnt), "republish");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), ESTALE);
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
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(small, "c4", cnt[4]), ENOSPC);
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
			TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_publish(dev, name, cnt[i]), EEXIST);
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
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(dev, h1), ENOENT);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, h2), "unimport at the last generation");
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "w0", MDEVX_OBJ_FLOW_COUNTER, &h3), "import");
	TEST_ASSERT((uint32_t)h3.id != (uint32_t)h1.id, "the wrapped slot was handed out again");
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(dev, h1), ENOENT);
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_unimport(dev, h2), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 1u, "the new import");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, h3), "unimport");
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 0u, "imports left");
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
	ROLE_CHECK(mdevx_share_dev_attach("swdev:mlx5_9") == NULL && errno == ENODEV,
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
	TEST_ASSERT_RC_RTE_ERRNO(mdevx_share_import(dev, "shared", MDEVX_OBJ_ANY, &imp), EXDEV);
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
 * What a secondary's device gives once the primary closed it, for counter
 * record @p name it imported as @p imp: lookup and import ENODEV, no
 * iteration, the import ESTALE. NULL, or the first call that did not.
 */
static const char *
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

/*
 * Secondary: import "o" of DEV2, wait until the primary closed the device
 * (its registry memzone is freed, its memory reused): nothing reads the
 * registry any more, calls fail cleanly.
 */
static int
role_orphan(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL, *dev2 = NULL;
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
	ROLE_CHECK(mdevx_share_import(dev2, "o", MDEVX_OBJ_FLOW_COUNTER, &imp2) == 0,
		   "import after the second open: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_unimport(dev2, imp2) == 0, "unimport");
	ROLE_CHECK(mdevx_share_dev_close(dev2) == 0, "close the new device");
	dev2 = NULL;
	ret = 0;
out:
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
		TEST_CASE_ST(case_setup, case_teardown, test_bad_forged_record),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_closed_handle),
		TEST_CASE_ST(case_setup, case_teardown, test_bad_unimport_busy),
		TEST_CASE(test_bad_attach_after_close),
		TEST_CASE(test_bad_primary_closed),
		TEST_CASE(test_bad_full_registry),
		TEST_CASE(test_bad_owned_set),
		TEST_CASE(test_bad_handle_wrap),
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

/* ------------------------------------------------------------------ */
/* mlx5_devx_share_fault_autotest                                      */
/* ------------------------------------------------------------------ */

/* Counter bulks whose counter 0 holds id * 3 + 1 packets. */
static int
publish_looper_counter(const char *name)
{
	struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(pdev), 128);
	uint32_t id;

	TEST_ASSERT_NOT_NULL(cnt, "alloc: %s", strerror(errno));
	id = test_obj_id(cnt);
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, id, (uint64_t)id * 3 + 1, 64),
			    "inject");
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, name, cnt), "publish %s: %s", name,
			    strerror(errno));
	return TEST_SUCCESS;
}

static int
test_fault_kill_loopers(void)
{
	struct share_sync *s = sync_mz->addr;
	const int nb = 4, nb_kill = 2, rounds = 5;
	pid_t pids[4];
	uint64_t seed = (uint64_t)getpid();

	s->nb_names = 8;
	for (uint32_t i = 0; i < s->nb_names; i++) {
		snprintf(s->names[i], sizeof(s->names[0]), "loop%u", i);
		TEST_ASSERT_SUCCESS(publish_looper_counter(s->names[i]), "publish");
	}
	for (int r = 0; r < rounds; r++) {
		s->ready = 0;
		for (int i = 0; i < nb; i++) {
			pids[i] = test_children_spawn(&children, "share_looper", 0, NULL);
			TEST_ASSERT(pids[i] > 0, "spawn");
		}
		TEST_ASSERT(wait_at_least(&s->ready, (uint32_t)nb, WAIT_MS), "loopers not ready");
		/* Kill some at random points of their loops; the others go on. */
		for (int k = 0; k < nb_kill; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			usleep(10000 + (unsigned int)(seed >> 33) % 150000);
			kill(pids[k], SIGKILL);
			TEST_ASSERT_EQUAL(test_mp_wait(pids[k], 5000), 128 + SIGKILL, "kill");
		}
		usleep(100000);
		s->stop = 1;
		for (int i = nb_kill; i < nb; i++)
			TEST_ASSERT_EQUAL(test_mp_wait(pids[i], CHILD_TIMEOUT_MS), 0, "looper");
		s->stop = 0;
	}
	printf("loopers did %" PRIu64 " import/query/unimport rounds\n", (uint64_t)s->ops);
	TEST_ASSERT(s->ops > 0, "no work done");
	TEST_ASSERT_EQUAL(s->failures, 0, "looper failures");
	/* Registry consistent: every record reads back whole and published. */
	for (uint32_t i = 0; i < s->nb_names; i++) {
		struct mdevx_share_record rec;
		unsigned int acked;

		TEST_ASSERT_SUCCESS(mdevx_share_lookup(pdev, s->names[i], &rec), "lookup");
		TEST_ASSERT(!rec.withdrawn, "withdrawn");
		TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, s->names[i], &acked), "withdraw");
	}
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), 0, "records left");
	return TEST_SUCCESS;
}

static int
test_fault_mute_secondary(void)
{
	struct share_sync *s = sync_mz->addr;
	const char *mute[1] = { "mute" };
	unsigned int acked = 99;
	pid_t p_ok, p_mute;
	uint64_t t0, dt;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	p_ok = test_children_spawn(&children, "share_holder", 0, NULL);
	p_mute = test_children_spawn(&children, "share_holder", 1, mute);
	TEST_ASSERT(p_ok > 0 && p_mute > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "holders not ready");
	t0 = test_now_ms();
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "ctr0", &acked), "withdraw");
	dt = test_now_ms() - t0;
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements");
	/* Bounded: the timeout of the fixture is 3 s. */
	TEST_ASSERT(dt >= 2500 && dt < 10000, "withdraw took %" PRIu64 " ms", dt);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	TEST_ASSERT_EQUAL(test_mp_wait(p_ok, CHILD_TIMEOUT_MS), 0, "holder");
	TEST_ASSERT_EQUAL(test_mp_wait(p_mute, CHILD_TIMEOUT_MS), 0, "mute holder");
	return TEST_SUCCESS;
}

/*
 * Another instance: a primary that publishes a counter on DEV2 and starts
 * two secondaries that import it; it writes "<dir>/ready" with the counter
 * id and waits to be killed. The secondaries wait for "<dir>/dead", then
 * read the counter through their import and write "<dir>/result.N".
 */
static int
role_victim_secondary(int argc, char **argv)
{
	struct mdevx_share_dev *dev;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	char buf[128], name[32];
	uint64_t want = 0;

	if (argc < 2)
		return 2;
	dev = mdevx_share_dev_attach(DEVSTR2);
	if (dev == NULL || mdevx_share_import(dev, "victim_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
		return 3;
	snprintf(name, sizeof(name), "ready.%s", argv[1]);
	test_file_write(argv[0], name, "1");
	if (test_file_read(argv[0], "dead", buf, sizeof(buf), WAIT_MS) != 0)
		return 4;
	want = strtoull(buf, NULL, 10);
	snprintf(name, sizeof(name), "result.%s", argv[1]);
	/* The primary is gone; the uverbs file lives on with our fd. */
	if (mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == 0 && st.packets == want)
		test_file_write(argv[0], name, "ok");
	else
		test_file_write(argv[0], name, "bad");
	mdevx_share_unimport(dev, imp);
	mdevx_share_dev_close(dev);
	return 0;
}
REGISTER_TEST_SECONDARY(share_victim_secondary, role_victim_secondary);

static int
role_victim_primary(int argc, char **argv)
{
	struct mdevx_share_dev *dev;
	struct mdevx_obj *cnt;
	char buf[64];

	if (argc < 1)
		return 2;
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	if (dev == NULL)
		return 3;
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 128);
	if (cnt == NULL)
		return 4;
	snprintf(buf, sizeof(buf), "%u", test_obj_id(cnt));
	if (mdevx_share_publish(dev, "victim_ctr", cnt) != 0)
		return 5;
	for (int i = 0; i < 2; i++) {
		const char *args[2] = { argv[0], i == 0 ? "0" : "1" };

		if (test_mp_spawn("share_victim_secondary", NULL, 2, args) <= 0)
			return 6;
	}
	for (int i = 0; i < 2; i++) {
		char name[16], tmp[8];

		snprintf(name, sizeof(name), "ready.%d", i);
		if (test_file_read(argv[0], name, tmp, sizeof(tmp), WAIT_MS) != 0)
			return 7;
	}
	test_file_write(argv[0], "ready", buf);
	for (;;)
		pause();
	return 0;
}
REGISTER_TEST_SECONDARY(share_victim_primary, role_victim_primary);

static int
test_fault_primary_killed(void)
{
	char dir[] = "/tmp/mdevx-victim-XXXXXX", prefix[128], buf[64], val[32];
	const char *args[1] = { dir };
	uint32_t counter_id;
	int ok = 0, rc;
	pid_t victim;

	TEST_ASSERT_NOT_NULL(mkdtemp(dir), "mkdtemp");
	snprintf(prefix, sizeof(prefix), "%s_victim", test_file_prefix());
	victim = test_mp_spawn_primary("share_victim_primary", prefix, 1, args);
	TEST_ASSERT(victim > 0, "spawn");
	rc = test_file_read(dir, "ready", buf, sizeof(buf), WAIT_MS);
	if (rc != 0) {
		kill(victim, SIGKILL);
		printf("victim primary exited with %d\n", test_mp_wait(victim, 1000));
		return TEST_FAILED;
	}
	counter_id = (uint32_t)strtoul(buf, NULL, 10);
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV2, counter_id, 4242, 4242 * 60),
			    "inject");
	kill(victim, SIGKILL);
	TEST_ASSERT_EQUAL(test_mp_wait(victim, 5000), 128 + SIGKILL, "victim");
	snprintf(val, sizeof(val), "%d", 4242);
	TEST_ASSERT_SUCCESS(test_file_write(dir, "dead", val), "dead file");
	for (int i = 0; i < 2; i++) {
		char name[16];

		snprintf(name, sizeof(name), "result.%d", i);
		if (test_file_read(dir, name, buf, sizeof(buf), WAIT_MS) == 0 && strcmp(buf, "ok") == 0)
			ok++;
		else
			printf("secondary %d of the killed primary: '%s'\n", i, buf);
	}
	rc = system("true");
	RTE_SET_USED(rc);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	if (system(buf) != 0)
		printf("cannot remove %s\n", dir);
	TEST_ASSERT_EQUAL(ok, 2, "secondaries lost their imports with the primary");
	/* Once they are gone too, the uverbs file and its objects go. */
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV2, 10000), "objects left on " DEV2);
	return TEST_SUCCESS;
}

/*
 * A secondary of a primary that exits without mdevx_share_dev_close(): it
 * imports, then, once the primary is gone, writes what a use of its import
 * gives ("estale" or "ok") and whether the name still imports.
 */
static int
role_exit_secondary(int argc, char **argv)
{
	struct mdevx_share_dev *dev;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp, imp2;
	char buf[16], res[64];
	int q, r;

	if (argc < 1)
		return 2;
	dev = mdevx_share_dev_attach(DEVSTR2);
	if (dev == NULL || mdevx_share_import(dev, "exit_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
		return 3;
	test_file_write(argv[0], "ready.sec", "1");
	if (test_file_read(argv[0], "check", buf, sizeof(buf), WAIT_MS) != 0)
		return 4;
	q = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	r = mdevx_share_import(dev, "exit_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp2);
	if (r == 0)
		mdevx_share_unimport(dev, imp2);
	snprintf(res, sizeof(res), "%s %s", q == -ESTALE ? "estale" : q == 0 ? "ok" : "bad",
		 r == 0 ? "imports" : "refused");
	test_file_write(argv[0], "result", res);
	/* A withdrawn import is still unimported, once. */
	r = mdevx_share_unimport(dev, imp);
	mdevx_share_dev_close(dev);
	return r == 0 ? 0 : 5;
}
REGISTER_TEST_SECONDARY(share_exit_secondary, role_exit_secondary);

/*
 * A primary that publishes a counter bulk, has a secondary import it, and
 * on "go" leaves with the device open: argv[1] "exit" calls exit() (no
 * rte_eal_cleanup(): the exit handler withdraws), "cleanup" returns to
 * main, which calls rte_eal_cleanup() first (nothing can be withdrawn).
 */
static int
role_exit_primary(int argc, char **argv)
{
	const char *args[1];
	struct mdevx_share_record rec;
	struct mdevx_share_dev *dev;
	char buf[16];
	pid_t child;
	int st;

	if (argc < 2)
		return 2;
	args[0] = argv[0];
	dev = mdevx_share_dev_open(DEVSTR2, NULL);
	if (dev == NULL)
		return 3;
	if (publish_counter(dev, "exit_ctr", 128) != 0)
		return 4;
	/* A child forked without exec inherits the exit handler: it must not act. */
	child = fork();
	if (child == 0)
		exit(0);
	if (child < 0 || waitpid(child, &st, 0) != child || st != 0 ||
	    mdevx_share_lookup(dev, "exit_ctr", &rec) != 0 ||
	    rec.withdrawn)
		return 8;
	if (test_mp_spawn("share_exit_secondary", NULL, 1, args) <= 0)
		return 5;
	if (test_file_read(argv[0], "ready.sec", buf, sizeof(buf), WAIT_MS) != 0)
		return 6;
	test_file_write(argv[0], "ready", "1");
	if (test_file_read(argv[0], "go", buf, sizeof(buf), WAIT_MS) != 0)
		return 7;
	if (strcmp(argv[1], "exit") == 0)
		exit(0);
	return 0;
}
REGISTER_TEST_SECONDARY(share_exit_primary, role_exit_primary);

/* The hook: note when exit() is called (in the parent's dir, @p arg), then call it. */
static void
exit_in_import(void *arg)
{
	char when[32];

	snprintf(when, sizeof(when), "%" PRIu64, test_now_ms());
	if (test_file_write(arg, "exiting", when) != 0)
		exit(6);
	exit(0);
}

/*
 * A primary that calls exit() while it holds its import lock (in a hook).
 * argv[0]: a directory where the hook writes when it calls exit().
 */
static int
role_exit_locked_primary(int argc, char **argv)
{
	struct mdevx_share_conf conf = { .withdraw_timeout_ms = 300 };
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t imp;

	if (argc < 1)
		return 2;
	dev = mdevx_share_dev_open(DEVSTR2, &conf);
	if (dev == NULL)
		return 3;
	if (publish_counter(dev, "exit_ctr", 128) != 0)
		return 4;
	mdevx_share_test_import_hook(exit_in_import, argv[0]);
	mdevx_share_import(dev, "exit_ctr", MDEVX_OBJ_FLOW_COUNTER, &imp);
	return 5;			/* not reached */
}
REGISTER_TEST_SECONDARY(share_exit_locked_primary, role_exit_locked_primary);

static int
primary_exits(const char *mode)
{
	char dir[] = "/tmp/mdevx-exit-XXXXXX", prefix[128], buf[64], res[64] = "";
	const char *args[2] = { dir, mode };
	bool exit_mode = strcmp(mode, "exit") == 0;
	uint32_t total = UINT32_MAX;
	int rc, st, ret = TEST_FAILED;
	pid_t primary;

	TEST_ASSERT_NOT_NULL(mkdtemp(dir), "mkdtemp");
	snprintf(prefix, sizeof(prefix), "%s_exit_%s", test_file_prefix(), mode);
	primary = test_mp_spawn_primary("share_exit_primary", prefix, 2, args);
	TEST_ASSERT(primary > 0, "spawn");
	if (test_file_read(dir, "ready", buf, sizeof(buf), WAIT_MS) != 0) {
		kill(primary, SIGKILL);
		printf("%s: primary not ready, exited with %d\n", mode,
		       test_mp_wait(primary, 1000));
		goto out;
	}
	test_file_write(dir, "go", "1");
	st = test_mp_wait(primary, CHILD_TIMEOUT_MS);
	if (st != 0) {
		printf("%s: primary exited with %d\n", mode, st);
		test_file_write(dir, "check", "1");	/* let the secondary go */
		goto out;
	}
	/*
	 * The secondary still holds the uverbs file. After a withdrawal the
	 * counter bulk is destroyed all the same; without one it lives on.
	 */
	if (exit_mode)
		rc = test_wait_dev_empty(ctl, DEV2, 5000);
	else
		rc = test_dev_total(ctl, DEV2, &total) != 0 || total == 0 ? -1 : 0;
	test_file_write(dir, "check", "1");
	if (test_file_read(dir, "result", res, sizeof(res), WAIT_MS) != 0)
		printf("%s: no result from the secondary\n", mode);
	if (rc != 0)
		printf("%s: %s on %s after the primary's exit\n", mode,
		       exit_mode ? "objects left" : "no object", DEV2);
	else if (strcmp(res, exit_mode ? "estale refused" : "ok imports") != 0)
		printf("%s: the secondary saw '%s'\n", mode, res);
	else
		ret = TEST_SUCCESS;
out:
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	if (system(buf) != 0)
		printf("cannot remove %s\n", dir);
	/* The secondary exits on its own; then nothing is left. */
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV2, 10000), "objects left on " DEV2);
	return ret;
}

/*
 * The primary exits with the device open. Through exit(): the exit
 * handler withdraws everything (the secondary's import gives ESTALE, the
 * object is gone while the secondary lives). Through rte_eal_cleanup()
 * first: nothing can be withdrawn, as when the primary is killed, and the
 * exit does not crash on the unmapped registry.
 */
static int
test_fault_primary_exits(void)
{
	TEST_ASSERT_SUCCESS(primary_exits("exit"), "exit() with the device open");
	TEST_ASSERT_SUCCESS(primary_exits("cleanup"), "rte_eal_cleanup() with the device open");
	return TEST_SUCCESS;
}

/*
 * exit() while the exiting thread holds the device's import lock: the exit
 * handler's close cannot take it; the exit must still end (after the
 * handler's bound, 5.6 s with a 300 ms withdraw timeout), with status 0,
 * and the device must be empty once the process is gone. An exit that
 * takes less than 2 s did not wait for a close at all.
 */
static int
test_fault_exit_with_lock_held(void)
{
	char dir[] = "/tmp/mdevx-exitlk-XXXXXX", prefix[128], when[32] = "", rm[64];
	const char *args[1] = { dir };
	uint64_t t_exit, dt = 0;
	pid_t primary;
	int st, got;

	TEST_ASSERT_NOT_NULL(mkdtemp(dir), "mkdtemp");
	snprintf(prefix, sizeof(prefix), "%s_exit_locked", test_file_prefix());
	primary = test_mp_spawn_primary("share_exit_locked_primary", prefix, 1, args);
	st = primary > 0 ? test_mp_wait(primary, 30000) : -1;	/* kills it at the timeout */
	/* From the exit() call, not from the spawn: EAL start-up does not count. */
	got = test_file_read(dir, "exiting", when, sizeof(when), 0);
	t_exit = strtoull(when, NULL, 10);
	if (got == 0 && t_exit != 0)
		dt = test_now_ms() - t_exit;
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		printf("cannot remove %s\n", dir);
	TEST_ASSERT(primary > 0, "spawn");
	printf("exit with the import lock held: status %d, %" PRIu64 " ms from exit()\n", st,
	       dt);
	TEST_ASSERT_EQUAL(st, 0, "the exit hung or failed");
	TEST_ASSERT(got == 0 && t_exit != 0, "the primary never reached exit() in the import");
	TEST_ASSERT(dt >= 2000, "the exit handler did not try to close");
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV2, 10000), "objects left on " DEV2);
	return TEST_SUCCESS;
}

/* The primary publishes and withdraws continuously while loopers import. */
static int
test_fault_concurrent_churn(void)
{
	struct share_sync *s = sync_mz->addr;
	const int nb = 3;
	uint64_t end, rounds = 0;
	pid_t pids[3];

	s->nb_names = 6;
	for (uint32_t i = 0; i < s->nb_names; i++) {
		snprintf(s->names[i], sizeof(s->names[0]), "churn%u", i);
		TEST_ASSERT_SUCCESS(publish_looper_counter(s->names[i]), "publish");
	}
	for (int i = 0; i < nb; i++) {
		pids[i] = test_children_spawn(&children, "share_looper", 0, NULL);
		TEST_ASSERT(pids[i] > 0, "spawn");
	}
	TEST_ASSERT(wait_at_least(&s->ready, (uint32_t)nb, WAIT_MS), "loopers not ready");
	end = test_now_ms() + 2000;
	while (test_now_ms() < end) {
		const char *name = s->names[rounds % s->nb_names];

		TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, name, NULL), "withdraw %s", name);
		TEST_ASSERT_SUCCESS(publish_looper_counter(name), "republish");
		rounds++;
	}
	s->stop = 1;
	for (int i = 0; i < nb; i++)
		TEST_ASSERT_EQUAL(test_mp_wait(pids[i], CHILD_TIMEOUT_MS), 0, "looper %d", i);
	printf("%" PRIu64 " withdraw/publish rounds against %" PRIu64 " imports; %" PRIu64
	       " wrappers in use were revoked\n", rounds, (uint64_t)s->ops,
	       (uint64_t)s->wrapper_stale);
	TEST_ASSERT_EQUAL(s->failures, 0, "torn read or success on a withdrawn object");
	TEST_ASSERT(rounds > 10 && s->ops > 10, "too little work to mean anything");
	TEST_ASSERT(s->wrapper_stale > 0, "no withdrawal met a wrapper in use");
	return TEST_SUCCESS;
}

/*
 * Attach and close DEV2 in a loop until stop, while the primary withdraws
 * records of DEV: every withdrawal notification reaches this process while
 * it may be waiting for the primary's answer to an attach request.
 */
static int
role_attacher(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	uint64_t t0, dt;
	int ret = 1, n = 0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!s->stop) {
		struct mdevx_share_dev *dev;

		t0 = test_now_ms();
		dev = mdevx_share_dev_attach(DEVSTR2);
		dt = test_now_ms() - t0;
		ROLE_CHECK(dev != NULL, "attach %d: %s after %" PRIu64 " ms", n, strerror(errno),
			   dt);
		ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close: %s", strerror(errno));
		ROLE_CHECK(dt < 1000, "attach %d took %" PRIu64 " ms", n, dt);
		n++;
		__atomic_add_fetch(&s->ops, 1, __ATOMIC_RELAXED);
	}
	ret = 0;
out:
	if (ret != 0 && s != NULL)
		__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
	return ret;
}
REGISTER_TEST_SECONDARY(share_attacher, role_attacher);

/*
 * Secondaries attach while the primary withdraws: a withdrawal notification
 * handled while an attach waits for the primary's answer must not stall
 * the attach (both run on the secondary's one IPC thread).
 */
static int
test_fault_attach_during_withdrawals(void)
{
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 3000 };
	struct mdevx_share_dev *dev2;
	const int nb = 2;
	uint64_t end, rounds = 0;
	pid_t pids[2];
	int rc[2];

	dev2 = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(dev2, "open %s: %s", DEVSTR2, strerror(errno));
	for (int i = 0; i < nb; i++) {
		pids[i] = test_children_spawn(&children, "share_attacher", 0, NULL);
		TEST_ASSERT(pids[i] > 0, "spawn");
	}
	TEST_ASSERT(wait_at_least(&s->ready, (uint32_t)nb, WAIT_MS), "attachers not ready");
	end = test_now_ms() + 1500;
	while (test_now_ms() < end && s->failures == 0) {
		TEST_ASSERT_SUCCESS(publish_looper_counter("churn"), "publish");
		TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "churn", NULL), "withdraw");
		rounds++;
	}
	s->stop = 1;
	for (int i = 0; i < nb; i++)
		rc[i] = test_mp_wait(pids[i], CHILD_TIMEOUT_MS);
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev2), "close %s", DEVSTR2);
	printf("%" PRIu64 " withdrawals against %" PRIu64 " attaches\n", rounds,
	       (uint64_t)s->ops);
	for (int i = 0; i < nb; i++)
		TEST_ASSERT_EQUAL(rc[i], 0, "attacher %d exited with %d", i, rc[i]);
	TEST_ASSERT(rounds > 10 && s->ops > 10, "too little work to mean anything");
	return test_wait_dev_empty(ctl, DEV2, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Many withdrawals in flight at once (more than the library tracks): the
 * same device under NB_SPELLINGS device strings (the socket path spelled
 * with "./" segments), one record "w" each, withdrawn by one thread each.
 */
#define NB_SPELLINGS 17

static int
devstr_spelling(char *buf, size_t len, int k)
{
	const char *sock = getenv("SWDEV_SOCKET"), *slash;
	int n;

	if (k == 0)
		n = snprintf(buf, len, "%s", DEVSTR);
	else if (sock == NULL || (slash = strrchr(sock, '/')) == NULL)
		return -1;
	else
		n = snprintf(buf, len, "swdev:%.*s/%.*s%s:%s", (int)(slash - sock), sock, 2 * k,
			     "./././././././././././././././././././././././././././././././",
			     slash + 1, DEV);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Imports "w" under every spelling; after go, each must have been unimported. */
static int
role_multi_holder(int argc, char **argv)
{
	struct mdevx_share_dev *dev[NB_SPELLINGS] = { NULL };
	struct share_sync *s = sync_area();
	mdevx_share_imp_t imp[NB_SPELLINGS];
	char devstr[128];
	int ret = 1, n = 0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	for (; n < NB_SPELLINGS; n++) {
		ROLE_CHECK(devstr_spelling(devstr, sizeof(devstr), n) == 0, "devstr %d", n);
		dev[n] = mdevx_share_dev_attach(devstr);
		ROLE_CHECK(dev[n] != NULL, "attach %s: %s", devstr, strerror(errno));
		ROLE_CHECK(mdevx_share_import(dev[n], "w", MDEVX_OBJ_FLOW_COUNTER, &imp[n]) == 0,
			   "import on %s: %s", devstr, strerror(errno));
	}
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	for (int k = 0; k < NB_SPELLINGS; k++) {
		ROLE_CHECK(mdevx_share_dev_imports(dev[k]) == 0,
			   "spelling %d: the withdrawal was never notified", k);
		ROLE_CHECK(mdevx_share_unimport(dev[k], imp[k]) == 0, "unimport");
	}
	ret = 0;
out:
	for (int k = 0; k < NB_SPELLINGS; k++)
		if (dev[k] != NULL)
			mdevx_share_dev_close(dev[k]);
	return ret;
}
REGISTER_TEST_SECONDARY(share_multi_holder, role_multi_holder);

/* Attached, never acknowledges: every withdrawal waits for its bound. */
static int
role_mute(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	ret = 0;
out:
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_mute, role_mute);

struct withdraw_arg {
	struct mdevx_share_dev *dev;
	unsigned int acked;
	int rc;
};

static void *
withdraw_thread(void *p)
{
	struct withdraw_arg *a = p;

	a->rc = mdevx_share_withdraw(a->dev, "w", &a->acked);
	return NULL;
}

static int
test_fault_many_withdrawals(void)
{
	struct mdevx_share_conf conf = { .capacity = 4, .withdraw_timeout_ms = 1000 };
	struct withdraw_arg arg[NB_SPELLINGS];
	struct share_sync *s = sync_mz->addr;
	pthread_t th[NB_SPELLINGS];
	char devstr[128];
	pid_t holder, mute;
	int rc_holder, rc_mute, ret = TEST_FAILED, k;

	memset(arg, 0, sizeof(arg));
	arg[0].dev = pdev;
	for (k = 1; k < NB_SPELLINGS; k++) {
		TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), k), "devstr");
		arg[k].dev = mdevx_share_dev_open(devstr, &conf);
		if (arg[k].dev == NULL) {
			printf("open %s: %s\n", devstr, strerror(errno));
			goto out;
		}
	}
	for (k = 0; k < NB_SPELLINGS; k++) {
		if (publish_counter(arg[k].dev, "w", 1) != 0) {
			printf("publish %d: %s\n", k, strerror(errno));
			goto out;
		}
	}
	holder = test_children_spawn(&children, "share_multi_holder", 0, NULL);
	mute = test_children_spawn(&children, "share_mute", 0, NULL);
	if (holder <= 0 || mute <= 0 || !wait_at_least(&s->ready, 2, WAIT_MS)) {
		printf("secondaries not ready\n");
		goto out;
	}
	for (k = 0; k < NB_SPELLINGS; k++)
		if (pthread_create(&th[k], NULL, withdraw_thread, &arg[k]) != 0)
			break;
	for (int j = 0; j < k; j++)
		pthread_join(th[j], NULL);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc_holder = test_mp_wait(holder, CHILD_TIMEOUT_MS);
	rc_mute = test_mp_wait(mute, CHILD_TIMEOUT_MS);
	if (k != NB_SPELLINGS || rc_holder != 0 || rc_mute != 0) {
		printf("threads %d, holder exited with %d, mute with %d\n", k, rc_holder,
		       rc_mute);
		goto out;
	}
	for (k = 0; k < NB_SPELLINGS; k++) {
		if (arg[k].rc != 0 || arg[k].acked != 1) {
			printf("withdrawal %d: %d, %u acknowledgements (want 1)\n", k, arg[k].rc,
			       arg[k].acked);
			goto out;
		}
	}
	ret = TEST_SUCCESS;
out:
	for (k = 1; k < NB_SPELLINGS; k++)
		if (arg[k].dev != NULL)
			mdevx_share_dev_close(arg[k].dev);
	return ret;
}

/*
 * A close that a secondary never acknowledges (its handler does not run):
 * the registry memzone must not be freed under it. The primary marks it
 * closed and keeps it; the secondary's reads give ENODEV and its import
 * ESTALE instead of reading freed memory. A new open of the device then
 * takes a memzone of its own.
 */
static int
role_close_mute(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t imp;
	const char *why;
	int ret = 1;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or device string");
	mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(argv[0]);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "u0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	/* Never told: the registry itself says the device is closed. */
	why = closed_device_check(dev, "u0", imp);
	ROLE_CHECK(why == NULL, "after the primary's close: %s", why);
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport: %s", strerror(errno));
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_close_mute, role_close_mute);

static int
test_fault_close_unacked(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 1000 };
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_rec_info info;
	struct mdevx_share_reg *reg;
	struct mdevx_share_dev *dev;
	const char *args[1];
	void *base;
	char devstr[128];
	pid_t mute;

	memset(s, 0, sizeof(*s));
	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 1), "devstr");
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "u0", 128), "publish: %s", strerror(errno));
	args[0] = devstr;
	mute = test_children_spawn(&children, "share_close_mute", 1, args);
	TEST_ASSERT(mute > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	base = mdevx_share_reg_base(mdevx_share_dev_reg(dev));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	/* Kept, so this read is of live memory: the registry says closed. */
	reg = mdevx_share_reg_attach(base, mdevx_share_reg_size(conf.capacity));
	TEST_ASSERT_NOT_NULL(reg, "registry freed: %s", strerror(errno));
	TEST_ASSERT(mdevx_share_reg_is_closed(reg), "registry not marked closed");
	TEST_ASSERT_EQUAL(mdevx_share_reg_lookup(reg, "u0", &info, NULL, NULL), ENODEV,
			  "lookup on a closed registry");
	mdevx_share_reg_free(reg);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	TEST_ASSERT_EQUAL(test_mp_wait(mute, CHILD_TIMEOUT_MS), 0, "secondary");
	/* The device can be shared again, in a registry of its own. */
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "reopen: %s", strerror(errno));
	TEST_ASSERT(mdevx_share_reg_base(mdevx_share_dev_reg(dev)) != base,
		    "the closed registry was reused");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close again");
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* Secondary: a process of the instance that never attaches a device. */
static int
role_bystander(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	ret = 0;
out:
	return ret;
}
REGISTER_TEST_SECONDARY(share_bystander, role_bystander);

/*
 * A secondary that links the library but never attaches is not waited
 * for: the withdrawal counts no acknowledgement and does not wait, and
 * the close frees the registry's memzone.
 */
static int
test_fault_bystander(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 2000 };
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_dev *dev;
	unsigned int acked = 9, mz0;
	char devstr[128];
	int rc, rc_w, rc_c;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 1), "devstr");
	mz0 = test_registry_memzones();
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_EQUAL(test_registry_memzones(), mz0 + 1, "registry memzone");
	TEST_ASSERT_SUCCESS(publish_counter(dev, "by", 1), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "by2", 1), "publish: %s", strerror(errno));
	pid = test_children_spawn(&children, "share_bystander", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	rc_w = mdevx_share_withdraw(dev, "by", &acked);
	rc_c = mdevx_share_dev_close(dev);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	TEST_ASSERT(rc_w == 0 && rc_c == 0, "withdraw %d, close %d", rc_w, rc_c);
	TEST_ASSERT_EQUAL(rc, 0, "secondary");
	TEST_ASSERT_EQUAL(acked, 0u, "a secondary that never attached was counted");
	TEST_ASSERT_EQUAL(test_registry_memzones(), mz0, "the closed registry's memzone was kept");
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Secondary: import "la" and "lb", then answer every withdrawal 300 ms
 * late (a handler kept from the device's lock that long).
 */
static int
role_late_acker(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t ia, ib;
	int ret = 1;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or device string");
	dev = mdevx_share_dev_attach(argv[0]);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "la", MDEVX_OBJ_FLOW_COUNTER, &ia) == 0 &&
		   mdevx_share_import(dev, "lb", MDEVX_OBJ_FLOW_COUNTER, &ib) == 0,
		   "import: %s", strerror(errno));
	mdevx_share_test_ack_delay(300);
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	mdevx_share_test_ack_delay(0);
	/* Late, but the handlers ran: both imports are stale. */
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "live imports %u",
		   mdevx_share_dev_imports(dev));
	ROLE_CHECK(mdevx_share_unimport(dev, ia) == 0 && mdevx_share_unimport(dev, ib) == 0,
		   "unimport");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_late_acker, role_late_acker);

/*
 * A reply that comes after its withdrawal's bound acknowledges nothing
 * else. EAL matches replies to requests by peer and action name only: the
 * late answer to "la" (300 ms, bound 200 ms) must not count as the answer
 * to "lb", withdrawn right after, whose own answer cannot come before
 * 600 ms (the secondary's handler answers one at a time): "lb" is not
 * acknowledged either.
 */
static int
test_fault_late_ack(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 200 };
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_dev *dev;
	unsigned int acked_a = 9, acked_b = 9;
	int rc, rc_a, rc_b;
	const char *args[1];
	char devstr[128];
	pid_t pid;

	memset(s, 0, sizeof(*s));
	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 1), "devstr");
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "la", 1), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "lb", 1), "publish: %s", strerror(errno));
	args[0] = devstr;
	pid = test_children_spawn(&children, "share_late_acker", 1, args);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	rc_a = mdevx_share_withdraw(dev, "la", &acked_a);
	rc_b = mdevx_share_withdraw(dev, "lb", &acked_b);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	/* closed before the verdicts: a failure leaves no device open behind */
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close");
	TEST_ASSERT(rc_a == 0 && rc_b == 0, "withdraw: %d %d", rc_a, rc_b);
	TEST_ASSERT_EQUAL(rc, 0, "secondary");
	TEST_ASSERT_EQUAL(acked_a, 0u, "la acknowledged within its bound by a 300 ms handler");
	TEST_ASSERT_EQUAL(acked_b, 0u, "la's late answer counted as lb's acknowledgement");
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static void
attach_closing_hook(void *arg)
{
	struct share_sync *s = arg;

	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	wait_at_least(&s->go, 1, WAIT_MS);
}

/*
 * Secondary: an attach held, by the test hook, between the primary's
 * answer and the first read of the registry, while the primary closes the
 * device and frees the registry: the attach gives ENODEV, nothing reads
 * the freed memory.
 */
static int
role_attach_closing(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev;
	int ret = 1;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or device string");
	mdevx_share_test_attach_hook(attach_closing_hook, s);
	dev = mdevx_share_dev_attach(argv[0]);
	mdevx_share_test_attach_hook(NULL, NULL);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	ROLE_CHECK(dev == NULL && errno == ENODEV, "attach across the primary's close: %s",
		   dev != NULL ? "attached" : strerror(errno));
	dev = mdevx_share_dev_attach(argv[0]);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	ROLE_CHECK(dev == NULL && errno == ENODEV, "attach after the close");
	ret = 0;
out:
	return ret;
}
REGISTER_TEST_SECONDARY(share_attach_closing, role_attach_closing);

static int
test_fault_attach_during_close(void)
{
	struct share_sync *s = sync_mz->addr;
	const struct rte_memzone *mz;
	struct mdevx_share_dev *dev;
	const char *args[1];
	char devstr[128];
	pid_t pid;
	int rc;

	memset(s, 0, sizeof(*s));
	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 1), "devstr");
	dev = mdevx_share_dev_open(devstr, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "ac", 1), "publish: %s", strerror(errno));
	args[0] = devstr;
	pid = test_children_spawn(&children, "share_attach_closing", 1, args);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not in its attach");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	/* The registry is freed: reserve and scribble over memory to reuse it. */
	mz = rte_memzone_reserve("mdevx_t_scribble", 1 << 20, SOCKET_ID_ANY, 0);
	if (mz != NULL)
		memset(mz->addr, 0x5a, mz->len);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	if (mz != NULL)
		rte_memzone_free(mz);
	TEST_ASSERT_EQUAL(rc, 0, "secondary");
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * A close that cannot finish keeps the device open, nothing lost: a
 * published counter whose destroy fails stays (withdrawn, with its object)
 * for the next close; an object of the application still on the device's
 * context makes the close fail with EBUSY before anything changes.
 */
static int
test_fault_close_failures(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 1000 };
	struct mdevx_share_record rec;
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t imp;
	struct mdevx_obj *td;
	uint32_t before, total;
	char devstr[128];

	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 2), "devstr");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &before), "counts");
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(dev, "f0", 128), "publish: %s", strerror(errno));
	/* An object of the application: EBUSY, and nothing changes. */
	td = mdevx_td_alloc(mdevx_share_dev_ctx(dev));
	TEST_ASSERT_NOT_NULL(td, "td: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "f0", MDEVX_OBJ_FLOW_COUNTER, &imp), "import");
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(dev, "f0", &rec), "lookup: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rec.withdrawn, 0, "record withdrawn by a refused close");
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 1, "import lost by a refused close");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(dev, imp), "unimport");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, before + 2, "objects: %u", total - before);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(td), "td destroy");
	/* The counter's destroy fails once: EIO, the record and its object stay. */
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, OP_DEALLOC_FLOW_COUNTER, 1,
						STAT_INTERNAL_ERR, 0x5a5a, 0), "fault");
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), EIO);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, before + 1, "objects: %u", total - before);
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(dev, "f0", &rec), "lookup: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rec.withdrawn, 1, "record not withdrawn");
	/* The next close finishes. */
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), ENOENT);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, before, "objects left: %u", total - before);
	return TEST_SUCCESS;
}

/*
 * The device's context closed behind it: the close finishes (EBADF, no
 * dangling context kept) and the device can be opened again.
 */
static int
test_fault_ctx_closed_behind(void)
{
	struct mdevx_share_dev *dev;
	char devstr[128];

	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 3), "devstr");
	dev = mdevx_share_dev_open(devstr, NULL);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_close(mdevx_share_dev_ctx(dev)), "mdevx_close");
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), EBADF);
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), ENOENT);
	dev = mdevx_share_dev_open(devstr, NULL);
	TEST_ASSERT_NOT_NULL(dev, "reopen: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	return TEST_SUCCESS;
}

/*
 * A secondary with an object of its own on its context: its close is
 * refused with EBUSY and its imports keep working; once the object is
 * gone the close goes through.
 */
static int
role_close_busy(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	struct mdevx_obj *td = NULL;
	mdevx_share_imp_t imp;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	td = mdevx_td_alloc(mdevx_share_dev_ctx(dev));
	ROLE_CHECK(td != NULL, "td: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_close(dev) == -EBUSY && errno == EBUSY, "close not EBUSY");
	ROLE_CHECK(mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0][0], "query after a refused close");
	ROLE_CHECK(mdevx_obj_destroy(td) == 0, "td destroy");
	td = NULL;
	ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close: %s", strerror(errno));
	dev = NULL;
	ret = 0;
out:
	if (td != NULL)
		mdevx_obj_destroy(td);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_close_busy, role_close_busy);

static int
test_fault_secondary_close_busy(void)
{
	struct share_sync *s = sync_mz->addr;
	pid_t p;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	p = test_children_spawn(&children, "share_close_busy", 0, NULL);
	TEST_ASSERT(p > 0, "spawn");
	TEST_ASSERT_EQUAL(test_mp_wait(p, CHILD_TIMEOUT_MS), 0, "secondary");
	return TEST_SUCCESS;
}

/*
 * The record is rewritten while an import reads its export buffer (a hook
 * inside the import does what a withdraw, a release and a publish into
 * the same slot do): the import notices the record changed, undoes what
 * it imported and tries again, and the handle names the new object, not
 * the old one.
 */
struct rewrite_arg {
	struct mdevx_share_reg *reg;
	struct mdevx_share_rec_info next;	/* the record to put in its place */
	uint32_t idx;
	uint64_t gen;
	int calls;
	int rc;
};

static void
rewrite_record(void *p)
{
	struct rewrite_arg *a = p;
	uint32_t idx2 = UINT32_MAX;

	if (a->calls++ != 0)
		return;
	a->rc = mdevx_share_reg_withdraw(a->reg, a->idx, a->gen, NULL);
	if (a->rc == 0)
		a->rc = mdevx_share_reg_release(a->reg, a->idx);
	if (a->rc == 0)
		a->rc = mdevx_share_reg_publish(a->reg, &a->next, &idx2, NULL);
	if (a->rc == 0 && idx2 != a->idx)
		a->rc = EBADSLT;	/* not the same slot: not the case under test */
}

/* @p arg rewrites record @p name of pdev into one of the same name for @p next. */
static int
rewrite_prepare(struct rewrite_arg *arg, const char *name, struct mdevx_obj *next)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_share_rec_info info;
	size_t len;

	memset(arg, 0, sizeof(*arg));
	arg->reg = mdevx_share_dev_reg(pdev);
	TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(arg->reg, name, &info, &arg->idx, NULL),
			    "lookup");
	arg->gen = info.generation;
	arg->next = info;
	arg->next.object_id = test_obj_id(next);
	TEST_ASSERT_SUCCESS(mdevx_export_size(ctx, &len), "export size");
	arg->next.export_len = (uint32_t)len;
	TEST_ASSERT_SUCCESS(mdevx_obj_export(next, arg->next.export_buf,
					     sizeof(arg->next.export_buf)), "export");
	return TEST_SUCCESS;
}

static int
test_fault_import_retry(void)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_counter_stats st;
	struct rewrite_arg arg;
	struct mdevx_obj *a, *b;
	mdevx_share_imp_t imp;
	int rc;

	a = mdevx_counter_alloc(ctx, 128);
	b = mdevx_counter_alloc(ctx, 128);
	TEST_ASSERT(a != NULL && b != NULL, "counters: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "r0", a), "publish");
	/* The same record for b. */
	TEST_ASSERT_SUCCESS(rewrite_prepare(&arg, "r0", b), "rewrite setup");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(a), 11, 1100),
			    "traffic a");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(b), 22, 2200),
			    "traffic b");

	mdevx_share_test_import_hook(rewrite_record, &arg);
	rc = mdevx_share_import(pdev, "r0", MDEVX_OBJ_FLOW_COUNTER, &imp);
	mdevx_share_test_import_hook(NULL, NULL);
	TEST_ASSERT_SUCCESS(arg.rc, "rewrite: %s", strerror(arg.rc));
	TEST_ASSERT_SUCCESS(rc, "import: %s", strerror(errno));
	TEST_ASSERT_EQUAL(arg.calls, 2, "import attempts: %d", arg.calls);
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(pdev), 1, "imports");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(pdev, imp, 0, 1, 0, &st), "query");
	TEST_ASSERT(st.packets == 22 && st.bytes == 2200, "the import names the old object "
		    "(%" PRIu64 " packets)", st.packets);
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, imp), "unimport");
	/*
	 * The library still owns a under the slot: its withdrawal destroys a;
	 * b, published behind its back, is the test's to destroy.
	 */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "r0", NULL), "withdraw");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(b), "destroy b");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(a), ENOENT);
	return TEST_SUCCESS;
}

/*
 * mdevx_share_import_obj() across a republish: between use_begin() (the
 * import is live, its record current) and the read of the record for the
 * wrapper, the primary withdraws the record and publishes the name again
 * in the same slot with another object (the test hook does it on the
 * registry, as withdraw, release and publish would). The record it reads
 * is of another generation: ESTALE, and no wrapper is made, in particular
 * none of the new object.
 */
static int
import_obj_rewritten_checks(struct rewrite_arg *arg, struct mdevx_obj *b,
			    mdevx_share_imp_t *imp, mdevx_share_imp_t *imp2)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_counter_stats st;
	struct mdevx_obj *o;
	uint32_t total0, total;
	int nb0, err;

	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "q0", MDEVX_OBJ_FLOW_COUNTER, imp), "import");
	nb0 = mdevx_ctx_nb_objs(ctx);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total0), "counts");
	mdevx_share_test_import_obj_hook(rewrite_record, arg);
	errno = 0;
	o = mdevx_share_import_obj(pdev, *imp);
	err = errno;
	mdevx_share_test_import_obj_hook(NULL, NULL);
	TEST_ASSERT_SUCCESS(arg->rc, "rewrite: %s", strerror(arg->rc));
	TEST_ASSERT_EQUAL(arg->calls, 1, "hook calls: %d", arg->calls);
	if (o != NULL)
		printf("import_obj made a wrapper of object %u (b is %u)\n", test_obj_id(o),
		       test_obj_id(b));
	TEST_ASSERT(o == NULL && err == ESTALE, "import_obj across a republish of its slot: %s",
		    o != NULL ? "a wrapper" : strerror(err));
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx), nb0, "a wrapper was made");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, total0, "device objects changed");
	/* The import stays stale (its handler never ran: nothing was notified). */
	TEST_ASSERT_NULL_ERRNO(mdevx_share_import_obj(pdev, *imp), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_counter_query(pdev, *imp, 0, 1, 0, &st), ESTALE);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx), nb0, "a wrapper was made");
	/* A new import names the new object, and has its wrapper. */
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "q0", MDEVX_OBJ_FLOW_COUNTER, imp2), "import");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(pdev, *imp2, 0, 1, 0, &st), "query");
	TEST_ASSERT(st.packets == 22 && st.bytes == 2200, "new import reads %" PRIu64 " packets",
		    st.packets);
	o = mdevx_share_import_obj(pdev, *imp2);
	TEST_ASSERT_NOT_NULL(o, "import_obj of the new import: %s", strerror(errno));
	TEST_ASSERT_EQUAL(test_obj_id(o), test_obj_id(b), "the new import's wrapper");
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx), nb0 + 1, "wrappers");
	return TEST_SUCCESS;
}

static int
test_fault_import_obj_rewritten(void)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	mdevx_share_imp_t imp = { 0 }, imp2 = { 0 };
	struct rewrite_arg arg;
	struct mdevx_obj *a, *b;
	int nb0, ret;

	nb0 = mdevx_ctx_nb_objs(ctx);
	a = mdevx_counter_alloc(ctx, 128);
	b = mdevx_counter_alloc(ctx, 128);
	TEST_ASSERT(a != NULL && b != NULL, "counters: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "q0", a), "publish");
	TEST_ASSERT_SUCCESS(rewrite_prepare(&arg, "q0", b), "rewrite setup");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(a), 11, 1100),
			    "traffic a");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(b), 22, 2200),
			    "traffic b");
	ret = import_obj_rewritten_checks(&arg, b, &imp, &imp2);
	/* The imports (and wrappers) go first, then a with its record, then b. */
	if (imp.id != 0 && mdevx_share_unimport(pdev, imp) != 0)
		ret = TEST_FAILED;
	if (imp2.id != 0 && mdevx_share_unimport(pdev, imp2) != 0)
		ret = TEST_FAILED;
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "q0", NULL), "withdraw");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(b), "destroy b");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(a), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx), nb0, "objects left on the context");
	return ret;
}

/*
 * Secondary (argv[0]: the device string): never acknowledges a withdrawal
 * (its handler does not run). It imports "g"; after go, the primary has
 * withdrawn "g" and published a new "g" in the same slot: the old import,
 * never unimported by a notification, must give ESTALE (the record's
 * generation changed) and never read the new counter; a new import reads
 * the new one.
 */
static int
role_gen_mute(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t old, cur;
	int ret = 1, rc;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or device string");
	mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(argv[0]);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "g", MDEVX_OBJ_FLOW_COUNTER, &old) == 0,
		   "import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_counter_query(dev, old, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0][0], "query before the withdrawal");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	/* Not notified: the import is still live here; the registry alone decides. */
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 1, "live imports %u (the handler ran)",
		   mdevx_share_dev_imports(dev));
	memset(&st, 0, sizeof(st));
	rc = mdevx_share_counter_query(dev, old, 0, 1, 0, &st);
	ROLE_CHECK(rc == -ESTALE, "old import after the republish: %s (%" PRIu64
		   " packets; the old counter had %" PRIu64 ", the new one %" PRIu64 ")",
		   rc == 0 ? "success" : strerror(-rc), st.packets, s->packets[0][0],
		   s->packets[1][0]);
	ROLE_CHECK(st.packets != s->packets[1][0], "the old import read the new counter");
	ROLE_CHECK(mdevx_share_import_obj(dev, old) == NULL && errno == ESTALE,
		   "import_obj of the old import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "g", MDEVX_OBJ_FLOW_COUNTER, &cur) == 0,
		   "new import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_counter_query(dev, cur, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[1][0], "new import reads %" PRIu64, st.packets);
	ROLE_CHECK(mdevx_share_counter_query(dev, old, 0, 1, 0, &st) == -ESTALE,
		   "old import after the new one");
	ROLE_CHECK(mdevx_share_unimport(dev, cur) == 0 && mdevx_share_unimport(dev, old) == 0,
		   "unimport: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports left");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_gen_mute, role_gen_mute);

/* A new bulk with @p packets on counter 0, published as @p name on @p dev. */
static int
publish_counter_traffic(struct mdevx_share_dev *dev, const char *name, uint64_t packets)
{
	struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 128);

	if (cnt == NULL)
		return -1;
	if (swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(cnt), packets, packets * 64) != 0 ||
	    mdevx_share_publish(dev, name, cnt) != 0) {
		mdevx_obj_destroy(cnt);
		return -1;
	}
	return 0;
}

static int
test_fault_mute_republish(void)
{
	/* One slot: the new record can only take the old one's. */
	struct mdevx_share_conf conf = { .capacity = 1, .withdraw_timeout_ms = 300 };
	struct share_sync *s = sync_mz->addr;
	struct mdevx_share_rec_info info;
	struct mdevx_share_dev *dev;
	uint32_t idx0 = 0, idx1 = 1;
	uint64_t gen0 = 0, gen1 = 0;
	unsigned int acked = 99;
	const char *args[1];
	char devstr[128];
	int rc = -1, rc_w = -1, rc_p = -1;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	s->packets[0][0] = 7;
	s->packets[1][0] = 1000;
	TEST_ASSERT_SUCCESS(devstr_spelling(devstr, sizeof(devstr), 0), "devstr");
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	if (publish_counter_traffic(dev, "g", s->packets[0][0]) != 0 ||
	    mdevx_share_reg_lookup(mdevx_share_dev_reg(dev), "g", &info, &idx0, NULL) != 0) {
		printf("publish: %s\n", strerror(errno));
		goto out;
	}
	gen0 = info.generation;
	args[0] = devstr;
	pid = test_children_spawn(&children, "share_gen_mute", 1, args);
	if (pid <= 0 || !wait_at_least(&s->ready, 1, WAIT_MS)) {
		printf("secondary not ready\n");
		goto out;
	}
	/* Waits its bound for the silent secondary, then destroys the counter. */
	rc_w = mdevx_share_withdraw(dev, "g", &acked);
	rc_p = publish_counter_traffic(dev, "g", s->packets[1][0]);
	if (rc_p == 0 &&
	    mdevx_share_reg_lookup(mdevx_share_dev_reg(dev), "g", &info, &idx1, NULL) == 0)
		gen1 = info.generation;
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
out:
	/* closed before the verdicts: a failure leaves no device open behind */
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	TEST_ASSERT(rc_w == 0 && rc_p == 0, "withdraw %d, publish again %d", rc_w, rc_p);
	TEST_ASSERT_EQUAL(acked, 0u, "the silent secondary acknowledged");
	TEST_ASSERT(idx1 == idx0 && gen1 > gen0, "new record in slot %u gen %" PRIu64
		    ", old one in slot %u gen %" PRIu64, idx1, gen1, idx0, gen0);
	TEST_ASSERT_EQUAL(rc, 0, "secondary exited with %d", rc);
	return test_wait_dev_empty(ctl, DEV, 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static struct unit_test_suite share_fault_suite = {
	.suite_name = "mlx5 devx share faults",
	.setup = share_suite_setup,
	.teardown = share_suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_fault_kill_loopers),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_mute_secondary),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_concurrent_churn),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_attach_during_withdrawals),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_many_withdrawals),
		TEST_CASE(test_fault_close_unacked),
		TEST_CASE(test_fault_late_ack),
		TEST_CASE(test_fault_bystander),
		TEST_CASE(test_fault_attach_during_close),
		TEST_CASE(test_fault_close_failures),
		TEST_CASE(test_fault_ctx_closed_behind),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_secondary_close_busy),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_import_retry),
		TEST_CASE_ST(case_setup, case_teardown, test_fault_import_obj_rewritten),
		TEST_CASE(test_fault_mute_republish),
		TEST_CASE(test_fault_primary_killed),
		TEST_CASE(test_fault_primary_exits),
		TEST_CASE(test_fault_exit_with_lock_held),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_share_fault(void)
{
	return unit_test_suite_runner(&share_fault_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_fault_autotest, test_share_fault);

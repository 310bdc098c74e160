/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_export_autotest: libmdevx objects on the software device,
 * exported, imported on a second context sharing the uverbs file (import of
 * a dup of the command fd), used, unimported and destroyed; every errno case
 * of the API; the log limit of a command failing again and again; the
 * rdma-core compatibility layout check refusing fakes; and
 * zero objects left on the device afterwards.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev starts a daemon with
 * devices mlx5_0 and mlx5_1); without it the device suite is skipped and
 * only the layout-check suite runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mdevx.h>
#include <mdevx_compat.h>
#include <mdevx_driver.h>
#include <mdevx_prm.h>
#include <swdev_client.h>

#include <rte_log.h>

#include "test.h"
#include "test_devstr.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR test_devstr(DEV)

static struct mdevx_ctx *ctx1;	/* the "primary" context */
static struct mdevx_ctx *ctx2;	/* import of a dup of ctx1's command fd */
static struct swdev_ctl *ctl;
static size_t exp_size;
/*
 * Objects on the device once both contexts are open: 0 on the swdev
 * backend; on the rdma backend the non-cached UAR libmlx5 allocates for
 * each context it opens or imports.
 */
static uint32_t base_total, base_uars;

static void
print_objects(void)
{
	struct swdev_counts c;
	int k;

	if (swdev_ctl_get_counts(ctl, DEV, 0, &c) != 0)
		return;
	for (k = 0; k < SWDEV_KIND_MAX; k++)
		if (c.by_kind[k] != 0)
			printf("  live on " DEV ": %u of swdev kind %d\n", c.by_kind[k], k);
}

/* ---------------- compatibility layout check (no device) ---------------- */

/* The layout the compatibility path assumes (rdma-core 38..63). */
struct fake_obj_ok {
	void *context;
	uint32_t handle;
	uint32_t type;
	uint32_t object_id;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
	void *priv;
};

/* A hypothetical rdma-core that put the handle first. */
struct fake_obj_other {
	uint32_t handle;
	uint32_t type;
	void *context;
	uint32_t object_id;
	uint64_t rx_icm_addr;
};

static int
test_compat_layout_check(void)
{
	int ctx_token = 1, other_token = 2;
	struct fake_obj_ok ok = { .context = &ctx_token, .handle = 7, .type = 2,
				  .object_id = 0x800123 };
	struct fake_obj_other other = { .handle = 7, .type = 2, .context = &ctx_token,
					.object_id = 0x800123 };

	TEST_ASSERT_SUCCESS(mdevx_compat_check_layout(&ok, &ctx_token, 0x800123),
			    "matching layout refused");
	/* Wrong context at offset 0. */
	TEST_ASSERT_RC_ERRNO(mdevx_compat_check_layout(&ok, &other_token, 0x800123), ENOTSUP);
	/* Wrong object id at offset 16. */
	TEST_ASSERT_RC_ERRNO(mdevx_compat_check_layout(&ok, &ctx_token, 0x800124), ENOTSUP);
	/* A different layout with the right values elsewhere. */
	TEST_ASSERT_RC_ERRNO(mdevx_compat_check_layout(&other, &ctx_token, 0x800123), ENOTSUP);
	TEST_ASSERT_RC_ERRNO(mdevx_compat_check_layout(NULL, &ctx_token, 1), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_compat_check_layout(&ok, NULL, 1), EINVAL);
	return TEST_SUCCESS;
}

static struct unit_test_suite layout_suite = {
	.suite_name = "mlx5 devx rdma-core compatibility layout",
	.unit_test_cases = {
		TEST_CASE(test_compat_layout_check),
		TEST_CASES_END()
	},
};

/* ---------------- software device suite ---------------- */

static int
suite_setup(void)
{
	const char *sock = getenv("SWDEV_SOCKET");
	struct swdev_counts c;
	int fd;

	if (sock == NULL || sock[0] == '\0') {
		printf("SWDEV_SOCKET is not set: no software device, device tests skipped "
		       "(run through devtools/run-autotest.sh --swdev)\n");
		return TEST_SKIPPED;
	}
	ctl = swdev_ctl_open(sock);
	if (ctl == NULL) {
		printf("cannot open the control channel of %s: %s\n", sock, strerror(errno));
		return TEST_FAILED;
	}
	ctx1 = mdevx_open(DEVSTR);
	if (ctx1 == NULL) {
		printf("mdevx_open(%s): %s\n", DEVSTR, strerror(errno));
		return TEST_FAILED;
	}
	fd = dup(mdevx_cmd_fd(ctx1));
	if (fd < 0)
		return TEST_FAILED;
	ctx2 = mdevx_import_device(DEVSTR, fd);
	if (ctx2 == NULL) {
		printf("mdevx_import_device: %s\n", strerror(errno));
		close(fd);
		return TEST_FAILED;
	}
	if (mdevx_export_size(ctx1, &exp_size) != 0 || exp_size < 48)
		return TEST_FAILED;
	memset(&c, 0, sizeof(c));
	if (swdev_ctl_get_counts(ctl, DEV, 0, &c) != 0)
		return TEST_FAILED;
	/* Objects as test_dev_total() counts them, and libmlx5's UARs of the contexts. */
	base_total = c.total - c.by_kind[SWDEV_KIND_UAR];
	base_uars = c.by_kind[SWDEV_KIND_UAR];
	if (base_total != 0) {
		printf("%u objects on %s with the contexts open, %u of them UARs\n", c.total,
		       DEV, base_uars);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	if (ctx2 != NULL && mdevx_close(ctx2) != 0)
		printf("closing the imported context failed: %s\n", strerror(errno));
	if (ctx1 != NULL && mdevx_close(ctx1) != 0)
		printf("closing the context failed: %s\n", strerror(errno));
	ctx1 = ctx2 = NULL;
	if (ctl != NULL)
		swdev_ctl_close(ctl);
	ctl = NULL;
}

/* Export @p obj and import it on ctx2 as @p kind. */
static struct mdevx_obj *
export_import(struct mdevx_obj *obj, enum mdevx_obj_kind kind)
{
	uint8_t *buf = malloc(exp_size);
	struct mdevx_obj *imp = NULL;

	if (buf == NULL)
		return NULL;
	if (mdevx_obj_export(obj, buf, exp_size) == 0)
		imp = mdevx_obj_import(ctx2, buf, exp_size, kind);
	else
		printf("export of a %s failed: %s\n", mdevx_obj_kind_name(kind),
		       strerror(errno));
	free(buf);
	return imp;
}

/* Import must carry the creator's info exactly (except the import flag). */
static int
check_same_info(struct mdevx_obj *orig, struct mdevx_obj *imp)
{
	struct mdevx_obj_info a, b;

	TEST_ASSERT_SUCCESS(mdevx_obj_info(orig, &a), "info of the original");
	TEST_ASSERT_SUCCESS(mdevx_obj_info(imp, &b), "info of the import");
	TEST_ASSERT_EQUAL(a.imported, 0, "original flagged imported");
	TEST_ASSERT_EQUAL(b.imported, 1, "import not flagged imported");
	TEST_ASSERT_EQUAL(a.kind, b.kind, "kind %s vs %s", mdevx_obj_kind_name(a.kind),
			  mdevx_obj_kind_name(b.kind));
	TEST_ASSERT_EQUAL(a.id, b.id, "id %#x vs %#x", a.id, b.id);
	TEST_ASSERT_EQUAL(a.bulk_size, b.bulk_size, "bulk %u vs %u", a.bulk_size, b.bulk_size);
	TEST_ASSERT_EQUAL(a.tirn, b.tirn, "tirn %#x vs %#x", a.tirn, b.tirn);
	TEST_ASSERT_EQUAL(a.rx_icm_addr, b.rx_icm_addr, "rx icm %#" PRIx64 " vs %#" PRIx64,
			  a.rx_icm_addr, b.rx_icm_addr);
	TEST_ASSERT_EQUAL(a.generation, b.generation, "generation");
	TEST_ASSERT_NOT_EQUAL(a.generation, 0u, "generation 0");
	return TEST_SUCCESS;
}

/* Smallest bulk above 1 the device offers, else 1. */
static uint32_t
pick_bulk(void)
{
	struct mdevx_caps caps;
	unsigned int i;

	if (mdevx_get_caps(ctx1, &caps) != 0)
		return 1;
	for (i = 0; i < 8; i++)
		if (caps.flow_counter_bulk_alloc & (1u << i))
			return 128u << i;
	if (caps.flow_counter_bulk_log_max_alloc >= 2)
		return 1u << (caps.flow_counter_bulk_log_granularity > 2 ?
			      caps.flow_counter_bulk_log_granularity : 2);
	return 1;
}

/*
 * A read of more counters than one command carries: a bulk of 8192 read in
 * one call takes 8192 / max_counters_per_query QUERY_FLOW_COUNTER commands
 * (2048 counters, 32 KiB of output, each: a longer one does not fit the
 * uverbs attribute), and every counter comes back from its own place.
 */
static int
test_counter_query_split(void)
{
	static const uint32_t hit[] = { 0, 2047, 2048, 4095, 4096, 8191 };
	const uint32_t bulk = 8192;
	struct mdevx_counter_stats *all;
	struct mdevx_obj_info info;
	struct mdevx_caps caps;
	struct mdevx_obj *cnt;
	uint64_t c0, c1;
	uint32_t i, per;
	int rc;

	TEST_ASSERT_SUCCESS(mdevx_get_caps(ctx1, &caps), "caps");
	per = caps.log_max_flow_counter_bulk >= 11 ? 2048u : 1u << caps.log_max_flow_counter_bulk;
	TEST_ASSERT_EQUAL(caps.max_counters_per_query, per, "counters per query: %u (log %u)",
			  caps.max_counters_per_query, caps.log_max_flow_counter_bulk);
	if (!(caps.flow_counter_bulk_alloc & (1u << 6)))
		return TEST_SKIPPED;	/* no bulk of 128 << 6 */
	cnt = mdevx_counter_alloc(ctx1, bulk);
	TEST_ASSERT_NOT_NULL(cnt, "counter bulk of %u: %s", bulk, strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(cnt, &info), "info");
	for (i = 0; i < RTE_DIM(hit); i++)
		TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id + hit[i], i + 1,
							     100 * (i + 1)), "inject");
	all = calloc(bulk, sizeof(*all));
	TEST_ASSERT_NOT_NULL(all, "calloc");
	TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER,
						    &c0), "command count");
	rc = mdevx_counter_query(cnt, 0, bulk, 0, all);
	TEST_ASSERT_SUCCESS(swdev_ctl_get_cmd_count(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER,
						    &c1), "command count");
	for (i = 0; rc == 0 && i < bulk; i++) {
		uint64_t want = 0;

		for (uint32_t k = 0; k < RTE_DIM(hit); k++)
			if (hit[k] == i)
				want = k + 1;
		if (all[i].packets != want || all[i].bytes != 100 * want)
			break;
	}
	free(all);
	TEST_ASSERT_SUCCESS(rc, "query of the bulk: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(i, bulk, "counter %u reads wrong", i);
	TEST_ASSERT_EQUAL(c1 - c0, bulk / per, "%" PRIu64 " commands for %u counters",
			  c1 - c0, bulk);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	return TEST_SUCCESS;
}

static int
test_counter_export(void)
{
	struct mdevx_counter_stats s1[4], s2[4], one;
	struct mdevx_obj *cnt, *imp, *imp2;
	struct mdevx_obj_info info;
	uint32_t bulk = pick_bulk(), n, i;
	uint32_t total;

	cnt = mdevx_counter_alloc(ctx1, bulk);
	TEST_ASSERT_NOT_NULL(cnt, "counter bulk of %u: %s", bulk, strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(cnt, &info), "info");
	TEST_ASSERT_EQUAL(info.kind, MDEVX_OBJ_FLOW_COUNTER, "kind");
	TEST_ASSERT_EQUAL(info.bulk_size, bulk, "bulk size");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT(total >= 1, "device shows no object after the allocation");

	imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER);
	TEST_ASSERT_NOT_NULL(imp, "import: %s", strerror(errno));
	if (check_same_info(cnt, imp) != TEST_SUCCESS)
		return TEST_FAILED;

	/* Traffic on counters 0 and (if any) the last one of the bulk. */
	n = bulk < 4 ? bulk : 4;
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id, 10, 1500),
			    "inject");
	if (n > 1)
		TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id + n - 1, 3, 180),
				    "inject");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, 0, n, 0, s1), "query original");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(imp, 0, n, 0, s2), "query import");
	for (i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(s1[i].packets, s2[i].packets, "packets of counter %u", i);
		TEST_ASSERT_EQUAL(s1[i].bytes, s2[i].bytes, "bytes of counter %u", i);
	}
	TEST_ASSERT_EQUAL(s1[0].packets, 10u, "packets injected into counter 0");
	TEST_ASSERT_EQUAL(s1[0].bytes, 1500u, "bytes injected into counter 0");
	if (n > 1) {
		TEST_ASSERT_EQUAL(s1[n - 1].packets, 3u, "packets of the last counter");
		TEST_ASSERT_EQUAL(s1[n - 1].bytes, 180u, "bytes of the last counter");
		TEST_ASSERT_EQUAL(s1[1].packets, n > 2 ? 0u : 3u, "untouched counter");
	}
	/* Read-and-clear through the import, seen by the original. */
	TEST_ASSERT_SUCCESS(mdevx_counter_query(imp, 0, 1, 1, &one), "query+clear import");
	TEST_ASSERT_EQUAL(one.packets, 10u, "read-and-clear value");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, 0, 1, 0, &one), "query original");
	TEST_ASSERT_EQUAL(one.packets, 0u, "counter not cleared");
	TEST_ASSERT_EQUAL(one.bytes, 0u, "counter bytes not cleared");

	/* Whole bulk in one call (split into several commands if the device
	 * reads fewer per query). */
	if (bulk > 1) {
		struct mdevx_counter_stats *all = calloc(bulk, sizeof(*all));
		uint64_t sum = 0;

		TEST_ASSERT_NOT_NULL(all, "calloc");
		TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id + bulk - 1, 5, 5),
				    "inject");
		i = mdevx_counter_query(imp, 0, bulk, 0, all) == 0;
		for (n = 0; i && n < bulk; n++)
			sum += all[n].packets;
		free(all);
		TEST_ASSERT(i, "query of the whole bulk failed: %s", strerror(errno));
		TEST_ASSERT_EQUAL(sum, 3u + 5u, "sum over the bulk");
	}

	/* Unimport: local only, the original keeps working. */
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, 0, 1, 0, &one), "original after unimport");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport(imp), ENOENT);

	/* Destroy by the creator: the remaining import fails when used, and
	 * its unimport still succeeds. */
	imp2 = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER);
	TEST_ASSERT_NOT_NULL(imp2, "second import: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	errno = 0;
	TEST_ASSERT(mdevx_counter_query(imp2, 0, 1, 0, &one) < 0 && errno != 0,
		    "query of a destroyed counter through an import succeeded");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp2), "unimport of a stale import");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(cnt), ENOENT);
	return TEST_SUCCESS;
}

/* A thread that queries an import until it sees the revocation. */
struct revoke_arg {
	struct mdevx_obj *imp;
	uint32_t revoked;	/* set once mdevx_obj_revoke() returned */
	uint32_t ok;		/* successful queries */
	uint32_t late_ok;	/* ... of which begun after the revocation */
	uint32_t other;		/* errors other than ESTALE */
};

static void *
revoke_query_thread(void *p)
{
	struct revoke_arg *a = p;
	struct mdevx_counter_stats st;

	for (uint32_t i = 0; i < 10000000; i++) {
		uint32_t revoked = __atomic_load_n(&a->revoked, __ATOMIC_ACQUIRE);
		int rc = mdevx_counter_query(a->imp, 0, 1, 0, &st);

		if (rc == 0) {
			__atomic_add_fetch(&a->ok, 1, __ATOMIC_RELEASE);
			a->late_ok += revoked;
		} else if (rc != -ESTALE) {
			a->other++;
		} else if (revoked) {
			break;
		}
	}
	return NULL;
}

/*
 * An import revoked by the library that made it (libmdevx_share, when the
 * owner withdraws): the revocation waits for a query in flight in another
 * thread; from then on every call with the wrapper gives ESTALE, and none
 * reaches the device; the unimport still frees it, and the original is
 * untouched.
 */
static int
test_revoke(void)
{
	struct revoke_arg a = { .imp = NULL };
	struct mdevx_counter_stats one;
	struct mdevx_obj_info info;
	struct mdevx_obj *cnt;
	uint8_t *buf = malloc(exp_size);
	int n0 = mdevx_ctx_nb_objs(ctx2);
	pthread_t th;

	TEST_ASSERT_NOT_NULL(buf, "malloc");
	cnt = mdevx_counter_alloc(ctx1, pick_bulk());
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(cnt, &info), "info");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id, 4, 400), "inject");
	a.imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER);
	TEST_ASSERT_NOT_NULL(a.imp, "import: %s", strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_obj_revoke(cnt), EPERM);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_revoke(NULL), EINVAL);
	TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, revoke_query_thread, &a), "thread");
	while (__atomic_load_n(&a.ok, __ATOMIC_ACQUIRE) < 50)
		usleep(100);
	TEST_ASSERT_SUCCESS(mdevx_obj_revoke(a.imp), "revoke: %s", strerror(errno));
	__atomic_store_n(&a.revoked, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	TEST_ASSERT_EQUAL(a.late_ok, 0u, "queries succeeded after the revocation");
	TEST_ASSERT_EQUAL(a.other, 0u, "queries failed with another error than ESTALE");
	/*
	 * Every call but the unimport: ESTALE (a destroy: EPERM, as for any
	 * import), the wrapper still counted. A fault rule armed for the next
	 * counter query shows that none of them reached the device: the
	 * original's query meets it afterwards.
	 */
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1,
						MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x5a, 0), "fault");
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(a.imp, 0, 1, 0, &one), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_info(a.imp, &info), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_export(a.imp, buf, exp_size), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(a.imp), EPERM);
	errno = 0;
	TEST_ASSERT(mdevx_obj_ctx(a.imp) == NULL && errno == ESTALE, "ctx of a revoked import");
	TEST_ASSERT_SUCCESS(mdevx_obj_revoke(a.imp), "a second revocation");
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(cnt, 0, 1, 0, &one), EINVAL);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx2), n0 + 1,
			  "a revoked wrapper must count until its unimport");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(a.imp), "unimport of a revoked import");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport(a.imp), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx2), n0, "objects on the importing context");
	/* The original is the owner's: untouched. */
	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, 0, 1, 0, &one), "query the original");
	TEST_ASSERT_EQUAL(one.packets, 4u, "the original's packets");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	free(buf);
	return TEST_SUCCESS;
}

/* One query of an import, whose reply the device delays. */
struct inflight_arg {
	struct mdevx_obj *imp;
	uint32_t started;
	int rc;
	uint64_t done_ms;
};

static void *
inflight_query_thread(void *p)
{
	struct inflight_arg *a = p;
	struct mdevx_counter_stats st;

	__atomic_store_n(&a->started, 1, __ATOMIC_RELEASE);
	a->rc = mdevx_counter_query(a->imp, 0, 1, 0, &st);
	a->done_ms = test_now_ms();
	return NULL;
}

/*
 * Start one query of @p a->imp whose reply the device delays @p delay_us,
 * and give it @p lead_us to reach the device.
 */
static int
start_delayed_query(struct inflight_arg *a, pthread_t *th, uint32_t delay_us, uint32_t lead_us)
{
	TEST_ASSERT_NOT_NULL(a->imp, "import: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1, 0, 0,
						delay_us), "delay fault");
	TEST_ASSERT_SUCCESS(pthread_create(th, NULL, inflight_query_thread, a), "thread");
	while (!__atomic_load_n(&a->started, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(lead_us);
	return TEST_SUCCESS;
}

/*
 * A revocation that meets a query in flight (its reply delayed 400 ms by
 * the device) waits for it: once mdevx_obj_revoke() returns, no command
 * about the object is outstanding (libmdevx_share acknowledges a
 * withdrawal only then, and the owner destroys the object only after the
 * acknowledgement). A query that had not yet begun gives ESTALE instead,
 * and proves nothing: the test then tries again.
 */
static int
test_revoke_in_flight(void)
{
	struct mdevx_obj *cnt;
	int attempt;

	cnt = mdevx_counter_alloc(ctx1, pick_bulk());
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	for (attempt = 0; attempt < 5; attempt++) {
		struct inflight_arg a = { .imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER) };
		uint64_t revoked_ms;
		pthread_t th;

		if (start_delayed_query(&a, &th, 400000, 100000) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_SUCCESS(mdevx_obj_revoke(a.imp), "revoke: %s", strerror(errno));
		revoked_ms = test_now_ms();
		pthread_join(th, NULL);
		/* clear the rule if the query never reached the device */
		swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0);
		TEST_ASSERT_SUCCESS(mdevx_obj_unimport(a.imp), "unimport");
		if (a.rc == -ESTALE)
			continue;
		TEST_ASSERT_SUCCESS(a.rc, "the query in flight failed");
		TEST_ASSERT(a.done_ms <= revoked_ms + 100,
			    "the revocation returned %" PRIu64 " ms before the query in "
			    "flight ended", a.done_ms - revoked_ms);
		break;
	}
	TEST_ASSERT(attempt < 5, "the query never got in flight before the revocation");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	return TEST_SUCCESS;
}

/* A revocation in its own thread. */
struct revoker_arg {
	struct mdevx_obj *imp;
	int rc;
	uint64_t done_ms;
};

static void *
revoker_thread(void *p)
{
	struct revoker_arg *r = p;

	r->rc = mdevx_obj_revoke(r->imp);
	r->done_ms = test_now_ms();
	return NULL;
}

/*
 * Two revocations and an unimport at once, while a query is in flight (its
 * reply delayed 300 ms): the second revocation also returns only once no
 * call uses the import, and the unimport, retried all along, gives EBUSY
 * until both revocations let go of the wrapper. An unimport that got in
 * between the query's end and the first revocation's wake-up freed the
 * wrapper under it (a double release that ASan reports).
 */
static int
test_revoke_concurrent(void)
{
	int n0 = mdevx_ctx_nb_objs(ctx2);
	struct mdevx_obj *cnt;
	int attempt;

	cnt = mdevx_counter_alloc(ctx1, pick_bulk());
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	for (attempt = 0; attempt < 5; attempt++) {
		struct inflight_arg q = { .imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER) };
		struct revoker_arg r1 = { .imp = q.imp }, r2 = { .imp = q.imp };
		uint64_t deadline, busy = 0;
		pthread_t tq, t1, t2;
		int rc;

		if (start_delayed_query(&q, &tq, 300000, 50000) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_SUCCESS(pthread_create(&t1, NULL, revoker_thread, &r1), "thread");
		usleep(20000);
		TEST_ASSERT_SUCCESS(pthread_create(&t2, NULL, revoker_thread, &r2), "thread");
		deadline = test_now_ms() + 5000;
		while ((rc = mdevx_obj_unimport(q.imp)) == -EBUSY && test_now_ms() < deadline) {
			busy++;
			usleep(20);
		}
		pthread_join(tq, NULL);
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
		swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0);
		TEST_ASSERT_SUCCESS(rc, "unimport: %s", strerror(-rc));
		TEST_ASSERT_SUCCESS(r1.rc, "first revocation: %s", strerror(-r1.rc));
		TEST_ASSERT_SUCCESS(r2.rc, "second revocation: %s", strerror(-r2.rc));
		TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx2), n0, "objects on the importing context");
		if (q.rc == -ESTALE)
			continue;	/* revoked before the query began: try again */
		TEST_ASSERT_SUCCESS(q.rc, "the query in flight failed");
		TEST_ASSERT(busy > 0, "the unimport never met the query in flight");
		TEST_ASSERT(q.done_ms <= r2.done_ms + 100,
			    "the second revocation returned %" PRIu64 " ms before the query in "
			    "flight ended", q.done_ms - r2.done_ms);
		break;
	}
	TEST_ASSERT(attempt < 5, "the query never got in flight before the revocation");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	return TEST_SUCCESS;
}

/* Objects of the TIR tests. */
struct tir_env {
	struct mdevx_obj *td, *pd, *cq, *rq[3], *rqt;
};

static void
tir_env_free(struct tir_env *e)
{
	int i;

	if (e->rqt != NULL)
		mdevx_obj_destroy(e->rqt);
	for (i = 2; i >= 0; i--)
		if (e->rq[i] != NULL)
			mdevx_obj_destroy(e->rq[i]);
	if (e->cq != NULL)
		mdevx_obj_destroy(e->cq);
	if (e->pd != NULL)
		mdevx_obj_destroy(e->pd);
	if (e->td != NULL)
		mdevx_obj_destroy(e->td);
	memset(e, 0, sizeof(*e));
}

static int
tir_env_make(struct tir_env *e, int nrq)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 6, .eq_vector = 0 };
	struct mdevx_rq_attr rqa = { .log_wq_size = 6, .log_wq_stride = 6 };
	int i;

	memset(e, 0, sizeof(*e));
	e->td = mdevx_td_alloc(ctx1);
	TEST_ASSERT_NOT_NULL(e->td, "td: %s", strerror(errno));
	e->pd = mdevx_pd_alloc(ctx1);
	TEST_ASSERT_NOT_NULL(e->pd, "pd: %s", strerror(errno));
	e->cq = mdevx_cq_create(ctx1, &cqa);
	TEST_ASSERT_NOT_NULL(e->cq, "cq: %s", strerror(errno));
	rqa.cq = e->cq;
	rqa.pd = e->pd;
	for (i = 0; i < nrq; i++) {
		rqa.user_index = (uint32_t)i;
		e->rq[i] = mdevx_rq_create(ctx1, &rqa);
		TEST_ASSERT_NOT_NULL(e->rq[i], "rq %d: %s", i, strerror(errno));
	}
	return TEST_SUCCESS;
}

static int
check_tir_attr(const struct mdevx_tir_attr *want, const struct mdevx_tir_attr *got)
{
	TEST_ASSERT_EQUAL(got->disp_type, want->disp_type, "disp_type");
	TEST_ASSERT_EQUAL(got->inline_rqn, want->inline_rqn, "inline_rqn");
	TEST_ASSERT_EQUAL(got->indirect_table, want->indirect_table, "indirect_table");
	TEST_ASSERT_EQUAL(got->transport_domain, want->transport_domain, "transport_domain");
	TEST_ASSERT_EQUAL(got->rx_hash_fn, want->rx_hash_fn, "rx_hash_fn");
	TEST_ASSERT_EQUAL(got->rx_hash_symmetric, want->rx_hash_symmetric, "symmetric");
	TEST_ASSERT_EQUAL(got->outer_l3_prot_type, want->outer_l3_prot_type, "l3 type");
	TEST_ASSERT_EQUAL(got->outer_l4_prot_type, want->outer_l4_prot_type, "l4 type");
	TEST_ASSERT_EQUAL(got->outer_selected_fields, want->outer_selected_fields, "fields");
	TEST_ASSERT(memcmp(got->toeplitz_key, want->toeplitz_key, MDEVX_TOEPLITZ_KEY_LEN) == 0,
		    "Toeplitz key differs");
	return TEST_SUCCESS;
}

/* Export, import, check and unimport one object of the TIR chain. */
static int
roundtrip(struct mdevx_obj *obj, enum mdevx_obj_kind kind)
{
	struct mdevx_obj *imp = export_import(obj, kind);

	TEST_ASSERT_NOT_NULL(imp, "import of a %s: %s", mdevx_obj_kind_name(kind),
			     strerror(errno));
	if (check_same_info(obj, imp) != TEST_SUCCESS) {
		mdevx_obj_unimport(imp);
		return TEST_FAILED;
	}
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport of a %s",
			    mdevx_obj_kind_name(kind));
	return TEST_SUCCESS;
}

static int
tir_case(struct tir_env *e, const struct mdevx_tir_attr *attr)
{
	struct mdevx_tir_attr got;
	struct mdevx_obj *tir, *imp;
	struct mdevx_obj_info info;

	tir = mdevx_tir_create(ctx1, attr);
	TEST_ASSERT_NOT_NULL(tir, "tir: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(tir, &info), "info");
	TEST_ASSERT_EQUAL(info.tirn, info.id, "tirn");
	TEST_ASSERT_SUCCESS(mdevx_tir_query(tir, &got), "query original");
	if (check_tir_attr(attr, &got) != TEST_SUCCESS)
		return TEST_FAILED;
	imp = export_import(tir, MDEVX_OBJ_TIR);
	TEST_ASSERT_NOT_NULL(imp, "import: %s", strerror(errno));
	if (check_same_info(tir, imp) != TEST_SUCCESS)
		return TEST_FAILED;
	memset(&got, 0xa5, sizeof(got));
	TEST_ASSERT_SUCCESS(mdevx_tir_query(imp, &got), "query through the import");
	if (check_tir_attr(attr, &got) != TEST_SUCCESS)
		return TEST_FAILED;
	/* The chain objects survive an export / import / unimport round too. */
	if (roundtrip(e->td, MDEVX_OBJ_TD) != TEST_SUCCESS ||
	    roundtrip(e->cq, MDEVX_OBJ_CQ) != TEST_SUCCESS ||
	    roundtrip(e->rq[0], MDEVX_OBJ_RQ) != TEST_SUCCESS ||
	    (e->rqt != NULL && roundtrip(e->rqt, MDEVX_OBJ_RQT) != TEST_SUCCESS))
		return TEST_FAILED;
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_tir_query(tir, &got), "original after unimport");
	/* What the TIR uses cannot go first; the refusal keeps the object. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(e->rqt != NULL ? e->rqt : e->rq[0]), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(e->td), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_obj_info(e->td, &info), "TD lost after a refused destroy");
	/* Destroy with an import alive. */
	imp = export_import(tir, MDEVX_OBJ_TIR);
	TEST_ASSERT_NOT_NULL(imp, "second import: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(tir), "destroy");
	errno = 0;
	TEST_ASSERT(mdevx_tir_query(imp, &got) < 0 && errno != 0,
		    "query of a destroyed TIR through an import succeeded");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport of a stale import");
	return TEST_SUCCESS;
}

static int
test_tir_direct_export(void)
{
	struct mdevx_tir_attr attr;
	struct tir_env e;
	int rc;

	rc = tir_env_make(&e, 1);
	if (rc == TEST_SUCCESS) {
		memset(&attr, 0, sizeof(attr));
		attr.disp_type = MDEVX_TIR_DISP_DIRECT;
		attr.inline_rqn = test_obj_id(e.rq[0]);
		attr.transport_domain = test_obj_id(e.td);
		rc = tir_case(&e, &attr);
	}
	tir_env_free(&e);
	return rc;
}

static int
test_tir_indirect_export(void)
{
	static const uint8_t key[MDEVX_TOEPLITZ_KEY_LEN] = {
		0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
		0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
		0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
		0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
	};
	struct mdevx_tir_attr attr;
	struct tir_env e;
	int rc;

	rc = tir_env_make(&e, 3);
	if (rc == TEST_SUCCESS) {
		/* 3 RQs: a 4-entry table padded by repetition. */
		e.rqt = mdevx_rqt_create(ctx1, e.rq, 3);
		if (e.rqt == NULL) {
			printf("rqt: %s\n", strerror(errno));
			rc = TEST_FAILED;
		}
	}
	if (rc == TEST_SUCCESS) {
		memset(&attr, 0, sizeof(attr));
		attr.disp_type = MDEVX_TIR_DISP_INDIRECT;
		attr.indirect_table = test_obj_id(e.rqt);
		attr.transport_domain = test_obj_id(e.td);
		attr.rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
		attr.outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
		attr.outer_l4_prot_type = MDEVX_L4_PROT_UDP;
		attr.outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
					     MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
		memcpy(attr.toeplitz_key, key, sizeof(key));
		rc = tir_case(&e, &attr);
	}
	tir_env_free(&e);
	return rc;
}

/*
 * Compact references (mdevx_obj_import_ref): same values as the original
 * and as a full import, their errno cases, and use after the creator
 * destroyed the object.
 */
static int
test_ref_import(void)
{
	struct mdevx_counter_stats a, b;
	struct mdevx_obj_ref ref, tref;
	struct mdevx_tir_attr attr, got;
	struct mdevx_obj_info info;
	struct mdevx_obj *cnt, *tir;
	struct tir_env e;
	uint8_t *buf = malloc(exp_size), *tbuf = malloc(exp_size);
	int rc = TEST_FAILED;

	TEST_ASSERT(buf != NULL && tbuf != NULL, "malloc");
	cnt = mdevx_counter_alloc(ctx1, pick_bulk());
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(cnt, &info), "info");
	TEST_ASSERT_SUCCESS(mdevx_obj_export(cnt, buf, exp_size), "export");
	TEST_ASSERT_SUCCESS(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_FLOW_COUNTER,
						 &ref), "import_ref: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ref.kind, MDEVX_OBJ_FLOW_COUNTER, "kind");
	TEST_ASSERT_EQUAL(ref.id, info.id, "id");
	TEST_ASSERT_EQUAL(ref.size_or_tirn, info.bulk_size, "bulk size");
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, info.id, 77, 7700), "inject");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, 0, 1, 0, &a), "query original");
	TEST_ASSERT_SUCCESS(mdevx_ref_counter_query(ctx2, &ref, 0, 1, 0, &b), "query ref");
	TEST_ASSERT(a.packets == 77 && b.packets == 77 && b.bytes == 7700, "values %lu/%lu",
		    (unsigned long)a.packets, (unsigned long)b.packets);
	/* errno cases, none of which touches the reference */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_FLOW_COUNTER,
						  NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_TD, &tref),
			     EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_TIR, &tref),
			     EPROTOTYPE);
	buf[exp_size - 1] ^= 0x40;
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_FLOW_COUNTER,
						  &tref), EBADMSG);
	buf[exp_size - 1] ^= 0x40;
	/*
	 * The internal verified flavour skips the checksum (bytes 44..47)
	 * only: a wrong checksum passes there, a wrong magic does not.
	 */
	buf[44] ^= 0x01;
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref(ctx2, buf, exp_size, MDEVX_OBJ_FLOW_COUNTER,
						  &tref), EBADMSG);
	TEST_ASSERT_SUCCESS(mdevx_obj_import_ref_verified(ctx2, buf, exp_size,
							  MDEVX_OBJ_FLOW_COUNTER, &tref),
			    "verified import: %s", strerror(errno));
	TEST_ASSERT_EQUAL(tref.id, info.id, "verified import id");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport_ref(ctx2, &tref), "unimport verified");
	buf[44] ^= 0x01;
	buf[0] ^= 0x01;
	TEST_ASSERT_RC_ERRNO(mdevx_obj_import_ref_verified(ctx2, buf, exp_size,
							   MDEVX_OBJ_FLOW_COUNTER, &tref), EBADMSG);
	buf[0] ^= 0x01;
	TEST_ASSERT_RC_ERRNO(mdevx_ref_counter_query(ctx2, NULL, 0, 1, 0, &b), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_ref_tir_query(ctx2, &ref, &got), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_ref_counter_query(ctx2, &ref, info.bulk_size, 1, 0, &b),
			     ERANGE);
	/* The creator destroys: using the reference fails, releasing it works. */
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	errno = 0;
	TEST_ASSERT(mdevx_ref_counter_query(ctx2, &ref, 0, 1, 0, &b) < 0 && errno != 0,
		    "query of a destroyed counter through a reference succeeded");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport_ref(ctx2, &ref), "unimport_ref");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport_ref(ctx2, &ref), EINVAL);

	/* A TIR through a reference answers as the original. */
	if (tir_env_make(&e, 1) != TEST_SUCCESS)
		goto out_env;
	memset(&attr, 0, sizeof(attr));
	attr.disp_type = MDEVX_TIR_DISP_DIRECT;
	attr.inline_rqn = test_obj_id(e.rq[0]);
	attr.transport_domain = test_obj_id(e.td);
	tir = mdevx_tir_create(ctx1, &attr);
	if (tir == NULL || mdevx_obj_export(tir, tbuf, exp_size) != 0 ||
	    mdevx_obj_import_ref(ctx2, tbuf, exp_size, MDEVX_OBJ_TIR, &tref) != 0) {
		printf("TIR reference: %s\n", strerror(errno));
		goto out_tir;
	}
	rc = mdevx_ref_tir_query(ctx2, &tref, &got) == 0 &&
	     check_tir_attr(&attr, &got) == TEST_SUCCESS && tref.id == test_obj_id(tir) &&
	     tref.size_or_tirn == test_obj_id(tir) && tref.rx_icm_addr != 0 ?
	     TEST_SUCCESS : TEST_FAILED;
	if (mdevx_obj_unimport_ref(ctx2, &tref) != 0)
		rc = TEST_FAILED;
out_tir:
	if (tir != NULL)
		mdevx_obj_destroy(tir);
out_env:
	tir_env_free(&e);
	free(buf);
	free(tbuf);
	return rc;
}

/* Every errno the API documents. */
static int
test_errno_cases(void)
{
	struct mdevx_counter_stats st;
	struct mdevx_cmd_error ce;
	struct mdevx_tir_attr ta;
	struct mdevx_obj_info info;
	struct mdevx_obj *cnt, *imp, *pd, *td;
	struct mdevx_rq_attr rqa;
	struct mdevx_cq_attr cqa = { .log_cq_size = 4 };
	uint8_t *buf = calloc(1, exp_size + 16);
	struct mdevx_ctx *c;
	uint32_t eqn;
	size_t sz;
	int rc = TEST_FAILED, fd, err;

	TEST_ASSERT_NOT_NULL(buf, "calloc");
	/* Device strings. */
	TEST_ASSERT_NULL_ERRNO(mdevx_open(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_open("mlx5_0"), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_open("nosuch:mlx5_0"), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_open("rdma:"), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_open("rdma:no_such_device"), ENODEV);
	TEST_ASSERT_NULL_ERRNO(mdevx_import_device(DEVSTR, -1), EBADF);
	/* NULL everywhere. */
	TEST_ASSERT_RC_ERRNO(mdevx_close(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_cmd_fd(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_get_caps(ctx1, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_export_size(NULL, &sz), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_export_size(ctx1, NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_counter_alloc(NULL, 1), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(NULL, 0, 1, 0, &st), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_export(NULL, buf, exp_size), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, NULL, exp_size, MDEVX_OBJ_ANY), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(NULL, buf, exp_size, MDEVX_OBJ_ANY), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_info(NULL, &info), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_tir_query(NULL, &ta), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_tir_create(ctx1, NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_cq_create(ctx1, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_last_cmd_error(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_backend_name(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_td_alloc(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_pd_alloc(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_uar_alloc(NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_umem_reg(NULL, buf, exp_size, 0), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_umem_reg(ctx1, NULL, exp_size, 0), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_query_eqn(ctx1, 0, NULL), EINVAL);
	TEST_ASSERT_U32MAX_ERRNO(mdevx_rule_handle(NULL), EINVAL);
	/* Pointers that are not live objects. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_info((struct mdevx_obj *)buf, &info), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_close((struct mdevx_ctx *)buf), ENOENT);
	TEST_ASSERT_NULL_ERRNO(mdevx_backend_name((struct mdevx_ctx *)buf), ENOENT);
	TEST_ASSERT_NULL_ERRNO(mdevx_td_alloc((struct mdevx_ctx *)buf), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_query_eqn((struct mdevx_ctx *)buf, 0, &eqn), ENOENT);
	TEST_ASSERT_U32MAX_ERRNO(mdevx_rule_handle((struct mdevx_rule *)buf), ENOENT);
	/* Counter sizes. */
	TEST_ASSERT_NULL_ERRNO(mdevx_counter_alloc(ctx1, 0), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_counter_alloc(ctx1, 3), EINVAL);
	{
		/* A power of two the device capabilities do not offer. */
		struct mdevx_caps caps;
		unsigned int lg;

		TEST_ASSERT_SUCCESS(mdevx_get_caps(ctx1, &caps), "caps");
		for (lg = 1; lg < 32; lg++) {
			bool bitmap = lg >= 7 && lg - 7 < 8 &&
				      (caps.flow_counter_bulk_alloc & (1u << (lg - 7)));
			bool logsz = caps.flow_counter_bulk_log_max_alloc != 0 &&
				     lg <= caps.flow_counter_bulk_log_max_alloc &&
				     lg >= caps.flow_counter_bulk_log_granularity;

			if (!bitmap && !logsz)
				break;
		}
		if (lg < 32)
			TEST_ASSERT_NULL_ERRNO(mdevx_counter_alloc(ctx1, 1u << lg), ENOTSUP);
		else
			printf("every bulk size is offered: ENOTSUP case not testable\n");
	}

	cnt = mdevx_counter_alloc(ctx1, 1);
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	pd = mdevx_pd_alloc(ctx1);
	td = mdevx_td_alloc(ctx1);
	if (pd == NULL || td == NULL) {
		printf("pd/td: %s\n", strerror(errno));
		goto out;
	}
	/* Ranges and wrong kinds. */
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(cnt, 0, 0, 0, &st), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(cnt, 0, 1, 0, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(cnt, 1, 1, 0, &st), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(cnt, 0, 2, 0, &st), ERANGE);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(td, 0, 1, 0, &st), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_tir_query(cnt, &ta), EPROTOTYPE);
	memset(&rqa, 0, sizeof(rqa));
	rqa.cq = td;	/* not a CQ */
	rqa.pd = pd;
	rqa.log_wq_size = 4;
	rqa.log_wq_stride = 6;
	TEST_ASSERT_NULL_ERRNO(mdevx_rq_create(ctx1, &rqa), EPROTOTYPE);
	TEST_ASSERT_NULL_ERRNO(mdevx_rqt_create(ctx1, &td, 1), EPROTOTYPE);
	/* An object of another context as argument. */
	{
		struct mdevx_obj *cq2 = mdevx_cq_create(ctx2, &cqa);

		TEST_ASSERT_NOT_NULL(cq2, "cq on the second context: %s", strerror(errno));
		rqa.cq = cq2;
		errno = 0;
		imp = mdevx_rq_create(ctx1, &rqa);
		sz = (size_t)errno;
		TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cq2), "destroy cq2");
		TEST_ASSERT_NULL(imp, "RQ with a CQ of another context created");
		TEST_ASSERT_EQUAL(sz, (size_t)EXDEV, "errno %zu", sz);
	}
	/* TIR attribute validation. */
	memset(&ta, 0, sizeof(ta));
	ta.disp_type = 5;
	TEST_ASSERT_NULL_ERRNO(mdevx_tir_create(ctx1, &ta), EINVAL);
	ta.disp_type = MDEVX_TIR_DISP_INDIRECT;
	ta.rx_hash_fn = 9;
	TEST_ASSERT_NULL_ERRNO(mdevx_tir_create(ctx1, &ta), EINVAL);

	/* Export errors. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_export(pd, buf, exp_size), ENOTSUP);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_export(cnt, buf, exp_size - 1), ENOSPC);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_export(cnt, NULL, exp_size), EINVAL);
	TEST_ASSERT_SUCCESS(mdevx_obj_export(cnt, buf, exp_size), "export");
	/* Import errors: wrong kind, short, corrupted, garbage. */
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_TIR), EPROTOTYPE);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size, (enum mdevx_obj_kind)99),
			       EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size - 1, MDEVX_OBJ_ANY), EBADMSG);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, 8, MDEVX_OBJ_ANY), EBADMSG);
	buf[exp_size - 3] ^= 0x40;	/* inside the backend attributes */
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_ANY), EBADMSG);
	buf[exp_size - 3] ^= 0x40;
	buf[16] ^= 1;			/* the object id */
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_ANY), EBADMSG);
	buf[16] ^= 1;
	memset(buf + exp_size, 0xee, 16);
	memset(buf, 0xee, exp_size);
	TEST_ASSERT_NULL_ERRNO(mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_ANY), EBADMSG);
	TEST_ASSERT_SUCCESS(mdevx_obj_export(cnt, buf, exp_size), "export");
	imp = mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_ANY);
	TEST_ASSERT_NOT_NULL(imp, "import: %s", strerror(errno));
	/* Ownership. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(imp), EPERM);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport(cnt), EPERM);
	TEST_ASSERT_RC_ERRNO(mdevx_close(ctx2), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_close(ctx1), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_unimport(imp), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_counter_query(imp, 0, 1, 0, &st), ENOENT);

	/* Firmware errors: mapped errno, status and syndrome recorded. */
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, 1,
						MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x1234, 0), "fault");
	TEST_ASSERT_NULL_ERRNO(mdevx_counter_alloc(ctx1, 1), EINVAL);
	TEST_ASSERT_SUCCESS(mdevx_last_cmd_error(&ce), "last error");
	TEST_ASSERT_EQUAL(ce.opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, "opcode %#x", ce.opcode);
	TEST_ASSERT_EQUAL(ce.status, MDEVX_CMD_STAT_BAD_PARAM_ERR, "status %#x", ce.status);
	TEST_ASSERT_EQUAL(ce.syndrome, 0x1234u, "syndrome %#x", ce.syndrome);
	TEST_ASSERT_EQUAL(ce.err, EINVAL, "err %d", ce.err);
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_CREATE_TIR, 1,
						MDEVX_CMD_STAT_LIM_ERR, 0xbeef, 0), "fault");
	memset(&ta, 0, sizeof(ta));
	ta.transport_domain = test_obj_id(td);
	TEST_ASSERT_NULL_ERRNO(mdevx_tir_create(ctx1, &ta), ENOMEM);
	TEST_ASSERT_SUCCESS(mdevx_last_cmd_error(&ce), "last error");
	TEST_ASSERT_EQUAL(ce.status, MDEVX_CMD_STAT_LIM_ERR, "status %#x", ce.status);
	TEST_ASSERT_EQUAL(ce.syndrome, 0xbeefu, "syndrome %#x", ce.syndrome);
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 1,
						MDEVX_CMD_STAT_NO_RES_ERR, 0x77aa, 0), "fault");
	TEST_ASSERT_NULL_ERRNO(mdevx_td_alloc(ctx1), EAGAIN);
	/*
	 * A device import whose capability query fails: the caller still owns
	 * its fd, as documented (libmdevx_share closes it then).
	 */
	fd = dup(mdevx_cmd_fd(ctx1));
	TEST_ASSERT(fd >= 0, "dup: %s", strerror(errno));
	/*
	 * Every QUERY_HCA_CAP fails until the fault is cleared: on the rdma
	 * backend libmlx5's own queries of the import (which it tolerates)
	 * come before libmdevx's.
	 */
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_HCA_CAP, 1000,
						MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x77, 0), "fault");
	errno = 0;
	c = mdevx_import_device(DEVSTR, fd);
	err = errno;
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_HCA_CAP, 0, 0, 0, 0),
			    "fault cleared");
	if (c != NULL)
		mdevx_close(c);
	TEST_ASSERT(c == NULL && err == EINVAL, "import with a failing QUERY_HCA_CAP: %s",
		    c == NULL ? strerror(err) : "success");
	TEST_ASSERT(fcntl(fd, F_GETFD) != -1, "failed import closed the caller's fd");
	TEST_ASSERT_SUCCESS(close(fd), "close");
	/* The device itself refuses a TIR on an RQ that does not exist. */
	memset(&ta, 0, sizeof(ta));
	ta.inline_rqn = 0xfffff0;
	ta.transport_domain = test_obj_id(td);
	errno = 0;
	imp = mdevx_tir_create(ctx1, &ta);
	TEST_ASSERT_NULL(imp, "TIR on a missing RQ created");
	TEST_ASSERT_NOT_EQUAL(errno, 0, "no errno");
	TEST_ASSERT_SUCCESS(mdevx_last_cmd_error(&ce), "last error");
	TEST_ASSERT_EQUAL(ce.opcode, MDEVX_CMD_OP_CREATE_TIR, "opcode %#x", ce.opcode);
	TEST_ASSERT_NOT_EQUAL(ce.status, 0, "no status for a device refusal");
	rc = TEST_SUCCESS;
out:
	if (pd != NULL)
		mdevx_obj_destroy(pd);
	if (td != NULL)
		mdevx_obj_destroy(td);
	mdevx_obj_destroy(cnt);
	free(buf);
	return rc;
}

/*
 * rdma-core backend without a NIC: opening a device that does not exist and
 * importing a file descriptor that is not a uverbs file fail cleanly, and a
 * failed import leaves the caller's fd open (the backend imports a dup).
 */
static int
test_rdma_backend_no_nic(void)
{
	struct mdevx_ctx *c;
	int fd;

	errno = 0;
	c = mdevx_open("rdma:mdevx_no_such_ibdev");
	TEST_ASSERT_NULL(c, "opened a device that does not exist");
	TEST_ASSERT_NOT_EQUAL(errno, 0, "no errno");
	/* ctx1's fd is a uverbs file: take another file. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "dup: %s", strerror(errno));
	errno = 0;
	c = mdevx_import_device("rdma:mlx5_0", fd);
	if (c != NULL) {
		mdevx_close(c);
		TEST_ASSERT(0, "a file that is no uverbs file was imported as one");
	}
	TEST_ASSERT_NOT_EQUAL(errno, 0, "no errno");
	TEST_ASSERT(fcntl(fd, F_GETFD) != -1, "failed import closed the caller's fd");
	close(fd);
	return TEST_SUCCESS;
}

/*
 * Many live objects: the per-process table grows, and entries deleted in
 * an interleaved order leave every other entry findable (its probing
 * clusters stay intact) while deleted ones give ENOENT.
 */
#define MANY 300

static int
test_many_objects(void)
{
	static struct mdevx_obj *objs[MANY];
	static uint32_t ids[MANY];
	struct mdevx_obj_info info;
	int i, pass;

	for (i = 0; i < MANY; i++) {
		objs[i] = mdevx_counter_alloc(ctx1, 1);
		TEST_ASSERT_NOT_NULL(objs[i], "counter %d: %s", i, strerror(errno));
		TEST_ASSERT_SUCCESS(mdevx_obj_info(objs[i], &info), "info %d", i);
		ids[i] = info.id;
	}
	for (pass = 3; pass >= 1; pass--) {
		/* Destroy every pass-th remaining object, then check all. */
		for (i = 0; i < MANY; i++) {
			if (objs[i] == NULL || (i % pass) != 0)
				continue;
			TEST_ASSERT_SUCCESS(mdevx_obj_destroy(objs[i]), "destroy %d", i);
			TEST_ASSERT_RC_ERRNO(mdevx_obj_info(objs[i], &info), ENOENT);
			objs[i] = NULL;
		}
		for (i = 0; i < MANY; i++) {
			if (objs[i] == NULL)
				continue;
			TEST_ASSERT_SUCCESS(mdevx_obj_info(objs[i], &info),
					    "object %d lost after deletions", i);
			TEST_ASSERT_EQUAL(info.id, ids[i], "object %d id", i);
		}
	}
	for (i = 0; i < MANY; i++)
		TEST_ASSERT_NULL(objs[i], "object %d not destroyed", i);
	return TEST_SUCCESS;
}

/*
 * Threads sharing both contexts: each one allocates, exports, imports,
 * reads through both, unimports and destroys counters in a loop. The
 * per-process table and the contexts' object counts must stay consistent.
 */
#define NTHREADS 4
#define NLOOPS 100

struct thread_arg {
	int failures;
	int first_err;
};

static void *
thread_loop(void *p)
{
	struct thread_arg *a = p;
	struct mdevx_counter_stats s1, s2;
	struct mdevx_obj *cnt, *imp;
	int i, rc;

	for (i = 0; i < NLOOPS; i++) {
		cnt = mdevx_counter_alloc(ctx1, 1);
		if (cnt == NULL)
			goto fail;
		imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER);
		rc = imp == NULL ? -1 : 0;
		if (rc == 0)
			rc = mdevx_counter_query(cnt, 0, 1, 0, &s1);
		if (rc == 0)
			rc = mdevx_counter_query(imp, 0, 1, 0, &s2);
		if (rc == 0 && (s1.packets != s2.packets || s1.bytes != s2.bytes))
			rc = -1;
		if (imp != NULL && mdevx_obj_unimport(imp) != 0)
			rc = -1;
		if (mdevx_obj_destroy(cnt) != 0)
			rc = -1;
		if (rc != 0)
			goto fail;
		continue;
fail:
		if (a->failures++ == 0)
			a->first_err = errno;
	}
	return NULL;
}

static int
test_threads(void)
{
	struct thread_arg args[NTHREADS];
	pthread_t th[NTHREADS];
	uint32_t total = UINT32_MAX;
	int i, n;

	memset(args, 0, sizeof(args));
	for (n = 0; n < NTHREADS; n++)
		if (pthread_create(&th[n], NULL, thread_loop, &args[n]) != 0)
			break;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	TEST_ASSERT_EQUAL(n, NTHREADS, "only %d threads started", n);
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(args[i].failures, 0, "thread %d: %d failures, first errno %d",
				  i, args[i].failures, args[i].first_err);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, base_total, "%u objects left after the threads", total - base_total);
	return TEST_SUCCESS;
}

/* Must run last: nothing may be left on the device. */
static int
test_zero_objects_left(void)
{
	uint32_t total = UINT32_MAX;

	struct swdev_counts c;

	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	if (total != base_total)
		print_objects();
	TEST_ASSERT_EQUAL(total, base_total, "%u objects left on " DEV, total - base_total);
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_SUCCESS(swdev_ctl_get_counts(ctl, DEV, 0, &c), "counts");
	TEST_ASSERT_EQUAL(c.by_kind[SWDEV_KIND_UAR], base_uars, "UARs: %u, the contexts' %u",
			  c.by_kind[SWDEV_KIND_UAR], base_uars);
	return TEST_SUCCESS;
}

/*
 * A context a thread found live, then closed (by another thread, or by the
 * same one): the next check in that thread must see it closed (ENOENT),
 * not trust what it remembered. Each thread caches the last context it
 * validated; closing any context invalidates every such cache.
 */
struct closed_ctx_arg {
	struct mdevx_ctx *ctx;
	volatile int stage;		/* 1: validated, 2: closed by main */
	int rc;
};

static void *
closed_ctx_thread(void *p)
{
	struct closed_ctx_arg *a = p;

	a->rc = mdevx_cmd_fd(a->ctx) >= 0 ? 0 : -1;	/* validated: cached */
	__atomic_store_n(&a->stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&a->stage, __ATOMIC_ACQUIRE) != 2)
		usleep(1000);
	if (a->rc == 0)
		a->rc = mdevx_cmd_fd(a->ctx) == -ENOENT && errno == ENOENT ? 0 : -2;
	return NULL;
}

static int
test_closed_ctx_cache(void)
{
	struct closed_ctx_arg arg = { .stage = 0, .rc = -1 };
	struct mdevx_ctx *ctx, *other;
	pthread_t th;

	/* Same thread: validated, closed, used. */
	ctx = mdevx_open(DEVSTR);
	TEST_ASSERT_NOT_NULL(ctx, "open: %s", strerror(errno));
	TEST_ASSERT(mdevx_cmd_fd(ctx) >= 0, "cmd fd");
	TEST_ASSERT_SUCCESS(mdevx_close(ctx), "close");
	TEST_ASSERT_RC_ERRNO(mdevx_cmd_fd(ctx), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_nb_objs(ctx), ENOENT);
	/* Another thread remembers it live; this one closes it. */
	arg.ctx = mdevx_open(DEVSTR);
	other = mdevx_open(DEVSTR);
	TEST_ASSERT(arg.ctx != NULL && other != NULL, "open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, closed_ctx_thread, &arg), "thread");
	while (__atomic_load_n(&arg.stage, __ATOMIC_ACQUIRE) != 1)
		usleep(1000);
	TEST_ASSERT_SUCCESS(mdevx_close(arg.ctx), "close");
	/* A live context validated meanwhile changes nothing for the closed one. */
	TEST_ASSERT(mdevx_cmd_fd(other) >= 0, "other cmd fd");
	__atomic_store_n(&arg.stage, 2, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	TEST_ASSERT_SUCCESS(arg.rc, "thread saw the closed context as live (%d)", arg.rc);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(other), 0, "objects on a fresh context");
	TEST_ASSERT_SUCCESS(mdevx_close(other), "close other");
	return TEST_SUCCESS;
}

/* Seconds of CLOCK_MONOTONIC, the clock libmdevx's log limit counts in. */
static uint64_t
mono_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* The sum of the "(N command failures not logged ...)" notes in @p text. */
static uint64_t
notes_sum(const char *text)
{
	const char *key = " command failures not logged";
	uint64_t sum = 0;
	const char *p;

	for (p = strstr(text, key); p != NULL; p = strstr(p + 1, key)) {
		const char *q = p;

		while (q > text && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q > text && q[-1] == '(')
			sum += strtoull(q, NULL, 10);
	}
	return sum;
}

/*
 * The lines of @p text that end as a failure line of QUERY_FLOW_COUNTER
 * with syndrome 0x51 executed by the device does: with the syndrome, or
 * with the count of the lines not logged before it.
 */
static unsigned int
lines_well_ended(const char *text)
{
	static const char *const ends[] = {
		"syndrome=0x51\n", " command failures not logged before this one)\n",
	};
	unsigned int n = 0, i;
	const char *p, *nl;

	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		for (i = 0; i < RTE_DIM(ends); i++) {
			size_t l = strlen(ends[i]);

			if ((size_t)(nl + 1 - p) >= l && memcmp(nl + 1 - l, ends[i], l) == 0) {
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * One round of the log limit: in a new second, one failure (logged, with
 * the count of the earlier ones not logged: the count starts afresh), then
 * @p n failures, then one in a later second. Every failure returned EINVAL
 * and was recorded; at most 10 lines a second; the later line counts what
 * was not logged, so that logged plus counted is @p n.
 */
static int
log_limit_round(struct mdevx_obj *cnt, struct log_cap *lc, unsigned int n)
{
	struct mdevx_counter_stats st;
	struct mdevx_cmd_error ce;
	uint64_t t0, t1, counted;
	unsigned int i, lines, late, fails = 0;
	bool late_fail;

	t0 = mono_sec();
	while (mono_sec() == t0)
		usleep(1000);
	t0 = mono_sec();
	(void)mdevx_counter_query(cnt, 0, 1, 0, &st);
	(void)log_cap_take(lc, NULL);
	for (i = 0; i < n; i++) {
		memset(&ce, 0, sizeof(ce));
		if (mdevx_counter_query(cnt, 0, 1, 0, &st) == -EINVAL && errno == EINVAL &&
		    mdevx_last_cmd_error(&ce) == 0 && ce.syndrome == 0x51 &&
		    ce.opcode == MDEVX_CMD_OP_QUERY_FLOW_COUNTER)
			fails++;
	}
	t1 = mono_sec();
	lines = log_cap_take(lc, "mdevx: ");
	counted = notes_sum(lc->text);
	TEST_ASSERT(lines_well_ended(lc->text) == lines, "a line ends in neither way: %s",
		    lc->text);
	while (mono_sec() == t1)
		usleep(1000);
	late_fail = mdevx_counter_query(cnt, 0, 1, 0, &st) == -EINVAL;
	late = log_cap_take(lc, "mdevx: ");
	counted += notes_sum(lc->text);
	printf("%u failures in %" PRIu64 " s: %u lines, %" PRIu64 " counted as not logged\n",
	       n, t1 - t0 + 1, lines, counted);
	TEST_ASSERT(fails == n && late_fail, "%u of %u failures returned EINVAL and were recorded",
		    fails + late_fail, n + 1);
	/* 10 lines a second, the first failure's included. */
	TEST_ASSERT(lines > 0 && lines + 1 <= 10 * (t1 - t0 + 1), "%u lines logged in %" PRIu64 " s",
		    lines, t1 - t0 + 1);
	/* In one second, all 10 of them. */
	TEST_ASSERT(t1 != t0 || lines + 1 == RTE_MIN(n + 1, 10u), "%u lines of %u failures in 1 s",
		    lines + 1, n + 1);
	TEST_ASSERT(late == 1 && (lines == n || strstr(lc->text, "not logged") != NULL),
		    "the failure of a later second: %u lines: %s", late, lc->text);
	TEST_ASSERT(lines + counted == n, "%u logged + %" PRIu64 " counted != %u failures", lines,
		    counted, n);
	return TEST_SUCCESS;
}

/* The query of an import whose object is gone: one line, "not executed". */
static int
stale_query_line(struct log_cap *lc)
{
	struct mdevx_counter_stats st;
	struct mdevx_obj *cnt, *imp;
	int rc;

	cnt = mdevx_counter_alloc(ctx1, 1);
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	imp = export_import(cnt, MDEVX_OBJ_FLOW_COUNTER);
	TEST_ASSERT_NOT_NULL(imp, "import: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "destroy");
	(void)log_cap_take(lc, "mdevx: ");
	rc = mdevx_counter_query(imp, 0, 1, 0, &st);
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(imp), "unimport");
	TEST_ASSERT(rc == -ENOENT, "query of a stale import: %d", rc);
	TEST_ASSERT(log_cap_take(lc, "mdevx: ") == 1 &&
		    strstr(lc->text, "(not executed by the device)\n") != NULL,
		    "the stale query's line: %s", lc->text);
	return TEST_SUCCESS;
}

/*
 * The device strings of the software device backend, gone: ENOTSUP and
 * one line that names the rdma: string to use; the caller's fd stays open.
 */
/* The open just refused: NULL and ENOTSUP, one "mdevx: " line with @p a and @p b. 0 or -1. */
static int
swdev_refusal(struct log_cap *lc, const struct mdevx_ctx *c, const char *call, const char *a,
	      const char *b)
{
	int n;

	if (c != NULL || errno != ENOTSUP) {
		printf("%s: %p, %s\n", call, (const void *)c, strerror(errno));
		return -1;
	}
	n = log_cap_take(lc, "mdevx: ");
	if (n != 1 || strstr(lc->text, a) == NULL || strstr(lc->text, b) == NULL) {
		printf("%s: %d lines: %s\n", call, n, lc->text);
		return -1;
	}
	return 0;
}

static int
test_swdev_devstr_refused(void)
{
	struct log_cap lc = { .f = NULL };
	int fd = -1, ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(log_cap_start(&lc, RTE_LOG_ERR), "log capture");
	if (swdev_refusal(&lc, mdevx_open("swdev:mlx5_0"), "mdevx_open(swdev:mlx5_0)",
			  "`mlx5-swdev run`", "\"rdma:mlx5_0\"") != 0)
		goto out;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (swdev_refusal(&lc, mdevx_import_device("swdev:/tmp/s.sock:mlx5_1", fd),
			  "mdevx_import_device(swdev:...)", "mdevx_import_device(",
			  "\"rdma:mlx5_1\"") != 0)
		goto out;
	if (fcntl(fd, F_GETFD) == -1) {
		printf("the caller's fd was closed\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	if (fd >= 0)
		close(fd);
	log_cap_stop(&lc);
	return ret;
}

/*
 * A command failing again and again (a lost device polled by a service):
 * 200 failures, then 10 (the first second's eleventh line is the one not
 * logged), then a destroy that fails and a query the device never runs.
 */
static int
test_cmd_log_limit(void)
{
	struct log_cap lc = { .f = NULL };
	struct mdevx_obj *cnt;
	int rc = TEST_FAILED;
	uint64_t t0;

	cnt = mdevx_counter_alloc(ctx1, 1);
	TEST_ASSERT_NOT_NULL(cnt, "counter: %s", strerror(errno));
	if (log_cap_start(&lc, RTE_LOG_ERR) != 0) {
		printf("log capture: %s\n", strerror(errno));
		goto out;
	}
	if (swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1000,
				MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x51, 0) != 0) {
		printf("fault: %s\n", strerror(errno));
		goto out;
	}
	if (log_limit_round(cnt, &lc, 200) != TEST_SUCCESS ||
	    log_limit_round(cnt, &lc, 10) != TEST_SUCCESS)
		goto out;
	/* A failure the library logs itself (a destroy), the first of a second: logged. */
	t0 = mono_sec();
	while (mono_sec() == t0)
		usleep(1000);
	if (swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER, 1,
				MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x52, 0) != 0 ||
	    mdevx_obj_destroy(cnt) == 0) {
		printf("a destroy with a fault: %s\n", strerror(errno));
		goto out;
	}
	if (log_cap_take(&lc, "mdevx: ") != 1 || strstr(lc.text, "destroying") == NULL) {
		printf("the failed destroy's line: %s\n", lc.text);
		goto out;
	}
	/*
	 * A command the device never ran (the kernel's ENOENT: the handle of
	 * an import whose object was destroyed names nothing): said so.
	 */
	if (stale_query_line(&lc) != TEST_SUCCESS)
		goto out;
	rc = TEST_SUCCESS;
out:
	(void)swdev_ctl_set_fault(ctl, DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0);
	log_cap_stop(&lc);
	if (mdevx_obj_destroy(cnt) != 0) {
		printf("counter destroy: %s\n", strerror(errno));
		rc = TEST_FAILED;
	}
	return rc;
}

static struct unit_test_suite swdev_suite = {
	.suite_name = "mlx5 devx export/import on the software device",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE(test_counter_export),
		TEST_CASE(test_counter_query_split),
		TEST_CASE(test_tir_direct_export),
		TEST_CASE(test_tir_indirect_export),
		TEST_CASE(test_ref_import),
		TEST_CASE(test_revoke),
		TEST_CASE(test_revoke_in_flight),
		TEST_CASE(test_revoke_concurrent),
		TEST_CASE(test_errno_cases),
		TEST_CASE(test_many_objects),
		TEST_CASE(test_rdma_backend_no_nic),
		TEST_CASE(test_threads),
		TEST_CASE(test_closed_ctx_cache),
		TEST_CASE(test_cmd_log_limit),
		TEST_CASE(test_swdev_devstr_refused),
		TEST_CASE(test_zero_objects_left),
		TEST_CASES_END()
	},
};

static int
test_mlx5_devx_export(void)
{
	uint32_t nfiles = UINT32_MAX;
	int rc, i;

	if (unit_test_suite_runner(&layout_suite) != TEST_SUCCESS)
		return TEST_FAILED;
	rc = unit_test_suite_runner(&swdev_suite);
	if (rc != TEST_SUCCESS)
		return rc;
	/* After both contexts closed, the uverbs file is gone too. */
	ctl = swdev_ctl_open(getenv("SWDEV_SOCKET"));
	TEST_ASSERT_NOT_NULL(ctl, "control channel: %s", strerror(errno));
	/* The daemon sees the closes asynchronously: wait up to 2 s. */
	for (i = 0; i < 200; i++) {
		rc = swdev_ctl_get_num_files(ctl, DEV, &nfiles);
		if (rc != 0 || nfiles == 0)
			break;
		usleep(10000);
	}
	swdev_ctl_close(ctl);
	ctl = NULL;
	TEST_ASSERT_SUCCESS(rc, "number of files");
	TEST_ASSERT_EQUAL(nfiles, 0u, "%u uverbs files left open on " DEV, nfiles);
	return TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(mlx5_devx_export_autotest, test_mlx5_devx_export);

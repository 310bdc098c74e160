/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_soak: a soak test of libmdevx_share on the software
 * device, run by hand (devtools/soak-share.sh), never by CI.
 *
 * N secondaries ($MDEVX_SOAK_SECONDARIES, default 64, the most one device
 * takes) attach to one primary. Once all have attached (a handshake), the
 * primary replaces, for S seconds ($MDEVX_SOAK_SECONDS, default 60), one
 * of NB_SLOTS published objects after the other (counter bulks and direct
 * TIRs): it withdraws the slot's record, waiting for the acknowledgements
 * of every attached secondary, then publishes a new object under a new
 * name, with traffic injected on counter 0 of a bulk, and announces it
 * (the epoch). On each epoch a secondary imports a counter bulk by name
 * and checks the injected values; one in RULE_EVERY also imports a TIR and
 * installs a rule (mdevx_share_rule_create()) that steers to it and counts
 * on the bulk. It keeps what it made until the next epoch, so withdrawals
 * meet live imports and rules. A name withdrawn between the announcement
 * and the import (ENOENT, ESTALE, EAGAIN) is a miss, not a failure.
 *
 * At the end the primary prints one line: secondaries, seconds,
 * withdrawals, imports, lost acknowledgements (a withdrawal acknowledged
 * by fewer secondaries than were attached, i.e. it timed out waiting for
 * a live one) and the objects left on the device after the close (the
 * daemon's counts). It passes only with 0 lost, 0 left, no failure in a
 * secondary and every secondary exiting 0.
 *
 * $MDEVX_SOAK_MUTE=1 (a check of the check): secondary 1 never
 * acknowledges (a test hook), every withdrawal waits out its bound for it
 * and counts as lost: the run must fail.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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
#define SOAK_MZ "mdevx_t_soak_sync"
#define SOAK_MAX_SECONDARIES 64		/* the library's limit per device */
#define SOAK_MAX_SECONDS 86400
#define NB_CTR_SLOTS 4
#define NB_TIR_SLOTS 2
#define NB_SLOTS (NB_CTR_SLOTS + NB_TIR_SLOTS)
#define BULK 16
#define RULE_EVERY 4			/* one secondary in 4 installs rules */
#define WITHDRAW_MS 5000		/* the device's bound on acknowledgements */
#define EPOCH_WAIT_MS 30000		/* no new epoch for that long: a failure */
#define ATTACH_MS_EACH 2000		/* startup of a secondary, on a loaded machine */

enum { SLOT_COUNTER = 1, SLOT_TIR = 2 };

/* A published object; seq is odd while the primary rewrites the slot. */
struct soak_slot {
	volatile uint32_t seq;
	uint32_t kind;
	uint64_t gen;			/* 0: nothing published */
	char name[MDEVX_SHARE_NAME_MAX + 1];
};

/* Shared between the primary and its secondaries. */
struct soak_sync {
	volatile uint32_t attached;	/* secondaries attached and not closing */
	volatile uint32_t stop;
	volatile uint32_t failures;
	volatile uint32_t epoch;	/* publications so far */
	volatile uint32_t last_ctr;	/* slot of the newest bulk */
	volatile uint32_t last_tir;	/* slot of the newest TIR */
	uint32_t nb_secondaries;
	uint32_t mute;			/* this secondary never acknowledges; 0: none */
	uint32_t rqn, tdn;		/* what the direct TIRs point at */
	volatile uint64_t imports;	/* successful imports in the secondaries */
	volatile uint64_t misses;	/* names withdrawn before the import or use */
	volatile uint64_t rules;	/* rules installed */
	volatile uint64_t queries;	/* counter reads that matched */
	struct soak_slot slot[NB_SLOTS];
};

/* Counter 0 of the bulk of generation @p gen in slot @p k. */
static uint64_t
soak_packets(uint64_t gen)
{
	return gen;
}

static uint64_t
soak_bytes(uint64_t gen, unsigned int k)
{
	return gen * 64 + k;
}

/* A slot, copied consistently: false when it holds nothing (or stays torn). */
static bool
slot_read(const struct soak_slot *sl, uint32_t *kind, uint64_t *gen, char *name)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s1 = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE), s2;

		if (s1 & 1u)
			continue;
		*kind = sl->kind;
		*gen = sl->gen;
		memcpy(name, sl->name, MDEVX_SHARE_NAME_MAX + 1);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&sl->seq, __ATOMIC_RELAXED);
		if (s1 != s2)
			continue;
		name[MDEVX_SHARE_NAME_MAX] = '\0';
		return *gen != 0;
	}
	return false;
}

static void
slot_write(struct soak_slot *sl, uint32_t kind, uint64_t gen, const char *name)
{
	__atomic_store_n(&sl->seq, sl->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sl->kind = kind;
	sl->gen = gen;
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	__atomic_store_n(&sl->seq, sl->seq + 1, __ATOMIC_RELEASE);
}

/* The value from environment variable @p var, @p def when unset: false if invalid. */
static bool
env_uint(const char *var, unsigned int def, unsigned int min, unsigned int max,
	 unsigned int *out)
{
	const char *v = getenv(var);
	unsigned long n;
	char *end;

	*out = def;
	if (v == NULL || v[0] == '\0')
		return true;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || v[0] == '-' || n < min || n > max) {
		printf("%s=%s: want an integer in %u..%u\n", var, v, min, max);
		return false;
	}
	*out = (unsigned int)n;
	return true;
}

/* ------------------------------------------------------------------ */
/* Secondary                                                           */
/* ------------------------------------------------------------------ */

#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(&s->failures, cond, __VA_ARGS__)

/* What a secondary made in one epoch, kept until the next. */
struct soak_held {
	mdevx_share_imp_t cnt, tir;
	mdevx_share_rule_t rule;
};

/* A miss: the record went (or is being written) between the name and its use. */
static bool
is_miss(int rc)
{
	return rc == -ENOENT || rc == -ESTALE || rc == -EAGAIN;
}

/* Release what @p h holds: 0, or -1 after a line. */
static int
held_release(struct mdevx_share_dev *dev, struct soak_held *h)
{
	int ret = 0, rc;

	if (h->rule.id != 0) {
		rc = mdevx_share_rule_state(dev, h->rule);
		if (rc != 0 && rc != -ESTALE) {
			printf("[%d] rule state %d\n", (int)getpid(), rc);
			ret = -1;
		}
		rc = mdevx_share_rule_destroy(dev, h->rule);
		if (rc != 0) {
			printf("[%d] rule destroy: %s\n", (int)getpid(), strerror(-rc));
			ret = -1;
		}
	}
	if (h->cnt.id != 0 && (rc = mdevx_share_unimport(dev, h->cnt)) != 0) {
		printf("[%d] unimport of the bulk: %s\n", (int)getpid(), strerror(-rc));
		ret = -1;
	}
	if (h->tir.id != 0 && (rc = mdevx_share_unimport(dev, h->tir)) != 0) {
		printf("[%d] unimport of the TIR: %s\n", (int)getpid(), strerror(-rc));
		ret = -1;
	}
	memset(h, 0, sizeof(*h));
	return ret;
}

/* Wait for an epoch past @p last: false on stop, failure or timeout. */
static bool
epoch_wait(struct soak_sync *s, uint32_t last, uint32_t *now)
{
	uint64_t end = test_now_ms() + EPOCH_WAIT_MS;

	for (;;) {
		uint32_t e = __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE) != 0 ||
		    __atomic_load_n(&s->failures, __ATOMIC_ACQUIRE) != 0)
			return false;
		if (e != last) {
			*now = e;
			return true;
		}
		if (test_now_ms() > end) {
			printf("[%d] no new epoch after %u in %u ms\n", (int)getpid(), last,
			       EPOCH_WAIT_MS);
			__atomic_store_n(&s->failures, 1, __ATOMIC_RELEASE);
			return false;
		}
		usleep(1000);
	}
}

/*
 * One epoch: import a bulk by name and check counter 0; a rule installer
 * also imports a TIR and puts a rule on both. Readers spread over the
 * bulks; installers take the newest bulk and TIR, the last ones the
 * primary withdraws, so that fewer rules meet a withdrawn import (which
 * the library logs). 0, or -1 (a failure).
 */
static int
soak_epoch(struct soak_sync *s, struct mdevx_share_dev *dev, struct mdevx_matcher *m,
	   const uint8_t *value, unsigned int me, uint32_t epoch, struct soak_held *h)
{
	unsigned int k = (me + epoch) % NB_CTR_SLOTS;
	char name[MDEVX_SHARE_NAME_MAX + 1];
	struct mdevx_share_rule_attr ra;
	struct mdevx_counter_stats st;
	struct mdevx_tir_attr ta;
	uint32_t kind;
	uint64_t gen;
	int rc;

	if (m != NULL) {
		/* A hint in shared memory: checked. */
		k = __atomic_load_n(&s->last_ctr, __ATOMIC_RELAXED);
		ROLE_CHECK(k < NB_CTR_SLOTS, "newest bulk in slot %u", k);
	}
	if (!slot_read(&s->slot[k], &kind, &gen, name))
		return 0;
	ROLE_CHECK(kind == SLOT_COUNTER, "slot %u holds kind %u", k, kind);
	rc = mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &h->cnt);
	if (rc != 0)
		h->cnt.id = 0;
	if (is_miss(rc)) {
		__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	ROLE_CHECK(rc == 0, "import %s: %s", name, strerror(-rc));
	__atomic_add_fetch(&s->imports, 1, __ATOMIC_RELAXED);
	rc = mdevx_share_counter_query(dev, h->cnt, 0, 1, 0, &st);
	if (rc == -ESTALE) {
		__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	ROLE_CHECK(rc == 0, "query %s: %s", name, strerror(-rc));
	ROLE_CHECK(st.packets == soak_packets(gen) && st.bytes == soak_bytes(gen, k),
		   "%s: counter 0 %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64, name,
		   st.packets, st.bytes, soak_packets(gen), soak_bytes(gen, k));
	__atomic_add_fetch(&s->queries, 1, __ATOMIC_RELAXED);
	if (m == NULL)
		return 0;

	k = __atomic_load_n(&s->last_tir, __ATOMIC_RELAXED);
	ROLE_CHECK(k >= NB_CTR_SLOTS && k < NB_SLOTS, "newest TIR in slot %u", k);
	if (!slot_read(&s->slot[k], &kind, &gen, name))
		return 0;
	ROLE_CHECK(kind == SLOT_TIR, "slot %u holds kind %u", k, kind);
	rc = mdevx_share_import(dev, name, MDEVX_OBJ_TIR, &h->tir);
	if (rc != 0)
		h->tir.id = 0;
	if (is_miss(rc)) {
		__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	ROLE_CHECK(rc == 0, "import %s: %s", name, strerror(-rc));
	__atomic_add_fetch(&s->imports, 1, __ATOMIC_RELAXED);
	rc = mdevx_share_tir_query(dev, h->tir, &ta);
	if (rc == -ESTALE) {
		__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	ROLE_CHECK(rc == 0, "query %s: %s", name, strerror(-rc));
	ROLE_CHECK(ta.disp_type == MDEVX_TIR_DISP_DIRECT && ta.inline_rqn == s->rqn &&
		   ta.transport_domain == s->tdn, "%s: RQ %u TD %u, want %u %u", name,
		   ta.inline_rqn, ta.transport_domain, s->rqn, s->tdn);
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = MDEVX_MATCH_PARAM_LEN;
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = h->tir;
	ra.counter_imp = h->cnt;
	ra.counter_offset = me % BULK;
	h->rule = mdevx_share_rule_create(dev, m, &ra);
	if (h->rule.id == 0 && (errno == ESTALE || errno == ENOENT)) {
		__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
		return 0;
	}
	ROLE_CHECK(h->rule.id != 0, "rule on %s: %s", name, strerror(errno));
	__atomic_add_fetch(&s->rules, 1, __ATOMIC_RELAXED);
	return 0;
out:
	return -1;
}

/* argv[0]: the secondary's index. */
static int
role_soak(int argc, char **argv)
{
	struct soak_sync *s = test_memzone_addr(SOAK_MZ);
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_matcher *m = NULL;
	struct soak_held held = { 0 };
	bool counted = false;
	uint32_t epoch = 0;
	unsigned int me;
	int ret = 1;

	if (s == NULL || argc < 1)
		return 1;
	me = (unsigned int)strtoul(argv[0], NULL, 10);
	ROLE_CHECK(me < SOAK_MAX_SECONDARIES, "index %u", me);
	if (me != 0 && me == s->mute)
		mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	if (me % RULE_EVERY == 0) {
		struct mdevx_matcher_attr ma = {
			.priority = (uint16_t)(me / RULE_EVERY % 16),
			.match_criteria_enable = MDEVX_MATCH_OUTER,
			.mask = mask, .mask_len = sizeof(mask),
		};

		test_udp_mask_value(mask, value, (uint16_t)(5000 + me));
		m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
		ROLE_CHECK(m != NULL, "matcher: %s", strerror(errno));
	}
	__atomic_add_fetch(&s->attached, 1, __ATOMIC_RELEASE);
	counted = true;
	while (epoch_wait(s, epoch, &epoch)) {
		ROLE_CHECK(held_release(dev, &held) == 0, "release of epoch %u's objects", epoch);
		ROLE_CHECK(soak_epoch(s, dev, m, value, me, epoch, &held) == 0, "epoch %u",
			   epoch);
	}
	ROLE_CHECK(__atomic_load_n(&s->failures, __ATOMIC_ACQUIRE) == 0, "stopped by a failure");
	ROLE_CHECK(held_release(dev, &held) == 0, "release at the end");
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "%u imports left",
		   mdevx_share_dev_imports(dev));
	ret = 0;
out:
	if (dev != NULL)
		held_release(dev, &held);
	if (m != NULL && mdevx_matcher_destroy(m) != 0 && ret == 0) {
		printf("[%d] matcher destroy: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	if (counted)
		__atomic_sub_fetch(&s->attached, 1, __ATOMIC_RELEASE);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(share_soak, role_soak);

/* ------------------------------------------------------------------ */
/* Primary                                                             */
/* ------------------------------------------------------------------ */

struct soak_chain {
	struct mdevx_obj *td, *pd, *cq, *rq;
};

static void
soak_chain_destroy(struct soak_chain *c)
{
	struct mdevx_obj **objs[] = { &c->rq, &c->cq, &c->pd, &c->td };

	for (size_t i = 0; i < RTE_DIM(objs); i++) {
		if (*objs[i] != NULL && mdevx_obj_destroy(*objs[i]) != 0)
			printf("destroy of chain object %zu: %s\n", i, strerror(errno));
		*objs[i] = NULL;
	}
}

static int
soak_chain_create(struct mdevx_ctx *ctx, struct soak_chain *c)
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
	rqa.user_index = 1;
	c->rq = mdevx_rq_create(ctx, &rqa);
	if (c->rq == NULL)
		goto err;
	return 0;
err:
	printf("TIR chain: %s\n", strerror(errno));
	soak_chain_destroy(c);
	return -1;
}

/*
 * A new object for slot @p k, generation @p gen, published as @p name and
 * announced. The primary keeps its names and the chain's ids in private
 * memory: the memzone is only written.
 */
static int
soak_publish(struct mdevx_share_dev *pdev, struct swdev_ctl *ctl, struct soak_sync *s,
	     const struct soak_chain *c, unsigned int k, uint64_t gen, char *name)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_obj *obj;
	uint32_t kind;
	int rc;

	if (k < NB_CTR_SLOTS) {
		kind = SLOT_COUNTER;
		snprintf(name, MDEVX_SHARE_NAME_MAX + 1, "soak.ctr%u.%" PRIu64, k, gen);
		obj = mdevx_counter_alloc(ctx, BULK);
		TEST_ASSERT_NOT_NULL(obj, "counter bulk: %s", strerror(errno));
		rc = swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(obj), soak_packets(gen),
					      soak_bytes(gen, k));
		if (rc != 0) {
			printf("traffic on %s: %d\n", name, rc);
			mdevx_obj_destroy(obj);
			return TEST_FAILED;
		}
	} else {
		struct mdevx_tir_attr ta = {
			.disp_type = MDEVX_TIR_DISP_DIRECT,
			.inline_rqn = test_obj_id(c->rq),
			.transport_domain = test_obj_id(c->td),
		};

		kind = SLOT_TIR;
		snprintf(name, MDEVX_SHARE_NAME_MAX + 1, "soak.tir%u.%" PRIu64, k, gen);
		obj = mdevx_tir_create(ctx, &ta);
		TEST_ASSERT_NOT_NULL(obj, "TIR: %s", strerror(errno));
	}
	rc = mdevx_share_publish(pdev, name, obj);
	if (rc != 0) {
		printf("publish %s: %s\n", name, strerror(-rc));
		mdevx_obj_destroy(obj);
		return TEST_FAILED;
	}
	slot_write(&s->slot[k], kind, gen, name);
	if (kind == SLOT_COUNTER)
		__atomic_store_n(&s->last_ctr, k, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&s->last_tir, k, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->epoch, 1, __ATOMIC_RELEASE);
	return TEST_SUCCESS;
}

static int
test_share_soak(void)
{
	struct mdevx_share_conf conf = {
		.capacity = 256, .withdraw_timeout_ms = WITHDRAW_MS,
		.counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF,
	};
	uint64_t withdrawals = 0, lost = 0, gen = 0, start_ms, end_ms, elapsed_ms = 0;
	char names[NB_SLOTS][MDEVX_SHARE_NAME_MAX + 1];
	bool published[NB_SLOTS] = { false };
	struct test_children children = { .nb = 0 };
	const struct rte_memzone *mz = NULL;
	struct mdevx_share_dev *pdev = NULL;
	struct swdev_ctl *ctl = NULL;
	unsigned int nb, seconds, mute, k;
	struct soak_chain chain;
	uint32_t left = UINT32_MAX;
	struct soak_sync *s;
	int ret, child_ret;
	bool ok = true;

	memset(&chain, 0, sizeof(chain));
	if (!env_uint("MDEVX_SOAK_SECONDARIES", 64, 1, SOAK_MAX_SECONDARIES, &nb) ||
	    !env_uint("MDEVX_SOAK_SECONDS", 60, 1, SOAK_MAX_SECONDS, &seconds) ||
	    !env_uint("MDEVX_SOAK_MUTE", 0, 0, 1, &mute))
		return TEST_FAILED;
	if (mute != 0 && nb < 2) {
		printf("MDEVX_SOAK_MUTE needs 2 secondaries\n");
		return TEST_FAILED;
	}
	ret = test_swdev_suite_setup(&ctl, &mz, SOAK_MZ, sizeof(struct soak_sync));
	if (ret != TEST_SUCCESS)
		return ret;
	s = mz->addr;
	s->nb_secondaries = nb;
	s->mute = mute;
	if (test_wait_dev_empty(ctl, DEV, 5000) != 0) {
		ok = false;
		goto out;
	}
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	if (pdev == NULL) {
		printf("share open: %s\n", strerror(errno));
		ok = false;
		goto out;
	}
	if (soak_chain_create(mdevx_share_dev_ctx(pdev), &chain) != 0) {
		ok = false;
		goto out;
	}
	s->rqn = test_obj_id(chain.rq);
	s->tdn = test_obj_id(chain.td);
	for (k = 0; k < NB_SLOTS; k++) {
		if (soak_publish(pdev, ctl, s, &chain, k, ++gen, names[k]) != TEST_SUCCESS) {
			ok = false;
			goto out;
		}
		published[k] = true;
	}
	for (unsigned int i = 0; i < nb; i++) {
		char idx[16];
		const char *args[] = { idx };
		pid_t pid;

		snprintf(idx, sizeof(idx), "%u", i);
		pid = test_children_spawn(&children, "share_soak", 1, args);
		if (pid <= 0) {
			printf("spawn of secondary %u: %s\n", i, strerror(-(int)pid));
			ok = false;
			goto out;
		}
	}
	if (!test_wait_at_least(&s->attached, nb, nb * ATTACH_MS_EACH + 30000, &s->failures)) {
		printf("%u of %u secondaries attached\n", s->attached, nb);
		ok = false;
		goto out;
	}
	printf("soak: %u secondaries attached, %u s of withdrawals\n", nb, seconds);
	fflush(stdout);

	start_ms = test_now_ms();
	end_ms = start_ms + (uint64_t)seconds * 1000;
	for (k = 0; test_now_ms() < end_ms; k = (k + 1) % NB_SLOTS) {
		unsigned int acked = 0;
		uint32_t attached;
		int rc;

		if (__atomic_load_n(&s->failures, __ATOMIC_ACQUIRE) != 0) {
			printf("a secondary failed: stopping\n");
			ok = false;
			break;
		}
		rc = mdevx_share_withdraw(pdev, names[k], &acked);
		if (rc != 0) {
			printf("withdraw %s: %s\n", names[k], strerror(-rc));
			ok = false;
			break;
		}
		withdrawals++;
		published[k] = false;
		/* Those attached for the whole withdrawal: they all had to answer. */
		attached = __atomic_load_n(&s->attached, __ATOMIC_ACQUIRE);
		if (acked < attached) {
			lost++;
			printf("withdraw %s: %u of %u secondaries acknowledged\n",
			       names[k], acked, attached);
		}
		if (soak_publish(pdev, ctl, s, &chain, k, ++gen, names[k]) != TEST_SUCCESS) {
			ok = false;
			break;
		}
		published[k] = true;
	}
	elapsed_ms = test_now_ms() - start_ms;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
out:
	if (mz != NULL)
		__atomic_store_n(&((struct soak_sync *)mz->addr)->stop, 1, __ATOMIC_RELEASE);
	child_ret = test_children_wait(&children, EPOCH_WAIT_MS + 30000);
	if (child_ret != TEST_SUCCESS)
		ok = false;
	if (pdev != NULL) {
		/* The TIRs first, then what they point at; the close checks the rest. */
		for (k = 0; k < NB_SLOTS; k++) {
			int rc = published[k] ? mdevx_share_withdraw(pdev, names[k], NULL) : 0;

			if (rc != 0) {
				printf("withdraw %s: %s\n", names[k], strerror(-rc));
				ok = false;
			}
		}
		soak_chain_destroy(&chain);
		if (mdevx_share_dev_close(pdev) != 0) {
			printf("share close: %s\n", strerror(errno));
			ok = false;
		}
	}
	if (ctl != NULL) {
		test_wait_dev_empty(ctl, DEV, 5000);
		if (test_dev_total(ctl, DEV, &left) != 0)
			left = UINT32_MAX;
	}
	if (mz != NULL) {
		s = mz->addr;
		printf("soak: misses %" PRIu64 " rules %" PRIu64 " counter reads %" PRIu64
		       " secondary failures %u elapsed %" PRIu64 " ms\n", s->misses, s->rules,
		       s->queries, s->failures, elapsed_ms);
		printf("soak: secondaries %u seconds %u withdrawals %" PRIu64 " imports %" PRIu64
		       " lost %" PRIu64 " left %d\n", nb, seconds, withdrawals, s->imports, lost,
		       left == UINT32_MAX ? -1 : (int)left);
		if (s->failures != 0)
			ok = false;
	}
	fflush(stdout);
	test_swdev_suite_teardown(&ctl, &mz, &children);
	if (lost != 0 || left != 0)
		ok = false;
	return ok ? TEST_SUCCESS : TEST_FAILED;
}
REGISTER_TEST_COMMAND(mlx5_devx_share_soak, test_share_soak);

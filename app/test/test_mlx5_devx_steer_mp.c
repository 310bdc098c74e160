/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Packets through shared objects, end to end, on the software device:
 *
 * mlx5_devx_steer_mp_autotest
 *	the primary publishes a counter bulk, a direct TIR and an RSS TIR
 *	over 4 RQs; two secondaries import them and install root rules
 *	(secondary A: UDP port 5000 to the RSS TIR, counter 3; secondary B:
 *	UDP port 6000 to the direct TIR, counter 7); a pcap file made with
 *	scapy is replayed into the device's port. The counters every process
 *	reads equal what this file computes from the pcap (read with libpcap,
 *	decoded with DPDK's header structures), each RQ behind the RSS TIR
 *	received what rte_softrss() predicts, the misses are the rest. After
 *	the RSS TIR is withdrawn, A's rule is gone (the withdrawal removed it
 *	before A acknowledged) and its packets miss; after B is killed with
 *	SIGKILL, the primary removes B's rule and its packets miss too.
 *	Also: every refusal of mdevx_share_rule_create() with its errno; the
 *	primary's own rules on imports and on its published objects removed
 *	by their withdrawal; a secondary that never acknowledges has its rule
 *	removed by the primary before the destroy; rule messages naming the
 *	primary's own rule or no rule at all change nothing that matters;
 *	the same with a rule counting on a counter record that is withdrawn
 *	(the bulk is destroyed, 0 rules left); a thief that claims and
 *	removes two honest secondaries' rules and floods 100,000
 *	announcements is refused, the honest rules stay after its death;
 *	a secondary that dies with 65,536 rules does not delay an attach
 *	made while the primary removes them.
 * mlx5_devx_steer_perf_autotest
 *	a secondary installs and removes root rules on imported objects, each
 *	through mdevx_share_rule_create() (device round trip plus the message
 *	to the primary); printed as rules per second and as a ratio to one
 *	device round trip (a counter query) measured in the same run. No
 *	timed assertion.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev) and
 * $MDEVX_TEST_PCAPGEN, the scapy script test/steer/gen_steer_pcap.py.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_memzone.h>
#include <rte_thash.h>

#include <mdevx.h>
#include <mdevx_build_config.h>
#include <mdevx_prm.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <swdev_client.h>

#include "pcap_udp.h"
#include "process.h"
#include "test.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR "rdma:" DEV
#define SYNC_MZ "mdevx_t_steer_sync"
#define NB_RSS_RQ 4
#define BULK 16
#define WAIT_MS 20000
#define REAP_WAIT_MS 3000

/* The two secondaries' rules. */
enum { RULE_A = 0, RULE_B = 1, NB_RULES = 2 };
static const uint16_t rule_port[NB_RULES] = { 5000, 6000 };
/*
 * Where each rule counts: a bulk of its own (published as rule_ctr[r]), at
 * counter rule_offset[r] where libmlx5 has COUNTERS_DEVX_WITH_OFFSET
 * (rdma-core 60+), else at counter 0: older rdma-core (Debian 12's 44) counts
 * a root rule only on the first counter of a bulk.
 */
#define RULE_OFF(o) (MDEVX_HAVE_FLOW_COUNTER_OFFSET ? (uint32_t)(o) : 0u)
static const uint32_t rule_offset[NB_RULES] = { RULE_OFF(3), RULE_OFF(7) };
static const char *const rule_ctr[NB_RULES] = { "ctr", "ctr_b" };
static const char *const rule_tir[NB_RULES] = { "tir_rss", "tir_direct" };

/* Shared between the test primary and its secondaries. */
struct steer_sync {
	volatile uint32_t ready;	/* secondaries with their rule installed */
	volatile uint32_t phase;	/* 1: replayed; 2: tir_rss withdrawn; 3: B killed */
	volatile uint32_t checked;	/* checks done by the secondaries, all phases */
	volatile uint32_t failures;
	uint32_t handle;		/* forged-message case: the primary's rule */
	double rule_ns, destroy_ns, rtt_ns;	/* perf: per rule created / removed, per query */
	uint64_t want_packets[NB_RULES];	/* counter values now */
	uint64_t want_bytes[NB_RULES];
	/* rule theft and mass reap */
	volatile uint32_t honest_handle[NB_RULES];
	volatile uint64_t thief_ms, attach_ms, reap_left;
	volatile uint32_t made;
};

/* What the pcap must do, computed here from the file. */
struct pcap_expect {
	uint64_t frames, bytes;
	uint64_t packets[NB_RULES], rule_bytes[NB_RULES];
	uint64_t misses;
	uint64_t rq_packets[NB_RSS_RQ], rq_bytes[NB_RSS_RQ];
};

static struct swdev_ctl *ctl;
static const struct rte_memzone *sync_mz;
static struct test_children children;
static struct mdevx_share_dev *pdev;
static char pcap_path[64];

/* The primary's objects. */
static struct {
	struct mdevx_obj *td, *pd, *cq, *rq[NB_RSS_RQ + 1], *rqt;
	struct mdevx_obj *cnt, *cnt_b;	/* published "ctr" and "ctr_b": rules A and B */
	struct mdevx_obj *tir_direct, *tir_rss;	/* published: the records own them */
	struct mdevx_tir_attr rss;
} objs;

static struct steer_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

/* ------------------------------------------------------------------ */
/* The pcap, decoded independently of the device                       */
/* ------------------------------------------------------------------ */

static void
rss_key(uint8_t *key)
{
	for (int i = 0; i < MDEVX_TOEPLITZ_KEY_LEN; i++)
		key[i] = (uint8_t)(0x6d + i * 13);
}

/*
 * Which rule takes frame @p p of @p len bytes (-1: none, -2: IPv6 to the
 * RSS rule's port, which the test traffic never has), and for rule A the
 * RQ rte_softrss() picks. The rules match IP protocol UDP and the UDP
 * destination port, IPv4 or IPv6, behind at most one 802.1Q tag; the RSS
 * TIR hashes the IPv4 addresses and UDP ports.
 */
static int
classify(const uint8_t *p, uint32_t len, const uint8_t *key, uint32_t *rq)
{
	struct pcap_udp u;

	if (pcap_udp_decode(p, len, &u) != 0)
		return -1;
	if (u.dport == rule_port[RULE_A]) {
		if (!u.ipv4)
			return -2;
		*rq = rte_softrss(u.tuple, RTE_DIM(u.tuple), key) & (NB_RSS_RQ - 1);
		return RULE_A;
	}
	return u.dport == rule_port[RULE_B] ? RULE_B : -1;
}

static int
pcap_expect(const char *path, struct pcap_expect *e)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	uint8_t key[MDEVX_TOEPLITZ_KEY_LEN];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int rc;

	rss_key(key);
	memset(e, 0, sizeof(*e));
	pc = pcap_open_offline(path, errbuf);
	TEST_ASSERT_NOT_NULL(pc, "%s: %s", path, errbuf);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		uint32_t rq = 0;
		int r;

		if (h->caplen != h->len)
			break;
		r = classify(data, h->caplen, key, &rq);
		if (r == -2)
			break;
		e->frames++;
		e->bytes += h->len;
		if (r < 0) {
			e->misses++;
			continue;
		}
		e->packets[r]++;
		e->rule_bytes[r] += h->len;
		if (r == RULE_A) {
			e->rq_packets[rq]++;
			e->rq_bytes[rq] += h->len;
		}
	}
	pcap_close(pc);
	TEST_ASSERT_EQUAL(rc, PCAP_ERROR_BREAK, "%s: not read to its end", path);
	/* The mix must exercise every path, every RQ. */
	TEST_ASSERT(e->packets[RULE_A] > 0 && e->packets[RULE_B] > 0 && e->misses > 0,
		    "traffic mix");
	for (int i = 0; i < NB_RSS_RQ; i++)
		TEST_ASSERT(e->rq_packets[i] > 0, "no packet for RQ %d", i);
	return TEST_SUCCESS;
}

static int
pcap_generate(void)
{
	const char *gen = getenv("MDEVX_TEST_PCAPGEN");
	char cmd[512];
	int rc;

	TEST_ASSERT(gen != NULL && access(gen, R_OK) == 0,
		    "MDEVX_TEST_PCAPGEN does not name the pcap generator");
	snprintf(pcap_path, sizeof(pcap_path), "/tmp/mdevx_steer_%d.pcap", (int)getpid());
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' --seed 7 --out '%s' >/dev/null", gen,
		 pcap_path);
	rc = system(cmd);
	TEST_ASSERT(rc == 0, "%s: exit %d (python3-scapy installed?)", cmd, rc);
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Secondary: one rule on imported objects                              */
/* ------------------------------------------------------------------ */

#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(&s->failures, cond, __VA_ARGS__)

/* Counter @p off of the imported bulk against the primary's expectation. */
static bool
counter_is(struct mdevx_share_dev *dev, mdevx_share_imp_t cnt, uint32_t off, uint64_t packets,
	   uint64_t bytes)
{
	struct mdevx_counter_stats st;
	int rc = mdevx_share_counter_query(dev, cnt, off, 1, 0, &st);

	if (rc != 0 || st.packets != packets || st.bytes != bytes) {
		printf("[%d] counter %u: rc %d, %" PRIu64 " packets %" PRIu64 " bytes, want %"
		       PRIu64 "/%" PRIu64 "\n", (int)getpid(), off, rc, st.packets, st.bytes,
		       packets, bytes);
		return false;
	}
	return true;
}

static int
role_steer(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	struct mdevx_matcher *m = NULL;
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t cnt[NB_RULES] = { { 0 } }, tir = { 0 };
	mdevx_share_rule_t rule = { 0 };
	int ret = 1, me;

	if (s == NULL || argc < 1)
		return 1;
	me = strcmp(argv[0], "A") == 0 ? RULE_A : RULE_B;
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	for (int r = 0; r < NB_RULES; r++)
		ROLE_CHECK(mdevx_share_import(dev, rule_ctr[r], MDEVX_OBJ_FLOW_COUNTER,
					      &cnt[r]) == 0,
			   "import %s: %s", rule_ctr[r], strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, rule_tir[me], MDEVX_OBJ_TIR, &tir) == 0,
		   "import %s: %s", rule_tir[me], strerror(errno));
	test_udp_mask_value(mask, value, rule_port[me]);
	memset(&ma, 0, sizeof(ma));
	ma.priority = (uint16_t)(me + 1);
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = mask;
	ma.mask_len = sizeof(mask);
	m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	ROLE_CHECK(m != NULL, "matcher: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	ra.counter_imp = cnt[me];
	ra.counter_offset = BULK;	/* past the bulk: refused, nothing made */
	ROLE_CHECK(mdevx_share_rule_create(dev, m, &ra).id == 0 && errno == EINVAL,
		   "offset past the bulk: %s", strerror(errno));
	ra.counter_offset = rule_offset[me];
	rule = mdevx_share_rule_create(dev, m, &ra);
	ROLE_CHECK(rule.id != 0, "rule: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_rule_state(dev, rule) == 0, "rule not live");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);

	/* Phase 1: the pcap went through our rule. */
	ROLE_CHECK(test_wait_at_least(&s->phase, 1, WAIT_MS, &s->failures), "no phase 1");
	ROLE_CHECK(counter_is(dev, cnt[me], rule_offset[me], s->want_packets[me],
			      s->want_bytes[me]), "phase 1 counter");
	__atomic_add_fetch(&s->checked, 1, __ATOMIC_RELEASE);

	/* Phase 2: tir_rss withdrawn (A's rule removed), the pcap again. */
	ROLE_CHECK(test_wait_at_least(&s->phase, 2, WAIT_MS, &s->failures), "no phase 2");
	ROLE_CHECK(mdevx_share_rule_state(dev, rule) == (me == RULE_A ? -ESTALE : 0),
		   "rule state after the withdrawal of tir_rss");
	ROLE_CHECK(counter_is(dev, cnt[me], rule_offset[me], s->want_packets[me],
			      s->want_bytes[me]), "phase 2 counter");
	__atomic_add_fetch(&s->checked, 1, __ATOMIC_RELEASE);
	if (me == RULE_B) {
		/* Killed by the primary with its rule in place. */
		for (;;)
			pause();
	}

	/* Phase 3: B was killed, its rule removed, the pcap again. */
	ROLE_CHECK(test_wait_at_least(&s->phase, 3, WAIT_MS, &s->failures), "no phase 3");
	for (int r = 0; r < NB_RULES; r++)
		ROLE_CHECK(counter_is(dev, cnt[r], rule_offset[r], s->want_packets[r],
				      s->want_bytes[r]), "phase 3 counter of rule %d", r);
	__atomic_add_fetch(&s->checked, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(mdevx_share_rule_destroy(dev, rule) == 0, "forget the removed rule");
	rule.id = 0;
	ret = 0;
out:
	if (rule.id != 0)
		mdevx_share_rule_destroy(dev, rule);
	if (m != NULL && mdevx_matcher_destroy(m) != 0 && ret == 0)
		ret = 1;
	if (dev != NULL) {
		for (int r = 0; r < NB_RULES; r++)
			if (cnt[r].id != 0)
				mdevx_share_unimport(dev, cnt[r]);
		if (tir.id != 0)
			mdevx_share_unimport(dev, tir);
		if (mdevx_share_dev_close(dev) != 0 && ret == 0)
			ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(steer_rules, role_steer);

#undef ROLE_CHECK

/* ------------------------------------------------------------------ */
/* Primary                                                              */
/* ------------------------------------------------------------------ */

static void
objs_destroy(void)
{
	struct mdevx_obj **list[] = {
		&objs.rqt, &objs.rq[4], &objs.rq[3], &objs.rq[2], &objs.rq[1], &objs.rq[0],
		&objs.cq, &objs.td, &objs.pd,
	};

	for (size_t i = 0; i < RTE_DIM(list); i++) {
		if (*list[i] != NULL && mdevx_obj_destroy(*list[i]) != 0)
			printf("destroy %zu: %s\n", i, strerror(errno));
		*list[i] = NULL;
	}
}

static int
objs_create(void)
{
	struct mdevx_ctx *ctx = mdevx_share_dev_ctx(pdev);
	struct mdevx_cq_attr cqa = { .log_cq_size = 6, .eq_vector = 0 };
	struct mdevx_tir_attr direct;
	struct mdevx_rq_attr rqa;
	struct mdevx_obj *tir;

	memset(&objs, 0, sizeof(objs));
	objs.td = mdevx_td_alloc(ctx);
	objs.pd = mdevx_pd_alloc(ctx);
	objs.cq = mdevx_cq_create(ctx, &cqa);
	TEST_ASSERT(objs.td != NULL && objs.pd != NULL && objs.cq != NULL, "td/pd/cq: %s",
		    strerror(errno));
	memset(&rqa, 0, sizeof(rqa));
	rqa.cq = objs.cq;
	rqa.pd = objs.pd;
	rqa.log_wq_size = 6;
	rqa.log_wq_stride = 6;
	for (int i = 0; i <= NB_RSS_RQ; i++) {
		rqa.user_index = (uint32_t)i + 1;
		objs.rq[i] = mdevx_rq_create(ctx, &rqa);
		TEST_ASSERT_NOT_NULL(objs.rq[i], "rq %d: %s", i, strerror(errno));
	}
	objs.rqt = mdevx_rqt_create(ctx, objs.rq, NB_RSS_RQ);
	TEST_ASSERT_NOT_NULL(objs.rqt, "rqt: %s", strerror(errno));
	objs.cnt = mdevx_counter_alloc(ctx, BULK);
	TEST_ASSERT_NOT_NULL(objs.cnt, "counter: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, rule_ctr[RULE_A], objs.cnt), "publish");
	objs.cnt_b = mdevx_counter_alloc(ctx, BULK);
	TEST_ASSERT_NOT_NULL(objs.cnt_b, "counter: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, rule_ctr[RULE_B], objs.cnt_b), "publish");
	memset(&direct, 0, sizeof(direct));
	direct.disp_type = MDEVX_TIR_DISP_DIRECT;
	direct.inline_rqn = test_obj_id(objs.rq[NB_RSS_RQ]);
	direct.transport_domain = test_obj_id(objs.td);
	tir = mdevx_tir_create(ctx, &direct);
	TEST_ASSERT_NOT_NULL(tir, "direct TIR: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "tir_direct", tir), "publish tir_direct");
	objs.tir_direct = tir;
	memset(&objs.rss, 0, sizeof(objs.rss));
	objs.rss.disp_type = MDEVX_TIR_DISP_INDIRECT;
	objs.rss.indirect_table = test_obj_id(objs.rqt);
	objs.rss.transport_domain = test_obj_id(objs.td);
	objs.rss.rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	objs.rss.outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
	objs.rss.outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	objs.rss.outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
					 MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	rss_key(objs.rss.toeplitz_key);
	tir = mdevx_tir_create(ctx, &objs.rss);
	TEST_ASSERT_NOT_NULL(tir, "RSS TIR: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(pdev, "tir_rss", tir), "publish tir_rss");
	objs.tir_rss = tir;
	return TEST_SUCCESS;
}

static int
steer_suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct steer_sync));
}

static void
steer_suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

static int
case_setup(void)
{
	struct mdevx_share_conf conf = { .capacity = 64, .withdraw_timeout_ms = 3000 };

	if (test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct steer_sync)) != TEST_SUCCESS)
		return TEST_FAILED;
	pdev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev, "share open: %s", strerror(errno));
	return objs_create();
}

static void
case_teardown(void)
{
	test_children_kill(&children);
	if (pdev != NULL) {
		struct mdevx_share_record rec;

		while (mdevx_share_record_next(pdev, 0, &rec) >= 0)
			if (mdevx_share_withdraw(pdev, rec.name, NULL) != 0)
				break;
		objs_destroy();
		if (mdevx_share_dev_close(pdev) != 0)
			printf("share close: %s\n", strerror(errno));
	}
	pdev = NULL;
	if (pcap_path[0] != '\0')
		unlink(pcap_path);
	pcap_path[0] = '\0';
}

/* Device-wide root rules, as the device counts them. */
static int
device_flows(uint32_t *n)
{
	struct swdev_counts c;
	int rc = swdev_ctl_get_counts(ctl, DEV, 0, &c);

	*n = rc == 0 ? c.by_kind[SWDEV_KIND_FLOW] : UINT32_MAX;
	return rc;
}

/*
 * Wait until the primary knows @p want rules of secondaries (messages are
 * one-way), and none of a gone secondary is left for the reaper (it would
 * spin).
 */
static bool
wait_peer_rules(uint32_t want, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	uint32_t peers = UINT32_MAX, dying = UINT32_MAX;

	do {
		dying = mdevx_share_test_rules_dying(pdev);
		if (mdevx_share_dev_rules(pdev, NULL, &peers) == 0 && peers == want && dying == 0)
			return true;
		usleep(10000);
	} while (test_now_ms() < end);
	printf("rules of secondaries known to the primary: %u, want %u; for the reaper: %u\n",
	       peers, want, dying);
	return false;
}

/*
 * Replay the pcap; with @p live[r] whether rule r is installed, check the
 * replay's verdicts, the port's and the RQs' statistics against @p e, and
 * add to the expected counter values.
 */
static int
replay(const struct pcap_expect *e, const bool live[NB_RULES])
{
	struct steer_sync *s = sync_mz->addr;
	struct swdev_port_stats p0, p1;
	struct swdev_rq_stats r0[NB_RSS_RQ + 1], r1;
	struct swdev_pcap_summary sum;
	uint64_t delivered = 0, misses = e->misses;

	TEST_ASSERT_SUCCESS(swdev_ctl_get_port_stats(ctl, DEV, &p0), "port stats");
	for (int i = 0; i <= NB_RSS_RQ; i++)
		TEST_ASSERT_SUCCESS(swdev_ctl_get_rq_stats(ctl, DEV, test_obj_id(objs.rq[i]),
							   &r0[i]), "rq stats");
	TEST_ASSERT_SUCCESS(swdev_ctl_send_pcap(ctl, DEV, pcap_path, &sum), "replay");
	for (int r = 0; r < NB_RULES; r++) {
		if (live[r]) {
			delivered += e->packets[r];
			s->want_packets[r] += e->packets[r];
			s->want_bytes[r] += e->rule_bytes[r];
		} else {
			misses += e->packets[r];
		}
	}
	TEST_ASSERT_EQUAL(sum.frames, e->frames, "frames sent");
	TEST_ASSERT_EQUAL(sum.bytes, e->bytes, "bytes sent");
	TEST_ASSERT_EQUAL(sum.verdicts[SWDEV_RX_DELIVERED], delivered, "delivered");
	TEST_ASSERT_EQUAL(sum.verdicts[SWDEV_RX_MISS], misses, "misses");
	TEST_ASSERT_SUCCESS(swdev_ctl_get_port_stats(ctl, DEV, &p1), "port stats");
	TEST_ASSERT_EQUAL(p1.rx_packets - p0.rx_packets, e->frames, "port rx packets");
	TEST_ASSERT_EQUAL(p1.rx_bytes - p0.rx_bytes, e->bytes, "port rx bytes");
	TEST_ASSERT_EQUAL(p1.misses - p0.misses, misses, "port misses");
	TEST_ASSERT_EQUAL(p1.delivered - p0.delivered, delivered, "port delivered");
	TEST_ASSERT_EQUAL(p1.drops - p0.drops + p1.rq_drops - p0.rq_drops, 0, "drops");
	for (int i = 0; i <= NB_RSS_RQ; i++) {
		uint64_t wp, wb;

		if (i < NB_RSS_RQ) {
			wp = live[RULE_A] ? e->rq_packets[i] : 0;
			wb = live[RULE_A] ? e->rq_bytes[i] : 0;
		} else {
			wp = live[RULE_B] ? e->packets[RULE_B] : 0;
			wb = live[RULE_B] ? e->rule_bytes[RULE_B] : 0;
		}
		TEST_ASSERT_SUCCESS(swdev_ctl_get_rq_stats(ctl, DEV, test_obj_id(objs.rq[i]),
							   &r1), "rq stats");
		TEST_ASSERT(r1.packets - r0[i].packets == wp && r1.bytes - r0[i].bytes == wb,
			    "RQ %d: %" PRIu64 " packets %" PRIu64 " bytes, predicted %" PRIu64
			    "/%" PRIu64, i, r1.packets - r0[i].packets, r1.bytes - r0[i].bytes,
			    wp, wb);
	}
	/* The primary reads the same counters. */
	for (int r = 0; r < NB_RULES; r++) {
		struct mdevx_counter_stats st;

		TEST_ASSERT_SUCCESS(mdevx_counter_query(r == RULE_A ? objs.cnt : objs.cnt_b,
							rule_offset[r], 1, 0, &st), "counter query");
		TEST_ASSERT(st.packets == s->want_packets[r] && st.bytes == s->want_bytes[r],
			    "counter %u: %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64,
			    rule_offset[r], st.packets, st.bytes, s->want_packets[r],
			    s->want_bytes[r]);
	}
	return TEST_SUCCESS;
}

static int
test_steer_rules(void)
{
	struct steer_sync *s = sync_mz->addr;
	bool live[NB_RULES] = { true, true };
	struct pcap_expect e;
	unsigned int acked = 0;
	pid_t pid_a, pid_b;
	uint32_t n;
	int st;

	TEST_ASSERT_SUCCESS(pcap_generate(), "pcap");
	TEST_ASSERT_SUCCESS(pcap_expect(pcap_path, &e), "pcap decode");
	printf("pcap: %" PRIu64 " frames: rule A %" PRIu64 ", rule B %" PRIu64 ", misses %"
	       PRIu64 "; RSS RQs %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", e.frames,
	       e.packets[RULE_A], e.packets[RULE_B], e.misses, e.rq_packets[0], e.rq_packets[1],
	       e.rq_packets[2], e.rq_packets[3]);
	pid_a = test_children_spawn(&children, "steer_rules", 1, (const char *const[]){ "A" });
	pid_b = test_children_spawn(&children, "steer_rules", 1, (const char *const[]){ "B" });
	TEST_ASSERT(pid_a > 0 && pid_b > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 2, WAIT_MS, &s->failures), "rules not ready");
	TEST_ASSERT(wait_peer_rules(2, REAP_WAIT_MS), "the primary was not told both rules");
	TEST_ASSERT(device_flows(&n) == 0 && n == 2, "root rules on the device: %u", n);

	/* Phase 1: both rules. */
	TEST_ASSERT_SUCCESS(replay(&e, live), "phase 1");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	TEST_ASSERT(test_wait_at_least(&s->checked, 2, WAIT_MS, &s->failures), "phase 1 checks");

	/* Phase 2: withdraw the RSS TIR: A removes its rule before acknowledging. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "tir_rss", &acked), "withdraw: %s",
			    strerror(errno));
	TEST_ASSERT_EQUAL(acked, 2, "acknowledgements");
	TEST_ASSERT(device_flows(&n) == 0 && n == 1, "root rules after the withdrawal: %u", n);
	TEST_ASSERT(wait_peer_rules(1, REAP_WAIT_MS), "A's rule still known to the primary");
	live[RULE_A] = false;
	TEST_ASSERT_SUCCESS(replay(&e, live), "phase 2");
	__atomic_store_n(&s->phase, 2, __ATOMIC_RELEASE);
	TEST_ASSERT(test_wait_at_least(&s->checked, 4, WAIT_MS, &s->failures), "phase 2 checks");

	/* Phase 3: B dies with its rule: the primary removes it. */
	TEST_ASSERT_SUCCESS(kill(pid_b, SIGKILL), "kill");
	st = test_mp_wait(pid_b, WAIT_MS);
	TEST_ASSERT(st == 128 + SIGKILL, "B exit status %d", st);
	TEST_ASSERT(wait_peer_rules(0, REAP_WAIT_MS), "B's rule not removed");
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "root rules after B died: %u", n);
	live[RULE_B] = false;
	TEST_ASSERT_SUCCESS(replay(&e, live), "phase 3");
	__atomic_store_n(&s->phase, 3, __ATOMIC_RELEASE);
	TEST_ASSERT(test_wait_at_least(&s->checked, 5, WAIT_MS, &s->failures), "phase 3 checks");
	st = test_mp_wait(pid_a, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "A exited with %d", st);
	TEST_ASSERT_EQUAL(s->failures, 0, "a secondary failed");
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Edges: refusals, the primary's own rules, deaf and lying secondaries */
/* ------------------------------------------------------------------ */

static int
test_steer_rule_api(void)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], v5000[MDEVX_MATCH_PARAM_LEN];
	uint8_t v6000[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_rule_attr ra;
	mdevx_share_imp_t tir, cnt, bogus = { .id = 12345 };
	mdevx_share_rule_t r1, r2, none = { .id = 0 };
	struct mdevx_matcher *m;
	uint32_t own = UINT32_MAX, n, h1 = 0, h2 = 0;

	test_udp_mask_value(mask, v5000, rule_port[RULE_A]);
	test_udp_mask_value(mask, v6000, rule_port[RULE_B]);
	m = test_udp_matcher(mdevx_share_dev_ctx(pdev), 0);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "tir_direct", MDEVX_OBJ_TIR, &tir), "imp");
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev, "ctr", MDEVX_OBJ_FLOW_COUNTER, &cnt), "imp");
	memset(&ra, 0, sizeof(ra));
	ra.value = v6000;
	ra.value_len = sizeof(v6000);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	ra.counter_imp = cnt;
	ra.counter_offset = RULE_OFF(1);
#define REFUSED(dev_, m_, attr_, e) do {					\
	errno = 0;								\
	TEST_ASSERT(mdevx_share_rule_create(dev_, m_, attr_).id == 0 && errno == (e),	\
		    "line %d: errno %s, want %s", __LINE__, strerror(errno), #e);	\
} while (0)
	REFUSED(NULL, m, &ra, EINVAL);
	REFUSED(pdev, NULL, &ra, EINVAL);
	REFUSED(pdev, m, NULL, EINVAL);
	ra.dest_obj = objs.tir_direct;	/* both an import and an object */
	REFUSED(pdev, m, &ra, EINVAL);
	ra.dest_obj = NULL;
	ra.counter_obj = objs.cnt;
	REFUSED(pdev, m, &ra, EINVAL);
	ra.counter_obj = NULL;
	ra.dest_imp = bogus;
	REFUSED(pdev, m, &ra, ENOENT);
	ra.dest_imp = cnt;		/* a counter as destination */
	REFUSED(pdev, m, &ra, EPROTOTYPE);
	ra.dest_imp = tir;
	ra.counter_imp = tir;		/* a TIR as counter */
	REFUSED(pdev, m, &ra, EPROTOTYPE);
	ra.counter_imp = cnt;
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "a refused rule reached the device");

	/* On imports of our own records, and on a published object of ours. */
	r1 = mdevx_share_rule_create(pdev, m, &ra);
	TEST_ASSERT(r1.id != 0, "rule on imports: %s", strerror(errno));
	REFUSED(pdev, m, &ra, EEXIST);	/* same value on the matcher */
	memset(&ra, 0, sizeof(ra));
	ra.value = v5000;
	ra.value_len = sizeof(v5000);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = objs.tir_rss;
	ra.counter_obj = objs.cnt;
	ra.counter_offset = RULE_OFF(2);
	r2 = mdevx_share_rule_create(pdev, m, &ra);
	TEST_ASSERT(r2.id != 0, "rule on objects: %s", strerror(errno));
	TEST_ASSERT(r1.id != r2.id, "same handle twice");
	TEST_ASSERT_SUCCESS(mdevx_share_rule_handle(pdev, r1, &h1), "handle");
	TEST_ASSERT_SUCCESS(mdevx_share_rule_handle(pdev, r2, &h2), "handle");
	TEST_ASSERT(h1 != h2, "device handles");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_rules(pdev, &own, NULL), "counts");
	TEST_ASSERT_EQUAL(own, 2, "own rules");
	TEST_ASSERT(device_flows(&n) == 0 && n == 2, "rules on the device: %u", n);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(pdev, none), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(NULL, r1), EINVAL);

	/* Withdrawing the published object removes the rule on it, not the other. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "tir_rss", NULL), "withdraw: %s",
			    strerror(errno));
	objs.tir_rss = NULL;
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(pdev, r2), ESTALE);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_handle(pdev, r2, &h2), ESTALE);
	TEST_ASSERT_SUCCESS(mdevx_share_rule_state(pdev, r1), "r1 removed with tir_rss");
	TEST_ASSERT(device_flows(&n) == 0 && n == 1, "rules on the device: %u", n);
	TEST_ASSERT_SUCCESS(mdevx_share_dev_rules(pdev, &own, NULL), "counts");
	TEST_ASSERT_EQUAL(own, 1, "own rules");
	TEST_ASSERT_SUCCESS(mdevx_share_rule_destroy(pdev, r2), "forget r2");
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_destroy(pdev, r2), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(pdev, r2), ENOENT);

	/* Withdrawing the imported TIR's record removes r1; its import is stale. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "tir_direct", NULL), "withdraw");
	objs.tir_direct = NULL;
	TEST_ASSERT_RC_ERRNO(mdevx_share_rule_state(pdev, r1), ESTALE);
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	memset(&ra, 0, sizeof(ra));
	ra.value = v6000;
	ra.value_len = sizeof(v6000);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	REFUSED(pdev, m, &ra, ESTALE);
#undef REFUSED
	TEST_ASSERT_SUCCESS(mdevx_share_rule_destroy(pdev, r1), "forget r1");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_rules(pdev, &own, NULL), "counts");
	TEST_ASSERT_EQUAL(own, 0, "own rules");
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(m), "matcher");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, tir), "unimport");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev, cnt), "unimport");
	return TEST_SUCCESS;
}

/*
 * A secondary whose withdrawal handler never runs (argv[0] "mute"), with a
 * rule on tir_direct; or one that sends rule messages of its own making
 * ("liar": the primary's own rule, and a handle that names nothing), then
 * exits without a close.
 */
static int
role_steer_odd(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	struct mdevx_matcher *m = NULL;
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t tir = { 0 }, cnt = { 0 };
	mdevx_share_rule_t rule = { 0 };
	bool mute, with_cnt;
	int ret = 1;

	if (s == NULL || argc < 1)
		return 1;
	with_cnt = strcmp(argv[0], "mute_cnt") == 0;
	mute = with_cnt || strcmp(argv[0], "mute") == 0;
	if (mute)
		mdevx_share_test_drop_acks(1);
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(&s->failures, dev != NULL, "attach: %s", strerror(errno));
	if (!mute) {
		mdevx_share_test_rule_msg(dev, 1, s->handle);
		mdevx_share_test_rule_msg(dev, 1, 0xdead0);
		__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
		TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 1, WAIT_MS,
								 &s->failures), "no go");
		_exit(0);	/* dies with the device attached */
	}
	TEST_ROLE_CHECK(&s->failures,
			mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) == 0,
			"import: %s", strerror(errno));
	TEST_ROLE_CHECK(&s->failures, !with_cnt ||
			mdevx_share_import(dev, "ctr", MDEVX_OBJ_FLOW_COUNTER, &cnt) == 0,
			"import: %s", strerror(errno));
	m = test_udp_matcher(mdevx_share_dev_ctx(dev), 3);
	TEST_ROLE_CHECK(&s->failures, m != NULL, "matcher: %s", strerror(errno));
	rule = test_udp_rule(dev, m, rule_port[RULE_B], tir, cnt);
	TEST_ROLE_CHECK(&s->failures, rule.id != 0, "rule: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 1, WAIT_MS, &s->failures),
			"no go");
	/* Never told: the rule looks installed here; the primary removed it. */
	TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_state(dev, rule) == 0, "rule state");
	ret = 0;
out:
	/* The process ends as a hung one would: its rule and imports left as they are. */
	_exit(ret);
}
REGISTER_TEST_SECONDARY(steer_odd, role_steer_odd);

static int
test_steer_mute_secondary(void)
{
	struct steer_sync *s = sync_mz->addr;
	struct pcap_expect e;
	bool live[NB_RULES] = { false, false };
	unsigned int acked = 1;
	uint32_t n;
	pid_t pid;
	int st;

	pid = test_children_spawn(&children, "steer_odd", 1, (const char *const[]){ "mute" });
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 1, WAIT_MS, &s->failures), "not ready");
	TEST_ASSERT(wait_peer_rules(1, REAP_WAIT_MS), "rule not announced");
	TEST_ASSERT(device_flows(&n) == 0 && n == 1, "rules on the device: %u", n);
	/* No acknowledgement within the bound: the primary removes the rule itself. */
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev, "tir_direct", &acked),
			    "withdraw met the secondary's rule: %s", strerror(errno));
	objs.tir_direct = NULL;
	TEST_ASSERT_EQUAL(acked, 0, "a mute secondary acknowledged");
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	TEST_ASSERT(wait_peer_rules(0, 0), "the record of the removed rule");
	/* Its port now misses. */
	TEST_ASSERT_SUCCESS(pcap_generate(), "pcap");
	TEST_ASSERT_SUCCESS(pcap_expect(pcap_path, &e), "pcap decode");
	TEST_ASSERT_SUCCESS(replay(&e, live), "replay");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	st = test_mp_wait(pid, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "mute secondary exited with %d", st);
	return TEST_SUCCESS;
}

/* Counter bulks on the device. */
static int
device_counters(uint32_t *n)
{
	struct swdev_counts c;
	int rc = swdev_ctl_get_counts(ctl, DEV, 0, &c);

	*n = rc == 0 ? c.by_kind[SWDEV_KIND_FLOW_COUNTER] : UINT32_MAX;
	return rc;
}

/*
 * A secondary that never acknowledges, with a rule counting on "ctr":
 * the withdrawal of "ctr" removes the rule itself once its bound is over,
 * then destroys the bulk (it would fail with the rule on it).
 */
static int
test_steer_mute_counter(void)
{
	struct steer_sync *s = sync_mz->addr;
	unsigned int acked = 1;
	uint32_t n, cnts = 0, after = 0;
	pid_t pid;
	int st, rc;

	pid = test_children_spawn(&children, "steer_odd", 1, (const char *const[]){ "mute_cnt" });
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 1, WAIT_MS, &s->failures), "not ready");
	TEST_ASSERT(wait_peer_rules(1, REAP_WAIT_MS), "rule not announced");
	TEST_ASSERT(device_flows(&n) == 0 && n == 1, "rules on the device: %u", n);
	TEST_ASSERT_SUCCESS(device_counters(&cnts), "counts");
	rc = mdevx_share_withdraw(pdev, "ctr", &acked);
	TEST_ASSERT_SUCCESS(rc, "withdraw of the counter under the rule: %s", strerror(errno));
	objs.cnt = NULL;	/* destroyed by the withdrawal */
	TEST_ASSERT_EQUAL(acked, 0, "a mute secondary acknowledged");
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	TEST_ASSERT(device_counters(&after) == 0 && after == cnts - 1,
		    "counter bulks: %u before the withdrawal, %u after", cnts, after);
	TEST_ASSERT(wait_peer_rules(0, 0), "the record of the removed rule");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	st = test_mp_wait(pid, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "mute secondary exited with %d", st);
	return TEST_SUCCESS;
}

static int
test_steer_forged_messages(void)
{
	struct steer_sync *s = sync_mz->addr;
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher *m;
	mdevx_share_rule_t own;
	uint32_t n;
	pid_t pid;
	int st;

	m = test_udp_matcher(mdevx_share_dev_ctx(pdev), 0);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	test_udp_mask_value(mask, value, rule_port[RULE_B]);
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = objs.tir_direct;
	own = mdevx_share_rule_create(pdev, m, &ra);
	TEST_ASSERT(own.id != 0, "own rule: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_rule_handle(pdev, own, &s->handle), "handle");
	pid = test_children_spawn(&children, "steer_odd", 1, (const char *const[]){ "liar" });
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 1, WAIT_MS, &s->failures), "not ready");
	/* The announcement of our own rule is ignored, the other one kept. */
	TEST_ASSERT(wait_peer_rules(1, REAP_WAIT_MS), "forged announcements");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	st = test_mp_wait(pid, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "liar exited with %d", st);
	/* It died: the handle it named (nothing) is tried and forgotten; ours stays. */
	TEST_ASSERT(wait_peer_rules(0, REAP_WAIT_MS), "the dead liar's record");
	TEST_ASSERT_SUCCESS(mdevx_share_rule_state(pdev, own), "our rule was removed");
	TEST_ASSERT(device_flows(&n) == 0 && n == 1, "rules on the device: %u", n);
	TEST_ASSERT_SUCCESS(mdevx_share_rule_destroy(pdev, own), "destroy");
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(m), "matcher");
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	return TEST_SUCCESS;
}

/*
 * An honest secondary (argv[0]: its index k): a rule on tir_direct, its
 * handle published; at phase 2 its rule must still be installed, then it
 * removes it and closes.
 */
static int
role_steer_honest(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_matcher *m = NULL;
	mdevx_share_imp_t tir = { 0 }, none = { 0 };
	mdevx_share_rule_t rule = { 0 };
	uint32_t handle = 0;
	int ret = 1, k;

	if (s == NULL || argc < 1)
		return 1;
	k = atoi(argv[0]) % NB_RULES;
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(&s->failures, dev != NULL, "attach: %s", strerror(errno));
	TEST_ROLE_CHECK(&s->failures,
			mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) == 0,
			"import: %s", strerror(errno));
	m = test_udp_matcher(mdevx_share_dev_ctx(dev), (uint16_t)(4 + k));
	TEST_ROLE_CHECK(&s->failures, m != NULL, "matcher: %s", strerror(errno));
	rule = test_udp_rule(dev, m, rule_port[k], tir, none);
	TEST_ROLE_CHECK(&s->failures, rule.id != 0, "rule: %s", strerror(errno));
	TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_handle(dev, rule, &handle) == 0,
			"handle");
	s->honest_handle[k] = handle;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 2, WAIT_MS, &s->failures),
			"no go");
	TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_state(dev, rule) == 0, "rule state");
	TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_destroy(dev, rule) == 0, "destroy: %s",
			strerror(errno));
	rule.id = 0;
	ret = 0;
out:
	if (rule.id != 0)
		mdevx_share_rule_destroy(dev, rule);
	if (m != NULL && mdevx_matcher_destroy(m) != 0 && ret == 0)
		ret = 1;
	if (dev != NULL) {
		if (tir.id != 0)
			mdevx_share_unimport(dev, tir);
		if (mdevx_share_dev_close(dev) != 0 && ret == 0)
			ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(steer_honest, role_steer_honest);

#define THIEF_FLOOD 100000

/*
 * A thief: announces the honest secondaries' rules as its own and
 * removes them, announces THIEF_FLOOD handles and removes them again
 * (timed), then dies attached.
 */
static int
role_steer_thief(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	struct mdevx_share_dev *dev;
	uint64_t t0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		return 1;
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL) {
		printf("thief: attach: %s\n", strerror(errno));
		_exit(1);
	}
	for (int k = 0; k < NB_RULES; k++) {
		mdevx_share_test_rule_msg(dev, 1, s->honest_handle[k]);
		mdevx_share_test_rule_msg(dev, 0, s->honest_handle[k]);
		mdevx_share_test_rule_msg(dev, 1, s->honest_handle[k]);
	}
	t0 = test_now_ms();
	for (uint32_t i = 0; i < THIEF_FLOOD; i++)
		mdevx_share_test_rule_msg(dev, 1, 0x400000 + i);
	for (uint32_t i = 0; i < THIEF_FLOOD; i++)
		mdevx_share_test_rule_msg(dev, 0, 0x400000 + i);
	s->thief_ms = test_now_ms() - t0;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	test_wait_at_least(&s->phase, 1, WAIT_MS, &s->failures);
	_exit(0);	/* dies attached */
}
REGISTER_TEST_SECONDARY(steer_thief, role_steer_thief);

/*
 * Rule theft: two honest secondaries make a rule each; a thief announces
 * their handles as its own, removes them (RULE_DEL of another's rule),
 * floods 100,000 announcements and removals, and dies. The primary
 * refuses the claims and the removals (the honest rules stay recorded
 * and installed after the thief's death) and reads the flood in linear
 * time.
 */
static int
test_steer_rule_theft(void)
{
	struct steer_sync *s = sync_mz->addr;
	uint32_t n = 0;
	pid_t thief;
	int st;

	for (int k = 0; k < NB_RULES; k++) {
		char arg[8];

		snprintf(arg, sizeof(arg), "%d", k);
		TEST_ASSERT(test_children_spawn(&children, "steer_honest", 1,
						(const char *const[]){ arg }) > 0, "spawn");
	}
	TEST_ASSERT(test_wait_at_least(&s->ready, NB_RULES, WAIT_MS, &s->failures),
		    "honest secondaries not ready");
	TEST_ASSERT(wait_peer_rules(NB_RULES, REAP_WAIT_MS), "honest announcements");
	TEST_ASSERT(device_flows(&n) == 0 && n == NB_RULES, "rules on the device: %u", n);
	thief = test_children_spawn(&children, "steer_thief", 0, NULL);
	TEST_ASSERT(thief > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, NB_RULES + 1, 60000, &s->failures),
		    "thief not done");
	printf("thief: %u announcements and removals sent in %" PRIu64 " ms\n",
	       2 * THIEF_FLOOD, (uint64_t)s->thief_ms);
	/* Its last messages are read once it is gone: then only the honest ones are left. */
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	st = test_mp_wait(thief, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "thief exited with %d", st);
	TEST_ASSERT(s->thief_ms < 10000, "the primary took %" PRIu64 " ms to read the flood",
		    (uint64_t)s->thief_ms);
	TEST_ASSERT(wait_peer_rules(NB_RULES, REAP_WAIT_MS), "the honest records after the "
		    "thief's death");
	TEST_ASSERT(device_flows(&n) == 0 && n == NB_RULES, "rules on the device after the "
		    "thief's death: %u", n);
	/* The honest ones check theirs, remove them and close. */
	__atomic_store_n(&s->phase, 2, __ATOMIC_RELEASE);
	for (int i = 0; i < children.nb; i++) {
		if (children.pid[i] == thief)
			continue;
		st = test_mp_wait(children.pid[i], WAIT_MS);
		TEST_ASSERT_EQUAL(st, 0, "honest secondary exited with %d", st);
	}
	children.nb = 0;
	TEST_ASSERT(wait_peer_rules(0, REAP_WAIT_MS), "records left");
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	return TEST_SUCCESS;
}

#define CHURN_LIVE 48
#define CHURN_ROUNDS 3000

/*
 * Secondary: CHURN_LIVE rules, then CHURN_ROUNDS times one of them (a
 * fixed pseudo-random pick) removed and a new one made; then, when told,
 * every rule removed.
 */
static int
role_steer_churn(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	uint8_t *ip = MDEVX_ADDR_OF(fte_match_param, value, outer_headers.dst_ipv4_dst_ipv6) + 12;
	mdevx_share_rule_t rules[CHURN_LIVE] = { { 0 } };
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_matcher *m = NULL;
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	mdevx_share_imp_t tir = { 0 };
	uint32_t seq = 0, lcg = 12345;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		return 1;
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(&s->failures, dev != NULL, "attach: %s", strerror(errno));
	TEST_ROLE_CHECK(&s->failures,
			mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) == 0,
			"import: %s", strerror(errno));
	test_udp_mask_value(mask, value, 1);
	memset(MDEVX_ADDR_OF(fte_match_param, mask, outer_headers.dst_ipv4_dst_ipv6) + 12, 0xff,
	       4);
	memset(&ma, 0, sizeof(ma));
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = mask;
	ma.mask_len = sizeof(mask);
	m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	TEST_ROLE_CHECK(&s->failures, m != NULL, "matcher: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	for (uint32_t r = 0; r < CHURN_LIVE + CHURN_ROUNDS; r++) {
		uint32_t j = r;

		if (r >= CHURN_LIVE) {
			lcg = lcg * 1103515245u + 12345u;
			j = (lcg >> 16) % CHURN_LIVE;
			TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_destroy(dev, rules[j]) == 0,
					"round %u: destroy: %s", r, strerror(errno));
			rules[j].id = 0;
		}
		seq++;
		ip[0] = 10;
		ip[1] = (uint8_t)(seq >> 16);
		ip[2] = (uint8_t)(seq >> 8);
		ip[3] = (uint8_t)seq;
		rules[j] = mdevx_share_rule_create(dev, m, &ra);
		TEST_ROLE_CHECK(&s->failures, rules[j].id != 0, "round %u: rule: %s", r,
				strerror(errno));
	}
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 1, 60000, &s->failures),
			"no go");
	for (int j = 0; j < CHURN_LIVE; j++) {
		TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_destroy(dev, rules[j]) == 0,
				"destroy: %s", strerror(errno));
		rules[j].id = 0;
	}
	__atomic_store_n(&s->ready, 2, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 2, 60000, &s->failures),
			"no end");
	ret = 0;
out:
	for (int j = 0; j < CHURN_LIVE; j++)
		if (rules[j].id != 0)
			mdevx_share_rule_destroy(dev, rules[j]);
	if (m != NULL && mdevx_matcher_destroy(m) != 0 && ret == 0)
		ret = 1;
	if (dev != NULL) {
		if (tir.id != 0)
			mdevx_share_unimport(dev, tir);
		if (mdevx_share_dev_close(dev) != 0 && ret == 0)
			ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(steer_churn, role_steer_churn);

/*
 * The primary's table of the secondaries' rules (chained hash, entries
 * reused first-freed first) after thousands of removals and creations in
 * a scattered order: it knows exactly the live ones, and every removal
 * the owner announces finds its entry.
 */
static int
test_steer_rule_churn(void)
{
	struct steer_sync *s = sync_mz->addr;
	uint32_t n = UINT32_MAX;
	pid_t pid;
	int st;

	pid = test_children_spawn(&children, "steer_churn", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 1, 120000, &s->failures), "churn not done");
	TEST_ASSERT(wait_peer_rules(CHURN_LIVE, REAP_WAIT_MS), "the live rules after the churn");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	TEST_ASSERT(test_wait_at_least(&s->ready, 2, WAIT_MS, &s->failures), "removal not done");
	TEST_ASSERT(wait_peer_rules(0, REAP_WAIT_MS), "removals the primary did not find");
	__atomic_store_n(&s->phase, 2, __ATOMIC_RELEASE);
	st = test_mp_wait(pid, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "churn secondary exited with %d", st);
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	return TEST_SUCCESS;
}

#define MASS_RULES 65536

/* A secondary with MASS_RULES rules on tir_direct, that dies with them. */
static int
role_steer_mass(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	struct mdevx_matcher *m;
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t tir = { 0 };

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		return 1;
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL || mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) != 0) {
		printf("mass: attach/import: %s\n", strerror(errno));
		_exit(1);
	}
	test_udp_mask_value(mask, value, 1);
	memset(MDEVX_ADDR_OF(fte_match_param, mask, outer_headers.dst_ipv4_dst_ipv6) + 12, 0xff,
	       4);
	memset(&ma, 0, sizeof(ma));
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = mask;
	ma.mask_len = sizeof(mask);
	m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	if (m == NULL)
		_exit(1);
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	for (uint32_t made = 0; made < MASS_RULES; made++) {
		uint8_t *ip = MDEVX_ADDR_OF(fte_match_param, value,
					    outer_headers.dst_ipv4_dst_ipv6) + 12;

		ip[0] = 10;
		ip[1] = (uint8_t)(made >> 16);
		ip[2] = (uint8_t)(made >> 8);
		ip[3] = (uint8_t)made;
		if (mdevx_share_rule_create(dev, m, &ra).id == 0) {
			printf("mass: rule %u: %s\n", made, strerror(errno));
			_exit(1);
		}
		s->made = made + 1;
	}
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	test_wait_at_least(&s->phase, 1, WAIT_MS, &s->failures);
	_exit(0);	/* dies with its rules (and its matcher, which the test removes) */
}
REGISTER_TEST_SECONDARY(steer_mass, role_steer_mass);

/* Attach when told (phase 2), time it, close. */
static int
role_steer_late_attach(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	uint64_t t0;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		return 1;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failures, test_wait_at_least(&s->phase, 2, 60000, &s->failures),
			"no go");
	t0 = test_now_ms();
	dev = mdevx_share_dev_attach(DEVSTR);
	s->attach_ms = test_now_ms() - t0;
	TEST_ROLE_CHECK(&s->failures, dev != NULL, "attach during the reap: %s after %" PRIu64
			" ms", strerror(errno), (uint64_t)s->attach_ms);
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(steer_late_attach, role_steer_late_attach);

/*
 * A secondary dies with 65,536 rules: while the primary removes them, an
 * attach takes no longer than usual (the removal holds no lock an attach
 * needs), and every rule goes.
 */
static int
test_steer_mass_reap(void)
{
	struct steer_sync *s = sync_mz->addr;
	uint32_t n = 0, left = 0;
	uint64_t t0, reap_ms;
	pid_t mass, late;
	int st;

	late = test_children_spawn(&children, "steer_late_attach", 0, NULL);
	TEST_ASSERT(late > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 1, WAIT_MS, &s->failures), "not ready");
	mass = test_children_spawn(&children, "steer_mass", 0, NULL);
	TEST_ASSERT(mass > 0, "spawn");
	TEST_ASSERT(test_wait_at_least(&s->ready, 2, 120000, &s->failures),
		    "rules not made (%u)", s->made);
	TEST_ASSERT(wait_peer_rules(MASS_RULES, 30000), "announcements");
	__atomic_store_n(&s->phase, 1, __ATOMIC_RELEASE);
	st = test_mp_wait(mass, WAIT_MS);
	TEST_ASSERT_EQUAL(st, 0, "mass secondary exited with %d", st);
	t0 = test_now_ms();
	/* The removal is under way: an attach now. */
	__atomic_store_n(&s->phase, 2, __ATOMIC_RELEASE);
	st = test_mp_wait(late, WAIT_MS);
	mdevx_share_dev_rules(pdev, NULL, &left);
	TEST_ASSERT_EQUAL(st, 0, "late attacher exited with %d", st);
	printf("attach during the removal of %u rules: %" PRIu64 " ms (%u rules left then)\n",
	       MASS_RULES, (uint64_t)s->attach_ms, left);
	TEST_ASSERT(s->attach_ms < 1000, "the attach took %" PRIu64 " ms",
		    (uint64_t)s->attach_ms);
	TEST_ASSERT(left > 0, "the removal was over before the attach: nothing measured");
	TEST_ASSERT(wait_peer_rules(0, 60000), "records left");
	reap_ms = test_now_ms() - t0;
	TEST_ASSERT(device_flows(&n) == 0 && n == 0, "rules on the device: %u", n);
	printf("%u rules removed in %" PRIu64 " ms\n", MASS_RULES, reap_ms);
	children.nb = 0;
	return TEST_SUCCESS;
}

static int
test_nothing_left(void)
{
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left on " DEV);
	return TEST_SUCCESS;
}

static struct unit_test_suite steer_mp_suite = {
	.suite_name = "mlx5 devx steering through shared objects",
	.setup = steer_suite_setup,
	.teardown = steer_suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_steer_rules),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_rule_api),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_mute_secondary),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_forged_messages),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_mute_counter),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_rule_theft),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_rule_churn),
		TEST_CASE_ST(case_setup, case_teardown, test_steer_mass_reap),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_steer_mp(void)
{
	return unit_test_suite_runner(&steer_mp_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_steer_mp_autotest, test_steer_mp);

/* ------------------------------------------------------------------ */
/* mlx5_devx_steer_perf_autotest                                       */
/* ------------------------------------------------------------------ */

#define PERF_RULES 4000

/* Secondary: PERF_RULES rules created then removed, and as many counter queries. */
static int
role_steer_perf(int argc, char **argv)
{
	struct steer_sync *s = sync_area();
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	static mdevx_share_rule_t rules[PERF_RULES];
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	struct mdevx_counter_stats st;
	struct mdevx_matcher *m = NULL;
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t cnt = { 0 }, tir = { 0 };
	uint64_t t0;
	int ret = 1, made = 0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		return 1;
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(&s->failures, dev != NULL, "attach: %s", strerror(errno));
	TEST_ROLE_CHECK(&s->failures,
			mdevx_share_import(dev, "ctr", MDEVX_OBJ_FLOW_COUNTER, &cnt) == 0 &&
			mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir) == 0,
			"import: %s", strerror(errno));
	test_udp_mask_value(mask, value, 1);
	memset(MDEVX_ADDR_OF(fte_match_param, mask, outer_headers.dst_ipv4_dst_ipv6) + 12, 0xff,
	       4);
	memset(&ma, 0, sizeof(ma));
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = mask;
	ma.mask_len = sizeof(mask);
	m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	TEST_ROLE_CHECK(&s->failures, m != NULL, "matcher: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	ra.counter_imp = cnt;
	t0 = rte_rdtsc_precise();
	for (made = 0; made < PERF_RULES; made++) {
		uint8_t *ip = MDEVX_ADDR_OF(fte_match_param, value,
					    outer_headers.dst_ipv4_dst_ipv6) + 12;

		ip[0] = 10;
		ip[2] = (uint8_t)(made >> 8);
		ip[3] = (uint8_t)made;
		rules[made] = mdevx_share_rule_create(dev, m, &ra);
		TEST_ROLE_CHECK(&s->failures, rules[made].id != 0, "rule %d: %s", made,
				strerror(errno));
	}
	s->rule_ns = (double)(rte_rdtsc_precise() - t0) * 1e9 / (double)rte_get_tsc_hz() /
		     PERF_RULES;
	t0 = rte_rdtsc_precise();
	for (; made > 0; made--)
		TEST_ROLE_CHECK(&s->failures, mdevx_share_rule_destroy(dev, rules[made - 1]) == 0,
				"rule destroy: %s", strerror(errno));
	s->destroy_ns = (double)(rte_rdtsc_precise() - t0) * 1e9 / (double)rte_get_tsc_hz() /
			PERF_RULES;
	t0 = rte_rdtsc_precise();
	for (int i = 0; i < PERF_RULES; i++)
		TEST_ROLE_CHECK(&s->failures, mdevx_share_counter_query(dev, cnt, 0, 1, 0, &st) == 0,
				"query: %s", strerror(errno));
	s->rtt_ns = (double)(rte_rdtsc_precise() - t0) * 1e9 / (double)rte_get_tsc_hz() /
		    PERF_RULES;
	ret = 0;
out:
	while (made > 0)
		mdevx_share_rule_destroy(dev, rules[--made]);
	if (m != NULL && mdevx_matcher_destroy(m) != 0 && ret == 0)
		ret = 1;
	if (dev != NULL) {
		if (cnt.id != 0)
			mdevx_share_unimport(dev, cnt);
		if (tir.id != 0)
			mdevx_share_unimport(dev, tir);
		if (mdevx_share_dev_close(dev) != 0 && ret == 0)
			ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(steer_perf, role_steer_perf);

static int
test_steer_rule_rate(void)
{
	struct steer_sync *s = sync_mz->addr;
	uint32_t peers = UINT32_MAX;
	pid_t pid;
	int st;

	pid = test_children_spawn(&children, "steer_perf", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	st = test_mp_wait(pid, 120000);
	TEST_ASSERT_EQUAL(st, 0, "secondary exited with %d", st);
	TEST_ASSERT_EQUAL(s->failures, 0, "the secondary failed");
	/* Every rule it announced, it also removed. */
	TEST_ASSERT(wait_peer_rules(0, REAP_WAIT_MS), "rules left");
	TEST_ASSERT_SUCCESS(mdevx_share_dev_rules(pdev, NULL, &peers), "rule counts");
	printf("rules on imports by a secondary (%d rules):\n"
	       "  create  %9.0f rules/s  %8.0f ns/rule  ratio to a device round trip %.2f\n"
	       "  remove  %9.0f rules/s  %8.0f ns/rule  ratio to a device round trip %.2f\n"
	       "  device round trip (counter query) %8.0f ns\n", PERF_RULES,
	       1e9 / s->rule_ns, s->rule_ns, s->rule_ns / s->rtt_ns, 1e9 / s->destroy_ns,
	       s->destroy_ns, s->destroy_ns / s->rtt_ns, s->rtt_ns);
	return TEST_SUCCESS;
}

static struct unit_test_suite steer_perf_suite = {
	.suite_name = "mlx5 devx steering: rule installation rate",
	.setup = steer_suite_setup,
	.teardown = steer_suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_steer_rule_rate),
		TEST_CASE(test_nothing_left),
		TEST_CASES_END()
	}
};

static int
test_steer_perf(void)
{
	return unit_test_suite_runner(&steer_perf_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_steer_perf_autotest, test_steer_perf);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_mp_autotest: multi-process sharing of DEVX objects
 * (libmdevx_share) on the software device, with real secondary processes.
 * The primary publishes counter bulks and direct and indirect TIRs; three
 * secondaries attach, import by name, read the counter values the primary
 * reads after traffic is injected, query the TIRs and compare; a
 * withdrawal is acknowledged by every holder, whose later use gets ESTALE;
 * a close with a published TIR withdraws first, refuses with EBUSY while
 * the application's queues are there, and finishes once they are gone;
 * the telemetry commands answer; every count on the device returns to 0.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>

#include "process.h"
#include "test.h"
#include "test_share_fixture.h"
#include "test_share_util.h"

static const uint32_t ctr_offsets[4] = { 0, 5, 10, 127 };

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

/* ------------------------------------------------------------------ */
/* Secondary roles                                                     */
/* ------------------------------------------------------------------ */

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
 * Hold imports of both TIRs and a counter across the primary's close: once
 * it is told, the device is orphaned (lookups ENODEV, imports ESTALE).
 */
static int
role_tir_holder(int argc, char **argv)
{
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t ctr, tir[2];
	struct mdevx_tir_attr attr;
	const char *why;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &ctr) == 0 &&
		   mdevx_share_import(dev, "tir_direct", MDEVX_OBJ_TIR, &tir[0]) == 0 &&
		   mdevx_share_import(dev, "tir_rss", MDEVX_OBJ_TIR, &tir[1]) == 0,
		   "import: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_tir_query(dev, tir[1], &attr) == 0 &&
		   tir_attr_equal(&attr, &s->tir_rss), "RSS TIR before the close");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	why = closed_device_check(dev, "ctr0", ctr);
	ROLE_CHECK(why == NULL, "after the primary's close: %s", why);
	for (int i = 0; i < 2; i++)
		ROLE_CHECK(mdevx_share_tir_query(dev, tir[i], &attr) == -ESTALE,
			   "TIR %d after the primary's close: %s", i, strerror(errno));
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_tir_holder, role_tir_holder);

/*
 * Attach, put a rule on the imports of ctr0 and tir_direct, and find
 * itself among the primary's secondaries (asked over rte_mp) with that
 * rule; ready, then wait for the go and release.
 */
static int
role_peer(int argc, char **argv)
{
	struct mdevx_share_peer pv[MDEVX_SHARE_PEERS_MAX];
	struct share_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_rule_t rule = { .id = 0 };
	struct mdevx_matcher *m = NULL;
	mdevx_share_imp_t ctr, tir;
	int n, me = -1, ret = 1;

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
	rule = test_udp_rule(dev, m, (uint16_t)(7000 + getpid() % 1000), tir, ctr);
	ROLE_CHECK(rule.id != 0, "rule: %s", strerror(errno));
	/* The primary recorded the rule when it read our message: ask until it shows. */
	for (int tries = 0; tries < 2000; tries++) {
		n = mdevx_share_peers(DEVSTR, pv, RTE_DIM(pv));
		ROLE_CHECK(n >= 1 && n <= MDEVX_SHARE_PEERS_MAX, "peers: %d (%s)", n,
			   strerror(errno));
		for (int i = 0; i < n; i++)
			if (pv[i].pid == getpid())
				me = i;
		if (me >= 0 && pv[me].rules == 1)
			break;
		usleep(1000);
	}
	ROLE_CHECK(me >= 0 && pv[me].attached == 1 && pv[me].rules == 1 && pv[me].id != 0,
		   "this secondary among the primary's: %d, rules %u", me,
		   me >= 0 ? pv[me].rules : 0);
	ROLE_CHECK(mdevx_share_peers("rdma:mdevx_nosuch", pv, 1) == -ENODEV && errno == ENODEV,
		   "peers of a device the primary does not share");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	ret = 0;
out:
	if (rule.id != 0 && mdevx_share_rule_destroy(dev, rule) != 0)
		ret = 1;
	if (m != NULL && mdevx_matcher_destroy(m) != 0)
		ret = 1;
	if (dev != NULL && mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_peer, role_peer);

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

/*
 * A published TIR uses queues of the application: the close withdraws
 * every record first (the holder told, the TIRs and counters destroyed),
 * then refuses with EBUSY and one line that says what to do; the queues
 * can then be destroyed, and the next close finishes. Nothing is left.
 */
static int
test_share_close_published_tir(void)
{
	struct mdevx_obj **q[] = { &chain.rqt, &chain.rq[1], &chain.rq[0], &chain.cq, &chain.td,
				   &chain.pd };
	struct share_sync *s = sync_mz->addr;
	struct log_cap lc = { .f = NULL };
	uint32_t before, after;
	const char *why;
	pid_t pid;
	int rc, err;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	pid = test_children_spawn(&children, "share_tir_holder", 0, NULL);
	TEST_ASSERT(pid > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "holder not ready");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &before), "counts");
	TEST_ASSERT_SUCCESS(log_cap_start(&lc, RTE_LOG_NOTICE), "log capture");
	rc = mdevx_share_dev_close(pdev);
	err = errno;	/* before the capture's calls */
	why = log_cap_once(&lc, "mdevx_share: ", DEVSTR, "has 6 objects on",
			   "then close again");
	log_cap_stop(&lc);
	TEST_ASSERT(rc == -EBUSY && err == EBUSY, "close with the queues: %d, errno %d", rc, err);
	TEST_ASSERT_NULL(why, "the refusal's line: %s", why);
	TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev), 0, "records left");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &after), "counts");
	TEST_ASSERT_EQUAL(after, before - (NB_COUNTERS + 2), "published objects: %u destroyed",
			  before - after);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc = test_mp_wait(pid, CHILD_TIMEOUT_MS);
	TEST_ASSERT_EQUAL(rc, 0, "holder exited with %d", rc);
	/* The documented sequence: the queues, then the close again. */
	for (size_t i = 0; i < RTE_DIM(q); i++) {
		TEST_ASSERT_SUCCESS(mdevx_obj_destroy(*q[i]), "queue %zu: %s", i, strerror(errno));
		*q[i] = NULL;
	}
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(pdev), "close again: %s", strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(pdev), ENOENT);
	pdev = NULL;
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
	/* no device shared: the records of one are null, not [] */
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list," DEVSTR, buf, sizeof(buf)),
			    "list");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/list\":null") != NULL, "list of %s: %s",
		    DEVSTR, buf);
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
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list,nodev", buf, sizeof(buf)), "list");
	TEST_ASSERT(strstr(buf, "\"/mdevx/share/list\":null") != NULL, "records of no device: %s",
		    buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/list," DEVSTR, buf, sizeof(buf)),
			    "list");
	TEST_ASSERT(strstr(buf, "\"ctr0\"") && strstr(buf, "\"tir_rss\""), "list of %s: %s",
		    DEVSTR, buf);
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

/*
 * The primary's view of its secondaries: mdevx_share_peers() and
 * /mdevx/share/peers give each attached secondary, its pid and its one
 * rule; once they closed, none.
 */
static int
test_share_peers(void)
{
	struct mdevx_share_peer pv[MDEVX_SHARE_PEERS_MAX];
	struct share_sync *s = sync_mz->addr;
	char buf[16384], want[64];
	pid_t pids[2];
	int n, rc;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	TEST_ASSERT_EQUAL(mdevx_share_peers(DEVSTR, pv, RTE_DIM(pv)), 0, "peers before any");
	for (int i = 0; i < 2; i++) {
		pids[i] = test_children_spawn(&children, "share_peer", 0, NULL);
		TEST_ASSERT(pids[i] > 0, "spawn");
	}
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "secondaries not ready");
	n = mdevx_share_peers(DEVSTR, pv, RTE_DIM(pv));
	TEST_ASSERT_EQUAL(n, 2, "peers: %d", n);
	TEST_ASSERT(pv[0].id != pv[1].id, "two peers of one id");
	for (int i = 0; i < 2; i++) {
		bool found = false;

		for (int k = 0; k < n; k++)
			found |= pv[k].pid == pids[i] && pv[k].attached == 1 && pv[k].rules == 1;
		TEST_ASSERT(found, "secondary %d (pid %d) not listed with its rule", i,
			    (int)pids[i]);
	}
	TEST_ASSERT_EQUAL(mdevx_share_peers(DEVSTR, pv, 1), 2, "a short list: the count");
	TEST_ASSERT_RC_ERRNO(mdevx_share_peers(DEVSTR, NULL, 1), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_share_peers("rdma:mdevx_nosuch", pv, 1), ENODEV);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/peers", buf, sizeof(buf)), "peers");
	TEST_ASSERT(strstr(buf, "\"secondaries\":2") && strstr(buf, "\"rules\":[1,1]") &&
		    strstr(buf, "\"attached\":[1,1]"), "telemetry: %s", buf);
	snprintf(want, sizeof(want), "%d", (int)pids[0]);
	TEST_ASSERT(strstr(buf, want) != NULL, "telemetry without pid %s: %s", want, buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/mdevx/share/peers,nodev", buf, sizeof(buf)),
			    "peers");
	TEST_ASSERT(strstr(buf, "null") != NULL, "peers of no device: %s", buf);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		rc = test_mp_wait(pids[i], CHILD_TIMEOUT_MS);
		TEST_ASSERT_EQUAL(rc, 0, "secondary %d exited with %d", i, rc);
	}
	/* A closed secondary's connection is dropped by the primary's reader. */
	for (int tries = 0; tries < 5000 && mdevx_share_peers(DEVSTR, pv, 1) != 0; tries++)
		usleep(1000);
	TEST_ASSERT_EQUAL(mdevx_share_peers(DEVSTR, pv, 1), 0, "peers after their close");
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
		TEST_CASE_ST(case_setup, case_teardown, test_share_close_published_tir),
		TEST_CASE_ST(case_setup, case_teardown, test_share_peers),
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

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_fault_autotest: libmdevx_share under faults. Secondaries
 * killed with SIGKILL in import/unimport loops while others go on; a
 * secondary that never acknowledges a withdrawal; the primary killed, or
 * exiting, while secondaries hold imports; concurrent publish/withdraw
 * against importing secondaries (no torn read, no success on a withdrawn
 * object); device commands that fail; nothing leaked on the device.
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
#include <sys/wait.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include <rte_eal.h>
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
/* Secondary roles                                                     */
/* ------------------------------------------------------------------ */

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
	TEST_ASSERT_SUCCESS(test_dir_remove(dir), "exchange directory left");
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
#ifdef __SANITIZE_ADDRESS__
	/*
	 * LeakSanitizer's check at exit locks the allocator, whose locks
	 * another thread may have held at fork(): the child would hang.
	 * Check here, once, which also turns off the check at exit (in both).
	 */
	__lsan_do_leak_check();
#endif
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
	if (test_dir_remove(dir) != 0)
		ret = TEST_FAILED;
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
	char dir[] = "/tmp/mdevx-exitlk-XXXXXX", prefix[128], when[32] = "";
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
	TEST_ASSERT_SUCCESS(test_dir_remove(dir), "exchange directory left");
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
		/*
		 * A stall lasts until a timeout (the withdrawal's 3 s, the
		 * attach's 5 s); below that, a slow attach is only a loaded
		 * machine.
		 */
		ROLE_CHECK(dt < 2500, "attach %d took %" PRIu64 " ms", n, dt);
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
 * Many withdrawals in flight at once (more than the library tracks):
 * NB_MANY devices of the daemon (mlx5_0 .. mlx5_15, app/test/meson.build),
 * one record "w" each, withdrawn by one thread each.
 */
#define NB_MANY 16

/* The name of device @p k (0 .. NB_MANY - 1) of the daemon. */
static const char *
dev_name(int k)
{
	static char names[NB_MANY][12];

	snprintf(names[k], sizeof(names[k]), "mlx5_%d", k);
	return names[k];
}

static int
devstr_of(char *buf, size_t len, int k)
{
	int n = snprintf(buf, len, "rdma:%s", dev_name(k));

	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Imports "w" on every device; after go, each must have been unimported. */
static int
role_multi_holder(int argc, char **argv)
{
	struct mdevx_share_dev *dev[NB_MANY] = { NULL };
	struct share_sync *s = sync_area();
	mdevx_share_imp_t imp[NB_MANY];
	char devstr[128];
	int ret = 1, n = 0;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	for (; n < NB_MANY; n++) {
		ROLE_CHECK(devstr_of(devstr, sizeof(devstr), n) == 0, "devstr %d", n);
		dev[n] = mdevx_share_dev_attach(devstr);
		ROLE_CHECK(dev[n] != NULL, "attach %s: %s", devstr, strerror(errno));
		ROLE_CHECK(mdevx_share_import(dev[n], "w", MDEVX_OBJ_FLOW_COUNTER, &imp[n]) == 0,
			   "import on %s: %s", devstr, strerror(errno));
	}
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	for (int k = 0; k < NB_MANY; k++) {
		ROLE_CHECK(mdevx_share_dev_imports(dev[k]) == 0,
			   "device %d: the withdrawal was never notified", k);
		ROLE_CHECK(mdevx_share_unimport(dev[k], imp[k]) == 0, "unimport");
	}
	ret = 0;
out:
	for (int k = 0; k < NB_MANY; k++)
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
	struct withdraw_arg arg[NB_MANY];
	struct share_sync *s = sync_mz->addr;
	pthread_t th[NB_MANY];
	char devstr[128];
	pid_t holder, mute;
	int rc_holder, rc_mute, ret = TEST_FAILED, k;

	memset(arg, 0, sizeof(arg));
	arg[0].dev = pdev;
	for (k = 1; k < NB_MANY; k++) {
		TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), k), "devstr");
		arg[k].dev = mdevx_share_dev_open(devstr, &conf);
		if (arg[k].dev == NULL) {
			printf("open %s: %s\n", devstr, strerror(errno));
			goto out;
		}
	}
	for (k = 0; k < NB_MANY; k++) {
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
	for (k = 0; k < NB_MANY; k++)
		if (pthread_create(&th[k], NULL, withdraw_thread, &arg[k]) != 0)
			break;
	for (int j = 0; j < k; j++)
		pthread_join(th[j], NULL);
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	rc_holder = test_mp_wait(holder, CHILD_TIMEOUT_MS);
	rc_mute = test_mp_wait(mute, CHILD_TIMEOUT_MS);
	if (k != NB_MANY || rc_holder != 0 || rc_mute != 0) {
		printf("threads %d, holder exited with %d, mute with %d\n", k, rc_holder,
		       rc_mute);
		goto out;
	}
	for (k = 0; k < NB_MANY; k++) {
		if (arg[k].rc != 0 || arg[k].acked != 1) {
			printf("withdrawal %d: %d, %u acknowledgements (want 1)\n", k, arg[k].rc,
			       arg[k].acked);
			goto out;
		}
	}
	ret = TEST_SUCCESS;
out:
	for (k = 1; k < NB_MANY; k++)
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
	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 1), "devstr");
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
	return test_wait_dev_empty(ctl, dev_name(1), 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
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
	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 1), "devstr");
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
	return test_wait_dev_empty(ctl, dev_name(1), 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
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
	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 1), "devstr");
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
	return test_wait_dev_empty(ctl, dev_name(1), 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
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
	struct log_cap lc = { .f = NULL };
	unsigned int lines;
	int ret = 1;

	ROLE_CHECK(s != NULL && argc == 1, "no sync memzone or device string");
	ROLE_CHECK(log_cap_start(&lc, RTE_LOG_ERR) == 0, "log capture");
	mdevx_share_test_attach_hook(attach_closing_hook, s);
	dev = mdevx_share_dev_attach(argv[0]);
	mdevx_share_test_attach_hook(NULL, NULL);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	ROLE_CHECK(dev == NULL && errno == ENODEV, "attach across the primary's close: %s",
		   dev != NULL ? "attached" : strerror(errno));
	/* one line, that says why */
	lines = log_cap_take(&lc, "mdevx_share: ");
	ROLE_CHECK(lines == 1 && strstr(lc.text, "the primary closed the device during the "
					"attach") != NULL, "attach across the close logged: %s",
		   lc.text);
	dev = mdevx_share_dev_attach(argv[0]);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	ROLE_CHECK(dev == NULL && errno == ENODEV, "attach after the close");
	ret = 0;
out:
	log_cap_stop(&lc);
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
	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 1), "devstr");
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
	return test_wait_dev_empty(ctl, dev_name(1), 5000) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * A close that cannot finish keeps the device open, nothing lost: a
 * published counter whose destroy fails stays (withdrawn, with its object)
 * for the next close; an object of the application still on the device's
 * context makes the close fail with EBUSY once every record is withdrawn
 * and the primary's own imports released, the object left to the
 * application.
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

	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 2), "devstr");
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, dev_name(2), &before), "counts");
	dev = mdevx_share_dev_open(devstr, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	/* The counter's destroy fails once: EIO, the record and its object stay. */
	TEST_ASSERT_SUCCESS(publish_counter(dev, "f0", 128), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_set_fault(ctl, dev_name(2), OP_DEALLOC_FLOW_COUNTER, 1,
						STAT_INTERNAL_ERR, 0x5a5a, 0), "fault");
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), EIO);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, dev_name(2), &total), "counts");
	TEST_ASSERT_EQUAL(total, before + 1, "objects: %u", total - before);
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(dev, "f0", &rec), "lookup: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rec.withdrawn, 1, "record not withdrawn");
	/* Still open: a new record, an import of it and an object of the application. */
	TEST_ASSERT_SUCCESS(publish_counter(dev, "f1", 128), "publish: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_import(dev, "f1", MDEVX_OBJ_FLOW_COUNTER, &imp), "import");
	td = mdevx_td_alloc(mdevx_share_dev_ctx(dev));
	TEST_ASSERT_NOT_NULL(td, "td: %s", strerror(errno));
	/* EBUSY for the TD, with both records gone and the import released. */
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(dev, "f0", &rec), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_share_lookup(dev, "f1", &rec), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_share_record_count(dev), 0, "records left");
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(dev), 0, "imports left");
	TEST_ASSERT_RC_ERRNO(mdevx_share_unimport(dev, imp), ENOENT);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, dev_name(2), &total), "counts");
	TEST_ASSERT_EQUAL(total, before + 1, "objects: %u", total - before);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(td), "td destroy");
	/* The next close finishes. */
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_share_dev_close(dev), ENOENT);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, dev_name(2), &total), "counts");
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

	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 3), "devstr");
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

/* Publish the objects, then run the secondary @p role to its end. */
static int
secondary_on_published(const char *role)
{
	struct share_sync *s = sync_mz->addr;
	pid_t p;

	TEST_ASSERT_SUCCESS(publish_objects(s), "publish");
	p = test_children_spawn(&children, role, 0, NULL);
	TEST_ASSERT(p > 0, "spawn");
	TEST_ASSERT_EQUAL(test_mp_wait(p, CHILD_TIMEOUT_MS), 0, "secondary");
	return TEST_SUCCESS;
}

static int
test_fault_secondary_close_busy(void)
{
	return secondary_on_published("share_close_busy");
}

/*
 * A secondary's close whose context turns out busy at the last step (the
 * test hook makes an object on it after the imports were dropped and the
 * primary was told of the detach, as another thread of the application
 * could): EBUSY with one line that says to close again, and the device
 * comes back orphaned: the primary counts it gone, so nothing reads its
 * registry again (an import is ENODEV), and the next close finishes.
 */
struct close_race {
	struct mdevx_ctx *ctx;
	struct mdevx_obj *td;
};

static void
close_race_hook(void *arg)
{
	struct close_race *r = arg;

	if (r->td == NULL)
		r->td = mdevx_td_alloc(r->ctx);
}

static int
role_close_race(int argc, char **argv)
{
	struct close_race r = { .ctx = NULL, .td = NULL };
	struct mdevx_share_dev *dev = NULL;
	struct log_cap lc = { .f = NULL };
	mdevx_share_imp_t imp;
	unsigned int lines;
	int rc, err, ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	r.ctx = mdevx_share_dev_ctx(dev);
	ROLE_CHECK(log_cap_start(&lc, RTE_LOG_ERR) == 0, "log capture");
	mdevx_share_test_close_hook(close_race_hook, &r);
	rc = mdevx_share_dev_close(dev);
	err = errno;	/* before any other call */
	mdevx_share_test_close_hook(NULL, NULL);
	lines = log_cap_take(&lc, "mdevx_share: ");
	ROLE_CHECK(r.td != NULL, "the hook made no object");
	ROLE_CHECK(rc == -EBUSY && err == EBUSY, "close with a busy context: %d, errno %d", rc,
		   err);
	ROLE_CHECK(lines == 1 && strstr(lc.text, "close it again") != NULL,
		   "busy close logged: %s", lc.text);
	ROLE_CHECK(mdevx_share_import(dev, "ctr0", MDEVX_OBJ_FLOW_COUNTER, &imp) == -ENODEV &&
		   errno == ENODEV, "import on a device that detached: %s", strerror(errno));
	ROLE_CHECK(mdevx_obj_destroy(r.td) == 0, "td destroy");
	r.td = NULL;
	ROLE_CHECK(mdevx_share_dev_close(dev) == 0, "close again: %s", strerror(errno));
	dev = NULL;
	ret = 0;
out:
	log_cap_stop(&lc);
	if (r.td != NULL)
		mdevx_obj_destroy(r.td);
	if (dev != NULL)
		mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(share_close_race, role_close_race);

static int
test_fault_secondary_close_race(void)
{
	return secondary_on_published("share_close_race");
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
	TEST_ASSERT_SUCCESS(devstr_of(devstr, sizeof(devstr), 0), "devstr");
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
		TEST_CASE_ST(case_setup, case_teardown, test_fault_secondary_close_race),
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

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_foreign_autotest: a secondary of the instance that does
 * not load libmdevx_share (mdevx-test-foreign: EAL alone, idle, as a
 * monitoring or capture tool would be) costs withdrawals nothing: they
 * wait only for the secondaries that attached the device. With one of
 * ours attached, each withdrawal must end well within its bound and count
 * exactly that secondary's acknowledgement, and the close must free the
 * registry's memzone. The cost with and without the foreign secondary is
 * measured side by side (medians) and printed (target: at most 2x).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_memzone.h>

#include "mdevx.h"
#include "mdevx_share.h"
#include "process.h"
#include "test.h"
#include "test_share_util.h"

extern char **environ;

/* Set by meson for the test; Debian's dpdk-test cannot join our instance (tailqs). */
#define FOREIGN_ENV "MDEVX_TEST_FOREIGN"
#define DEVSTR "rdma:mlx5_0"
#define ROUNDS 32
#define BOUND_MS 2000

static int foreign_out = -1;		/* the foreign secondary's output */

/* Is there an EAL IPC socket of @p pid in our runtime directory? */
static bool
has_mp_socket(pid_t pid)
{
	char path[PATH_MAX];

	return test_mp_socket_of(pid, path, sizeof(path)) == 0;
}

/* Read @p fd until @p word has been seen or @p ms passed: 0 or -1. */
static int
wait_output(int fd, const char *word, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	char buf[4096] = "";
	size_t len = 0;

	while (test_now_ms() < end) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);

		if (n == 0) {
			printf("foreign secondary: %s\n", buf);
			return -1;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			usleep(10000);
			continue;
		}
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, word) != NULL)
			return 0;
		if (len > sizeof(buf) / 2) {	/* keep the tail */
			memmove(buf, buf + len - 64, 64);
			len = 64;
		}
	}
	return -1;
}

/*
 * Start the foreign secondary @p bin in our instance, idle (its stdin a
 * pipe we hold open), once it said it is ready: its initialisation
 * (loading every driver) is over. 0 with its pid and our end of the pipe,
 * or -1.
 */
static int
foreign_start(const char *bin, pid_t *pid_out, int *stdin_fd)
{
	char prefix[128];
	const char *argv[] = { bin, "--proc-type=secondary", prefix, "--no-pci", "-l", "0", NULL };
	posix_spawn_file_actions_t fa;
	int in[2], out[2], fl, err;
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", test_file_prefix());
	if (pipe(in) != 0)
		return -1;
	if (pipe2(out, O_NONBLOCK) != 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	/* The child's stdout blocks; the two ends it must not keep are closed. */
	fl = fcntl(out[1], F_GETFL);
	err = fl < 0 || fcntl(out[1], F_SETFL, fl & ~O_NONBLOCK) != 0 ? errno : 0;
	if (err == 0)
		err = posix_spawn_file_actions_init(&fa);
	if (err == 0) {
		posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
		posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO);
		posix_spawn_file_actions_addclose(&fa, in[1]);
		posix_spawn_file_actions_addclose(&fa, out[0]);
		/* posix_spawn(), not fork(): see test_mp_spawn() */
		err = posix_spawn(&pid, bin, &fa, NULL, (char *const *)(uintptr_t)argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	if (err != 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	close(in[0]);
	close(out[1]);
	*pid_out = pid;
	*stdin_fd = in[1];
	/* Kept open: it must not die of SIGPIPE when EAL logs our messages. */
	foreign_out = out[0];
	if (wait_output(out[0], "ready", 20000) == 0 && has_mp_socket(pid))
		return 0;
	foreign_out = -1;
	close(out[0]);
	printf("%s did not become a secondary of the instance\n", bin);
	close(in[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* The honest secondary and the test share this memzone. */
#define SYNC_MZ "mdevx_t_foreign"

struct foreign_sync {
	uint32_t ready;
	uint32_t go;
	uint32_t failed;
};

/* Secondary: attached to the device (so acknowledging), until go. */
static int
role_foreign_honest(int argc, char **argv)
{
	struct foreign_sync *s = test_memzone_addr(SYNC_MZ);
	struct mdevx_share_dev *dev = NULL;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	TEST_ROLE_CHECK(NULL, s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	TEST_ROLE_CHECK(&s->failed, dev != NULL, "attach: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	TEST_ROLE_CHECK(&s->failed, test_wait_at_least(&s->go, 1, 60000, NULL), "no go");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(share_foreign_honest, role_foreign_honest);

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Withdraw @p n counters named <tag><i> one by one: the median time in ns;
 * every withdrawal must succeed within half its bound and count @p want
 * acknowledgements.
 */
static int
withdraw_all(struct mdevx_share_dev *dev, const char *tag, unsigned int n, unsigned int want,
	     uint64_t *median_ns)
{
	uint64_t ns[ROUNDS];
	char name[32];

	for (unsigned int i = 0; i < n && i < ROUNDS; i++) {
		unsigned int acked = 99;
		uint64_t t0;
		int rc;

		snprintf(name, sizeof(name), "%s%u", tag, i);
		t0 = test_now_ns();
		rc = mdevx_share_withdraw(dev, name, &acked);
		ns[i] = test_now_ns() - t0;
		TEST_ASSERT_SUCCESS(rc, "withdraw %s: %s", name, strerror(-rc));
		TEST_ASSERT(ns[i] < (uint64_t)BOUND_MS * 1000000 / 2,
			    "withdraw %s waited %" PRIu64 " ms (bound %u ms)", name,
			    ns[i] / 1000000, BOUND_MS);
		TEST_ASSERT_EQUAL(acked, want, "withdraw %s: %u acknowledgements", name, acked);
	}
	qsort(ns, n, sizeof(ns[0]), cmp_u64);
	*median_ns = ns[n / 2];
	return TEST_SUCCESS;
}

static int
publish_all(struct mdevx_share_dev *dev, const char *tag, unsigned int n)
{
	char name[32];

	for (unsigned int i = 0; i < n; i++) {
		struct mdevx_obj *c = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 1);
		int rc;

		TEST_ASSERT_NOT_NULL(c, "counter: %s", strerror(errno));
		snprintf(name, sizeof(name), "%s%u", tag, i);
		rc = mdevx_share_publish(dev, name, c);
		if (rc != 0)
			mdevx_obj_destroy(c);
		TEST_ASSERT_SUCCESS(rc, "publish %s: %s", name, strerror(-rc));
	}
	return TEST_SUCCESS;
}

/*
 * Side by side, with one secondary of ours attached (acknowledging) in
 * both phases: withdrawals without, then with the foreign secondary idle
 * beside it. Each must count exactly our secondary's acknowledgement.
 */
static int
test_foreign_secondary(void)
{
	struct mdevx_share_conf conf = { .capacity = 128, .withdraw_timeout_ms = BOUND_MS };
	uint64_t ns_none = 0, ns_without = 0, ns_with = 0;
	const char *bin = getenv(FOREIGN_ENV);
	const struct rte_memzone *mz;
	struct mdevx_share_dev *dev;
	struct foreign_sync *s;
	unsigned int mz0;
	int fd = -1, ret = TEST_FAILED;
	pid_t pid = -1, honest = -1;

	TEST_ASSERT(bin != NULL && access(bin, X_OK) == 0,
		    "no foreign secondary program in $%s", FOREIGN_ENV);
	mz = rte_memzone_reserve(SYNC_MZ, sizeof(*s), SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mz, "sync memzone");
	s = mz->addr;
	memset(s, 0, sizeof(*s));
	mz0 = test_registry_memzones();
	dev = mdevx_share_dev_open(DEVSTR, &conf);
	if (dev == NULL) {
		printf("open: %s\n", strerror(errno));
		rte_memzone_free(mz);
		return TEST_FAILED;
	}
	if (publish_all(dev, "n", ROUNDS) != TEST_SUCCESS ||
	    publish_all(dev, "a", ROUNDS) != TEST_SUCCESS ||
	    publish_all(dev, "b", ROUNDS) != TEST_SUCCESS)
		goto out;
	/* No secondary at all: what a withdrawal costs by itself (printed). */
	if (withdraw_all(dev, "n", ROUNDS, 0, &ns_none) != TEST_SUCCESS)
		goto out;
	honest = test_mp_spawn("share_foreign_honest", NULL, 0, NULL);
	if (honest <= 0 || !test_wait_at_least(&s->ready, 1, 20000, &s->failed)) {
		printf("the attached secondary did not start\n");
		goto out;
	}
	if (withdraw_all(dev, "a", ROUNDS, 1, &ns_without) != TEST_SUCCESS)
		goto out;
	if (foreign_start(bin, &pid, &fd) != 0)
		goto out;
	if (withdraw_all(dev, "b", ROUNDS, 1, &ns_with) != TEST_SUCCESS)
		goto out;
	printf("perf: withdraw with one attached secondary and an idle foreign one: %.1f us, "
	       "without the foreign one: %.1f us, ratio %.2fx (target <= 2x; median of %u; "
	       "%.1f us with no secondary)\n", ns_with / 1e3, ns_without / 1e3,
	       (double)ns_with / (double)ns_without, ROUNDS, ns_none / 1e3);
	ret = TEST_SUCCESS;
out:
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	if (honest > 0 && test_mp_wait(honest, 20000) != 0) {
		printf("the attached secondary failed\n");
		ret = TEST_FAILED;
	}
	if (mdevx_share_dev_close(dev) != 0) {
		printf("close: %s\n", strerror(errno));
		ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS && test_registry_memzones() != mz0) {
		printf("the closed registry's memzone was kept for the foreign secondary\n");
		ret = TEST_FAILED;
	}
	if (pid > 0) {
		if (waitpid(pid, NULL, WNOHANG) != 0) {
			printf("the foreign secondary exited during the test\n");
			ret = TEST_FAILED;
		}
		int st;

		/*
		 * End of its input: it runs rte_eal_cleanup() and exits. It is
		 * never signalled during that: killed while it holds one of the
		 * instance's shared EAL locks (memory detach), it would leave the
		 * lock taken and our rte_memzone_free() below would spin forever.
		 */
		close(fd);
		st = test_mp_wait(pid, 20000);
		if (st != 0) {
			printf("the foreign secondary did not exit cleanly at the end of its "
			       "input: %d\n", st);
			ret = TEST_FAILED;
		}
		close(foreign_out);
		foreign_out = -1;
	}
	rte_memzone_free(mz);
	return ret;
}
static struct unit_test_suite foreign_suite = {
	.suite_name = "mlx5 devx share with a foreign secondary",
	.unit_test_cases = {
		TEST_CASE(test_foreign_secondary),
		TEST_CASES_END()
	}
};

static int
test_share_foreign(void)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return TEST_SKIPPED;
	return unit_test_suite_runner(&foreign_suite);
}

REGISTER_TEST_COMMAND(mlx5_devx_share_foreign_autotest, test_share_foreign);

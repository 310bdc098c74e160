/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * eal_mp_share_autotest: the multi-process plumbing the project relies on.
 *
 * - a memzone written by the primary is seen byte for byte by secondaries
 *   started with the same --file-prefix;
 * - a file descriptor sent by the primary in an rte_mp reply reaches the
 *   secondary as a descriptor of the same open file (what the device command
 *   fd will do): the secondary reads the primary's bytes through it and
 *   writes a marker that the primary then reads back;
 * - a secondary started with a wrong prefix fails cleanly;
 * - test_mp_wait() kills a hung child at its timeout, and a child given an
 *   unknown role exits with TEST_MP_EXIT_NO_ROLE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include "process.h"
#include "test.h"

#define MZ_NAME "mdevx_t_mp_share"
#define MZ_DATA_LEN (64 * 1024)
#define FD_DATA_LEN 4096
#define MARKER_OFF 8192
#define MARKER_LEN 64
#define MP_ACTION "mdevx_test_fd"
#define NB_READERS 2
#define CHILD_TIMEOUT_MS 30000

struct mz_hdr {
	uint64_t magic;
	uint64_t seed;
	uint64_t memfd_dev;
	uint64_t memfd_ino;
	uint32_t len;
	uint8_t data[];
};

#define MZ_MAGIC 0x6d64657678747374ULL

static int share_memfd = -1;
static const struct rte_memzone *share_mz;

/* xorshift64: reproducible bytes from a seed. */
static void
fill_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)(x >> 24);
	}
}

static int
fd_request_handler(const struct rte_mp_msg *msg, const void *peer)
{
	struct rte_mp_msg reply;

	memset(&reply, 0, sizeof(reply));
	snprintf(reply.name, sizeof(reply.name), "%s", msg->name);
	reply.num_fds = 1;
	reply.fds[0] = share_memfd;
	reply.len_param = sizeof(uint64_t);
	memcpy(reply.param, &((const struct mz_hdr *)share_mz->addr)->seed, sizeof(uint64_t));
	return rte_mp_reply(&reply, peer);
}

/* ---- secondary side ---- */

static int
reader_role(int argc, char **argv)
{
	const struct rte_memzone *mz;
	const struct mz_hdr *hdr;
	struct rte_mp_msg req;
	struct rte_mp_reply rep;
	struct timespec ts = { .tv_sec = 5, .tv_nsec = 0 };
	uint8_t *expect = NULL, *got = NULL;
	char marker[MARKER_LEN];
	struct stat st;
	int idx, fd, ret = 1;

	if (argc < 1)
		return 2;
	idx = atoi(argv[0]);
	mz = rte_memzone_lookup(MZ_NAME);
	if (mz == NULL) {
		printf("reader %d: memzone %s not found\n", idx, MZ_NAME);
		return 3;
	}
	hdr = mz->addr;
	if (hdr->magic != MZ_MAGIC || hdr->len != MZ_DATA_LEN) {
		printf("reader %d: bad memzone header\n", idx);
		return 4;
	}
	expect = malloc(MZ_DATA_LEN);
	got = malloc(FD_DATA_LEN);
	if (expect == NULL || got == NULL)
		goto out;
	fill_pattern(expect, MZ_DATA_LEN, hdr->seed);
	if (memcmp(expect, hdr->data, MZ_DATA_LEN) != 0) {
		printf("reader %d: memzone pattern differs\n", idx);
		ret = 5;
		goto out;
	}

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), MP_ACTION);
	if (rte_mp_request_sync(&req, &rep, &ts) != 0 || rep.nb_received != 1) {
		printf("reader %d: fd request failed: %s\n", idx, rte_strerror(rte_errno));
		ret = 6;
		goto out;
	}
	if (rep.msgs[0].num_fds != 1) {
		printf("reader %d: reply carries %d fds\n", idx, rep.msgs[0].num_fds);
		free(rep.msgs);
		ret = 7;
		goto out;
	}
	fd = rep.msgs[0].fds[0];
	free(rep.msgs);
	/* Same open file: same inode, and the primary's bytes are readable. */
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != hdr->memfd_ino ||
	    (uint64_t)st.st_dev != hdr->memfd_dev) {
		printf("reader %d: received fd is not the primary's file\n", idx);
		close(fd);
		ret = 8;
		goto out;
	}
	fill_pattern(expect, FD_DATA_LEN, hdr->seed ^ 0xfdfdULL);
	if (pread(fd, got, FD_DATA_LEN, 0) != FD_DATA_LEN ||
	    memcmp(got, expect, FD_DATA_LEN) != 0) {
		printf("reader %d: bytes read through the fd differ\n", idx);
		close(fd);
		ret = 9;
		goto out;
	}
	memset(marker, 0, sizeof(marker));
	snprintf(marker, sizeof(marker), "reader-%d-pid-%d", idx, (int)getpid());
	if (pwrite(fd, marker, sizeof(marker), MARKER_OFF + (off_t)idx * MARKER_LEN) !=
	    (ssize_t)sizeof(marker)) {
		close(fd);
		ret = 10;
		goto out;
	}
	close(fd);
	ret = 0;
out:
	free(expect);
	free(got);
	return ret;
}
REGISTER_TEST_SECONDARY(mp_share_reader, reader_role);

static int
sleeper_role(int argc, char **argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	for (;;)
		pause();
	return 0;
}
REGISTER_TEST_SECONDARY(mp_sleeper, sleeper_role);

/* ---- primary side ---- */

static int
share_setup(void)
{
	struct mz_hdr *hdr;
	uint8_t *buf;
	struct stat st;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		printf("must run in a primary process\n");
		return TEST_SKIPPED;
	}
	share_mz = rte_memzone_reserve(MZ_NAME, sizeof(*hdr) + MZ_DATA_LEN, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(share_mz, "memzone reserve: %s", rte_strerror(rte_errno));
	hdr = share_mz->addr;
	hdr->seed = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
	hdr->len = MZ_DATA_LEN;
	fill_pattern(hdr->data, MZ_DATA_LEN, hdr->seed);

	share_memfd = memfd_create("mdevx_t_mp_fd", MFD_CLOEXEC);
	TEST_ASSERT(share_memfd >= 0, "memfd_create: %s", strerror(errno));
	buf = malloc(FD_DATA_LEN);
	TEST_ASSERT_NOT_NULL(buf, "malloc");
	fill_pattern(buf, FD_DATA_LEN, hdr->seed ^ 0xfdfdULL);
	if (pwrite(share_memfd, buf, FD_DATA_LEN, 0) != FD_DATA_LEN) {
		free(buf);
		return TEST_FAILED;
	}
	free(buf);
	TEST_ASSERT_SUCCESS(ftruncate(share_memfd, MARKER_OFF + 8 * MARKER_LEN), "ftruncate");
	TEST_ASSERT_SUCCESS(fstat(share_memfd, &st), "fstat");
	hdr->memfd_dev = (uint64_t)st.st_dev;
	hdr->memfd_ino = (uint64_t)st.st_ino;
	hdr->magic = MZ_MAGIC;
	TEST_ASSERT_SUCCESS(rte_mp_action_register(MP_ACTION, fd_request_handler),
			    "rte_mp_action_register: %s", rte_strerror(rte_errno));
	return TEST_SUCCESS;
}

static void
share_teardown(void)
{
	rte_mp_action_unregister(MP_ACTION);
	if (share_memfd >= 0)
		close(share_memfd);
	share_memfd = -1;
	if (share_mz != NULL)
		rte_memzone_free(share_mz);
	share_mz = NULL;
}

static int
test_two_secondaries_read(void)
{
	char idx_str[NB_READERS][8];
	pid_t pids[NB_READERS];
	char marker[MARKER_LEN];
	int i;

	for (i = 0; i < NB_READERS; i++) {
		const char *args[1] = { idx_str[i] };

		snprintf(idx_str[i], sizeof(idx_str[i]), "%d", i + 1);
		pids[i] = test_mp_spawn("mp_share_reader", NULL, 1, args);
		TEST_ASSERT(pids[i] > 0, "spawn reader %d: %d", i + 1, (int)pids[i]);
	}
	for (i = 0; i < NB_READERS; i++) {
		int st = test_mp_wait(pids[i], CHILD_TIMEOUT_MS);

		TEST_ASSERT_EQUAL(st, 0, "reader %d exit status %d", i + 1, st);
	}
	/* Both markers were written through the received descriptors. */
	for (i = 0; i < NB_READERS; i++) {
		char want[32];

		memset(marker, 0, sizeof(marker));
		TEST_ASSERT_EQUAL(pread(share_memfd, marker, sizeof(marker),
					MARKER_OFF + (off_t)(i + 1) * MARKER_LEN),
				  (ssize_t)sizeof(marker), "pread marker");
		snprintf(want, sizeof(want), "reader-%d-pid-%d", i + 1, (int)pids[i]);
		TEST_ASSERT(strcmp(marker, want) == 0, "marker %d is '%s', want '%s'",
			    i + 1, marker, want);
	}
	return TEST_SUCCESS;
}

static int
test_wrong_prefix_fails(void)
{
	char prefix[128], dir[256], cmd[300];
	const char *args[1] = { "9" };
	int st;

	snprintf(prefix, sizeof(prefix), "%s_wrong", test_file_prefix());
	st = test_mp_run("mp_share_reader", prefix, 1, args, CHILD_TIMEOUT_MS);
	/* The secondary's EAL finds no primary and the child exits cleanly. */
	snprintf(dir, sizeof(dir), "/var/run/dpdk/%s", prefix);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("could not remove %s\n", dir);
	TEST_ASSERT_EQUAL(st, TEST_MP_EXIT_EAL_FAILED, "child exit status %d", st);
	return TEST_SUCCESS;
}

static int
test_hung_child_killed(void)
{
	int st = test_mp_run("mp_sleeper", NULL, 0, NULL, 300);

	TEST_ASSERT_EQUAL(st, TEST_MP_TIMEOUT, "status %d", st);
	return TEST_SUCCESS;
}

static int
test_unknown_role(void)
{
	int st = test_mp_run("no_such_role", NULL, 0, NULL, CHILD_TIMEOUT_MS);

	TEST_ASSERT_EQUAL(st, TEST_MP_EXIT_NO_ROLE, "status %d", st);
	return TEST_SUCCESS;
}

static struct unit_test_suite eal_mp_share_suite = {
	.suite_name = "EAL multi-process sharing",
	.setup = share_setup,
	.teardown = share_teardown,
	.unit_test_cases = {
		TEST_CASE(test_two_secondaries_read),
		TEST_CASE(test_wrong_prefix_fails),
		TEST_CASE(test_hung_child_killed),
		TEST_CASE(test_unknown_role),
		TEST_CASES_END()
	}
};

static int
test_eal_mp_share(void)
{
	return unit_test_suite_runner(&eal_mp_share_suite);
}

REGISTER_TEST_COMMAND(eal_mp_share_autotest, test_eal_mp_share);

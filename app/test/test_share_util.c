/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the autotests on the software device (see test_share_util.h):
 * object ids and counts, registry memzones, IPC sockets, the sync memzone
 * fixture and the tracked children of a test case.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_util.h"

uint32_t
test_obj_id(struct mdevx_obj *o)
{
	struct mdevx_obj_info oi;

	return mdevx_obj_info(o, &oi) == 0 ? oi.id : UINT32_MAX;
}

int
test_dev_total(struct swdev_ctl *ctl, const char *dev, uint32_t *total)
{
	struct swdev_counts c;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = swdev_ctl_get_counts(ctl, dev, 0, &c);
	*total = c.total;
	return rc;
}

int
test_wait_dev_empty(struct swdev_ctl *ctl, const char *dev, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	uint32_t total = UINT32_MAX;

	do {
		if (test_dev_total(ctl, dev, &total) != 0)
			return -1;
		if (total == 0)
			return 0;
		usleep(2000);
	} while (test_now_ms() < end);
	printf("%u objects left on %s\n", total, dev);
	return -1;
}

static void
count_registry_mz(const struct rte_memzone *mz, void *arg)
{
	if (strncmp(mz->name, "mdevx_sh_", 9) == 0)
		++*(unsigned int *)arg;
}

unsigned int
test_registry_memzones(void)
{
	unsigned int n = 0;

	rte_memzone_walk(count_registry_mz, &n);
	return n;
}

int
test_mp_socket_of(pid_t pid, char *path, size_t len)
{
	const char *dir = rte_eal_get_runtime_dir();
	char prefix[64];
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = -1;

	if (d == NULL)
		return -1;
	snprintf(prefix, sizeof(prefix), "mp_socket_%d_", (int)pid);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
			int n = snprintf(path, len, "%s/%s", dir, e->d_name);

			ret = n > 0 && (size_t)n < len ? 0 : -1;
			break;
		}
	}
	closedir(d);
	return ret;
}

void *
test_memzone_addr(const char *name)
{
	const struct rte_memzone *mz = rte_memzone_lookup(name);

	return mz != NULL ? mz->addr : NULL;
}

bool
test_wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms,
		   volatile uint32_t *abort)
{
	uint64_t end = test_now_ms() + ms;

	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
		if (test_now_ms() > end ||
		    (abort != NULL && __atomic_load_n(abort, __ATOMIC_ACQUIRE) != 0))
			return false;
		usleep(1000);
	}
	return true;
}

pid_t
test_children_spawn(struct test_children *c, const char *role, int argc,
		    const char *const argv[])
{
	pid_t pid = test_mp_spawn(role, NULL, argc, argv);

	if (pid > 0 && c->nb < (int)RTE_DIM(c->pid))
		c->pid[c->nb++] = pid;
	return pid;
}

void
test_children_kill(struct test_children *c)
{
	for (int i = 0; i < c->nb; i++) {
		if (waitpid(c->pid[i], NULL, WNOHANG) == 0) {
			kill(c->pid[i], SIGKILL);
			waitpid(c->pid[i], NULL, 0);
		}
	}
	c->nb = 0;
}

int
test_children_wait(struct test_children *c, unsigned int timeout_ms)
{
	int ret = TEST_SUCCESS;

	for (int i = 0; i < c->nb; i++) {
		int st = test_mp_wait(c->pid[i], timeout_ms);

		if (st != 0) {
			printf("child %d (pid %d) exited with %d%s\n", i, (int)c->pid[i], st,
			       st > 128 ? " (signal)" : st == TEST_MP_TIMEOUT ? " (timeout)" : "");
			ret = TEST_FAILED;
		}
	}
	c->nb = 0;
	return ret;
}

int
test_swdev_suite_setup(struct swdev_ctl **ctl, const struct rte_memzone **mz,
		       const char *mz_name, size_t size)
{
	const char *sock = getenv("SWDEV_SOCKET");

	if (sock == NULL) {
		printf("SWDEV_SOCKET is not set: no software device to test on\n");
		return TEST_SKIPPED;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return TEST_SKIPPED;
	*ctl = swdev_ctl_open(sock);
	TEST_ASSERT_NOT_NULL(*ctl, "control channel: %s", strerror(errno));
	*mz = rte_memzone_reserve(mz_name, size, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(*mz, "sync memzone: %s", rte_strerror(rte_errno));
	memset((*mz)->addr, 0, size);
	return TEST_SUCCESS;
}

void
test_swdev_suite_teardown(struct swdev_ctl **ctl, const struct rte_memzone **mz,
			  struct test_children *c)
{
	test_children_kill(c);
	if (*mz != NULL)
		rte_memzone_free(*mz);
	*mz = NULL;
	if (*ctl != NULL)
		swdev_ctl_close(*ctl);
	*ctl = NULL;
}

int
test_swdev_case_setup(struct swdev_ctl *ctl, const char *dev, const struct rte_memzone *mz,
		      size_t size)
{
	uint32_t total;

	memset(mz->addr, 0, size);
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, dev, &total), "counts");
	TEST_ASSERT_EQUAL(total, 0, "device not empty before the case");
	return TEST_SUCCESS;
}

int
test_file_write(const char *dir, const char *name, const char *text)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return rename(tmp, path);
}

int
test_file_read(const char *dir, const char *name, char *buf, size_t len, unsigned int wait_ms)
{
	uint64_t end = test_now_ms() + wait_ms;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	do {
		FILE *f = fopen(path, "r");

		if (f != NULL) {
			size_t n = fread(buf, 1, len - 1, f);

			fclose(f);
			buf[n] = '\0';
			return 0;
		}
		usleep(2000);
	} while (test_now_ms() < end);
	return -1;
}

int
test_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int ret = 0;

	if (d == NULL) {
		printf("cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) != 0) {
			printf("cannot remove %s: %s\n", path, strerror(errno));
			ret = -1;
		}
	}
	closedir(d);
	if (rmdir(dir) != 0) {
		printf("cannot remove %s: %s\n", dir, strerror(errno));
		ret = -1;
	}
	return ret;
}

void
log_capture_start(struct log_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	if (c->f != NULL)
		rte_openlog_stream(c->f);
}

void
log_capture_stop(struct log_capture *c)
{
	if (c->f == NULL)
		return;
	/*
	 * NULL, not the stream that was in use: that one is EAL's default,
	 * which rte_eal_cleanup() closes, and a log line at exit would write
	 * into it if it were set as the stream.
	 */
	rte_openlog_stream(NULL);
	fclose(c->f);		/* buf and len now hold the text */
	c->f = NULL;
	/* Shown in the test's log too. */
	if (c->buf != NULL)
		fputs(c->buf, stderr);
}

int
log_capture_count(const struct log_capture *c, const char *what)
{
	const char *p = c->buf;
	int nb = 0;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, '\n');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);

		if (memmem(p, n, what, strlen(what)) != NULL)
			nb++;
		p = end != NULL ? end + 1 : NULL;
	}
	return nb;
}

void
log_capture_free(struct log_capture *c)
{
	log_capture_stop(c);
	free(c->buf);
	c->buf = NULL;
	c->len = 0;
}

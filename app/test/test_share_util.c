/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Helpers of the autotests on the software device (see test_share_util.h):
 * object ids and counts, registry memzones, IPC sockets, the sync memzone
 * fixture and the tracked children of a test case.
 */
#include <dirent.h>
#include <netinet/in.h>
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
	/* libmlx5 allocates one UAR for each context it opens (its doorbells). */
	*total = c.total - c.by_kind[SWDEV_KIND_UAR];
	return rc;
}

int
test_wait_dev_empty(struct swdev_ctl *ctl, const char *dev, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	struct swdev_counts c;
	uint32_t files = 0;

	memset(&c, 0, sizeof(c));
	do {
		if (swdev_ctl_get_counts(ctl, dev, 0, &c) != 0 ||
		    swdev_ctl_get_num_files(ctl, dev, &files) != 0)
			return -1;
		/*
		 * UARs are libmlx5's, one per context open on a uverbs file
		 * (imports of one file by several processes included): they go
		 * with the files.
		 */
		if (c.total == c.by_kind[SWDEV_KIND_UAR] && (files > 0 || c.total == 0))
			return 0;
		usleep(2000);
	} while (test_now_ms() < end);
	printf("%u objects left on %s (%u UARs, %u uverbs files open)\n", c.total, dev,
	       c.by_kind[SWDEV_KIND_UAR], files);
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


int
log_cap_start(struct log_cap *c, uint32_t share_level)
{
	memset(c, 0, sizeof(*c));
	c->share_type = rte_log_register("pmd.common.mdevx.share");
	c->mdevx_type = rte_log_register("pmd.common.mdevx");
	if (c->share_type < 0 || c->mdevx_type < 0)
		return -1;
	c->f = open_memstream(&c->buf, &c->len);
	if (c->f == NULL)
		return -1;
	c->share_level = rte_log_get_level(c->share_type);
	c->mdevx_level = rte_log_get_level(c->mdevx_type);
	c->global_level = rte_log_get_global_level();
	rte_log_set_global_level(RTE_LOG_DEBUG);
	rte_log_set_level(c->share_type, share_level);
	/* libmdevx's backends say more at DEBUG (below the caller's line) */
	rte_log_set_level(c->mdevx_type, RTE_LOG_INFO);
	rte_openlog_stream(c->f);
	return 0;
}

void
log_cap_stop(struct log_cap *c)
{
	if (c->f == NULL)
		return;
	/* EAL's default is set back with NULL: rte_eal_cleanup() closes that stream. */
	rte_openlog_stream(NULL);
	rte_log_set_level(c->share_type, (uint32_t)c->share_level);
	rte_log_set_level(c->mdevx_type, (uint32_t)c->mdevx_level);
	rte_log_set_global_level(c->global_level);
	fclose(c->f);
	free(c->buf);
	c->f = NULL;
}

/* The lines of our libraries logged since the last take, in c->text; how many. */
unsigned int
log_cap_take(struct log_cap *c, const char *prefix)
{
	unsigned int n = 0;
	size_t out = 0;
	const char *p;

	fflush(c->f);
	for (p = c->buf + c->pos; p < c->buf + c->len;) {
		const char *nl = memchr(p, '\n', (size_t)(c->buf + c->len - p));
		size_t l = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(c->buf + c->len - p);

		if ((prefix != NULL && strncmp(p, prefix, strlen(prefix)) == 0) ||
		    (prefix == NULL && (strncmp(p, "mdevx_share: ", 13) == 0 ||
					strncmp(p, "mdevx: ", 7) == 0))) {
			n++;
			if (out + l < sizeof(c->text)) {
				memcpy(c->text + out, p, l);
				out += l;
			}
		}
		p += l;
	}
	c->text[out] = '\0';
	c->pos = c->len;
	return n;
}

/*
 * Exactly one line (of @p prefix, or of both libraries with NULL) since
 * the last take, holding each of @p n1, @p n2, @p n3 (NULL: none). NULL,
 * or why not (the text is printed).
 */
const char *
log_cap_once(struct log_cap *c, const char *prefix, const char *n1, const char *n2,
	     const char *n3)
{
	unsigned int n = log_cap_take(c, prefix);
	const char *why = NULL;

	if (n != 1)
		why = n == 0 ? "no line logged" : "more than one line logged";
	else if ((n1 != NULL && strstr(c->text, n1) == NULL) ||
		 (n2 != NULL && strstr(c->text, n2) == NULL) ||
		 (n3 != NULL && strstr(c->text, n3) == NULL))
		why = "the line does not name the object and the reason";
	if (why != NULL)
		printf("log: %s (want %s / %s / %s):\n%s", why, n1 != NULL ? n1 : "-",
		       n2 != NULL ? n2 : "-", n3 != NULL ? n3 : "-", c->text);
	return why;
}

void
test_udp_mask_value(uint8_t *mask, uint8_t *value, uint16_t port)
{
	struct mdevx_match m;

	if (mdevx_match_init(&m) != 0 ||
	    mdevx_match_set(&m, MDEVX_MATCH_IP_PROTOCOL, IPPROTO_UDP, 0xff) != 0 ||
	    mdevx_match_set(&m, MDEVX_MATCH_UDP_DPORT, port, 0xffff) != 0)
		printf("test_udp_mask_value: %s\n", strerror(errno));
	memcpy(mask, m.mask, MDEVX_MATCH_PARAM_LEN);
	memcpy(value, m.value, MDEVX_MATCH_PARAM_LEN);
}

struct mdevx_matcher *
test_udp_matcher(struct mdevx_ctx *ctx, uint16_t prio)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_matcher_attr ma = {
		.priority = prio, .match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask, .mask_len = sizeof(mask),
	};

	test_udp_mask_value(mask, value, 0);
	return mdevx_matcher_create(ctx, &ma);
}

mdevx_share_rule_t
test_udp_rule(struct mdevx_share_dev *dev, struct mdevx_matcher *m, uint16_t port,
	      mdevx_share_imp_t tir, mdevx_share_imp_t cnt)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_share_rule_attr ra;

	test_udp_mask_value(mask, value, port);
	memset(&ra, 0, sizeof(ra));
	ra.value = value;
	ra.value_len = sizeof(value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	ra.counter_imp = cnt;
	return mdevx_share_rule_create(dev, m, &ra);
}

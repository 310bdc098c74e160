/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The bottom of libmdevx_share: the log type, the list of the process's
 * devices and its locks, the handles the application holds, and the
 * checks of a device or device string a public call is given. Every
 * other file of the library uses these; this one uses none of theirs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_log.h>

#include "mdevx_share.h"
#include "mdevx_share_private.h"
RTE_LOG_REGISTER(mdevx_share_logtype, pmd.common.mdevx.share, NOTICE);

struct mdevx_share_devs_head share_devs = TAILQ_HEAD_INITIALIZER(share_devs);
/* Secondary: orphaned devices a new attach replaced; they wait for their close. */
struct mdevx_share_devs_head share_orphan_devs = TAILQ_HEAD_INITIALIZER(share_orphan_devs);
/*
 * share_devs_lock guards the device list and mp_registered. The IPC handler
 * takes it, so it is only held for list operations, never across device
 * commands, memzone calls or rte_mp requests: those need the EAL IPC thread
 * (the answer to our own attach request, the memory hotplug sync of a
 * memzone reservation), which would be waiting for the lock.
 * share_open_lock serialises open, attach and close (outer lock).
 */
pthread_mutex_t share_devs_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t share_open_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * Secondary: the device an attach is making, before it is on share_devs
 * (share_devs_lock; one at a time, under share_open_lock). The handler
 * marks it orphaned when the primary closes meanwhile.
 */
struct mdevx_share_dev *share_attaching;

/*
 * Handles the application holds: every device from its open or attach to
 * its close. A call with any other pointer (one closed already, say) gives
 * ENOENT without reading it. Read without a lock on the import path; a
 * close racing a call on the same device is the application's bug.
 */
static struct mdevx_share_dev *live_devs[MAX_DEVS];

static bool
dev_live(const struct mdevx_share_dev *dev)
{
	if (dev == NULL)
		return false;
	for (unsigned int i = 0; i < MAX_DEVS; i++)
		if (__atomic_load_n(&live_devs[i], __ATOMIC_ACQUIRE) == dev)
			return true;
	return false;
}

/* share_open_lock held. 0 or ENOSPC. */
int
share_dev_live_add(struct mdevx_share_dev *dev)
{
	for (unsigned int i = 0; i < MAX_DEVS; i++) {
		if (live_devs[i] == NULL) {
			__atomic_store_n(&live_devs[i], dev, __ATOMIC_RELEASE);
			return 0;
		}
	}
	SHARE_LOG(ERR, "%s: %u devices open in this process already", dev->devstr, MAX_DEVS);
	return ENOSPC;
}

/* share_open_lock held. */
void
share_dev_live_del(const struct mdevx_share_dev *dev)
{
	for (unsigned int i = 0; i < MAX_DEVS; i++)
		if (live_devs[i] == dev)
			__atomic_store_n(&live_devs[i], NULL, __ATOMIC_RELEASE);
}

struct mdevx_share_dev *
share_find_dev_locked(const char *devstr)
{
	struct mdevx_share_dev *dev;

	TAILQ_FOREACH(dev, &share_devs, next)
		if (strcmp(dev->devstr, devstr) == 0)
			return dev;
	return NULL;
}

/*
 * The open device of a withdrawal notification: its string and instance
 * both, or the one being attached (whose instance is not known before the
 * primary's answer).
 */
struct mdevx_share_dev *
share_find_instance_locked(const char *devstr, uint64_t cookie)
{
	struct mdevx_share_dev *dev = share_find_dev_locked(devstr);

	if (dev != NULL && dev->cookie == cookie)
		return dev;
	if (share_attaching != NULL && strcmp(share_attaching->devstr, devstr) == 0 &&
	    (share_attaching->cookie == 0 || share_attaching->cookie == cookie))
		return share_attaching;
	return NULL;
}

int
share_check_devstr(const char *devstr)
{
	if (devstr == NULL || devstr[0] == '\0')
		return EINVAL;
	if (strnlen(devstr, DEVSTR_MAX) >= DEVSTR_MAX)
		return ENAMETOOLONG;
	return 0;
}

int
share_check_devstr_log(const char *devstr, const char *fn)
{
	int err = share_check_devstr(devstr);

	if (err == EINVAL)
		SHARE_LOG(ERR, "%s(): device string %s", fn, devstr == NULL ? "NULL" : "empty");
	else if (err == ENAMETOOLONG)
		SHARE_LOG(ERR, "%s(): device string of %zu bytes or more, longer than %d",
			  fn, (size_t)DEVSTR_MAX, DEVSTR_MAX - 1);
	return err;
}

/* 0, EINVAL (NULL) or ENOENT (not an open device: closed already, say). */
int
share_check_dev(const struct mdevx_share_dev *dev)
{
	if (dev == NULL)
		return EINVAL;
	return dev_live(dev) ? 0 : ENOENT;
}

int
share_check_dev_log(const struct mdevx_share_dev *dev, const char *fn)
{
	int err = share_check_dev(dev);

	/* By pointer only: a device that is not open must not be read. */
	if (err == EINVAL)
		SHARE_LOG(ERR, "%s(): NULL device", fn);
	else if (err != 0)
		SHARE_LOG(ERR, "%s(): device %p is not open (closed already?)", fn,
			  (const void *)dev);
	return err;
}

void
share_devstr_list(char *buf, size_t len, const char (*list)[DEVSTR_MAX], uint32_t n,
		  uint32_t total)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : ", ", list[i]);

		used += w > 0 ? (size_t)w : 0;
	}
	if (used >= len || n < total)
		snprintf(buf + RTE_MIN(used, len - 5), 5, " ...");
}

void
share_devs_describe_locked(char *buf, size_t len)
{
	char devs[8][DEVSTR_MAX];
	struct mdevx_share_dev *dev;
	uint32_t n = 0;

	TAILQ_FOREACH(dev, &share_devs, next) {
		if (!dev->primary)
			continue;
		if (n < RTE_DIM(devs))
			memcpy(devs[n], dev->devstr, DEVSTR_MAX);
		n++;
	}
	if (n == 0)
		snprintf(buf, len, "none");
	else
		share_devstr_list(buf, len, (const char (*)[DEVSTR_MAX])devs,
				  RTE_MIN(n, (uint32_t)RTE_DIM(devs)), n);
}

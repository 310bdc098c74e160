/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The secondary's attach: the ATTACH request to the primary over rte_mp,
 * the two descriptors of its reply (the command descriptor and our
 * connection), the registry's memzone, the handshake, the import of the
 * device context. The device list, open and close are in
 * mdevx_share_dev.c. See mdevx_share.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"
#include "mdevx_share_snap.h"

#ifdef MDEVX_SHARE_TEST_HOOKS
static void (*test_attach_hook)(void *arg);
static void *test_attach_arg;

void
mdevx_share_test_attach_hook(void (*fn)(void *arg), void *arg)
{
	test_attach_arg = arg;
	test_attach_hook = fn;
}
#endif

struct mdevx_share_dev *
mdevx_share_dev_attach(const char *devstr)
{
	struct timespec ts = { .tv_sec = ATTACH_TIMEOUT_S, .tv_nsec = 0 };
	struct mdevx_share_dev *dev;
	struct rte_mp_msg req;
	struct mp_msg p_buf, *p = &p_buf, r_buf;
	struct rte_mp_reply reply;
	const struct mp_msg *r = &r_buf;
	uint64_t t0 = now_ms(), elapsed;
	int err, fd = -1, conn = -1;

	err = share_check_devstr_log(devstr, __func__);
	if (err != 0)
		goto err_out;
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		err = EPERM;
		SHARE_LOG(ERR, "%s: mdevx_share_dev_attach() in the primary: only a secondary "
			  "attaches; the primary calls mdevx_share_dev_open()", devstr);
		goto err_out;
	}
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	dev = share_find_dev_locked(devstr);
	/*
	 * orphan is set by the handler under share_devs_lock too. A closed
	 * registry (the primary closed without our acknowledgement; it keeps
	 * the memzone, so reading its flag is safe) counts the same.
	 */
	if (dev != NULL && (dev->orphan || mdevx_share_reg_is_closed(dev->reg))) {
		/* The primary closed it: keep it for its close, attach anew. */
		TAILQ_REMOVE(&share_devs, dev, next);
		TAILQ_INSERT_TAIL(&share_orphan_devs, dev, next);
		dev = NULL;
	}
	if (dev != NULL) {
		dev->refcnt++;
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		return dev;
	}
	pthread_mutex_unlock(&share_devs_lock);
	dev = share_dev_new(devstr);
	if (dev == NULL) {
		err = ENOMEM;
		SHARE_LOG(ERR, "%s: attach: out of memory", devstr);
		goto err_unlock;
	}
	pthread_mutex_lock(&share_devs_lock);
	err = -share_mp_get();
	if (err == 0)
		share_attaching = dev;
	pthread_mutex_unlock(&share_devs_lock);
	if (err != 0)
		goto err_free;

	share_mp_msg_init(p, MP_OP_ATTACH, devstr, 0);
	share_mp_msg_pack(&req, MP_ACTION, p);
	memset(&reply, 0, sizeof(reply));
	if (rte_mp_request_sync(&req, &reply, &ts) != 0) {
		err = rte_errno != 0 ? rte_errno : EIO;
		SHARE_LOG(ERR, "%s: attach request to the primary failed: %s", devstr,
			  rte_strerror(err));
		goto err_free;
	}
	if (reply.nb_received != 1) {
		err = ETIMEDOUT;
		SHARE_LOG(ERR, "%s: the primary did not answer within %d s", devstr,
			  ATTACH_TIMEOUT_S);
		free(reply.msgs);
		goto err_free;
	}
	/* A late answer to an earlier attach (another device) is no answer. */
	if (share_mp_msg_unpack(&reply.msgs[0], &r_buf) != 0 || r->hdr.op != MP_OP_ATTACH ||
	    r->hdr.role != MP_ROLE_PRIMARY || strcmp(r->hdr.devstr, devstr) != 0) {
		err = EPROTO;
	} else if (r->hdr.status != 0) {
		err = -r->hdr.status;
	} else if (reply.msgs[0].num_fds != 2) {
		err = EPROTO;
	} else {
		/* the command descriptor, and our connection to the primary */
		fd = reply.msgs[0].fds[0];
		conn = reply.msgs[0].fds[1];
		/* received without close-on-exec, as EAL receives */
		if (fcntl(conn, F_SETFD, FD_CLOEXEC) != 0)
			err = errno;
		dev->mz = err == 0 ? rte_memzone_lookup(r->attach.mz_name) : NULL;
		if (err == 0 && dev->mz == NULL)
			err = ENOENT;
	}
	/* the handler compares the cookie (share_find_instance_locked()), sends on conn */
	if (err == 0)
		share_conn_attached(dev, conn, r->hdr.cookie);
	for (int i = 0; err != 0 && i < reply.msgs[0].num_fds; i++)
		close(reply.msgs[0].fds[i]);
	free(reply.msgs);
	if (err == ENODEV) {
		/* the primary shares no device of that string */
		share_attach_refused_log(devstr);
		goto err_free;
	}
	if (err != 0) {
		SHARE_LOG(ERR, "%s: attach refused: %s", devstr, strerror(err));
		goto err_free;
	}
	/* Counted by the primary before anything of the device is read; within the bound. */
	elapsed = now_ms() - t0;
	err = share_send_hello(dev, elapsed >= ATTACH_TIMEOUT_S * 1000u ? 0 :
			 RTE_MIN(HANDSHAKE_MS, ATTACH_TIMEOUT_S * 1000u - (unsigned int)elapsed));
	if (err != 0) {
		close(fd);
		SHARE_LOG(ERR, "%s: the primary did not complete the attach: %s", devstr,
			  strerror(err));
		goto err_free;
	}
	SHARE_TEST_HOOK(test_attach_hook, test_attach_arg);
	/*
	 * The primary may have closed the device since it answered: once our
	 * handler acknowledged that, the memzone is freed. The registry is
	 * read under the import lock, which the handler takes to mark the
	 * device orphaned, as every later read of it is.
	 */
	mdevx_share_lock_read(&dev->lock);
	if (dev->orphan) {
		err = ENODEV;
	} else {
		dev->reg = mdevx_share_reg_attach(dev->mz->addr, dev->mz->len);
		if (dev->reg == NULL)
			err = errno == ENOMEM ? ENOMEM : EPROTO;
		else if (mdevx_share_reg_cookie(dev->reg) != dev->cookie)
			err = EPROTO;
	}
	if (err == 0) {
		struct mdevx_share_snap_geo geo = {
			.period_ms = r->attach.period_ms, .counters = r->attach.counters,
			.nb_slots = r->attach.nb_slots, .primary_pid = (pid_t)r->attach.primary_pid,
		};
		int serr = share_snap_attach(&dev->snap, dev->mz->name, &geo);

		/* The device works without: reads of the snapshot give ENODATA. */
		if (serr != 0)
			SHARE_LOG(WARNING, "%s: counter snapshot not mapped: %s", devstr,
				  strerror(serr));
	}
	mdevx_share_unlock_read(&dev->lock);
	if (err != 0) {
		close(fd);
		if (err == ENODEV)
			SHARE_LOG(ERR, "%s: the primary closed the device during the attach",
				  devstr);
		else
			SHARE_LOG(ERR, "%s: registry %s is not the device's", devstr,
				  dev->mz->name);
		goto err_free;
	}
	dev->ctx = mdevx_import_device(devstr, fd);
	if (dev->ctx == NULL) {
		err = errno;
		close(fd);
		SHARE_LOG(ERR, "%s: importing the device context failed: %s", devstr,
			  strerror(err));
		goto err_free;
	}
	if (mdevx_export_size(dev->ctx, &dev->export_size) != 0) {
		err = ENOTSUP;
		SHARE_LOG(ERR, "%s: attach: the imported context cannot export objects", devstr);
		mdevx_close(dev->ctx);
		goto err_free;
	}
	err = share_dev_live_add(dev);
	pthread_mutex_lock(&share_devs_lock);
	share_attaching = NULL;
	if (err == 0 && dev->orphan)
		err = ENODEV;
	if (err == 0)
		TAILQ_INSERT_TAIL(&share_devs, dev, next);
	pthread_mutex_unlock(&share_devs_lock);
	if (err == ENODEV)
		share_dev_live_del(dev);
	if (err != 0) {
		if (err == ENODEV)
			SHARE_LOG(ERR, "%s: the primary closed the device during the attach",
				  devstr);
		mdevx_close(dev->ctx);
		goto err_free;
	}
	pthread_mutex_unlock(&share_open_lock);
	SHARE_LOG(INFO, "%s: attached, cookie %#" PRIx64, devstr, dev->cookie);
	return dev;

err_free:
	pthread_mutex_lock(&share_devs_lock);
	if (share_attaching == dev)
		share_attaching = NULL;
	pthread_mutex_unlock(&share_devs_lock);
	share_dev_free(dev);
err_unlock:
	pthread_mutex_unlock(&share_open_lock);
err_out:
	mdevx_set_errno(err);
	return NULL;
}

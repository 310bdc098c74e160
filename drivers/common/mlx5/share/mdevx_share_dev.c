/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Shared devices: open (primary), close, and the exit handler that
 * closes what a primary left open. The secondary's attach is in
 * mdevx_share_attach.c, the list of the process's devices in
 * mdevx_share_list.c. See mdevx_share.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/random.h>
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

#define DEFAULT_CAPACITY 4096
#define DEFAULT_WITHDRAW_TIMEOUT_MS 2000
#define NOTIFY_SLACK_S 2		/* a withdraw waits its bound and this more */
#define EXIT_MARGIN_MS 1000		/* exit handler: beyond the withdraw waits */
#define SNAP_COUNTERS_MAX (1u << 26)	/* counter snapshot: 1 GiB of values */

static unsigned int open_count;		/* opens, in memzone names (share_open_lock) */
static pid_t exit_pid;			/* registered share_exit(); 0 before (share_open_lock) */
#ifdef MDEVX_SHARE_TEST_HOOKS
static void (*test_close_hook)(void *arg);
static void *test_close_arg;
#endif

/* For memzone names only (with the open counter): not an identity. */
static uint32_t
devstr_key(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0') {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

/* The list @p dev is on (share_devs or share_orphan_devs), or NULL. */
static struct mdevx_share_devs_head *
dev_list_locked(const struct mdevx_share_dev *dev)
{
	const struct mdevx_share_dev *d;

	TAILQ_FOREACH(d, &share_devs, next)
		if (d == dev)
			return &share_devs;
	TAILQ_FOREACH(d, &share_orphan_devs, next)
		if (d == dev)
			return &share_orphan_devs;
	return NULL;
}

#ifdef MDEVX_SHARE_TEST_HOOKS
void
mdevx_share_test_close_hook(void (*fn)(void *arg), void *arg)
{
	test_close_arg = arg;
	test_close_hook = fn;
}
#endif

/* ---------------------------------------------------------------- */
/* Devices                                                           */
/* ---------------------------------------------------------------- */

struct mdevx_share_dev *
share_dev_new(const char *devstr)
{
	struct mdevx_share_dev *dev = calloc(1, sizeof(*dev));

	if (dev == NULL)
		return NULL;
	snprintf(dev->devstr, sizeof(dev->devstr), "%s", devstr);
	dev->refcnt = 1;
	pthread_mutex_init(&dev->wlock, NULL);
	pthread_mutex_init(&dev->rules_lock, NULL);
	pthread_mutex_init(&dev->conn_lock, NULL);
	pthread_mutex_init(&dev->reap_lock, NULL);
	dev->conn_fd = -1;
	/* Arrival order: a notification never starves behind imports or queries. */
	mdevx_share_lock_init(&dev->lock);
	return dev;
}

void
share_dev_free(struct mdevx_share_dev *dev)
{
	for (uint32_t c = 0; c < IMP_MAX_CHUNKS && dev->chunks[c] != NULL; c++)
		free(dev->chunks[c]);
	free(dev->owned);
	free(dev->owned_set);
	share_snap_free(dev->snap, false);
	mdevx_share_reg_free(dev->reg);
	pthread_mutex_destroy(&dev->wlock);
	pthread_mutex_destroy(&dev->rules_lock);
	/*
	 * Off every list: a handler that found the device before sends under
	 * conn_lock, and no new one can find it. Its send ends first.
	 */
	pthread_mutex_lock(&dev->conn_lock);
	if (dev->conn_fd >= 0)
		close(dev->conn_fd);
	dev->conn_fd = -1;
	pthread_mutex_unlock(&dev->conn_lock);
	pthread_mutex_destroy(&dev->conn_lock);
	pthread_mutex_destroy(&dev->reap_lock);
	free(dev->prule_buckets);
	free(dev->rules);
	free(dev->prules);
	free(dev);
}

static void share_exit(void);

/* Primary: the counter snapshot service of the open configuration. 0 or errno (logged). */
static int
snap_start(struct mdevx_share_dev *dev, const struct mdevx_share_conf *conf)
{
	struct mdevx_share_snap_geo geo = {
		.period_ms = MDEVX_SHARE_COUNTER_PERIOD_DEFAULT,
		.nb_slots = mdevx_share_reg_capacity(dev->reg),
		.primary_pid = getpid(),
	};
	int err;

	/* Sized by the registry: a small one reserves little hugepage memory. */
	geo.counters = (uint32_t)RTE_MIN((uint64_t)geo.nb_slots * MDEVX_SHARE_SNAPSHOT_PER_RECORD,
					 (uint64_t)MDEVX_SHARE_SNAPSHOT_DEFAULT);

	if (conf != NULL) {
		if (conf->counter_period_ms == MDEVX_SHARE_COUNTER_PERIOD_OFF)
			geo.period_ms = 0;	/* the service's "off" */
		else if (conf->counter_period_ms != 0)
			geo.period_ms = conf->counter_period_ms;
		if (conf->snapshot_counters != 0)
			geo.counters = conf->snapshot_counters;
	}
	if (geo.counters > SNAP_COUNTERS_MAX) {
		SHARE_LOG(ERR, "%s: snapshot_counters %u: more than the %u allowed",
			  dev->devstr, geo.counters, (unsigned int)SNAP_COUNTERS_MAX);
		return EINVAL;
	}
	if (geo.period_ms == 0)
		SHARE_LOG(NOTICE, "%s: counter snapshot service off (counter_period_ms "
			  "MDEVX_SHARE_COUNTER_PERIOD_OFF): counter reads are ENODATA",
			  dev->devstr);
	if (geo.period_ms != 0)
		SHARE_LOG(INFO, "%s: counter snapshot every %u ms, an area of %u counters "
			  "(%u KiB)", dev->devstr, geo.period_ms, geo.counters,
			  (unsigned int)((uint64_t)geo.counters * 16 / 1024));
	err = share_snap_open(&dev->snap, dev->devstr, dev->mz->name, dev->ctx, &geo);
	if (err != 0) {
		SHARE_LOG(ERR, "%s: open: counter snapshot service not started: %s",
			  dev->devstr, strerror(err));
		return err;
	}
	/* its rounds repair the registry's header too */
	share_snap_watch_reg(dev->snap, dev->reg);
	return 0;
}

struct mdevx_share_dev *
mdevx_share_dev_open(const char *devstr, const struct mdevx_share_conf *conf)
{
	uint32_t capacity = DEFAULT_CAPACITY;
	struct mdevx_share_dev *dev = NULL;
	char mz_name[RTE_MEMZONE_NAMESIZE];
	size_t len;
	int err;

	err = share_check_devstr_log(devstr, __func__);
	if (err != 0)
		goto err_out;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		err = EPERM;
		SHARE_LOG(ERR, "%s: mdevx_share_dev_open() in a secondary: only the primary "
			  "opens a device; a secondary calls mdevx_share_dev_attach()", devstr);
		goto err_out;
	}
	if (conf != NULL && conf->capacity != 0)
		capacity = conf->capacity;
	len = mdevx_share_reg_size(capacity);
	if (len == 0) {
		err = EINVAL;
		SHARE_LOG(ERR, "%s: open: capacity of %u records refused (at most %u)", devstr,
			  capacity, MDEVX_SHARE_CAPACITY_MAX);
		goto err_out;
	}
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	dev = share_find_dev_locked(devstr);
	pthread_mutex_unlock(&share_devs_lock);
	if (dev != NULL) {
		dev = NULL;
		err = EEXIST;
		SHARE_LOG(ERR, "%s: open: already open in this process", devstr);
		goto err_unlock;
	}
	dev = share_dev_new(devstr);
	if (dev == NULL) {
		err = ENOMEM;
		SHARE_LOG(ERR, "%s: open: out of memory", devstr);
		goto err_unlock;
	}
	dev->primary = true;
	dev->withdraw_timeout_ms = conf != NULL && conf->withdraw_timeout_ms != 0 ?
				   conf->withdraw_timeout_ms : DEFAULT_WITHDRAW_TIMEOUT_MS;
	dev->owned = calloc(capacity, sizeof(*dev->owned));
	for (dev->owned_mask = 1; dev->owned_mask < 2 * capacity; dev->owned_mask <<= 1)
		;
	dev->owned_set = calloc(dev->owned_mask, sizeof(*dev->owned_set));
	dev->owned_mask--;
	if (dev->owned == NULL || dev->owned_set == NULL) {
		err = ENOMEM;
		SHARE_LOG(ERR, "%s: open: out of memory for %u records", devstr, capacity);
		goto err_unlock;
	}
	do {
		if (getrandom(&dev->cookie, sizeof(dev->cookie), 0) != sizeof(dev->cookie)) {
			err = errno;
			SHARE_LOG(ERR, "%s: open: no instance cookie: getrandom(): %s", devstr,
				  strerror(err));
			goto err_unlock;
		}
	} while (dev->cookie == 0);
	dev->ctx = mdevx_open(devstr);
	if (dev->ctx == NULL) {
		err = errno;
		SHARE_LOG(ERR, "cannot open %s: %s", devstr, strerror(err));
		goto err_unlock;
	}
	if (mdevx_export_size(dev->ctx, &dev->export_size) != 0 ||
	    dev->export_size > MDEVX_SHARE_EXPORT_MAX) {
		err = ENOTSUP;
		SHARE_LOG(ERR, "%s: export buffer of %zu bytes does not fit a record (%d)",
			  devstr, dev->export_size, MDEVX_SHARE_EXPORT_MAX);
		goto err_close;
	}
	/* The open counter: a registry kept after a close keeps its name. */
	snprintf(mz_name, sizeof(mz_name), "mdevx_sh_%08x_%u", devstr_key(devstr), ++open_count);
	dev->mz = rte_memzone_reserve_aligned(mz_name, len, SOCKET_ID_ANY, 0, 64);
	if (dev->mz == NULL) {
		err = rte_errno;
		SHARE_LOG(ERR, "%s: cannot reserve memzone %s of %zu bytes: %s", devstr,
			  mz_name, len, rte_strerror(err));
		goto err_close;
	}
	dev->reg = mdevx_share_reg_init(dev->mz->addr, dev->mz->len, capacity, dev->cookie);
	if (dev->reg == NULL) {
		err = errno;
		SHARE_LOG(ERR, "%s: open: registry of %u records not made: %s", devstr, capacity,
			  strerror(err));
		goto err_mz;
	}
	dev->reg_len = dev->mz->len;
	err = snap_start(dev, conf);
	if (err != 0)
		goto err_reg;
	if (exit_pid == 0) {
		exit_pid = getpid();
		if (atexit(share_exit) != 0) {
			exit_pid = 0;
			SHARE_LOG(WARNING, "atexit() failed: close the devices before exit");
		}
	}
	err = share_dev_live_add(dev);
	if (err != 0)
		goto err_reg;
	pthread_mutex_lock(&share_devs_lock);
	err = -share_mp_get();
	pthread_mutex_unlock(&share_devs_lock);
	if (err == 0) {
		err = share_peers_start();
		if (err != 0)
			SHARE_LOG(ERR, "%s: open: no reader of the secondaries' connections: %s",
				  devstr, strerror(err));
	}
	if (err == 0) {
		pthread_mutex_lock(&share_devs_lock);
		TAILQ_INSERT_TAIL(&share_devs, dev, next);
		pthread_mutex_unlock(&share_devs_lock);
	}
	if (err != 0) {
		share_dev_live_del(dev);
		goto err_reg;
	}
	pthread_mutex_unlock(&share_open_lock);
	/*
	 * Without hugepages EAL keeps its memory, the registry's memzone
	 * too, private to this process: secondaries cannot attach. Not
	 * refused: a process may share with itself (the install test's
	 * client does).
	 */
	if (!rte_eal_has_hugepages())
		SHARE_LOG(WARNING, "%s: EAL runs with --no-huge: the registry is in private "
			  "memory and no secondary can attach; sharing within this process "
			  "only", devstr);
	SHARE_LOG(INFO, "%s: sharing with %u records in %s, cookie %#" PRIx64, devstr,
		  capacity, mz_name, dev->cookie);
	return dev;

err_reg:
	share_snap_free(dev->snap, true);
	dev->snap = NULL;
	mdevx_share_reg_free(dev->reg);
	dev->reg = NULL;
err_mz:
	rte_memzone_free(dev->mz);
err_close:
	mdevx_close(dev->ctx);
err_unlock:
	pthread_mutex_unlock(&share_open_lock);
	if (dev != NULL)
		share_dev_free(dev);
err_out:
	mdevx_set_errno(err);
	return NULL;
}

/*
 * A close that could not finish (share_open_lock held, the device off its
 * list): the device stays open for another try. A secondary's comes back
 * orphaned: the primary may have closed meanwhile, and counted its
 * acknowledgement (a WITHDRAW_ALL finds no device off the list), so its
 * registry must not be read again.
 */
static int
close_abort(struct mdevx_share_dev *dev, int ret, bool logged)
{
	if (!dev->primary) {
		mdevx_share_lock_write(&dev->lock);
		dev->orphan = true;
		mdevx_share_unlock_write(&dev->lock);
	}
	pthread_mutex_lock(&share_devs_lock);
	dev->refcnt = 1;
	TAILQ_INSERT_TAIL(dev->orphan ? &share_orphan_devs : &share_devs, dev, next);
	pthread_mutex_unlock(&share_devs_lock);
	(void)share_dev_live_add(dev);	/* its slot was freed by this close: there is room */
	pthread_mutex_unlock(&share_open_lock);
	if (!logged)
		SHARE_LOG(ERR, "%s: close failed: %s; the device stays open, close it again",
			  dev->devstr, strerror(-ret));
	return mdevx_ret(-ret);
}

/*
 * Wrappers of ours on the device's context: published objects and those
 * mdevx_share_import_obj() made.
 */
static uint32_t
own_wrappers(const struct mdevx_share_dev *dev)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_slots; i++)
		n += slot_at(dev, i)->obj != NULL;
	for (uint32_t i = 0; dev->primary && i < mdevx_share_reg_capacity(dev->reg); i++)
		n += dev->owned[i] != NULL;
	return n + __atomic_load_n(&dev->nb_rules, __ATOMIC_RELAXED);
}

/* Objects of the application on the device's context: all of it, less ours. */
static uint32_t
app_objs(struct mdevx_share_dev *dev)
{
	uint32_t own;
	int n;

	mdevx_share_lock_read(&dev->lock);
	n = mdevx_ctx_nb_objs(dev->ctx);
	own = n > 0 ? own_wrappers(dev) : 0;
	mdevx_share_unlock_read(&dev->lock);
	return n > 0 && (uint32_t)n > own ? (uint32_t)n - own : 0;
}

int
mdevx_share_dev_close(struct mdevx_share_dev *dev)
{
	struct mdevx_share_devs_head *list;
	bool all_acked = true;
	uint32_t app;
	int ret = 0;

	if (dev == NULL) {
		SHARE_LOG(ERR, "mdevx_share_dev_close(): NULL device");
		return mdevx_ret(EINVAL);
	}
	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	/* By pointer: a device closed already must not be read. */
	list = dev_list_locked(dev);
	if (list == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		SHARE_LOG(ERR, "mdevx_share_dev_close(): device %p is not open (closed "
			  "already?)", (const void *)dev);
		return mdevx_ret(ENOENT);
	}
	if (dev->refcnt > 1) {
		dev->refcnt--;
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		return 0;
	}
	/*
	 * Objects of the application on a secondary's context would keep it
	 * from closing: refuse before anything changes, imports intact. The
	 * primary withdraws first (its records use the application's
	 * queues) and counts them after.
	 */
	app = dev->primary ? 0 : app_objs(dev);
	if (app > 0) {
		pthread_mutex_unlock(&share_devs_lock);
		pthread_mutex_unlock(&share_open_lock);
		SHARE_LOG(ERR, "%s: %u objects of the application are still on the device's "
			  "context: not closing", dev->devstr, app);
		return mdevx_ret(EBUSY);
	}
	share_dev_live_del(dev);
	dev->refcnt = 0;
	TAILQ_REMOVE(list, dev, next);
	pthread_mutex_unlock(&share_devs_lock);

	mdevx_share_lock_write(&dev->lock);
	share_rules_drop(dev, UINT32_MAX, 0, NULL, RULE_MSG_TRIES);
	share_unimport_record(dev, UINT32_MAX, 0);
	for (uint32_t i = 0; i < dev->nb_slots; i++) {
		struct imp_slot *s = slot_at(dev, i);

		if (s->state == IMP_FREE)
			continue;
		/* Revoked above: no call uses the wrapper any more, it cannot be busy. */
		share_slot_drop_wrapper(s);
		share_slot_free(dev, s, i);
	}
	mdevx_share_unlock_write(&dev->lock);
	if (!dev->primary && !dev->orphan)
		share_send_detach(dev);
	if (dev->primary) {
		/* Off the list: the reader's removal of rules in progress on it ends first. */
		pthread_mutex_lock(&dev->reap_lock);
		pthread_mutex_unlock(&dev->reap_lock);
		pthread_mutex_lock(&dev->wlock);
		ret = share_primary_withdraw_all(dev, &all_acked);
		pthread_mutex_unlock(&dev->wlock);
		if (ret != 0)
			return close_abort(dev, ret, false);
		app = app_objs(dev);
		if (app > 0) {
			/* The documented step before the queues of a published TIR go. */
			SHARE_LOG(NOTICE, "%s: every record withdrawn, but the application still "
				  "has %u object%s on the device's context (a published TIR's "
				  "queues?): destroy them, then close again", dev->devstr, app,
				  app == 1 ? "" : "s");
			return close_abort(dev, -EBUSY, true);
		}
	}
	SHARE_TEST_HOOK(test_close_hook, test_close_arg);
	if (mdevx_close(dev->ctx) != 0) {
		ret = -errno;
		/* An object made meanwhile by another thread: try again later. */
		if (ret == -EBUSY)
			return close_abort(dev, ret, false);
		/*
		 * Anything else means the context is gone already (closed with
		 * mdevx_close() behind the device, or freed after its backend
		 * failed to close): finish, and say so.
		 */
		SHARE_LOG(ERR, "%s: the device's context could not be closed (%s): "
			  "closing the device all the same", dev->devstr, strerror(-ret));
		ret = -EBADF;
	}
	if (dev->primary) {
		/*
		 * A secondary that did not acknowledge the WITHDRAW_ALL may still
		 * read the registry: rather than freeing memory under it, mark
		 * the registry closed (its reads give ENODEV) and leave the
		 * memzone to the end of the instance. The next open of the
		 * device reserves a memzone of another name.
		 */
		share_snap_free(dev->snap, all_acked);
		dev->snap = NULL;
		if (all_acked) {
			rte_memzone_free(dev->mz);
		} else {
			mdevx_share_reg_close(dev->reg);
			SHARE_LOG(WARNING, "%s: not every secondary acknowledged the close: "
				  "memzone %s kept (closed) until the instance ends", dev->devstr,
				  dev->mz->name);
		}
	}
	if (dev->primary)
		share_peers_release(dev);
	pthread_mutex_unlock(&share_open_lock);
	share_dev_free(dev);
	return ret == 0 ? 0 : mdevx_ret(-ret);
}

/*
 * Is @p p in mapped memory? rte_eal_cleanup() unmaps the hugepage memory
 * (memzones included): a registry that is not mapped any more means EAL is
 * gone, its IPC with it.
 */
static bool
region_mapped(const void *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;

	if (pg <= 0)
		return false;
	return mincore((void *)((uintptr_t)p & ~(uintptr_t)(pg - 1)), 1, &vec) == 0;
}

/*
 * Exit with a close refused (objects of the application still on the
 * context, a destroy error): withdraw everything all the same (secondaries
 * told, objects destroyed) and close the registry. The context goes with
 * the process. Only for a device still open (found by pointer, not read).
 */
static void
exit_withdraw(struct mdevx_share_dev *dev)
{
	bool all_acked = true, open;
	int ret;

	pthread_mutex_lock(&share_open_lock);
	pthread_mutex_lock(&share_devs_lock);
	open = dev_list_locked(dev) == &share_devs;
	pthread_mutex_unlock(&share_devs_lock);
	if (!open) {
		pthread_mutex_unlock(&share_open_lock);
		return;
	}
	mdevx_share_lock_write(&dev->lock);
	share_rules_drop(dev, UINT32_MAX, 0, NULL, 0);
	share_unimport_record(dev, UINT32_MAX, 0);
	mdevx_share_unlock_write(&dev->lock);
	pthread_mutex_lock(&dev->wlock);
	ret = share_primary_withdraw_all(dev, &all_acked);
	pthread_mutex_unlock(&dev->wlock);
	mdevx_share_reg_close(dev->reg);
	pthread_mutex_unlock(&share_open_lock);
	if (ret != 0 || !all_acked)
		SHARE_LOG(WARNING, "%s: withdrawal at exit: %s%s", dev->devstr,
			  ret != 0 ? strerror(-ret) : "done",
			  all_acked ? "" : ", not every secondary acknowledged");
}

/*
 * The exit handler's work: close every device the primary still has open.
 * A device is picked and checked under share_open_lock, so that no other
 * thread's close frees it meanwhile; after our own close it is only
 * looked for by pointer.
 */
static void *
exit_close_all(void *arg)
{
	RTE_SET_USED(arg);
	for (;;) {
		struct mdevx_share_dev *dev, *found = NULL;
		int ret;

		pthread_mutex_lock(&share_open_lock);
		pthread_mutex_lock(&share_devs_lock);
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (dev->primary && !dev->exit_seen) {
				found = dev;
				found->exit_seen = true;
				found->refcnt = 1;	/* every reference of the process */
				break;
			}
		}
		pthread_mutex_unlock(&share_devs_lock);
		if (found == NULL) {
			pthread_mutex_unlock(&share_open_lock);
			return NULL;
		}
		if (!region_mapped(mdevx_share_reg_base(found->reg)) ||
		    mdevx_share_reg_probe(mdevx_share_reg_base(found->reg), found->reg_len) != 0) {
			SHARE_LOG(WARNING, "%s: exit after rte_eal_cleanup() with the device open: "
				  "nothing withdrawn (call mdevx_share_dev_close() before "
				  "rte_eal_cleanup())", found->devstr);
			pthread_mutex_unlock(&share_open_lock);
			continue;
		}
		SHARE_LOG(NOTICE, "%s: exit with the device open: withdrawing everything",
			  found->devstr);
		pthread_mutex_unlock(&share_open_lock);
		ret = mdevx_share_dev_close(found);
		/* Closed, or gone (closed by another thread, or freed with EBADF). */
		if (ret == 0 || ret == -ENOENT || ret == -EBADF)
			continue;
		exit_withdraw(found);
	}
}

/*
 * At the exit of a primary (atexit(), registered by the first open): the
 * devices still open are closed as by mdevx_share_dev_close(), so that a
 * normal exit withdraws everything: secondaries are told and waited for
 * (up to the bound), the objects destroyed. After rte_eal_cleanup() there
 * is no registry and no IPC any more: nothing can be withdrawn, and the
 * secondaries keep their imports as when the primary dies; it is logged.
 *
 * The work runs in a thread of its own, waited for up to the withdraw
 * waits (two per device: the close's, and the fallback's) plus a margin:
 * an exit() made with one of our locks held by the exiting thread (from an
 * import hook, say) or a withdrawal that does not end must not hang the
 * exit. A close cut short is a primary dying: nothing is left half-done
 * for readers. (An open device implies EAL's IPC: it is refused without,
 * e.g. with --in-memory.)
 */
static void
share_exit(void)
{
	uint32_t bound_ms = EXIT_MARGIN_MS;
	struct mdevx_share_dev *dev;
	struct timespec deadline;
	bool any = true;
	pthread_t t;

	/* A child forked without exec inherits the handler, not the devices. */
	if (getpid() != exit_pid)
		return;
	if (pthread_mutex_trylock(&share_devs_lock) == 0) {
		any = false;
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (dev->primary && !dev->exit_seen) {
				any = true;
				bound_ms += 2 * (dev->withdraw_timeout_ms +
						 NOTIFY_SLACK_S * 1000);
			}
		}
		pthread_mutex_unlock(&share_devs_lock);
	} else {
		bound_ms += 2 * (DEFAULT_WITHDRAW_TIMEOUT_MS + NOTIFY_SLACK_S * 1000);
	}
	if (!any)
		return;
	if (pthread_create(&t, NULL, exit_close_all, NULL) != 0) {
		SHARE_LOG(ERR, "exit: no thread for closing the devices: exiting without");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += bound_ms / 1000;
	deadline.tv_nsec += (long)(bound_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	if (pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &deadline) != 0) {
		SHARE_LOG(ERR, "exit: closing the devices did not finish within %u ms (exit() "
			  "with a lock of ours held?): exiting without", bound_ms);
		pthread_detach(t);	/* left behind on purpose */
	}
}


struct mdevx_ctx *
mdevx_share_dev_ctx(const struct mdevx_share_dev *dev)
{
	int err = CHECK_DEV(dev);

	if (err != 0) {
		mdevx_set_errno(err);
		return NULL;
	}
	return dev->ctx;
}

uint64_t
mdevx_share_dev_cookie(const struct mdevx_share_dev *dev)
{
	int err = CHECK_DEV(dev);

	if (err != 0) {
		mdevx_set_errno(err);
		return 0;
	}
	return dev->cookie;
}

/*
 * The device's record and import counts, read under its lock: the
 * withdrawal handler changes them from EAL's IPC thread.
 */
static void
dev_counts(const struct mdevx_share_dev *dev, uint32_t *records, uint32_t *imports)
{
	mdevx_share_lock_t *lock = (mdevx_share_lock_t *)(uintptr_t)&dev->lock;

	mdevx_share_lock_read(lock);
	*records = dev->orphan ? 0 : mdevx_share_reg_count(dev->reg);
	*imports = dev->nb_live;
	mdevx_share_unlock_read(lock);
}

uint32_t
mdevx_share_record_count(const struct mdevx_share_dev *dev)
{
	uint32_t records = 0, imports;
	int err = CHECK_DEV(dev);

	if (err != 0)
		mdevx_set_errno(err);
	else
		dev_counts(dev, &records, &imports);
	return records;
}

uint32_t
mdevx_share_dev_imports(const struct mdevx_share_dev *dev)
{
	uint32_t records, imports = 0;
	int err = CHECK_DEV(dev);

	if (err != 0)
		mdevx_set_errno(err);
	else
		dev_counts(dev, &records, &imports);
	return imports;
}

#ifdef MDEVX_SHARE_TEST_HOOKS
struct mdevx_share_reg *
mdevx_share_dev_reg(struct mdevx_share_dev *dev)
{
	return share_check_dev(dev) == 0 ? dev->reg : NULL;
}
#endif

/* For telemetry: call @p fn on every device of the process. */
void
mdevx_share_foreach_dev(void (*fn)(struct mdevx_share_dev *dev, void *arg), void *arg)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	TAILQ_FOREACH(dev, &share_devs, next)
		fn(dev, arg);
	pthread_mutex_unlock(&share_devs_lock);
}

const char *
mdevx_share_dev_name(const struct mdevx_share_dev *dev)
{
	return dev->devstr;
}

int
mdevx_share_dev_is_primary(const struct mdevx_share_dev *dev)
{
	return dev->primary;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The handlers of the operations and the requests of a secondary to the
 * primary: a secondary's withdrawal notification (unimport, then
 * acknowledge), the primary's refresh requests, the secondary's log of a
 * refused attach, and the LIST and PEER requests behind
 * mdevx_share_primary_devs() and mdevx_share_peers(). The handlers are
 * registered with the transport (mdevx_share_mp.c), whose dispatcher
 * calls them, from this file's constructor.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"
#include "mdevx_share_snap.h"

#ifdef MDEVX_SHARE_TEST_HOOKS
static int test_drop_acks;			/* atomic */
static unsigned int test_ack_delay_ms;		/* atomic */
#endif

/*
 * Is @p peer the primary's IPC socket? EAL gives a handler the path its
 * request came from: the primary's is <runtime dir>/mp_socket, every
 * secondary's has a suffix of its own.
 */
static bool
peer_is_primary(const char *peer)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/mp_socket", rte_eal_get_runtime_dir());
	return peer != NULL && n > 0 && (size_t)n < sizeof(path) && strcmp(peer, path) == 0;
}

/*
 * Secondary: a withdrawal notification (one-way). Only the primary's
 * counts. Unimport, then acknowledge on our connection to the device:
 * the primary waits for the secondaries attached to the device, and
 * nobody else.
 */
static int
share_mp_withdraw(const struct mp_msg *req, const char *peer)
{
	struct mdevx_share_dev *dev;
	struct mp_msg ack;

#ifdef MDEVX_SHARE_TEST_HOOKS
	if (__atomic_load_n(&test_drop_acks, __ATOMIC_RELAXED))
		return 0;	/* test hook: a secondary whose handler never runs */
#endif
	if (!peer_is_primary(peer) || req->hdr.role != MP_ROLE_PRIMARY) {
		SHARE_LOG(WARNING, "withdrawal from %s, not the primary: ignored", peer);
		return 0;
	}
	share_mp_msg_init(&ack, MP_OP_ACK, req->hdr.devstr, req->hdr.cookie);
	pthread_mutex_lock(&share_devs_lock);
	/* nothing imported yet by one being attached: orphaned if closed */
	dev = share_find_instance_locked(req->hdr.devstr, req->hdr.cookie);
	if (dev != NULL) {
		uint32_t rec = req->hdr.op == MP_OP_WITHDRAW ? req->withdraw.rec.idx : UINT32_MAX;

		mdevx_share_lock_write(&dev->lock);
		/* Rules first: the owner destroys the object once we acknowledge. */
		share_rules_drop(dev, rec, req->withdraw.rec.gen, NULL, ACK_SEND_TRIES);
		ack.ack.unimported = share_unimport_record(dev, rec, req->withdraw.rec.gen);
		if (req->hdr.op == MP_OP_WITHDRAW_ALL)
			dev->orphan = true;
		mdevx_share_unlock_write(&dev->lock);
	}
	pthread_mutex_unlock(&share_devs_lock);
#ifdef MDEVX_SHARE_TEST_HOOKS
	unsigned int delay_ms = __atomic_load_n(&test_ack_delay_ms, __ATOMIC_RELAXED);

	if (unlikely(delay_ms != 0))
		usleep(delay_ms * 1000);	/* test hook: a slow handler */
#endif
	ack.ack.op = req->hdr.op;
	ack.ack.rec = req->withdraw.rec;
	ack.ack.seq = req->withdraw.seq;
	pthread_mutex_lock(&share_devs_lock);
	/* A device we closed closed its connection: nobody waits for us. */
	dev = share_find_instance_locked(req->hdr.devstr, req->hdr.cookie);
	if (dev == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		return 0;
	}
	/*
	 * Attaching without a connection yet: the primary does not count us
	 * before our handshake (share_conn_send_locked() sends nothing).
	 */
	pthread_mutex_lock(&dev->conn_lock);
	pthread_mutex_unlock(&share_devs_lock);
	share_conn_send_locked(dev, &ack, ACK_SEND_TRIES);
	pthread_mutex_unlock(&dev->conn_lock);
	return 0;
}

static int primary_dev_at(uint32_t idx, char *devstr, uint32_t *total);

/*
 * Secondary: the primary refused to attach @p devstr (ENODEV: it does not
 * share that string). One line naming the strings it shares, asked with
 * LIST requests: the ATTACH reply has no room for them.
 */
void
share_attach_refused_log(const char *devstr)
{
	char devs[8][DEVSTR_MAX];
	uint32_t total = 0, n = 0;
	char list[512];
	int err = 0;

	for (uint32_t i = 0; i < MAX_DEVS; i++) {
		char one[DEVSTR_MAX];

		err = primary_dev_at(i, one, &total);
		if (err == ENOENT) {
			err = 0;
			break;
		}
		if (err != 0)
			break;
		if (n < RTE_DIM(devs))
			memcpy(devs[n++], one, DEVSTR_MAX);
		if (i + 1 >= total)
			break;
	}
	if (err != 0) {
		SHARE_LOG(ERR, "%s: attach refused: the primary does not share this device "
			  "string (its list could not be read: %s; the primary logs refused "
			  "attaches at DEBUG level)", devstr, strerror(err));
	} else if (total == 0) {
		SHARE_LOG(ERR, "%s: attach refused: the primary shares no device (it opens "
			  "one with mdevx_share_dev_open())", devstr);
	} else {
		share_devstr_list(list, sizeof(list), (const char (*)[DEVSTR_MAX])devs, n, total);
		SHARE_LOG(ERR, "%s: attach refused: the primary does not share this device "
			  "string; it shares: %s (attach with one of these strings)", devstr,
			  list);
	}
}

/*
 * Primary, reader: a refresh request of peer @p id, for a device it is
 * attached to: it costs a bulk query of a published bulk, nothing else.
 */
static void
share_peer_refresh(const struct mp_msg *p, uint64_t id)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = share_peer_dev_locked(id, NULL);
	if (dev != NULL && dev->primary && dev->cookie == p->hdr.cookie &&
	    strcmp(dev->devstr, p->hdr.devstr) == 0)
		share_snap_request(dev->snap, p->refresh.rec.idx, p->refresh.rec.gen);
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Request @p p of a secondary to the primary, its reply into @p r. 0, or
 * errno: the request's own (EIO...), ETIMEDOUT (no reply), EPROTO (a reply
 * of another size or operation), EOPNOTSUPP (a primary whose library does
 * not know the operation). Descriptors in a reply are closed: none is
 * expected.
 */
static int
primary_ask(const struct mp_msg *p, struct mp_msg *r)
{
	struct timespec ts = { .tv_sec = ATTACH_TIMEOUT_S, .tv_nsec = 0 };
	struct rte_mp_reply reply;
	struct rte_mp_msg req;
	int err = 0;

	share_mp_msg_pack(&req, MP_ACTION, p);
	memset(&reply, 0, sizeof(reply));
	if (rte_mp_request_sync(&req, &reply, &ts) != 0)
		return rte_errno != 0 ? rte_errno : EIO;
	for (int m = 0; m < reply.nb_received; m++)
		for (int i = 0; i < reply.msgs[m].num_fds; i++)
			close(reply.msgs[m].fds[i]);
	if (reply.nb_received != 1)
		err = ETIMEDOUT;
	else
		err = share_mp_msg_unpack(&reply.msgs[0], r);
	free(reply.msgs);
	if (err == 0 && (r->hdr.op != p->hdr.op || r->hdr.role != MP_ROLE_PRIMARY))
		err = EPROTO;
	if (err == 0 && r->hdr.status == -EINVAL)
		err = EOPNOTSUPP;
	return err;
}

/* One LIST request: device @p idx of the primary into @p devstr, *total. 0 or errno. */
static int
primary_dev_at(uint32_t idx, char *devstr, uint32_t *total)
{
	struct mp_msg p, r;
	int err;

	share_mp_msg_init(&p, MP_OP_LIST, NULL, 0);
	p.list.idx = idx;
	err = primary_ask(&p, &r);
	if (err != 0)
		return err;
	*total = r.list.total;
	if (r.hdr.status != 0)
		return r.hdr.status == -ENOENT ? ENOENT : EPROTO;
	if (r.list.idx != idx || share_check_devstr(r.hdr.devstr) != 0)
		return EPROTO;
	memcpy(devstr, r.hdr.devstr, DEVSTR_MAX);
	return 0;
}

/* One PEER request: secondary @p idx of the primary's @p devstr, *total. 0 or errno. */
static int
primary_peer_at(const char *devstr, uint32_t idx, struct mdevx_share_peer *out,
		uint32_t *total)
{
	struct mp_msg p, r;
	int err;

	share_mp_msg_init(&p, MP_OP_PEER, devstr, 0);
	p.list.idx = idx;
	err = primary_ask(&p, &r);
	if (err != 0)
		return err;
	if (r.hdr.status == -ENODEV)
		return ENODEV;
	*total = r.list.total;
	if (r.hdr.status != 0)
		return r.hdr.status == -ENOENT ? ENOENT : EPROTO;
	if (r.list.idx != idx || r.list.id == 0 || r.list.attached > 1)
		return EPROTO;
	out->id = r.list.id;
	out->pid = r.list.pid;
	out->attached = r.list.attached;
	out->rules = r.list.rules;
	return 0;
}

int
mdevx_share_peers(const char *devstr, struct mdevx_share_peer *out, unsigned int max)
{
	struct mdevx_share_peer pv;
	struct mdevx_share_dev *dev;
	uint32_t total = 0, i;
	int err;

	if (share_check_devstr_log(devstr, "mdevx_share_peers") != 0)
		return mdevx_ret(EINVAL);
	if (out == NULL && max != 0) {
		SHARE_LOG(ERR, "mdevx_share_peers(): NULL list of %u entries", max);
		return mdevx_ret(EINVAL);
	}
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		pthread_mutex_lock(&share_devs_lock);
		dev = share_find_dev_locked(devstr);
		if (dev == NULL || !dev->primary) {
			pthread_mutex_unlock(&share_devs_lock);
			SHARE_LOG(DEBUG, "mdevx_share_peers(): %s is not shared by this process",
				  devstr);
			return mdevx_ret(ENODEV);
		}
		total = share_peer_at_locked(dev, 0, &pv);
		for (i = 0; i < total && i < max; i++)
			(void)share_peer_at_locked(dev, i, &out[i]);
		pthread_mutex_unlock(&share_devs_lock);
		return (int)total;
	}
	/* A secondary asks, one request per secondary; the list may change meanwhile. */
	for (i = 0; i < MAX_PEERS; i++) {
		err = primary_peer_at(devstr, i, &pv, &total);
		if (err == ENOENT)
			break;
		if (err != 0) {
			if (err == ENODEV)
				SHARE_LOG(DEBUG, "mdevx_share_peers(): the primary does not share "
					  "%s", devstr);
			else
				SHARE_LOG(ERR, "mdevx_share_peers(): %s: secondary %u of the "
					  "primary: %s", devstr, i, strerror(err));
			return mdevx_ret(err);
		}
		if (i < max)
			out[i] = pv;
		if (i + 1 >= total)
			break;
	}
	return (int)(total < MAX_PEERS ? total : MAX_PEERS);
}

int
mdevx_share_primary_devs(char (*devs)[MDEVX_SHARE_DEVSTR_MAX], unsigned int max)
{
	uint32_t total = 0, i;
	char devstr[DEVSTR_MAX];
	int err;

	if (devs == NULL && max != 0) {
		SHARE_LOG(ERR, "mdevx_share_primary_devs(): NULL list of %u entries", max);
		return mdevx_ret(EINVAL);
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		SHARE_LOG(ERR, "mdevx_share_primary_devs() in the primary: only a secondary "
			  "asks the primary for its devices");
		return mdevx_ret(EPERM);
	}
	/* at most the devices a process holds; the list may change meanwhile */
	for (i = 0; i < MAX_DEVS; i++) {
		err = primary_dev_at(i, devstr, &total);
		if (err == ENOENT)
			break;
		if (err != 0) {
			SHARE_LOG(ERR, "mdevx_share_primary_devs(): device %u of the primary: %s",
				  i, strerror(err));
			return mdevx_ret(err);
		}
		if (i < max)
			memcpy(devs[i], devstr, DEVSTR_MAX);
		if (i + 1 >= total)
			break;
	}
	return (int)(total < MAX_DEVS ? total : MAX_DEVS);
}


#ifdef MDEVX_SHARE_TEST_HOOKS
void
mdevx_share_test_drop_acks(int drop)
{
	__atomic_store_n(&test_drop_acks, drop, __ATOMIC_RELAXED);
}

void
mdevx_share_test_ack_delay(unsigned int ms)
{
	__atomic_store_n(&test_ack_delay_ms, ms, __ATOMIC_RELAXED);
}
#endif /* MDEVX_SHARE_TEST_HOOKS */

/* The operations this file handles, before any message can arrive. */
RTE_INIT(mdevx_share_ops_init)
{
	share_mp_on_notify(MP_OP_WITHDRAW, share_mp_withdraw);
	share_mp_on_notify(MP_OP_WITHDRAW_ALL, share_mp_withdraw);
	share_mp_on_peer(MP_OP_REFRESH, share_peer_refresh);
}

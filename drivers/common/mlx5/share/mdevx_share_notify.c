/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The primary's wait of a withdrawal for the acknowledgements of the
 * attached secondaries, above the transport (mdevx_share_mp.c): the
 * acknowledgements and the closed connections come from its reader
 * through the handlers registered here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"

#define MAX_PENDING 8			/* withdrawals waiting for acknowledgements at once */

/*
 * Withdrawal notifications are one-way (rte_mp_sendmsg(), to every
 * secondary) and so are their acknowledgements (each secondary's, on its
 * connection). A withdrawal waits for the peers attached to the device
 * when it starts, each acknowledgement counted for the connection it
 * came on, each peer whose connection closes counted as done: a
 * secondary that never attached (a monitoring tool that does not load
 * this library, say) costs nothing. A sequence number in the
 * notification finds the waiter; an acknowledgement of another
 * notification counts for nothing.
 */

struct pending_notify {
	uint64_t seq;
	bool armed;			/* false: slot free or being filled */
	bool busy;			/* taken by a withdrawal */
	uint64_t cookie;
	uint64_t generation;
	uint32_t rec_idx;
	uint32_t op;
	const char *devstr;
	uint32_t nb_expect;
	uint32_t nb_acked;
	uint32_t nb_gone;
	bool acked[MAX_PEERS];
	bool gone[MAX_PEERS];
	uint64_t expect[MAX_PEERS];	/* peer ids */
};

static struct pending_notify pending[MAX_PENDING];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_cond = PTHREAD_COND_INITIALIZER;
static uint64_t pending_seq;

/* Primary, reader: an acknowledgement from peer @p id. */
static void
notify_ack(const struct mp_msg *ack, uint64_t id)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending_notify *pn = &pending[i];

		if (!pn->armed || pn->seq != ack->ack.seq || pn->cookie != ack->hdr.cookie ||
		    pn->op != ack->ack.op || pn->rec_idx != ack->ack.rec.idx ||
		    pn->generation != ack->ack.rec.gen || strcmp(pn->devstr, ack->hdr.devstr) != 0)
			continue;
		for (uint32_t k = 0; k < pn->nb_expect; k++) {
			if (!pn->acked[k] && !pn->gone[k] && pn->expect[k] == id) {
				pn->acked[k] = true;
				pn->nb_acked++;
				pthread_cond_broadcast(&pending_cond);
			}
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

/* Primary, share_devs_lock held: peer @p id is gone; no withdrawal waits for it. */
static void
notify_peer_gone(uint64_t id)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending_notify *pn = &pending[i];

		for (uint32_t k = 0; pn->armed && k < pn->nb_expect; k++) {
			if (!pn->acked[k] && !pn->gone[k] && pn->expect[k] == id) {
				pn->gone[k] = true;
				pn->nb_gone++;
				pthread_cond_broadcast(&pending_cond);
			}
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

/*
 * Primary: tell every secondary, wait (bounded) for the acknowledgements
 * of the peers attached to @p dev. Returns how many acknowledged;
 * @p nb_sent receives how many were waited for, @p complete (may be
 * NULL) whether each of them acknowledged or is gone.
 */
unsigned int
share_notify_withdraw(struct mdevx_share_dev *dev, enum mp_op op, uint32_t rec_idx, uint64_t gen,
		int *nb_sent, bool *complete)
{
	struct pending_notify *pn = NULL;
	struct timespec deadline;
	struct mp_msg p;
	struct rte_mp_msg req;
	unsigned int acked;

	/* A slot first: never waited for with share_devs_lock held. */
	pthread_mutex_lock(&pending_lock);
	for (;;) {
		for (int i = 0; i < MAX_PENDING && pn == NULL; i++)
			if (!pending[i].busy)
				pn = &pending[i];
		if (pn != NULL)
			break;
		/* All busy: wait, never skip (every slot is freed within its bound). */
		pthread_cond_wait(&pending_cond, &pending_lock);
	}
	memset(pn, 0, sizeof(*pn));
	pn->busy = true;
	pthread_mutex_unlock(&pending_lock);

	/* Who must answer: the peers attached now (a peer that goes is counted done). */
	pthread_mutex_lock(&share_devs_lock);
	pthread_mutex_lock(&pending_lock);
	pn->cookie = dev->cookie;
	pn->generation = gen;
	pn->rec_idx = rec_idx;
	pn->op = op;
	pn->devstr = dev->devstr;
	pn->nb_expect = share_peers_live_locked(dev, pn->expect, MAX_PEERS);
	pn->seq = ++pending_seq;
	pn->armed = true;
	pthread_mutex_unlock(&pending_lock);
	pthread_mutex_unlock(&share_devs_lock);

	share_mp_msg_init(&p, op, dev->devstr, dev->cookie);
	p.withdraw.rec.idx = rec_idx;
	p.withdraw.rec.gen = gen;
	p.withdraw.seq = pn->seq;
	share_mp_msg_pack(&req, MP_ACTION, &p);
	/*
	 * Sent to every secondary (the attaching ones too: one whose attach
	 * met this close orphans its device); one that cannot be reached is
	 * seen as gone or not acknowledging below.
	 */
	if (rte_mp_sendmsg(&req) != 0)
		SHARE_LOG(DEBUG, "withdraw notification not sent to every secondary: %s",
			  rte_strerror(rte_errno));

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += dev->withdraw_timeout_ms / 1000;
	deadline.tv_nsec += (long)(dev->withdraw_timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&pending_lock);
	while (pn->nb_acked + pn->nb_gone < pn->nb_expect) {
		if (pthread_cond_clockwait(&pending_cond, &pending_lock, CLOCK_MONOTONIC,
					   &deadline) == ETIMEDOUT)
			break;
	}
	acked = pn->nb_acked;
	*nb_sent = (int)pn->nb_expect;
	if (complete != NULL)
		*complete = pn->nb_acked + pn->nb_gone == pn->nb_expect;
	if (pn->nb_acked + pn->nb_gone < pn->nb_expect)
		SHARE_LOG(WARNING, "%s: withdraw of record %u: %u of %u attached secondaries "
			  "acknowledged within %u ms", dev->devstr, rec_idx, pn->nb_acked,
			  pn->nb_expect - pn->nb_gone, dev->withdraw_timeout_ms);
	pn->armed = false;
	pn->busy = false;
	pthread_cond_broadcast(&pending_cond);	/* a free slot for a waiter */
	pthread_mutex_unlock(&pending_lock);
	return acked;
}

/* The acknowledgements and the peers gone, from the reader. */
RTE_INIT(share_notify_init)
{
	share_mp_on_peer(MP_OP_ACK, notify_ack);
	share_mp_on_peer_closed(notify_peer_gone);
}

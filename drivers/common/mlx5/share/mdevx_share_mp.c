/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages between the processes of an instance: the rte_mp action
 * (attach and list requests to the primary, withdrawal notifications to
 * the secondaries), the primary's acknowledgement socket and its reader,
 * the secondaries attached to each device, and the wait of a withdrawal
 * for their acknowledgements. DPDK's mlx5 keeps its multi-process
 * messages apart the same way (mlx5_common_mp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
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

#define MAX_PENDING 8			/* withdrawals waiting for acknowledgements at once */
#define PEER_POLL_MS 50			/* a waiting withdrawal looks for dead peers this often */
#define REAP_PERIOD_MS 100		/* primary: look for dead secondaries with rules */

static bool mp_registered;		/* our rte_mp action (never unregistered) */
#ifdef MDEVX_SHARE_TEST_HOOKS
static int test_drop_acks;			/* atomic */
static unsigned int test_ack_delay_ms;		/* atomic */
#endif

/* rte_mp_msg.param is only 4-byte aligned: parameters travel by copy. */
void
mp_msg_pack(struct rte_mp_msg *msg, const char *name, const struct mp_param *p)
{
	memset(msg, 0, sizeof(*msg));
	snprintf(msg->name, sizeof(msg->name), "%s", name);
	msg->len_param = sizeof(*p);
	memcpy(msg->param, p, sizeof(*p));
}

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

/* The pid in a secondary's socket name (mp_socket_<pid>_<n>), or 0. */
static pid_t
peer_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	long pid;

	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "mp_socket_", 10) != 0)
		return 0;
	pid = strtol(base + 10, NULL, 10);
	return pid > 0 && pid <= INT32_MAX ? (pid_t)pid : 0;
}

static bool
peer_alive(const struct mp_peer *p)
{
	return p->pid <= 0 || kill(p->pid, 0) == 0 || errno != ESRCH;
}

/*
 * Primary, share_devs_lock held: remember secondary @p path as attached
 * to @p dev (once), so that its withdrawals wait for its acknowledgement.
 * 0 or ENOSPC (MAX_PEERS live secondaries attached already).
 */
static int
peer_add_locked(struct mdevx_share_dev *dev, const char *path)
{
	uint32_t i;

	for (i = 0; i < dev->nb_peers; i++)
		if (strcmp(dev->peers[i].path, path) == 0)
			return 0;
	for (i = 0; dev->nb_peers == MAX_PEERS && i < dev->nb_peers;) {
		if (peer_alive(&dev->peers[i]))
			i++;
		else
			dev->peers[i] = dev->peers[--dev->nb_peers];
	}
	if (dev->nb_peers == MAX_PEERS)
		return ENOSPC;
	snprintf(dev->peers[dev->nb_peers].path, sizeof(dev->peers[0].path), "%s", path);
	dev->peers[dev->nb_peers].pid = peer_pid(path);
	dev->nb_peers++;
	return 0;
}

/* Primary: secondary @p pid closed the device (MP_OP_DETACH). */
static void
peer_detach(const struct mp_param *req, pid_t pid)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_dev_locked(req->devstr);
	if (dev != NULL && dev->primary && dev->cookie == req->cookie) {
		for (uint32_t i = 0; i < dev->nb_peers; i++) {
			if (dev->peers[i].pid == pid) {
				dev->peers[i] = dev->peers[--dev->nb_peers];
				break;
			}
		}
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Acknowledgements and detach messages do not go through EAL: they go
 * from each secondary to a datagram socket of the primary's library,
 * <runtime dir>/mdevx_share_ack, read by a thread of its own.
 * - EAL sends with a blocking call. A secondary's IPC thread blocked
 *   sending to the primary's full queue stops reading its own, and the
 *   primary's IPC thread, blocked answering an attach into that full
 *   queue, stops reading: both wait for each other for good (seen in the
 *   attach-during-withdrawals test). A secondary sends to our socket
 *   without blocking, and the primary's reader never sends.
 * - The kernel tells the reader the sender's pid (SCM_CREDENTIALS): an
 *   acknowledgement counts for the process that really sent it.
 * - EAL's send calls of a secondary share a static buffer (the primary's
 *   socket path): sending from our handler would race with the
 *   application's own requests.
 */
#define ACK_SOCK_NAME "mdevx_share_ack"

static int ack_rx_fd = -1;		/* primary (share_open_lock) */
static int ack_tx_fd = -1;		/* secondary (ack_tx_lock) */
static pid_t ack_tx_pid;		/* the process ack_tx_fd was made in */
static pthread_mutex_t ack_tx_lock = PTHREAD_MUTEX_INITIALIZER;

static void peer_msg(const struct mp_param *p, pid_t pid);

static int
ack_sock_addr(struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", rte_eal_get_runtime_dir(),
		     ACK_SOCK_NAME);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : ENAMETOOLONG;
}

/* Primary: read acknowledgements and detach messages, for the process's life. */
static void *
ack_reader(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint64_t last_reap = 0;

	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec now;
		uint64_t now_ms;
		int pr;
		struct mp_param p;
		struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct ucred cred = { .pid = 0 };
		struct cmsghdr *c;
		ssize_t n;

		pr = poll(&pfd, 1, REAP_PERIOD_MS);
		clock_gettime(CLOCK_MONOTONIC, &now);
		now_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
		if (now_ms - last_reap >= REAP_PERIOD_MS) {
			last_reap = now_ms;
			reap_dead_peers();
		}
		if (pr <= 0)
			continue;
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			SHARE_LOG(ERR, "acknowledgement socket: %s: no more acknowledgements",
				  strerror(errno));
			return NULL;
		}
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
		if (n != (ssize_t)sizeof(p) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		    cred.pid <= 0)
			continue;	/* not one of our messages */
		p.devstr[DEVSTR_MAX - 1] = '\0';
		peer_msg(&p, cred.pid);
	}
	return NULL;
}

/* Primary, share_open_lock held: the socket and its reader, once. 0 or errno. */
int
ack_rx_start(void)
{
	struct sockaddr_un sa;
	pthread_t t;
	int fd, one = 1, err;

	if (ack_rx_fd >= 0)
		return 0;
	err = ack_sock_addr(&sa);
	if (err != 0)
		return err;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	unlink(sa.sun_path);		/* a previous primary's of this prefix */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(fd);
		SHARE_LOG(ERR, "acknowledgement socket %s: %s", sa.sun_path, strerror(err));
		return err;
	}
	err = pthread_create(&t, NULL, ack_reader, (void *)(intptr_t)fd);
	if (err != 0) {
		close(fd);
		unlink(sa.sun_path);
		return err;
	}
	pthread_detach(t);
	ack_rx_fd = fd;
	return 0;
}

/*
 * Secondary: send @p p to the primary's socket without blocking (up to
 * @p tries, 1 ms apart, while its queue is full): ACK_SEND_TRIES from
 * EAL's IPC thread, more from application threads, whose rule messages
 * must not be lost.
 */
void
ack_send(const struct mp_param *p, int tries)
{
	struct sockaddr_un sa;
	int err = 0;

	if (ack_sock_addr(&sa) != 0)
		return;
	pthread_mutex_lock(&ack_tx_lock);
	if (ack_tx_fd < 0 || ack_tx_pid != getpid()) {
		ack_tx_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		ack_tx_pid = getpid();
	}
	for (int i = 0; i < tries; i++) {
		if (ack_tx_fd >= 0 && sendto(ack_tx_fd, p, sizeof(*p), MSG_DONTWAIT,
					     (struct sockaddr *)&sa, sizeof(sa)) == sizeof(*p)) {
			err = 0;
			break;
		}
		err = ack_tx_fd < 0 ? EBADF : errno;
		if (err != EAGAIN && err != EINTR)
			break;
		usleep(1000);
	}
	pthread_mutex_unlock(&ack_tx_lock);
	if (err != 0)
		SHARE_LOG(WARNING, "%s: message %u to the primary not sent: %s", p->devstr,
			  p->op, strerror(err));
}

/*
 * Secondary: a withdrawal notification (one-way). Only the primary's
 * counts. Unimport, then acknowledge with a one-way message of our own
 * that names the notification (ack_send()): the primary waits for the
 * secondaries that attached the device, and nobody else.
 */
static int
mp_withdraw(const struct mp_param *req, const char *peer)
{
	struct mdevx_share_dev *dev;
	struct mp_param ack;

#ifdef MDEVX_SHARE_TEST_HOOKS
	if (__atomic_load_n(&test_drop_acks, __ATOMIC_RELAXED))
		return 0;	/* test hook: a secondary whose handler never runs */
#endif
	if (!peer_is_primary(peer)) {
		SHARE_LOG(WARNING, "withdrawal from %s, not the primary: ignored", peer);
		return 0;
	}
	memset(&ack, 0, sizeof(ack));
	pthread_mutex_lock(&share_devs_lock);
	/* nothing imported yet by one being attached: orphaned if closed */
	dev = find_instance_locked(req->devstr, req->cookie);
	if (dev != NULL) {
		uint32_t rec = req->op == MP_OP_WITHDRAW ? req->rec_idx : UINT32_MAX;

		mdevx_share_lock_write(&dev->lock);
		/* Rules first: the owner destroys the object once we acknowledge. */
		rules_drop(dev, rec, req->generation, NULL, ACK_SEND_TRIES);
		ack.unimported = unimport_record(dev, rec, req->generation);
		if (req->op == MP_OP_WITHDRAW_ALL)
			dev->orphan = true;
		mdevx_share_unlock_write(&dev->lock);
	}
	pthread_mutex_unlock(&share_devs_lock);
#ifdef MDEVX_SHARE_TEST_HOOKS
	unsigned int delay_ms = __atomic_load_n(&test_ack_delay_ms, __ATOMIC_RELAXED);

	if (unlikely(delay_ms != 0))
		usleep(delay_ms * 1000);	/* test hook: a slow handler */
#endif
	/* Also when the device is not (or no longer) ours: the primary may count us. */
	ack.op = MP_OP_ACK;
	ack.status = (int32_t)req->op;
	ack.rec_idx = req->rec_idx;
	ack.generation = req->generation;
	ack.cookie = req->cookie;
	ack.seq = req->seq;
	memcpy(ack.devstr, req->devstr, sizeof(ack.devstr));
	ack_send(&ack, ACK_SEND_TRIES);
	return 0;
}

/*
 * Close the descriptors that came with @p msg: EAL gives them to the
 * handler. It counts them by the sender's num_fds, not by what arrived
 * (DPDK 22.11 copies every slot of fds[] from its control buffer): past
 * the real ones are stale bytes. A descriptor received without
 * MSG_CMSG_CLOEXEC, as EAL receives, is never close-on-exec, and each
 * is a new one: an entry that is close-on-exec, repeated or not open is
 * none of them and stays (every descriptor of this library is
 * close-on-exec).
 */
static void
close_received_fds(const struct rte_mp_msg *msg)
{
	int n = msg->num_fds;

	if (n > RTE_MP_MAX_FD_NUM)
		n = RTE_MP_MAX_FD_NUM;
	for (int i = 0; i < n; i++) {
		int fd = msg->fds[i], flags;
		bool seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = msg->fds[k] == fd;
		if (fd < 0 || seen)
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			close(fd);
	}
}

/*
 * Runs on the EAL IPC thread. No allocation, no request of our own: the
 * attach reply carries the command fd (the receiver gets its own
 * descriptor); withdrawals and their acknowledgements are one-way.
 */
static int
mp_handler(const struct rte_mp_msg *msg, const void *peer)
{
	const bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct mp_param req_buf, rep_buf;
	const struct mp_param *req = &req_buf;
	struct mp_param *rep = &rep_buf;
	struct rte_mp_msg reply;
	struct mdevx_share_dev *dev;
	int fd = -1, ret;

	/*
	 * EAL hands over the descriptors that came with the message: none of
	 * our messages to a handler carries any, so each is closed, on every
	 * path (a sender could otherwise exhaust our descriptors).
	 */
	close_received_fds(msg);
	if (msg->len_param != sizeof(*req))
		return -EINVAL;
	memcpy(&req_buf, msg->param, sizeof(req_buf));
	req_buf.devstr[DEVSTR_MAX - 1] = '\0';
	if ((req->op == MP_OP_WITHDRAW || req->op == MP_OP_WITHDRAW_ALL) && !primary)
		return mp_withdraw(req, peer);
	memset(&rep_buf, 0, sizeof(rep_buf));
	rep->op = req->op;
	memcpy(rep->devstr, req->devstr, sizeof(rep->devstr));
	pthread_mutex_lock(&share_devs_lock);
	if (req->op == MP_OP_ATTACH && primary) {
		dev = find_dev_locked(req->devstr);
		if (dev == NULL || !dev->primary) {
			rep->status = -ENODEV;
		} else if (peer_add_locked(dev, peer) != 0) {
			rep->status = -ENOSPC;
			SHARE_LOG(ERR, "%s: %u secondaries attached already: %s refused",
				  dev->devstr, MAX_PEERS, (const char *)peer);
		} else {
			struct mdevx_share_snap_geo geo;

			rep->cookie = dev->cookie;
			snprintf(rep->mz_name, sizeof(rep->mz_name), "%s", dev->mz->name);
			snap_geo(dev->snap, &geo);
			rep->rec_idx = geo.period_ms;
			rep->rec_idx2 = geo.counters;
			rep->handle = geo.nb_slots;
			rep->generation2 = (uint64_t)geo.primary_pid;
			/* Our own descriptor: the device may be closed once we unlock. */
			fd = mdevx_cmd_fd(dev->ctx);
			if (fd >= 0)
				fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (fd < 0)
				rep->status = -EBADF;
		}
	} else if (req->op == MP_OP_LIST && primary) {
		uint32_t n = 0;

		/* the device of index rec_idx, and how many there are */
		rep->status = -ENOENT;
		TAILQ_FOREACH(dev, &share_devs, next) {
			if (!dev->primary)
				continue;
			if (n++ == req->rec_idx) {
				rep->status = 0;
				rep->cookie = dev->cookie;
				snprintf(rep->devstr, sizeof(rep->devstr), "%s", dev->devstr);
			}
		}
		rep->rec_idx = req->rec_idx;
		rep->rec_idx2 = n;
	} else {
		rep->status = -EINVAL;
	}
	pthread_mutex_unlock(&share_devs_lock);
	mp_msg_pack(&reply, msg->name, rep);
	if (fd >= 0) {
		reply.num_fds = 1;
		reply.fds[0] = fd;
	}
	ret = rte_mp_reply(&reply, peer);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Register our action with the first device of the process and keep it
 * registered: a process that closed its last device must still answer (a
 * secondary acknowledges withdrawals with nothing to unimport, the primary
 * refuses attach requests with ENODEV). EAL does not answer a request for
 * an unknown action, and the requester would wait for its whole bound.
 * Lock held.
 */
static int
mp_register_all(bool log)
{
	/* EAL refuses ENOTSUP before EEXIST: without IPC this fails. */
	if (rte_mp_action_register(MP_ACTION, mp_handler) != 0 && rte_errno != EEXIST) {
		if (log)
			SHARE_LOG(ERR, "rte_mp_action_register(%s): %s", MP_ACTION,
				  rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

int
mp_get(void)
{
	int ret;

	if (mp_registered)
		return 0;
	/*
	 * Registered again after EAL's initialisation even when the
	 * constructor did it: this is what tells that the process has IPC
	 * (with --in-memory, say, EAL refuses with ENOTSUP, and so does open).
	 */
	ret = mp_register_all(true);
	if (ret == 0)
		mp_registered = true;
	return ret;
}

/*
 * Our action from the start of every process that loads the library: a
 * secondary that never attaches a device still answers withdrawals (with
 * nothing to unimport) instead of costing each one its whole bound and
 * keeping a closed registry's memzone, and a primary that has not opened
 * a device yet refuses an attach at once (ENODEV). EAL keeps an action
 * registered before rte_eal_init(); if this fails, the first open or
 * attach tries again.
 */
RTE_INIT(mdevx_share_mp_init)
{
	pthread_mutex_lock(&share_devs_lock);
	(void)mp_register_all(false);
	pthread_mutex_unlock(&share_devs_lock);
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

int
mdevx_share_test_withdraw_msg(const struct mdevx_share_dev *dev, uint32_t rec_idx,
			      uint64_t generation, struct rte_mp_msg *msg)
{
	struct mp_param p;

	if (dev == NULL || msg == NULL)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.op = rec_idx == UINT32_MAX ? MP_OP_WITHDRAW_ALL : MP_OP_WITHDRAW;
	p.rec_idx = rec_idx;
	p.generation = generation;
	p.cookie = dev->cookie;
	p.seq = 1;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	mp_msg_pack(msg, MP_ACTION, &p);
	return 0;
}
#endif /* MDEVX_SHARE_TEST_HOOKS */

/*
 * Withdrawal notifications are one-way (rte_mp_sendmsg(), to every
 * secondary) and so are their acknowledgements (each secondary's, to the
 * primary). A withdrawal waits for the secondaries that attached the
 * device and are alive, each acknowledgement counted by the socket it
 * came from: a secondary that never attached (a monitoring tool that does
 * not load this library, say) costs nothing. A sequence number in the
 * notification finds the waiter; an acknowledgement of another
 * notification, or from another process, counts for nothing.
 */

struct pending_notify {
	uint64_t seq;			/* 0 = slot free */
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
	struct mp_peer expect[MAX_PEERS];
};

static struct pending_notify pending[MAX_PENDING];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_cond = PTHREAD_COND_INITIALIZER;
static uint64_t pending_seq;

/* Primary, acknowledgement reader: an acknowledgement from process @p pid. */
static void
notify_ack(const struct mp_param *ack, pid_t pid)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending_notify *pn = &pending[i];

		if (pn->seq == 0 || pn->seq != ack->seq || pn->cookie != ack->cookie ||
		    pn->op != (uint32_t)ack->status || pn->rec_idx != ack->rec_idx ||
		    pn->generation != ack->generation || strcmp(pn->devstr, ack->devstr) != 0)
			continue;
		for (uint32_t k = 0; k < pn->nb_expect; k++) {
			/* once per expected secondary: a process that attached twice counts once */
			if (!pn->acked[k] && !pn->gone[k] && pn->expect[k].pid == pid) {
				pn->acked[k] = true;
				pn->nb_acked++;
				pthread_cond_broadcast(&pending_cond);
			}
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

/*
 * Primary, acknowledgement reader: a refresh request. Any process may send
 * one: it costs a bulk query of a published bulk, nothing else.
 */
static void
peer_refresh(const struct mp_param *p)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_instance_locked(p->devstr, p->cookie);
	if (dev != NULL && dev->primary)
		snap_request(dev->snap, p->rec_idx, p->generation);
	pthread_mutex_unlock(&share_devs_lock);
}

/* Primary, acknowledgement reader: one message of secondary @p pid. */
static void
peer_msg(const struct mp_param *p, pid_t pid)
{
	if (p->op == MP_OP_ACK)
		notify_ack(p, pid);
	else if (p->op == MP_OP_DETACH)
		peer_detach(p, pid);
	else if (p->op == MP_OP_RULE_ADD || p->op == MP_OP_RULE_DEL)
		peer_rule_msg(p, pid);
	else if (p->op == MP_OP_REFRESH)
		peer_refresh(p);
}

/* pending_lock held: the expected peers that died meanwhile count as done. */
static void
notify_prune_dead(struct pending_notify *pn)
{
	for (uint32_t k = 0; k < pn->nb_expect; k++) {
		if (!pn->acked[k] && !pn->gone[k] && !peer_alive(&pn->expect[k])) {
			pn->gone[k] = true;
			pn->nb_gone++;
		}
	}
}

/*
 * Primary: tell every secondary, wait (bounded) for the acknowledgements
 * of those attached to @p dev. Returns how many acknowledged; @p nb_sent
 * receives how many were waited for, @p complete (may be NULL) whether
 * each of them acknowledged or died.
 */
unsigned int
notify_withdraw(struct mdevx_share_dev *dev, enum mp_op op, uint32_t rec_idx, uint64_t gen,
		int *nb_sent, bool *complete)
{
	struct mp_peer expect[MAX_PEERS];
	struct pending_notify *pn = NULL;
	struct timespec now, deadline;
	struct mp_param p;
	struct rte_mp_msg req;
	uint32_t nb_expect = 0;
	unsigned int acked;

	/* Who must answer: the attached secondaries alive now. */
	pthread_mutex_lock(&share_devs_lock);
	for (uint32_t i = 0; i < dev->nb_peers; i++)
		if (peer_alive(&dev->peers[i]))
			expect[nb_expect++] = dev->peers[i];
	pthread_mutex_unlock(&share_devs_lock);

	pthread_mutex_lock(&pending_lock);
	for (;;) {
		for (int i = 0; i < MAX_PENDING && pn == NULL; i++)
			if (pending[i].seq == 0)
				pn = &pending[i];
		if (pn != NULL)
			break;
		/* All busy: wait, never skip (every slot is freed within its bound). */
		pthread_cond_wait(&pending_cond, &pending_lock);
	}
	memset(pn, 0, sizeof(*pn));
	pn->cookie = dev->cookie;
	pn->generation = gen;
	pn->rec_idx = rec_idx;
	pn->op = op;
	pn->devstr = dev->devstr;
	pn->nb_expect = nb_expect;
	memcpy(pn->expect, expect, nb_expect * sizeof(expect[0]));
	pn->seq = ++pending_seq;
	pthread_mutex_unlock(&pending_lock);

	memset(&p, 0, sizeof(p));
	p.op = op;
	p.rec_idx = rec_idx;
	p.generation = gen;
	p.cookie = dev->cookie;
	p.seq = pn->seq;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	mp_msg_pack(&req, MP_ACTION, &p);
	/*
	 * Sent to every secondary (the attaching ones too: one whose attach
	 * met this close orphans its device); one that cannot be reached is
	 * seen as dead or not acknowledging below.
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
		struct timespec slice;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > deadline.tv_sec ||
		    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
			break;
		slice = now;
		slice.tv_nsec += PEER_POLL_MS * 1000000L;
		if (slice.tv_nsec >= 1000000000) {
			slice.tv_sec++;
			slice.tv_nsec -= 1000000000;
		}
		if (slice.tv_sec > deadline.tv_sec ||
		    (slice.tv_sec == deadline.tv_sec && slice.tv_nsec > deadline.tv_nsec))
			slice = deadline;
		if (pthread_cond_clockwait(&pending_cond, &pending_lock, CLOCK_MONOTONIC,
					   &slice) == ETIMEDOUT)
			notify_prune_dead(pn);
	}
	acked = pn->nb_acked;
	*nb_sent = (int)pn->nb_expect;
	if (complete != NULL)
		*complete = pn->nb_acked + pn->nb_gone == pn->nb_expect;
	if (pn->nb_acked + pn->nb_gone < pn->nb_expect)
		SHARE_LOG(WARNING, "%s: withdraw of record %u: %u of %u attached secondaries "
			  "acknowledged within %u ms", dev->devstr, rec_idx, pn->nb_acked,
			  pn->nb_expect - pn->nb_gone, dev->withdraw_timeout_ms);
	pn->seq = 0;
	pthread_cond_broadcast(&pending_cond);	/* a free slot for a waiter */
	pthread_mutex_unlock(&pending_lock);
	return acked;
}

/*
 * Secondary: the primary need not wait for us any more. One-way; if it is
 * lost, the primary waits for an acknowledgement that our handler still
 * sends (with nothing to unimport).
 */
void
send_detach(const struct mdevx_share_dev *dev)
{
	struct mp_param p;

	memset(&p, 0, sizeof(p));
	p.op = MP_OP_DETACH;
	p.cookie = dev->cookie;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	ack_send(&p, ACK_SEND_TRIES);
}

/* One LIST request: device @p idx of the primary into @p devstr, *total. 0 or errno. */
static int
primary_dev_at(uint32_t idx, char *devstr, uint32_t *total)
{
	struct timespec ts = { .tv_sec = ATTACH_TIMEOUT_S, .tv_nsec = 0 };
	struct rte_mp_reply reply;
	struct mp_param p, r;
	struct rte_mp_msg req;

	memset(&p, 0, sizeof(p));
	p.op = MP_OP_LIST;
	p.rec_idx = idx;
	mp_msg_pack(&req, MP_ACTION, &p);
	memset(&reply, 0, sizeof(reply));
	if (rte_mp_request_sync(&req, &reply, &ts) != 0)
		return rte_errno != 0 ? rte_errno : EIO;
	if (reply.nb_received != 1) {
		free(reply.msgs);
		return ETIMEDOUT;
	}
	for (int i = 0; i < reply.msgs[0].num_fds; i++)
		close(reply.msgs[0].fds[i]);
	if (reply.msgs[0].len_param != sizeof(r)) {
		free(reply.msgs);
		return EPROTO;
	}
	memcpy(&r, reply.msgs[0].param, sizeof(r));
	free(reply.msgs);
	r.devstr[DEVSTR_MAX - 1] = '\0';
	if (r.op != MP_OP_LIST)
		return EPROTO;
	if (r.status == -EINVAL)	/* a library that does not know the request */
		return EOPNOTSUPP;
	*total = r.rec_idx2;
	if (r.status != 0)
		return r.status == -ENOENT ? ENOENT : EPROTO;
	if (r.rec_idx != idx || check_devstr(r.devstr) != 0)
		return EPROTO;
	memcpy(devstr, r.devstr, DEVSTR_MAX);
	return 0;
}

int
mdevx_share_primary_devs(char (*devs)[MDEVX_SHARE_DEVSTR_MAX], unsigned int max)
{
	uint32_t total = 0, i;
	char devstr[DEVSTR_MAX];
	int err;

	if (devs == NULL && max != 0)
		return fail(EINVAL);
	if (rte_eal_process_type() != RTE_PROC_SECONDARY)
		return fail(EPERM);
	/* at most the devices a process holds; the list may change meanwhile */
	for (i = 0; i < MAX_DEVS; i++) {
		err = primary_dev_at(i, devstr, &total);
		if (err == ENOENT)
			break;
		if (err != 0)
			return fail(err);
		if (i < max)
			memcpy(devs[i], devstr, DEVSTR_MAX);
		if (i + 1 >= total)
			break;
	}
	return (int)(total < MAX_DEVS ? total : MAX_DEVS);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The transport of the messages between the processes of an instance:
 * their framing, the rte_mp action and its dispatcher (the attach, list
 * and peer requests to the primary are answered there, and so are the
 * handshake and the acknowledgements on the connections; withdrawal
 * notifications and refresh requests go to their handlers in
 * mdevx_share_ops.c, rule messages to mdevx_share_rule.c), the
 * connection of each attached secondary, the sends on it and the
 * primary's reader of them, and the wait of a withdrawal for their
 * acknowledgements.
 * Why not EAL for what secondaries send: EAL sends with a blocking call,
 * and a secondary's IPC thread blocked sending to the primary's full
 * queue stops reading its own while the primary's IPC thread, blocked
 * answering an attach into that full queue, stops reading: both wait for
 * each other for good. A secondary sends on its connection without
 * blocking, and the primary's reader never sends. EAL's send calls of a
 * secondary also share a static buffer (the primary's socket path):
 * sending from our handler would race with the application's requests.
 * DPDK's mlx5 keeps its multi-process messages apart the same way
 * (mlx5_common_mp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/epoll.h>
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

static bool mp_registered;		/* our rte_mp action (never unregistered) */

/* rte_mp_msg.param is only 4-byte aligned: parameters travel by copy. */
void
mp_msg_pack(struct rte_mp_msg *msg, const char *name, const struct mp_param *p)
{
	memset(msg, 0, sizeof(*msg));
	snprintf(msg->name, sizeof(msg->name), "%s", name);
	msg->len_param = sizeof(*p);
	memcpy(msg->param, p, sizeof(*p));
}

/* The pid in a secondary's socket name (mp_socket_<pid>_<n>), or 0: for logs only. */
pid_t
share_peer_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	long pid;

	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "mp_socket_", 10) != 0)
		return 0;
	pid = strtol(base + 10, NULL, 10);
	return pid > 0 && pid <= INT32_MAX ? (pid_t)pid : 0;
}


/*
 * Primary: the connections of the secondaries, for every device, under
 * share_devs_lock. One attach, one connection: the primary makes a
 * socketpair, keeps one end here and passes the other in its reply. A
 * peer is gone when its connection is (end of file: the secondary closed
 * the device, exited or was killed, whatever its pid became); one that
 * does not complete its attach (MP_OP_HELLO) within HANDSHAKE_MS is
 * dropped. Only the reader thread closes a connection, so that the
 * descriptor it reads is never another's meanwhile.
 */
#define MAX_CONNS 1024			/* connections of the primary, every device */
#define PEER_BURST 16			/* messages read from one connection in a turn */
#define SWEEP_MS 50			/* the reader drops expired and released peers */

enum peer_state {
	PEER_FREE = 0,
	PEER_PENDING = 1,		/* answered, no HELLO yet: not waited for */
	PEER_LIVE = 2,
	PEER_RELEASED = 3,		/* its device closed: the reader closes it */
};

struct mp_peer {
	int fd;				/* our end of the connection */
	uint32_t gen;			/* part of the peer's id */
	uint32_t state;
	pid_t pid;			/* its IPC socket's name says: for logs only */
	struct mdevx_share_dev *dev;	/* NULL once released */
	uint64_t deadline_ms;		/* PEER_PENDING */
	uint32_t nb_rules;		/* rules it announced, on its device */
};

static struct mp_peer peers[MAX_CONNS];
static uint32_t peer_next;		/* share_devs_lock: where a free slot is looked for */
static int peer_epfd = -1;		/* primary (share_open_lock to create) */

static uint64_t
peer_id(uint32_t i)
{
	return ((uint64_t)peers[i].gen << 32) | (i + 1);
}

/* share_devs_lock held: the slot of a live peer id, or MAX_CONNS. */
static uint32_t
peer_slot_locked(uint64_t id)
{
	uint32_t i = (uint32_t)id - 1;

	if ((uint32_t)id == 0 || i >= MAX_CONNS || peers[i].gen != (uint32_t)(id >> 32) ||
	    peers[i].state == PEER_FREE)
		return MAX_CONNS;
	return i;
}

/*
 * share_devs_lock held: the device of the peer @p id (NULL if it is gone
 * or its device closed), and what its socket name said its pid was.
 */
struct mdevx_share_dev *
peer_dev_locked(uint64_t id, pid_t *pid)
{
	uint32_t i = peer_slot_locked(id);

	if (i == MAX_CONNS)
		return NULL;
	if (pid != NULL)
		*pid = peers[i].pid;
	return peers[i].dev;
}

/* share_devs_lock held, @p id a live peer (peer_dev_locked()): its count of rules. */
uint32_t *
peer_nb_rules_locked(uint64_t id)
{
	return &peers[peer_slot_locked(id)].nb_rules;
}

/*
 * Primary, share_devs_lock held: a connection for a secondary attaching
 * @p dev from IPC socket @p path; *their receives the end to pass. 0 or
 * ENOSPC (MAX_PEERS on the device, or MAX_CONNS in all) or errno.
 */
static int
peer_new_locked(struct mdevx_share_dev *dev, const char *path, int *their)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	uint32_t i = 0, k;
	int sv[2], err;

	if (dev->nb_peers >= MAX_PEERS || peer_epfd < 0)
		return ENOSPC;
	/* Round robin: a slot (and the epoll data naming it) reused as late as can be. */
	for (k = 0; k < MAX_CONNS; k++) {
		i = (peer_next + k) % MAX_CONNS;
		if (peers[i].state == PEER_FREE)
			break;
	}
	if (k == MAX_CONNS)
		return ENOSPC;
	peer_next = (i + 1) % MAX_CONNS;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return errno;
	ev.data.u64 = ((uint64_t)peers[i].gen << 32) | i;
	if (epoll_ctl(peer_epfd, EPOLL_CTL_ADD, sv[0], &ev) != 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	peers[i].fd = sv[0];
	peers[i].state = PEER_PENDING;
	peers[i].pid = share_peer_pid(path);
	peers[i].dev = dev;
	peers[i].deadline_ms = now_ms() + HANDSHAKE_MS;
	peers[i].nb_rules = 0;
	dev->nb_peers++;
	*their = sv[1];
	return 0;
}

static void notify_peer_gone(uint64_t id);

/*
 * Reader, share_devs_lock held: peer @p i is gone. Its connection is
 * closed, its place freed, a withdrawal waiting for it stops waiting,
 * and its rules are removed.
 */
static void
peer_drop_locked(uint32_t i, const char *why)
{
	struct mp_peer *p = &peers[i];
	struct mdevx_share_dev *dev = p->dev;
	uint64_t id = peer_id(i);

	epoll_ctl(peer_epfd, EPOLL_CTL_DEL, p->fd, NULL);
	close(p->fd);
	if (dev != NULL) {
		dev->nb_peers--;
		SHARE_LOG(DEBUG, "%s: secondary (pid %d by its socket) %s", dev->devstr,
			  (int)p->pid, why);
		prules_owner_gone(dev, id);
	}
	notify_peer_gone(id);
	p->fd = -1;
	p->dev = NULL;
	p->state = PEER_FREE;
	p->gen++;
}

/*
 * Primary: @p dev is closed; its peers' connections are closed by the
 * reader (their secondaries see the end of file).
 */
void
peers_release(const struct mdevx_share_dev *dev)
{
	pthread_mutex_lock(&share_devs_lock);
	for (uint32_t i = 0; i < MAX_CONNS; i++) {
		if (peers[i].state != PEER_FREE && peers[i].dev == dev) {
			peers[i].dev = NULL;
			peers[i].state = PEER_RELEASED;
		}
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * share_devs_lock held: how many secondaries @p dev (primary) has, and the
 * one of index @p idx among them (in slot order) into @p out.
 */
uint32_t
share_peer_at_locked(const struct mdevx_share_dev *dev, uint32_t idx, struct mdevx_share_peer *out)
{
	uint32_t n = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < MAX_CONNS; i++) {
		const struct mp_peer *p = &peers[i];

		if (p->dev != dev || (p->state != PEER_PENDING && p->state != PEER_LIVE))
			continue;
		if (n++ == idx) {
			out->id = peer_id(i);
			out->pid = p->pid;
			out->attached = p->state == PEER_LIVE;
			out->rules = p->nb_rules;
		}
	}
	return n;
}

/* Reader: drop the peers whose handshake expired or whose device closed. */
static void
peer_sweep(uint64_t now)
{
	pthread_mutex_lock(&share_devs_lock);
	for (uint32_t i = 0; i < MAX_CONNS; i++) {
		if (peers[i].state == PEER_RELEASED) {
			peer_drop_locked(i, "released");
		} else if (peers[i].state == PEER_PENDING && now >= peers[i].deadline_ms) {
			SHARE_LOG(WARNING, "%s: attach of pid %d (by its socket) not completed "
				  "within %u ms: dropped", peers[i].dev->devstr, (int)peers[i].pid,
				  HANDSHAKE_MS);
			peer_drop_locked(i, "never completed its attach");
		}
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Reader: peer @p id completes its attach. From now on withdrawals wait
 * for it; it reads the registry only once told so (our answer on its
 * connection). A device being closed is off the list: the peer is
 * dropped, its attach fails. Both under share_devs_lock, so a withdrawal
 * that does not count the peer marked its record withdrawn before the
 * peer could import it.
 */
static void
peer_hello(const struct mp_param *p, uint64_t id)
{
	struct mdevx_share_dev *dev;
	struct mp_param r;
	uint32_t i;

	pthread_mutex_lock(&share_devs_lock);
	i = peer_slot_locked(id);
	if (i == MAX_CONNS || peers[i].state != PEER_PENDING) {
		pthread_mutex_unlock(&share_devs_lock);
		return;
	}
	dev = peers[i].dev;
	if (dev == NULL || find_dev_locked(dev->devstr) != dev || dev->cookie != p->cookie ||
	    strcmp(dev->devstr, p->devstr) != 0) {
		peer_drop_locked(i, "attached a device being closed");
		pthread_mutex_unlock(&share_devs_lock);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.op = MP_OP_HELLO;
	r.cookie = dev->cookie;
	snprintf(r.devstr, sizeof(r.devstr), "%s", dev->devstr);
	/* Its queue holds nothing else of ours: this never waits. */
	if (send(peers[i].fd, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(r))
		peers[i].state = PEER_LIVE;
	else
		peer_drop_locked(i, "could not be answered");
	pthread_mutex_unlock(&share_devs_lock);
}

static void peer_msg(const struct mp_param *p, uint64_t id);

/*
 * Reader: up to PEER_BURST messages of the connection @p data names
 * (epoll's data: slot and generation). Each connection has its queue and
 * the ready ones take turns: one peer's flood never delays another's
 * acknowledgements by more than a turn.
 */
static void
peer_read(uint64_t data)
{
	uint32_t i = (uint32_t)data, gen = (uint32_t)(data >> 32);
	bool gone = false;
	uint64_t id;
	int fd;

	pthread_mutex_lock(&share_devs_lock);
	if (i >= MAX_CONNS || peers[i].gen != gen || peers[i].state == PEER_FREE) {
		pthread_mutex_unlock(&share_devs_lock);
		return;
	}
	fd = peers[i].fd;		/* only this thread closes it */
	id = peer_id(i);
	pthread_mutex_unlock(&share_devs_lock);
	for (int m = 0; m < PEER_BURST; m++) {
		struct mp_param p;
		struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
		/* no control buffer: descriptors sent along are discarded by the kernel */
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			gone = true;
			break;
		}
		if (n != (ssize_t)sizeof(p) || (mh.msg_flags & MSG_TRUNC))
			continue;	/* not one of our messages */
		p.devstr[DEVSTR_MAX - 1] = '\0';
		peer_msg(&p, id);
	}
	if (gone) {
		pthread_mutex_lock(&share_devs_lock);
		if (peers[i].gen == gen && peers[i].state != PEER_FREE)
			peer_drop_locked(i, "closed its connection");
		pthread_mutex_unlock(&share_devs_lock);
	}
}

/* Primary: read the connections of the secondaries, for the process's life. */
static void *
peer_reader(void *arg)
{
	uint64_t last_sweep = 0;
	bool reaping = false;

	RTE_SET_USED(arg);
	for (;;) {
		struct epoll_event ev[64];
		uint64_t now;
		/* Rules of gone peers to remove: between rounds of reading, no waiting. */
		int n = epoll_wait(peer_epfd, ev, RTE_DIM(ev), reaping ? 0 : SWEEP_MS);

		if (n < 0 && errno != EINTR) {
			SHARE_LOG(ERR, "connections of the secondaries: epoll: %s: not read "
				  "any more", strerror(errno));
			return NULL;
		}
		for (int k = 0; k < n; k++)
			peer_read(ev[k].data.u64);
		now = now_ms();
		if (now - last_sweep >= SWEEP_MS) {
			last_sweep = now;
			peer_sweep(now);
		}
		reaping = prules_reap();
	}
	return NULL;
}

/* Primary, share_open_lock held: the epoll set and its reader, once. 0 or errno. */
int
peers_start(void)
{
	pthread_t t;
	int fd, err;

	if (peer_epfd >= 0)
		return 0;
	fd = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0)
		return errno;
	for (uint32_t i = 0; i < MAX_CONNS; i++)
		peers[i].fd = -1;
	pthread_mutex_lock(&share_devs_lock);
	peer_epfd = fd;
	pthread_mutex_unlock(&share_devs_lock);
	err = pthread_create(&t, NULL, peer_reader, NULL);
	if (err != 0) {
		pthread_mutex_lock(&share_devs_lock);
		peer_epfd = -1;
		pthread_mutex_unlock(&share_devs_lock);
		close(fd);
		return err;
	}
	pthread_detach(t);
	return 0;
}

/*
 * Secondary, dev->conn_lock held: send @p p on our connection without
 * blocking, up to @p tries, 1 ms apart, while its queue is full:
 * ACK_SEND_TRIES from EAL's IPC thread, more from application threads,
 * whose rule messages must not be lost.
 */
void
share_conn_send_locked(const struct mdevx_share_dev *dev, const struct mp_param *p, int tries)
{
	int err = ENOTCONN;

	for (int i = 0; dev->conn_fd >= 0 && i < tries; i++) {
		if (send(dev->conn_fd, p, sizeof(*p), MSG_DONTWAIT | MSG_NOSIGNAL) ==
		    (ssize_t)sizeof(*p)) {
			err = 0;
			break;
		}
		err = errno;
		if (err != EAGAIN && err != EINTR && err != ENOBUFS)
			break;
		usleep(1000);
	}
	if (err != 0)
		SHARE_LOG(WARNING, "%s: message %u to the primary not sent: %s", dev->devstr,
			  p->op, strerror(err));
}

void
conn_send(const struct mdevx_share_dev *dev, const struct mp_param *p, int tries)
{
	struct mdevx_share_dev *d = (struct mdevx_share_dev *)(uintptr_t)dev;

	pthread_mutex_lock(&d->conn_lock);
	share_conn_send_locked(d, p, tries);
	pthread_mutex_unlock(&d->conn_lock);
}

/* Secondary: @p p on the connection of the device it names (devstr, cookie). */
void
ack_send(const struct mp_param *p, int tries)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = find_instance_locked(p->devstr, p->cookie);
	if (dev == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		SHARE_LOG(DEBUG, "%s: message %u: the device is not attached", p->devstr, p->op);
		return;
	}
	pthread_mutex_lock(&dev->conn_lock);	/* the device is not freed under it */
	pthread_mutex_unlock(&share_devs_lock);
	share_conn_send_locked(dev, p, tries);
	pthread_mutex_unlock(&dev->conn_lock);
}

/* Secondary, attaching: our connection @p fd to the primary's instance @p cookie. */
void
conn_attached(struct mdevx_share_dev *dev, int fd, uint64_t cookie)
{
	pthread_mutex_lock(&share_devs_lock);
	pthread_mutex_lock(&dev->conn_lock);
	dev->cookie = cookie;
	dev->conn_fd = fd;
	pthread_mutex_unlock(&dev->conn_lock);
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Secondary, attaching: complete the attach (MP_OP_HELLO) and wait, up
 * to @p timeout_ms, for the primary to count us. 0, ENODEV (the primary
 * refused: the device is being closed, or the handshake was late) or
 * ETIMEDOUT.
 */
int
send_hello(const struct mdevx_share_dev *dev, unsigned int timeout_ms)
{
	struct pollfd pfd = { .fd = dev->conn_fd, .events = POLLIN };
	struct mp_param p, r;
	ssize_t n;
	int pr;

	memset(&p, 0, sizeof(p));
	p.op = MP_OP_HELLO;
	p.cookie = dev->cookie;
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	conn_send(dev, &p, ACK_SEND_TRIES);
	/* The attach owns the device: nothing else reads its connection. */
	do {
		pr = poll(&pfd, 1, (int)timeout_ms);
	} while (pr < 0 && errno == EINTR);
	if (pr == 0)
		return ETIMEDOUT;
	n = recv(dev->conn_fd, &r, sizeof(r), MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(r) || r.op != MP_OP_HELLO || r.cookie != dev->cookie)
		return ENODEV;
	return 0;
}

/*
 * Secondary: the primary need not wait for us any more: our connection
 * closes (the primary reads its end of file after our last message).
 */
void
send_detach(struct mdevx_share_dev *dev)
{
	pthread_mutex_lock(&dev->conn_lock);
	if (dev->conn_fd >= 0)
		close(dev->conn_fd);
	dev->conn_fd = -1;
	pthread_mutex_unlock(&dev->conn_lock);
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
	int fd = -1, conn = -1, ret, err;

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
		return share_mp_withdraw(req, peer);
	memset(&rep_buf, 0, sizeof(rep_buf));
	rep->op = req->op;
	memcpy(rep->devstr, req->devstr, sizeof(rep->devstr));
	pthread_mutex_lock(&share_devs_lock);
	if (req->op == MP_OP_ATTACH && primary) {
		dev = find_dev_locked(req->devstr);
		if (dev == NULL || !dev->primary) {
			rep->status = -ENODEV;
			/* DEBUG: any process of the instance can send these */
			if (rte_log_can_log(mdevx_share_logtype, RTE_LOG_DEBUG))
				share_attach_refusal_debug_locked(req->devstr, (const char *)peer);
		} else if ((err = peer_new_locked(dev, peer, &conn)) != 0) {
			rep->status = -err;
			SHARE_LOG(ERR, "%s: attach of %s refused: %s (%u secondaries at most)",
				  dev->devstr, (const char *)peer, strerror(err), MAX_PEERS);
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
			/* Without: our end reads the end of file, the reader drops it. */
			if (fd < 0) {
				rep->status = -EBADF;
				close(conn);
				conn = -1;
			}
		}
	} else if (req->op == MP_OP_PEER && primary) {
		struct mdevx_share_peer pv;

		rep->status = -ENODEV;
		dev = find_dev_locked(req->devstr);
		if (dev != NULL && dev->primary) {
			uint32_t n = share_peer_at_locked(dev, req->rec_idx, &pv);

			rep->status = req->rec_idx < n ? 0 : -ENOENT;
			rep->rec_idx = req->rec_idx;
			rep->rec_idx2 = n;
			rep->generation = pv.id;
			rep->generation2 = (uint64_t)(uint32_t)pv.pid;
			rep->handle = pv.rules;
			rep->unimported = pv.attached;
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
		reply.num_fds = 2;
		reply.fds[0] = fd;
		reply.fds[1] = conn;
	}
	/* Not delivered: the peer's end is closed here, the reader drops ours. */
	ret = rte_mp_reply(&reply, peer);
	if (fd >= 0)
		close(fd);
	if (conn >= 0)
		close(conn);
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
unsigned int
mdevx_share_test_peers(const struct mdevx_share_dev *dev)
{
	unsigned int n;

	pthread_mutex_lock(&share_devs_lock);
	n = dev->nb_peers;
	pthread_mutex_unlock(&share_devs_lock);
	return n;
}

int
mdevx_share_test_conn_fd(const struct mdevx_share_dev *dev)
{
	return dev != NULL && !dev->primary ? dev->conn_fd : -1;
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
notify_ack(const struct mp_param *ack, uint64_t id)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending_notify *pn = &pending[i];

		if (!pn->armed || pn->seq != ack->seq || pn->cookie != ack->cookie ||
		    pn->op != (uint32_t)ack->status || pn->rec_idx != ack->rec_idx ||
		    pn->generation != ack->generation || strcmp(pn->devstr, ack->devstr) != 0)
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

/* Primary, reader: one message of peer @p id. */
static void
peer_msg(const struct mp_param *p, uint64_t id)
{
	if (p->op == MP_OP_ACK)
		notify_ack(p, id);
	else if (p->op == MP_OP_HELLO)
		peer_hello(p, id);
	else if (p->op == MP_OP_RULE_ADD || p->op == MP_OP_RULE_DEL)
		peer_rule_msg(p, id);
	else if (p->op == MP_OP_REFRESH)
		share_peer_refresh(p, id);
}

/*
 * Primary: tell every secondary, wait (bounded) for the acknowledgements
 * of the peers attached to @p dev. Returns how many acknowledged;
 * @p nb_sent receives how many were waited for, @p complete (may be
 * NULL) whether each of them acknowledged or is gone.
 */
unsigned int
notify_withdraw(struct mdevx_share_dev *dev, enum mp_op op, uint32_t rec_idx, uint64_t gen,
		int *nb_sent, bool *complete)
{
	struct pending_notify *pn = NULL;
	struct timespec deadline;
	struct mp_param p;
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
	/* Not those still in their handshake: they read nothing of the device yet. */
	for (uint32_t i = 0; i < MAX_CONNS && pn->nb_expect < MAX_PEERS; i++)
		if (peers[i].dev == dev && peers[i].state == PEER_LIVE)
			pn->expect[pn->nb_expect++] = peer_id(i);
	pn->seq = ++pending_seq;
	pn->armed = true;
	pthread_mutex_unlock(&pending_lock);
	pthread_mutex_unlock(&share_devs_lock);

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

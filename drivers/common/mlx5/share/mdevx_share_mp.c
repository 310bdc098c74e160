/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The transport of the messages between the processes of an instance:
 * their framing (struct mp_msg), the rte_mp action and its dispatcher
 * (the attach, list and peer requests to the primary are answered
 * there, and so are the handshake and the acknowledgements on the
 * connections; every other operation goes to the handler the file above
 * registered for it: share_mp_on_notify(), share_mp_on_peer()), the
 * connection of each attached secondary, the sends on it and the
 * primary's reader of them. It calls no function of the files above it.
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

static bool mp_registered;		/* our rte_mp action (never unregistered) */

/* The handlers of the files above (set by their constructors, read after). */
static share_mp_notify_fn *notify_fns[MP_OP_MAX + 1];
static share_mp_peer_fn *peer_fns[MP_OP_MAX + 1];
static share_mp_gone_fn *peer_gone_fn;
static share_mp_closed_fn *peer_closed_fn;
static share_mp_idle_fn *idle_fn;

void
share_mp_on_notify(enum mp_op op, share_mp_notify_fn *fn)
{
	if ((unsigned int)op <= MP_OP_MAX)
		notify_fns[op] = fn;
}

void
share_mp_on_peer(enum mp_op op, share_mp_peer_fn *fn)
{
	if ((unsigned int)op <= MP_OP_MAX)
		peer_fns[op] = fn;
}

void
share_mp_on_peer_gone(share_mp_gone_fn *fn)
{
	peer_gone_fn = fn;
}

void
share_mp_on_peer_closed(share_mp_closed_fn *fn)
{
	peer_closed_fn = fn;
}

void
share_mp_on_idle(share_mp_idle_fn *fn)
{
	idle_fn = fn;
}

void
share_mp_msg_init(struct mp_msg *m, enum mp_op op, const char *devstr, uint64_t cookie)
{
	memset(m, 0, sizeof(*m));
	m->hdr.op = (uint16_t)op;
	m->hdr.role = rte_eal_process_type() == RTE_PROC_PRIMARY ? MP_ROLE_PRIMARY :
		      MP_ROLE_SECONDARY;
	m->hdr.pid = (int32_t)getpid();
	m->hdr.cookie = cookie;
	if (devstr != NULL)
		snprintf(m->hdr.devstr, sizeof(m->hdr.devstr), "%s", devstr);
}

/* rte_mp_msg.param is only 4-byte aligned: messages travel by copy. */
void
share_mp_msg_pack(struct rte_mp_msg *msg, const char *name, const struct mp_msg *m)
{
	memset(msg, 0, sizeof(*msg));
	snprintf(msg->name, sizeof(msg->name), "%s", name);
	msg->len_param = sizeof(*m);
	memcpy(msg->param, m, sizeof(*m));
}

/* The strings of @p m ended where they must end: it is input. */
static void
mp_msg_terminate(struct mp_msg *m)
{
	m->hdr.devstr[DEVSTR_MAX - 1] = '\0';
	if (m->hdr.op == MP_OP_ATTACH)
		m->attach.mz_name[RTE_MEMZONE_NAMESIZE - 1] = '\0';
}

int
share_mp_msg_unpack(const struct rte_mp_msg *msg, struct mp_msg *m)
{
	if (msg->len_param != (int)sizeof(*m))
		return EPROTO;
	memcpy(m, msg->param, sizeof(*m));
	mp_msg_terminate(m);
	return 0;
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
	pid_t pid;			/* the kernel's, with its HELLO: 0 before */
	pid_t asked_pid;		/* what its attach request said: for logs only */
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

/* The pid shown for peer @p p: the kernel's once it completed its attach. */
static pid_t
peer_shown_pid(const struct mp_peer *p)
{
	return p->pid != 0 ? p->pid : p->asked_pid;
}

/*
 * share_devs_lock held: the device of the peer @p id (NULL if it is gone
 * or its device closed), and the pid shown for it (peer_shown_pid()).
 */
struct mdevx_share_dev *
share_peer_dev_locked(uint64_t id, pid_t *pid)
{
	uint32_t i = peer_slot_locked(id);

	if (i == MAX_CONNS)
		return NULL;
	if (pid != NULL)
		*pid = peer_shown_pid(&peers[i]);
	return peers[i].dev;
}

/* share_devs_lock held, @p id a live peer (share_peer_dev_locked()): its count of rules. */
uint32_t *
share_peer_nb_rules_locked(uint64_t id)
{
	return &peers[peer_slot_locked(id)].nb_rules;
}

/*
 * Primary, share_devs_lock held: a connection for a secondary attaching
 * @p dev, whose request says it is @p asked_pid; *their receives the end
 * to pass. Our end gets the credentials of each message (SO_PASSCRED):
 * the pid shown once the peer completes its attach is the kernel's. 0 or
 * ENOSPC (MAX_PEERS on the device, or MAX_CONNS in all) or errno.
 */
static int
peer_new_locked(struct mdevx_share_dev *dev, pid_t asked_pid, int *their)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	uint32_t i = 0, k;
	int sv[2], err, on = 1;

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
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	ev.data.u64 = ((uint64_t)peers[i].gen << 32) | i;
	if (epoll_ctl(peer_epfd, EPOLL_CTL_ADD, sv[0], &ev) != 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	peers[i].fd = sv[0];
	peers[i].state = PEER_PENDING;
	peers[i].pid = 0;
	peers[i].asked_pid = asked_pid > 0 ? asked_pid : 0;
	peers[i].dev = dev;
	peers[i].deadline_ms = now_ms() + HANDSHAKE_MS;
	peers[i].nb_rules = 0;
	dev->nb_peers++;
	*their = sv[1];
	return 0;
}

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
		SHARE_LOG(DEBUG, "%s: secondary (pid %d) %s", dev->devstr,
			  (int)peer_shown_pid(p), why);
		if (peer_gone_fn != NULL)
			peer_gone_fn(dev, id);
	}
	if (peer_closed_fn != NULL)
		peer_closed_fn(id);
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
share_peers_release(const struct mdevx_share_dev *dev)
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
			out->pid = peer_shown_pid(p);
			out->attached = p->state == PEER_LIVE;
			out->rules = p->nb_rules;
		}
	}
	return n;
}

/*
 * share_devs_lock held: the ids of the peers of @p dev that completed
 * their attach (not those still in their handshake: they read nothing of
 * the device yet), at most @p max into @p ids; how many.
 */
uint32_t
share_peers_live_locked(const struct mdevx_share_dev *dev, uint64_t *ids, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < MAX_CONNS && n < max; i++)
		if (peers[i].dev == dev && peers[i].state == PEER_LIVE)
			ids[n++] = peer_id(i);
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
			SHARE_LOG(WARNING, "%s: attach of pid %d (by its request) not "
				  "completed within %u ms: dropped", peers[i].dev->devstr,
				  (int)peers[i].asked_pid, HANDSHAKE_MS);
			peer_drop_locked(i, "never completed its attach");
		}
	}
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Reader: peer @p id completes its attach; the kernel says it is process
 * @p pid (0: unknown). From now on withdrawals wait for it; it reads the
 * registry only once told so (our answer on its connection). A device
 * being closed is off the list: the peer is dropped, its attach fails.
 * Both under share_devs_lock, so a withdrawal that does not count the
 * peer marked its record withdrawn before the peer could import it.
 */
static void
peer_hello(const struct mp_msg *p, uint64_t id, pid_t pid)
{
	struct mdevx_share_dev *dev;
	struct mp_msg r;
	uint32_t i;

	pthread_mutex_lock(&share_devs_lock);
	i = peer_slot_locked(id);
	if (i == MAX_CONNS || peers[i].state != PEER_PENDING) {
		pthread_mutex_unlock(&share_devs_lock);
		return;
	}
	dev = peers[i].dev;
	if (dev == NULL || share_find_dev_locked(dev->devstr) != dev ||
	    dev->cookie != p->hdr.cookie || strcmp(dev->devstr, p->hdr.devstr) != 0) {
		peer_drop_locked(i, "attached a device being closed");
		pthread_mutex_unlock(&share_devs_lock);
		return;
	}
	peers[i].pid = pid;
	share_mp_msg_init(&r, MP_OP_HELLO, dev->devstr, dev->cookie);
	/* Its queue holds nothing else of ours: this never waits. */
	if (send(peers[i].fd, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(r))
		peers[i].state = PEER_LIVE;
	else
		peer_drop_locked(i, "could not be answered");
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Primary, reader: one message of peer @p id, sent by process @p pid
 * (the kernel's word; 0: unknown). Whatever its header claims, it comes
 * from a secondary: the connection says so.
 */
static void
peer_msg(const struct mp_msg *p, uint64_t id, pid_t pid)
{
	if (p->hdr.role != MP_ROLE_SECONDARY)
		return;
	if (p->hdr.op == MP_OP_HELLO)
		peer_hello(p, id, pid);
	else if (p->hdr.op <= MP_OP_MAX && peer_fns[p->hdr.op] != NULL)
		peer_fns[p->hdr.op](p, id);
}

/*
 * Reader: what came along with a message: the sender's credentials (our
 * end has SO_PASSCRED) into *pid, and any descriptor, which is closed (a
 * peer could otherwise exhaust ours). MSG_CTRUNC: the kernel dropped
 * what did not fit.
 */
static void
peer_ancillary(struct msghdr *mh, pid_t *pid)
{
	*pid = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*pid = cred.pid;
		} else if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(0)) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t k = 0; k < n; k++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(fd));
				close(fd);
			}
		}
	}
}

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
		struct mp_msg p;
		struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
		union {
			char buf[CMSG_SPACE(sizeof(struct ucred)) +
				 CMSG_SPACE(RTE_MP_MAX_FD_NUM * sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		pid_t pid;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			gone = true;
			break;
		}
		peer_ancillary(&mh, &pid);
		if (n != (ssize_t)sizeof(p) || (mh.msg_flags & MSG_TRUNC))
			continue;	/* not one of our messages */
		mp_msg_terminate(&p);
		peer_msg(&p, id, pid);
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
		reaping = idle_fn != NULL && idle_fn();
	}
	return NULL;
}

/* Primary, share_open_lock held: the epoll set and its reader, once. 0 or errno. */
int
share_peers_start(void)
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
share_conn_send_locked(const struct mdevx_share_dev *dev, const struct mp_msg *p, int tries)
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
			  p->hdr.op, strerror(err));
}

void
share_conn_send(const struct mdevx_share_dev *dev, const struct mp_msg *p, int tries)
{
	struct mdevx_share_dev *d = (struct mdevx_share_dev *)(uintptr_t)dev;

	pthread_mutex_lock(&d->conn_lock);
	share_conn_send_locked(d, p, tries);
	pthread_mutex_unlock(&d->conn_lock);
}

/* Secondary: @p p on the connection of the device it names (devstr, cookie). */
void
share_ack_send(const struct mp_msg *p, int tries)
{
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	dev = share_find_instance_locked(p->hdr.devstr, p->hdr.cookie);
	if (dev == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		SHARE_LOG(DEBUG, "%s: message %u: the device is not attached", p->hdr.devstr,
			  p->hdr.op);
		return;
	}
	pthread_mutex_lock(&dev->conn_lock);	/* the device is not freed under it */
	pthread_mutex_unlock(&share_devs_lock);
	share_conn_send_locked(dev, p, tries);
	pthread_mutex_unlock(&dev->conn_lock);
}

/* Secondary, attaching: our connection @p fd to the primary's instance @p cookie. */
void
share_conn_attached(struct mdevx_share_dev *dev, int fd, uint64_t cookie)
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
share_send_hello(const struct mdevx_share_dev *dev, unsigned int timeout_ms)
{
	struct pollfd pfd = { .fd = dev->conn_fd, .events = POLLIN };
	struct mp_msg p, r;
	ssize_t n;
	int pr;

	share_mp_msg_init(&p, MP_OP_HELLO, dev->devstr, dev->cookie);
	share_conn_send(dev, &p, ACK_SEND_TRIES);
	/* The attach owns the device: nothing else reads its connection. */
	do {
		pr = poll(&pfd, 1, (int)timeout_ms);
	} while (pr < 0 && errno == EINTR);
	if (pr == 0)
		return ETIMEDOUT;
	n = recv(dev->conn_fd, &r, sizeof(r), MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(r) || r.hdr.op != MP_OP_HELLO || r.hdr.cookie != dev->cookie)
		return ENODEV;
	return 0;
}

/*
 * Secondary: the primary need not wait for us any more: our connection
 * closes (the primary reads its end of file after our last message).
 */
void
share_send_detach(struct mdevx_share_dev *dev)
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
 * Primary, share_devs_lock held: the answer to an ATTACH of @p req from
 * @p peer into @p rep; *fd the command descriptor and *conn the
 * secondary's end of its connection, both to pass (-1: none).
 */
static void
answer_attach_locked(const struct mp_msg *req, const char *peer, struct mp_msg *rep, int *fd,
		     int *conn)
{
	struct mdevx_share_dev *dev = share_find_dev_locked(req->hdr.devstr);
	struct mdevx_share_snap_geo geo;
	int err;

	if (dev == NULL || !dev->primary) {
		rep->hdr.status = -ENODEV;
		/* DEBUG: any process of the instance can send these */
		if (rte_log_can_log(mdevx_share_logtype, RTE_LOG_DEBUG)) {
			char list[512];

			share_devs_describe_locked(list, sizeof(list));
			SHARE_LOG(DEBUG, "attach of %s by pid %d (by its request) refused: not a "
				  "device string this primary shares (%s)", req->hdr.devstr,
				  (int)req->hdr.pid, list);
		}
		return;
	}
	err = peer_new_locked(dev, req->hdr.pid, conn);
	if (err != 0) {
		rep->hdr.status = -err;
		SHARE_LOG(ERR, "%s: attach of %s refused: %s (%u secondaries at most)",
			  dev->devstr, peer, strerror(err), MAX_PEERS);
		return;
	}
	rep->hdr.cookie = dev->cookie;
	snprintf(rep->attach.mz_name, sizeof(rep->attach.mz_name), "%s", dev->mz->name);
	share_snap_geo(dev->snap, &geo);
	rep->attach.period_ms = geo.period_ms;
	rep->attach.counters = geo.counters;
	rep->attach.nb_slots = geo.nb_slots;
	rep->attach.primary_pid = (int32_t)geo.primary_pid;
	/* Our own descriptor: the device may be closed once we unlock. */
	*fd = mdevx_cmd_fd(dev->ctx);
	if (*fd >= 0)
		*fd = fcntl(*fd, F_DUPFD_CLOEXEC, 0);
	/* Without: our end reads the end of file, the reader drops it. */
	if (*fd < 0) {
		rep->hdr.status = -EBADF;
		close(*conn);
		*conn = -1;
	}
}

/* Primary, share_devs_lock held: secondary list.idx of the device of @p req. */
static void
answer_peer_locked(const struct mp_msg *req, struct mp_msg *rep)
{
	struct mdevx_share_dev *dev = share_find_dev_locked(req->hdr.devstr);
	struct mdevx_share_peer pv;
	uint32_t n;

	rep->hdr.status = -ENODEV;
	if (dev == NULL || !dev->primary)
		return;
	n = share_peer_at_locked(dev, req->list.idx, &pv);
	rep->hdr.status = req->list.idx < n ? 0 : -ENOENT;
	rep->list.idx = req->list.idx;
	rep->list.total = n;
	rep->list.id = pv.id;
	rep->list.pid = pv.pid;
	rep->list.rules = pv.rules;
	rep->list.attached = pv.attached;
}

/* Primary, share_devs_lock held: the device of index list.idx, and how many there are. */
static void
answer_list_locked(const struct mp_msg *req, struct mp_msg *rep)
{
	struct mdevx_share_dev *dev;
	uint32_t n = 0;

	rep->hdr.status = -ENOENT;
	TAILQ_FOREACH(dev, &share_devs, next) {
		if (!dev->primary)
			continue;
		if (n++ == req->list.idx) {
			rep->hdr.status = 0;
			rep->hdr.cookie = dev->cookie;
			snprintf(rep->hdr.devstr, sizeof(rep->hdr.devstr), "%s", dev->devstr);
		}
	}
	rep->list.idx = req->list.idx;
	rep->list.total = n;
}

/* Who may send operation @p op: the role its header must name. */
static uint16_t
mp_op_role(uint16_t op)
{
	return op == MP_OP_WITHDRAW || op == MP_OP_WITHDRAW_ALL ? MP_ROLE_PRIMARY :
	       MP_ROLE_SECONDARY;
}

/*
 * Runs on the EAL IPC thread. No allocation, no request of our own: the
 * attach reply carries the command fd (the receiver gets its own
 * descriptor); notifications (withdrawals) are one-way and go to their
 * handler. A request of the wrong role, or one this process does not
 * answer (a notification sent to the primary too), gets -EINVAL.
 */
static int
mp_handler(const struct rte_mp_msg *msg, const void *peer)
{
	const bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct mp_msg req, rep;
	struct rte_mp_msg reply;
	int fd = -1, conn = -1, ret;

	/*
	 * EAL hands over the descriptors that came with the message: none of
	 * our messages to a handler carries any, so each is closed, on every
	 * path (a sender could otherwise exhaust our descriptors).
	 */
	close_received_fds(msg);
	if (share_mp_msg_unpack(msg, &req) != 0)
		return -EINVAL;
	/* A notification is one-way; a secondary's handler checks its sender. */
	if (!primary && req.hdr.op <= MP_OP_MAX && notify_fns[req.hdr.op] != NULL)
		return notify_fns[req.hdr.op](&req, peer);
	share_mp_msg_init(&rep, req.hdr.op, req.hdr.devstr, 0);
	rep.hdr.status = -EINVAL;
	pthread_mutex_lock(&share_devs_lock);
	if (primary && req.hdr.role == mp_op_role(req.hdr.op) &&
	    (req.hdr.op == MP_OP_ATTACH || req.hdr.op == MP_OP_PEER || req.hdr.op == MP_OP_LIST)) {
		rep.hdr.status = 0;
		if (req.hdr.op == MP_OP_ATTACH)
			answer_attach_locked(&req, peer, &rep, &fd, &conn);
		else if (req.hdr.op == MP_OP_PEER)
			answer_peer_locked(&req, &rep);
		else if (req.hdr.op == MP_OP_LIST)
			answer_list_locked(&req, &rep);
	}
	pthread_mutex_unlock(&share_devs_lock);
	share_mp_msg_pack(&reply, msg->name, &rep);
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
share_mp_get(void)
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
	struct mp_msg p;

	if (dev == NULL || msg == NULL)
		return -EINVAL;
	share_mp_msg_init(&p, rec_idx == UINT32_MAX ? MP_OP_WITHDRAW_ALL : MP_OP_WITHDRAW,
		    dev->devstr, dev->cookie);
	p.hdr.role = MP_ROLE_PRIMARY;	/* as the primary's would say */
	p.withdraw.rec.idx = rec_idx;
	p.withdraw.rec.gen = generation;
	p.withdraw.seq = 1;
	share_mp_msg_pack(msg, MP_ACTION, &p);
	return 0;
}
#endif /* MDEVX_SHARE_TEST_HOOKS */

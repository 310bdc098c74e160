/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The server of testpmd's `mlx5 port attach <ident> socket=<path>`: one
 * thread polling a SOCK_SEQPACKET Unix socket and every client waiting
 * for its request, each with its own deadline; one exchange per
 * connection (an empty request; a reply of the PD handle as an int with a
 * duplicate of the command fd in SCM_RIGHTS). Built on libmdevx's public
 * mdevx_ctx_devargs() only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include "mdevx_attach.h"
#include "mdevx_errno.h"

RTE_LOG_REGISTER(mdevx_attach_logtype, pmd.common.mdevx.attach, NOTICE);

#define ATTACH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mdevx_attach_logtype, "mdevx_attach: " fmt "\n", \
		##__VA_ARGS__)

#define ATTACH_DEFAULT_MODE 0600u
#define ATTACH_DEFAULT_TIMEOUT_MS 1000u
/* A request is empty: anything up to this is read to be told apart. */
#define ATTACH_REQ_BUF 64
/* Descriptors a bad request may carry that the server closes at once. */
#define ATTACH_MAX_RX_FDS 16
/* Pause after a failed accept (EMFILE...), so as not to spin. */
#define ATTACH_ACCEPT_PAUSE_MS 100

struct mdevx_attach_server {
	struct mdevx_ctx *ctx;
	struct mdevx_obj *pd;
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	int timeout_ms;
	bool allow_other_users;		/* MDEVX_ATTACH_F_ALLOW_OTHER_USERS */
	uid_t euid;			/* the uid served without that flag */
	int listen_fd;
	int stop_rd;			/* the stop's pipe: readable once stopping */
	int stop_wr;
	dev_t sock_dev;			/* the socket file made by bind() */
	ino_t sock_ino;
	uint32_t pd_handle;
	pthread_t thread;
	struct mdevx_attach_stats stats;	/* written by the thread, atomics */
};

enum conn_result {
	CONN_PENDING,		/* no request yet: the client waits on */
	CONN_SERVED,
	CONN_BAD_REQUEST,
	CONN_TIMEOUT,
	CONN_HANGUP,
	CONN_ERROR,
};

/* A connection accepted, waiting for its request. */
struct client {
	int fd;
	bool uid_ok;			/* the server's uid, or other users allowed */
	uint64_t deadline;		/* now_ms() by which the request must come */
	char peer[48];			/* "pid P uid U", for the logs */
};

static void
stat_inc(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* Close every descriptor an SCM_RIGHTS message brought; how many. */
static unsigned int
close_rx_fds(struct msghdr *msg)
{
	struct cmsghdr *c;
	unsigned int n = 0;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		size_t len, i;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		len = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < len; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			close(fd);
			n++;
		}
	}
	return n;
}

/* The reply: the PD handle as an int, the duplicate in SCM_RIGHTS. */
static int
send_reply(int conn, int pd_handle, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &pd_handle, .iov_len = sizeof(pd_handle) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do {
		n = sendmsg(conn, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return n == (ssize_t)sizeof(pd_handle) ? 0 : EMSGSIZE;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * A readable client: read its request, answer it. CONN_PENDING when
 * nothing was there after all (the client keeps its deadline).
 */
static enum conn_result
serve_client(struct mdevx_attach_server *srv, const struct client *cl, short revents)
{
	union {
		char buf[CMSG_SPACE(ATTACH_MAX_RX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char data[ATTACH_REQ_BUF];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct mdevx_devargs da;
	unsigned int nfds;
	ssize_t n;
	int rc;

	do {
		n = recvmsg(cl->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN && (revents & (POLLHUP | POLLERR)) == 0)
		return CONN_PENDING;
	if (n < 0) {
		ATTACH_LOG(ERR, "%s: reading the request of %s: %s", srv->path, cl->peer,
			   strerror(errno));
		return CONN_ERROR;
	}
	nfds = close_rx_fds(&msg);
	if (n > 0 || nfds > 0 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
	    msg.msg_controllen > 0) {
		ATTACH_LOG(WARNING, "%s: bad request from %s: %zd bytes%s, %u descriptors "
			   "(closed), control data %zu bytes%s: closed without a reply",
			   srv->path, cl->peer, n,
			   (msg.msg_flags & MSG_TRUNC) ? " (truncated)" : "",
			   nfds, (size_t)msg.msg_controllen,
			   (msg.msg_flags & MSG_CTRUNC) ? " (truncated)" : "");
		return CONN_BAD_REQUEST;
	}
	/*
	 * An empty read is the request, or the end of a peer that closed:
	 * on a SEQPACKET socket only POLLHUP tells them apart. A peer gone
	 * after its request could not read the reply either.
	 */
	if ((revents & POLLHUP) != 0) {
		ATTACH_LOG(NOTICE, "%s: %s hung up before its request", srv->path, cl->peer);
		return CONN_HANGUP;
	}
	if (!cl->uid_ok) {
		ATTACH_LOG(WARNING, "%s: %s is not of the server's uid %u and other users "
			   "are not allowed (MDEVX_ATTACH_F_ALLOW_OTHER_USERS): closed without "
			   "a reply", srv->path, cl->peer, (unsigned int)srv->euid);
		return CONN_BAD_REQUEST;
	}
	if (mdevx_ctx_devargs(srv->ctx, srv->pd, &da) != 0) {
		ATTACH_LOG(ERR, "%s: no devargs for %s: %s", srv->path, cl->peer,
			   strerror(errno));
		return CONN_ERROR;
	}
	rc = send_reply(cl->fd, (int)da.pd_handle, da.cmd_fd);
	close(da.cmd_fd);
	if (rc != 0) {
		ATTACH_LOG(ERR, "%s: reply to %s: %s", srv->path, cl->peer, strerror(rc));
		return CONN_ERROR;
	}
	ATTACH_LOG(NOTICE, "%s: served %s: command fd and pd_handle=%u", srv->path, cl->peer,
		   da.pd_handle);
	return CONN_SERVED;
}

/* The peer's pid and uid, for the logs; whether its uid may be served. */
static void
client_identify(const struct mdevx_attach_server *srv, struct client *cl)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (getsockopt(cl->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
		snprintf(cl->peer, sizeof(cl->peer), "pid %d uid %u", (int)cred.pid,
			 (unsigned int)cred.uid);
		cl->uid_ok = srv->allow_other_users || cred.uid == srv->euid;
	} else {
		snprintf(cl->peer, sizeof(cl->peer), "a peer of unknown credentials");
		cl->uid_ok = srv->allow_other_users;
	}
}

static void
count_result(struct mdevx_attach_server *srv, enum conn_result res)
{
	switch (res) {
	case CONN_SERVED:
		stat_inc(&srv->stats.served);
		break;
	case CONN_BAD_REQUEST:
		stat_inc(&srv->stats.bad_requests);
		break;
	case CONN_TIMEOUT:
		stat_inc(&srv->stats.timeouts);
		break;
	case CONN_HANGUP:
		stat_inc(&srv->stats.hangups);
		break;
	case CONN_ERROR:
		stat_inc(&srv->stats.errors);
		break;
	case CONN_PENDING:
		break;
	}
}

/* The client with the earliest deadline: the one evicted when the table is full. */
static unsigned int
oldest_client(const struct client *cl, unsigned int n)
{
	unsigned int i, best = 0;

	for (i = 1; i < n; i++)
		if (cl[i].deadline < cl[best].deadline)
			best = i;
	return best;
}

/*
 * Accept what the listening socket has, each client with its own deadline.
 * A client beyond MDEVX_ATTACH_MAX_CLIENTS evicts the one nearest its
 * deadline (counted as a timeout). Returns the new count of clients.
 */
static unsigned int
accept_clients(struct mdevx_attach_server *srv, struct client *cl, unsigned int n,
	       uint64_t now, uint64_t *paused_until)
{
	for (;;) {
		int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		unsigned int i;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN) {
				ATTACH_LOG(ERR, "%s: accept: %s", srv->path, strerror(errno));
				/* try again a little later, not in a spin */
				*paused_until = now + ATTACH_ACCEPT_PAUSE_MS;
			}
			return n;
		}
		if (n == MDEVX_ATTACH_MAX_CLIENTS) {
			i = oldest_client(cl, n);
			ATTACH_LOG(WARNING, "%s: %u clients wait for their request: %s closed "
				   "before its deadline", srv->path, n, cl[i].peer);
			close(cl[i].fd);
			count_result(srv, CONN_TIMEOUT);
			cl[i] = cl[--n];
		}
		cl[n].fd = fd;
		cl[n].deadline = now + (uint64_t)srv->timeout_ms;
		client_identify(srv, &cl[n]);
		n++;
	}
}

/*
 * One poll over the stop pipe, the listening socket and every client that
 * has not sent its request yet: a silent client costs only its own
 * deadline, never another client's wait.
 */
static void *
server_thread(void *arg)
{
	struct mdevx_attach_server *srv = arg;
	struct pollfd pfd[2 + MDEVX_ATTACH_MAX_CLIENTS];
	struct client cl[MDEVX_ATTACH_MAX_CLIENTS];
	uint64_t now, paused_until = 0;
	unsigned int n = 0, i, k;
	int rc, wait;

	for (;;) {
		now = now_ms();
		wait = -1;
		pfd[0] = (struct pollfd){ .fd = srv->stop_rd, .events = POLLIN };
		/* a negative fd is left out of the poll: the accept pause */
		pfd[1] = (struct pollfd){ .fd = now >= paused_until ? srv->listen_fd : -1,
					  .events = POLLIN };
		if (now < paused_until)
			wait = (int)(paused_until - now);
		for (i = 0; i < n; i++) {
			uint64_t left = cl[i].deadline > now ? cl[i].deadline - now : 0;

			pfd[2 + i] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
			if (wait < 0 || left < (uint64_t)wait)
				wait = (int)left;
		}
		rc = poll(pfd, 2 + n, wait);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			ATTACH_LOG(ERR, "%s: poll: %s", srv->path, strerror(errno));
			break;
		}
		if (pfd[0].revents != 0)
			break;
		now = now_ms();
		/* requests first, then deadlines, then new clients */
		for (i = 0, k = 0; i < n; i++) {
			enum conn_result res = CONN_PENDING;

			if (pfd[2 + i].revents != 0)
				res = serve_client(srv, &cl[i], pfd[2 + i].revents);
			if (res == CONN_PENDING && cl[i].deadline <= now) {
				ATTACH_LOG(WARNING, "%s: %s sent no request in %d ms: closed",
					   srv->path, cl[i].peer, srv->timeout_ms);
				res = CONN_TIMEOUT;
			}
			if (res == CONN_PENDING) {
				cl[k++] = cl[i];
				continue;
			}
			count_result(srv, res);
			close(cl[i].fd);
		}
		n = k;
		if (pfd[1].revents != 0)
			n = accept_clients(srv, cl, n, now, &paused_until);
	}
	/* stopping: every client waiting is closed without a reply */
	for (i = 0; i < n; i++)
		close(cl[i].fd);
	return NULL;
}

/* Listening socket on srv->path, with the file's mode set before listen(). */
static int
server_listen(struct mdevx_attach_server *srv, mode_t mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, err;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	memcpy(sa.sun_path, srv->path, strlen(srv->path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(fd);
		return err;
	}
	/* Nobody can connect before listen(): the mode holds from the first client. */
	if (chmod(srv->path, mode) != 0 || stat(srv->path, &st) != 0 || listen(fd, 16) != 0) {
		err = errno;
		unlink(srv->path);
		close(fd);
		return err;
	}
	srv->sock_dev = st.st_dev;
	srv->sock_ino = st.st_ino;
	srv->listen_fd = fd;
	return 0;
}

MDEVX_API struct mdevx_attach_server *
mdevx_attach_server_start(struct mdevx_ctx *ctx, struct mdevx_obj *pd,
			  const struct mdevx_attach_conf *conf)
{
	struct mdevx_attach_server *srv;
	struct mdevx_devargs da;
	int p[2], err;

	if (conf == NULL || conf->path == NULL || conf->path[0] == '\0' || conf->mode > 0777 ||
	    (conf->flags & ~MDEVX_ATTACH_F_ALLOW_OTHER_USERS) != 0) {
		ATTACH_LOG(ERR, "bad configuration: %s", conf == NULL ? "NULL" :
			   conf->path == NULL || conf->path[0] == '\0' ? "no socket path" :
			   conf->mode > 0777 ? "mode above 0777" : "unknown flags");
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	/* Connecting takes write permission: a group or other write bit lets them in. */
	if ((conf->mode & 0022u) != 0 && (conf->flags & MDEVX_ATTACH_F_ALLOW_OTHER_USERS) == 0) {
		ATTACH_LOG(ERR, "%s: mode %04o lets other users connect, and every client gets "
			   "the command fd: refused without MDEVX_ATTACH_F_ALLOW_OTHER_USERS",
			   conf->path, (unsigned int)conf->mode);
		mdevx_set_errno(EPERM);
		return NULL;
	}
	if (strlen(conf->path) >= sizeof(srv->path)) {
		ATTACH_LOG(ERR, "socket path of %zu bytes: at most %zu", strlen(conf->path),
			   sizeof(srv->path) - 1);
		mdevx_set_errno(ENAMETOOLONG);
		return NULL;
	}
	/* The context and PD must be able to answer: the first reply, tried now. */
	if (mdevx_ctx_devargs(ctx, pd, &da) != 0) {
		err = errno;
		ATTACH_LOG(ERR, "%s: context or PD refused: %s", conf->path, strerror(err));
		mdevx_set_errno(err);
		return NULL;
	}
	close(da.cmd_fd);
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	srv->ctx = ctx;
	srv->pd = pd;
	srv->pd_handle = da.pd_handle;
	memcpy(srv->path, conf->path, strlen(conf->path) + 1);
	srv->timeout_ms = (int)(conf->request_timeout_ms != 0 ? conf->request_timeout_ms :
				ATTACH_DEFAULT_TIMEOUT_MS);
	if (srv->timeout_ms < 0)
		srv->timeout_ms = INT32_MAX;
	srv->allow_other_users = (conf->flags & MDEVX_ATTACH_F_ALLOW_OTHER_USERS) != 0;
	srv->euid = geteuid();
	srv->listen_fd = -1;
	if (pipe2(p, O_CLOEXEC) != 0) {
		err = errno;
		free(srv);
		mdevx_set_errno(err);
		return NULL;
	}
	srv->stop_rd = p[0];
	srv->stop_wr = p[1];
	err = server_listen(srv, conf->mode != 0 ? conf->mode : ATTACH_DEFAULT_MODE);
	if (err == 0) {
		err = pthread_create(&srv->thread, NULL, server_thread, srv);
		if (err != 0) {
			unlink(srv->path);
			close(srv->listen_fd);
		}
	}
	if (err != 0) {
		ATTACH_LOG(ERR, "%s: %s", srv->path, strerror(err));
		close(p[0]);
		close(p[1]);
		free(srv);
		mdevx_set_errno(err);
		return NULL;
	}
	ATTACH_LOG(NOTICE, "%s: serving %s, pd_handle=%u", srv->path,
		   mdevx_backend_name(ctx), srv->pd_handle);
	return srv;
}

MDEVX_API int
mdevx_attach_server_stats(const struct mdevx_attach_server *srv, struct mdevx_attach_stats *stats)
{
	if (srv == NULL || stats == NULL)
		return mdevx_ret(EINVAL);
	stats->served = __atomic_load_n(&srv->stats.served, __ATOMIC_RELAXED);
	stats->bad_requests = __atomic_load_n(&srv->stats.bad_requests, __ATOMIC_RELAXED);
	stats->timeouts = __atomic_load_n(&srv->stats.timeouts, __ATOMIC_RELAXED);
	stats->hangups = __atomic_load_n(&srv->stats.hangups, __ATOMIC_RELAXED);
	stats->errors = __atomic_load_n(&srv->stats.errors, __ATOMIC_RELAXED);
	return 0;
}

MDEVX_API uint32_t
mdevx_attach_server_pd_handle(const struct mdevx_attach_server *srv)
{
	if (srv == NULL) {
		mdevx_set_errno(EINVAL);
		return UINT32_MAX;
	}
	return srv->pd_handle;
}

MDEVX_API int
mdevx_attach_server_stop(struct mdevx_attach_server *srv)
{
	struct stat st;
	ssize_t n;

	if (srv == NULL)
		return mdevx_ret(EINVAL);
	do {
		n = write(srv->stop_wr, "x", 1);
	} while (n < 0 && errno == EINTR);
	pthread_join(srv->thread, NULL);
	close(srv->listen_fd);
	/* Another program may have replaced the file meanwhile: not ours to remove. */
	if (lstat(srv->path, &st) == 0 && st.st_dev == srv->sock_dev &&
	    st.st_ino == srv->sock_ino)
		unlink(srv->path);
	close(srv->stop_rd);
	close(srv->stop_wr);
	ATTACH_LOG(INFO, "%s: stopped after %" PRIu64 " served", srv->path, srv->stats.served);
	free(srv);
	return 0;
}

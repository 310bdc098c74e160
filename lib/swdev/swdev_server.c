/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: daemon core (transport over the engine).
 *
 * Entities in the epoll set:
 *   - the main listening socket (SOCK_SEQPACKET) and the control listener;
 *   - main connections: one per uverbs file; only OPEN / ATTACH arrive there,
 *     each carrying the daemon's end of a private channel;
 *   - private channels (SOCK_STREAM): framed requests and replies of one
 *     client context; one request at a time (the next one is not read until
 *     the reply is out), so a client cannot queue unbounded work;
 *   - control connections (SOCK_SEQPACKET): one datagram per request, a
 *     fixed header and a payload of at most SWDEV_PROTO_CTL_MAX_PAYLOAD
 *     bytes (frames), received into one buffer of the daemon;
 *   - an eventfd to stop the loop.
 * Delayed replies (delay faults) wait in a queue ordered by due time; the
 * epoll timeout is the time to the first one, or to the deadline of the
 * oldest connection that has not completed its handshake.
 *
 * Peers are not trusted: every connection's uid (SO_PEERCRED) must be the
 * daemon's or an allowed one, connections without a handshake are capped
 * and timed out, and requests being received are bounded in bytes.
 *
 * Files: swdev_server.c (this one) holds the accepting of connections
 * and their handshake deadline, setup and the event loop;
 * swdev_server_chan.c the private channels and the delayed replies;
 * swdev_server_conn.c the main connections; swdev_server_ctl.c the
 * control connections; swdev_server_core.c the helpers they share (the
 * log, peer warnings, the grave, connections without a handshake, the
 * epoll set);
 * swdev_server_priv.h their structs, constants and shared functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "swdev_server_priv.h"

/* -------------------------------------------------- accepting connections */

static bool
peer_allowed(const struct swdev_server *srv, uid_t uid)
{
	unsigned int i;

	if (uid == srv->euid)
		return true;
	for (i = 0; i < srv->opts.n_allow_uids; i++)
		if (srv->opts.allow_uids[i] == uid)
			return true;
	return false;
}

/*
 * Accept one connection. Out of descriptors, the pending connection is
 * accepted on the spare descriptor's slot and closed at once, so a level-
 * triggered listener does not spin. -1 when there is nothing to serve.
 */
static int
accept_one(struct swdev_server *srv, int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd >= 0)
		return fd;
	if ((errno == EMFILE || errno == ENFILE) && srv->spare_fd >= 0) {
		close(srv->spare_fd);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		srv_peer_warn(srv, WARN_ACCEPT, "out of file descriptors: connection refused");
	} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
		srv_peer_warn(srv, WARN_ACCEPT, "accept: %s", strerror(errno));
	}
	return -1;
}

/* Close a connection without a handshake. */
static void
pend_close(struct swdev_server *srv, struct ent *e, const char *why)
{
	if (e->type == ENT_CTL)
		srv_ctl_close(srv, (struct ctl *)e);
	else
		srv_conn_close(srv, (struct conn *)e, why);
}

/*
 * The cap of connections without a handshake is reached: the oldest goes.
 * A client that connects and sends its OPEN at once is served in the next
 * round of the loop, so a flood of idle connections does not lock it out.
 */
static void
pend_evict_oldest(struct swdev_server *srv)
{
	struct ent *e = srv->pend_head;

	srv_peer_warn(srv, WARN_EVICT, "%u connections without a handshake (--max-pending): the "
		      "oldest, from pid %d uid %u, closed", srv->npending, (int)e->peer_pid,
		      (unsigned int)e->peer_uid);
	pend_close(srv, e, "too many connections without a handshake");
}

/*
 * Accept on @p listen_fd into a new zeroed entity of @p size bytes (a
 * struct starting with its struct ent) of @p type, watched for input.
 * The peer's uid decides: an allowed one is served, any other is only
 * answered EACCES (to its OPEN or first control request) and closed. A
 * main connection until its OPEN, and a refused one until its answer, is
 * pending: closed at its deadline, and the oldest is closed when there are
 * too many. NULL when nothing was accepted or it was closed at once.
 */
static struct ent *
accept_ent(struct swdev_server *srv, int listen_fd, size_t size, enum ent_type type)
{
	const char *kind = type == ENT_CTL ? "control connection" : "connection";
	struct ucred cr;
	socklen_t len = sizeof(cr);
	bool allowed, pending;
	struct ent *e;
	int fd;

	fd = accept_one(srv, listen_fd);
	if (fd < 0)
		return NULL;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		srv_peer_warn(srv, WARN_CREDS, "%s: no peer credentials (%s), closed", kind,
			      strerror(errno));
		close(fd);
		return NULL;
	}
	allowed = peer_allowed(srv, cr.uid);
	pending = type == ENT_CONN || !allowed;
	if (!allowed)
		srv_peer_warn(srv, WARN_UID, "%s from pid %d uid %u gid %u refused: uid not "
			      "allowed (daemon uid %u, --allow-uid)", kind, (int)cr.pid,
			      (unsigned int)cr.uid, (unsigned int)cr.gid, (unsigned int)srv->euid);
	if (pending && srv->npending >= srv->opts.max_pending)
		pend_evict_oldest(srv);
	if (!pending && srv->nctls >= SWDEV_SERVER_MAX_CTL) {
		srv_peer_warn(srv, WARN_CTL_CAP, "%s from pid %d uid %u closed: %u control "
			      "connections already", kind, (int)cr.pid, (unsigned int)cr.uid,
			      srv->nctls);
		close(fd);
		return NULL;
	}
	e = calloc(1, size);
	if (e == NULL) {
		close(fd);
		return NULL;
	}
	e->type = type;
	e->fd = fd;
	e->peer_pid = cr.pid;
	e->peer_uid = cr.uid;
	e->denied = !allowed;
	if (srv_ep_add(srv, e, EPOLLIN | EPOLLRDHUP) != 0) {
		close(fd);
		free(e);
		return NULL;
	}
	if (pending)
		srv_pend_add(srv, e);
	else
		srv->nctls++;
	return e;
}

static void
listen_event(struct swdev_server *srv)
{
	struct conn *c = (struct conn *)accept_ent(srv, srv->listen.fd, sizeof(*c), ENT_CONN);

	if (c == NULL)
		return;
	c->srv = srv;
	c->next = srv->conns;
	srv->conns = c;
}

static void
ctl_listen_event(struct swdev_server *srv)
{
	struct ctl *k = (struct ctl *)accept_ent(srv, srv->ctl_listen.fd, sizeof(*k), ENT_CTL);

	if (k == NULL)
		return;
	k->next = srv->ctls;
	srv->ctls = k;
}

/* Close the connections whose handshake deadline passed. */
static void
expire_pending(struct swdev_server *srv)
{
	uint64_t now = srv_now_ns();

	while (srv->pend_head != NULL && srv->pend_head->deadline_ns <= now) {
		struct ent *e = srv->pend_head;

		srv_peer_warn(srv, WARN_HANDSHAKE,
			      "%s from pid %d uid %u: no %s within %u ms, closed",
			      e->type == ENT_CTL ? "control connection" : "connection",
			      (int)e->peer_pid, (unsigned int)e->peer_uid,
			      e->type == ENT_CTL ? "request" : "OPEN", srv->opts.handshake_ms);
		pend_close(srv, e, "no handshake in time");
	}
}

/* ------------------------------------------------------------ setup, loop */

static int
connect_seqpacket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
swdev_server_is_live(const char *sock_path)
{
	int fd = connect_seqpacket(sock_path);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Remove @p path if it is a socket nobody answers on. 0 or errno. */
static int
clear_stale(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : errno;
	if (!S_ISSOCK(st.st_mode))
		return EEXIST;
	if (swdev_server_is_live(path))
		return EADDRINUSE;
	swdev_log(SWDEV_LOG_INFO, "removing stale socket %s", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return errno;
	return 0;
}

/*
 * Listen on @p path. The socket file is created 0600 whatever the umask
 * (the umask is set around bind(); one thread at this point), then given
 * to the group and made 0660 with opts->has_group, before listen(): no
 * connection is accepted before the mode is final.
 */
static int
listen_on(const struct swdev_server *srv, const char *path, int *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old_mask;
	int fd, rc, e;

	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	old_mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	e = errno;
	umask(old_mask);
	if (rc < 0) {
		close(fd);
		return e;
	}
	if (srv->opts.has_group &&
	    (chown(path, (uid_t)-1, srv->opts.group) < 0 || chmod(path, 0660) < 0)) {
		e = errno;
		swdev_log(SWDEV_LOG_ERR, "%s: group %u, mode 0660: %s", path,
			  (unsigned int)srv->opts.group, strerror(e));
		unlink(path);
		close(fd);
		return e;
	}
	if (listen(fd, 128) < 0) {
		e = errno;
		unlink(path);
		close(fd);
		return e;
	}
	*out = fd;
	return 0;
}

/* Hold <path>.lock for the daemon's lifetime: one instance per path. */
static int
take_lock(struct swdev_server *srv)
{
	for (;;) {
		struct stat a, b;
		int fd = open(srv->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0)
			return errno;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;

			close(fd);
			return e == EWOULDBLOCK ? EADDRINUSE : e;
		}
		/* The previous owner may have unlinked the file meanwhile. */
		if (fstat(fd, &a) == 0 && stat(srv->lock_path, &b) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			srv->lock_fd = fd;
			return 0;
		}
		close(fd);
	}
}

static void
make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0)
		swdev_log(SWDEV_LOG_INFO, "created directory %s", dir);
}

void
swdev_server_opts_default(struct swdev_server_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->handshake_ms = SWDEV_SERVER_HANDSHAKE_MS;
	opts->max_pending = SWDEV_SERVER_MAX_PENDING;
}

struct swdev_server *
swdev_server_create(struct swdev_engine *eng, const char *sock_path,
		    const struct swdev_server_opts *opts)
{
	struct swdev_server *srv;
	const char *stale;
	int err;

	if (eng == NULL || sock_path == NULL || sock_path[0] == '\0' ||
	    (opts != NULL && (opts->handshake_ms == 0 || opts->max_pending == 0 ||
			      opts->n_allow_uids > SWDEV_SERVER_MAX_ALLOW_UIDS))) {
		errno = EINVAL;
		return NULL;
	}
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL)
		return NULL;
	if (opts != NULL)
		srv->opts = *opts;
	else
		swdev_server_opts_default(&srv->opts);
	srv->euid = geteuid();
	srv->eng = eng;
	srv->epfd = -1;
	srv->listen.fd = -1;
	srv->ctl_listen.fd = -1;
	srv->wake.fd = -1;
	srv->lock_fd = -1;
	srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	srv->ctl_buf = malloc(CTL_BUF_LEN);
	if (srv->ctl_buf == NULL) {
		err = ENOMEM;
		goto fail;
	}
	if (strlen(sock_path) >= sizeof(srv->path) ||
	    swdev_proto_ctl_path(sock_path, srv->ctl_path, sizeof(srv->ctl_path)) != 0) {
		err = ENAMETOOLONG;
		goto fail;
	}
	snprintf(srv->path, sizeof(srv->path), "%s", sock_path);
	snprintf(srv->lock_path, sizeof(srv->lock_path), "%s.lock", sock_path);
	make_parent_dir(sock_path);
	err = take_lock(srv);
	if (err != 0) {
		swdev_log(SWDEV_LOG_ERR, "%s: %s", srv->lock_path,
			  err == EADDRINUSE ? "another instance holds the lock" : strerror(err));
		goto fail;
	}
	stale = srv->path;
	err = clear_stale(stale);
	if (err == 0) {
		stale = srv->ctl_path;
		err = clear_stale(stale);
	}
	if (err != 0) {
		swdev_log(SWDEV_LOG_ERR, "%s: %s", stale,
			  err == EADDRINUSE ? "another live instance serves it" :
			  err == EEXIST ? "exists and is not a socket" : strerror(err));
		goto fail_unlock;
	}
	srv->epfd = epoll_create1(EPOLL_CLOEXEC);
	srv->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (srv->epfd < 0 || srv->wake.fd < 0) {
		err = errno;
		goto fail_unlock;
	}
	err = listen_on(srv, srv->path, &srv->listen.fd);
	if (err != 0) {
		swdev_log(SWDEV_LOG_ERR, "listen on %s: %s", srv->path, strerror(err));
		goto fail_unlock;
	}
	err = listen_on(srv, srv->ctl_path, &srv->ctl_listen.fd);
	if (err != 0) {
		swdev_log(SWDEV_LOG_ERR, "listen on %s: %s", srv->ctl_path, strerror(err));
		unlink(srv->path);
		goto fail_unlock;
	}
	srv->listen.type = ENT_LISTEN;
	srv->ctl_listen.type = ENT_CTL_LISTEN;
	srv->wake.type = ENT_WAKE;
	if (srv_ep_add(srv, &srv->listen, EPOLLIN) != 0 ||
	    srv_ep_add(srv, &srv->ctl_listen, EPOLLIN) != 0 ||
	    srv_ep_add(srv, &srv->wake, EPOLLIN) != 0) {
		err = ENOMEM;
		unlink(srv->path);
		unlink(srv->ctl_path);
		goto fail_unlock;
	}
	swdev_log(SWDEV_LOG_INFO, "listening on %s (control %s), mode %s, uid %u%s%s",
		  srv->path, srv->ctl_path, srv->opts.has_group ? "0660" : "0600",
		  (unsigned int)srv->euid,
		  srv->opts.n_allow_uids > 0 ? " and the allowed uids" : "",
		  srv->opts.test_mode ? ", test mode" : "");
	return srv;
fail_unlock:
	unlink(srv->lock_path);
fail:
	if (srv->listen.fd >= 0)
		close(srv->listen.fd);
	if (srv->ctl_listen.fd >= 0)
		close(srv->ctl_listen.fd);
	if (srv->wake.fd >= 0)
		close(srv->wake.fd);
	if (srv->epfd >= 0)
		close(srv->epfd);
	if (srv->lock_fd >= 0)
		close(srv->lock_fd);
	if (srv->spare_fd >= 0)
		close(srv->spare_fd);
	free(srv->ctl_buf);
	free(srv);
	errno = err;
	return NULL;
}

void
swdev_server_stop(struct swdev_server *srv)
{
	uint64_t one = 1;

	__atomic_store_n(&srv->stop, 1, __ATOMIC_RELEASE);
	if (write(srv->wake.fd, &one, sizeof(one)) < 0) {
		/* The counter is already non-zero: the loop wakes anyway. */
	}
}

static void
fire_timers(struct swdev_server *srv)
{
	uint64_t now = srv_now_ns();

	while (srv->timers != NULL && srv->timers->due_ns <= now) {
		struct chan *ch = srv->timers;

		srv_timer_remove(srv, ch);
		if (srv_chan_flush(srv, ch) && ch->tx == NULL)
			srv_chan_readable(srv, ch);	/* requests that queued meanwhile */
	}
}

static int
next_timeout_ms(struct swdev_server *srv)
{
	uint64_t now, due;

	if (srv->timers == NULL && srv->pend_head == NULL)
		return -1;
	due = UINT64_MAX;
	if (srv->timers != NULL)
		due = srv->timers->due_ns;
	if (srv->pend_head != NULL && srv->pend_head->deadline_ns < due)
		due = srv->pend_head->deadline_ns;
	now = srv_now_ns();
	if (due <= now)
		return 0;
	return (int)((due - now + 999999u) / 1000000u);
}

int
swdev_server_run(struct swdev_server *srv)
{
	struct epoll_event evs[MAX_EVENTS];

	while (!server_stopping(srv)) {
		int i, n = epoll_wait(srv->epfd, evs, MAX_EVENTS, next_timeout_ms(srv));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			swdev_log(SWDEV_LOG_ERR, "epoll_wait: %s", strerror(errno));
			return errno;
		}
		for (i = 0; i < n && !server_stopping(srv); i++) {
			struct ent *e = evs[i].data.ptr;
			uint32_t ev = evs[i].events;

			if (e->dead)
				continue;	/* closed earlier in this batch */
			switch (e->type) {
			case ENT_LISTEN:
				listen_event(srv);
				break;
			case ENT_CTL_LISTEN:
				ctl_listen_event(srv);
				break;
			case ENT_WAKE:
				break;
			case ENT_CONN:
				srv_conn_event(srv, (struct conn *)e, ev);
				break;
			case ENT_CHAN:
				srv_chan_event(srv, (struct chan *)e, ev);
				break;
			case ENT_CTL:
				srv_ctl_event(srv, (struct ctl *)e, ev);
				break;
			}
		}
		fire_timers(srv);
		expire_pending(srv);
		srv_grave_flush(srv);
	}
	srv_peer_warn_flush(srv);
	return 0;
}

void
swdev_server_destroy(struct swdev_server *srv)
{
	if (srv == NULL)
		return;
	while (srv->conns != NULL)
		srv_conn_close(srv, srv->conns, "daemon shutting down");
	while (srv->ctls != NULL)
		srv_ctl_close(srv, srv->ctls);
	close(srv->listen.fd);
	close(srv->ctl_listen.fd);
	close(srv->wake.fd);
	close(srv->epfd);
	unlink(srv->path);
	unlink(srv->ctl_path);
	unlink(srv->lock_path);
	close(srv->lock_fd);
	if (srv->spare_fd >= 0)
		close(srv->spare_fd);
	srv_grave_flush(srv);
	swdev_log(SWDEV_LOG_INFO, "stopped, %s removed", srv->path);
	free(srv->ctl_buf);
	free(srv);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the daemon's main connections (SOCK_SEQPACKET),
 * one per uverbs file: only OPEN and ATTACH arrive there, each with the
 * daemon's end of a new private channel; closing one closes the file and
 * its channels.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "swdev_server_priv.h"

/* ------------------------------------------------------ main connections */

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void
srv_conn_close(struct swdev_server *srv, struct conn *c, const char *why)
{
	struct conn **pp;

	for (pp = &srv->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	while (c->chans != NULL) {
		struct chan *ch = c->chans;

		c->chans = ch->next;
		srv_chan_free(srv, ch);
	}
	srv_pend_remove(srv, &c->e);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->e.fd, NULL);
	close(c->e.fd);
	if (c->file != NULL) {
		swdev_log(SWDEV_LOG_INFO, "file %u on %s: %s, destroying its objects",
			  swdev_file_id(c->file), swdev_file_devname(c->file), why);
		swdev_file_close(c->file);
	} else {
		swdev_log(SWDEV_LOG_DEBUG, "connection closed before OPEN: %s", why);
	}
	srv_grave_add(srv, &c->e);
}

/* Accept @p fd as a channel of @p c; reply to OPEN/ATTACH on it. */
static int
conn_add_chan(struct swdev_server *srv, struct conn *c, int fd,
	      const struct swdev_req_hdr *req, int err)
{
	struct swdev_open_rep *orep;
	struct swdev_rep_hdr *rep;
	struct chan *ch;
	uint8_t *buf;

	ch = calloc(1, sizeof(*ch));
	buf = srv_rep_alloc(req, sizeof(*orep));
	if (ch == NULL || buf == NULL) {
		free(ch);
		free(buf);
		close(fd);
		return ENOMEM;
	}
	set_nonblock(fd);
	ch->e.type = ENT_CHAN;
	ch->e.fd = fd;
	ch->conn = c;
	ch->id = ++srv->next_chan_id;
	ch->events = EPOLLIN | EPOLLRDHUP;
	if (srv_ep_add(srv, &ch->e, ch->events) != 0) {
		free(ch);
		free(buf);
		close(fd);
		return ENOMEM;
	}
	ch->next = c->chans;
	c->chans = ch;
	c->nchans++;
	rep = (struct swdev_rep_hdr *)buf;
	rep->err = (uint32_t)err;
	if (err == 0) {
		orep = (struct swdev_open_rep *)(buf + sizeof(*rep));
		snprintf(orep->devname, sizeof(orep->devname), "%s", swdev_file_devname(c->file));
		rep->val = swdev_file_uid(c->file);
		rep->file_id = swdev_file_id(c->file);
		rep->outlen = sizeof(*orep);
	}
	srv_chan_reply(srv, ch, buf, sizeof(*rep) + rep->outlen, 0);
	return 0;
}

/* A channel fd must be a Unix stream socket. */
static bool
chan_fd_ok(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	if (fd < 0)
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return false;
	return type == SOCK_STREAM;
}

static void
conn_bad(struct conn *c, const char *what)
{
	c->nbad++;
	swdev_log(SWDEV_LOG_WARN, "file %u: dropped %s on the command fd (%" PRIu64 " so far)",
		  c->file != NULL ? swdev_file_id(c->file) : 0, what, c->nbad);
}

/* One datagram on a main connection. false when the connection was closed. */
static bool
conn_message(struct swdev_server *srv, struct conn *c, const uint8_t *buf, ssize_t n,
	     int fd, int trunc)
{
	struct swdev_req_hdr req;
	char devname[SWDEV_PROTO_NAME_LEN];
	int err;

	memset(&req, 0, sizeof(req));
	if (n >= (ssize_t)sizeof(req))
		memcpy(&req, buf, sizeof(req));
	if (trunc || n < (ssize_t)sizeof(req) || swdev_proto_check_req(&req) != 0 ||
	    (size_t)n != sizeof(req) + req.inlen || !chan_fd_ok(fd) ||
	    (req.op != SWDEV_OP_OPEN && req.op != SWDEV_OP_ATTACH)) {
		if (fd >= 0)
			close(fd);
		if (c->file == NULL) {
			/* Not a uverbs file yet: nobody else is affected. */
			srv_peer_warn(srv, WARN_MALFORMED,
				      "connection: bad first message, disconnecting");
			srv_conn_close(srv, c, "malformed first message");
			return false;
		}
		conn_bad(c, "a malformed message");
		return true;
	}
	if (c->e.denied) {
		/* Answered, as the open of a device node without permission. */
		srv_refuse_and_close(fd, &req, EACCES);
		srv_conn_close(srv, c, "peer not allowed");
		return false;
	}
	if (req.op == SWDEV_OP_OPEN) {
		if (c->file != NULL) {
			close(fd);
			conn_bad(c, "a second OPEN");
			return true;
		}
		if (req.inlen == 0 || req.inlen > sizeof(devname)) {
			err = ENODEV;
		} else {
			memcpy(devname, buf + sizeof(req), req.inlen);
			devname[sizeof(devname) - 1] = '\0';
			if (memchr(buf + sizeof(req), '\0', req.inlen) == NULL &&
			    req.inlen == sizeof(devname))
				err = ENODEV;
			else
				err = 0;
			if (err == 0) {
				if (req.inlen < sizeof(devname))
					devname[req.inlen] = '\0';
				c->file = swdev_file_open(srv->eng, devname);
				if (c->file == NULL)
					err = errno != 0 ? errno : ENODEV;
			}
		}
		if (err != 0) {
			/* Answer on the channel, then drop both. */
			srv_refuse_and_close(fd, &req, (uint32_t)err);
			swdev_log(SWDEV_LOG_INFO, "OPEN failed: errno %d (%s)", err, strerror(err));
			srv_conn_close(srv, c, "OPEN failed");
			return false;
		}
		srv_pend_remove(srv, &c->e);
		swdev_log(SWDEV_LOG_INFO, "file %u opened on %s (uid %u) by pid %d user %u",
			  swdev_file_id(c->file), swdev_file_devname(c->file),
			  swdev_file_uid(c->file), (int)c->e.peer_pid, (unsigned int)c->e.peer_uid);
		conn_add_chan(srv, c, fd, &req, 0);
		return true;
	}
	/* ATTACH */
	if (c->file == NULL) {
		close(fd);
		srv_conn_close(srv, c, "ATTACH before OPEN");
		return false;
	}
	if (req.inlen != 0 || c->nchans >= MAX_CHANS_PER_FILE) {
		srv_refuse_and_close(fd, &req, req.inlen != 0 ? EINVAL : EMFILE);
		conn_bad(c, "a refused ATTACH");
		return true;
	}
	swdev_log(SWDEV_LOG_DEBUG, "file %u: ATTACH", swdev_file_id(c->file));
	conn_add_chan(srv, c, fd, &req, 0);
	return true;
}

void
srv_conn_event(struct swdev_server *srv, struct conn *c, uint32_t events)
{
	/* Big enough for any valid OPEN/ATTACH; longer datagrams are truncated. */
	uint8_t buf[sizeof(struct swdev_req_hdr) + SWDEV_PROTO_NAME_LEN + 16];
	/*
	 * Read hang-up without hang-up: a holder shut the shared command fd
	 * down for writing (shutdown() acts on the socket every holder
	 * shares), so nothing new can arrive; what is queued is drained at
	 * once. It is not the end of the file: a uverbs file lives while any
	 * holder has it open.
	 */
	bool wr_shut = (events & EPOLLRDHUP) && !(events & (EPOLLHUP | EPOLLERR));
	int budget = wr_shut ? INT_MAX : 16;

	while ((events & EPOLLIN) && budget-- > 0) {
		int fd, trunc;
		ssize_t n = swdev_proto_recv_fd(c->e.fd, buf, sizeof(buf), &fd, &trunc,
						MSG_DONTWAIT);

		if (n < 0) {
			if (n == -EAGAIN || n == -EWOULDBLOCK)
				break;
			srv_conn_close(srv, c, strerror((int)-n));
			return;
		}
		if (n == 0 && fd < 0) {
			/* EOF, or an empty datagram: the events decide below,
			 * except before OPEN, where either ends the connection. */
			if (c->file == NULL) {
				srv_conn_close(srv, c, "end of stream or empty first message");
				return;
			}
			break;
		}
		if (!conn_message(srv, c, buf, n, fd, trunc))
			return;
	}
	if (events & (EPOLLHUP | EPOLLERR)) {
		/* Every holder of the command fd is gone. */
		srv_conn_close(srv, c, "last holder of the command fd gone");
		return;
	}
	if (wr_shut) {
		struct epoll_event ev = { .events = 0, .data.ptr = &c->e };

		if (c->file == NULL) {
			srv_conn_close(srv, c, "shut down before OPEN");
			return;
		}
		/* Stop reading (the end of stream would be reported forever);
		 * EPOLLHUP, always reported, tells when the last holder is gone. */
		swdev_log(SWDEV_LOG_WARN, "file %u: a holder shut the command fd down; "
			  "no new context can join, the file stays until the last holder closes",
			  swdev_file_id(c->file));
		if (epoll_ctl(srv->epfd, EPOLL_CTL_MOD, c->e.fd, &ev) < 0)
			srv_conn_close(srv, c, "cannot stop reading a shut down command fd");
	}
}

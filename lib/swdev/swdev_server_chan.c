/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the daemon's private channels (SOCK_STREAM), one
 * per client context: reading a framed request within the receive
 * budgets, running it on the engine, and sending its reply at once or,
 * for a delay fault, from the queue of delayed replies ordered by due time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "swdev_server_priv.h"

/* ----------------------------------------------------------------- timers */

void
srv_timer_remove(struct swdev_server *srv, struct chan *ch)
{
	struct chan **pp;

	if (!ch->delayed)
		return;
	for (pp = &srv->timers; *pp != NULL; pp = &(*pp)->tq_next) {
		if (*pp == ch) {
			*pp = ch->tq_next;
			break;
		}
	}
	ch->delayed = false;
	ch->tq_next = NULL;
}

static void
timer_insert(struct swdev_server *srv, struct chan *ch, uint64_t due)
{
	struct chan **pp;

	ch->due_ns = due;
	ch->delayed = true;
	for (pp = &srv->timers; *pp != NULL && (*pp)->due_ns <= due; pp = &(*pp)->tq_next)
		;
	ch->tq_next = *pp;
	*pp = ch;
}

/* --------------------------------------------------------------- channels */

static void
chan_set_events(struct swdev_server *srv, struct chan *ch, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &ch->e };

	if (ch->events == events)
		return;
	if (epoll_ctl(srv->epfd, EPOLL_CTL_MOD, ch->e.fd, &ev) == 0)
		ch->events = events;
}

/* Free the input of the frame being received and uncount it. */
static void
chan_in_free(struct swdev_server *srv, struct chan *ch)
{
	free(ch->in);
	ch->in = NULL;
	srv->rx_bytes -= ch->in_counted;
	ch->conn->rx_bytes -= ch->in_counted;
	ch->in_counted = 0;
}

void
srv_chan_free(struct swdev_server *srv, struct chan *ch)
{
	srv_timer_remove(srv, ch);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, ch->e.fd, NULL);
	close(ch->e.fd);
	chan_in_free(srv, ch);
	free(ch->tx);
	srv->tx_bytes -= ch->tx_len;
	ch->tx = NULL;
	ch->tx_len = 0;
	srv_grave_add(srv, &ch->e);
}

/* Close one channel: its owner died or misbehaved. The file is untouched. */
static void
chan_close(struct swdev_server *srv, struct chan *ch, const char *why)
{
	struct conn *c = ch->conn;
	struct chan **pp;

	swdev_log(SWDEV_LOG_INFO, "file %u: channel %u closed: %s",
		  c->file != NULL ? swdev_file_id(c->file) : 0, ch->id, why);
	for (pp = &c->chans; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == ch) {
			*pp = ch->next;
			break;
		}
	}
	c->nchans--;
	srv_chan_free(srv, ch);
}

/* Try to push the pending reply out. false when the channel was closed. */
bool
srv_chan_flush(struct swdev_server *srv, struct chan *ch)
{
	while (ch->tx_off < ch->tx_len) {
		ssize_t n = send(ch->e.fd, ch->tx + ch->tx_off, ch->tx_len - ch->tx_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				chan_set_events(srv, ch, EPOLLOUT);	/* + HUP, ERR */
				return true;
			}
			chan_close(srv, ch, strerror(errno));
			return false;
		}
		ch->tx_off += (size_t)n;
	}
	free(ch->tx);
	srv->tx_bytes -= ch->tx_len;
	ch->tx = NULL;
	ch->tx_len = 0;
	ch->tx_off = 0;
	/* Reply out: the next request may be read. */
	chan_set_events(srv, ch, EPOLLIN | EPOLLRDHUP);
	return true;
}

/* Queue a reply (ownership of @p buf passes) and send it now or later. */
bool
srv_chan_reply(struct swdev_server *srv, struct chan *ch, uint8_t *buf, size_t len,
	       uint32_t delay_us)
{
	ch->tx = buf;
	ch->tx_len = len;
	ch->tx_off = 0;
	srv->tx_bytes += len;
	if (delay_us != 0) {
		/* Hold the reply; stop reading this channel meanwhile (HUP and
		 * ERR are always reported). */
		chan_set_events(srv, ch, 0);
		timer_insert(srv, ch, srv_now_ns() + (uint64_t)delay_us * 1000u);
		return true;
	}
	return srv_chan_flush(srv, ch);
}

/* The header of the reply to @p req (the rest zero). */
static void
rep_init(struct swdev_rep_hdr *rep, const struct swdev_req_hdr *req)
{
	memset(rep, 0, sizeof(*rep));
	rep->magic = SWDEV_PROTO_REP_MAGIC;
	rep->version = SWDEV_PROTO_VERSION;
	rep->op = req->op;
	rep->seq = req->seq;
}

uint8_t *
srv_rep_alloc(const struct swdev_req_hdr *req, size_t outlen)
{
	uint8_t *buf = calloc(1, sizeof(struct swdev_rep_hdr) + outlen);

	if (buf != NULL)
		rep_init((struct swdev_rep_hdr *)buf, req);
	return buf;
}

/* Answer @p req on channel @p fd with @p err and no output (best effort). */
static void
send_refusal(int fd, const struct swdev_req_hdr *req, uint32_t err)
{
	struct swdev_rep_hdr rep;

	rep_init(&rep, req);
	rep.err = err;
	(void)send(fd, &rep, sizeof(rep), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Refuse @p req on channel @p fd with @p err (best effort), then close it. */
void
srv_refuse_and_close(int fd, const struct swdev_req_hdr *req, uint32_t err)
{
	send_refusal(fd, req, err);
	close(fd);
}

static uint16_t
mbox_opcode(const uint8_t *in, size_t inlen)
{
	if (inlen < 2)
		return 0;
	return (uint16_t)((in[0] << 8) | in[1]);
}

static uint32_t
be32_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/*
 * MATCHER_CREATE: the payload starts with a struct swdev_proto_matcher
 * (checked here: length, reserved bytes), the mask is the rest (checked by
 * the engine: length, bits). 0 or errno.
 */
static int
steer_matcher_create(struct swdev_file *f, const struct swdev_req_hdr *req, const uint8_t *in,
		     uint32_t *handle)
{
	struct swdev_proto_matcher m;
	unsigned int i;

	if (req->inlen < sizeof(m))
		return EINVAL;
	memcpy(&m, in, sizeof(m));
	for (i = 0; i < sizeof(m.reserved); i++)
		if (m.reserved[i] != 0)
			return EINVAL;
	return swdev_file_matcher_create(f, m.priority, m.match_criteria_enable, in + sizeof(m),
					 req->inlen - sizeof(m), handle);
}

/*
 * FLOW_CREATE: req->handle names the matcher; the payload starts with a
 * struct swdev_flow_attr whose handles resolve in the caller's file, the
 * match value is the rest (the engine checks both). 0 or errno.
 */
static int
steer_flow_create(struct swdev_file *f, const struct swdev_req_hdr *req, const uint8_t *in,
		  uint32_t *handle)
{
	struct swdev_flow_attr attr;

	if (req->inlen < sizeof(attr))
		return EINVAL;
	memcpy(&attr, in, sizeof(attr));
	if (attr.reserved[0] != 0 || attr.reserved[1] != 0)
		return EINVAL;
	return swdev_file_flow_create(f, req->handle, in + sizeof(attr), req->inlen - sizeof(attr),
				      &attr, handle);
}

/* Run the request in ch->hdr / ch->in on the engine and queue its reply. */
static bool
chan_execute(struct swdev_server *srv, struct chan *ch)
{
	const struct swdev_req_hdr *req = &ch->hdr;
	struct swdev_file *f = ch->conn->file;
	struct swdev_obj_info info;
	struct swdev_rep_hdr *rep;
	uint32_t handle = 0, val = 0;
	size_t outlen = req->outlen;
	uint8_t *buf, *out;
	uint32_t delay;
	bool over_budget;
	int err;

	/*
	 * Replies wait in the daemon until their client reads them: a client
	 * that asks for large output mailboxes on many channels and never
	 * reads would hold the daemon's memory. Past the budget a command is
	 * refused with ENOMEM before it runs, as the kernel's allocation of
	 * its output buffer would fail.
	 */
	over_budget = outlen > 0 &&
		      srv->tx_bytes + sizeof(struct swdev_rep_hdr) + outlen > SWDEV_TX_BUDGET;
	if (over_budget) {
		swdev_log(SWDEV_LOG_WARN, "file %u: channel %u: %zu bytes of replies unread: "
			  "%s refused (ENOMEM)", swdev_file_id(f), ch->id, srv->tx_bytes,
			  swdev_proto_op_name(req->op));
		outlen = 0;
	}
	buf = srv_rep_alloc(req, outlen);
	if (buf == NULL) {
		chan_close(srv, ch, "out of memory for the reply");
		return false;
	}
	rep = (struct swdev_rep_hdr *)buf;
	out = buf + sizeof(*rep);
	memset(&info, 0, sizeof(info));
	if (over_budget) {
		err = ENOMEM;
		goto done;
	}
	switch (req->op) {
	case SWDEV_OP_DEVX_CREATE:
		err = swdev_devx_obj_create(f, ch->in, req->inlen, out, outlen, &info);
		if (err == 0) {
			rep->handle = info.handle;
			rep->type = info.type;
			rep->object_id = info.object_id;
			rep->rx_icm_addr = info.rx_icm_addr;
			rep->log_obj_range = info.log_obj_range;
		}
		break;
	case SWDEV_OP_DEVX_QUERY:
		err = swdev_devx_obj_query(f, req->handle, ch->in, req->inlen, out, outlen);
		break;
	case SWDEV_OP_DEVX_MODIFY:
		err = swdev_devx_obj_modify(f, req->handle, ch->in, req->inlen, out, outlen);
		break;
	case SWDEV_OP_DEVX_DESTROY:
		err = swdev_devx_obj_destroy(f, req->handle);
		break;
	case SWDEV_OP_DEVX_GENERAL:
		err = swdev_devx_general_cmd(f, ch->in, req->inlen, out, outlen);
		break;
	case SWDEV_OP_PD_ALLOC:
		err = swdev_file_pd_alloc(f, &handle, &val);
		break;
	case SWDEV_OP_UAR_ALLOC:
		err = swdev_file_uar_alloc(f, &handle, &val);
		break;
	case SWDEV_OP_UMEM_REG:
		err = swdev_file_umem_reg(f, req->arg0, req->arg1, req->arg2, &handle, &val);
		break;
	case SWDEV_OP_QUERY_EQN:
		err = swdev_file_query_eqn(f, req->arg2, &val);
		break;
	case SWDEV_OP_VERBS_DESTROY:
		if (req->arg2 == 0)
			err = swdev_file_verbs_destroy(f, req->handle);
		else if (req->arg2 > SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_UMEM))
			err = EINVAL;
		else
			err = swdev_file_verbs_destroy_kind(f, req->handle,
							    (enum swdev_kind)(req->arg2 - 1));
		break;
	case SWDEV_OP_PD_IMPORT:
		err = swdev_file_pd_query(f, req->handle, &val);
		break;
	case SWDEV_OP_MATCHER_CREATE:
		err = steer_matcher_create(f, req, ch->in, &handle);
		break;
	case SWDEV_OP_FLOW_CREATE:
		err = steer_flow_create(f, req, ch->in, &handle);
		break;
	case SWDEV_OP_STEER_DESTROY:
		/* Only the two steering kinds: the engine never sees another. */
		if (req->arg2 != SWDEV_KIND_MATCHER && req->arg2 != SWDEV_KIND_FLOW)
			err = EINVAL;
		else
			err = swdev_file_steer_destroy(f, req->handle, (enum swdev_kind)req->arg2);
		break;
	default:
		/* OPEN / ATTACH belong on the main connection. */
		err = EINVAL;
		break;
	}
done:
	delay = swdev_file_take_delay(f);
	rep->err = (uint32_t)err;
	if (req->op == SWDEV_OP_PD_ALLOC || req->op == SWDEV_OP_UAR_ALLOC ||
	    req->op == SWDEV_OP_UMEM_REG) {
		rep->handle = handle;
		rep->val = val;
	} else if (req->op == SWDEV_OP_MATCHER_CREATE || req->op == SWDEV_OP_FLOW_CREATE) {
		rep->handle = err == 0 ? handle : 0;
	} else if (req->op == SWDEV_OP_QUERY_EQN || req->op == SWDEV_OP_PD_IMPORT) {
		rep->val = val;
	}
	/* Output mailbox goes back on success and on a firmware failure. */
	if ((err == 0 || err == EREMOTEIO) && outlen > 0 &&
	    (req->op == SWDEV_OP_DEVX_CREATE || req->op == SWDEV_OP_DEVX_QUERY ||
	     req->op == SWDEV_OP_DEVX_MODIFY || req->op == SWDEV_OP_DEVX_GENERAL))
		rep->outlen = (uint32_t)outlen;
	else
		rep->outlen = 0;
	/* The engine logs refused and failed commands itself (at info level
	 * through swdev_engine_set_log); the transport view is debug. */
	if (err == EREMOTEIO && outlen >= 8)
		swdev_log(SWDEV_LOG_DEBUG,
			  "file %u: %s opcode %#x handle %u failed: errno %d status %#x synd %#x",
			  swdev_file_id(f), swdev_proto_op_name(req->op),
			  mbox_opcode(ch->in, req->inlen), req->handle, err, out[0],
			  be32_at(out + 4));
	else if (err != 0)
		swdev_log(SWDEV_LOG_DEBUG, "file %u: %s opcode %#x handle %u failed: errno %d (%s)",
			  swdev_file_id(f), swdev_proto_op_name(req->op),
			  mbox_opcode(ch->in, req->inlen), req->handle, err, strerror(err));
	else
		swdev_log(SWDEV_LOG_DEBUG, "file %u: %s opcode %#x handle %u ok",
			  swdev_file_id(f), swdev_proto_op_name(req->op),
			  mbox_opcode(ch->in, req->inlen), req->handle);
	chan_in_free(srv, ch);
	ch->in_got = 0;
	ch->hdr_got = 0;
	return srv_chan_reply(srv, ch, buf, sizeof(*rep) + rep->outlen, delay);
}

/*
 * A frame header is complete: never trust its lengths. false if closed.
 * Input that waits for the rest of its frame is bounded, per file and for
 * the daemon: a frame that does not fit is refused with ENOMEM and its
 * channel closed (the rest of the frame could not be told from the next
 * one). Small inputs (every command the driver sends) are not counted:
 * they cost at most SWDEV_SERVER_RX_SMALL bytes per channel.
 */
static bool
chan_header_done(struct swdev_server *srv, struct chan *ch)
{
	struct conn *c = ch->conn;
	size_t inlen = ch->hdr.inlen;

	if (swdev_proto_check_req(&ch->hdr) != 0) {
		swdev_log(SWDEV_LOG_WARN,
			  "file %u: channel %u: malformed frame header (op %u inlen %u outlen %u)",
			  swdev_file_id(c->file), ch->id, ch->hdr.op, ch->hdr.inlen,
			  ch->hdr.outlen);
		chan_close(srv, ch, "malformed frame");
		return false;
	}
	if (inlen > SWDEV_SERVER_RX_SMALL &&
	    (c->rx_bytes + inlen > SWDEV_RX_FILE_BUDGET ||
	     srv->rx_bytes + inlen > SWDEV_RX_BUDGET)) {
		swdev_log(SWDEV_LOG_WARN, "file %u: channel %u: %s with %zu bytes of input "
			  "refused (ENOMEM): %zu bytes of requests being received in this file "
			  "(budget %u), %zu in the daemon (budget %u)", swdev_file_id(c->file),
			  ch->id, swdev_proto_op_name(ch->hdr.op), inlen, c->rx_bytes,
			  SWDEV_RX_FILE_BUDGET, srv->rx_bytes, SWDEV_RX_BUDGET);
		send_refusal(ch->e.fd, &ch->hdr, ENOMEM);
		chan_close(srv, ch, "input over the budget");
		return false;
	}
	ch->in = malloc(inlen > 0 ? inlen : 1);
	if (ch->in == NULL) {
		chan_close(srv, ch, "out of memory for the request");
		return false;
	}
	if (inlen > SWDEV_SERVER_RX_SMALL) {
		ch->in_counted = inlen;
		c->rx_bytes += inlen;
		srv->rx_bytes += inlen;
	}
	ch->in_got = 0;
	return true;
}

/* Read what is available of the current frame; execute it when complete. */
void
srv_chan_readable(struct swdev_server *srv, struct chan *ch)
{
	unsigned int frames = 0;

	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (ch->hdr_got < sizeof(ch->hdr)) {
			dst = (uint8_t *)&ch->hdr + ch->hdr_got;
			want = sizeof(ch->hdr) - ch->hdr_got;
		} else {
			dst = ch->in + ch->in_got;
			want = ch->hdr.inlen - ch->in_got;
		}
		if (want > 0) {
			n = recv(ch->e.fd, dst, want, MSG_DONTWAIT);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					return;
				chan_close(srv, ch, strerror(errno));
				return;
			}
			if (n == 0) {
				chan_close(srv, ch, ch->hdr_got == 0 ? "end of stream" :
					   "end of stream inside a frame");
				return;
			}
			if (ch->hdr_got < sizeof(ch->hdr)) {
				ch->hdr_got += (size_t)n;
				if (ch->hdr_got < sizeof(ch->hdr))
					continue;
				if (!chan_header_done(srv, ch))
					return;
			} else {
				ch->in_got += (size_t)n;
			}
			if (ch->hdr_got < sizeof(ch->hdr) || ch->in_got < ch->hdr.inlen)
				continue;
		}
		/* One complete frame: run it, and read nothing more until replied. */
		if (!chan_execute(srv, ch) || ch->tx != NULL)
			return;
		/*
		 * A few frames per event, then the other channels: the epoll
		 * interest is level-triggered, so the rest is read on the next
		 * round. A client that keeps its channel full (large socket
		 * buffers) stalls only itself, and a stop is seen.
		 */
		if (++frames == SWDEV_FRAMES_PER_EVENT || server_stopping(srv))
			return;
	}
}

void
srv_chan_event(struct swdev_server *srv, struct chan *ch, uint32_t events)
{
	if (ch->tx != NULL && !ch->delayed && (events & EPOLLOUT)) {
		if (!srv_chan_flush(srv, ch))
			return;
	}
	if (events & EPOLLERR) {
		chan_close(srv, ch, "socket error");
		return;
	}
	if (ch->tx == NULL && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))) {
		srv_chan_readable(srv, ch);
		return;
	}
	if (events & EPOLLHUP) {
		/* Peer gone while its reply was pending (e.g. delayed). */
		chan_close(srv, ch, "peer gone with a reply pending");
	}
}

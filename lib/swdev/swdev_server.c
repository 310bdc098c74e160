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
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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

#include "swdev_proto.h"
#include "swdev_server.h"

#define MAX_CHANS_PER_FILE 256
#define MAX_EVENTS 64
#define SWDEV_FRAMES_PER_EVENT 16	/* frames of one channel per readiness event */
#define SWDEV_TX_BUDGET (64u << 20)	/* bytes of unread replies, all channels */
#define SWDEV_RX_BUDGET SWDEV_SERVER_RX_BUDGET	/* bytes of requests being received */
#define SWDEV_RX_FILE_BUDGET SWDEV_SERVER_RX_FILE_BUDGET
/* A control datagram: header and payload (a frame, a batch of frames). */
#define CTL_BUF_LEN (sizeof(struct swdev_ctl_req) + SWDEV_PROTO_CTL_MAX_PAYLOAD)
/* The largest control reply payload: a captured frame and its details. */
#define CTL_REP_MAX_PAYLOAD (sizeof(struct swdev_capture_info) + SWDEV_CAPTURE_SNAPLEN)

/* ---------------------------------------------------------------- logging */

static enum swdev_log_level log_level = SWDEV_LOG_INFO;

void
swdev_log_set_level(enum swdev_log_level level)
{
	log_level = level;
}

int
swdev_log_parse_level(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

void
swdev_log(enum swdev_log_level level, const char *fmt, ...)
{
	static const char *const tags[] = { "ERROR", "WARN", "INFO", "DEBUG" };
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (level > log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ mlx5-swdev[%d] %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, ts.tv_nsec / 1000, (int)getpid(), tags[level]);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line so lines of concurrent processes do not mix. */
	n = (int)strnlen(line, sizeof(line) - 2);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* Nothing sensible to do when stderr is gone. */
	}
}

/* --------------------------------------------------------------- entities */

enum ent_type {
	ENT_LISTEN,
	ENT_CTL_LISTEN,
	ENT_CONN,
	ENT_CHAN,
	ENT_CTL,
	ENT_WAKE,
};

struct ent {
	enum ent_type type;
	int fd;
	bool dead;		/* closed; freed at the end of the event batch */
	struct ent *grave;	/* in srv->grave */
	/* peer of an accepted connection (SO_PEERCRED) */
	pid_t peer_pid;
	uid_t peer_uid;
	bool denied;		/* uid not allowed: answered EACCES, then closed */
	/* no handshake yet: in srv->pending (accept order), closed at deadline */
	bool pending;
	uint64_t deadline_ns;
	struct ent *pend_next;
	struct ent *pend_prev;
};

struct conn;

struct chan {
	struct ent e;
	struct conn *conn;
	struct chan *next;		/* in conn->chans */
	uint32_t id;			/* for logs */
	/* receive state of the frame being read */
	struct swdev_req_hdr hdr;
	size_t hdr_got;
	uint8_t *in;
	size_t in_got;
	size_t in_counted;		/* of in, counted in the rx budgets */
	/* reply being sent */
	uint8_t *tx;
	size_t tx_len;
	size_t tx_off;
	/* delayed reply */
	uint64_t due_ns;
	bool delayed;
	struct chan *tq_next;		/* in srv->timers */
	uint32_t events;		/* current epoll interest */
};

struct conn {
	struct ent e;			/* first: accept_ent() makes it */
	struct swdev_server *srv;
	struct swdev_file *file;	/* NULL until OPEN succeeded */
	struct chan *chans;
	unsigned int nchans;
	uint64_t nbad;
	size_t rx_bytes;		/* counted input of its channels' frames */
	struct conn *next;
};

struct ctl {
	struct ent e;			/* first: accept_ent() makes it */
	struct ctl *next;
};

/*
 * Warnings any peer can cause by connecting (a refused, evicted or
 * malformed connection) are limited to WARN_BURST lines a second for each
 * kind: a flood of connections logs a few lines and a count of the others,
 * so the daemon's log stays readable and cheap to write.
 */
enum warn_kind {
	WARN_ACCEPT,
	WARN_EVICT,
	WARN_CREDS,
	WARN_UID,
	WARN_CTL_CAP,
	WARN_HANDSHAKE,
	WARN_MALFORMED,
	WARN_KINDS
};

#define WARN_BURST 10u
#define WARN_WINDOW_NS 1000000000ull

struct log_limit {
	uint64_t start_ns;	/* of the current one-second window */
	unsigned int lines;	/* logged in it */
	unsigned int dropped;	/* not logged since the last line of this kind */
};

struct swdev_server {
	struct swdev_engine *eng;
	struct swdev_server_opts opts;
	uid_t euid;
	int epfd;
	struct ent listen;
	struct ent ctl_listen;
	struct ent wake;
	int lock_fd;
	int spare_fd;			/* released to shed a connection at EMFILE */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char ctl_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char lock_path[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	struct conn *conns;
	struct ctl *ctls;
	struct chan *timers;		/* sorted by due_ns */
	struct ent *grave;		/* closed entities to free after the batch */
	uint32_t next_chan_id;
	size_t tx_bytes;		/* held in replies not sent yet (every channel) */
	size_t rx_bytes;		/* counted input of frames being received */
	struct ent *pend_head;		/* connections without a handshake, oldest first */
	struct ent *pend_tail;
	unsigned int npending;
	unsigned int nctls;		/* control connections of allowed peers */
	uint8_t *ctl_buf;		/* CTL_BUF_LEN: the control datagram being served */
	struct log_limit warn_limit[WARN_KINDS];
	int stop;			/* atomic: swdev_server_stop() from any thread */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *const warn_kind_names[WARN_KINDS] = {
	[WARN_ACCEPT] = "accept failed",
	[WARN_EVICT] = "connection without a handshake evicted",
	[WARN_CREDS] = "no peer credentials",
	[WARN_UID] = "uid not allowed",
	[WARN_CTL_CAP] = "control connection over the cap",
	[WARN_HANDSHAKE] = "no handshake in time",
	[WARN_MALFORMED] = "malformed first message or control request",
};

/* A warning of @p kind, unless WARN_BURST of that kind were logged this second. */
static void __attribute__((format(printf, 3, 4)))
peer_warn(struct swdev_server *srv, enum warn_kind kind, const char *fmt, ...)
{
	struct log_limit *l = &srv->warn_limit[kind];
	uint64_t now = now_ns();
	char msg[768];
	va_list ap;

	if (now - l->start_ns >= WARN_WINDOW_NS) {
		l->start_ns = now;
		l->lines = 0;
	}
	if (l->lines >= WARN_BURST) {
		l->dropped++;
		return;
	}
	l->lines++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->dropped == 0) {
		swdev_log(SWDEV_LOG_WARN, "%s", msg);
		return;
	}
	swdev_log(SWDEV_LOG_WARN, "%s (and %u more: %s, not logged, at most %u a second)", msg,
		  l->dropped, warn_kind_names[kind], WARN_BURST);
	l->dropped = 0;
}

/* The counts of warnings not logged, at the end. */
static void
peer_warn_flush(struct swdev_server *srv)
{
	unsigned int k;

	for (k = 0; k < WARN_KINDS; k++) {
		if (srv->warn_limit[k].dropped > 0)
			swdev_log(SWDEV_LOG_WARN, "%u more warnings not logged: %s (at most %u a "
				  "second)", srv->warn_limit[k].dropped, warn_kind_names[k],
				  WARN_BURST);
		srv->warn_limit[k].dropped = 0;
	}
}

/* Entities are freed only after the current epoll batch: later events of
 * the same batch may still point to them. */
static void
grave_add(struct swdev_server *srv, struct ent *e)
{
	e->dead = true;
	e->grave = srv->grave;
	srv->grave = e;
}

/* grave_flush() frees entities through their struct ent, and accept_ent() makes them. */
_Static_assert(offsetof(struct conn, e) == 0 && offsetof(struct ctl, e) == 0 &&
	       offsetof(struct chan, e) == 0, "entities start with their struct ent");

static void
grave_flush(struct swdev_server *srv)
{
	while (srv->grave != NULL) {
		struct ent *e = srv->grave;

		srv->grave = e->grave;
		free(e);	/* the ent is the first member of every entity */
	}
}

/* ------------------------------------------- connections without handshake */

static void
pend_add(struct swdev_server *srv, struct ent *e)
{
	e->pending = true;
	e->deadline_ns = now_ns() + (uint64_t)srv->opts.handshake_ms * 1000000u;
	e->pend_next = NULL;
	e->pend_prev = srv->pend_tail;
	if (srv->pend_tail != NULL)
		srv->pend_tail->pend_next = e;
	else
		srv->pend_head = e;
	srv->pend_tail = e;
	srv->npending++;
}

static void
pend_remove(struct swdev_server *srv, struct ent *e)
{
	if (!e->pending)
		return;
	if (e->pend_prev != NULL)
		e->pend_prev->pend_next = e->pend_next;
	else
		srv->pend_head = e->pend_next;
	if (e->pend_next != NULL)
		e->pend_next->pend_prev = e->pend_prev;
	else
		srv->pend_tail = e->pend_prev;
	e->pending = false;
	e->pend_next = NULL;
	e->pend_prev = NULL;
	srv->npending--;
}

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

static int
ep_add(struct swdev_server *srv, struct ent *e, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = e };

	if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
		return errno;
	return 0;
}

/* swdev_server_stop() was called (from this thread or another). */
static inline bool
server_stopping(const struct swdev_server *srv)
{
	return __atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE) != 0;
}

static void
chan_set_events(struct swdev_server *srv, struct chan *ch, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &ch->e };

	if (ch->events == events)
		return;
	if (epoll_ctl(srv->epfd, EPOLL_CTL_MOD, ch->e.fd, &ev) == 0)
		ch->events = events;
}

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ----------------------------------------------------------------- timers */

static void
timer_remove(struct swdev_server *srv, struct chan *ch)
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

static void
chan_free(struct swdev_server *srv, struct chan *ch)
{
	timer_remove(srv, ch);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, ch->e.fd, NULL);
	close(ch->e.fd);
	chan_in_free(srv, ch);
	free(ch->tx);
	srv->tx_bytes -= ch->tx_len;
	ch->tx = NULL;
	ch->tx_len = 0;
	grave_add(srv, &ch->e);
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
	chan_free(srv, ch);
}

/* Try to push the pending reply out. false when the channel was closed. */
static bool
chan_flush(struct swdev_server *srv, struct chan *ch)
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
static bool
chan_reply(struct swdev_server *srv, struct chan *ch, uint8_t *buf, size_t len,
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
		timer_insert(srv, ch, now_ns() + (uint64_t)delay_us * 1000u);
		return true;
	}
	return chan_flush(srv, ch);
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

static uint8_t *
rep_alloc(const struct swdev_req_hdr *req, size_t outlen)
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
static void
refuse_and_close(int fd, const struct swdev_req_hdr *req, uint32_t err)
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
	buf = rep_alloc(req, outlen);
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
	return chan_reply(srv, ch, buf, sizeof(*rep) + rep->outlen, delay);
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
static void
chan_readable(struct swdev_server *srv, struct chan *ch)
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

static void
chan_event(struct swdev_server *srv, struct chan *ch, uint32_t events)
{
	if (ch->tx != NULL && !ch->delayed && (events & EPOLLOUT)) {
		if (!chan_flush(srv, ch))
			return;
	}
	if (events & EPOLLERR) {
		chan_close(srv, ch, "socket error");
		return;
	}
	if (ch->tx == NULL && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))) {
		chan_readable(srv, ch);
		return;
	}
	if (events & EPOLLHUP) {
		/* Peer gone while its reply was pending (e.g. delayed). */
		chan_close(srv, ch, "peer gone with a reply pending");
	}
}

/* ------------------------------------------------------ main connections */

static void
conn_close(struct swdev_server *srv, struct conn *c, const char *why)
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
		chan_free(srv, ch);
	}
	pend_remove(srv, &c->e);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->e.fd, NULL);
	close(c->e.fd);
	if (c->file != NULL) {
		swdev_log(SWDEV_LOG_INFO, "file %u on %s: %s, destroying its objects",
			  swdev_file_id(c->file), swdev_file_devname(c->file), why);
		swdev_file_close(c->file);
	} else {
		swdev_log(SWDEV_LOG_DEBUG, "connection closed before OPEN: %s", why);
	}
	grave_add(srv, &c->e);
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
	buf = rep_alloc(req, sizeof(*orep));
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
	if (ep_add(srv, &ch->e, ch->events) != 0) {
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
	chan_reply(srv, ch, buf, sizeof(*rep) + rep->outlen, 0);
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
			peer_warn(srv, WARN_MALFORMED,
				  "connection: bad first message, disconnecting");
			conn_close(srv, c, "malformed first message");
			return false;
		}
		conn_bad(c, "a malformed message");
		return true;
	}
	if (c->e.denied) {
		/* Answered, as the open of a device node without permission. */
		refuse_and_close(fd, &req, EACCES);
		conn_close(srv, c, "peer not allowed");
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
			refuse_and_close(fd, &req, (uint32_t)err);
			swdev_log(SWDEV_LOG_INFO, "OPEN failed: errno %d (%s)", err, strerror(err));
			conn_close(srv, c, "OPEN failed");
			return false;
		}
		pend_remove(srv, &c->e);
		swdev_log(SWDEV_LOG_INFO, "file %u opened on %s (uid %u) by pid %d user %u",
			  swdev_file_id(c->file), swdev_file_devname(c->file),
			  swdev_file_uid(c->file), (int)c->e.peer_pid, (unsigned int)c->e.peer_uid);
		conn_add_chan(srv, c, fd, &req, 0);
		return true;
	}
	/* ATTACH */
	if (c->file == NULL) {
		close(fd);
		conn_close(srv, c, "ATTACH before OPEN");
		return false;
	}
	if (req.inlen != 0 || c->nchans >= MAX_CHANS_PER_FILE) {
		refuse_and_close(fd, &req, req.inlen != 0 ? EINVAL : EMFILE);
		conn_bad(c, "a refused ATTACH");
		return true;
	}
	swdev_log(SWDEV_LOG_DEBUG, "file %u: ATTACH", swdev_file_id(c->file));
	conn_add_chan(srv, c, fd, &req, 0);
	return true;
}

static void
conn_event(struct swdev_server *srv, struct conn *c, uint32_t events)
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
			conn_close(srv, c, strerror((int)-n));
			return;
		}
		if (n == 0 && fd < 0) {
			/* EOF, or an empty datagram: the events decide below,
			 * except before OPEN, where either ends the connection. */
			if (c->file == NULL) {
				conn_close(srv, c, "end of stream or empty first message");
				return;
			}
			break;
		}
		if (!conn_message(srv, c, buf, n, fd, trunc))
			return;
	}
	if (events & (EPOLLHUP | EPOLLERR)) {
		/* Every holder of the command fd is gone. */
		conn_close(srv, c, "last holder of the command fd gone");
		return;
	}
	if (wr_shut) {
		struct epoll_event ev = { .events = 0, .data.ptr = &c->e };

		if (c->file == NULL) {
			conn_close(srv, c, "shut down before OPEN");
			return;
		}
		/* Stop reading (the end of stream would be reported forever);
		 * EPOLLHUP, always reported, tells when the last holder is gone. */
		swdev_log(SWDEV_LOG_WARN, "file %u: a holder shut the command fd down; "
			  "no new context can join, the file stays until the last holder closes",
			  swdev_file_id(c->file));
		if (epoll_ctl(srv->epfd, EPOLL_CTL_MOD, c->e.fd, &ev) < 0)
			conn_close(srv, c, "cannot stop reading a shut down command fd");
	}
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
		peer_warn(srv, WARN_ACCEPT, "out of file descriptors: connection refused");
	} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
		peer_warn(srv, WARN_ACCEPT, "accept: %s", strerror(errno));
	}
	return -1;
}

static void ctl_close(struct swdev_server *srv, struct ctl *k);

/* Close a connection without a handshake. */
static void
pend_close(struct swdev_server *srv, struct ent *e, const char *why)
{
	if (e->type == ENT_CTL)
		ctl_close(srv, (struct ctl *)e);
	else
		conn_close(srv, (struct conn *)e, why);
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

	peer_warn(srv, WARN_EVICT, "%u connections without a handshake (--max-pending): the "
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
		peer_warn(srv, WARN_CREDS, "%s: no peer credentials (%s), closed", kind,
			  strerror(errno));
		close(fd);
		return NULL;
	}
	allowed = peer_allowed(srv, cr.uid);
	pending = type == ENT_CONN || !allowed;
	if (!allowed)
		peer_warn(srv, WARN_UID, "%s from pid %d uid %u gid %u refused: uid not allowed "
			  "(daemon uid %u, --allow-uid)", kind, (int)cr.pid,
			  (unsigned int)cr.uid, (unsigned int)cr.gid, (unsigned int)srv->euid);
	if (pending && srv->npending >= srv->opts.max_pending)
		pend_evict_oldest(srv);
	if (!pending && srv->nctls >= SWDEV_SERVER_MAX_CTL) {
		peer_warn(srv, WARN_CTL_CAP, "%s from pid %d uid %u closed: %u control connections "
			  "already", kind, (int)cr.pid, (unsigned int)cr.uid, srv->nctls);
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
	if (ep_add(srv, e, EPOLLIN | EPOLLRDHUP) != 0) {
		close(fd);
		free(e);
		return NULL;
	}
	if (pending)
		pend_add(srv, e);
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

/* ------------------------------------------------------- control channel */

static void
ctl_close(struct swdev_server *srv, struct ctl *k)
{
	struct ctl **pp;

	for (pp = &srv->ctls; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	}
	if (k->e.denied)
		pend_remove(srv, &k->e);
	else
		srv->nctls--;
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, k->e.fd, NULL);
	close(k->e.fd);
	grave_add(srv, &k->e);
}

/* The connection of the file @p file_id of @p devname, or NULL. */
static struct conn *
conn_of_file(struct swdev_server *srv, const char *devname, uint32_t file_id)
{
	struct conn *c;

	for (c = srv->conns; c != NULL; c = c->next)
		if (c->file != NULL && swdev_file_id(c->file) == file_id &&
		    strcmp(swdev_file_devname(c->file), devname) == 0)
			return c;
	return NULL;
}

static const char *const ctl_op_names[SWDEV_CTL_MAX] = {
	[SWDEV_CTL_COUNTS] = "COUNTS",
	[SWDEV_CTL_NUM_FILES] = "NUM_FILES",
	[SWDEV_CTL_INJECT] = "INJECT",
	[SWDEV_CTL_FAULT] = "FAULT",
	[SWDEV_CTL_PING] = "PING",
	[SWDEV_CTL_RX] = "RX",
	[SWDEV_CTL_RX_BATCH] = "RX_BATCH",
	[SWDEV_CTL_PORT_STATS] = "PORT_STATS",
	[SWDEV_CTL_RQ_STATS] = "RQ_STATS",
	[SWDEV_CTL_RQ_CAPTURE] = "RQ_CAPTURE",
	[SWDEV_CTL_CMD_COUNT] = "CMD_COUNT",
	[SWDEV_CTL_DEVICE] = "DEVICE",
	[SWDEV_CTL_DISASSOCIATE] = "DISASSOCIATE",
};

static const char *
ctl_op_name(uint32_t op)
{
	if (op >= SWDEV_CTL_MAX || ctl_op_names[op] == NULL)
		return "?";
	return ctl_op_names[op];
}

/*
 * Test mode only: requests that change the device (traffic, faults) and
 * the read of captured frames (another process's traffic contents).
 */
static bool
ctl_op_test_only(uint32_t op)
{
	return op == SWDEV_CTL_INJECT || op == SWDEV_CTL_FAULT || op == SWDEV_CTL_RX ||
	       op == SWDEV_CTL_RX_BATCH || op == SWDEV_CTL_RQ_CAPTURE ||
	       op == SWDEV_CTL_DISASSOCIATE;
}

/*
 * May peer @p k run @p req? Outside test mode: PING; the counts of a file
 * opened by the peer's own uid; the whole device's counts, the number of
 * files, port and RQ statistics and the commands the device ran (every
 * file's, as the whole device's counts) for the daemon's uid only; never
 * traffic (counters or frames) or fault injection, nor captured frames. In
 * test mode everything (every peer is still an allowed uid).
 */
static bool
ctl_permitted(struct swdev_server *srv, const struct ctl *k, const struct swdev_ctl_req *req,
	      const char *devname)
{
	struct conn *c;

	if (srv->opts.test_mode || req->op == SWDEV_CTL_PING)
		return true;
	if (ctl_op_test_only(req->op))
		return false;
	switch (req->op) {
	case SWDEV_CTL_COUNTS:
		if (req->file_id == 0)
			return k->e.peer_uid == srv->euid;
		c = conn_of_file(srv, devname, req->file_id);
		return c == NULL || c->e.peer_uid == k->e.peer_uid;	/* none: ENOENT */
	case SWDEV_CTL_NUM_FILES:
	case SWDEV_CTL_PORT_STATS:
	case SWDEV_CTL_RQ_STATS:
	case SWDEV_CTL_CMD_COUNT:
		return k->e.peer_uid == srv->euid;
	default:
		return true;	/* EINVAL below */
	}
}

/*
 * DISASSOCIATE: close the connection of every uverbs file of @p devname
 * (its channels with it) and destroy the file's objects, as the kernel's
 * disassociation at a device's removal does. The processes' next command
 * on such a file finds its channel closed: EIO, as from a removed device.
 * New opens of the device work. 0 and *nfiles, or ENODEV.
 */
static int
ctl_disassociate(struct swdev_server *srv, const char *devname, uint32_t *nfiles)
{
	unsigned int i, n = swdev_engine_num_devices(srv->eng);
	struct conn *c, *next;

	for (i = 0; i < n; i++)
		if (strcmp(swdev_engine_device_name(srv->eng, i), devname) == 0)
			break;
	if (i == n)
		return ENODEV;
	*nfiles = 0;
	for (c = srv->conns; c != NULL; c = next) {
		next = c->next;
		if (c->file == NULL || strcmp(swdev_file_devname(c->file), devname) != 0)
			continue;
		conn_close(srv, c, "disassociated by a control request");
		(*nfiles)++;
	}
	swdev_log(SWDEV_LOG_INFO, "%s: %u files disassociated", devname, *nfiles);
	return 0;
}

/*
 * RX_BATCH: @p count records {u32 len, len bytes} fill exactly the @p len
 * bytes at @p p. The whole batch is checked before the port sees any frame
 * of it (EINVAL: nothing received). Then every frame goes to the port in
 * order; a frame the port refuses (EINVAL: runt, truncated headers) is
 * counted in @p br and the batch goes on. 0, or the errno that stopped
 * the batch (ENODEV).
 */
static int
ctl_rx_batch(struct swdev_server *srv, const char *devname, const uint8_t *p, uint32_t len,
	     uint32_t count, struct swdev_ctl_batch_rep *br)
{
	struct swdev_port_stats ps;
	struct swdev_rx_info info;
	uint32_t off = 0, flen, i;
	int err;

	for (i = 0; i < count; i++) {
		if (len - off < sizeof(flen))
			return EINVAL;
		memcpy(&flen, p + off, sizeof(flen));
		off += sizeof(flen);
		if (flen > SWDEV_MAX_FRAME_LEN || flen > len - off)
			return EINVAL;
		off += flen;
	}
	if (off != len)
		return EINVAL;
	if (count == 0)	/* nothing to receive; the device must exist all the same */
		return swdev_ctl_port_stats(srv->eng, devname, &ps);
	for (off = 0, i = 0; i < count; i++) {
		memcpy(&flen, p + off, sizeof(flen));
		off += sizeof(flen);
		memset(&info, 0, sizeof(info));
		err = swdev_ctl_rx(srv->eng, devname, p + off, flen, &info);
		off += flen;
		if (err != 0 && err != EINVAL)
			return err;
		br->frames++;
		br->bytes += flen;
		if (err != 0) {
			if (br->refused++ == 0) {
				br->first_refused = i;
				br->first_err = (uint32_t)err;
			}
		} else if (info.verdict < sizeof(br->verdicts) / sizeof(br->verdicts[0])) {
			br->verdicts[info.verdict]++;
		}
	}
	return 0;
}

/*
 * Run one control request whose header and payload were checked for size;
 * the reply payload goes to @p out (CTL_REP_MAX_PAYLOAD bytes), its length
 * to *outlen. The errno of the request.
 */
static int
ctl_run(struct swdev_server *srv, const struct swdev_ctl_req *req, const char *devname,
	const uint8_t *in, struct swdev_ctl_rep *rep, uint8_t *out, uint32_t *outlen)
{
	struct swdev_ctl_cmd_count_rep cc;
	struct swdev_ctl_batch_rep br;
	struct swdev_capture_info ci;
	struct swdev_counts counts;
	struct swdev_port_stats ps;
	struct swdev_rq_stats rs;
	struct swdev_rx_info rxi;
	unsigned int i;
	int err;

	*outlen = 0;
	/* Only the receive requests carry a payload. */
	if (req->paylen != 0 && req->op != SWDEV_CTL_RX && req->op != SWDEV_CTL_RX_BATCH)
		return EINVAL;
	switch (req->op) {
	case SWDEV_CTL_COUNTS:
		memset(&counts, 0, sizeof(counts));
		err = swdev_ctl_counts(srv->eng, devname, req->file_id, &counts);
		rep->total = counts.total;
		for (i = 0; i < SWDEV_KIND_MAX && i < SWDEV_PROTO_CTL_KINDS; i++)
			rep->by_kind[i] = counts.by_kind[i];
		return err;
	case SWDEV_CTL_NUM_FILES:
		return swdev_ctl_num_files(srv->eng, devname, &rep->nfiles);
	case SWDEV_CTL_INJECT:
		return swdev_ctl_inject(srv->eng, devname, req->counter_id, req->packets,
					req->bytes);
	case SWDEV_CTL_FAULT:
		return swdev_ctl_fault(srv->eng, devname, req->opcode, req->count, req->status,
				       req->syndrome, req->delay_us);
	case SWDEV_CTL_PING:
		return 0;
	case SWDEV_CTL_RX:
		/* The bound of the port, before the engine sees the frame. */
		if (req->paylen > SWDEV_MAX_FRAME_LEN)
			return EINVAL;
		memset(&rxi, 0, sizeof(rxi));
		err = swdev_ctl_rx(srv->eng, devname, in, req->paylen, &rxi);
		if (err == 0) {
			memcpy(out, &rxi, sizeof(rxi));
			*outlen = sizeof(rxi);
		}
		return err;
	case SWDEV_CTL_RX_BATCH:
		memset(&br, 0, sizeof(br));
		err = ctl_rx_batch(srv, devname, in, req->paylen, req->count, &br);
		if (br.frames > 0 || err == 0) {
			memcpy(out, &br, sizeof(br));
			*outlen = sizeof(br);
		}
		return err;
	case SWDEV_CTL_PORT_STATS:
		memset(&ps, 0, sizeof(ps));
		err = swdev_ctl_port_stats(srv->eng, devname, &ps);
		if (err == 0) {
			memcpy(out, &ps, sizeof(ps));
			*outlen = sizeof(ps);
		}
		return err;
	case SWDEV_CTL_RQ_STATS:
		memset(&rs, 0, sizeof(rs));
		err = swdev_ctl_rq_stats(srv->eng, devname, req->rqn, &rs);
		if (err == 0) {
			memcpy(out, &rs, sizeof(rs));
			*outlen = sizeof(rs);
		}
		return err;
	case SWDEV_CTL_RQ_CAPTURE:
		memset(&ci, 0, sizeof(ci));
		err = swdev_ctl_rq_capture(srv->eng, devname, req->rqn, req->idx, out + sizeof(ci),
					   SWDEV_CAPTURE_SNAPLEN, &ci);
		if (err == 0) {
			if (ci.caplen > SWDEV_CAPTURE_SNAPLEN)
				ci.caplen = SWDEV_CAPTURE_SNAPLEN;
			memcpy(out, &ci, sizeof(ci));
			*outlen = (uint32_t)sizeof(ci) + ci.caplen;
		}
		return err;
	case SWDEV_CTL_DEVICE:
		/* The launcher's device list (mlx5-swdev run): names only. */
		rep->nfiles = swdev_engine_num_devices(srv->eng);
		if (req->idx >= rep->nfiles)
			return ENODEV;
		memset(out, 0, SWDEV_PROTO_NAME_LEN);
		snprintf((char *)out, SWDEV_PROTO_NAME_LEN, "%s",
			 swdev_engine_device_name(srv->eng, req->idx));
		*outlen = SWDEV_PROTO_NAME_LEN;
		return 0;
	case SWDEV_CTL_DISASSOCIATE:
		return ctl_disassociate(srv, devname, &rep->nfiles);
	case SWDEV_CTL_CMD_COUNT:
		memset(&cc, 0, sizeof(cc));
		err = swdev_ctl_cmd_count(srv->eng, devname, req->opcode, &cc.count);
		if (err == 0) {
			memcpy(out, &cc, sizeof(cc));
			*outlen = sizeof(cc);
		}
		return err;
	default:
		return EINVAL;
	}
}

/* A control reply: the header, then paylen bytes, sent as one datagram. */
struct ctl_reply {
	struct swdev_ctl_rep rep;
	uint8_t out[CTL_REP_MAX_PAYLOAD];
};

_Static_assert(offsetof(struct ctl_reply, out) == sizeof(struct swdev_ctl_rep),
	       "the reply payload follows its header");

static void
ctl_event(struct swdev_server *srv, struct ctl *k, uint32_t events)
{
	struct ctl_reply r;
	struct swdev_ctl_rep *rep = &r.rep;
	struct swdev_ctl_req req;
	char devname[SWDEV_PROTO_NAME_LEN];
	uint32_t outlen = 0;
	int fd, trunc, err;
	ssize_t n;

	if (!(events & EPOLLIN)) {
		ctl_close(srv, k);
		return;
	}
	n = swdev_proto_recv_fd(k->e.fd, srv->ctl_buf, CTL_BUF_LEN, &fd, &trunc, MSG_DONTWAIT);
	if (fd >= 0)
		close(fd);
	if (n == -EAGAIN || n == -EWOULDBLOCK)
		return;
	memset(&req, 0, sizeof(req));
	if (n >= (ssize_t)sizeof(req))
		memcpy(&req, srv->ctl_buf, sizeof(req));
	/* The payload length is checked against the datagram before any use. */
	if (n <= 0 || trunc || (size_t)n < sizeof(req) || req.magic != SWDEV_PROTO_CTL_MAGIC ||
	    req.version != SWDEV_PROTO_VERSION || req.reserved != 0 ||
	    req.paylen > SWDEV_PROTO_CTL_MAX_PAYLOAD || (size_t)n != sizeof(req) + req.paylen) {
		if (n != 0)
			peer_warn(srv, WARN_MALFORMED, "control: malformed request, disconnecting");
		ctl_close(srv, k);
		return;
	}
	memcpy(devname, req.devname, sizeof(devname));
	devname[sizeof(devname) - 1] = '\0';
	memset(rep, 0, sizeof(*rep));
	rep->magic = SWDEV_PROTO_CTL_MAGIC;
	rep->version = SWDEV_PROTO_VERSION;
	rep->op = req.op;
	rep->seq = req.seq;
	if (k->e.denied) {
		rep->err = EACCES;
		(void)swdev_proto_send_fd(k->e.fd, rep, sizeof(*rep), -1, MSG_DONTWAIT);
		ctl_close(srv, k);
		return;
	}
	if (!ctl_permitted(srv, k, &req, devname)) {
		swdev_log(SWDEV_LOG_WARN, "control: %s on %s (file %u) from pid %d uid %u refused "
			  "(EPERM): %s", ctl_op_name(req.op), devname, req.file_id,
			  (int)k->e.peer_pid, (unsigned int)k->e.peer_uid,
			  ctl_op_test_only(req.op) ? "the daemon was not started with --test-mode" :
			  req.op == SWDEV_CTL_COUNTS ?
			  "not the caller's file, and the daemon is not in test mode" :
			  "only the daemon's uid may read it outside test mode");
		rep->err = EPERM;
		if (swdev_proto_send_fd(k->e.fd, rep, sizeof(*rep), -1, MSG_DONTWAIT) != 0)
			ctl_close(srv, k);
		return;
	}
	err = ctl_run(srv, &req, devname, srv->ctl_buf + sizeof(req), rep, r.out, &outlen);
	rep->err = (uint32_t)(err < 0 ? -err : err);
	rep->paylen = outlen;
	swdev_log(SWDEV_LOG_DEBUG, "control: %s on %s: errno %u", ctl_op_name(req.op), devname,
		  rep->err);
	if (swdev_proto_send_fd(k->e.fd, &r, sizeof(*rep) + outlen, -1, MSG_DONTWAIT) != 0)
		ctl_close(srv, k);
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
	uint64_t now = now_ns();

	while (srv->pend_head != NULL && srv->pend_head->deadline_ns <= now) {
		struct ent *e = srv->pend_head;

		peer_warn(srv, WARN_HANDSHAKE, "%s from pid %d uid %u: no %s within %u ms, closed",
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
	if (ep_add(srv, &srv->listen, EPOLLIN) != 0 ||
	    ep_add(srv, &srv->ctl_listen, EPOLLIN) != 0 ||
	    ep_add(srv, &srv->wake, EPOLLIN) != 0) {
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
	uint64_t now = now_ns();

	while (srv->timers != NULL && srv->timers->due_ns <= now) {
		struct chan *ch = srv->timers;

		timer_remove(srv, ch);
		if (chan_flush(srv, ch) && ch->tx == NULL)
			chan_readable(srv, ch);	/* requests that queued meanwhile */
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
	now = now_ns();
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
				conn_event(srv, (struct conn *)e, ev);
				break;
			case ENT_CHAN:
				chan_event(srv, (struct chan *)e, ev);
				break;
			case ENT_CTL:
				ctl_event(srv, (struct ctl *)e, ev);
				break;
			}
		}
		fire_timers(srv);
		expire_pending(srv);
		grave_flush(srv);
	}
	peer_warn_flush(srv);
	return 0;
}

void
swdev_server_destroy(struct swdev_server *srv)
{
	if (srv == NULL)
		return;
	while (srv->conns != NULL)
		conn_close(srv, srv->conns, "daemon shutting down");
	while (srv->ctls != NULL)
		ctl_close(srv, srv->ctls);
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
	grave_flush(srv);
	swdev_log(SWDEV_LOG_INFO, "stopped, %s removed", srv->path);
	free(srv->ctl_buf);
	free(srv);
}

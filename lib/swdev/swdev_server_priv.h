/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: private definitions of the daemon core, shared by
 * its files (not installed).
 *
 *   swdev_server.c       logging, accepting connections and their
 *                        handshake deadline, setup, the event loop
 *   swdev_server_core.c  entities' helpers: rate-limited peer warnings,
 *                        the grave, the list of connections without a
 *                        handshake, the epoll set
 *   swdev_server_chan.c  private channels: frames, replies, the queue of
 *                        delayed replies
 *   swdev_server_conn.c  main connections: OPEN, ATTACH
 *   swdev_server_ctl.c   control connections and their requests
 *
 * The loop (swdev_server.c) calls the channel, connection and control
 * files, which call the core; connections also call channels (their
 * channels are made and freed with them) and control calls connections
 * (DISASSOCIATE closes them), never the other way round.
 */
#ifndef SWDEV_SERVER_PRIV_H
#define SWDEV_SERVER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

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

/* ---- entities ---- */

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

/* swdev_server_stop() was called (from this thread or another). */
static inline bool
server_stopping(const struct swdev_server *srv)
{
	return __atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE) != 0;
}

/* ---- swdev_server_core.c ---- */

uint64_t srv_now_ns(void);
void srv_peer_warn(struct swdev_server *srv, enum warn_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void srv_peer_warn_flush(struct swdev_server *srv);
void srv_grave_add(struct swdev_server *srv, struct ent *e);
void srv_grave_flush(struct swdev_server *srv);
void srv_pend_add(struct swdev_server *srv, struct ent *e);
void srv_pend_remove(struct swdev_server *srv, struct ent *e);
int srv_ep_add(struct swdev_server *srv, struct ent *e, uint32_t events);

/* ---- swdev_server_chan.c ---- */

void srv_timer_remove(struct swdev_server *srv, struct chan *ch);
void srv_chan_free(struct swdev_server *srv, struct chan *ch);
bool srv_chan_flush(struct swdev_server *srv, struct chan *ch);
bool srv_chan_reply(struct swdev_server *srv, struct chan *ch, uint8_t *buf, size_t len,
		    uint32_t delay_us);
uint8_t *srv_rep_alloc(const struct swdev_req_hdr *req, size_t outlen);
void srv_refuse_and_close(int fd, const struct swdev_req_hdr *req, uint32_t err);
void srv_chan_readable(struct swdev_server *srv, struct chan *ch);
void srv_chan_event(struct swdev_server *srv, struct chan *ch, uint32_t events);

/* ---- swdev_server_conn.c ---- */

void srv_conn_close(struct swdev_server *srv, struct conn *c, const char *why);
void srv_conn_event(struct swdev_server *srv, struct conn *c, uint32_t events);

/* ---- swdev_server_ctl.c ---- */

void srv_ctl_close(struct swdev_server *srv, struct ctl *k);
void srv_ctl_event(struct swdev_server *srv, struct ctl *k, uint32_t events);

#endif /* SWDEV_SERVER_PRIV_H */

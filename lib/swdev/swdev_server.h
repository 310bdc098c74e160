/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: daemon core.
 *
 * One thread, one epoll loop over the engine: the listening sockets, every
 * main connection (uverbs file), every private channel, the control
 * connections, and a timer queue for delayed replies. The engine is called
 * only from this loop, so it needs no locking.
 */
#ifndef SWDEV_SERVER_H
#define SWDEV_SERVER_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

#include "swdev_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

enum swdev_log_level {
	SWDEV_LOG_ERR = 0,
	SWDEV_LOG_WARN = 1,
	SWDEV_LOG_INFO = 2,
	SWDEV_LOG_DEBUG = 3,
};

/** Set the daemon log level (default SWDEV_LOG_INFO). */
void swdev_log_set_level(enum swdev_log_level level);
/** Parse "error", "warn", "info", "debug"; -1 if unknown. */
int swdev_log_parse_level(const char *s);
/** Log a line with a UTC timestamp and the level to stderr. */
void swdev_log(enum swdev_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct swdev_server;

/** Most uids an allow list holds. */
#define SWDEV_SERVER_MAX_ALLOW_UIDS 16
/** Default time a new connection has to complete its handshake (OPEN). */
#define SWDEV_SERVER_HANDSHAKE_MS 5000u
/** Default cap of connections that did not complete their handshake. */
#define SWDEV_SERVER_MAX_PENDING 64u
/** Bytes of requests being received, whole daemon and per uverbs file. */
#define SWDEV_SERVER_RX_BUDGET (64u << 20)
#define SWDEV_SERVER_RX_FILE_BUDGET (16u << 20)
/** Requests with at most this much input are not counted in the budgets. */
#define SWDEV_SERVER_RX_SMALL 4096u
/** Control connections of allowed peers held at once. */
#define SWDEV_SERVER_MAX_CTL 256u

/** Who may connect and what the control channel may do. */
struct swdev_server_opts {
	/** Allow traffic and fault injection and every read on the control channel. */
	bool test_mode;
	/** Sockets 0660 and of this group (else 0600, the daemon's group). */
	bool has_group;
	gid_t group;
	/** Peers of these uids are served besides the daemon's own euid. */
	uid_t allow_uids[SWDEV_SERVER_MAX_ALLOW_UIDS];
	unsigned int n_allow_uids;
	/** A connection that sends no OPEN (control: no request) in time is closed. */
	unsigned int handshake_ms;
	/** At most this many such connections at once; more are closed at accept. */
	unsigned int max_pending;
};

/** Defaults: no test mode, no group, no other uid, the limits above. */
void swdev_server_opts_default(struct swdev_server_opts *opts);

/**
 * Take @p sock_path (and <sock_path>.ctl, <sock_path>.lock) and listen.
 * Refuses with EADDRINUSE when another live instance serves the path (its
 * lock is held or its socket answers), EEXIST when the path exists and is
 * not a socket, ENAMETOOLONG when the path does not fit a sockaddr_un. A
 * stale socket file nobody answers on is removed. The sockets are created
 * 0600 (0660 and opts->group with has_group), whatever the umask.
 * @p opts NULL: the defaults. NULL with errno.
 */
struct swdev_server *swdev_server_create(struct swdev_engine *eng, const char *sock_path,
					 const struct swdev_server_opts *opts);
/** Serve until swdev_server_stop(). 0, or errno of a fatal loop error. */
int swdev_server_run(struct swdev_server *srv);
/** Ask the loop to return. Async-signal-safe; callable from any thread. */
void swdev_server_stop(struct swdev_server *srv);
/**
 * Close every connection (every uverbs file is closed: its objects are
 * destroyed), remove the socket files and free @p srv. The engine stays.
 */
void swdev_server_destroy(struct swdev_server *srv);

/** Test helper: test whether a live daemon answers on @p sock_path. 1, 0. */
int swdev_server_is_live(const char *sock_path);

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_SERVER_H */

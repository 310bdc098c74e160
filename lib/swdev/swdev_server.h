/* SPDX-License-Identifier: BSD-3-Clause */
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

/**
 * Take @p sock_path (and <sock_path>.ctl, <sock_path>.lock) and listen.
 * Refuses with EADDRINUSE when another live instance serves the path (its
 * lock is held or its socket answers), EEXIST when the path exists and is
 * not a socket, ENAMETOOLONG when the path does not fit a sockaddr_un. A
 * stale socket file nobody answers on is removed. NULL with errno.
 */
struct swdev_server *swdev_server_create(struct swdev_engine *eng, const char *sock_path);
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

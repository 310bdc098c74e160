/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the daemon core's shared helpers, which the
 * channel, connection and control files and the loop call: the log, the
 * monotonic clock, the rate-limited warnings a peer can cause, the grave of closed
 * entities (freed after the event batch), the list of connections without
 * a handshake and the epoll set. Nothing here calls the private functions
 * of another file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "swdev_server_priv.h"

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

uint64_t
srv_now_ns(void)
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
void __attribute__((format(printf, 3, 4)))
srv_peer_warn(struct swdev_server *srv, enum warn_kind kind, const char *fmt, ...)
{
	struct log_limit *l = &srv->warn_limit[kind];
	uint64_t now = srv_now_ns();
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
void
srv_peer_warn_flush(struct swdev_server *srv)
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
void
srv_grave_add(struct swdev_server *srv, struct ent *e)
{
	e->dead = true;
	e->grave = srv->grave;
	srv->grave = e;
}

/* srv_grave_flush() frees entities through their struct ent, and accept_ent() makes them. */
_Static_assert(offsetof(struct conn, e) == 0 && offsetof(struct ctl, e) == 0 &&
	       offsetof(struct chan, e) == 0, "entities start with their struct ent");

void
srv_grave_flush(struct swdev_server *srv)
{
	while (srv->grave != NULL) {
		struct ent *e = srv->grave;

		srv->grave = e->grave;
		free(e);	/* the ent is the first member of every entity */
	}
}

/* ------------------------------------------- connections without handshake */

void
srv_pend_add(struct swdev_server *srv, struct ent *e)
{
	e->pending = true;
	e->deadline_ns = srv_now_ns() + (uint64_t)srv->opts.handshake_ms * 1000000u;
	e->pend_next = NULL;
	e->pend_prev = srv->pend_tail;
	if (srv->pend_tail != NULL)
		srv->pend_tail->pend_next = e;
	else
		srv->pend_head = e;
	srv->pend_tail = e;
	srv->npending++;
}

void
srv_pend_remove(struct swdev_server *srv, struct ent *e)
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

int
srv_ep_add(struct swdev_server *srv, struct ent *e, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = e };

	if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
		return errno;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/**
 * @file
 * libmdevx_attach: serve a libmdevx context to testpmd's
 * `mlx5 port attach <ident> socket=<path>` (DPDK 22.03 and later,
 * drivers/net/mlx5/mlx5_testpmd.c), or to any client of the same protocol.
 *
 * Build against it with `pkg-config --cflags --libs libmdevx_attach`.
 *
 * @par Protocol (one exchange per connection)
 * The client connects to a SOCK_SEQPACKET Unix socket at the path and sends
 * one empty message (no data, no control data). The server answers with one
 * message of sizeof(int) bytes, the PD handle (host order), carrying one
 * descriptor in an SCM_RIGHTS control message: a duplicate of the context's
 * command fd. The server then closes the connection. testpmd appends
 * ",cmd_fd=<received fd>,pd_handle=<handle>" to the identifier and calls
 * rte_dev_probe() with it.
 *
 * A connection that sends data or descriptors, sends a truncated message,
 * hangs up, or sends nothing within the request timeout is closed without a
 * reply (a testpmd client then reports a truncated message), counted and
 * logged with the peer's pid and uid; descriptors it sent are closed.
 *
 * @par Who is served
 * Every client served gets the context's command fd: it can create objects
 * on the device file. Without MDEVX_ATTACH_F_ALLOW_OTHER_USERS the socket
 * mode may not have a group or other write bit (EPERM at start) and a
 * client whose uid (SO_PEERCRED) is not the server's effective uid is
 * closed without a reply (a bad request).
 *
 * @par Threading
 * The server runs one thread of its own, from mdevx_attach_server_start()
 * to mdevx_attach_server_stop(). It serves clients concurrently: up to
 * MDEVX_ATTACH_MAX_CLIENTS connections wait for their request at once,
 * each until its own deadline (accept + request timeout), so a silent
 * client delays no other. A connection beyond that number closes the one
 * nearest its deadline (counted as a timeout). Each reply calls
 * mdevx_ctx_devargs() on the context and PD it was started with: stop the
 * server before destroying that PD or closing the context.
 *
 * @par Errors
 * As libmdevx: int functions return 0 or a negative errno and set errno and
 * rte_errno; pointer functions return NULL and set errno and rte_errno.
 * Failures are logged (log type "pmd.common.mdevx.attach").
 */
#ifndef MDEVX_ATTACH_H
#define MDEVX_ATTACH_H

#include <stdint.h>

#include <mdevx.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A running server. Opaque. */
struct mdevx_attach_server;

/** Connections that may wait for their request at the same time. */
#define MDEVX_ATTACH_MAX_CLIENTS 64

/**
 * mdevx_attach_conf.flags: serve other users. Allows a socket mode with a
 * group or other write bit, and clients of any uid that reach the socket.
 */
#define MDEVX_ATTACH_F_ALLOW_OTHER_USERS (1u << 0)

/** Server settings. */
struct mdevx_attach_conf {
	/** Socket path; must not exist (EADDRINUSE). Removed by the stop. */
	const char *path;
	/**
	 * Permissions of the socket file; 0: 0600 (the owner only). A group
	 * or other write bit (0022) needs MDEVX_ATTACH_F_ALLOW_OTHER_USERS.
	 */
	uint32_t mode;
	/** How long a client may take to send its request, in ms; 0: 1000. */
	uint32_t request_timeout_ms;
	/** MDEVX_ATTACH_F_*; 0 serves the server's own uid only. */
	uint32_t flags;
};

/** What the server did with the connections it accepted. */
struct mdevx_attach_stats {
	uint64_t served;	/**< replies sent: handle and descriptor */
	uint64_t bad_requests;	/**< data, descriptors or a truncated message */
	uint64_t timeouts;	/**< no request within the timeout (or evicted) */
	uint64_t hangups;	/**< closed by the peer before its request */
	uint64_t errors;	/**< the devargs or the reply failed (logged) */
};

/**
 * Listen on conf->path and serve @p ctx with PD @p pd (both stay the
 * caller's) from a thread of the server.
 * @return the server, or NULL with errno: EINVAL (NULL argument, empty
 *   path, mode above 0777, an unknown flag); EPERM (a mode with a group or
 *   other write bit without MDEVX_ATTACH_F_ALLOW_OTHER_USERS);
 *   ENAMETOOLONG (path longer than a Unix socket address takes); the
 *   errors of mdevx_ctx_devargs() for @p ctx and @p pd (ENOENT,
 *   EPROTOTYPE, EXDEV); EADDRINUSE (the path exists); the errors
 *   of socket(), bind(), listen(), pthread_create().
 */
MDEVX_API struct mdevx_attach_server *
mdevx_attach_server_start(struct mdevx_ctx *ctx, struct mdevx_obj *pd,
			  const struct mdevx_attach_conf *conf);

/** Copy the counts of @p srv into @p stats. 0 or -EINVAL. */
MDEVX_API int mdevx_attach_server_stats(const struct mdevx_attach_server *srv,
					struct mdevx_attach_stats *stats);

/**
 * The PD handle @p srv hands out (as logged at start), for callers that
 * check what a client received. UINT32_MAX with errno EINVAL for NULL.
 */
MDEVX_API uint32_t mdevx_attach_server_pd_handle(const struct mdevx_attach_server *srv);

/**
 * Stop: wake and join the thread (a connection being served is closed
 * without a reply), close the socket, remove its file if it is still the
 * one the server created, free @p srv. 0 or -EINVAL (NULL).
 */
MDEVX_API int mdevx_attach_server_stop(struct mdevx_attach_server *srv);

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_ATTACH_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Harness of the multi-process software-device tests (suite emu, no DPDK):
 * checks counted in shared memory across forked roles, a private daemon per
 * test program, fd passing, mailbox builders, the wire protocol by hand, and
 * what a daemon holds.
 */
#ifndef MP_COMMON_H
#define MP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swdev_client.h"

/** Device every test daemon serves first. */
#define MP_DEV "mlx5_0"

/** Daemon binary (argv[1]) and this program's socket path. */
extern const char *mp_daemon_bin;
extern char mp_sock[108];

/**
 * Parse argv (argv[1] = daemon path), set up the shared counters and a
 * unique socket path /tmp/swdev-<name>-<pid>.sock.
 */
void mp_init(int argc, char **argv, const char *name);
/** Print "N passed, M failed"; exit code for main(). */
int mp_finish(void);

void mp_check(bool ok, const char *file, int line, const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define CHECK(cond, ...) mp_check((cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

/**
 * Start a daemon on @p sock with extra arguments (NULL-terminated, may be
 * NULL) and wait until it answers (10 s). It dies with this process
 * (PR_SET_PDEATHSIG) and is killed at exit. pid, or -1.
 */
pid_t mp_daemon_start(const char *sock, const char *const *extra);
/** RLIMIT_NOFILE (soft and hard) of daemons started from now on; 0 = inherit. */
extern unsigned int mp_daemon_nofile;
/** Daemons started from now on get --test-mode (default true: tests inject). */
extern bool mp_daemon_test_mode;
/**
 * Daemons started from now on run as this user (uid, gid, no supplementary
 * groups); mp_daemon_uid -1 = as this process. Needs root.
 */
extern uid_t mp_daemon_uid;
extern gid_t mp_daemon_gid;
/** Daemons started from now on write their log (stderr) to this file; NULL = inherit. */
extern const char *mp_daemon_stderr;
/** Drop this process to @p uid / @p gid (no supplementary groups). 0 or errno. */
int mp_become(uid_t uid, gid_t gid);
/** SIGTERM, wait (5 s, then SIGKILL). Returns the wait status, -1 on error. */
int mp_daemon_stop(pid_t pid);
/** Run @p argv (argv[0] = path) and wait; stdout/stderr kept. Wait status. */
int mp_run(const char *const *argv, int timeout_s);
/**
 * Run the daemon's program with @p args (NULL-terminated, at most 14), its
 * standard output in @p out (NUL-terminated, cut at @p size - 1 bytes):
 * its wait status, or -1.
 */
int mp_run_cli(const char *const *args, char *out, size_t size);

/** fork(): the child runs @p fn(arg) and _exit()s with its return value. */
pid_t mp_fork(int (*fn)(void *), void *arg);
/** waitpid with a timeout (SIGKILL after it). The wait status, -1 on error. */
int mp_wait(pid_t pid, int timeout_s);
/** A child exited normally with code 0. */
bool mp_exited_ok(int status);

/** Send @p len bytes and optionally @p fd (-1: none) over a Unix socket. 0 or errno. */
int mp_send_fd(int sock, int fd, const void *data, size_t len);
/** Receive up to @p len bytes and an fd (-1 if none). Bytes read or -errno. */
ssize_t mp_recv_fd(int sock, int *fd, void *data, size_t len);
/** Tiny sync over a socket: send a byte / wait for one (timeout in s). 0 or errno. */
int mp_signal(int sock, char c);
int mp_await(int sock, char expect, int timeout_s);

/* ---- mailboxes (built with the PRM header) ---- */

/** ALLOC_FLOW_COUNTER of @p bulk128 x 128 counters (0: one). */
struct swdev_obj *mp_counter_alloc(struct swdev_ctx *ctx, uint8_t bulk128, uint32_t *base_id,
				   int *err);
/** QUERY_FLOW_COUNTER of one counter. 0 or errno; status/syndrome on EREMOTEIO. */
int mp_counter_query(struct swdev_obj *obj, uint32_t id, bool clear, uint64_t *packets,
		     uint64_t *bytes, uint8_t *status, uint32_t *syndrome);
/** ALLOC_TRANSPORT_DOMAIN. */
struct swdev_obj *mp_td_alloc(struct swdev_ctx *ctx, uint32_t *tdn, int *err);

/** Poll the control channel until the file/device holds @p total objects (5 s). */
int mp_wait_total(struct swdev_ctl *ctl, uint32_t file_id, uint32_t total, uint32_t *got);
/** Poll until the device has @p nfiles open files (5 s). */
int mp_wait_files(struct swdev_ctl *ctl, uint32_t nfiles, uint32_t *got);
/**
 * Lines of the file @p path containing @p needle, read until there are at
 * least @p want of them or @p timeout_ms passed (a daemon's log written to
 * mp_daemon_stderr). The count; -1 if the file cannot be read.
 */
int mp_wait_log(const char *path, const char *needle, int want, int timeout_ms);

/* ---- the wire protocol by hand, past the client library (swdev_proto.h) ---- */

struct swdev_req_hdr;
struct swdev_rep_hdr;

/** Zero @p h and set magic, version, @p op, @p inlen and @p outlen (seq 0). */
void mp_req_init(struct swdev_req_hdr *h, uint16_t op, uint32_t inlen, uint32_t outlen);
/** A SOCK_SEQPACKET connection to @p path (main or control socket), or -1. */
int mp_raw_connect(const char *path);
/**
 * Send one OPEN or ATTACH datagram with @p len bytes of @p payload (at most
 * 32) and a fresh channel on the command fd of @p ctx. Our end of the
 * channel, or -1; the errno of the daemon's answer in *err (EPIPE: dropped
 * unanswered, ETIMEDOUT: none within 5 s), its header in *rep if not NULL.
 */
int mp_raw_join(struct swdev_ctx *ctx, uint16_t op, const void *payload, uint32_t len,
		int *err, struct swdev_rep_hdr *rep);
/** ATTACH a raw channel to the file of @p ctx: our end, or -1; *file_id: the file joined. */
int mp_raw_attach(struct swdev_ctx *ctx, uint32_t *file_id);

/* ---- what a daemon holds (/proc) ---- */

/** Descriptors process @p pid holds now, or -1. */
int mp_daemon_fds(pid_t pid);
/**
 * Wait (at most 20 s: a daemon under ThreadSanitizer on a busy machine
 * takes seconds for a backlog of thousands of connections) until @p pid
 * holds @p want descriptors; the last count.
 */
int mp_daemon_fds_settle(pid_t pid, int want);
/** Resident memory of @p pid in KiB, or -1. */
long mp_daemon_rss_kib(pid_t pid);

/** Monotonic time in nanoseconds. */
uint64_t mp_now_ns(void);

#endif /* MP_COMMON_H */

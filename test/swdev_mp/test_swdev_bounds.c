/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * What the daemon holds for its peers is bounded: requests being received
 * (half frames on many channels), connections that never complete their
 * handshake (timed out, capped, the oldest closed first), idle control
 * connections; and shutdown() of a command fd has one documented meaning.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"

/*
 * ThreadSanitizer maps shadow memory for what the daemon touches: its RSS
 * says nothing of the budget there (the held and refused counts still do).
 */
#if defined(__SANITIZE_THREAD__)
#define RSS_UNBOUNDED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSS_UNBOUNDED 1
#endif
#endif
#ifndef RSS_UNBOUNDED
#define RSS_UNBOUNDED 0
#endif
#include "swdev_proto.h"

/* The daemon closed its end of @p fd (EOF or an error is readable now). */
static bool
closed_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, 0) != 1)
		return false;
	return recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) <= 0;
}

/*
 * 8 files x 25 channels, each sending half of a 2 MiB frame and stopping
 * there: the daemon takes 8 of them per file (16 MiB) and 32 in all
 * (64 MiB); every other one is answered ENOMEM and closed at its header.
 */
#define NF 8
#define NC 25
#define FRAME_IN (2u << 20)
#define SENT (1u << 20)

static void
test_half_frames(void)
{
	static uint8_t junk[SENT];
	struct swdev_ctx *files[NF], *bys;
	struct swdev_obj *bys_ctr;
	int ch[NF][NC];
	unsigned int held[NF], refused = 0, other = 0, total = 0, i, j;
	struct timeval tv = { .tv_sec = 10 };
	struct swdev_req_hdr h;
	long rss0, rss1;
	uint32_t base;
	uint64_t pk = 1;
	int fds0, fds, err;
	pid_t d;

	printf("== %u channels each holding half of a 2 MiB frame\n", NF * NC);
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	bys = swdev_open(mp_sock, MP_DEV);
	bys_ctr = bys != NULL ? mp_counter_alloc(bys, 0, &base, &err) : NULL;
	CHECK(bys_ctr != NULL, "bystander");
	fds0 = mp_daemon_fds(d);
	rss0 = mp_daemon_rss_kib(d);
	mp_req_init(&h, SWDEV_OP_DEVX_GENERAL, FRAME_IN, 16);
	for (i = 0; i < NF; i++) {
		held[i] = 0;
		files[i] = swdev_open(mp_sock, MP_DEV);
		CHECK(files[i] != NULL, "file %u", i);
		for (j = 0; j < NC; j++) {
			ch[i][j] = files[i] != NULL ? mp_raw_attach(files[i], NULL) : -1;
			if (ch[i][j] < 0)
				continue;
			setsockopt(ch[i][j], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			/* A refused one is closed after its header: the send fails. */
			err = swdev_proto_write_all(ch[i][j], &h, sizeof(h));
			if (err == 0)
				err = swdev_proto_write_all(ch[i][j], junk, sizeof(junk));
			(void)err;
		}
	}
	/*
	 * No wait is needed: a 1 MiB write returns only once the daemon took
	 * the frame (and read most of it) or refused it at its header and
	 * closed the channel (the write fails). A command of the bystander
	 * served now also shows the daemon is past every header.
	 */
	if (bys_ctr != NULL)
		CHECK(mp_counter_query(bys_ctr, base, false, &pk, NULL, NULL, NULL) == 0,
		      "the bystander is served");
	for (i = 0; i < NF; i++) {
		for (j = 0; j < NC; j++) {
			struct swdev_rep_hdr rep;
			struct pollfd p = { .fd = ch[i][j], .events = POLLIN };

			if (ch[i][j] < 0) {
				other++;
				continue;
			}
			if (poll(&p, 1, 0) == 0) {
				held[i]++;
				total++;
			} else if (swdev_proto_read_all(ch[i][j], &rep, sizeof(rep)) == 0 &&
				   rep.err == ENOMEM && rep.outlen == 0 && closed_now(ch[i][j])) {
				refused++;
			} else {
				other++;
			}
		}
	}
	rss1 = mp_daemon_rss_kib(d);
	printf("   held %u (per file %u %u %u %u %u %u %u %u), refused with ENOMEM %u, other %u;"
	       " daemon RSS %ld -> %ld KiB\n", total, held[0], held[1], held[2], held[3],
	       held[4], held[5], held[6], held[7], refused, other, rss0, rss1);
	CHECK(total == 32 && refused == NF * NC - 32 && other == 0,
	      "64 MiB of 2 MiB frames held (32), the rest refused: %u %u %u", total, refused,
	      other);
	for (i = 0; i < NF; i++)
		CHECK(held[i] == (i < 4 ? 8u : 0u), "file %u holds %u frames (16 MiB per file)",
		      i, held[i]);
	/*
	 * 32 MiB received into 64 MiB of buffers (all of it resident when
	 * malloc fills them, as with meson's MALLOC_PERTURB_); without the
	 * budget, 200 to 400 MiB.
	 */
	CHECK(rss0 > 0 && rss1 > 0 && (RSS_UNBOUNDED || rss1 - rss0 < 72 * 1024),
	      "daemon memory grew by %ld KiB (budget 64 MiB)", rss1 - rss0);
	fds = mp_daemon_fds(d);
	CHECK(fds == fds0 + NF * 2 + (int)total, "daemon descriptors: %d (%d + %d files + %u)",
	      fds, fds0, NF, total);
	if (bys_ctr != NULL) {
		err = mp_counter_query(bys_ctr, base, false, &pk, NULL, NULL, NULL);
		CHECK(err == 0 && pk == 0, "a small command is served meanwhile: %s",
		      strerror(err));
	}
	for (i = 0; i < NF; i++) {
		for (j = 0; j < NC; j++)
			if (ch[i][j] >= 0)
				close(ch[i][j]);
		if (files[i] != NULL)
			swdev_close(files[i]);
	}
	fds = mp_daemon_fds_settle(d, fds0);
	CHECK(fds == fds0, "descriptors back to %d: %d", fds0, fds);
	/* The budget is free again: a full-size input is taken. */
	if (bys != NULL) {
		int c2 = mp_raw_attach(bys, NULL);

		CHECK(c2 >= 0, "attach");
		if (c2 >= 0) {
			/* The write returns once the daemon took the frame (see above). */
			CHECK(swdev_proto_write_all(c2, &h, sizeof(h)) == 0 &&
			      swdev_proto_write_all(c2, junk, sizeof(junk)) == 0, "half a frame");
			if (bys_ctr != NULL)
				CHECK(mp_counter_query(bys_ctr, base, false, &pk, NULL, NULL,
						       NULL) == 0, "the bystander is served");
			CHECK(!closed_now(c2), "taken after the others left");
			close(c2);
		}
		if (bys_ctr != NULL)
			swdev_obj_destroy(bys_ctr);
		swdev_close(bys);
	}
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
}

/*
 * Idle connections: the oldest goes past --max-pending, the rest at the
 * handshake deadline; a client that sends its OPEN is served meanwhile.
 */
#define HANDSHAKE_MS 2000
#define STR_(x) #x
#define STR(x) STR_(x)

static void
test_handshake(void)
{
	const char *opts[] = { "--handshake-timeout", STR(HANDSHAKE_MS), "--max-pending",
			       "16", NULL };
	int idle[40], closed, i, fds0, fds;
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *td;
	uint64_t t0, t_count;
	pid_t d;
	int err;

	printf("== connections that never send OPEN (timeout %d ms, at most 16)\n", HANDSHAKE_MS);
	d = mp_daemon_start(mp_sock, opts);
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL && swdev_ctl_ping(ctl) == 0, "control");
	fds0 = mp_daemon_fds(d);
	t0 = mp_now_ns();
	/* The listen backlog is accepted in the order of the connects. */
	for (i = 0; i < 40; i++) {
		idle[i] = mp_raw_connect(mp_sock);
		CHECK(idle[i] >= 0, "connect %d", i);
	}
	/*
	 * The accept of the 40th evicts the 24th: once that one is closed,
	 * the daemon accepted them all. Before the deadline (no accept came
	 * before t0), exactly the 24 oldest are closed.
	 */
	for (i = 0; i < 24; i++) {
		struct pollfd p = { .fd = idle[i], .events = POLLIN };

		CHECK(idle[i] >= 0 && poll(&p, 1, 10000) == 1 && closed_now(idle[i]),
		      "oldest %d closed", i);
	}
	fds = mp_daemon_fds(d);
	for (closed = 0, i = 0; i < 40; i++)
		if (idle[i] >= 0 && closed_now(idle[i]))
			closed++;
	t_count = mp_now_ns() - t0;
	if (t_count < (uint64_t)HANDSHAKE_MS * 1000000u)
		CHECK(closed == 24 && fds == fds0 + 16, "the 24 oldest closed (%d), 16 held "
		      "(%d fds more)", closed, fds - fds0);
	else
		printf("   counted %.2f s after the first connect, past the deadline: "
		       "not checking that 16 are still held\n", (double)t_count / 1e9);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "a real client is served with 16 idle ones: %s", strerror(errno));
	td = ctx != NULL ? mp_td_alloc(ctx, NULL, &err) : NULL;
	CHECK(td != NULL, "and its commands");
	/* Deadline: about 1 s after each accept. */
	for (i = 24; i < 40; i++) {
		struct pollfd p = { .fd = idle[i], .events = POLLIN };
		uint64_t end = t0 + 3ull * HANDSHAKE_MS * 1000000u, now = mp_now_ns();
		int wait_ms = now < end ? (int)((end - now) / 1000000u) : 0;

		if (idle[i] < 0)
			continue;
		CHECK(poll(&p, 1, wait_ms) == 1 && closed_now(idle[i]),
		      "idle %d closed by the deadline", i);
	}
	printf("   closed in %.2f s\n", (double)(mp_now_ns() - t0) / 1e9);
	CHECK(mp_now_ns() - t0 >= (uint64_t)HANDSHAKE_MS * 900000u, "not before the timeout");
	CHECK(swdev_ctl_ping(ctl) == 0, "an idle control connection of an allowed uid stays");
	if (td != NULL)
		CHECK(swdev_obj_destroy(td) == 0, "the served client still works");
	fds = mp_daemon_fds_settle(d, fds0 + 2);
	CHECK(fds == fds0 + 2, "descriptors: only the served client's two: %d", fds - fds0);
	for (i = 0; i < 40; i++)
		if (idle[i] >= 0)
			close(idle[i]);
	if (ctx != NULL)
		swdev_close(ctx);
	swdev_ctl_close(ctl);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
}

/* Thousands of idle connections on both sockets: the daemon's descriptors stay bounded. */
#define FLOOD 4000
/* The daemon logs at most this many warnings of one kind a second. */
#define WARN_BURST 10u

/*
 * Warnings of one kind in the daemon's log @p path: @p lines logged (those
 * containing @p line_has) and @p total, with the ones each line or the
 * final count (containing @p flush_has) says were not logged.
 */
static void
log_tally(const char *path, const char *line_has, const char *flush_has, unsigned int *lines,
	  unsigned int *total)
{
	char line[2048];
	unsigned int more;
	const char *p;
	FILE *f = fopen(path, "r");

	*lines = 0;
	*total = 0;
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, line_has) != NULL) {
			(*lines)++;
			(*total)++;
			p = strstr(line, "(and ");
			if (p != NULL && sscanf(p, "(and %u more", &more) == 1)
				*total += more;
		} else if (strstr(line, flush_has) != NULL) {
			p = strstr(line, "WARN: ");
			if (p != NULL && sscanf(p, "WARN: %u more warnings", &more) == 1)
				*total += more;
		}
	}
	fclose(f);
}

static void
test_descriptor_flood(void)
{
	/* No pending connection expires during the test: each is evicted. */
	const char *opts[] = { "--handshake-timeout", "600000", NULL };
	static int fl[2][FLOOD];
	struct rlimit rl;
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl, *late;
	struct swdev_obj *td;
	char ctl_path[128], log_path[160];
	unsigned int lines, total, secs;
	int fds0, fds, maxfds = 0, s, i, err;
	uint64_t t0;
	pid_t d;

	printf("== %d idle connections on the main and on the control socket\n", FLOOD);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 2 * FLOOD + 100) {
		printf("SKIP: RLIMIT_NOFILE %lu < %d\n", (unsigned long)rl.rlim_cur,
		       2 * FLOOD + 100);
		return;
	}
	snprintf(log_path, sizeof(log_path), "%s.flood.log", mp_sock);
	mp_daemon_stderr = log_path;
	t0 = mp_now_ns();
	d = mp_daemon_start(mp_sock, opts);
	mp_daemon_stderr = NULL;
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "control");
	fds0 = mp_daemon_fds(d);
	snprintf(ctl_path, sizeof(ctl_path), "%s.ctl", mp_sock);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < FLOOD; i++) {
			fl[s][i] = mp_raw_connect(s == 0 ? mp_sock : ctl_path);
			if (i % 500 == 0) {
				fds = mp_daemon_fds(d);
				maxfds = fds > maxfds ? fds : maxfds;
			}
		}
	}
	/* Until the daemon accepted the backlog. */
	fds = mp_daemon_fds_settle(d, fds0 + 64 + 255);
	maxfds = fds > maxfds ? fds : maxfds;
	printf("   daemon descriptors: %d before, at most %d during\n", fds0, maxfds);
	/*
	 * 64 pending, 255 more control connections (the test's own is one of
	 * 256), and for a moment the one accepted to be closed.
	 */
	CHECK(maxfds <= fds0 + 64 + 255 + 1, "bounded: %d <= %d + 64 + 255 + 1", maxfds, fds0);
	CHECK(fds == fds0 + 64 + 255, "exactly the caps: %d", fds - fds0);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "a real client is served during the flood: %s", strerror(errno));
	td = ctx != NULL ? mp_td_alloc(ctx, NULL, &err) : NULL;
	CHECK(td != NULL, "and its commands");
	CHECK(swdev_ctl_ping(ctl) == 0, "the control connection made before still answers");
	late = swdev_ctl_open(mp_sock);
	err = late == NULL ? errno : swdev_ctl_ping(late);
	CHECK(err != 0, "a control connection past the cap of 256 is closed: %s", strerror(err));
	swdev_ctl_close(late);
	for (s = 0; s < 2; s++)
		for (i = 0; i < FLOOD; i++)
			if (fl[s][i] >= 0)
				close(fl[s][i]);
	if (td != NULL)
		swdev_obj_destroy(td);
	if (ctx != NULL)
		swdev_close(ctx);
	fds = mp_daemon_fds_settle(d, fds0);
	CHECK(fds == fds0, "descriptors back to %d: %d", fds0, fds);
	CHECK(swdev_ctl_ping(ctl) == 0, "control answers");
	swdev_ctl_close(ctl);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	secs = (unsigned int)((mp_now_ns() - t0) / 1000000000u) + 1;
	/* Each refusal is counted, in a few lines: at most WARN_BURST a second. */
	log_tally(log_path, "control connections already", "control connection over the cap",
		  &lines, &total);
	printf("   log: %u lines for %u control connections over the cap, in %u s\n", lines,
	       total, secs);
	CHECK(total == FLOOD - 255 + 1, "every control connection over the cap counted: %u",
	      total);
	CHECK(lines >= 1 && lines <= WARN_BURST * (secs + 1), "in at most %u lines a second: %u",
	      WARN_BURST, lines);
	log_tally(log_path, "connections without a handshake (--max-pending)",
		  "connection without a handshake evicted", &lines, &total);
	printf("   log: %u lines for %u evicted connections\n", lines, total);
	CHECK(total >= FLOOD - 64, "every eviction counted: %u", total);
	CHECK(lines >= 1 && lines <= WARN_BURST * (secs + 1), "in at most %u lines a second: %u",
	      WARN_BURST, lines);
	unlink(log_path);
}

/* A file with one counter and a second holder of its command fd. */
static bool
two_holders(struct swdev_ctx **ctx, struct swdev_ctx **imp, struct swdev_obj **ctr,
	    struct swdev_obj **ictr, uint32_t *base)
{
	uint8_t attrs[32];
	int err;

	*ctx = swdev_open(mp_sock, MP_DEV);
	*ctr = *ctx != NULL ? mp_counter_alloc(*ctx, 0, base, &err) : NULL;
	*imp = *ctx != NULL ? swdev_import_device(dup(swdev_cmd_fd(*ctx))) : NULL;
	CHECK(*ctr != NULL && *imp != NULL, "a file with two holders");
	if (*ctr == NULL || *imp == NULL)
		return false;
	swdev_obj_export(*ctr, attrs);
	*ictr = swdev_obj_import(*imp, attrs);
	return *ictr != NULL;
}

/*
 * shutdown() of a shared command fd: SHUT_WR and SHUT_RD leave the file
 * (SHUT_WR: no context can join any more), SHUT_RDWR closes it for every
 * holder, as the last close does (the daemon cannot tell them apart).
 */
static void
test_shutdown(void)
{
	static const int how[] = { SHUT_WR, SHUT_RD, SHUT_RDWR };
	static const char *const names[] = { "SHUT_WR", "SHUT_RD", "SHUT_RDWR" };
	struct swdev_ctx *ctx, *imp, *third;
	struct swdev_obj *ctr, *ictr;
	struct swdev_ctl *ctl;
	uint32_t base, file_id, n = 0, got = 0;
	char log_path[160];
	uint64_t pk;
	unsigned int k;
	pid_t d;
	int err, err2, err3, dupfd, shut_lines = 0;

	snprintf(log_path, sizeof(log_path), "%s.shutdown.log", mp_sock);
	mp_daemon_stderr = log_path;
	d = mp_daemon_start(mp_sock, NULL);
	mp_daemon_stderr = NULL;
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	ctl = swdev_ctl_open(mp_sock);
	for (k = 0; k < 3; k++) {
		printf("== shutdown(%s) of a command fd with two holders\n", names[k]);
		if (!two_holders(&ctx, &imp, &ctr, &ictr, &base))
			break;
		file_id = swdev_ctx_file_id(ctx);
		CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, base, 4, 40) == 0, "inject");
		CHECK(shutdown(swdev_cmd_fd(imp), how[k]) == 0, "shutdown: %s", strerror(errno));
		/*
		 * Wait for what the daemon does: SHUT_RDWR closes the file,
		 * SHUT_WR is logged; SHUT_RD makes no event in the daemon.
		 */
		if (how[k] == SHUT_RDWR) {
			CHECK(mp_wait_files(ctl, 0, &n) == 0 && n == 0, "the file is closed: %u",
			      n);
		} else if (how[k] == SHUT_WR) {
			shut_lines++;
			CHECK(mp_wait_log(log_path, "a holder shut the command fd down", shut_lines,
					  10000) == shut_lines, "the daemon saw the shutdown");
		}
		pk = 0;
		err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
		err2 = mp_counter_query(ictr, base, false, &pk, NULL, NULL, NULL);
		dupfd = dup(swdev_cmd_fd(ctx));
		third = swdev_import_device(dupfd);
		err3 = third == NULL ? errno : 0;
		if (third == NULL)
			close(dupfd);
		if (how[k] == SHUT_RDWR) {
			CHECK(err == EIO && err2 == EIO, "the file is closed for both holders: "
			      "%s, %s", strerror(err), strerror(err2));
			CHECK(mp_wait_files(ctl, 0, &n) == 0 && n == 0, "no file left: %u", n);
			CHECK(mp_wait_total(ctl, file_id, 0, &got) == 0 && got == 0,
			      "its objects destroyed: %u", got);
			CHECK(third == NULL && err3 != 0, "nobody can join it: %s", strerror(err3));
		} else {
			CHECK(err == 0 && err2 == 0 && pk == 4, "the file lives on for both "
			      "holders: %s, %s, %lu packets", strerror(err), strerror(err2),
			      (unsigned long)pk);
			CHECK(swdev_ctl_get_num_files(ctl, MP_DEV, &n) == 0 && n == 1,
			      "still one file: %u", n);
			if (how[k] == SHUT_WR)
				CHECK(third == NULL && err3 == EPIPE,
				      "no context can join after SHUT_WR: %s", strerror(err3));
			else
				CHECK(third != NULL, "a context can still join after SHUT_RD: %s",
				      strerror(err3));
		}
		if (third != NULL)
			swdev_close(third);
		swdev_obj_unimport(ictr);
		swdev_close(imp);
		if (how[k] == SHUT_RDWR)
			free(ctr);	/* gone with the file; the handle is stale */
		else
			CHECK(swdev_obj_destroy(ctr) == 0, "destroy");
		swdev_close(ctx);
		CHECK(mp_wait_files(ctl, 0, &n) == 0 && n == 0, "the file goes with the last "
		      "holder: %u", n);
	}
	swdev_ctl_close(ctl);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	unlink(log_path);
}

/*
 * Two requests written back to back on one channel, each asking for a
 * 1 MiB output mailbox: the first reply does not fit the socket, and the
 * daemon reads nothing more of the channel until it is out. Both replies
 * arrive whole and in order (their seq), each with the NOP's status.
 */
#define PIPE_OUT (1u << 20)

static void
test_pipelined_replies(void)
{
	static uint8_t out[PIPE_OUT];
	struct {
		struct swdev_req_hdr h;
		uint8_t in[16];
	} req[2];
	struct timeval tv = { .tv_sec = 10 };
	struct swdev_rep_hdr rep;
	struct swdev_ctx *f;
	unsigned int whole = 0;
	int ch = -1, err = 0;
	uint8_t extra;
	pid_t d;

	printf("== two pipelined requests, each with a 1 MiB reply\n");
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	f = swdev_open(mp_sock, MP_DEV);
	ch = f != NULL ? mp_raw_attach(f, NULL) : -1;
	CHECK(ch >= 0, "channel");
	if (ch < 0)
		goto out;
	setsockopt(ch, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (int i = 0; i < 2; i++) {
		mp_req_init(&req[i].h, SWDEV_OP_DEVX_GENERAL, sizeof(req[i].in), PIPE_OUT);
		req[i].h.seq = 100 + i;
		memset(req[i].in, 0, sizeof(req[i].in));
		req[i].in[0] = MDEVX_CMD_OP_NOP >> 8;
		req[i].in[1] = MDEVX_CMD_OP_NOP & 0xff;
	}
	/* both at once: the daemon has the second before the first reply is out */
	err = swdev_proto_write_all(ch, req, sizeof(req));
	CHECK(err == 0, "write: %s", strerror(err));
	for (int i = 0; i < 2 && err == 0; i++) {
		err = swdev_proto_read_all(ch, &rep, sizeof(rep));
		if (err == 0 && rep.magic == SWDEV_PROTO_REP_MAGIC && rep.seq == 100u + i &&
		    rep.err == 0 && rep.outlen == PIPE_OUT)
			err = swdev_proto_read_all(ch, out, PIPE_OUT);
		else if (err == 0)
			err = EPROTO;
		/* the NOP's status byte, and nothing of the other reply inside */
		if (err == 0 && out[0] == 0 && out[PIPE_OUT - 1] == 0)
			whole++;
	}
	CHECK(whole == 2, "whole replies in order: %u (%s; last seq %u, err %u, outlen %u)",
	      whole, strerror(err), rep.seq, rep.err, rep.outlen);
	CHECK(recv(ch, &extra, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN,
	      "nothing after the two replies");
out:
	if (ch >= 0)
		close(ch);
	if (f != NULL)
		swdev_close(f);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "bounds");
	test_half_frames();
	test_handshake();
	test_descriptor_flood();
	test_shutdown();
	test_pipelined_replies();
	return mp_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Robustness of the daemon: garbage on a fresh connection, on a command fd
 * and on a private channel, truncated frames, huge lengths, a client that
 * never reads its replies, clients killed mid-request or while their reply
 * is delayed, random mailboxes. After each, the daemon must still serve a
 * bystander client, and only the offender is disconnected.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "swdev_proto.h"

static struct swdev_ctx *bystander;
static struct swdev_obj *bys_ctr;
static uint32_t bys_base;
static uint64_t bys_expect;
static struct swdev_ctl *ctl;
static char log_path[160];		/* the daemon's log */
/*
 * First messages of test_main_socket_garbage() the daemon logs as
 * malformed: random bytes, OPEN without a channel fd, 70,000 bytes, ATTACH
 * with a seqpacket fd (an empty datagram reads as EOF; ATTACH with a
 * proper channel before OPEN is closed as such).
 */
#define GARBAGE_LINES 4

/* The bystander sees its own traffic: the daemon is alive and unconfused. */
static void
check_bystander(const char *after)
{
	uint64_t pk = 0;
	int err;

	bys_expect++;
	swdev_ctl_inject_traffic(ctl, MP_DEV, bys_base, 1, 1);
	err = mp_counter_query(bys_ctr, bys_base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == bys_expect, "bystander after %s: %s %lu/%lu", after,
	      strerror(err), (unsigned long)pk, (unsigned long)bys_expect);
}

/* The daemon closed its end: EOF (or reset) within 5 s. */
static bool
peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];
	int i;

	for (i = 0; i < 50; i++) {
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return true;
	}
	return false;
}

/* Something (data or EOF) arrives within 5 s. */
static bool
peer_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 5000) == 1;
}

static void
fill_random(uint8_t *p, size_t n, unsigned int *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rand_r(seed);
}

/*
 * A file of our own on the device with one counter on it: 0, or -1 after
 * a failed check (the file closed again).
 */
static int
open_with_counter(struct swdev_ctx **ctx, struct swdev_obj **ctr, uint32_t *base)
{
	int err = 0;

	*ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(*ctx != NULL, "open");
	if (*ctx == NULL)
		return -1;
	*ctr = mp_counter_alloc(*ctx, 0, base, &err);
	CHECK(*ctr != NULL, "counter: %s", strerror(err));
	if (*ctr == NULL) {
		swdev_close(*ctx);
		return -1;
	}
	return 0;
}

static void
test_main_socket_garbage(void)
{
	uint8_t buf[70000];
	struct swdev_req_hdr h;
	unsigned int seed = 1;
	int fd, sv[2], n;

	printf("== garbage on fresh connections\n");
	fd = mp_raw_connect(mp_sock);
	CHECK(fd >= 0, "connect");
	fill_random(buf, 100, &seed);
	send(fd, buf, 100, MSG_NOSIGNAL);
	CHECK(peer_closed(fd), "random first datagram: disconnected");
	close(fd);

	fd = mp_raw_connect(mp_sock);
	send(fd, buf, 0, MSG_NOSIGNAL);
	CHECK(peer_closed(fd), "empty first datagram: disconnected");
	close(fd);

	fd = mp_raw_connect(mp_sock);
	mp_req_init(&h, SWDEV_OP_OPEN, 0, 0);
	send(fd, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(fd), "OPEN without a channel fd: disconnected");
	close(fd);

	fd = mp_raw_connect(mp_sock);
	fill_random(buf, sizeof(buf), &seed);
	memcpy(buf, &h, sizeof(h));
	send(fd, buf, sizeof(buf), MSG_NOSIGNAL);
	CHECK(peer_closed(fd), "70000-byte datagram: disconnected");
	close(fd);

	fd = mp_raw_connect(mp_sock);
	h.op = SWDEV_OP_ATTACH;
	CHECK(swdev_proto_send_fd(fd, &h, sizeof(h), fd, 0) == 0, "send");
	CHECK(peer_closed(fd), "ATTACH before OPEN (with a seqpacket fd): disconnected");
	close(fd);

	/* The same with a proper channel: refused, and the channel fd dropped. */
	fd = mp_raw_connect(mp_sock);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		CHECK(swdev_proto_send_fd(fd, &h, sizeof(h), sv[1], 0) == 0, "send");
		close(sv[1]);
		CHECK(peer_closed(fd), "ATTACH before OPEN: disconnected");
		CHECK(peer_closed(sv[0]), "ATTACH before OPEN: its channel closed unanswered");
		close(sv[0]);
	}
	close(fd);

	fd = mp_raw_connect(mp_sock);
	close(fd);	/* connect and leave */
	check_bystander("garbage on fresh connections");
	/* each malformed first message said so in the log; leaving silently did not */
	n = mp_wait_log(log_path, "bad first message, disconnecting", GARBAGE_LINES, 5000);
	CHECK(n == GARBAGE_LINES, "log lines of bad first messages: %d, want %d", n,
	      GARBAGE_LINES);
}

/* ATTACH a raw channel to the file of @p ctx. Returns our end or -1. */
static int
raw_attach(struct swdev_ctx *ctx)
{
	uint32_t file_id = 0;
	int ch = mp_raw_attach(ctx, &file_id);

	if (ch >= 0)
		CHECK(file_id == swdev_ctx_file_id(ctx), "raw ATTACH joined the file");
	return ch;
}

/* One request without payload on channel @p ch, its reply header in @p rep. 0 or errno. */
static int
raw_call(int ch, uint16_t op, uint32_t handle, uint32_t arg2, struct swdev_rep_hdr *rep)
{
	struct swdev_req_hdr h;
	int err;

	mp_req_init(&h, op, 0, 0);
	h.seq = 77;
	h.handle = handle;
	h.arg2 = arg2;
	err = swdev_proto_write_all(ch, &h, sizeof(h));
	if (err == 0)
		err = swdev_proto_read_all(ch, rep, sizeof(*rep));
	if (err == 0 && (rep->seq != 77 || rep->outlen != 0))
		err = EPROTO;
	return err;
}

/*
 * VERBS_DESTROY names the kind it destroys, as the kernel's typed destroy
 * methods do: only a PD, a UAR or a umem, of that kind. Asked of a DEVX
 * object (a flow counter, a transport domain) with any value, its own kind
 * too, it answers EINVAL, and the object lives on.
 */
static void
test_typed_destroy(void)
{
	static const uint32_t kinds[] = {
		0,					/* any verbs object */
		SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_PD),
		SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_UMEM),
		SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_TD),
		SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_FLOW_COUNTER),
		SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_MAX),
		UINT32_MAX,
	};
	const size_t nk = sizeof(kinds) / sizeof(kinds[0]);
	struct swdev_obj *ctr, *td, *objs[2];
	struct swdev_rep_hdr rep;
	struct swdev_ctx *ctx;
	uint32_t base, tdn, refused = 0;
	uint64_t pk;
	int ch, err;

	printf("== VERBS_DESTROY of DEVX objects, by kind\n");
	if (open_with_counter(&ctx, &ctr, &base) != 0)
		return;
	td = mp_td_alloc(ctx, &tdn, &err);
	CHECK(td != NULL, "transport domain: %s", strerror(err));
	ch = raw_attach(ctx);
	CHECK(ch >= 0, "channel");
	objs[0] = ctr;
	objs[1] = td;
	for (size_t o = 0; ch >= 0 && td != NULL && o < 2; o++) {
		for (size_t i = 0; i < nk; i++) {
			err = raw_call(ch, SWDEV_OP_VERBS_DESTROY, swdev_obj_handle(objs[o]),
				       kinds[i], &rep);
			CHECK(err == 0 && rep.err == EINVAL, "object %zu, kind argument %#x: %s, "
			      "err %u", o, kinds[i], strerror(err), rep.err);
			refused += err == 0 && rep.err == EINVAL;
		}
	}
	CHECK(refused == 2 * nk, "refused %u of %zu", refused, 2 * nk);
	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "the counter lives on: %s", strerror(err));
	if (ch >= 0)
		close(ch);
	if (td != NULL)
		CHECK(swdev_obj_destroy(td) == 0, "the transport domain lived on: destroyed");
	CHECK(swdev_obj_destroy(ctr) == 0, "destroy");
	swdev_close(ctx);
}

static void
test_channel_garbage(void)
{
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr;
	struct swdev_req_hdr h;
	uint8_t buf[4096];
	unsigned int seed = 7;
	uint64_t pk;
	uint32_t base;
	int ch, err, i;

	printf("== garbage on a command fd and on channels\n");
	if (open_with_counter(&ctx, &ctr, &base) != 0)
		return;

	/* Garbage on the shared command fd is dropped: the file lives on. */
	for (i = 0; i < 10; i++) {
		fill_random(buf, 64 + (size_t)i * 100, &seed);
		send(swdev_cmd_fd(ctx), buf, 64 + (size_t)i * 100, MSG_NOSIGNAL);
	}
	send(swdev_cmd_fd(ctx), buf, 0, MSG_NOSIGNAL);
	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "file still served after garbage on its command fd: %s", strerror(err));

	ch = raw_attach(ctx);
	CHECK(ch >= 0, "raw channel");
	fill_random(buf, sizeof(buf), &seed);
	send(ch, buf, sizeof(buf), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "random bytes on a channel: channel closed");
	close(ch);

	ch = raw_attach(ctx);
	mp_req_init(&h, SWDEV_OP_DEVX_GENERAL, 0xffffffffu, 16);
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "inlen 4 GiB: channel closed");
	close(ch);

	ch = raw_attach(ctx);
	h.inlen = 16;
	h.outlen = 0x7fffffffu;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "outlen 2 GiB: channel closed");
	close(ch);

	ch = raw_attach(ctx);
	h.outlen = 16;
	h.op = 0;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "op 0: channel closed");
	close(ch);

	ch = raw_attach(ctx);
	h.op = 0xffff;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "unknown op: channel closed");
	close(ch);

	ch = raw_attach(ctx);
	h.op = SWDEV_OP_DEVX_GENERAL;
	h.reserved = 1;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "reserved field set: channel closed");
	close(ch);
	h.reserved = 0;

	ch = raw_attach(ctx);
	h.version = 99;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	CHECK(peer_closed(ch), "wrong version: channel closed");
	close(ch);

	/* Truncated frames: the client goes away mid-frame. */
	ch = raw_attach(ctx);
	send(ch, &h, 20, MSG_NOSIGNAL);
	close(ch);
	ch = raw_attach(ctx);
	h.version = SWDEV_PROTO_VERSION;
	h.inlen = 1000;
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	send(ch, buf, 10, MSG_NOSIGNAL);
	close(ch);

	/* A valid request with the op of the main connection: refused, kept. */
	ch = raw_attach(ctx);
	h.op = SWDEV_OP_OPEN;
	h.inlen = 0;
	h.outlen = 0;
	h.seq = 5;
	{
		struct swdev_rep_hdr rep;

		send(ch, &h, sizeof(h), MSG_NOSIGNAL);
		err = swdev_proto_read_all(ch, &rep, sizeof(rep));
		CHECK(err == 0 && rep.seq == 5 && rep.err == EINVAL, "OPEN on a channel: EINVAL");
	}
	close(ch);

	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "the file's own context still works: %s", strerror(err));
	check_bystander("garbage on channels");
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
}

/*
 * Misuse of a live file's command fd: a second OPEN, an ATTACH with a
 * payload, more channels than a file may have. Each is refused, the file
 * and its other channels are kept, and a freed channel slot is reusable.
 */
static void
test_command_fd_misuse(void)
{
	static int chans[300];
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr;
	uint64_t pk;
	uint32_t base;
	int fd, err, n, i;

	printf("== misuse of a command fd: second OPEN, ATTACH with payload, channel limit\n");
	if (open_with_counter(&ctx, &ctr, &base) != 0)
		return;
	fd = mp_raw_join(ctx, SWDEV_OP_OPEN, MP_DEV, sizeof(MP_DEV), &err, NULL);
	CHECK(fd >= 0 && err == EPIPE, "second OPEN on a file: dropped, channel closed: %s",
	      strerror(err));
	if (fd >= 0)
		close(fd);
	fd = mp_raw_join(ctx, SWDEV_OP_ATTACH, "abcd", 4, &err, NULL);
	CHECK(fd >= 0 && err == EINVAL, "ATTACH with a payload: EINVAL: %s", strerror(err));
	if (fd >= 0)
		close(fd);
	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "the file survives both: %s", strerror(err));

	/* The context's own channel is one of the 256. */
	for (n = 0; n < 300; n++) {
		chans[n] = raw_attach(ctx);
		if (chans[n] < 0)
			break;
	}
	CHECK(n == 255, "255 more channels, then refused: %d", n);
	fd = mp_raw_join(ctx, SWDEV_OP_ATTACH, NULL, 0, &err, NULL);
	CHECK(err == EMFILE, "ATTACH beyond the limit: EMFILE: %s", strerror(err));
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		close(chans[--n]);
		for (i = 0; i < 100; i++) {
			chans[n] = raw_attach(ctx);
			if (chans[n] >= 0)
				break;
			usleep(10000);
		}
		CHECK(chans[n] >= 0, "a closed channel frees its slot");
		if (chans[n] >= 0)
			n++;
	}
	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "the context's channel works at the limit: %s", strerror(err));
	for (i = 0; i < n; i++)
		close(chans[i]);
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
	check_bystander("misuse of a command fd");
}

/*
 * One holder shuts the shared command fd down for writing: the other holders
 * keep the uverbs file and its objects; it goes when the last one closes.
 */
static void
test_holder_shutdown(void)
{
	struct swdev_ctx *ctx, *imp;
	struct swdev_obj *ctr, *ictr;
	uint8_t attrs[32];
	uint32_t base, nfiles = 0, got = 0, file_id;
	uint64_t pk = 0;
	int err;

	printf("== a holder shuts the command fd down\n");
	if (open_with_counter(&ctx, &ctr, &base) != 0)
		return;
	file_id = swdev_ctx_file_id(ctx);
	imp = swdev_import_device(dup(swdev_cmd_fd(ctx)));
	CHECK(imp != NULL, "a second holder");
	if (imp == NULL) {
		swdev_obj_destroy(ctr);
		swdev_close(ctx);
		return;
	}
	swdev_obj_export(ctr, attrs);
	ictr = swdev_obj_import(imp, attrs);
	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, base, 6, 60) == 0, "inject");
	CHECK(shutdown(swdev_cmd_fd(imp), SHUT_WR) == 0, "shutdown: %s", strerror(errno));
	usleep(100000);
	err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 6, "the file lives on for the other holder: %s %lu",
	      strerror(err), (unsigned long)pk);
	err = mp_counter_query(ictr, base, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 6, "and for the one that shut it down: %s", strerror(err));
	CHECK(mp_wait_total(ctl, file_id, 1, &got) == 0 && got == 1, "its object is kept: %u",
	      got);
	swdev_obj_unimport(ictr);
	swdev_close(imp);
	swdev_close(ctx);
	free(ctr);	/* its file goes with the last holder */
	CHECK(mp_wait_total(ctl, file_id, 0, &got) == 0 && got == 0,
	      "the file goes with the last holder: %u objects", got);
	CHECK(mp_wait_files(ctl, 1, &nfiles) == 0 && nfiles == 1, "only the bystander's file: %u",
	      nfiles);
	check_bystander("a holder's shutdown of the command fd");
}

/* Pipeline big requests and never read: only this channel stalls. */
static void
test_no_reader(void)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	struct swdev_ctx *ctx;
	struct swdev_req_hdr h;
	int ch, i, flags;

	printf("== a client that never reads its replies\n");
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	ch = raw_attach(ctx);
	mp_req_init(&h, SWDEV_OP_DEVX_GENERAL, sizeof(in), 1u << 20);
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	flags = MSG_NOSIGNAL | MSG_DONTWAIT;
	for (i = 0; i < 64; i++) {
		h.seq = (uint32_t)i;
		if (send(ch, &h, sizeof(h), flags) < 0 || send(ch, in, sizeof(in), flags) < 0)
			break;
	}
	check_bystander("a stalled channel");
	close(ch);
	swdev_close(ctx);
	check_bystander("the stalled client left");
}

/*
 * Replies left unread on many channels: the daemon holds at most its
 * budget (64 MiB) of them; past it a command with an output mailbox is
 * refused with ENOMEM (no output), and the daemon serves everyone else.
 */
static void
test_reply_budget(void)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	const unsigned int nch = 48;
	unsigned int ok = 0, nomem = 0, other = 0;
	struct swdev_rep_hdr rep;
	struct swdev_req_hdr h;
	struct swdev_ctx *ctx;
	int ch[48];

	printf("== replies of %u channels left unread (2 MiB each)\n", nch);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	mp_req_init(&h, SWDEV_OP_DEVX_GENERAL, sizeof(in), SWDEV_PROTO_MAX_PAYLOAD);
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	for (unsigned int i = 0; i < nch; i++) {
		ch[i] = raw_attach(ctx);
		CHECK(ch[i] >= 0, "attach %u", i);
		if (ch[i] < 0)
			continue;
		h.seq = i;
		CHECK(send(ch[i], &h, sizeof(h), MSG_NOSIGNAL) == (ssize_t)sizeof(h) &&
		      send(ch[i], in, sizeof(in), MSG_NOSIGNAL) == (ssize_t)sizeof(in),
		      "send %u", i);
		/* the header of its reply: the big ones stay mostly unsent */
		if (!peer_readable(ch[i]) || swdev_proto_read_all(ch[i], &rep, sizeof(rep)) != 0)
			other++;
		else if (rep.err == 0 && rep.outlen == SWDEV_PROTO_MAX_PAYLOAD)
			ok++;
		else if (rep.err == ENOMEM && rep.outlen == 0)
			nomem++;
		else
			other++;
	}
	printf("   %u served, %u refused with ENOMEM, %u other\n", ok, nomem, other);
	CHECK(ok > 0 && (uint64_t)ok * SWDEV_PROTO_MAX_PAYLOAD <= (64u << 20),
	      "replies held within the budget: %u", ok);
	CHECK(nomem > 0 && other == 0, "refusals past the budget: %u (%u other)", nomem, other);
	check_bystander("unread replies over the budget");
	for (unsigned int i = 0; i < nch; i++)
		if (ch[i] >= 0)
			close(ch[i]);
	swdev_close(ctx);
	check_bystander("the client with unread replies left");
}

static int
die_mid_frame(void *arg)
{
	struct swdev_ctx *ctx = swdev_open(mp_sock, MP_DEV);
	struct swdev_req_hdr h;
	static uint8_t junk[100000];
	int ch;

	(void)arg;
	if (ctx == NULL)
		return 1;
	ch = raw_attach(ctx);
	mp_req_init(&h, SWDEV_OP_DEVX_GENERAL, 1u << 20, 16);
	send(ch, &h, sizeof(h), MSG_NOSIGNAL);
	send(ch, junk, sizeof(junk), MSG_NOSIGNAL);
	raise(SIGKILL);
	return 0;
}

static int
die_while_delayed(void *arg)
{
	struct swdev_ctx *ctx = swdev_open(mp_sock, MP_DEV);
	struct swdev_obj *ctr;
	uint32_t base;
	int err;

	(void)arg;
	if (ctx == NULL)
		return 1;
	ctr = mp_counter_alloc(ctx, 0, &base, &err);
	if (ctr == NULL)
		return 1;
	mp_counter_query(ctr, base, false, NULL, NULL, NULL, NULL);	/* delayed: killed */
	return 0;
}

static void
test_killed_clients(void)
{
	uint32_t nfiles = 0;
	pid_t pid;
	int st;

	printf("== clients killed mid-request\n");
	pid = mp_fork(die_mid_frame, NULL);
	st = mp_wait(pid, 10);
	CHECK(WIFSIGNALED(st), "client died mid-frame");
	check_bystander("a client killed mid-frame");

	CHECK(swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1, 0, 0,
				  300000) == 0, "delay fault");
	pid = mp_fork(die_while_delayed, NULL);
	usleep(150000);
	kill(pid, SIGKILL);
	st = mp_wait(pid, 10);
	CHECK(WIFSIGNALED(st), "client killed while its reply was delayed");
	usleep(300000);
	check_bystander("a client killed with a delayed reply");
	CHECK(mp_wait_files(ctl, 1, &nfiles) == 0 && nfiles == 1,
	      "only the bystander's file is open: %u", nfiles);
}

static void
test_random_mailboxes(void)
{
	uint8_t in[8192], out[8192];
	struct swdev_ctx *ctx;
	struct swdev_obj *obj;
	unsigned int seed = 42;
	int i, fails = 0;

	printf("== random mailboxes\n");
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	for (i = 0; i < 600; i++) {
		size_t inlen = (size_t)(rand_r(&seed) % 300);
		size_t outlen = (size_t)(rand_r(&seed) % 300);

		if (i % 100 == 0)
			inlen = (size_t)(rand_r(&seed) % sizeof(in));
		fill_random(in, inlen, &seed);
		/* Keep opcodes near the ones the device knows half of the time. */
		if (inlen >= 2 && (i & 1)) {
			static const uint16_t ops[] = {
				MDEVX_CMD_OP_QUERY_HCA_CAP, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN,
				MDEVX_CMD_OP_CREATE_TIR, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER,
				MDEVX_CMD_OP_QUERY_FLOW_COUNTER, MDEVX_CMD_OP_CREATE_RQ,
				MDEVX_CMD_OP_DESTROY_RQ, MDEVX_CMD_OP_CREATE_RQT,
				MDEVX_CMD_OP_CREATE_CQ, MDEVX_CMD_OP_DESTROY_CQ,
				MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER,
			};
			const size_t nops = sizeof(ops) / sizeof(ops[0]);

			in[0] = (uint8_t)(ops[i % nops] >> 8);
			in[1] = (uint8_t)ops[i % nops];
		}
		switch (i % 3) {
		case 0:
			swdev_general_cmd(ctx, in, inlen, out, outlen);
			break;
		case 1:
			obj = swdev_obj_create(ctx, in, inlen, out, outlen);
			if (obj != NULL && swdev_obj_destroy(obj) != 0)
				fails++;
			break;
		default: {
			struct swdev_obj fake = { .ctx = ctx };

			fake.handle = (uint32_t)(rand_r(&seed) % 8);

			swdev_obj_query(&fake, in, inlen, out, outlen);
			swdev_obj_modify(&fake, in, inlen, out, outlen);
			break;
		}
		}
	}
	CHECK(fails == 0, "objects created from random mailboxes could be destroyed: %d", fails);
	check_bystander("600 random mailboxes");
	swdev_close(ctx);
}

static void
test_ctl_garbage(void)
{
	char path[128];
	uint8_t buf[300];
	unsigned int seed = 3;
	int fd;

	printf("== garbage on the control socket\n");
	snprintf(path, sizeof(path), "%s.ctl", mp_sock);
	fd = mp_raw_connect(path);
	CHECK(fd >= 0, "connect control");
	fill_random(buf, sizeof(buf), &seed);
	send(fd, buf, sizeof(buf), MSG_NOSIGNAL);
	CHECK(peer_closed(fd), "control garbage: disconnected");
	close(fd);
	CHECK(swdev_ctl_ping(ctl) == 0, "the test's control connection still works");
	check_bystander("control garbage");
}

/* A daemon out of descriptors refuses new clients and serves the others. */
static void
test_out_of_fds(void)
{
	struct swdev_ctx *ctxs[64];
	struct swdev_ctl *ctl2;
	char sock2[128];
	int n = 0, i, round, refused_errno = 0, fds1 = -1, fds;
	uint32_t nfiles = 0;
	pid_t d;

	printf("== daemon out of file descriptors\n");
	snprintf(sock2, sizeof(sock2), "%s.fd", mp_sock);
	mp_daemon_nofile = 40;
	d = mp_daemon_start(sock2, NULL);
	mp_daemon_nofile = 0;
	CHECK(d > 0, "daemon with 40 descriptors");
	if (d <= 0)
		return;
	ctl2 = swdev_ctl_open(sock2);
	CHECK(ctl2 != NULL, "control connection");
	/* Twice: the first refusal must leave the daemon able to refuse again. */
	for (round = 0; round < 2; round++) {
		for (n = 0; n < 64; n++) {
			ctxs[n] = swdev_open(sock2, MP_DEV);
			if (ctxs[n] == NULL) {
				refused_errno = errno;
				break;
			}
		}
		/*
		 * The refused one is closed at once, unread: its OPEN fails
		 * with EPIPE or ECONNRESET (as the close comes before or after
		 * the send), not after the client's timeout.
		 */
		CHECK(n > 0 && n < 64 && (refused_errno == EPIPE || refused_errno == ECONNRESET),
		      "round %d: some contexts, then refused: %d (%s)", round, n,
		      strerror(refused_errno));
		for (i = 0; i < n; i++) {
			struct swdev_obj *td;
			int err;

			td = mp_td_alloc(ctxs[i], NULL, &err);
			if (td == NULL || swdev_obj_destroy(td) != 0)
				break;
		}
		CHECK(i == n, "round %d: every admitted context is served: %d of %d", round, i,
		      n);
		for (i = 0; i < n; i++)
			swdev_close(ctxs[i]);
		/*
		 * Every descriptor back, the refused connection's too: once the
		 * daemon closed every file, the second round ends where the
		 * first did.
		 */
		CHECK(ctl2 != NULL && mp_wait_files(ctl2, 0, &nfiles) == 0 && nfiles == 0,
		      "round %d: files left: %u", round, nfiles);
		fds = mp_daemon_fds(d);
		if (round == 0)
			fds1 = fds;
		CHECK(fds == fds1, "round %d: daemon descriptors %d, after the first round %d",
		      round, fds, fds1);
	}
	ctxs[0] = swdev_open(sock2, MP_DEV);
	CHECK(ctxs[0] != NULL, "a new client after the others left: %s", strerror(errno));
	if (ctxs[0] != NULL)
		swdev_close(ctxs[0]);
	CHECK(ctl2 != NULL && swdev_ctl_ping(ctl2) == 0, "control still answers");
	if (ctl2 != NULL)
		swdev_ctl_close(ctl2);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops cleanly");
}

int
main(int argc, char **argv)
{
	pid_t daemon;
	int err, st, fds0, fds;

	mp_init(argc, argv, "robust");
	snprintf(log_path, sizeof(log_path), "%s.log", mp_sock);
	mp_daemon_stderr = log_path;
	daemon = mp_daemon_start(mp_sock, NULL);
	mp_daemon_stderr = NULL;
	if (daemon < 0) {
		CHECK(0, "daemon start");
		return mp_finish();
	}
	ctl = swdev_ctl_open(mp_sock);
	bystander = swdev_open(mp_sock, MP_DEV);
	CHECK(ctl != NULL && bystander != NULL, "bystander");
	if (ctl == NULL || bystander == NULL)
		return mp_finish();
	bys_ctr = mp_counter_alloc(bystander, 0, &bys_base, &err);
	CHECK(bys_ctr != NULL, "bystander counter");
	if (bys_ctr == NULL)
		return mp_finish();
	/* Every misbehaving client below must leave no descriptor behind. */
	fds0 = mp_daemon_fds(daemon);
	CHECK(fds0 > 0, "daemon descriptors: %d", fds0);
	test_main_socket_garbage();
	test_channel_garbage();
	test_typed_destroy();
	test_command_fd_misuse();
	test_holder_shutdown();
	test_no_reader();
	test_reply_budget();
	test_killed_clients();
	test_random_mailboxes();
	test_ctl_garbage();
	test_out_of_fds();
	fds = mp_daemon_fds_settle(daemon, fds0);
	CHECK(fds == fds0, "daemon descriptors back to %d after all that: %d", fds0, fds);
	swdev_obj_destroy(bys_ctr);
	swdev_close(bystander);
	swdev_ctl_close(ctl);
	st = mp_daemon_stop(daemon);
	CHECK(mp_exited_ok(st), "daemon exits 0 on SIGTERM after all that: %#x", st);
	unlink(log_path);
	return mp_finish();
}

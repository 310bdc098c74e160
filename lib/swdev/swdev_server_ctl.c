/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the daemon's control connections (SOCK_SEQPACKET):
 * one datagram per request, checked, permitted by the peer's uid and the
 * test mode, run on the engine and answered in one datagram.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "swdev_server_priv.h"

/* ------------------------------------------------------- control channel */

void
srv_ctl_close(struct swdev_server *srv, struct ctl *k)
{
	struct ctl **pp;

	for (pp = &srv->ctls; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	}
	if (k->e.denied)
		srv_pend_remove(srv, &k->e);
	else
		srv->nctls--;
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, k->e.fd, NULL);
	close(k->e.fd);
	srv_grave_add(srv, &k->e);
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
		srv_conn_close(srv, c, "disassociated by a control request");
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

void
srv_ctl_event(struct swdev_server *srv, struct ctl *k, uint32_t events)
{
	struct ctl_reply r;
	struct swdev_ctl_rep *rep = &r.rep;
	struct swdev_ctl_req req;
	char devname[SWDEV_PROTO_NAME_LEN];
	uint32_t outlen = 0;
	int fd, trunc, err;
	ssize_t n;

	if (!(events & EPOLLIN)) {
		srv_ctl_close(srv, k);
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
			srv_peer_warn(srv, WARN_MALFORMED,
				      "control: malformed request, disconnecting");
		srv_ctl_close(srv, k);
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
		srv_ctl_close(srv, k);
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
			srv_ctl_close(srv, k);
		return;
	}
	err = ctl_run(srv, &req, devname, srv->ctl_buf + sizeof(req), rep, r.out, &outlen);
	rep->err = (uint32_t)(err < 0 ? -err : err);
	rep->paylen = outlen;
	swdev_log(SWDEV_LOG_DEBUG, "control: %s on %s: errno %u", ctl_op_name(req.op), devname,
		  rep->err);
	if (swdev_proto_send_fd(k->e.fd, &r, sizeof(*rep) + outlen, -1, MSG_DONTWAIT) != 0)
		srv_ctl_close(srv, k);
}

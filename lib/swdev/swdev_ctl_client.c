/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: control channel client (tests only).
 *
 * One SOCK_SEQPACKET connection to <socket path>.ctl; each call is one
 * request datagram (header, then a frame or a batch of frames) and one
 * reply datagram (header, then statistics or a captured frame), under a
 * mutex. A pcap replay is read with libpcap, checked whole, then sent in
 * batches.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "swdev_client.h"
#include "swdev_proto.h"

#define CTL_TIMEOUT_MS 10000

struct swdev_ctl {
	int fd;
	uint32_t seq;
	bool broken;
	pthread_mutex_t lock;
};

struct swdev_ctl *
swdev_ctl_open(const char *sock_path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct swdev_ctl *ctl;
	const char *path = sock_path;

	if (path == NULL || path[0] == '\0')
		path = getenv("SWDEV_SOCKET");
	if (path == NULL || path[0] == '\0')
		path = SWDEV_DEFAULT_SOCKET;
	if (swdev_proto_ctl_path(path, sa.sun_path, sizeof(sa.sun_path)) != 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	ctl = calloc(1, sizeof(*ctl));
	if (ctl == NULL)
		return NULL;
	if (pthread_mutex_init(&ctl->lock, NULL) != 0) {
		free(ctl);
		errno = ENOMEM;
		return NULL;
	}
	ctl->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ctl->fd < 0 || connect(ctl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		if (ctl->fd >= 0)
			close(ctl->fd);
		pthread_mutex_destroy(&ctl->lock);
		free(ctl);
		errno = e;
		return NULL;
	}
	return ctl;
}

void
swdev_ctl_close(struct swdev_ctl *ctl)
{
	if (ctl == NULL)
		return;
	close(ctl->fd);
	pthread_mutex_destroy(&ctl->lock);
	free(ctl);
}

/* Largest reply payload the client takes (a captured frame and its details). */
#define CTL_REP_MAX (sizeof(struct swdev_capture_info) + SWDEV_CAPTURE_SNAPLEN)

/* Send the header and @p paylen bytes of @p pay as one datagram. 0 or errno. */
static int
ctl_send(int fd, const struct swdev_ctl_req *req, const void *pay, uint32_t paylen)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)(uintptr_t)req, .iov_len = sizeof(*req) },
		{ .iov_base = (void *)(uintptr_t)pay, .iov_len = paylen },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = paylen > 0 ? 2 : 1 };
	ssize_t n;

	do {
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return (size_t)n == sizeof(*req) + paylen ? 0 : EIO;
}

/*
 * One request / reply: @p req followed by @p paylen bytes of @p pay; the
 * reply header into @p rep, its payload (at most @p outmax bytes, else
 * EPROTO) into @p out and its length into *outlen. 0 or a positive errno
 * (also left in errno): the daemon's, or EIO / EPROTO / ETIMEDOUT for the
 * connection, which is then unusable.
 */
static int
ctl_xfer(struct swdev_ctl *ctl, struct swdev_ctl_req *req, const char *devname,
	 const void *pay, uint32_t paylen, struct swdev_ctl_rep *rep, void *out, size_t outmax,
	 uint32_t *outlen)
{
	struct {
		struct swdev_ctl_rep rep;
		uint8_t out[CTL_REP_MAX];
	} r;
	int err, fd, trunc;
	ssize_t got;

	*outlen = 0;
	/* The device string a program opens names the same device. */
	if (devname != NULL && strncmp(devname, "rdma:", 5) == 0)
		devname += 5;
	if (ctl == NULL || devname == NULL || strlen(devname) >= sizeof(req->devname) ||
	    paylen > SWDEV_PROTO_CTL_MAX_PAYLOAD || (paylen > 0 && pay == NULL)) {
		errno = EINVAL;
		return EINVAL;
	}
	req->magic = SWDEV_PROTO_CTL_MAGIC;
	req->version = SWDEV_PROTO_VERSION;
	req->paylen = paylen;
	memcpy(req->devname, devname, strlen(devname) + 1);
	pthread_mutex_lock(&ctl->lock);
	if (ctl->broken) {
		err = EIO;
		goto out;
	}
	req->seq = ++ctl->seq;
	err = ctl_send(ctl->fd, req, pay, paylen);
	if (err != 0) {
		ctl->broken = true;
		err = EIO;
		goto out;
	}
	err = swdev_proto_wait_readable(ctl->fd, CTL_TIMEOUT_MS);
	if (err != 0) {
		ctl->broken = true;
		err = err == ETIMEDOUT ? ETIMEDOUT : EIO;
		goto out;
	}
	got = swdev_proto_recv_fd(ctl->fd, &r, sizeof(r), &fd, &trunc, 0);
	if (fd >= 0)
		close(fd);
	if (got < (ssize_t)sizeof(r.rep) || trunc || r.rep.magic != SWDEV_PROTO_CTL_MAGIC ||
	    r.rep.version != SWDEV_PROTO_VERSION || r.rep.seq != req->seq ||
	    r.rep.op != req->op || r.rep.paylen > outmax ||
	    (size_t)got != sizeof(r.rep) + r.rep.paylen) {
		ctl->broken = true;
		err = got <= 0 ? EIO : EPROTO;
		goto out;
	}
	*rep = r.rep;
	if (r.rep.paylen > 0)
		memcpy(out, r.out, r.rep.paylen);
	*outlen = r.rep.paylen;
	err = (int)r.rep.err;
out:
	pthread_mutex_unlock(&ctl->lock);
	errno = err;
	return err;
}

/* A request without payload whose reply has none. */
static int
ctl_call(struct swdev_ctl *ctl, struct swdev_ctl_req *req, const char *devname,
	 struct swdev_ctl_rep *rep)
{
	uint32_t outlen;

	return ctl_xfer(ctl, req, devname, NULL, 0, rep, NULL, 0, &outlen);
}

/*
 * A request whose successful reply carries exactly @p len bytes into @p out
 * (nothing on an error). 0 or errno; EPROTO for another length.
 */
static int
ctl_call_out(struct swdev_ctl *ctl, struct swdev_ctl_req *req, const char *devname,
	     const void *pay, uint32_t paylen, void *out, uint32_t len)
{
	struct swdev_ctl_rep rep;
	uint32_t outlen;
	int err;

	err = ctl_xfer(ctl, req, devname, pay, paylen, &rep, out, len, &outlen);
	if (err == 0 && outlen != len) {
		errno = EPROTO;
		return EPROTO;
	}
	return err;
}

int
swdev_ctl_get_counts(struct swdev_ctl *ctl, const char *devname, uint32_t file_id,
		     struct swdev_counts *counts)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	unsigned int i;
	int err;

	if (counts == NULL)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_COUNTS;
	req.file_id = file_id;
	err = ctl_call(ctl, &req, devname, &rep);
	if (err != 0)
		return err;
	memset(counts, 0, sizeof(*counts));
	counts->total = rep.total;
	for (i = 0; i < SWDEV_KIND_MAX && i < SWDEV_PROTO_CTL_KINDS; i++)
		counts->by_kind[i] = rep.by_kind[i];
	return 0;
}

int
swdev_ctl_get_num_files(struct swdev_ctl *ctl, const char *devname, uint32_t *nfiles)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	int err;

	if (nfiles == NULL)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_NUM_FILES;
	err = ctl_call(ctl, &req, devname, &rep);
	if (err == 0)
		*nfiles = rep.nfiles;
	return err;
}

int
swdev_ctl_inject_traffic(struct swdev_ctl *ctl, const char *devname, uint32_t counter_id,
			 uint64_t packets, uint64_t bytes)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_INJECT;
	req.counter_id = counter_id;
	req.packets = packets;
	req.bytes = bytes;
	return ctl_call(ctl, &req, devname, &rep);
}

int
swdev_ctl_set_fault(struct swdev_ctl *ctl, const char *devname, uint16_t opcode,
		    uint32_t count, uint8_t status, uint32_t syndrome, uint32_t delay_us)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_FAULT;
	req.opcode = opcode;
	req.count = count;
	req.status = status;
	req.syndrome = syndrome;
	req.delay_us = delay_us;
	return ctl_call(ctl, &req, devname, &rep);
}

int
swdev_ctl_disassociate(struct swdev_ctl *ctl, const char *devname, uint32_t *nfiles)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	int err;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_DISASSOCIATE;
	err = ctl_call(ctl, &req, devname, &rep);
	if (err == 0 && nfiles != NULL)
		*nfiles = rep.nfiles;
	return err;
}

int
swdev_ctl_ping(struct swdev_ctl *ctl)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_PING;
	return ctl_call(ctl, &req, "", &rep);
}

int
swdev_ctl_get_cmd_count(struct swdev_ctl *ctl, const char *devname, uint16_t opcode,
			uint64_t *count)
{
	struct swdev_ctl_cmd_count_rep cc;
	struct swdev_ctl_req req;
	int err;

	if (count == NULL)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_CMD_COUNT;
	req.opcode = opcode;
	err = ctl_call_out(ctl, &req, devname, NULL, 0, &cc, sizeof(cc));
	if (err == 0)
		*count = cc.count;
	return err;
}

/* ---- receive path ---- */

int
swdev_ctl_send_frame(struct swdev_ctl *ctl, const char *devname, const void *frame, size_t len,
		     struct swdev_rx_info *info)
{
	struct swdev_ctl_req req;
	struct swdev_rx_info ri;
	int err;

	/* The port's bound: such a frame cannot be carried, so it is not counted. */
	if ((len > 0 && frame == NULL) || len > SWDEV_MAX_FRAME_LEN) {
		errno = EINVAL;
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_RX;
	memset(&ri, 0, sizeof(ri));
	err = ctl_call_out(ctl, &req, devname, frame, (uint32_t)len, &ri, sizeof(ri));
	if (err == 0 && info != NULL)
		*info = ri;
	return err;
}

int
swdev_ctl_get_port_stats(struct swdev_ctl *ctl, const char *devname,
			 struct swdev_port_stats *stats)
{
	struct swdev_ctl_req req;

	if (stats == NULL)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_PORT_STATS;
	return ctl_call_out(ctl, &req, devname, NULL, 0, stats, sizeof(*stats));
}

int
swdev_ctl_get_rq_stats(struct swdev_ctl *ctl, const char *devname, uint32_t rqn,
		       struct swdev_rq_stats *stats)
{
	struct swdev_ctl_req req;

	if (stats == NULL)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_RQ_STATS;
	req.rqn = rqn;
	return ctl_call_out(ctl, &req, devname, NULL, 0, stats, sizeof(*stats));
}

int
swdev_ctl_get_rq_capture(struct swdev_ctl *ctl, const char *devname, uint32_t rqn,
			 uint32_t idx, void *buf, size_t buflen, struct swdev_capture_info *ci)
{
	uint8_t out[CTL_REP_MAX];
	struct swdev_capture_info c;
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	uint32_t outlen;
	int err;

	if (ci == NULL || (buflen > 0 && buf == NULL))
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_RQ_CAPTURE;
	req.rqn = rqn;
	req.idx = idx;
	err = ctl_xfer(ctl, &req, devname, NULL, 0, &rep, out, sizeof(out), &outlen);
	if (err != 0)
		return err;
	if (outlen < sizeof(c))
		goto bad;
	memcpy(&c, out, sizeof(c));
	if (c.caplen > SWDEV_CAPTURE_SNAPLEN || outlen != sizeof(c) + c.caplen)
		goto bad;
	*ci = c;
	if (buflen > 0)
		memcpy(buf, out + sizeof(c), buflen < c.caplen ? buflen : c.caplen);
	return 0;
bad:
	errno = EPROTO;
	return EPROTO;
}

/* A pcap file read into memory as RX_BATCH records {u32 len, len bytes}. */
struct pcap_frames {
	uint8_t *p;
	size_t len;
	size_t cap;
};

static int
frames_add(struct pcap_frames *fr, const uint8_t *data, uint32_t len)
{
	size_t need = sizeof(len) + (size_t)len;

	if (fr->cap - fr->len < need) {
		size_t cap = fr->cap > 0 ? fr->cap : 65536;
		uint8_t *p;

		while (cap - fr->len < need) {
			if (cap > SIZE_MAX / 2)
				return ENOMEM;
			cap *= 2;
		}
		p = realloc(fr->p, cap);
		if (p == NULL)
			return ENOMEM;
		fr->p = p;
		fr->cap = cap;
	}
	memcpy(fr->p + fr->len, &len, sizeof(len));
	memcpy(fr->p + fr->len + sizeof(len), data, len);
	fr->len += need;
	return 0;
}

/*
 * Read and check every record of the pcap file @p path into @p fr. 0;
 * the errno of fopen(); EBADMSG when libpcap does not take the file;
 * EINVAL for another link type than Ethernet, a read error of libpcap (a
 * truncated file), a frame cut short by the capture or of a length the
 * port never receives.
 */
static int
pcap_load(const char *path, struct pcap_frames *fr)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	FILE *fp;
	int rc, err = 0;

	fp = fopen(path, "rbe");
	if (fp == NULL)
		return errno;
	errbuf[0] = '\0';
	pc = pcap_fopen_offline(fp, errbuf);
	if (pc == NULL) {
		fclose(fp);
		return EBADMSG;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		err = EINVAL;
		goto out;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		if (h->caplen != h->len || h->len < 14 || h->len > SWDEV_MAX_FRAME_LEN) {
			err = EINVAL;
			goto out;
		}
		err = frames_add(fr, data, h->caplen);
		if (err != 0)
			goto out;
	}
	if (rc != PCAP_ERROR_BREAK)	/* -2: end of file; -1: read error, truncated */
		err = EINVAL;
out:
	pcap_close(pc);	/* closes fp */
	return err;
}

/* Send one batch of @p count records (@p len bytes) and add its result to @p sum. */
static int
pcap_send_batch(struct swdev_ctl *ctl, const char *devname, const uint8_t *p, size_t len,
		uint32_t count, struct swdev_pcap_summary *sum, int *first_err)
{
	struct swdev_ctl_batch_rep br;
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	uint32_t outlen;
	unsigned int i;
	int err;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_RX_BATCH;
	req.count = count;
	memset(&br, 0, sizeof(br));
	err = ctl_xfer(ctl, &req, devname, p, (uint32_t)len, &rep, &br, sizeof(br), &outlen);
	if (outlen != 0 && outlen != sizeof(br))
		return EPROTO;
	if (outlen == sizeof(br)) {
		sum->frames += br.frames;
		sum->bytes += br.bytes;
		for (i = 0; i < 4; i++)
			sum->verdicts[i] += br.verdicts[i];
		if (br.refused > 0 && *first_err == 0)
			*first_err = br.first_err != 0 ? (int)br.first_err : EINVAL;
	}
	return err;
}

int
swdev_ctl_send_pcap(struct swdev_ctl *ctl, const char *devname, const char *path,
		    struct swdev_pcap_summary *sum)
{
	struct swdev_pcap_summary s;
	struct pcap_frames fr = { NULL, 0, 0 };
	size_t off = 0, start;
	uint32_t count, flen;
	int err, first_err = 0;

	memset(&s, 0, sizeof(s));
	if (sum != NULL)
		memset(sum, 0, sizeof(*sum));
	if (ctl == NULL || devname == NULL || path == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	/* The whole file first: nothing is sent from a file that is not valid. */
	err = pcap_load(path, &fr);
	if (err != 0) {
		free(fr.p);
		errno = err;
		return err;
	}
	/*
	 * Batches of whole records, each at most SWDEV_PROTO_CTL_MAX_PAYLOAD
	 * bytes; an empty file still sends one (empty) batch, so an unknown
	 * device or a daemon without --test-mode is reported.
	 */
	do {
		start = off;
		count = 0;
		while (off < fr.len) {
			memcpy(&flen, fr.p + off, sizeof(flen));
			if (off + sizeof(flen) + flen - start > SWDEV_PROTO_CTL_MAX_PAYLOAD)
				break;
			off += sizeof(flen) + flen;
			count++;
		}
		err = pcap_send_batch(ctl, devname, fr.p + start, off - start, count, &s,
				      &first_err);
	} while (err == 0 && off < fr.len);
	free(fr.p);
	if (sum != NULL)
		*sum = s;
	/* Frames the port refused do not stop the replay; the first one's errno is the result. */
	if (err == 0)
		err = first_err;
	errno = err;
	return err;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: control channel client (tests only).
 *
 * One SOCK_SEQPACKET connection to <socket path>.ctl; each call is one
 * fixed-size request datagram and one reply datagram, under a mutex.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* One request / reply. 0 or a positive errno (also left in errno). */
static int
ctl_call(struct swdev_ctl *ctl, struct swdev_ctl_req *req, const char *devname,
	 struct swdev_ctl_rep *rep)
{
	struct pollfd p;
	int err, fd, trunc, n;
	ssize_t got;

	if (ctl == NULL || devname == NULL || strlen(devname) >= sizeof(req->devname)) {
		errno = EINVAL;
		return EINVAL;
	}
	req->magic = SWDEV_PROTO_CTL_MAGIC;
	req->version = SWDEV_PROTO_VERSION;
	memcpy(req->devname, devname, strlen(devname) + 1);
	pthread_mutex_lock(&ctl->lock);
	if (ctl->broken) {
		err = EIO;
		goto out;
	}
	req->seq = ++ctl->seq;
	err = swdev_proto_send_fd(ctl->fd, req, sizeof(*req), -1, 0);
	if (err != 0) {
		ctl->broken = true;
		err = EIO;
		goto out;
	}
	p.fd = ctl->fd;
	p.events = POLLIN;
	do {
		n = poll(&p, 1, CTL_TIMEOUT_MS);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		ctl->broken = true;
		err = n == 0 ? ETIMEDOUT : EIO;
		goto out;
	}
	got = swdev_proto_recv_fd(ctl->fd, rep, sizeof(*rep), &fd, &trunc, 0);
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof(*rep) || trunc || rep->magic != SWDEV_PROTO_CTL_MAGIC ||
	    rep->seq != req->seq || rep->op != req->op) {
		ctl->broken = true;
		err = got <= 0 ? EIO : EPROTO;
		goto out;
	}
	err = (int)rep->err;
out:
	pthread_mutex_unlock(&ctl->lock);
	errno = err;
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
	for (i = 0; i < SWDEV_KIND_MAX && i < 16; i++)
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
swdev_ctl_ping(struct swdev_ctl *ctl)
{
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;

	memset(&req, 0, sizeof(req));
	req.op = SWDEV_CTL_PING;
	return ctl_call(ctl, &req, "", &rep);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: wire protocol helpers shared by the daemon and the
 * client library.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "swdev_proto.h"
#include "swdev_types.h"

_Static_assert(sizeof(struct swdev_req_hdr) == 48, "request header layout");
_Static_assert(sizeof(struct swdev_rep_hdr) == 56, "reply header layout");
_Static_assert(sizeof(struct swdev_ctl_req) == 104, "control request layout");
_Static_assert(sizeof(struct swdev_ctl_rep) == 96, "control reply layout");
_Static_assert(sizeof(struct swdev_proto_matcher) == 8, "matcher payload head");
_Static_assert(sizeof(struct swdev_flow_attr) == 16, "flow payload head");
_Static_assert(sizeof(struct swdev_ctl_batch_rep) == 56, "batch reply layout");
_Static_assert(SWDEV_KIND_MAX <= SWDEV_PROTO_CTL_KINDS, "COUNTS carries every kind");
_Static_assert(SWDEV_PROTO_CTL_MAX_PAYLOAD >= 4 + SWDEV_MAX_FRAME_LEN,
	       "a batch holds at least one frame of the largest size");
_Static_assert(sizeof(struct swdev_rx_info) == 16 && sizeof(struct swdev_port_stats) == 56 &&
	       sizeof(struct swdev_rq_stats) == 24 && sizeof(struct swdev_capture_info) == 24,
	       "control reply payloads");

static const char *const op_names[SWDEV_OP_MAX] = {
	[SWDEV_OP_NONE] = "NONE",
	[SWDEV_OP_OPEN] = "OPEN",
	[SWDEV_OP_ATTACH] = "ATTACH",
	[SWDEV_OP_DEVX_CREATE] = "DEVX_CREATE",
	[SWDEV_OP_DEVX_QUERY] = "DEVX_QUERY",
	[SWDEV_OP_DEVX_MODIFY] = "DEVX_MODIFY",
	[SWDEV_OP_DEVX_DESTROY] = "DEVX_DESTROY",
	[SWDEV_OP_DEVX_GENERAL] = "DEVX_GENERAL",
	[SWDEV_OP_PD_ALLOC] = "PD_ALLOC",
	[SWDEV_OP_UAR_ALLOC] = "UAR_ALLOC",
	[SWDEV_OP_UMEM_REG] = "UMEM_REG",
	[SWDEV_OP_QUERY_EQN] = "QUERY_EQN",
	[SWDEV_OP_VERBS_DESTROY] = "VERBS_DESTROY",
	[SWDEV_OP_MATCHER_CREATE] = "MATCHER_CREATE",
	[SWDEV_OP_FLOW_CREATE] = "FLOW_CREATE",
	[SWDEV_OP_STEER_DESTROY] = "STEER_DESTROY",
	[SWDEV_OP_PD_IMPORT] = "PD_IMPORT",
};

const char *
swdev_proto_op_name(uint32_t op)
{
	if (op >= SWDEV_OP_MAX)
		return "?";
	return op_names[op];
}

int
swdev_proto_check_req(const struct swdev_req_hdr *h)
{
	if (h->magic != SWDEV_PROTO_MAGIC || h->version != SWDEV_PROTO_VERSION)
		return EPROTO;
	if (h->op == SWDEV_OP_NONE || h->op >= SWDEV_OP_MAX || h->reserved != 0)
		return EPROTO;
	if (h->inlen > SWDEV_PROTO_MAX_PAYLOAD || h->outlen > SWDEV_PROTO_MAX_PAYLOAD)
		return EMSGSIZE;
	return 0;
}

int
swdev_proto_check_rep(const struct swdev_rep_hdr *h, uint16_t op, uint32_t seq,
		      uint32_t outlen)
{
	if (h->magic != SWDEV_PROTO_REP_MAGIC || h->version != SWDEV_PROTO_VERSION)
		return EPROTO;
	if (h->op != op || h->seq != seq)
		return EPROTO;
	if (h->outlen != 0 && h->outlen != outlen)
		return EMSGSIZE;
	return 0;
}

int
swdev_proto_send_fd(int sock, const void *buf, size_t len, int fd, int flags)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctrl;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	memset(&ctrl, 0, sizeof(ctrl));
	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = ctrl.buf;
		msg.msg_controllen = sizeof(ctrl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL | flags);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if ((size_t)n != len)
		return EMSGSIZE;
	return 0;
}

ssize_t
swdev_proto_recv_fd(int sock, void *buf, size_t len, int *fd, int *trunc, int flags)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} ctrl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl.buf,
		.msg_controllen = sizeof(ctrl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	*trunc = 0;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		size_t nfd, i;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		*trunc = 1;
	return n;
}

int
swdev_proto_write_all(int sock, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(sock, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
swdev_proto_read_all(int sock, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = recv(sock, p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
swdev_proto_send_frame(int fd, const struct swdev_req_hdr *h, const void *in, size_t inlen)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)(uintptr_t)h, .iov_len = sizeof(*h) },
		{ .iov_base = (void *)(uintptr_t)in, .iov_len = inlen },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = inlen > 0 ? 2 : 1 };

	while (msg.msg_iovlen > 0) {
		ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		while (n > 0 && msg.msg_iovlen > 0) {
			if ((size_t)n >= msg.msg_iov[0].iov_len) {
				n -= (ssize_t)msg.msg_iov[0].iov_len;
				msg.msg_iov++;
				msg.msg_iovlen--;
			} else {
				msg.msg_iov[0].iov_base = (char *)msg.msg_iov[0].iov_base + n;
				msg.msg_iov[0].iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return 0;
}

int
swdev_proto_ctl_path(const char *sock_path, char *buf, size_t size)
{
	struct sockaddr_un sa;
	int n;

	n = snprintf(buf, size, "%s%s", sock_path, SWDEV_PROTO_CTL_SUFFIX);
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof(sa.sun_path))
		return ENAMETOOLONG;
	return 0;
}

int
swdev_proto_wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return n == 0 ? ETIMEDOUT : 0;
}

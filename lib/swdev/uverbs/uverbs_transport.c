/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: the daemon transport (a private
 * channel per process: OPEN / ATTACH, one request and its reply), the
 * copies from and to the caller's memory, and the debug log. It calls no
 * other file of this folder (only the wire protocol, swdev_proto.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "uverbs_priv.h"

/* How long OPEN / ATTACH wait for the daemon's answer. */
#define ATTACH_TIMEOUT_MS 10000

/* The real close() (the preload's init_once() sets it). */
int (*uv_real_close)(int);
/* SWDEV_UVERBS_DEBUG set (the preload's read_env() sets it). */
int uv_debug;

/*
 * This thread's pid, taken once (uv_self_pid()): the copies of the caller's
 * memory and the fork check of lookup() use it rather than a getpid() each.
 * 0: not known yet (a new thread, or the child of a fork(), which
 * atfork_child() resets; both in uverbs_preload.c). A child made by a raw
 * clone() system call, which runs no fork handlers, is not supported.
 */
__thread pid_t uv_t_pid __attribute__((tls_model("initial-exec")));

/* ---- the debug log ---- */

void
uv_log(const char *fmt, ...)
{
	va_list ap;

	if (!uv_debug)
		return;
	fprintf(stderr, "swdev uverbs[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the caller's memory ---- */

/* This thread's pid: cached, reset in the child of a fork (atfork_child). */
pid_t
uv_self_pid(void)
{
	if (uv_t_pid == 0)
		uv_t_pid = getpid();
	return uv_t_pid;
}

long
uv_copy_in_upto(void *dst, uint64_t src, size_t len)
{
	struct iovec l = { .iov_base = dst, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)src, .iov_len = len };
	ssize_t n;

	if (len == 0)
		return 0;
	if (src == 0 || src + len < src)
		return -EFAULT;
	n = process_vm_readv(uv_self_pid(), &l, 1, &r, 1, 0);
	return n < 0 ? -EFAULT : (long)n;
}

int
uv_copy_in(void *dst, uint64_t src, size_t len)
{
	return uv_copy_in_upto(dst, src, len) == (long)len ? 0 : EFAULT;
}

int
uv_copy_out2(uint64_t dst, const void *src, size_t len, uint64_t dst2, const void *src2,
	     size_t len2)
{
	const uint64_t to[2] = { dst, dst2 };
	const void *from[2] = { src, src2 };
	const size_t n[2] = { len, len2 };
	struct iovec l[2], r[2];
	unsigned int i, k = 0;

	for (i = 0; i < 2; i++) {
		if (n[i] == 0)
			continue;
		if (to[i] == 0 || to[i] + n[i] < to[i])
			return EFAULT;
		l[k] = (struct iovec){ .iov_base = (void *)(uintptr_t)from[i], .iov_len = n[i] };
		r[k] = (struct iovec){ .iov_base = (void *)(uintptr_t)to[i], .iov_len = n[i] };
		k++;
	}
	if (k == 0)
		return 0;
	return process_vm_writev(uv_self_pid(), l, k, r, k, 0) == (ssize_t)(len + len2) ?
	       0 : EFAULT;
}

int
uv_copy_out(uint64_t dst, const void *src, size_t len)
{
	return uv_copy_out2(dst, src, len, 0, NULL, 0);
}

/* ---- the daemon ---- */

/*
 * A new private channel of the file behind @p f->fd: OPEN (with @p devname)
 * or ATTACH. Fills the channel, uid, file id and device name. 0 or errno.
 */
int
uv_attach(struct uv_file *f, uint16_t op, const char *devname)
{
	union {
		struct swdev_req_hdr h;
		uint8_t b[sizeof(struct swdev_req_hdr) + SWDEV_PROTO_NAME_LEN];
	} msg;
	struct swdev_open_rep orep;
	struct swdev_rep_hdr rep;
	size_t inlen = 0;
	int sv[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	memset(&msg, 0, sizeof(msg));
	if (devname != NULL) {
		inlen = strlen(devname) + 1;
		memcpy(msg.b + sizeof(msg.h), devname, inlen);
	}
	msg.h.magic = SWDEV_PROTO_MAGIC;
	msg.h.version = SWDEV_PROTO_VERSION;
	msg.h.op = op;
	msg.h.seq = 1;
	msg.h.inlen = (uint32_t)inlen;
	err = swdev_proto_send_fd(f->fd, msg.b, sizeof(msg.h) + inlen, sv[1], 0);
	uv_real_close(sv[1]);
	if (err == 0)
		err = swdev_proto_wait_readable(sv[0], ATTACH_TIMEOUT_MS);
	if (err == 0)
		err = swdev_proto_read_all(sv[0], &rep, sizeof(rep));
	if (err == 0 && swdev_proto_check_rep(&rep, op, 1, sizeof(orep)) != 0)
		err = EPROTO;
	if (err == 0 && rep.err != 0)
		err = (int)rep.err;
	if (err == 0 && rep.outlen != sizeof(orep))
		err = EPROTO;
	if (err == 0)
		err = swdev_proto_read_all(sv[0], &orep, sizeof(orep));
	if (err != 0) {
		uv_real_close(sv[0]);
		uv_log("%s on fd %d: %s", swdev_proto_op_name(op), f->fd, strerror(err));
		return err == EPIPE ? ECONNRESET : err;
	}
	orep.devname[sizeof(orep.devname) - 1] = '\0';
	memcpy(f->devname, orep.devname, sizeof(f->devname));
	f->uid = (uint16_t)rep.val;
	f->file_id = rep.file_id;
	f->chan = sv[0];
	f->seq = 1;
	f->pid = getpid();
	f->broken = false;
	return 0;
}

/*
 * The reply to @p h into @p rep and @p out: one recvmsg() when the reply is
 * there whole (the channel carries one exchange at a time). 0 or errno.
 */
static int
read_reply(int chan, struct swdev_rep_hdr *rep, const struct swdev_req_hdr *h, void *out,
	   size_t outlen)
{
	struct iovec iov[2] = {
		{ .iov_base = rep, .iov_len = sizeof(*rep) },
		{ .iov_base = out, .iov_len = outlen },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = outlen > 0 ? 2 : 1 };
	size_t got, body;
	ssize_t n;

	do {
		n = recvmsg(chan, &msg, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (n == 0)
		return EPIPE;
	got = (size_t)n;
	if (got < sizeof(*rep)) {
		/* a short read of the header: the rest of it, then the body below */
		int err = swdev_proto_read_all(chan, (uint8_t *)rep + got, sizeof(*rep) - got);

		if (err != 0)
			return err;
		got = sizeof(*rep);
	}
	if (swdev_proto_check_rep(rep, h->op, h->seq, (uint32_t)outlen) != 0)
		return EPROTO;
	body = got - sizeof(*rep);
	if (body > rep->outlen)
		return EPROTO;	/* more than the reply: the stream lost its frames */
	if (body < rep->outlen)
		return swdev_proto_read_all(chan, (uint8_t *)out + body, rep->outlen - body);
	return 0;
}

int
uv_daemon_call(struct uv_file *f, struct uv_call *c, const void *in, size_t inlen, void *out,
	       size_t outlen)
{
	struct swdev_req_hdr h;
	int err;

	if (inlen > SWDEV_PROTO_MAX_PAYLOAD || outlen > SWDEV_PROTO_MAX_PAYLOAD)
		return EINVAL;
	if (f->broken || f->chan < 0)
		return EIO;
	memset(&h, 0, sizeof(h));
	h.magic = SWDEV_PROTO_MAGIC;
	h.version = SWDEV_PROTO_VERSION;
	h.op = c->op;
	h.seq = ++f->seq;
	h.handle = c->handle;
	h.inlen = (uint32_t)inlen;
	h.outlen = (uint32_t)outlen;
	h.arg0 = c->arg0;
	h.arg1 = c->arg1;
	h.arg2 = c->arg2;
	err = swdev_proto_send_frame(f->chan, &h, in, inlen);
	if (err == 0)
		err = read_reply(f->chan, &c->rep, &h, out, outlen);
	if (err != 0) {
		uv_log("%s: %s: channel lost (%s): device gone", f->devname,
		       swdev_proto_op_name(c->op), strerror(err));
		f->broken = true;
		return EIO;
	}
	return (int)c->rep.err;
}

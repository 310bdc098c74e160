/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: what its two halves share (the
 * descriptor table and daemon transport in uverbs_preload.c, the ioctl and
 * write() decoding in uverbs_ioctl.c). Nothing here is exported.
 */
#ifndef UVERBS_PRIV_H
#define UVERBS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swdev_proto.h"

#define UV_HIDDEN __attribute__((visibility("hidden")))

/* One uverbs file as this process sees it (one per descriptor). */
struct uv_file {
	int fd;			/**< the main connection (what the caller holds) */
	dev_t sdev;		/**< identity of that socket: fstat st_dev / st_ino */
	ino_t sino;
	pid_t pid;		/**< process that attached chan */
	int chan;		/**< private reply channel of this process */
	uint32_t seq;
	bool broken;		/**< channel lost: every call EIO */
	bool has_ctx;		/**< GET_CONTEXT ran in this process */
	unsigned int devidx;	/**< N of uverbsN */
	uint16_t uid;
	uint32_t file_id;
	char devname[SWDEV_PROTO_NAME_LEN];
};

/* Arguments and reply of one daemon call besides the mailboxes. */
struct uv_call {
	uint16_t op;
	uint32_t handle;
	uint64_t arg0;
	uint64_t arg1;
	uint32_t arg2;
	struct swdev_rep_hdr rep;
};

/** One request / reply on @p f's channel: 0 or positive errno (EIO: daemon gone). */
UV_HIDDEN int uv_daemon_call(struct uv_file *f, struct uv_call *c, const void *in, size_t inlen,
			     void *out, size_t outlen);

/** Copy from / to the caller's memory without faulting: 0 or EFAULT. */
UV_HIDDEN int uv_copy_in(void *dst, uint64_t src, size_t len);
UV_HIDDEN int uv_copy_out(uint64_t dst, const void *src, size_t len);
/* Up to @p len bytes in: how many could be read (a fault ends it), or -EFAULT. */
UV_HIDDEN long uv_copy_in_upto(void *dst, uint64_t src, size_t len);
/* Two copies out in one call (@p len2 may be 0): 0 or EFAULT. */
UV_HIDDEN int uv_copy_out2(uint64_t dst, const void *src, size_t len, uint64_t dst2,
			   const void *src2, size_t len2);

/** Log one line to stderr when SWDEV_UVERBS_DEBUG is set. */
UV_HIDDEN void uv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The real libc calls (next in the lookup order). */
UV_HIDDEN ssize_t uv_real_write(int fd, const void *buf, size_t len);

/** RDMA_VERBS_IOCTL on @p f: 0 or a positive errno. */
UV_HIDDEN int uv_ioctl(struct uv_file *f, uint64_t uhdr);
/** A legacy write() command on @p f: bytes consumed, or -1 with errno. */
UV_HIDDEN ssize_t uv_write_cmd(struct uv_file *f, const void *buf, size_t len);

/* mmap offsets of dynamic UARs: page (UV_UAR_PGOFF_BASE + handle). */
#define UV_UAR_PGOFF_BASE 0x10000ull

#endif /* UVERBS_PRIV_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: what its files share. Nothing
 * here is exported.
 *
 *   uverbs_preload.c    the descriptor table and the libc calls it takes
 *                       over (open, close, the stat family, ioctl, write,
 *                       mmap, socket)
 *   uverbs_transport.c  the daemon transport (OPEN / ATTACH, one request
 *                       and its reply), copies from and to the caller's
 *                       memory, the debug log
 *   uverbs_ioctl.c      RDMA_VERBS_IOCTL: the header and its attributes
 *                       checked against the method table, the dispatch
 *   uverbs_methods.c    the methods, the attribute access they use, the
 *                       method table
 *   uverbs_write.c      the device as queried, the legacy write() commands
 *
 * Calls go one way: the preload calls the ioctl file (uv_ioctl) and the
 * write() file (uv_write_cmd), the ioctl file calls the methods (the
 * table), the methods call the write() file (INVOKE_WRITE, GET_CONTEXT),
 * and all of them call the transport, which calls none of them.
 */
#ifndef UVERBS_PRIV_H
#define UVERBS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/rdma_user_ioctl_cmds.h>

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

/* ---- the transport (uverbs_transport.c) ---- */

/** The real close() (next in the lookup order), set by uverbs_preload.c. */
UV_HIDDEN extern int (*uv_real_close)(int);
/** SWDEV_UVERBS_DEBUG is set: uv_log() prints (set by uverbs_preload.c). */
UV_HIDDEN extern int uv_debug;
/** This thread's pid, or 0 when not known yet (reset in the child of a fork). */
UV_HIDDEN extern __thread pid_t uv_t_pid __attribute__((tls_model("initial-exec")));

/** This thread's pid, cached in uv_t_pid. */
UV_HIDDEN pid_t uv_self_pid(void);

/** OPEN (with @p devname) or ATTACH: a new private channel of @p f. 0 or errno. */
UV_HIDDEN int uv_attach(struct uv_file *f, uint16_t op, const char *devname);
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

/* ---- the descriptor table and the libc calls (uverbs_preload.c) ---- */

/** The real libc calls (next in the lookup order). */
UV_HIDDEN ssize_t uv_real_write(int fd, const void *buf, size_t len);

/* ---- the ioctl decoding (uverbs_ioctl.c, uverbs_methods.c, uverbs_write.c) ---- */

#define PAGE_BYTES 4096u
#define MAX_ATTRS ((PAGE_BYTES - sizeof(struct ib_uverbs_ioctl_hdr)) / \
		   sizeof(struct ib_uverbs_attr))
/* VERBS_DESTROY of one kind only. */
#define VK(k) SWDEV_PROTO_VERBS_KIND(SWDEV_KIND_##k)

enum attr_type {
	T_PTR_IN,
	T_PTR_OUT,
	T_IDR,
	T_FD,
	T_ENUM,		/* enum in: elem_id 0 only (every method here has one variant) */
	T_IDRS,		/* array of u32 handles */
};

struct aspec {
	uint16_t id;
	uint8_t type;
	uint8_t mandatory;
	uint32_t min_len;	/* PTR: bytes; IDRS: elements */
	uint32_t max_len;	/* 0: no upper bound */
};

struct bundle;
typedef int method_fn(struct bundle *b);

#define MAX_SPEC 12
struct mspec {
	uint16_t object;
	uint16_t method;
	method_fn *fn;
	struct aspec attrs[MAX_SPEC];
	bool remote;	/* asks the daemon before any effect: no loss check first */
};

struct bundle {
	struct uv_file *f;
	uint64_t uhdr;
	struct ib_uverbs_attr ua[MAX_ATTRS];	/* the header's attributes, copied apart */
	const struct mspec *m;
	int slot[MAX_SPEC];	/* spec index -> attribute index, -1 absent */
	uint16_t have;	/* attributes read with the header */
	bool writeback;	/* set_new() changed an attribute: all go back at the end */
	/* Last: its type ends in a flexible array (unused here, see ua). */
	struct ib_uverbs_ioctl_hdr hdr;
};

/* One write() command, its request and response split as the kernel splits them. */
struct wcmd {
	uint32_t cmd;		/* with IB_USER_VERBS_CMD_FLAG_EXTENDED for ex commands */
	const uint8_t *core_in;
	size_t core_in_len;
	uint8_t *core_out;
	size_t core_out_cap;
	size_t core_out_len;
	const uint8_t *uhw_in;
	size_t uhw_in_len;
	uint8_t *uhw_out;
	size_t uhw_out_cap;
	size_t uhw_out_len;
};

/* Largest request / response (core + driver) a served write command takes. */
#define WBUF 1024u

/** RDMA_VERBS_IOCTL on @p f: 0 or a positive errno (uverbs_ioctl.c). */
UV_HIDDEN int uv_ioctl(struct uv_file *f, uint64_t uhdr);

/* The method table (uverbs_methods.c). */
/** The method @p method of object @p object, or NULL when the device has none. */
UV_HIDDEN const struct mspec *uv_find_method(uint16_t object, uint16_t method);
/** Index of attribute @p id in the specs of @p m, or -1. */
UV_HIDDEN int uv_spec_of(const struct mspec *m, uint16_t id);

/* The device as queried and the write() commands (uverbs_write.c). */
struct ib_uverbs_query_port_resp;
struct mlx5_ib_alloc_ucontext_resp;

UV_HIDDEN void uv_fill_query_port(struct ib_uverbs_query_port_resp *r);
UV_HIDDEN void uv_fill_ucontext_resp(struct mlx5_ib_alloc_ucontext_resp *r);
/** The mlx5 request of GET_CONTEXT: 0, EINVAL or EOPNOTSUPP. */
UV_HIDDEN int uv_check_ucontext_req(const uint8_t *in, size_t len);
/** May a context be made on @p f: 0, or EINVAL when it has one. */
UV_HIDDEN int uv_ucontext_begin(struct uv_file *f);
/** Request and response sizes of write command @p cmd: 0, or EOPNOTSUPP. */
UV_HIDDEN int uv_wcmd_sizes(uint32_t cmd, size_t *req, size_t *resp);
/** Run write command @p w on @p f: 0 or a positive errno. */
UV_HIDDEN int uv_wcmd_run(struct uv_file *f, struct wcmd *w);
/** A legacy write() command on @p f: bytes consumed, or -1 with errno. */
UV_HIDDEN ssize_t uv_write_cmd(struct uv_file *f, const void *buf, size_t len);

/* mmap offsets of dynamic UARs: page (UV_UAR_PGOFF_BASE + handle). */
#define UV_UAR_PGOFF_BASE 0x10000ull

#endif /* UVERBS_PRIV_H */

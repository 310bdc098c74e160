/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Unmodified libibverbs and libmlx5 (Debian's rdma-core 44) on the software
 * device through mlx5-swdev run and libswdev_uverbs.so: a DEVX context, a
 * flow counter bulk created, queried and destroyed from PRM mailboxes, PD,
 * UAR, umem, EQN, a root rule counting on the bulk, ibv_import_device() of
 * a dup()ed descriptor in a forked child, the kernel's answers to bad
 * ioctls, 256 descriptors in one process and refused ones, the daemon's object counts back
 * to 0, a fork() with the whole
 * heap marked MADV_DONTFORK (as after ibv_fork_init()), then the daemon
 * killed (EIO, close works) and gone (open fails at once).
 *
 * usage: uverbs_devx MLX5_SWDEV             (starts daemons, runs the rest
 *                                           under "MLX5_SWDEV run")
 *        uverbs_devx MLX5_SWDEV --inner main|fork|kill [DAEMON_PID]
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "swdev_client.h"

#define MASK_LEN 64u	/* the outer headers of fte_match_param */
#define UV_MAX_FILES 256	/* uverbs descriptors one process holds (doc/swdev.rst) */

static uint8_t umem_buf[8192] __attribute__((aligned(4096)));

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static struct ibv_device *
find_dev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

static struct ibv_context *
open_devx(const char *name)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = find_dev(list, name);
	struct ibv_context *ctx = NULL;

	if (dev != NULL)
		ctx = mlx5dv_open_device(dev, &attr);
	ibv_free_device_list(list);
	return ctx;
}

static uint32_t
device_total(struct swdev_ctl *ctl)
{
	struct swdev_counts c;

	memset(&c, 0, sizeof(c));
	if (swdev_ctl_get_counts(ctl, MP_DEV, 0, &c) != 0)
		return UINT32_MAX;
	return c.total;
}

static struct mlx5dv_devx_obj *
counter_alloc(struct ibv_context *ctx, uint32_t *id, uint8_t *status)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)] = { 0 };
	struct mlx5dv_devx_obj *obj;

	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk, 1);	/* 128 counters */
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	*id = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	*status = (uint8_t)MDEVX_GET(alloc_flow_counter_out, out, status);
	return obj;
}

static int
counter_query(struct mlx5dv_devx_obj *obj, uint32_t id, uint64_t *packets, uint8_t *status)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
		    MDEVX_ST_SZ_BYTES(traffic_counter)];
	int err;

	memset(out, 0xa5, sizeof(out));
	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, id);
	err = mlx5dv_devx_obj_query(obj, in, sizeof(in), out, sizeof(out));
	*status = (uint8_t)MDEVX_GET(query_flow_counter_out, out, status);
	*packets = MDEVX_GET64(traffic_counter, out + MDEVX_ST_SZ_BYTES(query_flow_counter_out),
			       packets);
	return err;
}

/* A raw RDMA_VERBS_IOCTL: 0 or errno. */
static int
raw_ioctl(int fd, void *hdr)
{
	return ioctl(fd, RDMA_VERBS_IOCTL, hdr) == 0 ? 0 : errno;
}

/*
 * An ioctl command of at most 4 attributes. The header is spelled out:
 * struct ib_uverbs_ioctl_hdr ends in a flexible array, which may not sit
 * inside another struct (clang's -Wgnu-variable-sized-type-not-at-end).
 */
struct raw_cmd {
	struct {
		uint16_t length;
		uint16_t object_id;
		uint16_t method_id;
		uint16_t num_attrs;
		uint64_t reserved1;
		uint32_t driver_id;
		uint32_t reserved2;
	} hdr;
	struct ib_uverbs_attr attrs[4];
};
_Static_assert(sizeof(((struct raw_cmd *)0)->hdr) == sizeof(struct ib_uverbs_ioctl_hdr) &&
	       offsetof(struct raw_cmd, attrs) == offsetof(struct ib_uverbs_ioctl_hdr, attrs),
	       "raw_cmd's header is the kernel's");
_Static_assert(sizeof(struct ib_uverbs_alloc_pd_resp) == sizeof(uint32_t),
	       "ALLOC_PD's response is a handle, then the driver's data");

static void
raw_init(struct raw_cmd *c, uint16_t object, uint16_t method, uint16_t nattrs)
{
	memset(c, 0, sizeof(*c));
	c->hdr.length = (uint16_t)(sizeof(c->hdr) + nattrs * sizeof(c->attrs[0]));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.num_attrs = nattrs;
	c->hdr.driver_id = RDMA_DRIVER_MLX5;
}

/*
 * A header and its attributes where they cross a page boundary: the
 * device reads what it can with the header and the rest apart, and writes
 * UVERBS_ATTR_F_VALID_OUTPUT into the caller's attribute wherever it is.
 * @p cmd: a well-formed QUERY_HCA_CAP of two attributes, CMD_OUT second.
 */
static void
bad_input_pages(int fd, const struct raw_cmd *cmd)
{
	size_t len = sizeof(cmd->hdr) + 2 * sizeof(cmd->attrs[0]);
	long pg = sysconf(_SC_PAGESIZE);
	struct ib_uverbs_attr many[10];
	struct raw_cmd *m;
	uint8_t *p, *at;
	unsigned int i;
	size_t cut;
	int err;

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		CHECK(0, "mmap of two pages: %s", strerror(errno));
		return;
	}
	/* cut: bytes of the command on the first page (the header, + 1 attribute) */
	for (cut = sizeof(cmd->hdr); cut <= sizeof(cmd->hdr) + 16; cut += 16) {
		at = p + pg - cut;
		memcpy(at, cmd, len);
		err = raw_ioctl(fd, at);
		memcpy(many, at + sizeof(cmd->hdr), 2 * sizeof(many[0]));
		CHECK(err == 0 && (many[1].flags & UVERBS_ATTR_F_VALID_OUTPUT) &&
		      !(many[0].flags & UVERBS_ATTR_F_VALID_OUTPUT),
		      "%zu bytes of the command before a page boundary: %s, output marked valid",
		      cut, strerror(err));
		CHECK(mprotect(p + pg, pg, PROT_NONE) == 0, "mprotect: %s", strerror(errno));
		memcpy(at, cmd, cut);
		err = raw_ioctl(fd, at);
		CHECK(err == EFAULT, "%zu bytes before an unreadable page: %s", cut,
		      strerror(err));
		CHECK(mprotect(p + pg, pg, PROT_READ | PROT_WRITE) == 0, "mprotect: %s",
		      strerror(errno));
	}
	/* More attributes than the device reads with the header: 8 unknown optional
	 * ones first, the two of the command last. */
	m = (struct raw_cmd *)p;
	memcpy(&m->hdr, &cmd->hdr, sizeof(m->hdr));
	memset(many, 0, sizeof(many));
	for (i = 0; i < 8; i++)
		many[i].attr_id = (uint16_t)(0x1700 + i);
	memcpy(&many[8], cmd->attrs, 2 * sizeof(many[0]));
	m->hdr.num_attrs = 10;
	m->hdr.length = (uint16_t)(sizeof(m->hdr) + sizeof(many));
	memcpy(p + sizeof(m->hdr), many, sizeof(many));
	err = raw_ioctl(fd, p);
	memcpy(many, p + sizeof(m->hdr), sizeof(many));
	CHECK(err == 0 && (many[9].flags & UVERBS_ATTR_F_VALID_OUTPUT),
	      "10 attributes, the command's last: %s, output marked valid", strerror(err));
	many[9].attr_id = MLX5_IB_ATTR_DEVX_OTHER_CMD_IN;
	memcpy(p + sizeof(m->hdr), many, sizeof(many));
	err = raw_ioctl(fd, p);
	CHECK(err == EINVAL, "10 attributes, the 10th a repeat of the 9th: %s", strerror(err));
	munmap(p, 2 * pg);
}

static void
bad_input(struct ibv_context *ctx)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	int fd = ctx->cmd_fd, err;
	struct raw_cmd c;

	printf("== bad input\n");
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	/* A well-formed general command first: the reference. */
	raw_init(&c, MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER, 2);
	c.attrs[0] = (struct ib_uverbs_attr){ .attr_id = MLX5_IB_ATTR_DEVX_OTHER_CMD_IN,
		.len = sizeof(in), .flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)in };
	c.attrs[1] = (struct ib_uverbs_attr){ .attr_id = MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT,
		.len = sizeof(out), .flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)out };
	err = raw_ioctl(fd, &c);
	CHECK(err == 0 && (c.attrs[1].flags & UVERBS_ATTR_F_VALID_OUTPUT) &&
	      !(c.attrs[0].flags & UVERBS_ATTR_F_VALID_OUTPUT),
	      "raw QUERY_HCA_CAP: %s, output marked valid", strerror(err));
	c.attrs[1].flags &= (uint16_t)~UVERBS_ATTR_F_VALID_OUTPUT;
	bad_input_pages(fd, &c);
	{
		/* A longer output than the method's: zeroed past it, as the kernel's
		 * uverbs_copy_to_struct_or_zero() for QUERY_PORT. */
		uint8_t resp[sizeof(struct ib_uverbs_query_port_resp) + 16];
		struct raw_cmd q;
		size_t i, nz = 0;

		memset(resp, 0xa5, sizeof(resp));
		raw_init(&q, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
		q.attrs[0] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM,
			.len = 1, .flags = UVERBS_ATTR_F_MANDATORY, .data = 1 };
		q.attrs[1] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_PORT_RESP,
			.len = sizeof(resp), .flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)resp };
		err = raw_ioctl(fd, &q);
		for (i = sizeof(struct ib_uverbs_query_port_resp); i < sizeof(resp); i++)
			nz += resp[i] != 0;
		CHECK(err == 0 && nz == 0 && (q.attrs[1].flags & UVERBS_ATTR_F_VALID_OUTPUT),
		      "QUERY_PORT into 16 bytes more: %s, %zu of them not zeroed, output valid",
		      strerror(err), nz);
	}
	c.hdr.length += 16;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "length != 24 + 16 * num_attrs: %s", strerror(err));
	c.hdr.length -= 16;
	c.hdr.reserved1 = 1;
	err = raw_ioctl(fd, &c);
	CHECK(err == EPROTONOSUPPORT, "reserved1 set: %s", strerror(err));
	c.hdr.reserved1 = 0;
	c.hdr.driver_id = RDMA_DRIVER_MLX4;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "driver_id of another driver: %s", strerror(err));
	c.hdr.driver_id = RDMA_DRIVER_MLX5;
	c.attrs[0].data = 8;
	err = raw_ioctl(fd, &c);
	CHECK(err == EFAULT, "CMD_IN at a bad pointer: %s", strerror(err));
	c.attrs[0].data = (uintptr_t)in;
	c.attrs[1].data = (uintptr_t)"read-only text";
	c.attrs[1].len = 15;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "CMD_OUT shorter than a mailbox header: %s", strerror(err));
	c.attrs[1].data = (uintptr_t)&bad_input;	/* code: not writable */
	c.attrs[1].len = 16;
	err = raw_ioctl(fd, &c);
	CHECK(err == EFAULT, "CMD_OUT not writable: %s", strerror(err));
	c.attrs[1].data = (uintptr_t)out;
	c.attrs[1].len = sizeof(out);
	c.attrs[1].attr_id = MLX5_IB_ATTR_DEVX_OTHER_CMD_IN;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "the same attribute twice: %s", strerror(err));
	c.attrs[1].attr_id = 0x1777;
	err = raw_ioctl(fd, &c);
	CHECK(err == EPROTONOSUPPORT, "unknown mandatory attribute: %s", strerror(err));
	c.attrs[1].flags = 0;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "unknown optional attribute ignored, CMD_OUT missing: %s",
	      strerror(err));
	c.attrs[1] = (struct ib_uverbs_attr){ .attr_id = MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT,
		.len = sizeof(out), .flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)out };
	c.attrs[1].attr_data.reserved = 1;
	err = raw_ioctl(fd, &c);
	CHECK(err == EINVAL, "reserved attribute bits: %s", strerror(err));
	raw_init(&c, UVERBS_OBJECT_DEVICE, 0x77, 0);
	err = raw_ioctl(fd, &c);
	CHECK(err == EPROTONOSUPPORT, "unknown method: %s", strerror(err));
	raw_init(&c, 0x1077, 0, 0);
	err = raw_ioctl(fd, &c);
	CHECK(err == EPROTONOSUPPORT, "unknown object: %s", strerror(err));
	err = raw_ioctl(fd, (void *)8);
	CHECK(err == EFAULT, "header at a bad pointer: %s", strerror(err));
	CHECK(mlx5dv_devx_umem_reg(ctx, (void *)4096, 4096, IBV_ACCESS_LOCAL_WRITE) == NULL &&
	      errno == EFAULT, "umem of unmapped memory: %s", strerror(errno));
	CHECK(mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL,
	      "mmap of an offset nobody handed out: %s", strerror(errno));
}

/* PD_QUERY of @p handle on @p fd: 0 (pdn in *pdn) or errno. */
static int
raw_pd_query(int fd, uint32_t handle, uint32_t *pdn)
{
	struct raw_cmd c;

	raw_init(&c, UVERBS_OBJECT_PD, MLX5_IB_METHOD_PD_QUERY, 2);
	c.attrs[0] = (struct ib_uverbs_attr){ .attr_id = MLX5_IB_ATTR_QUERY_PD_HANDLE,
		.flags = UVERBS_ATTR_F_MANDATORY, .data = handle };
	c.attrs[1] = (struct ib_uverbs_attr){ .attr_id = MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
		.len = 4, .flags = UVERBS_ATTR_F_MANDATORY, .data = (uintptr_t)pdn };
	return raw_ioctl(fd, &c);
}

/* A descriptor number reused for another file follows the new file. */
static void
fd_reuse(struct ibv_context *ctx)
{
	struct ibv_context *ctx2 = open_devx(MP_DEV);
	struct ibv_pd *pd2 = ctx2 != NULL ? ibv_alloc_pd(ctx2) : NULL;
	uint32_t pdn = 0;
	int fd = dup(ctx->cmd_fd), err;

	printf("== a descriptor number reused\n");
	CHECK(pd2 != NULL, "a second file with a PD: %s", strerror(errno));
	if (pd2 == NULL)
		goto out;
	err = raw_pd_query(fd, pd2->handle + 1000, &pdn);
	CHECK(err == ENOENT, "no such PD in the first file: %s", strerror(err));
	CHECK(dup2(ctx2->cmd_fd, fd) == fd, "dup2 the second file over it");
	err = raw_pd_query(fd, pd2->handle, &pdn);
	CHECK(err == 0 && pdn != 0, "the number now names the second file: %s, pdn %u",
	      strerror(err), pdn);
	ibv_dealloc_pd(pd2);
out:
	close(fd);
	if (ctx2 != NULL)
		ibv_close_device(ctx2);
}

/*
 * The table of one process: 256 uverbs descriptors at once (the context's
 * among them), one more open is EMFILE, and so is the first use of a
 * dup()ed one; a close makes room again, and every file leaves the daemon.
 */
static void
many_files(struct ibv_context *ctx, struct swdev_ctl *ctl)
{
	static int fds[UV_MAX_FILES];
	uint32_t files = 0, got = 0, pdn;
	int n = 0, fd, err, bad = 0, i;
	char path[128];
	struct stat st;

	printf("== %d uverbs descriptors in one process\n", UV_MAX_FILES);
	CHECK(swdev_ctl_get_num_files(ctl, MP_DEV, &files) == 0, "the daemon's files");
	snprintf(path, sizeof(path), "/dev/infiniband/%s", ctx->device->dev_name);
	for (fd = 0; fd >= 0 && n < UV_MAX_FILES;) {
		errno = 0;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			fds[n++] = fd;
	}
	err = errno;
	CHECK(n == UV_MAX_FILES - 1 && fd < 0 && err == EMFILE,
	      "%d opened besides the context's, then: %s", n, strerror(err));
	for (i = 0; i < n; i++)
		if (fstat(fds[i], &st) != 0 || !S_ISCHR(st.st_mode))
			bad++;
	CHECK(bad == 0, "each a uverbs file: %d are not", bad);
	CHECK(mp_wait_files(ctl, files + (uint32_t)n, &got) == 0 && got == files + (uint32_t)n,
	      "the daemon's files: %u, want %u", got, files + (uint32_t)n);
	fd = dup(ctx->cmd_fd);
	err = raw_pd_query(fd, 1, &pdn);
	CHECK(err == EMFILE, "a dup()ed descriptor used with the table full: %s", strerror(err));
	close(fd);
	if (n > 0) {
		close(fds[0]);
		fds[0] = open(path, O_RDWR | O_CLOEXEC);
		CHECK(fds[0] >= 0, "one closed, one opened: %s", strerror(errno));
	}
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	CHECK(mp_wait_files(ctl, files, &got) == 0 && got == files, "all closed: %u files, want %u",
	      got, files);
}

/* @p text (and a newline) as the whole of the launcher's sysfs file @p rel: 0 or -1. */
static int
sysfs_write(const char *rel, const char *text)
{
	const char *root = getenv("SYSFS_PATH");
	char path[PATH_MAX];
	FILE *f;
	int rc;

	if (root == NULL || snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	rc = fprintf(f, "%s\n", text) < 0 ? -1 : 0;
	return fclose(f) != 0 ? -1 : rc;
}

/*
 * The table's failures, 300 of each (more than it holds): an open the
 * daemon refuses (a node of the tree whose device the daemon does not
 * serve) and the first use of a dup()ed descriptor whose device is no
 * longer in the tree. Each gives the device's errno, never EMFILE (no
 * file kept), and closes no other descriptor.
 */
static void
refused_files(struct ibv_context *ctx)
{
	const char *root = getenv("SYSFS_PATH");
	char dir[PATH_MAX], rel[PATH_MAX + 16];
	int i, fd, err, bad_open = 0, bad_dup = 0, open_err = 0;
	uint32_t pdn;

	printf("== refused opens and descriptors\n");
	CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0 || open("/dev/null", O_RDONLY) == STDIN_FILENO,
	      "descriptor 0 open");
	snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs/uverbs9", root != NULL ? root : "");
	CHECK(root != NULL && mkdir(dir, 0755) == 0 &&
	      sysfs_write("class/infiniband_verbs/uverbs9/ibdev", "mlx5_none") == 0,
	      "a node for a device the daemon does not serve: %s", strerror(errno));
	for (i = 0; i < 300; i++) {
		errno = 0;
		fd = open("/dev/infiniband/uverbs9", O_RDWR | O_CLOEXEC);
		err = errno;
		if (i == 0)
			open_err = err;
		if (fd >= 0)
			close(fd);
		if (fd >= 0 || err != open_err || err == EMFILE || err == 0)
			bad_open++;
	}
	CHECK(bad_open == 0 && open_err == ENODEV, "300 refused opens: %d not %s (the first %s)",
	      bad_open, strerror(ENODEV), strerror(open_err));
	CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0, "descriptor 0 still open");
	snprintf(rel, sizeof(rel), "%s/ibdev", dir);
	unlink(rel);
	rmdir(dir);

	snprintf(rel, sizeof(rel), "class/infiniband_verbs/%s/ibdev", ctx->device->dev_name);
	CHECK(sysfs_write(rel, "mlx5_moved") == 0, "the device renamed in the tree");
	for (i = 0; i < 300; i++) {
		fd = dup(ctx->cmd_fd);
		err = raw_pd_query(fd, 1, &pdn);
		/* used again before its close: refused again, nothing was kept of it */
		if (err != ENODEV || raw_pd_query(fd, 1, &pdn) != ENODEV)
			bad_dup++;
		close(fd);
	}
	CHECK(sysfs_write(rel, MP_DEV) == 0, "the name back");
	CHECK(bad_dup == 0, "300 dup()ed descriptors of a device not in the tree: %d not %s",
	      bad_dup, strerror(ENODEV));
	CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0, "descriptor 0 still open");
	fd = dup(ctx->cmd_fd);
	err = raw_pd_query(fd, 100000, &pdn);
	close(fd);
	CHECK(err == ENOENT, "a dup()ed descriptor once the name is back (no such PD): %s",
	      strerror(err));
}

/* The legacy write() commands on the descriptor, as an older libibverbs sends them. */
static void
write_cmds(struct ibv_context *ctx, struct swdev_ctl *ctl, uint32_t base)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_device core;
	} qd;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_pd core;
	} ap;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_pd core;
	} dp;
	struct ib_uverbs_query_device_resp qr;
	struct {
		uint32_t pd_handle;	/* struct ib_uverbs_alloc_pd_resp, before its driver_data[] */
		struct mlx5_ib_alloc_pd_resp drv;
	} ar;
	ssize_t n;

	printf("== write() commands\n");
	memset(&qd, 0, sizeof(qd));
	memset(&qr, 0, sizeof(qr));
	qd.hdr.command = IB_USER_VERBS_CMD_QUERY_DEVICE;
	qd.hdr.in_words = sizeof(qd) / 4;
	qd.hdr.out_words = sizeof(qr) / 4;
	qd.core.response = (uintptr_t)&qr;
	n = write(ctx->cmd_fd, &qd, sizeof(qd));
	CHECK(n == (ssize_t)sizeof(qd) && qr.vendor_part_id == 4119 && qr.phys_port_cnt == 1 &&
	      be64toh(qr.node_guid) == be64toh(ibv_get_device_guid(ctx->device)),
	      "QUERY_DEVICE: %zd, part %u, node GUID as sysfs", n, qr.vendor_part_id);
	qd.hdr.in_words++;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &qd, sizeof(qd)) == -1 && errno == EINVAL,
	      "in_words not the length written: %s", strerror(errno));
	qd.hdr.in_words--;
	qd.core.response = 8;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &qd, sizeof(qd)) == -1 && errno == EFAULT,
	      "response at a bad pointer: %s", strerror(errno));
	qd.hdr.command = IB_USER_VERBS_CMD_CREATE_CQ;
	errno = 0;
	CHECK(write(ctx->cmd_fd, &qd, sizeof(qd)) == -1 && errno == ENOSYS,
	      "a command the device does not serve: %s", strerror(errno));
	memset(&ap, 0, sizeof(ap));
	memset(&ar, 0, sizeof(ar));
	ap.hdr.command = IB_USER_VERBS_CMD_ALLOC_PD;
	ap.hdr.in_words = sizeof(ap) / 4;
	ap.hdr.out_words = sizeof(ar) / 4;
	ap.core.response = (uintptr_t)&ar;
	n = write(ctx->cmd_fd, &ap, sizeof(ap));
	CHECK(n == (ssize_t)sizeof(ap) && ar.drv.pdn != 0, "ALLOC_PD: %zd, pdn %u", n,
	      ar.drv.pdn);
	CHECK(device_total(ctl) == base + 1, "the PD is the file's: %u", device_total(ctl));
	memset(&dp, 0, sizeof(dp));
	dp.hdr.command = IB_USER_VERBS_CMD_DEALLOC_PD;
	dp.hdr.in_words = sizeof(dp) / 4;
	dp.core.pd_handle = ar.pd_handle;
	n = write(ctx->cmd_fd, &dp, sizeof(dp));
	CHECK(n == (ssize_t)sizeof(dp), "DEALLOC_PD: %zd", n);
	errno = 0;
	CHECK(write(ctx->cmd_fd, &dp, sizeof(dp)) == -1 && errno == ENOENT,
	      "DEALLOC_PD again: %s", strerror(errno));
	CHECK(device_total(ctl) == base, "no PD left: %u", device_total(ctl));
}

/* Threads of one process share a context: every command gets its own answer. */
static void *
thread_cmds(void *arg)
{
	struct ibv_context *ctx = arg;
	struct mlx5dv_devx_obj *obj;
	uintptr_t bad = 0;
	uint32_t id;
	uint8_t st;
	uint64_t pk;
	int i;

	for (i = 0; i < 50; i++) {
		obj = counter_alloc(ctx, &id, &st);
		if (obj == NULL || counter_query(obj, id, &pk, &st) != 0 || pk != 0 ||
		    mlx5dv_devx_obj_destroy(obj) != 0)
			bad++;
	}
	return (void *)bad;
}

static void
threads(struct ibv_context *ctx, struct swdev_ctl *ctl, uint32_t base)
{
	pthread_t t[4];
	uintptr_t bad = 0;
	void *r;
	int i;

	printf("== four threads on one context\n");
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_cmds, ctx);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &r);
		bad += (uintptr_t)r;
	}
	CHECK(bad == 0, "200 create/query/destroy, %u wrong", (unsigned int)bad);
	CHECK(device_total(ctl) == base, "none left: %u objects", device_total(ctl));
}

/* A process killed with objects open: its file goes, and they with it. */
static int
killed_child(void *arg)
{
	struct ibv_context *ctx = open_devx(MP_DEV);
	struct mlx5dv_devx_obj *obj;
	uint32_t id;
	uint8_t st;
	int sync = *(int *)arg;

	obj = ctx != NULL ? counter_alloc(ctx, &id, &st) : NULL;
	CHECK(obj != NULL && ibv_alloc_pd(ctx) != NULL, "killed child: objects of its own");
	mp_signal(sync, 'k');
	pause();
	return 1;
}

/* The child of the import test: joins the file through the dup()ed fd. */
static int
import_child(void *arg)
{
	const uint32_t *h = arg;	/* PD handle, counter id */
	struct ibv_context *ctx;
	struct mlx5dv_devx_obj *obj;
	struct mlx5dv_obj dv;
	struct mlx5dv_pd dpd;
	struct ibv_pd *pd;
	uint32_t id;
	uint8_t st;
	int fd = (int)h[2];

	ctx = ibv_import_device(fd);
	CHECK(ctx != NULL, "child: ibv_import_device: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	pd = ibv_import_pd(ctx, h[0]);
	CHECK(pd != NULL, "child: ibv_import_pd: %s", strerror(errno));
	if (pd != NULL) {
		dv.pd.in = pd;
		dv.pd.out = &dpd;
		CHECK(mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD) == 0 && dpd.pdn == h[1],
		      "child: imported pdn %u = parent's %u", dpd.pdn, h[1]);
		ibv_unimport_pd(pd);
	}
	obj = counter_alloc(ctx, &id, &st);
	CHECK(obj != NULL && st == 0, "child: a counter bulk of its own: %s", strerror(errno));
	if (obj != NULL)
		CHECK(mlx5dv_devx_obj_destroy(obj) == 0, "child: destroy it");
	/* Left behind on purpose: the parent's file holds it until it closes. */
	obj = counter_alloc(ctx, &id, &st);
	CHECK(obj != NULL, "child: a second bulk, not destroyed: %s", strerror(errno));
	CHECK(ibv_close_device(ctx) == 0, "child: close");
	return 0;
}

static void
test_main(void)
{
	struct ibv_context *ctx;
	struct ibv_device **list;
	struct mlx5dv_devx_obj *cnt;
	struct mlx5dv_devx_uar *uar;
	struct mlx5dv_devx_umem *umem;
	struct mlx5dv_flow_matcher *matcher;
	struct mlx5dv_obj dv;
	struct mlx5dv_pd dpd;
	struct swdev_ctl *ctl;
	struct ibv_flow *flow;
	struct ibv_pd *pd;
	struct stat st;
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	uint32_t id = 0, eqn = 0, h[3];
	uint64_t packets = 1;
	uint8_t status = 0xff;
	uint32_t base;
	int n = 0, err, fd;
	pid_t pid;

	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "control channel: %s", strerror(errno));
	if (ctl == NULL)
		return;
	printf("== discovery and open\n");
	list = ibv_get_device_list(&n);
	CHECK(list != NULL && n == 1 && find_dev(list, MP_DEV) != NULL &&
	      mlx5dv_is_supported(find_dev(list, MP_DEV)),
	      "one mlx5 device %s (%d found)", MP_DEV, n);
	ibv_free_device_list(list);
	ctx = open_devx(MP_DEV);
	CHECK(ctx != NULL, "mlx5dv_open_device(DEVX): %s", strerror(errno));
	if (ctx == NULL)
		goto out;
	CHECK(fstat(ctx->cmd_fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	      st.st_rdev == makedev(231, 192), "cmd_fd is the character device 231:192");
	CHECK(ctx->async_fd >= 0 && ctx->async_fd != ctx->cmd_fd, "async fd %d", ctx->async_fd);
	/* libmlx5 keeps one non-cached UAR per context */
	base = device_total(ctl);
	CHECK(base == 1, "an open context holds %u object (its UAR)", base);
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	MDEVX_SET(query_hca_cap_in, in, op_mod, 1);	/* general caps, current */
	memset(out, 0, sizeof(out));
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(err == 0 && MDEVX_GET(query_hca_cap_out, out, status) == 0 &&
	      MDEVX_GET(query_hca_cap_out, out, capability.cmd_hca_cap.flow_counter_bulk_alloc)
	      != 0, "QUERY_HCA_CAP through libmlx5: %s, counter bulks advertised", strerror(err));

	printf("== DEVX flow counter bulk\n");
	cnt = counter_alloc(ctx, &id, &status);
	CHECK(cnt != NULL && status == 0 && id != 0, "ALLOC_FLOW_COUNTER: %s, id %u",
	      strerror(errno), id);
	CHECK(device_total(ctl) == base + 1, "the daemon holds 1 more object: %u",
	      device_total(ctl));
	if (cnt != NULL) {
		err = counter_query(cnt, id, &packets, &status);
		CHECK(err == 0 && status == 0 && packets == 0, "QUERY: %s, %llu packets",
		      strerror(err), (unsigned long long)packets);
		CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, id + 5, 42, 4200) == 0, "inject");
		err = counter_query(cnt, id + 5, &packets, &status);
		CHECK(err == 0 && packets == 42, "QUERY counter 5 of the bulk: %llu packets",
		      (unsigned long long)packets);
		err = counter_query(cnt, id + 128, &packets, &status);
		CHECK(err == EINVAL, "QUERY of a counter outside the bulk: %s", strerror(err));
	}

	printf("== PD, UAR, umem, EQN\n");
	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL, "ibv_alloc_pd: %s", strerror(errno));
	memset(&dpd, 0, sizeof(dpd));
	if (pd != NULL) {
		dv.pd.in = pd;
		dv.pd.out = &dpd;
		CHECK(mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD) == 0 && dpd.pdn != 0, "pdn %u",
		      dpd.pdn);
	}
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	CHECK(uar != NULL && uar->base_addr != NULL && uar->page_id != 0,
	      "UAR: %s, page %u", strerror(errno), uar != NULL ? uar->page_id : 0);
	if (uar != NULL) {
		*(volatile uint64_t *)uar->reg_addr = 1;	/* process memory: no doorbell */
		mlx5dv_devx_free_uar(uar);
	}
	umem = mlx5dv_devx_umem_reg(ctx, umem_buf, sizeof(umem_buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(umem != NULL && umem->umem_id != 0, "umem: %s", strerror(errno));
	if (umem != NULL)
		CHECK(mlx5dv_devx_umem_dereg(umem) == 0, "umem dereg");
	err = mlx5dv_devx_query_eqn(ctx, 0, &eqn);
	CHECK(err == 0 && eqn != 0, "EQN of vector 0: %s, %u", strerror(err), eqn);

	printf("== root rule counting on the bulk\n");
	{
		uint8_t mask[MASK_LEN] __attribute__((aligned(8)));
		uint8_t val[MASK_LEN] __attribute__((aligned(8)));
		struct mlx5dv_flow_match_parameters *mp, *vp;
		struct mlx5dv_flow_matcher_attr ma;
		struct mlx5dv_flow_action_attr act[2];

		memset(mask, 0, sizeof(mask));
		MDEVX_SET(fte_match_param, mask, outer_headers.ethertype, 0xffff);
		memset(val, 0, sizeof(val));
		MDEVX_SET(fte_match_param, val, outer_headers.ethertype, 0x0800);
		mp = calloc(1, sizeof(*mp) + MASK_LEN);
		vp = calloc(1, sizeof(*vp) + MASK_LEN);
		mp->match_sz = MASK_LEN;
		memcpy(mp->match_buf, mask, MASK_LEN);
		vp->match_sz = MASK_LEN;
		memcpy(vp->match_buf, val, MASK_LEN);
		memset(&ma, 0, sizeof(ma));
		ma.type = IBV_FLOW_ATTR_NORMAL;
		ma.match_criteria_enable = 1;	/* outer headers */
		ma.match_mask = mp;
		matcher = mlx5dv_create_flow_matcher(ctx, &ma);
		CHECK(matcher != NULL, "matcher: %s", strerror(errno));
		act[0].type = MLX5DV_FLOW_ACTION_DROP;
		act[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
		act[1].obj = cnt;
		flow = matcher != NULL && cnt != NULL ? mlx5dv_create_flow(matcher, vp, 2, act) :
			NULL;
		CHECK(flow != NULL, "rule: drop, counted on the bulk: %s", strerror(errno));
		CHECK(device_total(ctl) == base + 4, "counter, PD, matcher, rule: %u objects",
		      device_total(ctl));
		{
			uint8_t fin[MDEVX_ST_SZ_BYTES(create_flow_table_in)] = { 0 };
			uint8_t fout[MDEVX_ST_SZ_BYTES(create_flow_table_out)] = { 0 };
			struct mlx5dv_devx_obj *ft;
			struct ibv_flow *f2;

			MDEVX_SET(create_flow_table_in, fin, opcode,
				  MDEVX_CMD_OP_CREATE_FLOW_TABLE);
			MDEVX_SET(create_flow_table_in, fin, table_type,
				  MDEVX_FLOW_TABLE_TYPE_NIC_RX);
			MDEVX_SET(create_flow_table_in, fin, flow_table_context.level, 1);
			MDEVX_SET(create_flow_table_in, fin, flow_table_context.log_size, 4);
			ft = mlx5dv_devx_obj_create(ctx, fin, sizeof(fin), fout, sizeof(fout));
			CHECK(ft != NULL, "a NIC RX flow table: %s", strerror(errno));
			MDEVX_SET(fte_match_param, vp->match_buf, outer_headers.ethertype,
				  0x86dd);
			act[0].type = MLX5DV_FLOW_ACTION_DEST_DEVX;
			act[0].obj = cnt;
			errno = 0;
			CHECK(cnt == NULL || (mlx5dv_create_flow(matcher, vp, 1, act) == NULL &&
					      errno == EINVAL),
			      "a counter bulk is no destination: %s", strerror(errno));
			act[0].obj = ft;
			f2 = ft != NULL && matcher != NULL ?
				mlx5dv_create_flow(matcher, vp, 2, act) : NULL;
			CHECK(f2 != NULL, "rule to the flow table, counted: %s", strerror(errno));
			if (f2 != NULL)
				CHECK(ibv_destroy_flow(f2) == 0, "destroy it");
			if (ft != NULL)
				CHECK(mlx5dv_devx_obj_destroy(ft) == 0, "destroy the table");
		}
		if (cnt != NULL)
			CHECK(mlx5dv_devx_obj_destroy(cnt) == EBUSY,
			      "the bulk stays while a rule counts on it");
		if (flow != NULL)
			CHECK(ibv_destroy_flow(flow) == 0, "destroy the rule");
		if (matcher != NULL)
			CHECK(mlx5dv_destroy_flow_matcher(matcher) == 0, "destroy the matcher");
		free(mp);
		free(vp);
	}

	printf("== ibv_import_device in a forked child\n");
	fd = dup(ctx->cmd_fd);
	h[0] = pd != NULL ? pd->handle : 0;
	h[1] = dpd.pdn;
	h[2] = (uint32_t)fd;
	pid = mp_fork(import_child, h);
	CHECK(mp_exited_ok(mp_wait(pid, 30)), "child done");
	close(fd);
	CHECK(device_total(ctl) == base + 3, "the child's bulk lives in the file: %u objects",
	      device_total(ctl));

	{
		int sv[2];
		uint32_t before = device_total(ctl), got = 0;

		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
		pid = mp_fork(killed_child, &sv[1]);
		CHECK(mp_await(sv[0], 'k', 30) == 0, "the child holds its objects");
		CHECK(device_total(ctl) >= before + 3, "its UAR, bulk and PD: %u objects",
		      device_total(ctl));
		kill(pid, SIGKILL);
		mp_wait(pid, 30);
		CHECK(mp_wait_total(ctl, 0, before, &got) == 0,
		      "kill -9: the daemon frees them all (%u objects)", got);
		close(sv[0]);
		close(sv[1]);
	}
	bad_input(ctx);
	write_cmds(ctx, ctl, device_total(ctl));
	fd_reuse(ctx);
	many_files(ctx, ctl);
	refused_files(ctx);
	threads(ctx, ctl, device_total(ctl));
	{
		struct raw_cmd c;

		raw_init(&c, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_DESTROY, 1);
		c.attrs[0] = (struct ib_uverbs_attr){
			.attr_id = MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
			.flags = UVERBS_ATTR_F_MANDATORY, .data = h[0] };
		err = raw_ioctl(ctx->cmd_fd, &c);
		CHECK(err == EINVAL, "destroy a PD handle as a UAR: %s", strerror(err));
	}

	if (cnt != NULL)
		CHECK(mlx5dv_devx_obj_destroy(cnt) == 0, "destroy the bulk");
	if (pd != NULL)
		CHECK(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd");
	CHECK(ibv_close_device(ctx) == 0, "close");
	CHECK(mp_wait_total(ctl, 0, 0, &base) == 0, "the daemon frees the file: %u objects",
	      base);
out:
	swdev_ctl_close(ctl);
}

static void
test_kill(pid_t daemon)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	struct ibv_context *ctx;
	uint64_t t0;
	int err, i;

	printf("== the daemon killed\n");
	ctx = open_devx(MP_DEV);
	CHECK(ctx != NULL, "open: %s", strerror(errno));
	if (ctx == NULL)
		return;
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	CHECK(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)) == 0, "alive");
	CHECK(kill(daemon, SIGKILL) == 0, "SIGKILL the daemon");
	for (i = 0; i < 100 && kill(daemon, 0) == 0; i++) {
		char path[64], state = 0;
		FILE *f;

		/* our sibling: a zombie until the outer test reaps it */
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)daemon);
		f = fopen(path, "r");
		if (f != NULL && fscanf(f, "%*d %*s %c", &state) == 1 && state == 'Z') {
			fclose(f);
			break;
		}
		if (f != NULL)
			fclose(f);
		usleep(20000);
	}
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(err == EIO, "a DEVX command after: %s", strerror(err));
	CHECK(ibv_alloc_pd(ctx) == NULL && errno == EIO, "ibv_alloc_pd after: %s",
	      strerror(errno));
	CHECK(ibv_close_device(ctx) == 0, "close works");
	t0 = now_ms();
	ctx = open_devx(MP_DEV);
	CHECK(ctx == NULL && errno != 0, "open with no daemon: %s", strerror(errno));
	CHECK(now_ms() - t0 < 2000, "fails at once: %llu ms",
	      (unsigned long long)(now_ms() - t0));
}

/* [heap] of /proc/self/maps into @p base, @p len: 0 or -1. */
static int
heap_range(void **base, size_t *len)
{
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int rc = -1;

	if (f == NULL)
		return -1;
	while (rc != 0 && fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "[heap]") != NULL && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			*base = (void *)lo;
			*len = hi - lo;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/*
 * A fork-safe process: after ibv_fork_init() (DPDK's mlx5 drivers call it)
 * libibverbs marks the pages of the buffers it registers MADV_DONTFORK,
 * whole pages, so whatever shares them is absent in a child of fork(). Here
 * the whole heap is marked: the child runs the library's fork handler over
 * the open file, then exits (it must not touch the heap itself).
 */
static void
test_fork_safe(void)
{
	struct ibv_context *ctx;
	void *heap = NULL;
	size_t len = 0;
	pid_t pid;
	int st = -1;

	printf("== fork() with the heap marked MADV_DONTFORK\n");
	ctx = open_devx(MP_DEV);
	CHECK(ctx != NULL, "open: %s", strerror(errno));
	if (ctx == NULL)
		return;
	if (heap_range(&heap, &len) != 0) {
		/* a sanitizer's allocator: malloc() is not on the [heap] */
		printf("SKIP: no [heap] mapping (a sanitizer build?)\n");
		ibv_close_device(ctx);
		return;
	}
	CHECK(madvise(heap, len, MADV_DONTFORK) == 0, "MADV_DONTFORK: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork: %s", strerror(errno));
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child: %s %d",
	      st != -1 && WIFSIGNALED(st) ? "killed by signal" : "status",
	      st != -1 && WIFSIGNALED(st) ? WTERMSIG(st) : st);
	CHECK(madvise(heap, len, MADV_DOFORK) == 0, "MADV_DOFORK: %s", strerror(errno));
	CHECK(ibv_close_device(ctx) == 0, "close");
}

/* A daemon that is not the harness's (the kill test reaps it itself). */
static pid_t
plain_daemon(const char *sock)
{
	pid_t pid = fork();
	int i;

	if (pid == 0) {
		execl(mp_daemon_bin, mp_daemon_bin, "--socket", sock, "--log-level", "error",
		      (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		const char *argv[] = { mp_daemon_bin, "--socket", sock, "--ping", NULL };

		if (mp_exited_ok(mp_run(argv, 5)))
			break;
		usleep(50000);
	}
	return pid;
}

int
main(int argc, char **argv)
{
	char self[4096], pidbuf[16], sock2[128];
	ssize_t n;
	pid_t kd;
	int st;

	mp_init(argc, argv, "uverbs");
	if (argc >= 4 && strcmp(argv[2], "--inner") == 0) {
		const char *s = getenv("SWDEV_SOCKET");

		snprintf(mp_sock, sizeof(mp_sock), "%s", s != NULL ? s : "");
		if (strcmp(argv[3], "main") == 0)
			test_main();
		else if (strcmp(argv[3], "fork") == 0)
			test_fork_safe();
		else if (argc >= 5)
			test_kill((pid_t)atoi(argv[4]));
		return mp_finish();
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 2;
	self[n] = '\0';
	if (mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(false, "daemon");
		return mp_finish();
	}
	{
		const char *a[] = { mp_daemon_bin, "run", "--socket", mp_sock, "--", self,
				    mp_daemon_bin, "--inner", "main", NULL };

		CHECK(mp_exited_ok(mp_run(a, 120)), "the tests under mlx5-swdev run");
	}
	{
		const char *a[] = { mp_daemon_bin, "run", "--socket", mp_sock, "--", self,
				    mp_daemon_bin, "--inner", "fork", NULL };

		CHECK(mp_exited_ok(mp_run(a, 60)), "the fork-safe test under mlx5-swdev run");
	}
	snprintf(sock2, sizeof(sock2), "%s.kill", mp_sock);
	kd = plain_daemon(sock2);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)kd);
	{
		const char *a[] = { mp_daemon_bin, "run", "--socket", sock2, "--", self,
				    mp_daemon_bin, "--inner", "kill", pidbuf, NULL };

		CHECK(mp_exited_ok(mp_run(a, 60)), "the daemon-killed tests");
	}
	kill(kd, SIGKILL);
	waitpid(kd, &st, 0);
	/* what a killed daemon leaves */
	unlink(sock2);
	snprintf(self, sizeof(self), "%s.ctl", sock2);
	unlink(self);
	snprintf(self, sizeof(self), "%s.lock", sock2);
	unlink(self);
	return mp_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: client library (the libibverbs / libmlx5 side).
 *
 * A context is the command fd (main connection, shared by every process of
 * the uverbs file) plus a private stream channel of its own, registered with
 * OPEN or ATTACH over the command fd. Requests and replies of the context
 * travel on its channel only, under the context mutex.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "mdevx_devx_export.h"
#include "swdev_client.h"
#include "swdev_proto.h"

/* Local object kinds (struct swdev_obj.kind). */
enum {
	OBJ_DEVX = 0,
	OBJ_PD = 1,
	OBJ_UAR = 2,
	OBJ_UMEM = 3,
	OBJ_MATCHER = 4,	/* root matcher */
	OBJ_FLOW = 5,		/* root rule */
};

/* How long OPEN / ATTACH wait for the daemon's answer. */
#define ATTACH_TIMEOUT_MS 10000

struct swdev_ctx {
	int cmd_fd;
	int chan_fd;
	pthread_mutex_t lock;
	uint32_t seq;
	bool broken;
	uint16_t uid;
	uint32_t file_id;
	char devname[SWDEV_PROTO_NAME_LEN];
};

static bool
debug_enabled(void)
{
	static int enabled = -1;

	if (enabled < 0) {
		const char *e = getenv("SWDEV_CLIENT_DEBUG");

		enabled = e != NULL && e[0] != '\0' && e[0] != '0';
	}
	return enabled;
}

static void
client_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
client_log(const char *fmt, ...)
{
	va_list ap;

	if (!debug_enabled())
		return;
	fprintf(stderr, "swdev client[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *
resolve_path(const char *sock_path)
{
	const char *env;

	if (sock_path != NULL && sock_path[0] != '\0')
		return sock_path;
	env = getenv("SWDEV_SOCKET");
	if (env != NULL && env[0] != '\0')
		return env;
	return SWDEV_DEFAULT_SOCKET;
}

static int
connect_path(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	int fd;

	if (len >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, len + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Register a new private channel of the file behind @p cmd_fd (OPEN with
 * @p devname, or ATTACH) and fill @p ctx from the answer. 0 or errno.
 */
static int
attach_channel(struct swdev_ctx *ctx, int cmd_fd, uint16_t op, const char *devname)
{
	union {
		struct swdev_req_hdr h;	/* aligns the header */
		uint8_t b[sizeof(struct swdev_req_hdr) + SWDEV_PROTO_NAME_LEN];
	} msg;
	struct swdev_req_hdr *req = &msg.h;
	struct swdev_open_rep orep;
	struct swdev_rep_hdr rep;
	size_t inlen = 0;
	int sv[2];
	int err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	memset(&msg, 0, sizeof(msg));
	if (devname != NULL) {
		inlen = strlen(devname) + 1;
		memcpy(msg.b + sizeof(*req), devname, inlen);
	}
	req->magic = SWDEV_PROTO_MAGIC;
	req->version = SWDEV_PROTO_VERSION;
	req->op = op;
	req->seq = 1;
	req->inlen = (uint32_t)inlen;
	err = swdev_proto_send_fd(cmd_fd, msg.b, sizeof(*req) + inlen, sv[1], 0);
	close(sv[1]);
	if (err != 0)
		goto fail;
	err = swdev_proto_wait_readable(sv[0], ATTACH_TIMEOUT_MS);
	if (err == 0)
		err = swdev_proto_read_all(sv[0], &rep, sizeof(rep));
	if (err == EPIPE)
		err = ECONNRESET;	/* the daemon dropped the request */
	if (err != 0)
		goto fail;
	if (swdev_proto_check_rep(&rep, op, 1, sizeof(orep)) != 0) {
		err = EPROTO;
		goto fail;
	}
	if (rep.err != 0) {
		err = (int)rep.err;
		goto fail;
	}
	if (rep.outlen != sizeof(orep)) {
		err = EPROTO;
		goto fail;
	}
	err = swdev_proto_read_all(sv[0], &orep, sizeof(orep));
	if (err != 0)
		goto fail;
	orep.devname[sizeof(orep.devname) - 1] = '\0';
	memcpy(ctx->devname, orep.devname, sizeof(ctx->devname));
	ctx->uid = (uint16_t)rep.val;
	ctx->file_id = rep.file_id;
	ctx->chan_fd = sv[0];
	ctx->seq = 1;
	return 0;
fail:
	close(sv[0]);
	client_log("%s failed: %s", swdev_proto_op_name(op), strerror(err));
	return err;
}

static struct swdev_ctx *
ctx_alloc(void)
{
	struct swdev_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL)
		return NULL;
	if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}
	ctx->cmd_fd = -1;
	ctx->chan_fd = -1;
	return ctx;
}

static void
ctx_free(struct swdev_ctx *ctx)
{
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

struct swdev_ctx *
swdev_open(const char *sock_path, const char *devname)
{
	struct swdev_ctx *ctx;
	int fd, err;

	if (devname == NULL || devname[0] == '\0' || strlen(devname) >= SWDEV_PROTO_NAME_LEN) {
		errno = ENODEV;
		return NULL;
	}
	fd = connect_path(resolve_path(sock_path));
	if (fd < 0)
		return NULL;
	ctx = ctx_alloc();
	if (ctx == NULL) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	err = attach_channel(ctx, fd, SWDEV_OP_OPEN, devname);
	if (err != 0) {
		close(fd);
		ctx_free(ctx);
		errno = err;
		return NULL;
	}
	ctx->cmd_fd = fd;
	return ctx;
}

struct swdev_ctx *
swdev_import_device(int cmd_fd)
{
	struct swdev_ctx *ctx;
	struct stat st;
	int type = 0;
	socklen_t len = sizeof(type);
	int err;

	if (cmd_fd < 0 || fcntl(cmd_fd, F_GETFD) < 0) {
		errno = EBADF;
		return NULL;
	}
	if (fstat(cmd_fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		errno = ENOTSOCK;
		return NULL;
	}
	if (getsockopt(cmd_fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET) {
		errno = EPROTO;
		return NULL;
	}
	ctx = ctx_alloc();
	if (ctx == NULL)
		return NULL;
	err = attach_channel(ctx, cmd_fd, SWDEV_OP_ATTACH, NULL);
	if (err != 0) {
		ctx_free(ctx);
		errno = err;
		return NULL;
	}
	ctx->cmd_fd = cmd_fd;
	return ctx;
}

int
swdev_cmd_fd(const struct swdev_ctx *ctx)
{
	if (ctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	return ctx->cmd_fd;
}

int
swdev_close(struct swdev_ctx *ctx)
{
	if (ctx == NULL)
		return EINVAL;
	close(ctx->chan_fd);
	close(ctx->cmd_fd);
	ctx_free(ctx);
	return 0;
}

const char *
swdev_ctx_devname(const struct swdev_ctx *ctx)
{
	return ctx != NULL ? ctx->devname : NULL;
}

uint16_t
swdev_ctx_uid(const struct swdev_ctx *ctx)
{
	return ctx != NULL ? ctx->uid : 0;
}

uint32_t
swdev_ctx_file_id(const struct swdev_ctx *ctx)
{
	return ctx != NULL ? ctx->file_id : 0;
}

/* Arguments and results of one request besides the mailboxes. */
struct call {
	uint16_t op;
	uint32_t handle;
	uint64_t arg0;
	uint64_t arg1;
	uint32_t arg2;
	struct swdev_rep_hdr rep;
};

/*
 * One request / reply on the context's channel. Returns 0 or the positive
 * errno of the command; EIO when the daemon is gone (as for a disassociated
 * device), EPROTO on a reply that does not match.
 */
static int
do_call(struct swdev_ctx *ctx, struct call *c, const void *in, size_t inlen, void *out,
	size_t outlen)
{
	struct swdev_req_hdr h;
	int err;

	if (ctx == NULL || (inlen > 0 && in == NULL) || (outlen > 0 && out == NULL) ||
	    inlen > SWDEV_PROTO_MAX_PAYLOAD || outlen > SWDEV_PROTO_MAX_PAYLOAD)
		return EINVAL;
	memset(&h, 0, sizeof(h));
	h.magic = SWDEV_PROTO_MAGIC;
	h.version = SWDEV_PROTO_VERSION;
	h.op = c->op;
	h.handle = c->handle;
	h.inlen = (uint32_t)inlen;
	h.outlen = (uint32_t)outlen;
	h.arg0 = c->arg0;
	h.arg1 = c->arg1;
	h.arg2 = c->arg2;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->broken) {
		err = EIO;
		goto out;
	}
	h.seq = ++ctx->seq;
	err = swdev_proto_send_frame(ctx->chan_fd, &h, in, inlen);
	if (err == 0)
		err = swdev_proto_read_all(ctx->chan_fd, &c->rep, sizeof(c->rep));
	if (err != 0) {
		client_log("%s: channel lost: %s", swdev_proto_op_name(c->op), strerror(err));
		ctx->broken = true;
		err = EIO;
		goto out;
	}
	if (swdev_proto_check_rep(&c->rep, h.op, h.seq, (uint32_t)outlen) != 0) {
		client_log("%s: reply does not match the request", swdev_proto_op_name(c->op));
		ctx->broken = true;
		err = EPROTO;
		goto out;
	}
	if (c->rep.outlen > 0) {
		err = swdev_proto_read_all(ctx->chan_fd, out, c->rep.outlen);
		if (err != 0) {
			ctx->broken = true;
			err = EIO;
			goto out;
		}
	}
	err = (int)c->rep.err;
	if (err != 0)
		client_log("%s handle %u: errno %d", swdev_proto_op_name(c->op), c->handle, err);
out:
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static struct swdev_obj *
obj_new(struct swdev_ctx *ctx, uint8_t kind, uint32_t handle)
{
	struct swdev_obj *obj = calloc(1, sizeof(*obj));

	if (obj == NULL)
		return NULL;
	obj->ctx = ctx;
	obj->kind = kind;
	obj->handle = handle;
	return obj;
}

struct swdev_obj *
swdev_obj_create(struct swdev_ctx *ctx, const void *in, size_t inlen, void *out, size_t outlen)
{
	struct call c = { .op = SWDEV_OP_DEVX_CREATE };
	struct swdev_obj *obj;
	int err;

	err = do_call(ctx, &c, in, inlen, out, outlen);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	obj = obj_new(ctx, OBJ_DEVX, c.rep.handle);
	if (obj == NULL) {
		/* Do not leave a device object nobody can name. */
		struct call d = { .op = SWDEV_OP_DEVX_DESTROY, .handle = c.rep.handle };

		do_call(ctx, &d, NULL, 0, NULL, 0);
		errno = ENOMEM;
		return NULL;
	}
	obj->type = c.rep.type;
	obj->object_id = c.rep.object_id;
	obj->rx_icm_addr = c.rep.rx_icm_addr;
	obj->log_obj_range = c.rep.log_obj_range;
	return obj;
}

static int
obj_call(struct swdev_obj *obj, uint16_t op, const void *in, size_t inlen, void *out,
	 size_t outlen)
{
	struct call c = { .op = op };

	if (obj == NULL || obj->kind != OBJ_DEVX)
		return EINVAL;
	c.handle = obj->handle;
	return do_call(obj->ctx, &c, in, inlen, out, outlen);
}

int
swdev_obj_query(struct swdev_obj *obj, const void *in, size_t inlen, void *out, size_t outlen)
{
	return obj_call(obj, SWDEV_OP_DEVX_QUERY, in, inlen, out, outlen);
}

int
swdev_obj_modify(struct swdev_obj *obj, const void *in, size_t inlen, void *out, size_t outlen)
{
	return obj_call(obj, SWDEV_OP_DEVX_MODIFY, in, inlen, out, outlen);
}

int
swdev_obj_destroy(struct swdev_obj *obj)
{
	struct call c;
	int err;

	if (obj == NULL)
		return EINVAL;
	memset(&c, 0, sizeof(c));
	c.handle = obj->handle;
	switch (obj->kind) {
	case OBJ_DEVX:
		c.op = SWDEV_OP_DEVX_DESTROY;
		break;
	case OBJ_MATCHER:
		c.op = SWDEV_OP_STEER_DESTROY;
		c.arg2 = SWDEV_KIND_MATCHER;
		break;
	case OBJ_FLOW:
		c.op = SWDEV_OP_STEER_DESTROY;
		c.arg2 = SWDEV_KIND_FLOW;
		break;
	default:
		c.op = SWDEV_OP_VERBS_DESTROY;
		break;
	}
	err = do_call(obj->ctx, &c, NULL, 0, NULL, 0);
	if (err == 0)
		free(obj);
	return err;
}

int
swdev_general_cmd(struct swdev_ctx *ctx, const void *in, size_t inlen, void *out,
		  size_t outlen)
{
	struct call c = { .op = SWDEV_OP_DEVX_GENERAL };

	return do_call(ctx, &c, in, inlen, out, outlen);
}

void
swdev_get_export_sizes(struct swdev_export_sizes *sizes)
{
	if (sizes == NULL)
		return;
	memset(sizes, 0, sizeof(*sizes));
	/* VAR and umem export are not emulated: their sizes stay 0. */
	sizes->devx_obj_attrs_size = sizeof(struct mdevx_devx_obj_attrs);
}

int
swdev_obj_export(struct swdev_obj *obj, void *data)
{
	struct mdevx_devx_obj_attrs a;

	if (obj == NULL || data == NULL || obj->kind != OBJ_DEVX)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	a.handle = obj->handle;
	a.type = obj->type;
	a.object_id = obj->object_id;
	a.rx_icm_addr = obj->rx_icm_addr;
	a.log_obj_range = obj->log_obj_range;
	memcpy(data, &a, sizeof(a));
	return 0;
}

struct swdev_obj *
swdev_obj_import(struct swdev_ctx *ctx, const void *data)
{
	struct mdevx_devx_obj_attrs a;
	struct swdev_obj *obj;

	if (ctx == NULL || data == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(&a, data, sizeof(a));
	obj = obj_new(ctx, OBJ_DEVX, a.handle);
	if (obj == NULL)
		return NULL;
	obj->type = a.type;
	obj->object_id = a.object_id;
	obj->rx_icm_addr = a.rx_icm_addr;
	obj->log_obj_range = a.log_obj_range;
	return obj;
}

void
swdev_obj_unimport(struct swdev_obj *obj)
{
	free(obj);
}

static struct swdev_obj *
verbs_alloc(struct swdev_ctx *ctx, struct call *c, uint8_t kind, uint32_t *val)
{
	struct swdev_obj *obj;
	int err;

	err = do_call(ctx, c, NULL, 0, NULL, 0);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	obj = obj_new(ctx, kind, c->rep.handle);
	if (obj == NULL) {
		struct call d = { .op = SWDEV_OP_VERBS_DESTROY, .handle = c->rep.handle };

		do_call(ctx, &d, NULL, 0, NULL, 0);
		errno = ENOMEM;
		return NULL;
	}
	obj->object_id = c->rep.val;
	if (val != NULL)
		*val = c->rep.val;
	return obj;
}

struct swdev_obj *
swdev_pd_alloc(struct swdev_ctx *ctx, uint32_t *pdn)
{
	struct call c = { .op = SWDEV_OP_PD_ALLOC };

	return verbs_alloc(ctx, &c, OBJ_PD, pdn);
}

struct swdev_obj *
swdev_pd_import(struct swdev_ctx *ctx, uint32_t pd_handle, uint32_t *pdn)
{
	struct call c = { .op = SWDEV_OP_PD_IMPORT, .handle = pd_handle };
	struct swdev_obj *obj;
	int err;

	err = do_call(ctx, &c, NULL, 0, NULL, 0);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	obj = obj_new(ctx, OBJ_PD, pd_handle);
	if (obj == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	obj->object_id = c.rep.val;
	if (pdn != NULL)
		*pdn = c.rep.val;
	return obj;
}

struct swdev_obj *
swdev_uar_alloc(struct swdev_ctx *ctx, uint32_t *page_id)
{
	struct call c = { .op = SWDEV_OP_UAR_ALLOC };

	return verbs_alloc(ctx, &c, OBJ_UAR, page_id);
}

struct swdev_obj *
swdev_umem_reg(struct swdev_ctx *ctx, void *addr, size_t size, uint32_t access,
	       uint32_t *umem_id)
{
	struct call c = { .op = SWDEV_OP_UMEM_REG };

	c.arg0 = (uint64_t)(uintptr_t)addr;
	c.arg1 = (uint64_t)size;
	c.arg2 = access;
	return verbs_alloc(ctx, &c, OBJ_UMEM, umem_id);
}

int
swdev_query_eqn(struct swdev_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	struct call c = { .op = SWDEV_OP_QUERY_EQN };
	int err;

	if (eqn == NULL)
		return EINVAL;
	c.arg2 = vector;
	err = do_call(ctx, &c, NULL, 0, NULL, 0);
	if (err == 0)
		*eqn = c.rep.val;
	return err;
}

/*
 * A new steering object from a create reply, or NULL with errno (the
 * device's object is destroyed again when the local one cannot be made).
 */
static struct swdev_obj *
steer_obj(struct swdev_ctx *ctx, struct call *c, uint8_t kind, int err)
{
	struct swdev_obj *obj;

	if (err != 0) {
		errno = err;
		return NULL;
	}
	obj = obj_new(ctx, kind, c->rep.handle);
	if (obj == NULL) {
		struct call d = { .op = SWDEV_OP_STEER_DESTROY, .handle = c->rep.handle };

		d.arg2 = kind == OBJ_MATCHER ? SWDEV_KIND_MATCHER : SWDEV_KIND_FLOW;
		do_call(ctx, &d, NULL, 0, NULL, 0);
		errno = ENOMEM;
		return NULL;
	}
	return obj;
}

struct swdev_obj *
swdev_matcher_create(struct swdev_ctx *ctx, uint16_t priority, uint8_t match_criteria_enable,
		     const void *mask, size_t mask_len)
{
	struct call c = { .op = SWDEV_OP_MATCHER_CREATE };
	struct swdev_proto_matcher m;
	uint8_t *in;
	int err;

	/* The engine takes at most 512 bytes of mask; the frame is bounded anyway. */
	if (ctx == NULL || (mask_len > 0 && mask == NULL) ||
	    mask_len > SWDEV_PROTO_MAX_PAYLOAD - sizeof(m)) {
		errno = EINVAL;
		return NULL;
	}
	in = malloc(sizeof(m) + mask_len);
	if (in == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&m, 0, sizeof(m));
	m.priority = priority;
	m.match_criteria_enable = match_criteria_enable;
	memcpy(in, &m, sizeof(m));
	if (mask_len > 0)
		memcpy(in + sizeof(m), mask, mask_len);
	err = do_call(ctx, &c, in, sizeof(m) + mask_len, NULL, 0);
	free(in);
	return steer_obj(ctx, &c, OBJ_MATCHER, err);
}

struct swdev_obj *
swdev_flow_create(struct swdev_obj *matcher, const void *value, size_t value_len,
		  const struct swdev_flow_actions *act)
{
	struct call c = { .op = SWDEV_OP_FLOW_CREATE };
	struct swdev_flow_attr attr;
	uint8_t *in;
	int err;

	/*
	 * Local checks only (what rdma-core's types make impossible): the
	 * handles go to the daemon as they are and resolve in the matcher's
	 * uverbs file, as the kernel resolves them in the file of the ioctl.
	 */
	if (matcher == NULL || matcher->kind != OBJ_MATCHER || act == NULL ||
	    (value_len > 0 && value == NULL) ||
	    value_len > SWDEV_PROTO_MAX_PAYLOAD - sizeof(attr) ||
	    (act->dest == SWDEV_FLOW_DEST_DEVX) != (act->dest_obj != NULL) ||
	    (act->dest_obj != NULL && act->dest_obj->kind != OBJ_DEVX) ||
	    (act->counter != NULL && act->counter->kind != OBJ_DEVX)) {
		errno = EINVAL;
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.dest = act->dest;
	if (act->dest_obj != NULL)
		attr.dest_handle = act->dest_obj->handle;
	if (act->counter != NULL) {
		attr.has_counter = 1;
		attr.counter_handle = act->counter->handle;
		attr.counter_offset = act->counter_offset;
	}
	in = malloc(sizeof(attr) + value_len);
	if (in == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(in, &attr, sizeof(attr));
	if (value_len > 0)
		memcpy(in + sizeof(attr), value, value_len);
	c.handle = matcher->handle;
	err = do_call(matcher->ctx, &c, in, sizeof(attr) + value_len, NULL, 0);
	free(in);
	return steer_obj(matcher->ctx, &c, OBJ_FLOW, err);
}

uint32_t
swdev_obj_handle(const struct swdev_obj *obj)
{
	return obj != NULL ? obj->handle : 0;
}

int
swdev_flow_destroy_handle(struct swdev_ctx *ctx, uint32_t handle)
{
	struct call c = { .op = SWDEV_OP_STEER_DESTROY, .handle = handle };

	c.arg2 = SWDEV_KIND_FLOW;
	return do_call(ctx, &c, NULL, 0, NULL, 0);
}

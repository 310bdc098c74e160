/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: the methods of RDMA_VERBS_IOCTL
 * (one function per object and method), the attribute access they use, and
 * the method table with each method's attribute specs. The header and the
 * attributes are decoded and checked against the table in uverbs_ioctl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "swdev_types.h"
#include "swdev_uverbs.h"
#include "uverbs_priv.h"

/* Size of a PRM mailbox header (general_obj_in/out_cmd_hdr): the kernel's minimum. */
#define MBOX_HDR 16u
/* Mailboxes of at most this many bytes need no allocation. */
#define MBOX_STACK 4352u
/* mlx5_ib_match_params: the kernel's largest match mask / value. */
#define MATCH_MAX (MLX5_IB_DW_MATCH_PARAM * 4u)

/* ---- attribute access ---- */

static struct ib_uverbs_attr *
attr_of(struct bundle *b, uint16_t id)
{
	int i = uv_spec_of(b->m, id);

	if (i < 0 || b->slot[i] < 0)
		return NULL;
	return &b->ua[b->slot[i]];
}

static bool
has(struct bundle *b, uint16_t id)
{
	return attr_of(b, id) != NULL;
}

/* PTR_IN (or ENUM_IN) data into @p buf (at most @p size): its length, or -errno. */
static long
get_in(struct bundle *b, uint16_t id, void *buf, size_t size)
{
	struct ib_uverbs_attr *a = attr_of(b, id);
	int err;

	if (a == NULL)
		return -EINVAL;
	if (a->len > size)
		return -EINVAL;
	if (a->len <= sizeof(uint64_t)) {
		memcpy(buf, &a->data, a->len);
		return a->len;
	}
	err = uv_copy_in(buf, a->data, a->len);
	return err != 0 ? -err : (long)a->len;
}

/* A constant input (up to 8 bytes, little-endian) into *v; @p max bounds it. */
static int
get_const(struct bundle *b, uint16_t id, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	long n = get_in(b, id, &x, sizeof(x));

	if (n < 0)
		return (int)-n;
	if (n == 0 || x > max)
		return EINVAL;
	*v = x;
	return 0;
}

static uint32_t
get_handle(struct bundle *b, uint16_t id)
{
	struct ib_uverbs_attr *a = attr_of(b, id);

	return a != NULL ? (uint32_t)a->data : 0;
}

/* The caller's copy of attribute @p a's flags. */
static uint64_t
uflags_addr(const struct bundle *b, const struct ib_uverbs_attr *a)
{
	return b->uhdr + sizeof(b->hdr) + (uint64_t)(a - b->ua) * sizeof(*a) +
	       offsetof(struct ib_uverbs_attr, flags);
}

/*
 * Copy @p size bytes to a PTR_OUT (the rest of a longer buffer zeroed),
 * then mark it UVERBS_ATTR_F_VALID_OUTPUT in the caller's attribute, as
 * the kernel's uverbs_set_output() does: one write when the data fills it.
 */
static int
put_out(struct bundle *b, uint16_t id, const void *data, size_t size)
{
	struct ib_uverbs_attr *a = attr_of(b, id);
	uint8_t zero[256];
	uint16_t flags;
	size_t n, off;
	int err;

	if (a == NULL)
		return 0;
	n = a->len < size ? a->len : size;
	flags = a->flags | UVERBS_ATTR_F_VALID_OUTPUT;
	if (n == a->len) {
		err = uv_copy_out2(a->data, data, n, uflags_addr(b, a), &flags, sizeof(flags));
	} else {
		err = uv_copy_out(a->data, data, n);
		if (err == 0)
			memset(zero, 0, sizeof(zero));
		for (off = n; err == 0 && off < a->len; off += sizeof(zero))
			err = uv_copy_out(a->data + off, zero,
					  a->len - off < sizeof(zero) ? a->len - off : sizeof(zero));
		if (err == 0)
			err = uv_copy_out(uflags_addr(b, a), &flags, sizeof(flags));
	}
	if (err != 0)
		return err;
	a->flags = flags;
	return 0;
}

static int
put_u32(struct bundle *b, uint16_t id, uint32_t v)
{
	return put_out(b, id, &v, sizeof(v));
}

/* A new object's handle or descriptor, written back in its attribute. */
static void
set_new(struct bundle *b, uint16_t id, int64_t v)
{
	struct ib_uverbs_attr *a = attr_of(b, id);

	if (a == NULL)
		return;
	a->data_s64 = v;
	b->writeback = true;
}

static int
attr_len(struct bundle *b, uint16_t id)
{
	struct ib_uverbs_attr *a = attr_of(b, id);

	return a != NULL ? a->len : -1;
}

/* ---- methods ---- */

static int
m_invoke_write(struct bundle *b)
{
	uint8_t in[WBUF], out[WBUF];
	size_t req_sz, resp_sz;
	uint64_t cmd = 0;
	struct wcmd w;
	long n;
	int err, ci, co, ui, uo;

	err = get_const(b, UVERBS_ATTR_WRITE_CMD, UINT32_MAX, &cmd);
	if (err != 0)
		return err;
	if (uv_wcmd_sizes((uint32_t)cmd, &req_sz, &resp_sz) != 0)
		return EPROTONOSUPPORT;
	ci = attr_len(b, UVERBS_ATTR_CORE_IN);
	co = attr_len(b, UVERBS_ATTR_CORE_OUT);
	ui = attr_len(b, UVERBS_ATTR_UHW_IN);
	uo = attr_len(b, UVERBS_ATTR_UHW_OUT);
	/* Sizes below the command's: ENOSPC (the probe libibverbs makes). */
	if (ci < (int)req_sz || (resp_sz > 0 && co < (int)resp_sz))
		return ENOSPC;
	if (ci < 0)
		ci = 0;
	if (co < 0)
		co = 0;
	if (ui < 0)
		ui = 0;
	if (uo < 0)
		uo = 0;
	if ((size_t)ci + (size_t)ui > sizeof(in) || (size_t)co + (size_t)uo > sizeof(out))
		return EINVAL;
	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	if (ci > 0) {
		n = get_in(b, UVERBS_ATTR_CORE_IN, in, (size_t)ci);
		if (n < 0)
			return (int)-n;
	}
	if (ui > 0) {
		n = get_in(b, UVERBS_ATTR_UHW_IN, in + ci, (size_t)ui);
		if (n < 0)
			return (int)-n;
	}
	memset(&w, 0, sizeof(w));
	w.cmd = (uint32_t)cmd;
	/* Over ioctl the core request has no response pointer: it is CORE_OUT. */
	w.core_in = in;
	w.core_in_len = (size_t)ci;
	w.uhw_in = in + ci;
	w.uhw_in_len = (size_t)ui;
	w.core_out = out;
	w.core_out_cap = (size_t)co;
	w.uhw_out = out + co;
	w.uhw_out_cap = (size_t)uo;
	err = uv_wcmd_run(b->f, &w);
	if (err != 0)
		return err;
	if (w.core_out_len > 0)
		err = put_out(b, UVERBS_ATTR_CORE_OUT, w.core_out, w.core_out_len);
	if (err == 0 && w.uhw_out_len > 0)
		err = put_out(b, UVERBS_ATTR_UHW_OUT, w.uhw_out, w.uhw_out_len);
	return err;
}

static int
m_get_context(struct bundle *b)
{
	struct mlx5_ib_alloc_ucontext_resp m;
	uint8_t req[256];
	uint64_t core = 0;
	long n = 0;
	int err;

	err = uv_ucontext_begin(b->f);
	if (err != 0)
		return err;
	if (has(b, UVERBS_ATTR_UHW_IN)) {
		n = get_in(b, UVERBS_ATTR_UHW_IN, req, sizeof(req));
		if (n < 0)
			return (int)-n;
	}
	err = uv_check_ucontext_req(req, (size_t)n);
	if (err != 0)
		return err;
	uv_fill_ucontext_resp(&m);
	if (attr_len(b, UVERBS_ATTR_UHW_OUT) >= 0 &&
	    (size_t)attr_len(b, UVERBS_ATTR_UHW_OUT) < sizeof(m))
		m.response_length = (uint32_t)attr_len(b, UVERBS_ATTR_UHW_OUT);
	err = put_u32(b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, SWDEV_UVERBS_NUM_COMP_VECTORS);
	if (err == 0)
		err = put_out(b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &core, sizeof(core));
	if (err == 0)
		err = put_out(b, UVERBS_ATTR_UHW_OUT, &m, sizeof(m));
	if (err == 0)
		b->f->has_ctx = true;
	return err;
}

static int
m_query_context(struct bundle *b)
{
	struct mlx5_ib_alloc_ucontext_resp m;
	uint64_t core = 0;
	int err;

	if (!b->f->has_ctx)
		return EINVAL;
	uv_fill_ucontext_resp(&m);
	err = put_u32(b, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
		      SWDEV_UVERBS_NUM_COMP_VECTORS);
	if (err == 0)
		err = put_out(b, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &core, sizeof(core));
	if (err == 0)
		err = put_out(b, MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX, &m, sizeof(m));
	return err;
}

static int
m_query_port(struct bundle *b)
{
	struct ib_uverbs_query_port_resp_ex r;
	uint64_t port = 0;
	int err;

	err = get_const(b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, UINT8_MAX, &port);
	if (err != 0)
		return err;
	if (port != 1)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	uv_fill_query_port(&r.legacy_resp);
	return put_out(b, UVERBS_ATTR_QUERY_PORT_RESP, &r, sizeof(r));
}

static int
new_event_fd(struct bundle *b, uint16_t id)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return errno;
	set_new(b, id, fd);
	return 0;
}

static int
m_async_event_alloc(struct bundle *b)
{
	/* A real descriptor that never becomes readable: no async events. */
	return new_event_fd(b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
}

static int
m_async_cmd_fd_alloc(struct bundle *b)
{
	return new_event_fd(b, MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE);
}

static int
destroy_handle(struct bundle *b, uint16_t op, uint32_t handle, uint32_t kind)
{
	struct uv_call c;

	memset(&c, 0, sizeof(c));
	c.op = op;
	c.handle = handle;
	c.arg2 = kind;
	return uv_daemon_call(b->f, &c, NULL, 0, NULL, 0);
}

static int
m_pd_destroy(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_VERBS_DESTROY,
			      get_handle(b, UVERBS_ATTR_DESTROY_PD_HANDLE), VK(PD));
}

static int
m_pd_query(struct bundle *b)
{
	struct uv_call c;
	int err;

	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_PD_IMPORT;
	c.handle = get_handle(b, MLX5_IB_ATTR_QUERY_PD_HANDLE);
	err = uv_daemon_call(b->f, &c, NULL, 0, NULL, 0);
	if (err != 0)
		return err;
	return put_u32(b, MLX5_IB_ATTR_QUERY_PD_RESP_PDN, c.rep.val);
}

/* A DEVX mailbox command: in from @p in_id, out to @p out_id. */
static int
devx_cmd(struct bundle *b, struct uv_call *c, uint16_t in_id, uint16_t out_id, bool create,
	 uint16_t handle_id)
{
	struct ib_uverbs_attr *ain = attr_of(b, in_id), *aout = attr_of(b, out_id);
	/* Mailboxes up to a QUERY_HCA_CAP output stay on the stack. */
	uint8_t in_buf[MBOX_STACK], out_buf[MBOX_STACK];
	void *in = in_buf, *out = out_buf;
	long n;
	int err, err2;

	if (ain == NULL || aout == NULL)
		return EINVAL;
	if (ain->len > sizeof(in_buf))
		in = malloc(ain->len);
	if (aout->len > sizeof(out_buf))
		out = malloc(aout->len);
	if (in == NULL || out == NULL) {
		err = ENOMEM;
		goto out;
	}
	n = get_in(b, in_id, in, ain->len);
	if (n < 0) {
		err = (int)-n;
		goto out;
	}
	err = uv_daemon_call(b->f, c, in, (size_t)n, out, aout->len);
	/* The output mailbox goes back on success and on a firmware failure. */
	if ((err == 0 || err == EREMOTEIO) && c->rep.outlen > 0) {
		err2 = put_out(b, out_id, out, c->rep.outlen);
		if (err2 != 0) {
			if (create && err == 0) {
				struct uv_call d;

				memset(&d, 0, sizeof(d));
				d.op = SWDEV_OP_DEVX_DESTROY;
				d.handle = c->rep.handle;
				uv_daemon_call(b->f, &d, NULL, 0, NULL, 0);
			}
			err = err2;
		}
	}
	if (err == 0 && create)
		set_new(b, handle_id, c->rep.handle);
out:
	if (in != in_buf)
		free(in);
	if (out != out_buf)
		free(out);
	return err;
}

static int
m_devx_obj_create(struct bundle *b)
{
	struct uv_call c;

	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_DEVX_CREATE;
	return devx_cmd(b, &c, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN,
			MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, true,
			MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
}

static int
m_devx_obj_query(struct bundle *b)
{
	struct uv_call c;

	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_DEVX_QUERY;
	c.handle = get_handle(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE);
	return devx_cmd(b, &c, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN,
			MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, false, 0);
}

static int
m_devx_obj_modify(struct bundle *b)
{
	struct uv_call c;

	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_DEVX_MODIFY;
	c.handle = get_handle(b, MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE);
	return devx_cmd(b, &c, MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN,
			MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT, false, 0);
}

static int
m_devx_obj_destroy(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_DEVX_DESTROY,
			      get_handle(b, MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE), 0);
}

static int
m_devx_other(struct bundle *b)
{
	struct uv_call c;

	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_DEVX_GENERAL;
	return devx_cmd(b, &c, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT,
			false, 0);
}

static int
m_devx_query_eqn(struct bundle *b)
{
	struct uv_call c;
	uint32_t vec = 0;
	long n;
	int err;

	n = get_in(b, MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC, &vec, sizeof(vec));
	if (n < 0)
		return (int)-n;
	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_QUERY_EQN;
	c.arg2 = vec;
	err = uv_daemon_call(b->f, &c, NULL, 0, NULL, 0);
	if (err != 0)
		return err;
	return put_u32(b, MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN, c.rep.val);
}

static int
m_devx_query_uar(struct bundle *b)
{
	(void)b;
	return EINVAL;	/* no static UAR (tot_bfregs 0): no user index is valid */
}

static int
m_umem_reg(struct bundle *b)
{
	uint64_t addr = 0, len = 0, pgsz = 0;
	uint32_t access = 0;
	struct uv_call c;
	uint8_t probe;
	long n;
	int err;

	if (has(b, MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD))
		return EOPNOTSUPP;
	if ((n = get_in(b, MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR, &addr, sizeof(addr))) < 0 ||
	    (n = get_in(b, MLX5_IB_ATTR_DEVX_UMEM_REG_LEN, &len, sizeof(len))) < 0 ||
	    (n = get_in(b, MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS, &access, sizeof(access))) < 0)
		return (int)-n;
	if (has(b, MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP)) {
		n = get_in(b, MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP, &pgsz, sizeof(pgsz));
		if (n < 0)
			return (int)-n;
		if ((pgsz & (PAGE_BYTES | (PAGE_BYTES - 1))) == 0 && pgsz != 0 &&
		    (pgsz & ~(uint64_t)(PAGE_BYTES - 1)) == 0)
			return EINVAL;
	}
	if (access & ~(uint32_t)(IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
				  IB_UVERBS_ACCESS_REMOTE_READ | IB_UVERBS_ACCESS_REMOTE_ATOMIC |
				  IB_UVERBS_ACCESS_RELAXED_ORDERING))
		return EOPNOTSUPP;
	if (len == 0 || addr + len < addr)
		return EINVAL;
	/* The kernel pins the range: it must be the caller's memory. */
	if (uv_copy_in(&probe, addr, 1) != 0 || uv_copy_in(&probe, addr + len - 1, 1) != 0)
		return EFAULT;
	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_UMEM_REG;
	c.arg0 = addr;
	c.arg1 = len;
	c.arg2 = access;
	err = uv_daemon_call(b->f, &c, NULL, 0, NULL, 0);
	if (err != 0)
		return err;
	err = put_u32(b, MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID, c.rep.val);
	if (err != 0) {
		destroy_handle(b, SWDEV_OP_VERBS_DESTROY, c.rep.handle, VK(UMEM));
		return err;
	}
	set_new(b, MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE, c.rep.handle);
	return 0;
}

static int
m_umem_dereg(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_VERBS_DESTROY,
			      get_handle(b, MLX5_IB_ATTR_DEVX_UMEM_DEREG_HANDLE), VK(UMEM));
}

static int
m_uar_alloc(struct bundle *b)
{
	uint64_t type = 0, off;
	uint32_t length = PAGE_BYTES;
	struct uv_call c;
	int err;

	err = get_const(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, UINT32_MAX, &type);
	if (err != 0)
		return err;
	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF && type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return EINVAL;
	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_UAR_ALLOC;
	err = uv_daemon_call(b->f, &c, NULL, 0, NULL, 0);
	if (err != 0)
		return err;
	off = (UV_UAR_PGOFF_BASE + c.rep.handle) * PAGE_BYTES;
	err = put_out(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, &off, sizeof(off));
	if (err == 0)
		err = put_u32(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, length);
	if (err == 0)
		err = put_u32(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, c.rep.val);
	if (err != 0) {
		destroy_handle(b, SWDEV_OP_VERBS_DESTROY, c.rep.handle, VK(UAR));
		return err;
	}
	set_new(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, c.rep.handle);
	return 0;
}

static int
m_uar_destroy(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_VERBS_DESTROY,
			      get_handle(b, MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE), VK(UAR));
}

static int
m_matcher_create(struct bundle *b)
{
	struct swdev_proto_matcher m;
	uint8_t buf[sizeof(m) + MATCH_MAX];
	uint8_t crit = 0;
	uint16_t prio = 0;
	uint64_t v = 0;
	struct uv_call c;
	long n;
	int err;

	memset(&m, 0, sizeof(m));
	if (has(b, MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE)) {
		err = get_const(b, MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE, UINT32_MAX, &v);
		if (err != 0)
			return err;
		if (v != MLX5_IB_UAPI_FLOW_TABLE_TYPE_NIC_RX)
			return EOPNOTSUPP;	/* the device steers NIC RX only */
	}
	if (has(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS)) {
		err = get_const(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS, UINT32_MAX, &v);
		if (err != 0)
			return err;
		if (v != 0)
			return EOPNOTSUPP;
	}
	n = get_in(b, MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA, &crit, sizeof(crit));
	if (n < 0)
		return (int)-n;
	n = get_in(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE, &prio, sizeof(prio));
	if (n < 0)
		return (int)-n;
	m.priority = prio;
	m.match_criteria_enable = crit;
	memcpy(buf, &m, sizeof(m));
	n = get_in(b, MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK, buf + sizeof(m), MATCH_MAX);
	if (n < 0)
		return (int)-n;
	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_MATCHER_CREATE;
	err = uv_daemon_call(b->f, &c, buf, sizeof(m) + (size_t)n, NULL, 0);
	if (err != 0)
		return err;
	set_new(b, MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE, c.rep.handle);
	return 0;
}

static int
m_matcher_destroy(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_STEER_DESTROY,
			      get_handle(b, MLX5_IB_ATTR_FLOW_MATCHER_DESTROY_HANDLE),
			      SWDEV_KIND_MATCHER);
}

static int
m_create_flow(struct bundle *b)
{
	struct swdev_flow_attr fa;
	uint8_t buf[sizeof(fa) + MATCH_MAX];
	struct ib_uverbs_attr *a;
	struct uv_call c;
	uint64_t flags = 0;
	uint32_t off = 0;
	long n;
	int err;

	/* What the device has no model of: QPs, flow actions, flow tags. */
	if (has(b, MLX5_IB_ATTR_CREATE_FLOW_DEST_QP) ||
	    has(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS) ||
	    has(b, MLX5_IB_ATTR_CREATE_FLOW_TAG))
		return EOPNOTSUPP;
	memset(&fa, 0, sizeof(fa));
	if (has(b, MLX5_IB_ATTR_CREATE_FLOW_FLAGS)) {
		err = get_const(b, MLX5_IB_ATTR_CREATE_FLOW_FLAGS, UINT32_MAX, &flags);
		if (err != 0)
			return err;
		if (flags & ~(uint64_t)(MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS |
					MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP))
			return EINVAL;
		if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS)
			return EOPNOTSUPP;
	}
	if (has(b, MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX)) {
		if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP)
			return EINVAL;
		fa.dest = SWDEV_FLOW_DEST_DEVX;
		fa.dest_handle = get_handle(b, MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX);
	} else if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP) {
		fa.dest = SWDEV_FLOW_DEST_DROP;
	}
	a = attr_of(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX);
	if (a != NULL) {
		uint32_t h[2];

		if (a->len <= sizeof(uint64_t))
			memcpy(h, &a->data, a->len);
		else
			return EINVAL;	/* one counter object at most */
		fa.has_counter = 1;
		fa.counter_handle = h[0];
		if (has(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET)) {
			n = get_in(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET, &off,
				   sizeof(off));
			if (n < 0)
				return (int)-n;
			fa.counter_offset = off;
		}
	} else if (has(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET)) {
		return EINVAL;
	}
	memcpy(buf, &fa, sizeof(fa));
	n = get_in(b, MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE, buf + sizeof(fa), MATCH_MAX);
	if (n < 0)
		return (int)-n;
	memset(&c, 0, sizeof(c));
	c.op = SWDEV_OP_FLOW_CREATE;
	c.handle = get_handle(b, MLX5_IB_ATTR_CREATE_FLOW_MATCHER);
	err = uv_daemon_call(b->f, &c, buf, sizeof(fa) + (size_t)n, NULL, 0);
	if (err != 0)
		return err;
	set_new(b, MLX5_IB_ATTR_CREATE_FLOW_HANDLE, c.rep.handle);
	return 0;
}

static int
m_flow_destroy(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_STEER_DESTROY,
			      get_handle(b, UVERBS_ATTR_DESTROY_FLOW_HANDLE), SWDEV_KIND_FLOW);
}

static int
m_mlx5_destroy_flow(struct bundle *b)
{
	return destroy_handle(b, SWDEV_OP_STEER_DESTROY,
			      get_handle(b, MLX5_IB_ATTR_DESTROY_FLOW_HANDLE), SWDEV_KIND_FLOW);
}

/* ---- the method table ---- */

#define IN(i, mn, mx) { .id = (i), .type = T_PTR_IN, .mandatory = 1, .min_len = (mn), \
			.max_len = (mx) }
#define IN_OPT(i, mn, mx) { .id = (i), .type = T_PTR_IN, .min_len = (mn), .max_len = (mx) }
#define OUT(i, mn) { .id = (i), .type = T_PTR_OUT, .mandatory = 1, .min_len = (mn) }
#define OUT_OPT(i, mn) { .id = (i), .type = T_PTR_OUT, .min_len = (mn) }
#define IDR(i) { .id = (i), .type = T_IDR, .mandatory = 1 }
#define IDR_OPT(i) { .id = (i), .type = T_IDR }
#define FD(i) { .id = (i), .type = T_FD, .mandatory = 1 }
#define FD_OPT(i) { .id = (i), .type = T_FD }
#define ENUM(i, mx) { .id = (i), .type = T_ENUM, .mandatory = 1, .max_len = (mx) }
#define IDRS_OPT(i, mn, mx) { .id = (i), .type = T_IDRS, .min_len = (mn), .max_len = (mx) }
#define END { .id = 0xffff }

static const struct mspec methods[] = {
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, m_invoke_write, {
		IN(UVERBS_ATTR_WRITE_CMD, 1, 8),
		IN_OPT(UVERBS_ATTR_CORE_IN, 0, 0),
		OUT_OPT(UVERBS_ATTR_CORE_OUT, 0),
		IN_OPT(UVERBS_ATTR_UHW_IN, 0, 0),
		OUT_OPT(UVERBS_ATTR_UHW_OUT, 0),
		END }, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, m_get_context, {
		OUT_OPT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4),
		OUT_OPT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, 8),
		IN_OPT(UVERBS_ATTR_UHW_IN, 0, 0),
		OUT_OPT(UVERBS_ATTR_UHW_OUT, 0),
		END }, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, m_query_context, {
		OUT_OPT(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, 4),
		OUT_OPT(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, 8),
		OUT_OPT(MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX, 0),
		END }, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, m_query_port, {
		IN(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1, 8),
		OUT(UVERBS_ATTR_QUERY_PORT_RESP, sizeof(struct ib_uverbs_query_port_resp)),
		END }, false },
	{ UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC, m_async_event_alloc, {
		FD(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE),
		END }, false },
	{ UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, m_pd_destroy, {
		IDR(UVERBS_ATTR_DESTROY_PD_HANDLE),
		END }, false },
	{ UVERBS_OBJECT_PD, MLX5_IB_METHOD_PD_QUERY, m_pd_query, {
		IDR(MLX5_IB_ATTR_QUERY_PD_HANDLE),
		OUT(MLX5_IB_ATTR_QUERY_PD_RESP_PDN, 4),
		END }, false },
	{ UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY, m_flow_destroy, {
		IDR(UVERBS_ATTR_DESTROY_FLOW_HANDLE),
		END }, false },
	{ UVERBS_OBJECT_FLOW, MLX5_IB_METHOD_CREATE_FLOW, m_create_flow, {
		IDR(MLX5_IB_ATTR_CREATE_FLOW_HANDLE),
		IN(MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE, 1, MATCH_MAX),
		IDR(MLX5_IB_ATTR_CREATE_FLOW_MATCHER),
		IDR_OPT(MLX5_IB_ATTR_CREATE_FLOW_DEST_QP),
		IDR_OPT(MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX),
		IDRS_OPT(MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS, 1, 8),
		IN_OPT(MLX5_IB_ATTR_CREATE_FLOW_TAG, 4, 4),
		IDRS_OPT(MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX, 1, 1),
		IN_OPT(MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET, 4, 4),
		IN_OPT(MLX5_IB_ATTR_CREATE_FLOW_FLAGS, 4, 4),
		END }, false },
	{ UVERBS_OBJECT_FLOW, MLX5_IB_METHOD_DESTROY_FLOW, m_mlx5_destroy_flow, {
		IDR(MLX5_IB_ATTR_DESTROY_FLOW_HANDLE),
		END }, false },
	{ MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER, m_devx_other, {
		IN(MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, MBOX_HDR, 0),
		OUT(MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, MBOX_HDR),
		END }, true },
	{ MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_QUERY_EQN, m_devx_query_eqn, {
		IN(MLX5_IB_ATTR_DEVX_QUERY_EQN_USER_VEC, 4, 4),
		OUT(MLX5_IB_ATTR_DEVX_QUERY_EQN_DEV_EQN, 4),
		END }, false },
	{ MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_QUERY_UAR, m_devx_query_uar, {
		IN(MLX5_IB_ATTR_DEVX_QUERY_UAR_USER_IDX, 4, 4),
		OUT(MLX5_IB_ATTR_DEVX_QUERY_UAR_DEV_IDX, 4),
		END }, false },
	{ MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_CREATE, m_devx_obj_create, {
		IDR(MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE),
		IN(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN, MBOX_HDR, 0),
		OUT(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, MBOX_HDR),
		END }, true },
	{ MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_DESTROY, m_devx_obj_destroy, {
		IDR(MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE),
		END }, true },
	{ MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_MODIFY, m_devx_obj_modify, {
		IDR(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_HANDLE),
		IN(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_IN, MBOX_HDR, 0),
		OUT(MLX5_IB_ATTR_DEVX_OBJ_MODIFY_CMD_OUT, MBOX_HDR),
		END }, true },
	{ MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_QUERY, m_devx_obj_query, {
		IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE),
		IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN, MBOX_HDR, 0),
		OUT(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, MBOX_HDR),
		END }, true },
	{ MLX5_IB_OBJECT_DEVX_UMEM, MLX5_IB_METHOD_DEVX_UMEM_REG, m_umem_reg, {
		IDR(MLX5_IB_ATTR_DEVX_UMEM_REG_HANDLE),
		IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ADDR, 8, 8),
		IN(MLX5_IB_ATTR_DEVX_UMEM_REG_LEN, 8, 8),
		IN(MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS, 4, 4),
		OUT(MLX5_IB_ATTR_DEVX_UMEM_REG_OUT_ID, 4),
		IN_OPT(MLX5_IB_ATTR_DEVX_UMEM_REG_PGSZ_BITMAP, 8, 8),
		FD_OPT(MLX5_IB_ATTR_DEVX_UMEM_REG_DMABUF_FD),
		END }, false },
	{ MLX5_IB_OBJECT_DEVX_UMEM, MLX5_IB_METHOD_DEVX_UMEM_DEREG, m_umem_dereg, {
		IDR(MLX5_IB_ATTR_DEVX_UMEM_DEREG_HANDLE),
		END }, false },
	{ MLX5_IB_OBJECT_FLOW_MATCHER, MLX5_IB_METHOD_FLOW_MATCHER_CREATE, m_matcher_create, {
		IDR(MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE),
		IN(MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK, 1, MATCH_MAX),
		ENUM(MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE, 2),
		IN(MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA, 1, 1),
		IN_OPT(MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS, 1, 8),
		IN_OPT(MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE, 1, 8),
		END }, false },
	{ MLX5_IB_OBJECT_FLOW_MATCHER, MLX5_IB_METHOD_FLOW_MATCHER_DESTROY, m_matcher_destroy, {
		IDR(MLX5_IB_ATTR_FLOW_MATCHER_DESTROY_HANDLE),
		END }, false },
	{ MLX5_IB_OBJECT_DEVX_ASYNC_CMD_FD, MLX5_IB_METHOD_DEVX_ASYNC_CMD_FD_ALLOC,
	  m_async_cmd_fd_alloc, {
		FD(MLX5_IB_ATTR_DEVX_ASYNC_CMD_FD_ALLOC_HANDLE),
		END }, false },
	{ MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC, m_uar_alloc, {
		IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE),
		IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, 1, 8),
		OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, 8),
		OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, 4),
		OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, 4),
		END }, false },
	{ MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_DESTROY, m_uar_destroy, {
		IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE),
		END }, false },
};

/* Objects the device has: an unknown method of one of them is EPROTONOSUPPORT too. */
const struct mspec *
uv_find_method(uint16_t object, uint16_t method)
{
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].object == object && methods[i].method == method)
			return &methods[i];
	return NULL;
}

int
uv_spec_of(const struct mspec *m, uint16_t id)
{
	unsigned int i;

	/* one pass: the END entry's id (0xffff) is no attribute's */
	for (i = 0; i < MAX_SPEC && m->attrs[i].id != 0xffff; i++)
		if (m->attrs[i].id == id)
			return (int)i;
	return -1;
}

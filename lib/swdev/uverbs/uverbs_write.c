/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: the device as queried (device,
 * port and context attributes, answered locally) and the legacy write()
 * commands of a uverbs file (also reached through INVOKE_WRITE, see
 * uverbs_methods.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "swdev_types.h"
#include "swdev_uverbs.h"
#include "uverbs_priv.h"

/* ---- the device as queried ---- */

static uint64_t
node_guid_be(const struct uv_file *f)
{
	return __builtin_bswap64(swdev_uverbs_node_guid(f->devname));
}

static void
fill_query_device(const struct uv_file *f, struct ib_uverbs_query_device_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->fw_ver = ((uint64_t)SWDEV_UVERBS_FW_MAJOR << 32) |
		    ((uint64_t)SWDEV_UVERBS_FW_MINOR << 16) | SWDEV_UVERBS_FW_SUBMINOR;
	r->node_guid = node_guid_be(f);
	r->sys_image_guid = node_guid_be(f);
	r->max_mr_size = ~0ull;
	r->page_size_cap = ~(uint64_t)(PAGE_BYTES - 1);
	r->vendor_id = SWDEV_UVERBS_IB_VENDOR;
	r->vendor_part_id = SWDEV_UVERBS_VENDOR_PART;
	r->hw_ver = 0;
	r->max_qp = 1u << 18;
	r->max_qp_wr = 1u << 15;
	r->max_sge = 30;
	r->max_cq = 1u << 24;
	r->max_cqe = (1u << 22) - 1;
	r->max_mr = 1u << 24;
	r->max_pd = 1u << 24;
	r->max_srq = 1u << 23;
	r->max_srq_wr = (1u << 15) - 1;
	r->max_srq_sge = 31;
	r->max_pkeys = 128;
	r->local_ca_ack_delay = 16;
	r->phys_port_cnt = 1;
}

void
uv_fill_query_port(struct ib_uverbs_query_port_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->port_cap_flags = 0x04010000u;	/* IP based GIDs, CM */
	r->max_msg_sz = 1u << 30;
	r->gid_tbl_len = 1;
	r->pkey_tbl_len = 1;
	r->state = 4;		/* IBV_PORT_ACTIVE */
	r->max_mtu = 5;		/* IBV_MTU_4096 */
	r->active_mtu = 3;	/* IBV_MTU_1024 (an Ethernet MTU of 1500) */
	r->max_vl_num = 1;
	r->active_width = 2;	/* 4X */
	r->active_speed = 32;	/* EDR */
	r->phys_state = 5;	/* LinkUp */
	r->link_layer = 2;	/* IBV_LINK_LAYER_ETHERNET */
}

void
uv_fill_ucontext_resp(struct mlx5_ib_alloc_ucontext_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->qp_tab_size = 1u << 18;
	r->bf_reg_size = 512;
	r->tot_bfregs = 0;		/* dynamic UARs only */
	r->cache_line_size = 64;
	r->max_sq_desc_sz = 512;
	r->max_rq_desc_sz = 512;
	r->max_send_wqebb = 1u << 15;
	r->max_recv_wr = 1u << 15;
	r->max_srq_recv_wr = 1u << 15;
	r->num_ports = 1;
	r->response_length = sizeof(*r);
	r->cqe_version = 1;
	r->eth_min_inline = MLX5_USER_INLINE_MODE_NONE;
	r->log_uar_size = 12;
	r->num_uars_per_page = 1;
}

/* The mlx5 request of GET_CONTEXT, checked as the kernel checks it. */
int
uv_check_ucontext_req(const uint8_t *in, size_t len)
{
	struct mlx5_ib_alloc_ucontext_req_v2 req;
	size_t i;

	if (len < offsetof(struct mlx5_ib_alloc_ucontext_req_v2, max_cqe_version))
		return EINVAL;
	memset(&req, 0, sizeof(req));
	memcpy(&req, in, len < sizeof(req) ? len : sizeof(req));
	for (i = sizeof(req); i < len; i++)
		if (in[i] != 0)
			return EOPNOTSUPP;
	if (req.flags & ~(uint32_t)MLX5_IB_ALLOC_UCTX_DEVX)
		return EOPNOTSUPP;
	if (req.comp_mask != 0 || req.reserved0 != 0 || req.reserved1 != 0 || req.reserved2 != 0)
		return EOPNOTSUPP;
	if (req.lib_caps & ~(uint64_t)(MLX5_LIB_CAP_4K_UAR | MLX5_LIB_CAP_DYN_UAR))
		return EOPNOTSUPP;
	return 0;
}

/* ---- write() commands (also reached through INVOKE_WRITE) ---- */

/* Request and response sizes of the write methods served (0: none). */
int
uv_wcmd_sizes(uint32_t cmd, size_t *req, size_t *resp)
{
	switch (cmd) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		*req = sizeof(struct ib_uverbs_get_context);
		*resp = sizeof(struct ib_uverbs_get_context_resp);
		return 0;
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
		*req = sizeof(struct ib_uverbs_query_device);
		*resp = sizeof(struct ib_uverbs_query_device_resp);
		return 0;
	case IB_USER_VERBS_CMD_QUERY_PORT:
		*req = sizeof(struct ib_uverbs_query_port);
		*resp = sizeof(struct ib_uverbs_query_port_resp);
		return 0;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		*req = sizeof(struct ib_uverbs_alloc_pd);
		*resp = sizeof(struct ib_uverbs_alloc_pd_resp);
		return 0;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		*req = sizeof(struct ib_uverbs_dealloc_pd);
		*resp = 0;
		return 0;
	case IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE:
		*req = sizeof(struct ib_uverbs_ex_query_device);
		*resp = offsetof(struct ib_uverbs_ex_query_device_resp, comp_mask) + 8;
		return 0;
	case IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW:
		*req = sizeof(struct ib_uverbs_destroy_flow);
		*resp = 0;
		return 0;
	default:
		return EOPNOTSUPP;
	}
}

int
uv_ucontext_begin(struct uv_file *f)
{
	return f->has_ctx ? EINVAL : 0;
}

int
uv_wcmd_run(struct uv_file *f, struct wcmd *w)
{
	struct uv_call c;
	int err, fd;

	memset(&c, 0, sizeof(c));
	switch (w->cmd) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp r;
		struct mlx5_ib_alloc_ucontext_resp m;

		err = uv_ucontext_begin(f);
		if (err == 0)
			err = uv_check_ucontext_req(w->uhw_in, w->uhw_in_len);
		if (err != 0)
			return err;
		fd = eventfd(0, EFD_CLOEXEC);
		if (fd < 0)
			return errno;
		r.async_fd = (uint32_t)fd;
		r.num_comp_vectors = SWDEV_UVERBS_NUM_COMP_VECTORS;
		memcpy(w->core_out, &r, sizeof(r));
		w->core_out_len = sizeof(r);
		uv_fill_ucontext_resp(&m);
		w->uhw_out_len = w->uhw_out_cap < sizeof(m) ? w->uhw_out_cap : sizeof(m);
		m.response_length = (uint32_t)w->uhw_out_len;
		memcpy(w->uhw_out, &m, w->uhw_out_len);
		f->has_ctx = true;
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r;

		fill_query_device(f, &r);
		memcpy(w->core_out, &r, sizeof(r));
		w->core_out_len = sizeof(r);
		return 0;
	}
	case IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE: {
		struct ib_uverbs_ex_query_device q;
		struct ib_uverbs_ex_query_device_resp r;

		memcpy(&q, w->core_in, sizeof(q));
		if (q.comp_mask != 0 || q.reserved != 0)
			return EINVAL;
		memset(&r, 0, sizeof(r));
		fill_query_device(f, &r.base);
		r.rss_caps.supported_qpts = 1u << 8;	/* IB_QPT_RAW_PACKET */
		r.rss_caps.max_rwq_indirection_tables = 1u << 16;
		r.rss_caps.max_rwq_indirection_table_size = 1u << 16;
		r.max_wq_type_rq = 1u << 18;
		w->core_out_len = w->core_out_cap < sizeof(r) ? w->core_out_cap : sizeof(r);
		r.response_length = (uint32_t)w->core_out_len;
		memcpy(w->core_out, &r, w->core_out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port q;
		struct ib_uverbs_query_port_resp r;

		memcpy(&q, w->core_in, sizeof(q));
		if (q.port_num != 1)
			return EINVAL;
		uv_fill_query_port(&r);
		memcpy(w->core_out, &r, sizeof(r));
		w->core_out_len = sizeof(r);
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r;
		struct mlx5_ib_alloc_pd_resp m;

		c.op = SWDEV_OP_PD_ALLOC;
		err = uv_daemon_call(f, &c, NULL, 0, NULL, 0);
		if (err != 0)
			return err;
		r.pd_handle = c.rep.handle;
		memcpy(w->core_out, &r, sizeof(r));
		w->core_out_len = sizeof(r);
		m.pdn = c.rep.val;
		w->uhw_out_len = w->uhw_out_cap < sizeof(m) ? w->uhw_out_cap : sizeof(m);
		memcpy(w->uhw_out, &m, w->uhw_out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD: {
		struct ib_uverbs_dealloc_pd q;

		memcpy(&q, w->core_in, sizeof(q));
		c.op = SWDEV_OP_VERBS_DESTROY;
		c.handle = q.pd_handle;
		c.arg2 = VK(PD);
		return uv_daemon_call(f, &c, NULL, 0, NULL, 0);
	}
	case IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW: {
		struct ib_uverbs_destroy_flow q;

		memcpy(&q, w->core_in, sizeof(q));
		if (q.comp_mask != 0)
			return EINVAL;
		c.op = SWDEV_OP_STEER_DESTROY;
		c.handle = q.flow_handle;
		c.arg2 = SWDEV_KIND_FLOW;
		return uv_daemon_call(f, &c, NULL, 0, NULL, 0);
	}
	default:
		return EOPNOTSUPP;
	}
}

ssize_t
uv_write_cmd(struct uv_file *f, const void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr h;
	struct ib_uverbs_ex_cmd_hdr ex;
	uint8_t in[WBUF], out[WBUF];
	size_t req_sz, resp_sz, body, core_in, core_out, drv_in, drv_out;
	uint64_t resp_ptr = 0;
	struct wcmd w;
	bool extended;
	int err;

	if (f->broken) {
		errno = EIO;
		return -1;
	}
	if (len < sizeof(h) || uv_copy_in(&h, (uint64_t)(uintptr_t)buf, sizeof(h)) != 0) {
		errno = len < sizeof(h) ? EINVAL : EFAULT;
		return -1;
	}
	extended = (h.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) != 0;
	if ((h.command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK)) ||
	    uv_wcmd_sizes(h.command, &req_sz, &resp_sz) != 0) {
		uv_log("%s: write command %#x not served", f->devname, h.command);
		errno = extended ? ENOSYS : ENOSYS;
		return -1;
	}
	if (!extended) {
		if ((size_t)h.in_words * 4 != len) {
			errno = EINVAL;
			return -1;
		}
		body = len - sizeof(h);
		core_in = body < req_sz ? body : req_sz;
		drv_in = body - core_in;
		if (body < req_sz || (resp_sz > 0 && (size_t)h.out_words * 4 < resp_sz)) {
			errno = ENOSPC;
			return -1;
		}
		core_out = resp_sz;
		drv_out = resp_sz > 0 ? (size_t)h.out_words * 4 - resp_sz : 0;
	} else {
		if (len < sizeof(h) + sizeof(ex) ||
		    uv_copy_in(&ex, (uint64_t)(uintptr_t)buf + sizeof(h), sizeof(ex)) != 0) {
			errno = len < sizeof(h) + sizeof(ex) ? EINVAL : EFAULT;
			return -1;
		}
		if (ex.cmd_hdr_reserved != 0 ||
		    len != sizeof(h) + sizeof(ex) +
			   ((size_t)h.in_words + ex.provider_in_words) * 8) {
			errno = EINVAL;
			return -1;
		}
		core_in = (size_t)h.in_words * 8;
		drv_in = (size_t)ex.provider_in_words * 8;
		core_out = (size_t)h.out_words * 8;
		drv_out = (size_t)ex.provider_out_words * 8;
		if (core_in < req_sz || core_out < resp_sz) {
			errno = ENOSPC;
			return -1;
		}
		resp_ptr = ex.response;
		body = core_in + drv_in;
	}
	if (body > sizeof(in) || core_out + drv_out > sizeof(out)) {
		errno = EINVAL;
		return -1;
	}
	if (uv_copy_in(in, (uint64_t)(uintptr_t)buf + len - body, body) != 0) {
		errno = EFAULT;
		return -1;
	}
	/* Legacy commands carry the response pointer first in the body. */
	if (!extended && resp_sz > 0)
		memcpy(&resp_ptr, in, sizeof(resp_ptr));
	memset(out, 0, sizeof(out));
	memset(&w, 0, sizeof(w));
	w.cmd = h.command;
	w.core_in = in;
	w.core_in_len = core_in;
	w.uhw_in = in + core_in;
	w.uhw_in_len = drv_in;
	w.core_out = out;
	w.core_out_cap = core_out;
	w.uhw_out = out + core_out;
	w.uhw_out_cap = drv_out;
	err = uv_wcmd_run(f, &w);
	if (err == 0 && core_out + drv_out > 0 &&
	    uv_copy_out(resp_ptr, out, core_out + drv_out) != 0)
		err = EFAULT;
	if (err != 0) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * What a TIR needs: transport domain, PD, UAR, umem, EQN, CQ, RQ, RQT.
 * CQ and RQ own their buffers, doorbell records, umems (and the CQ its UAR
 * page); those are internal wrappers, not registered, released with the
 * queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

#define PAGE_SZ 4096u
/* IBV_ACCESS_LOCAL_WRITE: the device writes CQEs / doorbells there. */
#define UMEM_ACCESS 1u
/* CQE byte 63 (op_own) of a never-written CQE: invalid opcode, owner 1. */
#define CQE_SZ 64u
#define CQE_OP_OWN_INIT 0xf1

MDEVX_API struct mdevx_obj *
mdevx_td_alloc(struct mdevx_ctx *ctx)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_transport_domain_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_transport_domain_out)];
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &bobj);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(ctx, MDEVX_OBJ_TD, bobj,
			     MDEVX_GET(alloc_transport_domain_out, out, transport_domain));
	return obj == NULL ? NULL : mdevx_obj_finish(obj);
}

/* Unregistered PD / UAR / umem wrappers (also used inside CQ and RQ). */
static struct mdevx_obj *
pd_new(struct mdevx_ctx *ctx)
{
	uint32_t pdn = 0;
	void *bobj;
	int rc = ctx->ops->pd_alloc(ctx->bctx, &bobj, &pdn);

	if (rc != 0) {
		mdevx_cmd_fail(0, "PD allocation", rc);
		mdevx_set_errno(rc);
		return NULL;
	}
	return mdevx_obj_wrap(ctx, MDEVX_OBJ_PD, bobj, pdn);
}

static struct mdevx_obj *
uar_new(struct mdevx_ctx *ctx)
{
	uint32_t page = 0;
	void *bobj;
	int rc = ctx->ops->uar_alloc(ctx->bctx, &bobj, &page);

	if (rc != 0) {
		mdevx_cmd_fail(0, "UAR allocation", rc);
		mdevx_set_errno(rc);
		return NULL;
	}
	return mdevx_obj_wrap(ctx, MDEVX_OBJ_UAR, bobj, page);
}

static struct mdevx_obj *
umem_new(struct mdevx_ctx *ctx, void *addr, size_t size, uint32_t access)
{
	uint32_t id = 0;
	void *bobj;
	int rc = ctx->ops->umem_reg(ctx->bctx, addr, size, access, &bobj, &id);

	if (rc != 0) {
		mdevx_cmd_fail(0, "umem registration", rc);
		mdevx_set_errno(rc);
		return NULL;
	}
	return mdevx_obj_wrap(ctx, MDEVX_OBJ_UMEM, bobj, id);
}

MDEVX_API struct mdevx_obj *
mdevx_pd_alloc(struct mdevx_ctx *ctx)
{
	struct mdevx_obj *obj;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	obj = pd_new(ctx);
	return obj == NULL ? NULL : mdevx_obj_finish(obj);
}

MDEVX_API struct mdevx_obj *
mdevx_uar_alloc(struct mdevx_ctx *ctx)
{
	struct mdevx_obj *obj;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	obj = uar_new(ctx);
	return obj == NULL ? NULL : mdevx_obj_finish(obj);
}

MDEVX_API struct mdevx_obj *
mdevx_umem_reg(struct mdevx_ctx *ctx, void *addr, size_t size, uint32_t access)
{
	struct mdevx_obj *obj;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (addr == NULL || size == 0) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	obj = umem_new(ctx, addr, size, access);
	return obj == NULL ? NULL : mdevx_obj_finish(obj);
}

MDEVX_API int
mdevx_query_eqn(struct mdevx_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	int rc;

	if (eqn == NULL)
		return mdevx_ret(EINVAL);
	if (!mdevx_ctx_valid(ctx))
		return -errno;
	rc = ctx->ops->query_eqn(ctx->bctx, vector, eqn);
	if (rc != 0) {
		mdevx_cmd_fail(0, "EQN query", rc);
		return mdevx_ret(rc);
	}
	return 0;
}

/* Page-aligned zeroed buffer of at least @p size bytes. */
static void *
page_alloc(size_t size, size_t *alloc_size)
{
	size_t sz = (size + PAGE_SZ - 1) & ~(size_t)(PAGE_SZ - 1);
	void *p = aligned_alloc(PAGE_SZ, sz);

	if (p != NULL)
		memset(p, 0, sz);
	*alloc_size = sz;
	return p;
}

/* Allocate and register the queue buffer and doorbell page of @p q. */
static int
queue_mem(struct mdevx_ctx *ctx, struct mdevx_obj *q, size_t buf_size)
{
	size_t bsz, dsz;

	q->buf = page_alloc(buf_size, &bsz);
	q->dbr = page_alloc(64, &dsz);
	if (q->buf == NULL || q->dbr == NULL)
		return ENOMEM;
	q->buf_umem = umem_new(ctx, q->buf, bsz, UMEM_ACCESS);
	if (q->buf_umem == NULL)
		return errno;
	q->dbr_umem = umem_new(ctx, q->dbr, dsz, UMEM_ACCESS);
	if (q->dbr_umem == NULL)
		return errno;
	return 0;
}

MDEVX_API struct mdevx_obj *
mdevx_cq_create(struct mdevx_ctx *ctx, const struct mdevx_cq_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(create_cq_out)];
	struct mdevx_obj *cq;
	uint32_t eqn = 0, i, ncqe;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (attr == NULL || attr->log_cq_size == 0 || attr->log_cq_size > 24 ||
	    (ctx->caps.log_max_cq_sz != 0 && attr->log_cq_size > ctx->caps.log_max_cq_sz)) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	cq = mdevx_obj_new(ctx, MDEVX_OBJ_CQ, NULL, 0, false);
	if (cq == NULL)
		return NULL;
	ncqe = 1u << attr->log_cq_size;
	rc = queue_mem(ctx, cq, (size_t)ncqe * CQE_SZ);
	if (rc == 0) {
		for (i = 0; i < ncqe; i++)
			((uint8_t *)cq->buf)[i * CQE_SZ + CQE_SZ - 1] = CQE_OP_OWN_INIT;
		cq->uar = uar_new(ctx);
		if (cq->uar == NULL)
			rc = errno;
	}
	if (rc == 0) {
		rc = ctx->ops->query_eqn(ctx->bctx, attr->eq_vector, &eqn);
		if (rc != 0)
			mdevx_cmd_fail(0, "EQN query", rc);
	}
	if (rc != 0)
		goto fail;
	MDEVX_SET(create_cq_in, in, opcode, MDEVX_CMD_OP_CREATE_CQ);
	MDEVX_SET(create_cq_in, in, cq_context.cqe_sz, MDEVX_CQE_SZ_64);
	MDEVX_SET(create_cq_in, in, cq_context.log_cq_size, attr->log_cq_size);
	MDEVX_SET(create_cq_in, in, cq_context.uar_page, cq->uar->id);
	MDEVX_SET(create_cq_in, in, cq_context.c_eqn_or_apu_element, eqn);
	MDEVX_SET(create_cq_in, in, cq_context.log_page_size, 0);	/* 4 KiB */
	MDEVX_SET(create_cq_in, in, cq_context.dbr_umem_valid, 1);
	MDEVX_SET(create_cq_in, in, cq_context.dbr_umem_id, cq->dbr_umem->id);
	MDEVX_SET64(create_cq_in, in, cq_context.dbr_addr, 0);
	MDEVX_SET(create_cq_in, in, cq_umem_valid, 1);
	MDEVX_SET(create_cq_in, in, cq_umem_id, cq->buf_umem->id);
	MDEVX_SET64(create_cq_in, in, cq_umem_offset, 0);
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &cq->bobj);
	if (rc != 0)
		goto fail;
	cq->id = MDEVX_GET(create_cq_out, out, cqn);
	return mdevx_obj_finish(cq);
fail:
	mdevx_obj_free_owned(cq);
	free(cq);
	mdevx_set_errno(rc);
	return NULL;
}

/* Check an object argument of a create call: live, kind, context. */
static int
check_arg(const struct mdevx_ctx *ctx, const struct mdevx_obj *o, enum mdevx_obj_kind kind)
{
	int rc = mdevx_obj_check(o, kind);

	if (rc != 0)
		return rc;
	return o->ctx == ctx ? 0 : EXDEV;
}

MDEVX_API struct mdevx_obj *
mdevx_rq_create(struct mdevx_ctx *ctx, const struct mdevx_rq_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_rq_in)] = { 0 };
	uint8_t min[MDEVX_ST_SZ_BYTES(modify_rq_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(create_rq_out)];
	uint8_t mout[MDEVX_ST_SZ_BYTES(modify_rq_out)];
	struct mdevx_obj *rq;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (attr == NULL || attr->log_wq_size == 0 || attr->log_wq_size > 24 ||
	    attr->log_wq_stride < 4 || attr->log_wq_stride > 11 ||
	    attr->user_index > 0xffffff ||
	    (ctx->caps.log_max_wq_sz != 0 && attr->log_wq_size > ctx->caps.log_max_wq_sz)) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	rc = check_arg(ctx, attr->cq, MDEVX_OBJ_CQ);
	if (rc == 0)
		rc = check_arg(ctx, attr->pd, MDEVX_OBJ_PD);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	rq = mdevx_obj_new(ctx, MDEVX_OBJ_RQ, NULL, 0, false);
	if (rq == NULL)
		return NULL;
	rc = queue_mem(ctx, rq, (size_t)1 << (attr->log_wq_size + attr->log_wq_stride));
	if (rc != 0)
		goto fail;
	MDEVX_SET(create_rq_in, in, opcode, MDEVX_CMD_OP_CREATE_RQ);
	MDEVX_SET(create_rq_in, in, ctx.mem_rq_type, MDEVX_RQC_MEM_RQ_TYPE_INLINE);
	MDEVX_SET(create_rq_in, in, ctx.state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(create_rq_in, in, ctx.flush_in_error_en, 1);
	MDEVX_SET(create_rq_in, in, ctx.user_index, attr->user_index);
	MDEVX_SET(create_rq_in, in, ctx.cqn, attr->cq->id);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_type, MDEVX_WQ_TYPE_CYCLIC);
	MDEVX_SET(create_rq_in, in, ctx.wq.pd, attr->pd->id);
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_stride, attr->log_wq_stride);
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_pg_sz, 0);	/* 4 KiB */
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_sz, attr->log_wq_size);
	MDEVX_SET(create_rq_in, in, ctx.wq.dbr_umem_valid, 1);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_umem_valid, 1);
	MDEVX_SET(create_rq_in, in, ctx.wq.dbr_umem_id, rq->dbr_umem->id);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_umem_id, rq->buf_umem->id);
	MDEVX_SET64(create_rq_in, in, ctx.wq.wq_umem_offset, 0);
	MDEVX_SET64(create_rq_in, in, ctx.wq.dbr_addr, 0);
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &rq->bobj);
	if (rc != 0)
		goto fail;
	rq->id = MDEVX_GET(create_rq_out, out, rqn);
	/* RST -> RDY. */
	MDEVX_SET(modify_rq_in, min, opcode, MDEVX_CMD_OP_MODIFY_RQ);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(modify_rq_in, min, rqn, rq->id);
	MDEVX_SET64(modify_rq_in, min, modify_bitmask, 0);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_RDY);
	rc = mdevx_cmd_modify(rq, min, sizeof(min), mout, sizeof(mout));
	if (rc != 0) {
		ctx->ops->obj_destroy(rq->bobj);
		goto fail;
	}
	return mdevx_obj_finish(rq);
fail:
	mdevx_obj_free_owned(rq);
	free(rq);
	mdevx_set_errno(rc);
	return NULL;
}

MDEVX_API struct mdevx_obj *
mdevx_rqt_create(struct mdevx_ctx *ctx, struct mdevx_obj *const *rqs, uint32_t n_rqs)
{
	uint8_t out[MDEVX_ST_SZ_BYTES(create_rqt_out)];
	struct mdevx_obj *obj;
	uint32_t size, i, max;
	uint8_t *in, *entries;
	size_t inlen;
	void *bobj;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (rqs == NULL || n_rqs == 0 || n_rqs > (1u << 16)) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	for (i = 0; i < n_rqs; i++) {
		rc = check_arg(ctx, rqs[i], MDEVX_OBJ_RQ);
		if (rc != 0) {
			mdevx_set_errno(rc);
			return NULL;
		}
	}
	for (size = 1; size < n_rqs; size <<= 1)
		;
	max = ctx->caps.log_max_rqt_size >= 31 ? UINT32_MAX : 1u << ctx->caps.log_max_rqt_size;
	if (size > max || size > 0xffff) {
		MDEVX_LOG(ERR, "%s: RQT of %u entries (%u RQs) exceeds the device maximum %u",
			  ctx->devstr, size, n_rqs, max);
		mdevx_set_errno(ENOTSUP);
		return NULL;
	}
	inlen = MDEVX_ST_SZ_BYTES(create_rqt_in) + (size_t)size * MDEVX_ST_SZ_BYTES(rq_num);
	in = calloc(1, inlen);
	if (in == NULL) {
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	MDEVX_SET(create_rqt_in, in, opcode, MDEVX_CMD_OP_CREATE_RQT);
	MDEVX_SET(create_rqt_in, in, rqt_context.list_q_type, MDEVX_RQTC_LIST_Q_TYPE_RQ);
	MDEVX_SET(create_rqt_in, in, rqt_context.rqt_max_size, size);
	MDEVX_SET(create_rqt_in, in, rqt_context.rqt_actual_size, size);
	entries = MDEVX_ADDR_OF(create_rqt_in, in, rqt_context.rq_num);
	/* Pad to the power of two by repeating the list. */
	for (i = 0; i < size; i++)
		MDEVX_SET(rq_num, entries + i * MDEVX_ST_SZ_BYTES(rq_num), rq_num,
			  rqs[i % n_rqs]->id);
	rc = mdevx_cmd_create(ctx, in, inlen, out, sizeof(out), &bobj);
	free(in);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(ctx, MDEVX_OBJ_RQT, bobj, MDEVX_GET(create_rqt_out, out, rqtn));
	return obj == NULL ? NULL : mdevx_obj_finish(obj);
}

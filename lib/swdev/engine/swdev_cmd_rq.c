/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: CREATE_RQ, MODIFY_RQ, QUERY_RQ (DESTROY_RQ
 * is the prebuilt destroy command). A DEVX RQ is an inline (not RMP),
 * non-hairpin RQ in umem: the kernel forces wq.wq_umem_valid and
 * wq.dbr_umem_valid, so the WQ buffer is wq_umem_id at wq_umem_offset and
 * the doorbell record is dbr_umem_id at dbr_addr.
 */

#include "swdev_engine_priv.h"

#define RQ_BITMASK_KNOWN (MDEVX_MODIFY_RQ_BITMASK_WQ_LWM | MDEVX_MODIFY_RQ_BITMASK_VSD | \
			  MDEVX_MODIFY_RQ_BITMASK_SCATTER_FCS | \
			  MDEVX_MODIFY_RQ_BITMASK_RQ_COUNTER_SET_ID)

static bool
fits(const struct swdev_obj *umem, uint64_t off, uint64_t len)
{
	return off <= umem->u.umem.size && len <= umem->u.umem.size - off;
}

/* Keep the fields of the context that the device uses, as queried back. */
static void
store_rqc(uint8_t *st, const uint8_t *rqc)
{
	SWDEV_COPY_FLD(rqc, st, rqc, rlky);
	SWDEV_COPY_FLD(rqc, st, rqc, delay_drop_en);
	SWDEV_COPY_FLD(rqc, st, rqc, scatter_fcs);
	SWDEV_COPY_FLD(rqc, st, rqc, vsd);
	SWDEV_COPY_FLD(rqc, st, rqc, mem_rq_type);
	SWDEV_COPY_FLD(rqc, st, rqc, flush_in_error_en);
	SWDEV_COPY_FLD(rqc, st, rqc, ts_format);
	SWDEV_COPY_FLD(rqc, st, rqc, user_index);
	SWDEV_COPY_FLD(rqc, st, rqc, cqn);
	SWDEV_COPY_FLD(rqc, st, rqc, counter_set_id);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.wq_type);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.wq_signature);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.end_padding_mode);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.page_offset);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.lwm);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.pd);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.uar_page);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.dbr_addr);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.log_wq_stride);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.log_wq_pg_sz);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.log_wq_sz);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.single_wqe_log_num_of_strides);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.two_byte_shift_en);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.single_stride_log_num_of_bytes);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.dbr_umem_id);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.wq_umem_id);
	SWDEV_COPY_FLD(rqc, st, rqc, wq.wq_umem_offset);
	/* forced by the kernel on a DEVX CREATE_RQ */
	MDEVX_SET(rqc, st, wq.dbr_umem_valid, 1);
	MDEVX_SET(rqc, st, wq.wq_umem_valid, 1);
	MDEVX_SET(rqc, st, state, MDEVX_RQC_STATE_RST);
}

int
swdev_cmd_create_rq(struct swdev_cmd *cmd)
{
	const struct swdev_limits *lim = &cmd->dev->lim;
	const uint8_t *rqc = MDEVX_ADDR_OF(create_rq_in, cmd->in, ctx);
	struct swdev_obj *cq, *pd, *wq_umem, *dbr, *obj;
	uint32_t wq_type, log_wq_sz, id;
	uint64_t off, bytes;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(create_rq_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_rq_out)))
		return cmd->status;
	if (MDEVX_GET(rqc, rqc, state) != MDEVX_RQC_STATE_RST)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_INIT_STATE);
	if (MDEVX_GET(rqc, rqc, mem_rq_type) != MDEVX_RQC_MEM_RQ_TYPE_INLINE)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_MEM_TYPE);
	if (MDEVX_GET(rqc, rqc, hairpin))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_RQ_HAIRPIN);
	wq_type = MDEVX_GET(rqc, rqc, wq.wq_type);
	if (wq_type > MDEVX_WQ_TYPE_CYCLIC_STRIDING_RQ)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_WQ_TYPE);
	log_wq_sz = MDEVX_GET(rqc, rqc, wq.log_wq_sz);
	if (log_wq_sz > lim->log_max_wq_sz)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_LOG_WQ_SZ);
	cq = swdev_obj_ref_lookup(cmd, SWDEV_KIND_CQ, MDEVX_GET(rqc, rqc, cqn),
				  SWDEV_SYND_RQ_BAD_CQ, SWDEV_SYND_RQ_CQ_OTHER_UID);
	if (cq == NULL)
		return cmd->status;
	pd = swdev_obj_ref_lookup(cmd, SWDEV_KIND_PD, MDEVX_GET(rqc, rqc, wq.pd),
				  SWDEV_SYND_RQ_BAD_PD, SWDEV_SYND_RQ_PD_OTHER_UID);
	if (pd == NULL)
		return cmd->status;
	wq_umem = swdev_obj_ref_lookup(cmd, SWDEV_KIND_UMEM, MDEVX_GET(rqc, rqc, wq.wq_umem_id),
				       SWDEV_SYND_RQ_BAD_WQ_UMEM,
				       SWDEV_SYND_RQ_WQ_UMEM_OTHER_UID);
	if (wq_umem == NULL)
		return cmd->status;
	off = MDEVX_GET64(rqc, rqc, wq.wq_umem_offset);
	bytes = ((uint64_t)1 << MDEVX_GET(rqc, rqc, wq.log_wq_stride)) << log_wq_sz;
	if (!fits(wq_umem, off, bytes))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_WQ_UMEM_TOO_SMALL);
	dbr = swdev_obj_ref_lookup(cmd, SWDEV_KIND_UMEM, MDEVX_GET(rqc, rqc, wq.dbr_umem_id),
				   SWDEV_SYND_RQ_BAD_DBR_UMEM, SWDEV_SYND_RQ_DBR_UMEM_OTHER_UID);
	if (dbr == NULL)
		return cmd->status;
	if (!fits(dbr, MDEVX_GET64(rqc, rqc, wq.dbr_addr), 8))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_DBR_OUT_OF_UMEM);
	rc = swdev_obj_new_with_id(cmd, SWDEV_KIND_RQ, SWDEV_SYND_RQ_LIMIT, &obj, &id);
	if (rc != 0)
		return rc;
	store_rqc(obj->u.rq.rqc, rqc);
	obj->u.rq.cq = cq;
	obj->u.rq.pd = pd;
	obj->u.rq.wq_umem = wq_umem;
	obj->u.rq.dbr_umem = dbr;
	swdev_obj_get(cq);
	swdev_obj_get(pd);
	swdev_obj_get(wq_umem);
	swdev_obj_get(dbr);
	cmd->obj = obj;
	MDEVX_SET(create_rq_out, cmd->out, rqn, id);
	return 0;
}

/* RST->RDY, RDY->RDY, RDY->RST, RDY->ERR, ERR->RST, ERR->RDY. */
static bool
transition_ok(uint32_t cur, uint32_t next)
{
	switch (cur) {
	case MDEVX_RQC_STATE_RST:
		return next == MDEVX_RQC_STATE_RDY;
	case MDEVX_RQC_STATE_RDY:
		return true;
	case MDEVX_RQC_STATE_ERR:
		return next == MDEVX_RQC_STATE_RST || next == MDEVX_RQC_STATE_RDY;
	default:
		return false;
	}
}

int
swdev_cmd_modify_rq(struct swdev_cmd *cmd)
{
	uint8_t *st = cmd->obj->u.rq.rqc;
	const uint8_t *rqc = MDEVX_ADDR_OF(modify_rq_in, cmd->in, ctx);
	uint32_t cur, next;
	uint64_t mask;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(modify_rq_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(modify_rq_out)))
		return cmd->status;
	cur = MDEVX_GET(rqc, st, state);
	next = MDEVX_GET(rqc, rqc, state);
	mask = MDEVX_GET64(modify_rq_in, cmd->in, modify_bitmask);
	if (MDEVX_GET(modify_rq_in, cmd->in, rq_state) != cur)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_STATE_ERR,
				      SWDEV_SYND_RQ_BAD_CUR_STATE);
	if (next != MDEVX_RQC_STATE_RST && next != MDEVX_RQC_STATE_RDY &&
	    next != MDEVX_RQC_STATE_ERR)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_NEW_STATE);
	if (!transition_ok(cur, next))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_STATE_ERR,
				      SWDEV_SYND_RQ_BAD_TRANSITION);
	if (mask & ~(uint64_t)RQ_BITMASK_KNOWN)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQ_BAD_BITMASK);
	if (mask & MDEVX_MODIFY_RQ_BITMASK_WQ_LWM)
		SWDEV_COPY_FLD(rqc, st, rqc, wq.lwm);
	if (mask & MDEVX_MODIFY_RQ_BITMASK_VSD)
		SWDEV_COPY_FLD(rqc, st, rqc, vsd);
	if (mask & MDEVX_MODIFY_RQ_BITMASK_SCATTER_FCS)
		SWDEV_COPY_FLD(rqc, st, rqc, scatter_fcs);
	if (mask & MDEVX_MODIFY_RQ_BITMASK_RQ_COUNTER_SET_ID)
		SWDEV_COPY_FLD(rqc, st, rqc, counter_set_id);
	MDEVX_SET(rqc, st, state, next);
	return 0;
}

int
swdev_cmd_query_rq(struct swdev_cmd *cmd)
{
	return swdev_cmd_query_ctx(cmd, MDEVX_ST_SZ_BYTES(query_rq_in),
				   MDEVX_ST_SZ_BYTES(query_rq_out),
				   MDEVX_BYTE_OFF(query_rq_out, rq_context), cmd->obj->u.rq.rqc,
				   sizeof(cmd->obj->u.rq.rqc));
}

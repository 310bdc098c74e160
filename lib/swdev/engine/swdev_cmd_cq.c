/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: CREATE_CQ and QUERY_CQ (DESTROY_CQ is the
 * prebuilt destroy command). A DEVX CQ lives in umem: the kernel forces
 * cq_umem_valid and cqc.dbr_umem_valid, so the CQ buffer is cq_umem_id at
 * cq_umem_offset and the doorbell record is dbr_umem_id at dbr_addr.
 */

#include "swdev_engine_priv.h"

/* Does [off, off + len) fit in the umem? */
static bool
fits(const struct swdev_obj *umem, uint64_t off, uint64_t len)
{
	return off <= umem->u.umem.size && len <= umem->u.umem.size - off;
}

int
swdev_cmd_create_cq(struct swdev_cmd *cmd)
{
	const struct swdev_limits *lim = &cmd->dev->lim;
	const uint8_t *cqc = MDEVX_ADDR_OF(create_cq_in, cmd->in, cq_context);
	struct swdev_obj *uar, *umem, *dbr, *obj;
	uint32_t cqe_sz, log_sz, eqn, id;
	uint64_t off, dbr_off, bytes;
	uint8_t *st;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(create_cq_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_cq_out)))
		return cmd->status;
	cqe_sz = MDEVX_GET(cqc, cqc, cqe_sz);
	log_sz = MDEVX_GET(cqc, cqc, log_cq_size);
	eqn = MDEVX_GET(cqc, cqc, c_eqn_or_apu_element);
	if (cqe_sz > MDEVX_CQE_SZ_128)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_CQ_BAD_CQE_SZ);
	if (log_sz > lim->log_max_cq_sz)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CQ_BAD_LOG_SIZE);
	uar = swdev_obj_ref_lookup(cmd, SWDEV_KIND_UAR, MDEVX_GET(cqc, cqc, uar_page),
				   SWDEV_SYND_CQ_BAD_UAR, SWDEV_SYND_CQ_UAR_OTHER_UID);
	if (uar == NULL)
		return cmd->status;
	if (eqn < SWDEV_EQN_BASE || eqn >= SWDEV_EQN_BASE + lim->num_eqs)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_CQ_BAD_EQN);
	umem = swdev_obj_ref_lookup(cmd, SWDEV_KIND_UMEM,
				    MDEVX_GET(create_cq_in, cmd->in, cq_umem_id),
				    SWDEV_SYND_CQ_BAD_UMEM, SWDEV_SYND_CQ_UMEM_OTHER_UID);
	if (umem == NULL)
		return cmd->status;
	off = MDEVX_GET64(create_cq_in, cmd->in, cq_umem_offset);
	bytes = ((uint64_t)64 << cqe_sz) << log_sz;
	if (!fits(umem, off, bytes))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CQ_UMEM_TOO_SMALL);
	dbr = swdev_obj_ref_lookup(cmd, SWDEV_KIND_UMEM, MDEVX_GET(cqc, cqc, dbr_umem_id),
				   SWDEV_SYND_CQ_BAD_DBR_UMEM, SWDEV_SYND_CQ_DBR_UMEM_OTHER_UID);
	if (dbr == NULL)
		return cmd->status;
	dbr_off = MDEVX_GET64(cqc, cqc, dbr_addr);
	if (!fits(dbr, dbr_off, 8))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CQ_DBR_OUT_OF_UMEM);
	rc = swdev_obj_new_with_id(cmd, SWDEV_KIND_CQ, SWDEV_SYND_CQ_LIMIT, &obj, &id);
	if (rc != 0)
		return rc;
	/* keep the context field by field, as queried back */
	st = obj->u.cq.cqc;
	SWDEV_COPY_FLD(cqc, st, cqc, cqe_sz);
	SWDEV_COPY_FLD(cqc, st, cqc, cc);
	SWDEV_COPY_FLD(cqc, st, cqc, scqe_break_moderation_en);
	SWDEV_COPY_FLD(cqc, st, cqc, oi);
	SWDEV_COPY_FLD(cqc, st, cqc, cq_period_mode);
	SWDEV_COPY_FLD(cqc, st, cqc, cqe_comp_en);
	SWDEV_COPY_FLD(cqc, st, cqc, mini_cqe_res_format);
	SWDEV_COPY_FLD(cqc, st, cqc, st);
	SWDEV_COPY_FLD(cqc, st, cqc, dbr_umem_id);
	SWDEV_COPY_FLD(cqc, st, cqc, page_offset);
	SWDEV_COPY_FLD(cqc, st, cqc, log_cq_size);
	SWDEV_COPY_FLD(cqc, st, cqc, uar_page);
	SWDEV_COPY_FLD(cqc, st, cqc, cq_period);
	SWDEV_COPY_FLD(cqc, st, cqc, cq_max_count);
	SWDEV_COPY_FLD(cqc, st, cqc, c_eqn_or_apu_element);
	SWDEV_COPY_FLD(cqc, st, cqc, log_page_size);
	SWDEV_COPY_FLD(cqc, st, cqc, dbr_addr);
	MDEVX_SET(cqc, st, dbr_umem_valid, 1);	/* forced by the kernel */
	obj->u.cq.umem_offset = off;
	obj->u.cq.uar = uar;
	obj->u.cq.umem = umem;
	obj->u.cq.dbr_umem = dbr;
	swdev_obj_get(uar);
	swdev_obj_get(umem);
	swdev_obj_get(dbr);
	cmd->obj = obj;
	MDEVX_SET(create_cq_out, cmd->out, cqn, id);
	return 0;
}

int
swdev_cmd_query_cq(struct swdev_cmd *cmd)
{
	return swdev_cmd_query_ctx(cmd, MDEVX_ST_SZ_BYTES(query_cq_in),
				   MDEVX_ST_SZ_BYTES(query_cq_out),
				   MDEVX_BYTE_OFF(query_cq_out, cq_context), cmd->obj->u.cq.cqc,
				   sizeof(cmd->obj->u.cq.cqc));
}

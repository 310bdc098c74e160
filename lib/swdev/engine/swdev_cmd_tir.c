/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: CREATE_TIR, MODIFY_TIR, QUERY_TIR (DESTROY_TIR
 * is the prebuilt destroy command). A direct TIR names an RQ (inline_rqn),
 * an indirect one an RQT (indirect_table) plus the RSS hash: function,
 * 40-byte Toeplitz key, outer and inner field selectors. The whole context
 * is kept and returned by QUERY_TIR.
 */

#include "swdev_engine_priv.h"

#define TIR_BITMASK_KNOWN (MDEVX_MODIFY_TIR_BITMASK_LRO | \
			   MDEVX_MODIFY_TIR_BITMASK_INDIRECT_TABLE | \
			   MDEVX_MODIFY_TIR_BITMASK_HASH | \
			   MDEVX_MODIFY_TIR_BITMASK_TUNNELED_OFFLOAD_EN | \
			   MDEVX_MODIFY_TIR_BITMASK_SELF_LB_EN)
#define HASH_FIELDS_KNOWN (MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_DST_IP | \
			   MDEVX_RX_HASH_FIELD_L4_SPORT | MDEVX_RX_HASH_FIELD_L4_DPORT | \
			   MDEVX_RX_HASH_FIELD_IPSEC_SPI)

static int
check_lro(struct swdev_cmd *cmd, const uint8_t *tirc)
{
	if (MDEVX_GET(tirc, tirc, lro_enable_mask) & ~(MDEVX_TIRC_LRO_IPV4 | MDEVX_TIRC_LRO_IPV6))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_BAD_LRO_MASK);
	return 0;
}

static int
check_hash(struct swdev_cmd *cmd, const uint8_t *tirc)
{
	if (MDEVX_GET(tirc, tirc, rx_hash_fn) > MDEVX_RX_HASH_FN_TOEPLITZ)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_BAD_HASH_FN);
	if ((MDEVX_GET(tirc, tirc, rx_hash_field_selector_outer.selected_fields) |
	     MDEVX_GET(tirc, tirc, rx_hash_field_selector_inner.selected_fields)) &
	    ~(uint32_t)HASH_FIELDS_KNOWN)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_BAD_HASH_FIELDS);
	return 0;
}

static void
copy_lro(uint8_t *st, const uint8_t *tirc)
{
	SWDEV_COPY_FLD(tirc, st, tirc, lro_timeout_period_usecs);
	SWDEV_COPY_FLD(tirc, st, tirc, lro_enable_mask);
	SWDEV_COPY_FLD(tirc, st, tirc, lro_max_msg_sz);
}

static void
copy_hash(uint8_t *st, const uint8_t *tirc)
{
	SWDEV_COPY_FLD(tirc, st, tirc, rx_hash_symmetric);
	SWDEV_COPY_FLD(tirc, st, tirc, rx_hash_fn);
	SWDEV_COPY_FLD(tirc, st, tirc, rx_hash_toeplitz_key);
	SWDEV_COPY_FLD(tirc, st, tirc, rx_hash_field_selector_outer);
	SWDEV_COPY_FLD(tirc, st, tirc, rx_hash_field_selector_inner);
}

int
swdev_cmd_create_tir(struct swdev_cmd *cmd)
{
	const uint8_t *tirc = MDEVX_ADDR_OF(create_tir_in, cmd->in, ctx);
	struct swdev_obj *td, *rq = NULL, *rqt = NULL, *obj;
	uint32_t disp, id;
	uint64_t icm;
	uint8_t *st;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(create_tir_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_tir_out)))
		return cmd->status;
	disp = MDEVX_GET(tirc, tirc, disp_type);
	if (disp != MDEVX_TIRC_DISP_TYPE_DIRECT && disp != MDEVX_TIRC_DISP_TYPE_INDIRECT)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_BAD_DISP_TYPE);
	if (MDEVX_GET(tirc, tirc, tls_en))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_TIR_TLS);
	if (check_lro(cmd, tirc) || check_hash(cmd, tirc))
		return cmd->status;
	if (disp == MDEVX_TIRC_DISP_TYPE_DIRECT)
		rq = swdev_obj_ref_lookup(cmd, SWDEV_KIND_RQ, MDEVX_GET(tirc, tirc, inline_rqn),
					  SWDEV_SYND_TIR_BAD_RQ, SWDEV_SYND_TIR_RQ_OTHER_UID);
	else
		rqt = swdev_obj_ref_lookup(cmd, SWDEV_KIND_RQT,
					   MDEVX_GET(tirc, tirc, indirect_table),
					   SWDEV_SYND_TIR_BAD_RQT, SWDEV_SYND_TIR_RQT_OTHER_UID);
	if (rq == NULL && rqt == NULL)
		return cmd->status;
	td = swdev_obj_ref_lookup(cmd, SWDEV_KIND_TD, MDEVX_GET(tirc, tirc, transport_domain),
				  SWDEV_SYND_TIR_BAD_TD, SWDEV_SYND_TIR_TD_OTHER_UID);
	if (td == NULL)
		return cmd->status;
	rc = swdev_obj_new_with_id(cmd, SWDEV_KIND_TIR, SWDEV_SYND_TIR_LIMIT, &obj, &id);
	if (rc != 0)
		return rc;
	st = obj->u.tir.tirc;
	SWDEV_COPY_FLD(tirc, st, tirc, disp_type);
	SWDEV_COPY_FLD(tirc, st, tirc, tunneled_offload_en);
	SWDEV_COPY_FLD(tirc, st, tirc, self_lb_block);
	SWDEV_COPY_FLD(tirc, st, tirc, transport_domain);
	if (rq != NULL)
		SWDEV_COPY_FLD(tirc, st, tirc, inline_rqn);
	else
		SWDEV_COPY_FLD(tirc, st, tirc, indirect_table);
	copy_lro(st, tirc);
	copy_hash(st, tirc);
	icm = SWDEV_TIR_ICM_BASE | ((uint64_t)cmd->dev->index << 32) | ((uint64_t)id << 8);
	obj->u.tir.icm_addr = icm;
	obj->u.tir.td = td;
	obj->u.tir.rq = rq;
	obj->u.tir.rqt = rqt;
	swdev_obj_get(td);
	swdev_obj_get(rq);
	swdev_obj_get(rqt);
	cmd->obj = obj;
	MDEVX_SET(create_tir_out, cmd->out, tirn, id);
	MDEVX_SET(create_tir_out, cmd->out, icm_address_63_40, icm >> 40);
	MDEVX_SET(create_tir_out, cmd->out, icm_address_39_32, (icm >> 32) & 0xff);
	MDEVX_SET(create_tir_out, cmd->out, icm_address_31_0, icm & 0xffffffffu);
	return 0;
}

int
swdev_cmd_modify_tir(struct swdev_cmd *cmd)
{
	struct swdev_obj *obj = cmd->obj;
	const uint8_t *tirc = MDEVX_ADDR_OF(modify_tir_in, cmd->in, ctx);
	uint8_t *st = obj->u.tir.tirc;
	struct swdev_obj *rqt = NULL;
	uint64_t mask;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(modify_tir_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(modify_tir_out)))
		return cmd->status;
	mask = MDEVX_GET64(modify_tir_in, cmd->in, modify_bitmask);
	if (mask & ~(uint64_t)TIR_BITMASK_KNOWN)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_BAD_BITMASK);
	if (mask & MDEVX_MODIFY_TIR_BITMASK_TUNNELED_OFFLOAD_EN)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_TIR_MODIFY_TUNNELED);
	if ((mask & MDEVX_MODIFY_TIR_BITMASK_LRO) && check_lro(cmd, tirc))
		return cmd->status;
	if ((mask & MDEVX_MODIFY_TIR_BITMASK_HASH) && check_hash(cmd, tirc))
		return cmd->status;
	if (mask & MDEVX_MODIFY_TIR_BITMASK_INDIRECT_TABLE) {
		if (obj->u.tir.rqt == NULL)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_TIR_MODIFY_DIRECT_TABLE);
		rqt = swdev_obj_ref_lookup(cmd, SWDEV_KIND_RQT,
					   MDEVX_GET(tirc, tirc, indirect_table),
					   SWDEV_SYND_TIR_BAD_RQT, SWDEV_SYND_TIR_RQT_OTHER_UID);
		if (rqt == NULL)
			return cmd->status;
	}
	/* all checked: apply */
	if (mask & MDEVX_MODIFY_TIR_BITMASK_LRO)
		copy_lro(st, tirc);
	if (mask & MDEVX_MODIFY_TIR_BITMASK_HASH)
		copy_hash(st, tirc);
	if (mask & MDEVX_MODIFY_TIR_BITMASK_SELF_LB_EN)
		SWDEV_COPY_FLD(tirc, st, tirc, self_lb_block);
	if (rqt != NULL) {
		swdev_obj_get(rqt);
		swdev_obj_put(obj->u.tir.rqt);
		obj->u.tir.rqt = rqt;
		SWDEV_COPY_FLD(tirc, st, tirc, indirect_table);
	}
	return 0;
}

int
swdev_cmd_query_tir(struct swdev_cmd *cmd)
{
	return swdev_cmd_query_ctx(cmd, MDEVX_ST_SZ_BYTES(query_tir_in),
				   MDEVX_ST_SZ_BYTES(query_tir_out),
				   MDEVX_BYTE_OFF(query_tir_out, tir_context), cmd->obj->u.tir.tirc,
				   sizeof(cmd->obj->u.tir.tirc));
}

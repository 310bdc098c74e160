/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* PRM command mailboxes the tests send: see prm_mailbox.h. */
#include <string.h>

#include "prm_mailbox.h"

const uint8_t t_toeplitz_key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

void
t_build_cq(uint8_t *in, uint32_t uar_page, uint32_t eqn, uint32_t umem_id,
	   uint32_t dbr_umem_id)
{
	memset(in, 0, MDEVX_ST_SZ_BYTES(create_cq_in));
	MDEVX_SET(create_cq_in, in, opcode, MDEVX_CMD_OP_CREATE_CQ);
	MDEVX_SET(create_cq_in, in, cq_context.cqe_sz, MDEVX_CQE_SZ_64);
	MDEVX_SET(create_cq_in, in, cq_context.log_cq_size, 6);
	MDEVX_SET(create_cq_in, in, cq_context.uar_page, uar_page);
	MDEVX_SET(create_cq_in, in, cq_context.c_eqn_or_apu_element, eqn);
	MDEVX_SET(create_cq_in, in, cq_context.dbr_umem_id, dbr_umem_id);
	MDEVX_SET64(create_cq_in, in, cq_context.dbr_addr, T_DBR_OFF);
	MDEVX_SET(create_cq_in, in, cq_umem_id, umem_id);
	MDEVX_SET64(create_cq_in, in, cq_umem_offset, 0);
}

void
t_build_rq(uint8_t *in, uint32_t cqn, uint32_t pdn, uint32_t umem_id, uint64_t wq_off,
	   uint64_t dbr_off)
{
	memset(in, 0, MDEVX_ST_SZ_BYTES(create_rq_in));
	MDEVX_SET(create_rq_in, in, opcode, MDEVX_CMD_OP_CREATE_RQ);
	MDEVX_SET(create_rq_in, in, ctx.state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(create_rq_in, in, ctx.vsd, 1);
	MDEVX_SET(create_rq_in, in, ctx.user_index, 0x1234);
	MDEVX_SET(create_rq_in, in, ctx.cqn, cqn);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_type, MDEVX_WQ_TYPE_CYCLIC);
	MDEVX_SET(create_rq_in, in, ctx.wq.pd, pdn);
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_stride, 6);
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_sz, 6);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_umem_id, umem_id);
	MDEVX_SET64(create_rq_in, in, ctx.wq.wq_umem_offset, wq_off);
	MDEVX_SET(create_rq_in, in, ctx.wq.dbr_umem_id, umem_id);
	MDEVX_SET64(create_rq_in, in, ctx.wq.dbr_addr, dbr_off);
}

size_t
t_build_rqt(uint8_t *in, uint32_t rqtn, uint32_t max_size, uint32_t actual,
	    const uint32_t *rqns)
{
	size_t len = MDEVX_ST_SZ_BYTES(create_rqt_in) + 4 * (size_t)actual;
	uint8_t *list;
	uint32_t i;

	memset(in, 0, len);
	if (rqtn != 0) {
		MDEVX_SET(modify_rqt_in, in, opcode, MDEVX_CMD_OP_MODIFY_RQT);
		MDEVX_SET(modify_rqt_in, in, rqtn, rqtn);
		MDEVX_SET64(modify_rqt_in, in, modify_bitmask, MDEVX_MODIFY_RQT_BITMASK_RQN_LIST);
	} else {
		MDEVX_SET(create_rqt_in, in, opcode, MDEVX_CMD_OP_CREATE_RQT);
	}
	MDEVX_SET(create_rqt_in, in, rqt_context.list_q_type, MDEVX_RQTC_LIST_Q_TYPE_RQ);
	MDEVX_SET(create_rqt_in, in, rqt_context.rqt_max_size, max_size);
	MDEVX_SET(create_rqt_in, in, rqt_context.rqt_actual_size, actual);
	list = MDEVX_ADDR_OF(create_rqt_in, in, rqt_context.rq_num);
	for (i = 0; i < actual; i++)
		MDEVX_SET(rq_num, list + 4 * i, rq_num, rqns[i]);
	return len;
}

void
t_build_tir(uint8_t *in, int indirect, uint32_t target, uint32_t tdn)
{
	memset(in, 0, MDEVX_ST_SZ_BYTES(create_tir_in));
	MDEVX_SET(create_tir_in, in, opcode, MDEVX_CMD_OP_CREATE_TIR);
	MDEVX_SET(create_tir_in, in, ctx.transport_domain, tdn);
	if (indirect) {
		MDEVX_SET(create_tir_in, in, ctx.disp_type, MDEVX_TIRC_DISP_TYPE_INDIRECT);
		MDEVX_SET(create_tir_in, in, ctx.indirect_table, target);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_fn, MDEVX_RX_HASH_FN_TOEPLITZ);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_symmetric, 1);
		memcpy(MDEVX_ADDR_OF(create_tir_in, in, ctx.rx_hash_toeplitz_key),
		       t_toeplitz_key, sizeof(t_toeplitz_key));
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l3_prot_type,
			  MDEVX_L3_PROT_TYPE_IPV4);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l4_prot_type,
			  MDEVX_L4_PROT_TYPE_UDP);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.selected_fields,
			  MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_DST_IP |
			  MDEVX_RX_HASH_FIELD_L4_SPORT | MDEVX_RX_HASH_FIELD_L4_DPORT);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_inner.l3_prot_type,
			  MDEVX_L3_PROT_TYPE_IPV6);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_inner.selected_fields,
			  MDEVX_RX_HASH_FIELD_SRC_IP);
	} else {
		MDEVX_SET(create_tir_in, in, ctx.disp_type, MDEVX_TIRC_DISP_TYPE_DIRECT);
		MDEVX_SET(create_tir_in, in, ctx.inline_rqn, target);
	}
}

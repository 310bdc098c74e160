/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * CQ, RQ, RQT, TIR and their references: create/modify/query, every
 * refusal with its status and syndrome, EBUSY on destroy while referenced,
 * uid separation between files, handle/id mismatch (EINVAL), limits, file
 * close in dependency order, fault injection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"
#include "unit_check.h"
#include "swdev_test_util.h"

#define CQ_IN MDEVX_ST_SZ_BYTES(create_cq_in)
#define RQ_IN MDEVX_ST_SZ_BYTES(create_rq_in)
#define TIR_IN MDEVX_ST_SZ_BYTES(create_tir_in)
#define RQT_IN(n) (MDEVX_ST_SZ_BYTES(create_rqt_in) + 4 * (n))

static struct swdev_engine *
new_engine(const struct swdev_limits *lim)
{
	struct swdev_engine *eng = swdev_engine_create();

	swdev_engine_add_device(eng, T_DEV, lim);
	return eng;
}

static uint32_t
total(struct swdev_engine *eng, uint32_t file_id)
{
	struct swdev_counts cnt;

	if (swdev_ctl_counts(eng, T_DEV, file_id, &cnt) != 0)
		return UINT32_MAX;
	return cnt.total;
}

/* Expect a firmware refusal of a create, and nothing created. */
#define CHECK_CREATE_FAILS(eng, f, in, len, st, synd) do { \
	uint8_t o_[16]; \
	uint32_t before_ = total((eng), 0); \
	CHECK_EQ(swdev_devx_obj_create((f), (in), (len), o_, sizeof(o_), NULL), EREMOTEIO); \
	CHECK_EQ(t_status(o_), (st)); \
	CHECK_EQ(t_syndrome(o_), (synd)); \
	CHECK_EQ(total((eng), 0), before_); \
} while (0)

static void
test_cq(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	uint32_t uar_h, uar, umem_h, umem, small_h, small, eqn, cq_h, cqn, h, gid;
	uint8_t in[CQ_IN], out[MDEVX_ST_SZ_BYTES(query_cq_out)];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_cq_in)] = {0};
	const uint8_t *cqc = MDEVX_ADDR_OF(query_cq_out, out, cq_context);

	CHECK_EQ(swdev_file_uar_alloc(f, &uar_h, &uar), 0);
	CHECK_EQ(swdev_file_umem_reg(f, 0x100000, T_UMEM_SIZE, 0, &umem_h, &umem), 0);
	CHECK_EQ(swdev_file_umem_reg(f, 0x200000, 4095, 0, &small_h, &small), 0);
	CHECK_EQ(swdev_file_query_eqn(f, 1, &eqn), 0);
	t_build_cq(in, uar, eqn, umem, umem);
	CHECK_EQ(t_create(f, in, CQ_IN, out, &cq_h, &cqn), 0);
	CHECK(cqn != 0);
	/* query back */
	MDEVX_SET(query_cq_in, qin, opcode, MDEVX_CMD_OP_QUERY_CQ);
	MDEVX_SET(query_cq_in, qin, cqn, cqn);
	CHECK_EQ(swdev_devx_obj_query(f, cq_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(cqc, cqc, uar_page), uar);
	CHECK_EQ(MDEVX_GET(cqc, cqc, c_eqn), eqn);
	CHECK_EQ(MDEVX_GET(cqc, cqc, log_cq_size), 6);
	CHECK_EQ(MDEVX_GET(cqc, cqc, dbr_umem_valid), 1);	/* forced */
	CHECK_EQ(MDEVX_GET64(cqc, cqc, dbr_addr), T_DBR_OFF);
	CHECK_EQ(swdev_devx_obj_query(f, cq_h, qin, sizeof(qin), out, 271), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	MDEVX_SET(query_cq_in, qin, cqn, cqn + 1);
	CHECK_EQ(swdev_devx_obj_query(f, cq_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	/* a verbs object (the UAR) is not a DEVX object */
	CHECK_EQ(swdev_devx_obj_query(f, uar_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	/* SET_FLOW_TABLE_ENTRY: a create with op_mod 0 (reaches the firmware,
	 * shorter than set_fte_in: BAD_INP_LEN), a modify with op_mod 1 (names
	 * no object here: EINVAL) */
	{
		uint8_t fte[64] = {0};

		MDEVX_SET(mbox_in, fte, opcode, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY);
		CHECK_EQ(swdev_devx_obj_create(f, fte, sizeof(fte), out, 16, NULL), EREMOTEIO);
		CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_INP_LEN_ERR);
		CHECK_EQ(swdev_devx_obj_modify(f, cq_h, fte, sizeof(fte), out, 16), EINVAL);
		MDEVX_SET(mbox_in, fte, op_mod, 1);
		CHECK_EQ(swdev_devx_obj_create(f, fte, sizeof(fte), out, 16, NULL), EINVAL);
		CHECK_EQ(swdev_devx_obj_modify(f, cq_h, fte, sizeof(fte), out, 16), EINVAL);
	}
	/* modify is accepted by the kernel but not emulated */
	MDEVX_SET(query_cq_in, qin, opcode, MDEVX_CMD_OP_MODIFY_CQ);
	MDEVX_SET(query_cq_in, qin, cqn, cqn);
	CHECK_EQ(swdev_devx_obj_modify(f, cq_h, qin, sizeof(qin), out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OP_ERR);
	/* refusals */
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN - 1, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
			   SWDEV_SYND_BAD_INLEN);
	MDEVX_SET(create_cq_in, in, cq_context.cqe_sz, 2);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_BAD_CQE_SZ);
	t_build_cq(in, uar, eqn, umem, umem);
	MDEVX_SET(create_cq_in, in, cq_context.log_cq_size, 23);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_BAD_LOG_SIZE);
	t_build_cq(in, uar + 1, eqn, umem, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_CQ_BAD_UAR);
	t_build_cq(in, uar, SWDEV_EQN_BASE + 4, umem, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_CQ_BAD_EQN);
	t_build_cq(in, uar, 0, umem, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_CQ_BAD_EQN);
	t_build_cq(in, uar, eqn, 77, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_CQ_BAD_UMEM);
	t_build_cq(in, uar, eqn, small, umem);	/* 64 x 64 B = 4096 > 4095 */
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_UMEM_TOO_SMALL);
	t_build_cq(in, uar, eqn, umem, umem);
	MDEVX_SET64(create_cq_in, in, cq_umem_offset, T_UMEM_SIZE - 4095);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_UMEM_TOO_SMALL);
	MDEVX_SET64(create_cq_in, in, cq_umem_offset, UINT64_MAX);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_UMEM_TOO_SMALL);
	t_build_cq(in, uar, eqn, umem, 99);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_CQ_BAD_DBR_UMEM);
	t_build_cq(in, uar, eqn, umem, umem);
	MDEVX_SET64(create_cq_in, in, cq_context.dbr_addr, T_UMEM_SIZE - 7);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_CQ_DBR_OUT_OF_UMEM);
	/* another file's UAR and umem */
	CHECK_EQ(swdev_file_uar_alloc(g, &h, &gid), 0);
	t_build_cq(in, gid, eqn, umem, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_CQ_UAR_OTHER_UID);
	CHECK_EQ(swdev_file_umem_reg(g, 0x1000, T_UMEM_SIZE, 0, &h, &gid), 0);
	t_build_cq(in, uar, eqn, gid, umem);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_CQ_UMEM_OTHER_UID);
	t_build_cq(in, uar, eqn, umem, gid);
	CHECK_CREATE_FAILS(eng, f, in, CQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_CQ_DBR_UMEM_OTHER_UID);
	/* references: UAR and umem busy while the CQ lives */
	CHECK_EQ(swdev_file_verbs_destroy(f, uar_h), EBUSY);
	CHECK_EQ(swdev_file_verbs_destroy(f, umem_h), EBUSY);
	CHECK_EQ(swdev_file_verbs_destroy(f, small_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, cq_h), 0);
	CHECK_EQ(swdev_file_verbs_destroy(f, uar_h), 0);
	CHECK_EQ(swdev_file_verbs_destroy(f, umem_h), 0);
	CHECK_EQ(total(eng, swdev_file_id(f)), 0);
	swdev_engine_destroy(eng);
}

static void
test_rq(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	struct t_chain c, gc;
	uint8_t in[RQ_IN], out[MDEVX_ST_SZ_BYTES(query_rq_out)];
	uint8_t min[MDEVX_ST_SZ_BYTES(modify_rq_in)];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_rq_in)] = {0};
	const uint8_t *rqc = MDEVX_ADDR_OF(query_rq_out, out, rq_context);
	uint32_t rq_h, rqn;

	CHECK_EQ(t_chain_make(f, &c, 2), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	CHECK_EQ(t_create(f, in, RQ_IN, out, &rq_h, &rqn), 0);
	MDEVX_SET(query_rq_in, qin, opcode, MDEVX_CMD_OP_QUERY_RQ);
	MDEVX_SET(query_rq_in, qin, rqn, rqn);
	CHECK_EQ(swdev_devx_obj_query(f, rq_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(rqc, rqc, state), MDEVX_RQC_STATE_RST);
	CHECK_EQ(MDEVX_GET(rqc, rqc, cqn), c.cqn);
	CHECK_EQ(MDEVX_GET(rqc, rqc, vsd), 1);
	CHECK_EQ(MDEVX_GET(rqc, rqc, user_index), 0x1234);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.pd), c.pdn);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.wq_type), MDEVX_WQ_TYPE_CYCLIC);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.wq_umem_id), c.umem_id);
	CHECK_EQ(MDEVX_GET64(rqc, rqc, wq.wq_umem_offset), 40000);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.wq_umem_valid), 1);	/* forced */
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.dbr_umem_valid), 1);	/* forced */
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.log_wq_sz), 6);
	/* query/modify must name the handle's RQ */
	MDEVX_SET(query_rq_in, qin, rqn, c.rqn[0]);
	CHECK_EQ(swdev_devx_obj_query(f, rq_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	MDEVX_SET(query_rq_in, qin, rqn, rqn);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, qin, sizeof(qin), out, 16), EINVAL);
	CHECK_EQ(swdev_devx_obj_query(f, c.cq_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	/* MODIFY_RQ RST -> RDY */
	memset(min, 0, sizeof(min));
	MDEVX_SET(modify_rq_in, min, opcode, MDEVX_CMD_OP_MODIFY_RQ);
	MDEVX_SET(modify_rq_in, min, rqn, rqn);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_RDY);	/* wrong current */
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_RDY);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQ_BAD_CUR_STATE);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(modify_rq_in, min, ctx.state, 2);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQ_BAD_NEW_STATE);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_ERR);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_RES_STATE_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQ_BAD_TRANSITION);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_RDY);
	MDEVX_SET64(modify_rq_in, min, modify_bitmask, 0x10);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQ_BAD_BITMASK);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min) - 1, out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_INP_LEN_ERR);
	MDEVX_SET64(modify_rq_in, min, modify_bitmask, MDEVX_MODIFY_RQ_BITMASK_WQ_LWM);
	MDEVX_SET(modify_rq_in, min, ctx.wq.lwm, 16);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), 0);
	CHECK_EQ(t_status(out), 0);
	CHECK_EQ(swdev_devx_obj_query(f, rq_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(rqc, rqc, state), MDEVX_RQC_STATE_RDY);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.lwm), 16);
	/* the other modify_bitmask fields */
	MDEVX_SET64(modify_rq_in, min, modify_bitmask, MDEVX_MODIFY_RQ_BITMASK_VSD |
		    MDEVX_MODIFY_RQ_BITMASK_SCATTER_FCS |
		    MDEVX_MODIFY_RQ_BITMASK_RQ_COUNTER_SET_ID);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_RDY);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_RDY);
	MDEVX_SET(modify_rq_in, min, ctx.vsd, 0);
	MDEVX_SET(modify_rq_in, min, ctx.scatter_fcs, 1);
	MDEVX_SET(modify_rq_in, min, ctx.counter_set_id, 0x42);
	MDEVX_SET(modify_rq_in, min, ctx.wq.lwm, 99);	/* not in the mask */
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), 0);
	CHECK_EQ(swdev_devx_obj_query(f, rq_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(rqc, rqc, vsd), 0);
	CHECK_EQ(MDEVX_GET(rqc, rqc, scatter_fcs), 1);
	CHECK_EQ(MDEVX_GET(rqc, rqc, counter_set_id), 0x42);
	CHECK_EQ(MDEVX_GET(rqc, rqc, wq.lwm), 16);
	CHECK_EQ(MDEVX_GET(rqc, rqc, state), MDEVX_RQC_STATE_RDY);
	/* RDY -> ERR -> RST */
	MDEVX_SET64(modify_rq_in, min, modify_bitmask, 0);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_RDY);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_ERR);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), 0);
	MDEVX_SET(modify_rq_in, min, rq_state, MDEVX_RQC_STATE_ERR);
	MDEVX_SET(modify_rq_in, min, ctx.state, MDEVX_RQC_STATE_RST);
	CHECK_EQ(swdev_devx_obj_modify(f, rq_h, min, sizeof(min), out, 16), 0);
	CHECK_EQ(swdev_devx_obj_query(f, rq_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(rqc, rqc, state), MDEVX_RQC_STATE_RST);
	/* create refusals */
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN - 1, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
			   SWDEV_SYND_BAD_INLEN);
	MDEVX_SET(create_rq_in, in, ctx.state, MDEVX_RQC_STATE_RDY);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_BAD_INIT_STATE);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	MDEVX_SET(create_rq_in, in, ctx.mem_rq_type, MDEVX_RQC_MEM_RQ_TYPE_RMP);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_BAD_MEM_TYPE);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	MDEVX_SET(create_rq_in, in, ctx.hairpin, 1);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_RQ_HAIRPIN);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	MDEVX_SET(create_rq_in, in, ctx.wq.wq_type, 4);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_BAD_WQ_TYPE);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	MDEVX_SET(create_rq_in, in, ctx.wq.log_wq_sz, 17);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_BAD_LOG_WQ_SZ);
	t_build_rq(in, c.tdn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);	/* tdn as cqn */
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_RQ_BAD_CQ);
	t_build_rq(in, gc.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_CQ_OTHER_UID);
	t_build_rq(in, c.cqn, c.tdn, c.umem_id, 40000, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_RQ_BAD_PD);
	t_build_rq(in, c.cqn, gc.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_PD_OTHER_UID);
	t_build_rq(in, c.cqn, c.pdn, 5, 40000, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_BAD_WQ_UMEM);
	t_build_rq(in, c.cqn, c.pdn, gc.umem_id, 40000, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_WQ_UMEM_OTHER_UID);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, T_UMEM_SIZE - 4095, T_DBR_OFF + 100);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_WQ_UMEM_TOO_SMALL);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 100);
	MDEVX_SET(create_rq_in, in, ctx.wq.dbr_umem_id, 6);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_BAD_DBR_UMEM);
	MDEVX_SET(create_rq_in, in, ctx.wq.dbr_umem_id, gc.umem_id);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQ_DBR_UMEM_OTHER_UID);
	t_build_rq(in, c.cqn, c.pdn, c.umem_id, 40000, T_UMEM_SIZE - 4);
	CHECK_CREATE_FAILS(eng, f, in, RQ_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQ_DBR_OUT_OF_UMEM);
	/* the CQ, PD and umem are held by the RQs */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.cq_h), EBUSY);
	CHECK_EQ(swdev_file_verbs_destroy(f, c.pd_h), EBUSY);
	CHECK_EQ(swdev_file_verbs_destroy(f, c.umem_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, rq_h), 0);
	swdev_engine_destroy(eng);
}

static void
test_rqt(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	struct t_chain c, gc;
	uint8_t in[RQT_IN(4096)], out[MDEVX_ST_SZ_BYTES(query_rqt_out) + 64];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_rqt_in)] = {0};
	const uint8_t *list = MDEVX_ADDR_OF(query_rqt_out, out, rqt_context.rq_num);
	uint32_t rqns[4], h, rqtn, foreign[1];
	size_t len;

	CHECK_EQ(t_chain_make(f, &c, 4), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	/* 4 entries, repeating one RQ */
	rqns[0] = c.rqn[0];
	rqns[1] = c.rqn[1];
	rqns[2] = c.rqn[0];
	rqns[3] = c.rqn[2];
	len = t_build_rqt(in, 0, 8, 4, rqns);
	CHECK_EQ(t_create(f, in, len, out, &h, &rqtn), 0);
	MDEVX_SET(query_rqt_in, qin, opcode, MDEVX_CMD_OP_QUERY_RQT);
	MDEVX_SET(query_rqt_in, qin, rqtn, rqtn);
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), out, RQT_IN(4)), 0);
	CHECK_EQ(MDEVX_GET(query_rqt_out, out, rqt_context.rqt_max_size), 8);
	CHECK_EQ(MDEVX_GET(query_rqt_out, out, rqt_context.rqt_actual_size), 4);
	CHECK_EQ(MDEVX_GET(rq_num, list + 0, rq_num), c.rqn[0]);
	CHECK_EQ(MDEVX_GET(rq_num, list + 8, rq_num), c.rqn[0]);
	CHECK_EQ(MDEVX_GET(rq_num, list + 12, rq_num), c.rqn[2]);
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), out, RQT_IN(4) - 1), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQT_QUERY_OUTLEN);
	MDEVX_SET(query_rqt_in, qin, rqtn, c.rqtn);
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), out, RQT_IN(4)), EINVAL);
	MDEVX_SET(query_rqt_in, qin, rqtn, rqtn);
	/* RQs used by the table are busy; RQ 3 is only in the chain's RQT */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[2]), EBUSY);
	/* create refusals */
	CHECK_CREATE_FAILS(eng, f, in, RQT_IN(0) - 1, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
			   SWDEV_SYND_BAD_INLEN);
	CHECK_CREATE_FAILS(eng, f, in, len - 1, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
			   SWDEV_SYND_RQT_INLEN_ENTRIES);
	MDEVX_SET(create_rqt_in, in, rqt_context.list_q_type, 1);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQT_BAD_LIST_TYPE);
	len = t_build_rqt(in, 0, 0, 4, rqns);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQT_ZERO_MAX_SIZE);
	len = t_build_rqt(in, 0, 4096, 4, rqns);	/* > 1 << log_max_rqt_size */
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQT_MAX_SIZE_TOO_BIG);
	len = t_build_rqt(in, 0, 8, 0, rqns);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQT_ZERO_ACTUAL_SIZE);
	len = t_build_rqt(in, 0, 2, 4, rqns);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_RQT_ACTUAL_OVER_MAX);
	rqns[3] = c.cqn;
	len = t_build_rqt(in, 0, 8, 4, rqns);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_RQT_BAD_RQ);
	rqns[3] = gc.rqn[0];
	len = t_build_rqt(in, 0, 8, 4, rqns);
	CHECK_CREATE_FAILS(eng, f, in, len, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_RQT_RQ_OTHER_UID);
	/* a 2048-entry table (the default maximum) */
	{
		static uint32_t big[2048];
		uint32_t i, bh, bn;

		for (i = 0; i < 2048; i++)
			big[i] = c.rqn[i % 4];
		len = t_build_rqt(in, 0, 2048, 2048, big);
		CHECK_EQ(t_create(f, in, len, out, &bh, &bn), 0);
		CHECK_EQ(swdev_devx_obj_destroy(f, bh), 0);
	}
	/* MODIFY_RQT: replace the list; references move */
	rqns[0] = c.rqn[3];
	len = t_build_rqt(in, rqtn, 0, 1, rqns);
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, len, out, 16), 0);
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), out, RQT_IN(4)), 0);
	CHECK_EQ(MDEVX_GET(query_rqt_out, out, rqt_context.rqt_actual_size), 1);
	CHECK_EQ(MDEVX_GET(rq_num, list, rq_num), c.rqn[3]);
	len = t_build_rqt(in, rqtn, 0, 9, c.rqn);	/* over this table's max of 8 */
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, len, out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQT_ACTUAL_OVER_MAX);
	foreign[0] = gc.rqn[0];
	len = t_build_rqt(in, rqtn, 0, 1, foreign);
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, len, out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQT_RQ_OTHER_UID);
	MDEVX_SET64(modify_rqt_in, in, modify_bitmask, 2);
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, len, out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_RQT_BAD_BITMASK);
	MDEVX_SET(modify_rqt_in, in, rqtn, c.rqtn);
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, len, out, 16), EINVAL);
	/* the list still holds RQ 3 only; destroy the chain's TIR and RQT */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rqt_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[0]), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[3]), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[3]), 0);
	swdev_engine_destroy(eng);
}

static void
test_tir(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	struct t_chain c, gc;
	uint8_t in[TIR_IN], out[MDEVX_ST_SZ_BYTES(query_tir_out)];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_tir_in)] = {0};
	uint8_t min[MDEVX_ST_SZ_BYTES(modify_tir_in)];
	const uint8_t *tc = MDEVX_ADDR_OF(query_tir_out, out, tir_context);
	struct swdev_obj_info info;
	uint32_t dh, dtirn, rqt2_h, rqt2n;
	uint64_t icm;
	size_t len;

	CHECK_EQ(t_chain_make(f, &c, 2), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	/* indirect TIR of the chain: info and ICM address */
	CHECK(c.tirn != 0);
	CHECK(c.tir_icm != 0);
	CHECK(c.tir_icm != gc.tir_icm);
	/* direct TIR */
	t_build_tir(in, 0, c.rqn[1], c.tdn);
	CHECK_EQ(swdev_devx_obj_create(f, in, TIR_IN, out, 16, &info), 0);
	dh = info.handle;
	dtirn = MDEVX_GET(create_tir_out, out, tirn);
	icm = ((uint64_t)MDEVX_GET(create_tir_out, out, icm_address_63_40) << 40) |
	      ((uint64_t)MDEVX_GET(create_tir_out, out, icm_address_39_32) << 32) |
	      MDEVX_GET(create_tir_out, out, icm_address_31_0);
	CHECK_EQ(info.type, MDEVX_DEVX_TYPE_TIR);
	CHECK_EQ(info.object_id, dtirn);
	CHECK_EQ(info.rx_icm_addr, icm);
	CHECK(icm != 0 && icm != c.tir_icm);
	MDEVX_SET(query_tir_in, qin, opcode, MDEVX_CMD_OP_QUERY_TIR);
	MDEVX_SET(query_tir_in, qin, tirn, dtirn);
	CHECK_EQ(swdev_devx_obj_query(f, dh, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(tirc, tc, disp_type), MDEVX_TIRC_DISP_TYPE_DIRECT);
	CHECK_EQ(MDEVX_GET(tirc, tc, inline_rqn), c.rqn[1]);
	CHECK_EQ(MDEVX_GET(tirc, tc, transport_domain), c.tdn);
	CHECK_EQ(swdev_devx_obj_query(f, dh, qin, sizeof(qin), out, sizeof(out) - 1),
		 EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	/* the indirect TIR keeps the whole RSS context */
	MDEVX_SET(query_tir_in, qin, tirn, c.tirn);
	CHECK_EQ(swdev_devx_obj_query(f, c.tir_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(tirc, tc, disp_type), MDEVX_TIRC_DISP_TYPE_INDIRECT);
	CHECK_EQ(MDEVX_GET(tirc, tc, indirect_table), c.rqtn);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_fn), MDEVX_RX_HASH_FN_TOEPLITZ);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_symmetric), 1);
	CHECK(memcmp(MDEVX_ADDR_OF(tirc, tc, rx_hash_toeplitz_key), t_toeplitz_key, 40) == 0);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_field_selector_outer.l4_prot_type),
		 MDEVX_L4_PROT_TYPE_UDP);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_field_selector_outer.selected_fields), 0xf);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_field_selector_inner.l3_prot_type),
		 MDEVX_L3_PROT_TYPE_IPV6);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_field_selector_inner.selected_fields), 0x1);
	/* handle/id mismatch and wrong opcodes: kernel EINVAL */
	MDEVX_SET(query_tir_in, qin, tirn, dtirn);
	CHECK_EQ(swdev_devx_obj_query(f, c.tir_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	MDEVX_SET(query_tir_in, qin, opcode, MDEVX_CMD_OP_QUERY_RQ);
	CHECK_EQ(swdev_devx_obj_query(f, dh, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	MDEVX_SET(query_tir_in, qin, opcode, MDEVX_CMD_OP_QUERY_TIR);
	CHECK_EQ(swdev_devx_obj_modify(f, dh, qin, sizeof(qin), out, 16), EINVAL);
	/*
	 * A handle number taken from another file names whatever this file has
	 * under that number: g's RQ handle is f's first RQ handle here, and the
	 * kernel refuses the command because it names g's rqn.
	 */
	CHECK_EQ(gc.rq_h[0], c.rq_h[0]);
	{
		uint8_t rin[MDEVX_ST_SZ_BYTES(query_rq_in)] = {0};
		uint8_t rout[MDEVX_ST_SZ_BYTES(query_rq_out)];

		MDEVX_SET(query_rq_in, rin, opcode, MDEVX_CMD_OP_QUERY_RQ);
		MDEVX_SET(query_rq_in, rin, rqn, gc.rqn[0]);
		CHECK_EQ(swdev_devx_obj_query(f, gc.rq_h[0], rin, sizeof(rin), rout,
					      sizeof(rout)), EINVAL);
		MDEVX_SET(query_rq_in, rin, rqn, c.rqn[0]);
		CHECK_EQ(swdev_devx_obj_query(f, gc.rq_h[0], rin, sizeof(rin), rout,
					      sizeof(rout)), 0);
	}
	/* f's TIR handle (8) does not exist in g (7 handles) */
	MDEVX_SET(query_tir_in, qin, tirn, c.tirn);
	CHECK(c.tir_h > gc.tir_h);
	CHECK_EQ(swdev_devx_obj_query(g, c.tir_h, qin, sizeof(qin), out, sizeof(out)), ENOENT);
	MDEVX_SET(query_tir_in, qin, tirn, gc.tirn);
	CHECK_EQ(swdev_devx_obj_query(g, gc.tir_h, qin, sizeof(qin), out, sizeof(out)), 0);
	/* create refusals */
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN - 1, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
			   SWDEV_SYND_BAD_INLEN);
	t_build_tir(in, 0, c.rqn[0], c.tdn);
	MDEVX_SET(create_tir_in, in, ctx.disp_type, 2);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_TIR_BAD_DISP_TYPE);
	t_build_tir(in, 1, c.rqtn, c.tdn);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_fn, 3);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_TIR_BAD_HASH_FN);
	t_build_tir(in, 1, c.rqtn, c.tdn);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_inner.selected_fields, 0x20);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_TIR_BAD_HASH_FIELDS);
	t_build_tir(in, 1, c.rqtn, c.tdn);
	MDEVX_SET(create_tir_in, in, ctx.lro_enable_mask, 4);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR,
			   SWDEV_SYND_TIR_BAD_LRO_MASK);
	t_build_tir(in, 1, c.rqtn, c.tdn);
	MDEVX_SET(create_tir_in, in, ctx.tls_en, 1);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_TIR_TLS);
	t_build_tir(in, 0, c.rqtn, c.tdn);	/* an rqtn as inline_rqn */
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_TIR_BAD_RQ);
	t_build_tir(in, 0, gc.rqn[0], c.tdn);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_TIR_RQ_OTHER_UID);
	t_build_tir(in, 1, c.rqn[0], c.tdn);	/* an rqn as indirect_table */
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_TIR_BAD_RQT);
	t_build_tir(in, 1, gc.rqtn, c.tdn);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_TIR_RQT_OTHER_UID);
	t_build_tir(in, 1, c.rqtn, c.pdn);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_TIR_BAD_TD);
	t_build_tir(in, 1, c.rqtn, gc.tdn);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_ERR,
			   SWDEV_SYND_TIR_TD_OTHER_UID);
	/* MODIFY_TIR */
	memset(min, 0, sizeof(min));
	MDEVX_SET(modify_tir_in, min, opcode, MDEVX_CMD_OP_MODIFY_TIR);
	MDEVX_SET(modify_tir_in, min, tirn, c.tirn);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, MDEVX_MODIFY_TIR_BITMASK_HASH |
		    MDEVX_MODIFY_TIR_BITMASK_LRO | MDEVX_MODIFY_TIR_BITMASK_SELF_LB_EN);
	MDEVX_SET(modify_tir_in, min, ctx.rx_hash_fn, MDEVX_RX_HASH_FN_INVERTED_XOR8);
	memset(MDEVX_ADDR_OF(modify_tir_in, min, ctx.rx_hash_toeplitz_key), 0x5a, 40);
	MDEVX_SET(modify_tir_in, min, ctx.rx_hash_field_selector_outer.selected_fields, 3);
	MDEVX_SET(modify_tir_in, min, ctx.lro_enable_mask, MDEVX_TIRC_LRO_IPV4);
	MDEVX_SET(modify_tir_in, min, ctx.lro_max_msg_sz, 0x20);
	MDEVX_SET(modify_tir_in, min, ctx.self_lb_block, MDEVX_TIRC_SELF_LB_BLOCK_UNICAST);
	MDEVX_SET(modify_tir_in, min, ctx.transport_domain, 0x777);	/* not in the mask */
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), 0);
	MDEVX_SET(query_tir_in, qin, tirn, c.tirn);
	CHECK_EQ(swdev_devx_obj_query(f, c.tir_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_fn), MDEVX_RX_HASH_FN_INVERTED_XOR8);
	CHECK_EQ(MDEVX_ADDR_OF(tirc, tc, rx_hash_toeplitz_key)[39], 0x5a);
	CHECK_EQ(MDEVX_GET(tirc, tc, rx_hash_field_selector_outer.selected_fields), 3);
	CHECK_EQ(MDEVX_GET(tirc, tc, lro_enable_mask), MDEVX_TIRC_LRO_IPV4);
	CHECK_EQ(MDEVX_GET(tirc, tc, lro_max_msg_sz), 0x20);
	CHECK_EQ(MDEVX_GET(tirc, tc, self_lb_block), MDEVX_TIRC_SELF_LB_BLOCK_UNICAST);
	CHECK_EQ(MDEVX_GET(tirc, tc, transport_domain), c.tdn);
	CHECK_EQ(MDEVX_GET(tirc, tc, indirect_table), c.rqtn);
	/* move the indirect TIR to a second RQT: references move */
	{
		uint8_t rin[RQT_IN(1)];

		len = t_build_rqt(rin, 0, 2, 1, &c.rqn[1]);
		CHECK_EQ(t_create(f, rin, len, NULL, &rqt2_h, &rqt2n), 0);
	}
	memset(min, 0, sizeof(min));
	MDEVX_SET(modify_tir_in, min, opcode, MDEVX_CMD_OP_MODIFY_TIR);
	MDEVX_SET(modify_tir_in, min, tirn, c.tirn);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, MDEVX_MODIFY_TIR_BITMASK_INDIRECT_TABLE);
	MDEVX_SET(modify_tir_in, min, ctx.indirect_table, gc.rqtn);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_RQT_OTHER_UID);
	MDEVX_SET(modify_tir_in, min, ctx.indirect_table, rqt2n);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, rqt2_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rqt_h), 0);	/* no longer used */
	/* modify refusals */
	MDEVX_SET64(modify_tir_in, min, modify_bitmask,
		    MDEVX_MODIFY_TIR_BITMASK_TUNNELED_OFFLOAD_EN);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_MODIFY_TUNNELED);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, 1ull << 40);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_BAD_BITMASK);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, MDEVX_MODIFY_TIR_BITMASK_HASH);
	MDEVX_SET(modify_tir_in, min, ctx.rx_hash_fn, 7);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_BAD_HASH_FN);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, MDEVX_MODIFY_TIR_BITMASK_LRO);
	MDEVX_SET(modify_tir_in, min, ctx.lro_enable_mask, 8);
	CHECK_EQ(swdev_devx_obj_modify(f, c.tir_h, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_BAD_LRO_MASK);
	MDEVX_SET(modify_tir_in, min, tirn, dtirn);
	MDEVX_SET64(modify_tir_in, min, modify_bitmask, MDEVX_MODIFY_TIR_BITMASK_INDIRECT_TABLE);
	MDEVX_SET(modify_tir_in, min, ctx.indirect_table, rqt2n);
	CHECK_EQ(swdev_devx_obj_modify(f, dh, min, sizeof(min), out, 16), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_TIR_MODIFY_DIRECT_TABLE);
	CHECK_EQ(swdev_devx_obj_modify(f, dh, min, sizeof(min) - 1, out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_INP_LEN_ERR);
	/* dependencies of TIRs */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.td_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[1]), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, dh), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[1]), EBUSY);	/* still in RQT 2 */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, rqt2_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[1]), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.td_h), 0);
	swdev_engine_destroy(eng);
}

static void
test_close_order(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	struct swdev_counts cnt;
	struct t_chain c, gc;
	uint8_t out[16];
	uint32_t fid = swdev_file_id(f);

	CHECK_EQ(t_chain_make(f, &c, 4), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	CHECK_EQ(t_alloc_counter(f, 1, 0, out, NULL), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, NULL), 0);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, fid, &cnt), 0);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_RQ], 4);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER], 2);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_TIR], 1);
	CHECK_EQ(cnt.total, 4 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1);
	/* leave everything referenced and close: all gone, g untouched */
	swdev_file_close(f);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, fid, &cnt), ENOENT);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.total, total(eng, swdev_file_id(g)));
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_TIR], 1);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER], 0);
	/* the ids are free again: a new file gets the same first pdn */
	f = swdev_file_open(eng, T_DEV);
	{
		uint32_t h, pdn;

		CHECK_EQ(swdev_file_pd_alloc(f, &h, &pdn), 0);
		CHECK_EQ(pdn, c.pdn);
	}
	swdev_file_close(g);
	swdev_file_close(f);
	CHECK_EQ(total(eng, 0), 0);
	swdev_engine_destroy(eng);
}

static void
test_limits(void)
{
	struct swdev_limits lim;
	struct swdev_engine *eng;
	struct swdev_file *f;
	struct t_chain c;
	uint8_t in[RQT_IN(1)], out[16];
	uint32_t h, id;

	swdev_limits_default(&lim);
	lim.log_max_tir = 0;	/* one of each */
	lim.log_max_rqt = 0;
	lim.log_max_transport_domain = 0;
	lim.log_max_cq = 0;
	lim.log_max_rq = 1;
	eng = new_engine(&lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_chain_make(f, &c, 2), 0);
	CHECK_CREATE_FAILS(eng, f, (t_build_tir(in, 0, c.rqn[0], c.tdn), in), TIR_IN,
			   MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_TIR_LIMIT);
	t_build_rqt(in, 0, 1, 1, c.rqn);
	CHECK_CREATE_FAILS(eng, f, in, RQT_IN(1), MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_RQT_LIMIT);
	{
		uint8_t td[16] = {0};

		MDEVX_SET(mbox_in, td, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
		CHECK_CREATE_FAILS(eng, f, td, 16, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_TD_LIMIT);
	}
	{
		uint8_t cq[CQ_IN], rq[RQ_IN];

		t_build_cq(cq, c.uar_page, c.eqn, c.umem_id, c.umem_id);
		CHECK_CREATE_FAILS(eng, f, cq, CQ_IN, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_CQ_LIMIT);
		t_build_rq(rq, c.cqn, c.pdn, c.umem_id, 40000, T_DBR_OFF + 200);
		CHECK_CREATE_FAILS(eng, f, rq, RQ_IN, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_RQ_LIMIT);
	}
	/* a freed TIR slot is reusable */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	t_build_tir(in, 0, c.rqn[0], c.tdn);
	CHECK_EQ(t_create(f, in, TIR_IN, out, &h, &id), 0);
	CHECK_EQ(MDEVX_GET(create_tir_out, out, tirn), c.tirn);
	swdev_engine_destroy(eng);

	/* handles per file */
	swdev_limits_default(&lim);
	lim.max_handles_per_file = 3;
	eng = new_engine(&lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	CHECK_EQ(t_alloc_td(f, &h, &id), 0);
	CHECK_EQ(t_alloc_td(f, &h, &id), ENOMEM);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), ENOMEM);
	CHECK_EQ(total(eng, 0), 3);
	swdev_engine_destroy(eng);
}

static void
test_faults(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct t_chain c;
	uint8_t in[TIR_IN];
	uint32_t h, id, before;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	before = total(eng, 0);
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_CREATE_TIR, 2,
				 MDEVX_CMD_STAT_BAD_RES_STATE_ERR, 0x1234, 0), 0);
	t_build_tir(in, 0, c.rqn[0], c.tdn);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_STATE_ERR, 0x1234);
	CHECK_CREATE_FAILS(eng, f, in, TIR_IN, MDEVX_CMD_STAT_BAD_RES_STATE_ERR, 0x1234);
	CHECK_EQ(t_create(f, in, TIR_IN, NULL, &h, &id), 0);
	CHECK_EQ(total(eng, 0), before + 1);
	/* a delayed destroy still destroys */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_DESTROY_TIR, 1, 0, 0, 777), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, h), 0);
	CHECK_EQ(swdev_file_take_delay(f), 777);
	CHECK_EQ(total(eng, 0), before);
	/* a failing destroy at close is ignored, as the kernel does */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_DESTROY_RQ, 10,
				 MDEVX_CMD_STAT_INT_ERR, 1, 0), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rqt_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.rq_h[0]), EIO);
	swdev_file_close(f);
	CHECK_EQ(total(eng, 0), 0);
	/* rule table full */
	{
		unsigned int i;
		int rc = 0;

		for (i = 0; i < SWDEV_MAX_FAULT_RULES + 1 && rc == 0; i++)
			rc = swdev_ctl_fault(eng, T_DEV, (uint16_t)(0x100 + i), 1, 1, 1, 0);
		CHECK_EQ(rc, ENOSPC);
		CHECK_EQ(i, SWDEV_MAX_FAULT_RULES);
	}
	swdev_engine_destroy(eng);
}

int
main(void)
{
	test_cq();
	test_rq();
	test_rqt();
	test_tir();
	test_close_order();
	test_limits();
	test_faults();
	return check_summary();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* An object-chain fixture and create helpers for the engine tests. */
#include <string.h>

#include "swdev_test_util.h"

int
t_create(struct swdev_file *f, const void *in, size_t inlen, uint8_t *out,
	 uint32_t *handle, uint32_t *id)
{
	struct swdev_obj_info info;
	uint8_t local[16];
	int rc;

	if (out == NULL)
		out = local;
	rc = swdev_devx_obj_create(f, in, inlen, out, 16, &info);
	if (rc == 0) {
		if (handle != NULL)
			*handle = info.handle;
		if (id != NULL)
			*id = MDEVX_GET(create_rq_out, out, rqn);
	}
	return rc;
}

int
t_alloc_td(struct swdev_file *f, uint32_t *handle, uint32_t *tdn)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_transport_domain_in)] = {0};

	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	return t_create(f, in, sizeof(in), NULL, handle, tdn);
}

int
t_alloc_counter(struct swdev_file *f, uint32_t bulk, uint32_t log_size, uint8_t *out,
		struct swdev_obj_info *info)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = {0};

	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk, bulk);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk_log_size, log_size);
	return swdev_devx_obj_create(f, in, sizeof(in), out,
				     MDEVX_ST_SZ_BYTES(alloc_flow_counter_out), info);
}

int
t_query_counter(struct swdev_file *f, uint32_t handle, uint32_t first, uint32_t num,
		int clear, uint8_t *out, size_t outlen)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = {0};

	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, first);
	MDEVX_SET(query_flow_counter_in, in, num_of_counters, num);
	MDEVX_SET(query_flow_counter_in, in, clear, clear ? 1 : 0);
	return swdev_devx_obj_query(f, handle, in, sizeof(in), out, outlen);
}

int
t_chain_make(struct swdev_file *f, struct t_chain *c, unsigned int nrq)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_rqt_in) + 4 * T_MAX_RQ];
	uint8_t out[16];
	unsigned int i;
	size_t len;

	memset(c, 0, sizeof(*c));
	if (nrq == 0 || nrq > T_MAX_RQ)
		return -1;
	c->nrq = nrq;
	if (swdev_file_pd_alloc(f, &c->pd_h, &c->pdn) ||
	    swdev_file_uar_alloc(f, &c->uar_h, &c->uar_page) ||
	    swdev_file_umem_reg(f, 0x10000, T_UMEM_SIZE, 7, &c->umem_h, &c->umem_id) ||
	    swdev_file_query_eqn(f, 0, &c->eqn))
		return -1;
	t_build_cq(in, c->uar_page, c->eqn, c->umem_id, c->umem_id);
	if (t_create(f, in, MDEVX_ST_SZ_BYTES(create_cq_in), out, &c->cq_h, &c->cqn))
		return -1;
	for (i = 0; i < nrq; i++) {
		t_build_rq(in, c->cqn, c->pdn, c->umem_id, 8192 + 4096 * (uint64_t)i,
			   T_DBR_OFF + 8 + 8 * (uint64_t)i);
		if (t_create(f, in, MDEVX_ST_SZ_BYTES(create_rq_in), out, &c->rq_h[i],
			     &c->rqn[i]))
			return -1;
	}
	if (t_alloc_td(f, &c->td_h, &c->tdn))
		return -1;
	len = t_build_rqt(in, 0, T_MAX_RQ, nrq, c->rqn);
	if (t_create(f, in, len, out, &c->rqt_h, &c->rqtn))
		return -1;
	{
		uint8_t tin[MDEVX_ST_SZ_BYTES(create_tir_in)];
		struct swdev_obj_info info;

		t_build_tir(tin, 1, c->rqtn, c->tdn);
		if (swdev_devx_obj_create(f, tin, sizeof(tin), out, sizeof(out), &info))
			return -1;
		c->tir_h = info.handle;
		c->tirn = MDEVX_GET(create_tir_out, out, tirn);
		c->tir_icm = info.rx_icm_addr;
	}
	return 0;
}

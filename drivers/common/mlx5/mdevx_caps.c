/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Device capabilities: QUERY_HCA_CAP, read once when a context is made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

#define CAP(out, fld) MDEVX_GET(query_hca_cap_out, out, capability.cmd_hca_cap.fld)
#define CAP2(out, fld) MDEVX_GET(query_hca_cap_out, out, capability.cmd_hca_cap_2.fld)

static int
query_page(struct mdevx_ctx *ctx, uint16_t op_mod, void *out, size_t outlen, bool quiet)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };

	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	MDEVX_SET(query_hca_cap_in, in, op_mod, op_mod);
	if (quiet)
		return mdevx_cmd_general_quiet(ctx, in, sizeof(in), out, outlen);
	return mdevx_cmd_general(ctx, in, sizeof(in), out, outlen);
}

int
mdevx_caps_query(struct mdevx_ctx *ctx)
{
	const size_t outlen = MDEVX_ST_SZ_BYTES(query_hca_cap_out);
	struct mdevx_caps *c = &ctx->caps;
	uint8_t *out = calloc(1, outlen);
	int rc;

	if (out == NULL)
		return ENOMEM;
	rc = query_page(ctx, MDEVX_HCA_CAP_OP_MOD_GENERAL_CUR, out, outlen, false);
	if (rc != 0) {
		free(out);
		return rc;
	}
	c->vhca_id = (uint16_t)CAP(out, vhca_id);
	c->max_flow_counters = (CAP(out, max_flow_counter_31_16) << 16) |
			       CAP(out, max_flow_counter_15_0);
	c->flow_counter_bulk_alloc = (uint8_t)CAP(out, flow_counter_bulk_alloc);
	c->log_max_flow_counter_bulk = (uint8_t)CAP(out, log_max_flow_counter_bulk);
	c->log_max_rqt_size = (uint8_t)CAP(out, log_max_rqt_size);
	c->log_max_tir = (uint8_t)CAP(out, log_max_tir);
	c->log_max_rq = (uint8_t)CAP(out, log_max_rq);
	c->log_max_rqt = (uint8_t)CAP(out, log_max_rqt);
	c->log_max_cq = (uint8_t)CAP(out, log_max_cq);
	c->log_max_cq_sz = (uint8_t)CAP(out, log_max_cq_sz);
	c->log_max_wq_sz = (uint8_t)CAP(out, log_max_wq_sz);
	c->log_max_transport_domain = (uint8_t)CAP(out, log_max_transport_domain);
	c->log_max_pd = (uint8_t)CAP(out, log_max_pd);
	c->max_counters_per_query = c->log_max_flow_counter_bulk >= MDEVX_LOG_QUERY_COUNTERS_MAX ?
		1u << MDEVX_LOG_QUERY_COUNTERS_MAX : 1u << c->log_max_flow_counter_bulk;
	/* Capabilities 2 are optional: older devices reject the page. */
	rc = query_page(ctx, MDEVX_HCA_CAP_OP_MOD_GENERAL_2_CUR, out, outlen, true);
	if (rc == 0) {
		c->has_caps2 = 1;
		c->flow_counter_bulk_log_max_alloc =
			(uint8_t)CAP2(out, flow_counter_bulk_log_max_alloc);
		c->flow_counter_bulk_log_granularity =
			(uint8_t)CAP2(out, flow_counter_bulk_log_granularity);
	} else {
		MDEVX_LOG(INFO, "%s: no general capabilities 2 (%s): log-size counter bulks "
			  "off", ctx->devstr, strerror(rc));
	}
	/* NIC flow table capabilities: optional too, they bound DEVX tables. */
	rc = query_page(ctx, MDEVX_HCA_CAP_OP_MOD_NIC_FLOW_TABLE_CUR, out, outlen, true);
	if (rc == 0) {
		ctx->has_ft_caps = true;
		ctx->log_max_ft_size = (uint8_t)MDEVX_GET(query_hca_cap_out, out, capability.
			flow_table_nic_cap.flow_table_properties_nic_receive.log_max_ft_size);
		ctx->max_ft_level = (uint8_t)MDEVX_GET(query_hca_cap_out, out, capability.
			flow_table_nic_cap.flow_table_properties_nic_receive.max_ft_level);
	}
	free(out);
	MDEVX_LOG(DEBUG, "%s: counters max %u bulk_alloc %#x log_max_bulk_query %u "
		  "log_max_alloc %u rqt_size 2^%u", ctx->devstr, c->max_flow_counters,
		  c->flow_counter_bulk_alloc, c->log_max_flow_counter_bulk,
		  c->flow_counter_bulk_log_max_alloc, c->log_max_rqt_size);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: QUERY_HCA_CAP (general capabilities, general
 * capabilities 2, the Ethernet offload and the NIC flow table capabilities;
 * maximum and current are the same) and NOP.
 *
 * The general page announces each other page it answers (hca_cap_2,
 * eth_net_offloads, nic_flow_table), as a ConnectX does: DPDK's mlx5 driver
 * reads a page only when its bit is set, and fails its probe when a page it
 * was told about is refused.
 */
#include "swdev_engine_priv.h"

static uint8_t
log2_ceil(uint32_t v)
{
	uint8_t l = 0;

	while (l < 31 && (1u << l) < v)
		l++;
	return l;
}

static void
fill_general(const struct swdev_dev *dev, uint8_t *cap)
{
	const struct swdev_limits *lim = &dev->lim;

	MDEVX_SET(cmd_hca_cap, cap, hca_cap_2, 1);
	MDEVX_SET(cmd_hca_cap, cap, vhca_id, dev->index);
	MDEVX_SET(cmd_hca_cap, cap, nic_flow_table, 1);
	MDEVX_SET(cmd_hca_cap, cap, eth_net_offloads, 1);
	MDEVX_SET(cmd_hca_cap, cap, log_max_cq_sz, lim->log_max_cq_sz);
	MDEVX_SET(cmd_hca_cap, cap, log_max_cq, lim->log_max_cq);
	MDEVX_SET(cmd_hca_cap, cap, log_max_eq, log2_ceil(lim->num_eqs));
	MDEVX_SET(cmd_hca_cap, cap, max_flow_counter_31_16, lim->max_flow_counters >> 16);
	MDEVX_SET(cmd_hca_cap, cap, max_flow_counter_15_0, lim->max_flow_counters & 0xffff);
	MDEVX_SET(cmd_hca_cap, cap, flow_counter_bulk_alloc, lim->flow_counter_bulk_alloc);
	MDEVX_SET(cmd_hca_cap, cap, log_max_transport_domain, lim->log_max_transport_domain);
	MDEVX_SET(cmd_hca_cap, cap, log_max_pd, lim->log_max_pd);
	MDEVX_SET(cmd_hca_cap, cap, log_max_flow_counter_bulk, lim->log_max_flow_counter_bulk);
	MDEVX_SET(cmd_hca_cap, cap, flow_counters_dump, 0);
	MDEVX_SET(cmd_hca_cap, cap, log_max_rq, lim->log_max_rq);
	MDEVX_SET(cmd_hca_cap, cap, log_max_tir, lim->log_max_tir);
	MDEVX_SET(cmd_hca_cap, cap, log_max_rqt, lim->log_max_rqt);
	MDEVX_SET(cmd_hca_cap, cap, log_max_rqt_size, lim->log_max_rqt_size);
	MDEVX_SET(cmd_hca_cap, cap, log_max_wq_sz, lim->log_max_wq_sz);
	MDEVX_SET64(cmd_hca_cap, cap, general_obj_types, 0);
	MDEVX_SET(cmd_hca_cap, cap, log_max_uctx, 16);
	MDEVX_SET(cmd_hca_cap, cap, log_max_umem, log2_ceil(lim->max_umems));
}

/* NIC receive flow table properties (flow_table_nic_cap). */
static void
fill_nic_flow_table(const struct swdev_dev *dev, uint8_t *cap)
{
	const struct swdev_limits *lim = &dev->lim;
	uint8_t *p = MDEVX_ADDR_OF(flow_table_nic_cap, cap, flow_table_properties_nic_receive);

	MDEVX_SET(flow_table_prop_layout, p, ft_support, 1);
	MDEVX_SET(flow_table_prop_layout, p, flow_counter, 1);
	MDEVX_SET(flow_table_prop_layout, p, flow_modify_en, 0);
	MDEVX_SET(flow_table_prop_layout, p, log_max_ft_size, lim->log_max_ft_size);
	MDEVX_SET(flow_table_prop_layout, p, max_ft_level, lim->max_ft_level);
	MDEVX_SET(flow_table_prop_layout, p, log_max_ft_num, lim->log_max_ft_num);
	MDEVX_SET(flow_table_prop_layout, p, log_max_flow_counter, lim->log_max_flow_counter);
	MDEVX_SET(flow_table_prop_layout, p, log_max_destination, lim->log_max_destination);
	MDEVX_SET(flow_table_prop_layout, p, log_max_flow, lim->log_max_flow);
}

int
swdev_cmd_query_hca_cap(struct swdev_cmd *cmd)
{
	uint8_t *cap;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(query_hca_cap_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(query_hca_cap_out)))
		return cmd->status;
	if (MDEVX_GET(query_hca_cap_in, cmd->in, other_function))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_HCA_CAP_OTHER_FUNC);
	cap = MDEVX_ADDR_OF(query_hca_cap_out, cmd->out, capability);
	switch (cmd->op_mod >> 1) {
	case MDEVX_HCA_CAP_TYPE_GENERAL:
		fill_general(cmd->dev, cap);
		return 0;
	case MDEVX_HCA_CAP_TYPE_GENERAL_2:
		MDEVX_SET(cmd_hca_cap_2, cap, flow_counter_bulk_log_max_alloc,
			  cmd->dev->lim.flow_counter_bulk_log_max_alloc);
		MDEVX_SET(cmd_hca_cap_2, cap, flow_counter_bulk_log_granularity, 0);
		return 0;
	case MDEVX_HCA_CAP_TYPE_ETHERNET_OFFLOAD:
		/*
		 * per_protocol_networking_offload_caps, all zero: no checksum,
		 * VLAN, LSO, LRO or tunnel offload (the device has no send
		 * path), wqe_inline_mode 0 (L2 headers inline), no RSS
		 * indirection table capability bits beyond what the general
		 * page states.
		 */
		return 0;
	case MDEVX_HCA_CAP_TYPE_NIC_FLOW_TABLE:
		fill_nic_flow_table(cmd->dev, cap);
		return 0;
	default:
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_HCA_CAP_BAD_TYPE);
	}
}

int
swdev_cmd_nop(struct swdev_cmd *cmd)
{
	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(mbox_in)))
		return cmd->status;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The part of DPDK 22.11's internal mlx5 DEVX command API (librte_common_mlx5,
 * version node INTERNAL) that the builder check calls. Debian ships the
 * library but not its internal headers, so the types are declared here from
 * the 22.11 ABI: every field in the order and width of the library's
 * structures, since the library writes them. A field out of place shows as a
 * mismatch against libmdevx in the check (the values compared sit at the
 * start, the middle and the end of struct dpdk_hca_attr).
 */
#ifndef DPDK_MLX5_ABI_H
#define DPDK_MLX5_ABI_H

#include <stdint.h>

/* struct mlx5_devx_obj */
struct dpdk_devx_obj {
	void *obj;	/* struct mlx5dv_devx_obj * */
	int id;		/* the PRM object number read from the create output */
};

/* struct mlx5_devx_counter_attr */
struct dpdk_counter_attr {
	uint32_t pd_valid:1;
	uint32_t pd:24;
	uint32_t bulk_log_max_alloc:1;
	union {
		uint8_t flow_counter_bulk_log_size;
		uint8_t bulk_n_128;
	};
};

/* struct mlx5_hca_qos_attr */
struct dpdk_hca_qos_attr {
	uint32_t sup:1, flow_meter_old:1, packet_pacing:1, wqe_rate_pp:1, flow_meter:1,
		 flow_meter_aso_sup:1;
	uint8_t log_max_flow_meter;
	uint8_t flow_meter_reg_c_ids;
	uint32_t log_meter_aso_granularity:5, log_meter_aso_max_alloc:5,
		 log_max_num_meter_aso:5;
};

/* struct mlx5_hca_vdpa_attr */
struct dpdk_hca_vdpa_attr {
	uint8_t virtio_queue_type;
	uint32_t valid:1, desc_tunnel_offload_type:1, eth_frame_offload_type:1,
		 virtio_version_1_0:1, tso_ipv4:1, tso_ipv6:1, tx_csum:1, rx_csum:1,
		 event_mode:3, log_doorbell_stride:5, log_doorbell_bar_size:5,
		 queue_counters_valid:1, vnet_modify_ext:1, virtio_net_q_addr_modify:1,
		 virtio_q_index_modify:1;
	uint32_t max_num_virtio_queues;
	struct {
		uint32_t a;
		uint32_t b;
	} umems[3];
	uint64_t doorbell_bar_offset;
};

/* struct mlx5_hca_flow_attr */
struct dpdk_hca_flow_attr {
	uint32_t tunnel_header_0_1;
	uint32_t tunnel_header_2_3;
};

/* struct mlx5_hca_flex_attr */
struct dpdk_hca_flex_attr {
	uint32_t node_in;
	uint32_t node_out;
	uint16_t header_length_mode;
	uint16_t sample_offset_mode;
	uint8_t max_num_arc_in;
	uint8_t max_num_arc_out;
	uint8_t max_num_sample;
	uint8_t max_num_prog_sample:5, sample_id_in_out:1;
	uint16_t max_base_header_length;
	uint8_t max_sample_base_offset;
	uint16_t max_next_header_offset;
	uint8_t header_length_mask_width;
};

/* struct mlx5_hca_attr (DPDK 22.11) */
struct dpdk_hca_attr {
	uint32_t eswitch_manager:1, flow_counters_dump:1, mem_rq_rmp:1, log_max_rmp:5,
		 log_max_rqt_size:5, parse_graph_flex_node:1;
	uint8_t flow_counter_bulk_alloc_bitmap;
	uint32_t eth_net_offloads:1, eth_virt:1, wqe_vlan_insert:1, csum_cap:1, vlan_cap:1,
		 wqe_inline_mode:2, vport_inline_mode:3, tunnel_stateless_geneve_rx:1,
		 geneve_max_opt_len:1, tunnel_stateless_gtp:1;
	uint32_t max_lso_cap;
	uint32_t scatter_fcs:1, lro_cap:1, tunnel_lro_gre:1, tunnel_lro_vxlan:1,
		 tunnel_stateless_gre:1, tunnel_stateless_vxlan:1, swp:1, swp_csum:1,
		 swp_lso:1, lro_max_msg_sz_mode:2, rq_delay_drop:1;
	uint32_t lro_timer_supported_periods[4];
	uint16_t lro_min_mss_size;
	uint32_t flex_parser_protocols;
	uint32_t max_geneve_tlv_options;
	uint32_t max_geneve_tlv_option_data_len;
	uint32_t hairpin:1, log_max_hairpin_queues:5, log_max_hairpin_wq_data_sz:5,
		 log_max_hairpin_num_packets:5, hairpin_sq_wqe_bb_size:4,
		 hairpin_sq_wq_in_host_mem:1, hairpin_data_buffer_locked:1;
	uint32_t vhca_id:16, relaxed_ordering_write:1, relaxed_ordering_read:1,
		 access_register_user:1, wqe_index_ignore:1, cross_channel:1, non_wire_sq:1,
		 log_max_static_sq_wq:5, num_lag_ports:4;
	uint32_t dev_freq_khz;
	uint32_t scatter_fcs_w_decap_disable:1, flow_hit_aso:1, roce:1, wait_on_time:1,
		 rq_ts_format:2, sq_ts_format:2, steering_format_version:4, qp_ts_format:2,
		 regexp_params:1, regexp_version:3, reg_c_preserve:1, ct_offload:1, crypto:1,
		 aes_xts:1, dek:1, import_kek:1, credential:1, crypto_login:1;
	uint32_t regexp_num_of_engines;
	uint32_t log_max_ft_sampler_num:8, inner_ipv4_ihl:1, outer_ipv4_ihl:1;
	uint32_t geneve_tlv_opt;
	uint32_t cqe_compression:1, mini_cqe_resp_flow_tag:1, mini_cqe_resp_l3_l4_tag:1,
		 pkt_integrity_match:1;
	struct dpdk_hca_qos_attr qos;
	struct dpdk_hca_vdpa_attr vdpa;
	struct dpdk_hca_flow_attr flow;
	struct dpdk_hca_flex_attr flex;
	uint8_t log_max_wq_sz;
	int log_max_qp_sz;
	int log_max_cq_sz;
	int log_max_qp;
	int log_max_cq;
	uint32_t log_max_pd;
	uint32_t log_max_mrw_sz;
	uint32_t log_max_srq;
	uint32_t log_max_srq_sz;
	uint32_t rss_ind_tbl_cap;
	uint32_t mmo_dma_sq_en:1, mmo_compress_sq_en:1, mmo_decompress_sq_en:1,
		 mmo_dma_qp_en:1, mmo_compress_qp_en:1, mmo_decompress_qp_en:1,
		 mmo_regex_qp_en:1, mmo_regex_sq_en:1, compress_min_block_size:4,
		 log_max_mmo_dma:5, log_max_mmo_compress:5, log_max_mmo_decompress:5,
		 umr_modify_entity_size_disabled:1, umr_indirect_mkey_disabled:1,
		 log_min_stride_wqe_sz:5, esw_mgr_vport_id_valid:1,
		 crypto_wrapped_import_method:1;
	uint16_t esw_mgr_vport_id;
	uint16_t max_wqe_sz_sq;
	uint32_t set_reg_c:8, nic_flow_table:1, modify_outer_ip_ecn:1;
	union {
		uint32_t max_flow_counter;
		struct {
			uint16_t max_flow_counter_15_0;
			uint16_t max_flow_counter_31_16;
		};
	};
	uint32_t flow_counter_bulk_log_max_alloc:5, flow_counter_bulk_log_granularity:5,
		 alloc_flow_counter_pd:1, flow_counter_access_aso:1, flow_access_aso_opc_mod:8;
};

/* struct mlx5_rx_hash_field_select */
struct dpdk_rx_hash_field_select {
	uint32_t l3_prot_type:1, l4_prot_type:1, selected_fields:30;
};

/* struct mlx5_devx_tir_attr */
struct dpdk_tir_attr {
	uint32_t disp_type:4, lro_timeout_period_usecs:16, lro_enable_mask:4,
		 lro_max_msg_sz:8;
	uint32_t inline_rqn:24, rx_hash_symmetric:1, tunneled_offload_en:1;
	uint32_t indirect_table:24, rx_hash_fn:4, self_lb_block:2;
	uint32_t transport_domain:24;
	uint8_t rx_hash_toeplitz_key[40];
	struct dpdk_rx_hash_field_select rx_hash_field_selector_outer;
	struct dpdk_rx_hash_field_select rx_hash_field_selector_inner;
};

/* struct mlx5_devx_rqt_attr */
struct dpdk_rqt_attr {
	uint8_t rq_type;
	uint32_t rqt_max_size:16, rqt_actual_size:16;
	uint32_t rq_list[];
};

/* The builders (mlx5_devx_cmds.c); ctx is a DEVX struct ibv_context *. */
int mlx5_devx_cmd_query_hca_attr(void *ctx, struct dpdk_hca_attr *attr);
struct dpdk_devx_obj *mlx5_devx_cmd_flow_counter_alloc(void *ctx, uint32_t bulk_n_128);
struct dpdk_devx_obj *mlx5_devx_cmd_flow_counter_alloc_general(void *ctx,
							       struct dpdk_counter_attr *attr);
int mlx5_devx_cmd_flow_counter_query(struct dpdk_devx_obj *dcs, int clear, uint32_t n_counters,
				     uint64_t *pkts, uint64_t *bytes, uint32_t mkey, void *addr,
				     void *cmd_comp, uint64_t async_id);
struct dpdk_devx_obj *mlx5_devx_cmd_create_td(void *ctx);
struct dpdk_devx_obj *mlx5_devx_cmd_create_rqt(void *ctx, struct dpdk_rqt_attr *attr);
struct dpdk_devx_obj *mlx5_devx_cmd_create_tir(void *ctx, struct dpdk_tir_attr *attr);
struct dpdk_devx_obj *mlx5_devx_cmd_alloc_pd(void *ctx);
int mlx5_devx_cmd_destroy(struct dpdk_devx_obj *obj);

#endif /* DPDK_MLX5_ABI_H */

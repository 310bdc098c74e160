/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PRM layout checks: every field offset, width and struct size declared in
 * lib/prm/mdevx_prm.h against the numbers of shared/prm_facts.md (the
 * CHECK_FLD / CHECK_OFF / CHECK_SIZE lines below were produced from the facts
 * tables), then run-time checks of the accessors on known byte patterns.
 */
#include <stdint.h>
#include <string.h>

#include "mdevx_prm.h"
#include "swdev_test.h"

#define CHECK_FLD(typ, fld, off, width) \
	_Static_assert(MDEVX_BIT_OFF(typ, fld) == (off) && \
		       MDEVX_FLD_SZ_BITS(typ, fld) == (width), #typ "." #fld)
#define CHECK_OFF(typ, fld, off) \
	_Static_assert(MDEVX_BIT_OFF(typ, fld) == (off), #typ "." #fld)
#define CHECK_SIZE(typ, bytes) \
	_Static_assert(MDEVX_ST_SZ_BYTES(typ) == (bytes), "size of " #typ)

/* ---- from shared/prm_facts.md ---- */
CHECK_FLD(general_obj_in_cmd_hdr, opcode, 0x0, 16);
CHECK_FLD(general_obj_in_cmd_hdr, uid, 0x10, 16);
CHECK_FLD(general_obj_in_cmd_hdr, obj_type, 0x30, 16);
CHECK_FLD(general_obj_in_cmd_hdr, vhca_tunnel_id, 0x20, 16);
CHECK_FLD(general_obj_in_cmd_hdr, obj_id, 0x40, 32);
CHECK_FLD(general_obj_in_cmd_hdr, log_obj_range, 0x63, 5);
CHECK_FLD(mbox_in, opcode, 0x0, 16);
CHECK_FLD(mbox_in, uid, 0x10, 16);
CHECK_FLD(mbox_in, op_mod, 0x30, 16);
CHECK_FLD(general_obj_out_cmd_hdr, status, 0x0, 8);
CHECK_FLD(general_obj_out_cmd_hdr, syndrome, 0x20, 32);
CHECK_FLD(general_obj_out_cmd_hdr, obj_id, 0x40, 32);
CHECK_FLD(mbox_out, status, 0x0, 8);
CHECK_FLD(mbox_out, syndrome, 0x20, 32);
CHECK_FLD(alloc_flow_counter_in, opcode, 0x0, 16);
CHECK_FLD(alloc_flow_counter_in, uid, 0x10, 16);
CHECK_FLD(alloc_flow_counter_in, op_mod, 0x30, 16);
CHECK_FLD(alloc_flow_counter_in, pd, 0x48, 24);
CHECK_FLD(alloc_flow_counter_in, flow_counter_bulk_log_size, 0x73, 5);
CHECK_FLD(alloc_flow_counter_in, flow_counter_bulk, 0x78, 8);
CHECK_FLD(alloc_flow_counter_out, status, 0x0, 8);
CHECK_FLD(alloc_flow_counter_out, syndrome, 0x20, 32);
CHECK_FLD(alloc_flow_counter_out, flow_counter_id, 0x40, 32);
CHECK_FLD(dealloc_flow_counter_in, opcode, 0x0, 16);
CHECK_FLD(dealloc_flow_counter_in, uid, 0x10, 16);
CHECK_FLD(dealloc_flow_counter_in, op_mod, 0x30, 16);
CHECK_FLD(dealloc_flow_counter_in, flow_counter_id, 0x40, 32);
CHECK_FLD(query_flow_counter_in, opcode, 0x0, 16);
CHECK_FLD(query_flow_counter_in, uid, 0x10, 16);
CHECK_FLD(query_flow_counter_in, op_mod, 0x30, 16);
CHECK_FLD(query_flow_counter_in, mkey, 0x60, 32);
CHECK_FLD(query_flow_counter_in, address, 0x80, 64);
CHECK_FLD(query_flow_counter_in, clear, 0xc0, 1);
CHECK_FLD(query_flow_counter_in, dump_to_memory, 0xc1, 1);
CHECK_FLD(query_flow_counter_in, num_of_counters, 0xc2, 30);
CHECK_FLD(query_flow_counter_in, flow_counter_id, 0xe0, 32);
CHECK_FLD(query_flow_counter_out, status, 0x0, 8);
CHECK_FLD(query_flow_counter_out, syndrome, 0x20, 32);
CHECK_OFF(query_flow_counter_out, flow_statistics[0], 0x80);
CHECK_FLD(query_flow_counter_out, flow_statistics[0].packets, 0x80, 64);
CHECK_FLD(query_flow_counter_out, flow_statistics[0].octets, 0xc0, 64);
CHECK_FLD(traffic_counter, packets, 0x0, 64);
CHECK_FLD(traffic_counter, octets, 0x40, 64);
CHECK_FLD(alloc_transport_domain_in, opcode, 0x0, 16);
CHECK_FLD(alloc_transport_domain_in, uid, 0x10, 16);
CHECK_FLD(alloc_transport_domain_in, op_mod, 0x30, 16);
CHECK_FLD(alloc_transport_domain_out, status, 0x0, 8);
CHECK_FLD(alloc_transport_domain_out, syndrome, 0x20, 32);
CHECK_FLD(alloc_transport_domain_out, transport_domain, 0x48, 24);
CHECK_FLD(dealloc_transport_domain_in, opcode, 0x0, 16);
CHECK_FLD(dealloc_transport_domain_in, uid, 0x10, 16);
CHECK_FLD(dealloc_transport_domain_in, op_mod, 0x30, 16);
CHECK_FLD(dealloc_transport_domain_in, transport_domain, 0x48, 24);
CHECK_FLD(create_tir_in, opcode, 0x0, 16);
CHECK_FLD(create_tir_in, uid, 0x10, 16);
CHECK_FLD(create_tir_in, op_mod, 0x30, 16);
CHECK_FLD(create_tir_in, ctx, 0x100, 1920);
CHECK_FLD(create_tir_in, ctx.disp_type, 0x120, 4);
CHECK_FLD(create_tir_in, ctx.tls_en, 0x124, 1);
CHECK_FLD(create_tir_in, ctx.lro_timeout_period_usecs, 0x184, 16);
CHECK_FLD(create_tir_in, ctx.lro_enable_mask, 0x194, 4);
CHECK_FLD(create_tir_in, ctx.lro_max_msg_sz, 0x198, 8);
CHECK_FLD(create_tir_in, ctx.inline_rqn, 0x1e8, 24);
CHECK_FLD(create_tir_in, ctx.rx_hash_symmetric, 0x200, 1);
CHECK_FLD(create_tir_in, ctx.tunneled_offload_en, 0x202, 1);
CHECK_FLD(create_tir_in, ctx.indirect_table, 0x208, 24);
CHECK_FLD(create_tir_in, ctx.rx_hash_fn, 0x220, 4);
CHECK_FLD(create_tir_in, ctx.self_lb_block, 0x226, 2);
CHECK_FLD(create_tir_in, ctx.transport_domain, 0x228, 24);
CHECK_FLD(create_tir_in, ctx.rx_hash_toeplitz_key, 0x240, 320);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_outer, 0x380, 32);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_outer.l3_prot_type, 0x380, 1);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_outer.l4_prot_type, 0x381, 1);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_outer.selected_fields, 0x382, 30);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_inner, 0x3a0, 32);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_inner.l3_prot_type, 0x3a0, 1);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_inner.l4_prot_type, 0x3a1, 1);
CHECK_FLD(create_tir_in, ctx.rx_hash_field_selector_inner.selected_fields, 0x3a2, 30);
CHECK_FLD(create_tir_out, status, 0x0, 8);
CHECK_FLD(create_tir_out, icm_address_63_40, 0x8, 24);
CHECK_FLD(create_tir_out, syndrome, 0x20, 32);
CHECK_FLD(create_tir_out, icm_address_39_32, 0x40, 8);
CHECK_FLD(create_tir_out, tirn, 0x48, 24);
CHECK_FLD(create_tir_out, icm_address_31_0, 0x60, 32);
CHECK_FLD(tirc, disp_type, 0x20, 4);
CHECK_FLD(tirc, tls_en, 0x24, 1);
CHECK_FLD(tirc, lro_timeout_period_usecs, 0x84, 16);
CHECK_FLD(tirc, lro_enable_mask, 0x94, 4);
CHECK_FLD(tirc, lro_max_msg_sz, 0x98, 8);
CHECK_FLD(tirc, inline_rqn, 0xe8, 24);
CHECK_FLD(tirc, rx_hash_symmetric, 0x100, 1);
CHECK_FLD(tirc, tunneled_offload_en, 0x102, 1);
CHECK_FLD(tirc, indirect_table, 0x108, 24);
CHECK_FLD(tirc, rx_hash_fn, 0x120, 4);
CHECK_FLD(tirc, self_lb_block, 0x126, 2);
CHECK_FLD(tirc, transport_domain, 0x128, 24);
CHECK_FLD(tirc, rx_hash_toeplitz_key, 0x140, 320);
CHECK_FLD(tirc, rx_hash_field_selector_outer, 0x280, 32);
CHECK_FLD(tirc, rx_hash_field_selector_outer.l3_prot_type, 0x280, 1);
CHECK_FLD(tirc, rx_hash_field_selector_outer.l4_prot_type, 0x281, 1);
CHECK_FLD(tirc, rx_hash_field_selector_outer.selected_fields, 0x282, 30);
CHECK_FLD(tirc, rx_hash_field_selector_inner, 0x2a0, 32);
CHECK_FLD(tirc, rx_hash_field_selector_inner.l3_prot_type, 0x2a0, 1);
CHECK_FLD(tirc, rx_hash_field_selector_inner.l4_prot_type, 0x2a1, 1);
CHECK_FLD(tirc, rx_hash_field_selector_inner.selected_fields, 0x2a2, 30);
CHECK_FLD(rx_hash_field_select, l3_prot_type, 0x0, 1);
CHECK_FLD(rx_hash_field_select, l4_prot_type, 0x1, 1);
CHECK_FLD(rx_hash_field_select, selected_fields, 0x2, 30);
CHECK_FLD(modify_tir_in, opcode, 0x0, 16);
CHECK_FLD(modify_tir_in, uid, 0x10, 16);
CHECK_FLD(modify_tir_in, op_mod, 0x30, 16);
CHECK_FLD(modify_tir_in, tirn, 0x48, 24);
CHECK_FLD(modify_tir_in, modify_bitmask, 0x80, 64);
CHECK_FLD(modify_tir_in, ctx, 0x100, 1920);
CHECK_FLD(destroy_tir_in, opcode, 0x0, 16);
CHECK_FLD(destroy_tir_in, uid, 0x10, 16);
CHECK_FLD(destroy_tir_in, op_mod, 0x30, 16);
CHECK_FLD(destroy_tir_in, tirn, 0x48, 24);
CHECK_FLD(query_tir_in, opcode, 0x0, 16);
CHECK_FLD(query_tir_in, uid, 0x10, 16);
CHECK_FLD(query_tir_in, op_mod, 0x30, 16);
CHECK_FLD(query_tir_in, tirn, 0x48, 24);
CHECK_FLD(query_tir_out, status, 0x0, 8);
CHECK_FLD(query_tir_out, syndrome, 0x20, 32);
CHECK_FLD(query_tir_out, tir_context, 0x100, 1920);
CHECK_FLD(create_rqt_in, opcode, 0x0, 16);
CHECK_FLD(create_rqt_in, uid, 0x10, 16);
CHECK_FLD(create_rqt_in, op_mod, 0x30, 16);
CHECK_FLD(create_rqt_in, rqt_context, 0x100, 1920);
CHECK_FLD(create_rqt_in, rqt_context.list_q_type, 0x1a5, 3);
CHECK_FLD(create_rqt_in, rqt_context.rqt_max_size, 0x1b0, 16);
CHECK_FLD(create_rqt_in, rqt_context.rq_vhca_id_format, 0x1c0, 1);
CHECK_FLD(create_rqt_in, rqt_context.rqt_actual_size, 0x1d0, 16);
CHECK_FLD(create_rqt_in, rqt_context.rq_num[0], 0x880, 32);
CHECK_FLD(create_rqt_in, rqt_context.rq_num[0].rq_num, 0x888, 24);
CHECK_FLD(create_rqt_out, status, 0x0, 8);
CHECK_FLD(create_rqt_out, syndrome, 0x20, 32);
CHECK_FLD(create_rqt_out, rqtn, 0x48, 24);
CHECK_FLD(rqtc, list_q_type, 0xa5, 3);
CHECK_FLD(rqtc, rqt_max_size, 0xb0, 16);
CHECK_FLD(rqtc, rq_vhca_id_format, 0xc0, 1);
CHECK_FLD(rqtc, rqt_actual_size, 0xd0, 16);
CHECK_FLD(rqtc, rq_num[0], 0x780, 32);
CHECK_FLD(rqtc, rq_num[0].rq_num, 0x788, 24);
CHECK_FLD(modify_rqt_in, opcode, 0x0, 16);
CHECK_FLD(modify_rqt_in, uid, 0x10, 16);
CHECK_FLD(modify_rqt_in, op_mod, 0x30, 16);
CHECK_FLD(modify_rqt_in, rqtn, 0x48, 24);
CHECK_FLD(modify_rqt_in, modify_bitmask, 0x80, 64);
/* modify_rqt_in bitmask.rqn_list (bit 0xbf) = MDEVX_MODIFY_RQT_BITMASK_RQN_LIST */
CHECK_FLD(modify_rqt_in, rqt_context, 0x100, 1920);
CHECK_FLD(modify_rqt_in, rqt_context.rqt_actual_size, 0x1d0, 16);
CHECK_FLD(modify_rqt_in, rqt_context.rq_num[0].rq_num, 0x888, 24);
CHECK_FLD(destroy_rqt_in, opcode, 0x0, 16);
CHECK_FLD(destroy_rqt_in, uid, 0x10, 16);
CHECK_FLD(destroy_rqt_in, op_mod, 0x30, 16);
CHECK_FLD(destroy_rqt_in, rqtn, 0x48, 24);
CHECK_FLD(create_rq_in, opcode, 0x0, 16);
CHECK_FLD(create_rq_in, uid, 0x10, 16);
CHECK_FLD(create_rq_in, op_mod, 0x30, 16);
CHECK_FLD(create_rq_in, ctx, 0x100, 1920);
CHECK_FLD(create_rq_in, ctx.rlky, 0x100, 1);
CHECK_FLD(create_rq_in, ctx.delay_drop_en, 0x101, 1);
CHECK_FLD(create_rq_in, ctx.scatter_fcs, 0x102, 1);
CHECK_FLD(create_rq_in, ctx.vsd, 0x103, 1);
CHECK_FLD(create_rq_in, ctx.mem_rq_type, 0x104, 4);
CHECK_FLD(create_rq_in, ctx.state, 0x108, 4);
CHECK_FLD(create_rq_in, ctx.flush_in_error_en, 0x10d, 1);
CHECK_FLD(create_rq_in, ctx.hairpin, 0x10e, 1);
CHECK_FLD(create_rq_in, ctx.ts_format, 0x11a, 2);
CHECK_FLD(create_rq_in, ctx.user_index, 0x128, 24);
CHECK_FLD(create_rq_in, ctx.cqn, 0x148, 24);
CHECK_FLD(create_rq_in, ctx.counter_set_id, 0x160, 8);
CHECK_FLD(create_rq_in, ctx.rmpn, 0x188, 24);
CHECK_FLD(create_rq_in, ctx.hairpin_peer_sq, 0x1a8, 24);
CHECK_FLD(create_rq_in, ctx.hairpin_peer_vhca, 0x1d0, 16);
CHECK_FLD(create_rq_in, ctx.wq, 0x280, 1536);
CHECK_FLD(create_rq_in, ctx.wq.wq_type, 0x280, 4);
CHECK_FLD(create_rq_in, ctx.wq.wq_signature, 0x284, 1);
CHECK_FLD(create_rq_in, ctx.wq.end_padding_mode, 0x285, 2);
CHECK_FLD(create_rq_in, ctx.wq.cd_slave, 0x287, 1);
CHECK_FLD(create_rq_in, ctx.wq.page_offset, 0x2ab, 5);
CHECK_FLD(create_rq_in, ctx.wq.lwm, 0x2b0, 16);
CHECK_FLD(create_rq_in, ctx.wq.pd, 0x2c8, 24);
CHECK_FLD(create_rq_in, ctx.wq.uar_page, 0x2e8, 24);
CHECK_FLD(create_rq_in, ctx.wq.dbr_addr, 0x300, 64);
CHECK_FLD(create_rq_in, ctx.wq.hw_counter, 0x340, 32);
CHECK_FLD(create_rq_in, ctx.wq.sw_counter, 0x360, 32);
CHECK_FLD(create_rq_in, ctx.wq.log_wq_stride, 0x38c, 4);
CHECK_FLD(create_rq_in, ctx.wq.log_wq_pg_sz, 0x393, 5);
CHECK_FLD(create_rq_in, ctx.wq.log_wq_sz, 0x39b, 5);
CHECK_FLD(create_rq_in, ctx.wq.dbr_umem_valid, 0x3a0, 1);
CHECK_FLD(create_rq_in, ctx.wq.wq_umem_valid, 0x3a1, 1);
CHECK_FLD(create_rq_in, ctx.wq.log_hairpin_num_packets, 0x3a3, 5);
CHECK_FLD(create_rq_in, ctx.wq.log_hairpin_data_sz, 0x3ab, 5);
CHECK_FLD(create_rq_in, ctx.wq.single_wqe_log_num_of_strides, 0x3b4, 4);
CHECK_FLD(create_rq_in, ctx.wq.two_byte_shift_en, 0x3b8, 1);
CHECK_FLD(create_rq_in, ctx.wq.single_stride_log_num_of_bytes, 0x3bd, 3);
CHECK_FLD(create_rq_in, ctx.wq.dbr_umem_id, 0x3c0, 32);
CHECK_FLD(create_rq_in, ctx.wq.wq_umem_id, 0x3e0, 32);
CHECK_FLD(create_rq_in, ctx.wq.wq_umem_offset, 0x400, 64);
CHECK_FLD(create_rq_out, status, 0x0, 8);
CHECK_FLD(create_rq_out, syndrome, 0x20, 32);
CHECK_FLD(create_rq_out, rqn, 0x48, 24);
CHECK_FLD(rqc, rlky, 0x0, 1);
CHECK_FLD(rqc, delay_drop_en, 0x1, 1);
CHECK_FLD(rqc, scatter_fcs, 0x2, 1);
CHECK_FLD(rqc, vsd, 0x3, 1);
CHECK_FLD(rqc, mem_rq_type, 0x4, 4);
CHECK_FLD(rqc, state, 0x8, 4);
CHECK_FLD(rqc, flush_in_error_en, 0xd, 1);
CHECK_FLD(rqc, hairpin, 0xe, 1);
CHECK_FLD(rqc, ts_format, 0x1a, 2);
CHECK_FLD(rqc, user_index, 0x28, 24);
CHECK_FLD(rqc, cqn, 0x48, 24);
CHECK_FLD(rqc, counter_set_id, 0x60, 8);
CHECK_FLD(rqc, rmpn, 0x88, 24);
CHECK_FLD(rqc, hairpin_peer_sq, 0xa8, 24);
CHECK_FLD(rqc, hairpin_peer_vhca, 0xd0, 16);
CHECK_FLD(rqc, wq, 0x180, 1536);
CHECK_FLD(wq, wq_type, 0x0, 4);
CHECK_FLD(wq, wq_signature, 0x4, 1);
CHECK_FLD(wq, end_padding_mode, 0x5, 2);
CHECK_FLD(wq, cd_slave, 0x7, 1);
CHECK_FLD(wq, page_offset, 0x2b, 5);
CHECK_FLD(wq, lwm, 0x30, 16);
CHECK_FLD(wq, pd, 0x48, 24);
CHECK_FLD(wq, uar_page, 0x68, 24);
CHECK_FLD(wq, dbr_addr, 0x80, 64);
CHECK_FLD(wq, hw_counter, 0xc0, 32);
CHECK_FLD(wq, sw_counter, 0xe0, 32);
CHECK_FLD(wq, log_wq_stride, 0x10c, 4);
CHECK_FLD(wq, log_wq_pg_sz, 0x113, 5);
CHECK_FLD(wq, log_wq_sz, 0x11b, 5);
CHECK_FLD(wq, dbr_umem_valid, 0x120, 1);
CHECK_FLD(wq, wq_umem_valid, 0x121, 1);
CHECK_FLD(wq, log_hairpin_num_packets, 0x123, 5);
CHECK_FLD(wq, log_hairpin_data_sz, 0x12b, 5);
CHECK_FLD(wq, single_wqe_log_num_of_strides, 0x134, 4);
CHECK_FLD(wq, two_byte_shift_en, 0x138, 1);
CHECK_FLD(wq, single_stride_log_num_of_bytes, 0x13d, 3);
CHECK_FLD(wq, dbr_umem_id, 0x140, 32);
CHECK_FLD(wq, wq_umem_id, 0x160, 32);
CHECK_FLD(wq, wq_umem_offset, 0x180, 64);
CHECK_FLD(modify_rq_in, opcode, 0x0, 16);
CHECK_FLD(modify_rq_in, uid, 0x10, 16);
CHECK_FLD(modify_rq_in, op_mod, 0x30, 16);
CHECK_FLD(modify_rq_in, rq_state, 0x40, 4);
CHECK_FLD(modify_rq_in, rqn, 0x48, 24);
CHECK_FLD(modify_rq_in, modify_bitmask, 0x80, 64);
CHECK_FLD(modify_rq_in, ctx, 0x100, 1920);
CHECK_FLD(modify_rq_in, ctx.state, 0x108, 4);
CHECK_FLD(modify_rq_in, ctx.vsd, 0x103, 1);
CHECK_FLD(modify_rq_in, ctx.scatter_fcs, 0x102, 1);
CHECK_FLD(modify_rq_in, ctx.counter_set_id, 0x160, 8);
CHECK_FLD(modify_rq_in, ctx.wq.lwm, 0x2b0, 16);
CHECK_FLD(destroy_rq_in, opcode, 0x0, 16);
CHECK_FLD(destroy_rq_in, uid, 0x10, 16);
CHECK_FLD(destroy_rq_in, op_mod, 0x30, 16);
CHECK_FLD(destroy_rq_in, rqn, 0x48, 24);
CHECK_FLD(create_cq_in, opcode, 0x0, 16);
CHECK_FLD(create_cq_in, uid, 0x10, 16);
CHECK_FLD(create_cq_in, op_mod, 0x30, 16);
CHECK_FLD(create_cq_in, cq_context, 0x80, 512);
CHECK_FLD(create_cq_in, cq_context.status, 0x80, 4);
CHECK_FLD(create_cq_in, cq_context.dbr_umem_valid, 0x86, 1);
CHECK_FLD(create_cq_in, cq_context.cqe_sz, 0x88, 3);
CHECK_FLD(create_cq_in, cq_context.cc, 0x8b, 1);
CHECK_FLD(create_cq_in, cq_context.scqe_break_moderation_en, 0x8d, 1);
CHECK_FLD(create_cq_in, cq_context.oi, 0x8e, 1);
CHECK_FLD(create_cq_in, cq_context.cq_period_mode, 0x8f, 2);
CHECK_FLD(create_cq_in, cq_context.cqe_comp_en, 0x91, 1);
CHECK_FLD(create_cq_in, cq_context.mini_cqe_res_format, 0x92, 2);
CHECK_FLD(create_cq_in, cq_context.st, 0x94, 4);
CHECK_FLD(create_cq_in, cq_context.dbr_umem_id, 0xa0, 32);
CHECK_FLD(create_cq_in, cq_context.page_offset, 0xd4, 6);
CHECK_FLD(create_cq_in, cq_context.log_cq_size, 0xe3, 5);
CHECK_FLD(create_cq_in, cq_context.uar_page, 0xe8, 24);
CHECK_FLD(create_cq_in, cq_context.cq_period, 0x104, 12);
CHECK_FLD(create_cq_in, cq_context.cq_max_count, 0x110, 16);
CHECK_FLD(create_cq_in, cq_context.c_eqn, 0x138, 8);
CHECK_FLD(create_cq_in, cq_context.c_eqn_or_apu_element, 0x120, 32);
CHECK_FLD(create_cq_in, cq_context.log_page_size, 0x143, 5);
CHECK_FLD(create_cq_in, cq_context.last_notified_index, 0x188, 24);
CHECK_FLD(create_cq_in, cq_context.last_solicit_index, 0x1a8, 24);
CHECK_FLD(create_cq_in, cq_context.consumer_counter, 0x1c8, 24);
CHECK_FLD(create_cq_in, cq_context.producer_counter, 0x1e8, 24);
CHECK_FLD(create_cq_in, cq_context.dbr_addr, 0x240, 64);
CHECK_FLD(create_cq_in, cq_umem_offset, 0x280, 64);
CHECK_FLD(create_cq_in, cq_umem_id, 0x2c0, 32);
CHECK_FLD(create_cq_in, cq_umem_valid, 0x2e0, 1);
CHECK_OFF(create_cq_in, pas[0], 0x880);
CHECK_FLD(create_cq_out, status, 0x0, 8);
CHECK_FLD(create_cq_out, syndrome, 0x20, 32);
CHECK_FLD(create_cq_out, cqn, 0x48, 24);
CHECK_FLD(cqc, status, 0x0, 4);
CHECK_FLD(cqc, dbr_umem_valid, 0x6, 1);
CHECK_FLD(cqc, cqe_sz, 0x8, 3);
CHECK_FLD(cqc, cc, 0xb, 1);
CHECK_FLD(cqc, scqe_break_moderation_en, 0xd, 1);
CHECK_FLD(cqc, oi, 0xe, 1);
CHECK_FLD(cqc, cq_period_mode, 0xf, 2);
CHECK_FLD(cqc, cqe_comp_en, 0x11, 1);
CHECK_FLD(cqc, mini_cqe_res_format, 0x12, 2);
CHECK_FLD(cqc, st, 0x14, 4);
CHECK_FLD(cqc, dbr_umem_id, 0x20, 32);
CHECK_FLD(cqc, page_offset, 0x54, 6);
CHECK_FLD(cqc, log_cq_size, 0x63, 5);
CHECK_FLD(cqc, uar_page, 0x68, 24);
CHECK_FLD(cqc, cq_period, 0x84, 12);
CHECK_FLD(cqc, cq_max_count, 0x90, 16);
CHECK_FLD(cqc, c_eqn, 0xb8, 8);
CHECK_FLD(cqc, c_eqn_or_apu_element, 0xa0, 32);
CHECK_FLD(cqc, log_page_size, 0xc3, 5);
CHECK_FLD(cqc, last_notified_index, 0x108, 24);
CHECK_FLD(cqc, last_solicit_index, 0x128, 24);
CHECK_FLD(cqc, consumer_counter, 0x148, 24);
CHECK_FLD(cqc, producer_counter, 0x168, 24);
CHECK_FLD(cqc, dbr_addr, 0x1c0, 64);
CHECK_FLD(destroy_cq_in, opcode, 0x0, 16);
CHECK_FLD(destroy_cq_in, uid, 0x10, 16);
CHECK_FLD(destroy_cq_in, op_mod, 0x30, 16);
CHECK_FLD(destroy_cq_in, cqn, 0x48, 24);
CHECK_FLD(query_hca_cap_in, opcode, 0x0, 16);
CHECK_FLD(query_hca_cap_in, uid, 0x10, 16);
CHECK_FLD(query_hca_cap_in, op_mod, 0x30, 16);
CHECK_FLD(query_hca_cap_in, other_function, 0x40, 1);
CHECK_FLD(query_hca_cap_in, function_id, 0x50, 16);
CHECK_FLD(query_hca_cap_out, status, 0x0, 8);
CHECK_FLD(query_hca_cap_out, syndrome, 0x20, 32);
CHECK_FLD(query_hca_cap_out, capability, 0x80, 32768);
CHECK_FLD(cmd_hca_cap, vhca_id, 0x30, 16);
CHECK_FLD(cmd_hca_cap, log_max_cq_sz, 0xc8, 8);
CHECK_FLD(cmd_hca_cap, log_max_cq, 0xdb, 5);
CHECK_FLD(cmd_hca_cap, log_max_eq, 0xfc, 4);
CHECK_FLD(cmd_hca_cap, max_flow_counter_31_16, 0x2c0, 16);
CHECK_FLD(cmd_hca_cap, flow_counter_bulk_alloc, 0x310, 8);
CHECK_FLD(cmd_hca_cap, log_max_transport_domain, 0x323, 5);
CHECK_FLD(cmd_hca_cap, log_max_pd, 0x32b, 5);
CHECK_FLD(cmd_hca_cap, log_max_flow_counter_bulk, 0x348, 8);
CHECK_FLD(cmd_hca_cap, max_flow_counter_15_0, 0x350, 16);
CHECK_FLD(cmd_hca_cap, flow_counters_dump, 0x361, 1);
CHECK_FLD(cmd_hca_cap, log_max_rq, 0x363, 5);
CHECK_FLD(cmd_hca_cap, log_max_sq, 0x36b, 5);
CHECK_FLD(cmd_hca_cap, log_max_tir, 0x373, 5);
CHECK_FLD(cmd_hca_cap, log_max_tis, 0x37b, 5);
CHECK_FLD(cmd_hca_cap, log_max_rmp, 0x383, 5);
CHECK_FLD(cmd_hca_cap, log_max_rqt, 0x38b, 5);
CHECK_FLD(cmd_hca_cap, log_max_rqt_size, 0x393, 5);
CHECK_FLD(cmd_hca_cap, log_max_tis_per_sq, 0x39b, 5);
CHECK_FLD(cmd_hca_cap, log_max_wq_sz, 0x3db, 5);
CHECK_FLD(cmd_hca_cap, general_obj_types, 0x400, 64);
CHECK_FLD(cmd_hca_cap, log_max_uctx, 0x463, 5);
CHECK_FLD(cmd_hca_cap, log_max_umem, 0x46b, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_cq, 0x15b, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.max_flow_counter_31_16, 0x340, 16);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.flow_counter_bulk_alloc, 0x390, 8);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_transport_domain, 0x3a3, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_flow_counter_bulk, 0x3c8, 8);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.max_flow_counter_15_0, 0x3d0, 16);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_rq, 0x3e3, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_tir, 0x3f3, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_rqt, 0x40b, 5);
CHECK_FLD(query_hca_cap_out, capability.cmd_hca_cap.log_max_rqt_size, 0x413, 5);
CHECK_FLD(cmd_hca_cap_2, flow_counter_bulk_log_max_alloc, 0x253, 5);
CHECK_FLD(cmd_hca_cap_2, flow_counter_bulk_log_granularity, 0x25b, 5);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.ft_support, 0x200, 1);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.flow_counter, 0x202, 1);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.flow_modify_en, 0x203, 1);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.log_max_ft_size, 0x222, 6);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.max_ft_level, 0x238, 8);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.log_max_ft_num, 0x278, 8);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.log_max_flow_counter, 0x290, 8);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.log_max_destination, 0x298, 8);
CHECK_FLD(flow_table_nic_cap, flow_table_properties_nic_receive.log_max_flow, 0x2b8, 8);
CHECK_SIZE(alloc_flow_counter_in, 16);
CHECK_SIZE(alloc_flow_counter_out, 16);
CHECK_SIZE(dealloc_flow_counter_in, 16);
CHECK_SIZE(query_flow_counter_in, 32);
CHECK_SIZE(query_flow_counter_out, 16);
CHECK_SIZE(traffic_counter, 16);
CHECK_SIZE(alloc_transport_domain_in, 16);
CHECK_SIZE(alloc_transport_domain_out, 16);
CHECK_SIZE(dealloc_transport_domain_in, 16);
CHECK_SIZE(create_tir_in, 272);
CHECK_SIZE(create_tir_out, 16);
CHECK_SIZE(tirc, 240);
CHECK_SIZE(modify_tir_in, 272);
CHECK_SIZE(destroy_tir_in, 16);
CHECK_SIZE(query_tir_in, 16);
CHECK_SIZE(query_tir_out, 272);
CHECK_SIZE(create_rqt_in, 272);
CHECK_SIZE(create_rqt_out, 16);
CHECK_SIZE(rqtc, 240);
CHECK_SIZE(modify_rqt_in, 272);
CHECK_SIZE(destroy_rqt_in, 16);
CHECK_SIZE(create_rq_in, 272);
CHECK_SIZE(create_rq_out, 16);
CHECK_SIZE(rqc, 240);
CHECK_SIZE(wq, 192);
CHECK_SIZE(modify_rq_in, 272);
CHECK_SIZE(destroy_rq_in, 16);
CHECK_SIZE(create_cq_in, 272);
CHECK_SIZE(create_cq_out, 16);
CHECK_SIZE(cqc, 64);
CHECK_SIZE(destroy_cq_in, 16);
CHECK_SIZE(query_hca_cap_in, 16);
CHECK_SIZE(query_hca_cap_out, 4112);
CHECK_SIZE(cmd_hca_cap, 256);

/* ---- layouts not in prm_facts.md (PD, query outputs, headers) ---- */
CHECK_SIZE(mbox_in, 16);
CHECK_SIZE(mbox_out, 16);
CHECK_SIZE(general_obj_in_cmd_hdr, 16);
CHECK_SIZE(general_obj_out_cmd_hdr, 16);
CHECK_FLD(general_obj_in_cmd_hdr, log_obj_range, 0x63, 5);
CHECK_FLD(general_obj_out_cmd_hdr, obj_id, 0x40, 32);
CHECK_SIZE(cmd_hca_cap, 256);
CHECK_SIZE(cmd_hca_cap_2, 256);
CHECK_SIZE(flow_table_prop_layout, 64);
CHECK_SIZE(flow_table_nic_cap, 4096);
CHECK_SIZE(rx_hash_field_select, 4);
CHECK_SIZE(rq_num, 4);
CHECK_SIZE(dealloc_flow_counter_out, 16);
CHECK_SIZE(modify_tir_out, 16);
CHECK_SIZE(destroy_tir_out, 16);
CHECK_SIZE(modify_rqt_out, 16);
CHECK_SIZE(modify_rq_out, 16);
CHECK_SIZE(alloc_pd_in, 16);
CHECK_SIZE(alloc_pd_out, 16);
CHECK_SIZE(dealloc_pd_in, 16);
CHECK_FLD(alloc_pd_out, pd, 0x48, 24);
CHECK_FLD(dealloc_pd_in, pd, 0x48, 24);
CHECK_SIZE(query_rq_in, 16);
CHECK_FLD(query_rq_in, rqn, 0x48, 24);
CHECK_SIZE(query_rq_out, 272);
CHECK_OFF(query_rq_out, rq_context, 0x100);
CHECK_FLD(query_rq_out, rq_context.state, 0x108, 4);
CHECK_SIZE(query_rqt_in, 16);
CHECK_FLD(query_rqt_in, rqtn, 0x48, 24);
CHECK_SIZE(query_rqt_out, 272);
CHECK_OFF(query_rqt_out, rqt_context.rq_num[0], 0x880);
CHECK_FLD(query_rqt_out, rqt_context.rqt_actual_size, 0x1d0, 16);
CHECK_SIZE(query_cq_in, 16);
CHECK_FLD(query_cq_in, cqn, 0x48, 24);
CHECK_SIZE(query_cq_out, 272);
CHECK_FLD(query_cq_out, cq_context.uar_page, 0xe8, 24);
CHECK_FLD(query_cq_out, cq_context.c_eqn, 0x138, 8);
CHECK_SIZE(destroy_cq_in, 16);
CHECK_SIZE(destroy_rq_in, 16);
CHECK_SIZE(destroy_rqt_in, 16);
CHECK_SIZE(query_tir_in, 16);
CHECK_FLD(modify_rq_in, modify_bitmask, 0x80, 64);

/* Set a field, read it back, and verify that no other bit of the buffer moved. */
static void
check_roundtrip(size_t bit_off, size_t width, uint32_t v)
{
	uint8_t buf[16], ref[16];
	uint32_t mask = (uint32_t)(((uint64_t)1 << width) - 1);
	size_t i;

	memset(buf, 0xa5, sizeof(buf));
	memcpy(ref, buf, sizeof(buf));
	mdevx_prm_set(buf, bit_off, width, v);
	CHECK_EQ(mdevx_prm_get(buf, bit_off, width), v & mask);
	for (i = 0; i < sizeof(buf) * 8; i++) {
		unsigned int a = (buf[i / 8] >> (7 - i % 8)) & 1;
		unsigned int b = (ref[i / 8] >> (7 - i % 8)) & 1;

		if (i >= bit_off && i < bit_off + width)
			continue;
		if (a != b) {
			CHECK(a == b);
			return;
		}
	}
	CHECK(1);
}

int
main(void)
{
	uint8_t out[MDEVX_ST_SZ_BYTES(create_tir_out)];
	uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)];
	uint8_t qout[MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
		     2 * MDEVX_ST_SZ_BYTES(traffic_counter)];
	size_t w, o;

	/* Every width at every position inside a dword (no straddling). */
	for (w = 1; w <= 32; w++)
		for (o = 32; o + w <= 64; o++)
			check_roundtrip(o, w, 0xdeadbeefu ^ (uint32_t)(w * 7919 + o));
	check_roundtrip(96, 32, 0xffffffffu);
	check_roundtrip(0, 1, 1);

	/* Known byte patterns. */
	memset(out, 0, sizeof(out));
	MDEVX_SET(create_tir_out, out, status, 0x51);
	MDEVX_SET(create_tir_out, out, icm_address_63_40, 0x123456);
	MDEVX_SET(create_tir_out, out, syndrome, 0x01020304);
	MDEVX_SET(create_tir_out, out, icm_address_39_32, 0x78);
	MDEVX_SET(create_tir_out, out, tirn, 0xabcdef);
	MDEVX_SET(create_tir_out, out, icm_address_31_0, 0x9abcdef0);
	{
		static const uint8_t expect[16] = {
			0x51, 0x12, 0x34, 0x56, 0x01, 0x02, 0x03, 0x04,
			0x78, 0xab, 0xcd, 0xef, 0x9a, 0xbc, 0xde, 0xf0,
		};
		CHECK(memcmp(out, expect, sizeof(expect)) == 0);
	}
	CHECK_EQ(MDEVX_GET(create_tir_out, out, tirn), 0xabcdef);
	CHECK_EQ(MDEVX_GET(create_tir_out, out, status), 0x51);

	memset(in, 0, sizeof(in));
	MDEVX_SET(create_tir_in, in, opcode, MDEVX_CMD_OP_CREATE_TIR);
	MDEVX_SET(create_tir_in, in, ctx.disp_type, MDEVX_TIRC_DISP_TYPE_INDIRECT);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.selected_fields,
		  MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_L4_DPORT);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l4_prot_type, 1);
	CHECK_EQ(in[0], 0x09);
	CHECK_EQ(in[1], 0x00);
	CHECK_EQ(in[36], 0x10);	/* disp_type: top nibble of byte 36 */
	/* selector dword at byte 112: l4 bit 30, fields 0x9 in the low bits */
	CHECK_EQ(in[112], 0x40);
	CHECK_EQ(in[115], 0x09);
	CHECK_EQ(MDEVX_GET(tirc, in + 32, rx_hash_field_selector_outer.selected_fields), 0x9);
	CHECK_EQ(MDEVX_ADDR_OF(create_tir_in, in, ctx.rx_hash_toeplitz_key) - in, 72);
	CHECK_EQ(MDEVX_FLD_SZ_BYTES(tirc, rx_hash_toeplitz_key), 40);

	/* 64-bit fields are big-endian at their byte offset. */
	memset(qout, 0, sizeof(qout));
	MDEVX_SET64(traffic_counter, MDEVX_ADDR_OF(query_flow_counter_out, qout,
		    flow_statistics[1]), packets, 0x0102030405060708ull);
	CHECK_EQ(qout[32], 0x01);
	CHECK_EQ(qout[39], 0x08);
	CHECK_EQ(MDEVX_GET64(query_flow_counter_out, qout, flow_statistics[1].packets),
		 0x0102030405060708ull);
	CHECK_EQ(MDEVX_BYTE_OFF(query_flow_counter_out, flow_statistics[1].octets), 40);
	CHECK_EQ(MDEVX_ST_SZ_DW(create_tir_in), 68);

	/* Status -> errno, as rdma-core's mlx5_cmd_status_to_err. */
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_OK), 0);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_INT_ERR), EIO);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_OP_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_PARAM_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_SYS_STATE_ERR), EIO);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_RES_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_RES_BUSY), EBUSY);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_LIM_ERR), ENOMEM);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_RES_STATE_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_IX_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_NO_RES_ERR), EAGAIN);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_QP_STATE_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_PKT_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR), EINVAL);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_INP_LEN_ERR), EIO);
	CHECK_EQ(mdevx_cmd_status_to_errno(MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR), EIO);
	CHECK_EQ(mdevx_cmd_status_to_errno(0x77), EIO);

	CHECK(strcmp(mdevx_cmd_op_name(MDEVX_CMD_OP_CREATE_TIR), "CREATE_TIR") == 0);
	CHECK(strcmp(mdevx_cmd_op_name(0x939), "ALLOC_FLOW_COUNTER") == 0);
	CHECK(strcmp(mdevx_cmd_op_name(0xffff), "UNKNOWN") == 0);
	CHECK(strcmp(mdevx_cmd_status_name(0x50), "BAD_INP_LEN_ERR") == 0);
	CHECK(strcmp(mdevx_cmd_status_name(0x77), "UNKNOWN") == 0);

	return swdev_test_summary();
}

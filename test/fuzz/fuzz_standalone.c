/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Standalone program of the software device fuzz harness (no libFuzzer): the
 * input generator, run by the shared driver (fuzz_driver.c):
 *   fuzz_swdev_cmd_standalone FILE...            replay inputs (crash repro)
 *   fuzz_swdev_cmd_standalone [--seed S] [--iterations N]
 *                                                N structured pseudo-random inputs
 *   fuzz_swdev_cmd_standalone --emit DIR N [--seed S]
 *                                                write N generated inputs (a seed corpus)
 * Exit status 0 when every input ran (a bug aborts or trips a sanitizer).
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_driver.h"
#include "fuzz_swdev_cmd.h"
#include "mdevx_prm.h"

/* The driver's generator, seeded by --seed. */
#define rnd fuzz_rnd

#define MAX_INPUT 10000

#define SETF(typ, p, fld, v) MDEVX_SET(typ, (p), fld, (v))

static const uint16_t create_ops[] = {
	MDEVX_CMD_OP_ALLOC_PD, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN,
	MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER,
	MDEVX_CMD_OP_CREATE_CQ, MDEVX_CMD_OP_CREATE_RQ, MDEVX_CMD_OP_CREATE_RQ,
	MDEVX_CMD_OP_CREATE_RQT, MDEVX_CMD_OP_CREATE_TIR, MDEVX_CMD_OP_CREATE_FLOW_TABLE,
	MDEVX_CMD_OP_CREATE_FLOW_TABLE, MDEVX_CMD_OP_CREATE_FLOW_GROUP,
	MDEVX_CMD_OP_CREATE_FLOW_GROUP, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY,
	MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY,
};
static const uint16_t query_ops[] = {
	MDEVX_CMD_OP_QUERY_FLOW_COUNTER, MDEVX_CMD_OP_QUERY_CQ, MDEVX_CMD_OP_QUERY_RQ,
	MDEVX_CMD_OP_QUERY_RQT, MDEVX_CMD_OP_QUERY_TIR, MDEVX_CMD_OP_QUERY_FLOW_TABLE,
	MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY,
};
static const uint16_t modify_ops[] = {
	MDEVX_CMD_OP_MODIFY_RQ, MDEVX_CMD_OP_MODIFY_RQT, MDEVX_CMD_OP_MODIFY_TIR,
	MDEVX_CMD_OP_MODIFY_CQ,
};
static const uint16_t general_ops[] = {
	MDEVX_CMD_OP_QUERY_HCA_CAP, MDEVX_CMD_OP_NOP, MDEVX_CMD_OP_QUERY_ADAPTER,
	MDEVX_CMD_OP_CREATE_TIR,
};
#define PICK(a) ((a)[rnd() % (sizeof(a) / sizeof((a)[0]))])

/* Shape the mailbox of @p op so that it often passes the first checks. */
static size_t
shape(uint8_t *m, uint16_t op, uint32_t *outlen)
{
	uint32_t n;

	switch (op) {
	case MDEVX_CMD_OP_ALLOC_FLOW_COUNTER:
		if (rnd() % 2)
			SETF(alloc_flow_counter_in, m, flow_counter_bulk, 1u << (rnd() % 8));
		else
			SETF(alloc_flow_counter_in, m, flow_counter_bulk_log_size, rnd() % 14);
		return 16;
	case MDEVX_CMD_OP_QUERY_FLOW_COUNTER:
		n = rnd() % 3 ? rnd() % 5 : rnd() % 1100;
		SETF(query_flow_counter_in, m, num_of_counters, n);
		SETF(query_flow_counter_in, m, clear, rnd() % 2);
		if (rnd() % 4)
			*outlen = 16 + 16 * (n ? n : 1);
		return 32;
	case MDEVX_CMD_OP_CREATE_CQ:
		SETF(create_cq_in, m, cq_context.log_cq_size, rnd() % 8);
		SETF(create_cq_in, m, cq_context.cqe_sz, rnd() % 3);
		return 272;
	case MDEVX_CMD_OP_CREATE_RQ:
		SETF(create_rq_in, m, ctx.wq.log_wq_sz, rnd() % 8);
		SETF(create_rq_in, m, ctx.wq.log_wq_stride, rnd() % 7);
		SETF(create_rq_in, m, ctx.wq.wq_type, rnd() % 5);
		return 272;
	case MDEVX_CMD_OP_MODIFY_RQ:
		SETF(modify_rq_in, m, rq_state, rnd() % 4);
		SETF(modify_rq_in, m, ctx.state, rnd() % 4);
		MDEVX_SET64(modify_rq_in, m, modify_bitmask, rnd() % 3 ? 0 : rnd() % 32);
		return 272;
	case MDEVX_CMD_OP_CREATE_RQT:
	case MDEVX_CMD_OP_MODIFY_RQT:
		n = 1 + rnd() % 70;
		SETF(create_rqt_in, m, rqt_context.rqt_max_size, n + rnd() % 4);
		SETF(create_rqt_in, m, rqt_context.rqt_actual_size, n);
		if (op == MDEVX_CMD_OP_MODIFY_RQT)
			MDEVX_SET64(modify_rqt_in, m, modify_bitmask, rnd() % 8 ? 1 : rnd() % 4);
		return 272 + 4 * n - (rnd() % 8 ? 0 : 1);
	case MDEVX_CMD_OP_CREATE_TIR:
	case MDEVX_CMD_OP_MODIFY_TIR:
		SETF(create_tir_in, m, ctx.disp_type, rnd() % 3);
		SETF(create_tir_in, m, ctx.rx_hash_fn, rnd() % 4);
		SETF(create_tir_in, m, ctx.rx_hash_field_selector_outer.selected_fields,
		     rnd() % 64);
		if (op == MDEVX_CMD_OP_MODIFY_TIR)
			MDEVX_SET64(modify_tir_in, m, modify_bitmask, rnd() % 32);
		return 272;
	case MDEVX_CMD_OP_CREATE_FLOW_TABLE:
		SETF(create_flow_table_in, m, table_type, rnd() % 8 ? 0 : rnd() % 5);
		SETF(create_flow_table_in, m, flow_table_context.level,
		     rnd() % 8 ? 1 + rnd() % 4 : rnd() % 80);
		SETF(create_flow_table_in, m, flow_table_context.log_size,
		     rnd() % 8 ? 2 + rnd() % 4 : rnd() % 30);
		SETF(create_flow_table_in, m, flow_table_context.table_miss_action,
		     rnd() % 3 ? 0 : rnd() % 3);
		return 64;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE:
		SETF(query_flow_table_in, m, table_type, rnd() % 8 ? 0 : 1);
		if (rnd() % 4)
			*outlen = 64;
		return 64;
	case MDEVX_CMD_OP_CREATE_FLOW_GROUP:
		n = rnd() % 8 ? rnd() % 4 : rnd() % 40;
		SETF(create_flow_group_in, m, start_flow_index, n);
		SETF(create_flow_group_in, m, end_flow_index, n + rnd() % 4);
		SETF(create_flow_group_in, m, match_criteria_enable, rnd() % 4 ? 1 : rnd() % 8);
		if (rnd() % 2)
			SETF(create_flow_group_in, m, match_criteria.outer_headers.udp_dport,
			     0xffff);
		if (rnd() % 2)
			SETF(create_flow_group_in, m, match_criteria.outer_headers.ip_protocol,
			     0xff);
		return 1024;
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY: {
		static const uint16_t actions[] = { 0x4, 0xc, 0xc, 0x2, 0xa, 0x6, 0x1 };
		uint32_t nd = rnd() % 6 ? 1 : rnd() % 3, nc = rnd() % 3;
		uint32_t ext = rnd() % 4 == 0;
		uint8_t *e = m + MDEVX_ST_SZ_BYTES(set_fte_in);

		SETF(set_fte_in, m, op_mod, rnd() % 8 ? 0 : 1);
		SETF(set_fte_in, m, flow_index, rnd() % 8);
		SETF(set_fte_in, m, flow_context.action, rnd() % 8 ? PICK(actions) : rnd() % 16);
		SETF(set_fte_in, m, flow_context.extended_destination, ext);
		SETF(set_fte_in, m, flow_context.destination_list_size, nd);
		SETF(set_fte_in, m, flow_context.flow_counter_list_size, nc);
		SETF(set_fte_in, m, flow_context.match_value.outer_headers.udp_dport, rnd() % 4);
		SETF(set_fte_in, m, flow_context.match_value.outer_headers.ip_protocol,
		     rnd() % 2 ? 17 : 6);
		SETF(dest_format, e, destination_type, rnd() % 4 ? 1 + rnd() % 2 : rnd() % 9);
		return MDEVX_ST_SZ_BYTES(set_fte_in) + (ext ? 16 : 8) * (nd + nc) -
		       (rnd() % 8 ? 0 : 1);
	}
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY:
		if (rnd() % 4)
			*outlen = 832 + 16 * (rnd() % 4);
		return 64;
	case MDEVX_CMD_OP_QUERY_HCA_CAP:
		SETF(query_hca_cap_in, m, op_mod, rnd() % 2 ? 1 : rnd() % 0x50);
		if (rnd() % 3)
			*outlen = 4112;
		return 16;
	default:
		return rnd() % 2 ? 16 : 272;
	}
}

/* Build one structured input into @p buf; returns its length. */
static size_t
generate(uint8_t *buf)
{
	static const uint8_t entry_weights[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 5, 5, 5, 5, 6,
	};
	static const uint16_t outlens[] = {
		0, 8, 15, 16, 17, 32, 48, 271, 272, 300, 512, 4111, 4112, 4200, 16400,
	};
	static const uint16_t inlens[] = {
		0, 8, 15, 16, 17, 31, 32, 64, 271, 272, 276, 280, 288, 400,
	};
	uint8_t *m = buf + FUZZ_HDR_LEN;
	size_t len = 0, i, nmut;
	uint32_t outlen;
	uint16_t op = 0;

	buf[0] = entry_weights[rnd() % sizeof(entry_weights)];
	if (rnd() % 200 == 0)
		buf[0] = 7;	/* close and reopen a file */
	buf[1] = (uint8_t)(rnd() & 0xf9);
	if (rnd() % 5)
		buf[1] |= 4;	/* fix up ids */
	buf[2] = 0;
	buf[3] = (uint8_t)(rnd() % 16);
	outlen = rnd() % 4 ? 272 : outlens[rnd() % (sizeof(outlens) / sizeof(outlens[0]))];
	buf[6] = (uint8_t)rnd();
	memset(m, 0, MAX_INPUT - FUZZ_HDR_LEN);
	switch (buf[0]) {
	case 0:
		op = PICK(create_ops);
		break;
	case 1:
		op = PICK(query_ops);
		break;
	case 2:
		op = PICK(modify_ops);
		break;
	case 3:
		op = PICK(general_ops);
		break;
	default:
		break;
	}
	if (op != 0 && rnd() % 8) {
		SETF(mbox_in, m, opcode, op);
		len = shape(m, op, &outlen);
	} else {
		len = rnd() % 4 ? inlens[rnd() % (sizeof(inlens) / sizeof(inlens[0]))] :
				  rnd() % 2000;
		if (op != 0)
			SETF(mbox_in, m, opcode, op);
	}
	if (buf[0] == 5 || buf[0] == 6) {
		len = 16;
		if (buf[0] == 6 && buf[6] % 6 == 4)
			len = rnd() % 160;	/* a frame into the port */
		for (i = 0; i < len; i++)
			m[i] = (uint8_t)rnd();
		if (buf[0] == 5 && rnd() % 2)
			m[0] = m[1] = 0;	/* small umem sizes */
	}
	if (FUZZ_HDR_LEN + len > MAX_INPUT)
		len = MAX_INPUT - FUZZ_HDR_LEN;
	if (outlen > 0xfeff)
		outlen = 0xfeff;
	buf[4] = (uint8_t)(outlen >> 8);
	buf[5] = (uint8_t)outlen;
	if (len > 2 && rnd() % 12 == 0) {
		for (i = 2; i < len; i++)
			m[i] = (uint8_t)rnd();
	} else if (len > 2) {
		nmut = rnd() % 3 ? 0 : rnd() % 4;
		for (i = 0; i < nmut; i++)
			m[2 + rnd() % (len - 2)] = (uint8_t)(rnd() % 3 ? rnd() % 4 : rnd());
	}
	return FUZZ_HDR_LEN + len;
}

static void
print_stats(enum fuzz_run run)
{
	int a;

	if (run == FUZZ_RUN_REPLAY)
		return;
	for (a = 0; a < 8; a++)
		printf("entry %d: %lu ok, %lu EREMOTEIO, %lu other\n", a, fuzz_swdev_stats[a][0],
		       fuzz_swdev_stats[a][1], fuzz_swdev_stats[a][2]);
}

const struct fuzz_harness fuzz_harness = {
	.input_max = MAX_INPUT,
	.one = fuzz_swdev_one,
	.generate = generate,
	.fini = fuzz_swdev_fini,
	.stats = print_stats,
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * steer-bench: cost of a received packet against the number of steering
 * rules, in the software device engine (in-process: no socket in the way).
 * No timed assertion: it prints, measured in the same run,
 *   - packets per second through 1, 1k and 64k root rules of one matcher,
 *   - the same through 1, 1k and 64k entries of one DEVX flow group (a root
 *     rule forwards to the level-1 table),
 * each as: name, packets/s, ratio to the 1-rule rate of its kind. The
 * target is a ratio >= 0.5 at 64k: classification is an exact-match hash
 * per matcher and per group, not a scan of the rules.
 *
 * Usage: steer-bench [packets per measurement]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mdevx_prm.h"
#include "swdev_engine.h"
#include "swdev_test_util.h"

#define NB_FRAMES 4096
#define FRAME_LEN 128
#define MAX_RULES 65536u
#define LOG_TABLE 17

static long packets = 2000000;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* IPv4/UDP to 10.(i >> 8).(i & 0xff).1 port 4789, from a source that varies. */
static void
build_frame(uint8_t *f, uint32_t i, uint32_t seed)
{
	static const uint8_t hdr[] = {
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, FRAME_LEN - 14, 0, 0, 0, 0, 64, 17, 0, 0,
	};

	memset(f, 0, FRAME_LEN);
	memcpy(f, hdr, sizeof(hdr));
	f[26] = 192;
	f[27] = 168;
	f[28] = (uint8_t)(seed >> 8);
	f[29] = (uint8_t)seed;
	f[30] = 10;
	f[31] = (uint8_t)(i >> 8);
	f[32] = (uint8_t)i;
	f[33] = 1;
	f[34] = (uint8_t)(seed >> 3);		/* UDP source port */
	f[35] = (uint8_t)(seed * 7);
	f[36] = 0x12;				/* destination port 4789 */
	f[37] = 0xb5;
	f[38] = 0;
	f[39] = FRAME_LEN - 34;
}

static void
rule_mask(uint8_t *m)
{
	memset(m, 0, MDEVX_ST_SZ_BYTES(fte_match_param));
	MDEVX_SET(fte_match_param, m, outer_headers.ip_protocol, 0xff);
	MDEVX_SET(fte_match_param, m, outer_headers.udp_dport, 0xffff);
	memset(MDEVX_ADDR_OF(fte_match_param, m, outer_headers.dst_ipv4_dst_ipv6) + 12, 0xff, 4);
}

static void
rule_value(uint8_t *v, uint32_t i)
{
	uint8_t *ip;

	memset(v, 0, MDEVX_ST_SZ_BYTES(fte_match_param));
	MDEVX_SET(fte_match_param, v, outer_headers.ip_protocol, 17);
	MDEVX_SET(fte_match_param, v, outer_headers.udp_dport, 4789);
	ip = MDEVX_ADDR_OF(fte_match_param, v, outer_headers.dst_ipv4_dst_ipv6) + 12;
	ip[0] = 10;
	ip[1] = (uint8_t)(i >> 8);
	ip[2] = (uint8_t)i;
	ip[3] = 1;
}

/* Packets per second over frames that each hit one of the first @p nrules rules. */
static double
measure(struct swdev_engine *eng, uint8_t (*frames)[FRAME_LEN], uint32_t nrules, long *bad)
{
	double best = 0;

	for (uint32_t i = 0; i < NB_FRAMES; i++)
		build_frame(frames[i], (uint32_t)(((uint64_t)i * 2654435761u) % nrules), i);
	for (int round = 0; round < 3; round++) {
		uint64_t t0 = now_ns();
		double pps;

		for (long k = 0; k < packets; k++) {
			struct swdev_rx_info info;

			if (swdev_ctl_rx(eng, T_DEV, frames[k % NB_FRAMES], FRAME_LEN, &info) != 0 ||
			    info.verdict != SWDEV_RX_DELIVERED)
				(*bad)++;
		}
		pps = (double)packets * 1e9 / (double)(now_ns() - t0);
		if (pps > best)
			best = pps;
	}
	return best;
}

static int
rq_ready(struct swdev_file *f, uint32_t handle, uint32_t rqn)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(modify_rq_in)], out[16];

	memset(in, 0, sizeof(in));
	MDEVX_SET(modify_rq_in, in, opcode, MDEVX_CMD_OP_MODIFY_RQ);
	MDEVX_SET(modify_rq_in, in, rq_state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(modify_rq_in, in, rqn, rqn);
	MDEVX_SET(modify_rq_in, in, ctx.state, MDEVX_RQC_STATE_RDY);
	return swdev_devx_obj_modify(f, handle, in, sizeof(in), out, sizeof(out));
}

/* Root rules: one matcher, nrules rules to the TIR. */
static int
root_rules(struct swdev_file *f, const struct t_chain *c, uint32_t first, uint32_t n,
	   uint32_t matcher)
{
	uint8_t v[MDEVX_ST_SZ_BYTES(fte_match_param)];
	struct swdev_flow_attr a = { .dest = SWDEV_FLOW_DEST_DEVX, .dest_handle = c->tir_h };

	for (uint32_t i = first; i < first + n; i++) {
		uint32_t h;
		int rc;

		rule_value(v, i);
		rc = swdev_file_flow_create(f, matcher, v, sizeof(v), &a, &h);
		if (rc != 0) {
			fprintf(stderr, "rule %u: %s\n", i, strerror(rc));
			return -1;
		}
	}
	return 0;
}

/* Entries nrules of the group, flow index = rule number, to the TIR. */
static int
group_entries(struct swdev_file *f, const struct t_chain *c, uint32_t tid, uint32_t gid,
	      uint32_t first, uint32_t n)
{
	static uint8_t in[MDEVX_ST_SZ_BYTES(set_fte_in) + 8];
	uint8_t out[16];
	struct swdev_obj_info info;

	for (uint32_t i = first; i < first + n; i++) {
		int rc;

		memset(in, 0, sizeof(in));
		MDEVX_SET(set_fte_in, in, opcode, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY);
		MDEVX_SET(set_fte_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
		MDEVX_SET(set_fte_in, in, table_id, tid);
		MDEVX_SET(set_fte_in, in, flow_index, i);
		MDEVX_SET(set_fte_in, in, flow_context.group_id, gid);
		MDEVX_SET(set_fte_in, in, flow_context.action, MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST);
		MDEVX_SET(set_fte_in, in, flow_context.destination_list_size, 1);
		rule_value(MDEVX_ADDR_OF(set_fte_in, in, flow_context.match_value), i);
		MDEVX_SET(dest_format, in + MDEVX_ST_SZ_BYTES(set_fte_in), destination_type,
			  MDEVX_FLOW_DEST_TYPE_TIR);
		MDEVX_SET(dest_format, in + MDEVX_ST_SZ_BYTES(set_fte_in), destination_id,
			  c->tirn);
		rc = swdev_devx_obj_create(f, in, sizeof(in), out, sizeof(out), &info);
		if (rc != 0) {
			fprintf(stderr, "entry %u: %s status 0x%x syndrome 0x%x\n", i, strerror(rc),
				t_status(out), t_syndrome(out));
			return -1;
		}
	}
	return 0;
}

/* A level-1 table with one group over every index, and a root rule to it. */
static int
table_setup(struct swdev_file *f, uint32_t *tid, uint32_t *gid, uint32_t *table_h)
{
	static uint8_t gin[MDEVX_ST_SZ_BYTES(create_flow_group_in)];
	uint8_t tin[MDEVX_ST_SZ_BYTES(create_flow_table_in)], out[16];
	struct swdev_obj_info info;

	memset(tin, 0, sizeof(tin));
	MDEVX_SET(create_flow_table_in, tin, opcode, MDEVX_CMD_OP_CREATE_FLOW_TABLE);
	MDEVX_SET(create_flow_table_in, tin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_table_in, tin, flow_table_context.level, 1);
	MDEVX_SET(create_flow_table_in, tin, flow_table_context.log_size, LOG_TABLE);
	if (swdev_devx_obj_create(f, tin, sizeof(tin), out, sizeof(out), &info) != 0) {
		fprintf(stderr, "flow table: status 0x%x syndrome 0x%x\n", t_status(out),
			t_syndrome(out));
		return -1;
	}
	*table_h = info.handle;
	*tid = MDEVX_GET(create_flow_table_out, out, table_id);
	memset(gin, 0, sizeof(gin));
	MDEVX_SET(create_flow_group_in, gin, opcode, MDEVX_CMD_OP_CREATE_FLOW_GROUP);
	MDEVX_SET(create_flow_group_in, gin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_group_in, gin, table_id, *tid);
	MDEVX_SET(create_flow_group_in, gin, start_flow_index, 0);
	MDEVX_SET(create_flow_group_in, gin, end_flow_index, MAX_RULES - 1);
	MDEVX_SET(create_flow_group_in, gin, match_criteria_enable, MDEVX_MATCH_CRITERIA_OUTER);
	rule_mask(MDEVX_ADDR_OF(create_flow_group_in, gin, match_criteria));
	if (swdev_devx_obj_create(f, gin, sizeof(gin), out, sizeof(out), &info) != 0) {
		fprintf(stderr, "flow group: status 0x%x syndrome 0x%x\n", t_status(out),
			t_syndrome(out));
		return -1;
	}
	*gid = MDEVX_GET(create_flow_group_out, out, group_id);
	return 0;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1, 1000, MAX_RULES };
	static uint8_t frames[NB_FRAMES][FRAME_LEN];
	uint8_t mask[MDEVX_ST_SZ_BYTES(fte_match_param)];
	struct swdev_flow_attr to_table = { .dest = SWDEV_FLOW_DEST_DEVX };
	struct swdev_limits lim;
	struct swdev_engine *eng;
	struct swdev_file *f, *g;
	struct t_chain c;
	uint32_t matcher, tmatcher, tid, gid, done;
	double base;
	long bad = 0;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: %s [packets per measurement (default %ld)]\n"
		       "Packets per second of the software device's receive path through\n"
		       "1, 1k and 64k root rules, and 1, 1k and 64k entries of a DEVX flow\n"
		       "group, with the ratio to the 1-rule rate (target >= 0.5 at 64k).\n",
		       argv[0], packets);
		return 0;
	}
	if (argc > 1)
		packets = strtol(argv[1], NULL, 10);
	if (packets <= 0) {
		fprintf(stderr, "bad packet count\n");
		return 2;
	}
	swdev_limits_default(&lim);
	lim.max_handles_per_file = 1u << 20;
	eng = swdev_engine_create();
	if (eng == NULL || swdev_engine_add_device(eng, T_DEV, &lim) < 0)
		return 1;
	f = swdev_file_open(eng, T_DEV);
	if (f == NULL || t_chain_make(f, &c, 4) != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	for (unsigned int i = 0; i < c.nrq; i++)
		if (rq_ready(f, c.rq_h[i], c.rqn[i]) != 0)
			return 1;
	rule_mask(mask);
	if (swdev_file_matcher_create(f, 0, MDEVX_MATCH_CRITERIA_OUTER, mask, sizeof(mask),
				      &matcher) != 0) {
		fprintf(stderr, "matcher failed\n");
		return 1;
	}
	printf("steer-bench: %ld packets of %d bytes per measurement, best of 3\n", packets,
	       FRAME_LEN);
	done = 0;
	base = 0;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double pps;

		if (root_rules(f, &c, done, sizes[k] - done, matcher) != 0)
			return 1;
		done = sizes[k];
		pps = measure(eng, frames, sizes[k], &bad);
		if (k == 0)
			base = pps;
		printf("(root) %6u rules: %10.0f packets/s  ratio %.2f\n", sizes[k], pps,
		       pps / base);
	}
	/* The same through a DEVX table, from a file of its own. */
	g = swdev_file_open(eng, T_DEV);
	if (g == NULL || t_chain_make(g, &c, 4) != 0 || table_setup(g, &tid, &gid,
								   &to_table.dest_handle) != 0)
		return 1;
	for (unsigned int i = 0; i < c.nrq; i++)
		if (rq_ready(g, c.rq_h[i], c.rqn[i]) != 0)
			return 1;
	swdev_file_close(f);	/* its root rules go */
	memset(mask, 0, sizeof(mask));
	MDEVX_SET(fte_match_param, mask, outer_headers.udp_dport, 0xffff);
	if (swdev_file_matcher_create(g, 0, MDEVX_MATCH_CRITERIA_OUTER, mask, sizeof(mask),
				      &tmatcher) != 0)
		return 1;
	{
		uint8_t v[MDEVX_ST_SZ_BYTES(fte_match_param)] = { 0 };
		uint32_t h;

		MDEVX_SET(fte_match_param, v, outer_headers.udp_dport, 4789);
		if (swdev_file_flow_create(g, tmatcher, v, sizeof(v), &to_table, &h) != 0)
			return 1;
	}
	done = 0;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double pps;

		if (group_entries(g, &c, tid, gid, done, sizes[k] - done) != 0)
			return 1;
		done = sizes[k];
		pps = measure(eng, frames, sizes[k], &bad);
		if (k == 0)
			base = pps;
		printf("(table) %5u entries: %10.0f packets/s  ratio %.2f\n", sizes[k], pps,
		       pps / base);
	}
	swdev_engine_destroy(eng);
	if (bad != 0) {
		fprintf(stderr, "steer-bench: %ld packets were not delivered\n", bad);
		return 1;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Flow steering in the engine: DEVX flow tables, groups and entries (every
 * refusal with its status and syndrome, QUERY_FLOW_TABLE / _ENTRY), root
 * matchers and rules (every errno), classification of hand-built outer
 * images with swdev_steer_classify() (masks, priorities, count-and-continue,
 * group order, table chains, table miss, drop), counters read back with
 * QUERY_FLOW_COUNTER, references (EBUSY), uids, file close, and a scale
 * test of 64k rules in one matcher and 64k entries in one group.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"
#include "unit_check.h"
#include "swdev_test_util.h"

#define FT_IN MDEVX_ST_SZ_BYTES(create_flow_table_in)
#define FG_IN MDEVX_ST_SZ_BYTES(create_flow_group_in)
#define FTE_IN MDEVX_ST_SZ_BYTES(set_fte_in)
#define SET_LEN MDEVX_ST_SZ_BYTES(fte_match_set_lyr_2_4)
#define PARAM_LEN MDEVX_ST_SZ_BYTES(fte_match_param)
#define OUTER MDEVX_MATCH_CRITERIA_OUTER
#define PKT_LEN 100u

#define ACT_DROP MDEVX_FLOW_CONTEXT_ACTION_DROP
#define ACT_FWD MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST
#define ACT_COUNT MDEVX_FLOW_CONTEXT_ACTION_COUNT
#define D_TIR MDEVX_FLOW_DEST_TYPE_TIR
#define D_FT MDEVX_FLOW_DEST_TYPE_FLOW_TABLE

/* ---- helpers ---- */

static struct swdev_engine *
new_engine(const struct swdev_limits *lim)
{
	struct swdev_engine *eng = swdev_engine_create();

	swdev_engine_add_device(eng, T_DEV, lim);
	return eng;
}

static struct swdev_dev *
dev_of(struct swdev_engine *eng)
{
	return eng->devs[0];
}

static uint32_t
count_of(struct swdev_engine *eng, uint32_t file_id, enum swdev_kind k)
{
	struct swdev_counts cnt;

	if (swdev_ctl_counts(eng, T_DEV, file_id, &cnt) != 0)
		return UINT32_MAX;
	return k == SWDEV_KIND_MAX ? cnt.total : cnt.by_kind[k];
}

/* IPv4 address in the last dword of a 16-byte address field of a match set. */
static void
set_ip(uint8_t *set, int dst, uint32_t v)
{
	uint8_t *p = dst ? MDEVX_ADDR_OF(fte_match_set_lyr_2_4, set, dst_ipv4_dst_ipv6) :
			   MDEVX_ADDR_OF(fte_match_set_lyr_2_4, set, src_ipv4_src_ipv6);

	p[12] = (uint8_t)(v >> 24);
	p[13] = (uint8_t)(v >> 16);
	p[14] = (uint8_t)(v >> 8);
	p[15] = (uint8_t)v;
}

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

/* A UDP/IPv4 frame image. */
static void
pkt_udp(struct swdev_pkt *p, uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	memset(p, 0, sizeof(*p));
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, ethertype, 0x0800);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, ip_version, 4);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, ip_protocol, 17);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, ttl_hoplimit, 64);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, udp_sport, sport);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, udp_dport, dport);
	set_ip(p->outer, 0, sip);
	set_ip(p->outer, 1, dip);
	p->has_l3 = true;
	p->len = PKT_LEN;
}

/* A TCP/IPv4 frame image. */
static void
pkt_tcp(struct swdev_pkt *p, uint32_t dip, uint16_t dport)
{
	pkt_udp(p, IP4(192, 168, 0, 1), dip, 0, 0);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, ip_protocol, 6);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, tcp_sport, 1234);
	MDEVX_SET(fte_match_set_lyr_2_4, p->outer, tcp_dport, dport);
}

/* Classify; returns the verdict, *tirn the TIR reached (0 if none). */
static uint32_t
classify(struct swdev_engine *eng, const struct swdev_pkt *p, uint32_t *tirn)
{
	struct swdev_steer_verdict v;

	memset(&v, 0xa5, sizeof(v));
	swdev_steer_classify(dev_of(eng), p, &v);
	if (tirn != NULL)
		*tirn = v.tir != NULL ? v.tir->id : 0;
	if ((v.verdict == SWDEV_RX_DELIVERED) != (v.tir != NULL))
		return UINT32_MAX;	/* inconsistent verdict */
	return v.verdict;
}

/* The TIR a frame reaches, 0 for a miss, UINT32_MAX for a drop. */
static uint32_t
steer_to(struct swdev_engine *eng, const struct swdev_pkt *p)
{
	uint32_t tirn, v = classify(eng, p, &tirn);

	if (v == SWDEV_RX_DELIVERED)
		return tirn;
	if (v == SWDEV_RX_MISS)
		return 0;
	return v == SWDEV_RX_DROP ? UINT32_MAX : UINT32_MAX - 1;
}

/* Another TIR over the chain's RQT. */
static int
tir_create(struct swdev_file *f, const struct t_chain *c, uint32_t *h, uint32_t *tirn)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)], out[16];
	struct swdev_obj_info info;
	int rc;

	t_build_tir(in, 1, c->rqtn, c->tdn);
	rc = swdev_devx_obj_create(f, in, sizeof(in), out, sizeof(out), &info);
	if (rc == 0) {
		*h = info.handle;
		*tirn = MDEVX_GET(create_tir_out, out, tirn);
	}
	return rc;
}

static void
build_ft(uint8_t *in, uint32_t level, uint32_t log_size, uint32_t miss_id)
{
	memset(in, 0, FT_IN);
	MDEVX_SET(create_flow_table_in, in, opcode, MDEVX_CMD_OP_CREATE_FLOW_TABLE);
	MDEVX_SET(create_flow_table_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.level, level);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.log_size, log_size);
	if (miss_id != 0) {
		MDEVX_SET(create_flow_table_in, in, flow_table_context.table_miss_action,
			  MDEVX_FLOW_TABLE_MISS_FWD);
		MDEVX_SET(create_flow_table_in, in, flow_table_context.table_miss_id, miss_id);
	}
}

/* CREATE_FLOW_TABLE; errno; the output in @p out (16 bytes) if given. */
static int
ft_create(struct swdev_file *f, uint32_t level, uint32_t log_size, uint32_t miss_id,
	  uint32_t *h, uint32_t *id, uint8_t *out)
{
	uint8_t in[FT_IN], local[16];
	struct swdev_obj_info info;
	int rc;

	if (out == NULL)
		out = local;
	build_ft(in, level, log_size, miss_id);
	rc = swdev_devx_obj_create(f, in, sizeof(in), out, 16, &info);
	if (rc == 0) {
		if (h != NULL)
			*h = info.handle;
		if (id != NULL)
			*id = MDEVX_GET(create_flow_table_out, out, table_id);
	}
	return rc;
}

static void
build_fg(uint8_t *in, uint32_t table_id, uint32_t start, uint32_t end, const uint8_t *mask)
{
	memset(in, 0, FG_IN);
	MDEVX_SET(create_flow_group_in, in, opcode, MDEVX_CMD_OP_CREATE_FLOW_GROUP);
	MDEVX_SET(create_flow_group_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_group_in, in, table_id, table_id);
	MDEVX_SET(create_flow_group_in, in, start_flow_index, start);
	MDEVX_SET(create_flow_group_in, in, end_flow_index, end);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, OUTER);
	if (mask != NULL)
		memcpy(MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria.outer_headers),
		       mask, SET_LEN);
}

static int
fg_send(struct swdev_file *f, const uint8_t *in, uint32_t *h, uint32_t *id, uint8_t *out)
{
	struct swdev_obj_info info;
	uint8_t local[16];
	int rc;

	if (out == NULL)
		out = local;
	rc = swdev_devx_obj_create(f, in, FG_IN, out, 16, &info);
	if (rc == 0) {
		if (h != NULL)
			*h = info.handle;
		if (id != NULL)
			*id = MDEVX_GET(create_flow_group_out, out, group_id);
	}
	return rc;
}

static int
fg_create(struct swdev_file *f, uint32_t table_id, uint32_t start, uint32_t end,
	  const uint8_t *mask, uint32_t *h, uint32_t *id, uint8_t *out)
{
	uint8_t in[FG_IN];

	build_fg(in, table_id, start, end, mask);
	return fg_send(f, in, h, id, out);
}

/* What an entry does. */
struct fte_spec {
	uint32_t action;
	uint32_t ndest;
	uint8_t dtype[4];
	uint32_t did[4];
	uint32_t ncnt;
	uint32_t cnt[20];
	int ext;		/* 16-byte list entries */
};

/* SET_FLOW_TABLE_ENTRY op_mod 0; returns the input length (whole list). */
static size_t
build_fte(uint8_t *in, uint32_t table_id, uint32_t group_id, uint32_t idx,
	  const uint8_t *value, const struct fte_spec *s)
{
	size_t stride = s->ext ? 16 : 8, len = FTE_IN + stride * (s->ndest + s->ncnt);
	uint8_t *e;
	uint32_t i;

	memset(in, 0, len);
	MDEVX_SET(set_fte_in, in, opcode, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY);
	MDEVX_SET(set_fte_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(set_fte_in, in, table_id, table_id);
	MDEVX_SET(set_fte_in, in, flow_index, idx);
	MDEVX_SET(set_fte_in, in, flow_context.group_id, group_id);
	MDEVX_SET(set_fte_in, in, flow_context.flow_tag, 0x123456);
	MDEVX_SET(set_fte_in, in, flow_context.action, s->action);
	MDEVX_SET(set_fte_in, in, flow_context.extended_destination, s->ext ? 1 : 0);
	MDEVX_SET(set_fte_in, in, flow_context.destination_list_size, s->ndest);
	MDEVX_SET(set_fte_in, in, flow_context.flow_counter_list_size, s->ncnt);
	if (value != NULL)
		memcpy(MDEVX_ADDR_OF(set_fte_in, in, flow_context.match_value.outer_headers),
		       value, SET_LEN);
	e = in + FTE_IN;
	for (i = 0; i < s->ndest; i++, e += stride) {
		MDEVX_SET(dest_format, e, destination_type, s->dtype[i]);
		MDEVX_SET(dest_format, e, destination_id, s->did[i]);
	}
	for (i = 0; i < s->ncnt; i++, e += stride)
		MDEVX_SET(flow_counter_list, e, flow_counter_id, s->cnt[i]);
	return len;
}

#define FTE_BUF (FTE_IN + 16 * 24)

static int
fte_send(struct swdev_file *f, const uint8_t *in, size_t len, uint32_t *h, uint8_t *out)
{
	struct swdev_obj_info info;
	uint8_t local[16];
	int rc;

	if (out == NULL)
		out = local;
	rc = swdev_devx_obj_create(f, in, len, out, 16, &info);
	if (rc == 0 && h != NULL)
		*h = info.handle;
	return rc;
}

static int
fte_create(struct swdev_file *f, uint32_t table_id, uint32_t group_id, uint32_t idx,
	   const uint8_t *value, const struct fte_spec *s, uint32_t *h, uint8_t *out)
{
	uint8_t in[FTE_BUF];
	size_t len = build_fte(in, table_id, group_id, idx, value, s);

	return fte_send(f, in, len, h, out);
}

static struct fte_spec
to_tir(uint32_t tirn)
{
	struct fte_spec s;

	memset(&s, 0, sizeof(s));
	s.action = ACT_FWD;
	s.ndest = 1;
	s.dtype[0] = D_TIR;
	s.did[0] = tirn;
	return s;
}

static struct fte_spec
to_table(uint32_t table_id)
{
	struct fte_spec s = to_tir(table_id);

	s.dtype[0] = D_FT;
	return s;
}

/* A root matcher on the outer set (mask_len 64). */
static int
matcher(struct swdev_file *f, uint16_t prio, const uint8_t *mask, uint32_t *h)
{
	return swdev_file_matcher_create(f, prio, OUTER, mask, SET_LEN, h);
}

static int
flow(struct swdev_file *f, uint32_t mh, const uint8_t *value, uint8_t dest,
     uint32_t dest_h, int has_cnt, uint32_t cnt_h, uint32_t off, uint32_t *h)
{
	struct swdev_flow_attr a;

	memset(&a, 0, sizeof(a));
	a.dest = dest;
	a.dest_handle = dest_h;
	a.has_counter = (uint8_t)has_cnt;
	a.counter_handle = cnt_h;
	a.counter_offset = off;
	return swdev_file_flow_create(f, mh, value, SET_LEN, &a, h);
}

/* A bulk of 2^log counters: handle and base id. */
static int
bulk(struct swdev_file *f, uint32_t log, uint32_t *h, uint32_t *base)
{
	struct swdev_obj_info info;
	uint8_t out[16];
	int rc = t_alloc_counter(f, 0, log, out, &info);

	if (rc == 0) {
		*h = info.handle;
		*base = info.object_id;
	}
	return rc;
}

/* Packets and bytes of counter @p id of bulk @p h, read by QUERY_FLOW_COUNTER. */
static uint64_t
cnt_read(struct swdev_file *f, uint32_t h, uint32_t id, uint64_t *bytes)
{
	uint8_t out[32];

	if (t_query_counter(f, h, id, 1, 0, out, sizeof(out)) != 0)
		return UINT64_MAX;
	if (bytes != NULL)
		*bytes = MDEVX_GET64(traffic_counter, out + 16, octets);
	return MDEVX_GET64(traffic_counter, out + 16, packets);
}

/* Longest chain of a hash table (the per-lookup cost). */
static uint32_t
longest_chain(const struct swdev_htab *h)
{
	uint32_t i, n, max = 0;
	const struct swdev_hnode *p;

	for (i = 0; i < h->nb; i++) {
		for (n = 0, p = h->b[i]; p != NULL; p = p->next)
			n++;
		if (n > max)
			max = n;
	}
	return max;
}

static char last_log[256];

static void
capture_log(void *arg, const char *line)
{
	(void)arg;
	snprintf(last_log, sizeof(last_log), "%s", line);
}

static bool
logged(const char *a, const char *b)
{
	bool yes = strstr(last_log, a) != NULL && strstr(last_log, b) != NULL;

	last_log[0] = '\0';
	return yes;
}

/* Expect a firmware refusal of a create, nothing created. */
#define CHECK_FW(eng, call, st, synd) do { \
	uint32_t before_ = count_of((eng), 0, SWDEV_KIND_MAX); \
	memset(out, 0, sizeof(out)); \
	CHECK_EQ((call), EREMOTEIO); \
	CHECK_EQ(t_status(out), (st)); \
	CHECK_EQ(t_syndrome(out), (synd)); \
	CHECK_EQ(count_of((eng), 0, SWDEV_KIND_MAX), before_); \
} while (0)

/* ---- capabilities and limits ---- */

static void
test_caps(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = {0};
	static uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	const uint8_t *p = MDEVX_ADDR_OF(query_hca_cap_out, out, capability) +
			   MDEVX_BYTE_OFF(flow_table_nic_cap, flow_table_properties_nic_receive);
	struct swdev_limits lim, max;
	struct swdev_file *f;

	swdev_limits_default(&lim);
	CHECK_EQ(lim.log_max_destination, 0);
	CHECK(lim.max_ft_level >= 2 && lim.log_max_ft_size >= 16);
	lim.log_max_ft_size = 17;
	lim.max_ft_level = 9;
	lim.log_max_ft_num = 11;
	lim.log_max_flow_counter = 3;
	lim.log_max_flow = 19;
	CHECK_EQ(swdev_engine_add_device(eng, T_DEV, &lim), 0);
	f = swdev_file_open(eng, T_DEV);
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	MDEVX_SET(query_hca_cap_in, in, op_mod, MDEVX_HCA_CAP_OP_MOD_NIC_FLOW_TABLE_CUR);
	memset(out, 0xff, sizeof(out));
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, ft_support), 1);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, flow_counter), 1);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, flow_modify_en), 0);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, log_max_ft_size), 17);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, max_ft_level), 9);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, log_max_ft_num), 11);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, log_max_flow_counter), 3);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, log_max_destination), 0);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, log_max_flow), 19);
	CHECK_EQ(out[sizeof(out) - 1], 0);
	/* maximum caps (op_mod 0xe) are the same */
	MDEVX_SET(query_hca_cap_in, in, op_mod, MDEVX_HCA_CAP_OP_MOD_NIC_FLOW_TABLE_CUR - 1);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(flow_table_prop_layout, p, max_ft_level), 9);
	swdev_engine_destroy(eng);
	/* limits above the maxima are refused */
	swdev_limits_max(&max);
	eng = swdev_engine_create();
	swdev_limits_default(&lim);
	lim.log_max_destination = 1;
	CHECK_EQ(swdev_engine_add_device(eng, "d1", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.max_ft_level = 0;
	CHECK_EQ(swdev_engine_add_device(eng, "d2", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.log_max_ft_size = (uint8_t)(max.log_max_ft_size + 1);
	CHECK_EQ(swdev_engine_add_device(eng, "d3", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.log_max_ft_num = (uint8_t)(max.log_max_ft_num + 1);
	CHECK_EQ(swdev_engine_add_device(eng, "d4", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.log_max_flow_counter = (uint8_t)(max.log_max_flow_counter + 1);
	CHECK_EQ(swdev_engine_add_device(eng, "d5", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.log_max_flow = (uint8_t)(max.log_max_flow + 1);
	CHECK_EQ(swdev_engine_add_device(eng, "d6", &lim), -EINVAL);
	CHECK_EQ(swdev_engine_add_device(eng, "d7", &max), 0);
	swdev_engine_destroy(eng);
}

/* ---- flow tables ---- */

static void
test_flow_table(void)
{
	struct swdev_engine *eng;
	struct swdev_limits lim;
	struct swdev_file *f, *g;
	uint8_t in[FT_IN], out[MDEVX_ST_SZ_BYTES(query_flow_table_out)];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_flow_table_in)];
	const uint8_t *ftc = MDEVX_ADDR_OF(query_flow_table_out, out, flow_table_context);
	struct swdev_obj_info info;
	uint32_t t1_h, t1, t2_h, t2, t3_h, t3, gt, h;
	uint64_t icm;

	swdev_limits_default(&lim);
	lim.log_max_ft_num = 2;		/* 4 tables */
	lim.max_ft_level = 5;
	lim.log_max_ft_size = 10;
	eng = new_engine(&lim);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	/* create: rdma-core style info, table id and ICM address */
	build_ft(in, 3, 4, 0);
	CHECK_EQ(swdev_devx_obj_create(f, in, sizeof(in), out, 16, &info), 0);
	t3 = MDEVX_GET(create_flow_table_out, out, table_id);
	t3_h = info.handle;
	icm = (uint64_t)MDEVX_GET(create_flow_table_out, out, icm_address_63_40) << 40 |
	      (uint64_t)MDEVX_GET(create_flow_table_out, out, icm_address_39_32) << 32 |
	      MDEVX_GET(create_flow_table_out, out, icm_address_31_0);
	CHECK(t3 != 0 && t3 <= 0xffffff);
	CHECK_EQ(info.type, MDEVX_DEVX_TYPE_FLOW_TABLE);
	CHECK_EQ(info.object_id, t3);
	CHECK_EQ(info.rx_icm_addr, icm);
	CHECK_EQ(icm, SWDEV_FT_ICM_BASE | ((uint64_t)t3 << 8));
	CHECK_EQ(ft_create(f, 1, 0, t3, &t1_h, &t1, out), 0);	/* miss to level 3 */
	/* QUERY_FLOW_TABLE returns the context */
	memset(qin, 0, sizeof(qin));
	MDEVX_SET(query_flow_table_in, qin, opcode, MDEVX_CMD_OP_QUERY_FLOW_TABLE);
	MDEVX_SET(query_flow_table_in, qin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(query_flow_table_in, qin, table_id, t1);
	memset(out, 0xee, sizeof(out));
	CHECK_EQ(swdev_devx_obj_query(f, t1_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, level), 1);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, log_size), 0);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, table_miss_action), 1);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, table_miss_id), t3);
	CHECK_EQ(swdev_devx_obj_query(f, t3_h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	MDEVX_SET(query_flow_table_in, qin, table_id, t3);
	CHECK_EQ(swdev_devx_obj_query(f, t3_h, qin, sizeof(qin), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, level), 3);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, log_size), 4);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, table_miss_action), 0);
	CHECK_EQ(MDEVX_GET(flow_table_context, ftc, table_miss_id), 0);
	CHECK_EQ(swdev_devx_obj_query(f, t3_h, qin, sizeof(qin), out, 63), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	MDEVX_SET(query_flow_table_in, qin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_TX);
	CHECK_EQ(swdev_devx_obj_query(f, t3_h, qin, sizeof(qin), out, sizeof(out)), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_FT_BAD_TYPE);
	/* refusals */
	build_ft(in, 1, 0, 0);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN - 1, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_BAD_INLEN);
	MDEVX_SET(create_flow_table_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_TX);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_TYPE);
	build_ft(in, 1, 0, 0);
	MDEVX_SET(create_flow_table_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_FDB);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_TYPE);
	build_ft(in, 1, 0, 0);
	MDEVX_SET(create_flow_table_in, in, other_vport, 1);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_OTHER_VPORT);
	build_ft(in, 1, 0, 0);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.sw_owner, 1);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_FLAGS);
	build_ft(in, 1, 0, 0);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.decap_en, 1);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_FLAGS);
	CHECK_FW(eng, ft_create(f, 0, 0, 0, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_LEVEL);
	CHECK_FW(eng, ft_create(f, 6, 0, 0, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_LEVEL);
	CHECK_FW(eng, ft_create(f, 1, 11, 0, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_LOG_SIZE);
	build_ft(in, 1, 0, 0);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.table_miss_action, 2);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FT_IN, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_MISS_ACTION);
	CHECK_FW(eng, ft_create(f, 1, 0, t3 + 77, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FT_BAD_MISS_TABLE);
	CHECK_FW(eng, ft_create(f, 3, 0, t3, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_MISS_LEVEL);
	CHECK_FW(eng, ft_create(f, 4, 0, t3, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_MISS_LEVEL);
	/* another file's table as the miss table */
	CHECK_EQ(ft_create(g, 5, 0, 0, &h, &gt, out), 0);
	CHECK_FW(eng, ft_create(f, 1, 0, gt, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FT_MISS_OTHER_UID);
	/* a TIR id is not a table id */
	CHECK_FW(eng, ft_create(f, 1, 0, 0x800000, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FT_BAD_MISS_TABLE);
	/* 4 tables per device: the fourth works, the fifth is LIM_ERR */
	CHECK_EQ(ft_create(f, 2, 0, 0, &t2_h, &t2, out), 0);
	CHECK_FW(eng, ft_create(f, 2, 0, 0, NULL, NULL, out),
		 MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_FT_LIMIT);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW_TABLE), 4);
	/* the miss table is referenced */
	CHECK_EQ(swdev_devx_obj_destroy(f, t3_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, t1_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t3_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t3_h), ENOENT);
	/* ids are reused, lowest first */
	CHECK_EQ(ft_create(f, 2, 0, 0, NULL, &h, out), 0);
	CHECK_EQ(h, t3);
	(void)t2_h;
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW_TABLE), 1);
	swdev_engine_destroy(eng);
}

/* ---- flow groups ---- */

static void
test_flow_group(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	uint8_t in[FG_IN], out[16], mask[SET_LEN] = {0};
	struct swdev_obj_info info;
	uint32_t t_h, t, gt_h, gt, g1_h, g1, g2_h, h, id;
	struct t_chain c;
	struct fte_spec s;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(ft_create(f, 1, 6, 0, &t_h, &t, out), 0);	/* 64 entries */
	CHECK_EQ(ft_create(g, 1, 6, 0, &gt_h, &gt, out), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, udp_dport, 0xffff);
	build_fg(in, t, 10, 19, mask);
	CHECK_EQ(swdev_devx_obj_create(f, in, FG_IN, out, 16, &info), 0);
	g1 = MDEVX_GET(create_flow_group_out, out, group_id);
	g1_h = info.handle;
	CHECK(g1 != 0);
	CHECK_EQ(info.type, MDEVX_DEVX_TYPE_FLOW_GROUP);
	CHECK_EQ(info.object_id, g1);
	/* overlaps: same range, left edge, right edge, inside, around */
	CHECK_FW(eng, fg_create(f, t, 10, 19, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_FW(eng, fg_create(f, t, 0, 10, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_FW(eng, fg_create(f, t, 19, 30, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_FW(eng, fg_create(f, t, 12, 13, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_FW(eng, fg_create(f, t, 5, 25, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	/* adjacent groups are fine, on both sides; then overlaps with either */
	CHECK_EQ(fg_create(f, t, 20, 20, NULL, &g2_h, NULL, out), 0);
	CHECK_EQ(fg_create(f, t, 0, 9, mask, &h, NULL, out), 0);
	CHECK_FW(eng, fg_create(f, t, 20, 63, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_FW(eng, fg_create(f, t, 9, 9, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	CHECK_EQ(swdev_devx_obj_destroy(f, h), 0);
	/* range */
	CHECK_FW(eng, fg_create(f, t, 40, 39, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_RANGE);
	CHECK_FW(eng, fg_create(f, t, 40, 64, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_RANGE);
	CHECK_FW(eng, fg_create(f, t, 64, 64, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_RANGE);
	CHECK_FW(eng, fg_create(f, t, 40, UINT32_MAX, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_RANGE);
	/* table: unknown, another uid's */
	CHECK_FW(eng, fg_create(f, t + 100, 40, 41, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FG_BAD_TABLE);
	CHECK_FW(eng, fg_create(f, gt, 40, 41, mask, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FG_TABLE_OTHER_UID);
	/* header fields */
	build_fg(in, t, 40, 41, mask);
	CHECK_FW(eng, swdev_devx_obj_create(f, in, FG_IN - 4, out, 16, NULL),
		 MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_BAD_INLEN);
	MDEVX_SET(create_flow_group_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_TX);
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_TYPE);
	build_fg(in, t, 40, 41, mask);
	MDEVX_SET(create_flow_group_in, in, other_vport, 1);
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OTHER_VPORT);
	build_fg(in, t, 40, 41, mask);
	MDEVX_SET(create_flow_group_in, in, group_type, 1);
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_GROUP_TYPE);
	/* criteria and masks */
	build_fg(in, t, 40, 41, mask);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, OUTER | 0x2);
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_CRITERIA);
	build_fg(in, t, 40, 41, mask);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, 0x4);	/* inner */
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_CRITERIA);
	build_fg(in, t, 40, 41, mask);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, 0);	/* outer bits set */
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_MASK);
	build_fg(in, t, 40, 41, mask);
	/* a bit of misc_parameters (byte 64 of the match param) */
	MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria.misc_parameters)[3] = 1;
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_MASK);
	build_fg(in, t, 40, 41, mask);
	MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria)[PARAM_LEN - 1] = 0x80;
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_MASK);
	/* the reserved bits of the outer set: no parser field there */
	build_fg(in, t, 40, 41, mask);
	MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria.outer_headers)[0x18] = 0x01;
	CHECK_FW(eng, fg_send(f, in, NULL, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_MASK_UNSUPPORTED);
	/* every parsed field may be masked, all at once */
	{
		uint8_t all[SET_LEN];

		memset(all, 0xff, sizeof(all));
		memset(all + 0x18, 0, 3);	/* reserved_at_c0 */
		CHECK_EQ(fg_create(f, t, 40, 41, all, &h, NULL, out), 0);
		all[0x1a] = 0x80;
		CHECK_FW(eng, fg_create(f, t, 50, 51, all, NULL, NULL, out),
			 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_MASK_UNSUPPORTED);
	}
	/* an empty mask with criteria 0 is a catch-all group */
	build_fg(in, t, 60, 63, NULL);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, 0);
	CHECK_EQ(fg_send(f, in, NULL, NULL, out), 0);
	/* references: the table while it has groups, a group with entries */
	s = to_tir(c.tirn);
	CHECK_EQ(fte_create(f, t, g1, 10, NULL, &s, &id, out), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, g1_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, id), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, g1_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, g2_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t_h), EBUSY);	/* two groups left */
	CHECK_EQ(count_of(eng, swdev_file_id(f), SWDEV_KIND_FLOW_GROUP), 2);
	swdev_file_close(f);
	swdev_file_close(g);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MAX), 0);
	swdev_engine_destroy(eng);
}

/* ---- flow table entries ---- */

static void
test_fte(void)
{
	struct swdev_engine *eng;
	struct swdev_limits lim;
	struct swdev_file *f, *g;
	struct t_chain c, gc;
	uint8_t in[FTE_BUF], out[16], mask[SET_LEN] = {0}, val[SET_LEN] = {0};
	static uint8_t qout[MDEVX_ST_SZ_BYTES(query_fte_out) + 64];
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_fte_in)];
	const uint8_t *fc = MDEVX_ADDR_OF(query_fte_out, qout, flow_context);
	uint32_t t1_h, t1, t2_h, t2, t1b, fg_h, fg, fg2, gt, gfg, tir2_h, tir2;
	uint32_t b_h, b, gb_h, gb, e_h, h, e2_h;
	struct swdev_obj_info info;
	struct fte_spec s;
	size_t len;
	uint32_t i;

	swdev_limits_default(&lim);
	lim.log_max_flow = 3;		/* 8 entries per device */
	eng = new_engine(&lim);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	CHECK_EQ(tir_create(f, &c, &tir2_h, &tir2), 0);
	CHECK_EQ(ft_create(f, 1, 4, 0, &t1_h, &t1, out), 0);
	CHECK_EQ(ft_create(f, 1, 4, 0, NULL, &t1b, out), 0);
	CHECK_EQ(ft_create(f, 2, 4, 0, &t2_h, &t2, out), 0);
	CHECK_EQ(ft_create(g, 2, 4, 0, NULL, &gt, out), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, udp_dport, 0xffff);
	CHECK_EQ(fg_create(f, t1, 0, 7, mask, &fg_h, &fg, out), 0);
	CHECK_EQ(fg_create(f, t1b, 0, 7, mask, NULL, &fg2, out), 0);
	CHECK_EQ(fg_create(g, gt, 0, 7, mask, NULL, &gfg, out), 0);
	CHECK_EQ(bulk(f, 2, &b_h, &b), 0);		/* 4 counters */
	CHECK_EQ(bulk(g, 0, &gb_h, &gb), 0);
	/* an entry: TIR + two counters (one in the middle of the bulk) */
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 4789);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_sport, 7);	/* outside the mask */
	s = to_tir(c.tirn);
	s.action |= ACT_COUNT;
	s.ncnt = 2;
	s.cnt[0] = b + 2;
	s.cnt[1] = b;
	len = build_fte(in, t1, fg, 3, val, &s);
	CHECK_EQ(len, FTE_IN + 8 * 3);
	CHECK_EQ(swdev_devx_obj_create(f, in, len, out, 16, &info), 0);
	e_h = info.handle;
	CHECK_EQ(info.type, MDEVX_DEVX_TYPE_FLOW_TABLE_ENTRY);
	CHECK_EQ(info.object_id, 3);
	/* QUERY_FLOW_TABLE_ENTRY: the context, the value under the group mask */
	memset(qin, 0, sizeof(qin));
	MDEVX_SET(query_fte_in, qin, opcode, MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY);
	MDEVX_SET(query_fte_in, qin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(query_fte_in, qin, table_id, t1);
	MDEVX_SET(query_fte_in, qin, flow_index, 3);
	memset(qout, 0xee, sizeof(qout));
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout, sizeof(qout)), 0);
	CHECK_EQ(MDEVX_GET(flow_context, fc, group_id), fg);
	CHECK_EQ(MDEVX_GET(flow_context, fc, flow_tag), 0x123456);
	CHECK_EQ(MDEVX_GET(flow_context, fc, action), ACT_FWD | ACT_COUNT);
	CHECK_EQ(MDEVX_GET(flow_context, fc, extended_destination), 0);
	CHECK_EQ(MDEVX_GET(flow_context, fc, destination_list_size), 1);
	CHECK_EQ(MDEVX_GET(flow_context, fc, flow_counter_list_size), 2);
	CHECK_EQ(MDEVX_GET(flow_context, fc, match_value.outer_headers.udp_dport), 4789);
	CHECK_EQ(MDEVX_GET(flow_context, fc, match_value.outer_headers.udp_sport), 0);
	{
		const uint8_t *l = qout + MDEVX_ST_SZ_BYTES(query_fte_out);

		CHECK_EQ(MDEVX_GET(dest_format, l, destination_type), D_TIR);
		CHECK_EQ(MDEVX_GET(dest_format, l, destination_id), c.tirn);
		CHECK_EQ(MDEVX_GET(flow_counter_list, l + 8, flow_counter_id), b + 2);
		CHECK_EQ(MDEVX_GET(flow_counter_list, l + 16, flow_counter_id), b);
		CHECK_EQ(l[24], 0);	/* zeroed past the lists */
	}
	memset(qout, 0, sizeof(qout));
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout,
				      MDEVX_ST_SZ_BYTES(query_fte_out) + 23), EREMOTEIO);
	CHECK_EQ(t_status(qout), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(t_syndrome(qout), SWDEV_SYND_FTE_QUERY_OUTLEN);
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout,
				      MDEVX_ST_SZ_BYTES(query_fte_out) - 1), EREMOTEIO);
	CHECK_EQ(t_syndrome(qout), SWDEV_SYND_BAD_OUTLEN);
	MDEVX_SET(query_fte_in, qin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_TX);
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout, sizeof(qout)), EREMOTEIO);
	CHECK_EQ(t_syndrome(qout), SWDEV_SYND_FTE_BAD_TYPE);
	/* the command must name the handle's entry (index and table) */
	MDEVX_SET(query_fte_in, qin, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(query_fte_in, qin, flow_index, 4);
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout, sizeof(qout)), EINVAL);
	MDEVX_SET(query_fte_in, qin, flow_index, 3);
	MDEVX_SET(query_fte_in, qin, table_id, t1b);
	CHECK_EQ(swdev_devx_obj_query(f, e_h, qin, sizeof(qin), qout, sizeof(qout)), EINVAL);
	MDEVX_SET(query_fte_in, qin, table_id, t1);
	CHECK_EQ(swdev_devx_obj_query(f, t1_h, qin, sizeof(qin), qout, sizeof(qout)), EINVAL);
	/* SET_FLOW_TABLE_ENTRY op_mod 1 is a modify: not emulated (BAD_OP) */
	MDEVX_SET(set_fte_in, in, op_mod, MDEVX_SET_FTE_OP_MOD_MODIFY);
	CHECK_EQ(swdev_devx_obj_create(f, in, len, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_modify(f, e_h, in, len, out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OP_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_FTE_MODIFY);
	/* the entry holds its table, group, TIR and bulk */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, fg_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, t1_h), EBUSY);
	/* index: outside the group, used */
	s = to_tir(c.tirn);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 1);
	CHECK_FW(eng, fte_create(f, t1, fg, 8, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_INDEX);
	CHECK_FW(eng, fte_create(f, t1, fg, 3, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_INDEX_USED);
	/* the same value under the mask at another index: duplicate */
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 4789);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_sport, 99);
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_DUP_VALUE);
	/* the same value in another table is fine */
	s = to_tir(tir2);
	CHECK_EQ(fte_create(f, t1b, fg2, 4, val, &s, &e2_h, out), 0);
	s = to_tir(c.tirn);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 1);
	/* table and group */
	CHECK_FW(eng, fte_create(f, t1 + 50, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_TABLE);
	CHECK_FW(eng, fte_create(f, gt, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_TABLE_OTHER_UID);
	CHECK_FW(eng, fte_create(f, t1, fg + 50, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_GROUP);
	CHECK_FW(eng, fte_create(f, t1, fg2, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_GROUP);
	CHECK_FW(eng, fte_create(f, t1, gfg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_GROUP_OTHER_UID);
	/* header fields */
	len = build_fte(in, t1, fg, 4, val, &s);
	MDEVX_SET(set_fte_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_TX);
	CHECK_FW(eng, fte_send(f, in, len, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_TYPE);
	len = build_fte(in, t1, fg, 4, val, &s);
	MDEVX_SET(set_fte_in, in, other_vport, 1);
	CHECK_FW(eng, fte_send(f, in, len, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_OTHER_VPORT);
	len = build_fte(in, t1, fg, 4, val, &s);
	MDEVX_SET(set_fte_in, in, ignore_flow_level, 1);
	CHECK_FW(eng, fte_send(f, in, len, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_IGNORE_LEVEL);
	len = build_fte(in, t1, fg, 4, val, &s);
	CHECK_FW(eng, fte_send(f, in, FTE_IN - 1, NULL, out),
		 MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_BAD_INLEN);
	/* actions */
	s.action = MDEVX_FLOW_CONTEXT_ACTION_ALLOW;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_ACTION);
	s.action = ACT_FWD | 0x40;	/* MOD_HDR */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_ACTION);
	s.action = ACT_FWD | ACT_DROP;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_DROP_AND_FWD);
	s = to_tir(c.tirn);
	s.action = ACT_COUNT;
	s.ndest = 0;
	s.ncnt = 1;
	s.cnt[0] = b;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_NO_FWD);
	/* destination and counter list sizes */
	s = to_tir(c.tirn);
	s.ndest = 0;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_DEST_COUNT);
	s = to_tir(c.tirn);
	s.ndest = 2;		/* log_max_destination 0: replication not emulated */
	s.dtype[1] = D_TIR;
	s.did[1] = tir2;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_DEST_COUNT);
	s = to_tir(c.tirn);
	s.action = ACT_DROP;	/* a drop with a destination list */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_DEST_COUNT);
	s = to_tir(c.tirn);
	s.action |= ACT_COUNT;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_CNT_COUNT);
	s.action = ACT_FWD;
	s.ncnt = 1;
	s.cnt[0] = b;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_CNT_COUNT);
	s.action = ACT_FWD | ACT_COUNT;
	s.ncnt = 17;		/* 1 << log_max_flow_counter (4) = 16 */
	for (i = 0; i < 17; i++)
		s.cnt[i] = b + i % 4;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_CNT_COUNT);
	/* truncated list: 8-byte and 16-byte entries */
	s.ncnt = 1;
	len = build_fte(in, t1, fg, 4, val, &s);
	CHECK_FW(eng, fte_send(f, in, len - 1, NULL, out),
		 MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_FTE_INLEN_LIST);
	s.ext = 1;
	len = build_fte(in, t1, fg, 4, val, &s);
	CHECK_EQ(len, FTE_IN + 32);
	CHECK_FW(eng, fte_send(f, in, FTE_IN + 24, NULL, out),
		 MDEVX_CMD_STAT_BAD_INP_LEN_ERR, SWDEV_SYND_FTE_INLEN_LIST);
	/* destinations */
	s = to_tir(c.tirn);
	s.dtype[0] = MDEVX_FLOW_DEST_TYPE_VPORT;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_DEST_TYPE);
	s.dtype[0] = 0x8;	/* uplink */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_DEST_TYPE);
	s = to_tir(c.tirn + 40);
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_TIR);
	s = to_tir(gc.tirn);	/* file g's TIR */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_TIR_OTHER_UID);
	s = to_tir(t2);		/* a table id as a TIR */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_TIR);
	s = to_table(t1b);	/* same level */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_DEST_LEVEL);
	s = to_table(t1);	/* itself */
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_DEST_LEVEL);
	s = to_table(c.tirn);
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_DEST_TABLE);
	s = to_table(gt);
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_DEST_TABLE_OTHER_UID);
	/* counters: unknown, past the bulk, another uid's */
	s = to_tir(c.tirn);
	s.action |= ACT_COUNT;
	s.ncnt = 1;
	s.cnt[0] = b + 4;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_COUNTER);
	s.cnt[0] = 0;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_COUNTER);
	s.cnt[0] = gb;
	CHECK_FW(eng, fte_create(f, t1, fg, 4, val, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_COUNTER_OTHER_UID);
	/* a table destination one level down, 16-byte list entries */
	s = to_table(t2);
	s.action |= ACT_COUNT;
	s.ncnt = 1;
	s.cnt[0] = b + 3;
	s.ext = 1;
	CHECK_EQ(fte_create(f, t1, fg, 4, val, &s, &h, out), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t2_h), EBUSY);
	MDEVX_SET(query_fte_in, qin, flow_index, 4);
	memset(qout, 0xee, sizeof(qout));
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), qout, sizeof(qout)), 0);
	CHECK_EQ(MDEVX_GET(flow_context, fc, extended_destination), 1);
	CHECK_EQ(MDEVX_GET(dest_format, qout + MDEVX_ST_SZ_BYTES(query_fte_out),
			   destination_type), D_FT);
	CHECK_EQ(MDEVX_GET(dest_format, qout + MDEVX_ST_SZ_BYTES(query_fte_out),
			   destination_id), t2);
	CHECK_EQ(MDEVX_GET(flow_counter_list, qout + MDEVX_ST_SZ_BYTES(query_fte_out) + 16,
			   flow_counter_id), b + 3);
	/* a drop entry; then the device limit (8 entries) */
	memset(&s, 0, sizeof(s));
	s.action = ACT_DROP;
	for (i = 5; i < 8; i++) {
		MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 100 + i);
		CHECK_EQ(fte_create(f, t1, fg, i, val, &s, NULL, out), 0);
	}
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FTE), 6);
	CHECK_EQ(fte_create(g, gt, gfg, 0, val, &s, NULL, out), 0);
	CHECK_EQ(fte_create(g, gt, gfg, 1, mask, &s, NULL, out), 0);
	CHECK_FW(eng, fte_create(f, t1, fg, 0, mask, &s, NULL, out),
		 MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_FTE_LIMIT);
	/* delete releases the references */
	CHECK_EQ(swdev_devx_obj_destroy(f, e_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), EBUSY);	/* still b + 3 */
	CHECK_EQ(swdev_devx_obj_destroy(f, h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t2_h), 0);
	/* a destroyed TIR, table and counter are unknown ids */
	s = to_tir(c.tirn);
	CHECK_FW(eng, fte_create(f, t1, fg, 0, mask, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_TIR);
	s = to_table(t2);
	CHECK_FW(eng, fte_create(f, t1, fg, 0, mask, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_DEST_TABLE);
	s = to_tir(tir2);
	s.action |= ACT_COUNT;
	s.ncnt = 1;
	s.cnt[0] = b;
	CHECK_FW(eng, fte_create(f, t1, fg, 0, mask, &s, NULL, out),
		 MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_COUNTER);
	(void)e2_h;
	(void)tir2_h;
	(void)gb_h;
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FTE), 2);
	swdev_file_close(g);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MAX), 0);
	swdev_engine_destroy(eng);
}

/* ---- root matchers and rules: the kernel's checks ---- */

static void
test_root_rules_api(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	uint8_t mask[PARAM_LEN] = {0}, val[PARAM_LEN] = {0}, out[16];
	uint32_t m_h, m2_h, fl_h, b_h, b, t_h, t, gb_h, gb, pd_h, pdn, h, i;
	struct swdev_flow_attr a;
	struct t_chain c, gc;

	swdev_engine_set_log(eng, capture_log, NULL);
	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(bulk(f, 2, &b_h, &b), 0);
	CHECK_EQ(ft_create(f, 1, 0, 0, &t_h, &t, out), 0);
	CHECK_EQ(swdev_file_pd_alloc(f, &pd_h, &pdn), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, ip_protocol, 0xff);
	/* matcher refusals */
	CHECK_EQ(swdev_file_matcher_create(NULL, 0, OUTER, mask, 64, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, 64, NULL), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, 62, &h), EINVAL);
	CHECK(logged("matcher_create: errno 22", "mask length"));
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, PARAM_LEN + 4, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, NULL, 64, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER | 0x2, mask, 64, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, 0x4, mask, 64, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, 0, mask, 64, &h), EINVAL);
	mask[64] = 1;	/* misc_parameters */
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, 68, &h), EINVAL);
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, PARAM_LEN, &h), EINVAL);
	mask[64] = 0;
	mask[PARAM_LEN - 1] = 1;
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, PARAM_LEN, &h), EINVAL);
	/* ... but bytes past mask_len are not read */
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, 64, &m2_h), 0);
	mask[PARAM_LEN - 1] = 0;
	mask[0x19] = 0x10;	/* reserved bits of the outer set */
	CHECK_EQ(swdev_file_matcher_create(f, 0, OUTER, mask, 64, &h), EOPNOTSUPP);
	CHECK(logged("matcher_create: errno 95", "not parsed"));
	mask[0x19] = 0;
	CHECK_EQ(count_of(eng, swdev_file_id(f), SWDEV_KIND_MATCHER), 1);
	/* a full-length mask, and a 4-byte one (smac_47_16 only) */
	CHECK_EQ(swdev_file_matcher_create(f, 3, OUTER, mask, PARAM_LEN, &m_h), 0);
	CHECK_EQ(swdev_file_steer_destroy(f, m_h, SWDEV_KIND_MATCHER), 0);
	CHECK_EQ(swdev_file_matcher_create(f, 3, OUTER, mask, 4, &h), 0);
	CHECK_EQ(swdev_file_steer_destroy(f, h, SWDEV_KIND_MATCHER), 0);
	/* an empty match-all matcher */
	CHECK_EQ(swdev_file_matcher_create(f, 9, 0, NULL, 0, &h), 0);
	memset(&a, 0, sizeof(a));
	a.dest = SWDEV_FLOW_DEST_DROP;
	CHECK_EQ(swdev_file_flow_create(f, h, NULL, 0, &a, &fl_h), 0);
	CHECK_EQ(swdev_file_flow_create(f, h, NULL, 0, &a, &i), EEXIST);
	CHECK_EQ(swdev_file_steer_destroy(f, h, SWDEV_KIND_MATCHER), EBUSY);
	CHECK_EQ(swdev_file_steer_destroy(f, fl_h, SWDEV_KIND_FLOW), 0);
	CHECK_EQ(swdev_file_steer_destroy(f, h, SWDEV_KIND_MATCHER), 0);
	CHECK_EQ(matcher(f, 5, mask, &m_h), 0);
	/* rule refusals */
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 17);
	CHECK_EQ(flow(f, m_h + 100, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), ENOENT);
	CHECK(logged("flow_create: errno 2", "no such matcher handle"));
	CHECK_EQ(flow(f, c.tir_h, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), EINVAL);
	CHECK(logged("flow_create: errno 22", "not a matcher"));
	CHECK_EQ(swdev_file_flow_create(f, m_h, val, 60, &a, &h), EINVAL);
	CHECK_EQ(swdev_file_flow_create(f, m_h, val, 68, &a, &h), EINVAL);
	CHECK_EQ(swdev_file_flow_create(f, m_h, NULL, 64, &a, &h), EINVAL);
	CHECK_EQ(swdev_file_flow_create(f, m_h, val, 64, NULL, &h), EINVAL);
	CHECK_EQ(swdev_file_flow_create(NULL, m_h, val, 64, &a, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_NONE, 0, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, 3, c.tir_h, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, 5000, 0, 0, 0, &h), ENOENT);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, b_h, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, c.rq_h[0], 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, pd_h, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, m2_h, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 1, 5000, 0, &h), ENOENT);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 1, c.tir_h, 0, &h), EINVAL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 1, b_h, 4, &h), EINVAL);
	CHECK(logged("flow_create: errno 22", "actions"));
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 2, b_h, 0, &h), EINVAL);
	memset(&a, 0, sizeof(a));
	a.dest = SWDEV_FLOW_DEST_DROP;
	a.reserved[1] = 1;
	CHECK_EQ(swdev_file_flow_create(f, m_h, val, 64, &a, &h), EINVAL);
	/* another file's handles do not resolve here: g's objects have handles
	 * that f does not have (f's are fewer) */
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	for (i = 0; i < 20; i++)
		CHECK_EQ(ft_create(g, 1, 0, 0, NULL, NULL, out), 0);
	CHECK_EQ(bulk(g, 0, &gb_h, &gb), 0);
	CHECK(gb_h > t_h + 5);
	CHECK(swdev_idmap_get(&f->handles, gb_h) == NULL);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, gb_h - 1, 0, 0, 0, &h), ENOENT);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 1, gb_h, 0, &h), ENOENT);
	/* and g cannot put a rule on f's matcher (no such handle in g) */
	CHECK(swdev_idmap_get(&g->handles, m_h) != NULL);
	CHECK_EQ(flow(g, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), EINVAL);
	CHECK_EQ(count_of(eng, swdev_file_id(f), SWDEV_KIND_FLOW), 0);
	/* good rules: the last offset of the bulk, a table, a TIR */
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, c.tir_h, 1, b_h, 3, &fl_h), 0);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), EEXIST);
	CHECK(logged("flow_create: errno 17", "same value"));
	/* the value is masked: other bits do not make it another value */
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 53);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), EEXIST);
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 6);
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, t_h, 0, 0, 0, &h), 0);
	/* references */
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, t_h), EBUSY);
	CHECK_EQ(swdev_file_steer_destroy(f, m_h, SWDEV_KIND_MATCHER), EBUSY);
	CHECK(logged("matcher_destroy: errno 16", "still has rules"));
	/* destroy: the right call and kind only */
	CHECK_EQ(swdev_devx_obj_destroy(f, fl_h), EINVAL);
	CHECK_EQ(swdev_file_verbs_destroy(f, fl_h), EINVAL);
	CHECK_EQ(swdev_file_verbs_destroy(f, m_h), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, fl_h, SWDEV_KIND_MATCHER), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, m_h, SWDEV_KIND_FLOW), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, c.tir_h, SWDEV_KIND_FLOW), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, fl_h, SWDEV_KIND_TIR), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, 7000, SWDEV_KIND_FLOW), ENOENT);
	CHECK_EQ(swdev_file_steer_destroy(NULL, fl_h, SWDEV_KIND_FLOW), EINVAL);
	/* the same handle in g names another object */
	CHECK_EQ(swdev_file_steer_destroy(g, fl_h, SWDEV_KIND_FLOW), EINVAL);
	CHECK_EQ(swdev_file_steer_destroy(f, fl_h, SWDEV_KIND_FLOW), 0);
	CHECK_EQ(swdev_file_steer_destroy(f, fl_h, SWDEV_KIND_FLOW), ENOENT);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, t_h), EBUSY);
	/* destroyed objects: their handles are gone */
	CHECK_EQ(flow(f, m_h, val, SWDEV_FLOW_DEST_DEVX, c.tir_h, 0, 0, 0, &h), ENOENT);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MATCHER), 2);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW), 1);
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MATCHER), 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW), 0);
	CHECK(dev_of(eng)->steer->matchers == NULL);
	CHECK_EQ(dev_of(eng)->steer->nmatchers, 0);
	swdev_engine_destroy(eng);
}

/* ---- classification ---- */

static void
test_classify_masks(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	uint8_t mask[SET_LEN] = {0}, val[SET_LEN] = {0};
	uint32_t m1, m2, m3, tir2_h, tir2, tir3_h, tir3, h;
	struct swdev_pkt p;
	struct t_chain c;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(tir_create(f, &c, &tir2_h, &tir2), 0);
	CHECK_EQ(tir_create(f, &c, &tir3_h, &tir3), 0);
	/* nothing yet: a miss */
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(10, 1, 2, 3), 1000, 53);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* prio 0: dst 10.1.2.0/24 -> TIR 1 */
	set_ip(mask, 1, 0xffffff00u);
	CHECK_EQ(matcher(f, 0, mask, &m1), 0);
	CHECK_EQ(steer_to(eng, &p), 0);		/* a matcher without rules */
	set_ip(val, 1, IP4(10, 1, 2, 200));	/* host bits ignored */
	CHECK_EQ(flow(f, m1, val, SWDEV_FLOW_DEST_DEVX, c.tir_h, 0, 0, 0, &h), 0);
	/* prio 1: udp_dport only -> TIR 2 */
	memset(mask, 0, sizeof(mask));
	memset(val, 0, sizeof(val));
	MDEVX_SET(fte_match_set_lyr_2_4, mask, udp_dport, 0xffff);
	CHECK_EQ(matcher(f, 1, mask, &m2), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 4789);
	CHECK_EQ(flow(f, m2, val, SWDEV_FLOW_DEST_DEVX, tir2_h, 0, 0, 0, &h), 0);
	/* prio 2: ethertype + ip_protocol + tcp_dport, drop */
	memset(mask, 0, sizeof(mask));
	memset(val, 0, sizeof(val));
	MDEVX_SET(fte_match_set_lyr_2_4, mask, ethertype, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, ip_protocol, 0xff);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, tcp_dport, 0xff00);	/* high byte */
	CHECK_EQ(matcher(f, 2, mask, &m3), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, val, ethertype, 0x0800);
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 6);
	MDEVX_SET(fte_match_set_lyr_2_4, val, tcp_dport, 0x1f00);
	CHECK_EQ(flow(f, m3, val, SWDEV_FLOW_DEST_DROP, 0, 0, 0, 0, &h), 0);
	/* the /24 */
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(10, 1, 2, 3), 1000, 53);
	CHECK_EQ(steer_to(eng, &p), c.tirn);
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(10, 1, 2, 255), 1000, 4789);	/* prio 0 first */
	CHECK_EQ(steer_to(eng, &p), c.tirn);
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(10, 1, 3, 0), 1000, 53);
	CHECK_EQ(steer_to(eng, &p), 0);
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(11, 1, 2, 0), 1000, 53);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* udp_dport only, whatever the rest */
	pkt_udp(&p, IP4(9, 9, 9, 9), IP4(10, 1, 3, 1), 1, 4789);
	CHECK_EQ(steer_to(eng, &p), tir2);
	pkt_udp(&p, IP4(9, 9, 9, 9), IP4(10, 1, 3, 1), 1, 4790);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* tcp dport 0x1f00..0x1fff dropped; 0x2000 not */
	pkt_tcp(&p, IP4(20, 0, 0, 1), 0x1f90);
	CHECK_EQ(steer_to(eng, &p), UINT32_MAX);
	pkt_tcp(&p, IP4(20, 0, 0, 1), 0x1fff);
	CHECK_EQ(steer_to(eng, &p), UINT32_MAX);
	pkt_tcp(&p, IP4(20, 0, 0, 1), 0x2000);
	CHECK_EQ(steer_to(eng, &p), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, p.outer, tcp_dport, 0x1f00);
	MDEVX_SET(fte_match_set_lyr_2_4, p.outer, ethertype, 0x86dd);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* a destroyed rule is never reached again */
	CHECK_EQ(swdev_file_steer_destroy(f, h, SWDEV_KIND_FLOW), 0);
	pkt_tcp(&p, IP4(20, 0, 0, 1), 0x1f90);
	CHECK_EQ(steer_to(eng, &p), 0);
	swdev_file_close(f);
	pkt_udp(&p, IP4(1, 1, 1, 1), IP4(10, 1, 2, 3), 1000, 4789);
	CHECK_EQ(steer_to(eng, &p), 0);
	(void)tir3_h;
	(void)tir3;
	swdev_engine_destroy(eng);
}

static void
test_classify_priorities(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	uint8_t mask[SET_LEN] = {0}, val[SET_LEN] = {0};
	uint32_t t_h[4], tirn[4], gtir_h, gtir, m[6], fl[6], b_h, b;
	struct swdev_pkt p;
	struct t_chain c, gc;
	unsigned int i;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(tir_create(f, &c, &t_h[i], &tirn[i]), 0);
	CHECK_EQ(tir_create(g, &gc, &gtir_h, &gtir), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, udp_dport, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 80);
	/* created in the order 7, 3, 5: evaluated 3, 5, 7 */
	CHECK_EQ(matcher(f, 7, mask, &m[0]), 0);
	CHECK_EQ(matcher(f, 3, mask, &m[1]), 0);
	CHECK_EQ(matcher(f, 5, mask, &m[2]), 0);
	CHECK_EQ(flow(f, m[0], val, SWDEV_FLOW_DEST_DEVX, t_h[0], 0, 0, 0, &fl[0]), 0);
	CHECK_EQ(flow(f, m[2], val, SWDEV_FLOW_DEST_DEVX, t_h[2], 0, 0, 0, &fl[2]), 0);
	pkt_udp(&p, IP4(1, 2, 3, 4), IP4(5, 6, 7, 8), 9, 80);
	CHECK_EQ(steer_to(eng, &p), tirn[2]);
	CHECK_EQ(flow(f, m[1], val, SWDEV_FLOW_DEST_DEVX, t_h[1], 0, 0, 0, &fl[1]), 0);
	CHECK_EQ(steer_to(eng, &p), tirn[1]);
	/* a tie at 3: the older matcher first */
	CHECK_EQ(matcher(f, 3, mask, &m[3]), 0);
	CHECK_EQ(flow(f, m[3], val, SWDEV_FLOW_DEST_DEVX, t_h[3], 0, 0, 0, &fl[3]), 0);
	CHECK_EQ(steer_to(eng, &p), tirn[1]);
	CHECK_EQ(swdev_file_steer_destroy(f, fl[1], SWDEV_KIND_FLOW), 0);
	CHECK_EQ(steer_to(eng, &p), tirn[3]);
	CHECK_EQ(swdev_file_steer_destroy(f, fl[3], SWDEV_KIND_FLOW), 0);
	CHECK_EQ(steer_to(eng, &p), tirn[2]);
	/* matchers of all files are evaluated device-wide by priority */
	CHECK_EQ(matcher(g, 4, mask, &m[4]), 0);
	CHECK_EQ(flow(g, m[4], val, SWDEV_FLOW_DEST_DEVX, gtir_h, 0, 0, 0, &fl[4]), 0);
	CHECK_EQ(steer_to(eng, &p), gtir);
	/* count-and-continue at priority 0 in f, with g's rule still winning */
	CHECK_EQ(bulk(f, 0, &b_h, &b), 0);
	CHECK_EQ(matcher(f, 0, mask, &m[5]), 0);
	CHECK_EQ(flow(f, m[5], val, SWDEV_FLOW_DEST_NONE, 0, 1, b_h, 0, &fl[5]), 0);
	CHECK_EQ(steer_to(eng, &p), gtir);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 1);
	/* closing g removes its matcher from the device list */
	swdev_file_close(g);
	CHECK_EQ(steer_to(eng, &p), tirn[2]);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 2);
	CHECK_EQ(dev_of(eng)->steer->nmatchers, 5);
	/* the list stays sorted: priorities never decrease along it */
	{
		const struct swdev_obj *o;
		unsigned int n = 0;

		for (o = dev_of(eng)->steer->matchers; o != NULL; o = o->u.mt.next, n++)
			if (o->u.mt.next != NULL)
				CHECK(o->u.mt.priority <= o->u.mt.next->u.mt.priority);
		CHECK_EQ(n, 5);
	}
	swdev_engine_destroy(eng);
}

static void
test_classify_count(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	uint8_t mask[SET_LEN] = {0}, val[SET_LEN] = {0};
	uint32_t m0, m1, m2, b_h, b, h, drop_h;
	uint64_t bytes;
	struct swdev_pkt p;
	struct t_chain c;
	unsigned int i;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(bulk(f, 3, &b_h, &b), 0);	/* 8 counters */
	MDEVX_SET(fte_match_set_lyr_2_4, mask, ip_protocol, 0xff);
	/* prio 0 counts UDP on counter 5 and goes on; prio 1 counts on 6 and
	 * forwards to the TIR; prio 2 would count on 7 (never reached) */
	CHECK_EQ(matcher(f, 0, mask, &m0), 0);
	CHECK_EQ(matcher(f, 1, mask, &m1), 0);
	CHECK_EQ(matcher(f, 2, mask, &m2), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 17);
	CHECK_EQ(flow(f, m0, val, SWDEV_FLOW_DEST_NONE, 0, 1, b_h, 5, &h), 0);
	CHECK_EQ(flow(f, m1, val, SWDEV_FLOW_DEST_DEVX, c.tir_h, 1, b_h, 6, &h), 0);
	CHECK_EQ(flow(f, m2, val, SWDEV_FLOW_DEST_DROP, 0, 1, b_h, 7, &h), 0);
	/* TCP: counted on 1 then dropped */
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 6);
	CHECK_EQ(flow(f, m0, val, SWDEV_FLOW_DEST_DROP, 0, 1, b_h, 1, &drop_h), 0);
	for (i = 0; i < 3; i++) {
		pkt_udp(&p, 1, 2, 3, 4);
		p.len = 60 + i;
		CHECK_EQ(steer_to(eng, &p), c.tirn);
	}
	pkt_tcp(&p, 2, 4);
	CHECK_EQ(steer_to(eng, &p), UINT32_MAX);
	CHECK_EQ(cnt_read(f, b_h, b + 5, &bytes), 3);
	CHECK_EQ(bytes, 60 + 61 + 62);
	CHECK_EQ(cnt_read(f, b_h, b + 6, &bytes), 3);
	CHECK_EQ(bytes, 183);
	CHECK_EQ(cnt_read(f, b_h, b + 7, NULL), 0);
	CHECK_EQ(cnt_read(f, b_h, b + 1, &bytes), 1);
	CHECK_EQ(bytes, PKT_LEN);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 0);
	/* without the TCP drop rule TCP misses (nothing else matches 6) */
	CHECK_EQ(swdev_file_steer_destroy(f, drop_h, SWDEV_KIND_FLOW), 0);
	CHECK_EQ(steer_to(eng, &p), 0);
	CHECK_EQ(cnt_read(f, b_h, b + 1, NULL), 1);
	swdev_engine_destroy(eng);
}

/* Root rule -> tables: group order, chains, miss, drop, entry counters. */
static void
test_classify_tables(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	uint8_t mport[SET_LEN] = {0}, mproto[SET_LEN] = {0}, mdip[SET_LEN] = {0};
	uint8_t val[SET_LEN] = {0}, out[16];
	uint32_t tir_h[4], tirn[4], t1_h, t1, t2_h, t2, t3_h, t3, tm_h, tm, tl_h, tl;
	uint32_t ga, gb, g2, g3, gl, m, rl, b_h, b, e_h, h;
	struct fte_spec s;
	struct swdev_pkt p;
	struct t_chain c;
	unsigned int i;

	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(tir_create(f, &c, &tir_h[i], &tirn[i]), 0);
	CHECK_EQ(bulk(f, 2, &b_h, &b), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mport, udp_dport, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, mproto, ip_protocol, 0xff);
	set_ip(mdip, 1, 0xffff0000u);
	/* level 3: catch-all -> TIR 3; level 2 misses to it */
	CHECK_EQ(ft_create(f, 3, 2, 0, &t3_h, &t3, out), 0);
	CHECK_EQ(fg_create(f, t3, 0, 0, NULL, NULL, &g3, out), 0);
	s = to_tir(tirn[3]);
	CHECK_EQ(fte_create(f, t3, g3, 0, val, &s, NULL, out), 0);
	CHECK_EQ(ft_create(f, 2, 4, t3, &t2_h, &t2, out), 0);
	CHECK_EQ(fg_create(f, t2, 0, 15, mdip, NULL, &g2, out), 0);
	/* level 1: group B [10..19] on the protocol created before group A
	 * [0..9] on the port: A is evaluated first (lower start index) */
	CHECK_EQ(ft_create(f, 1, 5, 0, &t1_h, &t1, out), 0);
	CHECK_EQ(fg_create(f, t1, 10, 19, mproto, NULL, &gb, out), 0);
	CHECK_EQ(fg_create(f, t1, 0, 9, mport, NULL, &ga, out), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 17);
	s = to_tir(tirn[1]);
	CHECK_EQ(fte_create(f, t1, gb, 12, val, &s, NULL, out), 0);
	memset(val, 0, sizeof(val));
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 53);
	s = to_tir(tirn[0]);
	s.action |= ACT_COUNT;
	s.ncnt = 1;
	s.cnt[0] = b;
	CHECK_EQ(fte_create(f, t1, ga, 9, val, &s, &e_h, out), 0);
	/* port 4789 -> table 2 (count on b+1 and b+2) */
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 4789);
	s = to_table(t2);
	s.action |= ACT_COUNT;
	s.ncnt = 2;
	s.cnt[0] = b + 1;
	s.cnt[1] = b + 2;
	CHECK_EQ(fte_create(f, t1, ga, 0, val, &s, NULL, out), 0);
	/* TCP dropped in table 1 */
	memset(val, 0, sizeof(val));
	MDEVX_SET(fte_match_set_lyr_2_4, val, ip_protocol, 6);
	memset(&s, 0, sizeof(s));
	s.action = ACT_DROP | ACT_COUNT;
	s.ncnt = 1;
	s.cnt[0] = b + 3;
	CHECK_EQ(fte_create(f, t1, gb, 19, val, &s, NULL, out), 0);
	/* table 2: 10.7/16 -> TIR 2, else miss to table 3 */
	memset(val, 0, sizeof(val));
	set_ip(val, 1, IP4(10, 7, 0, 0));
	s = to_tir(tirn[2]);
	CHECK_EQ(fte_create(f, t2, g2, 5, val, &s, NULL, out), 0);
	/* a root rule on IPv4 (ethertype) -> table 1 */
	{
		uint8_t rm[SET_LEN] = {0}, rv[SET_LEN] = {0};

		MDEVX_SET(fte_match_set_lyr_2_4, rm, ethertype, 0xffff);
		MDEVX_SET(fte_match_set_lyr_2_4, rv, ethertype, 0x0800);
		CHECK_EQ(matcher(f, 10, rm, &m), 0);
		CHECK_EQ(flow(f, m, rv, SWDEV_FLOW_DEST_DEVX, t1_h, 0, 0, 0, &h), 0);
	}
	/* group order: UDP port 53 is in both groups' reach: A wins */
	pkt_udp(&p, 1, IP4(10, 7, 1, 1), 5, 53);
	CHECK_EQ(steer_to(eng, &p), tirn[0]);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 1);
	/* UDP another port: group B */
	pkt_udp(&p, 1, IP4(10, 7, 1, 1), 5, 54);
	CHECK_EQ(steer_to(eng, &p), tirn[1]);
	/* chain level 1 -> 2: 10.7/16 -> TIR 2; counted twice on the way */
	pkt_udp(&p, 1, IP4(10, 7, 200, 1), 5, 4789);
	CHECK_EQ(steer_to(eng, &p), tirn[2]);
	/* level 2 misses -> miss table (level 3) -> TIR 3 */
	pkt_udp(&p, 1, IP4(10, 8, 0, 1), 5, 4789);
	CHECK_EQ(steer_to(eng, &p), tirn[3]);
	CHECK_EQ(cnt_read(f, b_h, b + 1, NULL), 2);
	CHECK_EQ(cnt_read(f, b_h, b + 2, NULL), 2);
	/* TCP: drop, counted */
	pkt_tcp(&p, 1, 80);
	CHECK_EQ(steer_to(eng, &p), UINT32_MAX);
	CHECK_EQ(cnt_read(f, b_h, b + 3, NULL), 1);
	/* ICMP: no entry in table 1, miss action default: miss */
	pkt_udp(&p, 1, 2, 0, 0);
	MDEVX_SET(fte_match_set_lyr_2_4, p.outer, ip_protocol, 1);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* not IPv4: no root rule */
	MDEVX_SET(fte_match_set_lyr_2_4, p.outer, ethertype, 0x86dd);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* deleting the group A entry: port 53 now reaches group B */
	CHECK_EQ(swdev_devx_obj_destroy(f, e_h), 0);
	pkt_udp(&p, 1, IP4(10, 7, 1, 1), 5, 53);
	CHECK_EQ(steer_to(eng, &p), tirn[1]);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 1);
	/* a table without groups, and one whose miss table is empty: misses */
	CHECK_EQ(ft_create(f, 5, 0, 0, &tl_h, &tl, out), 0);
	CHECK_EQ(ft_create(f, 4, 0, tl, &tm_h, &tm, out), 0);
	CHECK_EQ(fg_create(f, tl, 0, 0, mport, NULL, &gl, out), 0);
	{
		uint8_t rm[SET_LEN] = {0}, rv[SET_LEN] = {0};

		MDEVX_SET(fte_match_set_lyr_2_4, rm, udp_sport, 0xffff);
		MDEVX_SET(fte_match_set_lyr_2_4, rv, udp_sport, 777);
		CHECK_EQ(matcher(f, 1, rm, &m), 0);
		CHECK_EQ(flow(f, m, rv, SWDEV_FLOW_DEST_DEVX, tm_h, 0, 0, 0, &rl), 0);
	}
	pkt_udp(&p, 1, IP4(10, 7, 1, 1), 777, 53);
	CHECK_EQ(steer_to(eng, &p), 0);
	/* an entry in the last table: reached through the miss */
	memset(val, 0, sizeof(val));
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 53);
	memset(&s, 0, sizeof(s));
	s.action = ACT_DROP;
	CHECK_EQ(fte_create(f, tl, gl, 0, val, &s, &h, out), 0);
	CHECK_EQ(steer_to(eng, &p), UINT32_MAX);
	/* references of the tables */
	CHECK_EQ(swdev_devx_obj_destroy(f, tm_h), EBUSY);	/* root rule */
	CHECK_EQ(swdev_devx_obj_destroy(f, tl_h), EBUSY);	/* miss table of tm */
	CHECK_EQ(swdev_devx_obj_destroy(f, t2_h), EBUSY);	/* entry destination */
	CHECK_EQ(swdev_devx_obj_destroy(f, t3_h), EBUSY);	/* miss table of t2 */
	CHECK_EQ(swdev_file_steer_destroy(f, rl, SWDEV_KIND_FLOW), 0);
	CHECK_EQ(steer_to(eng, &p), tirn[1]);	/* root rule 10, group B */
	CHECK_EQ(swdev_devx_obj_destroy(f, tm_h), 0);
	/* close with everything in place: counts back to zero */
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MAX), 0);
	CHECK_EQ(steer_to(eng, &p), 0);
	swdev_engine_destroy(eng);
}

/* References across the whole graph; file close in any creation order. */
static void
test_dependencies_close(void)
{
	struct swdev_engine *eng = new_engine(NULL);
	struct swdev_file *f = swdev_file_open(eng, T_DEV);
	struct swdev_file *g = swdev_file_open(eng, T_DEV);
	uint8_t mask[SET_LEN] = {0}, val[SET_LEN] = {0}, zero[SET_LEN] = {0}, out[16];
	uint32_t t[6], th[6], grp[6], b_h, b, m, h, gm, gfl;
	struct fte_spec s;
	struct swdev_pkt p;
	struct t_chain c, gc;
	unsigned int i;

	CHECK_EQ(t_chain_make(f, &c, 2), 0);
	CHECK_EQ(t_chain_make(g, &gc, 1), 0);
	CHECK_EQ(bulk(f, 4, &b_h, &b), 0);
	MDEVX_SET(fte_match_set_lyr_2_4, mask, udp_dport, 0xffff);
	/* levels created deepest first, then shallow, then middle: each table
	 * misses to the next deeper one and forwards port i to it */
	CHECK_EQ(ft_create(f, 6, 3, 0, &th[5], &t[5], out), 0);
	CHECK_EQ(ft_create(f, 5, 3, t[5], &th[4], &t[4], out), 0);
	CHECK_EQ(ft_create(f, 1, 3, 0, &th[0], &t[0], out), 0);
	CHECK_EQ(ft_create(f, 4, 3, t[5], &th[3], &t[3], out), 0);
	CHECK_EQ(ft_create(f, 2, 3, t[4], &th[1], &t[1], out), 0);
	CHECK_EQ(ft_create(f, 3, 3, t[3], &th[2], &t[2], out), 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(fg_create(f, t[i], 0, 7, mask, NULL, &grp[i], out), 0);
	for (i = 0; i < 5; i++) {
		MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 100 + i);
		s = to_table(t[i + 1]);
		s.action |= ACT_COUNT;
		s.ncnt = 1;
		s.cnt[0] = b + i;
		CHECK_EQ(fte_create(f, t[i], grp[i], i, val, &s, NULL, out), 0);
	}
	MDEVX_SET(fte_match_set_lyr_2_4, val, udp_dport, 100);
	s = to_tir(c.tirn);
	CHECK_EQ(fte_create(f, t[5], grp[5], 7, val, &s, NULL, out), 0);
	CHECK_EQ(matcher(f, 0, zero, &m), 0);
	CHECK_EQ(swdev_file_flow_create(f, m, val, 0, NULL, &h), EINVAL);
	{
		struct swdev_flow_attr a;

		memset(&a, 0, sizeof(a));
		a.dest = SWDEV_FLOW_DEST_DEVX;
		a.dest_handle = th[0];
		a.has_counter = 1;
		a.counter_handle = b_h;
		a.counter_offset = 15;
		/* a matcher with an empty mask: every frame */
		CHECK_EQ(swdev_file_flow_create(f, m, val, SET_LEN, &a, &h), 0);
	}
	/* port 100 walks 0 -> 1 (port 100 only in table 0) -> miss chain:
	 * table 1 has port 101, so 100 misses to 4, misses to 5 -> TIR */
	pkt_udp(&p, 1, 2, 3, 100);
	CHECK_EQ(steer_to(eng, &p), c.tirn);
	CHECK_EQ(cnt_read(f, b_h, b + 15, NULL), 1);
	CHECK_EQ(cnt_read(f, b_h, b, NULL), 1);
	CHECK_EQ(cnt_read(f, b_h, b + 1, NULL), 0);
	/* g's rule with a lower priority number on the same traffic */
	CHECK_EQ(matcher(g, 0, zero, &gm), 0);
	{
		struct swdev_flow_attr a;

		memset(&a, 0, sizeof(a));
		a.dest = SWDEV_FLOW_DEST_DEVX;
		a.dest_handle = gc.tir_h;
		CHECK_EQ(swdev_file_flow_create(g, gm, val, SET_LEN, &a, &gfl), 0);
	}
	CHECK_EQ(steer_to(eng, &p), c.tirn);	/* same priority: f's is older */
	/* every object in use is busy */
	for (i = 0; i < 6; i++)
		CHECK_EQ(swdev_devx_obj_destroy(f, th[i]), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, b_h), EBUSY);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.tir_h), EBUSY);
	CHECK_EQ(swdev_file_steer_destroy(f, m, SWDEV_KIND_MATCHER), EBUSY);
	CHECK(count_of(eng, swdev_file_id(f), SWDEV_KIND_MAX) > 20);
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW_TABLE), 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW_GROUP), 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FTE), 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW), 1);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MATCHER), 1);
	/* f's objects are gone from classification: g's rule now */
	CHECK_EQ(steer_to(eng, &p), gc.tirn);
	swdev_file_close(g);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MAX), 0);
	CHECK_EQ(steer_to(eng, &p), 0);
	swdev_engine_destroy(eng);
}

/* ---- scale: 64k rules in one matcher, 64k entries in one group ---- */

#define SCALE_N 65536u

static uint32_t
scale_ip(uint32_t i)
{
	return IP4(10, 0, 0, 0) + i * 7919u % SCALE_N;	/* a permutation of 0..64k */
}

static void
test_scale(void)
{
	struct swdev_engine *eng;
	struct swdev_limits lim;
	struct swdev_file *f;
	uint8_t mask[SET_LEN] = {0}, val[SET_LEN] = {0}, out[16];
	static uint8_t in[FTE_BUF];
	static uint8_t q[16 + 16 * SCALE_N];
	uint32_t m, b_h, b, b2_h, b2, t_h, t, grp, h, i, j, hits = 0, bad = 0;
	struct swdev_obj *mo, *go;
	struct fte_spec s;
	struct swdev_pkt p;
	struct t_chain c;
	uint64_t total;
	size_t len;

	swdev_limits_default(&lim);
	lim.max_handles_per_file = 1u << 18;
	eng = new_engine(&lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_chain_make(f, &c, 1), 0);
	CHECK_EQ(bulk(f, 16, &b_h, &b), 0);
	CHECK_EQ(bulk(f, 16, &b2_h, &b2), 0);
	/* 64k root rules on source IPs, each counting on its own counter */
	set_ip(mask, 0, UINT32_MAX);
	CHECK_EQ(matcher(f, 0, mask, &m), 0);
	for (i = 0; i < SCALE_N; i++) {
		set_ip(val, 0, scale_ip(i));
		if (flow(f, m, val, SWDEV_FLOW_DEST_NONE, 0, 1, b_h, i, &h) != 0)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FLOW), SCALE_N);
	/* 64k entries in one group on destination IPs -> TIR, own counter */
	CHECK_EQ(ft_create(f, 1, 16, 0, &t_h, &t, out), 0);
	memset(mask, 0, sizeof(mask));
	set_ip(mask, 1, UINT32_MAX);
	CHECK_EQ(fg_create(f, t, 0, SCALE_N - 1, mask, NULL, &grp, out), 0);
	memset(val, 0, sizeof(val));
	for (i = 0; i < SCALE_N; i++) {
		set_ip(val, 1, scale_ip(i));
		s = to_tir(c.tirn);
		s.action |= ACT_COUNT;
		s.ncnt = 1;
		s.cnt[0] = b2 + i;
		len = build_fte(in, t, grp, SCALE_N - 1 - i, val, &s);
		if (fte_send(f, in, len, NULL, out) != 0)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_FTE), SCALE_N);
	{
		uint8_t rm[SET_LEN] = {0}, rv[SET_LEN] = {0};

		MDEVX_SET(fte_match_set_lyr_2_4, rm, ip_version, 0xf);
		MDEVX_SET(fte_match_set_lyr_2_4, rv, ip_version, 4);
		CHECK_EQ(matcher(f, 1, rm, &h), 0);
		CHECK_EQ(flow(f, h, rv, SWDEV_FLOW_DEST_DEVX, t_h, 0, 0, 0, &h), 0);
	}
	/* the hashes stay short: lookups do not scan the rules */
	mo = swdev_idmap_get(&f->handles, m);
	go = swdev_obj_by_id(dev_of(eng), SWDEV_KIND_FLOW_GROUP, grp);
	CHECK(mo != NULL && go != NULL);
	if (mo != NULL && go != NULL) {
		CHECK_EQ(mo->u.mt.vals.n, SCALE_N);
		CHECK(mo->u.mt.vals.nb >= SCALE_N / 2);
		CHECK(longest_chain(&mo->u.mt.vals) <= 16);
		CHECK_EQ(go->u.fg.vals.n, SCALE_N);
		CHECK(go->u.fg.vals.nb >= SCALE_N / 2);
		CHECK(longest_chain(&go->u.fg.vals) <= 16);
	}
	/* sampled packets: source rule k and destination entry j */
	for (i = 0; i < 4096; i++) {
		uint32_t k = (i * 40503u + 17) % SCALE_N;

		j = (i * 2654435761u) % SCALE_N;
		pkt_udp(&p, scale_ip(k), scale_ip(j), 1, 2);
		p.len = 64;
		if (steer_to(eng, &p) == c.tirn)
			hits++;
	}
	CHECK_EQ(hits, 4096);
	/* every counter read back in one range query per bulk: exactly the
	 * sampled ones, once per sample */
	CHECK_EQ(t_query_counter(f, b_h, b, SCALE_N, 0, q, sizeof(q)), 0);
	for (i = 0, total = 0, bad = 0; i < 4096; i++) {
		uint32_t k = (i * 40503u + 17) % SCALE_N;

		if (MDEVX_GET64(traffic_counter, q + 16 + 16 * k, packets) != 1)
			bad++;
	}
	for (i = 0; i < SCALE_N; i++)
		total += MDEVX_GET64(traffic_counter, q + 16 + 16 * i, packets);
	CHECK_EQ(bad, 0);
	CHECK_EQ(total, 4096);
	CHECK_EQ(t_query_counter(f, b2_h, b2, SCALE_N, 0, q, sizeof(q)), 0);
	for (i = 0, total = 0, bad = 0; i < 4096; i++) {
		j = (i * 2654435761u) % SCALE_N;
		if (MDEVX_GET64(traffic_counter, q + 16 + 16 * j, packets) == 0)
			bad++;
	}
	for (i = 0; i < SCALE_N; i++)
		total += MDEVX_GET64(traffic_counter, q + 16 + 16 * i, packets);
	CHECK_EQ(bad, 0);
	CHECK_EQ(total, 4096);
	/* a source outside the rules: counted by no root rule, still delivered */
	pkt_udp(&p, IP4(11, 0, 0, 0), scale_ip(5), 1, 2);
	CHECK_EQ(steer_to(eng, &p), c.tirn);
	pkt_udp(&p, IP4(11, 0, 0, 0), IP4(10, 1, 0, 0), 1, 2);
	CHECK_EQ(steer_to(eng, &p), 0);
	swdev_file_close(f);
	CHECK_EQ(count_of(eng, 0, SWDEV_KIND_MAX), 0);
	swdev_engine_destroy(eng);
}

int
main(void)
{
	test_caps();
	test_flow_table();
	test_flow_group();
	test_fte();
	test_root_rules_api();
	test_classify_masks();
	test_classify_priorities();
	test_classify_count();
	test_classify_tables();
	test_dependencies_close();
	test_scale();
	return check_summary();
}

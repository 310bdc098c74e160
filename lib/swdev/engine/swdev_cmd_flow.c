/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: DEVX NIC receive flow tables (PRM "Flow
 * Table" commands): CREATE/QUERY_FLOW_TABLE, CREATE_FLOW_GROUP,
 * SET_FLOW_TABLE_ENTRY (op_mod 0), QUERY_FLOW_TABLE_ENTRY; the destroy
 * commands DESTROY_FLOW_TABLE, DESTROY_FLOW_GROUP and
 * DELETE_FLOW_TABLE_ENTRY are the prebuilt ones.
 *
 * A table keeps its groups sorted by start index and its entries in a hash
 * by flow index. A group keeps its outer_headers mask and its entries in a
 * hash by masked value, so classification (swdev_steer.c) costs one lookup
 * per group whatever the number of entries. Only the outer L2-L4 set is
 * matched. References: group -> table; entry -> table, group, each
 * destination (TIR or deeper table) and the bulk of each counter;
 * table -> its miss table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define SET_FTE_BYTES MDEVX_ST_SZ_BYTES(set_fte_in)
#define QUERY_FTE_BYTES MDEVX_ST_SZ_BYTES(query_fte_out)
#define LIST_ENTRY_BYTES MDEVX_ST_SZ_BYTES(dest_format)
#define FTE_ACTIONS_KNOWN (MDEVX_FLOW_CONTEXT_ACTION_DROP | \
			   MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST | \
			   MDEVX_FLOW_CONTEXT_ACTION_COUNT)

/* ---- match masks ---- */

bool
swdev_match_mask_supported(const uint8_t *mask)
{
	uint8_t ok[SWDEV_MATCH_SET_LEN] = {0};
	size_t i;

	/* every outer field the frame parser (swdev_rx.c) fills */
	MDEVX_SET(fte_match_set_lyr_2_4, ok, smac_47_16, UINT32_MAX);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, smac_15_0, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ethertype, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, dmac_47_16, UINT32_MAX);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, dmac_15_0, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, first_prio, 0x7);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, first_cfi, 0x1);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, first_vid, 0xfff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ip_protocol, 0xff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ip_dscp, 0x3f);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ip_ecn, 0x3);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, cvlan_tag, 0x1);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, svlan_tag, 0x1);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, frag, 0x1);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ip_version, 0xf);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, tcp_flags, 0x1ff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, tcp_sport, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, tcp_dport, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, ttl_hoplimit, 0xff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, udp_sport, 0xffff);
	MDEVX_SET(fte_match_set_lyr_2_4, ok, udp_dport, 0xffff);
	memset(MDEVX_ADDR_OF(fte_match_set_lyr_2_4, ok, src_ipv4_src_ipv6), 0xff, 16);
	memset(MDEVX_ADDR_OF(fte_match_set_lyr_2_4, ok, dst_ipv4_dst_ipv6), 0xff, 16);
	for (i = 0; i < SWDEV_MATCH_SET_LEN; i++)
		if (mask[i] & ~ok[i])
			return false;
	return true;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* ---- flow tables ---- */

int
swdev_cmd_create_flow_table(struct swdev_cmd *cmd)
{
	const uint8_t *in = cmd->in;
	const uint8_t *ftc = MDEVX_ADDR_OF(create_flow_table_in, in, flow_table_context);
	const struct swdev_limits *lim = &cmd->dev->lim;
	struct swdev_obj *obj, *miss = NULL;
	uint32_t level, log_size, miss_action, id;
	uint64_t icm;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(create_flow_table_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_flow_table_out)))
		return cmd->status;
	if (MDEVX_GET(create_flow_table_in, in, table_type) != MDEVX_FLOW_TABLE_TYPE_NIC_RX)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_TYPE);
	if (MDEVX_GET(create_flow_table_in, in, other_vport))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FT_OTHER_VPORT);
	if (MDEVX_GET(flow_table_context, ftc, reformat_en) ||
	    MDEVX_GET(flow_table_context, ftc, decap_en) ||
	    MDEVX_GET(flow_table_context, ftc, sw_owner) ||
	    MDEVX_GET(flow_table_context, ftc, termination_table))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_FLAGS);
	level = MDEVX_GET(flow_table_context, ftc, level);
	log_size = MDEVX_GET(flow_table_context, ftc, log_size);
	miss_action = MDEVX_GET(flow_table_context, ftc, table_miss_action);
	if (level == 0 || level > lim->max_ft_level)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_LEVEL);
	if (log_size > lim->log_max_ft_size)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FT_BAD_LOG_SIZE);
	if (miss_action > MDEVX_FLOW_TABLE_MISS_FWD)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FT_BAD_MISS_ACTION);
	if (miss_action == MDEVX_FLOW_TABLE_MISS_FWD) {
		miss = swdev_obj_ref_lookup(cmd, SWDEV_KIND_FLOW_TABLE,
					    MDEVX_GET(flow_table_context, ftc, table_miss_id),
					    SWDEV_SYND_FT_BAD_MISS_TABLE,
					    SWDEV_SYND_FT_MISS_OTHER_UID);
		if (miss == NULL)
			return cmd->status;
		if (miss->u.ft.level <= level)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_FT_MISS_LEVEL);
	}
	rc = swdev_obj_new_with_id(cmd, SWDEV_KIND_FLOW_TABLE, SWDEV_SYND_FT_LIMIT, &obj, &id);
	if (rc != 0)
		return rc;
	if (swdev_htab_init(&obj->u.ft.ftes) != 0) {
		swdev_obj_release(cmd->dev, obj);
		return -ENOMEM;
	}
	MDEVX_SET(flow_table_context, obj->u.ft.ftc, table_miss_action, miss_action);
	MDEVX_SET(flow_table_context, obj->u.ft.ftc, level, level);
	MDEVX_SET(flow_table_context, obj->u.ft.ftc, log_size, log_size);
	if (miss != NULL)
		MDEVX_SET(flow_table_context, obj->u.ft.ftc, table_miss_id, miss->id);
	obj->u.ft.level = (uint8_t)level;
	obj->u.ft.log_size = (uint8_t)log_size;
	obj->u.ft.miss_action = (uint8_t)miss_action;
	obj->u.ft.miss = miss;
	swdev_obj_get(miss);
	icm = SWDEV_FT_ICM_BASE | ((uint64_t)cmd->dev->index << 32) | ((uint64_t)id << 8);
	obj->u.ft.icm_addr = icm;
	cmd->obj = obj;
	MDEVX_SET(create_flow_table_out, cmd->out, table_id, id);
	MDEVX_SET(create_flow_table_out, cmd->out, icm_address_63_40, icm >> 40);
	MDEVX_SET(create_flow_table_out, cmd->out, icm_address_39_32, (icm >> 32) & 0xff);
	MDEVX_SET(create_flow_table_out, cmd->out, icm_address_31_0, icm & 0xffffffffu);
	return 0;
}

int
swdev_cmd_query_flow_table(struct swdev_cmd *cmd)
{
	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(query_flow_table_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(query_flow_table_out)))
		return cmd->status;
	if (MDEVX_GET(query_flow_table_in, cmd->in, table_type) != MDEVX_FLOW_TABLE_TYPE_NIC_RX)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FT_BAD_TYPE);
	memcpy(MDEVX_ADDR_OF(query_flow_table_out, cmd->out, flow_table_context),
	       cmd->obj->u.ft.ftc, sizeof(cmd->obj->u.ft.ftc));
	return 0;
}

/* ---- flow groups ---- */

/*
 * Check a 512-byte fte_match_param mask with its match_criteria_enable:
 * 0, or the failing status (syndromes of the flow group family).
 */
static int
check_group_mask(struct swdev_cmd *cmd, uint32_t criteria, const uint8_t *param)
{
	const uint8_t *outer = param + MDEVX_BYTE_OFF(fte_match_param, outer_headers);

	if (criteria & ~(uint32_t)MDEVX_MATCH_CRITERIA_OUTER)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FG_BAD_CRITERIA);
	if (!all_zero(param + SWDEV_MATCH_SET_LEN,
		      MDEVX_ST_SZ_BYTES(fte_match_param) - SWDEV_MATCH_SET_LEN) ||
	    (!(criteria & MDEVX_MATCH_CRITERIA_OUTER) && !all_zero(outer, SWDEV_MATCH_SET_LEN)))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_MASK);
	if (!swdev_match_mask_supported(outer))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FG_MASK_UNSUPPORTED);
	return 0;
}

int
swdev_cmd_create_flow_group(struct swdev_cmd *cmd)
{
	const uint8_t *in = cmd->in;
	const uint8_t *param = MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria);
	struct swdev_obj *table, *obj, *g, *prev = NULL;
	uint32_t start, end, criteria, id;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(create_flow_group_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_flow_group_out)))
		return cmd->status;
	if (MDEVX_GET(create_flow_group_in, in, table_type) != MDEVX_FLOW_TABLE_TYPE_NIC_RX)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_TYPE);
	if (MDEVX_GET(create_flow_group_in, in, other_vport))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FG_OTHER_VPORT);
	if (MDEVX_GET(create_flow_group_in, in, group_type) != 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FG_BAD_GROUP_TYPE);
	table = swdev_obj_ref_lookup(cmd, SWDEV_KIND_FLOW_TABLE,
				     MDEVX_GET(create_flow_group_in, in, table_id),
				     SWDEV_SYND_FG_BAD_TABLE, SWDEV_SYND_FG_TABLE_OTHER_UID);
	if (table == NULL)
		return cmd->status;
	start = MDEVX_GET(create_flow_group_in, in, start_flow_index);
	end = MDEVX_GET(create_flow_group_in, in, end_flow_index);
	if (start > end || (uint64_t)end >= (1ull << table->u.ft.log_size))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_BAD_RANGE);
	criteria = MDEVX_GET(create_flow_group_in, in, match_criteria_enable);
	rc = check_group_mask(cmd, criteria, param);
	if (rc != 0)
		return rc;
	/* the groups are sorted by start index: find the place, check both sides */
	for (g = table->u.ft.groups; g != NULL && g->u.fg.start <= start; g = g->u.fg.next)
		prev = g;
	if ((g != NULL && g->u.fg.start <= end) || (prev != NULL && prev->u.fg.end >= start))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FG_OVERLAP);
	rc = swdev_obj_new_with_id(cmd, SWDEV_KIND_FLOW_GROUP, SWDEV_SYND_FG_LIMIT, &obj, &id);
	if (rc != 0)
		return rc;
	if (swdev_htab_init(&obj->u.fg.vals) != 0) {
		swdev_obj_release(cmd->dev, obj);
		return -ENOMEM;
	}
	obj->u.fg.table = table;
	obj->u.fg.start = start;
	obj->u.fg.end = end;
	obj->u.fg.criteria = (uint8_t)criteria;
	memcpy(obj->u.fg.mask, param + MDEVX_BYTE_OFF(fte_match_param, outer_headers),
	       SWDEV_MATCH_SET_LEN);
	if (prev == NULL) {
		obj->u.fg.next = table->u.ft.groups;
		table->u.ft.groups = obj;
	} else {
		obj->u.fg.next = prev->u.fg.next;
		prev->u.fg.next = obj;
	}
	swdev_obj_get(table);
	cmd->obj = obj;
	MDEVX_SET(create_flow_group_out, cmd->out, group_id, id);
	return 0;
}

/* ---- flow table entries ---- */

static struct swdev_obj *
fte_at(const struct swdev_obj *table, uint32_t idx)
{
	uint64_t h = swdev_hash_u32(idx);
	const struct swdev_hnode *n;

	for (n = swdev_htab_chain(&table->u.ft.ftes, h); n != NULL; n = n->next)
		if (n->hash == h && n->obj->id == idx)
			return n->obj;
	return NULL;
}

/* The entry of @p group whose value is @p key (already masked), or NULL. */
static struct swdev_obj *
fte_with_value(const struct swdev_obj *group, const uint8_t *key, uint64_t h)
{
	const struct swdev_hnode *n;

	for (n = swdev_htab_chain(&group->u.fg.vals, h); n != NULL; n = n->next)
		if (n->hash == h && memcmp(n->obj->u.fte.value, key, SWDEV_MATCH_SET_LEN) == 0)
			return n->obj;
	return NULL;
}

struct swdev_obj *
swdev_flow_table_match(const struct swdev_obj *table, const uint8_t *outer)
{
	uint8_t key[SWDEV_MATCH_SET_LEN];
	const struct swdev_obj *g;
	struct swdev_obj *fte;

	for (g = table->u.ft.groups; g != NULL; g = g->u.fg.next) {
		if (g->u.fg.vals.n == 0)
			continue;
		swdev_set_and(key, outer, g->u.fg.mask);
		fte = fte_with_value(g, key, swdev_hash_set(key));
		if (fte != NULL)
			return fte;
	}
	return NULL;
}

/* Resolve the destination list into @p dests (no references taken yet). */
static int
resolve_dests(struct swdev_cmd *cmd, const struct swdev_obj *table, const uint8_t *list,
	      size_t stride, uint32_t n, struct swdev_fte_dest *dests)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const uint8_t *e = list + (size_t)i * stride;
		uint32_t type = MDEVX_GET(dest_format, e, destination_type);
		uint32_t id = MDEVX_GET(dest_format, e, destination_id);
		struct swdev_obj *o;

		switch (type) {
		case MDEVX_FLOW_DEST_TYPE_TIR:
			o = swdev_obj_ref_lookup(cmd, SWDEV_KIND_TIR, id, SWDEV_SYND_FTE_BAD_TIR,
						 SWDEV_SYND_FTE_TIR_OTHER_UID);
			if (o == NULL)
				return cmd->status;
			break;
		case MDEVX_FLOW_DEST_TYPE_FLOW_TABLE:
			o = swdev_obj_ref_lookup(cmd, SWDEV_KIND_FLOW_TABLE, id,
						 SWDEV_SYND_FTE_BAD_DEST_TABLE,
						 SWDEV_SYND_FTE_DEST_TABLE_OTHER_UID);
			if (o == NULL)
				return cmd->status;
			if (o->u.ft.level <= table->u.ft.level)
				return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
						      SWDEV_SYND_FTE_DEST_LEVEL);
			break;
		default:
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_FTE_BAD_DEST_TYPE);
		}
		dests[i].type = (uint8_t)type;
		dests[i].obj = o;
	}
	return 0;
}

/* Resolve the counter list into @p cnts (no references taken yet). */
static int
resolve_counters(struct swdev_cmd *cmd, const uint8_t *list, size_t stride, uint32_t n,
		 struct swdev_fte_cnt *cnts)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t id = MDEVX_GET(flow_counter_list, list + (size_t)i * stride,
					flow_counter_id);
		struct swdev_obj *bulk = swdev_counter_bulk_of(&cmd->dev->cnt, id);

		if (bulk == NULL)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR,
					      SWDEV_SYND_FTE_BAD_COUNTER);
		if (bulk->uid != cmd->uid)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR,
					      SWDEV_SYND_FTE_COUNTER_OTHER_UID);
		cnts[i].id = id;
		cnts[i].bulk = bulk;
	}
	return 0;
}

/* Checks of SET_FLOW_TABLE_ENTRY up to the lists: 0 or a status. */
static int
check_fte_head(struct swdev_cmd *cmd, struct swdev_obj **tablep, struct swdev_obj **groupp)
{
	const uint8_t *in = cmd->in;
	struct swdev_obj *table, *group;
	uint32_t idx;

	if (MDEVX_GET(set_fte_in, in, table_type) != MDEVX_FLOW_TABLE_TYPE_NIC_RX)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_TYPE);
	if (MDEVX_GET(set_fte_in, in, other_vport))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_OTHER_VPORT);
	if (MDEVX_GET(set_fte_in, in, ignore_flow_level))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_IGNORE_LEVEL);
	table = swdev_obj_ref_lookup(cmd, SWDEV_KIND_FLOW_TABLE,
				     MDEVX_GET(set_fte_in, in, table_id),
				     SWDEV_SYND_FTE_BAD_TABLE, SWDEV_SYND_FTE_TABLE_OTHER_UID);
	if (table == NULL)
		return cmd->status;
	group = swdev_obj_ref_lookup(cmd, SWDEV_KIND_FLOW_GROUP,
				     MDEVX_GET(set_fte_in, in, flow_context.group_id),
				     SWDEV_SYND_FTE_BAD_GROUP, SWDEV_SYND_FTE_GROUP_OTHER_UID);
	if (group == NULL)
		return cmd->status;
	if (group->u.fg.table != table)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_BAD_GROUP);
	idx = MDEVX_GET(set_fte_in, in, flow_index);
	if (idx < group->u.fg.start || idx > group->u.fg.end)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_INDEX);
	if (fte_at(table, idx) != NULL)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_INDEX_USED);
	*tablep = table;
	*groupp = group;
	return 0;
}

/* Action bits and list sizes: 0 or a status. */
static int
check_fte_actions(struct swdev_cmd *cmd, uint32_t action, uint32_t ndest, uint32_t ncnt)
{
	const struct swdev_limits *lim = &cmd->dev->lim;
	bool fwd = action & MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST;
	bool drop = action & MDEVX_FLOW_CONTEXT_ACTION_DROP;
	bool count = action & MDEVX_FLOW_CONTEXT_ACTION_COUNT;

	if (action & ~(uint32_t)FTE_ACTIONS_KNOWN)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_BAD_ACTION);
	if (fwd && drop)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_DROP_AND_FWD);
	if (!fwd && !drop)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_NO_FWD);
	if (fwd ? ndest == 0 || ndest > (1u << lim->log_max_destination) : ndest != 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_BAD_DEST_COUNT);
	if (count ? ncnt == 0 || ncnt > (1u << lim->log_max_flow_counter) : ncnt != 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_FTE_BAD_CNT_COUNT);
	return 0;
}

int
swdev_cmd_set_fte(struct swdev_cmd *cmd)
{
	const uint8_t *in = cmd->in;
	const uint8_t *fc = MDEVX_ADDR_OF(set_fte_in, in, flow_context);
	struct swdev_obj *table = NULL, *group = NULL, *obj;
	struct swdev_fte_dest *dests = NULL;
	struct swdev_fte_cnt *cnts = NULL;
	uint8_t key[SWDEV_MATCH_SET_LEN];
	uint32_t action, ndest, ncnt, i;
	uint64_t h;
	size_t stride;
	int rc;

	/* op_mod 1 reaches here through the modify entry point only */
	if (cmd->op_mod != MDEVX_SET_FTE_OP_MOD_CREATE)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OP_ERR, SWDEV_SYND_FTE_MODIFY);
	if (swdev_cmd_short_in(cmd, SET_FTE_BYTES) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(set_fte_out)))
		return cmd->status;
	rc = check_fte_head(cmd, &table, &group);
	if (rc != 0)
		return rc;
	action = MDEVX_GET(flow_context, fc, action);
	ndest = MDEVX_GET(flow_context, fc, destination_list_size);
	ncnt = MDEVX_GET(flow_context, fc, flow_counter_list_size);
	rc = check_fte_actions(cmd, action, ndest, ncnt);
	if (rc != 0)
		return rc;
	stride = MDEVX_GET(flow_context, fc, extended_destination) ? 2 * LIST_ENTRY_BYTES :
								       LIST_ENTRY_BYTES;
	if (cmd->inlen < SET_FTE_BYTES + stride * ((size_t)ndest + ncnt))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
				      SWDEV_SYND_FTE_INLEN_LIST);
	dests = calloc(ndest ? ndest : 1, sizeof(*dests));
	cnts = calloc(ncnt ? ncnt : 1, sizeof(*cnts));
	if (dests == NULL || cnts == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = resolve_dests(cmd, table, in + SET_FTE_BYTES, stride, ndest, dests);
	if (rc == 0)
		rc = resolve_counters(cmd, in + SET_FTE_BYTES + stride * ndest, stride, ncnt, cnts);
	if (rc != 0)
		goto fail;
	swdev_set_and(key, MDEVX_ADDR_OF(flow_context, fc, match_value.outer_headers),
		      group->u.fg.mask);
	h = swdev_hash_set(key);
	if (fte_with_value(group, key, h) != NULL) {
		rc = swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_DUP_VALUE);
		goto fail;
	}
	if ((uint64_t)cmd->dev->counts[SWDEV_KIND_FTE] >= (1ull << cmd->dev->lim.log_max_flow)) {
		rc = swdev_cmd_fail(cmd, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_FTE_LIMIT);
		goto fail;
	}
	obj = swdev_obj_new(cmd, SWDEV_KIND_FTE);
	if (obj == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	/* the entry's id is its flow index (rdma-core's object_id of an FTE) */
	obj->id = MDEVX_GET(set_fte_in, in, flow_index);
	obj->u.fte.table = table;
	obj->u.fte.group = group;
	memcpy(obj->u.fte.value, key, sizeof(key));
	obj->u.fte.action = (uint16_t)action;
	obj->u.fte.ext_dest = stride != LIST_ENTRY_BYTES;
	obj->u.fte.flow_tag = MDEVX_GET(flow_context, fc, flow_tag);
	obj->u.fte.ndest = ndest;
	obj->u.fte.ncnt = ncnt;
	obj->u.fte.dests = dests;
	obj->u.fte.cnts = cnts;
	obj->u.fte.idx_node.hash = swdev_hash_u32(obj->id);
	obj->u.fte.idx_node.obj = obj;
	obj->u.fte.val_node.hash = h;
	obj->u.fte.val_node.obj = obj;
	swdev_htab_insert(&table->u.ft.ftes, &obj->u.fte.idx_node);
	swdev_htab_insert(&group->u.fg.vals, &obj->u.fte.val_node);
	swdev_obj_get(table);
	swdev_obj_get(group);
	for (i = 0; i < ndest; i++)
		swdev_obj_get(dests[i].obj);
	for (i = 0; i < ncnt; i++)
		swdev_obj_get(cnts[i].bulk);
	cmd->obj = obj;
	return 0;
fail:
	free(dests);
	free(cnts);
	return rc;
}

int
swdev_cmd_query_fte(struct swdev_cmd *cmd)
{
	const struct swdev_obj *obj = cmd->obj;
	size_t stride = obj->u.fte.ext_dest ? 2 * LIST_ENTRY_BYTES : LIST_ENTRY_BYTES;
	uint8_t *fc, *e;
	uint32_t i;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(query_fte_in)) ||
	    swdev_cmd_short_out(cmd, QUERY_FTE_BYTES))
		return cmd->status;
	if (MDEVX_GET(query_fte_in, cmd->in, table_type) != MDEVX_FLOW_TABLE_TYPE_NIC_RX)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR, SWDEV_SYND_FTE_BAD_TYPE);
	if (cmd->outlen < QUERY_FTE_BYTES +
			  stride * ((size_t)obj->u.fte.ndest + obj->u.fte.ncnt))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR,
				      SWDEV_SYND_FTE_QUERY_OUTLEN);
	fc = MDEVX_ADDR_OF(query_fte_out, cmd->out, flow_context);
	MDEVX_SET(flow_context, fc, group_id, obj->u.fte.group->id);
	MDEVX_SET(flow_context, fc, flow_tag, obj->u.fte.flow_tag);
	MDEVX_SET(flow_context, fc, action, obj->u.fte.action);
	MDEVX_SET(flow_context, fc, extended_destination, obj->u.fte.ext_dest);
	MDEVX_SET(flow_context, fc, destination_list_size, obj->u.fte.ndest);
	MDEVX_SET(flow_context, fc, flow_counter_list_size, obj->u.fte.ncnt);
	memcpy(MDEVX_ADDR_OF(flow_context, fc, match_value.outer_headers), obj->u.fte.value,
	       SWDEV_MATCH_SET_LEN);
	e = cmd->out + QUERY_FTE_BYTES;
	for (i = 0; i < obj->u.fte.ndest; i++, e += stride) {
		MDEVX_SET(dest_format, e, destination_type, obj->u.fte.dests[i].type);
		MDEVX_SET(dest_format, e, destination_id, obj->u.fte.dests[i].obj->id);
	}
	for (i = 0; i < obj->u.fte.ncnt; i++, e += stride)
		MDEVX_SET(flow_counter_list, e, flow_counter_id, obj->u.fte.cnts[i].id);
	return 0;
}

/* ---- destroy commands and teardown ---- */

struct swdev_obj *
swdev_flow_destroy_lookup(struct swdev_cmd *cmd)
{
	struct swdev_dev *dev = cmd->dev;
	struct swdev_obj *t, *o = NULL;

	/* the three inputs carry table_id at the same place */
	t = swdev_obj_by_id(dev, SWDEV_KIND_FLOW_TABLE,
			    MDEVX_GET(destroy_flow_table_in, cmd->in, table_id));
	switch (cmd->opcode) {
	case MDEVX_CMD_OP_DESTROY_FLOW_TABLE:
		if (t == NULL)
			swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FT_NOT_FOUND);
		return t;
	case MDEVX_CMD_OP_DESTROY_FLOW_GROUP:
		o = swdev_obj_by_id(dev, SWDEV_KIND_FLOW_GROUP,
				    MDEVX_GET(destroy_flow_group_in, cmd->in, group_id));
		if (o == NULL || t == NULL || o->u.fg.table != t) {
			swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FG_NOT_FOUND);
			return NULL;
		}
		return o;
	case MDEVX_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
		if (t != NULL)
			o = fte_at(t, MDEVX_GET(delete_fte_in, cmd->in, flow_index));
		if (o == NULL)
			swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, SWDEV_SYND_FTE_NOT_FOUND);
		return o;
	default:
		swdev_cmd_bad_op(cmd);
		return NULL;
	}
}

void
swdev_flow_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj)
{
	struct swdev_obj *t, **pp;
	uint32_t i;

	(void)dev;
	switch (obj->kind) {
	case SWDEV_KIND_FTE:
		swdev_htab_remove(&obj->u.fte.table->u.ft.ftes, &obj->u.fte.idx_node);
		swdev_htab_remove(&obj->u.fte.group->u.fg.vals, &obj->u.fte.val_node);
		for (i = 0; i < obj->u.fte.ndest; i++)
			swdev_obj_put(obj->u.fte.dests[i].obj);
		for (i = 0; i < obj->u.fte.ncnt; i++)
			swdev_obj_put(obj->u.fte.cnts[i].bulk);
		swdev_obj_put(obj->u.fte.table);
		swdev_obj_put(obj->u.fte.group);
		free(obj->u.fte.dests);
		free(obj->u.fte.cnts);
		obj->u.fte.dests = NULL;
		obj->u.fte.cnts = NULL;
		obj->u.fte.ndest = obj->u.fte.ncnt = 0;
		break;
	case SWDEV_KIND_FLOW_GROUP:
		t = obj->u.fg.table;
		for (pp = &t->u.ft.groups; *pp != NULL; pp = &(*pp)->u.fg.next) {
			if (*pp == obj) {
				*pp = obj->u.fg.next;
				break;
			}
		}
		swdev_htab_fini(&obj->u.fg.vals);
		swdev_obj_put(t);
		break;
	case SWDEV_KIND_FLOW_TABLE:
		swdev_obj_put(obj->u.ft.miss);
		swdev_htab_fini(&obj->u.ft.ftes);
		break;
	default:
		break;
	}
}

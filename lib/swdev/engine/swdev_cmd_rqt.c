/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: CREATE_RQT, MODIFY_RQT, QUERY_RQT
 * (DESTROY_RQT is the prebuilt destroy command). The RQ list follows the
 * 240-byte context: entry i at byte 272 + 4i of the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define RQT_IN_BYTES MDEVX_ST_SZ_BYTES(create_rqt_in)
#define RQ_NUM_BYTES MDEVX_ST_SZ_BYTES(rq_num)

/*
 * Validate the list of @p n RQ numbers at @p list and resolve it into @p rqs
 * (no references taken yet). 0 or a PRM status.
 */
static int
resolve_list(struct swdev_cmd *cmd, const uint8_t *list, uint32_t n, struct swdev_obj **rqs)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t rqn = MDEVX_GET(rq_num, list + (size_t)i * RQ_NUM_BYTES, rq_num);

		rqs[i] = swdev_obj_ref_lookup(cmd, SWDEV_KIND_RQ, rqn, SWDEV_SYND_RQT_BAD_RQ,
					      SWDEV_SYND_RQT_RQ_OTHER_UID);
		if (rqs[i] == NULL)
			return cmd->status;
	}
	return 0;
}

/* Size checks shared by create and modify: 0 or a PRM status. */
static int
check_sizes(struct swdev_cmd *cmd, uint32_t max_size, uint32_t actual)
{
	if (actual == 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_ZERO_ACTUAL_SIZE);
	if (actual > max_size)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_ACTUAL_OVER_MAX);
	if (cmd->inlen < RQT_IN_BYTES + (size_t)actual * RQ_NUM_BYTES)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_INP_LEN_ERR,
				      SWDEV_SYND_RQT_INLEN_ENTRIES);
	return 0;
}

int
swdev_cmd_create_rqt(struct swdev_cmd *cmd)
{
	const uint8_t *in = cmd->in;
	struct swdev_obj *obj;
	uint32_t max_size, actual, i, id;
	int rc;

	if (swdev_cmd_short_in(cmd, RQT_IN_BYTES) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(create_rqt_out)))
		return cmd->status;
	max_size = MDEVX_GET(create_rqt_in, in, rqt_context.rqt_max_size);
	actual = MDEVX_GET(create_rqt_in, in, rqt_context.rqt_actual_size);
	if (MDEVX_GET(create_rqt_in, in, rqt_context.list_q_type) != MDEVX_RQTC_LIST_Q_TYPE_RQ)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_BAD_LIST_TYPE);
	if (max_size == 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_ZERO_MAX_SIZE);
	if (max_size > (1u << cmd->dev->lim.log_max_rqt_size))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_MAX_SIZE_TOO_BIG);
	rc = check_sizes(cmd, max_size, actual);
	if (rc != 0)
		return rc;
	obj = swdev_obj_new(cmd, SWDEV_KIND_RQT);
	if (obj == NULL)
		return -ENOMEM;
	obj->u.rqt.rqs = calloc(max_size, sizeof(*obj->u.rqt.rqs));
	if (obj->u.rqt.rqs == NULL) {
		free(obj);
		return -ENOMEM;
	}
	rc = resolve_list(cmd, MDEVX_ADDR_OF(create_rqt_in, in, rqt_context.rq_num), actual,
			  obj->u.rqt.rqs);
	if (rc == 0) {
		rc = swdev_obj_assign_id(cmd->dev, obj, &id);
		if (rc == ENOSPC)
			rc = swdev_cmd_fail(cmd, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_RQT_LIMIT);
		else if (rc == ENOMEM)
			rc = -ENOMEM;
	}
	if (rc != 0) {
		free(obj->u.rqt.rqs);
		free(obj);
		return rc;
	}
	obj->u.rqt.max_size = max_size;
	obj->u.rqt.actual_size = actual;
	obj->u.rqt.list_q_type = MDEVX_RQTC_LIST_Q_TYPE_RQ;
	for (i = 0; i < actual; i++)
		swdev_obj_get(obj->u.rqt.rqs[i]);
	cmd->obj = obj;
	MDEVX_SET(create_rqt_out, cmd->out, rqtn, id);
	return 0;
}

int
swdev_cmd_modify_rqt(struct swdev_cmd *cmd)
{
	struct swdev_obj *obj = cmd->obj;
	struct swdev_obj **rqs;
	uint32_t actual, i;
	uint64_t mask;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(modify_rqt_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(modify_rqt_out)))
		return cmd->status;
	mask = MDEVX_GET64(modify_rqt_in, cmd->in, modify_bitmask);
	if (mask & ~(uint64_t)MDEVX_MODIFY_RQT_BITMASK_RQN_LIST)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_RQT_BAD_BITMASK);
	if (mask == 0)
		return 0;
	actual = MDEVX_GET(modify_rqt_in, cmd->in, rqt_context.rqt_actual_size);
	rc = check_sizes(cmd, obj->u.rqt.max_size, actual);
	if (rc != 0)
		return rc;
	rqs = calloc(obj->u.rqt.max_size, sizeof(*rqs));
	if (rqs == NULL)
		return -ENOMEM;
	rc = resolve_list(cmd, MDEVX_ADDR_OF(modify_rqt_in, cmd->in, rqt_context.rq_num),
			  actual, rqs);
	if (rc != 0) {
		free(rqs);
		return rc;
	}
	for (i = 0; i < actual; i++)
		swdev_obj_get(rqs[i]);
	for (i = 0; i < obj->u.rqt.actual_size; i++)
		swdev_obj_put(obj->u.rqt.rqs[i]);
	free(obj->u.rqt.rqs);
	obj->u.rqt.rqs = rqs;
	obj->u.rqt.actual_size = actual;
	return 0;
}

int
swdev_cmd_query_rqt(struct swdev_cmd *cmd)
{
	const struct swdev_obj *obj = cmd->obj;
	uint8_t *list;
	uint32_t i;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(query_rqt_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(query_rqt_out)))
		return cmd->status;
	if (cmd->outlen < MDEVX_ST_SZ_BYTES(query_rqt_out) +
			  (size_t)obj->u.rqt.actual_size * RQ_NUM_BYTES)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR,
				      SWDEV_SYND_RQT_QUERY_OUTLEN);
	MDEVX_SET(query_rqt_out, cmd->out, rqt_context.list_q_type, obj->u.rqt.list_q_type);
	MDEVX_SET(query_rqt_out, cmd->out, rqt_context.rqt_max_size, obj->u.rqt.max_size);
	MDEVX_SET(query_rqt_out, cmd->out, rqt_context.rqt_actual_size, obj->u.rqt.actual_size);
	list = MDEVX_ADDR_OF(query_rqt_out, cmd->out, rqt_context.rq_num);
	for (i = 0; i < obj->u.rqt.actual_size; i++)
		MDEVX_SET(rq_num, list + (size_t)i * RQ_NUM_BYTES, rq_num,
			  obj->u.rqt.rqs[i]->id);
	return 0;
}

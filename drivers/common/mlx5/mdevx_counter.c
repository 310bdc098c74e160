/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Flow counter bulks: ALLOC / QUERY / DEALLOC_FLOW_COUNTER. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

static bool
is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static unsigned int
log2u(uint32_t v)
{
	return 31u - (unsigned int)__builtin_clz(v);
}

/*
 * Encode @p bulk_size for ALLOC_FLOW_COUNTER: the flow_counter_bulk bitmap
 * value (units of 128, a bit advertised in flow_counter_bulk_alloc) or, on
 * devices with capability-2 log-size allocation, flow_counter_bulk_log_size.
 */
static int
encode_bulk(const struct mdevx_ctx *ctx, uint32_t bulk_size, uint32_t *bulk_field,
	    uint32_t *log_field)
{
	const struct mdevx_caps *c = &ctx->caps;
	unsigned int lg;

	*bulk_field = 0;
	*log_field = 0;
	if (!is_pow2(bulk_size)) {
		MDEVX_LOG_FN(ERR, "mdevx_counter_alloc",
			     "%s: flow counter bulk size %u is not a power of two",
			     ctx->devstr, bulk_size);
		return EINVAL;
	}
	if (bulk_size == 1)
		return 0;
	lg = log2u(bulk_size);
	if (bulk_size >= 128 && lg - 7 < 8 && (c->flow_counter_bulk_alloc & (1u << (lg - 7)))) {
		*bulk_field = bulk_size / 128;
		return 0;
	}
	if (c->flow_counter_bulk_log_max_alloc != 0 && lg <= c->flow_counter_bulk_log_max_alloc &&
	    lg >= c->flow_counter_bulk_log_granularity) {
		*log_field = lg;
		return 0;
	}
	MDEVX_LOG_FN(ERR, "mdevx_counter_alloc",
		     "%s: flow counter bulk of %u not offered by the device "
		     "(flow_counter_bulk_alloc %#x, flow_counter_bulk_log_max_alloc %u, "
		     "granularity %u)", ctx->devstr, bulk_size, c->flow_counter_bulk_alloc,
		     c->flow_counter_bulk_log_max_alloc, c->flow_counter_bulk_log_granularity);
	return ENOTSUP;
}

MDEVX_API struct mdevx_obj *
mdevx_counter_alloc(struct mdevx_ctx *ctx, uint32_t bulk_size)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)];
	uint32_t bulk_field, log_field;
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	rc = encode_bulk(ctx, bulk_size, &bulk_field, &log_field);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk, bulk_field);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk_log_size, log_field);
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &bobj);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(ctx, MDEVX_OBJ_FLOW_COUNTER, bobj,
			     MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id));
	if (obj == NULL)
		return NULL;
	obj->bulk_size = bulk_size;
	return mdevx_obj_finish(obj);
}

/* One QUERY_FLOW_COUNTER for counters [first, first + n). */
static int
query_chunk(struct mdevx_obj *cnt, uint32_t first, uint32_t n, int clear,
	    struct mdevx_counter_stats *stats)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	const size_t entry = MDEVX_ST_SZ_BYTES(traffic_counter);
	size_t outlen = MDEVX_ST_SZ_BYTES(query_flow_counter_out) + entry * n;
	uint8_t *out = malloc(outlen);
	uint8_t *tc;
	uint32_t i;
	int rc;

	if (out == NULL)
		return ENOMEM;
	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, clear, clear ? 1 : 0);
	/* num_of_counters 0 reads exactly one counter. */
	MDEVX_SET(query_flow_counter_in, in, num_of_counters, n == 1 ? 0 : n);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, cnt->id + first);
	rc = mdevx_cmd_query(cnt, in, sizeof(in), out, outlen);
	if (rc == 0) {
		for (i = 0; i < n; i++) {
			tc = out + MDEVX_ST_SZ_BYTES(query_flow_counter_out) + entry * i;
			stats[i].packets = MDEVX_GET64(traffic_counter, tc, packets);
			stats[i].bytes = MDEVX_GET64(traffic_counter, tc, octets);
		}
	}
	free(out);
	return rc;
}

/* The query itself, on a checked (or reference-built) counter object. */
static int
counter_query(struct mdevx_obj *cnt, uint32_t offset, uint32_t n, int clear,
	      struct mdevx_counter_stats *stats)
{
	uint32_t max_per_cmd, done, chunk;
	int rc;

	if (stats == NULL || n == 0)
		return mdevx_ret(EINVAL);
	if (offset >= cnt->bulk_size || n > cnt->bulk_size - offset)
		return mdevx_ret(ERANGE);
	max_per_cmd = cnt->ctx->caps.max_counters_per_query;
	for (done = 0; done < n; done += chunk) {
		chunk = n - done < max_per_cmd ? n - done : max_per_cmd;
		rc = query_chunk(cnt, offset + done, chunk, clear, stats + done);
		if (rc != 0)
			return mdevx_ret(rc);
	}
	return 0;
}

MDEVX_API int
mdevx_counter_query(struct mdevx_obj *cnt, uint32_t offset, uint32_t n, int clear,
		    struct mdevx_counter_stats *stats)
{
	int rc = mdevx_obj_get(cnt, MDEVX_OBJ_FLOW_COUNTER);

	if (rc != 0)
		return mdevx_ret(rc);
	rc = counter_query(cnt, offset, n, clear, stats);
	mdevx_obj_put(cnt);
	return rc;
}

MDEVX_API int
mdevx_ref_counter_query(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
			uint32_t offset, uint32_t n, int clear,
			struct mdevx_counter_stats *stats)
{
	struct mdevx_obj tmp;
	int rc = mdevx_ref_to_obj(ctx, ref, MDEVX_OBJ_FLOW_COUNTER, &tmp);

	if (rc != 0)
		return mdevx_ret(rc);
	return counter_query(&tmp, offset, n, clear, stats);
}

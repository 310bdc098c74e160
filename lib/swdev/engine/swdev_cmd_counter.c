/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: flow counters.
 *
 * The store: a bitmap of allocated counter ids over an id space twice the
 * device's max_flow_counters (rounded up to a power of two, id 0 never
 * used), and the packets/octets values in chunks of SWDEV_CNT_CHUNK
 * counters allocated on first use. A bulk of n counters (n a power of two)
 * gets a free range aligned to n, lowest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

int
swdev_counters_init(struct swdev_counters *c, uint32_t max_counters)
{
	uint32_t space = SWDEV_CNT_CHUNK;

	memset(c, 0, sizeof(*c));
	while (space < 2 * (uint64_t)max_counters)
		space <<= 1;
	c->space = space;
	c->used = calloc(space / 64, sizeof(*c->used));
	c->chunks = calloc(space / SWDEV_CNT_CHUNK, sizeof(*c->chunks));
	if (c->used == NULL || c->chunks == NULL) {
		swdev_counters_fini(c);
		return ENOMEM;
	}
	c->used[0] = 1;		/* id 0 is never a counter */
	c->hint = 1;
	return 0;
}

void
swdev_counters_fini(struct swdev_counters *c)
{
	uint32_t i;

	if (c->chunks != NULL)
		for (i = 0; i < c->space / SWDEV_CNT_CHUNK; i++)
			free(c->chunks[i]);
	free(c->chunks);
	free(c->used);
	memset(c, 0, sizeof(*c));
}

static inline bool
bit_is_set(const uint64_t *bm, uint32_t i)
{
	return (bm[i / 64] >> (i % 64)) & 1;
}

bool
swdev_counter_is_allocated(const struct swdev_counters *c, uint32_t id)
{
	return id != 0 && id < c->space && bit_is_set(c->used, id);
}

int
swdev_counter_add(struct swdev_counters *c, uint32_t id, uint64_t packets, uint64_t bytes)
{
	struct swdev_cnt_chunk *ch;

	if (!swdev_counter_is_allocated(c, id))
		return ENOENT;
	ch = c->chunks[id >> SWDEV_CNT_CHUNK_SHIFT];
	ch->packets[id & (SWDEV_CNT_CHUNK - 1)] += packets;
	ch->octets[id & (SWDEV_CNT_CHUNK - 1)] += bytes;
	return 0;
}

struct swdev_obj *
swdev_counter_owner(const struct swdev_counters *c, uint32_t id)
{
	struct swdev_cnt_chunk *ch;

	if (!swdev_counter_is_allocated(c, id))
		return NULL;
	ch = c->chunks[id >> SWDEV_CNT_CHUNK_SHIFT];
	return ch->owner[id & (SWDEV_CNT_CHUNK - 1)];
}

/*
 * A bulk's base is aligned to its size (a power of two, at least 4 for a
 * bulk of 2), so the bulk holding @p id has its base at @p id with some
 * low bits cleared: at most 32 candidates, lowest bits first.
 */
struct swdev_obj *
swdev_counter_bulk_of(const struct swdev_counters *c, uint32_t id)
{
	unsigned int k;

	if (!swdev_counter_is_allocated(c, id))
		return NULL;
	for (k = 0; k < 32 && (1ull << k) <= c->space; k++) {
		uint32_t base = id & ~(uint32_t)((1ull << k) - 1);
		struct swdev_obj *o = swdev_counter_owner(c, base);

		if (o != NULL && (uint64_t)id < (uint64_t)base + o->u.cnt.num)
			return o;
	}
	return NULL;
}

/* Is [b, b + n) free? n is a power of two and b is aligned to n. */
static bool
range_is_free(const struct swdev_counters *c, uint32_t b, uint32_t n)
{
	uint32_t w;

	if (n >= 64) {
		for (w = b / 64; w < (b + n) / 64; w++)
			if (c->used[w] != 0)
				return false;
		return true;
	}
	return (c->used[b / 64] & ((((uint64_t)1 << n) - 1) << (b % 64))) == 0;
}

static void
range_mark(struct swdev_counters *c, uint32_t b, uint32_t n, bool set)
{
	uint32_t i = b;

	while (i < b + n) {
		if (i % 64 == 0 && b + n - i >= 64) {
			c->used[i / 64] = set ? UINT64_MAX : 0;
			i += 64;
			continue;
		}
		if (set)
			c->used[i / 64] |= 1ull << (i % 64);
		else
			c->used[i / 64] &= ~(1ull << (i % 64));
		i++;
	}
}

/*
 * Find and take an aligned free range: 0, ENOSPC or ENOMEM. A bulk is
 * aligned to its size, and one of more than one counter to at least 4: a
 * range query must start at a multiple of 4, so a whole bulk of 2 can be
 * read in one command.
 */
static int
range_alloc(struct swdev_counters *c, uint32_t n, uint32_t *base)
{
	uint64_t align = n > 1 && n < 4 ? 4 : n;
	uint64_t b = ((uint64_t)c->hint + align - 1) & ~(align - 1);
	uint32_t i;

	while (b + n <= c->space) {
		if (n < 64 && c->used[b / 64] == UINT64_MAX) {
			b = (b | 63) + 1;
			continue;
		}
		if (range_is_free(c, (uint32_t)b, n))
			break;
		b += align;
	}
	if (b + n > c->space)
		return ENOSPC;
	for (i = (uint32_t)(b >> SWDEV_CNT_CHUNK_SHIFT);
	     i <= (uint32_t)((b + n - 1) >> SWDEV_CNT_CHUNK_SHIFT); i++) {
		if (c->chunks[i] == NULL) {
			c->chunks[i] = calloc(1, sizeof(*c->chunks[i]));
			if (c->chunks[i] == NULL)
				return ENOMEM;
		}
	}
	range_mark(c, (uint32_t)b, n, true);
	if (b == c->hint)
		while (c->hint < c->space && bit_is_set(c->used, c->hint))
			c->hint++;
	c->allocated += n;
	*base = (uint32_t)b;
	return 0;
}

void
swdev_counters_free_range(struct swdev_counters *c, uint32_t base, uint32_t n)
{
	uint32_t id;

	if (n == 0 || base >= c->space || n > c->space - base)
		return;
	range_mark(c, base, n, false);
	for (id = base; id < base + n; id++) {
		struct swdev_cnt_chunk *ch = c->chunks[id >> SWDEV_CNT_CHUNK_SHIFT];
		uint32_t k = id & (SWDEV_CNT_CHUNK - 1);

		ch->packets[k] = 0;
		ch->octets[k] = 0;
		ch->owner[k] = NULL;
	}
	c->allocated -= n;
	if (base < c->hint)
		c->hint = base;
}

void
swdev_counter_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj)
{
	swdev_counters_free_range(&dev->cnt, obj->id, obj->u.cnt.num);
}

int
swdev_cmd_alloc_counter(struct swdev_cmd *cmd)
{
	const struct swdev_limits *lim = &cmd->dev->lim;
	struct swdev_counters *c = &cmd->dev->cnt;
	struct swdev_obj *obj, *pd = NULL;
	uint32_t log_size, bulk, pdn, n, base;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)))
		return cmd->status;
	log_size = MDEVX_GET(alloc_flow_counter_in, cmd->in, flow_counter_bulk_log_size);
	bulk = MDEVX_GET(alloc_flow_counter_in, cmd->in, flow_counter_bulk);
	pdn = MDEVX_GET(alloc_flow_counter_in, cmd->in, pd);
	if (log_size != 0) {
		if (lim->flow_counter_bulk_log_max_alloc == 0)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_CNT_LOG_SIZE_UNSUPPORTED);
		if (log_size > lim->flow_counter_bulk_log_max_alloc)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_CNT_LOG_SIZE_TOO_BIG);
		n = 1u << log_size;
	} else if (bulk != 0) {
		if ((bulk & (bulk - 1)) != 0)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_CNT_BAD_BULK);
		if ((bulk & lim->flow_counter_bulk_alloc) == 0)
			return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
					      SWDEV_SYND_CNT_BULK_NOT_ADVERTISED);
		n = 128 * bulk;
	} else {
		n = 1;
	}
	if (pdn != 0) {
		pd = swdev_obj_ref_lookup(cmd, SWDEV_KIND_PD, pdn, SWDEV_SYND_CNT_BAD_PD,
					  SWDEV_SYND_CNT_PD_OTHER_UID);
		if (pd == NULL)
			return cmd->status;
	}
	if ((uint64_t)c->allocated + n > lim->max_flow_counters)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_LIM_ERR, SWDEV_SYND_CNT_LIMIT);
	obj = swdev_obj_new(cmd, SWDEV_KIND_FLOW_COUNTER);
	if (obj == NULL)
		return -ENOMEM;
	rc = range_alloc(c, n, &base);
	if (rc != 0) {
		free(obj);
		if (rc == ENOMEM)
			return -ENOMEM;
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_NO_RES_ERR, SWDEV_SYND_CNT_NO_RANGE);
	}
	obj->id = base;
	obj->u.cnt.num = n;
	obj->u.cnt.pd = pd;
	swdev_obj_get(pd);
	c->chunks[base >> SWDEV_CNT_CHUNK_SHIFT]->owner[base & (SWDEV_CNT_CHUNK - 1)] = obj;
	cmd->obj = obj;
	MDEVX_SET(alloc_flow_counter_out, cmd->out, flow_counter_id, base);
	return 0;
}

int
swdev_cmd_query_counter(struct swdev_cmd *cmd)
{
	const struct swdev_limits *lim = &cmd->dev->lim;
	struct swdev_counters *c = &cmd->dev->cnt;
	const struct swdev_obj *bulk = cmd->obj;
	uint32_t first, num, n, i;
	bool clear;
	uint8_t *entry;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(query_flow_counter_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(query_flow_counter_out)))
		return cmd->status;
	first = MDEVX_GET(query_flow_counter_in, cmd->in, flow_counter_id);
	num = MDEVX_GET(query_flow_counter_in, cmd->in, num_of_counters);
	clear = MDEVX_GET(query_flow_counter_in, cmd->in, clear);
	n = num ? num : 1;
	if (MDEVX_GET(query_flow_counter_in, cmd->in, dump_to_memory))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CNT_QUERY_DUMP);
	if ((uint64_t)num > (1ull << lim->log_max_flow_counter_bulk))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CNT_QUERY_TOO_MANY);
	if (num > 1 && first % 4 != 0)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CNT_QUERY_UNALIGNED);
	if (bulk == NULL || first < bulk->id ||
	    (uint64_t)first + n > (uint64_t)bulk->id + bulk->u.cnt.num)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_PARAM_ERR,
				      SWDEV_SYND_CNT_QUERY_RANGE);
	if (cmd->outlen < MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
			  (uint64_t)n * MDEVX_ST_SZ_BYTES(traffic_counter))
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR,
				      SWDEV_SYND_CNT_QUERY_OUTLEN);
	entry = MDEVX_ADDR_OF(query_flow_counter_out, cmd->out, flow_statistics);
	for (i = 0; i < n; i++, entry += MDEVX_ST_SZ_BYTES(traffic_counter)) {
		uint32_t id = first + i;
		struct swdev_cnt_chunk *ch = c->chunks[id >> SWDEV_CNT_CHUNK_SHIFT];
		uint32_t k = id & (SWDEV_CNT_CHUNK - 1);

		MDEVX_SET64(traffic_counter, entry, packets, ch->packets[k]);
		MDEVX_SET64(traffic_counter, entry, octets, ch->octets[k]);
		if (clear) {
			ch->packets[k] = 0;
			ch->octets[k] = 0;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Flow counters: ALLOC (single, flow_counter_bulk, flow_counter_bulk_log_size),
 * QUERY (one, a range, clear, lengths, alignment, bulk limit, handle range, the
 * exact end of bulks of 2 to 512, the handler's own range check),
 * DEALLOC through destroy, traffic injection, limits, uids, fault injection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"
#include "unit_check.h"
#include "swdev_test_util.h"

#define QOUT(n) (16 + 16 * (n))

static uint64_t
pkts(const uint8_t *out, unsigned int i)
{
	return MDEVX_GET64(traffic_counter, out + 16 + 16 * i, packets);
}

static uint64_t
octs(const uint8_t *out, unsigned int i)
{
	return MDEVX_GET64(traffic_counter, out + 16 + 16 * i, octets);
}

static void
test_alloc(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_limits lim;
	struct swdev_obj_info info, info2;
	struct swdev_counts cnt;
	struct swdev_file *f;
	uint8_t out[16];
	uint32_t base;

	swdev_limits_default(&lim);
	lim.flow_counter_bulk_alloc = 0x05;	/* 128 and 512 counters */
	lim.flow_counter_bulk_log_max_alloc = 10;
	lim.max_flow_counters = 4096;
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);

	/* single counter: rdma-core style info */
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &info), 0);
	base = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	CHECK(base != 0);
	CHECK_EQ(info.type, MDEVX_DEVX_TYPE_FLOW_COUNTER);
	CHECK_EQ(info.object_id, base);
	CHECK_EQ(info.rx_icm_addr, 0);
	/* a bulk of 2 after it: aligned to 4, so that one range query reads it */
	CHECK_EQ(t_alloc_counter(f, 0, 1, out, &info2), 0);
	CHECK(info2.object_id != 0 && info2.object_id % 4 == 0);
	{
		uint8_t q[16 + 2 * 16];

		CHECK_EQ(t_query_counter(f, info2.handle, info2.object_id, 2, 0, q, sizeof(q)), 0);
	}
	/* bulk of 512 (bit 2): base aligned to 512 */
	CHECK_EQ(t_alloc_counter(f, 4, 0, out, &info), 0);
	base = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	CHECK(base != 0 && base % 512 == 0);
	CHECK_EQ(info.object_id, base);
	/* log size 2^10 */
	CHECK_EQ(t_alloc_counter(f, 0, 10, out, &info2), 0);
	CHECK_EQ(info2.object_id % 1024, 0);
	CHECK(info2.object_id != info.object_id);
	/* bad values */
	CHECK_EQ(t_alloc_counter(f, 3, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_BAD_BULK);
	CHECK_EQ(t_alloc_counter(f, 2, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_BULK_NOT_ADVERTISED);
	CHECK_EQ(t_alloc_counter(f, 0, 11, out, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LOG_SIZE_TOO_BIG);
	/* 1 + 2 + 512 + 3 x 1024 used out of 4096: 1024 more is over the limit */
	CHECK_EQ(t_alloc_counter(f, 0, 10, out, NULL), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 10, out, NULL), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 10, out, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_LIM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LIMIT);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER], 6);	/* failures created nothing */
	/* singles still fit under the limit */
	{
		uint8_t in[16] = {0};

		MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
		CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), 0);
		CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), 0);
	}
	swdev_engine_destroy(eng);

	/* log-size allocation not advertised */
	eng = swdev_engine_create();
	swdev_limits_default(&lim);
	lim.flow_counter_bulk_log_max_alloc = 0;
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_alloc_counter(f, 0, 3, out, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LOG_SIZE_UNSUPPORTED);
	swdev_engine_destroy(eng);
}

static void
test_pd_and_uid(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[16] = {0}, out[16];
	struct swdev_file *f, *g;
	uint32_t pd_h, pdn, gpd_h, gpdn;
	struct swdev_obj_info info;

	swdev_engine_add_device(eng, T_DEV, NULL);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	CHECK_EQ(swdev_file_pd_alloc(f, &pd_h, &pdn), 0);
	CHECK_EQ(swdev_file_pd_alloc(g, &gpd_h, &gpdn), 0);
	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, pd, pdn);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, &info), 0);
	/* the PD is held by the counter */
	CHECK_EQ(swdev_file_verbs_destroy(f, pd_h), EBUSY);
	MDEVX_SET(alloc_flow_counter_in, in, pd, gpdn);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_RES_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_PD_OTHER_UID);
	MDEVX_SET(alloc_flow_counter_in, in, pd, 0xabcdef);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_BAD_PD);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	CHECK_EQ(swdev_file_verbs_destroy(f, pd_h), 0);
	swdev_engine_destroy(eng);
}

static void
test_query(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	static uint8_t out[QOUT(600)];
	struct swdev_obj_info single, bulk, other;
	struct swdev_file *f, *g;
	uint8_t aout[16];
	uint32_t b, i;

	swdev_engine_add_device(eng, T_DEV, NULL);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_alloc_counter(f, 0, 0, aout, &single), 0);
	CHECK_EQ(t_alloc_counter(f, 4, 0, aout, &bulk), 0);	/* 512 counters */
	CHECK_EQ(t_alloc_counter(g, 0, 0, aout, &other), 0);
	b = bulk.object_id;

	/* fresh counters read 0 */
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(t_status(out), 0);
	CHECK_EQ(pkts(out, 0), 0);
	/* traffic injection, single query (num 0 and num 1) */
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, single.object_id, 10, 1500), 0);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, single.object_id, 1, 64), 0);
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 11);
	CHECK_EQ(octs(out, 0), 1564);
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 1, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 11);
	/* clear: returns the values, then zero */
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 0, 1, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 11);
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 0);
	CHECK_EQ(octs(out, 0), 0);
	/* injection into a non-allocated id / unknown device */
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, b + 512, 1, 1), ENOENT);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, 0, 1, 1), ENOENT);
	CHECK_EQ(swdev_ctl_inject(eng, "nope", b, 1, 1), ENODEV);
	/* range: every counter of the bulk distinct */
	for (i = 0; i < 512; i++)
		CHECK_EQ(swdev_ctl_inject(eng, T_DEV, b + i, i, 1000 + i), 0);
	CHECK_EQ(t_query_counter(f, bulk.handle, b, 512, 0, out, QOUT(512)), 0);
	for (i = 0; i < 512; i += 97) {
		CHECK_EQ(pkts(out, i), i);
		CHECK_EQ(octs(out, i), 1000 + i);
	}
	CHECK_EQ(pkts(out, 511), 511);
	/* sub-range at an aligned offset */
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 100, 8, 1, out, QOUT(8)), 0);
	CHECK_EQ(pkts(out, 0), 100);
	CHECK_EQ(pkts(out, 7), 107);
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 100, 8, 0, out, QOUT(8)), 0);
	CHECK_EQ(pkts(out, 0), 0);
	CHECK_EQ(pkts(out, 7), 0);
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 99, 1, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 99);	/* outside the cleared range: kept */
	/* one counter in the middle of a bulk, unaligned id: fine */
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 3, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 3);
	/* firmware refusals */
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 2, 4, 0, out, QOUT(4)), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_UNALIGNED);
	CHECK_EQ(t_query_counter(f, bulk.handle, b, 4, 0, out, QOUT(4) - 1), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_OUTLEN);
	CHECK_EQ(t_query_counter(f, single.handle, single.object_id, 0, 0, out, 16),
		 EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_OUTLEN);
	{
		uint8_t in[32] = {0};

		MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
		MDEVX_SET(query_flow_counter_in, in, flow_counter_id, b);
		MDEVX_SET(query_flow_counter_in, in, dump_to_memory, 1);
		CHECK_EQ(swdev_devx_obj_query(f, bulk.handle, in, 32, out, QOUT(1)),
			 EREMOTEIO);
		CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_DUMP);
		/* the kernel cannot read the id from a 16-byte command: EINVAL */
		CHECK_EQ(swdev_devx_obj_query(f, bulk.handle, in, 16, out, QOUT(1)), EINVAL);
	}
	/*
	 * kernel: the first id must be inside this handle's bulk; a range
	 * running past it is the firmware's to refuse
	 */
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 508, 8, 0, out, QOUT(8)), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_RANGE);
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 508, 4, 0, out, QOUT(4)), 0);
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 512, 4, 0, out, QOUT(4)), EINVAL);
	CHECK_EQ(t_query_counter(f, bulk.handle, b - 1, 0, 0, out, QOUT(1)), EINVAL);
	CHECK_EQ(t_query_counter(f, bulk.handle, single.object_id, 0, 0, out, QOUT(1)), EINVAL);
	CHECK_EQ(t_query_counter(f, single.handle, b, 0, 0, out, QOUT(1)), EINVAL);
	/* another file's counter id through our handle, and its handle number here */
	CHECK_EQ(t_query_counter(f, single.handle, other.object_id, 0, 0, out, QOUT(1)),
		 EINVAL);
	CHECK_EQ(t_query_counter(g, other.handle, other.object_id, 0, 0, out, QOUT(1)), 0);
	/* modify is not a counter operation */
	{
		uint8_t in[32] = {0};

		MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
		MDEVX_SET(query_flow_counter_in, in, flow_counter_id, b);
		CHECK_EQ(swdev_devx_obj_modify(f, bulk.handle, in, 32, out, QOUT(1)), EINVAL);
	}
	/* dealloc through destroy; the ids and values are gone */
	CHECK_EQ(swdev_devx_obj_destroy(f, bulk.handle), 0);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, b, 1, 1), ENOENT);
	CHECK_EQ(t_query_counter(f, bulk.handle, b, 0, 0, out, QOUT(1)), ENOENT);
	/* a new bulk in the same place starts from 0 */
	CHECK_EQ(t_alloc_counter(f, 4, 0, aout, &bulk), 0);
	CHECK_EQ(bulk.object_id, b);
	CHECK_EQ(t_query_counter(f, bulk.handle, b + 99, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 0);
	swdev_engine_destroy(eng);
}

/* The value injected into counter @p i of the bulk tagged @p tag. */
static uint64_t
boundary_value(uint32_t tag, uint32_t i)
{
	return (uint64_t)tag * 100000 + i + 1;
}

/* out holds @p m counters from bulk offset @p off: every one as injected? */
static void
check_boundary_values(const uint8_t *out, uint32_t tag, uint32_t off, uint32_t m)
{
	uint32_t j;

	for (j = 0; j < m; j++) {
		CHECK_EQ(pkts(out, j), boundary_value(tag, off + j));
		CHECK_EQ(octs(out, j), 64 * boundary_value(tag, off + j) + 7);
	}
}

/*
 * The exact end of a bulk. For bulks of 2 (aligned to 4) up to
 * 512, a range ending at the bulk's last counter is read back in full; one
 * ending one counter past it is the firmware's BAD_PARAM (CNT_QUERY_RANGE)
 * and, with clear set, clears nothing. A first id outside the bulk (one
 * before its base, one past its last counter, the alignment padding after
 * a bulk of 2) is the kernel's EINVAL (devx_is_valid_obj_id()).
 */
static void
test_query_boundary(void)
{
	static const struct {
		uint32_t bulk, log_size, n;
	} sizes[] = {
		{ 0, 1, 2 }, { 0, 2, 4 }, { 0, 3, 8 }, { 0, 5, 32 },
		{ 1, 0, 128 }, { 0, 7, 128 }, { 0, 9, 512 },
	};
	struct swdev_engine *eng = swdev_engine_create();
	static uint8_t out[QOUT(513)];
	struct swdev_obj_info single, info;
	struct swdev_file *f;
	uint8_t aout[16];
	unsigned int k;
	uint32_t i;

	swdev_engine_add_device(eng, T_DEV, NULL);
	f = swdev_file_open(eng, T_DEV);
	/* id 1 taken: an unaligned bulk of 2 would start at 2 */
	CHECK_EQ(t_alloc_counter(f, 0, 0, aout, &single), 0);
	CHECK_EQ(single.object_id, 1);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t n = sizes[k].n, tag = k + 1;
		uint32_t base, last, rs, m;

		CHECK_EQ(t_alloc_counter(f, sizes[k].bulk, sizes[k].log_size, aout, &info), 0);
		base = info.object_id;
		last = base + n - 1;
		CHECK(base != 0);
		CHECK_EQ(base % (n < 4 ? 4 : n), 0);
		for (i = 0; i < n; i++)
			CHECK_EQ(swdev_ctl_inject(eng, T_DEV, base + i, boundary_value(tag, i),
						  64 * boundary_value(tag, i) + 7), 0);
		/* the last aligned range: ends exactly at the last counter */
		rs = n < 4 ? base : base + n - 4;
		m = last + 1 - rs;
		memset(out, 0xa5, QOUT(m));
		CHECK_EQ(t_query_counter(f, info.handle, rs, m, 0, out, QOUT(m)), 0);
		CHECK_EQ(t_status(out), 0);
		check_boundary_values(out, tag, rs - base, m);
		/* one counter past the end: BAD_PARAM, and the clear not done */
		CHECK_EQ(t_query_counter(f, info.handle, rs, m + 1, 1, out, QOUT(m + 1)),
			 EREMOTEIO);
		CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_RANGE);
		/* the whole bulk (the room for one more entry: zeroed by the kernel) */
		memset(out, 0xa5, QOUT(n + 1));
		CHECK_EQ(t_query_counter(f, info.handle, base, n, 0, out, QOUT(n + 1)), 0);
		CHECK_EQ(t_status(out), 0);
		check_boundary_values(out, tag, 0, n);
		CHECK_EQ(pkts(out, n), 0);
		CHECK_EQ(octs(out, n), 0);
		/* and the whole bulk plus one */
		CHECK_EQ(t_query_counter(f, info.handle, base, n + 1, 0, out, QOUT(n + 1)),
			 EREMOTEIO);
		CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
		CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_RANGE);
		/* the last counter alone (num 0 and num 1) */
		CHECK_EQ(t_query_counter(f, info.handle, last, 0, 0, out, QOUT(1)), 0);
		check_boundary_values(out, tag, n - 1, 1);
		CHECK_EQ(t_query_counter(f, info.handle, last, 1, 0, out, QOUT(1)), 0);
		check_boundary_values(out, tag, n - 1, 1);
		/* kernel: the first id one past the last, one before the base */
		CHECK_EQ(t_query_counter(f, info.handle, last + 1, 0, 0, out, QOUT(1)), EINVAL);
		CHECK_EQ(t_query_counter(f, info.handle, base - 1, 0, 0, out, QOUT(1)), EINVAL);
		if (n == 2) {
			/* the alignment padding is no counter of anybody's */
			CHECK_EQ(t_query_counter(f, info.handle, base + 3, 0, 0, out, QOUT(1)),
				 EINVAL);
			CHECK_EQ(swdev_ctl_inject(eng, T_DEV, base + 2, 1, 1), ENOENT);
			CHECK_EQ(swdev_ctl_inject(eng, T_DEV, base + 3, 1, 1), ENOENT);
			CHECK_EQ(t_query_counter(f, info.handle, base, 4, 0, out, QOUT(4)),
				 EREMOTEIO);
			CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_RANGE);
		}
		/* nothing above changed a value: the refused clear included */
		CHECK_EQ(t_query_counter(f, info.handle, base, n, 0, out, QOUT(n)), 0);
		check_boundary_values(out, tag, 0, n);
	}
	swdev_engine_destroy(eng);
}

/* Run the QUERY_FLOW_COUNTER handler itself on @p bulk; the PRM status. */
static int
query_handler(struct swdev_dev *dev, struct swdev_obj *bulk, uint32_t first, uint32_t num,
	      int clear, uint8_t *out, size_t outlen, uint32_t *syndrome)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = {0};
	struct swdev_cmd cmd;
	int rc;

	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, first);
	MDEVX_SET(query_flow_counter_in, in, num_of_counters, num);
	MDEVX_SET(query_flow_counter_in, in, clear, clear ? 1 : 0);
	memset(&cmd, 0, sizeof(cmd));
	cmd.dev = dev;
	cmd.opcode = MDEVX_CMD_OP_QUERY_FLOW_COUNTER;
	cmd.in = in;
	cmd.inlen = sizeof(in);
	cmd.out = out;
	cmd.outlen = outlen;
	cmd.obj = bulk;
	rc = swdev_cmd_query_counter(&cmd);
	*syndrome = cmd.syndrome;
	return rc;
}

/*
 * The handler's own range check, below the kernel layer (which refuses a
 * first id outside the bulk before the handler runs): a range that starts
 * before the bulk and ends exactly at its base, and a missing bulk, are
 * BAD_PARAM (CNT_QUERY_RANGE) as well.
 */
static void
test_query_handler_range(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	static uint8_t out[QOUT(16)];
	struct swdev_obj_info pad, info, next;
	struct swdev_obj *bulk;
	struct swdev_dev *dev;
	struct swdev_file *f;
	uint32_t base, synd;
	uint8_t aout[16];

	swdev_engine_add_device(eng, T_DEV, NULL);
	dev = eng->devs[0];
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_alloc_counter(f, 0, 3, aout, &pad), 0);	/* ids 8..15 */
	CHECK_EQ(t_alloc_counter(f, 0, 3, aout, &info), 0);
	base = info.object_id;
	CHECK(base >= 8 && base % 8 == 0);
	bulk = swdev_counter_owner(&dev->cnt, base);
	CHECK(bulk != NULL);
	if (bulk == NULL) {
		swdev_engine_destroy(eng);
		return;
	}
	CHECK_EQ(query_handler(dev, bulk, base, 8, 0, out, QOUT(8), &synd), 0);
	/*
	 * n entries written and n counters cleared, not one more: the room
	 * left in the output keeps its bytes, the next bulk its values
	 */
	CHECK_EQ(t_alloc_counter(f, 0, 3, aout, &next), 0);
	CHECK_EQ(next.object_id, base + 8);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, base + 7, 7, 70), 0);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, base + 8, 8, 80), 0);
	memset(out, 0xa5, QOUT(9));
	CHECK_EQ(query_handler(dev, bulk, base, 8, 1, out, QOUT(9), &synd), 0);
	CHECK_EQ(pkts(out, 7), 7);
	CHECK_EQ(octs(out, 7), 70);
	CHECK_EQ(pkts(out, 8), 0xa5a5a5a5a5a5a5a5ull);
	CHECK_EQ(octs(out, 8), 0xa5a5a5a5a5a5a5a5ull);
	CHECK_EQ(query_handler(dev, bulk, base + 7, 1, 0, out, QOUT(1), &synd), 0);
	CHECK_EQ(pkts(out, 0), 0);
	CHECK_EQ(octs(out, 0), 0);
	CHECK_EQ(t_query_counter(f, next.handle, base + 8, 0, 0, out, QOUT(1)), 0);
	CHECK_EQ(pkts(out, 0), 8);
	CHECK_EQ(octs(out, 0), 80);
	CHECK_EQ(query_handler(dev, bulk, base + 4, 4, 0, out, QOUT(4), &synd), 0);
	CHECK_EQ(query_handler(dev, bulk, base + 7, 1, 0, out, QOUT(1), &synd), 0);
	CHECK_EQ(query_handler(dev, bulk, base + 4, 5, 0, out, QOUT(5), &synd),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(synd, SWDEV_SYND_CNT_QUERY_RANGE);
	CHECK_EQ(query_handler(dev, bulk, base - 4, 4, 0, out, QOUT(4), &synd),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(synd, SWDEV_SYND_CNT_QUERY_RANGE);
	CHECK_EQ(query_handler(dev, bulk, base - 1, 1, 0, out, QOUT(1), &synd),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(synd, SWDEV_SYND_CNT_QUERY_RANGE);
	CHECK_EQ(query_handler(dev, bulk, base + 8, 0, 0, out, QOUT(1), &synd),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(synd, SWDEV_SYND_CNT_QUERY_RANGE);
	CHECK_EQ(query_handler(dev, NULL, base, 0, 0, out, QOUT(1), &synd),
		 MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(synd, SWDEV_SYND_CNT_QUERY_RANGE);
	/* lengths the kernel layer would not pass: the firmware's own checks */
	{
		uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = {0};
		struct swdev_cmd cmd;
		size_t outlen;

		MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
		MDEVX_SET(query_flow_counter_in, in, flow_counter_id, base);
		for (outlen = QOUT(1); outlen >= MDEVX_ST_SZ_BYTES(query_flow_counter_out) - 1;
		     outlen--) {
			memset(&cmd, 0, sizeof(cmd));
			cmd.dev = dev;
			cmd.opcode = MDEVX_CMD_OP_QUERY_FLOW_COUNTER;
			cmd.in = in;
			cmd.inlen = sizeof(in) - (outlen == QOUT(1) ? 1 : 0);
			cmd.out = out;
			cmd.outlen = outlen;
			cmd.obj = bulk;
			if (outlen == QOUT(1)) {
				CHECK_EQ(swdev_cmd_query_counter(&cmd),
					 MDEVX_CMD_STAT_BAD_INP_LEN_ERR);
				CHECK_EQ(cmd.syndrome, SWDEV_SYND_BAD_INLEN);
			} else if (outlen < MDEVX_ST_SZ_BYTES(query_flow_counter_out)) {
				CHECK_EQ(swdev_cmd_query_counter(&cmd),
					 MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
				CHECK_EQ(cmd.syndrome, SWDEV_SYND_BAD_OUTLEN);
			} else {
				CHECK_EQ(swdev_cmd_query_counter(&cmd),
					 MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
				CHECK_EQ(cmd.syndrome, SWDEV_SYND_CNT_QUERY_OUTLEN);
			}
		}
	}
	swdev_engine_destroy(eng);
}

/*
 * The counter id space: twice max_flow_counters rounded up to a power of
 * two, at least one chunk (so that a bulk of max_flow_counters always finds
 * an aligned free range, id 0 being reserved).
 */
static void
test_id_space(void)
{
	static const struct {
		uint32_t max, space;
	} cases[] = {
		{ 1, SWDEV_CNT_CHUNK }, { SWDEV_CNT_CHUNK / 2, SWDEV_CNT_CHUNK },
		{ SWDEV_CNT_CHUNK / 2 + 1, 2 * SWDEV_CNT_CHUNK },
		{ SWDEV_CNT_CHUNK, 2 * SWDEV_CNT_CHUNK },
		{ SWDEV_CNT_CHUNK + 1, 4 * SWDEV_CNT_CHUNK },
		{ 5000, 16384 }, { 1u << 20, 1u << 21 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct swdev_engine *eng = swdev_engine_create();
		struct swdev_obj_info a;
		struct swdev_limits lim;
		struct swdev_file *f;
		uint8_t out[16];
		uint32_t max = cases[k].max, log;

		swdev_limits_default(&lim);
		lim.max_flow_counters = max;
		CHECK_EQ(swdev_engine_add_device(eng, T_DEV, &lim), 0);
		CHECK_EQ(eng->devs[0]->cnt.space, cases[k].space);
		/* the largest bulk: aligned to its size, id 0 taken, so at its size */
		for (log = 0; (2u << log) <= max; log++)
			;
		f = swdev_file_open(eng, T_DEV);
		CHECK_EQ(t_alloc_counter(f, 0, log, out, &a), 0);
		CHECK_EQ(a.object_id, log ? 1u << log : 1);
		swdev_engine_destroy(eng);
	}
}

/* A shadow of the counter allocator, for test_alloc_model(). */
#define MODEL_MAX 4096u		/* max_flow_counters: an id space of 8192 */
#define MODEL_SPACE 8192u
#define MODEL_BULKS 256

static uint32_t model_rng = 0x2545f491;

static uint32_t
model_next(void)
{
	model_rng ^= model_rng << 13;
	model_rng ^= model_rng >> 17;
	model_rng ^= model_rng << 5;
	return model_rng;
}

/* The lowest free range of n aligned as the engine aligns it; 0 if none. */
static uint32_t
model_fit(const uint8_t *used, uint32_t n)
{
	uint32_t align = n > 1 && n < 4 ? 4 : n, b, i;

	for (b = 0; b + n <= MODEL_SPACE; b += align) {
		for (i = 0; i < n && !used[b + i]; i++)
			;
		if (i == n)
			return b;
	}
	return 0;
}

/*
 * Allocations of every size from 1 to 1024 and frees, in a fixed
 * pseudo-random order, against a shadow of the id space: each bulk gets
 * the lowest free range aligned to its size (a bulk of 2 to 4), the
 * device limit and the lack of a range are refused as such, and a reused
 * id reads 0 (the free cleared both values).
 */
static void
test_alloc_model(void)
{
	static uint8_t used[MODEL_SPACE];
	struct {
		struct swdev_obj_info info;
		uint32_t n;
	} bulk[MODEL_BULKS];
	struct swdev_engine *eng = swdev_engine_create();
	uint32_t nb = 0, allocated = 0, step;
	unsigned int refused_limit = 0, refused_range = 0;
	struct swdev_limits lim;
	struct swdev_counts cnt;
	uint8_t out[QOUT(1)];
	struct swdev_file *f;

	swdev_limits_default(&lim);
	lim.max_flow_counters = MODEL_MAX;
	swdev_engine_add_device(eng, T_DEV, &lim);
	CHECK_EQ(eng->devs[0]->cnt.space, MODEL_SPACE);
	f = swdev_file_open(eng, T_DEV);
	memset(used, 0, sizeof(used));
	used[0] = 1;
	for (step = 0; step < 4000; step++) {
		uint32_t r = model_next(), k, i, n, want, last;
		struct swdev_obj_info info;

		if (nb == MODEL_BULKS || (nb > 0 && r % 8 < 3)) {
			k = (r >> 8) % nb;
			CHECK_EQ(swdev_devx_obj_destroy(f, bulk[k].info.handle), 0);
			memset(used + bulk[k].info.object_id, 0, bulk[k].n);
			allocated -= bulk[k].n;
			bulk[k] = bulk[--nb];
			continue;
		}
		n = 1u << ((r >> 8) % 11);
		want = allocated + n > MODEL_MAX ? 0 : model_fit(used, n);
		if (t_alloc_counter(f, 0, n > 1 ? ((r >> 8) % 11) : 0, out, &info) != 0) {
			CHECK_EQ(want, 0);
			if (allocated + n > MODEL_MAX) {
				CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LIMIT);
				refused_limit++;
			} else {
				CHECK_EQ(t_status(out), MDEVX_CMD_STAT_NO_RES_ERR);
				CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_NO_RANGE);
				refused_range++;
			}
			continue;
		}
		CHECK_EQ(info.object_id, want);
		if (want == 0 || info.object_id != want)
			break;	/* the shadow is no use any more */
		memset(used + want, 1, n);
		allocated += n;
		bulk[nb].info = info;
		bulk[nb++].n = n;
		/* fresh, even where an earlier bulk counted; then count */
		last = want + n - 1;
		for (i = 0; i < (n > 1 ? 2u : 1u); i++) {
			uint32_t id = i ? last : want;

			CHECK_EQ(t_query_counter(f, info.handle, id, 0, 0, out, sizeof(out)), 0);
			CHECK_EQ(pkts(out, 0), 0);
			CHECK_EQ(octs(out, 0), 0);
			CHECK_EQ(swdev_ctl_inject(eng, T_DEV, id, id, 3 * (uint64_t)id), 0);
		}
		if (step % 64 == 0)
			for (i = 0; i < MODEL_SPACE; i++)
				if (swdev_counter_is_allocated(&eng->devs[0]->cnt, i) != (i && used[i]))
					break;
		CHECK(step % 64 != 0 || i == MODEL_SPACE);
	}
	CHECK_EQ(step, 4000);
	CHECK(refused_limit > 0);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER], nb);
	printf("alloc model: %u bulks left, %u refused at the limit, %u without a range\n",
	       nb, refused_limit, refused_range);
	swdev_engine_destroy(eng);
}

/*
 * The edges of the id space, reached by setting allocation bits directly
 * (the device limit keeps the allocator away from them): no aligned free
 * range is NO_RES (CNT_NO_RANGE) and creates nothing, even when the only
 * candidate left is the last range of the space (which is taken when it
 * is free); a single counter at the last id is freed, and with every id
 * taken a single is NO_RES too; ids at and past the end of the space are
 * no counters.
 */
static void
test_alloc_space_edges(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	const uint32_t space = 2 * SWDEV_CNT_CHUNK;
	struct swdev_counters *c;
	struct swdev_obj_info info;
	struct swdev_limits lim;
	struct swdev_counts cnt;
	struct swdev_file *f;
	uint8_t out[16];
	uint32_t q = space / 4;

	swdev_limits_default(&lim);
	lim.max_flow_counters = SWDEV_CNT_CHUNK;
	swdev_engine_add_device(eng, T_DEV, &lim);
	c = &eng->devs[0]->cnt;
	CHECK_EQ(c->space, space);
	f = swdev_file_open(eng, T_DEV);
	/* one id taken in each quarter: no range of a quarter */
	c->used[q / 64] |= 1;
	c->used[2 * q / 64] |= 1;
	c->used[3 * q / 64] |= 1;
	CHECK_EQ(t_alloc_counter(f, 0, SWDEV_CNT_CHUNK_SHIFT - 1, out, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_NO_RES_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_NO_RANGE);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER], 0);
	CHECK_EQ(c->allocated, 0);
	/* the last quarter free again: taken, ending at the end of the space */
	c->used[3 * q / 64] &= ~1ull;
	CHECK_EQ(t_alloc_counter(f, 0, SWDEV_CNT_CHUNK_SHIFT - 1, out, &info), 0);
	CHECK_EQ(info.object_id, 3 * q);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	CHECK(!swdev_counter_is_allocated(c, 3 * q));
	CHECK(!swdev_counter_is_allocated(c, space - 1));
	/* every id taken but the last: a single counter gets it, and gives it back */
	memset(c->used, 0xff, space / 8);
	c->used[space / 64 - 1] &= ~(1ull << 63);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &info), 0);
	CHECK_EQ(info.object_id, space - 1);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, space - 1, 1, 1), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	CHECK(!swdev_counter_is_allocated(c, space - 1));
	CHECK_EQ(c->allocated, 0);
	/*
	 * again with the search hint at the last id, as after allocating every
	 * id below it in turn (taking the last id moves the hint to the end of
	 * the bitmap, not past it), and once more after the free
	 */
	c->hint = space - 1;
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &info), 0);
	CHECK_EQ(info.object_id, space - 1);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &info), 0);
	CHECK_EQ(info.object_id, space - 1);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	/* every id taken: not even a single counter */
	c->used[space / 64 - 1] = UINT64_MAX;
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_NO_RANGE);
	memset(c->used, 0, space / 8);
	c->used[0] = 1;
	c->hint = 1;
	/* past the end */
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, space, 1, 1), ENOENT);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, space + 1, 1, 1), ENOENT);
	CHECK_EQ(swdev_ctl_inject(eng, T_DEV, UINT32_MAX, 1, 1), ENOENT);
	CHECK(!swdev_counter_is_allocated(c, space));
	swdev_engine_destroy(eng);
}

static void
test_query_limit(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_limits lim;
	struct swdev_obj_info bulk;
	struct swdev_file *f;
	static uint8_t out[QOUT(1024)];
	uint8_t aout[16];

	swdev_limits_default(&lim);
	lim.log_max_flow_counter_bulk = 8;	/* 256 per query */
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(t_alloc_counter(f, 0, 10, aout, &bulk), 0);
	CHECK_EQ(t_query_counter(f, bulk.handle, bulk.object_id, 256, 0, out, sizeof(out)), 0);
	CHECK_EQ(t_query_counter(f, bulk.handle, bulk.object_id, 257, 0, out, sizeof(out)),
		 EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_QUERY_TOO_MANY);
	swdev_engine_destroy(eng);
}

static void
test_fragmentation(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_limits lim;
	struct swdev_obj_info a[8];
	struct swdev_counts cnt;
	struct swdev_file *f;
	uint8_t out[16];
	unsigned int i;

	swdev_limits_default(&lim);
	lim.max_flow_counters = 2048;	/* id space 4096, id 0 reserved */
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	/* a single counter at id 1, then 2048-counter bulks need an aligned range */
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &a[0]), 0);
	CHECK_EQ(a[0].object_id, 1);
	CHECK_EQ(t_alloc_counter(f, 0, 10, out, &a[1]), 0);
	CHECK_EQ(a[1].object_id, 1024);
	CHECK_EQ(t_alloc_counter(f, 0, 9, out, &a[2]), 0);
	CHECK_EQ(a[2].object_id, 512);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &a[3]), 0);
	CHECK_EQ(a[3].object_id, 2);
	CHECK_EQ(swdev_devx_obj_destroy(f, a[0].handle), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &a[4]), 0);
	CHECK_EQ(a[4].object_id, 1);	/* lowest free id reused */
	/* 1538 in use: 512 more is over the limit of 2048 */
	CHECK_EQ(t_alloc_counter(f, 0, 9, out, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LIMIT);
	/* 256 fits, in the lowest aligned free range */
	CHECK_EQ(t_alloc_counter(f, 0, 8, out, &a[5]), 0);
	CHECK_EQ(a[5].object_id, 256);
	for (i = 1; i <= 5; i++)
		CHECK_EQ(swdev_devx_obj_destroy(f, a[i].handle), 0);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.total, 0);
	/* everything free again: a bulk of the device's maximum works */
	CHECK_EQ(t_alloc_counter(f, 0, 11, out, &a[6]), 0);
	CHECK_EQ(a[6].object_id, 2048);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_CNT_LIMIT);
	swdev_engine_destroy(eng);
}

static void
test_faults(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_obj_info c;
	struct swdev_counts cnt;
	struct swdev_file *f;
	uint8_t out[QOUT(1)];

	swdev_engine_add_device(eng, T_DEV, NULL);
	f = swdev_file_open(eng, T_DEV);
	/* fail the next 2 allocations, then succeed */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, 2,
				 MDEVX_CMD_STAT_NO_RES_ERR, 0xabc, 0), 0);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_NO_RES_ERR);
	CHECK_EQ(t_syndrome(out), 0xabc);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, NULL), EREMOTEIO);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.total, 0);
	CHECK_EQ(t_alloc_counter(f, 0, 0, out, &c), 0);
	CHECK_EQ(swdev_file_take_delay(f), 0);
	/* delay rule: succeeds, delay reported once */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1, 0, 0, 2500),
		 0);
	CHECK_EQ(t_query_counter(f, c.handle, c.object_id, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(swdev_file_take_delay(f), 2500);
	CHECK_EQ(swdev_file_take_delay(f), 0);
	CHECK_EQ(t_query_counter(f, c.handle, c.object_id, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(swdev_file_take_delay(f), 0);
	/* clearing a rule */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 5,
				 MDEVX_CMD_STAT_INT_ERR, 1, 0), 0);
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 0, 0, 0, 0), 0);
	CHECK_EQ(t_query_counter(f, c.handle, c.object_id, 0, 0, out, sizeof(out)), 0);
	/* destroy can fail too (mlx5_cmd_exec errno), the object stays */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER, 1,
				 MDEVX_CMD_STAT_RES_BUSY, 1, 0), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.handle), EBUSY);
	CHECK_EQ(t_query_counter(f, c.handle, c.object_id, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, c.handle), 0);
	CHECK_EQ(swdev_ctl_fault(eng, "nope", 1, 1, 1, 1, 0), ENODEV);
	swdev_engine_destroy(eng);
}

int
main(void)
{
	test_alloc();
	test_id_space();
	test_alloc_model();
	test_alloc_space_edges();
	test_pd_and_uid();
	test_query();
	test_query_boundary();
	test_query_handler_range();
	test_query_limit();
	test_fragmentation();
	test_faults();
	return check_summary();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Fuzz harness over the software device engine's command decoder: every
 * entry point (DEVX create / query / modify / general / destroy, verbs,
 * control, frames into the port) with arbitrary mailboxes and lengths, on a persistent engine
 * with two uverbs files, recreated every FUZZ_RECREATE inputs to bound
 * memory. The "fix up" mode writes ids of live objects into the mailbox so
 * the decoder is reached past its reference checks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_swdev_cmd.h"
#include "swdev_engine_priv.h"

#define FUZZ_RECREATE 4096
#define FUZZ_MAX_OUT (1u << 20)
#define FUZZ_DEV "fuzz0"

/* results per entry point (index: rc 0, EREMOTEIO, other), for --stats */
unsigned long fuzz_swdev_stats[8][3];

static struct swdev_engine *eng;
static struct swdev_file *files[2];
static unsigned int runs;

static const uint16_t known_ops[] = {
	MDEVX_CMD_OP_QUERY_HCA_CAP, MDEVX_CMD_OP_NOP, MDEVX_CMD_OP_ALLOC_PD,
	MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER,
	MDEVX_CMD_OP_QUERY_FLOW_COUNTER, MDEVX_CMD_OP_CREATE_CQ, MDEVX_CMD_OP_QUERY_CQ,
	MDEVX_CMD_OP_MODIFY_CQ, MDEVX_CMD_OP_CREATE_RQ, MDEVX_CMD_OP_MODIFY_RQ,
	MDEVX_CMD_OP_QUERY_RQ, MDEVX_CMD_OP_CREATE_RQT, MDEVX_CMD_OP_MODIFY_RQT,
	MDEVX_CMD_OP_QUERY_RQT, MDEVX_CMD_OP_CREATE_TIR, MDEVX_CMD_OP_MODIFY_TIR,
	MDEVX_CMD_OP_QUERY_TIR, MDEVX_CMD_OP_DESTROY_TIR, MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER,
	MDEVX_CMD_OP_CREATE_FLOW_TABLE, MDEVX_CMD_OP_QUERY_ADAPTER,
	MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY, MDEVX_CMD_OP_CREATE_GENERAL_OBJECT,
	MDEVX_CMD_OP_QUERY_FLOW_TABLE, MDEVX_CMD_OP_CREATE_FLOW_GROUP,
	MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY, MDEVX_CMD_OP_DESTROY_FLOW_TABLE,
};
#define NUM_KNOWN (sizeof(known_ops) / sizeof(known_ops[0]))

static void
engine_up(void)
{
	struct swdev_limits lim;

	swdev_limits_default(&lim);
	/* small limits, so exhaustion paths are reachable */
	lim.max_flow_counters = 8192;
	lim.flow_counter_bulk_log_max_alloc = 12;
	lim.log_max_flow_counter_bulk = 10;
	lim.log_max_tir = 4;
	lim.log_max_rq = 5;
	lim.log_max_rqt = 3;
	lim.log_max_rqt_size = 6;
	lim.log_max_cq = 3;
	lim.log_max_transport_domain = 3;
	lim.log_max_pd = 3;
	lim.max_uars = 4;
	lim.max_umems = 8;
	lim.max_handles_per_file = 96;
	eng = swdev_engine_create();
	if (eng == NULL || swdev_engine_add_device(eng, FUZZ_DEV, &lim) != 0)
		abort();
	files[0] = swdev_file_open(eng, FUZZ_DEV);
	files[1] = swdev_file_open(eng, FUZZ_DEV);
	if (files[0] == NULL || files[1] == NULL)
		abort();
}

void
fuzz_swdev_fini(void)
{
	swdev_engine_destroy(eng);
	eng = NULL;
	files[0] = files[1] = NULL;
}

#define FUZZ_MAX_OBJS 1024

/* Index of @p o among the @p n live objects, or abort (a dangling reference). */
static unsigned int
live_index(const struct swdev_obj *const *all, unsigned int n, const struct swdev_obj *o)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (all[i] == o)
			return i;
	abort();
}

/* Count one reference of @p from to @p o (NULL: none). */
static void
ref(const struct swdev_obj *const *all, unsigned int n, uint32_t *want,
    const struct swdev_obj *from, const struct swdev_obj *o)
{
	if (o == NULL)
		return;
	want[live_index(all, n, o)]++;
	if (o->uid != from->uid)
		abort();
}

/*
 * The reference graph: every reference points to a live object of the same
 * uid, every reference count is the number of references, every object is
 * found by its id (counter bulks by their base id).
 */
static void
check_refs(struct swdev_dev *dev)
{
	static const struct swdev_obj *all[FUZZ_MAX_OBJS];
	static uint32_t want[FUZZ_MAX_OBJS];
	const struct swdev_obj *o;
	struct swdev_file *f;
	unsigned int n = 0, i, k, j;

	for (f = dev->files; f != NULL; f = f->next)
		for (k = 0; k < SWDEV_KIND_MAX; k++)
			for (o = f->objs[k]; o != NULL; o = o->fnext) {
				if (n == FUZZ_MAX_OBJS)
					abort();
				all[n++] = o;
			}
	memset(want, 0, sizeof(want[0]) * n);
	for (i = 0; i < n; i++) {
		o = all[i];
		switch (o->kind) {
		case SWDEV_KIND_FLOW_COUNTER:
			ref(all, n, want, o, o->u.cnt.pd);
			if (swdev_counter_owner(&dev->cnt, o->id) != o)
				abort();
			break;
		case SWDEV_KIND_CQ:
			ref(all, n, want, o, o->u.cq.uar);
			ref(all, n, want, o, o->u.cq.umem);
			ref(all, n, want, o, o->u.cq.dbr_umem);
			break;
		case SWDEV_KIND_RQ:
			ref(all, n, want, o, o->u.rq.cq);
			ref(all, n, want, o, o->u.rq.pd);
			ref(all, n, want, o, o->u.rq.wq_umem);
			ref(all, n, want, o, o->u.rq.dbr_umem);
			break;
		case SWDEV_KIND_RQT:
			if (o->u.rqt.actual_size == 0 || o->u.rqt.actual_size > o->u.rqt.max_size)
				abort();
			for (j = 0; j < o->u.rqt.actual_size; j++)
				ref(all, n, want, o, o->u.rqt.rqs[j]);
			break;
		case SWDEV_KIND_TIR:
			ref(all, n, want, o, o->u.tir.td);
			ref(all, n, want, o, o->u.tir.rq);
			ref(all, n, want, o, o->u.tir.rqt);
			break;
		case SWDEV_KIND_FLOW_TABLE:
			ref(all, n, want, o, o->u.ft.miss);
			if (o->u.ft.miss != NULL && o->u.ft.miss->u.ft.level <= o->u.ft.level)
				abort();
			break;
		case SWDEV_KIND_FLOW_GROUP:
			ref(all, n, want, o, o->u.fg.table);
			break;
		case SWDEV_KIND_FTE:
			ref(all, n, want, o, o->u.fte.table);
			ref(all, n, want, o, o->u.fte.group);
			if (o->u.fte.group->u.fg.table != o->u.fte.table ||
			    o->id < o->u.fte.group->u.fg.start || o->id > o->u.fte.group->u.fg.end)
				abort();
			for (j = 0; j < o->u.fte.ndest; j++)
				ref(all, n, want, o, o->u.fte.dests[j].obj);
			for (j = 0; j < o->u.fte.ncnt; j++)
				ref(all, n, want, o, o->u.fte.cnts[j].bulk);
			break;
		case SWDEV_KIND_FLOW:
			ref(all, n, want, o, o->u.fl.matcher);
			ref(all, n, want, o, o->u.fl.dest_obj);
			ref(all, n, want, o, o->u.fl.bulk);
			break;
		default:
			break;
		}
		if (o->kind != SWDEV_KIND_FLOW_COUNTER && o->kind != SWDEV_KIND_FTE &&
		    o->kind != SWDEV_KIND_MATCHER && o->kind != SWDEV_KIND_FLOW &&
		    swdev_obj_by_id(dev, o->kind, o->id) != o)
			abort();
	}
	for (i = 0; i < n; i++)
		if (all[i]->refcnt != want[i])
			abort();
}

void
fuzz_swdev_check(void)
{
	struct swdev_dev *dev;
	uint32_t sum[SWDEV_KIND_MAX] = {0};
	struct swdev_port_stats ps;
	struct swdev_file *f;
	unsigned int k;

	if (eng == NULL)
		return;
	dev = eng->devs[0];
	for (f = dev->files; f != NULL; f = f->next) {
		for (k = 0; k < SWDEV_KIND_MAX; k++) {
			const struct swdev_obj *o;
			uint32_t n = 0;

			for (o = f->objs[k]; o != NULL; o = o->fnext) {
				if (o->file != f || o->kind != k || o->uid != f->uid ||
				    swdev_idmap_get(&f->handles, o->handle) != o)
					abort();
				n++;
			}
			if (n != f->counts[k])
				abort();
			sum[k] += n;
		}
	}
	for (k = 0; k < SWDEV_KIND_MAX; k++)
		if (sum[k] != dev->counts[k])
			abort();
	check_refs(dev);
	/* every accepted frame has exactly one outcome */
	if (swdev_ctl_port_stats(eng, FUZZ_DEV, &ps) != 0 ||
	    ps.rx_packets != ps.delivered + ps.misses + ps.drops + ps.rq_drops)
		abort();
}

/* The n-th live object of @p kind in @p f (wrapping), or NULL. */
static struct swdev_obj *
pick(struct swdev_file *f, enum swdev_kind kind, unsigned int n)
{
	struct swdev_obj *o;
	unsigned int i, count = f->counts[kind];

	if (count == 0)
		return NULL;
	o = f->objs[kind];
	for (i = 0; i < n % count && o != NULL; i++)
		o = o->fnext;
	return o;
}

static uint32_t
pick_id(struct swdev_file *f, enum swdev_kind kind, unsigned int n)
{
	struct swdev_obj *o = pick(f, kind, n);

	return o == NULL ? 0 : o->id;
}

/* Write a field only when the mailbox holds the whole dword of the field. */
#define FIX(typ, p, len, fld, v) do { \
	if ((len) >= (MDEVX_BIT_OFF(typ, fld) / 32 + 1) * 4) \
		MDEVX_SET(typ, p, fld, v); \
} while (0)

/* The query (@p modify false) or modify opcode for an object kind, or 0. */
static uint16_t
op_for_kind(enum swdev_kind kind, bool modify)
{
	switch (kind) {
	case SWDEV_KIND_CQ:
		return modify ? MDEVX_CMD_OP_MODIFY_CQ : MDEVX_CMD_OP_QUERY_CQ;
	case SWDEV_KIND_RQ:
		return modify ? MDEVX_CMD_OP_MODIFY_RQ : MDEVX_CMD_OP_QUERY_RQ;
	case SWDEV_KIND_RQT:
		return modify ? MDEVX_CMD_OP_MODIFY_RQT : MDEVX_CMD_OP_QUERY_RQT;
	case SWDEV_KIND_TIR:
		return modify ? MDEVX_CMD_OP_MODIFY_TIR : MDEVX_CMD_OP_QUERY_TIR;
	case SWDEV_KIND_FLOW_COUNTER:
		return modify ? 0 : MDEVX_CMD_OP_QUERY_FLOW_COUNTER;
	case SWDEV_KIND_FLOW_TABLE:
		return modify ? MDEVX_CMD_OP_MODIFY_FLOW_TABLE : MDEVX_CMD_OP_QUERY_FLOW_TABLE;
	case SWDEV_KIND_FTE:
		return modify ? MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY :
				MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY;
	default:
		return 0;
	}
}

static void
fixup(struct swdev_file *f, uint8_t *in, size_t len, uint32_t handle, unsigned int sel,
      unsigned int entry)
{
	struct swdev_obj *self = swdev_idmap_get(&f->handles, handle);
	struct swdev_obj *grp;
	uint16_t op;
	size_t i;

	if (len < 16)
		return;
	/* query/modify: often use the opcode that matches the handle's object */
	if ((entry == 1 || entry == 2) && self != NULL && (sel & 1)) {
		op = op_for_kind(self->kind, entry == 2);
		if (op != 0)
			MDEVX_SET(mbox_in, in, opcode, op);
	}
	op = (uint16_t)MDEVX_GET(mbox_in, in, opcode);
	switch (op) {
	case MDEVX_CMD_OP_CREATE_CQ:
		FIX(create_cq_in, in, len, cq_context.uar_page, pick_id(f, SWDEV_KIND_UAR, sel));
		FIX(create_cq_in, in, len, cq_context.c_eqn_or_apu_element,
		    SWDEV_EQN_BASE + sel % 5);
		FIX(create_cq_in, in, len, cq_umem_id, pick_id(f, SWDEV_KIND_UMEM, sel));
		FIX(create_cq_in, in, len, cq_context.dbr_umem_id,
		    pick_id(f, SWDEV_KIND_UMEM, sel + 1));
		break;
	case MDEVX_CMD_OP_CREATE_RQ:
		FIX(create_rq_in, in, len, ctx.cqn, pick_id(f, SWDEV_KIND_CQ, sel));
		FIX(create_rq_in, in, len, ctx.wq.pd, pick_id(f, SWDEV_KIND_PD, sel));
		FIX(create_rq_in, in, len, ctx.wq.wq_umem_id, pick_id(f, SWDEV_KIND_UMEM, sel));
		FIX(create_rq_in, in, len, ctx.wq.dbr_umem_id, pick_id(f, SWDEV_KIND_UMEM, sel));
		break;
	case MDEVX_CMD_OP_CREATE_RQT:
	case MDEVX_CMD_OP_MODIFY_RQT:
		for (i = MDEVX_ST_SZ_BYTES(create_rqt_in); i + 4 <= len; i += 4)
			MDEVX_SET(rq_num, in + i, rq_num,
				  pick_id(f, SWDEV_KIND_RQ, sel + (unsigned int)i));
		break;
	case MDEVX_CMD_OP_CREATE_TIR:
	case MDEVX_CMD_OP_MODIFY_TIR:
		FIX(create_tir_in, in, len, ctx.inline_rqn, pick_id(f, SWDEV_KIND_RQ, sel));
		FIX(create_tir_in, in, len, ctx.indirect_table, pick_id(f, SWDEV_KIND_RQT, sel));
		FIX(create_tir_in, in, len, ctx.transport_domain, pick_id(f, SWDEV_KIND_TD, sel));
		break;
	case MDEVX_CMD_OP_ALLOC_FLOW_COUNTER:
		FIX(alloc_flow_counter_in, in, len, pd,
		    sel & 1 ? pick_id(f, SWDEV_KIND_PD, sel) : 0);
		break;
	case MDEVX_CMD_OP_CREATE_FLOW_TABLE:
		FIX(create_flow_table_in, in, len, flow_table_context.table_miss_id,
		    pick_id(f, SWDEV_KIND_FLOW_TABLE, sel));
		break;
	case MDEVX_CMD_OP_CREATE_FLOW_GROUP:
		FIX(create_flow_group_in, in, len, table_id,
		    pick_id(f, SWDEV_KIND_FLOW_TABLE, sel));
		break;
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY:
		if (self != NULL && self->kind == SWDEV_KIND_FTE)
			break;
		grp = pick(f, SWDEV_KIND_FLOW_GROUP, sel);
		if (grp == NULL || (sel & 8)) {
			FIX(set_fte_in, in, len, table_id, pick_id(f, SWDEV_KIND_FLOW_TABLE, sel));
			FIX(set_fte_in, in, len, flow_context.group_id,
			    pick_id(f, SWDEV_KIND_FLOW_GROUP, sel));
		} else {
			/* a group, its table, an index in its range */
			FIX(set_fte_in, in, len, table_id, grp->u.fg.table->id);
			FIX(set_fte_in, in, len, flow_context.group_id, grp->id);
			FIX(set_fte_in, in, len, flow_index, grp->u.fg.start +
			    sel % (grp->u.fg.end - grp->u.fg.start + 1));
		}
		/* the first list entries: a TIR or a table, then a counter */
		if (len >= MDEVX_ST_SZ_BYTES(set_fte_in) + 32) {
			uint8_t *e = in + MDEVX_ST_SZ_BYTES(set_fte_in);
			size_t stride = MDEVX_GET(set_fte_in, in,
						  flow_context.extended_destination) ? 16 : 8;

			if (MDEVX_GET(dest_format, e, destination_type) ==
			    MDEVX_FLOW_DEST_TYPE_FLOW_TABLE)
				MDEVX_SET(dest_format, e, destination_id,
					  pick_id(f, SWDEV_KIND_FLOW_TABLE, sel + 1));
			else
				MDEVX_SET(dest_format, e, destination_id,
					  pick_id(f, SWDEV_KIND_TIR, sel));
			MDEVX_SET(flow_counter_list, e + stride, flow_counter_id,
				  pick_id(f, SWDEV_KIND_FLOW_COUNTER, sel) + sel % 4);
		}
		break;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY:
		if (self != NULL && self->kind == SWDEV_KIND_FTE) {
			FIX(query_fte_in, in, len, table_id, self->u.fte.table->id);
			FIX(query_fte_in, in, len, flow_index, self->id);
		}
		break;
	case MDEVX_CMD_OP_QUERY_FLOW_COUNTER:
		if (self != NULL && self->kind == SWDEV_KIND_FLOW_COUNTER) {
			FIX(query_flow_counter_in, in, len, flow_counter_id,
			    self->id + (sel % self->u.cnt.num));
			FIX(query_flow_counter_in, in, len, dump_to_memory, 0);
		}
		break;
	default:
		break;
	}
	/* modify/query name the handle's object in the 24-bit slot at 0x48 */
	if (self != NULL && self->kind != SWDEV_KIND_FLOW_COUNTER &&
	    self->kind != SWDEV_KIND_FLOW_TABLE && self->kind != SWDEV_KIND_FTE &&
	    op != MDEVX_CMD_OP_CREATE_RQ && op != MDEVX_CMD_OP_CREATE_CQ &&
	    op != MDEVX_CMD_OP_CREATE_TIR && op != MDEVX_CMD_OP_CREATE_RQT)
		FIX(query_tir_in, in, len, tirn, self->id);
	if (self != NULL && self->kind == SWDEV_KIND_FLOW_TABLE)
		FIX(query_flow_table_in, in, len, table_id, self->id);
}

/* A root rule on a live matcher, towards live objects of the file. */
static void
steer_flow(struct swdev_file *f, const uint8_t *p, size_t n, uint32_t handle)
{
	uint8_t value[MDEVX_ST_SZ_BYTES(fte_match_param)] = {0};
	struct swdev_flow_attr attr;
	struct swdev_obj *m, *d, *c;
	size_t len;
	uint32_t h;

	if (n < 12)
		return;
	len = n - 12 < sizeof(value) ? n - 12 : sizeof(value);
	memcpy(value, p + 12, len);
	memset(&attr, 0, sizeof(attr));
	m = pick(f, SWDEV_KIND_MATCHER, p[5]);
	d = pick(f, p[6] & 1 ? SWDEV_KIND_FLOW_TABLE : SWDEV_KIND_TIR, p[7]);
	c = pick(f, SWDEV_KIND_FLOW_COUNTER, p[8]);
	attr.dest = p[9] % 4;
	attr.dest_handle = d != NULL && !(p[10] & 1) ? d->handle : handle;
	attr.has_counter = p[10] >> 7;
	attr.counter_handle = c != NULL && !(p[10] & 2) ? c->handle : handle;
	attr.counter_offset = p[11] % 8;
	swdev_file_flow_create(f, m != NULL ? m->handle : handle, value,
			       m != NULL ? m->u.mt.mask_len : len, &attr, &h);
}

static void
verbs_op(struct swdev_file *f, const uint8_t *p, size_t n, uint32_t handle)
{
	uint32_t h, id;
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < 4 && i < n; i++)
		size = (size << 8) | p[i];
	switch (n > 4 ? p[4] % 9 : 0) {
	case 0:
		swdev_file_pd_alloc(f, &h, &id);
		break;
	case 1:
		swdev_file_uar_alloc(f, &h, &id);
		break;
	case 2:
		swdev_file_umem_reg(f, 0x10000, size, 0, &h, &id);
		break;
	case 3:
		swdev_file_query_eqn(f, (uint32_t)size & 7, &id);
		break;
	case 4:
		swdev_file_verbs_destroy(f, handle);
		break;
	case 5:
		swdev_file_umem_reg(f, UINT64_MAX - size, size, 0, &h, &id);
		break;
	case 6:
		/* a root matcher: priority, criteria, then the mask */
		if (n >= 8)
			swdev_file_matcher_create(f, p[5], p[6], p + 8, (n - 8) & ~(size_t)3, &h);
		break;
	case 7:
		steer_flow(f, p, n, handle);
		break;
	default:
		swdev_file_steer_destroy(f, handle, n > 5 && (p[5] & 1) ? SWDEV_KIND_FLOW :
					 SWDEV_KIND_MATCHER);
		break;
	}
}

/*
 * A frame into the port: the bytes as they are (mode 0), or laid over an
 * Ethernet header with an IPv4 (1), tagged IPv4 (2) or IPv6 (3) header
 * whose version and length fields agree with the frame, so that the
 * parser, the classification and the delivery are reached past their
 * first checks. A delivered frame must have reached a live TIR and an RQ
 * in RDY.
 */
static void
rx_frame(const uint8_t *p, size_t n)
{
	struct swdev_dev *dev = eng->devs[0];
	struct swdev_rx_info info;
	uint8_t mode = n > 0 ? p[0] % 4 : 0;
	uint8_t *fr = malloc(n ? n : 1);
	const struct swdev_obj *rq;
	size_t l3 = mode == 2 ? 18 : 14;
	int rc;

	if (fr == NULL)
		abort();
	if (n)
		memcpy(fr, p, n);
	if (mode != 0 && n >= l3 + 40) {
		fr[12] = mode == 2 ? 0x81 : mode == 3 ? 0x86 : 0x08;
		fr[13] = mode == 2 ? 0x00 : mode == 3 ? 0xdd : 0x00;
		if (mode == 2) {
			fr[16] = 0x08;
			fr[17] = 0x00;
		}
		if (mode == 3) {
			fr[l3] = (uint8_t)(0x60 | (fr[l3] & 0xf));
			fr[l3 + 4] = (uint8_t)((n - l3 - 40) >> 8);
			fr[l3 + 5] = (uint8_t)(n - l3 - 40);
		} else {
			fr[l3] = (uint8_t)(0x40 | (fr[l3] & 0xf));
			fr[l3 + 2] = (uint8_t)((n - l3) >> 8);
			fr[l3 + 3] = (uint8_t)(n - l3);
		}
	}
	rc = swdev_ctl_rx(eng, FUZZ_DEV, fr, n, &info);
	free(fr);
	if (rc != 0 && rc != EINVAL)
		abort();
	if (rc != 0 || info.verdict != SWDEV_RX_DELIVERED)
		return;
	rq = swdev_obj_by_id(dev, SWDEV_KIND_RQ, info.rqn);
	if (swdev_obj_by_id(dev, SWDEV_KIND_TIR, info.tirn) == NULL || rq == NULL ||
	    MDEVX_GET(rqc, rq->u.rq.rqc, state) != MDEVX_RQC_STATE_RDY)
		abort();
}

/* Statistics and a captured frame of a live RQ (or of any number). */
static void
rx_read(const uint8_t *p, size_t n, const uint32_t *v)
{
	struct swdev_capture_info ci;
	struct swdev_rq_stats st;
	uint32_t rqn = n > 0 && (p[0] & 1) ? v[1] : pick_id(files[v[0] & 1], SWDEV_KIND_RQ,
							    v[0] >> 1);
	size_t buflen = v[2] % 300;
	uint8_t *buf = malloc(buflen ? buflen : 1);
	int rc;

	if (buf == NULL)
		abort();
	rc = swdev_ctl_rq_stats(eng, FUZZ_DEV, rqn, &st);
	if ((rc != 0 && rc != ENOENT) || (rc == 0 && st.captured > SWDEV_CAPTURE_SLOTS))
		abort();
	rc = swdev_ctl_rq_capture(eng, FUZZ_DEV, rqn, v[3] % 70, buf, buflen, &ci);
	if ((rc != 0 && rc != ENOENT && rc != ERANGE) ||
	    (rc == 0 && (ci.caplen > SWDEV_CAPTURE_SNAPLEN || ci.caplen > ci.len)))
		abort();
	free(buf);
}

static void
control_op(uint8_t arg, const uint8_t *p, size_t n)
{
	uint32_t v[4] = {0};
	struct swdev_counts cnt;
	uint64_t ncmd;
	size_t i;

	for (i = 0; i < 16 && i < n; i++)
		v[i / 4] = (v[i / 4] << 8) | p[i];
	switch (arg % 6) {
	case 0:
		swdev_ctl_inject(eng, FUZZ_DEV, v[0] % 16384, v[1], v[2]);
		break;
	case 1:
		/* fail or delay a known opcode a few times */
		swdev_ctl_fault(eng, FUZZ_DEV, known_ops[v[0] % NUM_KNOWN], v[1] % 4,
				(uint8_t)v[2], v[3], v[2] >> 8);
		break;
	case 2:
		swdev_ctl_counts(eng, FUZZ_DEV, v[0] % 8, &cnt);
		swdev_ctl_cmd_count(eng, FUZZ_DEV, (uint16_t)v[1], &ncmd);
		break;
	case 3:
		swdev_file_take_delay(files[v[0] & 1]);
		break;
	case 4:
		rx_frame(p, n);
		break;
	default:
		rx_read(p, n, v);
		break;
	}
}

void
fuzz_swdev_one(const uint8_t *data, size_t size)
{
	uint8_t hdr[FUZZ_HDR_LEN] = {0};
	const uint8_t *mbox = data + (size < FUZZ_HDR_LEN ? size : FUZZ_HDR_LEN);
	size_t inlen = size > FUZZ_HDR_LEN ? size - FUZZ_HDR_LEN : 0;
	struct swdev_obj_info info;
	struct swdev_file *f;
	uint8_t *in, *out;
	uint32_t handle;
	size_t outlen;
	int rc = 0;

	if (eng == NULL || ++runs % FUZZ_RECREATE == 0) {
		fuzz_swdev_fini();
		engine_up();
	}
	memcpy(hdr, data, size < FUZZ_HDR_LEN ? size : FUZZ_HDR_LEN);
	f = files[hdr[1] & 1];
	handle = ((uint32_t)hdr[2] << 8 | hdr[3]) % 128;
	outlen = ((size_t)hdr[4] << 8 | hdr[5]);
	if (hdr[4] == 0xff)	/* now and then a large output (counter bulk queries) */
		outlen = (outlen & 0xff) << 12;
	if (outlen > FUZZ_MAX_OUT)
		outlen = FUZZ_MAX_OUT;
	/* exact-size heap copies so that ASan sees any overrun */
	in = malloc(inlen ? inlen : 1);
	out = malloc(outlen ? outlen : 1);
	if (in == NULL || out == NULL)
		abort();
	if (inlen)
		memcpy(in, mbox, inlen);
	if ((hdr[1] & 2) && inlen >= 2) {
		uint16_t op = known_ops[hdr[6] % NUM_KNOWN];

		in[0] = (uint8_t)(op >> 8);
		in[1] = (uint8_t)op;
	}
	if ((hdr[1] & 4) && (hdr[1] & 0x10) && (hdr[0] % 8 == 1 || hdr[0] % 8 == 2)) {
		/* aim at a live object of a kind that has query/modify commands */
		static const enum swdev_kind kinds[] = {
			SWDEV_KIND_CQ, SWDEV_KIND_RQ, SWDEV_KIND_RQT, SWDEV_KIND_TIR,
			SWDEV_KIND_FLOW_COUNTER, SWDEV_KIND_FLOW_TABLE, SWDEV_KIND_FTE,
		};
		struct swdev_obj *o = pick(f, kinds[hdr[6] % 7], hdr[3]);

		if (o != NULL)
			handle = o->handle;
	}
	if (hdr[1] & 4)
		fixup(f, in, inlen, handle, hdr[1] >> 3, hdr[0] % 8);
	switch (hdr[0] % 8) {
	case 0:
		rc = swdev_devx_obj_create(f, in, inlen, out, outlen, &info);
		break;
	case 1:
		rc = swdev_devx_obj_query(f, handle, in, inlen, out, outlen);
		break;
	case 2:
		rc = swdev_devx_obj_modify(f, handle, in, inlen, out, outlen);
		break;
	case 3:
		rc = swdev_devx_general_cmd(f, in, inlen, out, outlen);
		break;
	case 4:
		rc = swdev_devx_obj_destroy(f, handle);
		break;
	case 5:
		verbs_op(f, in, inlen, handle);
		break;
	case 6:
		control_op(hdr[6], in, inlen);
		break;
	default:
		/* the last holder goes away: everything of the file is destroyed */
		swdev_file_close(f);
		files[hdr[1] & 1] = swdev_file_open(eng, FUZZ_DEV);
		if (files[hdr[1] & 1] == NULL)
			abort();
		break;
	}
	fuzz_swdev_stats[hdr[0] % 8][rc == 0 ? 0 : rc == EREMOTEIO ? 1 : 2]++;
	free(in);
	free(out);
	fuzz_swdev_check();
}

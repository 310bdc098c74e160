/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_steer_autotest: libmdevx flow steering on the software device,
 * in one process:
 *  - DEVX flow tables, groups and entries: create, query read-back, the
 *    reference order (EBUSY), every attribute refused with its errno;
 *  - root matchers and rules: destinations and counters given as local
 *    objects, imports and compact references, EBUSY for what a rule uses,
 *    ESTALE for a revoked import (also racing the creation), removal by
 *    handle from a second context on the same uverbs file;
 *  - frames sent into the port (control channel): the flow counters, the
 *    RQ statistics and the port verdicts must match what the rules say;
 *  - the device's object counts back to where they started.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev starts a daemon in
 * test mode); skipped without it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdevx.h>
#include <mdevx_driver.h>
#include <mdevx_prm.h>
#include <swdev_client.h>

#include "mdevx_build_config.h"
#include "test.h"
#include "test_devstr.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR test_devstr(DEV)

/*
 * A root rule counts at an offset inside a bulk only where rdma-core has
 * MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET (60+): on an older libmlx5
 * the rdma backend refuses it (ENOTSUP), and the tests count with bulks
 * of one counter there, as a Debian 12 NIC does.
 */
static int
rule_counter_offset_ok(void)
{
	return MDEVX_HAVE_FLOW_COUNTER_OFFSET;
}

static struct mdevx_ctx *ctx1;	/* creates */
static struct mdevx_ctx *ctx2;	/* import of a dup of ctx1's command fd */
static struct swdev_ctl *ctl;
static size_t exp_size;
static struct swdev_counts base;	/* device counts with both contexts open */

/* ---------------- what a case made, released by its teardown ---------------- */

#define TRACK_MAX 64

static struct mdevx_obj *objs[TRACK_MAX];
static struct mdevx_matcher *matchers[TRACK_MAX];
static struct mdevx_rule *rules[TRACK_MAX];

static struct mdevx_obj *
track(struct mdevx_obj *o)
{
	int i;

	for (i = 0; o != NULL && i < TRACK_MAX; i++) {
		if (objs[i] == NULL) {
			objs[i] = o;
			break;
		}
	}
	return o;
}

static struct mdevx_matcher *
track_matcher(struct mdevx_matcher *m)
{
	int i;

	for (i = 0; m != NULL && i < TRACK_MAX; i++) {
		if (matchers[i] == NULL) {
			matchers[i] = m;
			break;
		}
	}
	return m;
}

static struct mdevx_rule *
track_rule(struct mdevx_rule *r)
{
	int i;

	for (i = 0; r != NULL && i < TRACK_MAX; i++) {
		if (rules[i] == NULL) {
			rules[i] = r;
			break;
		}
	}
	return r;
}

static void
untrack(const void *p)
{
	int i;

	for (i = 0; i < TRACK_MAX; i++) {
		if (objs[i] == p)
			objs[i] = NULL;
		if ((const void *)matchers[i] == p)
			matchers[i] = NULL;
		if ((const void *)rules[i] == p)
			rules[i] = NULL;
	}
}

/* Destroy (or unimport) what the case left, dependents first. */
static void
case_teardown(void)
{
	struct mdevx_obj_info info;
	int i, pass;

	for (i = TRACK_MAX - 1; i >= 0; i--)
		if (rules[i] != NULL && mdevx_rule_destroy(rules[i]) != 0)
			printf("teardown: rule: %s\n", strerror(errno));
	for (i = TRACK_MAX - 1; i >= 0; i--)
		if (matchers[i] != NULL && mdevx_matcher_destroy(matchers[i]) != 0)
			printf("teardown: matcher: %s\n", strerror(errno));
	memset(rules, 0, sizeof(rules));
	memset(matchers, 0, sizeof(matchers));
	/* Newest first; a second pass for what was still referenced. */
	for (pass = 0; pass < 2; pass++) {
		for (i = TRACK_MAX - 1; i >= 0; i--) {
			int rc;

			if (objs[i] == NULL)
				continue;
			rc = mdevx_obj_info(objs[i], &info);
			if ((rc == 0 && info.imported) || rc == -ESTALE)
				rc = mdevx_obj_unimport(objs[i]);
			else
				rc = mdevx_obj_destroy(objs[i]);
			if (rc == 0 || rc == -ENOENT)
				objs[i] = NULL;
			else if (pass == 1)
				printf("teardown: %s\n", strerror(-rc));
		}
	}
}

/* ---------------- frames and match buffers ---------------- */

#define MAC_DST 0x020000000001ull
#define MAC_SRC 0x020000000002ull
#define IP_SRC 0x0a000001u
#define IP_DST 0x0a000002u

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void
put_mac(uint8_t *p, uint64_t mac)
{
	put16(p, (uint16_t)(mac >> 32));
	put32(p + 2, (uint32_t)mac);
}

/* Ethernet + IPv4 + UDP to @p dport with @p payload bytes: the frame length. */
static size_t
udp_frame(uint8_t *f, uint16_t dport, size_t payload)
{
	uint32_t sum = 0;
	size_t i, len = 14 + 20 + 8 + payload;

	memset(f, 0, len);
	put_mac(f, MAC_DST);
	put_mac(f + 6, MAC_SRC);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(20 + 8 + payload));
	f[22] = 64;
	f[23] = 17;
	put32(f + 26, IP_SRC);
	put32(f + 30, IP_DST);
	for (i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(f + 24, (uint16_t)~sum);
	put16(f + 34, 40000);
	put16(f + 36, dport);
	put16(f + 38, (uint16_t)(8 + payload));
	for (i = 0; i < payload; i++)
		f[42 + i] = (uint8_t)i;
	return len;
}

/*
 * Outer ethertype, IP protocol and UDP destination port: mask or value,
 * made by the library's match helpers (test_match_fields() checks them
 * against the PRM layout).
 */
static void
udp_match(uint8_t *m, bool mask, uint16_t dport)
{
	struct mdevx_match mt;

	if (mdevx_match_init(&mt) != 0 ||
	    mdevx_match_set(&mt, MDEVX_MATCH_ETHERTYPE, 0x0800, 0xffff) != 0 ||
	    mdevx_match_set(&mt, MDEVX_MATCH_IP_PROTOCOL, 17, 0xff) != 0 ||
	    mdevx_match_set(&mt, MDEVX_MATCH_UDP_DPORT, dport, 0xffff) != 0)
		printf("udp_match: %s\n", strerror(errno));
	memcpy(m, mask ? mt.mask : mt.value, MDEVX_MATCH_PARAM_LEN);
}

/*
 * The PRM bytes of field @p f set to all ones of @p width bits in @p buf,
 * written with the PRM layout macros (independently of mdevx_match_set()).
 */
static void
prm_field_ones(uint8_t *buf, enum mdevx_match_field f)
{
	uint8_t *ip;

	switch (f) {
	case MDEVX_MATCH_SMAC:
		MDEVX_SET(fte_match_param, buf, outer_headers.smac_47_16, UINT32_MAX);
		MDEVX_SET(fte_match_param, buf, outer_headers.smac_15_0, 0xffff);
		break;
	case MDEVX_MATCH_DMAC:
		MDEVX_SET(fte_match_param, buf, outer_headers.dmac_47_16, UINT32_MAX);
		MDEVX_SET(fte_match_param, buf, outer_headers.dmac_15_0, 0xffff);
		break;
#define ONES(id, fld) case id: \
		MDEVX_SET(fte_match_param, buf, outer_headers.fld, UINT32_MAX); break
	ONES(MDEVX_MATCH_ETHERTYPE, ethertype);
	ONES(MDEVX_MATCH_VLAN_PRIO, first_prio);
	ONES(MDEVX_MATCH_VLAN_CFI, first_cfi);
	ONES(MDEVX_MATCH_VLAN_ID, first_vid);
	ONES(MDEVX_MATCH_CVLAN_TAG, cvlan_tag);
	ONES(MDEVX_MATCH_SVLAN_TAG, svlan_tag);
	ONES(MDEVX_MATCH_IP_VERSION, ip_version);
	ONES(MDEVX_MATCH_IP_PROTOCOL, ip_protocol);
	ONES(MDEVX_MATCH_IP_DSCP, ip_dscp);
	ONES(MDEVX_MATCH_IP_ECN, ip_ecn);
	ONES(MDEVX_MATCH_IP_TTL, ttl_hoplimit);
	ONES(MDEVX_MATCH_FRAG, frag);
	ONES(MDEVX_MATCH_TCP_SPORT, tcp_sport);
	ONES(MDEVX_MATCH_TCP_DPORT, tcp_dport);
	ONES(MDEVX_MATCH_TCP_FLAGS, tcp_flags);
	ONES(MDEVX_MATCH_UDP_SPORT, udp_sport);
	ONES(MDEVX_MATCH_UDP_DPORT, udp_dport);
#undef ONES
	case MDEVX_MATCH_SRC_IPV4:
	case MDEVX_MATCH_DST_IPV4:
		ip = f == MDEVX_MATCH_SRC_IPV4 ?
		     MDEVX_ADDR_OF(fte_match_param, buf, outer_headers.src_ipv4_src_ipv6) :
		     MDEVX_ADDR_OF(fte_match_param, buf, outer_headers.dst_ipv4_dst_ipv6);
		memset(ip + 12, 0xff, 4);
		break;
	default:
		break;
	}
}

#define OUTER_LEN 64u

/* ---------------- suite ---------------- */

static int
suite_setup(void)
{
	const char *sock = getenv("SWDEV_SOCKET");
	int fd;

	if (sock == NULL || sock[0] == '\0') {
		printf("SWDEV_SOCKET is not set: no software device, steering tests skipped "
		       "(run through devtools/run-autotest.sh --swdev)\n");
		return TEST_SKIPPED;
	}
	ctl = swdev_ctl_open(sock);
	if (ctl == NULL) {
		printf("cannot open the control channel of %s: %s\n", sock, strerror(errno));
		return TEST_FAILED;
	}
	ctx1 = mdevx_open(DEVSTR);
	if (ctx1 == NULL) {
		printf("mdevx_open(%s): %s\n", DEVSTR, strerror(errno));
		return TEST_FAILED;
	}
	fd = dup(mdevx_cmd_fd(ctx1));
	if (fd < 0)
		return TEST_FAILED;
	ctx2 = mdevx_import_device(DEVSTR, fd);
	if (ctx2 == NULL) {
		printf("mdevx_import_device: %s\n", strerror(errno));
		close(fd);
		return TEST_FAILED;
	}
	if (mdevx_export_size(ctx1, &exp_size) != 0)
		return TEST_FAILED;
	/* After the opens: libmlx5 allocates a UAR for each context it opens. */
	if (swdev_ctl_get_counts(ctl, DEV, 0, &base) != 0)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	case_teardown();
	if (ctx2 != NULL && mdevx_close(ctx2) != 0)
		printf("closing the imported context failed: %s\n", strerror(errno));
	if (ctx1 != NULL && mdevx_close(ctx1) != 0)
		printf("closing the context failed: %s\n", strerror(errno));
	ctx1 = ctx2 = NULL;
	if (ctl != NULL)
		swdev_ctl_close(ctl);
	ctl = NULL;
}

/* Objects of swdev kind @p kind on the device now, minus the suite's start. */
static int
live(enum swdev_kind kind)
{
	struct swdev_counts c;

	if (swdev_ctl_get_counts(ctl, DEV, 0, &c) != 0)
		return -1;
	return (int)c.by_kind[kind] - (int)base.by_kind[kind];
}

/* A TIR straight to one RQ, with everything it needs (all tracked). */
struct rx_env {
	struct mdevx_obj *rq;
	struct mdevx_obj *tir;
	uint32_t rqn;
	uint32_t tirn;
};

static int
rx_env_make(struct rx_env *e)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 6, .eq_vector = 0 };
	struct mdevx_rq_attr rqa = { .log_wq_size = 6, .log_wq_stride = 6 };
	struct mdevx_tir_attr ta = { .disp_type = MDEVX_TIR_DISP_DIRECT };
	struct mdevx_obj *td, *pd, *cq;

	memset(e, 0, sizeof(*e));
	td = track(mdevx_td_alloc(ctx1));
	TEST_ASSERT_NOT_NULL(td, "td: %s", strerror(errno));
	pd = track(mdevx_pd_alloc(ctx1));
	TEST_ASSERT_NOT_NULL(pd, "pd: %s", strerror(errno));
	cq = track(mdevx_cq_create(ctx1, &cqa));
	TEST_ASSERT_NOT_NULL(cq, "cq: %s", strerror(errno));
	rqa.cq = cq;
	rqa.pd = pd;
	e->rq = track(mdevx_rq_create(ctx1, &rqa));
	TEST_ASSERT_NOT_NULL(e->rq, "rq: %s", strerror(errno));
	e->rqn = test_obj_id(e->rq);
	ta.inline_rqn = e->rqn;
	ta.transport_domain = test_obj_id(td);
	e->tir = track(mdevx_tir_create(ctx1, &ta));
	TEST_ASSERT_NOT_NULL(e->tir, "tir: %s", strerror(errno));
	e->tirn = test_obj_id(e->tir);
	return TEST_SUCCESS;
}

static struct mdevx_matcher *
udp_matcher(struct mdevx_ctx *ctx, uint16_t prio)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_matcher_attr ma = {
		.priority = prio,
		.match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask,
		.mask_len = OUTER_LEN,
	};

	udp_match(mask, true, 0);
	return track_matcher(mdevx_matcher_create(ctx, &ma));
}

/* A rule on @p m for UDP port @p dport (value buffer owned by the caller). */
static struct mdevx_rule *
udp_rule(struct mdevx_matcher *m, struct mdevx_rule_attr *ra, uint8_t *value, uint16_t dport)
{
	udp_match(value, false, dport);
	ra->value = value;
	ra->value_len = OUTER_LEN;
	return track_rule(mdevx_rule_create(m, ra));
}

/* ---------------- DEVX flow tables, groups, entries ---------------- */

static int
test_flow_table_query(void)
{
	struct mdevx_flow_table_attr a2 = { .level = 2, .log_size = 3 };
	struct mdevx_flow_table_attr a1 = { .level = 1, .log_size = 4, .miss_fwd = 1 };
	struct mdevx_flow_table_attr got;
	struct mdevx_obj *t1, *t2;
	struct mdevx_obj_info info;
	int nt = live(SWDEV_KIND_FLOW_TABLE);

	t2 = track(mdevx_flow_table_create(ctx1, &a2));
	TEST_ASSERT_NOT_NULL(t2, "table level 2: %s", strerror(errno));
	a1.miss_table_id = test_obj_id(t2);
	t1 = track(mdevx_flow_table_create(ctx1, &a1));
	TEST_ASSERT_NOT_NULL(t1, "table level 1: %s", strerror(errno));
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW_TABLE), nt + 2, "two tables on the device");
	TEST_ASSERT_SUCCESS(mdevx_obj_info(t1, &info), "info");
	TEST_ASSERT_EQUAL(info.kind, MDEVX_OBJ_FLOW_TABLE, "kind");
	TEST_ASSERT(strcmp(mdevx_obj_kind_name(info.kind), "flow_table") == 0, "kind name");
	TEST_ASSERT_SUCCESS(mdevx_flow_table_query(t1, &got), "query level 1");
	TEST_ASSERT_EQUAL(got.level, 1, "level");
	TEST_ASSERT_EQUAL(got.log_size, 4, "log_size");
	TEST_ASSERT_EQUAL(got.miss_fwd, 1, "miss_fwd");
	TEST_ASSERT_EQUAL(got.miss_table_id, a1.miss_table_id, "miss table %#x", got.miss_table_id);
	TEST_ASSERT_SUCCESS(mdevx_flow_table_query(t2, &got), "query level 2");
	TEST_ASSERT_EQUAL(got.level, 2, "level");
	TEST_ASSERT_EQUAL(got.log_size, 3, "log_size");
	TEST_ASSERT_EQUAL(got.miss_fwd, 0, "miss_fwd");
	TEST_ASSERT_EQUAL(got.miss_table_id, 0u, "miss table");
	TEST_ASSERT_RC_ERRNO(mdevx_flow_table_query(t1, NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_flow_table_query(NULL, &got), EINVAL);
	{
		struct mdevx_obj *cnt = track(mdevx_counter_alloc(ctx1, 1));

		TEST_ASSERT_NOT_NULL(cnt, "counter");
		TEST_ASSERT_RC_ERRNO(mdevx_flow_table_query(cnt, &got), EPROTOTYPE);
	}
	/* Not exportable. */
	{
		uint8_t buf[256];

		TEST_ASSERT(exp_size <= sizeof(buf), "export size %zu", exp_size);
		TEST_ASSERT_RC_ERRNO(mdevx_obj_export(t1, buf, sizeof(buf)), ENOTSUP);
	}
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(t1), "destroy level 1");
	untrack(t1);
	TEST_ASSERT_RC_ERRNO(mdevx_flow_table_query(t1, &got), ENOENT);
	return TEST_SUCCESS;
}

static int
test_flow_group_fte(void)
{
	struct mdevx_flow_table_attr ta = { .level = 1, .log_size = 4 };
	struct mdevx_flow_table_attr ta2 = { .level = 2, .log_size = 2 };
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_flow_group_attr ga = {
		.start_index = 0, .end_index = 7,
		.match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask, .mask_len = OUTER_LEN,
	};
	struct mdevx_fte_attr fa;
	struct mdevx_obj *t, *t2, *g, *fte, *fte2, *cnt;
	struct mdevx_obj_info info;
	struct rx_env e;
	int nfte = live(SWDEV_KIND_FTE), ngrp = live(SWDEV_KIND_FLOW_GROUP);

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	udp_match(mask, true, 0);
	t = track(mdevx_flow_table_create(ctx1, &ta));
	TEST_ASSERT_NOT_NULL(t, "table: %s", strerror(errno));
	t2 = track(mdevx_flow_table_create(ctx1, &ta2));
	TEST_ASSERT_NOT_NULL(t2, "table 2: %s", strerror(errno));
	g = track(mdevx_flow_group_create(t, &ga));
	TEST_ASSERT_NOT_NULL(g, "group: %s", strerror(errno));
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW_GROUP), ngrp + 1, "group on the device");
	cnt = track(mdevx_counter_alloc(ctx1, 1));
	TEST_ASSERT_NOT_NULL(cnt, "counter");

	/* To the TIR, counted. */
	memset(&fa, 0, sizeof(fa));
	udp_match(value, false, 4791);
	fa.flow_index = 3;
	fa.action = MDEVX_FTE_ACTION_FWD_DEST | MDEVX_FTE_ACTION_COUNT;
	fa.value = value;
	fa.value_len = OUTER_LEN;
	fa.ndests = 1;
	fa.dests[0].type = MDEVX_FTE_DEST_TIR;
	fa.dests[0].id = e.tirn;
	fa.ncounters = 1;
	fa.counter_ids[0] = test_obj_id(cnt);
	fte = track(mdevx_fte_create(t, g, &fa));
	TEST_ASSERT_NOT_NULL(fte, "entry: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(fte, &info), "info");
	TEST_ASSERT_EQUAL(info.kind, MDEVX_OBJ_FTE, "kind");
	TEST_ASSERT_EQUAL(info.id, 3u, "id = flow index");
	/* To a deeper table. */
	udp_match(value, false, 4792);
	fa.flow_index = 4;
	fa.action = MDEVX_FTE_ACTION_FWD_DEST;
	fa.ncounters = 0;
	fa.dests[0].type = MDEVX_FTE_DEST_FLOW_TABLE;
	fa.dests[0].id = test_obj_id(t2);
	fte2 = track(mdevx_fte_create(t, g, &fa));
	TEST_ASSERT_NOT_NULL(fte2, "entry to a table: %s", strerror(errno));
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FTE), nfte + 2, "entries on the device");

	/* Destroy order: what is used is EBUSY, in the library. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(g), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(t), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(fte), "entry");
	untrack(fte);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(fte2), "entry 2");
	untrack(fte2);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FTE), nfte, "entries gone");
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(t), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(g), "group");
	untrack(g);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(t), "table");
	untrack(t);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW_GROUP), ngrp, "group gone");
	return TEST_SUCCESS;
}

static int
test_flow_bad_attrs(void)
{
	struct mdevx_flow_table_attr ta = { .level = 2, .log_size = 3 };
	struct mdevx_flow_table_attr tlow = { .level = 1, .log_size = 3 };
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_flow_group_attr ga = {
		.start_index = 0, .end_index = 3,
		.match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask, .mask_len = OUTER_LEN,
	};
	struct mdevx_fte_attr fa;
	struct mdevx_obj *t, *tl, *g, *t_other, *g_other;
	int nobjs = mdevx_ctx_nb_objs(ctx1);

	udp_match(mask, true, 0);
	/* Tables. */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(ctx1, NULL)), EINVAL);
	ta.level = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(ctx1, &ta)), EINVAL);
	ta.level = 2;
	ta.log_size = 25;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(ctx1, &ta)), EINVAL);
	ta.log_size = 3;
	ta.miss_table_id = 5;	/* without miss_fwd */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(ctx1, &ta)), EINVAL);
	ta.miss_table_id = 0;
	ta.miss_fwd = 2;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(ctx1, &ta)), EINVAL);
	ta.miss_fwd = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_table_create(NULL, &ta)), EINVAL);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx1), nobjs, "nothing made");
	t = track(mdevx_flow_table_create(ctx1, &ta));
	TEST_ASSERT_NOT_NULL(t, "table: %s", strerror(errno));
	tl = track(mdevx_flow_table_create(ctx1, &tlow));
	TEST_ASSERT_NOT_NULL(tl, "table level 1: %s", strerror(errno));

	/* Groups. */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, NULL)), EINVAL);
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(NULL, &ga)), EINVAL);
	ga.end_index = 8;	/* past a table of 8 */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, &ga)), EINVAL);
	ga.start_index = 3;
	ga.end_index = 2;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, &ga)), EINVAL);
	ga.start_index = 0;
	ga.end_index = 3;
	ga.match_criteria_enable = MDEVX_MATCH_OUTER | 0x2;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, &ga)), EINVAL);
	ga.match_criteria_enable = MDEVX_MATCH_OUTER;
	ga.mask_len = MDEVX_MATCH_PARAM_LEN;
	mask[100] = 1;		/* misc parameters */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, &ga)), EINVAL);
	mask[100] = 0;
	ga.mask_len = MDEVX_MATCH_PARAM_LEN + 4;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(t, &ga)), EINVAL);
	ga.mask_len = OUTER_LEN;
	{
		struct mdevx_obj *cnt = track(mdevx_counter_alloc(ctx1, 1));

		TEST_ASSERT_NOT_NULL(cnt, "counter");
		TEST_ASSERT_NULL_ERRNO(track(mdevx_flow_group_create(cnt, &ga)), EPROTOTYPE);
	}
	g = track(mdevx_flow_group_create(t, &ga));
	TEST_ASSERT_NOT_NULL(g, "group: %s", strerror(errno));

	/* Entries. */
	memset(&fa, 0, sizeof(fa));
	udp_match(value, false, 53);
	fa.flow_index = 1;
	fa.action = MDEVX_FTE_ACTION_DROP;
	fa.value = value;
	fa.value_len = OUTER_LEN;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, NULL)), EINVAL);
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(tl, g, &fa)), EINVAL);	/* group of t */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(g, g, &fa)), EPROTOTYPE);
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, t, &fa)), EPROTOTYPE);
	fa.flow_index = 4;	/* past the group */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.flow_index = 1;
	fa.action = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.action = MDEVX_FTE_ACTION_DROP | MDEVX_FTE_ACTION_FWD_DEST;
	fa.ndests = 1;
	fa.dests[0].type = MDEVX_FTE_DEST_FLOW_TABLE;
	fa.dests[0].id = test_obj_id(tl);
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.action = MDEVX_FTE_ACTION_FWD_DEST;
	fa.ndests = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.ndests = MDEVX_FTE_MAX_DESTS + 1;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.ndests = 1;
	fa.dests[0].type = 7;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.dests[0].type = MDEVX_FTE_DEST_FLOW_TABLE;
	fa.action = MDEVX_FTE_ACTION_DROP | MDEVX_FTE_ACTION_COUNT;	/* no counter */
	fa.ndests = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	fa.action = MDEVX_FTE_ACTION_DROP;
	fa.value_len = MDEVX_MATCH_PARAM_LEN;
	value[200] = 1;		/* outside the outer headers */
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	value[200] = 0;
	fa.value_len = OUTER_LEN;
	/* A destination table that is not deeper: the device refuses it. */
	fa.action = MDEVX_FTE_ACTION_FWD_DEST;
	fa.ndests = 1;
	fa.dests[0].type = MDEVX_FTE_DEST_FLOW_TABLE;
	fa.dests[0].id = test_obj_id(tl);
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g, &fa)), EINVAL);
	/* Objects of another context. */
	t_other = track(mdevx_flow_table_create(ctx2, &ta));
	TEST_ASSERT_NOT_NULL(t_other, "table on ctx2: %s", strerror(errno));
	g_other = track(mdevx_flow_group_create(t_other, &ga));
	TEST_ASSERT_NOT_NULL(g_other, "group on ctx2: %s", strerror(errno));
	fa.action = MDEVX_FTE_ACTION_DROP;
	fa.ndests = 0;
	TEST_ASSERT_NULL_ERRNO(track(mdevx_fte_create(t, g_other, &fa)), EINVAL);
	/* Nothing was left behind by the refusals. */
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FTE), 0, "entries on the device");
	return TEST_SUCCESS;
}

/* ---------------- root matchers and rules ---------------- */

/*
 * Each field of the match helpers: all ones land exactly on the PRM
 * field's bits (in mask and value), a value reads back, and a field
 * cleared with mask 0 is gone; a mask wider than the field, value bits
 * outside the mask, no such field and NULL are EINVAL with the match
 * unchanged. IPv6 addresses land on their 16 bytes.
 */
#define SAME_BYTES(a, b, n, ...) TEST_ASSERT(memcmp(a, b, n) == 0, __VA_ARGS__)

static int
test_match_fields(void)
{
	static const uint8_t widths[MDEVX_MATCH_FIELD_MAX] = {
		48, 48, 16, 3, 1, 12, 1, 1, 4, 8, 6, 2, 8, 1, 32, 32, 16, 16, 9, 16, 16,
	};
	uint8_t ref[MDEVX_MATCH_PARAM_LEN], a6[16], m6[16];
	struct mdevx_match m, copy;
	uint64_t v, mk;

	for (int f = 0; f < MDEVX_MATCH_FIELD_MAX; f++) {
		uint64_t ones = (UINT64_C(1) << widths[f]) - 1;
		uint64_t val = UINT64_C(0x5a5a5a5a5a5a) & ones;

		memset(ref, 0, sizeof(ref));
		prm_field_ones(ref, (enum mdevx_match_field)f);
		TEST_ASSERT_SUCCESS(mdevx_match_init(&m), "init");
		TEST_ASSERT_SUCCESS(mdevx_match_set(&m, (enum mdevx_match_field)f, ones, ones),
				    "field %d: %s", f, strerror(errno));
		SAME_BYTES(m.mask, ref, sizeof(ref), "field %d's mask bits", f);
		SAME_BYTES(m.value, ref, sizeof(ref), "field %d's value bits",
					      f);
		TEST_ASSERT_SUCCESS(mdevx_match_set(&m, (enum mdevx_match_field)f, val, ones),
				    "field %d", f);
		TEST_ASSERT_SUCCESS(mdevx_match_get(&m, (enum mdevx_match_field)f, &v, &mk),
				    "get %d", f);
		TEST_ASSERT(v == val && mk == ones, "field %d: %#" PRIx64 "/%#" PRIx64, f, v, mk);
		/* Wider than the field; value outside the mask: refused, nothing changed. */
		memcpy(&copy, &m, sizeof(m));
		TEST_ASSERT_RC_ERRNO(mdevx_match_set(&m, (enum mdevx_match_field)f, 0,
						     ones << 1 | 1), EINVAL);
		TEST_ASSERT_RC_ERRNO(mdevx_match_set(&m, (enum mdevx_match_field)f, 1, 0), EINVAL);
		SAME_BYTES(&m, &copy, sizeof(m), "field %d: a refusal wrote", f);
		TEST_ASSERT_SUCCESS(mdevx_match_set(&m, (enum mdevx_match_field)f, 0, 0), "clear");
		memset(ref, 0, sizeof(ref));
		SAME_BYTES(m.mask, ref, sizeof(ref), "field %d not cleared", f);
		/* Among fields all set: clearing one leaves every other bit as it was. */
		memset(&m, 0xff, sizeof(m));
		TEST_ASSERT_SUCCESS(mdevx_match_set(&m, (enum mdevx_match_field)f, 0, 0), "clear");
		prm_field_ones(ref, (enum mdevx_match_field)f);
		for (size_t b = 0; b < sizeof(ref); b++)
			TEST_ASSERT((m.mask[b] ^ ref[b]) == 0xff && (m.value[b] ^ ref[b]) == 0xff,
				    "field %d: byte %zu of its neighbours changed", f, b);
	}
	TEST_ASSERT_RC_ERRNO(mdevx_match_set(&m, MDEVX_MATCH_FIELD_MAX, 0, 0), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_match_get(&m, MDEVX_MATCH_FIELD_MAX, &v, &mk), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_match_set(NULL, MDEVX_MATCH_UDP_DPORT, 0, 0), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_match_get(&m, MDEVX_MATCH_UDP_DPORT, NULL, &mk), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_match_init(NULL), EINVAL);
	/* 2001:db8::1/64 as the destination: its 16 bytes, the source untouched. */
	memset(a6, 0, sizeof(a6));
	memset(m6, 0, sizeof(m6));
	a6[0] = 0x20, a6[1] = 0x01, a6[2] = 0x0d, a6[3] = 0xb8;
	memset(m6, 0xff, 8);
	TEST_ASSERT_SUCCESS(mdevx_match_init(&m), "init");
	TEST_ASSERT_SUCCESS(mdevx_match_set_ipv6(&m, 1, a6, m6), "ipv6: %s", strerror(errno));
	SAME_BYTES(MDEVX_ADDR_OF(fte_match_param, m.value,
						    outer_headers.dst_ipv4_dst_ipv6), a6, 16, "dst");
	SAME_BYTES(MDEVX_ADDR_OF(fte_match_param, m.mask,
						    outer_headers.dst_ipv4_dst_ipv6), m6, 16, "mask");
	TEST_ASSERT_SUCCESS(mdevx_match_get(&m, MDEVX_MATCH_SRC_IPV4, &v, &mk), "src");
	TEST_ASSERT(v == 0 && mk == 0, "the source was written");
	a6[15] = 1;	/* outside the /64 */
	TEST_ASSERT_RC_ERRNO(mdevx_match_set_ipv6(&m, 0, a6, m6), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_match_set_ipv6(&m, 0, NULL, m6), EINVAL);
	return TEST_SUCCESS;
}

static int
test_matcher_bad_attrs(void)
{
	uint8_t mask[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_matcher_attr ma = {
		.priority = 1,
		.match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask,
		.mask_len = OUTER_LEN,
	};
	int n = live(SWDEV_KIND_MATCHER);

	udp_match(mask, true, 0);
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, NULL)), EINVAL);
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(NULL, &ma)), EINVAL);
	ma.mask_len = 6;
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	ma.mask_len = 0;
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	ma.mask_len = MDEVX_MATCH_PARAM_LEN + 4;
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	ma.mask_len = MDEVX_MATCH_PARAM_LEN;
	mask[MDEVX_MATCH_PARAM_LEN - 1] = 0xff;		/* not outer */
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	mask[MDEVX_MATCH_PARAM_LEN - 1] = 0;
	ma.match_criteria_enable = 0x4;			/* inner */
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	ma.match_criteria_enable = 0;			/* mask bits, no criteria */
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = NULL;
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EINVAL);
	/*
	 * A mask on outer bits the device does not parse (the reserved bits
	 * before ttl_hoplimit, bytes 24..26): the device says so.
	 */
	ma.mask = mask;
	mask[MDEVX_BYTE_OFF(fte_match_param, outer_headers.reserved_at_c0)] = 0xff;
	TEST_ASSERT_NULL_ERRNO(track_matcher(mdevx_matcher_create(ctx1, &ma)), EOPNOTSUPP);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_MATCHER), n, "no matcher made");
	TEST_ASSERT_RC_ERRNO(mdevx_matcher_destroy(NULL), EINVAL);
	return TEST_SUCCESS;
}

static int
test_rule_basic(void)
{
	uint8_t v1[MDEVX_MATCH_PARAM_LEN], v2[MDEVX_MATCH_PARAM_LEN], v3[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_rule_attr ra;
	struct mdevx_matcher *m;
	struct mdevx_rule *r1, *r2, *r3;
	struct mdevx_obj *cnt;
	struct rx_env e;
	int nobjs, nflows = live(SWDEV_KIND_FLOW);
	uint32_t h;

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	cnt = track(mdevx_counter_alloc(ctx1, 1));
	TEST_ASSERT_NOT_NULL(cnt, "counter");
	nobjs = mdevx_ctx_nb_objs(ctx1);
	m = udp_matcher(ctx1, 2);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx1), nobjs + 1, "a matcher counts on its context");
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_MATCHER), 1, "matcher on the device");

	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = e.tir;
	ra.counter = cnt;
	r1 = udp_rule(m, &ra, v1, 4789);
	TEST_ASSERT_NOT_NULL(r1, "rule to the TIR: %s", strerror(errno));
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx1), nobjs + 2, "a rule counts on its context");
	h = mdevx_rule_handle(r1);
	TEST_ASSERT_NOT_EQUAL(h, UINT32_MAX, "handle: %s", strerror(errno));
	/* The same value again on this matcher. */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EEXIST);
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_DROP;
	r2 = udp_rule(m, &ra, v2, 4790);
	TEST_ASSERT_NOT_NULL(r2, "drop rule: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_NONE;
	ra.counter = cnt;
	r3 = udp_rule(m, &ra, v3, 4791);
	TEST_ASSERT_NOT_NULL(r3, "count-only rule: %s", strerror(errno));
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows + 3, "rules on the device");

	/* What rules use cannot go. */
	TEST_ASSERT_RC_ERRNO(mdevx_matcher_destroy(m), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(e.tir), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(cnt), EBUSY);
	TEST_ASSERT_RC_ERRNO(mdevx_close(ctx1), EBUSY);

	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(r1), "rule 1");
	untrack(r1);
	TEST_ASSERT_RC_ERRNO(mdevx_rule_destroy(r1), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_rule_handle(r1), UINT32_MAX, "handle of a destroyed rule");
	TEST_ASSERT_EQUAL(errno, ENOENT, "errno");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(e.tir), "the TIR is free now");
	untrack(e.tir);
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(cnt), EBUSY);	/* r3 counts on it */
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(r2), "rule 2");
	untrack(r2);
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(r3), "rule 3");
	untrack(r3);
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(m), "matcher");
	untrack(m);
	TEST_ASSERT_RC_ERRNO(mdevx_matcher_destroy(m), ENOENT);
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx1), nobjs - 1, "TIR, matcher and rules gone");
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows, "no rule left");
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_MATCHER), 0, "no matcher left");
	return TEST_SUCCESS;
}

static int
test_rule_bad_attrs(void)
{
	uint8_t v[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_rule_attr ra;
	struct mdevx_matcher *m;
	struct mdevx_flow_table_attr fta = { .level = 1, .log_size = 2 };
	struct mdevx_obj *cnt, *cnt2, *t2;
	struct rx_env e;
	uint32_t bulk = 128;
	int nflows = live(SWDEV_KIND_FLOW);

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	cnt = track(mdevx_counter_alloc(ctx1, bulk));
	if (cnt == NULL) {
		bulk = 1;
		cnt = track(mdevx_counter_alloc(ctx1, bulk));
	}
	TEST_ASSERT_NOT_NULL(cnt, "counter");
	m = udp_matcher(ctx1, 3);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	udp_match(v, false, 1000);

	memset(&ra, 0, sizeof(ra));
	ra.value = v;
	ra.value_len = OUTER_LEN;
	ra.dest = MDEVX_RULE_DEST_OBJ;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(NULL, &ra)), EINVAL);
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, NULL)), EINVAL);
	/* No destination. */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.dest_obj = cnt;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EPROTOTYPE);
	ra.dest_obj = e.tir;
	ra.value_len = OUTER_LEN - 4;		/* not the mask's length */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.value_len = OUTER_LEN;
	ra.dest = 7;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.dest = MDEVX_RULE_DEST_DROP;					/* with dest_obj */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.dest_obj = NULL;
	ra.dest = MDEVX_RULE_DEST_NONE;					/* counts nothing */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.dest = MDEVX_RULE_DEST_DROP;
	ra.counter_offset = 1;						/* no counter */
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	/* Counter offset past the bulk: refused before the device. */
	ra.counter = cnt;
	ra.counter_offset = bulk;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.counter_offset = UINT32_MAX;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	ra.counter = e.tir;
	ra.counter_offset = 0;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EPROTOTYPE);
	/* Objects of another context (same uverbs file, still not the matcher's). */
	cnt2 = track(mdevx_counter_alloc(ctx2, 1));
	TEST_ASSERT_NOT_NULL(cnt2, "counter on ctx2");
	ra.counter = cnt2;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	t2 = track(mdevx_flow_table_create(ctx2, &fta));
	TEST_ASSERT_NOT_NULL(t2, "table on ctx2: %s", strerror(errno));
	ra.counter = NULL;
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = t2;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), EINVAL);
	/* Destroyed objects. */
	ra.dest_obj = e.tir;
	ra.counter = cnt;
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt2), "counter on ctx2");
	untrack(cnt2);
	ra.counter = cnt2;
	TEST_ASSERT_NULL_ERRNO(track_rule(mdevx_rule_create(m, &ra)), ENOENT);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows, "no rule made");
	/* Every refusal gave its references back. */
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(m), "matcher");
	untrack(m);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(cnt), "counter");
	untrack(cnt);
	return TEST_SUCCESS;
}

/* Export @p obj from ctx1 into a buffer of exp_size bytes. */
static int
export_obj(struct mdevx_obj *obj, uint8_t *buf)
{
	return mdevx_obj_export(obj, buf, exp_size);
}

static int
test_rule_imports(void)
{
	uint8_t v1[MDEVX_MATCH_PARAM_LEN], v2[MDEVX_MATCH_PARAM_LEN];
	uint8_t tbuf[256], cbuf[256];
	struct mdevx_obj_ref tref, cref;
	struct mdevx_obj *cnt, *timp, *cimp;
	struct mdevx_rule_attr ra;
	struct mdevx_matcher *m;
	struct mdevx_rule *r1, *r2;
	struct rx_env e;
	uint32_t bulk = 128;

	TEST_ASSERT(exp_size <= sizeof(tbuf), "export size %zu", exp_size);
	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	cnt = track(mdevx_counter_alloc(ctx1, bulk));
	if (cnt == NULL) {
		bulk = 1;
		cnt = track(mdevx_counter_alloc(ctx1, bulk));
	}
	TEST_ASSERT_NOT_NULL(cnt, "counter");
	TEST_ASSERT_SUCCESS(export_obj(e.tir, tbuf), "export TIR");
	TEST_ASSERT_SUCCESS(export_obj(cnt, cbuf), "export counter");
	m = udp_matcher(ctx2, 4);
	TEST_ASSERT_NOT_NULL(m, "matcher on ctx2: %s", strerror(errno));

	/* Compact references. */
	TEST_ASSERT_SUCCESS(mdevx_obj_import_ref(ctx2, tbuf, exp_size, MDEVX_OBJ_TIR, &tref),
			    "TIR ref");
	TEST_ASSERT_SUCCESS(mdevx_obj_import_ref(ctx2, cbuf, exp_size, MDEVX_OBJ_FLOW_COUNTER,
						 &cref), "counter ref");
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_ref = &tref;
	ra.counter_ref = &cref;
	ra.counter_offset = bulk;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5000), EINVAL);
	ra.dest_obj = e.tir;
	ra.counter_offset = bulk - 1;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5000), EINVAL);	/* both given */
	ra.dest_obj = NULL;
	ra.dest_ref = &cref;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5000), EPROTOTYPE);
	ra.dest_ref = &tref;
	if (!rule_counter_offset_ok() && ra.counter_offset != 0) {
		TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5000), ENOTSUP);
		ra.counter_offset = 0;
	}
	r1 = udp_rule(m, &ra, v1, 5000);
	TEST_ASSERT_NOT_NULL(r1, "rule over references: %s", strerror(errno));
	/* The rule does not need the references any more. */
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport_ref(ctx2, &tref), "unimport TIR ref");
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport_ref(ctx2, &cref), "unimport counter ref");
	ra.counter_ref = NULL;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v2, 5001), EINVAL);	/* released ref */

	/* Wrapper imports; a revoked one is ESTALE. */
	timp = track(mdevx_obj_import(ctx2, tbuf, exp_size, MDEVX_OBJ_TIR));
	TEST_ASSERT_NOT_NULL(timp, "TIR import");
	cimp = track(mdevx_obj_import(ctx2, cbuf, exp_size, MDEVX_OBJ_FLOW_COUNTER));
	TEST_ASSERT_NOT_NULL(cimp, "counter import");
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = timp;
	ra.counter = cimp;
	r2 = udp_rule(m, &ra, v2, 5001);
	TEST_ASSERT_NOT_NULL(r2, "rule over imports: %s", strerror(errno));
	/* An import is not held by the rule: it can go while the rule lives. */
	TEST_ASSERT_SUCCESS(mdevx_obj_unimport(cimp), "unimport counter");
	untrack(cimp);
	TEST_ASSERT_SUCCESS(mdevx_obj_revoke(timp), "revoke TIR import");
	ra.counter = NULL;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5002), ESTALE);
	/* A local object of ctx1 on ctx2's matcher: another context. */
	ra.dest_obj = e.tir;
	TEST_ASSERT_NULL_ERRNO(udp_rule(m, &ra, v1, 5002), EINVAL);
	/* The creator's TIR is used by rules of another context: the device refuses. */
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(e.tir), EBUSY);
	return TEST_SUCCESS;
}

/* Revocation racing a rule creation: ESTALE, or a rule made before the release. */
struct race_arg {
	struct mdevx_matcher *m;
	struct mdevx_obj *imp;
	uint8_t *value;
	struct mdevx_rule *rule;
	int err;
};

static void *
race_create(void *p)
{
	struct race_arg *a = p;
	struct mdevx_rule_attr ra;

	memset(&ra, 0, sizeof(ra));
	ra.value = a->value;
	ra.value_len = OUTER_LEN;
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = a->imp;
	a->rule = mdevx_rule_create(a->m, &ra);
	a->err = a->rule == NULL ? errno : 0;
	return NULL;
}

static int
test_rule_revoke_race(void)
{
	uint8_t buf[256], value[MDEVX_MATCH_PARAM_LEN];
	struct race_arg a;
	struct mdevx_matcher *m;
	pthread_t th;
	struct rx_env e;
	int i, made = 0, stale = 0;

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	TEST_ASSERT_SUCCESS(export_obj(e.tir, buf), "export TIR");
	m = udp_matcher(ctx2, 5);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	udp_match(value, false, 6000);
	for (i = 0; i < 100; i++) {
		memset(&a, 0, sizeof(a));
		a.m = m;
		a.value = value;
		a.imp = mdevx_obj_import(ctx2, buf, exp_size, MDEVX_OBJ_TIR);
		TEST_ASSERT_NOT_NULL(a.imp, "import %d", i);
		TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, race_create, &a), "thread");
		if (i % 2)
			usleep((useconds_t)(i % 7) * 20);
		TEST_ASSERT_SUCCESS(mdevx_obj_revoke(a.imp), "revoke %d", i);
		pthread_join(th, NULL);
		TEST_ASSERT_SUCCESS(mdevx_obj_unimport(a.imp), "unimport %d", i);
		if (a.rule != NULL) {
			made++;
			TEST_ASSERT_SUCCESS(mdevx_rule_destroy(a.rule), "rule %d", i);
		} else {
			TEST_ASSERT_EQUAL(a.err, ESTALE, "iteration %d: %s", i, strerror(a.err));
			stale++;
		}
	}
	printf("revocation race: %d rules made first, %d ESTALE\n", made, stale);
	return TEST_SUCCESS;
}

static int
test_rule_destroy_handle(void)
{
	uint8_t v[MDEVX_MATCH_PARAM_LEN], v2[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_rule_attr ra;
	struct mdevx_matcher *m;
	struct mdevx_rule *r, *r2;
	int nflows = live(SWDEV_KIND_FLOW);
	uint32_t h;

	m = udp_matcher(ctx1, 6);
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_DROP;
	r = udp_rule(m, &ra, v, 7000);
	TEST_ASSERT_NOT_NULL(r, "rule: %s", strerror(errno));
	h = mdevx_rule_handle(r);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows + 1, "rule on the device");
	/* Another context of the file removes it (a process cleaning up a dead one's). */
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy_handle(ctx2, h), "destroy by handle");
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows, "rule gone from the device");
	TEST_ASSERT_RC_ERRNO(mdevx_rule_destroy_handle(ctx2, h), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_rule_destroy_handle(ctx2, 0xfffff0), ENOENT);
	TEST_ASSERT_RC_ERRNO(mdevx_rule_destroy_handle(NULL, h), EINVAL);
	/* A new rule may take the handle: the old wrapper must not remove it. */
	r2 = udp_rule(m, &ra, v2, 7001);
	TEST_ASSERT_NOT_NULL(r2, "second rule: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(r), "release of the removed rule");
	untrack(r);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows + 1, "the second rule survived");
	TEST_ASSERT_RC_ERRNO(mdevx_matcher_destroy(m), EBUSY);
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(r2), "second rule");
	untrack(r2);
	TEST_ASSERT_SUCCESS(mdevx_matcher_destroy(m), "matcher");
	untrack(m);
	TEST_ASSERT_EQUAL(live(SWDEV_KIND_FLOW), nflows, "no rule left");
	return TEST_SUCCESS;
}

/* ---------------- frames through the rules ---------------- */

static int
send_udp(uint16_t dport, size_t payload, struct swdev_rx_info *info)
{
	uint8_t f[256];
	size_t len = udp_frame(f, dport, payload);

	return swdev_ctl_send_frame(ctl, DEV, f, len, info);
}

static int
counter_is(struct mdevx_obj *cnt, uint32_t off, uint64_t pkts, uint64_t bytes)
{
	struct mdevx_counter_stats s;

	TEST_ASSERT_SUCCESS(mdevx_counter_query(cnt, off, 1, 0, &s), "counter query");
	TEST_ASSERT_EQUAL(s.packets, pkts, "counter %u: %" PRIu64 " packets, want %" PRIu64,
			  off, s.packets, pkts);
	TEST_ASSERT_EQUAL(s.bytes, bytes, "counter %u: %" PRIu64 " bytes, want %" PRIu64,
			  off, s.bytes, bytes);
	return TEST_SUCCESS;
}

static int
rq_packets_is(uint32_t rqn, uint64_t pkts, uint64_t bytes)
{
	struct swdev_rq_stats st;

	TEST_ASSERT_SUCCESS(swdev_ctl_get_rq_stats(ctl, DEV, rqn, &st), "rq stats");
	TEST_ASSERT_EQUAL(st.packets, pkts, "rq %#x: %" PRIu64 " packets, want %" PRIu64, rqn,
			  st.packets, pkts);
	TEST_ASSERT_EQUAL(st.bytes, bytes, "rq %#x: %" PRIu64 " bytes, want %" PRIu64, rqn,
			  st.bytes, bytes);
	return TEST_SUCCESS;
}

static int
test_traffic_root_rules(void)
{
	uint8_t v1[MDEVX_MATCH_PARAM_LEN], v2[MDEVX_MATCH_PARAM_LEN], v3[MDEVX_MATCH_PARAM_LEN];
	const size_t len = 14 + 20 + 8 + 100;
	struct mdevx_matcher *m_hi, *m_lo;
	struct swdev_rx_info info;
	struct mdevx_rule_attr ra;
	struct mdevx_rule *count_only;
	struct mdevx_obj *cnt;
	struct rx_env e;
	uint32_t bulk = 128, off;

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	if (!rule_counter_offset_ok())
		bulk = 1;	/* both rules on counter 0 of one bulk */
	cnt = track(mdevx_counter_alloc(ctx1, bulk));
	if (cnt == NULL) {
		bulk = 1;
		cnt = track(mdevx_counter_alloc(ctx1, bulk));
	}
	TEST_ASSERT_NOT_NULL(cnt, "counter");
	off = bulk - 1;
	m_hi = udp_matcher(ctx1, 0);
	TEST_ASSERT_NOT_NULL(m_hi, "matcher: %s", strerror(errno));
	m_lo = udp_matcher(ctx1, 1);
	TEST_ASSERT_NOT_NULL(m_lo, "matcher: %s", strerror(errno));

	/* Port 100: counted at high priority, then delivered at low priority. */
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_NONE;
	ra.counter = cnt;
	ra.counter_offset = 0;
	count_only = udp_rule(m_hi, &ra, v1, 100);
	TEST_ASSERT_NOT_NULL(count_only, "count-only rule: %s", strerror(errno));
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = e.tir;
	ra.counter = cnt;
	ra.counter_offset = off;
	TEST_ASSERT_NOT_NULL(udp_rule(m_lo, &ra, v2, 100), "TIR rule: %s", strerror(errno));
	/* Port 200: dropped. */
	memset(&ra, 0, sizeof(ra));
	ra.dest = MDEVX_RULE_DEST_DROP;
	TEST_ASSERT_NOT_NULL(udp_rule(m_lo, &ra, v3, 200), "drop rule: %s", strerror(errno));

	TEST_ASSERT_SUCCESS(send_udp(100, 100, &info), "frame to port 100");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DELIVERED, "verdict %u", info.verdict);
	TEST_ASSERT_EQUAL(info.tirn, e.tirn, "TIR %#x", info.tirn);
	TEST_ASSERT_EQUAL(info.rqn, e.rqn, "RQ %#x", info.rqn);
	TEST_ASSERT_SUCCESS(send_udp(100, 100, &info), "frame to port 100");
	TEST_ASSERT_SUCCESS(send_udp(200, 100, &info), "frame to port 200");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DROP, "verdict %u", info.verdict);
	TEST_ASSERT_SUCCESS(send_udp(300, 100, &info), "frame to port 300");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_MISS, "verdict %u", info.verdict);

	if (bulk > 1 && counter_is(cnt, 0, 2, 2 * len) != TEST_SUCCESS)
		return TEST_FAILED;
	if (counter_is(cnt, off, bulk > 1 ? 2 : 4, (bulk > 1 ? 2 : 4) * len) != TEST_SUCCESS)
		return TEST_FAILED;
	if (rq_packets_is(e.rqn, 2, 2 * len) != TEST_SUCCESS)
		return TEST_FAILED;

	/* Without the count-only rule, the TIR rule still delivers and counts. */
	TEST_ASSERT_SUCCESS(mdevx_rule_destroy(count_only), "count-only rule");
	untrack(count_only);
	TEST_ASSERT_SUCCESS(send_udp(100, 100, &info), "frame to port 100");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DELIVERED, "verdict %u", info.verdict);
	if (rq_packets_is(e.rqn, 3, 3 * len) != TEST_SUCCESS)
		return TEST_FAILED;
	if (bulk > 1 && counter_is(cnt, off, 3, 3 * len) != TEST_SUCCESS)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

static int
test_traffic_flow_table(void)
{
	struct mdevx_flow_table_attr ta = { .level = 1, .log_size = 3 };
	uint8_t mask[MDEVX_MATCH_PARAM_LEN], value[MDEVX_MATCH_PARAM_LEN];
	uint8_t rv[MDEVX_MATCH_PARAM_LEN];
	struct mdevx_flow_group_attr ga = {
		.start_index = 0, .end_index = 3,
		.match_criteria_enable = MDEVX_MATCH_OUTER,
		.mask = mask, .mask_len = OUTER_LEN,
	};
	const size_t len = 14 + 20 + 8 + 60;
	struct mdevx_obj *t, *g, *fte, *cnt_fte, *cnt_root, *cnt_smac;
	uint8_t f[256];
	size_t flen;
	struct swdev_rx_info info;
	struct mdevx_rule_attr ra;
	struct mdevx_matcher *m;
	struct mdevx_fte_attr fa;
	struct mdevx_matcher_attr ma;
	struct rx_env e;

	TEST_ASSERT_SUCCESS(rx_env_make(&e), "rx env");
	cnt_fte = track(mdevx_counter_alloc(ctx1, 1));
	cnt_root = track(mdevx_counter_alloc(ctx1, 1));
	TEST_ASSERT(cnt_fte != NULL && cnt_root != NULL, "counters");
	t = track(mdevx_flow_table_create(ctx1, &ta));
	TEST_ASSERT_NOT_NULL(t, "table: %s", strerror(errno));
	udp_match(mask, true, 0);
	g = track(mdevx_flow_group_create(t, &ga));
	TEST_ASSERT_NOT_NULL(g, "group: %s", strerror(errno));
	memset(&fa, 0, sizeof(fa));
	udp_match(value, false, 4000);
	fa.flow_index = 0;
	fa.action = MDEVX_FTE_ACTION_FWD_DEST | MDEVX_FTE_ACTION_COUNT;
	fa.value = value;
	fa.value_len = OUTER_LEN;
	fa.ndests = 1;
	fa.dests[0].type = MDEVX_FTE_DEST_TIR;
	fa.dests[0].id = e.tirn;
	fa.ncounters = 1;
	fa.counter_ids[0] = test_obj_id(cnt_fte);
	fte = track(mdevx_fte_create(t, g, &fa));
	TEST_ASSERT_NOT_NULL(fte, "entry: %s", strerror(errno));

	/* Root: every IPv4 frame to the table, counted. */
	memset(mask, 0, sizeof(mask));
	MDEVX_SET(fte_match_param, mask, outer_headers.ethertype, 0xffff);
	memset(&ma, 0, sizeof(ma));
	ma.priority = 0;
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = mask;
	ma.mask_len = OUTER_LEN;
	m = track_matcher(mdevx_matcher_create(ctx1, &ma));
	TEST_ASSERT_NOT_NULL(m, "matcher: %s", strerror(errno));
	memset(rv, 0, sizeof(rv));
	MDEVX_SET(fte_match_param, rv, outer_headers.ethertype, 0x0800);
	memset(&ra, 0, sizeof(ra));
	ra.value = rv;
	ra.value_len = OUTER_LEN;
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_obj = t;
	ra.counter = cnt_root;
	TEST_ASSERT_NOT_NULL(track_rule(mdevx_rule_create(m, &ra)), "root rule to the table: %s",
			     strerror(errno));
	TEST_ASSERT_RC_ERRNO(mdevx_obj_destroy(t), EBUSY);

	TEST_ASSERT_SUCCESS(send_udp(4000, 60, &info), "frame to port 4000");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DELIVERED, "verdict %u", info.verdict);
	TEST_ASSERT_EQUAL(info.rqn, e.rqn, "RQ %#x", info.rqn);
	TEST_ASSERT_SUCCESS(send_udp(4001, 60, &info), "frame to port 4001");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_MISS, "verdict %u (table miss)", info.verdict);
	if (counter_is(cnt_root, 0, 2, 2 * len) != TEST_SUCCESS ||
	    counter_is(cnt_fte, 0, 1, len) != TEST_SUCCESS ||
	    rq_packets_is(e.rqn, 1, len) != TEST_SUCCESS)
		return TEST_FAILED;

	/*
	 * A second group whose mask and entry value are one byte long: the
	 * first byte of the source MAC (smac_47_16 leads fte_match_set_lyr_2_4).
	 * A frame of another first byte misses it.
	 */
	flen = udp_frame(f, 4001, 60);
	cnt_smac = track(mdevx_counter_alloc(ctx1, 1));
	TEST_ASSERT_NOT_NULL(cnt_smac, "counter");
	memset(mask, 0, sizeof(mask));
	mask[0] = 0xff;
	ga.start_index = 4;
	ga.end_index = 7;
	ga.mask_len = 1;
	g = track(mdevx_flow_group_create(t, &ga));
	TEST_ASSERT_NOT_NULL(g, "group of a 1-byte mask: %s", strerror(errno));
	memset(value, 0, sizeof(value));
	value[0] = f[6];
	fa.flow_index = 4;
	fa.value_len = 1;
	fa.counter_ids[0] = test_obj_id(cnt_smac);
	TEST_ASSERT_NOT_NULL(track(mdevx_fte_create(t, g, &fa)), "entry of a 1-byte value: %s",
			     strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_send_frame(ctl, DEV, f, flen, &info), "frame");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DELIVERED, "verdict %u (source MAC %#x)",
			  info.verdict, f[6]);
	f[6] ^= 0x04;
	TEST_ASSERT_SUCCESS(swdev_ctl_send_frame(ctl, DEV, f, flen, &info), "frame");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_MISS, "verdict %u (source MAC %#x)",
			  info.verdict, f[6]);
	f[6] ^= 0x04;
	f[7] ^= 0x01;	/* a byte outside the mask */
	TEST_ASSERT_SUCCESS(swdev_ctl_send_frame(ctl, DEV, f, flen, &info), "frame");
	TEST_ASSERT_EQUAL(info.verdict, SWDEV_RX_DELIVERED, "verdict %u (second MAC byte %#x)",
			  info.verdict, f[7]);
	if (counter_is(cnt_smac, 0, 2, 2 * len) != TEST_SUCCESS)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

/* Last: the device holds what it held before the suite. */
static int
test_zero_objects_left(void)
{
	struct swdev_counts c;
	int k;

	case_teardown();
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx1), 0, "objects left on ctx1");
	TEST_ASSERT_EQUAL(mdevx_ctx_nb_objs(ctx2), 0, "objects left on ctx2");
	TEST_ASSERT_SUCCESS(swdev_ctl_get_counts(ctl, DEV, 0, &c), "counts");
	for (k = 0; k < SWDEV_KIND_MAX; k++)
		TEST_ASSERT_EQUAL(c.by_kind[k], base.by_kind[k], "%u objects of swdev kind %d "
				  "left (%u before)", c.by_kind[k], k, base.by_kind[k]);
	TEST_ASSERT_EQUAL(c.total, base.total, "total");
	return TEST_SUCCESS;
}

static struct unit_test_suite steer_suite = {
	.suite_name = "mlx5 devx flow steering on the software device",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(NULL, case_teardown, test_flow_table_query),
		TEST_CASE_ST(NULL, case_teardown, test_flow_group_fte),
		TEST_CASE_ST(NULL, case_teardown, test_flow_bad_attrs),
		TEST_CASE(test_match_fields),
		TEST_CASE_ST(NULL, case_teardown, test_matcher_bad_attrs),
		TEST_CASE_ST(NULL, case_teardown, test_rule_basic),
		TEST_CASE_ST(NULL, case_teardown, test_rule_bad_attrs),
		TEST_CASE_ST(NULL, case_teardown, test_rule_imports),
		TEST_CASE_ST(NULL, case_teardown, test_rule_revoke_race),
		TEST_CASE_ST(NULL, case_teardown, test_rule_destroy_handle),
		TEST_CASE_ST(NULL, case_teardown, test_traffic_root_rules),
		TEST_CASE_ST(NULL, case_teardown, test_traffic_flow_table),
		TEST_CASE(test_zero_objects_left),
		TEST_CASES_END()
	},
};

static int
test_mlx5_devx_steer(void)
{
	return unit_test_suite_runner(&steer_suite);
}

REGISTER_TEST_COMMAND(mlx5_devx_steer_autotest, test_mlx5_devx_steer);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* TIRs: CREATE_TIR (direct or indirect with Toeplitz RSS), QUERY_TIR. */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

/*
 * struct mdevx_tir_attr carries PRM values (tirc: disp_type, rx_hash_fn,
 * rx_hash_field_select) and is written into the mailbox and read back from
 * it as is: the public constants of mdevx.h must be the PRM ones.
 */
static_assert(MDEVX_TIR_DISP_DIRECT == MDEVX_TIRC_DISP_TYPE_DIRECT, "disp_type direct");
static_assert(MDEVX_TIR_DISP_INDIRECT == MDEVX_TIRC_DISP_TYPE_INDIRECT, "disp_type indirect");
static_assert(MDEVX_TIR_HASH_FN_NONE == MDEVX_RX_HASH_FN_NONE, "rx_hash_fn none");
static_assert(MDEVX_TIR_HASH_FN_INVERTED_XOR8 == MDEVX_RX_HASH_FN_INVERTED_XOR8,
	      "rx_hash_fn inverted xor8");
static_assert(MDEVX_TIR_HASH_FN_TOEPLITZ == MDEVX_RX_HASH_FN_TOEPLITZ, "rx_hash_fn toeplitz");
static_assert(MDEVX_L3_PROT_IPV4 == MDEVX_L3_PROT_TYPE_IPV4, "l3_prot_type ipv4");
static_assert(MDEVX_L3_PROT_IPV6 == MDEVX_L3_PROT_TYPE_IPV6, "l3_prot_type ipv6");
static_assert(MDEVX_L4_PROT_TCP == MDEVX_L4_PROT_TYPE_TCP, "l4_prot_type tcp");
static_assert(MDEVX_L4_PROT_UDP == MDEVX_L4_PROT_TYPE_UDP, "l4_prot_type udp");
static_assert(MDEVX_HASH_FIELD_SRC_IP == MDEVX_RX_HASH_FIELD_SRC_IP, "selected_fields src ip");
static_assert(MDEVX_HASH_FIELD_DST_IP == MDEVX_RX_HASH_FIELD_DST_IP, "selected_fields dst ip");
static_assert(MDEVX_HASH_FIELD_L4_SPORT == MDEVX_RX_HASH_FIELD_L4_SPORT,
	      "selected_fields l4 sport");
static_assert(MDEVX_HASH_FIELD_L4_DPORT == MDEVX_RX_HASH_FIELD_L4_DPORT,
	      "selected_fields l4 dport");
static_assert(MDEVX_HASH_FIELD_IPSEC_SPI == MDEVX_RX_HASH_FIELD_IPSEC_SPI,
	      "selected_fields ipsec spi");
static_assert(MDEVX_TOEPLITZ_KEY_LEN == MDEVX_FLD_SZ_BYTES(tirc, rx_hash_toeplitz_key),
	      "rx_hash_toeplitz_key length");

#define HASH_FIELDS_ALL (MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP | \
			 MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT | \
			 MDEVX_HASH_FIELD_IPSEC_SPI)

static int
check_attr(const struct mdevx_tir_attr *a)
{
	if (a->disp_type != MDEVX_TIR_DISP_DIRECT && a->disp_type != MDEVX_TIR_DISP_INDIRECT)
		return EINVAL;
	if (a->inline_rqn > 0xffffff || a->indirect_table > 0xffffff ||
	    a->transport_domain > 0xffffff)
		return EINVAL;
	if (a->disp_type == MDEVX_TIR_DISP_INDIRECT &&
	    (a->rx_hash_fn > MDEVX_TIR_HASH_FN_TOEPLITZ || a->rx_hash_symmetric > 1 ||
	     a->outer_l3_prot_type > MDEVX_L3_PROT_IPV6 ||
	     a->outer_l4_prot_type > MDEVX_L4_PROT_UDP ||
	     (a->outer_selected_fields & ~HASH_FIELDS_ALL) != 0))
		return EINVAL;
	return 0;
}

MDEVX_API struct mdevx_obj *
mdevx_tir_create(struct mdevx_ctx *ctx, const struct mdevx_tir_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(create_tir_out)];
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (attr == NULL || check_attr(attr) != 0) {
		MDEVX_LOG(ERR, "invalid TIR attributes");
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	MDEVX_SET(create_tir_in, in, opcode, MDEVX_CMD_OP_CREATE_TIR);
	MDEVX_SET(create_tir_in, in, ctx.disp_type, attr->disp_type);
	MDEVX_SET(create_tir_in, in, ctx.transport_domain, attr->transport_domain);
	if (attr->disp_type == MDEVX_TIR_DISP_DIRECT) {
		MDEVX_SET(create_tir_in, in, ctx.inline_rqn, attr->inline_rqn);
	} else {
		MDEVX_SET(create_tir_in, in, ctx.indirect_table, attr->indirect_table);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_fn, attr->rx_hash_fn);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_symmetric, attr->rx_hash_symmetric);
		memcpy(MDEVX_ADDR_OF(create_tir_in, in, ctx.rx_hash_toeplitz_key),
		       attr->toeplitz_key, MDEVX_TOEPLITZ_KEY_LEN);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l3_prot_type,
			  attr->outer_l3_prot_type);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l4_prot_type,
			  attr->outer_l4_prot_type);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.selected_fields,
			  attr->outer_selected_fields);
	}
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &bobj);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(ctx, MDEVX_OBJ_TIR, bobj, MDEVX_GET(create_tir_out, out, tirn));
	if (obj == NULL)
		return NULL;
	obj->tirn = obj->id;
	obj->rx_icm_addr =
		((uint64_t)MDEVX_GET(create_tir_out, out, icm_address_63_40) << 40) |
		((uint64_t)MDEVX_GET(create_tir_out, out, icm_address_39_32) << 32) |
		(uint64_t)MDEVX_GET(create_tir_out, out, icm_address_31_0);
	return mdevx_obj_finish(obj);
}

/* The query itself, on a checked (or reference-built) TIR object. */
static int
tir_query(struct mdevx_obj *tir, struct mdevx_tir_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_tir_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_tir_out)];
	int rc;

	if (attr == NULL)
		return mdevx_ret(EINVAL);
	MDEVX_SET(query_tir_in, in, opcode, MDEVX_CMD_OP_QUERY_TIR);
	MDEVX_SET(query_tir_in, in, tirn, tir->tirn);
	rc = mdevx_cmd_query(tir, in, sizeof(in), out, sizeof(out));
	if (rc != 0)
		return mdevx_ret(rc);
	memset(attr, 0, sizeof(*attr));
#define TC(fld) MDEVX_GET(query_tir_out, out, tir_context.fld)
	attr->disp_type = TC(disp_type);
	attr->inline_rqn = TC(inline_rqn);
	attr->indirect_table = TC(indirect_table);
	attr->transport_domain = TC(transport_domain);
	attr->rx_hash_fn = (uint8_t)TC(rx_hash_fn);
	attr->rx_hash_symmetric = (uint8_t)TC(rx_hash_symmetric);
	attr->outer_l3_prot_type = (uint8_t)TC(rx_hash_field_selector_outer.l3_prot_type);
	attr->outer_l4_prot_type = (uint8_t)TC(rx_hash_field_selector_outer.l4_prot_type);
	attr->outer_selected_fields = TC(rx_hash_field_selector_outer.selected_fields);
#undef TC
	memcpy(attr->toeplitz_key,
	       MDEVX_ADDR_OF(query_tir_out, out, tir_context.rx_hash_toeplitz_key),
	       MDEVX_TOEPLITZ_KEY_LEN);
	return 0;
}

MDEVX_API int
mdevx_tir_query(struct mdevx_obj *tir, struct mdevx_tir_attr *attr)
{
	int rc = mdevx_obj_get(tir, MDEVX_OBJ_TIR);

	if (rc != 0)
		return mdevx_ret(rc);
	rc = tir_query(tir, attr);
	mdevx_obj_put(tir);
	return rc;
}

MDEVX_API int
mdevx_ref_tir_query(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
		    struct mdevx_tir_attr *attr)
{
	struct mdevx_obj tmp;
	int rc = mdevx_ref_to_obj(ctx, ref, MDEVX_OBJ_TIR, &tmp);

	if (rc != 0)
		return mdevx_ret(rc);
	return tir_query(&tmp, attr);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The receive path of the software device (swdev_rx.c), through the public
 * swdev_ctl_* calls only, with objects created through PRM mailboxes and
 * root rules to reach them:
 *   - the parser: the fte_match_set_lyr_2_4 image of each header layout
 *     (Ethernet, 802.1Q / 802.1ad tag, IPv4 with options, IPv6 with and
 *     without a fragment header, TCP, UDP, fragments) checked by a rule that
 *     masks every parsed field, and a one-field change of the frame missing
 *     it; every truncation and malformed header refused with EINVAL and only
 *     bad_frames counted, each cut in a heap block of exactly its length
 *     (no read past the frame under ASan); IPv6 cut short, bare and
 *     after a VLAN tag; the frame size limit;
 *   - delivery: direct TIR, indirect TIR over RQTs of 1..256 entries with
 *     102400 random IPv4/IPv6 TCP/UDP/other tuples, every selected-fields
 *     subset and every L3/L4 selector type, per-RQ counts and every hash
 *     compared with a prediction from DPDK's rte_softrss() (rte_thash.h)
 *     and the documented RQT index rule; hash functions NONE and
 *     INVERTED_XOR8;
 *   - MISS, DROP, RQ not RDY; the capture ring (contents, snap length,
 *     wrap, sequence numbers); one byte count in rx_bytes, the RQ and a
 *     COUNT action; statistics after RQ destroy and rqn reuse, file close
 *     and engine destroy with traffic;
 *   - 200000 random mutations and cuts of valid frames: only 0 or EINVAL,
 *     and the port statistics add up.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_thash.h>

#include "mdevx_prm.h"
#include "prm_mailbox.h"
#include "swdev_engine.h"
#include "swdev_test_util.h"
#include "unit_check.h"

#define DEV "swdev0"
#define NRQ 256u
#define RQ_WQ_BYTES 4096u	/* 64 x 64-byte strides, as t_build_rq() */
#define UMEM_BYTES ((NRQ + 2) * RQ_WQ_BYTES)
#define DBR_BASE ((uint64_t)NRQ * RQ_WQ_BYTES)
#define TUPLES_PER_SIZE 400u
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ICMP 1

#define OUT(buf, fld, v) MDEVX_SET(fte_match_set_lyr_2_4, (buf), fld, (v))
#define SRC_IP_OFF MDEVX_BYTE_OFF(fte_match_set_lyr_2_4, src_ipv4_src_ipv6)
#define DST_IP_OFF MDEVX_BYTE_OFF(fte_match_set_lyr_2_4, dst_ipv4_dst_ipv6)

static const uint8_t t_dmac[6] = { 0x02, 0x00, 0x5d, 0x00, 0x00, 0x01 };
static const uint8_t t_smac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* ---- fixture: one file, a CQ, NRQ RQs in RDY, a TD ---- */

struct fx {
	struct swdev_engine *eng;
	struct swdev_file *f;
	uint32_t pdn, cqn, tdn, umem_id, td_h;
	uint32_t rq_h[NRQ], rqn[NRQ];
};

static int
rq_set_state(struct fx *x, unsigned int i, uint32_t cur, uint32_t next)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(modify_rq_in)] = {0};
	uint8_t out[MDEVX_ST_SZ_BYTES(modify_rq_out)];

	MDEVX_SET(modify_rq_in, in, opcode, MDEVX_CMD_OP_MODIFY_RQ);
	MDEVX_SET(modify_rq_in, in, rqn, x->rqn[i]);
	MDEVX_SET(modify_rq_in, in, rq_state, cur);
	MDEVX_SET(modify_rq_in, in, ctx.state, next);
	return swdev_devx_obj_modify(x->f, x->rq_h[i], in, sizeof(in), out, sizeof(out));
}

static int
create(struct swdev_file *f, const void *in, size_t inlen, uint32_t *handle, uint32_t *id)
{
	struct swdev_obj_info info;
	uint8_t out[16];
	int rc = swdev_devx_obj_create(f, in, inlen, out, sizeof(out), &info);

	if (rc == 0) {
		*handle = info.handle;
		*id = MDEVX_GET(create_rq_out, out, rqn);	/* 24 bits at 0x48 */
	}
	return rc;
}

static int
td_alloc(struct fx *x)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_transport_domain_in)] = {0};

	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	return create(x->f, in, sizeof(in), &x->td_h, &x->tdn);
}

static int
rq_create(struct fx *x, unsigned int i)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_rq_in)];

	t_build_rq(in, x->cqn, x->pdn, x->umem_id, (uint64_t)i * RQ_WQ_BYTES,
		   DBR_BASE + 8 * (uint64_t)i);
	if (create(x->f, in, sizeof(in), &x->rq_h[i], &x->rqn[i]))
		return -1;
	return rq_set_state(x, i, MDEVX_RQC_STATE_RST, MDEVX_RQC_STATE_RDY);
}

static void
fx_init(struct fx *x)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_cq_in)];
	uint32_t h, uar, eqn, cq_h;
	unsigned int i;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	x->eng = swdev_engine_create();
	CHECK(x->eng != NULL);
	CHECK_EQ(swdev_engine_add_device(x->eng, DEV, NULL), 0);
	x->f = swdev_file_open(x->eng, DEV);
	CHECK(x->f != NULL);
	CHECK_EQ(swdev_file_pd_alloc(x->f, &h, &x->pdn), 0);
	CHECK_EQ(swdev_file_uar_alloc(x->f, &h, &uar), 0);
	CHECK_EQ(swdev_file_umem_reg(x->f, 0x100000, UMEM_BYTES, 7, &h, &x->umem_id), 0);
	CHECK_EQ(swdev_file_query_eqn(x->f, 0, &eqn), 0);
	t_build_cq(in, uar, eqn, x->umem_id, x->umem_id);
	MDEVX_SET64(create_cq_in, in, cq_context.dbr_addr, DBR_BASE + 8 * NRQ);
	CHECK_EQ(create(x->f, in, sizeof(in), &cq_h, &x->cqn), 0);
	for (i = 0; i < NRQ; i++)
		rc |= rq_create(x, i);
	CHECK_EQ(rc, 0);
	CHECK_EQ(td_alloc(x), 0);
}

static void
fx_fini(struct fx *x)
{
	swdev_engine_destroy(x->eng);	/* files, objects, rules, receive state */
}

/* ---- objects and rules ---- */

static uint32_t
rqt_create(struct fx *x, uint32_t n, const unsigned int *which, uint32_t *rqtn)
{
	static uint8_t in[MDEVX_ST_SZ_BYTES(create_rqt_in) + 4 * NRQ];
	uint32_t rqns[NRQ], h = 0;
	size_t len;

	for (uint32_t i = 0; i < n; i++)
		rqns[i] = x->rqn[which[i]];
	len = t_build_rqt(in, 0, NRQ, n, rqns);
	CHECK_EQ(create(x->f, in, len, &h, rqtn), 0);
	return h;
}

struct hash_cfg {
	uint32_t fn;
	uint32_t l3, l4, fields;
	uint8_t key[40];
};

static uint32_t
tir_create(struct fx *x, bool indirect, uint32_t target, const struct hash_cfg *hc,
	   uint32_t *tirn)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)];
	uint32_t h = 0;

	t_build_tir(in, indirect, target, x->tdn);
	if (indirect && hc != NULL) {
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_fn, hc->fn);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_symmetric, 0);
		memcpy(MDEVX_ADDR_OF(create_tir_in, in, ctx.rx_hash_toeplitz_key), hc->key, 40);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l3_prot_type,
			  hc->l3);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l4_prot_type,
			  hc->l4);
		MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.selected_fields,
			  hc->fields);
	}
	CHECK_EQ(create(x->f, in, sizeof(in), &h, tirn), 0);
	return h;
}

/* A root rule: @p mask / @p value (64-byte outer images), to a TIR or DROP. */
struct rule {
	uint32_t matcher, flow;
};

static struct rule
rule_add(struct fx *x, uint16_t prio, const uint8_t *mask, const uint8_t *value, uint8_t dest,
	 uint32_t tir_h)
{
	struct swdev_flow_attr attr = { .dest = dest, .dest_handle = tir_h };
	struct rule r = { 0, 0 };

	CHECK_EQ(swdev_file_matcher_create(x->f, prio, MDEVX_MATCH_CRITERIA_OUTER, mask, 64,
					   &r.matcher), 0);
	CHECK_EQ(swdev_file_flow_create(x->f, r.matcher, value, 64, &attr, &r.flow), 0);
	return r;
}

static void
rule_del(struct fx *x, struct rule r)
{
	CHECK_EQ(swdev_file_steer_destroy(x->f, r.flow, SWDEV_KIND_FLOW), 0);
	CHECK_EQ(swdev_file_steer_destroy(x->f, r.matcher, SWDEV_KIND_MATCHER), 0);
}

/* Every frame of the tests carries t_dmac: a rule on the dmac catches them all. */
static struct rule
rule_all(struct fx *x, uint8_t dest, uint32_t tir_h)
{
	uint8_t mask[64] = {0}, value[64] = {0};

	OUT(mask, dmac_47_16, 0xffffffffu);
	OUT(mask, dmac_15_0, 0xffffu);
	OUT(value, dmac_47_16, (uint32_t)t_dmac[0] << 24 | t_dmac[1] << 16 | t_dmac[2] << 8 |
			       t_dmac[3]);
	OUT(value, dmac_15_0, (uint32_t)t_dmac[4] << 8 | t_dmac[5]);
	return rule_add(x, 100, mask, value, dest, tir_h);
}

static struct swdev_port_stats
port(struct fx *x)
{
	struct swdev_port_stats s;

	CHECK_EQ(swdev_ctl_port_stats(x->eng, DEV, &s), 0);
	return s;
}

static struct swdev_rq_stats
rqs(struct fx *x, uint32_t rqn)
{
	struct swdev_rq_stats s;

	memset(&s, 0xff, sizeof(s));
	CHECK_EQ(swdev_ctl_rq_stats(x->eng, DEV, rqn, &s), 0);
	return s;
}

/* ---- frames ---- */

struct fspec {
	uint16_t tpid;		/* 0: untagged, else 0x8100 / 0x88a8 */
	uint16_t tci;
	uint16_t ethertype;	/* l3 == 0 */
	int l3;			/* 0, 4 or 6 */
	uint8_t tos;		/* IPv4 TOS, IPv6 traffic class */
	uint8_t ttl;
	uint8_t optlen;		/* IPv4 option bytes, multiple of 4 */
	uint16_t frag;		/* IPv4 flags+offset; IPv6 fragment header offset|M */
	bool v6frag;		/* IPv6 fragment header */
	uint8_t proto;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t tcp_optlen;	/* TCP option bytes, multiple of 4 */
	uint16_t tcp_flags;	/* 9 bits */
	uint16_t payload;
	uint16_t pad;		/* bytes after the datagram */
};

static void
wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Offsets of the headers of the last built frame. */
static uint32_t l3_off, l4_off;

static size_t
build(uint8_t *b, const struct fspec *s)
{
	uint32_t off = 12, l4len = 0, iplen;
	uint8_t *ip, *l4;

	memcpy(b, t_dmac, 6);
	memcpy(b + 6, t_smac, 6);
	if (s->tpid != 0) {
		wr16(b + off, s->tpid);
		wr16(b + off + 2, s->tci);
		off += 4;
	}
	l3_off = off + 2;
	if (s->l3 == 0) {
		wr16(b + off, s->ethertype);
		memset(b + l3_off, 0xa5, s->payload);
		l4_off = l3_off;
		return l3_off + s->payload;
	}
	wr16(b + off, s->l3 == 4 ? 0x0800 : 0x86dd);
	ip = b + l3_off;
	if (s->l3 == 4)
		l4_off = l3_off + 20 + s->optlen;
	else
		l4_off = l3_off + 40 + (s->v6frag ? 8 : 0);
	l4 = b + l4_off;
	if (s->proto == PROTO_TCP && !(s->l3 == 4 && (s->frag & 0x1fff)) &&
	    !(s->l3 == 6 && s->v6frag && (s->frag & 0xfff8)))
		l4len = 20 + s->tcp_optlen;
	else if (s->proto == PROTO_UDP && !(s->l3 == 4 && (s->frag & 0x1fff)) &&
		 !(s->l3 == 6 && s->v6frag && (s->frag & 0xfff8)))
		l4len = 8;
	memset(l4, 0, l4len);
	if (l4len != 0) {
		wr16(l4, s->sport);
		wr16(l4 + 2, s->dport);
	}
	if (s->proto == PROTO_TCP && l4len != 0) {
		l4[12] = (uint8_t)(((20 + s->tcp_optlen) / 4) << 4 | ((s->tcp_flags >> 8) & 1));
		l4[13] = (uint8_t)s->tcp_flags;
		memset(l4 + 20, 1, s->tcp_optlen);	/* NOPs */
	} else if (l4len == 8) {
		wr16(l4 + 4, 8u + s->payload);
	}
	memset(l4 + l4len, 0x5a, s->payload);
	iplen = l4_off - l3_off + l4len + s->payload;
	if (s->l3 == 4) {
		memset(ip, 0, 20 + s->optlen);
		ip[0] = (uint8_t)(0x40 | (5 + s->optlen / 4));
		ip[1] = s->tos;
		wr16(ip + 2, iplen);
		wr16(ip + 6, s->frag);
		ip[8] = s->ttl;
		ip[9] = s->proto;
		memcpy(ip + 12, s->src, 4);
		memcpy(ip + 16, s->dst, 4);
		memset(ip + 20, 1, s->optlen);	/* NOPs */
	} else {
		memset(ip, 0, 40);
		ip[0] = (uint8_t)(0x60 | s->tos >> 4);
		ip[1] = (uint8_t)(s->tos << 4 | 0x0b);	/* flow label 0xb1234 */
		wr16(ip + 2, 0x1234);
		wr16(ip + 4, iplen - 40);
		ip[6] = s->v6frag ? 44 : s->proto;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->src, 16);
		memcpy(ip + 24, s->dst, 16);
		if (s->v6frag) {
			memset(ip + 40, 0, 8);
			ip[40] = s->proto;
			wr16(ip + 42, s->frag);
			ip[47] = 0x77;	/* identification */
		}
	}
	memset(b + l3_off + iplen, 0xee, s->pad);
	return l3_off + iplen + s->pad;
}

static bool
l4_present(const struct fspec *s)
{
	if (s->l3 == 0 || (s->proto != PROTO_TCP && s->proto != PROTO_UDP))
		return false;
	if (s->l3 == 4)
		return (s->frag & 0x1fff) == 0;
	return !s->v6frag || (s->frag & 0xfff8) == 0;
}

static void
set_ones(uint8_t *m, size_t bit_off, size_t width)
{
	mdevx_prm_set(m, bit_off, width, 0xffffffffu);
}
#define ONES(m, fld) set_ones((m), MDEVX_BIT_OFF(fte_match_set_lyr_2_4, fld), \
			      MDEVX_FLD_SZ_BITS(fte_match_set_lyr_2_4, fld))

/*
 * The image the parser must produce, written independently of it, and a
 * mask over every field of the layout except the reserved bits.
 */
static void
expect_image(const struct fspec *s, uint8_t *val, uint8_t *mask)
{
	memset(val, 0, 64);
	memset(mask, 0, 64);
	ONES(mask, smac_47_16);
	ONES(mask, smac_15_0);
	ONES(mask, ethertype);
	ONES(mask, dmac_47_16);
	ONES(mask, dmac_15_0);
	ONES(mask, first_prio);
	ONES(mask, first_cfi);
	ONES(mask, first_vid);
	ONES(mask, ip_protocol);
	ONES(mask, ip_dscp);
	ONES(mask, ip_ecn);
	ONES(mask, cvlan_tag);
	ONES(mask, svlan_tag);
	ONES(mask, frag);
	ONES(mask, ip_version);
	ONES(mask, tcp_flags);
	ONES(mask, tcp_sport);
	ONES(mask, tcp_dport);
	ONES(mask, ttl_hoplimit);
	ONES(mask, udp_sport);
	ONES(mask, udp_dport);
	memset(mask + SRC_IP_OFF, 0xff, 16);
	memset(mask + DST_IP_OFF, 0xff, 16);

	OUT(val, dmac_47_16, 0x02005d00u);
	OUT(val, dmac_15_0, 0x0001u);
	OUT(val, smac_47_16, 0x02112233u);
	OUT(val, smac_15_0, 0x4455u);
	if (s->tpid == 0x8100)
		OUT(val, cvlan_tag, 1);
	if (s->tpid == 0x88a8)
		OUT(val, svlan_tag, 1);
	if (s->tpid != 0) {
		OUT(val, first_prio, s->tci >> 13);
		OUT(val, first_cfi, (s->tci >> 12) & 1);
		OUT(val, first_vid, s->tci & 0xfff);
	}
	if (s->l3 == 0) {
		OUT(val, ethertype, s->ethertype);
		return;
	}
	OUT(val, ethertype, s->l3 == 4 ? 0x0800 : 0x86dd);
	OUT(val, ip_version, s->l3);
	OUT(val, ip_protocol, s->proto);
	OUT(val, ip_dscp, s->tos >> 2);
	OUT(val, ip_ecn, s->tos & 3);
	OUT(val, ttl_hoplimit, s->ttl);
	if (s->l3 == 4) {
		OUT(val, frag, (s->frag & 0x3fff) != 0);
		memcpy(val + SRC_IP_OFF + 12, s->src, 4);
		memcpy(val + DST_IP_OFF + 12, s->dst, 4);
	} else {
		OUT(val, frag, s->v6frag);
		memcpy(val + SRC_IP_OFF, s->src, 16);
		memcpy(val + DST_IP_OFF, s->dst, 16);
	}
	if (!l4_present(s))
		return;
	if (s->proto == PROTO_TCP) {
		OUT(val, tcp_sport, s->sport);
		OUT(val, tcp_dport, s->dport);
		OUT(val, tcp_flags, s->tcp_flags);
	} else {
		OUT(val, udp_sport, s->sport);
		OUT(val, udp_dport, s->dport);
	}
}

static uint32_t
rx(struct fx *x, const void *frame, size_t len, struct swdev_rx_info *info)
{
	struct swdev_rx_info local;

	if (info == NULL)
		info = &local;
	memset(info, 0xee, sizeof(*info));
	CHECK_EQ(swdev_ctl_rx(x->eng, DEV, frame, len, info), 0);
	return info->verdict;
}

static struct fspec
spec_base(int l3, uint8_t proto)
{
	struct fspec s;

	memset(&s, 0, sizeof(s));
	s.l3 = l3;
	s.proto = proto;
	s.tos = 0xb9;		/* dscp 0x2e, ecn 1 */
	s.ttl = 61;
	for (int i = 0; i < 16; i++) {
		s.src[i] = (uint8_t)(0x20 + i);
		s.dst[i] = (uint8_t)(0xc0 + 3 * i);
	}
	s.sport = 0x1234;
	s.dport = 0xbeef;
	s.tcp_flags = 0x1d2;	/* NS set */
	s.payload = 33;
	return s;
}

/* The layouts the parser test goes through. */
static size_t
layouts(struct fspec *v)
{
	size_t n = 0;
	struct fspec s;

	s = spec_base(0, 0);		/* ARP: L2 only */
	s.ethertype = 0x0806;
	s.payload = 28;
	v[n++] = s;
	s.tpid = 0x8100;		/* tagged L2 only */
	s.tci = 0xa123;
	v[n++] = s;
	s = spec_base(0, 0);		/* unknown ethertype */
	s.ethertype = 0x88b5;
	s.payload = 0;
	v[n++] = s;
	s = spec_base(4, PROTO_TCP);
	v[n++] = s;
	s.optlen = 12;			/* IPv4 options */
	s.tcp_optlen = 12;		/* TCP options */
	v[n++] = s;
	s.tpid = 0x8100;
	s.tci = 0x5fff;			/* prio 2, cfi 1, vid 0xfff */
	v[n++] = s;
	s = spec_base(4, PROTO_UDP);
	s.tpid = 0x88a8;
	s.tci = 0xe001;
	s.pad = 20;			/* Ethernet padding after the datagram */
	v[n++] = s;
	s = spec_base(4, PROTO_UDP);
	s.frag = 0x2000;		/* MF, first fragment: ports parsed */
	v[n++] = s;
	s.frag = 0x00b9;		/* last fragment: no ports */
	v[n++] = s;
	s.frag = 0x1000;		/* offset 32768: the top offset bit */
	v[n++] = s;
	s = spec_base(4, PROTO_ICMP);
	s.optlen = 40;			/* IHL 15 */
	v[n++] = s;
	s = spec_base(4, PROTO_TCP);
	s.frag = 0x4000;		/* DF: not a fragment */
	s.payload = 0;
	v[n++] = s;
	s = spec_base(6, PROTO_TCP);
	v[n++] = s;
	s.tcp_optlen = 40;		/* data offset 15 */
	s.tpid = 0x8100;
	s.tci = 7;
	v[n++] = s;
	s = spec_base(6, PROTO_UDP);
	s.pad = 3;
	v[n++] = s;
	s.v6frag = true;		/* fragment header, first fragment */
	s.frag = 0x0001;
	v[n++] = s;
	s.frag = 0x0548;		/* later fragment: no ports */
	v[n++] = s;
	s = spec_base(6, 58);		/* ICMPv6 */
	v[n++] = s;
	return n;
}

/* A change of one field of the frame that the image must show. */
static bool
mutate(struct fspec *s, int k)
{
	switch (k) {
	case 0: s->ttl++; return s->l3 != 0;
	case 1: s->tos ^= 0x04; return s->l3 != 0;	/* dscp */
	case 2: s->tos ^= 0x01; return s->l3 != 0;	/* ecn */
	case 3: s->src[s->l3 == 4 ? 3 : 0] ^= 0x80; return s->l3 != 0;
	case 4: s->dst[s->l3 == 4 ? 0 : 15] ^= 1; return s->l3 != 0;
	case 5: s->sport ^= 0x100; return l4_present(s);
	case 6: s->dport ^= 1; return l4_present(s);
	case 7: s->tcp_flags ^= 0x100; return l4_present(s) && s->proto == PROTO_TCP;
	case 8: s->tci ^= 0x2000; return s->tpid != 0;	/* prio */
	case 9: s->tci ^= 0x1000; return s->tpid != 0;	/* cfi */
	case 10: s->tci ^= 0x0800; return s->tpid != 0;	/* vid */
	case 11: s->tpid = s->tpid == 0x8100 ? 0x88a8 : 0x8100; return s->tpid != 0;
	case 12: /* first fragment <-> later fragment */
		if (s->l3 == 4 && (s->frag & 0x2000)) {
			s->frag |= 0x10;
			return true;
		}
		return false;
	case 13: s->l3 = s->l3 == 4 ? 6 : 4; return s->l3 != 0;
	case 14: s->ethertype ^= 1; return s->l3 == 0;
	default: return false;
	}
}
#define NMUTATE 15

static void
test_parser_image(void)
{
	struct fspec v[32], m;
	uint8_t frame[2048], val[64], mask[64];
	size_t n = layouts(v), len;
	struct swdev_rx_info info;
	struct fx x;
	uint32_t tir_h, tirn;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[0], NULL, &tirn);
	for (size_t i = 0; i < n; i++) {
		struct rule r;

		expect_image(&v[i], val, mask);
		r = rule_add(&x, 1, mask, val, SWDEV_FLOW_DEST_DEVX, tir_h);
		len = build(frame, &v[i]);
		CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
		if (info.verdict != SWDEV_RX_DELIVERED)
			fprintf(stderr, "layout %zu: image differs\n", i);
		CHECK_EQ(info.tirn, tirn);
		CHECK_EQ(info.rqn, x.rqn[0]);
		CHECK_EQ(info.hash, 0);
		for (int k = 0; k < NMUTATE; k++) {
			m = v[i];
			if (!mutate(&m, k))
				continue;
			len = build(frame, &m);
			CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_MISS);
		}
		rule_del(&x, r);
	}
	fx_fini(&x);
}

/* ---- refusals ---- */

static bool
same_stats(const struct swdev_port_stats *a, const struct swdev_port_stats *b,
	   uint64_t bad_added)
{
	return a->rx_packets == b->rx_packets && a->rx_bytes == b->rx_bytes &&
	       a->delivered == b->delivered && a->misses == b->misses &&
	       a->drops == b->drops && a->rq_drops == b->rq_drops &&
	       b->bad_frames == a->bad_frames + bad_added;
}

static void
expect_refused(struct fx *x, const uint8_t *frame, size_t len, uint32_t rqn, const char *what)
{
	struct swdev_port_stats a = port(x), b;
	struct swdev_rq_stats qa = rqs(x, rqn), qb;
	struct swdev_rx_info info = { .verdict = 77 };

	CHECK_EQ(swdev_ctl_rx(x->eng, DEV, frame, len, &info), EINVAL);
	CHECK_EQ(info.verdict, 77);	/* untouched */
	b = port(x);
	qb = rqs(x, rqn);
	if (!same_stats(&a, &b, 1)) {
		fprintf(stderr, "%s (len %zu): statistics changed\n", what, len);
		CHECK(0);
	}
	CHECK_EQ(qb.packets, qa.packets);
}

/*
 * A copy of the first @p len bytes of @p frame in a heap block of exactly
 * @p len bytes (at least one), so that ASan sees a read past the frame.
 */
static uint8_t *
exact_copy(const uint8_t *frame, size_t len)
{
	uint8_t *p = malloc(len > 0 ? len : 1);

	CHECK(p != NULL);
	if (p == NULL)
		exit(1);
	memcpy(p, frame, len);
	return p;
}

static void
expect_refused_exact(struct fx *x, const uint8_t *frame, size_t len, uint32_t rqn,
		     const char *what)
{
	uint8_t *p = exact_copy(frame, len);

	expect_refused(x, p, len, rqn, what);
	free(p);
}

static uint32_t
rx_exact(struct fx *x, const uint8_t *frame, size_t len)
{
	uint8_t *p = exact_copy(frame, len);
	uint32_t verdict = rx(x, p, len, NULL);

	free(p);
	return verdict;
}

/*
 * Every truncation of every layout, each in a block of exactly its length:
 * refused when the cut falls inside a header or the datagram (total/payload
 * length beyond the frame), accepted when only Ethernet padding is cut.
 */
static void
test_truncation(void)
{
	struct fspec v[32];
	uint8_t frame[2048];
	size_t n = layouts(v);
	struct fx x;
	uint32_t tir_h, tirn;
	struct rule r;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[0], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	for (size_t i = 0; i < n; i++) {
		size_t len = build(frame, &v[i]), need;

		if (v[i].l3 == 0)
			need = v[i].tpid ? 18 : 14;
		else
			need = len - v[i].pad;
		for (size_t cut = 0; cut < len; cut++) {
			if (cut < need) {
				expect_refused_exact(&x, frame, cut, x.rqn[0], "truncated");
			} else {
				CHECK_EQ(rx_exact(&x, frame, cut), SWDEV_RX_DELIVERED);
			}
		}
		CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	}
	rule_del(&x, r);
	fx_fini(&x);
}

/*
 * Ethertype 0x86DD (bare or after an 802.1Q tag) with less than an IPv6
 * header after it: refused, one bad frame each, and no byte read past the
 * frame (each frame is a heap block of exactly its length: ASan build).
 */
static void
test_short_ipv6(void)
{
	uint8_t frame[64];
	struct swdev_port_stats a, b;
	struct fx x;
	uint32_t tir_h, tirn;
	struct rule r;
	size_t n = 0;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[0], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	a = port(&x);
	memset(frame, 0x60, sizeof(frame));	/* version 6 in every byte */
	memcpy(frame, t_dmac, 6);
	memcpy(frame + 6, t_smac, 6);
	wr16(frame + 12, 0x86dd);
	for (size_t len = 14; len < 14 + 40; len++, n++)
		expect_refused_exact(&x, frame, len, x.rqn[0], "ipv6 cut short");
	wr16(frame + 12, 0x8100);
	wr16(frame + 14, 0x0123);
	wr16(frame + 16, 0x86dd);
	for (size_t len = 14; len < 18 + 40; len++, n++)
		expect_refused_exact(&x, frame, len, x.rqn[0], "vlan + ipv6 cut short");
	b = port(&x);
	CHECK_EQ(b.bad_frames, a.bad_frames + n);
	CHECK_EQ(b.rx_packets, a.rx_packets);
	CHECK_EQ(rqs(&x, x.rqn[0]).packets, 0);
	rule_del(&x, r);
	fx_fini(&x);
}

static void
test_malformed(void)
{
	uint8_t frame[SWDEV_MAX_FRAME_LEN + 64];
	struct fspec s;
	size_t len;
	struct fx x;
	uint32_t tir_h, tirn;
	struct rule r;
	struct swdev_port_stats ps;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[0], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	/* IPv4: IHL below 5, IHL beyond the frame, total length below IHL*4 or
	 * beyond the frame */
	s = spec_base(4, PROTO_UDP);
	len = build(frame, &s);
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		frame[l3_off] = (uint8_t)(0x40 | ihl);
		expect_refused(&x, frame, len, x.rqn[0], "ihl < 5");
	}
	frame[l3_off] = 0x4f;	/* a 60-byte header in the 61-byte datagram */
	wr16(frame + l3_off + 2, 59);
	expect_refused(&x, frame, len, x.rqn[0], "total length < ihl*4");
	wr16(frame + l3_off + 2, (uint32_t)(len - l3_off));
	expect_refused(&x, frame, len, x.rqn[0], "udp beyond the datagram");
	frame[l3_off + 9] = PROTO_ICMP;
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);	/* 60-byte header, no L4 */
	expect_refused(&x, frame, l3_off + 59, x.rqn[0], "ihl beyond the frame");
	len = build(frame, &s);
	wr16(frame + l3_off + 2, (uint32_t)(len - l3_off + 1));
	expect_refused(&x, frame, len, x.rqn[0], "total length beyond the frame");
	wr16(frame + l3_off + 2, 19);
	expect_refused(&x, frame, len, x.rqn[0], "total length < 20");
	/* UDP header cut by the total length, though the frame is long enough */
	wr16(frame + l3_off + 2, 20 + 7);
	expect_refused(&x, frame, len, x.rqn[0], "udp beyond total length");
	wr16(frame + l3_off + 2, 20 + 8);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	/* TCP data offset below 5 or beyond the datagram */
	s = spec_base(4, PROTO_TCP);
	s.payload = 0;
	len = build(frame, &s);
	for (uint8_t doff = 0; doff < 5; doff++) {
		frame[l4_off + 12] = (uint8_t)(doff << 4);
		expect_refused(&x, frame, len, x.rqn[0], "tcp doff < 5");
	}
	frame[l4_off + 12] = 6 << 4;
	expect_refused(&x, frame, len, x.rqn[0], "tcp doff beyond the datagram");
	s.payload = 4;
	len = build(frame, &s);
	frame[l4_off + 12] = 6 << 4;
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	/* IPv6: payload length beyond the frame; fragment header cut; TCP in a
	 * zero-length payload */
	s = spec_base(6, PROTO_UDP);
	len = build(frame, &s);
	wr16(frame + l3_off + 4, (uint32_t)(len - l3_off - 40 + 1));
	expect_refused(&x, frame, len, x.rqn[0], "ipv6 payload beyond the frame");
	wr16(frame + l3_off + 4, 0);
	expect_refused(&x, frame, len, x.rqn[0], "ipv6 udp beyond the payload");
	s.v6frag = true;
	len = build(frame, &s);
	wr16(frame + l3_off + 4, 7);
	expect_refused(&x, frame, len, x.rqn[0], "ipv6 fragment header cut");
	/* an ethertype whose header has another version: an L2 packet */
	s = spec_base(4, PROTO_TCP);
	len = build(frame, &s);
	frame[l3_off] = 0x65;
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	s = spec_base(6, PROTO_TCP);
	len = build(frame, &s);
	frame[l3_off] = 0x45;
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	/* sizes: 9217 refused, 9216 accepted, both exactly counted */
	s = spec_base(4, PROTO_UDP);
	s.payload = (uint16_t)(SWDEV_MAX_FRAME_LEN - 14 - 20 - 8);
	len = build(frame, &s);
	CHECK_EQ(len, SWDEV_MAX_FRAME_LEN);
	ps = port(&x);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	CHECK_EQ(port(&x).rx_bytes, ps.rx_bytes + SWDEV_MAX_FRAME_LEN);
	s.payload++;
	len = build(frame, &s);
	expect_refused(&x, frame, len, x.rqn[0], "9217 bytes");
	expect_refused(&x, frame, SIZE_MAX, x.rqn[0], "SIZE_MAX");
	expect_refused(&x, NULL, 64, x.rqn[0], "NULL");
	/* minimum: 14 bytes */
	s = spec_base(0, 0);
	s.ethertype = 0x0806;
	s.payload = 0;
	len = build(frame, &s);
	CHECK_EQ(len, 14);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	CHECK_EQ(swdev_ctl_rx(x.eng, "nope", frame, len, NULL), ENODEV);
	rule_del(&x, r);
	fx_fini(&x);
}

/* ---- delivery, statistics, capture ---- */

static void
test_direct_and_verdicts(void)
{
	uint8_t frame[256], mask[64] = {0}, val[64] = {0};
	struct swdev_port_stats p0, p;
	struct swdev_rq_stats q;
	struct swdev_rx_info info;
	struct fspec s = spec_base(4, PROTO_TCP);
	uint32_t tir_h, tirn;
	struct rule r, d;
	size_t len;
	struct fx x;

	fx_init(&x);
	len = build(frame, &s);
	p0 = port(&x);
	CHECK_EQ(p0.rx_packets + p0.bad_frames + p0.delivered, 0);
	/* no rule: MISS */
	CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_MISS);
	CHECK_EQ(info.tirn, 0);
	CHECK_EQ(info.rqn, 0);
	CHECK_EQ(info.hash, 0);
	/* direct TIR */
	tir_h = tir_create(&x, false, x.rqn[5], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
		CHECK_EQ(info.tirn, tirn);
		CHECK_EQ(info.rqn, x.rqn[5]);
		CHECK_EQ(info.hash, 0);
	}
	q = rqs(&x, x.rqn[5]);
	CHECK_EQ(q.packets, 3);
	CHECK_EQ(q.bytes, 3 * len);
	CHECK_EQ(q.captured, 3);
	CHECK_EQ(q.state, MDEVX_RQC_STATE_RDY);
	/* a higher-priority DROP on the TCP port */
	OUT(mask, tcp_dport, 0xffff);
	OUT(val, tcp_dport, s.dport);
	d = rule_add(&x, 1, mask, val, SWDEV_FLOW_DEST_DROP, 0);
	CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DROP);
	CHECK_EQ(info.tirn, 0);
	CHECK_EQ(info.rqn, 0);
	rule_del(&x, d);
	/* the RQ not RDY: RST, then ERR */
	CHECK_EQ(rq_set_state(&x, 5, MDEVX_RQC_STATE_RDY, MDEVX_RQC_STATE_RST), 0);
	CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_RQ_DROP);
	CHECK_EQ(info.tirn, tirn);
	CHECK_EQ(info.rqn, x.rqn[5]);
	CHECK_EQ(rqs(&x, x.rqn[5]).state, MDEVX_RQC_STATE_RST);
	CHECK_EQ(rq_set_state(&x, 5, MDEVX_RQC_STATE_RST, MDEVX_RQC_STATE_RDY), 0);
	CHECK_EQ(rq_set_state(&x, 5, MDEVX_RQC_STATE_RDY, MDEVX_RQC_STATE_ERR), 0);
	CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_RQ_DROP);
	CHECK_EQ(rqs(&x, x.rqn[5]).state, MDEVX_RQC_STATE_ERR);
	q = rqs(&x, x.rqn[5]);
	CHECK_EQ(q.packets, 3);
	CHECK_EQ(q.captured, 3);
	CHECK_EQ(rq_set_state(&x, 5, MDEVX_RQC_STATE_ERR, MDEVX_RQC_STATE_RDY), 0);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	p = port(&x);
	CHECK_EQ(p.rx_packets, 8);
	CHECK_EQ(p.rx_bytes, 8 * len);
	CHECK_EQ(p.misses, 1);
	CHECK_EQ(p.delivered, 4);
	CHECK_EQ(p.drops, 1);
	CHECK_EQ(p.rq_drops, 2);
	CHECK_EQ(p.bad_frames, 0);
	/* other RQs untouched; unknown RQ and device */
	q = rqs(&x, x.rqn[4]);
	CHECK_EQ(q.packets + q.bytes + q.captured, 0);
	CHECK_EQ(swdev_ctl_rq_stats(x.eng, DEV, x.rqn[NRQ - 1] + 1, &q), ENOENT);
	CHECK_EQ(swdev_ctl_rq_stats(x.eng, DEV, 0, &q), ENOENT);
	CHECK_EQ(swdev_ctl_rq_stats(x.eng, DEV, tirn, &q), ENOENT);
	CHECK_EQ(swdev_ctl_rq_stats(x.eng, "nope", x.rqn[5], &q), ENODEV);
	CHECK_EQ(swdev_ctl_port_stats(x.eng, "nope", &p), ENODEV);
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[4], 0, frame, sizeof(frame), NULL),
		 ERANGE);
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, 0, 0, frame, sizeof(frame), NULL), ENOENT);
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, "nope", x.rqn[5], 0, frame, 1, NULL), ENODEV);
	rule_del(&x, r);
	/* the rule is gone: MISS again */
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_MISS);
	fx_fini(&x);
}

static void
test_capture(void)
{
	uint8_t frame[1600], got[1600];
	struct swdev_capture_info ci;
	struct fspec s = spec_base(6, PROTO_UDP);
	struct swdev_rq_stats q;
	uint32_t tir_h, tirn, total = 100;
	size_t lens[100];
	struct rule r;
	struct fx x;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[7], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	/* one refused and one missed frame: sequence numbers count accepted frames */
	CHECK_EQ(swdev_ctl_rx(x.eng, DEV, frame, 3, NULL), EINVAL);
	for (uint32_t i = 0; i < total; i++) {
		s.payload = (uint16_t)(i * 13 % 1400);
		s.sport = (uint16_t)i;
		lens[i] = build(frame, &s);
		CHECK_EQ(rx(&x, frame, lens[i], NULL), SWDEV_RX_DELIVERED);
		if (i == 10) {
			struct fspec o = s;
			uint8_t other[128];
			size_t olen;

			o.l3 = 0;
			o.ethertype = 0x0806;
			o.payload = 28;
			olen = build(other, &o);
			other[0] ^= 1;	/* another dmac: MISS, still a sequence number */
			CHECK_EQ(rx(&x, other, olen, NULL), SWDEV_RX_MISS);
		}
		if (i == 40) {
			q = rqs(&x, x.rqn[7]);
			CHECK_EQ(q.captured, 41);
			CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], 0, got, sizeof(got),
						      &ci), 0);
			CHECK_EQ(ci.seq, 1);
			CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], 41, got, 1, &ci),
				 ERANGE);
		}
	}
	q = rqs(&x, x.rqn[7]);
	CHECK_EQ(q.packets, total);
	CHECK_EQ(q.captured, SWDEV_CAPTURE_SLOTS);
	for (uint32_t k = 0; k < SWDEV_CAPTURE_SLOTS; k++) {
		uint32_t i = total - SWDEV_CAPTURE_SLOTS + k;
		size_t caplen = lens[i] < SWDEV_CAPTURE_SNAPLEN ? lens[i] : SWDEV_CAPTURE_SNAPLEN;

		s.payload = (uint16_t)(i * 13 % 1400);
		s.sport = (uint16_t)i;
		build(frame, &s);
		memset(got, 0xcc, sizeof(got));
		memset(&ci, 0xcc, sizeof(ci));
		CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], k, got, sizeof(got), &ci), 0);
		CHECK_EQ(ci.len, lens[i]);
		CHECK_EQ(ci.caplen, caplen);
		CHECK_EQ(ci.hash, 0);
		CHECK_EQ(ci.tirn, tirn);
		CHECK_EQ(ci.seq, i + 1 + (i > 10));	/* the missed frame after #10 */
		CHECK(memcmp(got, frame, caplen) == 0);
		CHECK_EQ(got[caplen], 0xcc);	/* nothing past caplen */
	}
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], SWDEV_CAPTURE_SLOTS, got,
				      sizeof(got), &ci), ERANGE);
	/* a short buffer takes a prefix; no buffer, no details: fine */
	memset(got, 0xcc, sizeof(got));
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], SWDEV_CAPTURE_SLOTS - 1, got, 5,
				      &ci), 0);
	CHECK_EQ(got[5], 0xcc);
	CHECK(memcmp(got, frame, 5) == 0);
	CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, x.rqn[7], 0, NULL, 0, NULL), 0);
	rule_del(&x, r);
	fx_fini(&x);
}

/* RQ destroyed and created again (the same rqn): statistics start from zero. */
static void
test_rq_gone(void)
{
	uint8_t frame[256];
	struct fspec s = spec_base(4, PROTO_UDP);
	struct swdev_rq_stats q;
	uint32_t tir_h, tirn, old;
	size_t len = build(frame, &s);
	struct rule r;
	struct fx x;

	/* traffic, then the engine destroyed with the file and its rule */
	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[200], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	fx_fini(&x);
	fx_init(&x);
	for (int round = 0; round < 3; round++) {
		tir_h = tir_create(&x, false, x.rqn[9], NULL, &tirn);
		r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
		for (int i = 0; i < 5; i++)
			CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
		q = rqs(&x, x.rqn[9]);
		CHECK_EQ(q.packets, 5);
		CHECK_EQ(q.captured, 5);
		rule_del(&x, r);
		CHECK_EQ(swdev_devx_obj_destroy(x.f, x.rq_h[9]), EBUSY);	/* the TIR */
		CHECK_EQ(swdev_devx_obj_destroy(x.f, tir_h), 0);
		CHECK_EQ(swdev_devx_obj_destroy(x.f, x.rq_h[9]), 0);
		old = x.rqn[9];
		CHECK_EQ(swdev_ctl_rq_stats(x.eng, DEV, old, &q), ENOENT);
		CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, old, 0, frame, 1, NULL), ENOENT);
		CHECK_EQ(rq_create(&x, 9), 0);
		CHECK_EQ(x.rqn[9], old);	/* lowest free id: reused */
		q = rqs(&x, x.rqn[9]);
		CHECK_EQ(q.packets + q.bytes + q.captured, 0);
		CHECK_EQ(q.state, MDEVX_RQC_STATE_RDY);
		CHECK_EQ(swdev_ctl_rq_capture(x.eng, DEV, old, 0, frame, 1, NULL), ERANGE);
	}
	/* the file closes with traffic on its RQs (and its rule); then the
	 * device goes with the engine (leaks show under ASan) */
	tir_h = tir_create(&x, false, x.rqn[3], NULL, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	old = x.rqn[3];
	swdev_file_close(x.f);
	CHECK_EQ(swdev_ctl_rq_stats(x.eng, DEV, old, &q), ENOENT);
	CHECK_EQ(port(&x).delivered, 16);
	x.f = swdev_file_open(x.eng, DEV);
	CHECK(x.f != NULL);
	fx_fini(&x);
}

/* ---- RSS ---- */

static uint32_t
be32w(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The expected hash, from rte_softrss(): the fields the TIR selects that
 * the packet has (addresses when its IP version is the selector's L3 type,
 * ports when its L4 header is the selector's L4 type), as DPDK's tuple
 * words.
 */
static uint32_t
expect_hash(const struct fspec *s, const struct hash_cfg *hc)
{
	uint32_t words[10], n = 0, alen = s->l3 == 6 ? 16 : 4;
	bool ip = s->l3 != 0 && (s->l3 == 6) == (hc->l3 == MDEVX_L3_PROT_TYPE_IPV6);
	bool l4 = l4_present(s) &&
		  s->proto == (hc->l4 == MDEVX_L4_PROT_TYPE_UDP ? PROTO_UDP : PROTO_TCP);
	bool sp = l4 && (hc->fields & MDEVX_RX_HASH_FIELD_L4_SPORT);
	bool dp = l4 && (hc->fields & MDEVX_RX_HASH_FIELD_L4_DPORT);

	if (hc->fn == MDEVX_RX_HASH_FN_NONE)
		return 0;
	if (ip && (hc->fields & MDEVX_RX_HASH_FIELD_SRC_IP))
		for (uint32_t i = 0; i < alen; i += 4)
			words[n++] = be32w(s->src + i);
	if (ip && (hc->fields & MDEVX_RX_HASH_FIELD_DST_IP))
		for (uint32_t i = 0; i < alen; i += 4)
			words[n++] = be32w(s->dst + i);
	if (sp && dp)
		words[n++] = (uint32_t)s->sport << 16 | s->dport;
	else if (sp)
		words[n++] = (uint32_t)s->sport << 16;
	else if (dp)
		words[n++] = (uint32_t)s->dport << 16;
	if (hc->fn == MDEVX_RX_HASH_FN_INVERTED_XOR8) {
		/* the XOR of the input bytes, inverted (8 bits); a lone port's
		 * zero half does not change it */
		uint32_t x = 0;

		for (uint32_t i = 0; i < n; i++)
			x ^= words[i] ^ words[i] >> 8 ^ words[i] >> 16 ^ words[i] >> 24;
		return ~x & 0xff;
	}
	return n == 0 ? 0 : rte_softrss(words, n, hc->key);
}

/* The documented RQT index: the hash's low ceil(log2(n)) bits, then % n. */
static uint32_t
expect_index(uint32_t hash, uint32_t n)
{
	uint32_t bits = 0;

	while ((1u << bits) < n)
		bits++;
	return (hash & ((1u << bits) - 1)) % n;
}

static void
random_spec(struct fspec *s)
{
	uint32_t r = rnd32();

	*s = spec_base((r & 1) ? 6 : 4, 0);
	s->proto = (r & 6) == 6 ? PROTO_ICMP : (r & 2) ? PROTO_UDP : PROTO_TCP;
	if ((r & 0x38) == 0x38) {	/* 1 in 8: a tag */
		s->tpid = 0x8100;
		s->tci = (uint16_t)rnd32();
	}
	for (int i = 0; i < 16; i++) {
		s->src[i] = (uint8_t)rnd32();
		s->dst[i] = (uint8_t)rnd32();
	}
	s->sport = (uint16_t)rnd32();
	s->dport = (uint16_t)rnd32();
	s->payload = (uint16_t)(rnd32() % 64);
}

static void
test_rss_sizes(void)
{
	static uint64_t before[NRQ], expect[NRQ];
	unsigned int which[NRQ];
	uint8_t frame[512];
	unsigned long frames = 0, bad_hash = 0, bad_rq = 0, bad_counts = 0;
	struct fx x;

	fx_init(&x);
	for (uint32_t n = 1; n <= NRQ; n++) {
		struct hash_cfg hc = {
			.fn = MDEVX_RX_HASH_FN_TOEPLITZ,
			.fields = n % 16,
			.l3 = (n / 16) & 1,
			.l4 = (n / 32) & 1,
		};
		uint32_t rqt_h, rqtn, tir_h, tirn, rot = rnd32() % NRQ;
		struct rule r;

		for (int i = 0; i < 40; i++)
			hc.key[i] = (uint8_t)rnd32();
		for (uint32_t i = 0; i < n; i++)
			which[i] = (i * 37 + rot) % NRQ;	/* distinct, shuffled */
		rqt_h = rqt_create(&x, n, which, &rqtn);
		tir_h = tir_create(&x, true, rqtn, &hc, &tirn);
		r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
		for (uint32_t i = 0; i < NRQ; i++) {
			before[i] = rqs(&x, x.rqn[i]).packets;
			expect[i] = before[i];
		}
		for (uint32_t k = 0; k < TUPLES_PER_SIZE; k++) {
			struct swdev_rx_info info;
			struct fspec s;
			uint32_t h, rq;
			size_t len;

			random_spec(&s);
			len = build(frame, &s);
			h = expect_hash(&s, &hc);
			rq = which[expect_index(h, n)];
			expect[rq]++;
			frames++;
			CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
			CHECK_EQ(info.tirn, tirn);
			if (info.hash != h && bad_hash++ < 5)
				fprintf(stderr, "n %u fields %#x l3 %u l4 %u ipv%d proto %u: "
					"hash 0x%08x, rte_softrss 0x%08x\n", n, hc.fields,
					hc.l3, hc.l4, s.l3, s.proto, info.hash, h);
			if (info.rqn != x.rqn[rq])
				bad_rq++;
		}
		for (uint32_t i = 0; i < NRQ; i++)
			if (rqs(&x, x.rqn[i]).packets != expect[i])
				bad_counts++;
		rule_del(&x, r);
		CHECK_EQ(swdev_devx_obj_destroy(x.f, tir_h), 0);
		CHECK_EQ(swdev_devx_obj_destroy(x.f, rqt_h), 0);
	}
	printf("%lu frames over RQTs of 1..%u entries: %lu hashes, %lu RQs, %lu counts differ\n",
	       frames, NRQ, bad_hash, bad_rq, bad_counts);
	CHECK(frames >= 100000);
	CHECK_EQ(bad_hash, 0);
	CHECK_EQ(bad_rq, 0);
	CHECK_EQ(bad_counts, 0);
	CHECK_EQ(port(&x).delivered, frames);
	fx_fini(&x);
}

/*
 * Non-power-of-two RQT, hash functions NONE and INVERTED_XOR8, the default
 * test TIR (IPv4/UDP selector) receiving IPv6 and TCP, the RQT modified
 * under traffic.
 */
static void
test_rss_functions(void)
{
	unsigned int which[NRQ];
	uint8_t frame[512];
	struct fx x;
	struct hash_cfg hc = {
		.fn = MDEVX_RX_HASH_FN_NONE,
		.l3 = MDEVX_L3_PROT_TYPE_IPV4,
		.l4 = MDEVX_L4_PROT_TYPE_UDP,
		.fields = 0xf,
	};
	uint32_t rqt_h, rqtn, tir_h, tirn;
	struct swdev_rx_info info;
	struct fspec s;
	struct rule r;
	size_t len;

	fx_init(&x);
	for (uint32_t i = 0; i < 6; i++)
		which[i] = 10 + i;
	rqt_h = rqt_create(&x, 6, which, &rqtn);
	/* NONE: entry 0, hash 0 */
	tir_h = tir_create(&x, true, rqtn, &hc, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	for (int k = 0; k < 200; k++) {
		random_spec(&s);
		len = build(frame, &s);
		CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
		CHECK_EQ(info.hash, 0);
		CHECK_EQ(info.rqn, x.rqn[10]);
	}
	rule_del(&x, r);
	CHECK_EQ(swdev_devx_obj_destroy(x.f, tir_h), 0);
	/* INVERTED_XOR8 */
	hc.fn = MDEVX_RX_HASH_FN_INVERTED_XOR8;
	for (uint32_t fields = 0; fields < 16; fields++) {
		hc.fields = fields;
		tir_h = tir_create(&x, true, rqtn, &hc, &tirn);
		r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
		for (int k = 0; k < 100; k++) {
			uint32_t h;

			random_spec(&s);
			len = build(frame, &s);
			h = expect_hash(&s, &hc);
			CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
			CHECK_EQ(info.hash, h);
			CHECK_EQ(info.rqn, x.rqn[which[expect_index(h, 6)]]);
		}
		rule_del(&x, r);
		CHECK_EQ(swdev_devx_obj_destroy(x.f, tir_h), 0);
	}
	/* the TIR t_build_tir() makes: IPv4/UDP selector, every field, symmetric
	 * bit set (kept, not applied) */
	{
		uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)];

		t_build_tir(in, 1, rqtn, x.tdn);
		CHECK_EQ(create(x.f, in, sizeof(in), &tir_h, &tirn), 0);
	}
	hc.fn = MDEVX_RX_HASH_FN_TOEPLITZ;
	hc.fields = 0xf;
	memcpy(hc.key, t_toeplitz_key, 40);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	for (int k = 0; k < 400; k++) {
		uint32_t h;

		random_spec(&s);
		len = build(frame, &s);
		h = expect_hash(&s, &hc);
		CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
		CHECK_EQ(info.hash, h);
		CHECK_EQ(info.rqn, x.rqn[which[expect_index(h, 6)]]);
		if (s.l3 != 4 && !(l4_present(&s) && s.proto == PROTO_UDP))
			CHECK_EQ(h, 0);	/* nothing the selector names */
	}
	/* MODIFY_RQT to 3 entries: the next frames follow the new table */
	{
		static uint8_t in[MDEVX_ST_SZ_BYTES(modify_rqt_in) + 4 * 3];
		uint8_t out[16];
		uint32_t rqns[3] = { x.rqn[50], x.rqn[51], x.rqn[52] };
		size_t ilen = t_build_rqt(in, rqtn, 6, 3, rqns);

		CHECK_EQ(swdev_devx_obj_modify(x.f, rqt_h, in, ilen, out, sizeof(out)), 0);
		for (int k = 0; k < 200; k++) {
			uint32_t h;

			random_spec(&s);
			len = build(frame, &s);
			h = expect_hash(&s, &hc);
			CHECK_EQ(rx(&x, frame, len, &info), SWDEV_RX_DELIVERED);
			CHECK_EQ(info.rqn, rqns[expect_index(h, 3)]);
		}
	}
	rule_del(&x, r);
	fx_fini(&x);
}

/*
 * Robustness: valid frames of every layout with random bytes of their
 * headers changed and random cuts, through an indirect TIR over RQs in
 * every state; only 0 or EINVAL, and the port statistics add up.
 */
static void
test_random_frames(void)
{
	static uint8_t frame[SWDEV_MAX_FRAME_LEN + 1];
	struct fspec v[32];
	size_t n = layouts(v);
	unsigned int which[16];
	uint64_t sent = 0, refused = 0;
	struct swdev_port_stats p;
	struct hash_cfg hc = { .fn = MDEVX_RX_HASH_FN_TOEPLITZ, .fields = 0xf };
	uint32_t rqtn, tirn, tir_h;
	struct rule r;
	struct fx x;

	fx_init(&x);
	for (unsigned int i = 0; i < 16; i++)
		which[i] = i;
	CHECK_EQ(rq_set_state(&x, 3, MDEVX_RQC_STATE_RDY, MDEVX_RQC_STATE_RST), 0);
	CHECK_EQ(rq_set_state(&x, 4, MDEVX_RQC_STATE_RDY, MDEVX_RQC_STATE_ERR), 0);
	memcpy(hc.key, t_toeplitz_key, 40);
	rqt_create(&x, 16, which, &rqtn);
	tir_h = tir_create(&x, true, rqtn, &hc, &tirn);
	r = rule_all(&x, SWDEV_FLOW_DEST_DEVX, tir_h);
	for (uint32_t k = 0; k < 200000; k++) {
		struct fspec s = v[rnd32() % n];
		size_t len;
		int rc;

		if (k % 3 == 0)
			random_spec(&s);
		len = build(frame, &s);
		for (uint32_t m = rnd32() % 5; m > 0; m--)
			frame[rnd32() % (len < 96 ? len : 96)] = (uint8_t)rnd32();
		if (rnd32() % 4 == 0)
			len = rnd32() % (len + 1);
		rc = swdev_ctl_rx(x.eng, DEV, frame, len, NULL);
		CHECK(rc == 0 || rc == EINVAL);
		sent++;
		refused += rc == EINVAL;
	}
	p = port(&x);
	printf("%llu random frames, %llu refused\n", (unsigned long long)sent,
	       (unsigned long long)refused);
	CHECK_EQ(p.bad_frames, refused);
	CHECK_EQ(p.rx_packets, sent - refused);
	CHECK_EQ(p.rx_packets, p.delivered + p.misses + p.drops + p.rq_drops);
	CHECK(p.rq_drops > 0 && p.delivered > 0 && p.misses > 0 && refused > 0);
	rule_del(&x, r);
	fx_fini(&x);
}

/*
 * Bytes: the frame's length as given, in rx_bytes, in the RQ's bytes and
 * in the octets of a COUNT action on the way (one number for all three).
 */
static void
test_count_bytes(void)
{
	uint8_t frame[1600], out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)];
	uint8_t qout[16 + 16 * 8];
	struct swdev_obj_info bulk;
	struct swdev_flow_attr attr = { .dest = SWDEV_FLOW_DEST_DEVX, .has_counter = 1,
					.counter_offset = 5 };
	struct fspec s = spec_base(4, PROTO_TCP);
	uint8_t mask[64] = {0}, val[64] = {0};
	uint64_t bytes = 0;
	struct swdev_port_stats p;
	struct swdev_rq_stats q;
	uint32_t tir_h, tirn, m, fl;
	struct fx x;

	fx_init(&x);
	tir_h = tir_create(&x, false, x.rqn[2], NULL, &tirn);
	CHECK_EQ(t_alloc_counter(x.f, 0, 3, out, &bulk), 0);	/* 8 counters */
	attr.dest_handle = tir_h;
	attr.counter_handle = bulk.handle;
	OUT(mask, ethertype, 0xffff);
	OUT(val, ethertype, 0x0800);
	CHECK_EQ(swdev_file_matcher_create(x.f, 3, MDEVX_MATCH_CRITERIA_OUTER, mask, 64, &m), 0);
	CHECK_EQ(swdev_file_flow_create(x.f, m, val, 64, &attr, &fl), 0);
	for (uint32_t i = 0; i < 50; i++) {
		size_t len;

		s.payload = (uint16_t)(i * 29);
		s.pad = (uint16_t)(i % 3 ? 0 : 7);	/* padding counts too */
		len = build(frame, &s);
		bytes += len;
		CHECK_EQ(rx(&x, frame, len, NULL), SWDEV_RX_DELIVERED);
	}
	p = port(&x);
	q = rqs(&x, x.rqn[2]);
	CHECK_EQ(p.rx_bytes, bytes);
	CHECK_EQ(q.bytes, bytes);
	CHECK_EQ(q.packets, 50);
	CHECK_EQ(t_query_counter(x.f, bulk.handle, bulk.object_id, 8, 0, qout, sizeof(qout)), 0);
	CHECK_EQ(MDEVX_GET64(traffic_counter, qout + 16 + 16 * 5, packets), 50);
	CHECK_EQ(MDEVX_GET64(traffic_counter, qout + 16 + 16 * 5, octets), bytes);
	CHECK_EQ(MDEVX_GET64(traffic_counter, qout + 16 + 16 * 4, packets), 0);
	fx_fini(&x);
}

int
main(void)
{
	test_parser_image();
	test_truncation();
	test_short_ipv6();
	test_malformed();
	test_direct_and_verdicts();
	test_capture();
	test_count_bytes();
	test_rq_gone();
	test_rss_functions();
	test_rss_sizes();
	test_random_frames();
	return check_summary();
}

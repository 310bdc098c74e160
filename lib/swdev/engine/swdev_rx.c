/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: the port's receive path. A frame is parsed
 * (Ethernet, one VLAN tag, IPv4 or IPv6, TCP or UDP) into the
 * fte_match_set_lyr_2_4 image steering matches on, classified by the
 * steering module (swdev_steer.c), and a frame that reaches a TIR is
 * delivered to an RQ: the direct TIR's inline RQ, or the RQT entry that the
 * indirect TIR's RSS hash selects. Port and per-RQ statistics, and a bounded
 * capture ring per RQ, are read through the control path. The rules are
 * stated in doc/swdev_commands.rst ("Receive path").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define ETH_HLEN 14u
#define VLAN_HLEN 4u
#define ETH_P_IPV4 0x0800u
#define ETH_P_IPV6 0x86ddu
#define ETH_P_8021Q 0x8100u
#define ETH_P_8021AD 0x88a8u
#define IPV4_MIN_HLEN 20u
#define IPV6_HLEN 40u
#define IPV6_FRAG_HLEN 8u
#define IPPROTO_IPV6_FRAG 44u
#define TCP_MIN_HLEN 20u
#define UDP_HLEN 8u
#define PROTO_TCP 6u
#define PROTO_UDP 17u

#define HASH_FIELDS_IP (MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_DST_IP)
#define HASH_FIELDS_L4 (MDEVX_RX_HASH_FIELD_L4_SPORT | MDEVX_RX_HASH_FIELD_L4_DPORT)

/* One captured frame. */
struct rx_slot {
	struct swdev_capture_info ci;
	uint8_t data[SWDEV_CAPTURE_SNAPLEN];
};

/* Receive state of one RQ, allocated on its first delivery. */
struct rx_rq {
	uint64_t packets;
	uint64_t bytes;
	uint32_t captured;	/* slots in use, <= SWDEV_CAPTURE_SLOTS */
	uint32_t next;		/* slot the next frame goes to */
	struct rx_slot slot[SWDEV_CAPTURE_SLOTS];
};

struct swdev_rx {
	struct swdev_port_stats port;
	struct rx_rq **rq;	/* by RQ index (rqn - id base); NULL: no traffic yet */
	uint32_t nrq;		/* entries of rq[] */
};

/* ---- parser ---- */

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define OUT_SET(pkt, fld, v) MDEVX_SET(fte_match_set_lyr_2_4, (pkt)->outer, fld, (v))

/* Ethernet and at most one VLAN tag: the offset of L3, or 0 when truncated. */
static uint32_t
parse_l2(struct swdev_pkt *pkt, uint16_t *ethertype)
{
	const uint8_t *f = pkt->frame;
	uint16_t et = rd16(f + 12);
	uint32_t off = ETH_HLEN;

	OUT_SET(pkt, dmac_47_16, rd32(f));
	OUT_SET(pkt, dmac_15_0, rd16(f + 4));
	OUT_SET(pkt, smac_47_16, rd32(f + 6));
	OUT_SET(pkt, smac_15_0, rd16(f + 10));
	if (et == ETH_P_8021Q || et == ETH_P_8021AD) {
		uint16_t tci;

		if (pkt->len < ETH_HLEN + VLAN_HLEN)
			return 0;
		tci = rd16(f + ETH_HLEN);
		if (et == ETH_P_8021Q)
			OUT_SET(pkt, cvlan_tag, 1);
		else
			OUT_SET(pkt, svlan_tag, 1);
		OUT_SET(pkt, first_prio, tci >> 13);
		OUT_SET(pkt, first_cfi, (tci >> 12) & 1u);
		OUT_SET(pkt, first_vid, tci & 0xfffu);
		et = rd16(f + ETH_HLEN + 2);
		off += VLAN_HLEN;
	}
	OUT_SET(pkt, ethertype, et);
	*ethertype = et;
	return off;
}

/* TCP or UDP header at @p off, bounded by @p end: 0 or EINVAL. */
static int
parse_l4(struct swdev_pkt *pkt, uint32_t off, uint32_t end, uint8_t proto)
{
	const uint8_t *l4 = pkt->frame + off;
	uint32_t room = end - off;

	if (proto == PROTO_TCP) {
		uint32_t hlen;

		if (room < TCP_MIN_HLEN)
			return EINVAL;
		hlen = (uint32_t)(l4[12] >> 4) * 4;
		if (hlen < TCP_MIN_HLEN || hlen > room)
			return EINVAL;
		OUT_SET(pkt, tcp_sport, rd16(l4));
		OUT_SET(pkt, tcp_dport, rd16(l4 + 2));
		OUT_SET(pkt, tcp_flags, (uint32_t)(l4[12] & 1u) << 8 | l4[13]);
	} else if (proto == PROTO_UDP) {
		if (room < UDP_HLEN)
			return EINVAL;
		OUT_SET(pkt, udp_sport, rd16(l4));
		OUT_SET(pkt, udp_dport, rd16(l4 + 2));
	} else {
		return 0;
	}
	pkt->rss.has_l4 = true;
	pkt->rss.sport = rd16(l4);
	pkt->rss.dport = rd16(l4 + 2);
	return 0;
}

static int
parse_ipv4(struct swdev_pkt *pkt, uint32_t off)
{
	const uint8_t *ip = pkt->frame + off;
	uint32_t hlen, tot, frag;
	uint8_t *a;

	if (pkt->len - off < IPV4_MIN_HLEN)
		return EINVAL;
	if ((ip[0] >> 4) != 4)
		return 0;	/* not IPv4 after all: an L2 packet */
	hlen = (uint32_t)(ip[0] & 0xfu) * 4;
	tot = rd16(ip + 2);
	if (hlen < IPV4_MIN_HLEN || hlen > pkt->len - off || tot < hlen ||
	    tot > pkt->len - off)
		return EINVAL;
	frag = rd16(ip + 6);
	OUT_SET(pkt, ip_version, 4);
	OUT_SET(pkt, ip_dscp, ip[1] >> 2);
	OUT_SET(pkt, ip_ecn, ip[1] & 3u);
	OUT_SET(pkt, ip_protocol, ip[9]);
	OUT_SET(pkt, ttl_hoplimit, ip[8]);
	OUT_SET(pkt, frag, (frag & 0x3fffu) != 0);	/* MF or an offset */
	a = MDEVX_ADDR_OF(fte_match_set_lyr_2_4, pkt->outer, src_ipv4_src_ipv6);
	memcpy(a + 12, ip + 12, 4);
	a = MDEVX_ADDR_OF(fte_match_set_lyr_2_4, pkt->outer, dst_ipv4_dst_ipv6);
	memcpy(a + 12, ip + 16, 4);
	pkt->has_l3 = true;
	memcpy(pkt->rss.src, ip + 12, 4);
	memcpy(pkt->rss.dst, ip + 16, 4);
	if ((frag & 0x1fffu) != 0)
		return 0;	/* not the first fragment: no L4 header */
	return parse_l4(pkt, off + hlen, off + tot, ip[9]);
}

static int
parse_ipv6(struct swdev_pkt *pkt, uint32_t off)
{
	const uint8_t *ip = pkt->frame + off;
	uint32_t end, l4off = off + IPV6_HLEN;
	bool first = true;
	uint8_t proto;

	if (pkt->len - off < IPV6_HLEN)
		return EINVAL;
	proto = ip[6];
	if ((ip[0] >> 4) != 6)
		return 0;	/* not IPv6 after all: an L2 packet */
	end = l4off + rd16(ip + 4);
	if (end > pkt->len)
		return EINVAL;
	if (proto == IPPROTO_IPV6_FRAG) {
		const uint8_t *fh = pkt->frame + l4off;

		if (end - l4off < IPV6_FRAG_HLEN)
			return EINVAL;
		proto = fh[0];
		first = (rd16(fh + 2) & 0xfff8u) == 0;
		l4off += IPV6_FRAG_HLEN;
		OUT_SET(pkt, frag, 1);
	}
	OUT_SET(pkt, ip_version, 6);
	OUT_SET(pkt, ip_dscp, (uint32_t)(rd16(ip) >> 6) & 0x3fu);
	OUT_SET(pkt, ip_ecn, (ip[1] >> 4) & 3u);
	OUT_SET(pkt, ip_protocol, proto);
	OUT_SET(pkt, ttl_hoplimit, ip[7]);
	memcpy(MDEVX_ADDR_OF(fte_match_set_lyr_2_4, pkt->outer, src_ipv4_src_ipv6), ip + 8, 16);
	memcpy(MDEVX_ADDR_OF(fte_match_set_lyr_2_4, pkt->outer, dst_ipv4_dst_ipv6), ip + 24, 16);
	pkt->has_l3 = true;
	pkt->rss.ipv6 = true;
	memcpy(pkt->rss.src, ip + 8, 16);
	memcpy(pkt->rss.dst, ip + 24, 16);
	if (!first)
		return 0;
	return parse_l4(pkt, l4off, end, proto);
}

/* Fill @p pkt from @p frame: 0, or EINVAL for a frame the port refuses. */
static int
parse(struct swdev_pkt *pkt, const uint8_t *frame, uint32_t len)
{
	uint16_t et = 0;
	uint32_t off;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	pkt->len = len;
	if (len < ETH_HLEN || len > SWDEV_MAX_FRAME_LEN)
		return EINVAL;
	off = parse_l2(pkt, &et);
	if (off == 0)
		return EINVAL;
	if (et == ETH_P_IPV4)
		return parse_ipv4(pkt, off);
	if (et == ETH_P_IPV6)
		return parse_ipv6(pkt, off);
	return 0;
}

/* ---- RSS ---- */

/*
 * The selected fields the packet has, as the TIR's outer selector names
 * them: addresses only of a packet of the selector's L3 type, ports only
 * of a TCP or UDP header of its L4 type; IPSEC_SPI is never hashed.
 */
static uint32_t
present_fields(const uint8_t *tirc, const struct swdev_pkt *pkt)
{
	uint32_t sel = MDEVX_GET(tirc, tirc, rx_hash_field_selector_outer.selected_fields);
	uint32_t l3 = MDEVX_GET(tirc, tirc, rx_hash_field_selector_outer.l3_prot_type);
	uint32_t l4 = MDEVX_GET(tirc, tirc, rx_hash_field_selector_outer.l4_prot_type);
	uint32_t fields = 0;

	if (pkt->has_l3 && pkt->rss.ipv6 == (l3 == MDEVX_L3_PROT_TYPE_IPV6))
		fields |= sel & HASH_FIELDS_IP;
	if (pkt->rss.has_l4) {
		uint32_t proto = MDEVX_GET(fte_match_set_lyr_2_4, pkt->outer, ip_protocol);

		if (proto == (l4 == MDEVX_L4_PROT_TYPE_UDP ? PROTO_UDP : PROTO_TCP))
			fields |= sel & HASH_FIELDS_L4;
	}
	return fields;
}

static uint32_t
rss_hash(const uint8_t *tirc, const struct swdev_pkt *pkt)
{
	uint8_t in[SWDEV_RSS_INPUT_MAX];
	uint32_t fn = MDEVX_GET(tirc, tirc, rx_hash_fn), x = 0;
	size_t n, i;

	if (fn == MDEVX_RX_HASH_FN_NONE)
		return 0;
	n = swdev_rss_input(&pkt->rss, present_fields(tirc, pkt), in);
	if (fn == MDEVX_RX_HASH_FN_TOEPLITZ)
		return swdev_toeplitz(MDEVX_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), in, n);
	for (i = 0; i < n; i++)	/* INVERTED_XOR8 */
		x ^= in[i];
	return ~x & 0xffu;
}

/* RQT entry of @p hash: its low ceil(log2(actual)) bits, folded by % actual. */
static uint32_t
rqt_index(uint32_t hash, uint32_t actual)
{
	uint32_t mask = 1;

	while (mask < actual)
		mask <<= 1;
	return (hash & (mask - 1)) % actual;
}

/* ---- per-RQ state ---- */

static uint32_t
rq_index(uint32_t rqn)
{
	return rqn - swdev_kind_id_base(SWDEV_KIND_RQ);
}

static struct swdev_rx *
rx_get(struct swdev_dev *dev)
{
	if (dev->rx == NULL)
		dev->rx = calloc(1, sizeof(*dev->rx));
	return dev->rx;
}

static struct rx_rq *
rx_rq_find(const struct swdev_rx *rx, uint32_t rqn)
{
	uint32_t i = rq_index(rqn);

	if (rx == NULL || rqn < swdev_kind_id_base(SWDEV_KIND_RQ) || i >= rx->nrq)
		return NULL;
	return rx->rq[i];
}

/* The state of an RQ that receives a frame, created on its first frame. */
static struct rx_rq *
rx_rq_get(struct swdev_rx *rx, uint32_t rqn)
{
	uint32_t i = rq_index(rqn);

	if (i >= rx->nrq) {
		uint32_t n = rx->nrq == 0 ? 64 : rx->nrq;
		struct rx_rq **t;

		while (n <= i)
			n *= 2;
		t = realloc(rx->rq, (size_t)n * sizeof(*t));
		if (t == NULL)
			return NULL;
		memset(t + rx->nrq, 0, (size_t)(n - rx->nrq) * sizeof(*t));
		rx->rq = t;
		rx->nrq = n;
	}
	if (rx->rq[i] == NULL)
		rx->rq[i] = calloc(1, sizeof(*rx->rq[i]));
	return rx->rq[i];
}

void
swdev_rx_rq_gone(struct swdev_dev *dev, uint32_t rqn)
{
	struct swdev_rx *rx = dev->rx;
	struct rx_rq *q = rx_rq_find(rx, rqn);

	if (q == NULL)
		return;
	rx->rq[rq_index(rqn)] = NULL;
	free(q);
}

void
swdev_rx_rq_teardown(struct swdev_dev *dev, struct swdev_obj *obj)
{
	swdev_rx_rq_gone(dev, obj->id);
}

void
swdev_rx_fini(struct swdev_dev *dev)
{
	struct swdev_rx *rx = dev->rx;
	uint32_t i;

	if (rx == NULL)
		return;
	for (i = 0; i < rx->nrq; i++)
		free(rx->rq[i]);
	free(rx->rq);
	free(rx);
	dev->rx = NULL;
}

static void
capture(struct rx_rq *q, const struct swdev_pkt *pkt, uint32_t hash, uint32_t tirn,
	uint64_t seq)
{
	struct rx_slot *s = &q->slot[q->next];

	s->ci.len = pkt->len;
	s->ci.caplen = pkt->len < SWDEV_CAPTURE_SNAPLEN ? pkt->len : SWDEV_CAPTURE_SNAPLEN;
	s->ci.hash = hash;
	s->ci.tirn = tirn;
	s->ci.seq = seq;
	memcpy(s->data, pkt->frame, s->ci.caplen);
	q->next = (q->next + 1) % SWDEV_CAPTURE_SLOTS;
	if (q->captured < SWDEV_CAPTURE_SLOTS)
		q->captured++;
}

/* ---- delivery ---- */

/*
 * A frame that reached @p tir: choose the RQ, count, capture. Returns 0 or
 * ENOMEM (the RQ's state could not be allocated: counted as an RQ drop).
 */
static int
deliver(struct swdev_dev *dev, const struct swdev_pkt *pkt, const struct swdev_obj *tir,
	struct swdev_rx_info *info)
{
	struct swdev_rx *rx = dev->rx;
	const struct swdev_obj *rq = tir->u.tir.rq;
	struct rx_rq *q;

	info->tirn = tir->id;
	if (rq == NULL) {
		const struct swdev_obj *rqt = tir->u.tir.rqt;

		info->hash = rss_hash(tir->u.tir.tirc, pkt);
		rq = rqt->u.rqt.rqs[rqt_index(info->hash, rqt->u.rqt.actual_size)];
	}
	info->rqn = rq->id;
	if (MDEVX_GET(rqc, rq->u.rq.rqc, state) != MDEVX_RQC_STATE_RDY) {
		info->verdict = SWDEV_RX_RQ_DROP;
		rx->port.rq_drops++;
		return 0;
	}
	q = rx_rq_get(rx, rq->id);
	if (q == NULL) {
		info->verdict = SWDEV_RX_RQ_DROP;
		rx->port.rq_drops++;
		return ENOMEM;
	}
	info->verdict = SWDEV_RX_DELIVERED;
	q->packets++;
	q->bytes += pkt->len;
	capture(q, pkt, info->hash, tir->id, rx->port.rx_packets);
	rx->port.delivered++;
	return 0;
}

int
swdev_ctl_rx(struct swdev_engine *eng, const char *devname, const void *frame, size_t len,
	     struct swdev_rx_info *info)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);
	struct swdev_steer_verdict v = { .verdict = SWDEV_RX_MISS, .tir = NULL };
	struct swdev_rx_info res = { .verdict = SWDEV_RX_MISS };
	struct swdev_pkt pkt;
	struct swdev_rx *rx;
	int rc = 0;

	if (dev == NULL)
		return ENODEV;
	rx = rx_get(dev);
	if (rx == NULL)
		return ENOMEM;
	if (frame == NULL || len > SWDEV_MAX_FRAME_LEN ||
	    parse(&pkt, frame, (uint32_t)len) != 0) {
		rx->port.bad_frames++;
		return EINVAL;
	}
	rx->port.rx_packets++;
	rx->port.rx_bytes += pkt.len;
	swdev_steer_classify(dev, &pkt, &v);
	if (v.verdict == SWDEV_RX_DELIVERED && v.tir != NULL) {
		rc = deliver(dev, &pkt, v.tir, &res);
	} else if (v.verdict == SWDEV_RX_DROP) {
		res.verdict = SWDEV_RX_DROP;
		rx->port.drops++;
	} else {
		rx->port.misses++;
	}
	if (info != NULL)
		*info = res;
	return rc;
}

int
swdev_ctl_port_stats(struct swdev_engine *eng, const char *devname,
		     struct swdev_port_stats *stats)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);

	if (stats == NULL)
		return EINVAL;
	if (dev == NULL)
		return ENODEV;
	if (dev->rx != NULL)
		*stats = dev->rx->port;
	else
		memset(stats, 0, sizeof(*stats));
	return 0;
}

/* The device and the RQ @p rqn: 0, ENODEV or ENOENT. */
static int
rq_lookup(struct swdev_engine *eng, const char *devname, uint32_t rqn, struct swdev_dev **devp,
	  const struct swdev_obj **rqp)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);

	if (dev == NULL)
		return ENODEV;
	*devp = dev;
	*rqp = swdev_obj_by_id(dev, SWDEV_KIND_RQ, rqn);
	return *rqp == NULL ? ENOENT : 0;
}

int
swdev_ctl_rq_stats(struct swdev_engine *eng, const char *devname, uint32_t rqn,
		   struct swdev_rq_stats *stats)
{
	const struct swdev_obj *rq;
	struct swdev_dev *dev;
	const struct rx_rq *q;
	int rc;

	if (stats == NULL)
		return EINVAL;
	rc = rq_lookup(eng, devname, rqn, &dev, &rq);
	if (rc != 0)
		return rc;
	q = rx_rq_find(dev->rx, rqn);
	memset(stats, 0, sizeof(*stats));
	if (q != NULL) {
		stats->packets = q->packets;
		stats->bytes = q->bytes;
		stats->captured = q->captured;
	}
	stats->state = MDEVX_GET(rqc, rq->u.rq.rqc, state);
	return 0;
}

int
swdev_ctl_rq_capture(struct swdev_engine *eng, const char *devname, uint32_t rqn,
		     uint32_t idx, void *buf, size_t buflen, struct swdev_capture_info *ci)
{
	const struct swdev_obj *rq;
	const struct rx_slot *s;
	struct swdev_dev *dev;
	const struct rx_rq *q;
	int rc;

	rc = rq_lookup(eng, devname, rqn, &dev, &rq);
	if (rc != 0)
		return rc;
	q = rx_rq_find(dev->rx, rqn);
	if (q == NULL || idx >= q->captured)
		return ERANGE;
	s = &q->slot[(q->next + SWDEV_CAPTURE_SLOTS - q->captured + idx) % SWDEV_CAPTURE_SLOTS];
	if (buf != NULL && buflen > 0)
		memcpy(buf, s->data, buflen < s->ci.caplen ? buflen : s->ci.caplen);
	if (ci != NULL)
		*ci = s->ci;
	return 0;
}

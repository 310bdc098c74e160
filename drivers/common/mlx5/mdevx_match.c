/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Match helpers: the outer L2-L4 fields of a PRM fte_match_param (its
 * first set, fte_match_set_lyr_2_4) written into a mask and value pair by
 * name, so that a matcher and its rules need no PRM layout in the
 * application. Every field is one run of big-endian bits in the set (a MAC
 * address is smac_47_16 then smac_15_0; an IPv4 address the last dword of
 * its 128-bit IPv4/IPv6 field).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

struct match_field {
	const char *name;
	uint16_t off;		/* bit offset in fte_match_param */
	uint8_t width;		/* bits, 1..64 */
};

#define OUTER_OFF(fld) MDEVX_BIT_OFF(fte_match_param, outer_headers.fld)
#define OUTER_SZ(fld) MDEVX_FLD_SZ_BITS(fte_match_param, outer_headers.fld)
#define FIELD(id, nm, fld, w) [id] = { .name = nm, .off = OUTER_OFF(fld), .width = w }
#define PLAIN(id, nm, fld) FIELD(id, nm, fld, OUTER_SZ(fld))

static const struct match_field fields[MDEVX_MATCH_FIELD_MAX] = {
	FIELD(MDEVX_MATCH_SMAC, "smac", smac_47_16, 48),
	FIELD(MDEVX_MATCH_DMAC, "dmac", dmac_47_16, 48),
	PLAIN(MDEVX_MATCH_ETHERTYPE, "ethertype", ethertype),
	PLAIN(MDEVX_MATCH_VLAN_PRIO, "vlan_prio", first_prio),
	PLAIN(MDEVX_MATCH_VLAN_CFI, "vlan_cfi", first_cfi),
	PLAIN(MDEVX_MATCH_VLAN_ID, "vlan_id", first_vid),
	PLAIN(MDEVX_MATCH_CVLAN_TAG, "cvlan_tag", cvlan_tag),
	PLAIN(MDEVX_MATCH_SVLAN_TAG, "svlan_tag", svlan_tag),
	PLAIN(MDEVX_MATCH_IP_VERSION, "ip_version", ip_version),
	PLAIN(MDEVX_MATCH_IP_PROTOCOL, "ip_protocol", ip_protocol),
	PLAIN(MDEVX_MATCH_IP_DSCP, "ip_dscp", ip_dscp),
	PLAIN(MDEVX_MATCH_IP_ECN, "ip_ecn", ip_ecn),
	PLAIN(MDEVX_MATCH_IP_TTL, "ip_ttl", ttl_hoplimit),
	PLAIN(MDEVX_MATCH_FRAG, "frag", frag),
	[MDEVX_MATCH_SRC_IPV4] = { .name = "src_ipv4", .off = OUTER_OFF(src_ipv4_src_ipv6) + 96,
				   .width = 32 },
	[MDEVX_MATCH_DST_IPV4] = { .name = "dst_ipv4", .off = OUTER_OFF(dst_ipv4_dst_ipv6) + 96,
				   .width = 32 },
	PLAIN(MDEVX_MATCH_TCP_SPORT, "tcp_sport", tcp_sport),
	PLAIN(MDEVX_MATCH_TCP_DPORT, "tcp_dport", tcp_dport),
	PLAIN(MDEVX_MATCH_TCP_FLAGS, "tcp_flags", tcp_flags),
	PLAIN(MDEVX_MATCH_UDP_SPORT, "udp_sport", udp_sport),
	PLAIN(MDEVX_MATCH_UDP_DPORT, "udp_dport", udp_dport),
};

static void
bits_put(uint8_t *buf, unsigned int off, unsigned int width, uint64_t v)
{
	for (unsigned int i = 0; i < width; i++) {
		unsigned int pos = off + i;
		uint8_t bit = (uint8_t)(0x80u >> (pos % 8));

		if ((v >> (width - 1 - i)) & 1)
			buf[pos / 8] |= bit;
		else
			buf[pos / 8] &= (uint8_t)~bit;
	}
}

static uint64_t
bits_get(const uint8_t *buf, unsigned int off, unsigned int width)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int pos = off + i;

		v = v << 1 | ((buf[pos / 8] >> (7 - pos % 8)) & 1);
	}
	return v;
}

/* The field, or NULL with a line naming the call (EINVAL). */
static const struct match_field *
field_of(const char *fn, enum mdevx_match_field f)
{
	if ((unsigned int)f >= MDEVX_MATCH_FIELD_MAX) {
		MDEVX_LOG_FN(ERR, fn, "no match field %u (0..%u): errno=%d (%s)", (unsigned int)f,
			     MDEVX_MATCH_FIELD_MAX - 1, EINVAL, strerror(EINVAL));
		return NULL;
	}
	return &fields[f];
}

MDEVX_API int
mdevx_match_init(struct mdevx_match *m)
{
	if (m == NULL) {
		MDEVX_LOG_FN(ERR, __func__, "NULL match: errno=%d (%s)", EINVAL, strerror(EINVAL));
		return mdevx_ret(EINVAL);
	}
	memset(m, 0, sizeof(*m));
	return 0;
}

MDEVX_API int
mdevx_match_set(struct mdevx_match *m, enum mdevx_match_field f, uint64_t value,
		uint64_t mask)
{
	const struct match_field *d;
	uint64_t lim;

	if (m == NULL) {
		MDEVX_LOG_FN(ERR, __func__, "NULL match: errno=%d (%s)", EINVAL, strerror(EINVAL));
		return mdevx_ret(EINVAL);
	}
	d = field_of(__func__, f);
	if (d == NULL)
		return mdevx_ret(EINVAL);
	lim = d->width == 64 ? UINT64_MAX : (UINT64_C(1) << d->width) - 1;
	if ((mask & ~lim) != 0 || (value & ~mask) != 0) {
		MDEVX_LOG_FN(ERR, __func__, "%s: value %#" PRIx64 " mask %#" PRIx64 ": %s "
			     "(a %u-bit field): errno=%d (%s)", d->name, value, mask,
			     (mask & ~lim) != 0 ? "the mask is wider than the field" :
			     "value bits outside the mask", d->width, EINVAL, strerror(EINVAL));
		return mdevx_ret(EINVAL);
	}
	bits_put(m->mask, d->off, d->width, mask);
	bits_put(m->value, d->off, d->width, value);
	return 0;
}

MDEVX_API int
mdevx_match_get(const struct mdevx_match *m, enum mdevx_match_field f, uint64_t *value,
		uint64_t *mask)
{
	const struct match_field *d;

	if (m == NULL || value == NULL || mask == NULL) {
		MDEVX_LOG_FN(ERR, __func__, "NULL %s: errno=%d (%s)",
			     m == NULL ? "match" : "result", EINVAL, strerror(EINVAL));
		return mdevx_ret(EINVAL);
	}
	d = field_of(__func__, f);
	if (d == NULL)
		return mdevx_ret(EINVAL);
	*value = bits_get(m->value, d->off, d->width);
	*mask = bits_get(m->mask, d->off, d->width);
	return 0;
}

MDEVX_API int
mdevx_match_set_ipv6(struct mdevx_match *m, int dst, const uint8_t addr[16],
		     const uint8_t mask[16])
{
	unsigned int off = (dst ? OUTER_OFF(dst_ipv4_dst_ipv6) : OUTER_OFF(src_ipv4_src_ipv6)) / 8;

	if (m == NULL || addr == NULL || mask == NULL) {
		MDEVX_LOG_FN(ERR, __func__, "NULL %s: errno=%d (%s)",
			     m == NULL ? "match" : addr == NULL ? "address" : "mask", EINVAL,
			     strerror(EINVAL));
		return mdevx_ret(EINVAL);
	}
	for (unsigned int i = 0; i < 16; i++) {
		if (addr[i] & ~mask[i]) {
			MDEVX_LOG_FN(ERR, __func__, "%s_ipv6: address bits outside the mask (byte "
				     "%u): errno=%d (%s)", dst ? "dst" : "src", i, EINVAL,
				     strerror(EINVAL));
			return mdevx_ret(EINVAL);
		}
	}
	memcpy(m->mask + off, mask, 16);
	memcpy(m->value + off, addr, 16);
	return 0;
}

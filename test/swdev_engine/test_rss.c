/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The software device's RSS hash (swdev_rss.c) against DPDK's rte_softrss()
 * (rte_thash.h), an independent implementation: random IPv4 and IPv6
 * tuples with TCP/UDP ports, every subset of the four selectable fields,
 * random keys; plus the published Toeplitz verification vectors (IPv4 with
 * and without ports) under the well-known default key.
 */
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_thash.h>

#include "mdevx_prm.h"
#include "swdev_rss.h"
#include "unit_check.h"

#define TUPLES 100000

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint32_t
rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Big-endian word of 4 bytes. */
static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * DPDK's input for the same fields, built from the tuple the way an
 * application fills rte_ipv4_tuple / rte_ipv6_tuple (addresses as words in
 * CPU order, the ports as one word: source port in the high half); a
 * lone port takes the high half of its word, the rest zero bits, which a
 * Toeplitz hash does not see.
 */
static uint32_t
dpdk_hash(const struct swdev_rss_tuple *t, uint32_t fields, const uint8_t *key)
{
	uint32_t words[10], n = 0, alen = t->ipv6 ? 16 : 4;

	if (fields & MDEVX_RX_HASH_FIELD_SRC_IP)
		for (uint32_t i = 0; i < alen; i += 4)
			words[n++] = be32(t->src + i);
	if (fields & MDEVX_RX_HASH_FIELD_DST_IP)
		for (uint32_t i = 0; i < alen; i += 4)
			words[n++] = be32(t->dst + i);
	if (t->has_l4) {
		bool sp = fields & MDEVX_RX_HASH_FIELD_L4_SPORT;
		bool dp = fields & MDEVX_RX_HASH_FIELD_L4_DPORT;

		if (sp && dp)
			words[n++] = (uint32_t)t->sport << 16 | t->dport;
		else if (sp)
			words[n++] = (uint32_t)t->sport << 16;
		else if (dp)
			words[n++] = (uint32_t)t->dport << 16;
	}
	return n == 0 ? 0 : rte_softrss(words, n, key);
}

static void
test_random_tuples(void)
{
	uint8_t key[SWDEV_RSS_KEY_LEN], in[SWDEV_RSS_INPUT_MAX];
	unsigned long compared = 0, mismatches = 0;

	for (uint32_t k = 0; k < TUPLES; k++) {
		struct swdev_rss_tuple t;

		if (k % 1000 == 0)
			for (int i = 0; i < SWDEV_RSS_KEY_LEN; i++)
				key[i] = (uint8_t)rnd32();
		memset(&t, 0, sizeof(t));
		t.ipv6 = k & 1;
		t.has_l4 = (k & 6) != 6;	/* TCP, UDP (same fields), or neither */
		for (int i = 0; i < 16; i++) {
			t.src[i] = (uint8_t)rnd32();
			t.dst[i] = (uint8_t)rnd32();
		}
		t.sport = (uint16_t)rnd32();
		t.dport = (uint16_t)rnd32();
		for (uint32_t fields = 0; fields < 16; fields++) {
			size_t n = swdev_rss_input(&t, fields, in);
			uint32_t ours = swdev_toeplitz(key, in, n);

			compared++;
			if (ours != dpdk_hash(&t, fields, key) && mismatches++ < 5)
				fprintf(stderr, "tuple %u fields %#x: 0x%08x, DPDK 0x%08x\n", k,
					fields, ours, dpdk_hash(&t, fields, key));
		}
	}
	printf("%lu hashes compared with rte_softrss(), %lu differ\n", compared, mismatches);
	CHECK(compared == TUPLES * 16ul);
	CHECK_EQ(mismatches, 0);
}

/* The published verification vectors of the Toeplitz hash (IPv4). */
static void
test_known_vectors(void)
{
	static const uint8_t key[SWDEV_RSS_KEY_LEN] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
		0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
		0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	static const struct {
		uint8_t src[4], dst[4];
		uint16_t sport, dport;
		uint32_t with_ports, without;
	} v[] = {
		{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x51ccc178, 0x323e8fc2 },
		{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xc626b0ea, 0xd718262a },
		{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0x5c2b394a, 0xd2d0a5de },
		{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0xafc7327f, 0x82989176 },
		{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x10e828a2, 0x5d1809c5 },
	};
	uint8_t in[SWDEV_RSS_INPUT_MAX];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct swdev_rss_tuple t = { .has_l4 = true };
		uint32_t all = MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_DST_IP |
			       MDEVX_RX_HASH_FIELD_L4_SPORT | MDEVX_RX_HASH_FIELD_L4_DPORT;
		size_t n;

		memcpy(t.src, v[i].src, 4);
		memcpy(t.dst, v[i].dst, 4);
		t.sport = v[i].sport;
		t.dport = v[i].dport;
		n = swdev_rss_input(&t, all, in);
		CHECK_EQ(n, 12);
		CHECK_EQ(swdev_toeplitz(key, in, n), v[i].with_ports);
		n = swdev_rss_input(&t, all & ~(MDEVX_RX_HASH_FIELD_L4_SPORT |
						 MDEVX_RX_HASH_FIELD_L4_DPORT), in);
		CHECK_EQ(n, 8);
		CHECK_EQ(swdev_toeplitz(key, in, n), v[i].without);
	}
}

int
main(void)
{
	test_known_vectors();
	test_random_tuples();
	return check_summary();
}

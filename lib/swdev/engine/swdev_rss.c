/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Receive-side scaling of an indirect TIR: hash input and Toeplitz hash. */
#include <string.h>

#include "mdevx_prm.h"
#include "swdev_rss.h"

size_t
swdev_rss_input(const struct swdev_rss_tuple *t, uint32_t selected_fields, uint8_t *buf)
{
	size_t alen = t->ipv6 ? 16 : 4, n = 0;

	if (selected_fields & MDEVX_RX_HASH_FIELD_SRC_IP) {
		memcpy(buf + n, t->src, alen);
		n += alen;
	}
	if (selected_fields & MDEVX_RX_HASH_FIELD_DST_IP) {
		memcpy(buf + n, t->dst, alen);
		n += alen;
	}
	if (t->has_l4 && (selected_fields & MDEVX_RX_HASH_FIELD_L4_SPORT)) {
		buf[n++] = (uint8_t)(t->sport >> 8);
		buf[n++] = (uint8_t)t->sport;
	}
	if (t->has_l4 && (selected_fields & MDEVX_RX_HASH_FIELD_L4_DPORT)) {
		buf[n++] = (uint8_t)(t->dport >> 8);
		buf[n++] = (uint8_t)t->dport;
	}
	return n;
}

uint32_t
swdev_toeplitz(const uint8_t key[SWDEV_RSS_KEY_LEN], const uint8_t *data, size_t len)
{
	/* the key's 32-bit window at the current bit, and the next key byte */
	uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
			  (uint32_t)key[2] << 8 | key[3];
	uint32_t hash = 0;

	if (len > SWDEV_RSS_KEY_LEN - 4)
		len = SWDEV_RSS_KEY_LEN - 4;
	for (size_t i = 0; i < len; i++) {
		uint8_t next = key[i + 4];

		for (int b = 7; b >= 0; b--) {
			if (data[i] & (1u << b))
				hash ^= window;
			window = window << 1 | ((next >> b) & 1u);
		}
	}
	return hash;
}

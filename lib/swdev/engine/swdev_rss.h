/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Receive-side scaling of an indirect TIR, as the device computes it: the
 * hash input built from a packet's fields that the TIR's
 * rx_hash_field_selector selects, in the standard order (source address,
 * destination address, source port, destination port, each in network byte
 * order), and the Toeplitz hash of that input under the TIR's 40-byte
 * rx_hash_toeplitz_key (PRM, TIR context).
 */
#ifndef SWDEV_RSS_H
#define SWDEV_RSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWDEV_RSS_KEY_LEN 40
/** Longest hash input: two IPv6 addresses and two ports. */
#define SWDEV_RSS_INPUT_MAX 36

/** The fields of a packet that a hash may select. */
struct swdev_rss_tuple {
	bool ipv6;
	bool has_l4;			/**< TCP or UDP ports present */
	uint8_t src[16];		/**< network order; the first 4 bytes for IPv4 */
	uint8_t dst[16];
	uint16_t sport;			/**< host order */
	uint16_t dport;
};

/**
 * Write into @p buf (SWDEV_RSS_INPUT_MAX bytes) the hash input of @p t for
 * the MDEVX_RX_HASH_FIELD_* bits in @p selected_fields; a selected field
 * the packet does not have (ports of a packet without TCP/UDP) is left
 * out. @return its length in bytes.
 */
size_t swdev_rss_input(const struct swdev_rss_tuple *t, uint32_t selected_fields, uint8_t *buf);

/**
 * Toeplitz hash of @p len bytes (at most SWDEV_RSS_KEY_LEN - 4) under
 * @p key: for every set bit of the input, most significant bit of the
 * first byte first, the 32 key bits starting at that bit's position are
 * XORed into the result.
 */
uint32_t swdev_toeplitz(const uint8_t key[SWDEV_RSS_KEY_LEN], const uint8_t *data, size_t len);

#endif /* SWDEV_RSS_H */

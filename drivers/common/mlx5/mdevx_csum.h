/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Integrity checksum for the small structures that cross process
 * boundaries (export buffers, registry records). Internal, header only:
 * libmdevx and libmdevx_share both use it.
 *
 * It detects corruption and stray writes, not forgery. Every import by
 * name verifies two of these on its fast path, so it is built for latency:
 * two Fletcher-style lanes over 64-bit words (a running sum, and a sum of
 * the running sums, so that the value and the position of every word
 * count), which need only one addition per word and step, then one
 * multiply per lane state, and a xor-shift-multiply finaliser for readers
 * that truncate the result. A change of a single word always changes the
 * result (see the constants below); two lanes halve the dependency chain.
 */
#ifndef MDEVX_CSUM_H
#define MDEVX_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
mdevx_csum_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline uint64_t
mdevx_csum_fmix(uint64_t r)
{
	r ^= r >> 33;
	r *= 0xff51afd7ed558ccdULL;
	r ^= r >> 33;
	r *= 0xc4ceb9fe1a85ec53ULL;
	r ^= r >> 33;
	return r;
}

/*
 * Checksum of @p len bytes at @p data, mixed with @p seed (a slot index,
 * a format tag), before the finaliser: for a reader that compares all 64
 * bits. The finaliser is a bijection, so it cannot make two sums that
 * differ equal, nor two equal ones differ: a whole-width comparison gains
 * nothing from it, and a lookup saves its two multiplies. Bytes past the
 * last whole word are mixed one by one.
 */
static inline uint64_t
mdevx_csum64_wide(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t a0 = seed, a1 = 0, b0 = 0, b1 = 0, r;
	size_t i;

	for (i = 0; i + 16 <= len; i += 16) {
		a0 += mdevx_csum_word(p + i);
		a1 += mdevx_csum_word(p + i + 8);
		b0 += a0;
		b1 += a1;
	}
	if (i + 8 <= len) {
		a0 += mdevx_csum_word(p + i);
		b0 += a0;
		i += 8;
	}
	for (; i < len; i++) {
		a1 += p[i];
		b1 += a1;
	}
	/*
	 * A word of lane 0 changed by d, k steps from the end, moves r by
	 * d * (K0 + k * K1): odd K0 and even K1 make that factor odd, so the
	 * change never cancels.
	 */
	r = a0 * 0x9e3779b97f4a7c15ULL + b0 * 0xc2b2ae3d27d4eb4eULL +
	    a1 * 0x165667b19e3779f9ULL + b1 * 0x27d4eb2f165667c4ULL;
	return r ^ len;
}

/*
 * The same, finalised: every input bit reaches every output bit, for a
 * reader that keeps only part of the result (a 32-bit field).
 */
static inline uint64_t
mdevx_csum64(const void *data, size_t len, uint64_t seed)
{
	return mdevx_csum_fmix(mdevx_csum64_wide(data, len, seed));
}

#endif /* MDEVX_CSUM_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Standalone program of the import harness (no libFuzzer): the input
 * generator, run by the shared driver (fuzz_driver.c):
 *   fuzz_obj_import_standalone FILE|DIR...      replay inputs (a crash, a corpus)
 *   fuzz_obj_import_standalone [--seed S] [--iterations N] [--stats]
 *                                              N structured pseudo-random inputs
 *   fuzz_obj_import_standalone --emit DIR N [--seed S]
 *                                              write N generated inputs (a seed corpus)
 * Exit status 0 when every input ran (a broken invariant aborts).
 */
#include <stdio.h>

#include "fuzz_driver.h"
#include "fuzz_obj_import.h"

/* The driver's generator, seeded by --seed. */
#define rnd fuzz_rnd

#define INPUT_MAX 4096

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One structured input (fuzz_obj_import.h) into @p b; returns its length. */
static size_t
generate(uint8_t *b)
{
	static const uint8_t hot[] = {	/* header and attribute bytes worth hitting */
		0, 4, 6, 8, 12, 16, 20, 24, 28, 32, 40, 44, 48, 52, 56, 64, 72,
	};
	static const uint8_t base_kinds[] = { 1, 1, 2, 2, 3, 5, 6, 7 };
	uint8_t *pl = b + FUZZ_IMPORT_HDR_LEN;
	size_t plen = 0, i, n;

	b[0] = (uint8_t)rnd();
	if (rnd() % 3 == 0)
		b[0] = (uint8_t)((b[0] & ~7u) | 6);	/* more intact exports */
	if (rnd() % 8 != 0)
		b[0] &= (uint8_t)~0x20;	/* fewer full checks */
	if (rnd() % 4 != 0)
		b[0] &= (uint8_t)~0x40;	/* and injections */
	/* an export (counters, TIRs, TD, CQ, RQ, RQT) and mostly its kind or any */
	b[1] = (uint8_t)(rnd() % 8);
	switch (rnd() % 5) {
	case 0:
		break;
	case 1:
		b[1] |= (uint8_t)(rnd() << 4);
		break;
	default:
		b[1] |= (uint8_t)(base_kinds[b[1]] << 4);
		break;
	}
	b[2] = rnd() % 4 != 0 ? 0 : (uint8_t)rnd();
	b[3] = (uint8_t)rnd();
	if (rnd() % 8 != 0)
		b[3] &= 0x7f;
	put32(b + 4, rnd() % 8 == 0 ? rnd() : rnd() % 2 ? (rnd() % 40) * 4 : rnd() % 160);
	put32(b + 8, rnd() % 8 == 0 ? rnd() : rnd() % 24);
	switch (b[0] & 7) {
	case 0:
	case 1:
		plen = rnd() % 4 == 0 ? rnd() % 200 : 80;
		for (i = 0; i < plen; i++)
			pl[i] = (uint8_t)(rnd() % 3 == 0 ? rnd() : 0);
		if (rnd() % 2 != 0 && plen >= 8) {
			put32(pl, 0x5856444du);	/* magic, version 3, header 48 */
			pl[4] = 3;
			pl[5] = 0;
			pl[6] = 48;
			pl[7] = 0;
			if (plen >= 44) {
				put32(pl + 8, 2);
				put32(pl + 12, 1 + rnd() % 7);
				put32(pl + 40, 32);
			}
		}
		break;
	case 2:
	case 5:
	case 7:
		n = rnd() % 3;
		if ((b[0] & 7) == 7)
			pl[plen++] = (uint8_t)rnd();
		for (i = 0; i < n; i++) {
			pl[plen++] = hot[rnd() % sizeof(hot)] + (uint8_t)(rnd() % 4);
			pl[plen++] = (uint8_t)(rnd() % 2 ? 1u << (rnd() % 8) : rnd());
		}
		break;
	case 3:
		n = 1 + rnd() % 16;
		pl[plen++] = hot[rnd() % sizeof(hot)];
		for (i = 0; i < n; i++)
			pl[plen++] = (uint8_t)rnd();
		break;
	case 4:
		n = 1 + rnd() % 3;
		for (i = 0; i < n; i++) {
			pl[plen++] = (uint8_t)((rnd() % 8) << 5 | (hot[rnd() % sizeof(hot)] / 4));
			put32(pl + plen, rnd() % 2 ? rnd() % 16 : rnd());
			plen += 4;
		}
		break;
	default:
		break;
	}
	return FUZZ_IMPORT_HDR_LEN + plen;
}

static void
print_stats(enum fuzz_run run)
{
	if (run != FUZZ_RUN_EMIT)
		fuzz_obj_import_print_stats(stdout);
}

const struct fuzz_harness fuzz_harness = {
	.input_max = INPUT_MAX,
	.replay_dirs = true,
	.one = fuzz_obj_import_one,
	.generate = generate,
	.fini = fuzz_obj_import_fini,
	.stats = print_stats,
};

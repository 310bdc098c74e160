/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Fuzz harness of libmdevx's import of export buffers (mdevx_obj_import(),
 * mdevx_obj_import_ref(), mdevx_obj_import_ref_verified()) and of the use of
 * what it accepts, on a software device served in-process: shared by the
 * libFuzzer entry point and the standalone driver.
 */
#ifndef FUZZ_OBJ_IMPORT_H
#define FUZZ_OBJ_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * Run one input. The first call sets up the device, its objects and their
 * export buffers. abort() when an invariant is broken.
 */
void fuzz_obj_import_one(const uint8_t *data, size_t size);
/** Release the objects, the contexts and the in-process device. */
void fuzz_obj_import_fini(void);

/* Outcome counters, for the standalone driver's --stats. */
struct fuzz_obj_import_stats {
	unsigned long inputs;
	unsigned long accepted[3];	/**< per flavour: obj, ref, ref_verified */
	unsigned long refused[3];
	unsigned long cnt_query_ok, cnt_query_fail;
	unsigned long tir_query_ok, tir_query_fail;
	unsigned long device_cmds;	/**< device commands asked by inputs */
};
extern struct fuzz_obj_import_stats fuzz_obj_import_stats;
/** Print the counters (also at the end of a libFuzzer run with $FUZZ_STATS set). */
void fuzz_obj_import_print_stats(FILE *f);

/*
 * Input format (missing bytes read as 0):
 *   [0]     bits 0-2 buffer source: 0 the payload as is, 1 the payload with
 *           its checksum corrected, 2 an export with payload (position,
 *           value) pairs XORed in, 3 an export with the payload spliced in
 *           at payload[0], 4 an export with (field, value) records set,
 *           5 as 2 without checksum correction, 6 an export untouched,
 *           7 the header of one export with the attributes of another;
 *           checksums are corrected as mdevx_export.c computes them.
 *           bits 3-4 flavours: 0 mdevx_obj_import(), 1 mdevx_obj_import_ref(),
 *           2 mdevx_obj_import_ref_verified(), 3 all three.
 *           bit 5 full check (device object count, the originals intact);
 *           bit 6 inject traffic first; bit 7 queries read and clear.
 *   [1]     bits 0-3 which export (modulo their number); bits 4-7 the kind
 *           the caller expects (values past the last kind are invalid ones).
 *   [2]     length: bits 0-1 0 exact, 1 shorter by bits 2-7, 2 longer by
 *           bits 2-7, 3 exactly bits 2-7.
 *   [3]     use: bit 0 counter query, bit 1 TIR query, bit 2 export again
 *           and import that, bit 3 use after unimport, bit 4 revoke first,
 *           bit 5 import twice, bit 6 queries of the wrong kind, bit 7 the
 *           offset and count are taken as they are (else bounded).
 *   [4..7]  counter offset, [8..11] counter count (little-endian).
 *   [12..]  payload.
 */
#define FUZZ_IMPORT_HDR_LEN 12

#endif /* FUZZ_OBJ_IMPORT_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Fuzz harness over the software device engine: shared by both drivers. */
#ifndef FUZZ_SWDEV_CMD_H
#define FUZZ_SWDEV_CMD_H

#include <stddef.h>
#include <stdint.h>

/** Run one input against the persistent engine (recreated periodically). */
void fuzz_swdev_one(const uint8_t *data, size_t size);
/** Check the engine's invariants; abort() when one is broken. */
void fuzz_swdev_check(void);
/** Results per entry point: [entry][0 ok, 1 EREMOTEIO, 2 other errno]. */
extern unsigned long fuzz_swdev_stats[8][3];
/** Free the persistent engine (end of a standalone run). */
void fuzz_swdev_fini(void);

/*
 * Input format (everything optional, missing bytes read as 0):
 *   [0]    entry point: 0 create, 1 query, 2 modify, 3 general, 4 destroy,
 *          5 verbs, 6 control, 7 reopen a file
 *   [1]    bit 0: file; bit 1: replace the opcode by a known one (from [6]);
 *          bit 2: fix up object ids from live objects; bits 3-7: selector
 *   [2..3] handle (big-endian)
 *   [4..5] output length (big-endian, capped)
 *   [6]    known-opcode index / control argument
 *   [7..]  the mailbox
 */
#define FUZZ_HDR_LEN 7

#endif /* FUZZ_SWDEV_CMD_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Standalone driver shared by the fuzz harnesses (no libFuzzer):
 *   PROG FILE...                 replay inputs (a crash, a corpus)
 *   PROG [--seed S] [--iterations N] [--stats]
 *                                N structured pseudo-random inputs
 *   PROG --emit DIR N [--seed S] write N generated inputs (a seed corpus)
 * The driver has main(); each program supplies fuzz_harness: its entry points
 * and its input generator.
 */
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a run did, for the harness's --stats report. */
enum fuzz_run {
	FUZZ_RUN_REPLAY,	/**< inputs replayed from files */
	FUZZ_RUN_GENERATE,	/**< generated inputs run */
	FUZZ_RUN_EMIT,		/**< generated inputs written (--emit) */
};

struct fuzz_harness {
	/** Largest input generate() writes. */
	size_t input_max;
	/** A replay argument may be a directory: every regular file in it. */
	bool replay_dirs;
	/** Run one input. */
	void (*one)(const uint8_t *data, size_t size);
	/** Write one structured input (with fuzz_rnd()) into @p buf; its length. */
	size_t (*generate)(uint8_t *buf);
	/** End of the run. */
	void (*fini)(void);
	/** --stats: report what @p run did (NULL: none). */
	void (*stats)(enum fuzz_run run);
};

/** Next pseudo-random number of the generator (seeded by --seed). */
uint32_t fuzz_rnd(void);

/** The harness the driver's main() runs: each standalone program defines it. */
extern const struct fuzz_harness fuzz_harness;

#endif /* FUZZ_DRIVER_H */

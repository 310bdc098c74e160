/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Standalone driver of the import harness (no libFuzzer):
 *   fuzz_obj_import_standalone FILE|DIR...      replay inputs (a crash, a corpus)
 *   fuzz_obj_import_standalone [--seed S] [--iterations N] [--stats]
 *                                              N structured pseudo-random inputs
 *   fuzz_obj_import_standalone --emit DIR N [--seed S]
 *                                              write N generated inputs (a seed corpus)
 * Exit status 0 when every input ran (a broken invariant aborts).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_obj_import.h"

#define INPUT_MAX 4096

static uint64_t rng_state;

static uint32_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

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

static int
replay_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (fp == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	fuzz_obj_import_one(buf, n);
	return 1;
}

/* A file, or every regular file of a directory. Returns inputs run, -1. */
static int
replay(const char *path)
{
	char sub[4096];
	struct dirent *de;
	struct stat st;
	int total = 0, rc;
	DIR *d;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	d = opendir(path);
	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (stat(sub, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		rc = replay_file(sub);
		if (rc < 0) {
			closedir(d);
			return -1;
		}
		total += rc;
	}
	closedir(d);
	return total;
}

int
main(int argc, char **argv)
{
	static uint8_t buf[INPUT_MAX];
	unsigned long iterations = 20000, seed = 1, i;
	const char *emit_dir = NULL;
	int a, rc, nfiles = 0, replayed = 0, stats = 0;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) {
			seed = strtoul(argv[++a], NULL, 0);
		} else if (strcmp(argv[a], "--iterations") == 0 && a + 1 < argc) {
			iterations = strtoul(argv[++a], NULL, 0);
		} else if (strcmp(argv[a], "--emit") == 0 && a + 2 < argc) {
			emit_dir = argv[++a];
			iterations = strtoul(argv[++a], NULL, 0);
		} else if (strcmp(argv[a], "--stats") == 0) {
			stats = 1;
		} else if (strcmp(argv[a], "--help") == 0) {
			printf("usage: %s [--seed S] [--iterations N] [--emit DIR N] [--stats] "
			       "[FILE|DIR...]\n", argv[0]);
			return 0;
		} else {
			rc = replay(argv[a]);
			if (rc < 0)
				return 1;
			replayed += rc;
			nfiles++;
		}
	}
	if (nfiles > 0) {
		fuzz_obj_import_fini();
		printf("%d inputs replayed\n", replayed);
		if (stats)
			fuzz_obj_import_print_stats(stdout);
		return 0;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < iterations; i++) {
		size_t n = generate(buf);

		if (emit_dir != NULL) {
			char path[4096];
			FILE *fp;

			snprintf(path, sizeof(path), "%s/seed-%06lu", emit_dir, i);
			fp = fopen(path, "wb");
			if (fp == NULL || fwrite(buf, 1, n, fp) != n) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				if (fp != NULL)
					fclose(fp);
				return 1;
			}
			fclose(fp);
			continue;
		}
		fuzz_obj_import_one(buf, n);
	}
	fuzz_obj_import_fini();
	printf("%lu inputs %s (seed %lu)\n", iterations, emit_dir ? "written" : "run", seed);
	if (stats && emit_dir == NULL)
		fuzz_obj_import_print_stats(stdout);
	return 0;
}

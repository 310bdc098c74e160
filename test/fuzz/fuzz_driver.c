/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Standalone driver shared by the fuzz harnesses (fuzz_driver.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_driver.h"

static uint64_t rng_state;

uint32_t
fuzz_rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static int
replay_file(const struct fuzz_harness *h, const char *path)
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
	h->one(buf, n);
	return 1;
}

/* A file, or (replay_dirs) every regular file of a directory. Inputs run, -1. */
static int
replay(const struct fuzz_harness *h, const char *path)
{
	char sub[4096];
	struct dirent *de;
	struct stat st;
	int total = 0, rc;
	DIR *d;

	if (!h->replay_dirs)
		return replay_file(h, path);
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(h, path);
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
		rc = replay_file(h, sub);
		if (rc < 0) {
			closedir(d);
			return -1;
		}
		total += rc;
	}
	closedir(d);
	return total;
}

static int
emit(const char *dir, unsigned long i, const uint8_t *buf, size_t n)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/seed-%06lu", dir, i);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(buf, 1, n, fp) != n) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fp != NULL)
			fclose(fp);
		return -1;
	}
	fclose(fp);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct fuzz_harness *h = &fuzz_harness;
	unsigned long iterations = 20000, seed = 1, i;
	const char *emit_dir = NULL;
	int a, rc, nfiles = 0, replayed = 0, stats = 0;
	uint8_t *buf;

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
			       "[%s...]\n", argv[0], h->replay_dirs ? "FILE|DIR" : "FILE");
			return 0;
		} else {
			rc = replay(h, argv[a]);
			if (rc < 0)
				return 1;
			replayed += rc;
			nfiles++;
		}
	}
	if (nfiles > 0) {
		h->fini();
		printf("%d inputs replayed\n", replayed);
		if (stats && h->stats != NULL)
			h->stats(FUZZ_RUN_REPLAY);
		return 0;
	}
	buf = calloc(1, h->input_max);
	if (buf == NULL) {
		fprintf(stderr, "%s\n", strerror(errno));
		return 1;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < iterations; i++) {
		size_t n = h->generate(buf);

		if (emit_dir == NULL) {
			h->one(buf, n);
		} else if (emit(emit_dir, i, buf, n) != 0) {
			free(buf);
			return 1;
		}
	}
	free(buf);
	h->fini();
	printf("%lu inputs %s (seed %lu)\n", iterations, emit_dir ? "written" : "run", seed);
	if (stats && h->stats != NULL)
		h->stats(emit_dir != NULL ? FUZZ_RUN_EMIT : FUZZ_RUN_GENERATE);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The rdma backend's export path, chosen at run time from the libmlx5 the
 * process loaded (mdevx_backend_rdma.c), without a NIC:
 *
 *   test_rdma_export_path <expected path> <expected release> [--resolve-only]
 *
 * run_rdma_export_path.sh derives both from the installed rdma-core. The
 * program loading at all is part of the test: libmdevx must not refer to
 * the rdma-core 63 calls at link time, whatever headers it was built with.
 * Checks what mdevx_rdma_export_path() reports, and the log line: exactly
 * one, on the first rdma-core context the process asks for (opened or
 * imported, here failing for want of a device), none before and none after.
 * --resolve-only: only what mdevx_rdma_export_path() reports (the script
 * runs it so on a copy of libmlx5 whose name tells no release).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "mdevx.h"
#include "mdevx_driver.h"
#include "unit_check.h"

static char *log_buf;
static size_t log_len;

/* Occurrences of @p needle in what the library logged so far. */
static unsigned int
log_count(FILE *f, const char *needle)
{
	unsigned int n = 0;
	const char *p;

	fflush(f);
	for (p = log_buf; p != NULL && (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

int
main(int argc, char **argv)
{
	char release[32], line[128], small[3];
	const char *path, *phrase;
	struct mdevx_ctx *ctx;
	FILE *f;
	int fd;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--resolve-only") != 0)) {
		fprintf(stderr, "usage: %s <native|compat|none> <release> [--resolve-only]\n",
			argv[0]);
		return 2;
	}
	f = open_memstream(&log_buf, &log_len);
	if (f == NULL || rte_openlog_stream(f) != 0) {
		perror("log stream");
		return 1;
	}

	/* The resolution itself needs no device and logs nothing. */
	path = mdevx_rdma_export_path(release, sizeof(release));
	printf("export path %s, rdma-core release %s (expected %s, %s)\n", path, release,
	       argv[1], argv[2]);
	CHECK(strcmp(path, argv[1]) == 0);
	CHECK(strcmp(release, argv[2]) == 0);
	CHECK(strcmp(mdevx_rdma_export_path(NULL, 0), path) == 0);
	CHECK(strcmp(mdevx_rdma_export_path(small, sizeof(small)), path) == 0);
	CHECK(strlen(small) == sizeof(small) - 1);
	CHECK(strncmp(small, release, sizeof(small) - 1) == 0);
	CHECK(log_count(f, "rdma-core ") == 0);
	if (argc == 4)
		goto out;

	/*
	 * The first rdma-core context logs the line, also when it cannot be
	 * had (no such device; no uverbs at all on a machine without RDMA).
	 */
	snprintf(line, sizeof(line), "mdevx: rdma-core %s (libmlx5", release);
	phrase = strcmp(path, "native") == 0 ? "export/import on the native path" :
		 strcmp(path, "compat") == 0 ? "export/import on the compatibility path" :
		 "no export/import";
	ctx = mdevx_open("rdma:mdevx_test_no_such_device");
	CHECK(ctx == NULL);
	CHECK(log_count(f, line) == 1);
	CHECK(log_count(f, phrase) == 1);

	/* Once per process: not again for another open, nor for an import. */
	ctx = mdevx_open("rdma:mdevx_test_no_such_device");
	CHECK(ctx == NULL);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	ctx = mdevx_import_device("rdma:mdevx_test_no_such_device", fd);
	CHECK(ctx == NULL);
	if (fd >= 0 && fcntl(fd, F_GETFD) >= 0)
		close(fd);
	CHECK(log_count(f, "rdma-core ") == 1);

out:
	rte_openlog_stream(NULL);
	fclose(f);
	printf("logged:\n%s", log_buf != NULL ? log_buf : "");
	free(log_buf);
	return check_summary();
}

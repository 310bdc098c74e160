/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * A client of libmdevx alone, built against an installed prefix with
 * `cc mdevx_client.c $(pkg-config --cflags --libs libmdevx)` (the install
 * test, devtools/test-install.sh; doc/driver.rst shows this file).
 *
 * It exports a flow counter bulk from one context and imports it on a
 * second context of the same uverbs file, then checks that both describe
 * and read the same counters. No EAL: libmdevx does not need it.
 * usage: mdevx_client [DEVSTR]   (default rdma:mlx5_0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mdevx.h>

#define BULK 4

static int
fail(const char *what, int err)
{
	fprintf(stderr, "mdevx_client: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	const char *devstr = argc > 1 ? argv[1] : "rdma:mlx5_0";
	struct mdevx_counter_stats st[BULK], st_imp[BULK];
	struct mdevx_obj_info info, info_imp;
	struct mdevx_ctx *ctx, *ctx2;
	struct mdevx_obj *cnt, *imp;
	void *buf;
	size_t sz;
	int fd, i;

	/* The exporter: a context and a bulk of BULK flow counters. */
	ctx = mdevx_open(devstr);
	if (ctx == NULL)
		return fail("mdevx_open", errno);
	cnt = mdevx_counter_alloc(ctx, BULK);
	if (cnt == NULL)
		return fail("mdevx_counter_alloc", errno);
	if (mdevx_export_size(ctx, &sz) != 0)
		return fail("mdevx_export_size", errno);
	buf = malloc(sz);
	if (buf == NULL)
		return fail("malloc", ENOMEM);
	if (mdevx_obj_export(cnt, buf, sz) != 0)
		return fail("mdevx_obj_export", errno);

	/* The importer: a context on the same uverbs file (another process
	 * would receive the fd over a Unix socket). */
	fd = dup(mdevx_cmd_fd(ctx));
	ctx2 = fd < 0 ? NULL : mdevx_import_device(devstr, fd);
	if (ctx2 == NULL)
		return fail("mdevx_import_device", errno);
	imp = mdevx_obj_import(ctx2, buf, sz, MDEVX_OBJ_FLOW_COUNTER);
	if (imp == NULL)
		return fail("mdevx_obj_import", errno);

	/* Both name the same bulk and read the same values. */
	if (mdevx_obj_info(cnt, &info) != 0 || mdevx_obj_info(imp, &info_imp) != 0)
		return fail("mdevx_obj_info", errno);
	if (info_imp.id != info.id || info_imp.bulk_size != BULK || !info_imp.imported)
		return fail("import differs from the original", EPROTO);
	if (mdevx_counter_query(cnt, 0, BULK, 0, st) != 0 ||
	    mdevx_counter_query(imp, 0, BULK, 0, st_imp) != 0)
		return fail("mdevx_counter_query", errno);
	for (i = 0; i < BULK; i++)
		if (st[i].packets != st_imp[i].packets || st[i].bytes != st_imp[i].bytes)
			return fail("counters differ", EPROTO);

	/* Release in order: the import, the object, the contexts. */
	if (mdevx_obj_unimport(imp) != 0 || mdevx_obj_destroy(cnt) != 0)
		return fail("release", errno);
	if (mdevx_close(ctx2) != 0 || mdevx_close(ctx) != 0)
		return fail("mdevx_close", errno);
	free(buf);
	printf("mdevx_client: counter %u bulk %u imported and read on %s: OK\n",
	       info.id, info_imp.bulk_size, devstr);
	return EXIT_SUCCESS;
}

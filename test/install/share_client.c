/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * A DPDK program using libmdevx_share, built against an installed prefix
 * with `cc share_client.c $(pkg-config --cflags --libs libmdevx_share)`
 * alone (the install test, devtools/test-install.sh; doc/install.rst
 * shows this file).
 *
 * As a primary it opens the device for sharing, publishes a flow counter
 * bulk, looks its record up and checks it against the object, imports it
 * and reads it through the import as a secondary would, then withdraws it.
 * usage: share_client [EAL options] [-- DEVSTR]
 *        (default rdma:mlx5_0; on the software device, run under `mlx5-swdev run`)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <mdevx.h>
#include <mdevx_share.h>

#define BULK 8
#define NAME "install-counters"

static int
fail(const char *what, int err)
{
	fprintf(stderr, "share_client: %s: %s\n", what, strerror(err < 0 ? -err : err));
	rte_eal_cleanup();
	return EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_record rec;
	struct mdevx_share_dev *dev;
	struct mdevx_obj_info info;
	const char *devstr;
	mdevx_share_imp_t imp;
	struct mdevx_obj *cnt;
	uint32_t published;
	unsigned int acked;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return fail("rte_eal_init", rte_errno);
	devstr = argc - n > 1 ? argv[n + 1] : "rdma:mlx5_0";

	/* Primary: the device, shared; a bulk of counters, published. */
	dev = mdevx_share_dev_open(devstr, NULL);
	if (dev == NULL)
		return fail("mdevx_share_dev_open", errno);
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), BULK);
	if (cnt == NULL || mdevx_obj_info(cnt, &info) != 0)
		return fail("mdevx_counter_alloc", errno);
	if (mdevx_share_publish(dev, NAME, cnt) != 0)	/* dev owns cnt now */
		return fail("mdevx_share_publish", errno);
	published = mdevx_share_record_count(dev);
	if (published != 1)
		return fail("mdevx_share_record_count after publish", EPROTO);

	/* Any process: the record by name describes the object. */
	if (mdevx_share_lookup(dev, NAME, &rec) != 0)
		return fail("mdevx_share_lookup", errno);
	if (rec.kind != MDEVX_OBJ_FLOW_COUNTER || rec.withdrawn || rec.object_id != info.id ||
	    rec.bulk_size != BULK || strcmp(rec.name, NAME) != 0)
		return fail("the record differs from the object", EPROTO);

	/* Import by name and read the counters through the import. */
	if (mdevx_share_import(dev, NAME, MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
		return fail("mdevx_share_import", errno);
	if (mdevx_share_counter_query(dev, imp, 0, BULK, 0, st) != 0)
		return fail("mdevx_share_counter_query", errno);
	if (mdevx_share_unimport(dev, imp) != 0)
		return fail("mdevx_share_unimport", errno);

	/* Withdraw (destroys the object), then close. */
	if (mdevx_share_withdraw(dev, NAME, &acked) != 0)
		return fail("mdevx_share_withdraw", errno);
	if (mdevx_share_lookup(dev, NAME, &rec) != -ENOENT || mdevx_share_record_count(dev) != 0)
		return fail("the record outlived its withdrawal", EPROTO);
	if (mdevx_share_dev_close(dev) != 0)
		return fail("mdevx_share_dev_close", errno);
	printf("share_client: %s published (%u record), looked up (counter %u, bulk %u), "
	       "imported, read, withdrawn on %s: OK\n", NAME, published, info.id, info.bulk_size,
	       devstr);
	rte_eal_cleanup();
	return EXIT_SUCCESS;
}

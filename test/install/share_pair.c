/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * A primary and its secondary sharing a counter bulk and a TIR, built
 * against an installed prefix with
 * `cc share_pair.c $(pkg-config --cflags --libs libmdevx_share)` alone (the
 * install test, devtools/test-install.sh; doc/share.rst shows this file).
 *
 * The primary publishes a bulk of counters and a direct TIR on queues of
 * its own, then starts this program again as its secondary and waits for
 * it. The secondary imports both by name, reads the counters and steers
 * UDP port 4789 to the TIR, counted on the bulk's first counter. The
 * primary then withdraws the bulk and closes: the close withdraws the TIR,
 * the queues go after it.
 * usage: share_pair [EAL options] [-- DEVSTR]
 *        (default rdma:mlx5_0; on the software device, run under `mlx5-swdev run`)
 */
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <mdevx.h>
#include <mdevx_share.h>

#define BULK 128

extern char **environ;

static int
fail(const char *who, const char *what, int err)
{
	fprintf(stderr, "share_pair %s: %s: %s\n", who, what, strerror(err < 0 ? -err : err));
	rte_eal_cleanup();
	return EXIT_FAILURE;
}

/* The object's id (rqn, tdn, ...), or 0. */
static uint32_t
obj_id(struct mdevx_obj *obj)
{
	struct mdevx_obj_info info;

	return mdevx_obj_info(obj, &info) == 0 ? info.id : 0;
}

static int
secondary(const char *devstr)
{
	struct mdevx_counter_stats st[BULK];
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	struct mdevx_share_dev *dev;
	struct mdevx_matcher *m;
	mdevx_share_rule_t rule;
	mdevx_share_imp_t c, t;
	struct mdevx_match match;

	dev = mdevx_share_dev_attach(devstr);
	if (dev == NULL)
		return fail("secondary", "mdevx_share_dev_attach", errno);
	if (mdevx_share_import(dev, "rx-counters", MDEVX_OBJ_FLOW_COUNTER, &c) != 0 ||
	    mdevx_share_import(dev, "rx-tir", MDEVX_OBJ_TIR, &t) != 0)
		return fail("secondary", "mdevx_share_import", errno);
	if (mdevx_share_counter_query(dev, c, 0, BULK, 0, st) != 0)	/* one command */
		return fail("secondary", "mdevx_share_counter_query", errno);

	/* UDP to port 4789 goes to the primary's TIR, counted on counter 0 of its bulk. */
	mdevx_match_init(&match);
	mdevx_match_set(&match, MDEVX_MATCH_IP_PROTOCOL, 17, 0xff);
	mdevx_match_set(&match, MDEVX_MATCH_UDP_DPORT, 4789, 0xffff);
	memset(&ma, 0, sizeof(ma));
	ma.priority = 1;
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = match.mask;
	ma.mask_len = sizeof(match.mask);
	m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	if (m == NULL)
		return fail("secondary", "mdevx_matcher_create", errno);
	memset(&ra, 0, sizeof(ra));
	ra.value = match.value;
	ra.value_len = sizeof(match.value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = t;
	ra.counter_imp = c;
	ra.counter_offset = 0;	/* an offset inside a bulk needs rdma-core 60 */
	rule = mdevx_share_rule_create(dev, m, &ra);
	if (rule.id == 0)
		return fail("secondary", "mdevx_share_rule_create", errno);

	if (mdevx_share_rule_destroy(dev, rule) != 0 || mdevx_matcher_destroy(m) != 0 ||
	    mdevx_share_unimport(dev, t) != 0 || mdevx_share_unimport(dev, c) != 0)
		return fail("secondary", "release", errno);
	if (mdevx_share_dev_close(dev) != 0)
		return fail("secondary", "mdevx_share_dev_close", errno);
	printf("share_pair secondary: imported rx-counters and rx-tir, read %u counters, "
	       "steered UDP 4789 to the TIR: OK\n", BULK);
	rte_eal_cleanup();
	return EXIT_SUCCESS;
}

/*
 * This program again, with the arguments it was given (@p args, saved
 * before rte_eal_init() reordered argv), as a secondary of the same
 * instance: its exit status. posix_spawn() rather than fork(): DPDK's mlx5
 * drivers call ibv_fork_init(), after which heap pages may be absent in a
 * forked child.
 */
static int
run_secondary(char **args)
{
	int status;
	pid_t pid;

	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
main(int argc, char **argv)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 6 };
	struct mdevx_obj *td, *pd, *cq, *rq, *cnt, *tir;
	struct mdevx_share_dev *dev;
	struct mdevx_tir_attr ta;
	struct mdevx_rq_attr rqa;
	const char *devstr;
	struct mdevx_ctx *ctx;
	unsigned int acked;
	char **args;
	int n, rc;

	/* The secondary's command line: ours, with --proc-type=secondary. */
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (args == NULL)
		return fail("primary", "calloc", ENOMEM);
	args[0] = argv[0];
	args[1] = (char *)(uintptr_t)"--proc-type=secondary";
	memcpy(&args[2], &argv[1], (size_t)(argc - 1) * sizeof(*args));
	n = rte_eal_init(argc, argv);
	if (n < 0)
		return fail("primary", "rte_eal_init", rte_errno);
	devstr = argc - n > 1 ? argv[n + 1] : "rdma:mlx5_0";
	if (rte_eal_process_type() == RTE_PROC_SECONDARY)
		return secondary(devstr);

	dev = mdevx_share_dev_open(devstr, NULL);
	if (dev == NULL)
		return fail("primary", "mdevx_share_dev_open", errno);
	ctx = mdevx_share_dev_ctx(dev);
	cnt = mdevx_counter_alloc(ctx, BULK);
	if (cnt == NULL || mdevx_share_publish(dev, "rx-counters", cnt) != 0)	/* dev owns cnt */
		return fail("primary", "the counter bulk", errno);

	/* A direct TIR: a transport domain, and an RQ with its CQ and PD. */
	td = mdevx_td_alloc(ctx);
	pd = mdevx_pd_alloc(ctx);
	cq = mdevx_cq_create(ctx, &cqa);
	if (td == NULL || pd == NULL || cq == NULL)
		return fail("primary", "TD, PD, CQ", errno);
	memset(&rqa, 0, sizeof(rqa));
	rqa.cq = cq;
	rqa.pd = pd;
	rqa.log_wq_size = 6;	/* 64 WQEs */
	rqa.log_wq_stride = 6;	/* of 64 bytes */
	rqa.user_index = 1;
	rq = mdevx_rq_create(ctx, &rqa);
	if (rq == NULL)
		return fail("primary", "mdevx_rq_create", errno);
	memset(&ta, 0, sizeof(ta));
	ta.disp_type = MDEVX_TIR_DISP_DIRECT;
	ta.inline_rqn = obj_id(rq);
	ta.transport_domain = obj_id(td);
	tir = mdevx_tir_create(ctx, &ta);
	if (tir == NULL || mdevx_share_publish(dev, "rx-tir", tir) != 0)	/* dev owns tir */
		return fail("primary", "the TIR", errno);

	rc = run_secondary(args);
	free(args);
	if (rc != 0)
		return fail("primary", "the secondary", rc < 0 ? EIO : EPROTO);

	if (mdevx_share_withdraw(dev, "rx-counters", &acked) != 0)	/* notify, wait, destroy */
		return fail("primary", "mdevx_share_withdraw", errno);
	/* The close withdraws the TIR; then its queues can go, and the close ends. */
	rc = mdevx_share_dev_close(dev);
	if (rc == -EBUSY) {
		if (mdevx_obj_destroy(rq) != 0 || mdevx_obj_destroy(cq) != 0 ||
		    mdevx_obj_destroy(pd) != 0 || mdevx_obj_destroy(td) != 0)
			return fail("primary", "the queues", errno);
		rc = mdevx_share_dev_close(dev);
	}
	if (rc != 0)
		return fail("primary", "mdevx_share_dev_close", rc);
	printf("share_pair primary: published rx-counters and rx-tir, the secondary done, "
	       "withdrawn and closed on %s: OK\n", devstr);
	rte_eal_cleanup();
	return EXIT_SUCCESS;
}

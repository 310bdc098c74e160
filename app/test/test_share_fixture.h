/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The fixture of the three autotests of libmdevx_share with real secondary
 * processes on the software device (test_mlx5_devx_share_mp.c,
 * test_mlx5_devx_share_badinput.c, test_mlx5_devx_share_fault.c), in
 * test_share_fixture.c:
 *  - a primary share device on DEV, opened by case_setup() with a chain
 *    of the objects a TIR needs, closed by case_teardown() after it
 *    withdrew every record;
 *  - the sync memzone the primary shares with the secondaries it starts
 *    (struct share_sync), made by share_suite_setup();
 *  - the objects every suite publishes (publish_objects()) and the checks
 *    that nothing is left on the devices;
 *  - the holder role (share_holder), started by the mp and fault autotests.
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#ifndef MDEVX_TEST_SHARE_FIXTURE_H
#define MDEVX_TEST_SHARE_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <mdevx.h>
#include <mdevx_share.h>

#include "process.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define OP_QUERY_FLOW_COUNTER 0x93b	/* PRM opcode, for the device's fault rules */
#define DEVSTR "rdma:" DEV
#define DEV2 "mlx5_1"
#define DEVSTR2 "rdma:" DEV2
#define SYNC_MZ "mdevx_t_share_sync"
#define NB_COUNTERS 2
#define NB_READERS 3
#define CHILD_TIMEOUT_MS 60000
#define WAIT_MS 20000
#define OP_DEALLOC_FLOW_COUNTER 0x93a	/* PRM opcode, for fault injection */
#define STAT_INTERNAL_ERR 0x01

/* Shared between the test primary and its secondaries. */
struct share_sync {
	volatile uint32_t ready;
	volatile uint32_t go;
	volatile uint32_t stop;
	volatile uint32_t failures;
	volatile uint64_t ops;
	volatile uint64_t wrapper_stale;	/* looper wrappers revoked between two reads */
	uint32_t nb_names;
	char names[64][MDEVX_SHARE_NAME_MAX + 1];
	uint64_t packets[NB_COUNTERS][4];
	uint64_t bytes[NB_COUNTERS][4];
	struct mdevx_tir_attr tir_direct;
	struct mdevx_tir_attr tir_rss;
};

/* Objects a TIR needs. */
struct tir_chain {
	struct mdevx_obj *td, *pd, *cq, *rq[2], *rqt;
};

struct rte_memzone;
struct swdev_ctl;

extern struct swdev_ctl *ctl;
extern const struct rte_memzone *sync_mz;
/* Children of the current case: the teardowns kill those still running. */
extern struct test_children children;
/* The primary's device of a case (case_setup()), and its TIR chain. */
extern struct mdevx_share_dev *pdev;
extern struct tir_chain chain;

/* The checks of a secondary's role: on failure, log and go to out. */
#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(NULL, cond, __VA_ARGS__)

/* The sync memzone, looked up (a secondary). */
struct share_sync *sync_area(void);
/* Wait until *v >= want, up to ms milliseconds. */
bool wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms);
/*
 * A new bulk of @p bulk counters published as @p name on @p dev: 0, or -1
 * with errno (a counter that could not be published is destroyed).
 */
int publish_counter(struct mdevx_share_dev *dev, const char *name, uint32_t bulk);
/* A case: DEV and DEV2 hold no object (within 5 s). */
int test_nothing_left(void);
/* The objects a TIR needs, on @p ctx: 0, or -1 (a line printed, none left). */
int chain_create(struct mdevx_ctx *ctx, struct tir_chain *c);
/* The attributes of a direct TIR to RQ 0 and an RSS TIR over the RQT of @p c. */
void tir_attrs(const struct tir_chain *c, struct mdevx_tir_attr *direct,
	       struct mdevx_tir_attr *rss);

int share_suite_setup(void);
void share_suite_teardown(void);
int case_setup(void);
void case_teardown(void);
/* Publish NB_COUNTERS bulks with traffic, and the two TIRs. */
int publish_objects(struct share_sync *s);

/*
 * What a secondary's device gives once the primary closed it, for counter
 * record @p name it imported as @p imp. NULL, or the first call that did
 * not.
 */
const char *closed_device_check(struct mdevx_share_dev *dev, const char *name,
				mdevx_share_imp_t imp);

#endif /* MDEVX_TEST_SHARE_FIXTURE_H */

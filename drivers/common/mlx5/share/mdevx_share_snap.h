/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Private interface of the counter snapshot service (mdevx_share_snap.c)
 * to the rest of the library. One service per shared device: in the
 * primary it owns the snapshot memzone and the refresh thread, in a
 * secondary it is the private copy of the area's geometry taken at attach.
 */
#ifndef MDEVX_SHARE_SNAP_H
#define MDEVX_SHARE_SNAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mdevx_share.h"

extern int mdevx_share_logtype;

struct mdevx_share_snap;

/** The geometry a primary hands to its secondaries in the attach reply. */
struct mdevx_share_snap_geo {
	uint32_t period_ms;	/* 0: no service */
	uint32_t counters;	/* capacity of the area, counters */
	uint32_t nb_slots;	/* one slot per registry record */
	pid_t primary_pid;
};

/*
 * Primary: reserve the area (named after the registry memzone @p reg_mz)
 * and start the refresh thread. @p geo->period_ms 0: *out NULL, 0.
 * 0 or a positive errno.
 */
int share_snap_open(struct mdevx_share_snap **out, const char *devstr, const char *reg_mz,
	      struct mdevx_ctx *ctx, const struct mdevx_share_snap_geo *geo);
/* Primary: stop the refresh thread (a refresh in progress ends first). */
void share_snap_stop(struct mdevx_share_snap *sn);
/* Any process: free the private state; the primary frees the memzone with @p free_mz. */
void share_snap_free(struct mdevx_share_snap *sn, bool free_mz);
/* Primary (writer lock held): bulk @p obj of record @p idx, generation @p gen, in. */
void share_snap_add(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen, struct mdevx_obj *obj,
	      uint32_t bulk_size);
/* Primary: record @p idx out of the service; a refresh of it in progress ends first. */
void share_snap_del(struct mdevx_share_snap *sn, uint32_t idx);
/*
 * Primary: refresh record @p idx (generation @p gen) soon: the entry point
 * of every refresh request (the primary's own, and the secondaries'
 * MP_OP_REFRESH messages). Coalesced: a bulk is refreshed on request at
 * most once per period; a request within a period of the last one served
 * is answered by the next round (it starts within a period), and requests
 * are served only between rounds, never in place of a due one.
 */
void share_snap_request(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen);

struct mdevx_share_reg;
/*
 * Primary: each round starts with mdevx_share_reg_repair() of @p reg (the
 * device's registry, which outlives the service): its header is repaired
 * within one period. NULL: none.
 */
void share_snap_watch_reg(struct mdevx_share_snap *sn, struct mdevx_share_reg *reg);

/* Secondary: the area of the attach reply. 0 or a positive errno. */
int share_snap_attach(struct mdevx_share_snap **out, const char *reg_mz,
		const struct mdevx_share_snap_geo *geo);
/* Any: the geometry (attach reply). */
void share_snap_geo(const struct mdevx_share_snap *sn, struct mdevx_share_snap_geo *geo);

/*
 * Any process: counters @p offset.. of record @p idx, generation @p gen,
 * whose bulk has @p bulk_size counters (all private values). 0 or a
 * positive errno (EAGAIN, ENODATA, EIO).
 */
int share_snap_read(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen, uint32_t bulk_size,
	      uint32_t offset, uint32_t n, struct mdevx_counter_stats *stats,
	      struct mdevx_share_counter_snap *snap);
/*
 * Any process: the time a refresh of record @p idx started, consistent
 * with its generation @p gen, in *@p started_ns: 0, ENODATA, EAGAIN.
 */
int share_snap_started(struct mdevx_share_snap *sn, uint32_t idx, uint64_t gen,
		       uint64_t *started_ns);
/* Any process. */
void share_snap_stats(struct mdevx_share_snap *sn, struct mdevx_share_service_stats *st);
/* CLOCK_MONOTONIC, nanoseconds. */
uint64_t share_snap_now_ns(void);

#endif /* MDEVX_SHARE_SNAP_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* An object-chain fixture and create helpers for the engine tests. */
#ifndef SWDEV_TEST_UTIL_H
#define SWDEV_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "mdevx_prm.h"
#include "prm_mailbox.h"
#include "swdev_engine.h"

#define T_DEV "swdev0"
#define T_UMEM_SIZE 65536u
#define T_MAX_RQ 8

/** Everything a TIR needs, created in one file. */
struct t_chain {
	uint32_t pd_h, pdn;
	uint32_t uar_h, uar_page;
	uint32_t umem_h, umem_id;
	uint32_t eqn;
	uint32_t cq_h, cqn;
	unsigned int nrq;
	uint32_t rq_h[T_MAX_RQ], rqn[T_MAX_RQ];
	uint32_t td_h, tdn;
	uint32_t rqt_h, rqtn;
	uint32_t tir_h, tirn;	/* indirect TIR over the RQT */
	uint64_t tir_icm;
};

static inline uint8_t
t_status(const void *out)
{
	return (uint8_t)MDEVX_GET(mbox_out, out, status);
}

static inline uint32_t
t_syndrome(const void *out)
{
	return MDEVX_GET(mbox_out, out, syndrome);
}

/* Simple create: returns the errno; *id = out bits 0x48 (24 bits). */
int t_create(struct swdev_file *f, const void *in, size_t inlen, uint8_t *out,
	     uint32_t *handle, uint32_t *id);
int t_alloc_td(struct swdev_file *f, uint32_t *handle, uint32_t *tdn);
/* ALLOC_FLOW_COUNTER; returns errno, out holds status; *base the first id. */
int t_alloc_counter(struct swdev_file *f, uint32_t bulk, uint32_t log_size, uint8_t *out,
		    struct swdev_obj_info *info);
/* QUERY_FLOW_COUNTER into @p out of @p outlen. */
int t_query_counter(struct swdev_file *f, uint32_t handle, uint32_t first, uint32_t num,
		    int clear, uint8_t *out, size_t outlen);
/* Build the whole chain with @p nrq RQs; returns 0 when every step worked. */
int t_chain_make(struct swdev_file *f, struct t_chain *c, unsigned int nrq);

#endif /* SWDEV_TEST_UTIL_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * PRM command mailboxes the tests send to the software device: the same
 * create commands for the engine's unit tests and the multi-process tests
 * (PRM layouts only: no device, no DPDK).
 */
#ifndef PRM_MAILBOX_H
#define PRM_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#include "mdevx_prm.h"

/* Where t_build_cq() puts the CQ's doorbell record in its umem. */
#define T_DBR_OFF 60000u

/* CREATE_CQ with a 64-entry, 64-byte-CQE queue at offset 0 of the umem. */
void t_build_cq(uint8_t *in, uint32_t uar_page, uint32_t eqn, uint32_t umem_id,
		uint32_t dbr_umem_id);
/* CREATE_RQ: cyclic WQ of 64 x 64 bytes at @p wq_off, doorbell at @p dbr_off. */
void t_build_rq(uint8_t *in, uint32_t cqn, uint32_t pdn, uint32_t umem_id, uint64_t wq_off,
		uint64_t dbr_off);
/* CREATE_RQT (or MODIFY_RQT when @p rqtn != 0); returns the input length. */
size_t t_build_rqt(uint8_t *in, uint32_t rqtn, uint32_t max_size, uint32_t actual,
		   const uint32_t *rqns);
/* CREATE_TIR: direct to @p target (an rqn) or indirect (an rqtn) with Toeplitz. */
void t_build_tir(uint8_t *in, int indirect, uint32_t target, uint32_t tdn);
/* The Toeplitz key t_build_tir() writes. */
extern const uint8_t t_toeplitz_key[40];

#endif /* PRM_MAILBOX_H */

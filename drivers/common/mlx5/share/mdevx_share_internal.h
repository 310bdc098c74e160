/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Test hooks of libmdevx_share, for app/test; not part of the API (never
 * installed). They exist only in a build with MDEVX_SHARE_TEST_HOOKS
 * defined: the static library the tests link (mdevx_share_test_dep). The
 * installed libmdevx_share.so has none of them, and exports nothing but
 * the API of mdevx_share.h (mdevx_share_version.map).
 */
#ifndef MDEVX_SHARE_INTERNAL_H
#define MDEVX_SHARE_INTERNAL_H

#include "mdevx_share.h"
#include "mdevx_share_reg.h"

#ifdef MDEVX_SHARE_TEST_HOOKS

/** Test hook: the registry of a device (to corrupt records on purpose). */
struct mdevx_share_reg *mdevx_share_dev_reg(struct mdevx_share_dev *dev);
/** Test hook: a secondary stops acknowledging withdrawals (non-zero). */
void mdevx_share_test_drop_acks(int drop);
/**
 * Test hook: a secondary's handler waits @p ms before it answers a
 * withdrawal (after unimporting), as one kept from the lock would.
 */
void mdevx_share_test_ack_delay(unsigned int ms);
/**
 * Test hook: call @p fn(@p arg) inside every import attempt, after the
 * object was imported from the record's bytes and before the record is
 * checked unchanged (the device's lock is held: @p fn must not call the
 * share API). NULL removes it.
 */
void mdevx_share_test_import_hook(void (*fn)(void *arg), void *arg);
/**
 * Test hook: call @p fn(@p arg) inside every attach, after the primary
 * answered and before the registry is read (no lock of ours is held).
 * NULL removes it.
 */
void mdevx_share_test_attach_hook(void (*fn)(void *arg), void *arg);
/**
 * Test hook: call @p fn(@p arg) inside every close that got past its
 * checks, after the imports were dropped (and a secondary detached) and
 * before the device's context is closed (only the library's open lock is
 * held: the hook may call libmdevx, not this library). NULL removes it.
 */
void mdevx_share_test_close_hook(void (*fn)(void *arg), void *arg);
/**
 * Test hook: set the generation of the import slot @p imp names to @p gen
 * (as after that many reuses): the import's new handle, or id 0 if @p imp
 * names no import.
 */
mdevx_share_imp_t mdevx_share_test_slot_gen(struct mdevx_share_dev *dev,
						      mdevx_share_imp_t imp, uint32_t gen);

/**
 * Test hook (primary): the connections of secondaries to @p dev the
 * primary holds (in their handshake or attached).
 */
unsigned int mdevx_share_test_peers(const struct mdevx_share_dev *dev);
/**
 * Test hook (primary): the rules of gone secondaries still waiting for the
 * reaper (taken ones not counted); 0 once it has taken them all.
 */
uint32_t mdevx_share_test_rules_dying(struct mdevx_share_dev *dev);

/**
 * Test hook: call @p fn(@p arg) in mdevx_share_import_obj(), after the
 * import was found live and before the record is read for its wrapper
 * (the device's lock is held: @p fn must not call the share API). NULL
 * removes it.
 */
void mdevx_share_test_import_obj_hook(void (*fn)(void *arg), void *arg);
/**
 * Test hook: the rte_mp message the primary sends to withdraw every
 * record of @p dev (@p rec_idx UINT32_MAX) or one record, as a rogue
 * process would forge it: 0, or -EINVAL.
 */
struct rte_mp_msg;
int mdevx_share_test_withdraw_msg(const struct mdevx_share_dev *dev, uint32_t rec_idx,
					    uint64_t generation, struct rte_mp_msg *msg);

/**
 * Test hook: a secondary's connection to the primary for @p dev (its
 * descriptor, still the library's), or -1. For tests of forged messages.
 */
int mdevx_share_test_conn_fd(const struct mdevx_share_dev *dev);

/*
 * Test hook: send the primary a rule message as a secondary's library
 * would, announcing (@p add 1) or removing (0) rule @p handle of @p dev,
 * with no record. For tests of forged or misdirected messages.
 */
void mdevx_share_test_rule_msg(const struct mdevx_share_dev *dev, int add,
					 uint32_t handle);

#endif /* MDEVX_SHARE_TEST_HOOKS */

#endif /* MDEVX_SHARE_INTERNAL_H */

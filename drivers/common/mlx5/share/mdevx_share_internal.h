/* SPDX-License-Identifier: BSD-3-Clause */
/* Private glue of libmdevx_share (telemetry, test hooks). */
#ifndef MDEVX_SHARE_INTERNAL_H
#define MDEVX_SHARE_INTERNAL_H

#include "mdevx_share.h"

/** Register the telemetry commands (once per process). */
void mdevx_share_telemetry_init(void);
void mdevx_share_foreach_dev(void (*fn)(struct mdevx_share_dev *dev, void *arg), void *arg);
const char *mdevx_share_dev_name(const struct mdevx_share_dev *dev);
int mdevx_share_dev_is_primary(const struct mdevx_share_dev *dev);

/** Test hook: the registry of a device (to corrupt records on purpose). */
MDEVX_API struct mdevx_share_reg *mdevx_share_dev_reg(struct mdevx_share_dev *dev);
/** Test hook: a secondary stops acknowledging withdrawals (non-zero). */
MDEVX_API void mdevx_share_test_drop_acks(int drop);
/**
 * Test hook: call @p fn(@p arg) inside every import attempt, after the
 * object was imported from the record's bytes and before the record is
 * checked unchanged (the device's lock is held: @p fn must not call the
 * share API). NULL removes it.
 */
MDEVX_API void mdevx_share_test_import_hook(void (*fn)(void *arg), void *arg);

#endif /* MDEVX_SHARE_INTERNAL_H */

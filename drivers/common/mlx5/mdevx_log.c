/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* The library's dynamic log type. */
#include <rte_common.h>
#include <rte_log.h>

#include "mdevx_internal.h"

int mdevx_logtype = RTE_LOGTYPE_EAL;

RTE_INIT(mdevx_log_init)
{
	int t = rte_log_register_type_and_pick_level("pmd.common.mdevx", RTE_LOG_NOTICE);

	if (t >= 0)
		mdevx_logtype = t;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: ALLOC_TRANSPORT_DOMAIN and ALLOC_PD as DEVX
 * create commands (their DEALLOC is the prebuilt destroy command).
 */

#include "swdev_engine_priv.h"

/* Allocate an object of @p kind with an id; @p synd_limit when the table is full. */
static int
alloc_simple(struct swdev_cmd *cmd, enum swdev_kind kind, uint32_t synd_limit)
{
	struct swdev_obj *obj;
	int rc;

	if (swdev_cmd_short_in(cmd, MDEVX_ST_SZ_BYTES(mbox_in)) ||
	    swdev_cmd_short_out(cmd, MDEVX_ST_SZ_BYTES(mbox_out)))
		return cmd->status;
	rc = swdev_obj_new_with_id(cmd, kind, synd_limit, &obj, NULL);
	if (rc != 0)
		return rc;
	cmd->obj = obj;
	return 0;
}

int
swdev_cmd_alloc_td(struct swdev_cmd *cmd)
{
	int rc = alloc_simple(cmd, SWDEV_KIND_TD, SWDEV_SYND_TD_LIMIT);

	if (rc == 0)
		MDEVX_SET(alloc_transport_domain_out, cmd->out, transport_domain, cmd->obj->id);
	return rc;
}

int
swdev_cmd_alloc_pd(struct swdev_cmd *cmd)
{
	int rc = alloc_simple(cmd, SWDEV_KIND_PD, SWDEV_SYND_PD_LIMIT);

	if (rc == 0)
		MDEVX_SET(alloc_pd_out, cmd->out, pd, cmd->obj->id);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * rdma-core backend, root steering: matchers and rules over
 * mlx5dv_create_flow_matcher() and mlx5dv_create_flow(), their destroy
 * (also of a rule by its handle) and the local release of a rule already
 * gone from the device. The ops table, mdevx_backend_rdma_ops, is in
 * mdevx_backend_rdma.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mdevx_build_config.h"
#include "mdevx_internal.h"

/* ---- root steering ---- */

/* A match buffer as rdma-core takes it (size, then the PRM bytes). */
static struct mlx5dv_flow_match_parameters *
match_params(const void *buf, size_t len)
{
	size_t words = (len + sizeof(uint64_t) - 1) / sizeof(uint64_t);
	struct mlx5dv_flow_match_parameters *p;

	p = calloc(1, sizeof(*p) + words * sizeof(uint64_t));
	if (p == NULL)
		return NULL;
	p->match_sz = len;
	memcpy(p->match_buf, buf, len);
	return p;
}

int
mdevx_rdma_matcher_create(void *bctx, const struct mdevx_matcher_attr *attr, void **bmatcher)
{
	struct mlx5dv_flow_matcher_attr ma;
	struct mlx5dv_flow_matcher *m;
	int rc = 0;

	memset(&ma, 0, sizeof(ma));
	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.priority = attr->priority;
	ma.match_criteria_enable = attr->match_criteria_enable;
	ma.match_mask = match_params(attr->mask, attr->mask_len);
	if (ma.match_mask == NULL)
		return ENOMEM;
#if MDEVX_HAVE_FLOW_MATCHER_FT_TYPE
	/* Without it the kernel picks the same table: NIC receive bypass. */
	ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	ma.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
#endif
	errno = 0;
	m = mlx5dv_create_flow_matcher(bctx, &ma);
	if (m == NULL)
		rc = errno_or(EIO);
	free(ma.match_mask);
	if (rc == 0)
		*bmatcher = m;
	return rc;
}

int
mdevx_rdma_matcher_destroy(void *bmatcher)
{
	return mlx5dv_destroy_flow_matcher(bmatcher);
}

int
mdevx_rdma_flow_create(void *bmatcher, const void *value, size_t len, int dest, void *dest_bobj,
		       void *cnt_bobj, uint32_t cnt_offset, void **bflow)
{
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_match_parameters *mv;
	struct ibv_flow *flow;
	size_t n = 0;
	int rc = 0;

	memset(act, 0, sizeof(act));
	if (dest == MDEVX_RULE_DEST_OBJ) {
		act[n].type = MLX5DV_FLOW_ACTION_DEST_DEVX;
		act[n++].obj = ((struct rdma_obj *)dest_bobj)->devx;
	} else if (dest == MDEVX_RULE_DEST_DROP) {
		act[n++].type = MLX5DV_FLOW_ACTION_DROP;
	}
	if (cnt_bobj != NULL) {
		struct mlx5dv_devx_obj *cnt = ((struct rdma_obj *)cnt_bobj)->devx;

		if (cnt_offset == 0) {
			act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
			act[n++].obj = cnt;
		} else {
#if MDEVX_HAVE_FLOW_COUNTER_OFFSET
			act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET;
			act[n].bulk_obj.obj = cnt;
			act[n++].bulk_obj.offset = cnt_offset;
#else
			MDEVX_LOG_FN(ERR, "mdevx_rule_create", "built against rdma-core %s: "
				     "cannot count on counter %u of a bulk (MLX5DV_FLOW_ACTION_"
				     "COUNTERS_DEVX_WITH_OFFSET, rdma-core >= 60): errno=%d (%s)",
				     MDEVX_RDMA_CORE_BUILD_RELEASE, cnt_offset, ENOTSUP,
				     strerror(ENOTSUP));
			return ENOTSUP;
#endif
		}
	}
	mv = match_params(value, len);
	if (mv == NULL)
		return ENOMEM;
	errno = 0;
	flow = mlx5dv_create_flow(bmatcher, mv, n, act);
	if (flow == NULL)
		rc = errno_or(EIO);
	free(mv);
	if (rc == 0)
		*bflow = flow;
	return rc;
}

int
mdevx_rdma_flow_destroy(void *bflow)
{
	return ibv_destroy_flow(bflow);
}

uint32_t
mdevx_rdma_flow_handle(const void *bflow)
{
	return ((const struct ibv_flow *)bflow)->handle;
}

/*
 * What libmlx5's destroy_flow (mlx5_destroy_flow(), rdma-core 44 to 63)
 * receives: the struct ibv_flow at the start of its private struct
 * mlx5_flow { struct ibv_flow flow_id; struct mlx5_counters *mcounters; },
 * which it reads (mcounters NULL: no verbs counters object) and free()s on
 * success. Zeroed room past the known fields, should a later version read
 * more of them.
 */
struct rdma_flow_stub {
	struct ibv_flow flow;
	void *provider_priv[8];
};

int
mdevx_rdma_flow_destroy_handle(void *bctx, uint32_t handle)
{
	struct rdma_flow_stub *s = calloc(1, sizeof(*s));
	int rc;

	if (s == NULL)
		return ENOMEM;
	s->flow.context = bctx;
	s->flow.handle = handle;
	/* DESTROY_FLOW on the handle in the uverbs file of bctx; frees s on success. */
	rc = ibv_destroy_flow(&s->flow);
	if (rc != 0)
		free(s);
	return rc;
}

/* libmlx5 allocated the flow (calloc) with the struct ibv_flow first. */
void
mdevx_rdma_flow_forget(void *bflow)
{
	free(bflow);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Wrapper objects in general: names, info, destroy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

static const char *const kind_names[MDEVX_OBJ_KIND_MAX] = {
	[MDEVX_OBJ_ANY] = "any",
	[MDEVX_OBJ_FLOW_COUNTER] = "flow_counter",
	[MDEVX_OBJ_TIR] = "tir",
	[MDEVX_OBJ_TD] = "td",
	[MDEVX_OBJ_PD] = "pd",
	[MDEVX_OBJ_CQ] = "cq",
	[MDEVX_OBJ_RQ] = "rq",
	[MDEVX_OBJ_RQT] = "rqt",
	[MDEVX_OBJ_UAR] = "uar",
	[MDEVX_OBJ_UMEM] = "umem",
	[MDEVX_OBJ_FLOW_TABLE] = "flow_table",
	[MDEVX_OBJ_FLOW_GROUP] = "flow_group",
	[MDEVX_OBJ_FTE] = "fte",
};

MDEVX_API const char *
mdevx_obj_kind_name(enum mdevx_obj_kind kind)
{
	if ((unsigned int)kind >= MDEVX_OBJ_KIND_MAX)
		return "unknown";
	return kind_names[kind];
}

/*
 * Both read the wrapper's fields from a copy made under the registry lock,
 * so that an import released by another thread right after the check is
 * never read.
 */
MDEVX_API int
mdevx_obj_info(const struct mdevx_obj *obj, struct mdevx_obj_info *info)
{
	struct mdevx_obj o;
	int rc;

	if (info == NULL)
		return mdevx_ret(EINVAL);
	rc = mdevx_obj_copy(obj, &o);
	if (rc != 0)
		return mdevx_ret(rc);
	memset(info, 0, sizeof(*info));
	info->kind = o.kind;
	info->id = o.id;
	info->bulk_size = o.bulk_size;
	info->tirn = o.tirn;
	info->rx_icm_addr = o.rx_icm_addr;
	info->generation = o.generation;
	info->imported = o.imported ? 1 : 0;
	return 0;
}

MDEVX_API struct mdevx_ctx *
mdevx_obj_ctx(const struct mdevx_obj *obj)
{
	struct mdevx_obj o;
	int rc = mdevx_obj_copy(obj, &o);

	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	return o.ctx;
}

/* Release the backend object of a local wrapper by kind. 0 or errno. */
static int
backend_release(struct mdevx_obj *obj)
{
	const struct mdevx_backend_ops *ops = obj->ctx->ops;

	switch (obj->kind) {
	case MDEVX_OBJ_PD:
		return ops->pd_free(obj->bobj);
	case MDEVX_OBJ_UAR:
		return ops->uar_free(obj->bobj);
	case MDEVX_OBJ_UMEM:
		return ops->umem_dereg(obj->bobj);
	default:
		return ops->obj_destroy(obj->bobj);
	}
}

void
mdevx_obj_free_owned(struct mdevx_obj *obj)
{
	struct mdevx_obj *sub[] = { obj->buf_umem, obj->dbr_umem, obj->uar };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		if (sub[i] == NULL)
			continue;
		rc = backend_release(sub[i]);
		if (rc != 0 && mdevx_ctx_lost(sub[i]->ctx, rc))
			sub[i]->ctx->ops->obj_forget(sub[i]->bobj);
		else if (rc != 0)
			mdevx_cmd_fail(0, "releasing a CQ/RQ resource", rc);
		free(sub[i]);
	}
	obj->buf_umem = NULL;
	obj->dbr_umem = NULL;
	obj->uar = NULL;
	free(obj->buf);
	free(obj->dbr);
	obj->buf = NULL;
	obj->dbr = NULL;
}

int
mdevx_obj_release_internal(struct mdevx_obj *obj)
{
	int rc = backend_release(obj);

	if (rc != 0)
		return rc;
	mdevx_obj_free_owned(obj);
	free(obj);
	return 0;
}

struct mdevx_obj *
mdevx_obj_wrap(struct mdevx_ctx *ctx, enum mdevx_obj_kind kind, void *bobj, uint32_t id)
{
	struct mdevx_obj *obj = mdevx_obj_new(ctx, kind, bobj, id, false);

	if (obj == NULL) {
		/* No wrapper to release through: a stand-in on the stack. */
		struct mdevx_obj tmp = { .ctx = ctx, .kind = kind, .bobj = bobj };

		backend_release(&tmp);
		mdevx_set_errno(ENOMEM);
	}
	return obj;
}

struct mdevx_obj *
mdevx_obj_finish(struct mdevx_obj *obj)
{
	int rc;

	obj->generation = mdevx_next_generation();
	rc = mdevx_obj_register(obj);
	if (rc != 0) {
		mdevx_obj_release_internal(obj);
		mdevx_set_errno(rc);
		return NULL;
	}
	return obj;
}

/* The command the kernel sends for a destroy (0 for verbs objects). */
static uint16_t
destroy_opcode(enum mdevx_obj_kind kind)
{
	switch (kind) {
	case MDEVX_OBJ_FLOW_COUNTER:
		return MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER;
	case MDEVX_OBJ_TIR:
		return MDEVX_CMD_OP_DESTROY_TIR;
	case MDEVX_OBJ_TD:
		return MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN;
	case MDEVX_OBJ_CQ:
		return MDEVX_CMD_OP_DESTROY_CQ;
	case MDEVX_OBJ_RQ:
		return MDEVX_CMD_OP_DESTROY_RQ;
	case MDEVX_OBJ_RQT:
		return MDEVX_CMD_OP_DESTROY_RQT;
	case MDEVX_OBJ_FLOW_TABLE:
		return MDEVX_CMD_OP_DESTROY_FLOW_TABLE;
	case MDEVX_OBJ_FLOW_GROUP:
		return MDEVX_CMD_OP_DESTROY_FLOW_GROUP;
	case MDEVX_OBJ_FTE:
		return MDEVX_CMD_OP_DELETE_FLOW_TABLE_ENTRY;
	default:
		return 0;
	}
}

MDEVX_API int
mdevx_obj_destroy(struct mdevx_obj *obj)
{
	struct mdevx_obj o;
	char what[64];
	int rc;

	/*
	 * Only an import can be revoked (ESTALE): EPERM for it too. A local
	 * object that flow groups, entries or root rules use is EBUSY; one
	 * that is not is marked dying, so that none starts using it.
	 */
	rc = mdevx_obj_destroy_begin(obj, &o);
	if (rc != 0 && rc != ESTALE && rc != EBUSY)
		return mdevx_ret(rc);
	if (rc == ESTALE || o.imported) {
		MDEVX_LOG(ERR, "%s %#x is an import: release it with mdevx_obj_unimport()",
			  mdevx_obj_kind_name(o.kind), o.id);
		return mdevx_ret(EPERM);
	}
	if (rc == EBUSY) {
		MDEVX_LOG(ERR, "%s %#x: errno=%d (%s): still used by %u flow groups, entries or "
			  "rules of this process (or being destroyed by another thread)",
			  mdevx_obj_kind_name(o.kind), o.id, EBUSY, strerror(EBUSY), o.refs);
		return mdevx_ret(EBUSY);
	}
	rc = backend_release(obj);
	if (rc != 0 && mdevx_ctx_lost(obj->ctx, rc)) {
		/* The device destroyed it already, or never will: release locally. */
		obj->ctx->ops->obj_forget(obj->bobj);
		rc = 0;
	}
	if (rc != 0) {
		mdevx_obj_destroy_abort(obj);
		snprintf(what, sizeof(what), "destroying %s %#x", mdevx_obj_kind_name(obj->kind),
			 obj->id);
		mdevx_cmd_fail(destroy_opcode(obj->kind), what, rc);
		return mdevx_ret(rc);
	}
	if (obj->parent != NULL)
		mdevx_obj_ref_drop(obj->parent);
	mdevx_obj_unregister(obj);
	mdevx_obj_free_owned(obj);
	free(obj);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: object life (allocation, device ids, links
 * into the uverbs file, references between objects, teardown).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

/*
 * Ids are base + index, with a different base per kind, so an id of the
 * wrong kind (a tdn passed as a pdn) does not silently name an object.
 */
static const uint32_t id_base[SWDEV_KIND_MAX] = {
	[SWDEV_KIND_PD] = 0x100000,
	[SWDEV_KIND_UAR] = 0x200000,
	[SWDEV_KIND_UMEM] = 0x300000,
	[SWDEV_KIND_TD] = 0x400000,
	[SWDEV_KIND_CQ] = 0x500000,
	[SWDEV_KIND_RQ] = 0x600000,
	[SWDEV_KIND_RQT] = 0x700000,
	[SWDEV_KIND_TIR] = 0x800000,
	[SWDEV_KIND_FLOW_COUNTER] = 0,
	[SWDEV_KIND_FLOW_TABLE] = 0x900000,
	[SWDEV_KIND_FLOW_GROUP] = 0xa00000,
	/* no id table: counters (the counter store), entries (their flow
	 * index), root matchers and rules (kernel objects) */
	[SWDEV_KIND_FTE] = 0,
	[SWDEV_KIND_MATCHER] = 0,
	[SWDEV_KIND_FLOW] = 0,
};

static bool
kind_has_ids(enum swdev_kind kind)
{
	return kind != SWDEV_KIND_FLOW_COUNTER && kind != SWDEV_KIND_FTE &&
	       kind != SWDEV_KIND_MATCHER && kind != SWDEV_KIND_FLOW;
}

uint32_t
swdev_kind_id_base(enum swdev_kind kind)
{
	return id_base[kind];
}

void
swdev_copy_bits(uint8_t *dst, const uint8_t *src, size_t off, size_t width)
{
	size_t i;

	if (width <= 32 && (off % 32) + width <= 32) {
		mdevx_prm_set(dst, off, width, mdevx_prm_get(src, off, width));
		return;
	}
	if (off % 8 == 0 && width % 8 == 0) {
		memcpy(dst + off / 8, src + off / 8, width / 8);
		return;
	}
	for (i = 0; i < width; i++)
		mdevx_prm_set(dst, off + i, 1, mdevx_prm_get(src, off + i, 1));
}

struct swdev_obj *
swdev_obj_new(struct swdev_cmd *cmd, enum swdev_kind kind)
{
	struct swdev_obj *obj = calloc(1, sizeof(*obj));

	if (obj == NULL)
		return NULL;
	obj->kind = kind;
	obj->devx = true;
	obj->uid = cmd->uid;
	obj->file = cmd->file;
	return obj;
}

int
swdev_obj_assign_id(struct swdev_dev *dev, struct swdev_obj *obj, uint32_t *id)
{
	struct swdev_idmap *m = &dev->ids[obj->kind];
	int rc = swdev_idmap_reserve(m);

	if (rc != 0)
		return rc;
	obj->id = id_base[obj->kind] + swdev_idmap_alloc(m, obj);
	if (id != NULL)
		*id = obj->id;
	return 0;
}

int
swdev_obj_new_with_id(struct swdev_cmd *cmd, enum swdev_kind kind, uint32_t synd_limit,
		      struct swdev_obj **objp, uint32_t *id)
{
	struct swdev_obj *obj = swdev_obj_new(cmd, kind);
	int rc;

	if (obj == NULL)
		return -ENOMEM;
	rc = swdev_obj_assign_id(cmd->dev, obj, id);
	if (rc != 0) {
		free(obj);
		if (rc == ENOMEM)
			return -ENOMEM;
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_LIM_ERR, synd_limit);
	}
	*objp = obj;
	return 0;
}

struct swdev_obj *
swdev_obj_by_id(struct swdev_dev *dev, enum swdev_kind kind, uint32_t id)
{
	if (!kind_has_ids(kind) || id < id_base[kind])
		return NULL;
	return swdev_idmap_get(&dev->ids[kind], id - id_base[kind]);
}

struct swdev_obj *
swdev_obj_ref_lookup(struct swdev_cmd *cmd, enum swdev_kind kind, uint32_t id,
		     uint32_t synd_missing, uint32_t synd_uid)
{
	struct swdev_obj *o = swdev_obj_by_id(cmd->dev, kind, id);

	if (o == NULL) {
		swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, synd_missing);
		return NULL;
	}
	if (o->uid != cmd->uid) {
		swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, synd_uid);
		return NULL;
	}
	return o;
}

void
swdev_obj_release(struct swdev_dev *dev, struct swdev_obj *obj)
{
	if (swdev_obj_by_id(dev, obj->kind, obj->id) == obj)
		swdev_idmap_free(&dev->ids[obj->kind], obj->id - id_base[obj->kind]);
	if (obj->kind == SWDEV_KIND_RQT)
		free(obj->u.rqt.rqs);
	free(obj);
}

void
swdev_file_attach(struct swdev_file *f, struct swdev_obj *obj)
{
	struct swdev_dev *dev = f->dev;

	obj->file = f;
	obj->handle = swdev_idmap_alloc(&f->handles, obj);
	obj->fprev = NULL;
	obj->fnext = f->objs[obj->kind];
	if (obj->fnext != NULL)
		obj->fnext->fprev = obj;
	f->objs[obj->kind] = obj;
	f->counts[obj->kind]++;
	dev->counts[obj->kind]++;
}

void
swdev_file_detach(struct swdev_file *f, struct swdev_obj *obj)
{
	struct swdev_dev *dev = f->dev;

	swdev_idmap_free(&f->handles, obj->handle);
	if (obj->fprev != NULL)
		obj->fprev->fnext = obj->fnext;
	else
		f->objs[obj->kind] = obj->fnext;
	if (obj->fnext != NULL)
		obj->fnext->fprev = obj->fprev;
	obj->fnext = obj->fprev = NULL;
	f->counts[obj->kind]--;
	dev->counts[obj->kind]--;
	obj->file = NULL;
}

/* Release what @p obj holds (its kind's teardown first), unlink it, free it. */
void
swdev_obj_force_destroy(struct swdev_dev *dev, struct swdev_obj *obj)
{
	const struct swdev_kind_ops *ops = &dev->kind_ops[obj->kind];
	uint32_t i;

	if (ops->teardown != NULL)
		ops->teardown(dev, obj);
	switch (obj->kind) {
	case SWDEV_KIND_FLOW_COUNTER:
		swdev_obj_put(obj->u.cnt.pd);
		break;
	case SWDEV_KIND_CQ:
		swdev_obj_put(obj->u.cq.uar);
		swdev_obj_put(obj->u.cq.umem);
		swdev_obj_put(obj->u.cq.dbr_umem);
		break;
	case SWDEV_KIND_RQ:
		swdev_obj_put(obj->u.rq.cq);
		swdev_obj_put(obj->u.rq.pd);
		swdev_obj_put(obj->u.rq.wq_umem);
		swdev_obj_put(obj->u.rq.dbr_umem);
		break;
	case SWDEV_KIND_RQT:
		for (i = 0; i < obj->u.rqt.actual_size; i++)
			swdev_obj_put(obj->u.rqt.rqs[i]);
		break;
	case SWDEV_KIND_TIR:
		swdev_obj_put(obj->u.tir.td);
		swdev_obj_put(obj->u.tir.rq);
		swdev_obj_put(obj->u.tir.rqt);
		break;
	default:
		break;
	}
	if (obj->file != NULL)
		swdev_file_detach(obj->file, obj);
	swdev_obj_release(dev, obj);
}

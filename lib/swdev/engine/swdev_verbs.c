/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: the verbs side a DEVX user needs (PD with
 * its pdn, UAR page, EQN query, umem registration). These are uverbs
 * objects of the file, in the same handle namespace as DEVX objects; they
 * fail with a plain errno (never EREMOTEIO), as the verbs calls do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

/*
 * Create a verbs object of @p kind: handle, fault rule on @p opcode, id.
 * Returns 0 and the object, or an errno.
 */
static int
verbs_create(struct swdev_file *f, enum swdev_kind kind, uint16_t opcode,
	     struct swdev_obj **objp)
{
	struct swdev_dev *dev = f->dev;
	uint8_t status = 0;
	uint32_t syndrome = 0;
	struct swdev_obj *obj;
	int rc;

	if (swdev_idmap_reserve(&f->handles) != 0)
		return ENOMEM;
	/* what the kernel sends the firmware for this verbs call */
	swdev_cmd_counted(dev, opcode);
	if (dev->nfaults != 0 && swdev_fault_check(dev, f, opcode, &status, &syndrome)) {
		rc = mdevx_cmd_status_to_errno(status);
		swdev_engine_logf(dev->eng,
				  "%s file %u uid %u verbs %s: errno %d status %s(0x%x) "
				  "syndrome 0x%x",
				  dev->name, f->id, f->uid, mdevx_cmd_op_name(opcode), rc,
				  mdevx_cmd_status_name(status), status, syndrome);
		return rc;
	}
	obj = calloc(1, sizeof(*obj));
	if (obj == NULL)
		return ENOMEM;
	obj->kind = kind;
	obj->devx = false;
	obj->uid = f->uid;
	rc = swdev_obj_assign_id(dev, obj, NULL);
	if (rc != 0) {
		free(obj);
		swdev_engine_logf(dev->eng, "%s file %u uid %u verbs %s: errno %d (limit)",
				  dev->name, f->id, f->uid, mdevx_cmd_op_name(opcode), ENOMEM);
		return ENOMEM;
	}
	swdev_file_attach(f, obj);
	swdev_obj_build_destroy(obj);
	*objp = obj;
	return 0;
}

int
swdev_file_pd_alloc(struct swdev_file *f, uint32_t *handle, uint32_t *pdn)
{
	struct swdev_obj *obj;
	int rc;

	if (f == NULL || handle == NULL || pdn == NULL)
		return EINVAL;
	rc = verbs_create(f, SWDEV_KIND_PD, MDEVX_CMD_OP_ALLOC_PD, &obj);
	if (rc != 0)
		return rc;
	*handle = obj->handle;
	*pdn = obj->id;
	return 0;
}

int
swdev_file_uar_alloc(struct swdev_file *f, uint32_t *handle, uint32_t *page_id)
{
	struct swdev_obj *obj;
	int rc;

	if (f == NULL || handle == NULL || page_id == NULL)
		return EINVAL;
	rc = verbs_create(f, SWDEV_KIND_UAR, MDEVX_CMD_OP_ALLOC_UAR, &obj);
	if (rc != 0)
		return rc;
	*handle = obj->handle;
	*page_id = obj->id;
	return 0;
}

int
swdev_file_query_eqn(struct swdev_file *f, uint32_t vector, uint32_t *eqn)
{
	if (f == NULL || eqn == NULL || vector >= f->dev->lim.num_eqs)
		return EINVAL;
	*eqn = SWDEV_EQN_BASE + vector;
	return 0;
}

int
swdev_file_umem_reg(struct swdev_file *f, uint64_t addr, uint64_t size,
	       uint32_t access, uint32_t *handle, uint32_t *umem_id)
{
	struct swdev_obj *obj;
	int rc;

	if (f == NULL || handle == NULL || umem_id == NULL)
		return EINVAL;
	if (size == 0 || addr + size < addr)
		return EINVAL;
	rc = verbs_create(f, SWDEV_KIND_UMEM, MDEVX_CMD_OP_CREATE_UMEM, &obj);
	if (rc != 0)
		return rc;
	obj->u.umem.addr = addr;
	obj->u.umem.size = size;
	obj->u.umem.access = access;
	*handle = obj->handle;
	*umem_id = obj->id;
	return 0;
}

int
swdev_file_verbs_destroy(struct swdev_file *f, uint32_t handle)
{
	return swdev_file_destroy_handle(f, handle, false);
}

int
swdev_file_verbs_destroy_kind(struct swdev_file *f, uint32_t handle, enum swdev_kind kind)
{
	struct swdev_obj *obj;

	if (f == NULL)
		return EINVAL;
	obj = swdev_idmap_get(&f->handles, handle);
	if (obj == NULL)
		return ENOENT;
	if (obj->kind != kind)
		return EINVAL;
	return swdev_file_destroy_handle(f, handle, false);
}

int
swdev_file_pd_query(struct swdev_file *f, uint32_t handle, uint32_t *pdn)
{
	struct swdev_obj *obj;

	if (f == NULL || pdn == NULL)
		return EINVAL;
	obj = swdev_idmap_get(&f->handles, handle);
	if (obj == NULL)
		return ENOENT;
	if (obj->kind != SWDEV_KIND_PD)
		return EINVAL;
	*pdn = obj->id;
	return 0;
}

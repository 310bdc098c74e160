/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: the kernel's DEVX layer.
 *
 * What drivers/infiniband/hw/mlx5/devx.c does before a mailbox reaches the
 * firmware: the command class of each entry point (create / modify / query
 * / general whitelist; destroy opcodes are never accepted), the object-id
 * match of modify and query against the handle's object, the uid written
 * into the command, the destroy command prebuilt at create time. Then the
 * firmware dispatch, fault injection, and the EREMOTEIO convention.
 */
#include <errno.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define HDR_BYTES MDEVX_ST_SZ_BYTES(general_obj_in_cmd_hdr)

enum cmd_class {
	CLASS_CREATE,
	CLASS_MODIFY,
	CLASS_QUERY,
	CLASS_GENERAL,
	CLASS_DESTROY,
};

static const char *const class_names[] = {
	[CLASS_CREATE] = "obj_create",
	[CLASS_MODIFY] = "obj_modify",
	[CLASS_QUERY] = "obj_query",
	[CLASS_GENERAL] = "general_cmd",
	[CLASS_DESTROY] = "destroy",
};

/* devx_is_obj_create_cmd(): the create opcodes the kernel lets through. */
static bool
is_create_op(uint16_t opcode, uint16_t op_mod)
{
	switch (opcode) {
	case MDEVX_CMD_OP_CREATE_CQ:
	case MDEVX_CMD_OP_ALLOC_PD:
	case MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
	case MDEVX_CMD_OP_CREATE_RQ:
	case MDEVX_CMD_OP_CREATE_RQT:
	case MDEVX_CMD_OP_CREATE_TIR:
	case MDEVX_CMD_OP_ALLOC_FLOW_COUNTER:
	case MDEVX_CMD_OP_CREATE_FLOW_TABLE:
	case MDEVX_CMD_OP_CREATE_FLOW_GROUP:
	case MDEVX_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT:
	case MDEVX_CMD_OP_CREATE_GENERAL_OBJECT:
	case MDEVX_CMD_OP_CREATE_QP:
		return true;
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return op_mod == 0;
	default:
		return false;
	}
}

static bool
is_modify_op(uint16_t opcode, uint16_t op_mod)
{
	switch (opcode) {
	case MDEVX_CMD_OP_MODIFY_CQ:
	case MDEVX_CMD_OP_MODIFY_RQ:
	case MDEVX_CMD_OP_MODIFY_RQT:
	case MDEVX_CMD_OP_MODIFY_TIR:
	case MDEVX_CMD_OP_MODIFY_GENERAL_OBJECT:
	case MDEVX_CMD_OP_MODIFY_FLOW_TABLE:
		return true;
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return op_mod == 1;
	default:
		return false;
	}
}

static bool
is_query_op(uint16_t opcode)
{
	switch (opcode) {
	case MDEVX_CMD_OP_QUERY_CQ:
	case MDEVX_CMD_OP_QUERY_RQ:
	case MDEVX_CMD_OP_QUERY_RQT:
	case MDEVX_CMD_OP_QUERY_TIR:
	case MDEVX_CMD_OP_QUERY_FLOW_COUNTER:
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE:
	case MDEVX_CMD_OP_QUERY_FLOW_GROUP:
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY:
	case MDEVX_CMD_OP_QUERY_GENERAL_OBJECT:
		return true;
	default:
		return false;
	}
}

/* devx_is_general_cmd(): the whitelist of mlx5dv_devx_general_cmd. */
static bool
is_general_op(uint16_t opcode)
{
	switch (opcode) {
	case MDEVX_CMD_OP_QUERY_HCA_CAP:
	case MDEVX_CMD_OP_QUERY_HCA_VPORT_CONTEXT:
	case MDEVX_CMD_OP_QUERY_ESW_VPORT_CONTEXT:
	case MDEVX_CMD_OP_QUERY_VPORT_STATE:
	case MDEVX_CMD_OP_QUERY_ADAPTER:
	case MDEVX_CMD_OP_QUERY_ISSI:
	case MDEVX_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
	case MDEVX_CMD_OP_QUERY_ROCE_ADDRESS:
	case MDEVX_CMD_OP_QUERY_VNIC_ENV:
	case MDEVX_CMD_OP_QUERY_VPORT_COUNTER:
	case MDEVX_CMD_OP_NOP:
	case MDEVX_CMD_OP_QUERY_CONG_STATUS:
	case MDEVX_CMD_OP_QUERY_CONG_PARAMS:
	case MDEVX_CMD_OP_QUERY_CONG_STATISTICS:
	case MDEVX_CMD_OP_QUERY_LAG:
	case MDEVX_CMD_OP_QUERY_ESW_FUNCTIONS:
		return true;
	default:
		/* the "general" opcode range of the kernel */
		return opcode >= 0xb00 && opcode < 0xd00;
	}
}

/* Firmware entry for an opcode; unknown or not emulated: BAD_OP. */
static swdev_cmd_handler *
fw_handler(uint16_t opcode)
{
	switch (opcode) {
	case MDEVX_CMD_OP_QUERY_HCA_CAP:
		return swdev_cmd_query_hca_cap;
	case MDEVX_CMD_OP_NOP:
		return swdev_cmd_nop;
	case MDEVX_CMD_OP_ALLOC_PD:
		return swdev_cmd_alloc_pd;
	case MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		return swdev_cmd_alloc_td;
	case MDEVX_CMD_OP_ALLOC_FLOW_COUNTER:
		return swdev_cmd_alloc_counter;
	case MDEVX_CMD_OP_QUERY_FLOW_COUNTER:
		return swdev_cmd_query_counter;
	case MDEVX_CMD_OP_CREATE_CQ:
		return swdev_cmd_create_cq;
	case MDEVX_CMD_OP_QUERY_CQ:
		return swdev_cmd_query_cq;
	case MDEVX_CMD_OP_CREATE_RQ:
		return swdev_cmd_create_rq;
	case MDEVX_CMD_OP_MODIFY_RQ:
		return swdev_cmd_modify_rq;
	case MDEVX_CMD_OP_QUERY_RQ:
		return swdev_cmd_query_rq;
	case MDEVX_CMD_OP_CREATE_RQT:
		return swdev_cmd_create_rqt;
	case MDEVX_CMD_OP_MODIFY_RQT:
		return swdev_cmd_modify_rqt;
	case MDEVX_CMD_OP_QUERY_RQT:
		return swdev_cmd_query_rqt;
	case MDEVX_CMD_OP_CREATE_TIR:
		return swdev_cmd_create_tir;
	case MDEVX_CMD_OP_MODIFY_TIR:
		return swdev_cmd_modify_tir;
	case MDEVX_CMD_OP_QUERY_TIR:
		return swdev_cmd_query_tir;
	case MDEVX_CMD_OP_CREATE_FLOW_TABLE:
		return swdev_cmd_create_flow_table;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE:
		return swdev_cmd_query_flow_table;
	case MDEVX_CMD_OP_CREATE_FLOW_GROUP:
		return swdev_cmd_create_flow_group;
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY:
		return swdev_cmd_set_fte;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY:
		return swdev_cmd_query_fte;
	default:
		return swdev_cmd_bad_op;
	}
}

static void
log_refusal(struct swdev_file *f, enum cmd_class cls, uint16_t opcode, int err,
	    const char *why)
{
	swdev_engine_logf(f->dev->eng, "%s file %u uid %u %s %s: errno %d (%s)",
			  f->dev->name, f->id, f->uid, class_names[cls],
			  mdevx_cmd_op_name(opcode), err, why);
}

static int
check_buffers(const void *in, size_t inlen, const void *out, size_t outlen)
{
	if (in == NULL || out == NULL)
		return EINVAL;
	/* the kernel's minimum attribute sizes: the 16-byte headers */
	if (inlen < HDR_BYTES || outlen < MDEVX_ST_SZ_BYTES(mbox_out))
		return EINVAL;
	if (inlen > SWDEV_MAX_MBOX_LEN || outlen > SWDEV_MAX_MBOX_LEN)
		return EINVAL;
	return 0;
}

/*
 * Firmware execution: count the command, zero the output mailbox, apply
 * fault rules, run the handler, write status and syndrome. 0, EREMOTEIO
 * or ENOMEM.
 */
static int
run_fw(struct swdev_cmd *cmd, enum cmd_class cls)
{
	uint8_t status = 0;
	uint32_t syndrome = 0;
	int rc;

	swdev_cmd_counted(cmd->dev, cmd->opcode);
	memset(cmd->out, 0, cmd->outlen);
	if (cmd->dev->nfaults != 0 &&
	    swdev_fault_check(cmd->dev, cmd->file, cmd->opcode, &status, &syndrome)) {
		cmd->status = status;
		cmd->syndrome = syndrome;
	} else {
		cmd->status = 0;
		cmd->syndrome = 0;
		rc = fw_handler(cmd->opcode)(cmd);
		if (rc < 0) {
			memset(cmd->out, 0, cmd->outlen);
			log_refusal(cmd->file, cls, cmd->opcode, ENOMEM, "host memory");
			return ENOMEM;
		}
	}
	if (cmd->status == MDEVX_CMD_STAT_OK)
		return 0;
	MDEVX_SET(mbox_out, cmd->out, status, cmd->status);
	MDEVX_SET(mbox_out, cmd->out, syndrome, cmd->syndrome);
	{
		const char *sname = swdev_syndrome_name(cmd->syndrome);

		swdev_engine_logf(cmd->dev->eng,
				  "%s file %u uid %u %s %s: errno %d status %s(0x%x) "
				  "syndrome 0x%x%s%s",
				  cmd->dev->name, cmd->file->id, cmd->uid, class_names[cls],
				  mdevx_cmd_op_name(cmd->opcode), EREMOTEIO,
				  mdevx_cmd_status_name(cmd->status), cmd->status, cmd->syndrome,
				  sname ? " " : "", sname ? sname : "");
	}
	return EREMOTEIO;
}

static void
cmd_init(struct swdev_cmd *cmd, struct swdev_file *f, const void *in, size_t inlen,
	 void *out, size_t outlen)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->dev = f->dev;
	cmd->file = f;
	/* the kernel overwrites in.uid with the context's uid */
	cmd->uid = f->uid;
	cmd->in = in;
	cmd->inlen = inlen;
	cmd->out = out;
	cmd->outlen = outlen;
	cmd->opcode = (uint16_t)MDEVX_GET(mbox_in, in, opcode);
	cmd->op_mod = (uint16_t)MDEVX_GET(mbox_in, in, op_mod);
}

/* An entry point's command from caller buffers: EINVAL as the kernel's checks. */
static int
cmd_begin(struct swdev_cmd *cmd, struct swdev_file *f, const void *in, size_t inlen,
	  void *out, size_t outlen)
{
	int rc;

	if (f == NULL)
		return EINVAL;
	rc = check_buffers(in, inlen, out, outlen);
	if (rc != 0)
		return rc;
	cmd_init(cmd, f, in, inlen, out, outlen);
	return 0;
}

void
swdev_obj_build_destroy(struct swdev_obj *obj)
{
	uint8_t *d = obj->destroy_cmd;
	uint16_t op;

	memset(d, 0, sizeof(obj->destroy_cmd));
	switch (obj->kind) {
	case SWDEV_KIND_PD:
		op = MDEVX_CMD_OP_DEALLOC_PD;
		break;
	case SWDEV_KIND_UAR:
		op = MDEVX_CMD_OP_DEALLOC_UAR;
		break;
	case SWDEV_KIND_UMEM:
		op = MDEVX_CMD_OP_DESTROY_UMEM;
		break;
	case SWDEV_KIND_TD:
		op = MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN;
		break;
	case SWDEV_KIND_CQ:
		op = MDEVX_CMD_OP_DESTROY_CQ;
		break;
	case SWDEV_KIND_RQ:
		op = MDEVX_CMD_OP_DESTROY_RQ;
		break;
	case SWDEV_KIND_RQT:
		op = MDEVX_CMD_OP_DESTROY_RQT;
		break;
	case SWDEV_KIND_TIR:
		op = MDEVX_CMD_OP_DESTROY_TIR;
		break;
	case SWDEV_KIND_FLOW_COUNTER:
		op = MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER;
		break;
	case SWDEV_KIND_FLOW_TABLE:
		op = MDEVX_CMD_OP_DESTROY_FLOW_TABLE;
		break;
	case SWDEV_KIND_FLOW_GROUP:
		op = MDEVX_CMD_OP_DESTROY_FLOW_GROUP;
		break;
	case SWDEV_KIND_FTE:
		op = MDEVX_CMD_OP_DELETE_FLOW_TABLE_ENTRY;
		break;
	default:
		return;	/* root matchers and rules: no firmware command */
	}
	MDEVX_SET(mbox_in, d, opcode, op);
	MDEVX_SET(mbox_in, d, uid, obj->uid);
	switch (obj->kind) {
	case SWDEV_KIND_FLOW_COUNTER:
		MDEVX_SET(dealloc_flow_counter_in, d, flow_counter_id, obj->id);
		break;
	case SWDEV_KIND_FLOW_TABLE:
		/* as devx_obj_build_destroy_cmd(): table type and id of the create */
		MDEVX_SET(destroy_flow_table_in, d, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
		MDEVX_SET(destroy_flow_table_in, d, table_id, obj->id);
		break;
	case SWDEV_KIND_FLOW_GROUP:
		MDEVX_SET(destroy_flow_group_in, d, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
		MDEVX_SET(destroy_flow_group_in, d, table_id, obj->u.fg.table->id);
		MDEVX_SET(destroy_flow_group_in, d, group_id, obj->id);
		break;
	case SWDEV_KIND_FTE:
		MDEVX_SET(delete_fte_in, d, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
		MDEVX_SET(delete_fte_in, d, table_id, obj->u.fte.table->id);
		MDEVX_SET(delete_fte_in, d, flow_index, obj->id);
		break;
	default:	/* every other destroy carries a 24-bit id at bit 0x48 */
		MDEVX_SET(destroy_tir_in, d, tirn, obj->id);
		break;
	}
}

/* Kind of the object a destroy opcode names. */
static int
destroy_kind(uint16_t opcode, enum swdev_kind *kind)
{
	switch (opcode) {
	case MDEVX_CMD_OP_DEALLOC_PD:
		*kind = SWDEV_KIND_PD;
		return 0;
	case MDEVX_CMD_OP_DEALLOC_UAR:
		*kind = SWDEV_KIND_UAR;
		return 0;
	case MDEVX_CMD_OP_DESTROY_UMEM:
		*kind = SWDEV_KIND_UMEM;
		return 0;
	case MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
		*kind = SWDEV_KIND_TD;
		return 0;
	case MDEVX_CMD_OP_DESTROY_CQ:
		*kind = SWDEV_KIND_CQ;
		return 0;
	case MDEVX_CMD_OP_DESTROY_RQ:
		*kind = SWDEV_KIND_RQ;
		return 0;
	case MDEVX_CMD_OP_DESTROY_RQT:
		*kind = SWDEV_KIND_RQT;
		return 0;
	case MDEVX_CMD_OP_DESTROY_TIR:
		*kind = SWDEV_KIND_TIR;
		return 0;
	case MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER:
		*kind = SWDEV_KIND_FLOW_COUNTER;
		return 0;
	case MDEVX_CMD_OP_DESTROY_FLOW_TABLE:
		*kind = SWDEV_KIND_FLOW_TABLE;
		return 0;
	case MDEVX_CMD_OP_DESTROY_FLOW_GROUP:
		*kind = SWDEV_KIND_FLOW_GROUP;
		return 0;
	case MDEVX_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
		*kind = SWDEV_KIND_FTE;
		return 0;
	default:
		return -1;
	}
}

/* Firmware side of a destroy command: find the object by id, check uid. */
static int
fw_destroy(struct swdev_cmd *cmd)
{
	static const uint32_t not_found[SWDEV_KIND_MAX] = {
		[SWDEV_KIND_PD] = SWDEV_SYND_PD_NOT_FOUND,
		[SWDEV_KIND_UAR] = SWDEV_SYND_OBJ_NOT_FOUND,
		[SWDEV_KIND_UMEM] = SWDEV_SYND_OBJ_NOT_FOUND,
		[SWDEV_KIND_TD] = SWDEV_SYND_TD_NOT_FOUND,
		[SWDEV_KIND_CQ] = SWDEV_SYND_CQ_NOT_FOUND,
		[SWDEV_KIND_RQ] = SWDEV_SYND_RQ_NOT_FOUND,
		[SWDEV_KIND_RQT] = SWDEV_SYND_RQT_NOT_FOUND,
		[SWDEV_KIND_TIR] = SWDEV_SYND_TIR_NOT_FOUND,
		[SWDEV_KIND_FLOW_COUNTER] = SWDEV_SYND_CNT_NOT_FOUND,
	};
	enum swdev_kind kind;
	struct swdev_obj *o;

	if (destroy_kind(cmd->opcode, &kind) != 0)
		return swdev_cmd_bad_op(cmd);
	if (kind == SWDEV_KIND_FLOW_TABLE || kind == SWDEV_KIND_FLOW_GROUP ||
	    kind == SWDEV_KIND_FTE) {
		o = swdev_flow_destroy_lookup(cmd);
		if (o == NULL)
			return cmd->status;
	} else if (kind == SWDEV_KIND_FLOW_COUNTER)
		o = swdev_counter_owner(&cmd->dev->cnt,
					MDEVX_GET(dealloc_flow_counter_in, cmd->in,
						  flow_counter_id));
	else
		o = swdev_obj_by_id(cmd->dev, kind, MDEVX_GET(destroy_tir_in, cmd->in, tirn));
	if (o == NULL)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR, not_found[kind]);
	if (o->uid != cmd->uid)
		return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_RES_ERR,
				      kind == SWDEV_KIND_FLOW_COUNTER ?
				      SWDEV_SYND_CNT_OTHER_UID : SWDEV_SYND_OBJ_OTHER_UID);
	swdev_obj_force_destroy(cmd->dev, o);
	return 0;
}

int
swdev_obj_destroy_cmd(struct swdev_file *f, struct swdev_obj *obj)
{
	uint8_t out[MDEVX_ST_SZ_BYTES(mbox_out)];
	uint8_t status = 0;
	uint32_t syndrome = 0;
	struct swdev_cmd cmd;
	int err;

	if (obj->refcnt != 0) {
		log_refusal(f, CLASS_DESTROY,
			    (uint16_t)MDEVX_GET(mbox_in, obj->destroy_cmd, opcode),
			    EBUSY, "object still referenced");
		return EBUSY;
	}
	cmd_init(&cmd, f, obj->destroy_cmd, sizeof(obj->destroy_cmd), out, sizeof(out));
	cmd.uid = obj->uid;
	swdev_cmd_counted(f->dev, cmd.opcode);
	if (f->dev->nfaults != 0 &&
	    swdev_fault_check(f->dev, f, cmd.opcode, &status, &syndrome)) {
		/* mlx5_cmd_exec() turns the status into an errno */
		err = mdevx_cmd_status_to_errno(status);
		swdev_engine_logf(f->dev->eng,
				  "%s file %u uid %u destroy %s: errno %d status %s(0x%x) "
				  "syndrome 0x%x",
				  f->dev->name, f->id, f->uid, mdevx_cmd_op_name(cmd.opcode), err,
				  mdevx_cmd_status_name(status), status, syndrome);
		return err;
	}
	if (fw_destroy(&cmd) != 0) {
		err = mdevx_cmd_status_to_errno(cmd.status);
		swdev_engine_logf(f->dev->eng,
				  "%s file %u uid %u destroy %s: errno %d status %s(0x%x) "
				  "syndrome 0x%x",
				  f->dev->name, f->id, f->uid, mdevx_cmd_op_name(cmd.opcode), err,
				  mdevx_cmd_status_name(cmd.status), cmd.status, cmd.syndrome);
		return err;
	}
	return 0;
}

/* ---- DEVX entry points ---- */

int
swdev_devx_obj_create(struct swdev_file *f, const void *in, size_t inlen,
		      void *out, size_t outlen, struct swdev_obj_info *info)
{
	struct swdev_cmd cmd;
	struct swdev_obj *obj;
	int rc;

	rc = cmd_begin(&cmd, f, in, inlen, out, outlen);
	if (rc != 0)
		return rc;
	if (!is_create_op(cmd.opcode, cmd.op_mod)) {
		log_refusal(f, CLASS_CREATE, cmd.opcode, EINVAL, "not a create command");
		return EINVAL;
	}
	if (MDEVX_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id) != 0) {
		log_refusal(f, CLASS_CREATE, cmd.opcode, EINVAL, "vhca_tunnel_id set");
		return EINVAL;
	}
	rc = swdev_idmap_reserve(&f->handles);
	if (rc != 0) {
		log_refusal(f, CLASS_CREATE, cmd.opcode, ENOMEM, "no free handle");
		return ENOMEM;
	}
	rc = run_fw(&cmd, CLASS_CREATE);
	if (rc != 0)
		return rc;
	obj = cmd.obj;
	if (obj == NULL) {
		/* a create handler that succeeded without an object: engine bug */
		log_refusal(f, CLASS_CREATE, cmd.opcode, EIO, "no object created");
		return EIO;
	}
	swdev_file_attach(f, obj);
	swdev_obj_build_destroy(obj);
	if (info != NULL) {
		memset(info, 0, sizeof(*info));
		info->handle = obj->handle;
		/* as rdma-core's set_devx_obj_info() */
		if (obj->kind == SWDEV_KIND_FLOW_COUNTER) {
			info->type = MDEVX_DEVX_TYPE_FLOW_COUNTER;
			info->object_id = obj->id;
		} else if (obj->kind == SWDEV_KIND_TIR) {
			info->type = MDEVX_DEVX_TYPE_TIR;
			info->object_id = obj->id;
			info->rx_icm_addr = obj->u.tir.icm_addr;
		} else if (obj->kind == SWDEV_KIND_FLOW_TABLE) {
			info->type = MDEVX_DEVX_TYPE_FLOW_TABLE;
			info->object_id = obj->id;
			info->rx_icm_addr = obj->u.ft.icm_addr;
		} else if (obj->kind == SWDEV_KIND_FLOW_GROUP) {
			info->type = MDEVX_DEVX_TYPE_FLOW_GROUP;
			info->object_id = obj->id;
		} else if (obj->kind == SWDEV_KIND_FTE) {
			info->type = MDEVX_DEVX_TYPE_FLOW_TABLE_ENTRY;
			info->object_id = obj->id;
		}
	}
	return 0;
}

/* The handle's object is the one the command names (devx_is_valid_obj_id). */
static bool
obj_matches(const struct swdev_obj *obj, const struct swdev_cmd *cmd)
{
	uint64_t first;

	switch (cmd->opcode) {
	case MDEVX_CMD_OP_MODIFY_CQ:
	case MDEVX_CMD_OP_QUERY_CQ:
		return obj->kind == SWDEV_KIND_CQ &&
		       MDEVX_GET(query_cq_in, cmd->in, cqn) == obj->id;
	case MDEVX_CMD_OP_MODIFY_RQ:
	case MDEVX_CMD_OP_QUERY_RQ:
		return obj->kind == SWDEV_KIND_RQ &&
		       MDEVX_GET(query_rq_in, cmd->in, rqn) == obj->id;
	case MDEVX_CMD_OP_MODIFY_RQT:
	case MDEVX_CMD_OP_QUERY_RQT:
		return obj->kind == SWDEV_KIND_RQT &&
		       MDEVX_GET(query_rqt_in, cmd->in, rqtn) == obj->id;
	case MDEVX_CMD_OP_MODIFY_TIR:
	case MDEVX_CMD_OP_QUERY_TIR:
		return obj->kind == SWDEV_KIND_TIR &&
		       MDEVX_GET(query_tir_in, cmd->in, tirn) == obj->id;
	case MDEVX_CMD_OP_QUERY_FLOW_COUNTER:
		if (obj->kind != SWDEV_KIND_FLOW_COUNTER ||
		    cmd->inlen < MDEVX_ST_SZ_BYTES(query_flow_counter_in))
			return false;
		/*
		 * The kernel checks the first id only (devx_is_valid_obj_id():
		 * [base, base + bulk)); the rest of the range is the
		 * firmware's to check (BAD_PARAM past the bulk).
		 */
		first = MDEVX_GET(query_flow_counter_in, cmd->in, flow_counter_id);
		return first >= obj->id && first < (uint64_t)obj->id + obj->u.cnt.num;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE:
		return obj->kind == SWDEV_KIND_FLOW_TABLE &&
		       cmd->inlen >= MDEVX_ST_SZ_BYTES(query_flow_table_in) &&
		       MDEVX_GET(query_flow_table_in, cmd->in, table_id) == obj->id;
	case MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY:
	case MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY:
		/*
		 * The kernel compares the flow index; the engine also the table
		 * (query_fte_in and set_fte_in agree on both places).
		 */
		return obj->kind == SWDEV_KIND_FTE &&
		       cmd->inlen >= MDEVX_ST_SZ_BYTES(query_fte_in) &&
		       MDEVX_GET(query_fte_in, cmd->in, flow_index) == obj->id &&
		       MDEVX_GET(query_fte_in, cmd->in, table_id) == obj->u.fte.table->id;
	default:
		return false;
	}
}

static int
obj_cmd(struct swdev_file *f, uint32_t handle, const void *in, size_t inlen,
	void *out, size_t outlen, enum cmd_class cls)
{
	struct swdev_cmd cmd;
	struct swdev_obj *obj;
	int rc;

	rc = cmd_begin(&cmd, f, in, inlen, out, outlen);
	if (rc != 0)
		return rc;
	obj = swdev_idmap_get(&f->handles, handle);
	if (obj == NULL) {
		log_refusal(f, cls, cmd.opcode, ENOENT, "no such handle");
		return ENOENT;
	}
	if (!obj->devx) {
		log_refusal(f, cls, cmd.opcode, EINVAL, "handle is not a DEVX object");
		return EINVAL;
	}
	if (cls == CLASS_MODIFY ? !is_modify_op(cmd.opcode, cmd.op_mod) :
	    !is_query_op(cmd.opcode)) {
		log_refusal(f, cls, cmd.opcode, EINVAL, "opcode not allowed here");
		return EINVAL;
	}
	if (MDEVX_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id) != 0) {
		log_refusal(f, cls, cmd.opcode, EINVAL, "vhca_tunnel_id set");
		return EINVAL;
	}
	if (!obj_matches(obj, &cmd)) {
		log_refusal(f, cls, cmd.opcode, EINVAL, "command names another object");
		return EINVAL;
	}
	cmd.obj = obj;
	return run_fw(&cmd, cls);
}

int
swdev_devx_obj_query(struct swdev_file *f, uint32_t handle, const void *in,
		     size_t inlen, void *out, size_t outlen)
{
	return obj_cmd(f, handle, in, inlen, out, outlen, CLASS_QUERY);
}

int
swdev_devx_obj_modify(struct swdev_file *f, uint32_t handle, const void *in,
		      size_t inlen, void *out, size_t outlen)
{
	return obj_cmd(f, handle, in, inlen, out, outlen, CLASS_MODIFY);
}

int
swdev_file_destroy_handle(struct swdev_file *f, uint32_t handle, bool devx)
{
	struct swdev_obj *obj;

	if (f == NULL)
		return EINVAL;
	obj = swdev_idmap_get(&f->handles, handle);
	if (obj == NULL)
		return ENOENT;
	/* root matchers and rules go through swdev_file_steer_destroy() */
	if (obj->devx != devx || obj->kind == SWDEV_KIND_MATCHER || obj->kind == SWDEV_KIND_FLOW)
		return EINVAL;
	return swdev_obj_destroy_cmd(f, obj);
}

int
swdev_devx_obj_destroy(struct swdev_file *f, uint32_t handle)
{
	return swdev_file_destroy_handle(f, handle, true);
}

int
swdev_devx_general_cmd(struct swdev_file *f, const void *in, size_t inlen,
		       void *out, size_t outlen)
{
	struct swdev_cmd cmd;
	int rc;

	rc = cmd_begin(&cmd, f, in, inlen, out, outlen);
	if (rc != 0)
		return rc;
	if (!is_general_op(cmd.opcode)) {
		log_refusal(f, CLASS_GENERAL, cmd.opcode, EINVAL, "not in the general whitelist");
		return EINVAL;
	}
	return run_fw(&cmd, CLASS_GENERAL);
}

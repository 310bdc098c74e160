/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5 PRM command layouts used by this project.
 *
 * Written from the PRM command layouts as the kernel
 * (include/linux/mlx5/mlx5_ifc.h), DPDK (drivers/common/mlx5/mlx5_prm.h) and
 * rdma-core (providers/mlx5/mlx5_ifc.h) give them, offsets and widths
 * cross-checked between the three. The layouts and opcodes that were not
 * cross-checked that way are marked "(not cross-checked)".
 *
 * Convention: a layout is a sequence of big-endian 32-bit dwords; bit 0 is
 * the most significant bit of dword 0. Each layout is described by a struct
 * `mdevx_ifc_<name>_bits` in which every uint8_t array element stands for
 * one PRM bit, so offsetof() is the bit offset of a field and sizeof() of a
 * member its width in bits. These structs are never instantiated; commands
 * are plain byte buffers accessed with the MDEVX_* macros below:
 *
 *   uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)] = {0};
 *   MDEVX_SET(create_tir_in, in, opcode, MDEVX_CMD_OP_CREATE_TIR);
 *   MDEVX_SET(create_tir_in, in, ctx.disp_type, MDEVX_TIRC_DISP_TYPE_INDIRECT);
 *   tirn = MDEVX_GET(create_tir_out, out, tirn);
 *
 * Field names may be nested ("ctx.rx_hash_field_selector_outer.selected_fields").
 * PRM fields never straddle a dword boundary except the 64-bit ones, which
 * are dword aligned and accessed with MDEVX_SET64 / MDEVX_GET64.
 */
#ifndef MDEVX_PRM_H
#define MDEVX_PRM_H

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Accessors                                                                */
/* ------------------------------------------------------------------------ */

#define MDEVX_IFC(typ) struct mdevx_ifc_##typ##_bits
/** Bit offset of @p fld in layout @p typ. */
#define MDEVX_BIT_OFF(typ, fld) (offsetof(MDEVX_IFC(typ), fld))
/** Width of @p fld in bits. */
#define MDEVX_FLD_SZ_BITS(typ, fld) (sizeof(((MDEVX_IFC(typ) *)0)->fld))
/** Width of @p fld in bytes (for byte arrays such as the Toeplitz key). */
#define MDEVX_FLD_SZ_BYTES(typ, fld) (MDEVX_FLD_SZ_BITS(typ, fld) / 8)
/** Byte offset of the byte that holds the first bit of @p fld. */
#define MDEVX_BYTE_OFF(typ, fld) (MDEVX_BIT_OFF(typ, fld) / 8)
/** Size of layout @p typ in bytes / dwords (flexible arrays count 0). */
#define MDEVX_ST_SZ_BYTES(typ) (sizeof(MDEVX_IFC(typ)) / 8)
#define MDEVX_ST_SZ_DW(typ) (sizeof(MDEVX_IFC(typ)) / 32)
/** Byte pointer to the start of @p fld inside buffer @p p. */
#define MDEVX_ADDR_OF(typ, p, fld) ((uint8_t *)(p) + MDEVX_BYTE_OFF(typ, fld))

/** Write @p v into the field of @p width bits at @p bit_off (width 1..32). */
static inline void
mdevx_prm_set(void *p, size_t bit_off, size_t width, uint32_t v)
{
	uint8_t *dw = (uint8_t *)p + (bit_off / 32) * 4;
	unsigned int shift = (unsigned int)(32 - (bit_off % 32) - width);
	uint32_t mask = (uint32_t)(((uint64_t)1 << width) - 1) << shift;
	uint32_t cur;

	memcpy(&cur, dw, 4);
	cur = be32toh(cur);
	cur = (cur & ~mask) | (((uint32_t)((uint64_t)v << shift)) & mask);
	cur = htobe32(cur);
	memcpy(dw, &cur, 4);
}

/** Read the field of @p width bits at @p bit_off (width 1..32). */
static inline uint32_t
mdevx_prm_get(const void *p, size_t bit_off, size_t width)
{
	const uint8_t *dw = (const uint8_t *)p + (bit_off / 32) * 4;
	unsigned int shift = (unsigned int)(32 - (bit_off % 32) - width);
	uint32_t mask = (uint32_t)(((uint64_t)1 << width) - 1);
	uint32_t cur;

	memcpy(&cur, dw, 4);
	return (be32toh(cur) >> shift) & mask;
}

static inline void
mdevx_prm_set64(void *p, size_t bit_off, uint64_t v)
{
	uint64_t be = htobe64(v);

	memcpy((uint8_t *)p + bit_off / 8, &be, 8);
}

static inline uint64_t
mdevx_prm_get64(const void *p, size_t bit_off)
{
	uint64_t be;

	memcpy(&be, (const uint8_t *)p + bit_off / 8, 8);
	return be64toh(be);
}

/* Compile-time check usable inside an expression (0 when @p cond holds). */
#define MDEVX_BUILD_CHECK(cond) ((void)sizeof(char[1 - 2 * !(cond)]))

#define MDEVX_SET(typ, p, fld, v) ( \
	MDEVX_BUILD_CHECK(MDEVX_FLD_SZ_BITS(typ, fld) <= 32), \
	mdevx_prm_set((p), MDEVX_BIT_OFF(typ, fld), MDEVX_FLD_SZ_BITS(typ, fld), \
		      (uint32_t)(v)))
#define MDEVX_GET(typ, p, fld) ( \
	MDEVX_BUILD_CHECK(MDEVX_FLD_SZ_BITS(typ, fld) <= 32), \
	mdevx_prm_get((p), MDEVX_BIT_OFF(typ, fld), MDEVX_FLD_SZ_BITS(typ, fld)))
#define MDEVX_SET64(typ, p, fld, v) ( \
	MDEVX_BUILD_CHECK(MDEVX_FLD_SZ_BITS(typ, fld) == 64), \
	mdevx_prm_set64((p), MDEVX_BIT_OFF(typ, fld), (uint64_t)(v)))
#define MDEVX_GET64(typ, p, fld) ( \
	MDEVX_BUILD_CHECK(MDEVX_FLD_SZ_BITS(typ, fld) == 64), \
	mdevx_prm_get64((p), MDEVX_BIT_OFF(typ, fld)))

/* ------------------------------------------------------------------------ */
/* Opcodes                                                                  */
/* ------------------------------------------------------------------------ */

enum {
	MDEVX_CMD_OP_QUERY_HCA_CAP = 0x100,
	MDEVX_CMD_OP_QUERY_ADAPTER = 0x101,		/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_ISSI = 0x10a,		/* (not cross-checked) */
	MDEVX_CMD_OP_CREATE_CQ = 0x400,
	MDEVX_CMD_OP_DESTROY_CQ = 0x401,
	MDEVX_CMD_OP_QUERY_CQ = 0x402,
	MDEVX_CMD_OP_MODIFY_CQ = 0x403,
	MDEVX_CMD_OP_CREATE_QP = 0x500,
	MDEVX_CMD_OP_QUERY_ESW_FUNCTIONS = 0x740,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_VPORT_STATE = 0x750,		/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_ESW_VPORT_CONTEXT = 0x752,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_NIC_VPORT_CONTEXT = 0x754,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_ROCE_ADDRESS = 0x760,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_HCA_VPORT_CONTEXT = 0x762,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_VNIC_ENV = 0x76f,		/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_VPORT_COUNTER = 0x770,	/* (not cross-checked) */
	MDEVX_CMD_OP_ALLOC_PD = 0x800,			/* (not cross-checked) */
	MDEVX_CMD_OP_DEALLOC_PD = 0x801,		/* (not cross-checked) */
	MDEVX_CMD_OP_ALLOC_UAR = 0x802,			/* (not cross-checked) */
	MDEVX_CMD_OP_DEALLOC_UAR = 0x803,		/* (not cross-checked) */
	MDEVX_CMD_OP_NOP = 0x80d,			/* (not cross-checked) */
	MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN = 0x816,
	MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN = 0x817,
	MDEVX_CMD_OP_QUERY_CONG_STATUS = 0x822,		/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_CONG_PARAMS = 0x824,		/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_CONG_STATISTICS = 0x825,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_LAG = 0x842,			/* (not cross-checked) */
	MDEVX_CMD_OP_CREATE_TIR = 0x900,
	MDEVX_CMD_OP_MODIFY_TIR = 0x901,
	MDEVX_CMD_OP_DESTROY_TIR = 0x902,
	MDEVX_CMD_OP_QUERY_TIR = 0x903,
	MDEVX_CMD_OP_CREATE_RQ = 0x908,
	MDEVX_CMD_OP_MODIFY_RQ = 0x909,
	MDEVX_CMD_OP_DESTROY_RQ = 0x90a,
	MDEVX_CMD_OP_QUERY_RQ = 0x90b,
	MDEVX_CMD_OP_CREATE_RQT = 0x916,
	MDEVX_CMD_OP_MODIFY_RQT = 0x917,
	MDEVX_CMD_OP_DESTROY_RQT = 0x918,
	MDEVX_CMD_OP_QUERY_RQT = 0x919,
	MDEVX_CMD_OP_SET_FLOW_TABLE_ROOT = 0x92f,
	MDEVX_CMD_OP_CREATE_FLOW_TABLE = 0x930,
	MDEVX_CMD_OP_DESTROY_FLOW_TABLE = 0x931,
	MDEVX_CMD_OP_QUERY_FLOW_TABLE = 0x932,
	MDEVX_CMD_OP_CREATE_FLOW_GROUP = 0x933,
	MDEVX_CMD_OP_DESTROY_FLOW_GROUP = 0x934,
	MDEVX_CMD_OP_QUERY_FLOW_GROUP = 0x935,
	MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY = 0x936,
	MDEVX_CMD_OP_QUERY_FLOW_TABLE_ENTRY = 0x937,
	MDEVX_CMD_OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
	MDEVX_CMD_OP_ALLOC_FLOW_COUNTER = 0x939,
	MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER = 0x93a,
	MDEVX_CMD_OP_QUERY_FLOW_COUNTER = 0x93b,
	MDEVX_CMD_OP_MODIFY_FLOW_TABLE = 0x93c,
	MDEVX_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT = 0x93d,
	MDEVX_CMD_OP_CREATE_GENERAL_OBJECT = 0xa00,
	MDEVX_CMD_OP_MODIFY_GENERAL_OBJECT = 0xa01,	/* (not cross-checked) */
	MDEVX_CMD_OP_QUERY_GENERAL_OBJECT = 0xa02,	/* (not cross-checked) */
	MDEVX_CMD_OP_DESTROY_GENERAL_OBJECT = 0xa03,	/* (not cross-checked) */
	MDEVX_CMD_OP_CREATE_UMEM = 0xa08,		/* (not cross-checked) */
	MDEVX_CMD_OP_DESTROY_UMEM = 0xa0a,		/* (not cross-checked) */
};

/** QUERY_HCA_CAP op_mod = (capability type << 1) | mode. */
enum {
	MDEVX_HCA_CAP_OPMOD_MAX = 0x0,
	MDEVX_HCA_CAP_OPMOD_CUR = 0x1,
	MDEVX_HCA_CAP_TYPE_GENERAL = 0x0,
	MDEVX_HCA_CAP_TYPE_ETHERNET_OFFLOAD = 0x1,
	MDEVX_HCA_CAP_TYPE_NIC_FLOW_TABLE = 0x7,
	MDEVX_HCA_CAP_TYPE_GENERAL_2 = 0x20,
	/** op_mod for the current general capabilities (cmd_hca_cap). */
	MDEVX_HCA_CAP_OP_MOD_GENERAL_CUR = 0x1,
	/** op_mod for the current general capabilities 2 (cmd_hca_cap_2). */
	MDEVX_HCA_CAP_OP_MOD_GENERAL_2_CUR = 0x41,
	/** op_mod for the current NIC flow table capabilities. */
	MDEVX_HCA_CAP_OP_MOD_NIC_FLOW_TABLE_CUR = 0xf,
};

/* ------------------------------------------------------------------------ */
/* Command status (output bits 0..7) and errno mapping                      */
/* ------------------------------------------------------------------------ */

enum {
	MDEVX_CMD_STAT_OK = 0x00,
	MDEVX_CMD_STAT_INT_ERR = 0x01,
	MDEVX_CMD_STAT_BAD_OP_ERR = 0x02,
	MDEVX_CMD_STAT_BAD_PARAM_ERR = 0x03,
	MDEVX_CMD_STAT_BAD_SYS_STATE_ERR = 0x04,
	MDEVX_CMD_STAT_BAD_RES_ERR = 0x05,
	MDEVX_CMD_STAT_RES_BUSY = 0x06,
	MDEVX_CMD_STAT_LIM_ERR = 0x08,
	MDEVX_CMD_STAT_BAD_RES_STATE_ERR = 0x09,
	MDEVX_CMD_STAT_IX_ERR = 0x0a,
	MDEVX_CMD_STAT_NO_RES_ERR = 0x0f,
	MDEVX_CMD_STAT_BAD_QP_STATE_ERR = 0x10,
	MDEVX_CMD_STAT_BAD_PKT_ERR = 0x30,
	MDEVX_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR = 0x40,
	MDEVX_CMD_STAT_BAD_INP_LEN_ERR = 0x50,
	MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR = 0x51,
};

/** errno for a command status, as rdma-core / the kernel convert it. */
static inline int
mdevx_cmd_status_to_errno(uint8_t status)
{
	switch (status) {
	case MDEVX_CMD_STAT_OK:
		return 0;
	case MDEVX_CMD_STAT_BAD_OP_ERR:
	case MDEVX_CMD_STAT_BAD_PARAM_ERR:
	case MDEVX_CMD_STAT_BAD_RES_ERR:
	case MDEVX_CMD_STAT_BAD_RES_STATE_ERR:
	case MDEVX_CMD_STAT_IX_ERR:
	case MDEVX_CMD_STAT_BAD_QP_STATE_ERR:
	case MDEVX_CMD_STAT_BAD_PKT_ERR:
	case MDEVX_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR:
		return EINVAL;
	case MDEVX_CMD_STAT_RES_BUSY:
		return EBUSY;
	case MDEVX_CMD_STAT_LIM_ERR:
		return ENOMEM;
	case MDEVX_CMD_STAT_NO_RES_ERR:
		return EAGAIN;
	default:
		/* INT_ERR, BAD_SYS_STATE, BAD_INP_LEN, BAD_OUTP_LEN, unknown */
		return EIO;
	}
}

/** "CREATE_TIR", ...; "UNKNOWN" for an opcode this header does not name. */
const char *mdevx_cmd_op_name(uint16_t opcode);
/** "BAD_PARAM_ERR", ...; "UNKNOWN" for other values. */
const char *mdevx_cmd_status_name(uint8_t status);

/* ------------------------------------------------------------------------ */
/* rdma-core DEVX object types (enum mlx5_devx_obj_type) and enumerations   */
/* ------------------------------------------------------------------------ */

enum {
	MDEVX_DEVX_TYPE_NONE = 0,
	MDEVX_DEVX_TYPE_FLOW_TABLE = 1,
	MDEVX_DEVX_TYPE_FLOW_COUNTER = 2,
	MDEVX_DEVX_TYPE_FLOW_METER = 3,
	MDEVX_DEVX_TYPE_QP = 4,
	MDEVX_DEVX_TYPE_PKT_REFORMAT_CTX = 5,
	MDEVX_DEVX_TYPE_TIR = 6,
	MDEVX_DEVX_TYPE_FLOW_GROUP = 7,
	MDEVX_DEVX_TYPE_FLOW_TABLE_ENTRY = 8,
	MDEVX_DEVX_TYPE_FLOW_SAMPLER = 9,
	MDEVX_DEVX_TYPE_ASO_FIRST_HIT = 10,
	MDEVX_DEVX_TYPE_ASO_FLOW_METER = 11,
	MDEVX_DEVX_TYPE_ASO_CT = 12,
};

enum {
	MDEVX_TIRC_DISP_TYPE_DIRECT = 0,
	MDEVX_TIRC_DISP_TYPE_INDIRECT = 1,
};

enum {
	MDEVX_RX_HASH_FN_NONE = 0,
	MDEVX_RX_HASH_FN_INVERTED_XOR8 = 1,
	MDEVX_RX_HASH_FN_TOEPLITZ = 2,
};

enum {
	MDEVX_L3_PROT_TYPE_IPV4 = 0,
	MDEVX_L3_PROT_TYPE_IPV6 = 1,
	MDEVX_L4_PROT_TYPE_TCP = 0,
	MDEVX_L4_PROT_TYPE_UDP = 1,
};

enum {
	MDEVX_RX_HASH_FIELD_SRC_IP = 1u << 0,
	MDEVX_RX_HASH_FIELD_DST_IP = 1u << 1,
	MDEVX_RX_HASH_FIELD_L4_SPORT = 1u << 2,
	MDEVX_RX_HASH_FIELD_L4_DPORT = 1u << 3,
	MDEVX_RX_HASH_FIELD_IPSEC_SPI = 1u << 4,
};

enum {
	MDEVX_TIRC_LRO_IPV4 = 1u << 0,
	MDEVX_TIRC_LRO_IPV6 = 1u << 1,
	MDEVX_TIRC_SELF_LB_BLOCK_UNICAST = 1u << 0,
	MDEVX_TIRC_SELF_LB_BLOCK_MULTICAST = 1u << 1,
};

/** modify_tir_in.modify_bitmask bits (64-bit value). */
enum {
	MDEVX_MODIFY_TIR_BITMASK_LRO = 1u << 0,
	MDEVX_MODIFY_TIR_BITMASK_INDIRECT_TABLE = 1u << 1,
	MDEVX_MODIFY_TIR_BITMASK_HASH = 1u << 2,
	MDEVX_MODIFY_TIR_BITMASK_TUNNELED_OFFLOAD_EN = 1u << 3,
	MDEVX_MODIFY_TIR_BITMASK_SELF_LB_EN = 1u << 4,
};

/** modify_rqt_in.modify_bitmask bits. */
enum {
	MDEVX_MODIFY_RQT_BITMASK_RQN_LIST = 1u << 0,
};

/** modify_rq_in.modify_bitmask bits. */
enum {
	MDEVX_MODIFY_RQ_BITMASK_WQ_LWM = 1u << 0,
	MDEVX_MODIFY_RQ_BITMASK_VSD = 1u << 1,
	MDEVX_MODIFY_RQ_BITMASK_SCATTER_FCS = 1u << 2,
	MDEVX_MODIFY_RQ_BITMASK_RQ_COUNTER_SET_ID = 1u << 3,
};

enum {
	MDEVX_RQC_STATE_RST = 0,
	MDEVX_RQC_STATE_RDY = 1,
	MDEVX_RQC_STATE_ERR = 3,
	MDEVX_RQC_MEM_RQ_TYPE_INLINE = 0,
	MDEVX_RQC_MEM_RQ_TYPE_RMP = 1,
};

enum {
	MDEVX_WQ_TYPE_LINKED_LIST = 0,
	MDEVX_WQ_TYPE_CYCLIC = 1,
	MDEVX_WQ_TYPE_LINKED_LIST_STRIDING_RQ = 2,
	MDEVX_WQ_TYPE_CYCLIC_STRIDING_RQ = 3,
};

enum {
	MDEVX_RQTC_LIST_Q_TYPE_RQ = 0,
	MDEVX_RQTC_LIST_Q_TYPE_VIRTQ = 1,
};

enum {
	MDEVX_CQE_SZ_64 = 0,
	MDEVX_CQE_SZ_128 = 1,
};

/* ------------------------------------------------------------------------ */
/* Common headers                                                           */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_mbox_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_mbox_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_general_obj_in_cmd_hdr_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t vhca_tunnel_id[0x10];
	uint8_t obj_type[0x10];
	uint8_t obj_id[0x20];
	uint8_t reserved_at_60[0x3];
	uint8_t log_obj_range[0x5];
	uint8_t reserved_at_68[0x18];
};

struct mdevx_ifc_general_obj_out_cmd_hdr_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t obj_id[0x20];
	uint8_t reserved_at_60[0x20];
};

/* ------------------------------------------------------------------------ */
/* QUERY_HCA_CAP                                                            */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_cmd_hca_cap_bits {
	uint8_t reserved_at_0[0x20];
	uint8_t hca_cap_2[0x1];		/* the general capabilities 2 page exists */
	uint8_t reserved_at_21[0xf];
	uint8_t vhca_id[0x10];
	uint8_t reserved_at_40[0x88];
	uint8_t log_max_cq_sz[0x8];
	uint8_t reserved_at_d0[0xb];
	uint8_t log_max_cq[0x5];
	uint8_t reserved_at_e0[0x1c];
	uint8_t log_max_eq[0x4];
	uint8_t reserved_at_100[0xa6];
	uint8_t nic_flow_table[0x1];	/* NIC receive/transmit flow tables */
	uint8_t reserved_at_1a7[0x75];
	uint8_t eth_net_offloads[0x1];	/* the Ethernet offload caps page exists */
	uint8_t reserved_at_21d[0xa3];
	uint8_t max_flow_counter_31_16[0x10];
	uint8_t reserved_at_2d0[0x40];
	uint8_t flow_counter_bulk_alloc[0x8];
	uint8_t reserved_at_318[0xb];
	uint8_t log_max_transport_domain[0x5];
	uint8_t reserved_at_328[0x3];
	uint8_t log_max_pd[0x5];
	uint8_t reserved_at_330[0x18];
	uint8_t log_max_flow_counter_bulk[0x8];
	uint8_t max_flow_counter_15_0[0x10];
	uint8_t reserved_at_360[0x1];
	uint8_t flow_counters_dump[0x1];
	uint8_t reserved_at_362[0x1];
	uint8_t log_max_rq[0x5];
	uint8_t reserved_at_368[0x3];
	uint8_t log_max_sq[0x5];
	uint8_t reserved_at_370[0x3];
	uint8_t log_max_tir[0x5];
	uint8_t reserved_at_378[0x3];
	uint8_t log_max_tis[0x5];
	uint8_t reserved_at_380[0x3];
	uint8_t log_max_rmp[0x5];
	uint8_t reserved_at_388[0x3];
	uint8_t log_max_rqt[0x5];
	uint8_t reserved_at_390[0x3];
	uint8_t log_max_rqt_size[0x5];
	uint8_t reserved_at_398[0x3];
	uint8_t log_max_tis_per_sq[0x5];
	uint8_t reserved_at_3a0[0x3b];
	uint8_t log_max_wq_sz[0x5];
	uint8_t reserved_at_3e0[0x20];
	uint8_t general_obj_types[0x40];
	uint8_t reserved_at_440[0x23];
	uint8_t log_max_uctx[0x5];
	uint8_t reserved_at_468[0x3];
	uint8_t log_max_umem[0x5];
	uint8_t reserved_at_470[0x390];
};

struct mdevx_ifc_cmd_hca_cap_2_bits {
	uint8_t reserved_at_0[0x253];
	uint8_t flow_counter_bulk_log_max_alloc[0x5];
	uint8_t reserved_at_258[0x3];
	uint8_t flow_counter_bulk_log_granularity[0x5];
	uint8_t reserved_at_260[0x5a0];
};

/** One flow-table property page (e.g. NIC receive), 64 bytes. */
struct mdevx_ifc_flow_table_prop_layout_bits {
	uint8_t ft_support[0x1];
	uint8_t reserved_at_1[0x1];
	uint8_t flow_counter[0x1];
	uint8_t flow_modify_en[0x1];
	uint8_t reserved_at_4[0x1e];
	uint8_t log_max_ft_size[0x6];
	uint8_t reserved_at_28[0x10];
	uint8_t max_ft_level[0x8];
	uint8_t reserved_at_40[0x38];
	uint8_t log_max_ft_num[0x8];
	uint8_t reserved_at_80[0x10];
	uint8_t log_max_flow_counter[0x8];
	uint8_t log_max_destination[0x8];
	uint8_t reserved_at_a0[0x18];
	uint8_t log_max_flow[0x8];
	uint8_t reserved_at_c0[0x140];
};

struct mdevx_ifc_flow_table_nic_cap_bits {
	uint8_t reserved_at_0[0x200];
	struct mdevx_ifc_flow_table_prop_layout_bits flow_table_properties_nic_receive;
	uint8_t reserved_at_400[0x7c00];
};

union mdevx_ifc_hca_cap_union_bits {
	struct mdevx_ifc_cmd_hca_cap_bits cmd_hca_cap;
	struct mdevx_ifc_cmd_hca_cap_2_bits cmd_hca_cap_2;
	struct mdevx_ifc_flow_table_nic_cap_bits flow_table_nic_cap;
	uint8_t reserved_at_0[0x8000];
};

struct mdevx_ifc_query_hca_cap_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_function[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t function_id[0x10];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_query_hca_cap_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
	union mdevx_ifc_hca_cap_union_bits capability;
};

/* ------------------------------------------------------------------------ */
/* PD and UAR (not cross-checked; the verbs side uses the pdn)               */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_alloc_pd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_alloc_pd_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_dealloc_pd_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];
	uint8_t reserved_at_60[0x20];
};

/* ------------------------------------------------------------------------ */
/* Flow counters                                                            */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_traffic_counter_bits {
	uint8_t packets[0x40];
	uint8_t octets[0x40];
};

struct mdevx_ifc_alloc_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];
	uint8_t reserved_at_60[0x13];
	uint8_t flow_counter_bulk_log_size[0x5];
	uint8_t flow_counter_bulk[0x8];
};

struct mdevx_ifc_alloc_flow_counter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t flow_counter_id[0x20];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_dealloc_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t flow_counter_id[0x20];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_dealloc_flow_counter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_query_flow_counter_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x20];
	uint8_t mkey[0x20];
	uint8_t address[0x40];
	uint8_t clear[0x1];
	uint8_t dump_to_memory[0x1];
	/* 30 bits (DPDK layout); the kernel's 16-bit field is its low half */
	uint8_t num_of_counters[0x1e];
	uint8_t flow_counter_id[0x20];
};

struct mdevx_ifc_query_flow_counter_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
	struct mdevx_ifc_traffic_counter_bits flow_statistics[];
};

/* ------------------------------------------------------------------------ */
/* Transport domain                                                         */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_alloc_transport_domain_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_alloc_transport_domain_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t transport_domain[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_dealloc_transport_domain_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t transport_domain[0x18];
	uint8_t reserved_at_60[0x20];
};

/* ------------------------------------------------------------------------ */
/* TIR                                                                      */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_rx_hash_field_select_bits {
	uint8_t l3_prot_type[0x1];
	uint8_t l4_prot_type[0x1];
	uint8_t selected_fields[0x1e];
};

struct mdevx_ifc_tirc_bits {
	uint8_t reserved_at_0[0x20];
	uint8_t disp_type[0x4];
	uint8_t tls_en[0x1];
	uint8_t reserved_at_25[0x5f];
	uint8_t lro_timeout_period_usecs[0x10];
	uint8_t lro_enable_mask[0x4];
	uint8_t lro_max_msg_sz[0x8];
	uint8_t reserved_at_a0[0x48];
	uint8_t inline_rqn[0x18];
	uint8_t rx_hash_symmetric[0x1];
	uint8_t reserved_at_101[0x1];
	uint8_t tunneled_offload_en[0x1];
	uint8_t reserved_at_103[0x5];
	uint8_t indirect_table[0x18];
	uint8_t rx_hash_fn[0x4];
	uint8_t reserved_at_124[0x2];
	uint8_t self_lb_block[0x2];
	uint8_t transport_domain[0x18];
	uint8_t rx_hash_toeplitz_key[0x140];	/* 40 bytes, byte i at +i */
	struct mdevx_ifc_rx_hash_field_select_bits rx_hash_field_selector_outer;
	struct mdevx_ifc_rx_hash_field_select_bits rx_hash_field_selector_inner;
	uint8_t reserved_at_2c0[0x4c0];
};

struct mdevx_ifc_create_tir_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_tirc_bits ctx;
};

struct mdevx_ifc_create_tir_out_bits {
	uint8_t status[0x8];
	uint8_t icm_address_63_40[0x18];
	uint8_t syndrome[0x20];
	uint8_t icm_address_39_32[0x8];
	uint8_t tirn[0x18];
	uint8_t icm_address_31_0[0x20];
};

struct mdevx_ifc_modify_tir_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t tirn[0x18];
	uint8_t reserved_at_60[0x20];
	uint8_t modify_bitmask[0x40];	/* MDEVX_MODIFY_TIR_BITMASK_* */
	uint8_t reserved_at_c0[0x40];
	struct mdevx_ifc_tirc_bits ctx;
};

struct mdevx_ifc_modify_tir_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_destroy_tir_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t tirn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_destroy_tir_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_query_tir_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t tirn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_query_tir_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_tirc_bits tir_context;
};

/* ------------------------------------------------------------------------ */
/* RQT                                                                      */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_rq_num_bits {
	uint8_t reserved_at_0[0x8];
	uint8_t rq_num[0x18];
};

struct mdevx_ifc_rqtc_bits {
	uint8_t reserved_at_0[0xa5];
	uint8_t list_q_type[0x3];
	uint8_t reserved_at_a8[0x8];
	uint8_t rqt_max_size[0x10];
	uint8_t rq_vhca_id_format[0x1];
	uint8_t reserved_at_c1[0xf];
	uint8_t rqt_actual_size[0x10];
	uint8_t reserved_at_e0[0x6a0];
	struct mdevx_ifc_rq_num_bits rq_num[];	/* entry i at +4*i bytes */
};

struct mdevx_ifc_create_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_rqtc_bits rqt_context;
};

struct mdevx_ifc_create_rqt_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_modify_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];
	uint8_t reserved_at_60[0x20];
	uint8_t modify_bitmask[0x40];	/* MDEVX_MODIFY_RQT_BITMASK_* */
	uint8_t reserved_at_c0[0x40];
	struct mdevx_ifc_rqtc_bits rqt_context;
};

struct mdevx_ifc_modify_rqt_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_destroy_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_query_rqt_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t rqtn[0x18];
	uint8_t reserved_at_60[0x20];
};

/* (not cross-checked: context at byte 32 as in every other query output) */
struct mdevx_ifc_query_rqt_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_rqtc_bits rqt_context;
};

/* ------------------------------------------------------------------------ */
/* RQ and WQ                                                                */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_wq_bits {
	uint8_t wq_type[0x4];
	uint8_t wq_signature[0x1];
	uint8_t end_padding_mode[0x2];
	uint8_t cd_slave[0x1];
	uint8_t reserved_at_8[0x23];
	uint8_t page_offset[0x5];
	uint8_t lwm[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t pd[0x18];
	uint8_t reserved_at_60[0x8];
	uint8_t uar_page[0x18];
	uint8_t dbr_addr[0x40];
	uint8_t hw_counter[0x20];
	uint8_t sw_counter[0x20];
	uint8_t reserved_at_100[0xc];
	uint8_t log_wq_stride[0x4];
	uint8_t reserved_at_110[0x3];
	uint8_t log_wq_pg_sz[0x5];
	uint8_t reserved_at_118[0x3];
	uint8_t log_wq_sz[0x5];
	uint8_t dbr_umem_valid[0x1];
	uint8_t wq_umem_valid[0x1];
	uint8_t reserved_at_122[0x1];
	uint8_t log_hairpin_num_packets[0x5];
	uint8_t reserved_at_128[0x3];
	uint8_t log_hairpin_data_sz[0x5];
	uint8_t reserved_at_130[0x4];
	uint8_t single_wqe_log_num_of_strides[0x4];
	uint8_t two_byte_shift_en[0x1];
	uint8_t reserved_at_139[0x4];
	uint8_t single_stride_log_num_of_bytes[0x3];
	uint8_t dbr_umem_id[0x20];
	uint8_t wq_umem_id[0x20];
	uint8_t wq_umem_offset[0x40];
	uint8_t reserved_at_1c0[0x440];
};

struct mdevx_ifc_rqc_bits {
	uint8_t rlky[0x1];
	uint8_t delay_drop_en[0x1];
	uint8_t scatter_fcs[0x1];
	uint8_t vsd[0x1];
	uint8_t mem_rq_type[0x4];
	uint8_t state[0x4];
	uint8_t reserved_at_c[0x1];
	uint8_t flush_in_error_en[0x1];
	uint8_t hairpin[0x1];
	uint8_t reserved_at_f[0xb];
	uint8_t ts_format[0x2];
	uint8_t reserved_at_1c[0xc];
	uint8_t user_index[0x18];
	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];
	uint8_t counter_set_id[0x8];
	uint8_t reserved_at_68[0x20];
	uint8_t rmpn[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t hairpin_peer_sq[0x18];
	uint8_t reserved_at_c0[0x10];
	uint8_t hairpin_peer_vhca[0x10];
	uint8_t reserved_at_e0[0xa0];
	struct mdevx_ifc_wq_bits wq;
};

struct mdevx_ifc_create_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_rqc_bits ctx;
};

struct mdevx_ifc_create_rq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t rqn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_modify_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t rq_state[0x4];	/* current state */
	uint8_t reserved_at_44[0x4];
	uint8_t rqn[0x18];
	uint8_t reserved_at_60[0x20];
	uint8_t modify_bitmask[0x40];	/* MDEVX_MODIFY_RQ_BITMASK_* */
	uint8_t reserved_at_c0[0x40];
	struct mdevx_ifc_rqc_bits ctx;	/* ctx.state = new state */
};

struct mdevx_ifc_modify_rq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

struct mdevx_ifc_destroy_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t rqn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_query_rq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t rqn[0x18];
	uint8_t reserved_at_60[0x20];
};

/* (not cross-checked: context at byte 32 as in every other query output) */
struct mdevx_ifc_query_rq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0xc0];
	struct mdevx_ifc_rqc_bits rq_context;
};

/* ------------------------------------------------------------------------ */
/* CQ                                                                       */
/* ------------------------------------------------------------------------ */

struct mdevx_ifc_cqc_bits {
	uint8_t status[0x4];
	uint8_t reserved_at_4[0x2];
	uint8_t dbr_umem_valid[0x1];
	uint8_t reserved_at_7[0x1];
	uint8_t cqe_sz[0x3];
	uint8_t cc[0x1];
	uint8_t reserved_at_c[0x1];
	uint8_t scqe_break_moderation_en[0x1];
	uint8_t oi[0x1];
	uint8_t cq_period_mode[0x2];
	uint8_t cqe_comp_en[0x1];
	uint8_t mini_cqe_res_format[0x2];
	uint8_t st[0x4];
	uint8_t reserved_at_18[0x8];
	uint8_t dbr_umem_id[0x20];
	uint8_t reserved_at_40[0x14];
	uint8_t page_offset[0x6];
	uint8_t reserved_at_5a[0x9];
	uint8_t log_cq_size[0x5];
	uint8_t uar_page[0x18];
	uint8_t reserved_at_80[0x4];
	uint8_t cq_period[0xc];
	uint8_t cq_max_count[0x10];
	union {
		/* kernel 6.1: the whole dword; DPDK: 8-bit c_eqn in its low byte */
		uint8_t c_eqn_or_apu_element[0x20];
		struct {
			uint8_t reserved_at_a0[0x18];
			uint8_t c_eqn[0x8];
		};
	};
	uint8_t reserved_at_c0[0x3];
	uint8_t log_page_size[0x5];
	uint8_t reserved_at_c8[0x40];
	uint8_t last_notified_index[0x18];
	uint8_t reserved_at_120[0x8];
	uint8_t last_solicit_index[0x18];
	uint8_t reserved_at_140[0x8];
	uint8_t consumer_counter[0x18];
	uint8_t reserved_at_160[0x8];
	uint8_t producer_counter[0x18];
	uint8_t reserved_at_180[0x40];
	uint8_t dbr_addr[0x40];
};

struct mdevx_ifc_create_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
	struct mdevx_ifc_cqc_bits cq_context;
	uint8_t cq_umem_offset[0x40];
	uint8_t cq_umem_id[0x20];
	uint8_t cq_umem_valid[0x1];
	uint8_t reserved_at_2e1[0x59f];
	uint8_t pas[][0x40];
};

struct mdevx_ifc_create_cq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_destroy_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_query_cq_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x8];
	uint8_t cqn[0x18];
	uint8_t reserved_at_60[0x20];
};

/* (not cross-checked: context at byte 16 like create_cq_in) */
struct mdevx_ifc_query_cq_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
	struct mdevx_ifc_cqc_bits cq_context;
	uint8_t reserved_at_280[0x600];
	uint8_t pas[][0x40];
};

/* ------------------------------------------------------------------------ */
/* Flow steering: NIC receive tables, groups, entries (PRM "Flow Table")    */
/* ------------------------------------------------------------------------ */

enum {
	MDEVX_FLOW_TABLE_TYPE_NIC_RX = 0x0,
	MDEVX_FLOW_TABLE_TYPE_NIC_TX = 0x1,
	MDEVX_FLOW_TABLE_TYPE_FDB = 0x4,
};

/** flow_context.action bits. */
enum {
	MDEVX_FLOW_CONTEXT_ACTION_ALLOW = 0x1,
	MDEVX_FLOW_CONTEXT_ACTION_DROP = 0x2,
	MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST = 0x4,
	MDEVX_FLOW_CONTEXT_ACTION_COUNT = 0x8,
};

/** dest_format.destination_type (a counter is never a destination). */
enum {
	MDEVX_FLOW_DEST_TYPE_VPORT = 0x0,
	MDEVX_FLOW_DEST_TYPE_FLOW_TABLE = 0x1,
	MDEVX_FLOW_DEST_TYPE_TIR = 0x2,
};

/** match_criteria_enable bits. */
enum {
	MDEVX_MATCH_CRITERIA_OUTER = 0x1,
	MDEVX_MATCH_CRITERIA_MISC = 0x2,
	MDEVX_MATCH_CRITERIA_INNER = 0x4,
	MDEVX_MATCH_CRITERIA_MISC2 = 0x8,
	MDEVX_MATCH_CRITERIA_MISC3 = 0x10,
};

/** flow_table_context.table_miss_action. */
enum {
	MDEVX_FLOW_TABLE_MISS_DEFAULT = 0x0,
	MDEVX_FLOW_TABLE_MISS_FWD = 0x1,
};

/** set_fte_in.op_mod. */
enum {
	MDEVX_SET_FTE_OP_MOD_CREATE = 0x0,
	MDEVX_SET_FTE_OP_MOD_MODIFY = 0x1,
};

struct mdevx_ifc_flow_table_context_bits {
	uint8_t reformat_en[0x1];
	uint8_t decap_en[0x1];
	uint8_t sw_owner[0x1];
	uint8_t termination_table[0x1];
	uint8_t table_miss_action[0x4];
	uint8_t level[0x8];
	uint8_t reserved_at_10[0x8];
	uint8_t log_size[0x8];
	uint8_t reserved_at_20[0x8];
	uint8_t table_miss_id[0x18];
	uint8_t reserved_at_40[0x8];
	uint8_t lag_master_next_table_id[0x18];
	uint8_t reserved_at_60[0xe0];
};

struct mdevx_ifc_create_flow_table_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x20];
	struct mdevx_ifc_flow_table_context_bits flow_table_context;
};

struct mdevx_ifc_create_flow_table_out_bits {
	uint8_t status[0x8];
	uint8_t icm_address_63_40[0x18];
	uint8_t syndrome[0x20];
	uint8_t icm_address_39_32[0x8];
	uint8_t table_id[0x18];
	uint8_t icm_address_31_0[0x20];
};

/* DESTROY_FLOW_TABLE and QUERY_FLOW_TABLE inputs share this layout. */
struct mdevx_ifc_destroy_flow_table_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t reserved_at_c0[0x140];
};

struct mdevx_ifc_query_flow_table_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t reserved_at_c0[0x140];
};

struct mdevx_ifc_query_flow_table_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x80];
	struct mdevx_ifc_flow_table_context_bits flow_table_context;
};

/** The outer (and inner) L2-L4 match set, 64 bytes. */
struct mdevx_ifc_fte_match_set_lyr_2_4_bits {
	uint8_t smac_47_16[0x20];
	uint8_t smac_15_0[0x10];
	uint8_t ethertype[0x10];
	uint8_t dmac_47_16[0x20];
	uint8_t dmac_15_0[0x10];
	uint8_t first_prio[0x3];
	uint8_t first_cfi[0x1];
	uint8_t first_vid[0xc];
	uint8_t ip_protocol[0x8];
	uint8_t ip_dscp[0x6];
	uint8_t ip_ecn[0x2];
	uint8_t cvlan_tag[0x1];
	uint8_t svlan_tag[0x1];
	uint8_t frag[0x1];
	uint8_t ip_version[0x4];
	uint8_t tcp_flags[0x9];
	uint8_t tcp_sport[0x10];
	uint8_t tcp_dport[0x10];
	uint8_t reserved_at_c0[0x18];
	uint8_t ttl_hoplimit[0x8];
	uint8_t udp_sport[0x10];
	uint8_t udp_dport[0x10];
	uint8_t src_ipv4_src_ipv6[0x80];	/* IPv4 in the last dword */
	uint8_t dst_ipv4_dst_ipv6[0x80];	/* IPv4 in the last dword */
};

/** Match parameters: seven 64-byte sets; this project matches outer only. */
struct mdevx_ifc_fte_match_param_bits {
	struct mdevx_ifc_fte_match_set_lyr_2_4_bits outer_headers;
	uint8_t misc_parameters[0x200];
	struct mdevx_ifc_fte_match_set_lyr_2_4_bits inner_headers;
	uint8_t misc_parameters_2[0x200];
	uint8_t misc_parameters_3[0x200];
	uint8_t misc_parameters_4[0x200];
	uint8_t misc_parameters_5[0x200];
	uint8_t reserved_at_e00[0x200];
};

struct mdevx_ifc_create_flow_group_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x4];
	uint8_t group_type[0x4];
	uint8_t reserved_at_90[0x10];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t source_eswitch_owner_vhca_id_valid[0x1];
	uint8_t reserved_at_c1[0x1f];
	uint8_t start_flow_index[0x20];
	uint8_t reserved_at_100[0x20];
	uint8_t end_flow_index[0x20];
	uint8_t reserved_at_140[0xb8];
	uint8_t match_criteria_enable[0x8];
	struct mdevx_ifc_fte_match_param_bits match_criteria;
	uint8_t reserved_at_1200[0xe00];
};

struct mdevx_ifc_create_flow_group_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t group_id[0x18];
	uint8_t reserved_at_60[0x20];
};

struct mdevx_ifc_destroy_flow_group_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t group_id[0x20];
	uint8_t reserved_at_e0[0x120];
};

/** One destination of a flow context (8 bytes; 16 when extended). */
struct mdevx_ifc_dest_format_bits {
	uint8_t destination_type[0x8];
	uint8_t destination_id[0x18];
	uint8_t destination_eswitch_owner_vhca_id_valid[0x1];
	uint8_t packet_reformat[0x1];
	uint8_t reserved_at_22[0xe];
	uint8_t destination_eswitch_owner_vhca_id[0x10];
};

/** One counter of a flow context's counter list (same stride). */
struct mdevx_ifc_flow_counter_list_bits {
	uint8_t flow_counter_id[0x20];
	uint8_t reserved_at_20[0x20];
};

struct mdevx_ifc_flow_context_bits {
	uint8_t push_vlan[0x20];
	uint8_t group_id[0x20];
	uint8_t reserved_at_40[0x8];
	uint8_t flow_tag[0x18];
	uint8_t reserved_at_60[0x10];
	uint8_t action[0x10];
	uint8_t extended_destination[0x1];
	uint8_t reserved_at_81[0x1];
	uint8_t flow_source[0x2];
	uint8_t reserved_at_84[0x4];
	uint8_t destination_list_size[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t flow_counter_list_size[0x18];
	uint8_t packet_reformat_id[0x20];
	uint8_t modify_header_id[0x20];
	uint8_t reserved_at_100[0x100];
	struct mdevx_ifc_fte_match_param_bits match_value;
	uint8_t reserved_at_1200[0x600];
	uint8_t destination[][0x40];	/* destinations, then counters */
};

struct mdevx_ifc_set_fte_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t ignore_flow_level[0x1];
	uint8_t reserved_at_c1[0x17];
	uint8_t modify_enable_mask[0x8];
	uint8_t reserved_at_e0[0x20];
	uint8_t flow_index[0x20];
	uint8_t reserved_at_120[0xe0];
	struct mdevx_ifc_flow_context_bits flow_context;
};

struct mdevx_ifc_set_fte_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x40];
};

/* DELETE_FLOW_TABLE_ENTRY and QUERY_FLOW_TABLE_ENTRY inputs. */
struct mdevx_ifc_delete_fte_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t other_vport[0x1];
	uint8_t reserved_at_41[0xf];
	uint8_t vport_number[0x10];
	uint8_t reserved_at_60[0x20];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t reserved_at_c0[0x40];
	uint8_t flow_index[0x20];
	uint8_t reserved_at_120[0xe0];
};

struct mdevx_ifc_query_fte_in_bits {
	uint8_t opcode[0x10];
	uint8_t uid[0x10];
	uint8_t reserved_at_20[0x10];
	uint8_t op_mod[0x10];
	uint8_t reserved_at_40[0x40];
	uint8_t table_type[0x8];
	uint8_t reserved_at_88[0x18];
	uint8_t reserved_at_a0[0x8];
	uint8_t table_id[0x18];
	uint8_t reserved_at_c0[0x40];
	uint8_t flow_index[0x20];
	uint8_t reserved_at_120[0xe0];
};

/* (not cross-checked: flow context at byte 64, as the kernel declares it) */
struct mdevx_ifc_query_fte_out_bits {
	uint8_t status[0x8];
	uint8_t reserved_at_8[0x18];
	uint8_t syndrome[0x20];
	uint8_t reserved_at_40[0x1c0];
	struct mdevx_ifc_flow_context_bits flow_context;
};

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_PRM_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Engine basics: devices, uverbs files and uids, handle namespace and reuse,
 * the kernel's DEVX checks (lengths, command classes, whitelist, destroy
 * opcodes), QUERY_HCA_CAP, the verbs side, logging, the count of commands
 * run per opcode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"
#include "unit_check.h"
#include "swdev_test_util.h"

static char last_log[256];
static unsigned int nlogs;

static void
capture_log(void *arg, const char *line)
{
	(void)arg;
	nlogs++;
	snprintf(last_log, sizeof(last_log), "%s", line);
}

static void
test_devices(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_limits lim;
	char name[40];
	unsigned int i;

	CHECK(eng != NULL);
	CHECK_EQ(swdev_engine_num_devices(eng), 0);
	CHECK_EQ(swdev_engine_add_device(eng, "a", NULL), 0);
	CHECK_EQ(swdev_engine_add_device(eng, "b", NULL), 1);
	CHECK_EQ(swdev_engine_add_device(eng, "a", NULL), -EEXIST);
	CHECK_EQ(swdev_engine_add_device(eng, "", NULL), -EINVAL);
	CHECK_EQ(swdev_engine_add_device(eng, NULL, NULL), -EINVAL);
	CHECK_EQ(swdev_engine_add_device(eng, "0123456789012345678901234567890123", NULL),
		 -EINVAL);
	CHECK_EQ(swdev_engine_add_device(eng, "bad\nname", NULL), -EINVAL);
	swdev_limits_default(&lim);
	lim.max_flow_counters = 0;
	CHECK_EQ(swdev_engine_add_device(eng, "c", &lim), -EINVAL);
	swdev_limits_default(&lim);
	lim.num_eqs = 0;
	CHECK_EQ(swdev_engine_add_device(eng, "c", &lim), -EINVAL);
	CHECK_EQ(swdev_engine_num_devices(eng), 2);
	CHECK(strcmp(swdev_engine_device_name(eng, 1), "b") == 0);
	CHECK(swdev_engine_device_name(eng, 2) == NULL);
	for (i = 2; i < SWDEV_MAX_DEVICES; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		CHECK_EQ(swdev_engine_add_device(eng, name, NULL), (int)i);
	}
	CHECK_EQ(swdev_engine_add_device(eng, "one-too-many", NULL), -ENOSPC);
	CHECK(strcmp(swdev_kind_name(SWDEV_KIND_TIR), "tir") == 0);
	CHECK(strcmp(swdev_kind_name(SWDEV_KIND_FLOW_COUNTER), "flow_counter") == 0);
	CHECK(strcmp(swdev_kind_name(SWDEV_KIND_MAX), "unknown") == 0);
	swdev_engine_destroy(eng);
	swdev_engine_destroy(NULL);
}

static void
test_files(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_file *f1, *f2, *f3;
	uint32_t n = 99;

	swdev_engine_add_device(eng, T_DEV, NULL);
	swdev_engine_add_device(eng, "other", NULL);
	errno = 0;
	CHECK(swdev_file_open(eng, "nope") == NULL);
	CHECK_EQ(errno, ENODEV);
	f1 = swdev_file_open(eng, T_DEV);
	f2 = swdev_file_open(eng, T_DEV);
	f3 = swdev_file_open(eng, "other");
	CHECK(f1 != NULL && f2 != NULL && f3 != NULL);
	CHECK(swdev_file_uid(f1) != 0);
	CHECK(swdev_file_uid(f2) != 0);
	CHECK(swdev_file_uid(f1) != swdev_file_uid(f2));
	CHECK(swdev_file_id(f1) != 0);
	CHECK(swdev_file_id(f1) != swdev_file_id(f2));
	CHECK(strcmp(swdev_file_devname(f3), "other") == 0);
	CHECK_EQ(swdev_ctl_num_files(eng, T_DEV, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(swdev_ctl_num_files(eng, "nope", &n), ENODEV);
	swdev_file_close(f2);
	CHECK_EQ(swdev_ctl_num_files(eng, T_DEV, &n), 0);
	CHECK_EQ(n, 1);
	/* file ids are not reused, uids may be */
	f2 = swdev_file_open(eng, T_DEV);
	CHECK(f2 != NULL && swdev_file_id(f2) > swdev_file_id(f1) + 1);
	CHECK(swdev_file_uid(f2) != swdev_file_uid(f1));
	swdev_file_close(NULL);
	swdev_engine_destroy(eng);	/* closes the remaining files */
}

static void
test_handles(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_file *f, *g;
	uint32_t h[4], id[4], hg, idg, h2, id2;
	struct swdev_counts cnt;

	swdev_engine_add_device(eng, T_DEV, NULL);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	/* one namespace for every kind, lowest free first, starting at 0 */
	CHECK_EQ(swdev_file_pd_alloc(f, &h[0], &id[0]), 0);
	CHECK_EQ(t_alloc_td(f, &h[1], &id[1]), 0);
	CHECK_EQ(swdev_file_uar_alloc(f, &h[2], &id[2]), 0);
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 4096, 0, &h[3], &id[3]), 0);
	CHECK_EQ(h[0], 0);
	CHECK_EQ(h[1], 1);
	CHECK_EQ(h[2], 2);
	CHECK_EQ(h[3], 3);
	/* ids per kind and device */
	CHECK(id[0] != 0 && id[1] != 0 && id[2] != 0 && id[3] != 0);
	CHECK_EQ(swdev_file_pd_alloc(g, &hg, &idg), 0);
	CHECK_EQ(hg, 0);		/* handles are per file */
	CHECK(idg != id[0]);		/* pdns are per device */
	CHECK_EQ(swdev_devx_obj_destroy(f, h[1]), 0);
	CHECK_EQ(swdev_devx_obj_destroy(f, h[1]), ENOENT);
	CHECK_EQ(swdev_file_pd_alloc(f, &h2, &id2), 0);
	CHECK_EQ(h2, 1);		/* lowest free handle reused */
	CHECK_EQ(swdev_file_verbs_destroy(f, h[0]), 0);
	CHECK_EQ(swdev_file_pd_alloc(f, &h2, &id2), 0);
	CHECK_EQ(h2, 0);
	CHECK_EQ(id2, id[0]);		/* lowest free pdn reused too */
	/* verbs handle through DEVX destroy and the reverse: EINVAL */
	CHECK_EQ(swdev_devx_obj_destroy(f, h[2]), EINVAL);
	CHECK_EQ(t_alloc_td(f, &h2, &id2), 0);
	CHECK_EQ(swdev_file_verbs_destroy(f, h2), EINVAL);
	CHECK_EQ(swdev_file_verbs_destroy(f, 12345), ENOENT);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, swdev_file_id(f), &cnt), 0);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_PD], 2);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_TD], 1);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_UAR], 1);
	CHECK_EQ(cnt.by_kind[SWDEV_KIND_UMEM], 1);
	CHECK_EQ(cnt.total, 5);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.total, 6);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 999, &cnt), ENOENT);
	CHECK_EQ(swdev_ctl_counts(eng, "nope", 0, &cnt), ENODEV);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, NULL), EINVAL);
	swdev_file_close(f);
	CHECK_EQ(swdev_ctl_counts(eng, T_DEV, 0, &cnt), 0);
	CHECK_EQ(cnt.total, 1);
	swdev_engine_destroy(eng);
}

static void
test_verbs(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	struct swdev_limits lim;
	struct swdev_file *f;
	uint32_t h, id, eqn, i;

	swdev_limits_default(&lim);
	lim.max_uars = 2;
	lim.max_umems = 2;
	lim.log_max_pd = 1;
	lim.num_eqs = 3;
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	CHECK_EQ(swdev_file_query_eqn(f, 0, &eqn), 0);
	CHECK_EQ(eqn, SWDEV_EQN_BASE);
	CHECK_EQ(swdev_file_query_eqn(f, 2, &eqn), 0);
	CHECK_EQ(eqn, SWDEV_EQN_BASE + 2);
	CHECK_EQ(swdev_file_query_eqn(f, 3, &eqn), EINVAL);
	CHECK_EQ(swdev_file_query_eqn(NULL, 0, &eqn), EINVAL);
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 0, 0, &h, &id), EINVAL);
	CHECK_EQ(swdev_file_umem_reg(f, UINT64_MAX, 2, 0, &h, &id), EINVAL);
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 1, 0, NULL, &id), EINVAL);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 1, 0, &h, &id), 0);
		CHECK_EQ(swdev_file_uar_alloc(f, &h, &id), 0);
		CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	}
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 1, 0, &h, &id), ENOMEM);
	CHECK_EQ(swdev_file_uar_alloc(f, &h, &id), ENOMEM);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), ENOMEM);
	CHECK_EQ(swdev_file_pd_alloc(NULL, &h, &id), EINVAL);
	/* fault injection on the verbs side: plain errno */
	CHECK_EQ(swdev_file_verbs_destroy(f, 0), 0);
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_CREATE_UMEM, 1,
				 MDEVX_CMD_STAT_NO_RES_ERR, 0x77, 0), 0);
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 1, 0, &h, &id), EAGAIN);
	CHECK_EQ(swdev_file_umem_reg(f, 0x1000, 1, 0, &h, &id), 0);
	swdev_engine_destroy(eng);
}

static void
test_kernel_checks(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in) + 16] = {0};
	uint8_t out[64], pattern[64];
	struct swdev_file *f;
	uint32_t h, tdn;

	swdev_engine_add_device(eng, T_DEV, NULL);
	swdev_engine_set_log(eng, capture_log, NULL);
	f = swdev_file_open(eng, T_DEV);
	memset(pattern, 0xee, sizeof(pattern));
	memcpy(out, pattern, sizeof(out));

	/* destroy opcodes are never accepted as commands */
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_DESTROY_TIR);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EINVAL);
	CHECK(memcmp(out, pattern, sizeof(out)) == 0);	/* output untouched */
	CHECK(strstr(last_log, "DESTROY_TIR") != NULL);
	CHECK(strstr(last_log, "errno 22") != NULL);
	/* create accepts only create opcodes */
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EINVAL);
	MDEVX_SET(mbox_in, in, opcode, 0x7777);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EINVAL);
	/* general: create opcodes are not whitelisted */
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EINVAL);
	/* kernel minimum sizes, NULL buffers, NULL file */
	CHECK_EQ(swdev_devx_obj_create(f, in, 15, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 15, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_create(f, NULL, 16, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, NULL, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_create(NULL, in, 16, out, 16, NULL), EINVAL);
	CHECK_EQ(swdev_devx_obj_query(f, 0, in, 16, out, 16), ENOENT);
	CHECK_EQ(swdev_devx_obj_destroy(NULL, 0), EINVAL);
	/* vhca_tunnel_id must be 0 */
	MDEVX_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EINVAL);
	MDEVX_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 0);
	/* the caller's uid is ignored and the buffer not modified */
	MDEVX_SET(mbox_in, in, uid, 0x4242);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), 0);
	CHECK_EQ(MDEVX_GET(mbox_in, in, uid), 0x4242);
	tdn = MDEVX_GET(alloc_transport_domain_out, out, transport_domain);
	CHECK(tdn != 0);
	CHECK_EQ(t_status(out), 0);
	/* kernel-accepted but not emulated: firmware BAD_OP, EREMOTEIO */
	memset(in, 0, sizeof(in));
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OP_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_BAD_OPCODE);
	CHECK(strstr(last_log, "ALLOC_PACKET_REFORMAT_CONTEXT") != NULL);
	CHECK(strstr(last_log, "BAD_OP_ERR") != NULL);
	CHECK(strstr(last_log, "BAD_OPCODE") != NULL);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_QUERY_ADAPTER);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OP_ERR);
	MDEVX_SET(mbox_in, in, opcode, 0xb10);	/* general opcode range */
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EREMOTEIO);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_NOP);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), 0);
	CHECK_EQ(t_status(out), 0);
	/* modify/query on a TD handle: no modify/query command names a TD */
	CHECK_EQ(t_alloc_td(f, &h, &tdn), 0);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_QUERY_TIR);
	CHECK_EQ(swdev_devx_obj_query(f, h, in, 16, out, 16), EINVAL);
	CHECK_EQ(swdev_devx_obj_modify(f, h, in, 16, out, 16), EINVAL);
	CHECK(nlogs > 5);
	swdev_engine_set_log(eng, NULL, NULL);
	swdev_engine_destroy(eng);
}

static void
test_hca_cap(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = {0};
	static uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	struct swdev_limits lim;
	struct swdev_file *f;
	const uint8_t *cap = MDEVX_ADDR_OF(query_hca_cap_out, out, capability);
	int i;

	swdev_limits_default(&lim);
	lim.max_flow_counters = 0x12345;
	lim.flow_counter_bulk_alloc = 0x0f;
	lim.log_max_rqt_size = 9;
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	MDEVX_SET(query_hca_cap_in, in, op_mod, MDEVX_HCA_CAP_OP_MOD_GENERAL_CUR);
	memset(out, 0xff, sizeof(out));
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(t_status(out), 0);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, max_flow_counter_31_16), 0x1);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, max_flow_counter_15_0), 0x2345);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, flow_counter_bulk_alloc), 0x0f);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_flow_counter_bulk),
		 lim.log_max_flow_counter_bulk);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_rqt_size), 9);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_rqt), lim.log_max_rqt);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_rq), lim.log_max_rq);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_tir), lim.log_max_tir);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_cq), lim.log_max_cq);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_cq_sz), lim.log_max_cq_sz);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_wq_sz), lim.log_max_wq_sz);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_transport_domain),
		 lim.log_max_transport_domain);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_pd), lim.log_max_pd);
	CHECK(MDEVX_GET(cmd_hca_cap, cap, log_max_uctx) != 0);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, flow_counters_dump), 0);
	/* the pages it answers besides this one are announced (DPDK reads them so) */
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, hca_cap_2), 1);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, eth_net_offloads), 1);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, nic_flow_table), 1);
	CHECK_EQ(out[MDEVX_ST_SZ_BYTES(query_hca_cap_out) - 1], 0);	/* rest zeroed */
	/* maximum caps (op_mod 0) are the same */
	MDEVX_SET(query_hca_cap_in, in, op_mod, 0);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap, cap, log_max_rqt_size), 9);
	/* general caps 2 */
	MDEVX_SET(query_hca_cap_in, in, op_mod, MDEVX_HCA_CAP_OP_MOD_GENERAL_2_CUR);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(MDEVX_GET(cmd_hca_cap_2, cap, flow_counter_bulk_log_max_alloc),
		 lim.flow_counter_bulk_log_max_alloc);
	/* Ethernet offload caps: answered, no offload announced */
	MDEVX_SET(query_hca_cap_in, in, op_mod,
		  (MDEVX_HCA_CAP_TYPE_ETHERNET_OFFLOAD << 1) | MDEVX_HCA_CAP_OPMOD_CUR);
	memset(out, 0xff, sizeof(out));
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(t_status(out), 0);
	for (i = 0; i < 4096 && cap[i] == 0; i++)
		;
	CHECK_EQ(i, 4096);
	/* unsupported type, other_function, short output, short input */
	MDEVX_SET(query_hca_cap_in, in, op_mod, (0x8 << 1) | MDEVX_HCA_CAP_OPMOD_CUR);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_PARAM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_HCA_CAP_BAD_TYPE);
	MDEVX_SET(query_hca_cap_in, in, op_mod, 1);
	MDEVX_SET(query_hca_cap_in, in, other_function, 1);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, sizeof(out)), EREMOTEIO);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_HCA_CAP_OTHER_FUNC);
	MDEVX_SET(query_hca_cap_in, in, other_function, 0);
	CHECK_EQ(swdev_devx_general_cmd(f, in, sizeof(in), out, 4111), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_BAD_OUTP_LEN_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_BAD_OUTLEN);
	swdev_engine_destroy(eng);
}

static void
test_devx_pd_and_info(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[16] = {0}, out[16], qin[MDEVX_ST_SZ_BYTES(query_tir_in)] = {0};
	struct swdev_obj_info info;
	struct swdev_limits lim;
	struct swdev_file *f;
	uint32_t pdn, h, id;

	swdev_limits_default(&lim);
	lim.log_max_pd = 1;
	swdev_engine_add_device(eng, T_DEV, &lim);
	f = swdev_file_open(eng, T_DEV);
	/* ALLOC_PD through DEVX: a DEVX object, rdma-core records type 0, id 0 */
	MDEVX_SET(alloc_pd_in, in, opcode, MDEVX_CMD_OP_ALLOC_PD);
	memset(&info, 0xa5, sizeof(info));
	CHECK_EQ(swdev_devx_obj_create(f, in, sizeof(in), out, sizeof(out), &info), 0);
	pdn = MDEVX_GET(alloc_pd_out, out, pd);
	CHECK(pdn != 0);
	CHECK_EQ(info.handle, 0);
	CHECK_EQ(info.type, 0);
	CHECK_EQ(info.object_id, 0);
	CHECK_EQ(info.rx_icm_addr, 0);
	CHECK_EQ(info.log_obj_range, 0);
	/* a verbs PD shares the pdn table: 2 PDs max */
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	CHECK(id != pdn);
	CHECK_EQ(swdev_devx_obj_create(f, in, sizeof(in), out, sizeof(out), NULL), EREMOTEIO);
	CHECK_EQ(t_status(out), MDEVX_CMD_STAT_LIM_ERR);
	CHECK_EQ(t_syndrome(out), SWDEV_SYND_PD_LIMIT);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), ENOMEM);
	/* the DEVX PD is destroyed through DEVX only */
	CHECK_EQ(swdev_file_verbs_destroy(f, 0), EINVAL);
	CHECK_EQ(swdev_devx_obj_destroy(f, 0), 0);
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	CHECK_EQ(id, pdn);
	/* TD: type 0, id 0 in the info too */
	CHECK_EQ(t_alloc_td(f, &h, &id), 0);
	/* vhca_tunnel_id on query/modify: EINVAL */
	MDEVX_SET(query_tir_in, qin, opcode, MDEVX_CMD_OP_QUERY_TIR);
	MDEVX_SET(general_obj_in_cmd_hdr, qin, vhca_tunnel_id, 3);
	CHECK_EQ(swdev_devx_obj_query(f, h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	CHECK_EQ(swdev_devx_obj_modify(f, h, qin, sizeof(qin), out, sizeof(out)), EINVAL);
	memset(&info, 0xa5, sizeof(info));
	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	CHECK_EQ(swdev_devx_obj_create(f, in, sizeof(in), out, sizeof(out), &info), 0);
	CHECK(MDEVX_GET(alloc_transport_domain_out, out, transport_domain) != 0);
	CHECK_EQ(info.type, 0);
	CHECK_EQ(info.object_id, 0);
	swdev_engine_destroy(eng);
}

static void
test_syndrome_names(void)
{
	CHECK(strcmp(swdev_syndrome_name(SWDEV_SYND_TIR_BAD_RQT), "TIR_BAD_RQT") == 0);
	CHECK(strcmp(swdev_syndrome_name(SWDEV_SYND_CNT_QUERY_UNALIGNED),
		     "CNT_QUERY_UNALIGNED") == 0);
	CHECK(swdev_syndrome_name(0x12345678) == NULL);
}

static uint64_t
cmd_count(struct swdev_engine *eng, const char *dev, uint16_t opcode)
{
	uint64_t n = UINT64_MAX;

	if (swdev_ctl_cmd_count(eng, dev, opcode, &n) != 0)
		return UINT64_MAX;
	return n;
}

/*
 * Commands are counted per opcode and device when they reach the firmware,
 * whatever it answers; kernel-level refusals are not counted.
 */
static void
test_cmd_count(void)
{
	struct swdev_engine *eng = swdev_engine_create();
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in) + 16] = {0};
	uint8_t out[MDEVX_ST_SZ_BYTES(query_flow_counter_out) + 16 * 128];
	struct swdev_obj_info info;
	struct swdev_file *f, *g, *o;
	uint32_t td_h, tdn, h, id, i;
	uint64_t n;

	swdev_engine_add_device(eng, T_DEV, NULL);
	swdev_engine_add_device(eng, "other", NULL);
	f = swdev_file_open(eng, T_DEV);
	g = swdev_file_open(eng, T_DEV);
	o = swdev_file_open(eng, "other");
	CHECK_EQ(swdev_ctl_cmd_count(eng, "nope", MDEVX_CMD_OP_NOP, &n), ENODEV);
	CHECK_EQ(swdev_ctl_cmd_count(eng, T_DEV, MDEVX_CMD_OP_NOP, NULL), EINVAL);
	CHECK_EQ(swdev_ctl_cmd_count(NULL, T_DEV, MDEVX_CMD_OP_NOP, &n), ENODEV);
	for (i = 0; i <= UINT16_MAX; i += 97)
		CHECK_EQ(cmd_count(eng, T_DEV, (uint16_t)i), 0);

	/* kernel-level refusals never reach the firmware: not counted */
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EINVAL);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_NOP);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 15, out, 16), EINVAL);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_DESTROY_TIR);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EINVAL);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_QUERY_TIR);
	CHECK_EQ(swdev_devx_obj_query(f, 4242, in, 16, out, 16), ENOENT);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_QUERY_HCA_CAP), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_NOP), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_DESTROY_TIR), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_QUERY_TIR), 0);

	/* success, BAD_OP, the general range, from two files of the device */
	memset(in, 0, sizeof(in));
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_NOP);
	CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), 0);
	CHECK_EQ(swdev_devx_general_cmd(g, in, 16, out, 16), 0);
	CHECK_EQ(swdev_devx_general_cmd(o, in, 16, out, 16), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_NOP), 2);
	CHECK_EQ(cmd_count(eng, "other", MDEVX_CMD_OP_NOP), 1);
	MDEVX_SET(mbox_in, in, opcode, MDEVX_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT);
	CHECK_EQ(swdev_devx_obj_create(f, in, 16, out, 16, NULL), EREMOTEIO);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT), 1);

	/* a failure injected in the firmware is a command run */
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 1,
				 MDEVX_CMD_STAT_NO_RES_ERR, 0x11, 0), 0);
	CHECK_EQ(t_alloc_td(f, &td_h, &tdn), EREMOTEIO);
	CHECK_EQ(t_alloc_td(f, &td_h, &tdn), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN), 2);

	/* queries, one failing in the firmware (past the bulk) */
	CHECK_EQ(t_alloc_counter(f, 1, 0, out, &info), 0);
	for (i = 0; i < 5; i++)
		CHECK_EQ(t_query_counter(f, info.handle, info.object_id, 128, 0, out,
					 sizeof(out)), 0);
	CHECK_EQ(t_query_counter(f, info.handle, info.object_id + 1, 128, 0, out, sizeof(out)),
		 EREMOTEIO);
	CHECK_EQ(t_query_counter(f, info.handle + 100, info.object_id, 1, 0, out, sizeof(out)),
		 ENOENT);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER), 1);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER), 6);
	CHECK_EQ(cmd_count(eng, "other", MDEVX_CMD_OP_QUERY_FLOW_COUNTER), 0);

	/* destroys: by handle (a refused EBUSY is not run), and at close */
	CHECK_EQ(swdev_file_pd_alloc(f, &h, &id), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_ALLOC_PD), 1);
	CHECK_EQ(swdev_file_verbs_destroy(f, h), 0);
	CHECK_EQ(swdev_file_verbs_destroy(f, h), ENOENT);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_PD), 1);
	CHECK_EQ(swdev_devx_obj_destroy(f, info.handle), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER), 1);
	CHECK_EQ(swdev_ctl_fault(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 1,
				 MDEVX_CMD_STAT_INT_ERR, 0x12, 0), 0);
	CHECK(swdev_devx_obj_destroy(f, td_h) != 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN), 1);
	CHECK_EQ(t_alloc_td(g, &h, &tdn), 0);
	swdev_file_close(f);
	swdev_file_close(g);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN), 3);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN), 3);

	/* 512 opcodes of the general range, each sent a number of times of its own */
	f = swdev_file_open(eng, T_DEV);
	for (i = 0; i < 512; i++) {
		uint32_t k;

		MDEVX_SET(mbox_in, in, opcode, 0xb00 + i);
		for (k = 0; k < i % 7 + 1; k++)
			CHECK_EQ(swdev_devx_general_cmd(f, in, 16, out, 16), EREMOTEIO);
	}
	for (i = 0; i < 512; i++)
		if (cmd_count(eng, T_DEV, (uint16_t)(0xb00 + i)) != i % 7 + 1)
			break;
	CHECK_EQ(i, 512);
	CHECK_EQ(cmd_count(eng, T_DEV, 0xd00), 0);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_NOP), 2);
	CHECK_EQ(cmd_count(eng, T_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER), 6);
	CHECK_EQ(cmd_count(eng, "other", 0xb00), 0);
	swdev_engine_destroy(eng);
}

int
main(void)
{
	test_devices();
	test_files();
	test_handles();
	test_verbs();
	test_kernel_checks();
	test_hca_cap();
	test_devx_pd_and_info();
	test_syndrome_names();
	test_cmd_count();
	return check_summary();
}

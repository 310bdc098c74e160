/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Debian DPDK's DEVX command builders (librte_common_mlx5) on the software
 * device, through Debian's libibverbs and libmlx5 and the preload library:
 * the capabilities DPDK reads equal what libmdevx reads on the same device,
 * and the objects DPDK builds (flow counters, a transport domain, a PD, an
 * RQ table, TIRs) are created, read and destroyed with the values the
 * device and libmdevx agree on.
 *
 * usage (under the launcher, see run-client.sh): dpdk-builders [DEV]
 * env: SWDEV_TEST_SOCKET, the daemon's socket: object counts and traffic
 *      injection through the control channel.
 * exit: 0 passed, 1 failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <mdevx.h>
#include <swdev_client.h>

#include "dpdk_mlx5_abi.h"

static int failures;

#define CHECK(cond, ...) do { \
	if (cond) { \
		printf("ok: " __VA_ARGS__); \
	} else { \
		printf("FAIL (%s:%d): ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); \
		failures++; \
	} \
	printf("\n"); \
} while (0)

#define REQUIRE(cond, ...) do { \
	CHECK(cond, __VA_ARGS__); \
	if (!(cond)) \
		return -1; \
} while (0)

/* The same number read by DPDK and by libmdevx. */
#define SAME(what, dpdk, ours) do { \
	uint64_t d_ = (dpdk), o_ = (ours); \
	CHECK(d_ == o_, "%s: DPDK %" PRIu64 ", libmdevx %" PRIu64, what, d_, o_); \
} while (0)

static const char *dev = "mlx5_0";
static char devstr[64];
static struct swdev_ctl *ctl;

static int
live_objects(int kind)
{
	struct swdev_counts c;

	if (swdev_ctl_get_counts(ctl, dev, 0, &c) != 0)
		return -1;
	return kind < 0 ? (int)c.total : (int)c.by_kind[kind];
}

static struct ibv_context *
open_devx(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (list == NULL) {
		printf("ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), dev) != 0)
			continue;
		if (!mlx5dv_is_supported(list[i]))
			printf("%s: not an mlx5 device for libmlx5\n", dev);
		else
			ctx = mlx5dv_open_device(list[i], &attr);
		if (ctx == NULL)
			printf("mlx5dv_open_device(%s, DEVX): %s\n", dev, strerror(errno));
		break;
	}
	if (i == n)
		printf("%s: not among the %d devices of ibv_get_device_list()\n", dev, n);
	ibv_free_device_list(list);
	return ctx;
}

static int
check_caps(void *ctx, const struct mdevx_caps *caps, struct dpdk_hca_attr *attr)
{
	int rc;

	memset(attr, 0, sizeof(*attr));
	rc = mlx5_devx_cmd_query_hca_attr(ctx, attr);
	REQUIRE(rc == 0, "mlx5_devx_cmd_query_hca_attr: %d (rte_errno %d)", rc, rte_errno);
	printf("DPDK: vhca_id %u, eth_net_offloads %u, nic_flow_table %u, hca_cap_2 pages "
	       "read %s, roce %u, qos %u, eswitch_manager %u, dev_freq_khz %u, "
	       "wqe_inline_mode %u, log_max_ft_sampler_num %u, max_lso_cap %u\n",
	       attr->vhca_id, attr->eth_net_offloads, attr->nic_flow_table,
	       attr->flow_counter_bulk_log_max_alloc ? "yes" : "no?", attr->roce,
	       attr->qos.sup, attr->eswitch_manager, attr->dev_freq_khz,
	       attr->wqe_inline_mode, attr->log_max_ft_sampler_num, attr->max_lso_cap);
	SAME("vhca_id", attr->vhca_id, caps->vhca_id);
	SAME("flow_counter_bulk_alloc", attr->flow_counter_bulk_alloc_bitmap,
	     caps->flow_counter_bulk_alloc);
	SAME("max_flow_counter", attr->max_flow_counter, caps->max_flow_counters);
	SAME("log_max_rqt_size", attr->log_max_rqt_size, caps->log_max_rqt_size);
	SAME("log_max_cq", attr->log_max_cq, caps->log_max_cq);
	SAME("log_max_cq_sz", attr->log_max_cq_sz, caps->log_max_cq_sz);
	SAME("log_max_wq_sz", attr->log_max_wq_sz, caps->log_max_wq_sz);
	SAME("log_max_pd", attr->log_max_pd, caps->log_max_pd);
	CHECK(caps->has_caps2, "libmdevx read the general caps 2 page");
	SAME("flow_counter_bulk_log_max_alloc", attr->flow_counter_bulk_log_max_alloc,
	     caps->flow_counter_bulk_log_max_alloc);
	SAME("flow_counter_bulk_log_granularity", attr->flow_counter_bulk_log_granularity,
	     caps->flow_counter_bulk_log_granularity);
	/* What DPDK's mlx5 net driver needs of a device it probes. */
	CHECK(attr->eth_net_offloads == 1, "eth_net_offloads announced");
	CHECK(attr->nic_flow_table == 1, "nic_flow_table announced");
	return 0;
}

static int
check_counters(void *ctx, const struct dpdk_hca_attr *attr)
{
	struct dpdk_counter_attr cattr = { 0 };
	struct dpdk_devx_obj *dcs, *gen;
	uint64_t pkts = ~0ull, bytes = ~0ull;
	int rc;

	dcs = mlx5_devx_cmd_flow_counter_alloc(ctx, 1);
	REQUIRE(dcs != NULL, "mlx5_devx_cmd_flow_counter_alloc(bulk of 128): rte_errno %d",
		rte_errno);
	CHECK(dcs->id != 0 && dcs->id % 128 == 0, "counter bulk base id 0x%x (nonzero, aligned)",
	      (unsigned int)dcs->id);
	CHECK(live_objects(SWDEV_KIND_FLOW_COUNTER) == 1, "the device holds one counter bulk");
	rc = mlx5_devx_cmd_flow_counter_query(dcs, 0, 0, &pkts, &bytes, 0, NULL, NULL, 0);
	CHECK(rc == 0 && pkts == 0 && bytes == 0, "fresh counter: rc %d, %" PRIu64 " packets, %"
	      PRIu64 " bytes", rc, pkts, bytes);
	rc = swdev_ctl_inject_traffic(ctl, dev, (uint32_t)dcs->id, 7, 7 * 64);
	CHECK(rc == 0, "7 packets injected into counter 0x%x: %d", (unsigned int)dcs->id, rc);
	rc = mlx5_devx_cmd_flow_counter_query(dcs, 1, 0, &pkts, &bytes, 0, NULL, NULL, 0);
	CHECK(rc == 0 && pkts == 7 && bytes == 448, "DPDK reads and clears: rc %d, %" PRIu64
	      " packets, %" PRIu64 " bytes", rc, pkts, bytes);
	rc = mlx5_devx_cmd_flow_counter_query(dcs, 0, 0, &pkts, &bytes, 0, NULL, NULL, 0);
	CHECK(rc == 0 && pkts == 0 && bytes == 0, "cleared: rc %d, %" PRIu64 " packets", rc,
	      pkts);
	CHECK(mlx5_devx_cmd_destroy(dcs) == 0, "counter bulk destroyed");
	CHECK(live_objects(SWDEV_KIND_FLOW_COUNTER) == 0, "no counter bulk left");

	/* The log-size allocation of the general caps 2 page. */
	if (attr->flow_counter_bulk_log_max_alloc == 0) {
		CHECK(0, "the device offers no log-size counter allocation");
		return 0;
	}
	cattr.bulk_log_max_alloc = 1;
	cattr.flow_counter_bulk_log_size = attr->flow_counter_bulk_log_max_alloc < 10 ?
		attr->flow_counter_bulk_log_max_alloc : 10;
	gen = mlx5_devx_cmd_flow_counter_alloc_general(ctx, &cattr);
	REQUIRE(gen != NULL, "mlx5_devx_cmd_flow_counter_alloc_general(log size %u): rte_errno %d",
		cattr.flow_counter_bulk_log_size, rte_errno);
	CHECK(gen->id != 0 && gen->id % (1 << cattr.flow_counter_bulk_log_size) == 0,
	      "log-size bulk of %u counters at 0x%x", 1u << cattr.flow_counter_bulk_log_size,
	      (unsigned int)gen->id);
	CHECK(mlx5_devx_cmd_destroy(gen) == 0, "log-size bulk destroyed");
	return 0;
}

static void
fill_toeplitz(uint8_t *key)
{
	int i;

	for (i = 0; i < 40; i++)
		key[i] = (uint8_t)(0x6d + 31 * i);
}

/*
 * RQs through libmdevx on an import of DPDK's uverbs file (same uid), the
 * RQ table, transport domain and TIRs through DPDK; libmdevx builds a TIR
 * on DPDK's numbers and reads it back.
 */
static int
check_queues(struct ibv_context *ctx)
{
	struct mdevx_cq_attr cq_attr = { .log_cq_size = 4, .eq_vector = 0 };
	struct mdevx_rq_attr rq_attr = { .log_wq_size = 4, .log_wq_stride = 6 };
	struct dpdk_devx_obj *td, *pd, *rqt, *tir_ind, *tir_dir;
	struct dpdk_rqt_attr *rqt_attr;
	struct mdevx_obj *mpd, *cq, *rq[2], *mtir;
	struct mdevx_tir_attr mattr, back;
	struct dpdk_tir_attr tattr;
	struct mdevx_obj_info info;
	struct mdevx_ctx *ictx;
	uint32_t rqn[2];
	int fd, i;

	fd = dup(ctx->cmd_fd);
	REQUIRE(fd >= 0, "dup of the uverbs command fd");
	ictx = mdevx_import_device(devstr, fd);
	if (ictx == NULL)
		close(fd);
	REQUIRE(ictx != NULL, "mdevx_import_device(%s) of DPDK's uverbs file: %s", devstr,
		strerror(errno));

	td = mlx5_devx_cmd_create_td(ctx);
	REQUIRE(td != NULL, "mlx5_devx_cmd_create_td: rte_errno %d", rte_errno);
	CHECK(td->id != 0, "transport domain %d", td->id);
	pd = mlx5_devx_cmd_alloc_pd(ctx);
	CHECK(pd != NULL && pd->id != 0, "mlx5_devx_cmd_alloc_pd (DEVX ALLOC_PD): pdn %d",
	      pd != NULL ? pd->id : -1);

	mpd = mdevx_pd_alloc(ictx);
	cq = mpd != NULL ? mdevx_cq_create(ictx, &cq_attr) : NULL;
	REQUIRE(cq != NULL, "libmdevx PD and CQ on the imported file: %s", strerror(errno));
	rq_attr.cq = cq;
	rq_attr.pd = mpd;
	for (i = 0; i < 2; i++) {
		rq[i] = mdevx_rq_create(ictx, &rq_attr);
		REQUIRE(rq[i] != NULL, "libmdevx RQ %d: %s", i, strerror(errno));
		mdevx_obj_info(rq[i], &info);
		rqn[i] = info.id;
	}

	rqt_attr = calloc(1, sizeof(*rqt_attr) + 2 * sizeof(uint32_t));
	REQUIRE(rqt_attr != NULL, "memory");
	rqt_attr->rq_type = 0;	/* list of RQs */
	rqt_attr->rqt_max_size = 2;
	rqt_attr->rqt_actual_size = 2;
	rqt_attr->rq_list[0] = rqn[0];
	rqt_attr->rq_list[1] = rqn[1];
	rqt = mlx5_devx_cmd_create_rqt(ctx, rqt_attr);
	free(rqt_attr);
	REQUIRE(rqt != NULL, "mlx5_devx_cmd_create_rqt over libmdevx's RQs 0x%x 0x%x: rte_errno %d",
		rqn[0], rqn[1], rte_errno);
	CHECK(rqt->id != 0, "RQ table %d", rqt->id);

	memset(&tattr, 0, sizeof(tattr));
	tattr.disp_type = 1;		/* indirect */
	tattr.indirect_table = (uint32_t)rqt->id;
	tattr.transport_domain = (uint32_t)td->id;
	tattr.rx_hash_fn = 2;		/* Toeplitz */
	fill_toeplitz(tattr.rx_hash_toeplitz_key);
	tattr.rx_hash_field_selector_outer.l3_prot_type = 0;	/* IPv4 */
	tattr.rx_hash_field_selector_outer.l4_prot_type = 1;	/* UDP */
	tattr.rx_hash_field_selector_outer.selected_fields = 0xf;	/* IPs, ports */
	tir_ind = mlx5_devx_cmd_create_tir(ctx, &tattr);
	REQUIRE(tir_ind != NULL, "mlx5_devx_cmd_create_tir (indirect, Toeplitz): rte_errno %d",
		rte_errno);
	CHECK(tir_ind->id != 0, "indirect TIR %d", tir_ind->id);

	memset(&tattr, 0, sizeof(tattr));
	tattr.disp_type = 0;		/* direct */
	tattr.inline_rqn = rqn[1];
	tattr.transport_domain = (uint32_t)td->id;
	tir_dir = mlx5_devx_cmd_create_tir(ctx, &tattr);
	REQUIRE(tir_dir != NULL, "mlx5_devx_cmd_create_tir (direct to RQ 0x%x): rte_errno %d",
		rqn[1], rte_errno);

	/* libmdevx on DPDK's numbers, read back. */
	memset(&mattr, 0, sizeof(mattr));
	mattr.disp_type = MDEVX_TIR_DISP_INDIRECT;
	mattr.indirect_table = (uint32_t)rqt->id;
	mattr.transport_domain = (uint32_t)td->id;
	mattr.rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	mattr.outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
	mattr.outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	mattr.outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
		MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	fill_toeplitz(mattr.toeplitz_key);
	mtir = mdevx_tir_create(ictx, &mattr);
	REQUIRE(mtir != NULL, "libmdevx TIR on DPDK's RQ table %d and TD %d: %s", rqt->id, td->id,
		strerror(errno));
	CHECK(mdevx_tir_query(mtir, &back) == 0, "libmdevx reads its TIR back");
	SAME("TIR indirect_table", rqt->id, back.indirect_table);
	SAME("TIR transport_domain", td->id, back.transport_domain);
	SAME("TIR hash fields", 0xf, back.outer_selected_fields);
	CHECK(memcmp(back.toeplitz_key, mattr.toeplitz_key, 40) == 0, "TIR Toeplitz key");
	CHECK(live_objects(SWDEV_KIND_TIR) == 3, "three TIRs on the device");
	CHECK(live_objects(SWDEV_KIND_RQT) == 1, "one RQ table on the device");

	CHECK(mdevx_obj_destroy(mtir) == 0, "libmdevx TIR destroyed");
	CHECK(mlx5_devx_cmd_destroy(tir_dir) == 0, "direct TIR destroyed");
	CHECK(mlx5_devx_cmd_destroy(tir_ind) == 0, "indirect TIR destroyed");
	CHECK(mlx5_devx_cmd_destroy(rqt) == 0, "RQ table destroyed");
	for (i = 0; i < 2; i++)
		CHECK(mdevx_obj_destroy(rq[i]) == 0, "RQ %d destroyed", i);
	CHECK(mdevx_obj_destroy(cq) == 0 && mdevx_obj_destroy(mpd) == 0, "CQ and PD destroyed");
	if (pd != NULL)
		CHECK(mlx5_devx_cmd_destroy(pd) == 0, "DEVX PD destroyed");
	CHECK(mlx5_devx_cmd_destroy(td) == 0, "transport domain destroyed");
	CHECK(mdevx_close(ictx) == 0, "libmdevx import closed");
	return 0;
}

/* EAL's runtime directory, empty with --no-shconf and --no-telemetry. */
static int
finish(int rc)
{
	char rundir[PATH_MAX];

	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (rmdir(rundir) != 0)
		printf("note: runtime directory %s: %s\n", rundir, strerror(errno));
	return rc;
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal_argv[] = { argv[0], "--no-pci", "--no-huge", "-m", "64", "--no-shconf",
			     "--no-telemetry", prefix, "--log-level=lib.eal:error", NULL };
	struct dpdk_hca_attr attr;
	struct ibv_context *ctx;
	struct mdevx_caps caps;
	struct mdevx_ctx *mctx;
	const char *sock = getenv("SWDEV_TEST_SOCKET");

	if (argc > 1)
		dev = argv[1];
	if (sock == NULL || sock[0] == '\0') {
		fprintf(stderr, "usage: SWDEV_TEST_SOCKET=SOCK mlx5-swdev run --socket SOCK -- "
			"%s [DEV]\n", argv[0]);
		return 2;
	}
	snprintf(devstr, sizeof(devstr), "rdma:%s", dev);
	snprintf(prefix, sizeof(prefix), "--file-prefix=uverbs_builders_%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1, eal_argv) < 0) {
		printf("FAIL: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ctl = swdev_ctl_open(sock);
	if (ctl == NULL) {
		printf("FAIL: control channel of %s: %s\n", sock, strerror(errno));
		return finish(1);
	}
	ctx = open_devx();
	if (ctx == NULL) {
		printf("FAIL: no DEVX context on %s\n", dev);
		swdev_ctl_close(ctl);
		return finish(1);
	}
	mctx = mdevx_open(devstr);
	if (mctx == NULL || mdevx_get_caps(mctx, &caps) != 0) {
		printf("FAIL: mdevx_open(%s): %s\n", devstr, strerror(errno));
		ibv_close_device(ctx);
		swdev_ctl_close(ctl);
		return finish(1);
	}
	CHECK(strcmp(mdevx_backend_name(mctx), "rdma") == 0, "libmdevx on its rdma backend");
	if (check_caps(ctx, &caps, &attr) == 0) {
		check_counters(ctx, &attr);
		check_queues(ctx);
	}
	CHECK(mdevx_close(mctx) == 0, "libmdevx context closed");
	CHECK(ibv_close_device(ctx) == 0, "DPDK's DEVX context closed");
	CHECK(live_objects(-1) == 0, "the device holds no object after both closed (%d)",
	      live_objects(-1));
	swdev_ctl_close(ctl);
	printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
	return finish(failures ? 1 : 0);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * A TIR and everything it needs (PD, UAR, umem, EQN, CQ, RQs, TD, RQT),
 * built through the daemon by a creator process, exported and used by a
 * second process after the creator is killed; another uverbs file cannot
 * reference the creator's TD or RQT; when the last holder exits, the file's
 * nine objects are destroyed in dependency order.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "prm_mailbox.h"

#define NRQ 2
#define UMEM_SIZE 65536u

static const uint8_t key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct tir_msg {
	uint32_t file_id;
	uint32_t tdn;
	uint32_t rqtn;
	uint32_t tirn;
	uint64_t icm;
	uint8_t tir_attrs[32];
};

struct role {
	int peer;
	int sync;
};

static uint8_t umem_buf[UMEM_SIZE] __attribute__((aligned(4096)));

static void
build_tir(uint8_t *in, uint32_t rqtn, uint32_t tdn)
{
	memset(in, 0, MDEVX_ST_SZ_BYTES(create_tir_in));
	MDEVX_SET(create_tir_in, in, opcode, MDEVX_CMD_OP_CREATE_TIR);
	MDEVX_SET(create_tir_in, in, ctx.transport_domain, tdn);
	MDEVX_SET(create_tir_in, in, ctx.disp_type, MDEVX_TIRC_DISP_TYPE_INDIRECT);
	MDEVX_SET(create_tir_in, in, ctx.indirect_table, rqtn);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_fn, MDEVX_RX_HASH_FN_TOEPLITZ);
	memcpy(MDEVX_ADDR_OF(create_tir_in, in, ctx.rx_hash_toeplitz_key), key, sizeof(key));
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.l3_prot_type,
		  MDEVX_L3_PROT_TYPE_IPV4);
	MDEVX_SET(create_tir_in, in, ctx.rx_hash_field_selector_outer.selected_fields,
		  MDEVX_RX_HASH_FIELD_SRC_IP | MDEVX_RX_HASH_FIELD_DST_IP);
}

/* Create from a mailbox; *id = the 24-bit id at out bit 0x48. */
static struct swdev_obj *
create(struct swdev_ctx *ctx, const void *in, size_t inlen, uint32_t *id, const char *what)
{
	uint8_t out[16] = { 0 };
	struct swdev_obj *o = swdev_obj_create(ctx, in, inlen, out, sizeof(out));

	CHECK(o != NULL, "create %s: %s status %#x syndrome %#x", what, strerror(errno),
	      MDEVX_GET(mbox_out, out, status), MDEVX_GET(mbox_out, out, syndrome));
	if (o != NULL && id != NULL)
		*id = MDEVX_GET(create_rq_out, out, rqn);
	return o;
}

static int
creator(void *arg)
{
	struct role *r = arg;
	uint8_t in[1024];
	struct swdev_ctx *ctx;
	struct swdev_obj *pd, *uar, *umem, *cq, *rq[NRQ], *td, *rqt, *tir;
	uint32_t pdn = 0, page = 0, umem_id = 0, eqn = 0, cqn = 0, rqn[NRQ];
	struct tir_msg m;
	unsigned int i;
	int err;

	memset(&m, 0, sizeof(m));
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	pd = swdev_pd_alloc(ctx, &pdn);
	uar = swdev_uar_alloc(ctx, &page);
	umem = swdev_umem_reg(ctx, umem_buf, sizeof(umem_buf), 7, &umem_id);
	err = swdev_query_eqn(ctx, 0, &eqn);
	CHECK(pd != NULL && uar != NULL && umem != NULL && err == 0,
	      "verbs objects: pd %p uar %p umem %p eqn %s", (void *)pd, (void *)uar,
	      (void *)umem, strerror(err));
	CHECK(pd != NULL && pd->kind != 0 && pdn == pd->object_id, "pd is a verbs object");
	if (pd == NULL || uar == NULL || umem == NULL || err != 0)
		return 1;
	CHECK(swdev_obj_export(pd, in) == EINVAL, "a PD is not a DEVX object to export");
	t_build_cq(in, page, eqn, umem_id, umem_id);
	cq = create(ctx, in, MDEVX_ST_SZ_BYTES(create_cq_in), &cqn, "cq");
	if (cq == NULL)
		return 1;
	for (i = 0; i < NRQ; i++) {
		t_build_rq(in, cqn, pdn, umem_id, 8192 + 4096 * (uint64_t)i,
			   T_DBR_OFF + 8 + 8 * (uint64_t)i);
		rq[i] = create(ctx, in, MDEVX_ST_SZ_BYTES(create_rq_in), &rqn[i], "rq");
		if (rq[i] == NULL)
			return 1;
	}
	td = mp_td_alloc(ctx, &m.tdn, &err);
	CHECK(td != NULL, "td: %s", strerror(err));
	rqt = create(ctx, in, t_build_rqt(in, 0, 4, NRQ, rqn), &m.rqtn, "rqt");
	if (td == NULL || rqt == NULL)
		return 1;
	build_tir(in, m.rqtn, m.tdn);
	tir = create(ctx, in, MDEVX_ST_SZ_BYTES(create_tir_in), &m.tirn, "tir");
	if (tir == NULL)
		return 1;
	CHECK(tir->type == 6 && tir->object_id == m.tirn && tir->rx_icm_addr != 0,
	      "rdma-core fields of a TIR: type %u id %u/%u icm %#lx", tir->type, tir->object_id,
	      m.tirn, (unsigned long)tir->rx_icm_addr);
	err = swdev_obj_destroy(td);
	CHECK(err == EBUSY, "a TD in use by a TIR cannot be destroyed: %s", strerror(err));
	err = swdev_obj_destroy(umem);
	CHECK(err == EBUSY, "a umem in use cannot be deregistered: %s", strerror(err));
	m.icm = tir->rx_icm_addr;
	m.file_id = swdev_ctx_file_id(ctx);
	CHECK(swdev_obj_export(tir, m.tir_attrs) == 0, "export TIR");
	CHECK(mp_send_fd(r->peer, swdev_cmd_fd(ctx), &m, sizeof(m)) == 0, "send fd");
	mp_send_fd(r->sync, -1, &m, sizeof(m));
	mp_signal(r->sync, 'a');
	for (;;)
		pause();
	return 0;
}

static int
query_tir(struct swdev_obj *tir, const struct tir_msg *m, const char *when)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_tir_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_tir_out)];
	int err;

	memset(out, 0, sizeof(out));
	MDEVX_SET(query_tir_in, in, opcode, MDEVX_CMD_OP_QUERY_TIR);
	MDEVX_SET(query_tir_in, in, tirn, tir->object_id);
	err = swdev_obj_query(tir, in, sizeof(in), out, sizeof(out));
	CHECK(err == 0, "QUERY_TIR %s: %s status %#x syndrome %#x", when, strerror(err),
	      MDEVX_GET(mbox_out, out, status), MDEVX_GET(mbox_out, out, syndrome));
	if (err != 0)
		return err;
	CHECK(MDEVX_GET(query_tir_out, out, tir_context.transport_domain) == m->tdn &&
	      MDEVX_GET(query_tir_out, out, tir_context.indirect_table) == m->rqtn &&
	      MDEVX_GET(query_tir_out, out, tir_context.disp_type) ==
	      MDEVX_TIRC_DISP_TYPE_INDIRECT, "TIR context read back %s", when);
	CHECK(memcmp(MDEVX_ADDR_OF(query_tir_out, out, tir_context.rx_hash_toeplitz_key), key,
		     sizeof(key)) == 0, "Toeplitz key read back %s", when);
	return 0;
}

static int
importer(void *arg)
{
	struct role *r = arg;
	struct swdev_ctx *ctx;
	struct swdev_obj *tir;
	struct tir_msg m;
	int fd;

	if (mp_recv_fd(r->peer, &fd, &m, sizeof(m)) != (ssize_t)sizeof(m) || fd < 0) {
		CHECK(0, "receive the fd");
		return 1;
	}
	ctx = swdev_import_device(fd);
	CHECK(ctx != NULL, "import: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	tir = swdev_obj_import(ctx, m.tir_attrs);
	CHECK(tir != NULL && tir->type == 6 && tir->object_id == m.tirn &&
	      tir->rx_icm_addr == m.icm, "imported TIR fields");
	if (tir == NULL)
		return 1;
	query_tir(tir, &m, "through the import");
	mp_signal(r->sync, 'b');
	CHECK(mp_await(r->sync, 'x', 10) == 0, "go");
	query_tir(tir, &m, "after the creator was killed");
	swdev_obj_unimport(tir);
	return 0;	/* exit holding the whole chain */
}

static void
test_tir_chain(void)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_tir_in)], out[16];
	struct swdev_ctl *ctl;
	struct swdev_ctx *other;
	struct swdev_obj *o, *td2;
	struct swdev_counts cnt;
	struct role ra, rb;
	struct tir_msg m;
	uint32_t got = 0, nfiles = 0, tdn2 = 0;
	int ab[2], pa[2], pb[2], fd, err, st;
	pid_t a, b;

	printf("== TIR chain shared, cross-file references refused\n");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ab) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pa) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pb) < 0)
		return;
	ra = (struct role){ .peer = ab[0], .sync = pa[1] };
	rb = (struct role){ .peer = ab[1], .sync = pb[1] };
	a = mp_fork(creator, &ra);
	b = mp_fork(importer, &rb);
	close(ab[0]);
	close(ab[1]);
	close(pa[1]);
	close(pb[1]);
	ctl = swdev_ctl_open(mp_sock);
	if (mp_recv_fd(pa[0], &fd, &m, sizeof(m)) != (ssize_t)sizeof(m) || ctl == NULL ||
	    mp_await(pa[0], 'a', 10) != 0 || mp_await(pb[0], 'b', 10) != 0) {
		CHECK(0, "roles ready");
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		return;
	}
	memset(&cnt, 0, sizeof(cnt));
	CHECK(swdev_ctl_get_counts(ctl, MP_DEV, m.file_id, &cnt) == 0 && cnt.total == 9,
	      "nine objects in the file: %u", cnt.total);
	CHECK(cnt.by_kind[SWDEV_KIND_PD] == 1 && cnt.by_kind[SWDEV_KIND_UAR] == 1 &&
	      cnt.by_kind[SWDEV_KIND_UMEM] == 1 && cnt.by_kind[SWDEV_KIND_CQ] == 1 &&
	      cnt.by_kind[SWDEV_KIND_RQ] == NRQ && cnt.by_kind[SWDEV_KIND_TD] == 1 &&
	      cnt.by_kind[SWDEV_KIND_RQT] == 1 && cnt.by_kind[SWDEV_KIND_TIR] == 1,
	      "counts by kind");

	/* Another uverbs file names the creator's TD and RQT. */
	other = swdev_open(mp_sock, MP_DEV);
	CHECK(other != NULL, "unrelated file");
	if (other != NULL) {
		build_tir(in, m.rqtn, m.tdn);
		memset(out, 0, sizeof(out));
		o = swdev_obj_create(other, in, sizeof(in), out, sizeof(out));
		err = errno;
		CHECK(o == NULL && err == EREMOTEIO, "TIR on another file's RQT and TD: %s",
		      strerror(err));
		CHECK(MDEVX_GET(mbox_out, out, status) == MDEVX_CMD_STAT_BAD_RES_ERR,
		      "status BAD_RES: %#x syndrome %#x", MDEVX_GET(mbox_out, out, status),
		      MDEVX_GET(mbox_out, out, syndrome));
		td2 = mp_td_alloc(other, &tdn2, &err);
		build_tir(in, m.rqtn, tdn2);
		memset(out, 0, sizeof(out));
		o = swdev_obj_create(other, in, sizeof(in), out, sizeof(out));
		err = errno;
		CHECK(o == NULL && err == EREMOTEIO &&
		      MDEVX_GET(mbox_out, out, status) == MDEVX_CMD_STAT_BAD_RES_ERR,
		      "own TD, another file's RQT: %s status %#x", strerror(err),
		      MDEVX_GET(mbox_out, out, status));
		if (td2 != NULL)
			swdev_obj_destroy(td2);
	}

	kill(a, SIGKILL);
	st = mp_wait(a, 5);
	CHECK(WIFSIGNALED(st), "creator killed");
	usleep(50000);
	CHECK(mp_wait_total(ctl, m.file_id, 9, &got) == 0 && got == 9,
	      "chain alive after the creator died: %u", got);
	mp_signal(pb[0], 'x');
	st = mp_wait(b, 10);
	CHECK(mp_exited_ok(st), "importer exit %#x", st);
	CHECK(mp_wait_total(ctl, m.file_id, 0, &got) == 0 && got == 0,
	      "the whole chain destroyed with the file: %u left", got);
	CHECK(mp_wait_files(ctl, 1, &nfiles) == 0 && nfiles == 1, "only the other file: %u",
	      nfiles);
	if (other != NULL)
		swdev_close(other);
	CHECK(mp_wait_files(ctl, 0, &nfiles) == 0 && nfiles == 0, "no file: %u", nfiles);
	memset(&cnt, 0, sizeof(cnt));
	CHECK(swdev_ctl_get_counts(ctl, MP_DEV, 0, &cnt) == 0 && cnt.total == 0,
	      "device empty: %u", cnt.total);
	swdev_ctl_close(ctl);
	close(pa[0]);
	close(pb[0]);
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "tir");
	if (mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(0, "daemon start");
		return mp_finish();
	}
	test_tir_chain();
	return mp_finish();
}

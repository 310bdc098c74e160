/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Several processes sharing one uverbs file issue commands at the same time:
 * every reply must match its request. Each worker owns one counter of a
 * shared bulk, injects its own increments and reads them back; a reply that
 * reached the wrong process would carry another worker's values. A delayed
 * reply (delay fault) must not hold back other clients.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"

#define NWORKERS 4
#define ITERS 300

struct shared {
	uint8_t attrs[32];
	uint32_t base;
	int cmd_fd;		/* inherited by the forked workers */
	int go[2];		/* start barrier (pipe) */
	atomic_ullong done_ns[2];
};

static struct shared *sh;
static int worker_idx;

static int
worker(void *arg)
{
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *obj, *td;
	uint64_t pk = 0, by = 0, exp_pk = 0, exp_by = 0;
	uint32_t id, tdn;
	int i, err, bad = 0, fd;
	char c;

	(void)arg;
	id = sh->base + (uint32_t)worker_idx * 3;
	/* Join the inherited file with a private channel of our own. */
	fd = dup(sh->cmd_fd);
	ctx = swdev_import_device(fd);
	CHECK(ctx != NULL, "worker %d import: %s", worker_idx, strerror(errno));
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "worker %d control", worker_idx);
	if (ctx == NULL || ctl == NULL)
		return 1;
	obj = swdev_obj_import(ctx, sh->attrs);
	if (read(sh->go[0], &c, 1) != 1)
		return 1;
	for (i = 1; i <= ITERS; i++) {
		uint64_t p = (uint64_t)(worker_idx + 1);
		uint64_t b = p * 1000 + (uint64_t)i;

		err = swdev_ctl_inject_traffic(ctl, MP_DEV, id, p, b);
		exp_pk += p;
		exp_by += b;
		err = err != 0 ? err : mp_counter_query(obj, id, false, &pk, &by, NULL, NULL);
		if (err != 0 || pk != exp_pk || by != exp_by) {
			if (bad++ < 3)
				CHECK(0, "worker %d iteration %d: err %d got %lu/%lu want %lu/%lu",
				      worker_idx, i, err, (unsigned long)pk, (unsigned long)by,
				      (unsigned long)exp_pk, (unsigned long)exp_by);
		}
		/* Interleave object creation in the shared file. */
		if (i % 50 == 0) {
			td = mp_td_alloc(ctx, &tdn, &err);
			if (td == NULL || swdev_obj_destroy(td) != 0)
				bad++;
		}
	}
	CHECK(bad == 0, "worker %d: %d mismatches in %d round trips", worker_idx, bad, ITERS);
	swdev_obj_unimport(obj);
	swdev_ctl_close(ctl);
	swdev_close(ctx);
	return bad == 0 ? 0 : 1;
}

static void
test_shared_file(void)
{
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr;
	struct swdev_ctl *ctl;
	pid_t pids[NWORKERS];
	uint32_t got = 0, nfiles = 0, file_id;
	int i, err, st;

	printf("== %d processes on one uverbs file\n", NWORKERS);
	ctl = swdev_ctl_open(mp_sock);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctl != NULL && ctx != NULL, "open: %s", strerror(errno));
	if (ctl == NULL || ctx == NULL)
		return;
	file_id = swdev_ctx_file_id(ctx);
	ctr = mp_counter_alloc(ctx, 1, &sh->base, &err);
	CHECK(ctr != NULL, "alloc bulk: %s", strerror(err));
	if (ctr == NULL)
		return;
	swdev_obj_export(ctr, sh->attrs);
	sh->cmd_fd = swdev_cmd_fd(ctx);
	if (pipe(sh->go) < 0)
		return;
	for (i = 0; i < NWORKERS; i++) {
		worker_idx = i;
		pids[i] = mp_fork(worker, NULL);
	}
	/* Release all workers at once. */
	for (i = 0; i < NWORKERS; i++)
		CHECK(write(sh->go[1], "g", 1) == 1, "go");
	for (i = 0; i < NWORKERS; i++) {
		st = mp_wait(pids[i], 60);
		CHECK(mp_exited_ok(st), "worker %d exit %#x", i, st);
	}
	close(sh->go[0]);
	close(sh->go[1]);
	CHECK(mp_wait_total(ctl, file_id, 1, &got) == 0 && got == 1,
	      "only the bulk is left: %u", got);
	CHECK(swdev_obj_destroy(ctr) == 0, "destroy bulk");
	swdev_close(ctx);
	CHECK(mp_wait_files(ctl, 0, &nfiles) == 0 && nfiles == 0, "no open file: %u", nfiles);
	swdev_ctl_close(ctl);
}

static int delay_role;

static int
delay_worker(void *arg)
{
	int sync = *(int *)arg;
	struct swdev_ctx *ctx;
	struct swdev_obj *obj, *td;
	uint64_t pk = 0;
	uint32_t tdn;
	int err, i;

	ctx = swdev_import_device(dup(sh->cmd_fd));
	CHECK(ctx != NULL, "delay worker import: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	if (delay_role == 0) {
		uint64_t t0;

		obj = swdev_obj_import(ctx, sh->attrs);
		mp_signal(sync, 's');
		t0 = mp_now_ns();
		err = mp_counter_query(obj, sh->base, false, &pk, NULL, NULL, NULL);
		atomic_store(&sh->done_ns[0], mp_now_ns());
		CHECK(err == 0 && pk == 3, "delayed query: %s %lu", strerror(err),
		      (unsigned long)pk);
		CHECK(mp_now_ns() - t0 >= 800ull * 1000000ull, "reply held for the delay: %lu ms",
		      (unsigned long)((mp_now_ns() - t0) / 1000000));
		swdev_obj_unimport(obj);
	} else {
		CHECK(mp_await(sync, 's', 10) == 0, "go");
		for (i = 0; i < 5; i++) {
			td = mp_td_alloc(ctx, &tdn, &err);
			CHECK(td != NULL, "td while another reply is delayed: %s", strerror(err));
			if (td != NULL)
				swdev_obj_destroy(td);
		}
		atomic_store(&sh->done_ns[1], mp_now_ns());
	}
	swdev_close(ctx);
	return 0;
}

static void
test_delay(void)
{
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr;
	struct swdev_ctl *ctl;
	pid_t a, b;
	int sv[2], err;

	printf("== a delayed reply does not hold back the others\n");
	ctl = swdev_ctl_open(mp_sock);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctl != NULL && ctx != NULL, "open");
	if (ctl == NULL || ctx == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		return;
	ctr = mp_counter_alloc(ctx, 0, &sh->base, &err);
	CHECK(ctr != NULL, "single counter: %s", strerror(err));
	if (ctr == NULL)
		return;
	swdev_obj_export(ctr, sh->attrs);
	sh->cmd_fd = swdev_cmd_fd(ctx);
	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, sh->base, 3, 30) == 0, "inject");
	err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1, 0, 0, 1000000);
	CHECK(err == 0, "delay fault: %s", strerror(err));
	delay_role = 0;
	a = mp_fork(delay_worker, &sv[0]);
	delay_role = 1;
	b = mp_fork(delay_worker, &sv[1]);
	CHECK(mp_exited_ok(mp_wait(a, 20)), "delayed worker");
	CHECK(mp_exited_ok(mp_wait(b, 20)), "other worker");
	CHECK(atomic_load(&sh->done_ns[1]) != 0 &&
	      atomic_load(&sh->done_ns[1]) < atomic_load(&sh->done_ns[0]),
	      "the other client finished first");
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
	swdev_ctl_close(ctl);
	close(sv[0]);
	close(sv[1]);
}

struct thr {
	struct swdev_obj *obj;
	struct swdev_ctl *ctl;
	uint32_t id;
	int idx;
	int bad;
};

static void *
thread_worker(void *arg)
{
	struct thr *t = arg;
	uint64_t pk = 0, by = 0, exp_pk = 0;
	int i, err;

	for (i = 1; i <= ITERS; i++) {
		err = swdev_ctl_inject_traffic(t->ctl, MP_DEV, t->id, (uint64_t)t->idx + 1, 1);
		exp_pk += (uint64_t)t->idx + 1;
		err = err != 0 ? err : mp_counter_query(t->obj, t->id, false, &pk, &by, NULL, NULL);
		if (err != 0 || pk != exp_pk || by != (uint64_t)i)
			t->bad++;
	}
	return NULL;
}

/* Threads of one process share one context (and one control connection). */
static void
test_threads(void)
{
	struct thr t[NWORKERS];
	pthread_t tid[NWORKERS];
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *ctr;
	uint32_t base;
	int i, err;

	printf("== %d threads on one context\n", NWORKERS);
	ctl = swdev_ctl_open(mp_sock);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctl != NULL && ctx != NULL, "open");
	if (ctl == NULL || ctx == NULL)
		return;
	ctr = mp_counter_alloc(ctx, 1, &base, &err);
	CHECK(ctr != NULL, "bulk: %s", strerror(err));
	if (ctr == NULL)
		return;
	for (i = 0; i < NWORKERS; i++) {
		t[i] = (struct thr){ .obj = ctr, .ctl = ctl, .idx = i };
		t[i].id = base + 10 + (uint32_t)i;
		CHECK(pthread_create(&tid[i], NULL, thread_worker, &t[i]) == 0, "thread");
	}
	for (i = 0; i < NWORKERS; i++) {
		pthread_join(tid[i], NULL);
		CHECK(t[i].bad == 0, "thread %d: %d mismatches", i, t[i].bad);
	}
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
	swdev_ctl_close(ctl);
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "conc");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	if (mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(0, "daemon start");
		return mp_finish();
	}
	test_shared_file();
	test_threads();
	test_delay();
	return mp_finish();
}

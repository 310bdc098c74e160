/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Sharing one uverbs file between processes: the creator passes its command
 * fd (SCM_RIGHTS) and 32-byte export buffers to a second process, which
 * imports the device and the objects, uses them by handle, and keeps them
 * alive after the creator is killed with SIGKILL. When the second process
 * exits, the file and all of its objects are gone. Also: import on a dup()
 * in the same process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_common.h"

struct share_msg {
	uint32_t file_id;
	uint32_t uid;
	uint32_t counter_base;
	uint32_t tdn;
	uint8_t ctr_attrs[32];
	uint8_t td_attrs[32];
};

struct role {
	int peer;	/* A <-> B */
	int sync;	/* role <-> parent */
};

static int
creator(void *arg)
{
	struct role *r = arg;
	struct swdev_export_sizes sz;
	struct share_msg m;
	struct swdev_obj *ctr, *td;
	struct swdev_ctx *ctx;
	int err;

	memset(&m, 0, sizeof(m));
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "swdev_open: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	CHECK(strcmp(swdev_ctx_devname(ctx), MP_DEV) == 0, "devname %s", swdev_ctx_devname(ctx));
	CHECK(swdev_ctx_uid(ctx) != 0, "uid is not 0");
	ctr = mp_counter_alloc(ctx, 1, &m.counter_base, &err);
	CHECK(ctr != NULL, "counter bulk: %s", strerror(err));
	td = mp_td_alloc(ctx, &m.tdn, &err);
	CHECK(td != NULL, "transport domain: %s", strerror(err));
	if (ctr == NULL || td == NULL)
		return 1;
	CHECK(ctr->type == 2 && ctr->object_id == m.counter_base,
	      "counter type %u id %u base %u", ctr->type, ctr->object_id, m.counter_base);
	CHECK(td->type == 0, "td type %u", td->type);
	swdev_get_export_sizes(&sz);
	CHECK(sz.devx_obj_attrs_size == sizeof(m.ctr_attrs), "export size %u",
	      sz.devx_obj_attrs_size);
	CHECK(swdev_obj_export(ctr, m.ctr_attrs) == 0, "export counter");
	CHECK(swdev_obj_export(td, m.td_attrs) == 0, "export td");
	m.file_id = swdev_ctx_file_id(ctx);
	m.uid = swdev_ctx_uid(ctx);
	err = mp_send_fd(r->peer, swdev_cmd_fd(ctx), &m, sizeof(m));
	CHECK(err == 0, "send fd: %s", strerror(err));
	mp_send_fd(r->sync, -1, &m, sizeof(m));
	mp_signal(r->sync, 'a');
	/* Wait to be killed; never clean up. */
	for (;;)
		pause();
	return 0;
}

static int
importer(void *arg)
{
	struct role *r = arg;
	struct share_msg m;
	struct swdev_obj *ctr, *td, *pd;
	struct swdev_ctx *ctx;
	uint64_t pk = 0, by = 0;
	uint32_t pdn = 0;
	ssize_t n;
	int fd, err;

	n = mp_recv_fd(r->peer, &fd, &m, sizeof(m));
	CHECK(n == (ssize_t)sizeof(m) && fd >= 0, "receive fd: %zd fd %d", n, fd);
	if (fd < 0)
		return 1;
	ctx = swdev_import_device(fd);
	CHECK(ctx != NULL, "swdev_import_device: %s", strerror(errno));
	if (ctx == NULL)
		return 1;
	CHECK(swdev_cmd_fd(ctx) == fd, "the context owns the received fd");
	CHECK(swdev_ctx_file_id(ctx) == m.file_id, "same uverbs file: %u vs %u",
	      swdev_ctx_file_id(ctx), m.file_id);
	CHECK(swdev_ctx_uid(ctx) == m.uid, "same uid: %u vs %u", swdev_ctx_uid(ctx), m.uid);
	CHECK(strcmp(swdev_ctx_devname(ctx), MP_DEV) == 0, "devname");
	ctr = swdev_obj_import(ctx, m.ctr_attrs);
	td = swdev_obj_import(ctx, m.td_attrs);
	CHECK(ctr != NULL && td != NULL, "import objects");
	if (ctr == NULL || td == NULL)
		return 1;
	CHECK(ctr->type == 2 && ctr->object_id == m.counter_base && ctr->ctx == ctx,
	      "imported counter type %u id %u", ctr->type, ctr->object_id);
	mp_signal(r->sync, 'b');

	CHECK(mp_await(r->sync, 'q', 10) == 0, "go to query");
	err = mp_counter_query(ctr, m.counter_base + 5, false, &pk, &by, NULL, NULL);
	CHECK(err == 0, "query by imported handle: %s", strerror(err));
	CHECK(pk == 10 && by == 1000, "injected values: %lu %lu", (unsigned long)pk,
	      (unsigned long)by);
	mp_signal(r->sync, 'c');

	CHECK(mp_await(r->sync, 'r', 10) == 0, "go after the creator died");
	err = mp_counter_query(ctr, m.counter_base + 5, false, &pk, &by, NULL, NULL);
	CHECK(err == 0, "query after the creator died: %s", strerror(err));
	CHECK(pk == 15 && by == 1500, "values after the creator died: %lu %lu",
	      (unsigned long)pk, (unsigned long)by);
	pd = swdev_pd_alloc(ctx, &pdn);
	CHECK(pd != NULL, "new object after the creator died: %s", strerror(errno));
	if (pd != NULL)
		CHECK(swdev_obj_destroy(pd) == 0, "destroy pd");
	/* Destroying through an imported object destroys it for everyone. */
	err = swdev_obj_destroy(td);
	CHECK(err == 0, "destroy the creator's TD through the import: %s", strerror(err));
	mp_signal(r->sync, 'd');
	CHECK(mp_await(r->sync, 'x', 10) == 0, "go to exit");
	/* Exit holding the counter bulk: the daemon must clean it up. */
	return 0;
}

static void
test_two_processes(void)
{
	struct role ra, rb;
	struct swdev_ctl *ctl;
	struct swdev_counts cnt;
	struct share_msg m;
	int ab[2], pa[2], pb[2];
	uint32_t got, nfiles = 0;
	pid_t a, b;
	ssize_t n;
	int st, fd;

	printf("== fd passing, import, creator killed\n");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ab) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pa) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pb) < 0) {
		CHECK(0, "socketpair: %s", strerror(errno));
		return;
	}
	ra = (struct role){ .peer = ab[0], .sync = pa[1] };
	rb = (struct role){ .peer = ab[1], .sync = pb[1] };
	/* Both roles are forked before anyone opens the device. */
	a = mp_fork(creator, &ra);
	b = mp_fork(importer, &rb);
	close(ab[0]);
	close(ab[1]);
	close(pa[1]);
	close(pb[1]);
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "control channel: %s", strerror(errno));
	n = mp_recv_fd(pa[0], &fd, &m, sizeof(m));
	CHECK(n == (ssize_t)sizeof(m), "creator's ids: %zd", n);
	CHECK(mp_await(pa[0], 'a', 10) == 0, "creator ready");
	CHECK(mp_await(pb[0], 'b', 10) == 0, "importer ready");
	if (ctl == NULL || n != (ssize_t)sizeof(m)) {
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		return;
	}
	CHECK(swdev_ctl_get_num_files(ctl, MP_DEV, &nfiles) == 0 && nfiles == 1,
	      "one open file: %u", nfiles);
	memset(&cnt, 0, sizeof(cnt));
	CHECK(swdev_ctl_get_counts(ctl, MP_DEV, m.file_id, &cnt) == 0, "file counts");
	CHECK(cnt.total == 2, "two objects in the file: %u", cnt.total);
	CHECK(cnt.by_kind[SWDEV_KIND_FLOW_COUNTER] == 1 && cnt.by_kind[SWDEV_KIND_TD] == 1,
	      "one counter bulk (%u), one TD (%u)", cnt.by_kind[SWDEV_KIND_FLOW_COUNTER],
	      cnt.by_kind[SWDEV_KIND_TD]);

	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, m.counter_base + 5, 10, 1000) == 0, "inject");
	mp_signal(pb[0], 'q');
	CHECK(mp_await(pb[0], 'c', 10) == 0, "importer queried");

	kill(a, SIGKILL);
	st = mp_wait(a, 5);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "creator killed: %#x", st);
	usleep(50000);
	CHECK(swdev_ctl_get_num_files(ctl, MP_DEV, &nfiles) == 0 && nfiles == 1,
	      "file alive after the creator died: %u", nfiles);
	CHECK(mp_wait_total(ctl, m.file_id, 2, &got) == 0 && got == 2,
	      "objects alive after the creator died: %u", got);

	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, m.counter_base + 5, 5, 500) == 0, "inject");
	mp_signal(pb[0], 'r');
	CHECK(mp_await(pb[0], 'd', 10) == 0, "importer done");
	CHECK(mp_wait_total(ctl, m.file_id, 1, &got) == 0 && got == 1,
	      "TD destroyed through the import, PD gone: %u left", got);

	mp_signal(pb[0], 'x');
	st = mp_wait(b, 10);
	CHECK(mp_exited_ok(st), "importer exit status %#x", st);
	CHECK(mp_wait_total(ctl, m.file_id, 0, &got) == 0 && got == 0,
	      "no object left for the file: %u", got);
	CHECK(mp_wait_files(ctl, 0, &nfiles) == 0 && nfiles == 0, "no open file: %u", nfiles);
	memset(&cnt, 0, sizeof(cnt));
	CHECK(swdev_ctl_get_counts(ctl, MP_DEV, 0, &cnt) == 0 && cnt.total == 0,
	      "no object left on the device: %u", cnt.total);
	swdev_ctl_close(ctl);
	close(pa[0]);
	close(pb[0]);
}

/* Import on a dup() in the same process: a second context of the same file. */
static void
test_same_process(void)
{
	struct swdev_ctx *c1, *c2;
	struct swdev_obj *ctr, *imp;
	struct swdev_ctl *ctl;
	uint8_t attrs[32];
	uint64_t pk = 0;
	uint32_t base = 0, got = 0, nfiles = 0, file_id;
	int fd, err;

	printf("== import on a dup() in the same process\n");
	ctl = swdev_ctl_open(mp_sock);
	c1 = swdev_open(mp_sock, MP_DEV);
	CHECK(ctl != NULL && c1 != NULL, "open: %s", strerror(errno));
	if (ctl == NULL || c1 == NULL)
		return;
	file_id = swdev_ctx_file_id(c1);
	fd = dup(swdev_cmd_fd(c1));
	c2 = swdev_import_device(fd);
	CHECK(c2 != NULL, "import on dup: %s", strerror(errno));
	if (c2 == NULL) {
		close(fd);
		swdev_close(c1);
		swdev_ctl_close(ctl);
		return;
	}
	CHECK(swdev_ctx_file_id(c2) == file_id, "same file");
	CHECK(swdev_cmd_fd(c2) == fd, "context owns the dup");
	ctr = mp_counter_alloc(c1, 2, &base, &err);
	CHECK(ctr != NULL, "alloc 256 counters: %s", strerror(err));
	if (ctr == NULL)
		goto out;
	CHECK(swdev_obj_export(ctr, attrs) == 0, "export");
	imp = swdev_obj_import(c2, attrs);
	CHECK(imp != NULL && imp->ctx == c2, "import in the second context");
	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, base + 255, 7, 70) == 0, "inject last");
	err = mp_counter_query(imp, base + 255, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 7, "query through the second context: %s %lu", strerror(err),
	      (unsigned long)pk);
	/* Closing the opener's context keeps the file: the dup still holds it. */
	swdev_close(c1);
	c1 = NULL;
	usleep(50000);
	CHECK(swdev_ctl_get_num_files(ctl, MP_DEV, &nfiles) == 0 && nfiles == 1,
	      "file alive while the dup is open: %u", nfiles);
	err = mp_counter_query(imp, base + 255, true, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 7, "query after the opener closed: %s %lu", strerror(err),
	      (unsigned long)pk);
	err = mp_counter_query(imp, base + 255, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 0, "cleared: %s %lu", strerror(err), (unsigned long)pk);
	swdev_obj_unimport(imp);
	free(ctr);	/* the opener's local object: its context is closed */
out:
	swdev_close(c2);
	if (c1 != NULL)
		swdev_close(c1);
	CHECK(mp_wait_total(ctl, file_id, 0, &got) == 0 && got == 0, "file cleaned: %u", got);
	CHECK(mp_wait_files(ctl, 0, &nfiles) == 0 && nfiles == 0, "no open file: %u", nfiles);
	swdev_ctl_close(ctl);
}

/* Opening errors. */
static void
test_open_errors(void)
{
	struct swdev_ctx *ctx;
	int sv[2];

	printf("== open and import errors\n");
	ctx = swdev_open(mp_sock, "mlx5_nope");
	CHECK(ctx == NULL && errno == ENODEV, "unknown device: %s", strerror(errno));
	ctx = swdev_open("/tmp/swdev-no-such-daemon.sock", MP_DEV);
	CHECK(ctx == NULL && (errno == ENOENT || errno == ECONNREFUSED), "no daemon: %s",
	      strerror(errno));
	ctx = swdev_import_device(-1);
	CHECK(ctx == NULL && errno == EBADF, "import -1: %s", strerror(errno));
	ctx = swdev_import_device(STDIN_FILENO + 1000);
	CHECK(ctx == NULL && errno == EBADF, "import closed fd: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		ctx = swdev_import_device(sv[0]);
		CHECK(ctx == NULL && errno == EPROTO, "import a stream socket: %s",
		      strerror(errno));
		close(sv[0]);
		close(sv[1]);
	}
	{
		int p[2];

		if (pipe(p) == 0) {
			ctx = swdev_import_device(p[0]);
			CHECK(ctx == NULL && errno == ENOTSOCK, "import a pipe: %s",
			      strerror(errno));
			close(p[0]);
			close(p[1]);
		}
	}
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "share");
	if (mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(0, "daemon start");
		return mp_finish();
	}
	test_open_errors();
	test_two_processes();
	test_same_process();
	return mp_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Who may use the daemon: socket modes whatever the umask, the peer uid
 * check (SO_PEERCRED) with and without --allow-uid, a daemon run as another
 * user, and what the control socket does outside --test-mode. The checks
 * that change users need root (they are skipped, and said so, without it).
 */
#include <errno.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"

static uid_t other_uid;		/* nobody */
static gid_t other_gid;		/* nogroup */

static bool
file_mode(const char *path, mode_t *mode, gid_t *gid)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return false;
	*mode = st.st_mode & 07777;
	*gid = st.st_gid;
	return true;
}

/* The three files of a daemon on @p sock have mode @p want (lock: 0600). */
static void
check_modes(const char *sock, mode_t want, gid_t want_gid, const char *what)
{
	char path[160];
	const char *sfx[] = { "", ".ctl", ".lock" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		mode_t m = 0, w = i == 2 ? 0600 : want;
		gid_t g = 0;

		snprintf(path, sizeof(path), "%s%s", sock, sfx[i]);
		CHECK(file_mode(path, &m, &g) && m == w && (i == 2 || g == want_gid),
		      "%s: %s mode %04o gid %u (want %04o gid %u)", what, path, (unsigned int)m,
		      (unsigned int)g, (unsigned int)w, (unsigned int)want_gid);
	}
}

static void
test_socket_modes(void)
{
	char sock[128];
	const char *grp[] = { "--group", "nogroup", NULL };
	mode_t old;
	pid_t d;

	printf("== socket modes under umask 000\n");
	old = umask(0);
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "daemon under umask 000");
	if (d > 0) {
		check_modes(mp_sock, 0600, getegid(), "default");
		CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	}
	if (other_uid != 0 && geteuid() == 0) {
		snprintf(sock, sizeof(sock), "%s.g", mp_sock);
		d = mp_daemon_start(sock, grp);
		CHECK(d > 0, "daemon with --group nogroup");
		if (d > 0) {
			check_modes(sock, 0660, other_gid, "--group nogroup");
			CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
		}
	}
	umask(old);
}

/* ---- a client run as another user (forked, setresuid) ---- */

struct as_other {
	const char *sock;
	int expect_open;		/* 0: served, else the errno of the refusal */
	int expect_ctl;			/* errno of the control socket's PING, or 0 */
	uint32_t root_file;		/* a file of the daemon's uid (0: none) */
};

static int
other_client(void *arg)
{
	const struct as_other *a = arg;
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_capture_info ci;
	struct swdev_counts c;
	struct swdev_obj *ctr;
	uint32_t base = 0, n;
	uint8_t cap[64];
	uint64_t pk = 1;
	int err;

	err = mp_become(other_uid, other_gid);
	CHECK(err == 0 && getuid() == other_uid, "became uid %u: %s", (unsigned int)other_uid,
	      strerror(err));
	if (err != 0)
		return 1;
	ctx = swdev_open(a->sock, MP_DEV);
	err = ctx == NULL ? errno : 0;
	CHECK(err == a->expect_open, "open as uid %u: %s (want %s)", (unsigned int)other_uid,
	      strerror(err), strerror(a->expect_open));
	ctl = swdev_ctl_open(a->sock);
	err = ctl == NULL ? errno : swdev_ctl_ping(ctl);
	CHECK(err == a->expect_ctl, "control PING as uid %u: %s (want %s)",
	      (unsigned int)other_uid, strerror(err), strerror(a->expect_ctl));
	if (ctx == NULL) {
		swdev_ctl_close(ctl);
		return 0;
	}
	ctr = mp_counter_alloc(ctx, 0, &base, &err);
	CHECK(ctr != NULL, "an allowed uid is served: counter %s", strerror(err));
	if (ctl != NULL && a->expect_ctl == 0) {
		/* No --test-mode: own file's counts only, no injection. */
		memset(&c, 0, sizeof(c));
		err = swdev_ctl_get_counts(ctl, MP_DEV, swdev_ctx_file_id(ctx), &c);
		CHECK(err == 0 && c.total == 1, "counts of its own file: %s, %u", strerror(err),
		      c.total);
		err = swdev_ctl_get_counts(ctl, MP_DEV, a->root_file, &c);
		CHECK(err == EPERM, "counts of the daemon user's file %u: %s", a->root_file,
		      strerror(err));
		err = swdev_ctl_get_counts(ctl, MP_DEV, 0, &c);
		CHECK(err == EPERM, "counts of the whole device: %s", strerror(err));
		err = swdev_ctl_get_num_files(ctl, MP_DEV, &n);
		CHECK(err == EPERM, "number of files: %s", strerror(err));
		err = swdev_ctl_inject_traffic(ctl, MP_DEV, base, 1000000, 64000000);
		CHECK(err == EPERM, "traffic injection: %s", strerror(err));
		err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 5, 3, 1, 0);
		CHECK(err == EPERM, "fault injection: %s", strerror(err));
		err = swdev_ctl_get_rq_capture(ctl, MP_DEV, 1, 0, cap, sizeof(cap), &ci);
		CHECK(err == EPERM, "captured frames: %s", strerror(err));
		err = swdev_ctl_disassociate(ctl, MP_DEV, NULL);
		CHECK(err == EPERM, "disassociation: %s", strerror(err));
		err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
		CHECK(err == 0 && pk == 0, "its counter: no packets, no fault: %s %lu",
		      strerror(err), (unsigned long)pk);
	}
	if (ctr != NULL)
		swdev_obj_destroy(ctr);
	swdev_ctl_close(ctl);
	swdev_close(ctx);
	return 0;
}

static void
run_as_other(struct as_other *a, const char *what)
{
	pid_t p = mp_fork(other_client, a);
	int st = mp_wait(p, 30);

	CHECK(mp_exited_ok(st), "%s: client as another user exits 0 (%#x)", what, st);
}

static void
test_other_user_client(void)
{
	const char *grp[] = { "--group", "nogroup", NULL };
	const char *grp_allow[] = { "--group", "nogroup", "--allow-uid", "nobody", NULL };
	struct as_other a = { .sock = mp_sock };
	struct swdev_ctx *mine;
	struct swdev_ctl *ctl;
	struct swdev_obj *ctr;
	struct swdev_counts c;
	uint32_t base = 0, n = 0;
	uint64_t pk = 1;
	pid_t d;
	int err;

	printf("== a client of another uid (nobody)\n");
	mp_daemon_test_mode = false;
	/* 0600: the file system refuses the connection. */
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "daemon");
	a.expect_open = EACCES;
	a.expect_ctl = EACCES;
	run_as_other(&a, "socket 0600");
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");

	/* 0660 nogroup: the connection is made, the uid check refuses it. */
	d = mp_daemon_start(mp_sock, grp);
	CHECK(d > 0, "daemon --group nogroup");
	run_as_other(&a, "--group without --allow-uid");
	mine = swdev_open(mp_sock, MP_DEV);
	CHECK(mine != NULL, "the daemon's own uid is served: %s", strerror(errno));
	if (mine != NULL)
		swdev_close(mine);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");

	/* --allow-uid: served, but without --test-mode the control socket is scoped. */
	d = mp_daemon_start(mp_sock, grp_allow);
	CHECK(d > 0, "daemon --group nogroup --allow-uid nobody");
	mine = swdev_open(mp_sock, MP_DEV);
	ctl = swdev_ctl_open(mp_sock);
	CHECK(mine != NULL && ctl != NULL, "own uid served");
	if (mine == NULL || ctl == NULL)
		goto out;
	ctr = mp_counter_alloc(mine, 0, &base, &err);
	CHECK(ctr != NULL, "counter of the daemon's uid: %s", strerror(err));
	a.expect_open = 0;
	a.expect_ctl = 0;
	a.root_file = swdev_ctx_file_id(mine);
	run_as_other(&a, "--allow-uid nobody");
	err = swdev_ctl_get_num_files(ctl, MP_DEV, &n);
	CHECK(err == 0 && n == 1, "the daemon's uid reads the number of files: %s %u",
	      strerror(err), n);
	memset(&c, 0, sizeof(c));
	err = swdev_ctl_get_counts(ctl, MP_DEV, 0, &c);
	CHECK(err == 0 && c.total == 1, "and the device's counts: %s %u", strerror(err), c.total);
	err = swdev_ctl_inject_traffic(ctl, MP_DEV, base, 1000000, 1000000);
	CHECK(err == EPERM, "but injects nothing without --test-mode: %s", strerror(err));
	if (ctr != NULL) {
		err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
		CHECK(err == 0 && pk == 0, "its counter: %s %lu packets", strerror(err),
		      (unsigned long)pk);
		swdev_obj_destroy(ctr);
	}
out:
	swdev_ctl_close(ctl);
	if (mine != NULL)
		swdev_close(mine);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	mp_daemon_test_mode = true;
}

/* ---- the daemon run as another user; this process (root) is the other uid ---- */

static void
test_daemon_as_other_user(void)
{
	const char *allow_root[] = { "--allow-uid", "0", NULL };
	char sock[128];
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *ctr;
	uint32_t base;
	pid_t d;
	int err, i;

	printf("== the daemon run as nobody, clients as root\n");
	snprintf(sock, sizeof(sock), "%s.nobody", mp_sock);
	mp_daemon_uid = other_uid;
	mp_daemon_gid = other_gid;
	d = mp_daemon_start(sock, NULL);
	CHECK(d > 0, "daemon as nobody");
	if (d > 0) {
		/* root passes the file mode: only the uid check refuses it. */
		for (i = 0; i < 3; i++) {
			ctx = swdev_open(sock, MP_DEV);
			err = ctx == NULL ? errno : 0;
			CHECK(ctx == NULL && err == EACCES, "root refused: %s", strerror(err));
			if (ctx != NULL)
				swdev_close(ctx);
		}
		ctl = swdev_ctl_open(sock);
		err = ctl == NULL ? errno : swdev_ctl_ping(ctl);
		CHECK(err == EACCES, "root's control PING refused: %s", strerror(err));
		swdev_ctl_close(ctl);
		CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	}
	d = mp_daemon_start(sock, allow_root);
	CHECK(d > 0, "daemon as nobody, --allow-uid 0");
	if (d > 0) {
		ctx = swdev_open(sock, MP_DEV);
		CHECK(ctx != NULL, "root served: %s", strerror(errno));
		ctr = ctx != NULL ? mp_counter_alloc(ctx, 0, &base, &err) : NULL;
		CHECK(ctr != NULL, "root's counter");
		ctl = swdev_ctl_open(sock);
		err = ctl == NULL ? errno : swdev_ctl_inject_traffic(ctl, MP_DEV, base, 3, 30);
		CHECK(err == 0, "inject (test mode): %s", strerror(err));
		if (ctr != NULL) {
			uint64_t pk = 0;

			err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
			CHECK(err == 0 && pk == 3, "counter: %s %lu", strerror(err),
			      (unsigned long)pk);
			swdev_obj_destroy(ctr);
		}
		swdev_ctl_close(ctl);
		if (ctx != NULL)
			swdev_close(ctx);
		CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	}
	mp_daemon_uid = (uid_t)-1;
	mp_daemon_gid = (gid_t)-1;
}

/*
 * ---- --test-mode gates injection and captured frames, for the daemon's
 * own uid too ----
 */

static void
test_test_mode(void)
{
	struct swdev_capture_info ci;
	uint8_t cap[64];
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *ctr;
	struct swdev_counts c;
	uint32_t base = 0, n = 0;
	uint64_t pk = 1;
	uint8_t status = 0;
	pid_t d;
	int err, mode;

	for (mode = 0; mode < 2; mode++) {
		printf("== control socket %s --test-mode\n", mode ? "with" : "without");
		mp_daemon_test_mode = mode == 1;
		d = mp_daemon_start(mp_sock, NULL);
		CHECK(d > 0, "daemon");
		if (d <= 0)
			continue;
		ctl = swdev_ctl_open(mp_sock);
		ctx = swdev_open(mp_sock, MP_DEV);
		ctr = ctx != NULL ? mp_counter_alloc(ctx, 0, &base, &err) : NULL;
		CHECK(ctl != NULL && ctr != NULL, "control, file and counter");
		if (ctl == NULL || ctr == NULL)
			goto next;
		CHECK(swdev_ctl_ping(ctl) == 0, "PING");
		memset(&c, 0, sizeof(c));
		err = swdev_ctl_get_counts(ctl, MP_DEV, swdev_ctx_file_id(ctx), &c);
		CHECK(err == 0 && c.total == 1, "counts of the file: %s %u", strerror(err),
		      c.total);
		err = swdev_ctl_get_num_files(ctl, MP_DEV, &n);
		CHECK(err == 0 && n == 1, "number of files: %s %u", strerror(err), n);
		err = swdev_ctl_inject_traffic(ctl, MP_DEV, base, 1000000, 64000000);
		CHECK(err == (mode ? 0 : EPERM), "inject: %s", strerror(err));
		err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER, 1, 0x3,
					  0x1234, 0);
		CHECK(err == (mode ? 0 : EPERM), "fault: %s", strerror(err));
		/* no RQ 1 on the device: ENOENT once the request is let through */
		err = swdev_ctl_get_rq_capture(ctl, MP_DEV, 1, 0, cap, sizeof(cap), &ci);
		CHECK(err == (mode ? ENOENT : EPERM), "captured frames: %s", strerror(err));
		err = swdev_ctl_disassociate(ctl, "mlx5_nosuch", NULL);
		CHECK(err == (mode ? ENODEV : EPERM), "disassociation of no device: %s",
		      strerror(err));
		err = mp_counter_query(ctr, base, false, &pk, NULL, &status, NULL);
		if (mode)
			CHECK(err == EREMOTEIO && status == 0x3, "the fault hits the next query: "
			      "%s status %#x", strerror(err), status);
		else
			CHECK(err == 0 && pk == 0, "no fault, no packets: %s %lu", strerror(err),
			      (unsigned long)pk);
		err = mp_counter_query(ctr, base, false, &pk, NULL, NULL, NULL);
		CHECK(err == 0 && pk == (mode ? 1000000u : 0u), "packets: %s %lu", strerror(err),
		      (unsigned long)pk);
		swdev_obj_destroy(ctr);
next:
		if (ctx != NULL)
			swdev_close(ctx);
		swdev_ctl_close(ctl);
		CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	}
	mp_daemon_test_mode = true;
}

static void
test_option_errors(void)
{
	const char *nogrp[] = { mp_daemon_bin, "--socket", mp_sock, "--group",
				"no-such-group-xyz", NULL };
	const char *nouser[] = { mp_daemon_bin, "--socket", mp_sock, "--allow-uid",
				 "no-such-user-xyz", NULL };
	const char *hs0[] = { mp_daemon_bin, "--socket", mp_sock, "--handshake-timeout", "0",
			      NULL };
	const char *mp0[] = { mp_daemon_bin, "--socket", mp_sock, "--max-pending", "x", NULL };
	const char *const *bad[] = { nogrp, nouser, hs0, mp0 };
	unsigned int i;

	static const char *const documented[] = { "--group", "--allow-uid", "--test-mode",
						  "--handshake-timeout", "--max-pending" };
	char cmd[600], help[8192];
	size_t got = 0;
	FILE *f;

	printf("== access option errors, --help\n");
	for (i = 0; i < 4; i++) {
		int st = mp_run(bad[i], 10);

		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s %s exits 2: %#x", bad[i][3],
		      bad[i][4], st);
	}
	snprintf(cmd, sizeof(cmd), "'%s' --help", mp_daemon_bin);
	f = popen(cmd, "r");
	if (f != NULL) {
		got = fread(help, 1, sizeof(help) - 1, f);
		pclose(f);
	}
	help[got] = '\0';
	for (i = 0; i < 5; i++)
		CHECK(strstr(help, documented[i]) != NULL, "--help documents %s", documented[i]);
}

int
main(int argc, char **argv)
{
	struct passwd *pw;
	struct group *gr;

	mp_init(argc, argv, "access");
	pw = getpwnam("nobody");
	gr = getgrnam("nogroup");
	other_uid = pw != NULL ? pw->pw_uid : 65534;
	other_gid = gr != NULL ? gr->gr_gid : 65534;
	test_option_errors();
	test_socket_modes();
	test_test_mode();
	if (geteuid() == 0 && pw != NULL && gr != NULL) {
		test_other_user_client();
		test_daemon_as_other_user();
	} else {
		printf("SKIP: the checks with another user need root, user nobody and group "
		       "nogroup\n");
	}
	return mp_finish();
}

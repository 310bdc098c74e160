/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The mlx5-swdev program: --help, option errors, one instance per socket
 * path, stale and foreign files at the path, --ping, --daemon with a pid
 * file, several devices, limits, and a clean exit on SIGTERM that destroys
 * every object and removes the sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_common.h"
#include "swdev_proto.h"

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int
run_status(const char *const *argv)
{
	int st = mp_run(argv, 10);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void
test_cli(void)
{
	const char *help[] = { mp_daemon_bin, "--help", NULL };
	const char *bad[] = { mp_daemon_bin, "--no-such-option", NULL };
	const char *badlim[] = { mp_daemon_bin, "--socket", mp_sock, "--log-max-tir", "x", NULL };
	const char *badlvl[] = { mp_daemon_bin, "--log-level", "loud", NULL };
	/* Values the engine refuses are usage errors too, not start failures. */
	const char *bigtir[] = { mp_daemon_bin, "--socket", mp_sock, "--log-max-tir", "21", NULL };
	const char *nocnt[] = { mp_daemon_bin, "--socket", mp_sock, "--max-counters", "0", NULL };
	const char *twice[] = { mp_daemon_bin, "--socket", mp_sock, "--device", "a", "--device",
				"a", NULL };
	const char *ping[] = { mp_daemon_bin, "--socket", mp_sock, "--ping", NULL };
	int rc;

	printf("== command line\n");
	rc = run_status(help);
	CHECK(rc == 0, "--help exits 0: %d", rc);
	rc = run_status(bad);
	CHECK(rc == 2, "unknown option exits 2: %d", rc);
	rc = run_status(badlim);
	CHECK(rc == 2, "bad limit exits 2: %d", rc);
	rc = run_status(badlvl);
	CHECK(rc == 2, "bad log level exits 2: %d", rc);
	rc = run_status(bigtir);
	CHECK(rc == 2, "--log-max-tir above the engine's 20 exits 2: %d", rc);
	rc = run_status(nocnt);
	CHECK(rc == 2, "--max-counters 0 exits 2: %d", rc);
	rc = run_status(twice);
	CHECK(rc == 2, "a device given twice exits 2: %d", rc);
	rc = run_status(ping);
	CHECK(rc == 1, "--ping without a daemon exits 1: %d", rc);
	CHECK(!exists(mp_sock), "none of that created the socket");
}

static void
test_single_instance(void)
{
	const char *second[] = { mp_daemon_bin, "--socket", mp_sock, "--log-level", "error",
				 NULL };
	const char *ping[] = { mp_daemon_bin, "--socket", mp_sock, "--ping", NULL };
	char ctl_path[128], lock_path[128];
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr;
	uint32_t base;
	pid_t d;
	int rc, st, err;

	printf("== one instance per socket, SIGTERM\n");
	snprintf(ctl_path, sizeof(ctl_path), "%s.ctl", mp_sock);
	snprintf(lock_path, sizeof(lock_path), "%s.lock", mp_sock);
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "first instance");
	if (d <= 0)
		return;
	CHECK(exists(mp_sock) && exists(ctl_path), "socket and control socket exist");
	rc = run_status(second);
	CHECK(rc == 1, "second instance on the same socket refuses: %d", rc);
	rc = run_status(ping);
	CHECK(rc == 0, "the first one still answers --ping: %d", rc);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "the first one still serves: %s", strerror(errno));
	ctr = ctx != NULL ? mp_counter_alloc(ctx, 1, &base, &err) : NULL;
	CHECK(ctr != NULL, "object created before SIGTERM");
	st = mp_daemon_stop(d);
	CHECK(mp_exited_ok(st), "SIGTERM with an open file and objects: exit 0 (%#x)", st);
	CHECK(!exists(mp_sock) && !exists(ctl_path) && !exists(lock_path),
	      "socket, control socket and lock removed");
	if (ctr != NULL) {
		err = mp_counter_query(ctr, base, false, NULL, NULL, NULL, NULL);
		CHECK(err == EIO, "a call after the daemon left fails with EIO: %s", strerror(err));
		free(ctr);
	}
	if (ctx != NULL)
		swdev_close(ctx);
}

/*
 * A regular file at @p path (the @p what socket's): the daemon run by
 * @p argv refuses to start, and leaves the file as it was.
 */
static void
refuses_regular_file(const char *const *argv, const char *path, const char *what)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "regular file at the %s path", what);
	close(fd);
	rc = run_status(argv);
	CHECK(rc == 1, "refuses a %s path that is not a socket: %d", what, rc);
	CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4,
	      "the file at the %s path is left alone", what);
}

static void
test_path_states(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *onfile[] = { mp_daemon_bin, "--socket", mp_sock, "--log-level", "error",
				 NULL };
	char ctl_path[128];
	pid_t d;
	int fd;

	printf("== stale socket file, non-socket file\n");
	/* A socket file nobody listens on (a crashed daemon). */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", mp_sock);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "stale socket made");
	close(fd);
	CHECK(exists(mp_sock), "stale socket file present");
	d = mp_daemon_start(mp_sock, NULL);
	CHECK(d > 0, "daemon starts over a stale socket");
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "and stops");

	refuses_regular_file(onfile, mp_sock, "main");
	unlink(mp_sock);

	/* The same at the control socket's path: refused, nothing left behind. */
	CHECK(swdev_proto_ctl_path(mp_sock, ctl_path, sizeof(ctl_path)) == 0, "control path");
	refuses_regular_file(onfile, ctl_path, "control");
	CHECK(!exists(mp_sock), "and the main socket is not left behind");
	unlink(ctl_path);
}

/* A socket in a directory that does not exist: the daemon makes it (0755) and says so. */
static void
test_socket_dir(void)
{
	static const char *const info[] = { "--log-level", "info", NULL };
	char dir[128], sock[160], log_path[160];
	struct swdev_ctx *ctx;
	struct stat st;
	mode_t mask;
	pid_t d;

	printf("== a socket in a directory that does not exist\n");
	snprintf(dir, sizeof(dir), "%s.dir", mp_sock);
	snprintf(sock, sizeof(sock), "%s/swdev.sock", dir);
	snprintf(log_path, sizeof(log_path), "%s.dir.log", mp_sock);
	CHECK(!exists(dir), "%s absent", dir);
	mask = umask(022);
	mp_daemon_stderr = log_path;
	d = mp_daemon_start(sock, info);
	mp_daemon_stderr = NULL;
	umask(mask);
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return;
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0755,
	      "the directory made, mode 0755: %o", (unsigned int)(st.st_mode & 07777));
	CHECK(mp_wait_log(log_path, "created directory", 1, 5000) == 1, "and logged");
	ctx = swdev_open(sock, MP_DEV);
	CHECK(ctx != NULL, "a client connects there: %s", strerror(errno));
	if (ctx != NULL)
		swdev_close(ctx);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
	unlink(log_path);
	rmdir(dir);
}

/*
 * --group with a chown() that fails: in a user namespace that maps only
 * root (unshare -Ur), gid 5 has no mapping and chown() gives EINVAL. The
 * daemon refuses to start and leaves no socket behind.
 */
static void
test_group_refused(void)
{
	const char *probe[] = { "/usr/bin/unshare", "-Ur", "/bin/true", NULL };
	const char *argv[] = { "/usr/bin/unshare", "-Ur", mp_daemon_bin, "--socket", mp_sock,
			       "--group", "5", "--foreground", "--log-level", "error", NULL };
	char ctl_path[128];
	int rc;

	printf("== --group whose chown() fails\n");
	if (run_status(probe) != 0) {
		printf("   skipped: no user namespace here (/usr/bin/unshare -Ur)\n");
		return;
	}
	CHECK(swdev_proto_ctl_path(mp_sock, ctl_path, sizeof(ctl_path)) == 0, "control path");
	rc = run_status(argv);
	CHECK(rc == 1, "refuses to start: %d", rc);
	CHECK(!exists(mp_sock) && !exists(ctl_path), "and leaves no socket behind");
}

static void
test_daemon_mode(void)
{
	char pidfile[128], buf[32];
	const char *argv[] = { mp_daemon_bin, "--socket", mp_sock, "--daemon", "--pidfile",
			       pidfile, "--log-level", "error", NULL };
	const char *ping[] = { mp_daemon_bin, "--socket", mp_sock, "--ping", NULL };
	ssize_t n;
	pid_t pid = 0;
	int fd, rc, i;

	printf("== --daemon --pidfile\n");
	snprintf(pidfile, sizeof(pidfile), "%s.pid", mp_sock);
	rc = run_status(argv);
	CHECK(rc == 0, "--daemon returns 0 once serving: %d", rc);
	rc = run_status(ping);
	CHECK(rc == 0, "answers right after --daemon returned: %d", rc);
	fd = open(pidfile, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		pid = (pid_t)atoi(buf);
	}
	CHECK(pid > 1 && kill(pid, 0) == 0, "pid file names a live process: %d", (int)pid);
	if (pid <= 1)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 500 && kill(pid, 0) == 0; i++)
		usleep(10000);
	CHECK(kill(pid, 0) < 0, "daemon gone after SIGTERM");
	if (kill(pid, 0) == 0)
		kill(pid, SIGKILL);
	CHECK(!exists(mp_sock) && !exists(pidfile), "socket and pid file removed");
}

static void
test_devices_and_limits(void)
{
	static const char *const extra[] = { "--device", "mlx5_a", "--device", "mlx5_b",
					     "--max-counters", "128", NULL };
	struct swdev_ctx *a, *b, *z;
	struct swdev_obj *c1, *c2;
	uint32_t base;
	pid_t d;
	int err;

	printf("== several devices, limits\n");
	d = mp_daemon_start(mp_sock, extra);
	CHECK(d > 0, "daemon with two devices");
	if (d <= 0)
		return;
	a = swdev_open(mp_sock, "mlx5_a");
	b = swdev_open(mp_sock, "mlx5_b");
	z = swdev_open(mp_sock, MP_DEV);
	CHECK(a != NULL && b != NULL, "both devices open");
	CHECK(z == NULL && errno == ENODEV, "the default device is not there: %s",
	      strerror(errno));
	if (a != NULL && b != NULL) {
		CHECK(strcmp(swdev_ctx_devname(b), "mlx5_b") == 0, "device name");
		c1 = mp_counter_alloc(a, 1, &base, &err);
		CHECK(c1 != NULL, "128 counters fit: %s", strerror(err));
		c2 = mp_counter_alloc(a, 1, &base, &err);
		CHECK(c2 == NULL && err == EREMOTEIO, "the next 128 exceed --max-counters: %s",
		      strerror(err));
		c2 = mp_counter_alloc(b, 1, &base, &err);
		CHECK(c2 != NULL, "the limit is per device: %s", strerror(err));
		if (c1 != NULL)
			CHECK(swdev_obj_destroy(c1) == 0, "destroy on device a");
		if (c2 != NULL)
			CHECK(swdev_obj_destroy(c2) == 0, "destroy on device b");
	}
	if (a != NULL)
		swdev_close(a);
	if (b != NULL)
		swdev_close(b);
	CHECK(mp_exited_ok(mp_daemon_stop(d)), "stops");
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "daemon");
	unlink(mp_sock);
	test_cli();
	test_single_instance();
	test_path_states();
	test_socket_dir();
	test_group_refused();
	test_daemon_mode();
	test_devices_and_limits();
	return mp_finish();
}

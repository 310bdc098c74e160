/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_handover_autotest: handing a libmdevx context to net/mlx5.
 *
 * Suite "devargs" (mdevx_ctx_devargs(), mdevx_devargs_release()): the fd
 * is a new descriptor of the context's uverbs file (kcmp), close-on-exec;
 * taken over the way net/mlx5 does (ibv_import_device() on that fd, then
 * ibv_import_pd() of the handle), the handle resolves to the PD's pdn; the string says
 * the same; closing the descriptor leaves the context working and the
 * device with the same files; every errno, without a descriptor leaked;
 * release closes our descriptor, and leaves alone a number a consumer
 * closed and another file reused.
 *
 * Suite "attach server" (libmdevx_attach) against hand-written
 * SOCK_SEQPACKET clients speaking testpmd's protocol: the reply (an int,
 * the PD handle; one descriptor in SCM_RIGHTS, of the context's file, whose
 * handle resolves to the PD), then the server's close; the socket file's
 * mode; bad requests (data, a descriptor, which the server closes, a
 * truncated message), a silent client, one that hangs up, a stream client,
 * a PD destroyed under the server, each counted exactly and the server
 * still serving; start and stop errors; stop with a client connected; a
 * replaced socket file left alone. Concurrency: an honest client served
 * while 5 silent ones wait (none of them timed out yet), and while
 * MDEVX_ATTACH_MAX_CLIENTS do (the oldest closed). Other users: a mode
 * with a group or other write bit refused (EPERM) without
 * MDEVX_ATTACH_F_ALLOW_OTHER_USERS; a client of another uid (nobody, a
 * forked child; root only) not served without it, served with it.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <mdevx.h>
#include <mdevx_attach.h>
#include <swdev_client.h>

/* libmdevx's kcmp() check (mdevx_fd.c, built into this test). */
int mdevx_fd_same_file(int fd, int ref);

#include "test.h"
#include "test_devstr.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR test_devstr(DEV)
/* The server's wait for a request in these tests, ms. */
#define REQ_TIMEOUT_MS 300

static struct mdevx_ctx *ctx;
static struct mdevx_obj *pd;
static struct mdevx_obj *td;	/* objects made before the PD: its handle is not the first */
static struct mdevx_obj *cnt;
static uint32_t pdn;
static struct swdev_ctl *ctl;
static char dir[64];

static int
open_fds(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static uint32_t
dev_files(void)
{
	uint32_t n = UINT32_MAX;

	if (swdev_ctl_get_num_files(ctl, DEV, &n) != 0)
		return UINT32_MAX;
	return n;
}

/*
 * The device's pdn of @p handle, seen through @p fd as net/mlx5 sees it:
 * ibv_import_device() of a dup of the fd, ibv_import_pd() of the handle,
 * the pdn from mlx5dv_init_obj().
 */
static int
pdn_through(int fd, uint32_t handle, uint32_t *out)
{
	struct mlx5dv_pd dvpd = { 0 };
	struct mlx5dv_obj dv = { 0 };
	struct ibv_context *c;
	struct ibv_pd *pd;
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int err = 0;

	if (dupfd < 0)
		return errno;
	c = ibv_import_device(dupfd);
	if (c == NULL) {
		err = errno;
		close(dupfd);
		return err;
	}
	pd = ibv_import_pd(c, handle);
	if (pd == NULL) {
		err = errno;
	} else {
		dv.pd.in = pd;
		dv.pd.out = &dvpd;
		err = mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD);
		*out = dvpd.pdn;
		ibv_unimport_pd(pd);
	}
	if (ibv_close_device(c) != 0 && err == 0)
		err = errno;
	return err;
}

static int
suite_setup(void)
{
	const char *sock = getenv("SWDEV_SOCKET");
	struct mdevx_obj_info info;

	if (sock == NULL || sock[0] == '\0') {
		printf("SWDEV_SOCKET is not set: no software device, tests skipped "
		       "(run through devtools/run-autotest.sh --swdev)\n");
		return TEST_SKIPPED;
	}
	ctl = swdev_ctl_open(sock);
	TEST_ASSERT_NOT_NULL(ctl, "control channel of %s: %s", sock, strerror(errno));
	ctx = mdevx_open(DEVSTR);
	TEST_ASSERT_NOT_NULL(ctx, "mdevx_open(%s): %s", DEVSTR, strerror(errno));
	td = mdevx_td_alloc(ctx);
	cnt = mdevx_counter_alloc(ctx, 1);
	pd = mdevx_pd_alloc(ctx);
	TEST_ASSERT(td != NULL && cnt != NULL && pd != NULL, "TD, counter, PD: %s",
		    strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_obj_info(pd, &info), "PD info");
	pdn = info.id;
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	if (pd != NULL && mdevx_obj_destroy(pd) != 0)
		printf("destroying the PD: %s\n", strerror(errno));
	if (cnt != NULL && mdevx_obj_destroy(cnt) != 0)
		printf("destroying the counter: %s\n", strerror(errno));
	if (td != NULL && mdevx_obj_destroy(td) != 0)
		printf("destroying the TD: %s\n", strerror(errno));
	if (ctx != NULL && mdevx_close(ctx) != 0)
		printf("closing the context: %s\n", strerror(errno));
	if (ctl != NULL)
		swdev_ctl_close(ctl);
	pd = cnt = td = NULL;
	ctx = NULL;
	ctl = NULL;
}

/* ---------------- mdevx_ctx_devargs() ---------------- */

static int
test_devargs_values(void)
{
	struct mdevx_devargs da, db;
	uint32_t files = dev_files(), got = 0, h = 0;
	int fd = -1, n = 0;

	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs: %s", strerror(errno));
	TEST_ASSERT(da.cmd_fd >= 0, "fd %d", da.cmd_fd);
	TEST_ASSERT_NOT_EQUAL(da.cmd_fd, mdevx_cmd_fd(ctx), "the context's own fd handed out");
	TEST_ASSERT_EQUAL(mdevx_fd_same_file(da.cmd_fd, mdevx_cmd_fd(ctx)), 1,
			  "fd %d is not the context's uverbs file", da.cmd_fd);
	TEST_ASSERT(fcntl(da.cmd_fd, F_GETFD) & FD_CLOEXEC, "not close-on-exec");
	/* The string says what the fields say, and nothing else. */
	TEST_ASSERT_EQUAL(sscanf(da.devargs, "cmd_fd=%d,pd_handle=%u%n", &fd, &h, &n), 2,
			  "devargs \"%s\"", da.devargs);
	TEST_ASSERT_EQUAL(fd, da.cmd_fd, "devargs \"%s\"", da.devargs);
	TEST_ASSERT_EQUAL(h, da.pd_handle, "devargs \"%s\"", da.devargs);
	TEST_ASSERT_EQUAL((size_t)n, strlen(da.devargs), "devargs \"%s\"", da.devargs);
	/* What net/mlx5 does with them: the handle names our PD in that file. */
	TEST_ASSERT_SUCCESS(pdn_through(da.cmd_fd, da.pd_handle, &got), "import through fd");
	TEST_ASSERT_EQUAL(got, pdn, "handle %u resolves to pdn %#x, the PD is %#x",
			  da.pd_handle, got, pdn);
	/* A second call: another descriptor of the same file, the same handle. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &db), "second devargs");
	TEST_ASSERT_NOT_EQUAL(db.cmd_fd, da.cmd_fd, "same descriptor twice");
	TEST_ASSERT_EQUAL(mdevx_fd_same_file(db.cmd_fd, da.cmd_fd), 1, "another file");
	TEST_ASSERT_EQUAL(db.pd_handle, da.pd_handle, "handle changed");
	TEST_ASSERT_EQUAL(dev_files(), files, "the device has %u files, had %u", dev_files(),
			  files);
	close(db.cmd_fd);
	close(da.cmd_fd);
	return TEST_SUCCESS;
}

/* The caller closes its descriptor: the context and the device do not notice. */
static int
test_devargs_closed_by_caller(void)
{
	uint32_t files = dev_files();
	int nfd = open_fds(), i;
	struct mdevx_counter_stats st;
	struct mdevx_devargs da;
	struct mdevx_obj *c;

	for (i = 0; i < 3; i++) {
		TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs %d", i);
		TEST_ASSERT_SUCCESS(close(da.cmd_fd), "close");
	}
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	c = mdevx_counter_alloc(ctx, 1);
	TEST_ASSERT_NOT_NULL(c, "counter after the close: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(swdev_ctl_inject_traffic(ctl, DEV, test_obj_id(c), 7, 700),
			    "inject");
	TEST_ASSERT_SUCCESS(mdevx_counter_query(c, 0, 1, 0, &st), "query");
	TEST_ASSERT_EQUAL(st.packets, 7u, "packets");
	TEST_ASSERT_EQUAL(st.bytes, 700u, "bytes");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(c), "destroy");
	TEST_ASSERT_EQUAL(dev_files(), files, "the device has %u files, had %u", dev_files(),
			  files);
	return TEST_SUCCESS;
}

/* Descriptors opened by fill_fds() and the limit it lowered. */
static int fill[1024];
static int nb_fill;
static struct rlimit fill_saved;

/*
 * Lower the soft descriptor limit to just above the highest open descriptor
 * and open /dev/null until the process has none left below it: 0 or -1.
 */
static int
fill_fds(void)
{
	struct rlimit rl;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long top = 0;
	int fd;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (atol(e->d_name) > top)
			top = atol(e->d_name);
	closedir(d);
	if (getrlimit(RLIMIT_NOFILE, &fill_saved) != 0)
		return -1;
	rl = fill_saved;
	rl.rlim_cur = (rlim_t)top + 1;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	nb_fill = 0;
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		if (nb_fill == (int)RTE_DIM(fill)) {
			close(fd);
			return -1;
		}
		fill[nb_fill++] = fd;
	}
	return errno == EMFILE ? 0 : -1;
}

static int
unfill_fds(void)
{
	while (nb_fill > 0)
		close(fill[--nb_fill]);
	return setrlimit(RLIMIT_NOFILE, &fill_saved);
}

static int
test_devargs_errors(void)
{
	struct mdevx_devargs da;
	struct mdevx_ctx *other, *closed;
	struct mdevx_obj *opd, *gone;
	int nfd = open_fds(), rc, err;

	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, pd, NULL), EINVAL);
	memset(&da, 0x5a, sizeof(da));
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(NULL, pd, &da), EINVAL);
	TEST_ASSERT_EQUAL(da.cmd_fd, -1, "fd on failure");
	TEST_ASSERT_EQUAL(da.devargs[0], '\0', "devargs on failure");
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, NULL, &da), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, cnt, &da), EPROTOTYPE);
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, td, &da), EPROTOTYPE);
	/* A PD of another context (another uverbs file). */
	other = mdevx_open(DEVSTR);
	TEST_ASSERT_NOT_NULL(other, "second context: %s", strerror(errno));
	opd = mdevx_pd_alloc(other);
	TEST_ASSERT_NOT_NULL(opd, "PD of the second context");
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, opd, &da), EXDEV);
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(other, pd, &da), EXDEV);
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(opd), "destroy");
	TEST_ASSERT_SUCCESS(mdevx_close(other), "close");
	/* A destroyed PD, a closed context. */
	gone = mdevx_pd_alloc(ctx);
	TEST_ASSERT_NOT_NULL(gone, "PD");
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(gone), "destroy");
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(ctx, gone, &da), ENOENT);
	closed = mdevx_open(DEVSTR);
	TEST_ASSERT_NOT_NULL(closed, "third context");
	TEST_ASSERT_SUCCESS(mdevx_close(closed), "close");
	TEST_ASSERT_RC_ERRNO(mdevx_ctx_devargs(closed, pd, &da), ENOENT);
	TEST_ASSERT_EQUAL(da.cmd_fd, -1, "fd on failure");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	/* No descriptor left for the duplicate: the errno of fcntl(), nothing held. */
	TEST_ASSERT_EQUAL(fill_fds(), 0, "descriptor limit");
	rc = mdevx_ctx_devargs(ctx, pd, &da);
	err = errno;
	TEST_ASSERT_EQUAL(unfill_fds(), 0, "descriptor limit restored");
	TEST_ASSERT(rc == -EMFILE && err == EMFILE, "devargs with no descriptor: %d, %s", rc,
		    strerror(err));
	TEST_ASSERT_EQUAL(da.cmd_fd, -1, "fd on failure");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	/* The failures changed nothing: the next call works. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs after the failures");
	close(da.cmd_fd);
	return TEST_SUCCESS;
}

static int
test_devargs_release(void)
{
	struct mdevx_devargs da;
	int nfd = open_fds(), fd, other;

	/* Never handed over (or sent away): ours, closed. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs");
	fd = da.cmd_fd;
	TEST_ASSERT_EQUAL(mdevx_devargs_release(ctx, &da), 1, "release: %s", strerror(errno));
	TEST_ASSERT_EQUAL(da.cmd_fd, -1, "fd after the release");
	TEST_ASSERT(fcntl(fd, F_GETFD) < 0 && errno == EBADF, "fd %d still open", fd);
	TEST_ASSERT_RC_ERRNO(mdevx_devargs_release(ctx, &da), EBADF);
	/* A consumer closed it and the number went to another file: left alone. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs");
	TEST_ASSERT_SUCCESS(close(da.cmd_fd), "the consumer's close");
	other = open("/dev/null", O_RDONLY | O_CLOEXEC);
	TEST_ASSERT_EQUAL(other, da.cmd_fd, "number not reused (%d, %d)", other, da.cmd_fd);
	TEST_ASSERT_EQUAL(mdevx_devargs_release(ctx, &da), 0, "release of a reused number");
	TEST_ASSERT_EQUAL(da.cmd_fd, -1, "fd after the release");
	TEST_ASSERT(fcntl(other, F_GETFD) >= 0, "the other file was closed");
	close(other);
	/* Closed and not reused. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs");
	close(da.cmd_fd);
	TEST_ASSERT_EQUAL(mdevx_devargs_release(ctx, &da), 0, "release of a closed fd");
	TEST_ASSERT_RC_ERRNO(mdevx_devargs_release(ctx, NULL), EINVAL);
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs");
	TEST_ASSERT_RC_ERRNO(mdevx_devargs_release(NULL, &da), EINVAL);
	TEST_ASSERT(fcntl(da.cmd_fd, F_GETFD) >= 0, "a refused release closed the fd");
	TEST_ASSERT_EQUAL(mdevx_devargs_release(ctx, &da), 1, "release");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	return TEST_SUCCESS;
}

static struct unit_test_suite devargs_suite = {
	.suite_name = "mlx5 devx handover: devargs",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE(test_devargs_values),
		TEST_CASE(test_devargs_closed_by_caller),
		TEST_CASE(test_devargs_errors),
		TEST_CASE(test_devargs_release),
		TEST_CASES_END()
	},
};

/* ---------------- the attach server ---------------- */

static void
sock_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static struct mdevx_attach_server *
start(const char *name, uint32_t timeout_ms)
{
	char path[128];
	struct mdevx_attach_conf conf = { .path = path, .request_timeout_ms = timeout_ms };

	sock_path(path, sizeof(path), name);
	return mdevx_attach_server_start(ctx, pd, &conf);
}

/* A client socket of @p type connected to @p name: fd, or -errno. */
static int
client_connect(const char *name, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0), err;

	if (s < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(s);
		return -err;
	}
	return s;
}

/* Send @p len bytes of @p data (may be 0) and descriptor @p fd (-1: none). */
static int
client_send(int s, const void *data, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = len > 0 ? &iov : NULL, .msg_iovlen = len > 0 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(s, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* What a client received: testpmd's checks are made by the caller. */
struct reply {
	ssize_t n;		/* bytes, or -errno */
	int value;		/* the int, when n == sizeof(int) */
	int fd;			/* the descriptor, -1 without one */
	size_t cmsg_len;	/* of the first control message, 0 without one */
	int flags;		/* msg_flags */
};

static void
client_recv(int s, struct reply *r)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} c;
	char data[16];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
		.msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm;

	r->fd = -1;
	r->cmsg_len = 0;
	r->value = 0;
	r->n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
	if (r->n < 0) {
		r->n = -errno;
		return;
	}
	r->flags = msg.msg_flags;
	if (r->n == (ssize_t)sizeof(int))
		memcpy(&r->value, data, sizeof(int));
	cm = CMSG_FIRSTHDR(&msg);
	if (cm != NULL && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
		r->cmsg_len = cm->cmsg_len;
		memcpy(&r->fd, CMSG_DATA(cm), sizeof(int));
	}
}

/* Wait until the server's counts equal @p want (the thread is asynchronous). */
static int
wait_stats(struct mdevx_attach_server *srv, const struct mdevx_attach_stats *want)
{
	struct mdevx_attach_stats st;
	uint64_t end = test_now_ms() + 5000;

	do {
		TEST_ASSERT_SUCCESS(mdevx_attach_server_stats(srv, &st), "stats");
		if (memcmp(&st, want, sizeof(st)) == 0)
			return TEST_SUCCESS;
		usleep(2000);
	} while (test_now_ms() < end);
	printf("server counts: served %lu bad %lu timeouts %lu hangups %lu errors %lu; "
	       "want %lu %lu %lu %lu %lu\n", (unsigned long)st.served,
	       (unsigned long)st.bad_requests, (unsigned long)st.timeouts,
	       (unsigned long)st.hangups, (unsigned long)st.errors,
	       (unsigned long)want->served, (unsigned long)want->bad_requests,
	       (unsigned long)want->timeouts, (unsigned long)want->hangups,
	       (unsigned long)want->errors);
	return TEST_FAILED;
}

/* One exchange as testpmd makes it; the reply is checked like testpmd does, and more. */
static int
testpmd_like_client(const char *name, uint32_t *handle)
{
	struct reply r, eof;
	uint32_t got = 0;
	int s = client_connect(name, SOCK_SEQPACKET);

	TEST_ASSERT(s >= 0, "connect: %s", strerror(-s));
	TEST_ASSERT_SUCCESS(client_send(s, NULL, 0, -1), "empty request");
	client_recv(s, &r);
	client_recv(s, &eof);
	close(s);
	TEST_ASSERT_EQUAL(r.n, (ssize_t)sizeof(int), "reply of %zd bytes", r.n);
	TEST_ASSERT_EQUAL(r.flags & (MSG_TRUNC | MSG_CTRUNC), 0, "truncated reply");
	TEST_ASSERT_EQUAL(r.cmsg_len, (size_t)CMSG_LEN(sizeof(int)), "control message of %zu",
			  r.cmsg_len);
	TEST_ASSERT(r.fd >= 0, "no descriptor");
	TEST_ASSERT_EQUAL(eof.n, 0, "the server did not close after its reply");
	TEST_ASSERT_EQUAL(mdevx_fd_same_file(r.fd, mdevx_cmd_fd(ctx)), 1,
			  "the descriptor is not the context's uverbs file");
	TEST_ASSERT_SUCCESS(pdn_through(r.fd, (uint32_t)r.value, &got), "import through it");
	TEST_ASSERT_EQUAL(got, pdn, "handle %d resolves to pdn %#x, the PD is %#x", r.value,
			  got, pdn);
	close(r.fd);
	*handle = (uint32_t)r.value;
	return TEST_SUCCESS;
}

static int
server_setup(void)
{
	int rc = suite_setup();

	if (rc != TEST_SUCCESS)
		return rc;
	snprintf(dir, sizeof(dir), "/tmp/mdevx-attach.XXXXXX");
	TEST_ASSERT_NOT_NULL(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	return TEST_SUCCESS;
}

static void
server_teardown(void)
{
	suite_teardown();
	if (dir[0] != '\0' && rmdir(dir) != 0)
		printf("%s left: %s\n", dir, strerror(errno));
	dir[0] = '\0';
}

static int
test_server_reply(void)
{
	struct mdevx_attach_stats want = { 0 };
	struct mdevx_attach_server *srv;
	struct mdevx_devargs da;
	uint32_t handle = UINT32_MAX;
	char path[128];
	struct stat st;
	int nfd = open_fds(), i;

	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs");
	close(da.cmd_fd);
	srv = start("a.sock", REQ_TIMEOUT_MS);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	TEST_ASSERT_EQUAL(mdevx_attach_server_pd_handle(srv), da.pd_handle, "server's handle");
	sock_path(path, sizeof(path), "a.sock");
	TEST_ASSERT_SUCCESS(stat(path, &st), "stat");
	TEST_ASSERT(S_ISSOCK(st.st_mode), "not a socket");
	TEST_ASSERT_EQUAL(st.st_mode & 07777, 0600u, "mode %o", st.st_mode & 07777);
	for (i = 0; i < 5; i++) {
		if (testpmd_like_client("a.sock", &handle) != TEST_SUCCESS)
			break;
		TEST_ASSERT_EQUAL(handle, da.pd_handle, "client %d got handle %u", i, handle);
		want.served++;
	}
	TEST_ASSERT_EQUAL(want.served, 5u, "client %u failed", (unsigned int)want.served);
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "counts");
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");
	TEST_ASSERT(stat(path, &st) != 0 && errno == ENOENT, "socket file left");
	TEST_ASSERT_EQUAL(client_connect("a.sock", SOCK_SEQPACKET), -ENOENT, "connect after stop");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	/* The context still works after its descriptors came and went. */
	TEST_ASSERT_SUCCESS(mdevx_ctx_devargs(ctx, pd, &da), "devargs after the server");
	close(da.cmd_fd);
	return TEST_SUCCESS;
}

static int
test_server_bad_requests(void)
{
	struct mdevx_attach_stats want = { 0 };
	struct mdevx_attach_server *srv;
	char big[100] = { 0 };
	struct pollfd pw;
	uint32_t handle;
	int nfd = open_fds(), s, p[2];
	uint64_t t0;
	struct reply r;

	srv = start("b.sock", REQ_TIMEOUT_MS);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));

	/* Data in the request: closed without a reply. */
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	TEST_ASSERT_SUCCESS(client_send(s, "hello", 5, -1), "send");
	client_recv(s, &r);
	close(s);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply to a request with data (%zd)", r.n);
	want.bad_requests++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after data");

	/* More than the server reads (truncated there). */
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	TEST_ASSERT_SUCCESS(client_send(s, big, sizeof(big), -1), "send");
	client_recv(s, &r);
	close(s);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply to a long request (%zd)", r.n);
	want.bad_requests++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after a long request");

	/* An empty request with a descriptor: the server closes its copy. */
	TEST_ASSERT_SUCCESS(pipe2(p, O_CLOEXEC), "pipe");
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	TEST_ASSERT_SUCCESS(client_send(s, NULL, 0, p[0]), "send with a descriptor");
	close(p[0]);
	client_recv(s, &r);
	close(s);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply to a request with a descriptor (%zd)", r.n);
	pw = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	TEST_ASSERT_EQUAL(poll(&pw, 1, 0), 1, "poll");
	TEST_ASSERT(pw.revents & POLLERR, "the pipe still has a reader: the server kept it");
	close(p[1]);
	want.bad_requests++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after a descriptor");

	/* Connected and closed without a request. */
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	close(s);
	want.hangups++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after a hang-up");

	/* Silent: closed at the timeout. */
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	t0 = test_now_ms();
	client_recv(s, &r);
	close(s);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply without a request (%zd)", r.n);
	TEST_ASSERT(test_now_ms() - t0 + 20 >= REQ_TIMEOUT_MS, "closed after %lu ms",
		    (unsigned long)(test_now_ms() - t0));
	want.timeouts++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after a silent client");

	/* A stream socket cannot connect to it. */
	TEST_ASSERT_EQUAL(client_connect("b.sock", SOCK_STREAM), -EPROTOTYPE, "stream client");

	/* The PD destroyed under the server: no reply, counted; a new one served. */
	TEST_ASSERT_SUCCESS(mdevx_obj_destroy(pd), "destroy the PD");
	s = client_connect("b.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	TEST_ASSERT_SUCCESS(client_send(s, NULL, 0, -1), "request");
	client_recv(s, &r);
	close(s);
	pd = mdevx_pd_alloc(ctx);
	TEST_ASSERT_NOT_NULL(pd, "a new PD");
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply without a PD (%zd)", r.n);
	want.errors++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "after the PD's destroy");
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");

	/* A server on the new PD serves as ever. */
	srv = start("b.sock", REQ_TIMEOUT_MS);
	TEST_ASSERT_NOT_NULL(srv, "restart: %s", strerror(errno));
	{
		struct mdevx_obj_info info;

		TEST_ASSERT_SUCCESS(mdevx_obj_info(pd, &info), "info");
		pdn = info.id;
	}
	TEST_ASSERT_SUCCESS(testpmd_like_client("b.sock", &handle), "client after restart");
	TEST_ASSERT_EQUAL(handle, mdevx_attach_server_pd_handle(srv), "handle");
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	return TEST_SUCCESS;
}

static int
test_server_start_stop_errors(void)
{
	struct mdevx_attach_conf conf = { 0 };
	struct mdevx_attach_stats st;
	struct mdevx_attach_server *srv;
	char path[128], longpath[200];
	int nfd = open_fds(), fd, s;
	uint32_t handle;
	struct stat sb;
	uint64_t t0;
	struct reply r;

	sock_path(path, sizeof(path), "c.sock");
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, NULL), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EINVAL);
	conf.path = "";
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EINVAL);
	conf.path = path;
	conf.mode = 01000;
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EINVAL);
	conf.mode = 0;
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	memcpy(longpath, "/tmp/", 5);
	conf.path = longpath;
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), ENAMETOOLONG);
	/* One byte past what sun_path holds with its NUL. */
	longpath[sizeof(((struct sockaddr_un *)NULL)->sun_path)] = '\0';
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), ENAMETOOLONG);
	conf.path = path;
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(NULL, pd, &conf), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, NULL, &conf), EINVAL);
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, cnt, &conf), EPROTOTYPE);
	TEST_ASSERT(stat(path, &sb) != 0 && errno == ENOENT, "a refused start left a file");
	/* The path exists: refused, and the file is untouched. */
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	TEST_ASSERT(fd >= 0 && write(fd, "keep", 4) == 4, "a file at the path");
	close(fd);
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EADDRINUSE);
	TEST_ASSERT(stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 4,
		    "the file was changed");
	TEST_ASSERT_SUCCESS(unlink(path), "unlink");
	/* Another server's socket. */
	conf.mode = 0660;
	conf.flags = MDEVX_ATTACH_F_ALLOW_OTHER_USERS;
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	TEST_ASSERT(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0660, "mode %o",
		    sb.st_mode & 07777);
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EADDRINUSE);
	/* Stop with a silent client connected: prompt, the client sees the close. */
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");
	conf.request_timeout_ms = 10000;
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	s = client_connect("c.sock", SOCK_SEQPACKET);
	TEST_ASSERT(s >= 0, "connect");
	/*
	 * The server accepts in connection order: once a later client is
	 * served, the silent one is accepted and waits for its request.
	 */
	TEST_ASSERT_SUCCESS(testpmd_like_client("c.sock", &handle), "a client served");
	t0 = test_now_ms();
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop with a client");
	TEST_ASSERT(test_now_ms() - t0 < 2000, "the stop took %lu ms",
		    (unsigned long)(test_now_ms() - t0));
	client_recv(s, &r);
	close(s);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "a reply at the stop (%zd)", r.n);
	/* The socket file replaced while the server ran: not removed at the stop. */
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(unlink(path), "unlink the socket");
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	TEST_ASSERT(fd >= 0, "a file in its place");
	close(fd);
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");
	TEST_ASSERT(stat(path, &sb) == 0 && S_ISREG(sb.st_mode), "the new file was removed");
	TEST_ASSERT_SUCCESS(unlink(path), "unlink");
	/* NULL arguments. */
	TEST_ASSERT_RC_ERRNO(mdevx_attach_server_stop(NULL), EINVAL);
	TEST_ASSERT_RC_ERRNO(mdevx_attach_server_stats(NULL, &st), EINVAL);
	TEST_ASSERT_U32MAX_ERRNO(mdevx_attach_server_pd_handle(NULL), EINVAL);
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	return TEST_SUCCESS;
}

/* No reply and no close yet: the server still waits for this client. */
static bool
client_waiting(int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* Connect @p n silent clients to @p name into @p fds: TEST_SUCCESS or not. */
static int
connect_silent(const char *name, int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fds[i] = client_connect(name, SOCK_SEQPACKET);
		TEST_ASSERT(fds[i] >= 0, "silent client %u: %s", i, strerror(-fds[i]));
	}
	return TEST_SUCCESS;
}

/*
 * Silent clients do not delay an honest one: it is served while they all
 * still wait (no timeout counted, no close seen), with a request timeout
 * far longer than the test. Then MDEVX_ATTACH_MAX_CLIENTS silent clients
 * fill the table: the honest one evicts the oldest and is served.
 */
static int
test_server_concurrent(void)
{
	struct mdevx_attach_stats want = { 0 }, st;
	struct mdevx_attach_server *srv;
	int idle[MDEVX_ATTACH_MAX_CLIENTS], nfd = open_fds();
	uint32_t handle;
	unsigned int i;
	struct reply r;

	srv = start("d.sock", 30000);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(connect_silent("d.sock", idle, 5), "5 silent clients");
	TEST_ASSERT_SUCCESS(testpmd_like_client("d.sock", &handle), "the honest client");
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stats(srv, &st), "stats");
	TEST_ASSERT(st.served == 1 && st.timeouts == 0, "served %lu, timeouts %lu: the honest "
		    "client waited for the silent ones", (unsigned long)st.served,
		    (unsigned long)st.timeouts);
	for (i = 0; i < 5; i++) {
		TEST_ASSERT(client_waiting(idle[i]), "silent client %u closed", i);
		close(idle[i]);
	}
	want.served = 1;
	want.hangups = 5;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "5 hang-ups");

	TEST_ASSERT_SUCCESS(connect_silent("d.sock", idle, MDEVX_ATTACH_MAX_CLIENTS),
			    "a full table of silent clients");
	TEST_ASSERT_SUCCESS(testpmd_like_client("d.sock", &handle), "the honest client");
	want.served++;
	want.timeouts++;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "one evicted");
	client_recv(idle[0], &r);
	TEST_ASSERT(r.n == 0 && r.fd < 0, "the oldest silent client: %zd, not closed", r.n);
	for (i = 1; i < MDEVX_ATTACH_MAX_CLIENTS; i++)
		TEST_ASSERT(client_waiting(idle[i]), "silent client %u closed", i);
	for (i = 0; i < MDEVX_ATTACH_MAX_CLIENTS; i++)
		close(idle[i]);
	want.hangups += MDEVX_ATTACH_MAX_CLIENTS - 1;
	TEST_ASSERT_SUCCESS(wait_stats(srv, &want), "the others hang up");
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");
	TEST_ASSERT_EQUAL(open_fds(), nfd, "descriptors: %d, were %d", open_fds(), nfd);
	return TEST_SUCCESS;
}

/*
 * A child as @p uid sends the request on @p path: exit 0 when what it
 * received is what @p want_reply says (a handle and a descriptor, or the
 * close without a reply), 1 otherwise, 2 when it could not become @p uid.
 */
static int
other_uid_client(const char *path, uid_t uid, gid_t gid, bool want_reply)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct reply r;
	pid_t pid;
	int st = 0, s;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
			_exit(2);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    client_send(s, NULL, 0, -1) != 0)
			_exit(1);
		client_recv(s, &r);
		if (want_reply)
			_exit(r.n == (ssize_t)sizeof(int) && r.fd >= 0 ? 0 : 1);
		_exit(r.n == 0 && r.fd < 0 ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int
test_server_other_users(void)
{
	struct mdevx_attach_conf conf = { 0 };
	struct mdevx_attach_stats want = { 0 };
	struct mdevx_attach_server *srv;
	static const uint32_t open_modes[] = { 0620, 0602, 0660, 0666, 0777 };
	char path[128];
	struct passwd *pw;
	struct stat sb;
	unsigned int i;
	int rc;

	sock_path(path, sizeof(path), "e.sock");
	conf.path = path;
	for (i = 0; i < RTE_DIM(open_modes); i++) {
		conf.mode = open_modes[i];
		TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EPERM);
		TEST_ASSERT(stat(path, &sb) != 0 && errno == ENOENT, "mode %04o left a file",
			    open_modes[i]);
	}
	conf.mode = 0666;
	conf.flags = 2;
	TEST_ASSERT_NULL_ERRNO(mdevx_attach_server_start(ctx, pd, &conf), EINVAL);
	/* read bits only: nobody else can connect */
	conf.flags = 0;
	conf.mode = 0644;
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "mode 0644: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_attach_server_stop(srv), "stop");

	pw = getpwnam("nobody");
	if (geteuid() != 0 || pw == NULL || pw->pw_uid == 0) {
		printf("SKIP: a client of another uid needs root and user nobody\n");
		return TEST_SUCCESS;
	}
	TEST_ASSERT_SUCCESS(chmod(dir, 0711), "chmod %s", dir);
	/* The mode widened after the start (by the owner): the uid check still holds. */
	conf.mode = 0;
	conf.request_timeout_ms = 10000;
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "start: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(chmod(path, 0666), "chmod the socket");
	rc = other_uid_client(path, pw->pw_uid, pw->pw_gid, false);
	want.bad_requests = 1;
	if (rc == 0)
		rc = wait_stats(srv, &want);
	mdevx_attach_server_stop(srv);
	TEST_ASSERT_EQUAL(rc, 0, "uid %u without the flag: %d", (unsigned int)pw->pw_uid, rc);
	/* With the flag: served. */
	conf.mode = 0666;
	conf.flags = MDEVX_ATTACH_F_ALLOW_OTHER_USERS;
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	TEST_ASSERT_NOT_NULL(srv, "start with the flag: %s", strerror(errno));
	TEST_ASSERT(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0666, "mode %o",
		    sb.st_mode & 07777);
	rc = other_uid_client(path, pw->pw_uid, pw->pw_gid, true);
	want = (struct mdevx_attach_stats){ .served = 1 };
	if (rc == 0)
		rc = wait_stats(srv, &want);
	mdevx_attach_server_stop(srv);
	chmod(dir, 0700);
	TEST_ASSERT_EQUAL(rc, 0, "uid %u with the flag: %d", (unsigned int)pw->pw_uid, rc);
	return TEST_SUCCESS;
}

static struct unit_test_suite server_suite = {
	.suite_name = "mlx5 devx handover: attach server",
	.setup = server_setup,
	.teardown = server_teardown,
	.unit_test_cases = {
		TEST_CASE(test_server_reply),
		TEST_CASE(test_server_bad_requests),
		TEST_CASE(test_server_start_stop_errors),
		TEST_CASE(test_server_concurrent),
		TEST_CASE(test_server_other_users),
		TEST_CASES_END()
	},
};

static int
test_mlx5_devx_handover(void)
{
	int rc = unit_test_suite_runner(&devargs_suite);

	if (rc != TEST_SUCCESS)
		return rc;
	return unit_test_suite_runner(&server_suite);
}

REGISTER_TEST_COMMAND(mlx5_devx_handover_autotest, test_mlx5_devx_handover);

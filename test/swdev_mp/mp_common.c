/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Harness of the multi-process software-device tests.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "swdev_proto.h"

const char *mp_daemon_bin;
unsigned int mp_daemon_nofile;
bool mp_daemon_test_mode = true;
uid_t mp_daemon_uid = (uid_t)-1;
const char *mp_daemon_stderr;
gid_t mp_daemon_gid = (gid_t)-1;
char mp_sock[108];

struct mp_stats {
	atomic_uint passed;
	atomic_uint failed;
};

static struct mp_stats *stats;
static pid_t parent_pid;
#define MAX_DAEMONS 8
static pid_t daemons[MAX_DAEMONS];

uint64_t
mp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
kill_daemons(void)
{
	unsigned int i;

	if (getpid() != parent_pid)
		return;
	for (i = 0; i < MAX_DAEMONS; i++) {
		if (daemons[i] > 0) {
			kill(daemons[i], SIGKILL);
			waitpid(daemons[i], NULL, 0);
			daemons[i] = 0;
		}
	}
}

static void
on_fatal_signal(int sig)
{
	unsigned int i;

	for (i = 0; i < MAX_DAEMONS; i++)
		if (daemons[i] > 0)
			kill(daemons[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
mp_init(int argc, char **argv, const char *name)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: %s <path of mlx5-swdev>\n", argv[0]);
		exit(2);
	}
	mp_daemon_bin = argv[1];
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (stats == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	atomic_init(&stats->passed, 0);
	atomic_init(&stats->failed, 0);
	parent_pid = getpid();
	snprintf(mp_sock, sizeof(mp_sock), "/tmp/swdev-%s-%d.sock", name, (int)getpid());
	atexit(kill_daemons);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGINT, on_fatal_signal);
	signal(SIGPIPE, SIG_IGN);
}

int
mp_finish(void)
{
	unsigned int p, f, i;

	/* Daemons still running stop the clean way: exit 0 on SIGTERM (under
	 * ASan this also checks the daemon for leaks). */
	for (i = 0; i < MAX_DAEMONS; i++) {
		if (daemons[i] > 0 && getpid() == parent_pid) {
			pid_t pid = daemons[i];
			int st = mp_daemon_stop(pid);

			CHECK(mp_exited_ok(st), "daemon %d exits 0 on SIGTERM: status %#x",
			      (int)pid, st);
		}
	}
	p = atomic_load(&stats->passed);
	f = atomic_load(&stats->failed);
	kill_daemons();
	printf("%u passed, %u failed\n", p, f);
	return f == 0 && p > 0 ? 0 : 1;
}

void
mp_check(bool ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		atomic_fetch_add(&stats->passed, 1);
		return;
	}
	atomic_fetch_add(&stats->failed, 1);
	printf("FAIL [%d] %s:%d: %s: ", (int)getpid(), file, line, expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int
mp_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		return errno;
	return 0;
}

static pid_t
spawn(const char *const *argv, bool track, unsigned int nofile, uid_t uid, gid_t gid)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (nofile != 0) {
			struct rlimit rl = { .rlim_cur = nofile, .rlim_max = nofile };

			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (uid != (uid_t)-1 && mp_become(uid, gid) != 0) {
			perror("setresuid");
			_exit(127);
		}
		/* After the change of credentials, which clears it. */
		if (track)
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (track && mp_daemon_stderr != NULL) {
			int fd = open(mp_daemon_stderr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				      0600);

			if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
				perror(mp_daemon_stderr);
				_exit(127);
			}
		}
		execv(argv[0], (char *const *)(uintptr_t)argv);
		perror(argv[0]);
		_exit(127);
	}
	return pid;
}

pid_t
mp_daemon_start(const char *sock, const char *const *extra)
{
	const char *argv[48];
	unsigned int n = 0, i;
	uint64_t deadline;
	pid_t pid;

	argv[n++] = mp_daemon_bin;
	argv[n++] = "--socket";
	argv[n++] = sock;
	argv[n++] = "--foreground";
	argv[n++] = "--log-level";
	argv[n++] = getenv("SWDEV_TEST_LOG") != NULL ? getenv("SWDEV_TEST_LOG") : "warn";
	if (mp_daemon_test_mode)
		argv[n++] = "--test-mode";
	for (i = 0; extra != NULL && extra[i] != NULL && n < 47; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid = spawn(argv, true, mp_daemon_nofile, mp_daemon_uid, mp_daemon_gid);
	if (pid < 0)
		return -1;
	for (i = 0; i < MAX_DAEMONS; i++) {
		if (daemons[i] == 0) {
			daemons[i] = pid;
			break;
		}
	}
	deadline = mp_now_ns() + 10ull * 1000000000ull;
	while (mp_now_ns() < deadline) {
		struct swdev_ctl *ctl = swdev_ctl_open(sock);
		int st;

		if (ctl != NULL) {
			int err = swdev_ctl_ping(ctl);

			swdev_ctl_close(ctl);
			/* EACCES: it answers, but not us (another user's daemon). */
			if (err == 0 || err == EACCES)
				return pid;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			for (i = 0; i < MAX_DAEMONS; i++)
				if (daemons[i] == pid)
					daemons[i] = 0;
			fprintf(stderr, "daemon exited during start (status %#x)\n", st);
			return -1;
		}
		usleep(10000);
	}
	fprintf(stderr, "daemon did not answer on %s\n", sock);
	kill(pid, SIGKILL);
	return -1;
}

int
mp_wait(pid_t pid, int timeout_s)
{
	uint64_t deadline = mp_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -1;
		if (mp_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return st;
		}
		usleep(2000);
	}
}

int
mp_daemon_stop(pid_t pid)
{
	unsigned int i;
	int st;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	st = mp_wait(pid, 5);
	for (i = 0; i < MAX_DAEMONS; i++)
		if (daemons[i] == pid)
			daemons[i] = 0;
	return st;
}

int
mp_run(const char *const *argv, int timeout_s)
{
	pid_t pid = spawn(argv, true, 0, (uid_t)-1, (gid_t)-1);

	if (pid < 0)
		return -1;
	return mp_wait(pid, timeout_s);
}

pid_t
mp_fork(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(fn(arg));
	}
	return pid;
}

bool
mp_exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The software device's own descriptor passing, in the tests' argument order. */
int
mp_send_fd(int sock, int fd, const void *data, size_t len)
{
	return swdev_proto_send_fd(sock, data, len, fd, 0);
}

ssize_t
mp_recv_fd(int sock, int *fd, void *data, size_t len)
{
	int trunc;

	return swdev_proto_recv_fd(sock, data, len, fd, &trunc, 0);
}

int
mp_signal(int sock, char c)
{
	return send(sock, &c, 1, MSG_NOSIGNAL) == 1 ? 0 : errno;
}

int
mp_await(int sock, char expect, int timeout_s)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char c;

	if (poll(&p, 1, timeout_s * 1000) != 1)
		return ETIMEDOUT;
	if (recv(sock, &c, 1, 0) != 1)
		return EPIPE;
	return c == expect ? 0 : EPROTO;
}

struct swdev_obj *
mp_counter_alloc(struct swdev_ctx *ctx, uint8_t bulk128, uint32_t *base_id, int *err)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)] = { 0 };
	struct swdev_obj *obj;

	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk, bulk128);
	obj = swdev_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	*err = obj == NULL ? errno : 0;
	if (base_id != NULL)
		*base_id = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	return obj;
}

int
mp_counter_query(struct swdev_obj *obj, uint32_t id, bool clear, uint64_t *packets,
		 uint64_t *bytes, uint8_t *status, uint32_t *syndrome)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
		    MDEVX_ST_SZ_BYTES(traffic_counter)];
	int err;

	memset(out, 0, sizeof(out));
	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, id);
	MDEVX_SET(query_flow_counter_in, in, clear, clear ? 1 : 0);
	err = swdev_obj_query(obj, in, sizeof(in), out, sizeof(out));
	if (status != NULL)
		*status = (uint8_t)MDEVX_GET(query_flow_counter_out, out, status);
	if (syndrome != NULL)
		*syndrome = MDEVX_GET(query_flow_counter_out, out, syndrome);
	if (err == 0) {
		const uint8_t *e = out + MDEVX_ST_SZ_BYTES(query_flow_counter_out);

		if (packets != NULL)
			*packets = MDEVX_GET64(traffic_counter, e, packets);
		if (bytes != NULL)
			*bytes = MDEVX_GET64(traffic_counter, e, octets);
	}
	return err;
}

struct swdev_obj *
mp_td_alloc(struct swdev_ctx *ctx, uint32_t *tdn, int *err)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_transport_domain_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_transport_domain_out)] = { 0 };
	struct swdev_obj *obj;

	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	obj = swdev_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	*err = obj == NULL ? errno : 0;
	if (tdn != NULL)
		*tdn = MDEVX_GET(alloc_transport_domain_out, out, transport_domain);
	return obj;
}

int
mp_wait_total(struct swdev_ctl *ctl, uint32_t file_id, uint32_t total, uint32_t *got)
{
	uint64_t deadline = mp_now_ns() + 5ull * 1000000000ull;
	struct swdev_counts c;
	int err;

	for (;;) {
		memset(&c, 0, sizeof(c));
		err = swdev_ctl_get_counts(ctl, MP_DEV, file_id, &c);
		/* A file that is gone has no objects. */
		if (err == ENOENT && file_id != 0) {
			c.total = 0;
			err = 0;
		}
		*got = c.total;
		if (err != 0)
			return err;
		if (c.total == total || mp_now_ns() > deadline)
			return 0;
		usleep(5000);
	}
}

int
mp_wait_files(struct swdev_ctl *ctl, uint32_t nfiles, uint32_t *got)
{
	uint64_t deadline = mp_now_ns() + 5ull * 1000000000ull;
	int err;

	for (;;) {
		err = swdev_ctl_get_num_files(ctl, MP_DEV, got);
		if (err != 0)
			return err;
		if (*got == nfiles || mp_now_ns() > deadline)
			return 0;
		usleep(5000);
	}
}

void
mp_req_init(struct swdev_req_hdr *h, uint16_t op, uint32_t inlen, uint32_t outlen)
{
	memset(h, 0, sizeof(*h));
	h->magic = SWDEV_PROTO_MAGIC;
	h->version = SWDEV_PROTO_VERSION;
	h->op = op;
	h->inlen = inlen;
	h->outlen = outlen;
}

int
mp_raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
mp_raw_join(struct swdev_ctx *ctx, uint16_t op, const void *payload, uint32_t len,
	    int *err, struct swdev_rep_hdr *rep_out)
{
	union {
		struct swdev_req_hdr h;
		uint8_t b[sizeof(struct swdev_req_hdr) + 32];
	} msg;
	struct swdev_rep_hdr rep;
	struct pollfd p;
	int sv[2];

	*err = EIO;
	if (len > 32 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	memset(&msg, 0, sizeof(msg));
	mp_req_init(&msg.h, op, len, 0);
	msg.h.seq = 9;
	if (len > 0)
		memcpy(msg.b + sizeof(msg.h), payload, len);
	if (swdev_proto_send_fd(swdev_cmd_fd(ctx), msg.b, sizeof(msg.h) + len, sv[1], 0) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	close(sv[1]);
	p.fd = sv[0];
	p.events = POLLIN;
	if (poll(&p, 1, 5000) != 1) {
		*err = ETIMEDOUT;
	} else if (swdev_proto_read_all(sv[0], &rep, sizeof(rep)) != 0) {
		*err = EPIPE;
	} else {
		*err = (int)rep.err;
		if (rep_out != NULL)
			*rep_out = rep;
	}
	return sv[0];
}

int
mp_raw_attach(struct swdev_ctx *ctx, uint32_t *file_id)
{
	struct swdev_rep_hdr rep;
	struct swdev_open_rep orep;
	int err, ch = mp_raw_join(ctx, SWDEV_OP_ATTACH, NULL, 0, &err, &rep);

	if (ch < 0)
		return -1;
	if (err != 0 || rep.outlen != sizeof(orep) ||
	    swdev_proto_read_all(ch, &orep, sizeof(orep)) != 0) {
		close(ch);
		return -1;
	}
	if (file_id != NULL)
		*file_id = rep.file_id;
	return ch;
}

int
mp_daemon_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
mp_daemon_fds_settle(pid_t pid, int want)
{
	int i, n = -1;

	for (i = 0; i < 2000; i++) {
		n = mp_daemon_fds(pid);
		if (n == want)
			break;
		usleep(10000);
	}
	return n;
}

static int
count_log_lines(const char *path, const char *needle)
{
	char line[2048];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

int
mp_wait_log(const char *path, const char *needle, int want, int timeout_ms)
{
	uint64_t deadline = mp_now_ns() + (uint64_t)timeout_ms * 1000000u;
	int n;

	while ((n = count_log_lines(path, needle)) >= 0 && n < want && mp_now_ns() < deadline)
		usleep(5000);
	return n;
}

long
mp_daemon_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int
mp_run_cli(const char *const *args, char *out, size_t size)
{
	const char *argv[16];
	unsigned int n = 0;
	size_t got = 0;
	int pfd[2], st;
	pid_t pid;

	argv[n++] = mp_daemon_bin;
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	out[0] = '\0';
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], out + got, size - 1 - got);

		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == size - 1)
			break;
	}
	out[got] = '\0';
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

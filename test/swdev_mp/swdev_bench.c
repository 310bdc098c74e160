/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * swdev-bench: command round trip of the software device next to a bare
 * Unix-socket ping-pong of the same message sizes, measured in the same
 * run. No timed assertion: it prints, side by side,
 *   (a) bare ping-pong to a helper process over a stream socketpair,
 *   (b) QUERY_FLOW_COUNTER through swdev_obj_query, one client,
 *   (c) the same from 4 processes sharing one uverbs file,
 *   (d) 4 bare ping-pong pairs at once (the fair reference for (c)),
 * each as: name, value, unit, ratio to (a); then, in a process of its own
 * under `mlx5-swdev run` (Debian's libibverbs and libmlx5, the preload
 * library), alternating in ROUNDS rounds and reported as medians:
 *   (e) the bare ping-pong again,
 *   (f) QUERY_FLOW_COUNTER through mlx5dv_devx_obj_query(), one client,
 * with the ratio (f) / (e).
 *
 * Usage: swdev-bench <mlx5-swdev path> [round trips per client]
 *        (swdev-bench --rdma-leg ITERS: the (e)/(f) process, under the launcher)
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "swdev_proto.h"

#define NPROC 4
#define ROUNDS 5

/* Same bytes on the wire as a one-counter query: header + mailbox. */
#define REQ_BYTES (sizeof(struct swdev_req_hdr) + MDEVX_ST_SZ_BYTES(query_flow_counter_in))
#define REP_BYTES (sizeof(struct swdev_rep_hdr) + MDEVX_ST_SZ_BYTES(query_flow_counter_out) + \
		   MDEVX_ST_SZ_BYTES(traffic_counter))

struct shm {
	uint8_t attrs[32];
	uint32_t base;
	int cmd_fd;
	int go[2];
	atomic_ullong ns[NPROC];
	atomic_uint errors;
};

static struct shm *sh;
static long iters = 20000;
static int proc_idx;

static int
echo_helper(void *arg)
{
	int fd = *(int *)arg;
	uint8_t req[REQ_BYTES], rep[REP_BYTES];

	memset(rep, 0, sizeof(rep));
	for (;;) {
		if (swdev_proto_read_all(fd, req, sizeof(req)) != 0)
			return 0;
		if (swdev_proto_write_all(fd, rep, sizeof(rep)) != 0)
			return 0;
	}
}

/* One bare ping-pong client over a fresh socketpair. Mean ns per round trip. */
static double
bare_pingpong(void)
{
	uint8_t req[REQ_BYTES], rep[REP_BYTES];
	uint64_t t0, t1;
	int sv[2];
	pid_t pid;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	pid = mp_fork(echo_helper, &sv[1]);
	close(sv[1]);
	memset(req, 1, sizeof(req));
	for (i = 0; i < iters / 10; i++) {	/* warm-up */
		swdev_proto_write_all(sv[0], req, sizeof(req));
		swdev_proto_read_all(sv[0], rep, sizeof(rep));
	}
	t0 = mp_now_ns();
	for (i = 0; i < iters; i++) {
		if (swdev_proto_write_all(sv[0], req, sizeof(req)) != 0 ||
		    swdev_proto_read_all(sv[0], rep, sizeof(rep)) != 0)
			atomic_fetch_add(&sh->errors, 1);
	}
	t1 = mp_now_ns();
	close(sv[0]);
	mp_wait(pid, 10);
	return (double)(t1 - t0) / (double)iters;
}

static int
bare_worker(void *arg)
{
	char c;

	(void)arg;
	if (read(sh->go[0], &c, 1) != 1)
		return 1;
	atomic_store(&sh->ns[proc_idx], (unsigned long long)bare_pingpong());
	return 0;
}

static double
swdev_loop(struct swdev_obj *obj)
{
	uint64_t t0, t1, pk;
	long i;

	for (i = 0; i < iters / 10; i++)
		mp_counter_query(obj, sh->base, false, &pk, NULL, NULL, NULL);
	t0 = mp_now_ns();
	for (i = 0; i < iters; i++)
		if (mp_counter_query(obj, sh->base, false, &pk, NULL, NULL, NULL) != 0)
			atomic_fetch_add(&sh->errors, 1);
	t1 = mp_now_ns();
	return (double)(t1 - t0) / (double)iters;
}

static int
swdev_worker(void *arg)
{
	struct swdev_ctx *ctx;
	struct swdev_obj *obj;
	char c;

	(void)arg;
	ctx = swdev_import_device(dup(sh->cmd_fd));
	if (ctx == NULL)
		return 1;
	obj = swdev_obj_import(ctx, sh->attrs);
	if (read(sh->go[0], &c, 1) != 1)
		return 1;
	atomic_store(&sh->ns[proc_idx], (unsigned long long)swdev_loop(obj));
	swdev_obj_unimport(obj);
	swdev_close(ctx);
	return 0;
}

/* Run NPROC workers released together; mean of their ns per round trip. */
static double
run_parallel(int (*fn)(void *))
{
	pid_t pids[NPROC];
	double sum = 0;
	int i;

	if (pipe(sh->go) < 0)
		return -1;
	for (i = 0; i < NPROC; i++) {
		proc_idx = i;
		atomic_store(&sh->ns[i], 0);
		pids[i] = mp_fork(fn, NULL);
	}
	usleep(100000);
	for (i = 0; i < NPROC; i++)
		if (write(sh->go[1], "g", 1) != 1)
			atomic_fetch_add(&sh->errors, 1);
	for (i = 0; i < NPROC; i++) {
		if (!mp_exited_ok(mp_wait(pids[i], 600)))
			atomic_fetch_add(&sh->errors, 1);
		sum += (double)atomic_load(&sh->ns[i]);
	}
	close(sh->go[0]);
	close(sh->go[1]);
	return sum / NPROC;
}

/* ---- (e) and (f): the rdma-core leg, in a process under the launcher ---- */

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Mean ns of @p n QUERY_FLOW_COUNTER of counter @p id through libmlx5, or -1. */
static double
devx_loop(struct mlx5dv_devx_obj *obj, uint32_t id, long n)
{
	uint32_t in[MDEVX_ST_SZ_DW(query_flow_counter_in)] = { 0 };
	uint32_t out[MDEVX_ST_SZ_DW(query_flow_counter_out) +
		     MDEVX_ST_SZ_DW(traffic_counter)] = { 0 };
	uint64_t t0 = mp_now_ns();

	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, id);
	for (long i = 0; i < n; i++)
		if (mlx5dv_devx_obj_query(obj, in, sizeof(in), out, sizeof(out)) != 0)
			return -1;
	return (double)(mp_now_ns() - t0) / (double)n;
}

/*
 * The leg itself: the first mlx5 device rdma-core lists, opened with DEVX;
 * a counter of its own; ROUNDS rounds of (bare ping-pong, DEVX queries).
 * Prints "rdma-leg: bare_ns=<median> devx_ns=<median>" or an error line.
 */
static int
rdma_leg(long n)
{
	uint32_t in[MDEVX_ST_SZ_DW(alloc_flow_counter_in)] = { 0 };
	uint32_t out[MDEVX_ST_SZ_DW(alloc_flow_counter_out)] = { 0 };
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct mlx5dv_devx_obj *obj;
	double bare[ROUNDS], devx[ROUNDS];
	uint32_t id;
	int nb = 0;

	iters = n;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	list = ibv_get_device_list(&nb);
	if (sh != MAP_FAILED && list != NULL && nb > 0)
		ctx = mlx5dv_open_device(list[0], &attr);
	if (list != NULL)
		ibv_free_device_list(list);
	if (ctx == NULL) {
		printf("rdma-leg: no mlx5 device opened with DEVX (%d listed): %s\n", nb,
		       strerror(errno));
		return 1;
	}
	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (obj == NULL) {
		printf("rdma-leg: ALLOC_FLOW_COUNTER: %s\n", strerror(errno));
		ibv_close_device(ctx);
		return 1;
	}
	id = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	if (devx_loop(obj, id, n / 10 + 1) < 0) {	/* warm-up */
		printf("rdma-leg: QUERY_FLOW_COUNTER: %s\n", strerror(errno));
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		bare[r] = bare_pingpong();
		devx[r] = devx_loop(obj, id, n);
		if (bare[r] < 0 || devx[r] < 0 || atomic_load(&sh->errors) != 0) {
			printf("rdma-leg: round %d failed: %s\n", r, strerror(errno));
			return 1;
		}
	}
	mlx5dv_devx_obj_destroy(obj);
	ibv_close_device(ctx);
	printf("rdma-leg: bare_ns=%.1f devx_ns=%.1f\n", median(bare, ROUNDS),
	       median(devx, ROUNDS));
	return 0;
}

/*
 * Run the leg under `<daemon> run --socket <sock>`: what it printed in
 * @p bare_ns and @p devx_ns. 0, or -1 after saying why.
 */
static int
run_rdma_leg(double *bare_ns, double *devx_ns)
{
	char self[512], buf[256], iters_arg[24];
	ssize_t n;
	size_t len = 0;
	int pfd[2], st;
	pid_t pid;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || pipe(pfd) < 0)
		return -1;
	self[n] = '\0';
	snprintf(iters_arg, sizeof(iters_arg), "%ld", iters);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execl(mp_daemon_bin, mp_daemon_bin, "run", "--socket", mp_sock, "--", self,
		      "--rdma-leg", iters_arg, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len < sizeof(buf) - 1 && (n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    sscanf(buf, "rdma-leg: bare_ns=%lf devx_ns=%lf", bare_ns, devx_ns) != 2) {
		printf("the rdma-core leg failed (status %#x): %s", st, buf);
		return -1;
	}
	return 0;
}

static void
line(const char *name, double ns, double ref, const char *note)
{
	printf("%-40s %10.2f us/round-trip  x%-6.2f %s\n", name, ns / 1000.0, ns / ref, note);
}

int
main(int argc, char **argv)
{
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *ctr;
	double a, b, c, d;
	char note[96];
	int err;

	if (argc == 3 && strcmp(argv[1], "--rdma-leg") == 0)
		return rdma_leg(atol(argv[2]) > 0 ? atol(argv[2]) : iters);
	mp_init(argc, argv, "bench");
	if (argc > 2)
		iters = atol(argv[2]) > 0 ? atol(argv[2]) : iters;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(0, "setup");
		return mp_finish();
	}
	ctl = swdev_ctl_open(mp_sock);
	ctx = swdev_open(mp_sock, MP_DEV);
	if (ctl == NULL || ctx == NULL) {
		CHECK(0, "open: %s", strerror(errno));
		return mp_finish();
	}
	ctr = mp_counter_alloc(ctx, 1, &sh->base, &err);
	if (ctr == NULL) {
		CHECK(0, "counter: %s", strerror(err));
		return mp_finish();
	}
	swdev_ctl_inject_traffic(ctl, MP_DEV, sh->base, 1, 64);
	swdev_obj_export(ctr, sh->attrs);
	sh->cmd_fd = swdev_cmd_fd(ctx);

	printf("swdev-bench: %ld round trips per client, request %zu B, reply %zu B, %ld CPUs\n",
	       iters, REQ_BYTES, REP_BYTES, sysconf(_SC_NPROCESSORS_ONLN));
	a = bare_pingpong();
	b = swdev_loop(ctr);
	c = run_parallel(swdev_worker);
	d = run_parallel(bare_worker);
	line("(a) bare unix ping-pong, 1 pair", a, a, "");
	line("(b) swdev QUERY_FLOW_COUNTER, 1 client", b, a, "");
	snprintf(note, sizeof(note), "aggregate %.0f commands/s", NPROC * 1e9 / c);
	line("(c) swdev query, 4 procs, 1 file", c, a, note);
	snprintf(note, sizeof(note), "aggregate %.0f round trips/s", NPROC * 1e9 / d);
	line("(d) bare ping-pong, 4 pairs at once", d, a, note);
	{
		double e, f;

		int leg = run_rdma_leg(&e, &f);

		CHECK(leg == 0, "the rdma-core leg");
		if (leg == 0) {
			printf("under mlx5-swdev run, medians of %d alternating rounds:\n",
			       ROUNDS);
			line("(e) bare unix ping-pong, 1 pair", e, a, "");
			snprintf(note, sizeof(note), "(f)/(e) = %.2f  (target <= 1.5)", f / e);
			line("(f) QUERY_FLOW_COUNTER via libmlx5", f, a, note);
		}
	}
	CHECK(atomic_load(&sh->errors) == 0, "%u errors during the runs",
	      atomic_load(&sh->errors));
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
	swdev_ctl_close(ctl);
	return mp_finish();
}

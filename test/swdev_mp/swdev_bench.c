/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * swdev-bench: command round trip of the software device next to a bare
 * Unix-socket ping-pong of the same message sizes, measured in the same
 * run. No timed assertion: it prints, side by side,
 *   (a) bare ping-pong to a helper process over a stream socketpair,
 *   (b) QUERY_FLOW_COUNTER through swdev_obj_query, one client,
 *   (c) the same from 4 processes sharing one uverbs file,
 *   (d) 4 bare ping-pong pairs at once (the fair reference for (c)),
 * each as: name, value, unit, ratio to (a).
 *
 * Usage: swdev-bench <mlx5-swdev path> [round trips per client]
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "swdev_proto.h"

#define NPROC 4

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
	CHECK(atomic_load(&sh->errors) == 0, "%u errors during the runs",
	      atomic_load(&sh->errors));
	swdev_obj_destroy(ctr);
	swdev_close(ctx);
	swdev_ctl_close(ctl);
	return mp_finish();
}

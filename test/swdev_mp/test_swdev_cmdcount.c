/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The count of commands a device ran, per opcode, over the control socket
 * (CMD_COUNT): processes with files of their own send known numbers of
 * commands at the same time, some failing in the firmware (past the bulk,
 * injected faults), some refused by the kernel; the counts move by exactly
 * the commands that reached the firmware, on that device only, and the
 * destroys the kernel runs when a file closes are counted. Client
 * argument checks, the mlx5-swdev --ctl cmd-count command, and who may
 * read the counts without --test-mode.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"

#define DEV2 "mlx5_1"
#define NPROC 3
#define QUERIES 40u	/* queries of worker i: QUERIES * (i + 1) */

static const uint16_t watched[] = {
	MDEVX_CMD_OP_QUERY_FLOW_COUNTER, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER,
	MDEVX_CMD_OP_DEALLOC_FLOW_COUNTER, MDEVX_CMD_OP_NOP, MDEVX_CMD_OP_DESTROY_TIR,
	MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
	MDEVX_CMD_OP_QUERY_HCA_CAP,
};
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

static struct swdev_ctl *ctl;
static int go[2];
static int worker_idx;

static uint64_t
count_of(const char *dev, uint16_t opcode)
{
	uint64_t n = UINT64_MAX;
	int err = swdev_ctl_get_cmd_count(ctl, dev, opcode, &n);

	CHECK(err == 0, "cmd count %s 0x%x: %s", dev, opcode, strerror(err));
	return n;
}

static void
snapshot(const char *dev, uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < NWATCHED; i++)
		v[i] = count_of(dev, watched[i]);
}

static int
general(struct swdev_ctx *ctx, uint16_t opcode)
{
	uint8_t in[16] = { 0 }, out[16];

	MDEVX_SET(mbox_in, in, opcode, opcode);
	return swdev_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
}

/* QUERY_FLOW_COUNTER of @p num counters from @p first: 0 or errno, *status. */
static int
query_range(struct swdev_obj *cnt, uint32_t first, uint32_t num, uint8_t *status)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
		    2 * MDEVX_ST_SZ_BYTES(traffic_counter)];
	int err;

	memset(out, 0, sizeof(out));
	MDEVX_SET(query_flow_counter_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, in, flow_counter_id, first);
	MDEVX_SET(query_flow_counter_in, in, num_of_counters, num);
	err = swdev_obj_query(cnt, in, sizeof(in), out, sizeof(out));
	*status = (uint8_t)MDEVX_GET(query_flow_counter_out, out, status);
	return err;
}

/* Worker @p worker_idx: its own file, counter bulk, queries; exits with the file open. */
static int
worker(void *arg)
{
	uint32_t base = 0, i, n = QUERIES * (uint32_t)(worker_idx + 1);
	struct swdev_obj *cnt;
	struct swdev_ctx *ctx;
	uint8_t status = 0;
	int err, bad = 0;
	char c;

	(void)arg;
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "worker %d open: %s", worker_idx, strerror(errno));
	if (ctx == NULL)
		return 1;
	cnt = mp_counter_alloc(ctx, 1, &base, &err);
	CHECK(cnt != NULL, "worker %d counter: %s", worker_idx, strerror(err));
	if (cnt == NULL || read(go[0], &c, 1) != 1)
		return 1;
	for (i = 0; i < n; i++)
		if (mp_counter_query(cnt, base + i % 128, false, NULL, NULL, NULL, NULL) != 0)
			bad++;
	CHECK(bad == 0, "worker %d: %d of %u queries failed", worker_idx, bad, n);
	/* the last counter and one past the bulk: the firmware fails it, counted */
	err = query_range(cnt, base + 127, 2, &status);
	CHECK(err == EREMOTEIO && status == MDEVX_CMD_STAT_BAD_PARAM_ERR,
	      "worker %d query past the bulk: %s, status 0x%x", worker_idx, strerror(err),
	      status);
	/* the first id outside the bulk: refused by the kernel, not counted */
	err = query_range(cnt, base + 128, 1, &status);
	CHECK(err == EINVAL, "worker %d query outside the bulk: %s", worker_idx, strerror(err));
	/* refused by the kernel (a destroy opcode as a general command): not counted */
	err = general(ctx, MDEVX_CMD_OP_DESTROY_TIR);
	CHECK(err == EINVAL, "worker %d DESTROY_TIR refused: %s", worker_idx, strerror(err));
	err = general(ctx, MDEVX_CMD_OP_NOP);
	CHECK(err == 0, "worker %d NOP: %s", worker_idx, strerror(err));
	/* exit without destroying: the kernel's cleanup of the file destroys the bulk */
	return 0;
}

static void
test_workers(void)
{
	uint64_t before[NWATCHED], after[NWATCHED], other0[NWATCHED], other1[NWATCHED];
	uint64_t queries = 0;
	pid_t pid[NPROC];
	uint32_t got = 0;
	int i, st;

	printf("== %d processes, their commands counted exactly\n", NPROC);
	snapshot(MP_DEV, before);
	snapshot(DEV2, other0);
	if (pipe(go) != 0) {
		CHECK(0, "pipe: %s", strerror(errno));
		return;
	}
	for (i = 0; i < NPROC; i++) {
		worker_idx = i;
		pid[i] = mp_fork(worker, NULL);
		queries += QUERIES * (uint64_t)(i + 1) + 1;
	}
	/* all at once: the daemon serves them interleaved */
	for (i = 0; i < NPROC; i++)
		CHECK(write(go[1], "g", 1) == 1, "start %d", i);
	for (i = 0; i < NPROC; i++) {
		st = mp_wait(pid[i], 60);
		CHECK(mp_exited_ok(st), "worker %d: status %#x", i, st);
	}
	close(go[0]);
	close(go[1]);
	CHECK(mp_wait_files(ctl, 0, &got) == 0, "the workers' files are closed (%u)", got);
	snapshot(MP_DEV, after);
	snapshot(DEV2, other1);
	CHECK(after[0] - before[0] == queries, "QUERY_FLOW_COUNTER: %" PRIu64 " (want %" PRIu64
	      ")", after[0] - before[0], queries);
	CHECK(after[1] - before[1] == NPROC, "ALLOC_FLOW_COUNTER: %" PRIu64,
	      after[1] - before[1]);
	CHECK(after[2] - before[2] == NPROC, "DEALLOC_FLOW_COUNTER at close: %" PRIu64,
	      after[2] - before[2]);
	CHECK(after[3] - before[3] == NPROC, "NOP: %" PRIu64, after[3] - before[3]);
	CHECK(after[4] == before[4], "refused DESTROY_TIR not counted: %" PRIu64, after[4]);
	CHECK(memcmp(other0, other1, sizeof(other0)) == 0, "the other device's counts unchanged");
	CHECK(other1[0] == 0 && other1[1] == 0, "the other device ran no counter command");
}

static void
test_faults(void)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_transport_domain_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_transport_domain_out)];
	uint64_t a0, d0, a1, d1, q0, q1;
	struct swdev_obj *td = NULL;
	struct swdev_ctx *ctx;
	int i, err, fails = 0;

	printf("== failures injected in the firmware are commands run\n");
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open: %s", strerror(errno));
	if (ctx == NULL)
		return;
	a0 = count_of(MP_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	d0 = count_of(MP_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
	q0 = count_of(MP_DEV, MDEVX_CMD_OP_QUERY_HCA_CAP);
	err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 2,
				  MDEVX_CMD_STAT_NO_RES_ERR, 0x42, 0);
	CHECK(err == 0, "fault: %s", strerror(err));
	MDEVX_SET(alloc_transport_domain_in, in, opcode, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	for (i = 0; i < 3; i++) {
		td = swdev_obj_create(ctx, in, sizeof(in), out, sizeof(out));
		if (td == NULL)
			fails++;
	}
	CHECK(fails == 2 && td != NULL, "two faults, then a TD: %d", fails);
	a1 = count_of(MP_DEV, MDEVX_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	CHECK(a1 - a0 == 3, "ALLOC_TRANSPORT_DOMAIN: %" PRIu64, a1 - a0);
	err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 1,
				  MDEVX_CMD_STAT_INT_ERR, 0x43, 0);
	CHECK(err == 0, "fault: %s", strerror(err));
	CHECK(td != NULL && swdev_obj_destroy(td) != 0, "destroy fails once");
	CHECK(td != NULL && swdev_obj_destroy(td) == 0, "then succeeds");
	d1 = count_of(MP_DEV, MDEVX_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
	CHECK(d1 - d0 == 2, "DEALLOC_TRANSPORT_DOMAIN: %" PRIu64, d1 - d0);
	/* a kernel refusal: QUERY_HCA_CAP with a 15-byte input */
	{
		uint8_t cin[16] = { 0 }, cout[16];

		MDEVX_SET(mbox_in, cin, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
		err = swdev_general_cmd(ctx, cin, 15, cout, sizeof(cout));
		CHECK(err == EINVAL, "short QUERY_HCA_CAP: %s", strerror(err));
	}
	q1 = count_of(MP_DEV, MDEVX_CMD_OP_QUERY_HCA_CAP);
	CHECK(q1 == q0, "QUERY_HCA_CAP refused by the kernel: not counted");
	swdev_close(ctx);
}

static void
test_client_checks(void)
{
	char longname[64];
	uint64_t n = 7;
	int err;

	printf("== client and daemon checks\n");
	err = swdev_ctl_get_cmd_count(ctl, MP_DEV, MDEVX_CMD_OP_NOP, NULL);
	CHECK(err == EINVAL, "NULL count: %s", strerror(err));
	err = swdev_ctl_get_cmd_count(NULL, MP_DEV, MDEVX_CMD_OP_NOP, &n);
	CHECK(err == EINVAL, "NULL control: %s", strerror(err));
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	err = swdev_ctl_get_cmd_count(ctl, longname, MDEVX_CMD_OP_NOP, &n);
	CHECK(err == EINVAL, "name too long: %s", strerror(err));
	err = swdev_ctl_get_cmd_count(ctl, "nope", MDEVX_CMD_OP_NOP, &n);
	CHECK(err == ENODEV && n == 7, "unknown device: %s", strerror(err));
	n = 7;
	err = swdev_ctl_get_cmd_count(ctl, MP_DEV, 0xfedc, &n);
	CHECK(err == 0 && n == 0, "an opcode never sent: %s, %" PRIu64, strerror(err), n);
	CHECK(swdev_ctl_ping(ctl) == 0, "the control connection still works");
}


static void
test_cli(void)
{
	uint64_t q = count_of(MP_DEV, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	static char out[8192];
	char want[256];
	int st;

	printf("== mlx5-swdev --ctl cmd-count\n");
	snprintf(want, sizeof(want), "opcode=0x%04x\nname=QUERY_FLOW_COUNTER\ncount=%" PRIu64
		 "\n", MDEVX_CMD_OP_QUERY_FLOW_COUNTER, q);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", MP_DEV,
					    "QUERY_FLOW_COUNTER", NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strcmp(out, want) == 0, "by name: %s", out);
	snprintf(want + 200, 16, "%#x", MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", MP_DEV, want + 200,
					    NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "name=QUERY_FLOW_COUNTER\n") != NULL,
	      "by number: %s", out);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", DEV2, "0x939",
					    NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "count=0\n") != NULL, "other device: %s", out);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", MP_DEV, "0x10000",
					    NULL }, out, sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2 && out[0] == '\0',
	      "opcode past 16 bits: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", MP_DEV, "FROB",
					    NULL }, out, sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "unknown name: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", MP_DEV, NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "missing opcode: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "cmd-count", "nope", "0x939",
					    NULL }, out, sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && out[0] == '\0',
	      "unknown device: exit 1 %#x", st);
	st = mp_run_cli((const char *const[]){ "--help", NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "cmd-count DEV OPCODE") != NULL,
	      "--help names cmd-count");
}

/* Who may read the counts outside --test-mode: the daemon's uid only. */
static uid_t other_uid;
static gid_t other_gid;
static char sock2[128];

static int
other_reader(void *arg)
{
	struct swdev_ctl *c;
	uint64_t n = 0;
	int err, want = *(const int *)arg;

	err = mp_become(other_uid, other_gid);
	CHECK(err == 0, "became nobody: %s", strerror(err));
	if (err != 0)
		return 1;
	c = swdev_ctl_open(sock2);
	CHECK(c != NULL, "control as nobody: %s", strerror(errno));
	if (c == NULL)
		return 1;
	err = swdev_ctl_get_cmd_count(c, MP_DEV, MDEVX_CMD_OP_NOP, &n);
	CHECK(err == want, "cmd count as nobody: %s (want %s)", strerror(err), strerror(want));
	swdev_ctl_close(c);
	return 0;
}

static void
test_permissions(void)
{
	static const char *const allow[] = { "--group", "nogroup", "--allow-uid", "nobody", NULL };
	struct passwd *pw = getpwnam("nobody");
	struct group *gr = getgrnam("nogroup");
	struct swdev_ctl *c;
	uint64_t n = 1;
	int pass, want, err, st;
	pid_t d;

	printf("== who may read the counts\n");
	if (geteuid() != 0 || pw == NULL || gr == NULL) {
		printf("SKIP: the checks with another user need root, user nobody and group "
		       "nogroup\n");
		return;
	}
	other_uid = pw->pw_uid;
	other_gid = gr->gr_gid;
	snprintf(sock2, sizeof(sock2), "%s.2", mp_sock);
	for (pass = 0; pass < 2; pass++) {
		mp_daemon_test_mode = pass == 1;
		d = mp_daemon_start(sock2, allow);
		mp_daemon_test_mode = true;
		CHECK(d > 0, "daemon %s --test-mode", pass ? "with" : "without");
		if (d <= 0)
			return;
		c = swdev_ctl_open(sock2);
		err = c == NULL ? errno : swdev_ctl_get_cmd_count(c, MP_DEV, MDEVX_CMD_OP_NOP, &n);
		CHECK(err == 0 && n == 0, "the daemon's uid reads the counts: %s", strerror(err));
		swdev_ctl_close(c);
		want = pass == 0 ? EPERM : 0;
		st = mp_wait(mp_fork(other_reader, &want), 30);
		CHECK(mp_exited_ok(st), "reader as nobody: %#x", st);
		st = mp_daemon_stop(d);
		CHECK(mp_exited_ok(st), "daemon exits 0: %#x", st);
	}
}

int
main(int argc, char **argv)
{
	static const char *const devs[] = { "--device", MP_DEV, "--device", DEV2, NULL };
	pid_t d;

	mp_init(argc, argv, "cmdcount");
	d = mp_daemon_start(mp_sock, devs);
	CHECK(d > 0, "daemon");
	if (d <= 0)
		return mp_finish();
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "control: %s", strerror(errno));
	if (ctl == NULL)
		return mp_finish();
	test_workers();
	test_faults();
	test_client_checks();
	test_cli();
	test_permissions();
	swdev_ctl_close(ctl);
	return mp_finish();
}

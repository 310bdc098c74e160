/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-attach-server: serve a device opened with libmdevx to testpmd's
 * `mlx5 port attach <ident> socket=<path>` (libmdevx_attach). The program
 * allocates one PD on the device; every client receives a duplicate of the
 * device's command fd and that PD's handle. No EAL: the libraries only log
 * through rte_log, to stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include <mdevx.h>
#include <mdevx_attach.h>

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s --device DEVSTR --socket PATH [options]\n"
		"Serve DEVSTR to testpmd's `mlx5 port attach <ident> socket=PATH`: each\n"
		"client receives a duplicate of the device's command fd (SCM_RIGHTS) and\n"
		"the handle of a PD this program allocates, which testpmd turns into the\n"
		"devargs cmd_fd=<fd>,pd_handle=<handle> of net/mlx5.\n"
		"  -d, --device DEVSTR    rdma:<ibdev> (software device: run under `mlx5-swdev run`)\n"
		"  -s, --socket PATH      socket to listen on (must not exist; removed at exit)\n"
		"  -m, --mode OCTAL       permissions of the socket file (default 0600); a\n"
		"                         group or other write bit needs --allow-other-users\n"
		"  -a, --allow-other-users\n"
		"                         serve clients of any uid that reach the socket\n"
		"                         (each gets the device's command fd); default: the\n"
		"                         program's own uid only\n"
		"  -n, --count N          exit after serving N clients (default: until\n"
		"                         SIGINT or SIGTERM)\n"
		"  -t, --timeout-ms MS    time a client has to send its request (default 1000)\n"
		"  -v, --verbose          debug logs of libmdevx and libmdevx_attach\n"
		"  -h, --help             this text\n"
		"Once listening it prints one line: the device, the socket, pd_handle, pdn\n"
		"and the command file (what /proc/<pid>/fd/<n> shows for the command fd);\n"
		"at exit the counts of served and refused connections.\n"
		"Exit: 0 stopped or done, 1 failure, 2 usage.\n", prog);
}

static int
parse_uint(const char *s, int base, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, base);
	return errno != 0 || end == s || *end != '\0' || s[0] == '-' || *v > max ? -1 : 0;
}

/* What /proc/self/fd/<fd> names: "socket:[N]" or "/dev/infiniband/uverbsN". */
static void
fd_target(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		snprintf(buf, len, "unknown");
	else
		buf[n] = '\0';
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "allow-other-users", no_argument, NULL, 'a' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdevx_attach_conf conf = { 0 };
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	const char *devstr = NULL;
	struct mdevx_attach_server *srv;
	struct mdevx_attach_stats st;
	struct mdevx_obj_info info;
	unsigned long v, count = 0;
	struct mdevx_ctx *ctx;
	struct mdevx_obj *pd;
	char target[PATH_MAX];
	int c, sig, rc = 0;
	sigset_t set;

	while ((c = getopt_long(argc, argv, "d:s:m:an:t:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devstr = optarg;
			break;
		case 's':
			conf.path = optarg;
			break;
		case 'm':
			if (parse_uint(optarg, 8, 0777, &v) != 0 || v == 0) {
				fprintf(stderr, "--mode: an octal mode from 1 to 0777\n");
				return 2;
			}
			conf.mode = (uint32_t)v;
			break;
		case 'a':
			conf.flags |= MDEVX_ATTACH_F_ALLOW_OTHER_USERS;
			break;
		case 'n':
			if (parse_uint(optarg, 10, ULONG_MAX, &count) != 0 || count == 0) {
				fprintf(stderr, "--count: a number above 0\n");
				return 2;
			}
			break;
		case 't':
			if (parse_uint(optarg, 10, INT32_MAX, &v) != 0 || v == 0) {
				fprintf(stderr, "--timeout-ms: a number of ms above 0\n");
				return 2;
			}
			conf.request_timeout_ms = (uint32_t)v;
			break;
		case 'v':
			rte_log_set_level_pattern("pmd.common.mdevx*", RTE_LOG_DEBUG);
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc || devstr == NULL || conf.path == NULL) {
		usage(stderr, argv[0]);
		return 2;
	}

	/* Signals are taken by this thread only: the server's inherits the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	ctx = mdevx_open(devstr);
	if (ctx == NULL) {
		fprintf(stderr, "cannot open %s: %s\n", devstr, strerror(errno));
		return 1;
	}
	pd = mdevx_pd_alloc(ctx);
	if (pd == NULL || mdevx_obj_info(pd, &info) != 0) {
		fprintf(stderr, "no PD on %s: %s\n", devstr, strerror(errno));
		mdevx_close(ctx);
		return 1;
	}
	srv = mdevx_attach_server_start(ctx, pd, &conf);
	if (srv == NULL) {
		fprintf(stderr, "cannot serve on %s: %s%s\n", conf.path, strerror(errno),
			errno == EPERM ? " (the mode lets other users in: --allow-other-users)" :
			"");
		mdevx_obj_destroy(pd);
		mdevx_close(ctx);
		return 1;
	}
	fd_target(mdevx_cmd_fd(ctx), target, sizeof(target));
	printf("serving %s on %s: pd_handle=%u pdn=%#x command file=%s\n", devstr, conf.path,
	       mdevx_attach_server_pd_handle(srv), info.id, target);
	fflush(stdout);

	for (;;) {
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig > 0)
			break;
		if (count != 0 && mdevx_attach_server_stats(srv, &st) == 0 && st.served >= count)
			break;
	}
	mdevx_attach_server_stats(srv, &st);
	mdevx_attach_server_stop(srv);
	printf("served %" PRIu64 ", bad requests %" PRIu64 ", timeouts %" PRIu64
	       ", hangups %" PRIu64 ", errors %" PRIu64 "\n",
	       st.served, st.bad_requests, st.timeouts, st.hangups, st.errors);
	if (mdevx_obj_destroy(pd) != 0) {
		fprintf(stderr, "destroying the PD: %s\n", strerror(errno));
		rc = 1;
	}
	if (mdevx_close(ctx) != 0) {
		fprintf(stderr, "closing %s: %s\n", devstr, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the options: the --help text, the option table and
 * its parsing, and the check of the input before EAL starts (what
 * --check-options does).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <mdevx_share.h>

#include "demo.h"

/* Option ranges: the demo's, devtools/demo.sh's and the option test's table. */
#define DURATION_MAX 600000	/* 10 minutes */
#define PERIOD_MAX 60000
#define HOLD_MAX 3600000	/* 1 hour */
#define DEVICE_MAX 31		/* the software device's name length */

void
demo_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "       %s --check-options [options]\n"
	       "\n"
	       "Share mlx5 flow counters and TIRs between DPDK processes on the\n"
	       "software device ($SWDEV_SOCKET) as rdma-core sees it (rdma:NAME, under\n"
	       "`mlx5-swdev run`), steer packets through them and print what every\n"
	       "process saw.\n"
	       "\n"
	       "Options (--name VALUE or --name=VALUE, integers in decimal):\n"
	       "  --secondaries N   secondary processes to start (1..%d, default 3)\n"
	       "  --bulks N         counter bulks of %d counters (1..%d, default 4)\n"
	       "  --duration MS     counter injection phase in milliseconds (0..%d,\n"
	       "                    default 2000)\n"
	       "  --pcap FILE       steering phase: secondary i installs a rule for UDP\n"
	       "                    port %d+i (even i: RSS TIR, odd i: direct TIR)\n"
	       "                    counting at offset 0 of rule-counter-i, a counter the\n"
	       "                    primary publishes for it (what a NIC with any rdma-core\n"
	       "                    can do); FILE is\n"
	       "                    replayed into the port and every counter, RQ and\n"
	       "                    port number is checked against what the file says.\n"
	       "                    IPv4/UDP or IPv6/UDP to a direct port, IPv4/UDP only\n"
	       "                    to an RSS port. Without it: no steering phase.\n"
	       "  --device NAME     software device name (1..%d characters of A-Z a-z 0-9\n"
	       "                    _ . -, default mlx5_0)\n"
	       "  --counter-period MS  period of the library's counter snapshot service\n"
	       "                    (0..%d, default %d; 0: off)\n"
	       "  --hold MS         after the counter phase, print what was injected into\n"
	       "                    each bulk and wait MS milliseconds (0..%d, SIGINT ends\n"
	       "                    the wait), so that mlx5-share-info can look at the primary\n"
	       "  --help            this text\n"
	       "\n"
	       "--check-options validates the options (and reads the --pcap file) without\n"
	       "starting anything: exit 0 if they are valid, 2 if not.\n"
	       "Exit status: 0 demo OK, 1 a check failed, 2 invalid options or input.\n"
	       "\n"
	       "Run it with devtools/run-demo.sh, which starts the software device,\n"
	       "writes a pcap for the rules with test/steer/gen_steer_pcap.py and\n"
	       "gives EAL --no-pci and a --file-prefix of its own.\n",
	       prog, prog, MAX_SECONDARIES, BULK_SIZE, MAX_BULKS, DURATION_MAX, RULE_PORT_BASE,
	       DEVICE_MAX, PERIOD_MAX, MDEVX_SHARE_COUNTER_PERIOD_DEFAULT,
	       HOLD_MAX);
}

/* An input error: one line naming the option, exit status 2. */
static int
opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
opt_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mlx5-share-demo: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	return -EINVAL;
}

/* A decimal integer in min..max: no sign, no blank, nothing after it. */
static int
parse_uint(const char *opt, const char *arg, unsigned long min, unsigned long max,
	   const char *unit, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		goto bad;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		goto bad;
	*out = (unsigned int)v;
	return 0;
bad:
	return opt_error("--%s: \"%s\" is not an integer in %lu..%lu%s%s", opt, arg, min, max,
			 unit[0] != '\0' ? " " : "", unit);
}

static int
parse_device(const char *arg)
{
	size_t n = strlen(arg);

	for (size_t i = 0; i < n && n <= DEVICE_MAX; i++) {
		char c = arg[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			n = 0;
	}
	if (n == 0 || n > DEVICE_MAX)
		return opt_error("--device: \"%s\" is not a name of 1..%d characters of "
				 "A-Z a-z 0-9 _ . -", arg, DEVICE_MAX);
	return 0;
}

/*
 * The options after EAL's (or after --check-options): --name VALUE or
 * --name=VALUE, exact names only. 0, or -EINVAL with one line on stderr.
 */
static int
parse_opts(int argc, char **argv, struct demo_opts *o)
{
	static const char *const names[] = {
		"secondaries", "bulks", "duration", "device", "pcap", "counter-period", "hold",
		"reader", "sync-fds",
	};
	unsigned int v;
	int rc = 0;

	o->secondaries = 3;
	o->bulks = 4;
	o->duration_ms = 2000;
	o->device = "mlx5_0";
	o->pcap = NULL;
	o->counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_DEFAULT;
	o->hold_ms = 0;
	o->reader_id = -1;
	o->sync_fd[0] = o->sync_fd[1] = -1;
	for (int i = 0; i < argc && rc == 0; i++) {
		const char *arg = argv[i], *eq, *val;
		char name[32];
		size_t len;
		size_t k;

		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
			return opt_error("unexpected argument \"%s\"", arg);
		eq = strchr(arg, '=');
		len = eq != NULL ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, arg + 2, len);
		name[len] = '\0';
		for (k = 0; k < RTE_DIM(names) && strcmp(names[k], name) != 0; k++)
			;
		if (k == RTE_DIM(names))
			return opt_error("unknown option \"%s\"", arg);
		if (eq != NULL) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return opt_error("--%s needs a value", name);
		}
		if (strcmp(name, "secondaries") == 0) {
			rc = parse_uint(name, val, 1, MAX_SECONDARIES, "", &o->secondaries);
		} else if (strcmp(name, "bulks") == 0) {
			rc = parse_uint(name, val, 1, MAX_BULKS, "", &o->bulks);
		} else if (strcmp(name, "duration") == 0) {
			rc = parse_uint(name, val, 0, DURATION_MAX, "ms", &o->duration_ms);
		} else if (strcmp(name, "counter-period") == 0) {
			rc = parse_uint(name, val, 0, PERIOD_MAX, "ms", &o->counter_period_ms);
		} else if (strcmp(name, "hold") == 0) {
			rc = parse_uint(name, val, 0, HOLD_MAX, "ms", &o->hold_ms);
		} else if (strcmp(name, "reader") == 0) {
			rc = parse_uint(name, val, 0, MAX_SECONDARIES - 1, "", &v);
			o->reader_id = (int)v;
		} else if (strcmp(name, "sync-fds") == 0) {
			/* Internal (the primary gives its secondaries): IN,OUT. */
			char *end;
			long in, out;

			errno = 0;
			in = strtol(val, &end, 10);
			out = *end == ',' ? strtol(end + 1, &end, 10) : -1;
			if (errno != 0 || *end != '\0' || val[0] < '0' || val[0] > '9' ||
			    in < 3 || in > INT_MAX || out < 3 || out > INT_MAX || in == out)
				return opt_error("--sync-fds: \"%s\" is not two descriptors IN,OUT",
						 val);
			o->sync_fd[0] = (int)in;
			o->sync_fd[1] = (int)out;
		} else if (strcmp(name, "device") == 0) {
			rc = parse_device(val);
			o->device = val;
		} else {
			if (val[0] == '\0')
				return opt_error("--pcap: empty file name");
			o->pcap = val;
		}
	}
	return rc;
}

/* The options after "--" (all of them with --check-options), before EAL starts. */
int
demo_check_input(int argc, char **argv, struct demo_opts *o, struct expect *e)
{
	static struct demo_state plan;
	int first = argc;

	if (argc > 1 && strcmp(argv[1], "--check-options") == 0)
		first = 2;
	for (int i = 1; i < argc && first == argc; i++)
		if (strcmp(argv[i], "--") == 0)
			first = i + 1;
	if (parse_opts(argc - first, argv + first, o) != 0)
		return -EINVAL;
	if (o->pcap == NULL || o->reader_id >= 0)
		return 0;
	demo_plan(&plan, o);
	return demo_pcap_expect(&plan, o->secondaries, o->pcap, e) == 0 ? 0 : -EINVAL;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-swdev: the software mlx5 device daemon.
 *
 * Serves one or more emulated devices on a Unix socket (see doc/swdev.rst).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_cmd.h"
#include "run_cmd.h"
#include "mdevx_build_config.h"
#include "swdev_engine.h"
#include "swdev_server.h"

#define MAX_DEVICES 16

static struct swdev_server *g_srv;

/* Limit options: name, field of struct swdev_limits, field size, maximum. */
struct limit_opt {
	const char *name;
	size_t off;
	size_t size;
	const char *help;
};

#define LIM(n, f, h) { n, offsetof(struct swdev_limits, f), \
	sizeof(((struct swdev_limits *)0)->f), h }

/* The maxima are the engine's: swdev_limits_max(). */
static const struct limit_opt limit_opts[] = {
	LIM("max-counters", max_flow_counters, "flow counters per device"),
	LIM("counter-bulk-alloc", flow_counter_bulk_alloc,
	    "cap flow_counter_bulk_alloc bitmask (bit i = 128 << i counters)"),
	LIM("counter-bulk-log-max", flow_counter_bulk_log_max_alloc,
	    "cap flow_counter_bulk_log_max_alloc (0: log-size allocation unsupported)"),
	LIM("log-max-counter-bulk", log_max_flow_counter_bulk,
	    "cap log_max_flow_counter_bulk (counters per query, log2)"),
	LIM("log-max-tir", log_max_tir, "TIRs per device, log2"),
	LIM("log-max-rq", log_max_rq, "RQs per device, log2"),
	LIM("log-max-rqt", log_max_rqt, "RQTs per device, log2"),
	LIM("log-max-rqt-size", log_max_rqt_size, "entries per RQT, log2"),
	LIM("log-max-cq", log_max_cq, "CQs per device, log2"),
	LIM("log-max-cq-sz", log_max_cq_sz, "CQEs per CQ, log2"),
	LIM("log-max-wq-sz", log_max_wq_sz, "WQEs per WQ, log2"),
	LIM("log-max-td", log_max_transport_domain, "transport domains, log2"),
	LIM("log-max-pd", log_max_pd, "PDs, log2"),
	LIM("max-uars", max_uars, "UAR pages per device"),
	LIM("max-umems", max_umems, "umem registrations per device"),
	LIM("max-handles", max_handles_per_file, "object handles per uverbs file"),
	LIM("num-eqs", num_eqs, "EQNs served by the EQN query"),
	LIM("log-max-ft-size", log_max_ft_size, "entries per flow table, log2"),
	LIM("max-ft-level", max_ft_level, "deepest flow table level (1..)"),
	LIM("log-max-ft-num", log_max_ft_num, "flow tables per device, log2"),
	LIM("log-max-fte-counters", log_max_flow_counter,
	    "counters per flow table entry, log2"),
	LIM("log-max-fte", log_max_flow, "flow table entries per device, log2"),
};

#define NUM_LIMITS (sizeof(limit_opts) / sizeof(limit_opts[0]))

enum {
	OPT_SOCKET = 256,
	OPT_DEVICE,
	OPT_FOREGROUND,
	OPT_DAEMON,
	OPT_PIDFILE,
	OPT_LOG_LEVEL,
	OPT_PING,
	OPT_HELP,
	OPT_VERSION,
	OPT_TEST_MODE,
	OPT_GROUP,
	OPT_ALLOW_UID,
	OPT_HANDSHAKE_TIMEOUT,
	OPT_MAX_PENDING,
	OPT_CTL,
	OPT_LIMIT0,
};

static unsigned long
limit_value(const struct swdev_limits *lim, const struct limit_opt *o)
{
	if (o->size == 1) {
		uint8_t b;

		memcpy(&b, (const char *)lim + o->off, 1);
		return b;
	} else {
		uint32_t w;

		memcpy(&w, (const char *)lim + o->off, 4);
		return w;
	}
}

static void
usage(FILE *f, const char *prog)
{
	struct swdev_limits def;
	unsigned int i;

	fprintf(f,
		"Usage: %s [options]\n"
		"       %s --ctl SOCKET COMMAND ARGS...   (see below)\n"
		"       %s run [--socket PATH] -- CMD ARGS...   (see below)\n"
		"Software mlx5 device: serves emulated ConnectX devices (uverbs files,\n"
		"DEVX PRM commands) on a Unix socket. See doc/swdev.rst.\n\n"
		"  --socket PATH       main socket (default $SWDEV_SOCKET or %s);\n"
		"                      the control socket is PATH.ctl, the lock PATH.lock\n"
		"  --device NAME       add a device (repeatable; default one device mlx5_0)\n"
		"  --foreground        stay in the foreground (default)\n"
		"  --daemon            detach; returns once the socket accepts\n"
		"  --pidfile PATH      write the daemon pid there (removed on exit)\n"
		"  --log-level LEVEL   error | warn | info | debug (default info)\n"
		"  --ping              exit 0 if a live daemon answers on --socket, else 1\n"
		"\nAccess (see doc/swdev.rst, \"Who may connect\"):\n"
		"  --group NAME|GID    sockets 0660 and of this group (default 0600, whatever\n"
		"                      the umask); members still need --allow-uid\n"
		"  --allow-uid USER|UID  serve this uid too (repeatable, up to %u); by default\n"
		"                      only the daemon's own uid is served, others get EACCES\n"
		"  --test-mode         allow traffic and fault injection and every count on\n"
		"                      the control socket (tests); without it they get EPERM\n"
		"  --handshake-timeout MS  close a connection that sent no OPEN (or no control\n"
		"                      request, if refused) in MS ms (default %u)\n"
		"  --max-pending N     at most N such connections at once; past that\n"
		"                      the oldest goes (default %u)\n\n"
		"  --version           print the version\n"
		"  --help              this text\n\n"
		"Limits (every device; see doc/swdev_commands.rst):\n",
		prog, prog, prog, MDEVX_SWDEV_DEFAULT_SOCKET, SWDEV_SERVER_MAX_ALLOW_UIDS,
		SWDEV_SERVER_HANDSHAKE_MS, SWDEV_SERVER_MAX_PENDING);
	swdev_limits_default(&def);
	for (i = 0; i < NUM_LIMITS; i++)
		fprintf(f, "  --%-20s N  %s (default %lu)\n", limit_opts[i].name,
			limit_opts[i].help, limit_value(&def, &limit_opts[i]));
	fprintf(f, "\nSIGTERM / SIGINT: close every uverbs file (all objects destroyed),\n"
		   "remove the sockets and exit 0.\n");
	ctl_cmd_usage(f);
	run_cmd_usage(f, prog);
}

/* The engine's lines about refused or failed commands. */
static void
engine_log(void *arg, const char *line)
{
	(void)arg;
	swdev_log(SWDEV_LOG_INFO, "%s", line);
}

static void
on_signal(int sig)
{
	(void)sig;
	if (g_srv != NULL)
		swdev_server_stop(g_srv);
}

static int
set_limit(struct swdev_limits *lim, const struct limit_opt *o, const char *arg)
{
	struct swdev_limits max_lim;
	unsigned long long v;
	unsigned long max;
	char *end;

	swdev_limits_max(&max_lim);
	max = limit_value(&max_lim, o);
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v > max) {
		fprintf(stderr, "--%s: invalid value '%s' (0..%lu)\n", o->name, arg, max);
		return -1;
	}
	if (o->size == 1) {
		uint8_t b = (uint8_t)v;

		memcpy((char *)lim + o->off, &b, 1);
	} else {
		uint32_t w = (uint32_t)v;

		memcpy((char *)lim + o->off, &w, 4);
	}
	return 0;
}

/* A decimal number in 1..@p max. -1 if not. */
static long
parse_count(const char *arg, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v == 0 || v > max)
		return -1;
	return (long)v;
}

/* A uid or user name; 0 or -1. */
static int
parse_uid(const char *arg, uid_t *uid)
{
	struct passwd *pw;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno == 0 && end != arg && *end == '\0' && arg[0] != '-' && v < (uid_t)-1) {
		*uid = (uid_t)v;
		return 0;
	}
	pw = getpwnam(arg);
	if (pw == NULL)
		return -1;
	*uid = pw->pw_uid;
	return 0;
}

/* A gid or group name; 0 or -1. */
static int
parse_gid(const char *arg, gid_t *gid)
{
	struct group *gr;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno == 0 && end != arg && *end == '\0' && arg[0] != '-' && v < (gid_t)-1) {
		*gid = (gid_t)v;
		return 0;
	}
	gr = getgrnam(arg);
	if (gr == NULL)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}

static int
write_pidfile(const char *path)
{
	char buf[32];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		return EIO;
	}
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	struct option longopts[24 + NUM_LIMITS + 1];
	const char *devices[MAX_DEVICES];
	unsigned int ndev = 0, i;
	const char *sock_path = NULL, *pidfile = NULL, *ctl_sock = NULL;
	struct swdev_server_opts sopts;
	struct swdev_limits lim;
	struct swdev_engine *eng;
	long v;
	struct sigaction sa;
	int daemonize = 0, ping = 0, opt, err, ret;
	int ready[2] = { -1, -1 };
	unsigned int n = 0;

	/* "run": the launcher, a command of its own (its options after the word). */
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run_cmd_main(argv[0], argc - 1, argv + 1);
	swdev_limits_default(&lim);
	swdev_server_opts_default(&sopts);
	longopts[n++] = (struct option){ "socket", required_argument, NULL, OPT_SOCKET };
	longopts[n++] = (struct option){ "device", required_argument, NULL, OPT_DEVICE };
	longopts[n++] = (struct option){ "foreground", no_argument, NULL, OPT_FOREGROUND };
	longopts[n++] = (struct option){ "daemon", no_argument, NULL, OPT_DAEMON };
	longopts[n++] = (struct option){ "pidfile", required_argument, NULL, OPT_PIDFILE };
	longopts[n++] = (struct option){ "log-level", required_argument, NULL, OPT_LOG_LEVEL };
	longopts[n++] = (struct option){ "ping", no_argument, NULL, OPT_PING };
	longopts[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	longopts[n++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
	longopts[n++] = (struct option){ "test-mode", no_argument, NULL, OPT_TEST_MODE };
	longopts[n++] = (struct option){ "group", required_argument, NULL, OPT_GROUP };
	longopts[n++] = (struct option){ "allow-uid", required_argument, NULL, OPT_ALLOW_UID };
	longopts[n++] = (struct option){ "handshake-timeout", required_argument, NULL,
					 OPT_HANDSHAKE_TIMEOUT };
	longopts[n++] = (struct option){ "max-pending", required_argument, NULL,
					 OPT_MAX_PENDING };
	longopts[n++] = (struct option){ "ctl", required_argument, NULL, OPT_CTL };
	for (i = 0; i < NUM_LIMITS; i++)
		longopts[n++] = (struct option){ limit_opts[i].name, required_argument, NULL,
						 OPT_LIMIT0 + (int)i };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	/* "+": options end at the first command word of --ctl. */
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SOCKET:
			sock_path = optarg;
			break;
		case OPT_DEVICE:
			if (ndev == MAX_DEVICES) {
				fprintf(stderr, "at most %d devices\n", MAX_DEVICES);
				return 2;
			}
			devices[ndev++] = optarg;
			break;
		case OPT_FOREGROUND:
			daemonize = 0;
			break;
		case OPT_DAEMON:
			daemonize = 1;
			break;
		case OPT_PIDFILE:
			pidfile = optarg;
			break;
		case OPT_LOG_LEVEL:
			ret = swdev_log_parse_level(optarg);
			if (ret < 0) {
				fprintf(stderr, "--log-level: error, warn, info or debug\n");
				return 2;
			}
			swdev_log_set_level((enum swdev_log_level)ret);
			break;
		case OPT_PING:
			ping = 1;
			break;
		case 'h':
		case OPT_HELP:
			usage(stdout, argv[0]);
			return 0;
		case OPT_VERSION:
			printf("mlx5-swdev %s\n", MDEVX_VERSION);
			return 0;
		case OPT_TEST_MODE:
			sopts.test_mode = true;
			break;
		case OPT_GROUP:
			if (parse_gid(optarg, &sopts.group) != 0) {
				fprintf(stderr, "--group: no group '%s'\n", optarg);
				return 2;
			}
			sopts.has_group = true;
			break;
		case OPT_ALLOW_UID:
			if (sopts.n_allow_uids == SWDEV_SERVER_MAX_ALLOW_UIDS) {
				fprintf(stderr, "--allow-uid: at most %u\n",
					SWDEV_SERVER_MAX_ALLOW_UIDS);
				return 2;
			}
			if (parse_uid(optarg, &sopts.allow_uids[sopts.n_allow_uids]) != 0) {
				fprintf(stderr, "--allow-uid: no user '%s'\n", optarg);
				return 2;
			}
			sopts.n_allow_uids++;
			break;
		case OPT_HANDSHAKE_TIMEOUT:
			v = parse_count(optarg, 600000);
			if (v < 0) {
				fprintf(stderr, "--handshake-timeout: invalid value '%s' "
					"(1..600000 ms)\n", optarg);
				return 2;
			}
			sopts.handshake_ms = (unsigned int)v;
			break;
		case OPT_MAX_PENDING:
			v = parse_count(optarg, 65536);
			if (v < 0) {
				fprintf(stderr, "--max-pending: invalid value '%s' (1..65536)\n",
					optarg);
				return 2;
			}
			sopts.max_pending = (unsigned int)v;
			break;
		case OPT_CTL:
			ctl_sock = optarg;
			break;
		default:
			if (opt >= OPT_LIMIT0 && opt < OPT_LIMIT0 + (int)NUM_LIMITS) {
				if (set_limit(&lim, &limit_opts[opt - OPT_LIMIT0], optarg) != 0)
					return 2;
				break;
			}
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (ctl_sock != NULL)
		return ctl_cmd_run(ctl_sock, argc - optind, argv + optind);
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		usage(stderr, argv[0]);
		return 2;
	}
	if (sock_path == NULL)
		sock_path = getenv("SWDEV_SOCKET");
	if (sock_path == NULL || sock_path[0] == '\0')
		sock_path = MDEVX_SWDEV_DEFAULT_SOCKET;
	if (ping)
		return swdev_server_is_live(sock_path) ? 0 : 1;
	if (ndev == 0)
		devices[ndev++] = "mlx5_0";

	{
		/* Every context is two descriptors here: take what we may. */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	eng = swdev_engine_create();
	if (eng == NULL) {
		swdev_log(SWDEV_LOG_ERR, "cannot create the engine: %s", strerror(errno));
		return 1;
	}
	swdev_engine_set_log(eng, engine_log, NULL);
	for (i = 0; i < ndev; i++) {
		ret = swdev_engine_add_device(eng, devices[i], &lim);
		if (ret < 0) {
			/* A bad name, a duplicate or limits out of range are usage errors. */
			swdev_log(SWDEV_LOG_ERR, "device '%s': %s", devices[i],
				  ret == -EINVAL ? "invalid name (1..31 printable characters) or "
				  "limits (a count of 0)" : ret == -EEXIST ? "given twice" :
				  strerror(-ret));
			swdev_engine_destroy(eng);
			return ret == -EINVAL || ret == -EEXIST ? 2 : 1;
		}
		swdev_log(SWDEV_LOG_INFO, "device %s ready", devices[i]);
	}
	g_srv = swdev_server_create(eng, sock_path, &sopts);
	if (g_srv == NULL) {
		err = errno;
		swdev_log(SWDEV_LOG_ERR, "cannot serve %s: %s", sock_path, strerror(err));
		swdev_engine_destroy(eng);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	if (daemonize)
		sigaction(SIGHUP, &sa, NULL);

	if (daemonize) {
		pid_t pid;
		char c;

		if (pipe2(ready, O_CLOEXEC) < 0) {
			err = errno;
			swdev_log(SWDEV_LOG_ERR, "pipe: %s", strerror(err));
			goto out;
		}
		pid = fork();
		if (pid < 0) {
			err = errno;
			swdev_log(SWDEV_LOG_ERR, "fork: %s", strerror(err));
			goto out;
		}
		if (pid > 0) {
			/* Parent: return once the child runs; leave the sockets to it. */
			close(ready[1]);
			ret = read(ready[0], &c, 1) == 1 ? 0 : 1;
			_exit(ret);
		}
		close(ready[0]);
		setsid();
		ret = open("/dev/null", O_RDWR);
		if (ret >= 0) {
			dup2(ret, STDIN_FILENO);
			dup2(ret, STDOUT_FILENO);
			if (ret > STDERR_FILENO)
				close(ret);
		}
	}
	if (pidfile != NULL) {
		err = write_pidfile(pidfile);
		if (err != 0) {
			swdev_log(SWDEV_LOG_ERR, "pidfile %s: %s", pidfile, strerror(err));
			pidfile = NULL;
			goto out;
		}
	}

	if (ready[1] >= 0) {
		if (write(ready[1], "r", 1) != 1) {
			/* The parent is gone; keep serving. */
		}
		close(ready[1]);
	}
	swdev_log(SWDEV_LOG_INFO, "mlx5-swdev %s serving %u device(s) on %s", MDEVX_VERSION, ndev,
		  sock_path);
	err = swdev_server_run(g_srv);
out:
	{
		/* A second SIGTERM/SIGINT must not reach on_signal() while (or
		 * after) the server is freed. */
		sigset_t block;

		sigemptyset(&block);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGINT);
		sigprocmask(SIG_BLOCK, &block, NULL);
	}
	swdev_server_destroy(g_srv);
	g_srv = NULL;
	swdev_engine_destroy(eng);
	if (pidfile != NULL)
		unlink(pidfile);
	swdev_log(SWDEV_LOG_INFO, "exit");
	return err == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5-share-demo: the main job of the project, on the software device.
 *
 * The primary opens the device for sharing, creates and publishes flow
 * counter bulks and a direct and an indirect (RSS) TIR, then starts
 * secondaries (this same program with --proc-type=secondary). Each
 * secondary attaches, imports everything by name, checks the TIRs, and
 * reads the counters while the primary injects traffic into them. At the
 * end the primary prints a summary table, withdraws every record (the
 * secondaries acknowledge), and checks that the device is empty.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

#define DEMO_MZ "mdevx_demo_state"
#define MAX_SECONDARIES 16
#define MAX_BULKS 16
#define BULK_SIZE 128
#define TRAFFIC_COUNTERS 4	/* counters per bulk that get traffic */

struct demo_reader {
	volatile uint32_t attached;
	volatile uint32_t tirs_ok;
	volatile uint32_t done;
	volatile uint32_t failed;
	volatile uint64_t reads;
	volatile uint64_t import_ns;
	volatile uint64_t packets[MAX_BULKS];	/* last total read per bulk */
	volatile uint64_t bytes[MAX_BULKS];
	char error[96];
};

struct demo_state {
	volatile uint32_t stop;
	uint32_t nb_bulks;
	char devstr[64];
	struct mdevx_tir_attr tir[2];
	struct demo_reader reader[MAX_SECONDARIES];
};

struct demo_opts {
	unsigned int secondaries;
	unsigned int bulks;
	unsigned int duration_ms;
	const char *device;
	int reader_id;			/* secondary: its slot, -1 in the primary */
};

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "\n"
	       "Share mlx5 flow counters and TIRs between DPDK processes on the\n"
	       "software device ($SWDEV_SOCKET) and print what every process saw.\n"
	       "\n"
	       "Options:\n"
	       "  --secondaries N   secondary processes to start (1..%d, default 3)\n"
	       "  --bulks N         counter bulks of %d counters (1..%d, default 4)\n"
	       "  --duration MS     traffic phase in milliseconds (default 2000)\n"
	       "  --device NAME     software device name (default mlx5_0)\n"
	       "  --help            this text\n"
	       "\n"
	       "Run it with devtools/run-demo.sh, which starts the software device\n"
	       "and gives EAL --no-pci and a --file-prefix of its own.\n",
	       prog, MAX_SECONDARIES, BULK_SIZE, MAX_BULKS);
}

static int
parse_opts(int argc, char **argv, struct demo_opts *o)
{
	static const struct option longopts[] = {
		{ "secondaries", required_argument, NULL, 's' },
		{ "bulks", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'D' },
		{ "reader", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->secondaries = 3;
	o->bulks = 4;
	o->duration_ms = 2000;
	o->device = "mlx5_0";
	o->reader_id = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->secondaries = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o->bulks = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'd':
			o->duration_ms = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'D':
			o->device = optarg;
			break;
		case 'r':
			o->reader_id = atoi(optarg);
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (o->secondaries < 1 || o->secondaries > MAX_SECONDARIES || o->bulks < 1 ||
	    o->bulks > MAX_BULKS || strlen(o->device) > 32) {
		fprintf(stderr, "invalid option value (see --help)\n");
		return -EINVAL;
	}
	return 0;
}

static bool
tir_equal(const struct mdevx_tir_attr *a, const struct mdevx_tir_attr *b)
{
	return a->disp_type == b->disp_type && a->inline_rqn == b->inline_rqn &&
	       a->indirect_table == b->indirect_table &&
	       a->transport_domain == b->transport_domain && a->rx_hash_fn == b->rx_hash_fn &&
	       a->outer_selected_fields == b->outer_selected_fields &&
	       memcmp(a->toeplitz_key, b->toeplitz_key, MDEVX_TOEPLITZ_KEY_LEN) == 0;
}

/* ---------------------------------------------------------------- */
/* Secondary                                                         */
/* ---------------------------------------------------------------- */

static int
run_reader(struct demo_state *st, int id)
{
	struct demo_reader *me = &st->reader[id];
	mdevx_share_imp_t cnt[MAX_BULKS], tir[2];
	struct mdevx_counter_stats stats[BULK_SIZE];
	struct mdevx_share_dev *dev;
	const char *tir_names[2] = { "tir-direct", "tir-rss" };
	char name[32];
	uint64_t t0;

	dev = mdevx_share_dev_attach(st->devstr);
	if (dev == NULL) {
		snprintf(me->error, sizeof(me->error), "attach: %s", strerror(errno));
		goto fail;
	}
	me->attached = 1;
	t0 = now_ns();
	for (uint32_t b = 0; b < st->nb_bulks; b++) {
		snprintf(name, sizeof(name), "counters-%u", b);
		if (mdevx_share_import(dev, name, MDEVX_SHARE_COUNTER, &cnt[b]) != 0) {
			snprintf(me->error, sizeof(me->error), "import %s: %s", name,
				 strerror(errno));
			goto fail_close;
		}
	}
	for (int t = 0; t < 2; t++) {
		if (mdevx_share_import(dev, tir_names[t], MDEVX_SHARE_TIR, &tir[t]) != 0) {
			snprintf(me->error, sizeof(me->error), "import %s: %s", tir_names[t],
				 strerror(errno));
			goto fail_close;
		}
	}
	me->import_ns = now_ns() - t0;
	for (int t = 0; t < 2; t++) {
		struct mdevx_tir_attr a;

		if (mdevx_share_tir_query(dev, tir[t], &a) == 0 && tir_equal(&a, &st->tir[t]))
			me->tirs_ok++;
	}
	/* Read every bulk in one command each until the primary withdraws. */
	while (!st->stop) {
		for (uint32_t b = 0; b < st->nb_bulks; b++) {
			uint64_t p = 0, by = 0;
			int rc = mdevx_share_counter_query(dev, cnt[b], 0, BULK_SIZE, 0, stats);

			if (rc == -ESTALE)
				break;
			if (rc != 0) {
				snprintf(me->error, sizeof(me->error), "query: %s", strerror(-rc));
				goto fail_close;
			}
			for (int i = 0; i < BULK_SIZE; i++) {
				p += stats[i].packets;
				by += stats[i].bytes;
			}
			me->packets[b] = p;
			me->bytes[b] = by;
			me->reads++;
		}
		usleep(20000);
	}
	for (uint32_t b = 0; b < st->nb_bulks; b++)
		mdevx_share_unimport(dev, cnt[b]);
	for (int t = 0; t < 2; t++)
		mdevx_share_unimport(dev, tir[t]);
	mdevx_share_dev_close(dev);
	me->done = 1;
	return 0;
fail_close:
	mdevx_share_dev_close(dev);
fail:
	me->failed = 1;
	return 1;
}

/* ---------------------------------------------------------------- */
/* Primary                                                           */
/* ---------------------------------------------------------------- */

struct chain {
	struct mdevx_obj *td, *pd, *cq, *rq[2], *rqt;
};

static uint32_t
id_of(struct mdevx_obj *o)
{
	struct mdevx_obj_info oi;

	return mdevx_obj_info(o, &oi) == 0 ? oi.id : 0;
}

static void
chain_destroy(struct chain *c)
{
	struct mdevx_obj *objs[] = { c->rqt, c->rq[1], c->rq[0], c->cq, c->td, c->pd };

	for (size_t i = 0; i < RTE_DIM(objs); i++)
		if (objs[i] != NULL && mdevx_obj_destroy(objs[i]) != 0)
			fprintf(stderr, "destroy: %s\n", strerror(errno));
	memset(c, 0, sizeof(*c));
}

static int
chain_create(struct mdevx_ctx *ctx, struct chain *c)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 8, .eq_vector = 0 };
	struct mdevx_rq_attr rqa = { .log_wq_size = 8, .log_wq_stride = 6 };

	memset(c, 0, sizeof(*c));
	c->td = mdevx_td_alloc(ctx);
	c->pd = mdevx_pd_alloc(ctx);
	c->cq = c->td != NULL && c->pd != NULL ? mdevx_cq_create(ctx, &cqa) : NULL;
	if (c->cq == NULL)
		return -1;
	rqa.cq = c->cq;
	rqa.pd = c->pd;
	for (int i = 0; i < 2; i++) {
		rqa.user_index = (uint32_t)i;
		c->rq[i] = mdevx_rq_create(ctx, &rqa);
		if (c->rq[i] == NULL)
			return -1;
	}
	c->rqt = mdevx_rqt_create(ctx, c->rq, 2);
	return c->rqt != NULL ? 0 : -1;
}

static pid_t
spawn_reader(char *const eal_argv[], const char *prefix_arg, int id)
{
	char exe[PATH_MAX], id_str[16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t pid;

	(void)eal_argv;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(id_str, sizeof(id_str), "%d", id);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(exe, exe, "--proc-type=secondary", prefix_arg, "--no-pci", "--no-telemetry",
		      "--log-level=lib.eal:error", "--", "--reader", id_str, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
run_primary(struct demo_state *st, const struct demo_opts *o, char **argv)
{
	struct mdevx_share_conf conf = { .capacity = 1024, .withdraw_timeout_ms = 2000 };
	uint64_t truth_p[MAX_BULKS] = { 0 }, truth_b[MAX_BULKS] = { 0 };
	uint32_t base[MAX_BULKS];
	struct mdevx_share_dev *dev;
	struct swdev_ctl *ctl = NULL;
	struct mdevx_ctx *ctx;
	struct swdev_counts counts;
	pid_t pids[MAX_SECONDARIES];
	char prefix_arg[PATH_MAX], name[32];
	const char *sock = getenv("SWDEV_SOCKET");
	struct chain ch;
	uint64_t seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL, t_end;
	unsigned int acked_total = 0;
	int ret = 1, bad = 0;

	if (sock == NULL) {
		fprintf(stderr, "SWDEV_SOCKET is not set: start the software device first "
			"(devtools/run-demo.sh does)\n");
		return 1;
	}
	ctl = swdev_ctl_open(sock);
	if (ctl == NULL) {
		fprintf(stderr, "software device control channel: %s\n", strerror(errno));
		return 1;
	}
	snprintf(st->devstr, sizeof(st->devstr), "swdev:%s", o->device);
	st->nb_bulks = o->bulks;
	dev = mdevx_share_dev_open(st->devstr, &conf);
	if (dev == NULL) {
		fprintf(stderr, "open %s: %s\n", st->devstr, strerror(errno));
		swdev_ctl_close(ctl);
		return 1;
	}
	ctx = mdevx_share_dev_ctx(dev);
	printf("primary %d: device %s shared, instance cookie %#" PRIx64 "\n", (int)getpid(),
	       st->devstr, mdevx_share_dev_cookie(dev));

	/* What gets shared: counter bulks and two TIRs. */
	if (chain_create(ctx, &ch) != 0) {
		fprintf(stderr, "queue objects: %s\n", strerror(errno));
		goto out;
	}
	for (uint32_t b = 0; b < o->bulks; b++) {
		struct mdevx_obj *cnt = mdevx_counter_alloc(ctx, BULK_SIZE);

		snprintf(name, sizeof(name), "counters-%u", b);
		if (cnt != NULL)
			base[b] = id_of(cnt);
		if (cnt == NULL || mdevx_share_publish(dev, name, cnt) != 0) {
			fprintf(stderr, "publish %s: %s\n", name, strerror(errno));
			goto out_chain;
		}
	}
	memset(st->tir, 0, sizeof(st->tir));
	st->tir[0].disp_type = MDEVX_TIR_DISP_DIRECT;
	st->tir[0].inline_rqn = id_of(ch.rq[0]);
	st->tir[0].transport_domain = id_of(ch.td);
	st->tir[1].disp_type = MDEVX_TIR_DISP_INDIRECT;
	st->tir[1].indirect_table = id_of(ch.rqt);
	st->tir[1].transport_domain = id_of(ch.td);
	st->tir[1].rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	st->tir[1].outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	st->tir[1].outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
					   MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	for (int i = 0; i < MDEVX_TOEPLITZ_KEY_LEN; i++)
		st->tir[1].toeplitz_key[i] = (uint8_t)(0x6d + 13 * i);
	for (int t = 0; t < 2; t++) {
		struct mdevx_obj *tir = mdevx_tir_create(ctx, &st->tir[t]);

		if (tir == NULL || mdevx_share_publish(dev, t == 0 ? "tir-direct" : "tir-rss",
						       tir) != 0) {
			fprintf(stderr, "TIR: %s\n", strerror(errno));
			goto out_chain;
		}
	}
	printf("primary: published %u counter bulks of %d and 2 TIRs (%u records)\n",
	       o->bulks, BULK_SIZE, mdevx_share_dev_count(dev));

	/* Secondaries: this program again, with our prefix. */
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s",
		 strrchr(rte_eal_get_runtime_dir(), '/') + 1);
	for (unsigned int i = 0; i < o->secondaries; i++) {
		pids[i] = spawn_reader(argv, prefix_arg, (int)i);
		if (pids[i] < 0) {
			fprintf(stderr, "cannot start secondary %u\n", i);
			goto out_chain;
		}
	}
	printf("primary: started %u secondaries; injecting traffic for %u ms\n", o->secondaries,
	       o->duration_ms);
	t_end = now_ns() + (uint64_t)o->duration_ms * 1000000;
	while (now_ns() < t_end && !interrupted) {
		for (uint32_t b = 0; b < o->bulks; b++) {
			for (int k = 0; k < TRAFFIC_COUNTERS; k++) {
				uint64_t p;

				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				p = 1 + seed % 1000;
				uint32_t id = base[b] + (uint32_t)k * 31;

				if (swdev_ctl_inject_traffic(ctl, o->device, id, p, p * 128) == 0) {
					truth_p[b] += p;
					truth_b[b] += p * 128;
				}
			}
		}
		usleep(50000);
	}
	/* Let every reader take one more reading of the final values. */
	usleep(200000);
	{
		struct mdevx_counter_stats s[BULK_SIZE];
		mdevx_share_imp_t imp;

		/* The primary reads too, through an import of its own record. */
		for (uint32_t b = 0; b < o->bulks; b++) {
			uint64_t p = 0;

			snprintf(name, sizeof(name), "counters-%u", b);
			if (mdevx_share_import(dev, name, MDEVX_SHARE_COUNTER, &imp) == 0) {
				if (mdevx_share_counter_query(dev, imp, 0, BULK_SIZE, 0, s) == 0)
					for (int i = 0; i < BULK_SIZE; i++)
						p += s[i].packets;
				mdevx_share_unimport(dev, imp);
			}
			if (p != truth_p[b])
				bad++;
		}
	}

	printf("\n%-10s %-8s %-9s %-8s %-10s %-14s %-14s %s\n", "process", "pid", "attached",
	       "TIRs ok", "imports", "packets read", "bytes read", "matches primary");
	{
		uint64_t tp = 0, tb = 0;

		for (uint32_t b = 0; b < o->bulks; b++) {
			tp += truth_p[b];
			tb += truth_b[b];
		}
		printf("%-10s %-8d %-9s %-8s %-10s %-14" PRIu64 " %-14" PRIu64 " %s\n",
		       "primary", (int)getpid(), "-", "-", "-", tp, tb,
		       bad == 0 ? "(injected = read)" : "MISMATCH");
		for (unsigned int i = 0; i < o->secondaries; i++) {
			struct demo_reader *r = &st->reader[i];
			uint64_t rp = 0, rb = 0;
			char imp_str[32];

			for (uint32_t b = 0; b < o->bulks; b++) {
				rp += r->packets[b];
				rb += r->bytes[b];
			}
			snprintf(imp_str, sizeof(imp_str), "%.1f us", (double)r->import_ns / 1000 /
				 (o->bulks + 2));
			printf("%-10s %-8d %-9s %-8u %-10s %-14" PRIu64 " %-14" PRIu64 " %s\n",
			       "secondary", (int)pids[i], r->attached ? "yes" : "no",
			       r->tirs_ok, r->failed ? "failed" : imp_str, rp, rb,
			       r->failed ? r->error : rp == tp && rb == tb ? "yes" : "NO");
			if (r->failed || rp != tp || rb != tb || r->tirs_ok != 2)
				bad++;
		}
	}

	/* Withdraw everything: the secondaries acknowledge, then objects go. */
	printf("\nprimary: withdrawing %u records\n", mdevx_share_dev_count(dev));
	for (uint32_t b = 0; b < o->bulks; b++) {
		unsigned int acked = 0;

		snprintf(name, sizeof(name), "counters-%u", b);
		if (mdevx_share_withdraw(dev, name, &acked) != 0)
			bad++;
		acked_total += acked;
	}
	for (int t = 0; t < 2; t++) {
		unsigned int acked = 0;

		if (mdevx_share_withdraw(dev, t == 0 ? "tir-direct" : "tir-rss", &acked) != 0)
			bad++;
		acked_total += acked;
	}
	printf("primary: %u acknowledgements for %u withdrawals from %u secondaries\n",
	       acked_total, o->bulks + 2, o->secondaries);
	st->stop = 1;
	for (unsigned int i = 0; i < o->secondaries; i++) {
		int status = 0;

		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad++;
	}
	ret = bad == 0 ? 0 : 1;
out_chain:
	chain_destroy(&ch);
out:
	if (mdevx_share_dev_close(dev) != 0)
		ret = 1;
	memset(&counts, 0, sizeof(counts));
	if (swdev_ctl_get_counts(ctl, o->device, 0, &counts) == 0)
		printf("software device %s: %u objects left\n", o->device, counts.total);
	if (counts.total != 0)
		ret = 1;
	swdev_ctl_close(ctl);
	printf("%s\n", ret == 0 ? "demo OK" : "demo FAILED");
	return ret;
}

int
main(int argc, char **argv)
{
	const struct rte_memzone *mz = NULL;
	struct demo_state *st;
	struct demo_opts o;
	int ret;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(argv[0]);
			return 0;
		}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse_opts(argc, argv, &o) != 0) {
		rte_eal_cleanup();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		mz = rte_memzone_reserve(DEMO_MZ, sizeof(*st), SOCKET_ID_ANY, 0);
		if (mz == NULL) {
			fprintf(stderr, "memzone: %s\n", rte_strerror(rte_errno));
			rte_eal_cleanup();
			return 1;
		}
		st = mz->addr;
		memset(st, 0, sizeof(*st));
		ret = run_primary(st, &o, argv);
		rte_memzone_free(mz);
	} else {
		mz = rte_memzone_lookup(DEMO_MZ);
		if (mz == NULL || o.reader_id < 0 || o.reader_id >= MAX_SECONDARIES) {
			fprintf(stderr, "secondary: no demo state or no --reader\n");
			rte_eal_cleanup();
			return 1;
		}
		ret = run_reader(mz->addr, o.reader_id);
	}
	rte_eal_cleanup();
	return ret;
}

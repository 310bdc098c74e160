/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the main job of the project, on the software device.
 *
 * The primary opens the device for sharing, creates and publishes flow
 * counter bulks, a direct TIR and an RSS TIR over 4 RQs, then starts
 * secondaries (this same program with --proc-type=secondary). Each
 * secondary attaches, imports everything by name and checks the TIRs. In
 * rounds, the primary injects traffic into the counters and every
 * secondary reads every bulk and answers over a pipe before the next round
 * (a handshake: no sleep decides when a reading is due); after the last
 * round the primary refreshes the snapshot and the secondaries read the
 * device and the snapshot once more.
 *
 * With --pcap, each secondary also installs a root rule through
 * mdevx_share_rule_create() on its imports: UDP destination port 5000 + i
 * to the RSS TIR (even i) or the direct TIR (odd i), counted at offset 0
 * of rule-counter-i, a bulk of one counter the primary publishes for it: a
 * root rule counting at an offset inside a bulk needs rdma-core 60
 * (MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET), Debian 12 has 44. The
 * primary computes from the file what each rule, each RQ and the port must
 * count (libpcap, DPDK's header structures
 * and rte_softrss(), not the device), replays it into the device's port
 * and compares: the counters read by each secondary and by the primary,
 * the RQs' and the port's statistics.
 *
 * At the end the primary withdraws every record (the secondaries remove
 * their rules and acknowledge) and checks that the rules are gone and
 * that the device is empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_thash.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

#include "pcap_udp.h"

extern char **environ;

#define DEMO_MZ "mdevx_demo_state"
#define MAX_SECONDARIES 16
#define MAX_BULKS 16
#define BULK_SIZE 128
#define TRAFFIC_COUNTERS 4	/* counters per bulk that get traffic: 0, 31, 62, 93 */
#define TRAFFIC_STRIDE 31
#define NB_RSS_RQ 4		/* RQs behind the RSS TIR; one more for the direct TIR */
#define RQ_DIRECT NB_RSS_RQ
#define RULE_PORT_BASE 5000	/* secondary i: UDP destination port 5000 + i */
#define RULE_COUNTER_FMT "rule-counter-%u"	/* secondary i's counter, published */
#define WAIT_MS 10000
#define START_WAIT_MS 60000	/* secondaries' EAL init, imports and rules */

_Static_assert((NB_RSS_RQ & (NB_RSS_RQ - 1)) == 0, "RQT size is a power of two");

enum { TIR_DIRECT = 0, TIR_RSS = 1, NB_TIRS = 2 };
static const char *const tir_names[NB_TIRS] = { "tir-direct", "tir-rss" };

/* A secondary's rule, chosen by the primary. */
struct rule_plan {
	uint16_t port;		/* UDP destination port */
	uint16_t tir;		/* TIR_DIRECT or TIR_RSS */
};

struct demo_reader {
	volatile uint32_t attached;
	volatile uint32_t ready;	/* imports done (and its rule installed) */
	volatile uint32_t tirs_ok;
	volatile uint32_t done;
	volatile uint32_t failed;
	volatile uint32_t rule_ready;	/* its rule is installed */
	volatile uint32_t rule_read;	/* it read its rule's counter after the replay */
	volatile int32_t rule_state;	/* mdevx_share_rule_state() after the withdrawal */
	volatile uint64_t reads;
	volatile uint64_t import_ns;
	volatile uint32_t round;		/* the round of packets[] and bytes[] */
	volatile uint64_t packets[MAX_BULKS];	/* total read per bulk in that round */
	volatile uint64_t bytes[MAX_BULKS];
	volatile uint64_t snap_packets[MAX_BULKS];	/* last round: from the snapshot */
	volatile uint64_t snap_bytes[MAX_BULKS];
	volatile uint64_t snap_seq[MAX_BULKS];		/* its refresh number */
	volatile int32_t snap_rc[MAX_BULKS];		/* mdevx_share_counter_read() */
	volatile uint64_t rule_packets;		/* its rule's counter, read after the replay */
	volatile uint64_t rule_bytes;
	char error[96];
};

struct demo_state {
	uint32_t nb_bulks;
	uint32_t steering;		/* secondaries install rules (--pcap given) */
	uint32_t snapshot;		/* the counter snapshot service is on */
	volatile uint64_t final_seq[MAX_BULKS];	/* refresh after the last injection */
	char devstr[64];
	struct mdevx_tir_attr tir[NB_TIRS];
	struct rule_plan plan[MAX_SECONDARIES];
	struct demo_reader reader[MAX_SECONDARIES];
};

struct demo_opts {
	unsigned int secondaries;
	unsigned int bulks;
	unsigned int duration_ms;
	const char *device;
	const char *pcap;		/* traffic for the rules, or NULL */
	unsigned int counter_period_ms;	/* the counter snapshot service (0: off) */
	unsigned int hold_ms;		/* stay this long after the counter phase */
	int reader_id;			/* secondary: its slot, -1 in the primary */
	int sync_fd[2];			/* secondary: commands in, reports out */
};

/*
 * The handshake between the primary and each secondary: a pipe each way,
 * one 8-byte message at a time (atomic on a pipe). The primary sends a
 * command and waits for every secondary's answer before it goes on; the
 * numbers themselves are in the shared demo state. The end of the command
 * pipe (the primary closed it, after the withdrawal) tells a secondary to
 * finish.
 */
enum sync_type {
	SYNC_READY = 1,		/* secondary: imports done */
	SYNC_READ,		/* primary: read every bulk for round N */
	SYNC_READ_FINAL,	/* primary: the same, the injection is over: snapshot too */
	SYNC_STEER,		/* primary: import your rule's counter, install your rule */
	SYNC_RULE,		/* primary: the pcap was replayed, read your rule's counter */
	SYNC_DONE,		/* secondary: done with command N */
	SYNC_FAILED,		/* secondary: failed, see its error */
};

struct sync_msg {
	uint32_t type;
	uint32_t round;
};

static volatile sig_atomic_t interrupted;

/* Every number the primary compares, and how many differed. */
static unsigned int nb_checked, nb_mismatch;

static bool
check(bool ok)
{
	nb_checked++;
	if (!ok)
		nb_mismatch++;
	return ok;
}

/* Checks since @p mark (a value of nb_mismatch) all held. */
static bool
checks_ok(unsigned int mark)
{
	return nb_mismatch == mark;
}

/* "s" unless @p n is 1. */
static const char *
plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

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

/* Option ranges: the demo's, devtools/demo.sh's and the option test's table. */
#define DURATION_MAX 600000	/* 10 minutes */
#define PERIOD_MAX 60000
#define HOLD_MAX 3600000	/* 1 hour */
#define DEVICE_MAX 31		/* the software device's name length */

static void
usage(const char *prog)
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

static bool
tir_equal(const struct mdevx_tir_attr *a, const struct mdevx_tir_attr *b)
{
	return a->disp_type == b->disp_type && a->inline_rqn == b->inline_rqn &&
	       a->indirect_table == b->indirect_table &&
	       a->transport_domain == b->transport_domain && a->rx_hash_fn == b->rx_hash_fn &&
	       a->outer_selected_fields == b->outer_selected_fields &&
	       memcmp(a->toeplitz_key, b->toeplitz_key, MDEVX_TOEPLITZ_KEY_LEN) == 0;
}

/* Secondary i's rule. */
static void
plan_rules(struct demo_state *st, unsigned int secondaries)
{
	for (unsigned int i = 0; i < secondaries; i++) {
		st->plan[i].port = (uint16_t)(RULE_PORT_BASE + i);
		st->plan[i].tir = i % 2 == 0 ? TIR_RSS : TIR_DIRECT;
	}
}

/* The RSS TIR's hash (Toeplitz over the IPv4 addresses and UDP ports) and the rules. */
static void
demo_plan(struct demo_state *st, const struct demo_opts *o)
{
	memset(st->tir, 0, sizeof(st->tir));
	st->tir[TIR_RSS].rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	st->tir[TIR_RSS].outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
	st->tir[TIR_RSS].outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	st->tir[TIR_RSS].outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP |
		MDEVX_HASH_FIELD_DST_IP | MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	for (int i = 0; i < MDEVX_TOEPLITZ_KEY_LEN; i++)
		st->tir[TIR_RSS].toeplitz_key[i] = (uint8_t)(0x6d + 13 * i);
	st->nb_bulks = o->bulks;
	plan_rules(st, o->secondaries);
}

/* ---------------------------------------------------------------- */
/* Secondary                                                         */
/* ---------------------------------------------------------------- */

/* Install secondary @p id's rule on its imports: a matcher of its own, one rule. */
static int
rule_install(struct mdevx_share_dev *dev, int id, const struct rule_plan *p,
	     mdevx_share_imp_t tir, mdevx_share_imp_t cnt, struct mdevx_matcher **m,
	     mdevx_share_rule_t *rule, struct demo_reader *me)
{
	struct mdevx_share_rule_attr ra;
	struct mdevx_matcher_attr ma;
	struct mdevx_match match;

	/* IP protocol UDP and the UDP destination port (IPv4 or IPv6). */
	if (mdevx_match_init(&match) != 0 ||
	    mdevx_match_set(&match, MDEVX_MATCH_IP_PROTOCOL, IPPROTO_UDP, 0xff) != 0 ||
	    mdevx_match_set(&match, MDEVX_MATCH_UDP_DPORT, p->port, 0xffff) != 0) {
		snprintf(me->error, sizeof(me->error), "match: %s", strerror(errno));
		return -1;
	}
	memset(&ma, 0, sizeof(ma));
	ma.priority = (uint16_t)(id + 1);
	ma.match_criteria_enable = MDEVX_MATCH_OUTER;
	ma.mask = match.mask;
	ma.mask_len = sizeof(match.mask);
	*m = mdevx_matcher_create(mdevx_share_dev_ctx(dev), &ma);
	if (*m == NULL) {
		snprintf(me->error, sizeof(me->error), "matcher: %s", strerror(errno));
		return -1;
	}
	memset(&ra, 0, sizeof(ra));
	ra.value = match.value;
	ra.value_len = sizeof(match.value);
	ra.dest = MDEVX_RULE_DEST_OBJ;
	ra.dest_imp = tir;
	ra.counter_imp = cnt;
	ra.counter_offset = 0;	/* what a root rule can count on with any rdma-core */
	*rule = mdevx_share_rule_create(dev, *m, &ra);
	if (rule->id == 0 || mdevx_share_rule_state(dev, *rule) != 0) {
		snprintf(me->error, sizeof(me->error), "rule on port %u: %s", p->port,
			 strerror(errno));
		return -1;
	}
	__atomic_store_n(&me->rule_ready, 1, __ATOMIC_RELEASE);
	return 0;
}

/* One message on a pipe; false if the peer is gone (or a short transfer). */
static bool
sync_send(int fd, uint32_t type, uint32_t round)
{
	struct sync_msg m = { .type = type, .round = round };
	ssize_t n;

	do
		n = write(fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(m);
}

/* Secondary: the next command, false at the end of the pipe. */
static bool
sync_recv(int fd, struct sync_msg *m)
{
	ssize_t n;

	do
		n = read(fd, m, sizeof(*m));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m);
}

/* Read every bulk (one command each) for round @p round; the final one from the snapshot too. */
static int
reader_round(struct demo_state *st, struct demo_reader *me, struct mdevx_share_dev *dev,
	     const mdevx_share_imp_t *cnt, uint32_t round, bool final)
{
	struct mdevx_counter_stats stats[BULK_SIZE];

	for (uint32_t b = 0; b < st->nb_bulks; b++) {
		struct mdevx_share_counter_snap snap;
		uint64_t p = 0, by = 0;
		int rc = mdevx_share_counter_query(dev, cnt[b], 0, BULK_SIZE, 0, stats);

		if (rc != 0) {
			snprintf(me->error, sizeof(me->error), "query counters-%u: %s", b,
				 strerror(-rc));
			return -1;
		}
		for (int i = 0; i < BULK_SIZE; i++) {
			p += stats[i].packets;
			by += stats[i].bytes;
		}
		me->packets[b] = p;
		me->bytes[b] = by;
		me->reads++;
		if (!final || !st->snapshot)
			continue;
		/* The primary refreshed the snapshot after the last injection. */
		p = 0;
		by = 0;
		memset(&snap, 0, sizeof(snap));
		rc = mdevx_share_counter_read(dev, cnt[b], 0, BULK_SIZE, stats, &snap);
		for (int i = 0; i < BULK_SIZE && rc == 0; i++) {
			p += stats[i].packets;
			by += stats[i].bytes;
		}
		me->snap_rc[b] = rc;
		me->snap_packets[b] = p;
		me->snap_bytes[b] = by;
		me->snap_seq[b] = snap.refresh_seq;
	}
	me->round = round;
	return 0;
}

static int
run_reader(struct demo_state *st, int id, const int *sync_fd)
{
	struct demo_reader *me = &st->reader[id];
	const struct rule_plan *plan = &st->plan[id];
	mdevx_share_imp_t cnt[MAX_BULKS], tir[NB_TIRS], rcnt = { 0 };
	struct mdevx_share_dev *dev;
	struct mdevx_matcher *matcher = NULL;
	mdevx_share_rule_t rule = { 0 };
	struct sync_msg m;
	char name[32];
	uint64_t t0;
	int ret = 1;

	dev = mdevx_share_dev_attach(st->devstr);
	if (dev == NULL) {
		snprintf(me->error, sizeof(me->error), "attach: %s", strerror(errno));
		goto fail;
	}
	me->attached = 1;
	t0 = now_ns();
	for (uint32_t b = 0; b < st->nb_bulks; b++) {
		snprintf(name, sizeof(name), "counters-%u", b);
		if (mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &cnt[b]) != 0) {
			snprintf(me->error, sizeof(me->error), "import %s: %s", name,
				 strerror(errno));
			goto fail_close;
		}
	}
	for (int t = 0; t < NB_TIRS; t++) {
		if (mdevx_share_import(dev, tir_names[t], MDEVX_OBJ_TIR, &tir[t]) != 0) {
			snprintf(me->error, sizeof(me->error), "import %s: %s", tir_names[t],
				 strerror(errno));
			goto fail_close;
		}
	}
	me->import_ns = now_ns() - t0;
	for (int t = 0; t < NB_TIRS; t++) {
		struct mdevx_tir_attr a;

		if (mdevx_share_tir_query(dev, tir[t], &a) == 0 && tir_equal(&a, &st->tir[t]))
			me->tirs_ok++;
	}
	__atomic_store_n(&me->ready, 1, __ATOMIC_RELEASE);
	if (!sync_send(sync_fd[1], SYNC_READY, 0)) {
		snprintf(me->error, sizeof(me->error), "report: %s", strerror(errno));
		goto fail_rule;
	}
	/* The primary's commands, until it closes the pipe (after the withdrawal). */
	while (sync_recv(sync_fd[0], &m)) {
		if (m.type == SYNC_READ || m.type == SYNC_READ_FINAL) {
			if (reader_round(st, me, dev, cnt, m.round, m.type == SYNC_READ_FINAL) != 0)
				goto fail_rule;
		} else if (m.type == SYNC_STEER && rule.id == 0 && rcnt.id == 0) {
			/*
			 * Steering: a rule of ours to one of the primary's TIRs,
			 * counting on the bulk of one counter it published for us.
			 */
			snprintf(name, sizeof(name), RULE_COUNTER_FMT, (unsigned int)id);
			if (mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &rcnt) != 0) {
				snprintf(me->error, sizeof(me->error), "import %s: %s", name,
					 strerror(errno));
				goto fail_rule;
			}
			if (rule_install(dev, id, plan, tir[plan->tir], rcnt, &matcher, &rule,
					 me) != 0)
				goto fail_rule;
		} else if (m.type == SYNC_RULE && rule.id != 0) {
			struct mdevx_counter_stats cs;
			int rc = mdevx_share_counter_query(dev, rcnt, 0, 1, 0, &cs);

			if (rc != 0) {
				snprintf(me->error, sizeof(me->error), "rule counter: %s",
					 strerror(-rc));
				goto fail_rule;
			}
			me->rule_packets = cs.packets;
			me->rule_bytes = cs.bytes;
			me->rule_read = 1;
		} else {
			snprintf(me->error, sizeof(me->error), "unknown command %u", m.type);
			goto fail_rule;
		}
		if (!sync_send(sync_fd[1], SYNC_DONE, m.round)) {
			snprintf(me->error, sizeof(me->error), "report: %s", strerror(errno));
			goto fail_rule;
		}
	}
	ret = 0;
	/* The withdrawal removed our rule before we acknowledged: forget it. */
	if (rule.id != 0) {
		int rc;

		me->rule_state = mdevx_share_rule_state(dev, rule);
		rc = mdevx_share_rule_destroy(dev, rule);
		if (rc != 0) {
			snprintf(me->error, sizeof(me->error), "forget the rule: %s",
				 strerror(-rc));
			ret = 1;
		}
		rule.id = 0;
	}
fail_rule:
	if (rule.id != 0)
		mdevx_share_rule_destroy(dev, rule);
	if (matcher != NULL) {
		int rc = mdevx_matcher_destroy(matcher);

		if (rc != 0 && ret == 0) {
			snprintf(me->error, sizeof(me->error), "matcher: %s", strerror(-rc));
			ret = 1;
		}
	}
	for (uint32_t b = 0; b < st->nb_bulks; b++)
		mdevx_share_unimport(dev, cnt[b]);
	for (int t = 0; t < NB_TIRS; t++)
		mdevx_share_unimport(dev, tir[t]);
	if (rcnt.id != 0)
		mdevx_share_unimport(dev, rcnt);
	if (mdevx_share_dev_close(dev) != 0 && ret == 0) {
		snprintf(me->error, sizeof(me->error), "close: %s", strerror(errno));
		ret = 1;
	}
	if (ret == 0) {
		me->done = 1;
		return 0;
	}
	me->failed = 1;
	sync_send(sync_fd[1], SYNC_FAILED, 0);
	return 1;
fail_close:
	mdevx_share_dev_close(dev);
fail:
	me->failed = 1;
	sync_send(sync_fd[1], SYNC_FAILED, 0);
	return 1;
}

/* ---------------------------------------------------------------- */
/* Primary: what the pcap must do, computed from the file            */
/* ---------------------------------------------------------------- */

struct expect {
	uint64_t frames, bytes;
	uint64_t misses;			/* frames no rule takes */
	uint64_t packets[MAX_SECONDARIES];	/* per rule */
	uint64_t rule_bytes[MAX_SECONDARIES];
	/* Per rule, per RQ: the RSS RQs, then the direct TIR's RQ. */
	uint64_t rq_packets[MAX_SECONDARIES][NB_RSS_RQ + 1];
	uint64_t rq_bytes[MAX_SECONDARIES][NB_RSS_RQ + 1];
};

static int
rule_of_port(const struct demo_state *st, unsigned int nb_rules, uint16_t port)
{
	for (unsigned int i = 0; i < nb_rules; i++)
		if (st->plan[i].port == port)
			return (int)i;
	return -1;
}

/*
 * Which rule takes frame @p p of @p len bytes (-1: none, -2: IPv6 to an
 * RSS rule's port) and, through the RSS TIR, which RQ rte_softrss() picks.
 * The rules match IP protocol UDP and the destination port, IPv4 or IPv6,
 * behind at most one 802.1Q tag; the RSS TIR hashes the IPv4 addresses and
 * the UDP ports with its Toeplitz key.
 */
static int
classify(const struct demo_state *st, unsigned int nb_rules, const uint8_t *p, uint32_t len,
	 uint32_t *rq)
{
	struct pcap_udp u;
	int r;

	if (pcap_udp_decode(p, len, &u) != 0)
		return -1;
	r = rule_of_port(st, nb_rules, u.dport);
	if (r < 0)
		return -1;
	if (st->plan[r].tir == TIR_DIRECT) {
		*rq = RQ_DIRECT;
	} else {
		if (!u.ipv4)
			return -2;
		*rq = rte_softrss(u.tuple, RTE_DIM(u.tuple), st->tir[TIR_RSS].toeplitz_key) &
		      (NB_RSS_RQ - 1);
	}
	return r;
}

static int
pcap_expect(const struct demo_state *st, unsigned int nb_rules, const char *path,
	    struct expect *e)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int rc;

	memset(e, 0, sizeof(*e));
	pc = pcap_open_offline(path, errbuf);
	if (pc == NULL) {
		fprintf(stderr, "mlx5-share-demo: --pcap %s: %s\n", path, errbuf);
		return -1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, "mlx5-share-demo: --pcap %s: not an Ethernet capture\n", path);
		pcap_close(pc);
		return -1;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		uint32_t rq = 0;
		int r;

		if (h->caplen != h->len) {
			fprintf(stderr, "mlx5-share-demo: --pcap %s: frame %" PRIu64 " cut short by "
				"the capture\n", path,
				e->frames + 1);
			break;
		}
		r = classify(st, nb_rules, data, h->caplen, &rq);
		if (r == -2) {
			fprintf(stderr, "mlx5-share-demo: --pcap %s: frame %" PRIu64 ": IPv6 to an "
				"RSS rule's port (the RSS TIR hashes IPv4)\n", path, e->frames + 1);
			break;
		}
		e->frames++;
		e->bytes += h->len;
		if (r < 0) {
			e->misses++;
			continue;
		}
		e->packets[r]++;
		e->rule_bytes[r] += h->len;
		e->rq_packets[r][rq]++;
		e->rq_bytes[r][rq] += h->len;
	}
	if (rc != PCAP_ERROR_BREAK) {
		if (rc == PCAP_ERROR)
			fprintf(stderr, "mlx5-share-demo: --pcap %s: %s\n", path, pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Primary                                                           */
/* ---------------------------------------------------------------- */

struct chain {
	struct mdevx_obj *td, *pd, *cq, *rq[NB_RSS_RQ + 1], *rqt;
	uint32_t rqn[NB_RSS_RQ + 1];
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
	struct mdevx_obj *objs[] = { c->rqt, c->rq[4], c->rq[3], c->rq[2], c->rq[1], c->rq[0],
				     c->cq, c->td, c->pd };

	for (size_t i = 0; i < RTE_DIM(objs); i++)
		if (objs[i] != NULL && mdevx_obj_destroy(objs[i]) != 0)
			fprintf(stderr, "destroy: %s\n", strerror(errno));
	memset(c, 0, sizeof(*c));
}

/* RQs 0..3 behind the RQT of the RSS TIR, RQ 4 behind the direct TIR. */
static int
chain_create(struct mdevx_ctx *ctx, struct chain *c)
{
	struct mdevx_cq_attr cqa = { .log_cq_size = 8, .eq_vector = 0 };
	struct mdevx_rq_attr rqa = { .log_wq_size = 8, .log_wq_stride = 6 };

	_Static_assert(RTE_DIM(c->rq) == 5, "chain_destroy() lists every RQ");
	memset(c, 0, sizeof(*c));
	c->td = mdevx_td_alloc(ctx);
	c->pd = mdevx_pd_alloc(ctx);
	c->cq = c->td != NULL && c->pd != NULL ? mdevx_cq_create(ctx, &cqa) : NULL;
	if (c->cq == NULL)
		return -1;
	rqa.cq = c->cq;
	rqa.pd = c->pd;
	for (int i = 0; i <= NB_RSS_RQ; i++) {
		rqa.user_index = (uint32_t)i;
		c->rq[i] = mdevx_rq_create(ctx, &rqa);
		if (c->rq[i] == NULL)
			return -1;
		c->rqn[i] = id_of(c->rq[i]);
	}
	c->rqt = mdevx_rqt_create(ctx, c->rq, NB_RSS_RQ);
	return c->rqt != NULL ? 0 : -1;
}

/* The primary's ends of the handshake pipes, and who still answers. */
struct peers {
	unsigned int n;
	int cmd[MAX_SECONDARIES];	/* commands out; closed: finish */
	int rep[MAX_SECONDARIES];	/* reports in */
	bool live[MAX_SECONDARIES];
};

/*
 * Start secondary @p id with a pipe each way (its ends are the only
 * descriptors it inherits: the pipes are close-on-exec but for them).
 */
static pid_t
spawn_reader(const char *prefix_arg, int id, struct peers *pe)
{
	char exe[PATH_MAX], id_str[16], fds[32];
	const char *argv[] = { exe, "--proc-type=secondary", prefix_arg, "--no-pci",
			       "--no-telemetry", "--log-level=lib.eal:error", "--", "--reader",
			       id_str, "--sync-fds", fds, NULL };
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	posix_spawn_file_actions_t fa;
	int cmd[2], rep[2], err;
	pid_t pid;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (pipe2(cmd, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(rep, O_CLOEXEC) != 0) {
		close(cmd[0]);
		close(cmd[1]);
		return -1;
	}
	snprintf(id_str, sizeof(id_str), "%d", id);
	snprintf(fds, sizeof(fds), "%d,%d", cmd[0], rep[1]);
	fflush(stdout);
	/*
	 * posix_spawn(), not fork(): the mlx5 drivers have called
	 * ibv_fork_init(), so heap pages (the environment's among them) may
	 * be absent in a forked child. A dup2() of a descriptor onto itself
	 * clears its close-on-exec flag.
	 */
	err = posix_spawn_file_actions_init(&fa);
	if (err == 0) {
		posix_spawn_file_actions_adddup2(&fa, cmd[0], cmd[0]);
		posix_spawn_file_actions_adddup2(&fa, rep[1], rep[1]);
		err = posix_spawn(&pid, exe, &fa, NULL, (char *const *)(uintptr_t)argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(cmd[0]);
	close(rep[1]);
	if (err != 0) {
		close(cmd[1]);
		close(rep[0]);
		return -1;
	}
	pe->cmd[id] = cmd[1];
	pe->rep[id] = rep[0];
	pe->live[id] = true;
	pe->n++;
	return pid;
}

/* Close the command pipes: every secondary finishes. */
static void
peers_finish(struct peers *pe)
{
	for (unsigned int i = 0; i < pe->n; i++) {
		if (pe->cmd[i] >= 0)
			close(pe->cmd[i]);
		pe->cmd[i] = -1;
	}
}

static void
peers_close(struct peers *pe)
{
	peers_finish(pe);
	for (unsigned int i = 0; i < pe->n; i++) {
		if (pe->rep[i] >= 0)
			close(pe->rep[i]);
		pe->rep[i] = -1;
		pe->live[i] = false;
	}
}

/*
 * Send command @p type for @p round to every live secondary (none for
 * type 0) and wait until each one answered @p want for that round. A
 * secondary that reports a failure, closes its pipe, answers something
 * else or does not answer within @p ms is no longer live. Returns the live
 * secondaries.
 */
static unsigned int
sync_all(struct peers *pe, uint32_t type, uint32_t round, uint32_t want, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	bool pending[MAX_SECONDARIES];
	unsigned int live = 0;

	for (unsigned int i = 0; i < pe->n; i++) {
		pending[i] = pe->live[i];
		if (pending[i] && type != 0 && !sync_send(pe->cmd[i], type, round))
			pending[i] = pe->live[i] = false;
	}
	for (;;) {
		struct pollfd pfd[MAX_SECONDARIES];
		unsigned int idx[MAX_SECONDARIES], np = 0;
		uint64_t now = now_ns();
		int rc;

		for (unsigned int i = 0; i < pe->n; i++)
			if (pending[i]) {
				pfd[np].fd = pe->rep[i];
				pfd[np].events = POLLIN;
				idx[np++] = i;
			}
		if (np == 0)
			break;
		rc = now < end && !interrupted ?
		     poll(pfd, np, (int)((end - now + 999999) / 1000000)) : 0;
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			for (unsigned int k = 0; k < np; k++) {
				fprintf(stderr, "primary: secondary %u did not answer command %u "
					"of round %u within %u ms\n", idx[k], type, round, ms);
				pending[idx[k]] = pe->live[idx[k]] = false;
			}
			break;
		}
		for (unsigned int k = 0; k < np; k++) {
			struct sync_msg m;
			unsigned int i = idx[k];
			ssize_t n;

			if (pfd[k].revents == 0)
				continue;
			n = read(pe->rep[i], &m, sizeof(m));
			if (n < 0 && errno == EINTR)
				continue;
			pending[i] = false;
			if (n != (ssize_t)sizeof(m) || m.type != want || m.round != round)
				pe->live[i] = false;
		}
	}
	for (unsigned int i = 0; i < pe->n; i++)
		live += pe->live[i];
	return live;
}

/* Root rules on the device (every process's), UINT32_MAX if unknown. */
static uint32_t
device_flows(struct swdev_ctl *ctl, const char *devname)
{
	struct swdev_counts c;

	return swdev_ctl_get_counts(ctl, devname, 0, &c) == 0 ? c.by_kind[SWDEV_KIND_FLOW] :
								  UINT32_MAX;
}

/* Wait until the primary knows @p want rules of secondaries (messages are one-way). */
static uint32_t
wait_peer_rules(const struct mdevx_share_dev *dev, uint32_t want, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	uint32_t peers = UINT32_MAX;

	do {
		if (mdevx_share_dev_rules(dev, NULL, &peers) == 0 && peers == want)
			break;
		usleep(10000);
	} while (now_ns() < end && !interrupted);
	return peers;
}

static const char *
ok_str(bool ok)
{
	return ok ? "OK" : "MISMATCH";
}

static double
percent(uint64_t part, uint64_t whole)
{
	return whole == 0 ? 0.0 : 100.0 * (double)part / (double)whole;
}

/* What the steering phase did, for the summary. */
struct steer_result {
	unsigned int rules;	/* rules installed */
	uint64_t frames, delivered, misses;
	uint64_t rss, direct;	/* delivered through each TIR */
};

/* One line of the port table: the port's statistics and the replay's summary. */
static void
port_row(const char *what, uint64_t port, const uint64_t *summary, uint64_t want)
{
	unsigned int mark = nb_mismatch;
	char s[24] = "-";

	check(port == want);
	if (summary != NULL) {
		snprintf(s, sizeof(s), "%" PRIu64, *summary);
		check(*summary == want);
	}
	printf("%-11s %12" PRIu64 " %16s %10" PRIu64 "  %s\n", what, port, s, want,
	       ok_str(checks_ok(mark)));
}

static void
port_table(const struct swdev_port_stats *p0, const struct swdev_port_stats *p1,
	   const struct swdev_pcap_summary *sum, const struct expect *e, uint64_t delivered,
	   uint64_t misses)
{
	printf("\n%-11s %12s %16s %10s  %s\n", "port", "port stats", "replay summary",
	       "expected", "result");
	port_row("frames", p1->rx_packets - p0->rx_packets, &sum->frames, e->frames);
	port_row("bytes", p1->rx_bytes - p0->rx_bytes, &sum->bytes, e->bytes);
	port_row("delivered", p1->delivered - p0->delivered, &sum->verdicts[SWDEV_RX_DELIVERED],
		 delivered);
	port_row("misses", p1->misses - p0->misses, &sum->verdicts[SWDEV_RX_MISS], misses);
	port_row("drops", p1->drops - p0->drops, &sum->verdicts[SWDEV_RX_DROP], 0);
	port_row("RQ drops", p1->rq_drops - p0->rq_drops, &sum->verdicts[SWDEV_RX_RQ_DROP], 0);
	port_row("bad frames", p1->bad_frames - p0->bad_frames, NULL, 0);
}

/*
 * Steering phase: the secondaries' rules are installed; replay the pcap,
 * then compare every counter (read by its secondary and by the primary),
 * every RQ and the port with what the file says.
 */
static int
steer_phase(struct demo_state *st, const struct demo_opts *o, struct mdevx_share_dev *dev,
	    struct swdev_ctl *ctl, const struct chain *ch, struct mdevx_obj *const *rule_cnt,
	    const pid_t *pids, struct peers *pe, uint32_t *round, const struct expect *e,
	    struct steer_result *res)
{
	const unsigned int n = o->secondaries;
	bool live[MAX_SECONDARIES];
	uint64_t want_p[MAX_SECONDARIES], want_b[MAX_SECONDARIES];
	uint64_t rq_want_p[NB_RSS_RQ + 1] = { 0 }, rq_want_b[NB_RSS_RQ + 1] = { 0 };
	uint64_t rq_got_p[NB_RSS_RQ + 1], rq_got_b[NB_RSS_RQ + 1], rss_total = 0, rq_total = 0;
	uint64_t misses = e->misses;
	struct swdev_rq_stats r0[NB_RSS_RQ + 1], r1;
	struct swdev_port_stats p0, p1;
	struct swdev_pcap_summary sum;
	uint32_t peers, flows;
	unsigned int mark;
	int rc;

	memset(res, 0, sizeof(*res));
	/* Every secondary that answered READY installed its rule. */
	for (unsigned int i = 0; i < n; i++) {
		live[i] = pe->live[i] && st->reader[i].rule_ready && !st->reader[i].failed;
		res->rules += live[i];
		want_p[i] = live[i] ? e->packets[i] : 0;
		want_b[i] = live[i] ? e->rule_bytes[i] : 0;
		if (!live[i]) {
			misses += e->packets[i];
			continue;
		}
		res->delivered += e->packets[i];
		for (int q = 0; q <= NB_RSS_RQ; q++) {
			rq_want_p[q] += e->rq_packets[i][q];
			rq_want_b[q] += e->rq_bytes[i][q];
		}
	}
	peers = wait_peer_rules(dev, res->rules, 3000);
	flows = device_flows(ctl, o->device);
	mark = nb_mismatch;
	check(res->rules == n);
	check(peers == res->rules);
	check(flows == res->rules);
	printf("\nsteering: %u of %u secondaries installed a rule on their imports; the primary "
	       "knows %u, the device holds %u root rule%s  %s\n", res->rules, n, peers, flows,
	       plural(flows), ok_str(checks_ok(mark)));

	rc = swdev_ctl_get_port_stats(ctl, o->device, &p0);
	for (int q = 0; q <= NB_RSS_RQ && rc == 0; q++)
		rc = swdev_ctl_get_rq_stats(ctl, o->device, ch->rqn[q], &r0[q]);
	if (rc != 0) {
		fprintf(stderr, "statistics: %s\n", strerror(rc));
		return -1;
	}
	memset(&sum, 0, sizeof(sum));
	rc = swdev_ctl_send_pcap(ctl, o->device, o->pcap, &sum);
	if (!check(rc == 0))
		fprintf(stderr, "replay %s: %s\n", o->pcap, strerror(rc));
	printf("replayed %s: %" PRIu64 " frames, %" PRIu64 " bytes\n", o->pcap, sum.frames,
	       sum.bytes);
	if (swdev_ctl_get_port_stats(ctl, o->device, &p1) != 0)
		memset(&p1, 0xff, sizeof(p1));
	for (int q = 0; q <= NB_RSS_RQ; q++) {
		if (swdev_ctl_get_rq_stats(ctl, o->device, ch->rqn[q], &r1) != 0)
			memset(&r1, 0xff, sizeof(r1));
		rq_got_p[q] = r1.packets - r0[q].packets;
		rq_got_b[q] = r1.bytes - r0[q].bytes;
		rq_total += rq_got_p[q];
		if (q < NB_RSS_RQ)
			rss_total += rq_got_p[q];
	}
	res->rss = rss_total;
	res->direct = rq_got_p[RQ_DIRECT];
	res->frames = sum.frames;
	res->misses = sum.verdicts[SWDEV_RX_MISS];
	/* The replay is over: every secondary reads its rule's counter, and says so. */
	if (sync_all(pe, SYNC_RULE, ++*round, SYNC_DONE, WAIT_MS) != n)
		fprintf(stderr, "steering: not every secondary read its rule's counter\n");

	/* One row per rule: what its secondary read, what the primary reads. */
	printf("\n%-47s  %-18s  %-18s  %s\n", "", "read by secondary", "read by primary",
	       "expected");
	printf("%-4s %-8s %-5s %-11s %-15s  %7s %10s  %7s %10s  %7s %10s  %s\n", "sec", "pid",
	       "port", "TIR", "counter", "packets", "bytes", "packets", "bytes", "packets",
	       "bytes", "result");
	for (unsigned int i = 0; i < n; i++) {
		const struct demo_reader *r = &st->reader[i];
		const struct rule_plan *p = &st->plan[i];
		struct mdevx_counter_stats ps = { UINT64_MAX, UINT64_MAX };
		char ctr[24], sp[24], sb[24];
		int qrc;

		mark = nb_mismatch;
		qrc = mdevx_counter_query(rule_cnt[i], 0, 1, 0, &ps);
		if (qrc != 0)
			fprintf(stderr, "primary: counter query: %s\n", strerror(-qrc));
		check(ps.packets == want_p[i]);
		check(ps.bytes == want_b[i]);
		if (live[i] && r->rule_read) {
			snprintf(sp, sizeof(sp), "%" PRIu64, r->rule_packets);
			snprintf(sb, sizeof(sb), "%" PRIu64, r->rule_bytes);
			check(r->rule_packets == want_p[i]);
			check(r->rule_bytes == want_b[i]);
		} else {
			snprintf(sp, sizeof(sp), "-");
			snprintf(sb, sizeof(sb), "-");
			check(false);
		}
		snprintf(ctr, sizeof(ctr), RULE_COUNTER_FMT, i);
		printf("%-4u %-8d %-5u %-11s %-15s  %7s %10s  %7" PRIu64 " %10" PRIu64 "  %7"
		       PRIu64 " %10" PRIu64 "  %s%s%s\n", i, (int)pids[i], p->port,
		       tir_names[p->tir], ctr, sp, sb, ps.packets, ps.bytes, want_p[i],
		       want_b[i], ok_str(checks_ok(mark)), r->failed ? ": " : "",
		       r->failed ? (const char *)r->error : "");
	}

	/* One row per RQ: the RSS spread and the direct TIR's RQ. */
	printf("\n%-29s  %-18s  %s\n", "", "received", "predicted");
	printf("%-7s %-9s %-11s  %7s %10s  %7s %10s  %6s  %s\n", "RQ", "rqn", "TIR", "packets",
	       "bytes", "packets", "bytes", "share", "result");
	for (int q = 0; q <= NB_RSS_RQ; q++) {
		char rq[16], rqn[16];

		mark = nb_mismatch;
		check(rq_got_p[q] == rq_want_p[q]);
		check(rq_got_b[q] == rq_want_b[q]);
		if (q < NB_RSS_RQ)
			snprintf(rq, sizeof(rq), "rss %d", q);
		else
			snprintf(rq, sizeof(rq), "direct");
		snprintf(rqn, sizeof(rqn), "%#x", ch->rqn[q]);
		printf("%-7s %-9s %-11s  %7" PRIu64 " %10" PRIu64 "  %7" PRIu64 " %10" PRIu64
		       "  %5.1f%%  %s\n", rq, rqn, tir_names[q < NB_RSS_RQ ? TIR_RSS : TIR_DIRECT],
		       rq_got_p[q], rq_got_b[q], rq_want_p[q], rq_want_b[q],
		       percent(rq_got_p[q], rq_total), ok_str(checks_ok(mark)));
	}
	printf("RSS spread of the %" PRIu64 " packets through %s (Toeplitz, IPv4/UDP 4-tuple):",
	       rss_total, tir_names[TIR_RSS]);
	for (int q = 0; q < NB_RSS_RQ; q++)
		printf(" %.1f%%", percent(rq_got_p[q], rss_total));
	printf("\n");

	port_table(&p0, &p1, &sum, e, res->delivered, misses);
	return 0;
}

/*
 * How to run the project's program @p name: from a build tree (this
 * program in <build>/app/mlx5-share-demo/), <build>/app/<name>/<name>;
 * installed, its name.
 */
static const char *
tool_path(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return name;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL || strcmp(slash, "/mlx5-share-demo") != 0)
		return name;
	*slash = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL || strcmp(slash, "/mlx5-share-demo") != 0)
		return name;	/* installed: bin/mlx5-share-demo */
	*slash = '\0';
	if (snprintf(buf, len, "%s/%s/%s", exe, name, name) >= (int)len || access(buf, X_OK) != 0)
		return name;
	return buf;
}

/*
 * --hold: refresh the counter snapshot of every bulk (the service would
 * within a period), say what each bulk got and wait, for mlx5-share-info.
 */
static void
hold(struct mdevx_share_dev *dev, const struct demo_opts *o, const uint64_t *packets,
     const uint64_t *bytes)
{
	uint64_t end = now_ns() + (uint64_t)o->hold_ms * 1000000;
	char name[32], tool[PATH_MAX], swdev[PATH_MAX];

	for (uint32_t b = 0; b < o->bulks; b++) {
		mdevx_share_imp_t imp;
		int rc;

		snprintf(name, sizeof(name), "counters-%u", b);
		rc = mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp);
		if (rc == 0) {
			if (o->counter_period_ms > 0)
				rc = mdevx_share_counter_refresh(dev, imp, 2000);
			mdevx_share_unimport(dev, imp);
		}
		printf("hold: %s packets=%" PRIu64 " bytes=%" PRIu64 " counters=", name,
		       packets[b], bytes[b]);
		for (int k = 0; k < TRAFFIC_COUNTERS; k++)
			printf("%s%d", k ? "," : "", k * TRAFFIC_STRIDE);
		printf("%s%s\n", rc != 0 ? " refresh=" : "", rc != 0 ? strerror(-rc) : "");
	}
	/* The tool attaches as a secondary: on the software device, under the launcher. */
	printf("hold: %u ms; look with: %s run --socket %s -- %s --file-prefix=%s -- [--json]\n",
	       o->hold_ms, tool_path("mlx5-swdev", swdev, sizeof(swdev)), getenv("SWDEV_SOCKET"),
	       tool_path("mlx5-share-info", tool, sizeof(tool)),
	       strrchr(rte_eal_get_runtime_dir(), '/') + 1);
	fflush(stdout);
	while (!interrupted && now_ns() < end)
		usleep(10000);
	if (interrupted) {
		interrupted = 0;	/* the hold ends; the demo goes on */
		printf("hold: interrupted\n");
	}
}

static int
run_primary(struct demo_state *st, const struct demo_opts *o, const struct expect *expect)
{
	struct mdevx_share_conf conf = {
		.capacity = 1024, .withdraw_timeout_ms = 2000,
		/* the option's 0 is "off"; the library's 0 is its default */
		.counter_period_ms = o->counter_period_ms > 0 ? o->counter_period_ms :
				     MDEVX_SHARE_COUNTER_PERIOD_OFF,
	};
	uint64_t truth_p[MAX_BULKS] = { 0 }, truth_b[MAX_BULKS] = { 0 }, tp = 0, tb = 0;
	struct mdevx_obj *rule_cnt[MAX_SECONDARIES] = { NULL };
	uint32_t base[MAX_BULKS];
	struct mdevx_share_dev *dev;
	struct swdev_ctl *ctl = NULL;
	struct mdevx_ctx *ctx;
	struct swdev_counts counts;
	struct steer_result sr = { 0 };
	struct expect e = { 0 };
	pid_t pids[MAX_SECONDARIES];
	struct peers pe = { .n = 0 };
	struct mdevx_share_service_stats svc;
	unsigned int round_bad[MAX_SECONDARIES] = { 0 }, counters_mark = 0;
	uint32_t round = 0, rounds = 0;
	bool counters_ok = false;
	char prefix_arg[PATH_MAX], name[32];
	const char *sock = getenv("SWDEV_SOCKET");
	struct chain ch;
	uint64_t seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL, t_end;
	unsigned int acked_total = 0, spawned = 0, withdrawn = 0, mark;
	unsigned int nb_records = o->bulks + NB_TIRS + (expect != NULL ? o->secondaries : 0);
	uint32_t flows_before = 0, flows_after = 0, peers_before = 0, peers_after = 0;
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
	/* As on a NIC: rdma-core's device (run-demo.sh runs us under `mlx5-swdev run`). */
	snprintf(st->devstr, sizeof(st->devstr), "rdma:%s", o->device);
	dev = mdevx_share_dev_open(st->devstr, &conf);
	if (dev == NULL) {
		fprintf(stderr, "open %s: %s\n", st->devstr, strerror(errno));
		swdev_ctl_close(ctl);
		return 1;
	}
	ctx = mdevx_share_dev_ctx(dev);
	memset(&ch, 0, sizeof(ch));
	printf("primary %d: device %s shared, instance cookie %#" PRIx64 "\n", (int)getpid(),
	       st->devstr, mdevx_share_dev_cookie(dev));

	/* The TIRs' hash and the secondaries' rules; what the pcap does through them. */
	demo_plan(st, o);
	if (expect != NULL) {
		uint64_t taken = 0;

		e = *expect;
		for (unsigned int i = 0; i < o->secondaries; i++)
			taken += e.packets[i];
		printf("primary: %s: %" PRIu64 " frames, %" PRIu64 " bytes; %" PRIu64
		       " for the secondaries' ports %u..%u, %" PRIu64 " that no rule takes\n",
		       o->pcap, e.frames, e.bytes, taken, RULE_PORT_BASE,
		       RULE_PORT_BASE + o->secondaries - 1, e.misses);
		st->steering = 1;
	} else {
		printf("primary: no --pcap: no steering phase\n");
	}

	/* What gets shared: counter bulks and two TIRs. */
	if (chain_create(ctx, &ch) != 0) {
		fprintf(stderr, "queue objects: %s\n", strerror(errno));
		goto out_chain;
	}
	for (uint32_t b = 0; b < o->bulks; b++) {
		struct mdevx_obj *cnt = mdevx_counter_alloc(ctx, BULK_SIZE);

		snprintf(name, sizeof(name), "counters-%u", b);
		if (cnt != NULL)
			base[b] = id_of(cnt);
		if (cnt == NULL || mdevx_share_publish(dev, name, cnt) != 0) {
			fprintf(stderr, "publish %s: %s\n", name, strerror(errno));
			if (cnt != NULL)
				mdevx_obj_destroy(cnt);
			goto out_chain;
		}
	}
	st->tir[TIR_DIRECT].disp_type = MDEVX_TIR_DISP_DIRECT;
	st->tir[TIR_DIRECT].inline_rqn = ch.rqn[RQ_DIRECT];
	st->tir[TIR_DIRECT].transport_domain = id_of(ch.td);
	st->tir[TIR_RSS].disp_type = MDEVX_TIR_DISP_INDIRECT;
	st->tir[TIR_RSS].indirect_table = id_of(ch.rqt);
	st->tir[TIR_RSS].transport_domain = id_of(ch.td);
	for (int t = 0; t < NB_TIRS; t++) {
		struct mdevx_obj *tir = mdevx_tir_create(ctx, &st->tir[t]);

		if (tir == NULL || mdevx_share_publish(dev, tir_names[t], tir) != 0) {
			fprintf(stderr, "TIR: %s\n", strerror(errno));
			goto out_chain;
		}
	}
	printf("primary: published %u counter bulk%s of %d, a direct TIR (1 RQ) and an RSS TIR "
	       "(%d RQs)", o->bulks, plural(o->bulks), BULK_SIZE, NB_RSS_RQ);
	printf(" (%u records)\n", mdevx_share_record_count(dev));

	/* Secondaries: this program again, with our prefix. */
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s",
		 strrchr(rte_eal_get_runtime_dir(), '/') + 1);
	for (unsigned int i = 0; i < o->secondaries; i++) {
		pids[i] = spawn_reader(prefix_arg, (int)i, &pe);
		if (pids[i] < 0) {
			fprintf(stderr, "cannot start secondary %u: %s\n", i, strerror(errno));
			goto out_chain;
		}
		spawned++;
	}
	t_end = now_ns();
	if (sync_all(&pe, 0, 0, SYNC_READY, START_WAIT_MS) != o->secondaries)
		fprintf(stderr, "primary: not every secondary is ready\n");
	printf("primary: started %u secondaries, ready after %" PRIu64 " ms%s; injecting traffic "
	       "into the counters for %u ms\n", o->secondaries, (now_ns() - t_end) / 1000000,
	       " (imports)", o->duration_ms);
	/*
	 * Rounds: inject into every bulk, then every secondary reads every bulk
	 * and answers before the next round starts; each round's reading must
	 * be what was injected so far.
	 */
	t_end = now_ns() + (uint64_t)o->duration_ms * 1000000;
	while (now_ns() < t_end && !interrupted) {
		for (uint32_t b = 0; b < o->bulks; b++) {
			for (int k = 0; k < TRAFFIC_COUNTERS; k++) {
				uint32_t id = base[b] + (uint32_t)k * TRAFFIC_STRIDE;
				uint64_t p;

				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				p = 1 + seed % 1000;
				if (swdev_ctl_inject_traffic(ctl, o->device, id, p, p * 128) == 0) {
					truth_p[b] += p;
					truth_b[b] += p * 128;
				}
			}
		}
		sync_all(&pe, SYNC_READ, ++round, SYNC_DONE, WAIT_MS);
		rounds++;
		for (unsigned int i = 0; i < o->secondaries; i++)
			for (uint32_t b = 0; b < o->bulks && pe.live[i]; b++)
				if (st->reader[i].packets[b] != truth_p[b] ||
				    st->reader[i].bytes[b] != truth_b[b]) {
					round_bad[i]++;
					break;
				}
		usleep(50000);	/* pacing: the rounds are synchronised by the answers */
	}
	/*
	 * The injection is over. With the snapshot service on: a refresh that
	 * started after the last injection, per bulk (its refresh number is the
	 * proof), then the final round reads both the device and the snapshot.
	 */
	if (mdevx_share_service_stats(dev, &svc) == 0 && svc.period_ms != 0)
		st->snapshot = 1;
	for (uint32_t b = 0; b < o->bulks; b++) {
		struct mdevx_counter_stats s[BULK_SIZE];
		struct mdevx_share_counter_snap snap;
		mdevx_share_imp_t imp;
		uint64_t p = 0, sp = 0;
		int rc;

		/* The primary reads too, through an import of its own record. */
		snprintf(name, sizeof(name), "counters-%u", b);
		rc = mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp);
		if (rc != 0) {
			fprintf(stderr, "primary: import %s: %s\n", name, strerror(errno));
			check(false);
			continue;
		}
		if (mdevx_share_counter_query(dev, imp, 0, BULK_SIZE, 0, s) == 0)
			for (int i = 0; i < BULK_SIZE; i++)
				p += s[i].packets;
		check(p == truth_p[b]);
		if (st->snapshot) {
			memset(&snap, 0, sizeof(snap));
			rc = mdevx_share_counter_refresh(dev, imp, WAIT_MS);
			if (rc == 0)
				rc = mdevx_share_counter_read(dev, imp, 0, BULK_SIZE, s, &snap);
			if (rc != 0)
				fprintf(stderr, "primary: refresh %s: %s\n", name, strerror(-rc));
			for (int i = 0; i < BULK_SIZE && rc == 0; i++)
				sp += s[i].packets;
			check(rc == 0 && sp == truth_p[b]);
			st->final_seq[b] = snap.refresh_seq;
		}
		mdevx_share_unimport(dev, imp);
		tp += truth_p[b];
		tb += truth_b[b];
	}
	sync_all(&pe, SYNC_READ_FINAL, ++round, SYNC_DONE, WAIT_MS);
	counters_mark = nb_mismatch;
	printf("primary: %u round%s, each read by every secondary before the next; then a last "
	       "read%s\n", rounds, plural(rounds),
	       st->snapshot ? " of the device and of the refreshed snapshot" : " (snapshot off)");

	printf("\n%-10s %-8s %-9s %-8s %-10s %-7s %14s %14s  %s\n", "process", "pid", "attached",
	       "TIRs ok", "imports", "rounds", "packets read", "bytes read", "matches primary");
	printf("%-10s %-8d %-9s %-8s %-10s %-7u %14" PRIu64 " %14" PRIu64 "  %s\n", "primary",
	       (int)getpid(), "-", "-", "-", rounds, tp, tb,
	       nb_mismatch == 0 ? "(injected = read)" : "MISMATCH");
	for (unsigned int i = 0; i < o->secondaries; i++) {
		struct demo_reader *r = &st->reader[i];
		uint64_t rp = 0, rb = 0;
		unsigned int mark = nb_mismatch;
		bool final = pe.live[i] && r->round == round;
		char imp_str[32], rounds_str[16];

		for (uint32_t b = 0; b < o->bulks; b++) {
			rp += r->packets[b];
			rb += r->bytes[b];
			if (!st->snapshot)
				continue;
			/* The snapshot it read was refreshed after the last injection. */
			check(final && r->snap_rc[b] == 0 && r->snap_seq[b] >= st->final_seq[b] &&
			      r->snap_packets[b] == truth_p[b] && r->snap_bytes[b] == truth_b[b]);
		}
		snprintf(imp_str, sizeof(imp_str), "%.1f us",
			 (double)r->import_ns / 1000 / (o->bulks + NB_TIRS + st->steering));
		snprintf(rounds_str, sizeof(rounds_str), "%u/%u", rounds - round_bad[i], rounds);
		check(final);
		check(round_bad[i] == 0);
		check(rp == tp);
		check(rb == tb);
		check(r->tirs_ok == NB_TIRS);
		check(!r->failed);
		printf("%-10s %-8d %-9s %-8u %-10s %-7s %14" PRIu64 " %14" PRIu64 "  %s\n",
		       "secondary", (int)pids[i], r->attached ? "yes" : "no", r->tirs_ok,
		       r->failed ? "failed" : imp_str, rounds_str, rp, rb,
		       r->failed ? (const char *)r->error : !final ? "NO: did not answer" :
		       checks_ok(mark) ? "yes" : "NO");
	}
	counters_ok = checks_ok(counters_mark);

	if (o->hold_ms > 0 && !interrupted)
		hold(dev, o, truth_p, truth_b);

	/*
	 * Steering: a counter of its own for each secondary's rule, counted at
	 * offset 0, what a root rule can count on with every rdma-core (an
	 * offset inside a bulk needs rdma-core 60, see doc/steering.rst).
	 */
	for (unsigned int i = 0; i < o->secondaries && st->steering && !interrupted; i++) {
		struct mdevx_obj *cnt = mdevx_counter_alloc(ctx, 1);

		snprintf(name, sizeof(name), RULE_COUNTER_FMT, i);
		if (cnt == NULL || mdevx_share_publish(dev, name, cnt) != 0) {
			fprintf(stderr, "publish %s: %s\n", name, strerror(errno));
			if (cnt != NULL)
				mdevx_obj_destroy(cnt);
			goto out_chain;
		}
		rule_cnt[i] = cnt;
	}
	if (st->steering && !interrupted) {
		printf("\nprimary: published a counter for each secondary's rule (%u records)\n",
		       mdevx_share_record_count(dev));
		/* Each secondary imports its counter and installs its rule, and says so. */
		sync_all(&pe, SYNC_STEER, ++round, SYNC_DONE, WAIT_MS);
	}
	/* Packets through the shared objects. */
	if (st->steering && !interrupted &&
	    steer_phase(st, o, dev, ctl, &ch, rule_cnt, pids, &pe, &round, &e, &sr) != 0)
		bad++;

	/* Withdraw everything: the secondaries remove their rules, acknowledge, objects go. */
	flows_before = device_flows(ctl, o->device);
	mdevx_share_dev_rules(dev, NULL, &peers_before);
	printf("\nprimary: withdrawing %u records\n", mdevx_share_record_count(dev));
	for (uint32_t b = 0; b < o->bulks; b++) {
		unsigned int acked = 0;

		snprintf(name, sizeof(name), "counters-%u", b);
		if (mdevx_share_withdraw(dev, name, &acked) != 0)
			bad++;
		else
			withdrawn++;
		acked_total += acked;
	}
	for (int t = 0; t < NB_TIRS; t++) {
		unsigned int acked = 0;

		if (mdevx_share_withdraw(dev, tir_names[t], &acked) != 0)
			bad++;
		else
			withdrawn++;
		acked_total += acked;
	}
	for (unsigned int i = 0; i < o->secondaries && st->steering; i++) {
		unsigned int acked = 0;

		snprintf(name, sizeof(name), RULE_COUNTER_FMT, i);
		if (mdevx_share_withdraw(dev, name, &acked) != 0)
			bad++;
		else
			withdrawn++;
		acked_total += acked;
		rule_cnt[i] = NULL;
	}
	mark = nb_mismatch;
	check(acked_total == o->secondaries * nb_records);
	check(withdrawn == nb_records);
	printf("primary: %u acknowledgements for %u withdrawals from %u secondaries  %s\n",
	       acked_total, withdrawn, o->secondaries, ok_str(checks_ok(mark)));
	if (st->steering) {
		flows_after = device_flows(ctl, o->device);
		peers_after = wait_peer_rules(dev, 0, 3000);
		mark = nb_mismatch;
		check(flows_after == 0);
		check(peers_after == 0);
		printf("primary: root rules on the device %u -> %u, rules of secondaries known "
		       "to the primary %u -> %u  %s\n", flows_before, flows_after, peers_before,
		       peers_after, ok_str(checks_ok(mark)));
	}
	peers_finish(&pe);	/* the end of the command pipes: every secondary finishes */
	for (unsigned int i = 0; i < spawned; i++) {
		int status = 0;

		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "secondary %u: %s\n", i, st->reader[i].error);
			bad++;
		}
	}
	spawned = 0;
	if (st->steering) {
		printf("\n%-4s %-8s %-5s %-28s %s\n", "sec", "pid", "port",
		       "rule after the withdrawal", "result");
		for (unsigned int i = 0; i < o->secondaries; i++) {
			int32_t rs = st->reader[i].rule_state;
			bool ok = check(st->reader[i].rule_ready && rs == -ESTALE);

			printf("%-4u %-8d %-5u %-28s %s\n", i, (int)pids[i], st->plan[i].port,
			       !st->reader[i].rule_ready ? "(never installed)" :
			       rs == -ESTALE ? "-ESTALE: removed" : rs == 0 ? "0: still installed" :
			       strerror(-rs), ok_str(ok));
		}
	}
	ret = 0;
out_chain:
	if (ret != 0) {
		struct mdevx_share_record rec;

		/* Stopped early: what is published goes, then the queue objects. */
		while (mdevx_share_record_next(dev, 0, &rec) >= 0 && !rec.withdrawn &&
		       mdevx_share_withdraw(dev, rec.name, NULL) == 0)
			;
	}
	peers_finish(&pe);
	for (unsigned int i = 0; i < spawned; i++)
		waitpid(pids[i], NULL, 0);
	peers_close(&pe);
	chain_destroy(&ch);
	if (mdevx_share_dev_close(dev) != 0)
		ret = 1;
	memset(&counts, 0, sizeof(counts));
	if (swdev_ctl_get_counts(ctl, o->device, 0, &counts) == 0)
		printf("\nsoftware device %s: %u objects left\n", o->device, counts.total);
	else
		counts.total = UINT32_MAX;
	swdev_ctl_close(ctl);
	if (ret != 0) {
		printf("demo FAILED\n");
		return 1;
	}
	check(counts.total == 0);
	printf("\nsummary\n"
	       "  processes   1 primary, %u secondar%s; each secondary imported %u counter bulk%s "
	       "and %u TIRs\n"
	       "  counters    %" PRIu64 " packets, %" PRIu64 " bytes injected in %u round%s,\n"
	       "              %s\n",
	       o->secondaries, o->secondaries == 1 ? "y" : "ies", o->bulks, plural(o->bulks),
	       NB_TIRS, tp, tb, rounds, plural(rounds),
	       counters_ok ? "read alike by every process in every round" :
	       "NOT read alike by every process (see the table above)");
	if (st->steering)
		printf("  steering    %u rule%s of secondaries; %" PRIu64 " frames replayed: %"
		       PRIu64 " steered to the primary's TIRs\n"
		       "              (%" PRIu64 " RSS over %d RQs, %" PRIu64 " direct), %" PRIu64
		       " misses\n", sr.rules, plural(sr.rules), sr.frames, sr.delivered, sr.rss,
		       NB_RSS_RQ, sr.direct, sr.misses);
	printf("  withdrawal  %u records, %u acknowledgements%s; %u objects left\n"
	       "  checks      %u numbers checked, %u mismatch%s%s\n", withdrawn, acked_total,
	       st->steering ? "; the secondaries' rules removed" : "", counts.total,
	       nb_checked, nb_mismatch, nb_mismatch == 1 ? "" : "es",
	       bad != 0 ? "; errors above" : "");
	ret = bad == 0 && nb_mismatch == 0 ? 0 : 1;
	printf("%s\n", ret == 0 ? "demo OK" : "demo FAILED");
	return ret;
}

/* The options after "--" (all of them with --check-options), before EAL starts. */
static int
check_input(int argc, char **argv, struct demo_opts *o, struct expect *e)
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
	return pcap_expect(&plan, o->secondaries, o->pcap, e) == 0 ? 0 : -EINVAL;
}

int
main(int argc, char **argv)
{
	static struct expect expect;
	const struct rte_memzone *mz = NULL;
	struct demo_state *st;
	struct demo_opts o;
	int ret;

	/* One line at a time, into a pipe or a file too (a test follows the phases). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(argv[0]);
			return 0;
		}
	if (check_input(argc, argv, &o, &expect) != 0)
		return 2;
	if (argc > 1 && strcmp(argv[1], "--check-options") == 0)
		return 0;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
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
		ret = run_primary(st, &o, o.pcap != NULL ? &expect : NULL);
		rte_memzone_free(mz);
	} else {
		mz = rte_memzone_lookup(DEMO_MZ);
		if (mz == NULL || o.reader_id < 0 || o.sync_fd[0] < 0) {
			fprintf(stderr, "secondary: no demo state, no --reader or no --sync-fds\n");
			rte_eal_cleanup();
			return 1;
		}
		/* A primary that dies must not kill us with SIGPIPE: EPIPE is enough. */
		signal(SIGPIPE, SIG_IGN);
		ret = run_reader(mz->addr, o.reader_id, o.sync_fd);
		close(o.sync_fd[0]);
		close(o.sync_fd[1]);
	}
	rte_eal_cleanup();
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the definitions its files share (private to the
 * program, not installed).
 *
 *   main.c          main(), the primary: the queue objects, publishing,
 *                   the counter phase, --hold, the withdrawal, the summary
 *   demo_options.c  the option table, parsing, --check-options, --help
 *   demo_peers.c    the secondaries: the reader role, starting them, the
 *                   pipe handshake
 *   demo_steer.c    the steering phase: the TIRs' hash and the rules, what
 *                   the pcap must do, the replay and the per-rule, per-RQ
 *                   and port tables
 *   demo_common.c   the interrupt flag and the count of checks
 *
 * main.c calls the other files, demo_options.c calls demo_steer.c (the
 * plan, what the pcap must do) and demo_steer.c calls demo_peers.c (the
 * handshake), never the other way round.
 */
#ifndef DEMO_H
#define DEMO_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

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

/* What the pcap must do, computed from the file (demo_steer.c). */
struct expect {
	uint64_t frames, bytes;
	uint64_t misses;			/* frames no rule takes */
	uint64_t packets[MAX_SECONDARIES];	/* per rule */
	uint64_t rule_bytes[MAX_SECONDARIES];
	/* Per rule, per RQ: the RSS RQs, then the direct TIR's RQ. */
	uint64_t rq_packets[MAX_SECONDARIES][NB_RSS_RQ + 1];
	uint64_t rq_bytes[MAX_SECONDARIES][NB_RSS_RQ + 1];
};

/* The queue objects behind the TIRs (main.c). */
struct chain {
	struct mdevx_obj *td, *pd, *cq, *rq[NB_RSS_RQ + 1], *rqt;
	uint32_t rqn[NB_RSS_RQ + 1];
};

/* The primary's ends of the handshake pipes, and who still answers. */
struct peers {
	unsigned int n;
	int cmd[MAX_SECONDARIES];	/* commands out; closed: finish */
	int rep[MAX_SECONDARIES];	/* reports in */
	bool live[MAX_SECONDARIES];
};

/* What the steering phase did, for the summary. */
struct steer_result {
	unsigned int rules;	/* rules installed */
	uint64_t frames, delivered, misses;
	uint64_t rss, direct;	/* delivered through each TIR */
};

/* ---- demo_common.c, and the helpers every file has (static inline) ---- */

extern volatile sig_atomic_t demo_interrupted;
extern unsigned int demo_nb_checked, demo_nb_mismatch;

static inline bool
check(bool ok)
{
	demo_nb_checked++;
	if (!ok)
		demo_nb_mismatch++;
	return ok;
}

/* Checks since @p mark (a value of demo_nb_mismatch) all held. */
static inline bool
checks_ok(unsigned int mark)
{
	return demo_nb_mismatch == mark;
}

/* "s" unless @p n is 1. */
static inline const char *
plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline const char *
ok_str(bool ok)
{
	return ok ? "OK" : "MISMATCH";
}

/* ---- demo_options.c ---- */

void demo_usage(const char *prog);
int demo_check_input(int argc, char **argv, struct demo_opts *o, struct expect *e);

/* ---- demo_peers.c ---- */

int demo_run_reader(struct demo_state *st, int id, const int *sync_fd);
pid_t demo_spawn_reader(const char *prefix_arg, int id, struct peers *pe);
void demo_peers_finish(struct peers *pe);
void demo_peers_close(struct peers *pe);
unsigned int demo_sync_all(struct peers *pe, uint32_t type, uint32_t round, uint32_t want,
			   unsigned int ms);

/* ---- demo_steer.c ---- */

void demo_plan(struct demo_state *st, const struct demo_opts *o);
int demo_pcap_expect(const struct demo_state *st, unsigned int nb_rules, const char *path,
		     struct expect *e);
uint32_t demo_device_flows(struct swdev_ctl *ctl, const char *devname);
uint32_t demo_wait_peer_rules(const struct mdevx_share_dev *dev, uint32_t want, unsigned int ms);
int demo_steer_phase(struct demo_state *st, const struct demo_opts *o,
		     struct mdevx_share_dev *dev, struct swdev_ctl *ctl, const struct chain *ch,
		     struct mdevx_obj *const *rule_cnt, const pid_t *pids, struct peers *pe,
		     uint32_t *round, const struct expect *e, struct steer_result *res);

#endif /* DEMO_H */

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
 *
 * This file: main() and the primary (the queue objects, publishing, the
 * counter phase, --hold, the withdrawal and the summary); demo.h lists
 * the other files.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

#include "demo.h"

static void
on_signal(int sig)
{
	(void)sig;
	demo_interrupted = 1;
}

/* ---------------------------------------------------------------- */
/* Primary                                                           */
/* ---------------------------------------------------------------- */

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
	while (!demo_interrupted && now_ns() < end)
		usleep(10000);
	if (demo_interrupted) {
		demo_interrupted = 0;	/* the hold ends; the demo goes on */
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
		pids[i] = demo_spawn_reader(prefix_arg, (int)i, &pe);
		if (pids[i] < 0) {
			fprintf(stderr, "cannot start secondary %u: %s\n", i, strerror(errno));
			goto out_chain;
		}
		spawned++;
	}
	t_end = now_ns();
	if (demo_sync_all(&pe, 0, 0, SYNC_READY, START_WAIT_MS) != o->secondaries)
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
	while (now_ns() < t_end && !demo_interrupted) {
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
		demo_sync_all(&pe, SYNC_READ, ++round, SYNC_DONE, WAIT_MS);
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
	demo_sync_all(&pe, SYNC_READ_FINAL, ++round, SYNC_DONE, WAIT_MS);
	counters_mark = demo_nb_mismatch;
	printf("primary: %u round%s, each read by every secondary before the next; then a last "
	       "read%s\n", rounds, plural(rounds),
	       st->snapshot ? " of the device and of the refreshed snapshot" : " (snapshot off)");

	printf("\n%-10s %-8s %-9s %-8s %-10s %-7s %14s %14s  %s\n", "process", "pid", "attached",
	       "TIRs ok", "imports", "rounds", "packets read", "bytes read", "matches primary");
	printf("%-10s %-8d %-9s %-8s %-10s %-7u %14" PRIu64 " %14" PRIu64 "  %s\n", "primary",
	       (int)getpid(), "-", "-", "-", rounds, tp, tb,
	       demo_nb_mismatch == 0 ? "(injected = read)" : "MISMATCH");
	for (unsigned int i = 0; i < o->secondaries; i++) {
		struct demo_reader *r = &st->reader[i];
		uint64_t rp = 0, rb = 0;
		unsigned int mark = demo_nb_mismatch;
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

	if (o->hold_ms > 0 && !demo_interrupted)
		hold(dev, o, truth_p, truth_b);

	/*
	 * Steering: a counter of its own for each secondary's rule, counted at
	 * offset 0, what a root rule can count on with every rdma-core (an
	 * offset inside a bulk needs rdma-core 60, see doc/steering.rst).
	 */
	for (unsigned int i = 0; i < o->secondaries && st->steering && !demo_interrupted; i++) {
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
	if (st->steering && !demo_interrupted) {
		printf("\nprimary: published a counter for each secondary's rule (%u records)\n",
		       mdevx_share_record_count(dev));
		/* Each secondary imports its counter and installs its rule, and says so. */
		demo_sync_all(&pe, SYNC_STEER, ++round, SYNC_DONE, WAIT_MS);
	}
	/* Packets through the shared objects. */
	if (st->steering && !demo_interrupted &&
	    demo_steer_phase(st, o, dev, ctl, &ch, rule_cnt, pids, &pe, &round, &e, &sr) != 0)
		bad++;

	/* Withdraw everything: the secondaries remove their rules, acknowledge, objects go. */
	flows_before = demo_device_flows(ctl, o->device);
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
	mark = demo_nb_mismatch;
	check(acked_total == o->secondaries * nb_records);
	check(withdrawn == nb_records);
	printf("primary: %u acknowledgements for %u withdrawals from %u secondaries  %s\n",
	       acked_total, withdrawn, o->secondaries, ok_str(checks_ok(mark)));
	if (st->steering) {
		flows_after = demo_device_flows(ctl, o->device);
		peers_after = demo_wait_peer_rules(dev, 0, 3000);
		mark = demo_nb_mismatch;
		check(flows_after == 0);
		check(peers_after == 0);
		printf("primary: root rules on the device %u -> %u, rules of secondaries known "
		       "to the primary %u -> %u  %s\n", flows_before, flows_after, peers_before,
		       peers_after, ok_str(checks_ok(mark)));
	}
	demo_peers_finish(&pe);	/* the end of the command pipes: every secondary finishes */
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
	demo_peers_finish(&pe);
	for (unsigned int i = 0; i < spawned; i++)
		waitpid(pids[i], NULL, 0);
	demo_peers_close(&pe);
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
	       demo_nb_checked, demo_nb_mismatch, demo_nb_mismatch == 1 ? "" : "es",
	       bad != 0 ? "; errors above" : "");
	ret = bad == 0 && demo_nb_mismatch == 0 ? 0 : 1;
	printf("%s\n", ret == 0 ? "demo OK" : "demo FAILED");
	return ret;
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
			demo_usage(argv[0]);
			return 0;
		}
	if (demo_check_input(argc, argv, &o, &expect) != 0)
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
		ret = demo_run_reader(mz->addr, o.reader_id, o.sync_fd);
		close(o.sync_fd[0]);
		close(o.sync_fd[1]);
	}
	rte_eal_cleanup();
	return ret;
}

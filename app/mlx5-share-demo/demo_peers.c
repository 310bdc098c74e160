/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the secondaries. Their side: attach, import, answer
 * the primary's commands (read the bulks, install and read a rule). The
 * primary's side: start them with posix_spawn() and the pipe handshake.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mdevx.h>
#include <mdevx_share.h>

#include "demo.h"

extern char **environ;

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

int
demo_run_reader(struct demo_state *st, int id, const int *sync_fd)
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
/* Primary: starting the secondaries, the handshake                  */
/* ---------------------------------------------------------------- */


/*
 * Start secondary @p id with a pipe each way (its ends are the only
 * descriptors it inherits: the pipes are close-on-exec but for them).
 */
pid_t
demo_spawn_reader(const char *prefix_arg, int id, struct peers *pe)
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
void
demo_peers_finish(struct peers *pe)
{
	for (unsigned int i = 0; i < pe->n; i++) {
		if (pe->cmd[i] >= 0)
			close(pe->cmd[i]);
		pe->cmd[i] = -1;
	}
}

void
demo_peers_close(struct peers *pe)
{
	demo_peers_finish(pe);
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
unsigned int
demo_sync_all(struct peers *pe, uint32_t type, uint32_t round, uint32_t want, unsigned int ms)
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
		rc = now < end && !demo_interrupted ?
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

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-demo: the steering phase: the TIRs' hash and the
 * secondaries' rules, what the pcap must do through them (computed from
 * the file), the replay and the per-rule, per-RQ and port tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_thash.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <swdev_client.h>

#include "pcap_udp.h"

#include "demo.h"

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
void
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
/* Primary: what the pcap must do, computed from the file            */
/* ---------------------------------------------------------------- */

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

int
demo_pcap_expect(const struct demo_state *st, unsigned int nb_rules, const char *path,
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
/* Primary: the steering phase                                       */
/* ---------------------------------------------------------------- */

/* Root rules on the device (every process's), UINT32_MAX if unknown. */
uint32_t
demo_device_flows(struct swdev_ctl *ctl, const char *devname)
{
	struct swdev_counts c;

	return swdev_ctl_get_counts(ctl, devname, 0, &c) == 0 ? c.by_kind[SWDEV_KIND_FLOW] :
								  UINT32_MAX;
}

/* Wait until the primary knows @p want rules of secondaries (messages are one-way). */
uint32_t
demo_wait_peer_rules(const struct mdevx_share_dev *dev, uint32_t want, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	uint32_t peers = UINT32_MAX;

	do {
		if (mdevx_share_dev_rules(dev, NULL, &peers) == 0 && peers == want)
			break;
		usleep(10000);
	} while (now_ns() < end && !demo_interrupted);
	return peers;
}

static double
percent(uint64_t part, uint64_t whole)
{
	return whole == 0 ? 0.0 : 100.0 * (double)part / (double)whole;
}

/* One line of the port table: the port's statistics and the replay's summary. */
static void
port_row(const char *what, uint64_t port, const uint64_t *summary, uint64_t want)
{
	unsigned int mark = demo_nb_mismatch;
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
int
demo_steer_phase(struct demo_state *st, const struct demo_opts *o, struct mdevx_share_dev *dev,
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
	peers = demo_wait_peer_rules(dev, res->rules, 3000);
	flows = demo_device_flows(ctl, o->device);
	mark = demo_nb_mismatch;
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
	if (demo_sync_all(pe, SYNC_RULE, ++*round, SYNC_DONE, WAIT_MS) != n)
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

		mark = demo_nb_mismatch;
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

		mark = demo_nb_mismatch;
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

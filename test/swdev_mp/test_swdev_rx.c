/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Root steering rules and the receive path through the daemon: a client
 * builds PD, UAR, umem, CQ, RQs, TD, TIRs and a counter bulk with PRM
 * mailboxes, a root matcher and rules to a TIR, to DROP and to a TIR over
 * an RQ that is not ready; frames and pcap files go in through the control
 * socket, port and RQ statistics, captured frames and the rule's counter
 * come out exactly. Malformed pcap files send nothing; a daemon without
 * --test-mode refuses frames; handles resolve in the caller's file; a
 * second context of the file removes a rule by handle; the control
 * socket's payload bounds; the mlx5-swdev --ctl commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"
#include "prm_mailbox.h"
#include "swdev_proto.h"

#define UMEM_SIZE 65536u
#define DPORT_RQ 4791u		/* rule: to the TIR of the ready RQ, counted */
#define DPORT_DROP 7u		/* rule: DROP */
#define DPORT_RST 9u		/* rule: to the TIR of an RQ left in RST */
#define DPORT_OTHER 1234u	/* no rule */
#define MASK_LEN 64u		/* the outer headers of fte_match_param */

static uint8_t umem_buf[UMEM_SIZE] __attribute__((aligned(4096)));
static char tmpdir[64];

/* What the tests share: one uverbs file and its objects. */
static struct {
	struct swdev_ctx *ctx;
	struct swdev_ctl *ctl;
	struct swdev_obj *pd, *uar, *umem, *cq, *rq, *rq_rst, *td, *tir, *tir_rst, *cnt;
	struct swdev_obj *matcher, *flow_rq, *flow_drop, *flow_rst;
	uint32_t rqn, rqn_rst, tirn, tirn_rst, cnt_id;
	uint32_t max_handle;	/* the largest handle of the file */
} g;

/* ------------------------------------------------------------- frames */

/* Ethernet / IPv4 / UDP to @p dport, @p len bytes in all (>= 42), payload @p seed. */
static size_t
build_udp(uint8_t *f, size_t len, uint16_t dport, uint8_t seed)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	uint32_t sum = 0;
	size_t i;

	memset(f, 0, len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	f[26] = 10, f[27] = 0, f[28] = 0, f[29] = 1;
	f[30] = 10, f[31] = 0, f[32] = 0, f[33] = 2;
	for (i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
	f[34] = 0x30;
	f[35] = 0x39;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = (uint8_t)((len - 34) >> 8);
	f[39] = (uint8_t)(len - 34);
	for (i = 42; i < len; i++)
		f[i] = (uint8_t)(seed + i);
	return len;
}

/* ------------------------------------------------------------ pcap files */

struct rec {
	uint32_t caplen;
	uint32_t len;
	const uint8_t *data;
};

/* Write @p n records with libpcap's dump API; 0 or -1. */
static int
write_pcap(const char *path, int linktype, const struct rec *r, unsigned int n)
{
	pcap_t *p = pcap_open_dead(linktype, 65535);
	pcap_dumper_t *d;
	unsigned int i;

	if (p == NULL)
		return -1;
	d = pcap_dump_open(p, path);
	if (d == NULL) {
		pcap_close(p);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = 1700000000 + (long)i;
		h.caplen = r[i].caplen;
		h.len = r[i].len;
		pcap_dump((u_char *)d, &h, r[i].data);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static void
tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* ------------------------------------------------------------ helpers */

static struct swdev_obj *
create(const void *in, size_t inlen, uint32_t *id, const char *what)
{
	uint8_t out[16] = { 0 };
	struct swdev_obj *o = swdev_obj_create(g.ctx, in, inlen, out, sizeof(out));

	CHECK(o != NULL, "create %s: %s status %#x syndrome %#x", what, strerror(errno),
	      MDEVX_GET(mbox_out, out, status), MDEVX_GET(mbox_out, out, syndrome));
	if (o != NULL && id != NULL)
		*id = MDEVX_GET(create_rq_out, out, rqn);
	if (o != NULL && swdev_obj_handle(o) > g.max_handle)
		g.max_handle = swdev_obj_handle(o);
	return o;
}

static int
rq_ready(struct swdev_obj *rq, uint32_t rqn)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(modify_rq_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(modify_rq_out)] = { 0 };

	MDEVX_SET(modify_rq_in, in, opcode, MDEVX_CMD_OP_MODIFY_RQ);
	MDEVX_SET(modify_rq_in, in, rq_state, MDEVX_RQC_STATE_RST);
	MDEVX_SET(modify_rq_in, in, rqn, rqn);
	MDEVX_SET(modify_rq_in, in, ctx.state, MDEVX_RQC_STATE_RDY);
	return swdev_obj_modify(rq, in, sizeof(in), out, sizeof(out));
}

static void
match_value(uint8_t *v, uint16_t dport)
{
	memset(v, 0, MASK_LEN);
	MDEVX_SET(fte_match_param, v, outer_headers.ethertype, 0x0800);
	MDEVX_SET(fte_match_param, v, outer_headers.ip_protocol, 17);
	MDEVX_SET(fte_match_param, v, outer_headers.udp_dport, dport);
}

static struct swdev_obj *
flow(struct swdev_obj *matcher, uint16_t dport, uint8_t dest, struct swdev_obj *dest_obj,
     struct swdev_obj *counter)
{
	struct swdev_flow_actions act = {
		.dest = dest, .dest_obj = dest_obj, .counter = counter, .counter_offset = 0,
	};
	uint8_t v[MASK_LEN];

	match_value(v, dport);
	return swdev_flow_create(matcher, v, sizeof(v), &act);
}

static struct swdev_port_stats
port_stats(struct swdev_ctl *ctl)
{
	struct swdev_port_stats ps;
	int err;

	memset(&ps, 0, sizeof(ps));
	err = swdev_ctl_get_port_stats(ctl, MP_DEV, &ps);
	CHECK(err == 0, "port stats: %s", strerror(err));
	return ps;
}

static struct swdev_rq_stats
rq_stats(uint32_t rqn)
{
	struct swdev_rq_stats rs;
	int err;

	memset(&rs, 0, sizeof(rs));
	err = swdev_ctl_get_rq_stats(g.ctl, MP_DEV, rqn, &rs);
	CHECK(err == 0, "rq %u stats: %s", rqn, strerror(err));
	return rs;
}

static void
counter(uint64_t *packets, uint64_t *bytes)
{
	int err;

	*packets = *bytes = 0;
	err = mp_counter_query(g.cnt, g.cnt_id, false, packets, bytes, NULL, NULL);
	CHECK(err == 0, "counter query: %s", strerror(err));
}

static bool
stats_equal(const struct swdev_port_stats *a, const struct swdev_port_stats *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* ------------------------------------------------------------- the file */

static int
setup(void)
{
	uint8_t in[1024], mask[MASK_LEN];
	uint32_t pdn = 0, page = 0, umem_id = 0, eqn = 0, cqn = 0, tdn = 0;
	struct swdev_counts c;
	int err;

	printf("== PD, UAR, umem, CQ, RQs, TD, TIRs, counter; matcher and rules\n");
	g.ctx = swdev_open(mp_sock, MP_DEV);
	g.ctl = swdev_ctl_open(mp_sock);
	CHECK(g.ctx != NULL && g.ctl != NULL, "open: %s", strerror(errno));
	if (g.ctx == NULL || g.ctl == NULL)
		return -1;
	g.pd = swdev_pd_alloc(g.ctx, &pdn);
	g.uar = swdev_uar_alloc(g.ctx, &page);
	g.umem = swdev_umem_reg(g.ctx, umem_buf, sizeof(umem_buf), 7, &umem_id);
	err = swdev_query_eqn(g.ctx, 0, &eqn);
	CHECK(g.pd != NULL && g.uar != NULL && g.umem != NULL && err == 0, "verbs objects");
	if (g.pd == NULL || g.uar == NULL || g.umem == NULL || err != 0)
		return -1;
	t_build_cq(in, page, eqn, umem_id, umem_id);
	g.cq = create(in, MDEVX_ST_SZ_BYTES(create_cq_in), &cqn, "cq");
	if (g.cq == NULL)
		return -1;
	t_build_rq(in, cqn, pdn, umem_id, 8192, T_DBR_OFF + 8);
	g.rq = create(in, MDEVX_ST_SZ_BYTES(create_rq_in), &g.rqn, "rq");
	t_build_rq(in, cqn, pdn, umem_id, 8192 + 4096, T_DBR_OFF + 16);
	g.rq_rst = create(in, MDEVX_ST_SZ_BYTES(create_rq_in), &g.rqn_rst, "rq left in RST");
	if (g.rq == NULL || g.rq_rst == NULL)
		return -1;
	err = rq_ready(g.rq, g.rqn);
	CHECK(err == 0, "RQ %u RST -> RDY: %s", g.rqn, strerror(err));
	g.td = mp_td_alloc(g.ctx, &tdn, &err);
	CHECK(g.td != NULL, "td: %s", strerror(err));
	if (g.td == NULL)
		return -1;
	t_build_tir(in, 0, g.rqn, tdn);
	g.tir = create(in, MDEVX_ST_SZ_BYTES(create_tir_in), &g.tirn, "direct tir");
	t_build_tir(in, 0, g.rqn_rst, tdn);
	g.tir_rst = create(in, MDEVX_ST_SZ_BYTES(create_tir_in), &g.tirn_rst, "tir to rst rq");
	g.cnt = mp_counter_alloc(g.ctx, 0, &g.cnt_id, &err);
	CHECK(g.cnt != NULL, "counter: %s", strerror(err));
	if (g.tir == NULL || g.tir_rst == NULL || g.cnt == NULL)
		return -1;
	if (swdev_obj_handle(g.cnt) > g.max_handle)
		g.max_handle = swdev_obj_handle(g.cnt);

	memset(mask, 0, sizeof(mask));
	MDEVX_SET(fte_match_param, mask, outer_headers.ethertype, 0xffff);
	MDEVX_SET(fte_match_param, mask, outer_headers.ip_protocol, 0xff);
	MDEVX_SET(fte_match_param, mask, outer_headers.udp_dport, 0xffff);
	g.matcher = swdev_matcher_create(g.ctx, 0, MDEVX_MATCH_CRITERIA_OUTER, mask,
					 sizeof(mask));
	CHECK(g.matcher != NULL, "matcher: %s", strerror(errno));
	if (g.matcher == NULL)
		return -1;
	g.flow_rq = flow(g.matcher, DPORT_RQ, SWDEV_FLOW_DEST_DEVX, g.tir, g.cnt);
	CHECK(g.flow_rq != NULL, "rule to the TIR, counted: %s", strerror(errno));
	g.flow_drop = flow(g.matcher, DPORT_DROP, SWDEV_FLOW_DEST_DROP, NULL, NULL);
	CHECK(g.flow_drop != NULL, "rule DROP: %s", strerror(errno));
	g.flow_rst = flow(g.matcher, DPORT_RST, SWDEV_FLOW_DEST_DEVX, g.tir_rst, NULL);
	CHECK(g.flow_rst != NULL, "rule to the RST RQ's TIR: %s", strerror(errno));
	if (g.flow_rq == NULL || g.flow_drop == NULL || g.flow_rst == NULL)
		return -1;
	CHECK(swdev_obj_handle(g.flow_rq) != swdev_obj_handle(g.matcher) &&
	      swdev_obj_handle(NULL) == 0, "handles");
	if (swdev_obj_handle(g.flow_rst) > g.max_handle)
		g.max_handle = swdev_obj_handle(g.flow_rst);

	/* The COUNTS reply carries the new kinds too. */
	memset(&c, 0, sizeof(c));
	err = swdev_ctl_get_counts(g.ctl, MP_DEV, swdev_ctx_file_id(g.ctx), &c);
	CHECK(err == 0 && c.by_kind[SWDEV_KIND_MATCHER] == 1 && c.by_kind[SWDEV_KIND_FLOW] == 3 &&
	      c.by_kind[SWDEV_KIND_TIR] == 2 && c.by_kind[SWDEV_KIND_RQ] == 2 && c.total == 14,
	      "counts: matcher %u flow %u tir %u rq %u total %u (%s)",
	      c.by_kind[SWDEV_KIND_MATCHER], c.by_kind[SWDEV_KIND_FLOW],
	      c.by_kind[SWDEV_KIND_TIR], c.by_kind[SWDEV_KIND_RQ], c.total, strerror(err));
	return 0;
}

static void
test_client_checks(void)
{
	struct swdev_flow_actions act = { .dest = SWDEV_FLOW_DEST_DEVX, .dest_obj = g.tir };
	uint8_t v[MASK_LEN];
	int err;

	printf("== client-side argument checks\n");
	match_value(v, 1);
	errno = 0;
	CHECK(swdev_flow_create(g.tir, v, sizeof(v), &act) == NULL && errno == EINVAL,
	      "a DEVX object is not a matcher: %s", strerror(errno));
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), NULL) == NULL && errno == EINVAL,
	      "no actions: %s", strerror(errno));
	act.dest_obj = NULL;
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == EINVAL,
	      "DEST_DEVX without an object: %s", strerror(errno));
	act.dest_obj = g.pd;
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == EINVAL,
	      "a PD as destination: %s", strerror(errno));
	act.dest = SWDEV_FLOW_DEST_DROP;
	act.dest_obj = g.tir;
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == EINVAL,
	      "DROP with a destination object: %s", strerror(errno));
	CHECK(swdev_matcher_create(NULL, 0, 1, v, sizeof(v)) == NULL && errno == EINVAL,
	      "matcher without context");
	CHECK(swdev_matcher_create(g.ctx, 0, 1, NULL, 8) == NULL && errno == EINVAL,
	      "mask NULL with a length");
	CHECK(swdev_obj_query(g.matcher, v, 16, v, 16) == EINVAL, "no query of a matcher");
	CHECK(swdev_obj_export(g.flow_rq, v) == EINVAL, "no export of a rule");
	/* The daemon's and the engine's checks. */
	CHECK(swdev_matcher_create(g.ctx, 0, MDEVX_MATCH_CRITERIA_OUTER, v, 6) == NULL &&
	      errno == EINVAL, "mask length not a multiple of 4: %s", strerror(errno));
	CHECK(swdev_matcher_create(g.ctx, 0, MDEVX_MATCH_CRITERIA_INNER, v, sizeof(v)) ==
	      NULL && errno == EINVAL, "inner criteria: %s", strerror(errno));
	match_value(v, DPORT_RQ);
	act.dest = SWDEV_FLOW_DEST_DEVX;
	act.dest_obj = g.tir_rst;
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == EEXIST,
	      "same masked value twice: %s", strerror(errno));
	act.dest_obj = g.td;
	match_value(v, 2);
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == EINVAL,
	      "a TD as destination: %s", strerror(errno));
	err = swdev_flow_destroy_handle(g.ctx, swdev_obj_handle(g.matcher));
	CHECK(err == EINVAL, "destroy a matcher as a rule: %s", strerror(err));
	err = swdev_flow_destroy_handle(g.ctx, swdev_obj_handle(g.tir));
	CHECK(err == EINVAL, "destroy a TIR as a rule: %s", strerror(err));
	err = swdev_flow_destroy_handle(g.ctx, g.max_handle + 100);
	CHECK(err == ENOENT, "destroy a handle nobody has: %s", strerror(err));
}

/* One frame: what became of it, the statistics and the capture. */
static void
test_frames(void)
{
	static uint8_t f[SWDEV_MAX_FRAME_LEN + 1];
	struct swdev_port_stats p0, p1;
	struct swdev_rq_stats r0, r1, rr;
	struct swdev_capture_info ci;
	struct swdev_rx_info ri;
	uint8_t cap[SWDEV_CAPTURE_SNAPLEN];
	uint64_t cp0, cb0, cp1, cb1;
	size_t len;
	int err;

	printf("== frames: delivered, miss, drop, RQ not ready, refused\n");
	p0 = port_stats(g.ctl);
	r0 = rq_stats(g.rqn);
	counter(&cp0, &cb0);
	CHECK(r0.state == MDEVX_RQC_STATE_RDY && r0.packets == 0 && r0.captured == 0,
	      "fresh RQ: state %u packets %" PRIu64, r0.state, r0.packets);

	len = build_udp(f, 300, DPORT_RQ, 1);
	memset(&ri, 0xff, sizeof(ri));
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, len, &ri);
	CHECK(err == 0 && ri.verdict == SWDEV_RX_DELIVERED && ri.tirn == g.tirn &&
	      ri.rqn == g.rqn && ri.hash == 0, "delivered: %s verdict %u tirn %u/%u rqn %u/%u",
	      strerror(err), ri.verdict, ri.tirn, g.tirn, ri.rqn, g.rqn);
	r1 = rq_stats(g.rqn);
	CHECK(r1.packets == 1 && r1.bytes == len && r1.captured == 1,
	      "rq stats: %" PRIu64 " packets %" PRIu64 " bytes, %u captured", r1.packets,
	      r1.bytes, r1.captured);
	memset(&ci, 0, sizeof(ci));
	memset(cap, 0, sizeof(cap));
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, g.rqn, 0, cap, sizeof(cap), &ci);
	CHECK(err == 0 && ci.len == len && ci.caplen == SWDEV_CAPTURE_SNAPLEN &&
	      ci.tirn == g.tirn && memcmp(cap, f, ci.caplen) == 0,
	      "captured: %s len %u caplen %u tirn %u", strerror(err), ci.len, ci.caplen, ci.tirn);
	memset(cap, 0, sizeof(cap));
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, g.rqn, 0, cap, 20, &ci);
	CHECK(err == 0 && memcmp(cap, f, 20) == 0 && cap[20] == 0,
	      "a short buffer takes what fits: %s", strerror(err));
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, g.rqn, 1, cap, sizeof(cap), &ci);
	CHECK(err == ERANGE, "capture past the last: %s", strerror(err));
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, 0xfffff0, 0, cap, sizeof(cap), &ci);
	CHECK(err == ENOENT, "capture of no RQ: %s", strerror(err));
	err = swdev_ctl_get_rq_stats(g.ctl, MP_DEV, 0xfffff0, &rr);
	CHECK(err == ENOENT, "stats of no RQ: %s", strerror(err));
	err = swdev_ctl_get_port_stats(g.ctl, "mlx5_9", &p1);
	CHECK(err == ENODEV, "port stats of no device: %s", strerror(err));
	err = swdev_ctl_send_frame(g.ctl, "mlx5_9", f, len, &ri);
	CHECK(err == ENODEV, "frame to no device: %s", strerror(err));
	counter(&cp1, &cb1);
	CHECK(cp1 - cp0 == 1 && cb1 - cb0 == len, "counter: %" PRIu64 " packets %" PRIu64
	      " bytes", cp1 - cp0, cb1 - cb0);

	/* A 256-byte frame is kept whole; the capture of a short one is short. */
	len = build_udp(f, 60, DPORT_RQ, 2);
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, len, NULL);
	CHECK(err == 0, "short frame without info: %s", strerror(err));
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, g.rqn, 1, cap, sizeof(cap), &ci);
	CHECK(err == 0 && ci.len == 60 && ci.caplen == 60 && memcmp(cap, f, 60) == 0 &&
	      ci.seq > 0, "short frame captured whole: %s caplen %u", strerror(err), ci.caplen);

	len = build_udp(f, 100, DPORT_OTHER, 3);
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, len, &ri);
	CHECK(err == 0 && ri.verdict == SWDEV_RX_MISS && ri.tirn == 0 && ri.rqn == 0,
	      "no rule: %s verdict %u", strerror(err), ri.verdict);
	build_udp(f, 100, DPORT_DROP, 4);
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, 100, &ri);
	CHECK(err == 0 && ri.verdict == SWDEV_RX_DROP, "DROP: %s verdict %u", strerror(err),
	      ri.verdict);
	build_udp(f, 100, DPORT_RST, 5);
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, 100, &ri);
	CHECK(err == 0 && ri.verdict == SWDEV_RX_RQ_DROP && ri.tirn == g.tirn_rst &&
	      ri.rqn == g.rqn_rst, "RQ in RST: %s verdict %u rqn %u", strerror(err), ri.verdict,
	      ri.rqn);
	rr = rq_stats(g.rqn_rst);
	CHECK(rr.packets == 0 && rr.state == MDEVX_RQC_STATE_RST, "nothing reached the RST RQ");

	/* Refused by the port (counted), and refused before the socket (not counted). */
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, 10, &ri);
	CHECK(err == EINVAL, "runt: %s", strerror(err));
	memset(f, 0, sizeof(f));
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, SWDEV_MAX_FRAME_LEN + 1, &ri);
	CHECK(err == EINVAL, "9217 bytes: %s", strerror(err));
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, NULL, 60, &ri);
	CHECK(err == EINVAL, "no frame: %s", strerror(err));

	p1 = port_stats(g.ctl);
	CHECK(p1.rx_packets - p0.rx_packets == 5 && p1.delivered - p0.delivered == 2 &&
	      p1.misses - p0.misses == 1 && p1.drops - p0.drops == 1 &&
	      p1.rq_drops - p0.rq_drops == 1 && p1.bad_frames - p0.bad_frames == 1 &&
	      p1.rx_bytes - p0.rx_bytes == 300 + 60 + 100 + 100 + 100,
	      "port: rx %" PRIu64 " bytes %" PRIu64 " delivered %" PRIu64 " misses %" PRIu64
	      " drops %" PRIu64 " rq_drops %" PRIu64 " bad %" PRIu64,
	      p1.rx_packets - p0.rx_packets, p1.rx_bytes - p0.rx_bytes,
	      p1.delivered - p0.delivered, p1.misses - p0.misses, p1.drops - p0.drops,
	      p1.rq_drops - p0.rq_drops, p1.bad_frames - p0.bad_frames);
}

/* ------------------------------------------------------------ pcap replay */

#define NGOOD 1000u

static uint8_t *good_frames;	/* NGOOD frames of 1600 bytes each, and one jumbo */
static struct rec good[NGOOD + 1];
static uint64_t good_bytes, good_rq, good_rq_bytes;
static unsigned int good_last_rq;	/* index of the last frame to the RQ */

static void
make_good(void)
{
	unsigned int i;

	good_frames = calloc(NGOOD * 1600u + SWDEV_MAX_FRAME_LEN, 1);
	if (good_frames == NULL)
		abort();
	good_bytes = good_rq = good_rq_bytes = 0;
	for (i = 0; i <= NGOOD; i++) {
		uint8_t *f = good_frames + (size_t)i * 1600u;
		uint32_t len = i == NGOOD ? SWDEV_MAX_FRAME_LEN : 60 + (i * 37) % 1455;
		uint16_t dport = i == NGOOD || i % 2 == 0 ? DPORT_RQ : DPORT_OTHER;

		build_udp(f, len, dport, (uint8_t)i);
		good[i] = (struct rec){ len, len, f };
		good_bytes += len;
		if (dport == DPORT_RQ) {
			good_rq++;
			good_rq_bytes += len;
			good_last_rq = i;
		}
	}
}

static void
test_pcap(void)
{
	char path[128], bad[128];
	struct swdev_port_stats p0, p1;
	struct swdev_rq_stats r0, r1;
	struct swdev_pcap_summary s;
	struct swdev_capture_info ci;
	uint8_t cap[SWDEV_CAPTURE_SNAPLEN], garbage[300];
	uint64_t cp0, cb0, cp1, cb1;
	struct rec r[3];
	unsigned int i;
	long size;
	int err, fd;

	printf("== pcap replay: a good file counted exactly\n");
	make_good();
	tmp_path(path, sizeof(path), "good.pcap");
	CHECK(write_pcap(path, DLT_EN10MB, good, NGOOD + 1) == 0, "write %s", path);
	p0 = port_stats(g.ctl);
	r0 = rq_stats(g.rqn);
	counter(&cp0, &cb0);
	memset(&s, 0xff, sizeof(s));
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, path, &s);
	CHECK(err == 0 && s.frames == NGOOD + 1 && s.bytes == good_bytes &&
	      s.verdicts[SWDEV_RX_DELIVERED] == good_rq &&
	      s.verdicts[SWDEV_RX_MISS] == NGOOD + 1 - good_rq && s.verdicts[SWDEV_RX_DROP] == 0 &&
	      s.verdicts[SWDEV_RX_RQ_DROP] == 0,
	      "replay: %s frames %" PRIu64 " bytes %" PRIu64 "/%" PRIu64 " delivered %" PRIu64
	      " miss %" PRIu64, strerror(err), s.frames, s.bytes, good_bytes,
	      s.verdicts[SWDEV_RX_DELIVERED], s.verdicts[SWDEV_RX_MISS]);
	p1 = port_stats(g.ctl);
	CHECK(p1.rx_packets - p0.rx_packets == NGOOD + 1 &&
	      p1.rx_bytes - p0.rx_bytes == good_bytes && p1.delivered - p0.delivered == good_rq &&
	      p1.misses - p0.misses == NGOOD + 1 - good_rq && p1.bad_frames == p0.bad_frames,
	      "port after the replay: rx %" PRIu64 " delivered %" PRIu64,
	      p1.rx_packets - p0.rx_packets, p1.delivered - p0.delivered);
	r1 = rq_stats(g.rqn);
	CHECK(r1.packets - r0.packets == good_rq && r1.bytes - r0.bytes == good_rq_bytes &&
	      r1.captured == SWDEV_CAPTURE_SLOTS, "rq after the replay: %" PRIu64 " packets, %u "
	      "captured", r1.packets - r0.packets, r1.captured);
	counter(&cp1, &cb1);
	CHECK(cp1 - cp0 == good_rq && cb1 - cb0 == good_rq_bytes, "counter after the replay: %"
	      PRIu64 " packets %" PRIu64 " bytes", cp1 - cp0, cb1 - cb0);
	err = swdev_ctl_get_rq_capture(g.ctl, MP_DEV, g.rqn, SWDEV_CAPTURE_SLOTS - 1, cap,
				       sizeof(cap), &ci);
	CHECK(err == 0 && ci.len == good[good_last_rq].len && ci.caplen == SWDEV_CAPTURE_SNAPLEN &&
	      memcmp(cap, good[good_last_rq].data, ci.caplen) == 0,
	      "newest capture is the jumbo frame: %s len %u", strerror(err), ci.len);

	printf("== pcap replay: malformed files send nothing\n");
	size = file_size(path);
	tmp_path(bad, sizeof(bad), "cut.pcap");
	/* Cut inside the last record's data. */
	if (mp_run((const char *const[]){ "/bin/cp", path, bad, NULL }, 10) != 0 ||
	    truncate(bad, size - 10) != 0)
		CHECK(0, "copy and cut");
	p0 = port_stats(g.ctl);
	memset(&s, 0xff, sizeof(s));
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL && s.frames == 0, "cut in a record's data: %s", strerror(err));
	/* Cut inside the second record's header. */
	CHECK(truncate(bad, 24 + 16 + (long)good[0].len + 8) == 0, "cut");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL, "cut in a record header: %s", strerror(err));
	/* Cut inside the file header. */
	CHECK(truncate(bad, 20) == 0, "cut");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EBADMSG, "cut in the file header: %s", strerror(err));
	p1 = port_stats(g.ctl);
	CHECK(stats_equal(&p0, &p1), "port stats unchanged by cut files");

	tmp_path(bad, sizeof(bad), "garbage.pcap");
	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (uint8_t)(i * 7 + 3);
	fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, garbage, sizeof(garbage)) == (ssize_t)sizeof(garbage),
	      "write garbage");
	if (fd >= 0)
		close(fd);
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EBADMSG && s.frames == 0, "garbage: %s", strerror(err));
	tmp_path(bad, sizeof(bad), "missing.pcap");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == ENOENT, "no file: %s", strerror(err));

	/* A good record, then one longer than the port takes. */
	tmp_path(bad, sizeof(bad), "jumbo.pcap");
	r[0] = good[0];
	r[1] = (struct rec){ SWDEV_MAX_FRAME_LEN + 1, SWDEV_MAX_FRAME_LEN + 1, good_frames };
	CHECK(write_pcap(bad, DLT_EN10MB, r, 2) == 0, "write");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL && s.frames == 0, "a 9217-byte record: %s", strerror(err));
	r[1] = (struct rec){ 60, 100, good[1].data };
	CHECK(write_pcap(bad, DLT_EN10MB, r, 2) == 0, "write");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL, "a record cut by the capture (caplen < len): %s", strerror(err));
	r[1] = (struct rec){ 13, 13, good[1].data };
	CHECK(write_pcap(bad, DLT_EN10MB, r, 2) == 0, "write");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL, "a 13-byte record: %s", strerror(err));
	CHECK(write_pcap(bad, DLT_RAW, good, 2) == 0, "write");
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL, "not Ethernet: %s", strerror(err));
	p1 = port_stats(g.ctl);
	CHECK(stats_equal(&p0, &p1), "port stats unchanged by invalid files");

	printf("== pcap replay: empty file, a frame the port refuses\n");
	CHECK(write_pcap(bad, DLT_EN10MB, good, 0) == 0, "write");
	memset(&s, 0xff, sizeof(s));
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == 0 && s.frames == 0 && s.bytes == 0, "empty: %s", strerror(err));
	err = swdev_ctl_send_pcap(g.ctl, "mlx5_9", bad, &s);
	CHECK(err == ENODEV, "empty, to no device: %s", strerror(err));
	/* IPv4 cut after 16 bytes of its header: refused by the port, the
	 * replay goes on. */
	r[0] = good[0];
	memcpy(garbage, good[2].data, 30);
	r[1] = (struct rec){ 30, 30, garbage };
	r[2] = good[2];
	CHECK(write_pcap(bad, DLT_EN10MB, r, 3) == 0, "write");
	p0 = port_stats(g.ctl);
	err = swdev_ctl_send_pcap(g.ctl, MP_DEV, bad, &s);
	CHECK(err == EINVAL && s.frames == 3 && s.verdicts[SWDEV_RX_DELIVERED] == 2 &&
	      s.verdicts[SWDEV_RX_MISS] == 0, "refused frame reported, replay complete: %s "
	      "frames %" PRIu64 " delivered %" PRIu64, strerror(err), s.frames,
	      s.verdicts[SWDEV_RX_DELIVERED]);
	p1 = port_stats(g.ctl);
	CHECK(p1.bad_frames - p0.bad_frames == 1 && p1.delivered - p0.delivered == 2,
	      "one bad frame, two delivered");
}

/* ------------------------------------------------- foreign handles, destroy */

static void
test_foreign_handle(void)
{
	struct swdev_ctx *other;
	struct swdev_obj *tds[40], *ocnt = NULL, *otir;
	struct swdev_flow_actions act;
	uint8_t v[MASK_LEN], attrs[32];
	unsigned int i, n = 0;
	uint32_t id;
	int err;

	printf("== another file's handles resolve in the caller's file\n");
	other = swdev_open(mp_sock, MP_DEV);
	CHECK(other != NULL, "other file: %s", strerror(errno));
	if (other == NULL)
		return;
	for (i = 0; i < 40; i++) {
		tds[i] = mp_td_alloc(other, NULL, &err);
		if (tds[i] != NULL)
			n++;
	}
	ocnt = mp_counter_alloc(other, 0, &id, &err);
	CHECK(n == 40 && ocnt != NULL && swdev_obj_handle(ocnt) > g.max_handle,
	      "other file's counter handle %u past ours (%u)", swdev_obj_handle(ocnt),
	      g.max_handle);
	if (ocnt == NULL)
		goto out;
	match_value(v, 3);
	memset(&act, 0, sizeof(act));
	act.dest = SWDEV_FLOW_DEST_DROP;
	act.counter = ocnt;
	errno = 0;
	CHECK(swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL && errno == ENOENT,
	      "another file's counter: %s", strerror(errno));
	/* The same handle imported: the daemon resolves it in our file. */
	CHECK(swdev_obj_export(ocnt, attrs) == 0, "export");
	otir = swdev_obj_import(g.ctx, attrs);
	act.dest = SWDEV_FLOW_DEST_DEVX;
	act.dest_obj = otir;
	act.counter = NULL;
	errno = 0;
	CHECK(otir != NULL && swdev_flow_create(g.matcher, v, sizeof(v), &act) == NULL &&
	      errno == ENOENT, "another file's handle imported as destination: %s",
	      strerror(errno));
	swdev_obj_unimport(otir);
	err = swdev_flow_destroy_handle(other, swdev_obj_handle(g.flow_rq));
	CHECK(err == ENOENT || err == EINVAL, "another file cannot destroy our rule: %s",
	      strerror(err));
out:
	swdev_close(other);	/* destroys the file's objects; free the local ones */
	for (i = 0; i < 40; i++)
		swdev_obj_unimport(tds[i]);
	swdev_obj_unimport(ocnt);
}

struct destroyer {
	int cmd_fd;
	uint32_t handle;
	uint32_t matcher;
};

/* A second process: import the file, remove the first context's rule. */
static int
destroyer_main(void *arg)
{
	struct destroyer *d = arg;
	struct swdev_ctx *ctx2 = swdev_import_device(d->cmd_fd);
	int err;

	if (ctx2 == NULL)
		return 10;
	err = swdev_flow_destroy_handle(ctx2, d->handle);
	if (err != 0)
		return 11;
	if (swdev_flow_destroy_handle(ctx2, d->handle) != ENOENT)
		return 12;
	if (swdev_flow_destroy_handle(ctx2, d->matcher) != EINVAL)
		return 13;
	swdev_close(ctx2);
	return 0;
}

/* A destroy that must be EBUSY (the local object is gone if it was not). */
static void
destroy_busy(struct swdev_obj **o, const char *what)
{
	int err = swdev_obj_destroy(*o);

	CHECK(err == EBUSY, "%s: %s", what, strerror(err));
	if (err == 0)
		*o = NULL;
}

static void
test_destroy(void)
{
	uint8_t f[128];
	struct swdev_rx_info ri;
	struct swdev_counts c;
	struct destroyer d;
	int err, st;
	pid_t pid;

	printf("== EBUSY while referenced; a rule removed by handle from another process\n");
	destroy_busy(&g.matcher, "matcher with rules");
	destroy_busy(&g.tir, "TIR a rule forwards to");
	destroy_busy(&g.cnt, "counter a rule counts on");

	d.cmd_fd = dup(swdev_cmd_fd(g.ctx));
	d.handle = swdev_obj_handle(g.flow_rq);
	d.matcher = swdev_obj_handle(g.matcher);
	pid = mp_fork(destroyer_main, &d);
	st = mp_wait(pid, 20);
	close(d.cmd_fd);
	CHECK(mp_exited_ok(st), "second context removed the rule: status %#x", st);
	memset(&c, 0, sizeof(c));
	err = swdev_ctl_get_counts(g.ctl, MP_DEV, swdev_ctx_file_id(g.ctx), &c);
	CHECK(err == 0 && c.by_kind[SWDEV_KIND_FLOW] == 2, "two rules left: %u",
	      c.by_kind[SWDEV_KIND_FLOW]);
	build_udp(f, sizeof(f), DPORT_RQ, 9);
	err = swdev_ctl_send_frame(g.ctl, MP_DEV, f, sizeof(f), &ri);
	CHECK(err == 0 && ri.verdict == SWDEV_RX_MISS, "its frames now miss: %s verdict %u",
	      strerror(err), ri.verdict);
	err = swdev_obj_destroy(g.flow_rq);
	CHECK(err == ENOENT, "the local object's rule is gone: %s", strerror(err));
	swdev_obj_unimport(g.flow_rq);
	g.flow_rq = NULL;
	err = swdev_obj_destroy(g.cnt);
	CHECK(err == 0, "counter free again: %s", strerror(err));
	g.cnt = NULL;
	err = swdev_obj_destroy(g.flow_drop);
	CHECK(err == 0, "destroy the DROP rule: %s", strerror(err));
	destroy_busy(&g.matcher, "matcher with one rule");
	/* The RST rule and the matcher are left to the file's close. */
}

/* ----------------------------------------------------- control socket bounds */

/* One raw control request: header + @p paylen bytes of @p pay (@p sent bytes
 * of it really sent). The reply's errno, or -1 when the daemon closed. */
static int
raw_ctl(int fd, uint16_t op, uint16_t version, uint32_t count, const void *pay,
	uint32_t paylen, size_t sent, uint32_t reserved)
{
	static uint8_t buf[sizeof(struct swdev_ctl_req) + 80000];
	struct swdev_ctl_req req;
	struct swdev_ctl_rep rep;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.magic = SWDEV_PROTO_CTL_MAGIC;
	req.version = version;
	req.op = op;
	req.seq = 77;
	req.count = count;
	req.paylen = paylen;
	req.reserved = reserved;
	snprintf(req.devname, sizeof(req.devname), "%s", MP_DEV);
	memcpy(buf, &req, sizeof(req));
	if (sent > 0)
		memcpy(buf + sizeof(req), pay, sent);
	if (send(fd, buf, sizeof(req) + sent, MSG_NOSIGNAL) < 0)
		return -1;
	if (poll(&p, 1, 5000) != 1)
		return -2;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(rep))
		return -1;
	memcpy(&rep, buf, sizeof(rep));
	if (rep.seq != 77 || (size_t)n != sizeof(rep) + rep.paylen)
		return -3;
	return (int)rep.err;
}

static void
test_ctl_bounds(void)
{
	static uint8_t pay[80000];
	struct swdev_port_stats p0, p1;
	char path[128];
	uint32_t l;
	int fd, rc;

	printf("== control socket: payload bounds\n");
	snprintf(path, sizeof(path), "%s.ctl", mp_sock);
	p0 = port_stats(g.ctl);
	fd = mp_raw_connect(path);
	CHECK(fd >= 0, "connect");
	build_udp(pay, 200, DPORT_RQ, 1);
	rc = raw_ctl(fd, SWDEV_CTL_RX, SWDEV_PROTO_VERSION, 0, pay, SWDEV_MAX_FRAME_LEN + 1,
		     SWDEV_MAX_FRAME_LEN + 1, 0);
	CHECK(rc == EINVAL, "RX of 9217 bytes: %d", rc);
	rc = raw_ctl(fd, SWDEV_CTL_PING, SWDEV_PROTO_VERSION, 0, pay, 4, 4, 0);
	CHECK(rc == EINVAL, "PING with a payload: %d", rc);
	/* Batches: a count past the records, a record past the end, one too
	 * long, bytes after the last record; none reaches the port. */
	l = 200;
	memcpy(pay, &l, 4);
	build_udp(pay + 4, 200, DPORT_RQ, 1);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 2, pay, 204, 204, 0);
	CHECK(rc == EINVAL, "batch of 2 with one record: %d", rc);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 1, pay, 150, 150, 0);
	CHECK(rc == EINVAL, "record past the end: %d", rc);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 1, pay, 210, 210, 0);
	CHECK(rc == EINVAL, "bytes after the last record: %d", rc);
	l = SWDEV_MAX_FRAME_LEN + 1;
	memcpy(pay, &l, 4);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 1, pay, 4 + l, 4 + l, 0);
	CHECK(rc == EINVAL, "record of 9217 bytes: %d", rc);
	l = 0xfffffff0u;
	memcpy(pay, &l, 4);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 1, pay, 204, 204, 0);
	CHECK(rc == EINVAL, "record of 4 GiB: %d", rc);
	rc = raw_ctl(fd, SWDEV_CTL_RX_BATCH, SWDEV_PROTO_VERSION, 0xffffffffu, pay, 0, 0, 0);
	CHECK(rc == EINVAL, "4 G records in an empty batch: %d", rc);
	p1 = port_stats(g.ctl);
	CHECK(stats_equal(&p0, &p1), "nothing reached the port");
	rc = raw_ctl(fd, SWDEV_CTL_PING, SWDEV_PROTO_VERSION, 0, NULL, 0, 0, 0);
	CHECK(rc == 0, "the connection still serves: %d", rc);
	/* Framing errors close the connection. */
	rc = raw_ctl(fd, SWDEV_CTL_RX, SWDEV_PROTO_VERSION, 0, pay, 100, 50, 0);
	CHECK(rc == -1, "paylen past the datagram: closed (%d)", rc);
	close(fd);
	fd = mp_raw_connect(path);
	rc = raw_ctl(fd, SWDEV_CTL_RX, SWDEV_PROTO_VERSION, 0, pay, 70000, 70000, 0);
	CHECK(rc == -1, "70000-byte payload: closed (%d)", rc);
	close(fd);
	fd = mp_raw_connect(path);
	rc = raw_ctl(fd, SWDEV_CTL_PING, SWDEV_PROTO_VERSION, 0, NULL, 0, 0, 1);
	CHECK(rc == -1, "reserved bits: closed (%d)", rc);
	close(fd);
	fd = mp_raw_connect(path);
	rc = raw_ctl(fd, SWDEV_CTL_PING, 1, 0, NULL, 0, 0, 0);
	CHECK(rc == -1, "protocol version 1: closed (%d)", rc);
	close(fd);
	p1 = port_stats(g.ctl);
	CHECK(stats_equal(&p0, &p1), "still nothing reached the port");
	CHECK(swdev_ctl_ping(g.ctl) == 0, "the test's control connection still works");
}

/* ---------------------------------------------------------------- the CLI */


/* The value of "key=" in @p out, or UINT64_MAX. */
static uint64_t
cli_value(const char *out, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=", key);
	for (p = out; (p = strstr(p, pat)) != NULL; p++)
		if (p == out || p[-1] == '\n')
			return strtoull(p + strlen(pat), NULL, 0);
	return UINT64_MAX;
}

static void
test_cli(void)
{
	static char out[8192];
	char path[128], rqn[16], hex[2 * 100 + 1];
	struct swdev_port_stats ps;
	struct swdev_rq_stats r0;
	uint8_t f[100];
	unsigned int i;
	int st;

	printf("== mlx5-swdev --ctl\n");
	st = mp_run_cli((const char *const[]){ "--help", NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "--ctl SOCKET") != NULL &&
	      strstr(out, "replay DEV FILE.pcap") != NULL, "--help names the commands");
	ps = port_stats(g.ctl);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "port-stats", MP_DEV, NULL }, out,
		     sizeof(out));
	CHECK(mp_exited_ok(st) && cli_value(out, "rx_packets") == ps.rx_packets &&
	      cli_value(out, "bad_frames") == ps.bad_frames &&
	      cli_value(out, "delivered") == ps.delivered, "port-stats: %s", out);

	tmp_path(path, sizeof(path), "good.pcap");
	r0 = rq_stats(g.rqn);
	snprintf(rqn, sizeof(rqn), "%u", g.rqn);
	/* The rule to the RQ is gone (test_destroy): everything misses now. */
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "replay", MP_DEV, path, NULL }, out,
		     sizeof(out));
	CHECK(mp_exited_ok(st) && cli_value(out, "frames") == NGOOD + 1 &&
	      cli_value(out, "bytes") == good_bytes && cli_value(out, "miss") == NGOOD + 1 &&
	      cli_value(out, "delivered") == 0 && cli_value(out, "refused") == 0,
	      "replay: status %#x %s", st, out);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "rq-stats", MP_DEV, rqn, NULL },
		     out, sizeof(out));
	CHECK(mp_exited_ok(st) && cli_value(out, "packets") == r0.packets &&
	      cli_value(out, "state") == MDEVX_RQC_STATE_RDY &&
	      cli_value(out, "captured") == r0.captured, "rq-stats: %s", out);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "rq-capture", MP_DEV, rqn, "0",
					    NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "\ndata=") != NULL &&
	      cli_value(out, "caplen") > 0, "rq-capture: %s", out);
	build_udp(f, sizeof(f), DPORT_DROP, 0);
	for (i = 0; i < sizeof(f); i++)
		snprintf(hex + 2 * i, 3, "%02x", f[i]);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "send-frame", MP_DEV, hex, NULL },
		     out, sizeof(out));
	CHECK(mp_exited_ok(st) && strstr(out, "verdict=miss\n") != NULL, "send-frame: %s", out);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "counts", MP_DEV, NULL }, out,
		     sizeof(out));
	CHECK(mp_exited_ok(st) && cli_value(out, "total") != UINT64_MAX, "counts: %s", out);

	tmp_path(path, sizeof(path), "garbage.pcap");
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "replay", MP_DEV, path, NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && out[0] == '\0',
	      "replay of garbage exits 1, prints nothing: %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "rq-stats", MP_DEV, "x", NULL },
		     out, sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "bad RQN: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "frobnicate", NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "unknown command: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "port-stats", NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "missing argument: usage error %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", "/nonexistent/s.sock", "ping", NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "no daemon: exit 1 %#x", st);
	st = mp_run_cli((const char *const[]){ "--ctl", mp_sock, "ping", NULL }, out, sizeof(out));
	CHECK(mp_exited_ok(st), "ping: %#x", st);
}

/* ------------------------------------------------------------ no test mode */

static void
test_no_test_mode(void)
{
	char sock2[128], path[128], out[4096];
	struct swdev_pcap_summary s;
	struct swdev_port_stats ps;
	struct swdev_rq_stats rs;
	struct swdev_ctl *ctl2;
	struct swdev_rx_info ri;
	pid_t pid;
	int err, st;

	printf("== a daemon without --test-mode refuses frames\n");
	snprintf(sock2, sizeof(sock2), "%s.2", mp_sock);
	mp_daemon_test_mode = false;
	pid = mp_daemon_start(sock2, NULL);
	mp_daemon_test_mode = true;
	CHECK(pid > 0, "second daemon");
	if (pid <= 0)
		return;
	ctl2 = swdev_ctl_open(sock2);
	CHECK(ctl2 != NULL, "control");
	if (ctl2 == NULL)
		return;
	err = swdev_ctl_send_frame(ctl2, MP_DEV, good[0].data, good[0].len, &ri);
	CHECK(err == EPERM, "frame: %s", strerror(err));
	tmp_path(path, sizeof(path), "good.pcap");
	memset(&s, 0xff, sizeof(s));
	err = swdev_ctl_send_pcap(ctl2, MP_DEV, path, &s);
	CHECK(err == EPERM && s.frames == 0, "pcap: %s, %" PRIu64 " frames", strerror(err),
	      s.frames);
	/* Reads stay open to the daemon's own uid. */
	memset(&ps, 0xff, sizeof(ps));
	err = swdev_ctl_get_port_stats(ctl2, MP_DEV, &ps);
	CHECK(err == 0 && ps.rx_packets == 0 && ps.bad_frames == 0, "port stats: %s",
	      strerror(err));
	err = swdev_ctl_get_rq_stats(ctl2, MP_DEV, 1, &rs);
	CHECK(err == ENOENT, "rq stats: %s", strerror(err));
	st = mp_run_cli((const char *const[]){ "--ctl", sock2, "replay", MP_DEV, path, NULL }, out,
		     sizeof(out));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "CLI replay: exit 1 %#x", st);
	swdev_ctl_close(ctl2);
	st = mp_daemon_stop(pid);
	CHECK(mp_exited_ok(st), "second daemon exits 0: %#x", st);
}

static void
test_close(void)
{
	uint32_t file_id = swdev_ctx_file_id(g.ctx), got = 0;

	printf("== the file's close destroys its matcher and rule\n");
	swdev_close(g.ctx);
	CHECK(mp_wait_total(g.ctl, file_id, 0, &got) == 0 && got == 0, "objects left: %u", got);
	CHECK(mp_wait_total(g.ctl, 0, 0, &got) == 0 && got == 0, "device empty: %u", got);
	swdev_ctl_close(g.ctl);
}

static void
remove_tmpdir(void)
{
	static const char *const names[] = {
		"good.pcap", "cut.pcap", "garbage.pcap", "jumbo.pcap",
	};
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		tmp_path(path, sizeof(path), names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

int
main(int argc, char **argv)
{
	mp_init(argc, argv, "rx");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/swdev-rx-%d-XXXXXX", (int)getpid());
	if (mkdtemp(tmpdir) == NULL) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return mp_finish();
	}
	if (mp_daemon_start(mp_sock, NULL) < 0) {
		CHECK(0, "daemon start");
		remove_tmpdir();
		return mp_finish();
	}
	if (setup() == 0) {
		test_client_checks();
		test_frames();
		test_pcap();
		test_foreign_handle();
		test_destroy();
		test_ctl_bounds();
		test_cli();
		test_no_test_mode();
		test_close();
	}
	free(good_frames);
	remove_tmpdir();
	return mp_finish();
}

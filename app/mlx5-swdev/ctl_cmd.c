/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-swdev --ctl SOCKET COMMAND ...: the control channel of a running
 * daemon for shell scripts. Results are printed as key=value lines on
 * stdout, one per line, in a fixed order; errors go to stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_cmd.h"
#include "mdevx_prm.h"
#include "swdev_client.h"
#include "swdev_engine.h"

static const char *const verdict_names[4] = {
	[SWDEV_RX_DELIVERED] = "delivered",
	[SWDEV_RX_MISS] = "miss",
	[SWDEV_RX_DROP] = "drop",
	[SWDEV_RX_RQ_DROP] = "rq_drop",
};

void
ctl_cmd_usage(FILE *f)
{
	fprintf(f,
		"\nControl commands, on a running daemon (see doc/swdev.rst, \"Scripts\"):\n"
		"  %s --ctl SOCKET COMMAND ARGS...\n"
		"  (SOCKET: the daemon's main socket; \"\" = $SWDEV_SOCKET or the default)\n"
		"  ping                       exit 0 when the daemon answers\n"
		"  replay DEV FILE.pcap       replay an Ethernet pcap file into DEV's port\n"
		"                             (needs --test-mode): frames= bytes= delivered=\n"
		"                             miss= drop= rq_drop= refused=\n"
		"  send-frame DEV HEX         one frame given in hex (needs --test-mode):\n"
		"                             verdict= tirn= rqn= hash=\n"
		"  port-stats DEV             rx_packets= rx_bytes= delivered= misses= drops=\n"
		"                             rq_drops= bad_frames=\n"
		"  rq-stats DEV RQN           packets= bytes= captured= state=\n"
		"  rq-capture DEV RQN IDX     captured frame IDX (0 = oldest): len= caplen=\n"
		"                             hash= tirn= seq= data=HEX\n"
		"  counts DEV [FILE_ID]       total= and one line per object kind\n"
		"  cmd-count DEV OPCODE       firmware commands with OPCODE (a number or a PRM\n"
		"                             name such as QUERY_FLOW_COUNTER) the device ran,\n"
		"                             every file's: opcode= name= count=\n"
		"Statistics, captures and command counts need --test-mode or the daemon's\n"
		"own uid.\n"
		"Exit 0 done, 1 refused (errno on stderr), 2 usage error.\n",
		"mlx5-swdev");
}

/* A number in 0..UINT32_MAX (decimal, 0x hex); -1 if not. */
static int
parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int
hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits (':' and '-' between bytes allowed) into @p buf; length or -1. */
static long
parse_hex(const char *s, uint8_t *buf, size_t size)
{
	size_t n = 0;

	while (*s != '\0') {
		int hi, lo;

		if (*s == ':' || *s == '-') {
			s++;
			continue;
		}
		hi = hex_val(s[0]);
		lo = hi < 0 ? -1 : hex_val(s[1]);
		if (lo < 0 || n == size)
			return -1;
		buf[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return (long)n;
}

static void
print_hex(const char *key, const uint8_t *p, size_t len)
{
	size_t i;

	printf("%s=", key);
	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static int
failed(const char *what, const char *arg, int err)
{
	if (arg != NULL)
		fprintf(stderr, "mlx5-swdev: %s: %s: %s\n", what, arg, strerror(err));
	else
		fprintf(stderr, "mlx5-swdev: %s: %s\n", what, strerror(err));
	return 1;
}

static int
cmd_replay(struct swdev_ctl *ctl, char **a)
{
	struct swdev_pcap_summary s;
	uint64_t accepted = 0;
	unsigned int i;
	int err;

	err = swdev_ctl_send_pcap(ctl, a[0], a[1], &s);
	if (err != 0 && s.frames == 0)
		return failed("replay", a[1], err);
	printf("frames=%" PRIu64 "\nbytes=%" PRIu64 "\n", s.frames, s.bytes);
	for (i = 0; i < 4; i++) {
		printf("%s=%" PRIu64 "\n", verdict_names[i], s.verdicts[i]);
		accepted += s.verdicts[i];
	}
	printf("refused=%" PRIu64 "\n", s.frames - accepted);
	if (err != 0)
		return failed("replay", a[1], err);
	return 0;
}

static int
cmd_send_frame(struct swdev_ctl *ctl, char **a)
{
	static uint8_t frame[SWDEV_MAX_FRAME_LEN];
	struct swdev_rx_info ri;
	long len;
	int err;

	len = parse_hex(a[1], frame, sizeof(frame));
	if (len < 0) {
		fprintf(stderr, "mlx5-swdev: send-frame: HEX: pairs of hex digits, at most %u "
			"bytes\n", SWDEV_MAX_FRAME_LEN);
		return 2;
	}
	err = swdev_ctl_send_frame(ctl, a[0], frame, (size_t)len, &ri);
	if (err != 0)
		return failed("send-frame", a[0], err);
	printf("verdict=%s\ntirn=%" PRIu32 "\nrqn=%" PRIu32 "\nhash=0x%08" PRIx32 "\n",
	       ri.verdict < 4 ? verdict_names[ri.verdict] : "?", ri.tirn, ri.rqn, ri.hash);
	return 0;
}

static int
cmd_port_stats(struct swdev_ctl *ctl, char **a)
{
	struct swdev_port_stats st;
	int err;

	err = swdev_ctl_get_port_stats(ctl, a[0], &st);
	if (err != 0)
		return failed("port-stats", a[0], err);
	printf("rx_packets=%" PRIu64 "\nrx_bytes=%" PRIu64 "\ndelivered=%" PRIu64
	       "\nmisses=%" PRIu64 "\ndrops=%" PRIu64 "\nrq_drops=%" PRIu64
	       "\nbad_frames=%" PRIu64 "\n", st.rx_packets, st.rx_bytes, st.delivered,
	       st.misses, st.drops, st.rq_drops, st.bad_frames);
	return 0;
}

static int
cmd_rq_stats(struct swdev_ctl *ctl, char **a)
{
	struct swdev_rq_stats st;
	uint32_t rqn;
	int err;

	if (parse_u32(a[1], &rqn) != 0) {
		fprintf(stderr, "mlx5-swdev: rq-stats: RQN: a number\n");
		return 2;
	}
	err = swdev_ctl_get_rq_stats(ctl, a[0], rqn, &st);
	if (err != 0)
		return failed("rq-stats", a[1], err);
	printf("packets=%" PRIu64 "\nbytes=%" PRIu64 "\ncaptured=%" PRIu32 "\nstate=%" PRIu32
	       "\n", st.packets, st.bytes, st.captured, st.state);
	return 0;
}

static int
cmd_rq_capture(struct swdev_ctl *ctl, char **a)
{
	uint8_t buf[SWDEV_CAPTURE_SNAPLEN];
	struct swdev_capture_info ci;
	uint32_t rqn, idx;
	int err;

	if (parse_u32(a[1], &rqn) != 0 || parse_u32(a[2], &idx) != 0) {
		fprintf(stderr, "mlx5-swdev: rq-capture: RQN and IDX: numbers\n");
		return 2;
	}
	err = swdev_ctl_get_rq_capture(ctl, a[0], rqn, idx, buf, sizeof(buf), &ci);
	if (err != 0)
		return failed("rq-capture", a[1], err);
	printf("len=%" PRIu32 "\ncaplen=%" PRIu32 "\nhash=0x%08" PRIx32 "\ntirn=%" PRIu32
	       "\nseq=%" PRIu64 "\n", ci.len, ci.caplen, ci.hash, ci.tirn, ci.seq);
	print_hex("data", buf, ci.caplen < sizeof(buf) ? ci.caplen : sizeof(buf));
	return 0;
}

static int
cmd_counts(struct swdev_ctl *ctl, char **a, int n)
{
	struct swdev_counts c;
	uint32_t file_id = 0;
	unsigned int i;
	int err;

	if (n == 2 && parse_u32(a[1], &file_id) != 0) {
		fprintf(stderr, "mlx5-swdev: counts: FILE_ID: a number\n");
		return 2;
	}
	err = swdev_ctl_get_counts(ctl, a[0], file_id, &c);
	if (err != 0)
		return failed("counts", a[0], err);
	printf("total=%" PRIu32 "\n", c.total);
	for (i = 0; i < SWDEV_KIND_MAX; i++)
		printf("%s=%" PRIu32 "\n", swdev_kind_name((enum swdev_kind)i), c.by_kind[i]);
	return 0;
}

/* An opcode: a number in 0..0xffff, or a name of mdevx_cmd_op_name(). -1 if neither. */
static int
parse_opcode(const char *s, uint16_t *op)
{
	uint32_t v, i;

	if (parse_u32(s, &v) == 0) {
		if (v > UINT16_MAX)
			return -1;
		*op = (uint16_t)v;
		return 0;
	}
	if (strcmp(s, "UNKNOWN") == 0)
		return -1;
	for (i = 0; i <= UINT16_MAX; i++)
		if (strcmp(mdevx_cmd_op_name((uint16_t)i), s) == 0) {
			*op = (uint16_t)i;
			return 0;
		}
	return -1;
}

static int
cmd_cmd_count(struct swdev_ctl *ctl, char **a)
{
	uint64_t count;
	uint16_t op;
	int err;

	if (parse_opcode(a[1], &op) != 0) {
		fprintf(stderr, "mlx5-swdev: cmd-count: OPCODE: a number up to 0xffff or a "
			"PRM command name (QUERY_FLOW_COUNTER, ...)\n");
		return 2;
	}
	err = swdev_ctl_get_cmd_count(ctl, a[0], op, &count);
	if (err != 0)
		return failed("cmd-count", a[0], err);
	printf("opcode=0x%04x\nname=%s\ncount=%" PRIu64 "\n", op, mdevx_cmd_op_name(op), count);
	return 0;
}

static const struct {
	const char *name;
	int min_args;
	int max_args;
} cmds[] = {
	{ "ping", 0, 0 },
	{ "replay", 2, 2 },
	{ "send-frame", 2, 2 },
	{ "port-stats", 1, 1 },
	{ "rq-stats", 2, 2 },
	{ "rq-capture", 3, 3 },
	{ "counts", 1, 2 },
	{ "cmd-count", 2, 2 },
};

int
ctl_cmd_run(const char *sock_path, int argc, char **argv)
{
	struct swdev_ctl *ctl;
	unsigned int i;
	int n, rc;

	if (argc < 1) {
		fprintf(stderr, "mlx5-swdev: --ctl: a command is missing\n");
		ctl_cmd_usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[0], cmds[i].name) == 0)
			break;
	n = argc - 1;
	if (i == sizeof(cmds) / sizeof(cmds[0]) || n < cmds[i].min_args ||
	    n > cmds[i].max_args) {
		fprintf(stderr, "mlx5-swdev: --ctl: %s '%s'\n",
			i == sizeof(cmds) / sizeof(cmds[0]) ? "unknown command" :
			"wrong number of arguments for", argv[0]);
		ctl_cmd_usage(stderr);
		return 2;
	}
	ctl = swdev_ctl_open(sock_path);
	if (ctl == NULL)
		return failed("daemon", sock_path, errno);
	argv++;
	switch (i) {
	case 0:
		rc = swdev_ctl_ping(ctl);
		rc = rc != 0 ? failed("ping", sock_path, rc) : 0;
		break;
	case 1:
		rc = cmd_replay(ctl, argv);
		break;
	case 2:
		rc = cmd_send_frame(ctl, argv);
		break;
	case 3:
		rc = cmd_port_stats(ctl, argv);
		break;
	case 4:
		rc = cmd_rq_stats(ctl, argv);
		break;
	case 5:
		rc = cmd_rq_capture(ctl, argv);
		break;
	case 6:
		rc = cmd_counts(ctl, argv, n);
		break;
	default:
		rc = cmd_cmd_count(ctl, argv);
		break;
	}
	swdev_ctl_close(ctl);
	return rc;
}

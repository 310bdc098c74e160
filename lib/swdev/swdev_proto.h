/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: wire protocol between the client library and the
 * daemon (see doc/swdev.rst, "Protocol").
 *
 * Three kinds of sockets, all AF_UNIX, host byte order (both ends are on the
 * same machine):
 *
 *  - main connection (SOCK_SEQPACKET, connected to <socket path>): the
 *    "uverbs file". Only OPEN (first message) and ATTACH travel on it, one
 *    datagram each, each carrying exactly one fd (SCM_RIGHTS): the daemon's
 *    end of a private reply channel. Nothing is ever answered on it, so a
 *    shared command fd never delivers a reply to the wrong process.
 *  - private channel (SOCK_STREAM socketpair, one per client context): the
 *    reply to OPEN/ATTACH and every later request and reply of that context.
 *    A frame is a fixed header followed by its payload; the header carries
 *    the payload length, which the receiver checks before reading it.
 *  - control connection (SOCK_SEQPACKET, connected to <socket path>.ctl):
 *    request / reply datagrams for tests: a fixed header, then paylen bytes
 *    (a frame or a batch of frames in a request; statistics or a captured
 *    frame in a reply), at most SWDEV_PROTO_CTL_MAX_PAYLOAD.
 */
#ifndef SWDEV_PROTO_H
#define SWDEV_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWDEV_PROTO_MAGIC	0x56445753u	/* "SWDV" read as little-endian bytes */
#define SWDEV_PROTO_REP_MAGIC	0x52445753u	/* "SWDR" */
#define SWDEV_PROTO_CTL_MAGIC	0x43445753u	/* "SWDC" */
/* 2: control header and reply carry a payload length (receive path). */
#define SWDEV_PROTO_VERSION	2u

/**
 * Largest payload of one frame (input or output mailbox). A
 * QUERY_FLOW_COUNTER of 65536 counters answers 16 + 16 * 65536 bytes; the
 * limit leaves room for twice that.
 */
#define SWDEV_PROTO_MAX_PAYLOAD	(2u * 1024u * 1024u + 4096u)

/** Device names: 1..31 characters plus NUL (the engine's rule). */
#define SWDEV_PROTO_NAME_LEN	32u

/** Suffix of the control socket path. */
#define SWDEV_PROTO_CTL_SUFFIX	".ctl"

enum swdev_proto_op {
	SWDEV_OP_NONE = 0,
	SWDEV_OP_OPEN = 1,		/**< main connection, first message: payload devname */
	SWDEV_OP_ATTACH = 2,		/**< main connection: join the file, new channel */
	SWDEV_OP_DEVX_CREATE = 3,	/**< payload: in mailbox; reply: out + obj info */
	SWDEV_OP_DEVX_QUERY = 4,	/**< handle, in mailbox; reply: out */
	SWDEV_OP_DEVX_MODIFY = 5,	/**< handle, in mailbox; reply: out */
	SWDEV_OP_DEVX_DESTROY = 6,	/**< handle */
	SWDEV_OP_DEVX_GENERAL = 7,	/**< in mailbox; reply: out */
	SWDEV_OP_PD_ALLOC = 8,		/**< reply: handle, val = pdn */
	SWDEV_OP_UAR_ALLOC = 9,		/**< reply: handle, val = page id */
	SWDEV_OP_UMEM_REG = 10,		/**< arg0 addr, arg1 size, arg2 access */
	SWDEV_OP_QUERY_EQN = 11,	/**< arg2 vector; reply: val = eqn */
	SWDEV_OP_VERBS_DESTROY = 12,	/**< handle (PD, UAR, umem), arg2 (below) */
	SWDEV_OP_MATCHER_CREATE = 13,	/**< payload: swdev_proto_matcher + mask; reply: handle */
	SWDEV_OP_FLOW_CREATE = 14,	/**< handle = matcher; payload: swdev_flow_attr + value */
	SWDEV_OP_STEER_DESTROY = 15,	/**< handle, arg2 = SWDEV_KIND_MATCHER or _FLOW */
	SWDEV_OP_PD_IMPORT = 16,	/**< handle of a PD of the file; reply: val = pdn */
	SWDEV_OP_MAX,
};

/**
 * VERBS_DESTROY arg2: 0 destroys a PD, UAR or umem; SWDEV_PROTO_VERBS_KIND(k)
 * only an object of kind k (EINVAL for another kind), as the kernel's typed
 * destroy methods do.
 */
#define SWDEV_PROTO_VERBS_KIND(k) ((uint32_t)(k) + 1u)

/** Printable name of an op, "?" when unknown. */
const char *swdev_proto_op_name(uint32_t op);

/** Request header (48 bytes), followed by inlen bytes of payload. */
struct swdev_req_hdr {
	uint32_t magic;		/**< SWDEV_PROTO_MAGIC */
	uint16_t version;	/**< SWDEV_PROTO_VERSION */
	uint16_t op;		/**< enum swdev_proto_op */
	uint32_t seq;		/**< echoed in the reply */
	uint32_t handle;	/**< object handle for query/modify/destroy */
	uint32_t inlen;		/**< payload bytes following this header */
	uint32_t outlen;	/**< size of the output mailbox the caller wants */
	uint64_t arg0;		/**< umem address */
	uint64_t arg1;		/**< umem size */
	uint32_t arg2;		/**< umem access, EQ vector */
	uint32_t reserved;	/**< must be 0 */
};

/** Reply header (56 bytes), followed by outlen bytes of output mailbox. */
struct swdev_rep_hdr {
	uint32_t magic;		/**< SWDEV_PROTO_REP_MAGIC */
	uint16_t version;
	uint16_t op;		/**< op of the request */
	uint32_t seq;		/**< seq of the request */
	uint32_t err;		/**< 0 or a positive errno (EREMOTEIO: out holds status) */
	uint32_t outlen;	/**< payload bytes following (0, or the requested outlen) */
	uint32_t handle;	/**< new object handle (create/alloc/reg) */
	uint32_t type;		/**< rdma-core object type (create) */
	uint32_t object_id;	/**< rdma-core object id (create) */
	uint64_t rx_icm_addr;	/**< create (TIR) */
	uint32_t val;		/**< pdn, UAR page, umem id, eqn, or file uid (OPEN/ATTACH) */
	uint32_t file_id;	/**< OPEN/ATTACH: device-unique uverbs file id */
	uint8_t log_obj_range;	/**< create */
	uint8_t pad[7];
};

/** Payload of the OPEN/ATTACH reply. */
struct swdev_open_rep {
	char devname[SWDEV_PROTO_NAME_LEN];
};

/**
 * Head of the MATCHER_CREATE payload; the mask follows (the rest of the
 * payload, inlen - 8 bytes: the engine checks its length).
 */
struct swdev_proto_matcher {
	uint16_t priority;
	uint8_t match_criteria_enable;
	uint8_t reserved[5];		/**< must be 0 */
};

/*
 * FLOW_CREATE payload: a struct swdev_flow_attr (swdev_types.h, 16 bytes;
 * handles of the caller's file), then the match value (inlen - 16 bytes).
 */

/* ---- control channel ---- */

/**
 * Largest payload of a control datagram. A batch of frames fills at most
 * this much (at least one frame of SWDEV_MAX_FRAME_LEN fits), well below
 * the default socket send buffer that bounds a SOCK_SEQPACKET datagram.
 */
#define SWDEV_PROTO_CTL_MAX_PAYLOAD	65536u

enum swdev_ctl_op {
	SWDEV_CTL_COUNTS = 1,
	SWDEV_CTL_NUM_FILES = 2,
	SWDEV_CTL_INJECT = 3,
	SWDEV_CTL_FAULT = 4,
	SWDEV_CTL_PING = 5,
	SWDEV_CTL_RX = 6,		/**< payload: one frame; reply: swdev_rx_info */
	SWDEV_CTL_RX_BATCH = 7,		/**< count records {u32 len, len bytes}; reply: batch_rep */
	SWDEV_CTL_PORT_STATS = 8,	/**< reply: swdev_port_stats */
	SWDEV_CTL_RQ_STATS = 9,		/**< rqn; reply: swdev_rq_stats */
	SWDEV_CTL_RQ_CAPTURE = 10,	/**< rqn, idx; reply: swdev_capture_info + caplen bytes */
	SWDEV_CTL_CMD_COUNT = 11,	/**< opcode; reply: swdev_ctl_cmd_count_rep */
	/**
	 * idx; reply: the name of device idx (SWDEV_PROTO_NAME_LEN bytes) and
	 * nfiles = the number of devices; ENODEV past the last. Any allowed peer.
	 */
	SWDEV_CTL_DEVICE = 12,
	/**
	 * Test mode: every uverbs file of the device is disassociated, as the
	 * kernel does at a device's removal or reset: its connections are
	 * closed, its objects destroyed; reply: nfiles = the files. ENODEV
	 * for an unknown device.
	 */
	SWDEV_CTL_DISASSOCIATE = 13,
	SWDEV_CTL_MAX,
};

struct swdev_ctl_req {
	uint32_t magic;		/**< SWDEV_PROTO_CTL_MAGIC */
	uint16_t version;
	uint16_t op;		/**< enum swdev_ctl_op */
	uint32_t seq;
	uint32_t file_id;	/**< COUNTS: 0 = whole device */
	char devname[SWDEV_PROTO_NAME_LEN];
	uint32_t counter_id;	/**< INJECT */
	uint32_t count;		/**< FAULT */
	uint32_t syndrome;	/**< FAULT */
	uint32_t delay_us;	/**< FAULT */
	uint16_t opcode;	/**< FAULT, CMD_COUNT */
	uint8_t status;		/**< FAULT */
	uint8_t pad[5];
	uint64_t packets;	/**< INJECT */
	uint64_t bytes;		/**< INJECT */
	uint32_t rqn;		/**< RQ_STATS, RQ_CAPTURE */
	uint32_t idx;		/**< RQ_CAPTURE: 0 = oldest frame kept; DEVICE: index */
	uint32_t paylen;	/**< bytes following this header in the datagram */
	uint32_t reserved;	/**< must be 0 */
};

/** Slots of by_kind in the COUNTS reply (every enum swdev_kind fits). */
#define SWDEV_PROTO_CTL_KINDS 16u

struct swdev_ctl_rep {
	uint32_t magic;		/**< SWDEV_PROTO_CTL_MAGIC */
	uint16_t version;
	uint16_t op;
	uint32_t seq;
	uint32_t err;		/**< 0 or positive errno */
	uint32_t nfiles;	/**< NUM_FILES */
	uint32_t total;		/**< COUNTS */
	uint32_t by_kind[SWDEV_PROTO_CTL_KINDS];	/**< COUNTS, enum swdev_kind order */
	uint32_t paylen;	/**< bytes following this header in the datagram */
	uint32_t reserved;
};

/** Reply payload of RX_BATCH: what the port made of the batch. */
struct swdev_ctl_batch_rep {
	uint32_t frames;	/**< frames handed to the port (the whole batch) */
	uint32_t refused;	/**< of them, refused by the port (counted in bad_frames) */
	uint32_t first_refused;	/**< index in the batch of the first refused frame */
	uint32_t first_err;	/**< its errno (0 when none was refused) */
	uint64_t bytes;		/**< bytes of the frames handed to the port */
	uint64_t verdicts[4];	/**< accepted frames by enum swdev_rx_verdict */
};

/** Reply payload of CMD_COUNT (8 bytes). */
struct swdev_ctl_cmd_count_rep {
	uint64_t count;		/**< commands with the opcode the device ran */
};

/* ---- helpers shared by both ends ---- */

/** Check a request header: magic, version, op range, reserved, lengths. 0 or EPROTO / EMSGSIZE. */
int swdev_proto_check_req(const struct swdev_req_hdr *h);
/** Check a reply header against the request it answers. 0 or EPROTO / EMSGSIZE. */
int swdev_proto_check_rep(const struct swdev_rep_hdr *h, uint16_t op, uint32_t seq,
			  uint32_t outlen);

/**
 * Send one datagram (main/ctl connection) with an optional fd (-1: none).
 * MSG_NOSIGNAL; EINTR retried. 0 or errno.
 */
int swdev_proto_send_fd(int sock, const void *buf, size_t len, int fd, int flags);
/**
 * Receive one datagram and at most one fd (*fd = -1 if none; any extra fds
 * are closed). MSG_CMSG_CLOEXEC. Returns bytes received (0 = EOF), or -errno.
 * *trunc is set when the datagram was larger than @p len.
 */
ssize_t swdev_proto_recv_fd(int sock, void *buf, size_t len, int *fd, int *trunc, int flags);

/** Write all of @p len bytes on a blocking stream (EINTR retried). 0 or errno. */
int swdev_proto_write_all(int sock, const void *buf, size_t len);
/** Read exactly @p len bytes from a blocking stream. 0, EPIPE on EOF, or errno. */
int swdev_proto_read_all(int sock, void *buf, size_t len);
/** Wait up to @p ms for @p fd to be readable (EINTR retried). 0, ETIMEDOUT, or errno. */
int swdev_proto_wait_readable(int fd, int ms);

/**
 * Send a request header @p h and its payload (@p inlen bytes, may be 0) on
 * a blocking channel, as one frame (short writes and EINTR retried).
 * 0 or errno.
 */
int swdev_proto_send_frame(int sock, const struct swdev_req_hdr *h, const void *in,
			   size_t inlen);

/** Control socket path for a main socket path; ENAMETOOLONG if it does not fit. */
int swdev_proto_ctl_path(const char *sock_path, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_PROTO_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: types shared by the engine (daemon side) and the
 * client library (what tests and the driver backend see).
 */
#ifndef SWDEV_TYPES_H
#define SWDEV_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of objects the device tracks (for counts and the control path). */
enum swdev_kind {
	SWDEV_KIND_PD,
	SWDEV_KIND_UAR,
	SWDEV_KIND_UMEM,
	SWDEV_KIND_TD,
	SWDEV_KIND_CQ,
	SWDEV_KIND_RQ,
	SWDEV_KIND_RQT,
	SWDEV_KIND_TIR,
	SWDEV_KIND_FLOW_COUNTER,	/**< one per allocated bulk */
	SWDEV_KIND_FLOW_TABLE,		/**< DEVX NIC RX flow table */
	SWDEV_KIND_FLOW_GROUP,		/**< DEVX flow group */
	SWDEV_KIND_FTE,			/**< DEVX flow table entry */
	SWDEV_KIND_MATCHER,		/**< root matcher (mlx5dv_create_flow_matcher) */
	SWDEV_KIND_FLOW,		/**< root rule (mlx5dv_create_flow) */
	SWDEV_KIND_MAX,
};

/** Object counts, by kind and in total. */
struct swdev_counts {
	uint32_t by_kind[SWDEV_KIND_MAX];
	uint32_t total;
};

/** Largest frame the port receives (bytes, without FCS). */
#define SWDEV_MAX_FRAME_LEN 9216u
/** Bytes of each frame kept in an RQ's capture ring. */
#define SWDEV_CAPTURE_SNAPLEN 256u
/** Frames kept per RQ (the oldest is overwritten). */
#define SWDEV_CAPTURE_SLOTS 64u

/** What became of one received frame (swdev_ctl_rx()). */
enum swdev_rx_verdict {
	SWDEV_RX_DELIVERED = 0,	/**< reached an RQ in RDY */
	SWDEV_RX_MISS = 1,	/**< no root rule matched, or a table missed */
	SWDEV_RX_DROP = 2,	/**< a rule or entry with action DROP */
	SWDEV_RX_RQ_DROP = 3,	/**< steered to an RQ that is not RDY */
};

/** Where a received frame went. */
struct swdev_rx_info {
	uint32_t verdict;	/**< enum swdev_rx_verdict */
	uint32_t tirn;		/**< TIR reached (DELIVERED, RQ_DROP), else 0 */
	uint32_t rqn;		/**< RQ reached (DELIVERED, RQ_DROP), else 0 */
	uint32_t hash;		/**< RSS hash (indirect TIR with a hash function), else 0 */
};

/** Per-port receive statistics of a device. */
struct swdev_port_stats {
	uint64_t rx_packets;	/**< frames accepted by the parser */
	uint64_t rx_bytes;
	uint64_t delivered;	/**< reached an RQ in RDY */
	uint64_t misses;	/**< no rule */
	uint64_t drops;		/**< DROP action */
	uint64_t rq_drops;	/**< RQ not RDY */
	uint64_t bad_frames;	/**< refused: runt, truncated headers, > SWDEV_MAX_FRAME_LEN */
};

/** Per-RQ receive statistics. */
struct swdev_rq_stats {
	uint64_t packets;	/**< frames delivered */
	uint64_t bytes;
	uint32_t captured;	/**< frames in the capture ring (<= SWDEV_CAPTURE_SLOTS) */
	uint32_t state;		/**< RQ state (MDEVX_RQC_STATE_*) */
};

/** One captured frame. */
struct swdev_capture_info {
	uint32_t len;		/**< original frame length */
	uint32_t caplen;	/**< bytes kept, <= SWDEV_CAPTURE_SNAPLEN */
	uint32_t hash;		/**< RSS hash, 0 for a direct TIR */
	uint32_t tirn;		/**< TIR the frame came through */
	uint64_t seq;		/**< device-wide receive sequence number */
};

/** Destination of a root rule (swdev_flow_attr.dest). */
enum swdev_flow_dest {
	SWDEV_FLOW_DEST_NONE = 0,	/**< count only: go on to lower priorities */
	SWDEV_FLOW_DEST_DEVX = 1,	/**< a DEVX TIR or flow table of the file */
	SWDEV_FLOW_DEST_DROP = 2,
};

/** Actions of a root rule, as mlx5dv_create_flow() takes them. */
struct swdev_flow_attr {
	uint8_t dest;			/**< enum swdev_flow_dest */
	uint8_t has_counter;		/**< 1: count on counter_handle + offset */
	uint8_t reserved[2];
	uint32_t dest_handle;		/**< DEST_DEVX: DEVX TIR or flow table handle */
	uint32_t counter_handle;	/**< DEVX flow counter bulk handle */
	uint32_t counter_offset;	/**< counter inside the bulk */
};

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_TYPES_H */

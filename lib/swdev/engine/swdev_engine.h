/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the engine.
 *
 * The engine plays the kernel (uverbs files, handles, uids, object lifetime,
 * the DEVX checks of drivers/infiniband/hw/mlx5/devx.c) and the firmware (PRM
 * command mailboxes, decoded field by field, answered with PRM status and
 * syndrome). It is transport-free and single-threaded: the daemon
 * (swdev_server.c) serialises every call; unit tests and the fuzzer drive it
 * in-process.
 *
 * Return convention of every int function: 0 on success, else a positive
 * errno value, as the kernel's ioctl would set errno:
 *   EREMOTEIO  firmware executed the command and failed: the output mailbox
 *              holds status (bits 0..7) and syndrome (bits 0x20..0x3f);
 *              nothing was created or changed;
 *   EINVAL     kernel-level refusal (handle names another object, command
 *              not allowed through this call, destroy opcode, bad lengths
 *              that never reach firmware), output untouched;
 *   ENOENT     no object with that handle in this uverbs file;
 *   ENOMEM     out of host memory;
 *   EBUSY      destroy refused: the object is still referenced.
 */
#ifndef SWDEV_ENGINE_H
#define SWDEV_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "swdev_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Printable name of a kind ("pd", "tir", ...). */
const char *swdev_kind_name(enum swdev_kind kind);

/** Per-device limits; also advertised through QUERY_HCA_CAP. */
struct swdev_limits {
	uint32_t max_flow_counters;	/**< counters (not bulks) per device */
	uint8_t flow_counter_bulk_alloc;	/**< cap bitmask, bit i = 128 << i */
	uint8_t flow_counter_bulk_log_max_alloc;	/**< 0 = log-size alloc unsupported */
	uint8_t log_max_flow_counter_bulk;	/**< max counters in one query, log2 */
	uint8_t log_max_tir;
	uint8_t log_max_rq;
	uint8_t log_max_rqt;
	uint8_t log_max_rqt_size;
	uint8_t log_max_cq;
	uint8_t log_max_cq_sz;
	uint8_t log_max_wq_sz;
	uint8_t log_max_transport_domain;
	uint8_t log_max_pd;
	uint32_t max_uars;
	uint32_t max_umems;
	uint32_t max_handles_per_file;
	uint32_t num_eqs;		/**< EQNs served by query_eqn */
	/* NIC receive flow tables (QUERY_HCA_CAP flow_table_nic_cap) */
	uint8_t log_max_ft_size;	/**< entries per flow table, log2 */
	uint8_t max_ft_level;		/**< deepest DEVX table level (root is 0) */
	uint8_t log_max_ft_num;		/**< flow tables per device, log2 */
	uint8_t log_max_flow_counter;	/**< counters per entry, log2 */
	uint8_t log_max_destination;	/**< destinations per entry, log2 (only 0) */
	uint8_t log_max_flow;		/**< flow table entries per device, log2 */
};

/** Fill @p lim with the defaults documented in doc/swdev_commands.rst. */
void swdev_limits_default(struct swdev_limits *lim);
/**
 * Fill @p lim with the largest value of each limit that
 * swdev_engine_add_device() accepts (counts must also be at least 1).
 */
void swdev_limits_max(struct swdev_limits *lim);

struct swdev_engine;
struct swdev_file;

struct swdev_engine *swdev_engine_create(void);
/** Destroy every file (as if every holder exited), then the devices. */
void swdev_engine_destroy(struct swdev_engine *eng);

/**
 * Add a device. Names are 1..31 printable characters, unique.
 * @return device index >= 0, or -errno (EEXIST, EINVAL, ENOSPC, ENOMEM).
 */
int swdev_engine_add_device(struct swdev_engine *eng, const char *name,
			    const struct swdev_limits *lim);
unsigned int swdev_engine_num_devices(const struct swdev_engine *eng);
const char *swdev_engine_device_name(const struct swdev_engine *eng, unsigned int idx);

/**
 * Open a uverbs file on a device (what opening /dev/infiniband/uverbsN and
 * creating a DEVX context does). Each file gets its own non-zero uid and a
 * device-unique file id. NULL with errno ENODEV / ENOMEM / EMFILE.
 */
struct swdev_file *swdev_file_open(struct swdev_engine *eng, const char *devname);
/**
 * The last holder of the file is gone: destroy all of its objects in
 * dependency order (users first: root rules, matchers, flow table entries,
 * groups, tables (lowest level first), TIR, RQT, RQ, CQ, TD, counters,
 * umem, UAR, PD), as the kernel does, then free the file.
 */
void swdev_file_close(struct swdev_file *f);
uint32_t swdev_file_id(const struct swdev_file *f);
uint16_t swdev_file_uid(const struct swdev_file *f);
const char *swdev_file_devname(const struct swdev_file *f);

/* ---- DEVX (mlx5dv_devx_obj_* / mlx5dv_devx_general_cmd) ---- */

/**
 * Create a DEVX object. The engine writes the file's uid into the command
 * (as the kernel does), runs it, and on success records the object with its
 * kernel-style destroy command and returns its handle. The rdma-core style
 * type / object_id / rx_icm_addr / log_obj_range are returned too (see
 * swdev_obj_info), so the client can fill its local object as rdma-core's
 * set_devx_obj_info() does.
 */
struct swdev_obj_info {
	uint32_t handle;
	uint32_t type;		/**< rdma-core enum: FLOW_COUNTER 2, TIR 6, other 0 */
	uint32_t object_id;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
};
int swdev_devx_obj_create(struct swdev_file *f, const void *in, size_t inlen,
			  void *out, size_t outlen, struct swdev_obj_info *info);
int swdev_devx_obj_query(struct swdev_file *f, uint32_t handle, const void *in,
			 size_t inlen, void *out, size_t outlen);
int swdev_devx_obj_modify(struct swdev_file *f, uint32_t handle, const void *in,
			  size_t inlen, void *out, size_t outlen);
int swdev_devx_obj_destroy(struct swdev_file *f, uint32_t handle);
int swdev_devx_general_cmd(struct swdev_file *f, const void *in, size_t inlen,
			   void *out, size_t outlen);

/* ---- verbs side (ibv_alloc_pd + mlx5dv_init_obj, UAR, EQN, umem) ---- */

int swdev_file_pd_alloc(struct swdev_file *f, uint32_t *handle, uint32_t *pdn);
int swdev_file_uar_alloc(struct swdev_file *f, uint32_t *handle, uint32_t *page_id);
int swdev_file_query_eqn(struct swdev_file *f, uint32_t vector, uint32_t *eqn);
int swdev_file_umem_reg(struct swdev_file *f, uint64_t addr, uint64_t size,
		   uint32_t access, uint32_t *handle, uint32_t *umem_id);
/** Destroy a PD, UAR or umem by handle (EBUSY while referenced). */
int swdev_file_verbs_destroy(struct swdev_file *f, uint32_t handle);
/** The same for an object of @p kind only: ENOENT, EINVAL (another kind). */
int swdev_file_verbs_destroy_kind(struct swdev_file *f, uint32_t handle, enum swdev_kind kind);
/**
 * The pdn of the PD @p handle names in the file (what ibv_import_pd() and
 * mlx5dv_init_obj() find for a handle received from another process): 0;
 * ENOENT (no such handle); EINVAL (the handle names another kind).
 */
int swdev_file_pd_query(struct swdev_file *f, uint32_t handle, uint32_t *pdn);

/* ---- root steering rules (mlx5dv_create_flow_matcher / mlx5dv_create_flow) ---- */

/**
 * Create a matcher on the NIC receive root: @p priority (lower first),
 * @p match_criteria_enable (only MDEVX_MATCH_CRITERIA_OUTER is supported),
 * @p mask: the first @p mask_len bytes of an fte_match_param (a multiple of
 * 4, at most 512; the rest is zero). EINVAL for a bad length, a mask bit
 * outside the outer headers or a criteria bit other than outer; EOPNOTSUPP
 * for a mask on an outer field the device does not parse. Destroyed with
 * swdev_file_steer_destroy() (EBUSY while it has flows).
 */
int swdev_file_matcher_create(struct swdev_file *f, uint16_t priority,
			      uint8_t match_criteria_enable, const void *mask, size_t mask_len,
			      uint32_t *handle);
/**
 * Create a rule on a matcher: @p value (same length as the matcher's mask;
 * bits outside the mask are ignored) and the actions of @p attr. Handles
 * resolve in @p f only: ENOENT for a handle that is not in the file, EINVAL
 * for a handle of the wrong kind or a counter offset past the bulk,
 * EEXIST when the matcher has a rule with the same masked value. The rule
 * holds a reference on its matcher, destination and counter bulk (their
 * destroy is EBUSY until the rule is gone). Destroyed with
 * swdev_file_steer_destroy(), or with the file.
 */
int swdev_file_flow_create(struct swdev_file *f, uint32_t matcher_handle, const void *value,
			   size_t value_len, const struct swdev_flow_attr *attr, uint32_t *handle);
/**
 * Destroy a matcher (@p kind SWDEV_KIND_MATCHER) or a rule
 * (SWDEV_KIND_FLOW) by handle: 0; ENOENT; EINVAL when the handle names an
 * object of another kind; EBUSY (a matcher with rules).
 */
int swdev_file_steer_destroy(struct swdev_file *f, uint32_t handle, enum swdev_kind kind);

/* ---- control path (tests only; never reachable through a file) ---- */

/** Counts on a device; file_id 0 = the whole device. */
int swdev_ctl_counts(struct swdev_engine *eng, const char *devname, uint32_t file_id,
		     struct swdev_counts *counts);
/** Number of open uverbs files on a device. */
int swdev_ctl_num_files(struct swdev_engine *eng, const char *devname, uint32_t *nfiles);
/** Add traffic to one counter (any allocated counter id of the device). */
int swdev_ctl_inject(struct swdev_engine *eng, const char *devname, uint32_t counter_id,
		     uint64_t packets, uint64_t bytes);
/**
 * Fault injection: the next @p count commands with @p opcode on the device
 * fail with @p status / @p syndrome (status 0: they succeed but are delayed
 * by @p delay_us). count 0 clears the rule for that opcode.
 */
int swdev_ctl_fault(struct swdev_engine *eng, const char *devname, uint16_t opcode,
		    uint32_t count, uint8_t status, uint32_t syndrome, uint32_t delay_us);
/** Delay the last command asked to apply (set by a delay fault), microseconds. */
uint32_t swdev_file_take_delay(struct swdev_file *f);

/** Commands with @p opcode run on the device so far (every file): 0, ENODEV, EINVAL. */
int swdev_ctl_cmd_count(struct swdev_engine *eng, const char *devname, uint16_t opcode,
			uint64_t *count);

/* ---- receive path (tests and the control channel) ---- */

/**
 * The device's port receives one Ethernet frame (no FCS): parse it
 * (Ethernet, one 802.1Q tag, IPv4/IPv6, TCP/UDP), evaluate the root rules by
 * priority then the flow tables they lead to, count, and deliver. @p info
 * (may be NULL) says where it went. Returns 0, or EINVAL for a frame shorter
 * than 14 bytes, longer than SWDEV_MAX_FRAME_LEN or shorter than a header it
 * announces (counted in bad_frames, nothing else changes); ENODEV; ENOMEM
 * (host memory: see "Receive path" in doc/swdev_commands.rst).
 */
int swdev_ctl_rx(struct swdev_engine *eng, const char *devname, const void *frame,
		 size_t len, struct swdev_rx_info *info);
int swdev_ctl_port_stats(struct swdev_engine *eng, const char *devname,
			 struct swdev_port_stats *stats);
/** Statistics of the RQ @p rqn: 0, ENODEV, ENOENT (no such RQ). */
int swdev_ctl_rq_stats(struct swdev_engine *eng, const char *devname, uint32_t rqn,
		       struct swdev_rq_stats *stats);
/**
 * Copy captured frame @p idx (0 = oldest kept) of RQ @p rqn: up to
 * @p buflen bytes into @p buf, details into @p ci. 0, ENODEV, ENOENT (no
 * RQ), ERANGE (idx >= captured).
 */
int swdev_ctl_rq_capture(struct swdev_engine *eng, const char *devname, uint32_t rqn,
			 uint32_t idx, void *buf, size_t buflen, struct swdev_capture_info *ci);

/* ---- additions (engine logging) ---- */

/** Receives one line (no newline) per refused or failed command. */
typedef void swdev_engine_log_fn(void *arg, const char *line);
/**
 * Route the engine's log lines ("<dev> file <id> uid <uid> <CMD_NAME>:
 * errno <e> status <name>(0x..) syndrome 0x..") to @p fn; NULL (the default)
 * discards them.
 */
void swdev_engine_set_log(struct swdev_engine *eng, swdev_engine_log_fn *fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_ENGINE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
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
	SWDEV_KIND_MAX,
};

/** Object counts, by kind and in total. */
struct swdev_counts {
	uint32_t by_kind[SWDEV_KIND_MAX];
	uint32_t total;
};

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_TYPES_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/* Backend selection from a device string. */
#include <errno.h>
#include <string.h>

#include "mdevx_backend.h"
#include "mdevx_errno.h"
#include "mdevx_build_config.h"

static const struct mdevx_backend_ops *const backends[] = {
	&mdevx_backend_rdma_ops,
};

/*
 * Backends this library knows of, built in or not (for a clear errno):
 * "swdev" is the software device backend of earlier releases.
 */
static const char *const known_names[] = { "rdma", "swdev" };

const struct mdevx_backend_ops *
mdevx_backend_select(const char *devstr, const char **spec)
{
	const char *colon;
	size_t plen, i;

	if (devstr == NULL || spec == NULL) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	colon = strchr(devstr, ':');
	if (colon == NULL || colon == devstr || colon[1] == '\0') {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	plen = (size_t)(colon - devstr);
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (strlen(backends[i]->name) == plen &&
		    strncmp(backends[i]->name, devstr, plen) == 0) {
			*spec = colon + 1;
			return backends[i];
		}
	}
	for (i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++) {
		if (strlen(known_names[i]) == plen && strncmp(known_names[i], devstr, plen) == 0) {
			mdevx_set_errno(ENOTSUP);
			return NULL;
		}
	}
	mdevx_set_errno(EINVAL);
	return NULL;
}

const struct mdevx_backend_ops *
mdevx_backend_by_id(uint32_t id)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if ((uint32_t)backends[i]->id == id)
			return backends[i];
	return NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: the helpers every engine file uses (the
 * engine's log, device lookup by name, the bad-opcode answer). A leaf: it
 * calls no other engine file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swdev_engine_priv.h"

void
swdev_engine_logf(struct swdev_engine *eng, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (eng == NULL || eng->log_fn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	eng->log_fn(eng->log_arg, line);
}

struct swdev_dev *
swdev_dev_by_name(const struct swdev_engine *eng, const char *name)
{
	unsigned int i;

	if (eng == NULL || name == NULL)
		return NULL;
	for (i = 0; i < eng->ndevs; i++)
		if (strncmp(eng->devs[i]->name, name, sizeof(eng->devs[i]->name)) == 0)
			return eng->devs[i];
	return NULL;
}

int
swdev_cmd_bad_op(struct swdev_cmd *cmd)
{
	return swdev_cmd_fail(cmd, MDEVX_CMD_STAT_BAD_OP_ERR, SWDEV_SYND_BAD_OPCODE);
}

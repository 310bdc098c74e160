/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: engine, devices, uverbs files, limits, the
 * control path (counts, commands run, traffic and fault injection). The
 * log itself is in swdev_util.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

static const char *const kind_names[SWDEV_KIND_MAX] = {
	[SWDEV_KIND_PD] = "pd",
	[SWDEV_KIND_UAR] = "uar",
	[SWDEV_KIND_UMEM] = "umem",
	[SWDEV_KIND_TD] = "td",
	[SWDEV_KIND_CQ] = "cq",
	[SWDEV_KIND_RQ] = "rq",
	[SWDEV_KIND_RQT] = "rqt",
	[SWDEV_KIND_TIR] = "tir",
	[SWDEV_KIND_FLOW_COUNTER] = "flow_counter",
	[SWDEV_KIND_FLOW_TABLE] = "flow_table",
	[SWDEV_KIND_FLOW_GROUP] = "flow_group",
	[SWDEV_KIND_FTE] = "fte",
	[SWDEV_KIND_MATCHER] = "matcher",
	[SWDEV_KIND_FLOW] = "flow",
};

/*
 * Destruction order at file close: users before what they use. A flow
 * table references a table of a higher level only (its miss table): the
 * tables go lowest level first (close_tables()).
 */
static const enum swdev_kind close_order[SWDEV_KIND_MAX] = {
	SWDEV_KIND_FLOW, SWDEV_KIND_MATCHER, SWDEV_KIND_FTE, SWDEV_KIND_FLOW_GROUP,
	SWDEV_KIND_FLOW_TABLE, SWDEV_KIND_TIR, SWDEV_KIND_RQT, SWDEV_KIND_RQ, SWDEV_KIND_CQ,
	SWDEV_KIND_TD, SWDEV_KIND_FLOW_COUNTER, SWDEV_KIND_UMEM, SWDEV_KIND_UAR, SWDEV_KIND_PD,
};

const char *
swdev_kind_name(enum swdev_kind kind)
{
	if ((unsigned int)kind >= SWDEV_KIND_MAX)
		return "unknown";
	return kind_names[kind];
}

void
swdev_limits_default(struct swdev_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_flow_counters = 1u << 20;
	lim->flow_counter_bulk_alloc = 0xff;		/* 128 .. 16384 counters */
	lim->flow_counter_bulk_log_max_alloc = 23;
	lim->log_max_flow_counter_bulk = 16;		/* 65536 per query */
	lim->log_max_tir = 16;
	lim->log_max_rq = 16;
	lim->log_max_rqt = 16;
	lim->log_max_rqt_size = 11;			/* 2048 entries */
	lim->log_max_cq = 16;
	lim->log_max_cq_sz = 22;
	lim->log_max_wq_sz = 16;
	lim->log_max_transport_domain = 16;
	lim->log_max_pd = 16;
	lim->max_uars = 512;
	lim->max_umems = 4096;
	lim->max_handles_per_file = 1u << 16;
	lim->num_eqs = 4;
	lim->log_max_ft_size = 20;
	lim->max_ft_level = 63;
	lim->log_max_ft_num = 16;
	lim->log_max_flow_counter = 4;
	lim->log_max_destination = 0;
	lim->log_max_flow = 20;
}

void
swdev_limits_max(struct swdev_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_flow_counters = SWDEV_MAX_FLOW_COUNTERS;
	lim->flow_counter_bulk_alloc = 0xff;		/* every size the PRM field has */
	lim->flow_counter_bulk_log_max_alloc = 24;
	lim->log_max_flow_counter_bulk = 24;
	/* ids are base + index inside a 24-bit space per kind */
	lim->log_max_tir = 20;
	lim->log_max_rq = 20;
	lim->log_max_rqt = 20;
	lim->log_max_rqt_size = 16;
	lim->log_max_cq = 20;
	lim->log_max_cq_sz = 31;
	lim->log_max_wq_sz = 31;
	lim->log_max_transport_domain = 20;
	lim->log_max_pd = 20;
	lim->max_uars = 1u << 20;
	lim->max_umems = 1u << 20;
	lim->max_handles_per_file = 1u << 24;
	lim->num_eqs = 256 - SWDEV_EQN_BASE;
	lim->log_max_ft_size = 24;
	lim->max_ft_level = 63;
	lim->log_max_ft_num = 20;
	lim->log_max_flow_counter = 8;
	lim->log_max_destination = 0;	/* one destination: no replication */
	lim->log_max_flow = 24;
}

static int
limits_valid(const struct swdev_limits *lim)
{
	struct swdev_limits max;

	swdev_limits_max(&max);
	if (lim->max_flow_counters == 0 || lim->max_flow_counters > max.max_flow_counters)
		return 0;
	if (lim->flow_counter_bulk_log_max_alloc > max.flow_counter_bulk_log_max_alloc ||
	    lim->log_max_flow_counter_bulk > max.log_max_flow_counter_bulk)
		return 0;
	if (lim->log_max_tir > max.log_max_tir || lim->log_max_rq > max.log_max_rq ||
	    lim->log_max_rqt > max.log_max_rqt || lim->log_max_cq > max.log_max_cq ||
	    lim->log_max_transport_domain > max.log_max_transport_domain ||
	    lim->log_max_pd > max.log_max_pd || lim->log_max_rqt_size > max.log_max_rqt_size ||
	    lim->log_max_cq_sz > max.log_max_cq_sz || lim->log_max_wq_sz > max.log_max_wq_sz)
		return 0;
	if (lim->max_uars == 0 || lim->max_uars > max.max_uars ||
	    lim->max_umems == 0 || lim->max_umems > max.max_umems)
		return 0;
	if (lim->max_handles_per_file == 0 ||
	    lim->max_handles_per_file > max.max_handles_per_file)
		return 0;
	if (lim->num_eqs == 0 || lim->num_eqs > max.num_eqs)
		return 0;
	if (lim->log_max_ft_size > max.log_max_ft_size || lim->max_ft_level == 0 ||
	    lim->max_ft_level > max.max_ft_level || lim->log_max_ft_num > max.log_max_ft_num ||
	    lim->log_max_flow_counter > max.log_max_flow_counter ||
	    lim->log_max_destination > max.log_max_destination ||
	    lim->log_max_flow > max.log_max_flow)
		return 0;
	return 1;
}

struct swdev_engine *
swdev_engine_create(void)
{
	struct swdev_engine *eng = calloc(1, sizeof(*eng));

	if (eng == NULL)
		errno = ENOMEM;
	return eng;
}

void
swdev_engine_set_log(struct swdev_engine *eng, swdev_engine_log_fn *fn, void *arg)
{
	if (eng == NULL)
		return;
	eng->log_fn = fn;
	eng->log_arg = arg;
}

/* The per-kind operations of the object table (swdev_obj.c). */
static const struct swdev_kind_ops kind_ops[SWDEV_KIND_MAX] = {
	[SWDEV_KIND_FLOW_COUNTER] = { .teardown = swdev_counter_obj_teardown },
	[SWDEV_KIND_RQ] = { .teardown = swdev_rx_rq_teardown },
	[SWDEV_KIND_FLOW_TABLE] = { .teardown = swdev_flow_obj_teardown },
	[SWDEV_KIND_FLOW_GROUP] = { .teardown = swdev_flow_obj_teardown },
	[SWDEV_KIND_FTE] = { .teardown = swdev_flow_obj_teardown },
	[SWDEV_KIND_MATCHER] = { .teardown = swdev_steer_obj_teardown },
	[SWDEV_KIND_FLOW] = { .teardown = swdev_steer_obj_teardown },
};

static void
dev_free(struct swdev_dev *dev)
{
	unsigned int k;

	while (dev->files != NULL)
		swdev_file_close(dev->files);
	for (k = 0; k < SWDEV_KIND_MAX; k++)
		swdev_idmap_fini(&dev->ids[k]);
	swdev_rx_fini(dev);
	swdev_counters_fini(&dev->cnt);
	swdev_steer_fini(dev);
	free(dev->opstat.slot);
	free(dev->uid_used);
	free(dev);
}

void
swdev_engine_destroy(struct swdev_engine *eng)
{
	unsigned int i;

	if (eng == NULL)
		return;
	for (i = 0; i < eng->ndevs; i++)
		dev_free(eng->devs[i]);
	free(eng);
}

static int
name_valid(const char *name)
{
	size_t i, n;

	if (name == NULL)
		return 0;
	n = strnlen(name, 32);
	if (n == 0 || n > 31)
		return 0;
	for (i = 0; i < n; i++)
		if (!isprint((unsigned char)name[i]))
			return 0;
	return 1;
}

int
swdev_engine_add_device(struct swdev_engine *eng, const char *name,
			const struct swdev_limits *lim)
{
	struct swdev_limits def;
	struct swdev_dev *dev;

	if (eng == NULL || !name_valid(name))
		return -EINVAL;
	if (lim == NULL) {
		swdev_limits_default(&def);
		lim = &def;
	}
	if (!limits_valid(lim))
		return -EINVAL;
	if (swdev_dev_by_name(eng, name) != NULL)
		return -EEXIST;
	if (eng->ndevs >= SWDEV_MAX_DEVICES)
		return -ENOSPC;
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return -ENOMEM;
	dev->uid_used = calloc((SWDEV_MAX_UID + 1) / 64, sizeof(uint64_t));
	dev->opstat.slot = calloc(SWDEV_OPSTAT_INIT, sizeof(*dev->opstat.slot));
	if (dev->uid_used == NULL || dev->opstat.slot == NULL ||
	    swdev_counters_init(&dev->cnt, lim->max_flow_counters)) {
		free(dev->opstat.slot);
		free(dev->uid_used);
		free(dev);
		return -ENOMEM;
	}
	dev->opstat.cap = SWDEV_OPSTAT_INIT;
	dev->opstat.shift = 32u - (uint32_t)__builtin_ctz(SWDEV_OPSTAT_INIT);
	dev->uid_used[0] = 1;	/* uid 0 is the kernel's own */
	dev->eng = eng;
	dev->kind_ops = kind_ops;
	dev->index = eng->ndevs;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->lim = *lim;
	dev->next_file_id = 1;
	swdev_idmap_init(&dev->ids[SWDEV_KIND_PD], 1u << lim->log_max_pd);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_UAR], lim->max_uars);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_UMEM], lim->max_umems);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_TD], 1u << lim->log_max_transport_domain);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_CQ], 1u << lim->log_max_cq);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_RQ], 1u << lim->log_max_rq);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_RQT], 1u << lim->log_max_rqt);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_TIR], 1u << lim->log_max_tir);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_FLOW_COUNTER], 0);	/* unused */
	swdev_idmap_init(&dev->ids[SWDEV_KIND_FLOW_TABLE], 1u << lim->log_max_ft_num);
	swdev_idmap_init(&dev->ids[SWDEV_KIND_FLOW_GROUP], SWDEV_MAX_FLOW_GROUPS);
	eng->devs[eng->ndevs++] = dev;
	return (int)dev->index;
}

unsigned int
swdev_engine_num_devices(const struct swdev_engine *eng)
{
	return eng == NULL ? 0 : eng->ndevs;
}

const char *
swdev_engine_device_name(const struct swdev_engine *eng, unsigned int idx)
{
	if (eng == NULL || idx >= eng->ndevs)
		return NULL;
	return eng->devs[idx]->name;
}

/* ---- uverbs files ---- */

static int
uid_alloc(struct swdev_dev *dev, uint16_t *uid)
{
	uint32_t w;

	for (w = 0; w < (SWDEV_MAX_UID + 1) / 64; w++) {
		if (dev->uid_used[w] != UINT64_MAX) {
			uint32_t b = (uint32_t)__builtin_ctzll(~dev->uid_used[w]);

			dev->uid_used[w] |= 1ull << b;
			*uid = (uint16_t)(w * 64 + b);
			return 0;
		}
	}
	return EMFILE;
}

struct swdev_file *
swdev_file_open(struct swdev_engine *eng, const char *devname)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);
	struct swdev_file *f;
	uint16_t uid;

	if (dev == NULL) {
		errno = ENODEV;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (uid_alloc(dev, &uid) != 0) {
		free(f);
		errno = EMFILE;
		return NULL;
	}
	f->dev = dev;
	f->uid = uid;
	f->id = dev->next_file_id++;
	if (dev->next_file_id == 0)
		dev->next_file_id = 1;
	swdev_idmap_init(&f->handles, dev->lim.max_handles_per_file);
	f->next = dev->files;
	if (dev->files != NULL)
		dev->files->prev = f;
	dev->files = f;
	dev->nfiles++;
	return f;
}

/*
 * The kernel's cleanup of a closed file runs each object's destroy command
 * (root matchers and rules have none): counted as any command.
 */
static void
close_destroy(struct swdev_dev *dev, struct swdev_obj *o)
{
	uint16_t opcode = (uint16_t)MDEVX_GET(mbox_in, o->destroy_cmd, opcode);

	if (opcode != 0)
		swdev_cmd_counted(dev, opcode);
	swdev_obj_force_destroy(dev, o);
}

/*
 * The file's flow tables, lowest level first: a table references deeper
 * tables only (its miss table), so none is referenced when it goes. (The
 * file list's newest-first order would do today, a miss table being older
 * than its users; the level order does not depend on that.)
 */
static void
close_tables(struct swdev_file *f)
{
	struct swdev_obj *o, *next;
	unsigned int level;

	for (level = 0; level <= UINT8_MAX && f->objs[SWDEV_KIND_FLOW_TABLE] != NULL; level++)
		for (o = f->objs[SWDEV_KIND_FLOW_TABLE]; o != NULL; o = next) {
			next = o->fnext;
			if (o->u.ft.level == level)
				close_destroy(f->dev, o);
		}
}

void
swdev_file_close(struct swdev_file *f)
{
	struct swdev_dev *dev;
	unsigned int i;

	if (f == NULL)
		return;
	dev = f->dev;
	for (i = 0; i < SWDEV_KIND_MAX; i++) {
		enum swdev_kind k = close_order[i];

		if (k == SWDEV_KIND_FLOW_TABLE)
			close_tables(f);
		while (f->objs[k] != NULL)
			close_destroy(dev, f->objs[k]);
	}
	swdev_idmap_fini(&f->handles);
	dev->uid_used[f->uid / 64] &= ~(1ull << (f->uid % 64));
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		dev->files = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	dev->nfiles--;
	free(f);
}

uint32_t
swdev_file_id(const struct swdev_file *f)
{
	return f == NULL ? 0 : f->id;
}

uint16_t
swdev_file_uid(const struct swdev_file *f)
{
	return f == NULL ? 0 : f->uid;
}

const char *
swdev_file_devname(const struct swdev_file *f)
{
	return f == NULL ? NULL : f->dev->name;
}

uint32_t
swdev_file_take_delay(struct swdev_file *f)
{
	uint32_t d;

	if (f == NULL)
		return 0;
	d = f->delay_us;
	f->delay_us = 0;
	return d;
}

/* ---- control path ---- */

int
swdev_ctl_counts(struct swdev_engine *eng, const char *devname, uint32_t file_id,
		 struct swdev_counts *counts)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);
	const uint32_t *src = NULL;
	struct swdev_file *f;
	unsigned int k;

	if (counts == NULL)
		return EINVAL;
	if (dev == NULL)
		return ENODEV;
	if (file_id == 0) {
		src = dev->counts;
	} else {
		for (f = dev->files; f != NULL; f = f->next)
			if (f->id == file_id)
				break;
		if (f == NULL)
			return ENOENT;
		src = f->counts;
	}
	counts->total = 0;
	for (k = 0; k < SWDEV_KIND_MAX; k++) {
		counts->by_kind[k] = src[k];
		counts->total += src[k];
	}
	return 0;
}

int
swdev_ctl_num_files(struct swdev_engine *eng, const char *devname, uint32_t *nfiles)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);

	if (nfiles == NULL)
		return EINVAL;
	if (dev == NULL)
		return ENODEV;
	*nfiles = dev->nfiles;
	return 0;
}

int
swdev_ctl_inject(struct swdev_engine *eng, const char *devname, uint32_t counter_id,
		 uint64_t packets, uint64_t bytes)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);

	if (dev == NULL)
		return ENODEV;
	return swdev_counter_add(&dev->cnt, counter_id, packets, bytes);
}

int
swdev_ctl_fault(struct swdev_engine *eng, const char *devname, uint16_t opcode,
		uint32_t count, uint8_t status, uint32_t syndrome, uint32_t delay_us)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);
	unsigned int i;

	if (dev == NULL)
		return ENODEV;
	for (i = 0; i < dev->nfaults; i++)
		if (dev->faults[i].opcode == opcode)
			break;
	if (count == 0) {
		if (i < dev->nfaults)
			dev->faults[i] = dev->faults[--dev->nfaults];
		return 0;
	}
	if (i == dev->nfaults) {
		if (dev->nfaults >= SWDEV_MAX_FAULT_RULES)
			return ENOSPC;
		dev->nfaults++;
	}
	dev->faults[i].opcode = opcode;
	dev->faults[i].count = count;
	dev->faults[i].status = status;
	dev->faults[i].syndrome = syndrome;
	dev->faults[i].delay_us = delay_us;
	return 0;
}

bool
swdev_fault_check(struct swdev_dev *dev, struct swdev_file *file, uint16_t opcode,
		  uint8_t *status, uint32_t *syndrome)
{
	struct swdev_fault *r;
	unsigned int i;

	for (i = 0; i < dev->nfaults; i++)
		if (dev->faults[i].opcode == opcode)
			break;
	if (i == dev->nfaults)
		return false;
	r = &dev->faults[i];
	*status = r->status;
	*syndrome = r->syndrome;
	if (r->status == MDEVX_CMD_STAT_OK && file != NULL) {
		uint64_t d = (uint64_t)file->delay_us + r->delay_us;

		file->delay_us = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	}
	if (--r->count == 0)
		dev->faults[i] = dev->faults[--dev->nfaults];
	return *status != MDEVX_CMD_STAT_OK;
}

/* ---- commands run, per opcode ---- */

static uint32_t
opstat_home(const struct swdev_opstat *t, uint32_t key)
{
	return (key * 2654435761u) >> t->shift;
}

/* The slot of @p key, or the free slot where it goes; NULL if the table is full. */
static struct swdev_opcount *
opstat_find(const struct swdev_opstat *t, uint32_t key)
{
	uint32_t i, h = opstat_home(t, key);

	for (i = 0; i < t->cap; i++) {
		struct swdev_opcount *s = &t->slot[(h + i) & (t->cap - 1)];

		if (s->key == key || s->key == 0)
			return s;
	}
	return NULL;
}

/* Double the table: 0 or ENOMEM (the table is kept as it was). */
static int
opstat_grow(struct swdev_opstat *t)
{
	struct swdev_opstat nt = *t;
	uint32_t i;

	if (t->cap > UINT32_MAX / 2 / sizeof(*t->slot))
		return ENOMEM;
	nt.cap = t->cap * 2;
	nt.shift = t->shift - 1;
	nt.slot = calloc(nt.cap, sizeof(*nt.slot));
	if (nt.slot == NULL)
		return ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->slot[i].key != 0)
			*opstat_find(&nt, t->slot[i].key) = t->slot[i];
	free(t->slot);
	*t = nt;
	return 0;
}

void
swdev_cmd_counted(struct swdev_dev *dev, uint16_t opcode)
{
	struct swdev_opstat *t = &dev->opstat;
	uint32_t key = (uint32_t)opcode + 1;
	struct swdev_opcount *s = opstat_find(t, key);

	if (s != NULL && s->key == key) {
		s->count++;
		return;
	}
	/* a new opcode: keep the load at most 3/4 when memory allows */
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)t->cap * 3 && opstat_grow(t) == 0)
		s = opstat_find(t, key);
	if (s == NULL) {
		t->lost++;
		return;
	}
	s->key = key;
	s->count = 1;
	t->n++;
}

int
swdev_ctl_cmd_count(struct swdev_engine *eng, const char *devname, uint16_t opcode,
		    uint64_t *count)
{
	struct swdev_dev *dev = swdev_dev_by_name(eng, devname);
	struct swdev_opcount *s;

	if (count == NULL)
		return EINVAL;
	if (dev == NULL)
		return ENODEV;
	s = opstat_find(&dev->opstat, (uint32_t)opcode + 1);
	*count = s != NULL && s->key != 0 ? s->count : 0;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Telemetry commands of libmdevx_share (served by the primary):
 *   /mdevx/share/devs           devices shared by this process
 *   /mdevx/share/list,<dev>     record names of a device (all devices if omitted;
 *                               an unknown device: null)
 *   /mdevx/share/info,<name>    one record, looked up on every device
 *   /mdevx/share/counter,<name>[,<offset>,<n>]
 *                               counters of a counter record, from the snapshot
 *   /mdevx/share/service[,<dev>] the counter snapshot service of a device
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mdevx_share.h"
#include "mdevx_share_private.h"

struct list_arg {
	struct rte_tel_data *d;
	const char *filter;
	int n;
	bool found;	/* the filter named a device */
};

static void
devs_cb(struct mdevx_share_dev *dev, void *arg)
{
	struct rte_tel_data *d = arg;

	rte_tel_data_add_array_string(d, mdevx_share_dev_name(dev));
}

static int
cmd_devs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	mdevx_share_foreach_dev(devs_cb, d);
	return 0;
}

static void
list_cb(struct mdevx_share_dev *dev, void *arg)
{
	struct list_arg *la = arg;
	struct mdevx_share_record rec;
	int64_t i = -1;

	if (la->filter != NULL && strcmp(la->filter, mdevx_share_dev_name(dev)) != 0)
		return;
	la->found = true;
	while ((i = mdevx_share_record_next(dev, (uint32_t)(i + 1), &rec)) >= 0) {
		if (rte_tel_data_add_array_string(la->d, rec.name) != 0)
			break;	/* the telemetry array is full */
		la->n++;
	}
}

static int
cmd_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct list_arg la = { .d = d, .filter = NULL, .n = 0, .found = false };

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0')
		la.filter = params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	mdevx_share_foreach_dev(list_cb, &la);
	/* an unknown device is null, as for /service and /info; no records is [] */
	return la.filter == NULL || la.found ? 0 : -EINVAL;
}

struct info_arg {
	struct rte_tel_data *d;
	const char *name;
	int found;
};

static void
info_cb(struct mdevx_share_dev *dev, void *arg)
{
	struct info_arg *ia = arg;
	struct mdevx_share_record rec;
	struct rte_tel_data *d = ia->d;

	if (ia->found || mdevx_share_lookup(dev, ia->name, &rec) != 0)
		return;
	ia->found = 1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", mdevx_share_dev_name(dev));
	rte_tel_data_add_dict_string(d, "name", rec.name);
	rte_tel_data_add_dict_string(d, "kind", rec.kind == MDEVX_OBJ_FLOW_COUNTER ?
				     "flow_counter" : "tir");
	rte_tel_data_add_dict_string(d, "state", rec.withdrawn ? "withdrawn" : "published");
	rte_tel_data_add_dict_u64(d, "generation", rec.generation);
	rte_tel_data_add_dict_int(d, "owner_pid", rec.owner_pid);
	rte_tel_data_add_dict_u64(d, "object_id", rec.object_id);
	if (rec.kind == MDEVX_OBJ_FLOW_COUNTER) {
		rte_tel_data_add_dict_u64(d, "bulk_size", rec.bulk_size);
	} else {
		rte_tel_data_add_dict_u64(d, "tirn", rec.tirn);
		rte_tel_data_add_dict_u64(d, "rx_icm_addr", rec.rx_icm_addr);
	}
	rte_tel_data_add_dict_u64(d, "imports_here", mdevx_share_dev_imports(dev));
}

static int
cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct info_arg ia = { .d = d, .name = params, .found = 0 };

	RTE_SET_USED(cmd);
	if (params == NULL || params[0] == '\0')
		return -1;
	mdevx_share_foreach_dev(info_cb, &ia);
	return ia.found ? 0 : -1;
}

/* A record found by name: its device (a handle checked by every call). */
struct find_arg {
	const char *name;
	struct mdevx_share_dev *dev;
	struct mdevx_share_record rec;
};

static void
find_cb(struct mdevx_share_dev *dev, void *arg)
{
	struct find_arg *fa = arg;

	if (fa->dev == NULL && mdevx_share_lookup(dev, fa->name, &fa->rec) == 0)
		fa->dev = dev;
}

/* A decimal number in 0..UINT32_MAX filling @p s[0..len). -1 if not. */
static int
parse_u32(const char *s, size_t len, uint32_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (len == 0 || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/*
 * "<name>[,<offset>,<n>]" into @p name (NUL-terminated, at most
 * MDEVX_SHARE_NAME_MAX characters), @p offset and @p n (0 when absent).
 * The two numbers are taken from the right, so a name may hold commas
 * unless it ends in ",<digits>,<digits>". -1 for a bad parameter.
 */
static int
counter_params(const char *params, char *name, uint32_t *offset, uint32_t *n)
{
	const char *c2, *c1 = NULL;
	size_t len;

	*offset = 0;
	*n = 0;
	if (params == NULL || params[0] == '\0')
		return -1;
	/* longer than a name and two 10-digit numbers with their commas: refused */
	len = strnlen(params, MDEVX_SHARE_NAME_MAX + 2 * 11 + 1);
	if (len > MDEVX_SHARE_NAME_MAX + 2 * 11)
		return -1;
	c2 = memrchr(params, ',', len);
	if (c2 != NULL && c2 > params)
		c1 = memrchr(params, ',', (size_t)(c2 - params));
	if (c1 != NULL && c1 > params &&
	    parse_u32(c1 + 1, (size_t)(c2 - c1 - 1), offset) == 0 &&
	    parse_u32(c2 + 1, len - (size_t)(c2 + 1 - params), n) == 0)
		len = (size_t)(c1 - params);
	else
		*offset = *n = 0;
	if (len == 0 || len > MDEVX_SHARE_NAME_MAX)
		return -1;
	memcpy(name, params, len);
	name[len] = '\0';
	return 0;
}

/* Counters one /mdevx/share/counter answer carries at most (16 KiB of output). */
#define TEL_COUNTERS_MAX 256u

static int
cmd_counter(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mdevx_counter_stats st[TEL_COUNTERS_MAX];
	char name[MDEVX_SHARE_NAME_MAX + 1];
	struct mdevx_share_counter_snap snap;
	struct find_arg fa = { .name = name, .dev = NULL };
	struct rte_tel_data *pk, *by;
	mdevx_share_imp_t imp;
	uint32_t offset, n, i;
	int ret;

	RTE_SET_USED(cmd);
	if (counter_params(params, name, &offset, &n) != 0)
		return -EINVAL;
	mdevx_share_foreach_dev(find_cb, &fa);
	if (fa.dev == NULL || fa.rec.kind != MDEVX_OBJ_FLOW_COUNTER || fa.rec.withdrawn ||
	    !mdevx_share_dev_is_primary(fa.dev))
		return -EINVAL;
	if (offset >= fa.rec.bulk_size || n > fa.rec.bulk_size - offset || n > TEL_COUNTERS_MAX)
		return -EINVAL;
	if (n == 0)	/* the rest of the bulk, up to the bound */
		n = RTE_MIN(fa.rec.bulk_size - offset, TEL_COUNTERS_MAX);
	/*
	 * Out of the device list's lock: a call on a device closed meanwhile
	 * gives ENOENT (the library checks every handle).
	 */
	ret = mdevx_share_import(fa.dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp);
	if (ret != 0)
		return ret == -ENOENT || ret == -ESTALE ? -EINVAL : ret;
	ret = mdevx_share_counter_read(fa.dev, imp, offset, n, st, &snap);
	mdevx_share_unimport(fa.dev, imp);
	if (ret != 0)
		return ret;
	pk = rte_tel_data_alloc();
	by = rte_tel_data_alloc();
	if (pk == NULL || by == NULL) {
		rte_tel_data_free(pk);
		rte_tel_data_free(by);
		return -ENOMEM;
	}
	rte_tel_data_start_array(pk, RTE_TEL_U64_VAL);
	rte_tel_data_start_array(by, RTE_TEL_U64_VAL);
	for (i = 0; i < n; i++) {
		rte_tel_data_add_array_u64(pk, st[i].packets);
		rte_tel_data_add_array_u64(by, st[i].bytes);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", mdevx_share_dev_name(fa.dev));
	rte_tel_data_add_dict_string(d, "name", name);
	rte_tel_data_add_dict_u64(d, "object_id", fa.rec.object_id);
	rte_tel_data_add_dict_u64(d, "bulk_size", fa.rec.bulk_size);
	rte_tel_data_add_dict_u64(d, "offset", offset);
	rte_tel_data_add_dict_u64(d, "n", n);
	rte_tel_data_add_dict_u64(d, "refresh_seq", snap.refresh_seq);
	rte_tel_data_add_dict_u64(d, "refreshed_ns", snap.refreshed_ns);
	rte_tel_data_add_dict_u64(d, "age_ns", snap.age_ns);
	rte_tel_data_add_dict_int(d, "primary_alive", snap.primary_alive);
	rte_tel_data_add_dict_container(d, "packets", pk, 0);
	rte_tel_data_add_dict_container(d, "bytes", by, 0);
	return 0;
}

struct svc_arg {
	const char *filter;
	struct mdevx_share_dev *dev;
};

static void
svc_cb(struct mdevx_share_dev *dev, void *arg)
{
	struct svc_arg *sa = arg;

	if (sa->dev == NULL && mdevx_share_dev_is_primary(dev) &&
	    (sa->filter == NULL || strcmp(sa->filter, mdevx_share_dev_name(dev)) == 0))
		sa->dev = dev;
}

/* The device this process shares named by @p params (the first without one), or NULL. */
static struct mdevx_share_dev *
primary_dev_of(const char *params)
{
	struct svc_arg sa = { .filter = NULL, .dev = NULL };

	if (params != NULL && params[0] != '\0')
		sa.filter = params;
	mdevx_share_foreach_dev(svc_cb, &sa);
	return sa.dev;
}

static int
cmd_service(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mdevx_share_dev *dev = primary_dev_of(params);
	struct mdevx_share_service_stats st;
	int ret;

	RTE_SET_USED(cmd);
	if (dev == NULL)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	ret = mdevx_share_service_stats(dev, &st);
	if (ret != 0 && ret != -ENODATA)
		return ret == -ENOENT ? -EINVAL : ret;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", mdevx_share_dev_name(dev));
	rte_tel_data_add_dict_string(d, "state", ret == -ENODATA ? "off" :
				     st.period_ms == 0 ? "off" : "running");
	rte_tel_data_add_dict_u64(d, "period_ms", st.period_ms);
	rte_tel_data_add_dict_u64(d, "bulks", st.bulks);
	rte_tel_data_add_dict_u64(d, "capacity", st.capacity);
	rte_tel_data_add_dict_u64(d, "used", st.used);
	rte_tel_data_add_dict_u64(d, "last_round_ns", st.last_round_ns);
	rte_tel_data_add_dict_u64(d, "last_round_end_ns", st.last_round_end_ns);
	rte_tel_data_add_dict_u64(d, "refreshes", st.refreshes);
	rte_tel_data_add_dict_u64(d, "failures", st.failures);
	rte_tel_data_add_dict_u64(d, "commands", st.commands);
	return 0;
}

/*
 * The secondaries attached to a device this process shares (the first,
 * without a parameter): one array per column, the DPDK 22.11 way (an
 * array holds no dict), each in the order of mdevx_share_peers().
 */
static int
cmd_peers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mdevx_share_dev *dev = primary_dev_of(params);
	struct mdevx_share_peer pv[MDEVX_SHARE_PEERS_MAX];
	struct rte_tel_data *col[4];
	int n;

	RTE_SET_USED(cmd);
	if (dev == NULL)
		return -EINVAL;
	n = mdevx_share_peers(mdevx_share_dev_name(dev), pv, RTE_DIM(pv));
	if (n < 0)
		return n == -ENODEV ? -EINVAL : n;	/* a secondary's device: not ours */
	n = RTE_MIN(n, (int)RTE_DIM(pv));
	for (unsigned int c = 0; c < RTE_DIM(col); c++) {
		col[c] = rte_tel_data_alloc();
		if (col[c] == NULL) {
			while (c > 0)
				rte_tel_data_free(col[--c]);
			return -ENOMEM;
		}
		rte_tel_data_start_array(col[c], c == 1 ? RTE_TEL_INT_VAL : RTE_TEL_U64_VAL);
	}
	for (int i = 0; i < n; i++) {
		rte_tel_data_add_array_u64(col[0], pv[i].id);
		rte_tel_data_add_array_int(col[1], pv[i].pid);
		rte_tel_data_add_array_u64(col[2], pv[i].attached);
		rte_tel_data_add_array_u64(col[3], pv[i].rules);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", mdevx_share_dev_name(dev));
	rte_tel_data_add_dict_u64(d, "secondaries", (uint64_t)n);
	rte_tel_data_add_dict_container(d, "id", col[0], 0);
	rte_tel_data_add_dict_container(d, "pid", col[1], 0);
	rte_tel_data_add_dict_container(d, "attached", col[2], 0);
	rte_tel_data_add_dict_container(d, "rules", col[3], 0);
	return 0;
}

/* Help texts: EAL refuses a command whose help does not fit RTE_TEL_MAX_STRING_LEN. */
#define HELP_COUNTER "Snapshot of a counter record: packets, bytes, age. " \
	"Parameters: name[,offset,n] (n 0: whole bulk, max 256)"
#define HELP_SERVICE "The counter snapshot service. Parameter: device (optional)"
_Static_assert(sizeof(HELP_COUNTER) <= RTE_TEL_MAX_STRING_LEN, "telemetry help length");
_Static_assert(sizeof(HELP_SERVICE) <= RTE_TEL_MAX_STRING_LEN, "telemetry help length");

/*
 * The commands exist from the library's load on, as DPDK's own libraries
 * register theirs (ethdev, say): a process with no device open answers
 * them with empty lists. EAL serves them once its telemetry is up.
 */
RTE_INIT(mdevx_share_telemetry_init)
{
	rte_telemetry_register_cmd("/mdevx/share/devs", cmd_devs,
				   "Devices shared by this process. No parameters");
	rte_telemetry_register_cmd("/mdevx/share/list", cmd_list,
				   "Names of the export records. Parameter: device (optional)");
	rte_telemetry_register_cmd("/mdevx/share/info", cmd_info,
				   "One export record. Parameter: record name");
	rte_telemetry_register_cmd("/mdevx/share/counter", cmd_counter, HELP_COUNTER);
	rte_telemetry_register_cmd("/mdevx/share/service", cmd_service, HELP_SERVICE);
	rte_telemetry_register_cmd("/mdevx/share/peers", cmd_peers,
				   "Secondaries attached to a device this primary shares, and "
				   "their rules. Parameter: device (optional)");
}

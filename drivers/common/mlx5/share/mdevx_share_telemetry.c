/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands of libmdevx_share (served by the primary):
 *   /mdevx/share/devs           devices shared by this process
 *   /mdevx/share/list,<dev>     record names of a device (all devices if omitted)
 *   /mdevx/share/info,<name>    one record, looked up on every device
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mdevx_share_internal.h"

struct list_arg {
	struct rte_tel_data *d;
	const char *filter;
	int n;
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
	while ((i = mdevx_share_next(dev, (uint32_t)(i + 1), &rec)) >= 0) {
		if (rte_tel_data_add_array_string(la->d, rec.name) != 0)
			break;	/* the telemetry array is full */
		la->n++;
	}
}

static int
cmd_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct list_arg la = { .d = d, .filter = NULL, .n = 0 };

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0')
		la.filter = params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	mdevx_share_foreach_dev(list_cb, &la);
	return 0;
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
	rte_tel_data_add_dict_string(d, "kind", rec.kind == MDEVX_SHARE_COUNTER ?
				     "flow_counter" : "tir");
	rte_tel_data_add_dict_string(d, "state", rec.withdrawn ? "withdrawn" : "published");
	rte_tel_data_add_dict_u64(d, "generation", rec.generation);
	rte_tel_data_add_dict_int(d, "owner_pid", rec.owner_pid);
	rte_tel_data_add_dict_u64(d, "object_id", rec.object_id);
	if (rec.kind == MDEVX_SHARE_COUNTER) {
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

void
mdevx_share_telemetry_init(void)
{
	static int done;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	rte_telemetry_register_cmd("/mdevx/share/devs", cmd_devs,
				   "Devices shared by this process. No parameters");
	rte_telemetry_register_cmd("/mdevx/share/list", cmd_list,
				   "Names of the export records. Parameter: device (optional)");
	rte_telemetry_register_cmd("/mdevx/share/info", cmd_info,
				   "One export record. Parameter: record name");
}

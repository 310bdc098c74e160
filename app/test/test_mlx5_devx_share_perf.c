/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_perf_autotest: what sharing costs, measured side by side
 * in one run on the software device. Every line prints a name, a value, a
 * unit, the target and whether it holds; nothing here is a timed
 * assertion (the test fails only when an operation fails).
 *
 *  1. import by name in a secondary vs a raw import of the same buffer
 *     (mdevx_obj_import_ref(): the checks and the rdma backend's object,
 *     no registry), and vs one rte_mp request/reply per object;
 *  2. importing 100k records in one secondary: per-record cost vs 1k
 *     records, and our own memory per import;
 *  3. registry lookup at 1k, 64k and 1M records, and the average probes
 *     per lookup at maximum load;
 *  4. withdraw acknowledged by 1, 4 and 16 secondaries;
 *  5. reading a 64k-counter bulk from a secondary: commands used and time
 *     vs per-counter queries.
 *
 * MDEVX_PERF_REPS (environment) sets the repetitions of each item 1 loop
 * (default 20000, in 9 alternating rounds): raise it to profile the import
 * path.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_driver.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <mdevx_share_lock.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"

#define DEVSTR "rdma:mlx5_0"
#define PERF_MZ "mdevx_t_share_perf"
#define ECHO_ACTION "mdevx_t_perf_echo"
#define BIG_RECORDS 100000
#define SMALL_RECORDS 1000
#define BULK_64K 65536
#define CHILD_TIMEOUT_MS 300000
#define ROUNDS 9			/* item 1: alternating rounds, medians */

struct perf_sync {
	volatile uint32_t ready;
	volatile uint32_t round;	/* primary: round published */
	volatile uint32_t stop;
	volatile uint32_t imported;	/* holders: imports of the current round */
	uint32_t nb_records;
};

static void
perf_line(const char *name, double value, const char *unit, const char *target, bool holds)
{
	printf("perf: %-44s %12.3f %-10s target %-12s %s\n", name, value, unit, target,
	       holds ? "holds" : "MISSED");
}

static void
perf_info(const char *name, double value, const char *unit)
{
	printf("perf: %-44s %12.3f %-10s\n", name, value, unit);
}

/*
 * The machine the numbers come from: the ratios against the raw import
 * depend on the CPU (its allocator and atomic costs against its hashing),
 * so the output names it.
 */
static void
perf_machine(void)
{
	char line[256], model[128] = "unknown", family[16] = "?", num[16] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");

	/* The first CPU's block: model name, family and model number (x86). */
	while (f != NULL && fgets(line, sizeof(line), f) != NULL && line[0] != '\n') {
		const char *v = strchr(line, ':');

		if (v == NULL || v[1] == '\0')
			continue;
		v += 2;
		if (strncmp(line, "model name", 10) == 0)
			snprintf(model, sizeof(model), "%s", v);
		else if (strncmp(line, "cpu family", 10) == 0)
			snprintf(family, sizeof(family), "%s", v);
		else if (strncmp(line, "model\t", 6) == 0)
			snprintf(num, sizeof(num), "%s", v);
	}
	if (f != NULL)
		fclose(f);
	model[strcspn(model, "\n")] = '\0';
	family[strcspn(family, "\n")] = '\0';
	num[strcspn(num, "\n")] = '\0';
	printf("perf: machine: %s (family %s, model %s), %ld CPUs online\n", model, family, num,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

static struct perf_sync *
perf_area(void)
{
	const struct rte_memzone *mz = rte_memzone_lookup(PERF_MZ);

	return mz != NULL ? mz->addr : NULL;
}

static void
record_name(char *buf, size_t len, uint32_t i)
{
	snprintf(buf, len, "perf-ctr-%06u", i);
}

/* ------------------------------------------------------------------ */
/* Secondary: items 1, 2 and 5                                         */
/* ------------------------------------------------------------------ */

static size_t
heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static char (*names)[24];	/* record names, made before any timing */

/* Import n records by name, then unimport them. Returns ns per import. */
static double
import_run(struct mdevx_share_dev *dev, uint32_t n, mdevx_share_imp_t *imps, size_t *mem)
{
	size_t before = heap_used();
	uint64_t t0, t1;

	t0 = test_now_ns();
	for (uint32_t i = 0; i < n; i++)
		if (mdevx_share_import(dev, names[i], MDEVX_OBJ_FLOW_COUNTER, &imps[i]) != 0)
			return -1;
	t1 = test_now_ns();
	if (mem != NULL)
		*mem = heap_used() - before;
	for (uint32_t i = 0; i < n; i++)
		mdevx_share_unimport(dev, imps[i]);
	return (double)(t1 - t0) / n;
}

/*
 * Item 1 loops, one function each so that rounds can alternate (and so
 * that devtools/callgrind-import.sh counts each apart: never inlined).
 * Each returns ns per operation, or -1 if an operation failed.
 */
static __attribute__((noinline)) double
time_raw(struct mdevx_ctx *ctx, const uint8_t *buf, size_t len, uint32_t reps)
{
	uint64_t t0 = test_now_ns();

	for (uint32_t i = 0; i < reps; i++) {
		struct mdevx_obj_ref ref;

		if (mdevx_obj_import_ref(ctx, buf, len, MDEVX_OBJ_FLOW_COUNTER, &ref) != 0)
			return -1;
		mdevx_obj_unimport_ref(ctx, &ref);
	}
	return (double)(test_now_ns() - t0) / reps;
}

static __attribute__((noinline)) double
time_by_name(struct mdevx_share_dev *dev, uint32_t reps)
{
	uint64_t t0 = test_now_ns();
	mdevx_share_imp_t imp;

	for (uint32_t i = 0; i < reps; i++) {
		if (mdevx_share_import(dev, "perf-ctr-000000", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
			return -1;
		mdevx_share_unimport(dev, imp);
	}
	return (double)(test_now_ns() - t0) / reps;
}

/* The lookup import by name makes: the record copied out and verified on the copy. */
static double
time_lookup(struct mdevx_share_dev *dev, uint32_t reps)
{
	struct mdevx_share_rec_view v;
	uint64_t t0 = test_now_ns();

	for (uint32_t i = 0; i < reps; i++)
		if (mdevx_share_reg_find(mdevx_share_dev_reg(dev), "perf-ctr-000000", &v) != 0)
			return -1;
	return (double)(test_now_ns() - t0) / reps;
}

/*
 * The import of libmdevx that import by name makes
 * (mdevx_obj_import_ref_verified(): the record vouches for the buffer).
 */
static double
time_ref_import(struct mdevx_ctx *ctx, const uint8_t *buf, size_t len, uint32_t reps)
{
	uint64_t t0 = test_now_ns();

	for (uint32_t i = 0; i < reps; i++) {
		struct mdevx_obj_ref ref;

		if (mdevx_obj_import_ref_verified(ctx, buf, len, MDEVX_OBJ_FLOW_COUNTER,
						  &ref) != 0)
			return -1;
		mdevx_obj_unimport_ref(ctx, &ref);
	}
	return (double)(test_now_ns() - t0) / reps;
}

/*
 * What an import and an unimport by name pay for thread safety: two
 * exclusive sections of the device's lock, uncontended.
 */
static double
time_lock_sections(uint32_t reps)
{
	mdevx_share_lock_t lock;
	uint64_t t0;

	mdevx_share_lock_init(&lock);
	t0 = test_now_ns();
	for (uint32_t i = 0; i < 2 * reps; i++) {
		mdevx_share_lock_write(&lock);
		mdevx_share_unlock_write(&lock);
	}
	return (double)(test_now_ns() - t0) / reps;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Record perf-ctr-000000's export buffer, for the raw import: 0, or -1 (said). */
static int
first_record_export(struct mdevx_share_dev *dev, uint8_t *buf, size_t size, size_t *len)
{
	struct mdevx_obj *obj;
	mdevx_share_imp_t imp;
	int ret = -1;

	if (mdevx_share_import(dev, "perf-ctr-000000", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0) {
		printf("import of perf-ctr-000000: %s\n", strerror(errno));
		return -1;
	}
	obj = mdevx_share_import_obj(dev, imp);
	if (obj != NULL && mdevx_export_size(mdevx_share_dev_ctx(dev), len) == 0 &&
	    mdevx_obj_export(obj, buf, size) == 0)
		ret = 0;
	else
		printf("export for the raw import failed: %s\n", strerror(errno));
	mdevx_share_unimport(dev, imp);
	return ret;
}

static int
role_perf_importer(int argc, char **argv)
{
	struct perf_sync *ps = perf_area();
	struct mdevx_share_dev *dev;
	struct mdevx_ctx *ctx;
	struct mdevx_share_record rec;
	struct mdevx_counter_stats *st;
	mdevx_share_imp_t *imps, imp;
	struct mdevx_obj_ref *raw;
	uint8_t exp_buf[MDEVX_SHARE_EXPORT_MAX];
	size_t exp_len, raw_mem, share_mem;
	double raw_ns, name_ns, mp_ns, ns_1k, ns_100k, bulk_ns, single_ns;
	uint64_t t0;
	const char *reps_env = getenv("MDEVX_PERF_REPS");
	const int reps_asked = reps_env != NULL ? atoi(reps_env) : 0;
	const uint32_t reps = reps_asked > 0 ? (uint32_t)reps_asked : 20000;
	struct mdevx_caps caps;
	uint32_t nb_raw = 0;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (ps == NULL)
		return 2;
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL) {
		printf("attach: %s\n", strerror(errno));
		return 3;
	}
	names = calloc(ps->nb_records, sizeof(*names));
	for (uint32_t i = 0; names != NULL && i < ps->nb_records; i++)
		record_name(names[i], sizeof(names[i]), i);
	imps = calloc(ps->nb_records, sizeof(*imps));
	raw = calloc(ps->nb_records, sizeof(*raw));
	st = calloc(BULK_64K, sizeof(*st));
	ctx = mdevx_share_dev_ctx(dev);
	if (names == NULL || imps == NULL || raw == NULL || st == NULL || ctx == NULL) {
		printf("setup failed\n");
		goto out;
	}

	/* 1. The same buffer through the backend alone, then by name. */
	if (first_record_export(dev, exp_buf, sizeof(exp_buf), &exp_len) != 0)
		goto out;
	{
		/*
		 * The loops alternate, round after round, and each reports its
		 * median: a neighbour's burst on this machine then moves both
		 * sides of a ratio, not one.
		 */
		double v[5][ROUNDS];

		for (unsigned int r = 0; r < ROUNDS; r++) {
			v[0][r] = time_raw(ctx, exp_buf, exp_len, reps);
			v[1][r] = time_by_name(dev, reps);
			v[2][r] = time_lookup(dev, reps);
			v[3][r] = time_ref_import(mdevx_share_dev_ctx(dev), exp_buf, exp_len, reps);
			v[4][r] = time_lock_sections(reps);
			if (v[0][r] < 0 || v[1][r] < 0 || v[2][r] < 0 || v[3][r] < 0) {
				printf("import loop failed: %s\n", strerror(errno));
				goto out;
			}
		}
		raw_ns = median(v[0], ROUNDS);
		name_ns = median(v[1], ROUNDS);
		perf_info("  of which: registry lookup", median(v[2], ROUNDS), "ns");
		perf_info("  of which: libmdevx import+unimport (verified)", median(v[3], ROUNDS),
			  "ns");
		perf_info("  of which: 2 exclusive sections of a lock", median(v[4], ROUNDS),
			  "ns");
	}
	{
		struct rte_mp_msg req;
		struct rte_mp_reply rep;
		struct timespec ts = { .tv_sec = 5, .tv_nsec = 0 };
		const uint32_t n = 2000;

		memset(&req, 0, sizeof(req));
		snprintf(req.name, sizeof(req.name), ECHO_ACTION);
		req.len_param = (int)exp_len;
		t0 = test_now_ns();
		for (uint32_t i = 0; i < n; i++) {
			if (rte_mp_request_sync(&req, &rep, &ts) != 0 || rep.nb_received != 1)
				goto out;
			free(rep.msgs);
		}
		mp_ns = (double)(test_now_ns() - t0) / n;
	}
	perf_info("raw import+unimport (mdevx_obj_import_ref)", raw_ns, "ns");
	perf_info("import+unimport by name", name_ns, "ns");
	perf_info("rte_mp request/reply per object", mp_ns, "ns");
	perf_line("import by name / raw import", name_ns / raw_ns, "x", "<= 3",
		  name_ns / raw_ns <= 3.0);
	perf_line("rte_mp round trip / import by name", mp_ns / name_ns, "x", ">= 100",
		  mp_ns / name_ns >= 100.0);

	/*
	 * 2. 1k vs 100k imports, and memory per import: the whole stack, then
	 * the backend object alone on the same buffer; ours is the difference.
	 */
	ns_1k = import_run(dev, SMALL_RECORDS, imps, NULL);
	ns_100k = import_run(dev, ps->nb_records, imps, &share_mem);
	if (ns_1k < 0 || ns_100k < 0) {
		printf("import run failed: %s\n", strerror(errno));
		goto out;
	}
	{
		/* The references are caller storage (calloc'ed above): the heap is the backend's. */
		size_t before = heap_used();

		for (nb_raw = 0; nb_raw < ps->nb_records; nb_raw++)
			if (mdevx_obj_import_ref(ctx, exp_buf, exp_len, MDEVX_OBJ_FLOW_COUNTER,
						 &raw[nb_raw]) != 0)
				break;
		raw_mem = heap_used() - before;
		if (nb_raw != ps->nb_records) {
			printf("raw import %u: %s\n", nb_raw, strerror(errno));
			goto out;
		}
		for (; nb_raw > 0; nb_raw--)
			mdevx_obj_unimport_ref(ctx, &raw[nb_raw - 1]);
	}
	perf_info("import by name, 1k records", ns_1k, "ns/record");
	perf_info("import by name, 100k records", ns_100k, "ns/record");
	perf_line("per-record cost 100k / 1k", ns_100k / ns_1k, "x", "<= 1.2",
		  ns_100k / ns_1k <= 1.2);
	{
		double n = ps->nb_records;
		double ours = ((double)share_mem - (double)raw_mem) / n;

		perf_info("heap per import, whole stack", (double)share_mem / n, "B");
		perf_info("  of which: the rdma backend's object", (double)raw_mem / n, "B");
		perf_line("our memory per import", ours, "B", "<= 64", ours <= 64.0);
	}

	/* 5. A 64k-counter bulk: one query call vs one query per counter. */
	if (mdevx_share_lookup(dev, "perf-bulk-64k", &rec) != 0 ||
	    mdevx_share_import(dev, "perf-bulk-64k", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0 ||
	    mdevx_get_caps(mdevx_share_dev_ctx(dev), &caps) != 0) {
		printf("64k bulk: %s\n", strerror(errno));
		goto out;
	}
	t0 = test_now_ns();
	if (mdevx_share_counter_query(dev, imp, 0, rec.bulk_size, 0, st) != 0)
		goto out;
	bulk_ns = (double)(test_now_ns() - t0);
	t0 = test_now_ns();
	for (uint32_t i = 0; i < rec.bulk_size; i++)
		if (mdevx_share_counter_query(dev, imp, i, 1, 0, &st[i]) != 0)
			goto out;
	single_ns = (double)(test_now_ns() - t0);
	mdevx_share_unimport(dev, imp);
	{
		uint32_t per_cmd = caps.max_counters_per_query;
		uint32_t cmds = (rec.bulk_size + per_cmd - 1) / per_cmd;

		perf_info("64k bulk read: commands, one call", cmds, "commands");
		perf_info("64k bulk read: commands, per counter", rec.bulk_size, "commands");
		perf_info("64k bulk read, one call", bulk_ns / 1e6, "ms");
		perf_info("64k bulk read, per-counter queries", single_ns / 1e6, "ms");
		perf_line("per-counter / bulk read time", single_ns / bulk_ns, "x", ">= 100",
			  single_ns / bulk_ns >= 100.0);
	}
	ret = 0;
out:
	for (; nb_raw > 0; nb_raw--)
		mdevx_obj_unimport_ref(ctx, &raw[nb_raw - 1]);
	free(st);
	free(raw);
	free(imps);
	free(names);
	if (mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(perf_importer, role_perf_importer);

/* Item 4: import each round's record, report, wait for the next round. */
static int
role_perf_holder(int argc, char **argv)
{
	struct perf_sync *ps = perf_area();
	struct mdevx_share_dev *dev;
	uint32_t seen = 0;
	char name[32];
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (ps == NULL)
		return 2;
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL)
		return 3;
	__atomic_add_fetch(&ps->ready, 1, __ATOMIC_RELEASE);
	while (!ps->stop) {
		uint32_t r = __atomic_load_n(&ps->round, __ATOMIC_ACQUIRE);
		mdevx_share_imp_t imp;

		if (r == seen) {
			usleep(500);
			continue;
		}
		snprintf(name, sizeof(name), "perf-w-%u", r);
		if (mdevx_share_import(dev, name, MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
			goto out;
		seen = r;
		__atomic_add_fetch(&ps->imported, 1, __ATOMIC_RELEASE);
		/*
		 * The withdrawal notification unimports it; we release the
		 * handle once the next round starts. Sleep meanwhile: 16
		 * pollers on 2 CPUs would be measured as withdraw time.
		 */
		while (!ps->stop && __atomic_load_n(&ps->round, __ATOMIC_ACQUIRE) == r)
			usleep(1000);
		if (mdevx_share_dev_imports(dev) != 0)
			goto out;	/* the notification did not unimport it */
		mdevx_share_unimport(dev, imp);
	}
	ret = 0;
out:
	mdevx_share_dev_close(dev);
	return ret;
}
REGISTER_TEST_SECONDARY(perf_holder, role_perf_holder);

/* ------------------------------------------------------------------ */
/* Primary                                                             */
/* ------------------------------------------------------------------ */

static int
echo_handler(const struct rte_mp_msg *msg, const void *peer)
{
	struct rte_mp_msg reply;

	memcpy(&reply, msg, sizeof(reply));
	reply.num_fds = 0;
	return rte_mp_reply(&reply, peer);
}

/* Registry lookups alone, in hugepage memory like the real memzone. */
static int
bench_lookup(void)
{
	const uint32_t sizes[3] = { 1000, 65536, 1u << 20 }, lookups = 1u << 20;
	double ns[3], probes_full = 0;
	char (*names)[24] = malloc((size_t)sizes[2] * sizeof(*names));
	uint32_t *order = malloc(lookups * sizeof(*order));

	TEST_ASSERT(names != NULL && order != NULL, "malloc");
	for (uint32_t i = 0; i < sizes[2]; i++)
		record_name(names[i], sizeof(names[i]), i);
	for (int s = 0; s < 3; s++) {
		uint32_t n = sizes[s], total_probes = 0;
		size_t len = mdevx_share_reg_size(n);
		void *mem = rte_malloc("mdevx_perf_reg", len, 64);
		struct mdevx_share_rec_info info, out;
		struct mdevx_share_reg *reg, *handle;
		uint64_t t0, seed = 88172645463325252ULL;

		if (mem == NULL) {
			free(names);
			free(order);
			printf("no %zu bytes of hugepage memory\n", len);
			return TEST_FAILED;
		}
		reg = handle = mdevx_share_reg_init(mem, len, n, 1);
		memset(&info, 0, sizeof(info));
		info.kind = MDEVX_OBJ_FLOW_COUNTER;
		info.cookie = 1;
		info.export_len = 80;
		for (uint32_t i = 0; reg != NULL && i < n; i++) {
			memcpy(info.name, names[i], sizeof(names[i]));
			info.object_id = i;
			if (mdevx_share_reg_publish(reg, &info, NULL, NULL) != 0)
				reg = NULL;
		}
		for (uint32_t k = 0; k < lookups; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			order[k] = (uint32_t)(seed % n);
		}
		t0 = test_now_ns();
		for (uint32_t k = 0; reg != NULL && k < lookups; k++) {
			uint32_t p;

			if (mdevx_share_reg_lookup(reg, names[order[k]], &out, NULL, &p) != 0)
				reg = NULL;
			total_probes += p;
		}
		ns[s] = (double)(test_now_ns() - t0) / lookups;
		mdevx_share_reg_free(handle);
		rte_free(mem);
		if (reg == NULL) {
			free(names);
			free(order);
			printf("registry of %u records failed\n", n);
			return TEST_FAILED;
		}
		if (s == 2)
			probes_full = (double)total_probes / lookups;
	}
	free(names);
	free(order);
	perf_info("lookup, 1k records", ns[0], "ns");
	perf_info("lookup, 64k records", ns[1], "ns");
	perf_info("lookup, 1M records", ns[2], "ns");
	perf_info("lookup 1M / 1k records (cache misses)", ns[2] / ns[0], "x");
	perf_line("probes per lookup at full load (1M)", probes_full, "probes", "<= 1.5",
		  probes_full <= 1.5);
	return TEST_SUCCESS;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
bench_withdraw(struct mdevx_share_dev *dev, struct swdev_ctl *ctl, struct perf_sync *ps)
{
	const uint32_t counts[3] = { 1, 4, 16 }, rounds = 31;
	unsigned int restarts = 0;
	double us[3];
	pid_t pids[16];

	RTE_SET_USED(ctl);
	for (int c = 0; c < 3; c++) {
		uint32_t k = counts[c];
		uint64_t times[40];

		ps->ready = 0;
		ps->stop = 0;
		ps->round = 0;
		for (uint32_t i = 0; i < k; i++) {
			pids[i] = test_mp_spawn("perf_holder", NULL, 0, NULL);
			TEST_ASSERT(pids[i] > 0, "spawn");
		}
		for (uint64_t end = test_now_ns() + 60000000000ULL;
		     ps->ready < k && test_now_ns() < end;) {
			/*
			 * Now and then (seen under load, with 16 secondaries) a
			 * secondary's EAL init fails with ENOMEM; it exits with
			 * TEST_MP_EXIT_EAL_FAILED before attaching. Say so and
			 * start it again, a few times at most.
			 */
			for (uint32_t i = 0; i < k; i++) {
				int st;

				if (waitpid(pids[i], &st, WNOHANG) != pids[i])
					continue;
				TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) ==
					    TEST_MP_EXIT_EAL_FAILED && restarts < 3,
					    "holder %u ended before it was ready", i);
				printf("holder %u: EAL init failed, restarting it\n", i);
				restarts++;
				pids[i] = test_mp_spawn("perf_holder", NULL, 0, NULL);
				TEST_ASSERT(pids[i] > 0, "spawn");
			}
			usleep(1000);
		}
		TEST_ASSERT_EQUAL(ps->ready, k, "holders not ready");
		for (uint32_t r = 1; r <= rounds; r++) {
			struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 1);
			unsigned int acked = 0;
			char name[32];
			uint64_t t0;

			TEST_ASSERT_NOT_NULL(cnt, "alloc");
			snprintf(name, sizeof(name), "perf-w-%u", r);
			TEST_ASSERT_SUCCESS(mdevx_share_publish(dev, name, cnt), "publish");
			ps->imported = 0;
			__atomic_store_n(&ps->round, r, __ATOMIC_RELEASE);
			for (uint64_t end = test_now_ns() + 10000000000ULL;
			     ps->imported < k && test_now_ns() < end;)
				usleep(20);
			TEST_ASSERT_EQUAL(ps->imported, k, "imports of round %u", r);
			t0 = test_now_ns();
			TEST_ASSERT_SUCCESS(mdevx_share_withdraw(dev, name, &acked), "withdraw");
			times[r - 1] = test_now_ns() - t0;
			TEST_ASSERT_EQUAL(acked, k, "acknowledgements in round %u", r);
		}
		ps->stop = 1;
		for (uint32_t i = 0; i < k; i++)
			TEST_ASSERT_EQUAL(test_mp_wait(pids[i], CHILD_TIMEOUT_MS), 0, "holder");
		/* The median: on 2 CPUs a round now and then waits for the scheduler. */
		qsort(times, rounds, sizeof(times[0]), cmp_u64);
		us[c] = (double)times[rounds / 2] / 1000.0;
	}
	perf_info("withdraw, 1 secondary (median)", us[0], "us");
	perf_info("withdraw, 4 secondaries", us[1], "us");
	perf_info("withdraw, 16 secondaries", us[2], "us");
	perf_line("16 secondaries / 16 serial round trips", us[2] / (16 * us[0]), "x", "<= 0.5",
		  us[2] / (16 * us[0]) <= 0.5);
	return TEST_SUCCESS;
}

static int
test_share_perf(void)
{
	/*
	 * No counter snapshot service: its rounds would query each of the
	 * 100,000 bulks published here once per period, beside the figures
	 * (its own cost is measured by mlx5_devx_share_counters_perf_autotest).
	 */
	struct mdevx_share_conf conf = { .capacity = 131072, .withdraw_timeout_ms = 5000,
					 .counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF };
	const char *sock = getenv("SWDEV_SOCKET");
	const struct rte_memzone *mz = NULL;
	struct mdevx_share_dev *dev = NULL;
	struct swdev_ctl *ctl = NULL;
	struct perf_sync *ps;
	struct mdevx_obj *bulk;
	char name[32];
	uint64_t t0;
	int rc, ret = TEST_FAILED;

	if (sock == NULL) {
		printf("SWDEV_SOCKET is not set: no software device\n");
		return TEST_SKIPPED;
	}
	perf_machine();
	if (bench_lookup() != TEST_SUCCESS)
		return TEST_FAILED;
	ctl = swdev_ctl_open(sock);
	mz = rte_memzone_reserve(PERF_MZ, sizeof(*ps), SOCKET_ID_ANY, 0);
	dev = mdevx_share_dev_open(DEVSTR, &conf);
	if (ctl == NULL || mz == NULL || dev == NULL ||
	    rte_mp_action_register(ECHO_ACTION, echo_handler) != 0) {
		printf("setup failed: %s\n", strerror(errno));
		goto out;
	}
	ps = mz->addr;
	memset(ps, 0, sizeof(*ps));
	ps->nb_records = BIG_RECORDS;
	printf("publishing %u counters...\n", BIG_RECORDS);
	t0 = test_now_ns();
	for (uint32_t i = 0; i < BIG_RECORDS; i++) {
		struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 1);

		record_name(name, sizeof(name), i);
		if (cnt == NULL || mdevx_share_publish(dev, name, cnt) != 0) {
			printf("publish %u: %s\n", i, strerror(errno));
			goto out;
		}
		if ((i + 1) % 25000 == 0)
			printf("  %u published\n", i + 1);
	}
	perf_info("publish (alloc + export + record)", (double)(test_now_ns() - t0) / BIG_RECORDS,
		  "ns/record");
	bulk = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), BULK_64K);
	if (bulk == NULL || mdevx_share_publish(dev, "perf-bulk-64k", bulk) != 0) {
		printf("64k bulk: %s\n", strerror(errno));
		goto out;
	}
	rc = test_mp_run("perf_importer", NULL, 0, NULL, CHILD_TIMEOUT_MS);
	if (rc != 0) {
		printf("importer exited with %d\n", rc);
		goto out;
	}
	if (bench_withdraw(dev, ctl, ps) != TEST_SUCCESS)
		goto out;
	ret = TEST_SUCCESS;
out:
	rte_mp_action_unregister(ECHO_ACTION);
	if (dev != NULL) {
		t0 = test_now_ns();
		if (mdevx_share_dev_close(dev) != 0)
			ret = TEST_FAILED;
		perf_info("close: withdraw and destroy everything",
			  (double)(test_now_ns() - t0) / 1e6, "ms");
	}
	if (mz != NULL)
		rte_memzone_free(mz);
	if (ctl != NULL) {
		struct swdev_counts c;

		if (swdev_ctl_get_counts(ctl, "mlx5_0", 0, &c) != 0 || c.total != 0) {
			printf("objects left on the device\n");
			ret = TEST_FAILED;
		}
		swdev_ctl_close(ctl);
	}
	return ret;
}
REGISTER_TEST_COMMAND(mlx5_devx_share_perf_autotest, test_share_perf);

/*
 * mlx5_devx_share_import_cost_autotest: item 1's two loops, once each, in
 * a secondary, on one published record; for counting their instructions
 * (devtools/callgrind-import.sh runs both processes under callgrind). The
 * test itself checks that every import succeeds and that nothing is left
 * on the device. MDEVX_PERF_REPS: imports per loop (default 2000).
 */
static int
role_import_cost(int argc, char **argv)
{
	const char *reps_env = getenv("MDEVX_PERF_REPS");
	const uint32_t reps = reps_env != NULL && atoi(reps_env) > 0 ?
			      (uint32_t)atoi(reps_env) : 2000;
	uint8_t buf[MDEVX_SHARE_EXPORT_MAX];
	struct mdevx_share_dev *dev;
	size_t len;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL) {
		printf("attach: %s\n", strerror(errno));
		return 3;
	}
	if (first_record_export(dev, buf, sizeof(buf), &len) != 0)
		goto out;
	if (time_raw(mdevx_share_dev_ctx(dev), buf, len, reps) < 0 ||
	    time_by_name(dev, reps) < 0) {
		printf("import loop failed: %s\n", strerror(errno));
		goto out;
	}
	printf("import-cost: %u raw imports (time_raw), %u imports by name (time_by_name)\n",
	       reps, reps);
	ret = 0;
out:
	if (mdevx_share_dev_close(dev) != 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(perf_import_cost, role_import_cost);

static int
test_import_cost(void)
{
	struct mdevx_share_conf conf = { .counter_period_ms = MDEVX_SHARE_COUNTER_PERIOD_OFF };
	const char *sock = getenv("SWDEV_SOCKET");
	struct mdevx_share_dev *dev;
	struct swdev_ctl *ctl;
	struct swdev_counts c;
	struct mdevx_obj *cnt;
	int rc;

	if (sock == NULL) {
		printf("SWDEV_SOCKET is not set: no software device\n");
		return TEST_SKIPPED;
	}
	ctl = swdev_ctl_open(sock);
	TEST_ASSERT_NOT_NULL(ctl, "control channel: %s", strerror(errno));
	dev = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(dev, "open: %s", strerror(errno));
	cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), 1);
	TEST_ASSERT_NOT_NULL(cnt, "alloc: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(mdevx_share_publish(dev, "perf-ctr-000000", cnt), "publish");
	rc = test_mp_run("perf_import_cost", NULL, 0, NULL, CHILD_TIMEOUT_MS);
	TEST_ASSERT_SUCCESS(mdevx_share_dev_close(dev), "close: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rc, 0, "importer exited with %d", rc);
	rc = swdev_ctl_get_counts(ctl, "mlx5_0", 0, &c);
	swdev_ctl_close(ctl);
	TEST_ASSERT(rc == 0 && c.total == 0, "objects left on the device: %u",
		    (unsigned int)(rc == 0 ? c.total : 0));
	return TEST_SUCCESS;
}
REGISTER_TEST_COMMAND(mlx5_devx_share_import_cost_autotest, test_import_cost);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-share-info: what a DPDK primary shares through libmdevx_share, seen
 * from a secondary of its instance (as dpdk-proc-info shows its ports).
 *
 * It starts EAL as a secondary with the primary's --file-prefix, asks the
 * primary for the devices it shares (mdevx_share_primary_devs()), attaches
 * to each, and lists the secondaries attached to it with their rules
 * (mdevx_share_peers(): this tool is one of them) and the records (kind,
 * ids, generation, owner, whether an import of it passes the registry's
 * checks). The counters of each counter
 * record come from the primary's counter snapshot service
 * (mdevx_share_counter_read(), with the age of the values), or with
 * --fresh from one query of the device per bulk. --json prints one JSON
 * document; --watch SECONDS redraws packet and byte rates in place until
 * interrupted (with --json: one JSON line per interval; not on a terminal:
 * one table after the other, no terminal escapes). Names and device
 * strings come from another process: escaped on output (text_escape.h).
 *
 * Before EAL is started, the primary's runtime configuration file is
 * checked: EAL's secondary initialisation needs a live primary, and this
 * tells the user so instead of EAL's own errors.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <mdevx_share.h>

#include "text_escape.h"

#define PROG "mlx5-share-info"
#define MAX_DEVS 64
#define MAX_RECS 4096		/* records shown per device */
#define MAX_SHOWN 65536u	/* counters read per bulk */
#define WATCH_TOP 16		/* counters listed under each bulk in --watch */

struct opts {
	bool json;
	bool fresh;
	bool all;		/* table: zero counters too */
	double watch_s;		/* 0: one shot */
	bool ansi;		/* stdout is a terminal: --watch redraws in place */
	const char *device;	/* only this device string */
};

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [EAL options] -- [--json] [--fresh] [--all] [--watch SECONDS]\n"
		"                       [--device DEVSTR]\n"
		"\n"
		"Show what a DPDK primary shares with libmdevx_share: its devices, their\n"
		"records (flow counter bulks and TIRs) and the counters' values. Runs as a\n"
		"secondary of the primary's instance: give EAL the primary's --file-prefix\n"
		"(--proc-type=secondary, --no-pci and --no-telemetry are added).\n"
		"\n"
		"  --json            one JSON document on stdout\n"
		"  --fresh           read counters with a device query per bulk instead of\n"
		"                    the primary's counter snapshot\n"
		"  --all             list every counter of a bulk (default: the non-zero ones)\n"
		"  --watch SECONDS   redraw packet and byte rates every SECONDS until\n"
		"                    interrupted (with --json: one JSON line per interval)\n"
		"  --device DEVSTR   only this device (as the primary opened it: rdma:mlx5_0)\n"
		"  --help            this text\n"
		"\n"
		"Example: " PROG " --file-prefix=mdevx_demo_1234 -- --json\n"
		"Exit status: 0 done; 1 no primary, or it cannot be read; 2 usage error.\n");
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "fresh", no_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "watch", required_argument, NULL, 'w' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->ansi = isatty(STDOUT_FILENO) == 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'f':
			o->fresh = true;
			break;
		case 'a':
			o->all = true;
			break;
		case 'w':
			errno = 0;
			o->watch_s = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' || !(o->watch_s >= 0.1) ||
			    o->watch_s > 3600) {
				fprintf(stderr, PROG ": --watch: seconds, 0.1 to 3600\n");
				return -1;
			}
			break;
		case 'd':
			if (optarg[0] == '\0' || strlen(optarg) >= MDEVX_SHARE_DEVSTR_MAX) {
				fprintf(stderr, PROG ": --device: a device string\n");
				return -1;
			}
			o->device = optarg;
			break;
		default:
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Is there a primary?                                                */
/* ------------------------------------------------------------------ */

/* The --file-prefix among the EAL arguments, or "rte" (EAL's default). */
static const char *
file_prefix(int argc, char **argv)
{
	const char *prefix = "rte";
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--file-prefix=", 14) == 0)
			prefix = argv[i] + 14;
		else if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < argc)
			prefix = argv[++i];
	}
	return prefix;
}

/* EAL's runtime directory of @p prefix (eal_create_runtime_dir()). */
static int
runtime_dir(const char *prefix, char *buf, size_t size)
{
	const char *dir = "/var/run";
	int n;

	if (getuid() != 0) {
		dir = getenv("XDG_RUNTIME_DIR");
		if (dir == NULL)
			dir = "/tmp";
	}
	n = snprintf(buf, size, "%s/dpdk/%s", dir, prefix);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/*
 * 0 when a primary holds the configuration file of @p prefix; else a
 * message for the user, and -1. A secondary's EAL would otherwise fail
 * (or wait) on its own.
 */
static int
check_primary(const char *prefix)
{
	char dir[PATH_MAX], config[PATH_MAX + 8];

	if (prefix[0] == '\0' || strchr(prefix, '/') != NULL ||
	    runtime_dir(prefix, dir, sizeof(dir)) != 0) {
		fprintf(stderr, PROG ": invalid --file-prefix '%s'\n", prefix);
		return -1;
	}
	snprintf(config, sizeof(config), "%s/config", dir);
	if (access(config, F_OK) != 0) {
		fprintf(stderr, PROG ": no DPDK primary with file prefix '%s' is running (no %s):\n"
			"  start the primary first, and give this tool its --file-prefix\n",
			prefix, config);
		return -1;
	}
	if (!rte_eal_primary_proc_alive(config)) {
		fprintf(stderr, PROG ": no DPDK primary with file prefix '%s' is running (%s is "
			"left from one that ended):\n"
			"  start the primary first, and give this tool its --file-prefix\n",
			prefix, config);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output helpers                                                     */
/* ------------------------------------------------------------------ */

/* @p s as a JSON string: every control, DEL or non-ASCII byte as \u00NN. */
static void
json_str(const char *s)
{
	json_escape_print(stdout, s, SIZE_MAX);
}

/* A string of another process for a text line: in @p buf, see text_escape.h. */
static const char *
esc(char *buf, size_t size, const char *s, size_t max)
{
	text_escape(buf, size, s, max);
	return buf;
}

/* A record name, a device string: escaped into a caller's buffer of this size. */
#define ESC_NAME_SIZE TEXT_ESCAPE_SIZE(MDEVX_SHARE_NAME_MAX + 1)
#define ESC_DEV_SIZE TEXT_ESCAPE_SIZE(MDEVX_SHARE_DEVSTR_MAX)
#define NAME(buf, r) esc(buf, sizeof(buf), (r)->rec.name, sizeof((r)->rec.name))
#define DEVSTR(buf, d) esc(buf, sizeof(buf), (d)->devstr, sizeof((d)->devstr))

static const char *
kind_name(enum mdevx_obj_kind k)
{
	return k == MDEVX_OBJ_FLOW_COUNTER ? "flow_counter" : k == MDEVX_OBJ_TIR ? "tir" : "?";
}

/* ------------------------------------------------------------------ */
/* What is read                                                       */
/* ------------------------------------------------------------------ */

/* One counter record's values, from one reading. */
struct bulk_read {
	int err;			/* 0, or why there are no values (negative errno) */
	uint32_t n;			/* counters read (at most MAX_SHOWN) */
	struct mdevx_counter_stats *st;
	struct mdevx_share_counter_snap snap;	/* snapshot reads */
	uint64_t at_ns;			/* when the values were taken */
	uint64_t packets, bytes;	/* sums */
};

struct rec_read {
	int64_t slot;
	struct mdevx_share_record rec;
	int import_err;			/* 0: the import passed every check */
	struct bulk_read b;
};

struct dev_read {
	char devstr[MDEVX_SHARE_DEVSTR_MAX];
	struct mdevx_share_dev *dev;
	int attach_err;
	uint64_t cookie;
	int svc_err;
	struct mdevx_share_service_stats svc;
	unsigned int nrecs;
	struct rec_read *recs;		/* MAX_RECS */
	int npeers;			/* the primary's secondaries, or a negative errno */
	struct mdevx_share_peer peers[MDEVX_SHARE_PEERS_MAX];
};

static void
bulk_free(struct bulk_read *b)
{
	free(b->st);
	memset(b, 0, sizeof(*b));
}

/* Import record @p r by name and read its counters. */
static void
read_record(struct mdevx_share_dev *dev, struct rec_read *r, const struct opts *o)
{
	struct bulk_read *b = &r->b;
	mdevx_share_imp_t imp;
	uint32_t i;

	bulk_free(b);
	r->import_err = mdevx_share_import(dev, r->rec.name, r->rec.kind, &imp);
	if (r->import_err != 0 || r->rec.kind != MDEVX_OBJ_FLOW_COUNTER) {
		if (r->import_err == 0)
			mdevx_share_unimport(dev, imp);
		b->err = r->import_err;
		return;
	}
	b->n = r->rec.bulk_size < MAX_SHOWN ? r->rec.bulk_size : MAX_SHOWN;
	b->st = b->n > 0 ? calloc(b->n, sizeof(*b->st)) : NULL;
	if (b->st == NULL) {
		b->err = b->n > 0 ? -ENOMEM : -EINVAL;
		b->n = 0;
	} else if (o->fresh) {
		b->err = mdevx_share_counter_query(dev, imp, 0, b->n, 0, b->st);
	} else {
		b->err = mdevx_share_counter_read(dev, imp, 0, b->n, b->st, &b->snap);
	}
	b->at_ns = now_ns();
	mdevx_share_unimport(dev, imp);
	if (b->err != 0)
		return;
	if (!o->fresh && b->snap.refreshed_ns != 0)
		b->at_ns = b->snap.refreshed_ns;	/* the values are of that moment */
	for (i = 0; i < b->n; i++) {
		b->packets += b->st[i].packets;
		b->bytes += b->st[i].bytes;
	}
}

/* Every record of @p d, read anew (the list too: records come and go). */
static void
read_device(struct dev_read *d, const struct opts *o)
{
	struct mdevx_share_record rec;
	int64_t slot = -1;
	unsigned int i;

	for (i = 0; i < d->nrecs; i++)
		bulk_free(&d->recs[i].b);
	d->nrecs = 0;
	d->svc_err = mdevx_share_service_stats(d->dev, &d->svc);
	d->npeers = mdevx_share_peers(d->devstr, d->peers, MDEVX_SHARE_PEERS_MAX);
	if (d->npeers > MDEVX_SHARE_PEERS_MAX)
		d->npeers = MDEVX_SHARE_PEERS_MAX;
	while (d->nrecs < MAX_RECS &&
	       (slot = mdevx_share_record_next(d->dev, (uint32_t)(slot + 1), &rec)) >= 0) {
		struct rec_read *r = &d->recs[d->nrecs++];

		memset(r, 0, sizeof(*r));
		r->slot = slot;
		r->rec = rec;
		read_record(d->dev, r, o);
	}
}

/* ------------------------------------------------------------------ */
/* One-shot output                                                    */
/* ------------------------------------------------------------------ */

static void
print_json_bulk(const struct bulk_read *b, const struct opts *o)
{
	uint32_t i;

	printf(",\"counters\":{\"source\":\"%s\"", o->fresh ? "query" : "snapshot");
	if (b->err != 0) {
		printf(",\"error\":");
		json_str(strerror(-b->err));
		printf("}");
		return;
	}
	if (!o->fresh)
		printf(",\"age_ns\":%" PRIu64 ",\"refreshed_ns\":%" PRIu64
		       ",\"refresh_seq\":%" PRIu64 ",\"primary_alive\":%d", b->snap.age_ns,
		       b->snap.refreshed_ns, b->snap.refresh_seq, b->snap.primary_alive ? 1 : 0);
	printf(",\"n\":%" PRIu32 ",\"packets_total\":%" PRIu64 ",\"bytes_total\":%" PRIu64,
	       b->n, b->packets, b->bytes);
	printf(",\"packets\":[");
	for (i = 0; i < b->n; i++)
		printf("%s%" PRIu64, i ? "," : "", b->st[i].packets);
	printf("],\"bytes\":[");
	for (i = 0; i < b->n; i++)
		printf("%s%" PRIu64, i ? "," : "", b->st[i].bytes);
	printf("]}");
}

static void
print_json_svc(const struct dev_read *d)
{
	const struct mdevx_share_service_stats *s = &d->svc;

	if (d->svc_err != 0) {
		printf(",\"service\":null");
		return;
	}
	printf(",\"service\":{\"period_ms\":%" PRIu32 ",\"bulks\":%" PRIu32 ",\"capacity\":%"
	       PRIu32 ",\"used\":%" PRIu32 ",\"refreshes\":%" PRIu64 ",\"failures\":%" PRIu64
	       ",\"commands\":%" PRIu64 ",\"last_round_ns\":%" PRIu64
	       ",\"primary_alive\":%d}", s->period_ms, s->bulks, s->capacity, s->used,
	       s->refreshes, s->failures, s->commands, s->last_round_ns,
	       s->primary_alive ? 1 : 0);
}

/* The primary's secondaries (this tool among them, "self"). */
static void
print_json_peers(const struct dev_read *d)
{
	if (d->npeers < 0) {
		printf(",\"secondaries\":null,\"secondaries_error\":");
		json_str(strerror(-d->npeers));
		return;
	}
	printf(",\"secondaries\":[");
	for (int i = 0; i < d->npeers; i++)
		printf("%s{\"id\":\"0x%016" PRIx64 "\",\"pid\":%" PRId32 ",\"attached\":%" PRIu32
		       ",\"rules\":%" PRIu32 ",\"self\":%d}", i ? "," : "", d->peers[i].id,
		       d->peers[i].pid, d->peers[i].attached, d->peers[i].rules,
		       d->peers[i].pid == getpid());
	printf("]");
}

static void
print_json(const struct dev_read *devs, unsigned int ndevs, const struct opts *o)
{
	unsigned int i, j;

	printf("{\"time_ns\":%" PRIu64 ",\"devices\":[", now_ns());
	for (i = 0; i < ndevs; i++) {
		const struct dev_read *d = &devs[i];

		printf("%s{\"device\":", i ? "," : "");
		json_escape_print(stdout, d->devstr, sizeof(d->devstr));
		if (d->attach_err != 0) {
			printf(",\"error\":");
			json_str(strerror(d->attach_err));
			printf("}");
			continue;
		}
		printf(",\"cookie\":\"0x%016" PRIx64 "\"", d->cookie);
		print_json_svc(d);
		print_json_peers(d);
		printf(",\"records\":[");
		for (j = 0; j < d->nrecs; j++) {
			const struct rec_read *r = &d->recs[j];

			printf("%s{\"name\":", j ? "," : "");
			json_escape_print(stdout, r->rec.name, sizeof(r->rec.name));
			printf(",\"kind\":\"%s\",\"slot\":%" PRId64 ",\"state\":\"%s\""
			       ",\"generation\":%" PRIu64 ",\"owner_pid\":%" PRId32
			       ",\"object_id\":%" PRIu32, kind_name(r->rec.kind), r->slot,
			       r->rec.withdrawn ? "withdrawn" : "published", r->rec.generation,
			       r->rec.owner_pid, r->rec.object_id);
			if (r->rec.kind == MDEVX_OBJ_FLOW_COUNTER)
				printf(",\"bulk_size\":%" PRIu32, r->rec.bulk_size);
			else
				printf(",\"tirn\":%" PRIu32 ",\"rx_icm_addr\":\"0x%" PRIx64 "\"",
				       r->rec.tirn, r->rec.rx_icm_addr);
			printf(",\"import\":");
			json_str(r->import_err == 0 ? "ok" : strerror(-r->import_err));
			if (r->rec.kind == MDEVX_OBJ_FLOW_COUNTER && r->import_err == 0)
				print_json_bulk(&r->b, o);
			printf("}");
		}
		printf("]}");
	}
	printf("]}\n");
	fflush(stdout);
}

static void
print_table(const struct dev_read *devs, unsigned int ndevs, const struct opts *o)
{
	char name[ESC_NAME_SIZE], dev[ESC_DEV_SIZE];
	unsigned int i, j;
	uint32_t k;

	for (i = 0; i < ndevs; i++) {
		const struct dev_read *d = &devs[i];
		const struct mdevx_share_service_stats *s = &d->svc;

		if (d->attach_err != 0) {
			printf("device %s: cannot attach: %s\n\n", DEVSTR(dev, d),
			       strerror(d->attach_err));
			continue;
		}
		printf("device %s  cookie 0x%016" PRIx64 "  %u record%s\n", DEVSTR(dev, d),
		       d->cookie,
		       d->nrecs, d->nrecs == 1 ? "" : "s");
		if (d->svc_err != 0)
			printf("  counter service: none (%s)\n", strerror(-d->svc_err));
		else if (s->period_ms == 0)
			printf("  counter service: off\n");
		else
			printf("  counter service: every %" PRIu32 " ms, %" PRIu32 " bulk%s, %"
			       PRIu32 " of %" PRIu32 " counters, %" PRIu64 " refreshes, %" PRIu64
			       " failures, %" PRIu64 " commands, last refresh %.3f ms%s\n",
			       s->period_ms, s->bulks, s->bulks == 1 ? "" : "s", s->used,
			       s->capacity, s->refreshes, s->failures, s->commands,
			       (double)s->last_round_ns / 1e6,
			       s->primary_alive ? "" : " (the primary is gone)");
		if (d->npeers < 0) {
			printf("  secondaries: unknown (%s)\n", strerror(-d->npeers));
		} else {
			printf("  secondaries: %d\n", d->npeers);
			for (int p = 0; p < d->npeers; p++)
				printf("    pid %-8" PRId32 " %-9s %3" PRIu32 " rule%s%s\n",
				       d->peers[p].pid,
				       d->peers[p].attached ? "attached" : "attaching",
				       d->peers[p].rules, d->peers[p].rules == 1 ? "" : "s",
				       d->peers[p].pid == getpid() ? "  (this tool)" : "");
		}
		printf("  %-24s %-12s %-9s %5s %8s %10s %10s  %s\n", "name", "kind", "state",
		       "gen", "owner", "id", "size/tirn", "import");
		for (j = 0; j < d->nrecs; j++) {
			const struct rec_read *r = &d->recs[j];

			printf("  %-24s %-12s %-9s %5" PRIu64 " %8" PRId32 " %#10" PRIx32 " %10"
			       PRIu32 "  %s\n", NAME(name, r), kind_name(r->rec.kind),
			       r->rec.withdrawn ? "withdrawn" : "published", r->rec.generation,
			       r->rec.owner_pid, r->rec.object_id,
			       r->rec.kind == MDEVX_OBJ_FLOW_COUNTER ?
			       r->rec.bulk_size : r->rec.tirn,
			       r->import_err == 0 ? "ok" : strerror(-r->import_err));
		}
		for (j = 0; j < d->nrecs; j++) {
			const struct rec_read *r = &d->recs[j];
			const struct bulk_read *b = &r->b;

			if (r->rec.kind != MDEVX_OBJ_FLOW_COUNTER || r->import_err != 0)
				continue;
			printf("\n  %s: ", NAME(name, r));
			if (b->err != 0) {
				printf("no values: %s%s\n", strerror(-b->err),
				       b->err == -ENODATA ? " (not in the counter service: try "
				       "--fresh)" : "");
				continue;
			}
			if (o->fresh)
				printf("%" PRIu32 " counters, queried now\n", b->n);
			else
				printf("%" PRIu32 " counters, snapshot #%" PRIu64
				       ", age %.1f ms%s\n", b->n, b->snap.refresh_seq,
				       (double)b->snap.age_ns / 1e6,
				       b->snap.primary_alive ? "" : " (the primary is gone)");
			printf("    %8s %20s %20s\n", "counter", "packets", "bytes");
			for (k = 0; k < b->n; k++)
				if (o->all || b->st[k].packets != 0 || b->st[k].bytes != 0)
					printf("    %8" PRIu32 " %20" PRIu64 " %20" PRIu64 "\n", k,
					       b->st[k].packets, b->st[k].bytes);
			printf("    %8s %20" PRIu64 " %20" PRIu64 "\n", "total", b->packets,
			       b->bytes);
		}
		printf("\n");
	}
}

/* ------------------------------------------------------------------ */
/* --watch                                                            */
/* ------------------------------------------------------------------ */

/*
 * The previous reading of a record: kept at the record's position in the
 * device's list, used only when slot and generation match (a list that
 * changed costs one round of rates).
 */
struct prev {
	bool valid;
	int64_t slot;
	uint64_t generation;
	uint64_t at_ns;
	uint64_t packets, bytes;
	uint32_t n;
	struct mdevx_counter_stats *st;
	bool has_rate;		/* the rates last shown (a reading of the same refresh) */
	double pr, br;
};

static double
rate(uint64_t now, uint64_t then, uint64_t t1, uint64_t t0)
{
	if (t1 <= t0 || now < then)
		return 0;
	return (double)(now - then) * 1e9 / (double)(t1 - t0);
}

static void
fmt_rate(char *buf, size_t size, double r)
{
	if (r >= 1e9)
		snprintf(buf, size, "%.2fG", r / 1e9);
	else if (r >= 1e6)
		snprintf(buf, size, "%.2fM", r / 1e6);
	else if (r >= 1e3)
		snprintf(buf, size, "%.2fk", r / 1e3);
	else
		snprintf(buf, size, "%.1f", r);
}

static void
print_watch(const struct dev_read *devs, unsigned int ndevs, struct prev (*prev)[MAX_RECS],
	    const struct opts *o, unsigned int round)
{
	/* on a terminal: home, each line cleared to its end, then the rest */
	const char *el = o->ansi ? "\033[K" : "";
	char pr[32], br[32], name[ESC_NAME_SIZE], dev[ESC_DEV_SIZE];
	unsigned int i, j;

	printf("%s" PROG ": every %.1f s, %s (Ctrl-C to stop), round %u%s\n%s\n",
	       o->ansi ? "\033[H" : "", o->watch_s,
	       o->fresh ? "device queries" : "counter snapshot", round, el, el);
	for (i = 0; i < ndevs; i++) {
		const struct dev_read *d = &devs[i];

		if (d->attach_err != 0) {
			printf("device %s: cannot attach: %s%s\n", DEVSTR(dev, d),
			       strerror(d->attach_err), el);
			continue;
		}
		printf("device %s%s\n", DEVSTR(dev, d), el);
		printf("  %-24s %16s %18s %12s %14s %9s%s\n", "record", "packets", "bytes",
		       "packets/s", "bytes/s", "age ms", el);
		for (j = 0; j < d->nrecs; j++) {
			const struct rec_read *r = &d->recs[j];
			const struct bulk_read *b = &r->b;
			struct prev *p = &prev[i][j];
			bool have = p->valid && p->slot == r->slot &&
				    p->generation == r->rec.generation;
			uint32_t k, shown = 0;

			if (r->rec.kind != MDEVX_OBJ_FLOW_COUNTER)
				continue;
			if (r->import_err != 0 || b->err != 0) {
				int err = r->import_err != 0 ? r->import_err : b->err;

				printf("  %-24s %s%s\n", NAME(name, r), strerror(-err), el);
				continue;
			}
			if (have && b->at_ns != p->at_ns) {
				p->pr = rate(b->packets, p->packets, b->at_ns, p->at_ns);
				p->br = rate(b->bytes, p->bytes, b->at_ns, p->at_ns);
				p->has_rate = true;
			}
			/* no refresh since the last reading: its rates again */
			have = have && p->has_rate;
			fmt_rate(pr, sizeof(pr), have ? p->pr : 0);
			fmt_rate(br, sizeof(br), have ? p->br : 0);
			printf("  %-24s %16" PRIu64 " %18" PRIu64 " %12s %14s %9.1f%s\n",
			       NAME(name, r), b->packets, b->bytes, have ? pr : "-",
			       have ? br : "-", o->fresh ? 0.0 : (double)b->snap.age_ns / 1e6, el);
			/* the counters that moved since the last reading */
			for (k = 0; have && k < b->n && k < p->n && shown < WATCH_TOP; k++) {
				if (b->st[k].packets == p->st[k].packets &&
				    b->st[k].bytes == p->st[k].bytes)
					continue;
				fmt_rate(pr, sizeof(pr), rate(b->st[k].packets, p->st[k].packets,
							      b->at_ns, p->at_ns));
				fmt_rate(br, sizeof(br), rate(b->st[k].bytes, p->st[k].bytes,
							      b->at_ns, p->at_ns));
				printf("    [%5" PRIu32 "]%*s %16" PRIu64 " %18" PRIu64 " %12s %14s"
				       "%s\n", k, 15, "", b->st[k].packets, b->st[k].bytes, pr,
				       br, el);
				shown++;
			}
		}
		printf("%s\n", el);
	}
	if (o->ansi)
		printf("\033[J");
	fflush(stdout);
}

/* Keep this reading for the next round's rates (a snapshot not refreshed: kept as is). */
static void
watch_keep(const struct dev_read *devs, unsigned int ndevs, struct prev (*prev)[MAX_RECS])
{
	unsigned int i, j;

	for (i = 0; i < ndevs; i++)
		for (j = 0; j < devs[i].nrecs; j++) {
			const struct rec_read *r = &devs[i].recs[j];
			struct prev *p;

			p = &prev[i][j];
			if (r->b.err != 0 || r->import_err != 0 ||
			    r->rec.kind != MDEVX_OBJ_FLOW_COUNTER) {
				p->valid = false;
				continue;
			}
			if (p->valid && p->slot == r->slot && p->generation == r->rec.generation &&
			    p->at_ns == r->b.at_ns)
				continue;	/* the same refresh: rates from the older one */
			free(p->st);
			p->st = malloc((size_t)r->b.n * sizeof(*p->st) + 1);
			p->valid = p->st != NULL;
			if (!p->valid)
				continue;
			memcpy(p->st, r->b.st, (size_t)r->b.n * sizeof(*p->st));
			if (p->slot != r->slot || p->generation != r->rec.generation)
				p->has_rate = false;
			p->n = r->b.n;
			p->slot = r->slot;
			p->generation = r->rec.generation;
			p->at_ns = r->b.at_ns;
			p->packets = r->b.packets;
			p->bytes = r->b.bytes;
		}
}

static void
sleep_s(double s)
{
	uint64_t end = now_ns() + (uint64_t)(s * 1e9);
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	while (!interrupted && now_ns() < end)
		nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */

/* EAL arguments: ours first, so the user's come after and win. */
static char **
eal_argv(int argc, char **argv, int *eal_argc)
{
	static const char *const added[] = {
		"--proc-type=secondary", "--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
	};
	const unsigned int nadded = sizeof(added) / sizeof(added[0]);
	char **v = calloc((size_t)argc + nadded + 1, sizeof(*v));
	int n = 0, i;

	if (v == NULL)
		return NULL;
	v[n++] = argv[0];
	for (i = 0; i < (int)nadded; i++)
		v[n++] = (char *)(uintptr_t)added[i];
	for (i = 1; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	*eal_argc = n;
	return v;
}

static int
run(const struct opts *o)
{
	static char devstrs[MAX_DEVS][MDEVX_SHARE_DEVSTR_MAX];
	static struct dev_read devs[MAX_DEVS];
	struct prev (*prev)[MAX_RECS] = NULL;
	unsigned int ndevs = 0, i, round = 0;
	int n, ret = 0;

	n = mdevx_share_primary_devs(devstrs, MAX_DEVS);
	if (n < 0) {
		fprintf(stderr, PROG ": cannot ask the primary for its devices: %s%s\n",
			strerror(-n), n == -ETIMEDOUT ? " (does it use libmdevx_share?)" : "");
		return 1;
	}
	for (i = 0; i < (unsigned int)n && i < MAX_DEVS; i++) {
		struct dev_read *d = &devs[ndevs];

		if (o->device != NULL && strcmp(o->device, devstrs[i]) != 0)
			continue;
		memset(d, 0, sizeof(*d));
		memcpy(d->devstr, devstrs[i], sizeof(d->devstr));
		d->recs = calloc(MAX_RECS, sizeof(*d->recs));
		if (d->recs == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		d->dev = mdevx_share_dev_attach(d->devstr);
		if (d->dev == NULL) {
			d->attach_err = errno;
			ret = 1;
		} else {
			d->cookie = mdevx_share_dev_cookie(d->dev);
		}
		ndevs++;
	}
	if (o->device != NULL && ndevs == 0) {
		fprintf(stderr, PROG ": the primary does not share %s (%d device%s)\n", o->device,
			n, n == 1 ? "" : "s");
		return 1;
	}
	if (o->watch_s > 0) {
		prev = calloc(ndevs > 0 ? ndevs : 1, sizeof(*prev));
		if (prev == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			ret = 1;
			goto out;
		}
		if (!o->json && o->ansi)
			printf("\033[H\033[2J");
	}
	do {
		for (i = 0; i < ndevs; i++)
			if (devs[i].dev != NULL)
				read_device(&devs[i], o);
		if (o->json)
			print_json(devs, ndevs, o);
		else if (o->watch_s > 0)
			print_watch(devs, ndevs, prev, o, ++round);
		else
			print_table(devs, ndevs, o);
		if (o->watch_s > 0) {
			watch_keep(devs, ndevs, prev);
			sleep_s(o->watch_s);
		}
	} while (o->watch_s > 0 && !interrupted);
out:
	for (i = 0; i < ndevs; i++) {
		unsigned int j;

		for (j = 0; j < devs[i].nrecs; j++)
			bulk_free(&devs[i].recs[j].b);
		free(devs[i].recs);
		if (devs[i].dev != NULL)
			mdevx_share_dev_close(devs[i].dev);
	}
	if (prev != NULL) {
		for (i = 0; i < ndevs; i++)
			for (unsigned int j = 0; j < MAX_RECS; j++)
				free(prev[i][j].st);
		free(prev);
	}
	return ret;
}

/*
 * A secondary maps the primary's memory at the primary's addresses; with
 * address space randomisation something of ours may lie there already.
 * Run again without it, as setarch -R does (once: the setting is
 * inherited, so the second run does not come here).
 */
static void
no_aslr(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers == -1 || (pers & ADDR_NO_RANDOMIZE) != 0)
		return;
	if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
		return;
	execv("/proc/self/exe", argv);
	personality((unsigned long)pers);	/* exec failed: go on as we are */
}

static bool
is_tool_option(const char *a)
{
	static const char *const ours[] = { "--json", "--fresh", "--all", "--watch", "--device" };
	unsigned int i;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strncmp(a, ours[i], strlen(ours[i])) == 0 &&
		    (a[strlen(ours[i])] == '\0' || a[strlen(ours[i])] == '='))
			return true;
	return false;
}

int
main(int argc, char **argv)
{
	char **eargv;
	struct opts o;
	int eargc, ret, i, sep = argc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0 && sep == argc)
			sep = i;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		}
	}
	for (i = 1; i < sep; i++)
		if (is_tool_option(argv[i])) {
			fprintf(stderr, PROG ": %s goes after \"--\" (EAL options come first; "
				"see --help)\n", argv[i]);
			return 2;
		}
	/* our options, checked before EAL is started */
	if (parse_opts(sep < argc ? argc - sep : 1, sep < argc ? argv + sep : argv, &o) != 0)
		return 2;
	if (check_primary(file_prefix(sep, argv)) != 0)
		return 1;
	no_aslr(argv);
	eargv = eal_argv(sep, argv, &eargc);
	if (eargv == NULL)
		return 1;
	ret = rte_eal_init(eargc, eargv);
	if (ret < 0) {
		fprintf(stderr, PROG ": cannot start as a secondary of the primary with file "
			"prefix '%s': %s\n", file_prefix(sep, argv), rte_strerror(rte_errno));
		free(eargv);
		return 1;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		fprintf(stderr, PROG ": EAL did not start as a secondary\n");
		rte_eal_cleanup();
		free(eargv);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = run(&o);
	rte_eal_cleanup();
	free(eargv);
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5-swdev run [--socket PATH] -- CMD ARGS...
 *
 * Runs CMD with every device of a running daemon visible as an mlx5 RDMA
 * device to unmodified libibverbs / libmlx5: a sysfs tree in a temporary
 * directory (SYSFS_PATH), the daemon socket (SWDEV_SOCKET) and the preload
 * library that plays the kernel (LD_PRELOAD, prepended; after a sanitizer
 * runtime that must stay first). Contract: lib/swdev/uverbs/swdev_uverbs.h.
 * Exit status: CMD's (128 + signal when it was killed), 1 when the launcher
 * itself fails, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <link.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_cmd.h"
#include "mdevx_build_config.h"
#include "swdev_proto.h"
#include "swdev_uverbs.h"

#define LIB_NAME "libswdev_uverbs.so"

static volatile pid_t g_child = -1;

static void
forward_signal(int sig)
{
	if (g_child > 0)
		kill(g_child, sig);
}

void
run_cmd_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"\nRun a program on the daemon's devices (see doc/swdev.rst, \"Running an\n"
		"existing program\"):\n"
		"  %s run [--socket PATH] -- CMD ARGS...\n"
		"  every device of the daemon at PATH (default $SWDEV_SOCKET or the default\n"
		"  socket) appears to CMD as an mlx5 RDMA device (uverbsN, ibdev = its name)\n"
		"  for unmodified libibverbs and libmlx5; exit status: CMD's\n",
		prog);
}

/* Names of the daemon's devices through its control socket. Count or -errno. */
static int
list_devices(const char *sock, char names[][SWDEV_PROTO_NAME_LEN], unsigned int max)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct {
		struct swdev_ctl_rep rep;
		char name[SWDEV_PROTO_NAME_LEN];
	} r;
	struct swdev_ctl_req req;
	unsigned int i;
	int fd, trunc, rfd, err = 0;
	ssize_t n;

	if (swdev_proto_ctl_path(sock, sa.sun_path, sizeof(sa.sun_path)) != 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = -errno;
		close(fd);
		return err;
	}
	for (i = 0; i < max; i++) {
		memset(&req, 0, sizeof(req));
		req.magic = SWDEV_PROTO_CTL_MAGIC;
		req.version = SWDEV_PROTO_VERSION;
		req.op = SWDEV_CTL_DEVICE;
		req.seq = i + 1;
		req.idx = i;
		err = swdev_proto_send_fd(fd, &req, sizeof(req), -1, 0);
		if (err != 0) {
			err = -err;
			break;
		}
		n = swdev_proto_recv_fd(fd, &r, sizeof(r), &rfd, &trunc, 0);
		if (rfd >= 0)
			close(rfd);
		if (n < (ssize_t)sizeof(r.rep) || trunc || r.rep.magic != SWDEV_PROTO_CTL_MAGIC ||
		    r.rep.seq != req.seq) {
			err = n < 0 ? (int)n : -EPROTO;
			break;
		}
		if (r.rep.err == ENODEV)
			break;
		if (r.rep.err != 0) {
			err = -(int)r.rep.err;
			break;
		}
		if (r.rep.paylen != SWDEV_PROTO_NAME_LEN || n != (ssize_t)sizeof(r)) {
			err = -EPROTO;
			break;
		}
		memcpy(names[i], r.name, SWDEV_PROTO_NAME_LEN);
		names[i][SWDEV_PROTO_NAME_LEN - 1] = '\0';
	}
	close(fd);
	return err != 0 ? err : (int)i;
}

static int
put_file(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write one file of the tree (its directories made). 0 or -1 (errno). */
static int
put_file(const char *root, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX], *p;
	va_list ap;
	FILE *f;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	f = fopen(path, "we");
	if (f == NULL)
		return -1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ret = fclose(f);
	return ret == 0 ? 0 : -1;
}

static int
put_link(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return symlink(target, path);
}

static void
guid_str(uint64_t g, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
}

/* The sysfs entries of device @p n named @p name under @p root. 0 or -1. */
static int
build_device(const char *root, unsigned int n, const char *name)
{
	char rel[PATH_MAX], pci[32], guid[32], tgt[PATH_MAX];
	uint64_t g = swdev_uverbs_node_guid(name), eui = g ^ (0x02ull << 56);
	int ret = 0;

	snprintf(pci, sizeof(pci), "0000:00:%02x.0", 0x10 + n);
	guid_str(g, guid, sizeof(guid));
#define PUT(...) do { if (ret == 0) ret = put_file(root, __VA_ARGS__); } while (0)
	{
		char r2[PATH_MAX], dir[64];

		snprintf(dir, sizeof(dir), "devices/pci0000:00/%s/", pci);

		snprintf(r2, sizeof(r2), "%smodalias", dir);
		PUT(r2, "pci:v%08Xd%08Xsv%08Xsd%08Xbc02sc00i00\n", SWDEV_UVERBS_PCI_VENDOR,
		    SWDEV_UVERBS_PCI_DEVICE, SWDEV_UVERBS_PCI_VENDOR, 0x0020u);
		snprintf(r2, sizeof(r2), "%suevent", dir);
		PUT(r2, "DRIVER=mlx5_core\nPCI_CLASS=20000\nPCI_ID=%04X:%04X\n"
		    "PCI_SUBSYS_ID=%04X:0020\nPCI_SLOT_NAME=%s\nMODALIAS=pci:v%08Xd%08Xsv%08X"
		    "sd00000020bc02sc00i00\n", SWDEV_UVERBS_PCI_VENDOR, SWDEV_UVERBS_PCI_DEVICE,
		    SWDEV_UVERBS_PCI_VENDOR, pci, SWDEV_UVERBS_PCI_VENDOR, SWDEV_UVERBS_PCI_DEVICE,
		    SWDEV_UVERBS_PCI_VENDOR);
		snprintf(r2, sizeof(r2), "%svendor", dir);
		PUT(r2, "0x%04x\n", SWDEV_UVERBS_PCI_VENDOR);
		snprintf(r2, sizeof(r2), "%sdevice", dir);
		PUT(r2, "0x%04x\n", SWDEV_UVERBS_PCI_DEVICE);
		snprintf(r2, sizeof(r2), "%ssubsystem_vendor", dir);
		PUT(r2, "0x%04x\n", SWDEV_UVERBS_PCI_VENDOR);
		snprintf(r2, sizeof(r2), "%ssubsystem_device", dir);
		PUT(r2, "0x0020\n");
		snprintf(r2, sizeof(r2), "%sclass", dir);
		PUT(r2, "0x020000\n");
	}
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/ibdev", n);
	PUT(rel, "%s\n", name);
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/dev", n);
	PUT(rel, "%u:%u\n", SWDEV_UVERBS_MAJOR, SWDEV_UVERBS_MINOR_BASE + n);
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/abi_version", n);
	PUT(rel, "1\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_type", name);
	PUT(rel, "1: CA\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_guid", name);
	PUT(rel, "%s\n", guid);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/sys_image_guid", name);
	PUT(rel, "%s\n", guid);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/fw_ver", name);
	PUT(rel, "%s\n", SWDEV_UVERBS_FW_VER);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/hca_type", name);
	PUT(rel, "%s\n", SWDEV_UVERBS_HCA_TYPE);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/board_id", name);
	PUT(rel, "%s\n", SWDEV_UVERBS_BOARD_ID);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/hw_rev", name);
	PUT(rel, "0x0\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_desc", name);
	PUT(rel, "mlx5-swdev %s\n", name);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/state", name);
	PUT(rel, "4: ACTIVE\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/phys_state", name);
	PUT(rel, "5: LinkUp\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/link_layer", name);
	PUT(rel, "Ethernet\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/rate", name);
	PUT(rel, "100 Gb/sec (4X EDR)\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/lid", name);
	PUT(rel, "0x0\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/sm_lid", name);
	PUT(rel, "0x0\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/lid_mask_count", name);
	PUT(rel, "0\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/cap_mask", name);
	PUT(rel, "0x04010000\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/gids/0", name);
	PUT(rel, "fe80:0000:0000:0000:%04x:%04x:%04x:%04x\n",
	    (unsigned int)(eui >> 48) & 0xffff, (unsigned int)(eui >> 32) & 0xffff,
	    (unsigned int)(eui >> 16) & 0xffff, (unsigned int)eui & 0xffff);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/gid_attrs/types/0", name);
	PUT(rel, "RoCE v2\n");
#undef PUT
	if (ret != 0)
		return -1;
	snprintf(tgt, sizeof(tgt), "../../../devices/pci0000:00/%s", pci);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", name);
	if (put_link(root, rel, tgt) != 0)
		return -1;
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/device", n);
	return put_link(root, rel, tgt);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

static void
remove_tree(const char *root)
{
	if (nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "mlx5-swdev run: cannot remove %s: %s\n", root, strerror(errno));
}

/* Where the preload library is: $SWDEV_UVERBS_LIB, the build tree, the install. */
static int
find_lib(char *buf, size_t size)
{
	char exe[PATH_MAX];
	const char *env = getenv("SWDEV_UVERBS_LIB");
	ssize_t n;

	if (env != NULL && env[0] != '\0') {
		if (realpath(env, buf) == NULL || strlen(buf) >= size)
			return -1;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char cand[PATH_MAX + 64];

		exe[n] = '\0';
		snprintf(cand, sizeof(cand), "%s/../../lib/swdev/uverbs/" LIB_NAME, dirname(exe));
		if (access(cand, R_OK) == 0 && realpath(cand, buf) != NULL)
			return 0;
	}
	if (snprintf(buf, size, "%s", MDEVX_UVERBS_LIB) >= (int)size || access(buf, R_OK) != 0)
		return -1;
	return 0;
}

static int
find_tsan(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *out = arg;

	(void)size;
	if (info->dlpi_name != NULL && strstr(info->dlpi_name, "/libtsan.so") != NULL &&
	    strlen(info->dlpi_name) < PATH_MAX) {
		strcpy(out, info->dlpi_name);
		return 1;
	}
	return 0;
}

/*
 * LD_PRELOAD with @p lib first, or after a leading sanitizer runtime. A
 * launcher built with ThreadSanitizer (a TSan build of the project, whose
 * programs it runs) puts its own runtime first when LD_PRELOAD names none:
 * TSan must initialise before any interceptor of ours runs.
 */
static char *
preload_value(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char tsan[PATH_MAX] = "";
	size_t len;
	char *v;

	if ((old == NULL || strstr(old, "libtsan") == NULL) &&
	    dl_iterate_phdr(find_tsan, tsan) == 1) {
		len = strlen(tsan) + strlen(lib) + (old != NULL ? strlen(old) : 0) + 3;
		v = malloc(len);
		if (v != NULL)
			snprintf(v, len, "%s:%s%s%s", tsan, lib, old != NULL && old[0] != '\0' ?
				 ":" : "", old != NULL ? old : "");
		return v;
	}
	if (old == NULL || old[0] == '\0')
		return strdup(lib);
	len = strlen(old) + strlen(lib) + 2;
	v = malloc(len);
	if (v == NULL)
		return NULL;
	if (strstr(old, "libasan") != NULL || strstr(old, "libtsan") != NULL ||
	    strstr(old, "libubsan") != NULL) {
		const char *sep = strpbrk(old, ": ");

		if (sep == NULL)
			snprintf(v, len, "%s:%s", old, lib);
		else
			snprintf(v, len, "%.*s:%s:%s", (int)(sep - old), old, lib, sep + 1);
	} else {
		snprintf(v, len, "%s:%s", lib, old);
	}
	return v;
}

/* An absolute spelling of @p path (its directory resolved). */
static int
abs_path(const char *path, char *buf, size_t size)
{
	char dir[PATH_MAX], base[PATH_MAX], rdir[PATH_MAX];

	if (strlen(path) >= sizeof(dir))
		return -1;
	strcpy(dir, path);
	strcpy(base, path);
	if (realpath(dirname(dir), rdir) == NULL)
		return -1;
	return snprintf(buf, size, "%s/%s", rdir, basename(base)) < (int)size ? 0 : -1;
}

int
run_cmd_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char names[SWDEV_UVERBS_MAX_DEVS][SWDEV_PROTO_NAME_LEN];
	char root[PATH_MAX], lib[PATH_MAX], sock[PATH_MAX], asan[512];
	const char *sock_arg = NULL, *tmp;
	struct sigaction sa, old_int, old_term, old_hup;
	char *preload;
	int opt, n, i, status, ret = 1;
	pid_t pid;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sock_arg = optarg;
			break;
		case 'h':
			run_cmd_usage(stdout, prog);
			return 0;
		default:
			run_cmd_usage(stderr, prog);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mlx5-swdev run: no command given\n");
		run_cmd_usage(stderr, prog);
		return 2;
	}
	if (sock_arg == NULL)
		sock_arg = getenv("SWDEV_SOCKET");
	if (sock_arg == NULL || sock_arg[0] == '\0')
		sock_arg = MDEVX_SWDEV_DEFAULT_SOCKET;
	if (abs_path(sock_arg, sock, sizeof(sock)) != 0) {
		fprintf(stderr, "mlx5-swdev run: socket %s: %s\n", sock_arg, strerror(errno));
		return 1;
	}
	n = list_devices(sock, names, SWDEV_UVERBS_MAX_DEVS);
	if (n < 0) {
		fprintf(stderr, "mlx5-swdev run: no daemon answers on %s: %s\n", sock,
			strerror(-n));
		return 1;
	}
	if (find_lib(lib, sizeof(lib)) != 0) {
		fprintf(stderr, "mlx5-swdev run: %s not found (set SWDEV_UVERBS_LIB)\n", LIB_NAME);
		return 1;
	}
	tmp = getenv("TMPDIR");
	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	if (snprintf(root, sizeof(root), "%s/mlx5-swdev-sysfs.XXXXXX", tmp) >= (int)sizeof(root) ||
	    mkdtemp(root) == NULL) {
		fprintf(stderr, "mlx5-swdev run: temporary directory in %s: %s\n", tmp,
			strerror(errno));
		return 1;
	}
	if (put_file(root, "class/infiniband_verbs/abi_version", "6\n") != 0)
		goto fail_tree;
	for (i = 0; i < n; i++)
		if (build_device(root, (unsigned int)i, names[i]) != 0)
			goto fail_tree;
	preload = preload_value(lib);
	if (preload == NULL)
		goto fail_tree;
	/* Our library follows the program's own sanitizer runtime: say it is fine. */
	tmp = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0", tmp != NULL ? tmp : "",
		 tmp != NULL && tmp[0] != '\0' ? ":" : "");
	if (setenv("SYSFS_PATH", root, 1) != 0 || setenv("SWDEV_SOCKET", sock, 1) != 0 ||
	    setenv("LD_PRELOAD", preload, 1) != 0 || setenv("ASAN_OPTIONS", asan, 1) != 0) {
		free(preload);
		goto fail_tree;
	}
	free(preload);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "mlx5-swdev run: fork: %s\n", strerror(errno));
		remove_tree(root);
		return 1;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "mlx5-swdev run: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	g_child = pid;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 1 << 8;
			break;
		}
	}
	g_child = -1;
	if (WIFEXITED(status))
		ret = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ret = 128 + WTERMSIG(status);
	remove_tree(root);
	return ret;
fail_tree:
	fprintf(stderr, "mlx5-swdev run: sysfs tree in %s: %s\n", root, strerror(errno));
	remove_tree(root);
	return 1;
}

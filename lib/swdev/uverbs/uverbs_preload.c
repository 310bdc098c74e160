/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: the kernel side of /dev/infiniband/uverbsN, as an
 * LD_PRELOAD library (libswdev_uverbs.so) for unmodified libibverbs and
 * libmlx5. Contract (stable; details in swdev_uverbs.h):
 *   mlx5-swdev run [--socket PATH] -- CMD ARGS...   (the launcher)
 *   SWDEV_SOCKET  the daemon's main socket
 *   SYSFS_PATH    the launcher's sysfs tree; uverbsN = device N of the daemon
 *   LD_PRELOAD    this library, build tree lib/swdev/uverbs/libswdev_uverbs.so
 *
 * A uverbs descriptor IS the main connection to the daemon (SOCK_SEQPACKET
 * on $SWDEV_SOCKET): open() connects and sends OPEN, so dup(), fork(),
 * close() and SCM_RIGHTS keep the kernel's rule for free (the daemon frees
 * the file when its last holder goes). Each process talks on a private
 * channel of its own, registered with ATTACH the first time it uses a
 * descriptor it did not open (found by asking the socket its peer name).
 *
 * This file: the descriptor table and the libc calls it takes over (open,
 * close, the stat family, ioctl, write, mmap, socket). The daemon
 * transport, the copies of the caller's memory and the log:
 * uverbs_transport.c. RDMA_VERBS_IOCTL: uverbs_ioctl.c (decoding,
 * dispatch) and uverbs_methods.c (the methods). The write() commands:
 * uverbs_write.c.
 */
/* Both spellings of each call are defined here (open and open64...): the
 * headers must not rename one into the other. */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "swdev_client.h"
#include "swdev_uverbs.h"
#include "uverbs_priv.h"

#define EXPORT __attribute__((visibility("default")))

/* uverbs descriptors one process holds at once. */
#define MAX_FILES 256

/* ---- the real calls ---- */

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
/* close(): uv_real_close, in uverbs_transport.c (OPEN / ATTACH close with it) */
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_statx)(int, const char *, int, unsigned int, struct statx *);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_socket)(int, int, int);
static int (*real_inotify_add_watch)(int, const char *, uint32_t);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The table of files (g_used[i]: g_files[i] is one), in the library's own
 * storage, never on the heap: after ibv_fork_init() (DPDK's mlx5 drivers
 * call it) libibverbs and libmlx5 mark the heap pages of their buffers
 * MADV_DONTFORK, whole pages, and a file sharing such a page would be
 * absent in the child of a fork().
 */
static struct uv_file g_files[MAX_FILES];
static bool g_used[MAX_FILES];
static volatile unsigned int g_nfiles;	/* entries in use: 0 lets calls skip the lock */
static char g_sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
static char g_sysfs[PATH_MAX];
static bool g_active;	/* SYSFS_PATH set: the device exists for this process */

static void *
next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL)
		fprintf(stderr, "libswdev_uverbs: no next %s: %s\n", name, dlerror());
	return p;
}

static void
atfork_prepare(void)
{
	pthread_mutex_lock(&g_lock);
}

static void
atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
}

/* The child shares the parent's channels: it gets its own on first use. */
static void
atfork_child(void)
{
	unsigned int i;

	uv_t_pid = 0;
	for (i = 0; i < MAX_FILES; i++) {
		struct uv_file *f = &g_files[i];

		if (!g_used[i])
			continue;
		if (f->chan >= 0)
			uv_real_close(f->chan);
		f->chan = -1;
		f->pid = 0;
	}
	pthread_mutex_unlock(&g_lock);
}

/*
 * The environment contract. Read again by the constructor: a sanitizer
 * runtime calls stat() before libc has set up the environment, and that
 * first call must not leave the device absent for the whole process.
 */
static void
read_env(void)
{
	const char *s, *e;

	s = getenv("SWDEV_SOCKET");
	if (s == NULL || s[0] == '\0')
		s = SWDEV_DEFAULT_SOCKET;
	if (strlen(s) < sizeof(g_sock))
		memcpy(g_sock, s, strlen(s) + 1);
	s = getenv("SYSFS_PATH");
	if (s != NULL && s[0] != '\0' && strlen(s) < sizeof(g_sysfs)) {
		memcpy(g_sysfs, s, strlen(s) + 1);
		g_active = g_sock[0] != '\0';
	}
	e = getenv("SWDEV_UVERBS_DEBUG");
	uv_debug = e != NULL && e[0] != '\0' && e[0] != '0';
}

static void
init_once(void)
{
	real_open = (int (*)(const char *, int, ...))next_sym("open");
	real_openat = (int (*)(int, const char *, int, ...))next_sym("openat");
	uv_real_close = (int (*)(int))next_sym("close");
	real_fstat = (int (*)(int, struct stat *))next_sym("fstat");
	real_fstatat = (int (*)(int, const char *, struct stat *, int))next_sym("fstatat");
	real_statx = (int (*)(int, const char *, int, unsigned int, struct statx *))
		next_sym("statx");
	real_ioctl = (int (*)(int, unsigned long, ...))next_sym("ioctl");
	real_write = (ssize_t (*)(int, const void *, size_t))next_sym("write");
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))next_sym("mmap");
	real_socket = (int (*)(int, int, int))next_sym("socket");
	real_inotify_add_watch = (int (*)(int, const char *, uint32_t))
		next_sym("inotify_add_watch");
	read_env();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static inline void
init(void)
{
	pthread_once(&g_once, init_once);
}

__attribute__((constructor)) static void
uv_ctor(void)
{
	init();
	read_env();
}

ssize_t
uv_real_write(int fd, const void *buf, size_t len)
{
	return real_write(fd, buf, len);
}

/* ---- sysfs of the launcher ---- */

/* The first line of $SYSFS_PATH/<rel> into @p buf (no newline). 0 or -1. */
static int
sysfs_read(const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", g_sysfs, rel) >= (int)sizeof(path))
		return -1;
	fd = real_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	uv_real_close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* N when @p path is /dev/infiniband/uverbsN of the launcher's tree, else -1. */
static int
uverbs_path_index(const char *path)
{
	const char *p;
	char rel[64], name[SWDEV_PROTO_NAME_LEN];
	unsigned long n;
	char *end;

	if (!g_active || path == NULL ||
	    strncmp(path, SWDEV_UVERBS_DEV_DIR SWDEV_UVERBS_PREFIX,
		    strlen(SWDEV_UVERBS_DEV_DIR SWDEV_UVERBS_PREFIX)) != 0)
		return -1;
	p = path + strlen(SWDEV_UVERBS_DEV_DIR SWDEV_UVERBS_PREFIX);
	if (*p < '0' || *p > '9')
		return -1;
	n = strtoul(p, &end, 10);
	if (*end != '\0' || n >= SWDEV_UVERBS_MAX_DEVS || (p[0] == '0' && p[1] != '\0'))
		return -1;
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%lu/ibdev", n);
	if (sysfs_read(rel, name, sizeof(name)) != 0)
		return -1;
	return (int)n;
}

/* N of the device named @p devname in the launcher's tree, or -1. */
static int
devname_index(const char *devname)
{
	char rel[64], name[SWDEV_PROTO_NAME_LEN];
	unsigned int n;

	for (n = 0; n < SWDEV_UVERBS_MAX_DEVS; n++) {
		snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/ibdev", n);
		if (sysfs_read(rel, name, sizeof(name)) == 0 && strcmp(name, devname) == 0)
			return (int)n;
	}
	return -1;
}

static dev_t
uverbs_rdev(unsigned int n)
{
	return makedev(SWDEV_UVERBS_MAJOR, SWDEV_UVERBS_MINOR_BASE + n);
}

/* ---- the descriptor table (under g_lock) ---- */

/* A new zeroed entry (chan -1) of the table, or NULL when all are in use. */
static struct uv_file *
table_new(void)
{
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++) {
		if (!g_used[i]) {
			g_used[i] = true;
			__atomic_add_fetch(&g_nfiles, 1, __ATOMIC_RELEASE);
			memset(&g_files[i], 0, sizeof(g_files[i]));
			g_files[i].chan = -1;
			return &g_files[i];
		}
	}
	return NULL;
}

static struct uv_file *
table_find(int fd)
{
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++)
		if (g_used[i] && g_files[i].fd == fd)
			return &g_files[i];
	return NULL;
}

/* The entry goes, and this process's channel with it (not the caller's descriptor). */
static void
table_drop(struct uv_file *f)
{
	if (f->chan >= 0)
		uv_real_close(f->chan);
	g_used[f - g_files] = false;
	__atomic_sub_fetch(&g_nfiles, 1, __ATOMIC_RELEASE);
}

/* Is @p fd a main connection to our daemon? Fills its socket identity. */
static bool
is_daemon_socket(int fd, struct stat *st)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	int type = 0;
	socklen_t tlen = sizeof(type);
	char a[PATH_MAX], b[PATH_MAX];
	size_t n;

	if (real_fstat(fd, st) != 0 || !S_ISSOCK(st->st_mode))
		return false;
	memset(&sa, 0, sizeof(sa));
	if (getpeername(fd, (struct sockaddr *)&sa, &len) != 0 || sa.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_SEQPACKET)
		return false;
	n = len - offsetof(struct sockaddr_un, sun_path);
	if (n >= sizeof(sa.sun_path))
		n = sizeof(sa.sun_path) - 1;
	sa.sun_path[n] = '\0';
	if (sa.sun_path[0] == '\0')
		return false;
	if (strcmp(sa.sun_path, g_sock) == 0)
		return true;
	return realpath(sa.sun_path, a) != NULL && realpath(g_sock, b) != NULL &&
	       strcmp(a, b) == 0;
}

/*
 * The uverbs file of @p fd for this process, or NULL (errno set when it is
 * one but cannot be used). @p identify: also recognise a descriptor this
 * process did not open (received, inherited over exec, dup()ed).
 */
static struct uv_file *
lookup(int fd, bool identify)
{
	struct uv_file *f;
	struct stat st;
	int err, idx;

	f = table_find(fd);
	/* The number may name another file now (dup2() over it, a close this
	 * library did not see): the socket's identity decides. */
	if (f != NULL && identify &&
	    (real_fstat(fd, &st) != 0 || st.st_ino != f->sino || st.st_dev != f->sdev)) {
		table_drop(f);
		f = NULL;
	}
	if (f != NULL) {
		if (f->pid == uv_self_pid())
			return f;
		/* inherited through fork: a channel of our own */
		err = uv_attach(f, SWDEV_OP_ATTACH, NULL);
		if (err != 0) {
			f->broken = true;
			f->pid = uv_self_pid();
		}
		return f;
	}
	if (!identify || !g_active || fd < 0 || !is_daemon_socket(fd, &st))
		return NULL;
	f = table_new();
	if (f == NULL) {
		errno = EMFILE;
		return NULL;
	}
	f->fd = fd;
	f->sdev = st.st_dev;
	f->sino = st.st_ino;
	err = uv_attach(f, SWDEV_OP_ATTACH, NULL);
	if (err == 0) {
		idx = devname_index(f->devname);
		if (idx < 0) {
			uv_log("fd %d: device %s is not in %s", fd, f->devname, g_sysfs);
			err = ENODEV;
		} else {
			f->devidx = (unsigned int)idx;
			f->has_ctx = true;	/* the file's context is another process's */
		}
	}
	if (err != 0) {
		table_drop(f);
		errno = err;
		return NULL;
	}
	return f;
}

/* ---- open / close ---- */

static int
uverbs_open(int idx, int flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char rel[64], name[SWDEV_PROTO_NAME_LEN];
	struct uv_file *f;
	struct stat st;
	int fd, err;

	if ((flags & O_ACCMODE) != O_RDWR && (flags & O_ACCMODE) != O_WRONLY) {
		errno = EACCES;
		return -1;
	}
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%d/ibdev", idx);
	if (sysfs_read(rel, name, sizeof(name)) != 0) {
		errno = ENXIO;
		return -1;
	}
	memcpy(sa.sun_path, g_sock, strlen(g_sock) + 1);
	fd = real_socket(AF_UNIX, SOCK_SEQPACKET | ((flags & O_CLOEXEC) ? SOCK_CLOEXEC : 0), 0);
	if (fd < 0)
		return -1;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		uv_log("open uverbs%d: daemon %s: %s", idx, g_sock, strerror(errno));
		uv_real_close(fd);
		errno = ENXIO;	/* no driver behind the node */
		return -1;
	}
	pthread_mutex_lock(&g_lock);
	f = table_new();
	if (f == NULL) {
		pthread_mutex_unlock(&g_lock);
		uv_real_close(fd);
		errno = EMFILE;
		return -1;
	}
	f->fd = fd;
	f->devidx = (unsigned int)idx;
	if (real_fstat(fd, &st) == 0) {
		f->sdev = st.st_dev;
		f->sino = st.st_ino;
	}
	err = uv_attach(f, SWDEV_OP_OPEN, name);
	if (err != 0)
		table_drop(f);
	pthread_mutex_unlock(&g_lock);
	if (err != 0) {
		uv_real_close(fd);
		errno = err == ECONNRESET || err == EPROTO ? ENXIO : err;
		return -1;
	}
	return fd;
}

static int
do_open(int dirfd, const char *path, int flags, mode_t mode, bool at)
{
	int idx;

	init();
	idx = (path != NULL && path[0] == '/') ? uverbs_path_index(path) : -1;
	if (idx >= 0)
		return uverbs_open(idx, flags);
	if (at)
		return real_openat(dirfd, path, flags, mode);
	return real_open(path, flags, mode);
}

static mode_t
open_mode(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, int);
	return 0;
}

EXPORT int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags, mode, false);
}

EXPORT int
open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags, mode, false);
}

EXPORT int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags, mode, true);
}

EXPORT int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags, mode, true);
}

EXPORT int
__open_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags, 0, false);
}

EXPORT int
__open64_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags, 0, false);
}

EXPORT int
__openat_2(int dirfd, const char *path, int flags)
{
	return do_open(dirfd, path, flags, 0, true);
}

EXPORT int
__openat64_2(int dirfd, const char *path, int flags)
{
	return do_open(dirfd, path, flags, 0, true);
}

EXPORT int
close(int fd)
{
	struct uv_file *f;

	init();
	if (__atomic_load_n(&g_nfiles, __ATOMIC_ACQUIRE) != 0) {
		pthread_mutex_lock(&g_lock);
		f = table_find(fd);
		if (f != NULL)
			table_drop(f);
		pthread_mutex_unlock(&g_lock);
	}
	return uv_real_close(fd);
}

/* ---- the stat family ---- */

static void
fake_node(struct stat *st, unsigned int idx)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(0, 6);
	st->st_ino = 4000 + idx;
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = uverbs_rdev(idx);
	st->st_blksize = 4096;
}

/* After a successful fstat of @p fd: make a uverbs descriptor a character device. */
static void
patch_fd_stat(int fd, struct stat *st)
{
	struct uv_file *f;

	if (!g_active || !S_ISSOCK(st->st_mode))
		return;
	pthread_mutex_lock(&g_lock);
	f = lookup(fd, true);
	if (f != NULL) {
		st->st_mode = S_IFCHR | 0666;
		st->st_rdev = uverbs_rdev(f->devidx);
	}
	pthread_mutex_unlock(&g_lock);
}

static int
do_fstat(int fd, struct stat *st)
{
	int ret;

	init();
	ret = real_fstat(fd, st);
	if (ret == 0) {
		int e = errno;

		patch_fd_stat(fd, st);
		errno = e;
	}
	return ret;
}

static int
do_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int idx;

	init();
	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH))
		return do_fstat(dirfd, st);
	idx = (path != NULL && path[0] == '/') ? uverbs_path_index(path) : -1;
	if (idx >= 0) {
		fake_node(st, (unsigned int)idx);
		return 0;
	}
	return real_fstatat(dirfd, path, st, flags);
}

EXPORT int
fstat(int fd, struct stat *st)
{
	return do_fstat(fd, st);
}

EXPORT int
fstat64(int fd, struct stat64 *st)
{
	return do_fstat(fd, (struct stat *)st);
}

EXPORT int
stat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, 0);
}

EXPORT int
stat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int
lstat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int
lstat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return do_fstatat(dirfd, path, st, flags);
}

EXPORT int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return do_fstatat(dirfd, path, (struct stat *)st, flags);
}

/* The pre-2.33 entry points (x86_64: one struct stat layout, version 1). */
EXPORT int
__fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return do_fstat(fd, st);
}

EXPORT int
__fxstat64(int ver, int fd, struct stat64 *st)
{
	(void)ver;
	return do_fstat(fd, (struct stat *)st);
}

EXPORT int
__xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return do_fstatat(AT_FDCWD, path, st, 0);
}

EXPORT int
__xstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int
__lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return do_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int
__lxstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int
__fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return do_fstatat(dirfd, path, st, flags);
}

EXPORT int
__fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	(void)ver;
	return do_fstatat(dirfd, path, (struct stat *)st, flags);
}

EXPORT int
statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
	struct uv_file *f = NULL;
	int idx, ret;

	init();
	idx = path[0] == '/' ? uverbs_path_index(path) : -1;
	if (idx >= 0) {
		memset(stx, 0, sizeof(*stx));
		stx->stx_mask = STATX_BASIC_STATS;
		stx->stx_mode = S_IFCHR | 0666;
		stx->stx_nlink = 1;
		stx->stx_ino = 4000 + (unsigned int)idx;
		stx->stx_blksize = 4096;
		stx->stx_rdev_major = SWDEV_UVERBS_MAJOR;
		stx->stx_rdev_minor = SWDEV_UVERBS_MINOR_BASE + (unsigned int)idx;
		stx->stx_dev_minor = 6;
		return 0;
	}
	ret = real_statx(dirfd, path, flags, mask, stx);
	if (ret == 0 && g_active && path[0] == '\0' &&
	    (flags & AT_EMPTY_PATH) && S_ISSOCK(stx->stx_mode)) {
		int e = errno;

		pthread_mutex_lock(&g_lock);
		f = lookup(dirfd, true);
		if (f != NULL) {
			stx->stx_mode = S_IFCHR | 0666;
			stx->stx_rdev_major = SWDEV_UVERBS_MAJOR;
			stx->stx_rdev_minor = SWDEV_UVERBS_MINOR_BASE + f->devidx;
		}
		pthread_mutex_unlock(&g_lock);
		errno = e;
	}
	return ret;
}

/* ---- ioctl, write, mmap, socket ---- */

EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	struct uv_file *f;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	init();
	if (req != RDMA_VERBS_IOCTL || !g_active)
		return real_ioctl(fd, req, arg);
	pthread_mutex_lock(&g_lock);
	errno = 0;
	f = lookup(fd, true);
	if (f == NULL) {
		err = errno;
		pthread_mutex_unlock(&g_lock);
		if (err != 0) {
			errno = err;
			return -1;
		}
		return real_ioctl(fd, req, arg);
	}
	err = uv_ioctl(f, (uint64_t)(uintptr_t)arg);
	pthread_mutex_unlock(&g_lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

EXPORT ssize_t
write(int fd, const void *buf, size_t len)
{
	struct uv_file *f;
	ssize_t ret;
	int err;

	init();
	if (__atomic_load_n(&g_nfiles, __ATOMIC_ACQUIRE) == 0)
		return real_write(fd, buf, len);
	pthread_mutex_lock(&g_lock);
	f = lookup(fd, false);
	if (f == NULL) {
		pthread_mutex_unlock(&g_lock);
		return real_write(fd, buf, len);
	}
	ret = uv_write_cmd(f, buf, len);
	err = errno;
	pthread_mutex_unlock(&g_lock);
	errno = err;
	return ret;
}

static void *
do_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct uv_file *f = NULL;
	uint64_t pgoff;
	int err = 0;

	init();
	if (fd < 0 || (flags & MAP_ANONYMOUS) || !g_active)
		return real_mmap(addr, len, prot, flags, fd, off);
	pthread_mutex_lock(&g_lock);
	errno = 0;
	f = lookup(fd, true);
	if (f == NULL) {
		err = errno;
		pthread_mutex_unlock(&g_lock);
		if (err != 0) {
			errno = err;
			return MAP_FAILED;
		}
		return real_mmap(addr, len, prot, flags, fd, off);
	}
	pgoff = (uint64_t)off / 4096u;
	if (f->broken)
		err = EIO;
	else if (off < 0 || (uint64_t)off % 4096u != 0 || len != 4096u ||
		 pgoff < UV_UAR_PGOFF_BASE || pgoff - UV_UAR_PGOFF_BASE > UINT32_MAX)
		err = EINVAL;	/* not an offset the device handed out */
	else if (!(flags & MAP_SHARED))
		err = EINVAL;
	pthread_mutex_unlock(&g_lock);
	if (err != 0) {
		uv_log("%s: mmap offset %#llx length %zu refused: %s", f->devname,
		       (unsigned long long)off, len, strerror(err));
		errno = err;
		return MAP_FAILED;
	}
	/* Doorbells are not emulated: the page is the process's own memory. */
	flags &= ~(MAP_SHARED | MAP_SHARED_VALIDATE);
	return real_mmap(addr, len, prot, flags | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return do_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return do_mmap(addr, len, prot, flags, fd, off);
}

EXPORT int
socket(int domain, int type, int protocol)
{
	init();
	/* libibverbs reads sysfs when RDMA netlink is not there. */
	if (g_active && domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}

/*
 * When open() of the node fails, libibverbs waits up to 5 s for udev to
 * create /dev/char/MAJOR:MINOR. No udev makes our nodes: fail at once.
 */
EXPORT int
inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	init();
	if (g_active && path != NULL && strncmp(path, "/dev/char", 9) == 0 &&
	    (path[9] == '\0' || (path[9] == '/' && path[10] == '\0'))) {
		errno = ENOENT;
		return -1;
	}
	return real_inotify_add_watch(fd, path, mask);
}

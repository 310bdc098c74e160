/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Relaunch this binary as a DPDK secondary running a named role.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>

#include "test.h"
#include "test_internal.h"

extern char **environ;

static char self_exe[PATH_MAX];

void
test_process_save_argv(const char *argv0)
{
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (n > 0)
		self_exe[n] = '\0';
	else
		snprintf(self_exe, sizeof(self_exe), "%s", argv0);
}

const char *
test_file_prefix(void)
{
	const char *dir = rte_eal_get_runtime_dir();
	const char *slash = strrchr(dir, '/');

	return slash != NULL ? slash + 1 : dir;
}

static pid_t
spawn(const char *role, const char *prefix, bool primary, const char *eal_extra, int argc,
      const char *const argv[])
{
	const char *wrapper = getenv("MDEVX_TEST_WRAPPER");
	char prefix_arg[PATH_MAX], role_env[256], lcores_arg[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const char **cargv, **cenv;
	size_t nenv = 0, i;
	int n = 0;
	pid_t pid;

	if (role == NULL || argc < 0 || (argc > 0 && argv == NULL))
		return -EINVAL;
	if (prefix == NULL)
		prefix = test_file_prefix();
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s", prefix);
	snprintf(role_env, sizeof(role_env), TEST_ROLE_ENV "=%s", role);

	cargv = calloc((size_t)argc + 17, sizeof(*cargv));
	while (environ[nenv] != NULL)
		nenv++;
	cenv = calloc(nenv + 2, sizeof(*cenv));
	if (cargv == NULL || cenv == NULL) {
		free(cargv);
		free(cenv);
		return -ENOMEM;
	}
	/* $MDEVX_TEST_WRAPPER: a program that runs the child (a profiler). */
	if (wrapper != NULL && wrapper[0] != '\0')
		cargv[n++] = wrapper;
	cargv[n++] = self_exe;
	cargv[n++] = primary ? "--proc-type=primary" : "--proc-type=secondary";
	cargv[n++] = prefix_arg;
	cargv[n++] = "--no-pci";
	cargv[n++] = "--no-telemetry";
	/* One lcore that may float over every CPU: children do not pile up on CPU 0. */
	snprintf(lcores_arg, sizeof(lcores_arg), "--lcores=0@(0-%ld)", ncpu > 1 ? ncpu - 1 : 0);
	cargv[n++] = lcores_arg;
	cargv[n++] = "--log-level=lib.eal:error";
	if (eal_extra != NULL)
		cargv[n++] = eal_extra;
	cargv[n++] = "--";
	for (int a = 0; a < argc; a++)
		cargv[n++] = argv[a];
	cargv[n] = NULL;
	/* Drop a role inherited from our own environment, add the child's. */
	for (i = 0, nenv = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], TEST_ROLE_ENV "=", strlen(TEST_ROLE_ENV) + 1) == 0 ||
		    strncmp(environ[i], "DPDK_TEST=", 10) == 0 ||
		    strncmp(environ[i], "DPDK_TEST_PARAMS=", 17) == 0)
			continue;
		cenv[nenv++] = environ[i];
	}
	cenv[nenv++] = role_env;
	cenv[nenv] = NULL;

	fflush(stdout);
	fflush(stderr);
	/*
	 * posix_spawn(), not fork(): a DPDK process with the mlx5 drivers has
	 * called ibv_fork_init(), so heap pages (which hold these arrays and
	 * the environment) may be MADV_DONTFORK and absent in a forked child.
	 */
	n = posix_spawn(&pid, cargv[0], NULL, NULL, (char *const *)(uintptr_t)cargv,
			(char *const *)(uintptr_t)cenv);
	free(cargv);
	free(cenv);
	if (n != 0)
		return -n;
	return pid;
}

pid_t
test_mp_spawn(const char *role, const char *prefix, int argc, const char *const argv[])
{
	return spawn(role, prefix, false, NULL, argc, argv);
}

pid_t
test_mp_spawn_primary_eal(const char *role, const char *prefix, const char *eal_extra, int argc,
			  const char *const argv[])
{
	if (prefix == NULL || strcmp(prefix, test_file_prefix()) == 0)
		return -EINVAL;	/* a second primary needs a prefix of its own */
	return spawn(role, prefix, true, eal_extra, argc, argv);
}

pid_t
test_mp_spawn_primary(const char *role, const char *prefix, int argc, const char *const argv[])
{
	return test_mp_spawn_primary_eal(role, prefix, NULL, argc, argv);
}

int
test_mp_wait(pid_t pid, unsigned int timeout_ms)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 2 * 1000 * 1000 };
	uint64_t start;
	int status;

	if (pid <= 0)
		return -EINVAL;
	start = test_now_ms();
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (test_now_ms() - start >= timeout_ms) {
			printf("process %d still running after %u ms: killing it\n",
			       (int)pid, timeout_ms);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return TEST_MP_TIMEOUT;
		}
		nanosleep(&nap, NULL);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -EIO;
}

int
test_mp_run_primary(const char *role, const char *prefix, int argc, const char *const argv[],
		    unsigned int timeout_ms)
{
	pid_t pid = test_mp_spawn_primary(role, prefix, argc, argv);

	if (pid < 0)
		return pid;
	return test_mp_wait(pid, timeout_ms);
}

int
test_mp_run(const char *role, const char *prefix, int argc, const char *const argv[],
	    unsigned int timeout_ms)
{
	pid_t pid = test_mp_spawn(role, prefix, argc, argv);

	if (pid < 0)
		return pid;
	return test_mp_wait(pid, timeout_ms);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * dpdk-test main: EAL init, then either a secondary role (when relaunched
 * by process.c), the commands named by DPDK_TEST or by the arguments left
 * after the EAL ones, or an interactive prompt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "mdevx_build_config.h"
#include "test.h"
#include "test_internal.h"

static TAILQ_HEAD(, test_command) commands = TAILQ_HEAD_INITIALIZER(commands);
static TAILQ_HEAD(, test_secondary_role) roles = TAILQ_HEAD_INITIALIZER(roles);

void
add_test_command(struct test_command *t)
{
	TAILQ_INSERT_TAIL(&commands, t, next);
}

void
add_test_secondary_role(struct test_secondary_role *r)
{
	TAILQ_INSERT_TAIL(&roles, r, next);
}

static struct test_command *
find_command(const char *name)
{
	struct test_command *t;

	TAILQ_FOREACH(t, &commands, next)
		if (strcmp(t->command, name) == 0)
			return t;
	return NULL;
}

static void
list_commands(FILE *f)
{
	struct test_command *t;

	fprintf(f, "Test commands:\n");
	TAILQ_FOREACH(t, &commands, next)
		fprintf(f, "  %s\n", t->command);
}

/* Run one command by name; prints DPDK's "Test OK/Skipped/Failed" line. */
static int
run_command(const char *name)
{
	struct test_command *t = find_command(name);
	int ret;

	if (t == NULL) {
		printf("Unknown test command: %s\n", name);
		return TEST_FAILED;
	}
	ret = t->callback();
	if (ret == TEST_SUCCESS)
		printf("Test OK\n");
	else if (ret == TEST_SKIPPED)
		printf("Test Skipped\n");
	else
		printf("Test Failed\n");
	fflush(stdout);
	return ret;
}

int
unit_test_suite_runner(struct unit_test_suite *suite)
{
	unsigned int total = 0, skipped = 0, executed = 0, unsupported = 0;
	unsigned int passed = 0, failed = 0;
	const struct unit_test_case *tc;
	int ret;

	printf(" + ------------------------------------------------------- +\n");
	printf(" + Test Suite : %s\n", suite->suite_name);
	if (suite->setup != NULL) {
		ret = suite->setup();
		if (ret != TEST_SUCCESS) {
			for (tc = suite->unit_test_cases; tc->testcase != NULL; tc++)
				total++;
			printf(" + Test Suite setup %s: %d cases not run\n",
			       ret == TEST_SKIPPED ? "skipped" : "failed", total);
			skipped = total;
			if (ret != TEST_SKIPPED)
				failed = total, skipped = 0;
			goto summary;
		}
	}
	for (tc = suite->unit_test_cases; tc->testcase != NULL; tc++) {
		const char *status;

		total++;
		if (!tc->enabled) {
			skipped++;
			status = "skipped";
			goto line;
		}
		ret = TEST_SUCCESS;
		if (tc->setup != NULL)
			ret = tc->setup();
		if (ret == TEST_SUCCESS) {
			fflush(stdout);
			ret = tc->testcase();
			if (tc->teardown != NULL)
				tc->teardown();
		} else if (ret != TEST_SKIPPED && ret != -ENOTSUP) {
			ret = TEST_FAILED;
		}
		if (ret == TEST_SUCCESS) {
			executed++;
			passed++;
			status = "succeeded";
		} else if (ret == TEST_SKIPPED) {
			skipped++;
			status = "skipped";
		} else if (ret == -ENOTSUP) {
			executed++;
			unsupported++;
			status = "unsupported";
		} else {
			executed++;
			failed++;
			status = "failed";
		}
line:
		printf(" + TestCase [%2u] : %s %s\n", total - 1, tc->name, status);
		fflush(stdout);
	}
	if (suite->teardown != NULL)
		suite->teardown();
summary:
	printf(" + ------------------------------------------------------- +\n");
	printf(" + Test Suite Summary : %s\n", suite->suite_name);
	printf(" + Tests Total :       %2u\n", total);
	printf(" + Tests Skipped :     %2u\n", skipped);
	printf(" + Tests Executed :    %2u\n", executed);
	printf(" + Tests Unsupported:  %2u\n", unsupported);
	printf(" + Tests Passed :      %2u\n", passed);
	printf(" + Tests Failed :      %2u\n", failed);
	printf(" + ------------------------------------------------------- +\n");
	fflush(stdout);
	if (failed > 0)
		return TEST_FAILED;
	if (total > 0 && skipped == total)
		return TEST_SKIPPED;
	return TEST_SUCCESS;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] [--] [test_command ...]\n"
	       "\n"
	       "dpdk-test of mlx5-devx-share %s (DPDK %s, libmlx5 %s).\n"
	       "Runs the named test commands, or those listed in $DPDK_TEST\n"
	       "(space separated), or opens an interactive prompt.\n"
	       "Always pass --no-pci and a --file-prefix of your own.\n"
	       "$DPDK_TEST_PARAMS adds EAL arguments.\n"
	       "\n"
	       "Return code: 0 all passed, 77 skipped, 1 failed.\n\n",
	       prog, MDEVX_VERSION, MDEVX_DPDK_VERSION, MDEVX_LIBMLX5_VERSION);
	list_commands(stdout);
}

static int
interactive(void)
{
	char line[256];
	int last = TEST_SUCCESS;

	printf("Type a test command, 'list', or 'quit'.\n");
	for (;;) {
		char *cmd;

		printf("RTE>>");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			break;
		cmd = strtok(line, " \t\r\n");
		if (cmd == NULL)
			continue;
		if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0)
			break;
		if (strcmp(cmd, "list") == 0 || strcmp(cmd, "help") == 0) {
			list_commands(stdout);
			continue;
		}
		last = run_command(cmd);
	}
	printf("\n");
	return last;
}

static int
run_role(const char *name, int argc, char **argv)
{
	struct test_secondary_role *r;

	TAILQ_FOREACH(r, &roles, next)
		if (strcmp(r->role, name) == 0)
			return r->callback(argc, argv);
	fprintf(stderr, "dpdk-test: unknown secondary role '%s'\n", name);
	return TEST_MP_EXIT_NO_ROLE;
}

/* Merge $DPDK_TEST_PARAMS (extra EAL arguments) before our own. */
static char **argv_buf;
static char *params_buf;

static char **
build_argv(int argc, char **argv, int *new_argc)
{
	const char *params = getenv("DPDK_TEST_PARAMS");
	char *copy, *tok, *save = NULL;
	char **out;
	int n = 0;

	out = calloc((size_t)argc + 64 + 1, sizeof(*out));
	if (out == NULL)
		return NULL;
	out[n++] = argv[0];
	if (params != NULL && (copy = strdup(params)) != NULL) {
		for (tok = strtok_r(copy, " ", &save); tok != NULL && n < 64;
		     tok = strtok_r(NULL, " ", &save))
			out[n++] = tok;
		params_buf = copy;	/* tokens point into it: freed at exit */
	}
	for (int i = 1; i < argc; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	*new_argc = n;
	argv_buf = out;
	return out;
}

int
main(int argc, char **argv)
{
	const char *role = getenv(TEST_ROLE_ENV);
	const char *dpdk_test;
	int eal_argc, ret, i;
	char **eal_argv;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(argv[0]);
			return 0;
		}
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	eal_argv = build_argv(argc, argv, &eal_argc);
	if (eal_argv == NULL)
		return 1;
	test_process_save_argv(argv[0]);

	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-test: EAL init failed: %s\n", rte_strerror(rte_errno));
		return role != NULL ? TEST_MP_EXIT_EAL_FAILED : 1;
	}
	/* EAL leaves the program name in front of the arguments it did not use. */
	eal_argc -= ret + 1;
	eal_argv += ret + 1;
	if (eal_argc > 0 && strcmp(eal_argv[0], "--") == 0) {
		eal_argc--;
		eal_argv++;
	}

	if (role != NULL) {
		ret = run_role(role, eal_argc, eal_argv);
		rte_eal_cleanup();
		free(argv_buf);
		free(params_buf);
		return ret;
	}

	ret = TEST_SUCCESS;
	dpdk_test = getenv("DPDK_TEST");
	if (dpdk_test != NULL && dpdk_test[0] != '\0') {
		char *copy = strdup(dpdk_test), *tok, *save = NULL;

		for (tok = strtok_r(copy, " ,", &save); tok != NULL;
		     tok = strtok_r(NULL, " ,", &save)) {
			int r = run_command(tok);

			if (r != TEST_SUCCESS && ret != TEST_FAILED)
				ret = r;
		}
		free(copy);
	} else if (eal_argc > 0) {
		for (i = 0; i < eal_argc; i++) {
			int r = run_command(eal_argv[i]);

			if (r != TEST_SUCCESS && ret != TEST_FAILED)
				ret = r;
		}
	} else {
		ret = interactive();
	}
	rte_eal_cleanup();
	free(argv_buf);
	free(params_buf);
	if (ret == TEST_SKIPPED)
		return TEST_SKIPPED;
	return ret == TEST_SUCCESS ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * app/common/text_escape.h: the escapes of strings another process wrote
 * (record names, device strings) before the tools print them:
 *   - text_escape(): printable ASCII as is, a backslash doubled, every
 *     other byte \xNN; each of the 255 bytes alone, and a terminal escape
 *     sequence in a name;
 *   - json_escape(): '"' and '\' escaped, controls, DEL and every byte of
 *     0x80 and above \u00NN; each byte alone, invalid UTF-8;
 *   - both: at most inmax bytes read (a name without its NUL), output cut
 *     at outsz never in the middle of an escape, snprintf's return value;
 *     only printable ASCII in any output.
 * With --emit-json N: print N random byte strings (1..47 bytes, every
 * byte value) as one JSON document, {"names": [{"bytes": [..], "json":
 * "<escaped>"}, ...]}, which the test text_escape_json parses with
 * python3 and compares, byte by byte, with the code points it decodes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_escape.h"
#include "unit_check.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static int
only_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

static void
expect(size_t (*fn)(char *, size_t, const char *, size_t), const char *in, size_t inmax,
       const char *want)
{
	char out[512];
	size_t n = fn(out, sizeof(out), in, inmax);

	CHECK_EQ(n, strlen(want));
	if (strcmp(out, want) != 0) {
		fprintf(stderr, "escape: got \"%s\", want \"%s\"\n", out, want);
		CHECK(0);
	}
}

static void
test_fixed(void)
{
	char name[4] = { 'a', 'b', 'c', 'd' };	/* no NUL */

	expect(text_escape, "plain-name_0", SIZE_MAX, "plain-name_0");
	expect(text_escape, "\x1b[2J\x1b]0;owned\x07x", SIZE_MAX,
	       "\\x1b[2J\\x1b]0;owned\\x07x");
	expect(text_escape, "a\\b\"c", SIZE_MAX, "a\\\\b\"c");
	expect(text_escape, "\xc3\xa9\xff\x7f\n", SIZE_MAX, "\\xc3\\xa9\\xff\\x7f\\x0a");
	expect(text_escape, name, sizeof(name), "abcd");
	expect(text_escape, name, 2, "ab");
	expect(text_escape, "", SIZE_MAX, "");
	expect(json_escape, "plain-name_0", SIZE_MAX, "plain-name_0");
	expect(json_escape, "q\"b\\s/", SIZE_MAX, "q\\\"b\\\\s/");
	expect(json_escape, "\x1b[2J\t\x7f", SIZE_MAX, "\\u001b[2J\\u0009\\u007f");
	/* invalid UTF-8 (a lone continuation byte, a cut sequence): one code point each */
	expect(json_escape, "\x80\xc3(\xff", SIZE_MAX, "\\u0080\\u00c3(\\u00ff");
	expect(json_escape, name, 3, "abc");
}

/* Every byte alone: the documented escape, printable output only. */
static void
test_every_byte(void)
{
	char in[2] = { 0, 0 }, out[16], want[16];
	unsigned int c;

	for (c = 1; c < 256; c++) {
		in[0] = (char)c;
		if (c == '\\')
			snprintf(want, sizeof(want), "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			snprintf(want, sizeof(want), "%c", c);
		else
			snprintf(want, sizeof(want), "\\x%02x", c);
		text_escape(out, sizeof(out), in, SIZE_MAX);
		CHECK(strcmp(out, want) == 0);
		CHECK(only_printable(out));
		if (c == '"' || c == '\\')
			snprintf(want, sizeof(want), "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			snprintf(want, sizeof(want), "%c", c);
		else
			snprintf(want, sizeof(want), "\\u%04x", c);
		json_escape(out, sizeof(out), in, SIZE_MAX);
		CHECK(strcmp(out, want) == 0);
		CHECK(only_printable(out));
	}
}

/* A small output: cut between escapes, NUL-terminated, the whole length returned. */
static void
test_cut(void)
{
	char out[8];
	size_t n;

	memset(out, 'z', sizeof(out));
	n = text_escape(out, sizeof(out), "ab\x1b\x1b", SIZE_MAX);
	CHECK_EQ(n, 10);
	CHECK(strcmp(out, "ab\\x1b") == 0);	/* 6 bytes: the second escape does not fit */
	n = json_escape(out, sizeof(out), "a\x01", SIZE_MAX);
	CHECK_EQ(n, 7);
	CHECK(strcmp(out, "a\\u0001") == 0);	/* exactly fits with its NUL */
	n = json_escape(out, sizeof(out), "ab\x01", SIZE_MAX);
	CHECK_EQ(n, 8);
	CHECK(strcmp(out, "ab") == 0);
	n = text_escape(out, 1, "abc", SIZE_MAX);
	CHECK_EQ(n, 3);
	CHECK_EQ(out[0], '\0');
	CHECK_EQ(text_escape(NULL, 0, "abc", SIZE_MAX), 3);
}

/* Random strings: printable output of the predicted length, never past the buffer. */
static void
test_random(void)
{
	char in[48], out[TEXT_ESCAPE_SIZE(47)];
	unsigned int i, j;

	for (i = 0; i < 20000; i++) {
		size_t len = 1 + rnd() % 47, want_t = 0, want_j = 0;

		for (j = 0; j < len; j++) {
			unsigned char c = (unsigned char)(1 + rnd() % 255);

			in[j] = (char)c;
			want_t += c == '\\' ? 2 : (c >= 0x20 && c < 0x7f) ? 1 : 4;
			want_j += (c == '\\' || c == '"') ? 2 : (c >= 0x20 && c < 0x7f) ? 1 : 6;
		}
		in[len] = '\0';
		CHECK_EQ(text_escape(out, sizeof(out), in, sizeof(in)), want_t);
		CHECK_EQ(strlen(out), want_t);
		CHECK(only_printable(out));
		CHECK_EQ(json_escape(out, sizeof(out), in, sizeof(in)), want_j);
		CHECK_EQ(strlen(out), want_j);
		CHECK(only_printable(out));
	}
}

static int
emit_json(unsigned int count)
{
	char in[48];
	unsigned int i, j;

	printf("{\"names\": [");
	for (i = 0; i < count; i++) {
		size_t len = 1 + rnd() % 47;

		for (j = 0; j < len; j++)
			in[j] = (char)(1 + rnd() % 255);
		printf("%s{\"bytes\": [", i ? ", " : "");
		for (j = 0; j < len; j++)
			printf("%s%u", j ? ", " : "", (unsigned char)in[j]);
		printf("], \"json\": ");
		json_escape_print(stdout, in, len);
		printf("}");
	}
	printf("]}\n");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--emit-json") == 0)
		return emit_json((unsigned int)strtoul(argv[2], NULL, 10));
	test_fixed();
	test_every_byte();
	test_cut();
	test_random();
	return check_summary();
}

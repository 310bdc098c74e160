/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Printing strings that come from another process (record names, device
 * strings read from shared memory) so that they cannot drive the terminal
 * or break a JSON document:
 *   - text_escape(): printable ASCII (0x20..0x7e) as is, a backslash as
 *     "\\", every other byte (controls, DEL, bytes of 0x80 and above) as
 *     "\xNN" (two lower-case hex digits);
 *   - json_escape(): a JSON string body: '"' and '\' escaped with a
 *     backslash, every byte below 0x20, DEL and every byte of 0x80 and
 *     above as "\u00NN" (so invalid UTF-8 gives valid JSON, one code point
 *     per byte); other bytes as is.
 * Both read at most @p inmax bytes of @p in (stopping at a NUL) and write a
 * NUL-terminated string of at most @p outsz - 1 bytes into @p out, never an
 * escape cut in two; they return the length the whole escape would take
 * (as snprintf: a result >= outsz means the output was cut).
 */
#ifndef MDEVX_APP_TEXT_ESCAPE_H
#define MDEVX_APP_TEXT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The longest escape of one byte: "\u00NN". */
#define TEXT_ESCAPE_MAX_PER_BYTE 6

/* Room for the escape of a string of @p n bytes and its NUL. */
#define TEXT_ESCAPE_SIZE(n) ((n) * TEXT_ESCAPE_MAX_PER_BYTE + 1)

static inline size_t
text_escape_put(char *out, size_t outsz, size_t len, const char *piece, size_t plen,
		bool *cut)
{
	if (!*cut && outsz > 0 && len + plen < outsz)
		memcpy(out + len, piece, plen);
	else
		*cut = true;
	return len + plen;
}

static inline size_t
text_escape_end(char *out, size_t outsz, size_t len, size_t kept)
{
	if (outsz > 0)
		out[kept < outsz ? kept : outsz - 1] = '\0';
	return len;
}

static inline size_t
text_escape(char *out, size_t outsz, const char *in, size_t inmax)
{
	size_t i, len = 0, kept = 0;
	bool cut = false;
	char e[8];

	for (i = 0; i < inmax && in[i] != '\0'; i++) {
		unsigned char c = (unsigned char)in[i];
		size_t n;

		if (c == '\\')
			n = (size_t)snprintf(e, sizeof(e), "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			n = (size_t)snprintf(e, sizeof(e), "%c", c);
		else
			n = (size_t)snprintf(e, sizeof(e), "\\x%02x", c);
		len = text_escape_put(out, outsz, len, e, n, &cut);
		if (!cut)
			kept = len;
	}
	return text_escape_end(out, outsz, len, kept);
}

static inline size_t
json_escape(char *out, size_t outsz, const char *in, size_t inmax)
{
	size_t i, len = 0, kept = 0;
	bool cut = false;
	char e[8];

	for (i = 0; i < inmax && in[i] != '\0'; i++) {
		unsigned char c = (unsigned char)in[i];
		size_t n;

		if (c == '"' || c == '\\')
			n = (size_t)snprintf(e, sizeof(e), "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			n = (size_t)snprintf(e, sizeof(e), "%c", c);
		else
			n = (size_t)snprintf(e, sizeof(e), "\\u%04x", c);
		len = text_escape_put(out, outsz, len, e, n, &cut);
		if (!cut)
			kept = len;
	}
	return text_escape_end(out, outsz, len, kept);
}

/* Print @p in to @p f as a quoted JSON string, however long. */
static inline void
json_escape_print(FILE *f, const char *in, size_t inmax)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < inmax && in[i] != '\0'; i++) {
		char e[TEXT_ESCAPE_MAX_PER_BYTE + 1];

		json_escape(e, sizeof(e), in + i, 1);
		fputs(e, f);
	}
	fputc('"', f);
}

#endif /* MDEVX_APP_TEXT_ESCAPE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The field values of the filter oracle's events: one event per row,
 * emitted by the lttng-ust app (oracle-app.c) and evaluated by strata's
 * filter (oracle-check.c). Values sit on the edges: negative, above 2^63,
 * empty and NULL strings, strings that differ only where a glob looks,
 * text without a NUL, sequences of length 0, network byte order.
 */
#ifndef STRATA_FILTER_ORACLE_ROWS_H
#define STRATA_FILTER_ORACLE_ROWS_H

#include <stdint.h>

struct fo_row {
	int8_t s8;
	int16_t s16;
	int32_t s32;
	int64_t s64;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	uint32_t h32;
	uint16_t port; /* host order; the app passes htons(port) */
	int32_t net32; /* host order; the app passes htonl(net32) */
	int32_t en; /* enum fo_color */
	float f;
	double d;
	const char *str; /* may be NULL */
	char txt[8]; /* text array: may fill all 8 bytes */
	const char *tseq; /* text sequence of tseq_len bytes */
	uint32_t tseq_len;
	int32_t iarr[4];
	uint16_t iseq[3];
	uint32_t iseq_len;
};

static const struct fo_row fo_rows[] = {
	{ 0 },
	{ -1, -1, -1, -1, 255, 65535, 4294967295u, UINT64_MAX, 0xffffffffu, 65535, -1, 1, -1.0f,
	  -1.0, "", "", "", 0, { -1, -1, -1, -1 }, { 65535 }, 1 },
	{ 5, 300, 1, 42, 0x1f, 1000, 4000000000u, (1ull << 63) + 5, 0xdeadbeef, 80, -2, 2, 1.5f,
	  -0.25, "hello", "abc", "xyz", 3, { 1, -2, 3, 2147483647 }, { 1, 2, 3 }, 3 },
	{ -128, -32768, INT32_MIN, INT64_MIN, 128, 32768, 2147483648u, 1ull << 63, 0x80000000u,
	  443, INT32_MIN, 5, 1e10f, 1e300, NULL, "abcdefgh", "xy", 2, { 0, 0, 0, 0 }, { 0 }, 0 },
	{ 127, 32767, INT32_MAX, INT64_MAX, 127, 32767, 2147483647u, INT64_MAX, 0x7fffffffu, 8080,
	  INT32_MAX, 0, 0.1f, 1.0, "hello world", "hello", "hello", 5, { 7, 7, 7, 7 }, { 9, 9 },
	  2 },
	{ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.0f, 1.0, "a*b", "a*b", "a*b", 3, { 1, 1, 1, 1 },
	  { 1 }, 1 },
	{ 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2.0f, 2.5, "axb", "ab", "abc", 2, { 2, 2, 2, 2 },
	  { 2, 2 }, 2 },
	{ 16, 256, 65536, 1ll << 40, 16, 256, 65536, 1ull << 40, 0x10, 16, 16, 1, -0.5f, -1e-300,
	  "foo", "foo", "foobar", 6, { 16, 256, 4096, 65536 }, { 16, 256, 4096 }, 3 },
	{ -16, -256, -65536, -(1ll << 40), 240, 65280, 4294901760u, UINT64_MAX - 15, 0xfff0,
	  65280, -16, 2, 3.25f, 3.25, "Foo", "Foo", "barfoo", 6, { -16, 16, -16, 16 },
	  { 65280 }, 1 },
	{ 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 5, 0.0f, -0.0, "foobar", "foobar", "foo", 3,
	  { 3, 3, 3, 3 }, { 3, 3, 3 }, 3 },
	{ 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 0, 10.0f, 10.0, "a\\b", "a\\b", "a\\b", 3,
	  { 10, 20, 30, 40 }, { 10, 20 }, 2 },
	{ 100, 1000, 100000, 10000000000ll, 100, 1000, 100000, 10000000000ull, 0xabcdef, 22, 100,
	  1, 100.25f, 1e-5, "helloo", "hell", "hel", 3, { -100, 0, 100, 0 }, { 100 }, 1 },
	{ 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 2, 64.0f, 64.0, "zzz", "zz", "zzzz", 4,
	  { 64, 63, 62, 61 }, { 64, 63, 62 }, 3 },
	{ -5, -5, -5, -5, 5, 5, 5, 5, 5, 5, -5, 5, -5.5f, -5.5, "hello*", "hel*", "*", 1,
	  { -5, -5, -5, -5 }, { 5 }, 1 },
};

#define FO_NROWS (sizeof(fo_rows) / sizeof(fo_rows[0]))

#endif

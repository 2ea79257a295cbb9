/*
 * rtest-app: lttng-ust test application behind the golden LTTng traces.
 *
 *   rtest-app all [ITERS]          every event family ITERS times (default 1)
 *   rtest-app paced ITERS USEC     same, pausing USEC between iterations so
 *                                  the consumer drains each sub-buffer
 *   rtest-app burst N              N rtest:load events as fast as possible
 *   rtest-app mixed N              N events, mostly rtest:load with ints,
 *                                  strings, arrays and enums mixed in
 *                                  (the viewer benchmark's workload)
 *
 * Values are fixed so that regenerated traces differ only in timestamps,
 * pids and addresses.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtest-tp.h"

static const struct rtest_ints ints_rows[] = {
	{ 0, 0, 0, 0, 0, 0, 0, 0, 'Z' },
	{ -1, 255, -1, 65535, -1, 4294967295u, -1, UINT64_MAX, -1 },
	{ INT8_MIN, 128, INT16_MIN, 32768, INT32_MIN, 2147483648u, INT64_MIN, 9223372036854775808u,
	  (char)0x80 },
	{ INT8_MAX, 127, INT16_MAX, 32767, INT32_MAX, 2147483647u, INT64_MAX, 9223372036854775807u,
	  0x7f },
	{ 4, 1, 1024, 4660, 305419896, 3735928559u, -81985529216486896, 1311768467463790320u,
	  '\n' },
};

/*
 * No empty string and no zero-length text sequence: babeltrace2 2.0.4 does
 * not clear a recycled string field when the new value is empty, so it
 * prints a stale value from an earlier event (see tests/traces/README.md).
 */
static const char *const strings[] = {
	"x",
	"hello, world",
	"a\"b\\c\nd\te\x1f?g'h\x7f",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	"ctl \x01\x02\a\b\x1b\f\r\v end",
	"bad utf8 \xff\xfe\xc3",
	"question? apostrophe' quote\" backslash\\",
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789",
};

static void emit_ints(void)
{
	for (size_t i = 0; i < sizeof(ints_rows) / sizeof(ints_rows[0]); i++)
		tracepoint(rtest, ints, &ints_rows[i]);
}

static void emit_floats(void)
{
	volatile double zero = 0.0;
	const float fv[] = { 0.0f,	-0.0f,	  3.14159f, 1e20f,	100000.0f, 1234567.0f,
			     -0.5f,	1.0f / 3, FLT_MAX,  FLT_MIN,	1e-45f,	   (float)INFINITY,
			     -INFINITY, NAN,	  -NAN,	    16777216.0f };
	const double dv[] = { 0.0,	    -0.0,     2.718281828459045, 1e-300,
			      -123456789.0, 1e100,    DBL_MAX,		 DBL_MIN,
			      4.9e-324,	    INFINITY, -INFINITY,	 zero / zero,
			      NAN,	    0.1,      123456.5,		 9007199254740993.0 };

	for (size_t i = 0; i < sizeof(fv) / sizeof(fv[0]); i++)
		tracepoint(rtest, floats, fv[i], dv[i]);
}

static void emit_strings(void)
{
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		tracepoint(rtest, string, strings[i]);
}

static void emit_arrays(void)
{
	static const char t1[] = "hi\"\\\n\t\x01z-tail";
	static const char t2[] = "ab\0cdefghij";
	static const char t3[] = "caf\xc3\xa9\0\0\0\0";
	static const int32_t arr1[] = { 10, 20, 30, -1 };
	static const int32_t arr2[] = { INT32_MIN, 0, INT32_MAX, 255 };
	static const uint16_t seq[] = { 1, 2, 3, 1024, 65535, 0, 7, 8, 9, 10, 11, 12 };
	static const uint8_t bytes[] = { 0, 1, 127, 128, 200, 255 };
	const struct rtest_arrays rows[] = {
		{ t1, 12, arr1, seq, 12, bytes },
		{ t2, 8, arr2, seq, 0, bytes },
		{ t3, 4, arr1, seq + 3, 3, bytes },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		tracepoint(rtest, arrays, &rows[i]);
}

static void emit_enums(void)
{
	static const int colors[] = { 0, 1, 2, 10, 15, 20, 21, 25, 26, 5, -5, 100, 1000 };
	static const uint32_t flags[] = { 0, 1, 3, 4, 0x80000000u, 0xFFFFFFFFu, 64 };

	for (size_t i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		tracepoint(rtest, enums, colors[i], flags[i % (sizeof(flags) / sizeof(flags[0]))]);
}

static void emit_all(void)
{
	emit_ints();
	emit_floats();
	emit_strings();
	emit_arrays();
	emit_enums();
	tracepoint(rtest, empty);
	tracepoint(rtest, emerg, 0);
	tracepoint(rtest, err, 3);
	tracepoint(rtest, dbgsys, 7);
}

static void emit_burst(uint64_t n)
{
	static const char *const names[] = { "alpha", "beta", "gamma-delta", "d" };

	for (uint64_t i = 0; i < n; i++)
		tracepoint(rtest, load, i, (int32_t)(i * 7) - 1000, names[i & 3], (double)i / 8.0);
}

static void emit_mixed(uint64_t n)
{
	static const char *const names[] = { "alpha", "beta", "gamma-delta", "tab\there" };
	static const int32_t arr[] = { 10, 20, 30, -1 };
	static const uint16_t seq[] = { 1, 2, 3, 1024, 65535, 0, 7, 8 };
	static const uint8_t bytes[] = { 0, 1, 127, 128, 200, 255 };

	for (uint64_t i = 0; i < n; i++) {
		switch (i & 7) {
		case 0:
			tracepoint(rtest, ints, &ints_rows[(i >> 3) % 5]);
			break;
		case 1:
			tracepoint(rtest, string, strings[(i >> 3) % 8]);
			break;
		case 2: {
			const struct rtest_arrays a = { "text\"12", 1 + (i >> 3) % 7, arr,
							seq,	    (i >> 3) % 8,     bytes };

			tracepoint(rtest, arrays, &a);
			break;
		}
		case 3:
			tracepoint(rtest, enums, (int)((i >> 3) % 30), (uint32_t)(i >> 3) & 7);
			break;
		default:
			tracepoint(rtest, load, i, (int32_t)(i * 7) - 1000, names[i & 3],
				   (double)i / 8.0);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	unsigned long a = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	unsigned long b = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;

	if (strcmp(mode, "all") == 0) {
		for (unsigned long i = 0; i < a; i++)
			emit_all();
	} else if (strcmp(mode, "paced") == 0) {
		for (unsigned long i = 0; i < a; i++) {
			emit_all();
			usleep((useconds_t)b);
		}
	} else if (strcmp(mode, "burst") == 0) {
		emit_burst(a);
	} else if (strcmp(mode, "mixed") == 0) {
		emit_mixed(a);
	} else {
		fprintf(stderr, "usage: %s all [ITERS] | paced ITERS USEC | burst N | mixed N\n",
			argv[0]);
		return 2;
	}
	return 0;
}
